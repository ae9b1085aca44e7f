/** stickiness-lifecycle-posthog-compat-3.test.ts on ClickHouse: the same file, the same pinned results. */
import { runSuiteOnClickHouse } from '../../engines/clickhouse/test-engine';

runSuiteOnClickHouse('stickiness-lifecycle-posthog-compat-3.test.ts', () => require('./stickiness-lifecycle-posthog-compat-3.test'));
