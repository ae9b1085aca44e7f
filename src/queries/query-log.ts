import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { DuckDbEngine } from '../engines/duckdb/duckdb-engine';
import type { Page, Paged } from '../pagination';
import { parseInput } from '../validation';

/** One execution (or cache answer) of a query. */
export interface QueryLogEntry {
  id: string;
  project_id: number;
  query_id: string | null;
  event_time: string;
  /** `user:<id>/key:<id>` or `project:<id>/secret:<id>`: ids only, never a key. */
  principal: string | null;
  kind: string;
  name: string | null;
  /** The cache key: equal for the same normalized query. */
  query_hash: string;
  query: unknown;
  duration_ms: number;
  result_rows: number | null;
  result_bytes: number | null;
  is_cached: boolean;
  status: 'ok' | 'error' | 'cancelled';
  error_code: string | null;
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

/** The query_log table's columns, in insert order (the ClickHouse engine reads the same list). */
export const QUERY_LOG_COLUMNS = [
  'project_id',
  'id',
  'query_id',
  'event_time',
  'principal',
  'kind',
  'name',
  'query_hash',
  'query',
  'duration_ms',
  'result_rows',
  'result_bytes',
  'is_cached',
  'status',
  'error_code',
] as const;

/**
 * The query log lives in the event engine, so ProductQL can read it as the `query_log` table. Entries are
 * buffered and written in batches (DuckDB is slow at tiny transactions); a read flushes first.
 */
export class QueryLog {
  private buffer: QueryLogEntry[] = [];
  private timer: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly engine: DuckDbEngine,
    flushIntervalMs = 500,
  ) {
    this.timer = setInterval(() => void this.flush(), flushIntervalMs);
    this.timer.unref();
  }

  record(entry: Omit<QueryLogEntry, 'id' | 'event_time'> & { event_time?: Date }): void {
    this.buffer.push({ ...entry, id: randomUUID(), event_time: (entry.event_time ?? new Date()).toISOString() });
  }

  flush(): Promise<void> {
    const batch = this.buffer.splice(0);
    if (batch.length === 0) return this.writing;
    this.writing = this.writing.then(async () => {
      for (let i = 0; i < batch.length; i += 200) {
        const rows = batch.slice(i, i + 200);
        const params: unknown[] = [];
        const tuples = rows.map((r) => {
          const values = [
            r.project_id,
            r.id,
            r.query_id,
            new Date(r.event_time),
            r.principal,
            r.kind,
            r.name,
            r.query_hash,
            JSON.stringify(r.query ?? null),
            r.duration_ms,
            r.result_rows,
            r.result_bytes,
            r.is_cached,
            r.status,
            r.error_code,
          ];
          const start = params.length;
          params.push(...values);
          return `(${values.map((_, j) => `$${start + j + 1}`).join(', ')})`;
        });
        await this.engine
          .exec(`INSERT INTO query_log (${QUERY_LOG_COLUMNS.join(', ')}) VALUES ${tuples.join(', ')}`, params)
          .catch(() => undefined); // the log is diagnostics: losing a batch must not fail queries
      }
    });
    return this.writing;
  }

  /** A project's log, newest first, filtered. */
  async list(projectId: number, filters: unknown, page: Page): Promise<Paged<QueryLogEntry>> {
    const f = parseInput(queryLogFilters, filters ?? {});
    await this.flush();
    const where = ['project_id = $1'];
    const params: unknown[] = [projectId];
    const add = (sql: string, v: unknown) => {
      params.push(v);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (f.kind) add('kind = ?', f.kind);
    if (f.status) add('status = ?', f.status);
    if (f.is_cached) add('is_cached = ?', f.is_cached === 'true');
    if (f.query_hash) add('query_hash = ?', f.query_hash);
    if (f.error_code) add('error_code = ?', f.error_code);
    if (f.since) add('event_time >= ?', new Date(f.since));
    if (f.until) add('event_time < ?', new Date(f.until));
    const cond = where.join(' AND ');
    const count = await this.engine.query(`SELECT count(*) FROM query_log WHERE ${cond}`, params);
    const rows = await this.engine.query(
      `SELECT ${QUERY_LOG_COLUMNS.join(', ')} FROM query_log WHERE ${cond} ORDER BY event_time DESC, id LIMIT ${page.limit} OFFSET ${page.offset}`,
      params,
    );
    return {
      count: Number(count.rows[0][0]),
      results: rows.rows.map((r) => Object.fromEntries(QUERY_LOG_COLUMNS.map((c, i) => [c, r[i]])) as unknown as QueryLogEntry),
    };
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
