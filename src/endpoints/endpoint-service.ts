/**
 * Endpoints: named, published, versioned queries of a project, run with typed variables by API keys (PostHog's
 * Endpoints product, reference §1). One service for REST and GraphQL; neither face holds logic.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { stableJson } from '../stable-json';
import { requireProjectAccess } from '../auth/access';
import { GenerationCache, watchMetadata } from '../auth/metadata-watch';
import type { Principal } from '../auth/principal';
import type { Config } from '../config';
import type { EventEngineBase } from '../engines/engine';
import { isUserError, notFound, UserError, validationError } from '../errors';
import { pageOf, type Page, type Paged } from '../pagination';
import { userBasic, type UserBasic } from '../insights/activity';
import { compileProductQL, MAX_LIMIT, parseSelect, shapeResult, type Query } from '../productql';
import type { ProjectService } from '../projects/project-service';
import type { PreparedQuery, QueryOutcome, QueryService } from '../queries/query-service';
import { Endpoint, EndpointVersion, type Project } from '../store/entities';
import type { EndpointColumn, EndpointVariable } from '../store/entities/endpoint-version';
import type { Store } from '../store/store';
import { parseInput } from '../validation';
import { INSIGHT_SOURCE_KINDS } from '../insights/insight-query';
import { BREAKDOWN_NULL, BREAKDOWN_OTHER } from '../queries/insights/breakdown';
import { applyQueryOverrides } from '../queries/overrides';
import { columnsOfResponse, columnTypeOf, diffColumns } from './columns';
import {
  applyMagic,
  checkDeclarations,
  declarationType,
  checkPlaceholders,
  magicDeclarations,
  magicVariables,
  placeholderNames,
  resolveValues,
  sampleValue,
  variableDeclarationsSchema,
  type MagicVariables,
  type SavedVariable,
  type SavedVariableSource,
} from './variables';

/** Body of `POST …/endpoints/last_execution_times/`. */
const lastExecutionTimesSchema = z.object({ names: z.array(z.string().max(128)).max(1000) }).strict();

/** PostHog's endpoint names: a letter, then letters, digits, `_` or `-`; 1 to 128 characters. */
export const ENDPOINT_NAME_RE = /^[a-zA-Z][a-zA-Z0-9_-]{0,127}$/;
/** The only cache TTLs PostHog accepts (15 min … 7 days). */
export const FRESHNESS_SECONDS = [900, 1800, 3600, 21600, 43200, 86400, 604800] as const;
export const DEFAULT_FRESHNESS_SECONDS = 86400;
/** `last_executed_at` is written at most this often per endpoint (PostHog's granularity). */
const LAST_EXECUTED_GRANULARITY_MS = 30 * 60_000;
const PRODUCTQL_KINDS = new Set(['ProductQLQuery', 'HogQLQuery']);
/** Insight kinds: their answers are series, not rows, so a run takes no limit/offset. */
const INSIGHT_KINDS: ReadonlySet<string> = new Set(INSIGHT_SOURCE_KINDS);
const MATERIALIZATION_REASON = 'Materialization is not supported by Quarry: endpoints run inline, cached for data_freshness_seconds.';
/** Bucket functions a materialized range variable may use (PostHog's `bucket_overrides` values). */
const BUCKET_FUNCTIONS = ['hour', 'day', 'week', 'month'];
const MATERIALIZATION_CONDITIONS =
  'Quarry does not materialize endpoints: every run executes the version\'s query inline and caches the answer for data_freshness_seconds. ' +
  'In PostHog a version can be materialized when its query is a HogQLQuery (or a supported insight) whose variables are all used in WHERE ' +
  'with =, >=, >, < or <=, and when the endpoint is active.';
const MATERIALIZATION_REWRITE_CONTRACT =
  'No rewrite applies in Quarry: the query runs as written, with its variables bound as values.';
/** Body of `POST …/endpoints/<name>/materialization_preview/`. */
const materializationPreviewSchema = z
  .object({ version: z.unknown().optional(), bucket_overrides: z.record(z.string(), z.string()).nullable().optional() })
  .strict();

const freshnessSchema = z
  .number()
  .refine((n) => (FRESHNESS_SECONDS as readonly number[]).includes(n), {
    message: `Data freshness must be one of: [${FRESHNESS_SECONDS.join(', ')}] seconds (15 minutes, 30 minutes, 1 hour, 6 hours, 12 hours, 24 hours, 7 days).`,
  })
  .nullable();

/**
 * An integer field read as pydantic's lax mode reads it (and DRF's IntegerField): a string of an integer is that
 * integer, so `"3600"` is 3600; anything else goes to `schema` as sent.
 */
const laxInt = <T extends z.ZodTypeAny>(schema: T) => z.preprocess((v) => (typeof v === 'string' && /^\s*-?\d{1,15}\s*$/.test(v) ? Number(v) : v), schema);

const PY_TRUE = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const PY_FALSE = new Set(['0', 'off', 'f', 'false', 'n', 'no']);
/** A bool read as pydantic's lax mode reads it: 0 and 1, and the strings it interprets (true/false, yes/no, on/off, …; any case). */
const pyBool = z.preprocess(
  (v) => {
    if (v === 0 || v === 1) return v === 1;
    if (typeof v !== 'string') return v;
    const l = v.toLowerCase();
    return PY_TRUE.has(l) ? true : PY_FALSE.has(l) ? false : v;
  },
  z.boolean({ error: (issue) => (typeof issue.input === 'string' ? 'Input should be a valid boolean, unable to interpret input' : 'Input should be a valid boolean') }),
);

/** PostHog's `EndpointRequest` plus Quarry's `variables` declarations. Unknown keys are a 400. */
export const endpointRequestSchema = z
  .object({
    name: z.string().optional(),
    description: z.string().max(10_000).nullable().optional(),
    query: z.object({ kind: z.string() }).passthrough().optional(),
    variables: variableDeclarationsSchema.nullable().optional(),
    data_freshness_seconds: laxInt(freshnessSchema).optional(),
    // pydantic's Optional fields: null is "not given" (PostHog applies only the fields that are not None)
    is_active: pyBool.nullable().optional(),
    tags: z.array(z.string().min(1).max(100)).max(50).nullable().optional(),
    derived_from_insight: z.string().max(12).nullable().optional(),
    is_materialized: pyBool.nullable().optional(),
    optional_breakdown_properties: z.array(z.string()).nullable().optional(),
    bucket_overrides: z.record(z.string(), z.string()).nullable().optional(),
    version: laxInt(z.number().int().min(1).nullable()).optional(),
    deleted: z.boolean().nullable().optional(),
  })
  .strict();
export type EndpointRequest = z.infer<typeof endpointRequestSchema>;

/** `EndpointRunRequest` (pydantic `extra="forbid"`) plus Quarry's `result_format`. */
export const runRequestSchema = z
  .object({
    // a wrong type is named with pydantic's message, as PostHog turns EndpointRunRequest's errors into field errors
    variables: z.record(z.string(), z.unknown(), { error: 'Input should be a valid dictionary' }).nullable().optional(),
    version: z.unknown().optional(),
    limit: z.unknown().optional(),
    offset: z.unknown().optional(),
    // pydantic's Optional fields: null is the default (refresh: cache; no query_override)
    refresh: z.enum(['cache', 'force', 'direct'], { error: "Input should be 'cache', 'force' or 'direct'" }).nullable().optional(),
    client_query_id: z
      .string({ error: 'Input should be a valid string' })
      .regex(/^[A-Za-z0-9_-]{1,128}$/, 'client_query_id may hold 1 to 128 letters, digits, _ and -.')
      .nullable()
      .optional(),
    debug: pyBool.nullable().optional(),
    result_format: z.enum(['arrays', 'objects']).optional(),
    filters_override: z.unknown().optional(),
    query_override: z.unknown().optional(),
  })
  .strict();
export type RunRequest = z.infer<typeof runRequestSchema>;

/** PostHog's non-standard `{"error": ...}` bodies (bad integer params, missing versions). */
export class EndpointBareError extends UserError {
  constructor(
    status: number,
    readonly bareBody: Record<string, unknown>,
  ) {
    super(status, status === 404 ? 'invalid_request' : 'validation_error', status === 404 ? 'not_found' : 'invalid_input', String(bareBody.error));
  }
  override toBody(): any {
    return this.bareBody;
  }
}

export interface EndpointView {
  id: string;
  name: string;
  description: string;
  query: Record<string, unknown>;
  is_active: boolean;
  data_freshness_seconds: number;
  endpoint_path: string;
  url: string;
  ui_url: string;
  created_at: string;
  updated_at: string;
  created_by: UserBasic | null;
  is_materialized: boolean;
  current_version: number;
  current_version_id: string;
  versions_count: number;
  derived_from_insight: string | null;
  last_executed_at: string | null;
  materialization: Record<string, unknown>;
  bucket_overrides: null;
  columns: EndpointColumn[];
  tags: string[];
  optional_breakdown_properties: string[];
  /** Quarry: the variables a run accepts (declared, and for insights PostHog's magic ones). */
  variables: EndpointVariable[];
}

export interface EndpointVersionView extends EndpointView {
  version: number;
  version_id: string;
  endpoint_is_active: boolean;
  version_created_at: string;
  version_updated_at: string;
  version_created_by: UserBasic | null;
  /** Quarry: how this version's columns differ from the previous version's (null for version 1). */
  column_changes: EndpointVersion['column_changes'];
}

