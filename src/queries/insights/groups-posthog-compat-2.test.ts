/**
 * Groups, second batch (after groups-posthog-compat.test.ts): `$groups` at ingestion as PostHog's plugin-server applies
 * them (process-event.test.ts: each event gets `$group_N` from its own `$groups` and the project's group type mapping,
 * `addGroupProperties`), seen through `unique_group` math and `events.$group_N`. PostHog processes every event anew, so
 * one payload sent to two projects whose mappings differ gets each project's indexes; Quarry's import must not leave
 * one project's `$group_N` on the caller's objects for the next. groups-posthog-compat-2.clickhouse.test.ts runs this
 * file on ClickHouse with the same expected results.
 */
import { ev, loadWithGroups, openHarness, type Harness } from '../funnels/testing';
import { productqlRunner } from '../runners/productql-runner';
import { trendsRunner } from '../runners/trends-runner';
import { lifecycleRunner } from '../runners/lifecycle-runner';
import { retentionRunner } from '../runners/retention-runner';
import { funnelsRunner } from '../runners/funnels-runner';
import { actorsRunner } from '../runners/actors-runner';
import { shutdownParser } from '../../productql';

let h: Harness;
// project A sees organization first (organization 0, company 1); project B sees company first (company 0, organization 1)
let a: number;
let b: number;
// project C: groups created by $groupidentify events (posthog-js `group()`), then events of their members
let c: number;

const org = ev('u1', 'signed up', '2024-03-01T10:00:00Z', { $groups: { organization: 'o1' } });
const company = ev('u2', 'signed up', '2024-03-01T11:00:00Z', { $groups: { company: 'c1' } });
const both = ev('u3', 'signed up', '2024-03-01T12:00:00Z', { $groups: { organization: 'o2', company: 'c2' } });

beforeAll(async () => {
  h = await openHarness();
  const persons = [{ distinct_ids: ['u1'] }, { distinct_ids: ['u2'] }, { distinct_ids: ['u3'] }];
  // the same event objects, imported into both projects (in another order)
  a = await h.load({ persons, events: [org, company, both] });
  b = await h.load({ persons, events: [company, org, both] });
  const identify = (t: string, key: string, set: Record<string, unknown>) =>
    ev('$organization_' + key, '$groupidentify', t, { $group_type: 'organization', $group_key: key, $group_set: set });
  const act = (who: string, t: string, key?: string) => ev(who, '$pageview', t, key ? { $groups: { organization: key } } : {});
  c = await h.load({
    persons,
    events: [
      identify('2024-03-02T09:00:00Z', 'o1', { industry: 'finance', plan: 'free' }),
      identify('2024-03-02T09:00:00Z', 'o2', { industry: 'technology' }),
      // an update: plan overwritten, seats added, industry kept; sent with an earlier timestamp (created_at goes back)
      identify('2024-03-01T08:00:00Z', 'o1', { plan: 'pro', seats: 10 }),
      act('u1', '2024-03-01T10:00:00Z', 'o1'),
      act('u2', '2024-03-01T11:00:00Z', 'o2'),
      act('u3', '2024-03-01T12:00:00Z'),
      act('u1', '2024-03-02T10:00:00Z', 'o1'),
      act('u2', '2024-03-03T10:00:00Z', 'o1'),
      act('u3', '2024-03-03T11:00:00Z', 'o2'),
    ],
  });
});
afterAll(async () => {
  await h?.close();
  await shutdownParser();
});

const RANGE = { date_from: '2024-03-01', date_to: '2024-03-01' };
const uniqueGroups = async (project: number, index: number): Promise<number> =>
  (
    await h.run(
      trendsRunner,
      { kind: 'TrendsQuery', dateRange: RANGE, series: [{ kind: 'EventsNode', event: 'signed up', math: 'unique_group', math_group_type_index: index }], trendsFilter: { display: 'ActionsTable' } },
      project,
    )
  ).results[0].aggregated_value;

