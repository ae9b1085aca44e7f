import { funnelsRunner, runFunnels } from '../runners/funnels-runner';
import { ev, openHarness, persons, type Harness } from './testing';

let h: Harness;
beforeAll(async () => {
  h = await openHarness();
});
afterAll(async () => {
  await h.close();
});

const E = (event: string, extra: Record<string, unknown> = {}) => ({ kind: 'EventsNode', event, ...extra });
const RANGE = { date_from: '2024-01-01', date_to: '2024-01-31' };

async function funnel(events: ReturnType<typeof ev>[], q: Record<string, unknown>, project: Record<string, unknown> = {}) {
  const ids = [...new Set(events.map((e) => e.distinct_id))];
  const pid = await h.load({ persons: persons(...ids), events });
  return h.run(funnelsRunner, { kind: 'FunnelsQuery', dateRange: RANGE, ...q }, pid, project as any);
}
const counts = (r: any) => (r.results as any[]).map((s) => s.count);

describe('ordered funnels', () => {
  it('counts each actor once at their furthest step, with average and median times in seconds', async () => {
    const r = await funnel(
      [
        ev('a', 'pv', '2024-01-02T10:00:00Z'),
        ev('a', 'signup', '2024-01-02T10:10:00Z'),
        ev('a', 'buy', '2024-01-02T11:10:00Z'),
        ev('b', 'pv', '2024-01-03T10:00:00Z'),
        ev('b', 'signup', '2024-01-03T10:30:00Z'),
        ev('c', 'pv', '2024-01-04T10:00:00Z'),
        ev('d', 'signup', '2024-01-04T10:00:00Z'),
      ],
      { series: [E('pv'), E('signup'), E('buy')] },
    );
    expect(counts(r)).toEqual([3, 2, 1]);
    expect(r.results[0]).toMatchObject({ action_id: 'pv', name: 'pv', order: 0, type: 'events', people: [], average_conversion_time: null });
    expect(r.results[1].average_conversion_time).toBe(1200);
    expect(r.results[1].median_conversion_time).toBe(1200);
    expect(r.results[2].average_conversion_time).toBe(3600);
  });

  it.each([
    ['exactly at the window end converts', '2024-01-02T11:00:00Z', [1, 1]],
    ['one second after the window does not', '2024-01-02T11:00:01Z', [1, 0]],
  ])('window boundary to the second: %s', async (_n, signupAt, expected) => {
    const r = await funnel([ev('a', 'pv', '2024-01-02T10:00:00Z'), ev('a', 'signup', signupAt)], {
      series: [E('pv'), E('signup')],
      funnelsFilter: { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'hour' },
    });
    expect(counts(r)).toEqual(expected);
  });

  it('the window is measured from the first step, not the previous one', async () => {
    const r = await funnel(
      [ev('a', 'pv', '2024-01-02T10:00:00Z'), ev('a', 'signup', '2024-01-02T10:50:00Z'), ev('a', 'buy', '2024-01-02T11:10:00Z')],
      { series: [E('pv'), E('signup'), E('buy')], funnelsFilter: { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'hour' } },
    );
    expect(counts(r)).toEqual([1, 1, 0]);
  });

  it('a conversion after date_to is not seen, even inside the window', async () => {
    const r = await funnel([ev('a', 'pv', '2024-01-31T23:00:00Z'), ev('a', 'signup', '2024-02-01T00:30:00Z')], {
      series: [E('pv'), E('signup')],
    });
    expect(counts(r)).toEqual([1, 0]);
  });

  it('a later re-entry can complete the funnel when the first attempt expired', async () => {
    const r = await funnel(
      [ev('a', 'pv', '2024-01-01T10:00:00Z'), ev('a', 'pv', '2024-01-20T10:00:00Z'), ev('a', 'signup', '2024-01-21T10:00:00Z')],
      { series: [E('pv'), E('signup')] },
    );
    expect(counts(r)).toEqual([1, 1]);
    expect(r.results[1].average_conversion_time).toBe(86400);
  });

  it.each([
    ['one event does not fill two identical steps', [ev('a', 'pv', '2024-01-02T10:00:00Z')], [1, 0]],
    ['two events fill two identical steps', [ev('a', 'pv', '2024-01-02T10:00:00Z'), ev('a', 'pv', '2024-01-02T10:00:05Z')], [1, 1]],
    // funnel UDF: events of one instant matching the same steps are processed one after the other
    ['two events of one instant fill identical steps', [ev('a', 'pv', '2024-01-02T10:00:00Z'), ev('a', 'pv', '2024-01-02T10:00:00Z')], [1, 1]],
    ['one event does not fill two identical steps', [ev('a', 'pv', '2024-01-02T10:00:00Z')], [1, 0]],
  ])('repeated steps: %s', async (_n, events, expected) => {
    const r = await funnel(events, { series: [E('pv'), E('pv')] });
    expect(counts(r)).toEqual(expected);
  });

  it('steps happening out of order do not convert', async () => {
    const r = await funnel([ev('a', 'signup', '2024-01-02T09:00:00Z'), ev('a', 'pv', '2024-01-02T10:00:00Z')], {
      series: [E('pv'), E('signup')],
    });
    expect(counts(r)).toEqual([1, 0]);
  });

  it('step property filters and global properties apply', async () => {
    const r = await funnel(
      [
        ev('a', 'pv', '2024-01-02T10:00:00Z', { plan: 'pro' }),
        ev('a', 'signup', '2024-01-02T10:10:00Z', { plan: 'pro', src: 'ad' }),
        ev('b', 'pv', '2024-01-02T10:00:00Z', { plan: 'free' }),
        ev('b', 'signup', '2024-01-02T10:10:00Z', { plan: 'free' }),
      ],
      {
        series: [E('pv'), E('signup', { properties: [{ type: 'event', key: 'src', operator: 'exact', value: 'ad' }] })],
        properties: [{ type: 'event', key: 'plan', operator: 'is_not', value: 'enterprise' }],
      },
    );
    expect(counts(r)).toEqual([2, 1]);
  });

  it('person-property filters and group aggregation', async () => {
    const pid = await h.load({
      persons: [
        { distinct_ids: ['a'], properties: { plan: 'pro' } },
        { distinct_ids: ['b'], properties: { plan: 'free' } },
      ],
      events: [
        ev('a', 'pv', '2024-01-02T10:00:00Z', { $group_0: 'acme' }),
        ev('a', 'signup', '2024-01-02T10:05:00Z', { $group_0: 'acme' }),
        ev('b', 'pv', '2024-01-02T10:00:00Z', { $group_0: 'acme' }),
        ev('b', 'signup', '2024-01-02T10:01:00Z', { $group_0: 'beta' }),
      ],
    });
    const base = { kind: 'FunnelsQuery', dateRange: RANGE, series: [E('pv'), E('signup')] };
    const pro = await h.run(funnelsRunner, { ...base, properties: [{ type: 'person', key: 'plan', operator: 'exact', value: 'pro' }] }, pid);
    expect(counts(pro)).toEqual([1, 1]);
    // By group: acme entered (pv) and converted (a's signup); beta only has a signup.
    const byGroup = await h.run(funnelsRunner, { ...base, aggregation_group_type_index: 0 }, pid);
    expect(counts(byGroup)).toEqual([1, 1]);
    expect(byGroup.results[1].average_conversion_time).toBe(300);
  });

  it('an empty funnel returns []', async () => {
    const r = await funnel([ev('a', 'signup', '2024-01-02T10:00:00Z')], { series: [E('pv'), E('signup')] });
    expect(r.results).toEqual([]);
  });
});

