/**
 * The engine-dependent part of rest-posthog-compat-6.test.ts on ClickHouse (a real server on loopback, started here):
 * the legacy trend and funnel routes answer as on DuckDB.
 */
import { describeClickHouse } from '../../src/engines/clickhouse/test-server';
import { quarryOnClickHouse } from '../helpers/clickhouse-quarry';
import { describeRestCompat6Legacy } from '../helpers/rest-compat-6';

describeClickHouse('REST compatibility (sixth batch) on ClickHouse', () => {
  describeRestCompat6Legacy('ClickHouse', quarryOnClickHouse('quarry_rest_compat_6'));
});
