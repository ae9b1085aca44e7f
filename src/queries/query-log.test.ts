import { DuckDbEngine } from '../engines/duckdb/duckdb-engine';
import { isoNow, QueryLog } from './query-log';

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
    slow.appendQueryLog = async (rows) => {
      calls.push(rows.length);
      await busy;
      return engine.appendQueryLog(rows);
    };
    const l = new QueryLog(slow, { flushIntervalMs: 60_000, retentionDays: 0 });
    try {
      l.record({ ...base, project_id: 14, query: null });
      void l.flush(); // starts a write that waits
      for (let i = 0; i < 4500; i++) l.record({ ...base, project_id: 14, query: null }); // past FLUSH_CHUNK twice
      const all = l.flush();
      release();
      await all;
      expect(calls).toEqual([1, 4500]);
      expect((await l.list(14, {}, { limit: 1, offset: 0 })).count).toBe(4501);
    } finally {
      await l.close();
    }
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
    for (let i = 0; i < 2500; i++) log.record({ ...base, project_id: 8, query: { kind: 'ProductQLQuery', query: 'SELECT 1' } });
    const page = await log.list(8, {}, { limit: 1, offset: 0 });
    expect(page.count).toBe(2500);
  });
});

describe('isoNow', () => {
  it('is the current time as ISO 8601, the same text within one millisecond', () => {
    for (let i = 0; i < 1000; i++) {
      const before = Date.now();
      const text = isoNow();
      const after = Date.now();
      expect(text).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const t = Date.parse(text);
      expect(t).toBeGreaterThanOrEqual(before);
      expect(t).toBeLessThanOrEqual(after);
    }
  });
});
