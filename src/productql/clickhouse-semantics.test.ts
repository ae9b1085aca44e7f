/**
 * ProductQL semantics on both engines: a representative subset of semantics.test.ts, each query run on DuckDB and
 * on a real ClickHouse (single node) loaded with the same data, with identical shaped results required (and the
 * expected values where semantics.test.ts pins them).
 */
import { describeClickHouse, startSingle, type TestServer } from '../engines/clickhouse/test-server';
import { createClickHouseTestDb, PARITY_CASES, type ClickHouseTestDb } from '../engines/clickhouse/testing';
import { shutdownParser } from './index';
import { createTestDb, type TestDb } from './testing';

describeClickHouse('ProductQL gives identical results on DuckDB and ClickHouse', () => {
  let server: TestServer;
  let ch: ClickHouseTestDb;
  let duck: TestDb;
  beforeAll(async () => {
    server = await startSingle();
    [ch, duck] = await Promise.all([createClickHouseTestDb({ url: server.url, database: 'semantics' }), createTestDb()]);
  });
  afterAll(async () => {
    duck?.close();
    await ch?.close();
    await server?.stop();
    await shutdownParser();
  });

  it.each(PARITY_CASES)('%s (%s)', async (text, timezone, expected) => {
    const [d, c] = await Promise.all([duck.query(text, { timezone }), ch.query(text, { timezone })]);
    expect(c.columns).toEqual(d.columns);
    expect(c.results).toEqual(d.results);
    expect(c.hasMore).toBe(d.hasMore);
    if (expected) expect(c.results).toEqual(expected);
  });

  it('variables are spliced as values', async () => {
    const opts = { variables: { ev: '$pageview', since: '2024-03-31' } };
    const text = 'select count() from events where event = {variables.ev} and timestamp >= {variables.since}';
    expect((await ch.query(text, opts)).results).toEqual([[4]]);
    expect((await duck.query(text, opts)).results).toEqual([[4]]);
  });

  it("assumeNotNull: the same answers on non-null values; on a NULL, ClickHouse's own function gives some non-null value", async () => {
    const text = "select count() from events where assumeNotNull(nullIf(event, '$pageview')) = 'signup'";
    const [d, c] = await Promise.all([duck.query(text), ch.query(text)]);
    expect(c.results).toEqual(d.results);
    expect((c.results[0] as number[])[0]).toBeGreaterThan(0);
    // What ClickHouse returns there is unspecified (18.16: the value stored under the null, here 'a').
    expect((await ch.query("select assumeNotNull(nullIf('a', 'a'))")).results[0][0]).not.toBeNull();
    expect((await duck.query("select assumeNotNull(nullIf('a', 'a'))")).results).toEqual([[null]]);
  });

  it('default limit, offset and hasMore', async () => {
    const r = await ch.query('select event from events order by timestamp', { limit: 4 });
    expect(r.results).toHaveLength(4);
    expect(r.hasMore).toBe(true);
    const r2 = await ch.query('select event from events order by timestamp', { limit: 4, offset: 4 });
    expect(r2.results).toHaveLength(2);
    expect(r2.hasMore).toBe(false);
    const clamp = await ch.query('select event from events limit 999999');
    expect(clamp.compiled.limit).toBe(50_000);
    expect(clamp.compiled.sql).toMatch(/LIMIT 50001$/);
  });

  it('keeps sub-second order and precision', async () => {
    const base = Date.UTC(2024, 5, 1, 12, 0, 0);
    const mk = (i: number, ms: number) => ({
      project_id: 7,
      uuid: `20000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      event: `e${i}`,
      distinct_id: 'd',
      person_id: null,
      timestamp: base + ms,
      properties: '{}',
      session_id: null,
      elements_chain: null,
      created_at: base,
    });
    await ch.engine.writeBatch({ events: [mk(1, 900), mk(2, 5), mk(3, 450)] });
    const r = await ch.query('select event, timestamp from events order by timestamp', { projectId: 7, timezone: 'UTC' });
    expect(r.results).toEqual([
      ['e2', '2024-06-01T12:00:00.005000Z'],
      ['e3', '2024-06-01T12:00:00.450000Z'],
      ['e1', '2024-06-01T12:00:00.900000Z'],
    ]);
  });

  it('refuses what ClickHouse 18.16 cannot run with a 400', async () => {
    await expect(ch.query('select row_number() over (order by timestamp) from events')).rejects.toMatchObject({ status: 400 });
    await expect(ch.query('select count() over () from events')).rejects.toMatchObject({ status: 400 });
    await expect(ch.query("select properties[concat('a', 'b')] from events")).rejects.toMatchObject({ status: 400 });
  });
});
