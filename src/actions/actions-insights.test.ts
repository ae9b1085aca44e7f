/**
 * ActionsNode series in trends, stickiness, lifecycle and funnels (PostHog's test_trends.py test_action_filtering /
 * test_trends_per_day with actions, funnels with action steps, lifecycle with an action). The actions come from an
 * in-memory source on the runner context (RunnerContext.actions), where the server puts its action service.
 * actions-insights.clickhouse.test.ts runs this file on ClickHouse with the same expectations.
 *
 * Project 1 (UTC), now = Mon 2024-01-08 12:00, -7d = Jan 1..8. Persons u1, u3 created 2023-12-01, u2 created Jan 2.
 *  Jan 1 10:00 u1 $pageview url …/signup?x=1   | Jan 1 11:00 u1 sign up Chrome
 *  Jan 2 10:00 u2 $pageview url …/Signup        | Jan 2 11:00 u2 sign up Safari
 *  Jan 3 10:00 u3 $pageview url …/pricing       | Jan 3 12:00 u2 $pageview url …/pricing
 *  Jan 4 10:00 u3 sign up Chrome                | Jan 5 10:00 u1 purchase amount 10 | Jan 5 12:00 u1 sign up Firefox
 *  Jan 6 10:00 u2 purchase amount 3
 * Project 2: Jan 3 u9 sign up.
 */
import { createInsightTestDb, modelActionStep as step, type InsightTestDb } from '../queries/insights/testing';
import { setInsightsClock } from '../queries/insights/date-range';
import { trendsRunner } from '../queries/runners/trends-runner';
import { stickinessRunner } from '../queries/runners/stickiness-runner';
import { lifecycleRunner } from '../queries/runners/lifecycle-runner';
import { funnelsRunner } from '../queries/runners/funnels-runner';
import { retentionRunner } from '../queries/runners/retention-runner';
import type { ActionDef } from './matching';

const chrome = [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }];

/** project → id → action */
const ACTIONS: Record<number, ActionDef[]> = {
  1: [
    { id: 1, name: 'Signed up', steps: [step({ event: 'sign up' })] },
    { id: 2, name: 'Signup page or Chrome signup', steps: [step({ event: '$pageview', url: '/signup' }), step({ event: 'sign up', properties: chrome })] },
    { id: 3, name: 'Pricing visit', steps: [step({ event: '$pageview', url: 'https://app.example.com/pricing', url_matching: 'exact' })] },
    { id: 4, name: 'Signup pages', steps: [step({ event: '$pageview', url: '[Ss]ignup', url_matching: 'regex' })] },
    { id: 5, name: 'Everything', steps: [] },
    { id: 6, name: 'Button click', steps: [step({ event: '$autocapture', selector: 'div > button' })] },
    { id: 7, name: 'Anything on /signup', steps: [step({ url: '/signup' })] },
    { id: 8, name: 'Big purchase', steps: [step({ event: 'purchase', properties: [{ key: 'amount', value: 5, operator: 'gt', type: 'event' }] })] },
  ],
  2: [{ id: 10, name: 'P2 signup', steps: [step({ event: 'sign up' })] }],
};

let db: InsightTestDb;
let restore: () => void;
beforeAll(async () => {
  db = await createInsightTestDb();
  db.actions = {
    liveActions: async (projectId, ids) => new Map((ACTIONS[projectId] ?? []).filter((a) => ids.includes(a.id)).map((a) => [a.id, a])),
  };
  restore = setInsightsClock(new Date('2024-01-08T12:00:00Z'));
  const ev = (event: string, distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}) => ({ event, distinct_id, timestamp, properties });
  const url = (path: string) => ({ $current_url: `https://app.example.com${path}` });
  await db.load(1, {
    persons: [
      { distinct_ids: ['u1'], created_at: '2023-12-01T00:00:00Z' },
      { distinct_ids: ['u2'], created_at: '2024-01-02T00:00:00Z' },
      { distinct_ids: ['u3'], created_at: '2023-12-01T00:00:00Z' },
    ],
    events: [
      ev('$pageview', 'u1', '2024-01-01T10:00:00Z', url('/signup?x=1')),
      ev('sign up', 'u1', '2024-01-01T11:00:00Z', { $browser: 'Chrome' }),
      ev('$pageview', 'u2', '2024-01-02T10:00:00Z', url('/Signup')),
      ev('sign up', 'u2', '2024-01-02T11:00:00Z', { $browser: 'Safari' }),
      ev('$pageview', 'u3', '2024-01-03T10:00:00Z', url('/pricing')),
      ev('$pageview', 'u2', '2024-01-03T12:00:00Z', url('/pricing')),
      ev('sign up', 'u3', '2024-01-04T10:00:00Z', { $browser: 'Chrome' }),
      ev('purchase', 'u1', '2024-01-05T10:00:00Z', { amount: 10 }),
      ev('sign up', 'u1', '2024-01-05T12:00:00Z', { $browser: 'Firefox' }),
      ev('purchase', 'u2', '2024-01-06T10:00:00Z', { amount: 3 }),
    ],
  });
  await db.load(2, { events: [ev('sign up', 'u9', '2024-01-03T10:00:00Z')] });
});
afterAll(async () => {
  restore();
  await db.close();
});