export interface RunOutcome {
  body: Record<string, unknown>;
  /** `JSON.stringify(body)` when already made (cached answers): HTTP sends it as is. */
  json?: string;
  headers: Record<string, string>;
  /** Typed result columns: from the response (ProductQL) or the version (insight kinds). */
  columns: EndpointColumn[];
}

/** One entry of an endpoint's run log (PostHog's LogEntrySerializer fields). */
export interface EndpointLogEntry {
  log_source_id: string;
  /** The run's `execution_id` (a fresh id for a refused run). */
  instance_id: string;
  timestamp: string;
  level: 'INFO' | 'ERROR';
  message: string;
}

/** Entries kept per endpoint's run log (in memory: a restart starts them afresh). */
const MAX_LOG_ENTRIES = 500;
/** What `after`/`before` of the logs accept (DRF's DateTimeField: ISO 8601). */
const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

export interface ViewOptions {
  /** Scheme and host for absolute URLs (`url`, OpenAPI `servers`). */
  origin?: string;
}

interface Resolved {
  project: Project;
  endpoint: Endpoint;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** The query with its `variables` definitions limited to the placeholders it uses (the same object when nothing goes). */
function withoutUnusedDefinitions(query: Record<string, unknown>, used: Set<string>): Record<string, unknown> {
  const defs = query.variables;
  if (!defs || typeof defs !== 'object' || Array.isArray(defs)) return query;
  const entries = Object.entries(defs as Record<string, unknown>);
  const kept = entries.filter(([, v]) => !v || typeof v !== 'object' || typeof (v as { code_name?: unknown }).code_name !== 'string' || used.has((v as { code_name: string }).code_name));
  return kept.length === entries.length ? query : { ...query, variables: Object.fromEntries(kept) };
}

/**
 * Declarations from PostHog's in-query variables (`{uuid: {variableId, code_name, value, isNull?}}`). A definition of a
 * saved variable (`saved`: the project's, by id) takes its type and, without a value of its own, its default (as
 * PostHog's replace_variables); any other is typed by its value.
 * `isNull: true` is a value set to NULL (HogQL's variable replacement binds NULL whatever `value` holds, as the query
 * API does here): an optional variable whose run without it binds NULL.
 */
function declarationsFromQueryVariables(vars: unknown, saved: SavedVariable[] = []): EndpointVariable[] {
  if (!vars || typeof vars !== 'object') return [];
  const savedById = new Map(saved.map((v) => [v.id.toLowerCase(), v]));
  const out: EndpointVariable[] = [];
  for (const [key, v] of Object.entries(vars as Record<string, unknown>)) {
    if (!v || typeof v !== 'object' || typeof (v as { code_name?: unknown }).code_name !== 'string') continue;
    const { code_name, value, isNull, variableId } = v as { code_name: string; value?: unknown; isNull?: unknown; variableId?: unknown };
    const own = savedById.get((typeof variableId === 'string' ? variableId : key).toLowerCase());
    const given = value !== undefined && value !== null ? value : own?.default_value;
    // a saved List variable's value is one of its `values` in PostHog's UI (a string): a list only when it holds one
    const savedType = own && own.type === 'List' && given !== undefined && given !== null && !Array.isArray(given) ? 'String' : own?.type;
    const type: EndpointVariable['type'] =
      savedType !== undefined
        ? declarationType(savedType)
        : typeof value === 'number' ? 'Number' : typeof value === 'boolean' ? 'Boolean' : Array.isArray(value) ? 'List' : 'String';
    if (isNull === true) out.push({ name: code_name, type, required: false });
    else out.push({ name: code_name, type, ...(given !== undefined && given !== null ? { default: given } : {}) });
  }
  return out;
}

/** The saved variable ids PostHog-style definitions name (`variableId`, else the key). */
function definitionIds(vars: unknown): string[] {
  if (!vars || typeof vars !== 'object' || Array.isArray(vars)) return [];
  return Object.entries(vars as Record<string, unknown>).map(([key, v]) => {
    const id = v && typeof v === 'object' ? (v as { variableId?: unknown }).variableId : undefined;
    return typeof id === 'string' ? id : key;
  });
}

const VARIABLE_ID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/**
 * PostHog's endpoint validation of a HogQL query's variable definitions (reference §1.4): each names a saved variable
 * of the project by its UUID — "Variable ID(s) not valid UUIDs: …", then "Variable ID(s) not found: …". `saved`: the
 * project's saved variables among `ids` (null: no saved-variable source, nothing to check against).
 */
function checkDefinitionIds(ids: string[], saved: SavedVariable[] | null): void {
  const invalid = [...new Set(ids.filter((id) => !VARIABLE_ID.test(id)))];
  if (invalid.length) throw validationError(`Variable ID(s) not valid UUIDs: ${invalid.join(', ')}`, 'variables');
  if (!saved) return;
  const found = new Set(saved.map((v) => v.id.replace(/-/g, '').toLowerCase()));
  const missing = [...new Set(ids.filter((id) => !found.has(id.replace(/-/g, '').toLowerCase())))];
  if (missing.length) throw validationError(`Variable ID(s) not found: ${missing.join(', ')}`, 'variables');
}

export class EndpointService {
  // What a run reads from the metadata store, kept in memory until the next write to endpoints, versions, keys or
  // projects (generation counters: auth/metadata-watch.ts). Runs only: management reads go to the store.
  private readonly endpointByName = new GenerationCache<Endpoint>('endpoints');
  private readonly versionByNumber = new GenerationCache<EndpointVersion>('endpoints');
  private readonly fixedByKey = new GenerationCache<Record<string, unknown>>('identity');
  /** JSON heads of cached runs' responses, per kept envelope of the query answer (see {@link run}). */
  private readonly runHeads = new WeakMap<object, Map<string, string>>();
  /** Resolved variables per run body object (see {@link run}). */
  private readonly runResolved = new WeakMap<RunRequest, { version: EndpointVersion; fixed: Record<string, unknown>; declared: EndpointVariable[]; values: Record<string, unknown>; valuesJson: string }>();
  /** Validated run bodies by their JSON text (see {@link runRequest}). */
  private readonly runBodies = new Map<string, RunRequest>();
  /** The last cached run served for a remembered body, and all it was built from (see {@link cachedRun}). */
  private readonly fastRuns = new WeakMap<RunRequest, FastRun>();
  /** Each endpoint's run log (by endpoint id), oldest first, at most {@link MAX_LOG_ENTRIES}: see {@link logs}. */
  private readonly runLogs = new Map<string, EndpointLogEntry[]>();
  /** Per version object (a changed version is a new object): see {@link runMemo}. */
  private readonly runMemos = new WeakMap<EndpointVersion, { project: Project; runs: Map<string, { node: Record<string, unknown>; prepared: PreparedQuery }> }>();

  constructor(
    private readonly store: Store,
    private readonly projects: ProjectService,
    private readonly queries: QueryService,
    private readonly engine: EventEngineBase,
    private readonly config: Pick<Config, 'host' | 'port'>,
    /** The project's saved variables: the types and defaults of the definitions naming them, and auto-filled ones. */
    private readonly saved?: SavedVariableSource,
  ) {
    watchMetadata(store.db);
  }

  private get endpoints() {
    return this.store.db.getRepository(Endpoint);
  }
  private get versions() {
    return this.store.db.getRepository(EndpointVersion);
  }

  // -------------------------------------------------------------------------------------------- reads

