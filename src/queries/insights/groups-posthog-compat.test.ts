/**
 * Group analytics in insights, ported from PostHog's suites through the runners' schema + run path the query service
 * uses: group property filters and breakdowns (`group_N.properties.<key>`), group math (`unique_group`, group-scoped
 * dau/weekly_active) and group aggregation (`aggregation_group_type_index`) in trends, funnels, retention, lifecycle
 * and stickiness. Events carry their groups as `properties.$group_N` (PostHog's tests: `_create_event(...,
 * properties={"$group_0": "org:5"})`); groups are written through the engine (`create_group(...)`).
 * groups-posthog-compat.clickhouse.test.ts runs this file on ClickHouse with the same expectations.
 */
import type { GroupTypeUpsert, GroupUpsert, InternalStatements } from '../../engines/engine';
import { UserError } from '../../errors';
import { createInsightTestDb, type InsightTestDb } from './testing';
import { BREAKDOWN_NULL, BREAKDOWN_OTHER } from './breakdown';
import { trendsRunner } from '../runners/trends-runner';
import { funnelsRunner } from '../runners/funnels-runner';
import { retentionRunner } from '../runners/retention-runner';
import { lifecycleRunner } from '../runners/lifecycle-runner';
import { stickinessRunner } from '../runners/stickiness-runner';

let db: InsightTestDb;
let nextProject = 3000;

type Ev = { event: string; distinct_id: string; timestamp: string; properties?: Record<string, unknown> };
type Person = { distinct_ids: string[]; created_at?: string; properties?: Record<string, unknown> };
type Group = { index: number; key: string; properties: Record<string, unknown>; created_at?: string };

const ev = (event: string, distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}): Ev => ({ event, distinct_id, timestamp, properties });

/** A fresh project with PostHog's group types (organization = 0, company = 1), its groups, persons and events. */
async function project(groups: Group[], persons: Person[], events: Ev[]): Promise<number> {
  const id = nextProject++;
  const groupTypes: GroupTypeUpsert[] = ['organization', 'company'].map((t, i) => ({
    project_id: id,
    group_type: t,
    group_type_index: i,
    name_singular: null,
    name_plural: null,
  }));
  const rows: GroupUpsert[] = groups.map((g) => ({
    project_id: id,
    group_type_index: g.index,
    group_key: g.key,
    created_at: Date.parse(g.created_at ?? '2020-01-01T00:00:00Z'),
    properties: g.properties,
    version: 1,
  }));
  await (db.engine as unknown as InternalStatements).writeBatch({ events: [], groupTypes, groups: rows });
  await db.load(id, { persons, events });
  return id;
}

/**
 * test_stickiness.py `_create_multiple_people` by week with groups: persons 1–4 (the third with two distinct ids), each
 * event in the organization `orgOf(person index)`; organizations 0–2 have an industry, a fourth has no group row.
 */
function multiplePeople(orgOf: (i: number) => string): Promise<number> {
  const at = (weeks: number) => new Date(Date.parse('2020-01-01T12:00:00Z') + weeks * 7 * 86_400_000).toISOString();
  const props = (i: number) => ({ $group_0: orgOf(i), $group_1: 'project:1' });
  return project(
    [
      { index: 0, key: 'org:0', properties: { industry: 'technology' } },
      { index: 0, key: 'org:1', properties: { industry: 'agriculture' } },
      { index: 0, key: 'org:2', properties: { industry: 'technology' } },
    ],
    [{ distinct_ids: ['person1'] }, { distinct_ids: ['person2'] }, { distinct_ids: ['person3a', 'person3b'] }, { distinct_ids: ['person4'] }],
    [
      ev('watched movie', 'person1', at(0), props(0)),
      ev('watched movie', 'person2', at(0), props(1)),
      ev('watched movie', 'person2', at(1), props(1)),
      ev('watched movie', 'person2', at(1), props(1)),
      ev('watched movie', 'person3a', at(0), props(2)),
      ev('watched movie', 'person3b', at(1), props(2)),
      ev('watched movie', 'person3a', at(2), props(2)),
      ev('watched movie', 'person4', at(4), props(3)),
    ],
  );
}

beforeAll(async () => {
  db = await createInsightTestDb();
});
afterAll(async () => {
  await db.close();
});

const runError = async (runner: Parameters<InsightTestDb['run']>[0], node: unknown, projectId: number): Promise<UserError> => {
  const e = await db.run(runner, node, projectId).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(UserError);
  return e as UserError;
};

// ------------------------------------------------------------------------------------------------ trends

/** test_trends.py `_create_groups()`. */
const TRENDS_GROUPS: Group[] = [
  { index: 0, key: 'org:5', properties: { industry: 'finance' } },
  { index: 0, key: 'org:6', properties: { industry: 'technology' } },
  { index: 0, key: 'org:7', properties: { industry: 'finance' } },
  { index: 1, key: 'company:10', properties: { industry: 'finance' } },
];
const TRENDS_RANGE = { date_from: '2020-01-01T00:00:00Z', date_to: '2020-01-12T00:00:00Z' };
const signUp = { kind: 'EventsNode', event: 'sign up', name: 'sign up' };

