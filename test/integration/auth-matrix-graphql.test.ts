/**
 * Authorization matrix over EVERY GraphQL query and mutation × the credentials of the REST matrix
 * (auth-matrix-all.test.ts) × own/other project. The operation list is read from the live schema (introspection of
 * the running server), so a new operation without a row fails the completeness test by name.
 *
 * Each row gives the scope the operation requires, whether project secret keys may call it, and its arguments
 * against fixtures made in beforeAll; the operation text (variables typed from the schema, `{ __typename }` as the
 * selection of object results) is generated. Destructive rows get a fresh object per cell.
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
// The table: one row per operation of the schema

interface Row {
  type: 'Query' | 'Mutation';
  field: string;
  /** Scope the operation requires; null = any valid credential (viewer). */
  scope: string | null;
  /** The project the operation acts on comes from its arguments (projectId, or id of a project operation). */
  projectArg?: boolean;
  /** Project secret keys may call it (on their own project). */
  secretAllowed?: boolean;
  /** Not about one project, but project-restricted keys may call it (listing projects). */
  restrictedAllowed?: boolean;
  args?: (t: Target) => Record<string, unknown>;
  fresh?: Fresh;
  /** Other answers that still prove authorization passed (cancel of an already finished query). */
  okAlso?: { code: string; detail: string }[];
}

const ev = { kind: 'EventsNode', event: '$pageview' };
const inProject = (extra: (t: Target) => Record<string, unknown> = () => ({})) => (t: Target) => ({ projectId: t.project, ...extra(t) });

