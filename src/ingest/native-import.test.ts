/**
 * The native bulk import (DuckDB reads the NDJSON, JS runs identity) must store what the row-by-row import stores:
 * the same events with the same persons (up to the random person ids), the same persons, the same per-line errors.
 * Small chunks make identity cross chunk boundaries; odd rows take the JS path inside a native chunk; malformed and
 * blank lines make whole chunks fall back to the row-by-row path.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { DuckDbEngine } from '../engines/duckdb/duckdb-engine';
import { importNdjsonFile, type ImportFileSummary } from './import-file';
import { Ingestor } from './ingestor';
import { sizeBytes } from '../engines/duckdb/size';
import { chunkCut, nativeImportStats, normalizeSql, ROW_GROUP_ROWS } from './native-import';

let dir: string;
const opened: { engine: DuckDbEngine; ing: Ingestor }[] = [];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-native-import-'));
});
afterAll(async () => {
  for (const o of opened) {
    await o.ing.close();
    await o.engine.close();
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

async function store(name: string): Promise<{ engine: DuckDbEngine; ing: Ingestor }> {
  const d = path.join(dir, name);
  fs.mkdirSync(d, { recursive: true });
  const engine = await DuckDbEngine.open(path.join(d, 'events.duckdb'));
  const ing = await Ingestor.open({ dataDir: d, engine });
  const o = { engine, ing };
  opened.push(o);
  return o;
}

const T0 = Date.parse('2024-03-01T00:00:00Z');
const iso = (i: number) => new Date(T0 + i * 60_000).toISOString();
const uuid = (i: number) => `0190a0a0-0000-7000-8000-${String(i).padStart(12, '0')}`;

/** A file exercising identity, every odd field shape the JS path handles, and invalid rows. */
function mixedLines(): string[] {
  const L: string[] = [];
  const j = (o: unknown) => L.push(JSON.stringify(o));
  for (let p = 0; p < 20; p++) j({ distinct_ids: [`user-${p}`, `mail-${p}@x`], properties: { plan: p % 2 ? 'pro' : 'free' }, created_at: '2023-01-01T00:00:00Z' });
  j({ type: 'person', distinct_ids: [] }); // invalid person
  j({ type: 'person', distinct_ids: ['user-3'], id: '0190a0a0-0000-7000-8000-ffffffffffff' }); // taken distinct id
  for (let i = 0; i < 400; i++) {
    const d = i % 7 === 0 ? `anon-${i % 50}` : `user-${i % 30}`;
    j({ event: '$pageview', distinct_id: d, uuid: uuid(i), timestamp: iso(i), properties: { i, $browser: i % 2 ? 'Chrome' : 'Safari', $session_id: `s-${i % 9}`, nested: { a: [1, { b: 2 }] } } });
    if (i % 40 === 5) j({ event: '$identify', distinct_id: `user-${i % 30}`, timestamp: iso(i), properties: { $anon_distinct_id: `anon-${i % 50}`, $set: { email: `e${i}@x` }, $set_once: { first: i } } });
    if (i % 55 === 7) j({ event: '$create_alias', distinct_id: `user-${i % 30}`, timestamp: iso(i), properties: { alias: `alias-${i}` } });
    if (i % 33 === 3) j({ event: 'upd', distinct_id: `user-${i % 30}`, timestamp: iso(i), properties: { $set: { n: i }, $unset: ['plan'] } });
    if (i % 61 === 1) j({ event: 'ghost', distinct_id: `ghost-${i}`, timestamp: iso(i), properties: { $process_person_profile: false } });
    if (i % 47 === 2) j({ event: 'late', distinct_id: `alias-${i}`, timestamp: iso(i) });
    // Personless events take the person their distinct id has by then, and change nothing (not even an $identify).
    const pl = { $process_person_profile: false };
    if (i % 29 === 4) j({ event: 'pl-known', distinct_id: `user-${i % 30}`, timestamp: iso(i), properties: { ...pl, $set: { ignored: true } } });
    if (i % 97 === 9) {
      j({ event: 'pl-before', distinct_id: `later-${i}`, timestamp: iso(i), properties: pl });
      j({ event: 'pl-identify', distinct_id: `later-${i}`, timestamp: iso(i), properties: { ...pl, $anon_distinct_id: `user-${i % 30}` } });
      j({ event: 'creates', distinct_id: `later-${i}`, timestamp: iso(i) });
      j({ event: 'pl-after', distinct_id: `later-${i}`, timestamp: iso(i), properties: pl });
    }
  }
  // Shapes the SQL fast path leaves to JS (valid, normalized by normalizeEvent).
  j({ event: 'num-id', distinct_id: 12345, uuid: uuid(1000), timestamp: iso(1) });
  j({ event: 'top-set', distinct_id: 'user-1', $set: { top: true }, uuid: uuid(1001), timestamp: iso(2) });
  j({ event: 'tz', distinct_id: 'user-2', uuid: uuid(1002), timestamp: '2024-03-01T02:00:00+02:00' });
  j({ event: 'epoch', distinct_id: 'user-2', uuid: uuid(1003), timestamp: T0 + 123.7 });
  j({ event: 'upper', distinct_id: 'user-2', uuid: uuid(1004).toUpperCase(), timestamp: iso(3) });
  j({ event: 'micro', distinct_id: 'user-2', uuid: uuid(1005), timestamp: '2024-03-01T00:00:00.123456Z' });
  j({ event: 'dollar-id', $distinct_id: 'user-4', uuid: uuid(1006), timestamp: iso(4) });
  j({ event: 'props-id', properties: { distinct_id: 'user-5' }, uuid: uuid(1007), timestamp: iso(5) });
  j({ event: 'no-uuid', distinct_id: 'user-6', timestamp: iso(6) });
  j({ event: 'empty-uuid', distinct_id: 'user-6', uuid: '', timestamp: iso(7) });
  // A whitespace-only distinct id is an id (capture-payload.ts stringifyId; the SQL path leaves it to JS).
  j({ event: 'ws-id', distinct_id: '   ', uuid: uuid(1008), timestamp: iso(8) });
  // PostHog's ingestion normalizations (ingest-posthog-compat.test.ts): names cut at 200 characters, personless
  // events stored without $set/$set_once/$unset, `$process_person_profile: true` dropped, ISO week dates.
  j({ event: 'n'.repeat(201), distinct_id: 'user-7', uuid: uuid(1009), timestamp: iso(9) });
  j({ event: 'long-' + 'é'.repeat(150), distinct_id: 'user-7', uuid: uuid(1010), timestamp: iso(9) });
  j({ event: 'ppp-true', distinct_id: 'user-7', uuid: uuid(1011), timestamp: iso(9), properties: { $process_person_profile: true, $set: { via: 'true' } } });
  j({ event: 'pl-unset', distinct_id: 'user-7', uuid: uuid(1012), timestamp: iso(9), properties: { $process_person_profile: false, $unset: ['plan'], $set_once: { no: 1 } } });
  j({ event: 'week-date', distinct_id: 'user-7', uuid: uuid(1013), timestamp: '2024-W09-5' });
  // Duplicates within the file.
  j({ event: '$pageview', distinct_id: 'user-9', uuid: uuid(10), timestamp: iso(10) });
  // Invalid rows (same errors as the row-by-row path).
  j({ event: 'bad-ts', distinct_id: 'user-1', uuid: uuid(1100), timestamp: 'yesterday' });
  j({ event: 'bad-props', distinct_id: 'user-1', uuid: uuid(1101), properties: 'nope' });
  j({ event: '', distinct_id: 'user-1', uuid: uuid(1102) });
  j({ event: 'bad-uuid', distinct_id: 'user-1', uuid: 'not-a-uuid' });
  j({ event: 'no-id', uuid: uuid(1103) });
  j({ event: 'bad-set', distinct_id: 'user-1', uuid: uuid(1104), properties: { $set: 5 } });
  j({ event: 'feb-30', distinct_id: 'user-1', uuid: uuid(1105), timestamp: '2024-02-30T00:00:00.000Z' });
  return L;
}

