/** The ClickHouse engine against a real server started from a temp dir on a loopback port. */
import net from 'node:net';
import { UserError } from '../../errors';
import { compileProductQL } from '../../productql';
import '../../productql/clickhouse'; // registers the ClickHouse printer
import type { WriteBatch } from '../duckdb/duckdb-engine';
import { ClickHouseEngine, sanitizeClickHouseMessage } from './clickhouse-engine';
import { nodeSchema } from './schema';
import { describeClickHouse, startSingle, type TestServer } from './test-server';

const U = (n: number) => `30000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const P = (n: number) => `40000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const ev = (n: number, person: string | null, ts = Date.UTC(2024, 0, 1, 0, 0, n), project = 1) => ({
  project_id: project,
  uuid: U(n),
  event: 'e',
  distinct_id: `d${n}`,
  person_id: person,
  timestamp: ts,
  properties: JSON.stringify({ n }),
  session_id: null,
  elements_chain: null,
  created_at: ts,
});

describe('schema and messages (no server)', () => {
  it('creates sharded local tables behind Distributed tables when a cluster is named', () => {
    const ddl = nodeSchema('quarry', 'c1');
    expect(ddl.some((s) => s.includes('`events_local`') && s.includes('PARTITION BY toYYYYMM(timestamp)'))).toBe(true);
    expect(ddl.some((s) => /`events` AS `quarry`\.`events_local` ENGINE = Distributed\(`c1`, `quarry`, `events_local`, cityHash64\(distinct_id\)\)/.test(s))).toBe(true);
    expect(nodeSchema('quarry').some((s) => s.includes('Distributed'))).toBe(false);
  });

  it('strips echoed SQL from server messages', () => {
    expect(
      sanitizeClickHouseMessage(
        "Code: 62, e.displayText() = DB::Exception: Syntax error: failed at position 12 (line 1, col 12): FROM `events` AS `e` WHERE `e`.`project_id` = 2. Expected one of: token, e.what() = DB::Exception",
      ),
    ).toBe('Syntax error: failed at position 12 (line 1, col 12). Expected one of: token');
    expect(sanitizeClickHouseMessage('Code: 179, e.displayText() = DB::Exception: Different expressions with the same alias x:\nfoo AS x\nand\nbar AS x, e.what() = DB::Exception')).toBe(
      'Different expressions with the same alias x:',
    );
  });

  it('fails to open with a clear message when ClickHouse is unreachable', async () => {
    await expect(ClickHouseEngine.open({ url: 'http://127.0.0.1:1', requestTimeoutMs: 2000 })).rejects.toThrow(/ClickHouse is unreachable at http:\/\/127\.0\.0\.1:1/);
  });
});

