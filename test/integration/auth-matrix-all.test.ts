/**
 * Authorization matrix over EVERY REST route the server registers (both the /projects and /environments prefixes),
 * plus the capture routes. The route list is read from the running app (fastify's printRoutes tree), so a new
 * route without a row in TABLE fails the completeness test by name.
 *
 * Each row gives the scope the route requires, whether project secret keys may call it, and a concrete request
 * against fixtures made in beforeAll. Destructive rows (DELETE) get a fresh object per cell, so cells are
 * independent. auth-matrix.test.ts covers the foundation routes with more credential shapes and GraphQL.
 */
import type { ApiResponse, TestServer } from '../helpers/server';
import { startServer } from '../helpers/server';

let srv: TestServer;

// ---------------------------------------------------------------------------------------------------------------
// Fixtures

/** What a request acts on. Most rows share one; destructive rows get a fresh copy of the object they destroy. */
interface Target {
  project: number;
  /** `*` restricted to `project`. */
  restrictedKey: string;
  /** `phs_…` of `project` with endpoint:read. */
  secretKey: string;
  /** `phc_…` of `project`. */
  captureToken: string;
  insightId: number;
  endpointName: string;
  personId: string;
  queryId: string;
  personalKeyId: string;
  secretKeyId: string;
}

let shared: Target;
let otherProject: number;
let otherSecretKey: string;
let revokedKey: string;
const BAD_KEY_VALUE = 'phx_' + 'Z'.repeat(43);

/** Personal keys by scopes (+ restriction), minted on first use with the bootstrap key. */
const keyCache = new Map<string, string>();
async function personalKey(scopes: string[], scopedTeams: number[] | null = null): Promise<string> {
  const id = JSON.stringify([scopes, scopedTeams]);
  let v = keyCache.get(id);
  if (!v) {
    const r = await srv.api('POST', '/api/personal_api_keys/', { label: 'matrix-all', scopes, scoped_teams: scopedTeams });
    if (r.status !== 201) throw new Error(`cannot mint key ${id}: ${r.status} ${r.text}`);
    v = r.body.value as string;
    keyCache.set(id, v);
  }
  return v;
}

let seq = 0;
const uniq = (p: string) => `${p}_${++seq}_${Math.random().toString(36).slice(2, 8)}`;

const SQL = { kind: 'ProductQLQuery', query: 'SELECT count() FROM events' };

async function ok<T = any>(p: Promise<ApiResponse>, status: number, what: string): Promise<T> {
  const r = await p;
  if (r.status !== status) throw new Error(`fixture ${what}: ${r.status} ${r.text}`);
  return r.body as T;
}

async function newProject(): Promise<{ project: number; restrictedKey: string; secretKey: string; captureToken: string; secretKeyId: string }> {
  const p = await ok(srv.api('POST', '/api/projects/', { name: uniq('matrix') }), 201, 'project');
  const restrictedKey = (await ok(srv.api('POST', '/api/personal_api_keys/', { label: 'r', scopes: ['*'], scoped_teams: [p.id] }), 201, 'restricted key')).value;
  const secret = await ok(srv.api('POST', `/api/projects/${p.id}/project_secret_api_keys/`, { label: 's', scopes: ['endpoint:read'] }), 201, 'secret key');
  const captureToken = (await srv.server.services.projects.find(p.id)).api_token;
  return { project: p.id, restrictedKey, secretKey: secret.value, captureToken, secretKeyId: secret.id };
}

const newInsight = async (project: number) =>
  (await ok(srv.api('POST', `/api/projects/${project}/insights/`, { name: uniq('i'), query: SQL }), 201, 'insight')).id as number;

async function newEndpoint(project: number): Promise<string> {
  const name = uniq('ep');
  await ok(srv.api('POST', `/api/projects/${project}/endpoints/`, { name, query: SQL }), 201, 'endpoint');
  return name;
}

async function newPerson(project: number): Promise<string> {
  const distinct = uniq('d');
  await srv.server.services.ingestor.import(project, { events: [{ event: 'e', distinct_id: distinct, timestamp: '2024-01-01T00:00:00Z' }] });
  const r = await ok(
    srv.api('POST', `/api/projects/${project}/query/`, {
      query: { kind: 'ProductQLQuery', query: `SELECT person_id FROM events WHERE distinct_id = '${distinct}' LIMIT 1` },
      refresh: 'force_blocking',
    }),
    200,
    'person',
  );
  return String(r.results[0][0]);
}