interface Snapshot {
  summary: Pick<ImportFileSummary, 'lines' | 'imported' | 'duplicates' | 'errorCount' | 'errors'>;
  events: unknown[][];
  persons: unknown[][];
}

/** Stored state with person ids replaced by a canonical label (the smallest event uuid of the person's events). */
async function snapshot(engine: DuckDbEngine, s: ImportFileSummary, project: number): Promise<Snapshot> {
  const rows = (
    await engine.query(
      `SELECT e.uuid::VARCHAR, e.event, e.distinct_id, e.timestamp, e.properties, e."$session_id", e.elements_chain,
              coalesce(o.override_person_id, e.person_id)::VARCHAR
       FROM events e LEFT JOIN person_overrides o ON o.project_id = e.project_id AND o.old_person_id = e.person_id
       WHERE e.project_id = $1 ORDER BY e.event, e.distinct_id, e.timestamp, e.uuid`,
      [project],
    )
  ).rows;
  const label = new Map<string, string>();
  for (const r of rows) {
    const p = r[7] as string | null;
    const key = `${r[1]}|${r[2]}|${r[3]}|${JSON.stringify(r[4])}`;
    if (p !== null && (!label.has(p) || key < label.get(p)!)) label.set(p, key);
  }
  // Rows sent without a uuid get a fresh one (uuid v7); the file's own uuids all start with 0190a0a0.
  const generated = (r: unknown[]) => !(r[0] as string).startsWith('0190a0a0-');
  const events = rows.map((r) => [generated(r) ? 'generated' : r[0], ...r.slice(1, 7), r[7] === null ? null : label.get(r[7] as string)]);
  const persons = (
    await engine.query(
      `SELECT p.id::VARCHAR, p.properties, p.is_identified, list_sort(list(d.distinct_id))
       FROM persons p LEFT JOIN person_distinct_ids d ON d.project_id = p.project_id AND d.person_id = p.id
       WHERE p.project_id = $1 GROUP BY ALL`,
      [project],
    )
  ).rows
    .map((r) => [label.get(r[0] as string) ?? `no events: ${JSON.stringify(r[3])}`, r[1], r[2], r[3]])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])) || JSON.stringify(a[3]).localeCompare(JSON.stringify(b[3])));
  const { lines, imported, duplicates, errorCount, errors } = s;
  // Person ids are random: messages naming one are compared without it.
  const errs = [...errors]
    .sort((a, b) => a.line - b.line)
    .map((e) => ({ ...e, message: e.message.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>') }));
  return { summary: { lines, imported, duplicates, errorCount, errors: errs }, events, persons };
}

async function both(file: string, chunkBytes: number): Promise<{ native: Snapshot; rows: Snapshot; nativeSummary: ImportFileSummary }> {
  const a = await store(`native-${path.basename(file)}-${chunkBytes}`);
  const b = await store(`rows-${path.basename(file)}-${chunkBytes}`);
  const before = { ...nativeImportStats };
  const nativeSummary = await a.ing.importFile(1, file, { progress: false, chunkBytes });
  // Most chunks went through DuckDB, not the fallback.
  expect(nativeImportStats.nativeChunks - before.nativeChunks).toBeGreaterThan(nativeImportStats.fallbackChunks - before.fallbackChunks);
  const rowSummary = await importNdjsonFile(file, (c) => b.ing.import(1, c), { progress: false });
  return { native: await snapshot(a.engine, nativeSummary, 1), rows: await snapshot(b.engine, rowSummary, 1), nativeSummary };
}

/** The native import stored exactly what the row-by-row import stored: summary, events and persons. */
function expectSame(native: Snapshot, rows: Snapshot): void {
  expect(native.summary).toEqual(rows.summary);
  expect(native.events).toEqual(rows.events);
  expect(native.persons).toEqual(rows.persons);
}

it('stores the same events, persons and errors as the row-by-row import (chunks across identity changes)', async () => {
  const file = path.join(dir, 'mixed.ndjson');
  fs.writeFileSync(file, mixedLines().join('\n') + '\n');
  const { native, rows } = await both(file, 4096);
  expectSame(native, rows);
  expect(native.summary.duplicates).toBe(1);
  expect(native.summary.errorCount).toBe(9);
  expect(native.events.filter((e) => e[1] === 'ws-id').map((e) => e[2])).toEqual(['   ']);
  // Merges happened; personless events of unknown distinct ids have no person, those of known ones have theirs.
  const personOf = (name: string) => native.events.filter((e) => e[1] === name).map((e) => e[7]);
  expect(personOf('ghost').length).toBeGreaterThan(0);
  expect(personOf('ghost').every((p) => p === null)).toBe(true);
  expect(personOf('pl-before').every((p) => p === null)).toBe(true);
  expect(personOf('pl-identify').every((p) => p === null)).toBe(true);
  expect(personOf('pl-known').every((p) => p !== null)).toBe(true);
  expect(personOf('pl-after')).toEqual(personOf('creates'));
  expect(personOf('pl-after').every((p) => p !== null)).toBe(true);
  expect(native.persons.some((p) => JSON.stringify(p).includes('ignored'))).toBe(false);
});

it('falls back to the row-by-row path for chunks with malformed or blank lines, with the right line numbers', async () => {
  const L = mixedLines();
  L.splice(30, 0, '{"event": "truncated", ');
  L.splice(200, 0, '');
  L.splice(300, 0, '[1,2,3]');
  const file = path.join(dir, 'broken.ndjson');
  fs.writeFileSync(file, L.join('\n') + '\n');
  const { native, rows } = await both(file, 8192);
  expectSame(native, rows);
  expect(native.summary.errors.filter((e) => e.kind === 'parse').map((e) => e.line)).toEqual([31, 301]);
  expect(native.summary.lines).toBe(L.length - 1); // the blank line is not counted, as in the row-by-row path
});

it('reads gzip, a last line without newline, and skips uuids already stored (also against capture)', async () => {
  const { engine, ing } = await store('gz');
  const lines = Array.from({ length: 300 }, (_, i) => JSON.stringify({ event: 'gz', distinct_id: `g-${i % 7}`, uuid: uuid(i), timestamp: iso(i) }));
  const file = path.join(dir, 'small.ndjson.gz');
  fs.writeFileSync(file, gzipSync(lines.join('\n')));
  const first = await ing.importFile(1, file, { progress: false, chunkBytes: 5000 });
  expect(first).toMatchObject({ lines: 300, imported: { events: 300, persons: 0 }, duplicates: 0, errorCount: 0 });
  const again = await ing.importFile(1, file, { progress: false });
  expect(again).toMatchObject({ imported: { events: 0 }, duplicates: 300 });
  expect((await engine.query(`SELECT count(*), count(DISTINCT person_id) FROM events WHERE event = 'gz'`, [])).rows).toEqual([[300, 7]]);
  // no event without a person so far; a personless one of a new distinct id marks the project
  expect(engine.hasPersonlessEvents(1)).toBe(false);
  const ghost = path.join(dir, 'ghost.ndjson');
  fs.writeFileSync(ghost, JSON.stringify({ event: 'ghost', distinct_id: 'ghost', timestamp: iso(1), properties: { $process_person_profile: false } }) + '\n');
  expect((await ing.importFile(1, ghost, { progress: false })).imported.events).toBe(1);
  expect(engine.hasPersonlessEvents(1)).toBe(true);
  // A capture retry of an imported event is recognized as a duplicate (the recent-uuid set knows it).
  const { normalizeEvent } = await import('./capture-payload');
  await ing.capture(1, [normalizeEvent({ event: 'gz', distinct_id: 'g-1', uuid: uuid(5) }, { now: Date.now() })]);
  await ing.flush();
  expect((await engine.query(`SELECT count(*) FROM events WHERE event = 'gz'`, [])).rows).toEqual([[300]]);
});

it('the recent-uuid set is told the last imported uuids, read from the last chunks only', async () => {
  const d = path.join(dir, 'recent');
  fs.mkdirSync(d, { recursive: true });
  const engine = await DuckDbEngine.open(path.join(d, 'events.duckdb'));
  // Half the capacity (40) is remembered: the last 20 uuids, which span the last chunks (~8 events each).
  const ing = await Ingestor.open({ dataDir: d, engine, dedupCapacity: 40 });
  opened.push({ engine, ing });
  const lines = Array.from({ length: 100 }, (_, i) => JSON.stringify({ event: 'rc', distinct_id: `r-${i % 3}`, uuid: uuid(5000 + i), timestamp: iso(i) }));
  const file = path.join(dir, 'recent.ndjson');
  fs.writeFileSync(file, lines.join('\n') + '\n');
  const spy = jest.spyOn(engine, 'query');
  try {
    const s = await ing.importFile(1, file, { progress: false, chunkBytes: 800 });
    expect(s).toMatchObject({ imported: { events: 100 }, duplicates: 0 });
    // The uuids were read with a created_at bound later than the import's start (the earlier chunks are skipped).
    const call = spy.mock.calls.find(([sql]) => sql.includes('ORDER BY rowid DESC'));
    const rows = (await engine.query(`SELECT count(*) FROM events WHERE event = 'rc' AND created_at >= $1`, [call![1]![1]])).rows;
    expect(Number(rows[0][0])).toBeGreaterThanOrEqual(20);
    expect(Number(rows[0][0])).toBeLessThan(100);
  } finally {
    spy.mockRestore();
  }
  // Capture retries of the last 20 are duplicates.
  const { normalizeEvent } = await import('./capture-payload');
  await ing.capture(1, Array.from({ length: 20 }, (_, k) => normalizeEvent({ event: 'rc', distinct_id: 'r-1', uuid: uuid(5080 + k) }, { now: Date.now() })));
  await ing.flush();
  expect((await engine.query(`SELECT count(*) FROM events WHERE event = 'rc'`, [])).rows).toEqual([[100]]);
});

it('continues identity from earlier imports and captures (persons known before the chunk)', async () => {
  const { engine, ing } = await store('continue');
  const { normalizeEvent } = await import('./capture-payload');
  await ing.capture(1, [normalizeEvent({ event: 'seen', distinct_id: 'old-anon' }, { now: Date.now() })]);
  const created = normalizeEvent({ event: 'seen', distinct_id: 'old-user', properties: { $set: { a: 1 } } }, { now: Date.now() });
  const creator = created.uuid;
  await ing.capture(1, [created]);
  await ing.flush();
  const file = path.join(dir, 'continue.ndjson');
  fs.writeFileSync(
    file,
    [
      { event: 'x', distinct_id: 'old-anon', timestamp: iso(1) },
      { event: '$identify', distinct_id: 'old-user', timestamp: iso(2), properties: { $anon_distinct_id: 'old-anon', $set: { b: 2 } } },
      { event: 'y', distinct_id: 'old-anon', timestamp: iso(3) },
    ]
      .map((o) => JSON.stringify(o))
      .join('\n'),
  );
  const s = await ing.importFile(1, file, { progress: false });
  expect(s.imported.events).toBe(3);
  const r = await engine.query(
    `SELECT count(DISTINCT coalesce(o.override_person_id, e.person_id)), count(DISTINCT e.person_id) FROM events e
     LEFT JOIN person_overrides o ON o.project_id = e.project_id AND o.old_person_id = e.person_id`,
    [],
  );
  expect(r.rows).toEqual([[1, 2]]);
  // (The captured event that created the person is its `$creator_event_uuid`; the import adds none.)
  expect((await engine.query('SELECT properties FROM persons', [])).rows).toEqual([[{ a: 1, b: 2, $creator_event_uuid: creator }]]);
});

it('importNdjsonFile hands the file to a sink that imports files, and the progress bar reports rows', async () => {
  const { ing } = await store('sink');
  const file = path.join(dir, 'sink.ndjson');
  fs.writeFileSync(file, Array.from({ length: 50 }, (_, i) => JSON.stringify({ event: 's', distinct_id: `s-${i}` })).join('\n') + '\n');
  const send = Object.assign((chunk: { persons: unknown[]; events: unknown[] }) => ing.import(1, chunk), {
    importFile: (f: string, o: object) => ing.importFile(1, f, o),
  });
  const writes: string[] = [];
  const spy = jest.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => {
    writes.push(String(s));
    return true;
  });
  let s: ImportFileSummary;
  try {
    s = await importNdjsonFile(file, send, { progress: true });
  } finally {
    spy.mockRestore();
  }
  expect(s.imported.events).toBe(50);
  expect(writes.join('')).toMatch(/import \|.*\| 100% \| 50 rows/);
});

it('lowers DuckDB memory limit only while importing', async () => {
  const { engine, ing } = await store('limit');
  const limit = async () => (await engine.query(`SELECT current_setting('memory_limit')`, [])).rows[0][0];
  const before = await limit();
  const file = path.join(dir, 'limit.ndjson');
  fs.writeFileSync(file, JSON.stringify({ event: 'l', distinct_id: 'l' }) + '\n');
  const seen: unknown[] = [];
  const spy = jest.spyOn(engine, 'writeBatch');
  spy.mockImplementation(async function (this: DuckDbEngine, ...args: Parameters<DuckDbEngine['writeBatch']>) {
    seen.push(await limit());
    return DuckDbEngine.prototype.writeBatch.apply(this, args);
  });
  try {
    await ing.importFile(1, file, { progress: false, memoryLimit: '300MB' });
  } finally {
    spy.mockRestore();
  }
  expect(seen).toEqual(['286.1 MiB']);
  // DuckDB shows the limit rounded to 0.1 MiB, so the restored value may differ in that last digit.
  expect(Math.abs(sizeBytes(String(await limit()))! - sizeBytes(String(before))!)).toBeLessThan(0.2 * 1024 ** 2);
});

it('a truncated gzip file is reported as an error line, not thrown', async () => {
  const { ing } = await store('badgz');
  const gz = gzipSync(Array.from({ length: 2000 }, (_, i) => JSON.stringify({ event: 'b', distinct_id: `b-${i}`, properties: { pad: 'x'.repeat(50) } })).join('\n'));
  const file = path.join(dir, 'bad.ndjson.gz');
  fs.writeFileSync(file, gz.subarray(0, Math.floor(gz.length / 2)));
  const s = await ing.importFile(1, file, { progress: false, chunkBytes: 20_000 });
  expect(s.errors.at(-1)).toMatchObject({ kind: 'parse', message: expect.stringMatching(/not valid gzip/) });
  expect(s.imported.events).toBeGreaterThan(0);
});

// Across chunks: duplicates against stored events see every earlier chunk, a failed chunk leaves the store consistent
// (earlier chunks stored, identity reloaded), and no staging table outlives the import.
describe('across chunks', () => {
  const stagingTables = (engine: DuckDbEngine) =>
    engine.withWriter(async (w) =>
      Number((await w.runAndReadAll(`SELECT count(*) FROM duckdb_tables() WHERE starts_with(table_name, 'imp_')`)).getRows()[0][0]),
    );

  it('a uuid repeated in a later chunk is a duplicate, once, and the staging tables are dropped', async () => {
    const { engine, ing } = await store('pipelined');
    const row = (i: number, u: number) =>
      JSON.stringify({ event: 'p', distinct_id: `p-${i % 5}`, uuid: uuid(u), timestamp: iso(i), properties: { pad: 'y'.repeat(40) } });
    // ~100 bytes a line, 1,000-byte chunks: the repeats of uuid 0..9 land several chunks after the originals.
    const lines = [...Array.from({ length: 200 }, (_, i) => row(i, i)), ...Array.from({ length: 10 }, (_, i) => row(200 + i, i))];
    const file = path.join(dir, 'pipelined.ndjson');
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const before = nativeImportStats.nativeChunks;
    const s = await ing.importFile(1, file, { progress: false, chunkBytes: 1000 });
    expect(nativeImportStats.nativeChunks - before).toBeGreaterThan(5);
    expect(s).toMatchObject({ lines: 210, imported: { events: 200 }, duplicates: 10, errorCount: 0 });
    expect((await engine.query(`SELECT count(*), count(DISTINCT uuid), count(DISTINCT person_id) FROM events WHERE event = 'p'`, [])).rows).toEqual([
      [200, 200, 5],
    ]);
    expect(await stagingTables(engine)).toBe(0);
  });

  it('a failure while applying a chunk leaves no staging table behind and the store consistent', async () => {
    const { engine, ing } = await store('pipelined-fail');
    const lines = Array.from({ length: 300 }, (_, i) => JSON.stringify({ event: 'f', distinct_id: `f-${i % 3}`, uuid: uuid(1000 + i), timestamp: iso(i) }));
    const file = path.join(dir, 'pipelined-fail.ndjson');
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const spy = jest.spyOn(engine, 'writeBatch');
    let calls = 0;
    spy.mockImplementation(async function (this: DuckDbEngine, ...args: Parameters<DuckDbEngine['writeBatch']>) {
      if (++calls === 3) throw new Error('IO Error: disk full (injected)');
      return DuckDbEngine.prototype.writeBatch.apply(this, args);
    });
    try {
      await expect(ing.importFile(1, file, { progress: false, chunkBytes: 2000 })).rejects.toThrow(/injected/);
    } finally {
      spy.mockRestore();
    }
    expect(await stagingTables(engine)).toBe(0);
    // The two chunks applied before the failure are stored with their persons; importing again completes the file.
    const stored = Number((await engine.query(`SELECT count(*) FROM events WHERE event = 'f'`, [])).rows[0][0]);
    expect(stored).toBeGreaterThan(0);
    const again = await ing.importFile(1, file, { progress: false, chunkBytes: 2000 });
    expect(again).toMatchObject({ imported: { events: 300 - stored }, duplicates: stored });
    expect((await engine.query(`SELECT count(*), count(DISTINCT person_id) FROM events WHERE event = 'f'`, [])).rows).toEqual([[300, 3]]);
  });
});

it('rows rebuilt in JS keep their file position for identity (person as of each row, across a merge)', async () => {
  // One chunk: JS-path rows (top-level $set, a numeric distinct id, an offset timestamp) sit between fast rows of
  // the same distinct ids, before and after an $identify that merges them.
  const L = [
    { event: 'a', distinct_id: 'anon-x', uuid: uuid(2001), timestamp: iso(1) },
    { event: 'b', distinct_id: 'anon-x', $set: { k: 1 }, uuid: uuid(2002), timestamp: '2024-03-01T00:02:00+00:00' },
    { event: 'c', distinct_id: '77', uuid: uuid(2003), timestamp: iso(3) },
    { event: '$identify', distinct_id: 'user-x', uuid: uuid(2004), timestamp: iso(4), properties: { $anon_distinct_id: 'anon-x', $set: { plan: 'pro' } } },
    { event: 'd', distinct_id: 'anon-x', $set: { k: 2 }, uuid: uuid(2005), timestamp: iso(5) },
    { event: 'e', distinct_id: 77, uuid: uuid(2006), timestamp: iso(6) },
    { event: '$create_alias', distinct_id: 'user-x', uuid: uuid(2007), timestamp: iso(7), properties: { alias: '77' } },
    { event: 'f', distinct_id: 77, uuid: uuid(2008), timestamp: iso(8) },
    { event: 'g', distinct_id: 'anon-x', uuid: uuid(2009), timestamp: iso(9) },
  ].map((o) => JSON.stringify(o));
  const file = path.join(dir, 'js-positions.ndjson');
  fs.writeFileSync(file, L.join('\n') + '\n');
  const { native, rows } = await both(file, 1 << 20);
  expectSame(native, rows);
  expect(native.persons).toHaveLength(1); // anon-x, user-x and 77 end as one person
  // The person written on each row (before overrides) is the one its distinct id had at that row: the same
  // partition of rows into persons in both stores (ids are random, so rows are labelled by first appearance).
  const [a, b] = opened.slice(-2).map((o) => o.engine);
  const partition = async (engine: DuckDbEngine) => {
    const r = (await engine.query(`SELECT event, person_id::VARCHAR FROM events WHERE project_id = 1 ORDER BY uuid`, [])).rows;
    const label = new Map<unknown, number>();
    return r.map((x) => [x[0], label.get(x[1]) ?? (label.set(x[1], label.size), label.size - 1)]);
  };
  const got = await partition(a);
  expect(got).toEqual(await partition(b));
  expect(new Set(got.map((x) => x[1])).size).toBeGreaterThan(1);
});

it('rows rebuilt in JS keep their raw values exactly (nulls, escapes, large numbers, nested values, odd keys)', async () => {
  // These rows travel from DuckDB to JS as one JSON text; an explicit null reads as an absent key in both paths.
  const L = [
    { distinct_ids: ['odd-1', 'odd-2'], properties: { s: 'é "q" \\ \u2028 \t', n: 12345678901234567890, f: 0.1, e: 1e300, z: -0 }, created_at: '2023-01-01T00:00:00Z' },
    '{"type":"person","distinct_ids":["odd-3"],"properties":{"__proto__":{"x":1},"a.b":[null,[],{}]},"is_identified":false}',
    { event: 'odd', distinct_id: 98765432109876543210, uuid: uuid(3001), timestamp: iso(1), properties: { k: null, s: '\u0000x' } },
    { event: 'odd', distinct_id: 'odd-1', uuid: uuid(3002), timestamp: iso(2), $set: { deep: { a: [1, 2, { b: null }] } }, properties: null },
    { event: null, distinct_id: 'odd-2', distinct_ids: null, uuid: uuid(3003), timestamp: iso(3), offset: 5 },
    { event: 'odd', distinct_id: 'odd-3', uuid: uuid(3004), timestamp: 1709251200123.9, properties: { $set_once: { first: 'x' } } },
  ].map((o) => (typeof o === 'string' ? o : JSON.stringify(o)));
  const file = path.join(dir, 'raw-values.ndjson');
  fs.writeFileSync(file, L.join('\n') + '\n');
  const { native, rows } = await both(file, 1 << 20);
  expectSame(native, rows);
  expect(native.summary.imported.persons).toBe(2);
});

it('many distinct ids changing person inside one chunk: each row gets the person its distinct id had at that row', async () => {
  // 200 anonymous ids each send events before and after being merged into one of 40 users, all in one chunk: the
  // as-of lookup covers thousands of rows (more than DuckDB's nested-loop threshold for ASOF joins).
  const L: string[] = [];
  let n = 0;
  const ev = (o: Record<string, unknown>) => L.push(JSON.stringify({ uuid: uuid(5000 + n), timestamp: iso(n++), ...o }));
  for (let a = 0; a < 200; a++) for (let k = 0; k < 5; k++) ev({ event: 'before', distinct_id: `anon-m-${a}` });
  for (let a = 0; a < 200; a++) ev({ event: '$identify', distinct_id: `user-m-${a % 40}`, properties: { $anon_distinct_id: `anon-m-${a}` } });
  for (let a = 0; a < 200; a++) for (let k = 0; k < 5; k++) ev({ event: 'after', distinct_id: `anon-m-${a}` });
  const file = path.join(dir, 'merges.ndjson');
  fs.writeFileSync(file, L.join('\n') + '\n');
  const { native, rows } = await both(file, 1 << 22);
  expectSame(native, rows);
  expect(native.persons).toHaveLength(40);
  const [a] = opened.slice(-2).map((o) => o.engine);
  // Before its merge an anonymous id has its own person; after it, its user's (as written on the rows).
  const r = await a.query(
    `SELECT event, count(DISTINCT person_id) FROM events WHERE project_id = 1 AND event IN ('before', 'after') GROUP BY 1 ORDER BY 1`,
    [],
  );
  expect(r.rows).toEqual([
    ['after', 40],
    ['before', 200],
  ]);
  // The import's planner setting does not outlive it.
  const setting = await a.withWriter(async (w) => (await w.runAndReadAll(`SELECT current_setting('asof_loop_join_threshold')`)).getRows()[0][0]);
  expect(Number(setting)).toBe(64);
});

describe('chunkCut (where a chunk file ends)', () => {
  const lines = (n: number, width = 9) => Buffer.from(`${'x'.repeat(width)}\n`.repeat(n)); // 10 bytes a line
  const G = ROW_GROUP_ROWS;
  it.each([
    // [case, piece lines, chunk bytes so far, chunk lines so far, chunkBytes, cut index or -1]
    ['under both limits: the whole piece', 100, 0, 0, 1_000_000, -1],
    ['the first line end at or past chunkBytes (long lines, no whole row group yet)', 100, 0, 0, 555, 559],
    ['already past chunkBytes: the first line end', 100, 2000, 10, 1000, 9],
    // One group is 10 G bytes; at 25 G a second group would still fit, a third would not: cut after two groups.
    ['at a row group boundary once another group would pass chunkBytes', 2 * G + 50, 0, 0, 25 * G, 2 * G * 10 - 1],
    // A chunk that already holds most of a group: the boundary comes G − 1,000 lines into the piece.
    ['the boundary counts the lines already in the chunk', G, 10 * (G - 1000), G - 1000, 15 * G, 10_000 - 1],
    ['a byte cut before the next boundary wins', 2 * G, 0, 0, 5 * G, 5 * G - 1],
  ])('%s', (_case, n, bytes, had, chunkBytes, cut) => {
    expect(chunkCut(lines(n as number), bytes as number, had as number, chunkBytes as number)).toBe(cut);
  });
});

it('a file of events is inserted as whole row groups, and the import ends with a checkpoint', async () => {
  const { engine, ing } = await store('row-groups');
  const file = path.join(dir, 'row-groups.ndjson');
  const n = 2 * ROW_GROUP_ROWS + 10;
  fs.writeFileSync(file, Array.from({ length: n }, (_, i) => `{"event":"rg","distinct_id":"rg-${i % 7}"}`).join('\n') + '\n');
  const lineBytes = fs.statSync(file).size / n;
  // Room for one row group and a half: each chunk holds one whole group (the last one the rest).
  const s = await ing.importFile(1, file, { progress: false, chunkBytes: Math.floor(1.5 * ROW_GROUP_ROWS * lineBytes) });
  expect(s).toMatchObject({ lines: n, imported: { events: n }, errorCount: 0 });
  const wal = path.join(dir, 'row-groups', 'events.duckdb.wal');
  expect(fs.statSync(wal, { throwIfNoEntry: false })?.size ?? 0).toBe(0);
  const groups = await engine.query(
    `SELECT row_group_id, max(count) FROM pragma_storage_info('events') WHERE column_name = 'uuid' GROUP BY 1 ORDER BY 1`,
    [],
  );
  expect(groups.rows.map((r) => Number(r[1]))).toEqual([ROW_GROUP_ROWS, ROW_GROUP_ROWS, 10]);
});

it('rows with groups take the JS path: the same $group_N properties, group types and groups as the row-by-row import', async () => {
  const L: string[] = [];
  const j = (o: unknown) => L.push(JSON.stringify(o));
  for (let i = 0; i < 300; i++) {
    j({ event: '$pageview', distinct_id: `g-${i % 11}`, uuid: uuid(i), timestamp: iso(i), properties: { i } });
    if (i % 9 === 1) j({ event: 'grouped', distinct_id: `g-${i % 11}`, uuid: uuid(5000 + i), timestamp: iso(i), properties: { $groups: { company: `c${i % 4}`, project: i } } });
    if (i % 50 === 3)
      j({ event: '$groupidentify', distinct_id: `$company_c${i % 4}`, uuid: uuid(6000 + i), timestamp: iso(i), properties: { $group_type: 'company', $group_key: `c${i % 4}`, $group_set: { n: i, [`k${i}`]: true } } });
    if (i === 200) j({ event: 'six', distinct_id: 'g-1', uuid: uuid(7000), timestamp: iso(i), properties: { $groups: { a: 1, b: 2, c: 3, d: 4 } } });
  }
  // a personless $groupidentify is dropped; a duplicate changes no group
  j({ event: '$groupidentify', distinct_id: 'g-1', uuid: uuid(8000), timestamp: iso(400), properties: { $process_person_profile: false, $group_type: 'company', $group_key: 'c0', $group_set: { dropped: true } } });
  j({ event: '$groupidentify', distinct_id: '$company_c3', uuid: uuid(6003), timestamp: iso(401), properties: { $group_type: 'company', $group_key: 'c3', $group_set: { n: -1 } } });
  const file = path.join(dir, 'groups.ndjson');
  fs.writeFileSync(file, L.join('\n') + '\n');
  const { native, rows } = await both(file, 6000);
  expectSame(native, rows);
  expect(native.summary.duplicates).toBe(1);
  expect(native.summary.imported.events).toBe(L.length - 2);
  const a = opened[opened.length - 2].engine;
  const b = opened[opened.length - 1].engine;
  const groups = await a.loadGroups(1);
  expect(groups).toEqual(await b.loadGroups(1));
  expect(groups.types.map((t) => t.group_type)).toEqual(['company', 'project', 'a', 'b', 'c']);
  expect(groups.groups.find((g) => g.group_key === 'c3')).toMatchObject({ created_at: Date.parse(iso(3)), properties: { n: 203, k3: true, k103: true, k203: true } });
  // the personless $groupidentify of c0 created nothing
  expect(groups.groups.map((g) => g.group_key).sort()).toEqual(['c1', 'c3']);
  const six = await a.query(`SELECT properties FROM events WHERE event = 'six'`, []);
  expect(six.rows[0][0]).toMatchObject({ $group_2: '1', $group_3: '2', $group_4: '3' });
  expect(six.rows[0][0]).not.toHaveProperty('$group_5');
});

it('the fast (SQL) path leaves to JS exactly the rows groups and autocapture elements need; plain rows stay fast', async () => {
  const { engine } = await store('fast-predicate');
  const lines = [
    { event: '$pageview', distinct_id: 'u', properties: { $browser: 'Chrome', $session_id: 's', plan: 'pro', nested: { a: [1] } } },
    { event: 'e', distinct_id: 'u', properties: { $groups: { company: 'acme' } } },
    { event: '$groupidentify', distinct_id: 'u', properties: { $group_type: 'company', $group_key: 'acme' } },
    // a plain chain stays fast (moved out of the properties in SQL); anything else about elements goes to JS
    { event: '$autocapture', distinct_id: 'u', properties: { $elements_chain: 'a:nth-child="1"' } },
    { event: '$autocapture', distinct_id: 'u', properties: { $elements: [{ tag_name: 'a' }] } },
    { event: '$autocapture', distinct_id: 'u', properties: { $elements_chain: '' } },
    { event: '$autocapture', distinct_id: 'u', properties: { $elements_chain: 5 } },
    { event: 'e', distinct_id: 'u', properties: { note: 'mentions $groups in a value' } },
    { event: 'e', distinct_id: 'u' },
  ];
  const file = path.join(dir, 'fast-predicate.ndjson');
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const ok = await engine.withWriter(async (w) => {
    await w.run(normalizeSql(file, 'imp_probe'), [Date.now()]);
    const r = (await w.runAndReadAll('SELECT ok FROM imp_probe ORDER BY rowid')).getRows().map((x) => x[0]);
    await w.run('DROP TABLE imp_probe');
    return r;
  });
  expect(ok).toEqual([true, false, false, true, false, false, false, true, true]);
});

it('autocapture rows: the fast path stores what the row-by-row import stores (chain column, properties without it)', async () => {
  const L: string[] = [];
  const j = (o: unknown) => L.push(JSON.stringify(o));
  const chain = (i: number) => `a.btn:nth-child="${i}"nth-of-type="1"text="Go ✓";div:nth-child="1"nth-of-type="1"`;
  for (let i = 0; i < 200; i++) {
    j({ event: '$pageview', distinct_id: `a-${i % 5}`, uuid: uuid(i), timestamp: iso(i), properties: { i } });
    if (i % 3 === 0) j({ event: '$autocapture', distinct_id: `a-${i % 5}`, uuid: uuid(3000 + i), timestamp: iso(i), properties: { $event_type: 'click', $elements_chain: chain(i), i } });
  }
  j({ event: '$autocapture', distinct_id: 'a-1', uuid: uuid(4000), timestamp: iso(300), properties: { $elements: [{ tag_name: 'button', $el_text: 'Buy', nth_child: 2 }] } });
  j({ event: '$autocapture', distinct_id: 'a-1', uuid: uuid(4001), timestamp: iso(301), properties: { $elements_chain: '', keep: 1 } });
  j({ event: '$autocapture', distinct_id: 'a-1', uuid: uuid(4002), timestamp: iso(302), properties: { $elements_chain: 'x'.repeat(70_000) } });
  j({ event: '$autocapture', distinct_id: 'a-1', uuid: uuid(4003), timestamp: iso(303), properties: { $elements_chain: 'a:;b:', $elements: [{ tag_name: 'a' }] } });
  const file = path.join(dir, 'autocapture.ndjson');
  fs.writeFileSync(file, L.join('\n') + '\n');
  const { native, rows } = await both(file, 8000);
  expectSame(native, rows);
  const auto = native.events.filter((e) => e[1] === '$autocapture');
  expect(auto.length).toBe(71);
  expect(auto.every((e) => !('$elements_chain' in (e[4] as object)) && !('$elements' in (e[4] as object)))).toBe(true);
  expect(auto.filter((e) => e[6] !== null).length).toBe(69);
});

it('autocapture rows (taken to JS) store the same elements_chain as the row-by-row import', async () => {
  const lines = [
    { event: '$autocapture', distinct_id: 'u', uuid: uuid(1), timestamp: iso(1), properties: { $elements_chain: 'a:nth-child="1"' } },
    { event: '$autocapture', distinct_id: 'u', uuid: uuid(2), timestamp: iso(2), properties: { $elements: [{ tag_name: 'a', $el_text: 'x' }] } },
    ...Array.from({ length: 50 }, (_, i) => ({ event: 'plain', distinct_id: 'u', uuid: uuid(10 + i), timestamp: iso(10 + i) })),
  ];
  const file = path.join(dir, 'autocapture.ndjson');
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const { native, rows } = await both(file, 4096);
  expectSame(native, rows);
  expect(native.events.filter((e) => e[1] === '$autocapture').map((e) => e[6])).toEqual(['a:nth-child="1"', 'a:nth-child="0"nth-of-type="0"text="x"']);
});
