import { createInsightTestDb, type InsightTestDb } from '../insights/testing';
import { setInsightsClock } from '../insights/date-range';
import { BREAKDOWN_NULL as NULL_V, BREAKDOWN_OTHER as OTHER } from '../insights/breakdown';
import { trendsRunner } from './trends-runner';
import { zodToUserError } from '../../validation';

/**
 * Project 1 (UTC), now = Mon 2024-01-08 12:00. $pageview per day over -7d (Jan 1..8) = [2,1,1,0,1,0,0,1]:
 *  Jan 1 10:00 u1 Chrome price 10 s1 | Jan 1 11:00 u1 Chrome 20 s1 | Jan 2 u2 Safari "5" s2 | Jan 3 u3 $browser ''
 *  Jan 5 u2 Safari | Jan 8 09:00 u1 Firefox 30 | signup Jan 3 u2 | before the range: Dec 28 u1 Chrome, Dec 26 u3 Opera.
 * Persons: u1 plan=pro, u2 plan=free, u3 none.
 */
let db: InsightTestDb;
let restore: () => void;
beforeAll(async () => {
  db = await createInsightTestDb();
  restore = setInsightsClock(new Date('2024-01-08T12:00:00Z'));
  const pv = (distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}) => ({ event: '$pageview', distinct_id, timestamp, properties });
  await db.load(1, {
    persons: [
      { distinct_ids: ['u1'], properties: { plan: 'pro' }, created_at: '2023-12-01T00:00:00Z' },
      { distinct_ids: ['u2'], properties: { plan: 'free' }, created_at: '2023-12-01T00:00:00Z' },
      { distinct_ids: ['u3'], properties: {}, created_at: '2023-12-01T00:00:00Z' },
    ],
    events: [
      pv('u1', '2024-01-01T10:00:00Z', { $browser: 'Chrome', price: 10, $session_id: 's1' }),
      pv('u1', '2024-01-01T11:00:00Z', { $browser: 'Chrome', price: 20, $session_id: 's1' }),
      pv('u2', '2024-01-02T10:00:00Z', { $browser: 'Safari', price: '5', $session_id: 's2' }),
      pv('u3', '2024-01-03T10:00:00Z', { $browser: '' }),
      { event: 'signup', distinct_id: 'u2', timestamp: '2024-01-03T12:00:00Z', properties: {} },
      pv('u2', '2024-01-05T10:00:00Z', { $browser: 'Safari' }),
      pv('u1', '2024-01-08T09:00:00Z', { $browser: 'Firefox', price: 30 }),
      pv('u1', '2023-12-28T10:00:00Z', { $browser: 'Chrome' }),
      pv('u3', '2023-12-26T10:00:00Z', { $browser: 'Opera' }),
    ],
  });
  // Project 2 (Europe/Berlin; DST starts 2024-03-31): local Mar 31 00:30, Mar 31 23:30, Apr 1 00:30.
  await db.load(2, {
    events: [
      { event: 'e', distinct_id: 'b1', timestamp: '2024-03-30T23:30:00Z' },
      { event: 'e', distinct_id: 'b1', timestamp: '2024-03-31T21:30:00Z' },
      { event: 'e', distinct_id: 'b1', timestamp: '2024-03-31T22:30:00Z' },
    ],
  });
  // Project 3: Sunday 2024-01-07 and Monday 2024-01-08.
  await db.load(3, {
    events: [
      { event: 'e', distinct_id: 'w', timestamp: '2024-01-07T10:00:00Z' },
      { event: 'e', distinct_id: 'w', timestamp: '2024-01-08T10:00:00Z' },
    ],
  });
});
afterAll(async () => {
  restore();
  await db.close();
});

const PV = { kind: 'EventsNode', event: '$pageview' };
const SIGNUP = { kind: 'EventsNode', event: 'signup' };
const trends = (q: Record<string, unknown>, project = 1, settings: Record<string, unknown> = {}) =>
  db.run(trendsRunner, { kind: 'TrendsQuery', dateRange: { date_from: '-7d' }, ...q }, project, settings);

