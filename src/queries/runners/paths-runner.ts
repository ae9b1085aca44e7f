import { validationError } from '../../errors';
import { ast, initParser, type Expr, type Query } from '../../productql';
import { parseExprSync } from '../../productql/parser';
import { toStr } from '../funnels/common';
import { epochMsExpr, runPerActorItems } from '../funnels/run-paged';
import { globalFilterExpr, QueryDateRange } from '../insights';
import { pathLinks, personPaths, type PathEvent, type PathsOptions } from '../paths/compute';
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
function pathItemQuery(node: PathsQueryNode, ctx: RunnerContext, where: Expr): { from: Query; item: Expr } {
  const pf = node.pathsFilter;
  const types = pf.includeEventTypes ?? [];
  const f = ast.field;
  const raw = ast.select({
    select: [
      ast.alias('actor', toStr(f('person_id'))),
      ast.alias('ms', epochMsExpr()),
      f('event'),
      ast.alias('url', ast.call('ifNull', [f('properties', '$current_url'), ast.constant('')])),
      ast.alias('screen', ast.call('ifNull', [f('properties', '$screen_name'), ast.constant('')])),
      ...(types.includes('hogql') && pf.pathsHogQLExpression ? [ast.alias('hx', toStr(parseExprSync(pf.pathsHogQLExpression)))] : []),
    ],
    from: 'events',
    where,
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
  const cleaned = ast.select({ select: [f('actor'), f('ms'), ast.alias('item0', item)], from: raw, where: ast.compare('!=', f('actor'), ast.constant('')) });
  let grouped: Expr = f('item0');
  const groupings = pf.pathGroupings ?? [];
  if (groupings.length) {
    const args: Expr[] = [];
    for (const g of groupings) args.push(ast.call('match', [f('item0'), ast.constant(groupingRegex(g))]), ast.constant(g));
    grouped = ast.call('multiIf', [...args, f('item0')]);
  }
  return { from: cleaned, item: ast.call('concat', [toStr(f('ms')), ast.constant('|'), grouped]) };
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

export async function runPaths(node: PathsQueryNode, ctx: RunnerContext): Promise<Record<string, unknown>> {
  if (node.funnelPathsFilter !== undefined && node.funnelPathsFilter !== null)
    throw validationError('Funnel paths (funnelPathsFilter) are not supported by this server yet', 'funnelPathsFilter');
  await initParser();
  const pf = node.pathsFilter;
  const tz = ctx.project.timezone;
  const range = new QueryDateRange({ dateRange: node.dateRange, interval: 'day', timezone: tz, weekStartDay: ctx.project.week_start_day ?? 0 });
  const { from, item } = pathItemQuery(node, ctx, ast.and(range.whereExpr(), globalFilterExpr(node, ctx), includeExpr(node)));
  const { actors, hogql } = await runPerActorItems(ctx, { actor: ast.field('actor'), item, from });

  const opts: PathsOptions = {
    stepLimit: pf.stepLimit ?? 5,
    edgeLimit: pf.edgeLimit ?? 50,
    minEdgeWeight: pf.minEdgeWeight,
    maxEdgeWeight: pf.maxEdgeWeight,
    startPoint: pf.startPoint ? stripTrailingSlash(pf.startPoint) : null,
    endPoint: pf.endPoint ? stripTrailingSlash(pf.endPoint) : null,
    // PostHog (one version) only applied excludeEvents with includeEventTypes set; Quarry always applies it.
    excludeEvents: pf.excludeEvents,
  };
  const results = ctx.timings.measureSync('paths', () => {
    const all: PathEvent[][] = [];
    for (const list of actors.values()) {
      const evs: PathEvent[] = list.map((raw) => {
        const s = String(raw);
        const i = s.indexOf('|');
        return { ts: Number(s.slice(0, i)), item: s.slice(i + 1) };
      });
      for (const p of personPaths(evs, opts)) all.push(p);
    }
    return pathLinks(all, opts);
  });
  return { results, hogql };
}

/** PathsQuery: edges between consecutive path items per person session. */
export const pathsRunner: QueryRunner<PathsQueryNode> = {
  kinds: ['PathsQuery'],
  schema: pathsQuerySchema,
  run: runPaths,
};
