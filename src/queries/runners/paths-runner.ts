import { validationError } from '../../errors';
import { ast, initParser, type Expr, type Query } from '../../productql';
import { parseExprSync } from '../../productql/parser';
import { funnelAggregationHogQL, toStr } from '../funnels/common';
import { epochMsExpr, runAllRows, runPerActorItems } from '../funnels/run-paged';
import { containsAggregate, earliestTimestamp, globalFilterExpr, mayHavePersonless, personOrDistinctActorExpr, QueryDateRange } from '../insights';
import { edgeLinks, matchingSteps, pathLinks, personPaths, SESSION_GAP_MS, type PathActorKeys, type PathEdge, type PathEvent, type PathsOptions } from '../paths/compute';
import { pathsQuerySchema, type FunnelPathsFilter, type PathsQueryNode } from '../paths/schema';
import type { QueryRunner, RunnerContext } from '../runner';
import { funnelWindowMs, runFunnels } from './funnels-runner';

interface CleaningRule {
  regex?: string | null;
  alias?: string | null;
  order?: number | null;
}

/** Removes one trailing slash (`/` itself stays), as PostHog does for URLs and start/end points. */
export const stripTrailingSlash = (s: string): string => s.replace(/(.)\/$/, '$1');

/** A path grouping pattern as a regex: literal text, `*` = anything; unanchored (matches mid-URL). */
export const groupingRegex = (pattern: string): string =>
  pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');

/** `replaceRegexpAll(url, '(.)/$', '\\1')` without a regex per event: one trailing `/` off, `/` itself kept. */
function stripTrailingSlashExpr(url: Expr): Expr {
  const len = ast.call('lengthUTF8', [url]); // characters, as substring counts them
  return ast.call('if', [
    ast.and(ast.call('endsWith', [url, ast.constant('/')]), ast.compare('>', len, ast.constant(1))),
    ast.call('substring', [url, ast.constant(1), ast.arithmetic('-', len, ast.constant(1))]),
    url,
  ]);
}

/**
 * The path item of each event by `pathsHogQLExpression`: a value of the event. An aggregate (`count()`) has no value
 * per event — the engine would fail on it with its own wording — so it is a 400 here.
 */
function hogqlItemExpr(text: string): Expr {
  const expr = parseExprSync(text);
  if (containsAggregate(expr))
    throw validationError(`pathsHogQLExpression "${text}" contains an aggregation; a path item is a value of each event (e.g. properties.$current_url).`, 'pathsFilter__pathsHogQLExpression');
  return expr;
}

function cleaningRules(list: unknown[] | null | undefined): CleaningRule[] {
  // an empty regex cleans nothing (ClickHouse's replaceRegexpAll refuses one; DuckDB would insert the alias everywhere)
  const rules = (list ?? []).filter((r): r is CleaningRule => !!r && typeof r === 'object' && typeof (r as CleaningRule).regex === 'string' && (r as CleaningRule).regex !== '');
  return [...rules].sort((a, b) => (a.order ?? 0) - (b.order ?? 0));
}

/**
 * The path item in three levels, so that no expression is evaluated twice per event: raw fields (one JSON
 * extraction each) → item with cleaning rules → item with groupings (which reads it once per pattern).
 */
