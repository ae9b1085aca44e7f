import fs from 'node:fs';
import { getIntrospectionQuery } from 'graphql';
import { SCHEMA_FILE, schemaSDL } from '../../src/graphql/print-schema';
import type { TestServer } from '../helpers/server';
import { gql, startServer } from '../helpers/server';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv?.close();
});

const PROJECT_FIELDS = 'id name timezone weekStartDay apiToken testAccountFilters pathCleaningFilters createdAt';

describe('queries', () => {
  it('viewer', async () => {
    const r = await gql(srv, '{ viewer { principalType principalId userId scopes projects { id name } } }');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: {
        viewer: { principalType: 'personal', principalId: expect.any(String), userId: 1, scopes: ['*'], projects: [{ id: 1, name: 'Default project' }] },
      },
    });
  });

  it('projects (with paging) and project(id) match REST', async () => {
    const list = await gql(srv, `{ projects(limit: 1) { count results { ${PROJECT_FIELDS} } } }`);
    const rest = (await srv.api('GET', '/api/projects/1/')).body;
    expect(list.body.data.projects).toEqual({
      count: expect.any(Number),
      results: [
        {
          id: 1,
          name: rest.name,
          timezone: rest.timezone,
          weekStartDay: rest.week_start_day,
          apiToken: rest.api_token,
          testAccountFilters: [],
          pathCleaningFilters: [],
          createdAt: rest.created_at,
        },
      ],
    });
    const one = await gql(srv, 'query($id: Int!) { project(id: $id) { id apiToken } }', { id: 1 });
    expect(one.body).toEqual({ data: { project: { id: 1, apiToken: rest.api_token } } });
  });

  it('a missing project is a not_found error with status 404', async () => {
    const r = await gql(srv, '{ project(id: 999) { id } }');
    expect(r.status).toBe(404);
    expect(r.body.data).toBeNull();
    expect(r.body.errors).toEqual([
      { message: 'Project not found.', locations: [{ line: 1, column: 3 }], path: ['project'], extensions: { code: 'not_found', type: 'invalid_request', attr: null } },
    ]);
  });
});

