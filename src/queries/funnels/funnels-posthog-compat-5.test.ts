/**
 * A fifth batch of PostHog's funnel cases (posthog/hogql_queries/insights/funnels/test/: test_funnel.py,
 * breakdown_cases.py, test_funnel_unordered.py, test_funnel_udf.py, test_funnel_strict_udf.py, test_funnel_trends.py),
 * the ones funnels-posthog-compat{,-2,-3,-4}.test.ts do not cover. Each case names the PostHog test it follows; the
 * expected values are PostHog's, or, where a case says so, derived from the reference's §3 rules on PostHog's setup.
 * Runs through the real runners on a real engine (DuckDB, or ClickHouse via the .clickhouse twin).
 */
import { funnelsRunner } from '../runners/funnels-runner';
import { actorsRunner } from '../runners/actors-runner';
import { byValue, counts, E, type Ev, ev, type Harness, loadWithGroups, openHarness, persons, PROPS_CHOSEN_JOURNEYS, t } from './testing';
import { runWithCohorts, type ResolvedCohort } from '../../cohorts/cohort-scope';

let h: Harness;
beforeAll(async () => {
  h = await openHarness();
});
afterAll(async () => {
  await h.close();
});

const X = (event: string, from: number, to: number) => ({ kind: 'EventsNode', event, funnelFromStep: from, funnelToStep: to });
type Person = { distinct_ids: string[]; properties: Record<string, unknown> };

async function load(events: Ev[], people: Person[] = []) {
  const covered = new Set(people.flatMap((p) => p.distinct_ids));
  return h.load({ persons: [...people, ...persons(...new Set(events.map((e) => e.distinct_id).filter((d) => !covered.has(d))))], events });
}
async function run(pid: number, q: Record<string, unknown>, project: Record<string, unknown> = {}) {
  return h.run(funnelsRunner, { kind: 'FunnelsQuery', ...q }, pid, project as any);
}
async function funnel(events: Ev[], q: Record<string, unknown>, project: Record<string, unknown> = {}) {
  return run(await load(events), q, project);
}

/** `_get_actor_ids_at_step`: each actor (a person's first distinct id, or a group key) at `funnelStep`, sorted. */
async function actorsAtStep(pid: number, source: Record<string, unknown>, funnelStep: number, funnelStepBreakdown?: unknown): Promise<string[]> {
  const r = await h.run(
    actorsRunner,
    { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: { kind: 'FunnelsQuery', ...source }, funnelStep, funnelStepBreakdown }, select: ['actor'], limit: 1000 },
    pid,
  );
  return (r.results as any[][]).map((row) => row[0].group_key ?? row[0].distinct_ids[0]).sort();
}

// ------------------------------------------------------------------------------------------------ test_funnel.py: groups

