/**
 * Who may call what: every REST route (both prefixes, with and without trailing slash) and GraphQL, against
 * every kind of credential. One table, one it.each. Destructive rows get fresh targets, so rows are independent.
 */
import type { ApiResponse, TestServer } from '../helpers/server';
import { gql, startServer } from '../helpers/server';

let srv: TestServer;

/** Credentials, set up once (except `restricted`, which is per-row: it is scoped to the row's fresh project). */
type Cred = 'none' | 'bad' | 'malformed' | 'revoked' | 'noScope' | 'read' | 'write' | 'admin' | 'restricted' | 'restrictedOther' | 'secret';
const CREDS: Cred[] = ['none', 'bad', 'malformed', 'revoked', 'noScope', 'read', 'write', 'admin', 'restricted', 'restrictedOther', 'secret'];

const keys = {} as Record<Exclude<Cred, 'none' | 'malformed' | 'restricted'>, string>;
/** A project that the per-row targets are not: `restrictedOther` is scoped to it. */
let otherProject: number;
/** The target of rows that do not destroy it. */
let shared: Target;

/** What a row acts on: a fresh project, a fresh personal key and a fresh secret key of that project. */
interface Target {
  project: number;
  personalKeyId: string;
  secretKeyId: string;
  restrictedKey: string;
}

async function freshTarget(): Promise<Target> {
  const s = srv.server.services;
  const project = (await s.projects.createUnchecked({ name: 'target', timezone: 'UTC', week_start_day: 0, test_account_filters: [], path_cleaning_filters: [] })).id;
  const userId = (await s.store.users.findOneOrFail({ where: {}, order: { id: 'ASC' } })).id;
  const victim = await s.keys.issuePersonal(userId, { label: 'victim', scopes: ['query:read'], scoped_teams: null });
  const restricted = await s.keys.issuePersonal(userId, { label: 'restricted', scopes: ['*'], scoped_teams: [project] });
  const admin = { kind: 'personal' as const, keyId: 'test', userId, scopes: ['*'], projectIds: null };
  const secret = await s.keys.createSecret(admin, project, { scopes: ['endpoint:read'] });
  return { project, personalKeyId: victim.id, secretKeyId: secret.id, restrictedKey: restricted.value! };
}

function authHeader(cred: Cred, t: Target): string | null {
  switch (cred) {
    case 'none':
      return null;
    case 'malformed':
      return 'Basic dXNlcjpwYXNz';
    case 'restricted':
      return `Bearer ${t.restrictedKey}`;
    default:
      return `Bearer ${keys[cred]}`;
  }
}

/** The error as {status, code, detail}, from a REST body or the first GraphQL error. */
interface Outcome {
  status: number;
  code?: string;
  detail?: string;
}

interface Route {
  name: string;
  send(t: Target, authorization: string | null): Promise<ApiResponse>;
  /** Scope the route requires. */
  scope: string;
  /** Nested under a project (so a restricted key may use it on its own project). */
  projectRoute: boolean;
  /** Listing projects: restricted keys may call it (and see only their projects). */
  allowsRestricted?: boolean;
  /** Status on success. */
  ok: number;
  /** Success destroys the target (DELETE): the row gets a fresh one. */
  destructive?: boolean;
  /** How GraphQL reports: true when the answer is a GraphQL body. */
  graphql?: boolean;
}

function rest(method: string, pathOf: (t: Target) => string, scope: string, ok: number, extra: Partial<Route> & { body?: unknown } = {}): Route[] {
  const variants: Route[] = [];
  const sample = pathOf({ project: 7, personalKeyId: 'K', secretKeyId: 'S', restrictedKey: '' });
  const nested = sample.startsWith('/api/projects/7/');
  for (const prefix of nested ? ['projects', 'environments'] : ['projects']) {
    for (const slash of [true, false]) {
      const p = (t: Target) => {
        let path = pathOf(t);
        if (nested) path = path.replace('/api/projects/', `/api/${prefix}/`);
        return slash ? path : path.replace(/\/$/, '');
      };
      const display = p({ project: 7, personalKeyId: '<key>', secretKeyId: '<key>', restrictedKey: '' }).replace('/7/', '/<id>/').replace(/\/7$/, '/<id>');
      variants.push({
        name: `${method} ${display}`,
        scope,
        ok,
        projectRoute: nested,
        destructive: method === 'DELETE',
        ...extra,
        send: (t, authorization) => {
          const h: Record<string, string> = authorization ? { authorization } : {};
          return srv.api(method, p(t), extra.body, null, h);
        },
      });
    }
  }
  return variants;
}

