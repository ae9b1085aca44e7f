/**
 * An eighth batch of PostHog's funnel cases (posthog/hogql_queries/insights/funnels/test/: test_funnel.py,
 * test_funnel_strict.py, test_funnel_unordered.py, test_funnel_trends.py, test_funnel_time_to_convert.py,
 * breakdown_cases.py, breakdown_group_cases.py), the ones funnels-posthog-compat{,-2,…,-7}.test.ts do not cover: the
 * conversion window across a DST change, every funnelWindowIntervalUnit at its exact bound, funnels aggregated by a
 * ProductQL expression in the trends and time-to-convert visualisations, which aggregation wins when a group index and
 * funnelAggregateByHogQL are both given (and "person_id"), multi-property breakdowns under all_events/first/last touch,
 * exclusions with a breakdown, group funnels broken down by a group property in strict and unordered order, the
 * time-to-convert step-range message, and step filters in a strict funnel. Each case names the PostHog test it
 * follows; the expected values are PostHog's, or, where a case says "derived", follow from the reference's §3 rules on
 * PostHog's setup. Runs through the real runners on a real engine (DuckDB, or ClickHouse via the .clickhouse twin).
 */
import { funnelsRunner } from '../runners/funnels-runner';
import { actorsRunner } from '../runners/actors-runner';
import { E, type Ev, ev, type Harness, loadWithGroups, openHarness, persons, t, writeGroups } from './testing';

let h: Harness;
beforeAll(async () => {
  h = await openHarness();
});
afterAll(async () => {
  await h.close();
});

async function load(events: Ev[]) {
  return h.load({ persons: persons(...new Set(events.map((e) => e.distinct_id))), events });
}
async function run(pid: number, q: Record<string, unknown>, project: Record<string, unknown> = {}) {
  return h.run(funnelsRunner, { kind: 'FunnelsQuery', ...q }, pid, project as any);
}
/** The actors of a FunnelsActorsQuery over `q`: each actor's first distinct id, sorted. */
async function actorsOf(pid: number, q: Record<string, unknown>, point: Record<string, unknown>, project: Record<string, unknown> = {}): Promise<string[]> {
  const r = await h.run(
    actorsRunner,
    { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: { kind: 'FunnelsQuery', ...q }, ...point }, select: ['actor'], limit: 1000 },
    pid,
    project as any,
  );
  return (r.results as any[][]).map((row) => row[0].group_key ?? row[0].distinct_ids[0]).sort();
}
const stepRows = (r: any) => (r.results as any[]).map((s) => [s.name, s.count, s.average_conversion_time, s.median_conversion_time]);
const byValue = (r: any) => (r.results as any[][]).map((steps) => [steps[0].breakdown_value, steps.map((s) => [s.count, s.average_conversion_time])]);

// ------------------------------------------------------------------------------------------------ test_funnel.py

