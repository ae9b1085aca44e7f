import { randomInt } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Repository } from 'typeorm';
import { z } from 'zod';
import type { Principal } from '../auth/principal';
import { isUserError, notFound, parseError, UserError, validationError } from '../errors';
import type { Page, Paged } from '../pagination';
import type { ProjectService } from '../projects/project-service';
import { REFRESH_MODES, type QueryService, type RefreshMode } from '../queries/query-service';
import { ActivityLog, Cohort, Insight, type Project } from '../store/entities';
import { withoutMissingCohorts } from '../cohorts/missing-cohorts';
import type { Store } from '../store/store';
import { parseInput } from '../validation';
import { activityPage, diffFields, usersById, type ActivityPage, type TrackedField, type UserBasic } from './activity';
import { InsightViews } from './insight-views';
import { drfDateTime, drfTime } from '../projects/person-reader';
import { parseDateString } from '../queries/insights/date-range';
import { instantToLocal, localToInstant } from '../queries/insights/local-time';
import { applyQueryOverrides, queryWithVariablesOverride } from '../queries/overrides';
import { drfBoolean, drfChar, drfInteger, drfList, drfMissingRelatedList } from './drf-fields';
import { deriveName, executableNode, INSIGHT_TYPE_KINDS, isNonRunnable, validateInsightQuery, type InsightQueryKinds } from './insight-query';
import { cleanSavedFilters, filterToQuery, hasLegacyFilters, legacyInsightQuery, strToBool, validateConverted } from './legacy-filters';
import {
  LEGACY_BREAKDOWN_LIMIT,
  legacyOffset,
  legacyRefresh,
  legacyRequestFilter,
  protectOldClients,
  type LegacyAnswer,
  type LegacyEndpoint,
} from './legacy-results';
import type { ActivityChange } from '../store/entities/activity-log';

const SHORT_ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const MAX_SEARCH_LENGTH = 1000;

/** name, derived_name, description: the model's CharField(max_length=400, null=True, blank=True) as DRF reads it. */
const text400 = drfChar(400).nullable();

/** Writable fields of an insight. Unknown and read-only fields are ignored, as DRF does (clients echo a GET back). */
const insightBody = z.object({
  name: text400.optional(),
  derived_name: text400.optional(),
  description: text400.optional(),
  query: z.unknown().optional(),
  tags: drfList(z.string().trim().min(1, 'A tag may not be blank.').max(255, 'Ensure this field has no more than 255 characters.'))
    .refine((t) => t.length <= 100, 'An insight has at most 100 tags.')
    .optional(),
  favorited: drfBoolean().optional(),
  saved: drfBoolean().optional(),
  deleted: drfBoolean().optional(),
  order: drfInteger({ min: -2147483648, max: 2147483647 }).nullable().optional(),
  /**
   * Legacy filters (PostHog's `filter_to_query` converts them): an insight sent with `filters` and no `query` runs the
   * query they convert to. With a `query`, the query wins and the filters are ignored. `{}` and null mean none.
   */
  filters: z.record(z.string(), z.unknown()).nullable().optional(),
  // PostHog's PrimaryKeyRelatedField(many=True, queryset=Dashboard.objects.all()): Quarry has no dashboards, so
  // only the empty list PostHog clients send is accepted; any id is DRF's does_not_exist
  dashboards: drfMissingRelatedList().optional(),
});
type InsightBody = z.output<typeof insightBody>;

/** Fields of a result as the insight carries them, from the query envelope. */
const RESULT_EXTRAS = ['hasMore', 'columns', 'types', 'hogql', 'resolved_date_range', 'timings'] as const;

/** PostHog's Insight record. */
export interface InsightView {
  id: number;
  short_id: string;
  name: string | null;
  derived_name: string | null;
  description: string | null;
  /** Null for an insight saved with neither a query nor filters (PostHog's `query` is `required=False, allow_null=True`). */
  query: Record<string, unknown> | null;
  /** The legacy filters of a filters-only insight, as saved; `{}` for an insight saved with a query (as PostHog). */
  filters: Record<string, unknown>;
  order: number | null;
  deleted: boolean;
  dashboards: number[];
  dashboard_tiles: unknown[];
  result?: unknown;
  last_refresh?: string | null;
  cache_target_age?: string | null;
  next_allowed_client_refresh?: string | null;
  is_cached?: boolean;
  /** The result's cache key (the same as the query operation's for the same node); `filters_hash` in PostHog. */
  cache_key?: string | null;
  query_status?: unknown;
  timezone?: string;
  hasMore?: unknown;
  columns?: unknown;
  types?: unknown;
  hogql?: unknown;
  resolved_date_range?: unknown;
  created_at: string;
  created_by: UserBasic | null;
  updated_at: string;
  last_modified_at: string;
  last_modified_by: UserBasic | null;
  tags: string[];
  favorited: boolean;
  saved: boolean;
  is_sample: boolean;
  effective_restriction_level: number;
  effective_privilege_level: number;
  user_access_level: string;
  alerts: unknown[];
  /** When the caller last viewed the insight (`POST …/insights/viewed/`), else null. */
  last_viewed_at: string | null;
  filters_hash: string | null;
  /** How a `search` matched: `exact` (a substring), `similar` (a fuzzy trigram match); only when searching. */
  search_match_type?: SearchMatchType;
}

/** The fields of PostHog's InsightBasicSerializer (`basic=true`): light objects, no result, no cache fields. */
const BASIC_FIELDS = [
  'id',
  'short_id',
  'name',
  'derived_name',
  'favorited',
  'filters',
  'query',
  'dashboards',
  'dashboard_tiles',
  'description',
  'last_refresh',
  'refreshing',
  'saved',
  'tags',
  'updated_at',
  'created_by',
  'created_at',
  'last_modified_at',
  'user_access_level',
] as const;

export type InsightBasicView = Pick<InsightView, Exclude<(typeof BASIC_FIELDS)[number], 'last_refresh' | 'refreshing'>> & {
  last_refresh: string | null;
  /** Legacy; Quarry computes no result in the background for a saved insight: always false. */
  refreshing: false;
  search_match_type?: SearchMatchType;
};

