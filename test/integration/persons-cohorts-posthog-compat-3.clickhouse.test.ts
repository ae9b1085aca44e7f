/** persons-cohorts-posthog-compat-3.test.ts on ClickHouse: the same file, the same answers (src/engines/clickhouse/test-engine.ts). */
import { runSuiteOnClickHouse } from '../../src/engines/clickhouse/test-engine';

runSuiteOnClickHouse('persons-cohorts-posthog-compat-3.test.ts', () => require('./persons-cohorts-posthog-compat-3.test'));