describeClickHouse('ClickHouse engine', () => {
  let server: TestServer;
  let engine: ClickHouseEngine;
  /** Waits (up to 5 s) until no query whose text contains `fragment` runs on the server: KILL QUERY took effect. */
  const expectGone = async (fragment: string, message: string) => {
    for (let i = 0; i < 50; i++) {
      const r = await engine.query(`SELECT count() FROM system.processes WHERE query LIKE '%${fragment}%' AND query NOT LIKE '%system.processes%'`, []);
      if (r.rows[0][0] === 0) return;
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error(message);
  };
  beforeAll(async () => {
    server = await startSingle();
    engine = await ClickHouseEngine.open({ url: server.url, database: 'engine_test' });
  });
  afterAll(async () => {
    await engine?.close();
    await server?.stop();
  });

  it('opens twice on the same database (migrations are idempotent)', async () => {
    const again = await ClickHouseEngine.open({ url: server.url, database: 'engine_test' });
    expect((await again.query('SELECT count() FROM quarry_schema', [])).rows).toEqual([[1]]);
    await again.close();
  });

  it('maps result types to JSON values like DuckDB (64-bit integers as numbers)', async () => {
    const r = await engine.query(
      "SELECT toUInt64(5) AS a, toInt64(-7) AS b, [toUInt64(1), toUInt64(2)] AS c, toUInt64(18446744073709551615) AS d, 1.5 AS e, NULL AS f, toDate('2024-01-02') AS g, ? AS h",
      ["it's"],
    );
    expect(r.columns).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
    expect(r.types).toEqual(['UInt64', 'Int64', 'Array(UInt64)', 'UInt64', 'Float64', 'Nullable(Nothing)', 'Date', 'String']);
    expect(r.rows).toEqual([[5, -7, [1, 2], '18446744073709551615', 1.5, null, '2024-01-02', "it's"]]);
  });

  it('turns server errors into 400 query_error without SQL', async () => {
    const e = await engine.query('SELECT nope FROM events WHERE project_id = 12345', []).catch((x) => x);
    expect(e).toBeInstanceOf(UserError);
    expect(e.status).toBe(400);
    expect(e.code).toBe('query_error');
    expect(e.message).not.toContain('12345');
  });

  it('cancels a slow query on timeout and kills it on the server', async () => {
    const t0 = Date.now();
    const e = await engine.query('SELECT count() FROM system.numbers WHERE number % 7 = 3', [], { timeoutMs: 300 }).catch((x) => x);
    expect(e).toBeInstanceOf(UserError);
    expect(e.code).toBe('query_timeout');
    expect(Date.now() - t0).toBeLessThan(3000);
    // KILL QUERY ran: nothing of ours is still executing.
    await expectGone('number % 7 = 3', 'query still running after timeout');
  });

  it('sends queries as @clickhouse/client did: trailing semicolons and comments, session settings, database', async () => {
    expect((await engine.query('SELECT 1 AS x;; ', [])).rows).toEqual([[1]]);
    expect((await engine.query('SELECT 2 AS x -- a trailing comment', [])).rows).toEqual([[2]]);
    expect((await engine.query('SELECT currentDatabase()', [])).rows).toEqual([['engine_test']]);
    const names = "('join_use_nulls', 'join_default_strictness', 'max_query_size', 'max_execution_time')";
    const r = await engine.query(`SELECT name, value FROM system.settings WHERE name IN ${names} ORDER BY name`, [], { timeoutMs: 4500 });
    expect(r.rows).toEqual([
      ['join_default_strictness', 'ALL'],
      ['join_use_nulls', '1'],
      ['max_execution_time', '6'],
      ['max_query_size', '16777216'],
    ]);
  });

  it('runs stages first into temporary tables the query reads, with the same database and settings, then drops them', async () => {
    const stages = [
      // The stage's SELECT sees the engine's database and session settings (join_use_nulls: a LEFT JOIN miss is NULL).
      { table: '__s1', sql: "SELECT currentDatabase() AS db, r.y AS y FROM (SELECT 1 AS x) AS l LEFT JOIN (SELECT 2 AS x, 'b' AS y) AS r USING x" },
      // A later stage reads an earlier one; its blocks are kept as they come (no squashing on insert).
      { table: '__s2', sql: 'SELECT number AS n FROM system.numbers LIMIT 300000' },
    ];
    const r = await engine.query(
      "SELECT (SELECT any(db) FROM __s1) AS db, (SELECT any(y) FROM __s1) AS y, count() AS n, uniqExact(blockNumber()) > 1 AS blocks, (SELECT value FROM system.settings WHERE name = 'join_use_nulls') AS jun FROM __s2",
      [],
      { stages, timeoutMs: 10_000 },
    );
    expect(r.rows).toEqual([['engine_test', null, 300000, 1, '1']]);
    // Dropped afterwards: the tables were the session's, and the next query sees none of them.
    expect((await engine.query("SELECT count() FROM system.tables WHERE is_temporary AND name IN ('__s1', '__s2')", [])).rows).toEqual([[0]]);
    const again = await engine.query('SELECT count() FROM __s2', []).catch((x) => x);
    expect(again).toMatchObject({ status: 400, code: 'query_error' });
  });

  it('a failing stage is a 400 query_error; a slow stage is killed on timeout', async () => {
    const bad = await engine.query('SELECT * FROM __bad', [], { stages: [{ table: '__bad', sql: 'SELECT nope FROM events' }] }).catch((x) => x);
    expect(bad).toMatchObject({ status: 400, code: 'query_error' });
    const t0 = Date.now();
    const slow = await engine
      .query('SELECT * FROM __slow', [], { timeoutMs: 300, stages: [{ table: '__slow', sql: 'SELECT count() AS c FROM system.numbers WHERE number % 7 = 5' }] })
      .catch((x) => x);
    expect(slow).toMatchObject({ code: 'query_timeout' });
    expect(Date.now() - t0).toBeLessThan(3000);
    await expectGone('number % 7 = 5', 'stage still running after timeout');
  });

  it('an error after the result started streaming is a 400 query_error, not a malformed response', async () => {
    const e = await engine.query('SELECT throwIf(number = 3000000) AS x FROM system.numbers LIMIT 4000000', []).catch((x) => x);
    expect(e).toBeInstanceOf(UserError);
    expect(e.status).toBe(400);
    expect(e.code).toBe('query_error');
    expect(e.message).toMatch(/throwIf|Value passed to/i);
  });

  it('a server that stops answering within requestTimeoutMs is unavailable (503), and the query is killed', async () => {
    const slow = await ClickHouseEngine.open({ url: server.url, database: 'engine_test', requestTimeoutMs: 300 });
    try {
      const e = await slow.query('SELECT count() FROM system.numbers WHERE number % 7 = 4', []).catch((x) => x);
      expect(e).toBeInstanceOf(UserError);
      expect(e.status).toBe(503);
      await expectGone('number % 7 = 4', 'query still running after the request timeout');
    } finally {
      await slow.close();
    }
  });

  it('a kept-alive connection the server closed while idle is retried on a fresh one, not reported as an outage', async () => {
    // A loopback proxy that, like a server past its keep_alive_timeout, resets a connection whose next request
    // comes after 300 ms of silence (ClickHouse says `Keep-Alive: timeout=3`; a busy client can be late).
    const target = new URL(server.url);
    const sockets = new Set<net.Socket>();
    const proxy = net.createServer((client) => {
      const upstream = net.connect(Number(target.port), target.hostname);
      sockets.add(client).add(upstream);
      let last = Date.now();
      client.on('data', (d) => {
        if (Date.now() - last > 300) {
          client.resetAndDestroy();
          upstream.destroy();
          return;
        }
        last = Date.now();
        upstream.write(d);
      });
      upstream.on('data', (d) => {
        last = Date.now();
        client.write(d);
      });
      for (const [a, b] of [[client, upstream], [upstream, client]]) {
        a.on('error', () => b.destroy());
        a.on('close', () => b.destroy());
      }
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const proxied = await ClickHouseEngine.open({ url: `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`, database: 'engine_proxied' });
    try {
      // four sockets in the pool, all closed by the server when the next query comes: each is tried and dropped
      expect((await Promise.all([1, 2, 3, 4].map((i) => proxied.query(`SELECT ${i}`, [])))).map((r) => r.rows)).toEqual([[[1]], [[2]], [[3]], [[4]]]);
      await new Promise((r) => setTimeout(r, 500));
      expect((await proxied.query('SELECT 5', [])).rows).toEqual([[5]]);
      // the ingest path's requests too (@clickhouse/client keeps its sockets 2.5 s): inserts, internal reads
      await proxied.writeBatch({ events: [], checkpoint: 21 });
      await new Promise((r) => setTimeout(r, 500));
      expect(await proxied.getCheckpoint()).toBe(21);
      await new Promise((r) => setTimeout(r, 500));
      await proxied.writeBatch({ events: [], checkpoint: 22 });
      expect(await proxied.getCheckpoint()).toBe(22);
      // a batch's inserts go out together, on as many sockets; after a pause each of them is closed
      const persons = [P(60), P(61)].map((id) => ({ project_id: 9, id, created_at: 0, properties: {}, is_identified: false, version: 0 }));
      const ids = ['d60', 'd61'].map((d, i) => ({ project_id: 9, distinct_id: d, person_id: P(60 + i), version: 0 }));
      await proxied.writeBatch({ events: [ev(60, P(60), undefined, 9)], newPersons: persons, newDistinctIds: ids, checkpoint: 23 });
      await new Promise((r) => setTimeout(r, 500));
      await proxied.writeBatch({ events: [ev(61, P(61), undefined, 9)], newPersons: persons, newDistinctIds: ids, checkpoint: 24 });
      expect(await proxied.getCheckpoint()).toBe(24);
    } finally {
      await proxied.close();
      for (const sk of sockets) sk.destroy();
      await new Promise((r) => proxy.close(r));
    }
  });

  it('cancels on abort', async () => {
    const ctl = new AbortController();
    const p = engine.query('SELECT count() FROM system.numbers WHERE number % 7 = 3', [], { signal: ctl.signal });
    setTimeout(() => ctl.abort(), 200);
    await expect(p).rejects.toMatchObject({ code: 'query_timeout' });
  });

  it('writes batches: events, persons upserts and deletes, distinct ids, overrides, checkpoint', async () => {
    const batch: WriteBatch = {
      events: [ev(1, P(1), Date.UTC(2024, 0, 1, 0, 0, 0) + 123), ev(2, P(2)), ev(3, null)],
      newPersons: [
        { project_id: 1, id: P(1), created_at: Date.UTC(2024, 0, 1), properties: { plan: 'free' }, is_identified: false, version: 0 },
        { project_id: 1, id: P(2), created_at: Date.UTC(2024, 0, 1), properties: { plan: 'pro' }, is_identified: true, version: 0 },
      ],
      newDistinctIds: [
        { project_id: 1, distinct_id: 'd1', person_id: P(1), version: 0 },
        { project_id: 1, distinct_id: 'd2', person_id: P(2), version: 0 },
      ],
      checkpoint: 10,
    };
    await engine.writeBatch(batch);
    expect(await engine.getCheckpoint()).toBe(10);
    expect(engine.dataVersion(1)).toBeGreaterThan(0);
    // Upsert person 1, merge person 2 into person 1.
    await engine.writeBatch({
      events: [],
      persons: [{ project_id: 1, id: P(1), created_at: Date.UTC(2024, 0, 1), properties: { plan: 'enterprise' }, is_identified: true, version: 1 }],
      deletedPersons: [{ project_id: 1, id: P(2) }],
      distinctIds: [{ project_id: 1, distinct_id: 'd2', person_id: P(1), version: 1 }],
      overrides: [{ project_id: 1, old_person_id: P(2), override_person_id: P(1), version: 1 }],
      checkpoint: 11,
    });
    expect(await engine.getCheckpoint()).toBe(11);
    const persons = await engine.query(
      'SELECT toString(id), properties, is_identified, version FROM persons FINAL WHERE project_id = 1 AND is_deleted = 0 ORDER BY id',
      [],
    );
    expect(persons.rows).toEqual([[P(1), '{"plan":"enterprise"}', 1, 1]]);
    const dids = await engine.query('SELECT distinct_id, toString(person_id) FROM person_distinct_ids FINAL WHERE project_id = 1 AND is_deleted = 0 ORDER BY distinct_id', []);
    expect(dids.rows).toEqual([
      ['d1', P(1)],
      ['d2', P(1)],
    ]);
    const evs = await engine.query('SELECT toString(uuid), toUInt32(timestamp), timestamp_ms FROM events WHERE project_id = 1 ORDER BY uuid', []);
    expect(evs.rows[0]).toEqual([U(1), Date.UTC(2024, 0, 1) / 1000, 123]);
  });

  it('knows the projects with person overrides from the first merge on, and after reopening; until then no overrides join', async () => {
    await engine.writeBatch({ events: [ev(40, P(40), undefined, 7), ev(41, P(41), undefined, 7)] });
    const persons = async (e: ClickHouseEngine) => {
      const c = await compileProductQL({ query: 'SELECT count(DISTINCT person_id) FROM events', projectId: 7, timezone: 'UTC', dialect: 'clickhouse', personOverrides: e.hasPersonOverrides(7) });
      return { join: c.sql.includes('person_overrides'), n: Number((await e.query(c.sql, c.params)).rows[0][0]) };
    };
    expect(engine.hasPersonOverrides(7)).toBe(false);
    expect(await persons(engine)).toEqual({ join: false, n: 2 });
    await engine.writeBatch({ events: [], overrides: [{ project_id: 7, old_person_id: P(40), override_person_id: P(41), version: 1 }] });
    expect(engine.hasPersonOverrides(7)).toBe(true);
    expect(await persons(engine)).toEqual({ join: true, n: 1 });
    const again = await ClickHouseEngine.open({ url: server.url, database: 'engine_test' });
    try {
      expect([again.hasPersonOverrides(7), again.hasPersonOverrides(8)]).toEqual([true, false]);
    } finally {
      await again.close();
    }
  });

  it('a retried batch collapses duplicate events when parts merge', async () => {
    const b: WriteBatch = { events: [ev(50, null, Date.UTC(2024, 1, 1), 5)], checkpoint: 12 };
    await engine.writeBatch(b);
    await engine.writeBatch(b);
    await engine.exec('OPTIMIZE TABLE events FINAL');
    expect((await engine.query('SELECT count() FROM events WHERE project_id = 5', [])).rows).toEqual([[1]]);
  });

  it('deletes a person with its distinct ids, overrides and (optionally) events', async () => {
    await engine.writeBatch({
      events: [ev(20, P(20), undefined, 3), ev(21, P(21), undefined, 3), ev(22, P(22), undefined, 3)],
      newPersons: [P(20), P(22)].map((id) => ({ project_id: 3, id, created_at: 0, properties: {}, is_identified: false, version: 0 })),
      newDistinctIds: [{ project_id: 3, distinct_id: 'x20', person_id: P(20), version: 0 }],
      overrides: [{ project_id: 3, old_person_id: P(21), override_person_id: P(20), version: 0 }],
    });
    await engine.deletePerson(3, P(20), true);
    const left = await engine.query('SELECT toString(person_id) FROM events WHERE project_id = 3 ORDER BY uuid', []);
    expect(left.rows).toEqual([[P(22)]]);
    const live = async (t: string) => (await engine.query(`SELECT count() FROM ${t} FINAL WHERE project_id = 3 AND is_deleted = 0`, [])).rows[0][0];
    expect(await live('persons')).toBe(1);
    expect(await live('person_distinct_ids')).toBe(0);
    expect(await live('person_overrides')).toBe(0);
  });

  it('deletes a project', async () => {
    await engine.writeBatch({ events: [ev(30, null, undefined, 4)], newPersons: [{ project_id: 4, id: P(30), created_at: 0, properties: {}, is_identified: false, version: 0 }] });
    const before = engine.dataVersion(4);
    await engine.deleteProject(4);
    expect(engine.dataVersion(4)).toBeGreaterThan(before);
    expect((await engine.query('SELECT count() FROM events WHERE project_id = 4', [])).rows).toEqual([[0]]);
    expect((await engine.query('SELECT count() FROM persons WHERE project_id = 4', [])).rows).toEqual([[0]]);
  });
});

describeClickHouse('ClickHouse engine while the server is down', () => {
  it('reports I/O errors (retried by the Ingestor, never set aside as bad data) and recovers', async () => {
    const server = await startSingle();
    try {
      const engine = await ClickHouseEngine.open({ url: server.url, database: 'down_test', requestTimeoutMs: 3000 });
      const { execFile } = await import('node:child_process');
      const dir = server.dir;
      // Stop the server (by PID), keep its data dir, then start it again on the same port.
      await new Promise<void>((res, rej) => execFile('bash', ['.ci/clickhouse', 'stop', String(server.pids[0])], (e) => (e ? rej(e) : res())));
      const err = await engine.writeBatch({ events: [ev(60, null)], checkpoint: 1 }).catch((e) => e);
      expect(String(err.message)).toMatch(/I\/O/);
      const port = new URL(server.url).port;
      const pid = await new Promise<string>((res, rej) =>
        execFile('bash', ['.ci/clickhouse', 'start-single', port, dir], (e, out) => (e ? rej(e) : res(out.trim()))),
      );
      server.pids[0] = Number(pid);
      await engine.writeBatch({ events: [ev(60, null)], checkpoint: 1 });
      expect(await engine.getCheckpoint()).toBe(1);
      await engine.close();
    } finally {
      await server.stop();
    }
  });
});