/**
 * `basic=true` over REST: PostHog's light insight object, from the view the service gives for `basic` (no result;
 * `last_refresh` as stored from the last result seen).
 */
export function basicView(full: InsightView): InsightBasicView {
  const all: Record<string, unknown> = { ...full, last_refresh: full.last_refresh ?? null, refreshing: false };
  const out: Record<string, unknown> = {};
  for (const k of BASIC_FIELDS) out[k] = all[k];
  if (full.search_match_type !== undefined) out.search_match_type = full.search_match_type;
  return out as InsightBasicView;
}

export interface ResultOptions {
  /** How the result is obtained; default `force_cache` (cached result or none, never computes), as PostHog. */
  refresh?: RefreshMode;
  /** The async query's id (async modes), for polling `GET …/query/<id>/`. */
  clientQueryId?: string;
  signal?: AbortSignal;
  /** Light objects without result fields (`basic=true`); REST trims them to PostHog's basic fields ({@link basicView}). */
  basic?: boolean;
  /**
   * PostHog's `filters_override` of retrieve (a DashboardFilter: dates replaced, properties ANDed, …), applied to the
   * insight's query as the query API applies it; default none.
   */
  filtersOverride?: unknown;
  /** PostHog's `variables_override` of retrieve (`{variableId: {value}}`) for SQL insights; default none. */
  variablesOverride?: unknown;
}

/** The list filters (REST query-string forms are accepted: `"true"`, JSON arrays as text). */
export interface InsightFilters {
  search?: unknown;
  saved?: unknown;
  favorited?: unknown;
  short_id?: unknown;
  created_by?: unknown;
  user?: unknown;
  kind?: unknown;
  insight?: unknown;
  tags?: unknown;
  order?: unknown;
  date_from?: unknown;
  date_to?: unknown;
  created_date_from?: unknown;
  created_date_to?: unknown;
  last_viewed_date_from?: unknown;
  last_viewed_date_to?: unknown;
  dashboards?: unknown;
  events?: unknown;
  feature_flag?: unknown;
}

export type { ActivityPage } from './activity';

/** Sort keys of `order`; `viewed` holds the caller's last view of each insight. */
const ORDER_FIELDS: Record<string, (i: Insight, viewed: Map<number, Date>) => string | number | null> = {
  // the caller's own last view; never viewed is null (PostHog orders nulls last)
  last_viewed_at: (i, viewed) => viewed.get(i.id)?.getTime() ?? null,
  id: (i) => i.id,
  short_id: (i) => i.short_id,
  name: (i) => i.name?.toLowerCase() ?? null,
  derived_name: (i) => i.derived_name?.toLowerCase() ?? null,
  order: (i) => i.order,
  favorited: (i) => (i.favorited ? 1 : 0),
  created_at: (i) => i.created_at.getTime(),
  updated_at: (i) => i.updated_at.getTime(),
  last_modified_at: (i) => i.last_modified_at.getTime(),
  last_refresh: (i) => i.last_refresh?.getTime() ?? null,
  created_by: (i) => i.created_by_id,
};

/**
 * `refresh` of list/retrieve: a mode name, or the legacy booleans. PostHog's `_request_has_key_set` takes any casing of
 * "true", "1" or "yes" as true (force_blocking) — so `True`, as Python's clients and Django's test client send a
 * boolean; Quarry takes "false", "0" and "no" (any casing) as the default, force_cache, and refuses other text.
 */
export function parseRefresh(v: unknown): RefreshMode {
  const lower = typeof v === 'string' ? v.toLowerCase() : v;
  if (v === undefined || v === null || v === false || lower === '' || lower === 'false' || lower === '0' || lower === 'no') return 'force_cache';
  if (v === true || lower === 'true' || lower === '1' || lower === 'yes') return 'force_blocking';
  if (typeof v === 'string' && (REFRESH_MODES as readonly string[]).includes(v)) return v as RefreshMode;
  throw validationError(`refresh must be one of: ${REFRESH_MODES.join(', ')} (or true/false).`, 'refresh');
}

/** A list date bound as PostHog's relative_date_parse reads it (`-7d`, `-1mStart`, `2024-01-01`, ISO), project tz. */
function parseListDate(text: string, tz: string, attr: string): Date {
  const parsed = parseDateString(text, instantToLocal(new Date(), tz), tz, attr);
  return localToInstant(parsed.value, tz);
}

/** The events of an insight's series (EventsNode series of its runnable query; legacy filters are converted to one). */
function seriesEvents(i: Insight): string[] {
  if (!i.query) return [];
  const series = (executableNode(i.query) as { series?: unknown }).series;
  if (!Array.isArray(series)) return [];
  return series.flatMap((n) => {
    const node = n as { kind?: unknown; event?: unknown } | null;
    return node?.kind === 'EventsNode' && typeof node.event === 'string' ? [node.event] : [];
  });
}

/** A list parameter: a JSON array as text (PostHog), a comma-free single value, or an array. */
function parseList(v: unknown, attr: string): unknown[] | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (Array.isArray(v)) return v;
  if (typeof v === 'string' && v.trim().startsWith('[')) {
    try {
      const parsed = JSON.parse(v) as unknown;
      if (Array.isArray(parsed)) return parsed;
    } catch {
      // reported below
    }
    throw validationError('Must be a JSON array.', attr);
  }
  return [v];
}

/**
 * Saved insights: a named query node of a project, run by the query service (same executor and cache as the
 * query operation), with soft delete and an activity log. Scopes: `insight:read` for reading (results included),
 * `insight:write` for changes, `activity_log:read` for the activity log.
 */
export class InsightService {
  constructor(
    private readonly store: Store,
    private readonly projects: ProjectService,
    private readonly queries: QueryService,
  ) {
    this.views = new InsightViews(store);
  }

  private readonly views: InsightViews;

  private get insights() {
    return this.store.db.getRepository(Insight);
  }

