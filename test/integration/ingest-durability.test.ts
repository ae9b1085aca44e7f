/**
 * Durability: a capture server in a child process under concurrent /batch load is killed with SIGKILL. After a
 * restart (log replay), every acknowledged uuid is stored exactly once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { startCaptureServer } from '../fixtures/ingest-server';

const TOKEN = 'phc_test_project_1';

function startChild(dataDir: string, parseWorkers?: number): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [path.join(__dirname, '../fixtures/ingest-server-child.js'), dataDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FLUSH_MS: '200', ...(parseWorkers === undefined ? {} : { PARSE_WORKERS: String(parseWorkers) }) },
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`child did not start: ${err}`)), 20_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /READY (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1] });
      }
    });
    child.stderr!.on('data', (d) => (err += d));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`child exited ${code}: ${err}`));
    });
  });
}

// Bodies are ~15 kB: above the size parse workers take, so with one worker every request is parsed and encoded for
// the log off the main thread (with none, on it).
it.each([0, 1])('every acknowledged event survives SIGKILL exactly once (parse workers: %i)', async (parseWorkers) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-durable-'));
  try {
    const { child, url } = await startChild(dir, parseWorkers);
    const acked = new Set<string>();
    // One request first: a worker running from TypeScript sources takes a while to start (it transpiles them).
    const warm = Array.from({ length: 50 }, (_, i) => ({ event: 'warm', distinct_id: 'w', uuid: randomUUID(), properties: { i, pad: 'p'.repeat(200) } }));
    const w = await fetch(`${url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: TOKEN, batch: warm }) });
    expect(w.status).toBe(200);
    for (const e of warm) acked.add(e.uuid);
    let stop = false;
    let requests = 0;
    const clients = Array.from({ length: 16 }, async (_, c) => {
      while (!stop) {
        const batch = Array.from({ length: 50 }, (_, i) => ({
          event: 'load',
          distinct_id: `c${c}-u${i % 5}`,
          uuid: randomUUID(),
          properties: { c, i, $set: { n: i }, pad: 'p'.repeat(200) },
        }));
        try {
          const r = await fetch(`${url}/batch/`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ api_key: TOKEN, batch }),
          });
          if (r.status === 200) for (const e of batch) acked.add(e.uuid);
          requests++;
        } catch {
          return; // connection reset by the kill: not acknowledged
        }
      }
    });
    await new Promise((r) => setTimeout(r, 1500));
    child.kill('SIGKILL');
    stop = true;
    await Promise.all(clients);
    await new Promise<void>((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', () => r())));
    expect(requests).toBeGreaterThan(20);
    expect(acked.size).toBeGreaterThan(1000);

    // Restart on the same data dir: the log is replayed into DuckDB.
    const srv = await startCaptureServer(dir);
    try {
      await srv.ingestor.flush();
      if (process.env.DEBUG_INGEST) console.log({ acked: acked.size, requests, replayed: srv.ingestor.stats.replayed });
      await srv.engine.exec('CREATE TABLE acked (uuid UUID)');
      const list = [...acked];
      for (let i = 0; i < list.length; i += 5000) {
        const chunk = list.slice(i, i + 5000);
        await srv.engine.exec(`INSERT INTO acked SELECT unnest($1::VARCHAR[])::UUID`, [JSON.stringify(chunk)]);
      }
      const missing = await srv.engine.readAll(
        'SELECT count(*) FROM acked a WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.uuid = a.uuid)',
      );
      expect(missing).toEqual([[0]]);
      const dup = await srv.engine.query('SELECT count(*) - count(DISTINCT uuid) FROM events', []);
      expect(dup.rows).toEqual([[0]]);
      // Person ids were assigned to every replayed event.
      const nulls = await srv.engine.query('SELECT count(*) FROM events WHERE person_id IS NULL', []);
      expect(nulls.rows).toEqual([[0]]);
    } finally {
      await srv.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 45_000);

it('a second process cannot open the same event store', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-lock-'));
  const srv = await startCaptureServer(dir);
  try {
    await expect(startChild(dir)).rejects.toThrow(/in use by another process/);
  } finally {
    await srv.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 30_000);
