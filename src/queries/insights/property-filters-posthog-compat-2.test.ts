/**
 * Property filters, action matching, groups and session properties across insights: the second batch of scenarios
 * from PostHog's suites, each through a real query (TrendsQuery, or a ProductQL select over `events` / `persons`):
 * - posthog/hogql/test/test_property.py: `test_property_to_expr_group` (group type indexes, `is_not_set` on a group),
 *   `test_property_to_expr_group_booleans`, `test_virtual_person_properties_on_{event,person}_scope` (`$virt_*`
 *   person keys), `test_property_to_expr_event` (`icontains` leaves `%` / `_` unescaped, `$elements_chain`);
 * - relative dates in `is_date_before` / `is_date_after` under a frozen clock (PostHog's tests freeze time for them);
 * - ee/clickhouse/models/test/test_property.py `test_prop_filter_json_extract`: the RFC 822 and day-first date formats
 *   (parseDateTimeBestEffort's reading) left out of the first batch;
 * - posthog/hogql_queries/insights/trends/test/test_trends.py: `test_filtering_with_action_props`,
 *   `test_filtering_by_multiple_groups_person_on_events`, property groups mixed with test-account filters, a stored
 *   test-account filter without `type`;
 * - group properties inside saved actions' steps; test_action.py's autocapture steps on `$elements` as posthog-js sends
 *   them (`test_attributes`, `test_with_class`, `test_with_normal_filters`).
 * property-filters-posthog-compat-2.clickhouse.test.ts runs this file on ClickHouse with the same expectations.
 */
import * as ast from '../../productql/ast';
import { shutdownParser } from '../../productql';
import type { GroupTypeUpsert, GroupUpsert, InternalStatements } from '../../engines/engine';
import { runInsightQuery } from './execute';
import { ensureFilterParser, propertiesToExpr } from './property-filters';
import { propertiesSchema } from './schema';
import { actionRegistry, createInsightTestDb, modelActionStep as step, type InsightTestDb, useInsightsClock } from './testing';
import { trendsRunner } from '../runners/trends-runner';
import { stickinessRunner } from '../runners/stickiness-runner';

let db: InsightTestDb;
const freeze = useInsightsClock();
const registry = actionRegistry(900);

/** Project 1: one event per row below (`properties.i` is its index), by the persons below; now = 2022-05-01 12:00 UTC. */
const P = 1;
/** Project 2: test_trends.py fixtures with groups (organization = 0, company = 2). */
const G = 2;

const NOW = '2022-05-01T12:00:00Z';
const EVENTS: { distinct_id: string; properties: Record<string, unknown> }[] = [
  { distinct_id: 'u1', properties: { d: '2022-04-30', name: 'test' } },
  { distinct_id: 'u1', properties: { d: '2022-04-30 20:00:00', name: 'te_t' } },
  { distinct_id: 'u2', properties: { d: '2022-05-01 11:00:00', name: 'tent' } },
  { distinct_id: 'u2', properties: { d: '2022-03-01', name: '50% off' } },
  { distinct_id: 'u3', properties: { d: '2021-04-01', name: '50 off', $elements_chain: 'button.btn:nth-child="1"nth-of-type="1"text="Buy";div:nth-child="1"nth-of-type="1"' } },
  { distinct_id: 'u4', properties: { $elements_chain: 'a:href="/x"nth-child="1"nth-of-type="1"', 'a.b': 'dotted', a: { b: 'nested' }, "it's": 'quoted' } },
];
const ALL = EVENTS.map((_, i) => i);

/** test_trends.py `_create_groups()` plus the companies of test_filtering_by_multiple_groups_person_on_events. */
const GROUPS: { index: number; key: string; properties: Record<string, unknown> }[] = [
  { index: 0, key: 'org:5', properties: { industry: 'finance', paying: true } },
  { index: 0, key: 'org:6', properties: { industry: 'technology', paying: false } },
  { index: 0, key: 'org:7', properties: { industry: 'finance' } },
  { index: 2, key: 'company:1', properties: { name: 'five' } },
  { index: 2, key: 'company:2', properties: { name: 'six' } },
];