const TABLE: Row[] = [
  // projects and keys
  { type: 'Query', field: 'projects', scope: 'project:read', restrictedAllowed: true },
  { type: 'Query', field: 'project', scope: 'project:read', projectArg: true, args: (t) => ({ id: t.project }) },
  { type: 'Mutation', field: 'createProject', scope: 'project:write', args: () => ({ input: { name: uniq('made') } }) },
  { type: 'Mutation', field: 'updateProject', scope: 'project:write', projectArg: true, args: (t) => ({ id: t.project, input: { name: 'renamed' } }) },
  { type: 'Mutation', field: 'deleteProject', scope: 'project:write', projectArg: true, fresh: 'project', args: (t) => ({ id: t.project }) },
  { type: 'Query', field: 'personalApiKeys', scope: 'personal_api_key:read' },
  { type: 'Mutation', field: 'createPersonalApiKey', scope: 'personal_api_key:write', args: () => ({ input: { scopes: ['personal_api_key:read'] } }) },
  { type: 'Mutation', field: 'revokePersonalApiKey', scope: 'personal_api_key:write', fresh: 'personalKey', args: (t) => ({ id: t.personalKeyId }) },
  { type: 'Query', field: 'projectSecretApiKeys', scope: 'project:read', projectArg: true, args: inProject() },
  { type: 'Mutation', field: 'createProjectSecretApiKey', scope: 'project:write', projectArg: true, args: inProject(() => ({ input: { scopes: ['endpoint:read'] } })) },
  { type: 'Mutation', field: 'revokeProjectSecretApiKey', scope: 'project:write', projectArg: true, fresh: 'secretKey', args: inProject((t) => ({ id: t.secretKeyId })) },
  { type: 'Query', field: 'viewer', scope: null },
  // queries
  { type: 'Query', field: 'query', scope: 'query:read', projectArg: true, args: inProject(() => ({ query: SQL })) },
  { type: 'Query', field: 'productql', scope: 'query:read', projectArg: true, args: inProject(() => ({ sql: 'SELECT 1' })) },
  { type: 'Query', field: 'trends', scope: 'query:read', projectArg: true, args: inProject(() => ({ query: { series: [ev] } })) },
  { type: 'Query', field: 'stickiness', scope: 'query:read', projectArg: true, args: inProject(() => ({ query: { series: [ev] } })) },
  { type: 'Query', field: 'lifecycle', scope: 'query:read', projectArg: true, args: inProject(() => ({ query: { series: [ev] } })) },
  { type: 'Query', field: 'funnels', scope: 'query:read', projectArg: true, args: inProject(() => ({ query: { series: [ev, ev] } })) },
  { type: 'Query', field: 'retention', scope: 'query:read', projectArg: true, args: inProject(() => ({ query: { retentionFilter: {} } })) },
  { type: 'Query', field: 'paths', scope: 'query:read', projectArg: true, args: inProject(() => ({ query: { pathsFilter: {} } })) },
  { type: 'Query', field: 'queryLog', scope: 'query:read', projectArg: true, args: inProject() },
  { type: 'Query', field: 'queryStatus', scope: 'query:read', projectArg: true, args: inProject((t) => ({ id: t.queryId })) },
  { type: 'Mutation', field: 'submitQuery', scope: 'query:read', projectArg: true, args: inProject(() => ({ query: SQL })) },
  {
    type: 'Mutation',
    field: 'cancelQuery',
    scope: 'query:read',
    projectArg: true,
    fresh: 'query',
    args: inProject((t) => ({ id: t.queryId })),
    // the fixture query has finished by the time the cell runs: "not found", past the auth check
    okAlso: [{ code: 'not_found', detail: 'Query not found.' }],
  },
  // insights
  { type: 'Query', field: 'insights', scope: 'insight:read', projectArg: true, args: inProject() },
  { type: 'Query', field: 'insight', scope: 'insight:read', projectArg: true, args: inProject((t) => ({ id: String(t.insightId) })) },
  { type: 'Query', field: 'insightActivity', scope: 'activity_log:read', projectArg: true, args: inProject((t) => ({ id: String(t.insightId) })) },
  { type: 'Mutation', field: 'createInsight', scope: 'insight:write', projectArg: true, args: inProject(() => ({ input: { name: uniq('i'), query: SQL } })) },
  { type: 'Mutation', field: 'updateInsight', scope: 'insight:write', projectArg: true, args: inProject((t) => ({ id: String(t.insightId), input: { description: 'patched' } })) },
  { type: 'Mutation', field: 'deleteInsight', scope: 'insight:write', projectArg: true, fresh: 'insight', args: inProject((t) => ({ id: String(t.insightId) })) },
  // actions and cohorts
  { type: 'Query', field: 'actions', scope: 'action:read', projectArg: true, args: inProject() },
  { type: 'Query', field: 'action', scope: 'action:read', projectArg: true, args: inProject((t) => ({ id: String(t.actionId) })) },
  { type: 'Mutation', field: 'createAction', scope: 'action:write', projectArg: true, args: inProject(() => ({ input: { name: uniq('a'), steps: [{ event: 'x' }] } })) },
  { type: 'Mutation', field: 'updateAction', scope: 'action:write', projectArg: true, args: inProject((t) => ({ id: String(t.actionId), input: { description: 'patched' } })) },
  { type: 'Query', field: 'cohorts', scope: 'cohort:read', projectArg: true, args: inProject() },
  { type: 'Query', field: 'cohort', scope: 'cohort:read', projectArg: true, args: inProject((t) => ({ id: String(t.cohortId) })) },
  { type: 'Mutation', field: 'createCohort', scope: 'cohort:write', projectArg: true, args: inProject(() => ({ input: { name: uniq('c'), groups: [] } })) },
  { type: 'Mutation', field: 'updateCohort', scope: 'cohort:write', projectArg: true, args: inProject((t) => ({ id: String(t.cohortId), input: { description: 'patched' } })) },
  // the fixture cohort is dynamic: refused past the auth check
  ...(['addPersonsToCohort', 'removePersonFromCohort'] as const).map(
    (field): Row => ({
      type: 'Mutation',
      field,
      scope: 'cohort:write',
      projectArg: true,
      args: inProject((t) =>
        field === 'addPersonsToCohort' ? { id: String(t.cohortId), personIds: [t.personId] } : { id: String(t.cohortId), personId: t.personId },
      ),
      okAlso: [{ code: 'invalid_input', detail: `Can only ${field === 'addPersonsToCohort' ? 'add users to' : 'remove users from'} static cohorts` }],
    }),
  ),
  // saved variables
  { type: 'Query', field: 'insightVariables', scope: 'insight_variable:read', projectArg: true, args: inProject() },
  { type: 'Query', field: 'insightVariable', scope: 'insight_variable:read', projectArg: true, args: inProject((t) => ({ id: t.variableId })) },
  { type: 'Mutation', field: 'createInsightVariable', scope: 'insight_variable:write', projectArg: true, args: inProject(() => ({ input: { name: uniq('v'), type: 'String' } })) },
  { type: 'Mutation', field: 'updateInsightVariable', scope: 'insight_variable:write', projectArg: true, args: inProject((t) => ({ id: t.variableId, input: { defaultValue: 'x' } })) },
  { type: 'Mutation', field: 'deleteInsightVariable', scope: 'insight_variable:write', projectArg: true, fresh: 'insightVariable', args: inProject((t) => ({ id: t.variableId })) },
  // groups: the fixture project has no group types or groups, so reads of one answer past the auth check
  { type: 'Query', field: 'groupTypes', scope: 'group:read', projectArg: true, args: inProject() },
  { type: 'Query', field: 'groups', scope: 'group:read', projectArg: true, args: inProject(() => ({ groupTypeIndex: 0 })) },
  {
    type: 'Query',
    field: 'group',
    scope: 'group:read',
    projectArg: true,
    args: inProject(() => ({ groupTypeIndex: 0, groupKey: 'acme' })),
    okAlso: [{ code: 'not_found', detail: 'Not found.' }],
  },
  {
    type: 'Mutation',
    field: 'updateGroupTypeMetadata',
    scope: 'group:write',
    projectArg: true,
    args: inProject(() => ({ input: [{ groupTypeIndex: 0, nameSingular: 'Org' }] })),
    okAlso: [{ code: 'invalid_input', detail: 'Group type 0 does not exist.' }],
  },
  // endpoints
  { type: 'Query', field: 'endpoints', scope: 'endpoint:read', projectArg: true, args: inProject() },
  { type: 'Query', field: 'endpoint', scope: 'endpoint:read', projectArg: true, args: inProject((t) => ({ name: t.endpointName })) },
  { type: 'Query', field: 'runEndpoint', scope: 'endpoint:read', projectArg: true, secretAllowed: true, args: inProject((t) => ({ name: t.endpointName })) },
  { type: 'Mutation', field: 'createEndpoint', scope: 'endpoint:write', projectArg: true, args: inProject(() => ({ input: { name: uniq('ep'), query: SQL } })) },
  { type: 'Mutation', field: 'updateEndpoint', scope: 'endpoint:write', projectArg: true, args: inProject((t) => ({ name: t.endpointName, input: { description: 'patched' } })) },
  { type: 'Mutation', field: 'deleteEndpoint', scope: 'endpoint:write', projectArg: true, fresh: 'endpoint', args: inProject((t) => ({ name: t.endpointName })) },
];

