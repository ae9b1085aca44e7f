/** actions-posthog-compat.test.ts on ClickHouse: the same file, the same pinned counts (src/engines/clickhouse/test-engine.ts). */
import { runSuiteOnClickHouse } from '../engines/clickhouse/test-engine';

runSuiteOnClickHouse('actions-posthog-compat.test.ts', () => require('./actions-posthog-compat.test'));
