/**
 * Fault: the event store is held by another process (issue #11 §7). A second Quarry on the same data directory
 * refuses to start with a clear message and exit code 1 — by the server lock file, and, when that file is gone,
 * by DuckDB's own file lock — while the first keeps serving reads and writes. A foreign DuckDB process holding
 * `events.duckdb` also makes Quarry refuse; once it lets go, Quarry starts on the same directory with everything
 * it had acknowledged, and SQLite checks clean.
 */
import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runChildCommand, startChildServer, stopAllChildren, type ChildServer } from '../helpers/child-server';

let dataDir: string;
let first: ChildServer | undefined;
let holder: ChildProcess | undefined;
const acked: string[] = [];

beforeAll(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-flock-'));
});
afterAll(async () => {
  if (holder && holder.exitCode === null && holder.signalCode === null) {
    const gone = new Promise((r) => holder!.once('exit', r));
    holder.kill('SIGKILL');
    await gone;
  }
  await stopAllChildren();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function capture(srv: ChildServer, n: number): Promise<number> {
  const token = (await srv.api('GET', '/api/projects/1/')).body.api_token;
  const batch = Array.from({ length: n }, (_, i) => ({ event: 'lock_test', distinct_id: `u${i % 3}`, uuid: randomUUID() }));
  const r = await fetch(`${srv.url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: token, batch }) });
  if (r.status === 200) acked.push(...batch.map((e) => e.uuid));
  return r.status;
}

async function storedUuids(srv: ChildServer): Promise<string[]> {
  const r = await srv.api('POST', '/api/projects/1/query/', {
    query: { kind: 'HogQLQuery', query: "SELECT toString(uuid) FROM events WHERE event = 'lock_test' LIMIT 50000" },
    refresh: 'force_blocking',
  });
  expect(r.status).toBe(200);
  return r.body.results.map((x: string[]) => x[0].toLowerCase());
}

async function waitForEvents(srv: ChildServer, n: number): Promise<string[]> {
  let got: string[] = [];
  for (let i = 0; i < 50; i++) {
    got = await storedUuids(srv);
    if (got.length >= n) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return got;
}

it('a second Quarry on the same data dir refuses (server lock), and the first keeps serving', async () => {
  first = await startChildServer({ dataDir });
  expect(await capture(first, 50)).toBe(200);
  expect((await first.api('POST', '/api/projects/1/insights/', { name: 'before', query: { kind: 'HogQLQuery', query: 'SELECT 1' } })).status).toBe(201);

  const second = await runChildCommand({ dataDir, timeoutMs: 30_000 });
  expect(second.timedOut).toBe(false);
  expect(second.code).toBe(1);
  expect(second.output).toContain(`A Quarry server (pid ${first.pid}, ${first.url}) holds ${dataDir}`);
  expect(second.output).toMatch(/only one process may write to a data directory/);

  expect(await capture(first, 50)).toBe(200);
  expect((await waitForEvents(first, 100)).length).toBe(100);
  expect((await first.api('GET', '/api/projects/1/insights/')).body.count).toBe(1);
});

it('without the lock file (a stale copy, a race), DuckDB’s file lock still refuses a second server; the first keeps serving', async () => {
  const lockFile = path.join(dataDir, 'server.json');
  const saved = fs.readFileSync(lockFile);
  fs.unlinkSync(lockFile);
  try {
    const second = await runChildCommand({ dataDir, timeoutMs: 30_000 });
    expect(second.timedOut).toBe(false);
    expect(second.code).toBe(1);
    expect(second.output).toMatch(/The event store \S+events\.duckdb is in use by another process \(only one Quarry server may open it/);
    expect(second.output).not.toMatch(/\n\s+at /); // a message, not a stack trace
  } finally {
    fs.writeFileSync(lockFile, saved);
  }
  expect(await capture(first!, 50)).toBe(200);
  expect((await waitForEvents(first!, 150)).length).toBe(150);
  expect((await first!.api('GET', '/healthz')).status).toBe(200);
  expect(await first!.stop()).toBe(0);
});

it('a foreign DuckDB process holding events.duckdb → clear refusal; after it exits Quarry starts with all acknowledged data', async () => {
  const duckdb = require.resolve('@duckdb/node-api');
  holder = spawn(
    process.execPath,
    [
      '-e',
      `require(${JSON.stringify(duckdb)}).DuckDBInstance.create(process.argv[1]).then((i) => i.connect()).then(() => { console.log('HOLDING'); setInterval(() => {}, 1000); }, (e) => { console.error(e.message); process.exit(1); });`,
      path.join(dataDir, 'events.duckdb'),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    holder!.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('HOLDING')) resolve();
    });
    holder!.stderr!.on('data', (d) => (out += d));
    holder!.once('exit', () => reject(new Error(`holder exited: ${out}`)));
  });

  const refused = await runChildCommand({ dataDir, timeoutMs: 30_000 });
  expect(refused.code).toBe(1);
  expect(refused.output).toMatch(/The event store \S+events\.duckdb is in use by another process/);
  expect(refused.output).toContain(`PID ${holder.pid}`);
  expect(refused.output).not.toMatch(/\n\s+at /);

  const gone = new Promise((r) => holder!.once('exit', r));
  holder.kill('SIGTERM');
  await gone;

  const again = await startChildServer({ dataDir });
  const stored = await storedUuids(again);
  expect(stored.length).toBe(acked.length);
  expect(new Set(stored)).toEqual(new Set(acked));
  expect((await again.api('GET', '/api/projects/1/insights/')).body.count).toBe(1);
  expect(await capture(again, 10)).toBe(200);
  expect(await again.stop()).toBe(0);
  const db = new Database(path.join(dataDir, 'quarry.sqlite'), { readonly: true });
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  } finally {
    db.close();
  }
});
