/**
 * `quarry backup` / `quarry restore` of a data dir while a server serves and ingests (issue #11).
 *
 * The server runs in a child process (it owns the DuckDB file; server.json names it), events stream in through
 * /batch the whole time, and `quarry backup` goes through the server's POST /api/backups/. The backup is restored
 * into a new data dir, a server starts on it, and the restored state must be the acknowledged state at backup time:
 * every event acknowledged before the backup began, nothing that was not sent before it ended, no duplicate, and
 * the same metadata.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { backupCommand, restoreCommand } from '../../src/cli/backup-command';
import { CliError } from '../../src/cli/cli-error';
import { loadConfig } from '../../src/config';
import { readManifest, snapshotDataDir } from '../../src/backup/snapshot';
import type { Services } from '../../src/services';
import { startServer, TEST_KEY, type TestServer } from '../helpers/server';

const CHILD = path.join(__dirname, '..', 'helpers', 'quarry-child.js');
const made: string[] = [];
const tmp = (p: string) => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), p));
  made.push(d);
  return d;
};

function childEnv(dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('QUARRY_')) env[k] = v;
  return {
    ...env,
    QUARRY_DATA_DIR: dataDir,
    QUARRY_PORT: '0',
    QUARRY_HOST: '127.0.0.1',
    QUARRY_LOG_LEVEL: 'warn',
    QUARRY_BOOTSTRAP_KEY: TEST_KEY,
    QUARRY_RATE_LIMIT_ENABLED: 'false',
  };
}

function serveChild(dataDir: string): Promise<{ child: ChildProcessWithoutNullStreams; url: string; stderr: () => string }> {
  const child = spawn(process.execPath, [CHILD, 'serve'], { env: childEnv(dataDir) });
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${out}\n${err}`)), 90_000);
    child.stderr.on('data', (d) => (err += d));
    child.stdout.on('data', (d) => {
      out += d;
      const m = /Quarry listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1], stderr: () => err });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}:\n${out}\n${err}`));
    });
  });
}

function stopChild(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    child.removeAllListeners('exit');
    child.on('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

/** Captures console output of an in-process CLI command. */
async function run(fn: () => Promise<number>): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((...a) => void out.push(a.join(' ')));
  const error = jest.spyOn(console, 'error').mockImplementation((...a) => void err.push(a.join(' ')));
  try {
    const code = await fn().catch((e) => {
      if (e instanceof CliError) {
        err.push(e.message);
        return 1;
      }
      throw e;
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

const configFor = (dataDir: string) => loadConfig({ QUARRY_DATA_DIR: dataDir, QUARRY_LOG_LEVEL: 'silent' });

async function api(url: string, method: string, p: string, body?: unknown, key = TEST_KEY) {
  const res = await fetch(url + p, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

let source: { child: ChildProcessWithoutNullStreams; url: string; stderr: () => string } | undefined;
let restored: TestServer | undefined;
afterAll(async () => {
  if (source) await stopChild(source.child);
  await restored?.close();
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

describe('backup while serving and ingesting, restore, serve the copy', () => {
  const dataDir = tmp('quarry-backup-src-');
  const backupDir = path.join(tmp('quarry-backup-out-'), 'b1');
  const restoreDir = path.join(tmp('quarry-backup-dst-'), 'data');

  /** Acknowledged events: marker n → ack time. */
  const acked = new Map<number, number>();
  let sent = 0;
  let stopIngest = false;
  let ingesting: Promise<void> | undefined;
  let token: string;
  let backupStarted = 0;
  let backupEnded = 0;
  let metadataAtBackup: unknown;
  const ingestErrors: string[] = [];

  const snapshotMetadata = async (url: string) => ({
    projects: (await api(url, 'GET', '/api/projects/')).body.results.map((p: { id: number; name: string; api_token: string }) => [p.id, p.name, p.api_token]),
    insights: (await api(url, 'GET', '/api/projects/2/insights/')).body.results.map((i: { id: number; name: string; query: unknown }) => [i.id, i.name, i.query]),
    endpoints: (await api(url, 'GET', '/api/projects/2/endpoints/')).body.results.map((e: { name: string; query: unknown }) => [e.name, e.query]),
    keys: (await api(url, 'GET', '/api/personal_api_keys/')).body.map((k: { id: string; label: string }) => [k.id, k.label]).sort(),
  });

  it('the source server serves metadata and a stream of events', async () => {
    source = await serveChild(dataDir);
    const p = await api(source.url, 'POST', '/api/projects/', { name: 'backed-up' });
    expect(p.status).toBe(201);
    token = p.body.api_token;
    expect((await api(source.url, 'POST', '/api/projects/2/insights/', { name: 'kept', query: { kind: 'ProductQLQuery', query: 'SELECT 1' } })).status).toBe(201);
    expect((await api(source.url, 'POST', '/api/projects/2/endpoints/', { name: 'kept_ep', query: { kind: 'ProductQLQuery', query: 'SELECT 1' } })).status).toBe(201);
    expect((await api(source.url, 'POST', '/api/personal_api_keys/', { label: 'kept-key', scopes: ['query:read'] })).status).toBe(201);

    const url = source.url;
    const worker = async () => {
      while (!stopIngest) {
        const first = sent;
        const n = 20;
        sent += n;
        const batch = Array.from({ length: n }, (_, i) => ({ event: "bk", distinct_id: `u${(first + i) % 37}`, properties: { n: first + i } }));
        const r = await fetch(`${url}/batch/`, { method: 'POST', body: JSON.stringify({ api_key: token, batch }) }).catch((e: Error) => ({ status: `${e.message}: ${String((e.cause as Error)?.message)}` }));
        if (r.status !== 200) {
          ingestErrors.push(`capture answered ${r.status}; server stderr: ${source?.stderr()}`);
          return;
        }
        const now = performance.now();
        for (let i = 0; i < n; i++) acked.set(first + i, now);
      }
    };
    ingesting = Promise.all([worker(), worker(), worker()]).then(() => undefined);
    await new Promise((r) => setTimeout(r, 1500));
    expect(acked.size).toBeGreaterThan(0);
  }, 120_000);

  it('quarry backup goes through the server while it ingests', async () => {
    metadataAtBackup = await snapshotMetadata(source!.url);
    backupStarted = performance.now();
    const r = await run(() => backupCommand(configFor(dataDir), [backupDir, '--key', TEST_KEY]));
    backupEnded = performance.now();
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toMatch(/^Backed up .* to .*b1 in [\d.]+ s: \d+ events, \d+ persons .*, 2 projects, 1 insights, 1 endpoints, 2 personal keys\.$/);
    // keep ingesting a little after the backup: those events must not appear in the copy
    await new Promise((res) => setTimeout(res, 500));
    stopIngest = true;
    await ingesting;
    const m = readManifest(backupDir);
    expect(m.counts).toMatchObject({ projects: 2, insights: 1, endpoints: 1, keys: 2 });
    expect(m.ingestLog.segments.length).toBeGreaterThan(0); // captured events went through the log
    // the server's staging copy was moved, not left behind
    expect(fs.readdirSync(path.join(dataDir, 'backups'))).toEqual([]);
    expect(ingestErrors).toEqual([]);
    expect(acked.size).toBe(sent);
  }, 120_000);

  it('restore refuses a data dir a server is running on, and a non-empty one', async () => {
    const busy = await run(() => restoreCommand(configFor(dataDir), [backupDir]));
    expect(busy.code).toBe(1);
    expect(busy.err).toMatch(/A Quarry server \(pid \d+, http:\/\/127\.0\.0\.1:\d+\) is running on .*: stop it/);
    const full = tmp('quarry-backup-full-');
    fs.writeFileSync(path.join(full, 'something'), 'x');
    const nonEmpty = await run(() => restoreCommand(configFor(full), [backupDir]));
    expect(nonEmpty.code).toBe(1);
    expect(nonEmpty.err).toMatch(/is not empty: restore only into an empty/);
    const notBackup = await run(() => restoreCommand(configFor(tmp('quarry-backup-e-')), [full]));
    expect(notBackup.err).toMatch(/is not a Quarry backup/);
  });

  it('quarry restore (the CLI process) into a new data dir', async () => {
    const r = spawnSync(process.execPath, [CHILD, 'restore', backupDir], { env: childEnv(restoreDir), encoding: 'utf8', timeout: 90_000 });
    expect({ code: r.status, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^Restored the backup of \S+ into .*data: \d+ events/);
  }, 120_000);

  it('a server on the restored dir has the acknowledged state at backup time', async () => {
    await stopChild(source!.child);
    source = undefined;
    restored = await startServer({ dataDir: restoreDir });
    expect(await snapshotMetadata(restored.url)).toEqual(metadataAtBackup);
    await restored.server.services.ingestor.flush();
    const q = await restored.api('POST', '/api/projects/2/query/', {
      query: { kind: 'ProductQLQuery', query: "SELECT toInt(properties.n) AS n, count() AS c, count(DISTINCT uuid) AS u FROM events WHERE event = 'bk' GROUP BY n ORDER BY n LIMIT 50000" },
      refresh: 'force_blocking',
    });
    expect(q.status).toBe(200);
    const rows = q.body.results as [number, number, number][];
    const present = new Set(rows.map((r) => r[0]));
    // nothing duplicated
    expect(rows.filter((r) => r[1] !== 1 || r[2] !== 1)).toEqual([]);
    // every event acknowledged before the backup began is there
    const before = [...acked].filter(([, t]) => t < backupStarted).map(([n]) => n);
    expect(before.length).toBeGreaterThan(0);
    expect(before.filter((n) => !present.has(n))).toEqual([]);
    // and nothing acknowledged after it ended
    const after = [...acked].filter(([, t]) => t > backupEnded).map(([n]) => n);
    expect(after.length).toBeGreaterThan(0);
    expect(after.filter((n) => present.has(n))).toEqual([]);
    // the counts are the manifest's events plus the replayed log
    const m = readManifest(backupDir);
    expect(rows.length).toBeGreaterThanOrEqual(m.counts.events);
  }, 120_000);
});

describe('who may take a backup', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer();
  });
  afterAll(async () => {
    await srv.close();
  });

  it('a personal key without * gets 403 naming the scope; a restricted * key gets 403', async () => {
    const k = await srv.api('POST', '/api/personal_api_keys/', { label: 'x', scopes: ['project:write', 'event:write', 'query:write'] });
    const r = await srv.api('POST', '/api/backups/', undefined, k.body.value);
    expect(r.body).toEqual({ type: 'authentication_error', code: 'permission_denied', detail: "API key missing required scope '*'", attr: null });
    const restricted = await srv.api('POST', '/api/personal_api_keys/', { label: 'r', scopes: ['*'], scoped_teams: [1] });
    const r2 = await srv.api('POST', '/api/backups/', undefined, restricted.body.value);
    expect([r2.status, r2.body.detail]).toEqual([403, 'API keys with scoped projects are only supported on project-based endpoints.']);
  });

  it('the instance admin key gets the backup under <dataDir>/backups/', async () => {
    const r = await srv.api('POST', '/api/backups/');
    expect(r.status).toBe(201);
    expect(path.dirname(r.body.path)).toBe(path.join(srv.dataDir, 'backups'));
    expect(readManifest(r.body.path).counts.projects).toBe(1);
  });

  it('ClickHouse-engine events are ClickHouse\'s to back up: a clear refusal, nothing written', async () => {
    const dir = path.join(tmp('quarry-backup-ch-'), 'b');
    const services = { config: { dataDir: srv.dataDir, clickhouse: { url: 'http://127.0.0.1:8123' } } } as unknown as Services;
    await expect(snapshotDataDir(services, dir)).rejects.toMatchObject({ status: 400, code: 'backup_unsupported', message: expect.stringMatching(/back them up with ClickHouse itself/) });
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('with no server, quarry backup opens the stores itself', async () => {
    const dir = tmp('quarry-backup-off-');
    const stopped = tmp('quarry-backup-offsrc-');
    const s = await startServer({ dataDir: stopped });
    await s.server.services.ingestor.import(1, { events: [{ event: 'off', distinct_id: 'd', timestamp: '2024-01-01T00:00:00Z' }] });
    await s.close();
    const r = await run(() => backupCommand(configFor(stopped), [path.join(dir, 'b')]));
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(readManifest(path.join(dir, 'b')).counts).toMatchObject({ events: 1, projects: 1 });
    const again = await run(() => backupCommand(configFor(stopped), [path.join(dir, 'b')]));
    expect(again.err).toMatch(/Backup directory .* is not empty/);
  });
});
