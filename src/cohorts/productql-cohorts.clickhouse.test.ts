/** productql-cohorts.test.ts on ClickHouse: the same file, the same pinned results (src/engines/clickhouse/test-engine.ts). */
import { runSuiteOnClickHouse } from '../engines/clickhouse/test-engine';

runSuiteOnClickHouse('productql-cohorts.test.ts', () => require('./productql-cohorts.test'));
