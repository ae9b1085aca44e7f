/**
 * The ingest bridge: lets the code in src/ingest, which is typed against DuckDbEngine and still issues its few
 * internal reads as DuckDB SQL through `engine.query()`, run on ClickHouse.
 *
 * The internal statements are engine methods now (engine.ts `InternalStatements`: loadIdentity,
 * recentEventUuids, personExists, appendQueryLog, listQueryLog, projectCounts, ...), implemented by DuckDbEngine
 * and ClickHouseEngine in their own SQL; the query log already calls them. What remains here is a dispatch
 * table, not a translator: the four exact statements the Ingestor and the event service send are routed to
 * those methods, and anything else carrying `$n` placeholders is refused loudly. Once src/ingest/ingestor.ts
 * calls `engine.loadIdentity()` / `engine.recentEventUuids()` and src/ingest/event-service.ts calls
 * `engine.personExists()`, this file reduces to the typing shim (`servicesEngine`) and then disappears.
 */
import '../../productql/clickhouse';
import type { ClickHouseConfig } from '../../config';
import type { DuckDbEngine, EngineLogger, WriteBatch } from '../duckdb/duckdb-engine';
import type { EventEngine, ProjectCounts, ProjectIdentity, QueryLogFilter, QueryLogRecord, QueryOptions, QueryResult } from '../engine';
import { ClickHouseEngine } from './clickhouse-engine';

const norm = (sql: string) => sql.replace(/\s+/g, ' ').trim();
const result = (columns: string[], rows: unknown[][]): QueryResult => ({ columns, types: columns.map(() => 'String'), rows });

/** The ClickHouse engine plus the dispatch of src/ingest's DuckDB-spelled reads. */
export class ClickHouseCompat implements EventEngine {
  readonly dialect = 'clickhouse' as const;
  /** The Ingestor asks for persons, distinct ids and overrides in three parallel reads: one load answers all three. */
  private readonly identityLoads = new Map<number, Promise<ProjectIdentity>>();
  constructor(readonly engine: ClickHouseEngine) {}

  private identity(projectId: number): Promise<ProjectIdentity> {
    let p = this.identityLoads.get(projectId);
    if (!p) {
      p = this.engine.loadIdentity(projectId).finally(() => this.identityLoads.delete(projectId));
      this.identityLoads.set(projectId, p);
    }
    return p;
  }

  dataVersion(projectId: number): number {
    return this.engine.dataVersion(projectId);
  }
  writeBatch(batch: WriteBatch): Promise<void> {
    return this.engine.writeBatch(batch);
  }
  getCheckpoint(): Promise<number> {
    return this.engine.getCheckpoint();
  }
  loadIdentity(projectId: number): Promise<ProjectIdentity> {
    return this.engine.loadIdentity(projectId);
  }
  recentEventUuids(since: Date, limit: number): Promise<[number, string][]> {
    return this.engine.recentEventUuids(since, limit);
  }
  personExists(projectId: number, personId: string): Promise<boolean> {
    return this.engine.personExists(projectId, personId);
  }
  appendQueryLog(rows: readonly QueryLogRecord[]): Promise<void> {
    return this.engine.appendQueryLog(rows);
  }
  listQueryLog(projectId: number, filter: QueryLogFilter, page: { limit: number; offset: number }): Promise<{ count: number; rows: QueryLogRecord[] }> {
    return this.engine.listQueryLog(projectId, filter, page);
  }
  projectCounts(projectId: number): Promise<ProjectCounts> {
    return this.engine.projectCounts(projectId);
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
    // ProductQL output and other ClickHouse SQL (no `$n` outside string literals and quoted names) passes through.
    if (!/\$\d/.test(s.replace(/'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`/g, ''))) return this.engine.query(sql, params, options);
    let m: RegExpExecArray | null;
    switch (s) {
      case 'SELECT id::VARCHAR, epoch_ms(created_at), properties, is_identified, version FROM persons WHERE project_id = $1': {
        const { persons } = await this.identity(Number(params[0]));
        return result(['id', 'created_at', 'properties', 'is_identified', 'version'], persons.map((p) => [p.id, p.created_at, p.properties, p.is_identified, p.version]));
      }
      case 'SELECT distinct_id, person_id::VARCHAR, version FROM person_distinct_ids WHERE project_id = $1': {
        const { distinctIds } = await this.identity(Number(params[0]));
        return result(['distinct_id', 'person_id', 'version'], distinctIds.map((d) => [d.distinct_id, d.person_id, d.version]));
      }
      case 'SELECT old_person_id::VARCHAR, override_person_id::VARCHAR, version FROM person_overrides WHERE project_id = $1': {
        const { overrides } = await this.identity(Number(params[0]));
        return result(['old_person_id', 'override_person_id', 'version'], overrides.map((o) => [o.old_person_id, o.override_person_id, o.version]));
      }
      case 'SELECT 1 FROM persons WHERE project_id = $1 AND id = $2::UUID LIMIT 1':
        return result(['1'], (await this.engine.personExists(Number(params[0]), String(params[1]))) ? [[1]] : []);
    }
    if ((m = /^SELECT project_id, uuid::VARCHAR FROM events WHERE created_at >= \$1 LIMIT (\d+)$/.exec(s))) {
      const since = params[0] instanceof Date ? params[0] : new Date(Number(params[0]));
      return result(['project_id', 'uuid'], await this.engine.recentEventUuids(since, Number(m[1])));
    }
    throw new Error(`ClickHouse: unsupported internal statement (add an engine method): ${s.slice(0, 120)}`);
  }

  /** Internal statements are engine methods now; nothing above the engine executes raw DuckDB statements. */
  async exec(sql: string): Promise<void> {
    throw new Error(`ClickHouse: unsupported internal statement (add an engine method): ${norm(sql).slice(0, 120)}`);
  }
}

/** The ClickHouse engine in the shape the DuckDB-typed services (src/ingest) expect. */
export function servicesEngine(engine: ClickHouseEngine): DuckDbEngine {
  // ClickHouseCompat implements every member those services call (the test suites check it end to end).
  return new ClickHouseCompat(engine) as unknown as DuckDbEngine;
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
  return servicesEngine(engine);
}
