/**
 * More FunnelsQuery and FunnelsActorsQuery scenarios ported from PostHog's funnel test suites
 * (posthog/hogql_queries/insights/funnels/test/: test_funnel.py, breakdown_cases.py, test_funnel_strict.py,
 * test_funnel_unordered.py, test_funnel_persons.py, test_funnel_trends_persons.py, test_funnel_time_to_convert.py),
 * the ones funnels-posthog-compat.test.ts does not cover. Each case names the PostHog test it follows; the expected
 * values are PostHog's. Runs through the real runners on a real engine (DuckDB, or ClickHouse via the .clickhouse
 * twin).
 */
import { funnelsRunner } from '../runners/funnels-runner';
import { actorsRunner } from '../runners/actors-runner';
import { actionSource, ATTRIBUTION_JOURNEYS, counts, E, type Ev, ev, type Harness, openHarness, persons } from './testing';
import { actionStep } from '../insights/testing';
import { runWithCohorts, type ResolvedCohort } from '../../cohorts/cohort-scope';
import type { ActionDef } from '../../actions/matching';
import type { ActionStep } from '../../store/entities/action';
import { elementsToString } from '../../ingest/elements-chain';
import { filterToQuery } from '../../insights/legacy-filters';

let h: Harness;
beforeAll(async () => {
  h = await openHarness();
});
afterAll(async () => {
  await h.close();
});

type Person = { distinct_ids: string[]; properties: Record<string, unknown> };

async function load(events: Ev[], people?: Person[]) {
  const ids = [...new Set(events.map((e) => e.distinct_id))];
  const covered = new Set((people ?? []).flatMap((p) => p.distinct_ids));
  return h.load({ persons: [...(people ?? []), ...persons(...ids.filter((i) => !covered.has(i)))], events });
}
async function funnel(events: Ev[], q: Record<string, unknown>, project: Record<string, unknown> = {}, people?: Person[]) {
  const pid = await load(events, people);
  return h.run(funnelsRunner, { kind: 'FunnelsQuery', ...q }, pid, project as any);
}
const byBreakdown = (r: any) => (r.results as any[][]).map((steps) => [steps[0].breakdown_value, steps.map((s) => s.count)]);

/** The first distinct id of each actor of an ActorsQuery whose only column is the actor, sorted. */
async function actorNames(pid: number, source: Record<string, unknown>, project: Record<string, unknown> = {}): Promise<string[]> {
  const r = await h.run(actorsRunner, { kind: 'ActorsQuery', source, select: ['actor'], limit: 1000 }, pid, project as any);
  return (r.results as any[][]).map((row) => row[0].distinct_ids[0]).sort();
}

const STEPS3 = [E('step one'), E('step two'), E('step three')];

/**
 * test_funnel_persons.py `_create_sample_data_multiple_dropoffs`: 5 people do all three steps, 10 stop after step
 * two, 20 after step one (May 1, 3, 5 2021).
 */
function multipleDropoffs(): Ev[] {
  const out: Ev[] = [];
  for (let i = 0; i < 35; i++) {
    out.push(ev(`user_${i}`, 'step one', '2021-05-01T00:00:00Z'));
    if (i < 15) out.push(ev(`user_${i}`, 'step two', '2021-05-03T00:00:00Z'));
    if (i < 5) out.push(ev(`user_${i}`, 'step three', '2021-05-05T00:00:00Z'));
  }
  return out;
}
const users = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `user_${from + i}`).sort();

describe('test_funnel_persons.py (FunnelsActorsQuery over a steps funnel)', () => {
  const source = { kind: 'FunnelsQuery', series: STEPS3, dateRange: { date_from: '2021-05-01', date_to: '2021-05-10' }, funnelsFilter: { funnelWindowInterval: 14 } };
  let pid: number;
  beforeAll(async () => {
    pid = await load(multipleDropoffs());
  });

  it.each<[string, number, string[]]>([
    ['test_first_step', 1, users(0, 35)],
    ['test_last_step', 3, users(0, 5)],
    ['test_second_step_dropoff', -2, users(15, 35)],
    ['test_last_step_dropoff', -3, users(5, 15)],
  ])('%s (funnelStep %d)', async (_n, funnelStep, expected) => {
    expect(await actorNames(pid, { kind: 'FunnelsActorsQuery', source, funnelStep })).toEqual(expected);
  });

  it.each<[number, number[], number]>([
    [1, [1, 2, 3], 35],
    [2, [2, 3], 15],
    [3, [3], 5],
    [-2, [1], 20],
    [-3, [2], 10],
  ])('test_steps_with_custom_steps_parameter_are_equivalent_to_funnel_step: funnelStep %d = funnelCustomSteps %j', async (funnelStep, funnelCustomSteps, n) => {
    const byStep = await actorNames(pid, { kind: 'FunnelsActorsQuery', source, funnelStep });
    const byCustom = await actorNames(pid, { kind: 'FunnelsActorsQuery', source, funnelCustomSteps });
    expect(byCustom).toEqual(byStep);
    expect(byCustom).toHaveLength(n);
  });

  it.each<[number[], number]>([
    [[1, 2], 30],
    [[1, 3], 25],
    [[3, 1], 25],
    [[1, 3, 3, 1], 25],
  ])('test_steps_with_custom_steps_parameter_where_funnel_step_equivalence_isnt_possible: %j → %d', async (funnelCustomSteps, n) => {
    expect(await actorNames(pid, { kind: 'FunnelsActorsQuery', source, funnelCustomSteps })).toHaveLength(n);
  });

  it('funnelCustomSteps win over funnelStep', async () => {
    expect(await actorNames(pid, { kind: 'FunnelsActorsQuery', source, funnelStep: 1, funnelCustomSteps: [3] })).toEqual(users(0, 5));
  });

  it('a custom step outside 1..steps matches nobody (PostHog: `steps IN [...]`, unchecked)', async () => {
    expect(await actorNames(pid, { kind: 'FunnelsActorsQuery', source, funnelCustomSteps: [0, 2] })).toEqual(users(5, 15));
    expect(await actorNames(pid, { kind: 'FunnelsActorsQuery', source, funnelCustomSteps: [4] })).toEqual([]);
  });

  it('trends fields are ignored for a steps funnel (PostHog picks the actor query by the source viz)', async () => {
    expect(await actorNames(pid, { kind: 'FunnelsActorsQuery', source, funnelStep: 3, funnelTrendsDropOff: true, funnelTrendsEntrancePeriodStart: '2021-05-01 00:00:00' })).toEqual(
      users(0, 5),
    );
  });

  it.each<[string, string, number, string[]]>([
    ['strict', 'test_strict_funnel_persons', 2, users(0, 15)],
    ['unordered', 'test_unordered_funnel_persons', -3, users(5, 15)],
  ])('%s order (%s)', async (funnelOrderType, _n, funnelStep, expected) => {
    const s = { ...source, funnelsFilter: { ...source.funnelsFilter, funnelOrderType } };
    expect(await actorNames(pid, { kind: 'FunnelsActorsQuery', source: s, funnelStep })).toEqual(expected);
  });
});

