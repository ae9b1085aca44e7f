/**
 * The request hot path keeps keys, projects and endpoints in memory (auth/metadata-watch.ts). Every test here
 * first makes the cache hold the row (a successful request), then changes the row, then expects the very next
 * request to see the change: a revoked key is refused at once, a narrowed scope applies at once, a deleted project
 * takes its secret keys with it, a changed timezone changes the answer, a changed endpoint runs its new query.
 */
import type { QueryLog } from '../../src/queries/query-log';
import { newProject, startServer, type TestServer } from '../helpers/server';

let srv: TestServer;

beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

const SELECT_ONE = { query: { kind: 'ProductQLQuery', query: 'SELECT 1 AS one' } };

async function personalKey(scopes: string[], scopedTeams: number[] | null = null): Promise<{ id: string; value: string }> {
  const r = await srv.api('POST', '/api/personal_api_keys/', { scopes, scoped_teams: scopedTeams });
  expect(r.status).toBe(201);
  return r.body;
}

describe('authentication cache', () => {
  it('refuses a revoked personal key on the next request (REST and GraphQL)', async () => {
    const k = await personalKey(['query:read', 'project:read']);
    for (let i = 0; i < 3; i++) expect((await srv.api('POST', '/api/projects/1/query/', SELECT_ONE, k.value)).status).toBe(200);
    expect((await srv.api('DELETE', `/api/personal_api_keys/${k.id}/`)).status).toBe(204);
    const after = await srv.api('POST', '/api/projects/1/query/', SELECT_ONE, k.value);
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('authentication_failed');
    const gql = await srv.api('POST', '/graphql', { query: '{ viewer { principalType } }' }, k.value);
    expect(JSON.stringify(gql.body)).toMatch(/authentication_failed|UNAUTHENTICATED/);
  });

  it('refuses a key that revoked itself, at once', async () => {
    const k = await personalKey(['personal_api_key:write', 'project:read']);
    expect((await srv.api('GET', '/api/projects/', undefined, k.value)).status).toBe(200);
    expect((await srv.api('DELETE', `/api/personal_api_keys/${k.id}/`, undefined, k.value)).status).toBe(204);
    expect((await srv.api('GET', '/api/projects/', undefined, k.value)).status).toBe(401);
  });

  it('rotation: the new key works at once, the revoked old one is refused at once', async () => {
    const old = await personalKey(['query:read']);
    expect((await srv.api('POST', '/api/projects/1/query/', SELECT_ONE, old.value)).status).toBe(200);
    const fresh = await personalKey(['query:read']);
    expect((await srv.api('DELETE', `/api/personal_api_keys/${old.id}/`)).status).toBe(204);
    expect((await srv.api('POST', '/api/projects/1/query/', SELECT_ONE, old.value)).status).toBe(401);
    expect((await srv.api('POST', '/api/projects/1/query/', SELECT_ONE, fresh.value)).status).toBe(200);
  });

  it('refuses a revoked project secret key on the next endpoint run', async () => {
    const name = `cache_secret_${Date.now()}`;
    expect(
      (await srv.api('POST', '/api/environments/1/endpoints/', { name, query: { kind: 'ProductQLQuery', query: 'SELECT 1 AS one' } })).status,
    ).toBe(201);
    const secret = (await srv.api('POST', '/api/projects/1/project_secret_api_keys/', { scopes: ['endpoint:read'] })).body;
    expect((await srv.api('POST', `/api/environments/1/endpoints/${name}/run`, {}, secret.value)).status).toBe(200);
    expect((await srv.api('POST', `/api/environments/1/endpoints/${name}/run`, {}, secret.value)).status).toBe(200);
    expect((await srv.api('DELETE', `/api/projects/1/project_secret_api_keys/${secret.id}/`)).status).toBe(204);
    const after = await srv.api('POST', `/api/environments/1/endpoints/${name}/run`, {}, secret.value);
    expect(after.status).toBe(401);
  });

  it('applies a scope change made in the store on the next request', async () => {
    const k = await personalKey(['query:read', 'project:read']);
    expect((await srv.api('POST', '/api/projects/1/query/', SELECT_ONE, k.value)).status).toBe(200);
    await srv.server.services.store.personalKeys.update(k.id, { scopes: ['project:read'] });
    const after = await srv.api('POST', '/api/projects/1/query/', SELECT_ONE, k.value);
    expect(after.status).toBe(403);
    expect(after.body.code).toBe('permission_denied');
    await srv.server.services.store.personalKeys.update(k.id, { scoped_teams: [999_999] });
    expect((await srv.api('GET', '/api/projects/1/', undefined, k.value)).status).toBe(403); // outside its projects: posthog-api.md §3.2
  });

  it("refuses a deleted project's secret keys at once (they go with the project)", async () => {
    const pid = await newProject(srv, 'doomed');
    const name = 'doomed_endpoint';
    expect(
      (await srv.api('POST', `/api/environments/${pid}/endpoints/`, { name, query: { kind: 'ProductQLQuery', query: 'SELECT 1 AS one' } })).status,
    ).toBe(201);
    const secret = (await srv.api('POST', `/api/projects/${pid}/project_secret_api_keys/`, { scopes: ['endpoint:read'] })).body;
    expect((await srv.api('POST', `/api/environments/${pid}/endpoints/${name}/run`, {}, secret.value)).status).toBe(200);
    expect((await srv.api('DELETE', `/api/projects/${pid}/`)).status).toBe(204);
    const after = await srv.api('POST', `/api/environments/${pid}/endpoints/${name}/run`, {}, secret.value);
    expect(after.status).toBe(401);
  });

  it('never remembers a bad key: it keeps failing, and a garbage header keeps being refused', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await srv.api('POST', '/api/projects/1/query/', SELECT_ONE, 'phx_not_a_real_key_at_all_0000000000000000000')).status).toBe(401);
    }
    expect((await srv.api('POST', '/api/projects/1/query/', SELECT_ONE, null, { authorization: 'Basic abc' })).status).toBe(401);
  });
});

