import { startSingle, type TestServer as ClickHouseServer } from '../../src/engines/clickhouse/test-server';
import { testEngine } from '../../src/engines/clickhouse/test-engine';
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

/**
 * A Quarry server for a shared suite on the engine it runs under (`testEngine()`): on ClickHouse as
 * {@link quarryOnClickHouse} (database `database`), else a plain DuckDB server; started before the file's tests.
 */
export function quarryOnTestEngine(database: string): () => TestServer {
  if (testEngine() === 'clickhouse') return quarryOnClickHouse(database);
  let s: TestServer | undefined;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(async () => {
    await s?.close();
  });
  return () => s!;
}
