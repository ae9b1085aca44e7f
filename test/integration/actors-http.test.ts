import { startServer, type TestServer } from '../helpers/server';

/** ActorsQuery through POST /api/projects/<id>/query/: the persons modal of a trends point, and its errors. */
let s: TestServer;
let other: number;
beforeAll(async () => {
  s = await startServer();
  const created = await s.api('POST', '/api/projects/', { name: 'Other' });
  other = created.body.id;
  const ing = s.server.services.ingestor;
  await ing.import(1, {
    persons: [
      { distinct_ids: ['a'], properties: { email: 'a@example.com' } },
      { distinct_ids: ['b'], properties: { email: 'b@example.com' } },
    ],
    events: [
      { event: '$pageview', distinct_id: 'a', timestamp: '2024-01-01T10:00:00Z', properties: {} },
      { event: '$pageview', distinct_id: 'a', timestamp: '2024-01-01T11:00:00Z', properties: {} },
      { event: '$pageview', distinct_id: 'b', timestamp: '2024-01-01T12:00:00Z', properties: {} },
      { event: '$pageview', distinct_id: 'b', timestamp: '2024-01-02T12:00:00Z', properties: {} },
    ],
  });
  await ing.import(other, {
    persons: [{ distinct_ids: ['a'], properties: { email: 'other@example.com' } }],
    events: [{ event: '$pageview', distinct_id: 'a', timestamp: '2024-01-01T10:00:00Z', properties: {} }],
  });
  await ing.flush();
});
afterAll(async () => {
  await s.close();
});

const trends = {
  kind: 'TrendsQuery',
  series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }],
  dateRange: { date_from: '2024-01-01', date_to: '2024-01-02' },
};
const modal = (day: string) => ({
  kind: 'ActorsQuery',
  source: { kind: 'InsightActorsQuery', source: trends, day },
  select: ['actor', 'event_count'],
});

it('the actors of a trends point: persons with their event counts, most events first', async () => {
  const res = await s.api('POST', '/api/projects/1/query/', { query: modal('2024-01-01') });
  expect(res.status).toBe(200);
  expect(res.body.columns).toEqual(['actor', 'event_count']);
  expect(res.body.results.map((r: any[]) => [r[0].distinct_ids, r[0].properties.email, r[1]])).toEqual([
    [['a'], 'a@example.com', 2],
    [['b'], 'b@example.com', 1],
  ]);
  expect(res.body).toMatchObject({ hasMore: false, limit: 100, offset: 0, missing_actors_count: 0 });
  const insight = await s.api('POST', '/api/projects/1/query/', { query: trends });
  expect(insight.body.results[0].data).toEqual([res.body.results.length, 1]);
});

it("another project's point lists only its own persons", async () => {
  const res = await s.api('POST', `/api/projects/${other}/query/`, { query: modal('2024-01-01') });
  expect(res.status).toBe(200);
  expect(res.body.results.map((r: any[]) => r[0].properties.email)).toEqual(['other@example.com']);
});

it.each<[string, unknown]>([
  ['a day outside the range', modal('2023-01-01')],
  ['a source of an unknown kind', { kind: 'ActorsQuery', source: { kind: 'PathsQuery' } }],
  ['an unknown field', { ...modal('2024-01-01'), bogus: true }],
])('%s is a 400 validation error', async (_name, query) => {
  const res = await s.api('POST', '/api/projects/1/query/', { query });
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ type: 'validation_error', code: expect.any(String), detail: expect.any(String) });
});