const rowKey = (r: { type: string; field: string }) => `${r.type}.${r.field}`;

// ---------------------------------------------------------------------------------------------------------------
// The live schema, and the operation text generated from it

interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}
interface SchemaField {
  name: string;
  args: { name: string; type: TypeRef }[];
  type: TypeRef;
}
let FIELDS: Map<string, SchemaField>;

const TYPE_REF = 'kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } }';
async function introspect(): Promise<Map<string, SchemaField>> {
  const fields = `fields { name args { name type { ${TYPE_REF} } } type { ${TYPE_REF} } }`;
  const r = await srv.api('POST', '/graphql', { query: `{ __schema { queryType { ${fields} } mutationType { ${fields} } } }` });
  if (r.status !== 200) throw new Error(`introspection: ${r.status} ${r.text}`);
  const out = new Map<string, SchemaField>();
  for (const f of r.body.data.__schema.queryType.fields as SchemaField[]) out.set(`Query.${f.name}`, f);
  for (const f of r.body.data.__schema.mutationType.fields as SchemaField[]) out.set(`Mutation.${f.name}`, f);
  return out;
}

const typeText = (t: TypeRef): string => (t.kind === 'NON_NULL' ? `${typeText(t.ofType!)}!` : t.kind === 'LIST' ? `[${typeText(t.ofType!)}]` : t.name!);
const namedKind = (t: TypeRef): string => (t.ofType ? namedKind(t.ofType) : t.kind);

/** `query Op($a: T!, …) { field(a: $a) { __typename } }` from the schema's argument and result types. */
function operationOf(row: Row, values: Record<string, unknown>): string {
  const f = FIELDS.get(rowKey(row));
  if (!f) throw new Error(`${rowKey(row)} is not in the schema`);
  const used = f.args.filter((a) => a.name in values);
  for (const a of f.args) if (a.type.kind === 'NON_NULL' && !(a.name in values)) throw new Error(`${rowKey(row)}: required argument ${a.name} has no value`);
  const vars = used.map((a) => `$${a.name}: ${typeText(a.type)}`).join(', ');
  const call = used.length ? `(${used.map((a) => `${a.name}: $${a.name}`).join(', ')})` : '';
  const selection = ['OBJECT', 'INTERFACE', 'UNION'].includes(namedKind(f.type)) ? ' { __typename }' : '';
  return `${row.type === 'Query' ? 'query' : 'mutation'} Matrix${vars ? `(${vars})` : ''} { ${f.name}${call}${selection} }`;
}