beforeAll(async () => {
  db = await createInsightTestDb();
  await ensureFilterParser();
  db.actions = registry.source;
  freeze(NOW);
  await db.load(P, {
    persons: [
      // $initial_* as ingestion sets them from a person's first event (src/ingest/person-initial-properties.ts)
      { distinct_ids: ['u1'], properties: { email: 'u1@posthog.com', signed_up: '2022-04-25', $initial_utm_source: 'google', $initial_utm_medium: 'cpc', $initial_referring_domain: 'www.google.com' } },
      { distinct_ids: ['u2'], properties: { email: 'u2@example.com', signed_up: '25/03/2022 10:00:00', $initial_referring_domain: '$direct' } },
      { distinct_ids: ['u3'], properties: { email: 'u3@example.com', $initial_referring_domain: 'www.google.com' } },
      { distinct_ids: ['u4'], properties: { email: 'u4@example.com', $initial_referring_domain: 'example.org', $initial_fbclid: 'abc' } },
    ],
    events: EVENTS.map((e, i) => ({ event: 'e', distinct_id: e.distinct_id, timestamp: `2022-04-2${i}T10:00:00Z`, properties: { ...e.properties, i } })),
  });

  const groupTypes: GroupTypeUpsert[] = [
    { project_id: G, group_type: 'organization', group_type_index: 0, name_singular: null, name_plural: null },
    { project_id: G, group_type: 'company', group_type_index: 2, name_singular: null, name_plural: null },
  ];
  const groups: GroupUpsert[] = GROUPS.map((g) => ({
    project_id: G,
    group_type_index: g.index,
    group_key: g.key,
    created_at: Date.parse('2020-01-01T00:00:00Z'),
    properties: g.properties,
    version: 1,
  }));
  await (db.engine as unknown as InternalStatements).writeBatch({ events: [], groupTypes, groups });
  const signUp = (distinct_id: string, timestamp: string, properties: Record<string, unknown>) => ({ event: 'sign up', distinct_id, timestamp, properties });
  await db.load(G, {
    persons: [
      { distinct_ids: ['person1'], properties: { email: 'one@posthog.com' } },
      { distinct_ids: ['person2'], properties: { email: 'two@example.com' } },
      { distinct_ids: ['person3'], properties: {} },
    ],
    events: [
      // test_filtering_by_multiple_groups_person_on_events
      signUp('person1', '2020-01-02T12:00:00Z', { $group_0: 'org:5', $group_2: 'company:1' }),
      signUp('person1', '2020-01-02T12:30:00Z', { $group_2: 'company:1' }),
      signUp('person1', '2020-01-02T13:00:00Z', { $group_0: 'org:6' }),
      signUp('person1', '2020-01-03T15:00:00Z', { $group_2: 'company:2' }),
      signUp('person2', '2020-01-02T14:00:00Z', { $group_0: 'org:6' }),
      signUp('person3', '2020-01-02T15:00:00Z', { $group_0: 'org:5', $group_2: 'company:2' }),
      signUp('person3', '2020-01-04T12:00:00Z', { $group_0: 'org:7', $group_2: 'company:2' }),
      // test_filtering_with_action_props
      { event: 'sign up', distinct_id: 'person1', timestamp: '2020-01-05T10:00:00Z', properties: { key: 'val', $current_url: '/some/page' } },
      { event: 'sign up', distinct_id: 'person2', timestamp: '2020-01-05T10:00:00Z', properties: { key: 'val', $current_url: '/some/page' } },
      { event: 'sign up', distinct_id: 'person3', timestamp: '2020-01-05T10:00:00Z', properties: { key: 'val', $current_url: '/another/page' } },
      { event: 'sign up', distinct_id: 'person3', timestamp: '2020-01-05T11:00:00Z', properties: { key: 'other', $current_url: '/some/page' } },
    ],
  });
});
afterAll(async () => {
  await db.close();
  await shutdownParser();
});

/** Indexes (`properties.i`) of project 1's events matching `props`. */
const matching = async (props: unknown): Promise<number[]> => {
  const q = ast.select({ select: [ast.alias('i', ast.field('properties', 'i'))], from: 'events', where: propertiesToExpr(propertiesSchema.parse(props)) });
  const { rows } = await runInsightQuery(db.ctx(P), q);
  return rows.map((r) => Number(r.i)).sort((a, b) => a - b);
};
const ev = (key: string, operator: string, value?: unknown) => ({ type: 'event', key, operator, ...(value !== undefined ? { value } : {}) });