describe('strict and unordered', () => {
  const events = [ev('a', 'pv', '2024-01-02T10:00:00Z'), ev('a', 'other', '2024-01-02T10:01:00Z'), ev('a', 'signup', '2024-01-02T10:02:00Z')];
  it.each([
    ['ordered ignores the event in between', 'ordered', [1, 1]],
    ['strict breaks on any event in between', 'strict', [1, 0]],
  ])('%s', async (_n, order, expected) => {
    const r = await funnel(events, { series: [E('pv'), E('signup')], funnelsFilter: { funnelOrderType: order } });
    expect(counts(r)).toEqual(expected);
  });

  it('strict converts when the steps are consecutive events', async () => {
    const r = await funnel(
      [ev('a', 'pv', '2024-01-02T10:00:00Z'), ev('a', 'signup', '2024-01-02T10:02:00Z'), ev('a', 'other', '2024-01-02T10:03:00Z')],
      { series: [E('pv'), E('signup')], funnelsFilter: { funnelOrderType: 'strict' } },
    );
    expect(counts(r)).toEqual([1, 1]);
  });

  it('unordered counts completed steps in any order, named "Completed N steps"', async () => {
    const r = await funnel(
      [
        ev('a', 'buy', '2024-01-02T10:00:00Z'),
        ev('a', 'signup', '2024-01-02T10:05:00Z'),
        ev('a', 'pv', '2024-01-02T10:10:00Z'),
        ev('b', 'signup', '2024-01-02T10:00:00Z'),
      ],
      { series: [E('pv'), E('signup'), E('buy')], funnelsFilter: { funnelOrderType: 'unordered' } },
    );
    expect(counts(r)).toEqual([2, 1, 1]);
    expect(r.results.map((s: any) => s.name)).toEqual(['Completed 1 step', 'Completed 2 steps', 'Completed 3 steps']);
    expect(r.results[0].action_id).toBeNull();
    expect(r.results[2].average_conversion_time).toBe(300);
  });

  it('ordered would not complete the same out-of-order sequence', async () => {
    const r = await funnel(
      [ev('a', 'buy', '2024-01-02T10:00:00Z'), ev('a', 'signup', '2024-01-02T10:05:00Z'), ev('a', 'pv', '2024-01-02T10:10:00Z')],
      { series: [E('pv'), E('signup'), E('buy')] },
    );
    expect(counts(r)).toEqual([1, 0, 0]);
  });
});

