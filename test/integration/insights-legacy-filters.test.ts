/**
 * Legacy insight `filters` over REST: filters-only insights (saved as given, run as the query PostHog's
 * `filter_to_query` makes of them, which they show as their `query`), their updates and validation, and the legacy
 * `GET|POST …/insights/trend/` and `…/insights/funnel/` routes (PostHog's `test_insight.py` shapes).
 */
import { newKey, startServer, type TestServer } from '../helpers/server';

let s: TestServer;
let other: number;
let readKey: string;
let queryOnlyKey: string;

const BASE = '/api/projects/1/insights/';
const RANGE = { date_from: '2024-01-01', date_to: '2024-01-03' };
const ev = (event: string, d: string, ts: string, properties: Record<string, unknown> = {}) => ({ event, distinct_id: d, timestamp: ts, properties });
const pageviews = { events: [{ id: '$pageview' }], ...RANGE };

/** The node PostHog's query_from_filters gives `pageviews`. */
const pageviewsQuery = {
  kind: 'InsightVizNode',
  full: true,
  source: { kind: 'TrendsQuery', dateRange: RANGE, series: [{ kind: 'EventsNode', event: '$pageview', name: '$pageview' }] },
};

const qs = (params: Record<string, unknown>) =>
  new URLSearchParams(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])).toString();

beforeAll(async () => {
  s = await startServer();
  other = (await s.api('POST', '/api/projects/', { name: 'other' })).body.id;
  const ing = s.server.services.ingestor;
  await ing.import(1, {
    events: [
      ev('$pageview', 'u1', '2024-01-01T10:00:00Z', { $browser: 'Chrome' }),
      ev('$pageview', 'u1', '2024-01-01T11:00:00Z', { $browser: 'Chrome' }),
      ev('signup', 'u1', '2024-01-01T12:00:00Z'),
      ev('$pageview', 'u2', '2024-01-02T10:00:00Z', { $browser: 'Safari' }),
      ev('$pageview', 'u3', '2024-01-03T10:00:00Z', { $browser: 'Safari' }),
      ev('signup', 'u3', '2024-01-03T10:30:00Z'),
    ],
  });
  // another project's events must never show in project 1's answers
  await ing.import(other, { events: Array.from({ length: 7 }, (_, k) => ev('$pageview', `o${k}`, '2024-01-02T09:00:00Z', { $browser: 'Chrome' })) });
  await ing.flush();
  [readKey, queryOnlyKey] = await Promise.all([newKey(s, ['insight:read']), newKey(s, ['query:read'])]);
});
afterAll(() => s.close());