  /** `GET …/insights/`: live insights of the project, filtered and ordered, with results per `refresh`. */
  async list(principal: Principal, projectId: number, filters: InsightFilters, page: Page, opts: ResultOptions = {}): Promise<Paged<InsightView>> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'insight:read' });
    const refresh = opts.refresh ?? 'force_cache';
    const viewed = await this.views.lastViewed(project.id, userOf(principal));
    const match = this.matcher(principal, filters, project.timezone, viewed);
    const order = this.ordering(filters, viewed);
    const all = (await this.insights.find({ where: { project_id: project.id, deleted: false } })).filter(match.test);
    all.sort((a, b) => match.rank(a) - match.rank(b) || order(a, b));
    const slice = all.slice(page.offset, page.offset + page.limit);
    const users = await this.users(slice.flatMap((i) => [i.created_by_id, i.last_modified_by_id]));
    const results: InsightView[] = [];
    for (const i of slice) {
      const view = this.view(i, users, viewed.get(i.id));
      if (match.searching) view.search_match_type = match.matchType(i);
      if (opts.basic) view.last_refresh = drfTime(i.last_refresh);
      else {
        try {
          Object.assign(view, await this.result(principal, project, i, { ...opts, refresh }));
        } catch (e) {
          // one broken insight must not fail the whole list: it shows the error instead of a result
          if (!isUserError(e)) throw e;
          Object.assign(view, emptyResult(project), {
            query_status: { complete: true, error: true, error_message: e.message, error_code: e.code },
          });
        }
      }
      results.push(view);
    }
    return { count: all.length, results };
  }

  /** `GET …/insights/<id>/`: `id` is the numeric id or the short_id (a numeric string is tried as id first). */
  async get(principal: Principal, projectId: number, ref: string | number, opts: ResultOptions = {}): Promise<InsightView> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'insight:read' });
    const insight = await this.find(project.id, ref, false);
    return this.fullView(principal, project, insight, opts);
  }

  /**
   * `POST …/insights/viewed/` `{insight_ids}` (PostHog's bulk viewed action, scope `insight:read`): the caller viewed
   * these insights now. Ids that are not live insights of the project are ignored.
   */
  async viewed(principal: Principal, projectId: number, input: unknown): Promise<void> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'insight:read' });
    const ids = InsightViews.parseViewed(input);
    const userId = userOf(principal);
    if (userId !== null) await this.views.record(project.id, userId, ids);
  }

  /** `POST …/insights/<id>/viewed/` (PostHog's older per-insight action): 404 for an insight that is not live. */
  async viewedOne(principal: Principal, projectId: number, ref: string): Promise<void> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'insight:read' });
    const insight = await this.find(project.id, ref, false);
    const userId = userOf(principal);
    if (userId !== null) await this.views.record(project.id, userId, [insight.id]);
  }

  /** `GET …/insights/my_last_viewed/`: the caller's last 5 viewed live insights, most recent view first. */
  async myLastViewed(principal: Principal, projectId: number): Promise<InsightView[]> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'insight:read' });
    const recent = await this.views.recent(project.id, userOf(principal));
    const users = await this.users(recent.flatMap(({ insight }) => [insight.created_by_id, insight.last_modified_by_id]));
    return recent.map(({ insight, at }) => Object.assign(this.view(insight, users, at), { last_refresh: drfTime(insight.last_refresh) }));
  }

  /**
   * `GET …/insights/trending/?days=7&limit=10` (scope `insight:read`): the live insights viewed most in the last `days`
   * days (at most `limit`, ≤ 100), each as a basic insight with `view_count` (users who viewed it in the window),
   * `viewers` (up to 3, latest first) and `last_modified_by`.
   */
  async trending(principal: Principal, projectId: number, query: { days?: unknown; limit?: unknown }): Promise<TrendingInsight[]> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'insight:read' });
    const p = parseInput(trendingParams, { days: query.days, limit: query.limit });
    const since = new Date(Date.now() - p.days * 86_400_000);
    const rows = await this.views.trending(project.id, since, Math.min(p.limit, TRENDING_MAX));
    const users = await this.users(rows.flatMap((r) => [r.insight.created_by_id, r.insight.last_modified_by_id, ...r.viewerIds]));
    const viewed = await this.views.lastViewed(project.id, userOf(principal), rows.map((r) => r.insight.id));
    return rows.map(({ insight, viewCount, viewerIds }) => {
      const view = this.view(insight, users, viewed.get(insight.id));
      return {
        view: Object.assign(view, { last_refresh: drfTime(insight.last_refresh) }),
        view_count: viewCount,
        viewers: viewerIds.map((id) => users.get(id)).filter((u): u is UserBasic => u !== undefined),
      };
    });
  }

  /** `POST …/insights/` (201). */
  async create(principal: Principal, projectId: number, input: unknown): Promise<InsightView> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'insight:write' });
    const body = parseBody(input);
    const { query, filters, kinds } = this.querySource(body, null, true)!;
    const userId = userOf(principal);
    const now = new Date();
    const saved = await this.store.db.transaction(async (m) => {
      const repo = m.getRepository(Insight);
      const insight = repo.create({
        project_id: project.id,
        short_id: await this.newShortId(project.id),
        name: body.name ?? null,
        derived_name: body.derived_name ?? (query ? deriveName(query) : null),
        description: body.description ?? null,
        query,
        filters,
        query_kind: kinds.queryKind,
        source_kind: kinds.sourceKind,
        tags: normalizeTags(body.tags ?? []),
        favorited: body.favorited ?? false,
        saved: body.saved ?? true,
        deleted: body.deleted ?? false,
        order: body.order ?? null,
        created_at: now,
        created_by_id: userId,
        updated_at: now,
        last_modified_at: now,
        last_modified_by_id: userId,
        cache_key: null,
        last_refresh: null,
        cache_target_age: null,
        next_allowed_client_refresh: null,
      });
      const row = await repo.save(insight);
      // PostHog's log_insight_activity on create passes no changes: the entry's `changes` is null
      await this.record(m.getRepository(ActivityLog), row, 'created', userId, null, now);
      return row;
    });
    return this.fullView(principal, project, saved, {});
  }

  /**
   * `PATCH` (partial) and `PUT` (`query` required, absent fields kept, as DRF with no other required field) of
   * `…/insights/<id>/`. `{"deleted": true}` soft-deletes; a deleted insight is reachable only by a body with
   * `"deleted": false`, which restores it (other fields in that body apply too).
   */
  async update(principal: Principal, projectId: number, ref: string | number, input: unknown, opts: { partial: boolean }): Promise<InsightView> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'insight:write' });
    const body = parseBody(input);
    const restoring = body.deleted === false;
    const insight = await this.find(project.id, ref, restoring);
    const source = this.querySource(body, insight, !opts.partial);
    const saved = await this.applyChanges(principal, insight, body, source);
    return this.fullView(principal, project, saved, {});
  }

  /**
   * What a body makes the insight run: its `query` (which wins, and clears saved filters), or its legacy `filters`
   * converted (PostHog's `query_from_filters`) when it has no query and the insight is new, filters-only, without a
   * query (test_insight.py test_created_updated_and_last_modified PATCHes filters onto an empty insight), or given
   * `"query": null` or a full PUT; else undefined (unchanged). Filters sent to an insight that has a query are ignored:
   * the query wins, as in PostHog (which keeps them, hidden, never to be used). `full`: create or PUT.
   */
  private querySource(body: InsightBody, insight: Insight | null, full: boolean): QuerySource | undefined {
    const validate = (n: { kind: string }) => this.queries.validateStoredNode(n);
    const queryGiven = body.query !== undefined && body.query !== null;
    if (!queryGiven && hasLegacyFilters(body.filters) && (full || insight?.filters != null || insight?.query == null || body.query === null)) {
      const filters = cleanSavedFilters(body.filters);
      const query = legacyInsightQuery(filters, validate);
      return { query, filters, kinds: validateInsightQuery(query, validate) };
    }
    if (queryGiven) {
      const kinds = asQueryParseError(() => validateInsightQuery(body.query, validate));
      return { query: body.query as Record<string, unknown>, filters: null, kinds };
    }
    // `"query": null`, or neither on create: an insight without a query (PostHog's query is `required=False,
    // allow_null=True`), whose result is null until it gets one; a PUT without either keeps the query, as DRF does
    if (body.query === null || (full && !insight)) return { query: null, filters: null, kinds: { queryKind: '', sourceKind: null } };
    return undefined;
  }

  /**
   * `POST …/insights/cancel/` with `{"client_query_id": "…"}`: stops that query of the project if it is still running
   * (an insight's async refresh, say). As PostHog, it answers the same whether or not anything was running.
   */
  async cancel(principal: Principal, projectId: number, input: unknown): Promise<void> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'insight:read' });
    const id = input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>).client_query_id : undefined;
    if (typeof id !== 'string' || id === '') throw validationError('Field is required.', 'client_query_id');
    await this.queries.async.cancel(project.id, id);
  }

  /**
   * Legacy `GET|POST …/insights/trend/` and `…/insights/funnel/` (scope `insight:read`): the legacy filter of the
   * request (query string, JSON body over it) converted as a saved insight's filters are, run by the query service
   * (same cache; `refresh` recalculates), answered in PostHog's legacy envelope.
   */
  async legacyResult(
    principal: Principal,
    projectId: number,
    endpoint: LegacyEndpoint,
    query: Record<string, unknown>,
    body: unknown,
    signal?: AbortSignal,
  ): Promise<LegacyAnswer> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'insight:read' });
    const started = performance.now();
    const filter = legacyRequestFilter(endpoint, query, body);
    let source: Record<string, unknown> & { kind: string };
    try {
      source = filterToQuery(filter) as Record<string, unknown> & { kind: string };
      if (Array.isArray(source.series) && source.series.length === 0) {
        // no series: nothing to count. PostHog answers an empty result (its legacy funnel too: `if len(entities) == 0:
        // return []`); Quarry's query schemas need a series.
        const body = { result: [], timezone: project.timezone, is_cached: false, last_refresh: new Date().toISOString(), timings: [] };
        return endpoint === 'trend' ? { body, nextOffset: null } : { body };
      }
      validateConverted({ kind: 'InsightVizNode', source }, (n) => this.queries.validateNode(n));
      source = await withoutMissingCohorts(source, project.id, this.store.db.getRepository(Cohort));
    } catch (e) {
      // the request's parameters are the filter: name them without the `filters` prefix of a saved insight's errors
      if (!(e instanceof UserError) || !e.attr?.startsWith('filters')) throw e;
      const attr = e.attr === 'filters' ? null : e.attr.slice('filters__'.length);
      throw new UserError(e.status, e.type, e.code, e.message.replace(/^Invalid filters: /, ''), { attr, extra: e.extra });
    }
    const calcStart = performance.now();
    const out = await this.queries.execute(principal, project, source, { refresh: legacyRefresh(filter), signal, name: `legacy:${endpoint}` });
    const done = performance.now();
    const b = out.body;
    const raw = b.results ?? null;
    const result = endpoint === 'funnel' ? protectOldClients(body, raw) : raw;
    const answer: LegacyAnswer = {
      body: {
        result,
        timezone: (b.timezone as string | undefined) ?? project.timezone,
        is_cached: (b.is_cached as boolean | undefined) ?? false,
        last_refresh: (b.last_refresh as string | undefined) ?? null,
        // PostHog's HogQLTimings list: seconds, the calculation and the whole request
        timings: [
          { k: './calculate', t: (done - calcStart) / 1000 },
          { k: '.', t: (done - started) / 1000 },
        ],
      },
      resolvedDateRange: b.resolved_date_range,
    };
    if (endpoint === 'trend') {
      const limit = ((source.breakdownFilter as { breakdown_limit?: number } | undefined)?.breakdown_limit) ?? LEGACY_BREAKDOWN_LIMIT;
      answer.nextOffset = Array.isArray(result) && result.length >= limit ? legacyOffset(filter) + limit : null;
    }
    return answer;
  }

  /** `DELETE …/insights/<id>/`: soft delete (the insight can be restored with PATCH `{"deleted": false}`). */
  async delete(principal: Principal, projectId: number, ref: string | number): Promise<void> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'insight:write' });
    const insight = await this.find(project.id, ref, false);
    await this.applyChanges(principal, insight, { deleted: true }, undefined);
  }

  /**
   * `GET …/insights/<id>/activity/` (one live insight) or `GET …/insights/activity/` (`ref` null: the whole
   * project, deleted insights included). Newest first; `page` is 1-based, `limit` defaults to 10, as PostHog.
   */
  async activity(principal: Principal, projectId: number, ref: string | number | null, paging: { limit?: unknown; page?: unknown }): Promise<ActivityPage> {
    // PostHog's activity actions declare required_scopes=["activity_log:read"] (reference §2.1, §3.2)
    const project = await this.projects.projectFor(principal, projectId, { scope: 'activity_log:read' });
    const item_id = ref !== null ? String((await this.find(project.id, ref, false)).id) : undefined;
    return activityPage(this.store, { project_id: project.id, scope: 'Insight', ...(item_id !== undefined ? { item_id } : {}) }, paging);
  }

  private async applyChanges(principal: Principal, insight: Insight, body: InsightBody, source: QuerySource | undefined): Promise<Insight> {
    const userId = userOf(principal);
    const before = tracked(insight);
    const wasDeleted = insight.deleted;
    const now = new Date();
    if (body.name !== undefined) insight.name = body.name;
    if (body.derived_name !== undefined) insight.derived_name = body.derived_name;
    if (body.description !== undefined) insight.description = body.description;
    if (source !== undefined) {
      // an auto-generated title follows the query; one the client chose stays
      if (body.derived_name === undefined && insight.derived_name === (insight.query ? deriveName(insight.query) : null)) {
        insight.derived_name = source.query ? deriveName(source.query) : null;
      }
      insight.query = source.query;
      insight.filters = source.filters;
      insight.query_kind = source.kinds.queryKind;
      insight.source_kind = source.kinds.sourceKind;
    }
    if (body.tags !== undefined) insight.tags = normalizeTags(body.tags);
    if (body.favorited !== undefined) insight.favorited = body.favorited;
    if (body.order !== undefined) insight.order = body.order;
    if (body.deleted !== undefined) insight.deleted = body.deleted;
    const deleting = !wasDeleted && insight.deleted;
    const restoring = wasDeleted && !insight.deleted;
    // `saved` is deprecated in PostHog: any edit (not a delete or restore) saves the insight
    if (body.saved !== undefined) insight.saved = body.saved;
    else if (!deleting && !restoring) insight.saved = true;
    const changes = insightChanges(before, tracked(insight));
    if (changes.length === 0) return insight;
    if (changes.some((c) => c.field !== null && MATERIAL_FIELDS.has(c.field))) {
      insight.last_modified_at = now;
      insight.last_modified_by_id = userId;
    }
    insight.updated_at = now;
    const activity = deleting ? 'deleted' : restoring ? 'restored' : 'updated';
    return this.store.db.transaction(async (m) => {
      const row = await m.getRepository(Insight).save(insight);
      await this.record(m.getRepository(ActivityLog), row, activity, userId, changes, now);
      return row;
    });
  }

  private async record(
    repo: Repository<ActivityLog>,
    insight: Insight,
    activity: string,
    userId: number | null,
    changes: ActivityChange[] | null,
    at: Date,
  ): Promise<void> {
    await repo.save(
      repo.create({
        project_id: insight.project_id,
        scope: 'Insight',
        item_id: String(insight.id),
        activity,
        user_id: userId,
        detail: { id: String(insight.id), name: insight.name ?? insight.derived_name, short_id: insight.short_id, type: null, changes, trigger: null },
        created_at: at,
      }),
    );
  }

  /** A live (or, when `includeDeleted`, any) insight of the project by id or short_id; else 404. */
  private async find(projectId: number, ref: string | number, includeDeleted: boolean): Promise<Insight> {
    const s = String(ref);
    let found: Insight | null = null;
    if (/^\d{1,15}$/.test(s)) found = await this.insights.findOneBy({ project_id: projectId, id: Number(s) });
    if (!found || (found.deleted && !includeDeleted)) {
      const byShort = await this.insights.findOneBy({ project_id: projectId, short_id: s });
      if (byShort) found = byShort;
    }
    if (!found || (found.deleted && !includeDeleted)) throw notFound();
    return found;
  }

  private async fullView(principal: Principal, project: Project, insight: Insight, opts: ResultOptions): Promise<InsightView> {
    const users = await this.users([insight.created_by_id, insight.last_modified_by_id]);
    const viewed = await this.views.lastViewed(project.id, userOf(principal), [insight.id]);
    const view = this.view(insight, users, viewed.get(insight.id));
    if (opts.basic) return Object.assign(view, { last_refresh: drfTime(insight.last_refresh) });
    return Object.assign(view, await this.result(principal, project, insight, opts));
  }

  /**
   * The insight's result through the query service (same executor and cache as `POST …/query/`). The insight's
   * own cache fields follow the last result seen.
   */
  private async result(principal: Principal, project: Project, insight: Insight, opts: ResultOptions): Promise<Partial<InsightView>> {
    if (!insight.query) return { ...emptyResult(project), filters_hash: insight.cache_key };
    const overridden = opts.filtersOverride != null || opts.variablesOverride != null;
    const node = executableNode(insight.query) as Record<string, unknown> & { kind: string };
    if (isNonRunnable(node.kind)) {
      // PostHog's process_query_model: a node no runner answers is a cache miss when only the cache may answer
      if ((opts.refresh ?? 'force_cache') === 'force_cache') return { ...emptyResult(project), filters_hash: insight.cache_key };
      throw validationError(`Unsupported query kind: ${node.kind}`);
    }
    const runnable = overridden ? applyQueryOverrides(node, opts.filtersOverride, opts.variablesOverride) : node;
    const out = await this.queries.execute(principal, project, runnable, {
      refresh: opts.refresh ?? 'force_cache',
      clientQueryId: opts.clientQueryId,
      signal: opts.signal,
      insightId: insight.id,
      name: `insight:${insight.short_id}`,
    });
    const b = out.body;
    const fields: Partial<InsightView> = {
      ...emptyResult(project),
      result: b.results ?? null,
      last_refresh: (b.last_refresh as string | undefined) ?? null,
      cache_target_age: (b.cache_target_age as string | undefined) ?? null,
      next_allowed_client_refresh: (b.next_allowed_client_refresh as string | undefined) ?? null,
      is_cached: (b.is_cached as boolean | undefined) ?? false,
      query_status: b.query_status ?? null,
      timezone: (b.timezone as string | undefined) ?? project.timezone,
      cache_key: (b.cache_key as string | undefined) ?? null,
      filters_hash: (b.cache_key as string | undefined) ?? insight.cache_key,
    };
    for (const k of RESULT_EXTRAS) if (b[k] !== undefined) (fields as Record<string, unknown>)[k] = b[k];
    // PostHog's serializer shows the query with the overridden variables' values (apply_dashboard_variables_to_dict)
    if (opts.variablesOverride != null) fields.query = queryWithVariablesOverride(insight.query, opts.variablesOverride);
    // the insight's own cache fields describe its saved query: an answer under overrides (a dashboard's filters,
    // variables) is a different query, shown but not remembered as the insight's
    if (!overridden && fields.last_refresh && fields.last_refresh !== insight.last_refresh?.toISOString()) {
      insight.cache_key = (b.cache_key as string | undefined) ?? null;
      insight.last_refresh = new Date(fields.last_refresh);
      insight.cache_target_age = fields.cache_target_age ? new Date(fields.cache_target_age) : null;
      insight.next_allowed_client_refresh = fields.next_allowed_client_refresh ? new Date(fields.next_allowed_client_refresh) : null;
      await this.insights.update(
        { id: insight.id },
        {
          cache_key: insight.cache_key,
          last_refresh: insight.last_refresh,
          cache_target_age: insight.cache_target_age,
          next_allowed_client_refresh: insight.next_allowed_client_refresh,
        },
      );
    }
    // DRF renders these datetimes as the record's own: `Z`, microseconds only when there are any
    for (const k of ['last_refresh', 'cache_target_age', 'next_allowed_client_refresh'] as const) {
      if (typeof fields[k] === 'string') fields[k] = drfDateTime(fields[k]);
    }
    return fields;
  }

  private view(i: Insight, users: Map<number, UserBasic>, lastViewed?: Date): InsightView {
    return {
      id: i.id,
      short_id: i.short_id,
      name: i.name,
      derived_name: i.derived_name,
      description: i.description,
      query: i.query,
      filters: i.filters ?? {},
      order: i.order,
      deleted: i.deleted,
      dashboards: [],
      dashboard_tiles: [],
      created_at: drfTime(i.created_at),
      created_by: i.created_by_id !== null ? (users.get(i.created_by_id) ?? null) : null,
      updated_at: drfTime(i.updated_at),
      last_modified_at: drfTime(i.last_modified_at),
      last_modified_by: i.last_modified_by_id !== null ? (users.get(i.last_modified_by_id) ?? null) : null,
      tags: i.tags,
      favorited: i.favorited,
      saved: i.saved,
      is_sample: false,
      effective_restriction_level: 21,
      effective_privilege_level: 37,
      user_access_level: 'editor',
      alerts: [],
      last_viewed_at: drfTime(lastViewed),
      filters_hash: i.cache_key,
    };
  }

  private users(ids: (number | null)[]): Promise<Map<number, UserBasic>> {
    return usersById(this.store, ids);
  }

  private async newShortId(projectId: number): Promise<string> {
    for (;;) {
      let id = '';
      for (let k = 0; k < 8; k++) id += SHORT_ID_ALPHABET[randomInt(SHORT_ID_ALPHABET.length)];
      if (!(await this.insights.existsBy({ project_id: projectId, short_id: id }))) return id;
    }
  }

  /** The list filters as a predicate, plus a relevance rank (exact name matches first when searching). */
  private matcher(
    principal: Principal,
    f: InsightFilters,
    tz: string,
    viewed: Map<number, Date>,
  ): { test: (i: Insight) => boolean; rank: (i: Insight) => number; searching: boolean; matchType: (i: Insight) => SearchMatchType } {
    const tests: ((i: Insight) => boolean)[] = [];
    let rank = (_: Insight) => 0;
    let matchType = (_: Insight): SearchMatchType => 'exact';
    const search = f.search === undefined || f.search === null ? '' : String(f.search).trim().toLowerCase();
    if (search.length > MAX_SEARCH_LENGTH) throw validationError(`Ensure this field has no more than ${MAX_SEARCH_LENGTH} characters.`, 'search');
    if (search) {
      // PostHog (reference §2.3): a case-insensitive substring of the name, derived name, description or a tag
      // ("exact"), else a fuzzy trigram match of the name or derived name ("similar"); exact matches first
      const exact = (i: Insight) =>
        [i.name, i.derived_name, i.description, ...i.tags].some((t) => typeof t === 'string' && t.toLowerCase().includes(search));
      const similarity = new Map<number, number>();
      const similar = (i: Insight) => {
        let sim = similarity.get(i.id);
        if (sim === undefined) {
          sim = Math.max(titleSimilarity(search, i.name), titleSimilarity(search, i.derived_name));
          similarity.set(i.id, sim);
        }
        return sim;
      };
      tests.push((i) => exact(i) || similar(i) >= SIMILARITY_THRESHOLD);
      matchType = (i) => (exact(i) ? 'exact' : 'similar');
      rank = (i) => {
        if (!exact(i)) return 4 + (1 - similar(i));
        const n = (i.name ?? i.derived_name ?? '').toLowerCase();
        return n === search ? 0 : n.startsWith(search) ? 1 : n.includes(search) ? 2 : 3;
      };
    }
    const saved = strToBool(f.saved);
    if (saved !== undefined) tests.push((i) => i.saved === saved);
    // PostHog (posthog-api.md §2.3, InsightViewSet._filter_request): the mere presence of `favorited` in the query
    // string selects favorites, whatever its value (`?favorited=false` too). A typed boolean (GraphQL) is taken as given.
    if (f.favorited !== undefined && f.favorited !== null) {
      const fav = typeof f.favorited === 'boolean' ? f.favorited : true;
      tests.push((i) => i.favorited === fav);
    }
    if (f.short_id !== undefined && f.short_id !== null && f.short_id !== '') tests.push((i) => i.short_id === String(f.short_id));
    const createdBy = parseList(f.created_by, 'created_by');
    if (createdBy) {
      const ids = createdBy.map((x) => {
        const n = typeof x === 'number' ? x : Number(x);
        if (!Number.isSafeInteger(n)) throw validationError('created_by must be a user id or a JSON array of user ids.', 'created_by');
        return n;
      });
      tests.push((i) => i.created_by_id !== null && ids.includes(i.created_by_id));
    }
    // `user`: presence (any value) → created by the caller, as PostHog's filter (posthog-api.md §2.3)
    if (f.user !== undefined && f.user !== null && f.user !== false) {
      const me = userOf(principal);
      tests.push((i) => i.created_by_id === me);
    }
    const kinds = parseList(f.kind, 'kind')?.map(String);
    if (kinds) tests.push((i) => kinds.includes(i.query_kind) || (i.source_kind !== null && kinds.includes(i.source_kind)));
    if (f.insight !== undefined && f.insight !== null && f.insight !== '') {
      const type = String(f.insight).toUpperCase();
      const selected = INSIGHT_TYPE_KINDS[type];
      if (!selected) throw validationError(`insight must be one of: ${Object.keys(INSIGHT_TYPE_KINDS).join(', ')}.`, 'insight');
      tests.push((i) => (type === 'JSON' ? isJsonInsight(i) : selected.includes(i.source_kind ?? i.query_kind)));
    }
    const tags = parseList(f.tags, 'tags')?.map(String);
    if (tags) tests.push((i) => i.tags.some((t) => tags.includes(t)));
    // PostHog's date filters: strictly after `*_from` and before `*_to`, relative (-7d) or absolute, in the project's
    // timezone (relative_date_parse); last viewed is the caller's own last view (never viewed matches no bound).
    const bounds: [keyof InsightFilters, (i: Insight) => Date | null, 1 | -1][] = [
      ['date_from', (i) => i.last_modified_at, 1],
      ['date_to', (i) => i.last_modified_at, -1],
      ['created_date_from', (i) => i.created_at, 1],
      ['created_date_to', (i) => i.created_at, -1],
      ['last_viewed_date_from', (i) => viewed.get(i.id) ?? null, 1],
      ['last_viewed_date_to', (i) => viewed.get(i.id) ?? null, -1],
    ];
    for (const [param, field, dir] of bounds) {
      const raw = f[param];
      if (raw === undefined || raw === null || raw === '') continue;
      const at = parseListDate(String(raw), tz, param).getTime();
      tests.push((i) => {
        const v = field(i)?.getTime();
        return v !== undefined && (dir === 1 ? v > at : v < at);
      });
    }
    // `events` (a JSON array of event names, reference §2.3): insights with a series on any of them
    const events = parseList(f.events, 'events')?.map(String);
    if (events && events.length > 0) tests.push((i) => seriesEvents(i).some((e) => events.includes(e)));
    // insights on every listed dashboard: Quarry has no dashboards, so a non-empty list matches nothing
    const dashboards = parseList(f.dashboards, 'dashboards');
    if (dashboards && dashboards.length > 0) tests.push(() => false);
    // `feature_flag` (PostHog's flag page): insights broken down by the flag, or with a property filter naming it
    if (f.feature_flag !== undefined && f.feature_flag !== null && f.feature_flag !== '') {
      const flag = String(f.feature_flag);
      tests.push((i) => usesFeatureFlag(i, flag));
    }
    return { test: (i) => tests.every((t) => t(i)), rank, searching: search !== '', matchType };
  }

  /** `order`: a field, `-` for descending; nulls last. Default: `order`, then most recently modified. */
  private ordering(f: InsightFilters, viewed: Map<number, Date>): (a: Insight, b: Insight) => number {
    const keys: [string, 1 | -1][] = [];
    if (f.order !== undefined && f.order !== null && f.order !== '') {
      for (const part of String(f.order).split(',')) {
        const desc = part.startsWith('-');
        const field = desc ? part.slice(1) : part;
        if (!ORDER_FIELDS[field]) throw validationError(`Cannot order by "${field}". Fields: ${Object.keys(ORDER_FIELDS).join(', ')}.`, 'order');
        keys.push([field, desc ? -1 : 1]);
      }
    } else keys.push(['order', 1], ['last_modified_at', -1]);
    keys.push(['id', -1]);
    return (a, b) => {
      for (const [field, dir] of keys) {
        const va = ORDER_FIELDS[field](a, viewed);
        const vb = ORDER_FIELDS[field](b, viewed);
        if (va === vb) continue;
        if (va === null) return 1;
        if (vb === null) return -1;
        return (va < vb ? -1 : 1) * dir;
      }
      return 0;
    };
  }
}

