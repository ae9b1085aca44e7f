/**
 * Property filters, groups and session properties across insights: the third batch of scenarios from PostHog's
 * suites, each through a real query (TrendsQuery, or a ProductQL select over `events` with the filter as WHERE):
 * - posthog/hogql/property.py `property_to_expr`: an empty list value returns `Constant(1)` before the operator is
 *   looked at, so `is_set` / `is_not_set` with `[]` are no filter either;
 * - the project's default test-account filter (posthog/models/team/team.py: `$host` not_regex
 *   `^(localhost|127\.0\.0\.1)($|:)`) with filterTestAccounts, alone and with a person filter;
 * - test_trends.py `test_trend_breakdown_user_props_with_filter_with_partial_property_pushdowns` (nested AND/OR groups
 *   of person and event filters, a person breakdown) and `test_breakdown_filtering_with_properties_in_new_format`
 *   (an OR group with a series filter and a breakdown; a disjoint AND group gives `results: []`);
 * - test_property.py `test_property_to_expr_group` with list values and the other operators on a group property;
 *   person properties that are JSON booleans (`test_property_to_expr_person` with "true"/"false");
 * - session `$channel_type` filters (reference §10 sessions fields), element `href` filters with the
 *   icontains / regex operators of element_chain_key_filter.
 * property-filters-posthog-compat-3.clickhouse.test.ts runs this file on ClickHouse with the same expectations.
 */
import * as ast from '../../productql/ast';
import { shutdownParser } from '../../productql';
import type { GroupTypeUpsert, GroupUpsert, InternalStatements } from '../../engines/engine';
import { runInsightQuery } from './execute';
import { ensureFilterParser, propertiesToExpr } from './property-filters';
import { propertiesSchema } from './schema';
import { BREAKDOWN_NULL } from './breakdown';
import { createInsightTestDb, type InsightTestDb } from './testing';
import { trendsRunner } from '../runners/trends-runner';
import { funnelsRunner } from '../runners/funnels-runner';
import { stickinessRunner } from '../runners/stickiness-runner';
import { lifecycleRunner } from '../runners/lifecycle-runner';
import { retentionRunner } from '../runners/retention-runner';

let db: InsightTestDb;
const P = 1;

/*
 * Persons: p1 test@posthog.com (paying: true, age 25), p2 test@gmail.com (paying: false, age "40"), p3 other@gmail.com
 * (age 31), p4 without email.
 * Organizations (group type 0): org:a finance / 50 employees, org:b technology / 500, org:c Fintech.
 * Events ("sign up", 2020-01-02, `properties.i` = index):
 */
const EVENTS: { distinct_id: string; properties: Record<string, unknown> }[] = [
  // 0
  {
    distinct_id: 'p1',
    properties: {
      $browser: 'Safari', $os: 'Mac', $host: 'localhost:8000', $group_0: 'org:a', $session_id: 's1', $referring_domain: '$direct',
      $elements_chain: 'a.nav:href="/Pricing/plans"nth-child="1"nth-of-type="1"text="Plans";div:nth-child="1"nth-of-type="1"',
    },
  },
  // 1
  { distinct_id: 'p1', properties: { $browser: 'Chrome', $os: 'Mac', $host: 'app.posthog.com', $group_0: 'org:b', $session_id: 's2', gclid: 'abc', $referring_domain: 'www.google.com' } },
  // 2
  { distinct_id: 'p2', properties: { $browser: 'Safari', $os: 'Windows', $host: '127.0.0.1', $group_0: 'org:c', $session_id: 's3', $referring_domain: 'www.google.com' } },
  // 3
  { distinct_id: 'p2', properties: { $browser: 'Chrome', $os: 'Mac', $host: 'localhost', $group_0: 'org:a', $elements_chain: 'button.btn:attr__data-id="123"attr__href="/signup"href="/signup"nth-child="1"nth-of-type="1"text="Sign up"' } },
  // 4
  { distinct_id: 'p3', properties: { $browser: 'Firefox', $os: 'Mac', $host: 'mylocalhost.com' } },
  // 5
  { distinct_id: 'p3', properties: { $browser: 'Chrome', $os: 'Windows', $group_0: 'org:b' } },
  // 6: 127.0.0.1 followed by neither ":" nor the end is no local host
  { distinct_id: 'p4', properties: { $browser: 'Chrome', $os: 'Mac', $host: '127.0.0.1.example.com' } },
];
const ALL = EVENTS.map((_, i) => i);

