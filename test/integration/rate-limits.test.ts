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