function pathItemQuery(
  node: PathsQueryNode,
  ctx: RunnerContext,
  where: Expr,
  inEngine: false | 'persons' | 'personless' = false,
  actor: Expr = personOrDistinctActorExpr(),
): { from: Query; item: Expr; grouped: Expr } {
  const pf = node.pathsFilter;
  const types = pf.includeEventTypes ?? [];
  const f = ast.field;
  // In-engine paths keep the actor as the person id (cheaper to partition on than its text) and the milliseconds as
  // a whole-valued double (the same value as epochMsExpr without the integer cast).
  const ms = inEngine ? ast.call('round', [ast.arithmetic('*', ast.arithmetic('-', f('timestamp'), ast.call('toDateTime', [ast.constant(0)])), ast.constant(1000))]) : epochMsExpr();
  // Personless events ($process_person_profile: false, stored without a person) are one actor per distinct id: PostHog
  // gives them a person id derived from the distinct id. In-engine, they are a query of their own (`personless`), so
  // the common case partitions on the stored person id alone.
  const raw = ast.select({
    select: [
      ast.alias('actor', !inEngine ? actor : inEngine === 'personless' ? f('distinct_id') : f('person_id')),
      ast.alias('ms', ms),
      f('event'),
      // Each read only for the events whose item it is (a JSON extraction costs as much as the rest of the row).
      ast.alias('url', ast.call('if', [ast.eq(f('event'), ast.constant('$pageview')), ast.call('ifNull', [f('properties', '$current_url'), ast.constant('')]), ast.constant('')])),
      ast.alias('screen', ast.call('if', [ast.eq(f('event'), ast.constant('$screen')), ast.call('ifNull', [f('properties', '$screen_name'), ast.constant('')]), ast.constant('')])),
      ...(types.includes('hogql') && pf.pathsHogQLExpression ? [ast.alias('hx', toStr(hogqlItemExpr(pf.pathsHogQLExpression)))] : []),
    ],
    from: 'events',
    where: !inEngine ? where : ast.and(where, ast.call(inEngine === 'personless' ? 'isNull' : 'isNotNull', [f('person_id')])),
  });
  const event = f('event');
  // PostHog's construct_event_hogql: the ProductQL expression (when `hogql` is included) names the events; pageviews
  // and screens are named by URL and screen name when their type is included — with no types, unless excluded
  // (excludeEvents: ['$pageview'] then drops them by name, as `_should_query_event` intends).
  const named = (type: '$pageview' | '$screen'): boolean => (types.length ? types.includes(type) : !(pf.excludeEvents ?? []).includes(type));
  let item: Expr = types.includes('hogql') && pf.pathsHogQLExpression ? f('hx') : event;
  if (named('$screen')) item = ast.call('if', [ast.eq(event, ast.constant('$screen')), f('screen'), item]);
  if (named('$pageview')) item = ast.call('if', [ast.eq(event, ast.constant('$pageview')), stripTrailingSlashExpr(f('url')), item]);
  const rules = [...(pf.pathReplacements ? cleaningRules(ctx.project.path_cleaning_filters) : []), ...cleaningRules(pf.localPathCleaningFilters)];
  for (const r of rules) item = ast.call('replaceRegexpAll', [item, ast.constant(r.regex!), ast.constant(r.alias ?? '')]);
  const cleaned = ast.select({ select: [f('actor'), f('ms'), ast.alias('item0', item)], from: raw });
  let grouped: Expr = f('item0');
  const groupings = pf.pathGroupings ?? [];
  if (groupings.length) {
    const args: Expr[] = [];
    for (const g of groupings) args.push(ast.call('match', [f('item0'), ast.constant(groupingRegex(g))]), ast.constant(g));
    grouped = ast.call('multiIf', [...args, f('item0')]);
  }
  return { from: cleaned, item: ast.call('concat', [toStr(f('ms')), ast.constant('|'), grouped]), grouped };
}

function includeExpr(node: PathsQueryNode): Expr | undefined {
  const types = node.pathsFilter.includeEventTypes ?? [];
  if (types.length === 0 || types.includes('hogql')) return undefined;
  const event = ast.field('event');
  return ast.or(
    types.includes('$pageview') ? ast.eq(event, ast.constant('$pageview')) : undefined,
    types.includes('$screen') ? ast.eq(event, ast.constant('$screen')) : undefined,
    types.includes('custom_event') ? ast.not(ast.call('startsWith', [event, ast.constant('$')])) : undefined,
  );
}

/**
 * {@link personPaths} + edge counting in SQL, for paths without start/end points: items (rows of `from`: actor, ms)
 * minus excluded ones; sessions split where the gap to the actor's previous event is 30 minutes or more; runs of one
 * item collapsed to their last event (a trailing empty item dropped); the first `stepLimit` items of each session; edges between consecutive items
 * with their count and summed time. Every window orders by (ms, item), so equal timestamps are ordered alike in all
 * passes (the per-actor evaluation takes them in the engine's array order, which is arbitrary).
 */
