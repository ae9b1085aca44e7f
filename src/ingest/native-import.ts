/**
 * Native bulk import: DuckDB parses the NDJSON, JavaScript runs identity only where it must.
 *
 * The row-by-row path (import-file.ts → Ingestor.import) spends ~25 µs of one core per event on gunzip, line
 * splitting, JSON.parse, validation, re-serialization and the appender. Here the file is cut into chunk files of
 * ~{@link DEFAULT_CHUNK_BYTES} (gunzip runs on libuv's thread pool, the main thread only counts newlines), and for
 * each chunk, under the ingest lock:
 *
 * 1–2. One statement: `read_json` parses the chunk (in parallel) with every key the importer reads typed as JSON,
 *    and validates and normalizes the rows that have the common shape (string event and distinct id, canonical or
 *    absent uuid and timestamp, object properties, nothing exotic) into one temporary table: these are "fast"
 *    rows. Every other row — persons, numeric distinct ids, offsets, top-level `$set`, odd timestamps, anything
 *    invalid — keeps its raw values, is rebuilt as an object in JS and goes through the very functions the
 *    row-by-row path uses (`normalizeEvent`, `validateImportPerson`), so errors and normalization are the same,
 *    per line.
 * 3. Duplicates are removed: a uuid seen earlier in the file, or already stored for the project.
 * 4. Identity runs in JS, in file order, over the rows that can change it: events carrying `$set`,
 *    `$set_once`, `$unset` or an identify-like name, persons, and the first event of each distinct id. Each
 *    distinct id → person change is recorded with the row position that caused it (`ProjectIdentity.onAttach`).
 * 5. Every event gets its person by an ASOF join on those changes (the mapping of its distinct id as of its
 *    position), and is inserted with the identity rows in one transaction.
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
import { DuckDBDataChunk, DuckDBTimestampValue, DuckDBUUIDValue, type DuckDBConnection, type DuckDBListValue, type DuckDBValue } from '@duckdb/node-api';
import type { DuckDbEngine, WriteBatch } from '../engines/duckdb/duckdb-engine';
import { CaptureError, normalizeEvent, type ParsedEvent } from './capture-payload';
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

/** Decompressed bytes per chunk. Larger amortizes per-chunk work; DuckDB holds about one chunk (spilling past its memory limit). */
export const DEFAULT_CHUNK_BYTES = 128 * 1024 * 1024;

/** DuckDB memory limit while a native import runs (only ever lowered). See {@link NativeImportOptions.memoryLimit}. */
export const DEFAULT_IMPORT_MEMORY_LIMIT = '512MB';

const UNITS: Record<string, number> = { B: 1, KB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12, KIB: 1024, MIB: 1024 ** 2, GIB: 1024 ** 3, TIB: 1024 ** 4 };

/** Bytes of a DuckDB size setting ('512MB', '953.6 MiB'); NaN when unreadable. */
export function sizeBytes(v: string): number {
  const m = /^\s*([\d.]+)\s*([KMGT]?i?B)\s*$/i.exec(v);
  return m ? Number(m[1]) * (UNITS[m[2].toUpperCase()] ?? NaN) : NaN;
}

