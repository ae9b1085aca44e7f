/** stickiness-posthog-compat.test.ts on ClickHouse: the same file, the same pinned results. */
import { runSuiteOnClickHouse } from '../../engines/clickhouse/test-engine';

runSuiteOnClickHouse('stickiness-posthog-compat.test.ts', () => require('./stickiness-posthog-compat.test'));
