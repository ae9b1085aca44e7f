/**
 * Native bulk import: DuckDB parses the NDJSON, JavaScript runs identity only where it must.
 *
 * The row-by-row path (import-file.ts → Ingestor.import) spends ~25 µs of one core per event on gunzip, line
 * splitting, JSON.parse, validation, re-serialization and the appender. Here the file is cut into chunk files of
 * ~{@link DEFAULT_CHUNK_BYTES}, at a multiple of DuckDB's row group size when the lines allow ({@link chunkCut}:
 * gunzip runs on libuv's thread pool, the main thread only counts newlines), and each chunk is staged (1–2, needing
 * only DuckDB's writer connection) and then applied (3–5, under the ingest lock, strictly in file order). The next
 * chunk is staged on DuckDB's threads while this one's identity pass runs here, so both cores stay busy through the
 * JS steps. The engine's periodic checkpoint and cache trim are held off meanwhile; the import checkpoints once at
 * its end.
 *
 * 1–2. One statement: `read_json` parses the chunk (in parallel) with every key the importer reads typed as JSON,
 *    and validates and normalizes the rows that have the common shape (string event and distinct id, canonical or
 *    absent uuid and timestamp, object properties, nothing exotic) into one temporary table: these are "fast"
 *    rows. Every other row — persons, numeric distinct ids, offsets, top-level `$set`, odd timestamps, group
 *    rows (`$groups`, `$groupidentify`: groups.ts, applied in file order once duplicates are known), autocapture
 *    `$elements` and any `$elements_chain` but a plain one, anything invalid — keeps its raw values, is rebuilt as an object in JS and goes through the very functions the
 *    row-by-row path uses (`normalizeEvent`, `validateImportPerson`), so errors and normalization are the same,
 *    per line.
 * 3. Duplicates are removed: a uuid seen earlier in the file, or already stored for the project.
 * 4. Identity runs in JS, in file order, over the rows that can change it: events carrying `$set`,
 *    `$set_once`, `$unset` or an identify-like name, persons, and the first event of each distinct id. Each
 *    distinct id → person change is recorded with the row position that caused it (`ProjectIdentity.onAttach`),
 *    for the distinct ids of the chunk's rows only, named by their first row's position.
 * 5. Every event gets its person by an ASOF join on those changes (the mapping of its distinct id as of its
 *    position), and is inserted with the identity rows in one transaction.
 *
 * Per event on the bench dataset (1M events, 2 cores shared with other work, CPU of all threads; ~12.5 µs in
 * all): staging ~4.4 µs (read_json ~0.5, extracting the properties it checks ~1.2, the checks ~0.9, keeping the
 * properties in the temporary table ~0.7, the rest of the normalization and table ~1.1), insert ~2.6 µs (mostly
 * compressing the properties column: FSST), the other statements ~1.3 µs (identity rows, duplicates, commit, the
 * final checkpoint), gunzip ~1.3 µs, this thread ~2.2 µs (identity pass ~0.6, garbage collection ~0.5, identity
 * rows through the appender ~0.4). The checks (regular expressions, casts) are not where the time goes: done
 * without the regular expressions they cost ~3% less. Duplicates against stored events stay flat over a 10M-event
 * import (~50 ms a chunk): the join's min/max filter on the chunk's uuids prunes the stored row groups when uuids
 * are time-ordered (v7: ~2 ms a chunk against 5M stored); with random uuids it scans every stored uuid of the
 * project once per chunk (~130 ms of CPU per 250k-event chunk against 5M stored events).
 *
 * A chunk DuckDB cannot read as plain NDJSON (malformed JSON, a non-object line, duplicate keys, blank lines,
 * a line over 16 MB, lone surrogates) is imported by the row-by-row path instead, with the same results.
 *
 * Differences from the row-by-row path, by design: properties are stored as DuckDB serializes them (minified,
 * numbers in shortest form); duplicates are detected against every stored event of the project, not only the
 * recent-uuid set; persons are applied at their position in the file (the row-by-row path applies a chunk's
 * persons before its events); an explicit `"event": null` on a row with `distinct_ids` reads as a person.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DuckDBDataChunk, DuckDBTimestampValue, DuckDBUUIDValue, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import type { DuckDbEngine, WriteBatch } from '../engines/duckdb/duckdb-engine';
import { sizeBytes } from '../engines/duckdb/size';
import { CaptureError, normalizeEvent, type ParsedEvent } from './capture-payload';
import { MAX_ELEMENTS_CHAIN_CHARS } from './elements-chain';
import type { GroupStore } from './groups';
import { propertiesJsonText } from './groups';
import type { IdentityStore } from './identity';
import {
  importNdjsonFile,
  importProgress,
  importTally,
  isPerson,
  openInput,
  type ImportChunk,
  type ImportFileOptions,
  type ImportFileSummary,
  type ImportLineError,
} from './import-file';
import type { ImportResult } from './ingestor';

/** Chunks imported natively and chunks handed to the row-by-row path, since start (diagnostics, tests). */
export const nativeImportStats = { nativeChunks: 0, fallbackChunks: 0 };

/**
 * Decompressed bytes per chunk. Larger amortizes per-chunk work (each distinct id goes through the identity pass
 * once per chunk); DuckDB holds about two chunks, the one applied and the next one staged (spilling past its memory
 * limit).
 */
export const DEFAULT_CHUNK_BYTES = 128 * 1024 * 1024;

/** DuckDB memory limit while a native import runs (only ever lowered). See {@link NativeImportOptions.memoryLimit}. */
export const DEFAULT_IMPORT_MEMORY_LIMIT = '512MB';