describe('$groups → $group_N at ingestion (plugin-server process-event.test.ts, addGroupProperties)', () => {
  it('each project’s events carry its own indexes, whatever another project made of the same payload', async () => {
    const keys = async (project: number) =>
      (await h.run(productqlRunner, { kind: 'HogQLQuery', query: 'select distinct_id, $group_0, $group_1 from events order by timestamp' }, project)).results;
    expect(await keys(a)).toEqual([
      ['u1', 'o1', ''],
      ['u2', '', 'c1'],
      ['u3', 'o2', 'c2'],
    ]);
    expect(await keys(b)).toEqual([
      ['u1', '', 'o1'],
      ['u2', 'c1', ''],
      ['u3', 'c2', 'o2'],
    ]);
  });

  it('unique_group counts the groups of the type in each project', async () => {
    expect([await uniqueGroups(a, 0), await uniqueGroups(a, 1)]).toEqual([2, 2]);
    expect([await uniqueGroups(b, 0), await uniqueGroups(b, 1)]).toEqual([2, 2]);
  });

  it('the caller’s event objects are left as they were', () => {
    for (const e of [org, company, both]) expect(Object.keys(e.properties)).toEqual(['$groups']);
  });
});

describe('groups created by $groupidentify, then used by insights (process-event.test.ts $groupidentify creating / updating)', () => {
  const RANGE3 = { date_from: '2024-03-01', date_to: '2024-03-03' };
  const hogql = async (query: string) => (await h.run(productqlRunner, { kind: 'HogQLQuery', query }, c)).results;
  const PAGEVIEW = { kind: 'EventsNode', event: '$pageview' };

  it('$group_set is merged over the group (newer keys overwrite, others kept); created_at is the earliest timestamp', async () => {
    expect(await hogql('select key, index, properties.industry, properties.plan, properties.seats, created_at from groups order by key')).toEqual([
      // (a JSON property reads as text, as HogQL's JSONExtractRaw-based access without a property definition)
      ['o1', 0, 'finance', 'pro', '10', '2024-03-01T08:00:00Z'],
      ['o2', 0, 'technology', null, null, '2024-03-02T09:00:00Z'],
    ]);
  });

  it('the $groupidentify events are stored, under the distinct id posthog-node sends ($<type>_<key>)', async () => {
    expect(await hogql("select distinct_id, properties.$group_key from events where event = '$groupidentify' order by timestamp, distinct_id")).toEqual([
      ['$organization_o1', 'o1'],
      ['$organization_o1', 'o1'],
      ['$organization_o2', 'o2'],
    ]);
  });

  it('test_breakdown_by_group_props: pageviews by the organization’s industry; events without one are the null value', async () => {
    const r = await h.run(
      trendsRunner,
      { kind: 'TrendsQuery', dateRange: RANGE3, series: [PAGEVIEW], breakdownFilter: { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0 } },
      c,
    );
    expect(r.results.map((x: any) => [x.breakdown_value, x.data])).toEqual([
      ['finance', [1, 1, 1]],
      ['technology', [1, 0, 1]],
      ['$$_posthog_breakdown_null_$$', [1, 0, 0]],
    ]);
  });

  it('unique_group by day under a group property filter', async () => {
    const r = await h.run(
      trendsRunner,
      {
        kind: 'TrendsQuery',
        dateRange: RANGE3,
        series: [{ ...PAGEVIEW, math: 'unique_group', math_group_type_index: 0 }],
        properties: [{ type: 'group', group_type_index: 0, key: 'plan', operator: 'exact', value: 'pro' }],
      },
      c,
    );
    expect(r.results[0].data).toEqual([1, 1, 1]);
  });
});

/*
 * Insights aggregated by organization (aggregation_group_type_index 0) over project c: o1 (finance, created 1 Mar
 * 08:00) is active on 1, 2 and 3 Mar; o2 (technology, created 2 Mar 09:00) on 1 and 3 Mar; u3's 1 Mar pageview has
 * no organization and counts for none.
 */