describe('test_funnel_trends_persons.py (FunnelsActorsQuery over a trends funnel)', () => {
  const trends = (extra: Record<string, unknown> = {}) => ({
    kind: 'FunnelsQuery',
    series: STEPS3,
    interval: 'day',
    dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 23:59:59' },
    // (a one-day window, so user_four's first entry expires before its later one converts)
    funnelsFilter: { funnelVizType: 'trends', funnelWindowInterval: 1, funnelWindowIntervalUnit: 'day', ...extra },
  });
  const point = (source: unknown, funnelTrendsDropOff: boolean, funnelTrendsEntrancePeriodStart = '2021-05-01 00:00:00') => ({
    kind: 'FunnelsActorsQuery',
    source,
    funnelTrendsDropOff,
    funnelTrendsEntrancePeriodStart,
  });
  let pid: number;
  beforeAll(async () => {
    pid = await load([
      // test_funnel_trend_persons_returns_recordings: user_one converts, entering May 1
      ev('user_one', 'step one', '2021-05-01T00:00:00Z'),
      ev('user_one', 'step two', '2021-05-01T01:00:00Z'),
      ev('user_one', 'step three', '2021-05-01T02:00:00Z'),
      // test_funnel_trend_persons_with_drop_off: user_two enters May 1 and goes no further
      ev('user_two', 'step one', '2021-05-01T10:00:00Z'),
      // user_three enters May 2, reaches step two only
      ev('user_three', 'step one', '2021-05-02T00:00:00Z'),
      ev('user_three', 'step two', '2021-05-02T01:00:00Z'),
      // user_four: an entry May 1 that drops off, and an entry May 3 that converts
      ev('user_four', 'step one', '2021-05-01T12:00:00Z'),
      ev('user_four', 'step one', '2021-05-03T12:00:00Z'),
      ev('user_four', 'step two', '2021-05-03T13:00:00Z'),
      ev('user_four', 'step three', '2021-05-03T14:00:00Z'),
    ]);
  });

  it.each<[string, boolean, string, string[]]>([
    ['test_funnel_trend_persons_returns_recordings (converted)', false, '2021-05-01 00:00:00', ['user_one']],
    ['test_funnel_trend_persons_with_drop_off', true, '2021-05-01 00:00:00', ['user_four', 'user_two']],
    ['a later period', false, '2021-05-03 00:00:00', ['user_four']],
    ['dropped off in the May 2 period', true, '2021-05-02 00:00:00', ['user_three']],
    ['a date alone names the day period', true, '2021-05-02', ['user_three']],
    ['an ISO datetime in UTC', false, '2021-05-03T00:00:00Z', ['user_four']],
    ['a period nobody entered', false, '2021-05-05 00:00:00', []],
    ['not a period start: PostHog compares equality, nobody', false, '2021-05-01 10:00:00', []],
  ])('%s', async (_n, dropOff, start, expected) => {
    expect(await actorNames(pid, point(trends(), dropOff, start))).toEqual(expected);
  });

  it('test_funnel_trend_persons_with_no_to_step: the last step is the default funnelToStep', async () => {
    expect(await actorNames(pid, point(trends({ funnelFromStep: 0 }), false))).toEqual(['user_one']);
  });

  it('funnelFromStep/funnelToStep: the entries reaching step two, converted to step three or not', async () => {
    const source = trends({ funnelFromStep: 1, funnelToStep: 2 });
    expect(await actorNames(pid, point(source, false, '2021-05-01'))).toEqual(['user_one']);
    expect(await actorNames(pid, point(source, true, '2021-05-02'))).toEqual(['user_three']);
    // user_two never reached step two: not a drop-off of this conversion
    expect(await actorNames(pid, point(source, true, '2021-05-01'))).toEqual([]);
  });

  it('the actors of each period add up to the trends data point', async () => {
    const r = await h.run(funnelsRunner, trends(), pid);
    const { days, data } = r.results[0];
    for (const [i, day] of (days as string[]).entries()) {
      const converted = (await actorNames(pid, point(trends(), false, day))).length;
      const dropped = (await actorNames(pid, point(trends(), true, day))).length;
      expect(converted + dropped ? Math.round((converted / (converted + dropped)) * 10000) / 100 : 0).toBe(data[i]);
    }
  });

  it('week interval: the period is the week start (project week start day)', async () => {
    const source = { ...trends(), interval: 'week' };
    // 2021-05-02 is a Sunday: the May 1 entries are in the week of Apr 25, the later ones in the week of May 2.
    expect(await actorNames(pid, point(source, false, '2021-04-25'))).toEqual(['user_one']);
    expect(await actorNames(pid, point(source, false, '2021-05-02'))).toEqual(['user_four']);
    expect(await actorNames(pid, point(source, true, '2021-05-02'))).toEqual(['user_three']);
  });

  it('a trends funnel without funnelTrendsEntrancePeriodStart, or with an unparsable one, is a 400', async () => {
    await expect(actorNames(pid, { kind: 'FunnelsActorsQuery', source: trends(), funnelTrendsDropOff: false })).rejects.toMatchObject({
      status: 400,
      attr: 'source__funnelTrendsEntrancePeriodStart',
    });
    await expect(actorNames(pid, point(trends(), false, 'yesterday-ish'))).rejects.toMatchObject({ status: 400 });
  });
});

describe('FunnelsActorsQuery over a funnel aggregated by funnelAggregateByHogQL (test_hogql_aggregation)', () => {
  let pid: number;
  beforeAll(async () => {
    pid = await load([
      ev('p1', 'sign up', '2021-05-01T00:00:00Z', { $session_id: 's1' }),
      ev('p1', 'buy', '2021-05-01T00:10:00Z', { $session_id: 's1' }),
      ev('p2', 'sign up', '2021-05-01T00:00:00Z', { $session_id: 's2' }),
      ev('p2', 'buy', '2021-05-02T00:00:00Z', { $session_id: 's3' }),
    ]);
  });
  const source = (funnelAggregateByHogQL: string) => ({
    kind: 'FunnelsQuery',
    series: [E('sign up'), E('buy')],
    dateRange: { date_from: '2021-05-01', date_to: '2021-05-07' },
    funnelsFilter: { funnelAggregateByHogQL },
  });

  it('person_id: the persons', async () => {
    expect(await actorNames(pid, { kind: 'FunnelsActorsQuery', source: source('person_id'), funnelStep: 2 })).toEqual(['p1', 'p2']);
  });

  it('sessions are no persons: no rows (PostHog joins the actors to persons), counted as missing', async () => {
    const r = await h.run(actorsRunner, { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: source('properties.$session_id'), funnelStep: 1 }, select: ['actor'] }, pid);
    expect(r.results).toEqual([]);
    // s1 and s2 entered the funnel
    expect(r.missing_actors_count).toBe(2);
  });
});

// ------------------------------------------------------------------------------------------------ cohorts

const cohort = (id: number, name: string, def: { person?: Record<string, unknown>[]; personIds?: string[] }): ResolvedCohort => ({
  id,
  name,
  isStatic: !!def.personIds,
  group: def.person ? { type: 'AND', values: def.person as any } : null,
  personIds: def.personIds ?? [],
});
const inScope = <T>(cohorts: ResolvedCohort[], fn: () => Promise<T>): Promise<T> => runWithCohorts(new Map(cohorts.map((c) => [c.id, c])), fn);

