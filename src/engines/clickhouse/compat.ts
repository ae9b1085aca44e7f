/**
 * Lets the parts of Quarry that were written against DuckDbEngine (the Ingestor, the query log, the event
 * service) run on ClickHouse unchanged. They call the engine with a handful of fixed internal statements in
 * DuckDB spelling (`$1` placeholders, `::UUID` casts); this adapter recognizes exactly those statements and runs
 * ClickHouse equivalents. Anything else that carries `$n` placeholders is refused with a clear error (so a new
 * internal statement fails loudly in tests instead of misbehaving); ProductQL output (already ClickHouse SQL, no
 * placeholders) passes straight through.
 *
 * The cleaner end state is an engine-neutral interface for these statements (loadIdentity, recentUuids,
 * personExists, appendQueryLog, listQueryLog) implemented by both engines; that needs edits to ingestor.ts,
 * query-log.ts and event-service.ts, which belong to other work.
 */
import '../../productql/clickhouse';
import { chLiteral } from '../../productql/clickhouse-literals';
import type { ClickHouseConfig } from '../../config';
import type { DuckDbEngine, EngineLogger, WriteBatch } from '../duckdb/duckdb-engine';
import type { QueryOptions, QueryResult } from '../engine';
import { ClickHouseEngine } from './clickhouse-engine';
import { QUERY_LOG_COLUMNS } from '../../queries/query-log';

const ms = (col: string) => `(toInt64(toUInt32(${col})) * 1000 + ${col}_ms)`;
const norm = (sql: string) => sql.replace(/\s+/g, ' ').trim();


const parseJson = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
};

/** `$n` → escaped literal; Dates become epoch ms (compared against the `ms()` form of datetime columns). */
function bindDollar(sql: string, params: readonly unknown[]): string {
  return sql.replace(/\$(\d+)/g, (_m, d: string) => {
    const i = Number(d) - 1;
    if (i < 0 || i >= params.length) throw new Error(`missing parameter $${d}`);
    return chLiteral(params[i]);
  });
}

export class ClickHouseCompat {
  readonly dialect = 'clickhouse' as const;
  constructor(readonly engine: ClickHouseEngine) {}

  dataVersion(projectId: number): number {
    return this.engine.dataVersion(projectId);
  }
  writeBatch(batch: WriteBatch): Promise<void> {
    return this.engine.writeBatch(batch);
  }
  getCheckpoint(): Promise<number> {
    return this.engine.getCheckpoint();
  }
  deleteProject(projectId: number): Promise<void> {
    return this.engine.deleteProject(projectId);
  }
  deletePerson(projectId: number, personId: string, deleteEvents: boolean): Promise<void> {
    return this.engine.deletePerson(projectId, personId, deleteEvents);
  }
  close(): Promise<void> {
    return this.engine.close();
  }
  async readAll(sql: string, params: readonly unknown[] = []): Promise<unknown[][]> {
    return (await this.query(sql, params)).rows;
  }