describe('lifecycle, retention and funnels aggregated by organization, with group property filters', () => {
  const RANGE3 = { date_from: '2024-03-01', date_to: '2024-03-03' };
  const PAGEVIEW = { kind: 'EventsNode', event: '$pageview' };
  const finance = { type: 'group', group_type_index: 0, key: 'industry', operator: 'exact', value: 'finance' };

  it('lifecycle of finance organizations: new in its creation interval, then returning', async () => {
    const r = await h.run(
      lifecycleRunner,
      { kind: 'LifecycleQuery', dateRange: RANGE3, series: [PAGEVIEW], aggregation_group_type_index: 0, properties: [finance] },
      c,
    );
    expect(Object.fromEntries(r.results.map((x: any) => [x.status, x.data]))).toEqual({
      new: [1, 0, 0],
      returning: [0, 1, 1],
      resurrecting: [0, 0, 0],
      dormant: [0, 0, 0],
    });
  });

  it('lifecycle of every organization: o2 was active before its creation interval, so it resurrects on 3 Mar', async () => {
    const r = await h.run(lifecycleRunner, { kind: 'LifecycleQuery', dateRange: RANGE3, series: [PAGEVIEW], aggregation_group_type_index: 0 }, c);
    // 1 Mar: o1 new (created that day), o2 not new (created 2 Mar): resurrecting; 2 Mar: o2 dormant; 3 Mar: o2 back
    expect(Object.fromEntries(r.results.map((x: any) => [x.status, x.data]))).toEqual({
      new: [1, 0, 0],
      returning: [0, 1, 1],
      resurrecting: [1, 0, 1],
      dormant: [0, -1, 0],
    });
  });

  it('retention of organizations by day: the 1 Mar cohort (o1, o2) and its returns', async () => {
    const r = await h.run(
      retentionRunner,
      {
        kind: 'RetentionQuery',
        dateRange: { date_to: '2024-03-03' },
        aggregation_group_type_index: 0,
        retentionFilter: { period: 'Day', totalIntervals: 3, targetEntity: { id: '$pageview', type: 'events' }, returningEntity: { id: '$pageview', type: 'events' } },
      },
      c,
    );
    expect(r.results[0].values.map((v: any) => v.count)).toEqual([2, 1, 2]);
    const finance1 = await h.run(
      retentionRunner,
      {
        kind: 'RetentionQuery',
        dateRange: { date_to: '2024-03-03' },
        aggregation_group_type_index: 0,
        properties: [finance],
        retentionFilter: { period: 'Day', totalIntervals: 3, targetEntity: { id: '$pageview', type: 'events' }, returningEntity: { id: '$pageview', type: 'events' } },
      },
      c,
    );
    expect(finance1.results[0].values.map((v: any) => v.count)).toEqual([1, 1, 1]);
  });

  it('a funnel of organizations: both steps by the same organization, whoever performs them', async () => {
    // o1: u1's pageview on 1 Mar, then u2's on 3 Mar; o2: u2's on 1 Mar, u3's on 3 Mar (a 14-day window)
    const r = await h.run(funnelsRunner, { kind: 'FunnelsQuery', dateRange: RANGE3, series: [PAGEVIEW, PAGEVIEW], aggregation_group_type_index: 0 }, c);
    expect(r.results.map((s: any) => s.count)).toEqual([2, 2]);
    const persons = await h.run(funnelsRunner, { kind: 'FunnelsQuery', dateRange: RANGE3, series: [PAGEVIEW, PAGEVIEW] }, c);
    // by person: u1 (1 and 2 Mar), u2 (1 and 3 Mar), u3 (1 and 3 Mar)
    expect(persons.results.map((s: any) => s.count)).toEqual([3, 3]);
  });

  /*
   * A group breakdown stays a scalar in PostHog's funnels (FunnelQueryContext boxes only person/event/hogql
   * breakdowns into lists), so its value is `ifNull(group_0.properties.industry, '')` and first/last touch is
   * `argMinIf(prop, timestamp, isNotNull(prop))`: never NULL, so an event without the group gives its '' like any
   * other (the empty-value skip, `notEmpty(arrayFilter(x -> notEmpty(x), prop))`, is the boxed breakdowns' only).
   */
  it.each(['ordered', 'strict', 'unordered'])('a persons funnel by the organization’s industry, first touch (%s): u3’s first pageview has no organization, so u3 is ""', async (funnelOrderType) => {
    const byIndustry = { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0 };
    const r = await h.run(funnelsRunner, { kind: 'FunnelsQuery', dateRange: RANGE3, series: [PAGEVIEW, PAGEVIEW], funnelsFilter: { funnelOrderType }, breakdownFilter: byIndustry }, c);
    // u1: o1 (finance) on 1 and 2 Mar; u2: o2 (technology) on 1 Mar, then o1; u3: no organization on 1 Mar, then o2
    const byValue = Object.fromEntries(r.results.map((steps: any[]) => [steps[0].breakdown_value, steps.map((s) => s.count)]));
    expect(byValue).toEqual({ finance: [1, 1], technology: [1, 1], '': [1, 1] });
    // last touch: u2's and u3's last pageviews are in o1 and o2
    const last = await h.run(
      funnelsRunner,
      { kind: 'FunnelsQuery', dateRange: RANGE3, series: [PAGEVIEW, PAGEVIEW], funnelsFilter: { funnelOrderType, breakdownAttributionType: 'last_touch' }, breakdownFilter: byIndustry },
      c,
    );
    expect(Object.fromEntries(last.results.map((steps: any[]) => [steps[0].breakdown_value, steps.map((s) => s.count)]))).toEqual({ finance: [2, 2], technology: [1, 1] });
  });

  it.each(['ordered', 'strict', 'unordered'])('sign up → paid by the organization’s industry (%s): the first/last step event’s value, "" when it has no organization', async (funnelOrderType) => {
    // funnels' _create_groups: org:5 finance, org:6 technology
    const pid = await loadWithGroups(h, [
      ev('p1', 'sign up', '2024-03-01T10:00:00Z'),
      ev('p1', 'sign up', '2024-03-01T11:00:00Z', { $group_0: 'org:5' }),
      ev('p1', 'paid', '2024-03-01T12:00:00Z', { $group_0: 'org:5' }),
      ev('p2', 'sign up', '2024-03-01T10:00:00Z', { $group_0: 'org:6' }),
      ev('p2', 'paid', '2024-03-01T11:00:00Z'),
      ev('p3', 'sign up', '2024-03-01T10:00:00Z', { $group_0: 'org:5' }),
    ]);
    const run = async (breakdownAttributionType: string) => {
      const r = await h.run(
        funnelsRunner,
        {
          kind: 'FunnelsQuery',
          dateRange: RANGE3,
          series: [{ kind: 'EventsNode', event: 'sign up' }, { kind: 'EventsNode', event: 'paid' }],
          funnelsFilter: { funnelOrderType, breakdownAttributionType },
          breakdownFilter: { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0 },
        },
        pid,
      );
      return Object.fromEntries(r.results.map((steps: any[]) => [steps[0].breakdown_value, steps.map((s) => s.count)]));
    };
    expect(await run('first_touch')).toEqual({ '': [1, 1], technology: [1, 1], finance: [1, 0] });
    expect(await run('last_touch')).toEqual({ finance: [2, 1], '': [1, 1] });
    // the converted actors of each value (FunnelsActorsQuery funnelStepBreakdown), the same attribution
    const converted = async (funnelStepBreakdown: string) =>
      (
        await h.run(
          actorsRunner,
          {
            kind: 'ActorsQuery',
            select: ['actor'],
            source: {
              kind: 'FunnelsActorsQuery',
              funnelStep: 2,
              funnelStepBreakdown,
              source: {
                kind: 'FunnelsQuery',
                dateRange: RANGE3,
                series: [{ kind: 'EventsNode', event: 'sign up' }, { kind: 'EventsNode', event: 'paid' }],
                funnelsFilter: { funnelOrderType },
                breakdownFilter: { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0 },
              },
            },
          },
          pid,
        )
      ).results.map((r: any[]) => r[0].distinct_ids);
    expect([await converted(''), await converted('technology'), await converted('finance')]).toEqual([[['p1']], [['p2']], []]);
  });

  it('a group breakdown given as a list stays a list (FunnelQueryContext boxes nothing): array values, empty values skipped', async () => {
    const run = async (breakdown: string[]) =>
      (
        await h.run(
          funnelsRunner,
          { kind: 'FunnelsQuery', dateRange: RANGE3, series: [PAGEVIEW, PAGEVIEW], breakdownFilter: { breakdown, breakdown_type: 'group', breakdown_group_type_index: 0 } },
          c,
        )
      ).results.map((steps: any[]) => [steps[0].breakdown_value, steps.map((s) => s.count)]);
    // u3's first pageview (no organization) is skipped: u3 counts under o2's technology
    expect(await run(['industry'])).toEqual([
      [['technology'], [2, 2]],
      [['finance'], [1, 1]],
    ]);
    // two properties of the one group type
    expect(await run(['industry', 'plan'])).toEqual([
      [['technology', ''], [2, 2]],
      [['finance', 'pro'], [1, 1]],
    ]);
  });

  it('an event breakdown (boxed into a list) still skips the empty value: u3 is counted under its later organization', async () => {
    const r = await h.run(
      funnelsRunner,
      { kind: 'FunnelsQuery', dateRange: RANGE3, series: [PAGEVIEW, PAGEVIEW], breakdownFilter: { breakdown: '$group_0', breakdown_type: 'event' } },
      c,
    );
    const byValue = Object.fromEntries(r.results.map((steps: any[]) => [JSON.stringify(steps[0].breakdown_value), steps.map((s) => s.count)]));
    // u1: o1; u2: o2 (first); u3: '' first, then o2
    expect(byValue).toEqual({ '["o1"]': [1, 1], '["o2"]': [2, 2] });
  });
});

