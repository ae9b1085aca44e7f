/**
 * Actions and cohorts over GraphQL: the same services as REST (/api/projects/<id>/actions/ and …/cohorts/), so the
 * objects match field for field (camelCase), validation errors carry the REST attr, and what GraphQL saves is what
 * the query API then uses (an ActionsNode series, a cohort filter).
 */
import { gql, startServer, type TestServer } from '../helpers/server';

let s: TestServer;
const RANGE = { date_from: '2024-01-01', date_to: '2024-01-03' };
const ACTION_FIELDS = 'id name description tags steps deleted pinnedAt createdAt updatedAt createdBy { id email }';
const COHORT_FIELDS = 'id name description filters groups isStatic deleted count createdAt';

beforeAll(async () => {
  s = await startServer();
  const ing = s.server.services.ingestor;
  await ing.import(1, {
    persons: [
      { distinct_ids: ['g1'], properties: { plan: 'pro' }, created_at: '2024-01-01T00:00:00Z' },
      { distinct_ids: ['g2'], properties: { plan: 'free' }, created_at: '2024-01-01T00:00:00Z' },
    ],
    events: [
      { event: 'gql signup', distinct_id: 'g1', timestamp: '2024-01-01T10:00:00Z', properties: { $browser: 'Chrome' } },
      { event: 'gql signup', distinct_id: 'g2', timestamp: '2024-01-02T10:00:00Z', properties: { $browser: 'Safari' } },
    ],
  });
  await ing.flush();
});
afterAll(async () => {
  await s?.close();
});

const trendsTotal = async (series: unknown[], properties: unknown[] = []) => {
  const r = await s.api('POST', '/api/projects/1/query/', { query: { kind: 'TrendsQuery', series, dateRange: RANGE, properties } });
  expect(r.status).toBe(200);
  return r.body.results[0].count;
};

describe('actions', () => {
  it('create, read, list, update and soft delete match REST, and the query API uses the saved steps', async () => {
    const created = await gql(
      s,
      `mutation($input: ActionInput!) { createAction(projectId: 1, input: $input) { ${ACTION_FIELDS} } }`,
      { input: { name: 'GQL signups', tags: ['growth'], steps: [{ event: 'gql signup', properties: [{ key: '$browser', value: 'Chrome', type: 'event' }] }] } },
    );
    expect(created.body.errors).toBeUndefined();
    const a = created.body.data.createAction;
    const rest = (await s.api('GET', `/api/projects/1/actions/${a.id}/`)).body;
    expect(a).toEqual({
      id: rest.id,
      name: 'GQL signups',
      description: '',
      tags: ['growth'],
      steps: rest.steps,
      deleted: false,
      pinnedAt: null,
      createdAt: rest.created_at,
      updatedAt: rest.updated_at,
      createdBy: { id: rest.created_by.id, email: rest.created_by.email },
    });
    expect(rest.steps[0]).toMatchObject({ event: 'gql signup', url_matching: 'contains', selector: null });
    expect(await trendsTotal([{ kind: 'ActionsNode', id: a.id }])).toBe(1);

    const one = await gql(s, 'query($id: ID!) { action(projectId: 1, id: $id) { id name } }', { id: String(a.id) });
    expect(one.body.data.action).toEqual({ id: a.id, name: 'GQL signups' });
    const list = await gql(s, '{ actions(projectId: 1) { count results { id } } }');
    expect(list.body.data.actions.results.map((r: { id: number }) => r.id)).toContain(a.id);

    const upd = await gql(s, 'mutation($id: ID!, $input: ActionInput!) { updateAction(projectId: 1, id: $id, input: $input) { steps } }', {
      id: String(a.id),
      input: { steps: [{ event: 'gql signup' }] },
    });
    expect(upd.body.errors).toBeUndefined();
    expect(await trendsTotal([{ kind: 'ActionsNode', id: a.id }])).toBe(2);

    // a null description (a GraphQL client's unset variable) leaves it as is; REST's null is DRF's "may not be null"
    const kept = await gql(s, 'mutation($id: ID!, $input: ActionInput!) { updateAction(projectId: 1, id: $id, input: $input) { description } }', {
      id: String(a.id),
      input: { description: null },
    });
    expect(kept.body).toEqual({ data: { updateAction: { description: a.description } } });

    const del = await gql(s, 'mutation($id: ID!) { updateAction(projectId: 1, id: $id, input: { deleted: true }) { deleted } }', { id: String(a.id) });
    expect(del.body.data.updateAction).toEqual({ deleted: true });
    const after = await gql(s, '{ actions(projectId: 1) { results { id } } }');
    expect(after.body.data.actions.results.map((r: { id: number }) => r.id)).not.toContain(a.id);
  });

  it('invalid steps are a validation error with the REST attr, and nothing is saved', async () => {
    const before = (await gql(s, '{ actions(projectId: 1) { count } }')).body.data.actions.count;
    const r = await gql(s, 'mutation { createAction(projectId: 1, input: { name: "bad", steps: "not a list" }) { id } }');
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions).toMatchObject({ code: 'invalid_input', type: 'validation_error', attr: 'steps' });
    expect((await gql(s, '{ actions(projectId: 1) { count } }')).body.data.actions.count).toBe(before);
  });
});