describe('relative dates in is_date_before / is_date_after, under a frozen clock (now = 2022-05-01 12:00 UTC)', () => {
  it.each<[string, unknown, number[]]>([
    // -18h = 2022-04-30 18:00 (hours are not truncated)
    ['-18h before: the day 2022-04-30 (its midnight) is before', ev('d', 'is_date_before', '-18h'), [0, 3, 4]],
    ['-18h after: 20:00 on Apr 30 and 11:00 on May 1', ev('d', 'is_date_after', '-18h'), [1, 2]],
    ['-6h (2022-05-01 06:00) before', ev('d', 'is_date_before', '-6h'), [0, 1, 3, 4]],
    ['-2w before (2022-04-17)', ev('d', 'is_date_before', '-2w'), [3, 4]],
    ['-1m after (2022-04-01)', ev('d', 'is_date_after', '-1m'), [0, 1, 2]],
    ['-1y before (2021-05-01)', ev('d', 'is_date_before', '-1y'), [4]],
    ['-1y after', ev('d', 'is_date_after', '-1y'), [0, 1, 2, 3]],
    ['events without the property match neither', ev('d', 'is_date_after', '-10y'), [0, 1, 2, 3, 4]],
    ['dStart (today, 00:00) after', ev('d', 'is_date_after', 'dStart'), [2]],
    ['-1dStart (2022-04-30 00:00) after: midnight itself is not after', ev('d', 'is_date_after', '-1dStart'), [1, 2]],
    ['-1mStart (2022-04-01 00:00) before', ev('d', 'is_date_before', '-1mStart'), [3, 4]],
    ['-1dEnd (2022-04-30 23:59:59) after', ev('d', 'is_date_after', '-1dEnd'), [2]],
    ['a relative value with is_date_exact: -1dStart is 2022-04-30 00:00', ev('d', 'is_date_exact', '-1dStart'), [0]],
    // test_property_to_expr_person with a date operator: the person's property, parsed the same way
    ['a person property after -30d (2022-04-01 12:00)', { type: 'person', key: 'signed_up', operator: 'is_date_after', value: '-30d' }, [0, 1]],
    ['a person property (day first) before -30d', { type: 'person', key: 'signed_up', operator: 'is_date_before', value: '-30d' }, [2, 3]],
    ['a person property before -2w (2022-04-17 12:00)', { type: 'person', key: 'signed_up', operator: 'is_date_before', value: '-2w' }, [2, 3]],
    // the event timestamp (event_metadata) with relative values: the events are at 10:00 UTC on 2022-04-20 … 2022-04-25
    ['event timestamp after -7d (2022-04-24 12:00; days are not truncated)', { type: 'event_metadata', key: 'timestamp', operator: 'is_date_after', value: '-7d' }, [5]],
    ['event timestamp before -10d (2022-04-21 12:00)', { type: 'event_metadata', key: 'timestamp', operator: 'is_date_before', value: '-10d' }, [0, 1]],
    ['event timestamp after -240h', { type: 'event_metadata', key: 'timestamp', operator: 'is_date_after', value: '-240h' }, [2, 3, 4, 5]],
    ['event timestamp after -10dStart (2022-04-21 00:00)', { type: 'event_metadata', key: 'timestamp', operator: 'is_date_after', value: '-10dStart' }, [1, 2, 3, 4, 5]],
    ['event timestamp after -2w', { type: 'event_metadata', key: 'timestamp', operator: 'is_date_after', value: '-2w' }, ALL],
    ['event timestamp before -1m (2022-04-01 12:00; m is months)', { type: 'event_metadata', key: 'timestamp', operator: 'is_date_before', value: '-1m' }, []],
  ])('%s', async (_n, f, expected) => {
    expect(await matching([f])).toEqual(expected);
  });
});

