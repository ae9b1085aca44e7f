import { z } from 'zod';
import { requireProjectAccess, type AccessRule } from '../auth/access';
import { GenerationCache } from '../auth/metadata-watch';
import { principalLabel, type Principal } from '../auth/principal';
import type { EventEngineBase, QueryLogShape } from '../engines/engine';
import { isUserError, notFound, UserError, validationError } from '../errors';
import type { Page, Paged } from '../pagination';
import type { ProjectService } from '../projects/project-service';
import type { Project } from '../store/entities';
import type { Metrics } from '../metrics';
import { pyRepr, pythonTypeName, zodToUserError } from '../validation';
import { AsyncQueries, type QueryStatus } from './async-queries';
import { cacheKey } from './cache-key';
import { refreshFrequencyMs, staleAfterMs } from './freshness';
import type { QueryLog, QueryLogEntry } from './query-log';
import { ResultCache, type CacheEntry } from './result-cache';
import { ProjectSlots } from './project-slots';
import type { ActionSource } from '../actions/matching';
import type { SavedVariableSource } from '../endpoints/variables';
import { applyQueryOverrides } from './overrides';
import { sessionModifiersOf } from './session-modifiers';
import { executableNode, isNonRunnable, validateInsightQuery, WRAPPER_KINDS, type NodeValidator } from '../insights/insight-query';
import type { QueryRunner } from './runner';
import { RUNNERS } from './runners';
import { Timings } from './timings';
import { runWithPathCleaning } from './insights/path-cleaning';

export const REFRESH_MODES = [
  'blocking',
  'force_blocking',
  'async',
  'lazy_async',
  'async_except_on_cache_miss',
  'force_async',
  'force_cache',
] as const;
export type RefreshMode = (typeof REFRESH_MODES)[number];

/** A pydantic `Optional[...] = default` field: null is the same as leaving the field out. */
const optional = <T extends z.ZodType>(t: T) => t.nullish().transform((v): z.output<T> | undefined => v ?? undefined);

/** The request envelope of `POST /api/projects/<id>/query/` (PostHog's QueryRequest; unknown keys → 400). */
export const queryRequestSchema = z
  .object({
    query: z.object({ kind: z.string() }).passthrough(),
    refresh: optional(z.union([z.enum(REFRESH_MODES), z.boolean()])),
    client_query_id: optional(z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'client_query_id may hold 1 to 128 letters, digits, _ and -.')),
    name: optional(z.string().max(128)),
    filters_override: z.unknown().optional(),
    variables_override: z.unknown().optional(),
    async: optional(z.boolean()),
    // PostHog's LimitContext.POSTHOG_AI (the only value its QueryRequest takes) tags queries of its AI assistant, which
    // Quarry does not have: accepted, and run with the query API's limits
    limit_context: optional(z.enum(['posthog_ai'])),
  })
  .strict();

export type QueryRequest = z.infer<typeof queryRequestSchema>;

export interface QueryServiceOptions {
  timeoutMs: number;
  /** Queries of one project running at once; others queue. */
  concurrency: number;
  /** How long async statuses and results are kept after they end. */
  asyncResultTtlMs: number;
  /** The saved actions runners read (RunnerContext.actions). */
  actions?: ActionSource;
  /** The saved variables runners read (RunnerContext.variables). */
  variables?: SavedVariableSource;
}

/** The outcome of a query request: 200 with an answer, or 202 while an async query runs. */
export interface QueryOutcome {
  status: 200 | 202;
  body: Record<string, unknown>;
  /**
   * `JSON.stringify(body)`, when already known: a cached answer keeps its serialized envelope, so serving it again
   * costs no serialization. HTTP faces send it as is; others use `body`.
   */
  json?: string;
  /**
   * The kept envelope this answer was copied from: the same object for every plain hit on one cache entry, until
   * it is recomputed. Callers may key data they derive from the answer by it (WeakMap).
   */
  servedFrom?: object;
}

/** A node validated for a project, with its runner and cache key ({@link QueryService.prepare}). */
export interface PreparedQuery {
  runner: QueryRunner;
  node: unknown;
  key: string;
}