  async list(principal: Principal, projectId: number, filters: Record<string, unknown>, page: Page, opts: ViewOptions = {}): Promise<Paged<EndpointView>> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'endpoint:read' });
    const qb = this.endpoints
      .createQueryBuilder('e')
      .where('e.project_id = :pid AND e.deleted = 0', { pid: project.id })
      .orderBy('e.created_at', 'DESC')
      .addOrderBy('e.rowid', 'DESC');
    if (filters.is_active !== undefined) {
      const v = String(filters.is_active).toLowerCase();
      if (!['true', 'false', '1', '0'].includes(v)) throw validationError('Must be a valid boolean.', 'is_active');
      qb.andWhere('e.is_active = :a', { a: v === 'true' || v === '1' ? 1 : 0 });
    }
    if (filters.created_by !== undefined) {
      const id = Number(filters.created_by);
      if (!Number.isSafeInteger(id)) throw validationError('A valid integer is required.', 'created_by');
      qb.andWhere('e.created_by_id = :c', { c: id });
    }
    const [rows, count] = await qb.skip(page.offset).take(page.limit).getManyAndCount();
    const results: EndpointView[] = [];
    for (const e of rows) results.push(await this.view(project, e, await this.currentVersion(e), opts));
    return { count, results };
  }

  /** `GET …/endpoints/<name>/`, or the version view with `version`. */
  async get(principal: Principal, projectId: number, name: string, version: unknown, opts: ViewOptions = {}): Promise<EndpointView> {
    const { project, endpoint } = await this.resolve(principal, projectId, name, 'endpoint:read');
    if (version === undefined || version === null || version === '') return this.view(project, endpoint, await this.currentVersion(endpoint), opts);
    const n = parseIntParam(version, 'version', ANY_VERSION, true);
    const v = await this.versions.findOneBy({ endpoint_id: endpoint.id, version: n });
    if (!v) throw new EndpointBareError(404, { error: `Version ${n} not found` });
    return this.versionView(project, endpoint, v, opts);
  }

  async listVersions(principal: Principal, projectId: number, name: string, page: Page, opts: ViewOptions = {}): Promise<Paged<EndpointVersionView>> {
    const { project, endpoint } = await this.resolve(principal, projectId, name, 'endpoint:read');
    const [rows, count] = await this.versions.findAndCount({
      where: { endpoint_id: endpoint.id },
      order: { version: 'DESC' },
      skip: page.offset,
      take: page.limit,
    });
    const results: EndpointVersionView[] = [];
    for (const v of rows) results.push(await this.versionView(project, endpoint, v, opts));
    return { count, results };
  }

  /**
   * `GET …/endpoints/<name>/materialization_status/` (`?version=N`): the `materialization` object of the endpoint
   * (or of that version). Quarry runs every endpoint inline, so it is never enabled and says why.
   */
  async materializationStatus(principal: Principal, projectId: number, name: string, version: unknown, opts: ViewOptions = {}): Promise<Record<string, unknown>> {
    return (await this.get(principal, projectId, name, version, opts)).materialization;
  }

  /**
   * `GET …/endpoints/<name>/logs/`: the endpoint's run log, newest first (PostHog's log-entry mixin): an INFO entry
   * per run, whose `instance_id` is the run's `execution_id`, and an ERROR entry per refused run. Filters `level`
   * (comma-separated), `search` (in the message, any case), `instance_id`, `after` and `before` (ISO datetimes);
   * paged by `limit`/`offset`. Quarry keeps the last {@link MAX_LOG_ENTRIES} entries of each endpoint in memory.
   */
  async logs(principal: Principal, projectId: number, name: string, query: Record<string, unknown>, page: Page): Promise<Paged<EndpointLogEntry>> {
    const { endpoint } = await this.resolve(principal, projectId, name, 'endpoint:read');
    const text = (k: string) => {
      const v = query[k];
      const last = Array.isArray(v) ? v[v.length - 1] : v;
      return typeof last === 'string' && last !== '' ? last : undefined;
    };
    const time = (k: 'after' | 'before') => {
      const v = text(k);
      if (v === undefined) return undefined;
      const t = ISO_DATETIME.test(v) ? Date.parse(v) : NaN;
      if (Number.isNaN(t)) throw validationError('Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].', k);
      return t;
    };
    const after = time('after');
    const before = time('before');
    const levels = text('level')?.split(',').map((l) => l.trim().toUpperCase());
    const search = text('search')?.toLowerCase();
    const instance = text('instance_id');
    const entries = (this.runLogs.get(endpoint.id) ?? []).filter((e) => {
      const t = Date.parse(e.timestamp);
      return (
        (after === undefined || t > after) &&
        (before === undefined || t < before) &&
        (levels === undefined || levels.includes(e.level)) &&
        (search === undefined || e.message.toLowerCase().includes(search)) &&
        (instance === undefined || e.instance_id === instance)
      );
    });
    return pageOf(entries.reverse(), page);
  }

  /**
   * `GET …/endpoints/materialization_conditions/`: the rules a query must meet to be materialized, as PostHog's two
   * strings. Quarry materializes nothing, so both say so and name the rules a run would need.
   */
  async materializationConditions(principal: Principal, projectId: number): Promise<{ conditions_source: string; rewrite_contract: string }> {
    await this.projects.projectFor(principal, projectId, { scope: 'endpoint:read' });
    return { conditions_source: MATERIALIZATION_CONDITIONS, rewrite_contract: MATERIALIZATION_REWRITE_CONTRACT };
  }

  /**
   * `POST …/endpoints/<name>/materialization_preview/` with `{version?, bucket_overrides?}`: what materializing that
   * version would run. Never materializable in Quarry: `can_materialize` false with the reason, no queries, no pairs.
   */
  async materializationPreview(principal: Principal, projectId: number, name: string, input: unknown): Promise<Record<string, unknown>> {
    const { endpoint } = await this.resolve(principal, projectId, name, 'endpoint:read');
    const body = parseInput(materializationPreviewSchema, input ?? {});
    if (body.version !== undefined && body.version !== null) {
      const n = parseIntParam(body.version, 'version', ANY_VERSION, true);
      if (!(await this.versions.existsBy({ endpoint_id: endpoint.id, version: n }))) throw new EndpointBareError(404, { error: `Version ${n} not found` });
    }
    for (const [column, fn] of Object.entries(body.bucket_overrides ?? {})) {
      if (!BUCKET_FUNCTIONS.includes(fn)) {
        throw validationError(`Unsupported bucket function '${fn}' for column '${column}'. Supported: ${BUCKET_FUNCTIONS.join(', ')}.`, 'bucket_overrides');
      }
    }
    return {
      can_materialize: false,
      reason: MATERIALIZATION_REASON,
      transformed_query: null,
      execution_query: null,
      display_execution_query: null,
      range_pairs: [],
      aggregates: [],
    };
  }

  /**
   * `POST …/endpoints/<name>/materialization_suggestion/`: PostHog's AI rewrite, behind a feature flag. Quarry has no
   * such feature: the answer is PostHog's for a project where it is off, 404 with a bare `{"error"}`.
   */
  async materializationSuggestion(principal: Principal, projectId: number, name: string): Promise<never> {
    await this.resolve(principal, projectId, name, 'endpoint:read');
    throw new EndpointBareError(404, { error: 'Materialization suggestions are not available.' });
  }

  /**
   * `POST …/endpoints/last_execution_times/` with `{"names": [...]}`: when each named live endpoint last ran
   * through an API key (30-minute granularity, as `last_executed_at`), in PostHog's query-status wrapper. Names that
   * never ran, or that name no endpoint, have no row; an empty list gives `results: null`.
   */
  async lastExecutionTimes(principal: Principal, projectId: number, input: unknown): Promise<{ query_status: Record<string, unknown> }> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'endpoint:read' });
    const { names } = parseInput(lastExecutionTimesSchema, input ?? {});
    for (const n of names) if (!ENDPOINT_NAME_RE.test(n)) throw validationError(`Invalid endpoint name: ${n}`, 'names');
    let results: [string, string][] | null = null;
    if (names.length > 0) {
      const rows = await this.endpoints
        .createQueryBuilder('e')
        .where('e.project_id = :pid AND e.deleted = 0 AND e.last_executed_at IS NOT NULL AND e.name IN (:...names)', { pid: project.id, names })
        .orderBy('e.name', 'ASC')
        .getMany();
      results = rows.map((e) => [e.name, e.last_executed_at!.toISOString().replace(/\.\d+Z$/, '+00:00')]);
    }
    const now = new Date().toISOString();
    return {
      query_status: {
        id: '',
        query_async: false,
        team_id: project.id,
        insight_id: null,
        dashboard_id: null,
        error: false,
        complete: true,
        error_message: null,
        results,
        start_time: now,
        end_time: now,
        expiration_time: null,
        query_progress: null,
        labels: [],
      },
    };
  }

  /** The per-endpoint OpenAPI 3.0.3 document (`?version=N`). */
  async openapi(principal: Principal, projectId: number, name: string, version: unknown, opts: ViewOptions = {}): Promise<Record<string, unknown>> {
    const { project, endpoint } = await this.resolve(principal, projectId, name, 'endpoint:read');
    let v: EndpointVersion | null;
    if (version === undefined || version === null || version === '') v = await this.currentVersion(endpoint);
    else {
      const n = parseIntParam(version, 'version', ANY_VERSION, true);
      v = await this.versions.findOneBy({ endpoint_id: endpoint.id, version: n });
      if (!v) throw new EndpointBareError(404, { error: `Version ${n} not found` });
    }
    const { openapiDocument } = await import('./openapi');
    return openapiDocument({
      projectId: project.id,
      endpoint,
      version: v,
      variables: this.declarationsOf(v),
      origin: this.origin(opts),
    });
  }

  // -------------------------------------------------------------------------------------------- writes

  async create(principal: Principal, projectId: number, input: unknown, opts: ViewOptions = {}): Promise<EndpointView> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'endpoint:write' });
    const body = parseInput(endpointRequestSchema, input);
    if (body.name === undefined) throw validationError('This field is required.', 'name', 'required');
    if (body.query === undefined) throw validationError('This field is required.', 'query', 'required');
    if (body.version !== undefined && body.version !== null) throw validationError('A new endpoint has no version to target.', 'version');
    this.checkUnsupported(body, body.is_active ?? true);
    await this.checkName(project.id, body.name);
    const optional = optionalBreakdowns(body.query, body.optional_breakdown_properties ?? []);
    const prepared = await this.prepare(principal, project, body.query, body.variables ?? undefined, []);
    const now = new Date();
    const userId = principal.kind === 'personal' ? principal.userId : null;
    const endpoint = this.endpoints.create({
      id: randomUUID(),
      project_id: project.id,
      name: body.name,
      is_active: body.is_active ?? true,
      current_version: 1,
      tags: body.tags ?? [],
      derived_from_insight: body.derived_from_insight ?? null,
      created_by_id: userId,
      updated_by_id: userId,
      created_at: now,
      updated_at: now,
      last_executed_at: null,
      deleted: false,
      deleted_at: null,
    });
    const version = this.versions.create({
      id: randomUUID(),
      endpoint_id: endpoint.id,
      version: 1,
      query: prepared.query,
      variables: prepared.variables,
      columns: prepared.columns,
      column_changes: null,
      description: body.description ?? '',
      data_freshness_seconds: body.data_freshness_seconds ?? DEFAULT_FRESHNESS_SECONDS,
      optional_breakdown_properties: optional,
      is_active: true,
      created_by_id: userId,
      created_at: now,
      updated_at: now,
      last_executed_at: null,
    });
    try {
      await this.store.db.transaction(async (m) => {
        await m.save(endpoint);
        await m.save(version);
      });
    } catch (e) {
      if (String((e as Error).message).includes('UNIQUE')) throw duplicateName();
      throw e;
    }
    return this.view(project, endpoint, version, opts);
  }

  /**
   * PATCH/PUT. A changed query (or changed variable declarations) creates version N+1, inheriting the previous
   * version's variables, description and freshness unless the body gives them. With a target version (body
   * `version`, else `?version=`), settings and `is_active` apply to that version only.
   */
  async update(
    principal: Principal,
    projectId: number,
    name: string,
    input: unknown,
    queryVersion?: unknown,
    opts: ViewOptions = {},
  ): Promise<EndpointView | { success: true }> {
    const { project, endpoint } = await this.resolve(principal, projectId, name, 'endpoint:write', true);
    const body = parseInput(endpointRequestSchema, input);
    if (body.deleted === true) {
      await this.softDelete(endpoint);
      return { success: true };
    }
    const targeting = (body.version !== undefined && body.version !== null) || (queryVersion !== undefined && queryVersion !== null && queryVersion !== '');
    this.checkUnsupported(body, targeting ? endpoint.is_active : (body.is_active ?? endpoint.is_active));
    const userId = principal.kind === 'personal' ? principal.userId : null;
    const now = new Date();
    const current = await this.currentVersion(endpoint);

    let targetN: number | undefined;
    if (body.version !== undefined && body.version !== null) targetN = body.version;
    else if (queryVersion !== undefined && queryVersion !== null && queryVersion !== '') targetN = parseIntParam(queryVersion, 'version', ANY_VERSION, true);
    let target: EndpointVersion | null = null;
    if (targetN !== undefined) {
      target = await this.versions.findOneBy({ endpoint_id: endpoint.id, version: targetN });
      if (!target) throw validationError(`Version ${targetN} not found.`, 'version');
    }
    const base = target ?? current;
    const queryChanged = body.query !== undefined && stableJson(body.query) !== stableJson(base.query);
    const varsChanged =
      body.variables !== undefined && body.variables !== null && stableJson(body.variables) !== stableJson(base.variables);
    if (target && queryChanged) {
      throw validationError('Cannot change query when targeting a specific version. Query changes create a new version.', 'query');
    }
    if (target && varsChanged) {
      throw validationError('Cannot change variables when targeting a specific version. Variable changes create a new version.', 'variables');
    }

    if (body.name !== undefined && body.name !== endpoint.name) {
      await this.checkName(project.id, body.name);
      endpoint.name = body.name;
    }
    if (body.tags != null) endpoint.tags = body.tags;
    if (body.derived_from_insight !== undefined) endpoint.derived_from_insight = body.derived_from_insight;
    endpoint.updated_at = now;
    endpoint.updated_by_id = userId;

    let newVersion: EndpointVersion | null = null;
    if (queryChanged || varsChanged) {
      const query = body.query ?? current.query;
      const explicitVars = body.variables ?? undefined;
      const prepared = await this.prepare(principal, project, query, explicitVars, current.variables);
      newVersion = this.versions.create({
        id: randomUUID(),
        endpoint_id: endpoint.id,
        version: endpoint.current_version + 1,
        query: prepared.query,
        variables: prepared.variables,
        columns: prepared.columns,
        column_changes: diffColumns(current.columns, prepared.columns),
        description: body.description ?? current.description,
        data_freshness_seconds: body.data_freshness_seconds ?? current.data_freshness_seconds,
        // given ones must all be breakdowns of the new query; inherited ones are kept while they still are
        optional_breakdown_properties:
          body.optional_breakdown_properties != null
            ? optionalBreakdowns(prepared.query, body.optional_breakdown_properties)
            : (current.optional_breakdown_properties ?? []).filter((b) => breakdownProperties(prepared.query).includes(b)),
        is_active: true,
        created_by_id: userId,
        created_at: now,
        updated_at: now,
        last_executed_at: null,
      });
      endpoint.current_version = newVersion.version;
      if (body.is_active != null) endpoint.is_active = body.is_active;
    } else {
      const v = base;
      if (body.description !== undefined) v.description = body.description ?? '';
      if (body.data_freshness_seconds !== undefined) v.data_freshness_seconds = body.data_freshness_seconds ?? DEFAULT_FRESHNESS_SECONDS;
      if (body.optional_breakdown_properties !== undefined) v.optional_breakdown_properties = optionalBreakdowns(v.query, body.optional_breakdown_properties ?? []);
      if (body.is_active != null) {
        if (target) v.is_active = body.is_active;
        else endpoint.is_active = body.is_active;
      }
      v.updated_at = now;
    }
    try {
      await this.store.db.transaction(async (m) => {
        await m.save(endpoint);
        if (newVersion) await m.save(newVersion);
        else await m.save(base);
      });
    } catch (e) {
      if (String((e as Error).message).includes('UNIQUE')) throw duplicateName();
      throw e;
    }
    if (target) return this.versionView(project, endpoint, target, opts);
    return this.view(project, endpoint, newVersion ?? current, opts);
  }

  async delete(principal: Principal, projectId: number, name: string): Promise<void> {
    const { endpoint } = await this.resolve(principal, projectId, name, 'endpoint:write', true);
    await this.softDelete(endpoint);
  }

  // -------------------------------------------------------------------------------------------- run

  /**
   * `GET|POST …/endpoints/<name>/run`. `query` holds the query-string `version`/`limit`/`offset`; the body wins.
   * Project secret keys may call this and nothing else; their fixed variables override the caller's.
   */
  async run(
    principal: Principal,
    projectId: number,
    name: string,
    input: unknown,
    query: Record<string, unknown> = {},
    signal?: AbortSignal | (() => AbortSignal),
    /** The body's JSON text when known: a body text seen before is not validated again. */
    inputText?: string,
  ): Promise<RunOutcome> {
    requireProjectAccess(principal, projectId, ENDPOINT_RUN);
    const fast = inputText === undefined ? undefined : this.fastRun(principal, projectId, name, query, inputText);
    if (fast !== undefined) return fast;
    // Rows already in memory are used without an await: each await is a microtask hop, and a cached run has many.
    const project = this.queries.projectInMemory(projectId) ?? (await this.queries.findProject(projectId));
    const endpoint = this.endpointByName.get(endpointKey(project.id, name)) ?? (await this.liveEndpoint(project.id, name));
    if (!endpoint || !endpoint.is_active) throw notFound();
    try {
      return await this.runActive(principal, projectId, name, project, endpoint, input, query, signal, inputText);
    } catch (e) {
      // a refused run of a live endpoint is in its logs (reference §1.6); a missing or inactive one has none to write to
      if (isUserError(e)) this.logRun(endpoint, 'ERROR', randomUUID(), `Run refused (${e.status} ${e.code}): ${e.message}`);
      throw e;
    }
  }

  /** {@link run} once the endpoint is found and active. */
  private async runActive(
    principal: Principal,
    projectId: number,
    name: string,
    project: Project,
    endpoint: Endpoint,
    input: unknown,
    query: Record<string, unknown>,
    signal: AbortSignal | (() => AbortSignal) | undefined,
    inputText: string | undefined,
  ): Promise<RunOutcome> {
    const body = this.runRequest(input, inputText);
    const headers: Record<string, string> = {};

    const pick = (k: 'version' | 'limit' | 'offset') => (body[k] !== undefined && body[k] !== null ? body[k] : query[k]);
    const rawVersion = pick('version');
    const versionN = rawVersion === undefined || rawVersion === '' ? undefined : parseIntParam(rawVersion, 'version', 1);
    const rawLimit = pick('limit');
    const limit = rawLimit === undefined || rawLimit === '' ? undefined : parseIntParam(rawLimit, 'limit', 1);
    const rawOffset = pick('offset');
    const offset = rawOffset === undefined || rawOffset === '' ? undefined : parseIntParam(rawOffset, 'offset', 0);
    if (offset !== undefined && limit === undefined) throw new EndpointBareError(400, { error: 'offset requires limit to be set' });

    let version: EndpointVersion;
    if (versionN === undefined) {
      version = this.versionByNumber.get(versionKey(endpoint.id, endpoint.current_version)) ?? (await this.runVersion(endpoint, endpoint.current_version))!;
    } else {
      const found = this.versionByNumber.get(versionKey(endpoint.id, versionN)) ?? (await this.runVersion(endpoint, versionN));
      if (!found) {
        throw new EndpointBareError(404, {
          error: `Version ${versionN} not found for endpoint '${endpoint.name}'`,
          current_version: endpoint.current_version,
        });
      }
      version = found;
    }
    if (!version.is_active) throw validationError(`Version ${version.version} is inactive and cannot be executed.`, 'version');

    const isSql = PRODUCTQL_KINDS.has(String(version.query.kind));
    if (INSIGHT_KINDS.has(String(version.query.kind))) {
      // PostHog pages HogQL endpoints only (reference §1.6); Quarry also pages the row kinds (EventsQuery, ActorsQuery)
      if (limit !== undefined) throw validationError('limit is only supported for HogQLQuery endpoints.', 'limit');
      if (offset !== undefined) throw validationError('offset is only supported for HogQLQuery endpoints.', 'offset');
    }
    if (body.refresh === 'direct') throw validationError('refresh=direct is only valid for materialized endpoints.', 'refresh');
    if (body.query_override !== undefined && body.query_override !== null) throw validationError('query_override is not allowed.', 'query_override');
    if (body.filters_override !== undefined && body.filters_override !== null && isSql) {
      throw validationError('Not allowed for HogQL endpoints. Use variables instead.', 'filters_override');
    }

    const fixed = principal.kind !== 'project_secret' ? NO_FIXED : (this.fixedByKey.get(principal.keyId) ?? (await this.fixedVariables(principal)));
    // The variables of a body (a remembered body is one object per text) for a version and a key's fixed values
    // (both objects replaced on any write): resolved and checked once, then reused.
    let resolved = this.runResolved.get(body);
    if (resolved === undefined || resolved.version !== version || resolved.fixed !== fixed) {
      const declared = this.declarationsOf(version);
      const declaredNames = new Set(declared.map((d) => d.name));
      const notDeclared = Object.keys(fixed).filter((k) => !declaredNames.has(k));
      if (notDeclared.length) {
        // A key pinned to a customer must never run an endpoint that cannot filter by that customer.
        throw new UserError(
          403,
          'authentication_error',
          'permission_denied',
          `This API key fixes variable(s) ${notDeclared.join(', ')}, which endpoint '${endpoint.name}' does not declare.`,
        );
      }
      const values = resolveValues(declared, body.variables ?? {}, fixed);
      resolved = { version, fixed, declared, values, valuesJson: JSON.stringify(values) };
      this.runResolved.set(body, resolved);
    }
    const { declared, values } = resolved;

    // A run with the same version, values, limit and offset as an earlier one reuses that run's validated node and
    // cache key (built for the same project settings); filters_override runs are built each time.
    const memoKey = body.filters_override ? undefined : `${resolved.valuesJson}|${limit ?? ''}|${offset ?? ''}`;
    const memo = memoKey === undefined ? undefined : this.runMemo(version, project);
    const known = memoKey === undefined ? undefined : memo!.get(memoKey);
    let node: Record<string, unknown>;
    let prepared: PreparedQuery;
    if (known !== undefined) ({ node, prepared } = known);
    else {
      node = await this.runNode(version, isSql, declared, values, limit, offset, body.filters_override, headers);
      // The executor caches on the node (which holds the bound variables); freshness is the version's.
      prepared = this.queries.prepare(project, node);
      if (memoKey !== undefined) {
        if (memo!.size >= MAX_RUN_MEMO) memo!.delete(memo!.keys().next().value as string);
        memo!.set(memoKey, { node, prepared });
      }
    }
    const key = prepared.key;
    const ttlMs = version.data_freshness_seconds * 1000;
    const entry = this.queries.cache.get(key);
    const useCache = body.refresh !== 'force' && entry !== undefined && Date.now() - entry.lastRefresh.getTime() < ttlMs;
    const execOpts = { clientQueryId: body.client_query_id ?? undefined, name: `endpoint:${endpoint.name}` };
    // a cache hit needs no abort signal: it is made (by the caller's getter) only for a computation
    const computeSignal = () => (typeof signal === 'function' ? signal() : signal);
    let out;
    try {
      // the remembered node only serves cache hits; a computation validates the node afresh (runners get their own)
      if (useCache) {
        const now = this.queries.executeNow(principal, project, node, { ...execOpts, prepared, refresh: 'force_cache' });
        out = now instanceof Promise ? await now : now;
      } else out = await this.queries.execute(principal, project, node, { ...execOpts, signal: computeSignal(), refresh: 'force_blocking' });
      // a bare miss of force_cache (a plain hit, with servedFrom, is not one: its body need not be read)
      if (useCache && out.servedFrom === undefined && out.body.results === null && out.body.is_cached === false) {
        out = await this.queries.execute(principal, project, node, { ...execOpts, signal: computeSignal(), refresh: 'force_blocking' });
      }
    } catch (e) {
      throw endpointError(e);
    }
    const executionId = randomUUID();
    this.logRun(endpoint, 'INFO', executionId, `Ran version ${version.version}${out.body.is_cached === true ? ', served from the cache' : ''}.`);
    const versionCreatedAt = createdAtText(version);
    const touched = this.touchExecuted(endpoint, version);
    if (touched !== undefined) await touched;
    // A cached answer's response is the same but for its execution id: its JSON up to the name is kept per cache
    // entry (and what shapes it), so a hit serializes four fields instead of the results, and builds the response
    // object only when a caller reads it (GraphQL, row streams; the JSON face never does).
    const served = out.servedFrom as { body: Record<string, unknown> } | undefined;
    const shape = served !== undefined && !body.debug ? `${version.id}|${ttlMs}|${body.result_format ?? ''}|${limit ?? ''}|${offset ?? ''}` : undefined;
    const tail = () =>
      `"name":${JSON.stringify(endpoint.name)},"execution_id":"${executionId}","endpoint_version":${version.version},"endpoint_version_created_at":"${versionCreatedAt}"}`;
    const queryOut = out;
    const build = () => this.runResponse(queryOut.body, { isSql, limit, offset, body, version, ttlMs, principal, endpoint, executionId, versionCreatedAt });
    const columnsOf = (r: Record<string, unknown>) => (isSql ? columnsOfResponse(r) : version.columns);
    const knownHead = shape !== undefined ? this.runHeads.get(served!)?.get(shape) : undefined;
    // a plain hit of a remembered body: the next one may take the synchronous path (see cachedRun)
    const remember = () => {
      if (inputText === undefined || memoKey === undefined || !useCache) return;
      this.fastRuns.set(body, {
        principal, projectId, name, project, endpoint, version, versionN, fixed, node, prepared, ttlMs, shape: shape!, limit, offset, isSql,
        execName: execOpts.name, clientQueryId: execOpts.clientQueryId,
        qVersion: query.version, qLimit: query.limit, qOffset: query.offset,
      });
    };
    if (knownHead !== undefined) {
      remember();
      return new LazyRunOutcome(`${knownHead},${tail()}`, headers, build, () => columnsOf(served!.body));
    }

    const response = build();
    let json: string | undefined;
    if (shape !== undefined && !RUN_TAIL_KEYS.some((k) => k in served!.body)) {
      let heads = this.runHeads.get(served!);
      if (heads === undefined) this.runHeads.set(served!, (heads = new Map()));
      let head = heads.get(shape);
      if (head === undefined) {
        const { name: _n, execution_id: _e, endpoint_version: _v, endpoint_version_created_at: _c, ...rest } = response;
        head = JSON.stringify(rest).slice(0, -1);
        if (heads.size < MAX_RUN_MEMO) heads.set(shape, head);
      }
      if (heads.get(shape) === head) remember();
      json = `${head},${tail()}`;
    }
    return { body: response, json, headers, columns: columnsOf(out.body) };
  }

  /**
   * {@link run} for a cached answer, synchronously (no promise, no microtask hop): a body text seen before, run by
   * the same caller with the same query string as a run that was served from the cache, while the project, the
   * endpoint, the version and the key's fixed variables are the same objects (any write to them makes new ones),
   * the answer is still in the cache and within the version's freshness, and nothing is due to be written. Then
   * every check of that run holds again and its answer is served as it was, with a new execution id. Undefined
   * otherwise: the caller makes the full {@link run}. The scope and project checks run first, every time.
   */
  cachedRun(principal: Principal, projectId: number, name: string, query: Record<string, unknown>, inputText: string): RunOutcome | undefined {
    requireProjectAccess(principal, projectId, ENDPOINT_RUN);
    return this.fastRun(principal, projectId, name, query, inputText);
  }

  private fastRun(principal: Principal, projectId: number, name: string, query: Record<string, unknown>, inputText: string): RunOutcome | undefined {
    const body = this.runBodies.get(inputText);
    const f = body === undefined ? undefined : this.fastRuns.get(body);
    if (f === undefined || f.principal !== principal || f.projectId !== projectId || f.name !== name) return undefined;
    if (query.version !== f.qVersion || query.limit !== f.qLimit || query.offset !== f.qOffset) return undefined;
    const project = this.queries.projectInMemory(projectId);
    if (project !== f.project) return undefined;
    const endpoint = this.endpointByName.get(endpointKey(project.id, name));
    if (endpoint !== f.endpoint || !endpoint.is_active) return undefined;
    const version = this.versionByNumber.get(versionKey(endpoint.id, f.versionN ?? endpoint.current_version));
    if (version !== f.version || !version.is_active) return undefined;
    if (principal.kind === 'project_secret' && this.fixedByKey.get(principal.keyId) !== f.fixed) return undefined;
    const entry = this.queries.cache.get(f.prepared.key);
    if (entry === undefined || Date.now() - entry.lastRefresh.getTime() >= f.ttlMs) return undefined;
    const served = entry.served;
    const head = served === undefined ? undefined : this.runHeads.get(served)?.get(f.shape);
    if (head === undefined) return undefined;
    const now = Date.now();
    const due = (d: Date | null) => !d || now - d.getTime() >= LAST_EXECUTED_GRANULARITY_MS;
    if (due(endpoint.last_executed_at) || due(version.last_executed_at)) return undefined; // run() writes them
    // force_cache with an entry in the cache answers synchronously, from the entry's kept envelope
    const out = this.queries.executeNow(principal, project, f.node, { clientQueryId: f.clientQueryId, name: f.execName, prepared: f.prepared, refresh: 'force_cache' }) as QueryOutcome;
    const executionId = randomUUID();
    this.logRun(endpoint, 'INFO', executionId, `Ran version ${version.version}, served from the cache.`);
    const versionCreatedAt = createdAtText(version);
    const json = `${head},"name":${JSON.stringify(endpoint.name)},"execution_id":"${executionId}","endpoint_version":${version.version},"endpoint_version_created_at":"${versionCreatedAt}"}`;
    const { isSql, limit, offset, ttlMs } = f;
    return new LazyRunOutcome(
      json,
      {},
      () => this.runResponse(out.body, { isSql, limit, offset, body: body!, version, ttlMs, principal, endpoint, executionId, versionCreatedAt }),
      () => (isSql ? columnsOfResponse(served!.body) : version.columns),
    );
  }

  /** Appends to an endpoint's run log (see {@link logs}), dropping its oldest entries beyond {@link MAX_LOG_ENTRIES}. */
  private logRun(endpoint: Endpoint, level: EndpointLogEntry['level'], instanceId: string, message: string): void {
    let log = this.runLogs.get(endpoint.id);
    if (log === undefined) this.runLogs.set(endpoint.id, (log = []));
    log.push({ log_source_id: endpoint.id, instance_id: instanceId, timestamp: new Date(Date.now()).toISOString(), level, message });
    // dropped in batches, so a busy endpoint's log costs no copy per run
    if (log.length > MAX_LOG_ENTRIES + 100) log.splice(0, log.length - MAX_LOG_ENTRIES);
  }

  /** The response of a run from the query answer `r` (see {@link run}). */
  private runResponse(
    r: Record<string, unknown>,
    o: {
      isSql: boolean;
      limit: number | undefined;
      offset: number | undefined;
      body: RunRequest;
      version: EndpointVersion;
      ttlMs: number;
      principal: Principal;
      endpoint: Endpoint;
      executionId: string;
      versionCreatedAt: string;
    },
  ): Record<string, unknown> {
    const { isSql, limit, offset, body, version, ttlMs, principal, endpoint } = o;
    let results = (r.results ?? null) as unknown;
    let hasMore = Boolean(r.hasMore);
    if (!isSql && Array.isArray(results) && (limit !== undefined || offset !== undefined)) {
      const all = results;
      const start = offset ?? 0;
      results = all.slice(start, limit === undefined ? undefined : start + limit);
      hasMore = limit !== undefined && start + limit < all.length;
    } else if (!isSql) hasMore = false;
    if (!isSql) results = withoutBreakdownSentinels(results);
    const columns = Array.isArray(r.columns) ? (r.columns as string[]) : version.columns.map((c) => c.name);
    if (body.result_format === 'objects' && Array.isArray(results)) {
      results = results.map((row) => (Array.isArray(row) && isSql ? Object.fromEntries(columns.map((c, i) => [c, row[i]])) : row));
    }

    const lastRefresh = typeof r.last_refresh === 'string' ? new Date(r.last_refresh) : new Date();
    const response: Record<string, unknown> = { results };
    if (isSql || Array.isArray(r.columns)) response.columns = columns;
    if (r.types !== undefined) response.types = r.types;
    response.hasMore = hasMore;
    if (isSql) {
      response.limit = r.limit;
      response.offset = r.offset;
    }
    for (const k in r) if (!DROPPED_FROM_RUN.has(k)) response[k] = r[k];
    response.cache_target_age = new Date(lastRefresh.getTime() + ttlMs).toISOString();
    if (body.debug) {
      response.cache_key = r.cache_key;
      response.timings = r.timings ?? null;
      if (principal.kind === 'personal') response.hogql = r.hogql ?? undefined;
      // the rest of what a non-debug run drops (reference §1.6), when the answer has it
      for (const k of DEBUG_ONLY) if (r[k] !== undefined) response[k] = r[k];
    }
    response.name = endpoint.name;
    response.execution_id = o.executionId;
    response.endpoint_version = version.version;
    response.endpoint_version_created_at = o.versionCreatedAt;
    return response;
  }

  // -------------------------------------------------------------------------------------------- helpers

  /** The variables a version's runs accept: its declarations, and for insights PostHog's magic ones. */
  declarationsOf(v: EndpointVersion): EndpointVariable[] {
    if (PRODUCTQL_KINDS.has(String(v.query.kind))) return v.variables;
    const magic = magicDeclarations(this.magicOf(v.query));
    const overrides = new Map(v.variables.map((d) => [d.name, d]));
    return magic.map((m) => (overrides.has(m.name) ? { ...m, ...overrides.get(m.name)! } : m));
  }

  private magicOf(query: Record<string, unknown>): MagicVariables {
    return magicVariables(query, (candidate) => {
      try {
        this.queries.validateNode(candidate as { kind: string });
        return true;
      } catch {
        return false;
      }
    });
  }

  /**
   * Validates a query and its variable declarations; computes the result columns. `explicit`: declarations sent with
   * the request (all must be used); otherwise the query's own PostHog-style definitions (`query.variables`) over the
   * `inherited` ones of the previous version, those the query does not use dropped — from the stored query too, as
   * PostHog's endpoint validation drops definitions of placeholders no longer used (reference §1.4).
   */
  private async prepare(
    principal: Principal,
    project: Project,
    query: Record<string, unknown>,
    explicit: EndpointVariable[] | undefined,
    inherited: EndpointVariable[],
  ): Promise<{ variables: EndpointVariable[]; columns: EndpointColumn[]; query: Record<string, unknown> }> {
    const validated = this.queries.validateStoredNode(query as { kind: string }).node as Record<string, unknown>;
    const declared = explicit ?? inherited;
    if (PRODUCTQL_KINDS.has(String(query.kind)) && query.connectionId !== undefined && query.connectionId !== null && query.connectionId !== '') {
      // PostHog's endpoint validation refuses a direct warehouse connection: an endpoint reads the project's own tables
      throw validationError('Endpoints cannot use a direct warehouse connection (connectionId). Query the project\'s tables instead.', 'query');
    }
    if (PRODUCTQL_KINDS.has(String(query.kind))) {
      const ids = definitionIds(query.variables);
      const saved = this.saved && ids.length ? await this.saved.savedVariables(project.id, ids) : [];
      checkDefinitionIds(ids, this.saved ? saved : null);
      let vars = explicit;
      if (!vars) {
        const own = declarationsFromQueryVariables(query.variables, saved);
        const ownNames = new Set(own.map((v) => v.name));
        vars = [...inherited.filter((v) => !ownNames.has(v.name)), ...own];
      }
      checkDeclarations(vars);
      let ast: Query;
      try {
        ast = await parseSelect(String(query.query));
      } catch (e) {
        // PostHog wraps the parser's error in a DRF ValidationError on `query`: code invalid_input, not the parser's
        if (isUserError(e)) throw new UserError(400, 'validation_error', 'invalid_input', `Invalid HogQL query: ${e.message}`, { attr: 'query', span: e.span });
        throw e;
      }
      const used = placeholderNames(ast);
      let stored = query;
      if (!explicit) {
        vars = vars.filter((v) => used.has(v.name));
        stored = withoutUnusedDefinitions(query, used);
        ({ vars, stored } = await this.autoFilled(project, used, vars, stored));
      }
      checkPlaceholders(used, vars);
      return { variables: vars, columns: await this.sqlColumns(project, ast, vars), query: stored };
    }
    // Insight kinds: only the magic variables exist; declarations may give them defaults, `required` or descriptions.
    const vars = declared;
    const magic = magicDeclarations(this.magicOf(query));
    const magicNames = new Set(magic.map((m) => m.name));
    const kept = explicit ? vars : vars.filter((v) => magicNames.has(v.name));
    checkDeclarations(kept, () => true);
    const bad = kept.filter((v) => !magicNames.has(v.name)).map((v) => v.name);
    if (bad.length) {
      throw validationError(
        `${query.kind} endpoints only take the variables ${[...magicNames].join(', ') || '(none)'}; not: ${bad.join(', ')}.`,
        'variables',
      );
    }
    let out;
    try {
      out = await this.queries.execute(principal, project, validated, { refresh: 'blocking', name: 'endpoint:columns' });
    } catch (e) {
      throw endpointError(e);
    }
    return { variables: kept, columns: columnsOfResponse(out.body), query };
  }

  /**
   * PostHog's convenience (reference §1.4): placeholders without a definition take one from the project's saved
   * variable of that code name — `{variableId, code_name, value: <its default>}` added to the stored query's
   * `variables` under its id — and its declaration (type and default).
   */
  private async autoFilled(
    project: Project,
    used: Set<string>,
    vars: EndpointVariable[],
    stored: Record<string, unknown>,
  ): Promise<{ vars: EndpointVariable[]; stored: Record<string, unknown> }> {
    const declared = new Set(vars.map((v) => v.name));
    const missing = [...used].filter((u) => !declared.has(u));
    if (!missing.length || !this.saved) return { vars, stored };
    const found = await this.saved.savedVariablesByCodeName(project.id, missing);
    const defs: Record<string, unknown> = {};
    const added: SavedVariable[] = [];
    for (const name of missing) {
      const v = found.find((f) => f.code_name === name);
      if (!v) continue;
      defs[v.id] = { variableId: v.id, code_name: name, value: v.default_value ?? null };
      added.push(v);
    }
    if (!added.length) return { vars, stored };
    const current = stored.variables && typeof stored.variables === 'object' && !Array.isArray(stored.variables) ? (stored.variables as Record<string, unknown>) : {};
    const next = { ...stored, variables: { ...current, ...defs } };
    return { vars: [...vars, ...declarationsFromQueryVariables(defs, added)], stored: next };
  }

  /** Result columns of a ProductQL query: compiled with sample values and run with LIMIT 0. */
  private async sqlColumns(project: Project, ast: Query, vars: EndpointVariable[]): Promise<EndpointColumn[]> {
    const samples = Object.fromEntries(vars.map((v) => [v.name, sampleValue(v)]));
    let compiled;
    try {
      compiled = await compileProductQL({
        query: ast,
        projectId: project.id,
        timezone: project.timezone,
        variables: samples,
        dialect: this.engine.dialect,
      });
    } catch (e) {
      if (isUserError(e)) throw new UserError(e.status, e.type, e.code, e.message, { attr: 'query', span: e.span });
      throw e;
    }
    let engineTypes: string[] | undefined;
    try {
      const res = await this.engine.query(`SELECT * FROM (${compiled.sql}) AS endpoint_columns LIMIT 0`, compiled.params, { timeoutMs: 10_000 });
      engineTypes = res.types;
    } catch (e) {
      if (isUserError(e)) throw new UserError(400, 'validation_error', e.code, e.message, { attr: 'query' });
      throw e;
    }
    const shaped = shapeResult([], compiled, engineTypes);
    return shaped.types.map(([name, t]) => ({ name, type: columnTypeOf(t) }));
  }

  /** The query node a run executes: the version's query with the bound values (and limit/offset, or the filters). */
  private async runNode(
    version: EndpointVersion,
    isSql: boolean,
    declared: EndpointVariable[],
    values: Record<string, unknown>,
    limit: number | undefined,
    offset: number | undefined,
    filtersOverride: unknown,
    headers: Record<string, string>,
  ): Promise<Record<string, unknown>> {
    if (isSql) {
      // List values are bound by the printer itself (a tuple right of IN, an array elsewhere).
      const { limit: _limit, offset: _offset, ...stored } = version.query;
      const node: Record<string, unknown> = { ...stored, query: String(version.query.query), variables: values };
      // a run limit past HogQL's largest returned rows is clamped to it (HogQLHasMorePaginator's min(max, limit)), not refused
      if (limit !== undefined) node.limit = Math.min(limit, MAX_LIMIT);
      if (offset !== undefined) node.offset = offset;
      return node;
    }
    const magic = this.magicOf(version.query);
    const given: Record<string, unknown> = {};
    for (const d of declared) if (values[d.name] !== null && values[d.name] !== undefined) given[d.name] = values[d.name];
    let node = applyMagic(version.query, magic, given);
    if (filtersOverride) {
      // the query API's dashboard-filter semantics (PostHog passes it on as the query request's filters_override)
      node = applyQueryOverrides(node as Record<string, unknown> & { kind: string }, filtersOverride, undefined);
      headers['X-PostHog-Warn'] = 'filters_override is deprecated and will be removed. Use variables instead.';
    }
    return node;
  }

  /** The validated run body; a body text seen before answers from memory (bodies are only read, never changed). */
  private runRequest(input: unknown, inputText: string | undefined): RunRequest {
    if (inputText === undefined || inputText.length > 16 * 1024) return parseInput(runRequestSchema, input ?? {});
    const known = this.runBodies.get(inputText);
    if (known !== undefined) return known;
    const body = parseInput(runRequestSchema, input ?? {});
    if (this.runBodies.size >= MAX_RUN_MEMO) this.runBodies.delete(this.runBodies.keys().next().value as string);
    this.runBodies.set(inputText, body);
    return body;
  }

  /** Nodes and cache keys of earlier runs of a version, for the project settings they were built with. */
  private runMemo(version: EndpointVersion, project: Project): Map<string, { node: Record<string, unknown>; prepared: PreparedQuery }> {
    let m = this.runMemos.get(version);
    if (m === undefined || m.project !== project) this.runMemos.set(version, (m = { project, runs: new Map() }));
    return m.runs;
  }

  private async fixedVariables(principal: Principal): Promise<Record<string, unknown>> {
    if (principal.kind !== 'project_secret') return {};
    const hit = this.fixedByKey.get(principal.keyId);
    if (hit !== undefined) return hit;
    const gen = this.fixedByKey.generation();
    const key = await this.store.secretKeys.findOneBy({ id: principal.keyId });
    const fixed = key?.fixed_variables ?? {};
    this.fixedByKey.set(principal.keyId, fixed, gen);
    return fixed;
  }

  /** The live (not deleted) endpoint of that name; from memory while endpoints are not written (runs only). */
  private async liveEndpoint(projectId: number, name: string): Promise<Endpoint | null> {
    const k = endpointKey(projectId, name);
    const hit = this.endpointByName.get(k);
    if (hit !== undefined) return hit;
    const gen = this.endpointByName.generation();
    const endpoint = await this.endpoints.findOneBy({ project_id: projectId, name, deleted: false });
    if (endpoint) this.endpointByName.set(k, endpoint, gen);
    return endpoint;
  }

  /** Version `n` of an endpoint (null when it has none); from memory while endpoints are not written (runs only). */
  private async runVersion(endpoint: Endpoint, n: number): Promise<EndpointVersion | null> {
    const k = versionKey(endpoint.id, n);
    const hit = this.versionByNumber.get(k);
    if (hit !== undefined) return hit;
    const gen = this.versionByNumber.generation();
    const v = await this.versions.findOneBy({ endpoint_id: endpoint.id, version: n });
    if (!v && n === endpoint.current_version) throw new Error(`endpoint ${endpoint.id} lacks its current version ${n}`);
    if (v) this.versionByNumber.set(k, v, gen);
    return v;
  }

  /** Writes the usage timestamps when due; undefined (nothing to wait for) when both are recent. */
  private touchExecuted(endpoint: Endpoint, version: EndpointVersion): Promise<void> | undefined {
    const now = Date.now();
    const stale = (d: Date | null) => !d || now - d.getTime() >= LAST_EXECUTED_GRANULARITY_MS;
    if (!stale(endpoint.last_executed_at) && !stale(version.last_executed_at)) return undefined;
    return this.writeExecuted(endpoint, version, stale);
  }

  private async writeExecuted(endpoint: Endpoint, version: EndpointVersion, stale: (d: Date | null) => boolean): Promise<void> {
    const now = new Date(Date.now()); // the clock touchExecuted judged staleness by
    // the objects may be the run caches' (such writes do not invalidate them): keep them current too
    if (stale(endpoint.last_executed_at)) {
      endpoint.last_executed_at = now;
      await this.endpoints.update(endpoint.id, { last_executed_at: now });
    }
    if (stale(version.last_executed_at)) {
      version.last_executed_at = now;
      await this.versions.update(version.id, { last_executed_at: now });
    }
  }

  private async resolve(principal: Principal, projectId: number, name: string, scope: 'endpoint:read' | 'endpoint:write', _write = false): Promise<Resolved> {
    const project = await this.projects.projectFor(principal, projectId, { scope });
    const endpoint = await this.endpoints.findOneBy({ project_id: project.id, name, deleted: false });
    if (!endpoint) throw notFound();
    return { project, endpoint };
  }

  private async currentVersion(e: Endpoint): Promise<EndpointVersion> {
    const v = await this.versions.findOneBy({ endpoint_id: e.id, version: e.current_version });
    if (!v) throw new Error(`endpoint ${e.id} lacks its current version ${e.current_version}`);
    return v;
  }

  private async checkName(projectId: number, name: string): Promise<void> {
    if (!ENDPOINT_NAME_RE.test(name)) {
      throw validationError(
        `Invalid name '${name}'. Must start with a letter, followed by letters, numbers, hyphens or underscores, and be at most 128 characters.`,
        'name',
      );
    }
    if (await this.endpoints.existsBy({ project_id: projectId, name, deleted: false })) throw duplicateName();
  }

  /** `active`: whether the endpoint is active once the body applies (PostHog refuses materializing an inactive one first). */
  private checkUnsupported(body: EndpointRequest, active: boolean): void {
    if (body.is_materialized === true && !active) throw validationError('Cannot enable materialization on inactive endpoint.', 'is_materialized');
    if (body.is_materialized === true) throw validationError(`Cannot materialize endpoint. Reason: ${MATERIALIZATION_REASON}`, 'is_materialized');
    if (body.bucket_overrides && Object.keys(body.bucket_overrides).length) {
      throw validationError('bucket_overrides only applies to materialized endpoints, which Quarry does not have.', 'bucket_overrides');
    }
  }

  private async softDelete(endpoint: Endpoint): Promise<void> {
    await this.endpoints.update(endpoint.id, { deleted: true, deleted_at: new Date(), is_active: false });
    this.runLogs.delete(endpoint.id); // no route reaches a deleted endpoint's logs
  }

  private origin(opts: ViewOptions): string {
    return opts.origin ?? `http://${this.config.host}:${this.config.port}`;
  }

  private async user(id: number | null): Promise<UserBasic | null> {
    if (id === null) return null;
    const u = await this.store.users.findOneBy({ id });
    return u ? userBasic(u) : null;
  }

  private async view(project: Project, e: Endpoint, v: EndpointVersion, opts: ViewOptions): Promise<EndpointView> {
    const path = `/api/environments/${project.id}/endpoints/${e.name}/run`;
    const origin = this.origin(opts);
    return {
      id: e.id,
      name: e.name,
      description: v.description,
      query: v.query,
      is_active: e.is_active,
      data_freshness_seconds: v.data_freshness_seconds,
      endpoint_path: path,
      url: origin + path,
      ui_url: `${origin}/project/${project.id}/endpoints/${e.name}`,
      created_at: e.created_at.toISOString(),
      updated_at: e.updated_at.toISOString(),
      created_by: await this.user(e.created_by_id),
      is_materialized: false,
      current_version: e.current_version,
      current_version_id: (await this.versions.findOneBy({ endpoint_id: e.id, version: e.current_version }))?.id ?? v.id,
      versions_count: await this.versions.countBy({ endpoint_id: e.id }),
      derived_from_insight: e.derived_from_insight,
      last_executed_at: iso(e.last_executed_at),
      materialization: { name: e.name, enabled: false, ready: false, can_materialize: false, reason: MATERIALIZATION_REASON },
      bucket_overrides: null,
      columns: v.columns,
      tags: e.tags,
      optional_breakdown_properties: v.optional_breakdown_properties ?? [],
      variables: this.declarationsOf(v),
    };
  }

  private async versionView(project: Project, e: Endpoint, v: EndpointVersion, opts: ViewOptions): Promise<EndpointVersionView> {
    const base = await this.view(project, e, v, opts);
    return {
      ...base,
      is_active: v.is_active,
      last_executed_at: iso(v.last_executed_at),
      version: v.version,
      version_id: v.id,
      endpoint_is_active: e.is_active,
      version_created_at: v.created_at.toISOString(),
      version_updated_at: v.updated_at.toISOString(),
      version_created_by: await this.user(v.created_by_id),
      column_changes: v.column_changes,
    };
  }
}