describe('filters-only insights', () => {
  it('create: filters saved as given, the converted query shown and run, the same answer as the query API', async () => {
    const filters = { ...pageviews, display: 'ActionsLineGraph', interval: 'day' };
    const r = await s.api('POST', BASE, { name: 'legacy', filters });
    expect(r.status).toBe(201);
    const source = { ...pageviewsQuery.source, interval: 'day', trendsFilter: { display: 'ActionsLineGraph' } };
    expect(r.body).toMatchObject({ name: 'legacy', derived_name: 'Pageview count', filters, query: { ...pageviewsQuery, source }, result: null });

    const got = await s.api('GET', `${BASE}${r.body.id}/?refresh=blocking`);
    expect(got.status).toBe(200);
    expect(got.body.filters).toEqual(filters);
    expect(got.body.result).toHaveLength(1);
    expect(got.body.result[0]).toMatchObject({ count: 4, data: [2, 1, 1], days: ['2024-01-01', '2024-01-02', '2024-01-03'] });
    const direct = await s.api('POST', '/api/projects/1/query/', { query: source });
    expect(direct.body.results).toEqual(got.body.result);
    // one cache: the query API's answer is the insight's
    expect((await s.api('GET', `${BASE}${r.body.id}/`)).body).toMatchObject({ is_cached: true, result: got.body.result });
  });

  it('filters_override applies to the converted query; the list filter by insight type sees it', async () => {
    const funnel = await s.api('POST', BASE, { filters: { insight: 'FUNNELS', events: [{ id: '$pageview', order: 0 }, { id: 'signup', order: 1 }], ...RANGE } });
    expect(funnel.status).toBe(201);
    expect(funnel.body.query.source).toMatchObject({ kind: 'FunnelsQuery' });
    const steps = (await s.api('GET', `${BASE}${funnel.body.id}/?refresh=blocking`)).body.result;
    expect(steps.map((x: { count: number }) => x.count)).toEqual([3, 2]);
    const narrowed = await s.api('GET', `${BASE}${funnel.body.id}/?refresh=blocking&filters_override=${encodeURIComponent(JSON.stringify({ date_from: '2024-01-01', date_to: '2024-01-01' }))}`);
    expect(narrowed.body.result.map((x: { count: number }) => x.count)).toEqual([1, 1]);
    const listed = await s.api('GET', `${BASE}?insight=FUNNELS&basic=true`);
    expect(listed.body.results.map((i: { id: number }) => i.id)).toContain(funnel.body.id);
  });

  it.each([
    ['RETENTION', { insight: 'RETENTION', target_entity: { id: '$pageview', type: 'events' }, returning_entity: { id: 'signup', type: 'events' }, period: 'Day', total_intervals: 3, ...RANGE }],
    ['PATHS', { insight: 'PATHS', include_event_types: ['$pageview', 'custom_event'], ...RANGE }],
    ['STICKINESS', { insight: 'STICKINESS', ...pageviews }],
    ['LIFECYCLE', { insight: 'LIFECYCLE', ...pageviews }],
  ])('a %s filters-only insight runs its converted query', async (type, filters) => {
    const r = await s.api('POST', BASE, { filters });
    expect(r.status).toBe(201);
    const got = await s.api('GET', `${BASE}${r.body.id}/?refresh=blocking`);
    const direct = await s.api('POST', '/api/projects/1/query/', { query: r.body.query.source });
    expect([type, got.status, Array.isArray(got.body.result)]).toEqual([type, 200, true]);
    expect(got.body.result).toEqual(direct.body.results);
  });

  it('PATCH filters re-converts (material: last_modified_at and the activity log); PATCH query replaces them', async () => {
    const created = (await s.api('POST', BASE, { filters: pageviews })).body;
    await new Promise((r) => setTimeout(r, 5));
    const patched = await s.api('PATCH', `${BASE}${created.id}/`, { filters: { ...pageviews, events: [{ id: 'signup', math: 'dau' }] } });
    expect(patched.status).toBe(200);
    expect(patched.body.filters.events).toEqual([{ id: 'signup', math: 'dau' }]);
    expect(patched.body.query.source.series).toEqual([{ kind: 'EventsNode', event: 'signup', name: 'signup', math: 'dau' }]);
    expect(patched.body.derived_name).toBe('signup unique users');
    expect(Date.parse(patched.body.last_modified_at)).toBeGreaterThan(Date.parse(created.last_modified_at));
    const activity = (await s.api('GET', `${BASE}${created.id}/activity/`)).body.results;
    expect(activity[0].detail.changes).toContainEqual({
      type: 'Insight',
      action: 'changed',
      field: 'filters',
      before: pageviews,
      after: { ...pageviews, events: [{ id: 'signup', math: 'dau' }] },
    });
    expect(activity[activity.length - 1]).toMatchObject({ activity: 'created', detail: { changes: null } }); // as PostHog's create

    const query = { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }] } };
    const toQuery = await s.api('PATCH', `${BASE}${created.id}/`, { query });
    expect(toQuery.body).toMatchObject({ filters: {}, query });
  });

  it('filters sent to an insight that has a query are ignored (the query wins), unless the query is cleared', async () => {
    const query = { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'signup' }], dateRange: RANGE } };
    const both = await s.api('POST', BASE, { query, filters: pageviews });
    expect(both.body).toMatchObject({ query, filters: {} });
    const ignored = await s.api('PATCH', `${BASE}${both.body.id}/`, { filters: pageviews });
    expect(ignored.body).toMatchObject({ query, filters: {} });
    expect((await s.api('GET', `${BASE}${both.body.id}/activity/`)).body.results).toHaveLength(1);
    const cleared = await s.api('PATCH', `${BASE}${both.body.id}/`, { query: null, filters: pageviews });
    expect(cleared.body).toMatchObject({ query: pageviewsQuery, filters: pageviews });
    // a full PUT with filters and no query is a filters-only insight too
    const put = await s.api('PUT', `${BASE}${both.body.id}/`, { name: 'put', filters: { ...pageviews, interval: 'week' } });
    expect(put.body).toMatchObject({ name: 'put', filters: { ...pageviews, interval: 'week' }, query: { source: { interval: 'week' } } });
  });

  it("test_update_insight_filters: a series' custom_name is saved as trimmed text, blank as null", async () => {
    const created = (await s.api('POST', BASE, { filters: pageviews })).body;
    for (const [custom, expected] of [
      [-1, '-1'],
      [0, '0'],
      [1, '1'],
      ['', null],
      ['  ', null],
      ['custom-name', 'custom-name'],
    ] as const) {
      const r = await s.api('PATCH', `${BASE}${created.id}/`, { filters: { events: [{ id: '$pageview', custom_name: custom }] } });
      expect([custom, r.status, r.body.filters.events[0].custom_name]).toEqual([custom, 200, expected]);
    }
  });

  it('an existing query-only insight is unchanged: filters {} and its query as sent', async () => {
    const query = { kind: 'HogQLQuery', query: 'SELECT count() FROM events' };
    const r = await s.api('POST', BASE, { name: 'sql', query, filters: {} });
    expect(r.body).toMatchObject({ filters: {}, query });
    expect((await s.api('PATCH', `${BASE}${r.body.id}/`, { name: 'sql2', filters: {} })).body).toMatchObject({ name: 'sql2', filters: {}, query });
  });

  it.each([
    ['filters not an object', { filters: 'events' }, 'filters'],
    ['filters a list', { filters: [{ events: [] }] }, 'filters'],
    ['an unknown insight type', { filters: { insight: 'PIES', events: [{ id: 'a' }] } }, 'filters__insight'],
    ['a series that is not an object', { filters: { events: [5] } }, 'filters__events__0'],
    ['an unknown math', { filters: { events: [{ id: 'a', math: 'sideways' }] } }, 'filters'],
    ['a funnel without steps', { filters: { insight: 'FUNNELS', date_from: '-7d' } }, 'filters'],
    ['unreadable properties', { filters: { events: [{ id: 'a' }], properties: 'nope' } }, 'filters__properties'],
    ['a funnel with two breakdowns', { filters: { insight: 'FUNNELS', events: [{ id: 'a' }], breakdowns: [{ property: 'a' }, { property: 'b' }] } }, 'filters__breakdowns'],
  ])('%s → 400 and nothing saved', async (_, body, attr) => {
    const before = (await s.api('GET', `${BASE}?basic=true&limit=1`)).body.count;
    const r = await s.api('POST', BASE, body);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ type: 'validation_error', attr });
    expect((await s.api('GET', `${BASE}?basic=true&limit=1`)).body.count).toBe(before);
  });

  it('trends without events: saved with no series (PostHog runs such a query to no results)', async () => {
    const r = await s.api('POST', BASE, { filters: { insight: 'TRENDS', date_from: '-7d' } });
    expect(r.status).toBe(201);
    expect(r.body.query).toMatchObject({ kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [] } });
  });

  it('an invalid PATCH leaves the insight as it was', async () => {
    const created = (await s.api('POST', BASE, { filters: pageviews })).body;
    const r = await s.api('PATCH', `${BASE}${created.id}/`, { name: 'renamed', filters: { events: [{ id: 'a', math: 'sideways' }] } });
    expect(r.body).toMatchObject({ type: 'validation_error', attr: 'filters', detail: expect.stringContaining('series.0.math') });
    expect((await s.api('GET', `${BASE}${created.id}/`)).body).toMatchObject({ name: null, filters: pageviews, query: pageviewsQuery });
  });

  it("another project's insights and events stay apart", async () => {
    const mine = (await s.api('POST', BASE, { filters: pageviews })).body;
    expect((await s.api('GET', `/api/projects/${other}/insights/${mine.id}/`)).status).toBe(404);
    const theirs = await s.api('POST', `/api/projects/${other}/insights/`, { filters: pageviews });
    const r = await s.api('GET', `/api/projects/${other}/insights/${theirs.body.id}/?refresh=blocking`);
    expect(r.body.result[0].data).toEqual([0, 7, 0]);
  });
});

