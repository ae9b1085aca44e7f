import * as productql from '../../productql';
import '../../productql/clickhouse'; // registers the ClickHouse printer
import * as ast from '../../productql/ast';
import type { Project } from '../../store/entities';
import type { RunnerContext } from '../runner';
import { Timings } from '../timings';
import { astCacheKey, runInsightQuery } from './execute';

/** An engine (DuckDB dialect unless told) that records what it is asked and answers no rows. */
function recordingCtx(project: Partial<Project> = {}, engineOpts: { dialect?: 'duckdb' | 'clickhouse'; overrides?: () => boolean } = {}) {
  const calls: { sql: string; params: readonly unknown[] }[] = [];
  const engine = {
    dialect: engineOpts.dialect ?? 'duckdb',
    ...(engineOpts.overrides ? { hasPersonOverrides: engineOpts.overrides } : {}),
    query: async (sql: string, params: readonly unknown[] = []) => {
      calls.push({ sql, params });
      return { columns: [], types: [], rows: [] };
    },
  };
  const ctx = {
    project: { id: 1, name: 't', timezone: 'UTC', week_start_day: 0, ...project } as Project,
    principal: { kind: 'personal', keyId: 'k', userId: 1, scopes: ['*'], projectIds: null },
    engine,
    timings: new Timings(),
    timeoutMs: 30_000,
  } as unknown as RunnerContext;
  return { ctx, calls };
}

const daily = (event: string) =>
  ast.select({
    select: [ast.alias('bucket', ast.call('toDate', [ast.field('timestamp')])), ast.alias('value', ast.call('count', []))],
    from: 'events',
    where: ast.compare('==', ast.field('event'), ast.constant(event)),
    groupBy: [ast.constant(1)],
  });

describe('astCacheKey', () => {
  it.each([
    ['Infinity and null', ast.constant(Infinity), ast.constant(null)],
    ['NaN and null', ast.constant(NaN), ast.constant(null)],
    ['-0 and 0', ast.constant(-0), ast.constant(0)],
    ['an undefined and a null property', { node: 'Constant', value: undefined }, { node: 'Constant', value: null }],
    ['an undefined and a null array item', ast.array([ast.constant(1), undefined as unknown as ast.Expr]), ast.array([ast.constant(1), null as unknown as ast.Expr])],
  ])('tells apart %s', (_name, a, b) => {
    const q = (e: unknown) => ast.select({ select: [e as ast.Expr] });
    expect(astCacheKey(q(a))).not.toBeNull();
    expect(astCacheKey(q(a))).not.toEqual(astCacheKey(q(b)));
  });

  it('equal ASTs built twice share a key', () => {
    expect(astCacheKey(daily('$pageview'))).toEqual(astCacheKey(daily('$pageview')));
    expect(astCacheKey(daily('$pageview'))).not.toEqual(astCacheKey(daily('signup')));
  });

  it('is null (not cached) for values other than plain objects, arrays and primitives', () => {
    expect(astCacheKey(ast.select({ select: [{ node: 'Constant', value: new Date(0) } as unknown as ast.Expr] }))).toBeNull();
    expect(astCacheKey(ast.select({ select: [{ node: 'Constant', value: 1n } as unknown as ast.Expr] }))).toBeNull();
  });
});

describe('runInsightQuery: printed queries are reused per project, timezone and AST', () => {
  it('the same AST prints the same SQL and values again; another event, project or timezone prints its own', async () => {
    const a = recordingCtx();
    await runInsightQuery(a.ctx, daily('$pageview'));
    await runInsightQuery(a.ctx, daily('$pageview'));
    await runInsightQuery(a.ctx, daily('signup'));
    expect(a.calls[1]).toEqual(a.calls[0]);
    expect(a.calls[2].sql).toEqual(a.calls[0].sql);
    expect(a.calls[2].params).toContain('signup');
    expect(a.calls[2].params).not.toContain('$pageview');

    const other = recordingCtx({ id: 2 });
    await runInsightQuery(other.ctx, daily('$pageview'));
    expect(other.calls[0].params).toContain(2);
    expect(other.calls[0].params).not.toContain(1);

    const berlin = recordingCtx({ timezone: 'Europe/Berlin' });
    await runInsightQuery(berlin.ctx, daily('$pageview'));
    expect(berlin.calls[0].sql).not.toEqual(a.calls[0].sql);
    expect(berlin.calls[0].params).toContain('Europe/Berlin');
  });

  it("a one-argument toStartOfWeek (HogQL math, breakdowns) follows the project's week start, printed per week start", async () => {
    const weekly = ast.select({ select: [ast.call('toStartOfWeek', [ast.field('timestamp')])], from: 'events' });
    const sunday = recordingCtx({ id: 7 });
    const monday = recordingCtx({ id: 7, week_start_day: 1 });
    await runInsightQuery(sunday.ctx, weekly);
    await runInsightQuery(monday.ctx, weekly);
    // Monday weeks (ClickHouse's mode 3, as PostHog prints it) are other SQL than Sunday weeks
    expect(monday.calls[0].sql).not.toEqual(sunday.calls[0].sql);
  });

  it('returns the ProductQL text of the query as hogql, on a hit too', async () => {
    const a = recordingCtx();
    const first = await runInsightQuery(a.ctx, daily('$pageview'));
    const second = await runInsightQuery(a.ctx, daily('$pageview'));
    expect(first.hogql).toContain('$pageview');
    expect(second.hogql).toEqual(first.hogql);
  });
});

describe('runInsightQuery on ClickHouse: printed queries are reused too', () => {
  afterEach(() => jest.restoreAllMocks());

  it('compiles an AST once per project, timezone and person-override state; values are spliced, so another event prints other SQL', async () => {
    const compile = jest.spyOn(productql, 'compileProductQL');
    let overrides = false;
    const a = recordingCtx({ id: 7 }, { dialect: 'clickhouse', overrides: () => overrides });
    await runInsightQuery(a.ctx, daily('$pageview'));
    await runInsightQuery(a.ctx, daily('$pageview'));
    expect(compile).toHaveBeenCalledTimes(1);
    expect(a.calls[1]).toEqual(a.calls[0]);
    expect(a.calls[0].params).toEqual([]);
    expect(a.calls[0].sql).toContain("'$pageview'");

    await runInsightQuery(a.ctx, daily('signup'));
    expect(compile).toHaveBeenCalledTimes(2);
    expect(a.calls[2].sql).toContain("'signup'");
    expect(a.calls[2].sql).not.toContain("'$pageview'");

    // The project's first merge: the same AST now needs the overrides join.
    overrides = true;
    await runInsightQuery(a.ctx, ast.select({ select: [ast.alias('n', ast.call('uniq', [ast.field('person_id')]))], from: 'events' }));
    overrides = false;
    await runInsightQuery(a.ctx, ast.select({ select: [ast.alias('n', ast.call('uniq', [ast.field('person_id')]))], from: 'events' }));
    expect(a.calls[3].sql).toContain('person_overrides');
    expect(a.calls[4].sql).not.toContain('person_overrides');

    const berlin = recordingCtx({ id: 7, timezone: 'Europe/Berlin' }, { dialect: 'clickhouse' });
    await runInsightQuery(berlin.ctx, daily('$pageview'));
    expect(berlin.calls[0].sql).not.toEqual(a.calls[0].sql);
    expect(berlin.calls[0].sql).toContain("'Europe/Berlin'");
  });
});