/** Envelope keys of the query answer that a run's response leaves out (or sets itself). */
const DROPPED_FROM_RUN = new Set(['results', 'columns', 'types', 'hasMore', 'limit', 'offset', 'query', 'productql', 'hogql', 'explain', 'cache_key', 'timings', 'calculation_trigger', 'modifiers', 'resolved_date_range']);

/** Keys of the query answer a run passes on only with `debug` (besides cache_key, timings and hogql). */
const DEBUG_ONLY = ['resolved_date_range', 'modifiers', 'explain', 'calculation_trigger'] as const;

/** The last keys of a run's response, set by the run itself. */
const ENDPOINT_RUN = { scope: 'endpoint:read', allowSecretKey: true } as const;
/** The fixed variables of a personal key: none (one shared object, so runs can be recognized by identity). */
const NO_FIXED: Record<string, unknown> = Object.freeze({});
const createdAtTexts = new WeakMap<EndpointVersion, { at: Date; text: string }>();
/**
 * A version's `created_at` as PostHog's run response writes it (Python's `isoformat()` of a UTC datetime:
 * `2025-01-02T10:00:00.123000+00:00`, no fraction when it is zero), made once per version object (and again if the
 * date is replaced).
 */
function createdAtText(v: EndpointVersion): string {
  const known = createdAtTexts.get(v);
  if (known !== undefined && known.at === v.created_at) return known.text;
  const iso = v.created_at.toISOString();
  const ms = v.created_at.getUTCMilliseconds();
  const text = `${iso.slice(0, 19)}${ms === 0 ? '' : `.${String(ms).padStart(3, '0')}000`}+00:00`;
  createdAtTexts.set(v, { at: v.created_at, text });
  return text;
}
const endpointKey = (projectId: number, name: string) => `${projectId}\u0000${name}`;
const versionKey = (endpointId: string | number, n: number) => `${endpointId}\u0000${n}`;

