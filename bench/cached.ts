/**
 * Latency of cached answers through HTTP: the real server in a child process, and the load generator,
 * autocannon (pinned devDependency), in another child process, so neither runs on the other's event loop. 50
 * keep-alive connections for a fixed time ask (1) the query operation for a ProductQL query already in the result
 * cache and (2) a published endpoint's /run whose answer is cached. Targets: p50 < 2 ms, p99 < 10 ms.
 *
 * Conditions to keep in mind when reading the figures: the server and autocannon share the machine (on the
 * 2-core reference machine, one core each at best); autocannon records latencies in whole milliseconds, floored
 * (p50 = 1 means 1.000–1.999 ms). With 50 closed-loop connections the latency is about 50 / throughput (Little's
 * law): p50 < 2 ms takes more than 25,000 answers per second, about what one autocannon process can drive against
 * /healthz on that machine. Because the latencies depend on the machine's other load, each route also reports the
 * server's CPU time per answer (all threads, from /proc), the figure to compare builds by. Rate limits are off for bench servers (they would throttle a load test by design), and
 * the log level is `warn` (no request lines). Each route gets a warm-up run that is not counted.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BENCH_DIR } from './dataset';
import { startBenchServer, type BenchServer } from './server';

export interface CachedLatency {
  route: string;
  tool: string;
  clients: number;
  seconds: number;
  requests: number;
  /** Non-2xx answers, socket errors and timeouts, plus a final answer that was not `is_cached`. */
  errors: number;
  requestsPerSecond: number;
  /** Whole milliseconds, floored (autocannon's histogram resolution). */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Mean latency (fractional ms). */
  meanMs: number;
  /**
   * CPU time the server process spent (all its threads, user + system, from /proc) per answer during the counted
   * run, in microseconds; null where /proc is unavailable. Unlike the latencies, it hardly depends on what else the
   * machine is running: compare builds by it.
   */
  serverCpuUsPerRequest: number | null;
}

/** User + system CPU seconds of a process so far (/proc/<pid>/stat), null where unavailable. */
function cpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/** USER_HZ: 100 on Linux everywhere that matters. */
const CLOCK_TICKS = 100;

interface AutocannonJson {
  latency: { p50: number; p99: number; max: number; average: number; totalCount: number };
  requests: { total: number; average: number };
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
}

const AUTOCANNON = require.resolve('autocannon');
const AUTOCANNON_VERSION = (require('autocannon/package.json') as { version: string }).version;

/** Runs autocannon's CLI in its own process and returns its JSON summary. */
function autocannon(args: string[]): Promise<AutocannonJson> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [AUTOCANNON, '--json', ...args], { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`autocannon failed: ${err.message}\n${stderr}`));
      try {
        resolve(JSON.parse(stdout) as AutocannonJson);
      } catch {
        reject(new Error(`autocannon printed no JSON:\n${stdout.slice(0, 2000)}\n${stderr.slice(0, 2000)}`));
      }
    });
  });
}

async function hammer(
  server: BenchServer,
  route: string,
  urlPath: string,
  body: string,
  opts: { clients: number; seconds: number; warmupSeconds: number },
): Promise<CachedLatency> {
  const url = server.url + urlPath;
  const args = ['-m', 'POST', '-H', `authorization=Bearer ${server.key}`, '-H', 'content-type=application/json', '-b', body];
  if (opts.warmupSeconds > 0) await autocannon([...args, '-c', String(opts.clients), '-d', String(opts.warmupSeconds), url]);
  const cpu0 = cpuSeconds(server.child.pid);
  const r = await autocannon([...args, '-c', String(opts.clients), '-d', String(opts.seconds), url]);
  const cpu1 = cpuSeconds(server.child.pid);
  // The load generator does not read bodies: check one answer afterwards.
  const check = await server.api('POST', urlPath, JSON.parse(body));
  const cached = check.status === 200 && (check.body as { is_cached?: unknown }).is_cached === true;
  return {
    route,
    tool: `autocannon ${AUTOCANNON_VERSION} (separate process)`,
    clients: opts.clients,
    seconds: opts.seconds,
    requests: r.latency.totalCount,
    errors: r.errors + r.timeouts + r.non2xx + (cached ? 0 : 1),
    requestsPerSecond: Math.round(r.latency.totalCount / (r.duration || opts.seconds)),
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    maxMs: r.latency.max,
    meanMs: Math.round(r.latency.average * 100) / 100,
    serverCpuUsPerRequest:
      cpu0 !== null && cpu1 !== null && r.latency.totalCount > 0 ? Math.round(((cpu1 - cpu0) / r.latency.totalCount) * 1e7) / 10 : null,
  };
}

export async function benchCached(opts: { clients: number; seconds: number; warmupSeconds?: number }): Promise<CachedLatency[]> {
  const dataDir = path.join(BENCH_DIR, `cached-${process.pid}`);
  fs.rmSync(dataDir, { recursive: true, force: true });
  const server = await startBenchServer(dataDir);
  try {
    const query = JSON.stringify({ query: { kind: 'ProductQLQuery', query: 'SELECT event, count() FROM events GROUP BY event ORDER BY event' } });
    const endpoint = await server.api('POST', '/api/environments/1/endpoints/', {
      name: 'bench_cached',
      query: { kind: 'ProductQLQuery', query: 'SELECT event, count() AS n FROM events WHERE event != {variables.skip} GROUP BY event' },
      variables: [{ name: 'skip', type: 'String', default: 'none' }],
    });
    if (endpoint.status !== 201) throw new Error(`creating the endpoint answered ${endpoint.status}: ${JSON.stringify(endpoint.body)}`);
    const run = JSON.stringify({ variables: { skip: 'x' } });
    // fill both caches
    for (const [p, b] of [
      ['/api/projects/1/query/', query],
      ['/api/environments/1/endpoints/bench_cached/run', run],
    ]) {
      const res = await server.api('POST', p, JSON.parse(b));
      if (res.status !== 200) throw new Error(`${p} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
    }
    const o = { clients: opts.clients, seconds: opts.seconds, warmupSeconds: opts.warmupSeconds ?? 2 };
    process.stderr.write(`[bench] cached answers: autocannon ${AUTOCANNON_VERSION}, ${o.clients} connections for ${o.seconds} s per route (+${o.warmupSeconds} s warm-up)…\n`);
    const out = [
      await hammer(server, 'POST /api/projects/1/query/ (cached ProductQL)', '/api/projects/1/query/', query, o),
      await hammer(server, 'POST …/endpoints/bench_cached/run (cached)', '/api/environments/1/endpoints/bench_cached/run', run, o),
    ];
    for (const r of out) process.stderr.write(`[bench] ${r.route}: server CPU ${r.serverCpuUsPerRequest ?? '?'} µs per answer\n`);
    return out;
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