export type SearchMatchType = 'exact' | 'similar';

/** pg_trgm's default `similarity_threshold`: a fuzzy search match needs at least this trigram similarity. */
const SIMILARITY_THRESHOLD = 0.3;

/**
 * pg_trgm's trigrams of a text: lower-cased, split into words of letters and digits, each padded with two spaces in
 * front and one behind, every run of three characters, as a set.
 */
function trigrams(text: string): Set<string> {
  const out = new Set<string>();
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const padded = `  ${word} `;
    for (let k = 0; k + 3 <= padded.length; k++) out.add(padded.slice(k, k + 3));
  }
  return out;
}

/** pg_trgm's `similarity`: shared trigrams over all trigrams of both texts (0 to 1). */
function trigramSimilarity(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const t of a) if (b.has(t)) shared++;
  return shared / (a.size + b.size - shared);
}

/**
 * How alike a search is to a title: the best trigram similarity with the whole title or with any run of as many of its
 * words as the search has (so one misspelt word of a long title still matches, as pg_trgm's word similarity).
 */
function titleSimilarity(search: string, title: string | null): number {
  if (!title) return 0;
  const s = trigrams(search);
  const words = title.match(/[\p{L}\p{N}]+/gu) ?? [];
  const n = Math.max(1, (search.match(/[\p{L}\p{N}]+/gu) ?? []).length);
  let best = trigramSimilarity(s, trigrams(title));
  for (let k = 0; k + n <= words.length; k++) best = Math.max(best, trigramSimilarity(s, trigrams(words.slice(k, k + n).join(' '))));
  return best;
}

