/**
 * The compiled CLI (dist-style build into a temp dir) against a temp QUARRY_DATA_DIR: metadata commands, the
 * data-dir lock while a server runs, and `serve` (key printed once; SIGTERM drains and exits 0).
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const ROOT = path.resolve(__dirname, '..', '..');
let buildDir: string;
let MAIN: string;

beforeAll(() => {
  // Build into a temp dir (not the shared dist/), with node_modules reachable from it.
  buildDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-cli-build-'));
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(buildDir, 'node_modules'), 'dir');
  const tsc = spawnSync(
    process.execPath,
    // --noCheck: emit without type checking (half the time; CI's `tsc --noEmit` checks every build file's types)
    [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', path.join(buildDir, 'out'), '--incremental', 'false', '--tsBuildInfoFile', 'null', '--noCheck', '--sourceMap', 'false'],
    { cwd: ROOT, encoding: 'utf8' },
  );
  MAIN = path.join(buildDir, 'out', 'src', 'main.js');
  // `npm start` builds with this config and stops on any error, so any (syntax or config) error fails here too
  if (tsc.status !== 0 || !fs.existsSync(MAIN)) throw new Error(`build failed:\n${tsc.stdout}\n${tsc.stderr}`);
}, 120_000);

afterAll(() => {
  for (const d of [buildDir, ...made]) if (d) fs.rmSync(d, { recursive: true, force: true });
});

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('QUARRY_')) env[k] = v;
  return { ...env, QUARRY_LOG_LEVEL: 'warn', ...extra };
}

function quarry(dataDir: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [MAIN, ...args], { env: cleanEnv({ QUARRY_DATA_DIR: dataDir }), encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Like {@link quarry}, without blocking: the slow part is node loading the app, so independent runs overlap. */
function quarryAsync(dataDir: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { env: cleanEnv({ QUARRY_DATA_DIR: dataDir }) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const made: string[] = [];
const tmpDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-cli-'));
  made.push(d);
  return d;
};

interface Served {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  url: string;
}

/** Spawns `serve` and resolves once it prints "listening". */
function serve(dataDir: string): Promise<Served> {
  const child = spawn(process.execPath, [MAIN, 'serve'], { env: cleanEnv({ QUARRY_DATA_DIR: dataDir, QUARRY_PORT: '0', QUARRY_HOST: '127.0.0.1' }) });
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${out}\n${err}`)), 20_000);
    child.stderr.on('data', (d) => (err += d));
    child.stdout.on('data', (d) => {
      out += d;
      const m = /Quarry listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, stdout: () => out, url: m[1] });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}:\n${out}\n${err}`));
    });
  });
}

function stop(s: Served, signal: NodeJS.Signals = 'SIGTERM'): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    // Gone already, by exit or by a signal (exitCode stays null then: waiting for another 'exit' would hang).
    if (s.child.exitCode !== null || s.child.signalCode !== null) return resolve({ code: s.child.exitCode, signal: s.child.signalCode });
    s.child.removeAllListeners('exit');
    s.child.on('exit', (code, sig) => resolve({ code, signal: sig }));
    s.child.kill(signal);
  });
}

