/** cohorts-posthog-compat-5.test.ts on ClickHouse: the same behavioral and nested cohorts, the same pinned members (src/engines/clickhouse/test-engine.ts). */
import { runSuiteOnClickHouse } from '../engines/clickhouse/test-engine';

runSuiteOnClickHouse('cohorts-posthog-compat-5.test.ts', () => require('./cohorts-posthog-compat-5.test'));
