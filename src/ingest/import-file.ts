/**
 * Streaming NDJSON import: reads a file (optionally gzip, by `.gz` suffix or magic bytes) of any size in
 * bounded memory, sends chunks to a sink (the running server's import endpoint or an Ingestor directly) and
 * reports per-line errors.
 *
 * Each line is one JSON object: a person when it has `distinct_ids` (array) and no `event`, or `"type": "person"`;
 * otherwise an event (`{event, distinct_id, properties, timestamp, uuid}`). Persons in a chunk are applied before
 * its events, so put persons first in the file.
 */
import fs from 'node:fs';
import readline from 'node:readline';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import cliProgress from 'cli-progress';

export interface ImportChunk {
  persons: unknown[];
  events: unknown[];
}

export interface ImportSinkResult {
  imported: { persons: number; events: number };
  errors: { index: number; kind: 'person' | 'event'; message: string }[];
  duplicates?: number;
}

export type ImportSink = ((chunk: ImportChunk) => Promise<ImportSinkResult>) & {
  /**
   * When present, the whole file is handed over instead of being parsed here and sent in chunks: the local
   * Ingestor's native bulk path ({@link Ingestor.importFile}: DuckDB reads the NDJSON itself).
   */
  importFile?: (file: string, opts: ImportFileOptions) => Promise<ImportFileSummary>;
};

export interface ImportFileOptions {
  /** Rows per sink call. Default 10,000. */
  chunkRows?: number;
  /** Show a progress bar on stderr. Default: when stderr is a TTY. */
  progress?: boolean;
  /** Most line errors kept in the summary (all are counted). Default 10,000. */
  maxErrors?: number;
}

export interface ImportLineError {
  /** 1-based line number in the (decompressed) file. */
  line: number;
  kind: 'parse' | 'person' | 'event';
  message: string;
}

export interface ImportFileSummary {
  lines: number;
  imported: { persons: number; events: number };
  duplicates: number;
  errorCount: number;
  errors: ImportLineError[];
  bytes: number;
  durationMs: number;
  rowsPerSecond: number;
}

/** Whether an import line is a person (else an event). */
export function isPerson(o: Record<string, unknown>): boolean {
  return o.type === 'person' || (Array.isArray(o.distinct_ids) && o.event === undefined);
}

/** `gunzipChunkBytes`: size of the decompressed pieces (zlib's default is 16 KiB; bulk readers want fewer, larger ones). */
export async function openInput(file: string, gunzipChunkBytes?: number): Promise<{ stream: Readable; raw: fs.ReadStream; size: number }> {
  const size = (await fs.promises.stat(file)).size;
  const fh = await fs.promises.open(file, 'r');
  const head = Buffer.alloc(2);
  await fh.read(head, 0, 2, 0);
  await fh.close();
  const raw = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  const gz = file.endsWith('.gz') || (head[0] === 0x1f && head[1] === 0x8b);
  return { stream: gz ? raw.pipe(createGunzip(gunzipChunkBytes ? { chunkSize: gunzipChunkBytes } : {})) : raw, raw, size };
}

/** The import progress bar on stderr (or nothing when `show` is false). */
export function importProgress(size: number, show: boolean): { update(bytesRead: number, rows: number, errors: number): void; stop(rows: number, errors: number): void } {
  const started = Date.now();
  const bar = show
    ? new cliProgress.SingleBar(
        {
          format: 'import |{bar}| {percentage}% | {rows} rows | {rate} rows/s | ETA {eta_formatted} | {errors} errors',
          stream: process.stderr,
          hideCursor: true,
          // Asked for explicitly without a terminal (logs, CI): a plain line every 2 s and at the end.
          noTTYOutput: !process.stderr.isTTY,
          notTTYSchedule: 2000,
        },
        cliProgress.Presets.shades_classic,
      )
    : null;
  bar?.start(size, 0, { rows: 0, rate: 0, errors: 0 });
  return {
    update(bytesRead, rows, errors) {
      if (!bar) return;
      const secs = Math.max(0.001, (Date.now() - started) / 1000);
      bar.update(bytesRead, { rows, rate: Math.round(rows / secs), errors });
    },
    stop(rows, errors) {
      bar?.update(size, { rows, errors });
      bar?.stop();
    },
  };
}

/**
 * The summary of one file's import as it accumulates: every line error counted, the first `maxErrors` kept;
 * `finish()` stamps the duration and rate (shared by the row path here and the native path).
 */