async function newQuery(project: number): Promise<string> {
  const r = await srv.api('POST', `/api/projects/${project}/query/`, {
    query: { kind: 'ProductQLQuery', query: `SELECT count() FROM events WHERE event = '${uniq('q')}'` },
    refresh: 'force_async',
    client_query_id: uniq('qid'),
  });
  if (r.status !== 202 && r.status !== 200) throw new Error(`fixture query: ${r.status} ${r.text}`);
  const id = r.body.query_status.id as string;
  await srv.server.services.queries.async.wait(id);
  return id;
}

const newPersonalKeyId = async () => (await ok(srv.api('POST', '/api/personal_api_keys/', { label: 'victim', scopes: ['query:read'] }), 201, 'victim key')).id as string;

async function newSecretKeyId(project: number): Promise<string> {
  return (await ok(srv.api('POST', `/api/projects/${project}/project_secret_api_keys/`, { label: 'victim', scopes: ['endpoint:read'] }), 201, 'victim secret')).id;
}

type Fresh = 'project' | 'insight' | 'endpoint' | 'person' | 'query' | 'personalKey' | 'secretKey';

async function freshTarget(kind: Fresh | undefined): Promise<Target> {
  const t = { ...shared };
  switch (kind) {
    case undefined:
      return shared;
    case 'project':
      return { ...t, ...(await newProject()) };
    case 'insight':
      return { ...t, insightId: await newInsight(t.project) };
    case 'endpoint':
      return { ...t, endpointName: await newEndpoint(t.project) };
    case 'person':
      return { ...t, personId: await newPerson(t.project) };
    case 'query':
      return { ...t, queryId: await newQuery(t.project) };
    case 'personalKey':
      return { ...t, personalKeyId: await newPersonalKeyId() };
    case 'secretKey':
      return { ...t, secretKeyId: await newSecretKeyId(t.project) };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The table

interface Row {
  method: string;
  /** The fastify pattern, with the /api/projects/ prefix (nested rows are expanded to /api/environments/ too). */
  pattern: string;
  /** Scope the route requires. */
  scope: string;
  /** Project secret keys may call it (on their own project). */
  secretAllowed?: boolean;
  /** Not nested under a project, but project-restricted keys may call it (listing projects). */
  restrictedAllowed?: boolean;
  /** Status of a successful call. */
  ok: number;
  /** Other statuses that still prove authorization passed (e.g. cancel of an already finished query). */
  okAlso?: { status: number; detail: string }[];
  /** What a DELETE destroys: the cell gets a fresh one. */
  fresh?: Fresh;
  body?: (t: Target) => unknown;
  /** A known authorization bug: the test name starts with `regression:` (see the report at the end of the file). */
  regression?: string;
}

/** Nested under /api/projects/:projectId. */
const nested = (r: Row) => r.pattern.startsWith('/api/projects/:projectId');

const TABLE: Row[] = [
  // projects
  { method: 'GET', pattern: '/api/projects', scope: 'project:read', ok: 200, restrictedAllowed: true },
  { method: 'POST', pattern: '/api/projects', scope: 'project:write', ok: 201, body: () => ({ name: uniq('made') }) },
  { method: 'GET', pattern: '/api/projects/:projectId', scope: 'project:read', ok: 200 },
  { method: 'PATCH', pattern: '/api/projects/:projectId', scope: 'project:write', ok: 200, body: () => ({ name: 'renamed' }) },
  { method: 'DELETE', pattern: '/api/projects/:projectId', scope: 'project:write', ok: 204, fresh: 'project' },
  // keys
  { method: 'GET', pattern: '/api/personal_api_keys', scope: 'personal_api_key:read', ok: 200 },
  {
    method: 'POST',
    pattern: '/api/personal_api_keys',
    scope: 'personal_api_key:write',
    ok: 201,
    body: () => ({ label: 'm', scopes: ['personal_api_key:read'] }),
  },
  { method: 'DELETE', pattern: '/api/personal_api_keys/:keyId', scope: 'personal_api_key:write', ok: 204, fresh: 'personalKey' },
  { method: 'GET', pattern: '/api/projects/:projectId/project_secret_api_keys', scope: 'project:read', ok: 200 },
  {
    method: 'POST',
    pattern: '/api/projects/:projectId/project_secret_api_keys',
    scope: 'project:write',
    ok: 201,
    body: () => ({ label: 's', scopes: ['endpoint:read'] }),
  },
  { method: 'DELETE', pattern: '/api/projects/:projectId/project_secret_api_keys/:keyId', scope: 'project:write', ok: 204, fresh: 'secretKey' },
  // query
  { method: 'POST', pattern: '/api/projects/:projectId/query', scope: 'query:read', ok: 200, body: () => ({ query: SQL }) },
  { method: 'GET', pattern: '/api/projects/:projectId/query/:queryId', scope: 'query:read', ok: 200 },
  {
    method: 'DELETE',
    pattern: '/api/projects/:projectId/query/:queryId',
    scope: 'query:read',
    ok: 200,
    fresh: 'query',
    // the fixture query has finished by the time the cell runs: cancelling it is "not found", past the auth check
    okAlso: [{ status: 404, detail: 'Query not found.' }],
  },
  { method: 'GET', pattern: '/api/projects/:projectId/query_log', scope: 'query:read', ok: 200 },
  // events
  {
    method: 'POST',
    pattern: '/api/projects/:projectId/import',
    scope: 'event:write',
    ok: 200,
    body: () => ({ events: [{ event: 'imported', distinct_id: 'matrix', timestamp: '2024-01-02T00:00:00Z' }] }),
  },
  { method: 'DELETE', pattern: '/api/projects/:projectId/persons/:personId', scope: 'event:write', ok: 204, fresh: 'person' },
  // insights
  { method: 'GET', pattern: '/api/projects/:projectId/insights', scope: 'insight:read', ok: 200 },
  { method: 'POST', pattern: '/api/projects/:projectId/insights', scope: 'insight:write', ok: 201, body: () => ({ name: uniq('i'), query: SQL }) },
  { method: 'GET', pattern: '/api/projects/:projectId/insights/activity', scope: 'insight:read', ok: 200 },
  { method: 'GET', pattern: '/api/projects/:projectId/insights/:insightId', scope: 'insight:read', ok: 200 },
  { method: 'PATCH', pattern: '/api/projects/:projectId/insights/:insightId', scope: 'insight:write', ok: 200, body: () => ({ description: 'patched' }) },
  { method: 'PUT', pattern: '/api/projects/:projectId/insights/:insightId', scope: 'insight:write', ok: 200, body: () => ({ name: 'put', query: SQL }) },
  { method: 'DELETE', pattern: '/api/projects/:projectId/insights/:insightId', scope: 'insight:write', ok: 204, fresh: 'insight' },
  { method: 'GET', pattern: '/api/projects/:projectId/insights/:insightId/activity', scope: 'insight:read', ok: 200 },
  // endpoints
  { method: 'GET', pattern: '/api/projects/:projectId/endpoints', scope: 'endpoint:read', ok: 200 },
  { method: 'POST', pattern: '/api/projects/:projectId/endpoints', scope: 'endpoint:write', ok: 201, body: () => ({ name: uniq('ep'), query: SQL }) },
  {
    method: 'POST',
    pattern: '/api/projects/:projectId/endpoints/bulk_update_tags',
    scope: 'endpoint:write',
    ok: 405,
    body: () => ({}),
    regression:
      'the handler answers 405 after authentication only: no scope, secret-key or project check (a key without endpoint:write, a secret key, or a key restricted to another project all get 405 instead of 403/404)',
  },
  { method: 'GET', pattern: '/api/projects/:projectId/endpoints/:name', scope: 'endpoint:read', ok: 200 },
  { method: 'PATCH', pattern: '/api/projects/:projectId/endpoints/:name', scope: 'endpoint:write', ok: 200, body: () => ({ description: 'patched' }) },
  { method: 'PUT', pattern: '/api/projects/:projectId/endpoints/:name', scope: 'endpoint:write', ok: 200, body: () => ({ description: 'put' }) },
  { method: 'DELETE', pattern: '/api/projects/:projectId/endpoints/:name', scope: 'endpoint:write', ok: 204, fresh: 'endpoint' },
  { method: 'GET', pattern: '/api/projects/:projectId/endpoints/:name/versions', scope: 'endpoint:read', ok: 200 },
  { method: 'GET', pattern: '/api/projects/:projectId/endpoints/:name/openapi.json', scope: 'endpoint:read', ok: 200 },
  { method: 'GET', pattern: '/api/projects/:projectId/endpoints/:name/run', scope: 'endpoint:read', ok: 200, secretAllowed: true },
  { method: 'POST', pattern: '/api/projects/:projectId/endpoints/:name/run', scope: 'endpoint:read', ok: 200, secretAllowed: true, body: () => ({}) },
  // backups: the whole data dir, so only an instance administrator (a personal key with * and no project restriction)
  { method: 'POST', pattern: '/api/backups', scope: '*', ok: 201 },
];

/** Every (method, pattern) the table covers, both prefixes. */
function expandRow(r: Row): { key: string; row: Row; prefix: 'projects' | 'environments' }[] {
  const out: { key: string; row: Row; prefix: 'projects' | 'environments' }[] = [{ key: `${r.method} ${r.pattern}`, row: r, prefix: 'projects' }];
  if (nested(r)) out.push({ key: `${r.method} ${r.pattern.replace('/api/projects/', '/api/environments/')}`, row: r, prefix: 'environments' });
  return out;
}
const EXPANDED = TABLE.flatMap(expandRow);

/** The concrete path of a row for a target. */
function pathOf(r: Row, prefix: 'projects' | 'environments', t: Target): string {
  const values: Record<string, string> = {
    projectId: String(t.project),
    keyId: r.pattern.includes('project_secret_api_keys') ? t.secretKeyId : t.personalKeyId,
    queryId: t.queryId,
    personId: t.personId,
    insightId: String(t.insightId),
    name: t.endpointName,
  };
  let p = r.pattern.replace(/:(\w+)/g, (_m, k: string) => {
    if (!(k in values)) throw new Error(`no fixture for :${k} in ${r.pattern}`);
    return encodeURIComponent(values[k]);
  });
  if (prefix === 'environments') p = p.replace('/api/projects/', '/api/environments/');
  return p + '/';
}

// ---------------------------------------------------------------------------------------------------------------
// Credentials and the expected outcome of each cell

const CREDS = [
  'none',
  'bad',
  'revoked',
  'captureToken',
  'exactScope',
  'otherObjectScope',
  'writeForRead',
  'restrictedOwn',
  'restrictedOther',
  'secretOwn',
  'secretOther',
] as const;
type Cred = (typeof CREDS)[number];

/** A scope on a different object than the row's (write, so "write implies read" cannot leak across objects). */
const otherObjectScope = (scope: string) => (scope.startsWith('project:') ? 'query:write' : 'project:write');
const writeOf = (scope: string) => scope.replace(/:read$/, ':write');

async function authorization(cred: Cred, row: Row, t: Target): Promise<string | null> {
  switch (cred) {
    case 'none':
      return null;
    case 'bad':
      return `Bearer ${BAD_KEY_VALUE}`;
    case 'revoked':
      return `Bearer ${revokedKey}`;
    case 'captureToken':
      return `Bearer ${t.captureToken}`;
    case 'exactScope':
      return `Bearer ${await personalKey([row.scope])}`;
    case 'otherObjectScope':
      return `Bearer ${await personalKey([otherObjectScope(row.scope)])}`;
    case 'writeForRead':
      return `Bearer ${await personalKey([writeOf(row.scope)])}`;
    case 'restrictedOwn':
      return `Bearer ${t.restrictedKey}`;
    case 'restrictedOther':
      return `Bearer ${await personalKey(['*'], [otherProject])}`;
    case 'secretOwn':
      return `Bearer ${t.secretKey}`;
    case 'secretOther':
      return `Bearer ${otherSecretKey}`;
  }
}

interface Outcome {
  status: number;
  code?: string;
  detail?: string;
}
const OK = 'ok' as const;
const NOT_AUTHENTICATED: Outcome = { status: 401, code: 'not_authenticated', detail: 'Authentication credentials were not provided.' };
const BAD_KEY: Outcome = { status: 401, code: 'authentication_failed', detail: 'Personal API key found in request Authorization header is invalid.' };
const PROJECT_NOT_FOUND: Outcome = { status: 404, code: 'not_found', detail: 'Project not found.' };
const RESTRICTED_OFF_PROJECT: Outcome = { status: 403, code: 'permission_denied', detail: 'API keys with scoped projects are only supported on project-based endpoints.' };
const SECRET_REFUSED: Outcome = { status: 403, code: 'permission_denied', detail: 'This action does not support project secret API key access.' };
const missing = (scope: string): Outcome => ({ status: 403, code: 'permission_denied', detail: `API key missing required scope '${scope}'` });

/** The rules of src/auth/access.ts, per cell. `ok` = authorized (the row's success status). */
function expected(row: Row, cred: Cred): Outcome | typeof OK | null {
  const isNested = nested(row);
  switch (cred) {
    case 'none':
      return NOT_AUTHENTICATED;
    case 'bad':
    case 'revoked':
    case 'captureToken': // phc_ is not an API key: looked up as a personal key, not found
      return BAD_KEY;
    case 'exactScope':
      return OK;
    case 'otherObjectScope':
      return missing(row.scope);
    case 'writeForRead':
      return row.scope.endsWith(':read') ? OK : null; // only meaningful for read routes
    case 'restrictedOwn':
      return isNested || row.restrictedAllowed ? OK : RESTRICTED_OFF_PROJECT;
    case 'restrictedOther':
      if (isNested) return PROJECT_NOT_FOUND;
      return row.restrictedAllowed ? OK : RESTRICTED_OFF_PROJECT;
    case 'secretOwn':
      return row.secretAllowed ? OK : SECRET_REFUSED;
    case 'secretOther':
      return row.secretAllowed ? PROJECT_NOT_FOUND : SECRET_REFUSED;
  }
}

type Cell = [name: string, row: Row, prefix: 'projects' | 'environments', cred: Cred, want: Outcome | typeof OK];
const CELLS: Cell[] = EXPANDED.flatMap(({ key, row, prefix }) =>
  CREDS.flatMap((cred): Cell[] => {
    // bug rows assert the rule (what the route should answer once fixed), so they fail until it is
    const want = expected(row, cred);
    if (want === null) return [];
    const wantText = want === OK ? `${row.ok}` : `${want.status} ${want.code}`;
    // A bug row: cells where the current (wrong) answer differs from the rule are named `regression:`.
    const buggy = row.regression !== undefined && want !== OK && want.status !== 401;
    return [[`${buggy ? 'regression: ' : ''}${key} with ${cred} → ${wantText}`, row, prefix, cred, want]];
  }),
);

// ---------------------------------------------------------------------------------------------------------------
// Routes as the server registered them

interface Registered {
  method: string;
  url: string;
}

/** Flattens fastify's printRoutes tree ("├── /seg (GET, HEAD)", children indented by 4) into method + full url. */
function parseRouteTree(tree: string): Registered[] {
  const out: Registered[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│├└─\s]*)(\S.*?)(?:\s+\(([^)]*)\))?\s*$/.exec(line);
    if (!m || !m[2]) continue;
    const depth = Math.max(0, Math.floor(m[1].length / 4) - 1); // top-level nodes carry one "├── " already
    stack.length = depth;
    const url = (depth > 0 ? stack[depth - 1] : '') + m[2];
    stack[depth] = url;
    for (const method of (m[3] ?? '').split(',').map((s) => s.trim()).filter(Boolean)) out.push({ method, url });
  }
  return out;
}

