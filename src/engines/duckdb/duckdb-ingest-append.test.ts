/**
 * The ingest writers of DuckDbEngine: persons and distinct ids are appended a data chunk (2,048 rows) at a time,
 * staged SQL runs inside the batch's transaction, and out-of-range timestamps are refused instead of wrapping.
 */
import { randomUUID } from 'node:crypto';
import { DuckDbEngine, type DistinctIdUpsert, type EventInsertBytes, type PersonUpsert } from './duckdb-engine';

let engine: DuckDbEngine;
beforeAll(async () => {
  engine = await DuckDbEngine.open(':memory:');
});
afterAll(async () => {
  await engine.close();
});

it('appends thousands of persons and distinct ids across chunk boundaries, values intact', async () => {
  const n = 5000;
  const persons: PersonUpsert[] = Array.from({ length: n }, (_, i) => ({
    project_id: 7,
    id: randomUUID(),
    created_at: Date.UTC(2024, 0, 1) + i * 1000,
    properties: { i, name: `p${i}`, nested: { ok: i % 2 === 0 } },
    is_identified: i % 3 === 0,
    version: i % 5,
  }));
  const dids: DistinctIdUpsert[] = persons.map((p, i) => ({ project_id: 7, distinct_id: `d-${i}-é`, person_id: p.id, version: i % 4 }));
  // An upper-case person id (allowed by the import API) is stored in DuckDB's canonical form.
  persons[0] = { ...persons[0], id: persons[0].id.toUpperCase() };
  dids[0] = { ...dids[0], person_id: dids[0].person_id.toUpperCase() };
  await engine.writeBatch({ events: [], newPersons: persons, newDistinctIds: dids });
  const r = await engine.query(
    `SELECT count(*), count(DISTINCT id), sum(version), sum(is_identified::INT), min(created_at), max(created_at) FROM persons WHERE project_id = 7`,
    [],
  );
  expect(r.rows).toEqual([[n, n, persons.reduce((s, p) => s + p.version, 0), Math.ceil(n / 3), '2024-01-01T00:00:00.000Z', new Date(Date.UTC(2024, 0, 1) + (n - 1) * 1000).toISOString()]]);
  const p4321 = await engine.query(
    `SELECT p.properties, d.distinct_id, d.version FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id WHERE p.id = $1::UUID`,
    [persons[4321].id],
  );
  expect(p4321.rows).toEqual([[{ i: 4321, name: 'p4321', nested: { ok: false } }, 'd-4321-é', 4321 % 4]]);
  const first = await engine.query(`SELECT d.distinct_id FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id WHERE p.id = $1::UUID`, [
    persons[0].id.toLowerCase(),
  ]);
  expect(first.rows).toEqual([['d-0-é']]);
});

it('runs staged SQL inside the batch transaction and rolls both back together', async () => {
  const before = engine.dataVersion(9);
  await engine.writeBatch({ events: [] }, { projectId: 9, run: async (w) => void (await w.run(`INSERT INTO ingest_checkpoint VALUES (9, 99)`)) });
  expect((await engine.query('SELECT count(*) FROM ingest_checkpoint WHERE id = 9', [])).rows).toEqual([[1]]);
  expect(engine.dataVersion(9)).toBe(before + 1);
  const err = await engine
    .writeBatch(
      { events: [], newPersons: [{ project_id: 9, id: randomUUID(), created_at: 0, properties: {}, is_identified: false, version: 0 }] },
      {
        projectId: 9,
        run: async (w) => {
          await w.run(`INSERT INTO ingest_checkpoint VALUES (9, 100)`);
          throw new Error('staged step failed');
        },
      },
    )
    .catch((e: Error) => e);
  expect(err).toBeInstanceOf(Error);
  expect((await engine.query('SELECT count(*) FROM ingest_checkpoint WHERE id = 9', [])).rows).toEqual([[1]]);
  expect((await engine.query('SELECT count(*) FROM persons WHERE project_id = 9', [])).rows).toEqual([[0]]);
});

it('refuses an event timestamp beyond DuckDB range instead of wrapping it', async () => {
  const ev = {
    project_id: 11,
    uuid: randomUUID(),
    event: 'far',
    distinct_id: 'x',
    person_id: null,
    timestamp: 1e16,
    properties: '{}',
    session_id: null,
    elements_chain: null,
    created_at: Date.now(),
  };
  await expect(engine.writeBatch({ events: [ev] })).rejects.toThrow(/out of range/);
  expect((await engine.query('SELECT count(*) FROM events WHERE project_id = 11', [])).rows).toEqual([[0]]);
});

it.each([
  ['chunked', true],
  ['by value', false],
])('events with properties given as UTF-8 bytes land like their text, nulls and non-ASCII included (%s)', async (_, chunked) => {
  const e = await DuckDbEngine.open(':memory:');
  e.chunkedAppend = chunked;
  try {
    const line = Buffer.from('xx{"city":"München 😀","q":"a\\"b"}yy{"n":1}zz', 'utf8');
    const first = line.indexOf('{');
    const end1 = line.indexOf('yy');
    const events: EventInsertBytes[] = Array.from({ length: 3000 }, (_, i) => ({
      project_id: 3,
      uuid: randomUUID(),
      event: i % 2 ? 'ä-event' : 'e',
      distinct_id: `d${i}`,
      person_id: i % 3 ? randomUUID() : null,
      timestamp: Date.UTC(2025, 0, 1) + i,
      properties: i % 2 ? '{"as":"text"}' : '',
      propertiesBytes: i % 2 ? undefined : i % 4 ? line.subarray(end1 + 2, line.indexOf('zz')) : line.subarray(first, end1),
      session_id: i % 5 ? `s${i % 5}` : null,
      elements_chain: i % 7 ? null : 'a:b',
      created_at: Date.UTC(2025, 0, 2),
    }));
    await e.writeBatch({ events });
    const r = await e.query(
      `SELECT properties, count(*), count(person_id), count("$session_id"), count(elements_chain) FROM events GROUP BY ALL ORDER BY 2 DESC, 1`,
      [],
    );
    expect(r.rows).toEqual([
      [{ as: 'text' }, 1500, 1000, 1200, 214],
      [{ city: 'München 😀', q: 'a"b' }, 750, 500, 600, 108],
      [{ n: 1 }, 750, 500, 600, 107],
    ]);
  } finally {
    await e.close();
  }
});
