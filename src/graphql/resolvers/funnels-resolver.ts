import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { FunnelsQueryInput, FunnelsResult, type FunnelStep } from '../types/funnels-types';
import { defaultSeriesKinds, inputToNode } from '../types/insights-inputs';

type Item = Record<string, unknown>;

/** A breakdown value as a list of strings: property breakdowns give lists, group and cohort breakdowns one value. */
const boxed = (v: unknown): string[] | null => (Array.isArray(v) ? v.map(String) : v == null ? null : [String(v)]);

const step = (s: Item): FunnelStep => ({
  action_id: s.action_id === null || s.action_id === undefined ? null : String(s.action_id),
  name: s.name === null || s.name === undefined ? null : String(s.name),
  custom_name: (s.custom_name as string | null) ?? null,
  order: Number(s.order),
  count: Number(s.count),
  type: String(s.type),
  average_conversion_time: (s.average_conversion_time as number | null) ?? null,
  median_conversion_time: (s.median_conversion_time as number | null) ?? null,
  breakdown_value: boxed(s.breakdown_value),
});

/** The FunnelsQuery node of a typed input (also the source of funnel paths). */
export function funnelsInputToNode(query: FunnelsQueryInput): Record<string, unknown> {
  return inputToNode('FunnelsQuery', query, (n) => {
    defaultSeriesKinds(n);
    const ff = n.funnelsFilter as Item | undefined;
    if (ff?.exclusions) ff.exclusions = (ff.exclusions as Item[]).map((e) => ({ ...e, kind: e.kind ?? 'EventsNode' }));
  });
}

/** Typed FunnelsQuery; the same node and runner as POST /api/projects/<id>/query/. */
@Resolver()
export class FunnelsResolver {
  @Query(() => FunnelsResult, { description: 'FunnelsQuery with typed input and results (scope query:read).' })
  async funnels(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('query', () => FunnelsQueryInput) query: FunnelsQueryInput,
  ): Promise<FunnelsResult> {
    const node = funnelsInputToNode(query);
    const r = (await ctx.services.queries.run(ctx.principal, projectId, { query: node })) as Item;
    const viz = (query.funnelsFilter?.funnelVizType ?? 'steps') as string;
    const out: FunnelsResult = {
      steps: null,
      breakdowns: null,
      trends: null,
      timeToConvert: null,
      hogql: String(r.hogql ?? ''),
      resolved_date_range: (r.resolved_date_range as FunnelsResult['resolved_date_range']) ?? null,
      timezone: String(r.timezone ?? 'UTC'),
    };
    if (viz === 'time_to_convert') {
      const t = r.results as Item;
      out.timeToConvert = {
        bins: ((t.bins as [number, number][]) ?? []).map(([bin, count]) => ({ bin, count })),
        average_conversion_time: (t.average_conversion_time as number | null) ?? null,
        median_conversion_time: (t.median_conversion_time as number | null) ?? null,
      };
    } else if (viz === 'trends') {
      out.trends = (r.results as Item[]).map((it) => ({
        count: Number(it.count),
        data: it.data as number[],
        days: it.days as string[],
        labels: it.labels as string[],
        breakdown_value: boxed(it.breakdown_value),
      }));
    } else {
      const results = r.results as unknown[];
      if (results.length && Array.isArray(results[0]))
        out.breakdowns = (results as Item[][]).map((steps) => ({ breakdown_value: boxed(steps[0].breakdown_value) ?? [], steps: steps.map(step) }));
      else out.steps = (results as Item[]).map(step);
    }
    return out;
  }
}
