/**
 * A third batch of PostHog's funnel cases (posthog/hogql_queries/insights/funnels/test/: test_funnel.py,
 * breakdown_cases.py, test_funnel_strict.py, test_funnel_unordered.py, test_funnel_trends.py,
 * test_funnel_time_to_convert.py, test_funnel_udf.py): the edge cases and option combinations that
 * funnels-posthog-compat.test.ts and funnels-posthog-compat-2.test.ts do not cover. Each case names the PostHog test it
 * follows; the expected values are PostHog's (or, where a case says so, derived from the reference's §3.3 rules on
 * PostHog's setup). Runs through the real runners on a real engine (DuckDB, or ClickHouse via the .clickhouse twin).
 */
import { funnelsRunner } from '../runners/funnels-runner';
import { actorsRunner } from '../runners/actors-runner';
import { actionSource, byValue, counts, E, type Ev, ev, type Harness, openHarness, persons, t, writeGroups } from './testing';
import { actionStep } from '../insights/testing';
import type { ActionDef } from '../../actions/matching';

let h: Harness;
beforeAll(async () => {
  h = await openHarness();
});
afterAll(async () => {
  await h.close();
});

const X = (event: string, from: number, to: number, extra: Record<string, unknown> = {}) => ({ kind: 'EventsNode', event, funnelFromStep: from, funnelToStep: to, ...extra });

async function load(events: Ev[]) {
  return h.load({ persons: persons(...new Set(events.map((e) => e.distinct_id))), events });
}
async function run(pid: number, q: Record<string, unknown>, project: Record<string, unknown> = {}) {
  return h.run(funnelsRunner, { kind: 'FunnelsQuery', ...q }, pid, project as any);
}
async function funnel(events: Ev[], q: Record<string, unknown>, project: Record<string, unknown> = {}) {
  return run(await load(events), q, project);
}

/** The first distinct id of each actor of a FunnelsActorsQuery, sorted. */
async function actorNames(pid: number, source: Record<string, unknown>, funnel: Record<string, unknown>): Promise<string[]> {
  const r = await h.run(actorsRunner, { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: { kind: 'FunnelsQuery', ...source }, ...funnel }, select: ['actor'], limit: 1000 }, pid);
  return (r.results as any[][]).map((row) => row[0].distinct_ids[0]).sort();
}

// ------------------------------------------------------------------------------------------------ test_funnel.py

