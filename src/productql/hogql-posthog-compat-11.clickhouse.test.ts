/** hogql-posthog-compat-11.test.ts on ClickHouse: the same file, the same pinned results (src/engines/clickhouse/test-engine.ts). */
import { runSuiteOnClickHouse } from '../engines/clickhouse/test-engine';

runSuiteOnClickHouse('hogql-posthog-compat-11.test.ts', () => require('./hogql-posthog-compat-11.test'));
