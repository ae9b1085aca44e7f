/**
 * The internal statements (engine.ts InternalStatements) give the same answers on DuckDB and ClickHouse (src/ingest
 * calls them directly; there is no dispatch of DuckDB-spelled reads any more).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDbEngine, type WriteBatch } from './duckdb/duckdb-engine';
import type { EventEngine, QueryLogRecord } from './engine';
import { ClickHouseEngine } from './clickhouse/clickhouse-engine';
import { clickhouseAvailable, startSingle, type TestServer } from './clickhouse/test-server';

const P = (n: number) => `70000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const NOW = Date.now();

const BATCH: WriteBatch = {
  events: [
    { project_id: 1, uuid: P(100), event: 'e', distinct_id: 'd1', person_id: P(1), timestamp: NOW, properties: '{}', session_id: null, elements_chain: null, created_at: NOW },
    { project_id: 1, uuid: P(101), event: 'e', distinct_id: 'd1', person_id: P(1), timestamp: NOW, properties: '{}', session_id: null, elements_chain: null, created_at: NOW - 3_600_000 },
    { project_id: 2, uuid: P(102), event: 'e', distinct_id: 'd9', person_id: null, timestamp: NOW, properties: '{}', session_id: null, elements_chain: null, created_at: NOW },
  ],
  newPersons: [{ project_id: 1, id: P(1), created_at: Date.UTC(2024, 0, 1, 0, 0, 0) + 5, properties: { a: 1 }, is_identified: true, version: 3 }],
  newDistinctIds: [{ project_id: 1, distinct_id: 'd1', person_id: P(1), version: 2, seq: 7 }],
  overrides: [{ project_id: 1, old_person_id: P(2), override_person_id: P(1), version: 1 }],
};

const logRow = (id: string, t: string, over: Partial<QueryLogRecord> = {}): QueryLogRecord => ({
  project_id: 1,
  id,
  query_id: null,
  event_time: t,
  principal: 'key:1',
  kind: 'HogQLQuery',
  name: null,
  query_hash: 'h',
  query: { q: "it's" },
  duration_ms: 1.5,
  result_rows: 2,
  result_bytes: 10,
  is_cached: true,
  status: 'ok',
  error_code: null,
  ...over,
});

const engines = clickhouseAvailable() ? (['duckdb', 'clickhouse'] as const) : (['duckdb'] as const);

describe.each(engines)('internal statements on %s', (kind) => {
  let engine: EventEngine & { writeBatch(b: WriteBatch): Promise<void>; close(): Promise<void> };
  let server: TestServer | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    if (kind === 'clickhouse') {
      server = await startSingle();
      engine = await ClickHouseEngine.open({ url: server.url, database: 'internal' });
    } else {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-internal-'));
      engine = await DuckDbEngine.open(path.join(dir, 'events.duckdb'));
    }
    await engine.writeBatch({ ...BATCH, checkpoint: 42 });
  });
  afterAll(async () => {
    await engine?.close();
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('checkpoint, identity, recent uuids, person lookup and counts', async () => {
    expect(await engine.getCheckpoint()).toBe(42);
    expect(await engine.loadIdentity(1)).toEqual({
      persons: [{ id: P(1), created_at: Date.UTC(2024, 0, 1) + 5, properties: { a: 1 }, is_identified: true, version: 3 }],
      distinctIds: [{ distinct_id: 'd1', person_id: P(1), version: 2, seq: 7 }],
      overrides: [{ old_person_id: P(2), override_person_id: P(1), version: 1 }],
    });
    expect(await engine.loadIdentity(3)).toEqual({ persons: [], distinctIds: [], overrides: [] });
    const recent = await engine.recentEventUuids(new Date(NOW - 60_000), 100);
    expect(recent.sort()).toEqual([
      [1, P(100)],
      [2, P(102)],
    ]);
    expect(await engine.recentEventUuids(new Date(NOW - 60_000), 1)).toHaveLength(1);
    expect(await engine.personExists(1, P(1).toUpperCase())).toBe(true);
    expect(await engine.personExists(2, P(1))).toBe(false);
    expect(await engine.personExists(1, 'not-a-uuid')).toBe(false);
    expect(await engine.projectCounts(1)).toEqual({ events: 2, persons: 1, person_distinct_ids: 1, person_overrides: 1 });
  });

  it('writes and lists the query log (filters, order, paging)', async () => {
    await engine.appendQueryLog([
      logRow('a', '2024-05-01T00:00:00.123Z'),
      logRow('b', '2024-05-02T00:00:00.000Z'),
      logRow('c', '2024-05-03T00:00:00.000Z', { is_cached: false, status: 'error', error_code: 'query_error', query: null }),
      logRow('x', '2024-05-03T00:00:00.000Z', { project_id: 2 }),
    ]);
    const all = await engine.listQueryLog(1, {}, { limit: 10, offset: 0 });
    expect(all.count).toBe(3);
    expect(all.rows.map((r) => r.id)).toEqual(['c', 'b', 'a']);
    const cached = await engine.listQueryLog(1, { is_cached: true, since: new Date('2024-05-01T00:00:00.100Z') }, { limit: 10, offset: 0 });
    expect(cached.count).toBe(2);
    expect(cached.rows.map((r) => [r.id, new Date(r.event_time).toISOString(), r.query, r.is_cached])).toEqual([
      ['b', '2024-05-02T00:00:00.000Z', { q: "it's" }, true],
      ['a', '2024-05-01T00:00:00.123Z', { q: "it's" }, true],
    ]);
    expect((await engine.listQueryLog(1, { until: new Date('2024-05-01T00:00:00.123Z') }, { limit: 10, offset: 0 })).count).toBe(0);
    const errors = await engine.listQueryLog(1, { status: 'error', error_code: 'query_error', kind: 'HogQLQuery' }, { limit: 10, offset: 0 });
    expect(errors.rows).toEqual([expect.objectContaining({ id: 'c', project_id: 1, is_cached: false, status: 'error', query: null, duration_ms: 1.5, result_rows: 2 })]);
    const page2 = await engine.listQueryLog(1, {}, { limit: 1, offset: 1 });
    expect(page2).toMatchObject({ count: 3, rows: [{ id: 'b' }] });
  });

  it('prunes the query log before a time, every project', async () => {
    const ids = async (p: number) => (await engine.listQueryLog(p, {}, { limit: 10, offset: 0 })).rows.map((r) => r.id);
    await engine.pruneQueryLog(new Date('2024-05-02T00:00:00.000Z'));
    expect([await ids(1), await ids(2)]).toEqual([['c', 'b'], ['x']]);
    await engine.pruneQueryLog(new Date('2024-05-04T00:00:00.000Z'));
    expect([await ids(1), await ids(2)]).toEqual([[], []]);
  });

  it('knows which projects have person overrides', () => {
    expect([engine.hasPersonOverrides?.(1), engine.hasPersonOverrides?.(2)]).toEqual([true, false]);
  });

  it('knows which projects may hold events without a person', () => {
    expect([engine.hasPersonlessEvents?.(1), engine.hasPersonlessEvents?.(2)]).toEqual([false, true]);
  });
});
