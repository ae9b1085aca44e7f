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
import { bindPositional, chString } from '../../productql/clickhouse-literals';
import type { EngineLogger, WriteBatch } from '../duckdb/duckdb-engine';
import type { ColumnType, EventEngineBase, QueryOptions, QueryResult } from '../engine';
import { CLICKHOUSE_SCHEMA_VERSION, DATA_TABLES, localTable, nodeSchema, primarySchema } from './schema';

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
    return (v) => (typeof v === 'string' ? (v === 'nan' || v === 'inf' || v === '-inf' ? v : Number(v)) : v);
  return (v) => v;
}

/** Errors that mean the server could not be reached (retried by the Ingestor, never treated as bad data). */
function isConnectionError(e: unknown): boolean {
  const code = (e as { code?: string })?.code ?? '';
  const msg = (e as Error)?.message ?? '';
  return /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|socket hang up|Timeout error|other side closed/i.test(`${code} ${msg}`);
}

function connectionError(url: string, e: unknown): Error {
  return new Error(`ClickHouse I/O error: cannot reach ${url} (${(e as Error)?.message ?? String(e)})`);
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

const secondsOf = (ms: number): number => Math.floor(ms / 1000);
const msOf = (ms: number): number => ((Math.trunc(ms) % 1000) + 1000) % 1000;

export class ClickHouseEngine implements EventEngineBase {
  readonly dialect = 'clickhouse' as const;
  private readonly versions = new Map<number, number>();
  private closed = false;

  private constructor(
    private readonly client: ClickHouseClient,
    private readonly nodes: { url: string; client: ClickHouseClient }[],
    private readonly opts: Required<Pick<ClickHouseEngineOptions, 'database'>> & ClickHouseEngineOptions,
  ) {}

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
      for (const n of bootstrap) for (const ddl of nodeSchema(database, options.cluster)) await n.client.command({ query: ddl });
      for (const ddl of primarySchema(database)) await bootstrap[0].client.command({ query: ddl });
    } finally {
      await Promise.all(bootstrap.map((n) => n.client.close()));
    }
    const nodes = urls.map((url) => ({ url, client: make(url, database) }));
    const engine = new ClickHouseEngine(make(options.url, database), nodes, { ...options, database });
    const v = await engine.internal(`SELECT count() FROM quarry_schema WHERE version = ${CLICKHOUSE_SCHEMA_VERSION}`);
    if (Number(v.rows[0][0]) === 0)
      await engine.exec(`INSERT INTO quarry_schema VALUES (${CLICKHOUSE_SCHEMA_VERSION}, now())`);
    return engine;
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
   * `query_timeout` (504); an unreachable server is an internal error.
   */
  async query(sql: string, params: readonly unknown[] = [], options: QueryOptions = {}): Promise<QueryResult> {
    if (this.closed) throw new Error('engine is closed');
    const { signal, timeoutMs } = options;
    if (signal?.aborted) throw abortError(signal);
    const text = bindPositional(sql, params);
    const queryId = randomUUID();
    const ctl = new AbortController();
    let why: 'timeout' | 'abort' | null = null;
    const interrupt = (w: 'timeout' | 'abort') => {
      if (why) return;
      why = w;
      ctl.abort();
      void this.kill(queryId);
    };
    const timer = timeoutMs && timeoutMs > 0 ? setTimeout(() => interrupt('timeout'), timeoutMs) : null;
    const onAbort = () => interrupt('abort');
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const rs = await this.client.query({
        query: text,
        format: 'JSONCompact',
        query_id: queryId,
        abort_signal: ctl.signal,
        clickhouse_settings: timeoutMs && timeoutMs > 0 ? { max_execution_time: Math.ceil(timeoutMs / 1000) + 1 } : {},
      });
      const body = (await rs.json()) as unknown as { meta: { name: string; type: string }[]; data: unknown[][] };
      const types: ColumnType[] = body.meta.map((m) => m.type);
      const conv = types.map(converter);
      return { columns: body.meta.map((m) => m.name), types, rows: body.data.map((r) => r.map((v, i) => conv[i](v))) };
    } catch (e) {
      if (why) throw interruptedError(why, timeoutMs, signal);
      const msg = (e as Error)?.message ?? String(e);
      if (/Timeout exceeded|TIMEOUT_EXCEEDED/.test(msg)) throw interruptedError('timeout', timeoutMs);
      if (isConnectionError(e)) {
        this.opts.logger?.error({ err: msg }, 'clickhouse unreachable');
        throw connectionError(this.opts.url, e);
      }
      throw new UserError(400, 'validation_error', 'query_error', sanitizeClickHouseMessage(msg));
    } finally {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
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
      const rs = await this.client.query({ query: bindPositional(sql, params), format: 'JSONCompact' });
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
      await this.client.command({ query: bindPositional(sql, params) });
    } catch (e) {
      throw isConnectionError(e) ? connectionError(this.opts.url, e) : e;
    }
  }

  private async insert(table: string, values: Record<string, unknown>[]): Promise<void> {
    if (values.length === 0) return;
    try {
      await this.client.insert({ table, values, format: 'JSONEachRow' });
    } catch (e) {
      throw isConnectionError(e) ? connectionError(this.opts.url, e) : e;
    }
  }

  /** The durable-log sequence number whose events are all in ClickHouse (0 when none). */
  async getCheckpoint(): Promise<number> {
    const r = await this.internal('SELECT max(applied_seq) FROM ingest_checkpoint');
    return Number(r.rows[0]?.[0] ?? 0);
  }

  /**
   * Applies one ingest batch: identity rows, then events, then the checkpoint. Not atomic (ClickHouse has no
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
    await this.insert('persons', persons);
    await this.insert(
      'person_distinct_ids',
      [...(batch.newDistinctIds ?? []), ...(batch.distinctIds ?? [])].map((d) => ({
        project_id: d.project_id,
        distinct_id: d.distinct_id,
        person_id: d.person_id,
        version: d.version,
        is_deleted: 0,
        _row_version: nextRowVersion(),
      })),
    );
    await this.insert(
      'person_overrides',
      (batch.overrides ?? []).map((o) => ({
        project_id: o.project_id,
        old_person_id: o.old_person_id,
        override_person_id: o.override_person_id,
        version: o.version,
        is_deleted: 0,
        _row_version: nextRowVersion(),
      })),
    );
    await this.insert(
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
    );
    if (batch.checkpoint !== undefined) await this.insert('ingest_checkpoint', [{ id: 1, applied_seq: batch.checkpoint }]);
    const touched = new Set<number>();
    for (const list of [batch.events, batch.persons, batch.newPersons, batch.newDistinctIds, batch.deletedPersons, batch.distinctIds, batch.overrides])
      for (const row of list ?? []) touched.add(row.project_id);
    for (const p of touched) this.bump(p);
  }

  /** Runs `ALTER TABLE ... DELETE` on every node's physical table and waits for the mutations to finish. */
  private async mutateDelete(table: string, where: string): Promise<void> {
    const local = localTable(table, this.opts.cluster);
    // A mutation whose condition fails never finishes and blocks every later one: check it synchronously first.
    await this.nodes[0].client.query({ query: `SELECT count() FROM \`${local}\` WHERE ${where}`, format: 'JSONCompact' }).then((r) => r.json());
    for (const n of this.nodes) {
      await n.client.command({ query: `ALTER TABLE \`${local}\` DELETE WHERE ${where}` });
    }
    const deadline = Date.now() + 60_000;
    for (const n of this.nodes) {
      for (;;) {
        const rs = await n.client.query({
          query: `SELECT count() FROM system.mutations WHERE database = ${chString(this.opts.database)} AND table = ${chString(local)} AND is_done = 0`,
          format: 'JSONCompact',
        });
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

function abortError(signal: AbortSignal): Error {
  const r = signal.reason;
  if (r instanceof UserError) return r;
  return new UserError(504, 'server_error', 'query_timeout', 'Query was cancelled before it finished.');
}

function interruptedError(why: 'timeout' | 'abort', timeoutMs: number | undefined, signal?: AbortSignal): Error {
  if (why === 'abort' && signal) return abortError(signal);
  return new UserError(504, 'server_error', 'query_timeout', `Query exceeded the time limit${timeoutMs ? ` of ${timeoutMs} ms` : ''} and was cancelled.`);
}
