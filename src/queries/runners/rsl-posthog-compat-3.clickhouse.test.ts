/** rsl-posthog-compat-3.test.ts on ClickHouse: the same file, the same pinned results. */
import { runSuiteOnClickHouse } from '../../engines/clickhouse/test-engine';

runSuiteOnClickHouse('rsl-posthog-compat-3.test.ts', () => require('./rsl-posthog-compat-3.test'));