describe('test_funnel.py: group aggregation and group filters (fifth pass)', () => {
  it('test_funnel_aggregation_with_groups: the actors are the group keys', async () => {
    const pid = await loadWithGroups(h, [
      ev('user_1', 'user signed up', t(2020, 1, 2, 14), { $group_0: 'org:5' }),
      // same person, different group: a different step-1 actor
      ev('user_1', 'user signed up', t(2020, 1, 10, 14), { $group_0: 'org:6' }),
      // different person, same group: step two of org:5
      ev('user_2', 'paid', t(2020, 1, 3, 14), { $group_0: 'org:5' }),
    ]);
    const source = { series: [E('user signed up'), E('paid')], dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' }, aggregation_group_type_index: 0 };
    const r = await run(pid, source);
    expect(r.results.map((s: any) => [s.name, s.count])).toEqual([
      ['user signed up', 2],
      ['paid', 1],
    ]);
    expect(r.results[1].average_conversion_time).toBe(86400);
    expect(await actorsAtStep(pid, source, 1)).toEqual(['org:5', 'org:6']);
    expect(await actorsAtStep(pid, source, 2)).toEqual(['org:5']);
  });

  it('test_funnel_group_aggregation_with_groups_entity_filtering: the actors of a step-filtered group funnel', async () => {
    const pid = await loadWithGroups(h, [
      ev('user_1', 'user signed up', t(2020, 1, 2, 14), { $group_0: 'org:5' }),
      ev('user_2', 'paid', t(2020, 1, 3, 14), { $group_0: 'org:5' }),
      ev('user_3', 'user signed up', t(2020, 1, 2, 14), { $group_0: 'org:6' }),
      ev('user_3', 'paid', t(2020, 1, 3, 14), { $group_0: 'org:6' }),
    ]);
    const source = {
      series: [E('user signed up', { properties: [{ key: '$group_0', value: 'org:5', operator: 'exact', type: 'event' }] }), E('paid')],
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
      aggregation_group_type_index: 0,
    };
    expect(await actorsAtStep(pid, source, 1)).toEqual(['org:5']);
    expect(await actorsAtStep(pid, source, 2)).toEqual(['org:5']);
  });

  it('test_funnel_with_groups_entity_filtering: a group property on a person funnel step; the next step may be in any group', async () => {
    const pid = await loadWithGroups(h, [
      ev('user_1', 'user signed up', t(2020, 1, 2, 14), { $group_0: 'org:5' }),
      // different group, but it does not matter: the funnel is not aggregated by groups
      ev('user_1', 'paid', t(2020, 1, 3, 14), { $group_0: 'org:6' }),
      // the first event belongs to no group: no entry
      ev('user_2', 'user signed up', t(2020, 1, 2, 14)),
      ev('user_2', 'paid', t(2020, 1, 3, 14), { $group_0: 'org:6' }),
    ]);
    const source = {
      series: [E('user signed up', { properties: [{ key: 'industry', value: 'finance', operator: 'exact', type: 'group', group_type_index: 0 }] }), E('paid')],
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
    };
    const r = await run(pid, source);
    expect(r.results.map((s: any) => [s.name, s.count])).toEqual([
      ['user signed up', 1],
      ['paid', 1],
    ]);
    expect(r.results[1].average_conversion_time).toBe(86400);
    expect(await actorsAtStep(pid, source, 1)).toEqual(['user_1']);
    expect(await actorsAtStep(pid, source, 2)).toEqual(['user_1']);
  });
});

// ------------------------------------------------------------------------------------------------ test_funnel.py: steps

describe('test_funnel.py (fifth pass)', () => {
  it('test_basic_funnel_default_funnel_days_breakdown_event: the whole step objects of an event breakdown', async () => {
    const url = 'https://posthog.com/docs/x';
    const r = await funnel([ev('user_1', 'user signed up', t(2020, 1, 2, 14), { $current_url: url }), ev('user_1', 'paid', t(2020, 1, 10, 14), { $current_url: url })], {
      series: [E('user signed up'), E('paid')],
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
      funnelsFilter: { funnelWindowInterval: 14 },
      breakdownFilter: { breakdown_type: 'event', breakdown: ['$current_url'] },
    });
    expect(r.results).toEqual([
      [
        {
          action_id: 'user signed up',
          name: 'user signed up',
          custom_name: null,
          order: 0,
          people: [],
          count: 1,
          type: 'events',
          average_conversion_time: null,
          median_conversion_time: null,
          breakdown: [url],
          breakdown_value: [url],
        },
        {
          action_id: 'paid',
          name: 'paid',
          custom_name: null,
          order: 1,
          people: [],
          count: 1,
          type: 'events',
          average_conversion_time: 691200,
          median_conversion_time: 691200,
          breakdown: [url],
          breakdown_value: [url],
        },
      ],
    ]);
  });

  it('test_funnel_with_denormalised_properties: the same property as a step filter and a global filter (both events carry it)', async () => {
    const r = await funnel([ev('user_1', 'user signed up', t(2020, 1, 2, 14), { test_prop: 'hi' }), ev('user_1', 'paid', t(2020, 1, 10, 14), { test_prop: 'hi' })], {
      series: [E('user signed up', { properties: [{ key: 'test_prop', value: 'hi', type: 'event', operator: 'exact' }] }), E('paid')],
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
      properties: [{ key: 'test_prop', value: 'hi', type: 'event', operator: 'exact' }],
    });
    expect(r.results.map((s: any) => [s.name, s.count])).toEqual([
      ['user signed up', 1],
      ['paid', 1],
    ]);
    expect(r.results[1].average_conversion_time).toBe(691200);
  });

  it('test_funnel_exclusion_multiple_possible_no_end_event (both entries excluded inside their windows): no one is left, []', async () => {
    const r = await funnel(
      [
        ev('user_one', 'step one', t(2021, 5, 1, 0, 0, 0)),
        ev('user_one', 'exclusion', t(2021, 5, 1, 0, 0, 1)),
        ev('user_one', 'step one', t(2021, 5, 1, 0, 0, 31)),
        ev('user_one', 'exclusion', t(2021, 5, 1, 0, 0, 32)),
      ],
      {
        series: [E('step one'), E('step two')],
        dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-13 23:59:59' },
        funnelsFilter: { funnelWindowInterval: 10, funnelWindowIntervalUnit: 'second', exclusions: [X('exclusion', 0, 1)] },
      },
    );
    expect(r.results).toEqual([]);
  });
});

describe('exclusions: every partial sequence inside the range is checked (funnel UDF: each step of the range, not only the from step)', () => {
  const query = (from: number, to: number) => ({
    series: [E('a'), E('b'), E('c')],
    dateRange: { date_from: '2021-05-01', date_to: '2021-05-02' },
    funnelsFilter: { exclusions: [X('x', from, to)] },
  });
  // the first attempt reaches b; a second a replaces the entry at step 0; x comes before c
  const events = [ev('p', 'a', t(2021, 5, 1, 0)), ev('p', 'b', t(2021, 5, 1, 1)), ev('p', 'a', t(2021, 5, 1, 2)), ev('p', 'x', t(2021, 5, 1, 3)), ev('p', 'c', t(2021, 5, 1, 4))];

  it('a sequence past the from step is excluded even when a later entry took the from step: x between a and c', async () => {
    expect((await funnel(events, query(0, 2))).results).toEqual([]);
  });

  it('the same with the range starting at b', async () => {
    expect((await funnel(events, query(1, 2))).results).toEqual([]);
  });

  it('without the exclusion the first attempt completes', async () => {
    expect(counts(await funnel(events, { ...query(0, 2), funnelsFilter: {} }))).toEqual([1, 1, 1]);
  });
});

// ------------------------------------------------------------------------------------------------ test_funnel_udf.py

describe('test_funnel_udf.py', () => {
  it('test_events_same_timestamp_no_exclusions: many step-one events, then steps three and two at the same instant, complete the funnel', async () => {
    const events = Array.from({ length: 30 }, () => ev('test', 'step one', t(2024, 1, 10, 12, 1)));
    events.push(ev('test', 'step three', t(2024, 1, 10, 12, 1)), ev('test', 'step two', t(2024, 1, 10, 12, 1)));
    const r = await funnel(events, {
      series: [E('step one'), E('step two'), E('step three')],
      interval: 'hour',
      dateRange: { date_from: '2024-01-10 00:00:00', date_to: '2024-01-12 00:00:00' },
      funnelsFilter: { funnelWindowInterval: 15, funnelWindowIntervalUnit: 'second' },
    });
    expect(r.results[r.results.length - 1].count).toBe(1);
  });

  describe('test_different_prop_val_in_strict_filter', () => {
    let pid: number;
    beforeAll(async () => {
      pid = await load(
        [
          ev('many_other_events', 'first', t(2024, 1, 10, 12, 0), { bd: 'one' }),
          ev('many_other_events', 'first', t(2024, 1, 10, 12, 1), { bd: 'two' }),
          ev('many_other_events', 'unmatched', t(2024, 1, 10, 12, 2), { bd: 'one' }),
          ev('many_other_events', 'unmatched', t(2024, 1, 10, 12, 3), { bd: 'two' }),
          ev('many_other_events', 'second', t(2024, 1, 10, 12, 4), { bd: 'one' }),
          ev('many_other_events', 'second', t(2024, 1, 10, 12, 5), { bd: 'two' }),
        ],
        [{ distinct_ids: ['many_other_events'], properties: { test: 'okay' } }],
      );
    });
    const query = (breakdownAttributionType?: string) => ({
      series: [E('first'), E('second')],
      dateRange: { date_from: '2024-01-09', date_to: '2024-01-11' },
      breakdownFilter: { breakdown: 'bd' },
      funnelsFilter: { funnelOrderType: 'strict', ...(breakdownAttributionType ? { breakdownAttributionType } : {}) },
    });

    it('first touch: one value, "one"; the unmatched events break the sequence', async () => {
      const r = await run(pid, query());
      expect(r.results).toHaveLength(1);
      expect(r.results[0]).toHaveLength(2);
      expect(r.results[0][1].count).toBe(0);
      expect(r.results[0].every((s: any) => JSON.stringify(s.breakdown) === '["one"]')).toBe(true);
    });

    it('all_events: both values, neither converts', async () => {
      const r = await run(pid, query('all_events'));
      expect(r.results).toHaveLength(2);
      expect(byValue(r)).toEqual([
        [['one'], [1, 0]],
        [['two'], [1, 0]],
      ]);
    });
  });
});

describe('all_events attribution: each value is a funnel over the events of that value (funnel UDF loop_prop_val: `breakdown == prop_val`)', () => {
  it('strict: an event of another value does not interrupt the sequence', async () => {
    const r = await funnel(
      [
        ev('p', 'first', t(2024, 1, 10, 12, 0), { bd: 'one' }),
        ev('p', 'unmatched', t(2024, 1, 10, 12, 1), { bd: 'two' }),
        ev('p', 'second', t(2024, 1, 10, 12, 2), { bd: 'one' }),
        // an event of the same value does interrupt it
        ev('q', 'first', t(2024, 1, 10, 12, 0), { bd: 'one' }),
        ev('q', 'unmatched', t(2024, 1, 10, 12, 1), { bd: 'one' }),
        ev('q', 'second', t(2024, 1, 10, 12, 2), { bd: 'one' }),
      ],
      {
        series: [E('first'), E('second')],
        dateRange: { date_from: '2024-01-09', date_to: '2024-01-11' },
        breakdownFilter: { breakdown: 'bd' },
        funnelsFilter: { funnelOrderType: 'strict', breakdownAttributionType: 'all_events' },
      },
    );
    expect(byValue(r)).toEqual([[['one'], [2, 1]]]);
  });

  it('an exclusion event of another value does not exclude the sequence', async () => {
    const r = await funnel(
      [
        ev('p', 'sign up', t(2020, 1, 1, 12), { $browser: 'Chrome' }),
        ev('p', 'excluded', t(2020, 1, 1, 13), { $browser: 'Safari' }),
        ev('p', 'buy', t(2020, 1, 1, 14), { $browser: 'Chrome' }),
        ev('q', 'sign up', t(2020, 1, 1, 12), { $browser: 'Chrome' }),
        ev('q', 'excluded', t(2020, 1, 1, 13), { $browser: 'Chrome' }),
        ev('q', 'buy', t(2020, 1, 1, 14), { $browser: 'Chrome' }),
      ],
      {
        series: [E('sign up'), E('buy')],
        dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
        breakdownFilter: { breakdown: '$browser' },
        funnelsFilter: { breakdownAttributionType: 'all_events', exclusions: [X('excluded', 0, 1)] },
      },
    );
    expect(byValue(r)).toEqual([[['Chrome'], [1, 1]]]);
  });
});

// ------------------------------------------------------------------------------------------------ test_funnel_unordered.py

describe('TestFunnelUnorderedStepsBreakdown overrides (test_funnel_unordered.py, fifth pass)', () => {
  // FunnelUnordered runs one query per rotation of the steps and reads the attribution step among the rotated step
  // columns (prop_{breakdownAttributionValue}, ARRAY JOIN prop_vals): with two steps, rotation 0 takes the values of
  // the sign-ups and credits them with the runs starting at a sign-up, rotation 1 the values of the buys with the runs
  // starting at a buy ("Any step"). Each person counts under the value of each of its events.
  const journeys = [
    ev('person1', 'sign up', t(2020, 1, 1, 12), { $browser: 'Chrome' }),
    ev('person1', 'buy', t(2020, 1, 1, 13)),
    ev('person2', 'sign up', t(2020, 1, 1, 13)),
    ev('person2', 'buy', t(2020, 1, 2, 13), { $browser: 'Safari' }),
    ev('person3', 'sign up', t(2020, 1, 2, 14), { $browser: 'Mac' }),
    ev('person3', 'buy', t(2020, 1, 2, 15)),
    ev('person4', 'sign up', t(2020, 1, 2, 15), { $browser: 0 }),
    ev('person4', 'buy', t(2020, 1, 2, 16), { $browser: 'alakazam' }),
  ];
  const source = (breakdownAttributionValue: number) => ({
    series: [E('sign up'), E('buy')],
    dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
    funnelsFilter: { funnelWindowInterval: 7, funnelOrderType: 'unordered', breakdownAttributionType: 'step', breakdownAttributionValue },
    breakdownFilter: { breakdown_type: 'event', breakdown: ['$browser'] },
  });
  const sorted = (r: any) =>
    (r.results as any[][])
      .map((steps) => [steps[0].breakdown_value, steps.map((x) => [x.name, x.count, x.average_conversion_time])])
      .sort((a, b) => (JSON.stringify(a[0]) < JSON.stringify(b[0]) ? -1 : 1));
  let pid: number;
  beforeAll(async () => {
    pid = await load(journeys);
  });

  it('test_funnel_step_breakdown_with_step_attribution: six values; a run counts under the value of the step it starts at', async () => {
    const r = await run(pid, source(0));
    expect(r.results).toHaveLength(6);
    const done = (n: number, t: number | null) => [
      ['Completed 1 step', n, null],
      ['Completed 2 steps', t === null ? 0 : 1, t],
    ];
    expect(sorted(r)).toEqual([
      // person2's sign-up (no browser) converts a day later; person1's and person3's buys (no browser) start nothing
      [[''], [['Completed 1 step', 3, null], ['Completed 2 steps', 1, 86400]]],
      [['0'], done(1, 3600)],
      [['Chrome'], done(1, 3600)],
      [['Mac'], done(1, 3600)],
      [['Safari'], done(1, null)],
      [['alakazam'], done(1, null)],
    ]);
    expect(await actorsAtStep(pid, source(0), 1, [''])).toEqual(['person1', 'person2', 'person3']);
    expect(await actorsAtStep(pid, source(0), 2, [''])).toEqual(['person2']);
  });

  it('test_funnel_step_breakdown_with_step_one_attribution: step 1 of each rotation, the buys of the sign-up runs', async () => {
    const r = await run(pid, source(1));
    expect(r.results).toHaveLength(6);
    expect(sorted(r).map(([v, steps]: any) => [v, steps.map((x: any[]) => x[1])])).toEqual([
      [[''], [3, 2]],
      [['0'], [1, 0]],
      [['Chrome'], [1, 0]],
      [['Mac'], [1, 0]],
      [['Safari'], [1, 1]],
      [['alakazam'], [1, 1]],
    ]);
    expect(r.results[0].map((x: any) => [x.breakdown_value, x.count, x.average_conversion_time])).toEqual([
      [[''], 3, null],
      [[''], 2, 3600],
    ]);
    expect(await actorsAtStep(pid, source(1), 2, [''])).toEqual(['person1', 'person3']);
  });

  it('test_funnel_breakdown_correct_breakdown_props_are_chosen_for_step, unordered (derived from the rotations): step 1 with a filtered buy', async () => {
    // rotation 0 (runs from a sign-up) takes the values of the buys passing the $version filter: person2 Safari,
    // person3 Mac; rotation 1 (runs from such a buy) the sign-ups' values: person2 "", person3 Mac. person1's buy fails
    // the filter: no run of rotation 1, no value for rotation 0, so person1 is nowhere.
    const pid2 = await load([...PROPS_CHOSEN_JOURNEYS]);
    const r = await run(pid2, {
      series: [E('sign up'), E('buy', { properties: [{ type: 'event', key: '$version', value: 'xyz' }] })],
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
      funnelsFilter: { funnelWindowInterval: 7, funnelOrderType: 'unordered', breakdownAttributionType: 'step', breakdownAttributionValue: 1 },
      breakdownFilter: { breakdown_type: 'event', breakdown: ['$browser'] },
    });
    expect(byValue(r)).toEqual([
      [[''], [1, 0]],
      [['Mac'], [1, 1]],
      [['Safari'], [1, 1]],
    ]);
  });

  it('trends (derived: FunnelTrends over the same rotation rows): each value’s entries are the runs of its rotations', async () => {
    const q = source(0);
    const r = await run(pid, { ...q, dateRange: { date_from: '2020-01-01', date_to: '2020-01-03' }, funnelsFilter: { ...q.funnelsFilter, funnelVizType: 'trends' } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.data])).toEqual([
      // person2's sign-up converts; person1's buy (no browser) starts a run that goes nowhere; person3's on Jan 2
      [[''], [50, 0, 0]],
      [['0'], [0, 100, 0]],
      [['Chrome'], [100, 0, 0]],
      [['Mac'], [0, 100, 0]],
      [['Safari'], [0, 0, 0]],
      [['alakazam'], [0, 0, 0]],
    ]);
  });
});

