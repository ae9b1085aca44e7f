/** actors-runner.test.ts on ClickHouse: the same file, the same pinned results (src/engines/clickhouse/test-engine.ts). */
import { runSuiteOnClickHouse } from '../../engines/clickhouse/test-engine';

runSuiteOnClickHouse('actors-runner.test.ts', () => require('./actors-runner.test'));