/** The kinds of PostHog's insight types and SQL: an insight of none of them (a table of events, …) is a "JSON" one. */
const TYPED_KINDS = new Set(Object.values(INSIGHT_TYPE_KINDS).flat());

/** `insight=JSON`: an insight with a query that is neither of an insight type (TRENDS, …) nor SQL. */
const isJsonInsight = (i: Insight): boolean => i.query !== null && !TYPED_KINDS.has(i.source_kind ?? i.query_kind);

/**
 * `feature_flag=<key>` (PostHog's filter: the breakdown contains `$feature/<key>`, or the properties mention the key):
 * read from the saved legacy filters and from the query's source (breakdownFilter, properties), case-insensitively.
 */
function usesFeatureFlag(i: Insight, flag: string): boolean {
  const key = flag.toLowerCase();
  const mentions = (v: unknown, needle: string) => v !== undefined && v !== null && JSON.stringify(v).toLowerCase().includes(needle);
  const source = i.query ? (executableNode(i.query) as Record<string, unknown>) : {};
  const breakdown = source.breakdownFilter as { breakdown?: unknown; breakdowns?: unknown } | undefined;
  const filters = i.filters ?? {};
  return (
    mentions(filters.breakdown, `$feature/${key}`) ||
    mentions(breakdown?.breakdown, `$feature/${key}`) ||
    mentions(breakdown?.breakdowns, `$feature/${key}`) ||
    mentions(filters.properties, key) ||
    mentions(source.properties, key)
  );
}