/** What a cached run was served from ({@link EndpointService.cachedRun}): all of it must be the same again. */
interface FastRun {
  principal: Principal;
  projectId: number;
  name: string;
  project: Project;
  endpoint: Endpoint;
  version: EndpointVersion;
  /** The version asked for (undefined: the current one). */
  versionN: number | undefined;
  fixed: Record<string, unknown>;
  node: Record<string, unknown>;
  prepared: PreparedQuery;
  ttlMs: number;
  shape: string;
  limit: number | undefined;
  offset: number | undefined;
  isSql: boolean;
  execName: string;
  clientQueryId: string | undefined;
  qVersion: unknown;
  qLimit: unknown;
  qOffset: unknown;
}

/** A cached run's outcome: the JSON is known, the response object and columns are built when first read. */
class LazyRunOutcome implements RunOutcome {
  private built: Record<string, unknown> | undefined;
  private cols: EndpointColumn[] | undefined;

  constructor(
    readonly json: string,
    readonly headers: Record<string, string>,
    private readonly build: () => Record<string, unknown>,
    private readonly columnsOf: () => EndpointColumn[],
  ) {}

  get body(): Record<string, unknown> {
    return (this.built ??= this.build());
  }

  get columns(): EndpointColumn[] {
    return (this.cols ??= this.columnsOf());
  }
}