export interface ExecuteOptions {
  refresh: RefreshMode;
  /** The node already validated and keyed by {@link QueryService.prepare} (for the same project and node). */
  prepared?: PreparedQuery;
  clientQueryId?: string;
  name?: string;
  signal?: AbortSignal;
  insightId?: number | null;
}

/**
 * The query operation: one entry point for every kind, over REST and GraphQL alike. It validates the node,
 * answers from the result cache where the refresh mode allows, otherwise runs the kind's runner under the
 * project's concurrency limit and the query timeout, synchronously or as an async job; it adds the freshness
 * envelope and records every answer in the query log.
 */
export class QueryService {
  private readonly runners = new Map<string, QueryRunner>();
  readonly cache = new ResultCache();
  readonly slots: ProjectSlots;
  /** Projects by id, dropped by any write to the projects table (see auth/metadata-watch.ts). */
  private readonly projectCache = new GenerationCache<Project, number>('projects', 10_000);
  /** Body texts seen by {@link cachedRequest}, validated and keyed; valid while the project object is the same. */
  private readonly recognized = new Map<number, Map<string, RecognizedRequest>>();
  readonly async: AsyncQueries;
  /**
   * Query-log shapes of cache hits, per cache entry (gone with it) and caller, with what each was built from: the
   * next hit on the entry by that caller with the same node object (a remembered request's) and ids logs the same
   * shape, so it buffers three numbers.
   */
  private readonly hitShapes = new WeakMap<CacheEntry, Map<Principal, HitShape>>();

  constructor(
    private readonly projects: ProjectService,
    private readonly engine: EventEngineBase,
    private readonly log: QueryLog,
    private readonly options: QueryServiceOptions,
    runners: QueryRunner[] = RUNNERS,
    private readonly metrics?: Metrics,
  ) {
    for (const r of runners) for (const k of r.kinds) this.runners.set(k, r);
    this.slots = new ProjectSlots(options.concurrency);
    this.async = new AsyncQueries(options.asyncResultTtlMs);
  }

  /** The answer of {@link request}, without its HTTP status (GraphQL fields). */
  async run(principal: Principal, projectId: number, body: unknown, signal?: AbortSignal): Promise<Record<string, unknown>> {
    return (await this.request(principal, projectId, body, signal)).body;
  }

  /** `POST /api/projects/<id>/query/` (scope `query:read`). */
  async request(principal: Principal, projectId: number, body: unknown, signal?: AbortSignal): Promise<QueryOutcome> {
    const project = await this.projectFor(principal, projectId, { scope: 'query:read' });
    const { req, refresh } = parseQueryRequest(body, this.runners, this.nodeValidator);
    return this.execute(principal, project, req.query, { refresh, clientQueryId: req.client_query_id, name: req.name, signal }).catch(queryApiError);
  }

  /**
   * {@link request} for a request whose answer is in the cache and fresh, recognized by its body text: the
   * validation and cache key of a body text seen before are remembered (per project settings), so a repeated
   * request costs a map lookup. When the answer must be computed (or refreshed) and `signal` is given, the
   * remembered validation is used for that too (the runner gets its own copy of the node); without `signal`, or
   * when the body is new and invalid, returns undefined and the caller makes the full {@link request} (which
   * reports why). The scope and project checks run every time.
   */
  async cachedRequest(
    principal: Principal,
    projectId: number,
    body: unknown,
    bodyText: string,
    signal?: () => AbortSignal,
  ): Promise<QueryOutcome | undefined> {
    if (bodyText.length > MAX_RECOGNIZED_BODY_CHARS) return undefined;
    requireProjectAccess(principal, projectId, QUERY_READ);
    // a remembered project is used without an await (each await is a microtask hop on the hot path)
    const project = this.projectInMemory(projectId) ?? (await this.findProject(projectId));
    let texts = this.recognized.get(projectId);
    if (texts === undefined) {
      if (this.recognized.size >= MAX_RECOGNIZED) this.recognized.clear(); // bounded over projects too
      this.recognized.set(projectId, (texts = new Map()));
    }
    let r = texts.get(bodyText);
    if (r === undefined || r.project !== project) {
      try {
        const { req, refresh } = parseQueryRequest(body, this.runners, this.nodeValidator);
        r = { project, refresh, clientQueryId: req.client_query_id, name: req.name, rawNode: req.query, prepared: this.prepare(project, req.query) };
      } catch {
        return undefined;
      }
      if (texts.size >= MAX_RECOGNIZED) texts.delete(texts.keys().next().value as string);
      texts.set(bodyText, r);
    }
    const hit = this.freshAnswer(principal, project, r);
    if (hit !== undefined) return hit;
    if (signal === undefined) return undefined;
    const prepared = { ...r.prepared, node: structuredClone(r.prepared.node) };
    return this.execute(principal, project, r.rawNode, { refresh: r.refresh, clientQueryId: r.clientQueryId, name: r.name, prepared, signal: signal() }).catch(
      queryApiError,
    );
  }

