import * as ast from '../../productql/ast';
import { runInsightQuery } from './execute';
import { ensureFilterParser, propertiesToExpr, propertyFilterToExpr, testAccountFiltersExpr } from './property-filters';
import { propertiesSchema, type AnyPropertyFilter, type PropertiesInput } from './schema';
import { createInsightTestDb, type InsightTestDb } from './testing';

/**
 * Seven events; `v` is Chrome / Safari / '' / null / missing / chrome / 50%, `n` numeric-ish, `d` dates.
 * Persons: d1 (e1, e2) plan=pro, d2 (e3) plan=free, d3 (e4–e7) no plan.
 */
let db: InsightTestDb;
beforeAll(async () => {
  db = await createInsightTestDb();
  await ensureFilterParser();
  const ts = '2024-01-02T10:00:00Z';
  await db.load(1, {
    persons: [
      { distinct_ids: ['d1'], properties: { plan: 'pro' } },
      { distinct_ids: ['d2'], properties: { plan: 'free' } },
      { distinct_ids: ['d3'], properties: {} },
    ],
    events: [
      { event: 'e', distinct_id: 'd1', timestamp: ts, properties: { v: 'Chrome', n: 10, s: 'abc' } },
      { event: 'e', distinct_id: 'd1', timestamp: ts, properties: { v: 'Safari', n: '5', s: 'ABCD' } },
      { event: 'e', distinct_id: 'd2', timestamp: ts, properties: { v: '', n: 'abc' } },
      { event: 'e', distinct_id: 'd3', timestamp: ts, properties: { v: null, n: null } },
      { event: 'e', distinct_id: 'd3', timestamp: ts, properties: {} },
      { event: 'e', distinct_id: 'd3', timestamp: ts, properties: { v: 'chrome', n: 100.5, d: '2024-01-05' } },
      { event: 'e', distinct_id: 'd3', timestamp: ts, properties: { v: '50%', n: 20, d: '2024-01-10T10:00:00' } },
    ],
  });
});
afterAll(() => db.close());

const count = async (props: PropertiesInput | AnyPropertyFilter[]): Promise<number> => {
  const q = ast.select({ select: [ast.alias('c', ast.call('count', []))], from: 'events', where: propertiesToExpr(props) });
  const { rows } = await runInsightQuery(db.ctx(1), q);
  return Number(rows[0].c);
};
const ev = (key: string, operator: string, value?: unknown): AnyPropertyFilter => ({ type: 'event', key, operator, value }) as AnyPropertyFilter;

describe('operators on missing / empty / null / numeric properties', () => {
  it.each<[string, AnyPropertyFilter, number]>([
    ['exact', ev('v', 'exact', 'Chrome'), 1],
    ['exact is case-sensitive', ev('v', 'exact', 'chrome'), 1],
    ['exact with a list → IN', ev('v', 'exact', ['Chrome', 'Safari']), 2],
    ['exact with a one-item list = scalar', ev('v', 'exact', ['Chrome']), 1],
    ['exact "" matches the empty string (PostHog reads "" as \'\', not NULL)', ev('v', 'exact', ''), 1],
    ['exact with an empty list is a no-op', ev('v', 'exact', []), 7],
    ['default operator is exact', { type: 'event', key: 'v', value: 'Safari' } as AnyPropertyFilter, 1],
    ['is_not includes missing, null and empty', ev('v', 'is_not', 'Chrome'), 6],
    ['is_not with a list → NOT IN (NULL passes)', ev('v', 'is_not', ['Chrome', 'Safari']), 5],
    ['icontains is case-insensitive', ev('v', 'icontains', 'chrome'), 2],
    ['icontains does not escape % (wildcard; "" matches it too)', ev('v', 'icontains', '%'), 5],
    ['icontains list → OR', ev('v', 'icontains', ['safari', '50']), 2],
    ['not_icontains includes NULL', ev('v', 'not_icontains', 'chrome'), 5],
    ['not_icontains list → AND', ev('v', 'not_icontains', ['safari', 'chrome']), 4],
    ['regex', ev('v', 'regex', '^C'), 1],
    ['not_regex includes NULL', ev('v', 'not_regex', '^C'), 6],
    ['is_set is true for "", false for null and missing', ev('v', 'is_set'), 5],
    ['is_not_set: null and missing', ev('v', 'is_not_set'), 2],
    ['gt numeric (non-numeric text is not > anything)', ev('n', 'gt', 10), 2],
    ['gte', ev('n', 'gte', 10), 3],
    ['lt ("5" as text is numeric)', ev('n', 'lt', 10), 1],
    ['lte with a numeric string value', ev('n', 'lte', '10'), 2],
    ['exact on a number compares text', ev('n', 'exact', 10), 1],
    ['between inclusive', ev('n', 'between', [5, 20]), 3],
    ['not_between excludes missing', ev('n', 'not_between', [5, 20]), 1],
    ['is_set on numbers counts text too', ev('n', 'is_set'), 5],
    ['is_date_before', ev('d', 'is_date_before', '2024-01-07'), 1],
    ['is_date_after', ev('d', 'is_date_after', '2024-01-07'), 1],
    ['is_date_exact', ev('d', 'is_date_exact', '2024-01-05'), 1],
    ['in with a list', ev('v', 'in', ['Chrome', 'x']), 1],
    ['not_in with a list', ev('v', 'not_in', ['Chrome', 'Safari']), 5],
    ['person property', { type: 'person', key: 'plan', operator: 'exact', value: 'pro' } as AnyPropertyFilter, 2],
    ['person is_not includes persons without it', { type: 'person', key: 'plan', operator: 'is_not', value: 'pro' } as AnyPropertyFilter, 5],
    ['event_metadata distinct_id', { type: 'event_metadata', key: 'distinct_id', operator: 'exact', value: 'd3' } as AnyPropertyFilter, 4],
    ['hogql', { type: 'hogql', key: "properties.v = 'Chrome' or properties.n = '5'" } as AnyPropertyFilter, 2],
  ])('%s', async (_n, f, expected) => {
    expect(await count([f])).toBe(expected);
  });
});

