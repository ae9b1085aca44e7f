/**
 * A seventh batch of PostHog's funnel cases (posthog/hogql_queries/insights/funnels/test/: test_funnel_strict.py,
 * test_funnel_unordered.py, test_funnel_time_to_convert.py, test_funnel_persons.py, test_funnel_trends_persons.py),
 * the ones funnels-posthog-compat{,-2,-3,-4,-5,-6}.test.ts do not cover: mostly the actors per step and per drop-off
 * of strict and unordered funnels. Each case names the PostHog test it follows; the expected values are PostHog's,
 * or, where a case says "derived", follow from the reference's §3 rules on PostHog's setup. Runs through the real
 * runners on a real engine (DuckDB, or ClickHouse via the .clickhouse twin).
 */
import { funnelsRunner } from '../runners/funnels-runner';
import { actorsRunner } from '../runners/actors-runner';
import { actionSource, E, type Ev, ev, type Harness, openHarness, persons, t } from './testing';
import { actionStep } from '../insights/testing';
import type { ActionDef } from '../../actions/matching';

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
async function run(pid: number, q: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return h.run(funnelsRunner, { kind: 'FunnelsQuery', ...q }, pid, {}, extra as any);
}

/** The actors of a FunnelsActorsQuery over `q`: each actor's first distinct id, sorted. */
async function actorsOf(pid: number, q: Record<string, unknown>, point: Record<string, unknown>): Promise<string[]> {
  const r = await h.run(actorsRunner, { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: { kind: 'FunnelsQuery', ...q }, ...point }, select: ['actor'], limit: 1000 }, pid);
  return (r.results as any[][]).map((row) => row[0].group_key ?? row[0].distinct_ids[0]).sort();
}

/** `who` does `events` one minute apart from `base`. */
function journey(who: string, events: string[], base = '2021-05-01T00:00:00Z'): Ev[] {
  const t0 = Date.parse(base);
  return events.map((e, i) => ev(who, e, new Date(t0 + i * 60_000).toISOString()));
}

const S = 'user signed up';
const P = '$pageview';
const I = 'insight viewed';
const B = 'blaah blaa';

// ------------------------------------------------------------------------------------------------ test_funnel_strict.py

describe('test_funnel_strict.py: test_basic_strict_funnel (_get_actor_ids_at_step)', () => {
  const q = { series: [E(S), E(P), E(I)], dateRange: { date_from: '2021-05-01', date_to: '2021-05-07' }, funnelsFilter: { funnelOrderType: 'strict' } };
  let pid: number;
  beforeAll(async () => {
    pid = await load([
      ...journey('stopped_after_signup1', [S]),
      ...journey('stopped_after_pageview1', [S, P]),
      ...journey('stopped_after_insightview', [S, P, B, I]),
      ...journey('stopped_after_insightview2', [I, B, P, S]),
      ...journey('stopped_after_insightview3', [P, S, B, P, I]),
      ...journey('person6', [B, S, B, P]),
      ...journey('person7', [B, S, P, I, B]),
      ...journey('stopped_after_insightview6', [I, P]),
    ]);
  });

  it.each<[number, string[]]>([
    [1, ['person6', 'person7', 'stopped_after_insightview', 'stopped_after_insightview2', 'stopped_after_insightview3', 'stopped_after_pageview1', 'stopped_after_signup1']],
    [2, ['person7', 'stopped_after_insightview', 'stopped_after_pageview1']],
    [3, ['person7']],
    // drop-offs (derived: the actors of step N−1 that are not at step N)
    [-2, ['person6', 'stopped_after_insightview2', 'stopped_after_insightview3', 'stopped_after_signup1']],
    [-3, ['stopped_after_insightview', 'stopped_after_pageview1']],
  ])('funnelStep %d', async (funnelStep, expected) => {
    expect(await actorsOf(pid, q, { funnelStep })).toEqual(expected);
  });
});

// ------------------------------------------------------------------------------------------------ test_funnel_unordered.py