describe('cohorts', () => {
  it('a dynamic cohort made over GraphQL counts its persons and filters insights', async () => {
    const r = await gql(s, `mutation($input: CohortInput!) { createCohort(projectId: 1, input: $input) { ${COHORT_FIELDS} } }`, {
      input: { name: 'GQL pro', filters: { properties: { type: 'AND', values: [{ type: 'person', key: 'plan', value: 'pro', operator: 'exact' }] } } },
    });
    expect(r.body.errors).toBeUndefined();
    const c = r.body.data.createCohort;
    const rest = (await s.api('GET', `/api/projects/1/cohorts/${c.id}/`)).body;
    expect(c).toEqual({
      id: rest.id,
      name: 'GQL pro',
      description: '',
      filters: rest.filters,
      groups: rest.groups,
      isStatic: false,
      deleted: false,
      count: 1,
      createdAt: rest.created_at,
    });
    expect(await trendsTotal([{ kind: 'EventsNode', event: 'gql signup' }], [{ type: 'cohort', key: 'id', value: c.id }])).toBe(1);
  });

  it('a static cohort takes and loses persons by id', async () => {
    const pid = (await s.api('POST', '/api/projects/1/query/', { query: { kind: 'HogQLQuery', query: "SELECT toString(id) FROM persons WHERE properties.plan = 'free'" } })).body.results[0][0];
    const made = await gql(s, 'mutation { createCohort(projectId: 1, input: { name: "GQL static", isStatic: true }) { id count isStatic } }');
    expect(made.body.data.createCohort).toMatchObject({ count: 0, isStatic: true });
    const id = String(made.body.data.createCohort.id);
    const add = await gql(s, 'mutation($id: ID!, $p: [ID!]!) { addPersonsToCohort(projectId: 1, id: $id, personIds: $p) }', { id, p: [pid] });
    expect(add.body).toEqual({ data: { addPersonsToCohort: true } });
    expect((await gql(s, 'query($id: ID!) { cohort(projectId: 1, id: $id) { count } }', { id })).body.data.cohort.count).toBe(1);
    const rm = await gql(s, 'mutation($id: ID!, $p: ID!) { removePersonFromCohort(projectId: 1, id: $id, personId: $p) }', { id, p: pid });
    expect(rm.body).toEqual({ data: { removePersonFromCohort: true } });
    expect((await gql(s, 'query($id: ID!) { cohort(projectId: 1, id: $id) { count } }', { id })).body.data.cohort.count).toBe(0);
  });

  it('adding persons to a dynamic cohort is refused with the REST message', async () => {
    const made = await gql(s, '{ cohorts(projectId: 1) { results { id isStatic } } }');
    const dyn = made.body.data.cohorts.results.find((c: { isStatic: boolean }) => !c.isStatic);
    const r = await gql(s, 'mutation($id: ID!) { addPersonsToCohort(projectId: 1, id: $id, personIds: ["00000000-0000-0000-0000-000000000001"]) }', { id: String(dyn.id) });
    expect(r.body.errors[0]).toMatchObject({ message: 'Can only add users to static cohorts', extensions: { attr: 'person_ids' } });
  });
});