export interface NativeImportDeps {
  engine: DuckDbEngine;
  identity: IdentityStore;
  /** Group types and groups (groups.ts): the rows that concern them are applied in JS, in file order. */
  groups: GroupStore;
  /** Runs `fn` under the ingest lock (serialized with the durable log's flusher and other imports). */
  locked<T>(fn: () => Promise<T>): Promise<T>;
  /** The row-by-row import (takes the ingest lock itself): used for chunks DuckDB cannot read. */
  importRows(projectId: number, chunk: ImportChunk): Promise<ImportResult>;
  /** Moves the identity and group changes into the batch (and logs ingestion warnings). */
  drainIdentity(batch: WriteBatch): void;
  /** Validates a person row exactly as the row-by-row import does. */
  validatePerson(raw: unknown, now: number): ReturnType<typeof import('./ingestor').validateImportPerson>;
  /** Records stored uuids in the recent-uuid set (capture retries of imported events are then detected). */
  rememberUuids(projectId: number, uuids: string[]): void;
  /** Most uuids to remember at the end (half the recent-set capacity). */
  rememberLimit: number;
  /** Directory for the chunk files (created and removed here). */
  tmpDir: string;
}

export interface NativeImportOptions extends ImportFileOptions {
  /** Decompressed bytes per chunk. Default {@link DEFAULT_CHUNK_BYTES}. */
  chunkBytes?: number;
  /**
   * DuckDB's memory limit for the duration of the import, when lower than the configured one. Default
   * {@link DEFAULT_IMPORT_MEMORY_LIMIT}. The import's working set is about two chunks; above that DuckDB would
   * only keep the blocks it just wrote cached (RSS grew to ~1.7 GB over a 10M-event import). Queries running
   * meanwhile spill to disk sooner.
   */
  memoryLimit?: string;
}

interface ChunkFile {
  file: string;
  /** 1-based number of the chunk's first line in the (decompressed) input. */
  firstLine: number;
  /** Lines in the chunk (newline-terminated, plus an unterminated last line). */
  lines: number;
  /** Compressed bytes read from the input so far (for progress). */
  bytesRead: number;
}

/** Every top-level key the importer reads (normalizeEvent, isPerson, validateImportPerson), typed JSON. */
const RAW_KEYS = [
  'event',
  'distinct_id',
  '$distinct_id',
  'properties',
  '$set',
  '$set_once',
  'uuid',
  'timestamp',
  'offset',
  'type',
  'distinct_ids',
  'id',
  'created_at',
  'is_identified',
] as const;

