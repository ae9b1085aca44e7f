/**
 * The ClickHouse event engine (`@clickhouse/client` over HTTP). Works with ClickHouse 18.16 (Debian's package:
 * no server-side parameters, so SQL arrives with literals already escaped by the printer) and current releases.
 *
 * - `open()` pings every configured node and fails with a clear message when one is unreachable, then creates
 *   the schema (schema.ts): on every node for a cluster (18.16 has no ON CLUSTER without ZooKeeper).
 * - `query()` runs with a query id; a timeout or an abort cancels the HTTP request and sends
 *   `KILL QUERY WHERE query_id = ...`, so the server stops working too.
 * - `writeBatch()` follows the Ingestor's contract (same WriteBatch as DuckDB) with appends only; the checkpoint is
 *   written last, so a failed batch is retried whole by the Ingestor (see schema.ts for why that is safe).
 *   Connection failures are reported as "I/O" errors, which the Ingestor retries forever instead of setting
 *   records aside: while ClickHouse is down, capture keeps acknowledging into the durable log and catches up later.
 */
import { randomUUID } from 'node:crypto';
import { createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import { UserError } from '../../errors';
import { bindPositional, chIdent, chLiteral, chString } from '../../productql/clickhouse-literals';
import type { EngineLogger, WriteBatch } from '../duckdb/duckdb-engine';
import type {
  ColumnType,
  EventEngine,
  GroupFilter,
  GroupRow,
  GroupTypeRow,
  ProjectCounts,
  ProjectGroups,
  ProjectIdentity,
  QueryLogFilter,
  QueryLogRecord,
  QueryOptions,
  QueryResult,
} from '../engine';
import { CLICKHOUSE_SCHEMA_VERSION, DATA_TABLES, localTable, missingColumnsDdl, nodeSchema, primarySchema } from './schema';

export interface ClickHouseEngineOptions {
  /** HTTP URL of the node queries go to, e.g. `http://127.0.0.1:8123`. */
  url: string;
  /**
   * Every node of the cluster (HTTP URLs), for schema creation and deletes. Default: just `url`. Needed because
   * 18.16 runs `ON CLUSTER` DDL only through ZooKeeper.
   */
  nodeUrls?: string[];
  username?: string;
  password?: string;
  /** Database holding Quarry's tables. Default `quarry`. */
  database?: string;
  /** Cluster name from the servers' `remote_servers`; when set, tables are sharded behind Distributed tables. */
  cluster?: string;
  logger?: EngineLogger;
  /** HTTP request timeout for internal statements, ms. Default 60,000. */
  requestTimeoutMs?: number;
}

const BASE_SETTINGS: ClickHouseSettings = {
  // LEFT JOIN misses are NULL (as in SQL and DuckDB), not the column type's default.
  join_use_nulls: 1,
  // `JOIN` means ALL JOIN (18.16 otherwise needs the strictness spelled out).
  join_default_strictness: 'ALL',
  // ProductQL may carry long literals (the printer splices them); the default 256 KiB is too small.
  max_query_size: '16777216',
};

const CLUSTER_SETTINGS: ClickHouseSettings = {
  // Subqueries over Distributed tables inside IN/JOIN run once on the initiator and are shipped to the shards.
  distributed_product_mode: 'global',
  insert_distributed_sync: 1,
};

/** Type names whose JSON values arrive quoted (64-bit and wider integers) and become numbers when safe. */
const WIDE_INT = /^(U?Int(64|128|256))$/;

function unwrap(t: string): string {
  let x = t;
  for (;;) {
    const m = /^(Nullable|LowCardinality)\((.*)\)$/.exec(x);
    if (!m) return x;
    x = m[2];
  }
}

/** Converts one value of a ClickHouse JSON result to the same JS shape DuckDB results have. */
function converter(type: string): (v: unknown) => unknown {
  const t = unwrap(type);
  const arr = /^Array\((.*)\)$/.exec(t);
  if (arr) {
    const inner = converter(arr[1]);
    return (v) => (Array.isArray(v) ? v.map(inner) : v);
  }
  if (WIDE_INT.test(t))
    return (v) => {
      if (typeof v !== 'string') return v;
      const n = Number(v);
      return Number.isSafeInteger(n) ? n : v;
    };
  if (/^(Float32|Float64)$/.test(t))
    // nan and ±inf read null, as on DuckDB (PostHog's orjson renderer writes them so)
    return (v) => {
      if (typeof v !== 'string') return v;
      const n = Number(v);
      return Number.isFinite(n) ? n : null;
    };
  return (v) => v;
}

/** Errors that mean the server could not be reached (retried by the Ingestor, never treated as bad data). */
function isConnectionError(e: unknown): boolean {
  // fetch() reports socket failures as `TypeError: fetch failed` with the system error as its cause.
  const cause = (e as { cause?: { code?: string; message?: string } })?.cause;
  const code = `${(e as { code?: string })?.code ?? ''} ${cause?.code ?? ''}`;
  const msg = `${(e as Error)?.message ?? ''} ${cause?.message ?? ''}`;
  return /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|socket hang up|Timeout error|other side closed/i.test(`${code} ${msg}`);
}

/** The connection was closed under a request (as opposed to refused, or timed out): a stale keep-alive socket. */
function isStaleSocketError(e: unknown): boolean {
  const cause = (e as { cause?: { code?: string; message?: string } })?.cause;
  return /ECONNRESET|EPIPE|socket hang up|other side closed/i.test(`${cause?.code ?? ''} ${cause?.message ?? ''} ${(e as Error)?.message ?? ''}`);
}

/**
 * Most tries of a request that keeps failing on closed kept-alive sockets: after an idle spell every socket of the
 * pool may be one (@clickhouse/client keeps up to 10), and each failed one is dropped, so this many reach a fresh
 * connection. Such failures are immediate, and a server that is down refuses instead (not retried here).
 */
const STALE_SOCKET_TRIES = 11;

/**
 * Runs `send` again when it failed on a kept-alive socket the server had closed while idle: ClickHouse's
 * keep_alive_timeout (3 s by default) can elapse before the client's own idle timer fires on a busy machine
 * (clickhouse-js issue 294), and the request fails before the server read it. That is not an outage. Not when
 * `aborted()` says the request was cut on purpose.
 */
async function retryStaleSocket<T>(send: () => Promise<T>, aborted: () => boolean = () => false): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (e) {
      if (attempt >= STALE_SOCKET_TRIES || aborted() || !isStaleSocketError(e)) throw e;
    }
  }
}