describe('test_funnel_unordered.py: test_basic_unordered_funnel', () => {
  const q = { series: [E(S), E(P), E(I)], dateRange: { date_from: '2021-05-01', date_to: '2021-05-07' }, funnelsFilter: { funnelOrderType: 'unordered' } };
  let pid: number;
  beforeAll(async () => {
    pid = await load([
      ...journey('stopped_after_signup1', [S]),
      ...journey('stopped_after_pageview1', [P, S]),
      ...journey('stopped_after_insightview', [S, P, I]),
      ...journey('stopped_after_insightview2', [I, P, S]),
      ...journey('stopped_after_insightview3', [P, S, B, I]),
      ...journey('person6', [B, I]),
      ...journey('person7', [P, B]),
      ...journey('person8', [P, I]),
    ]);
  });

  it('"Completed N steps": 8, 5, 3', async () => {
    const r = await run(pid, q);
    expect(r.results.map((s: any) => [s.name, s.action_id, s.count])).toEqual([
      ['Completed 1 step', null, 8],
      ['Completed 2 steps', null, 5],
      ['Completed 3 steps', null, 3],
    ]);
  });

  const all = ['person6', 'person7', 'person8', 'stopped_after_insightview', 'stopped_after_insightview2', 'stopped_after_insightview3', 'stopped_after_pageview1', 'stopped_after_signup1'];
  it.each<[number, string[]]>([
    [1, all],
    [2, ['person8', 'stopped_after_insightview', 'stopped_after_insightview2', 'stopped_after_insightview3', 'stopped_after_pageview1']],
    [3, ['stopped_after_insightview', 'stopped_after_insightview2', 'stopped_after_insightview3']],
    [-2, ['person6', 'person7', 'stopped_after_signup1']],
    [-3, ['person8', 'stopped_after_pageview1']],
  ])('_get_actor_ids_at_step %d', async (funnelStep, expected) => {
    expect(await actorsOf(pid, q, { funnelStep })).toEqual(expected);
  });
});

describe('test_funnel_unordered.py: test_funnel_exclusions_full_window (the actors)', () => {
  it('person2 has the exclusion between the steps: out; persons 1 and 3 at both steps', async () => {
    const pid = await load([
      ev('person1', 'user signed up', '2021-05-01T01:00:00Z'),
      ev('person1', 'paid', '2021-05-01T02:00:00Z'),
      ev('person2', 'user signed up', '2021-05-01T03:00:00Z'),
      ev('person2', 'x', '2021-05-01T03:30:00Z'),
      ev('person2', 'paid', '2021-05-01T04:00:00Z'),
      ev('person3', 'user signed up', '2021-05-01T05:00:00Z'),
      ev('person3', 'paid', '2021-05-01T06:00:00Z'),
    ]);
    const q = {
      series: [E('user signed up'), E('paid')],
      dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-14 00:00:00' },
      funnelsFilter: { funnelOrderType: 'unordered', exclusions: [{ kind: 'EventsNode', event: 'x', funnelFromStep: 0, funnelToStep: 1 }] },
    };
    const r = await run(pid, q);
    expect(r.results.map((s: any) => [s.name, s.count])).toEqual([
      ['Completed 1 step', 2],
      ['Completed 2 steps', 2],
    ]);
    expect(await actorsOf(pid, q, { funnelStep: 1 })).toEqual(['person1', 'person3']);
    expect(await actorsOf(pid, q, { funnelStep: 2 })).toEqual(['person1', 'person3']);
    expect(await actorsOf(pid, q, { funnelStep: -2 })).toEqual([]);
  });
});

describe('FunnelUnordered._serialize_step: name "Completed N step(s)", action_id and custom_name null, type of the N-th series', () => {
  const PAID: ActionDef = { id: 71, name: 'paid action', steps: [actionStep('paid')] };
  it('an action as the second series: the second step is type "actions"', async () => {
    const pid = await load([...journey('u1', ['paid', 'user signed up']), ...journey('u2', ['user signed up'])]);
    const r = await run(
      pid,
      {
        series: [E('user signed up', { custom_name: 'Signed up' }), { kind: 'ActionsNode', id: 71, custom_name: 'Paid' }],
        dateRange: { date_from: '2021-05-01', date_to: '2021-05-07' },
        funnelsFilter: { funnelOrderType: 'unordered' },
      },
      actionSource([PAID]),
    );
    expect(r.results.map((s: any) => [s.name, s.action_id, s.custom_name, s.order, s.type, s.count])).toEqual([
      ['Completed 1 step', null, null, 0, 'events', 2],
      ['Completed 2 steps', null, null, 1, 'actions', 1],
    ]);
  });
});

