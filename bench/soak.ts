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
 * count (any non-2xx — 429 included —, socket error or timeout; must be 0; the first samples are kept), the server's
 * CPU time per request, and the server's RSS sampled every second from /proc (first / last / max, and a
 * least-squares slope over the run after its first 10%). Rate limits are OFF on the server
 * (QUARRY_RATE_LIMIT_ENABLED=false): the per-key limits would throttle 200 clients on one key by design.
 *
 * Memory is split by component every 5 s (see SoakResult.memory) so the report says what grows, and the report ends
 * with a plain verdict (rssVerdict: RSS p95 of the last quarter at most FLAT_MB_PER_MIN above the third quarter's).
 * What was found (issue #11), with unique capture (the data grows all run long):
 * - the V8 heap's committed size: V8 let it reach several times its live data under load; `serve` caps the factor
 *   (QUARRY_HEAP_GROWTH_PERCENT);
 * - the live heap itself: the ingestor's duplicate test kept the last 1,000,000 captured uuids as strings in Sets,
 *   ~90 bytes each, filled at the ingest rate (heap snapshots two minutes apart: +59,000 strings, all retained by
 *   Ingestor.recent); src/ingest/recent-uuids.ts keeps them as 20-byte keys in typed arrays allocated at start
 *   (44 MB for 1,000,000, flat). The identity maps (persons and distinct ids of the projects seen) grow with the
 *   number of persons, not of events: bounded in this workload (clients reuse 50 distinct ids each);
 * - DuckDB's memory: the rows written since its last checkpoint (events, and one query-log row per answer, cached
 *   ones included) are held uncompressed until the checkpoint; at the former 256MB threshold a 10-minute run never
 *   checkpointed (a 255 MB data dir, +20 MB/min of engine memory). QUARRY_DUCKDB_CHECKPOINT_THRESHOLD (64MB) bounds
 *   them; what a checkpoint writes stays cached as compressed blocks (about a fifth of that size) up to
 *   QUARRY_DUCKDB_MEMORY_LIMIT, so that part follows the data file (SoakResult.data) until the limit.
 *   By duckdb_memory() tag (5 s samples, 10-minute runs): the engine is almost all IN_MEMORY_TABLE (rows not yet
 *   checkpointed) until the first checkpoint — at a shared machine's ~130 req/s the 64MB WAL threshold was reached
 *   only after ~7 minutes (81 MB held, then 14 MB of BASE_TABLE blocks, and a 24 s stall of the requests around that
 *   checkpoint). So the engine's memory is a sawtooth as long as a quarter of the run, and the verdict depended on
 *   where the drop fell. QUARRY_DUCKDB_CHECKPOINT_INTERVAL_MS (60 s) checkpoints at least once a minute: rows held
 *   13–20 MB, BASE_TABLE (the cache) growing with the data (+2.5 MB/min at that rate), bounded by
 *   QUARRY_DUCKDB_CACHE_LIMIT (evicted every 10 s above it, see src/engines/duckdb/cache-trim.ts) instead of the
 *   memory limit.
 * - memory outside DuckDB's accounting (`native rest`, mostly anonymous mappings): with the engine capped it still
 *   grew +8.9 MB/min at ~300 req/s — DuckDB's allocator (jemalloc) keeps freed pages unless a task's peak passed
 *   `allocator_flush_threshold` (128MB), and the project-1 queries' hash tables grow with the data. The engine now
 *   sets 8MB and the allocator's background thread: −3.2 MB/min, RSS p95 per quarter 522 / 570 / 577 / 575 MB at
 *   ~440 req/s (flat). MALLOC_ARENA_MAX=2 only moved glibc's growth from its arenas to its main heap.
 * `capture: 'bounded'` (the data size stays fixed) and 'off' separate growth with the data from a leak.
 *
 * Bounded: stops after `seconds` (clients finish their request in flight, each bounded by a 60 s timeout) or
 * `maxRequests`, whichever first; then checks that every acknowledged event was stored and stops the server
 * (SIGTERM, timed).
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
  /**
   * What the capture share sends. 'unique' (default): new events (the data grows all run long, as in production).
   * 'bounded': events drawn from a fixed pool of `capturePool` uuids that were stored during setup, so every one is a
   * duplicate the ingestor drops and the data size stays fixed: memory that still grows is a leak, not data.
   * 'off': no capture requests at all (their share goes to the other routes).
   */
  capture?: 'unique' | 'bounded' | 'off';
  /** Size of the 'bounded' uuid pool. Default 5,000. */
  capturePool?: number;
  /** Extra environment for the server (e.g. allocator or DuckDB settings under test). */
  serverEnv?: Record<string, string>;
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
  /**
   * The server's CPU time during the load (user + system, /proc/<pid>/stat) and per request: on a shared machine
   * wall-clock throughput is noisy, this is what compares two settings.
   */
  serverCpu: { seconds: number; msPerRequest: number } | null;
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
  /** Whether RSS is flat, judged by {@link rssVerdict}: the report's plain answer. */
  rssVerdict: RssVerdict;
  /**
   * The same rule on RSS minus the engine's memory (5 s samples): whether everything but DuckDB's buffer manager —
   * which is capped by QUARRY_DUCKDB_MEMORY_LIMIT and caches every block a checkpoint writes up to that cap, so it
   * grows with the data until then — is flat. A leak in the server's own code shows here.
   */
  rssVerdictExceptEngine: RssVerdict;
  /**
   * The data directory while the load ran, sampled every 5 s: [second, MB] of the whole directory, its slope over the
   * second half, and its files at the end (events.duckdb, its .wal, the ingest log, quarry.sqlite), so memory that
   * levels off can be read against data that keeps growing.
   */
  data: { series: [number, number][]; slopeSecondHalfMBPerMin: number | null; filesMB: Record<string, number> };
  /**
   * Where RSS goes, sampled every 5 s: /proc/<pid>/status (RSS split into anonymous and file-backed pages, threads)
   * and the server's /metrics (V8 heap committed and in use, external memory — Buffers and ArrayBuffers —, and the
   * event engine's own memory: DuckDB's buffer manager, bounded by its memory limit). `native` is what is left:
   * anonymous RSS minus the V8 heap, external memory and the engine's memory (allocator caches and fragmentation,
   * DuckDB allocations outside its buffer manager, thread stacks, code). Every 30 s /proc/<pid>/smaps splits the
   * anonymous memory by allocator: glibc's main heap (brk), glibc's per-thread arenas (64 MB-aligned regions) and
   * the other anonymous mappings (V8's heap, DuckDB's jemalloc, large allocations).
   * [second, MB] samples; slopes in MB/min over the second half of the run.
   */
  memory: {
    intervalMs: number;
    series: Record<MemorySeries, [number, number][]>;
    slopesSecondHalfMBPerMin: Record<MemorySeries, number | null>;
    /** Components whose second-half slope exceeds 1 MB/min, largest first: what makes RSS grow. */
    growing: { series: MemorySeries; mbPerMin: number }[];
    /**
     * Events acknowledged but not yet queryable (the server's quarry_ingest_lag_events), [second, events]: a backlog
     * held in memory would show here.
     */
    ingestLag: [number, number][];
    /**
     * Falls of the engine's memory by more than a third between two samples (DuckDB checkpoints release the rows
     * held since the previous one): [second, MB before, MB after].
     */
    engineReleases: [number, number, number][];
    /** Server threads (first / last / max). */
    threads: { first: number | null; last: number | null; max: number | null };
    /** Kept for earlier readers of the results: the same as series.heapUsed / series.engine. */
    heapUsed: [number, number][];
    engine: [number, number][];
    heapSlopeSecondHalfMBPerMin: number | null;
    engineSlopeSecondHalfMBPerMin: number | null;
  };
  /** The server's environment knobs of this run (capture mode, extra env), so runs can be compared. */
  variant: { capture: string; serverEnv: Record<string, string> };
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

export type MemorySeries =
  | 'rss'
  | 'rssAnon'
  | 'rssFile'
  | 'heapTotal'
  | 'heapUsed'
  | 'external'
  | 'engine'
  | 'native'
  | 'glibcMainHeap'
  | 'glibcArenas'
  | 'otherAnon';

const MEMORY_SERIES: MemorySeries[] = ['rss', 'rssAnon', 'rssFile', 'heapTotal', 'heapUsed', 'external', 'engine', 'native', 'glibcMainHeap', 'glibcArenas', 'otherAnon'];

/** VmRSS / RssAnon / RssFile / Threads of a process, MB (null where /proc is unavailable). */
export function procStatus(pid: number): { rss: number; rssAnon: number; rssFile: number; threads: number } | null {
  try {
    const t = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(t)?.[1] ?? NaN) / 1024;
    const threads = Number(/^Threads:\s+(\d+)/m.exec(t)?.[1] ?? NaN);
    const r = { rss: kb('VmRSS'), rssAnon: kb('RssAnon'), rssFile: kb('RssFile') + kb('RssShmem'), threads };
    return Number.isFinite(r.rss) ? r : null;
  } catch {
    return null;
  }
}

