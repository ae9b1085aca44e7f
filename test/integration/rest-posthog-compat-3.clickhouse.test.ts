/**
 * The engine-dependent part of rest-posthog-compat-3.test.ts on ClickHouse (a real server on loopback, started here):
 * the persons list, bulk_delete, a cohort's persons and the events list's unknown cohorts answer as on DuckDB.
 */
import { describeClickHouse } from '../../src/engines/clickhouse/test-server';
import { quarryOnClickHouse } from '../helpers/clickhouse-quarry';
import { describeRestCompat3Persons } from '../helpers/rest-compat-3';

describeClickHouse('REST compatibility (third batch) on ClickHouse', () => {
  describeRestCompat3Persons('ClickHouse', quarryOnClickHouse('quarry_rest_compat_3'));
});
