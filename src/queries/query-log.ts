import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { EventEngine, QueryLogBatch, QueryLogRecord, QueryLogShape } from '../engines/engine';
import type { Page, Paged } from '../pagination';
import { parseInput } from '../validation';

/**
 * One execution (or cache answer) of a query: the engine's query-log row, with `principal` as
 * `user:<id>/key:<id>` or `project:<id>/secret:<id>` (ids only, never a key) and `query_hash` the cache key.
 */
export interface QueryLogEntry extends QueryLogRecord {
  status: 'ok' | 'error' | 'cancelled';
}

export const queryLogFilters = z
  .object({
    kind: z.string().max(100).optional(),
    status: z.enum(['ok', 'error', 'cancelled']).optional(),
    is_cached: z.enum(['true', 'false']).optional(),
    query_hash: z.string().max(100).optional(),
    error_code: z.string().max(100).optional(),
    since: z.iso.datetime({ offset: true }).optional(),
    until: z.iso.datetime({ offset: true }).optional(),
  })
  .strip();

/** How often rows past the retention are deleted. */
const PRUNE_INTERVAL_MS = 3_600_000;

/** A buffer holding this many rows is written without waiting for the interval. */
export const FLUSH_ROWS = 16_384;

/** A growable {@link QueryLogBatch}; shapes are numbered by identity. */
class RowBuffer implements QueryLogBatch {
  length = 0;
  readonly shapes: QueryLogShape[] = [];
  private readonly index = new Map<QueryLogShape, number>();
  shape: Int32Array;
  time: Float64Array;
  duration: Float64Array;

  constructor(capacity = 1024) {
    this.shape = new Int32Array(capacity);
    this.time = new Float64Array(capacity);
    this.duration = new Float64Array(capacity);
  }

  push(shape: QueryLogShape, time: number, duration: number): void {
    let k = this.index.get(shape);
    if (k === undefined) {
      k = this.shapes.length;
      this.shapes.push(shape);
      this.index.set(shape, k);
    }
    const i = this.length;
    if (i === this.shape.length) this.grow();
    this.shape[i] = k;
    this.time[i] = time;
    this.duration[i] = duration;
    this.length = i + 1;
  }

  private grow(): void {
    const n = this.shape.length * 2;
    const shape = new Int32Array(n);
    shape.set(this.shape);
    const time = new Float64Array(n);
    time.set(this.time);
    const duration = new Float64Array(n);
    duration.set(this.duration);
    this.shape = shape;
    this.time = time;
    this.duration = duration;
  }
}

/** The rows of a batch as records (for engines without `appendQueryLogBatch`): ids made here. */
export function batchRecords(batch: QueryLogBatch, from = 0, to = batch.length): QueryLogRecord[] {
  const out: QueryLogRecord[] = [];
  for (let i = from; i < to; i++) {
    const s = batch.shapes[batch.shape[i]];
    out.push({
      project_id: s.project_id,
      id: randomUUID(),
      query_id: s.query_id,
      event_time: new Date(batch.time[i]).toISOString(),
      principal: s.principal,
      kind: s.kind,
      name: s.name,
      query_hash: s.query_hash,
      query: s.query,
      duration_ms: batch.duration[i],
      result_rows: s.result_rows,
      result_bytes: s.result_bytes,
      is_cached: s.is_cached,
      status: s.status,
      error_code: s.error_code,
    });
  }
  return out;
}

/** Rows per appendQueryLog call when a batch is written as records. */
const RECORD_PIECE_ROWS = 2000;

/**
 * The query log lives in the event engine, so ProductQL can read it as the `query_log` table. Every answer — a
 * cache hit too — is recorded, so recording is on the hot path: rows are buffered by column ({@link RowBuffer}: a
 * shape shared by the answers to one request, a time and a duration) and written in batches off the request path
 * (DuckDB is slow at tiny transactions, and a row object per answer filled value by value into the appender cost a
 * cached answer ~20 µs of its ~70). A read of the log through {@link list} writes what is buffered first, so a reader sees its own rows.
 */
export class QueryLog {
  private buffer = new RowBuffer();
  private timer: NodeJS.Timeout;
  private pruneTimer: NodeJS.Timeout | undefined;
  /** The write in progress (one batch); what is recorded meanwhile waits for the next flush. */
  private draining: Promise<void> | undefined;
  private readonly retentionDays: number;