const ARENA = 64 * 2 ** 20; // glibc HEAP_MAX_SIZE on 64-bit: each thread arena is one 64 MB-aligned reservation

/**
 * Resident anonymous memory of a process by allocator, MB, from /proc/<pid>/smaps: glibc's main heap ([heap], brk),
 * glibc's thread arenas (anonymous mappings starting on a 64 MB boundary whose reservation, with the PROT_NONE
 * tail right after it, is 64 MB) and every other anonymous mapping.
 */
export function anonBreakdown(smaps: string): { glibcMainHeap: number; glibcArenas: number; otherAnon: number; arenaCount: number } {
  const maps: { start: number; end: number; perms: string; name: string; rss: number }[] = [];
  let cur: (typeof maps)[number] | null = null;
  for (const line of smaps.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (head) {
      cur = { start: parseInt(head[1], 16), end: parseInt(head[2], 16), perms: head[3], name: head[5].trim(), rss: 0 };
      maps.push(cur);
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && cur) cur.rss = Number(rss[1]) / 1024;
  }
  let glibcMainHeap = 0;
  let glibcArenas = 0;
  let otherAnon = 0;
  let arenaCount = 0;
  for (let i = 0; i < maps.length; i++) {
    const m = maps[i];
    if (m.name === '[heap]') {
      glibcMainHeap += m.rss;
      continue;
    }
    if (m.name !== '' || m.perms[0] !== 'r') continue;
    const next = maps[i + 1];
    const reserved = next && next.start === m.end && next.name === '' && next.perms.startsWith('---') ? next.end - m.start : m.end - m.start;
    if (m.start % ARENA === 0 && reserved === ARENA) {
      glibcArenas += m.rss;
      arenaCount++;
    } else otherAnon += m.rss;
  }
  const r = (x: number) => Math.round(x * 10) / 10;
  return { glibcMainHeap: r(glibcMainHeap), glibcArenas: r(glibcArenas), otherAnon: r(otherAnon), arenaCount };
}

