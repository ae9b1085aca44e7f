/** paths-posthog-compat-7.test.ts on ClickHouse: the same file, the same pinned results (src/engines/clickhouse/test-engine.ts). */
import { runSuiteOnClickHouse } from '../../engines/clickhouse/test-engine';

runSuiteOnClickHouse('paths-posthog-compat-7.test.ts', () => require('./paths-posthog-compat-7.test'));