const A = (id: number, extra: Record<string, unknown> = {}) => ({ kind: 'ActionsNode', id, ...extra });
const E = (event: string, extra: Record<string, unknown> = {}) => ({ kind: 'EventsNode', event, ...extra });
const RANGE = { date_from: '-7d' };
const trends = (q: Record<string, unknown>, project = 1) => db.run(trendsRunner, { kind: 'TrendsQuery', dateRange: RANGE, ...q }, project);
const data = (r: any) => r.results.map((x: any) => x.data);

describe('trends', () => {
  it('test_trends_per_day with an action: label, data and the action object', async () => {
    const r = await trends({ series: [A(1)] });
    expect(r.results).toHaveLength(1);
    const [s] = r.results;
    expect(s.label).toBe('Signed up');
    expect(s.data).toEqual([1, 1, 0, 1, 1, 0, 0, 0]);
    expect(s.count).toBe(4);
    expect(s.action).toMatchObject({ id: 1, type: 'actions', order: 0, name: 'Signed up', custom_name: null, math: 'total' });
    expect(s.action.days).toHaveLength(8);
  });

  it.each<[string, number, number[]]>([
    ['OR of steps: a url contains step (case sensitive) or an event with properties', 2, [2, 0, 0, 1, 0, 0, 0, 0]],
    ['url exact', 3, [0, 0, 2, 0, 0, 0, 0, 0]],
    ['url regex', 4, [1, 1, 0, 0, 0, 0, 0, 0]],
    ['no steps: every event', 5, [2, 2, 2, 1, 2, 1, 0, 0]],
    ['a step without an event: any event on the url', 7, [1, 0, 0, 0, 0, 0, 0, 0]],
    ['step property filters (numeric gt)', 8, [0, 0, 0, 0, 1, 0, 0, 0]],
  ])('test_action_filtering: %s', async (_n, id, expected) => {
    expect(data(await trends({ series: [A(id)] }))).toEqual([expected]);
  });

  it('series properties are ANDed with the action, dau math applies, custom_name goes to the action object', async () => {
    const r = await trends({ series: [A(1, { properties: chrome, math: 'dau', custom_name: 'Chrome signups' })] });
    expect(data(r)).toEqual([[1, 0, 0, 1, 0, 0, 0, 0]]);
    expect(r.results[0].label).toBe('Signed up');
    expect(r.results[0].action).toMatchObject({ id: 1, type: 'actions', name: 'Signed up', custom_name: 'Chrome signups', math: 'dau' });
  });

  it('first_time_for_user math: each person at their first event matching the action', async () => {
    expect(data(await trends({ series: [A(1, { math: 'first_time_for_user' })] }))).toEqual([[1, 1, 0, 1, 0, 0, 0, 0]]);
    // the first Chrome signup-or-signup-page event per person: u1 Jan 1, u3 Jan 4 (u2 never matches)
    expect(data(await trends({ series: [A(2, { math: 'first_time_for_user' })] }))).toEqual([[1, 0, 0, 1, 0, 0, 0, 0]]);
  });

  it('an action and an event series side by side, with a breakdown', async () => {
    const r = await trends({ series: [A(1), E('purchase')], breakdownFilter: { breakdown: '$browser' } });
    const got = r.results.map((x: any) => [x.label, x.breakdown_value, x.data, x.action.type, x.action.id]);
    expect(got).toEqual(
      expect.arrayContaining([
        ['Signed up - Chrome', 'Chrome', [1, 0, 0, 1, 0, 0, 0, 0], 'actions', 1],
        ['Signed up - Safari', 'Safari', [0, 1, 0, 0, 0, 0, 0, 0], 'actions', 1],
        ['Signed up - Firefox', 'Firefox', [0, 0, 0, 0, 1, 0, 0, 0], 'actions', 1],
      ]),
    );
    expect(r.results.filter((x: any) => x.action.type === 'events').every((x: any) => x.action.id === 'purchase')).toBe(true);
  });

  it('total value (ActionsPie) of an action', async () => {
    const r = await trends({ series: [A(2)], trendsFilter: { display: 'ActionsPie' } });
    expect(r.results[0].aggregated_value).toBe(3);
  });

  it('an action that does not exist in the project is dropped (PostHog matches nothing and leaves it out)', async () => {
    expect((await trends({ series: [A(99)] })).results).toEqual([]);
    const mixed = await trends({ series: [A(99), A(1)] });
    expect(mixed.results.map((x: any) => [x.label, x.action.order])).toEqual([['Signed up', 1]]);
  });

  it("another project's action is not found: tenancy", async () => {
    expect((await trends({ series: [A(1)] }, 2)).results).toEqual([]);
    expect(data(await trends({ series: [A(10)] }, 2))).toEqual([[0, 0, 1, 0, 0, 0, 0, 0]]);
    expect((await trends({ series: [A(10)] }, 1)).results).toEqual([]);
  });

  it('a step matching autocapture elements reads elements_chain (no $autocapture here; element-filters.test.ts matches them)', async () => {
    const r = await trends({ series: [A(6)] });
    expect([r.results[0].label, r.results[0].count]).toEqual(['Button click', 0]);
  });

  it('date_from all starts at the earliest event the action matches', async () => {
    const r = await trends({ series: [A(8)], dateRange: { date_from: 'all' } });
    expect(r.results[0].days[0]).toBe('2024-01-05');
    expect(r.results[0].count).toBe(1);
  });
});