describe('mutations', () => {
  it('create, update and delete a project', async () => {
    const created = await gql(
      srv,
      `mutation($input: ProjectInput!) { createProject(input: $input) { ${PROJECT_FIELDS} } }`,
      { input: { name: 'GQL', timezone: 'Europe/Rome', weekStartDay: 1, testAccountFilters: [{ key: 'email', value: 'x' }] } },
    );
    expect(created.status).toBe(200);
    const p = created.body.data.createProject;
    expect(p).toMatchObject({ name: 'GQL', timezone: 'Europe/Rome', weekStartDay: 1, testAccountFilters: [{ key: 'email', value: 'x' }], pathCleaningFilters: [] });
    expect((await srv.api('GET', `/api/projects/${p.id}/`)).body.name).toBe('GQL');

    const updated = await gql(srv, 'mutation($id: Int!) { updateProject(id: $id, input: {name: "GQL 2"}) { name timezone weekStartDay } }', { id: p.id });
    expect(updated.body.data.updateProject).toEqual({ name: 'GQL 2', timezone: 'Europe/Rome', weekStartDay: 1 });

    const deleted = await gql(srv, 'mutation($id: Int!) { deleteProject(id: $id) }', { id: p.id });
    expect(deleted.body).toEqual({ data: { deleteProject: true } });
    expect((await srv.api('GET', `/api/projects/${p.id}/`)).status).toBe(404);
  });

  it.each<[string, Record<string, unknown>, string, string | null]>([
    ['missing name', {}, 'required', 'name'],
    // the same service as REST: DRF's ChoiceField code, as PostHog's team serializer (test_team.py)
    ['bad timezone', { name: 'x', timezone: 'Nowhere/Land' }, 'invalid_choice', 'timezone'],
    ['bad week start', { name: 'x', weekStartDay: 3 }, 'invalid_choice', 'week_start_day'],
  ])('createProject validation: %s → 400 with extensions.code', async (_name, input, code, attr) => {
    const r = await gql(srv, 'mutation($input: ProjectInput!) { createProject(input: $input) { id } }', { input });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions).toEqual({ code, type: 'validation_error', attr });
  });

  it('create and revoke a personal key; the value is shown once', async () => {
    const created = await gql(
      srv,
      'mutation { createPersonalApiKey(input: {label: "gql", scopes: ["project:read"], scopedTeams: [1]}) { id label value maskValue scopes scopedTeams createdAt lastUsedAt } }',
    );
    const k = created.body.data.createPersonalApiKey;
    expect(k).toEqual({
      id: expect.any(String),
      label: 'gql',
      value: expect.stringMatching(/^phx_/),
      maskValue: expect.stringMatching(/^phx_\.\.\..{4}$/),
      scopes: ['project:read'],
      scopedTeams: [1],
      createdAt: expect.any(String),
      lastUsedAt: null,
    });
    const viewer = await gql(srv, '{ viewer { principalId scopes projects { id } } }', undefined, k.value);
    expect(viewer.body.data.viewer).toEqual({ principalId: k.id, scopes: ['project:read'], projects: [{ id: 1 }] });

    const list = await gql(srv, '{ personalApiKeys { id value maskValue } }');
    expect(list.body.data.personalApiKeys).toContainEqual({ id: k.id, value: null, maskValue: k.maskValue });
    expect(list.text).not.toContain(k.value);

    const revoked = await gql(srv, 'mutation($id: String!) { revokePersonalApiKey(id: $id) }', { id: k.id });
    expect(revoked.body).toEqual({ data: { revokePersonalApiKey: true } });
    expect((await gql(srv, '{ viewer { principalId } }', undefined, k.value)).status).toBe(401);
    const again = await gql(srv, 'mutation($id: String!) { revokePersonalApiKey(id: $id) }', { id: k.id });
    expect(again.status).toBe(404);
    expect(again.body.errors[0].extensions.code).toBe('not_found');
  });

  it('create, list and revoke a project secret key', async () => {
    const created = await gql(srv, 'mutation { createProjectSecretApiKey(projectId: 1, input: {label: "s", scopes: ["endpoint:read"]}) { id value maskValue projectId scopes createdBy } }');
    const k = created.body.data.createProjectSecretApiKey;
    expect(k).toEqual({ id: expect.any(String), value: expect.stringMatching(/^phs_/), maskValue: expect.stringMatching(/^phs_\.\.\./), projectId: 1, scopes: ['endpoint:read'], createdBy: 1 });
    const list = await gql(srv, '{ projectSecretApiKeys(projectId: 1) { id value } }');
    expect(list.body.data.projectSecretApiKeys).toContainEqual({ id: k.id, value: null });
    const revoked = await gql(srv, 'mutation($id: String!) { revokeProjectSecretApiKey(projectId: 1, id: $id) }', { id: k.id });
    expect(revoked.body).toEqual({ data: { revokeProjectSecretApiKey: true } });
    expect((await gql(srv, '{ viewer { principalId } }', undefined, k.value)).status).toBe(401);
  });

  it('secret key scopes other than endpoint:read are refused', async () => {
    const r = await gql(srv, 'mutation { createProjectSecretApiKey(projectId: 1, input: {scopes: ["*"]}) { id } }');
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toMatchObject({
      message: 'Project secret API keys may only hold: endpoint:read, feature_flag:read, account:read, loop:write, experiment:read.',
      extensions: { code: 'invalid_input', type: 'validation_error', attr: 'scopes' },
    });
  });
});

