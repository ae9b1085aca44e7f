/**
 * Groups in the engines (both, like internal-statements.test.ts): WriteBatch.groups / groupTypes replace by key in
 * the batch's transaction, and the group reads (loadGroups, listGroupTypes, listGroups, getGroup, deleteGroupType)
 * answer the same on DuckDB and ClickHouse, one project never seeing another's rows.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDbEngine } from './duckdb/duckdb-engine';
import type { EventEngine, GroupUpsert, WriteBatch } from './engine';
import { ClickHouseEngine } from './clickhouse/clickhouse-engine';
import { clickhouseAvailable, startCluster, startSingle, type TestServer } from './clickhouse/test-server';

const T0 = Date.UTC(2024, 0, 1, 0, 0, 0);

const group = (over: Partial<GroupUpsert> & Pick<GroupUpsert, 'group_key'>): GroupUpsert => ({
  project_id: 1,
  group_type_index: 0,
  created_at: T0,
  properties: {},
  version: 1,
  ...over,
});

// The two-shard cluster: groups are sharded by key, group types by project (every version of a key on one shard).
const engines = clickhouseAvailable() ? (['duckdb', 'clickhouse', 'clickhouse cluster'] as const) : (['duckdb'] as const);

describe.each(engines)('groups on %s', (kind) => {
  let engine: EventEngine;
  let server: TestServer | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    if (kind === 'clickhouse') {
      server = await startSingle();
      engine = await ClickHouseEngine.open({ url: server.url, database: 'groups' });
    } else if (kind === 'clickhouse cluster') {
      server = await startCluster();
      engine = await ClickHouseEngine.open({ url: server.url, nodeUrls: server.urls, cluster: server.cluster, database: 'groups' });
    } else {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-groups-'));
      engine = await DuckDbEngine.open(path.join(dir, 'events.duckdb'));
    }
    const first: WriteBatch = {
      events: [],
      groupTypes: [
        { project_id: 1, group_type: 'organization', group_type_index: 0, name_singular: null, name_plural: null },
        { project_id: 1, group_type: 'project', group_type_index: 1, name_singular: null, name_plural: null },
        { project_id: 2, group_type: 'team', group_type_index: 0, name_singular: null, name_plural: null },
      ],
      groups: [
        group({ group_key: 'org:5', created_at: T0 + 1005, properties: { industry: 'finance', name: 'Mr. Krabs' } }),
        group({ group_key: 'org:6', created_at: T0 + 2000, properties: { industry: 'technology' } }),
        group({ group_key: 'proj:1', group_type_index: 1, properties: { name: 'Krusty Krab' } }),
        group({ project_id: 2, group_key: 'org:5', properties: { secret: 'other project' } }),
      ],
      checkpoint: 7,
    };
    await engine.writeBatch(first);
  });
  afterAll(async () => {
    await engine?.close();
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('stores group types and groups with the batch and its checkpoint', async () => {
    expect(await engine.getCheckpoint()).toBe(7);
    expect(await engine.listGroupTypes(1)).toEqual([
      { group_type: 'organization', group_type_index: 0, name_singular: null, name_plural: null },
      { group_type: 'project', group_type_index: 1, name_singular: null, name_plural: null },
    ]);
    const loaded = await engine.loadGroups(2);
    expect(loaded).toEqual({
      types: [{ group_type: 'team', group_type_index: 0, name_singular: null, name_plural: null }],
      groups: [{ group_type_index: 0, group_key: 'org:5', created_at: T0, properties: { secret: 'other project' }, version: 1 }],
    });
    expect(await engine.getGroup(1, 0, 'org:5')).toEqual({
      group_type_index: 0,
      group_key: 'org:5',
      created_at: T0 + 1005,
      properties: { industry: 'finance', name: 'Mr. Krabs' },
      version: 1,
    });
    expect(await engine.getGroup(1, 1, 'org:5')).toBeNull();
    expect(await engine.getGroup(3, 0, 'org:5')).toBeNull();
  });

  it('replaces a group and a group type by key (the last row of a key in one batch wins)', async () => {
    await engine.writeBatch({
      events: [],
      groups: [
        group({ group_key: 'proj:1', group_type_index: 1, properties: { name: 'stale' }, version: 2 }),
        group({ group_key: 'proj:1', group_type_index: 1, properties: { name: 'Krusty Krab', plan: 'pro' }, version: 3 }),
      ],
      groupTypes: [{ project_id: 1, group_type: 'project', group_type_index: 1, name_singular: 'Project', name_plural: 'Projects' }],
    });
    expect(await engine.getGroup(1, 1, 'proj:1')).toMatchObject({ properties: { name: 'Krusty Krab', plan: 'pro' }, version: 3 });
    expect((await engine.loadGroups(1)).groups).toHaveLength(3);
    expect((await engine.listGroupTypes(1))[1]).toEqual({ group_type: 'project', group_type_index: 1, name_singular: 'Project', name_plural: 'Projects' });
  });

  it('lists groups of one type newest first, with search over the key or the properties, and pages', async () => {
    const keys = async (filter: { group_type_index: number; search?: string }, limit = 10, offset = 0, project = 1) =>
      (await engine.listGroups(project, filter, { limit, offset })).map((g) => g.group_key);
    expect(await keys({ group_type_index: 0 })).toEqual(['org:6', 'org:5']);
    expect(await keys({ group_type_index: 0 }, 1, 1)).toEqual(['org:5']);
    expect(await keys({ group_type_index: 0, search: 'krabs' })).toEqual(['org:5']);
    expect(await keys({ group_type_index: 0, search: 'ORG:5' })).toEqual(['org:5']);
    // the key matches exactly (case-insensitively), not as a substring
    expect(await keys({ group_type_index: 0, search: 'org:' })).toEqual([]);
    expect(await keys({ group_type_index: 0, search: "it's" })).toEqual([]);
    expect(await keys({ group_type_index: 1 })).toEqual(['proj:1']);
    expect(await keys({ group_type_index: 0, search: 'secret' })).toEqual([]);
    expect(await keys({ group_type_index: 0 }, 10, 0, 2)).toEqual(['org:5']);
  });

  it('deletes a group type with its groups, in that project only', async () => {
    await engine.deleteGroupType(1, 0);
    expect((await engine.listGroupTypes(1)).map((t) => t.group_type)).toEqual(['project']);
    expect((await engine.loadGroups(1)).groups.map((g) => g.group_key)).toEqual(['proj:1']);
    expect((await engine.loadGroups(2)).groups.map((g) => g.group_key)).toEqual(['org:5']);
  });

  it('deleting a project removes its groups and group types', async () => {
    await engine.deleteProject(2);
    expect(await engine.loadGroups(2)).toEqual({ types: [], groups: [] });
    expect((await engine.listGroupTypes(1)).length).toBe(1);
  });

  it('bumps the data version of a project whose groups changed', async () => {
    const before = engine.dataVersion(1);
    await engine.writeBatch({ events: [], groups: [group({ group_key: 'new', group_type_index: 1 })] });
    expect(engine.dataVersion(1)).toBeGreaterThan(before);
  });
});
