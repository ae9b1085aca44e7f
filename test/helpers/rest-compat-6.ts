/**
 * The engine-dependent cases of rest-posthog-compat-6.test.ts (PostHog's test_insight.py legacy trend and funnel
 * routes), for one engine: they read the events, so they must answer the same on DuckDB (rest-posthog-compat-6.test.ts)
 * and ClickHouse (rest-posthog-compat-6.clickhouse.test.ts). PostHog freezes time a day after its events; here the
 * events are a few hours old, inside the routes' default range (the last 7 days).
 */
import { newProject, type TestServer } from './server';

export function describeRestCompat6Legacy(engine: string, server: () => TestServer): void {
  let s: TestServer;
  let p: number;
  const legacy = (route: string, params: Record<string, unknown>) =>
    `/api/projects/${p}/insights/${route}/?${Object.entries(params)
      .map(([k, v]) => `${k}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`)
      .join('&')}`;

  beforeAll(async () => {
    s = server();
    p = await newProject(s, `rest-compat-6 legacy ${engine}`);
    const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();
    await s.server.services.ingestor.import(p, {
      events: [
        { event: '$pageview', distinct_id: '1', timestamp: hoursAgo(3), properties: { $browser: 'Mac' } },
        { event: '$pageview', distinct_id: '2', timestamp: hoursAgo(3), properties: { $browser: 'Windows' } },
        { event: 'user signed up', distinct_id: '1', timestamp: hoursAgo(2) },
        { event: 'user did things', distinct_id: '1', timestamp: hoursAgo(1) },
      ],
    });
    await s.server.services.ingestor.flush();
  });

  describe(`legacy insight routes (test_insight.py) on ${engine}`, () => {
    it('test_insight_trends_basic: the count, the series’ action name and the timezone', async () => {
      const r = await s.api('GET', legacy('trend', { events: [{ id: '$pageview' }] }));
      expect(r.status).toBe(200);
      expect(r.body.result[0].count).toBe(2);
      expect(r.body.result[0].action.name).toBe('$pageview');
      expect(r.body.timezone).toBe('UTC');
    });

    it('test_insight_trends_clean_arg: a series’ own property filter applies; an empty properties list is no filter', async () => {
      const r = await s.api('GET', legacy('trend', { events: [{ id: '$pageview', properties: [{ key: '$browser', value: 'Mac' }] }], properties: [] }));
      expect(r.status).toBe(200);
      expect(r.body.result[0].count).toBe(1);
    });

    it.each(['POST', 'GET'])('test_insight_funnels_basic_%s: one step object per event, named, with its count', async (method) => {
      const params = {
        events: [
          { id: 'user signed up', type: 'events', order: 0 },
          { id: 'user did things', type: 'events', order: 1 },
        ],
        funnel_window_days: 14,
      };
      const r = method === 'POST' ? await s.api('POST', `/api/projects/${p}/insights/funnel/`, params) : await s.api('GET', legacy('funnel', params));
      expect(r.status).toBe(200);
      expect(r.body.result).toHaveLength(2);
      expect(r.body.result.map((x: { name: string; count: number }) => [x.name, x.count])).toEqual([
        ['user signed up', 1],
        ['user did things', 1],
      ]);
    });
  });
}