export function importTally(bytes: number, maxErrors: number, started: number) {
  const summary: ImportFileSummary = {
    lines: 0,
    imported: { persons: 0, events: 0 },
    duplicates: 0,
    errorCount: 0,
    errors: [],
    bytes,
    durationMs: 0,
    rowsPerSecond: 0,
  };
  const addError = (e: ImportLineError) => {
    summary.errorCount++;
    if (summary.errors.length < maxErrors) summary.errors.push(e);
  };
  const finish = (): ImportFileSummary => {
    summary.durationMs = Date.now() - started;
    summary.rowsPerSecond = Math.round(summary.lines / Math.max(0.001, summary.durationMs / 1000));
    return summary;
  };
  return { summary, addError, finish };
}

export async function importNdjsonFile(file: string, sink: ImportSink, opts: ImportFileOptions = {}): Promise<ImportFileSummary> {
  if (typeof sink.importFile === 'function') return sink.importFile(file, opts);
  const chunkRows = opts.chunkRows ?? 10_000;
  const maxErrors = opts.maxErrors ?? 10_000;
  const started = Date.now();
  const { stream, raw, size } = await openInput(file);
  const { summary, addError, finish } = importTally(size, maxErrors, started);
  const showProgress = opts.progress ?? Boolean(process.stderr.isTTY);
  const bar = showProgress
    ? new cliProgress.SingleBar(
        {
          format: 'import |{bar}| {percentage}% | {rows} rows | {rate} rows/s | ETA {eta_formatted} | {errors} errors',
          stream: process.stderr,
          hideCursor: true,
        },
        cliProgress.Presets.shades_classic,
      )
    : null;
  bar?.start(size, 0, { rows: 0, rate: 0, errors: 0 });

  let persons: unknown[] = [];
  let personLines: number[] = [];
  let events: unknown[] = [];
  let eventLines: number[] = [];
  const send = async () => {
    if (!persons.length && !events.length) return;
    const chunk = { persons, events };
    const pl = personLines;
    const el = eventLines;
    persons = [];
    personLines = [];
    events = [];
    eventLines = [];
    const r = await sink(chunk);
    summary.imported.persons += r.imported.persons;
    summary.imported.events += r.imported.events;
    summary.duplicates += r.duplicates ?? 0;
    for (const e of r.errors)
      addError({ line: (e.kind === 'person' ? pl : el)[e.index] ?? -1, kind: e.kind, message: e.message });
    if (bar) {
      const secs = Math.max(0.001, (Date.now() - started) / 1000);
      bar.update(raw.bytesRead, {
        rows: summary.lines,
        rate: Math.round(summary.lines / secs),
        errors: summary.errorCount,
      });
    }
  };

  const rl = readline.createInterface({ input: stream, crlfDelay: Infinity });
  let lineNo = 0;
  // One chunk in flight while the next is read and parsed: the sink's async part (the DuckDB commit, or the
  // HTTP round trip) overlaps with this side's JSON parsing. Memory stays bounded at two chunks.
  let inflight: Promise<void> | null = null;
  const dispatch = async () => {
    if (inflight) await inflight;
    inflight = send();
    inflight.catch(() => undefined);
  };
  try {
    for await (const line of rl) {
      lineNo++;
      if (line.trim() === '') continue;
      summary.lines++;
      let o: unknown;
      try {
        o = JSON.parse(line);
      } catch (e) {
        addError({ line: lineNo, kind: 'parse', message: `invalid JSON: ${(e as Error).message.slice(0, 200)}` });
        continue;
      }
      if (typeof o !== 'object' || o === null || Array.isArray(o)) {
        addError({ line: lineNo, kind: 'parse', message: 'each line must be a JSON object' });
        continue;
      }
      if (isPerson(o as Record<string, unknown>)) {
        persons.push(o);
        personLines.push(lineNo);
      } else {
        events.push(o);
        eventLines.push(lineNo);
      }
      if (persons.length + events.length >= chunkRows) await dispatch();
    }
    await dispatch();
    await inflight;
  } catch (e) {
    if (inflight) await (inflight as Promise<void>).catch(() => undefined);
    if ((e as NodeJS.ErrnoException).code === 'Z_DATA_ERROR' || /gzip|incorrect header|unexpected end/i.test((e as Error).message))
      addError({ line: lineNo + 1, kind: 'parse', message: `the file is not valid gzip: ${(e as Error).message}` });
    else throw e;
  } finally {
    rl.close();
    raw.destroy();
    bar?.update(size, { rows: summary.lines, errors: summary.errorCount });
    bar?.stop();
  }
  return finish();
}
