/**
 * Benchmark datasets on disk, cached under `.bench-data/` (gitignored) by (events, persons, seed):
 * - an NDJSON.gz file in the import format (persons first, then events in time order), and
 * - a DuckDB file loaded directly (no ingestion): the events table of src/engines/duckdb/schema.ts with
 *   project_id = 1 and each event's person id already resolved (merges applied), as the hand-written reference
 *   SQL assumes.
 * Files are written under a temporary name and renamed when complete, so an interrupted run never leaves a
 * truncated file that a later run would trust.
 */
import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { createGzip } from 'node:zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { DUCKDB_SCHEMA } from '../src/engines/duckdb/schema';
import { demoEventsWithPersons, demoPersons, type DemoDataOptions } from '../src/ingest/demo-data';

export const BENCH_DIR = path.resolve(process.env.QUARRY_BENCH_DIR ?? '.bench-data');

export interface DatasetSpec {
  events: number;
  persons: number;
  seed: number;
}

export function demoOptions(spec: DatasetSpec): DemoDataOptions {
  return { events: spec.events, persons: spec.persons, seed: spec.seed };
}

export function datasetName(spec: DatasetSpec): string {
  return `demo-${spec.events}e-${spec.persons}p-s${spec.seed}`;
}

function ensureDir(): void {
  fs.mkdirSync(BENCH_DIR, { recursive: true });
}

function log(msg: string): void {
  process.stderr.write(`[bench] ${msg}\n`);
}

/** Buffered writer with backpressure (strings joined into ~1 MB writes). */
class LineWriter {
  private buf: string[] = [];
  private size = 0;
  constructor(private readonly out: NodeJS.WritableStream) {}
  async line(s: string): Promise<void> {
    this.buf.push(s);
    this.size += s.length + 1;
    if (this.size >= 1 << 20) await this.flush();
  }
  async flush(): Promise<void> {
    if (!this.buf.length) return;
    const chunk = this.buf.join('\n') + '\n';
    this.buf = [];
    this.size = 0;
    if (!this.out.write(chunk)) await once(this.out, 'drain');
  }
}

/** The NDJSON.gz of the dataset (created when missing). Returns its path. */
export async function ensureNdjson(spec: DatasetSpec): Promise<string> {
  ensureDir();
  const file = path.join(BENCH_DIR, `${datasetName(spec)}.ndjson.gz`);
  if (fs.existsSync(file)) return file;
  const tmp = `${file}.tmp-${process.pid}`;
  const started = Date.now();
  log(`writing ${path.relative(process.cwd(), file)} (${spec.events.toLocaleString('en-US')} events)…`);
  const gz = createGzip({ level: 1 });
  const out = fs.createWriteStream(tmp);
  gz.pipe(out);
  const w = new LineWriter(gz);
  for (const p of demoPersons(demoOptions(spec))) await w.line(JSON.stringify(p));
  for (const e of demoEventsWithPersons(demoOptions(spec)))
    await w.line(
      JSON.stringify({ uuid: e.uuid, event: e.event, distinct_id: e.distinct_id, timestamp: e.timestamp, properties: e.properties }),
    );
  await w.flush();
  gz.end();
  await once(out, 'close');
  fs.renameSync(tmp, file);
  log(`wrote ${(fs.statSync(file).size / 1e6).toFixed(0)} MB in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return file;
}

function csvQuote(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

function sqlTs(ms: number): string {
  return new Date(ms).toISOString().slice(0, 23).replace('T', ' ');
}

/**
 * The reference DuckDB file (created when missing): events loaded from CSV chunks with COPY (DuckDB's bulk
 * path), persons and distinct ids from the persons stream. Returns its path.
 */
export async function ensureReferenceDb(spec: DatasetSpec): Promise<string> {
  ensureDir();
  const file = path.join(BENCH_DIR, `${datasetName(spec)}.duckdb`);
  if (fs.existsSync(file)) return file;
  const tmp = `${file}.tmp-${process.pid}`;
  fs.rmSync(tmp, { force: true });
  fs.rmSync(`${tmp}.wal`, { force: true });
  const started = Date.now();
  log(`building reference DuckDB ${path.relative(process.cwd(), file)} (${spec.events.toLocaleString('en-US')} events)…`);
  const instance = await DuckDBInstance.create(tmp);
  const conn = await instance.connect();
  try {
    for (const ddl of DUCKDB_SCHEMA) await conn.run(ddl);
    const csv = path.join(BENCH_DIR, `load-${process.pid}.csv`);
    const copy = async (table: string) => {
      await conn.run(`COPY ${table} FROM '${csv}' (FORMAT csv, HEADER false, QUOTE '"', ESCAPE '"', NULLSTR '\\N')`);
      fs.rmSync(csv);
    };
    const createdAt = sqlTs(Date.UTC(2024, 0, 1));
    // Persons and their identified distinct ids (anonymous device persons exist only through their events).
    {
      const out = fs.createWriteStream(csv);
      const w = new LineWriter(out);
      for (const p of demoPersons(demoOptions(spec)))
        await w.line(`1,${p.id},${sqlTs(Date.parse(p.created_at))},${csvQuote(JSON.stringify(p.properties))},true,1`);
      await w.flush();
      out.end();
      await once(out, 'close');
      await copy('persons');
      await conn.run(
        `INSERT INTO person_distinct_ids (project_id, distinct_id, person_id, version) SELECT 1, 'user-' || (row_number() OVER ())::VARCHAR, id, 0 FROM (SELECT id FROM persons ORDER BY rowid)`,
      );
    }
    const CHUNK = 1_000_000;
    let out: fs.WriteStream | null = null;
    let w: LineWriter | null = null;
    let n = 0;
    const finish = async () => {
      if (!out || !w) return;
      await w.flush();
      out.end();
      await once(out, 'close');
      await copy('events');
      out = null;
      w = null;
    };
    for (const e of demoEventsWithPersons(demoOptions(spec))) {
      if (!w) {
        out = fs.createWriteStream(csv);
        w = new LineWriter(out);
      }
      await w.line(
        `1,${e.uuid},${e.event},${csvQuote(e.distinct_id)},${e.person_id},${sqlTs(e.timestamp_ms)},${csvQuote(JSON.stringify(e.properties))},${e.session_id},${e.elements_chain === null ? '\\N' : csvQuote(e.elements_chain)},${createdAt}`,
      );
      if (++n % CHUNK === 0) {
        await finish();
        log(`  ${n.toLocaleString('en-US')} events loaded (${((Date.now() - started) / 1000).toFixed(0)} s)`);
      }
    }
    await finish();
    await conn.run('CHECKPOINT');
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
  fs.renameSync(tmp, file);
  log(`built in ${((Date.now() - started) / 1000).toFixed(1)} s, ${(fs.statSync(file).size / 1e6).toFixed(0)} MB`);
  return file;
}