describe('test_property_to_expr_event: icontains leaves % and _ unescaped (ILIKE wildcards)', () => {
  it.each<[string, unknown, number[]]>([
    ['`_` is any one character', ev('name', 'icontains', 'te_t'), [0, 1, 2]],
    ['`%` is any run of characters', ev('name', 'icontains', '50%off'), [3, 4]],
    ['not_icontains with `_`: the others, the events without the property included', ev('name', 'not_icontains', 'te_t'), [3, 4, 5]],
    ['exact is no pattern', ev('name', 'exact', 'te_t'), [1]],
    ['gt with a text value compares text', ev('name', 'gt', 'tent'), [0]],
    ['lte with a text value compares text (events without the property fail)', ev('name', 'lte', 'te_t'), [1, 3, 4]],
  ])('%s', async (_n, f, expected) => {
    expect(await matching([f])).toEqual(expected);
  });

  it('a key with a dot is one key (not a path), a key with a quote is read as it is', async () => {
    expect(await matching([ev('a.b', 'exact', 'dotted')])).toEqual([5]);
    expect(await matching([ev('a.b', 'exact', 'nested')])).toEqual([]);
    expect(await matching([ev("it's", 'icontains', 'QUOTED')])).toEqual([5]);
  });

  it('an event filter on $elements_chain reads the elements chain', async () => {
    expect(await matching([ev('$elements_chain', 'icontains', 'text="buy"')])).toEqual([4]);
    expect(await matching([ev('$elements_chain', 'regex', '^a:')])).toEqual([5]);
  });
});

describe('test_virtual_person_properties: $virt_initial_channel_type of a person (from their $initial_* properties)', () => {
  const person = (value: unknown, operator = 'exact') => ({ type: 'person', key: '$virt_initial_channel_type', operator, value });
  it.each<[string, unknown, number[]]>([
    ['on event scope: person.$virt_initial_channel_type', person('Paid Search'), [0, 1]],
    ['Direct', person('Direct'), [2, 3]],
    ['Organic Search', person('Organic Search'), [4]],
    ['an fbclid without a paid medium is Organic Social', person('Organic Social'), [5]],
    ['a list is IN', person(['Direct', 'Organic Search']), [2, 3, 4]],
    ['is_not', person('Direct', 'is_not'), [0, 1, 4, 5]],
  ])('%s', async (_n, f, expected) => {
    expect(await matching([f])).toEqual(expected);
  });

  it('on person scope (the persons table): $virt_initial_channel_type of the person itself', async () => {
    const q = ast.select({
      select: [ast.alias('email', ast.field('properties', 'email'))],
      from: 'persons',
      where: propertiesToExpr(propertiesSchema.parse([{ type: 'person', key: '$virt_initial_channel_type', value: 'Organic Search' }]), { personTable: true }),
    });
    expect((await runInsightQuery(db.ctx(P), q)).rows.map((r) => r.email)).toEqual(['u3@example.com']);
  });

  it('a $virt_* key PostHog’s persons table has no field for is a 400 naming it', () => {
    expect(() => propertiesToExpr(propertiesSchema.parse([{ type: 'person', key: '$virt_nope', value: 'x' }]))).toThrow(
      expect.objectContaining({ status: 400, message: expect.stringContaining('"$virt_nope"') }),
    );
  });

  it('a person breakdown by $virt_initial_channel_type (get_properties_chain: ["person", "$virt_…"])', async () => {
    const r = await db.run(trendsRunner, {
      kind: 'TrendsQuery',
      dateRange: { date_from: '2022-04-20', date_to: '2022-04-25' },
      series: [{ kind: 'EventsNode', event: 'e' }],
      breakdownFilter: { breakdown_type: 'person', breakdown: '$virt_initial_channel_type' },
    }, P);
    const counts = Object.fromEntries(r.results.map((x: { breakdown_value: string; count: number }) => [x.breakdown_value, x.count]));
    expect(counts).toEqual({ 'Paid Search': 2, Direct: 2, 'Organic Search': 1, 'Organic Social': 1 });
  });

  it('through trends: dau of the events of Direct persons', async () => {
    const r = await db.run(trendsRunner, {
      kind: 'TrendsQuery',
      dateRange: { date_from: '2022-04-20', date_to: '2022-04-25' },
      series: [{ kind: 'EventsNode', event: 'e', math: 'dau' }],
      properties: [{ type: 'person', key: '$virt_initial_channel_type', operator: 'exact', value: 'Direct' }],
    }, P);
    expect(r.results[0].data).toEqual([0, 0, 1, 1, 0, 0]);
  });
});

