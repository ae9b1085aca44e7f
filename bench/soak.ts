/**
 * Load and soak (issue #11 §5): the real server in a child process (bench/server.ts), this process as the load
 * generator, on loopback. `clients` concurrent closed-loop clients (no think time) run a mixed workload for
 * `seconds` (joining evenly over the first min(10 s, 10%) of it), each picking its next request by weight from a
 * seeded generator:
 *
 *   capture      POST /batch/ (10 events, project 1)                                              35%
 *   query        ProductQL, project 2 (static data: answered from the result cache)               10%
 *                ProductQL, project 1 (live capture; refresh force_blocking: always computed)      5%
 *                TrendsQuery, project 2 (cached)                                                    8%
 *                TrendsQuery, project 1 (blocking: computed whenever new events made it stale)     4%
 *   endpoint     run, project 2 (cached answer) 8%; run, project 1 with refresh "force" 4%
 *   insight CRUD the client's own insight, in a cycle create → update → list → delete             26%
 *
 * Reported: throughput, per-route count / errors / p50 / p99 / max (and the share answered from cache), the error
 * count (any non-2xx — 429 included —, socket error or timeout; must be 0; the first samples are kept), and the
 * server's RSS sampled every second from /proc (first / last / max, and a least-squares slope over the run after
 * its first 10%). Rate limits are OFF on the server (QUARRY_RATE_LIMIT_ENABLED=false): the per-key limits would
 * throttle 200 clients on one key by design. Bounded: stops after `seconds` (clients finish their request in
 * flight, each bounded by a 60 s timeout) or `maxRequests`, whichever first; then checks that every acknowledged
 * event was stored and stops the server (SIGTERM, timed).
 */
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { BENCH_DIR } from './dataset';
import { startBenchServer, type BenchServer } from './server';

export interface SoakOptions {
  seconds: number;
  clients: number;
  /** Events loaded into each project before the run. Default 20,000. */
  preloadEvents?: number;
  /** Hard cap on requests. Default 20,000,000 (the time bound comes first). */
  maxRequests?: number;
  /** Per-request timeout. Default 60 s (the server's query timeout). */
  requestTimeoutMs?: number;
  seed?: number;
}

export interface SoakRoute {
  route: string;
  requests: number;
  errors: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** When the slowest request of the route started (seconds into the run): a stall shows as one second across routes. */
  maxAtSecond: number;
  /** Share of 200 answers with `is_cached: true` (query and endpoint routes only). */
  cachedShare?: number;
}

export interface SoakResult {
  seconds: number;
  clients: number;
  rateLimits: string;
  requests: number;
  requestsPerSecond: number;
  errors: number;
  errorSamples: { route: string; status: number | string; detail: string; atSecond: number }[];
  routes: SoakRoute[];
  eventsAcked: number;
  /** Acknowledged events of the run found in the store after it (must equal eventsAcked). */
  eventsStored: number | null;
  /** Stored events minus distinct uuids (must be 0). */
  eventsDuplicated: number | null;
  rss: {
    intervalMs: number;
    /** [second since the load started, MB]; downsampled to at most 120 points. */
    samples: [number, number][];
    baselineMB: number | null;
    firstMB: number | null;
    lastMB: number | null;
    maxMB: number | null;
    /** Least-squares slope of RSS over the run after its first 10%, MB per minute. */
    slopeMBPerMin: number | null;
    /** Same over the second half of the run. */
    slopeSecondHalfMBPerMin: number | null;
  };
  /**
   * Where RSS goes, from the server's /metrics every 10 s: the V8 heap in use after GC pressure (a JS leak shows
   * here) and the event engine's own memory (DuckDB's buffer manager: cached blocks of a growing table, bounded
   * by its memory limit). [second, MB] samples; slopes in MB/min over the second half.
   */
  memory: {
    heapUsed: [number, number][];
    engine: [number, number][];
    heapSlopeSecondHalfMBPerMin: number | null;
    engineSlopeSecondHalfMBPerMin: number | null;
  };
  /**
   * The load generator's own event-loop delay (p99 / max ms): when it is small, the latencies above are the
   * server's; when it is large, the generator was starved (a busy machine) and the figures are not.
   */
  generatorLoopDelay: { p99Ms: number; maxMs: number };
  /** The server's event-loop delay since its start (p99 / max ms, from its /metrics), null when unavailable. */
  serverLoopDelay: { p99Ms: number; maxMs: number } | null;
  /** The slowest requests: [route, start second, ms] (a stall shows as many routes at the same second). */
  slowest: [string, number, number][];
  dataDirMB: number;
  shutdownSeconds: number;
  serverExitCode: number | null;
}