/** Fields whose change bumps `last_modified_at` (PostHog: name, description, filters; Quarry's query is its filters). */
const MATERIAL_FIELDS = new Set<string>(['name', 'description', 'query', 'filters']);

/** The query an insight runs, the legacy filters it came from (null: a query insight), and its kinds. */
interface QuerySource {
  query: Record<string, unknown> | null;
  filters: Record<string, unknown> | null;
  kinds: InsightQueryKinds;
}

/** PostHog's trending caps `limit` at 100. */
const TRENDING_MAX = 100;

const trendingParams = z.object({
  days: z.coerce.number().int().min(1).max(3650).default(7),
  limit: z.coerce.number().int().min(1).default(10),
});

/** A trending insight: its view (REST trims it to the basic fields) and how it was viewed. */
export interface TrendingInsight {
  view: InsightView;
  view_count: number;
  viewers: UserBasic[];
}

/**
 * An insight `query` that fails the query schema is a 400 `parse_error` (posthog-api.md §2.1, POST /insights/: "A
 * `query` that fails schema validation → 400 `parse_error`"). The detail and `attr` (the failing field, e.g.
 * `query__source__interval`) are kept so the caller can act on it. A missing or null query stays a field error
 * (`required` / `null`), as DRF reports a required field. The query API keeps its own codes (only an unknown kind is
 * a parse_error there, as PostHog's QueryRequest validation).
 */
