/**
 * The engine-dependent part of rest-posthog-compat-5.test.ts on ClickHouse (a real server on loopback, started here):
 * insight endpoint runs (breakdown values, magic variables, filters_override) answer as on DuckDB.
 */
import { describeClickHouse } from '../../src/engines/clickhouse/test-server';
import { quarryOnClickHouse } from '../helpers/clickhouse-quarry';
import { describeRestCompat5EndpointRuns } from '../helpers/rest-compat-5';

describeClickHouse('REST compatibility (fifth batch) on ClickHouse', () => {
  describeRestCompat5EndpointRuns('ClickHouse', quarryOnClickHouse('quarry_rest_compat_5'));
});
