/**
 * Authorization matrix over EVERY REST route the server registers (both the /projects and /environments prefixes),
 * plus the capture routes. The route list is read from the running app (fastify's printRoutes tree), so a new
 * route without a row in TABLE fails the completeness test by name.
 *
 * Each row gives the scope the route requires, whether project secret keys may call it, and a concrete request
 * against fixtures made in beforeAll. Destructive rows (DELETE) get a fresh object per cell, so cells are
 * independent. auth-matrix.test.ts covers the foundation routes with more credential shapes and GraphQL.
 */
import type { TestServer } from '../helpers/server';
import { startServer } from '../helpers/server';
import {
  BAD_KEY,
  CREDS,
  type Cred,
  type Fresh,
  MatrixFixture,
  missingScope,
  NOT_AUTHENTICATED,
  OK,
  type Outcome,
  PROJECT_OUT_OF_SCOPE,
  RESTRICTED_OFF_PROJECT,
  SECRET_NOT_PROJECT,
  SECRET_REFUSED,
  SQL,
  type Target,
} from '../helpers/auth-matrix-fixture';

let srv: TestServer;
let fx: MatrixFixture;
const uniq = (p: string) => fx.uniq(p);

// ---------------------------------------------------------------------------------------------------------------
// The table

interface Row {
  method: string;
  /** The fastify pattern, with the /api/projects/ prefix (nested rows are expanded to /api/environments/ too). */
  pattern: string;
  /** Scope the route requires. */
  scope: string;
  /** Scopes it requires besides `scope`, checked after it (the scoped keys of the cells carry them). */
  alsoScopes?: string[];
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

const GROUP_TYPE_INDEX_MISSING = 'You must pass ?group_type_index= in this URL. To get a list of valid group types, call /api/:project_id/groups_types/.';

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
  { method: 'GET', pattern: '/api/personal_api_keys/:keyId', scope: 'personal_api_key:read', ok: 200 },
  { method: 'PATCH', pattern: '/api/personal_api_keys/:keyId', scope: 'personal_api_key:write', ok: 200, body: () => ({ label: 'patched' }) },
  { method: 'PUT', pattern: '/api/personal_api_keys/:keyId', scope: 'personal_api_key:write', ok: 200, body: () => ({ label: 'put' }) },
  { method: 'DELETE', pattern: '/api/personal_api_keys/:keyId', scope: 'personal_api_key:write', ok: 204, fresh: 'personalKey' },
  { method: 'POST', pattern: '/api/personal_api_keys/:keyId/roll', scope: 'personal_api_key:write', ok: 200, fresh: 'personalKey' },
  { method: 'GET', pattern: '/api/projects/:projectId/project_secret_api_keys', scope: 'project:read', ok: 200 },
  {
    method: 'POST',
    pattern: '/api/projects/:projectId/project_secret_api_keys',
    scope: 'project:write',
    ok: 201,
    body: () => ({ label: 's', scopes: ['endpoint:read'] }),
  },
  { method: 'GET', pattern: '/api/projects/:projectId/project_secret_api_keys/:keyId', scope: 'project:read', ok: 200 },
  { method: 'PATCH', pattern: '/api/projects/:projectId/project_secret_api_keys/:keyId', scope: 'project:write', ok: 200, body: () => ({ label: 'patched' }) },
  { method: 'PUT', pattern: '/api/projects/:projectId/project_secret_api_keys/:keyId', scope: 'project:write', ok: 200, body: () => ({ label: 'put' }) },
  { method: 'POST', pattern: '/api/projects/:projectId/project_secret_api_keys/:keyId/roll', scope: 'project:write', ok: 200, fresh: 'secretKey' },
  { method: 'DELETE', pattern: '/api/projects/:projectId/project_secret_api_keys/:keyId', scope: 'project:write', ok: 204, fresh: 'secretKey' },
  // query
  { method: 'POST', pattern: '/api/projects/:projectId/query', scope: 'query:read', ok: 200, body: () => ({ query: SQL }) },
  { method: 'POST', pattern: '/api/projects/:projectId/query/upgrade', scope: 'query:read', ok: 200, body: () => ({ query: SQL }) },
  { method: 'GET', pattern: '/api/projects/:projectId/query/:queryId', scope: 'query:read', ok: 200 },
  {
    method: 'DELETE',
    pattern: '/api/projects/:projectId/query/:queryId',
    scope: 'query:read',
    ok: 204,
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
  { method: 'GET', pattern: '/api/projects/:projectId/events', scope: 'query:read', ok: 200 },
  { method: 'GET', pattern: '/api/projects/:projectId/events.:format', scope: 'query:read', ok: 200 },
  {
    method: 'GET',
    pattern: '/api/projects/:projectId/events/:eventId',
    scope: 'query:read',
    ok: 200,
    okAlso: [{ status: 404, detail: 'No events exist for event UUID 00000000-0000-4000-8000-000000000000' }],
  },
  // values without ?key= are [] (PostHog's EventViewSet.values)
  { method: 'GET', pattern: '/api/projects/:projectId/events/values', scope: 'query:read', ok: 200 },
  { method: 'GET', pattern: '/api/projects/:projectId/persons', scope: 'person:read', ok: 200 },
  { method: 'GET', pattern: '/api/projects/:projectId/persons/values', scope: 'person:read', ok: 200 },
  { method: 'GET', pattern: '/api/projects/:projectId/persons/properties', scope: 'person:read', ok: 200 },
  // PostHog's cohorts action needs cohort:read (checked first) and person:read
  {
    method: 'GET',
    pattern: '/api/projects/:projectId/persons/cohorts',
    scope: 'cohort:read',
    alsoScopes: ['person:read'],
    ok: 200,
    okAlso: [{ status: 400, detail: 'This field is required.' }],
  },
  { method: 'GET', pattern: '/api/projects/:projectId/persons/:personId', scope: 'person:read', ok: 200 },
  { method: 'POST', pattern: '/api/projects/:projectId/persons/bulk_delete', scope: 'person:write', ok: 202, body: () => ({ distinct_ids: ['matrix-nobody'] }) },
  { method: 'DELETE', pattern: '/api/projects/:projectId/persons/:personId', scope: 'person:write', ok: 202, fresh: 'person' },
  { method: 'PATCH', pattern: '/api/projects/:projectId/persons/:personId', scope: 'person:write', ok: 202, body: () => ({ properties: { matrix: 1 } }) },
  { method: 'PUT', pattern: '/api/projects/:projectId/persons/:personId', scope: 'person:write', ok: 202, body: () => ({ properties: { matrix: 2 } }) },
  {
    method: 'POST',
    pattern: '/api/projects/:projectId/persons/:personId/delete_property',
    scope: 'person:write',
    ok: 201,
    body: () => ({ $unset: 'matrix_prop' }),
  },
  {
    method: 'POST',
    pattern: '/api/projects/:projectId/persons/:personId/update_property',
    scope: 'person:write',
    ok: 202,
    body: () => ({ key: 'matrix_prop', value: 'v' }),
  },
  { method: 'POST', pattern: '/api/projects/:projectId/persons/:personId/split', scope: 'person:write', ok: 201 },
  // DRF's format suffix on the list (test_person.py test_csv_export)
  { method: 'GET', pattern: '/api/projects/:projectId/persons.:format', scope: 'person:read', ok: 200 },
  { method: 'GET', pattern: '/api/projects/:projectId/persons/activity', scope: 'activity_log:read', ok: 200 },
  { method: 'GET', pattern: '/api/projects/:projectId/persons/:personId/activity', scope: 'activity_log:read', ok: 200 },
  // insights
  { method: 'GET', pattern: '/api/projects/:projectId/insights', scope: 'insight:read', ok: 200 },
  // DRF's format suffix on the list (insights-posthog-compat-3.test.ts)
  { method: 'GET', pattern: '/api/projects/:projectId/insights.:format', scope: 'insight:read', ok: 200 },
  { method: 'POST', pattern: '/api/projects/:projectId/insights', scope: 'insight:write', ok: 201, body: () => ({ name: uniq('i'), query: SQL }) },
  { method: 'GET', pattern: '/api/projects/:projectId/insights/activity', scope: 'activity_log:read', ok: 200 },
  { method: 'POST', pattern: '/api/projects/:projectId/insights/cancel', scope: 'insight:read', ok: 201, body: () => ({ client_query_id: 'matrix-nothing-running' }) },
  { method: 'GET', pattern: '/api/projects/:projectId/insights/:insightId', scope: 'insight:read', ok: 200 },
  { method: 'PATCH', pattern: '/api/projects/:projectId/insights/:insightId', scope: 'insight:write', ok: 200, body: () => ({ description: 'patched' }) },
  { method: 'PUT', pattern: '/api/projects/:projectId/insights/:insightId', scope: 'insight:write', ok: 200, body: () => ({ name: 'put', query: SQL }) },
  // PostHog forbids hard deletes of insights: 405, once authorized (soft delete is PATCH deleted:true)
  { method: 'DELETE', pattern: '/api/projects/:projectId/insights/:insightId', scope: 'insight:write', ok: 405, fresh: 'insight' },
  { method: 'GET', pattern: '/api/projects/:projectId/insights/:insightId/activity', scope: 'activity_log:read', ok: 200 },
  // PostHog's InsightViewed actions are read actions
  { method: 'POST', pattern: '/api/projects/:projectId/insights/viewed', scope: 'insight:read', ok: 201, body: () => ({ insight_ids: [1] }) },
  { method: 'POST', pattern: '/api/projects/:projectId/insights/:insightId/viewed', scope: 'insight:read', ok: 201 },
  { method: 'GET', pattern: '/api/projects/:projectId/insights/my_last_viewed', scope: 'insight:read', ok: 200 },
  { method: 'GET', pattern: '/api/projects/:projectId/insights/trending', scope: 'insight:read', ok: 200 },
  // PostHog's legacy filter routes (insight:read, also for POST)
  { method: 'GET', pattern: '/api/projects/:projectId/insights/trend', scope: 'insight:read', ok: 200 },
  { method: 'POST', pattern: '/api/projects/:projectId/insights/trend', scope: 'insight:read', ok: 200, body: () => ({ events: [{ id: '$pageview' }] }) },
  { method: 'GET', pattern: '/api/projects/:projectId/insights/funnel', scope: 'insight:read', ok: 200 },
  { method: 'POST', pattern: '/api/projects/:projectId/insights/funnel', scope: 'insight:read', ok: 200, body: () => ({ events: [{ id: '$pageview' }, { id: 'signup' }] }) },
  { method: 'GET', pattern: '/api/projects/:projectId/insights/path', scope: 'insight:read', ok: 200 },
  { method: 'POST', pattern: '/api/projects/:projectId/insights/path', scope: 'insight:read', ok: 200, body: () => ({}) },
  { method: 'GET', pattern: '/api/projects/:projectId/insights/retention', scope: 'insight:read', ok: 200 },
  // saved variables (PostHog's InsightVariableViewSet): DELETE destroys, so each cell gets a fresh one
  { method: 'GET', pattern: '/api/projects/:projectId/insight_variables', scope: 'insight_variable:read', ok: 200 },
  { method: 'POST', pattern: '/api/projects/:projectId/insight_variables', scope: 'insight_variable:write', ok: 201, body: () => ({ name: uniq('v'), type: 'Number' }) },
  { method: 'GET', pattern: '/api/projects/:projectId/insight_variables/:variableId', scope: 'insight_variable:read', ok: 200 },
  { method: 'PATCH', pattern: '/api/projects/:projectId/insight_variables/:variableId', scope: 'insight_variable:write', ok: 200, body: () => ({ default_value: 'x' }) },
  { method: 'PUT', pattern: '/api/projects/:projectId/insight_variables/:variableId', scope: 'insight_variable:write', ok: 200, body: () => ({ name: uniq('v'), type: 'String' }) },
  { method: 'DELETE', pattern: '/api/projects/:projectId/insight_variables/:variableId', scope: 'insight_variable:write', ok: 204, fresh: 'insightVariable' },
  // cohorts
  { method: 'GET', pattern: '/api/projects/:projectId/cohorts', scope: 'cohort:read', ok: 200 },
  { method: 'POST', pattern: '/api/projects/:projectId/cohorts', scope: 'cohort:write', ok: 201, body: () => ({ name: uniq('c'), groups: [] }) },
  { method: 'GET', pattern: '/api/projects/:projectId/cohorts/:cohortId', scope: 'cohort:read', ok: 200 },
  { method: 'PATCH', pattern: '/api/projects/:projectId/cohorts/:cohortId', scope: 'cohort:write', ok: 200, body: () => ({ description: 'patched' }) },
  { method: 'PUT', pattern: '/api/projects/:projectId/cohorts/:cohortId', scope: 'cohort:write', ok: 200, body: () => ({ name: 'put' }) },
  // PostHog forbids hard deletes of cohorts: 405, once authorized (soft delete is PATCH deleted:true)
  { method: 'DELETE', pattern: '/api/projects/:projectId/cohorts/:cohortId', scope: 'cohort:write', ok: 405 },
  { method: 'GET', pattern: '/api/projects/:projectId/cohorts/:cohortId/persons', scope: 'cohort:read', alsoScopes: ['person:read'], ok: 200 },
  // CohortViewSet all_activity / activity (test_cohort.py test_cohort_activity_log)
  { method: 'GET', pattern: '/api/projects/:projectId/cohorts/activity', scope: 'activity_log:read', ok: 200 },
  { method: 'GET', pattern: '/api/projects/:projectId/cohorts/:cohortId/activity', scope: 'activity_log:read', ok: 200 },
  // DRF's format suffix on the cohort's persons (test_cohort.py test_csv_export_new)
  { method: 'GET', pattern: '/api/projects/:projectId/cohorts/:cohortId/persons.:format', scope: 'cohort:read', alsoScopes: ['person:read'], ok: 200 },
  // PostHog's CohortViewSet.duplicate_as_static_cohort: a GET that saves a new static cohort
  { method: 'GET', pattern: '/api/projects/:projectId/cohorts/:cohortId/duplicate_as_static_cohort', scope: 'cohort:write', ok: 200 },
  // the shared cohort is dynamic: a 400 past the authorization checks proves them (okAlso)
  {
    method: 'PATCH',
    pattern: '/api/projects/:projectId/cohorts/:cohortId/add_persons_to_static_cohort',
    scope: 'cohort:write',
    ok: 200,
    okAlso: [{ status: 400, detail: 'Can only add users to static cohorts' }],
    body: () => ({ person_ids: ['00000000-0000-4000-8000-000000000000'] }),
  },
  {
    method: 'PATCH',
    pattern: '/api/projects/:projectId/cohorts/:cohortId/remove_person_from_static_cohort',
    scope: 'cohort:write',
    ok: 200,
    okAlso: [{ status: 400, detail: 'Can only remove users from static cohorts' }],
    body: () => ({ person_id: '00000000-0000-4000-8000-000000000000' }),
  },
  // actions
  { method: 'GET', pattern: '/api/projects/:projectId/actions', scope: 'action:read', ok: 200 },
  { method: 'GET', pattern: '/api/projects/:projectId/actions.:format', scope: 'action:read', ok: 200 },
  { method: 'POST', pattern: '/api/projects/:projectId/actions', scope: 'action:write', ok: 201, body: () => ({ name: uniq('a') }) },
  { method: 'GET', pattern: '/api/projects/:projectId/actions/:actionId', scope: 'action:read', ok: 200 },
  { method: 'GET', pattern: '/api/projects/:projectId/actions/:actionId/count', scope: 'action:read', ok: 200 },
  { method: 'PATCH', pattern: '/api/projects/:projectId/actions/:actionId', scope: 'action:write', ok: 200, body: () => ({ description: 'patched' }) },
  { method: 'PUT', pattern: '/api/projects/:projectId/actions/:actionId', scope: 'action:write', ok: 200, body: () => ({ description: 'put' }) },
  // PostHog forbids hard deletes of actions: 405, once authorized (soft delete is PATCH deleted:true)
  { method: 'DELETE', pattern: '/api/projects/:projectId/actions/:actionId', scope: 'action:write', ok: 405 },
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
  { method: 'GET', pattern: '/api/projects/:projectId/endpoints/:name/versions/:version', scope: 'endpoint:read', ok: 200 },
  { method: 'GET', pattern: '/api/projects/:projectId/endpoints/:name/materialization_status', scope: 'endpoint:read', ok: 200 },
  { method: 'GET', pattern: '/api/projects/:projectId/endpoints/materialization_conditions', scope: 'endpoint:read', ok: 200 },
  { method: 'POST', pattern: '/api/projects/:projectId/endpoints/:name/materialization_preview', scope: 'endpoint:read', ok: 200, body: () => ({}) },
  // PostHog's AI suggestion with its feature off: 404 {"error"}, past the authorization checks
  { method: 'POST', pattern: '/api/projects/:projectId/endpoints/:name/materialization_suggestion', scope: 'endpoint:read', ok: 404, body: () => ({}) },
  { method: 'POST', pattern: '/api/projects/:projectId/endpoints/last_execution_times', scope: 'endpoint:read', ok: 200, body: () => ({ names: [] }) },
  { method: 'GET', pattern: '/api/projects/:projectId/endpoints/:name/logs', scope: 'endpoint:read', ok: 200 },
  { method: 'GET', pattern: '/api/projects/:projectId/endpoints/:name/openapi.json', scope: 'endpoint:read', ok: 200 },
  { method: 'GET', pattern: '/api/projects/:projectId/endpoints/:name/run', scope: 'endpoint:read', ok: 200, secretAllowed: true },
  { method: 'POST', pattern: '/api/projects/:projectId/endpoints/:name/run', scope: 'endpoint:read', ok: 200, secretAllowed: true, body: () => ({}) },
  // groups (PostHog's GroupsViewSet / GroupsTypesViewSet); the fixture project has no group types: a 400/404 past the
  // authorization checks proves them (okAlso)
  { method: 'GET', pattern: '/api/projects/:projectId/groups_types', scope: 'group:read', ok: 200 },
  {
    method: 'PATCH',
    pattern: '/api/projects/:projectId/groups_types/update_metadata',
    scope: 'group:write',
    ok: 200,
    okAlso: [{ status: 400, detail: 'Group type 0 does not exist.' }],
    body: () => [{ group_type_index: 0, name_singular: 'x' }],
  },
  { method: 'DELETE', pattern: '/api/projects/:projectId/groups_types/:groupTypeIndex', scope: 'group:write', ok: 204, okAlso: [{ status: 404, detail: 'Not found.' }] },
  { method: 'GET', pattern: '/api/projects/:projectId/groups', scope: 'group:read', ok: 200, okAlso: [{ status: 400, detail: GROUP_TYPE_INDEX_MISSING }] },
  { method: 'GET', pattern: '/api/projects/:projectId/groups/find', scope: 'group:read', ok: 200, okAlso: [{ status: 400, detail: GROUP_TYPE_INDEX_MISSING }] },
  { method: 'GET', pattern: '/api/projects/:projectId/groups/property_definitions', scope: 'group:read', ok: 200 },
  { method: 'GET', pattern: '/api/projects/:projectId/groups/property_values', scope: 'group:read', ok: 200, okAlso: [{ status: 400, detail: GROUP_TYPE_INDEX_MISSING }] },
  { method: 'POST', pattern: '/api/projects/:projectId/groups/update_property', scope: 'group:write', ok: 200, okAlso: [{ status: 400, detail: GROUP_TYPE_INDEX_MISSING }], body: () => ({ key: 'k', value: 'v' }) },
  { method: 'POST', pattern: '/api/projects/:projectId/groups/delete_property', scope: 'group:write', ok: 200, okAlso: [{ status: 400, detail: GROUP_TYPE_INDEX_MISSING }], body: () => ({ $unset: 'k' }) },
  { method: 'GET', pattern: '/api/projects/:projectId/groups/related', scope: 'group:read', ok: 200, okAlso: [{ status: 400, detail: 'You must pass ?id= in this URL.' }] },
  { method: 'GET', pattern: '/api/projects/:projectId/sessions/property_definitions', scope: 'query:read', ok: 200 },
  { method: 'GET', pattern: '/api/projects/:projectId/sessions/values', scope: 'query:read', ok: 200, okAlso: [{ status: 400, detail: 'Key not provided' }] },
  // elements (PostHog's ElementViewSet, scope_object "element")
  { method: 'GET', pattern: '/api/projects/:projectId/elements/stats', scope: 'element:read', ok: 200 },
  { method: 'GET', pattern: '/api/projects/:projectId/elements/values', scope: 'element:read', ok: 200 },
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
    cohortId: String(t.cohortId),
    actionId: String(t.actionId),
    variableId: t.variableId,
    name: t.endpointName,
    // no fixture event: a 404 past the authorization checks proves them (okAlso)
    eventId: '00000000-0000-4000-8000-000000000000',
    // no fixture group type: a 404 past the authorization checks proves them (okAlso)
    groupTypeIndex: '0',
    // every fixture endpoint has its version 1
    version: '1',
    format: 'json',
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
      return missingScope(row.scope);
    case 'writeForRead':
      return row.scope.endsWith(':read') ? OK : null; // only meaningful for read routes
    case 'restrictedOwn':
      return isNested || row.restrictedAllowed ? OK : RESTRICTED_OFF_PROJECT;
    case 'restrictedOther':
      if (isNested) return PROJECT_OUT_OF_SCOPE;
      return row.restrictedAllowed ? OK : RESTRICTED_OFF_PROJECT;
    case 'secretOwn':
      return row.secretAllowed ? OK : isNested ? SECRET_REFUSED : SECRET_NOT_PROJECT;
    case 'secretOther':
      return row.secretAllowed ? PROJECT_OUT_OF_SCOPE : isNested ? SECRET_REFUSED : SECRET_NOT_PROJECT;
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
  '/s',
]);
const CAPTURE_PATHS = ['/batch', '/capture', '/e', '/engage', '/i/v0/e', '/track'];