beforeAll(async () => {
  db = await createInsightTestDb();
  await ensureFilterParser();
  const groupTypes: GroupTypeUpsert[] = [{ project_id: P, group_type: 'organization', group_type_index: 0, name_singular: null, name_plural: null }];
  const groups: GroupUpsert[] = [
    { key: 'org:a', properties: { industry: 'finance', employees: 50 } },
    { key: 'org:b', properties: { industry: 'technology', employees: 500 } },
    { key: 'org:c', properties: { industry: 'Fintech' } },
  ].map((g) => ({ project_id: P, group_type_index: 0, group_key: g.key, created_at: Date.parse('2020-01-01T00:00:00Z'), properties: g.properties, version: 1 }));
  await (db.engine as unknown as InternalStatements).writeBatch({ events: [], groupTypes, groups });
  await db.load(P, {
    persons: [
      { distinct_ids: ['p1'], properties: { email: 'test@posthog.com', paying: true, age: 25 } },
      { distinct_ids: ['p2'], properties: { email: 'test@gmail.com', paying: false, age: '40' } },
      { distinct_ids: ['p3'], properties: { email: 'other@gmail.com', age: 31 } },
      { distinct_ids: ['p4'], properties: {} },
    ],
    events: EVENTS.map((e, i) => ({ event: 'sign up', distinct_id: e.distinct_id, timestamp: `2020-01-02T1${i}:00:00Z`, properties: { ...e.properties, i } })),
  });
});
afterAll(async () => {
  await db.close();
  await shutdownParser();
});

/** Indexes (`properties.i`) of the events matching `props`. */
const matching = async (props: unknown): Promise<number[]> => {
  const q = ast.select({ select: [ast.alias('i', ast.field('properties', 'i'))], from: 'events', where: propertiesToExpr(propertiesSchema.parse(props)) });
  const { rows } = await runInsightQuery(db.ctx(P), q);
  return rows.map((r) => Number(r.i)).sort((a, b) => a - b);
};
const ev = (key: string, operator: string, value?: unknown) => ({ type: 'event', key, operator, ...(value !== undefined ? { value } : {}) });
const trends = (q: Record<string, unknown>, project: Record<string, unknown> = {}) =>
  db.run(trendsRunner, { kind: 'TrendsQuery', dateRange: { date_from: '2020-01-01', date_to: '2020-01-03' }, series: [{ kind: 'EventsNode', event: 'sign up' }], ...q }, P, project);

describe('property_to_expr: an empty list value is no filter, whatever the operator', () => {
  it.each<[string, unknown, number[]]>([
    ['is_set with []', ev('$host', 'is_set', []), ALL],
    ['is_not_set with []', ev('$host', 'is_not_set', []), ALL],
    ['is_set with a value list is is_set (an OR of the same condition)', ev('$host', 'is_set', ['a', 'b']), [0, 1, 2, 3, 4, 6]],
    ['is_not_set with a value list', ev('$host', 'is_not_set', ['a', 'b']), [5]],
    ['a person filter with []', { type: 'person', key: 'email', operator: 'is_set', value: [] }, ALL],
    ['a group filter with []', { type: 'group', group_type_index: 0, key: 'industry', operator: 'is_not_set', value: [] }, ALL],
  ])('%s', async (_n, f, expected) => {
    expect(await matching([f])).toEqual(expected);
  });
});