describe('test_funnel.py (third pass)', () => {
  it.each([
    ['UTC', 'UTC'],
    ['US/Pacific (PST → PDT on 10 March)', 'US/Pacific'],
  ])('test_funnel_window_ignores_dst_transition: %s', async (_n, timezone) => {
    // 1 March 15:10 → 15 March 14:27 is 14 days less 43 minutes of real time: inside the 14-day window, 1,207,020 s.
    const r = await funnel([ev('user_1', '$pageview', t(2024, 3, 1, 15, 10)), ev('user_1', 'user signed up', t(2024, 3, 15, 14, 27))], {
      series: [E('$pageview'), E('user signed up')],
      dateRange: { date_from: '2024-02-17', date_to: '2024-03-18' },
    }, { timezone });
    expect(r.results[1]).toMatchObject({ name: 'user signed up', count: 1, average_conversion_time: 1_207_020, median_conversion_time: 1_207_020 });
  });

  describe('test_advanced_funnel_multiple_exclusions_between_steps', () => {
    const series = [E('user signed up'), E('$pageview'), E('insight viewed'), E('invite teammate'), E('pageview2')];
    const dateRange = { date_from: '2021-05-01 00:00:00', date_to: '2021-05-14 00:00:00' };
    const journey = (who: string, evs: [string, number, number?][]) => evs.map(([e, hh, mm]) => ev(who, e, t(2021, 5, 1, hh, mm ?? 0)));
    const events = [
      ...journey('person1', [['user signed up', 1], ['x', 2], ['$pageview', 3], ['insight viewed', 4], ['y', 4, 30], ['invite teammate', 5], ['pageview2', 6]]),
      ...journey('person2', [['user signed up', 1], ['y', 2], ['$pageview', 3], ['insight viewed', 4], ['y', 4, 30], ['invite teammate', 5], ['pageview2', 6]]),
      ...journey('person3', [['user signed up', 1], ['x', 2], ['$pageview', 3], ['insight viewed', 4], ['invite teammate', 5], ['pageview2', 6]]),
      ...journey('person4', [['user signed up', 1], ['$pageview', 3], ['insight viewed', 4], ['invite teammate', 5], ['pageview2', 6]]),
    ];
    let pid: number;
    beforeAll(async () => {
      pid = await load(events);
    });

    it.each<[string, ReturnType<typeof X>[], number[], string[]]>([
      // PostHog's first configuration: x between steps 0-1 drops persons 1 and 3, y between steps 2-3 person 2
      ['x 0→1, y 2→3', [X('x', 0, 1), X('y', 2, 3)], [1, 1, 1, 1, 1], ['person4']],
      ['x 0→1, y 0→1', [X('x', 0, 1), X('y', 0, 1)], [1, 1, 1, 1, 1], ['person4']],
      ['x 0→4, y 0→4', [X('x', 0, 4), X('y', 0, 4)], [1, 1, 1, 1, 1], ['person4']],
      // (derived: y 1→2 sees neither of person 2's y events — one is before step 1, the other after step 2)
      ['x 0→1, y 1→2', [X('x', 0, 1), X('y', 1, 2)], [2, 2, 2, 2, 2], ['person2', 'person4']],
    ])('%s', async (_n, exclusions, expected, converted) => {
      const source = { series, dateRange, funnelsFilter: { exclusions } };
      expect(counts(await run(pid, source))).toEqual(expected);
      expect(await actorNames(pid, source, { funnelStep: 5 })).toEqual(converted);
    });

    it('test_funnel_unordered.py: the same journeys unordered, exclusions over the whole funnel', async () => {
      // every sequence of persons 1-3 that goes furthest meets an x or a y; person 4 alone completes
      const source = { series, dateRange, funnelsFilter: { funnelOrderType: 'unordered', exclusions: [X('x', 0, 4), X('y', 0, 4)] } };
      const r = await run(pid, source);
      expect(r.results.map((s: any) => [s.name, s.count])).toEqual([1, 2, 3, 4, 5].map((i) => [`Completed ${i} step${i === 1 ? '' : 's'}`, 1]));
      expect(await actorNames(pid, source, { funnelStep: 5 })).toEqual(['person4']);
    });
  });

  it('an exclusion may be a step event outside its own range: it excludes between the steps it spans', async () => {
    // (PostHog validates exclusions only against series[funnelFromStep..funnelToStep])
    const r = await funnel(
      [
        ...['a', 'c', 'b', 'c'].map((e, i) => ev('excluded', e, t(2021, 5, 1, 1 + i))),
        ...['a', 'b', 'c'].map((e, i) => ev('clean', e, t(2021, 5, 1, 1 + i))),
      ],
      { series: [E('a'), E('b'), E('c')], dateRange: { date_from: '2021-05-01', date_to: '2021-05-02' }, funnelsFilter: { exclusions: [X('c', 0, 1)] } },
    );
    expect(counts(r)).toEqual([1, 1, 1]);
  });

  it('test_excluded_after_time_expires (test_funnel_udf.py): an exclusion after the conversion window does not exclude', async () => {
    const r = await funnel([ev('test', 'step one', t(2024, 1, 1)), ev('test', 'excluded', t(2024, 1, 16))], {
      series: [E('step one'), E('step two')],
      dateRange: { date_from: '2024-01-01', date_to: '2024-01-31' },
      funnelsFilter: { exclusions: [X('excluded', 0, 1)] },
    });
    expect(counts(r)).toEqual([1, 0]);
  });

  it('test_multiple_events_same_timestamp_doesnt_blow_up (test_funnel_udf.py): many step events at one instant', async () => {
    const events = Array.from({ length: 3000 }, () => ev('test', 'step one', '2024-01-10T12:01:00Z'));
    events.push(ev('test', 'step two', '2024-01-10T12:01:01Z'));
    const r = await funnel(events, { series: [E('step one'), E('step two')], dateRange: { date_from: '2024-01-01', date_to: '2024-01-31' } });
    expect(counts(r)).toEqual([1, 1]);
    expect(r.results[1].average_conversion_time).toBe(1);
  });

  it('test_funnel_with_sampling: samplingFactor 1 counts every actor', async () => {
    const events = [ev('a', 'sign up', t(2021, 5, 1, 1)), ev('a', 'buy', t(2021, 5, 1, 2)), ev('b', 'sign up', t(2021, 5, 1, 1))];
    const r = await funnel(events, { series: [E('sign up'), E('buy')], dateRange: { date_from: '2021-05-01', date_to: '2021-05-02' }, samplingFactor: 1 });
    expect(r.results.map((s: any) => [s.name, s.count])).toEqual([
      ['sign up', 2],
      ['buy', 1],
    ]);
  });

  it('test_breakdown_values_is_set_on_the_query_with_fewer_than_two_entities: a one-step funnel with a breakdown', async () => {
    const r = await funnel(
      [ev('a', 'sign up', t(2020, 1, 1, 12), { $browser: 'Chrome' }), ev('b', 'sign up', t(2020, 1, 1, 12), { $browser: 'Safari' }), ev('c', 'sign up', t(2020, 1, 2, 12), { $browser: 'Safari' })],
      { series: [E('sign up')], dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' }, breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' } },
    );
    expect(byValue(r)).toEqual([
      [['Chrome'], [1]],
      [['Safari'], [2]],
    ]);
  });

  // c's two events of one instant match both steps: the funnel UDF processes them one after the other (no "strictly
  // later" rule for a repeated step), so c converts; b's single event cannot fill both steps.
  it('an all-events step repeated: the second step needs another event (of the same instant too)', async () => {
    const r = await funnel(
      [ev('a', 'one', t(2021, 5, 1, 1)), ev('a', 'two', t(2021, 5, 1, 2)), ev('b', 'one', t(2021, 5, 1, 1)), ev('c', 'one', t(2021, 5, 1, 1)), ev('c', 'two', t(2021, 5, 1, 1))],
      { series: [E(null), E(null)], dateRange: { date_from: '2021-05-01', date_to: '2021-05-02' } },
    );
    expect(counts(r)).toEqual([3, 2]);
    expect(r.results.map((s: any) => [s.name, s.action_id])).toEqual([
      [null, null],
      [null, null],
    ]);
  });

  it('the same event with a step property filter: one event cannot fill both steps, a second one can', async () => {
    const series = [E('$pageview'), E('$pageview', { properties: [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }] })];
    const r = await funnel(
      [
        ev('one', '$pageview', t(2021, 5, 1, 1), { $browser: 'Chrome' }),
        ev('two', '$pageview', t(2021, 5, 1, 1), { $browser: 'Safari' }),
        ev('two', '$pageview', t(2021, 5, 1, 2), { $browser: 'Chrome' }),
      ],
      { series, dateRange: { date_from: '2021-05-01', date_to: '2021-05-02' } },
    );
    expect(counts(r)).toEqual([2, 1]);
  });

  it('funnelAggregateByHogQL with a breakdown: each session is an actor under its own value', async () => {
    const s = (id: string, browser: string) => ({ $session_id: id, $browser: browser });
    const r = await funnel(
      [
        ev('p', 'sign up', t(2021, 5, 1, 1), s('s1', 'Chrome')),
        ev('p', 'buy', t(2021, 5, 1, 2), s('s1', 'Chrome')),
        ev('p', 'sign up', t(2021, 5, 1, 3), s('s2', 'Safari')),
        ev('q', 'sign up', t(2021, 5, 1, 3), s('s3', 'Safari')),
        ev('q', 'buy', t(2021, 5, 1, 4), s('s3', 'Safari')),
      ],
      {
        series: [E('sign up'), E('buy')],
        dateRange: { date_from: '2021-05-01', date_to: '2021-05-02' },
        breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' },
        funnelsFilter: { funnelAggregateByHogQL: 'properties.$session_id' },
      },
    );
    expect(byValue(r)).toEqual([
      [['Chrome'], [1, 1]],
      [['Safari'], [2, 1]],
    ]);
  });

  it('conversion times per breakdown value', async () => {
    const r = await funnel(
      [
        ev('a', 'sign up', t(2021, 5, 1, 1), { $browser: 'Chrome' }),
        ev('a', 'buy', t(2021, 5, 1, 2)),
        ev('b', 'sign up', t(2021, 5, 1, 1), { $browser: 'Chrome' }),
        ev('b', 'buy', t(2021, 5, 1, 4)),
        ev('c', 'sign up', t(2021, 5, 1, 1), { $browser: 'Safari' }),
        ev('c', 'buy', t(2021, 5, 1, 1, 30)),
      ],
      { series: [E('sign up'), E('buy')], dateRange: { date_from: '2021-05-01', date_to: '2021-05-02' }, breakdownFilter: { breakdown: '$browser' } },
    );
    const times = (r.results as any[][]).map((steps) => [steps[0].breakdown_value, steps[1].average_conversion_time, steps[1].median_conversion_time]);
    expect(times.sort()).toEqual([
      [['Chrome'], 7200, 7200],
      [['Safari'], 1800, 1800],
    ]);
  });
});

