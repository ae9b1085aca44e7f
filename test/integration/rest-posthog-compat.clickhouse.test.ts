/**
 * The engine-dependent part of rest-posthog-compat.test.ts on ClickHouse: the persons API reads ProductQL's
 * persons tables, so it must answer the same on both engines (a real ClickHouse on loopback, started here).
 */
import { describeClickHouse } from '../../src/engines/clickhouse/test-server';
import { describePersonsCompat } from '../helpers/persons-compat';
import { quarryOnClickHouse } from '../helpers/clickhouse-quarry';

describeClickHouse('REST compatibility on ClickHouse', () => {
  describePersonsCompat('ClickHouse', quarryOnClickHouse('quarry_rest_compat'));
});