describe('test_funnel.py: test_funnel_window_ignores_dst_transition', () => {
  // user_1: $pageview Mar 1 15:10 UTC, signed up Mar 15 14:27 UTC — 43 minutes inside the 14-day window. In US/Pacific
  // the clocks move forward on Mar 10, so the local wall-clock gap is 14 days and 17 minutes: the window must be
  // measured in seconds, not in local calendar days. user_2 signs up a minute past the window in every zone.
  const q = {
    series: [E('$pageview'), E('user signed up')],
    dateRange: { date_from: '2024-02-17', date_to: '2024-03-18' },
  };
  const converted = 14 * 86400 - 43 * 60;
  let pid: number;
  beforeAll(async () => {
    pid = await load([
      ev('user_1', '$pageview', t(2024, 3, 1, 15, 10)),
      ev('user_1', 'user signed up', t(2024, 3, 15, 14, 27)),
      ev('user_2', '$pageview', t(2024, 3, 1, 15, 10)),
      ev('user_2', 'user signed up', t(2024, 3, 15, 15, 11)),
    ]);
  });

  it.each(['UTC', 'US/Pacific'])('%s: user_1 converts, user_2 does not; the conversion time is the same', async (timezone) => {
    expect(stepRows(await run(pid, q, { timezone }))).toEqual([
      ['$pageview', 2, null, null],
      ['user signed up', 1, converted, converted],
    ]);
    expect(await actorsOf(pid, q, { funnelStep: 2 }, { timezone })).toEqual(['user_1']);
  });

  it.each(['strict', 'unordered'])('US/Pacific, %s order: the same window', async (funnelOrderType) => {
    const r = await run(pid, { ...q, funnelsFilter: { funnelOrderType } }, { timezone: 'US/Pacific' });
    expect(r.results.map((s: any) => s.count)).toEqual([2, 1]);
    expect(r.results[1].average_conversion_time).toBe(converted);
  });

  it('US/Pacific, time_to_convert: one sample, one bin of 60 s', async () => {
    const r = await run(pid, { ...q, funnelsFilter: { funnelVizType: 'time_to_convert' } }, { timezone: 'US/Pacific' });
    expect(r.results).toEqual({ bins: [[converted, 1], [converted + 60, 0]], average_conversion_time: converted, median_conversion_time: converted });
  });

  it('US/Pacific, trends: the Mar 1 entries (user_1 converts, user_2 does not) are 50, other days 0', async () => {
    const r = await run(pid, { ...q, funnelsFilter: { funnelVizType: 'trends' } }, { timezone: 'US/Pacific' });
    const data: number[] = r.results[0].data;
    const days: string[] = r.results[0].days;
    expect(data[days.indexOf('2024-03-01')]).toBe(50);
    expect(data.filter((x, i) => days[i] !== '2024-03-01')).toEqual(new Array(days.length - 1).fill(0));
  });
});

describe('funnelWindowInterval 2 in every funnelWindowIntervalUnit (test_funnel_conversion_window / _seconds; §3.3: UDF window = interval × seconds, week 7 days, month 31 days)', () => {
  // For each unit u: `${u}_in` converts exactly 2 units after its entry, `${u}_out` one second later.
  const UNIT_S: [string, number][] = [
    ['second', 1],
    ['minute', 60],
    ['hour', 3600],
    ['day', 86400],
    ['week', 7 * 86400],
    ['month', 31 * 86400],
  ];
  let pid: number;
  beforeAll(async () => {
    const t0 = Date.parse('2024-01-01T00:00:00Z');
    pid = await load(
      UNIT_S.flatMap(([u, s]) => [
        ev(`${u}_in`, 'a', new Date(t0).toISOString()),
        ev(`${u}_in`, 'b', new Date(t0 + 2 * s * 1000).toISOString()),
        ev(`${u}_out`, 'a', new Date(t0).toISOString()),
        ev(`${u}_out`, 'b', new Date(t0 + (2 * s + 1) * 1000).toISOString()),
      ]),
    );
  });
  const converted: Record<string, string[]> = {
    second: ['second_in'],
    minute: ['minute_in', 'second_in', 'second_out'],
    hour: ['hour_in', 'minute_in', 'minute_out', 'second_in', 'second_out'],
    day: ['day_in', 'hour_in', 'hour_out', 'minute_in', 'minute_out', 'second_in', 'second_out'],
    week: ['day_in', 'day_out', 'hour_in', 'hour_out', 'minute_in', 'minute_out', 'second_in', 'second_out', 'week_in'],
    month: ['day_in', 'day_out', 'hour_in', 'hour_out', 'minute_in', 'minute_out', 'month_in', 'second_in', 'second_out', 'week_in', 'week_out'],
  };
  const q = (funnelWindowIntervalUnit: string, funnelOrderType: string) => ({
    series: [E('a'), E('b')],
    dateRange: { date_from: '2024-01-01', date_to: '2024-03-31' },
    funnelsFilter: { funnelWindowInterval: 2, funnelWindowIntervalUnit, funnelOrderType },
  });

  it.each(UNIT_S.flatMap(([u]) => ['ordered', 'strict'].map((o) => [u, o])))('%s, %s', async (unit, order) => {
    expect((await run(pid, q(unit, order))).results.map((s: any) => s.count)).toEqual([12, converted[unit].length]);
    expect(await actorsOf(pid, q(unit, order), { funnelStep: 2 })).toEqual(converted[unit]);
  });
});

