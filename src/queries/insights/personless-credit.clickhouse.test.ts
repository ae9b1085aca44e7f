/** personless-credit.test.ts on ClickHouse: the same scenarios, the same expected results. */
import { runSuiteOnClickHouse } from '../../engines/clickhouse/test-engine';

runSuiteOnClickHouse('personless-credit.test.ts', () => require('./personless-credit.test'));