describe('test_funnel_unordered.py: test_funnel_exclusions_full_window', () => {
  it('person2 has x between the two steps: out; persons 1 and 3 complete', async () => {
    const pid = await load([
      ev('person1', 'user signed up', t(2021, 5, 1, 1)),
      ev('person1', 'paid', t(2021, 5, 1, 2)),
      ev('person2', 'user signed up', t(2021, 5, 1, 3)),
      ev('person2', 'x', t(2021, 5, 1, 3, 30)),
      ev('person2', 'paid', t(2021, 5, 1, 4)),
      ev('person3', 'user signed up', t(2021, 5, 1, 5)),
      ev('person3', 'paid', t(2021, 5, 1, 6)),
    ]);
    const source = {
      series: [E('user signed up'), E('paid')],
      dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-14 00:00:00' },
      funnelsFilter: { funnelOrderType: 'unordered', funnelWindowInterval: 14, exclusions: [X('x', 0, 1)] },
    };
    const r = await run(pid, source);
    expect(r.results.map((s: any) => [s.name, s.count])).toEqual([
      ['Completed 1 step', 2],
      ['Completed 2 steps', 2],
    ]);
    expect(await actorsAtStep(pid, source, 1)).toEqual(['person1', 'person3']);
    expect(await actorsAtStep(pid, source, 2)).toEqual(['person1', 'person3']);
  });
});