function registeredRoutes(): Registered[] {
  return parseRouteTree(srv.server.app.printRoutes({ commonPrefix: false }));
}

/** Routes outside /api/ that take no API key. /graphql is covered by auth-matrix.test.ts. */
const NON_API = new Set([
  '/healthz',
  '/metrics',
  '/graphiql/:file',
  '/graphql',
  '/batch',
  '/capture',
  '/e',
  '/engage',
  '/i/v0/e',
  '/track',
]);
const CAPTURE_PATHS = ['/batch', '/capture', '/e', '/engage', '/i/v0/e', '/track'];

// ---------------------------------------------------------------------------------------------------------------

beforeAll(async () => {
  srv = await startServer();
  otherProject = (await ok(srv.api('POST', '/api/projects/', { name: 'other' }), 201, 'other project')).id;
  otherSecretKey = (await ok(srv.api('POST', `/api/projects/${otherProject}/project_secret_api_keys/`, { scopes: ['endpoint:read'] }), 201, 'other secret')).value;
  const revoked = await ok(srv.api('POST', '/api/personal_api_keys/', { label: 'revoked', scopes: ['*'] }), 201, 'revoked key');
  revokedKey = revoked.value;
  await ok(srv.api('DELETE', `/api/personal_api_keys/${revoked.id}/`), 204, 'revoke');
  const p = await newProject();
  shared = {
    ...p,
    insightId: await newInsight(p.project),
    endpointName: await newEndpoint(p.project),
    personId: await newPerson(p.project),
    queryId: await newQuery(p.project),
    personalKeyId: await newPersonalKeyId(),
  };
}, 60_000);