describe('stickiness', () => {
  const sticky = (q: Record<string, unknown>) => db.run(stickinessRunner, { kind: 'StickinessQuery', dateRange: RANGE, ...q });

  it('counts actors by the days on which they did the action', async () => {
    const r = await sticky({ series: [A(1)] });
    expect(r.results).toHaveLength(1);
    expect(r.results[0]).toMatchObject({ label: 'Signed up', count: 3, data: [2, 1, 0, 0, 0, 0, 0, 0] });
    expect(r.results[0].action).toEqual({ order: 0, type: 'actions', id: 1, name: 'Signed up', custom_name: null });
  });

  it('a missing action is dropped; the others keep their order', async () => {
    const r = await sticky({ series: [A(42), A(4)] });
    expect(r.results.map((x: any) => [x.label, x.action.order, x.data])).toEqual([['Signup pages', 1, [2, 0, 0, 0, 0, 0, 0, 0]]]);
  });
});

describe('retention', () => {
  const retention = (rf: Record<string, unknown>, project = 1) =>
    db.run(retentionRunner, { kind: 'RetentionQuery', dateRange: { date_to: '2024-01-07' }, retentionFilter: { totalIntervals: 7, ...rf } }, project);
  const grid = (r: any) => r.results.map((x: any) => x.values.map((v: any) => v.count));

  it('action entities ({type: "actions", id}) read as their steps: the same grid as the events they stand for', async () => {
    const big = [{ key: 'amount', value: 5, operator: 'gt', type: 'event' }];
    const byActions = await retention({ targetEntity: { id: 1, type: 'actions' }, returningEntity: { id: 8, type: 'actions' } });
    const byEvents = await retention({ targetEntity: { id: 'sign up', type: 'events' }, returningEntity: { id: 'purchase', type: 'events', properties: big } });
    expect(grid(byActions)).toEqual(grid(byEvents));
    expect(grid(byActions).map((row: number[]) => row[0])).toEqual([1, 1, 0, 1, 1, 0, 0]);
    expect(grid(byActions)[0][4]).toBe(1); // u1 signed up Jan 1, bought for 10 on Jan 5
  });

  it('a missing (or other-project) action is a 400 naming the entity', async () => {
    await expect(retention({ targetEntity: { id: 99, type: 'actions' } })).rejects.toMatchObject({ status: 400, code: 'action_not_found', attr: 'retentionFilter__targetEntity' });
    await expect(retention({ returningEntity: { id: 10, type: 'actions' } })).rejects.toMatchObject({ status: 400, attr: 'retentionFilter__returningEntity' });
  });
});

