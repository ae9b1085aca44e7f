import { gql, startServer, type TestServer } from '../helpers/server';

/** The query envelope: freshness, cache, refresh modes, async with cancel, concurrency, query log. */
describe('query envelope', () => {
  let s: TestServer;
  let otherProject: number;

  const capture = async (events: { event: string; distinct_id: string; properties?: Record<string, unknown> }[]) => {
    const token = (await s.api('GET', '/api/projects/1/')).body.api_token;
    const r = await fetch(`${s.url}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: token, batch: events }),
    });
    expect(r.status).toBe(200);
    await s.server.services.ingestor.flush();
  };
  const countQuery = (extra: Record<string, unknown> = {}) => ({
    query: { kind: 'ProductQLQuery', query: 'SELECT count() FROM events', ...extra },
  });

  beforeAll(async () => {
    s = await startServer({ env: { QUARRY_QUERY_CONCURRENCY: '1' } });
    await capture([
      { event: '$pageview', distinct_id: 'a' },
      { event: '$pageview', distinct_id: 'b' },
    ]);
    otherProject = (await s.api('POST', '/api/projects/', { name: 'other' })).body.id;
  });
  afterAll(() => s.close());

  it('answers with the freshness envelope, then from cache on a repeat', async () => {
    const first = await s.api('POST', '/api/projects/1/query/', countQuery({ name: 'a' }));
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ results: [[2]], is_cached: false, timezone: 'UTC', query_status: null, hasMore: false, limit: 100, offset: 0 });
    for (const k of ['last_refresh', 'next_allowed_client_refresh', 'cache_target_age']) expect(Date.parse(first.body[k])).not.toBeNaN();
    expect(first.body.cache_key).toMatch(/^cache_[0-9a-f]{32}$/);
    expect(first.body.timings).toBeNull();
    // a display-only key (name) does not change the cache key
    const second = await s.api('POST', '/api/projects/1/query/', countQuery({ name: 'b' }));
    expect(second.body).toMatchObject({ results: [[2]], is_cached: true, cache_key: first.body.cache_key, last_refresh: first.body.last_refresh });
  });

  it("leaves hasMore/limit/offset out when the query has its own LIMIT (PostHog), keeps them for Quarry's paging", async () => {
    const own = await s.api('POST', '/api/projects/1/query/', countQuery({ query: 'SELECT event FROM events LIMIT 1' }));
    expect(own.status).toBe(200);
    expect(own.body.results).toHaveLength(1);
    for (const k of ['hasMore', 'limit', 'offset']) expect(own.body).not.toHaveProperty(k);
    const paged = await s.api('POST', '/api/projects/1/query/', countQuery({ query: 'SELECT event FROM events', limit: 1 }));
    expect(paged.body).toMatchObject({ hasMore: true, limit: 1, offset: 0 });
    const typed = await gql(s, '{ productql(projectId: 1, sql: "SELECT event FROM events LIMIT 1") { rows hasMore limit offset } }');
    expect(typed.body.data.productql).toMatchObject({ hasMore: false, limit: null, offset: null });
  });

  it('misses after new events arrive', async () => {
    await s.api('POST', '/api/projects/1/query/', countQuery());
    await capture([{ event: '$pageview', distinct_id: 'c' }]);
    const r = await s.api('POST', '/api/projects/1/query/', countQuery());
    expect(r.body).toMatchObject({ results: [[3]], is_cached: false });
  });

  it.each([
    ['force_blocking', 200, false],
    [true, 200, false],
    ['force_cache', 200, true], // converted to blocking by the query API
    ['blocking', 200, true],
  ])('refresh=%p answers %p (is_cached %p)', async (refresh, status, cached) => {
    await s.api('POST', '/api/projects/1/query/', countQuery());
    const r = await s.api('POST', '/api/projects/1/query/', { ...countQuery(), refresh });
    expect(r.status).toBe(status);
    expect(r.body.is_cached).toBe(cached);
  });

  it('returns timings only when modifiers ask for them', async () => {
    const r = await s.api('POST', '/api/projects/1/query/', countQuery({ modifiers: { timings: true }, query: 'SELECT 1' }));
    expect(r.body.timings.map((t: { k: string }) => t.k)).toEqual(['./validate', './print', './execute', './shape', './cache', '.']);
  });

  it('runs force_async in the background and polls to completion', async () => {
    const r = await s.api('POST', '/api/projects/1/query/', { ...countQuery(), refresh: 'force_async', client_query_id: 'poll-me' });
    expect(r.status).toBe(202);
    expect(r.body.query_status).toMatchObject({ id: 'poll-me', complete: false, error: false });
    await s.server.services.queries.async.wait('poll-me');
    const polled = await s.api('GET', '/api/projects/1/query/poll-me/');
    expect(polled.status).toBe(200);
    expect(polled.body.query_status).toMatchObject({ complete: true, error: false, results: { results: [[3]] } });
    // another project cannot see it
    expect((await s.api('GET', `/api/projects/${otherProject}/query/poll-me/`)).status).toBe(404);
  });

  it('async answers a miss with 202 and a cache hit at once', async () => {
    const q = { query: { kind: 'ProductQLQuery', query: "SELECT count() FROM events WHERE event = 'async-miss'" }, refresh: 'async' };
    const miss = await s.api('POST', '/api/projects/1/query/', q);
    expect(miss.status).toBe(202);
    await s.server.services.queries.async.wait(miss.body.query_status.id);
    const hit = await s.api('POST', '/api/projects/1/query/', q);
    expect(hit.status).toBe(200);
    expect(hit.body).toMatchObject({ is_cached: true, results: [[0]] });
  });

  it('cancels a slow query and frees the engine for the next one', async () => {
    // 3,000 events cubed: ~2.7e10 rows to count, far more than the test waits for
    await s.server.services.ingestor.import(1, {
      events: Array.from({ length: 3000 }, (_, i) => ({ event: 'bulk', distinct_id: `d${i % 50}`, timestamp: '2024-01-01T00:00:00Z' })),
    });
    const slow = 'SELECT count() FROM events AS a CROSS JOIN events AS b CROSS JOIN events AS c';
    const r = await s.api('POST', '/api/projects/1/query/', { query: { kind: 'ProductQLQuery', query: slow }, refresh: 'force_async', client_query_id: 'slow-one' });
    expect(r.status).toBe(202);
    await new Promise((res) => setTimeout(res, 200));
    const c = await s.api('DELETE', '/api/projects/1/query/slow-one/');
    expect([c.status, c.text]).toEqual([204, '']); // PostHog's QueryViewSet.destroy
    const st = await s.api('GET', '/api/projects/1/query/slow-one/');
    expect(st.body.query_status).toMatchObject({ complete: true, error: true, error_code: 'cancelled' });
    // concurrency is 1 in this server: the next query gets the slot only once the cancelled one freed it (were it
    // still running, this request would wait for its ~2.7e10 rows, far past the test's timeout)
    const next = await s.api('POST', '/api/projects/1/query/', { query: { kind: 'ProductQLQuery', query: 'SELECT 42' }, refresh: 'force_blocking' });
    expect(next.body.results).toEqual([[42]]);
  });

  it('queues work beyond the project concurrency limit instead of failing it', async () => {
    const qs = Array.from({ length: 4 }, (_, i) =>
      s.api('POST', '/api/projects/1/query/', { query: { kind: 'ProductQLQuery', query: `SELECT ${i}` }, refresh: 'force_blocking' }),
    );
    const rs = await Promise.all(qs);
    expect(rs.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(rs.map((r) => r.body.results[0][0])).toEqual([0, 1, 2, 3]);
  });

  it('records every case in the query log, invisible to other projects', async () => {
    await s.api('POST', '/api/projects/1/query/', { query: { kind: 'ProductQLQuery', query: 'SELECT nosuchfunction(1)' } });
    const log = await s.api('GET', '/api/projects/1/query_log/?limit=1000');
    expect(log.status).toBe(200);
    const rows = log.body.results as { is_cached: boolean; status: string; error_code: string | null; kind: string; principal: string }[];
    expect(rows.some((r) => r.is_cached)).toBe(true);
    expect(rows.some((r) => !r.is_cached && r.status === 'ok')).toBe(true);
    expect(rows.some((r) => r.status === 'error' && r.error_code)).toBe(true);
    expect(rows.every((r) => r.kind === 'ProductQLQuery' && r.principal.startsWith('user:'))).toBe(true);
    const cachedOnly = await s.api('GET', '/api/projects/1/query_log/?is_cached=true');
    expect(cachedOnly.body.results.every((r: { is_cached: boolean }) => r.is_cached)).toBe(true);
    const other = await s.api('GET', `/api/projects/${otherProject}/query_log/`);
    expect(other.body).toMatchObject({ count: 0, results: [] });
  });

  it('offers the same over GraphQL: submitQuery, queryStatus, cancelQuery and freshness fields', async () => {
    const sub = await gql(s, 'mutation { submitQuery(projectId: 1, query: {kind: "ProductQLQuery", query: "SELECT 7"}, clientQueryId: "gql-1") { id complete } }');
    expect(sub.body.data.submitQuery).toEqual({ id: 'gql-1', complete: false });
    await s.server.services.queries.async.wait('gql-1');
    const st = await gql(s, '{ queryStatus(projectId: 1, id: "gql-1") { complete error results } }');
    expect(st.body.data.queryStatus).toMatchObject({ complete: true, error: false, results: { results: [[7]] } });
    const typed = await gql(s, '{ productql(projectId: 1, sql: "SELECT 7") { rows isCached cacheKey lastRefresh } }');
    expect(typed.body.data.productql).toMatchObject({ rows: [[7]], isCached: true });
    const log = await gql(s, '{ queryLog(projectId: 1, isCached: true, limit: 5) { count results { kind isCached status queryHash } } }');
    expect(log.body.data.queryLog.count).toBeGreaterThan(0);
    expect(log.body.data.queryLog.results.every((r: { isCached: boolean }) => r.isCached)).toBe(true);
    const cancel = await gql(s, 'mutation { cancelQuery(projectId: 1, id: "nope") }');
    expect(cancel.body.errors[0].extensions.code).toBe('not_found');
  });

  // last: it captures an event, which the counts above do not expect
  it('a repeated force_blocking body is computed each time from its remembered validation, with its own node', async () => {
    const body = { ...countQuery({ query: "SELECT count() FROM events WHERE event = 'recount'" }), refresh: 'force_blocking' };
    const first = await s.api('POST', '/api/projects/1/query/', body);
    expect([first.status, first.body.results, first.body.is_cached]).toEqual([200, [[0]], false]);
    await capture([{ event: 'recount', distinct_id: 'r' }]);
    const second = await s.api('POST', '/api/projects/1/query/', body);
    expect([second.status, second.body.results, second.body.is_cached, second.body.cache_key]).toEqual([200, [[1]], false, first.body.cache_key]);
    const timed = await s.api('POST', '/api/projects/1/query/', { ...body, query: { ...body.query, modifiers: { timings: true } } });
    await s.api('POST', '/api/projects/1/query/', { ...body, query: { ...body.query, modifiers: { timings: true } } });
    expect(timed.body.timings.map((t: { k: string }) => t.k)).toEqual(['./validate', './print', './execute', './shape', './cache', '.']);
    // a body that became invalid for the project (another project's settings do not leak): still validated per project
    const other = await s.api('POST', `/api/projects/${otherProject}/query/`, body);
    expect([other.status, other.body.results]).toEqual([200, [[0]]]);
  });

  // after the counts above too: it captures events
  it('applies filters_override and variables_override (dashboard semantics) before running', async () => {
    await capture([
      { event: 'ovr', distinct_id: 'o1', properties: { $browser: 'Chrome' } },
      { event: 'ovr', distinct_id: 'o2', properties: { $browser: 'Chrome' } },
      { event: 'ovr', distinct_id: 'o3', properties: { $browser: 'Safari' } },
    ]);
    const post = async (body: Record<string, unknown>) => {
      const r = await s.api('POST', '/api/projects/1/query/', body);
      expect(r.status).toBe(200);
      return r.body;
    };
    // HogQL: the override's properties reach {filters}
    const hogql = { kind: 'HogQLQuery', query: "SELECT count() FROM events WHERE event = 'ovr' AND {filters}" };
    expect((await post({ query: hogql })).results).toEqual([[3]]);
    expect((await post({ query: hogql, filters_override: { properties: [{ key: '$browser', value: 'Chrome', type: 'event' }] } })).results).toEqual([[2]]);
    expect((await post({ query: hogql, filters_override: { date_from: '2000-01-01', date_to: '2000-01-02' } })).results).toEqual([[0]]);
    // Trends: properties ANDed with the node's own, the date range replaced
    const trends = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'ovr' }], properties: [{ key: '$browser', operator: 'is_set', type: 'event' }] };
    const total = (b: { results: { data: number[] }[] }) => b.results[0].data.reduce((a, x) => a + x, 0);
    expect(total(await post({ query: trends }))).toBe(3);
    expect(total(await post({ query: trends, filters_override: { properties: [{ key: '$browser', value: 'Safari' }] } }))).toBe(1);
    expect((await post({ query: trends, filters_override: { date_from: '-30d' } })).results[0].days).toHaveLength(31);
    // variables_override updates declared variables by id; others are ignored
    const withVar = {
      kind: 'HogQLQuery',
      query: "SELECT count() FROM events WHERE event = 'ovr' AND properties.$browser = {variables.browser}",
      variables: { 'var-1': { variableId: 'var-1', code_name: 'browser', value: 'Chrome' } },
    };
    expect((await post({ query: withVar })).results).toEqual([[2]]);
    expect((await post({ query: withVar, variables_override: { 'var-1': { value: 'Safari' }, 'var-9': { value: 'x' } } })).results).toEqual([[1]]);
    // bad shapes are 400s naming the field
    const bad = await s.api('POST', '/api/projects/1/query/', { query: hogql, filters_override: { date_from: 5 } });
    expect([bad.status, bad.body.attr]).toEqual([400, 'filters_override__date_from']);
    const unknown = await s.api('POST', '/api/projects/1/query/', { query: hogql, filters_override: { nope: 1 } });
    expect(unknown.status).toBe(400);
  });
});