describe('groups (test_property.py test_property_to_expr_group*, test_trends.py)', () => {
  const RANGE = { date_from: '2020-01-01T00:00:00Z', date_to: '2020-01-05T00:00:00Z' };
  const trends = (q: Record<string, unknown>, project: Record<string, unknown> = {}) =>
    db.run(trendsRunner, { kind: 'TrendsQuery', dateRange: RANGE, series: [{ kind: 'EventsNode', event: 'sign up' }], ...q }, G, project);
  const group = (index: number, key: string, value?: unknown, operator = 'exact') => ({ type: 'group', group_type_index: index, key, operator, ...(value !== undefined ? { value } : {}) });

  it('test_filtering_by_multiple_groups_person_on_events: filters on two group types are ANDed', async () => {
    const r = await trends({ properties: [group(0, 'industry', 'finance'), group(2, 'name', 'six')] });
    expect(r.results[0].data).toEqual([0, 1, 0, 1, 0]);
    expect(r.results[0].count).toBe(2);
  });

  it.each<[string, unknown, number]>([
    ['group_0 exact', group(0, 'industry', 'technology'), 2],
    ['group_2 (another type index) exact', group(2, 'name', 'five'), 2],
    ['is_not_set on a group: events without the group, or whose group lacks the property', group(0, 'paying', undefined, 'is_not_set'), 7],
    ['is_set on a group', group(0, 'paying', undefined, 'is_set'), 4],
    ['test_property_to_expr_group_booleans: a JSON true reads as "true" (value ["true"])', group(0, 'paying', ['true']), 2],
    ['… and false as "false"', group(0, 'paying', 'false'), 2],
    ['a group type index no event carries matches nothing', group(1, 'industry', 'finance'), 0],
  ])('%s', async (_n, f, count) => {
    expect((await trends({ properties: [f] })).results[0].count).toBe(count);
  });

  it('test_property_to_expr_group: a group filter without group_type_index fails Property validation, which is the constant 1 outside strict mode: no filter', async () => {
    const all = (await trends({})).results[0].count;
    expect((await trends({ properties: [{ type: 'group', key: 'a', value: 'b' }] })).results[0].count).toBe(all);
  });

  it('an OR property group across a group property and a person property', async () => {
    const r = await trends({ properties: { type: 'OR', values: [group(2, 'name', 'six'), { type: 'person', key: 'email', operator: 'icontains', value: 'example.com' }] } });
    // company:2 events (person1 Jan 3, person3 Jan 2 and Jan 4) and person2's events (Jan 2, Jan 5)
    expect(r.results[0].data).toEqual([0, 2, 1, 1, 1]);
  });

  it('filterTestAccounts ANDs the project’s filters with a property group', async () => {
    const project = { test_account_filters: [{ key: 'email', type: 'person', operator: 'not_icontains', value: '@posthog.com' }] };
    const r = await trends({ filterTestAccounts: true, properties: { type: 'OR', values: [group(0, 'industry', 'finance'), group(2, 'name', 'six')] } }, project);
    // finance or six: person1 Jan 2 12:00 (org:5), person1 Jan 3 (company:2), person3 Jan 2 and Jan 4; person1 is a test account
    expect(r.results[0].data).toEqual([0, 1, 0, 1, 0]);
  });

  it('test_filter_test_accounts: a stored test-account filter without type is an event property filter', async () => {
    // PostHog reads the team's filters through Property(**filter), whose type defaults to "event"
    const project = { test_account_filters: [{ key: 'key', operator: 'is_not', value: 'val' }] };
    expect((await trends({ filterTestAccounts: true }, project)).results[0].count).toBe(8);
    expect((await trends({ filterTestAccounts: false }, project)).results[0].count).toBe(11);
  });

  it('a group property filter in an action step', async () => {
    const id = registry.action('Finance sign up', [step({ event: 'sign up', properties: [group(0, 'industry', 'finance')] })]);
    const r = await trends({ series: [{ kind: 'ActionsNode', id }] });
    expect(r.results[0].label).toBe('Finance sign up');
    expect(r.results[0].data).toEqual([0, 2, 0, 1, 0]);
  });
});

