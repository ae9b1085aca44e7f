/** hogql-functions-posthog-compat-5.test.ts on ClickHouse: the same file, the same pinned results (src/engines/clickhouse/test-engine.ts). */
import { runSuiteOnClickHouse } from '../engines/clickhouse/test-engine';

runSuiteOnClickHouse('hogql-functions-posthog-compat-5.test.ts', () => require('./hogql-functions-posthog-compat-5.test'));