function graphqlRoute(name: string, query: (t: Target) => string, scope: string, extra: Partial<Route> = {}): Route {
  return {
    name: `GraphQL ${name}`,
    scope,
    ok: 200,
    projectRoute: false,
    graphql: true,
    ...extra,
    send: (t, authorization) => srv.api('POST', '/graphql', { query: query(t) }, null, authorization ? { authorization } : {}),
  };
}

const ROUTES: Route[] = [
  ...rest('GET', () => '/api/projects/', 'project:read', 200, { allowsRestricted: true }),
  ...rest('POST', () => '/api/projects/', 'project:write', 201, { body: { name: 'made by matrix' } }),
  ...rest('GET', (t) => `/api/projects/${t.project}/`, 'project:read', 200),
  ...rest('PATCH', (t) => `/api/projects/${t.project}/`, 'project:write', 200, { body: { name: 'renamed' } }),
  ...rest('DELETE', (t) => `/api/projects/${t.project}/`, 'project:write', 204),
  ...rest('GET', () => '/api/personal_api_keys/', 'personal_api_key:read', 200),
  ...rest('POST', () => '/api/personal_api_keys/', 'personal_api_key:write', 201, { body: { label: 'm', scopes: ['project:read'] } }),
  ...rest('DELETE', (t) => `/api/personal_api_keys/${t.personalKeyId}/`, 'personal_api_key:write', 204),
  ...rest('GET', (t) => `/api/projects/${t.project}/project_secret_api_keys/`, 'project:read', 200),
  ...rest('POST', (t) => `/api/projects/${t.project}/project_secret_api_keys/`, 'project:write', 201, { body: { label: 's', scopes: ['endpoint:read'] } }),
  ...rest('DELETE', (t) => `/api/projects/${t.project}/project_secret_api_keys/${t.secretKeyId}/`, 'project:write', 204),
  graphqlRoute('projects', () => '{ projects { count } }', 'project:read', { allowsRestricted: true }),
  graphqlRoute('project(id)', (t) => `{ project(id: ${t.project}) { id } }`, 'project:read', { projectRoute: true }),
  graphqlRoute('createProject', () => 'mutation { createProject(input: {name: "g"}) { id } }', 'project:write'),
  graphqlRoute('updateProject', (t) => `mutation { updateProject(id: ${t.project}, input: {name: "g2"}) { id } }`, 'project:write', { projectRoute: true }),
  graphqlRoute('deleteProject', (t) => `mutation { deleteProject(id: ${t.project}) }`, 'project:write', { projectRoute: true, destructive: true }),
  graphqlRoute('personalApiKeys', () => '{ personalApiKeys { id } }', 'personal_api_key:read'),
  graphqlRoute('createPersonalApiKey', () => 'mutation { createPersonalApiKey(input: {scopes: ["project:read"]}) { id } }', 'personal_api_key:write'),
  graphqlRoute('revokePersonalApiKey', (t) => `mutation { revokePersonalApiKey(id: "${t.personalKeyId}") }`, 'personal_api_key:write', { destructive: true }),
  graphqlRoute('projectSecretApiKeys', (t) => `{ projectSecretApiKeys(projectId: ${t.project}) { id } }`, 'project:read', { projectRoute: true }),
  graphqlRoute('createProjectSecretApiKey', (t) => `mutation { createProjectSecretApiKey(projectId: ${t.project}, input: {scopes: ["endpoint:read"]}) { id } }`, 'project:write', { projectRoute: true }),
  graphqlRoute('revokeProjectSecretApiKey', (t) => `mutation { revokeProjectSecretApiKey(projectId: ${t.project}, id: "${t.secretKeyId}") }`, 'project:write', { projectRoute: true, destructive: true }),
];

