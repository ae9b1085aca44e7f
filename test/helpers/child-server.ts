/**
 * The real server (`quarry serve`, from the TypeScript sources through test/helpers/quarry-child.js) in a child
 * process on loopback, so a test can SIGKILL it, fill its disk or lock its files and then restart it on the same
 * data directory. Every process started here is signalled only by its own PID; `stopAllChildren()` (call it in
 * afterAll) SIGKILLs whatever a failed test left running.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { ApiResponse } from './server';

/** Same value as test/helpers/server.ts's TEST_KEY (not imported: that module loads the whole app in-process). */
export const TEST_KEY = 'phx_test_bootstrap_key_0123456789abcdefghijklmnop';

const ENTRY = path.join(__dirname, 'quarry-child.js');
const live = new Set<ChildProcess>();

export interface ChildServer {
  url: string;
  pid: number;
  key: string;
  dataDir: string;
  child: ChildProcess;
  /** fetch with the bootstrap key unless `key` is given (null = no Authorization); bounded by `timeoutMs` (default 30 s). */
  api(method: string, p: string, body?: unknown, key?: string | null, timeoutMs?: number): Promise<ApiResponse>;
  /** What the server wrote so far (stdout + stderr, last ~50 kB). */
  output(): string;
  /** Resolves with the exit code / signal once the process is gone. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL, then wait for the exit. */
  kill(): Promise<void>;
  /** SIGTERM (graceful drain), SIGKILL after `graceMs` (default 20 s); resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

export interface ChildOptions {
  dataDir: string;
  env?: Record<string, string>;
  /** Default 45 s (a cold start transpiles the sources; the machine may be busy). */
  startTimeoutMs?: number;
}

function baseEnv(dataDir: string, env: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TMPDIR: process.env.TMPDIR,
    QUARRY_HOST: '127.0.0.1',
    QUARRY_PORT: '0',
    QUARRY_DATA_DIR: dataDir,
    QUARRY_BOOTSTRAP_KEY: TEST_KEY,
    QUARRY_LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    // the tests drive hundreds of requests on one key; rate limits are tested on their own (rate-limits.test.ts)
    QUARRY_RATE_LIMIT_ENABLED: 'false',
    ...env,
  };
}

function spawnChild(opts: ChildOptions, args: string[] = []): { child: ChildProcess; out: () => string; exited: ChildServer['exited'] } {
  const child = spawn(process.execPath, [ENTRY, ...args], { env: baseEnv(opts.dataDir, opts.env), stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  let out = '';
  const onData = (d: Buffer) => {
    out += d.toString();
    if (out.length > 50_000) out = out.slice(-50_000);
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    }),
  );
  return { child, out: () => out, exited };
}

/** Starts `quarry serve` and resolves once it listens. Rejects (and kills the child) when it exits or times out first. */
export async function startChildServer(opts: ChildOptions): Promise<ChildServer> {
  const { child, out, exited } = spawnChild(opts);
  const limit = opts.startTimeoutMs ?? 45_000;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not listen within ${limit} ms:\n${out()}`));
    }, limit);
    const check = () => {
      const m = /Quarry listening on (http:\/\/\S+)/.exec(out());
      if (m) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve(m[1]);
      }
    };
    child.stdout!.on('data', check);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before listening:\n${out()}`));
    });
  });
  const api: ChildServer['api'] = async (method, p, body, key = TEST_KEY, timeoutMs = 30_000) => {
    const h: Record<string, string> = {};
    if (key !== null) h.authorization = `Bearer ${key}`;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      h['content-type'] = 'application/json';
    }
    const res = await fetch(url + p, { method, headers: h, body: payload, signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
  return {
    url,
    pid: child.pid!,
    key: TEST_KEY,
    dataDir: opts.dataDir,
    child,
    api,
    output: out,
    exited,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop(graceMs = 20_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const { code } = await exited;
      clearTimeout(killer);
      return code;
    },
  };
}

/** Runs a Quarry command (default `serve`) that is expected to end by itself; SIGKILLed after `timeoutMs`. */
export async function runChildCommand(
  opts: ChildOptions & { args?: string[]; timeoutMs?: number },
): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string; timedOut: boolean }> {
  const { child, out, exited } = spawnChild(opts, opts.args ?? ['serve']);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, opts.timeoutMs ?? 45_000);
  const r = await exited;
  clearTimeout(timer);
  return { ...r, output: out(), timedOut };
}

/** SIGKILLs every child this module started that is still running (by its PID), and waits for them. */
export async function stopAllChildren(): Promise<void> {
  const waits: Promise<void>[] = [];
  for (const c of [...live]) {
    if (c.exitCode === null && c.signalCode === null) {
      waits.push(new Promise((r) => c.once('exit', () => r())));
      c.kill('SIGKILL');
    }
  }
  await Promise.all(waits);
}
