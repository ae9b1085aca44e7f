/**
 * The engine-dependent part of rest-posthog-compat.test.ts on ClickHouse: the persons API reads ProductQL's
 * persons tables, so it must answer the same on both engines (a real ClickHouse on loopback, started here).
 */
import { describeClickHouse, startSingle, type TestServer as ClickHouseServer } from '../../src/engines/clickhouse/test-server';
import { describePersonsCompat } from '../helpers/persons-compat';
import { startServer, type TestServer } from '../helpers/server';

describeClickHouse('REST compatibility on ClickHouse', () => {
  let ch: ClickHouseServer;
  let s: TestServer;
  beforeAll(async () => {
    ch = await startSingle();
    s = await startServer({ env: { QUARRY_EVENTS_ENGINE: 'clickhouse', QUARRY_CLICKHOUSE_URL: ch.url, QUARRY_CLICKHOUSE_DATABASE: 'quarry_rest_compat' } });
  });
  afterAll(async () => {
    await s?.close();
    await ch?.stop();
  });

  describePersonsCompat('ClickHouse', () => s);
});
