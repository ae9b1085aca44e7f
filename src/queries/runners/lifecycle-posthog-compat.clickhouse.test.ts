/** lifecycle-posthog-compat.test.ts on ClickHouse: the same file, the same pinned results. */
import { runSuiteOnClickHouse } from '../../engines/clickhouse/test-engine';

runSuiteOnClickHouse('lifecycle-posthog-compat.test.ts', () => require('./lifecycle-posthog-compat.test'));