describe('metadata commands on a data dir', () => {
  const dataDir = tmpDir();

  it('the first command bootstraps and prints the key once', () => {
    const r = quarry(dataDir, 'projects', 'list');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Created project 1 and a personal API key with all scopes \(shown once\): phx_[2-9A-HJ-NP-Za-km-z]{43}/);
    expect(r.stdout).toMatch(/^1\tDefault project\tUTC\tphc_\S+$/m);
    const again = quarry(dataDir, 'projects', 'list');
    expect(again.stdout).not.toMatch(/phx_/);
  });

  it('projects create and list', () => {
    const r = quarry(dataDir, 'projects', 'create', '--name', 'X', '--timezone', 'Europe/Berlin', '--week-start', '1');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^Created project 2 "X" \(Europe\/Berlin\); capture token: phc_\S+\n$/);
    const list = quarry(dataDir, 'projects', 'list');
    expect(list.stdout.trim().split('\n').map((l) => l.split('\t').slice(0, 3))).toEqual([
      ['1', 'Default project', 'UTC'],
      ['2', 'X', 'Europe/Berlin'],
    ]);
  });

  const FAILURES: [string, string[], RegExp][] = [
    ['no name', ['projects', 'create'], /^Error: This field is required\. \(name\)$/m],
    ['bad timezone', ['projects', 'create', '--name', 'Y', '--timezone', 'Mars/Base'], /^Error: "Mars\/Base" is not a valid choice\. \(timezone\)$/m],
    ['bad week start', ['projects', 'create', '--name', 'Y', '--week-start', '3'], /"3" is not a valid choice\. \(week_start_day\)/],
    // Regression: parseArgs errors are not UserErrors, so main() printed them with console.error(e): a stack trace.
    ['regression: unknown option', ['projects', 'create', '--name', 'Y', '--colour', 'red'], /Unknown option '--colour'/],
    ['unknown subcommand', ['projects', 'frobnicate'], /^Usage: quarry projects list/m],
    ['unknown command', ['frobnicate'], /^Unknown command "frobnicate"\./m],
    ['keys create without scopes', ['keys', 'create'], /^Error: This field is required\. \(scopes\)$/m],
    ['keys create with unknown scope', ['keys', 'create', '--scopes', 'everything'], /^Error: Invalid scope: everything \(scopes\)$/m],
    ['keys create for a missing project', ['keys', 'create', '--scopes', 'query:read', '--projects', '77'], /^Error: You must be a member of all teams that you are scoping the key to\. \(scoped_teams\)$/m],
    ['keys revoke without id', ['keys', 'revoke'], /^Usage: quarry keys list/m],
    ['keys revoke unknown id', ['keys', 'revoke', 'no-such-id'], /^Error: Not found\.$/m],
  ];
  const failed = new Map<string, { code: number | null; stdout: string; stderr: string }>();

  describe('bad invocations', () => {
    beforeAll(async () => {
      // One at a time: each opens the event store, which allows a single process.
      for (const [name, args] of FAILURES) failed.set(name, await quarryAsync(dataDir, ...args));
    });

    it.each(FAILURES)('%s → exit 1 with a message on stderr', (name, _args, message) => {
      const r = failed.get(name)!;
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    });
  });

  it('help exits 0; no command prints usage and exits 1', () => {
    expect(quarry(dataDir, 'help')).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Usage: quarry <command>/) });
    expect(quarry(dataDir)).toMatchObject({ code: 1, stdout: expect.stringMatching(/^Usage: quarry <command>/) });
  });

  it('keys create, list and revoke', () => {
    const created = quarry(dataDir, 'keys', 'create', '--scopes', 'query:read', '--projects', '1', '--label', 'ci');
    expect(created.code).toBe(0);
    const m = /^Created key ([0-9a-f-]{36}) \(query:read\)\. It is shown only once:\n\n {4}(phx_[2-9A-HJ-NP-Za-km-z]{43})\n/.exec(created.stdout);
    expect(m).not.toBeNull();
    const [, id, value] = m!;

    const list = quarry(dataDir, 'keys', 'list');
    expect(list.code).toBe(0);
    expect(list.stdout).not.toContain(value);
    const rows = list.stdout.trim().split('\n').map((l) => l.split('\t'));
    expect(rows).toContainEqual([id, `phx_...${value.slice(-4)}`, 'query:read', '1', 'ci']);
    expect(rows.find((r) => r[4] === 'bootstrap')).toEqual([expect.any(String), expect.stringMatching(/^phx_\.\.\./), '*', 'all projects', 'bootstrap']);

    const revoked = quarry(dataDir, 'keys', 'revoke', id);
    expect(revoked).toMatchObject({ code: 0, stdout: `Revoked key ${id}.\n` });
    expect(quarry(dataDir, 'keys', 'list').stdout).not.toContain(id);
    expect(quarry(dataDir, 'keys', 'revoke', id).code).toBe(1);
  });

  it('a bad configuration is reported by variable name, exit 1', () => {
    const r = spawnSync(process.execPath, [MAIN, 'projects', 'list'], { env: cleanEnv({ QUARRY_DATA_DIR: dataDir, QUARRY_PORT: 'eighty' }), encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^Invalid configuration:\n {2}QUARRY_PORT: QUARRY_PORT must be an integer/);
  });
});