/** User + system CPU seconds a process has used (null where /proc is unavailable). */
export function cpuSecondsOf(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from 3 on; utime, stime are 14, 15
    return (Number(f[11]) + Number(f[12])) / 100; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

function rssOf(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * The server's settings that differ from its defaults in this run: QUARRY_* and NODE_OPTIONS inherited from this
 * process (startBenchServer passes its environment on) and the run's own serverEnv, minus what every bench server
 * gets (port, data dir, key, log level, rate limits off).
 */
function serverEnvOf(extra: Record<string, string> | undefined): Record<string, string> {
  const fixed = new Set(['QUARRY_HOST', 'QUARRY_PORT', 'QUARRY_DATA_DIR', 'QUARRY_BOOTSTRAP_KEY', 'QUARRY_LOG_LEVEL', 'QUARRY_RATE_LIMIT_ENABLED']);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...extra })) {
    if (v !== undefined && (k.startsWith('QUARRY_') || k === 'NODE_OPTIONS') && !fixed.has(k)) env[k] = v;
  }
  return env;
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

/**
 * RSS is flat when it levels off: the 95th percentile of the RSS samples of the run's last quarter exceeds that of its
 * third quarter by at most `thresholdMBPerMin` × the quarter's minutes. Percentiles per quarter, not a slope: DuckDB
 * releases the rows held since its last checkpoint all at once, so the engine's memory is a sawtooth and a
 * least-squares slope over a few teeth swings with their phase, while a leak raises every quarter's level. The 95th
 * percentile ignores a single spike. A run shorter than {@link MIN_VERDICT_SECONDS} is too short to judge.
 */