  /**
   * The answer to a request whose body text was seen before ({@link cachedRequest}), when the project and the
   * request are remembered and the answer is in the cache and fresh: synchronously (no promise, no microtask hop).
   * Otherwise undefined, and the caller makes {@link cachedRequest} or {@link request}. The scope and project checks
   * run first, every time (same errors as {@link request}).
   */
  cachedAnswer(principal: Principal, projectId: number, bodyText: string): QueryOutcome | undefined {
    requireProjectAccess(principal, projectId, QUERY_READ);
    const project = this.projectInMemory(projectId);
    if (project === undefined) return undefined;
    const r = this.recognized.get(projectId)?.get(bodyText);
    if (r === undefined || r.project !== project) return undefined;
    return this.freshAnswer(principal, project, r);
  }

  /** A remembered request's fresh answer from the cache, as execute() gives it; undefined when it must be computed. */
  private freshAnswer(principal: Principal, project: Project, r: RecognizedRequest): QueryOutcome | undefined {
    let lazy: boolean | undefined;
    if (r.refresh === 'blocking' || r.refresh === 'async' || r.refresh === 'async_except_on_cache_miss') lazy = false;
    else if (r.refresh === 'lazy_async') lazy = true;
    const entry = lazy === undefined ? undefined : this.cache.get(r.prepared.key);
    if (entry === undefined || !this.isFresh(entry, r.prepared.node, lazy!)) return undefined;
    // What execute() does for a fresh entry in these modes, without looking the entry up and judging it again.
    const { node, key } = r.prepared;
    const opts: ExecuteOptions = { refresh: r.refresh, clientQueryId: r.clientQueryId, name: r.name, prepared: r.prepared };
    return this.fromCache(entry, { project, principal, kind: (node as { kind: string }).kind, name: r.name ?? null, key, node }, opts, null, undefined);
  }

  /**
   * {@link ProjectService.projectFor} (scope, visibility, existence; same errors), answered from memory while the
   * projects table has not been written since the project was read.
   */
  async projectFor(principal: Principal, projectId: number, rule: AccessRule): Promise<Project> {
    requireProjectAccess(principal, projectId, rule);
    return this.findProject(projectId);
  }

  /** The project when {@link findProject} has it in memory (and it is still current), else undefined. */
  projectInMemory(projectId: number): Project | undefined {
    return this.projectCache.get(projectId);
  }

  /** {@link ProjectService.find}, from memory while the projects table has not been written since. */
  async findProject(projectId: number): Promise<Project> {
    const hit = this.projectCache.get(projectId);
    if (hit !== undefined) return hit;
    const gen = this.projectCache.generation();
    const project = await this.projects.find(projectId);
    this.projectCache.set(projectId, project, gen);
    return project;
  }

  /** Runs a query node for a project the caller may already query (insights and endpoints come here too). */
  async execute(principal: Principal, project: Project, rawNode: unknown, opts: ExecuteOptions): Promise<QueryOutcome> {
    return this.executeNow(principal, project, rawNode, opts);
  }

