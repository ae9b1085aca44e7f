/**
 * Trends, stickiness and lifecycle through the real server: POST /api/projects/1/query/ and the typed GraphQL
 * fields (which send the same node to the same runner).
 */
import { gql, startServer, type TestServer } from '../helpers/server';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
  const ing = srv.server.services.ingestor;
  const pv = (d: string, ts: string, properties: Record<string, unknown> = {}) => ({ event: '$pageview', distinct_id: d, timestamp: ts, properties });
  await ing.import(1, {
    persons: [
      { distinct_ids: ['u1'], properties: { plan: 'pro' }, created_at: '2024-01-01T00:00:00Z' },
      { distinct_ids: ['u2'], properties: { plan: 'free' }, created_at: '2023-01-01T00:00:00Z' },
    ],
    events: [
      pv('u1', '2024-01-01T10:00:00Z', { $browser: 'Chrome' }),
      pv('u1', '2024-01-02T10:00:00Z', { $browser: 'Chrome' }),
      pv('u2', '2024-01-02T11:00:00Z', { $browser: 'Safari' }),
      pv('u2', '2024-01-03T11:00:00Z', {}),
    ],
  });
  await ing.flush();
});
afterAll(() => srv.close());

const RANGE = { date_from: '2024-01-01', date_to: '2024-01-03' };
const query = (q: Record<string, unknown>) => srv.api('POST', '/api/projects/1/query/', { query: q });

describe('REST', () => {
  it('TrendsQuery with a breakdown', async () => {
    const r = await query({
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: '$pageview' }],
      dateRange: RANGE,
      breakdownFilter: { breakdown: '$browser' },
    });
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: any) => [x.breakdown_value, x.data])).toEqual([
      ['Chrome', [1, 1, 0]],
      ['Safari', [0, 1, 0]],
      ['$$_posthog_breakdown_null_$$', [0, 0, 1]],
    ]);
    expect(r.body.timezone).toBe('UTC');
    expect(typeof r.body.hogql).toBe('string');
  });

  it('StickinessQuery', async () => {
    const r = await query({ kind: 'StickinessQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: RANGE });
    expect(r.status).toBe(200);
    expect(r.body.results[0]).toMatchObject({ data: [0, 2, 0], count: 2, labels: ['1 day', '2 days', '3 days'] });
  });

  it('LifecycleQuery', async () => {
    const r = await query({ kind: 'LifecycleQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: RANGE });
    expect(r.status).toBe(200);
    const by = Object.fromEntries(r.body.results.map((x: any) => [x.status, x.data]));
    // u1 created Jan 1: new Jan 1, returning Jan 2, dormant Jan 3. u2 (created 2023): resurrecting Jan 2, returning Jan 3.
    expect(by).toEqual({ new: [1, 0, 0], returning: [0, 1, 1], resurrecting: [0, 1, 0], dormant: [0, 0, -1] });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['unknown key', { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'x' }], nope: 1 }, 'query__nope'],
    ['unknown key in a series', { kind: 'StickinessQuery', series: [{ kind: 'EventsNode', event: 'x', nope: 1 }] }, 'query__series__0__nope'],
    ['ActionsNode', { kind: 'LifecycleQuery', series: [{ kind: 'ActionsNode', id: 3 }] }, 'series__0'],
    ['bad date', { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'x' }], dateRange: { date_from: 'last week' } }, 'dateRange__date_from'],
  ])('%s → 400 with attr', async (_n, q, attr) => {
    const r = await query(q);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ type: 'validation_error', attr });
  });
});

describe('GraphQL typed fields', () => {
  it('trends', async () => {
    const r = await gql(
      srv,
      `query($q: TrendsQueryInput!) { trends(projectId: 1, query: $q) {
        hasMore timezone resolved_date_range { date_from date_to }
        results { label data days labels count breakdown_value breakdown_values action { id type order math } } } }`,
      { q: { series: [{ event: '$pageview', math: 'dau' }], dateRange: RANGE, breakdownFilter: { breakdown: '$browser', breakdown_limit: 1 } } },
    );
    expect(r.body.errors).toBeUndefined();
    const t = r.body.data.trends;
    expect(t.hasMore).toBe(true);
    expect(t.resolved_date_range).toEqual({ date_from: '2024-01-01T00:00:00Z', date_to: '2024-01-03T23:59:59.999999Z' });
    expect(t.results.map((x: any) => [x.breakdown_value, x.data])).toEqual([
      ['Chrome', [1, 1, 0]],
      ['$$_posthog_breakdown_other_$$', [0, 1, 1]],
    ]);
    expect(t.results[0].action).toEqual({ id: '$pageview', type: 'events', order: 0, math: 'dau' });
  });

  it('trends total value and property group', async () => {
    const r = await gql(
      srv,
      `query($q: TrendsQueryInput!) { trends(projectId: 1, query: $q) { results { label count aggregated_value action { id } } } }`,
      {
        q: {
          series: [{ event: '$pageview' }],
          dateRange: RANGE,
          trendsFilter: { display: 'BoldNumber' },
          propertyGroup: { type: 'OR', values: [{ type: 'event', key: '$browser', value: 'Safari' }, { type: 'person', key: 'plan', value: 'pro' }] },
        },
      },
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.trends.results[0]).toEqual({ label: '$pageview', count: 0, aggregated_value: 3, action: { id: '$pageview' } });
  });

  it('stickiness', async () => {
    const r = await gql(
      srv,
      `query($q: StickinessQueryInput!) { stickiness(projectId: 1, query: $q) { results { label data days labels count } } }`,
      { q: { series: [{ event: '$pageview' }], dateRange: RANGE, stickinessFilter: { computedAs: 'cumulative' } } },
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.stickiness.results[0]).toEqual({ label: '$pageview', data: [2, 2, 0], days: [1, 2, 3], labels: ['1 day or more', '2 days or more', '3 days or more'], count: 2 });
  });

  it('lifecycle', async () => {
    const r = await gql(srv, `query($q: LifecycleQueryInput!) { lifecycle(projectId: 1, query: $q) { results { status label data count } } }`, {
      q: { series: [{ event: '$pageview' }], dateRange: RANGE },
    });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.lifecycle.results.map((x: any) => [x.status, x.count])).toEqual([['new', 1], ['returning', 2], ['resurrecting', 1], ['dormant', -1]]);
  });

  it('errors carry the validation code', async () => {
    const r = await gql(srv, `query($q: TrendsQueryInput!) { trends(projectId: 1, query: $q) { hasMore } }`, {
      q: { series: [{ event: '$pageview', math: 'bogus' }] },
    });
    expect(r.body.errors[0].extensions.code).toBeDefined();
    expect(r.body.data).toBeNull();
  });
});