function asQueryParseError<T>(validate: () => T): T {
  try {
    return validate();
  } catch (e) {
    if (!(e instanceof UserError) || e.status !== 400 || !e.attr?.startsWith('query')) throw e;
    throw new UserError(400, 'invalid_request', 'parse_error', e.message, { attr: e.attr, extra: e.extra, span: e.span });
  }
}

function parseBody(input: unknown): InsightBody {
  if (input === undefined || input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw parseError('The request body must be a JSON object.');
  }
  return parseInput(insightBody, input);
}

const userOf = (p: Principal): number | null => (p.kind === 'personal' ? p.userId : null);

/** Trimmed, without duplicates, in the order given. */
const normalizeTags = (tags: string[]): string[] => [...new Set(tags.map((t) => t.trim()))];

type Tracked = Record<TrackedField, unknown> & { filters: Record<string, unknown> | null };

/** The logged changes between two states: the tracked fields, then the legacy filters (null: none). */
function insightChanges(before: Tracked, after: Tracked): ActivityChange[] {
  const changes = diffFields('Insight', before, after);
  const b = before.filters ?? null;
  const a = after.filters ?? null;
  if (!isDeepStrictEqual(b, a)) changes.push({ type: 'Insight', action: 'changed', field: 'filters', before: b, after: a });
  return changes;
}

const tracked = (i: Insight): Tracked => ({
  filters: i.filters ?? null,
  name: i.name,
  derived_name: i.derived_name,
  description: i.description,
  query: i.query,
  tags: i.tags,
  favorited: i.favorited,
  saved: i.saved,
  deleted: i.deleted,
  order: i.order,
});

/**
 * The result fields of an insight with no result. PostHog's serializer always has them (null until a result
 * exists), so a client can read `hasMore` or `columns` without checking for the key.
 */
const emptyResult = (project: Project): Partial<InsightView> => ({
  result: null,
  hasMore: null,
  columns: null,
  types: null,
  hogql: null,
  resolved_date_range: null,
  last_refresh: null,
  cache_target_age: null,
  next_allowed_client_refresh: null,
  is_cached: false,
  cache_key: null,
  query_status: null,
  timezone: project.timezone,
});