describe('test_trends.py test_filtering_with_group_props (_create_groups: org:5/org:7 finance, org:6 technology, company:10 finance)', () => {
  let t: number;
  beforeAll(async () => {
    const page = (properties: Record<string, unknown>) => ({ event: '$pageview', distinct_id: 'person1', timestamp: '2020-01-02T12:00:00Z', properties });
    t = await db.project(
      [{ distinct_ids: ['person1'], properties: { key: 'value' } }],
      [page({}), page({ $group_0: 'org:5' }), page({ $group_0: 'org:6' }), page({ $group_0: 'org:6', $group_1: 'company:10' })],
    );
    const groupTypes: GroupTypeUpsert[] = [
      { project_id: t, group_type: 'organization', group_type_index: 0, name_singular: null, name_plural: null },
      { project_id: t, group_type: 'company', group_type_index: 1, name_singular: null, name_plural: null },
    ];
    const groups: GroupUpsert[] = [
      [0, 'org:5', 'finance'],
      [0, 'org:6', 'technology'],
      [0, 'org:7', 'finance'],
      [1, 'company:10', 'finance'],
    ].map(([index, key, industry]) => ({ project_id: t, group_type_index: index as number, group_key: key as string, created_at: Date.parse('2020-01-01T00:00:00Z'), properties: { industry }, version: 1 }));
    await (db.engine as unknown as InternalStatements).writeBatch({ events: [], groupTypes, groups });
  });
  const count = async (properties: unknown) =>
    (await db.run(trendsRunner, { kind: 'TrendsQuery', dateRange: { date_from: '2020-01-01', date_to: '2020-01-12' }, series: [{ kind: 'EventsNode', event: '$pageview' }], properties }, t)).results[0].count;

  it('a group filter and a person filter: the org:5 event', async () => {
    expect(await count([{ key: 'industry', value: 'finance', type: 'group', group_type_index: 0 }, { key: 'key', value: 'value', type: 'person' }])).toBe(1);
  });
  it('test_filtering_with_group_props_event_with_no_group_data: is_not keeps the events without a group', async () => {
    expect(await count([{ key: 'industry', operator: 'is_not', value: 'textiles', type: 'group', group_type_index: 0 }, { key: 'key', value: 'value', type: 'person' }])).toBe(4);
  });
  it('a filter on group type 1: the company:10 event', async () => {
    expect(await count([{ key: 'industry', value: 'finance', type: 'group', group_type_index: 1 }])).toBe(1);
  });
});

describe('actions (test_trends.py, test_action.py)', () => {
  const RANGE = { date_from: '2020-01-01', date_to: '2020-01-05' };
  const trends = (series: unknown[], extra: Record<string, unknown> = {}) => db.run(trendsRunner, { kind: 'TrendsQuery', dateRange: RANGE, series, ...extra }, G);

  it('test_filtering_with_action_props: a step with a url and a property filter, dau', async () => {
    const id = registry.action('sign up', [step({ event: 'sign up', url: '/some/page', properties: [{ key: 'key', type: 'event', value: ['val'], operator: 'exact' }] })]);
    const r = await trends([{ kind: 'ActionsNode', id, math: 'dau' }]);
    expect(r.results[0].count).toBe(2);
    expect(r.results[0].data).toEqual([0, 0, 0, 0, 2]);
  });

  it('the steps of an action are ORed, each with its own filters; the series filters apply to all of them', async () => {
    const id = registry.action('two steps', [
      step({ event: 'sign up', url: '/another/page' }),
      step({ event: 'sign up', properties: [{ key: 'key', type: 'event', value: 'other', operator: 'exact' }] }),
    ]);
    expect((await trends([{ kind: 'ActionsNode', id }])).results[0].data).toEqual([0, 0, 0, 0, 2]);
    const filtered = await trends([{ kind: 'ActionsNode', id, properties: [{ key: '$current_url', type: 'event', operator: 'icontains', value: 'some' }] }]);
    expect(filtered.results[0].data).toEqual([0, 0, 0, 0, 1]);
  });

  it('a step with a url matching exact, and a person property filter', async () => {
    const id = registry.action('exact page', [
      step({ event: 'sign up', url: '/some/page', url_matching: 'exact', properties: [{ key: 'email', type: 'person', operator: 'is_set' }] }),
    ]);
    // person3 has no email: their /some/page event is out
    expect((await trends([{ kind: 'ActionsNode', id }])).results[0].data).toEqual([0, 0, 0, 0, 2]);
  });
});