  /**
   * {@link execute}, answering a fresh cache hit synchronously (a value, not a promise): callers on the hot path
   * skip an await with `instanceof Promise`.
   */
  executeNow(principal: Principal, project: Project, rawNode: unknown, opts: ExecuteOptions): QueryOutcome | Promise<QueryOutcome> {
    const timings = opts.prepared === undefined ? new Timings() : undefined;
    const { runner, node, key } = opts.prepared ?? timings!.measureSync('validate', () => this.prepare(project, rawNode));
    const lazy = opts.refresh === 'lazy_async';
    const entry = this.cache.get(key);
    const fresh = entry !== undefined && this.isFresh(entry, node, lazy);
    if (fresh && opts.refresh !== 'force_blocking' && opts.refresh !== 'force_async') {
      // the common case, without the closures below: a fresh answer for a mode that takes it
      return this.fromCache(entry, { project, principal, kind: (node as { kind: string }).kind, name: opts.name ?? null, key, node }, opts, null, timings);
    }
    if (opts.refresh === 'force_cache' && entry !== undefined) {
      return this.fromCache(entry, { project, principal, kind: (node as { kind: string }).kind, name: opts.name ?? null, key, node }, opts, null, timings);
    }
    return this.executeSlow(principal, project, runner, node, key, entry, fresh, opts, timings ?? rememberedValidation());
  }

  private async executeSlow(
    principal: Principal,
    project: Project,
    runner: QueryRunner,
    node: unknown,
    key: string,
    entry: CacheEntry | undefined,
    fresh: boolean,
    opts: ExecuteOptions,
    timings: Timings,
  ): Promise<QueryOutcome> {
    const kind = (node as { kind: string }).kind;
    const logBase = { project, principal, kind, name: opts.name ?? null, key, node };

    const fromCache = (e: CacheEntry, queryStatus: QueryStatus | null = null): QueryOutcome => this.fromCache(e, logBase, opts, queryStatus, timings);
    const startAsync = (): QueryStatus =>
      this.async.start(
        project.id,
        opts.clientQueryId,
        async (signal, pickedUp) => {
          const computed = await this.compute(runner, node, key, project, principal, new Timings(), signal, logBase, pickedUp, opts.clientQueryId);
          return this.envelope(computed, node, key, project, false, null, undefined);
        },
        opts.insightId ?? null,
      );

    switch (opts.refresh) {
      case 'force_cache':
        if (entry) return fromCache(entry);
        return { status: 200, body: { cache_key: key, is_cached: false, results: null, query_status: null, timezone: project.timezone } };
      case 'blocking':
        if (fresh) return fromCache(entry!);
        break;
      case 'force_blocking':
        break;
      case 'async':
      case 'lazy_async':
      case 'async_except_on_cache_miss':
        if (fresh) return fromCache(entry!);
        if (entry) {
          // stale: answer now, refresh behind. PostHog's QueryViewSet.create answers 202 whenever the query_status it
          // returns is not complete, a stale answer with its refresh running included
          const started = startAsync();
          const stale = fromCache(entry, started);
          return started.complete ? stale : { ...stale, status: 202 };
        }
        if (opts.refresh === 'async_except_on_cache_miss') break;
        return { status: 202, body: { cache_key: key, query_status: startAsync() } };
      case 'force_async':
        // PostHog's QueryStatusResponse: a bare {query_status}, no cache_key (that is the async cache miss's shape)
        return { status: 202, body: { query_status: startAsync() } };
    }
    const computed = await this.compute(runner, node, key, project, principal, timings, opts.signal, logBase, undefined, opts.clientQueryId);
    return { status: 200, body: this.envelope(computed, node, key, project, false, null, wantsTimings(node) ? timings : undefined) };
  }