describe('errors', () => {
  it.each<[string, string | null, number, string]>([
    ['no key', null, 401, 'not_authenticated'],
    ['bad key', 'phx_nope', 401, 'authentication_failed'],
  ])('%s → %i with extensions.code %s', async (_name, key, status, code) => {
    const r = await gql(srv, '{ viewer { principalId } }', undefined, key);
    expect(r.status).toBe(status);
    expect(r.body.errors[0].extensions.code).toBe(code);
    expect(r.body.data).toBeUndefined();
  });

  it('missing scope → 403 permission_denied naming the scope', async () => {
    const key = (await srv.api('POST', '/api/personal_api_keys/', { scopes: ['query:read'] })).body.value;
    const r = await gql(srv, 'mutation { createProject(input: {name: "x"}) { id } }', undefined, key);
    expect(r.status).toBe(403);
    expect(r.body.errors[0]).toMatchObject({ message: "API key missing required scope 'project:write'", extensions: { code: 'permission_denied', type: 'authentication_error' } });
  });

  it('an error in a non-null top-level field nulls the whole result and carries its status', async () => {
    const r = await gql(srv, '{ viewer { userId } project(id: 424242) { id } }');
    expect(r.status).toBe(404);
    expect(r.body.data).toBeNull();
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors[0]).toMatchObject({ path: ['project'], extensions: { code: 'not_found' } });
  });

  it.each<[string, string, string, Record<string, unknown> | undefined]>([
    ['syntax error', '{ viewer { ', 'GRAPHQL_PARSE_FAILED', undefined],
    ['unknown field', '{ viewer { nope } }', 'GRAPHQL_VALIDATION_FAILED', undefined],
    // Regression: costPlugin's getComplexity() coerces variables and throws from didResolveOperation, which
    // Apollo reports as 500 INTERNAL_SERVER_ERROR instead of execution's 400 BAD_USER_INPUT.
    ['regression: variable of the wrong type', 'query($id: Int!) { project(id: $id) { id } }', 'BAD_USER_INPUT', { id: 'one' }],
    ['regression: missing required variable', 'query($id: Int!) { project(id: $id) { id } }', 'BAD_USER_INPUT', {}],
  ])('%s → 400 with a code and no stack', async (_name, query, code, variables?: Record<string, unknown>) => {
    const r = await gql(srv, query, variables);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions.code).toBe(code);
    expect(r.text).not.toMatch(/stacktrace|\s+at\s+\S+\s+\(/);
  });
});

describe('schema.graphql', () => {
  it('is up to date with the code (run `npm run schema` if this fails)', () => {
    const current = schemaSDL();
    const exists = fs.existsSync(SCHEMA_FILE);
    if (!exists) throw new Error(`${SCHEMA_FILE} is missing: run npm run schema and commit it.`);
    const checkedIn = fs.readFileSync(SCHEMA_FILE, 'utf8');
    if (checkedIn !== current) {
      throw new Error(`schema.graphql is stale: run npm run schema and commit it.\n\n--- expected (from code)\n${current}`);
    }
  });

  it('the served schema is the printed one', async () => {
    const r = await gql(srv, '{ __schema { queryType { name } mutationType { name } } }');
    expect(r.body.data.__schema).toEqual({ queryType: { name: 'Query' }, mutationType: { name: 'Mutation' } });
    expect(schemaSDL()).toContain('type Query {');
  });
});