describe('time series basics', () => {
  it('-7d daily: 8 buckets, days, labels, float count, label, action', async () => {
    const r = await trends({ series: [PV] });
    expect(r.results).toHaveLength(1);
    const s = r.results[0];
    expect(s.data).toEqual([2, 1, 1, 0, 1, 0, 0, 1]);
    expect(s.days).toEqual(['2024-01-01', '2024-01-02', '2024-01-03', '2024-01-04', '2024-01-05', '2024-01-06', '2024-01-07', '2024-01-08']);
    expect(s.labels[0]).toBe('1-Jan-2024');
    expect(s.count).toBe(6);
    expect(s.label).toBe('$pageview');
    expect(s.action).toMatchObject({ id: '$pageview', type: 'events', order: 0, math: 'total' });
    expect(s.breakdown_value).toBeUndefined();
    expect(r.resolved_date_range).toEqual({ date_from: '2024-01-01T00:00:00Z', date_to: '2024-01-08T23:59:59.999999Z' });
  });

  it('all events (event: null) are labelled "All events"', async () => {
    const r = await trends({ series: [{ kind: 'EventsNode', event: null }] });
    expect(r.results[0]).toMatchObject({ label: 'All events', data: [2, 1, 2, 0, 1, 0, 0, 1], count: 7 });
  });

  it('several series come back in series order; custom_name goes to action', async () => {
    const r = await trends({ series: [SIGNUP, { ...PV, custom_name: 'Views' }] });
    expect(r.results.map((x: any) => x.label)).toEqual(['signup', '$pageview']);
    expect(r.results[1].action).toMatchObject({ custom_name: 'Views', order: 1 });
  });

  it('no data, no breakdown → a zero series', async () => {
    const r = await trends({ series: [{ kind: 'EventsNode', event: 'nope' }] });
    expect(r.results[0]).toMatchObject({ data: [0, 0, 0, 0, 0, 0, 0, 0], count: 0 });
  });

  it('series and global property filters', async () => {
    const r = await trends({
      series: [{ ...PV, properties: [{ type: 'event', key: '$browser', operator: 'exact', value: 'Chrome' }] }],
      properties: [{ type: 'person', key: 'plan', value: 'pro' }],
    });
    expect(r.results[0].data).toEqual([2, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('filterTestAccounts uses the project test-account filters', async () => {
    const settings = { test_account_filters: [{ type: 'person', key: 'plan', operator: 'is_not', value: 'pro' }] };
    const on = await trends({ series: [PV], filterTestAccounts: true }, 1, settings);
    const off = await trends({ series: [PV], filterTestAccounts: false }, 1, settings);
    expect(on.results[0].data).toEqual([0, 1, 1, 0, 1, 0, 0, 0]);
    expect(off.results[0].data).toEqual([2, 1, 1, 0, 1, 0, 0, 1]);
  });

  it('hour interval over a day', async () => {
    const r = await trends({ series: [PV], interval: 'hour', dateRange: { date_from: '2024-01-01T09:00:00', date_to: '2024-01-01T12:00:00' } });
    expect(r.results[0].days).toEqual(['2024-01-01 09:00:00', '2024-01-01 10:00:00', '2024-01-01 11:00:00', '2024-01-01 12:00:00']);
    expect(r.results[0].data).toEqual([0, 1, 1, 0]);
    expect(r.results[0].labels[1]).toBe('1-Jan 10:00');
  });

  it('month interval', async () => {
    const r = await trends({ series: [PV], interval: 'month', dateRange: { date_from: '2023-12-01', date_to: '2024-01-31' } });
    expect(r.results[0]).toMatchObject({ days: ['2023-12-01', '2024-01-01'], labels: ['Dec 2023', 'Jan 2024'], data: [2, 6] });
  });
});

describe('math', () => {
  it.each<[string, Record<string, unknown>, number[]]>([
    ['total', { math: 'total' }, [2, 1, 1, 0, 1, 0, 0, 1]],
    ['dau: distinct persons per bucket', { math: 'dau' }, [1, 1, 1, 0, 1, 0, 0, 1]],
    ['weekly_active: 7-day window ending each day (events before the range count)', { math: 'weekly_active' }, [2, 2, 3, 3, 3, 3, 3, 3]],
    ['monthly_active', { math: 'monthly_active' }, [2, 3, 3, 3, 3, 3, 3, 3]],
    ['unique_session', { math: 'unique_session' }, [1, 1, 0, 0, 0, 0, 0, 0]],
    ['sum (numeric text counts, missing ignored)', { math: 'sum', math_property: 'price' }, [30, 5, 0, 0, 0, 0, 0, 30]],
    ['avg (empty → 0)', { math: 'avg', math_property: 'price' }, [15, 5, 0, 0, 0, 0, 0, 30]],
    ['min', { math: 'min', math_property: 'price' }, [10, 5, 0, 0, 0, 0, 0, 30]],
    ['max', { math: 'max', math_property: 'price' }, [20, 5, 0, 0, 0, 0, 0, 30]],
    ['median', { math: 'median', math_property: 'price' }, [15, 5, 0, 0, 0, 0, 0, 30]],
    ['p90 (interpolated)', { math: 'p90', math_property: 'price' }, [19, 5, 0, 0, 0, 0, 0, 30]],
    ['avg_count_per_actor', { math: 'avg_count_per_actor' }, [2, 1, 1, 0, 1, 0, 0, 1]],
    ['max_count_per_actor', { math: 'max_count_per_actor' }, [2, 1, 1, 0, 1, 0, 0, 1]],
    ['hogql', { math: 'hogql', math_hogql: 'sum(toFloat(properties.price)) * 2' }, [60, 10, 0, 0, 0, 0, 0, 60]],
    ['person-property math', { math: 'sum', math_property: 'age', math_property_type: 'person_properties' }, [0, 0, 0, 0, 0, 0, 0, 0]],
  ])('%s', async (_n, math, expected) => {
    const r = await trends({ series: [{ ...PV, ...math }] });
    expect(r.results[0].data).toEqual(expected);
  });

  it('weekly_active at week interval silently becomes dau (weekly uniques)', async () => {
    const r = await trends({ series: [{ ...PV, math: 'weekly_active' }], interval: 'week' });
    // weeks (Sunday start) Dec 31 – Jan 6 and Jan 7 – 13: u1,u2,u3 then u1.
    expect(r.results[0].data).toEqual([3, 1]);
  });

  it.each<[string, string, number[]]>([
    ['first_time_for_user: first-ever pageview must match the filter', 'Firefox', [0, 0, 0, 0, 0, 0, 0, 0]],
    ['first_matching_event_for_user: first pageview that matches', 'Firefox', [0, 0, 0, 0, 0, 0, 0, 1]],
    ['first_time_for_user: with a matching first event', 'Safari', [0, 1, 0, 0, 0, 0, 0, 0]],
  ])('%s', async (name, browser, expected) => {
    const math = name.split(':')[0];
    const r = await trends({ series: [{ ...PV, math, properties: [{ type: 'event', key: '$browser', value: browser }] }] });
    expect(r.results[0].data).toEqual(expected);
  });

  it('unique_group and aggregation by group: events with an empty $group_0 are excluded', async () => {
    await db.load(5, {
      events: [
        { event: 'e', distinct_id: 'g1', timestamp: '2024-01-02T10:00:00Z', properties: { $group_0: 'acme' } },
        { event: 'e', distinct_id: 'g2', timestamp: '2024-01-02T11:00:00Z', properties: { $group_0: 'acme' } },
        { event: 'e', distinct_id: 'g3', timestamp: '2024-01-02T12:00:00Z', properties: { $group_0: 'beta' } },
        { event: 'e', distinct_id: 'g4', timestamp: '2024-01-02T13:00:00Z', properties: { $group_0: '' } },
      ],
    });
    const q = (extra: Record<string, unknown>, node: Record<string, unknown> = {}) =>
      db.run(trendsRunner, { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'e', ...extra }], dateRange: { date_from: '2024-01-02', date_to: '2024-01-02' }, ...node }, 5);
    expect((await q({ math: 'unique_group', math_group_type_index: 0 })).results[0].data).toEqual([2]);
    expect((await q({ math: 'dau' }, { aggregation_group_type_index: 0 })).results[0].data).toEqual([2]);
    expect((await q({ math: 'dau' })).results[0].data).toEqual([4]);
  });

  it('personless events count as one actor per distinct id in dau', async () => {
    await db.load(7, {
      events: [
        { event: 'e', distinct_id: 'known', timestamp: '2024-01-02T10:00:00Z' },
        { event: 'e', distinct_id: 'anon', timestamp: '2024-01-02T11:00:00Z', properties: { $process_person_profile: false } },
        { event: 'e', distinct_id: 'anon', timestamp: '2024-01-02T12:00:00Z', properties: { $process_person_profile: false } },
      ],
    });
    const r = await db.run(trendsRunner, { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'e', math: 'dau' }], dateRange: { date_from: '2024-01-02', date_to: '2024-01-02' } }, 7);
    expect(r.results[0].data).toEqual([2]);
  });

  it('dau sums persons and personless distinct ids per bucket, per breakdown value and as a total value', async () => {
    // (counted as two disjoint parts: distinct person ids + distinct ids of personless events)
    const anon = (d: string, ts: string, browser: string) => ({ event: 'e', distinct_id: d, timestamp: ts, properties: { $process_person_profile: false, $browser: browser } });
    await db.load(8, {
      events: [
        { event: 'e', distinct_id: 'known', timestamp: '2024-01-02T10:00:00Z', properties: { $browser: 'Chrome' } },
        { event: 'e', distinct_id: 'known', timestamp: '2024-01-03T10:00:00Z', properties: { $browser: 'Chrome' } },
        anon('anon', '2024-01-02T11:00:00Z', 'Chrome'),
        anon('anon', '2024-01-02T12:00:00Z', 'Safari'),
        anon('anon2', '2024-01-02T13:00:00Z', 'Chrome'),
        anon('anon2', '2024-01-03T13:00:00Z', 'Chrome'),
      ],
    });
    const q = (node: Record<string, unknown>) =>
      db.run(trendsRunner, { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'e', math: 'dau' }], dateRange: { date_from: '2024-01-02', date_to: '2024-01-03' }, ...node }, 8);
    expect((await q({})).results[0].data).toEqual([3, 2]);
    const bd = await q({ breakdownFilter: { breakdown: '$browser' } });
    expect(bd.results.map((x: any) => [x.breakdown_value, x.data])).toEqual([
      ['Chrome', [3, 2]],
      ['Safari', [1, 0]],
    ]);
    expect((await q({ trendsFilter: { display: 'BoldNumber' } })).results[0].aggregated_value).toBe(3);
    expect((await q({ interval: 'week' })).results[0].data).toEqual([3]);
  });

  it('dau asks for the distinct ids of personless events only when there are some (ClickHouse: one scan otherwise)', async () => {
    const anon = (d: string, ts: string, event = 'e') => ({ event, distinct_id: d, timestamp: ts, properties: { $process_person_profile: false } });
    await db.load(9, {
      events: [
        { event: 'e', distinct_id: 'p1', timestamp: '2024-01-02T10:00:00Z' },
        { event: 'e', distinct_id: 'p2', timestamp: '2024-01-02T11:00:00Z' },
        { event: 'e', distinct_id: 'p1', timestamp: '2024-01-04T10:00:00Z' },
        anon('a0', '2024-01-03T10:00:00Z', 'other'),
        anon('a1', '2024-01-04T11:00:00Z'),
        anon('a1', '2024-01-04T12:00:00Z'),
        anon('a2', '2024-01-05T12:00:00Z'),
      ],
    });
    const q = (date_to: string, node: Record<string, unknown> = {}) =>
      db.run(trendsRunner, { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'e', math: 'dau' }], dateRange: { date_from: '2024-01-02', date_to }, ...node }, 9);
    const spy = jest.spyOn(db.engine, 'query');
    try {
      expect((await q('2024-01-03')).results[0].data).toEqual([2, 0]);
      const personsOnly = spy.mock.calls.length;
      spy.mockClear();
      expect((await q('2024-01-05')).results[0].data).toEqual([2, 0, 2, 1]);
      const withPersonless = spy.mock.calls.length;
      expect((await q('2024-01-03', { trendsFilter: { display: 'BoldNumber' } })).results[0].aggregated_value).toBe(2);
      expect((await q('2024-01-05', { trendsFilter: { display: 'BoldNumber' } })).results[0].aggregated_value).toBe(4);
      expect((await q('2024-01-05', { interval: 'week' })).results[0].data).toEqual([4]);
      if (db.kind === 'clickhouse') expect([personsOnly, withPersonless]).toEqual([1, 2]);
    } finally {
      spy.mockRestore();
    }
  });

  it('first_time_for_user counts each person once, at their first-ever event', async () => {
    const r = await trends({ series: [{ ...PV, math: 'first_time_for_user' }] });
    // u1 and u3 were first seen in December; u2 first on Jan 2.
    expect(r.results[0].data).toEqual([0, 1, 0, 0, 0, 0, 0, 0]);
  });
});