  /** An answer from the cache entry `e`, recorded in the query log. */
  private fromCache(e: CacheEntry, logBase: LogBase, opts: ExecuteOptions, queryStatus: QueryStatus | null, timings: Timings | undefined): QueryOutcome {
    const queryId = opts.clientQueryId ?? null;
    let byCaller = this.hitShapes.get(e);
    if (byCaller === undefined) this.hitShapes.set(e, (byCaller = new Map()));
    let hit = byCaller.get(logBase.principal);
    if (hit === undefined || hit.node !== logBase.node || hit.project !== logBase.project || hit.name !== logBase.name || hit.queryId !== queryId) {
      if (byCaller.size >= MAX_HIT_SHAPES_PER_ENTRY) byCaller.clear();
      hit = { node: logBase.node, project: logBase.project, name: logBase.name, queryId, shape: this.logShape(logBase, true, e.response, undefined, queryId) };
      byCaller.set(logBase.principal, hit);
    }
    this.metrics?.observeQuery(logBase.kind, true, 'ok', 0, undefined);
    this.log.recordShape(hit.shape, 0);
    const { node, key, project } = logBase;
    if (queryStatus === null && !wantsTimings(node)) {
      // The envelope of a plain cache hit depends only on the entry (its key fixes the project, timezone and the
      // node's freshness settings): build and serialize it once per entry.
      let served = e.served;
      if (served === undefined) {
        const envelope = this.envelope(e, node, key, project, true, null, undefined);
        served = e.served = { body: envelope, json: JSON.stringify(envelope) };
      }
      return new ServedOutcome(served);
    }
    return { status: 200, body: this.envelope(e, node, key, project, true, queryStatus, wantsTimings(node) ? (timings ?? new Timings()) : undefined) };
  }

  /** Validates a node ({@link validateNode}) and computes its cache key for the project. */
  prepare(project: Project, rawNode: unknown): PreparedQuery {
    const { runner, node } = this.validateNode(rawNode as { kind: string });
    return { runner, node, key: cacheKey(project, node) };
  }

  /** {@link validateNode} as a function (for the wrapper nodes' source, see parseQueryRequest). */
  private readonly nodeValidator = (node: { kind: string }) => this.validateNode(node);

  /** Picks the runner for `node.kind` and validates the node with its schema (errors point into `query__…`). */
  validateNode(node: { kind: string }): { runner: QueryRunner; node: unknown } {
    const runner = this.runners.get(node?.kind);
    if (!runner) {
      throw validationError(`Unknown query kind "${node?.kind}". Supported: ${[...this.runners.keys()].join(', ')}.`, 'query__kind');
    }
    const parsed = runner.schema.safeParse(node, { reportInput: true });
    if (!parsed.success) {
      const e = zodToUserError(parsed.error);
      throw new UserError(e.status, e.type, e.code, e.message, { attr: e.attr ? `query__${e.attr}` : 'query' });
    }
    return { runner, node: parsed.data };
  }

  /** {@link validateNode} for a query that is kept (a saved insight's, an endpoint's): query-only kinds are refused. */
  validateStoredNode(node: { kind: string }): { runner: QueryRunner; node: unknown } {
    const validated = this.validateNode(node);
    if (validated.runner.queryOnly) throw validationError(`A ${node.kind} runs through the query operation only; it cannot be saved.`, 'query__kind');
    return validated;
  }

