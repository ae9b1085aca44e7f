/**
 * Capture throughput over HTTP: the real server in a child process (fresh data directory), `clients` concurrent
 * loopback clients POSTing `/batch/` requests of `batchSize` dataset events for `seconds` seconds (or until
 * `maxEvents` are sent). Reports events/s acknowledged (acknowledged = durable in the ingest log), request
 * latency, the server's peak RSS, how long a graceful shutdown takes (it drains the log into DuckDB), and how many
 * events DuckDB holds afterwards (must equal the acknowledged count).
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { demoEvents } from '../src/ingest/demo-data';
import { BENCH_DIR, demoOptions, type DatasetSpec } from './dataset';
import { median } from './reference-sql';
import { startBenchServer } from './server';

export interface CaptureBenchResult {
  clients: number;
  batchSize: number;
  seconds: number;
  requestsOk: number;
  requestsFailed: number;
  failures: Record<string, number>;
  eventsAcked: number;
  eventsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  serverPeakRssMB: number | null;
  shutdownSeconds: number | null;
  eventsStored: number | null;
  /** When fewer events than acknowledged were stored at shutdown: the count after one more start/stop (log replay). */
  eventsStoredAfterRestart?: number | null;
  serverExitCode?: number | null;
  serverStderrTail?: string;
  /**
   * Load conditions of the timed window: load average at its end, CPU seconds of the load generator (this
   * process) and of the server process, both per acknowledged event, and the server's CPU seconds per thread name.
   */
  conditions?: {
    loadAverage: number[];
    clientCpuSeconds: number;
    serverCpuSeconds: number | null;
    serverCpuUsPerEvent: number | null;
    /** The server's main (event-loop) thread alone; the rest is DuckDB's, libuv's and V8's (GC) threads. */
    serverMainCpuUsPerEvent: number | null;
    clientCpuUsPerEvent: number | null;
    serverThreads: Record<string, number>;
  };
}

const CLK_TCK = 100;

/** user+system CPU seconds of a process (all threads) from /proc; null where unavailable. */
function cpuOfProcess(pid: number): number | null {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) / CLK_TCK;
  } catch {
    return null;
  }
}

/** CPU seconds per thread (`main`, else `name#tid`) from /proc/<pid>/task. */
function cpuByThread(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        const f = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        // Node names all its threads (and DuckDB's) "node": the main thread is told apart by its id.
        const name = tid === String(pid) ? 'main' : `${f.slice(f.indexOf('(') + 1, f.lastIndexOf(')'))}#${tid}`;
        const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
        out[name] = (out[name] ?? 0) + (Number(rest[11]) + Number(rest[12])) / CLK_TCK;
      } catch {
        /* thread exited */
      }
    }
  } catch {
    /* no /proc */
  }
  return out;
}

function diffThreads(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(b)) {
    const d = Math.round((v - (a[k] ?? 0)) * 100) / 100;
    if (d > 0) out[k] = d;
  }
  return out;
}

function percentile(xs: number[], p: number): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

function findDuckDb(dir: string): string | null {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      const f = findDuckDb(p);
      if (f) return f;
    } else if (/\.(duckdb|db)$/.test(e.name) && !/sqlite/i.test(e.name)) return p;
  }
  return null;
}

