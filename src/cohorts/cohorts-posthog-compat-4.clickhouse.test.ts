/** cohorts-posthog-compat-4.test.ts on ClickHouse: the same behavioral cohorts, the same pinned members (src/engines/clickhouse/test-engine.ts). */
import { runSuiteOnClickHouse } from '../engines/clickhouse/test-engine';

runSuiteOnClickHouse('cohorts-posthog-compat-4.test.ts', () => require('./cohorts-posthog-compat-4.test'));