describe("filterTestAccounts with PostHog's default test-account filters (team.py)", () => {
  const HOST = { key: '$host', operator: 'not_regex', value: '^(localhost|127\\.0\\.0\\.1)($|:)', type: 'event' };
  const EMAIL = { key: 'email', operator: 'not_icontains', value: '@posthog.com', type: 'person' };

  it('$host not_regex leaves out localhost, localhost:8000 and 127.0.0.1; events without $host stay', async () => {
    const on = await trends({ filterTestAccounts: true }, { test_account_filters: [HOST] });
    expect(on.results[0].count).toBe(4);
    expect((await trends({ filterTestAccounts: false }, { test_account_filters: [HOST] })).results[0].count).toBe(7);
  });

  it('with the email filter too (the two are ANDed; a person without email stays)', async () => {
    const r = await trends({ filterTestAccounts: true }, { test_account_filters: [HOST, EMAIL] });
    expect(r.results[0].count).toBe(3);
  });
});

describe('property groups in trends (test_trends.py)', () => {
  it('test_trend_breakdown_user_props_with_filter_with_partial_property_pushdowns: nested AND/OR, a person breakdown', async () => {
    const r = await trends({
      breakdownFilter: { breakdown_type: 'person', breakdown: 'email' },
      properties: {
        type: 'AND',
        values: [
          { type: 'OR', values: [{ key: 'email', type: 'person', value: '@posthog.com', operator: 'not_icontains' }, { key: '$browser', type: 'event', value: 'Safari', operator: 'exact' }] },
          { type: 'AND', values: [{ key: '$os', type: 'event', value: 'Mac', operator: 'exact' }, { key: '$browser', type: 'event', value: 'Chrome', operator: 'exact' }] },
        ],
      },
    });
    // Mac + Chrome: events 1 (p1, a posthog.com email: out), 3 (p2) and 6 (p4, no email: not_icontains passes)
    const counts = Object.fromEntries(r.results.map((x: { breakdown_value: string; count: number }) => [x.breakdown_value, x.count]));
    expect(counts).toEqual({ 'test@gmail.com': 1, [BREAKDOWN_NULL]: 1 });
  });

  it('test_breakdown_filtering_with_properties_in_new_format: an OR group with a series filter and a breakdown', async () => {
    const series = [{ kind: 'EventsNode', event: 'sign up', properties: [{ key: '$os', value: 'Mac' }] }];
    const or = await trends({
      series,
      breakdownFilter: { breakdown: '$browser' },
      properties: { type: 'OR', values: [{ key: '$browser', value: 'Firefox' }, { key: '$os', value: 'Windows' }] },
    });
    expect(or.results.map((x: { label: string; count: number }) => [x.label, x.count])).toEqual([['Firefox', 1]]);
    // "AND filter properties with disjoint set means results should be empty"
    const and = await trends({
      series,
      breakdownFilter: { breakdown: '$browser' },
      properties: { type: 'AND', values: [{ key: '$browser', value: 'Firefox' }, { key: '$os', value: 'Windows' }] },
    });
    expect(and.results).toEqual([]);
  });
});

describe('test_property_to_expr_group: list values and the other operators on a group property', () => {
  const group = (key: string, operator: string, value?: unknown) => ({ type: 'group', group_type_index: 0, key, operator, ...(value !== undefined ? { value } : {}) });
  it.each<[string, unknown, number[]]>([
    ['exact with a list → IN', group('industry', 'exact', ['finance', 'technology']), [0, 1, 3, 5]],
    ['is_not with a list → NOT IN: events without a group pass', group('industry', 'is_not', ['finance', 'technology']), [2, 4, 6]],
    ['icontains is case-insensitive', group('industry', 'icontains', 'FIN'), [0, 2, 3]],
    ['regex', group('industry', 'regex', '^tech'), [1, 5]],
    ['gt compares a number numerically', group('employees', 'gt', 100), [1, 5]],
    ['lt: a group without the property fails', group('employees', 'lt', '100'), [0, 3]],
    ['is_not_set: events without a group and groups without the property', group('employees', 'is_not_set'), [2, 4, 6]],
  ])('%s', async (_n, f, expected) => {
    expect(await matching([f])).toEqual(expected);
  });
});

