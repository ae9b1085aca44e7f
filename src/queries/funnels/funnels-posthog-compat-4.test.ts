/**
 * A fourth batch of PostHog's funnel cases (posthog/hogql_queries/insights/funnels/test/: conversion_time_cases.py as
 * run by test_funnel.py, test_funnel_strict.py and test_funnel_unordered.py; breakdown_cases.py; the group cases of
 * test_funnel.py; test_funnel_unordered.py), the ones funnels-posthog-compat{,-2,-3}.test.ts do not cover. Each case
 * names the PostHog test it follows; the expected values are PostHog's, or, where a case says so, derived from the
 * reference's §3.3 rules on PostHog's setup. Runs through the real runners on a real engine (DuckDB, or ClickHouse via
 * the .clickhouse twin).
 */
import { funnelsRunner } from '../runners/funnels-runner';
import { actorsRunner } from '../runners/actors-runner';
import { counts, E, type Ev, ev, type Harness, loadWithGroups, openHarness, persons, t } from './testing';
import { runWithCohorts, type ResolvedCohort } from '../../cohorts/cohort-scope';

let h: Harness;
beforeAll(async () => {
  h = await openHarness();
});
afterAll(async () => {
  await h.close();
});

type Order = 'ordered' | 'strict' | 'unordered';

async function load(events: Ev[]) {
  return h.load({ persons: persons(...new Set(events.map((e) => e.distinct_id))), events });
}
async function run(pid: number, q: Record<string, unknown>, project: Record<string, unknown> = {}) {
  return h.run(funnelsRunner, { kind: 'FunnelsQuery', ...q }, pid, project as any);
}

/** `_get_actor_ids_at_step`: the first distinct id of each actor at `funnelStep` (negative: dropped off before it), sorted. */
async function actorsAtStep(pid: number, source: Record<string, unknown>, funnelStep: number, funnelStepBreakdown?: unknown): Promise<string[]> {
  const r = await h.run(
    actorsRunner,
    { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: { kind: 'FunnelsQuery', ...source }, funnelStep, funnelStepBreakdown }, select: ['actor'], limit: 1000 },
    pid,
  );
  return (r.results as any[][]).map((row) => row[0].distinct_ids[0]).sort();
}

// ------------------------------------------------------------------------------------------------ conversion_time_cases.py

describe.each<Order>(['ordered', 'strict', 'unordered'])('conversion_time_cases.py (%s)', (funnelOrderType) => {
  it('test_funnel_with_multiple_incomplete_tries: the completed try sets the times, the incomplete ones are disregarded', async () => {
    const pid = await load([
      // completed the funnel on May 1
      ev('person1', 'user signed up', t(2021, 5, 1, 1)),
      ev('person1', '$pageview', t(2021, 5, 1, 2)),
      ev('person1', 'something else', t(2021, 5, 1, 3)),
      // part of the funnel on May 3 (2 hours) and May 4 (3 hours)
      ev('person1', 'user signed up', t(2021, 5, 3, 4)),
      ev('person1', '$pageview', t(2021, 5, 3, 6)),
      ev('person1', 'user signed up', t(2021, 5, 4, 7)),
      ev('person1', '$pageview', t(2021, 5, 4, 10)),
    ]);
    const source = {
      series: [E('user signed up'), E('$pageview'), E('something else')],
      dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-14 00:00:00' },
      funnelsFilter: { funnelOrderType, funnelWindowInterval: 1, funnelWindowIntervalUnit: 'day' },
    };
    const r = await run(pid, source);
    expect(counts(r)).toEqual([1, 1, 1]);
    if (funnelOrderType !== 'unordered') expect(r.results.map((s: any) => s.name)).toEqual(['user signed up', '$pageview', 'something else']);
    expect(r.results[1]).toMatchObject({ average_conversion_time: 3600, median_conversion_time: 3600 });
    expect(r.results[2]).toMatchObject({ average_conversion_time: 3600, median_conversion_time: 3600 });
    expect(await actorsAtStep(pid, source, 1)).toEqual(['person1']);
  });

  describe('test_funnel_times_with_different_conversion_windows', () => {
    let pid: number;
    beforeAll(async () => {
      pid = await load([
        ev('stopped_after_signup1', 'user signed up', t(2020, 1, 2, 14)),
        ev('stopped_after_signup1', 'pageview', t(2020, 1, 2, 14, 5)),
        ev('stopped_after_signup2', 'user signed up', t(2020, 1, 2, 14, 3)),
        ev('stopped_after_signup3', 'user signed up', t(2020, 1, 2, 12)),
        ev('stopped_after_signup3', 'pageview', t(2020, 1, 2, 12, 15)),
      ]);
    });
    const source = (funnelWindowInterval: number, funnelWindowIntervalUnit: string) => ({
      series: [E('user signed up'), E('pageview')],
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
      funnelsFilter: { funnelOrderType, funnelWindowInterval, funnelWindowIntervalUnit },
    });

    it('14 days: both conversions, average (300 + 900) / 2', async () => {
      const r = await run(pid, source(14, 'day'));
      expect(counts(r)).toEqual([3, 2]);
      expect(r.results[1]).toMatchObject({ average_conversion_time: 600, median_conversion_time: 600 });
      expect(await actorsAtStep(pid, source(14, 'day'), 1)).toEqual(['stopped_after_signup1', 'stopped_after_signup2', 'stopped_after_signup3']);
      expect(await actorsAtStep(pid, source(14, 'day'), 2)).toEqual(['stopped_after_signup1', 'stopped_after_signup3']);
    });

    it('5 minutes: a conversion exactly 5 minutes later is inside the window, 15 minutes is not', async () => {
      const r = await run(pid, source(5, 'minute'));
      expect(counts(r)).toEqual([3, 1]);
      expect(r.results[1]).toMatchObject({ average_conversion_time: 300, median_conversion_time: 300 });
      expect(await actorsAtStep(pid, source(5, 'minute'), 1)).toEqual(['stopped_after_signup1', 'stopped_after_signup2', 'stopped_after_signup3']);
      expect(await actorsAtStep(pid, source(5, 'minute'), 2)).toEqual(['stopped_after_signup1']);
      expect(await actorsAtStep(pid, source(5, 'minute'), -2)).toEqual(['stopped_after_signup2', 'stopped_after_signup3']);
    });
  });
});