const NOT_AUTHENTICATED: Outcome = { status: 401, code: 'not_authenticated', detail: 'Authentication credentials were not provided.' };
const BAD_KEY: Outcome = { status: 401, code: 'authentication_failed', detail: 'Personal API key found in request Authorization header is invalid.' };
const MALFORMED: Outcome = { status: 401, code: 'authentication_failed', detail: 'Authorization header must be of the form "Bearer <key>".' };
/** A project outside the key's projects: PostHog's 403 (posthog-api.md §3.2), the same whether it exists or not. */
const PROJECT_OUT_OF_SCOPE: Outcome = {
  status: 403,
  code: 'permission_denied',
  detail: expect.stringMatching(/^API key does not have access to the requested project: ID \d+\.$/),
};
const RESTRICTED_OFF_PROJECT: Outcome = { status: 403, code: 'permission_denied', detail: 'API keys with scoped projects are only supported on project-based endpoints.' };
const SECRET_REFUSED: Outcome = { status: 403, code: 'permission_denied', detail: 'This action does not support project secret API key access' };
const SECRET_NOT_PROJECT: Outcome = { status: 403, code: 'permission_denied', detail: 'Project secret API keys are only supported on project-based endpoints.' };
const missing = (scope: string): Outcome => ({ status: 403, code: 'permission_denied', detail: `API key missing required scope '${scope}'` });

/** The expected outcome of one cell, from the rules in posthog-api.md §3. */
function expected(route: Route, cred: Cred): Outcome {
  const ok: Outcome = { status: route.ok };
  const isRead = route.scope.endsWith(':read');
  switch (cred) {
    case 'none':
      return NOT_AUTHENTICATED;
    case 'bad':
    case 'revoked':
      return BAD_KEY;
    case 'malformed':
      return MALFORMED;
    case 'noScope': // holds query:read only
      return missing(route.scope);
    case 'read': // project:read + personal_api_key:read
      return isRead ? ok : missing(route.scope);
    case 'write': // project:write + personal_api_key:write: write implies read
    case 'admin':
      return ok;
    case 'restricted': // '*' restricted to the row's project
      return route.projectRoute || route.allowsRestricted ? ok : RESTRICTED_OFF_PROJECT;
    case 'restrictedOther': // '*' restricted to another project: the row's project looks missing
      if (route.projectRoute) return PROJECT_OUT_OF_SCOPE;
      return route.allowsRestricted ? ok : RESTRICTED_OFF_PROJECT;
    case 'secret': // endpoint:read on another project: only endpoint runs accept it, and only under a project
      return route.projectRoute ? SECRET_REFUSED : SECRET_NOT_PROJECT;
  }
}

const TABLE = ROUTES.flatMap((route) => CREDS.map((cred) => [route.name, cred, expected(route, cred).status, route, expected(route, cred)] as const));

function outcomeOf(route: Route, res: ApiResponse, want: Outcome): Outcome {
  if (want.code === undefined) return { status: res.status };
  if (route.graphql) {
    const e = res.body?.errors?.[0];
    return { status: res.status, code: e?.extensions?.code, detail: e?.message };
  }
  return { status: res.status, code: res.body?.code, detail: res.body?.detail };
}

beforeAll(async () => {
  srv = await startServer();
  const mk = async (scopes: string[], scoped_teams: number[] | null = null) => {
    const r = await srv.api('POST', '/api/personal_api_keys/', { label: 'matrix', scopes, scoped_teams });
    expect(r.status).toBe(201);
    return r.body as { id: string; value: string };
  };
  otherProject = (await srv.api('POST', '/api/projects/', { name: 'other' })).body.id;
  keys.bad = 'phx_' + 'Z'.repeat(43);
  keys.noScope = (await mk(['query:read'])).value;
  keys.read = (await mk(['project:read', 'personal_api_key:read'])).value;
  keys.write = (await mk(['project:write', 'personal_api_key:write'])).value;
  keys.admin = srv.key;
  keys.restrictedOther = (await mk(['*'], [otherProject])).value;
  const revoked = await mk(['*']);
  keys.revoked = revoked.value;
  expect((await srv.api('DELETE', `/api/personal_api_keys/${revoked.id}/`)).status).toBe(204);
  const secret = await srv.api('POST', `/api/projects/${otherProject}/project_secret_api_keys/`, { scopes: ['endpoint:read'] });
  keys.secret = secret.body.value;
  shared = await freshTarget();
});