describe('person properties that are JSON booleans read as "true" / "false"', () => {
  const person = (operator: string, value?: unknown) => ({ type: 'person', key: 'paying', operator, ...(value !== undefined ? { value } : {}) });
  it.each<[string, unknown, number[]]>([
    ['exact "true"', person('exact', 'true'), [0, 1]],
    ['exact true', person('exact', true), [0, 1]],
    ['exact ["false"]', person('exact', ['false']), [2, 3]],
    ['is_not "true": persons without the property pass', person('is_not', 'true'), [2, 3, 4, 5, 6]],
    ['false is set', person('is_set'), [0, 1, 2, 3]],
    ['icontains reads the boolean as its text', person('icontains', 'TRU'), [0, 1]],
  ])('%s', async (_n, f, expected) => {
    expect(await matching([f])).toEqual(expected);
  });
});

describe('numeric person properties (a number, or numeric text) compare as numbers', () => {
  const age = (operator: string, value: unknown) => ({ type: 'person', key: 'age', operator, value });
  it.each<[string, unknown, number[]]>([
    ['gt 30', age('gt', 30), [2, 3, 4, 5]],
    ['lt "30"', age('lt', '30'), [0, 1]],
    ['gte 31', age('gte', 31), [2, 3, 4, 5]],
    ['between [25, 35]', age('between', [25, 35]), [0, 1, 4, 5]],
    ['not_between [25, 35]: persons without the property fail', age('not_between', [25, 35]), [2, 3]],
  ])('%s', async (_n, f, expected) => {
    expect(await matching([f])).toEqual(expected);
  });
});

describe('session $channel_type filters (the entry properties of the session)', () => {
  const channel = (operator: string, value: unknown) => ({ type: 'session', key: '$channel_type', operator, value });
  it.each<[string, unknown, number]>([
    ['Direct ($referring_domain $direct)', channel('exact', 'Direct'), 1],
    ['Paid Search (a gclid)', channel('exact', 'Paid Search'), 1],
    ['Organic Search (a search engine referrer)', channel('exact', 'Organic Search'), 1],
    ['a list is IN', channel('exact', ['Direct', 'Paid Search']), 2],
    ['is_not: events without a session pass', channel('is_not', 'Direct'), 6],
    ['$entry_referring_domain exact', { type: 'session', key: '$entry_referring_domain', operator: 'exact', value: 'www.google.com' }, 2],
    ['$entry_referring_domain icontains', { type: 'session', key: '$entry_referring_domain', operator: 'icontains', value: 'GOOGLE' }, 2],
    ['$entry_referring_domain is_not_set: the events without a session', { type: 'session', key: '$entry_referring_domain', operator: 'is_not_set' }, 4],
    ['$entry_gclid is_set', { type: 'session', key: '$entry_gclid', operator: 'is_set' }, 1],
    ['a hogql filter reading the session (test_property_to_expr_hogql)', { type: 'hogql', key: "session.$channel_type = 'Organic Search'" }, 1],
    ['a hogql filter reading a session field with a function', { type: 'hogql', key: "lower(session.$entry_referring_domain) like '%google%'" }, 2],
  ])('%s', async (_n, f, count) => {
    expect((await trends({ properties: [f] })).results[0].count).toBe(count);
  });
});