  /**
   * @param options.flushIntervalMs how often the buffer is written (default 500 ms)
   * @param options.retentionDays rows older than this are deleted, at start and hourly (default 30; 0 keeps all)
   */
  constructor(
    private readonly engine: EventEngine,
    options: { flushIntervalMs?: number; retentionDays?: number } = {},
  ) {
    this.timer = setInterval(() => {
      if (this.draining === undefined) void this.flush();
    }, options.flushIntervalMs ?? 500);
    this.timer.unref();
    this.retentionDays = options.retentionDays ?? 30;
    if (this.retentionDays > 0) {
      void this.prune();
      this.pruneTimer = setInterval(() => void this.prune(), PRUNE_INTERVAL_MS);
      this.pruneTimer.unref();
    }
  }

  /** Deletes the rows older than the retention (from `now`). A failure is left for the next round. */
  prune(now = new Date()): Promise<void> {
    if (this.retentionDays <= 0) return Promise.resolve();
    const before = new Date(now.getTime() - this.retentionDays * 86_400_000);
    return this.engine.pruneQueryLog(before).catch(() => undefined);
  }

  /** Buffers one entry (written within the flush interval, or at once past FLUSH_ROWS rows). */
  record(entry: Omit<QueryLogEntry, 'id' | 'event_time'> & { event_time?: Date }): void {
    const shape: QueryLogShape = {
      project_id: entry.project_id,
      query_id: entry.query_id,
      principal: entry.principal,
      kind: entry.kind,
      name: entry.name,
      query_hash: entry.query_hash,
      query: entry.query,
      result_rows: entry.result_rows,
      result_bytes: entry.result_bytes,
      is_cached: entry.is_cached,
      status: entry.status,
      error_code: entry.error_code,
    };
    this.recordShape(shape, entry.duration_ms, entry.event_time !== undefined ? entry.event_time.getTime() : Date.now());
  }

  /**
   * {@link record} for a row of a known shape, answered now (or at `timeMs`) in `durationMs`. Pass the same shape
   * object for every answer that shares it (cache hits of one request): the buffer keeps it once. Shapes are
   * read when written, never changed: a changed field needs a new shape object.
   */
  recordShape(shape: QueryLogShape, durationMs: number, timeMs = Date.now()): void {
    this.buffer.push(shape, timeMs, durationMs);
    if (this.buffer.length >= FLUSH_ROWS && this.draining === undefined) void this.flush(); // else the next flush takes it
  }

  /**
   * Writes what is buffered; resolves once every entry recorded before the call is written. One write runs at a
   * time and takes the whole buffer; what is recorded meanwhile waits for the next flush (the interval, a full
   * buffer, or an explicit call, which waits for the running write first). Each write costs the engine a commit
   * (milliseconds of CPU whatever its size), so writes are not chained back to back: under load the rows of one
   * interval go in one write, and the log's memory is at most about two buffers.
   */
  flush(): Promise<void> {
    if (this.draining !== undefined) return this.draining.then(() => this.flush());
    if (this.buffer.length === 0) return Promise.resolve();
    const batch = this.buffer;
    this.buffer = new RowBuffer(Math.min(FLUSH_ROWS, Math.max(1024, batch.length)));
    // the log is diagnostics: losing a batch must not fail queries
    const d = (this.draining = this.write(batch)
      .catch(() => undefined)
      .finally(() => {
        if (this.draining === d) this.draining = undefined;
      }));
    return d;
  }

  private async write(batch: QueryLogBatch): Promise<void> {
    if (this.engine.appendQueryLogBatch) return this.engine.appendQueryLogBatch(batch);
    for (let i = 0; i < batch.length; i += RECORD_PIECE_ROWS) {
      await this.engine.appendQueryLog(batchRecords(batch, i, Math.min(batch.length, i + RECORD_PIECE_ROWS)));
    }
  }

  /** A project's log, newest first, filtered. */
  async list(projectId: number, filters: unknown, page: Page): Promise<Paged<QueryLogEntry>> {
    const f = parseInput(queryLogFilters, filters ?? {});
    await this.flush();
    const { count, rows } = await this.engine.listQueryLog(
      projectId,
      {
        kind: f.kind || undefined,
        status: f.status || undefined,
        is_cached: f.is_cached ? f.is_cached === 'true' : undefined,
        query_hash: f.query_hash || undefined,
        error_code: f.error_code || undefined,
        since: f.since ? new Date(f.since) : undefined,
        until: f.until ? new Date(f.until) : undefined,
      },
      page,
    );
    return { count, results: rows as QueryLogEntry[] };
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    clearInterval(this.pruneTimer);
    await this.flush();
  }
}
