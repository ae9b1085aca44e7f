import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { DuckDbEngine } from '../engines/duckdb/duckdb-engine';
import type { EventEngine, WriteBatch } from '../engines/engine';
import { normalizeEvent, type ParsedEvent } from './capture-payload';
import { Ingestor, slimForApply } from './ingestor';
import { Wal, encodeEventsAhead } from './wal';
import { expandDerived } from './person-initial-properties';

let dir: string;
let engine: DuckDbEngine;
let ing: Ingestor;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-ingestor-'));
  engine = await DuckDbEngine.open(path.join(dir, 'events.duckdb'));
  ing = await Ingestor.open({ dataDir: dir, engine, flushIntervalMs: 100 });
});
afterEach(async () => {
  await ing.close();
  await engine.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const ev = (raw: Record<string, unknown>) => normalizeEvent({ event: 'e', ...raw }, { now: Date.now() });
const count = async (sql: string, params: unknown[] = []) => (await engine.query(sql, params)).rows[0][0];

it('an acknowledged event is queryable within 1 s without an explicit flush', async () => {
  const uuid = randomUUID();
  await ing.capture(1, [ev({ distinct_id: 'u', uuid })]);
  const t = Date.now();
  while ((await count('SELECT count(*) FROM events WHERE uuid = $1::UUID', [uuid])) === 0) {
    expect(Date.now() - t).toBeLessThan(1000);
    await new Promise((r) => setTimeout(r, 20));
  }
});

it('personless events store no person id and create no person', async () => {
  await ing.capture(1, [ev({ distinct_id: 'ghost', properties: { $process_person_profile: false } })]);
  await ing.flush();
  expect(await count('SELECT count(*) FROM events WHERE person_id IS NULL')).toBe(1);
  expect(await count('SELECT count(*) FROM persons')).toBe(0);
});

it('identity survives a restart (state reloaded from DuckDB)', async () => {
  await ing.capture(1, [ev({ distinct_id: 'anon' }), ev({ distinct_id: 'user' })]);
  await ing.flush();
  await ing.close();
  ing = await Ingestor.open({ dataDir: dir, engine });
  await ing.capture(1, [ev({ event: '$identify', distinct_id: 'user', properties: { $anon_distinct_id: 'anon', $set: { a: 1 } } })]);
  await ing.capture(1, [ev({ distinct_id: 'anon' })]);
  await ing.flush();
  expect(await count('SELECT count(*) FROM persons')).toBe(1);
  expect(await count('SELECT count(*) FROM person_overrides')).toBe(1);
  expect(
    await count(`SELECT count(DISTINCT coalesce(o.override_person_id, e.person_id)) FROM events e
                 LEFT JOIN person_overrides o ON o.project_id = e.project_id AND o.old_person_id = e.person_id`),
  ).toBe(1);
});

it('import: persons first, per-row errors by index, valid rows land', async () => {
  const r = await ing.import(1, {
    persons: [
      { distinct_ids: ['p1'], properties: { plan: 'pro' }, created_at: '2020-01-01T00:00:00Z' },
      { distinct_ids: [] },
      { distinct_ids: ['p2'], created_at: 'garbage' },
      { distinct_ids: ['p1'] }, // p1 already belongs to the first person
    ],
    events: [
      { event: 'x', distinct_id: 'p1', timestamp: '2021-01-01T00:00:00Z' },
      { event: 'x', distinct_id: 'p1', properties: [] },
      { distinct_id: 'p1' },
      { event: 'x', distinct_id: 'new-user', timestamp: '2021-01-02T00:00:00Z' },
    ],
  });
  expect(r.imported).toEqual({ persons: 1, events: 2 });
  expect(r.errors.map((e) => [e.kind, e.index])).toEqual([
    ['person', 1],
    ['person', 2],
    ['person', 3],
    ['event', 1],
    ['event', 2],
  ]);
  const p = await engine.query(
    `SELECT p.created_at, p.properties FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id WHERE d.distinct_id = 'p1'`,
    [],
  );
  expect(p.rows).toEqual([['2020-01-01T00:00:00.000Z', { plan: 'pro' }]]);
  expect(await count(`SELECT count(*) FROM events e JOIN person_distinct_ids d ON d.person_id = e.person_id WHERE d.distinct_id = 'p1'`)).toBe(1);
});

it("import: a person's id may be given as `id` or as PostHog's `uuid`", async () => {
  const a = '018f0000-0000-7000-8000-00000000000a';
  const b = '018F0000-0000-7000-8000-00000000000B';
  const r = await ing.import(1, {
    persons: [
      { distinct_ids: ['by-id'], id: a },
      { distinct_ids: ['by-uuid'], uuid: b },
      { distinct_ids: ['bad'], uuid: 'nope' },
      { distinct_ids: ['both'], id: a.replace('a', 'c'), uuid: b },
    ],
  });
  expect(r.imported.persons).toBe(2);
  expect(r.errors).toEqual([
    { index: 2, kind: 'person', message: 'uuid must be a UUID' },
    { index: 3, kind: 'person', message: 'id and uuid differ' },
  ]);
  const ids = await engine.query(`SELECT d.distinct_id, p.id::VARCHAR FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id ORDER BY 1`, []);
  expect(ids.rows).toEqual([
    ['by-id', a],
    ['by-uuid', b.toLowerCase()],
  ]);
});

it('deletePerson and deleteProject also reset the identity cache', async () => {
  await ing.capture(1, [ev({ distinct_id: 'a' }), ev({ distinct_id: 'b' })]);
  await ing.capture(2, [ev({ distinct_id: 'a' })]);
  await ing.flush();
  const pid = (await engine.query(`SELECT person_id::VARCHAR FROM events WHERE project_id = 1 AND distinct_id = 'a'`, [])).rows[0][0] as string;
  await ing.deletePerson(1, pid, true);
  expect(await count(`SELECT count(*) FROM events WHERE project_id = 1`)).toBe(1);
  await ing.capture(1, [ev({ distinct_id: 'a' })]);
  await ing.flush();
  const again = (await engine.query(`SELECT person_id::VARCHAR FROM events WHERE project_id = 1 AND distinct_id = 'a'`, [])).rows[0][0];
  expect(again).not.toBe(pid);
  await ing.deleteProject(1);
  expect(await count(`SELECT count(*) FROM events WHERE project_id = 1`)).toBe(0);
  expect(await count(`SELECT count(*) FROM events WHERE project_id = 2`)).toBe(1);
});

it('captured properties reach DuckDB exactly (kept as log bytes while queued), escapes and non-ASCII included', async () => {
  const props = { q: 'say "hi" \\ \n\t', u: 'München ユーザー 😀', lone: 'x\ud800y', n: [1, 2.5, null, true], o: { deep: { er: [] } } };
  const e = ev({ distinct_id: 'ü', event: 'Über "quoted"', properties: props });
  const expected = JSON.parse(e.propertiesJson);
  await ing.capture(1, [e, ev({ distinct_id: 'u2', properties: { $session_id: 's', $elements_chain: 'a:b' } })]);
  await ing.flush();
  const r = await engine.query(`SELECT event, distinct_id, properties FROM events WHERE distinct_id = 'ü'`, []);
  expect(r.rows).toEqual([['Über "quoted"', 'ü', expected]]);
  expect(expected.lone).toBe('x\ufffdy');
  const s = await engine.query(`SELECT "$session_id", elements_chain, properties FROM events WHERE distinct_id = 'u2'`, []);
  // PostHog's ingestion deletes $elements_chain (and $elements) from the properties (plugin-server getElementsChain)
  expect(s.rows).toEqual([['s', 'a:b', { $session_id: 's' }]]);
});

/** An engine that has stored nothing and hands every batch the Ingestor writes to `onBatch` (what it receives). */
function recordingEngine(onBatch: (b: WriteBatch) => void): EventEngine {
  return {
    getCheckpoint: async () => 0,
    recentEventUuids: async () => [],
    loadIdentity: async () => ({ persons: [], distinctIds: [], overrides: [] }),
    loadGroups: async () => ({ types: [], groups: [] }),
    writeBatch: async (b: WriteBatch) => void onBatch(b),
  } as unknown as EventEngine;
}

it('an engine other than DuckDB receives the properties as text (the log bytes are decoded for it)', async () => {
  const batches: WriteBatch[] = [];
  const fake = recordingEngine((b) => batches.push(b));
  const other = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-ingestor-other-'));
  const ing2 = await Ingestor.open({ dataDir: other, engine: fake });
  try {
    const e = ev({ distinct_id: 'u', properties: { city: 'München 😀', q: 'a"b' } });
    const text = e.propertiesJson;
    await ing2.capture(1, [e]);
    await ing2.flush();
    const inserted = batches.flatMap((b) => b.events);
    expect(inserted.map((x) => x.properties)).toEqual([text]);
    expect(inserted[0]).not.toHaveProperty('propertiesBytes', expect.anything());
  } finally {
    await ing2.close();
    fs.rmSync(other, { recursive: true, force: true });
  }
});

it('the same event object captured twice: the second capture is refused, the log stays replayable', async () => {
  const e = ev({ distinct_id: 'twice', uuid: randomUUID() });
  await ing.capture(1, [e]);
  await expect(ing.capture(1, [e])).rejects.toThrow(/can be logged once/);
  await ing.capture(1, [ev({ distinct_id: 'after' })]);
  await ing.close();
  // Every line of the log parses (a bad line would end replay there), and the refused record took no number.
  const w = await Wal.open(path.join(dir, 'ingest-log'));
  const seqs: number[] = [];
  const r = await w.readAfter(0, (rec) => seqs.push(rec.seq));
  await w.close();
  expect(r.tornBytes).toBe(0);
  expect(seqs).toEqual([1, 2]);
  ing = await Ingestor.open({ dataDir: dir, engine });
  expect(await count('SELECT count(*) FROM events')).toBe(2);
});

it('slimForApply keeps the properties text, the extracted columns and only the identity keys as objects', () => {
  const e = ev({ distinct_id: 'u', properties: { $session_id: 's1', $elements_chain: 'a:b', $browser: 'x', $set: { a: 1 }, alias: 'al', big: { deep: [1, 2] } } });
  const json = e.propertiesJson;
  slimForApply(e);
  // ($browser is also a person property: person-initial-properties.ts derives it for the person, as one text.)
  expect(e).toMatchObject({ session_id: 's1', elements_chain: 'a:b', properties: { $set: { a: 1 }, alias: 'al' }, propertiesJson: json });
  expect(Object.keys(e.properties).sort()).toEqual(['$$quarry_derived_person', '$set', 'alias']);
  expect(expandDerived(e.properties, () => JSON.parse(json))).toEqual({ $set: { $browser: 'x', a: 1 }, $set_once: { $initial_browser: 'x' }, alias: 'al' });
  const plain = ev({ distinct_id: 'u', properties: { $session_id: 7 } });
  slimForApply(plain);
  expect(plain).toMatchObject({ session_id: null, elements_chain: null, properties: {} });
  // Already slim (from a parse worker): unchanged.
  const before = { ...e };
  slimForApply(e);
  expect(e).toEqual(before);
});

it('every column of a captured event reaches DuckDB as sent (events queued as log bytes), nulls included', async () => {
  const uuid = randomUUID();
  const a = ev({ distinct_id: 'd "q" ü', uuid, timestamp: '2024-02-03T04:05:06.789Z', properties: { $session_id: 'sé', $elements_chain: 'a"b' } });
  const b = ev({ distinct_id: 'plain', properties: { $process_person_profile: false } });
  const created = a.created_at;
  await ing.capture(1, [a, b]);
  await ing.flush();
  const r = await engine.query(
    `SELECT uuid::VARCHAR, event, distinct_id, person_id IS NULL, epoch_ms(timestamp), "$session_id", elements_chain, epoch_ms(created_at)
     FROM events ORDER BY distinct_id`,
    [],
  );
  expect(r.rows).toEqual([
    [uuid, 'e', 'd "q" ü', false, Date.parse('2024-02-03T04:05:06.789Z'), 'sé', 'a"b', created],
    [b.uuid, 'e', 'plain', true, b.timestamp, null, null, b.created_at],
  ]);
});

it('a client uuid sent again (a retry) is stored once and counted as a duplicate', async () => {
  const uuid = randomUUID();
  await ing.capture(1, [ev({ distinct_id: 'u', uuid })]);
  await ing.capture(1, [ev({ distinct_id: 'u', uuid }), ev({ distinct_id: 'u' })]);
  await ing.flush();
  await ing.capture(1, [ev({ distinct_id: 'u', uuid })]);
  await ing.flush();
  expect(await count('SELECT count(*) FROM events WHERE uuid = $1::UUID', [uuid])).toBe(1);
  expect(await count('SELECT count(*) FROM events')).toBe(2);
  expect(ing.stats.duplicates).toBe(2);
});

it('a captured record DuckDB refuses is set aside; records before and after it land', async () => {
  await ing.capture(1, [ev({ distinct_id: 'before' })]);
  await ing.flush();
  await ing.capture(1, [{ ...ev({ distinct_id: 'bad' }), timestamp: 1e16 }]); // beyond DuckDB's TIMESTAMP range
  await ing.capture(1, [ev({ distinct_id: 'after' })]);
  for (let i = 0; i < 10 && ing.pendingEvents > 0; i++) await ing.flush().catch(() => undefined);
  expect(ing.stats.rejected).toBe(1);
  expect((await engine.query('SELECT list_sort(list(distinct_id)) FROM events', [])).rows).toEqual([[['after', 'before']]]);
  const rejected = fs.readdirSync(path.join(dir, 'ingest-log', 'rejected'));
  expect(rejected).toHaveLength(1);
  expect(fs.readFileSync(path.join(dir, 'ingest-log', 'rejected', rejected[0]), 'utf8')).toContain('"bad"');
});

it('nulls land on the right rows across data chunks (person, session id, elements chain)', async () => {
  // 5,000 events: more than two 2,048-row chunks, in records of 100 as capture sends them.
  const all = Array.from({ length: 5000 }, (_, i) =>
    ev({
      // (personless events of distinct ids that never get a person: they store no person id)
      distinct_id: `${i % 3 === 0 ? 'g' : 'd'}${Math.floor(i / 3) % 37}`,
      event: `n${i}`,
      properties: {
        ...(i % 3 === 0 ? { $process_person_profile: false } : {}),
        ...(i % 5 === 0 ? { $session_id: `s${i}` } : {}),
        ...(i % 7 === 0 ? { $elements_chain: `c${i}` } : {}),
      },
    }),
  );
  for (let k = 0; k < all.length; k += 100) await ing.capture(1, all.slice(k, k + 100));
  await ing.flush();
  const r = await engine.query(
    `SELECT count(*) FILTER (WHERE (person_id IS NULL) <> (i % 3 = 0)),
            count(*) FILTER (WHERE "$session_id" IS DISTINCT FROM CASE WHEN i % 5 = 0 THEN 's' || i END),
            count(*) FILTER (WHERE elements_chain IS DISTINCT FROM CASE WHEN i % 7 = 0 THEN 'c' || i END),
            count(*)
     FROM (SELECT *, CAST(substr(event, 2) AS INTEGER) AS i FROM events)`,
    [],
  );
  expect(r.rows).toEqual([[0, 0, 0, 5000]]);
  // Each event carries its own distinct id's person (runs of one person and alternations alike).
  const wrong = await engine.query(
    `SELECT count(*) FROM events e JOIN person_distinct_ids d ON d.project_id = e.project_id AND d.distinct_id = e.distinct_id
     WHERE e.person_id IS NOT NULL AND e.person_id <> d.person_id`,
    [],
  );
  expect(wrong.rows).toEqual([[0]]);
  expect(await count('SELECT count(DISTINCT person_id) FROM events')).toBe(37);
});

it('events encoded ahead (by a parse worker) are stored like captured ones, identity included, and replay after a restart', async () => {
  const slim = (evs: ParsedEvent[]) => {
    for (const e of evs) slimForApply(e);
    return evs;
  };
  const u = randomUUID();
  await ing.captureEncoded(1, encodeEventsAhead(slim([ev({ distinct_id: 'anon-w', uuid: u, properties: { $session_id: 'sw', a: 'ü' } })])));
  await ing.captureEncoded(
    1,
    encodeEventsAhead(slim([ev({ event: '$identify', distinct_id: 'user-w', properties: { $anon_distinct_id: 'anon-w', $set: { plan: 'pro' } } })])),
  );
  await ing.flush();
  expect((await engine.query(`SELECT "$session_id", properties.a FROM events WHERE uuid = $1::UUID`, [u])).rows).toEqual([['sw', 'ü']]);
  expect(await count(`SELECT count(*) FROM persons`)).toBe(1);
  expect(await count(`SELECT count(DISTINCT person_id) FROM events WHERE distinct_id IN ('anon-w', 'user-w')`)).toBe(1);
  // Logged but never applied (the process stopped after the fsync): replayed from the log at the next start.
  await ing.close();
  const w = await Wal.open(path.join(dir, 'ingest-log'), { compact: true });
  await w.readAfter(0, () => undefined);
  w.ensureSeqAfter(await engine.getCheckpoint());
  await w.appendEncoded(2, encodeEventsAhead(slim([ev({ distinct_id: 'late' })])));
  await w.close();
  expect(await count(`SELECT count(*) FROM events WHERE project_id = 2`)).toBe(0);
  ing = await Ingestor.open({ dataDir: dir, engine });
  expect(await count(`SELECT count(*) FROM events WHERE project_id = 2 AND distinct_id = 'late'`)).toBe(1);
});

it('an elements chain (not in the properties) survives replay of the log after a restart, captured or encoded ahead', async () => {
  await ing.close();
  const w = await Wal.open(path.join(dir, 'ingest-log'), { compact: true });
  await w.readAfter(0, () => undefined);
  w.ensureSeqAfter(await engine.getCheckpoint());
  const captured = ev({ distinct_id: 'c', properties: { $elements: [{ tag_name: 'a', $el_text: 'say "hi"' }] } });
  const ahead = ev({ distinct_id: 'x', properties: { $elements_chain: 'div:nth-child="1"' } });
  slimForApply(ahead);
  await w.append(3, [captured]);
  await w.appendEncoded(3, encodeEventsAhead([ahead]));
  await w.close();
  ing = await Ingestor.open({ dataDir: dir, engine });
  const rows = (await engine.query(`SELECT distinct_id, elements_chain, properties FROM events WHERE project_id = 3 ORDER BY distinct_id`, [])).rows;
  expect(rows).toEqual([
    ['c', 'a:nth-child="0"nth-of-type="0"text="say \\"hi\\""', {}],
    ['x', 'div:nth-child="1"', {}],
  ]);
});

it('a backlog is applied in transactions of at most 8,192 events by default (the event loop gets turns between them)', async () => {
  const sizes: number[] = [];
  const fake = recordingEngine((b) => sizes.push(b.events.length));
  const other = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-ingestor-backlog-'));
  const ing2 = await Ingestor.open({ dataDir: other, engine: fake, flushIntervalMs: 60_000, fsync: false });
  try {
    await Promise.all(Array.from({ length: 20 }, (_, r) => ing2.capture(1, Array.from({ length: 1000 }, (_, i) => ev({ distinct_id: `d${r}-${i % 50}` })))));
    await ing2.flush();
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(20_000);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(8192);
    expect(sizes.length).toBeGreaterThanOrEqual(3);
  } finally {
    await ing2.close();
    fs.rmSync(other, { recursive: true, force: true });
  }
});

it('person properties derived from captured events ($initial_*) are derived again when the log is replayed after a restart', async () => {
  await ing.close();
  const w = await Wal.open(path.join(dir, 'ingest-log'), { compact: true });
  await w.readAfter(0, () => undefined);
  w.ensureSeqAfter(await engine.getCheckpoint());
  const logged = [
    ev({ distinct_id: 'r', properties: { $current_url: 'https://a.com/1', utm_source: 'news' } }),
    ev({ distinct_id: 'r', properties: { $current_url: 'https://a.com/2', $set: { plan: 'pro' } } }),
  ];
  for (const e of logged) slimForApply(e);
  const creator = logged[0].uuid;
  await w.append(1, logged);
  await w.close();
  ing = await Ingestor.open({ dataDir: dir, engine });
  const rows = (await engine.query('SELECT properties FROM persons WHERE project_id = 1')).rows;
  expect(rows.map((r) => (typeof r[0] === 'string' ? JSON.parse(r[0]) : r[0]))).toEqual([
    {
      $creator_event_uuid: creator,
      $current_url: 'https://a.com/2',
      utm_source: 'news',
      plan: 'pro',
      $initial_current_url: 'https://a.com/1',
      $initial_utm_source: 'news',
    },
  ]);
  // The stored events hold what was sent.
  const props = (await engine.query("SELECT properties FROM events WHERE project_id = 1 ORDER BY json_extract_string(properties, '$.\"$current_url\"')")).rows;
  expect(props.map((r) => (typeof r[0] === 'string' ? JSON.parse(r[0]) : r[0]))).toEqual([
    { $current_url: 'https://a.com/1', utm_source: 'news' },
    { $current_url: 'https://a.com/2', $set: { plan: 'pro' } },
  ]);
});
