/**
 * FunnelsActorsQuery edge cases ported from PostHog (posthog/hogql_queries/insights/funnels/test/: test_funnel_persons.py,
 * test_funnel_strict_persons.py, test_funnel_unordered_persons.py, test_funnel_trends_persons.py;
 * posthog/hogql_queries/test/test_insight_actors_query_runner.py), the ones funnels-posthog-compat{,-2,…,-9}.test.ts
 * and the events-actors compat files do not cover: how PostHog's `_get_funnel_person_step_condition` reads funnelStep
 * and funnelCustomSteps (`if funnelCustomSteps: steps IN [...]`, `elif funnelStep:` a range or one step, `else:`
 * "Missing both funnelStep and funnelCustomSteps" — no range checks, 0 and [] are falsy), funnelStepBreakdown given as a
 * number or as the empty value, the FunnelTrends actor query's required parameters, the actor class picked by the
 * visualisation, and an InsightActorsQuery whose source is a FunnelsQuery. Each case names the PostHog test or code it
 * follows. One project holds every case's events (each case its own event names). Runs through the real runners on a
 * real engine (DuckDB, or ClickHouse via the .clickhouse twin).
 */
import { actorsRunner } from '../runners/actors-runner';
import { insightActorsOptionsRunner } from '../runners/insight-actors-options-runner';
import { funnelsRunner } from '../runners/funnels-runner';
import { E, type Ev, ev, type Harness, openHarness, persons, t } from './testing';

/**
 * test_funnel_persons.py `_create_sample_data_multiple_dropoffs`: 5 people do all three steps, 10 stop after step two,
 * 20 after step one.
 */
function multipleDropoffs(): Ev[] {
  const out: Ev[] = [];
  for (let i = 0; i < 35; i++) {
    out.push(ev(`user_${i}`, 'step one', t(2021, 5, 1)));
    if (i < 15) out.push(ev(`user_${i}`, 'step two', t(2021, 5, 3)));
    if (i < 5) out.push(ev(`user_${i}`, 'step three', t(2021, 5, 5)));
  }
  return out;
}

const EVENTS: Ev[] = [
  ...multipleDropoffs(),
  // test_funnel_persons.py `_create_browser_breakdown_events` (person1 Chrome 95 does all three steps, person2 Safari
  // 15 two), and person3 with no browser at all
  ev('person1', 'sign up', t(2020, 1, 1, 12), { $browser: 'Chrome', $browser_version: 95 }),
  ev('person1', 'play movie', t(2020, 1, 1, 13), { $browser: 'Chrome', $browser_version: 95 }),
  ev('person1', 'buy', t(2020, 1, 1, 15), { $browser: 'Chrome', $browser_version: 95 }),
  ev('person2', 'sign up', t(2020, 1, 2, 14), { $browser: 'Safari', $browser_version: 15 }),
  ev('person2', 'play movie', t(2020, 1, 2, 16), { $browser: 'Safari', $browser_version: 15 }),
  ev('person3', 'sign up', t(2020, 1, 3, 10)),
  // test_funnel_trends_persons.py: trend_one converts on May 1, trend_two enters the same day and goes no further
  ev('trend_one', 'trend one', t(2021, 5, 1, 0)),
  ev('trend_one', 'trend two', t(2021, 5, 1, 1)),
  ev('trend_two', 'trend one', t(2021, 5, 1, 10)),
  // trend_three enters twice on May 2: the 01:00 entry converts at 02:00, the 03:00 entry does not
  ev('trend_three', 'trend one', t(2021, 5, 2, 1)),
  ev('trend_three', 'trend two', t(2021, 5, 2, 2)),
  ev('trend_three', 'trend one', t(2021, 5, 2, 3)),
  // test_unordered_funnel_does_not_return_recordings (frozen at 2021-01-02): step two now, steps one and three a day
  // later, all in session s1 (event names and person of their own here: PostHog's user_1)
  ev('rec_user_1', 'rec step two', t(2021, 1, 2), { $session_id: 's1', $window_id: 'w1' }),
  ev('rec_user_1', 'rec step one', t(2021, 1, 3), { $session_id: 's1', $window_id: 'w1' }),
  ev('rec_user_1', 'rec step three', t(2021, 1, 3), { $session_id: 's1', $window_id: 'w1' }),
];

