/**
 * Import throughput through the durable Ingestor, in a fresh data directory: by default `Ingestor.importFile()`
 * (DuckDB reads the NDJSON.gz in chunks, JS runs identity; src/ingest/native-import.ts), or with
 * QUARRY_BENCH_IMPORT=rows the row-by-row path (import-file.ts → `Ingestor.import()`). Reports events/s and the
 * peak RSS of this process (which hosts DuckDB), then checks the stored data against the reference database: event
 * counts per name and the number of distinct persons once merges (person_overrides) are applied.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { DuckDbEngine } from '../src/engines/duckdb/duckdb-engine';
import { Ingestor } from '../src/ingest/ingestor';
import { importNdjsonFile } from '../src/ingest/import-file';
import { BENCH_DIR, datasetName, type DatasetSpec } from './dataset';
import { appenderLoad, bulkLoad, type LoadTiming } from './import-reference';
import type { RangeSpec } from './reference-sql';

export interface ImportBenchResult {
  file: string;
  events: number;
  persons: number;
  errors: number;
  duplicates: number;
  seconds: number;
  eventsPerSecond: number;
  peakRssMB: number;
  dbMB: number;
  chunkRows: number;
  /** native: Ingestor.importFile (DuckDB reads the NDJSON); rows: importNdjsonFile → Ingestor.import. */
  mode: 'native' | 'rows';
  /** CPU seconds of this process (which hosts DuckDB: all its threads) during the import. */
  cpuSeconds: number;
  /** Load average when the import ended (the machine is shared). */
  loadAverage: number[];
  checks: { name: string; ok: boolean; detail?: unknown }[];
  /** The target's references on the same file in the same run (bench/import-reference.ts). */
  reference?: { appender: LoadTiming; appenderReferenceTable: LoadTiming; bulkLoad: LoadTiming };
}

/** Samples process RSS every `everyMs` until stopped; returns the peak in MB. */
export function rssSampler(everyMs = 50): { stop(): number } {
  let peak = process.memoryUsage().rss;
  const t = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, everyMs);
  return {
    stop() {
      clearInterval(t);
      peak = Math.max(peak, process.memoryUsage().rss);
      return Math.round(peak / 1e6);
    },
  };
}

function dirSize(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    n += e.isDirectory() ? dirSize(p) : fs.statSync(p).size;
  }
  return n;
}

const num = (v: unknown) => (typeof v === 'bigint' ? Number(v) : Number(v));