describe('exclusions', () => {
  const ex = (event: string, from: number, to: number) => ({ kind: 'EventsNode', event, funnelFromStep: from, funnelToStep: to });
  it.each([
    ['between the steps drops the actor', [ev('a', 'pv', '2024-01-02T10:00:00Z'), ev('a', 'x', '2024-01-02T10:01:00Z'), ev('a', 'signup', '2024-01-02T10:02:00Z')], []],
    ['before the first step is ignored', [ev('a', 'x', '2024-01-02T09:00:00Z'), ev('a', 'pv', '2024-01-02T10:00:00Z'), ev('a', 'signup', '2024-01-02T10:02:00Z')], [1, 1]],
    ['after the to-step is ignored', [ev('a', 'pv', '2024-01-02T10:00:00Z'), ev('a', 'signup', '2024-01-02T10:02:00Z'), ev('a', 'x', '2024-01-02T10:03:00Z')], [1, 1]],
    ['inside the window without the to-step drops the actor', [ev('a', 'pv', '2024-01-02T10:00:00Z'), ev('a', 'x', '2024-01-02T10:03:00Z')], []],
  ])('an exclusion %s', async (_n, events, expected) => {
    const r = await funnel(events, { series: [E('pv'), E('signup')], funnelsFilter: { exclusions: [ex('x', 0, 1)] } });
    expect(r.results.length ? counts(r) : []).toEqual(expected);
  });

  it('an exclusion only covers its own step range', async () => {
    const events = [
      ev('a', 'pv', '2024-01-02T10:00:00Z'),
      ev('a', 'signup', '2024-01-02T10:01:00Z'),
      ev('a', 'x', '2024-01-02T10:02:00Z'),
      ev('a', 'buy', '2024-01-02T10:03:00Z'),
      ev('b', 'pv', '2024-01-02T10:00:00Z'),
      ev('b', 'signup', '2024-01-02T10:01:00Z'),
      ev('b', 'buy', '2024-01-02T10:03:00Z'),
    ];
    const first = await funnel(events, { series: [E('pv'), E('signup'), E('buy')], funnelsFilter: { exclusions: [ex('x', 0, 1)] } });
    expect(counts(first)).toEqual([2, 2, 2]);
    const second = await funnel(events, { series: [E('pv'), E('signup'), E('buy')], funnelsFilter: { exclusions: [ex('x', 1, 2)] } });
    expect(counts(second)).toEqual([1, 1, 1]);
  });

  it.each([
    ['a partial range in an unordered funnel', { funnelOrderType: 'unordered', exclusions: [ex('x', 0, 1)] }],
    ['from >= to', { exclusions: [ex('x', 1, 1)] }],
    ['a step event as exclusion', { exclusions: [ex('signup', 0, 1)] }],
    ['a range past the last step', { exclusions: [ex('x', 0, 3)] }],
  ])('400 for %s', async (_n, funnelsFilter) => {
    await expect(
      funnel([ev('a', 'pv', '2024-01-02T10:00:00Z')], { series: [E('pv'), E('signup'), E('buy')], funnelsFilter }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('unordered exclusions span the whole funnel', async () => {
    const r = await funnel(
      [
        ev('a', 'signup', '2024-01-02T10:00:00Z'),
        ev('a', 'x', '2024-01-02T10:01:00Z'),
        ev('a', 'pv', '2024-01-02T10:02:00Z'),
        ev('b', 'signup', '2024-01-02T10:00:00Z'),
        ev('b', 'pv', '2024-01-02T10:02:00Z'),
      ],
      { series: [E('pv'), E('signup')], funnelsFilter: { funnelOrderType: 'unordered', exclusions: [ex('x', 0, 1)] } },
    );
    expect(counts(r)).toEqual([1, 1]);
  });
});

describe('breakdowns and attribution', () => {
  // a: pv (Chrome) → signup (Safari); b: pv (Firefox) → signup (no browser)
  const events = [
    ev('a', 'pv', '2024-01-02T10:00:00Z', { $browser: 'Chrome' }),
    ev('a', 'signup', '2024-01-02T10:05:00Z', { $browser: 'Safari' }),
    ev('b', 'pv', '2024-01-03T10:00:00Z', { $browser: 'Firefox' }),
    ev('b', 'signup', '2024-01-03T10:05:00Z'),
    ev('c', 'pv', '2024-01-03T10:00:00Z'),
  ];
  const shape = (r: any) => Object.fromEntries((r.results as any[][]).map((steps) => [JSON.stringify(steps[0].breakdown_value), steps.map((s) => s.count)]));
  it.each([
    ['first_touch', {}, { '["Chrome"]': [1, 1], '["Firefox"]': [1, 1], '[""]': [1, 0] }],
    ['last_touch', {}, { '["Safari"]': [1, 1], '["Firefox"]': [1, 1], '[""]': [1, 0] }],
    ['all_events', {}, { '["Chrome"]': [1, 0], '["Safari"]': [0, 0], '["Firefox"]': [1, 0], '[""]': [1, 0] }],
    // c never reaches the attribution step: counted under "".
    ['step', { breakdownAttributionValue: 1 }, { '["Safari"]': [1, 1], '[""]': [2, 1] }],
  ])('%s', async (type, extra, expected) => {
    const r = await funnel(events, {
      series: [E('pv'), E('signup')],
      breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' },
      funnelsFilter: { breakdownAttributionType: type, ...extra },
    });
    const got = shape(r);
    // all_events: an actor is counted under every value; a value seen only on a later step has no entry.
    if (type === 'all_events') delete (expected as any)['["Safari"]'];
    expect(got).toEqual(expected);
    expect(r.results[0][0].breakdown).toEqual(r.results[0][0].breakdown_value);
  });

  it('orders values by last-step count and groups the rest as ["Other"]', async () => {
    const r = await funnel(
      [
        ev('a', 'pv', '2024-01-02T10:00:00Z', { $browser: 'Chrome' }),
        ev('b', 'pv', '2024-01-02T10:00:00Z', { $browser: 'Safari' }),
        ev('b', 'signup', '2024-01-02T10:01:00Z'),
        ev('c', 'pv', '2024-01-02T10:00:00Z', { $browser: 'Edge' }),
      ],
      { series: [E('pv'), E('signup')], breakdownFilter: { breakdown: '$browser', breakdown_limit: 1 } },
    );
    expect(r.results.map((s: any[]) => [s[0].breakdown_value, s.map((x) => x.count)])).toEqual([
      [['Safari'], [1, 1]],
      [['Other'], [2, 0]],
    ]);
  });

  it('multi-property breakdowns are boxed arrays', async () => {
    const r = await funnel([ev('a', 'pv', '2024-01-02T10:00:00Z', { $browser: 'Chrome', $os: 'Mac OS X' })], {
      series: [E('pv'), E('signup')],
      breakdownFilter: { breakdown_type: 'event', breakdown: ['$browser', '$os'] },
    });
    expect(r.results[0][0].breakdown_value).toEqual(['Chrome', 'Mac OS X']);
  });
});

describe('visualisations', () => {
  it('trends: conversion rate per entrance period, zero-filled', async () => {
    const r = await funnel(
      [
        ev('a', 'pv', '2024-01-02T10:00:00Z'),
        ev('a', 'signup', '2024-01-02T10:05:00Z'),
        ev('b', 'pv', '2024-01-02T11:00:00Z'),
        ev('c', 'pv', '2024-01-04T11:00:00Z'),
        ev('c', 'signup', '2024-01-05T11:00:00Z'),
      ],
      { series: [E('pv'), E('signup')], dateRange: { date_from: '2024-01-01', date_to: '2024-01-05' }, funnelsFilter: { funnelVizType: 'trends' } },
    );
    expect(r.results).toHaveLength(1);
    expect(r.results[0].data).toEqual([0, 50, 0, 100, 0]);
    expect(r.results[0].days).toEqual(['2024-01-01', '2024-01-02', '2024-01-03', '2024-01-04', '2024-01-05']);
    expect(r.results[0].labels[0]).toBe('1-Jan-2024');
    expect(r.results[0].count).toBe(5);
  });

  it('time_to_convert: histogram bins with empty bins, average and median', async () => {
    const r = await funnel(
      [
        ev('a', 'pv', '2024-01-02T10:00:00Z'),
        ev('a', 'signup', '2024-01-02T10:00:10Z'),
        ev('b', 'pv', '2024-01-02T10:00:00Z'),
        ev('b', 'signup', '2024-01-02T10:00:20Z'),
        ev('c', 'pv', '2024-01-02T10:00:00Z'),
        ev('c', 'signup', '2024-01-02T10:01:10Z'),
      ],
      { series: [E('pv'), E('signup')], funnelsFilter: { funnelVizType: 'time_to_convert', binCount: 3 } },
    );
    expect(r.results.bins).toEqual([
      [10, 2],
      [30, 0],
      [50, 0],
      [70, 1],
    ]);
    // rounded to 2 dp (PostHog funnel_time_to_convert.py histogram_params: round(avg(...), 2))
    expect(r.results.average_conversion_time).toBe(33.33);
    expect(r.results.median_conversion_time).toBe(20);
  });

  it('DST inside a conversion: times are real elapsed seconds; buckets are local days', async () => {
    // Europe/Berlin springs forward at 2024-03-31 02:00 local.
    const r = await funnel(
      [ev('a', 'pv', '2024-03-30T23:30:00Z'), ev('a', 'signup', '2024-03-31T01:30:00Z')],
      { series: [E('pv'), E('signup')], dateRange: { date_from: '2024-03-30', date_to: '2024-04-01' } },
      { timezone: 'Europe/Berlin' },
    );
    expect(counts(r)).toEqual([1, 1]);
    expect(r.results[1].average_conversion_time).toBe(7200);
    const t = await funnel(
      [ev('b', 'pv', '2024-03-30T23:30:00Z'), ev('b', 'signup', '2024-03-31T01:30:00Z')],
      { series: [E('pv'), E('signup')], dateRange: { date_from: '2024-03-30', date_to: '2024-04-01' }, funnelsFilter: { funnelVizType: 'trends' } },
      { timezone: 'Europe/Berlin' },
    );
    // 23:30 UTC on the 30th is 00:30 on the 31st in Berlin.
    expect(t.results[0].data).toEqual([0, 100, 0]);
  });
});

describe('optional steps and step reference', () => {
  it('an optional step counts only actors who did it; later steps still convert without it', async () => {
    const r = await funnel(
      [
        ev('a', 'pv', '2024-01-02T10:00:00Z'),
        ev('a', 'tour', '2024-01-02T10:01:00Z'),
        ev('a', 'signup', '2024-01-02T10:02:00Z'),
        ev('b', 'pv', '2024-01-02T10:00:00Z'),
        ev('b', 'signup', '2024-01-02T10:02:00Z'),
      ],
      { series: [E('pv'), E('tour', { optionalInFunnel: true }), E('signup')], funnelsFilter: { funnelStepReference: 'previous' } },
    );
    expect(counts(r)).toEqual([2, 1, 2]);
    expect(r.results[2].average_conversion_time).toBe(90);
  });

  // (first_time_for_user step math is supported: funnels-posthog-compat.test.ts, reference §3.3 "First-time math"; other
  // step math such as dau is ignored, as PostHog's test_funnel_with_actions: funnels-posthog-compat-2.test.ts)
  it('400: an action step whose action does not exist', async () => {
    await expect(funnel([ev('a', 'pv', '2024-01-02T10:00:00Z')], { series: [{ kind: 'ActionsNode', id: 1 }, E('signup')] })).rejects.toMatchObject({ status: 400 });
  });

  it('400 when the first step is optional', async () => {
    await expect(funnel([ev('a', 'pv', '2024-01-02T10:00:00Z')], { series: [E('pv', { optionalInFunnel: true }), E('signup')] })).rejects.toMatchObject({
      status: 400,
    });
  });
});

describe('the SQL-only ordered path agrees with the per-actor evaluation', () => {
  // Deterministic pseudo-random events with many equal timestamps (whole minutes) and repeated steps.
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const names = ['pv', 'signup', 'buy', 'other'];
  const events: ReturnType<typeof ev>[] = [];
  for (let p = 0; p < 40; p++)
    for (let i = 0, n = 1 + Math.floor(rnd() * 14); i < n; i++) {
      const at = new Date(Date.UTC(2024, 0, 2 + Math.floor(rnd() * 5), 10, Math.floor(rnd() * 90))).toISOString();
      const browser = ['Chrome', 'Safari', 'Edge', '', null][Math.floor(rnd() * 5)];
      events.push(ev(`p${p}`, names[Math.floor(rnd() * (i % 3 === 0 ? 2 : 4))], at, browser === null ? {} : { $browser: browser }));
    }
  let pid: number;
  beforeAll(async () => {
    pid = await h.load({ persons: persons(...new Set(events.map((e) => e.distinct_id))), events });
  });
  it.each([
    [['pv', 'signup'], 1, 'hour', null],
    [['pv', 'signup', 'buy'], 14, 'day', null],
    [['pv', 'signup', 'buy'], 30, 'minute', null],
    [['signup', 'pv', 'buy', 'other'], 1, 'day', null],
    [['pv', 'signup', 'buy'], 14, 'day', 'first_touch'],
    [['pv', 'signup'], 2, 'hour', 'last_touch'],
    [['pv', 'signup', 'buy'], 1, 'day', 'trends'],
    [['pv', 'signup', 'buy'], 14, 'day', 'trends-week'],
  ])('%j within %d %s, breakdown attribution %s', async (steps, n, unit, attribution) => {
    if (attribution?.startsWith('trends')) {
      const node = funnelsRunner.schema.parse({
        kind: 'FunnelsQuery',
        dateRange: RANGE,
        interval: attribution === 'trends' ? 'day' : 'week',
        series: steps.map((s) => E(s)),
        funnelsFilter: { funnelWindowInterval: n, funnelWindowIntervalUnit: unit, funnelVizType: 'trends', funnelFromStep: 1, funnelToStep: 2 },
      });
      const ctxOf = async () => {
        const captured: any = {};
        await h.run({ ...funnelsRunner, run: async (_n: unknown, ctx: unknown) => Object.assign(captured, { ctx }) } as any, node, pid, { timezone: 'America/New_York' } as any);
        return captured.ctx;
      };
      const fast: any = await runFunnels(node, await ctxOf());
      const general: any = await runFunnels(node, await ctxOf(), { forceGeneral: true });
      // (ClickHouse has no SQL-only path: both are the per-actor evaluation there)
      if (h.kind === 'duckdb') expect(fast.hogql).not.toEqual(general.hogql);
      expect(fast.results).toEqual(general.results);
      expect(general.results[0].data.some((x: number) => x > 0 && x < 100)).toBe(true);
      return;
    }
    const node = funnelsRunner.schema.parse({
      kind: 'FunnelsQuery',
      dateRange: RANGE,
      series: steps.map((s) => E(s)),
      funnelsFilter: { funnelWindowInterval: n, funnelWindowIntervalUnit: unit, ...(attribution ? { breakdownAttributionType: attribution } : {}) },
      ...(attribution ? { breakdownFilter: { breakdown: '$browser', breakdown_limit: 2 } } : {}),
    });
    const ctxFor = async () => {
      const captured: any = {};
      await h.run({ ...funnelsRunner, run: async (_n: unknown, ctx: unknown) => Object.assign(captured, { ctx }) } as any, node, pid);
      return captured.ctx;
    };
    const fast: any = await runFunnels(node, await ctxFor());
    const general: any = await runFunnels(node, await ctxFor(), { forceGeneral: true });
    // The steps viz finds its starts by ASOF joins on DuckDB; the window-pass form must give the same answer.
    const windowed: any = await runFunnels(node, await ctxFor(), { forceWindowPasses: true });
    if (h.kind === 'duckdb') expect(fast.hogql).toMatch(/ASOF/);
    expect(windowed.hogql).not.toMatch(/ASOF/);
    const flat = (r: any) => (attribution ? r.results : [r.results]).flat();
    expect(flat(windowed).map((x: any) => [x.breakdown_value, x.count])).toEqual(flat(fast).map((x: any) => [x.breakdown_value, x.count]));
    flat(windowed).forEach((x: any, i: number) => {
      for (const k of ['average_conversion_time', 'median_conversion_time'])
        if (x[k] === null) expect(flat(fast)[i][k]).toBeNull();
        else expect(flat(fast)[i][k]).toBeCloseTo(x[k], 6);
    });
    if (h.kind === 'duckdb') expect(fast.hogql).not.toEqual(general.hogql);
    const groupsF: any[][] = attribution ? fast.results : [fast.results];
    const groupsG: any[][] = attribution ? general.results : [general.results];
    if (attribution) expect(groupsF.map((g) => g[0].breakdown_value)).toEqual(groupsG.map((g) => g[0].breakdown_value));
    if (attribution) expect(groupsG.length).toBe(3);
    expect(groupsF.map((g) => g.map((s: any) => s.count))).toEqual(groupsG.map((g) => g.map((s: any) => s.count)));
    expect(groupsG[0][1].count).toBeGreaterThan(0);
    expect(groupsG[0][1].count).toBeLessThan(groupsG[0][0].count);
    groupsF.forEach((g, gi) =>
      g.forEach((s: any, i: number) => {
        for (const k of ['average_conversion_time', 'median_conversion_time']) {
          if (groupsG[gi][i][k] === null) expect(s[k]).toBeNull();
          else expect(s[k]).toBeCloseTo(groupsG[gi][i][k], 6);
        }
      }),
    );
  });
});

describe('ordered funnel semantics the SQL paths must keep (ClickHouse: per-actor arrays of millisecond keys)', () => {
  const ms = (s: string) => `2024-01-02T10:00:${s}Z`;
  async function both(events: ReturnType<typeof ev>[], q: Record<string, unknown>) {
    const ids = [...new Set(events.map((e) => e.distinct_id))];
    const pid = await h.load({ persons: persons(...ids), events });
    const node = funnelsRunner.schema.parse({ kind: 'FunnelsQuery', dateRange: RANGE, ...q });
    const captured: any = {};
    await h.run({ ...funnelsRunner, run: async (_n: unknown, ctx: unknown) => Object.assign(captured, { ctx }) } as any, node, pid);
    const fast: any = await runFunnels(node, captured.ctx);
    const general: any = await runFunnels(node, captured.ctx, { forceGeneral: true });
    // The SQL path is taken on both engines (ClickHouse: arrays, DuckDB: ASOF joins).
    expect(fast.hogql).not.toEqual(general.hogql);
    // ClickHouse works in integer milliseconds, DuckDB's SQL path rounds its float-second differences to whole
    // milliseconds: both identical to the per-actor evaluation (0.1, not 0.0999999).
    expect(fast.results).toEqual(general.results);
    const flat = (r: any) => (Array.isArray(r.results[0]) ? r.results.flat() : r.results);
    const strip = (r: any) => flat(r).map(({ average_conversion_time: _a, median_conversion_time: _m, ...rest }: any) => rest);
    expect(strip(fast)).toEqual(strip(general));
    flat(general).forEach((x: any, i: number) => {
      for (const k of ['average_conversion_time', 'median_conversion_time'])
        if (x[k] === null) expect(flat(fast)[i][k]).toBeNull();
        else expect(flat(fast)[i][k]).toBeCloseTo(x[k], 6);
    });
    return fast;
  }

  it.each([
    ['sub-second order inside one second: signup 100 ms before the pageview does not convert', [ev('a', 'pv', ms('00.900')), ev('a', 'signup', ms('00.100'))], [1, 0], null],
    ['sub-second order inside one second: signup 1 ms after converts, 0.001 s', [ev('a', 'pv', ms('00.100')), ev('a', 'signup', ms('00.101'))], [1, 1], 0.001],
    // (a 0 s conversion has no time: the UDF's groupArrayIf(timings[i], timings[i] > 0))
    ['equal timestamps: the later step may share the time of the earlier one', [ev('a', 'signup', ms('05.250')), ev('a', 'pv', ms('05.250'))], [1, 1], null],
    ['a 0 s conversion beside a 10 s one: both count, the times are the 10 s alone', [ev('a', 'pv', ms('05.250')), ev('a', 'signup', ms('05.250')), ev('b', 'pv', ms('00.000')), ev('b', 'signup', ms('10.000'))], [2, 2], 10],
  ])('%s', async (_n, events, expected, time) => {
    const r = await both(events, { series: [E('pv'), E('signup')] });
    expect(counts(r)).toEqual(expected);
    expect(r.results[1].average_conversion_time).toBe(time);
    expect(r.results[1].median_conversion_time).toBe(time);
  });

  it.each([
    ['exactly at the window end (to the millisecond) converts', '2024-01-02T10:00:10.250Z', [1, 1, 1]],
    ['one millisecond after the window end does not', '2024-01-02T10:00:10.251Z', [1, 1, 0]],
  ])('window boundary in milliseconds: %s', async (_n, buyAt, expected) => {
    const r = await both([ev('a', 'pv', '2024-01-02T10:00:00.250Z'), ev('a', 'signup', '2024-01-02T10:00:03.000Z'), ev('a', 'buy', buyAt)], {
      series: [E('pv'), E('signup'), E('buy')],
      funnelsFilter: { funnelWindowInterval: 10, funnelWindowIntervalUnit: 'second' },
    });
    expect(counts(r)).toEqual(expected);
  });

  // A start exactly the window before its step 1 converts, one millisecond earlier it does not (ClickHouse compares
  // millisecond keys: key <= start + window * 64 + 63), with or without step filters; an actor with steps 1 and 2
  // but no step 0 (b) is in no step.
  it.each([
    ['a start exactly the window before the first step 1 converts', '2024-01-02T09:59:50.000Z', false, [1, 1, 1]],
    ['a start one millisecond earlier does not', '2024-01-02T09:59:49.999Z', false, [1, 0, 0]],
    ['the same with a property filter on a step', '2024-01-02T09:59:50.000Z', true, [1, 1, 1]],
    ['the same one millisecond earlier', '2024-01-02T09:59:49.999Z', true, [1, 0, 0]],
  ])('step-0 keys out of reach are dropped: %s', async (_n, pvAt, filtered, expected) => {
    const src = { src: 'ad' };
    const r = await both(
      [
        ev('a', 'pv', pvAt),
        ev('a', 'buy', '2024-01-02T09:59:55Z', src),
        ev('a', 'signup', '2024-01-02T10:00:00Z', src),
        ev('a', 'buy', '2024-01-02T10:00:00Z', src),
        ev('a', 'signup', '2024-01-02T10:00:02Z', src),
        ev('a', 'pv', '2024-01-02T10:00:05Z'),
        ev('b', 'signup', '2024-01-02T10:00:00Z', src),
        ev('b', 'buy', '2024-01-02T10:00:01Z', src),
      ],
      {
        series: [E('pv'), E('signup', filtered ? { properties: [{ type: 'event', key: 'src', operator: 'exact', value: 'ad' }] } : {}), E('buy')],
        funnelsFilter: { funnelWindowInterval: 10, funnelWindowIntervalUnit: 'second' },
      },
    );
    expect(counts(r)).toEqual(expected);
    if (expected[1]) expect(r.results[1].average_conversion_time).toBe(10);
  });

  it('the latest entry before a conversion wins; an expired earlier entry and a later retry do not change the times', async () => {
    const r = await both(
      [
        ev('a', 'pv', '2024-01-02T08:00:00Z'),
        ev('a', 'pv', '2024-01-02T10:00:00Z'),
        ev('a', 'pv', '2024-01-02T10:30:00Z'),
        ev('a', 'signup', '2024-01-02T10:45:00Z'),
        ev('a', 'signup', '2024-01-02T10:50:00Z'),
        ev('a', 'buy', '2024-01-02T11:20:00Z'),
        ev('a', 'pv', '2024-01-02T12:00:00Z'),
        ev('b', 'signup', '2024-01-02T09:00:00Z'),
        ev('b', 'pv', '2024-01-02T09:30:00Z'),
        ev('b', 'buy', '2024-01-02T09:40:00Z'),
      ],
      { series: [E('pv'), E('signup'), E('buy')], funnelsFilter: { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'hour' } },
    );
    expect(counts(r)).toEqual([2, 1, 1]);
    expect(r.results[1].average_conversion_time).toBe(900);
    expect(r.results[2].average_conversion_time).toBe(2100);
  });

  it('two entries reaching the last step at the same event: the later entry wins; later steps alone are in no step', async () => {
    const r = await both(
      [
        ev('a', 'pv', '2024-01-02T10:00:00Z'),
        ev('a', 'signup', '2024-01-02T10:05:00Z'),
        ev('a', 'pv', '2024-01-02T10:10:00Z'),
        ev('a', 'signup', '2024-01-02T10:20:00Z'),
        ev('a', 'buy', '2024-01-02T10:30:00Z'),
        ev('a', 'buy', '2024-01-02T10:40:00Z'),
        ev('c', 'signup', '2024-01-02T10:00:00Z'),
        ev('c', 'buy', '2024-01-02T10:01:00Z'),
      ],
      { series: [E('pv'), E('signup'), E('buy')], funnelsFilter: { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'hour' } },
    );
    expect(counts(r)).toEqual([1, 1, 1]);
    expect(r.results[1].average_conversion_time).toBe(600);
    expect(r.results[2].average_conversion_time).toBe(600);
  });

  it('first/last touch with several values per actor, in a project timezone', async () => {
    const events = [
      ev('a', 'pv', '2024-01-02T10:00:00.500Z', { $browser: 'Chrome' }),
      ev('a', 'signup', '2024-01-02T10:00:00.600Z', { $browser: 'Safari' }),
      ev('b', 'pv', '2024-01-02T10:00:00Z'),
      ev('b', 'signup', '2024-01-02T10:00:01Z', { $browser: 'Edge' }),
      ev('c', 'pv', '2024-01-02T10:00:00Z', { $browser: 'Chrome' }),
    ];
    for (const attribution of ['first_touch', 'last_touch'])
      await both(events, {
        series: [E('pv'), E('signup')],
        breakdownFilter: { breakdown: '$browser', breakdown_limit: 1 },
        funnelsFilter: { breakdownAttributionType: attribution },
      });
  });
});