// ------------------------------------------------------------------------------------------------ funnelAggregateByHogQL

describe('funnelAggregateByHogQL in the trends and time-to-convert visualisations (test_funnel.py test_hogql_aggregation; derived: each session is an actor)', () => {
  // One person, three sessions: s1 converts in 5 minutes on May 1, s2 (May 1) does not, s3 converts in 10 minutes on
  // May 2. An event without a session is nobody's.
  let pid: number;
  beforeAll(async () => {
    pid = await load([
      ev('p', '$pageview', t(2021, 5, 1, 10), { $session_id: 's1' }),
      ev('p', 'signed up', t(2021, 5, 1, 10, 5), { $session_id: 's1' }),
      ev('p', '$pageview', t(2021, 5, 1, 11), { $session_id: 's2' }),
      ev('p', '$pageview', t(2021, 5, 2, 10), { $session_id: 's3' }),
      ev('p', 'signed up', t(2021, 5, 2, 10, 10), { $session_id: 's3' }),
      ev('p', '$pageview', t(2021, 5, 3, 10)),
      ev('p', 'signed up', t(2021, 5, 3, 10, 1)),
    ]);
  });
  const q = (funnelsFilter: Record<string, unknown>) => ({
    series: [E('$pageview'), E('signed up')],
    dateRange: { date_from: '2021-05-01', date_to: '2021-05-03' },
    funnelsFilter: { funnelAggregateByHogQL: 'properties.$session_id', ...funnelsFilter },
  });

  it('steps: three sessions enter, two convert', async () => {
    expect(stepRows(await run(pid, q({})))).toEqual([
      ['$pageview', 3, null, null],
      ['signed up', 2, 450, 450],
    ]);
  });

  it('trends: May 1 is 50% (s1 of s1, s2), May 2 100%, May 3 nobody (the session-less events are left out)', async () => {
    const r = await run(pid, q({ funnelVizType: 'trends' }));
    expect(r.results.map((s: any) => [s.days, s.data])).toEqual([[['2021-05-01', '2021-05-02', '2021-05-03'], [50, 100, 0]]]);
  });

  it('by person instead: one person per day, converted every day', async () => {
    const r = await run(pid, { ...q({ funnelVizType: 'trends' }), funnelsFilter: { funnelVizType: 'trends' } });
    expect(r.results[0].data).toEqual([100, 100, 100]);
  });

  it('time_to_convert: two samples (300 s, 600 s), two bins of 150 s', async () => {
    const r = await run(pid, q({ funnelVizType: 'time_to_convert' }));
    expect(r.results).toEqual({ bins: [[300, 1], [450, 0], [600, 1]], average_conversion_time: 450, median_conversion_time: 450 });
  });
});