describe('project cache', () => {
  it('answers with the new timezone right after the project changes it', async () => {
    const pid = await newProject(srv, 'tz');
    const q = { query: { kind: 'ProductQLQuery', query: 'SELECT 2 AS two' } };
    const before = await srv.api('POST', `/api/projects/${pid}/query/`, q);
    expect(before.body.timezone).toBe('UTC');
    expect((await srv.api('PATCH', `/api/projects/${pid}/`, { timezone: 'Europe/Berlin' })).status).toBe(200);
    const after = await srv.api('POST', `/api/projects/${pid}/query/`, q);
    expect(after.body.timezone).toBe('Europe/Berlin');
    expect(after.body.cache_key).not.toBe(before.body.cache_key);
    expect(after.body.is_cached).toBe(false);
  });

  it('a changed test-account filter or path-cleaning rule is a cache miss at once', async () => {
    const pid = await newProject(srv, 'settings');
    const q = { query: { kind: 'ProductQLQuery', query: 'SELECT 3 AS three' } };
    const keys = [(await srv.api('POST', `/api/projects/${pid}/query/`, q)).body.cache_key];
    for (const patch of [
      { test_account_filters: [{ key: 'email', value: '@example.com', operator: 'not_icontains', type: 'person' }] },
      { path_cleaning_filters: [{ regex: '/\\d+', alias: '/<id>' }] },
    ]) {
      expect((await srv.api('PATCH', `/api/projects/${pid}/`, patch)).status).toBe(200);
      const after = await srv.api('POST', `/api/projects/${pid}/query/`, q);
      expect(after.body.is_cached).toBe(false);
      keys.push(after.body.cache_key);
    }
    expect(new Set(keys).size).toBe(3);
  });

  it('a deleted project is not found at once', async () => {
    const pid = await newProject(srv, 'gone');
    expect((await srv.api('POST', `/api/projects/${pid}/query/`, SELECT_ONE)).status).toBe(200);
    expect((await srv.api('DELETE', `/api/projects/${pid}/`)).status).toBe(204);
    expect((await srv.api('POST', `/api/projects/${pid}/query/`, SELECT_ONE)).status).toBe(404);
  });
});

