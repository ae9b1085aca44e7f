/** action-cohorts.test.ts on ClickHouse: the same scenarios against a real ClickHouse on loopback. */
import { describeClickHouse } from '../../src/engines/clickhouse/test-server';
import { describeActionCohortsCompat } from '../helpers/action-cohorts-compat';
import { quarryOnClickHouse } from '../helpers/clickhouse-quarry';

describeClickHouse('action cohorts on ClickHouse', () => {
  describeActionCohortsCompat('ClickHouse', quarryOnClickHouse('quarry_action_cohorts'));
});