export async function benchImport(
  file: string,
  spec: DatasetSpec,
  opts: { referenceDb?: string; range: RangeSpec; chunkRows?: number; keepDir?: boolean; mode?: 'native' | 'rows' },
): Promise<ImportBenchResult> {
  const chunkRows = opts.chunkRows ?? 10_000;
  // native (default): Ingestor.importFile, DuckDB reads the file; rows: the chunked row-by-row path (import-file.ts
  // → Ingestor.import), which the import command uses through a running server.
  const mode = opts.mode ?? (process.env.QUARRY_BENCH_IMPORT === 'rows' ? 'rows' : 'native');
  const dataDir = path.join(BENCH_DIR, `import-${datasetName(spec)}-${process.pid}`);
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.mkdirSync(dataDir, { recursive: true });
  const dbFile = path.join(dataDir, 'events.duckdb');
  const engine = await DuckDbEngine.open(dbFile);
  let ingestor: Ingestor | undefined;
  try {
    ingestor = await Ingestor.open({ dataDir, engine });
    const ing = ingestor;
    process.stderr.write(`[bench] importing ${path.relative(process.cwd(), file)} through the Ingestor…\n`);
    if (global.gc) global.gc();
    const rss = rssSampler();
    const cpu0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    const summary =
      mode === 'rows'
        ? await importNdjsonFile(file, (chunk) => ing.import(1, chunk), { chunkRows, progress: false })
        : await ing.importFile(1, file, {
            chunkRows,
            progress: false,
            // QUARRY_BENCH_IMPORT_CHUNK_BYTES: decompressed bytes per native chunk (default: the importer's).
            ...(process.env.QUARRY_BENCH_IMPORT_CHUNK_BYTES ? { chunkBytes: Number(process.env.QUARRY_BENCH_IMPORT_CHUNK_BYTES) } : {}),
          });
    await ing.flush();
    // Timed up to a checkpoint: rows not yet checkpointed cost their share later (a checkpoint that rewrote partly
    // filled row groups took ~1.7 s of CPU after a 1M-event import), so an import that leaves more of them would
    // otherwise look faster than it is.
    await engine.query('CHECKPOINT', []);
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const cpu = process.cpuUsage(cpu0);
    const cpuSeconds = Math.round((cpu.user + cpu.system) / 1e4) / 100;
    const peakRssMB = rss.stop();
    const loadAverage = os.loadavg().map((x) => Math.round(x * 100) / 100);
    process.stderr.write(
      `[bench] import: ${seconds.toFixed(1)} s wall, ${cpuSeconds} s CPU (all threads of this process; ` +
        `${((cpuSeconds * 1e6) / Math.max(1, summary.imported.events)).toFixed(1)} µs/event), load average ${loadAverage.join(' ')}\n`,
    );

    const checks: ImportBenchResult['checks'] = [];
    const byEvent = await engine.query('SELECT event, count(*) FROM events WHERE project_id = 1 GROUP BY 1 ORDER BY 1', []);
    const persons = await engine.query(
      `SELECT count(DISTINCT coalesce(o.override_person_id, e.person_id)) FROM events e
       LEFT JOIN person_overrides o ON o.project_id = e.project_id AND o.old_person_id = e.person_id WHERE e.project_id = 1`,
      [],
    );
    const got = { byEvent: byEvent.rows.map((r) => [r[0], num(r[1])]), persons: num(persons.rows[0][0]) };
    checks.push({ name: 'all events stored', ok: summary.imported.events === spec.events, detail: summary.imported.events });
    if (opts.referenceDb) {
      const inst = await DuckDBInstance.create(opts.referenceDb, { access_mode: 'READ_ONLY' });
      const conn = await inst.connect();
      try {
        const e = (await conn.runAndReadAll('SELECT event, count(*) FROM events WHERE project_id = 1 GROUP BY 1 ORDER BY 1')).getRows();
        const p = (await conn.runAndReadAll('SELECT count(DISTINCT person_id) FROM events WHERE project_id = 1')).getRows();
        const want = { byEvent: e.map((r) => [r[0], num(r[1])]), persons: num(p[0][0]) };
        checks.push({
          name: 'counts per event = reference',
          ok: JSON.stringify(want.byEvent) === JSON.stringify(got.byEvent),
          detail: { want: want.byEvent, got: got.byEvent },
        });
        checks.push({
          name: 'distinct persons after merges = reference',
          ok: want.persons === got.persons,
          detail: { want: want.persons, got: got.persons },
        });
      } finally {
        conn.closeSync();
        inst.closeSync();
      }
    }
    await ingestor.close();
    ingestor = undefined;
    await engine.close();
    const dbMB = Math.round(dirSize(dataDir) / 1e6);
    process.stderr.write(`[bench] import references: DuckDB appender fed from JS, DuckDB bulk load from the file…\n`);
    const reference = {
      appender: await appenderLoad(file, dataDir, 'quarry'),
      appenderReferenceTable: await appenderLoad(file, dataDir, 'reference'),
      bulkLoad: await bulkLoad(file, dataDir),
    };
    return {
      file: path.relative(process.cwd(), file),
      events: summary.imported.events,
      persons: summary.imported.persons,
      errors: summary.errorCount,
      duplicates: summary.duplicates,
      seconds: Math.round(seconds * 10) / 10,
      eventsPerSecond: Math.round(summary.imported.events / seconds),
      peakRssMB,
      dbMB,
      chunkRows,
      mode,
      cpuSeconds,
      loadAverage,
      checks,
      reference,
    };
  } finally {
    await ingestor?.close().catch(() => undefined);
    await engine.close().catch(() => undefined);
    if (!opts.keepDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