// ------------------------------------------------------------------------------------------------ window units

describe('funnelWindowIntervalUnit week and month (§3.3: UDF window = interval × seconds, month = 31 days, week = 7 days)', () => {
  let pid: number;
  beforeAll(async () => {
    pid = await load([
      // exactly 7 days
      ev('week_exact', 'a', t(2024, 1, 1)),
      ev('week_exact', 'b', t(2024, 1, 8)),
      // 7 days and a minute
      ev('week_over', 'a', t(2024, 1, 1)),
      ev('week_over', 'b', t(2024, 1, 8, 0, 1)),
      // 30.5 days from Feb 1: past the calendar month (Mar 1), inside 31 days
      ev('month_31d', 'a', t(2024, 2, 1)),
      ev('month_31d', 'b', t(2024, 3, 2, 12)),
      // 31.5 days
      ev('month_over', 'a', t(2024, 2, 1)),
      ev('month_over', 'b', t(2024, 3, 3, 12)),
    ]);
  });
  const source = (funnelWindowIntervalUnit: string) => ({
    series: [E('a'), E('b')],
    dateRange: { date_from: '2024-01-01', date_to: '2024-03-31' },
    funnelsFilter: { funnelWindowInterval: 1, funnelWindowIntervalUnit },
  });

  it.each<[string, string[]]>([
    ['week', ['week_exact']],
    ['month', ['month_31d', 'week_exact', 'week_over']],
  ])('1 %s', async (unit, converted) => {
    expect(counts(await run(pid, source(unit)))).toEqual([4, converted.length]);
    expect(await actorsAtStep(pid, source(unit), 2)).toEqual(converted);
  });

  it.each<Order>(['strict', 'unordered'])('the same windows in a %s funnel', async (funnelOrderType) => {
    const q = (unit: string) => ({ ...source(unit), funnelsFilter: { ...source(unit).funnelsFilter, funnelOrderType } });
    expect(counts(await run(pid, q('week')))).toEqual([4, 1]);
    expect(counts(await run(pid, q('month')))).toEqual([4, 3]);
  });
});

// ------------------------------------------------------------------------------------------------ groups (test_funnel.py)

