/** retention-lifecycle-stickiness-posthog-compat.test.ts on ClickHouse: the same file, the same pinned results. */
import { runSuiteOnClickHouse } from '../../engines/clickhouse/test-engine';

runSuiteOnClickHouse('retention-lifecycle-stickiness-posthog-compat.test.ts', () => require('./retention-lifecycle-stickiness-posthog-compat.test'));