describe('element href filters with the operators of element_chain_key_filter', () => {
  const href = (operator: string, value?: unknown) => ({ type: 'element', key: 'href', operator, ...(value !== undefined ? { value } : {}) });
  it.each<[string, unknown, number[]]>([
    ['icontains is case-insensitive', href('icontains', 'pricing'), [0]],
    ['not_icontains: events without a chain pass', href('not_icontains', 'pricing'), [1, 2, 3, 4, 5, 6]],
    ['regex', href('regex', '/Pricing/.*'), [0]],
    ['regex is case-sensitive', href('regex', '/pricing/.*'), []],
    // the pattern goes inside `(href="…")`, so a `^` there anchors nothing and matches no element
    ['a regex starting with ^ matches nothing', href('regex', '^/Pricing/'), []],
    ['not_regex', href('not_regex', '/sign.*'), [0, 1, 2, 4, 5, 6]],
    ['icontains list → OR', href('icontains', ['PLANS', 'SIGNUP']), [0, 3]],
    ['is_not list → AND (NEGATED_OPERATORS)', href('is_not', ['/Pricing/plans', '/signup']), [1, 2, 4, 5, 6]],
    ['exact list → OR', href('exact', ['/Pricing/plans', '/signup']), [0, 3]],
  ])('%s', async (_n, f, expected) => {
    expect(await matching([f])).toEqual(expected);
  });
});

describe('filter fields that do not change what matches', () => {
  it('a `label` on a filter is accepted and changes nothing (allowed on every filter type)', async () => {
    expect(await matching([{ ...ev('$browser', 'exact', 'Chrome'), label: 'Browser' }])).toEqual([1, 3, 5, 6]);
    expect(await matching([{ type: 'person', key: 'email', operator: 'icontains', value: 'gmail', label: 'Gmail users' }])).toEqual([2, 3, 4, 5]);
  });

  it('operator null is exact (property_to_expr: `property.operator or PropertyOperator.EXACT`)', async () => {
    expect(await matching([{ type: 'event', key: '$browser', value: 'Chrome', operator: null }])).toEqual([1, 3, 5, 6]);
  });

  it('an empty group inside an OR is TRUE (Constant(1)), so the OR matches everything', async () => {
    expect(await matching({ type: 'OR', values: [{ type: 'AND', values: [] }, ev('$browser', 'exact', 'Chrome')] })).toEqual(ALL);
    expect(await matching({ type: 'AND', values: [{ type: 'OR', values: [] }, ev('$browser', 'exact', 'Chrome')] })).toEqual([1, 3, 5, 6]);
  });

  it('a hogql filter ignores its value', async () => {
    expect(await matching([{ type: 'hogql', key: "properties.$browser = 'Chrome'", value: 'Safari' }])).toEqual([1, 3, 5, 6]);
  });
});

describe('filterTestAccounts with other stored filters', () => {
  it('a project without test-account filters: filterTestAccounts filters nothing', async () => {
    expect((await trends({ filterTestAccounts: true }, { test_account_filters: [] })).results[0].count).toBe(7);
  });

  it('a hogql test-account filter', async () => {
    const project = { test_account_filters: [{ type: 'hogql', key: "person.properties.email not like '%@posthog.com'" }] };
    // p1's events are out; p4 has no email: HogQL prints a nullable `not like` as ifNull(notLike(…), 1), so it stays
    expect((await trends({ filterTestAccounts: true }, project)).results[0].count).toBe(5);
  });
});

describe('selectors (posthog/models/property/util SelectorPart)', () => {
  const selector = (value: unknown, operator = 'exact') => ({ type: 'element', key: 'selector', operator, value });
  it.each<[string, unknown, number[]]>([
    ['an attribute in double quotes', selector('[data-id="123"]'), [3]],
    ["an attribute in single quotes (the part's regex takes ' or \")", selector("[data-id='123']"), [3]],
    ['a tag with a single-quoted attribute', selector("button[data-id='123']"), [3]],
    ['another value of the attribute', selector("[data-id='12']"), []],
    ['a class and a direct parent', selector('div > a.nav'), [0]],
    ['an href attribute (attr__href in the chain)', selector("[href='/signup']"), [3]],
    ['a class with nth-child', selector('button.btn:nth-child(1)'), [3]],
    ['nth-child the element does not have', selector('button.btn:nth-child(2)'), []],
    ['a list is OR', selector(['a.nav', "[data-id='123']"]), [0, 3]],
  ])('%s', async (_n, f, expected) => {
    expect(await matching([f])).toEqual(expected);
  });
});

