import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDbEngine } from '../engines/duckdb/duckdb-engine';
import type { EventEngine, QueryLogRecord } from '../engines/engine';
import { FLUSH_ROWS, QueryLog } from './query-log';

/** The DuckDB write path appends a batch a data chunk at a time: every field must come back as it went in. */
describe('QueryLog on DuckDB', () => {
  let engine: DuckDbEngine;
  let log: QueryLog;
  beforeAll(async () => {
    engine = await DuckDbEngine.open(':memory:');
    log = new QueryLog(engine, { flushIntervalMs: 60_000, retentionDays: 0 });
  });
  afterAll(async () => {
    await log.close();
    await engine.close();
  });

  const base = {
    project_id: 7,
    query_id: null,
    principal: 'user:1/key:k',
    kind: 'ProductQLQuery',
    name: null,
    query_hash: 'cache_abc',
    duration_ms: 0,
    result_rows: null,
    result_bytes: null,
    is_cached: true,
    status: 'ok' as const,
    error_code: null,
  };

  it('round-trips awkward values: quotes, unicode, nulls, fractions, times, the query node', async () => {
    const when = new Date('2026-01-02T03:04:05.678Z');
    const node = { kind: 'ProductQLQuery', query: `SELECT '"\\\\ é 🎉\n' AS x`, variables: { a: [1, null, true] } };
    log.record({ ...base, query: node, query_id: 'q-1', name: 'n "quoted"', duration_ms: 12.345, result_rows: 3, is_cached: false, event_time: when });
    log.record({ ...base, query: null, status: 'error', error_code: 'query_error', event_time: new Date(when.getTime() + 1) });
    const page = await log.list(7, {}, { limit: 10, offset: 0 });
    expect(page.count).toBe(2);
    const [second, first] = page.results;
    expect(first).toMatchObject({
      project_id: 7,
      query_id: 'q-1',
      principal: 'user:1/key:k',
      kind: 'ProductQLQuery',
      name: 'n "quoted"',
      query_hash: 'cache_abc',
      duration_ms: 12.345,
      result_rows: 3,
      result_bytes: null,
      is_cached: false,
      status: 'ok',
      error_code: null,
    });
    expect(new Date(first.event_time as unknown as string).getTime()).toBe(when.getTime());
    const q = typeof first.query === 'string' ? JSON.parse(first.query) : first.query;
    expect(q).toEqual(node);
    expect(first.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(second).toMatchObject({ status: 'error', error_code: 'query_error', is_cached: true, name: null, query_id: null });
  });

  it('a lone surrogate becomes U+FFFD; counts past 2^31 and result bytes survive; one node shared by many rows', async () => {
    const node = { kind: 'ProductQLQuery', query: "SELECT 'bad \ud800 half'" };
    log.record({ ...base, project_id: 10, query: node, name: 'x\udc00y', result_rows: 3_000_000_000, result_bytes: 2 ** 40 });
    for (let i = 0; i < 2100; i++) log.record({ ...base, project_id: 11, query: node, duration_ms: i }); // spans two chunks
    const [row] = (await log.list(10, {}, { limit: 1, offset: 0 })).results;
    expect(row).toMatchObject({ name: 'x\ufffdy', result_rows: 3_000_000_000, result_bytes: 2 ** 40 });
    const q = typeof row.query === 'string' ? JSON.parse(row.query) : row.query;
    expect(q).toEqual({ ...node, query: "SELECT 'bad \ufffd half'" });
    const page = await log.list(11, {}, { limit: 2100, offset: 0 });
    expect(page.count).toBe(2100);
    expect(new Set(page.results.map((r) => r.duration_ms)).size).toBe(2100);
    expect(page.results.every((r) => JSON.stringify(typeof r.query === 'string' ? JSON.parse(r.query) : r.query) === JSON.stringify(q))).toBe(true);
  });

  it('prunes rows older than the retention, every project, and keeps the rest', async () => {
    const pruning = new QueryLog(engine, { flushIntervalMs: 60_000, retentionDays: 7 });
    try {
      const now = new Date('2026-06-10T12:00:00Z');
      const at = (daysAgo: number) => new Date(now.getTime() - daysAgo * 86_400_000);
      for (const [project, daysAgo] of [[12, 8], [12, 6.9], [13, 30], [13, 0]] as const) pruning.record({ ...base, project_id: project, query: null, event_time: at(daysAgo) });
      await pruning.flush();
      await pruning.prune(now);
      const left = async (p: number) => (await pruning.list(p, {}, { limit: 10, offset: 0 })).results.map((r) => new Date(r.event_time as unknown as string).getTime());
      expect(await left(12)).toEqual([at(6.9).getTime()]);
      expect(await left(13)).toEqual([at(0).getTime()]);
    } finally {
      await pruning.close();
    }
  });

  it('a write that waits (engine busy) is followed by one write of all that was buffered meanwhile', async () => {
    const calls: number[] = [];
    let release!: () => void;
    const busy = new Promise<void>((resolve) => (release = resolve));
    const slow = Object.create(engine) as DuckDbEngine;
    slow.appendQueryLogBatch = async (batch) => {
      calls.push(batch.length);
      await busy;
      return engine.appendQueryLogBatch(batch);
    };
    const l = new QueryLog(slow, { flushIntervalMs: 60_000, retentionDays: 0 });
    try {
      l.record({ ...base, project_id: 14, query: null });
      void l.flush(); // starts a write that waits
      for (let i = 0; i < 2 * FLUSH_ROWS + 10; i++) l.record({ ...base, project_id: 14, query: null }); // past FLUSH_ROWS twice
      const all = l.flush();
      release();
      await all;
      expect(calls).toEqual([1, 2 * FLUSH_ROWS + 10]);
      expect((await l.list(14, {}, { limit: 1, offset: 0 })).count).toBe(2 * FLUSH_ROWS + 11);
    } finally {
      await l.close();
    }
  });

  it('answers of one shape are rows of their own (own ids, times, durations); another project sees none of them', async () => {
    const shape = { ...base, project_id: 15, query: { kind: 'ProductQLQuery', query: 'SELECT 1' }, result_rows: 1 };
    const t0 = Date.parse('2026-03-01T00:00:00.000Z');
    for (let i = 0; i < 5; i++) log.recordShape(shape, i / 4, t0 + i);
    log.recordShape({ ...shape, project_id: 16 }, 0, t0);
    const page = await log.list(15, {}, { limit: 10, offset: 0 }); // read right after the writes: sees them all
    expect(page.count).toBe(5);
    expect(new Set(page.results.map((r) => r.id)).size).toBe(5);
    expect(page.results.map((r) => [new Date(r.event_time as unknown as string).getTime() - t0, r.duration_ms])).toEqual([
      [4, 1],
      [3, 0.75],
      [2, 0.5],
      [1, 0.25],
      [0, 0],
    ]);
    expect(page.results.every((r) => r.project_id === 15 && r.result_rows === 1 && r.is_cached === true)).toBe(true);
    expect((await log.list(16, {}, { limit: 10, offset: 0 })).count).toBe(1);
    expect((await log.list(17, {}, { limit: 10, offset: 0 })).count).toBe(0);
  });

  it('stamps an entry without event_time with the current time', async () => {
    const before = Date.now();
    log.record({ ...base, project_id: 9, query: null });
    const after = Date.now();
    const page = await log.list(9, {}, { limit: 1, offset: 0 });
    const t = new Date(page.results[0].event_time as unknown as string).getTime();
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(after);
  });

  it('writes a full buffer without waiting for the interval', async () => {
    const written: number[] = [];
    const spy = Object.create(engine) as DuckDbEngine;
    spy.appendQueryLogBatch = (batch) => {
      written.push(batch.length);
      return engine.appendQueryLogBatch(batch);
    };
    const l = new QueryLog(spy, { flushIntervalMs: 60_000, retentionDays: 0 });
    try {
      for (let i = 0; i < FLUSH_ROWS - 1; i++) l.record({ ...base, project_id: 8, query: { kind: 'ProductQLQuery', query: 'SELECT 1' } });
      expect(written).toEqual([]);
      l.record({ ...base, project_id: 8, query: { kind: 'ProductQLQuery', query: 'SELECT 1' } });
      expect(written).toEqual([FLUSH_ROWS]); // started by the row that filled the buffer
      const page = await l.list(8, {}, { limit: 1, offset: 0 });
      expect(page.count).toBe(FLUSH_ROWS);
    } finally {
      await l.close();
    }
  });
});

describe('QueryLog shutdown and other engines', () => {
  const base = {
    project_id: 1,
    query_id: 'q',
    principal: 'project:1/secret:s',
    kind: 'TrendsQuery',
    name: 'endpoint:x',
    query_hash: 'cache_def',
    query: { kind: 'TrendsQuery' },
    result_rows: 2,
    result_bytes: null,
    is_cached: true,
    status: 'ok' as const,
    error_code: null,
  };

  it('close() writes what is buffered: the rows are in the file after a reopen', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-qlog-'));
    try {
      const file = path.join(dir, 'events.duckdb');
      let engine = await DuckDbEngine.open(file);
      const l = new QueryLog(engine, { flushIntervalMs: 60_000, retentionDays: 0 });
      for (let i = 0; i < 3; i++) l.recordShape(base, 0);
      await l.close();
      await engine.close();
      engine = await DuckDbEngine.open(file);
      try {
        const { count, rows } = await engine.listQueryLog(1, {}, { limit: 10, offset: 0 });
        expect(count).toBe(3);
        expect(rows[0]).toMatchObject({ query_id: 'q', principal: 'project:1/secret:s', name: 'endpoint:x', result_rows: 2, is_cached: true });
      } finally {
        await engine.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an engine without a batch writer gets records, each with its own id and time', async () => {
    const got: QueryLogRecord[] = [];
    const fake = { appendQueryLog: async (rows: readonly QueryLogRecord[]) => void got.push(...rows), pruneQueryLog: async () => undefined };
    const l = new QueryLog(fake as unknown as EventEngine, { flushIntervalMs: 60_000, retentionDays: 0 });
    const t0 = Date.parse('2026-03-01T00:00:00.000Z');
    l.recordShape(base, 1.5, t0);
    l.recordShape(base, 0, t0 + 1);
    await l.close();
    expect(got).toHaveLength(2);
    expect(got[0]).toEqual({ ...base, id: expect.stringMatching(/^[0-9a-f-]{36}$/), event_time: '2026-03-01T00:00:00.000Z', duration_ms: 1.5 });
    expect(got[1].event_time).toBe('2026-03-01T00:00:00.001Z');
    expect(got[0].id).not.toBe(got[1].id);
  });
});