describe('FunnelEventQuery._aggregation_target_expr: groups first, then funnelAggregateByHogQL unless it is "person_id"', () => {
  // user_1 signs up in session s1 and pays in session s2, both in org:5; user_2 signs up in org:6 (session s3); a
  // personless visitor signs up and pays.
  let pid: number;
  beforeAll(async () => {
    pid = await loadWithGroups(h, [
      ev('user_1', 'user signed up', t(2020, 1, 2, 14), { $group_0: 'org:5', $session_id: 's1' }),
      ev('user_1', 'paid', t(2020, 1, 3, 14), { $group_0: 'org:5', $session_id: 's2' }),
      ev('user_2', 'user signed up', t(2020, 1, 2, 14), { $group_0: 'org:6', $session_id: 's3' }),
    ]);
    const r = await h.ingestor.import(pid, {
      events: [
        ev('anon', 'user signed up', t(2020, 1, 2, 15), { $process_person_profile: false }),
        ev('anon', 'paid', t(2020, 1, 2, 16), { $process_person_profile: false }),
      ],
    });
    if (r.errors.length) throw new Error(JSON.stringify(r.errors));
    await h.ingestor.flush();
  });
  const q = (extra: Record<string, unknown>, funnelsFilter: Record<string, unknown> = {}) => ({
    series: [E('user signed up'), E('paid')],
    dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
    ...extra,
    funnelsFilter,
  });

  it('aggregation_group_type_index with funnelAggregateByHogQL: the groups are the actors (org:5 converts, org:6 does not)', async () => {
    const source = q({ aggregation_group_type_index: 0 }, { funnelAggregateByHogQL: 'properties.$session_id' });
    expect((await run(pid, source)).results.map((s: any) => s.count)).toEqual([2, 1]);
    expect(await actorsOf(pid, source, { funnelStep: 2 })).toEqual(['org:5']);
    expect(await actorsOf(pid, source, { funnelStep: -2 })).toEqual(['org:6']);
  });

  it.each(['strict', 'unordered'])('the same in a %s funnel', async (funnelOrderType) => {
    const source = q({ aggregation_group_type_index: 0 }, { funnelAggregateByHogQL: 'properties.$session_id', funnelOrderType });
    expect((await run(pid, source)).results.map((s: any) => s.count)).toEqual([2, 1]);
  });

  it('sessions without a group index: s1, s3 and nobody else enter (the personless events have no session)', async () => {
    expect((await run(pid, q({}, { funnelAggregateByHogQL: 'properties.$session_id' }))).results.map((s: any) => s.count)).toEqual([2, 0]);
  });

  it('"person_id" is the person, as without funnelAggregateByHogQL: the personless visitor counts (test_funnel_personless_events_are_supported)', async () => {
    const byPerson = await run(pid, q({}));
    expect(byPerson.results.map((s: any) => s.count)).toEqual([3, 2]);
    expect((await run(pid, q({}, { funnelAggregateByHogQL: 'person_id' }))).results).toEqual(byPerson.results);
    expect((await run(pid, q({}, { funnelAggregateByHogQL: 'person_id', funnelVizType: 'trends' }))).results[0].data.slice(0, 3)).toEqual([0, 66.67, 0]);
  });
});

// ------------------------------------------------------------------------------------------------ breakdown_cases.py

describe('breakdown_cases.py: test_funnel_step_breakdown_event_single_person_events_with_multiple_properties with two breakdown properties', () => {
  // person1 signs up with Chrome/Mac, then plays a movie, signs up and plays again with Safari/Windows (derived from the
  // single-property PostHog case: all_events gives a funnel per value, first_touch one under the first value).
  let pid: number;
  beforeAll(async () => {
    pid = await load([
      ev('person1', 'sign up', t(2020, 1, 1, 12), { $browser: 'Chrome', $os: 'Mac' }),
      ev('person1', 'play movie', t(2020, 1, 2, 12, 30), { $browser: 'Safari', $os: 'Windows' }),
      ev('person1', 'sign up', t(2020, 1, 2, 13), { $browser: 'Safari', $os: 'Windows' }),
      ev('person1', 'play movie', t(2020, 1, 2, 14), { $browser: 'Safari', $os: 'Windows' }),
    ]);
  });
  const q = (breakdownAttributionType: string) => ({
    series: [E('sign up'), E('play movie')],
    dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
    breakdownFilter: { breakdown: ['$browser', '$os'], breakdown_type: 'event' },
    funnelsFilter: { breakdownAttributionType },
  });

  it('all_events: a funnel per value pair, ranked by the last step', async () => {
    expect(byValue(await run(pid, q('all_events')))).toEqual([
      [['Safari', 'Windows'], [[1, null], [1, 3600]]],
      [['Chrome', 'Mac'], [[1, null], [0, null]]],
    ]);
  });

  it('first_touch: one funnel under the first pair, converting with the first play movie', async () => {
    expect(byValue(await run(pid, q('first_touch')))).toEqual([[['Chrome', 'Mac'], [[1, null], [1, 88200]]]]);
  });

  it('last_touch: the same funnel under the last pair', async () => {
    expect(byValue(await run(pid, q('last_touch')))).toEqual([[['Safari', 'Windows'], [[1, null], [1, 88200]]]]);
  });

  it('the actors of a value pair', async () => {
    expect(await actorsOf(pid, q('all_events'), { funnelStep: 2, funnelStepBreakdown: ['Safari', 'Windows'] })).toEqual(['person1']);
    expect(await actorsOf(pid, q('all_events'), { funnelStep: 2, funnelStepBreakdown: ['Chrome', 'Mac'] })).toEqual([]);
    expect(await actorsOf(pid, q('all_events'), { funnelStep: -2, funnelStepBreakdown: ['Chrome', 'Mac'] })).toEqual(['person1']);
  });
});