afterAll(async () => {
  await srv?.close();
});

describe('auth matrix over every REST route', () => {
  it('every registered /api/ route has a row (and every row is a registered route)', () => {
    const routes = registeredRoutes();
    const api = routes.filter((r) => r.url.startsWith('/api/') && r.method !== 'HEAD');
    expect(api.length).toBeGreaterThan(60); // the parser found the tree
    for (const r of routes) expect([r.method, r.url, srv.server.app.hasRoute({ method: r.method as 'GET', url: r.url })]).toEqual([r.method, r.url, true]);
    const covered = new Set(EXPANDED.map((e) => e.key));
    const missingRows = api.map((r) => `${r.method} ${r.url}`).filter((k) => !covered.has(k));
    expect({ routesWithoutRow: missingRows }).toEqual({ routesWithoutRow: [] });
    const registered = new Set(api.map((r) => `${r.method} ${r.url}`));
    expect({ rowsWithoutRoute: [...covered].filter((k) => !registered.has(k)) }).toEqual({ rowsWithoutRoute: [] });
    // a route outside /api/ takes no API key: a new one must be looked at (and added here or to the table)
    expect([...new Set(routes.filter((r) => !r.url.startsWith('/api/')).map((r) => r.url))].filter((u) => !NON_API.has(u))).toEqual([]);
  });

  it('nested rows expand to both prefixes; every route gets the credential set', () => {
    expect(EXPANDED.length).toBe(2 * TABLE.filter(nested).length + TABLE.filter((r) => !nested(r)).length);
    expect(CELLS.length).toBeGreaterThan(EXPANDED.length * 9);
  });

  it.each(CELLS)('%s', async (_name, row, prefix, cred, want) => {
    const t = await freshTarget(row.fresh);
    const auth = await authorization(cred, row, t);
    const headers: Record<string, string> = auth ? { authorization: auth } : {};
    const res = await srv.api(row.method, pathOf(row, prefix, t), row.body?.(t), null, headers);
    if (want === OK) {
      const alsoOk = row.okAlso?.some((o) => o.status === res.status && res.body?.detail === o.detail) ?? false;
      expect([res.status, alsoOk ? 'ok-also' : res.body?.detail]).toEqual(alsoOk ? [res.status, 'ok-also'] : [row.ok, res.body?.detail]);
      expect([401, 403]).not.toContain(res.status);
      expect(res.body?.detail).not.toBe('Project not found.');
      return;
    }
    expect({ status: res.status, code: res.body?.code, detail: res.body?.detail }).toEqual(want);
    expect(res.body).toEqual({ type: want.status === 404 ? 'invalid_request' : 'authentication_error', code: want.code, detail: want.detail, attr: null });
  });
});

describe('capture routes: only the public token, never an API key', () => {
  const send = (p: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${srv.url}${p}/`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });
  const event = { event: 'matrix-capture', distinct_id: 'cap' };

  it.each(CAPTURE_PATHS)('%s accepts the capture token', async (p) => {
    const r = await send(p, p === '/batch' ? { api_key: shared.captureToken, batch: [event] } : { api_key: shared.captureToken, ...event });
    expect(r.status).toBe(200);
  });

  const REFUSALS = ['personal key as token', 'secret key as token', 'bearer personal key and no token'] as const;
  it.each(CAPTURE_PATHS.flatMap((p) => REFUSALS.map((what) => [p, what] as const)))('%s refuses a %s', async (p, what) => {
    const token = what === 'personal key as token' ? srv.key : what === 'secret key as token' ? otherSecretKey : undefined;
    const tok = token === undefined ? {} : { api_key: token };
    const headers: Record<string, string> = token === undefined ? { authorization: `Bearer ${srv.key}` } : {};
    const r = await send(p, p === '/batch' ? { ...tok, batch: [event] } : { ...tok, ...event }, headers);
    expect(r.status).toBe(401);
  });
});