// ------------------------------------------------------------------------------------------------ test_funnel_trends.py

describe('test_funnel_trends.py: interval tests (fifth pass)', () => {
  const userOne = [ev('user_one', 'step one', '2021-05-01T00:00:00Z'), ev('user_one', 'step two', '2021-05-01T01:00:00Z'), ev('user_one', 'step three', '2021-05-01T02:00:00Z')];
  const query = (interval: string) => ({
    series: [E('step one'), E('step two'), E('step three')],
    interval,
    dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 00:00:00' },
    funnelsFilter: { funnelVizType: 'trends', funnelWindowInterval: 7 },
  });

  it('test_hour_interval: 145 periods, from 1 May 00:00 to 7 May 00:00', async () => {
    const r = await funnel(userOne, query('hour'));
    expect(r.results).toHaveLength(1);
    expect(r.results[0].count).toBe(145);
    expect(r.results[0].data).toHaveLength(145);
    expect(r.results[0].days[0]).toBe('2021-05-01 00:00:00');
    expect(r.results[0].days[144]).toBe('2021-05-07 00:00:00');
    expect(r.results[0].data[0]).toBe(100);
    expect(r.results[0].data.slice(1).every((x: number) => x === 0)).toBe(true);
  });

  it('test_day_interval: 7 periods', async () => {
    const r = await funnel(userOne, query('day'));
    expect(r.results).toEqual([
      {
        count: 7,
        data: [100, 0, 0, 0, 0, 0, 0],
        days: ['2021-05-01', '2021-05-02', '2021-05-03', '2021-05-04', '2021-05-05', '2021-05-06', '2021-05-07'],
        labels: ['1-May-2021', '2-May-2021', '3-May-2021', '4-May-2021', '5-May-2021', '6-May-2021', '7-May-2021'],
      },
    ]);
  });
});

