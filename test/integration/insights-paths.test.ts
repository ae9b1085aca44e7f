import { gql, startServer, type TestServer } from '../helpers/server';

let s: TestServer;
const t = (m: number) => new Date(Date.UTC(2024, 0, 2, 10, m)).toISOString();
beforeAll(async () => {
  s = await startServer();
  const ing = s.server.services.ingestor;
  const pv = (id: string, url: string, m: number) => ({ event: '$pageview', distinct_id: id, timestamp: t(m), properties: { $current_url: url } });
  await ing.import(1, {
    persons: ['a', 'b'].map((id) => ({ distinct_ids: [id], properties: {} })),
    events: [pv('a', '/home/', 0), pv('a', '/pricing', 1), pv('b', '/home', 0), pv('b', '/pricing', 3), pv('b', '/signup', 40)],
  });
  await ing.flush();
});
afterAll(async () => {
  await s.close();
});

const query = { kind: 'PathsQuery', dateRange: { date_from: '2024-01-01', date_to: '2024-01-05' }, pathsFilter: { includeEventTypes: ['$pageview'] } };

it('PathsQuery over HTTP: edges with counts and ms conversion times; 30-minute split', async () => {
  const res = await s.api('POST', '/api/projects/1/query/', { query });
  expect(res.status).toBe(200);
  expect(res.body.results).toEqual([{ source: '1_/home', target: '2_/pricing', value: 2, average_conversion_time: 120_000 }]);
});

it('PathsQuery over HTTP: a bad stepLimit is a 400', async () => {
  const res = await s.api('POST', '/api/projects/1/query/', { query: { ...query, pathsFilter: { stepLimit: 'x' } } });
  expect(res.status).toBe(400);
});

it('PathsQuery over GraphQL: typed links', async () => {
  const res = await gql(s, `query($q: PathsQueryInput!) { paths(projectId: 1, query: $q) { results { source target value average_conversion_time } } }`, {
    q: { dateRange: { date_from: '2024-01-01', date_to: '2024-01-05' }, pathsFilter: { includeEventTypes: ['$pageview'], pathGroupings: ['/pri*'] } },
  });
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data.paths.results).toEqual([{ source: '1_/home', target: '2_/pri*', value: 2, average_conversion_time: 120_000 }]);
});