afterAll(async () => {
  await srv?.close();
});

describe('auth matrix', () => {
  it('covers every route and credential', () => {
    expect(ROUTES.filter((r) => !r.graphql)).toHaveLength(34); // 6 nested × 2 prefixes × 2 slashes + 5 × 2 slashes
    expect(TABLE.length).toBe(ROUTES.length * CREDS.length);
  });

  it.each(TABLE)('%s with %s credential → %i', async (_name, cred, _status, route, want) => {
    const t = route.destructive ? await freshTarget() : shared;
    const res = await route.send(t, authHeader(cred, t));
    expect(outcomeOf(route, res, want)).toEqual(want);
    if (!route.graphql && want.code !== undefined) {
      expect(res.body).toEqual({ type: want.status === 404 ? 'invalid_request' : 'authentication_error', code: want.code, detail: want.detail, attr: null });
    }
    if (route.graphql && want.code !== undefined) {
      expect(res.body.data ?? null).toBeNull();
    }
  });
});

describe('the cells that matter, spelled out', () => {
  // PostHog's APIScopePermission (posthog-api.md §3.2): 403 naming the project; answered before any lookup, so a
  // project that does not exist reads the same and ids leak nothing
  it('project-restricted key on another project: 403 naming it, the same for a project that does not exist', async () => {
    const t = await freshTarget();
    const viaRestriction = await srv.api('GET', `/api/projects/${t.project}/`, undefined, keys.restrictedOther);
    expect(viaRestriction.status).toBe(403);
    expect(viaRestriction.body).toEqual({
      type: 'authentication_error',
      code: 'permission_denied',
      detail: `API key does not have access to the requested project: ID ${t.project}.`,
      attr: null,
    });
    const missingProject = await srv.api('GET', '/api/projects/999999/', undefined, keys.restrictedOther);
    expect(missingProject.text).toBe(viaRestriction.text.replace(`ID ${t.project}.`, 'ID 999999.'));
  });

  it('missing scope names it', async () => {
    const r = await srv.api('POST', '/api/projects/', { name: 'x' }, keys.read);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ type: 'authentication_error', code: 'permission_denied', detail: "API key missing required scope 'project:write'", attr: null });
  });

  it('project list for a restricted key shows only its projects', async () => {
    const r = await srv.api('GET', '/api/projects/', undefined, keys.restrictedOther);
    expect(r.status).toBe(200);
    expect(r.body.results.map((p: { id: number }) => p.id)).toEqual([otherProject]);
    expect(r.body.count).toBe(1);
  });

  it('revocation takes effect on the next request', async () => {
    const created = await srv.api('POST', '/api/personal_api_keys/', { scopes: ['project:read'] });
    const key = created.body.value;
    expect((await srv.api('GET', '/api/projects/', undefined, key)).status).toBe(200);
    expect((await gql(srv, '{ viewer { principalId } }', undefined, key)).status).toBe(200);
    expect((await srv.api('DELETE', `/api/personal_api_keys/${created.body.id}`)).status).toBe(204);
    const after = await srv.api('GET', '/api/projects/', undefined, key);
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ type: 'authentication_error', code: 'authentication_failed', detail: 'Personal API key found in request Authorization header is invalid.', attr: null });
    const afterGql = await gql(srv, '{ viewer { principalId } }', undefined, key);
    expect(afterGql.status).toBe(401);
    expect(afterGql.body.errors[0].extensions.code).toBe('authentication_failed');
  });

  it('a revoked project secret key is refused with the secret-key wording', async () => {
    const t = await freshTarget();
    const created = await srv.api('POST', `/api/projects/${t.project}/project_secret_api_keys/`, { scopes: ['endpoint:read'] });
    await srv.api('DELETE', `/api/projects/${t.project}/project_secret_api_keys/${created.body.id}/`);
    const r = await srv.api('GET', '/api/projects/', undefined, created.body.value);
    expect(r.status).toBe(401);
    expect(r.body).toEqual({
      type: 'authentication_error',
      code: 'authentication_failed',
      detail: 'Project secret API key found in request Authorization header is invalid.',
      attr: null,
    });
  });

  it('no WWW-Authenticate header on 401 (as drf-exceptions-hog)', async () => {
    const r = await srv.api('GET', '/api/projects/', undefined, null);
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBeNull();
  });

  it.each([
    ['lower-case scheme', 'bearer'],
    ['upper-case scheme', 'BEARER'],
  ])('accepts a %s', async (_name, scheme) => {
    const r = await srv.api('GET', '/api/projects/', undefined, null, { authorization: `${scheme} ${srv.key}` });
    expect(r.status).toBe(200);
  });

  it('viewer works for every valid credential kind, including a secret key', async () => {
    for (const key of [keys.noScope, keys.read, keys.restrictedOther, keys.secret]) {
      const r = await gql(srv, '{ viewer { principalType scopes } }', undefined, key);
      expect(r.status).toBe(200);
      expect(r.body.errors).toBeUndefined();
    }
    const s = await gql(srv, '{ viewer { principalType scopes projects { id } } }', undefined, keys.secret);
    expect(s.body.data.viewer).toEqual({ principalType: 'project_secret', scopes: ['endpoint:read'], projects: [{ id: otherProject }] });
  });

  // test_personal_api_keys.py: PersonalAPIKeyAuthentication looks the project token up as a personal key and finds none
  it('the capture token (phc_) is no API key: 401, named after where it was sent; as ?token= it only picks the project', async () => {
    const token = (await srv.api('GET', '/api/projects/1/')).body.api_token as string;
    expect(token).toMatch(/^phc_/);
    const query = { query: { kind: 'HogQLQuery', query: 'select 1' } };
    for (const [where, r] of [
      ['Authorization header', await srv.api('POST', '/api/projects/1/query/', query, token)],
      ['body', await srv.api('POST', '/api/projects/1/query/', { ...query, personal_api_key: token }, null)],
      ['query string', await srv.api('GET', `/api/projects/1/?personal_api_key=${token}`, undefined, null)],
    ] as const) {
      expect([where, r.status, r.body]).toEqual([
        where,
        401,
        { type: 'authentication_error', code: 'authentication_failed', detail: `Personal API key found in request ${where} is invalid.`, attr: null },
      ]);
    }
    const alone = await srv.api('GET', `/api/projects/1/?token=${token}`, undefined, null);
    expect([alone.status, alone.body]).toEqual([
      401,
      { type: 'authentication_error', code: 'not_authenticated', detail: 'Authentication credentials were not provided.', attr: null },
    ]);
  });

  it('the query API: query:read is needed (a project secret key is refused even on its own project)', async () => {
    const query = { query: { kind: 'HogQLQuery', query: 'select 1' } };
    const denied = await srv.api('POST', '/api/projects/1/query/', query, keys.read);
    expect([denied.status, denied.body]).toEqual([
      403,
      { type: 'authentication_error', code: 'permission_denied', detail: "API key missing required scope 'query:read'", attr: null },
    ]);
    expect((await srv.api('POST', '/api/projects/1/query/', query, keys.noScope)).body.results).toEqual([[1]]);
    const secret = await srv.api('POST', `/api/projects/${otherProject}/query/`, query, keys.secret);
    expect([secret.status, secret.body.detail]).toEqual([403, 'This action does not support project secret API key access']);
  });

  it('a non-numeric project id is a missing project', async () => {
    for (const p of ['/api/projects/abc/', '/api/environments/1e3/', '/api/projects/-1/', '/api/projects/9999999999999999/']) {
      const r = await srv.api('GET', p);
      expect([p, r.status, r.body]).toEqual([p, 404, { type: 'invalid_request', code: 'not_found', detail: 'Project not found.', attr: null }]);
    }
  });
});