describe('funnel trends by the minute: days carry no time (FunnelTrends._format_single_summary adds " %H:%M:%S" for hours only; derived)', () => {
  it('three minutes: one date per period', async () => {
    const r = await funnel([ev('u', 'step one', t(2021, 5, 1, 10, 1, 10)), ev('u', 'step two', t(2021, 5, 1, 10, 1, 40))], {
      series: [E('step one'), E('step two')],
      interval: 'minute',
      dateRange: { date_from: '2021-05-01 10:00:00', date_to: '2021-05-01 10:02:00' },
      funnelsFilter: { funnelVizType: 'trends' },
    });
    expect(r.results).toEqual([{ count: 3, data: [0, 100, 0], days: ['2021-05-01', '2021-05-01', '2021-05-01'], labels: ['1-May-2021', '1-May-2021', '1-May-2021'] }]);
  });
});

describe('test_funnel_trends_udf.py: test_different_prop_val_in_strict_filter', () => {
  let pid: number;
  beforeAll(async () => {
    pid = await load(
      [
        ev('many_other_events', 'first', t(2024, 1, 2), { bd: 'one' }),
        ev('many_other_events', 'first', t(2024, 1, 3), { bd: 'two' }),
        ev('many_other_events', 'unmatched', t(2024, 1, 4), { bd: 'one' }),
        ev('many_other_events', 'unmatched', t(2024, 1, 5), { bd: 'two' }),
        ev('many_other_events', 'second', t(2024, 1, 6), { bd: 'one' }),
        ev('many_other_events', 'second', t(2024, 1, 7), { bd: 'two' }),
      ],
      [{ distinct_ids: ['many_other_events'], properties: { test: 'okay' } }],
    );
  });
  const query = (breakdownAttributionType?: string) => ({
    series: [E('first'), E('second')],
    breakdownFilter: { breakdown: 'bd' },
    dateRange: { date_from: '2024-01-01', date_to: '2024-01-08' },
    interval: 'day',
    funnelsFilter: { funnelOrderType: 'strict', funnelVizType: 'trends', ...(breakdownAttributionType ? { breakdownAttributionType } : {}) },
  });
  const days = ['2024-01-01', '2024-01-02', '2024-01-03', '2024-01-04', '2024-01-05', '2024-01-06', '2024-01-07', '2024-01-08'];

  it('first touch: one series, "one", nobody converts', async () => {
    expect((await run(pid, query())).results).toEqual([
      { breakdown_value: ['one'], count: 8, data: [0, 0, 0, 0, 0, 0, 0, 0], days, labels: days.map((d) => `${Number(d.slice(8))}-Jan-2024`) },
    ]);
  });

  it('all_events: a series per value, all zeros', async () => {
    const r = await run(pid, query('all_events'));
    expect(r.results).toHaveLength(2);
    expect(r.results.every((s: any) => s.data.every((x: number) => x === 0))).toBe(true);
    expect(r.results.map((s: any) => s.breakdown_value)).toEqual([['one'], ['two']]);
  });
});

