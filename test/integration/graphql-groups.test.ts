/**
 * Groups over GraphQL: the same service as REST (`groups_types/`, `groups/`), so group types and groups read the
 * same objects (camelCase), paging by cursor, and validation errors carry the REST attr.
 */
import { gql, startServer, type TestServer } from '../helpers/server';

let s: TestServer;
let project: number;

beforeAll(async () => {
  s = await startServer();
  project = (await s.api('POST', '/api/projects/', { name: 'gql groups' })).body.id;
  const gi = (key: string, set: Record<string, unknown>, timestamp: string) => ({
    event: '$groupidentify',
    distinct_id: `$company_${key}`,
    timestamp,
    properties: { $group_type: 'company', $group_key: key, $group_set: set },
  });
  await s.server.services.ingestor.import(project, {
    events: [
      gi('acme', { industry: 'finance', size: 10 }, '2024-01-01T00:00:00Z'),
      gi('globex', { industry: 'tech' }, '2024-01-02T00:00:00Z'),
      gi('initech', { industry: 'tech' }, '2024-01-03T00:00:00Z'),
      { event: 'signup', distinct_id: 'u1', timestamp: '2024-01-03T00:00:00Z', properties: { $groups: { company: 'acme', team: 'red' } } },
    ],
  });
  await s.server.services.ingestor.flush();
});
afterAll(async () => {
  await s?.close();
});

it('group types, as REST lists them, and renaming one', async () => {
  const r = await gql(s, 'query($p: Int!) { groupTypes(projectId: $p) { groupType groupTypeIndex nameSingular namePlural } }', { p: project });
  expect(r.body.data.groupTypes).toEqual([
    { groupType: 'company', groupTypeIndex: 0, nameSingular: null, namePlural: null },
    { groupType: 'team', groupTypeIndex: 1, nameSingular: null, namePlural: null },
  ]);
  const u = await gql(s, 'mutation($p: Int!, $i: [GroupTypeMetadataInput!]!) { updateGroupTypeMetadata(projectId: $p, input: $i) { groupTypeIndex nameSingular namePlural } }', {
    p: project,
    i: [{ groupTypeIndex: 0, nameSingular: 'Company', namePlural: 'Companies' }],
  });
  expect(u.body.data.updateGroupTypeMetadata[0]).toEqual({ groupTypeIndex: 0, nameSingular: 'Company', namePlural: 'Companies' });
  const rest = (await s.api('GET', `/api/projects/${project}/groups_types/`)).body;
  expect(rest[0]).toMatchObject({ group_type: 'company', name_singular: 'Company', name_plural: 'Companies' });
  const bad = await gql(s, 'mutation($p: Int!) { updateGroupTypeMetadata(projectId: $p, input: [{ groupTypeIndex: 4, nameSingular: "x" }]) { groupTypeIndex } }', { p: project });
  expect(bad.status).toBe(400);
  expect(bad.body.errors[0]).toMatchObject({ message: 'Group type 4 does not exist.', extensions: { attr: 'group_type_index' } });
});

it('groups newest first with cursor paging and search, and one group by key', async () => {
  const page = await gql(s, 'query($p: Int!) { groups(projectId: $p, groupTypeIndex: 0, limit: 2) { results { groupKey groupProperties createdAt } nextCursor previousCursor } }', { p: project });
  const first = page.body.data.groups;
  expect(first.results.map((g: { groupKey: string }) => g.groupKey)).toEqual(['initech', 'globex']);
  expect(first.previousCursor).toBeNull();
  const next = await gql(s, 'query($p: Int!, $c: String) { groups(projectId: $p, groupTypeIndex: 0, limit: 2, cursor: $c) { results { groupKey } nextCursor } }', {
    p: project,
    c: first.nextCursor,
  });
  expect(next.body.data.groups).toEqual({ results: [{ groupKey: 'acme' }], nextCursor: null });
  const search = await gql(s, 'query($p: Int!) { groups(projectId: $p, groupTypeIndex: 0, search: "finance") { results { groupKey } } }', { p: project });
  expect(search.body.data.groups.results).toEqual([{ groupKey: 'acme' }]);

  const one = await gql(s, 'query($p: Int!) { group(projectId: $p, groupTypeIndex: 0, groupKey: "acme") { groupTypeIndex groupKey groupProperties createdAt } }', { p: project });
  const rest = (await s.api('GET', `/api/projects/${project}/groups/find?group_type_index=0&group_key=acme`)).body;
  expect(one.body.data.group).toEqual({ groupTypeIndex: 0, groupKey: 'acme', groupProperties: { industry: 'finance', size: 10 }, createdAt: rest.created_at });
  const missing = await gql(s, 'query($p: Int!) { group(projectId: $p, groupTypeIndex: 0, groupKey: "nope") { groupKey } }', { p: project });
  expect(missing.status).toBe(404);
});

it('an out-of-range index is the REST validation error; other projects see none of these groups', async () => {
  const r = await gql(s, 'query($p: Int!) { groups(projectId: $p, groupTypeIndex: 7) { results { groupKey } } }', { p: project });
  expect(r.status).toBe(400);
  expect(r.body.errors[0].extensions).toMatchObject({ code: 'invalid_input', attr: 'group_type_index' });
  const other = await gql(s, '{ groups(projectId: 1, groupTypeIndex: 0) { results { groupKey } } }');
  expect(other.body.data.groups.results).toEqual([]);
});
