import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { EventEngine, QueryLogRecord } from '../engines/engine';
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

let isoMs = Number.NaN;
let isoText = '';

/** `new Date().toISOString()`, built once per millisecond (a busy server logs many answers per millisecond). */
export function isoNow(): string {
  const now = Date.now();
  if (now !== isoMs) {
    isoText = new Date(now).toISOString();
    isoMs = now;
  }
  return isoText;
}

/** How often rows past the retention are deleted. */
const PRUNE_INTERVAL_MS = 3_600_000;

/** A buffer this full is written without waiting for the interval. */
const FLUSH_CHUNK = 2000;
/**
 * The query log lives in the event engine, so ProductQL can read it as the `query_log` table. Entries are
 * buffered and written in batches off the request path (DuckDB is slow at tiny transactions); a read flushes
 * first.
 */
export class QueryLog {
  private buffer: QueryLogRecord[] = [];
  private timer: NodeJS.Timeout;
  private pruneTimer: NodeJS.Timeout | undefined;
  /** The write in progress: it takes whatever is buffered, again and again, until the buffer is empty. */
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

  /**
   * Buffers one entry (written within the flush interval, or at once past FLUSH_CHUNK entries). Every answer —
   * a cache hit too — comes here, so this is on the hot path: the row is one object literal (no spread), and the
   * timestamp text is shared by the entries of one millisecond.
   */
  record(entry: Omit<QueryLogEntry, 'id' | 'event_time'> & { event_time?: Date }): void {
    this.buffer.push({
      project_id: entry.project_id,
      id: randomUUID(),
      query_id: entry.query_id,
      event_time: entry.event_time !== undefined ? entry.event_time.toISOString() : isoNow(),
      principal: entry.principal,
      kind: entry.kind,
      name: entry.name,
      query_hash: entry.query_hash,
      query: entry.query,
      duration_ms: entry.duration_ms,
      result_rows: entry.result_rows,
      result_bytes: entry.result_bytes,
      is_cached: entry.is_cached,
      status: entry.status,
      error_code: entry.error_code,
    });
    if (this.buffer.length >= FLUSH_CHUNK && this.draining === undefined) void this.flush(); // a running write takes it next
  }

  /**
   * Writes what is buffered; resolves once every entry recorded before the call is written. One write runs at a
   * time and takes the whole buffer, so a write that waits (for the engine's write lock, behind ingestion) is
   * followed by one larger write instead of a queue of small ones: the log cannot fall behind by more than one
   * buffer, and its memory is the buffer.
   */
  flush(): Promise<void> {
    if (this.draining !== undefined) return this.draining.then(() => this.flush());
    if (this.buffer.length === 0) return Promise.resolve();
    const d = (this.draining = this.drain().finally(() => {
      if (this.draining === d) this.draining = undefined;
    }));
    return d;
  }

  private async drain(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer;
      this.buffer = [];
      await this.engine.appendQueryLog(batch).catch(() => undefined); // the log is diagnostics: losing a batch must not fail queries
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
