/** The DuckDB-spelled internal statements of the Ingestor, query log and event service, answered by ClickHouse. */
import { ClickHouseEngine } from './clickhouse-engine';
import { ClickHouseCompat } from './compat';
import { describeClickHouse, startSingle, type TestServer } from './test-server';

const P = (n: number) => `70000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describeClickHouse('ClickHouseCompat', () => {
  let server: TestServer;
  let compat: ClickHouseCompat;
  beforeAll(async () => {
    server = await startSingle();
    compat = new ClickHouseCompat(await ClickHouseEngine.open({ url: server.url, database: 'compat' }));
    await compat.writeBatch({
      events: [{ project_id: 1, uuid: P(100), event: 'e', distinct_id: 'd1', person_id: P(1), timestamp: Date.now(), properties: '{}', session_id: null, elements_chain: null, created_at: Date.now() }],
      newPersons: [{ project_id: 1, id: P(1), created_at: Date.UTC(2024, 0, 1, 0, 0, 0) + 5, properties: { a: 1 }, is_identified: true, version: 3 }],
      newDistinctIds: [{ project_id: 1, distinct_id: 'd1', person_id: P(1), version: 2 }],
      overrides: [{ project_id: 1, old_person_id: P(2), override_person_id: P(1), version: 1 }],
    });
  });
  afterAll(async () => {
    await compat?.close();
    await server?.stop();
  });

  it('answers the Ingestor identity loader and recent-uuid statements', async () => {
    const persons = await compat.query('SELECT id::VARCHAR, epoch_ms(created_at), properties, is_identified, version FROM persons WHERE project_id = $1', [1]);
    expect(persons.rows).toEqual([[P(1), Date.UTC(2024, 0, 1) + 5, { a: 1 }, true, 3]]);
    expect((await compat.query('SELECT distinct_id, person_id::VARCHAR, version FROM person_distinct_ids WHERE project_id = $1', [1])).rows).toEqual([['d1', P(1), 2]]);
    expect(
      (await compat.query('SELECT old_person_id::VARCHAR, override_person_id::VARCHAR, version FROM person_overrides WHERE project_id = $1', [1])).rows,
    ).toEqual([[P(2), P(1), 1]]);
    const recent = await compat.query('SELECT project_id, uuid::VARCHAR FROM events WHERE created_at >= $1 LIMIT 500000', [new Date(Date.now() - 60_000)]);
    expect(recent.rows).toEqual([[1, P(100)]]);
  });

  it('answers the event service person lookup', async () => {
    const q = 'SELECT 1 FROM persons WHERE project_id = $1 AND id = $2::UUID LIMIT 1';
    expect((await compat.query(q, [1, P(1).toUpperCase()])).rows).toEqual([[1]]);
    expect((await compat.query(q, [2, P(1)])).rows).toEqual([]);
  });

  it('writes and lists the query log', async () => {
    const row = (id: string, t: Date) => [1, id, null, t, 'key:1', 'HogQLQuery', null, 'h', JSON.stringify({ q: "it's" }), 1.5, 2, 10, true, 'ok', null];
    const params = [...row('a', new Date('2024-05-01T00:00:00.123Z')), ...row('b', new Date('2024-05-02T00:00:00Z'))];
    const tuples = [0, 15].map((o) => `(${Array.from({ length: 15 }, (_, j) => `$${o + j + 1}`).join(', ')})`);
    await compat.exec(
      `INSERT INTO query_log (project_id, id, query_id, event_time, principal, kind, name, query_hash, query, duration_ms, result_rows, result_bytes, is_cached, status, error_code) VALUES ${tuples.join(', ')}`,
      params,
    );
    const cond = 'project_id = $1 AND is_cached = $2 AND event_time >= $3';
    const p = [1, true, new Date('2024-05-01T00:00:00.100Z')];
    expect((await compat.query(`SELECT count(*) FROM query_log WHERE ${cond}`, p)).rows).toEqual([[2]]);
    const rows = await compat.query(`SELECT id, event_time, query, is_cached FROM query_log WHERE ${cond} ORDER BY event_time DESC, id LIMIT 10 OFFSET 0`, p);
    expect(rows.rows).toEqual([
      ['b', '2024-05-02T00:00:00.000Z', { q: "it's" }, true],
      ['a', '2024-05-01T00:00:00.123Z', { q: "it's" }, true],
    ]);
  });

  it('refuses internal statements it does not know, and passes ProductQL output through', async () => {
    await expect(compat.query('SELECT * FROM events WHERE uuid = $1', ['x'])).rejects.toThrow(/unsupported internal statement/);
    await expect(compat.exec('DELETE FROM events WHERE project_id = $1', [1])).rejects.toThrow(/unsupported internal statement/);
    expect((await compat.query("SELECT '$1' AS x", [])).rows).toEqual([['$1']]);
  });
});
