/**
 * The engine-dependent cases of rest-posthog-compat-5.test.ts (PostHog's products/endpoints execution tests), for one
 * engine: an insight endpoint's run reads the events, so its breakdown values, magic variables and filters_override
 * must answer the same on DuckDB (rest-posthog-compat-5.test.ts) and ClickHouse (rest-posthog-compat-5.clickhouse.test.ts).
 */
import { newProject, type TestServer } from './server';

const SENTINEL = /\$\$_posthog_breakdown_(null|other)_\$\$/;

export function describeRestCompat5EndpointRuns(engine: string, server: () => TestServer): void {
  let s: TestServer;
  let p: number;
  const ep = () => `/api/environments/${p}/endpoints`;
  const trends = (breakdownFilter: Record<string, unknown>) => ({
    kind: 'TrendsQuery',
    series: [{ kind: 'EventsNode', event: '$pageview' }],
    dateRange: { date_from: '2024-01-01', date_to: '2024-01-03' },
    breakdownFilter: { breakdown: '$browser', breakdown_type: 'event', ...breakdownFilter },
  });
  type Series = { breakdown_value: unknown; data: number[]; count: number; days: string[] };
  const byValue = (results: Series[]) => Object.fromEntries(results.map((r) => [String(r.breakdown_value), r.data]));

  beforeAll(async () => {
    s = server();
    p = await newProject(s, `rest-compat-5 runs ${engine}`);
    await s.server.services.ingestor.import(p, {
      events: [
        { event: '$pageview', distinct_id: 'u1', timestamp: '2024-01-01T10:00:00Z', properties: { $browser: 'Chrome' } },
        { event: '$pageview', distinct_id: 'u5', timestamp: '2024-01-03T10:00:00Z', properties: { $browser: 'Chrome' } },
        { event: '$pageview', distinct_id: 'u2', timestamp: '2024-01-02T10:00:00Z', properties: { $browser: 'Safari' } },
        { event: '$pageview', distinct_id: 'u3', timestamp: '2024-01-02T11:00:00Z', properties: {} },
      ],
    });
    await s.server.services.ingestor.flush();
    for (const [name, query] of [
      ['by_browser', trends({})],
      ['top_browser', trends({ breakdown_limit: 1 })],
    ] as const) {
      const r = await s.api('POST', `${ep()}/`, { name, query });
      expect(r.status).toBe(201);
    }
  });

  describe(`insight endpoint runs (products/endpoints execution tests, reference §1.6) on ${engine}`, () => {
    it('breakdown sentinels are cleaned in a run: the null breakdown is null; the query API keeps PostHog’s marker', async () => {
      const r = await s.api('POST', `${ep()}/by_browser/run/`, {});
      expect(r.status).toBe(200);
      expect(r.text).not.toMatch(SENTINEL);
      expect(byValue(r.body.results)).toEqual({ Chrome: [1, 0, 1], Safari: [0, 1, 0], null: [0, 1, 0] });
      expect(r.body.results.find((x: Series) => x.breakdown_value === null)).toMatchObject({ count: 1 });
      // the same query through the query API: the runner's answer, sentinel included
      const q = await s.api('POST', `/api/projects/${p}/query/`, { query: trends({}) });
      expect(q.body.results.map((x: Series) => x.breakdown_value)).toContain('$$_posthog_breakdown_null_$$');
      // a cached run is cleaned too
      const again = await s.api('POST', `${ep()}/by_browser/run/`, {});
      expect([again.body.is_cached, again.text.match(SENTINEL)]).toEqual([true, null]);
    });

    it('the values past breakdown_limit come back as "Other"', async () => {
      const r = await s.api('POST', `${ep()}/top_browser/run/`, {});
      expect(r.status).toBe(200);
      expect(r.text).not.toMatch(SENTINEL);
      const values = r.body.results.map((x: Series) => x.breakdown_value);
      expect(values).toContain('Chrome');
      expect(values).toContain('Other');
      expect(byValue(r.body.results).Chrome).toEqual([1, 0, 1]);
    });

    it('a breakdown variable filters on that value; "" selects the events without it (is_not_set)', async () => {
      const chrome = await s.api('POST', `${ep()}/by_browser/run/`, { variables: { $browser: 'Chrome' } });
      expect(chrome.body.results.map((x: Series) => [x.breakdown_value, x.count])).toEqual([['Chrome', 2]]);
      const unset = await s.api('POST', `${ep()}/by_browser/run/`, { variables: { $browser: '' } });
      expect(unset.status).toBe(200);
      expect(unset.body.results.map((x: Series) => [x.breakdown_value, x.data])).toEqual([[null, [0, 1, 0]]]);
    });

    it('filters_override (deprecated) on an insight endpoint: applied with the dashboard-filter semantics, and a warning header', async () => {
      const both = await s.api('POST', `${ep()}/by_browser/run/`, { filters_override: { date_from: '2024-01-02', date_to: '2024-01-03' } });
      expect(both.status).toBe(200);
      expect(both.headers.get('x-posthog-warn')).toMatch(/^filters_override is deprecated/);
      expect(both.body.results[0].days).toEqual(['2024-01-02', '2024-01-03']);
      expect(byValue(both.body.results)).toEqual({ Chrome: [0, 1], Safari: [1, 0], null: [1, 0] });
      // date_from alone replaces the whole range: date_to becomes null (up to now), as on the query API (§9.1)
      const from = await s.api('POST', `${ep()}/by_browser/run/`, { filters_override: { date_from: '2024-01-02' } });
      expect(from.body.results[0].days[0]).toBe('2024-01-02');
      expect(from.body.results[0].days.length).toBeGreaterThan(2);
      // properties are ANDed with the query's
      const props = await s.api('POST', `${ep()}/by_browser/run/`, { filters_override: { properties: [{ key: '$browser', value: 'Safari', type: 'event' }] } });
      expect(byValue(props.body.results)).toEqual({ Safari: [0, 1, 0] });
      // a run without it carries no warning
      expect((await s.api('POST', `${ep()}/by_browser/run/`, {})).headers.get('x-posthog-warn')).toBeNull();
      const bad = await s.api('POST', `${ep()}/by_browser/run/`, { filters_override: { date_from: 5 } });
      expect([bad.status, bad.body.attr]).toEqual([400, 'filters_override__date_from']);
    });
  });
}
