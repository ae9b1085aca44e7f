import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { DuckDbEngine } from '../engines/duckdb/duckdb-engine';
import type { EventEngine, QueryLogRecord } from '../engines/engine';
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
 * One INSERT for a whole batch, with the rows as a single JSON parameter (arrays in QUERY_LOG_COLUMNS order)
 * that DuckDB unpacks itself. Binding 15 parameters per row cost ~150 µs of CPU per row (under load, more than
 * serving the cached answers that are being logged); this costs ~10.
 */
const DUCKDB_INSERT_JSON =
  `INSERT INTO query_log (${QUERY_LOG_COLUMNS.join(', ')}) ` +
  'SELECT r[1]::INTEGER, r[2], r[3], epoch_ms(r[4]::BIGINT), r[5], r[6], r[7], r[8], r[9]::JSON, r[10]::DOUBLE, ' +
  'r[11]::BIGINT, r[12]::BIGINT, r[13]::BOOLEAN, r[14], r[15] ' +
  `FROM (SELECT unnest(from_json($1::JSON, '[["VARCHAR"]]')) AS r)`;

/** JSON of logged query nodes: a repeated request logs the same node object (QueryService.cachedRequest). */
const nodeJson = new WeakMap<object, string>();
function queryJson(query: unknown): string {
  if (query === null || typeof query !== 'object') return JSON.stringify(query ?? null);
  let text = nodeJson.get(query);
  if (text === undefined) nodeJson.set(query, (text = JSON.stringify(query)));
  return text;
}

/** Rows per INSERT; a buffer this full is written without waiting for the interval. */
const FLUSH_CHUNK = 2000;

/** A buffered entry: the time as epoch ms (an ISO string is made only for engines that want one). */
type Pending = Omit<QueryLogEntry, 'id' | 'event_time'> & { id: string; at: number };

/**
 * The query log lives in the event engine, so ProductQL can read it as the `query_log` table. Entries are
 * buffered and written in batches off the request path (DuckDB is slow at tiny transactions); a read flushes
 * first.
 */
export class QueryLog {
  /**
   * DuckDB: each entry as its JSON row text (one flat string per entry: under load the buffer lives through a
   * few young-generation collections, and a string costs them far less than an object graph). Other engines:
   * the entries.
   */
  private buffer: (string | Pending)[] = [];
  private timer: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();
  private readonly duckdbExec: DuckDbEngine['exec'] | undefined;

  constructor(
    private readonly engine: EventEngine,
    flushIntervalMs = 500,
  ) {
    const exec = (engine as Partial<Pick<DuckDbEngine, 'exec'>>).exec;
    this.duckdbExec = engine.dialect === 'duckdb' && typeof exec === 'function' ? exec.bind(engine) : undefined;
    this.timer = setInterval(() => void this.flush(), flushIntervalMs);
    this.timer.unref();
  }

  /** Buffers one entry (written within the flush interval, or at once past FLUSH_CHUNK entries). */
  record(entry: Omit<QueryLogEntry, 'id' | 'event_time'> & { event_time?: Date }): void {
    const id = randomUUID();
    const at = entry.event_time ? entry.event_time.getTime() : Date.now();
    if (this.duckdbExec !== undefined) {
      this.buffer.push(
        JSON.stringify([
          entry.project_id,
          id,
          entry.query_id,
          at,
          entry.principal,
          entry.kind,
          entry.name,
          entry.query_hash,
          queryJson(entry.query),
          entry.duration_ms,
          entry.result_rows,
          entry.result_bytes,
          entry.is_cached,
          entry.status,
          entry.error_code,
        ]),
      );
    } else {
      const { event_time: _t, ...rest } = entry;
      this.buffer.push({ ...rest, id, at });
    }
    if (this.buffer.length >= FLUSH_CHUNK) void this.flush();
  }

  flush(): Promise<void> {
    const batch = this.buffer;
    if (batch.length === 0) return this.writing;
    this.buffer = [];
    this.writing = this.writing.then(async () => {
      for (let i = 0; i < batch.length; i += FLUSH_CHUNK) {
        await this.write(batch.slice(i, i + FLUSH_CHUNK)).catch(() => undefined); // the log is diagnostics: losing a batch must not fail queries
      }
    });
    return this.writing;
  }

  private write(rows: (string | Pending)[]): Promise<void> {
    if (this.duckdbExec === undefined) {
      return this.engine.appendQueryLog(
        (rows as Pending[]).map(({ at, ...r }) => ({ ...r, event_time: new Date(at).toISOString() }) as QueryLogRecord),
      );
    }
    // DuckDB: the batch as one JSON parameter (DuckDbEngine.appendQueryLog binds 15 parameters per row; see above)
    return this.duckdbExec(DUCKDB_INSERT_JSON, [`[${(rows as string[]).join(',')}]`]);
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
    await this.flush();
  }
}