export async function benchCapture(
  spec: DatasetSpec,
  opts: { seconds: number; clients: number; batchSize: number; maxEvents?: number; poolEvents?: number },
): Promise<CaptureBenchResult | { skipped: string }> {
  const maxEvents = opts.maxEvents ?? spec.events;
  // A pool of pre-serialized request bodies (uuid-less, so the server assigns fresh ids and no repeat is
  // deduplicated), reused round-robin: serializing on the fly would steal CPU from the server on a 2-core box.
  const poolEvents = Math.min(opts.poolEvents ?? 200_000, maxEvents);
  const dataDir = path.join(BENCH_DIR, `capture-${process.pid}`);
  fs.rmSync(dataDir, { recursive: true, force: true });
  // QUARRY_BENCH_CAPTURE_NODE_OPTIONS: NODE_OPTIONS for the server only (e.g. `--max-semi-space-size=64`).
  const serverNodeOptions = process.env.QUARRY_BENCH_CAPTURE_NODE_OPTIONS;
  const server = await startBenchServer(dataDir, serverNodeOptions ? { env: { NODE_OPTIONS: serverNodeOptions } } : {}).catch((e: unknown) => {
    fs.rmSync(dataDir, { recursive: true, force: true }); // a server that never started leaves no data dir behind
    throw e;
  });
  let stopped = false;
  try {
    const project = await server.api('GET', '/api/projects/1/');
    if (project.status !== 200) throw new Error(`GET /api/projects/1/ answered ${project.status}: ${JSON.stringify(project.body)}`);
    const token = (project.body as { api_token?: string }).api_token;
    if (!token) throw new Error('project 1 has no api_token');

    const probe = await fetch(`${server.url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    if (probe.status === 404)
      return { skipped: 'POST /batch/ answered 404: capture routes are not wired into the server yet (registerCaptureRoutes in src/app.ts)' };

    // Bodies are built and encoded before the clock starts; requests go over keep-alive sockets (one per client)
    // with plain http.request (no fetch/WHATWG streams layer): the load generator shares the 2 cores with the server.
    const bodies: Buffer[] = [];
    const sizes: number[] = [];
    let batch: unknown[] = [];
    const push = () => {
      bodies.push(Buffer.from(JSON.stringify({ api_key: token, batch }), 'utf8'));
      sizes.push(batch.length);
      batch = [];
    };
    for (const e of demoEvents({ ...demoOptions(spec), events: poolEvents })) {
      batch.push({ event: e.event, distinct_id: e.distinct_id, timestamp: e.timestamp, properties: e.properties });
      if (batch.length === opts.batchSize) push();
    }
    if (batch.length) push();
    const target = new URL(`${server.url}/batch/`);
    const agent = new http.Agent({ keepAlive: true, maxSockets: opts.clients, maxFreeSockets: opts.clients });
    const post = (body: Buffer) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(
          {
            agent,
            host: target.hostname,
            port: target.port,
            path: target.pathname,
            method: 'POST',
            headers: { 'content-type': 'application/json', 'content-length': body.length },
            timeout: 60_000,
          },
          (res) => {
            res.on('data', () => undefined);
            res.on('end', () => resolve(res.statusCode ?? 0));
            res.on('error', reject);
          },
        );
        req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { name: 'TimeoutError' })));
        req.on('error', reject);
        req.end(body);
      });

    process.stderr.write(`[bench] capture: ${opts.clients} clients × ${opts.batchSize} events/request for ${opts.seconds} s…\n`);
    const latencies: number[] = [];
    const failures: Record<string, number> = {};
    let ok = 0;
    let failed = 0;
    let acked = 0;
    let sent = 0;
    let next = 0;
    const serverCpu0 = cpuOfProcess(server.child.pid!);
    const serverThreads0 = cpuByThread(server.child.pid!);
    const clientCpu0 = process.cpuUsage();
    const t0 = performance.now();
    const deadline = t0 + opts.seconds * 1000;
    const client = async () => {
      while (performance.now() < deadline && sent < maxEvents) {
        const i = next++ % bodies.length;
        sent += sizes[i];
        const t = performance.now();
        try {
          const status = await post(bodies[i]);
          latencies.push(performance.now() - t);
          if (status === 200) {
            ok++;
            acked += sizes[i];
          } else {
            failed++;
            failures[String(status)] = (failures[String(status)] ?? 0) + 1;
          }
        } catch (e) {
          failed++;
          const k = (e as Error).name;
          failures[k] = (failures[k] ?? 0) + 1;
        }
      }
    };
    await Promise.all(Array.from({ length: opts.clients }, client));
    agent.destroy();
    const clientCpu = process.cpuUsage(clientCpu0);
    const serverCpu1 = cpuOfProcess(server.child.pid!);
    const serverThreads = diffThreads(serverThreads0, cpuByThread(server.child.pid!));
    const seconds = (performance.now() - t0) / 1000;
    const conditions = {
      loadAverage: os.loadavg().map((x) => Math.round(x * 100) / 100),
      clientCpuSeconds: Math.round((clientCpu.user + clientCpu.system) / 1e4) / 100,
      serverCpuSeconds: serverCpu0 !== null && serverCpu1 !== null ? Math.round((serverCpu1 - serverCpu0) * 100) / 100 : null,
      serverCpuUsPerEvent:
        serverCpu0 !== null && serverCpu1 !== null && acked > 0 ? Math.round(((serverCpu1 - serverCpu0) * 1e6) / acked * 10) / 10 : null,
      serverMainCpuUsPerEvent: serverThreads.main !== undefined && acked > 0 ? Math.round(((serverThreads.main * 1e6) / acked) * 10) / 10 : null,
      clientCpuUsPerEvent: acked > 0 ? Math.round(((clientCpu.user + clientCpu.system) / acked) * 10) / 10 : null,
      serverThreads,
    };
    process.stderr.write(`[bench] capture conditions: ${JSON.stringify(conditions)}\n`);
    const serverPeakRssMB = server.peakRssMB();
    const shutdownSeconds = await server.stop();
    stopped = true;
    const serverExitCode = server.exitCode();
    const serverStderrTail = server.stderr().slice(-2000);
    const countStored = async (): Promise<number | null> => {
      const dbFile = findDuckDb(dataDir);
      if (!dbFile) return null;
      const inst = await DuckDBInstance.create(dbFile, { access_mode: 'READ_ONLY' });
      const conn = await inst.connect();
      try {
        return Number((await conn.runAndReadAll('SELECT count(*) FROM events')).getRows()[0][0]);
      } finally {
        conn.closeSync();
        inst.closeSync();
      }
    };
    const eventsStored = await countStored();
    let eventsStoredAfterRestart: number | null | undefined;
    if (eventsStored !== null && eventsStored < acked) {
      // Acknowledged events must survive: start once more (the ingest log is replayed at start) and count again.
      const again = await startBenchServer(dataDir);
      await again.stop();
      eventsStoredAfterRestart = await countStored();
    }
    return {
      clients: opts.clients,
      batchSize: opts.batchSize,
      seconds: Math.round(seconds * 10) / 10,
      requestsOk: ok,
      requestsFailed: failed,
      failures,
      eventsAcked: acked,
      eventsPerSecond: Math.round(acked / seconds),
      latencyP50Ms: Math.round(median(latencies) * 10) / 10,
      latencyP99Ms: Math.round(percentile(latencies, 99) * 10) / 10,
      serverPeakRssMB,
      shutdownSeconds: Math.round(shutdownSeconds * 10) / 10,
      eventsStored,
      ...(eventsStoredAfterRestart !== undefined ? { eventsStoredAfterRestart } : {}),
      serverExitCode,
      conditions,
      ...(serverExitCode !== 0 || serverStderrTail ? { serverStderrTail } : {}),
    };
  } finally {
    if (!stopped) await server.stop().catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
