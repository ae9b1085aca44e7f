/**
 * A ninth batch of funnel cases (posthog/hogql_queries/insights/funnels/test/: test_funnel.py, test_funnel_strict.py,
 * test_funnel_unordered.py, test_funnel_trends.py, test_funnel_time_to_convert.py), the ones
 * funnels-posthog-compat{,-2,…,-8}.test.ts do not cover: GroupNode steps (a step matched by an event of any of its
 * nodes; reference §1.2 and §3.1) in every order and visualisation, with exclusions, breakdowns and actors, a
 * time-to-convert funnelToStep of 0 (PostHog's `funnelToStep or len(series) - 1`), an absolute date_to with a time,
 * funnel trends with a step range and a breakdown, ProductQL (`hogql`) step filters, the empty results of strict and
 * unordered funnels, and breakdown_cases.py tests the strict and unordered breakdown suites inherit from
 * funnel_breakdown_test_factory. Each case names the PostHog test it follows; the expected
 * values are PostHog's, or, where a case says "derived", follow from the reference's rules on that setup. One project
 * holds every case's events (each case its own event names and people). Runs through the real runners on a real
 * engine (DuckDB, or ClickHouse via the .clickhouse twin).
 */
import { funnelsRunner } from '../runners/funnels-runner';
import { actorsRunner } from '../runners/actors-runner';
import { actionStep } from '../insights/testing';
import { actionSource, ATTRIBUTION_JOURNEYS, E, PROPS_CHOSEN_JOURNEYS, type Ev, ev, type Harness, openHarness, persons, t } from './testing';

const SIGNED_UP = { id: 90, name: 'Signed up', steps: [actionStep('g signup')] };

const events = [
  // GroupNode steps: "g view" (with a browser) or "g leave", then "g signup"
  ev('g1', 'g view', t(2021, 5, 1, 10), { $browser: 'Chrome' }),
  ev('g1', 'g signup', t(2021, 5, 1, 11)),
  ev('g2', 'g leave', t(2021, 5, 1, 10)),
  ev('g2', 'g signup', t(2021, 5, 1, 10, 30)),
  ev('g3', 'g view', t(2021, 5, 1, 10), { $browser: 'Firefox' }),
  ev('g3', 'g signup', t(2021, 5, 1, 11)),
  ev('g4', 'g signup', t(2021, 5, 1, 9)),
  ev('g4', 'g leave', t(2021, 5, 1, 10)),
  ev('g5', 'g view', t(2021, 5, 1, 10), { $browser: 'Chrome' }),
  ev('g5', 'g buy', t(2021, 5, 1, 12)),
  ev('g6', 'g leave', t(2021, 5, 1, 10)),
  ev('g6', 'g other', t(2021, 5, 1, 10, 10)),
  ev('g6', 'g signup', t(2021, 5, 1, 10, 20)),
  ev('g7', 'g view', t(2021, 5, 2, 10), { $browser: 'Chrome' }),
  ev('g7', 'g leave', t(2021, 5, 2, 10, 5)),
  // time to convert (test_funnel_time_to_convert.py's journeys)
  ev('ta', 'ttc one', t(2021, 5, 3, 8)),
  ev('ta', 'ttc two', t(2021, 5, 3, 9)),
  ev('ta', 'ttc three', t(2021, 5, 3, 11)),
  ev('tb', 'ttc one', t(2021, 5, 3, 13)),
  ev('tb', 'ttc two', t(2021, 5, 3, 13, 37)),
  // funnel trends by browser (test_funnel_step_breakdown_event with test_from_second_step / test_to_second_step)
  ...[
    ['r1', 'Chrome', 1, 3],
    ['r2', 'Chrome', 1, 2],
    ['r3', 'Chrome', 1, 1],
    ['r4', 'Safari', 1, 2],
    ['r5', 'Safari', 2, 3],
  ].flatMap(([who, $browser, day, steps]) =>
    ['r one', 'r two', 'r three'].slice(0, steps as number).map((name, i) => ev(who as string, name, t(2021, 5, day as number, 10 + i), { $browser })),
  ),
  // ProductQL step filters
  ev('h1', 'h one', t(2021, 5, 1, 10), { plan: 'pro' }),
  ev('h1', 'h two', t(2021, 5, 1, 11)),
  ev('h2', 'h one', t(2021, 5, 1, 10), { plan: 'free' }),
  ev('h2', 'h two', t(2021, 5, 1, 11)),
  ev('h3', 'h one', t(2021, 5, 1, 10), { plan: 'pro' }),
  ev('h3', 'h two', t(2021, 5, 1, 10, 30)),
];

/** A breakdown_cases.py journey under its own names: `tag:person`, `tag:event`. */
const tagged = (tag: string, list: Ev[]): Ev[] => list.map((e) => ({ ...e, distinct_id: `${tag}:${e.distinct_id}`, event: `${tag}:${e.event}` }));
// test_funnel_step_breakdown_with_step_one_attribution_incomplete_funnel (and its non-array twin)
const incompleteJourneys = [
  ev('person1', 'sign up', t(2020, 1, 1, 12), { $browser: 'Chrome' }),
  ev('person1', 'buy', t(2020, 1, 2, 13), { $browser: 'Safari' }),
  ev('person2', 'sign up', t(2020, 1, 1, 13)),
  ev('person3', 'sign up', t(2020, 1, 2, 14), { $browser: 'Mac' }),
  ev('person4', 'sign up', t(2020, 1, 2, 15), { $browser: 0 }),
  ev('person4', 'buy', t(2020, 1, 2, 16), { $browser: 'alakazam' }),
];
// test_funnel_step_multiple_breakdown_with_first_touch_attribution_incomplete_funnel
const multipleIncompleteJourneys = [
  ev('person1', 'sign up', t(2020, 1, 1, 12), { $browser: 'Chrome', $version: 'xyz' }),
  ev('person1', 'buy', t(2020, 1, 2, 13), { $browser: 'Safari' }),
  ev('person2', 'sign up', t(2020, 1, 1, 13), { $version: 0 }),
  ev('person2', 'buy', t(2020, 1, 2, 13), { $browser: 'Safari', $version: 'xyz' }),
  ev('person3', 'sign up', t(2020, 1, 2, 14), { $browser: 'Mac' }),
  ev('person4', 'sign up', t(2020, 1, 2, 15), { $browser: 0, $version: 0 }),
  ev('person4', 'buy', t(2020, 1, 2, 16), { $browser: 'alakazam' }),
];
events.push(
  ...tagged('attr', [...ATTRIBUTION_JOURNEYS]),
  ...tagged('inc', incompleteJourneys),
  ...tagged('multi', multipleIncompleteJourneys),
  ...tagged('props', [...PROPS_CHOSEN_JOURNEYS, ev('person4', 'sign up', '2020-01-02T15:00:00Z'), ev('person4', 'buy', '2020-01-02T16:00:00Z')]),
  ...tagged('propstep', [...PROPS_CHOSEN_JOURNEYS]),
  ...tagged('one', [
    ev('a', 'sign up', t(2020, 1, 1, 12), { $browser: 'Chrome' }),
    ev('b', 'sign up', t(2020, 1, 1, 12), { $browser: 'Safari' }),
    ev('c', 'sign up', t(2020, 1, 2, 12), { $browser: 'Safari' }),
  ]),
);

