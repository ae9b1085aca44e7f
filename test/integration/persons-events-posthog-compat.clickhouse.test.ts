/**
 * persons-events-posthog-compat.test.ts on ClickHouse: the persons and events APIs read ProductQL's tables, so they
 * must answer the same on both engines (a real ClickHouse on loopback, started here).
 */
import { describeClickHouse } from '../../src/engines/clickhouse/test-server';
import { describePersonsEventsCompat } from '../helpers/persons-events-compat';
import { quarryOnClickHouse } from '../helpers/clickhouse-quarry';

describeClickHouse('persons and events REST API on ClickHouse', () => {
  describePersonsEventsCompat('ClickHouse', quarryOnClickHouse('quarry_persons_events_compat'));
});