describe('trends', () => {
  let byGroupProps: number;
  let withFilterGroups: number;
  let groupFiltering: number;
  beforeAll(async () => {
    // test_breakdown_by_group_props
    byGroupProps = await project(TRENDS_GROUPS, [{ distinct_ids: ['person1'] }], [
      ev('sign up', 'person1', '2020-01-02T12:00:00Z', { $group_0: 'org:5' }),
      ev('sign up', 'person1', '2020-01-02T13:00:00Z', { $group_0: 'org:6' }),
      ev('sign up', 'person1', '2020-01-02T15:00:00Z', { $group_0: 'org:7', $group_1: 'company:10' }),
    ]);
    // test_breakdown_with_filter_groups
    withFilterGroups = await project(TRENDS_GROUPS, [{ distinct_ids: ['person1'] }], [
      ev('sign up', 'person1', '2020-01-02T12:00:00Z', { key: 'oh', $group_0: 'org:7' }),
      ev('sign up', 'person1', '2020-01-02T12:00:01Z', { key: 'uh', $group_0: 'org:5' }),
      ev('sign up', 'person1', '2020-01-02T12:00:02Z', { key: 'uh', $group_0: 'org:6' }),
    ]);
    // test_filtering_with_group_props (and _event_with_no_group_data)
    groupFiltering = await project(TRENDS_GROUPS, [{ distinct_ids: ['person1'], properties: { key: 'value' } }], [
      ev('$pageview', 'person1', '2020-01-02T12:00:00Z'),
      ev('$pageview', 'person1', '2020-01-02T12:00:00Z', { $group_0: 'org:5' }),
      ev('$pageview', 'person1', '2020-01-02T12:00:00Z', { $group_0: 'org:6' }),
      ev('$pageview', 'person1', '2020-01-02T12:00:00Z', { $group_0: 'org:6', $group_1: 'company:10' }),
    ]);
  });

  it('test_breakdown_by_group_props: breakdown_type group with breakdown_group_type_index', async () => {
    const r = await db.run(
      trendsRunner,
      { kind: 'TrendsQuery', series: [signUp], dateRange: TRENDS_RANGE, breakdownFilter: { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0 } },
      byGroupProps,
    );
    expect(r.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([
      ['finance', 2],
      ['technology', 1],
    ]);
    expect(r.results[0].data[1]).toBe(2);
  });

  it('a group breakdown in `breakdowns` (group_type_index), and by another type index', async () => {
    const multi = await db.run(
      trendsRunner,
      { kind: 'TrendsQuery', series: [signUp], dateRange: TRENDS_RANGE, breakdownFilter: { breakdowns: [{ type: 'group', property: 'industry', group_type_index: 0 }] } },
      byGroupProps,
    );
    // `breakdowns`, even with one entry, gives each value as an array of strings (reference §2.3, multi-breakdown)
    expect(multi.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([
      [['finance'], 2],
      [['technology'], 1],
    ]);
    // only one event has a company: the others have no value for it
    const company = await db.run(
      trendsRunner,
      { kind: 'TrendsQuery', series: [signUp], dateRange: TRENDS_RANGE, breakdownFilter: { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 1 } },
      byGroupProps,
    );
    expect(company.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([
      ['finance', 1],
      [BREAKDOWN_NULL, 2],
    ]);
  });

  it('test_breakdown_with_filter_groups: an event breakdown under a group property filter', async () => {
    const r = await db.run(
      trendsRunner,
      {
        kind: 'TrendsQuery',
        series: [signUp],
        dateRange: TRENDS_RANGE,
        breakdownFilter: { breakdown: 'key' },
        properties: [{ key: 'industry', value: 'finance', type: 'group', group_type_index: 0 }],
      },
      withFilterGroups,
    );
    expect(r.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([
      ['oh', 1],
      ['uh', 1],
    ]);
  });

  it('test_filtering_with_group_props: a group filter ANDed with a person filter', async () => {
    const r = await db.run(
      trendsRunner,
      {
        kind: 'TrendsQuery',
        series: [{ kind: 'EventsNode', event: '$pageview' }],
        dateRange: TRENDS_RANGE,
        properties: [
          { key: 'industry', value: 'finance', type: 'group', group_type_index: 0 },
          { key: 'key', value: 'value', type: 'person' },
        ],
      },
      groupFiltering,
    );
    expect(r.results[0].count).toBe(1);
  });

  it('test_filtering_with_group_props_event_with_no_group_data: a negative group filter keeps events without the group', async () => {
    const r = await db.run(
      trendsRunner,
      {
        kind: 'TrendsQuery',
        series: [{ kind: 'EventsNode', event: '$pageview' }],
        dateRange: TRENDS_RANGE,
        properties: [
          { key: 'industry', operator: 'is_not', value: 'textiles', type: 'group', group_type_index: 0 },
          { key: 'key', value: 'value', type: 'person' },
        ],
      },
      groupFiltering,
    );
    expect(r.results[0].count).toBe(4);
  });

  it.each([
    [{ operator: 'exact', value: ['finance', 'technology'] }, 3],
    [{ operator: 'icontains', value: 'TECH' }, 2],
    [{ operator: 'not_icontains', value: 'tech' }, 2],
    [{ operator: 'regex', value: '^fin' }, 1],
    [{ operator: 'not_regex', value: '^fin' }, 3],
    [{ operator: 'is_set' }, 3],
    [{ operator: 'is_not_set' }, 1],
  ])('group property filter %j on a series', async (op, count) => {
    const r = await db.run(
      trendsRunner,
      {
        kind: 'TrendsQuery',
        series: [{ kind: 'EventsNode', event: '$pageview', properties: [{ key: 'industry', type: 'group', group_type_index: 0, ...op }] }],
        dateRange: TRENDS_RANGE,
      },
      groupFiltering,
    );
    expect(r.results[0].count).toBe(count);
  });

  it('a group filter among the project’s test-account filters', async () => {
    const node = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: TRENDS_RANGE, filterTestAccounts: true };
    const project = { test_account_filters: [{ key: 'industry', operator: 'is_not', value: 'technology', type: 'group', group_type_index: 0 }] };
    expect((await db.run(trendsRunner, node, groupFiltering, project)).results[0].count).toBe(2);
  });

  it('unique_group counts distinct groups of a type, leaving out events without one', async () => {
    const node = (math_group_type_index: number) => ({
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: '$pageview', math: 'unique_group', math_group_type_index }],
      dateRange: TRENDS_RANGE,
    });
    expect((await db.run(trendsRunner, node(0), groupFiltering)).results[0].count).toBe(2);
    expect((await db.run(trendsRunner, node(1), groupFiltering)).results[0].count).toBe(1);
    // without an index PostHog's HogQL trends fall through to count() (aggregation_operations.py select_aggregation;
    // the legacy process_math's 400 is gone): every pageview, with a group or not (trends-posthog-compat-10.test.ts)
    const all = await db.run(trendsRunner, { ...node(0), series: [{ kind: 'EventsNode', event: '$pageview' }] }, groupFiltering);
    const noIndex = await db.run(trendsRunner, { ...node(0), series: [{ kind: 'EventsNode', event: '$pageview', math: 'unique_group' }] }, groupFiltering);
    expect(noIndex.results[0].count).toBe(all.results[0].count);
  });

  it('aggregation_group_type_index: dau counts groups, not persons', async () => {
    const r = await db.run(
      trendsRunner,
      { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], dateRange: TRENDS_RANGE, aggregation_group_type_index: 0 },
      groupFiltering,
    );
    expect(r.results[0].count).toBe(2);
    const persons = await db.run(trendsRunner, { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], dateRange: TRENDS_RANGE }, groupFiltering);
    expect(persons.results[0].count).toBe(1);
  });

  it("never reads another project's groups of the same keys", async () => {
    const other = await project([{ index: 0, key: 'org:5', properties: { industry: 'P2_SECRET' } }], [], []);
    expect(other).not.toBe(byGroupProps);
    const r = await db.run(
      trendsRunner,
      {
        kind: 'TrendsQuery',
        series: [signUp],
        dateRange: TRENDS_RANGE,
        breakdownFilter: { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0 },
        properties: [{ key: 'industry', operator: 'is_not', value: 'nothing', type: 'group', group_type_index: 0 }],
      },
      byGroupProps,
    );
    expect(JSON.stringify(r.results)).not.toContain('P2_SECRET');
    const filtered = await db.run(
      trendsRunner,
      { kind: 'TrendsQuery', series: [signUp], dateRange: TRENDS_RANGE, properties: [{ key: 'industry', value: 'P2_SECRET', type: 'group', group_type_index: 0 }] },
      byGroupProps,
    );
    expect(filtered.results[0].count).toBe(0);
  });

  it('a group filter without a group type index is left out (non-strict property_to_expr: the constant 1); a breakdown without one is a 400', async () => {
    const all = await db.run(trendsRunner, { kind: 'TrendsQuery', series: [signUp], dateRange: TRENDS_RANGE }, byGroupProps);
    const f = await db.run(
      trendsRunner,
      { kind: 'TrendsQuery', series: [signUp], dateRange: TRENDS_RANGE, properties: [{ key: 'industry', value: 'finance', type: 'group' }] },
      byGroupProps,
    );
    expect(f.results[0].count).toBe(all.results[0].count);
    expect(f.results[0].count).toBeGreaterThan(0);
    const b = await runError(
      trendsRunner,
      { kind: 'TrendsQuery', series: [signUp], dateRange: TRENDS_RANGE, breakdownFilter: { breakdown: 'industry', breakdown_type: 'group' } },
      byGroupProps,
    );
    expect([b.status, b.attr]).toEqual([400, 'breakdownFilter__breakdown_group_type_index']);
    const out = await runError(
      trendsRunner,
      { kind: 'TrendsQuery', series: [signUp], dateRange: TRENDS_RANGE, breakdownFilter: { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 5 } },
      byGroupProps,
    );
    expect(out.status).toBe(400);
  });
});