/**
 * The sweep's journeys (events `sw a`, `sw b`, `sw c`, the exclusion `sw x`; June 2021, hour h of day d): orders that
 * each funnel order type reads differently, a repeated first step, a conversion outside the window, exclusions
 * between two steps, steps at the same instant.
 */
const SWEEP: [string, string | null, [string, number, number][]][] = [
  ['sw_0', 'Chrome', [['a', 1, 1], ['b', 1, 2], ['c', 1, 3]]],
  ['sw_1', 'Safari', [['a', 1, 1], ['c', 1, 2], ['b', 1, 3]]],
  ['sw_2', 'Chrome', [['b', 1, 1], ['a', 1, 2], ['c', 1, 3]]],
  ['sw_3', 'Chrome', [['a', 1, 1], ['x', 1, 2], ['b', 1, 3], ['c', 1, 4]]],
  ['sw_4', 'Safari', [['a', 1, 1], ['a', 1, 2], ['b', 1, 3]]],
  ['sw_5', 'Firefox', [['a', 1, 1], ['b', 10, 1]]],
  ['sw_6', null, [['a', 2, 1], ['b', 2, 2], ['c', 2, 3]]],
  ['sw_7', 'Chrome', [['c', 2, 1]]],
  ['sw_8', 'Safari', [['a', 2, 1], ['b', 2, 2], ['x', 2, 3], ['c', 2, 4]]],
  ['sw_9', 'Chrome', [['a', 3, 1], ['b', 3, 1], ['c', 3, 2]]],
];
EVENTS.push(
  ...SWEEP.flatMap(([id, browser, steps]) => steps.map(([step, d, hh]) => ev(id, `sw ${step}`, t(2021, 6, d, hh), browser ? { $browser: browser } : {}))),
);

let h: Harness;
let pid: number;
beforeAll(async () => {
  h = await openHarness();
  pid = await h.load({ persons: persons(...new Set(EVENTS.map((e) => e.distinct_id))), events: EVENTS });
});
afterAll(async () => {
  await h.close();
});

/** The first distinct id of each actor of the data point, sorted. */
async function actorNames(source: Record<string, unknown>, project: Record<string, unknown> = {}): Promise<string[]> {
  const r = await h.run(actorsRunner, { kind: 'ActorsQuery', source, select: ['actor'], limit: 1000 }, pid, project);
  return (r.results as any[][]).map((row) => row[0].distinct_ids[0]).sort();
}
const users = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `user_${from + i}`).sort();

/** test_funnel_persons.py's filters: three steps, May 1–7 2021, a 7-day window, in the given order. */
const steps3 = (funnelsFilter: Record<string, unknown> = {}) => ({
  kind: 'FunnelsQuery',
  interval: 'day',
  series: [E('step one'), E('step two'), E('step three')],
  dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 00:00:00' },
  funnelsFilter: { funnelWindowInterval: 7, ...funnelsFilter },
});
const ORDERS = ['ordered', 'strict', 'unordered'];

// ------------------------------------------------------------------------------------------------ funnelStep / funnelCustomSteps

