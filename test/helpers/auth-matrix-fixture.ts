/**
 * What the authorization matrices (auth-matrix-all: every REST route; auth-matrix-graphql: every GraphQL operation)
 * share: the objects a cell acts on, fresh copies for destructive cells, the credential kinds and the header each
 * one sends, and the error bodies of src/auth/access.ts. Each matrix keeps its own table and its own rule of which
 * credential gets which outcome.
 */
import type { ApiResponse, TestServer } from './server';

/** What a request acts on. Most cells share one; destructive cells get a fresh copy of the object they destroy. */
export interface Target {
  project: number;
  /** `*` restricted to `project`. */
  restrictedKey: string;
  /** `phs_…` of `project` with endpoint:read. */
  secretKey: string;
  /** `phc_…` of `project`. */
  captureToken: string;
  insightId: number;
  cohortId: number;
  actionId: number;
  /** A saved variable (insight_variables) of `project`. */
  variableId: string;
  endpointName: string;
  personId: string;
  queryId: string;
  personalKeyId: string;
  secretKeyId: string;
}

export type Fresh = 'project' | 'insight' | 'insightVariable' | 'endpoint' | 'person' | 'query' | 'personalKey' | 'secretKey';

export const CREDS = [
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
export type Cred = (typeof CREDS)[number];

export interface Outcome {
  status: number;
  code: string;
  detail: string;
}
export const OK = 'ok' as const;
export const NOT_AUTHENTICATED: Outcome = { status: 401, code: 'not_authenticated', detail: 'Authentication credentials were not provided.' };
export const BAD_KEY: Outcome = { status: 401, code: 'authentication_failed', detail: 'Personal API key found in request Authorization header is invalid.' };
export const PROJECT_NOT_FOUND: Outcome = { status: 404, code: 'not_found', detail: 'Project not found.' };
/** A project outside the key's projects (PostHog's 403, posthog-api.md §3.2/§3.3); the same whether it exists or not. */
export const PROJECT_OUT_OF_SCOPE: Outcome = {
  status: 403,
  code: 'permission_denied',
  detail: expect.stringMatching(/^API key does not have access to the requested project: ID \d+\.$/),
};
export const RESTRICTED_OFF_PROJECT: Outcome = {
  status: 403,
  code: 'permission_denied',
  detail: 'API keys with scoped projects are only supported on project-based endpoints.',
};
export const SECRET_REFUSED: Outcome = { status: 403, code: 'permission_denied', detail: 'This action does not support project secret API key access' };
/** A project secret key on a route not nested under a project (posthog-api.md §3.3). */
export const SECRET_NOT_PROJECT: Outcome = { status: 403, code: 'permission_denied', detail: 'Project secret API keys are only supported on project-based endpoints.' };
export const missingScope = (scope: string): Outcome => ({ status: 403, code: 'permission_denied', detail: `API key missing required scope '${scope}'` });

/** A scope of another object than the one the route needs. */
const otherObjectScope = (scope: string) => (scope.startsWith('project:') ? 'query:write' : 'project:write');
const writeOf = (scope: string) => scope.replace(/:read$/, ':write');

export const SQL = { kind: 'ProductQLQuery', query: 'SELECT count() FROM events' };
const BAD_KEY_VALUE = 'phx_' + 'Z'.repeat(43);

export class MatrixFixture {
  /** The objects every non-destructive cell acts on (set by `setUp`). */
  shared!: Target;
  otherProject!: number;
  otherSecretKey!: string;
  private revokedKey!: string;
  private readonly keys = new Map<string, string>();
  private seq = 0;

  constructor(
    private readonly srv: TestServer,
    private readonly label: string,
  ) {}

  uniq(prefix: string): string {
    return `${prefix}_${++this.seq}_${Math.random().toString(36).slice(2, 8)}`;
  }

  async setUp(): Promise<void> {
    this.otherProject = (await this.ok(this.srv.api('POST', '/api/projects/', { name: 'other' }), 201, 'other project')).id;
    this.otherSecretKey = (
      await this.ok(this.srv.api('POST', `/api/projects/${this.otherProject}/project_secret_api_keys/`, { scopes: ['endpoint:read'] }), 201, 'other secret')
    ).value;
    const revoked = await this.ok(this.srv.api('POST', '/api/personal_api_keys/', { label: 'revoked', scopes: ['*'] }), 201, 'revoked key');
    this.revokedKey = revoked.value;
    await this.ok(this.srv.api('DELETE', `/api/personal_api_keys/${revoked.id}/`), 204, 'revoke');
    const p = await this.newProject();
    this.shared = {
      ...p,
      insightId: await this.newInsight(p.project),
      cohortId: await this.newCohort(p.project),
      actionId: await this.newAction(p.project),
      variableId: await this.newVariable(p.project),
      endpointName: await this.newEndpoint(p.project),
      personId: await this.newPerson(p.project),
      queryId: await this.newQuery(p.project),
      personalKeyId: await this.newPersonalKeyId(),
    };
  }

  /** The shared target, or a copy with a fresh object of the kind a destructive cell destroys. */
  async target(kind: Fresh | undefined): Promise<Target> {
    const t = { ...this.shared };
    switch (kind) {
      case undefined:
        return this.shared;
      case 'project':
        return { ...t, ...(await this.newProject()) };
      case 'insight':
        return { ...t, insightId: await this.newInsight(t.project) };
      case 'insightVariable':
        return { ...t, variableId: await this.newVariable(t.project) };
      case 'endpoint':
        return { ...t, endpointName: await this.newEndpoint(t.project) };
      case 'person':
        return { ...t, personId: await this.newPerson(t.project) };
      case 'query':
        return { ...t, queryId: await this.newQuery(t.project) };
      case 'personalKey':
        return { ...t, personalKeyId: await this.newPersonalKeyId() };
      case 'secretKey':
        return { ...t, secretKeyId: await this.newSecretKeyId(t.project) };
    }
  }

  /**
   * The Authorization header a credential kind sends for an operation needing `scope` (null: no header). `alsoScopes`:
   * scopes the operation needs besides `scope` (checked after it), given to the scoped keys.
   */
  async authorization(cred: Cred, scope: string, t: Target, alsoScopes: string[] = []): Promise<string | null> {
    switch (cred) {
      case 'none':
        return null;
      case 'bad':
        return `Bearer ${BAD_KEY_VALUE}`;
      case 'revoked':
        return `Bearer ${this.revokedKey}`;
      case 'captureToken':
        return `Bearer ${t.captureToken}`;
      case 'exactScope':
        return `Bearer ${await this.personalKey([scope, ...alsoScopes])}`;
      case 'otherObjectScope':
        return `Bearer ${await this.personalKey([otherObjectScope(scope), ...alsoScopes])}`;
      case 'writeForRead':
        return `Bearer ${await this.personalKey([writeOf(scope), ...alsoScopes])}`;
      case 'restrictedOwn':
        return `Bearer ${t.restrictedKey}`;
      case 'restrictedOther':
        return `Bearer ${await this.personalKey(['*'], [this.otherProject])}`;
      case 'secretOwn':
        return `Bearer ${t.secretKey}`;
      case 'secretOther':
        return `Bearer ${this.otherSecretKey}`;
    }
  }

  /** Personal keys by scopes (+ restriction), minted on first use with the bootstrap key. */
  private async personalKey(scopes: string[], scopedTeams: number[] | null = null): Promise<string> {
    const id = JSON.stringify([scopes, scopedTeams]);
    let v = this.keys.get(id);
    if (!v) {
      v = (await this.ok(this.srv.api('POST', '/api/personal_api_keys/', { label: this.label, scopes, scoped_teams: scopedTeams }), 201, `key ${id}`)).value as string;
      this.keys.set(id, v);
    }
    return v;
  }

  private async ok<T = any>(p: Promise<ApiResponse>, status: number, what: string): Promise<T> {
    const r = await p;
    if (r.status !== status) throw new Error(`fixture ${what}: ${r.status} ${r.text}`);
    return r.body as T;
  }

  private async newProject(): Promise<Pick<Target, 'project' | 'restrictedKey' | 'secretKey' | 'captureToken' | 'secretKeyId'>> {
    const p = await this.ok(this.srv.api('POST', '/api/projects/', { name: this.uniq(this.label) }), 201, 'project');
    const restrictedKey = (await this.ok(this.srv.api('POST', '/api/personal_api_keys/', { label: 'r', scopes: ['*'], scoped_teams: [p.id] }), 201, 'restricted key')).value;
    const secret = await this.ok(this.srv.api('POST', `/api/projects/${p.id}/project_secret_api_keys/`, { label: 's', scopes: ['endpoint:read'] }), 201, 'secret key');
    const captureToken = (await this.srv.server.services.projects.find(p.id)).api_token;
    return { project: p.id, restrictedKey, secretKey: secret.value, captureToken, secretKeyId: secret.id };
  }

  private async newAction(project: number): Promise<number> {
    return (await this.ok(this.srv.api('POST', `/api/projects/${project}/actions/`, { name: this.uniq('a'), steps: [{ event: 'x' }] }), 201, 'action')).id;
  }

  private async newVariable(project: number): Promise<string> {
    return (await this.ok(this.srv.api('POST', `/api/projects/${project}/insight_variables/`, { name: this.uniq('v'), type: 'String' }), 201, 'variable')).id;
  }

  private async newInsight(project: number): Promise<number> {
    return (await this.ok(this.srv.api('POST', `/api/projects/${project}/insights/`, { name: this.uniq('i'), query: SQL }), 201, 'insight')).id;
  }

  private async newCohort(project: number): Promise<number> {
    return (await this.ok(this.srv.api('POST', `/api/projects/${project}/cohorts/`, { name: this.uniq('c'), groups: [] }), 201, 'cohort')).id;
  }

  private async newEndpoint(project: number): Promise<string> {
    const name = this.uniq('ep');
    await this.ok(this.srv.api('POST', `/api/projects/${project}/endpoints/`, { name, query: SQL }), 201, 'endpoint');
    return name;
  }

  private async newPerson(project: number): Promise<string> {
    const distinct = this.uniq('d');
    await this.srv.server.services.ingestor.import(project, { events: [{ event: 'e', distinct_id: distinct, timestamp: '2024-01-01T00:00:00Z' }] });
    const r = await this.ok(
      this.srv.api('POST', `/api/projects/${project}/query/`, {
        query: { kind: 'ProductQLQuery', query: `SELECT person_id FROM events WHERE distinct_id = '${distinct}' LIMIT 1` },
        refresh: 'force_blocking',
      }),
      200,
      'person',
    );
    return String(r.results[0][0]);
  }

  /** An async query that has finished (its status and results are kept). */
  private async newQuery(project: number): Promise<string> {
    const r = await this.srv.api('POST', `/api/projects/${project}/query/`, {
      query: { kind: 'ProductQLQuery', query: `SELECT count() FROM events WHERE event = '${this.uniq('q')}'` },
      refresh: 'force_async',
      client_query_id: this.uniq('qid'),
    });
    if (r.status !== 202 && r.status !== 200) throw new Error(`fixture query: ${r.status} ${r.text}`);
    const id = r.body.query_status.id as string;
    await this.srv.server.services.queries.async.wait(id);
    return id;
  }

  private async newPersonalKeyId(): Promise<string> {
    return (await this.ok(this.srv.api('POST', '/api/personal_api_keys/', { label: 'victim', scopes: ['query:read'] }), 201, 'victim key')).id;
  }

  private async newSecretKeyId(project: number): Promise<string> {
    return (await this.ok(this.srv.api('POST', `/api/projects/${project}/project_secret_api_keys/`, { label: 'victim', scopes: ['endpoint:read'] }), 201, 'victim secret')).id;
  }
}
