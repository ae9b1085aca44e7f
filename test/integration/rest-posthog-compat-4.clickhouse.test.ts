/**
 * The engine-dependent part of rest-posthog-compat-4.test.ts on ClickHouse (a real server on loopback, started here):
 * the persons' property names answer as on DuckDB.
 */
import { describeClickHouse } from '../../src/engines/clickhouse/test-server';
import { quarryOnClickHouse } from '../helpers/clickhouse-quarry';
import { describeRestCompat4Persons } from '../helpers/rest-compat-4';

describeClickHouse('REST compatibility (fourth batch) on ClickHouse', () => {
  describeRestCompat4Persons('ClickHouse', quarryOnClickHouse('quarry_rest_compat_4'));
});
