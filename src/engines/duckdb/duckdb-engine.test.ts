import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UserError } from '../../errors';
import { compileProductQL } from '../../productql';
import { DuckDbEngine, sanitizeEngineMessage } from './duckdb-engine';

let dir: string;
let engine: DuckDbEngine;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-duck-'));
  engine = await DuckDbEngine.open(path.join(dir, 'events.duckdb'));
});
afterAll(async () => {
  await engine.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const P = '11111111-1111-4111-8111-111111111111';
const Q = '22222222-2222-4222-8222-222222222222';

describe('DuckDbEngine', () => {
  it('returns JSON-friendly values and ClickHouse-style type names', async () => {
    const r = await engine.query(
      `SELECT $1::INTEGER + 1 AS i, 9007199254740993::BIGINT AS big, 5::BIGINT AS small, TIMESTAMP '2024-01-02 03:04:05.678' AS ts,
              DATE '2024-01-02' AS d, '{"a":[1,2]}'::JSON AS j, 'x' AS s, true AS b, NULL AS n, [1,2] AS l, 1.5::DECIMAL(5,2) AS dec,
              ?::VARCHAR AS q`,
      [41, 'q'],
    );
    expect(r.columns).toEqual(['i', 'big', 'small', 'ts', 'd', 'j', 's', 'b', 'n', 'l', 'dec', 'q']);
    expect(r.types).toEqual(['Int32', 'Int64', 'Int64', "DateTime64(6, 'UTC')", 'Date', 'String', 'String', 'Bool', 'Int32', 'Array', 'Float64', 'String']);
    expect(r.rows).toEqual([[42, '9007199254740993', 5, '2024-01-02T03:04:05.678Z', '2024-01-02', { a: [1, 2] }, 'x', true, null, [1, 2], 1.5, 'q']]);
  });

  it('binds Date parameters as timestamps', async () => {
    const r = await engine.query('SELECT $1 > TIMESTAMP \'2020-01-01\'', [new Date('2024-01-01T00:00:00Z')]);
    expect(r.rows[0][0]).toBe(true);
  });

  it('engine errors become query_error without SQL text', async () => {
    const e = await engine.query('SELECT secret_column FROM events', []).catch((x) => x);
    expect(e).toBeInstanceOf(UserError);
    expect(e).toMatchObject({ status: 400, code: 'query_error' });
    expect(e.message).not.toMatch(/LINE 1|SELECT/);
  });

  it('kept prepared statements: new values each run, a changed table and a failed run are seen', async () => {
    await engine.exec('CREATE TABLE prep_t (project_id INTEGER, v VARCHAR)');
    await engine.exec("INSERT INTO prep_t VALUES (1, 'a'), (2, 'b')");
    const sql = 'SELECT * FROM prep_t WHERE project_id = $1 ORDER BY ALL';
    // more runs than read connections, so every connection runs its kept statement again
    for (let i = 0; i < 8; i++) expect((await engine.query(sql, [1 + (i % 2)])).rows).toEqual([[1 + (i % 2), i % 2 ? 'b' : 'a']]);
    await engine.exec('ALTER TABLE prep_t ADD COLUMN w INTEGER DEFAULT 7');
    await engine.exec("INSERT INTO prep_t VALUES (1, 'c', 8)");
    for (let i = 0; i < 4; i++) {
      const r = await engine.query(sql, [1]);
      expect([r.columns, r.rows]).toEqual([['project_id', 'v', 'w'], [[1, 'a', 7], [1, 'c', 8]]]);
    }
    // a run that fails (a value of the wrong type) leaves the statement usable with good values
    const bad = 'SELECT 100 / $1::INTEGER FROM prep_t WHERE project_id = 2';
    expect((await engine.query(bad, [4])).rows).toEqual([[25]]);
    await expect(engine.query(bad, ['x'])).rejects.toMatchObject({ code: 'query_error' });
    expect((await engine.query(bad, [5])).rows).toEqual([[20]]);
    await engine.exec('DROP TABLE prep_t');
    await expect(engine.query(sql, [1])).rejects.toMatchObject({ code: 'query_error' });
  });

  it('sanitizeEngineMessage drops echoed SQL', () => {
    expect(sanitizeEngineMessage('Parser Error: syntax error at or near "x"\n\nLINE 1: SELECT x x x\n ^')).toBe(
      'Parser Error: syntax error at or near "x"',
    );
  });

  it.each([
    ['timeout', { timeoutMs: 150 }],
    ['abort signal', { signal: AbortSignal.timeout(150) }],
  ])('cancels the engine work on %s with query_timeout 504', async (_n, opts) => {
    const t = Date.now();
    const e = await engine.query('SELECT count(*) FROM range(2000000000) a, range(1000) b', [], opts).catch((x) => x);
    expect(e).toMatchObject({ status: 504, type: 'server_error', code: 'query_timeout' });
    expect(Date.now() - t).toBeLessThan(5000);
    // The connection is usable again.
    expect((await engine.query('SELECT 1', [])).rows).toEqual([[1]]);
  });

  it('reads are not blocked by a long read on another connection', async () => {
    const slow = engine.query('SELECT count(*) FROM range(2000000000) a, range(1000) b', [], { timeoutMs: 5000 }).catch((x) => x);
    const t = Date.now();
    await engine.query('SELECT 1', []);
    expect(Date.now() - t).toBeLessThan(3000); // blocked would mean ≥ 5 s
    await slow;
  });

  it('writeBatch upserts persons/distinct ids/overrides and appends events in one transaction', async () => {
    const base = { project_id: 9, event: 'e', distinct_id: 'd', session_id: null, elements_chain: null, created_at: 0, timestamp: 1000 };
    await engine.writeBatch({
      events: [{ ...base, uuid: '0190a0a0-0000-7000-8000-000000000001', person_id: P, properties: '{"a":1}' }],
      persons: [{ project_id: 9, id: P, created_at: 1000, properties: { a: 1 }, is_identified: false, version: 0 }],
      distinctIds: [{ project_id: 9, distinct_id: 'd', person_id: P, version: 0 }],
      checkpoint: 5,
    });
    await engine.writeBatch({
      events: [],
      persons: [{ project_id: 9, id: Q, created_at: 500, properties: { b: 2 }, is_identified: true, version: 1 }],
      deletedPersons: [{ project_id: 9, id: P }],
      distinctIds: [{ project_id: 9, distinct_id: 'd', person_id: Q, version: 1 }],
      overrides: [{ project_id: 9, old_person_id: P, override_person_id: Q, version: 1 }],
    });
    const persons = await engine.query('SELECT id::VARCHAR, properties, is_identified FROM persons WHERE project_id = 9', []);
    expect(persons.rows).toEqual([[Q, { b: 2 }, true]]);
    const pdi = await engine.query('SELECT distinct_id, person_id::VARCHAR FROM person_distinct_ids WHERE project_id = 9', []);
    expect(pdi.rows).toEqual([['d', Q]]);
    const ev = await engine.query(
      `SELECT coalesce(o.override_person_id, e.person_id)::VARCHAR, e.timestamp FROM events e
       LEFT JOIN person_overrides o ON o.project_id = e.project_id AND o.old_person_id = e.person_id WHERE e.project_id = 9`,
      [],
    );
    expect(ev.rows).toEqual([[Q, '1970-01-01T00:00:01.000Z']]);
    expect(await engine.getCheckpoint()).toBe(5);
  });

  it('a failing batch leaves nothing behind', async () => {
    const bad = engine.writeBatch({
      events: [
        { project_id: 8, uuid: 'not-a-uuid', event: 'e', distinct_id: 'd', person_id: null, timestamp: 0, properties: '{}', session_id: null, elements_chain: null, created_at: 0 },
      ],
      persons: [{ project_id: 8, id: P, created_at: 0, properties: {}, is_identified: false, version: 0 }],
      checkpoint: 99,
    });
    await expect(bad).rejects.toThrow();
    expect((await engine.query('SELECT count(*) FROM persons WHERE project_id = 8', [])).rows[0][0]).toBe(0);
    expect(await engine.getCheckpoint()).toBe(5);
  });

  it('deletePerson and deleteProject', async () => {
    await engine.deletePerson(9, Q, true);
    expect((await engine.query('SELECT count(*) FROM events WHERE project_id = 9', [])).rows[0][0]).toBe(0);
    expect((await engine.query('SELECT count(*) FROM person_overrides WHERE project_id = 9', [])).rows[0][0]).toBe(0);
    await engine.deleteProject(9);
    expect((await engine.query('SELECT count(*) FROM persons WHERE project_id = 9', [])).rows[0][0]).toBe(0);
  });
});

describe('projects with person overrides', () => {
  it('are known from the first merge on (and after reopening); queries read the stored person_id until then', async () => {
    const file = path.join(dir, 'overrides.duckdb');
    let e = await DuckDbEngine.open(file);
    const persons = async (eng: DuckDbEngine) => {
      const c = await compileProductQL({
        query: 'SELECT count(DISTINCT person_id) FROM events',
        projectId: 21,
        timezone: 'UTC',
        dialect: 'duckdb',
        personOverrides: eng.hasPersonOverrides(21),
      });
      return { sql: c.sql, n: Number((await eng.query(c.sql, c.params)).rows[0][0]) };
    };
    const ev = (uuid: string, person: string, distinct: string) => ({
      project_id: 21, uuid, event: 'e', distinct_id: distinct, person_id: person, timestamp: 1000, properties: '{}', session_id: null, elements_chain: null, created_at: 0,
    });
    try {
      await e.writeBatch({
        events: [ev('0190a0a0-0000-7000-8000-000000000011', P, 'a'), ev('0190a0a0-0000-7000-8000-000000000012', Q, 'b')],
        overrides: [{ project_id: 22, old_person_id: P, override_person_id: Q, version: 1 }], // another project's merge
      });
      expect([e.hasPersonOverrides(21), e.hasPersonOverrides(22)]).toEqual([false, true]);
      const before = await persons(e);
      expect(before.n).toBe(2);
      expect(before.sql).not.toContain('person_overrides');
      await e.writeBatch({ events: [], overrides: [{ project_id: 21, old_person_id: P, override_person_id: Q, version: 1 }] });
      expect(e.hasPersonOverrides(21)).toBe(true);
      expect(await persons(e)).toEqual({ sql: expect.stringContaining('person_overrides'), n: 1 });
      await e.close();
      e = await DuckDbEngine.open(file);
      expect([e.hasPersonOverrides(21), e.hasPersonOverrides(22), e.hasPersonOverrides(23)]).toEqual([true, true, false]);
      expect((await persons(e)).n).toBe(1);
      // events without a person: marked on write, known again after reopening
      expect(e.hasPersonlessEvents(21)).toBe(false);
      await e.writeBatch({ events: [{ ...ev('0190a0a0-0000-7000-8000-000000000013', P, 'c'), person_id: null }] });
      expect(e.hasPersonlessEvents(21)).toBe(true);
      await e.close();
      e = await DuckDbEngine.open(file);
      expect([e.hasPersonlessEvents(21), e.hasPersonlessEvents(22)]).toEqual([true, false]);
    } finally {
      await e.close();
    }
  });
});

describe('chunked event append', () => {
  it.each([true, false])('chunked=%s stores exactly what was given (incl. edge values, > 1 chunk)', async (chunked) => {
    const project = chunked ? 31 : 32;
    engine.chunkedAppend = chunked;
    try {
      const edge = [
        { uuid: '00000000-0000-0000-0000-000000000000', person_id: 'ffffffff-ffff-ffff-ffff-ffffffffffff', timestamp: -62135596800000, session_id: 's', elements_chain: 'a:b' },
        { uuid: '80000000-0000-4000-8000-000000000001', person_id: null, timestamp: 253402300799999, session_id: null, elements_chain: null },
        { uuid: '7fffffff-ffff-4fff-bfff-ffffffffffff', person_id: '12345678-9abc-4def-8123-456789abcdef', timestamp: -1, session_id: null, elements_chain: null },
      ];
      const many = Array.from({ length: 5000 }, (_, i) => ({
        uuid: `0190a0a0-0000-7000-8000-${String(i).padStart(12, '0')}`,
        person_id: i % 3 ? P : null,
        timestamp: 1_700_000_000_123 + i,
        session_id: i % 2 ? `sess-${i}` : null,
        elements_chain: null,
      }));
      const rows = [...edge, ...many].map((e, i) => ({
        project_id: project,
        event: `ev-${i % 7}`,
        distinct_id: `d-${i}`,
        properties: JSON.stringify({ i, s: 'ü"\\' }),
        created_at: 1_600_000_000_000 + i,
        ...e,
      }));
      await engine.writeBatch({ events: rows });
      const got = await engine.query(
        `SELECT uuid::VARCHAR, person_id::VARCHAR, epoch_ms(timestamp), "$session_id", elements_chain, event, distinct_id, properties, epoch_ms(created_at)
         FROM events WHERE project_id = $1 ORDER BY (properties->>'$.i')::INT`,
        [project],
      );
      expect(got.rows).toEqual(
        rows.map((r, i) => [r.uuid, r.person_id, r.timestamp, r.session_id, r.elements_chain, r.event, r.distinct_id, { i, s: 'ü"\\' }, r.created_at]),
      );
    } finally {
      engine.chunkedAppend = true;
    }
  });

  it('a non-canonical uuid fails the batch (nothing stored)', async () => {
    const bad = engine.writeBatch({
      events: [{ project_id: 33, uuid: 'ZZZZZZZZ-0000-4000-8000-000000000000', event: 'e', distinct_id: 'd', person_id: null, timestamp: 0, properties: '{}', session_id: null, elements_chain: null, created_at: 0 }],
    });
    await expect(bad).rejects.toThrow(/UUID/);
    expect((await engine.query('SELECT count(*) FROM events WHERE project_id = 33', [])).rows).toEqual([[0]]);
  });
});
