import { startServer, type TestServer } from '../helpers/server';

/** GET /metrics: Prometheus text with requests, latencies, queries by kind, cache hit ratio, ingest lag. */
describe('/metrics', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.close());

  const metric = (text: string, name: string, labels = ''): number | undefined => {
    const line = text.split('\n').find((l) => l.startsWith(name + (labels ? `{${labels}}` : '')) && !l.startsWith('#'));
    return line === undefined ? undefined : Number(line.split(' ').pop());
  };

  it('counts requests by route pattern and queries by kind and cache outcome', async () => {
    const q = { query: { kind: 'ProductQLQuery', query: 'SELECT 1' } };
    await s.api('POST', '/api/projects/1/query/', q);
    await s.api('POST', '/api/projects/1/query/', q); // a cache hit
    await s.api('GET', '/api/projects/1/');
    const r = await fetch(`${s.url}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/plain');
    const text = await r.text();
    expect(metric(text, 'quarry_http_requests_total', 'method="POST",route="/api/projects/:projectId/query",status="200"')).toBe(2);
    expect(metric(text, 'quarry_http_requests_total', 'method="GET",route="/api/projects/:projectId",status="200"')).toBe(1);
    expect(metric(text, 'quarry_queries_total', 'kind="ProductQLQuery",cache="miss",status="ok"')).toBe(1);
    expect(metric(text, 'quarry_queries_total', 'kind="ProductQLQuery",cache="hit",status="ok"')).toBe(1);
    expect(metric(text, 'quarry_query_cache_hit_ratio')).toBe(0.5);
    expect(metric(text, 'quarry_ingest_lag_events')).toBe(0);
    // DuckDB's own memory (read from duckdb_memory(); 0 for a store this small) under its 1 GB default limit
    expect(metric(text, 'quarry_engine_memory_bytes')).toBeGreaterThanOrEqual(0);
    expect(metric(text, 'quarry_engine_memory_bytes')).toBeLessThan(1024 ** 3);
    expect(text).toContain('quarry_http_request_duration_seconds_bucket');
    expect(text).toContain('quarry_process_nodejs_heap_size_used_bytes');
    // no ids or keys in labels: the route pattern, not the URL
    expect(text).not.toContain(s.key);
    expect(text).not.toMatch(/route="\/api\/projects\/1/);
  });
});