let h: Harness;
let pid: number;
beforeAll(async () => {
  h = await openHarness();
  pid = await h.load({ persons: persons(...new Set(events.map((e) => e.distinct_id))), events });
});
afterAll(async () => {
  await h.close();
});

const range = { date_from: '2021-05-01', date_to: '2021-05-07' };
async function run(q: Record<string, unknown>) {
  return h.run(funnelsRunner, { kind: 'FunnelsQuery', dateRange: range, ...q }, pid, {}, actionSource([SIGNED_UP]));
}
const counts = (r: any) => (r.results as any[]).map((s) => s.count);

// ------------------------------------------------------------------------------------------------ GroupNode steps

/** A GroupNode step of "g view" (Chrome only, unless `anyBrowser`) or "g leave". */
const visit = (extra: Record<string, unknown> = {}, anyBrowser = false) => ({
  kind: 'GroupNode',
  operator: 'OR',
  nodes: [E('g view', anyBrowser ? {} : { properties: [{ type: 'event', key: '$browser', operator: 'exact', value: 'Chrome' }] }), E('g leave')],
  ...extra,
});

describe('GroupNode funnel steps (reference §1.2/§3.1: FunnelsQuery series take GroupNode, an OR of events/actions; derived)', () => {
  it('a GroupNode first step: any node’s event enters, each node with its own filters; the step object', async () => {
    // enter: g1, g5, g7 (Chrome views), g2, g4, g6 (leaves) — not g3 (a Firefox view); convert: g1 1 h, g2 30 min,
    // g6 20 min later (g4 signed up before)
    const r = await run({ series: [visit(), E('g signup')] });
    expect(r.results).toEqual([
      {
        action_id: null,
        name: 'g view, g leave',
        custom_name: null,
        order: 0,
        people: [],
        count: 6,
        type: 'events',
        average_conversion_time: null,
        median_conversion_time: null,
      },
      {
        action_id: 'g signup',
        name: 'g signup',
        custom_name: null,
        order: 1,
        people: [],
        count: 3,
        type: 'events',
        average_conversion_time: 2200,
        median_conversion_time: 1800,
      },
    ]);
  });

  it('strict: another event between the group’s event and the next step breaks the sequence (g6)', async () => {
    expect(counts(await run({ series: [visit(), E('g signup')], funnelsFilter: { funnelOrderType: 'strict' } }))).toEqual([6, 2]);
  });

  it('unordered: the group and the event in any order (g4 signed up first), g3’s sign-up alone is one step', async () => {
    const r = await run({ series: [visit(), E('g signup')], funnelsFilter: { funnelOrderType: 'unordered' } });
    expect(r.results.map((s: any) => [s.name, s.count])).toEqual([
      ['Completed 1 step', 7],
      ['Completed 2 steps', 4],
    ]);
  });

  it('the group’s own name, custom_name and properties (ANDed with every node’s events)', async () => {
    const group = visit({ name: 'Chrome visits', custom_name: 'Visits', properties: [{ type: 'event', key: '$browser', operator: 'exact', value: 'Chrome' }] }, true);
    const r = await run({ series: [group, E('g signup')] });
    // only the Chrome views of g1, g5, g7 (the leaves carry no browser); g1 signs up
    expect(r.results.map((s: any) => [s.name, s.custom_name, s.count])).toEqual([
      ['Chrome visits', 'Visits', 3],
      ['g signup', null, 1],
    ]);
  });

  it('the same GroupNode twice: the second step needs another, later event of the group (g7)', async () => {
    const r = await run({ series: [visit({}, true), visit({}, true)] });
    expect(r.results.map((s: any) => [s.count, s.average_conversion_time])).toEqual([
      [7, null],
      [1, 300],
    ]);
  });

  it('a group of an action and an event as a later step; a missing action in a group is a 400 naming it', async () => {
    const group = { kind: 'GroupNode', operator: 'OR', nodes: [{ kind: 'ActionsNode', id: 90 }, E('g buy')] };
    const r = await run({ series: [E('g view'), group] });
    // g1 and g3 sign up after their view, g5 buys; g7 does neither
    expect(r.results.map((s: any) => [s.name, s.action_id, s.type, s.count])).toEqual([
      ['g view', 'g view', 'events', 4],
      ['Signed up, g buy', null, 'events', 3],
    ]);
    const missing = { ...group, nodes: [{ kind: 'ActionsNode', id: 91 }, E('g buy')] };
    await expect(run({ series: [E('g view'), missing] })).rejects.toMatchObject({ status: 400, attr: 'series__1__nodes__0' });
  });

  it('trends: May 1 entries g1, g2, g4, g5, g6 → 3 of 5 converted; May 2 g7 → 0', async () => {
    const r = await run({ series: [visit(), E('g signup')], dateRange: { date_from: '2021-05-01', date_to: '2021-05-02' }, funnelsFilter: { funnelVizType: 'trends' } });
    expect(r.results.map((s: any) => [s.days, s.data])).toEqual([
      [
        ['2021-05-01', '2021-05-02'],
        [60, 0],
      ],
    ]);
  });

  it('time_to_convert: the times 1200, 1800, 3600 s in two bins', async () => {
    const r = await run({ series: [visit(), E('g signup')], funnelsFilter: { funnelVizType: 'time_to_convert' } });
    expect(r.results).toEqual({
      bins: [
        [1200, 2],
        [2400, 0],
        [3600, 1],
      ],
      average_conversion_time: 2200,
      median_conversion_time: 1800,
    });
  });

  it('with an event breakdown (first touch): the leaves carry no browser, so g2, g4, g6 are under ""', async () => {
    const r = await run({ series: [visit({}, true), E('g signup')], breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' } });
    // ranked by the last step, then the first
    expect((r.results as any[][]).map((steps) => [steps[0].breakdown_value, steps.map((s) => s.count)])).toEqual([
      [[''], [3, 2]],
      [['Chrome'], [3, 1]],
      [['Firefox'], [1, 1]],
    ]);
  });

  it('the actors of the GroupNode funnel’s second step (FunnelsActorsQuery funnelStep 2) and its drop-offs (-2)', async () => {
    const actors = async (funnelStep: number) => {
      const r = await h.run(
        actorsRunner,
        { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: { kind: 'FunnelsQuery', series: [visit(), E('g signup')], dateRange: range }, funnelStep }, select: ['actor'] },
        pid,
      );
      return (r.results as any[][]).map((row) => row[0].distinct_ids[0]).sort();
    };
    expect(await actors(2)).toEqual(['g1', 'g2', 'g6']);
    expect(await actors(-2)).toEqual(['g4', 'g5', 'g7']);
  });

  it.each<[string, number[]]>([
    ['ordered', [5, 2]],
    ['strict', [5, 2]],
    ['unordered', [6, 3]],
  ])('%s, with an exclusion between the group step and the next (§3.3 Exclusions): g6’s only sequence is excluded, g6 is left out', async (funnelOrderType, expected) => {
    const exclusions = [{ kind: 'EventsNode', event: 'g other', funnelFromStep: 0, funnelToStep: 1 }];
    expect(counts(await run({ series: [visit(), E('g signup')], funnelsFilter: { funnelOrderType, exclusions } }))).toEqual(expected);
  });

  it('operator AND is a 400 (PostHog implements OR only; trends refuse it alike)', async () => {
    await expect(run({ series: [visit({ operator: 'AND' }), E('g signup')] })).rejects.toMatchObject({ status: 400, attr: 'series__0__operator' });
  });
});

// ------------------------------------------------------------------------------------------------ date_to with a time

describe('an absolute date_to with a time (reference §1.5 rounding, §3.3: conversions must happen inside the range; derived)', () => {
  it.each<[string, number[]]>([
    // §1.5: an absolute date_to keeps its time with an hour interval; with a day interval it runs to the end of its day
    ['hour', [5, 2]],
    ['day', [5, 3]],
  ])('interval %s: the GroupNode funnel up to "2021-05-01 10:30:00"', async (interval, expected) => {
    const r = await run({ series: [visit(), E('g signup')], interval, dateRange: { date_from: '2021-05-01 09:00:00', date_to: '2021-05-01 10:30:00' } });
    expect(counts(r)).toEqual(expected);
  });
});

// ------------------------------------------------------------------------------------------------ funnelToStep 0

describe('funnelToStep 0', () => {
  const ttc = (ff: Record<string, unknown>) => ({
    series: [E('ttc one'), E('ttc two'), E('ttc three')],
    funnelsFilter: { funnelVizType: 'time_to_convert', ...ff },
  });

  it('time_to_convert: 0 is the last step, as when missing (FunnelTimeToConvert.get_query: `funnelToStep or len(series) - 1`)', async () => {
    const whole = { bins: [[10800, 1], [10860, 0]], average_conversion_time: 10800, median_conversion_time: 10800 };
    expect((await run(ttc({}))).results).toEqual(whole);
    expect((await run(ttc({ funnelToStep: 0 }))).results).toEqual(whole);
    // from the second step to the last: ta's 2 h
    expect((await run(ttc({ funnelFromStep: 1, funnelToStep: 0 }))).results).toEqual({ bins: [[7200, 1], [7260, 0]], average_conversion_time: 7200, median_conversion_time: 7200 });
  });

  it('time_to_convert: a negative funnelToStep fails the range check, in PostHog’s words', async () => {
    await expect(run(ttc({ funnelToStep: -1 }))).rejects.toMatchObject({
      status: 400,
      attr: 'funnelsFilter__funnelToStep',
      message: 'Filter parameter funnel_to_step can only be one of 1, 2 for time to convert!',
    });
  });

  it('trends: a to-step of 0 is outside 1..len−1, a 400 (reference §3.3 Step ranges)', async () => {
    await expect(run({ series: [E('ttc one'), E('ttc two')], funnelsFilter: { funnelVizType: 'trends', funnelToStep: 0 } })).rejects.toMatchObject({ status: 400 });
  });
});

// ------------------------------------------------------------------------------------------------ trends: step range × breakdown

describe('funnel trends with a step range and a breakdown (test_funnel_trends.py test_funnel_step_breakdown_event with test_from_second_step / test_to_second_step; derived)', () => {
  const q = (ff: Record<string, unknown>) => ({
    series: [E('r one'), E('r two'), E('r three')],
    dateRange: { date_from: '2021-05-01', date_to: '2021-05-02' },
    breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' },
    funnelsFilter: { funnelVizType: 'trends', ...ff },
  });
  const series = (r: any) => (r.results as any[]).map((s) => [s.breakdown_value, s.data]);

  it.each<[string, Record<string, unknown>, [string[], number[]][]]>([
    // Chrome May 1: r1 three steps, r2 two, r3 one; Safari: r4 two steps on May 1, r5 three on May 2
    ['the whole funnel', {}, [[['Chrome'], [33.33, 0]], [['Safari'], [0, 100]]]],
    ['funnelFromStep 1: only those reaching step two are the base', { funnelFromStep: 1 }, [[['Chrome'], [50, 0]], [['Safari'], [0, 100]]]],
    ['funnelToStep 1: conversion to step two', { funnelToStep: 1 }, [[['Chrome'], [66.67, 0]], [['Safari'], [100, 100]]]],
  ])('%s', async (_name, ff, expected) => {
    expect(series(await run(q(ff)))).toEqual(expected);
  });
});

// ------------------------------------------------------------------------------------------------ hogql step filters

describe('ProductQL ("hogql") property filters on steps (reference §1.4: the key is a boolean expression; derived)', () => {
  it('on the first step: only h1 and h3 (plan pro) enter', async () => {
    const r = await run({ series: [E('h one', { properties: [{ type: 'hogql', key: "properties.plan = 'pro'" }] }), E('h two')] });
    expect(counts(r)).toEqual([2, 2]);
  });

  it('on the second step, over the event’s own columns: only the conversions at 11:00 or later', async () => {
    const r = await run({ series: [E('h one'), E('h two', { properties: [{ type: 'hogql', key: 'toHour(timestamp) >= 11' }] })] });
    expect(r.results.map((s: any) => [s.count, s.average_conversion_time])).toEqual([
      [3, null],
      [2, 3600],
    ]);
  });

  it.each(['strict', 'unordered'])('%s: the same filter on the first step', async (funnelOrderType) => {
    const r = await run({ series: [E('h one', { properties: [{ type: 'hogql', key: "properties.plan = 'pro'" }] }), E('h two')], funnelsFilter: { funnelOrderType } });
    // unordered: h2's "h two" alone completes one step
    expect(counts(r)).toEqual(funnelOrderType === 'strict' ? [2, 2] : [3, 2]);
  });
});

// ------------------------------------------------------------------------------------------------ empty results

describe('empty funnels in every order (reference §3.3 Empty: no one did step 0 → results [])', () => {
  // (an unordered funnel is entered by any of its steps: there neither step happened)
  const empty = (order: string) => [E('nobody did this'), E(order === 'unordered' ? 'nor this' : 'g signup')];

  it.each(['ordered', 'strict', 'unordered'])('%s steps: []', async (funnelOrderType) => {
    expect((await run({ series: empty(funnelOrderType), funnelsFilter: { funnelOrderType } })).results).toEqual([]);
  });

  it.each(['strict', 'unordered'])('%s trends: one zero-filled series (test_no_event_in_period)', async (funnelOrderType) => {
    const r = await run({
      series: empty(funnelOrderType),
      dateRange: { date_from: '2021-05-01', date_to: '2021-05-03' },
      funnelsFilter: { funnelOrderType, funnelVizType: 'trends' },
    });
    expect(r.results.map((s: any) => [s.count, s.data, s.days])).toEqual([[3, [0, 0, 0], ['2021-05-01', '2021-05-02', '2021-05-03']]]);
  });
});

// ------------------------------------------------------------------------------------------------ strict and unordered breakdown suites

const breakdownQuery =
  (funnelOrderType: string) =>
  (tag: string, ff: Record<string, unknown>, breakdown: unknown = ['$browser'], series = [E(`${tag}:sign up`), E(`${tag}:buy`)]) => ({
    series,
    dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
    funnelsFilter: { funnelOrderType, funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day', ...ff },
    breakdownFilter: { breakdown_type: 'event', breakdown },
  });
/** [value, [count, average time] per step], sorted by value as PostHog's assertions sort them. */
const rows = (r: any) =>
  (r.results as any[][])
    .map((steps) => [steps[0].breakdown_value, steps.map((s) => [s.count, s.average_conversion_time])])
    .sort((a: any, b: any) => (JSON.stringify(a[0]) < JSON.stringify(b[0]) ? -1 : 1));
const countRows = (r: any) => rows(r).map(([v, steps]: any) => [v, steps.map((x: number[]) => x[0])]);
const xyzBuy = (tag: string) => [E(`${tag}:sign up`), E(`${tag}:buy`, { properties: [{ type: 'event', key: '$version', value: 'xyz' }] })];

describe('breakdown_cases.py in TestFunnelStrictStepsBreakdown (funnel_breakdown_test_factory(STRICT): the same assertions as ordered)', () => {
  const q = breakdownQuery('strict');

  it('test_funnel_step_breakdown_with_step_one_attribution', async () => {
    expect(rows(await run(q('attr', { breakdownAttributionType: 'step', breakdownAttributionValue: 1 })))).toEqual([
      [[''], [[3, null], [3, 3600]]],
      [['Safari'], [[1, null], [1, 86400]]],
      [['alakazam'], [[1, null], [1, 3600]]],
    ]);
  });

  it.each([
    ['test_funnel_step_breakdown_with_step_one_attribution_incomplete_funnel', ['$browser']],
    ['test_funnel_step_non_array_breakdown_with_step_one_attribution_incomplete_funnel', '$browser'],
  ])('%s', async (_name, breakdown) => {
    const r = await run(q('inc', { breakdownAttributionType: 'step', breakdownAttributionValue: 1 }, breakdown));
    expect(countRows(r)).toEqual([
      [[''], [2, 0]],
      [['Safari'], [1, 1]],
      [['alakazam'], [1, 1]],
    ]);
  });

  it('test_funnel_breakdown_correct_breakdown_props_are_chosen_for_step', async () => {
    const r = await run(q('propstep', { breakdownAttributionType: 'step', breakdownAttributionValue: 1 }, '$browser', xyzBuy('propstep')));
    expect(countRows(r)).toEqual([
      [[''], [1, 0]],
      [['Mac'], [1, 1]],
      [['Safari'], [1, 1]],
    ]);
  });
});

describe.each(['strict', 'unordered'])('breakdown_cases.py tests inherited by the %s steps breakdown suite (funnel_breakdown_test_factory; not overridden there)', (order) => {
  const q = breakdownQuery(order);

  it('test_funnel_step_multiple_breakdown_with_first_touch_attribution_incomplete_funnel', async () => {
    const r = await run(q('multi', { breakdownAttributionType: 'first_touch' }, ['$browser', '$version']));
    expect(countRows(r)).toEqual([
      [['', '0'], [1, 1]],
      [['0', '0'], [1, 1]],
      [['Chrome', 'xyz'], [1, 1]],
      [['Mac', ''], [1, 0]],
    ]);
  });

  it('test_funnel_breakdown_correct_breakdown_props_are_chosen: person1’s unmatched buy keeps it at step one (under Chrome)', async () => {
    const r = await run(q('props', { breakdownAttributionType: 'first_touch' }, '$browser', xyzBuy('props')));
    expect(countRows(r)).toEqual([
      [[''], [1, 0]],
      [['Chrome'], [1, 0]],
      [['Mac'], [1, 1]],
      [['Safari'], [1, 1]],
    ]);
  });

  it('test_breakdown_values_is_set_on_the_query_with_fewer_than_two_entities', async () => {
    const r = await run(q('one', {}, '$browser', [E('one:sign up')]));
    expect(countRows(r)).toEqual([
      [['Chrome'], [1]],
      [['Safari'], [2]],
    ]);
  });
});

// ------------------------------------------------------------------------------------------------ tenth pass

/*
 * Conversion-window units beyond days, the window's default count with a unit, multiple-property breakdown limits,
 * time-to-convert under a breakdown, unrounded step conversion times and strict funnels under global filters.
 * Expected values are derived from the reference (§3.1 defaults, §3.2, §3.3) and PostHog's funnel code as cited.
 */
events.push(
  // week window: wu1 converts 6 d 23 h after entering, wu2 7 d 1 h after
  ev('wu1', 'wu a', t(2021, 6, 1, 0)),
  ev('wu1', 'wu b', t(2021, 6, 7, 23)),
  ev('wu2', 'wu a', t(2021, 6, 1, 0)),
  ev('wu2', 'wu b', t(2021, 6, 8, 1)),
  // month window (31 days): mu1 converts 30 d 23 h after entering, mu2 31 d 1 h after, mu3 never
  ev('mu1', 'mu a', t(2021, 6, 1, 0)),
  ev('mu1', 'mu b', t(2021, 7, 1, 23)),
  ev('mu2', 'mu a', t(2021, 6, 1, 0)),
  ev('mu2', 'mu b', t(2021, 7, 2, 1)),
  ev('mu3', 'mu a', t(2021, 6, 1, 0)),
  // a unit without a count: 14 of it (wh1 converts after 13 h, wh2 after 15 h)
  ev('wh1', 'wh a', t(2021, 6, 1, 0)),
  ev('wh1', 'wh b', t(2021, 6, 1, 13)),
  ev('wh2', 'wh a', t(2021, 6, 1, 0)),
  ev('wh2', 'wh b', t(2021, 6, 1, 15)),
  // two-property breakdown: Chrome/Mac 2 of 2 convert, Chrome/Windows 1 of 3, Safari/Mac 0 of 1
  ...[
    ['mb1', 'Chrome', 'Mac', true],
    ['mb2', 'Chrome', 'Mac', true],
    ['mb3', 'Chrome', 'Windows', true],
    ['mb4', 'Chrome', 'Windows', false],
    ['mb5', 'Chrome', 'Windows', false],
    ['mb6', 'Safari', 'Mac', false],
  ].flatMap(([who, $browser, $os, converts]) => [
    ev(who as string, 'mb a', t(2021, 6, 1, 10), { $browser, $os }),
    ...(converts ? [ev(who as string, 'mb b', t(2021, 6, 1, 11))] : []),
  ]),
  // conversion times 1 s, 1 h and 3 h (an average of 4800.333… s), ct1 and ct2 with a browser
  ev('ct1', 'ct a', t(2021, 6, 1, 0), { $browser: 'Chrome' }),
  ev('ct1', 'ct b', t(2021, 6, 1, 1)),
  ev('ct2', 'ct a', t(2021, 6, 1, 0), { $browser: 'Safari' }),
  ev('ct2', 'ct b', t(2021, 6, 1, 3)),
  ev('ct3', 'ct a', t(2021, 6, 1, 0)),
  ev('ct3', 'ct b', t(2021, 6, 1, 0, 0, 1)),
  // time to convert with an exclusion: xe2 meets the excluded event between its steps
  ev('xe1', 'xe a', t(2021, 6, 1, 0)),
  ev('xe1', 'xe b', t(2021, 6, 1, 1)),
  ev('xe2', 'xe a', t(2021, 6, 1, 0)),
  ev('xe2', 'xe no', t(2021, 6, 1, 0, 30)),
  ev('xe2', 'xe b', t(2021, 6, 1, 2)),
  ev('xe3', 'xe a', t(2021, 6, 1, 0)),
  ev('xe3', 'xe b', t(2021, 6, 1, 3)),
  // strict, global filter on $browser: st1's other event is a Firefox one (filtered out), st2's a Chrome one
  ev('st1', 'st a', t(2021, 6, 1, 0), { $browser: 'Chrome' }),
  ev('st1', 'st other', t(2021, 6, 1, 0, 30), { $browser: 'Firefox' }),
  ev('st1', 'st b', t(2021, 6, 1, 1), { $browser: 'Chrome' }),
  ev('st2', 'st a', t(2021, 6, 1, 0), { $browser: 'Chrome' }),
  ev('st2', 'st other', t(2021, 6, 1, 0, 30), { $browser: 'Chrome' }),
  ev('st2', 'st b', t(2021, 6, 1, 1), { $browser: 'Chrome' }),
);

describe('conversion window units (reference §3.3: the UDF window is interval × seconds, week = 7 days, month = 31 days; derived)', () => {
  const june = { date_from: '2021-06-01', date_to: '2021-07-31' };
  const q = (tag: string, ff: Record<string, unknown>) => ({ series: [E(`${tag} a`), E(`${tag} b`)], dateRange: june, funnelsFilter: ff });

  it.each(['ordered', 'strict', 'unordered'])('%s, 1 week: a conversion after 6 d 23 h is in, after 7 d 1 h out', async (funnelOrderType) => {
    expect(counts(await run(q('wu', { funnelOrderType, funnelWindowInterval: 1, funnelWindowIntervalUnit: 'week' })))).toEqual([2, 1]);
  });

  it('2 weeks: both convert', async () => {
    expect(counts(await run(q('wu', { funnelWindowInterval: 2, funnelWindowIntervalUnit: 'week' })))).toEqual([2, 2]);
  });

  it.each(['ordered', 'strict', 'unordered'])('%s, 1 month: 30 d 23 h is in, 31 d 1 h out (a month is 31 days, not the calendar month of June)', async (funnelOrderType) => {
    const r = await run(q('mu', { funnelOrderType, funnelWindowInterval: 1, funnelWindowIntervalUnit: 'month' }));
    expect(r.results.map((s: any) => [s.count, s.average_conversion_time])).toEqual([
      [3, null],
      [1, 2674800],
    ]);
  });

  it('time_to_convert with a month window: the one sample, one bin of 60 s', async () => {
    const r = await run(q('mu', { funnelVizType: 'time_to_convert', funnelWindowInterval: 1, funnelWindowIntervalUnit: 'month' }));
    expect(r.results).toEqual({ bins: [[2674800, 1], [2674860, 0]], average_conversion_time: 2674800, median_conversion_time: 2674800 });
  });

  it('trends with a week window: June 1 entries wu1 and wu2, one converts', async () => {
    const r = await run({ ...q('wu', { funnelVizType: 'trends', funnelWindowInterval: 1, funnelWindowIntervalUnit: 'week' }), dateRange: { date_from: '2021-06-01', date_to: '2021-06-02' } });
    // (the conversion on June 7 is after date_to: §3.3, conversions must be inside the range)
    expect(r.results.map((s: any) => s.data)).toEqual([[0, 0]]);
    const wide = await run({ ...q('wu', { funnelVizType: 'trends', funnelWindowInterval: 1, funnelWindowIntervalUnit: 'week' }), dateRange: { date_from: '2021-06-01', date_to: '2021-06-09' } });
    expect(wide.results[0].data.slice(0, 2)).toEqual([50, 0]);
  });

  it.each(['ordered', 'strict', 'unordered'])('%s, funnelWindowIntervalUnit hour without a count: 14 hours (funnelWindowInterval defaults to 14)', async (funnelOrderType) => {
    expect(counts(await run(q('wh', { funnelOrderType, funnelWindowIntervalUnit: 'hour' })))).toEqual([2, 1]);
  });

  it.each(['ordered', 'strict', 'unordered'])('%s, funnelWindowInterval 0 is the default 14 (FunnelQueryContext: `funnelWindowInterval or 14`), not a 400', async (funnelOrderType) => {
    expect(counts(await run(q('wh', { funnelOrderType, funnelWindowInterval: 0, funnelWindowIntervalUnit: 'hour' })))).toEqual([2, 1]);
    // 14 days: both week-unit conversions (after 6 d 23 h and 7 d 1 h) are in
    expect(counts(await run(q('wu', { funnelOrderType, funnelWindowInterval: 0 })))).toEqual([2, 2]);
  });

  it('funnelWindowInterval 0 in trends and time_to_convert: 14 days', async () => {
    const trends = await run({ ...q('wu', { funnelVizType: 'trends', funnelWindowInterval: 0 }), dateRange: { date_from: '2021-06-01', date_to: '2021-06-09' } });
    expect(trends.results[0].data.slice(0, 2)).toEqual([100, 0]);
    const ttc = await run(q('wh', { funnelVizType: 'time_to_convert', funnelWindowInterval: 0, funnelWindowIntervalUnit: 'hour' }));
    expect(ttc.results.bins.reduce((n: number, b: number[]) => n + b[1], 0)).toBe(1);
  });

  it('a negative funnelWindowInterval is still refused', () => {
    expect(() => funnelsRunner.schema.parse({ kind: 'FunnelsQuery', series: [E('a'), E('b')], funnelsFilter: { funnelWindowInterval: -1 } })).toThrow();
  });
});

describe('multiple-property breakdown limits (funnels base.py: `[\'Other\']` for array breakdowns, values ranked by the last step, then earlier steps; derived)', () => {
  const q = (extra: Record<string, unknown> = {}) => ({
    series: [E('mb a'), E('mb b')],
    dateRange: { date_from: '2021-06-01', date_to: '2021-06-02' },
    breakdownFilter: { breakdown_type: 'event', breakdown: ['$browser', '$os'], ...extra },
  });
  const rowsOf = (r: any) => (r.results as any[][]).map((steps) => [steps[0].breakdown_value, steps[0].breakdown, steps.map((s) => s.count)]);

  it('no limit reached: every pair, the most conversions first', async () => {
    expect(rowsOf(await run(q()))).toEqual([
      [['Chrome', 'Mac'], ['Chrome', 'Mac'], [2, 2]],
      [['Chrome', 'Windows'], ['Chrome', 'Windows'], [3, 1]],
      [['Safari', 'Mac'], ['Safari', 'Mac'], [1, 0]],
    ]);
  });

  it('breakdown_limit 1: Chrome/Mac (2 conversions) kept over Chrome/Windows (3 entries, 1 conversion); the rest is one ["Other"]', async () => {
    expect(rowsOf(await run(q({ breakdown_limit: 1 })))).toEqual([
      [['Chrome', 'Mac'], ['Chrome', 'Mac'], [2, 2]],
      [['Other'], ['Other'], [4, 1]],
    ]);
  });

  it('the actors of ["Other"] (FunnelsActorsQuery funnelStepBreakdown) and of a kept pair', async () => {
    const actors = async (funnelStep: number, funnelStepBreakdown: unknown) => {
      const r = await h.run(actorsRunner, { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: { kind: 'FunnelsQuery', ...q({ breakdown_limit: 1 }) }, funnelStep, funnelStepBreakdown }, select: ['actor'] }, pid);
      return (r.results as any[][]).map((row) => row[0].distinct_ids[0]).sort();
    };
    expect(await actors(1, ['Other'])).toEqual(['mb3', 'mb4', 'mb5', 'mb6']);
    expect(await actors(2, ['Other'])).toEqual(['mb3']);
    expect(await actors(-2, ['Other'])).toEqual(['mb4', 'mb5', 'mb6']);
    expect(await actors(2, ['Chrome', 'Mac'])).toEqual(['mb1', 'mb2']);
  });

  it('the same in a strict funnel', async () => {
    const r = await run({ ...q({ breakdown_limit: 2 }), funnelsFilter: { funnelOrderType: 'strict' } });
    expect(rowsOf(r)).toEqual([
      [['Chrome', 'Mac'], ['Chrome', 'Mac'], [2, 2]],
      [['Chrome', 'Windows'], ['Chrome', 'Windows'], [3, 1]],
      [['Other'], ['Other'], [1, 0]],
    ]);
  });
});

describe('conversion times (funnel UDF: avgArrayOrNull / medianArrayOrNull per step, unrounded; time-to-convert rounds its average to 2 dp)', () => {
  const q = (extra: Record<string, unknown> = {}) => ({ series: [E('ct a'), E('ct b')], dateRange: { date_from: '2021-06-01', date_to: '2021-06-02' }, ...extra });

  it('steps: the average of 1 s, 3600 s and 10800 s is not rounded; the median is the middle time', async () => {
    const r = await run(q());
    expect(r.results[1]).toMatchObject({ count: 3, average_conversion_time: 14401 / 3, median_conversion_time: 3600 });
  });

  it('time_to_convert: the average rounded to 2 dp', async () => {
    const r = await run(q({ funnelsFilter: { funnelVizType: 'time_to_convert' } }));
    expect(r.results).toEqual({ bins: [[1, 2], [5401, 1], [10801, 0]], average_conversion_time: 4800.33, median_conversion_time: 3600 });
  });

  it('time_to_convert with an event breakdown (first touch): one histogram over every actor, as without the breakdown (FunnelTimeToConvert does not group by the value)', async () => {
    const r = await run(q({ funnelsFilter: { funnelVizType: 'time_to_convert' }, breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' } }));
    expect(r.results).toEqual({ bins: [[1, 2], [5401, 1], [10801, 0]], average_conversion_time: 4800.33, median_conversion_time: 3600 });
  });
});

describe('time_to_convert with an exclusion (reference §3.3 Exclusions: the excluded actor is out of the funnel, so out of the histogram; derived)', () => {
  const q = (funnelOrderType: string) => ({
    series: [E('xe a'), E('xe b')],
    dateRange: { date_from: '2021-06-01', date_to: '2021-06-02' },
    funnelsFilter: { funnelOrderType, funnelVizType: 'time_to_convert', exclusions: [{ kind: 'EventsNode', event: 'xe no', funnelFromStep: 0, funnelToStep: 1 }] },
  });

  it.each(['ordered', 'strict', 'unordered'])('%s: the times of xe1 (1 h) and xe3 (3 h) only', async (funnelOrderType) => {
    // (strict: xe2's excluded event breaks its sequence anyway)
    expect((await run(q(funnelOrderType))).results).toEqual({ bins: [[3600, 1], [7200, 0], [10800, 1]], average_conversion_time: 7200, median_conversion_time: 7200 });
  });
});

describe('strict funnels under global property filters (FunnelEventQuery: strict skips the step-event filter but keeps the global filters)', () => {
  const q = (extra: Record<string, unknown> = {}) => ({
    series: [E('st a'), E('st b')],
    dateRange: { date_from: '2021-06-01', date_to: '2021-06-02' },
    properties: [{ type: 'event', key: '$browser', operator: 'exact', value: 'Chrome' }],
    funnelsFilter: { funnelOrderType: 'strict' },
    ...extra,
  });

  it('an event the global filter leaves out does not break the sequence (st1); one it keeps does (st2)', async () => {
    expect(counts(await run(q()))).toEqual([2, 1]);
  });

  it('without the filter both sequences break', async () => {
    expect(counts(await run(q({ properties: [] })))).toEqual([2, 0]);
  });

  it('trends: 1 of 2 on June 1', async () => {
    const r = await run(q({ funnelsFilter: { funnelOrderType: 'strict', funnelVizType: 'trends' } }));
    expect(r.results.map((s: any) => s.data)).toEqual([[50, 0]]);
  });
});

// ------------------------------------------------------------------------------------------------ eleventh pass

// breakdown_cases.py test_funnel_step_breakdown_event_with_other: five persons, breakdown_limit 1
events.push(
  ...tagged('oth', [
    ev('person1', 'sign up', t(2020, 1, 1, 12), { $browser: 'Chrome' }),
    ev('person1', 'play movie', t(2020, 1, 1, 13), { $browser: 'Chrome' }),
    ev('person1', 'buy', t(2020, 1, 1, 15), { $browser: 'Chrome' }),
    ev('person2', 'sign up', t(2020, 1, 2, 14), { $browser: 'Safari' }),
    ev('person2', 'play movie', t(2020, 1, 2, 16), { $browser: 'Safari' }),
    ev('person3', 'sign up', t(2020, 1, 2, 14), { $browser: 'Safari' }),
    ev('person4', 'sign up', t(2020, 1, 2, 14), { $browser: 'random' }),
    ev('person5', 'sign up', t(2020, 1, 2, 15), { $browser: 'another one' }),
  ]),
);

describe.each(['ordered', 'strict', 'unordered'])('breakdown_cases.py: test_funnel_step_breakdown_event_with_other (%s)', (order) => {
  const q = () => {
    const base = breakdownQuery(order)('oth', {}, ['$browser'], [E('oth:sign up'), E('oth:play movie'), E('oth:buy')]);
    return { ...base, breakdownFilter: { ...base.breakdownFilter, breakdown_limit: 1 } };
  };

  it('Chrome (the only buy) is kept; Safari, random and another one are ["Other"]', async () => {
    const r = await run(q());
    expect(rows(r)).toEqual([
      [['Chrome'], [[1, null], [1, 3600], [1, 7200]]],
      [['Other'], [[4, null], [1, 7200], [0, null]]],
    ]);
    expect(r.results.map((steps: any[]) => steps[0].breakdown)).toEqual([['Chrome'], ['Other']]);
  });

  it('_get_actor_ids_at_step(filters, step, ["Chrome"] / ["Other"])', async () => {
    const actors = async (funnelStep: number, funnelStepBreakdown: unknown) => {
      const r = await h.run(actorsRunner, { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: { kind: 'FunnelsQuery', ...q() }, funnelStep, funnelStepBreakdown }, select: ['actor'] }, pid);
      return (r.results as any[][]).map((row) => row[0].distinct_ids[0]).sort();
    };
    expect(await actors(1, ['Chrome'])).toEqual(['oth:person1']);
    expect(await actors(2, ['Chrome'])).toEqual(['oth:person1']);
    expect(await actors(1, ['Other'])).toEqual(['oth:person2', 'oth:person3', 'oth:person4', 'oth:person5']);
    expect(await actors(2, ['Other'])).toEqual(['oth:person2']);
  });
});

// First/last touch read every row of the funnel events query (base.py _get_breakdown_select_prop: argMinIf/argMaxIf
// over the actor's rows, _add_breakdown_attribution_subquery): exclusion events are rows, and a strict funnel's query
// keeps every event of the actor (skip_step_filter).
events.push(
  ...tagged('ft', [
    // p1: an unrelated event with a value, then the steps (one without a value)
    ev('p1', 'other', t(2021, 8, 1, 0), { $browser: 'Firefox' }),
    ev('p1', 'one', t(2021, 8, 1, 1)),
    ev('p1', 'two', t(2021, 8, 1, 2), { $browser: 'Chrome' }),
    // p2: the exclusion event before the entry (no exclusion) carries the first value
    ev('p2', 'x', t(2021, 8, 2, 0), { $browser: 'Opera' }),
    ev('p2', 'one', t(2021, 8, 2, 1)),
    ev('p2', 'two', t(2021, 8, 2, 2), { $browser: 'Chrome' }),
    // p3: the exclusion event after the conversion carries the last value
    ev('p3', 'one', t(2021, 8, 3, 1), { $browser: 'Chrome' }),
    ev('p3', 'two', t(2021, 8, 3, 2)),
    ev('p3', 'x', t(2021, 8, 3, 3), { $browser: 'Opera' }),
  ]),
);

describe('first/last touch over the funnel events query’s rows (exclusion events; every event in a strict funnel)', () => {
  const q = (ff: Record<string, unknown>) => ({
    series: [E('ft:one'), E('ft:two')],
    dateRange: { date_from: '2021-08-01', date_to: '2021-08-04' },
    breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' },
    funnelsFilter: ff,
  });
  const exclusion = { exclusions: [{ kind: 'EventsNode', event: 'ft:x', funnelFromStep: 0, funnelToStep: 1 }] };

  it('strict, first touch: p1’s unrelated Firefox event and p2’s Opera event come first', async () => {
    expect(countRows(await run(q({ funnelOrderType: 'strict' })))).toEqual([
      [['Chrome'], [1, 1]],
      [['Firefox'], [1, 1]],
      [['Opera'], [1, 1]],
    ]);
  });

  it('strict, first touch, trends: one series per value, each actor on its entry day', async () => {
    const r = await run(q({ funnelOrderType: 'strict', funnelVizType: 'trends' }));
    expect(r.results.map((s: any) => [s.breakdown_value, s.data])).toEqual([
      [['Chrome'], [0, 0, 100, 0]],
      [['Firefox'], [100, 0, 0, 0]],
      [['Opera'], [0, 100, 0, 0]],
    ]);
  });

  it('strict, last touch: p3’s Opera event after the conversion is the last', async () => {
    expect(countRows(await run(q({ funnelOrderType: 'strict', breakdownAttributionType: 'last_touch' })))).toEqual([
      [['Chrome'], [2, 2]],
      [['Opera'], [1, 1]],
    ]);
  });

  it.each(['ordered', 'unordered'])('%s with an exclusion: the exclusion events are rows (p2 first touch, p3 last touch: Opera); p1’s unrelated event is not', async (funnelOrderType) => {
    for (const breakdownAttributionType of ['first_touch', 'last_touch'])
      expect(countRows(await run(q({ funnelOrderType, breakdownAttributionType, ...exclusion })))).toEqual([
        [['Chrome'], [2, 2]],
        [['Opera'], [1, 1]],
      ]);
    // without the exclusion its events are not in the query: Chrome for everyone
    expect(countRows(await run(q({ funnelOrderType })))).toEqual([[['Chrome'], [3, 3]]]);
  });

  it('the actors of Opera (FunnelsActorsQuery funnelStepBreakdown)', async () => {
    const actors = async (ff: Record<string, unknown>) => {
      const r = await h.run(actorsRunner, { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: { kind: 'FunnelsQuery', ...q(ff) }, funnelStep: 2, funnelStepBreakdown: ['Opera'] }, select: ['actor'] }, pid);
      return (r.results as any[][]).map((row) => row[0].distinct_ids[0]).sort();
    };
    expect(await actors({ funnelOrderType: 'strict' })).toEqual(['ft:p2']);
    expect(await actors({ breakdownAttributionType: 'last_touch', ...exclusion })).toEqual(['ft:p3']);
  });
});

// ------------------------------------------------------------------------------------------------ twelfth pass

// test_funnel.py test_basic_funnel_with_repeat_steps / test_basic_funnel_with_repeat_step_updated_param: two sign-ups
// (created with `now()`, moments apart) by one person, one by another; the same event twice as the steps.
events.push(
  ...tagged('rp', [
    ev('stopped_after_signup1', 'user signed up', '2021-09-01T12:00:00Z'),
    ev('stopped_after_signup1', 'user signed up', '2021-09-01T12:00:01Z'),
    ev('stopped_after_signup2', 'user signed up', '2021-09-01T12:00:02Z'),
  ]),
);

describe('test_funnel.py: test_basic_funnel_with_repeat_steps / test_basic_funnel_with_repeat_step_updated_param', () => {
  const q = (funnelsFilter: Record<string, unknown>) => ({
    series: [E('rp:user signed up'), E('rp:user signed up')],
    dateRange: { date_from: '2021-09-01', date_to: '2021-09-02' },
    funnelsFilter,
  });

  it.each<[string, Record<string, unknown>]>([
    ['14 days', { funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day' }],
    ['2 weeks', { funnelWindowInterval: 2, funnelWindowIntervalUnit: 'week' }],
    ['1 hour', { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'hour' }],
    ['strict (derived: the second sign-up is the next event)', { funnelOrderType: 'strict' }],
  ])('%s: 2 signed up, 1 signed up again', async (_n, ff) => {
    const r = await run(q(ff));
    expect(r.results.map((s: any) => [s.name, s.count])).toEqual([
      ['rp:user signed up', 2],
      ['rp:user signed up', 1],
    ]);
  });

  it('_get_actor_ids_at_step: both at step one, stopped_after_signup1 at step two', async () => {
    const actors = async (funnelStep: number) => {
      const r = await h.run(actorsRunner, { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: { kind: 'FunnelsQuery', ...q({}) }, funnelStep }, select: ['actor'] }, pid);
      return (r.results as any[][]).map((row) => row[0].distinct_ids[0]).sort();
    };
    expect(await actors(1)).toEqual(['rp:stopped_after_signup1', 'rp:stopped_after_signup2']);
    expect(await actors(2)).toEqual(['rp:stopped_after_signup1']);
    expect(await actors(-2)).toEqual(['rp:stopped_after_signup2']);
  });
});

// ------------------------------------------------------------------------------------------------ thirteenth pass

// test_funnel_unordered.py test_basic_unordered_funnel_conversion_times: person 3 completes the funnel twice.
events.push(
  ...tagged('uct', [
    ev('stopped_after_signup1', 'user signed up', '2021-05-02T00:00:00Z'),
    ev('stopped_after_pageview1', '$pageview', '2021-05-02T00:00:00Z'),
    ev('stopped_after_pageview1', 'user signed up', '2021-05-02T01:00:00Z'),
    ev('stopped_after_insightview', 'insight viewed', '2021-05-02T00:00:00Z'),
    ev('stopped_after_insightview', 'user signed up', '2021-05-02T02:00:00Z'),
    ev('stopped_after_insightview', '$pageview', '2021-05-02T04:00:00Z'),
    ev('stopped_after_insightview', '$pageview', '2021-05-03T00:00:00Z'),
    ev('stopped_after_insightview', 'insight viewed', '2021-05-03T03:00:00Z'),
    ev('stopped_after_insightview', 'user signed up', '2021-05-03T06:00:00Z'),
  ]),
);

// test_funnel_unordered.py test_unordered_funnel_does_not_return_same_person_twice (its theme: a person completing the
// funnel from more than one start, i.e. in more than one rotation of FunnelUnordered's union, is one actor)
events.push(
  ...tagged('twice', [
    ev('person1', 'step one', '2021-05-01T00:00:00Z'),
    ev('person1', 'step two', '2021-05-01T00:01:00Z'),
    ev('person1', 'step one', '2021-05-01T00:02:00Z'),
    ev('person1', 'step two', '2021-05-01T00:05:00Z'),
    ev('person2', 'step two', '2021-05-01T00:00:00Z'),
  ]),
);

describe('test_funnel_unordered.py: test_unordered_funnel_does_not_return_same_person_twice', () => {
  const source = {
    series: [E('twice:step one'), E('twice:step two')],
    dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 00:00:00' },
    funnelsFilter: { funnelOrderType: 'unordered' },
  };
  const actors = async (funnelStep: number) => {
    const r = await h.run(actorsRunner, { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: { kind: 'FunnelsQuery', ...source }, funnelStep }, select: ['actor'] }, pid);
    return (r.results as any[][]).map((row) => row[0].distinct_ids[0]);
  };

  it('the counts and the actors of each step list person1 once', async () => {
    const r = await run(source);
    expect(counts(r)).toEqual([2, 1]);
    // person1's runs: 00:00 → 00:01 (1 min), 00:01 → 00:02 (1 min), 00:02 → 00:05 (3 min): one actor, its average
    expect(r.results[1].average_conversion_time).toBe(100);
    expect((await actors(1)).sort()).toEqual(['twice:person1', 'twice:person2']);
    expect(await actors(2)).toEqual(['twice:person1']);
    expect(await actors(-2)).toEqual(['twice:person2']);
  });
});

describe('test_funnel_unordered.py: test_basic_unordered_funnel_conversion_times', () => {
  const q = (funnelsFilter: Record<string, unknown> = {}) => ({
    series: [E('uct:user signed up'), E('uct:$pageview'), E('uct:insight viewed')],
    dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 23:59:59' },
    funnelsFilter: { funnelOrderType: 'unordered', funnelWindowInterval: 1, funnelWindowIntervalUnit: 'day', ...funnelsFilter },
  });

  it('each actor’s times are the average over its complete runs: person 3 converts in 2 h + 2 h and in 3 h + 3 h', async () => {
    const r = await run(q());
    // step 2: 1 h for person 2, (2 + 3) / 2 h for person 3 → 1.75 h; step 3: (2 + 3) / 2 h for person 3 → 2.5 h
    expect(r.results.map((s: any) => [s.name, s.count, s.average_conversion_time])).toEqual([
      ['Completed 1 step', 3, null],
      ['Completed 2 steps', 2, 6300],
      ['Completed 3 steps', 1, 9000],
    ]);
    // (FunnelUnordered: the median of the actors' medians, each the middle of its runs' times)
    expect(r.results.map((s: any) => s.median_conversion_time)).toEqual([null, 6300, 9000]);
  });

  it('time_to_convert sums the actor’s average step times (FunnelTimeToConvert over step_i_average_conversion_time_inner): 5 h', async () => {
    const r = await run(q({ funnelVizType: 'time_to_convert' }));
    expect(r.results).toEqual({ bins: [[18000, 1], [18060, 0]], average_conversion_time: 18000, median_conversion_time: 18000 });
    // from the second step: person 2 stopped there; person 3's runs took 2 h and 3 h
    const from1 = await run(q({ funnelVizType: 'time_to_convert', funnelFromStep: 1 }));
    expect(from1.results.average_conversion_time).toBe(9000);
  });

  it('ordered, the same events: person 3 reaches a pageview 2 h after signing up, no insight inside the day after', async () => {
    const r = await run(q({ funnelOrderType: 'ordered' }));
    expect(r.results.map((s: any) => [s.count, s.average_conversion_time])).toEqual([
      [3, null],
      [1, 7200],
      [0, null],
    ]);
  });
});

describe('isUdf (FunnelsQueryResponse): use_udf’s `if funnelsFilter.useUdf: return True`, else the flag (off here)', () => {
  const q = (funnelsFilter: Record<string, unknown>) => ({
    series: [E('uct:user signed up'), E('uct:$pageview')],
    dateRange: { date_from: '2021-05-01', date_to: '2021-05-07' },
    funnelsFilter,
  });
  it.each<[string, Record<string, unknown>, boolean]>([
    ['steps', {}, false],
    ['steps with useUdf', { useUdf: true }, true],
    ['useUdf false', { useUdf: false }, false],
    ['trends with useUdf', { useUdf: true, funnelVizType: 'trends' }, true],
    ['time_to_convert with useUdf', { useUdf: true, funnelVizType: 'time_to_convert' }, true],
    ['unordered with useUdf', { useUdf: true, funnelOrderType: 'unordered' }, true],
  ])('%s', async (_n, ff, isUdf) => {
    expect((await run(q(ff))).isUdf).toBe(isUdf);
  });
});

// test_funnel_trends.py test_parses_breakdown_correctly
events.push(
  ...tagged('pb', [
    ev('user_one', 'step one', t(2021, 5, 1), { $browser: 'test' }),
    ev('user_one', 'step two', t(2021, 5, 3), { $browser: 'test' }),
    ev('user_one', 'step three', t(2021, 5, 5), { $browser: 'test' }),
  ]),
);

describe('test_funnel_trends.py: test_parses_breakdown_correctly', () => {
  it('one breakdown value, one series; user_one converts from May 1 within the 7 days', async () => {
    const r = await run({
      series: [E('pb:step one'), E('pb:step two'), E('pb:step three')],
      interval: 'day',
      dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-13 23:59:59' },
      funnelsFilter: { funnelVizType: 'trends', funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day' },
      breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' },
    });
    expect(r.results).toHaveLength(1);
    expect(r.results[0]).toMatchObject({ breakdown_value: ['test'], count: 13, data: [100, ...new Array(12).fill(0)] });
    expect(r.results[0].days[0]).toBe('2021-05-01');
  });
});

// test_funnel.py test_funnel_events_with_person_on_events_v2: stopped_after_signup1's person is overridden to
// stopped_after_pay's (create_person_id_override_by_distinct_id; here a $merge_dangerously after the fact)
events.push(
  ...tagged('poe', [
    ev('stopped_after_signup1', 'user signed up', '2020-01-02T14:00:00Z'),
    ev('stopped_after_pay', 'user signed up', '2020-01-02T14:00:00Z'),
    ev('stopped_after_pay', 'paid', '2020-01-10T14:00:00Z'),
  ]),
  { ...ev('poe:stopped_after_pay', '$merge_dangerously', '2020-01-11T14:00:00Z'), properties: { alias: 'poe:stopped_after_signup1' } },
);

describe('test_funnel.py: test_funnel_events_with_person_on_events_v2', () => {
  const source = { series: [E('poe:user signed up'), E('poe:paid')], dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' } };
  it('the overridden person is one actor: 1 signed up, 1 paid', async () => {
    const r = await run(source);
    expect(r.results.map((s: any) => [s.name, s.count])).toEqual([
      ['poe:user signed up', 1],
      ['poe:paid', 1],
    ]);
    const actors = await h.run(actorsRunner, { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: { kind: 'FunnelsQuery', ...source }, funnelStep: 1 }, select: ['actor'] }, pid);
    expect(actors.results).toHaveLength(1);
    expect([...actors.results[0][0].distinct_ids].sort()).toEqual(['poe:stopped_after_pay', 'poe:stopped_after_signup1']);
  });
});