export function rssVerdict(rss: [number, number][], seconds: number, thresholdMBPerMin = FLAT_MB_PER_MIN): RssVerdict {
  const quarter = seconds / 4;
  const p95 = (xs: number[]) => {
    if (!xs.length) return null;
    const sorted = [...xs].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil(0.95 * sorted.length) - 1)];
  };
  const quarterP95MB = [0, 1, 2, 3].map((q) => p95(rss.filter(([t]) => t >= q * quarter && (q === 3 ? t <= seconds + 60 : t < (q + 1) * quarter)).map(([, v]) => v)));
  const [, , q3, q4] = quarterP95MB;
  const lastQuarterMBPerMin = q3 === null || q4 === null || quarter <= 0 ? null : Math.round(((q4 - q3) / (quarter / 60)) * 100) / 100;
  const judged = seconds >= MIN_VERDICT_SECONDS && lastQuarterMBPerMin !== null;
  return {
    flat: judged ? lastQuarterMBPerMin! <= thresholdMBPerMin : null,
    quarterP95MB,
    lastQuarterMBPerMin,
    thresholdMBPerMin,
    rule: `RSS p95 of the last quarter at most ${thresholdMBPerMin} MB/min above the third quarter's (runs of ${MIN_VERDICT_SECONDS} s or more)`,
  };
}

/** RSS samples minus the engine's memory sampled at the same moment (both from the 5 s memory samples). */
export function minusEngine(rss: [number, number][], engine: [number, number][]): [number, number][] {
  const at = new Map(engine.map(([t, v]) => [t, v]));
  return rss.flatMap(([t, v]) => (at.has(t) ? [[t, Math.round((v - at.get(t)!) * 10) / 10] as [number, number]] : []));
}

/** Growth of RSS (MB/min, last quarter over the third) above which the soak's RSS is not flat. */
export const FLAT_MB_PER_MIN = 2;
/** Shorter runs get no flat/not-flat verdict (a quarter of them is too short for the level to show). */
export const MIN_VERDICT_SECONDS = 240;

export interface RssVerdict {
  /** true / false, or null when the run is too short to judge. */
  flat: boolean | null;
  /** 95th percentile of the 1 s RSS samples in each quarter of the run, MB. */
  quarterP95MB: (number | null)[];
  /** (4th − 3rd quarter p95) per minute of a quarter. */
  lastQuarterMBPerMin: number | null;
  thresholdMBPerMin: number;
  rule: string;
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

/** Sizes of the data directory's entries (a directory counts with everything in it), MB with one decimal. */
function dataFilesMB(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  try {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      const bytes = e.isDirectory() ? dirBytes(p) : fs.statSync(p).size;
      out[e.name] = Math.round(bytes / 104857.6) / 10;
    }
  } catch {
    /* removed meanwhile */
  }
  return out;
}

function dirBytes(dir: string): number {
  let n = 0;
  try {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      try {
        n += e.isDirectory() ? dirBytes(p) : fs.statSync(p).size;
      } catch {
        /* a log segment released meanwhile */
      }
    }
  } catch {
    /* removed meanwhile */
  }
  return n;
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

interface CaptureEvent {
  event: string;
  distinct_id: string;
  uuid: string;
  timestamp: string;
  properties: Record<string, unknown>;
}