describe('test_funnel.py: group filters and group breakdowns', () => {
  it('test_funnel_with_groups_global_filtering: a global group property filter keeps only the events of that group', async () => {
    const pid = await loadWithGroups(h, [
      // the second event belongs to another group: the funnel is not completed
      ev('user_1', 'user signed up', t(2020, 1, 2, 14), { $group_0: 'org:5' }),
      ev('user_1', 'paid', t(2020, 1, 3, 14), { $group_0: 'org:6' }),
      // the first event belongs to another group: no entry
      ev('user_2', 'user signed up', t(2020, 1, 2, 14), { $group_0: 'org:6' }),
      ev('user_2', 'paid', t(2020, 1, 3, 14), { $group_0: 'org:5' }),
    ]);
    const source = {
      series: [E('user signed up'), E('paid')],
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
      properties: [{ key: 'industry', value: 'finance', operator: 'exact', type: 'group', group_type_index: 0 }],
    };
    expect(counts(await run(pid, source))).toEqual([1, 0]);
    expect(await actorsAtStep(pid, source, 1)).toEqual(['user_1']);
  });

  it('test_funnel_group_aggregation_with_groups_entity_filtering: a step filter on $group_0, aggregated by groups', async () => {
    const pid = await loadWithGroups(h, [
      ev('user_1', 'user signed up', t(2020, 1, 2, 14), { $group_0: 'org:5' }),
      // another person of the same group completes the group's funnel
      ev('user_2', 'paid', t(2020, 1, 3, 14), { $group_0: 'org:5' }),
      // filtered out by the step filter
      ev('user_3', 'user signed up', t(2020, 1, 2, 14), { $group_0: 'org:6' }),
      ev('user_3', 'paid', t(2020, 1, 3, 14), { $group_0: 'org:6' }),
    ]);
    const r = await run(pid, {
      series: [E('user signed up', { properties: [{ key: '$group_0', value: 'org:5', operator: 'exact', type: 'event' }] }), E('paid')],
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
      aggregation_group_type_index: 0,
    });
    expect(counts(r)).toEqual([1, 1]);
    expect(r.results[1]).toMatchObject({ average_conversion_time: 86400, median_conversion_time: 86400 });
  });

  it.each<Order>(['ordered', 'strict', 'unordered'])('test_funnel_breakdown_group (breakdown_cases.py, %s): persons broken down by a group property, values are scalar strings', async (funnelOrderType) => {
    const pid = await loadWithGroups(h, [
      ev('person1', 'sign up', t(2020, 1, 1, 12), { $group_0: 'org:5', $browser: 'Chrome' }),
      ev('person1', 'play movie', t(2020, 1, 1, 13), { $group_0: 'org:6', $browser: 'Chrome' }),
      ev('person1', 'buy', t(2020, 1, 1, 15), { $group_0: 'org:6', $browser: 'Chrome' }),
      ev('person2', 'sign up', t(2020, 1, 2, 14), { $group_0: 'org:6', $browser: 'Safari' }),
      ev('person2', 'play movie', t(2020, 1, 2, 16), { $group_0: 'org:6', $browser: 'Safari' }),
    ]);
    const source = {
      series: [E('sign up'), E('play movie'), E('buy')],
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
      funnelsFilter: { funnelOrderType, funnelWindowInterval: 7 },
      breakdownFilter: { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0 },
    };
    const r = await run(pid, source);
    const rows = (r.results as any[][]).map((steps) => [steps[0].breakdown_value, steps.map((s) => [s.breakdown, s.count, s.average_conversion_time])]);
    // first touch: person1's first event is in org:5 (finance); ordered by last-step count
    expect(rows).toEqual([
      [
        'finance',
        [
          ['finance', 1, null],
          ['finance', 1, 3600],
          ['finance', 1, 7200],
        ],
      ],
      [
        'technology',
        [
          ['technology', 1, null],
          ['technology', 1, 7200],
          ['technology', 0, null],
        ],
      ],
    ]);
    // "Querying persons when aggregating by persons should be ok, despite group breakdown"
    expect(await actorsAtStep(pid, source, 1, 'finance')).toEqual(['person1']);
    expect(await actorsAtStep(pid, source, 2, 'finance')).toEqual(['person1']);
    expect(await actorsAtStep(pid, source, 2, 'technology')).toEqual(['person2']);
    expect(await actorsAtStep(pid, source, 3, 'technology')).toEqual([]);
  });
  it('test_funnel_aggregation_with_groups_with_cohort_filtering: a person cohort filter on a group-aggregated funnel', async () => {
    const id = await loadWithGroups(h, [
      ev('user_1', 'user signed up', t(2020, 1, 2, 14), { $group_0: 'org:5' }),
      // another group of the same person
      ev('user_1', 'user signed up', t(2020, 1, 10, 14), { $group_0: 'org:6' }),
      // the same group, another person of the cohort
      ev('user_2', 'paid', t(2020, 1, 3, 14), { $group_0: 'org:5' }),
      // not in the cohort
      ev('user_3', 'user signed up', t(2020, 1, 2, 14), { $group_0: 'org:7' }),
      ev('user_3', 'paid', t(2020, 1, 3, 14), { $group_0: 'org:7' }),
    ]);
    const all = await h.run(actorsRunner, { kind: 'ActorsQuery', select: ['person'], limit: 10 }, id);
    const inCohort = (all.results as any[][]).filter((row) => row[0].distinct_ids[0] !== 'user_3').map((row) => row[0].id);
    const cohort: ResolvedCohort = { id: 931, name: 'fake emails', isStatic: true, group: null, personIds: inCohort };
    const r = await runWithCohorts(new Map([[931, cohort]]), () =>
      run(id, {
        series: [E('user signed up'), E('paid')],
        dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
        aggregation_group_type_index: 0,
        properties: [{ type: 'cohort', key: 'id', value: 931 }],
      }),
    );
    expect(r.results.map((s: any) => [s.name, s.count])).toEqual([
      ['user signed up', 2],
      ['paid', 1],
    ]);
  });

  it('a group breakdown past breakdown_limit: the rest is the string "Other" (reference §3.2: group values are scalar, "Other" for overflow)', async () => {
    const pid = await loadWithGroups(h, [
      ev('person1', 'sign up', t(2020, 1, 1, 12), { $group_0: 'org:5' }),
      ev('person1', 'buy', t(2020, 1, 1, 13), { $group_0: 'org:5' }),
      ev('person2', 'sign up', t(2020, 1, 2, 14), { $group_0: 'org:6' }),
    ]);
    const r = await run(pid, {
      series: [E('sign up'), E('buy')],
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-03' },
      breakdownFilter: { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0, breakdown_limit: 1 },
    });
    expect((r.results as any[][]).map((steps) => [steps[0].breakdown_value, steps.map((s) => s.count)])).toEqual([
      ['finance', [1, 1]],
      ['Other', [1, 0]],
    ]);
  });

  it('funnel trends by a group property: one series per value, the value a string as in the steps results', async () => {
    // PostHog's FunnelQueryContext boxes only event/person/hogql breakdowns into arrays (the group value stays a string,
    // as test_funnel_breakdown_group shows for steps); the trends rows carry the same value.
    const pid = await loadWithGroups(h, [
      ev('person1', 'sign up', t(2020, 1, 1, 12), { $group_0: 'org:5' }),
      ev('person1', 'buy', t(2020, 1, 1, 13), { $group_0: 'org:5' }),
      ev('person2', 'sign up', t(2020, 1, 2, 14), { $group_0: 'org:6' }),
      ev('person3', 'sign up', t(2020, 1, 2, 15), { $group_0: 'org:6' }),
      ev('person3', 'buy', t(2020, 1, 2, 16), { $group_0: 'org:6' }),
    ]);
    const r = await run(pid, {
      series: [E('sign up'), E('buy')],
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-03' },
      funnelsFilter: { funnelVizType: 'trends' },
      breakdownFilter: { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0 },
    });
    expect(r.results.map((s: any) => [s.breakdown_value, s.data])).toEqual([
      ['finance', [100, 0, 0]],
      ['technology', [0, 50, 0]],
    ]);
  });
});