function connectionError(url: string, e: unknown): Error {
  return new Error(`ClickHouse I/O error: cannot reach ${url} (${(e as Error)?.message ?? String(e)})`);
}

/**
 * A query while ClickHouse does not answer: 503 with Retry-After in the standard error body, instead of a generic
 * internal error (the URL and cause are logged, not shown). The message keeps "I/O error": the Ingestor reads
 * through query() too and must retry such failures, never set records aside as bad data.
 */
function unavailableError(): UserError {
  return new UserError(
    503,
    'server_error',
    'service_unavailable',
    'The event store is unavailable (ClickHouse I/O error: the server does not answer). Retry later.',
    { retryAfter: 5 },
  );
}

/** The server's message without the echoed query or stack (`e.displayText() = DB::Exception: ...`). */
export function sanitizeClickHouseMessage(message: string): string {
  let m = message.replace(/^Code: \d+, e\.displayText\(\) = (DB::Exception: )?/, '').replace(/, e\.what\(\) = .*$/s, '');
  m = m.replace(/\s*\(version [^)]*\)\s*$/, '').trim();
  // Syntax errors echo the SQL after the position; alias conflicts echo expressions: keep only the diagnosis.
  m = m.replace(/(failed at position \d+(?: \(line \d+, col \d+\))?):.*?(\. Expected .*)?$/s, (_x, pos: string, exp?: string) => `${pos}${exp ?? ''}`);
  m = m.split('\n')[0].trim();
  return m.length > 500 ? `${m.slice(0, 500)}…` : m;
}

/** Monotonic microsecond clock for `_row_version`: later writes from this process always win. */
let lastVersion = 0;
function nextRowVersion(): number {
  const now = Date.now() * 1000;
  lastVersion = Math.max(now, lastVersion + 1);
  return lastVersion;
}

/** A `DateTime` column `x` with its `x_ms` companion, as epoch milliseconds (Int64). */
const msExpr = (col: string): string => `(toInt64(toUInt32(${col})) * 1000 + ${col}_ms)`;

const jsonValue = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
};
const jsonObject = (v: unknown): Record<string, unknown> => {
  const o = jsonValue(v);
  return o && typeof o === 'object' && !Array.isArray(o) ? (o as Record<string, unknown>) : {};
};

/** query_log fields in the order QueryLogRecord lists them. */
const QUERY_LOG_FIELDS = [
  'project_id', 'id', 'query_id', 'event_time', 'principal', 'kind', 'name', 'query_hash', 'query', 'duration_ms',
  'result_rows', 'result_bytes', 'is_cached', 'status', 'error_code',
] as const;

const secondsOf = (ms: number): number => Math.floor(ms / 1000);
const msOf = (ms: number): number => ((Math.trunc(ms) % 1000) + 1000) % 1000;

/**
 * The message of a server error body, as `@clickhouse/client` extracts it (current releases end it with the error
 * type, `... (UNKNOWN_IDENTIFIER) (version ...)`); 18.16's form is returned whole, for sanitizeClickHouseMessage.
 */
const SERVER_ERROR = /(Code|Error): (?<code>\d+).*Exception: (?<message>.+)\((?<type>(?=.+[A-Z]{3})[A-Z0-9_]+?)\)/s;
function serverErrorMessage(body: string): string {
  return SERVER_ERROR.exec(body)?.groups?.message ?? body;
}

/** What query() sends with every request: built once per engine. */
interface QueryEndpoint {
  /** The query node's URL without search part. */
  url: string;
  /** `&`-prefixed URL parameters: database and the session settings. */
  fixed: string;
  headers: Record<string, string>;
  /**
   * The same database and settings as statements, for a query with stages: `CREATE TEMPORARY TABLE ... AS SELECT`
   * runs its SELECT in the HTTP session's context, which URL parameters do not reach.
   */
  sessionSetup: { use: string; settings: string };
}

function queryEndpoint(options: ClickHouseEngineOptions, database: string): QueryEndpoint {
  const u = new URL(options.url);
  u.search = '';
  u.hash = '';
  const settings = { ...BASE_SETTINGS, ...(options.cluster ? CLUSTER_SETTINGS : {}) };
  const fixed = new URLSearchParams([['database', database], ...Object.entries(settings).map(([k, v]) => [k, String(v)])]).toString();
  const auth = Buffer.from(`${options.username ?? 'default'}:${options.password ?? ''}`).toString('base64');
  // Stage tables keep the blocks their INSERT receives (no squashing), so they read back on every thread.
  const set = { ...settings, min_insert_block_size_rows: 0, min_insert_block_size_bytes: 0 };
  const sessionSetup = { use: `USE ${chIdent(database)}`, settings: Object.entries(set).map(([k, v]) => `${k} = ${/^\d+$/.test(String(v)) ? v : chLiteral(v)}`).join(', ') };
  return { url: u.toString(), fixed: `&${fixed}`, headers: { Authorization: `Basic ${auth}`, 'Content-Type': 'text/plain; charset=utf-8' }, sessionSetup };
}