describe('legacy /insights/trend/ and /insights/funnel/', () => {
  it('GET /trend/ with JSON-text parameters answers the legacy envelope', async () => {
    const r = await s.api('GET', `${BASE}trend/?${qs({ ...pageviews, interval: 'day' })}`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['is_cached', 'last_refresh', 'next', 'result', 'timezone', 'timings']);
    expect(r.body).toMatchObject({ timezone: 'UTC', next: null, is_cached: false });
    expect(r.body.result).toHaveLength(1);
    expect(r.body.result[0]).toMatchObject({ label: '$pageview', count: 4, data: [2, 1, 1], days: ['2024-01-01', '2024-01-02', '2024-01-03'] });
    expect(r.body.timings.map((t: { k: string }) => t.k)).toEqual(['./calculate', '.']);
    // the same again comes from the cache; refresh recalculates
    expect((await s.api('GET', `${BASE}trend/?${qs({ ...pageviews, interval: 'day' })}`)).body.is_cached).toBe(true);
    expect((await s.api('GET', `${BASE}trend/?${qs({ ...pageviews, interval: 'day', refresh: 'true' })}`)).body.is_cached).toBe(false);
  });

  it('POST /trend/ (the body over the query string) with properties, breakdown and math; the environments alias', async () => {
    const body = {
      events: [{ id: '$pageview', math: 'dau' }],
      breakdown: '$browser',
      properties: [{ key: '$browser', value: ['Chrome', 'Safari'], operator: 'exact' }],
      ...RANGE,
    };
    const r = await s.api('POST', `/api/environments/1/insights/trend/?date_from=2020-01-01`, body);
    expect(r.status).toBe(200);
    const byValue = Object.fromEntries(r.body.result.map((x: { breakdown_value: string; data: number[] }) => [x.breakdown_value, x.data]));
    expect(byValue).toEqual({ Chrome: [1, 0, 0], Safari: [0, 1, 1] });
  });

  it('/trend/ answers stickiness when asked (insight or shown_as); both routes answer [] without series', async () => {
    const r = await s.api('GET', `${BASE}trend/?${qs({ ...pageviews, shown_as: 'Stickiness' })}`);
    expect(r.status).toBe(200);
    // each person viewed on one day of the three
    expect(r.body.result[0]).toMatchObject({ days: [1, 2, 3], data: [3, 0, 0] });
    expect((await s.api('GET', `${BASE}trend/?${qs({ ...pageviews, insight: 'STICKINESS' })}`)).body.result).toEqual(r.body.result);
    const none = await s.api('GET', `${BASE}trend/?date_from=-7d`);
    expect(none.body).toMatchObject({ result: [], next: null });
    expect((await s.api('GET', `${BASE}funnel/`)).body).toMatchObject({ result: [], is_cached: false });
  });

  it('test_insight_trends_breakdown_pagination: a full page of breakdown values has a next page', async () => {
    const p = (await s.api('POST', '/api/projects/', { name: 'paging' })).body.id;
    const ing = s.server.services.ingestor;
    await ing.import(p, { events: Array.from({ length: 30 }, (_, k) => ev('$pageview', '1', '2024-01-02T03:21:34Z', { $some_property: `value${k}` })) });
    await ing.flush();
    const r = await s.api('GET', `/api/projects/${p}/insights/trend/?${qs({ ...pageviews, breakdown: '$some_property', breakdown_type: 'event' })}`);
    expect(r.status).toBe(200);
    expect(r.body.next).toContain('offset=25');
    expect(new URL(r.body.next).pathname).toBe(`/api/projects/${p}/insights/trend/`);
  });

  it('GET /funnel/ is always a funnel; a POSTed single-property breakdown answers single values (old clients)', async () => {
    const steps = [{ id: '$pageview', order: 0 }, { id: 'signup', order: 1 }];
    const r = await s.api('GET', `${BASE}funnel/?${qs({ insight: 'TRENDS', events: steps, ...RANGE })}`);
    expect(r.status).toBe(200);
    expect(r.body.next).toBeUndefined();
    expect(r.body.result.map((x: { name: string; count: number }) => [x.name, x.count])).toEqual([
      ['$pageview', 3],
      ['signup', 2],
    ]);
    const posted = await s.api('POST', `${BASE}funnel/`, { insight: 'FUNNELS', events: steps, breakdown: '$browser', breakdown_type: 'event', ...RANGE });
    expect(posted.status).toBe(200);
    const first = posted.body.result.map((series: { breakdown_value: unknown; count: number }[]) => [series[0].breakdown_value, series.map((x) => x.count)]);
    expect(first).toEqual(expect.arrayContaining([['Chrome', [1, 1]], ['Safari', [2, 1]]]));
    // GET parameters are not the posted data PostHog looks at: the values stay lists
    const listed = await s.api('GET', `${BASE}funnel/?${qs({ events: steps, breakdown: '$browser', breakdown_type: 'event', ...RANGE })}`);
    expect(listed.body.result.map((series: { breakdown_value: unknown }[]) => series[0].breakdown_value)).toEqual(expect.arrayContaining([['Chrome'], ['Safari']]));
  });

  it('bad parameters are 400s naming them; scope insight:read; other projects are 404', async () => {
    const bad = await s.api('GET', `${BASE}trend/?events=[{`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ type: 'validation_error', attr: 'events' });
    const math = await s.api('GET', `${BASE}trend/?${qs({ events: [{ id: 'a', math: 'sideways' }] })}`);
    expect(math.body).toMatchObject({ type: 'validation_error', attr: null, detail: expect.stringContaining('series.0.math') });
    expect((await s.api('POST', `${BASE}funnel/`, '[1]')).body).toMatchObject({ code: 'parse_error' });
    expect((await s.api('GET', `${BASE}trend/?${qs(pageviews)}`, undefined, readKey)).status).toBe(200);
    const denied = await s.api('GET', `${BASE}trend/?${qs(pageviews)}`, undefined, queryOnlyKey);
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toBe("API key missing required scope 'insight:read'");
    expect((await s.api('GET', `/api/projects/987654/insights/trend/?${qs(pageviews)}`)).status).toBe(404);
  });

  // PostHog's InsightViewSet.retention (GET only; RetentionFilter's default of 11 periods, $pageview both ways) and
  // InsightViewSet.path (GET and POST; PathFilter with insight PATHS), answered in the legacy envelope
  it('test_insight_retention_basic / test_insight_paths_basic: the legacy retention and path routes', async () => {
    const p = (await s.api('POST', '/api/projects/', { name: 'legacy retention and paths' })).body.id;
    const ago = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
    await s.server.services.ingestor.import(p, {
      persons: [{ distinct_ids: ['person1'], properties: { email: 'person1@test.com' } }, { distinct_ids: ['person_1'], properties: { $os: 'Mac' } }],
      events: [
        ev('$pageview', 'person1', ago(11)),
        ev('$pageview', 'person1', ago(10)),
        ev('$pageview', 'person_1', ago(0.02), { $current_url: '/', test: 'val' }),
        ev('$pageview', 'person_1', ago(0.01), { $current_url: '/another/page', test: 'val' }),
      ],
    });
    await s.server.services.ingestor.flush();
    const base = `/api/projects/${p}/insights/`;
    const retention = await s.api('GET', `${base}retention/`);
    expect(retention.status).toBe(200);
    expect(retention.body).toMatchObject({ timezone: 'UTC', is_cached: false });
    expect(retention.body.result).toHaveLength(11);
    expect(retention.body.result[0]).toMatchObject({ label: 'Day 0' });
    expect((await s.api('GET', `${base}retention/?${qs({ total_intervals: 5 })}`)).body.result).toHaveLength(5);
    expect((await s.api('POST', `${base}retention/`, {})).status).toBe(405);
    const path = await s.api('GET', `${base}path/?${qs({ properties: [{ key: 'test', value: 'val' }] })}`);
    expect(path.status).toBe(200);
    expect(path.body.result).toHaveLength(1);
    expect(path.body.result[0]).toMatchObject({ source: '1_/', target: '2_/another/page', value: 1 });
    const posted = await s.api('POST', `${base}path/`, { properties: [{ key: 'test', value: 'val' }] });
    expect([posted.status, posted.body.result]).toEqual([200, path.body.result]);
    expect((await s.api('GET', `${base}path/?${qs({ properties: [{ key: 'test', value: 'other' }] })}`)).body.result).toEqual([]);
    expect((await s.api('GET', `${base}path/`, undefined, queryOnlyKey)).status).toBe(403);
  });

  // events of just now and no date range: the funnel's default range (the last 7 days) holds them
  it('test_insight_funnels_basic_post / test_insight_funnels_basic_get: two steps, one person through both', async () => {
    const p = (await s.api('POST', '/api/projects/', { name: 'legacy funnels basic' })).body.id;
    const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
    await s.server.services.ingestor.import(p, {
      persons: [{ distinct_ids: ['1'], properties: {} }],
      events: [ev('user signed up', '1', ago(10)), ev('user did things', '1', ago(5))],
    });
    await s.server.services.ingestor.flush();
    const events = [
      { id: 'user signed up', type: 'events', order: 0 },
      { id: 'user did things', type: 'events', order: 1 },
    ];
    const posted = await s.api('POST', `/api/projects/${p}/insights/funnel/`, { events, funnel_window_days: 14 });
    const got = await s.api('GET', `/api/projects/${p}/insights/funnel/?${qs({ funnel_window_days: 14, events })}`);
    for (const r of [posted, got]) {
      expect(r.status).toBe(200);
      expect(r.body.timezone).toBe('UTC');
      expect(r.body.result.map((step: { name: string; count: number }) => [step.name, step.count])).toEqual([
        ['user signed up', 1],
        ['user did things', 1],
      ]);
    }
  });
});