  /** `GET …/query/<id>/`: the status of an async query of the project (scope `query:read`). */
  async status(principal: Principal, projectId: number, queryId: string): Promise<{ status: 200 | 202 | 400 | 500; body: { query_status: QueryStatus } }> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'query:read' });
    const st = this.async.get(project.id, queryId);
    if (!st) throw notFound('Query not found.');
    // PostHog's QueryViewSet.retrieve: an error with a message is the user's (400), one without is internal (500)
    const code = st.error ? (st.error_message ? 400 : 500) : st.complete ? 200 : 202;
    return { status: code, body: { query_status: st } };
  }

  /** `DELETE …/query/<id>/`: cancels a running async query; the engine work stops. */
  async cancel(principal: Principal, projectId: number, queryId: string): Promise<{ message: string }> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'query:read' });
    if (!(await this.async.cancel(project.id, queryId))) throw notFound('Query not found.');
    return { message: 'Query cancelled.' };
  }

  /** `GET …/query_log/`: what ran in the project, newest first (scope `query:read`). */
  async queryLog(principal: Principal, projectId: number, filters: unknown, page: Page): Promise<Paged<QueryLogEntry>> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'query:read' });
    return this.log.list(project.id, filters, page);
  }

  close(): void {
    this.async.close();
  }

  private isFresh(entry: CacheEntry, node: unknown, lazy: boolean): boolean {
    return (
      entry.dataVersion === this.engine.dataVersion(entry.projectId) &&
      Date.now() - entry.lastRefresh.getTime() < staleAfterMs(node, lazy)
    );
  }

  private async compute(
    runner: QueryRunner,
    node: unknown,
    key: string,
    project: Project,
    principal: Principal,
    timings: Timings,
    signal: AbortSignal | undefined,
    logBase: LogBase,
    pickedUp?: () => void,
    queryId?: string,
  ): Promise<CacheEntry> {
    const started = performance.now();
    const dataVersion = this.engine.dataVersion(project.id);
    try {
      if (readsQueryLog(node)) await this.log.flush(); // a reader of the log sees the answers it was just given
      const response = await this.slots.run(
        project.id,
        () => {
          pickedUp?.();
          // the project's path-cleaning rules, for is_cleaned_path_exact filters anywhere in the query
          return runWithPathCleaning(project, () =>
            runner.run(node, {
              project,
              principal,
              engine: this.engine,
              timings,
              signal,
              timeoutMs: this.options.timeoutMs,
              actions: this.options.actions,
              variables: this.options.variables,
              sessionModifiers: sessionModifiersOf((node as { modifiers?: unknown }).modifiers),
            }),
          );
        },
        signal,
      );
      const entry: CacheEntry = { projectId: project.id, response, lastRefresh: new Date(), dataVersion };
      timings.measureSync('cache', () => this.cache.set(key, entry));
      this.record(logBase, performance.now() - started, false, response, undefined, queryId ?? null);
      return entry;
    } catch (e) {
      const cancelled = signal?.aborted === true;
      this.record(logBase, performance.now() - started, false, undefined, cancelled ? 'cancelled' : isUserError(e) ? e.code : 'internal_error', queryId ?? null);
      throw e;
    }
  }

  private envelope(
    entry: CacheEntry,
    node: unknown,
    key: string,
    project: Project,
    isCached: boolean,
    queryStatus: QueryStatus | null,
    timings: Timings | undefined,
  ): Record<string, unknown> {
    const last = entry.lastRefresh.getTime();
    return {
      ...entry.response,
      is_cached: isCached,
      last_refresh: entry.lastRefresh.toISOString(),
      next_allowed_client_refresh: new Date(last + refreshFrequencyMs(node, entry.response)).toISOString(),
      cache_target_age: new Date(last + staleAfterMs(node, false)).toISOString(),
      cache_key: key,
      timezone: project.timezone,
      query_status: queryStatus,
      timings: timings ? timings.toJSON() : null,
    };
  }

  /** Counts an answer in the metrics and writes its query-log row (`error`: a code, or `cancelled`). */
  private record(
    base: LogBase,
    durationMs: number,
    cached: boolean,
    response: Record<string, unknown> | undefined,
    error: string | undefined,
    queryId: string | null,
  ): void {
    const shape = this.logShape(base, cached, response, error, queryId);
    this.metrics?.observeQuery(base.kind, cached, shape.status as 'ok' | 'error' | 'cancelled', durationMs / 1000, error);
    this.log.recordShape(shape, Math.round(durationMs * 1000) / 1000);
  }

  /** The query-log fields of an answer but its time and duration. */
  private logShape(
    base: LogBase,
    cached: boolean,
    response: Record<string, unknown> | undefined,
    error: string | undefined,
    queryId: string | null,
  ): QueryLogShape {
    const results = response?.results;
    return {
      project_id: base.project.id,
      query_id: queryId,
      principal: principalLabel(base.principal) ?? null,
      kind: base.kind,
      name: base.name,
      query_hash: base.key,
      query: base.node,
      result_rows: Array.isArray(results) ? results.length : null,
      result_bytes: null,
      is_cached: cached,
      status: error ? (error === 'cancelled' ? 'cancelled' : 'error') : 'ok',
      error_code: error && error !== 'cancelled' ? error : null,
    };
  }
}

