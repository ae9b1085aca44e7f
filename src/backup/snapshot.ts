/**
 * Consistent backups of a data directory while the server keeps serving and ingesting, and their restore.
 *
 * A backup directory holds:
 * - `quarry.sqlite`: the metadata store, through SQLite's `VACUUM INTO` (one read transaction: a consistent
 *   snapshot, whatever the server writes meanwhile; WAL-mode pages not yet checkpointed are included);
 * - `events.duckdb`: the event store, through DuckDB's `COPY FROM DATABASE` run by the server's own engine on its
 *   writer connection (the engine's write lock: no ingest batch, delete or DDL commits during the copy, so the
 *   events and the ingest checkpoint stored with them are one state);
 * - `ingest-log/`: the durable ingest log's segments, copied BEFORE the event store. Every event acknowledged
 *   before the backup began is in the log copy or, if the flusher already applied it (and perhaps released its
 *   segment), in the event store, whose checkpoint says up to which record. On the first start after a restore,
 *   the log records past that checkpoint are replayed, exactly as after a crash. A segment being appended while it
 *   is copied is cut after its last complete line (only events acknowledged after the backup began can be there);
 * - `manifest.json`, written last: format, time, checkpoint and counts. A directory without it is no backup.
 *
 * Only the embedded DuckDB event store is covered: with QUARRY_EVENTS_ENGINE=clickhouse, events live in ClickHouse
 * and are backed up with ClickHouse's own tools (BACKUP … TO Disk, clickhouse-backup); Quarry refuses rather than
 * produce a backup without events.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { validationError } from '../errors';
import { DuckDbEngine } from '../engines/duckdb/duckdb-engine';
import type { Services } from '../services';

export const BACKUP_FORMAT = 'quarry-backup/1';
export const MANIFEST = 'manifest.json';
const SQLITE = 'quarry.sqlite';
const DUCKDB = 'events.duckdb';
const INGEST_LOG = 'ingest-log';
const SEGMENT_RE = /^wal-\d{16}\.log$/;

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  createdAt: string;
  /** Ingest-log sequence number whose events are all in `events.duckdb`; later log records replay at start. */
  checkpoint: number;
  /** Ingest-log segments copied, and the records past the checkpoint they hold (replayed at the first start). */
  ingestLog: { segments: string[]; bytes: number };
  /** Rows in the backup's event store (before replay) and metadata store. */
  counts: { events: number; persons: number; projects: number; insights: number; endpoints: number; keys: number };
  durationMs: number;
}

/** The directory a backup is written to must be new or empty: a backup never overwrites anything. */
export async function ensureEmptyDir(dir: string, what: string): Promise<void> {
  await fsp.mkdir(dir, { recursive: true });
  const entries = await fsp.readdir(dir);
  if (entries.length) throw validationError(`${what} ${dir} is not empty.`, null, 'directory_not_empty');
}

/** SQL string literal (DuckDB and SQLite): the only text spliced here is a path Quarry chose. */
const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** Copies the complete lines of one segment (a segment being appended may end in a torn line). */
async function copyCompleteLines(from: string, to: string): Promise<{ bytes: number; torn: boolean }> {
  let buf: Buffer;
  try {
    buf = await fsp.readFile(from);
  } catch (e) {
    // released by the flusher after listing: all its records are applied, so they are in the event store
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { bytes: -1, torn: false };
    throw e;
  }
  const end = buf.lastIndexOf(0x0a) + 1;
  await fsp.writeFile(to, buf.subarray(0, end));
  return { bytes: end, torn: end !== buf.length };
}

/** Snapshots the served data directory into `target` (new or empty). See the module comment for the guarantees. */
export async function snapshotDataDir(services: Services, target: string): Promise<BackupManifest> {
  const engine = services.engine;
  if (!(engine instanceof DuckDbEngine)) {
    throw validationError(
      'Events live in ClickHouse (QUARRY_EVENTS_ENGINE=clickhouse): back them up with ClickHouse itself. quarry backup covers the embedded DuckDB event store.',
      null,
      'backup_unsupported',
    );
  }
  const started = performance.now();
  await ensureEmptyDir(target, 'Backup directory');
  try {
    return await snapshotInto(services, engine, target, started);
  } catch (e) {
    // the directory was empty: leave it so, never a backup that looks complete but is not
    for (const entry of await fsp.readdir(target).catch(() => [] as string[])) await fsp.rm(path.join(target, entry), { recursive: true, force: true });
    throw e;
  }
}