// ------------------------------------------------------------------------------------------------ test_funnel_unordered.py

describe('test_funnel_unordered.py (fourth pass)', () => {
  it('test_big_multi_step_unordered_funnel (PostHog setup; counts derived from §3.3 "completed N distinct steps")', async () => {
    const pid = await load([
      ev('stopped_after_signup1', 'user signed up', t(2021, 5, 2)),
      ev('stopped_after_pageview1', '$pageview', t(2021, 5, 2)),
      ev('stopped_after_insightview', 'user signed up', t(2021, 5, 2)),
      ev('stopped_after_insightview', '$pageview', t(2021, 5, 3)),
      ev('stopped_after_insightview', 'insight viewed', t(2021, 5, 4)),
      // the same steps in reverse order
      ev('stopped_after_insightview2', 'insight viewed', t(2021, 5, 2)),
      ev('stopped_after_insightview2', '$pageview', t(2021, 5, 3)),
      ev('stopped_after_insightview2', 'user signed up', t(2021, 5, 4)),
      // and in a random order
      ev('stopped_after_insightview3', '$pageview', t(2021, 5, 2)),
      ev('stopped_after_insightview3', 'user signed up', t(2021, 5, 3)),
      ev('stopped_after_insightview3', 'insight viewed', t(2021, 5, 4)),
      ev('did_only_insight_view', 'insight viewed', t(2021, 5, 2)),
      ev('did_only_pageview', '$pageview', t(2021, 5, 2)),
      // two steps, one repeated
      ev('did_not_sign_up', '$pageview', t(2021, 5, 2)),
      ev('did_not_sign_up', 'insight viewed', t(2021, 5, 3)),
      ev('did_not_sign_up', '$pageview', t(2021, 5, 4)),
      // all four, but crying comes 8 days after the first step: outside the 7-day window of that entry, and the later
      // entries (pageview May 3 onwards) lack the sign-up
      ev('cried_too_late', 'user signed up', t(2021, 5, 1)),
      ev('cried_too_late', '$pageview', t(2021, 5, 3)),
      ev('cried_too_late', 'insight viewed', t(2021, 5, 4)),
      ev('cried_too_late', 'crying', t(2021, 5, 9)),
      // all four inside the window
      ev('did_all', 'crying', t(2021, 5, 2)),
      ev('did_all', 'insight viewed', t(2021, 5, 3)),
      ev('did_all', 'user signed up', t(2021, 5, 4)),
      ev('did_all', '$pageview', t(2021, 5, 5)),
    ]);
    const source = {
      series: [E('user signed up'), E('$pageview'), E('insight viewed'), E('crying')],
      dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-10 00:00:00' },
      funnelsFilter: { funnelOrderType: 'unordered', funnelWindowInterval: 7 },
    };
    const r = await run(pid, source);
    expect(r.results.map((s: any) => [s.name, s.action_id, s.count])).toEqual([
      ['Completed 1 step', null, 10],
      ['Completed 2 steps', null, 6],
      ['Completed 3 steps', null, 5],
      ['Completed 4 steps', null, 1],
    ]);
    expect(await actorsAtStep(pid, source, 3)).toEqual(['cried_too_late', 'did_all', 'stopped_after_insightview', 'stopped_after_insightview2', 'stopped_after_insightview3']);
    expect(await actorsAtStep(pid, source, -2)).toEqual(['did_only_insight_view', 'did_only_pageview', 'stopped_after_pageview1', 'stopped_after_signup1']);
    expect(await actorsAtStep(pid, source, -3)).toEqual(['did_not_sign_up']);
  });
});

