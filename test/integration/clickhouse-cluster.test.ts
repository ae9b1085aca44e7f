/**
 * Two ClickHouse shards (two server processes on loopback ports, temp dirs, cluster `quarry_test` in their
 * remote_servers): Quarry creates sharded local tables on both and Distributed tables over them, writes through
 * the Distributed tables, and ProductQL answers match DuckDB's.
 */
import { describeClickHouse, startCluster, type TestServer } from '../../src/engines/clickhouse/test-server';
import { createClickHouseTestDb, PARITY_CASES, type ClickHouseTestDb } from '../../src/engines/clickhouse/testing';
import { shutdownParser } from '../../src/productql/index';
import { createTestDb, type TestDb } from '../../src/productql/testing';

describeClickHouse('ClickHouse cluster: two shards behind Distributed tables', () => {
  let cluster: TestServer;
  let ch: ClickHouseTestDb;
  let duck: TestDb;
  beforeAll(async () => {
    cluster = await startCluster();
    [ch, duck] = await Promise.all([
      createClickHouseTestDb({ url: cluster.url, nodeUrls: cluster.urls, cluster: cluster.cluster, database: 'sharded' }),
      createTestDb(),
    ]);
  });
  afterAll(async () => {
    duck?.close();
    await ch?.close();
    await cluster?.stop();
    await shutdownParser();
  });

  const onNode = async (url: string, sql: string): Promise<unknown[][]> => {
    const res = await fetch(`${url}/?database=sharded&default_format=JSONCompact`, { method: 'POST', body: sql });
    const text = await res.text();
    if (!res.ok) throw new Error(text);
    return (JSON.parse(text) as { data: unknown[][] }).data;
  };

  it('spreads rows over both shards by distinct id and person', async () => {
    const counts = await Promise.all(cluster.urls.map((u) => onNode(u, 'SELECT count() FROM events_local')));
    const perShard = counts.map((c) => Number(c[0][0]));
    expect(perShard.every((n) => n > 0)).toBe(true);
    expect(perShard.reduce((a, b) => a + b, 0)).toBe(9);
    // Every node answers for the whole cluster through the Distributed table.
    for (const u of cluster.urls) expect(Number((await onNode(u, 'SELECT count() FROM events'))[0][0])).toBe(9);
    // One distinct id's events live on one shard.
    const placement = await Promise.all(cluster.urls.map((u) => onNode(u, 'SELECT DISTINCT distinct_id FROM events_local')));
    const [a, b] = placement.map((rows) => new Set(rows.map((r) => r[0])));
    for (const d of a) expect(b.has(d)).toBe(false);
  });

  it.each(PARITY_CASES)('%s (%s) matches DuckDB', async (text, timezone, expected) => {
    const [d, c] = await Promise.all([duck.query(text, { timezone }), ch.query(text, { timezone })]);
    expect(c.results).toEqual(d.results);
    if (expected) expect(c.results).toEqual(expected);
  });

  it('deletes a project on every shard', async () => {
    await ch.engine.deleteProject(2);
    for (const u of cluster.urls) expect(Number((await onNode(u, 'SELECT count() FROM events_local WHERE project_id = 2'))[0][0])).toBe(0);
    expect((await ch.query('select count() from events')).results).toEqual([[6]]);
  });
});