describe('endpoint run cache', () => {
  it('runs the new version right after an update, and 404s right after a delete', async () => {
    const name = `cache_ep_${Date.now()}`;
    expect(
      (await srv.api('POST', '/api/environments/1/endpoints/', { name, query: { kind: 'ProductQLQuery', query: 'SELECT 1 AS v' } })).status,
    ).toBe(201);
    const first = await srv.api('POST', `/api/environments/1/endpoints/${name}/run`, {});
    expect(first.body.results).toEqual([[1]]);
    expect(first.body.endpoint_version).toBe(1);
    expect((await srv.api('PATCH', `/api/environments/1/endpoints/${name}/`, { query: { kind: 'ProductQLQuery', query: 'SELECT 2 AS v' } })).status).toBe(200);
    const second = await srv.api('POST', `/api/environments/1/endpoints/${name}/run`, {});
    expect(second.body.results).toEqual([[2]]);
    expect(second.body.endpoint_version).toBe(2);
    expect((await srv.api('PATCH', `/api/environments/1/endpoints/${name}/`, { is_active: false })).status).toBe(200);
    expect((await srv.api('POST', `/api/environments/1/endpoints/${name}/run`, {})).status).toBe(404);
    expect((await srv.api('PATCH', `/api/environments/1/endpoints/${name}/`, { is_active: true })).status).toBe(200);
    expect((await srv.api('POST', `/api/environments/1/endpoints/${name}/run`, {})).status).toBe(200);
    expect((await srv.api('DELETE', `/api/environments/1/endpoints/${name}/`)).status).toBe(204);
    expect((await srv.api('POST', `/api/environments/1/endpoints/${name}/run`, {})).status).toBe(404);
  });

  it("applies a secret key's changed fixed variables on the next run", async () => {
    const name = `cache_fixed_${Date.now()}`;
    expect(
      (
        await srv.api('POST', '/api/environments/1/endpoints/', {
          name,
          query: { kind: 'ProductQLQuery', query: 'SELECT {variables.who} AS who' },
          variables: [{ name: 'who', type: 'String', default: 'nobody' }],
        })
      ).status,
    ).toBe(201);
    const secret = (await srv.api('POST', '/api/projects/1/project_secret_api_keys/', { scopes: ['endpoint:read'], fixed_variables: { who: 'acme' } })).body;
    expect((await srv.api('POST', `/api/environments/1/endpoints/${name}/run`, { variables: { who: 'evil' } }, secret.value)).body.results).toEqual([['acme']]);
    await srv.server.services.store.secretKeys.update(secret.id, { fixed_variables: { who: 'globex' } });
    expect((await srv.api('POST', `/api/environments/1/endpoints/${name}/run`, { variables: { who: 'evil' } }, secret.value)).body.results).toEqual([['globex']]);
  });
});