// ------------------------------------------------------------------------------------------------ actors with a breakdown

describe('test_funnel_persons.py: test_first_step_breakdowns in strict and unordered funnels (derived: the same actors)', () => {
  // _create_browser_breakdown_events: person1 (PL) does all three steps on Chrome; person2 (EE) two on Safari.
  const events = [
    ev('person1', 'sign up', t(2020, 1, 1, 12), { key: 'val', $browser: 'Chrome' }),
    ev('person1', 'play movie', t(2020, 1, 1, 13), { key: 'val', $browser: 'Chrome' }),
    ev('person1', 'buy', t(2020, 1, 1, 15), { key: 'val', $browser: 'Chrome' }),
    ev('person2', 'sign up', t(2020, 1, 2, 14), { key: 'val', $browser: 'Safari' }),
    ev('person2', 'play movie', t(2020, 1, 2, 16), { key: 'val', $browser: 'Safari' }),
  ];
  const q = (funnelOrderType: string) => ({
    series: [E('sign up'), E('play movie'), E('buy')],
    dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
    funnelsFilter: { funnelWindowInterval: 7, funnelOrderType },
    breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' },
  });
  let pid: number;
  beforeAll(async () => {
    pid = await load(events);
  });

  it.each<[string, number, string, string[]]>([
    ['strict', 1, 'Chrome', ['person1']],
    ['strict', 1, 'Safari', ['person2']],
    ['strict', 3, 'Safari', []],
    ['strict', -3, 'Safari', ['person2']],
    ['unordered', 1, 'Chrome', ['person1']],
    ['unordered', 2, 'Safari', ['person2']],
    ['unordered', 3, 'Chrome', ['person1']],
    ['unordered', -3, 'Safari', ['person2']],
    ['unordered', -3, 'Chrome', []],
  ])('%s: funnelStep %d, funnelStepBreakdown %s', async (order, funnelStep, value, expected) => {
    expect(await actorsOf(pid, q(order), { funnelStep, funnelStepBreakdown: value })).toEqual(expected);
  });

  it.each(['strict', 'unordered'])('%s: the steps per value, ranked by the last step', async (order) => {
    const r = await run(pid, q(order));
    expect((r.results as any[][]).map((steps) => [steps[0].breakdown_value, steps.map((s) => s.count)])).toEqual([
      [['Chrome'], [1, 1, 1]],
      [['Safari'], [1, 1, 0]],
    ]);
  });
});

// ------------------------------------------------------------------------------------------------ time to convert