function pathEdgesQuery(from: Query, grouped: Expr, o: PathsOptions): Query {
  const f = ast.field;
  const items = ast.select({ select: [f('actor'), f('ms'), ast.alias('item', grouped)], from, fromAlias: 'c' });
  const excluded = (o.excludeEvents ?? []).filter((x) => typeof x === 'string');
  const kept = excluded.length
    ? ast.select({ select: [f('i.actor'), f('i.ms'), f('i.item')], from: items, fromAlias: 'i', where: ast.compare('not in', f('i.item'), ast.tuple(excluded.map((x) => ast.constant(x)))) })
    : items;
  const win = (name: string, args: Expr[], partition: string[], frame?: 'running'): Expr => ({
    node: 'WindowFunction',
    name,
    exprs: args,
    over_expr: {
      node: 'WindowExpr',
      partition_by: partition.map((x) => f(x)),
      order_by: [ast.order(f('ms')), ast.order(f('item'))],
      ...(frame
        ? {
            frame_method: 'ROWS' as const,
            frame_start: { node: 'WindowFrameExpr' as const, frame_type: 'PRECEDING' as const, frame_value: null },
            frame_end: { node: 'WindowFrameExpr' as const, frame_type: 'CURRENT ROW' as const },
          }
        : {}),
    },
  });
  const gaps = ast.select({
    select: [
      f('actor'),
      f('ms'),
      f('item'),
      ast.alias(
        'new_session',
        ast.call('if', [ast.compare('<', ast.arithmetic('-', f('ms'), win('lag', [f('ms')], ['actor'])), ast.constant(SESSION_GAP_MS)), ast.constant(0), ast.constant(1)]),
      ),
    ],
    from: kept,
    fromAlias: 'k',
  });
  const sessions = ast.select({
    select: [f('actor'), f('ms'), f('item'), ast.alias('session', win('sum', [f('new_session')], ['actor'], 'running'))],
    from: gaps,
    fromAlias: 'g',
  });
  const runs = ast.select({
    select: [f('actor'), f('session'), f('ms'), f('item'), ast.alias('following', win('lead', [f('item')], ['actor', 'session']))],
    from: sessions,
    fromAlias: 's',
  });
  const collapsed = ast.select({
    select: [f('r.actor'), f('r.session'), f('r.ms'), f('r.item')],
    from: runs,
    fromAlias: 'r',
    // an item differing from the next one, the last compared with '' (PostHog's arrayPushBack(path_basic, '')): a
    // session's trailing empty item is dropped
    where: ast.compare('!=', f('r.item'), ast.call('ifNull', [f('r.following'), ast.constant('')])),
  });
  const steps = ast.select({
    select: [
      f('item'),
      ast.alias('step', win('row_number', [], ['actor', 'session'])),
      ast.alias('next_item', win('lead', [f('item')], ['actor', 'session'])),
      ast.alias('dt', ast.arithmetic('-', win('lead', [f('ms')], ['actor', 'session']), f('ms'))),
    ],
    from: collapsed,
    fromAlias: 'x',
  });
  const source = ast.call('concat', [toStr(f('st.step')), ast.constant('_'), f('st.item')]);
  const target = ast.call('concat', [toStr(ast.arithmetic('+', f('st.step'), ast.constant(1))), ast.constant('_'), f('st.next_item')]);
  return ast.select({
    select: [ast.alias('source', source), ast.alias('target', target), ast.alias('value', ast.call('count', [])), ast.alias('total', ast.call('sum', [f('st.dt')]))],
    from: steps,
    fromAlias: 'st',
    where: ast.and(ast.compare('<', f('st.step'), ast.constant(o.stepLimit)), ast.call('isNotNull', [f('st.next_item')])),
    groupBy: [ast.constant(1), ast.constant(2)],
    orderBy: [ast.order(ast.constant(1)), ast.order(ast.constant(2))],
  });
}

/** The funnel conversion window in milliseconds (`month` = 31 days, as the funnel runner counts it). */
/** The funnel's actors on a funnel path, each with the time span (ms, inclusive) whose events make its paths. */
interface FunnelPathActors {
  bounds: Map<string, { from: number; to: number }>;
  /** Sessions split at gaps of the funnel window (PostHog's get_session_threshold_clause for funnel paths). */
  windowMs: number;
  groupTypeIndex: number | null;
}

/**
 * Funnel paths (reference §5.3; PostHog's path_event_query with the funnel actors' `timestamp` / `min_timestamp` /
 * `max_timestamp`): `funnelStep` n > 0 takes the actors who reached step n, with its time; n < 0 those who reached
 * step |n| − 1 but not step |n|, with the time of step |n| − 1. `after_step` keeps their events at or after that
 * time; `before_step` at or before it (for drop-offs, up to the end of the conversion window after it, when they were
 * deemed dropped off); `between_steps` (n ≥ 2) from step n − 1 to step n.
 */