describe('exclusions with a breakdown (test_funnel.py test_advanced_funnel_exclusions_between_steps with breakdown_cases.py; derived)', () => {
  // p1 (Chrome) has x between the steps: excluded. p2 (Chrome) converts. p3 (Safari) has x and never converts: excluded
  // too (test_funnel_exclusion_no_end_event), so Safari has no row. p4 (Firefox) does step one only.
  let pid: number;
  beforeAll(async () => {
    pid = await load([
      ev('p1', 'a', t(2021, 5, 1, 1), { $browser: 'Chrome' }),
      ev('p1', 'x', t(2021, 5, 1, 2), { $browser: 'Chrome' }),
      ev('p1', 'b', t(2021, 5, 1, 3), { $browser: 'Chrome' }),
      ev('p2', 'a', t(2021, 5, 1, 1), { $browser: 'Chrome' }),
      ev('p2', 'b', t(2021, 5, 1, 3), { $browser: 'Chrome' }),
      ev('p3', 'a', t(2021, 5, 1, 1), { $browser: 'Safari' }),
      ev('p3', 'x', t(2021, 5, 1, 2), { $browser: 'Safari' }),
      ev('p4', 'a', t(2021, 5, 1, 1), { $browser: 'Firefox' }),
    ]);
  });
  const q = (funnelsFilter: Record<string, unknown> = {}) => ({
    series: [E('a'), E('b')],
    dateRange: { date_from: '2021-05-01', date_to: '2021-05-07' },
    breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
    funnelsFilter: { exclusions: [{ kind: 'EventsNode', event: 'x', funnelFromStep: 0, funnelToStep: 1 }], ...funnelsFilter },
  });

  it.each(['ordered', 'strict', 'unordered'])('%s', async (funnelOrderType) => {
    const r = await run(pid, q({ funnelOrderType }));
    expect(r.results.map((steps: any[]) => [steps[0].breakdown_value, steps.map((s) => s.count)])).toEqual([
      [['Chrome'], [1, 1]],
      [['Firefox'], [1, 0]],
    ]);
  });

  it('the actors of Chrome at step two', async () => {
    expect(await actorsOf(pid, q(), { funnelStep: 2, funnelStepBreakdown: ['Chrome'] })).toEqual(['p2']);
  });
});

