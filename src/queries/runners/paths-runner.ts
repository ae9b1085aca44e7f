import { validationError } from '../../errors';
import { ast, initParser, type Expr, type Query } from '../../productql';
import { parseExprSync } from '../../productql/parser';
import { toStr } from '../funnels/common';
import { epochMsExpr, runAllRows, runPerActorItems } from '../funnels/run-paged';
import { globalFilterExpr, mayHavePersonless, personOrDistinctActorExpr, QueryDateRange } from '../insights';
import { edgeLinks, pathLinks, personPaths, SESSION_GAP_MS, type PathEdge, type PathEvent, type PathsOptions } from '../paths/compute';
import { pathsQuerySchema, type PathsQueryNode } from '../paths/schema';
import type { QueryRunner, RunnerContext } from '../runner';

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
  const len = ast.call('length', [url]);
  return ast.call('if', [
    ast.and(ast.call('endsWith', [url, ast.constant('/')]), ast.compare('>', len, ast.constant(1))),
    ast.call('substring', [url, ast.constant(1), ast.arithmetic('-', len, ast.constant(1))]),
    url,
  ]);
}

function cleaningRules(list: unknown[] | null | undefined): CleaningRule[] {
  const rules = (list ?? []).filter((r): r is CleaningRule => !!r && typeof r === 'object' && typeof (r as CleaningRule).regex === 'string');
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
      ast.alias('actor', !inEngine ? personOrDistinctActorExpr() : inEngine === 'personless' ? f('distinct_id') : f('person_id')),
      ast.alias('ms', ms),
      f('event'),
      // Each read only for the events whose item it is (a JSON extraction costs as much as the rest of the row).
      ast.alias('url', ast.call('if', [ast.eq(f('event'), ast.constant('$pageview')), ast.call('ifNull', [f('properties', '$current_url'), ast.constant('')]), ast.constant('')])),
      ast.alias('screen', ast.call('if', [ast.eq(f('event'), ast.constant('$screen')), ast.call('ifNull', [f('properties', '$screen_name'), ast.constant('')]), ast.constant('')])),
      ...(types.includes('hogql') && pf.pathsHogQLExpression ? [ast.alias('hx', toStr(parseExprSync(pf.pathsHogQLExpression)))] : []),
    ],
    from: 'events',
    where: !inEngine ? where : ast.and(where, ast.call(inEngine === 'personless' ? 'isNull' : 'isNotNull', [f('person_id')])),
  });
  const event = f('event');
  let item: Expr = ast.call('multiIf', [
    ast.eq(event, ast.constant('$pageview')),
    stripTrailingSlashExpr(f('url')),
    ast.eq(event, ast.constant('$screen')),
    f('screen'),
    types.includes('hogql') && pf.pathsHogQLExpression ? f('hx') : event,
  ]);
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
 * item collapsed to their last event; the first `stepLimit` items of each session; edges between consecutive items
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
    where: ast.or(ast.call('isNull', [f('r.following')]), ast.compare('!=', f('r.following'), f('r.item'))),
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

export async function runPaths(node: PathsQueryNode, ctx: RunnerContext, opts: { forceGeneral?: boolean } = {}): Promise<Record<string, unknown>> {
  if (node.funnelPathsFilter !== undefined && node.funnelPathsFilter !== null)
    throw validationError('Funnel paths (funnelPathsFilter) are not supported by this server yet', 'funnelPathsFilter');
  await initParser();
  const pf = node.pathsFilter;
  const tz = ctx.project.timezone;
  const range = new QueryDateRange({ dateRange: node.dateRange, interval: 'day', timezone: tz, weekStartDay: ctx.project.week_start_day ?? 0 });
  const inEngine = !opts.forceGeneral && ctx.engine.dialect === 'duckdb' && !pf.startPoint && !pf.endPoint;
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
  if (inEngine) {
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
  const { from, item } = pathItemQuery(node, ctx, where);
  const { actors, hogql } = await runPerActorItems(ctx, { actor: ast.field('actor'), item, from });
  const results = ctx.timings.measureSync('paths', () => {
    const all: PathEvent[][] = [];
    for (const list of actors.values()) {
      const evs: PathEvent[] = list.map((raw) => {
        const s = String(raw);
        const i = s.indexOf('|');
        return { ts: Number(s.slice(0, i)), item: s.slice(i + 1) };
      });
      for (const p of personPaths(evs, o)) all.push(p);
    }
    return pathLinks(all, o);
  });
  return { results, hogql };
}

/** PathsQuery: edges between consecutive path items per person session. */
export const pathsRunner: QueryRunner<PathsQueryNode> = {
  kinds: ['PathsQuery'],
  schema: pathsQuerySchema,
  run: runPaths,
};
