import { gql, startServer, type TestServer } from '../helpers/server';

let s: TestServer;
const t = (d: number) => new Date(Date.UTC(2024, 0, d, 10)).toISOString();
beforeAll(async () => {
  s = await startServer();
  const ing = s.server.services.ingestor;
  await ing.import(1, {
    persons: ['a', 'b'].map((id) => ({ distinct_ids: [id], properties: {} })),
    events: [
      { event: '$pageview', distinct_id: 'a', timestamp: t(1), properties: {} },
      { event: '$pageview', distinct_id: 'a', timestamp: t(2), properties: {} },
      { event: '$pageview', distinct_id: 'b', timestamp: t(1), properties: {} },
      { event: '$pageview', distinct_id: 'b', timestamp: t(3), properties: {} },
    ],
  });
  await ing.flush();
});
afterAll(async () => {
  await s.close();
});

const query = {
  kind: 'RetentionQuery',
  dateRange: { date_to: '2024-01-03' },
  retentionFilter: { period: 'Day', totalIntervals: 3, retentionType: 'retention_first_time' },
};

it('RetentionQuery over HTTP: cohort rows with interval 0 = cohort size', async () => {
  const res = await s.api('POST', '/api/projects/1/query/', { query });
  expect(res.status).toBe(200);
  expect(res.body.results.map((r: any) => [r.label, r.date, r.values.map((v: any) => v.count)])).toEqual([
    ['Day 0', '2024-01-01T00:00:00Z', [2, 1, 1]],
    ['Day 1', '2024-01-02T00:00:00Z', [0, 0, 0]],
    ['Day 2', '2024-01-03T00:00:00Z', [0, 0, 0]],
  ]);
});

it('RetentionQuery over HTTP: a bad period is a 400', async () => {
  const res = await s.api('POST', '/api/projects/1/query/', { query: { ...query, retentionFilter: { period: 'Fortnight' } } });
  expect(res.status).toBe(400);
});

it('RetentionQuery over GraphQL: typed cohorts', async () => {
  const res = await gql(
    s,
    `query($q: RetentionQueryInput!) { retention(projectId: 1, query: $q) { results { label date breakdown_value values { count label } } } }`,
    { q: { dateRange: { date_to: '2024-01-03' }, retentionFilter: { period: 'Day', totalIntervals: 3, retentionType: 'retention_recurring' } } },
  );
  expect(res.body.errors).toBeUndefined();
  const rows = res.body.data.retention.results;
  expect(rows.map((r: any) => r.values.map((v: any) => v.count))).toEqual([
    [2, 1, 1],
    [1, 0, 0],
    [1, 0, 0],
  ]);
  expect(rows[0].values[1]).toEqual({ count: 1, label: 'Day 1' });
  expect(rows[0].breakdown_value).toBeNull();
});

it('RetentionQuery over GraphQL: custom brackets and the aggregation fields', async () => {
  const res = await gql(
    s,
    `query($q: RetentionQueryInput!) { retention(projectId: 1, query: $q) { results { values { count label aggregation_value } } } }`,
    {
      q: {
        dateRange: { date_to: '2024-01-03' },
        retentionFilter: { period: 'Day', totalIntervals: 3, retentionType: 'retention_recurring', retentionCustomBrackets: [2] },
      },
    },
  );
  expect(res.body.errors).toBeUndefined();
  // brackets are sizes after period 0: [2] → Day 0, Day 1-2
  expect(res.body.data.retention.results[0].values).toEqual([
    { count: 2, label: 'Day 0', aggregation_value: null },
    { count: 2, label: 'Day 1-2', aggregation_value: null },
  ]);
  const sum = await gql(
    s,
    `query($q: RetentionQueryInput!) { retention(projectId: 1, query: $q) { results { values { aggregation_value } } } }`,
    { q: { dateRange: { date_to: '2024-01-03' }, retentionFilter: { period: 'Day', totalIntervals: 3, aggregationType: 'sum' } } },
  );
  // sum needs its property: PostHog's 400, as a GraphQL error
  expect(sum.body.errors?.[0]?.extensions?.code).toBe('invalid_input');
  expect(sum.body.errors[0].message).toContain('aggregationProperty');
});