describe('_get_funnel_person_step_condition: funnelStep and funnelCustomSteps as PostHog reads them', () => {
  it.each(ORDERS)('test_invalid_steps (%s): funnelStep 0 is "Missing both funnelStep and funnelCustomSteps" (0 is falsy)', async (funnelOrderType) => {
    await expect(actorNames({ kind: 'FunnelsActorsQuery', source: steps3({ funnelOrderType }), funnelStep: 0 })).rejects.toMatchObject({
      status: 400,
      message: 'Missing both funnelStep and funnelCustomSteps',
      attr: 'source__funnelStep',
    });
  });

  it('test_invalid_steps: a funnelStep that is no integer ("blah") is refused by the schema', () => {
    for (const funnelStep of ['blah', 1.5]) {
      const r = actorsRunner.schema.safeParse({ kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: steps3(), funnelStep } });
      expect(r.success).toBe(false);
    }
  });

  it('neither funnelStep nor funnelCustomSteps (or an empty list of them): "Missing both funnelStep and funnelCustomSteps"', async () => {
    for (const point of [{}, { funnelCustomSteps: [] }, { funnelStep: null, funnelCustomSteps: null }]) {
      await expect(actorNames({ kind: 'FunnelsActorsQuery', source: steps3(), ...point })).rejects.toMatchObject({
        status: 400,
        message: 'Missing both funnelStep and funnelCustomSteps',
      });
    }
  });

  it('an empty funnelCustomSteps list is falsy: funnelStep decides', async () => {
    expect(await actorNames({ kind: 'FunnelsActorsQuery', source: steps3(), funnelStep: 3, funnelCustomSteps: [] })).toEqual(users(0, 5));
  });

  it.each(ORDERS)('%s: a funnelStep past the last step is `steps IN []`, no actors (not an error)', async (funnelOrderType) => {
    for (const funnelStep of [4, 10]) expect(await actorNames({ kind: 'FunnelsActorsQuery', source: steps3({ funnelOrderType }), funnelStep })).toEqual([]);
  });

  it('funnelStep −(n+1) is `steps = n`: the actors who completed every step; −(n+2) and below, nobody', async () => {
    expect(await actorNames({ kind: 'FunnelsActorsQuery', source: steps3(), funnelStep: -4 })).toEqual(users(0, 5));
    expect(await actorNames({ kind: 'FunnelsActorsQuery', source: steps3(), funnelStep: -5 })).toEqual([]);
  });

  it('funnelStep −1 is `steps = 0`: nobody (every actor of the funnel did step one)', async () => {
    expect(await actorNames({ kind: 'FunnelsActorsQuery', source: steps3(), funnelStep: -1 })).toEqual([]);
  });

  it.each<[number[], string[]]>([
    [[0, 2], users(5, 15)],
    [[2, 4], users(5, 15)],
    [[0], []],
    [[4, 5], []],
  ])('funnelCustomSteps %j are `steps IN [...]` unchecked: steps outside 1..n match nobody', async (funnelCustomSteps, expected) => {
    expect(await actorNames({ kind: 'FunnelsActorsQuery', source: steps3(), funnelCustomSteps })).toEqual(expected);
  });

  it.each<[string, number[], number]>([
    ['strict', [1], 20],
    ['strict', [2, 3], 15],
    ['unordered', [1, 3], 25],
    ['unordered', [3], 5],
  ])('%s: funnelCustomSteps %j use the same condition (test_steps_with_custom_steps_parameter_* over FunnelStrictActors / FunnelUnorderedActors)', async (funnelOrderType, funnelCustomSteps, n) => {
    expect(await actorNames({ kind: 'FunnelsActorsQuery', source: steps3({ funnelOrderType }), funnelCustomSteps })).toHaveLength(n);
  });

  it('time_to_convert: the actors are the steps funnel’s (get_funnel_actor_class has a class of its own only for trends)', async () => {
    const source = steps3({ funnelVizType: 'time_to_convert' });
    expect(await actorNames({ kind: 'FunnelsActorsQuery', source, funnelStep: 2 })).toEqual(users(0, 15));
    expect(await actorNames({ kind: 'FunnelsActorsQuery', source, funnelStep: -3 })).toEqual(users(5, 15));
    // (the conversion range of the chart is no step condition of its actors)
    const ranged = steps3({ funnelVizType: 'time_to_convert', funnelFromStep: 1, funnelToStep: 2 });
    expect(await actorNames({ kind: 'FunnelsActorsQuery', source: ranged, funnelStep: 1 })).toEqual(users(0, 35));
  });

  it('a funnel’s actor query has no event_count column: selecting it is a 400 (PostHog cannot resolve the field)', async () => {
    const source = { kind: 'FunnelsActorsQuery', source: steps3(), funnelStep: 1 };
    await expect(h.run(actorsRunner, { kind: 'ActorsQuery', source, select: ['person', 'event_count'] }, pid)).rejects.toMatchObject({ status: 400, attr: 'select__1' });
  });

  it('test_funnel_with_single_step’s funnel: step 1 is everyone, step 2 (past the end) and −1 nobody', async () => {
    const one = { ...steps3(), series: [E('step one')] };
    expect(await actorNames({ kind: 'FunnelsActorsQuery', source: one, funnelStep: 1 })).toEqual(users(0, 35));
    expect(await actorNames({ kind: 'FunnelsActorsQuery', source: one, funnelStep: 2 })).toEqual([]);
    expect(await actorNames({ kind: 'FunnelsActorsQuery', source: one, funnelStep: -1 })).toEqual([]);
  });
});

