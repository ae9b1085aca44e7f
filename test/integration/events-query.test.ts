import { gql, startServer, type TestServer } from '../helpers/server';

/** EventsQuery over HTTP: POST /api/projects/<id>/query/ and GraphQL's generic `query` field, in the standard envelope. */
describe('EventsQuery over HTTP', () => {
  let s: TestServer;
  let otherProject: number;

  const capture = async (projectId: number, events: { event: string; distinct_id: string; properties?: Record<string, unknown> }[]) => {
    const token = (await s.api('GET', `/api/projects/${projectId}/`)).body.api_token;
    const r = await fetch(`${s.url}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: token, batch: events }),
    });
    expect(r.status).toBe(200);
    await s.server.services.ingestor.flush();
  };
  const post = (query: Record<string, unknown>, projectId = 1, extra: Record<string, unknown> = {}) =>
    s.api('POST', `/api/projects/${projectId}/query/`, { query: { kind: 'EventsQuery', ...query }, ...extra });

  beforeAll(async () => {
    s = await startServer();
    otherProject = (await s.api('POST', '/api/projects/', { name: 'other' })).body.id;
    await capture(1, [
      { event: '$identify', distinct_id: 'alice', properties: { $set: { email: 'alice@example.com' } } },
      { event: '$pageview', distinct_id: 'alice', properties: { $browser: 'Chrome', $current_url: 'https://example.com/a' } },
      { event: '$pageview', distinct_id: 'bob', properties: { $browser: 'Safari' } },
    ]);
    await capture(otherProject, [{ event: 'secret', distinct_id: 'alice', properties: { $browser: 'Chrome' } }]);
  });
  afterAll(() => s.close());

  it('answers columns, string types, results, paging and the envelope; a repeat comes from cache', async () => {
    const query = { select: ['*', 'event', 'person', 'properties.$browser', 'timestamp'], event: '$pageview' };
    const r = await post(query);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ columns: query.select, hasMore: false, limit: 100, offset: 0, is_cached: false, timezone: 'UTC', query_status: null });
    expect(r.body.cache_key).toMatch(/^cache_/);
    expect(r.body.types).toHaveLength(5);
    for (const t of r.body.types) expect(typeof t).toBe('string');
    expect(typeof r.body.hogql).toBe('string');
    expect(r.body.results).toHaveLength(2);
    const [star, event, person, browser, timestamp] = r.body.results.find((row: unknown[]) => (row[3] as string) === 'Chrome');
    expect(star).toMatchObject({ event: '$pageview', distinct_id: 'alice', team_id: 1, properties: { $browser: 'Chrome', $current_url: 'https://example.com/a' } });
    expect(event).toBe('$pageview');
    expect(person).toMatchObject({ distinct_id: 'alice', properties: { email: 'alice@example.com' } });
    expect(person.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(browser).toBe('Chrome');
    expect(timestamp).toBe(star.timestamp);
    const again = await post(query);
    expect(again.body).toMatchObject({ is_cached: true, cache_key: r.body.cache_key });
  });

  it('aggregates with group by, timings on request', async () => {
    const r = await post({ select: ['count()', 'event'], modifiers: { timings: true } });
    expect(r.status).toBe(200);
    expect(r.body.results).toEqual([
      [2, '$pageview'],
      [1, '$identify'],
    ]);
    expect(Array.isArray(r.body.timings)).toBe(true);
  });

  it('the same through GraphQL query(projectId, query: JSON)', async () => {
    const r = await gql(s, 'query Q($q: JSON!) { query(projectId: 1, query: $q) }', { q: { kind: 'EventsQuery', select: ['event', 'distinct_id'], where: ["event = '$pageview'"], orderBy: ['distinct_id'] } });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.query).toMatchObject({ columns: ['event', 'distinct_id'], results: [['$pageview', 'alice'], ['$pageview', 'bob']], hasMore: false });
  });

  it("cohort filters: the project's cohort filters, another project's is PostHog's 400", async () => {
    const filters = { properties: { type: 'OR', values: [{ type: 'AND', values: [{ type: 'person', key: 'email', value: 'alice@example.com', operator: 'exact' }] }] } };
    const cohort = await s.api('POST', '/api/projects/1/cohorts/', { name: 'alices', filters });
    expect(cohort.status).toBe(201);
    const r = await post({ select: ['event', 'distinct_id'], properties: [{ type: 'cohort', key: 'id', value: cohort.body.id }], orderBy: ['event'] });
    expect(r.status).toBe(200);
    expect(r.body.results).toEqual([
      ['$identify', 'alice'],
      ['$pageview', 'alice'],
    ]);
    const theirs = await post({ select: ['event'], properties: [{ type: 'cohort', key: 'id', value: cohort.body.id }] }, otherProject);
    expect(theirs.status).toBe(400);
    expect(theirs.body.detail).toBe(`Could not find cohort with ID ${cohort.body.id}`);
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['a select that does not parse', { select: ['count(('] }, { code: 'hogql_syntax_error', attr: 'select__0' }],
    ['an unknown field', { select: ['event'], where: ['no_such_field = 1'] }, { code: 'hogql_query_error' }],
    ['an unknown key', { select: ['event'], bogus: true }, { type: 'validation_error' }],
    ['a select that is not a list', { select: 'event' }, { type: 'validation_error' }],
    ['an invalid date', { select: ['event'], after: 'last tuesday' }, { type: 'validation_error', attr: 'after' }],
    ['a missing action', { select: ['event'], actionId: 999 }, { code: 'action_not_found' }],
  ])('%s is a 400', async (_what, query, body) => {
    const r = await post(query);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ type: 'validation_error', ...body });
  });

  it('an action whose step filters on a cohort, a 1-minute refresh floor, and filters_override leaving the node as given', async () => {
    const cohort = await s.api('POST', '/api/projects/1/cohorts/', { name: 'chrome people', groups: [{ properties: [{ key: 'email', value: 'alice@example.com', type: 'person' }] }] });
    const action = await s.api('POST', '/api/projects/1/actions/', { name: 'cohort views', steps: [{ event: '$pageview', properties: [{ type: 'cohort', key: 'id', value: cohort.body.id }] }] });
    const r = await post({ select: ['event', 'distinct_id'], actionId: action.body.id });
    expect([r.status, r.body.detail]).toEqual([200, undefined]);
    expect(r.body.results).toEqual([['$pageview', 'alice']]);
    expect(Date.parse(r.body.next_allowed_client_refresh) - Date.parse(r.body.last_refresh)).toBe(60_000);
    const overridden = await post({ select: ['event'], event: '$pageview' }, 1, { filters_override: { date_from: '-30d', properties: [{ key: '$browser', value: 'Nope' }] } });
    expect([overridden.status, overridden.body.results.length]).toEqual([200, 2]);
  });

  it("cannot read another project's events through subqueries or persons", async () => {
    const sub = await post({ select: ['(SELECT count() FROM events)'], limit: 1 });
    expect(sub.body.results).toEqual([[3]]);
    const where = await post({ select: ['event'], where: ["event IN (SELECT event FROM events WHERE event = 'secret')"], after: 'all' });
    expect(where.body.results).toEqual([]);
    const theirs = await post({ select: ['event', 'person'] }, otherProject);
    expect(theirs.status).toBe(200);
    expect(theirs.body.results).toHaveLength(1);
    expect(theirs.body.results[0][0]).toBe('secret');
    expect(theirs.body.results[0][1].properties ?? {}).not.toHaveProperty('email');
  });
});