const q = (id: string) => `"${id.replace(/"/g, '""')}"`;
const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * The single pass over a chunk file ($1 = now, epoch ms) into `imp_n`, one row per line in file order (a row's
 * position is its rowid: CREATE TABLE AS keeps the scan's order). `read_json` parses each line once, with every key
 * the importer reads typed as JSON, and the same statement validates and normalizes the rows that have the common
 * shape (string event and distinct id, canonical or absent uuid and timestamp, object properties, nothing
 * exotic): these are `ok` here only when this normalization is exactly what normalizeEvent would produce. The
 * conditions are conservative; every other row keeps its raw values in `raw` (a JSON array in {@link RAW_KEYS}
 * order, null for an absent key: read_json reads an explicit null as absent too) for JS, which then fills in the
 * row. Fast rows keep their properties as read (`props`), less a plain `$elements_chain` (a non-empty string within
 * MAX_ELEMENTS_CHAIN_CHARS: the chain as sent, `ec`), which normalizeEvent moves out of the properties the same way
 * (elements-chain.ts; the bench dataset's autocapture events, 18% of it, stay fast). The other columns are computed
 * for every row, but only `ok` rows are ever read (a CASE on `fast` around each cost more than the values).
 *
 * Reading and normalizing in one statement materializes the chunk once; a raw staging table plus a normalized one
 * joined back to it for the properties cost more CPU per chunk (read + normalize ~2.0 s → ~1.8 s, insert without
 * the join back, on 250k events of the bench dataset under load).
 */
export function normalizeSql(file: string, table = 'imp_n'): string {
  const cols = RAW_KEYS.map((k) => `${lit(k)}: 'JSON'`).join(', ');
  return `CREATE OR REPLACE TEMP TABLE ${table} AS
WITH a AS (
  SELECT *, event::VARCHAR AS ej, distinct_id::VARCHAR AS dj, uuid::VARCHAR AS uj, "timestamp"::VARCHAR AS tj,
    properties::VARCHAR AS p,
    "type" IS NULL AND distinct_ids IS NULL AND "$set" IS NULL AND "$set_once" IS NULL AND "offset" IS NULL
      AND "$distinct_id" IS NULL AND (properties IS NULL OR starts_with(properties::VARCHAR, '{')) AS plain
  FROM read_json(${lit(file)}, format = 'newline_delimited', columns = {${cols}}, maximum_object_size = 16777216)
), a2 AS (
  SELECT *,
    CASE WHEN p IS NOT NULL THEN json_extract(p, ['$."$session_id"', '$."$elements_chain"', '$."$process_person_profile"',
                                                   '$."$set"', '$."$set_once"', '$."$unset"', '$."$anon_distinct_id"', '$.alias']) END AS sx
  FROM a
), b AS (
  SELECT *,
    CASE WHEN starts_with(ej, '"') THEN (CASE WHEN contains(ej, '\\') THEN ej::JSON->>'$' ELSE ej[2:-2] END) END AS ev,
    CASE WHEN starts_with(dj, '"') THEN (CASE WHEN contains(dj, '\\') THEN dj::JSON->>'$' ELSE dj[2:-2] END) END AS d,
    uj IS NULL OR uj = '""' AS gen,
    tj IS NULL OR tj = '""' AS t_now,
    sx[1] AS x1, sx[2] AS x2, sx[3] AS x3, sx[4] AS x4, sx[5] AS x5, sx[6] AS x6, sx[7] AS x7, sx[8] AS x8
  FROM a2
), c AS (
  SELECT *,
    ev IN ('$identify', '$create_alias', '$merge_dangerously') OR x4 IS NOT NULL OR x5 IS NOT NULL OR x6 IS NOT NULL AS has_ix
  FROM b
), f AS (
  SELECT *,
    coalesce(plain
      AND strlen(ev) <= 200 AND regexp_matches(ev, '[0-9A-Za-z$_]')
      AND (x3 IS NULL OR (x3::VARCHAR = 'false' AND x4 IS NULL AND x5 IS NULL AND x6 IS NULL))
      AND strlen(d) <= 200 AND regexp_matches(d, '[0-9A-Za-z]') AND NOT contains(d, chr(0))
      AND (gen OR regexp_full_match(uj, '"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"'))
      AND (t_now OR (regexp_full_match(tj, '"[1-9][0-9]{3}-[0-9]{2}-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{3})?Z"')
                     AND try_cast(tj[2:-2] AS TIMESTAMP) IS NOT NULL))
      AND (NOT has_ix OR (coalesce(json_type(x4), 'NULL') IN ('OBJECT', 'NULL') AND coalesce(json_type(x5), 'NULL') IN ('OBJECT', 'NULL')))
      AND (p IS NULL OR strlen(p) <= 524288)
      AND ev <> '$groupidentify' AND (p IS NULL OR NOT (contains(p, '"$groups"') OR contains(p, '"$elements"')))
      AND (x2 IS NULL OR (json_type(x2) = 'VARCHAR' AND strlen(x2::VARCHAR) BETWEEN 3 AND ${MAX_ELEMENTS_CHAIN_CHARS + 2}))
      AND CASE WHEN p IS NULL OR NOT regexp_matches(p, ':[\\[{]') THEN true
               ELSE strlen(p) - strlen(replace(replace(p, '{', ''), '[', '')) <= 60 END, false) AS fast
  FROM c
)
SELECT fast AS ok, false AS dup, gen,
  CASE WHEN gen THEN uuidv7() ELSE try_cast(uj[2:-2] AS UUID) END AS uuid,
  ev, d,
  CASE WHEN t_now THEN epoch_ms($1::BIGINT) ELSE try_cast(tj[2:-2] AS TIMESTAMP) END AS ts,
  CASE WHEN x2 IS NOT NULL THEN json_merge_patch(properties, '{"$elements_chain": null}') ELSE properties END AS props,
  NULL::VARCHAR AS pj,
  CASE WHEN NOT fast THEN json_array(${RAW_KEYS.map(q).join(', ')})::VARCHAR END AS raw,
  CASE WHEN starts_with(x1::VARCHAR, '"') THEN x1->>'$' END AS sid,
  CASE WHEN starts_with(x2::VARCHAR, '"') THEN x2->>'$' END AS ec,
  coalesce(x3::VARCHAR = 'false', false) AS pppf,
  CASE WHEN has_ix THEN json_array(x4, x5, x6, x7, x8)::VARCHAR END AS ident
FROM f`;
}

/** Identity keys as the SQL `ident` array carries them (positions 0..4). */
const IDENT_KEYS = ['$set', '$set_once', '$unset', '$anon_distinct_id', 'alias'] as const;

/**
 * DuckDB's row group size (rows). An insert of a whole number of row groups leaves no partly filled group behind; a
 * partly filled one between full ones makes a later checkpoint merge it with the following groups, rewriting them
 * all (measured: 4 inserts of 250,000 events, a checkpoint of ~1.1 s of CPU; of 245,760 events, ~6 ms).
 */
export const ROW_GROUP_ROWS = 122_880;

/**
 * Where to cut the chunk being written, as an index into `b` (the next piece of input) just past a line end, or -1
 * to take all of `b`. The chunk holds `bytes` bytes and `lines` line ends so far. It is cut at a multiple of
 * {@link ROW_GROUP_ROWS} lines once another row group at the chunk's average line length would pass `chunkBytes`
 * (so that a chunk of events is inserted as whole row groups), and in any case at the first line end at or past
 * `chunkBytes` (long lines).
 */
export function chunkCut(b: Buffer, bytes: number, lines: number, chunkBytes: number): number {
  const byteCut = bytes + b.length >= chunkBytes ? b.indexOf(10, Math.max(0, chunkBytes - bytes - 1)) : -1;
  const limit = byteCut >= 0 ? byteCut : b.length;
  let k = lines;
  for (let i = b.indexOf(10); i >= 0 && i < limit; i = b.indexOf(10, i + 1)) {
    if (++k % ROW_GROUP_ROWS === 0) {
      const size = bytes + i + 1;
      if (size + size / (k / ROW_GROUP_ROWS) > chunkBytes) return i;
    }
  }
  return byteCut;
}

/**
 * Splits the decompressed input into chunk files of about `chunkBytes`, cut at line ends (see {@link chunkCut}). Two
 * files alternate.
 */
async function* chunkFiles(file: string, tmpDir: string, chunkBytes: number): AsyncGenerator<ChunkFile> {
  // 1 MiB pieces: with zlib's 16 KiB ones, the per-piece overhead of reading and writing was ~1.3 s per 1M events.
  const { stream, raw } = await openInput(file, 1 << 20);
  let n = 0;
  let line = 1;
  let cur: { fh: fsp.FileHandle; file: string; bytes: number; lines: number; firstLine: number; tail: boolean } | null = null;
  const open = async () => {
    const f = path.join(tmpDir, `chunk-${n++ % 2}.ndjson`);
    cur = { fh: await fsp.open(f, 'w'), file: f, bytes: 0, lines: 0, firstLine: line, tail: false };
  };
  const countLines = (b: Buffer) => {
    let k = 0;
    for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) k++;
    return k;
  };
  const write = async (b: Buffer) => {
    if (!b.length) return;
    const c = cur!;
    const k = countLines(b);
    c.lines += k;
    line += k;
    c.tail = b[b.length - 1] !== 10;
    c.bytes += b.length;
    await c.fh.write(b);
  };
  const close = async (): Promise<ChunkFile> => {
    const c = cur!;
    cur = null;
    await c.fh.close();
    const lines = c.lines + (c.tail ? 1 : 0);
    return { file: c.file, firstLine: c.firstLine, lines, bytesRead: raw.bytesRead };
  };
  try {
    await open();
    for await (const piece of stream as AsyncIterable<Buffer>) {
      let b = piece;
      // A piece may hold several chunks' worth.
      for (;;) {
        const cut = chunkCut(b, cur!.bytes, cur!.lines, chunkBytes);
        if (cut < 0) break;
        await write(b.subarray(0, cut + 1));
        yield await close();
        await open();
        b = b.subarray(cut + 1);
      }
      await write(b);
    }
    if (cur!.bytes > 0) yield await close();
  } finally {
    if (cur) await (cur as { fh: fsp.FileHandle }).fh.close().catch(() => undefined);
    raw.destroy();
  }
}

/**
 * A row the identity pass reads: position, event (null without identity properties), distinct id, timestamp (ms),
 * identity properties or null (IDENT_KEYS order), personless (`$process_person_profile: false`: only looked at, for
 * the person its distinct id already has).
 */
type IdentRow = [number, string | null, string, number, unknown[] | null, boolean];

interface ChunkResult {
  persons: number;
  events: number;
  duplicates: number;
  errors: ImportLineError[];
}

const DEBUG = process.env.QUARRY_IMPORT_DEBUG === '1';
let lastMark = 0;
let lastCpu = process.cpuUsage();
/** QUARRY_IMPORT_DEBUG=1: wall and process CPU time (all threads) of each step on stderr. */
function mark(label: string): void {
  if (!DEBUG) return;
  const t = performance.now();
  const cpu = process.cpuUsage(lastCpu);
  if (label) process.stderr.write(`[import] ${label} ${(t - lastMark).toFixed(0)} ms, cpu ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms\n`);
  lastMark = t;
  lastCpu = process.cpuUsage();
}

/** A chunk file read into its staging table (steps 1–2), or `ok: false` when DuckDB cannot read it as plain NDJSON. */
interface StagedChunk {
  c: ChunkFile;
  /** Its staging table (two alternate: the next chunk is staged while this one is applied). */
  table: string;
  /** Epoch ms standing for "now" in this chunk (events without timestamp, created_at). */
  now: number;
  ok: boolean;
}

/**
 * Steps 1–2 of one chunk: `read_json` + normalization into `table`. Needs only the writer connection, not the ingest
 * lock, so it runs while the previous chunk's identity pass runs in JS. `ok` is false (and no table is left) when
 * DuckDB cannot read the file as plain NDJSON (malformed, a non-object line, duplicate keys, blank lines: rows ≠
 * lines): the caller imports that chunk row by row.
 */
function stageChunk(engine: DuckDbEngine, c: ChunkFile, table: string): Promise<StagedChunk> {
  const now = Date.now();
  return engine.withWriter(async (w) => {
    let ok = true;
    try {
      await w.run(normalizeSql(c.file, table), [now]);
      ok = Number((await w.runAndReadAll(`SELECT count(*) FROM ${table}`)).getRows()[0][0]) === c.lines;
    } catch {
      ok = false;
    }
    if (!ok) await w.run(`DROP TABLE IF EXISTS ${table}`);
    mark(`stage ${table} ${ok ? 'ok' : 'not plain NDJSON'}`);
    return { c, table, now, ok };
  });
}

/**
 * Steps 3–5 of a staged chunk, under the ingest lock. `startNext` is called once the chunk's rows for the identity
 * pass are read, so that the next chunk's staging (DuckDB's threads) overlaps with the identity pass (this thread).
 * The staging table is dropped whatever happens.
 */
async function applyChunk(deps: NativeImportDeps, projectId: number, s: StagedChunk, startNext: () => void): Promise<ChunkResult> {
  const { engine } = deps;
  const { c, table: t, now } = s;
  mark('');
  const errors: ImportLineError[] = [];
  type PersonRow = Exclude<ReturnType<NativeImportDeps['validatePerson']>, { error: string }>;
  const persons: { pos: number; row: PersonRow }[] = [];
  const histFile = path.join(path.dirname(c.file), 'history.csv');
  const count = async (w: DuckDBConnection, sql: string) => Number((await w.runAndReadAll(sql)).getRows()[0][0]);
  const dropAll = () =>
    engine.withWriter(async (w) => {
      for (const x of [t, 'imp_js', 'imp_g', 'imp_h', 'imp_d']) await w.run(`DROP TABLE IF EXISTS ${x}`);
    });

  // 3: rebuild the other rows in JS, mark duplicates, read the rows for the identity pass.
  let staged: { events: number; duplicates: number; ident: IdentRow[] };
  try {
    staged = await engine.withWriter(async (w) => {
      // The other rows as one JSON text, [[pos, [raw values]], …] in file order: one JSON.parse here instead of
      // reading a list value per row and parsing each value (50k person rows: ~1.2 s of this thread before).
      const slowText = (
        await w.runAndReadAll(`SELECT '[' || string_agg('[' || rowid::VARCHAR || ',' || raw || ']', ',' ORDER BY rowid) || ']' FROM ${t} WHERE NOT ok`)
      ).getRows()[0][0] as string | null;
      const slow = (slowText ? JSON.parse(slowText) : []) as [number, unknown[]][];
      mark(`slow rows ${slow.length}`);
      const normalized: { pos: number; ev: ParsedEvent }[] = [];
      for (const [pos, raw] of slow) {
        const lineNo = c.firstLine + pos;
        const o: Record<string, unknown> = {};
        RAW_KEYS.forEach((k, i) => {
          if (raw[i] !== null) o[k] = raw[i];
        });
        if (isPerson(o)) {
          const p = deps.validatePerson(o, now);
          if ('error' in p) errors.push({ line: lineNo, kind: 'person', message: p.error });
          else persons.push({ pos, row: p });
          continue;
        }
        try {
          normalized.push({ pos, ev: normalizeEvent(o, { now, historical: true }) });
        } catch (e) {
          if (e instanceof CaptureError) errors.push({ line: lineNo, kind: 'event', message: e.message });
          else throw e;
        }
      }
      if (normalized.length) {
        await w.run(
          `CREATE OR REPLACE TEMP TABLE imp_js (pos BIGINT, gen BOOLEAN, uuid UUID, ev VARCHAR, d VARCHAR, ts TIMESTAMP,
             pj VARCHAR, sid VARCHAR, ec VARCHAR, pppf BOOLEAN, ident VARCHAR)`,
        );
        await appendNormalized(w, normalized);
        // Only scalar columns change: DuckDB updates those in place, so rowids (positions) stay.
        await w.run(
          `UPDATE ${t} SET ok = true, gen = j.gen, uuid = j.uuid, ev = j.ev, d = j.d, ts = j.ts, pj = j.pj, sid = j.sid,
             ec = j.ec, pppf = j.pppf, ident = j.ident
           FROM imp_js j WHERE ${t}.rowid = j.pos`,
        );
      }
      mark('js rows');
      // Repeated uuids are rare: found by a hash aggregate first, ranked only when there are some.
      const dups = await w.run(
        `UPDATE ${t} SET dup = true WHERE rowid IN (
           SELECT pos FROM (
             SELECT rowid AS pos, row_number() OVER (PARTITION BY uuid ORDER BY rowid) AS rn FROM ${t}
             WHERE ok AND NOT gen AND uuid IN (SELECT uuid FROM ${t} WHERE ok AND NOT gen GROUP BY uuid HAVING count(*) > 1))
           WHERE rn > 1
           UNION ALL
           SELECT n.rowid FROM ${t} n SEMI JOIN events e ON e.uuid = n.uuid AND e.project_id = $1 WHERE n.ok AND NOT n.gen)`,
        [projectId],
      );
      await applyGroups(deps, w, projectId, t, normalized);
      await w.run('DROP TABLE IF EXISTS imp_js');
      const events = await count(w, `SELECT count(*) FROM ${t} WHERE ok AND NOT dup`);
      mark('dedup');
      // Each distinct id of the chunk is named by its first row's position (`fp`): the identity pass sends back
      // numbers and person ids only, and only for the distinct ids that occur here. `fpn`: its first row that is not
      // personless (the one that creates its person when it has none).
      await w.run(
        `CREATE OR REPLACE TEMP TABLE imp_d AS
         SELECT d, min(rowid) AS fp, min(rowid) FILTER (WHERE NOT pppf) AS fpn FROM ${t} WHERE ok AND NOT dup GROUP BY d`,
      );
      // 4 (input): the rows that can change identity, and the first row of each distinct id (a personless one takes
      // the person its distinct id has by then), in file order, as one JSON text: [pos, event, distinct id,
      // timestamp ms, [$set, $set_once, $unset, $anon_distinct_id, alias] | null, personless] each (the event only
      // with identity properties: identify-like events always have them). One JSON.parse measured ~25% less CPU than reading the
      // rows value by value and parsing each identity array (80k rows: ~140 vs ~190 ms). The text is at most about
      // the chunk's size, far below V8's string limit (~512 MiB) at the default chunk size.
      const identText = (
        await w.runAndReadAll(
          `SELECT to_json(list(json_array(rowid, CASE WHEN ident IS NOT NULL THEN ev END, d, epoch_ms(ts), ident::JSON, pppf) ORDER BY rowid))::VARCHAR
           FROM ${t} WHERE ok AND NOT dup
             AND ((NOT pppf AND (ident IS NOT NULL OR rowid IN (SELECT fpn FROM imp_d WHERE fpn IS NOT NULL))) OR rowid IN (SELECT fp FROM imp_d))`,
        )
      ).getRows()[0][0] as string | null;
      const ident = (identText ? JSON.parse(identText) : []) as IdentRow[];
      mark(`identity rows ${ident.length}`);
      return { events, duplicates: Number(dups.rowsChanged), ident };
    });
  } catch (e) {
    deps.groups.invalidate(projectId);
    await dropAll();
    throw e;
  }
  startNext();
  // Let the next chunk's staging reach DuckDB before the identity pass takes this thread: it gets there through a
  // few promise turns (file, write lock), which otherwise waited for the whole pass (~0.3 s of DuckDB idle a chunk).
  await new Promise<void>((resolve) => setImmediate(resolve));

  // 4: identity in file order, persons interleaved at their positions. Every distinct-id → person change is
  // recorded with the position of the row that made it; a distinct id known before the chunk gets its old
  // mapping at position -1 (for its rows before its first change here). Only distinct ids of this chunk's rows
  // are recorded, by their first row's position, as CSV lines "fp,pos,person" (DuckDB reads them back with
  // read_csv: the appender's per-value conversion cost ~5 µs a row here).
  const rows = staged.ident;
  const fpOf = new Map<string, number>();
  for (const r of rows) if (!fpOf.has(r[2])) fpOf.set(r[2], r[0]);
  const hist: string[] = [];
  const record = (d: string, at: number, person: string) => {
    const fp = fpOf.get(d);
    if (fp !== undefined) hist.push(`${fp},${at},${person}\n`);
  };
  const touched = new Set<string>();
  let pos = 0;
  let personsOk = 0;
  const ident = await deps.identity.ensureLoaded(projectId);
  ident.onAttach = (d, person) => {
    record(d, pos, person);
    touched.add(d);
  };
  const base = (d: string) => {
    if (touched.has(d)) return;
    touched.add(d);
    const p = ident.personFor(d);
    if (p) record(d, -1, p.id);
  };
  try {
    let pi = 0;
    for (let i = 0; i <= rows.length; i++) {
      const rowPos = i < rows.length ? rows[i][0] : Infinity;
      for (; pi < persons.length && persons[pi].pos < rowPos; pi++) {
        pos = persons[pi].pos;
        for (const d of persons[pi].row.distinct_ids) base(d);
        const res = ident.importPerson(persons[pi].row);
        if ('error' in res) errors.push({ line: c.firstLine + pos, kind: 'person', message: res.error });
        else personsOk++;
      }
      if (i === rows.length) break;
      const [, event, d, timestamp, vals, personless] = rows[i];
      pos = rowPos;
      base(d);
      if (personless) continue; // changes nothing: its person (if any) is the mapping recorded as of its position
      if (vals === null && ident.personFor(d)) continue; // the first row of a known distinct id changes nothing
      const properties: Record<string, unknown> = {};
      if (vals !== null)
        IDENT_KEYS.forEach((k, j) => {
          if (vals[j] !== null && vals[j] !== undefined) properties[k] = vals[j];
        });
      ident.processEvent({ event: event ?? '', distinct_id: d, properties, timestamp });
    }
    await fsp.writeFile(histFile, hist.join(''));
  } catch (e) {
    deps.identity.invalidate(projectId);
    deps.groups.invalidate(projectId);
    await dropAll();
    throw e;
  } finally {
    ident.onAttach = null;
  }
  mark(`identity pass, history ${hist.length}`);

  // 5: persons on events by ASOF join; events and identity rows in one transaction. A distinct id whose first row here
  // is personless may have no person by then: its rows may be stored without one.
  if (rows.some((r) => r[5])) engine.notePersonless(projectId);
  const batch: WriteBatch = { events: [] };
  deps.drainIdentity(batch);
  try {
    await engine.writeBatch(batch, {
      projectId,
      run: async (w) => {
        await w.run(
          hist.length
            ? `CREATE OR REPLACE TEMP TABLE imp_h AS SELECT * FROM read_csv(${lit(histFile)},
                 columns = {'fp': 'BIGINT', 'pos': 'BIGINT', 'person': 'VARCHAR'}, header = false, auto_detect = false)`
            : 'CREATE OR REPLACE TEMP TABLE imp_h (fp BIGINT, pos BIGINT, person VARCHAR)',
        );
        mark('history');
        // Most distinct ids have one mapping in the chunk: a plain join. Only those that changed person in the
        // chunk (merges) need the as-of lookup. Personless rows take the mapping as of their position too (none before their distinct id has a person). DuckDB plans an ASOF join whose left
        // side it estimates at ≤ 64 rows as a nested loop; its estimate for the merged rows is often that low when
        // they are tens of thousands (the loop then cost ~3 s of CPU on 250k events), so the loop is turned off.
        await w.run('SET asof_loop_join_threshold = 0');
        try {
          await w.run(
            `INSERT INTO events
             WITH hf AS (SELECT fp, count(*) AS n, any_value(person)::UUID AS person, min(pos) AS pos FROM imp_h GROUP BY fp),
                  hc AS (SELECT k.d, hf.fp, hf.n, hf.person, hf.pos FROM hf JOIN imp_d k ON k.fp = hf.fp),
                  m AS (SELECT n.rowid AS pos, hc.fp FROM ${t} n JOIN hc ON hc.d = n.d WHERE hc.n > 1 AND n.ok AND NOT n.dup),
                  mp AS (SELECT m.pos, h.person::UUID AS person FROM m ASOF JOIN imp_h h ON m.fp = h.fp AND m.pos >= h.pos)
             SELECT $1::INTEGER, n.uuid, n.ev, n.d, CASE WHEN hc.n = 1 THEN (CASE WHEN n.rowid >= hc.pos THEN hc.person END) ELSE mp.person END, n.ts,
                    coalesce(n.pj::JSON, n.props, '{}'::JSON), n.sid, n.ec, epoch_ms($2::BIGINT)
             FROM ${t} n LEFT JOIN hc ON hc.d = n.d LEFT JOIN mp ON mp.pos = n.rowid
             WHERE n.ok AND NOT n.dup`,
            [projectId, now],
          );
        } finally {
          await w.run('RESET asof_loop_join_threshold').catch(() => undefined);
        }
        mark('insert');
      },
    });
    mark('identity rows + commit');
    if (DEBUG) {
      const m = process.memoryUsage();
      const mb = (x: number) => Math.round(x / 1e6);
      const duck = await engine.query(
        `SELECT tag, round(memory_usage_bytes / 1e6) AS mb FROM duckdb_memory() WHERE memory_usage_bytes > 1e7 ORDER BY 2 DESC`,
        [],
      );
      process.stderr.write(
        `[import] rss ${mb(m.rss)} MB, heap ${mb(m.heapUsed)}, external ${mb(m.external)}, duckdb ${JSON.stringify(duck.rows)}\n`,
      );
    }
  } catch (e) {
    deps.identity.invalidate(projectId);
    deps.groups.invalidate(projectId);
    throw e;
  } finally {
    await dropAll();
  }
  return { persons: personsOk, events: staged.events, duplicates: staged.duplicates, errors };
}

/**
 * Groups of the chunk's rows rebuilt in JS (every row with `$groups`, or a `$groupidentify`, is one: the fast
 * predicate leaves them out), in file order, once duplicates are known (a duplicate changes no group, as in the
 * row-by-row path): a row that got `$group_N` properties takes its new text, a row to drop is no longer `ok`.
 * Needs `imp_js` (the rows rebuilt in JS) still in place.
 */
async function applyGroups(deps: NativeImportDeps, w: DuckDBConnection, projectId: number, t: string, rows: { pos: number; ev: ParsedEvent }[]): Promise<void> {
  const candidates = rows.filter(({ ev }) => ev.event === '$groupidentify' || ev.properties.$groups !== undefined);
  if (!candidates.length) return;
  const dupText = (
    await w.runAndReadAll(`SELECT to_json(list(j.pos))::VARCHAR FROM imp_js j WHERE j.pos IN (SELECT rowid FROM ${t} WHERE dup)`)
  ).getRows()[0][0] as string | null;
  const dup = new Set((dupText ? JSON.parse(dupText) : []) as number[]);
  const grp = await deps.groups.ensureLoaded(projectId);
  const pos: bigint[] = [];
  const pj: (string | null)[] = [];
  for (const { pos: p, ev } of candidates) {
    if (dup.has(p)) continue;
    const out = grp.processEvent(ev);
    if (out === 'unchanged') continue;
    pos.push(BigInt(p));
    pj.push(out === 'drop' ? null : propertiesJsonText(ev.properties));
  }
  if (!pos.length) return;
  await w.run('CREATE OR REPLACE TEMP TABLE imp_g (pos BIGINT, pj VARCHAR)');
  await appendColumns(w, 'imp_g', [pos, pj]);
  await w.run(`UPDATE ${t} SET ok = g.pj IS NOT NULL, pj = coalesce(g.pj, ${t}.pj) FROM imp_g g WHERE ${t}.rowid = g.pos`);
  await w.run('DROP TABLE imp_g');
}

/** Appends column arrays to a temp table a data chunk (2,048 rows) at a time: far fewer native calls than row by row. */
async function appendColumns(w: DuckDBConnection, table: string, cols: unknown[][]): Promise<void> {
  const n = cols[0].length;
  if (!n) return;
  const a = await w.createAppender(table, 'main', 'temp');
  try {
    const types = Array.from({ length: a.columnCount }, (_, i) => a.columnType(i));
    for (let off = 0; off < n; off += 2048) {
      const end = Math.min(n, off + 2048);
      const chunk = DuckDBDataChunk.create(types, end - off);
      chunk.setColumns(cols.map((col) => col.slice(off, end) as DuckDBValue[]));
      a.appendDataChunk(chunk);
    }
    a.flushSync();
  } finally {
    a.closeSync();
  }
}

/** Appends rows normalized by normalizeEvent to imp_js (pos, gen, uuid, ev, d, ts, pj, sid, ec, pppf, ident). */
async function appendNormalized(w: DuckDBConnection, rows: { pos: number; ev: ParsedEvent }[]): Promise<void> {
  const cols: unknown[][] = Array.from({ length: 11 }, () => []);
  for (const { pos, ev } of rows) {
    const p = ev.properties;
    const relevant =
      ev.event === '$identify' ||
      ev.event === '$create_alias' ||
      ev.event === '$merge_dangerously' ||
      p.$set !== undefined ||
      p.$set_once !== undefined ||
      p.$unset !== undefined;
    const vals = [
      BigInt(pos),
      ev.uuidGenerated === true,
      DuckDBUUIDValue.fromUint128(BigInt(`0x${ev.uuid.replace(/-/g, '')}`)),
      ev.event,
      ev.distinct_id,
      new DuckDBTimestampValue(BigInt(Math.trunc(ev.timestamp)) * 1000n),
      ev.propertiesJson,
      ev.session_id,
      ev.elements_chain,
      p.$process_person_profile === false,
      relevant ? JSON.stringify(IDENT_KEYS.map((k) => (p[k] === undefined ? null : p[k]))) : null,
    ];
    vals.forEach((v, i) => cols[i].push(v));
  }
  await appendColumns(w, 'imp_js', cols);
}

/** Lowers DuckDB's memory limit to `limit` when that is lower; returns how to put the previous one back. */
async function lowerMemoryLimit(engine: DuckDbEngine, limit: string): Promise<() => Promise<void>> {
  const cur = String((await engine.query(`SELECT current_setting('memory_limit')`, [])).rows[0][0]);
  const want = sizeBytes(limit);
  const now = sizeBytes(cur);
  if (want === null || now === null || !(want > 0 && want < now)) return async () => undefined;
  await engine.setMemoryLimit(limit);
  return () => engine.setMemoryLimit(null).catch(() => undefined);
}

/** Imports an NDJSON file (optionally gzip) natively; see the module comment. */
export async function importFileNative(
  deps: NativeImportDeps,
  projectId: number,
  file: string,
  opts: NativeImportOptions = {},
): Promise<ImportFileSummary> {
  const started = Date.now();
  const maxErrors = opts.maxErrors ?? 10_000;
  const size = (await fsp.stat(file)).size;
  const { summary, addError, finish } = importTally(size, maxErrors, started);
  const progress = importProgress(size, opts.progress ?? Boolean(process.stderr.isTTY));
  const tmpDir = await fsp.mkdtemp(path.join(deps.tmpDir, 'import-'));
  const restoreLimit = await lowerMemoryLimit(deps.engine, opts.memoryLimit ?? DEFAULT_IMPORT_MEMORY_LIMIT);
  // No periodic checkpoint or cache trim between chunks; one checkpoint at the end instead.
  const releaseMaintenance = deps.engine.holdMaintenance();
  const it = chunkFiles(file, tmpDir, opts.chunkBytes ?? DEFAULT_CHUNK_BYTES);
  // When each chunk's events were stamped (created_at is at or after it) and how many it stored, for the recent uuids.
  const landed: { at: number; events: number }[] = [];
  const tally = (c: ChunkFile, res: ChunkResult) => {
    nativeImportStats.nativeChunks++;
    summary.lines += c.lines;
    summary.imported.persons += res.persons;
    summary.imported.events += res.events;
    summary.duplicates += res.duplicates;
    for (const e of res.errors) addError(e);
  };
  const rowByRow = async (c: ChunkFile) => {
    nativeImportStats.fallbackChunks++;
    const at = Date.now();
    const s = await importNdjsonFile(c.file, (chunk) => deps.importRows(projectId, chunk), {
      progress: false,
      chunkRows: opts.chunkRows,
      maxErrors,
    });
    summary.lines += s.lines;
    summary.imported.persons += s.imported.persons;
    summary.imported.events += s.imported.events;
    summary.duplicates += s.duplicates;
    landed.push({ at, events: s.imported.events });
    for (const e of s.errors) addError({ ...e, line: e.line < 0 ? e.line : e.line + c.firstLine - 1 });
    summary.errorCount += s.errorCount - s.errors.length;
  };
  // Three things overlap: the input is decompressed into chunk files ahead (libuv's thread pool), the next chunk is
  // staged (read_json + normalize on DuckDB's threads) while this one's identity pass runs (this thread), and
  // chunks are applied strictly in file order under the ingest lock. The chunk files alternate between two names:
  // a chunk's file is written only once the chunk two before it is staged or imported row by row. (A failure of
  // a read ahead is seen when it is awaited; the catch only keeps it from being reported as unhandled meanwhile.)
  // Reading further ahead (three files, zlib inflating 16 MiB ahead, writes not awaited one by one) measured the
  // same: DuckDB was idle as long between chunks.
  const ahead = () => {
    const p = it.next();
    p.catch(() => undefined);
    if (DEBUG) void p.then(() => mark('chunk file ready'), () => undefined);
    return p;
  };
  const tables = ['imp_n0', 'imp_n1'];
  let pending: Promise<StagedChunk | null> | null = null;
  try {
    let k = 0;
    const stageNext = (next: Promise<IteratorResult<ChunkFile>>) => {
      const table = tables[k++ % 2];
      const p = next.then((r) => (r.done ? null : stageChunk(deps.engine, r.value, table)));
      p.catch(() => undefined);
      return p;
    };
    let nextFile = ahead();
    pending = stageNext(nextFile);
    nextFile = ahead();
    for (;;) {
      const s: StagedChunk | null = await pending;
      pending = null;
      if (!s) break;
      if (!s.ok) await rowByRow(s.c);
      // This chunk's file is read: the chunk after next may now be written into it.
      const following = nextFile;
      nextFile = ahead();
      const startNext = () => {
        if (!pending) mark('start next');
        pending ??= stageNext(following);
      };
      if (s.ok) {
        const res = await deps.locked(() => applyChunk(deps, projectId, s, startNext));
        tally(s.c, res);
        landed.push({ at: s.now, events: res.events });
      }
      startNext();
      progress.update(s.c.bytesRead, summary.lines, summary.errorCount);
    }
    if (summary.imported.events > 0 || summary.imported.persons > 0) {
      await deps.engine.checkpoint();
      mark('checkpoint');
    }
  } catch (e) {
    const msg = (e as Error).message ?? '';
    if ((e as NodeJS.ErrnoException).code === 'Z_DATA_ERROR' || /gzip|incorrect header|unexpected end/i.test(msg))
      addError({ line: summary.lines + 1, kind: 'parse', message: `the file is not valid gzip: ${msg}` });
    else throw e;
  } finally {
    // A chunk staged ahead of a failure is dropped (its staging holds the writer until it finishes).
    const left = await (pending as Promise<StagedChunk | null> | null)?.catch(() => null);
    if (left?.ok) await deps.engine.withWriter(async (w) => void (await w.run(`DROP TABLE IF EXISTS ${left.table}`))).catch(() => undefined);
    await it.return(undefined).catch(() => undefined);
    progress.stop(summary.lines, summary.errorCount);
    await restoreLimit();
    releaseMaintenance();
    await fsp.rm(tmpDir, { recursive: true, force: true });
    mark('cleanup');
  }
  if (summary.imported.events > 0) {
    // Duplicates among imports are found against the table itself; the recent-uuid set serves capture retries.
    // It is told the last imported uuids (up to 100k: reading and adding 500k cost ~1 s of the main thread), read
    // from the last chunks that hold them only (created_at from the earliest of those on) and as one text: reading
    // them from every event of the import, value by value, cost ~0.33 s of CPU after 1M events (now ~0.07 s).
    const limit = Math.floor(Math.min(deps.rememberLimit, 100_000));
    let since = started;
    for (let i = landed.length - 1, n = 0; i >= 0; i--) {
      n += landed[i].events;
      if (n >= limit) {
        since = Math.max(started, landed[i].at);
        break;
      }
    }
    const recent = await deps.engine.query(
      `SELECT string_agg(u, ',' ORDER BY r DESC) FROM (
         SELECT uuid::VARCHAR AS u, rowid AS r FROM events WHERE project_id = $1 AND created_at >= $2 ORDER BY rowid DESC LIMIT ${limit})`,
      [projectId, new Date(since)],
    );
    const text = recent.rows[0]?.[0];
    const uuids = typeof text === 'string' && text ? text.split(',') : [];
    deps.rememberUuids(projectId, uuids);
    mark(`recent uuids ${uuids.length}`);
  }
  return finish();
}