function rssOf(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function uuid4(rnd: () => number): string {
  const h = Array.from({ length: 32 }, () => Math.floor(rnd() * 16).toString(16));
  h[12] = '4';
  h[16] = ((parseInt(h[16], 16) & 3) | 8).toString(16);
  const s = h.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function slope(points: [number, number][]): number | null {
  if (points.length < 3) return null;
  const n = points.length;
  const mx = points.reduce((a, p) => a + p[0], 0) / n;
  const my = points.reduce((a, p) => a + p[1], 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? null : Math.round((num / den) * 60 * 100) / 100;
}

function dirMB(dir: string): number {
  let n = 0;
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else n += fs.statSync(p).size;
    }
  };
  try {
    walk(dir);
  } catch {
    /* removed meanwhile */
  }
  return Math.round(n / 2 ** 20);
}

/** Latencies of one route, in a growable Float64Array (a 10-minute run makes ~10⁶ samples). */
class Samples {
  private buf = new Float64Array(1024);
  n = 0;
  errors = 0;
  cached = 0;
  ok = 0;
  max = 0;
  maxAt = 0;
  add(ms: number, startedAtSecond = 0): void {
    if (ms > this.max) {
      this.max = ms;
      this.maxAt = startedAtSecond;
    }
    if (this.n === this.buf.length) {
      const b = new Float64Array(this.buf.length * 2);
      b.set(this.buf);
      this.buf = b;
    }
    this.buf[this.n++] = ms;
  }
  sorted(): Float64Array {
    return this.buf.slice(0, this.n).sort();
  }
}

type Op =
  | 'capture'
  | 'pql_cached'
  | 'pql_uncached'
  | 'trends_cached'
  | 'trends_live'
  | 'endpoint_cached'
  | 'endpoint_uncached'
  | 'insight_crud';

const WEIGHTS: [Op, number][] = [
  ['capture', 35],
  ['pql_cached', 10],
  ['pql_uncached', 5],
  ['trends_cached', 8],
  ['trends_live', 4],
  ['endpoint_cached', 8],
  ['endpoint_uncached', 4],
  ['insight_crud', 26],
];

const ROUTES = {
  capture: 'POST /batch/ (10 events)',
  pql_cached: 'POST query: ProductQL, cached (project 2)',
  pql_uncached: 'POST query: ProductQL, force_blocking (project 1)',
  trends_cached: 'POST query: TrendsQuery, cached (project 2)',
  trends_live: 'POST query: TrendsQuery, blocking (project 1, live)',
  endpoint_cached: 'POST endpoint run, cached (project 2)',
  endpoint_uncached: 'POST endpoint run, refresh force (project 1)',
  create: 'POST insights/ (create)',
  update: 'PATCH insights/<id>/ (update)',
  list: 'GET insights/?limit=20 (list)',
  delete: 'DELETE insights/<id>/',
} as const;
type RouteKey = keyof typeof ROUTES;

const PQL = 'SELECT event, count() AS n, count(DISTINCT person_id) AS persons FROM events GROUP BY event ORDER BY event';
const trendsNode = (event: string) => ({
  kind: 'TrendsQuery',
  series: [{ kind: 'EventsNode', event, math: 'dau' }],
  dateRange: { date_from: '-7d' },
  interval: 'day',
});
const EVENTS = ['$pageview', 'signup', 'purchase', 'feature_used'];

export async function benchSoak(opts: SoakOptions): Promise<SoakResult> {
  const seconds = opts.seconds;
  const clients = opts.clients;
  const preload = opts.preloadEvents ?? 20_000;
  const maxRequests = opts.maxRequests ?? 20_000_000;
  const timeoutMs = opts.requestTimeoutMs ?? 60_000;
  const dataDir = path.join(BENCH_DIR, `soak-${process.pid}`);
  fs.rmSync(dataDir, { recursive: true, force: true });
  const server = await startBenchServer(dataDir, { env: { QUARRY_RATE_LIMIT_ENABLED: 'false', QUARRY_LOG_LEVEL: 'warn' } });
  const pid = server.child.pid!;
  try {
    const setup = await soakSetup(server, preload);
    const baselineMB = rssOf(pid);
    process.stderr.write(
      `[bench] soak: ${clients} clients for ${seconds} s (mixed workload; rate limits off), server pid ${pid}, RSS ${Math.round(baselineMB ?? 0)} MB after setup…\n`,
    );

    const stats = new Map<RouteKey, Samples>(Object.keys(ROUTES).map((k) => [k as RouteKey, new Samples()]));
    const errorSamples: SoakResult['errorSamples'] = [];
    const acked: string[] = [];
    let requests = 0;
    const rampMs = Math.min(10, seconds / 10) * 1000;
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const slowest: [string, number, number][] = [];
    const t0 = Date.now();
    const deadline = t0 + seconds * 1000;
    const rss: [number, number][] = [];
    const sampler = setInterval(() => {
      const r = rssOf(pid);
      if (r !== null) rss.push([(Date.now() - t0) / 1000, Math.round(r * 10) / 10]);
    }, 1000);
    sampler.unref();
    const heapUsed: [number, number][] = [];
    const engineMem: [number, number][] = [];
    const memSampler = setInterval(() => {
      const at = (Date.now() - t0) / 1000;
      fetch(`${server.url}/metrics`, { signal: AbortSignal.timeout(5_000) })
        .then((r) => r.text())
        .then((m) => {
          const read = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(m)?.[1]);
          const heap = read('quarry_process_nodejs_heap_size_used_bytes');
          const engine = read('quarry_engine_memory_bytes');
          if (Number.isFinite(heap)) heapUsed.push([at, Math.round(heap / 1024 / 102.4) / 10]);
          if (Number.isFinite(engine)) engineMem.push([at, Math.round(engine / 1024 / 102.4) / 10]);
        })
        .catch(() => undefined);
    }, 10_000);
    memSampler.unref();
    const progress = setInterval(() => {
      const now = Date.now();
      let errs = 0;
      for (const s of stats.values()) errs += s.errors;
      process.stderr.write(
        `[bench] soak ${Math.round((now - t0) / 1000)}/${seconds} s: ${requests} requests (${Math.round(requests / ((now - t0) / 1000))}/s), ${errs} errors, RSS ${rss.at(-1)?.[1] ?? '?'} MB\n`,
      );
    }, 30_000);
    progress.unref();

    const headers = { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' };
    const call = async (
      key: RouteKey,
      method: string,
      p: string,
      body: unknown,
      expect: number,
      auth = true,
    ): Promise<{ ok: boolean; json: any }> => {
      const s = stats.get(key)!;
      const started = performance.now();
      let status: number | string = 'network';
      let text = '';
      try {
        const res = await fetch(server.url + p, {
          method,
          headers: auth ? headers : { 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(timeoutMs),
        });
        status = res.status;
        text = await res.text();
      } catch (e) {
        status = (e as Error).name === 'TimeoutError' ? 'timeout' : 'network';
        text = (e as Error).message;
      }
      requests++;
      const ms = performance.now() - started;
      s.add(ms, Math.round((Date.now() - ms - t0) / 100) / 10);
      if (slowest.length < 10 || ms > slowest[slowest.length - 1][2]) {
        slowest.push([ROUTES[key], Math.round((Date.now() - ms - t0) / 100) / 10, Math.round(ms)]);
        slowest.sort((a, b) => b[2] - a[2]);
        if (slowest.length > 10) slowest.pop();
      }
      if (status !== expect) {
        s.errors++;
        if (errorSamples.length < 20)
          errorSamples.push({ route: ROUTES[key], status, detail: text.slice(0, 300), atSecond: Math.round((Date.now() - t0) / 1000) });
        return { ok: false, json: undefined };
      }
      s.ok++;
      let json: any;
      if (text && text[0] === '{') {
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
      }
      if (json && json.is_cached === true) s.cached++;
      return { ok: true, json };
    };

    const client = async (c: number) => {
      // Clients join over the ramp (not all 200 connections in the same millisecond); all latencies count.
      await new Promise((r) => setTimeout(r, (c * rampMs) / clients));
      const rnd = mulberry32((opts.seed ?? 42) * 1000 + c);
      const total = WEIGHTS.reduce((a, w) => a + w[1], 0);
      let insight: number | null = null;
      let crudStep = 0;
      let n = 0;
      while (Date.now() < deadline && requests < maxRequests) {
        let r = rnd() * total;
        let op: Op = WEIGHTS[0][0];
        for (const [o, w] of WEIGHTS) {
          if ((r -= w) < 0) {
            op = o;
            break;
          }
        }
        n++;
        switch (op) {
          case 'capture': {
            const now = Date.now();
            const batch = Array.from({ length: 10 }, (_, i) => ({
              event: EVENTS[(n + i) % EVENTS.length],
              distinct_id: `soak-c${c}-u${Math.floor(rnd() * 50)}`,
              uuid: uuid4(rnd),
              timestamp: new Date(now - i).toISOString(),
              properties: { $browser: i % 2 ? 'Chrome' : 'Firefox', plan: i % 3 ? 'free' : 'pro', client: c, n },
            }));
            const res = await call('capture', 'POST', '/batch/', { api_key: setup.token1, batch }, 200, false);
            if (res.ok) for (const e of batch) acked.push(e.uuid);
            break;
          }
          case 'pql_cached':
            await call('pql_cached', 'POST', `/api/projects/${setup.project2}/query/`, { query: { kind: 'ProductQLQuery', query: PQL } }, 200);
            break;
          case 'pql_uncached':
            await call('pql_uncached', 'POST', '/api/projects/1/query/', { query: { kind: 'ProductQLQuery', query: PQL }, refresh: 'force_blocking' }, 200);
            break;
          case 'trends_cached':
            await call('trends_cached', 'POST', `/api/projects/${setup.project2}/query/`, { query: trendsNode(EVENTS[n % 2]) }, 200);
            break;
          case 'trends_live':
            await call('trends_live', 'POST', '/api/projects/1/query/', { query: trendsNode(EVENTS[n % 2]) }, 200);
            break;
          case 'endpoint_cached':
            await call('endpoint_cached', 'POST', `/api/environments/${setup.project2}/endpoints/soak_by_event/run`, { variables: { event: EVENTS[n % 4] } }, 200);
            break;
          case 'endpoint_uncached':
            await call('endpoint_uncached', 'POST', '/api/environments/1/endpoints/soak_by_event/run', { variables: { event: EVENTS[n % 4] }, refresh: 'force' }, 200);
            break;
          case 'insight_crud': {
            const base = '/api/projects/1/insights/';
            if (crudStep === 0) {
              const res = await call('create', 'POST', base, { name: `soak ${c}-${n}`, query: { kind: 'InsightVizNode', source: trendsNode('signup') } }, 201);
              if (res.ok && typeof res.json?.id === 'number') {
                insight = res.json.id;
                crudStep = 1;
              }
            } else if (crudStep === 1) {
              await call('update', 'PATCH', `${base}${insight}/`, { name: `soak ${c}-${n} renamed`, description: `step ${n}` }, 200);
              crudStep = 2;
            } else if (crudStep === 2) {
              await call('list', 'GET', `${base}?limit=20`, undefined, 200);
              crudStep = 3;
            } else {
              await call('delete', 'DELETE', `${base}${insight}/`, undefined, 204);
              insight = null;
              crudStep = 0;
            }
            break;
          }
        }
      }
    };
    await Promise.all(Array.from({ length: clients }, (_, c) => client(c)));
    const elapsed = (Date.now() - t0) / 1000;
    clearInterval(sampler);
    clearInterval(memSampler);
    clearInterval(progress);
    loopDelay.disable();

    // Every acknowledged event of the run must be stored (the flusher may need a moment to catch up).
    let eventsStored: number | null = null;
    let eventsDuplicated: number | null = null;
    const expected = setup.preloaded1 + acked.length;
    for (let i = 0; i < 120; i++) {
      const r = await server.api('POST', '/api/projects/1/query/', {
        query: { kind: 'ProductQLQuery', query: 'SELECT count(), count(DISTINCT uuid) FROM events' },
        refresh: 'force_blocking',
      });
      const row = (r.body as { results?: number[][] }).results?.[0];
      if (r.status === 200 && row) {
        eventsStored = row[1] - setup.preloaded1;
        eventsDuplicated = row[0] - row[1];
        if (row[0] >= expected) break;
      }
      await new Promise((res) => setTimeout(res, 500));
    }

    let serverLoopDelay: SoakResult['serverLoopDelay'] = null;
    try {
      const m = await (await fetch(`${server.url}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
      const metric = (name: string) => Number(new RegExp(`^\\w*nodejs_eventloop_lag_${name}_seconds(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(m)?.[1]);
      const p99 = metric('p99');
      const max = metric('max');
      if (Number.isFinite(p99) && Number.isFinite(max)) serverLoopDelay = { p99Ms: Math.round(p99 * 10_000) / 10, maxMs: Math.round(max * 10_000) / 10 };
    } catch {
      /* no /metrics */
    }
    const after10 = rss.filter(([t]) => t >= elapsed * 0.1);
    const secondHalf = rss.filter(([t]) => t >= elapsed * 0.5);
    const step = Math.max(1, Math.ceil(rss.length / 120));
    const routes: SoakRoute[] = [];
    let errors = 0;
    for (const [k, s] of stats) {
      errors += s.errors;
      if (s.n === 0) continue;
      const sorted = s.sorted();
      const round = (x: number) => Math.round(x * 10) / 10;
      routes.push({
        route: ROUTES[k],
        requests: s.n,
        errors: s.errors,
        requestsPerSecond: Math.round((s.n / elapsed) * 10) / 10,
        p50Ms: round(percentile(sorted, 50)),
        p99Ms: round(percentile(sorted, 99)),
        maxMs: round(sorted[sorted.length - 1]),
        maxAtSecond: s.maxAt,
        ...(k.startsWith('pql') || k.startsWith('trends') || k.startsWith('endpoint') ? { cachedShare: s.ok ? Math.round((s.cached / s.ok) * 1000) / 1000 : 0 } : {}),
      });
    }
    const result: SoakResult = {
      seconds: Math.round(elapsed * 10) / 10,
      clients,
      rateLimits: 'off (QUARRY_RATE_LIMIT_ENABLED=false on the bench server)',
      requests,
      requestsPerSecond: Math.round(requests / elapsed),
      errors,
      errorSamples,
      routes,
      eventsAcked: acked.length,
      eventsStored,
      eventsDuplicated,
      rss: {
        intervalMs: 1000,
        samples: rss.filter((_, i) => i % step === 0 || i === rss.length - 1),
        baselineMB: baselineMB === null ? null : Math.round(baselineMB),
        firstMB: rss[0]?.[1] ?? null,
        lastMB: rss.at(-1)?.[1] ?? null,
        maxMB: rss.length ? Math.max(...rss.map((r) => r[1])) : null,
        slopeMBPerMin: slope(after10),
        slopeSecondHalfMBPerMin: slope(secondHalf),
      },
      memory: {
        heapUsed,
        engine: engineMem,
        heapSlopeSecondHalfMBPerMin: slope(heapUsed.filter(([t]) => t >= elapsed * 0.5)),
        engineSlopeSecondHalfMBPerMin: slope(engineMem.filter(([t]) => t >= elapsed * 0.5)),
      },
      generatorLoopDelay: { p99Ms: Math.round(loopDelay.percentile(99) / 1e5) / 10, maxMs: Math.round(loopDelay.max / 1e5) / 10 },
      serverLoopDelay,
      slowest,
      dataDirMB: dirMB(dataDir),
      shutdownSeconds: 0,
      serverExitCode: null,
    };
    result.shutdownSeconds = Math.round((await server.stop()) * 10) / 10;
    result.serverExitCode = server.exitCode();
    return result;
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Project 2 with static data (its answers stay cached), endpoints on both projects, preloaded events. */
async function soakSetup(server: BenchServer, preload: number): Promise<{ token1: string; project2: number; preloaded1: number }> {
  const must = async (method: string, p: string, body: unknown, status: number) => {
    const r = await server.api(method, p, body);
    if (r.status !== status) throw new Error(`soak setup: ${method} ${p} answered ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
    return r.body as any;
  };
  const token1 = (await must('GET', '/api/projects/1/', undefined, 200)).api_token as string;
  const project2 = (await must('POST', '/api/projects/', { name: 'soak static' }, 201)).id as number;
  const rnd = mulberry32(7);
  const now = Date.now();
  const gen = (n: number, offset: number) =>
    Array.from({ length: n }, (_, i) => ({
      event: EVENTS[(i + offset) % EVENTS.length],
      distinct_id: `pre-u${Math.floor(rnd() * 2000)}`,
      uuid: uuid4(rnd),
      timestamp: new Date(now - Math.floor(rnd() * 6 * 86_400_000)).toISOString(),
      properties: { $browser: i % 2 ? 'Chrome' : 'Safari', plan: i % 3 ? 'free' : 'pro' },
    }));
  for (let done = 0; done < preload; done += 5000) {
    const n = Math.min(5000, preload - done);
    await must('POST', `/api/projects/${project2}/import/`, { events: gen(n, done) }, 200);
    await must('POST', '/api/projects/1/import/', { events: gen(n, done) }, 200);
  }
  const endpoint = {
    name: 'soak_by_event',
    query: {
      kind: 'ProductQLQuery',
      query: 'SELECT properties.plan AS plan, count() AS n FROM events WHERE event = {variables.event} GROUP BY plan ORDER BY plan',
    },
    variables: [{ name: 'event', type: 'String', default: '$pageview' }],
  };
  await must('POST', '/api/environments/1/endpoints/', endpoint, 201);
  await must('POST', `/api/environments/${project2}/endpoints/`, endpoint, 201);
  // Warm project 2's answers so "cached" routes start cached.
  await must('POST', `/api/projects/${project2}/query/`, { query: { kind: 'ProductQLQuery', query: PQL } }, 200);
  for (const e of EVENTS.slice(0, 2)) await must('POST', `/api/projects/${project2}/query/`, { query: trendsNode(e) }, 200);
  for (const e of EVENTS) await must('POST', `/api/environments/${project2}/endpoints/soak_by_event/run`, { variables: { event: e } }, 200);
  return { token1, project2, preloaded1: preload };
}

/** Why the run fails its targets (errors, lost events), or null. */
export function soakProblems(r: SoakResult): string | null {
  const p: string[] = [];
  if (r.errors > 0) p.push(`${r.errors} errors (must be 0); first: ${JSON.stringify(r.errorSamples[0])}`);
  if (r.eventsStored !== r.eventsAcked) p.push(`${r.eventsAcked} events acknowledged but ${r.eventsStored ?? 'unknown'} stored`);
  if (r.eventsDuplicated) p.push(`${r.eventsDuplicated} events stored twice`);
  return p.length ? `soak: ${p.join('; ')}` : null;
}

/** The soak section of the bench report. */
export function formatSoak(
  r: SoakResult,
  table: (headers: string[], rows: (string | number)[][]) => string,
  fmt: (n: number, digits?: number) => string,
): string {
  const out: string[] = [];
  out.push(
    `Load and soak: ${r.clients} closed-loop clients, mixed workload, ${fmt(r.seconds)} s on loopback (server in a child process; rate limits ${r.rateLimits})`,
  );
  out.push(
    table(
      ['route', 'requests', 'req/s', 'errors', 'p50 ms', 'p99 ms', 'max ms (at s)', 'cached'],
      [
        ...r.routes.map((x) => [
          x.route,
          fmt(x.requests),
          fmt(x.requestsPerSecond, 1),
          x.errors,
          fmt(x.p50Ms, 1),
          fmt(x.p99Ms, 1),
          `${fmt(x.maxMs, 1)} (${x.maxAtSecond})`,
          x.cachedShare === undefined ? '' : `${fmt(x.cachedShare * 100)}%`,
        ]),
        ['total', fmt(r.requests), fmt(r.requestsPerSecond), r.errors, '', '', '', ''],
      ],
    ),
  );
  const mb = (v: number | null) => (v === null ? 'n/a' : `${fmt(v)} MB`);
  out.push(
    table(
      ['metric', 'value'],
      [
        ['errors (must be 0)', `${r.errors}${r.errors ? ` — first: ${r.errorSamples[0]?.route} → ${r.errorSamples[0]?.status} ${r.errorSamples[0]?.detail.slice(0, 120)}` : ''}`],
        ['events acknowledged / stored / duplicated', `${fmt(r.eventsAcked)} / ${r.eventsStored === null ? 'n/a' : fmt(r.eventsStored)} / ${r.eventsDuplicated ?? 'n/a'}`],
        ['server RSS after setup', mb(r.rss.baselineMB)],
        ['server RSS first / last / max (1 s samples)', `${mb(r.rss.firstMB)} / ${mb(r.rss.lastMB)} / ${mb(r.rss.maxMB)}`],
        ['RSS slope after the first 10% / over the second half', `${r.rss.slopeMBPerMin ?? 'n/a'} / ${r.rss.slopeSecondHalfMBPerMin ?? 'n/a'} MB/min`],
        [
          'JS heap used first / last, slope over the second half',
          r.memory.heapUsed.length ? `${mb(r.memory.heapUsed[0][1])} / ${mb(r.memory.heapUsed.at(-1)![1])}, ${r.memory.heapSlopeSecondHalfMBPerMin ?? 'n/a'} MB/min` : 'n/a',
        ],
        [
          'engine memory first / last, slope over the second half',
          r.memory.engine.length ? `${mb(r.memory.engine[0][1])} / ${mb(r.memory.engine.at(-1)![1])}, ${r.memory.engineSlopeSecondHalfMBPerMin ?? 'n/a'} MB/min` : 'n/a',
        ],
        ['load generator event-loop delay p99 / max', `${fmt(r.generatorLoopDelay.p99Ms, 1)} / ${fmt(r.generatorLoopDelay.maxMs, 1)} ms`],
        ['server event-loop delay p99 / max (since its start)', r.serverLoopDelay ? `${fmt(r.serverLoopDelay.p99Ms, 1)} / ${fmt(r.serverLoopDelay.maxMs, 1)} ms` : 'n/a'],
        ['data dir at the end', `${fmt(r.dataDirMB)} MB`],
        ['shutdown (drain) seconds, exit code', `${fmt(r.shutdownSeconds, 1)}, ${r.serverExitCode ?? 'signal'}`],
      ],
    ),
  );
  out.push(`slowest requests: ${r.slowest.slice(0, 3).map(([route, at, ms]) => `${route} started at ${at} s: ${fmt(ms)} ms`).join('; ')}`);
  return out.join('\n');
}