// ------------------------------------------------------------------------------------------------ optional steps

describe('optional steps (optionalInFunnel, reference §3.3)', () => {
  const series = [E('a'), E('b', { optionalInFunnel: true }), E('c', { optionalInFunnel: true }), E('d')];
  const dateRange = { date_from: '2021-05-01', date_to: '2021-05-02' };
  it('two optional steps in a row: each step counts the actors who completed that step', async () => {
    const r = await funnel(
      [
        ...['a', 'b', 'c', 'd'].map((e, i) => ev('all', e, t(2021, 5, 1, 1 + i))),
        ...['a', 'c', 'd'].map((e, i) => ev('skip_b', e, t(2021, 5, 1, 1 + i))),
        ...['a', 'd'].map((e, i) => ev('skip_both', e, t(2021, 5, 1, 1 + i))),
        ...['a', 'b'].map((e, i) => ev('stops', e, t(2021, 5, 1, 1 + i))),
      ],
      { series, dateRange },
    );
    expect(counts(r)).toEqual([4, 2, 2, 3]);
  });

  it.each([
    ['trends', { funnelVizType: 'trends' }],
    ['time_to_convert', { funnelVizType: 'time_to_convert' }],
    ['unordered', { funnelOrderType: 'unordered' }],
  ])('400 with the %s', async (_n, funnelsFilter) => {
    await expect(funnel([ev('x', 'a', t(2021, 5, 1))], { series, dateRange, funnelsFilter })).rejects.toMatchObject({ status: 400 });
  });
});

// ------------------------------------------------------------------------------------------------ breakdown_cases.py

describe('breakdown_cases.py (third pass)', () => {
  const dateRange = { date_from: '2020-01-01', date_to: '2020-01-08' };
  const series = [E('sign up'), E('buy')];
  // person2 and person3 never reach step one: their step-1 value is empty
  const incomplete = [
    ev('person1', 'sign up', t(2020, 1, 1, 12), { $browser: 'Chrome' }),
    ev('person1', 'buy', t(2020, 1, 2, 13), { $browser: 'Safari' }),
    ev('person2', 'sign up', t(2020, 1, 1, 13)),
    ev('person3', 'sign up', t(2020, 1, 2, 14), { $browser: 'Mac' }),
    ev('person4', 'sign up', t(2020, 1, 2, 15), { $browser: 0 }),
    ev('person4', 'buy', t(2020, 1, 2, 16), { $browser: 'alakazam' }),
  ];

  it.each([
    ['test_funnel_step_breakdown_with_step_one_attribution_incomplete_funnel', ['$browser']],
    ['test_funnel_step_non_array_breakdown_with_step_one_attribution_incomplete_funnel', '$browser'],
  ])('%s', async (_n, breakdown) => {
    const r = await funnel(incomplete, {
      series,
      dateRange,
      breakdownFilter: { breakdown_type: 'event', breakdown },
      funnelsFilter: { funnelWindowInterval: 7, breakdownAttributionType: 'step', breakdownAttributionValue: 1 },
    });
    expect(byValue(r)).toEqual([
      [[''], [2, 0]],
      [['Safari'], [1, 1]],
      [['alakazam'], [1, 1]],
    ]);
  });

  it('test_funnel_step_breakdown_with_step_one_attribution_incomplete_funnel: the actors of a value', async () => {
    const pid = await load(incomplete);
    const source = {
      series,
      dateRange,
      breakdownFilter: { breakdown_type: 'event', breakdown: ['$browser'] },
      funnelsFilter: { funnelWindowInterval: 7, breakdownAttributionType: 'step', breakdownAttributionValue: 1 },
    };
    expect(await actorNames(pid, source, { funnelStep: 1, funnelStepBreakdown: [''] })).toEqual(['person2', 'person3']);
    expect(await actorNames(pid, source, { funnelStep: 2, funnelStepBreakdown: ['alakazam'] })).toEqual(['person4']);
  });

  it('test_funnel_step_multiple_breakdown_with_first_touch_attribution_incomplete_funnel', async () => {
    const r = await funnel(
      [
        ev('person1', 'sign up', t(2020, 1, 1, 12), { $browser: 'Chrome', $version: 'xyz' }),
        ev('person1', 'buy', t(2020, 1, 2, 13), { $browser: 'Safari' }),
        ev('person2', 'sign up', t(2020, 1, 1, 13), { $version: 0 }),
        ev('person2', 'buy', t(2020, 1, 2, 13), { $browser: 'Safari', $version: 'xyz' }),
        ev('person3', 'sign up', t(2020, 1, 2, 14), { $browser: 'Mac' }),
        ev('person4', 'sign up', t(2020, 1, 2, 15), { $browser: 0, $version: 0 }),
        ev('person4', 'buy', t(2020, 1, 2, 16), { $browser: 'alakazam' }),
      ],
      { series, dateRange, breakdownFilter: { breakdown_type: 'event', breakdown: ['$browser', '$version'] }, funnelsFilter: { breakdownAttributionType: 'first_touch' } },
    );
    // first touch: the first step event with any non-empty part; numeric 0 is the text "0"
    expect(byValue(r)).toEqual([
      [['', '0'], [1, 1]],
      [['0', '0'], [1, 1]],
      [['Chrome', 'xyz'], [1, 1]],
      [['Mac', ''], [1, 0]],
    ]);
  });

  it('test_funnel_step_custom_breakdown_limit_with_nulls_included: values past the limit, the empty one too, are Other', async () => {
    const events: Ev[] = [];
    for (let num = 0; num < 10; num++)
      for (let i = 0; i < num; i++)
        for (const [e, hh] of [
          ['sign up', 12],
          ['play movie', 13],
          ['buy', 15],
        ] as const)
          events.push(ev(`person_${num}_${i}`, e, t(2020, 1, 1, hh), { some_breakdown_val: String(num) }));
    for (const [e, hh] of [
      ['sign up', 12],
      ['play movie', 13],
      ['buy', 15],
    ] as const)
      events.push(ev('person_null', e, t(2020, 1, 1, hh)));
    const r = await funnel(events, {
      series: [E('sign up'), E('play movie'), E('buy')],
      dateRange,
      breakdownFilter: { breakdown_type: 'event', breakdown: ['some_breakdown_val'], breakdown_limit: 6 },
    });
    expect(byValue(r)).toEqual([
      [['4'], [4, 4, 4]],
      [['5'], [5, 5, 5]],
      [['6'], [6, 6, 6]],
      [['7'], [7, 7, 7]],
      [['8'], [8, 8, 8]],
      [['9'], [9, 9, 9]],
      [['Other'], [7, 7, 7]],
    ]);
  });
});