async function funnelPathActors(f: FunnelPathsFilter, ctx: RunnerContext): Promise<FunnelPathActors> {
  const funnel = f.funnelSource;
  const n = funnel.series.length;
  const step = f.funnelStep;
  const attr = 'funnelPathsFilter__funnelStep';
  if (step === undefined || step === null) throw validationError('funnelPathsFilter.funnelStep is required: the funnel step the paths lead to or from.', attr);
  if (f.funnelPathType === 'funnel_path_between_steps') {
    if (step < 2 || step > n) throw validationError(`funnel_path_between_steps takes a funnelStep of 2..${n}: the paths from the step before it to it.`, attr);
  } else if (step === 0 || step === -1 || Math.abs(step) > n)
    throw validationError(`funnelStep must be 1..${n}, or −2..−${n} for the actors who dropped off before that step.`, attr);
  // The funnel's actor as the funnels runner resolves it: the group index first, then the expression unless it is
  // `person_id` (the person). Only an expression of its own (e.g. a session id) has no person path to follow.
  if (funnelAggregationHogQL(funnel))
    throw validationError('Funnel paths of a funnel aggregated by a ProductQL expression are not supported.', 'funnelPathsFilter__funnelSource__funnelsFilter__funnelAggregateByHogQL');
  const windowMs = funnelWindowMs(funnel.funnelsFilter);
  const target = step > 0 ? step - 1 : -step - 2;
  const bounds = new Map<string, { from: number; to: number }>();
  await runFunnels({ ...funnel, funnelsFilter: { ...funnel.funnelsFilter, funnelVizType: 'steps' } }, ctx, {
    onActor(actor, _value, r) {
      if (bounds.has(actor)) return; // with a breakdown, the actor's first value
      if (!(step > 0 ? r.reached[target] : r.reached[target] && !r.reached[target + 1])) return;
      const at = r.timings[target];
      if (at === null || at === undefined) return;
      if (f.funnelPathType === 'funnel_path_after_step') bounds.set(actor, { from: at, to: Infinity });
      else if (f.funnelPathType === 'funnel_path_before_step') bounds.set(actor, { from: -Infinity, to: step < 0 ? at + windowMs : at });
      else {
        const prev = r.timings[target - 1];
        if (prev !== null && prev !== undefined) bounds.set(actor, { from: prev, to: at });
      }
    },
  });
  return { bounds, windowMs, groupTypeIndex: funnel.aggregation_group_type_index ?? null };
}

/** The node's options for the path computation, and the WHERE of its events. */
async function pathsSetup(node: PathsQueryNode, ctx: RunnerContext): Promise<{ where: Expr; o: PathsOptions }> {
  const pf = node.pathsFilter;
  const tz = ctx.project.timezone;
  // `date_from: "all"` starts at the project's earliest event (reference §1.5).
  const earliest = node.dateRange?.date_from === 'all' ? await earliestTimestamp(ctx, undefined) : null;
  const range = new QueryDateRange({ dateRange: node.dateRange, interval: 'day', timezone: tz, weekStartDay: ctx.project.week_start_day ?? 0, earliest });
  const where = ast.and(range.whereExpr(), globalFilterExpr(node, ctx), includeExpr(node));
  const o: PathsOptions = {
    stepLimit: pf.stepLimit ?? 5,
    edgeLimit: pf.edgeLimit ?? 50,
    minEdgeWeight: pf.minEdgeWeight,
    maxEdgeWeight: pf.maxEdgeWeight,
    startPoint: pf.startPoint ? stripTrailingSlash(pf.startPoint) : null,
    endPoint: pf.endPoint ? stripTrailingSlash(pf.endPoint) : null,
    // PostHog (one version) only applied excludeEvents with includeEventTypes set; Quarry always applies it.
    excludeEvents: pf.excludeEvents,
  };
  return { where, o };
}

/** Funnel actors listed in the event query up to this many (beyond, the events are read for all and dropped here). */
const MAX_LISTED_FUNNEL_ACTORS = 1000;

/**
 * Every actor's session paths, cut per start/end point and step limit (the per-actor evaluation): actor id → its
 * paths. Funnel paths keep the funnel's actors and the events in their span.
 */