describe('serve', () => {
  it('prints the key on the first start only; SIGTERM drains and exits 0', async () => {
    const dataDir = tmpDir();
    const first = await serve(dataDir);
    const key = /shown only once:\n\n {4}(phx_\S+)\n/.exec(first.stdout())?.[1];
    expect(key).toMatch(/^phx_[2-9A-HJ-NP-Za-km-z]{43}$/);
    const res = await fetch(`${first.url}/api/projects/`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(JSON.parse(fs.readFileSync(path.join(dataDir, 'server.json'), 'utf8'))).toEqual({ pid: first.child.pid, url: first.url });

    // While the server holds the data dir, the CLI refuses to write to it.
    const busy = quarry(dataDir, 'projects', 'create', '--name', 'Z');
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain(`A Quarry server (pid ${first.child.pid}, ${first.url}) holds ${dataDir}`);
    expect(busy.stderr).toMatch(/stop it first/);
    expect(quarry(dataDir, 'keys', 'list').code).toBe(1);

    expect(await stop(first)).toEqual({ code: 0, signal: null });
    expect(fs.existsSync(path.join(dataDir, 'server.json'))).toBe(false);

    const second = await serve(dataDir);
    try {
      expect(second.stdout()).not.toMatch(/phx_/);
      expect(second.stdout()).not.toMatch(/shown only once/);
      const again = await fetch(`${second.url}/api/projects/`, { headers: { authorization: `Bearer ${key}` } });
      expect(again.status).toBe(200);
    } finally {
      expect(await stop(second, 'SIGINT')).toEqual({ code: 0, signal: null });
    }
    // After the server is gone the CLI works again.
    expect(quarry(dataDir, 'projects', 'create', '--name', 'Z').code).toBe(0);
  });

  /** POSTs a project with the body sent in two halves, sending SIGTERM in between; returns timings. */
  async function postAcrossSigterm(s: Served, key: string, agent: http.Agent) {
    const u = new URL(s.url);
    const body = JSON.stringify({ name: 'drained' });
    const half = body.length >> 1;
    const req = http.request({
      host: u.hostname,
      port: u.port,
      method: 'POST',
      path: '/api/projects/',
      agent,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    });
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.on('error', reject);
    });
    req.write(body.slice(0, half));
    await new Promise((r) => setTimeout(r, 300)); // the server has the headers: the request is in flight
    const exited = stop(s);
    await new Promise((r) => setTimeout(r, 300));
    req.end(body.slice(half));
    const res = await answered;
    return { res, exited };
  }

  it('SIGTERM while a request is in flight: the request completes, then the process exits 0', async () => {
    const dataDir = tmpDir();
    const s = await serve(dataDir);
    const key = /shown only once:\n\n {4}(phx_\S+)\n/.exec(s.stdout())![1];
    const agent = new http.Agent({ keepAlive: false });
    const { res, exited } = await postAcrossSigterm(s, key, agent);
    expect(res.status).toBe(201);
    expect(JSON.parse(res.text).name).toBe('drained');
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(quarry(dataDir, 'projects', 'list').stdout).toMatch(/\tdrained\t/);
  });

  // Regression: with forceCloseConnections 'idle', a keep-alive connection whose request was in flight at
  // SIGTERM gets no `Connection: close` and is idle only after close() reaped idle sockets, so shutdown waited
  // for the client to drop it or for fastify's keepAliveTimeout (72 s): longer than most supervisors' grace.
  it('regression: SIGTERM drain does not wait for a keep-alive client after its in-flight request', async () => {
    const dataDir = tmpDir();
    const s = await serve(dataDir);
    const key = /shown only once:\n\n {4}(phx_\S+)\n/.exec(s.stdout())![1];
    const agent = new http.Agent({ keepAlive: true }); // no free-socket timeout, like a browser or a pooled client
    try {
      const { res, exited } = await postAcrossSigterm(s, key, agent);
      expect(res.status).toBe(201);
      const outcome = await Promise.race([exited, new Promise((r) => setTimeout(() => r('still running 2 s after the last response'), 2000))]);
      expect(outcome).toEqual({ code: 0, signal: null });
    } finally {
      agent.destroy();
      await stop(s);
    }
  });

  // Regression: a connection that has sent nothing (a browser's speculative preconnect) is not idle to Node, so
  // close() waited for its headers timeout (60 s); it failed the GraphiQL browser suite's teardown on CI.
  it('regression: SIGTERM does not wait for a connection that never sent a request', async () => {
    const dataDir = tmpDir();
    const s = await serve(dataDir);
    const u = new URL(s.url);
    const silent = net.connect(Number(u.port), u.hostname);
    const dropped = new Promise<void>((resolve) => silent.on('close', () => resolve()));
    silent.on('error', () => undefined);
    silent.resume(); // flowing, so the server's FIN is read and 'close' follows
    try {
      await new Promise<void>((resolve, reject) => silent.once('connect', () => resolve()).once('error', reject));
      const exited = stop(s);
      const outcome = await Promise.race([exited, new Promise((r) => setTimeout(() => r('still running 2 s after SIGTERM'), 2000))]);
      expect(outcome).toEqual({ code: 0, signal: null });
      await dropped;
    } finally {
      silent.destroy();
      await stop(s, 'SIGKILL');
    }
  });

  it('serve on a data dir held by another live server exits 1 with a clear message', async () => {
    const dataDir = tmpDir();
    const s = await serve(dataDir);
    try {
      const r = spawnSync(process.execPath, [MAIN, 'serve'], { env: cleanEnv({ QUARRY_DATA_DIR: dataDir, QUARRY_PORT: '0' }), encoding: 'utf8', timeout: 20_000 });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`A Quarry server (pid ${s.child.pid}`);
    } finally {
      await stop(s);
    }
  });
});