describe('test_funnel_cohort_breakdown (breakdown_cases.py): one funnel per cohort, "all users" = 0', () => {
  const TEST_COHORT = cohort(901, 'test_cohort', { person: [{ key: 'key', value: 'value', type: 'person' }] });
  const query = (extra: Record<string, unknown> = {}) => ({
    kind: 'FunnelsQuery',
    series: [E('sign up'), E('play movie'), E('buy')],
    dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
    funnelsFilter: { funnelWindowInterval: 7, breakdownAttributionType: 'step', breakdownAttributionValue: 0 },
    breakdownFilter: { breakdown_type: 'cohort', breakdown: ['all', 901] },
    ...extra,
  });
  let pid: number;
  beforeAll(async () => {
    pid = await load(
      [
        ev('person1', 'sign up', '2020-01-01T12:00:00Z', { $browser: 'Chrome' }),
        ev('person1', 'play movie', '2020-01-01T13:00:00Z', { $browser: 'Chrome' }),
        ev('person1', 'buy', '2020-01-01T15:00:00Z', { $browser: 'Chrome' }),
        ev('person2', 'sign up', '2020-01-02T14:00:00Z', { $browser: 'Safari' }),
        ev('person2', 'play movie', '2020-01-02T16:00:00Z', { $browser: 'Safari' }),
        ev('person3', 'sign up', '2020-01-02T14:00:00Z', { $browser: 'Safari' }),
      ],
      [
        { distinct_ids: ['person1'], properties: { key: 'value' } },
        { distinct_ids: ['person2'], properties: {} },
        { distinct_ids: ['person3'], properties: {} },
      ],
    );
  });

  it('steps: breakdown is the cohort name, breakdown_value its id; an actor counts in every cohort it is in', async () => {
    const r = await inScope([TEST_COHORT], () => h.run(funnelsRunner, query(), pid));
    expect(r.results).toHaveLength(2);
    expect(r.results[0]).toHaveLength(3);
    expect(r.results[0][0]).toMatchObject({ breakdown: 'all users', breakdown_value: 0 });
    expect(r.results[1][0]).toMatchObject({ breakdown: 'test_cohort', breakdown_value: 901 });
    expect(byBreakdown(r)).toEqual([
      [0, [3, 2, 1]],
      [901, [1, 1, 1]],
    ]);
    expect(r.results[1][2]).toMatchObject({ name: 'buy', average_conversion_time: 7200 });
  });

  it('_get_actor_ids_at_step with a cohort funnelStepBreakdown (0 or "all" for all users)', async () => {
    const names = (funnelStepBreakdown: unknown, funnelStep = 1) =>
      inScope([TEST_COHORT], () => actorNames(pid, { kind: 'FunnelsActorsQuery', source: query(), funnelStep, funnelStepBreakdown }));
    expect(await names(901)).toEqual(['person1']);
    expect(await names('all')).toEqual(['person1', 'person2', 'person3']);
    expect(await names(0, 2)).toEqual(['person1', 'person2']);
  });

  it('a static cohort; cohorts nobody of the funnel is in are left out', async () => {
    const persons = await h.run(actorsRunner, { kind: 'ActorsQuery', select: ['person'], limit: 10 }, pid);
    const person2 = persons.results.find((row: any[]) => row[0].distinct_ids[0] === 'person2')[0].id;
    const r = await inScope([cohort(902, 'static', { personIds: [person2] }), cohort(903, 'nobody', { person: [{ key: 'key', value: 'nope', type: 'person' }] })], () =>
      h.run(funnelsRunner, query({ breakdownFilter: { breakdown_type: 'cohort', breakdown: [902, 903] } }), pid),
    );
    expect(byBreakdown(r)).toEqual([[902, [1, 1, 0]]]);
    expect(r.results[0][0].breakdown).toBe('static');
  });

  it('trends: one series per cohort, breakdown_value the cohort name (["None"] for all users: FunnelTrends._format_results)', async () => {
    const r = await inScope([TEST_COHORT], () =>
      h.run(funnelsRunner, query({ interval: 'day', dateRange: { date_from: '2020-01-01', date_to: '2020-01-03' }, funnelsFilter: { funnelVizType: 'trends' } }), pid),
    );
    expect(r.results.map((s: any) => [s.breakdown_value, s.data])).toEqual([
      [['None'], [100, 0, 0]],
      ['test_cohort', [100, 0, 0]],
    ]);
  });

  it('time_to_convert: one histogram over the actors of the cohorts (each once), global filters kept', async () => {
    const ttc = (breakdown: unknown[], properties?: unknown) =>
      inScope([TEST_COHORT, cohort(904, 'safari', { person: [{ key: 'key', value: 'nope', type: 'person' }] })], () =>
        h.run(funnelsRunner, query({ funnelsFilter: { funnelVizType: 'time_to_convert', funnelToStep: 1, binCount: 1 }, breakdownFilter: { breakdown_type: 'cohort', breakdown }, ...(properties ? { properties } : {}) }), pid),
      );
    // person1 converts in 3600 s, person2 in 7200 s
    expect((await ttc(['all'])).results.average_conversion_time).toBe(5400);
    expect((await ttc([901, 904])).results.average_conversion_time).toBe(3600);
    const grouped = await ttc([901, 904], { type: 'AND', values: [{ type: 'AND', values: [{ key: '$browser', value: 'Safari', type: 'event' }] }] });
    expect(grouped.results.bins).toEqual([]);
  });

  it('a cohort the project does not have is a 400', async () => {
    await expect(inScope([], () => h.run(funnelsRunner, query(), pid))).rejects.toMatchObject({ status: 400, attr: 'breakdownFilter__breakdown' });
  });
});

describe('test_funnel_with_cohorts_step_filter / test_funnel_with_static_cohort_step_filter', () => {
  const events = [
    ev('user_1', 'user signed up', '2020-01-02T14:00:00Z'),
    ev('user_1', 'paid', '2020-01-10T14:00:00Z'),
    ev('user_2', 'user signed up', '2020-01-02T14:00:00Z'),
    ev('user_2', 'paid', '2020-01-10T14:00:00Z'),
  ];
  const people = [
    { distinct_ids: ['user_1'], properties: { email: 'n@test.com' } },
    { distinct_ids: ['user_2'], properties: {} },
  ];
  const query = (id: number) => ({
    kind: 'FunnelsQuery',
    series: [E('user signed up', { properties: [{ type: 'cohort', key: 'id', value: id }] }), E('paid')],
    dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
  });

  it('dynamic cohort on a step', async () => {
    const pid = await load(events, people);
    const r = await inScope([cohort(911, 'c', { person: [{ key: 'email', operator: 'icontains', value: '.com', type: 'person' }] })], () => h.run(funnelsRunner, query(911), pid));
    expect(counts(r)).toEqual([1, 1]);
  });

  it('static cohort on a step', async () => {
    const pid = await load(events, people);
    const all = await h.run(actorsRunner, { kind: 'ActorsQuery', select: ['person'], limit: 10 }, pid);
    const user2 = all.results.find((row: any[]) => row[0].distinct_ids[0] === 'user_2')[0].id;
    const r = await inScope([cohort(912, 's', { personIds: [user2] })], () => h.run(funnelsRunner, query(912), pid));
    expect(counts(r)).toEqual([1, 1]);
  });

  it('test_funnel_with_precalculated_cohort_step_filter: legacy filters with a precalculated-cohort step property (filter_to_query: a cohort filter)', async () => {
    const pid = await load(events, people);
    const query = filterToQuery({
      insight: 'FUNNELS',
      events: [
        { id: 'user signed up', type: 'events', order: 0, properties: [{ type: 'precalculated-cohort', key: 'id', value: 913 }] },
        { id: 'paid', type: 'events', order: 1 },
      ],
      date_from: '2020-01-01',
      date_to: '2020-01-14',
    });
    const c = cohort(913, 'p', { person: [{ key: 'email', operator: 'icontains', value: '.com', type: 'person' }] });
    const r = await inScope([c], () => h.run(funnelsRunner, query, pid));
    expect(counts(r)).toEqual([1, 1]);
  });
});

// ------------------------------------------------------------------------------------------------ actions

const SIGN_UP_ACTION: ActionDef = { id: 71, name: 'sign up', steps: [actionStep('sign up', [{ key: 'key', type: 'event', value: ['val'], operator: 'exact' }])] };

describe('action steps (test_funnel.py)', () => {
  it('test_funnel_with_actions: steps of one action need two events; dau/weekly_active step math is ignored', async () => {
    const pid = await load([
      ev('stopped_after_signup1', 'sign up', '2020-01-02T14:00:00Z', { key: 'val' }),
      ev('completed', 'sign up', '2020-01-02T14:00:00Z', { key: 'val' }),
      ev('completed', 'sign up', '2020-01-03T14:00:00Z', { key: 'val' }),
      // not the action: another property value
      ev('other_value', 'sign up', '2020-01-02T14:00:00Z', { key: 'val2' }),
      ev('other_value', 'sign up', '2020-01-03T14:00:00Z', { key: 'val2' }),
    ]);
    const r = await h.run(
      funnelsRunner,
      {
        kind: 'FunnelsQuery',
        series: [
          { kind: 'ActionsNode', id: 71, math: 'dau' },
          { kind: 'ActionsNode', id: 71, math: 'weekly_active' },
        ],
        dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
      },
      pid,
      {},
      actionSource([SIGN_UP_ACTION]),
    );
    expect(r.results.map((s: any) => [s.name, s.action_id, s.type, s.count])).toEqual([
      ['sign up', 71, 'actions', 2],
      ['sign up', 71, 'actions', 1],
    ]);
    expect(r.results[1].average_conversion_time).toBe(86400);
  });

  it('test_funnel_exclusions_with_actions: an action exclusion between the steps drops the actor', async () => {
    const pid = await load([
      ev('person1', 'user signed up', '2021-05-01T01:00:00Z'),
      ev('person1', 'paid', '2021-05-01T02:00:00Z'),
      ev('person2', 'user signed up', '2021-05-01T01:00:00Z'),
      ev('person2', 'sign up', '2021-05-01T01:30:00Z', { key: 'val' }),
      ev('person2', 'paid', '2021-05-01T02:00:00Z'),
      // the event without the action's property does not exclude
      ev('person3', 'user signed up', '2021-05-01T01:00:00Z'),
      ev('person3', 'sign up', '2021-05-01T01:30:00Z', { key: 'other' }),
      ev('person3', 'paid', '2021-05-01T02:00:00Z'),
    ]);
    const r = await h.run(
      funnelsRunner,
      {
        kind: 'FunnelsQuery',
        series: [E('user signed up'), E('paid')],
        dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-14 00:00:00' },
        funnelsFilter: { funnelWindowInterval: 14, exclusions: [{ kind: 'ActionsNode', id: 71, funnelFromStep: 0, funnelToStep: 1 }] },
      },
      pid,
      {},
      actionSource([SIGN_UP_ACTION]),
    );
    expect(counts(r)).toEqual([2, 2]);
  });

  it('test_basic_funnel_default_funnel_days_breakdown_action: an action step with an event breakdown', async () => {
    const pid = await load([
      ev('p1', 'sign up', '2020-01-02T14:00:00Z', { key: 'val', $browser: 'Chrome' }),
      ev('p1', 'paid', '2020-01-03T14:00:00Z', { $browser: 'Chrome' }),
      ev('p2', 'sign up', '2020-01-02T14:00:00Z', { key: 'val', $browser: 'Safari' }),
    ]);
    const r = await h.run(
      funnelsRunner,
      {
        kind: 'FunnelsQuery',
        series: [{ kind: 'ActionsNode', id: 71 }, E('paid')],
        dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
        breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' },
      },
      pid,
      {},
      actionSource([SIGN_UP_ACTION]),
    );
    expect(byBreakdown(r)).toEqual([
      [['Chrome'], [1, 1]],
      [['Safari'], [1, 0]],
    ]);
  });
});