describe('regex filters are RE2 (ClickHouse match)', () => {
  it.each<[string, unknown, number[]]>([
    ['(?i) makes it case-insensitive', ev('$browser', 'regex', '(?i)^chrome$'), [1, 3, 5, 6]],
    ['\\d and escaped dots', ev('$host', 'regex', '^127\\.0\\.0\\.\\d$'), [2]],
    ['an unanchored regex matches anywhere', ev('$host', 'regex', 'local'), [0, 3, 4]],
  ])('%s', async (_n, f, expected) => {
    expect(await matching([f])).toEqual(expected);
  });
});

describe('property groups in the other insights', () => {
  const RANGE = { date_from: '2020-01-01', date_to: '2020-01-03' };
  // OR: p2's and p3's events (gmail addresses) and the Firefox event (p3's too)
  const GROUP = { type: 'OR', values: [{ type: 'person', key: 'email', operator: 'icontains', value: 'gmail' }, { type: 'event', key: '$browser', value: 'Firefox' }] };

  it('a funnel: the group applies to every step, with each step’s own filters', async () => {
    const steps = [
      { kind: 'EventsNode', event: 'sign up', properties: [{ key: '$browser', value: 'Safari' }] },
      { kind: 'EventsNode', event: 'sign up', properties: [{ key: '$os', value: 'Mac' }] },
    ];
    const counts = async (q: Record<string, unknown>) =>
      ((await db.run(funnelsRunner, { kind: 'FunnelsQuery', series: steps, dateRange: RANGE, ...q }, P)).results as { count: number }[]).map((x) => x.count);
    // p1 (Safari 10:00, then Mac 11:00) and p2 (Safari 12:00, then Mac 13:00)
    expect(await counts({})).toEqual([2, 2]);
    expect(await counts({ properties: GROUP })).toEqual([1, 1]);
  });

  it('lifecycle: the group picks p2 and p3, active on 2020-01-02 and dormant the day after', async () => {
    const r = await db.run(lifecycleRunner, { kind: 'LifecycleQuery', dateRange: RANGE, series: [{ kind: 'EventsNode', event: 'sign up' }], properties: GROUP }, P);
    const byStatus: Record<string, number[]> = Object.fromEntries(r.results.map((x: { status: string; data: number[] }) => [x.status, x.data]));
    // (new or resurrecting by the persons' created_at, which the import sets)
    expect(byStatus.new.map((n, i) => n + byStatus.resurrecting[i] + byStatus.returning[i])).toEqual([0, 2, 0]);
    expect(byStatus.dormant).toEqual([0, 0, -2]);
  });

  it('retention: the group and the test-account filters pick who is counted', async () => {
    const node = {
      kind: 'RetentionQuery',
      dateRange: { date_from: '2020-01-02', date_to: '2020-01-04' },
      retentionFilter: { period: 'Day', totalIntervals: 3, targetEntity: { id: 'sign up', type: 'events' }, returningEntity: { id: 'sign up', type: 'events' } },
    };
    const first = async (q: Record<string, unknown>, project: Record<string, unknown> = {}) =>
      (await db.run(retentionRunner, { ...node, ...q }, P, project)).results[0].values[0].count;
    expect(await first({})).toBe(4);
    expect(await first({ properties: GROUP })).toBe(2);
    const project = { test_account_filters: [{ key: 'email', type: 'person', operator: 'not_icontains', value: '@gmail.com' }] };
    // p1 (posthog.com) and p4 (no email) stay
    expect(await first({ filterTestAccounts: true }, project)).toBe(2);
  });

  it('stickiness: p2 and p3 each on one day', async () => {
    const r = await db.run(stickinessRunner, { kind: 'StickinessQuery', dateRange: RANGE, series: [{ kind: 'EventsNode', event: 'sign up' }], properties: GROUP }, P);
    expect(r.results[0].data).toEqual([2, 0, 0]);
  });
});