describe('test_funnel_all_events_with_properties in the other orders (test_funnel_unordered_all_events_with_properties)', () => {
  it.each<Order>(['strict', 'unordered'])('%s: an all-events step with a property filter; a boolean property matches "true"', async (funnelOrderType) => {
    const pid = await load([ev('user', 'user signed up', t(2024, 1, 1, 10)), ev('user', 'added to card', t(2024, 1, 1, 11), { is_saved: true })]);
    const r = await run(pid, {
      series: [E('user signed up'), E(null, { properties: [{ key: 'is_saved', value: ['true'], operator: 'exact', type: 'event' }] })],
      dateRange: { date_from: '2024-01-01', date_to: '2024-01-02' },
      funnelsFilter: { funnelOrderType },
    });
    expect(counts(r)).toEqual([1, 1]);
  });
});

describe('test_funnel_step_breakdown_event_no_type (breakdown_cases.py): a breakdown without breakdown_type is an event breakdown', () => {
  it.each<Order>(['ordered', 'strict', 'unordered'])('%s', async (funnelOrderType) => {
    const pid = await load([
      ev('person1', 'sign up', t(2020, 1, 1, 12), { $browser: 'Chrome' }),
      ev('person1', 'play movie', t(2020, 1, 1, 13), { $browser: 'Chrome' }),
      ev('person1', 'buy', t(2020, 1, 1, 15), { $browser: 'Chrome' }),
      ev('person2', 'sign up', t(2020, 1, 2, 14), { $browser: 'Safari' }),
      ev('person2', 'play movie', t(2020, 1, 2, 16), { $browser: 'Safari' }),
    ]);
    const source = {
      series: [E('sign up'), E('play movie'), E('buy')],
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
      funnelsFilter: { funnelOrderType, funnelWindowInterval: 7 },
      breakdownFilter: { breakdown: '$browser' },
    };
    const r = await run(pid, source);
    expect((r.results as any[][]).map((steps) => [steps[0].breakdown_value, steps.map((s) => [s.breakdown, s.count, s.average_conversion_time])])).toEqual([
      [
        ['Chrome'],
        [
          [['Chrome'], 1, null],
          [['Chrome'], 1, 3600],
          [['Chrome'], 1, 7200],
        ],
      ],
      [
        ['Safari'],
        [
          [['Safari'], 1, null],
          [['Safari'], 1, 7200],
          [['Safari'], 0, null],
        ],
      ],
    ]);
    expect(await actorsAtStep(pid, source, 1, ['Chrome'])).toEqual(['person1']);
    expect(await actorsAtStep(pid, source, -3, ['Safari'])).toEqual(['person2']);
  });
});