describe('cached answer serialization', () => {
  it('serves a cache hit with the same body as a freshly built envelope, twice', async () => {
    const q = { query: { kind: 'ProductQLQuery', query: 'SELECT 3 AS three' } };
    const miss = await srv.api('POST', '/api/projects/1/query/', q);
    const hit1 = await srv.api('POST', '/api/projects/1/query/', q);
    const hit2 = await srv.api('POST', '/api/projects/1/query/', q);
    expect(miss.body.is_cached).toBe(false);
    expect(hit1.body.is_cached).toBe(true);
    expect(hit1.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(hit2.text).toBe(hit1.text);
    expect({ ...hit1.body, is_cached: false }).toEqual(miss.body);
    // modifiers.timings asks for a per-request envelope: not the kept one
    const timed = await srv.api('POST', '/api/projects/1/query/', { query: { ...q.query, modifiers: { timings: true } } });
    expect(timed.body.is_cached).toBe(true);
    expect(Array.isArray(timed.body.timings)).toBe(true);
  });
});

describe('repeated request bodies', () => {
  it('recognizes a repeated body only for modes that accept a cached answer, and logs every answer', async () => {
    const pid = await newProject(srv, 'repeat');
    const text = JSON.stringify({ query: { kind: 'ProductQLQuery', query: 'SELECT 4 AS four' }, client_query_id: 'rep-1' });
    const forced = JSON.stringify({ query: { kind: 'ProductQLQuery', query: 'SELECT 4 AS four' }, refresh: 'force_blocking' });
    const send = async (body: string) => (await srv.api('POST', `/api/projects/${pid}/query/`, body)).body;
    expect((await send(text)).is_cached).toBe(false);
    expect((await send(text)).is_cached).toBe(true);
    expect((await send(text)).is_cached).toBe(true);
    expect((await send(forced)).is_cached).toBe(false);
    expect((await send(forced)).is_cached).toBe(false);
    const log = await srv.api('GET', `/api/projects/${pid}/query_log/?limit=100`);
    expect(log.body.count).toBe(5);
    const cached = log.body.results.filter((e: { is_cached: boolean }) => e.is_cached);
    expect(cached).toHaveLength(2);
    expect(cached.every((e: { query_id: string | null }) => e.query_id === 'rep-1')).toBe(true);
  });

  it('still refuses a repeated body once the key lost its scope', async () => {
    const k = await personalKey(['query:read']);
    const body = { query: { kind: 'ProductQLQuery', query: 'SELECT 5 AS five' } };
    expect((await srv.api('POST', '/api/projects/1/query/', body, k.value)).status).toBe(200);
    expect((await srv.api('POST', '/api/projects/1/query/', body, k.value)).body.is_cached).toBe(true);
    await srv.server.services.store.personalKeys.update(k.id, { scopes: ['insight:read'] });
    expect((await srv.api('POST', '/api/projects/1/query/', body, k.value)).status).toBe(403);
  });
});

describe('cached endpoint run serialization', () => {
  it('answers a hit with the same fields, in the same order, as a freshly built response (fresh execution id each time)', async () => {
    const name = `cache_json_${Date.now()}`;
    expect(
      (
        await srv.api('POST', '/api/environments/1/endpoints/', {
          name,
          query: { kind: 'ProductQLQuery', query: 'SELECT {variables.who} AS who, 2 AS n' },
          variables: [{ name: 'who', type: 'String', default: 'a "quoted" ünïcode' }],
        })
      ).status,
    ).toBe(201);
    const run = (body: unknown) => srv.api('POST', `/api/environments/1/endpoints/${name}/run`, body);
    const miss = await run({});
    const hit1 = await run({});
    const hit2 = await run({});
    expect(miss.body.is_cached).toBe(false);
    expect(hit1.body.is_cached).toBe(true);
    expect(Object.keys(hit1.body)).toEqual(Object.keys(miss.body));
    expect(Object.keys(hit2.body)).toEqual(Object.keys(hit1.body));
    expect(hit1.body.execution_id).not.toBe(hit2.body.execution_id);
    const strip = (b: Record<string, unknown>) => ({ ...b, execution_id: null, is_cached: null });
    expect(strip(hit1.body)).toEqual(strip(miss.body));
    expect(strip(hit2.body)).toEqual(strip(hit1.body));
    expect(hit1.body.results).toEqual([['a "quoted" ünïcode', 2]]);
    expect(hit1.headers.get('content-type')).toBe('application/json; charset=utf-8');
    // other shapes of the same cached answer
    const objects = await run({ result_format: 'objects' });
    expect(objects.body.is_cached).toBe(true);
    expect(objects.body.results).toEqual([{ who: 'a "quoted" ünïcode', n: 2 }]);
    const debug = await run({ debug: true });
    expect(typeof debug.body.cache_key).toBe('string');
    const csv = await srv.api('POST', `/api/environments/1/endpoints/${name}/run`, {}, undefined, { accept: 'text/csv' });
    expect(csv.status).toBe(200);
    expect(csv.text).toContain('ünïcode');
    // GraphQL reads the response object and columns of a hit whose JSON is already known (built on first read)
    const gql = await srv.api('POST', '/graphql', {
      query: `{ runEndpoint(projectId: 1, name: "${name}") { columns { name type } rows isCached executionId cacheTargetAge lastRefresh } }`,
    });
    expect(gql.body.errors).toBeUndefined();
    const ran = gql.body.data.runEndpoint;
    expect(ran).toMatchObject({ rows: [['a "quoted" ünïcode', 2]], isCached: true, cacheTargetAge: hit2.body.cache_target_age, lastRefresh: hit2.body.last_refresh });
    expect(ran.columns.map((c: { name: string }) => c.name)).toEqual(['who', 'n']);
    expect(ran.executionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(ran.executionId).not.toBe(hit2.body.execution_id);
  });
});

describe('synchronous cached answers (no promise on the hot path)', () => {
  it('Authenticator.remembered: nothing until the key authenticated, then its principal; a missing header is refused; a revoked key is forgotten', async () => {
    const auth = srv.server.services.auth;
    const k = await personalKey(['query:read']);
    expect(auth.remembered(`Bearer ${k.value}`)).toBeUndefined();
    const principal = await auth.authenticate(`Bearer ${k.value}`);
    expect(auth.remembered(`Bearer ${k.value}`)).toBe(principal);
    expect(() => auth.remembered(undefined)).toThrow(expect.objectContaining({ code: 'not_authenticated' }));
    expect(() => auth.remembered('Bearer two words')).toThrow(expect.objectContaining({ code: 'authentication_failed' }));
    expect((await srv.api('DELETE', `/api/personal_api_keys/${k.id}/`)).status).toBe(204);
    expect(auth.remembered(`Bearer ${k.value}`)).toBeUndefined();
  });

  it('QueryService.cachedAnswer: a remembered, fresh request is answered (and logged) at once; anything else is left to the full path', async () => {
    const pid = await newProject(srv, 'sync-query');
    const queries = srv.server.services.queries;
    const text = JSON.stringify({ query: { kind: 'ProductQLQuery', query: 'SELECT 6 AS six' }, client_query_id: 'sync-1' });
    const principal = await srv.server.services.auth.authenticate(`Bearer ${srv.key}`);
    expect(queries.cachedAnswer(principal, pid, text)).toBeUndefined(); // never seen
    expect((await srv.api('POST', `/api/projects/${pid}/query/`, text)).body.is_cached).toBe(false);
    const hit = queries.cachedAnswer(principal, pid, text);
    expect(hit).not.toBeInstanceOf(Promise);
    expect(hit?.status).toBe(200);
    expect(JSON.parse(hit!.json!)).toMatchObject({ is_cached: true, results: [[6]], timezone: 'UTC' });
    expect(queries.cachedAnswer(principal, pid, text.replace('6 AS', '7 AS'))).toBeUndefined();
    const log = await srv.api('GET', `/api/projects/${pid}/query_log/?limit=10`);
    expect(log.body.count).toBe(2);
    // both may carry the same millisecond (then their order is by random id): the cached answer is one of them
    expect(log.body.results.map((r: { is_cached: boolean }) => r.is_cached).sort()).toEqual([false, true]);
    expect(log.body.results.find((r: { is_cached: boolean }) => r.is_cached)).toMatchObject({ is_cached: true, query_id: 'sync-1', status: 'ok', result_rows: 1 });
    // the scope and the project are checked every time
    const narrow = await personalKey(['project:read']);
    const narrowed = await srv.server.services.auth.authenticate(`Bearer ${narrow.value}`);
    expect(() => queries.cachedAnswer(narrowed, pid, text)).toThrow(expect.objectContaining({ code: 'permission_denied' }));
    const elsewhere = await personalKey(['query:read'], [1]);
    const restricted = await srv.server.services.auth.authenticate(`Bearer ${elsewhere.value}`);
    expect(() => queries.cachedAnswer(restricted, pid, text)).toThrow(expect.objectContaining({ status: 403 })); // posthog-api.md §3.2
  });

  it('logs each caller of one cached request under its own principal', async () => {
    const pid = await newProject(srv, 'two-callers');
    const other = await personalKey(['query:read']);
    const body = { query: { kind: 'ProductQLQuery', query: 'SELECT 8 AS eight' } };
    for (const key of [undefined, undefined, other.value, undefined, other.value]) {
      expect((await srv.api('POST', `/api/projects/${pid}/query/`, body, key)).status).toBe(200);
    }
    const log = await srv.api('GET', `/api/projects/${pid}/query_log/?limit=10`);
    const principals = log.body.results.map((e: { principal: string }) => e.principal).reverse();
    expect(principals).toHaveLength(5);
    const [me, , them] = principals;
    expect(me).not.toBe(them);
    expect(principals).toEqual([me, me, them, me, them]);
    expect(log.body.results.filter((e: { is_cached: boolean }) => e.is_cached)).toHaveLength(4);
  });

  it('EndpointService.cachedRun: a repeated run is served as run() served it (new execution id, logged); another query string, caller or a changed endpoint goes the full way', async () => {
    const name = `sync_run_${Date.now()}`;
    expect(
      (
        await srv.api('POST', '/api/environments/1/endpoints/', {
          name,
          query: { kind: 'ProductQLQuery', query: 'SELECT arrayJoin([0, 1, 2]) AS n' },
        })
      ).status,
    ).toEqual(201);
    const endpoints = srv.server.services.endpoints;
    const text = JSON.stringify({ variables: {} });
    const principal = await srv.server.services.auth.authenticate(`Bearer ${srv.key}`);
    const run = (query = '') => srv.api('POST', `/api/environments/1/endpoints/${name}/run${query}`, text);
    expect((await run()).body.is_cached).toBe(false);
    const viaHttp = await run(); // a hit through run(): remembered for the synchronous path
    expect(viaHttp.body.is_cached).toBe(true);
    const fast = endpoints.cachedRun(principal, 1, name, {}, text);
    expect(fast).not.toBeInstanceOf(Promise);
    const body = JSON.parse(fast!.json!);
    expect(Object.keys(body)).toEqual(Object.keys(viaHttp.body));
    expect({ ...body, execution_id: null }).toEqual({ ...viaHttp.body, execution_id: null });
    expect(body.execution_id).not.toBe(viaHttp.body.execution_id);
    expect(fast!.body).toEqual(body); // the object view (GraphQL, row streams) matches the JSON
    expect(fast!.columns.map((c) => c.name)).toEqual(['n']);
    // a different query string, caller or endpoint name is not the remembered run
    expect(endpoints.cachedRun(principal, 1, name, { limit: '1' }, text)).toBeUndefined();
    const limited = await run('?limit=1');
    expect(limited.body.results).toEqual([[0]]);
    const other = await personalKey(['endpoint:read']);
    const otherPrincipal = await srv.server.services.auth.authenticate(`Bearer ${other.value}`);
    expect(endpoints.cachedRun(otherPrincipal, 1, name, {}, text)).toBeUndefined();
    // the scope and project checks run first, every time
    const restricted = await srv.server.services.auth.authenticate(`Bearer ${(await personalKey(['endpoint:read'], [1])).value}`);
    expect(() => endpoints.cachedRun(restricted, 999_999, name, {}, text)).toThrow(expect.objectContaining({ status: 403 })); // posthog-api.md §3.2
    const noScope = await srv.server.services.auth.authenticate(`Bearer ${(await personalKey(['query:read'])).value}`);
    expect(() => endpoints.cachedRun(noScope, 1, name, {}, text)).toThrow(expect.objectContaining({ code: 'permission_denied' }));
    // an updated endpoint is a new object: the remembered run no longer applies
    expect((await srv.api('PATCH', `/api/environments/1/endpoints/${name}/`, { description: 'changed' })).status).toBe(200);
    expect(endpoints.cachedRun(principal, 1, name, {}, text)).toBeUndefined();
    const runs = (await srv.api('GET', '/api/projects/1/query_log/?limit=100')).body.results.filter(
      (e: { name: string | null }) => e.name === `endpoint:${name}`,
    );
    // miss, hit through run(), the synchronous hit, the ?limit=1 miss
    expect(runs.map((e: { is_cached: boolean }) => e.is_cached).reverse()).toEqual([false, true, true, false]);
  });
});

describe('query log reads', () => {
  it('a ProductQL read of query_log sees the rows of the answers just given (buffered rows are written first)', async () => {
    const pid = await newProject(srv, 'reads-log');
    // warm-up: the parser and the printer are ready, so the read below starts within milliseconds
    expect((await srv.api('POST', `/api/projects/${pid}/query/`, { query: { kind: 'ProductQLQuery', query: 'SELECT count() FROM query_log' } })).status).toBe(200);
    // rows buffered right now (the flush interval is far longer than the next request)
    const log = (srv.server.services.queries as unknown as { log: QueryLog }).log;
    for (let i = 0; i < 4; i++) {
      log.record({ project_id: pid, query_id: null, principal: 'user:1/key:k', kind: 'TrendsQuery', name: null, query_hash: 'cache_x', query: null, duration_ms: 0, result_rows: null, result_bytes: null, is_cached: true, status: 'ok', error_code: null });
    }
    const r = await srv.api('POST', `/api/projects/${pid}/query/`, {
      query: { kind: 'ProductQLQuery', query: 'SELECT kind, count() AS n FROM query_log GROUP BY kind ORDER BY kind' },
    });
    expect(r.status).toBe(200);
    expect(r.body.results).toEqual([
      ['ProductQLQuery', 1],
      ['TrendsQuery', 4],
    ]);
  });
});