describe('limits', () => {
  it('GraphiQL introspection works at the default limits', async () => {
    const r = await gql(srv, getIntrospectionQuery());
    expect(r.status).toBe(200);
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.__schema.types.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(['Query', 'Mutation', 'Project', 'Viewer']));
  });

  it('typical GraphiQL default query passes at the default limits', async () => {
    const r = await gql(srv, '{ viewer { principalType principalId scopes projects { id name } } }');
    expect(r.status).toBe(200);
  });

  describe('depth', () => {
    let low: TestServer;
    beforeAll(async () => {
      low = await startServer({ env: { QUARRY_GRAPHQL_MAX_DEPTH: '2' } });
    });
    afterAll(async () => {
      await low?.close();
    });

    it('an operation within the depth limit runs', async () => {
      const r = await gql(low, '{ viewer { principalId } }');
      expect(r.status).toBe(200);
      expect(r.body.errors).toBeUndefined();
    });

    it.each([
      ['direct nesting', '{ projects { results { id } } }'],
      ['nesting hidden in fragments', 'query { ...A } fragment A on Query { viewer { ...B } } fragment B on Viewer { projects { ...C } } fragment C on Project { id }'],
      ['nesting hidden in aliases', '{ a: viewer { b: projects { c: id } } }'],
      ['nesting in inline fragments', '{ ... on Query { viewer { ... on Viewer { projects { id } } } } }'],
    // Regression: graphql-depth-limit counts top-level fields as depth 0, so QUARRY_GRAPHQL_MAX_DEPTH=N allowed
    // N+1 levels; with the config minimum of 2 and this schema's 3 levels, no operation could ever be rejected.
    ])('regression: rejects 3 levels of fields at QUARRY_GRAPHQL_MAX_DEPTH=2: %s', async (_name, query) => {
      const r = await gql(low, query);
      expect(r.status).toBe(400);
      expect(r.body.data).toBeUndefined();
      expect(r.body.errors[0].message).toMatch(/exceeds maximum operation depth/);
      expect(r.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    });


    it('introspection fields are not counted', async () => {
      const r = await gql(low, getIntrospectionQuery());
      expect(r.status).toBe(200);
    });
  });

  describe('cost', () => {
    let cheap: TestServer;
    beforeAll(async () => {
      cheap = await startServer({ env: { QUARRY_GRAPHQL_MAX_COST: '10' } });
    });
    afterAll(async () => {
      await cheap?.close();
    });

    it('a cheap operation runs', async () => {
      const r = await gql(cheap, '{ viewer { principalId } }');
      expect(r.status).toBe(200);
    });

    it.each([
      ['a list with the default weight', '{ viewer { projects { id name } } }'],
      ['a large requested limit', '{ projects(limit: 1000) { results { id } } }'],
      ['many aliases', `{ ${Array.from({ length: 12 }, (_, i) => `a${i}: viewer { principalId }`).join(' ')} }`],
    ])('rejects %s with query_too_complex', async (_name, query) => {
      const r = await gql(cheap, query);
      expect(r.status).toBe(400);
      expect(r.body.errors).toHaveLength(1);
      expect(r.body.errors[0].message).toMatch(/^Operation cost \d+ exceeds the limit of 10\.$/);
      expect(r.body.errors[0].extensions).toMatchObject({ code: 'query_too_complex' });
    });

    it('a costly mutation is rejected before it runs', async () => {
      const before = (await cheap.api('GET', '/api/projects/')).body.count;
      const many = Array.from({ length: 11 }, (_, i) => `p${i}: createProject(input: {name: "c${i}"}) { id }`).join(' ');
      const r = await gql(cheap, `mutation { ${many} }`);
      expect(r.status).toBe(400);
      expect(r.body.errors[0].extensions.code).toBe('query_too_complex');
      expect((await cheap.api('GET', '/api/projects/')).body.count).toBe(before);
    });
  });
});

describe('transport', () => {
  it('GET /graphql with a query string works (Accept: application/json)', async () => {
    const res = await fetch(`${srv.url}/graphql?query=${encodeURIComponent('{ viewer { userId } }')}`, {
      headers: { authorization: `Bearer ${srv.key}`, accept: 'application/json', 'apollo-require-preflight': 'true' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { viewer: { userId: 1 } } });
  });

  it('a mutation over GET is refused', async () => {
    const res = await fetch(`${srv.url}/graphql?query=${encodeURIComponent('mutation { createProject(input: {name: "get"}) { id } }')}`, {
      headers: { authorization: `Bearer ${srv.key}`, accept: 'application/json', 'apollo-require-preflight': 'true' },
    });
    expect(res.status).toBe(405);
  });

  it('a browser GET gets the GraphiQL page from local files', async () => {
    const res = await fetch(`${srv.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('/graphiql/graphiql.min.js');
    expect(html).not.toMatch(/https?:\/\//);
  });
});
