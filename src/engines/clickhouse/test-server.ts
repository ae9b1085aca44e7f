/**
 * Test support: starts ClickHouse servers through `.ci/clickhouse` on loopback ports, in temp dirs, and stops
 * them by PID. When the server binary is missing, tests are skipped locally and fail in CI (CI=true), so a CI
 * machine without ClickHouse can never pass by skipping.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePorts } from './local-ports';

const run = promisify(execFile);
const SCRIPT = path.resolve(__dirname, '../../../.ci/clickhouse');

function binaryPresent(): boolean {
  try {
    execFileSync('bash', [SCRIPT, 'binary'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** True when ClickHouse tests should run. Throws in CI when the binary is missing. */
export function clickhouseAvailable(): boolean {
  const present = binaryPresent();
  if (!present && (process.env.CI === 'true' || process.env.QUARRY_TEST_CLICKHOUSE === 'required'))
    throw new Error('clickhouse-server is not installed, but CI=true requires the ClickHouse tests to run (.ci/clickhouse install)');
  return present;
}

/** `describe` when ClickHouse is available, `describe.skip` locally without it (and an error in CI). */
export const describeClickHouse: jest.Describe = (clickhouseAvailable() ? describe : describe.skip) as jest.Describe;

export interface TestServer {
  /** HTTP URL of the first (or only) node. */
  url: string;
  /** HTTP URLs of every node. */
  urls: string[];
  cluster?: string;
  dir: string;
  pids: number[];
  stop(): Promise<void>;
}

/**
 * True while the process runs. A killed server is reparented (it was started by a shell that exited) and stays a
 * zombie until PID 1 reaps it, which takes up to ~2 s here: a zombie counts as gone, its ports and files are free.
 */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) S ...", the state after the last ')'
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no procfs: rely on kill(0)
  }
};

/**
 * Stops test servers with SIGKILL (their data dir is thrown away, so a clean shutdown, about 2 s each, buys nothing)
 * and waits until they are gone.
 */
async function stopPids(pids: number[], dir: string): Promise<void> {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (let i = 0; i < 500 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 20));
  fs.rmSync(dir, { recursive: true, force: true });
}

/** Runs `start` on fresh free ports again when ClickHouse lost a race for one of them (a few tries). */
async function withPortRetry<T>(span: number, start: (base: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePorts(span));
    } catch (e) {
      if (attempt >= 3 || !/Address already in use/.test(String((e as Error).message))) throw e;
    }
  }
}

/** One server on a free loopback port, data in a temp dir. */
export async function startSingle(): Promise<TestServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-ch-'));
  const { port, stdout } = await withPortRetry(3, async (port) => ({ port, ...(await run('bash', [SCRIPT, 'start-single', String(port), dir])) }));
  const pids = [Number(stdout.trim())];
  const url = `http://127.0.0.1:${port}`;
  return { url, urls: [url], dir, pids, stop: () => stopPids(pids, dir) };
}

/** Two shards (two processes) with the cluster `quarry_test`. */
export async function startCluster(): Promise<TestServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-chc-'));
  const { base, stdout } = await withPortRetry(13, async (base) => ({ base, ...(await run('bash', [SCRIPT, 'start-cluster', String(base), dir])) }));
  const pids = stdout.trim().split(/\s+/).map(Number);
  const urls = [`http://127.0.0.1:${base}`, `http://127.0.0.1:${base + 10}`];
  return { url: urls[0], urls, cluster: 'quarry_test', dir, pids, stop: () => stopPids(pids, dir) };
}