/**
 * A plain cache hit: the kept envelope's JSON for HTTP faces, and `body` as a shallow copy made on first read
 * (callers may change their body without touching the kept one; HTTP never reads it).
 */
class ServedOutcome implements QueryOutcome {
  readonly status = 200 as const;
  private copy: Record<string, unknown> | undefined;

  constructor(readonly servedFrom: { body: Record<string, unknown>; json: string }) {}

  get json(): string {
    return this.servedFrom.json;
  }

  get body(): Record<string, unknown> {
    return (this.copy ??= { ...this.servedFrom.body });
  }
}

const QUERY_READ: AccessRule = { scope: 'query:read' };

/** Timings of a run whose node was validated earlier (a remembered body): its `validate` stage is the lookup. */
function rememberedValidation(): Timings {
  const t = new Timings();
  t.measureSync('validate', () => undefined);
  return t;
}

/** Bodies longer than this are not remembered by {@link QueryService.cachedRequest}. */
const MAX_RECOGNIZED_BODY_CHARS = 16 * 1024;
/** How many body texts {@link QueryService.cachedRequest} remembers per project (oldest forgotten first). */
const MAX_RECOGNIZED = 1000;

interface RecognizedRequest {
  /** The project object the key was computed for (a changed project is a new object: see projectFor). */
  project: Project;
  refresh: RefreshMode;
  clientQueryId?: string;
  name?: string;
  rawNode: unknown;
  prepared: PreparedQuery;
}

/**
 * Validates the request envelope and maps its `refresh`/`async` to a mode (400 on bad input). A wrapper node
 * (DataTableNode, InsightVizNode, DataVisualizationNode) runs its `source`, as PostHog's process_query_model does for
 * a node with a source: the answer is the source's.
 */
function parseQueryRequest(
  body: unknown,
  runners: ReadonlyMap<string, unknown>,
  validateNode: NodeValidator,
): { req: QueryRequest; refresh: RefreshMode } {
  const parsed = queryRequestSchema.safeParse(body, { reportInput: true });
  if (!parsed.success) throw envelopeParseError(parsed.error, body);
  const req = parsed.data;
  const wrapped = (WRAPPER_KINDS as readonly string[]).includes(req.query.kind);
  if (!wrapped && !runners.has(req.query.kind)) throw unknownKind(req.query.kind, [...runners.keys(), ...WRAPPER_KINDS]);
  if (wrapped) {
    validateInsightQuery(req.query, validateNode); // the wrapper's own fields, then its source (attr `query__source__…`)
    req.query = executableNode(req.query) as QueryRequest['query'];
    // a valid source no runner answers (a DataTableNode's PersonsNode): process_query_model's refusal
    if (isNonRunnable(req.query.kind)) throw validationError(`Unsupported query kind: ${req.query.kind}`);
  }
  if (req.filters_override != null || req.variables_override != null)
    req.query = applyQueryOverrides(req.query, req.filters_override, req.variables_override) as QueryRequest['query'];
  let refresh: RefreshMode;
  if (req.refresh === true) refresh = 'force_blocking';
  else if (req.refresh === false || req.refresh === undefined) refresh = req.async ? 'async' : 'blocking';
  else refresh = req.refresh === 'force_cache' ? 'blocking' : req.refresh; // the query API never answers a bare miss
  return { req, refresh };
}

/**
 * PostHog validates the query API's body with pydantic and answers a failure as a DRF ParseError (test_query.py
 * test_invalid_query_kind: 400, code `parse_error`, a detail naming QueryRequest, the literal_error and the input).
 */
function unknownKind(kind: string, supported: string[]): UserError {
  const detail =
    `JSON parse error - validation errors for QueryRequest: query.kind: unknown query kind; supported: ${supported.join(', ')} ` +
    `[type=literal_error, input_value='${kind}', input_type=str]`;
  return new UserError(400, 'invalid_request', 'parse_error', detail, { attr: 'query__kind' });
}

/**
 * An envelope that fails QueryRequest: PostHog's query view validates the body with pydantic (`get_model`) and
 * raises `ParseError("JSON parse error - <pydantic error>")`, so the answer is 400 `invalid_request`/`parse_error`
 * with pydantic's wording (the field, the message, `[type=…, input_value=…, input_type=…]`). `attr` names the field
 * as Quarry's other errors do (PostHog's ParseError has none).
 */