describe('test_funnel_trends.py: test_funnel_trend_cohort_breakdown', () => {
  const inScope = <T>(cohorts: ResolvedCohort[], fn: () => Promise<T>): Promise<T> => runWithCohorts(new Map(cohorts.map((c) => [c.id, c])), fn);
  const TEST_COHORT: ResolvedCohort = { id: 951, name: 'test_cohort', isStatic: false, group: { type: 'AND', values: [{ key: 'key', value: 'value', type: 'person' }] as any }, personIds: [] };
  let pid: number;
  beforeAll(async () => {
    pid = await load(
      [
        ev('user_one', 'step one', t(2021, 5, 1)),
        ev('user_one', 'step two', t(2021, 5, 3)),
        ev('user_one', 'step three', t(2021, 5, 5)),
        ev('user_two', 'step one', t(2021, 5, 2)),
        ev('user_two', 'step two', t(2021, 5, 4)),
        ev('user_two', 'step three', t(2021, 5, 5)),
        ev('user_three', 'step one', t(2021, 5, 3)),
        ev('user_three', 'step two', t(2021, 5, 5)),
      ],
      ['user_one', 'user_two', 'user_three'].map((d) => ({ distinct_ids: [d], properties: { key: 'value' } })),
    );
  });
  const query = (breakdown: unknown[]) => ({
    series: [E('step one'), E('step two'), E('step three')],
    interval: 'day',
    dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-13 23:59:59' },
    funnelsFilter: { funnelVizType: 'trends', funnelWindowInterval: 7 },
    breakdownFilter: { breakdown_type: 'cohort', breakdown },
  });

  it('one series for the cohort; its breakdown_value is the cohort name (FunnelTrends._format_results: Cohort.name for an id)', async () => {
    const r = await inScope([TEST_COHORT], () => run(pid, query([951])));
    expect(r.results).toHaveLength(1);
    expect(r.results[0].data).toEqual([100, 100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(r.results[0].breakdown_value).toBe('test_cohort');
  });

  it('"all users" (cohort 0) is rendered as ["None"] (breakdown values None/[None]/0, reference §3.2)', async () => {
    const r = await inScope([TEST_COHORT], () => run(pid, query(['all'])));
    expect(r.results).toHaveLength(1);
    expect(r.results[0].data).toEqual([100, 100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(r.results[0].breakdown_value).toEqual(['None']);
  });
});

// ------------------------------------------------------------------------------------------------ test_funnel_time_to_convert.py

describe('test_funnel_time_to_convert.py: binCount clamping (FunnelTimeToConvert: a custom count is clamped to 1..90)', () => {
  let pid: number;
  beforeAll(async () => {
    pid = await load([
      ev('user a', 'step one', t(2021, 6, 8, 18)),
      ev('user a', 'step two', t(2021, 6, 8, 19)),
      ev('user a', 'step three', t(2021, 6, 8, 21)),
      ev('user b', 'step one', t(2021, 6, 9, 13)),
      ev('user b', 'step two', t(2021, 6, 9, 13, 37)),
      ev('user c', 'step one', t(2021, 6, 11, 7)),
      ev('user c', 'step two', t(2021, 6, 12, 6)),
    ]);
  });
  const q = (binCount: number) => ({
    series: [E('step one'), E('step two'), E('step three')],
    interval: 'day',
    dateRange: { date_from: '2021-06-07 00:00:00', date_to: '2021-06-13 23:59:59' },
    funnelsFilter: { funnelVizType: 'time_to_convert', funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day', funnelToStep: 1, binCount },
  });

  it('binCount 0 is one bin, not the automatic count', async () => {
    // conversion times 3600 (a), 2220 (b), 82800 (c): width ceil((82800 - 2220) / 1) = 80580
    const r = await run(pid, q(0));
    expect(r.results.bins).toEqual([
      [2220, 2],
      [82800, 1],
    ]);
    expect(r.results.average_conversion_time).toBe(29540);
  });

  it('binCount 100 is 90 bins (91 bin starts)', async () => {
    // width ceil(80580 / 90) = 896; a falls in bin 1, b in bin 0, c in bin 89
    const r = await run(pid, q(100));
    expect(r.results.bins).toHaveLength(91);
    expect(r.results.bins[0]).toEqual([2220, 1]);
    expect(r.results.bins[1]).toEqual([3116, 1]);
    expect(r.results.bins[89]).toEqual([2220 + 89 * 896, 1]);
    expect(r.results.bins[90]).toEqual([2220 + 90 * 896, 0]);
    expect(r.results.bins.reduce((a: number, b: [number, number]) => a + b[1], 0)).toBe(3);
  });
});

// ------------------------------------------------------------------------------------------------ breakdown_cases.py in the other orders

describe.each(['strict', 'unordered'])('breakdown_cases.py attribution tests in the %s steps breakdown suite', (funnelOrderType) => {
  const q = (ff: Record<string, unknown>, breakdown: unknown = ['$browser']) => ({
    series: [E('sign up'), E('buy')],
    dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
    funnelsFilter: { funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day', funnelOrderType, ...ff },
    breakdownFilter: { breakdown_type: 'event', breakdown },
  });
  const rows = (r: any) =>
    (r.results as any[][])
      .map((steps) => [steps[0].breakdown_value, steps.map((s) => [s.count, s.average_conversion_time])])
      .sort((a: any, b: any) => (JSON.stringify(a[0]) < JSON.stringify(b[0]) ? -1 : 1));
  const events = [
    ev('person1', 'sign up', t(2020, 1, 1, 12), { $browser: 'Chrome', $version: 'xyz' }),
    ev('person1', 'buy', t(2020, 1, 1, 13)),
    ev('person2', 'sign up', t(2020, 1, 1, 13)),
    ev('person2', 'buy', t(2020, 1, 2, 13), { $browser: 'Safari', $version: 'xyz' }),
    ev('person3', 'sign up', t(2020, 1, 2, 14), { $browser: 'Mac' }),
    ev('person3', 'buy', t(2020, 1, 2, 15), { $version: 'no-mac' }),
    // first touch means alakazam is disregarded
    ev('person4', 'sign up', t(2020, 1, 2, 15), { $browser: 0, $version: 0 }),
    ev('person4', 'buy', t(2020, 1, 2, 16), { $browser: 'alakazam' }),
    // no properties dude, represented by ''
    ev('person5', 'sign up', t(2020, 1, 2, 15)),
    ev('person5', 'buy', t(2020, 1, 2, 16)),
  ];
  let pid: number;
  beforeAll(async () => {
    pid = await load(events);
  });

  it('test_funnel_step_breakdown_with_first_touch_attribution', async () => {
    expect(rows(await run(pid, q({ breakdownAttributionType: 'first_touch' })))).toEqual([
      [[''], [[1, null], [1, 3600]]],
      [['0'], [[1, null], [1, 3600]]],
      [['Chrome'], [[1, null], [1, 3600]]],
      [['Mac'], [[1, null], [1, 3600]]],
      [['Safari'], [[1, null], [1, 86400]]],
    ]);
  });

  it('test_funnel_step_breakdown_with_last_touch_attribution', async () => {
    expect(rows(await run(pid, q({ breakdownAttributionType: 'last_touch' })))).toEqual([
      [[''], [[1, null], [1, 3600]]],
      [['Chrome'], [[1, null], [1, 3600]]],
      [['Mac'], [[1, null], [1, 3600]]],
      [['Safari'], [[1, null], [1, 86400]]],
      [['alakazam'], [[1, null], [1, 3600]]],
    ]);
  });

  it('test_funnel_step_multiple_breakdown_with_first_touch_attribution', async () => {
    expect(rows(await run(pid, q({ breakdownAttributionType: 'first_touch' }, ['$browser', '$version'])))).toEqual([
      [['', ''], [[1, null], [1, 3600]]],
      [['0', '0'], [[1, null], [1, 3600]]],
      [['Chrome', 'xyz'], [[1, null], [1, 3600]]],
      [['Mac', ''], [[1, null], [1, 3600]]],
      [['Safari', 'xyz'], [[1, null], [1, 86400]]],
    ]);
  });
});

// ------------------------------------------------------------------------------------------------ test_funnel_persons.py

describe('test_funnel_persons.py: test_basic_offset', () => {
  it('110 actors at step one: the default page is 100, offset 100 gives the other 10', async () => {
    const events: Ev[] = [];
    for (let i = 0; i < 110; i++) events.push(ev(`user_${i}`, 'step one', t(2021, 5, 1)));
    const pid = await load(events);
    const actorsQuery = (offset?: number) => ({
      kind: 'ActorsQuery',
      select: ['actor'],
      ...(offset !== undefined ? { offset } : {}),
      source: {
        kind: 'FunnelsActorsQuery',
        funnelStep: 1,
        source: {
          kind: 'FunnelsQuery',
          interval: 'day',
          series: [E('step one'), E('step two'), E('step three')],
          dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 00:00:00' },
          funnelsFilter: { funnelWindowInterval: 7 },
        },
      },
    });
    const first = await h.run(actorsRunner, actorsQuery(), pid);
    expect(first.results).toHaveLength(100);
    expect(first.hasMore).toBe(true);
    const rest = await h.run(actorsRunner, actorsQuery(100), pid);
    expect(rest.results).toHaveLength(10);
    const names = [...first.results, ...rest.results].map((row: any[]) => row[0].distinct_ids[0]);
    expect(new Set(names).size).toBe(110);
  });
});

// ------------------------------------------------------------------------------------------------ test_funnel_breakdowns_by_current_url.py

describe('test_funnel_breakdowns_by_current_url.py (TestBreakdownsByCurrentURL)', () => {
  let pid: number;
  beforeAll(async () => {
    pid = await load([
      ev('person1', 'watched movie', t(2021, 5, 1, 10, 10), { $current_url: 'https://example.com', $pathname: '' }),
      // trailing question mark
      ev('person1', 'watched movie', t(2021, 5, 1, 11, 10), { $current_url: 'https://example.com?', $pathname: '?' }),
      ev('person1', 'terminate funnel', t(2021, 5, 1, 11, 10)),
      // trailing slash
      ev('another_person', 'watched movie', t(2021, 5, 1, 12, 10), { $current_url: 'https://example.com/', $pathname: '/' }),
      // trailing hash
      ev('another_person', 'watched movie', t(2021, 5, 1, 13, 10), { $current_url: 'https://example.com#', $pathname: '#' }),
      ev('another_person', 'terminate funnel', t(2021, 5, 1, 13, 10)),
      // trailing hash
      ev('person2', 'watched movie', t(2021, 5, 1, 14, 10), { $current_url: 'https://example.com/home#', $pathname: '/home#' }),
      ev('person2', 'terminate funnel', t(2021, 5, 1, 14, 10)),
      // no trailing hash
      ev('person3', 'watched movie', t(2021, 5, 1, 15, 10), { $current_url: 'https://example.com/home', $pathname: '/home' }),
      ev('person3', 'terminate funnel', t(2021, 5, 1, 15, 10)),
    ]);
  });
  const query = (breakdown: string) => ({
    series: [E('watched movie'), E('terminate funnel')],
    dateRange: { date_from: '2021-05-01', date_to: '2021-05-02' },
    breakdownFilter: { breakdown, breakdown_type: 'event', breakdown_normalize_url: true },
  });
  // (PostHog lists the two values, both at [2, 2], in the engine's order: sorted here)
  const steps = (r: any) =>
    (r.results as any[][])
      .flatMap((value) => value.map((s) => [s.name, s.count, s.breakdown]))
      .sort((a, b) => (JSON.stringify(a[2]) < JSON.stringify(b[2]) ? -1 : JSON.stringify(a[2]) > JSON.stringify(b[2]) ? 1 : 0));

  it('test_breakdown_by_pathname', async () => {
    expect(steps(await run(pid, query('$pathname')))).toEqual([
      ['watched movie', 2, ['/']],
      ['terminate funnel', 2, ['/']],
      ['watched movie', 2, ['/home']],
      ['terminate funnel', 2, ['/home']],
    ]);
  });

  it('test_breakdown_by_current_url', async () => {
    expect(steps(await run(pid, query('$current_url')))).toEqual([
      ['watched movie', 2, ['https://example.com']],
      ['terminate funnel', 2, ['https://example.com']],
      ['watched movie', 2, ['https://example.com/home']],
      ['terminate funnel', 2, ['https://example.com/home']],
    ]);
  });
});

// ------------------------------------------------------------------------------------------------ validation

describe('test_funnel_exclusions_invalid_params: the messages of FunnelBase’s exclusion checks', () => {
  const source = (exclusions: unknown[], extra: Record<string, unknown> = {}) => ({
    series: [E('user signed up'), E('paid')],
    dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
    funnelsFilter: { funnelWindowInterval: 14, exclusions, ...extra },
  });
  let pid: number;
  beforeAll(async () => {
    pid = await load([ev('user_1', 'user signed up', t(2020, 1, 2, 14))]);
  });

  it.each<[string, number, number, string]>([
    ['from = to', 1, 1, 'Exclusion event range is invalid. End of range should be greater than start.'],
    ['from > to', 2, 1, 'Exclusion event range is invalid. End of range should be greater than start.'],
    ['a range starting at the last step', 1, 2, 'Exclusion event range is invalid. Start of range is greater than number of steps.'],
    ['a range ending past the last step', 0, 2, 'Exclusion event range is invalid. End of range is greater than number of steps.'],
  ])('%s (%d → %d)', async (_n, from, to, message) => {
    await expect(run(pid, source([X('x', from, to)]))).rejects.toMatchObject({ status: 400, message });
  });

  it('unordered: an exclusion that is a step event is refused for that, before its partial range', async () => {
    const three = { ...source([X('paid', 0, 1)], { funnelOrderType: 'unordered' }), series: [E('user signed up'), E('paid'), E('buy')] };
    await expect(run(pid, three)).rejects.toMatchObject({ status: 400, message: "Exclusion steps cannot contain an event that's part of funnel steps." });
    const partial = { ...three, funnelsFilter: { ...three.funnelsFilter, exclusions: [X('x', 0, 1)] } };
    await expect(run(pid, partial)).rejects.toMatchObject({ status: 400, message: 'Partial Exclusion not allowed in unordered funnels' });
  });
});

// ------------------------------------------------------------------------------------------------ date range

describe('explicitDate: the range is used verbatim (reference §1.5; derived)', () => {
  it('events outside the exact times neither enter nor convert', async () => {
    const pid = await load([
      ev('a', 'step one', t(2021, 5, 1, 10, 30)),
      ev('a', 'step two', t(2021, 5, 1, 11, 30)),
      ev('b', 'step one', t(2021, 5, 1, 9, 30)),
      ev('b', 'step two', t(2021, 5, 1, 10, 30)),
      ev('c', 'step one', t(2021, 5, 1, 11)),
      ev('c', 'step two', t(2021, 5, 1, 12, 30)),
    ]);
    const q = (explicitDate: boolean) => ({
      series: [E('step one'), E('step two')],
      dateRange: { date_from: '2021-05-01 10:00:00', date_to: '2021-05-01 12:00:00', explicitDate },
    });
    expect(counts(await run(pid, q(true)))).toEqual([2, 1]);
    expect(counts(await run(pid, q(false)))).toEqual([3, 3]);
  });
});