describe('over GraphQL', () => {
  it('createInsight with filters shows them and their query, and computes the same result as REST', async () => {
    const { gql } = await import('../helpers/server');
    const r = await gql(s, 'mutation($f: JSON) { createInsight(projectId: 1, input: { name: "gql legacy", filters: $f }) { id filters query } }', { f: pageviews });
    expect(r.body.errors).toBeUndefined();
    const made = r.body.data.createInsight;
    expect(made.filters).toEqual(pageviews);
    expect(made.query).toEqual(pageviewsQuery);
    const rest = (await s.api('GET', `${BASE}${made.id}/?refresh=blocking`)).body;
    const viaGql = await gql(s, 'query($id: ID!) { insight(projectId: 1, id: $id, refresh: "blocking") { result filters } }', { id: String(made.id) });
    expect(viaGql.body.data.insight).toEqual({ result: rest.result, filters: pageviews });
    // with a query, the query wins and filters read {}
    const both = await gql(s, 'mutation($f: JSON, $q: JSON) { createInsight(projectId: 1, input: { name: "gql both", filters: $f, query: $q }) { filters query } }', {
      f: pageviews,
      q: pageviewsQuery,
    });
    expect(both.body.data.createInsight).toEqual({ filters: {}, query: pageviewsQuery });
  });
});