const RUN_TAIL_KEYS = ['name', 'execution_id', 'endpoint_version', 'endpoint_version_created_at'];

/** Remembered runs per version ({@link EndpointService.runMemo}). */
const MAX_RUN_MEMO = 1000;

/** Kinds whose endpoints take optional breakdown properties (PostHog's breakdown-capable endpoint kinds). */
const OPTIONAL_BREAKDOWN_KINDS = new Set(['TrendsQuery', 'RetentionQuery']);

/** The breakdown properties of an insight query: `breakdownFilter.breakdown` (one or a list) and `breakdowns[].property`. */
function breakdownProperties(query: Record<string, unknown>): string[] {
  const bf = query.breakdownFilter as Record<string, unknown> | null | undefined;
  if (!bf) return [];
  const out: string[] = [];
  const add = (v: unknown) => {
    if (typeof v === 'string' && v !== '' && !out.includes(v)) out.push(v);
  };
  if (Array.isArray(bf.breakdown)) bf.breakdown.forEach(add);
  else add(bf.breakdown);
  if (Array.isArray(bf.breakdowns)) for (const b of bf.breakdowns) add((b as { property?: unknown } | null)?.property);
  return out;
}

/**
 * `optional_breakdown_properties` checked against the query (reference §1.4): only for breakdown-capable insight
 * kinds, and each one a breakdown property of the query.
 */