describe('test_funnel_time_to_convert.py: test_basic_unordered over later steps (derived: times between consecutive completed steps)', () => {
  const events = [
    ev('user a', 'step three', '2021-06-08T18:00:00Z'),
    ev('user a', 'step one', '2021-06-08T19:00:00Z'),
    ev('user a', 'step two', '2021-06-08T21:00:00Z'),
    ev('user b', 'step two', '2021-06-09T13:00:00Z'),
    ev('user b', 'step one', '2021-06-09T13:37:00Z'),
    ev('user c', 'step one', '2021-06-11T07:00:00Z'),
    ev('user c', 'step two', '2021-06-12T06:00:00Z'),
  ];
  const q = (ff: Record<string, unknown>) => ({
    series: [E('step one'), E('step two'), E('step three')],
    interval: 'day',
    dateRange: { date_from: '2021-06-07 00:00:00', date_to: '2021-06-13 23:59:59' },
    funnelsFilter: { funnelVizType: 'time_to_convert', funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day', funnelOrderType: 'unordered', ...ff },
  });

  it('funnelFromStep 1 → funnelToStep 2: only user a completed three steps, 2 h after the second', async () => {
    const r = await run(await load(events), q({ funnelFromStep: 1, funnelToStep: 2 }));
    expect(r.results).toEqual({ bins: [[7200, 1], [7260, 0]], average_conversion_time: 7200, median_conversion_time: 7200 });
  });

  it('the whole funnel by default: user a, 3 h from the first completed step to the third', async () => {
    const r = await run(await load(events), q({}));
    expect(r.results).toEqual({ bins: [[10800, 1], [10860, 0]], average_conversion_time: 10800, median_conversion_time: 10800 });
  });
});

// ------------------------------------------------------------------------------------------------ trends actors

describe('test_funnel_trends_persons.py in an unordered funnel (derived: an entrance period’s converted and dropped actors)', () => {
  it('user_one completes the steps backwards (converted in unordered); user_two does one step (drop-off)', async () => {
    const pid = await load([
      ev('user_one', 'step three', t(2021, 5, 1, 10)),
      ev('user_one', 'step two', t(2021, 5, 1, 11)),
      ev('user_one', 'step one', t(2021, 5, 1, 12)),
      ev('user_two', 'step two', t(2021, 5, 1, 13)),
    ]);
    const q = {
      series: [E('step one'), E('step two'), E('step three')],
      interval: 'day',
      dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-02 23:59:59' },
      funnelsFilter: { funnelVizType: 'trends', funnelWindowInterval: 7, funnelOrderType: 'unordered' },
    };
    const r = await run(pid, q);
    expect(r.results.map((s: any) => s.data)).toEqual([[50, 0]]);
    const at = (funnelTrendsDropOff: boolean) => actorsOf(pid, q, { funnelTrendsDropOff, funnelTrendsEntrancePeriodStart: '2021-05-01 00:00:00' });
    expect(await at(false)).toEqual(['user_one']);
    expect(await at(true)).toEqual(['user_two']);
  });
});

// ------------------------------------------------------------------------------------------------ strict: which events interrupt

describe('test_funnel_strict.py: the events a strict sequence sees (derived: FunnelEventQuery keeps the global filters and the actor)', () => {
  const events = [
    ev('u1', S, t(2021, 5, 1, 10), { key: 'val', $session_id: 's1' }),
    ev('u1', B, t(2021, 5, 1, 10, 1), { $session_id: 's2' }),
    ev('u1', P, t(2021, 5, 1, 10, 2), { key: 'val', $session_id: 's1' }),
  ];
  const q = (extra: Record<string, unknown>, ff: Record<string, unknown> = {}) => ({
    series: [E(S), E(P)],
    dateRange: { date_from: '2021-05-01', date_to: '2021-05-07' },
    funnelsFilter: { funnelOrderType: 'strict', ...ff },
    ...extra,
  });
  let pid: number;
  beforeAll(async () => {
    pid = await load(events);
  });
  const countsOf = async (query: Record<string, unknown>) => ((await run(pid, query)).results as any[]).map((s) => s.count);

  it('an event in between breaks the sequence', async () => {
    expect(await countsOf(q({}))).toEqual([1, 0]);
  });
  it('a global property filter leaves the in-between event out: no break', async () => {
    expect(await countsOf(q({ properties: [{ key: 'key', value: 'val', operator: 'exact', type: 'event' }] }))).toEqual([1, 1]);
  });
  it('funnelAggregateByHogQL: an event of another session is another actor’s, no break', async () => {
    expect(await countsOf(q({}, { funnelAggregateByHogQL: 'properties.$session_id' }))).toEqual([1, 1]);
  });
  it('time_to_convert: the strict funnel has no conversion, the global filter one has one of 120 s', async () => {
    expect((await run(pid, q({}, { funnelVizType: 'time_to_convert' }))).results).toEqual({ bins: [], average_conversion_time: null, median_conversion_time: null });
    expect((await run(pid, q({ properties: [{ key: 'key', value: 'val', operator: 'exact', type: 'event' }] }, { funnelVizType: 'time_to_convert' }))).results).toEqual({
      bins: [
        [120, 1],
        [180, 0],
      ],
      average_conversion_time: 120,
      median_conversion_time: 120,
    });
  });
});

describe('test_funnel_time_to_convert.py: funnelFromStep without funnelToStep (derived: to the last step)', () => {
  it('user a alone reaches step three, 2 h after step two', async () => {
    const pid = await load([
      ev('user a', 'step one', '2021-06-08T18:00:00Z'),
      ev('user a', 'step two', '2021-06-08T19:00:00Z'),
      ev('user a', 'step three', '2021-06-08T21:00:00Z'),
      ev('user b', 'step one', '2021-06-09T13:00:00Z'),
      ev('user b', 'step two', '2021-06-09T13:37:00Z'),
    ]);
    const r = await run(pid, {
      series: [E('step one'), E('step two'), E('step three')],
      dateRange: { date_from: '2021-06-07 00:00:00', date_to: '2021-06-13 23:59:59' },
      funnelsFilter: { funnelVizType: 'time_to_convert', funnelWindowInterval: 7, funnelFromStep: 1 },
    });
    expect(r.results).toEqual({ bins: [[7200, 1], [7260, 0]], average_conversion_time: 7200, median_conversion_time: 7200 });
  });
});

// ------------------------------------------------------------------------------------------------ test_funnel_strict_persons.py / test_funnel_unordered_persons.py

describe('_create_sample_data_multiple_dropoffs in strict and unordered funnels: the actors per step and drop-off', () => {
  // 5 people do all three steps, 10 stop after step two, 20 after step one (May 1, 3, 5 2021).
  const users = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `user_${from + i}`).sort();
  let pid: number;
  beforeAll(async () => {
    const out: Ev[] = [];
    for (let i = 0; i < 35; i++) {
      out.push(ev(`user_${i}`, 'step one', '2021-05-01T00:00:00Z'));
      if (i < 15) out.push(ev(`user_${i}`, 'step two', '2021-05-03T00:00:00Z'));
      if (i < 5) out.push(ev(`user_${i}`, 'step three', '2021-05-05T00:00:00Z'));
    }
    pid = await load(out);
  });
  const q = (funnelOrderType: string) => ({
    series: [E('step one'), E('step two'), E('step three')],
    interval: 'day',
    dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 00:00:00' },
    funnelsFilter: { funnelWindowInterval: 7, funnelOrderType },
  });

  it.each<[string, number, string[]]>([
    ['strict', 1, users(0, 35)],
    ['strict', 3, users(0, 5)],
    ['strict', -2, users(15, 35)],
    ['strict', -3, users(5, 15)],
    ['unordered', 1, users(0, 35)],
    ['unordered', 2, users(0, 15)],
    ['unordered', 3, users(0, 5)],
    ['unordered', -2, users(15, 35)],
  ])('%s: funnelStep %d', async (order, funnelStep, expected) => {
    expect(await actorsOf(pid, q(order), { funnelStep })).toEqual(expected);
  });

  it.each<[string, number[], number]>([
    ['strict', [1, 2], 30],
    ['unordered', [1, 3], 25],
  ])('%s: funnelCustomSteps %j → %d actors', async (order, funnelCustomSteps, n) => {
    expect(await actorsOf(pid, q(order), { funnelCustomSteps })).toHaveLength(n);
  });
});