/*
 * The actors of a group insight point (InsightActorsQueryRunner.group_type_index): the group type of the series asked
 * for (`series`), so one insight can list organizations for one series and companies for another; an event group
 * without a group row (PostHog reads groups from Postgres) is a missing actor, and in lifecycle it has no creation
 * interval, so its first activity is resurrecting, never new.
 */
describe('group actors per series, and groups without a row', () => {
  const RANGE1 = { date_from: '2024-03-01', date_to: '2024-03-01' };
  const SIGN_UP = { kind: 'EventsNode', event: 'sign up' };
  const ORGS = { ...SIGN_UP, math: 'unique_group', math_group_type_index: 0 };
  const COMPANIES = { ...SIGN_UP, math: 'unique_group', math_group_type_index: 1 };
  let pid: number;
  let ghost: number;
  beforeAll(async () => {
    // funnels' _create_groups: org:5, org:6 and company:1
    pid = await loadWithGroups(h, [
      ev('u1', 'sign up', '2024-03-01T10:00:00Z', { $group_0: 'org:5', $group_1: 'company:1' }),
      ev('u2', 'sign up', '2024-03-01T11:00:00Z', { $group_0: 'org:6' }),
      ev('u2', 'sign up', '2024-03-01T12:00:00Z', { $group_0: 'org:6' }),
      ev('u3', 'sign up', '2024-03-01T13:00:00Z'),
    ]);
    ghost = await h.load({
      persons: [{ distinct_ids: ['u1'] }],
      events: ['2024-03-01', '2024-03-02', '2024-03-04'].map((d) => ev('u1', '$pageview', `${d}T10:00:00Z`, { $group_0: 'ghost' })),
    });
  });
  const actors = async (source: unknown, project = pid, select = ['actor', 'event_count']) =>
    h.run(actorsRunner, { kind: 'ActorsQuery', select, source }, project);
  const keys = (r: any) => r.results.map((row: any[]) => [row[0].id, row[0].group_type_index, ...row.slice(1)]).sort();

  it('trends: unique organizations, then unique companies; each series lists its own group type', async () => {
    const source = { kind: 'TrendsQuery', dateRange: RANGE1, series: [ORGS, COMPANIES] };
    expect((await h.run(trendsRunner, source, pid)).results.map((r: any) => r.data)).toEqual([[2], [1]]);
    expect(keys(await actors({ kind: 'InsightActorsQuery', day: '2024-03-01', series: 0, source }))).toEqual([
      ['org:5', 0, 1],
      ['org:6', 0, 2],
    ]);
    expect(keys(await actors({ kind: 'InsightActorsQuery', day: '2024-03-01', series: 1, source }))).toEqual([['company:1', 1, 1]]);
  });

  it('unique_group overrides aggregation_group_type_index for its series; the other series count the aggregation groups', async () => {
    const source = { kind: 'TrendsQuery', dateRange: RANGE1, aggregation_group_type_index: 1, series: [ORGS, { ...SIGN_UP, math: 'dau' }] };
    expect((await h.run(trendsRunner, source, pid)).results.map((r: any) => r.data)).toEqual([[2], [1]]);
    expect(keys(await actors({ kind: 'InsightActorsQuery', day: '2024-03-01', series: 0, source }))).toEqual([
      ['org:5', 0, 1],
      ['org:6', 0, 2],
    ]);
    expect(keys(await actors({ kind: 'InsightActorsQuery', day: '2024-03-01', series: 1, source }))).toEqual([['company:1', 1, 1]]);
  });

  it('stickiness: the second series’ actors are companies', async () => {
    const source = { kind: 'StickinessQuery', dateRange: RANGE1, series: [ORGS, COMPANIES] };
    expect(keys(await actors({ kind: 'InsightActorsQuery', day: 1, series: 1, source }, pid, ['actor']))).toEqual([['company:1', 1]]);
    expect(keys(await actors({ kind: 'InsightActorsQuery', day: 1, series: 0, source }, pid, ['actor']))).toEqual([
      ['org:5', 0],
      ['org:6', 0],
    ]);
  });

  it('a group without a row: counted by trends, a missing actor, resurrecting (not new) in lifecycle', async () => {
    const dateRange = { date_from: '2024-03-01', date_to: '2024-03-04' };
    const PV = { kind: 'EventsNode', event: '$pageview' };
    const trends = await h.run(trendsRunner, { kind: 'TrendsQuery', dateRange, aggregation_group_type_index: 0, series: [PV] }, ghost);
    expect(trends.results[0].data).toEqual([1, 1, 0, 1]);
    const r = await actors({ kind: 'InsightActorsQuery', day: '2024-03-01', source: { kind: 'TrendsQuery', dateRange, aggregation_group_type_index: 0, series: [PV] } }, ghost, ['actor']);
    expect([r.results, r.missing_actors_count]).toEqual([[], 1]);
    const lifecycle = await h.run(lifecycleRunner, { kind: 'LifecycleQuery', dateRange, series: [PV], aggregation_group_type_index: 0 }, ghost);
    expect(Object.fromEntries(lifecycle.results.map((x: any) => [x.status, x.data]))).toEqual({
      new: [0, 0, 0, 0],
      returning: [0, 1, 0, 0],
      resurrecting: [1, 0, 0, 1],
      dormant: [0, 0, -1, 0],
    });
  });
});