export async function actorPaths(
  node: PathsQueryNode,
  ctx: RunnerContext,
): Promise<{ paths: Map<string, PathEvent[][]>; o: PathsOptions; hogql: string; groupTypeIndex: number | null }> {
  await initParser();
  const { where, o } = await pathsSetup(node, ctx);
  const funnel = node.funnelPathsFilter ? await funnelPathActors(node.funnelPathsFilter, ctx) : null;
  const paths = new Map<string, PathEvent[][]>();
  const groupTypeIndex = funnel?.groupTypeIndex ?? null;
  if (funnel && funnel.bounds.size === 0) return { paths, o, hogql: '', groupTypeIndex };
  // The funnel's actor: the person (or the distinct id of personless events), or the group key.
  const actor = personOrDistinctActorExpr(groupTypeIndex);
  const only = !funnel
    ? undefined
    : ast.and(
        groupTypeIndex !== null ? ast.compare('!=', toStr(actor), ast.constant('')) : undefined,
        funnel.bounds.size <= MAX_LISTED_FUNNEL_ACTORS ? ast.compare('in', toStr(actor), ast.tuple([...funnel.bounds.keys()].map((k) => ast.constant(k)))) : undefined,
      );
  const { from, item } = pathItemQuery(node, ctx, ast.and(where, only), false, actor);
  const { actors, hogql } = await runPerActorItems(ctx, { actor: ast.field('actor'), item, from });
  const opts: PathsOptions = funnel ? { ...o, sessionGapMs: funnel.windowMs } : o;
  ctx.timings.measureSync('paths', () => {
    for (const [key, list] of actors) {
      const span = funnel?.bounds.get(key);
      if (funnel && !span) continue;
      let evs: PathEvent[] = list.map((raw) => {
        const s = String(raw);
        const i = s.indexOf('|');
        return { ts: Number(s.slice(0, i)), item: s.slice(i + 1) };
      });
      if (span) evs = evs.filter((e) => e.ts >= span.from && e.ts <= span.to);
      const p = personPaths(evs, opts);
      if (p.length) paths.set(key, p);
    }
  });
  return { paths, o, hogql, groupTypeIndex };
}

export async function runPaths(node: PathsQueryNode, ctx: RunnerContext, opts: { forceGeneral?: boolean } = {}): Promise<Record<string, unknown>> {
  const pf = node.pathsFilter;
  const funnel = node.funnelPathsFilter !== undefined && node.funnelPathsFilter !== null;
  const inEngine = !opts.forceGeneral && !funnel && ctx.engine.dialect === 'duckdb' && !pf.startPoint && !pf.endPoint;
  if (inEngine) {
    await initParser();
    const { where, o } = await pathsSetup(node, ctx);
    // The whole path computation in the engine (window functions): only the counted edges come back. Persons and
    // personless actors are disjoint, so the edge counts and times of the two queries add up.
    const byKey = new Map<string, PathEdge>();
    let hogql = '';
    for (const part of mayHavePersonless(ctx) ? (['persons', 'personless'] as const) : (['persons'] as const)) {
      const q = pathItemQuery(node, ctx, where, part);
      const run = await runAllRows(ctx, pathEdgesQuery(q.from, q.grouped, o));
      hogql ||= run.hogql;
      for (const r of run.rows) {
        const e: PathEdge = { source: String(r[0]), target: String(r[1]), value: Number(r[2]), total: Number(r[3]) };
        const key = `${e.source}\u0000${e.target}`;
        const seen = byKey.get(key);
        if (seen) {
          seen.value += e.value;
          seen.total += e.total;
        } else byKey.set(key, e);
      }
    }
    return { results: ctx.timings.measureSync('paths', () => edgeLinks([...byKey.values()], o)), hogql };
  }
  const { paths, o, hogql } = await actorPaths(node, ctx);
  const results = ctx.timings.measureSync('paths', () => pathLinks([...paths.values()].flat(), o));
  return { results, hogql };
}

/**
 * The actors behind a node of a paths insight (PostHog's paths actors query: `pathStartKey`, `pathEndKey`,
 * `pathDropoffKey` of the source's pathsFilter; none: every actor with a path), as sorted actor ids.
 */
export async function pathsActors(node: PathsQueryNode, ctx: RunnerContext): Promise<{ ids: string[]; groupTypeIndex: number | null }> {
  const pf = node.pathsFilter;
  const keys: PathActorKeys = { start: pf.pathStartKey, end: pf.pathEndKey, dropoff: pf.pathDropoffKey };
  const { paths, groupTypeIndex } = await actorPaths(node, ctx);
  const ids: string[] = [];
  for (const [actor, p] of paths) if (matchingSteps(p, keys) > 0) ids.push(actor);
  return { ids: ids.sort(), groupTypeIndex };
}

/** PathsQuery: edges between consecutive path items per person session. */
export const pathsRunner: QueryRunner<PathsQueryNode> = {
  kinds: ['PathsQuery'],
  schema: pathsQuerySchema,
  run: runPaths,
};
