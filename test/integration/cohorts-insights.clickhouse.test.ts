/** cohorts-insights.test.ts on ClickHouse: the same cohort scenarios against a real ClickHouse on loopback. */
import { describeClickHouse, startSingle, type TestServer as ClickHouseServer } from '../../src/engines/clickhouse/test-server';
import { describeCohortsCompat } from '../helpers/cohorts-compat';
import { startServer, type TestServer } from '../helpers/server';

describeClickHouse('cohorts on ClickHouse', () => {
  let ch: ClickHouseServer;
  let s: TestServer;
  beforeAll(async () => {
    ch = await startSingle();
    s = await startServer({ env: { QUARRY_EVENTS_ENGINE: 'clickhouse', QUARRY_CLICKHOUSE_URL: ch.url, QUARRY_CLICKHOUSE_DATABASE: 'quarry_cohorts' } });
  });
  afterAll(async () => {
    await s?.close();
    await ch?.stop();
  });

  describeCohortsCompat('ClickHouse', () => s);
});
