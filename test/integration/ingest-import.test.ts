/**
 * Bulk import: a 100k-row NDJSON file (persons first, some bad lines) streamed through importNdjsonFile into an
 * Ingestor; counts, per-line errors and identity are checked in DuckDB.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createGzip } from 'node:zlib';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { DuckDbEngine } from '../../src/engines/duckdb/duckdb-engine';
import { Ingestor } from '../../src/ingest/ingestor';
import { importNdjsonFile } from '../../src/ingest/import-file';

let dir: string;
let engine: DuckDbEngine;
let ingestor: Ingestor;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-import-'));
  engine = await DuckDbEngine.open(path.join(dir, 'events.duckdb'));
  ingestor = await Ingestor.open({ dataDir: dir, engine });
});
afterAll(async () => {
  await ingestor.close();
  await engine.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const PERSONS = 1000;
const EVENTS = 99_000;
const T0 = Date.parse('2024-01-01T00:00:00Z');

/** Lines (1-based) that are bad, with the error kind expected. */
const BAD: Record<number, 'parse' | 'event' | 'person'> = {};

function* lines(): Generator<string> {
  let n = 0;
  const line = (s: string, bad?: 'parse' | 'event' | 'person') => {
    n++;
    if (bad) BAD[n] = bad;
    return s + '\n';
  };
  for (let p = 0; p < PERSONS; p++) {
    if (p === 10) yield line(JSON.stringify({ type: 'person', distinct_ids: [], properties: {} }), 'person');
    yield line(
      JSON.stringify({ distinct_ids: [`user-${p}`, `email-${p}@x`], properties: { plan: p % 3 ? 'free' : 'pro' }, created_at: '2023-06-01T00:00:00Z' }),
    );
  }
  for (let i = 0; i < EVENTS; i++) {
    if (i === 5) yield line('{"event": "truncated", ', 'parse');
    if (i === 500) yield line(JSON.stringify({ event: 'x', distinct_id: 'user-1', timestamp: 'not a time' }), 'event');
    if (i === 5000) yield line(JSON.stringify({ event: 'x', distinct_id: 'user-1', properties: 'nope' }), 'event');
    if (i === 50_000) yield line('[1,2,3]', 'parse');
    if (i === 70_000) yield line('');
    yield line(
      JSON.stringify({
        event: i % 10 === 0 ? 'purchase' : '$pageview',
        distinct_id: `user-${i % (PERSONS + 200)}`, // 200 distinct ids without an imported person
        timestamp: new Date(T0 + i * 60_000).toISOString(),
        properties: { i, $browser: i % 2 ? 'Chrome' : 'Safari' },
      }),
    );
  }
}

it('imports 100k NDJSON rows with per-line errors', async () => {
  const file = path.join(dir, 'import.ndjson');
  await pipeline(Readable.from(lines()), fs.createWriteStream(file));
  const t = Date.now();
  const summary = await importNdjsonFile(file, (chunk) => ingestor.import(1, chunk), { progress: false });
  const secs = (Date.now() - t) / 1000;
  if (process.env.DEBUG_INGEST) console.log({ secs, rate: (PERSONS + EVENTS) / secs });
  expect(summary.imported).toEqual({ persons: PERSONS, events: EVENTS });
  expect(summary.errorCount).toBe(Object.keys(BAD).length);
  expect(summary.errors.map((e) => [e.line, e.kind]).sort((a, b) => (a[0] as number) - (b[0] as number))).toEqual(
    Object.entries(BAD).map(([l, k]) => [Number(l), k]),
  );
  expect(summary.errors.find((e) => e.kind === 'event' && /timestamp/.test(e.message))).toBeTruthy();

  expect((await engine.query('SELECT count(*), count(DISTINCT person_id), min(timestamp) FROM events WHERE project_id = 1', [])).rows).toEqual([
    [EVENTS, PERSONS + 200, '2024-01-01T00:00:00.000Z'],
  ]);
  // Imported persons keep their created_at and both distinct ids; events of user-7 carry its person id.
  const p7 = await engine.query(
    `SELECT p.created_at, p.properties, (SELECT count(*) FROM person_distinct_ids d WHERE d.person_id = p.id),
            (SELECT count(*) FROM events e WHERE e.person_id = p.id)
     FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id WHERE d.distinct_id = 'email-7@x'`,
    [],
  );
  expect(p7.rows).toEqual([['2023-06-01T00:00:00.000Z', { plan: 'free' }, 2, expect.any(Number)]]);
  expect((p7.rows[0][3] as number) > 0).toBe(true);
}, 50_000);

it('imports gzip files and skips already-imported uuids', async () => {
  const file = path.join(dir, 'small.ndjson.gz');
  const rows = Array.from({ length: 100 }, (_, i) =>
    JSON.stringify({ event: 'gz', distinct_id: 'gz-user', uuid: `0190a0a0-0000-7000-8000-${String(i).padStart(12, '0')}`, timestamp: '2024-02-01T00:00:00Z' }),
  );
  await pipeline(Readable.from([rows.join('\n') + '\n']), createGzip(), fs.createWriteStream(file));
  const first = await importNdjsonFile(file, (c) => ingestor.import(1, c), { progress: false });
  expect(first.imported.events).toBe(100);
  const again = await importNdjsonFile(file, (c) => ingestor.import(1, c), { progress: false });
  expect(again.imported.events).toBe(0);
  expect(again.duplicates).toBe(100);
  expect((await engine.query(`SELECT count(*) FROM events WHERE event = 'gz'`, [])).rows).toEqual([[100]]);
});