export interface NativeImportDeps {
  engine: DuckDbEngine;
  identity: IdentityStore;
  /** Runs `fn` under the ingest lock (serialized with the durable log's flusher and other imports). */
  locked<T>(fn: () => Promise<T>): Promise<T>;
  /** The row-by-row import (takes the ingest lock itself): used for chunks DuckDB cannot read. */
  importRows(projectId: number, chunk: ImportChunk): Promise<ImportResult>;
  /** Moves the identity changes into the batch (and logs ingestion warnings). */
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
 * conditions are conservative; every other row keeps its raw values in `raw` (JSON texts, in {@link RAW_KEYS}
 * order) for JS, which then fills in the row. Fast rows keep their properties as read (`props`).
 *
 * Reading and normalizing in one statement materializes the chunk once; a raw staging table plus a normalized one
 * joined back to it for the properties cost more CPU per chunk (read + normalize ~2.0 s → ~1.8 s, insert without
 * the join back, on 250k events of the bench dataset under load).
 */
export function normalizeSql(file: string): string {
  const cols = RAW_KEYS.map((k) => `${lit(k)}: 'JSON'`).join(', ');
  return `CREATE OR REPLACE TEMP TABLE imp_n AS
WITH a AS (
  SELECT *, event::VARCHAR AS ej, distinct_id::VARCHAR AS dj, uuid::VARCHAR AS uj, "timestamp"::VARCHAR AS tj,
    properties::VARCHAR AS p,
    "type" IS NULL AND distinct_ids IS NULL AND "$set" IS NULL AND "$set_once" IS NULL AND "offset" IS NULL
      AND "$distinct_id" IS NULL AND (properties IS NULL OR starts_with(properties::VARCHAR, '{')) AS plain
  FROM read_json(${lit(file)}, format = 'newline_delimited', columns = {${cols}}, maximum_object_size = 16777216)
), b AS (
  SELECT *,
    CASE WHEN starts_with(ej, '"') THEN (CASE WHEN contains(ej, '\\') THEN ej::JSON->>'$' ELSE ej[2:-2] END) END AS ev,
    CASE WHEN starts_with(dj, '"') THEN (CASE WHEN contains(dj, '\\') THEN dj::JSON->>'$' ELSE dj[2:-2] END) END AS d,
    uj IS NULL OR uj = '""' AS gen,
    tj IS NULL OR tj = '""' AS t_now,
    CASE WHEN p IS NOT NULL THEN json_extract(p, ['$."$session_id"', '$."$elements_chain"', '$."$process_person_profile"',
                                                   '$."$set"', '$."$set_once"', '$."$unset"', '$."$anon_distinct_id"', '$.alias']) END AS sx
  FROM a
), c AS (
  SELECT *,
    CASE WHEN ev IN ('$identify', '$create_alias', '$merge_dangerously') OR sx[4] IS NOT NULL OR sx[5] IS NOT NULL OR sx[6] IS NOT NULL
         THEN [sx[4], sx[5], sx[6], sx[7], sx[8]] END AS ix
  FROM b
), f AS (
  SELECT *,
    coalesce(plain
      AND strlen(ev) <= 1000 AND regexp_matches(ev, '[0-9A-Za-z$_]')
      AND strlen(d) <= 200 AND regexp_matches(d, '[0-9A-Za-z]') AND NOT contains(d, chr(0))
      AND (gen OR regexp_full_match(uj, '"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"'))
      AND (t_now OR (regexp_full_match(tj, '"[1-9][0-9]{3}-[0-9]{2}-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{3})?Z"')
                     AND try_cast(tj[2:-2] AS TIMESTAMP) IS NOT NULL))
      AND (ix IS NULL OR (coalesce(json_type(ix[1]), 'NULL') IN ('OBJECT', 'NULL') AND coalesce(json_type(ix[2]), 'NULL') IN ('OBJECT', 'NULL')))
      AND (p IS NULL OR strlen(p) <= 524288)
      AND CASE WHEN p IS NULL OR NOT regexp_matches(p, ':[\\[{]') THEN true
               ELSE strlen(p) - strlen(replace(replace(p, '{', ''), '[', '')) <= 60 END, false) AS fast
  FROM c
)
SELECT fast AS ok, false AS dup, gen,
  CASE WHEN fast THEN (CASE WHEN gen THEN uuidv7() ELSE try_cast(uj[2:-2] AS UUID) END) END AS uuid,
  CASE WHEN fast THEN ev END AS ev,
  CASE WHEN fast THEN d END AS d,
  CASE WHEN fast THEN (CASE WHEN t_now THEN epoch_ms($1::BIGINT) ELSE try_cast(tj[2:-2] AS TIMESTAMP) END) END AS ts,
  CASE WHEN fast THEN properties END AS props,
  NULL::VARCHAR AS pj,
  CASE WHEN NOT fast THEN [${RAW_KEYS.map(q).join(', ')}]::VARCHAR[] END AS raw,
  CASE WHEN starts_with(sx[1]::VARCHAR, '"') THEN sx[1]->>'$' END AS sid,
  CASE WHEN starts_with(sx[2]::VARCHAR, '"') THEN sx[2]->>'$' END AS ec,
  coalesce(sx[3]::VARCHAR = 'false', false) AS pppf,
  CASE WHEN ix IS NOT NULL THEN json_array(ix[1], ix[2], ix[3], ix[4], ix[5])::VARCHAR END AS ident
FROM f`;
}

/** Identity keys as the SQL `ident` array carries them (positions 0..4). */
const IDENT_KEYS = ['$set', '$set_once', '$unset', '$anon_distinct_id', 'alias'] as const;

/** Splits the decompressed input into chunk files of about `chunkBytes`, cut at line ends. Two files alternate. */
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
      // Cut at the first line end at or past the chunk size (a piece may hold several chunks' worth).
      while (cur!.bytes + b.length >= chunkBytes) {
        const nl = b.indexOf(10, Math.max(0, chunkBytes - cur!.bytes - 1));
        if (nl < 0) break;
        await write(b.subarray(0, nl + 1));
        yield await close();
        await open();
        b = b.subarray(nl + 1);
      }
      await write(b);
    }
    if (cur!.bytes > 0) yield await close();
  } finally {
    if (cur) await (cur as { fh: fsp.FileHandle }).fh.close().catch(() => undefined);
    raw.destroy();
  }
}

