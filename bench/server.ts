/**
 * Starts the real server (`node dist/src/main.js serve`) as a child process on loopback with a free port, a
 * given data directory and a known bootstrap key; samples its RSS from /proc; stops it with SIGTERM (and SIGKILL
 * after a grace period). Only the child this module started is ever signalled.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

export const BENCH_BOOTSTRAP_KEY = 'phx_bench_bootstrap_key_0123456789abcdefghijklmnop';

export interface BenchServer {
  url: string;
  key: string;
  child: ChildProcess;
  /** Peak RSS of the server seen so far (MB), null where /proc is unavailable. */
  peakRssMB(): number | null;
  /** GET/POST with the bootstrap key. */
  api(method: string, p: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  /** The last ~20 kB the server wrote to stderr. */
  stderr(): string;
  /** Exit code (null while running or when killed by a signal). */
  exitCode(): number | null;
  /** SIGTERM, wait for exit (SIGKILL after `graceMs`); returns the seconds it took. */
  stop(graceMs?: number): Promise<number>;
}

function rssOf(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

export async function startBenchServer(
  dataDir: string,
  opts: { startTimeoutMs?: number; env?: Record<string, string> } = {},
): Promise<BenchServer> {
  // QUARRY_BENCH_SERVER_MAIN: another entry with the same CLI contract (used to try the harness itself).
  const main = process.env.QUARRY_BENCH_SERVER_MAIN ?? path.resolve(__dirname, '..', 'src', 'main.js');
  if (!fs.existsSync(main)) throw new Error(`${main} not found: run \`npm run build\` first`);
  fs.mkdirSync(dataDir, { recursive: true });
  const child = spawn(process.execPath, [main, 'serve'], {
    env: {
      ...process.env,
      QUARRY_HOST: '127.0.0.1',
      QUARRY_PORT: '0',
      QUARRY_DATA_DIR: dataDir,
      QUARRY_BOOTSTRAP_KEY: BENCH_BOOTSTRAP_KEY,
      QUARRY_LOG_LEVEL: 'warn',
      // load benchmarks measure throughput; the per-key limits would throttle them by design
      QUARRY_RATE_LIMIT_ENABLED: 'false',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
    if (stderr.length > 20_000) stderr = stderr.slice(-20_000);
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start within ${opts.startTimeoutMs ?? 60_000} ms:\n${out}\n${stderr}`));
    }, opts.startTimeoutMs ?? 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Quarry listening on (http:\/\/[^\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with code ${code} before listening:\n${out}\n${stderr}`));
    });
  });
  child.stdout!.resume();
  let peak: number | null = rssOf(child.pid!);
  const sampler = setInterval(() => {
    const r = rssOf(child.pid!);
    if (r !== null) peak = Math.max(peak ?? 0, r);
  }, 100);
  sampler.unref();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const agent = new http.Agent({ keepAlive: true });
  return {
    url,
    key: BENCH_BOOTSTRAP_KEY,
    child,
    peakRssMB: () => (peak === null ? null : Math.round(peak)),
    stderr: () => stderr,
    exitCode: () => child.exitCode,
    // node:http over one keep-alive agent: a lighter client than fetch (undici), so timings measure the server
    async api(method, p, body) {
      const payload = body !== undefined ? JSON.stringify(body) : undefined;
      const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = http.request(
          url + p,
          {
            method,
            agent,
            headers: {
              authorization: `Bearer ${BENCH_BOOTSTRAP_KEY}`,
              ...(payload !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
            res.on('error', reject);
          },
        );
        req.setTimeout(120_000, () => req.destroy(new Error(`${method} ${p}: no answer within 120 s`)));
        req.on('error', reject);
        req.end(payload);
      });
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* plain text */
      }
      return { status, body: parsed };
    },
    async stop(graceMs = 120_000) {
      clearInterval(sampler);
      agent.destroy();
      if (child.exitCode !== null || child.signalCode !== null) return 0;
      const t = Date.now();
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(killer);
      return (Date.now() - t) / 1000;
    },
  };
}
