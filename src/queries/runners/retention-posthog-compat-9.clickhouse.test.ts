/** retention-posthog-compat-9.test.ts on ClickHouse: the same file, the same pinned results (src/engines/clickhouse/test-engine.ts). */
import { runSuiteOnClickHouse } from '../../engines/clickhouse/test-engine';

runSuiteOnClickHouse('retention-posthog-compat-9.test.ts', () => require('./retention-posthog-compat-9.test'));