function parseJson(v: unknown): unknown {
  return typeof v === 'string' ? JSON.parse(v) : undefined;
}

/** A row that can change identity: position, event, distinct id, timestamp (ms), identity properties or null (IDENT_KEYS order). */
type IdentRow = [number, string, string, number, unknown[] | null];

interface ChunkResult {
  persons: number;
  events: number;
  duplicates: number;
  errors: ImportLineError[];
}

/**
 * Imports one chunk natively; resolves null when DuckDB cannot read it as plain NDJSON (nothing was written:
 * the caller imports it row by row). Runs under the ingest lock.
 */
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

async function importChunk(deps: NativeImportDeps, projectId: number, c: ChunkFile): Promise<ChunkResult | null> {
  const { engine } = deps;
  mark('');
  const now = Date.now();
  const errors: ImportLineError[] = [];
  type PersonRow = Exclude<ReturnType<NativeImportDeps['validatePerson']>, { error: string }>;
  const persons: { pos: number; row: PersonRow }[] = [];
  const count = async (w: DuckDBConnection, sql: string) => Number((await w.runAndReadAll(sql)).getRows()[0][0]);
  const dropAll = () =>
    engine.withWriter(async (w) => {
      for (const t of ['imp_n', 'imp_js', 'imp_h']) await w.run(`DROP TABLE IF EXISTS ${t}`);
    });

  // 1–3: stage, normalize, rebuild the other rows in JS, mark duplicates.
  let staged: { events: number; duplicates: number; ident: IdentRow[] } | null;
  try {
    staged = await engine.withWriter(async (w) => {
      try {
        await w.run(normalizeSql(c.file), [now]);
      } catch {
        return null; // not plain NDJSON (malformed, a non-object line, duplicate keys, …)
      }
      mark('read_json + normalize');
      if ((await count(w, 'SELECT count(*) FROM imp_n')) !== c.lines) return null; // blank lines: rows ≠ lines
      const slow = (await w.runAndReadAll(`SELECT rowid, raw FROM imp_n WHERE NOT ok ORDER BY rowid`)).getRows();
      mark(`slow rows ${slow.length}`);
      const normalized: { pos: number; ev: ParsedEvent }[] = [];
      for (const r of slow) {
        const pos = Number(r[0]);
        const lineNo = c.firstLine + pos;
        const raw = (r[1] as DuckDBListValue).items;
        const o: Record<string, unknown> = {};
        RAW_KEYS.forEach((k, i) => {
          const v = parseJson(raw[i]);
          if (v !== undefined) o[k] = v;
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
          `UPDATE imp_n SET ok = true, gen = j.gen, uuid = j.uuid, ev = j.ev, d = j.d, ts = j.ts, pj = j.pj, sid = j.sid,
             ec = j.ec, pppf = j.pppf, ident = j.ident
           FROM imp_js j WHERE imp_n.rowid = j.pos`,
        );
        await w.run('DROP TABLE imp_js');
      }
      mark('js rows');
      // Repeated uuids are rare: found by a hash aggregate first, ranked only when there are some.
      const dups = await w.run(
        `UPDATE imp_n SET dup = true WHERE rowid IN (
           SELECT pos FROM (
             SELECT rowid AS pos, row_number() OVER (PARTITION BY uuid ORDER BY rowid) AS rn FROM imp_n
             WHERE ok AND NOT gen AND uuid IN (SELECT uuid FROM imp_n WHERE ok AND NOT gen GROUP BY uuid HAVING count(*) > 1))
           WHERE rn > 1
           UNION ALL
           SELECT n.rowid FROM imp_n n SEMI JOIN events e ON e.uuid = n.uuid AND e.project_id = $1 WHERE n.ok AND NOT n.gen)`,
        [projectId],
      );
      const events = await count(w, 'SELECT count(*) FROM imp_n WHERE ok AND NOT dup');
      mark('dedup');
      // 4 (input): the rows that can change identity, in file order, as one JSON text: [pos, event, distinct id,
      // timestamp ms, [$set, $set_once, $unset, $anon_distinct_id, alias] | null] each. One JSON.parse measured ~25%
      // less CPU than reading the rows value by value and parsing each identity array (80k rows: ~140 vs ~190 ms).
      // The text is at most about the chunk's size, far below V8's string limit (~512 MiB) at the default chunk size.
      const identText = (
        await w.runAndReadAll(
          `SELECT to_json(list(json_array(rowid, ev, d, epoch_ms(ts), ident::JSON) ORDER BY rowid))::VARCHAR FROM imp_n
           WHERE ok AND NOT dup AND NOT pppf
             AND (ident IS NOT NULL OR rowid IN (SELECT min(rowid) FROM imp_n WHERE ok AND NOT dup AND NOT pppf GROUP BY d))`,
        )
      ).getRows()[0][0] as string | null;
      const ident = (identText ? JSON.parse(identText) : []) as IdentRow[];
      mark(`identity rows ${ident.length}`);
      return { events, duplicates: Number(dups.rowsChanged), ident };
    });
  } catch (e) {
    await dropAll();
    throw e;
  }
  if (!staged) {
    await dropAll();
    return null;
  }

  // 4: identity in file order, persons interleaved at their positions. Every distinct-id → person change is
  // recorded with the position of the row that made it; a distinct id known before the chunk gets its old
  // mapping at position -1 (for its rows before its first change here).
  const hist: { d: string[]; pos: bigint[]; person: string[] } = { d: [], pos: [], person: [] };
  const touched = new Set<string>();
  let pos = 0;
  let personsOk = 0;
  const ident = await deps.identity.ensureLoaded(projectId);
  ident.onAttach = (d, person) => {
    hist.d.push(d);
    hist.pos.push(BigInt(pos));
    hist.person.push(person);
    touched.add(d);
  };
  const base = (d: string) => {
    if (touched.has(d)) return;
    touched.add(d);
    const p = ident.personFor(d);
    if (p) {
      hist.d.push(d);
      hist.pos.push(-1n);
      hist.person.push(p.id);
    }
  };
  try {
    let pi = 0;
    const rows = staged.ident;
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
      const [, event, d, timestamp, vals] = rows[i];
      pos = rowPos;
      base(d);
      if (vals === null && ident.personFor(d)) continue; // the first row of a known distinct id changes nothing
      const properties: Record<string, unknown> = {};
      if (vals !== null)
        IDENT_KEYS.forEach((k, j) => {
          if (vals[j] !== null && vals[j] !== undefined) properties[k] = vals[j];
        });
      ident.processEvent({ event, distinct_id: d, properties, timestamp });
    }
  } catch (e) {
    deps.identity.invalidate(projectId);
    await dropAll();
    throw e;
  } finally {
    ident.onAttach = null;
  }
  mark(`identity pass, history ${hist.d.length}`);

  // 5: persons on events by ASOF join; events and identity rows in one transaction.
  const batch: WriteBatch = { events: [] };
  deps.drainIdentity(batch);
  try {
    await engine.writeBatch(batch, {
      projectId,
      run: async (w) => {
        // (The appender measured ~2× cheaper here than three JSON arrays unnested by DuckDB.)
        await w.run('CREATE OR REPLACE TEMP TABLE imp_h (d VARCHAR, pos BIGINT, person VARCHAR)');
        await appendColumns(w, 'imp_h', [hist.d, hist.pos, hist.person]);
        mark('history');
        // Most distinct ids have one mapping in the chunk: a plain join. Only those that changed person in the
        // chunk (merges) need the as-of lookup. Personless rows match neither.
        await w.run(
          `INSERT INTO events
           WITH hc AS (SELECT d, count(*) AS n, any_value(person)::UUID AS person FROM imp_h GROUP BY d),
                m AS (SELECT rowid AS pos, d FROM imp_n
                      WHERE ok AND NOT dup AND NOT pppf AND d IN (SELECT d FROM hc WHERE n > 1)),
                mp AS (SELECT m.pos, h.person::UUID AS person FROM m ASOF JOIN imp_h h ON m.d = h.d AND m.pos >= h.pos)
           SELECT $1::INTEGER, n.uuid, n.ev, n.d, CASE WHEN n.pppf THEN NULL WHEN hc.n = 1 THEN hc.person ELSE mp.person END, n.ts,
                  coalesce(n.pj::JSON, n.props, '{}'::JSON), n.sid, n.ec, epoch_ms($2::BIGINT)
           FROM imp_n n LEFT JOIN hc ON hc.d = n.d LEFT JOIN mp ON mp.pos = n.rowid
           WHERE n.ok AND NOT n.dup`,
          [projectId, now],
        );
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
    throw e;
  } finally {
    await dropAll();
  }
  return { persons: personsOk, events: staged.events, duplicates: staged.duplicates, errors };
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
      typeof p.$session_id === 'string' ? p.$session_id : null,
      typeof p.$elements_chain === 'string' ? p.$elements_chain : null,
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
  if (!(want > 0) || !(want < sizeBytes(cur))) return async () => undefined;
  const set = (v: string) => engine.withWriter(async (w) => void (await w.run(`SET memory_limit = '${v.replace(/'/g, '')}'`)));
  await set(limit);
  // DuckDB shows the limit rounded to 0.1 MiB: the restored limit may be off by that much.
  return () => set(cur.replace(/\s+/g, '')).catch(() => undefined);
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
  const it = chunkFiles(file, tmpDir, opts.chunkBytes ?? DEFAULT_CHUNK_BYTES);
  try {
    // The next chunk is decompressed and written while this one is imported. (A failure of the read ahead is
    // seen when it is awaited; the catch only keeps it from being reported as unhandled meanwhile.)
    const ahead = () => {
      const p = it.next();
      p.catch(() => undefined);
      return p;
    };
    let next = ahead();
    for (;;) {
      const r = await next;
      if (r.done) break;
      const c = r.value;
      next = ahead();
      const res = await deps.locked(() => importChunk(deps, projectId, c));
      if (res) {
        nativeImportStats.nativeChunks++;
        summary.lines += c.lines;
        summary.imported.persons += res.persons;
        summary.imported.events += res.events;
        summary.duplicates += res.duplicates;
        for (const e of res.errors) addError(e);
      } else {
        nativeImportStats.fallbackChunks++;
        const s = await importNdjsonFile(c.file, (chunk) => deps.importRows(projectId, chunk), {
          progress: false,
          chunkRows: opts.chunkRows,
          maxErrors,
        });
        summary.lines += s.lines;
        summary.imported.persons += s.imported.persons;
        summary.imported.events += s.imported.events;
        summary.duplicates += s.duplicates;
        for (const e of s.errors) addError({ ...e, line: e.line < 0 ? e.line : e.line + c.firstLine - 1 });
        summary.errorCount += s.errorCount - s.errors.length;
      }
      progress.update(c.bytesRead, summary.lines, summary.errorCount);
    }
  } catch (e) {
    const msg = (e as Error).message ?? '';
    if ((e as NodeJS.ErrnoException).code === 'Z_DATA_ERROR' || /gzip|incorrect header|unexpected end/i.test(msg))
      addError({ line: summary.lines + 1, kind: 'parse', message: `the file is not valid gzip: ${msg}` });
    else throw e;
  } finally {
    await it.return(undefined).catch(() => undefined);
    progress.stop(summary.lines, summary.errorCount);
    await restoreLimit();
    await fsp.rm(tmpDir, { recursive: true, force: true });
  }
  if (summary.imported.events > 0) {
    // Duplicates among imports are found against the table itself; the recent-uuid set serves capture retries.
    // It is told the last imported uuids (up to 100k: reading and adding 500k cost ~1 s of the main thread).
    const recent = await deps.engine.query(
      `SELECT uuid::VARCHAR FROM events WHERE project_id = $1 AND created_at >= $2 ORDER BY rowid DESC
       LIMIT ${Math.floor(Math.min(deps.rememberLimit, 100_000))}`,
      [projectId, new Date(started)],
    );
    deps.rememberUuids(
      projectId,
      recent.rows.map((r) => r[0] as string),
    );
  }
  return finish();
}