// ------------------------------------------------------------------------------------------------ funnels

/** funnels breakdown_cases `_create_groups()`. */
const FUNNEL_GROUPS: Group[] = [
  { index: 0, key: 'org:5', properties: { industry: 'finance' } },
  { index: 0, key: 'org:6', properties: { industry: 'technology' } },
  { index: 1, key: 'company:1', properties: { industry: 'finance' } },
  { index: 1, key: 'company:2', properties: { industry: 'technology' } },
];
const FUNNEL_RANGE = { date_from: '2020-01-01', date_to: '2020-01-14' };

describe('funnels', () => {
  let breakdownGroup: number;
  let aggregation: number;
  beforeAll(async () => {
    // test_funnel_breakdown_group
    const g5 = { $group_0: 'org:5', $browser: 'Chrome' };
    const g6 = { $group_0: 'org:6', $browser: 'Safari' };
    breakdownGroup = await project(FUNNEL_GROUPS, [{ distinct_ids: ['person1'] }, { distinct_ids: ['person2'] }, { distinct_ids: ['person3'] }], [
      ev('sign up', 'person1', '2020-01-01T12:00:00Z', g5),
      ev('play movie', 'person1', '2020-01-01T13:00:00Z', g5),
      ev('buy', 'person1', '2020-01-01T15:00:00Z', g5),
      ev('sign up', 'person2', '2020-01-02T14:00:00Z', g6),
      ev('play movie', 'person2', '2020-01-02T16:00:00Z', g6),
      ev('sign up', 'person3', '2020-01-02T14:00:00Z', g6),
    ]);
    // test_funnel_aggregation_with_groups: the group converts although another person of it did the second step
    aggregation = await project(FUNNEL_GROUPS, [{ distinct_ids: ['user_1'] }, { distinct_ids: ['user_2'] }, { distinct_ids: ['user_3'] }, { distinct_ids: ['user_4'] }], [
      ev('user signed up', 'user_1', '2020-01-02T14:00:00Z', { $group_0: 'org:5' }),
      ev('paid', 'user_2', '2020-01-03T14:00:00Z', { $group_0: 'org:5' }),
      ev('user signed up', 'user_3', '2020-01-10T14:00:00Z', { $group_0: 'org:6' }),
      // a different group: org:6 does not convert through it
      ev('paid', 'user_4', '2020-01-10T16:00:00Z', { $group_0: 'org:7' }),
      // no group at all: not an actor when aggregating by organization
      ev('user signed up', 'user_4', '2020-01-11T14:00:00Z'),
    ]);
  });

  const steps = (...events: string[]) => events.map((event) => ({ kind: 'EventsNode', event }));

  it('test_funnel_breakdown_group: scalar breakdown values, ranked by conversion', async () => {
    const r = await db.run(
      funnelsRunner,
      {
        kind: 'FunnelsQuery',
        series: steps('sign up', 'play movie', 'buy'),
        dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
        funnelsFilter: { funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day' },
        breakdownFilter: { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0 },
      },
      breakdownGroup,
    );
    expect(r.results.map((s: any[]) => s.map((x) => [x.breakdown_value, x.breakdown, x.count]))).toEqual([
      [
        ['finance', 'finance', 1],
        ['finance', 'finance', 1],
        ['finance', 'finance', 1],
      ],
      [
        ['technology', 'technology', 2],
        ['technology', 'technology', 1],
        ['technology', 'technology', 0],
      ],
    ]);
  });

  it('test_funnel_aggregation_with_groups', async () => {
    const r = await db.run(
      funnelsRunner,
      { kind: 'FunnelsQuery', series: steps('user signed up', 'paid'), dateRange: FUNNEL_RANGE, aggregation_group_type_index: 0 },
      aggregation,
    );
    expect(r.results.map((x: any) => x.count)).toEqual([2, 1]);
    expect(r.results[1].average_conversion_time).toBe(86400);
    // by person, nobody converts (different people did the two steps)
    const persons = await db.run(funnelsRunner, { kind: 'FunnelsQuery', series: steps('user signed up', 'paid'), dateRange: FUNNEL_RANGE }, aggregation);
    expect(persons.results.map((x: any) => x.count)).toEqual([3, 0]);
  });

  it('test_funnel_group_aggregation_with_groups_entity_filtering: a group filter on a step', async () => {
    const r = await db.run(
      funnelsRunner,
      {
        kind: 'FunnelsQuery',
        series: [
          { kind: 'EventsNode', event: 'user signed up', properties: [{ key: 'industry', value: 'finance', type: 'group', group_type_index: 0 }] },
          { kind: 'EventsNode', event: 'paid' },
        ],
        dateRange: FUNNEL_RANGE,
        aggregation_group_type_index: 0,
      },
      aggregation,
    );
    expect(r.results.map((x: any) => x.count)).toEqual([1, 1]);
  });

  it('a group property filter on the whole funnel', async () => {
    const r = await db.run(
      funnelsRunner,
      {
        kind: 'FunnelsQuery',
        series: steps('sign up', 'play movie'),
        dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
        properties: [{ key: 'industry', value: 'technology', type: 'group', group_type_index: 0 }],
      },
      breakdownGroup,
    );
    expect(r.results.map((x: any) => x.count)).toEqual([2, 1]);
  });
});

// ------------------------------------------------------------------------------------------------ retention, lifecycle, stickiness

/**
 * test_retention.py `_create_groups_and_events()`'s layout (adapted dates): two organizations and a company; person3
 * acts without a group; person2 acts once for org:5 and person1 once for org:6.
 */
const ACTIVITY_GROUPS: Group[] = [
  { index: 0, key: 'org:5', properties: { industry: 'finance' }, created_at: '2020-06-10T08:00:00Z' },
  { index: 0, key: 'org:6', properties: { industry: 'technology' }, created_at: '2020-01-01T00:00:00Z' },
  { index: 1, key: 'company:1', properties: {} },
  { index: 1, key: 'company:2', properties: {} },
];
const ACTIVITY: Ev[] = [
  ev('$pageview', 'person1', '2020-06-10T10:00:00Z', { $group_0: 'org:5', $group_1: 'company:1' }),
  ev('$pageview', 'person2', '2020-06-10T10:00:00Z', { $group_0: 'org:6' }),
  ev('$pageview', 'person3', '2020-06-10T10:00:00Z'),
  ev('$pageview', 'person1', '2020-06-11T10:00:00Z', { $group_0: 'org:5' }),
  ev('$pageview', 'person2', '2020-06-11T10:00:00Z', { $group_0: 'org:6' }),
  ev('$pageview', 'person3', '2020-06-11T10:00:00Z'),
  ev('$pageview', 'person2', '2020-06-12T10:00:00Z', { $group_0: 'org:5' }),
  ev('$pageview', 'person1', '2020-06-13T10:00:00Z', { $group_0: 'org:6' }),
];
const ACTIVITY_RANGE = { date_from: '2020-06-10', date_to: '2020-06-13' };

describe('retention, lifecycle and stickiness', () => {
  let activity: number;
  beforeAll(async () => {
    activity = await project(ACTIVITY_GROUPS, [{ distinct_ids: ['person1'] }, { distinct_ids: ['person2'] }, { distinct_ids: ['person3'] }], ACTIVITY);
  });

  const retention = (extra: Record<string, unknown> = {}) => ({
    kind: 'RetentionQuery',
    dateRange: ACTIVITY_RANGE,
    retentionFilter: { period: 'Day', totalIntervals: 4, retentionType: 'retention_recurring' },
    ...extra,
  });
  const counts = (r: any) => (r.results as any[]).map((x) => x.values.map((v: any) => v.count));

  it('test_groups_aggregating: retention of organizations, then of companies', async () => {
    expect(counts(await db.run(retentionRunner, retention({ aggregation_group_type_index: 0 }), activity))).toEqual([
      [2, 2, 1, 1],
      [2, 1, 1, 0],
      [1, 0, 0, 0],
      [1, 0, 0, 0],
    ]);
    expect(counts(await db.run(retentionRunner, retention({ aggregation_group_type_index: 1 }), activity))).toEqual([
      [1, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
    ]);
    // the same events by person: person3 counts there
    expect(counts(await db.run(retentionRunner, retention(), activity))[0]).toEqual([3, 3, 1, 1]);
  });

  it('test_groups_filtering: a group property filter on person retention', async () => {
    const r = await db.run(retentionRunner, retention({ properties: [{ key: 'industry', value: 'technology', type: 'group', group_type_index: 0 }] }), activity);
    expect(counts(r)).toEqual([
      [1, 1, 0, 0],
      [1, 0, 0, 0],
      [0, 0, 0, 0],
      [1, 0, 0, 0],
    ]);
  });

  it('a group breakdown of person retention: the start event’s organization industry, "" without one', async () => {
    const r = await db.run(retentionRunner, retention({ breakdownFilter: { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0 } }), activity);
    expect(r.results.map((x: any) => [x.breakdown_value, x.values[0].count])).toEqual([
      ['finance', 1],
      ['finance', 1],
      ['finance', 1],
      ['finance', 0],
      ['technology', 1],
      ['technology', 1],
      ['technology', 0],
      ['technology', 1],
      ['', 1],
      ['', 1],
      ['', 0],
      ['', 0],
    ]);
  });

  it('lifecycle of organizations: "new" is the activity in the group’s creation interval', async () => {
    const r = await db.run(
      lifecycleRunner,
      { kind: 'LifecycleQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: ACTIVITY_RANGE, aggregation_group_type_index: 0 },
      activity,
    );
    expect(Object.fromEntries(r.results.map((x: any) => [x.status, x.data]))).toEqual({
      new: [1, 0, 0, 0],
      returning: [0, 2, 1, 0],
      resurrecting: [1, 0, 0, 1],
      dormant: [0, 0, -1, -1],
    });
  });

  it('stickiness with unique_group counts days per organization', async () => {
    const r = await db.run(
      stickinessRunner,
      { kind: 'StickinessQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'unique_group', math_group_type_index: 0 }], dateRange: ACTIVITY_RANGE },
      activity,
    );
    expect(r.results[0].data).toEqual([0, 0, 2, 0]);
    expect(r.results[0].count).toBe(2);
  });

  it('trends group math by day: unique_group, and weekly active organizations', async () => {
    const r = await db.run(
      trendsRunner,
      {
        kind: 'TrendsQuery',
        dateRange: ACTIVITY_RANGE,
        series: [
          { kind: 'EventsNode', event: '$pageview', math: 'unique_group', math_group_type_index: 0 },
          { kind: 'EventsNode', event: '$pageview', math: 'weekly_active', math_group_type_index: 0 },
          { kind: 'EventsNode', event: '$pageview', math: 'dau' },
        ],
      },
      activity,
    );
    expect(r.results.map((x: any) => x.data)).toEqual([
      [2, 2, 1, 1],
      [2, 2, 2, 2],
      [3, 3, 1, 1],
    ]);
  });
});

// ------------------------------------------------------------------------------------------------ more PostHog cases

describe('more group cases from PostHog’s insight suites', () => {
  it('test_filtering_by_multiple_groups: filters on two group types are ANDed', async () => {
    const p = await project(
      [
        { index: 0, key: 'org:5', properties: { industry: 'finance' } },
        { index: 0, key: 'org:6', properties: { industry: 'technology' } },
        { index: 1, key: 'company:1', properties: { name: 'company1' } },
        { index: 1, key: 'company:2', properties: { name: 'company2' } },
      ],
      [{ distinct_ids: ['person1'], properties: { key: 'value' } }],
      [
        ev('sign up', 'person1', '2020-01-02T12:00:00Z', { $group_0: 'org:5', $group_1: 'company:1' }),
        ev('sign up', 'person1', '2020-01-02T12:00:00Z', { $group_0: 'org:6', $group_1: 'company:1' }),
        ev('sign up', 'person1', '2020-01-02T12:00:00Z', { $group_0: 'org:6', $group_1: 'company:2' }),
        ev('sign up', 'person1', '2020-01-02T12:00:00Z', { $group_0: 'org:6' }),
      ],
    );
    const r = await db.run(
      trendsRunner,
      {
        kind: 'TrendsQuery',
        series: [signUp],
        dateRange: { date_from: '2020-01-01T00:00:00Z', date_to: '2020-01-12' },
        properties: [
          { key: 'industry', value: 'finance', type: 'group', group_type_index: 0 },
          { key: 'name', value: 'company1', type: 'group', group_type_index: 1 },
        ],
      },
      p,
    );
    expect(r.results).toHaveLength(1);
    expect(r.results[0].count).toBe(1);
    expect(r.results[0].data).toEqual([0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('test_breakdown_by_group_props_with_person_filter: a group breakdown under a person filter', async () => {
    const p = await project(TRENDS_GROUPS, [{ distinct_ids: ['person1'], properties: { key: 'value' } }, { distinct_ids: ['person2'], properties: {} }], [
      ev('sign up', 'person1', '2020-01-02T12:00:00Z', { $group_0: 'org:5' }),
      ev('sign up', 'person2', '2020-01-02T12:00:00Z', { $group_0: 'org:6' }),
    ]);
    const r = await db.run(
      trendsRunner,
      {
        kind: 'TrendsQuery',
        series: [signUp],
        dateRange: TRENDS_RANGE,
        breakdownFilter: { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0 },
        properties: [{ key: 'key', value: 'value', type: 'person' }],
      },
      p,
    );
    expect(r.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([['finance', 1]]);
  });

  describe('funnels aggregated by organization (test_funnel_group_aggregation_with_groups_global_filtering, …_breakdown_group)', () => {
    let global: number;
    let breakdown: number;
    beforeAll(async () => {
      global = await project(FUNNEL_GROUPS, ['user_1', 'user_2', 'user_3', 'user_4'].map((d) => ({ distinct_ids: [d] })), [
        ev('user signed up', 'user_1', '2020-01-02T14:00:00Z', { $group_0: 'org:5' }),
        ev('paid', 'user_2', '2020-01-03T14:00:00Z', { $group_0: 'org:5' }),
        ev('user signed up', 'user_3', '2020-01-02T14:00:00Z', { $group_0: 'org:6' }),
        ev('paid', 'user_4', '2020-01-03T14:00:00Z', { $group_0: 'org:6' }),
      ]);
      const g5 = { $group_0: 'org:5', $browser: 'Chrome' };
      const g6 = { $group_0: 'org:6', $browser: 'Safari' };
      breakdown = await project(FUNNEL_GROUPS, ['person1', 'person2', 'person3'].map((d) => ({ distinct_ids: [d] })), [
        ev('sign up', 'person1', '2020-01-01T12:00:00Z', g5),
        ev('play movie', 'person1', '2020-01-01T13:00:00Z', g5),
        ev('buy', 'person1', '2020-01-01T15:00:00Z', g5),
        ev('sign up', 'person2', '2020-01-02T14:00:00Z', g6),
        ev('play movie', 'person2', '2020-01-02T16:00:00Z', g6),
        ev('buy', 'person3', '2020-01-02T18:00:00Z', g6),
      ]);
    });

    it('a global group property filter keeps the finance organization only', async () => {
      const r = await db.run(
        funnelsRunner,
        {
          kind: 'FunnelsQuery',
          series: [
            { kind: 'EventsNode', event: 'user signed up' },
            { kind: 'EventsNode', event: 'paid' },
          ],
          dateRange: FUNNEL_RANGE,
          aggregation_group_type_index: 0,
          properties: [{ key: 'industry', value: 'finance', type: 'group', group_type_index: 0 }],
        },
        global,
      );
      expect(r.results.map((x: any) => x.count)).toEqual([1, 1]);
    });

    it('test_funnel_aggregate_by_groups_breakdown_group: org:6 converts through two of its persons', async () => {
      const node = (aggregation?: number) => ({
        kind: 'FunnelsQuery',
        series: ['sign up', 'play movie', 'buy'].map((event) => ({ kind: 'EventsNode', event })),
        dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
        funnelsFilter: { funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day' },
        breakdownFilter: { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0 },
        ...(aggregation === undefined ? {} : { aggregation_group_type_index: aggregation }),
      });
      const r = await db.run(funnelsRunner, node(0), breakdown);
      expect(r.results.map((s: any[]) => s.map((x) => [x.breakdown_value, x.count]))).toEqual([
        [
          ['finance', 1],
          ['finance', 1],
          ['finance', 1],
        ],
        [
          ['technology', 1],
          ['technology', 1],
          ['technology', 1],
        ],
      ]);
      // by person, technology's buyer never signed up
      const persons = await db.run(funnelsRunner, node(), breakdown);
      expect(persons.results.map((s: any[]) => s.map((x) => x.count))).toEqual([
        [1, 1, 1],
        [1, 1, 0],
      ]);
    });
  });

  it('stickiness test_aggregate_by_groups: weeks active per organization (_create_multiple_people by week)', async () => {
    const p = await multiplePeople((i) => `org:${Math.floor(i / 2)}`);
    const r = await db.run(
      stickinessRunner,
      {
        kind: 'StickinessQuery',
        series: [{ kind: 'EventsNode', event: 'watched movie', math: 'unique_group', math_group_type_index: 0 }],
        dateRange: { date_from: '2020-01-01', date_to: '2020-02-15' },
        interval: 'week',
      },
      p,
    );
    // org:0 (person1, person2) is active 2 weeks, org:1 (person3, person4) 4 weeks
    expect(r.results[0].count).toBe(2);
    expect(r.results[0].data).toEqual([0, 1, 0, 1, 0, 0, 0]);
  });
});

/**
 * test_retention.py `_create_groups_and_events()` with its own dates (`_date(day, month)` = 2020-(6+month)-(10+day)):
 * weekly retention to 2020-07-20 (its week runs to 25 Jul, where person2 acts for org:6 and company:1).
 */
describe('retention by week (test_retention.py test_groups_aggregating, test_groups_filtering)', () => {
  let p: number;
  beforeAll(async () => {
    const d = (day: number, month = 0) => new Date(Date.UTC(2020, 5 + month, 10 + day)).toISOString();
    const pv = (who: string, at: string, props: Record<string, unknown> = {}) => ev('$pageview', who, at, props);
    p = await project(
      [
        { index: 0, key: 'org:5', properties: { industry: 'finance' } },
        { index: 0, key: 'org:6', properties: { industry: 'technology' } },
        { index: 1, key: 'company:1', properties: {} },
        { index: 1, key: 'company:2', properties: {} },
      ],
      [{ distinct_ids: ['person1', 'alias1'] }, { distinct_ids: ['person2'] }, { distinct_ids: ['person3'] }],
      [
        pv('person1', d(0), { $group_0: 'org:5', $group_1: 'company:1' }),
        pv('person2', d(0), { $group_0: 'org:6' }),
        pv('person3', d(0)),
        pv('person1', d(1), { $group_0: 'org:5' }),
        pv('person2', d(1), { $group_0: 'org:6' }),
        pv('person1', d(7), { $group_0: 'org:5' }),
        pv('person2', d(7), { $group_0: 'org:6' }),
        pv('person1', d(14), { $group_0: 'org:5' }),
        pv('person1', d(-6, 1), { $group_0: 'org:5', $group_1: 'company:1' }),
        pv('person2', d(-6, 1), { $group_0: 'org:6' }),
        pv('person2', d(1, 1), { $group_0: 'org:6' }),
        pv('person1', d(1, 1), { $group_0: 'org:5' }),
        pv('person2', d(15, 1), { $group_0: 'org:6', $group_1: 'company:1' }),
      ],
    );
  });
  const weekly = (extra: Record<string, unknown>) => ({
    kind: 'RetentionQuery',
    dateRange: { date_to: '2020-07-20T00:00:00' },
    retentionFilter: { period: 'Week', totalIntervals: 7 },
    ...extra,
  });
  const counts = (r: any) => (r.results as any[]).map((x) => x.values.map((v: any) => v.count));
  // PostHog's test_retention.py `pad()`: every row is as long as the first, zeros after the last interval
  const pad = (rows: number[][]) => rows.map((row) => [...row, ...new Array(rows[0].length - row.length).fill(0)]);

  it('test_groups_aggregating: organizations, then companies', async () => {
    expect(counts(await db.run(retentionRunner, weekly({ aggregation_group_type_index: 0 }), p))).toEqual(
      pad([
      [2, 2, 1, 2, 2, 0, 1],
      [2, 1, 2, 2, 0, 1],
      [1, 1, 1, 0, 0],
      [2, 2, 0, 1],
      [2, 0, 1],
      [0, 0],
      [1],
      ]),
    );
    expect(counts(await db.run(retentionRunner, weekly({ aggregation_group_type_index: 1 }), p))).toEqual(
      pad([
      [1, 0, 0, 1, 0, 0, 1],
      [0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0],
      [1, 0, 0, 1],
      [0, 0, 0],
      [0, 0],
      [1],
      ]),
    );
  });

  it('test_groups_filtering: persons whose events are in a technology organization, then in any organization', async () => {
    const filtered = (filter: Record<string, unknown>) => db.run(retentionRunner, weekly({ properties: [{ key: 'industry', type: 'group', group_type_index: 0, ...filter }] }), p);
    expect(counts(await filtered({ value: 'technology' }))).toEqual(
      pad([
      [1, 1, 0, 1, 1, 0, 1],
      [1, 0, 1, 1, 0, 1],
      [0, 0, 0, 0, 0],
      [1, 1, 0, 1],
      [1, 0, 1],
      [0, 0],
      [1],
      ]),
    );
    expect(counts(await filtered({ value: '', operator: 'is_set' }))).toEqual(
      pad([
      [2, 2, 1, 2, 2, 0, 1],
      [2, 1, 2, 2, 0, 1],
      [1, 1, 1, 0, 0],
      [2, 2, 0, 1],
      [2, 0, 1],
      [0, 0],
      [1],
      ]),
    );
  });
});

describe('group breakdowns and filters combined with group aggregation, limits and numeric or date values', () => {
  let p: number;
  beforeAll(async () => {
    p = await project(
      [
        ...TRENDS_GROUPS,
        { index: 0, key: 'org:1', properties: { employees: 5, founded: '2019-06-01' } },
        { index: 0, key: 'org:2', properties: { employees: 50, founded: '2021-06-01' } },
        { index: 0, key: 'org:3', properties: { employees: '100' } },
      ],
      [{ distinct_ids: ['person1'] }, { distinct_ids: ['person2'] }],
      [
        ev('sign up', 'person1', '2020-01-02T12:00:00Z', { $group_0: 'org:5' }),
        ev('sign up', 'person2', '2020-01-02T13:00:00Z', { $group_0: 'org:6' }),
        ev('sign up', 'person1', '2020-01-02T15:00:00Z', { $group_0: 'org:7', $group_1: 'company:10' }),
        ev('sign up', 'person2', '2020-01-03T15:00:00Z', { $group_0: 'org:7' }),
        ev('$pageview', 'person1', '2020-01-02T12:00:00Z', { $group_0: 'org:1' }),
        ev('$pageview', 'person1', '2020-01-02T12:00:00Z', { $group_0: 'org:2' }),
        ev('$pageview', 'person1', '2020-01-02T12:00:00Z', { $group_0: 'org:3' }),
        ev('$pageview', 'person1', '2020-01-02T12:00:00Z'),
      ],
    );
  });
  const breakdown = { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0 };
  const trends = (extra: Record<string, unknown>) => db.run(trendsRunner, { kind: 'TrendsQuery', dateRange: TRENDS_RANGE, ...extra }, p);

  it('aggregated by organization, a breakdown by its industry counts organizations per industry', async () => {
    const r = await trends({ series: [{ ...signUp, math: 'dau' }], aggregation_group_type_index: 0, breakdownFilter: breakdown });
    expect(r.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([
      ['finance', 3],
      ['technology', 1],
    ]);
    // by company, only the event with a company is an actor's
    const byCompany = await trends({ series: [{ ...signUp, math: 'dau' }], aggregation_group_type_index: 1, breakdownFilter: breakdown });
    expect(byCompany.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([['finance', 1]]);
  });

  it('unique organizations by industry: per day, and over the whole range (ActionsTable)', async () => {
    const series = [{ ...signUp, math: 'unique_group', math_group_type_index: 0 }];
    const r = await trends({ series, breakdownFilter: breakdown });
    expect(r.results.map((x: any) => [x.breakdown_value, x.count, x.data.slice(1, 3)])).toEqual([
      ['finance', 3, [2, 1]],
      ['technology', 1, [1, 0]],
    ]);
    const table = await trends({ series, breakdownFilter: breakdown, trendsFilter: { display: 'ActionsTable' } });
    expect(table.results.map((x: any) => [x.breakdown_value, x.aggregated_value])).toEqual([
      ['finance', 2],
      ['technology', 1],
    ]);
  });

  it('a numeric group property as breakdown: values as text, events without the group the null value', async () => {
    const r = await trends({ series: [{ kind: 'EventsNode', event: '$pageview' }], breakdownFilter: { ...breakdown, breakdown: 'employees' } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.count]).sort()).toEqual([
      ['$$_posthog_breakdown_null_$$', 1],
      ['100', 1],
      ['5', 1],
      ['50', 1],
    ]);
  });

  it('breakdown_limit keeps the top industry and merges the rest into Other', async () => {
    const r = await trends({ series: [signUp], breakdownFilter: { ...breakdown, breakdown_limit: 1 } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([
      ['finance', 3],
      [BREAKDOWN_OTHER, 1],
    ]);
  });

  it.each([
    [{ operator: 'gt', value: 10 }, 2],
    [{ operator: 'lt', value: 10 }, 1],
    [{ operator: 'exact', value: 50 }, 1],
    [{ operator: 'exact', value: ['5', '100'] }, 2],
  ])('numeric group property filter %j (a number or its text)', async (op, count) => {
    const r = await trends({ series: [{ kind: 'EventsNode', event: '$pageview', properties: [{ key: 'employees', type: 'group', group_type_index: 0, ...op }] }] });
    expect(r.results[0].count).toBe(count);
  });

  it.each([
    ['is_date_before', '2020-01-01', 1],
    ['is_date_after', '2020-01-01', 1],
  ])('group property %s %s', async (operator, value, count) => {
    const r = await trends({ series: [{ kind: 'EventsNode', event: '$pageview', properties: [{ key: 'founded', type: 'group', group_type_index: 0, operator, value }] }] });
    expect(r.results[0].count).toBe(count);
  });
});

it('stickiness test_filter_by_group_properties: persons active in technology organizations, by week', async () => {
  const p = await multiplePeople((i) => `org:${i}`);
  const r = await db.run(
    stickinessRunner,
    {
      kind: 'StickinessQuery',
      series: [{ kind: 'EventsNode', event: 'watched movie' }],
      dateRange: { date_from: '2020-01-01', date_to: '2020-02-15' },
      interval: 'week',
      properties: [{ key: 'industry', value: 'technology', type: 'group', group_type_index: 0 }],
    },
    p,
  );
  // person1 (org:0) one week, person3 (org:2) three; person2's org:1 is agriculture, person4's org:3 does not exist
  expect(r.results[0].count).toBe(2);
  expect(r.results[0].data).toEqual([1, 0, 1, 0, 0, 0, 0]);
});

describe('funnels filtered on the event’s $group_0 (test_funnel_with_groups_entity_filtering, …_global_filtering)', () => {
  let p: number;
  beforeAll(async () => {
    p = await project(FUNNEL_GROUPS, [{ distinct_ids: ['user_1'] }, { distinct_ids: ['user_2'] }], [
      ev('user signed up', 'user_1', '2020-01-02T14:00:00Z', { $group_0: 'org:5' }),
      ev('user signed up', 'user_1', '2020-01-03T14:00:00Z', { $group_0: 'org:6' }),
      ev('paid', 'user_1', '2020-01-10T14:00:00Z', { $group_0: 'org:6' }),
      ev('user signed up', 'user_2', '2020-01-02T14:00:00Z', { $group_0: 'org:6' }),
      ev('paid', 'user_2', '2020-01-03T14:00:00Z', { $group_0: 'org:6' }),
    ]);
  });
  const org5 = [{ key: '$group_0', value: 'org:5', type: 'event', operator: 'exact' }];

  it('on the first step: user_1 signed up in org:5 and paid later (in another organization)', async () => {
    const r = await db.run(
      funnelsRunner,
      {
        kind: 'FunnelsQuery',
        series: [
          { kind: 'EventsNode', event: 'user signed up', properties: org5 },
          { kind: 'EventsNode', event: 'paid' },
        ],
        dateRange: FUNNEL_RANGE,
      },
      p,
    );
    expect(r.results.map((x: any) => x.count)).toEqual([1, 1]);
  });

  it('on the whole funnel: nobody paid in org:5', async () => {
    const r = await db.run(
      funnelsRunner,
      {
        kind: 'FunnelsQuery',
        series: [
          { kind: 'EventsNode', event: 'user signed up' },
          { kind: 'EventsNode', event: 'paid' },
        ],
        dateRange: FUNNEL_RANGE,
        properties: org5,
      },
      p,
    );
    expect(r.results.map((x: any) => x.count)).toEqual([1, 0]);
  });
});
