import { startSingle, type TestServer as ClickHouseServer } from '../../src/engines/clickhouse/test-server';
import { startServer, type TestServer } from './server';

/**
 * Inside a `describeClickHouse` block: a ClickHouse on loopback and a Quarry server using it (database `database`),
 * started before the block's tests and stopped after them. Returns the server, for shared suites that take it lazily.
 */
export function quarryOnClickHouse(database: string): () => TestServer {
  let ch: ClickHouseServer | undefined;
  let s: TestServer | undefined;
  beforeAll(async () => {
    ch = await startSingle();
    s = await startServer({ env: { QUARRY_EVENTS_ENGINE: 'clickhouse', QUARRY_CLICKHOUSE_URL: ch.url, QUARRY_CLICKHOUSE_DATABASE: database } });
  });
  afterAll(async () => {
    await s?.close();
    await ch?.stop();
  });
  return () => s!;
}