describe('groups', () => {
  it.each<[string, PropertiesInput, number]>([
    ['plain list is AND', [ev('v', 'icontains', 'chrome'), ev('n', 'gt', 50)], 1],
    ['OR of ANDs', { type: 'OR', values: [{ type: 'AND', values: [ev('v', 'exact', 'Chrome')] }, { type: 'AND', values: [ev('v', 'exact', 'Safari')] }] }, 2],
    ['AND with an OR inside', { type: 'AND', values: [ev('n', 'is_set'), { type: 'OR', values: [ev('v', 'exact', 'Chrome'), ev('v', 'is_not_set')] }] }, 1],
    ['empty group is TRUE', { type: 'AND', values: [{ type: 'OR', values: [] }] }, 7],
    ['event or person mixed', { type: 'OR', values: [ev('v', 'exact', '50%'), { type: 'person', key: 'plan', operator: 'exact', value: 'free' } as AnyPropertyFilter] }, 2],
  ])('%s', async (_n, props, expected) => {
    expect(await count(props)).toBe(expected);
  });
});

describe('schema', () => {
  it('a filter without type is an event property filter, operator exact (PostHog defaults)', async () => {
    const parsed = propertiesSchema.parse([{ key: 'v', value: 'Chrome' }]);
    expect(parsed).toEqual([{ key: 'v', value: 'Chrome', type: 'event' }]);
    expect(await count(parsed)).toBe(1);
    expect(propertiesSchema.safeParse([{ key: 'v', value: 'Chrome', type: 'nope' }]).success).toBe(false);
  });
});

describe('errors and test accounts', () => {
  it.each<[string, AnyPropertyFilter]>([
    ['in without a list', ev('v', 'in', 'x')],
    ['between with min > max', ev('n', 'between', [5, 1])],
    ['between with one value', ev('n', 'between', [5])],
    ['cohort filters', { type: 'cohort', key: 'id', value: 3 } as AnyPropertyFilter],
  ])('%s → 400', (_n, f) => {
    expect(() => propertyFilterToExpr(f)).toThrow(expect.objectContaining({ status: 400 }));
  });

  it('a group filter without group_type_index is incomplete: TRUE, as property_to_expr outside strict mode', () => {
    expect(propertyFilterToExpr({ type: 'group', key: 'x', value: 'a' } as AnyPropertyFilter)).toEqual(ast.constant(true));
  });

  it('group filters on persons (cohort criteria) → 400', () => {
    const f = { type: 'group', key: 'x', group_type_index: 0, value: 'a' } as AnyPropertyFilter;
    expect(() => propertyFilterToExpr(f, { personTable: true })).toThrow(expect.objectContaining({ status: 400 }));
  });

  it('test-account filters apply only when enabled, and skip malformed entries', async () => {
    const project = { test_account_filters: [{ type: 'person', key: 'plan', operator: 'is_not', value: 'pro' }, { nonsense: true }] };
    expect(testAccountFiltersExpr(project, false)).toBeUndefined();
    const q = ast.select({ select: [ast.alias('c', ast.call('count', []))], from: 'events', where: testAccountFiltersExpr(project, true) });
    const { rows } = await runInsightQuery(db.ctx(1), q);
    expect(Number(rows[0].c)).toBe(5);
  });
});
