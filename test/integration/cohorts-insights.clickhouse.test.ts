/** cohorts-insights.test.ts on ClickHouse: the same cohort scenarios against a real ClickHouse on loopback. */
import { describeClickHouse } from '../../src/engines/clickhouse/test-server';
import { describeCohortsCompat } from '../helpers/cohorts-compat';
import { quarryOnClickHouse } from '../helpers/clickhouse-quarry';

describeClickHouse('cohorts on ClickHouse', () => {
  describeCohortsCompat('ClickHouse', quarryOnClickHouse('quarry_cohorts'));
});
