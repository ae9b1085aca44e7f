import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { LifecycleQueryInput, StickinessQueryInput, TrendsQueryInput, defaultSeriesKinds, inputToNode } from '../types/insights-inputs';
import { LifecycleResult, StickinessResult, TrendsResult } from '../types/insights-results';

type Item = Record<string, unknown>;

const action = (a: unknown): Item | null => {
  if (!a || typeof a !== 'object') return null;
  const x = a as Item;
  return {
    id: x.id ?? null,
    type: x.type,
    order: x.order ?? 0,
    name: x.name ?? null,
    custom_name: x.custom_name ?? null,
    math: x.math ?? null,
    math_property: x.math_property ?? null,
    math_hogql: x.math_hogql ?? null,
  };
};

const common = (r: Item) => ({
  hogql: String(r.hogql ?? ''),
  resolved_date_range: r.resolved_date_range as { date_from: string; date_to: string },
  timezone: String(r.timezone ?? 'UTC'),
});

/** Typed insight queries; each sends the same node as POST /api/projects/<id>/query/ to the same runner. */
@Resolver()
export class InsightsResolver {
  @Query(() => TrendsResult, { description: 'TrendsQuery with typed input and results (scope query:read).' })
  async trends(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('query', () => TrendsQueryInput) query: TrendsQueryInput,
  ): Promise<TrendsResult> {
    const r = (await ctx.services.queries.run(ctx.principal, projectId, { query: inputToNode('TrendsQuery', query, defaultSeriesKinds) })) as Item;
    const results = (r.results as Item[]).map((it) => {
      const bv = it.breakdown_value;
      return {
        label: String(it.label),
        data: it.data as number[],
        days: it.days as string[],
        labels: (it.labels as string[] | undefined) ?? null,
        count: Number(it.count),
        aggregated_value: typeof it.aggregated_value === 'number' ? it.aggregated_value : null,
        breakdown_value: bv === undefined || bv === null ? null : Array.isArray(bv) ? bv.join('::') : String(bv),
        breakdown_values: bv === undefined || bv === null ? null : Array.isArray(bv) ? bv.map(String) : [String(bv)],
        compare: (it.compare as boolean | undefined) ?? null,
        compare_label: (it.compare_label as string | undefined) ?? null,
        action: action(it.action) as TrendsResult['results'][number]['action'],
      };
    });
    return { results, hasMore: r.hasMore === true, ...common(r) };
  }

  @Query(() => StickinessResult, { description: 'StickinessQuery with typed input and results (scope query:read).' })
  async stickiness(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('query', () => StickinessQueryInput) query: StickinessQueryInput,
  ): Promise<StickinessResult> {
    const r = (await ctx.services.queries.run(ctx.principal, projectId, { query: inputToNode('StickinessQuery', query, defaultSeriesKinds) })) as Item;
    const results = (r.results as Item[]).map((it) => ({
      label: String(it.label),
      data: it.data as number[],
      days: it.days as number[],
      labels: it.labels as string[],
      count: Number(it.count),
      compare: (it.compare as boolean | undefined) ?? null,
      compare_label: (it.compare_label as string | undefined) ?? null,
      action: action(it.action) as StickinessResult['results'][number]['action'],
    }));
    return { results, ...common(r) };
  }

  @Query(() => LifecycleResult, { description: 'LifecycleQuery with typed input and results (scope query:read).' })
  async lifecycle(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('query', () => LifecycleQueryInput) query: LifecycleQueryInput,
  ): Promise<LifecycleResult> {
    const r = (await ctx.services.queries.run(ctx.principal, projectId, { query: inputToNode('LifecycleQuery', query, defaultSeriesKinds) })) as Item;
    const results = (r.results as Item[]).map((it) => ({
      label: String(it.label),
      status: String(it.status),
      data: it.data as number[],
      days: it.days as string[],
      labels: it.labels as string[],
      count: Number(it.count),
      action: action(it.action) as LifecycleResult['results'][number]['action'],
    }));
    return { results, ...common(r) };
  }
}