describe('empty-string values (PostHog\'s non-materialized property read: "" is \'\', a missing key and JSON null are NULL)', () => {
  it.each<[string, unknown, number[]]>([
    ['exact "" where no event has ""', ev('name', 'exact', ''), []],
    ['is_not "": every event, those without the property included', ev('name', 'is_not', ''), ALL],
  ])('%s', async (_n, f, expected) => {
    expect(await matching([f])).toEqual(expected);
  });

  /** Events 0–3: "" / "x" / JSON null / missing, by a person whose `p` is "" / "x" / null / missing (their own person each). */
  let e: number;
  beforeAll(async () => {
    const values: unknown[] = ['', 'x', null, undefined];
    e = await db.project(
      values.map((v, i) => ({ distinct_ids: [`d${i}`], properties: v === undefined ? {} : { p: v } })),
      values.map((v, i) => ({ event: 'e', distinct_id: `d${i}`, timestamp: '2022-04-20T10:00:00Z', properties: { i, ...(v === undefined ? {} : { v }) } })),
    );
  });
  const onE = async (props: unknown): Promise<number[]> => {
    const q = ast.select({ select: [ast.alias('i', ast.field('properties', 'i'))], from: 'events', where: propertiesToExpr(propertiesSchema.parse(props)) });
    return (await runInsightQuery(db.ctx(e), q)).rows.map((r) => Number(r.i)).sort((a, b) => a - b);
  };
  const pp = (operator: string, value?: unknown) => ({ type: 'person', key: 'p', operator, ...(value !== undefined ? { value } : {}) });
  it.each<[string, unknown, number[]]>([
    ['exact "" matches ""', ev('v', 'exact', ''), [0]],
    ['is_set is true for ""', ev('v', 'is_set'), [0, 1]],
    ['is_not_set: JSON null and missing', ev('v', 'is_not_set'), [2, 3]],
    ['is_not "": "x", null and missing', ev('v', 'is_not', ''), [1, 2, 3]],
    ['icontains "" (%%) matches every set value', ev('v', 'icontains', ''), [0, 1]],
    ['not_icontains "x": "" passes, as do null and missing', ev('v', 'not_icontains', 'x'), [0, 2, 3]],
    ['regex ^$ matches ""', ev('v', 'regex', '^$'), [0]],
    ['exact ["", "x"] → IN', ev('v', 'exact', ['', 'x']), [0, 1]],
    ['is_not ["", "x"] → NOT IN: null and missing pass', ev('v', 'is_not', ['', 'x']), [2, 3]],
    ['exact [null, ""]: "" and the NULLs (transform_null_in)', ev('v', 'exact', [null, '']), [0, 2, 3]],
    ['"" is no date', ev('v', 'is_date_after', '2000-01-01'), []],
    ['a person property "": exact ""', pp('exact', ''), [0]],
    ['a person property "": is_set', pp('is_set'), [0, 1]],
    ['a person property: is_not_set (null and missing)', pp('is_not_set'), [2, 3]],
    ['a person property: is_not ""', pp('is_not', ''), [1, 2, 3]],
  ])('%s', async (_n, f, expected) => {
    expect(await onE([f])).toEqual(expected);
  });
});

describe('group properties beyond property filters of type group', () => {
  const RANGE = { date_from: '2020-01-01T00:00:00Z', date_to: '2020-01-05T00:00:00Z' };
  const total = async (properties: unknown) =>
    (await db.run(trendsRunner, { kind: 'TrendsQuery', dateRange: RANGE, series: [{ kind: 'EventsNode', event: 'sign up' }], properties }, G)).results[0].count;

  it('test_property_to_expr_hogql: a hogql filter reads group_N.properties through the groups join', async () => {
    expect(await total([{ type: 'hogql', key: "group_0.properties.industry = 'finance'" }])).toBe(3);
  });

  it('test_property_to_expr_event_metadata: $group_N is the event column', async () => {
    expect(await total([{ type: 'event_metadata', key: '$group_2', operator: 'exact', value: 'company:2' }])).toBe(3);
    // '' when the event has none (PostHog's String column): set, and equal to ''
    expect(await total([{ type: 'event_metadata', key: '$group_2', operator: 'is_not_set' }])).toBe(0);
    expect(await total([{ type: 'event_metadata', key: '$group_2', operator: 'is_set' }])).toBe(11);
    expect(await total([{ type: 'event_metadata', key: '$group_2', operator: 'exact', value: '' }])).toBe(6);
  });

  it('stickiness of the events of finance organizations: person1 on one day, person3 on two', async () => {
    const r = await db.run(stickinessRunner, {
      kind: 'StickinessQuery',
      dateRange: RANGE,
      series: [{ kind: 'EventsNode', event: 'sign up' }],
      properties: [{ type: 'group', group_type_index: 0, key: 'industry', operator: 'exact', value: 'finance' }],
    }, G);
    expect(r.results[0].data).toEqual([1, 1, 0, 0, 0]);
  });
});