// ------------------------------------------------------------------------------------------------ strict / unordered

describe('test_funnel_strict.py / test_funnel_unordered.py (third pass)', () => {
  it('test_strict_breakdown_events_with_multiple_properties (all_events attribution)', async () => {
    const r = await funnel(
      [
        ev('person1', 'sign up', t(2020, 1, 1, 12), { $browser: 'Chrome' }),
        ev('person1', 'blah', t(2020, 1, 1, 13), { $browser: 'Chrome' }),
        ev('person1', 'play movie', t(2020, 1, 1, 14), { $browser: 'Safari' }),
        ev('person2', 'sign up', t(2020, 1, 2, 13), { $browser: 'Safari' }),
        ev('person2', 'play movie', t(2020, 1, 2, 14), { $browser: 'Safari' }),
      ],
      {
        series: [E('sign up'), E('play movie')],
        dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
        breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' },
        funnelsFilter: { funnelOrderType: 'strict', funnelWindowInterval: 7, breakdownAttributionType: 'all_events' },
      },
    );
    expect(byValue(r)).toEqual([
      [['Chrome'], [1, 0]],
      [['Safari'], [1, 1]],
    ]);
  });

  it('test_funnel_unordered_entity_filters: per-step property filters in an unordered funnel', async () => {
    const r = await funnel(
      [
        ev('person1', 'user signed up', t(2021, 5, 1, 1), { prop: 'val' }),
        ev('person1', '$pageview', t(2021, 5, 1, 2), { prop: 'other_val' }),
        ev('person2', 'user signed up', t(2021, 5, 1, 1), { prop: 'other_val' }),
        ev('person2', '$pageview', t(2021, 5, 1, 2), { prop: 'other_val' }),
      ],
      {
        series: [
          E('user signed up', { properties: [{ key: 'prop', value: 'val', operator: 'exact', type: 'event' }] }),
          E('$pageview', { properties: [{ key: 'prop', value: 'other_val', operator: 'exact', type: 'event' }] }),
        ],
        dateRange: { date_from: '2021-05-01', date_to: '2021-05-14' },
        funnelsFilter: { funnelOrderType: 'unordered' },
      },
    );
    // person2 did only the second step: unordered counts "completed 1 step" for them
    expect(counts(r)).toEqual([2, 1]);
  });

  it('an unordered funnel with an event breakdown (first touch)', async () => {
    const r = await funnel(
      [
        ev('a', 'buy', t(2021, 5, 1, 1), { $browser: 'Chrome' }),
        ev('a', 'sign up', t(2021, 5, 1, 2), { $browser: 'Safari' }),
        ev('b', 'sign up', t(2021, 5, 1, 1), { $browser: 'Safari' }),
      ],
      {
        series: [E('sign up'), E('buy')],
        dateRange: { date_from: '2021-05-01', date_to: '2021-05-02' },
        breakdownFilter: { breakdown: '$browser' },
        funnelsFilter: { funnelOrderType: 'unordered' },
      },
    );
    expect(byValue(r)).toEqual([
      [['Chrome'], [1, 1]],
      [['Safari'], [1, 0]],
    ]);
    expect((r.results as any[][])[0].map((s) => s.name)).toEqual(['Completed 1 step', 'Completed 2 steps']);
  });
});

// ------------------------------------------------------------------------------------------------ test_funnel_trends.py

