/** persons-posthog-compat-2.test.ts on ClickHouse: the same file, the same answers (src/engines/clickhouse/test-engine.ts). */
import { runSuiteOnClickHouse } from '../../src/engines/clickhouse/test-engine';

runSuiteOnClickHouse('persons-posthog-compat-2.test.ts', () => require('./persons-posthog-compat-2.test'));
