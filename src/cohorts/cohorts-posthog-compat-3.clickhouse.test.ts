/** cohorts-posthog-compat-3.test.ts on ClickHouse: the same file, the same pinned members (src/engines/clickhouse/test-engine.ts). */
import { runSuiteOnClickHouse } from '../engines/clickhouse/test-engine';

runSuiteOnClickHouse('cohorts-posthog-compat-3.test.ts', () => require('./cohorts-posthog-compat-3.test'));