function optionalBreakdowns(query: Record<string, unknown>, given: string[]): string[] {
  if (given.length === 0) return [];
  const attr = 'optional_breakdown_properties';
  if (!OPTIONAL_BREAKDOWN_KINDS.has(String(query.kind))) {
    throw validationError(`optional_breakdown_properties is only supported for ${[...OPTIONAL_BREAKDOWN_KINDS].join(' and ')} endpoints.`, attr);
  }
  const known = breakdownProperties(query);
  const bad = given.filter((b) => !known.includes(b));
  if (bad.length) {
    throw validationError(
      `Not a breakdown property of the query: ${bad.join(', ')}. Its breakdown properties: ${known.join(', ') || '(none)'}.`,
      attr,
    );
  }
  return [...new Set(given)];
}

const duplicateName = () => validationError('An endpoint with this name already exists for this team.', 'name');

/**
 * Retrieve, update and the OpenAPI document read `?version=` as Python's `int()`: any integer is a version to look up
 * (0 and -1 are versions that do not exist, not bad parameters); only /run has a minimum.
 */
const ANY_VERSION = Number.MIN_SAFE_INTEGER;

/**
 * An integer parameter (`version`, `limit`, `offset`) from the body or the query string. A bad one is PostHog's
 * non-standard `{"error": "Invalid <name> parameter: x"}` on /run; `attrStyle` gives the retrieve shape instead.
 */