export async function benchSoak(opts: SoakOptions): Promise<SoakResult> {
  const seconds = opts.seconds;
  const clients = opts.clients;
  const preload = opts.preloadEvents ?? 20_000;
  const maxRequests = opts.maxRequests ?? 20_000_000;
  const timeoutMs = opts.requestTimeoutMs ?? 60_000;
  const captureMode = opts.capture ?? 'unique';
  const poolSize = captureMode === 'bounded' ? Math.max(10, opts.capturePool ?? 5000) : 0;
  const dataDir = path.join(BENCH_DIR, `soak-${process.pid}`);
  fs.rmSync(dataDir, { recursive: true, force: true });
  const server = await startBenchServer(dataDir, { env: { QUARRY_RATE_LIMIT_ENABLED: 'false', QUARRY_LOG_LEVEL: 'warn', ...opts.serverEnv } });
  const pid = server.child.pid!;
  try {
    const setup = await soakSetup(server, preload, poolSize);
    const pool = setup.pool;
    const baselineMB = rssOf(pid);
    process.stderr.write(
      `[bench] soak: ${clients} clients for ${seconds} s (mixed workload; rate limits off), server pid ${pid}, RSS ${Math.round(baselineMB ?? 0)} MB after setup…\n`,
    );

    const stats = new Map<RouteKey, Samples>(Object.keys(ROUTES).map((k) => [k as RouteKey, new Samples()]));
    const errorSamples: SoakResult['errorSamples'] = [];
    /** Distinct acknowledged uuids (in 'bounded' mode the same pool events are acknowledged again and again). */
    const acked = new Set<string>();
    let requests = 0;
    const rampMs = Math.min(10, seconds / 10) * 1000;
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const slowest: [string, number, number][] = [];
    const cpu0 = cpuSecondsOf(pid);
    const t0 = Date.now();
    const deadline = t0 + seconds * 1000;
    const rss: [number, number][] = [];
    const sampler = setInterval(() => {
      const r = rssOf(pid);
      if (r !== null) rss.push([(Date.now() - t0) / 1000, Math.round(r * 10) / 10]);
    }, 1000);
    sampler.unref();
    const series = Object.fromEntries(MEMORY_SERIES.map((k) => [k, [] as [number, number][]])) as Record<MemorySeries, [number, number][]>;
    const threads: number[] = [];
    const ingestLag: [number, number][] = [];
    const dataSeries: [number, number][] = [];
    const mb = (bytes: number) => Math.round(bytes / 1024 / 102.4) / 10;
    let memTick = 0;
    const sampleMemory = async () => {
      const at = Math.round((Date.now() - t0) / 100) / 10;
      const tick = memTick++;
      dataSeries.push([at, Math.round(dirBytes(dataDir) / 104857.6) / 10]);
      let m = '';
      try {
        m = await (await fetch(`${server.url}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
      } catch {
        /* a busy server: this sample has /proc figures only */
      }
      const read = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(m)?.[1]);
      const heapTotal = read('quarry_process_nodejs_heap_size_total_bytes');
      const heapUsed = read('quarry_process_nodejs_heap_size_used_bytes');
      const external = read('quarry_process_nodejs_external_memory_bytes');
      const engine = read('quarry_engine_memory_bytes');
      const lag = read('quarry_ingest_lag_events');
      if (Number.isFinite(lag)) ingestLag.push([at, lag]);
      const st = procStatus(pid);
      const push = (k: MemorySeries, v: number) => {
        if (Number.isFinite(v)) series[k].push([at, Math.round(v * 10) / 10]);
      };
      push('heapTotal', mb(heapTotal));
      push('heapUsed', mb(heapUsed));
      push('external', mb(external));
      push('engine', mb(engine));
      if (st) {
        push('rss', st.rss);
        push('rssAnon', st.rssAnon);
        push('rssFile', st.rssFile);
        if (Number.isFinite(st.threads)) threads.push(st.threads);
        push('native', st.rssAnon - mb(heapTotal) - mb(external) - mb(engine));
      }
      if (tick % 6 === 0) {
        try {
          const b = anonBreakdown(await fs.promises.readFile(`/proc/${pid}/smaps`, 'utf8'));
          push('glibcMainHeap', b.glibcMainHeap);
          push('glibcArenas', b.glibcArenas);
          push('otherAnon', b.otherAnon);
        } catch {
          /* no /proc */
        }
      }
    };
    const memSampler = setInterval(() => void sampleMemory(), 5_000);
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
      const weights = captureMode === 'off' ? WEIGHTS.filter(([o]) => o !== 'capture') : WEIGHTS;
      const total = weights.reduce((a, w) => a + w[1], 0);
      let insight: number | null = null;
      let crudStep = 0;
      let n = 0;
      while (Date.now() < deadline && requests < maxRequests) {
        let r = rnd() * total;
        let op: Op = weights[0][0];
        for (const [o, w] of weights) {
          if ((r -= w) < 0) {
            op = o;
            break;
          }
        }
        n++;
        switch (op) {
          case 'capture': {
            const now = Date.now();
            const batch =
              captureMode === 'bounded'
                ? Array.from({ length: 10 }, () => pool[Math.floor(rnd() * pool.length)])
                : Array.from({ length: 10 }, (_, i) => ({
                    event: EVENTS[(n + i) % EVENTS.length],
                    distinct_id: `soak-c${c}-u${Math.floor(rnd() * 50)}`,
                    uuid: uuid4(rnd),
                    timestamp: new Date(now - i).toISOString(),
                    properties: { $browser: i % 2 ? 'Chrome' : 'Firefox', plan: i % 3 ? 'free' : 'pro', client: c, n },
                  }));
            const res = await call('capture', 'POST', '/batch/', { api_key: setup.token1, batch }, 200, false);
            if (res.ok) for (const e of batch) acked.add(e.uuid);
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
    const cpu1 = cpuSecondsOf(pid);
    clearInterval(sampler);
    clearInterval(memSampler);
    clearInterval(progress);
    loopDelay.disable();

    // Every acknowledged event of the run must be stored (the flusher may need a moment to catch up).
    let eventsStored: number | null = null;
    let eventsDuplicated: number | null = null;
    // Pool events were stored (and counted) during setup; acknowledging them again must not store them twice.
    for (const e of pool) acked.delete(e.uuid);
    const expected = setup.preloaded1 + pool.length + acked.size;
    for (let i = 0; i < 120; i++) {
      const r = await server.api('POST', '/api/projects/1/query/', {
        query: { kind: 'ProductQLQuery', query: 'SELECT count(), count(DISTINCT uuid) FROM events' },
        refresh: 'force_blocking',
      });
      const row = (r.body as { results?: number[][] }).results?.[0];
      if (r.status === 200 && row) {
        eventsStored = row[1] - setup.preloaded1 - pool.length;
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
    const slopes = Object.fromEntries(MEMORY_SERIES.map((k) => [k, slope(series[k].filter(([t]) => t >= elapsed * 0.5))])) as Record<MemorySeries, number | null>;
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
      serverCpu:
        cpu0 === null || cpu1 === null
          ? null
          : { seconds: Math.round((cpu1 - cpu0) * 10) / 10, msPerRequest: requests ? Math.round(((cpu1 - cpu0) * 1000 * 100) / requests) / 100 : 0 },
      eventsAcked: acked.size,
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
      rssVerdict: rssVerdict(rss, elapsed),
      rssVerdictExceptEngine: rssVerdict(minusEngine(series.rss, series.engine), elapsed),
      data: { series: dataSeries, slopeSecondHalfMBPerMin: slope(dataSeries.filter(([t]) => t >= elapsed * 0.5)), filesMB: dataFilesMB(dataDir) },
      memory: {
        intervalMs: 5000,
        series,
        slopesSecondHalfMBPerMin: slopes,
        growing: MEMORY_SERIES.filter((k) => k !== 'rss' && (slopes[k] ?? 0) > 1)
          .map((k) => ({ series: k, mbPerMin: slopes[k]! }))
          .sort((a, b) => b.mbPerMin - a.mbPerMin),
        ingestLag,
        engineReleases: series.engine.flatMap((p, i, a) => (i > 0 && a[i - 1][1] > 8 && p[1] < (a[i - 1][1] * 2) / 3 ? [[p[0], a[i - 1][1], p[1]] as [number, number, number]] : [])),
        threads: { first: threads[0] ?? null, last: threads.at(-1) ?? null, max: threads.length ? Math.max(...threads) : null },
        heapUsed: series.heapUsed,
        engine: series.engine,
        heapSlopeSecondHalfMBPerMin: slopes.heapUsed,
        engineSlopeSecondHalfMBPerMin: slopes.engine,
      },
      variant: { capture: captureMode, serverEnv: serverEnvOf(opts.serverEnv) },
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
async function soakSetup(
  server: BenchServer,
  preload: number,
  poolSize: number,
): Promise<{ token1: string; project2: number; preloaded1: number; pool: CaptureEvent[] }> {
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
  // The 'bounded' capture pool: captured (so the ingestor knows the uuids) and stored before the run.
  const pool: CaptureEvent[] = Array.from({ length: poolSize }, (_, i) => ({
    event: EVENTS[i % EVENTS.length],
    distinct_id: `pool-u${i % 500}`,
    uuid: uuid4(rnd),
    timestamp: new Date(now - (i % 3600) * 1000).toISOString(),
    properties: { $browser: i % 2 ? 'Chrome' : 'Firefox', plan: i % 3 ? 'free' : 'pro', client: i % 200, n: i },
  }));
  for (let i = 0; i < pool.length; i += 500) {
    const r = await fetch(`${server.url}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: token1, batch: pool.slice(i, i + 500) }),
    });
    if (r.status !== 200) throw new Error(`soak setup: capturing the pool answered ${r.status}: ${(await r.text()).slice(0, 300)}`);
  }
  for (let i = 0; pool.length && i < 120; i++) {
    const r = await must('POST', '/api/projects/1/query/', { query: { kind: 'ProductQLQuery', query: 'SELECT count() FROM events' }, refresh: 'force_blocking' }, 200);
    if (Number(r.results?.[0]?.[0]) >= preload + pool.length) break;
    await new Promise((res) => setTimeout(res, 500));
  }
  return { token1, project2, preloaded1: preload, pool };
}

