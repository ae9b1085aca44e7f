import { gql, startServer, type TestServer } from '../helpers/server';

/** The README's examples run as written (keys substituted). */
describe('README examples', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
    const day = 86_400_000;
    await s.server.services.ingestor.import(1, {
      events: Array.from({ length: 30 }, (_, i) => ({
        event: i % 5 === 0 ? 'signup' : '$pageview',
        distinct_id: `u${i % 6}`,
        timestamp: new Date(Date.now() - (i % 4) * day).toISOString(),
        properties: { $browser: i % 3 ? 'Chrome' : 'Safari' },
      })),
    });
  });
  afterAll(() => s.close());

  it('ProductQL and TrendsQuery through REST', async () => {
    const q = await s.api('POST', '/api/projects/1/query/', {
      query: { kind: 'ProductQLQuery', query: 'SELECT properties.$browser AS browser, count() FROM events GROUP BY browser ORDER BY count() DESC' },
    });
    expect(q.status).toBe(200);
    expect(q.body.results).toEqual([['Chrome', 20], ['Safari', 10]]);
    const t = await s.api('POST', '/api/projects/1/query/', {
      query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], dateRange: { date_from: '-7d' } },
    });
    expect(t.status).toBe(200);
    expect(t.body.results[0].data).toHaveLength(8);
  });

  it('the typed trends field in GraphQL', async () => {
    const r = await gql(
      s,
      '{ trends(projectId: 1, query: { series: [{ kind: "EventsNode", event: "$pageview", math: "dau" }], dateRange: { date_from: "-7d" } }) { results { label count data days } } }',
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.trends.results[0].label).toBe('$pageview');
  });

  it('publishes an endpoint and runs it with a secret key', async () => {
    const created = await s.api('POST', '/api/environments/1/endpoints/', {
      name: 'signups_by_plan',
      query: { kind: 'ProductQLQuery', query: 'SELECT person.properties.plan AS plan, count() AS n FROM events WHERE event = {variables.event} GROUP BY plan' },
      variables: [{ name: 'event', type: 'String', default: 'signup' }],
    });
    expect(created.status).toBe(201);
    const secret = (await s.api('POST', '/api/projects/1/project_secret_api_keys/', { label: 'dash', scopes: ['endpoint:read'] })).body.value;
    const run = await s.api('POST', '/api/environments/1/endpoints/signups_by_plan/run', { variables: { event: '$pageview' }, limit: 10 }, secret);
    expect(run.status).toBe(200);
    expect(run.body.results).toEqual([[null, 24]]);
    const doc = await s.api('GET', '/api/environments/1/endpoints/signups_by_plan/openapi.json');
    expect(doc.body.openapi).toBe('3.0.3');
  });
});
