/**
 * Capture throughput over HTTP: the real server in a child process (fresh data directory), `clients` concurrent
 * loopback clients POSTing `/batch/` requests of `batchSize` dataset events for `seconds` seconds (or until
 * `maxEvents` are sent). Reports events/s acknowledged (acknowledged = durable in the ingest log), request
 * latency, the server's peak RSS, how long a graceful shutdown takes (it drains the log into DuckDB), and how many
 * events DuckDB holds afterwards (must equal the acknowledged count).
 */
import fs from 'node:fs';
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
  const server = await startBenchServer(dataDir);
  let stopped = false;
  try {
    const project = await server.api('GET', '/api/projects/1/');
    if (project.status !== 200) throw new Error(`GET /api/projects/1/ answered ${project.status}: ${JSON.stringify(project.body)}`);
    const token = (project.body as { api_token?: string }).api_token;
    if (!token) throw new Error('project 1 has no api_token');

    const probe = await fetch(`${server.url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    if (probe.status === 404)
      return { skipped: 'POST /batch/ answered 404: capture routes are not wired into the server yet (registerCaptureRoutes in src/app.ts)' };

    const bodies: string[] = [];
    let batch: unknown[] = [];
    for (const e of demoEvents({ ...demoOptions(spec), events: poolEvents })) {
      batch.push({ event: e.event, distinct_id: e.distinct_id, timestamp: e.timestamp, properties: e.properties });
      if (batch.length === opts.batchSize) {
        bodies.push(JSON.stringify({ api_key: token, batch }));
        batch = [];
      }
    }
    if (batch.length) bodies.push(JSON.stringify({ api_key: token, batch }));
    const sizes = bodies.map((b) => (JSON.parse(b) as { batch: unknown[] }).batch.length);


    process.stderr.write(`[bench] capture: ${opts.clients} clients × ${opts.batchSize} events/request for ${opts.seconds} s…\n`);
    const latencies: number[] = [];
    const failures: Record<string, number> = {};
    let ok = 0;
    let failed = 0;
    let acked = 0;
    let sent = 0;
    let next = 0;
    const t0 = performance.now();
    const deadline = t0 + opts.seconds * 1000;
    const client = async () => {
      while (performance.now() < deadline && sent < maxEvents) {
        const i = next++ % bodies.length;
        sent += sizes[i];
        const t = performance.now();
        try {
          const res = await fetch(`${server.url}/batch/`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: bodies[i],
            signal: AbortSignal.timeout(60_000),
          });
          await res.arrayBuffer();
          latencies.push(performance.now() - t);
          if (res.status === 200) {
            ok++;
            acked += sizes[i];
          } else {
            failed++;
            failures[String(res.status)] = (failures[String(res.status)] ?? 0) + 1;
          }
        } catch (e) {
          failed++;
          const k = (e as Error).name;
          failures[k] = (failures[k] ?? 0) + 1;
        }
      }
    };
    await Promise.all(Array.from({ length: opts.clients }, client));
    const seconds = (performance.now() - t0) / 1000;
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
      ...(serverExitCode !== 0 || serverStderrTail ? { serverStderrTail } : {}),
    };
  } finally {
    if (!stopped) await server.stop().catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
