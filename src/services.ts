import path from 'node:path';
import type { Logger } from 'pino';
import { ActionService } from './actions/action-service';
import { Authenticator } from './auth/authenticator';
import { KeyService } from './auth/key-service';
import { RateLimiter } from './auth/rate-limiter';
import type { Config } from './config';
import { ClickHouseEngine } from './engines/clickhouse/clickhouse-engine';
// Registers the ClickHouse ProductQL printer (queries against a ClickHouse engine are printed in its dialect).
import './productql/clickhouse';
import { DuckDbEngine } from './engines/duckdb/duckdb-engine';
import type { EventEngine } from './engines/engine';
import { EndpointService } from './endpoints/endpoint-service';
import { EventService } from './ingest/event-service';
import { Ingestor } from './ingest/ingestor';
import { InsightService } from './insights/insight-service';
import { InsightVariableService } from './insights/insight-variable-service';
import { shutdownParser } from './productql';
import { ElementStats } from './projects/element-stats';
import { EventReader } from './projects/event-reader';
import { GroupService } from './projects/group-service';
import { RelatedActors } from './projects/related-actors';
import { SessionProperties } from './projects/session-properties';
import { PersonReader } from './projects/person-reader';
import { ProjectService } from './projects/project-service';
import { Metrics } from './metrics';
import { QueryLog } from './queries/query-log';
import { RUNNERS } from './queries/runners';
import { CohortLoader, CohortService, withCohortRunners } from './cohorts';
import { QueryService } from './queries/query-service';
import { Cohort } from './store/entities';
import { Store } from './store/store';

/** The service layer both faces (GraphQL and REST) call. Built once per process from the config. */
export interface Services {
  config: Config;
  store: Store;
  metrics: Metrics;
  engine: EventEngine;
  ingestor: Ingestor;
  auth: Authenticator;
  /** Null when rate limiting is turned off. */
  rateLimiter: RateLimiter | null;
  projects: ProjectService;
  keys: KeyService;
  events: EventService;
  queries: QueryService;
  insights: InsightService;
  /** Published, versioned endpoints. */
  endpoints: EndpointService;
  /** The persons API (read side): persons with their distinct ids, read through ProductQL. */
  persons: PersonReader;
  /** The events API (read side): newest events first, paged by `before`. */
  eventLog: EventReader;
  /** Saved person groups (cohort filters and breakdowns read them). */
  cohorts: CohortService;
  /** Saved actions (ActionsNode series read them). */
  actions: ActionService;
  /** Saved variables (HogQL queries and endpoints read their defaults and types). */
  insightVariables: InsightVariableService;
  /** The groups API: group types and groups (group analytics). */
  groups: GroupService;
  /** The groups API's related actors (`groups/related`). */
  relatedActors: RelatedActors;
  /** The sessions API: session property definitions and values. */
  sessionProperties: SessionProperties;
  /** The elements API: the most clicked element chains and element values. */
  elements: ElementStats;
  /** Closes everything, newest first. */
  close(): Promise<void>;
}

/** Opens the metadata store and the event engine under the data directory. */
export async function openServices(config: Config, logger: Logger): Promise<Services> {
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const c of closers.splice(0).reverse()) await c().catch((e) => logger.error({ err: e }, 'error while closing'));
  };
  try {
    closers.push(async () => shutdownParser()); // the parser's worker thread would keep the process alive
    const store = await Store.open(config.dataDir);
    closers.push(() => store.close());
    // QUARRY_EVENTS_ENGINE=clickhouse: ClickHouse behind the same surface (fails here, clearly, when unreachable).
    const engine: EventEngine = config.clickhouse
      ? await openClickHouse(config.clickhouse, logger)
      : await DuckDbEngine.open(path.join(config.dataDir, 'events.duckdb'), {
          logger,
          memoryLimit: config.duckdbMemoryLimit,
          checkpointThreshold: config.duckdbCheckpointThreshold,
          cacheLimit: config.duckdbCacheLimit,
          checkpointIntervalMs: config.duckdbCheckpointIntervalMs,
        });
    closers.push(() => engine.close());
    const ingestor = await Ingestor.open({ dataDir: config.dataDir, engine, logger });
    closers.push(() => ingestor.close());

    const queryLog = new QueryLog(engine, { retentionDays: config.queryLogRetentionDays });
    closers.push(() => queryLog.close());

    const projects = new ProjectService(store);
    projects.onDelete(ingestor);
    const metrics = new Metrics(() => ingestor.pendingEvents, engine.memoryBytes && (() => engine.memoryBytes!()));
    // Static cohorts follow their persons through merges (PostHog moves cohort links to the person merged into).
    const resolvePersons = (projectId: number, ids: string[]) => ingestor.resolvePersonIds(projectId, ids);
    // A change to an action drops the project's cached results (computed with the old definition).
    const actions = new ActionService(store, projects, (id) => queries.cache.dropProject(id));
    // likewise a change to a saved variable (its default fills queries that leave the value out)
    const insightVariables = new InsightVariableService(store, projects, (id) => queries.cache.dropProject(id));
    const queries: QueryService = new QueryService(
      projects,
      engine,
      queryLog,
      { timeoutMs: config.queryTimeoutMs, concurrency: config.queryConcurrency, asyncResultTtlMs: config.asyncResultTtlMs, actions, variables: insightVariables },
      withCohortRunners(RUNNERS, new CohortLoader(store, resolvePersons)),
      metrics,
    );
    closers.push(async () => queries.close());
    projects.onDelete({ deleteProject: async (id) => queries.cache.dropProject(id) });
    const persons = new PersonReader(projects, queries, store.db.getRepository(Cohort));
    return {
      config,
      store,
      metrics,
      engine,
      ingestor,
      auth: new Authenticator(store),
      rateLimiter: config.rateLimits ? new RateLimiter(config.rateLimits) : null,
      projects,
      keys: new KeyService(store, projects, config.personalApiKeysPerUser),
      events: new EventService(projects, ingestor, engine),
      queries,
      insights: new InsightService(store, projects, queries),
      endpoints: new EndpointService(store, projects, queries, engine, config, insightVariables),
      persons,
      eventLog: new EventReader(projects, queries, store.db.getRepository(Cohort)),
      cohorts: new CohortService(store, projects, queries, engine, config.queryTimeoutMs, resolvePersons),
      actions,
      insightVariables,
      groups: new GroupService(projects, engine, ingestor),
      relatedActors: new RelatedActors(projects, queries, engine, persons),
      sessionProperties: new SessionProperties(projects, queries),
      elements: new ElementStats(projects, queries),
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}

/**
 * Opens ClickHouse from the config (throws a clear error when a node is unreachable). The services are typed
 * against DuckDbEngine; ClickHouseEngine implements every member they call on it (engine.ts `EventEngine`; the
 * DuckDB-only native import checks the dialect), hence the cast.
 */
async function openClickHouse(config: NonNullable<Config['clickhouse']>, logger: Logger): Promise<EventEngine> {
  const engine = await ClickHouseEngine.open({
    url: config.url,
    nodeUrls: config.nodeUrls,
    username: config.user,
    password: config.password,
    database: config.database,
    cluster: config.cluster,
    logger,
  });
  return engine;
}