export class ClickHouseEngine implements EventEngine {
  readonly dialect = 'clickhouse' as const;
  private readonly versions = new Map<number, number>();
  private closed = false;
  private readonly endpoint: QueryEndpoint;

  private constructor(
    private readonly client: ClickHouseClient,
    private readonly nodes: { url: string; client: ClickHouseClient }[],
    private readonly opts: Required<Pick<ClickHouseEngineOptions, 'database'>> & ClickHouseEngineOptions,
  ) {
    this.endpoint = queryEndpoint(opts, opts.database);
  }

  /** Connects, checks every node answers, and creates the schema. Throws a clear error when a node is unreachable. */
  static async open(options: ClickHouseEngineOptions): Promise<ClickHouseEngine> {
    const database = options.database ?? 'quarry';
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(database)) throw new Error(`Invalid ClickHouse database name: ${database}`);
    const settings = { ...BASE_SETTINGS, ...(options.cluster ? CLUSTER_SETTINGS : {}) };
    const make = (url: string, db: string) =>
      createClient({
        url,
        username: options.username ?? 'default',
        password: options.password ?? '',
        database: db,
        request_timeout: options.requestTimeoutMs ?? 60_000,
        clickhouse_settings: settings,
        compression: { request: false, response: false },
        // idle sockets go well before ClickHouse's keep_alive_timeout (3 s by default), not 0.5 s before it as at
        // the client's default 2.5 s: a late timer on a busy machine then rarely hands out a closed one
        keep_alive: { enabled: true, idle_socket_ttl: 1500 },
      });
    const urls = options.nodeUrls?.length ? options.nodeUrls : [options.url];
    const bootstrap = urls.map((url) => ({ url, client: make(url, 'default') }));
    try {
      for (const n of bootstrap) {
        const r = await n.client.ping();
        if (!r.success)
          throw new Error(
            `ClickHouse is unreachable at ${n.url}: ${(r as { error?: Error }).error?.message ?? 'no answer'} (check QUARRY_CLICKHOUSE_URL and that the server is running)`,
          );
      }
      for (const n of bootstrap) {
        for (const ddl of nodeSchema(database, options.cluster)) await n.client.command({ query: ddl });
        const cols = await n.client.query({ query: `SELECT table, name FROM system.columns WHERE database = ${chString(database)}`, format: 'JSONEachRow' });
        const existing = new Set(((await cols.json()) as { table: string; name: string }[]).map((c) => `${c.table}.${c.name}`));
        for (const ddl of missingColumnsDdl(database, existing, options.cluster)) await n.client.command({ query: ddl });
      }
      for (const ddl of primarySchema(database)) await bootstrap[0].client.command({ query: ddl });
    } finally {
      await Promise.all(bootstrap.map((n) => n.client.close()));
    }
    const nodes = urls.map((url) => ({ url, client: make(url, database) }));
    const engine = new ClickHouseEngine(make(options.url, database), nodes, { ...options, database });
    const v = await engine.internal(`SELECT count() FROM quarry_schema WHERE version = ${CLICKHOUSE_SCHEMA_VERSION}`);
    if (Number(v.rows[0][0]) === 0)
      await engine.exec(`INSERT INTO quarry_schema VALUES (${CLICKHOUSE_SCHEMA_VERSION}, now())`);
    for (const [projectId] of (await engine.internal('SELECT DISTINCT project_id FROM person_overrides')).rows) engine.overrideProjects.add(Number(projectId));
    for (const [projectId] of (await engine.internal('SELECT DISTINCT project_id FROM events WHERE isNull(person_id)')).rows)
      engine.personlessProjects.add(Number(projectId));
    return engine;
  }

  /**
   * Projects with at least one person-override row (tombstones included), as DuckDbEngine keeps them: read at open,
   * marked before a batch's overrides are inserted. Like the data versions, this assumes this server is the one
   * writer of the database (`quarry migrate-events` runs while the server is stopped).
   */
  private readonly overrideProjects = new Set<number>();

  hasPersonOverrides(projectId: number): boolean {
    return this.overrideProjects.has(projectId);
  }

  /** Projects that may hold events without a person, kept as DuckDbEngine keeps them (read at open, marked on write). */
  private readonly personlessProjects = new Set<number>();

  hasPersonlessEvents(projectId: number): boolean {
    return this.personlessProjects.has(projectId);
  }

  dataVersion(projectId: number): number {
    return this.versions.get(projectId) ?? 0;
  }

  private bump(projectId: number): void {
    this.versions.set(projectId, (this.versions.get(projectId) ?? 0) + 1);
  }

  /**
   * Runs printed SQL. `params` bind `?` placeholders client-side (escaped literals; ProductQL output has none).
   * Server errors become `query_error` (400) without the SQL; timeout/abort kill the query and become
   * `query_timeout` (504); an unreachable server is `service_unavailable` (503, Retry-After).
   *
   * `stages` (the printer's materialized CTEs) run first, in one HTTP session: each becomes a temporary Memory
   * table that only this session sees, the query reads them, and they are dropped after it (the server also drops
   * them when the session expires, should this process go away). The session keeps the blocks an INSERT receives
   * as they come (no squashing), so the table reads back on every thread.
   */
  async query(sql: string, params: readonly unknown[] = [], options: QueryOptions = {}): Promise<QueryResult> {
    if (this.closed) throw new Error('engine is closed');
    const { signal, timeoutMs } = options;
    if (signal?.aborted) throw abortError(signal);
    const stages = options.stages ?? [];
    const queryId = randomUUID();
    // The statement running now (KILL QUERY takes its id).
    let current: string = queryId;
    const ctl = new AbortController();
    let why: 'timeout' | 'abort' | 'request' | null = null;
    const interrupt = (w: 'timeout' | 'abort' | 'request') => {
      if (why) return;
      why = w;
      ctl.abort();
      void this.kill(current);
    };
    const timer = timeoutMs && timeoutMs > 0 ? setTimeout(() => interrupt('timeout'), timeoutMs) : null;
    // The HTTP request timeout @clickhouse/client applied (requestTimeoutMs): a server that stops answering is
    // reported as unavailable, like a refused connection.
    const requestTimer = setTimeout(() => interrupt('request'), this.opts.requestTimeoutMs ?? 60_000);
    const onAbort = () => interrupt('abort');
    signal?.addEventListener('abort', onAbort, { once: true });
    const maxSeconds = timeoutMs && timeoutMs > 0 ? Math.ceil(timeoutMs / 1000) + 1 : 0;
    const exec = maxSeconds ? `&max_execution_time=${maxSeconds}` : '';
    const session = stages.length ? `&session_id=${queryId}` : '';
    // One POST with plain fetch (keep-alive): @clickhouse/client's per-request work (settings merge, URL object,
    // stream wrappers, logging) cost ~1.5 ms per query on loopback. Same URL parameters, body and format as it sent.
    const post = async (body: string, id: string): Promise<string> => {
      current = id;
      const send = () =>
        fetch(`${this.endpoint.url}?query_id=${id}${this.endpoint.fixed}${exec}${session}`, {
          method: 'POST',
          headers: this.endpoint.headers,
          body,
          signal: ctl.signal,
        });
      const res = await retryStaleSocket(send, () => ctl.signal.aborted);
      const raw = await res.text();
      if (res.status !== 200) throw new Error(serverErrorMessage(raw));
      return raw;
    };
    try {
      if (stages.length) {
        const { use, settings } = this.endpoint.sessionSetup;
        await post(use, `${queryId}-use`);
        await post(`SET ${settings}${maxSeconds ? `, max_execution_time = ${maxSeconds}` : ''}`, `${queryId}-set`);
        for (const [i, st] of stages.entries())
          await post(`CREATE TEMPORARY TABLE ${chIdent(st.table)} ENGINE = Memory AS ${formatQuery(bindPositional(st.sql, params))}`, `${queryId}-stage${i}`);
      }
      const raw = await post(`${formatQuery(bindPositional(sql, params))} \nFORMAT JSONCompact`, queryId);
      let body: { meta: { name: string; type: string }[]; data: unknown[][] };
      try {
        body = JSON.parse(raw) as typeof body;
      } catch {
        // An exception after the result started streaming is appended to the 200 body.
        const at = raw.lastIndexOf('Code: ');
        throw new Error(at >= 0 ? serverErrorMessage(raw.slice(at)) : 'Malformed ClickHouse response');
      }
      const types: ColumnType[] = body.meta.map((m) => m.type);
      const conv = types.map(converter);
      return { columns: body.meta.map((m) => m.name), types, rows: body.data.map((r) => r.map((v, i) => conv[i](v))) };
    } catch (e) {
      if (why === 'request') {
        this.opts.logger?.error({ err: 'request timeout' }, 'clickhouse unreachable');
        throw unavailableError();
      }
      if (why) throw interruptedError(why, timeoutMs, signal);
      const msg = (e as Error)?.message ?? String(e);
      if (/Timeout exceeded|TIMEOUT_EXCEEDED/.test(msg)) throw interruptedError('timeout', timeoutMs);
      if (isConnectionError(e)) {
        this.opts.logger?.error({ err: msg }, 'clickhouse unreachable');
        throw unavailableError();
      }
      throw new UserError(400, 'validation_error', 'query_error', sanitizeClickHouseMessage(msg));
    } finally {
      if (timer) clearTimeout(timer);
      clearTimeout(requestTimer);
      signal?.removeEventListener('abort', onAbort);
      if (stages.length) await this.dropStages(session, stages);
    }
  }

  /**
   * Drops a query's stage tables (best effort: after a kill the session may still be busy; the server then drops
   * them when the session expires).
   */
  private async dropStages(session: string, stages: readonly { table: string }[]): Promise<void> {
    for (const st of stages) {
      try {
        const res = await fetch(`${this.endpoint.url}?${this.endpoint.fixed.slice(1)}${session}`, {
          method: 'POST',
          headers: this.endpoint.headers,
          body: `DROP TEMPORARY TABLE IF EXISTS ${chIdent(st.table)}`,
        });
        await res.text();
      } catch (e) {
        this.opts.logger?.warn({ err: (e as Error).message }, 'dropping a stage table failed');
      }
    }
  }

  /** Best effort: the query may already have finished. */
  private async kill(queryId: string): Promise<void> {
    try {
      await this.client.command({ query: `KILL QUERY WHERE query_id = ${chString(queryId)} ASYNC` });
    } catch (e) {
      this.opts.logger?.warn({ err: (e as Error).message, queryId }, 'KILL QUERY failed');
    }
  }

  /** Internal read (no error translation beyond connection errors). */
  private async internal(sql: string, params: readonly unknown[] = []): Promise<QueryResult> {
    try {
      const rs = await retryStaleSocket(() => this.client.query({ query: bindPositional(sql, params), format: 'JSONCompact' }));
      const body = (await rs.json()) as unknown as { meta: { name: string; type: string }[]; data: unknown[][] };
      const conv = body.meta.map((m) => converter(m.type));
      return { columns: body.meta.map((m) => m.name), types: body.meta.map((m) => m.type), rows: body.data.map((r) => r.map((v, i) => conv[i](v))) };
    } catch (e) {
      throw isConnectionError(e) ? connectionError(this.opts.url, e) : e;
    }
  }

  /** Runs a statement on the query node (internal: DDL, inserts with literals). */
  async exec(sql: string, params: readonly unknown[] = []): Promise<void> {
    try {
      await retryStaleSocket(() => this.client.command({ query: bindPositional(sql, params) }));
    } catch (e) {
      throw isConnectionError(e) ? connectionError(this.opts.url, e) : e;
    }
  }

  private async insert(table: string, values: Record<string, unknown>[]): Promise<void> {
    if (values.length === 0) return;
    try {
      await retryStaleSocket(() => this.client.insert({ table, values, format: 'JSONEachRow' }));
    } catch (e) {
      throw isConnectionError(e) ? connectionError(this.opts.url, e) : e;
    }
  }

  /** The durable-log sequence number whose events are all in ClickHouse (0 when none). */
  async getCheckpoint(): Promise<number> {
    const r = await this.internal('SELECT max(applied_seq) FROM ingest_checkpoint');
    return Number(r.rows[0]?.[0] ?? 0);
  }

  // ---------------------------------------------------------------------------------- internal statements
  // engine.ts InternalStatements in ClickHouse SQL. Replacing tables are read with FINAL and `is_deleted = 0`
  // (schema.ts); datetimes are `x` (seconds) + `x_ms`.

  /** Every live person, distinct id and override of a project (the Ingestor's identity loader). */
  async loadIdentity(projectId: number): Promise<ProjectIdentity> {
    const p = chLiteral(projectId);
    const [persons, dids, overrides] = await Promise.all([
      this.internal(`SELECT toString(id), ${msExpr('created_at')}, properties, is_identified, version FROM persons FINAL WHERE project_id = ${p} AND is_deleted = 0`),
      this.internal(`SELECT distinct_id, toString(person_id), version, seq FROM person_distinct_ids FINAL WHERE project_id = ${p} AND is_deleted = 0`),
      this.internal(`SELECT toString(old_person_id), toString(override_person_id), version FROM person_overrides FINAL WHERE project_id = ${p} AND is_deleted = 0`),
    ]);
    return {
      persons: persons.rows.map((r) => ({ id: String(r[0]), created_at: Number(r[1]), properties: jsonObject(r[2]), is_identified: Number(r[3]) === 1, version: Number(r[4]) })),
      distinctIds: dids.rows.map((r) => ({ distinct_id: String(r[0]), person_id: String(r[1]), version: Number(r[2]), seq: Number(r[3]) })),
      overrides: overrides.rows.map((r) => ({ old_person_id: String(r[0]), override_person_id: String(r[1]), version: Number(r[2]) })),
    };
  }

  /** Every live group type and group of a project (the Ingestor's group store). */
  async loadGroups(projectId: number): Promise<ProjectGroups> {
    const [types, groups] = await Promise.all([
      this.listGroupTypes(projectId),
      this.internal(`SELECT ${GROUP_COLUMNS} FROM groups FINAL WHERE project_id = ${chLiteral(projectId)} AND is_deleted = 0`),
    ]);
    return { types, groups: groups.rows.map(groupRow) };
  }

  /** A project's live group types, by index. */
  async listGroupTypes(projectId: number): Promise<GroupTypeRow[]> {
    const r = await this.internal(
      `SELECT group_type, group_type_index, name_singular, name_plural FROM group_type_mapping FINAL
       WHERE project_id = ${chLiteral(projectId)} AND is_deleted = 0 ORDER BY group_type_index`,
    );
    return r.rows.map((x) => ({ group_type: String(x[0]), group_type_index: Number(x[1]), name_singular: x[2] === null ? null : String(x[2]), name_plural: x[3] === null ? null : String(x[3]) }));
  }

  /** Groups of one type, newest first (ties by key). */
  async listGroups(projectId: number, filter: GroupFilter, page: { limit: number; offset: number }): Promise<GroupRow[]> {
    let cond = `project_id = ${chLiteral(projectId)} AND group_type_index = ${chLiteral(filter.group_type_index)} AND is_deleted = 0`;
    if (filter.search !== undefined) {
      const q = chString(filter.search.toLowerCase());
      cond += ` AND (lowerUTF8(group_key) = ${q} OR position(lowerUTF8(properties), ${q}) > 0)`;
    }
    const limit = Math.max(0, Math.floor(page.limit));
    const offset = Math.max(0, Math.floor(page.offset));
    const r = await this.internal(
      `SELECT ${GROUP_COLUMNS} FROM groups FINAL WHERE ${cond} ORDER BY ${msExpr('created_at')} DESC, group_key LIMIT ${limit} OFFSET ${offset}`,
    );
    return r.rows.map(groupRow);
  }

  /** One live group, or null. */
  async getGroup(projectId: number, groupTypeIndex: number, groupKey: string): Promise<GroupRow | null> {
    const r = await this.internal(
      `SELECT ${GROUP_COLUMNS} FROM groups FINAL WHERE project_id = ${chLiteral(projectId)} AND group_type_index = ${chLiteral(groupTypeIndex)}
       AND group_key = ${chString(groupKey)} AND is_deleted = 0`,
    );
    return r.rows.length ? groupRow(r.rows[0]) : null;
  }

  /** Deletes a group type and the groups of its index (mutations on every node; waits for them). */
  async deleteGroupType(projectId: number, groupTypeIndex: number): Promise<void> {
    if (!Number.isSafeInteger(projectId) || !Number.isSafeInteger(groupTypeIndex)) throw new Error('projectId and groupTypeIndex must be integers');
    for (const t of ['groups', 'group_type_mapping']) await this.mutateDelete(t, `project_id = ${projectId} AND group_type_index = ${groupTypeIndex}`);
    this.bump(projectId);
  }

  /** `[project_id, uuid]` of events created at or after `since`, at most `limit`. */
  async recentEventUuids(since: Date, limit: number): Promise<[number, string][]> {
    const t = since.getTime();
    // The seconds column first (prunes by partition and index where it can), then the exact millisecond bound.
    const r = await this.internal(
      `SELECT project_id, toString(uuid) FROM events WHERE created_at >= toDateTime(${Math.floor(t / 1000)}, 'UTC') AND ${msExpr('created_at')} >= ${t} LIMIT ${Math.max(0, Math.floor(limit))}`,
    );
    return r.rows.map((x) => [Number(x[0]), String(x[1])]);
  }

  /** True when the project has a live person with this id (any letter case). */
  async personExists(projectId: number, personId: string): Promise<boolean> {
    if (!/^[0-9a-f]{8}-?([0-9a-f]{4}-?){3}[0-9a-f]{12}$/i.test(personId)) return false;
    const id = personId.toLowerCase().replace(/^(.{8})-?(.{4})-?(.{4})-?(.{4})-?(.{12})$/, '$1-$2-$3-$4-$5');
    const r = await this.internal(`SELECT 1 FROM persons FINAL WHERE project_id = ${chLiteral(projectId)} AND id = toUUID(${chString(id)}) AND is_deleted = 0 LIMIT 1`);
    return r.rows.length > 0;
  }

  /** Appends query-log rows in one INSERT (on a cluster: through the Distributed table). */
  async appendQueryLog(rows: readonly QueryLogRecord[]): Promise<void> {
    if (rows.length === 0) return;
    await this.insert(
      'query_log',
      rows.map((r) => {
        const t = Date.parse(r.event_time);
        return {
          project_id: r.project_id,
          id: r.id,
          query_id: r.query_id,
          event_time: secondsOf(t),
          event_time_ms: msOf(t),
          principal: r.principal,
          kind: r.kind,
          name: r.name,
          query_hash: r.query_hash,
          query: JSON.stringify(r.query ?? null),
          duration_ms: r.duration_ms,
          result_rows: r.result_rows,
          result_bytes: r.result_bytes,
          is_cached: r.is_cached ? 1 : 0,
          status: r.status,
          error_code: r.error_code,
        };
      }),
    );
  }

  /** A mutation, so only when there is something to delete (the log is pruned hourly). */
  async pruneQueryLog(before: Date): Promise<void> {
    const where = `event_time < toDateTime(${Math.floor(before.getTime() / 1000)}, 'UTC')`;
    const old = await this.internal(`SELECT count() FROM query_log WHERE ${where}`);
    if (Number(old.rows[0][0]) > 0) await this.mutateDelete('query_log', where);
  }

  /** A project's query log, newest first (ties by id), with the total matching count. */
  async listQueryLog(projectId: number, filter: QueryLogFilter, page: { limit: number; offset: number }): Promise<{ count: number; rows: QueryLogRecord[] }> {
    // Table-qualified columns and positional aliases: on 18.16 an alias named like a column would shadow it in WHERE.
    const evTime = msExpr('__ql.event_time');
    const where = [`__ql.project_id = ${chLiteral(projectId)}`];
    const eq = (col: string, v: unknown) => where.push(`__ql.${col} = ${chLiteral(v)}`);
    if (filter.kind !== undefined) eq('kind', filter.kind);
    if (filter.status !== undefined) eq('status', filter.status);
    if (filter.is_cached !== undefined) eq('is_cached', filter.is_cached ? 1 : 0);
    if (filter.query_hash !== undefined) eq('query_hash', filter.query_hash);
    if (filter.error_code !== undefined) eq('error_code', filter.error_code);
    if (filter.since) where.push(`${evTime} >= ${filter.since.getTime()}`);
    if (filter.until) where.push(`${evTime} < ${filter.until.getTime()}`);
    const cond = where.join(' AND ');
    const cols = QUERY_LOG_FIELDS;
    const select = cols.map((c, i) => `${c === 'event_time' ? evTime : `__ql.${c}`} AS __c${i}`);
    const limit = Math.max(0, Math.floor(page.limit));
    const offset = Math.max(0, Math.floor(page.offset));
    const [count, rows] = await Promise.all([
      this.internal(`SELECT count() FROM query_log AS __ql WHERE ${cond}`),
      this.internal(`SELECT ${select.join(', ')} FROM query_log AS __ql WHERE ${cond} ORDER BY ${evTime} DESC, __ql.id LIMIT ${limit} OFFSET ${offset}`),
    ]);
    return {
      count: Number(count.rows[0][0]),
      rows: rows.rows.map(
        (r) =>
          Object.fromEntries(
            cols.map((c, i) => [c, c === 'event_time' ? new Date(Number(r[i])).toISOString() : c === 'is_cached' ? Number(r[i]) === 1 : c === 'query' ? jsonValue(r[i]) : r[i]]),
          ) as unknown as QueryLogRecord,
      ),
    };
  }

  /** Live row counts of one project (events: distinct uuids, so a retried batch not yet merged counts once). */
  async projectCounts(projectId: number): Promise<ProjectCounts> {
    const p = chLiteral(projectId);
    const one = async (sql: string) => Number((await this.internal(sql)).rows[0][0]);
    const [events, persons, dids, overrides] = await Promise.all([
      one(`SELECT uniqExact(uuid) FROM events WHERE project_id = ${p}`),
      one(`SELECT count() FROM persons FINAL WHERE project_id = ${p} AND is_deleted = 0`),
      one(`SELECT count() FROM person_distinct_ids FINAL WHERE project_id = ${p} AND is_deleted = 0`),
      one(`SELECT count() FROM person_overrides FINAL WHERE project_id = ${p} AND is_deleted = 0`),
    ]);
    return { events, persons, person_distinct_ids: dids, person_overrides: overrides };
  }

  /**
   * Applies one ingest batch: identity rows and events (concurrently), then the checkpoint. Not atomic (ClickHouse has no
   * transactions): a failure part-way leaves the checkpoint behind, and the Ingestor retries the whole batch;
   * identity rows are replaced by key and events collapse by uuid (schema.ts).
   */
  async writeBatch(batch: WriteBatch): Promise<void> {
    if (this.closed) throw new Error('engine is closed');
    const personRow = (p: { project_id: number; id: string; created_at: number; properties: Record<string, unknown>; is_identified: boolean; version: number }) => ({
      project_id: p.project_id,
      id: p.id,
      created_at: secondsOf(p.created_at),
      created_at_ms: msOf(p.created_at),
      properties: JSON.stringify(p.properties ?? {}),
      is_identified: p.is_identified ? 1 : 0,
      version: p.version,
      is_deleted: 0,
      _row_version: nextRowVersion(),
    });
    const persons = [...(batch.newPersons ?? []), ...(batch.persons ?? [])].map(personRow);
    for (const d of batch.deletedPersons ?? [])
      persons.push({ project_id: d.project_id, id: d.id, created_at: 0, created_at_ms: 0, properties: '{}', is_identified: 0, version: 0, is_deleted: 1, _row_version: nextRowVersion() });
    // The tables are independent: their inserts go out together (one round trip's wait instead of up to six in a
    // row); the checkpoint follows once all of them are in.
    const inserts: Promise<void>[] = [this.insert('persons', persons)];
    inserts.push(
      this.insert(
        'person_distinct_ids',
        [...(batch.newDistinctIds ?? []), ...(batch.distinctIds ?? [])].map((d) => ({
          project_id: d.project_id,
          distinct_id: d.distinct_id,
          person_id: d.person_id,
          version: d.version,
          is_deleted: 0,
          _row_version: nextRowVersion(),
          seq: d.seq ?? 0,
        })),
      ),
    );
    for (const o of batch.overrides ?? []) this.overrideProjects.add(o.project_id);
    inserts.push(
      this.insert(
        'person_overrides',
        (batch.overrides ?? []).map((o) => ({
          project_id: o.project_id,
          old_person_id: o.old_person_id,
          override_person_id: o.override_person_id,
          version: o.version,
          is_deleted: 0,
          _row_version: nextRowVersion(),
        })),
      ),
    );
    inserts.push(
      this.insert(
        'groups',
        (batch.groups ?? []).map((g) => ({
          project_id: g.project_id,
          group_type_index: g.group_type_index,
          group_key: g.group_key,
          created_at: secondsOf(g.created_at),
          created_at_ms: msOf(g.created_at),
          properties: JSON.stringify(g.properties ?? {}),
          version: g.version,
          is_deleted: 0,
          _row_version: nextRowVersion(),
        })),
      ),
    );
    inserts.push(
      this.insert(
        'group_type_mapping',
        (batch.groupTypes ?? []).map((t) => ({
          project_id: t.project_id,
          group_type: t.group_type,
          group_type_index: t.group_type_index,
          name_singular: t.name_singular,
          name_plural: t.name_plural,
          is_deleted: 0,
          _row_version: nextRowVersion(),
        })),
      ),
    );
    for (const e of batch.events) if (e.person_id === null) this.personlessProjects.add(e.project_id);
    inserts.push(
      this.insert(
        'events',
        batch.events.map((e) => ({
          project_id: e.project_id,
          uuid: e.uuid,
          event: e.event,
          distinct_id: e.distinct_id,
          person_id: e.person_id,
          timestamp: secondsOf(e.timestamp),
          timestamp_ms: msOf(e.timestamp),
          properties: e.properties,
          $session_id: e.session_id,
          elements_chain: e.elements_chain,
          created_at: secondsOf(e.created_at),
          created_at_ms: msOf(e.created_at),
        })),
      ),
    );
    // every insert settles before a failure is reported: the Ingestor's retry never races a straggler of this try
    const failed = (await Promise.allSettled(inserts)).find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    if (batch.checkpoint !== undefined) await this.insert('ingest_checkpoint', [{ id: 1, applied_seq: batch.checkpoint }]);
    const touched = new Set<number>();
    for (const list of [batch.events, batch.persons, batch.newPersons, batch.newDistinctIds, batch.deletedPersons, batch.distinctIds, batch.overrides, batch.groups, batch.groupTypes])
      for (const row of list ?? []) touched.add(row.project_id);
    for (const p of touched) this.bump(p);
  }

  /** Runs `ALTER TABLE ... DELETE` on every node's physical table and waits for the mutations to finish. */
  private async mutateDelete(table: string, where: string): Promise<void> {
    const local = localTable(table, this.opts.cluster);
    // A mutation whose condition fails never finishes and blocks every later one: check it synchronously first.
    await retryStaleSocket(() => this.nodes[0].client.query({ query: `SELECT count() FROM \`${local}\` WHERE ${where}`, format: 'JSONCompact' })).then((r) => r.json());
    for (const n of this.nodes) {
      await retryStaleSocket(() => n.client.command({ query: `ALTER TABLE \`${local}\` DELETE WHERE ${where}` }));
    }
    const deadline = Date.now() + 60_000;
    for (const n of this.nodes) {
      for (;;) {
        const rs = await retryStaleSocket(() =>
          n.client.query({
            query: `SELECT count() FROM system.mutations WHERE database = ${chString(this.opts.database)} AND table = ${chString(local)} AND is_done = 0`,
            format: 'JSONCompact',
          }),
        );
        const body = (await rs.json()) as unknown as { data: unknown[][] };
        if (Number(body.data[0][0]) === 0) break;
        if (Date.now() > deadline) throw new Error(`ClickHouse mutation on ${local} did not finish within 60 s`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  /** Deletes every event, person, distinct id and override of a project (ClickHouse mutations; waits for them). */
  async deleteProject(projectId: number): Promise<void> {
    if (!Number.isSafeInteger(projectId)) throw new Error('projectId must be an integer');
    for (const t of DATA_TABLES.filter((x) => x !== 'query_log')) await this.mutateDelete(t, `project_id = ${projectId}`);
    this.bump(projectId);
  }

  /**
   * Deletes a person: tombstones for its row, its distinct ids and the overrides pointing at it (newest write
   * wins under FINAL); with `deleteEvents`, a mutation deletes its events (directly or through an override).
   */
  async deletePerson(projectId: number, personId: string, deleteEvents: boolean): Promise<void> {
    if (!/^[0-9a-f-]{36}$/i.test(personId)) throw new Error('personId must be a UUID');
    const pid = chString(personId.toLowerCase());
    const olds = await this.internal(
      `SELECT toString(old_person_id), version FROM person_overrides FINAL WHERE project_id = ? AND override_person_id = toUUID(${pid}) AND is_deleted = 0`,
      [projectId],
    );
    const dids = await this.internal(
      `SELECT distinct_id, version FROM person_distinct_ids FINAL WHERE project_id = ? AND person_id = toUUID(${pid}) AND is_deleted = 0`,
      [projectId],
    );
    if (deleteEvents) {
      // 18.16 cannot compare UUID with an IN list of UUIDs ("Expected UUID, got UInt128"): compare as text.
      const ids = [personId.toLowerCase(), ...olds.rows.map((r) => String(r[0]))].map((x) => chString(x));
      await this.mutateDelete('events', `project_id = ${projectId} AND toString(person_id) IN (${ids.join(', ')})`);
    }
    await this.insert('persons', [
      { project_id: projectId, id: personId.toLowerCase(), created_at: 0, created_at_ms: 0, properties: '{}', is_identified: 0, version: 0, is_deleted: 1, _row_version: nextRowVersion() },
    ]);
    await this.insert(
      'person_distinct_ids',
      dids.rows.map((r) => ({ project_id: projectId, distinct_id: r[0], person_id: personId.toLowerCase(), version: Number(r[1]), is_deleted: 1, _row_version: nextRowVersion() })),
    );
    await this.insert(
      'person_overrides',
      olds.rows.map((r) => ({ project_id: projectId, old_person_id: r[0], override_person_id: personId.toLowerCase(), version: Number(r[1]), is_deleted: 1, _row_version: nextRowVersion() })),
    );
    this.bump(projectId);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.client.close();
    await Promise.all(this.nodes.map((n) => n.client.close()));
  }
}

const GROUP_COLUMNS = `group_type_index, group_key, ${msExpr('created_at')}, properties, version`;

function groupRow(r: unknown[]): GroupRow {
  return { group_type_index: Number(r[0]), group_key: String(r[1]), created_at: Number(r[2]), properties: jsonObject(r[3]), version: Number(r[4]) };
}

/** The query text as @clickhouse/client sends it: trimmed, trailing semicolons removed (a FORMAT clause follows). */
function formatQuery(query: string): string {
  return query.trim().replace(/;+$/, '');
}

function abortError(signal: AbortSignal): Error {
  const r = signal.reason;
  if (r instanceof UserError) return r;
  return new UserError(504, 'server_error', 'query_timeout', 'Query was cancelled before it finished.');
}

function interruptedError(why: 'timeout' | 'abort', timeoutMs: number | undefined, signal?: AbortSignal): Error {
  if (why === 'abort' && signal) return abortError(signal);
  return new UserError(504, 'server_error', 'query_timeout', `Query exceeded the time limit${timeoutMs ? ` of ${timeoutMs} ms` : ''} and was cancelled.`);
}
