import { Metrics } from './metrics';

/** Request and query counts are kept as plain numbers and exposed in prom-client's text format when read. */
describe('Metrics', () => {
  const line = (text: string, series: string): number | undefined => {
    const l = text.split('\n').find((x) => x.startsWith(series + ' '));
    return l === undefined ? undefined : Number(l.slice(series.length + 1));
  };

  it('counts requests by method, route and status, with a latency histogram per route', async () => {
    const m = new Metrics(() => 0);
    m.observeRequest('POST', '/api/projects/:projectId/query', 200, 0.0004);
    m.observeRequest('POST', '/api/projects/:projectId/query', 200, 0.003);
    m.observeRequest('POST', '/api/projects/:projectId/query', 400, 40);
    m.observeRequest('GET', 'unmatched', 404, 0.001);
    const text = await m.text();
    const route = 'route="/api/projects/:projectId/query"';
    expect(text).toContain('# TYPE quarry_http_requests_total counter');
    expect(text).toContain('# TYPE quarry_http_request_duration_seconds histogram');
    expect(line(text, `quarry_http_requests_total{method="POST",${route},status="200"}`)).toBe(2);
    expect(line(text, `quarry_http_requests_total{method="POST",${route},status="400"}`)).toBe(1);
    expect(line(text, 'quarry_http_requests_total{method="GET",route="unmatched",status="404"}')).toBe(1);
    // cumulative buckets; `le` is inclusive (0.001 falls in le="0.001"); 40 s is above the last finite bound
    expect(line(text, `quarry_http_request_duration_seconds_bucket{le="0.001",${route}}`)).toBe(1);
    expect(line(text, `quarry_http_request_duration_seconds_bucket{le="0.005",${route}}`)).toBe(2);
    expect(line(text, `quarry_http_request_duration_seconds_bucket{le="30",${route}}`)).toBe(2);
    expect(line(text, `quarry_http_request_duration_seconds_bucket{le="+Inf",${route}}`)).toBe(3);
    expect(line(text, `quarry_http_request_duration_seconds_count{${route}}`)).toBe(3);
    expect(line(text, `quarry_http_request_duration_seconds_sum{${route}}`)).toBeCloseTo(40.0034, 6);
    expect(line(text, 'quarry_http_request_duration_seconds_bucket{le="0.001",route="unmatched"}')).toBe(1);
  });

  it('counts queries by kind, cache outcome and status, and the hit ratio', async () => {
    const m = new Metrics(() => 7);
    m.observeQuery('TrendsQuery', false, 'ok', 0.02);
    m.observeQuery('TrendsQuery', true, 'ok', 0);
    m.observeQuery('TrendsQuery', true, 'ok', 0);
    m.observeQuery('ProductQLQuery', false, 'error', 0.01, 'query_timeout');
    const text = await m.text();
    expect(line(text, 'quarry_queries_total{kind="TrendsQuery",cache="miss",status="ok"}')).toBe(1);
    expect(line(text, 'quarry_queries_total{kind="TrendsQuery",cache="hit",status="ok"}')).toBe(2);
    expect(line(text, 'quarry_queries_total{kind="ProductQLQuery",cache="miss",status="error"}')).toBe(1);
    expect(line(text, 'quarry_query_cache_hit_ratio')).toBe(0.5);
    expect(line(text, 'quarry_engine_errors_total{code="query_timeout"}')).toBe(1);
    expect(line(text, 'quarry_ingest_lag_events')).toBe(7);
  });

  it('escapes label values as prom-client does', async () => {
    const m = new Metrics(() => 0);
    m.observeRequest('GET', '/a"b\\c', 200, 0.001);
    expect(await m.text()).toContain('quarry_http_requests_total{method="GET",route="/a\\"b\\\\c",status="200"} 1');
  });
});
