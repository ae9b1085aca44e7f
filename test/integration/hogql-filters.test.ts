import { startServer, type TestServer } from '../helpers/server';

/** HogQLQuery `filters` over `POST /api/projects/<id>/query/` (PostHog's `{filters}` placeholder, reference §8.3). */
let s: TestServer;
beforeAll(async () => {
  s = await startServer();
  const ing = s.server.services.ingestor;
  const e = (id: string, day: string, browser: string) => ({ event: '$pageview', distinct_id: id, timestamp: `2024-01-${day}T12:00:00Z`, properties: { $browser: browser } });
  await ing.import(1, { persons: [], events: [e('a', '01', 'Chrome'), e('b', '02', 'Safari'), e('c', '03', 'Chrome')] });
  await ing.flush();
});
afterAll(async () => {
  await s.close();
});

const query = (filters?: unknown) => ({ query: { kind: 'HogQLQuery', query: 'select count() from events where {filters}', ...(filters ? { filters } : {}) } });

it('expands {filters} with the query filters; each filters value is its own cache entry', async () => {
  const all = await s.api('POST', '/api/projects/1/query/', query());
  expect([all.status, all.body.results]).toEqual([200, [[3]]]);
  const chrome = await s.api('POST', '/api/projects/1/query/', query({ properties: [{ type: 'event', key: '$browser', operator: 'exact', value: 'Chrome' }] }));
  expect([chrome.status, chrome.body.results, chrome.body.is_cached]).toEqual([200, [[2]], false]);
  const dated = await s.api('POST', '/api/projects/1/query/', query({ dateRange: { date_from: '2024-01-02', date_to: '2024-01-03' } }));
  expect(dated.body.results).toEqual([[1]]);
  // PostHog's hogql print: operators as functions, date_to before date_from, datetime constants (test_query.py test_hogql_query_filters)
  expect(dated.body.hogql).toBe("SELECT count() FROM events WHERE and(less(timestamp, toDateTime('2024-01-03 00:00:00.000000')), greaterOrEquals(timestamp, toDateTime('2024-01-02 00:00:00.000000'))) LIMIT 100");
});

it('unknown keys in filters are a 400 naming them', async () => {
  const r = await s.api('POST', '/api/projects/1/query/', query({ nope: true }));
  expect(r.status).toBe(400);
  expect(r.body.attr).toMatch(/^query__filters/);
});