describe('test_funnel_strict_persons.py: test_strict_funnel_person_recordings (the actors; Quarry keeps no recordings)', () => {
  it('an interrupting event ends the strict sequence at step two: the actor is at step 2 and drops off before step 3', async () => {
    const pid = await load([
      ev('user_1', 'step one', t(2021, 1, 2), { $session_id: 's1', $window_id: 'w1' }),
      ev('user_1', 'step two', t(2021, 1, 3), { $session_id: 's2', $window_id: 'w2' }),
      ev('user_1', 'interupting step', t(2021, 1, 4), { $session_id: 's2', $window_id: 'w2' }),
      ev('user_1', 'step three', t(2021, 1, 5), { $session_id: 's2', $window_id: 'w2' }),
    ]);
    const source = {
      series: [E('step one'), E('step two'), E('step three')],
      dateRange: { date_from: '2021-01-01', date_to: '2021-01-08' },
      interval: 'day',
      funnelsFilter: { funnelWindowInterval: 7, funnelOrderType: 'strict' },
    };
    expect(counts(await run(pid, source))).toEqual([1, 1, 0]);
    expect(await actorsAtStep(pid, source, 1)).toEqual(['user_1']);
    expect(await actorsAtStep(pid, source, 2)).toEqual(['user_1']);
    expect(await actorsAtStep(pid, source, -3)).toEqual(['user_1']);
    expect(await actorsAtStep(pid, source, 3)).toEqual([]);
    // the ordered funnel is not interrupted
    const ordered = { ...source, funnelsFilter: { funnelWindowInterval: 7 } };
    expect(await actorsAtStep(pid, ordered, 3)).toEqual(['user_1']);
  });
});

describe('TestFunnelUnorderedStepsBreakdown overrides (test_funnel_unordered.py)', () => {
  it('test_funnel_step_breakdown_event_single_person_events_with_multiple_properties: all_events, one person under two values', async () => {
    const pid = await load([
      ev('person1', 'sign up', '2020-01-01T12:00:00Z', { key: 'val', $browser: 'Chrome' }),
      ev('person1', 'sign up', '2020-01-02T13:00:00Z', { key: 'val', $browser: 'Safari' }),
      ev('person1', 'play movie', '2020-01-02T14:00:00Z', { key: 'val', $browser: 'Safari' }),
    ]);
    const source = {
      series: [E('sign up'), E('play movie')],
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
      funnelsFilter: { funnelOrderType: 'unordered', funnelWindowInterval: 7, breakdownAttributionType: 'all_events' },
      breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' },
    };
    const r = await run(pid, source);
    const rows = (r.results as any[][])
      .map((steps) => [steps[0].breakdown_value, steps.map((s) => [s.name, s.action_id, s.count, s.average_conversion_time, s.median_conversion_time, s.breakdown])])
      .sort((a: any, b: any) => (JSON.stringify(a[0]) < JSON.stringify(b[0]) ? -1 : 1));
    expect(rows).toEqual([
      [
        ['Chrome'],
        [
          ['Completed 1 step', null, 1, null, null, ['Chrome']],
          ['Completed 2 steps', null, 0, null, null, ['Chrome']],
        ],
      ],
      [
        ['Safari'],
        [
          ['Completed 1 step', null, 1, null, null, ['Safari']],
          ['Completed 2 steps', null, 1, 3600, 3600, ['Safari']],
        ],
      ],
    ]);
    expect(await actorsAtStep(pid, source, 1, 'Chrome')).toEqual(['person1']);
    expect(await actorsAtStep(pid, source, 2, 'Chrome')).toEqual([]);
    expect(await actorsAtStep(pid, source, 1, 'Safari')).toEqual(['person1']);
    expect(await actorsAtStep(pid, source, 2, 'Safari')).toEqual(['person1']);
  });
});