  async query(sql: string, params: readonly unknown[] = [], options: QueryOptions = {}): Promise<QueryResult> {
    const s = norm(sql);
    if (!/\$\d/.test(s.replace(/'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`/g, ''))) return this.engine.query(sql, params, options);
    const p = (i: number) => chLiteral(params[i]);
    let m: RegExpExecArray | null;
    if (s === 'SELECT id::VARCHAR, epoch_ms(created_at), properties, is_identified, version FROM persons WHERE project_id = $1') {
      const r = await this.engine.query(
        `SELECT toString(id), ${ms('created_at')}, properties, is_identified, version FROM persons FINAL WHERE project_id = ${p(0)} AND is_deleted = 0`,
        [],
        options,
      );
      return { ...r, rows: r.rows.map((x) => [x[0], x[1], parseJson(x[2]), x[3] === 1, x[4]]) };
    }
    if (s === 'SELECT distinct_id, person_id::VARCHAR, version FROM person_distinct_ids WHERE project_id = $1')
      return this.engine.query(
        `SELECT distinct_id, toString(person_id), version FROM person_distinct_ids FINAL WHERE project_id = ${p(0)} AND is_deleted = 0`,
        [],
        options,
      );
    if (s === 'SELECT old_person_id::VARCHAR, override_person_id::VARCHAR, version FROM person_overrides WHERE project_id = $1')
      return this.engine.query(
        `SELECT toString(old_person_id), toString(override_person_id), version FROM person_overrides FINAL WHERE project_id = ${p(0)} AND is_deleted = 0`,
        [],
        options,
      );
    if ((m = /^SELECT project_id, uuid::VARCHAR FROM events WHERE created_at >= \$1 LIMIT (\d+)$/.exec(s))) {
      const since = params[0] instanceof Date ? (params[0] as Date).getTime() : Number(params[0]);
      return this.engine.query(`SELECT project_id, toString(uuid) FROM events WHERE ${ms('created_at')} >= ${chLiteral(since)} LIMIT ${m[1]}`, [], options);
    }
    if (s === 'SELECT 1 FROM persons WHERE project_id = $1 AND id = $2::UUID LIMIT 1')
      return this.engine.query(
        `SELECT 1 FROM persons FINAL WHERE project_id = ${p(0)} AND toString(id) = lower(${p(1)}) AND is_deleted = 0 LIMIT 1`,
        [],
        options,
      );
    if ((m = /^SELECT (count\(\*\)|[a-z_, ]+) FROM query_log WHERE (.+?)( ORDER BY event_time DESC, id LIMIT (\d+) OFFSET (\d+))?$/.exec(s))) {
      const [, what, cond, tail, limit, offset] = m;
      if (!/^(project_id|kind|status|is_cached|query_hash|error_code|event_time) (=|>=|<) \$\d+( AND (project_id|kind|status|is_cached|query_hash|error_code|event_time) (=|>=|<) \$\d+)*$/.test(cond))
        throw new Error(`ClickHouse compat: unsupported query_log condition: ${cond}`);
      const evTime = ms('__ql.event_time');
      const where = bindDollar(cond.replace(/\b(project_id|kind|status|is_cached|query_hash|error_code)\b/g, '__ql.$1').replace(/\bevent_time\b/g, evTime), params);
      if (what === 'count(*)') return this.engine.query(`SELECT count() FROM query_log AS __ql WHERE ${where}`, [], options);
      const cols = what.split(',').map((c) => c.trim());
      // Positional aliases: an alias named like a column would shadow that column in WHERE (ClickHouse 18.16).
      const select = cols.map((c, i) => `${c === 'event_time' ? evTime : `__ql.${c}`} AS __c${i}`);
      const r = await this.engine.query(
        `SELECT ${select.join(', ')} FROM query_log AS __ql WHERE ${where}${tail ? ` ORDER BY ${evTime} DESC, __ql.id LIMIT ${limit} OFFSET ${offset}` : ''}`,
        [],
        options,
      );
      return {
        ...r,
        rows: r.rows.map((row) =>
          row.map((v, i) =>
            cols[i] === 'event_time' ? new Date(Number(v)).toISOString() : cols[i] === 'is_cached' ? v === 1 : cols[i] === 'query' ? parseJson(v) : v,
          ),
        ),
      };
    }
    throw new Error(`ClickHouse compat: unsupported internal statement: ${s.slice(0, 120)}`);
  }

  /** The query log's batched INSERT (15 columns per row, `$n` placeholders). */
  async exec(sql: string, params: readonly unknown[] = []): Promise<void> {
    const s = norm(sql);
    const m = /^INSERT INTO query_log \(([a-z_, ]+)\) VALUES /.exec(s);
    if (!m) throw new Error(`ClickHouse compat: unsupported internal statement: ${s.slice(0, 120)}`);
    const cols = m[1].split(',').map((c) => c.trim());
    if (cols.join(',') !== QUERY_LOG_COLUMNS.join(',') || params.length % cols.length !== 0)
      throw new Error('ClickHouse compat: unexpected query_log columns');
    const tuples: string[] = [];
    for (let i = 0; i < params.length; i += cols.length) {
      const row = params.slice(i, i + cols.length);
      const t = row[3] instanceof Date ? (row[3] as Date).getTime() : Date.parse(String(row[3]));
      const values = row.map((v, j) => (j === 3 ? `${Math.floor(t / 1000)}, ${((t % 1000) + 1000) % 1000}` : chLiteral(v)));
      tuples.push(`(${values.join(', ')})`);
    }
    await this.engine.exec(`INSERT INTO query_log (${cols.map((c) => (c === 'event_time' ? 'event_time, event_time_ms' : c)).join(', ')}) VALUES ${tuples.join(', ')}`);
  }
}

/**
 * Opens ClickHouse from the config and returns it in the shape the DuckDB-typed services expect. Throws a clear
 * error when a node is unreachable.
 */
export async function openClickHouseForServices(config: ClickHouseConfig, logger?: EngineLogger): Promise<DuckDbEngine> {
  const engine = await ClickHouseEngine.open({
    url: config.url,
    nodeUrls: config.nodeUrls,
    username: config.user,
    password: config.password,
    database: config.database,
    cluster: config.cluster,
    logger,
  });
  // The services are typed against DuckDbEngine; ClickHouseCompat implements every member they call.
  return new ClickHouseCompat(engine) as unknown as DuckDbEngine;
}