// ------------------------------------------------------------------------------------------------ breakdowns

describe('breakdown attribution (breakdown_cases.py)', () => {
  const q = (ff: Record<string, unknown>, breakdown: unknown = ['$browser'], series = [E('sign up'), E('buy')]) => ({
    series,
    dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
    funnelsFilter: { funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day', ...ff },
    breakdownFilter: { breakdown_type: 'event', breakdown },
  });
  const rows = (r: any) =>
    (r.results as any[][])
      .map((steps) => [steps[0].breakdown_value, steps.map((s) => [s.count, s.average_conversion_time])])
      .sort((a: any, b: any) => (JSON.stringify(a[0]) < JSON.stringify(b[0]) ? -1 : 1));

  // first touch disregards alakazam; person5 (no properties) is represented by ''
  const firstTouchEvents = [...ATTRIBUTION_JOURNEYS];

  it('test_funnel_step_breakdown_with_first_touch_attribution', async () => {
    expect(rows(await funnel(firstTouchEvents, q({ breakdownAttributionType: 'first_touch' })))).toEqual([
      [[''], [[1, null], [1, 3600]]],
      [['0'], [[1, null], [1, 3600]]],
      [['Chrome'], [[1, null], [1, 3600]]],
      [['Mac'], [[1, null], [1, 3600]]],
      [['Safari'], [[1, null], [1, 86400]]],
    ]);
  });

  it('test_funnel_step_breakdown_with_last_touch_attribution', async () => {
    expect(rows(await funnel(firstTouchEvents, q({ breakdownAttributionType: 'last_touch' })))).toEqual([
      [[''], [[1, null], [1, 3600]]],
      [['Chrome'], [[1, null], [1, 3600]]],
      [['Mac'], [[1, null], [1, 3600]]],
      [['Safari'], [[1, null], [1, 86400]]],
      [['alakazam'], [[1, null], [1, 3600]]],
    ]);
  });

  it('test_funnel_step_breakdown_with_step_one_attribution', async () => {
    expect(rows(await funnel(firstTouchEvents, q({ breakdownAttributionType: 'step', breakdownAttributionValue: 1 })))).toEqual([
      [[''], [[3, null], [3, 3600]]],
      [['Safari'], [[1, null], [1, 86400]]],
      [['alakazam'], [[1, null], [1, 3600]]],
    ]);
  });

  it('test_funnel_step_multiple_breakdown_with_first_touch_attribution', async () => {
    const events = [
      ev('person1', 'sign up', '2020-01-01T12:00:00Z', { $browser: 'Chrome', $version: 'xyz' }),
      ev('person1', 'buy', '2020-01-01T13:00:00Z'),
      ev('person2', 'sign up', '2020-01-01T13:00:00Z'),
      ev('person2', 'buy', '2020-01-02T13:00:00Z', { $browser: 'Safari', $version: 'xyz' }),
      ev('person3', 'sign up', '2020-01-02T14:00:00Z', { $browser: 'Mac' }),
      ev('person3', 'buy', '2020-01-02T15:00:00Z', { $version: 'no-mac' }),
      ev('person4', 'sign up', '2020-01-02T15:00:00Z', { $browser: 0, $version: 0 }),
      ev('person4', 'buy', '2020-01-02T16:00:00Z', { $browser: 'alakazam' }),
      ev('person5', 'sign up', '2020-01-02T15:00:00Z'),
      ev('person5', 'buy', '2020-01-02T16:00:00Z'),
    ];
    expect(rows(await funnel(events, q({ breakdownAttributionType: 'first_touch' }, ['$browser', '$version'])))).toEqual([
      [['', ''], [[1, null], [1, 3600]]],
      [['0', '0'], [[1, null], [1, 3600]]],
      [['Chrome', 'xyz'], [[1, null], [1, 3600]]],
      [['Mac', ''], [[1, null], [1, 3600]]],
      [['Safari', 'xyz'], [[1, null], [1, 86400]]],
    ]);
  });

  it('test_funnel_step_breakdown_event_single_person_multiple_breakdowns: one step, first touch only', async () => {
    const r = await funnel(
      [
        ev('person1', 'sign up', '2020-01-01T12:00:00Z', { key: 'val', $browser: 'Chrome' }),
        ev('person1', 'sign up', '2020-01-01T13:00:00Z', { key: 'val', $browser: 'Safari' }),
        ev('person1', 'sign up', '2020-01-02T14:00:00Z', { key: 'val', $browser: 'Mac' }),
        ev('person1', 'sign up', '2020-01-02T15:00:00Z', { key: 'val', $browser: 0 }),
      ],
      q({}, '$browser', [E('sign up')]),
    );
    expect(r.results).toHaveLength(1);
    expect(r.results[0]).toEqual([expect.objectContaining({ name: 'sign up', count: 1, breakdown: ['Chrome'], breakdown_value: ['Chrome'] })]);
  });

  it('test_funnel_step_breakdown_event_single_person_events_with_multiple_properties (all_events)', async () => {
    const r = await funnel(
      [
        ev('person1', 'sign up', '2020-01-01T12:00:00Z', { $browser: 'Chrome' }),
        ev('person1', 'play movie', '2020-01-02T12:30:00Z', { $browser: 'Safari' }),
        ev('person1', 'sign up', '2020-01-02T13:00:00Z', { $browser: 'Safari' }),
        ev('person1', 'play movie', '2020-01-02T14:00:00Z', { $browser: 'Safari' }),
      ],
      q({ breakdownAttributionType: 'all_events' }, '$browser', [E('sign up'), E('play movie')]),
    );
    expect(rows(r)).toEqual([
      [['Chrome'], [[1, null], [0, null]]],
      [['Safari'], [[1, null], [1, 3600]]],
    ]);
  });

  it('test_funnel_step_custom_breakdown_limit_with_nulls: the top values, the rest (a null value too) as Other', async () => {
    const events: Ev[] = [];
    for (let num = 0; num < 5; num++)
      for (let i = 0; i < num; i++)
        for (const [e, hh] of [
          ['sign up', '12'],
          ['play movie', '13'],
          ['buy', '15'],
        ])
          events.push(ev(`person_${num}_${i}`, e, `2020-01-01T${hh}:00:00Z`, num === 1 ? {} : { some_breakdown_val: String(num) }));
    const r = await funnel(events, q({}, ['some_breakdown_val'], [E('sign up'), E('play movie'), E('buy')]));
    expect(byBreakdown(r)).toEqual([
      [['4'], [4, 4, 4]],
      [['3'], [3, 3, 3]],
      [['2'], [2, 2, 2]],
      [[''], [1, 1, 1]],
    ]);
    const limited = await funnel(events, { ...q({}, ['some_breakdown_val'], [E('sign up'), E('play movie'), E('buy')]), breakdownFilter: { breakdown: ['some_breakdown_val'], breakdown_limit: 3 } });
    expect(byBreakdown(limited)).toEqual([
      [['4'], [4, 4, 4]],
      [['3'], [3, 3, 3]],
      [['2'], [2, 2, 2]],
      [['Other'], [1, 1, 1]],
    ]);
  });
});

// ------------------------------------------------------------------------------------------------ steps

describe('test_funnel.py (more)', () => {
  it('test_funnel_filter_test_accounts: person1 (a @posthog.com email) is filtered out, person2 (no email) kept', async () => {
    const r = await funnel(
      [ev('ta_person1', 'user signed up', '2020-01-02T14:00:00Z'), ev('ta_person2', 'user signed up', '2020-01-03T14:00:00Z')],
      { series: [E('user signed up')], dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' }, filterTestAccounts: true },
      { test_account_filters: [{ key: 'email', value: '@posthog.com', operator: 'not_icontains', type: 'person' }] },
      [{ distinct_ids: ['ta_person1'], properties: { email: 'test@posthog.com' } }, { distinct_ids: ['ta_person2'], properties: {} }],
    );
    expect(counts(r)).toEqual([1]);
  });

  it('test_timezones: an event on the previous local day is outside the range', async () => {
    const r = await funnel([ev('user_1', 'user signed up', '2020-01-01T01:00:00Z')], { series: [E('user signed up'), E('paid')], dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' } }, { timezone: 'US/Pacific' });
    expect(r.results).toEqual([]);
  });

  it('test_funnel_exclusions_full_window', async () => {
    const r = await funnel(
      [
        ev('person1', 'user signed up', '2021-05-01T01:00:00Z'),
        ev('person1', 'paid', '2021-05-01T02:00:00Z'),
        ev('person2', 'user signed up', '2021-05-01T01:00:00Z'),
        ev('person2', 'x', '2021-05-01T01:30:00Z'),
        ev('person2', 'paid', '2021-05-01T02:00:00Z'),
        ev('person3', 'user signed up', '2021-05-01T01:00:00Z'),
        ev('person3', 'paid', '2021-05-01T02:00:00Z'),
      ],
      {
        series: [E('user signed up'), E('paid')],
        dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-14 00:00:00' },
        funnelsFilter: { funnelWindowInterval: 14, exclusions: [{ kind: 'EventsNode', event: 'x', funnelFromStep: 0, funnelToStep: 1 }] },
      },
    );
    expect(counts(r)).toEqual([2, 2]);
  });

  it('test_advanced_funnel_with_repeat_steps: each repeated step needs a later event of its own', async () => {
    const pv = (who: string, n: number) => Array.from({ length: n }, (_, i) => ev(who, '$pageview', `2021-05-01T0${i + 1}:00:00Z`));
    const r = await funnel(
      [
        ev('stopped_after_signup1', 'user signed up', '2021-05-01T00:00:00Z'),
        ev('stopped_after_pageview1', 'user signed up', '2021-05-01T00:00:00Z'),
        ...pv('stopped_after_pageview1', 1),
        ev('stopped_after_pageview2', 'user signed up', '2021-05-01T00:00:00Z'),
        ...pv('stopped_after_pageview2', 2),
        ev('stopped_after_pageview3', 'user signed up', '2021-05-01T00:00:00Z'),
        ...pv('stopped_after_pageview3', 3),
        ev('stopped_after_pageview4', 'user signed up', '2021-05-01T00:00:00Z'),
        ...pv('stopped_after_pageview4', 5),
        // pageviews before the sign up do not count (test_advanced_funnel_with_repeat_steps_out_of_order_events)
        ...pv('out_of_order', 3),
        ev('out_of_order', 'user signed up', '2021-05-01T05:00:00Z'),
        ev('out_of_order', '$pageview', '2021-05-01T06:00:00Z'),
      ],
      {
        series: [E('user signed up'), E('$pageview'), E('$pageview'), E('$pageview'), E('$pageview')],
        dateRange: { date_from: '2021-05-01', date_to: '2021-05-10' },
      },
    );
    expect(counts(r)).toEqual([6, 5, 3, 2, 1]);
  });

  // The funnel UDF (aggregate_funnel) has no "strictly later" rule for a repeated step (the legacy SQL's, which
  // reference §3.3 describes): events of one timestamp matching the same steps are processed one after the other, the
  // first reaching step two, the second step three; one event cannot fill both (steps are tried from the last down).
  it('a repeated step at the same timestamp: a second event of that instant is the next step, one event is not two', async () => {
    const q = { series: [E('user signed up'), E('$pageview'), E('$pageview')], dateRange: { date_from: '2021-05-01', date_to: '2021-05-10' } };
    const r = await funnel([ev('u', 'user signed up', '2021-05-01T00:00:00Z'), ev('u', '$pageview', '2021-05-01T01:00:00Z'), ev('u', '$pageview', '2021-05-01T01:00:00Z')], q);
    expect(counts(r)).toEqual([1, 1, 1]);
    // the 0 s conversion to step three counts but has no time (groupArrayIf(timings[i], timings[i] > 0))
    expect(r.results.map((s: any) => s.average_conversion_time)).toEqual([null, 3600, null]);
    expect(r.results.map((s: any) => s.median_conversion_time)).toEqual([null, 3600, null]);
    const single = await funnel([ev('u', 'user signed up', '2021-05-01T00:00:00Z'), ev('u', '$pageview', '2021-05-01T01:00:00Z')], q);
    expect(counts(single)).toEqual([1, 1, 0]);
  });

  it('a repeated first step at one instant: two sign-ups of the same timestamp convert (test_basic_funnel_with_repeat_steps’ events, created moments apart)', async () => {
    const q = { series: [E('user signed up'), E('user signed up')], dateRange: { date_from: '2021-05-01', date_to: '2021-05-10' } };
    const r = await funnel([ev('u', 'user signed up', '2021-05-01T00:00:00Z'), ev('u', 'user signed up', '2021-05-01T00:00:00Z'), ev('v', 'user signed up', '2021-05-01T00:00:00Z')], q);
    expect(counts(r)).toEqual([2, 1]);
    expect(r.results[1].average_conversion_time).toBeNull();
  });

  it('a repeated step at one instant in the other orders, trends, a breakdown and the actors (derived from the funnel UDF as above)', async () => {
    const evs = [
      ev('u', 'user signed up', '2021-05-01T00:00:00Z', { $browser: 'Chrome' }),
      ev('u', '$pageview', '2021-05-01T01:00:00Z', { $browser: 'Chrome' }),
      ev('u', '$pageview', '2021-05-01T01:00:00Z', { $browser: 'Chrome' }),
      ev('w', 'user signed up', '2021-05-01T00:00:00Z', { $browser: 'Safari' }),
      ev('w', '$pageview', '2021-05-01T01:00:00Z', { $browser: 'Safari' }),
    ];
    const pid = await load(evs);
    const q = (extra: Record<string, unknown> = {}) => ({
      kind: 'FunnelsQuery',
      series: [E('user signed up'), E('$pageview'), E('$pageview')],
      dateRange: { date_from: '2021-05-01', date_to: '2021-05-03' },
      ...extra,
    });
    const run = (extra: Record<string, unknown> = {}) => h.run(funnelsRunner, q(extra), pid);
    expect(counts(await run())).toEqual([2, 2, 1]);
    // strict: the two pageviews are consecutive events of u
    expect(counts(await run({ funnelsFilter: { funnelOrderType: 'strict' } }))).toEqual([2, 2, 1]);
    // trends: of the two May 1 entries, u converts
    expect((await run({ funnelsFilter: { funnelVizType: 'trends' } })).results[0].data).toEqual([50, 0, 0]);
    expect(byBreakdown(await run({ breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } }))).toEqual([
      [['Chrome'], [1, 1, 1]],
      [['Safari'], [1, 1, 0]],
    ]);
    expect(await actorNames(pid, { kind: 'FunnelsActorsQuery', source: q(), funnelStep: 3 })).toEqual(['u']);
    expect(await actorNames(pid, { kind: 'FunnelsActorsQuery', source: q(), funnelStep: -3 })).toEqual(['w']);
  });

  it('test_funnel_with_different_actions_at_same_time_count_as_converted: different steps at one timestamp convert', async () => {
    const r = await funnel(
      [ev('u', 'user signed up', '2021-05-01T00:00:00Z'), ev('u', 'paid', '2021-05-01T00:00:00Z')],
      { series: [E('user signed up'), E('paid')], dateRange: { date_from: '2021-05-01', date_to: '2021-05-10' } },
    );
    expect(counts(r)).toEqual([1, 1]);
    // a 0 s conversion is left out of the times (funnel UDF: groupArrayIf(timings[i], timings[i] > 0)): none is left
    expect(r.results[1].average_conversion_time).toBeNull();
    expect(r.results[1].median_conversion_time).toBeNull();
    // strict is a UDF funnel too
    const q = { series: [E('user signed up'), E('paid')], dateRange: { date_from: '2021-05-01', date_to: '2021-05-10' } };
    const same = [ev('u', 'user signed up', '2021-05-01T00:00:00Z'), ev('u', 'paid', '2021-05-01T00:00:00Z'), ev('v', 'user signed up', '2021-05-01T00:00:00Z'), ev('v', 'paid', '2021-05-01T00:01:00Z')];
    const strict = await funnel(same, { ...q, funnelsFilter: { funnelOrderType: 'strict' } });
    expect(strict.results.map((s: any) => [s.count, s.average_conversion_time, s.median_conversion_time])).toEqual([
      [2, null, null],
      [2, 60, 60],
    ]);
    // unordered keeps every time (FunnelUnordered's SQL, which get_funnel_order_class picked whatever use_udf,
    // averages them), a 0 s one between two later steps too
    const later = await funnel(
      [
        ev('u', 'user signed up', '2021-05-01T00:00:00Z'),
        ev('u', 'paid', '2021-05-01T00:01:00Z'),
        ev('u', 'left', '2021-05-01T00:01:00Z'),
        ev('v', 'user signed up', '2021-05-01T00:00:00Z'),
        ev('v', 'paid', '2021-05-01T00:01:00Z'),
        ev('v', 'left', '2021-05-01T00:03:00Z'),
      ],
      { ...q, series: [E('user signed up'), E('paid'), E('left')], funnelsFilter: { funnelOrderType: 'unordered' } },
    );
    expect(later.results.map((s: any) => [s.count, s.average_conversion_time, s.median_conversion_time])).toEqual([
      [2, null, null],
      [2, 60, 60],
      [2, 60, 60],
    ]);
  });

  it('funnelStepReference and layout are display only: the counts do not change', async () => {
    const events = [ev('a', 's1', '2021-05-01T00:00:00Z'), ev('a', 's2', '2021-05-01T01:00:00Z'), ev('b', 's1', '2021-05-01T00:00:00Z')];
    const base = { series: [E('s1'), E('s2')], dateRange: { date_from: '2021-05-01', date_to: '2021-05-10' } };
    const plain = await funnel(events, base);
    const previous = await funnel(events, { ...base, funnelsFilter: { funnelStepReference: 'previous', layout: 'horizontal', hiddenLegendBreakdowns: [] } });
    expect(previous.results).toEqual(plain.results);
  });
});

describe('test_funnel_strict.py (more)', () => {
  it('test_advanced_strict_funnel: the steps must be the consecutive events of the actor', async () => {
    const S = 'user signed up';
    const P = '$pageview';
    const I = 'insight viewed';
    const B = 'blaah blaa';
    const journey = (who: string, events: string[]) => events.map((e, i) => ev(who, e, new Date(Date.parse('2021-05-01T00:00:00Z') + i * 3600_000).toISOString()));
    const r = await funnel(
      [
        ...journey('stopped_after_signup1', [S]),
        ...journey('stopped_after_pageview1', [P, S]),
        ...journey('stopped_after_insightview', [S, P, B, I]),
        ...journey('stopped_after_insightview2', [S, B, P, I]),
        ...journey('stopped_after_insightview3', [S, P, B, P, I]),
        ...journey('stopped_after_insightview4', [S, P, I]),
        ...journey('stopped_after_insightview5', [S, B, S, P, I]),
      ],
      { series: [E(S), E(P), E(I)], dateRange: { date_from: '2021-05-01', date_to: '2021-05-14' }, funnelsFilter: { funnelOrderType: 'strict' } },
    );
    expect(counts(r)).toEqual([7, 4, 2]);
    expect(r.results.map((s: any) => s.name)).toEqual([S, P, I]);
  });

  it('a strict exclusion between steps drops the actor', async () => {
    const r = await funnel(
      [
        ev('a', 's1', '2021-05-01T00:00:00Z'),
        ev('a', 's2', '2021-05-01T01:00:00Z'),
        ev('b', 's1', '2021-05-01T00:00:00Z'),
        ev('b', 'x', '2021-05-01T00:30:00Z'),
        ev('b', 's2', '2021-05-01T01:00:00Z'),
      ],
      {
        series: [E('s1'), E('s2')],
        dateRange: { date_from: '2021-05-01', date_to: '2021-05-14' },
        funnelsFilter: { funnelOrderType: 'strict', exclusions: [{ kind: 'EventsNode', event: 'x', funnelFromStep: 0, funnelToStep: 1 }] },
      },
    );
    expect(counts(r)).toEqual([1, 1]);
  });
});

describe('test_funnel_unordered.py (more)', () => {
  it('test_single_event_unordered_funnel', async () => {
    const r = await funnel([ev('a', 'user signed up', '2021-05-01T00:00:00Z'), ev('b', '$pageview', '2021-05-01T00:00:00Z')], {
      series: [E('user signed up')],
      dateRange: { date_from: '2021-05-01', date_to: '2021-05-14' },
      funnelsFilter: { funnelOrderType: 'unordered' },
    });
    expect(r.results.map((s: any) => [s.name, s.count])).toEqual([['Completed 1 step', 1]]);
  });

  it('test_funnel_exclusions_invalid_params: a partial exclusion on an unordered funnel is a 400', async () => {
    await expect(
      funnel([ev('a', 's1', '2021-05-01T00:00:00Z')], {
        series: [E('s1'), E('s2'), E('s3')],
        dateRange: { date_from: '2021-05-01', date_to: '2021-05-14' },
        funnelsFilter: { funnelOrderType: 'unordered', exclusions: [{ kind: 'EventsNode', event: 'x', funnelFromStep: 0, funnelToStep: 1 }] },
      }),
    ).rejects.toMatchObject({ status: 400, attr: 'funnelsFilter__exclusions__0' });
  });

  it('test_unordered_exclusions: an exclusion inside the window drops the actor; one after completion does not', async () => {
    const r = await funnel(
      [
        ev('a', 's2', '2021-05-01T00:00:00Z'),
        ev('a', 's1', '2021-05-01T01:00:00Z'),
        ev('b', 's1', '2021-05-01T00:00:00Z'),
        ev('b', 'x', '2021-05-01T00:30:00Z'),
        ev('b', 's2', '2021-05-01T01:00:00Z'),
        ev('c', 's1', '2021-05-01T00:00:00Z'),
        ev('c', 's2', '2021-05-01T01:00:00Z'),
        ev('c', 'x', '2021-05-01T02:00:00Z'),
      ],
      {
        series: [E('s1'), E('s2')],
        dateRange: { date_from: '2021-05-01', date_to: '2021-05-14' },
        funnelsFilter: { funnelOrderType: 'unordered', exclusions: [{ kind: 'EventsNode', event: 'x', funnelFromStep: 0, funnelToStep: 1 }] },
      },
    );
    expect(counts(r)).toEqual([2, 2]);
  });
});

// ------------------------------------------------------------------------------------------------ time to convert

describe('test_funnel_time_to_convert.py (more)', () => {
  const q = (ff: Record<string, unknown>) => ({
    series: [E('step one'), E('step two'), E('step three')],
    interval: 'day',
    dateRange: { date_from: '2021-06-07 00:00:00', date_to: '2021-06-13 23:59:59' },
    funnelsFilter: { funnelVizType: 'time_to_convert', funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day', ...ff },
  });
  const ordered = [
    ev('user a', 'step one', '2021-06-08T18:00:00Z'),
    ev('user a', 'step two', '2021-06-08T19:00:00Z'),
    ev('user a', 'step three', '2021-06-08T21:00:00Z'),
    ev('user b', 'step one', '2021-06-09T13:00:00Z'),
    ev('user b', 'step two', '2021-06-09T13:37:00Z'),
    ev('user c', 'step one', '2021-06-11T07:00:00Z'),
    ev('user c', 'step two', '2021-06-12T06:00:00Z'),
  ];
  // Reached step 1 from step 0 in 2220 s (b) and 3600 s (a), 82,800 s (c): cbrt(3) → 2 bins of 40,290 s.
  const autoBins = { bins: [[2220, 2], [42510, 0], [82800, 1]], average_conversion_time: 29540, median_conversion_time: 3600 };

  it('test_auto_bin_count_single_step', async () => {
    expect((await funnel(ordered, q({ funnelToStep: 1 }))).results).toEqual(autoBins);
  });

  it('test_auto_bin_count_single_step_duplicate_events: repeated events do not change the times', async () => {
    const dup = [...ordered, ev('user a', 'step one', '2021-06-08T18:00:00Z'), ev('user b', 'step two', '2021-06-09T13:37:00Z')];
    expect((await funnel(dup, q({ funnelToStep: 1 }))).results).toEqual(autoBins);
  });

  it('test_basic_unordered: the time to the second completed step', async () => {
    const events = [
      ev('user a', 'step three', '2021-06-08T18:00:00Z'),
      ev('user a', 'step one', '2021-06-08T19:00:00Z'),
      ev('user a', 'step two', '2021-06-08T21:00:00Z'),
      ev('user b', 'step two', '2021-06-09T13:00:00Z'),
      ev('user b', 'step one', '2021-06-09T13:37:00Z'),
      ev('user c', 'step one', '2021-06-11T07:00:00Z'),
      ev('user c', 'step two', '2021-06-12T06:00:00Z'),
    ];
    expect((await funnel(events, q({ funnelToStep: 1, funnelOrderType: 'unordered' }))).results).toEqual(autoBins);
  });

  it('test_basic_strict: an event in between leaves user c out', async () => {
    const events = [...ordered.slice(0, 5), ev('user c', 'step one', '2021-06-11T07:00:00Z'), ev('user c', 'blah', '2021-06-11T07:16:00Z'), ev('user c', 'step two', '2021-06-12T06:00:00Z')];
    // two samples (2220, 3600): 2 bins of 690 s
    expect((await funnel(events, q({ funnelToStep: 1, funnelOrderType: 'strict' }))).results).toEqual({
      bins: [
        [2220, 1],
        [2910, 0],
        [3600, 1],
      ],
      average_conversion_time: 2910,
      median_conversion_time: 2910,
    });
  });

  it('a funnelToStep out of range is a 400', async () => {
    await expect(funnel(ordered, q({ funnelToStep: 3 }))).rejects.toMatchObject({ status: 400, attr: 'funnelsFilter__funnelToStep' });
  });
});

describe('unordered breakdown attribution by step ("Any step": each rotation of the steps reads its own step; see compat-5)', () => {
  const events = [
    // a: buy (Safari), then sign up (Chrome)
    ev('a', 'buy', '2020-01-01T12:00:00Z', { $browser: 'Safari' }),
    ev('a', 'sign up', '2020-01-01T13:00:00Z', { $browser: 'Chrome' }),
    ev('b', 'sign up', '2020-01-01T12:00:00Z', { $browser: 'Chrome' }),
    ev('b', 'buy', '2020-01-01T13:00:00Z', { $browser: 'Safari' }),
  ];
  const q = (breakdownAttributionValue: number) => ({
    series: [E('sign up'), E('buy')],
    dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
    funnelsFilter: { funnelOrderType: 'unordered', breakdownAttributionType: 'step', breakdownAttributionValue },
    breakdownFilter: { breakdown: '$browser' },
  });

  it('step 0: Chrome gets the runs starting at a sign-up (b converts), Safari those starting at a buy (a converts)', async () => {
    expect(byBreakdown(await funnel(events, q(0)))).toEqual([
      [['Chrome'], [2, 1]],
      [['Safari'], [2, 1]],
    ]);
  });

  it('step 1 is no error (PostHog reads it over the rotated steps): here the same pairs, mirrored', async () => {
    // rotation 0 (runs from a sign-up) takes the buys' Safari, rotation 1 (runs from a buy) the sign-ups' Chrome
    expect(byBreakdown(await funnel(events, q(1)))).toEqual([
      [['Chrome'], [2, 1]],
      [['Safari'], [2, 1]],
    ]);
  });
});

describe('test_funnel.py: element and property-group filters', () => {
  it('test_funnel_with_elements_chain: an element filter on a step', async () => {
    const chain = (tag: string) => `${tag}.text-class:nth-child="1"nth-of-type="1"`;
    const events = [
      ev('test', 'user signed up', '2020-01-01T12:00:00Z'),
      ev('test', '$autocapture', '2020-01-01T14:00:00Z', { $current_url: 'http://example.com/something_else', $elements_chain: `${chain('img')};${chain('svg')}` }),
      ev('test2', 'user signed up', '2020-01-01T12:00:00Z'),
      ev('test2', '$autocapture', '2020-01-01T14:00:00Z', { $elements_chain: chain('div') }),
    ];
    for (const [tag, expected] of [
      ['img', [2, 1]],
      ['svg', [2, 1]],
      ['div', [2, 1]],
      ['span', [2, 0]],
    ] as const) {
      const r = await funnel(events, {
        series: [E('user signed up'), E('$autocapture', { properties: [{ key: 'tag_name', type: 'element', value: [tag], operator: 'exact' }] })],
        dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
      });
      expect([tag, counts(r)]).toEqual([tag, expected]);
    }
  });

  it('test_funnel_with_property_groups: a global AND/OR group of person properties', async () => {
    const people: Person[] = [
      { distinct_ids: ['stopped_after_signup1'], properties: { email: 'test@posthog.com', age: 50 } },
      { distinct_ids: ['stopped_after_pageview1'], properties: { email: 'test2@posthog.com', age: 20 } },
      { distinct_ids: ['stopped_after_pageview2'], properties: { email: 'test3@fake.com', age: 15 } },
      { distinct_ids: ['not_in_group'], properties: { email: 'x@posthog.com', age: 60 } },
    ];
    const j = (who: string, steps: [string, Record<string, unknown>?][]) => steps.map(([e, p], i) => ev(who, e, `2020-01-0${i + 2}T14:00:00Z`, p ?? {}));
    const events = [
      ...j('stopped_after_signup1', [['user signed up']]),
      ...j('stopped_after_pageview1', [['user signed up'], ['$pageview', { $current_url: 'aloha.com' }]]),
      ...j('stopped_after_pageview2', [['user signed up'], ['$pageview', { $current_url: 'aloha.com' }], ['$pageview', { $current_url: 'aloha2.com' }]]),
      ...j('not_in_group', [['user signed up'], ['$pageview', { $current_url: 'aloha.com' }], ['$pageview', { $current_url: 'aloha2.com' }]]),
    ];
    const url = (v: string) => [{ key: '$current_url', value: v, type: 'event' }];
    const r = await funnel(
      events,
      {
        series: [E('user signed up'), E('$pageview', { properties: url('aloha.com') }), E('$pageview', { properties: url('aloha2.com') })],
        dateRange: { date_from: '2020-01-01 00:00:00', date_to: '2020-07-01 00:00:00' },
        properties: {
          type: 'AND',
          values: [
            {
              type: 'OR',
              values: [
                { key: 'email', type: 'person', value: 'fake.com', operator: 'icontains' },
                { key: 'age', type: 'person', value: '20' },
                { key: 'age', type: 'person', value: '50' },
              ],
            },
          ],
        },
      },
      {},
      people,
    );
    expect(counts(r)).toEqual([3, 2, 1]);
  });
});

describe('test_funnel_prop_filters_per_entity: autocapture action steps with their own property filters', () => {
  const step = (s: Partial<ActionStep>): ActionStep => ({ ...actionStep('$autocapture'), ...s });
  const PAID: ActionDef = { id: 81, name: 'paid', steps: [step({ tag_name: 'button', text: 'Pay $10' }), step({ tag_name: 'a', href: '/payment' })] };
  const MOVIE: ActionDef = { id: 82, name: 'watched movie', steps: [step({ tag_name: 'a', href: '/movie' })] };
  const at = (h: number) => `2020-01-02T${String(h).padStart(2, '0')}:00:00Z`;
  const signup = (who: string, props: Record<string, unknown> = {}) => ev(who, 'user signed up', at(10), props);
  const pay = (who: string, props: Record<string, unknown> = {}) => ev(who, '$autocapture', at(11), { ...props, $elements_chain: elementsToString([{ tag_name: 'button', text: 'Pay $10' }]) });
  const movie = (who: string, props: Record<string, unknown> = {}) => ev(who, '$autocapture', at(12), { ...props, $elements_chain: elementsToString([{ tag_name: 'a', href: '/movie' }]) });

  it('counts 2, 1, 0', async () => {
    const pid = await load([
      signup('with_property', { $browser: 'Safari' }),
      pay('with_property', { $browser: 'Safari' }),
      movie('with_property'),
      // should not add a count
      signup('without_property'),
      pay('without_property'),
      // will add to first step
      signup('half_property', { $browser: 'Safari' }),
      pay('half_property'),
      movie('half_property'),
    ]);
    const r = await h.run(
      funnelsRunner,
      {
        kind: 'FunnelsQuery',
        series: [
          E('user signed up', {
            properties: [
              { key: '$browser', value: 'Safari', type: 'event' },
              { key: '$browser', operator: 'is_not', value: 'Chrome', type: 'event' },
            ],
          }),
          { kind: 'ActionsNode', id: 81, properties: [{ key: '$browser', value: 'Safari', type: 'event' }] },
          { kind: 'ActionsNode', id: 82, properties: [{ key: '$browser', value: 'Firefox', type: 'event' }] },
        ],
        dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
        funnelsFilter: { funnelWindowInterval: 14 },
      },
      pid,
      {},
      actionSource([PAID, MOVIE]),
    );
    expect(r.results.map((s: any) => [s.name, s.count])).toEqual([
      ['user signed up', 2],
      ['paid', 1],
      ['watched movie', 0],
    ]);
  });
});

describe('conversion times by order type (test_basic_strict_funnel_conversion_times, test_basic_unordered_funnel_conversion_times)', () => {
  const S = 'user signed up';
  const P = '$pageview';
  const I = 'insight viewed';
  const events = [
    ev('person1', S, '2021-05-02T00:00:00Z'),
    ev('person2', S, '2021-05-02T00:00:00Z'),
    ev('person2', P, '2021-05-02T01:00:00Z'),
    ev('person3', S, '2021-05-02T00:00:00Z'),
    ev('person3', P, '2021-05-02T01:00:00Z'),
    ev('person3', I, '2021-05-02T03:00:00Z'),
  ];
  it.each(['strict', 'unordered', 'ordered'])('%s', async (funnelOrderType) => {
    const r = await funnel(events, { series: [E(S), E(P), E(I)], dateRange: { date_from: '2021-05-01', date_to: '2021-05-07' }, funnelsFilter: { funnelOrderType } });
    expect(r.results.map((s: any) => [s.count, s.average_conversion_time, s.median_conversion_time])).toEqual([
      [3, null, null],
      [2, 3600, 3600],
      [1, 7200, 7200],
    ]);
  });
});

describe('test_funnel_trends.py: test_steps_performed_in_period_but_in_reverse', () => {
  it('steps done backwards in the period do not convert', async () => {
    const r = await funnel(
      [ev('user_one', 'step three', '2021-05-01T01:00:00Z'), ev('user_one', 'step two', '2021-05-01T02:00:00Z'), ev('user_one', 'step one', '2021-05-01T03:00:00Z')],
      {
        series: STEPS3,
        interval: 'day',
        dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 23:59:59' },
        funnelsFilter: { funnelVizType: 'trends', funnelWindowInterval: 7 },
      },
    );
    expect(r.results).toHaveLength(1);
    expect(r.results[0].data).toEqual([0, 0, 0, 0, 0, 0, 0]);
    expect(r.results[0].count).toBe(7);
  });
});

describe('exclusion nodes are whole EventsNode/ActionsNode (schema FunnelExclusionEventsNode = EventsNode & FunnelExclusionSteps)', () => {
  const base = { kind: 'FunnelsQuery', series: [E('s1'), E('s2')] };
  const parse = (exclusion: Record<string, unknown>) => funnelsRunner.schema.safeParse({ ...base, funnelsFilter: { exclusions: [{ funnelFromStep: 0, funnelToStep: 1, ...exclusion }] } });

  it.each([
    ['an events node with every series field', { kind: 'EventsNode', event: 'x', name: 'x', custom_name: 'X', math: 'total', math_property: null, math_group_type_index: null, limit: 100, orderBy: null, fixedProperties: [] }],
    ['an events node with a legacy id', { kind: 'EventsNode', event: 'x', id: 'x' }],
    ['an actions node', { kind: 'ActionsNode', id: 3, name: 'a' }],
  ])('%s is accepted', (_n, exclusion) => {
    expect(parse(exclusion).success).toBe(true);
  });

  it.each([
    ['an unknown key', { kind: 'EventsNode', event: 'x', bogus: 1 }],
    ['no step range', { kind: 'EventsNode', event: 'x', funnelFromStep: undefined }],
    ['an actions node without id', { kind: 'ActionsNode' }],
    ['another kind', { kind: 'DataWarehouseNode', event: 'x' }],
  ])('%s is refused', (_n, exclusion) => {
    expect(parse(exclusion).success).toBe(false);
  });
});

describe('test_funnel_filter_by_action_with_person_properties', () => {
  it('an action step with a person property filter counts only the persons it matches', async () => {
    const ACTION: ActionDef = { id: 91, name: 'sign up', steps: [actionStep('sign up', [{ key: 'email', type: 'person', operator: 'is_set', value: 'is_set' }])] };
    const pid = await load(
      [
        ev('with_email', 'sign up', '2020-01-02T14:00:00Z'),
        ev('with_email', 'paid', '2020-01-03T14:00:00Z'),
        ev('without_email', 'sign up', '2020-01-02T14:00:00Z'),
        ev('without_email', 'paid', '2020-01-03T14:00:00Z'),
      ],
      [
        { distinct_ids: ['with_email'], properties: { email: 'a@b.com' } },
        { distinct_ids: ['without_email'], properties: {} },
      ],
    );
    const r = await h.run(
      funnelsRunner,
      { kind: 'FunnelsQuery', series: [{ kind: 'ActionsNode', id: 91 }, E('paid')], dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' } },
      pid,
      {},
      actionSource([ACTION]),
    );
    expect(counts(r)).toEqual([1, 1]);
  });
});

describe('exclusion nodes with their own filters (FunnelBase: an exclusion is an entity with its properties, person ones too; derived)', () => {
  const X_ACTION: ActionDef = { id: 92, name: 'x act', steps: [actionStep('xf x')] };
  const events = [
    ...(['xf1', 'xf2', 'xf3'] as const).flatMap((who, i) => [
      ev(who, 'xf a', '2021-05-01T10:00:00Z'),
      ev(who, 'xf x', '2021-05-01T10:30:00Z', { k: i + 1 }),
      ev(who, 'xf b', '2021-05-01T11:00:00Z'),
    ]),
  ];
  const people = [
    { distinct_ids: ['xf1'], properties: { email: 'a@x.com' } },
    { distinct_ids: ['xf2'], properties: { email: 'b@y.com' } },
    { distinct_ids: ['xf3'], properties: {} },
  ];
  const run = async (exclusion: Record<string, unknown>) => {
    const pid = await load(events, people);
    const source = {
      kind: 'FunnelsQuery',
      series: [E('xf a'), E('xf b')],
      dateRange: { date_from: '2021-05-01', date_to: '2021-05-02' },
      funnelsFilter: { exclusions: [{ funnelFromStep: 0, funnelToStep: 1, ...exclusion }] },
    };
    const steps = await h.run(funnelsRunner, source, pid, {}, actionSource([X_ACTION]));
    const actors = await h.run(actorsRunner, { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source, funnelStep: 1 }, select: ['actor'] }, pid, {}, actionSource([X_ACTION]));
    return [counts(steps), (actors.results as any[][]).map((row) => row[0].distinct_ids[0]).sort()];
  };

  it.each<[string, Record<string, unknown>, unknown[]]>([
    ['an event exclusion with a person property filter: only xf1 (x.com) is out', { kind: 'EventsNode', event: 'xf x', properties: [{ type: 'person', key: 'email', operator: 'icontains', value: 'x.com' }] }, [[2, 2], ['xf2', 'xf3']]],
    ['an action exclusion with an event property filter on the node: only xf2 (k 2) is out', { kind: 'ActionsNode', id: 92, properties: [{ type: 'event', key: 'k', operator: 'exact', value: 2 }] }, [[2, 2], ['xf1', 'xf3']]],
    ['the action alone: everyone is out', { kind: 'ActionsNode', id: 92 }, [[], []]],
  ])('%s', async (_n, exclusion, expected) => {
    expect(await run(exclusion)).toEqual(expected);
  });
});
