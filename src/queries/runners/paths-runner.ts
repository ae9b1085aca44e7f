import { validationError } from '../../errors';
import { ast, initParser, type Expr } from '../../productql';
import { parseExprSync } from '../../productql/parser';
import { toStr } from '../funnels/common';
import { runPerActorItems } from '../funnels/run-paged';
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

function cleaningRules(list: unknown[] | null | undefined): CleaningRule[] {
  const rules = (list ?? []).filter((r): r is CleaningRule => !!r && typeof r === 'object' && typeof (r as CleaningRule).regex === 'string');
  return [...rules].sort((a, b) => (a.order ?? 0) - (b.order ?? 0));
}

function pathItemExpr(node: PathsQueryNode, ctx: RunnerContext): Expr {
  const pf = node.pathsFilter;
  const types = pf.includeEventTypes ?? [];
  const event = ast.field('event');
  const other: Expr = types.includes('hogql') && pf.pathsHogQLExpression ? toStr(parseExprSync(pf.pathsHogQLExpression)) : event;
  let item: Expr = ast.call('multiIf', [
    ast.eq(event, ast.constant('$pageview')),
    ast.call('replaceRegexpAll', [ast.call('ifNull', [ast.field('properties', '$current_url'), ast.constant('')]), ast.constant('(.)/$'), ast.constant('\\1')]),
    ast.eq(event, ast.constant('$screen')),
    ast.call('ifNull', [ast.field('properties', '$screen_name'), ast.constant('')]),
    ast.call('ifNull', [other, ast.constant('')]),
  ]);
  const rules = [...(pf.pathReplacements ? cleaningRules(ctx.project.path_cleaning_filters) : []), ...cleaningRules(pf.localPathCleaningFilters)];
  for (const r of rules) item = ast.call('replaceRegexpAll', [item, ast.constant(r.regex!), ast.constant(r.alias ?? '')]);
  const groupings = pf.pathGroupings ?? [];
  if (groupings.length) {
    const args: Expr[] = [];
    for (const g of groupings) args.push(ast.call('match', [item, ast.constant(groupingRegex(g))]), ast.constant(g));
    item = ast.call('multiIf', [...args, item]);
  }
  return item;
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
  const actor = toStr(ast.field('person_id'));
  const item = ast.call('concat', [
    toStr(ast.arithmetic('-', ast.field('timestamp'), ast.call('toDateTime', [ast.constant(0)]))),
    ast.constant('|'),
    pathItemExpr(node, ctx),
  ]);
  const { actors, hogql } = await runPerActorItems(ctx, {
    actor,
    item,
    where: ast.and(range.whereExpr(), globalFilterExpr(node, ctx), includeExpr(node), ast.compare('!=', actor, ast.constant(''))),
  });

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
        return { ts: Math.round(Number(s.slice(0, i)) * 1000), item: s.slice(i + 1) };
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