// ---------------------------------------------------------------------------------------------------------------
// Credentials and expected outcomes (the rules of src/auth/access.ts, as in the REST matrix)

function expected(row: Row, cred: Cred): Outcome | typeof OK | null {
  switch (cred) {
    case 'none':
      return NOT_AUTHENTICATED;
    case 'bad':
    case 'revoked':
    case 'captureToken':
      return BAD_KEY;
    case 'exactScope':
      return OK;
    case 'otherObjectScope':
      return row.scope === null ? OK : missingScope(row.scope);
    case 'writeForRead':
      return row.scope?.endsWith(':read') ? OK : null;
    case 'restrictedOwn':
      return row.scope === null || row.projectArg || row.restrictedAllowed ? OK : RESTRICTED_OFF_PROJECT;
    case 'restrictedOther':
      if (row.scope === null) return OK;
      if (row.projectArg) return PROJECT_OUT_OF_SCOPE;
      return row.restrictedAllowed ? OK : RESTRICTED_OFF_PROJECT;
    case 'secretOwn':
      return row.scope === null || row.secretAllowed ? OK : row.projectArg ? SECRET_REFUSED : SECRET_NOT_PROJECT;
    case 'secretOther':
      if (row.scope === null) return OK;
      return row.secretAllowed ? PROJECT_OUT_OF_SCOPE : row.projectArg ? SECRET_REFUSED : SECRET_NOT_PROJECT;
  }
}

type Cell = [name: string, row: Row, cred: Cred, want: Outcome | typeof OK];
const CELLS: Cell[] = TABLE.flatMap((row) =>
  CREDS.flatMap((cred): Cell[] => {
    const want = expected(row, cred);
    if (want === null) return [];
    return [[`${rowKey(row)} with ${cred} → ${want === OK ? 'ok' : `${want.status} ${want.code}`}`, row, cred, want]];
  }),
);

// ---------------------------------------------------------------------------------------------------------------

beforeAll(async () => {
  srv = await startServer();
  FIELDS = await introspect();
  fx = new MatrixFixture(srv, 'gmatrix');
  await fx.setUp();
}, 60_000);

afterAll(async () => {
  await srv?.close();
});

describe('auth matrix over every GraphQL operation', () => {
  it('every query and mutation of the live schema has a row (and every row is an operation)', () => {
    expect(FIELDS.size).toBeGreaterThan(30); // introspection found the schema
    const covered = new Set(TABLE.map(rowKey));
    expect({ operationsWithoutRow: [...FIELDS.keys()].filter((k) => !covered.has(k)) }).toEqual({ operationsWithoutRow: [] });
    expect({ rowsWithoutOperation: [...covered].filter((k) => !FIELDS.has(k)) }).toEqual({ rowsWithoutOperation: [] });
    expect(covered.size).toBe(TABLE.length); // no operation twice
    // the check bites: a table missing a row names exactly that operation
    const partial = new Set(TABLE.slice(1).map(rowKey));
    expect([...FIELDS.keys()].filter((k) => !partial.has(k))).toEqual([rowKey(TABLE[0])]);
  });

  it('every row gets the credential set, and its generated operation is valid', async () => {
    expect(CELLS.length).toBeGreaterThan(TABLE.length * 9);
    for (const row of TABLE) {
      const text = operationOf(row, row.args?.(fx.shared) ?? {});
      expect(text).toMatch(new RegExp(`^(query|mutation) Matrix.* \\{ ${row.field}`));
    }
  });

  it.each(CELLS)('%s', async (_name, row, cred, want) => {
    const t = await fx.target(row.fresh);
    const auth = await fx.authorization(cred, row.scope ?? 'query:read', t);
    const values = row.args?.(t) ?? {};
    const res = await srv.api('POST', '/graphql', { query: operationOf(row, values), variables: values }, null, auth ? { authorization: auth } : {});
    const error = res.body?.errors?.[0];
    if (want === OK) {
      const alsoOk = !!error && (row.okAlso?.some((o) => o.code === error.extensions?.code && o.detail === error.message) ?? false);
      expect({ status: res.status, error: alsoOk ? 'ok-also' : (error ?? null) }).toEqual({ status: alsoOk ? res.status : 200, error: alsoOk ? 'ok-also' : null });
      expect(res.body.data?.[row.field] ?? (alsoOk ? 'ok-also' : null)).not.toBeNull();
      return;
    }
    expect({ status: res.status, code: error?.extensions?.code, detail: error?.message }).toEqual(want);
    expect(res.body.data?.[row.field] ?? null).toBeNull();
  });
});