describe('lifecycle', () => {
  const lifecycle = (q: Record<string, unknown>, project = 1) => db.run(lifecycleRunner, { kind: 'LifecycleQuery', dateRange: RANGE, ...q }, project);

  it('statuses of the action, labelled with its name; action.id is the stringified id', async () => {
    const r = await lifecycle({ series: [A(1)] });
    const by = Object.fromEntries(r.results.map((x: any) => [x.status, x.data]));
    // u1 (created Dec): resurrecting Jan 1 and 5; u2 (created Jan 2): new Jan 2; u3 (created Dec): resurrecting Jan 4
    expect(by).toEqual({
      new: [0, 1, 0, 0, 0, 0, 0, 0],
      returning: [0, 0, 0, 0, 0, 0, 0, 0],
      resurrecting: [1, 0, 0, 1, 1, 0, 0, 0],
      dormant: [0, -1, -1, 0, -1, -1, 0, 0],
    });
    expect(r.results.map((x: any) => x.label)).toEqual(['Signed up - new', 'Signed up - returning', 'Signed up - resurrecting', 'Signed up - dormant']);
    expect(r.results[0].action).toEqual({ id: '1', name: 'Signed up', type: 'actions', order: 0, math: 'total' });
  });

  it('a missing (or other-project) action is a 400 naming the series', async () => {
    await expect(lifecycle({ series: [A(99)] })).rejects.toMatchObject({ status: 400, code: 'action_not_found', attr: 'series__0' });
    await expect(lifecycle({ series: [A(1)] }, 2)).rejects.toMatchObject({ status: 400, attr: 'series__0' });
  });
});

describe('funnels', () => {
  const funnel = (q: Record<string, unknown>, project = 1) => db.run(funnelsRunner, { kind: 'FunnelsQuery', dateRange: RANGE, ...q }, project);
  const counts = (r: any) => r.results.map((s: any) => s.count);

  it('action steps: counts, and action_id/name/type of each step', async () => {
    const r = await funnel({ series: [A(4), A(1), A(8)] });
    expect(counts(r)).toEqual([2, 2, 1]);
    expect(r.results.map((s: any) => [s.action_id, s.name, s.type, s.order])).toEqual([
      [4, 'Signup pages', 'actions', 0],
      [1, 'Signed up', 'actions', 1],
      [8, 'Big purchase', 'actions', 2],
    ]);
  });

  it('an action step mixed with event steps, strict and unordered orders', async () => {
    expect(counts(await funnel({ series: [E('$pageview'), A(1)] }))).toEqual([3, 3]);
    // strict: u2's next event after signing up is a pageview, not the purchase
    expect(counts(await funnel({ series: [A(1), E('purchase')], funnelsFilter: { funnelOrderType: 'strict' } }))).toEqual([3, 1]);
    expect(counts(await funnel({ series: [A(1), E('purchase')], funnelsFilter: { funnelOrderType: 'unordered' } }))).toEqual([3, 2]);
  });

  it('an action as an exclusion', async () => {
    const series = [A(1), E('purchase')];
    expect(counts(await funnel({ series }))).toEqual([3, 2]);
    // u2 visits pricing between signing up and purchasing: excluded
    const r = await funnel({ series, funnelsFilter: { exclusions: [{ kind: 'ActionsNode', id: 3, funnelFromStep: 0, funnelToStep: 1 }] } });
    expect(counts(r)).toEqual([2, 1]);
  });

  it('a missing action step or exclusion is a 400', async () => {
    await expect(funnel({ series: [E('$pageview'), A(99)] })).rejects.toMatchObject({ status: 400, code: 'action_not_found', attr: 'series__1' });
    await expect(
      funnel({ series: [E('$pageview'), A(1)], funnelsFilter: { exclusions: [{ kind: 'ActionsNode', id: 99, funnelFromStep: 0, funnelToStep: 1 }] } }),
    ).rejects.toMatchObject({ status: 400, attr: 'funnelsFilter__exclusions__0' });
    await expect(funnel({ series: [A(10), A(1)] })).rejects.toMatchObject({ status: 400, attr: 'series__0' });
  });
});