// ---------------------------------------------------------------------------------------------------------------

beforeAll(async () => {
  srv = await startServer();
  fx = new MatrixFixture(srv, 'matrix');
  await fx.setUp();
}, 60_000);

afterAll(async () => {
  await srv?.close();
});

describe('auth matrix over every REST route', () => {
  it('every registered /api/ route has a row (and every row is a registered route)', () => {
    const routes = registeredRoutes();
    // PostHog's legacy routes (`/api/person/…`, `/api/cohort/…`, `/api/element/…`, `/api/event/…`, `/api/insight/…`, `/api/action/…`) are the project routes of the caller's current project (`@current`), whose
    // rows cover them; persons-posthog-compat-2 and persons-cohorts-posthog-compat-3 check them with a project-restricted key
    const api = routes.filter((r) => r.url.startsWith('/api/') && r.method !== 'HEAD' && !/^\/api\/(person|cohort|element|event|insight|action)(\/|\.|$)/.test(r.url));
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
    const t = await fx.target(row.fresh);
    const auth = await fx.authorization(cred, row.scope, t, row.alsoScopes);
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
    const r = await send(p, p === '/batch' ? { api_key: fx.shared.captureToken, batch: [event] } : { api_key: fx.shared.captureToken, ...event });
    expect(r.status).toBe(200);
  });

  const REFUSALS = ['personal key as token', 'secret key as token', 'bearer personal key and no token'] as const;
  it.each(CAPTURE_PATHS.flatMap((p) => REFUSALS.map((what) => [p, what] as const)))('%s refuses a %s', async (p, what) => {
    const token = what === 'personal key as token' ? srv.key : what === 'secret key as token' ? fx.otherSecretKey : undefined;
    const tok = token === undefined ? {} : { api_key: token };
    const headers: Record<string, string> = token === undefined ? { authorization: `Bearer ${srv.key}` } : {};
    const r = await send(p, p === '/batch' ? { ...tok, batch: [event] } : { ...tok, ...event }, headers);
    expect(r.status).toBe(401);
  });
});