describe('import and demo', () => {
  const KEY = 'phx_cli_import_key_0123456789abcdefghijklmnopq';
  const query = async (url: string, sql: string) => {
    const r = await fetch(`${url}/api/projects/1/query/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: { kind: 'ProductQLQuery', query: sql }, refresh: 'force_blocking' }),
    });
    return ((await r.json()) as { results: unknown[][] }).results;
  };

  it('imports NDJSON (persons, then gzipped events) directly, reporting bad lines by number', async () => {
    const dataDir = tmpDir();
    const persons = path.join(dataDir, '..', `persons-${path.basename(dataDir)}.ndjson`);
    const events = path.join(dataDir, '..', `events-${path.basename(dataDir)}.ndjson.gz`);
    made.push(persons, events);
    fs.writeFileSync(persons, JSON.stringify({ distinct_ids: ['alice'], properties: { plan: 'pro' }, created_at: '2024-01-01T00:00:00Z' }) + '\n');
    const lines = [
      ...Array.from({ length: 25 }, (_, i) => JSON.stringify({ event: 'e', distinct_id: i % 2 ? 'alice' : 'bob', timestamp: '2024-01-02T00:00:00Z' })),
      '{not json',
      JSON.stringify({ event: 'e', distinct_id: 'bob', timestamp: 'not a time' }),
    ];
    fs.writeFileSync(events, gzipSync(lines.join('\n') + '\n'));
    const r = spawnSync(process.execPath, [MAIN, 'import', '--project', '1', '--persons', persons, '--events', events], {
      env: cleanEnv({ QUARRY_DATA_DIR: dataDir, QUARRY_BOOTSTRAP_KEY: KEY }),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(2); // some lines were rejected
    expect(r.stdout).toContain('imported 1 persons and 0 events');
    expect(r.stdout).toContain('imported 0 persons and 25 events');
    expect(r.stdout).toMatch(/line 26 \(parse\)/);
    expect(r.stdout).toMatch(/line 27 \(event\)/);
    const s = await serve(dataDir);
    try {
      expect(await query(s.url, "SELECT count(), countIf(person.properties.plan = 'pro') FROM events")).toEqual([[25, 12]]);
    } finally {
      await stop(s);
    }
  });

  it('demo writes through the running server with a key, and refuses without one', async () => {
    const dataDir = tmpDir();
    fs.mkdirSync(dataDir, { recursive: true });
    const first = spawnSync(process.execPath, [MAIN, 'projects', 'list'], { env: cleanEnv({ QUARRY_DATA_DIR: dataDir, QUARRY_BOOTSTRAP_KEY: KEY }), encoding: 'utf8' });
    expect(first.status).toBe(0);
    const s = await serve(dataDir);
    try {
      const refused = await quarryAsync(dataDir, 'demo', '--events', '100');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('needs a key with event:write');
      const ok = spawnSync(process.execPath, [MAIN, 'demo', '--events', '3000', '--key', KEY], { env: cleanEnv({ QUARRY_DATA_DIR: dataDir }), encoding: 'utf8', timeout: 60_000 });
      expect(ok.status).toBe(0);
      expect(ok.stdout).toMatch(/Demo data: \d+ persons and 3000 events in project 1/);
      expect(await query(s.url, 'SELECT count() FROM events')).toEqual([[3000]]);
    } finally {
      await stop(s);
    }
  });
});
