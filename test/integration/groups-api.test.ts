/**
 * Groups end to end on DuckDB: the real posthog-node SDK sends `capture({groups})` and `groupIdentify()` to the
 * capture routes; the events carry `$group_N`, the group is stored and the groups REST API serves it. Then the
 * PostHog-compatibility suite of the groups API (test/helpers/groups-compat.ts; its ClickHouse twin is
 * groups-api.clickhouse.test.ts).
 */
import { PostHog } from 'posthog-node';
import { describeGroupsCompat } from '../helpers/groups-compat';
import { startServer, type TestServer } from '../helpers/server';

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => {
  await s?.close();
});

describe('posthog-node SDK', () => {
  let p: number;
  let client: PostHog;
  beforeAll(async () => {
    const project = (await s.api('POST', '/api/projects/', { name: 'sdk groups' })).body;
    p = project.id;
    client = new PostHog(project.api_token, { host: s.url, flushAt: 100, flushInterval: 0, fetchRetryCount: 0, disableGeoip: true });
  });
  afterAll(async () => {
    await client?.shutdown();
  });

  it('capture({groups}) stores $group_N; groupIdentify stores the group, merged on a second call; REST serves both', async () => {
    client.capture({ distinctId: 'user-1', event: 'signed_up', groups: { company: 'acme', workspace: 42 }, timestamp: new Date('2024-04-02T00:00:00Z') });
    client.groupIdentify({ groupType: 'company', groupKey: 'acme', properties: { name: 'Acme Inc.', plan: 'free' } });
    client.capture({ distinctId: 'user-2', event: 'signed_up', groups: { workspace: 'w2' }, timestamp: new Date('2024-04-03T00:00:00Z') });
    await client.flush();
    client.groupIdentify({ groupType: 'company', groupKey: 'acme', properties: { plan: 'pro', seats: 10 } });
    await client.shutdown();
    await s.server.services.ingestor.flush();

    const events = await s.server.services.engine.query(
      `SELECT event, distinct_id, json_extract_string(properties, '$."$group_0"'), json_extract_string(properties, '$."$group_1"'),
              properties->'$."$group_set"'
       FROM events WHERE project_id = $1 ORDER BY timestamp, event`,
      [p],
    );
    const byEvent = events.rows.map((r) => [r[0], r[1], r[2], r[3]]);
    expect(byEvent.filter((r) => r[0] === 'signed_up')).toEqual([
      ['signed_up', 'user-1', 'acme', '42'],
      ['signed_up', 'user-2', null, 'w2'],
    ]);
    // posthog-node sends $groupidentify as the distinct id `$<type>_<key>`; the event itself is stored
    expect(byEvent.filter((r) => r[0] === '$groupidentify').map((r) => r[1])).toEqual(['$company_acme', '$company_acme']);

    const types = await s.api('GET', `/api/projects/${p}/groups_types/`);
    expect(types.body.map((t: { group_type: string; group_type_index: number }) => [t.group_type, t.group_type_index])).toEqual([
      ['company', 0],
      ['workspace', 1],
    ]);
    const found = await s.api('GET', `/api/projects/${p}/groups/find?group_type_index=0&group_key=acme`);
    expect(found.status).toBe(200);
    expect(found.body.group_properties).toEqual({ name: 'Acme Inc.', plan: 'pro', seats: 10 });
    // `$groups` alone does not create a group (reference: "This does not create the group")
    expect((await s.api('GET', `/api/projects/${p}/groups/?group_type_index=1`)).body.results).toEqual([]);
    const listed = await s.api('GET', `/api/projects/${p}/groups/?group_type_index=0`);
    expect(listed.body.results.map((g: { group_key: string }) => g.group_key)).toEqual(['acme']);
  });

  it('a project has at most five group types: a sixth type gets no $group_N and no mapping', async () => {
    const project = (await s.api('POST', '/api/projects/', { name: 'six types' })).body;
    const c = new PostHog(project.api_token, { host: s.url, flushAt: 100, flushInterval: 0, fetchRetryCount: 0, disableGeoip: true });
    c.capture({ distinctId: 'u', event: 'many', groups: { t0: 'a', t1: 'b', t2: 'c', t3: 'd', t4: 'e', t5: 'f' } });
    c.groupIdentify({ groupType: 't5', groupKey: 'f', properties: { x: 1 } });
    await c.shutdown();
    await s.server.services.ingestor.flush();
    const types = (await s.api('GET', `/api/projects/${project.id}/groups_types/`)).body;
    expect(types.map((t: { group_type: string }) => t.group_type)).toEqual(['t0', 't1', 't2', 't3', 't4']);
    const [[props]] = (await s.server.services.engine.query(`SELECT properties FROM events WHERE project_id = $1 AND event = 'many'`, [project.id])).rows;
    expect(Object.keys(props as object).filter((k) => k.startsWith('$group_')).sort()).toEqual(['$group_0', '$group_1', '$group_2', '$group_3', '$group_4']);
    expect((await s.api('GET', `/api/projects/${project.id}/groups/property_definitions`)).body).toEqual({});
  });
});

describeGroupsCompat('DuckDB', () => s);