describe('breakdown_group_cases.py in TestStrictFunnelGroupBreakdown / TestUnorderedFunnelGroupBreakdown: test_funnel_aggregate_by_groups_breakdown_group', () => {
  // The ordered case is in funnels-posthog-compat-3; the factory runs the same case for every order. org:6's steps are
  // done by two persons: the group's own events are consecutive, so the strict funnel converts too.
  let pid: number;
  beforeAll(async () => {
    pid = await h.load({ persons: persons('person1', 'person2', 'person3'), events: [] });
    await writeGroups(h, pid, [
      [0, 'org:5', { industry: 'finance' }],
      [0, 'org:6', { industry: 'technology' }],
      [1, 'company:1', { industry: 'finance' }],
      [1, 'company:2', { industry: 'technology' }],
    ]);
    const g5 = { $group_0: 'org:5' };
    const g6 = { $group_0: 'org:6' };
    const r = await h.ingestor.import(pid, {
      events: [
        ev('person1', 'sign up', t(2020, 1, 1, 12), g5),
        ev('person1', 'play movie', t(2020, 1, 2, 12), g5),
        ev('person1', 'buy', t(2020, 1, 3, 12), g5),
        ev('person2', 'sign up', t(2020, 1, 2, 14), g6),
        ev('person2', 'play movie', t(2020, 1, 2, 16), g6),
        ev('person3', 'buy', t(2020, 1, 2, 18), g6),
        // an event of no group between org:6's steps is not one of the group's events
        ev('person2', 'other', t(2020, 1, 2, 15)),
      ],
    });
    if (r.errors.length) throw new Error(JSON.stringify(r.errors));
    await h.ingestor.flush();
  });

  it.each(['strict', 'unordered'])('%s', async (funnelOrderType) => {
    const source = {
      series: [E('sign up'), E('play movie'), E('buy')],
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
      funnelsFilter: { funnelWindowInterval: 7, funnelOrderType },
      breakdownFilter: { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0 },
      aggregation_group_type_index: 0,
    };
    const r = await run(pid, source);
    const rows = (r.results as any[][]).map((steps) => [steps[0].breakdown_value, steps.map((s) => [s.count, s.average_conversion_time, s.median_conversion_time])]);
    expect(rows.sort()).toEqual([
      ['finance', [[1, null, null], [1, 86400, 86400], [1, 86400, 86400]]],
      ['technology', [[1, null, null], [1, 7200, 7200], [1, 7200, 7200]]],
    ]);
    expect(await actorsOf(pid, source, { funnelStep: 3, funnelStepBreakdown: 'technology' })).toEqual(['org:6']);
  });
});

// ------------------------------------------------------------------------------------------------ test_funnel_time_to_convert.py

describe('test_funnel_time_to_convert.py: a funnelToStep out of range (FunnelTimeToConvert.get_query)', () => {
  it('400 in PostHog’s words, naming the valid steps', async () => {
    const pid = await load([ev('u', 'a', t(2021, 6, 8)), ev('u', 'b', t(2021, 6, 8, 1))]);
    const q = (funnelToStep: number) => ({
      series: [E('a'), E('b'), E('c')],
      dateRange: { date_from: '2021-06-07', date_to: '2021-06-13' },
      funnelsFilter: { funnelVizType: 'time_to_convert', funnelToStep },
    });
    await expect(run(pid, q(3))).rejects.toMatchObject({
      status: 400,
      attr: 'funnelsFilter__funnelToStep',
      message: 'Filter parameter funnel_to_step can only be one of 1, 2 for time to convert!',
    });
    // (in range: user u's hour from step one to step two)
    expect((await run(pid, q(1))).results.average_conversion_time).toBe(3600);
  });
});

// ------------------------------------------------------------------------------------------------ test_funnel_strict.py