// ------------------------------------------------------------------------------------------------ test_funnel_trends.py: the actors of a period

describe('test_funnel_trends.py: test_one_person_in_multiple_periods_and_windows{,_in_unordered_funnel,_in_strict_funnel} (_get_actors_at_step)', () => {
  const q = (funnelOrderType: string, date_to: string) => ({
    series: [E('step one'), E('step two'), E('step three')],
    interval: 'day',
    dateRange: { date_from: '2021-05-01 00:00:00', date_to },
    funnelsFilter: { funnelVizType: 'trends', funnelWindowInterval: 1, funnelWindowIntervalUnit: 'day', funnelOrderType },
  });
  const at = (pid: number, query: Record<string, unknown>, day: string, funnelTrendsDropOff: boolean) =>
    actorsOf(pid, query, { funnelTrendsDropOff, funnelTrendsEntrancePeriodStart: `${day} 00:00:00` });

  it('ordered: 1 May converted user_one; 3 May user_one dropped off; 4 May user_one converted, user_two dropped off', async () => {
    const pid = await load([
      ev('user_one', 'step one', t(2021, 5, 1, 1)),
      ev('user_one', 'step two', t(2021, 5, 1, 2)),
      ev('user_one', 'step three', t(2021, 5, 1, 3)),
      ev('user_one', 'step one', t(2021, 5, 3, 1)),
      ev('user_one', 'step two', t(2021, 5, 3, 2)),
      ev('user_one', 'step one', t(2021, 5, 4, 11)),
      ev('user_one', 'step two', t(2021, 5, 4, 12)),
      ev('user_one', 'step three', t(2021, 5, 4, 13)),
      ev('user_two', 'step one', t(2021, 5, 4, 18)),
    ]);
    const query = q('ordered', '2021-05-04 23:59:59');
    expect((await run(pid, query)).results[0].data).toEqual([100, 0, 0, 50]);
    expect(await at(pid, query, '2021-05-01', false)).toEqual(['user_one']);
    expect(await at(pid, query, '2021-05-03', true)).toEqual(['user_one']);
    expect(await at(pid, query, '2021-05-04', false)).toEqual(['user_one']);
    expect(await at(pid, query, '2021-05-04', true)).toEqual(['user_two']);
    expect(await at(pid, query, '2021-05-02', true)).toEqual([]);
  });

  it('unordered: 4 May user_one converted (from step three), user_two dropped off; 5 May user_three converted', async () => {
    const pid = await load([
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
    ]);
    const query = q('unordered', '2021-05-07 23:59:59');
    expect((await run(pid, query)).results[0].data).toEqual([100, 0, 0, 50, 100, 0, 0]);
    expect(await at(pid, query, '2021-05-01', false)).toEqual(['user_one']);
    expect(await at(pid, query, '2021-05-03', true)).toEqual(['user_one']);
    expect(await at(pid, query, '2021-05-04', false)).toEqual(['user_one']);
    expect(await at(pid, query, '2021-05-04', true)).toEqual(['user_two']);
    expect(await at(pid, query, '2021-05-05', false)).toEqual(['user_three']);
  });

  it('strict: 3 May user_one dropped off (an event in between); 4 May user_two converted', async () => {
    const pid = await load([
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
    ]);
    const query = q('strict', '2021-05-04 23:59:59');
    expect((await run(pid, query)).results[0].data).toEqual([100, 0, 0, 100]);
    expect(await at(pid, query, '2021-05-01', false)).toEqual(['user_one']);
    expect(await at(pid, query, '2021-05-03', true)).toEqual(['user_one']);
    expect(await at(pid, query, '2021-05-03', false)).toEqual([]);
    expect(await at(pid, query, '2021-05-04', false)).toEqual(['user_two']);
  });
});

