/**
 * The Quarry server with QUARRY_EVENTS_ENGINE=clickhouse against a real ClickHouse (single node, temp dir,
 * loopback): capture through the durable log into ClickHouse, ProductQL and a trends insight over HTTP, the query
 * log, a clear start error when ClickHouse is unreachable, and catching up after ClickHouse was down.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describeClickHouse, startSingle, type TestServer as ClickHouseServer } from '../../src/engines/clickhouse/test-server';
import { startServer, type TestServer } from '../helpers/server';

const run = promisify(execFile);

describe('QUARRY_EVENTS_ENGINE=clickhouse without a server', () => {
  it('refuses to start with a clear error', async () => {
    await expect(startServer({ env: { QUARRY_EVENTS_ENGINE: 'clickhouse', QUARRY_CLICKHOUSE_URL: 'http://127.0.0.1:1' } })).rejects.toThrow(
      /ClickHouse is unreachable at http:\/\/127\.0\.0\.1:1/,
    );
  });
});

describeClickHouse('Quarry on ClickHouse', () => {
  let ch: ClickHouseServer;
  let s: TestServer;
  beforeAll(async () => {
    ch = await startSingle();
    s = await startServer({ env: { QUARRY_EVENTS_ENGINE: 'clickhouse', QUARRY_CLICKHOUSE_URL: ch.url, QUARRY_CLICKHOUSE_DATABASE: 'quarry_it' } });
  });
  afterAll(async () => {
    await s?.close();
    await ch?.stop();
  });

  const capture = async (events: { event: string; distinct_id: string; timestamp?: string; properties?: Record<string, unknown> }[]) => {
    const token = (await s.api('GET', '/api/projects/1/')).body.api_token;
    const r = await fetch(`${s.url}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: token, batch: events }),
    });
    expect(r.status).toBe(200);
  };
  const hogql = async (query: string) => s.api('POST', '/api/projects/1/query/', { query: { kind: 'ProductQLQuery', query } });

  it('captures into ClickHouse and answers ProductQL', async () => {
    await capture([
      { event: '$pageview', distinct_id: 'a', timestamp: '2024-05-01T10:00:00.250Z', properties: { $browser: 'Chrome' } },
      { event: '$pageview', distinct_id: 'b', timestamp: '2024-05-01T10:00:00.125Z', properties: { $browser: 'Safari' } },
      { event: 'signup', distinct_id: 'a', timestamp: '2024-05-02T09:00:00Z', properties: { plan: 'pro' } },
    ]);
    await s.server.services.ingestor.flush();
    const r = await hogql('SELECT event, properties.$browser, timestamp FROM events ORDER BY timestamp');
    expect(r.status).toBe(200);
    expect(r.body.results).toEqual([
      ['$pageview', 'Safari', '2024-05-01T10:00:00.125000Z'],
      ['$pageview', 'Chrome', '2024-05-01T10:00:00.250000Z'],
      ['signup', null, '2024-05-02T09:00:00Z'],
    ]);
    const people = await hogql('SELECT count(DISTINCT person_id), count() FROM events');
    expect(people.body.results).toEqual([[2, 3]]);
  });

  it('answers a trends insight', async () => {
    const r = await s.api('POST', '/api/projects/1/query/', {
      query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '2024-04-30', date_to: '2024-05-03' } },
    });
    expect(r.status).toBe(200);
    const series = r.body.results[0];
    expect(series.count).toBe(2);
  });

  it('keeps a query log in ClickHouse', async () => {
    const r = await s.api('GET', '/api/projects/1/query_log');
    expect(r.status).toBe(200);
    expect(r.body.count).toBeGreaterThanOrEqual(2);
    expect(r.body.results[0]).toMatchObject({ project_id: 1, status: expect.any(String), is_cached: expect.any(Boolean) });
  });

  it('acknowledges capture while ClickHouse is down and catches up when it is back', async () => {
    const port = new URL(ch.url).port;
    await run('bash', ['.ci/clickhouse', 'stop', String(ch.pids[0])]);
    await capture([{ event: 'while_down', distinct_id: 'c' }]);
    await new Promise((r) => setTimeout(r, 600)); // a few failed applies
    expect(s.server.services.ingestor.pendingEvents).toBeGreaterThan(0);
    const { stdout } = await run('bash', ['.ci/clickhouse', 'start-single', port, ch.dir]);
    ch.pids[0] = Number(stdout.trim());
    for (let i = 0; i < 100 && s.server.services.ingestor.pendingEvents > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(s.server.services.ingestor.pendingEvents).toBe(0);
    const r = await hogql("SELECT count() FROM events WHERE event = 'while_down'");
    expect(r.body.results).toEqual([[1]]);
  });
});