describe('test_funnel_strict.py: a step event that fails its step filters is "another event" (derived: FunnelStrict sees every event of the actor)', () => {
  // steps: sign up with $browser Chrome, then buy. a: sign up (Chrome), buy — converts. b: sign up (Chrome), sign up
  // (Safari), buy — the Safari sign up matches no step and breaks the sequence; the ordered funnel ignores it.
  let pid: number;
  beforeAll(async () => {
    pid = await load([
      ev('a', 'sign up', t(2021, 5, 1, 1), { $browser: 'Chrome' }),
      ev('a', 'buy', t(2021, 5, 1, 2)),
      ev('b', 'sign up', t(2021, 5, 1, 1), { $browser: 'Chrome' }),
      ev('b', 'sign up', t(2021, 5, 1, 1, 30), { $browser: 'Safari' }),
      ev('b', 'buy', t(2021, 5, 1, 2)),
    ]);
  });
  const q = (funnelOrderType: string) => ({
    series: [E('sign up', { properties: [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }] }), E('buy')],
    dateRange: { date_from: '2021-05-01', date_to: '2021-05-07' },
    funnelsFilter: { funnelOrderType },
  });

  it.each<[string, number[], string[]]>([
    ['strict', [2, 1], ['a']],
    ['ordered', [2, 2], ['a', 'b']],
    ['unordered', [2, 2], ['a', 'b']],
  ])('%s: counts %j', async (order, expected, converted) => {
    expect((await run(pid, q(order))).results.map((s: any) => s.count)).toEqual(expected);
    expect(await actorsOf(pid, q(order), { funnelStep: 2 })).toEqual(converted);
  });
});

// ------------------------------------------------------------------------------------------------ person properties on steps, mixed breakdowns

describe('test_funnel.py: test_funnel_with_entity_person_property_filters, and multiple breakdowns of mixed types (derived)', () => {
  // person1 and person2 have an email, person3 none; person1 pays 8 days later, person3 1 h later
  let pid: number;
  beforeAll(async () => {
    pid = await h.load({
      persons: [
        { distinct_ids: ['ep_person1'], properties: { email: 'test@posthog.com', plan: 'pro' } },
        { distinct_ids: ['ep_person2'], properties: { email: 'test@posthog.com', plan: 'free' } },
        { distinct_ids: ['ep_person3'], properties: {} },
      ],
      events: [
        ev('ep_person1', 'user signed up', t(2020, 1, 2, 14), { $browser: 'Chrome', $current_url: 'https://a.com/x/' }),
        ev('ep_person1', 'paid', t(2020, 1, 10, 14)),
        ev('ep_person2', 'user signed up', t(2020, 1, 2, 14), { $browser: 'Safari', $current_url: 'https://a.com/x' }),
        ev('ep_person3', 'user signed up', t(2020, 1, 3, 14), { $browser: 'Chrome' }),
        ev('ep_person3', 'paid', t(2020, 1, 3, 15)),
      ],
    });
  });
  const series = [E('user signed up'), E('paid')];
  const dateRange = { date_from: '2020-01-01', date_to: '2020-01-14' };

  it('an is_set person property on the first step: person1 and person2 enter, person1 converts', async () => {
    const q = { series: [E('user signed up', { properties: [{ key: 'email', value: 'is_set', operator: 'is_set', type: 'person' }] }), E('paid')], dateRange };
    expect((await run(pid, q)).results.map((s: any) => s.count)).toEqual([2, 1]);
    expect(await actorsOf(pid, q, { funnelStep: 1 })).toEqual(['ep_person1', 'ep_person2']);
    expect(await actorsOf(pid, q, { funnelStep: 2 })).toEqual(['ep_person1']);
  });

  it('breakdowns of an event and a person property: one boxed pair per combination, a missing one as ""', async () => {
    const q = { series, dateRange, breakdownFilter: { breakdowns: [{ property: '$browser', type: 'event' }, { property: 'plan', type: 'person' }] } };
    expect(byValue(await run(pid, q))).toEqual([
      [['Chrome', ''], [[1, null], [1, 3600]]],
      [['Chrome', 'pro'], [[1, null], [1, 691200]]],
      [['Safari', 'free'], [[1, null], [0, null]]],
    ]);
    expect(await actorsOf(pid, q, { funnelStep: 1, funnelStepBreakdown: ['Chrome', ''] })).toEqual(['ep_person3']);
  });

  it('a breakdowns entry with normalize_url: "https://a.com/x/" and "https://a.com/x" are one value', async () => {
    const q = { series, dateRange, breakdownFilter: { breakdowns: [{ property: '$current_url', type: 'event', normalize_url: true }] } };
    expect(byValue(await run(pid, q))).toEqual([
      [['https://a.com/x'], [[2, null], [1, 691200]]],
      [[''], [[1, null], [1, 3600]]],
    ]);
  });
});