function parseIntParam(raw: unknown, name: string, min: number, attrStyle = false): number {
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^-?\d{1,15}$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!Number.isSafeInteger(n) || n < min) {
    if (attrStyle) throw validationError(`Must be an integer, got: ${String(raw)}`, name);
    throw new EndpointBareError(400, { error: `Invalid ${name} parameter: ${typeof raw === 'string' ? raw : JSON.stringify(raw)}` });
  }
  return n;
}

/** What a caller can do about a cost guardrail (PostHog's endpoint errors each carry a remediation). */
const GUARDRAIL_REMEDIATION: Record<string, string> = {
  query_timeout: 'Narrow the query (a shorter date range, more selective filters) so it finishes in time.',
  query_memory_limit: 'Narrow the query (a shorter date range, fewer breakdown values, more selective filters) so it fits in memory.',
};

/**
 * Cost guardrails are 400s on /run, not retryable (PostHog maps query timeouts and memory limits this way), their
 * detail followed by a remediation.
 */
function endpointError(e: unknown): unknown {
  if (isUserError(e) && (e.code === 'query_timeout' || e.code === 'query_memory_limit') && e.status !== 400) {
    return new UserError(400, 'server_error', e.code, `${e.message} ${GUARDRAIL_REMEDIATION[e.code]}`, { attr: e.attr });
  }
  return e;
}

/** Where a breakdown value sits in an insight answer (trends/retention series, funnel steps) and its label. */
const BREAKDOWN_KEYS = new Set(['breakdown_value', 'breakdown', 'label']);
const sentinelValue = (v: unknown): unknown => (v === BREAKDOWN_NULL ? null : v === BREAKDOWN_OTHER ? 'Other' : v);

/**
 * An insight endpoint's results with PostHog's breakdown sentinels cleaned (reference §1.6): the null-breakdown
 * marker becomes null and the "other" marker "Other", as values and inside multi-breakdown lists. A copy: the query
 * answer itself is the cached one, and the query API keeps the sentinels.
 */
function withoutBreakdownSentinels(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) {
    if (key !== undefined && BREAKDOWN_KEYS.has(key)) return value.map(sentinelValue);
    return value.map((v) => withoutBreakdownSentinels(v));
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = BREAKDOWN_KEYS.has(k) && !Array.isArray(v) ? sentinelValue(v) : withoutBreakdownSentinels(v, k);
    return out;
  }
  return value;
}