describe('breakdowns', () => {
  it('event property: ordered by total desc, then value; null sentinel last', async () => {
    const r = await trends({ series: [PV], breakdownFilter: { breakdown: '$browser' } });
    expect(r.results.map((x: any) => x.breakdown_value)).toEqual(['Chrome', 'Safari', 'Firefox', NULL_V]);
    expect(r.results.map((x: any) => x.label)).toEqual(['Chrome', 'Safari', 'Firefox', NULL_V]);
    expect(r.results[0].data).toEqual([2, 0, 0, 0, 0, 0, 0, 0]);
    expect(r.results[3].data).toEqual([0, 0, 1, 0, 0, 0, 0, 0]);
    expect(r.hasMore).toBeUndefined();
  });

  it('limit: the rest is summed into Other, hasMore true', async () => {
    const r = await trends({ series: [PV], breakdownFilter: { breakdown: '$browser', breakdown_limit: 2 } });
    expect(r.results.map((x: any) => x.breakdown_value)).toEqual(['Chrome', 'Safari', OTHER]);
    expect(r.results[2]).toMatchObject({ label: OTHER, data: [0, 0, 1, 0, 0, 0, 0, 1], count: 2 });
    expect(r.hasMore).toBe(true);
  });

  it('breakdown_hide_other_aggregation drops Other but keeps hasMore', async () => {
    const r = await trends({ series: [PV], breakdownFilter: { breakdown: '$browser', breakdown_limit: 2, breakdown_hide_other_aggregation: true } });
    expect(r.results.map((x: any) => x.breakdown_value)).toEqual(['Chrome', 'Safari']);
    expect(r.hasMore).toBe(true);
  });

  it('person property', async () => {
    const r = await trends({ series: [PV], breakdownFilter: { breakdown: 'plan', breakdown_type: 'person' } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([['pro', 3], ['free', 2], [NULL_V, 1]]);
  });

  it('hogql expression', async () => {
    const r = await trends({ series: [PV], breakdownFilter: { breakdown: "if(properties.price > 15, 'high', 'low')", breakdown_type: 'hogql' } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([['low', 4], ['high', 2]]);
  });

  it('several series: label is "<series> - <value>"', async () => {
    const r = await trends({ series: [PV, SIGNUP], breakdownFilter: { breakdown: '$browser' } });
    expect(r.results.map((x: any) => x.label)).toEqual(['$pageview - Chrome', '$pageview - Safari', '$pageview - Firefox', `$pageview - ${NULL_V}`, `signup - ${NULL_V}`]);
  });

  it('multiple breakdowns: arrays joined with :: in labels', async () => {
    const r = await trends({
      series: [PV],
      breakdownFilter: { breakdowns: [{ property: '$browser' }, { property: 'plan', type: 'person' }] },
    });
    expect(r.results.map((x: any) => x.breakdown_value)).toEqual([['Chrome', 'pro'], ['Safari', 'free'], ['Firefox', 'pro'], [NULL_V, NULL_V]]);
    expect(r.results[0].label).toBe('Chrome::pro');
  });

  it('multiple breakdowns with a limit: Other is an array of sentinels', async () => {
    const r = await trends({
      series: [PV],
      breakdownFilter: { breakdown_limit: 1, breakdowns: [{ property: '$browser' }, { property: 'plan', type: 'person' }] },
    });
    expect(r.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([
      [['Chrome', 'pro'], 2],
      [[OTHER, OTHER], 4],
    ]);
    expect(r.results[1].data).toEqual([0, 1, 1, 0, 1, 0, 0, 1]);
    expect(r.hasMore).toBe(true);
  });

  it('histogram bins for a numeric property; events without a value go to PostHog\'s \'["",""]\', an ordinary value', async () => {
    // (breakdown.py `_get_breakdown_histogram_multi_if`: the multiIf's else branch is '["",""]'; ties rank by value;
    // the bins split at the median of the values 5, 10, 20, 30)
    const r = await trends({ series: [PV], breakdownFilter: { breakdown: 'price', breakdown_histogram_bin_count: 2 } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([
      ['["",""]', 2],
      ['[15.0,30.01]', 2],
      ['[5.0,15.0]', 2],
    ]);
  });

  it('default limit 25 over 30 values (folded in the engine): ties by value, Other last', async () => {
    const v = (i: number) => `v${String(i).padStart(2, '0')}`;
    await db.load(6, {
      events: [
        ...Array.from({ length: 30 }, (_, i) => ({ event: 'e', distinct_id: 'x', timestamp: '2024-01-03T10:00:00Z', properties: { k: v(i) } })),
        { event: 'e', distinct_id: 'x', timestamp: '2024-01-04T10:00:00Z', properties: { k: 'v29' } },
        { event: 'e', distinct_id: 'x', timestamp: '2024-01-04T10:00:00Z', properties: {} },
      ],
    });
    const r = await db.run(trendsRunner, { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'e' }], dateRange: { date_from: '-7d' }, breakdownFilter: { breakdown: 'k' } }, 6);
    expect(r.results).toHaveLength(26);
    expect(r.results.slice(0, 3).map((x: any) => x.breakdown_value)).toEqual(['v29', 'v00', 'v01']);
    expect(r.results[24].breakdown_value).toBe('v23');
    // v24..v28 and the null value (past the limit) are summed into Other.
    expect(r.results[25]).toMatchObject({ breakdown_value: OTHER, count: 6, data: [0, 0, 5, 1, 0, 0, 0, 0] });
    expect(r.hasMore).toBe(true);
  });

  it('no data with a breakdown → no results', async () => {
    const r = await trends({ series: [{ kind: 'EventsNode', event: 'nope' }], breakdownFilter: { breakdown: '$browser' } });
    expect(r.results).toEqual([]);
  });

  it('normalize_url strips trailing / ? #', async () => {
    await db.load(4, {
      events: ['/a/', '/a', '/b?#', '/'].map((u, i) => ({ event: 'e', distinct_id: 'x', timestamp: `2024-01-0${i + 2}T10:00:00Z`, properties: { $pathname: u } })),
    });
    const r = await db.run(trendsRunner, { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'e' }], dateRange: { date_from: '-7d' }, breakdownFilter: { breakdown: '$pathname', breakdown_normalize_url: true } }, 4);
    expect(r.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([['/a', 2], ['/', 1], ['/b', 1]]);
  });
});

describe('formulas', () => {
  it('A+B replaces the inputs', async () => {
    const r = await trends({ series: [PV, SIGNUP], trendsFilter: { formula: 'A+B' } });
    expect(r.results).toHaveLength(1);
    expect(r.results[0]).toMatchObject({ label: 'Formula (A+B)', data: [2, 1, 2, 0, 1, 0, 0, 1], count: 7, action: null });
  });

  it('division by zero is 0', async () => {
    const r = await trends({ series: [PV, SIGNUP], trendsFilter: { formula: 'A/B' } });
    expect(r.results[0].data).toEqual([0, 0, 1, 0, 0, 0, 0, 0]);
  });

  it('several formulas (formulaNodes with custom names)', async () => {
    const r = await trends({ series: [PV, SIGNUP], trendsFilter: { formulaNodes: [{ formula: 'A-B', custom_name: 'diff' }, { formula: 'B*10' }] } });
    expect(r.results.map((x: any) => [x.label, x.data])).toEqual([
      ['diff', [2, 1, 0, 0, 1, 0, 0, 1]],
      ['Formula (B*10)', [0, 0, 10, 0, 0, 0, 0, 0]],
    ]);
  });

  it('with a breakdown: per value, missing values are zero, ordered by total', async () => {
    const r = await trends({ series: [PV, SIGNUP], breakdownFilter: { breakdown: '$browser' }, trendsFilter: { formula: 'A+B' } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([['Chrome', 2], ['Safari', 2], ['Firefox', 1], [NULL_V, 2]]);
  });

  it('unknown series letter is a 400', async () => {
    await expect(trends({ series: [PV], trendsFilter: { formula: 'A+B' } })).rejects.toMatchObject({ status: 400 });
  });
});

describe('compare', () => {
  it('previous period items follow the current ones, with compare labels and their own days', async () => {
    const r = await trends({ series: [PV], compareFilter: { compare: true } });
    expect(r.results.map((x: any) => x.compare_label)).toEqual(['current', 'previous']);
    expect(r.results[0]).toMatchObject({ compare: true, data: [2, 1, 1, 0, 1, 0, 0, 1] });
    expect(r.results[1].days[0]).toBe('2023-12-25');
    expect(r.results[1].data).toEqual([0, 1, 0, 1, 0, 0, 0, 2]);
    expect(r.results[1].action.days[0]).toBe('2024-01-01T00:00:00Z');
  });

  it('compare_to -1w with formula: applied per period', async () => {
    const r = await trends({ series: [PV, SIGNUP], compareFilter: { compare: true, compare_to: '-1w' }, trendsFilter: { formula: 'A+B' } });
    expect(r.results.map((x: any) => [x.compare_label, x.count])).toEqual([['current', 7], ['previous', 4]]);
  });
});

describe('displays', () => {
  it('cumulative: running sum, count = last value', async () => {
    const r = await trends({ series: [PV], trendsFilter: { display: 'ActionsLineGraphCumulative' } });
    expect(r.results[0]).toMatchObject({ data: [2, 3, 4, 4, 5, 5, 5, 6], count: 6 });
  });

  it('cumulative dau counts each person once, at their first bucket', async () => {
    const r = await trends({ series: [{ ...PV, math: 'dau' }], trendsFilter: { display: 'ActionsLineGraphCumulative' } });
    expect(r.results[0]).toMatchObject({ data: [1, 2, 3, 3, 3, 3, 3, 3], count: 3 });
  });

  it('cumulative with a formula: the formula applies to the cumulative series; count = sum', async () => {
    const r = await trends({ series: [PV, SIGNUP], trendsFilter: { display: 'ActionsLineGraphCumulative', formula: 'A/B' } });
    expect(r.results[0]).toMatchObject({ data: [0, 0, 4, 4, 5, 5, 5, 6], count: 29 });
  });

  it('smoothing: floored moving average', async () => {
    const r = await trends({ series: [PV], trendsFilter: { smoothingIntervals: 2 } });
    expect(r.results[0].data).toEqual([2, 1, 1, 0, 0, 0, 0, 0]);
  });

  it.each(['BoldNumber', 'ActionsPie', 'ActionsTable', 'ActionsBarValue', 'WorldMap'])('%s: aggregated_value, data [], count 0', async (display) => {
    const r = await trends({ series: [PV], dateRange: { date_from: '2024-01-01', date_to: '2024-01-08' }, trendsFilter: { display } });
    expect(r.results[0]).toMatchObject({ aggregated_value: 6, data: [], days: [], count: 0, label: '$pageview' });
  });

  it('total value with dau, breakdown and formula', async () => {
    const dau = await trends({ series: [{ ...PV, math: 'dau' }], trendsFilter: { display: 'ActionsTable' } });
    expect(dau.results[0].aggregated_value).toBe(3);
    const pie = await trends({ series: [PV], breakdownFilter: { breakdown: '$browser' }, trendsFilter: { display: 'ActionsPie' } });
    expect(pie.results.map((x: any) => [x.breakdown_value, x.aggregated_value])).toEqual([['Chrome', 2], ['Safari', 2], ['Firefox', 1], [NULL_V, 1]]);
    const f = await trends({ series: [PV, SIGNUP], trendsFilter: { display: 'BoldNumber', formula: 'A*100/B' }, dateRange: { date_from: '2024-01-01', date_to: '2024-01-08' } });
    expect(f.results[0]).toMatchObject({ aggregated_value: 600, label: 'Formula (A*100/B)' });
  });

  it('total-value WAU counts the 7 days up to date_to, whatever date_from', async () => {
    const r = await trends({ series: [{ ...PV, math: 'weekly_active' }], dateRange: { date_from: '2024-01-02', date_to: '2024-01-02' }, trendsFilter: { display: 'BoldNumber' } });
    expect(r.results[0].aggregated_value).toBe(2);
  });

  it('total-value avg/max count per actor over the range', async () => {
    const avg = await trends({ series: [{ ...PV, math: 'avg_count_per_actor' }], trendsFilter: { display: 'ActionsTable' } });
    const max = await trends({ series: [{ ...PV, math: 'max_count_per_actor' }], trendsFilter: { display: 'ActionsTable' } });
    expect([avg.results[0].aggregated_value, max.results[0].aggregated_value]).toEqual([2, 3]);
  });

  it('total value with no data → 0', async () => {
    const r = await trends({ series: [{ kind: 'EventsNode', event: 'nope' }], trendsFilter: { display: 'BoldNumber' } });
    expect(r.results[0].aggregated_value).toBe(0);
  });
});

describe('timezone and week start', () => {
  it('days are bucketed in the project timezone across DST', async () => {
    const q = { series: [{ kind: 'EventsNode', event: 'e' }], dateRange: { date_from: '2024-03-30', date_to: '2024-04-01' } };
    const berlin = await trends(q, 2, { timezone: 'Europe/Berlin' });
    const utc = await trends(q, 2, { timezone: 'UTC' });
    expect(berlin.results[0].data).toEqual([0, 2, 1]);
    expect(utc.results[0].data).toEqual([1, 2, 0]);
    expect(berlin.resolved_date_range.date_to).toBe('2024-04-01T23:59:59.999999+02:00');
  });

  it('hourly buckets across the DST gap', async () => {
    const r = await trends({ series: [{ kind: 'EventsNode', event: 'e' }], interval: 'hour', dateRange: { date_from: '2024-03-31T00:00:00', date_to: '2024-03-31T03:00:00' } }, 2, { timezone: 'Europe/Berlin' });
    expect(r.results[0].days).toEqual(['2024-03-31 00:00:00', '2024-03-31 01:00:00', '2024-03-31 03:00:00']);
    expect(r.results[0].data).toEqual([1, 0, 0]);
  });

  it.each([
    [0, ['2023-12-31', '2024-01-07', '2024-01-14'], [0, 2, 0]],
    [1, ['2024-01-01', '2024-01-08'], [1, 1]],
  ])('week_start_day %d', async (week_start_day, days, data) => {
    const r = await trends({ series: [{ kind: 'EventsNode', event: 'e' }], interval: 'week', dateRange: { date_from: '2024-01-01', date_to: '2024-01-14' } }, 3, { week_start_day });
    expect(r.results[0].days).toEqual(days);
    expect(r.results[0].data).toEqual(data);
  });
});

describe('validation', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['unknown key on the node', { series: [PV], bogus: 1 }, 'bogus'],
    ['unknown key in a series', { series: [{ ...PV, bogus: 1 }] }, 'series'],
    ['unknown math', { series: [{ ...PV, math: 'nope' }] }, 'series'],
    ['bad interval', { series: [PV], interval: 'year' }, 'interval'],
  ])('%s → schema error', (_n, q, path) => {
    const r = trendsRunner.schema.safeParse({ kind: 'TrendsQuery', ...q });
    expect(r.success).toBe(false);
    expect(zodToUserError(r.error!).attr?.split('__')[0]).toBe(path);
  });

  it('no series: no results (PostHog: `if len(queries) == 0: return TrendsQueryResponse(results=[])`)', async () => {
    expect((await trends({ series: [] })).results).toEqual([]);
    expect((await trends({ series: [], trendsFilter: { display: 'BoldNumber' } })).results).toEqual([]);
    expect((await trends({ series: [], trendsFilter: { formula: 'A' } })).results).toEqual([]);
    expect((await trends({ series: [], breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } })).results).toEqual([]);
  });

  it('an ActionsNode (no action exists here) is dropped from the results, as PostHog drops a non-existent action', async () => {
    expect((await trends({ series: [{ kind: 'ActionsNode', id: 1 }] })).results).toEqual([]);
    const mixed = (await trends({ series: [{ kind: 'ActionsNode', id: 1 }, PV] })).results as { action: { order: number }; label: string }[];
    const alone = (await trends({ series: [PV] })).results as { data: number[] }[];
    expect(mixed.map((r) => [r.action.order, r.label])).toEqual([[1, '$pageview']]);
    expect((mixed[0] as unknown as { data: number[] }).data).toEqual(alone[0].data);
  });

  it('math property missing → 400', async () => {
    await expect(trends({ series: [{ ...PV, math: 'sum' }] })).rejects.toMatchObject({ status: 400 });
  });
});