function envelopeParseError(error: z.ZodError, body: unknown): UserError {
  const issue = error.issues[0];
  const at = (path: string[]): unknown =>
    path.reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), body);
  let loc = issue.path.map(String);
  let msg = issue.message;
  let type = 'value_error';
  let input: unknown = at(loc);
  if (!loc.length && issue.code !== 'unrecognized_keys') {
    [msg, type] = ['Input should be a valid dictionary or instance of QueryRequest', 'model_type'];
  } else if (issue.code === 'unrecognized_keys') {
    loc = [...loc, issue.keys[0]];
    [msg, type, input] = ['Extra inputs are not permitted', 'extra_forbidden', at(loc)];
  } else if (issue.code === 'invalid_type' && issue.input === undefined) {
    [msg, type, input] = ['Field required', 'missing', at(loc.slice(0, -1))];
  } else if (loc[0] === 'refresh') {
    msg = `Input should be ${REFRESH_MODES.map((m) => `'${m}'`).join(', ')} or a valid boolean`;
    type = 'enum';
  } else if (loc[0] === 'name' && issue.code === 'too_big') {
    [msg, type] = ['String should have at most 128 characters', 'string_too_long'];
  } else if ((loc[0] === 'name' || loc[0] === 'client_query_id') && typeof input !== 'string') {
    [msg, type] = ['Input should be a valid string', 'string_type'];
  } else if (loc[0] === 'async') {
    [msg, type] = typeof input === 'string' ? ['Input should be a valid boolean, unable to interpret input', 'bool_parsing'] : ['Input should be a valid boolean', 'bool_type'];
  } else if (loc[0] === 'query' && loc.length === 1) {
    [msg, type] = ['Input should be a valid dictionary or object to extract fields from', 'model_attributes_type'];
  }
  const detail =
    `JSON parse error - 1 validation error for QueryRequest\n${loc.length ? `${loc.join('.')}\n` : ''}  ${msg} ` +
    `[type=${type}, input_value=${pyRepr(input)}, input_type=${pythonTypeName(input)}]`;
  return new UserError(400, 'invalid_request', 'parse_error', detail, { attr: loc.length ? loc.join('__') : null });
}

/** Callers whose hit shapes one cache entry keeps (past this, it starts over). */
const MAX_HIT_SHAPES_PER_ENTRY = 256;

interface HitShape {
  node: unknown;
  project: Project;
  name: string | null;
  queryId: string | null;
  shape: QueryLogShape;
}

interface LogBase {
  project: Project;
  principal: Principal;
  kind: string;
  name: string | null;
  key: string;
  node: unknown;
}

/** A ProductQL node that may read the `query_log` table (the log's buffered rows are written before it runs). */
function readsQueryLog(node: unknown): boolean {
  const n = node as { kind?: unknown; query?: unknown };
  return (n.kind === 'ProductQLQuery' || n.kind === 'HogQLQuery') && typeof n.query === 'string' && /query_log/i.test(n.query);
}

/** PostHog strips timings unless the query's modifiers ask for them. */
const wantsTimings = (node: unknown) => (node as { modifiers?: { timings?: unknown } })?.modifiers?.timings === true;

/**
 * PostHog's ClickHouseQueryTimeOut, as the query API words it (reference §4.2: 504, type server_error); endpoint runs
 * map a timeout their own way (a 400 with a remediation).
 */
export const QUERY_API_TIMEOUT_DETAIL =
  'Query has hit the max execution time before completing. See our docs for how to improve your query performance. You may need to materialize.';

/** An error of a query API request, in the query API's words: a timeout reads as PostHog's. */
function queryApiError(e: unknown): never {
  if (isUserError(e) && e.code === 'query_timeout' && e.status === 504) {
    throw new UserError(504, 'server_error', 'query_timeout', QUERY_API_TIMEOUT_DETAIL, { attr: e.attr, extra: e.extra });
  }
  throw e;
}
