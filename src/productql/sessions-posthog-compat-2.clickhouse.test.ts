/** sessions-posthog-compat-2.test.ts on ClickHouse: the same file, the same pinned results (src/engines/clickhouse/test-engine.ts). */
import { runSuiteOnClickHouse } from '../engines/clickhouse/test-engine';

runSuiteOnClickHouse('sessions-posthog-compat-2.test.ts', () => require('./sessions-posthog-compat-2.test'));