// ------------------------------------------------------------------------------------------------ repeated tries: whose times

describe('repeated tries: the first sequence to reach the furthest step gives the times (derived: funnel UDF max_step is replaced only by a further step; it stops at the goal)', () => {
  // qa→qb converts at 05:00 (5 h), then again 06:00→06:10; ra→rb the same, the second try going on to rc at 07:00;
  // sa→sb at 01:00, a new sa at 02:00, sc at 03:00 (continuing the first try, whose window is still open)
  let pid: number;
  beforeAll(async () => {
    pid = await load([
      ev('try_q', 'qa', t(2021, 5, 1, 0)),
      ev('try_q', 'qb', t(2021, 5, 1, 5)),
      ev('try_q', 'qa', t(2021, 5, 1, 6)),
      ev('try_q', 'qb', t(2021, 5, 1, 6, 10)),
      ev('try_r', 'ra', t(2021, 5, 1, 0)),
      ev('try_r', 'rb', t(2021, 5, 1, 5)),
      ev('try_r', 'ra', t(2021, 5, 1, 6)),
      ev('try_r', 'rb', t(2021, 5, 1, 6, 10)),
      ev('try_r', 'rc', t(2021, 5, 1, 7)),
      ev('try_s', 'sa', t(2021, 5, 1, 0)),
      ev('try_s', 'sb', t(2021, 5, 1, 1)),
      ev('try_s', 'sa', t(2021, 5, 1, 2)),
      ev('try_s', 'sc', t(2021, 5, 1, 3)),
    ]);
  });
  const q = (steps: string[], funnelOrderType: string, exclusions: unknown[] = []) => ({
    series: steps.map((x) => E(x)),
    dateRange: { date_from: '2021-05-01', date_to: '2021-05-02' },
    funnelsFilter: { funnelOrderType, exclusions },
  });
  // (an exclusion that never happens takes the per-actor path instead of the SQL one: both must agree)
  const never = [{ kind: 'EventsNode', event: 'never happens', funnelFromStep: 0, funnelToStep: 1 }];

  it.each([
    ['ordered', []],
    ['ordered', never],
    ['strict', []],
    ['strict', never],
  ])('%s (exclusions %j)', async (order, exclusions) => {
    // two steps: the first conversion (5 h), not the quicker second one
    expect(stepRows(await run(pid, q(['qa', 'qb'], order, exclusions)))).toEqual([
      ['qa', 1, null, null],
      ['qb', 1, 18000, 18000],
    ]);
    // three steps: only the second try reaches rc, so its times (10 min, 50 min)
    expect(stepRows(await run(pid, q(['ra', 'rb', 'rc'], order, exclusions)))).toEqual([
      ['ra', 1, null, null],
      ['rb', 1, 600, 600],
      ['rc', 1, 3000, 3000],
    ]);
    // the new sa does not reset the try that reached sb (ordered: sc converts it, 1 h + 2 h); strict: sa is not the
    // step after sb, so the try ends there
    expect(stepRows(await run(pid, q(['sa', 'sb', 'sc'], order, exclusions)))).toEqual(
      order === 'ordered'
        ? [
            ['sa', 1, null, null],
            ['sb', 1, 3600, 3600],
            ['sc', 1, 7200, 7200],
          ]
        : [
            ['sa', 1, null, null],
            ['sb', 1, 3600, 3600],
            ['sc', 0, null, null],
          ],
    );
  });
});