/** Why the run fails its targets (errors, lost events), or null. */
export function soakProblems(r: SoakResult): string | null {
  const p: string[] = [];
  if (r.errors > 0) p.push(`${r.errors} errors (must be 0); first: ${JSON.stringify(r.errorSamples[0])}`);
  if (r.eventsStored !== r.eventsAcked) p.push(`${r.eventsAcked} events acknowledged but ${r.eventsStored ?? 'unknown'} stored`);
  if (r.eventsDuplicated) p.push(`${r.eventsDuplicated} events stored twice`);
  if (r.rssVerdict?.flat === false) p.push(`RSS not flat: ${r.rssVerdict.lastQuarterMBPerMin} MB/min in the last quarter (at most ${r.rssVerdict.thresholdMBPerMin})`);
  return p.length ? `soak: ${p.join('; ')}` : null;
}

/** The plain answer: is RSS flat, by which rule, and what grows. */
export function verdictLine(r: SoakResult): string {
  const v = r.rssVerdict;
  const growing = r.memory?.growing?.length ? r.memory.growing.map((g) => `${g.series} +${g.mbPerMin}`).join(', ') : 'no component above 1 MB/min';
  const data = r.data?.slopeSecondHalfMBPerMin != null ? `; meanwhile the data dir grew ${r.data.slopeSecondHalfMBPerMin} MB/min` : '';
  const head = v.flat === null ? `RSS flat: not judged (run shorter than ${MIN_VERDICT_SECONDS} s)` : v.flat ? 'RSS flat: YES' : 'RSS flat: NO';
  const ex = r.rssVerdictExceptEngine;
  const exText =
    ex && ex.flat !== null
      ? `; RSS minus DuckDB's memory (capped by QUARRY_DUCKDB_MEMORY_LIMIT): ${ex.flat ? 'flat' : 'NOT flat'}, ${ex.lastQuarterMBPerMin} MB/min`
      : '';
  return `${head} — last quarter ${v.lastQuarterMBPerMin ?? 'n/a'} MB/min over the third (rule: ${v.rule})${exText}; growing over the second half: ${growing}${data}`;
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
        ['server CPU during the load (user + system), per request', r.serverCpu ? `${fmt(r.serverCpu.seconds, 1)} s, ${fmt(r.serverCpu.msPerRequest, 2)} ms` : 'n/a'],
        ['server RSS after setup', mb(r.rss.baselineMB)],
        ['server RSS first / last / max (1 s samples)', `${mb(r.rss.firstMB)} / ${mb(r.rss.lastMB)} / ${mb(r.rss.maxMB)}`],
        ['RSS slope after the first 10% / over the second half', `${r.rss.slopeMBPerMin ?? 'n/a'} / ${r.rss.slopeSecondHalfMBPerMin ?? 'n/a'} MB/min`],
        ...(r.rssVerdict ? [['RSS p95 per quarter of the run', r.rssVerdict.quarterP95MB.map((v) => (v === null ? 'n/a' : fmt(v))).join(' / ') + ' MB'] as [string, string]] : []),
        ...(r.data
          ? [
              [
                'data dir: second-half slope; files at the end',
                `${r.data.slopeSecondHalfMBPerMin ?? 'n/a'} MB/min; ${Object.entries(r.data.filesMB)
                  .map(([f, v]) => `${f} ${fmt(v, 1)} MB`)
                  .join(', ')}`,
              ] as [string, string],
            ]
          : []),
        ['load generator event-loop delay p99 / max', `${fmt(r.generatorLoopDelay.p99Ms, 1)} / ${fmt(r.generatorLoopDelay.maxMs, 1)} ms`],
        ['server event-loop delay p99 / max (since its start)', r.serverLoopDelay ? `${fmt(r.serverLoopDelay.p99Ms, 1)} / ${fmt(r.serverLoopDelay.maxMs, 1)} ms` : 'n/a'],
        ['data dir at the end', `${fmt(r.dataDirMB)} MB`],
        ['shutdown (drain) seconds, exit code', `${fmt(r.shutdownSeconds, 1)}, ${r.serverExitCode ?? 'signal'}`],
      ],
    ),
  );
  const mem = r.memory;
  if (mem?.series) {
    const label: Record<MemorySeries, string> = {
      rss: 'RSS',
      rssAnon: '  anonymous',
      rssFile: '  file-backed + shared',
      heapTotal: 'V8 heap committed',
      heapUsed: 'V8 heap in use',
      external: 'external (Buffers, ArrayBuffers)',
      engine: "engine (DuckDB's buffer manager)",
      native: 'native rest (anonymous − heap − external − engine)',
      glibcMainHeap: 'smaps: glibc main heap (brk)',
      glibcArenas: 'smaps: glibc thread arenas',
      otherAnon: 'smaps: other anonymous (V8, jemalloc, mmap)',
    };
    out.push(`Server memory by component (5 s samples; smaps every 30 s), MB; variant: capture ${r.variant?.capture ?? 'unique'}${Object.keys(r.variant?.serverEnv ?? {}).length ? `, env ${JSON.stringify(r.variant.serverEnv)}` : ''}`);
    out.push(
      table(
        ['component', 'first', 'last', 'max', 'slope 2nd half MB/min'],
        MEMORY_SERIES.filter((k) => mem.series[k].length).map((k) => {
          const v = mem.series[k];
          return [label[k], fmt(v[0][1]), fmt(v.at(-1)![1]), fmt(Math.max(...v.map((x) => x[1]))), mem.slopesSecondHalfMBPerMin[k] ?? 'n/a'];
        }),
      ),
    );
    out.push(
      `growing (> 1 MB/min over the second half): ${mem.growing.length ? mem.growing.map((g) => `${g.series} +${g.mbPerMin}`).join(', ') : 'nothing'}; engine memory released (checkpoints) ${mem.engineReleases?.length ? mem.engineReleases.map(([t, a, b]) => `at ${fmt(t)} s ${fmt(a)}→${fmt(b)} MB`).join(', ') : 'never'}; ingest lag max ${mem.ingestLag?.length ? fmt(Math.max(...mem.ingestLag.map((x) => x[1]))) : 'n/a'} events; threads ${mem.threads.first ?? '?'} → ${mem.threads.last ?? '?'} (max ${mem.threads.max ?? '?'})`,
    );
  }
  if (r.rssVerdict) out.push(verdictLine(r));
  out.push(`slowest requests: ${r.slowest.slice(0, 3).map(([route, at, ms]) => `${route} started at ${at} s: ${fmt(ms)} ms`).join('; ')}`);
  return out.join('\n');
}
