import { gql, startServer, type TestServer } from '../helpers/server';

/** Rate limits per key and per project, by route family; 429 with Retry-After in the standard body. */
describe('rate limits', () => {
  let s: TestServer;
  let second: string;

  beforeAll(async () => {
    s = await startServer({
      env: {
        QUARRY_RATE_LIMIT_ENABLED: 'true',
        QUARRY_RATE_LIMITS: JSON.stringify({ default: { burst: 5, sustained: 100 }, query: { burst: 3, sustained: 100 } }),
      },
    });
    // created with the bootstrap key: counts 1 request against the bootstrap key's default bucket
    second = (await s.api('POST', '/api/personal_api_keys/', { label: 'second', scopes: ['*'] })).body.value;
  });
  afterAll(() => s.close());

  const query = (key: string) => s.api('POST', '/api/projects/1/query/', { query: { kind: 'ProductQLQuery', query: 'SELECT 1' } }, key);

  it('throttles a key over its burst with 429, Retry-After and the standard error body', async () => {
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 6; i++) {
      last = await s.api('GET', '/api/projects/', undefined, s.key);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    expect(last!.body).toMatchObject({ type: 'throttled_error', code: 'throttled', attr: null });
    expect(last!.body.detail).toMatch(/^Request was throttled\. Expected available in \d+ seconds?\.$/);
    const retry = Number(last!.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
  });

  it('keeps families apart and counts the project across keys', async () => {
    // the query family has its own budget: the first key's exhausted default bucket does not matter
    expect((await query(s.key)).status).toBe(200);
    expect((await query(second)).status).toBe(200);
    expect((await query(second)).status).toBe(200);
    // project 1 has now used 3 query requests across two keys
    const r = await query(second);
    expect(r.status).toBe(429);
  });

  it('counts GraphQL operations against the same buckets', async () => {
    const r = await gql(s, '{ projects { count } }', undefined, second);
    expect(r.status).toBe(200);
    const q = await gql(s, '{ productql(projectId: 1, sql: "SELECT 1") { rows } }', undefined, second);
    expect(q.status).toBe(429);
    expect(q.body.errors[0].extensions.code).toBe('throttled');
    expect(Number(q.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

/**
 * posthog/test/test_rate_limit.py, with the throttle rates patched as there (BurstRateThrottle 5/minute,
 * ClickHouseSustainedRateThrottle 5/hour) and the clock frozen or moved as freeze_time does.
 */
describe('test_rate_limit.py', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({
      env: {
        QUARRY_RATE_LIMIT_ENABLED: 'true',
        QUARRY_RATE_LIMITS: JSON.stringify({ default: { burst: 5, sustained: 4800 }, analytics: { burst: 240, sustained: 5 }, query: { burst: 240, sustained: 3 } }),
      },
    });
  });
  afterAll(() => s.close());

  /** A fresh project and a key of its own: every case starts with empty throttles. */
  const fresh = async (name: string) => {
    const admin = s.server.services;
    const project = (await admin.projects.createUnchecked({ name, timezone: 'UTC', week_start_day: 0, test_account_filters: [], path_cleaning_filters: [] })).id;
    const userId = (await admin.store.users.findOneOrFail({ where: {}, order: { id: 'ASC' } })).id;
    const key = (await admin.keys.issuePersonal(userId, { label: name, scopes: ['*'], scoped_teams: null })).value!;
    return { project, key };
  };

  /** Date.now moved to `at()` while `body` runs (freeze_time). */
  const frozen = async (at: () => number, body: () => Promise<void>) => {
    const clock = jest.spyOn(Date, 'now').mockImplementation(at);
    try {
      await body();
    } finally {
      clock.mockRestore();
    }
  };

  it('test_default_burst_rate_limit: the sixth request in the minute is a 429; at a frozen clock it is available in 60 seconds', async () => {
    const { project, key } = await fresh('burst');
    const base = Date.now();
    await frozen(() => base, async () => {
      for (let i = 0; i < 5; i++) expect((await s.api('GET', `/api/projects/${project}/`, undefined, key)).status).toBe(200);
      const r = await s.api('GET', `/api/projects/${project}/`, undefined, key);
      expect([r.status, r.body, r.headers.get('retry-after')]).toEqual([
        429,
        { type: 'throttled_error', code: 'throttled', detail: 'Request was throttled. Expected available in 60 seconds.', attr: null },
        '60',
      ]);
    });
    // a minute later the window has passed: available again
    await frozen(() => base + 60_001, async () => {
      expect((await s.api('GET', `/api/projects/${project}/`, undefined, key)).status).toBe(200);
    });
  });

  it('test_clickhouse_sustained_rate_limit: five requests 61 seconds apart (under the burst), then the hour is spent', async () => {
    const { project, key } = await fresh('sustained');
    let at = Date.now();
    await frozen(() => at, async () => {
      for (let i = 0; i < 5; i++) {
        expect((await s.api('GET', `/api/projects/${project}/events/`, undefined, key)).status).toBe(200);
        at += 61_000; // as to not hit the burst rate limit
      }
      for (let i = 0; i < 2; i++) {
        const r = await s.api('GET', `/api/projects/${project}/events/`, undefined, key);
        expect([r.status, r.body.code]).toEqual([429, 'throttled']);
        // the oldest request of the hour was 305 seconds ago
        expect([r.body.detail, r.headers.get('retry-after')]).toEqual(['Request was throttled. Expected available in 3295 seconds.', '3295']);
      }
      // other families keep their own budget
      expect((await s.api('GET', `/api/projects/${project}/`, undefined, key)).status).toBe(200);
    });
  });

  it('test_rate_limits_are_based_on_the_team_not_user: another key on the same project is throttled at once; another project is not', async () => {
    const { project, key } = await fresh('team');
    const base = Date.now();
    await frozen(() => base, async () => {
      for (let i = 0; i < 5; i++) expect((await s.api('GET', `/api/projects/${project}/`, undefined, key)).status).toBe(200);
      expect((await s.api('GET', `/api/projects/${project}/`, undefined, key)).status).toBe(429);
      const other = await fresh('team other');
      expect((await s.api('GET', `/api/projects/${project}/`, undefined, other.key)).status).toBe(429);
      expect((await s.api('GET', `/api/projects/${other.project}/`, undefined, other.key)).status).toBe(200);
    });
  });

  it('QueryViewSet.get_throttles: a HogQLQuery has the query throttles; other kinds the ClickHouse ones', async () => {
    const { project, key } = await fresh('query kinds');
    const query = (q: object) => s.api('POST', `/api/projects/${project}/query/`, { query: q }, key);
    const hogql = { kind: 'HogQLQuery', query: 'select 1' };
    for (let i = 0; i < 3; i++) expect((await query(hogql)).status).toBe(200);
    const r = await query(hogql);
    expect([r.status, r.body.type, r.body.code]).toEqual([429, 'throttled_error', 'throttled']);
    // the query throttle is spent, the ClickHouse (analytics) one is not
    expect((await query({ kind: 'EventsQuery', select: ['event'] })).status).toBe(200);
    expect((await query({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }] })).status).toBe(200);
    // GraphQL chooses the same way: SQL is refused, an events query runs
    const sqlField = await gql(s, `{ productql(projectId: ${project}, sql: "SELECT 1") { rows } }`, undefined, key);
    expect([sqlField.status, sqlField.body.errors[0].extensions.code]).toEqual([429, 'throttled']);
    const nodeField = await gql(s, 'query($q: JSON!) { query(projectId: ' + project + ', query: $q) }', { q: { kind: 'EventsQuery', select: ['event'] } }, key);
    expect([nodeField.status, nodeField.body.errors]).toEqual([200, undefined]);
    // ... until it is: five in its hour, and then a HogQL query's budget does not help
    for (let i = 0; i < 2; i++) expect((await s.api('GET', `/api/projects/${project}/events/`, undefined, key)).status).toBe(200);
    expect((await query({ kind: 'EventsQuery', select: ['event'] })).status).toBe(429);
  });
});