describe('test_funnel_unordered_persons.py: test_unordered_funnel_does_not_return_recordings', () => {
  it('get_actors(funnelStep=1, includeRecordings=True): the person, and no recordings', async () => {
    const source = {
      kind: 'FunnelsActorsQuery',
      funnelStep: 1,
      includeRecordings: true,
      source: {
        kind: 'FunnelsQuery',
        interval: 'day',
        series: [E('rec step one'), E('rec step two'), E('rec step three')],
        dateRange: { date_from: '2021-01-01', date_to: '2021-01-08' },
        funnelsFilter: { funnelOrderType: 'unordered', funnelWindowInterval: 7 },
      },
    };
    const r = await h.run(actorsRunner, { kind: 'ActorsQuery', source, select: ['id', 'person', 'matched_recordings'], orderBy: ['id'] }, pid);
    expect(r.results).toHaveLength(1);
    const [[id, person, recordings]] = r.results;
    expect([id === person.id, person.distinct_ids, recordings]).toEqual([true, ['rec_user_1'], []]);
    // (all three steps were completed, in another order)
    expect(await actorNames({ ...source, funnelStep: 3 })).toEqual(['rec_user_1']);
  });
});

// ------------------------------------------------------------------------------------------------ funnelStepBreakdown

describe('funnelStepBreakdown: `arrayFlatten(array(prop)) = arrayFlatten(array(value))`, an int read as text (not for cohorts)', () => {
  const source = (breakdown: string) => ({
    kind: 'FunnelsQuery',
    interval: 'day',
    series: [E('sign up'), E('play movie'), E('buy')],
    dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
    funnelsFilter: { funnelWindowInterval: 7 },
    breakdownFilter: { breakdown_type: 'event', breakdown },
  });

  it.each<[number, unknown, string[]]>([
    [1, 15, ['person2']],
    [1, 95, ['person1']],
    [3, 95, ['person1']],
    [2, 15, ['person2']],
    [3, 15, []],
    [1, [15], ['person2']],
    [1, '15', ['person2']],
  ])('a numeric property value: funnelStep %d, funnelStepBreakdown %j (test_first_step_breakdowns on $browser_version)', async (funnelStep, funnelStepBreakdown, expected) => {
    expect(await actorNames({ kind: 'FunnelsActorsQuery', source: source('$browser_version'), funnelStep, funnelStepBreakdown })).toEqual(expected);
  });

  it('the empty value ("" or [""]) names the actors without the property (ifNull(toString(prop), ""))', async () => {
    for (const funnelStepBreakdown of ['', ['']]) expect(await actorNames({ kind: 'FunnelsActorsQuery', source: source('$browser'), funnelStep: 1, funnelStepBreakdown })).toEqual(['person3']);
    expect(await actorNames({ kind: 'FunnelsActorsQuery', source: source('$browser'), funnelStep: -2, funnelStepBreakdown: '' })).toEqual(['person3']);
  });

  it('funnelStepBreakdown null: every breakdown value (no condition)', async () => {
    expect(await actorNames({ kind: 'FunnelsActorsQuery', source: source('$browser'), funnelStep: 1, funnelStepBreakdown: null })).toEqual(['person1', 'person2', 'person3']);
  });

  it('a value nobody has, or more values than the breakdown has properties: no actors', async () => {
    expect(await actorNames({ kind: 'FunnelsActorsQuery', source: source('$browser'), funnelStep: 1, funnelStepBreakdown: ['Firefox'] })).toEqual([]);
    expect(await actorNames({ kind: 'FunnelsActorsQuery', source: source('$browser'), funnelStep: 1, funnelStepBreakdown: ['Chrome', '95'] })).toEqual([]);
  });

  it('funnelCustomSteps with a breakdown value give the funnelStep answer (test_first_step_breakdown_person: custom_step_results == results)', async () => {
    const byStep = await actorNames({ kind: 'FunnelsActorsQuery', source: source('$browser'), funnelStep: 2, funnelStepBreakdown: ['Chrome'] });
    expect(await actorNames({ kind: 'FunnelsActorsQuery', source: source('$browser'), funnelCustomSteps: [2, 3], funnelStepBreakdown: ['Chrome'] })).toEqual(byStep);
    expect(byStep).toEqual(['person1']);
  });
});

// ------------------------------------------------------------------------------------------------ funnel trends actors