describe('test_prop_filter_json_extract (ee/clickhouse/models/test/test_property.py): the other date formats', () => {
  const D = 3;
  const DATES: Record<string, unknown>[] = [
    { rfc_822_time: 'Wed, 02 Oct 2002 15:00:00 +0200' },
    { 'full_date_increasing_$time': '01-04-2021 19:00:00' },
    { 'with_slashes_increasing_$time': '01/04/2021 19:00:00' },
  ];
  beforeAll(async () => {
    await db.load(D, { events: DATES.map((p, i) => ({ event: 'e', distinct_id: 'd', timestamp: '2021-05-01T00:00:00Z', properties: { ...p, i } })) });
  });
  const dated = async (f: unknown): Promise<number[]> => {
    const q = ast.select({ select: [ast.alias('i', ast.field('properties', 'i'))], from: 'events', where: propertiesToExpr(propertiesSchema.parse([f])) });
    return (await runInsightQuery(db.ctx(D), q)).rows.map((r) => Number(r.i)).sort((a, b) => a - b);
  };
  it.each<[unknown, number[]]>([
    [ev('rfc_822_time', 'is_date_before', '2002-10-02 17:01:00'), [0]],
    [ev('rfc_822_time', 'is_date_after', '2002-10-02 14:59:00'), []],
    [ev('rfc_822_time', 'is_date_after', '2002-10-02 12:59:00'), [0]],
    [ev('full_date_increasing_$time', 'is_date_after', '2021-04-01 18:00:00'), [1]],
    [ev('full_date_increasing_$time', 'is_date_before', '2021-04-01 20:00:00'), [1]],
    [ev('with_slashes_increasing_$time', 'is_date_after', '2021-04-01 18:00:00'), [2]],
    [ev('with_slashes_increasing_$time', 'is_date_before', '2021-04-01 20:00:00'), [2]],
  ])('%j', async (f, expected) => {
    expect(await dated(f)).toEqual(expected);
  });
});

describe('test_action.py: autocapture steps on elements as posthog-js sends them ($elements)', () => {
  const A = 4;
  const auto = (elements: Record<string, unknown>[]) => ({ event: '$autocapture', distinct_id: 'whatever', timestamp: '2020-01-02T10:00:00Z', properties: { $elements: elements } });
  beforeAll(async () => {
    await db.load(A, {
      events: [
        auto([{ tag_name: 'button', attr__class: 'btn btn-primary', 'attr__data-id': '123', nth_child: 1, nth_of_type: 1 }, { tag_name: 'div', nth_child: 1, nth_of_type: 1 }]),
        auto([{ tag_name: 'button', 'attr__data-id': '1234', nth_child: 1, nth_of_type: 1 }]),
        auto([{ tag_name: 'a', attr__href: '/a-url', $el_text: 'some_text', nth_child: 1, nth_of_type: 1 }]),
        auto([{ tag_name: 'a', attr__href: '/a-url', $el_text: 'some_text', nth_child: 1, nth_of_type: 1 }]),
        auto([{ tag_name: 'a', attr__href: '/a-url-2', $el_text: 'some_other_text', nth_child: 1, nth_of_type: 1 }]),
      ],
    });
  });
  const count = async (s: Record<string, unknown>): Promise<number> => {
    const id = registry.action('autocapture', [step({ event: '$autocapture', ...s })]);
    const r = await db.run(trendsRunner, { kind: 'TrendsQuery', dateRange: { date_from: '2020-01-01', date_to: '2020-01-03' }, series: [{ kind: 'ActionsNode', id }] }, A);
    return r.results[0]?.count ?? 0;
  };
  it.each<[string, Record<string, unknown>, number]>([
    ['test_attributes: a [data-id="123"] selector matches that attribute value only', { selector: '[data-id="123"]' }, 1],
    ['… with its tag name', { selector: 'button[data-id="123"]' }, 1],
    ['test_with_class: a class selector', { selector: 'button.btn-primary' }, 1],
    ['a child of a div', { selector: 'div > button' }, 1],
    ['test_with_normal_filters: text exact', { text: 'some_text' }, 2],
    ['href exact', { href: '/a-url' }, 2],
    ['href contains', { href: '/a-url', href_matching: 'contains' }, 3],
    ['tag_name a', { tag_name: 'a' }, 3],
    ['tag_name and text together', { tag_name: 'a', text: 'some_other_text' }, 1],
  ])('%s', async (_n, s, expected) => {
    expect(await count(s)).toBe(expected);
  });
});
