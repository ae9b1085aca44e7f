/** ingest-elements.test.ts on ClickHouse: the same capture and queries against a real ClickHouse on loopback. */
import { describeClickHouse } from '../../src/engines/clickhouse/test-server';
import { describeElementsCapture } from '../helpers/elements-capture';
import { quarryOnClickHouse } from '../helpers/clickhouse-quarry';

describeClickHouse('autocapture elements on ClickHouse', () => {
  describeElementsCapture('ClickHouse', quarryOnClickHouse('quarry_elements'));
});