describe('test_funnel_trends_persons.py: FunnelTrends.actor_query’s required parameters', () => {
  const trends = {
    kind: 'FunnelsQuery',
    interval: 'day',
    series: [E('trend one'), E('trend two')],
    dateRange: { date_from: '2021-05-01', date_to: '2021-05-07' },
    funnelsFilter: { funnelVizType: 'trends', funnelWindowInterval: 7 },
  };

  it('without funnelTrendsDropOff: "Actors parameter `funnelTrendsDropOff` must be provided …" (checked first)', async () => {
    for (const point of [{ funnelTrendsEntrancePeriodStart: '2021-05-01 00:00:00' }, {}, { funnelTrendsDropOff: null }]) {
      await expect(actorNames({ kind: 'FunnelsActorsQuery', source: trends, ...point })).rejects.toMatchObject({
        status: 400,
        attr: 'source__funnelTrendsDropOff',
        message: expect.stringContaining('Actors parameter `funnelTrendsDropOff` must be provided'),
      });
    }
  });

  it('without funnelTrendsEntrancePeriodStart: "Actors parameter `funnelTrendsEntrancePeriodStart` must be provided …"', async () => {
    await expect(actorNames({ kind: 'FunnelsActorsQuery', source: trends, funnelTrendsDropOff: true })).rejects.toMatchObject({
      status: 400,
      attr: 'source__funnelTrendsEntrancePeriodStart',
      message: expect.stringContaining('Actors parameter `funnelTrendsEntrancePeriodStart` must be provided'),
    });
  });

  it('an actor entering twice in one period is listed once, by its furthest entry: converted, not dropped off (derived: one row per actor and period, max steps)', async () => {
    const point = { kind: 'FunnelsActorsQuery', source: trends, funnelTrendsEntrancePeriodStart: '2021-05-02 00:00:00' };
    expect(await actorNames({ ...point, funnelTrendsDropOff: false })).toEqual(['trend_three']);
    expect(await actorNames({ ...point, funnelTrendsDropOff: true })).toEqual([]);
  });

  it('the entrance period is read in the project timezone (relative_date_parse with the team’s tz; an aware datetime converted to it)', async () => {
    const ny = { timezone: 'America/New_York' };
    const point = (funnelTrendsEntrancePeriodStart: string, funnelTrendsDropOff: boolean) => ({ kind: 'FunnelsActorsQuery', source: trends, funnelTrendsEntrancePeriodStart, funnelTrendsDropOff });
    // New York's May 1 holds trend_two's entry (06:00) and trend_three's two (21:00, 23:00); trend_one entered on
    // April 30 there, before the range
    expect(await actorNames(point('2021-05-01 00:00:00', false), ny)).toEqual(['trend_three']);
    expect(await actorNames(point('2021-05-01 00:00:00', true), ny)).toEqual(['trend_two']);
    expect(await actorNames(point('2021-05-01T04:00:00Z', false), ny)).toEqual(['trend_three']);
    expect(await actorNames(point('2021-05-02', false), ny)).toEqual([]);
  });

  it('hour interval: the period is the entry’s hour', async () => {
    const hourly = { ...trends, interval: 'hour', dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-01 23:59:59' } };
    const point = (funnelTrendsEntrancePeriodStart: string, funnelTrendsDropOff: boolean) => ({ kind: 'FunnelsActorsQuery', source: hourly, funnelTrendsEntrancePeriodStart, funnelTrendsDropOff });
    expect(await actorNames(point('2021-05-01 00:00:00', false))).toEqual(['trend_one']);
    expect(await actorNames(point('2021-05-01 10:00:00', true))).toEqual(['trend_two']);
    expect(await actorNames(point('2021-05-01 10:00:00', false))).toEqual([]);
  });

  it('funnelStep plays no part for a trends funnel (its actor query has no step condition): 0 or missing is no error', async () => {
    const point = { kind: 'FunnelsActorsQuery', source: trends, funnelTrendsEntrancePeriodStart: '2021-05-01 00:00:00' };
    expect(await actorNames({ ...point, funnelTrendsDropOff: false, funnelStep: 0 })).toEqual(['trend_one']);
    expect(await actorNames({ ...point, funnelTrendsDropOff: true })).toEqual(['trend_two']);
  });
});

// ------------------------------------------------------------------------------------------------ InsightActorsQuery over a funnel

describe('test_insight_actors_query_runner.py: an InsightActorsQuery whose source is a FunnelsQuery (InsightQuerySource)', () => {
  const funnel = { kind: 'FunnelsQuery', series: [E('step one'), E('step two')], dateRange: { date_from: '2021-05-01', date_to: '2021-05-07' } };

  it('InsightActorsQueryOptions answers it with every option null (InsightActorsQueryOptionsRunner’s fallback)', async () => {
    const r = await h.run(insightActorsOptionsRunner, { kind: 'InsightActorsQueryOptions', source: { kind: 'InsightActorsQuery', source: funnel } }, pid);
    expect(r).toEqual({ day: null, status: null, interval: null, breakdown: null, breakdowns: null, series: null, compare: null });
  });

  it('its actors are a 400 pointing to FunnelsActorsQuery (PostHog fails reading funnelStep off the InsightActorsQuery)', async () => {
    await expect(actorNames({ kind: 'InsightActorsQuery', source: funnel })).rejects.toMatchObject({ status: 400, attr: 'source__kind' });
  });

  it('funnel fields are not InsightActorsQuery fields (extra=forbid)', () => {
    const r = actorsRunner.schema.safeParse({ kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: funnel, funnelStep: 1 } });
    expect(r.success).toBe(false);
  });
});