// ------------------------------------------------------------------------------------------------ windows and aggregation in other orders

describe('funnelWindowInterval in strict and unordered funnels: a step exactly at the window end converts (§3.3: step_i.ts <= step_0.ts + window)', () => {
  it.each(['strict', 'unordered'])('%s: 5 minutes later is in, 5 minutes and 1 second is out', async (funnelOrderType) => {
    const pid = await load([
      ev('in', 'step one', t(2021, 5, 1, 10)),
      ev('in', 'step two', t(2021, 5, 1, 10, 5)),
      ev('out', 'step one', t(2021, 5, 1, 10)),
      ev('out', 'step two', t(2021, 5, 1, 10, 5, 1)),
    ]);
    const q = {
      series: [E('step one'), E('step two')],
      dateRange: { date_from: '2021-05-01', date_to: '2021-05-02' },
      funnelsFilter: { funnelOrderType, funnelWindowInterval: 5, funnelWindowIntervalUnit: 'minute' },
    };
    expect((await run(pid, q)).results.map((s: any) => s.count)).toEqual([2, 1]);
    expect(await actorsOf(pid, q, { funnelStep: 2 })).toEqual(['in']);
    expect(await actorsOf(pid, q, { funnelStep: -2 })).toEqual(['out']);
  });
});

describe('funnelAggregateByHogQL in an unordered funnel (derived: each session is an actor; events without one are left out)', () => {
  it('session s1 does the steps backwards, s2 one step; an event without a session is nobody’s', async () => {
    const pid = await load([
      ev('u1', 'step two', t(2021, 5, 1, 10), { $session_id: 's1' }),
      ev('u1', 'step one', t(2021, 5, 1, 10, 1), { $session_id: 's1' }),
      ev('u1', 'step one', t(2021, 5, 1, 11), { $session_id: 's2' }),
      ev('u2', 'step two', t(2021, 5, 1, 12)),
    ]);
    const r = await run(pid, {
      series: [E('step one'), E('step two')],
      dateRange: { date_from: '2021-05-01', date_to: '2021-05-02' },
      funnelsFilter: { funnelOrderType: 'unordered', funnelAggregateByHogQL: 'properties.$session_id' },
    });
    expect(r.results.map((s: any) => [s.name, s.count, s.average_conversion_time])).toEqual([
      ['Completed 1 step', 2, null],
      ['Completed 2 steps', 1, 60],
    ]);
  });
});
