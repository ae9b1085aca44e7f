/**
 * Fault: ClickHouse down and back (issue #11 §7), QUARRY_EVENTS_ENGINE=clickhouse against a real server started
 * and stopped by PID on loopback (skipped locally without clickhouse-server, required with CI=true or
 * QUARRY_TEST_CLICKHOUSE=required, as the other ClickHouse tests). While it is down: queries and endpoint runs
 * answer 503 `service_unavailable` with Retry-After in the standard error body (no URL or stack), metadata reads
 * keep working, and capture keeps acknowledging into the durable log. When it is back, the acknowledged events
 * arrive exactly once and queries work again, without restarting Quarry.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { describeClickHouse, startSingle, type TestServer as ClickHouseServer } from '../../src/engines/clickhouse/test-server';
import { startServer, type TestServer } from '../helpers/server';

const run = promisify(execFile);

describeClickHouse('ClickHouse down and back', () => {
  let ch: ClickHouseServer | undefined;
  let s: TestServer | undefined;
  let token: string;
  const acked = new Set<string>();

  beforeAll(async () => {
    ch = await startSingle();
    s = await startServer({ env: { QUARRY_EVENTS_ENGINE: 'clickhouse', QUARRY_CLICKHOUSE_URL: ch.url, QUARRY_CLICKHOUSE_DATABASE: 'quarry_faults' } });
    token = (await s.api('GET', '/api/projects/1/')).body.api_token;
  }, 60_000);
  afterAll(async () => {
    await s?.close().catch(() => undefined);
    await ch?.stop();
  });

  const capture = async (n: number, tag: string) => {
    const batch = Array.from({ length: n }, (_, i) => ({ event: 'ch_fault', distinct_id: `u${i % 4}`, uuid: randomUUID(), properties: { tag } }));
    const r = await fetch(`${s!.url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: token, batch }) });
    if (r.status === 200) for (const e of batch) acked.add(e.uuid);
    return r.status;
  };
  const uuids = () =>
    s!.api('POST', '/api/projects/1/query/', {
      query: { kind: 'HogQLQuery', query: "SELECT toString(uuid) FROM events WHERE event = 'ch_fault' LIMIT 50000" },
      refresh: 'force_blocking',
    });
  const trends = () =>
    s!.api('POST', '/api/projects/1/query/', {
      query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'ch_fault' }], dateRange: { date_from: '-1d' } },
      refresh: 'force_blocking',
    });
  const runEndpoint = () => s!.api('POST', '/api/environments/1/endpoints/ch_fault_count/run', { refresh: 'force' });
  const waitFor = async (n: number, ms: number) => {
    const until = Date.now() + ms;
    for (;;) {
      const r = await uuids();
      if ((r.status === 200 && r.body.results.length >= n) || Date.now() > until) return r;
      await new Promise((res) => setTimeout(res, 200));
    }
  };

  it('503 for queries while down, capture still acknowledged, everything arrives when ClickHouse is back', async () => {
    expect(await capture(30, 'before')).toBe(200);
    expect((await waitFor(30, 10_000)).body.results).toHaveLength(30);
    const ep = await s!.api('POST', '/api/environments/1/endpoints/', {
      name: 'ch_fault_count',
      query: { kind: 'HogQLQuery', query: "SELECT count() AS n FROM events WHERE event = 'ch_fault'" },
    });
    expect(ep.status).toBe(201);
    expect((await runEndpoint()).status).toBe(200);

    // Down (stopped by PID; its data dir is kept for the restart).
    await run('bash', ['.ci/clickhouse', 'stop', String(ch!.pids[0])]);
    ch!.pids.length = 0;

    for (let i = 0; i < 3; i++) expect(await capture(20, 'while_down')).toBe(200);
    for (const r of [await uuids(), await trends(), await runEndpoint()]) {
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toBe('5');
      expect(r.body).toEqual({
        type: 'server_error',
        code: 'service_unavailable',
        detail: 'The event store is unavailable (ClickHouse I/O error: the server does not answer). Retry later.',
        attr: null,
      });
    }
    // Metadata and health do not depend on the event engine.
    expect((await s!.api('GET', '/healthz')).status).toBe(200);
    expect((await s!.api('GET', '/api/environments/1/endpoints/')).body.count).toBe(1);
    expect((await s!.api('POST', '/api/projects/1/insights/', { name: 'while down', query: { kind: 'HogQLQuery', query: 'SELECT 1' } })).status).toBe(201);
    expect(s!.server.services.ingestor.pendingEvents).toBeGreaterThan(0);

    // Back on the same port and data dir: the log catches up, queries work, nothing is duplicated.
    const { stdout } = await run('bash', ['.ci/clickhouse', 'start-single', new URL(ch!.url).port, ch!.dir]);
    ch!.pids.push(Number(stdout.trim()));
    const after = await waitFor(acked.size, 30_000);
    expect(after.status).toBe(200);
    const got: string[] = after.body.results.map((x: string[]) => x[0].toLowerCase());
    expect(got.length).toBe(new Set(got).size);
    expect(new Set(got)).toEqual(acked);
    // The events are visible once their insert lands; the batch counts as applied a moment later (checkpoint row).
    for (const until = Date.now() + 10_000; s!.server.services.ingestor.pendingEvents > 0 && Date.now() < until; ) await new Promise((res) => setTimeout(res, 50));
    expect(s!.server.services.ingestor.pendingEvents).toBe(0);
    const t = await trends();
    expect(t.status).toBe(200);
    expect(t.body.results[0].count).toBe(acked.size);
    const e = await runEndpoint();
    expect(e.status).toBe(200);
    expect(e.body.results).toEqual([[acked.size]]);
    expect(await capture(10, 'after')).toBe(200);
    expect((await waitFor(acked.size, 10_000)).body.results).toHaveLength(acked.size);
  }, 60_000);
});