// ------------------------------------------------------------------------------------------------ every step and drop-off

describe('every step of a funnel: its actors number its count, its drop-offs the difference (test_funnel_persons.py over each order type)', () => {
  const sweep = (funnelOrderType: string, extra: Record<string, unknown> = {}, filter: Record<string, unknown> = {}) => ({
    kind: 'FunnelsQuery',
    series: [E('sw a'), E('sw b'), E('sw c')],
    dateRange: { date_from: '2021-06-01 00:00:00', date_to: '2021-06-14 23:59:59' },
    funnelsFilter: { funnelOrderType, funnelWindowInterval: 7, ...filter },
    ...extra,
  });
  // (an unordered funnel's exclusion spans every step: PostHog refuses a partial one)
  const exclusion = (order: string, from: number, to: number) =>
    ({ kind: 'EventsNode', event: 'sw x', ...(order === 'unordered' ? { funnelFromStep: 0, funnelToStep: 2 } : { funnelFromStep: from, funnelToStep: to }) });
  const check = async (funnel: Record<string, unknown>, steps: any[], breakdown?: unknown) => {
    const point = (funnelStep: number) => ({ kind: 'FunnelsActorsQuery', source: funnel, funnelStep, ...(breakdown !== undefined ? { funnelStepBreakdown: breakdown } : {}) });
    for (const [i, step] of steps.entries()) {
      expect([breakdown, i + 1, (await actorNames(point(i + 1))).length]).toEqual([breakdown, i + 1, step.count]);
      if (i) expect([breakdown, -(i + 1), (await actorNames(point(-(i + 1)))).length]).toEqual([breakdown, -(i + 1), steps[i - 1].count - step.count]);
    }
  };

  it.each(ORDERS)('%s', async (order) => {
    for (const funnel of [sweep(order), sweep(order, {}, { exclusions: [exclusion(order, 0, 1)] })]) {
      const r = await h.run(funnelsRunner, funnel, pid);
      await check(funnel, r.results as any[]);
    }
  });

  it.each(ORDERS)('%s, by browser', async (order) => {
    const funnel = sweep(order, { breakdownFilter: { breakdown: '$browser' } }, { exclusions: [exclusion(order, 1, 2)] });
    const r = await h.run(funnelsRunner, funnel, pid);
    expect((r.results as any[][]).length).toBeGreaterThan(2);
    for (const steps of r.results as any[][]) await check(funnel, steps, steps[0].breakdown_value);
  });

  it('the ordered counts this data gives', async () => {
    const counts = async (filter: Record<string, unknown>) => ((await h.run(funnelsRunner, sweep('ordered', {}, filter), pid)).results as any[]).map((s) => s.count);
    // sw_5 converts outside the window; sw_1 and sw_2 reach one step each in order
    expect(await counts({})).toEqual([9, 7, 5]);
    expect(await actorNames({ kind: 'FunnelsActorsQuery', source: sweep('ordered'), funnelStep: -2 })).toEqual(['sw_2', 'sw_5']);
  });
});
