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

it('PathsQuery over HTTP: funnel paths after a step, for the funnel converters', async () => {
  const funnelSource = {
    kind: 'FunnelsQuery',
    dateRange: { date_from: '2024-01-01', date_to: '2024-01-05' },
    series: [
      { kind: 'EventsNode', event: '$pageview', properties: [{ type: 'event', key: '$current_url', operator: 'exact', value: '/home/' }] },
      { kind: 'EventsNode', event: '$pageview', properties: [{ type: 'event', key: '$current_url', operator: 'exact', value: '/pricing' }] },
    ],
  };
  const res = await s.api('POST', '/api/projects/1/query/', {
    query: { ...query, funnelPathsFilter: { funnelPathType: 'funnel_path_after_step', funnelStep: 1, funnelSource } },
  });
  expect(res.status).toBe(200);
  // The funnel's step one matches the raw URL '/home/': only a (b visited '/home') is in the funnel.
  expect(res.body.results).toEqual([{ source: '1_/home', target: '2_/pricing', value: 1, average_conversion_time: 60_000 }]);
});

it('PathsQuery over HTTP: a funnelPathsFilter without a funnel source is a 400 naming the field', async () => {
  const res = await s.api('POST', '/api/projects/1/query/', { query: { ...query, funnelPathsFilter: { funnelPathType: 'funnel_path_after_step', funnelStep: 1 } } });
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ type: 'validation_error' });
  expect(JSON.stringify(res.body)).toContain('funnelSource');
});

it('ActorsQuery over HTTP: the persons behind a paths node (pathEndKey)', async () => {
  const res = await s.api('POST', '/api/projects/1/query/', {
    query: { kind: 'ActorsQuery', select: ['person'], source: { kind: 'InsightActorsQuery', source: { ...query, pathsFilter: { ...query.pathsFilter, pathEndKey: '2_/pricing' } } } },
  });
  expect(res.status).toBe(200);
  expect(res.body.results.map((row: any[]) => row[0].distinct_ids[0]).sort()).toEqual(['a', 'b']);
});

it('PathsQuery over GraphQL: funnel paths take a typed funnel source', async () => {
  const step = (url: string) => ({ event: '$pageview', properties: [{ type: 'event', key: '$current_url', operator: 'exact', value: url }] });
  const res = await gql(s, `query($q: PathsQueryInput!) { paths(projectId: 1, query: $q) { results { source target value } } }`, {
    q: {
      dateRange: { date_from: '2024-01-01', date_to: '2024-01-05' },
      pathsFilter: { includeEventTypes: ['$pageview'] },
      funnelPathsFilter: {
        funnelPathType: 'funnel_path_after_step',
        funnelStep: 1,
        funnelSource: { dateRange: { date_from: '2024-01-01', date_to: '2024-01-05' }, series: [step('/home/'), step('/pricing')] },
      },
    },
  });
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data.paths.results).toEqual([{ source: '1_/home', target: '2_/pricing', value: 1 }]);
});