async function snapshotInto(services: Services, engine: DuckDbEngine, target: string, started: number): Promise<BackupManifest> {
  const dataDir = services.config.dataDir;

  // 1. The ingest log, first (see the module comment for why this order loses no acknowledged event).
  const logDir = path.join(dataDir, INGEST_LOG);
  const outLog = path.join(target, INGEST_LOG);
  await fsp.mkdir(outLog);
  const names = (await fsp.readdir(logDir).catch(() => [] as string[])).filter((n) => SEGMENT_RE.test(n)).sort();
  const segments: string[] = [];
  let logBytes = 0;
  for (const n of names) {
    const r = await copyCompleteLines(path.join(logDir, n), path.join(outLog, n));
    if (r.bytes < 0) continue;
    segments.push(n);
    logBytes += r.bytes;
    if (r.torn) break; // the segment being written: later ones (a rotation meanwhile) hold only later records
  }

  // 2. The event store, by the engine itself under its write lock.
  const alias = `quarry_backup_${randomBytes(6).toString('hex')}`;
  const main = String((await engine.query('SELECT current_database()')).rows[0][0]);
  await engine.exec(`ATTACH ${lit(path.join(target, DUCKDB))} AS ${alias}`);
  let checkpoint: number;
  let events: number;
  let persons: number;
  try {
    await engine.exec(`COPY FROM DATABASE "${main.replace(/"/g, '""')}" TO ${alias}`);
    const r = await engine.query(
      `SELECT (SELECT coalesce(max(applied_seq), 0) FROM ${alias}.ingest_checkpoint), (SELECT count(*) FROM ${alias}.events), (SELECT count(*) FROM ${alias}.persons)`,
    );
    [checkpoint, events, persons] = r.rows[0].map(Number);
    await engine.exec(`CHECKPOINT ${alias}`); // the copy is one self-contained file, no .wal beside it
  } finally {
    await engine.exec(`DETACH ${alias}`).catch(() => undefined);
  }

  // 3. The metadata store: one consistent read transaction.
  await services.store.db.query(`VACUUM INTO ${lit(path.join(target, SQLITE))}`);
  const count = async (table: string) => Number((await services.store.db.query(`SELECT count(*) AS n FROM ${table}`))[0].n);
  const tables = await services.store.db.query(`SELECT name FROM sqlite_master WHERE type = 'table'`);
  const has = (t: string) => tables.some((x: { name: string }) => x.name === t);
  const counts = {
    events,
    persons,
    projects: await count('projects'),
    insights: has('insights') ? await count('insights') : 0,
    endpoints: has('endpoints') ? await count('endpoints') : 0,
    keys: await count('personal_api_keys'),
  };

  const manifest: BackupManifest = {
    format: BACKUP_FORMAT,
    createdAt: new Date().toISOString(),
    checkpoint,
    ingestLog: { segments, bytes: logBytes },
    counts,
    durationMs: Math.round(performance.now() - started),
  };
  // written last, through a rename: its presence means the backup is complete
  await fsp.writeFile(path.join(target, `${MANIFEST}.tmp`), JSON.stringify(manifest, null, 2) + '\n');
  await fsp.rename(path.join(target, `${MANIFEST}.tmp`), path.join(target, MANIFEST));
  return manifest;
}

/** Reads and checks a backup's manifest; throws a message the CLI shows as is. */
export function readManifest(dir: string): BackupManifest {
  let m: BackupManifest;
  try {
    m = JSON.parse(fs.readFileSync(path.join(dir, MANIFEST), 'utf8')) as BackupManifest;
  } catch {
    throw new Error(`${dir} is not a Quarry backup (no readable ${MANIFEST}; an interrupted backup has none).`);
  }
  if (m.format !== BACKUP_FORMAT) throw new Error(`${dir}: unknown backup format "${String(m.format)}" (this Quarry reads ${BACKUP_FORMAT}).`);
  for (const f of [SQLITE, DUCKDB, ...m.ingestLog.segments.map((s) => path.join(INGEST_LOG, s))]) {
    if (!fs.existsSync(path.join(dir, f))) throw new Error(`${dir} is incomplete: ${f} is missing.`);
  }
  return m;
}

/**
 * Copies a backup into an empty data directory. The caller has checked that no server holds it. The first start
 * on it replays the ingest-log records past the backup's checkpoint.
 */
export async function restoreInto(backupDir: string, dataDir: string): Promise<BackupManifest> {
  const entries = await fsp.readdir(dataDir).catch(() => [] as string[]);
  if (entries.length) throw new Error(`The data directory ${dataDir} is not empty: restore only into an empty (or new) directory.`);
  const m = readManifest(backupDir);
  await fsp.mkdir(dataDir, { recursive: true });
  await fsp.mkdir(path.join(dataDir, INGEST_LOG));
  for (const s of m.ingestLog.segments) await fsp.copyFile(path.join(backupDir, INGEST_LOG, s), path.join(dataDir, INGEST_LOG, s));
  await fsp.copyFile(path.join(backupDir, DUCKDB), path.join(dataDir, DUCKDB));
  // the metadata store last: a data dir with quarry.sqlite is a data dir
  await fsp.copyFile(path.join(backupDir, SQLITE), path.join(dataDir, SQLITE));
  return m;
}