describe('test_funnel_trends.py (third pass)', () => {
  const steps3 = [E('step one'), E('step two'), E('step three')];
  const trends = (dateRange: Record<string, unknown>, ff: Record<string, unknown> = {}) => ({
    series: steps3,
    interval: 'day',
    dateRange,
    funnelsFilter: { funnelVizType: 'trends', ...ff },
  });

  it('test_two_runs_by_single_user_in_one_period: counted once', async () => {
    const r = await funnel(
      [
        ev('user_one', 'step one', t(2021, 5, 1, 0)),
        ev('user_one', 'step two', t(2021, 5, 1, 1)),
        ev('user_one', 'step three', t(2021, 5, 1, 2)),
        ev('user_one', 'step one', t(2021, 5, 1, 13)),
        ev('user_one', 'step two', t(2021, 5, 1, 14)),
        ev('user_one', 'step three', t(2021, 5, 1, 15)),
      ],
      trends({ date_from: '2021-05-01 00:00:00', date_to: '2021-05-02 23:59:59' }, { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'day' }),
    );
    expect(r.results[0].data).toEqual([100, 0]);
  });

  it('test_window_size_one_day: conversions later than a day after the entry do not count', async () => {
    const r = await funnel(
      [
        ev('fast', 'step one', t(2021, 5, 1, 0)),
        ev('fast', 'step two', t(2021, 5, 1, 12)),
        ev('fast', 'step three', t(2021, 5, 1, 23)),
        ev('slow', 'step one', t(2021, 5, 1, 0)),
        ev('slow', 'step two', t(2021, 5, 1, 12)),
        ev('slow', 'step three', t(2021, 5, 2, 1)),
      ],
      trends({ date_from: '2021-05-01 00:00:00', date_to: '2021-05-02 23:59:59' }, { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'day' }),
    );
    expect(r.results[0].data).toEqual([50, 0]);
  });

  it.each([
    ['UTC', 'UTC', [0, 100, 0]],
    // user_two's run starts 1 May 01:00 UTC = 30 April 18:00 in US/Pacific
    ['US/Pacific', 'US/Pacific', [100, 100, 0]],
  ])('test_timezones_trends: %s', async (_n, timezone, expected) => {
    const r = await funnel(
      [
        ev('user_one', 'step one', t(2021, 5, 1, 10)),
        ev('user_one', 'step two', t(2021, 5, 1, 11)),
        ev('user_one', 'step three', t(2021, 5, 1, 12)),
        ev('user_two', 'step one', t(2021, 5, 1, 1)),
        ev('user_two', 'step two', t(2021, 5, 1, 2)),
        ev('user_two', 'step three', t(2021, 5, 1, 3)),
      ],
      trends({ date_from: '2021-04-30', date_to: '2021-05-02' }, { funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day' }),
      { timezone },
    );
    expect(r.results[0].data).toEqual(expected);
    expect(r.results[0].days).toEqual(['2021-04-30', '2021-05-01', '2021-05-02']);
  });

  it('test_trend_for_hour_based_conversion_window', async () => {
    const r = await funnel(
      [
        ev('user_one', 'step one', t(2021, 5, 1, 10)),
        ev('user_one', 'step two', t(2021, 5, 1, 11)),
        ev('user_one', 'step three', t(2021, 5, 1, 12)),
        ev('user_two', 'step one', t(2021, 5, 1, 10)),
        ev('user_two', 'step two', t(2021, 5, 1, 11)),
        ev('user_two', 'step three', t(2021, 5, 1, 14)),
      ],
      trends({ date_from: '2021-05-01 00:00:00', date_to: '2021-05-02 23:59:59' }, { funnelWindowInterval: 3, funnelWindowIntervalUnit: 'hour' }),
    );
    expect(r.results[0].data).toEqual([50, 0]);
  });

  it('test_one_person_in_multiple_periods_and_windows_in_unordered_funnel', async () => {
    const r = await funnel(
      [
        ev('user_one', 'step one', t(2021, 5, 1, 0)),
        ev('user_one', 'step three', t(2021, 5, 1, 1)),
        ev('user_one', 'step two', t(2021, 5, 1, 2)),
        ev('user_one', 'step one', t(2021, 5, 3, 0)),
        ev('user_one', 'step two', t(2021, 5, 3, 1)),
        ev('user_one', 'step three', t(2021, 5, 4, 11)),
        ev('user_one', 'step one', t(2021, 5, 4, 12)),
        ev('user_one', 'step two', t(2021, 5, 4, 13)),
        ev('user_two', 'step one', t(2021, 5, 4, 18)),
        ev('user_three', 'step two', t(2021, 5, 5, 16)),
        ev('user_three', 'step one', t(2021, 5, 5, 17)),
        ev('user_three', 'step three', t(2021, 5, 5, 18)),
      ],
      trends({ date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 23:59:59' }, { funnelOrderType: 'unordered', funnelWindowInterval: 1, funnelWindowIntervalUnit: 'day' }),
    );
    expect(r.results[0].data).toEqual([100, 0, 0, 50, 100, 0, 0]);
  });

  it('test_one_person_in_multiple_periods_and_windows_in_strict_funnel', async () => {
    const r = await funnel(
      [
        ev('user_one', 'step one', t(2021, 5, 1, 0)),
        ev('user_one', 'step two', t(2021, 5, 1, 1)),
        ev('user_one', 'step three', t(2021, 5, 1, 2)),
        ev('user_one', 'step one', t(2021, 5, 3, 0)),
        ev('user_one', 'step two', t(2021, 5, 3, 1)),
        ev('user_one', 'blah', t(2021, 5, 3, 1, 30)),
        ev('user_one', 'step three', t(2021, 5, 3, 2)),
        ev('user_two', 'step one', t(2021, 5, 4, 0)),
        ev('user_two', 'step two', t(2021, 5, 4, 1)),
        ev('user_two', 'step three', t(2021, 5, 4, 2)),
      ],
      trends({ date_from: '2021-05-01 00:00:00', date_to: '2021-05-04 23:59:59' }, { funnelOrderType: 'strict', funnelWindowInterval: 1, funnelWindowIntervalUnit: 'day' }),
    );
    expect(r.results[0].data).toEqual([100, 0, 0, 100]);
  });

  it('test_funnel_step_breakdown_person: trends broken down by a person property, one series per value', async () => {
    const people = [
      { distinct_ids: ['user_one'], properties: { $browser: 'Chrome' } },
      { distinct_ids: ['user_two'], properties: { $browser: 'Chrome' } },
      { distinct_ids: ['user_three'], properties: { $browser: 'Safari' } },
    ];
    const journey = (who: string, days: number[]) => ['step one', 'step two', 'step three'].map((e, i) => ev(who, e, t(2021, 5, days[i])));
    const id = await h.load({ persons: people, events: [...journey('user_one', [1, 3, 5]), ...journey('user_two', [2, 4, 5]), ...journey('user_three', [3, 4, 5])] });
    const r = await run(id, {
      ...trends({ date_from: '2021-05-01 00:00:00', date_to: '2021-05-13 23:59:59' }, { funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day' }),
      breakdownFilter: { breakdown_type: 'person', breakdown: '$browser' },
    });
    const zeros = (n: number) => new Array(n).fill(0);
    expect(r.results.map((s: any) => [s.breakdown_value, s.count, s.data])).toEqual([
      [['Chrome'], 13, [100, 100, ...zeros(11)]],
      [['Safari'], 13, [0, 0, 100, ...zeros(10)]],
    ]);
  });

  it('test_to_second_step: funnelToStep alone', async () => {
    const r = await funnel(
      [
        ev('a', 'step one', t(2021, 5, 1, 0)),
        ev('a', 'step two', t(2021, 5, 1, 1)),
        ev('b', 'step one', t(2021, 5, 1, 0)),
        ev('c', 'step one', t(2021, 5, 1, 0)),
        ev('c', 'step two', t(2021, 5, 1, 1)),
        ev('c', 'step three', t(2021, 5, 1, 2)),
      ],
      trends({ date_from: '2021-05-01', date_to: '2021-05-01' }, { funnelToStep: 1 }),
    );
    expect(r.results[0].data).toEqual([66.67]);
  });

  it('test_from_second_step: actors stopping at step one are not in the from count', async () => {
    const r = await funnel(
      [
        ev('a', 'step one', t(2021, 5, 1, 0)),
        ev('a', 'step two', t(2021, 5, 1, 1)),
        ev('b', 'step one', t(2021, 5, 1, 0)),
        ev('c', 'step one', t(2021, 5, 1, 0)),
        ev('c', 'step two', t(2021, 5, 1, 1)),
        ev('c', 'step three', t(2021, 5, 1, 2)),
      ],
      trends({ date_from: '2021-05-01', date_to: '2021-05-01' }, { funnelFromStep: 1 }),
    );
    expect(r.results[0].data).toEqual([50]);
  });

  it.each([
    ['from = to', { funnelFromStep: 1, funnelToStep: 1 }],
    ['to past the last step', { funnelToStep: 3 }],
    ['negative from', { funnelFromStep: -1 }],
  ])('400 for a step range with %s', async (_n, ff) => {
    await expect(funnel([ev('a', 'step one', t(2021, 5, 1))], trends({ date_from: '2021-05-01', date_to: '2021-05-02' }, ff))).rejects.toMatchObject({ status: 400 });
  });
});

// ------------------------------------------------------------------------------------------------ time_to_convert

describe('test_funnel_time_to_convert.py (third pass)', () => {
  const events = [
    ev('user a', 'step one', '2021-06-08T18:00:00Z'),
    ev('user a', 'step two', '2021-06-08T19:00:00Z'),
    ev('user a', 'step three', '2021-06-08T21:00:00Z'),
    ev('user b', 'step one', '2021-06-09T13:00:00Z'),
    ev('user b', 'step two', '2021-06-09T13:37:00Z'),
    ev('user c', 'step one', '2021-06-11T07:00:00Z'),
    ev('user c', 'step two', '2021-06-12T06:00:00Z'),
  ];
  const q = (ff: Record<string, unknown>) => ({
    series: [E('step one'), E('step two'), E('step three')],
    interval: 'day',
    dateRange: { date_from: '2021-06-07 00:00:00', date_to: '2021-06-13 23:59:59' },
    funnelsFilter: { funnelVizType: 'time_to_convert', funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day', ...ff },
  });
  let pid: number;
  beforeAll(async () => {
    pid = await load(events);
  });

  it('test_auto_bin_count_total: the whole funnel by default, one sample → one bin of 60 s', async () => {
    const r = await run(pid, q({}));
    expect(r.results.bins).toEqual([
      [10800, 1],
      [10860, 0],
    ]);
    expect(r.results.average_conversion_time).toBe(10800);
  });

  it('from the second step to the third: only that step time', async () => {
    const r = await run(pid, q({ funnelFromStep: 1, funnelToStep: 2 }));
    expect(r.results.bins).toEqual([
      [7200, 1],
      [7260, 0],
    ]);
    expect(r.results.average_conversion_time).toBe(7200);
  });

  it('a range nobody converts through: no bins', async () => {
    const r = await run(pid, q({ funnelFromStep: 1, funnelToStep: 2, funnelWindowInterval: 1, funnelWindowIntervalUnit: 'hour' }));
    expect(r.results).toEqual({ bins: [], average_conversion_time: null, median_conversion_time: null });
  });

  it.each([
    ['from = to', { funnelFromStep: 1, funnelToStep: 1 }],
    ['from past the second-to-last step', { funnelFromStep: 2 }],
  ])('400 for %s', async (_n, ff) => {
    await expect(run(pid, q(ff))).rejects.toMatchObject({ status: 400 });
  });
});

// ------------------------------------------------------------------------------------------------ request validation

describe('request validation', () => {
  const base = { kind: 'FunnelsQuery', series: [E('sign up'), E('buy')], dateRange: { date_from: '2021-05-01', date_to: '2021-05-02' } };
  it.each<[string, Record<string, unknown>, string]>([
    ['an unknown funnelsFilter key (schema models forbid extra keys)', { funnelsFilter: { funnelWindowBogus: 7 } }, 'funnelsFilter'],
    ['an unknown order type', { funnelsFilter: { funnelOrderType: 'sequential' } }, 'funnelsFilter.funnelOrderType'],
    ['an unknown window unit', { funnelsFilter: { funnelWindowIntervalUnit: 'year' } }, 'funnelsFilter.funnelWindowIntervalUnit'],
    ['an exclusion without its step range', { funnelsFilter: { exclusions: [{ kind: 'EventsNode', event: 'x' }] } }, 'funnelsFilter.exclusions.0.funnelFromStep'],
    ['no steps', { series: [] }, 'series'],
  ])('the schema refuses %s', (_n, q, path) => {
    const r = funnelsRunner.schema.safeParse({ ...base, ...q });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join('.'))).toContain(path);
  });

  it('400 for a breakdown attribution step past the last step', async () => {
    const pid = await load([ev('a', 'sign up', t(2021, 5, 1))]);
    const q = { ...base, funnelsFilter: { breakdownAttributionType: 'step', breakdownAttributionValue: 2 }, breakdownFilter: { breakdown: '$browser' } };
    await expect(run(pid, q)).rejects.toMatchObject({ status: 400, attr: 'funnelsFilter__breakdownAttributionValue' });
  });
});

// ------------------------------------------------------------------------------------------------ test_funnel_persons.py

describe('test_funnel_persons.py: actors of a breakdown value', () => {
  const dateRange = { date_from: '2020-01-01', date_to: '2020-01-08' };
  const series = [E('sign up'), E('play movie'), E('buy')];
  /** `_create_browser_breakdown_events`. */
  const events = [
    ev('person1', 'sign up', t(2020, 1, 1, 12), { key: 'val', $browser: 'Chrome', $browser_version: 95 }),
    ev('person1', 'play movie', t(2020, 1, 1, 13), { key: 'val', $browser: 'Chrome', $browser_version: 95 }),
    ev('person1', 'buy', t(2020, 1, 1, 15), { key: 'val', $browser: 'Chrome', $browser_version: 95 }),
    ev('person2', 'sign up', t(2020, 1, 2, 14), { key: 'val', $browser: 'Safari', $browser_version: 15 }),
    ev('person2', 'play movie', t(2020, 1, 2, 16), { key: 'val', $browser: 'Safari', $browser_version: 15 }),
  ];
  let pid: number;
  beforeAll(async () => {
    pid = await load(events);
  });

  it.each<[number, unknown, string[]]>([
    [1, null, ['person1', 'person2']],
    [1, ['Chrome'], ['person1']],
    [1, ['Safari'], ['person2']],
    [2, ['Safari'], ['person2']],
    [3, ['Safari'], []],
    [3, ['Chrome'], ['person1']],
    // a scalar value reads as the one-element array
    [1, 'Chrome', ['person1']],
    // drop-offs of a value
    [-3, ['Safari'], ['person2']],
  ])('test_first_step_breakdowns: funnelStep %d, funnelStepBreakdown %j', async (funnelStep, funnelStepBreakdown, expected) => {
    const source = { series, dateRange, interval: 'day', funnelsFilter: { funnelWindowInterval: 7 }, breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' } };
    expect(await actorNames(pid, source, { funnelStep, funnelStepBreakdown })).toEqual(expected);
  });

  it.each<[unknown, string[]]>([
    [['Chrome', '95'], ['person1']],
    [['Safari', 15], ['person2']],
    [['Safari', '95'], []],
  ])('test_first_step_breakdowns_with_multi_property_breakdown: %j', async (funnelStepBreakdown, expected) => {
    const source = { series, dateRange, funnelsFilter: { funnelWindowInterval: 7 }, breakdownFilter: { breakdown_type: 'event', breakdown: ['$browser', '$browser_version'] } };
    expect(await actorNames(pid, source, { funnelStep: 1, funnelStepBreakdown })).toEqual(expected);
  });

  it('test_first_step_breakdown_person: a person-property value given as a string', async () => {
    const people = [
      { distinct_ids: ['person1'], properties: { $country: 'PL' } },
      { distinct_ids: ['person2'], properties: { $country: 'EE' } },
    ];
    const id = await h.load({ persons: people, events });
    const source = { series, dateRange, funnelsFilter: { funnelWindowInterval: 7 }, breakdownFilter: { breakdown_type: 'person', breakdown: '$country' } };
    expect(await actorNames(id, source, { funnelStep: 1, funnelStepBreakdown: 'EE' })).toEqual(['person2']);
    expect(await actorNames(id, source, { funnelStep: 2, funnelStepBreakdown: 'EE' })).toEqual(['person2']);
    expect(await actorNames(id, source, { funnelStep: 1, funnelStepBreakdown: 'PL' })).toEqual(['person1']);
    expect(await actorNames(id, source, { funnelStep: 3, funnelStepBreakdown: 'EE' })).toEqual([]);
  });

  it('the actors of the "Other" value past the breakdown limit', async () => {
    const source = { series, dateRange, funnelsFilter: { funnelWindowInterval: 7 }, breakdownFilter: { breakdown_type: 'event', breakdown: '$browser', breakdown_limit: 1 } };
    const r = await run(pid, source);
    expect(byValue(r)).toEqual([
      [['Chrome'], [1, 1, 1]],
      [['Other'], [1, 1, 0]],
    ]);
    expect(await actorNames(pid, source, { funnelStep: 1, funnelStepBreakdown: ['Other'] })).toEqual(['person2']);
  });

  it('optional steps: the actors of an optional step are those who did it', async () => {
    const source = { series: [E('sign up'), E('play movie', { optionalInFunnel: true }), E('buy')], dateRange, funnelsFilter: { funnelWindowInterval: 7 } };
    const id = await load([...events, ev('person3', 'sign up', t(2020, 1, 3, 10)), ev('person3', 'buy', t(2020, 1, 3, 11))]);
    expect(counts(await run(id, source))).toEqual([3, 2, 2]);
    expect(await actorNames(id, source, { funnelStep: 2 })).toEqual(['person1', 'person2']);
    expect(await actorNames(id, source, { funnelStep: 3 })).toEqual(['person1', 'person3']);
  });
});

// ------------------------------------------------------------------------------------------------ actions and groups

describe('test_funnel.py: actions and groups (third pass)', () => {
  it('test_funnel_multiple_actions: two actions on one event with different property filters keep their own filters', async () => {
    const pid = await load([ev('person1', 'event1', t(2020, 1, 2, 10)), ev('person1', 'event2', t(2020, 1, 2, 11), { test_prop: 'a' })]);
    const actions: ActionDef[] = [
      { id: 81, name: 'event2', steps: [actionStep('event2', [{ key: 'test_prop', value: 'a', type: 'event', operator: 'exact' }])] },
      { id: 82, name: 'event2', steps: [actionStep('event2', [{ key: 'test_prop', value: 'c', type: 'event', operator: 'exact' }])] },
    ];
    const r = await h.run(
      funnelsRunner,
      {
        kind: 'FunnelsQuery',
        series: [E('event1'), { kind: 'ActionsNode', id: 81 }, { kind: 'ActionsNode', id: 82 }],
        dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
        funnelsFilter: { funnelWindowInterval: 14 },
      },
      pid,
      {},
      actionSource(actions),
    );
    expect(r.results.map((s: any) => [s.name, s.count])).toEqual([
      ['event1', 1],
      ['event2', 1],
      ['event2', 0],
    ]);
  });

  it('test_funnel_aggregate_by_groups_breakdown_group: groups are the actors, broken down by a group property', async () => {
    const id = await h.load({ persons: persons('person1', 'person2', 'person3'), events: [] });
    await writeGroups(h, id, [
      [0, 'org:5', { industry: 'finance' }],
      [0, 'org:6', { industry: 'technology' }],
      [1, 'company:1', { industry: 'finance' }],
      [1, 'company:2', { industry: 'technology' }],
    ]);
    const g5 = { $group_0: 'org:5' };
    const g6 = { $group_0: 'org:6' };
    await h.ingestor.import(id, {
      events: [
        ev('person1', 'sign up', t(2020, 1, 1, 12), g5),
        ev('person1', 'play movie', t(2020, 1, 2, 12), g5),
        ev('person1', 'buy', t(2020, 1, 3, 12), g5),
        ev('person2', 'sign up', t(2020, 1, 2, 14), g6),
        ev('person2', 'play movie', t(2020, 1, 2, 16), g6),
        // another person of org:6 completes the group's funnel
        ev('person3', 'buy', t(2020, 1, 2, 18), g6),
      ],
    });
    await h.ingestor.flush();
    const r = await run(id, {
      series: [E('sign up'), E('play movie'), E('buy')],
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
      funnelsFilter: { funnelWindowInterval: 7 },
      breakdownFilter: { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0 },
      aggregation_group_type_index: 0,
    });
    const rows = (r.results as any[][]).map((steps) => [steps[0].breakdown_value, steps.map((s) => [s.count, s.average_conversion_time, s.median_conversion_time])]);
    expect(rows.sort()).toEqual([
      [
        'finance',
        [
          [1, null, null],
          [1, 86400, 86400],
          [1, 86400, 86400],
        ],
      ],
      [
        'technology',
        [
          [1, null, null],
          [1, 7200, 7200],
          [1, 7200, 7200],
        ],
      ],
    ]);
  });
});

describe('after the runner diff: exclusion validation, step attribution', () => {
  const P = (key: string, value: string) => ({ key, value, operator: 'exact', type: 'event' });
  it.each([
    ['a subset of the step filters (it matches every event of the step)', [E('a', { properties: [P('x', '1'), P('y', '2')] }), E('b')], X('a', 0, 1, { properties: [P('x', '1')] })],
    ['the step filters in another order', [E('a', { properties: [P('x', '1'), P('y', '2')] }), E('b')], X('a', 0, 1, { properties: [P('y', '2'), P('x', '1')] })],
  ])('test_funnel_exclusions_invalid_params: 400 for an exclusion that is %s', async (_n, series, exclusion) => {
    await expect(
      funnel([ev('u', 'a', t(2024, 1, 1), { x: '1', y: '2' })], { series, dateRange: { date_from: '2024-01-01', date_to: '2024-01-02' }, funnelsFilter: { exclusions: [exclusion] } }),
    ).rejects.toMatchObject({ status: 400, attr: 'funnelsFilter__exclusions__0' });
  });

  it('a narrower exclusion (an extra filter) is allowed', async () => {
    const r = await funnel([ev('u', 'a', t(2024, 1, 1), { x: '1' })], {
      series: [E('a'), E('b')],
      dateRange: { date_from: '2024-01-01', date_to: '2024-01-02' },
      funnelsFilter: { exclusions: [X('a', 0, 1, { properties: [P('x', '2')] })] },
    });
    expect(r.results.map((s: any) => s.count)).toEqual([1, 0]);
  });

  it('400 for funnelAggregateByHogQL with an aggregate, in the same words on every engine', async () => {
    await expect(
      funnel([ev('u', 'a', t(2024, 1, 1))], { series: [E('a'), E('b')], dateRange: { date_from: '2024-01-01', date_to: '2024-01-02' }, funnelsFilter: { funnelAggregateByHogQL: 'count()' } }),
    ).rejects.toMatchObject({ status: 400, attr: 'funnelsFilter__funnelAggregateByHogQL' });
  });

  it('step attribution: step events outside the actor’s sequence give no value ("funnel items that never reach step_1 are NULLed out")', async () => {
    const events = [
      // buy before sign up: never reaches step 1
      ev('p5', 'buy', t(2020, 1, 1, 10), { $browser: 'Safari', $version: '1' }),
      ev('p5', 'sign up', t(2020, 1, 1, 11), { $browser: 'Chrome' }),
      // buy after the 14-day window
      ev('p6', 'sign up', t(2020, 1, 1, 11)),
      ev('p6', 'buy', t(2020, 1, 20, 11), { $browser: 'Firefox' }),
      ev('p7', 'sign up', t(2020, 1, 2, 11)),
      ev('p7', 'buy', t(2020, 1, 2, 12), { $browser: 'Safari', $version: '1' }),
    ];
    const q = (breakdown: unknown) => ({
      series: [E('sign up'), E('buy')],
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-31' },
      breakdownFilter: { breakdown_type: 'event', breakdown },
      funnelsFilter: { breakdownAttributionType: 'step', breakdownAttributionValue: 1 },
    });
    expect(byValue(await funnel(events, q('$browser')))).toEqual([
      [[''], [2, 0]],
      [['Safari'], [1, 1]],
    ]);
    expect(byValue(await funnel(events, q(['$browser', '$version'])))).toEqual([
      [['', ''], [2, 0]],
      [['Safari', '1'], [1, 1]],
    ]);
  });
});
