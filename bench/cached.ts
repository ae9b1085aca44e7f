/**
 * Latency of cached answers through HTTP: the real server in a child process, 50 concurrent loopback clients
 * for a fixed time asking (1) the query operation for a ProductQL query already in the result cache and (2) a
 * published endpoint's /run whose answer is cached. Targets: p50 < 2 ms, p99 < 10 ms. Rate limits are off for
 * bench servers (they would throttle a load test by design).
 */
import fs from 'node:fs';
import path from 'node:path';
import { BENCH_DIR } from './dataset';
import { startBenchServer } from './server';

export interface CachedLatency {
  route: string;
  clients: number;
  seconds: number;
  requests: number;
  errors: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0;
}

async function hammer(url: string, init: RequestInit, clients: number, seconds: number): Promise<Omit<CachedLatency, 'route'>> {
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        const res = await fetch(url, init);
        const body = (await res.json()) as { is_cached?: boolean };
        latencies.push(performance.now() - t);
        if (res.status !== 200 || body.is_cached !== true) errors++;
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return {
    clients,
    seconds,
    requests: latencies.length,
    errors,
    requestsPerSecond: Math.round(latencies.length / seconds),
    p50Ms: Math.round(percentile(latencies, 50) * 100) / 100,
    p99Ms: Math.round(percentile(latencies, 99) * 100) / 100,
  };
}

export async function benchCached(opts: { clients: number; seconds: number }): Promise<CachedLatency[]> {
  const dataDir = path.join(BENCH_DIR, `cached-${process.pid}`);
  fs.rmSync(dataDir, { recursive: true, force: true });
  const server = await startBenchServer(dataDir);
  try {
    const headers = { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' };
    const query = JSON.stringify({ query: { kind: 'ProductQLQuery', query: "SELECT event, count() FROM events GROUP BY event ORDER BY event" } });
    const endpoint = await server.api('POST', '/api/environments/1/endpoints/', {
      name: 'bench_cached',
      query: { kind: 'ProductQLQuery', query: 'SELECT event, count() AS n FROM events WHERE event != {variables.skip} GROUP BY event' },
      variables: [{ name: 'skip', type: 'String', default: 'none' }],
    });
    if (endpoint.status !== 201) throw new Error(`creating the endpoint answered ${endpoint.status}: ${JSON.stringify(endpoint.body)}`);
    const run = JSON.stringify({ variables: { skip: 'x' } });
    // warm both caches
    await fetch(`${server.url}/api/projects/1/query/`, { method: 'POST', headers, body: query });
    await fetch(`${server.url}/api/environments/1/endpoints/bench_cached/run`, { method: 'POST', headers, body: run });
    const out: CachedLatency[] = [];
    process.stderr.write(`[bench] cached answers: ${opts.clients} clients for ${opts.seconds} s per route…\n`);
    out.push({ route: 'POST /api/projects/1/query/ (cached ProductQL)', ...(await hammer(`${server.url}/api/projects/1/query/`, { method: 'POST', headers, body: query }, opts.clients, opts.seconds)) });
    out.push({ route: 'POST …/endpoints/bench_cached/run (cached)', ...(await hammer(`${server.url}/api/environments/1/endpoints/bench_cached/run`, { method: 'POST', headers, body: run }, opts.clients, opts.seconds)) });
    return out;
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
