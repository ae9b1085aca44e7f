import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { DuckDBInstance } from '@duckdb/node-api';
import { DuckDbEngine } from './duckdb-engine';
import { freshDirWithoutEnv } from '../../../test/helpers/fresh-dir';
import type { EventInsert } from '../engine';

/** DuckDB's own rendering of a size setting (e.g. '64MB' → '61.0 MiB'), to compare settings read back. */
async function rendered(name: string, value: string): Promise<string> {
  const i = await DuckDBInstance.create(':memory:');
  const c = await i.connect();
  await c.run(`SET ${name} = '${value}'`);
  const r = await c.runAndReadAll(`SELECT current_setting('${name}')`);
  c.closeSync();
  i.closeSync();
  return String(r.getRows()[0][0]);
}

async function setting(e: DuckDbEngine, name: string): Promise<string> {
  return String((await e.readAll(`SELECT current_setting('${name}')`))[0][0]);
}

const events = (n: number, offset: number): EventInsert[] =>
  Array.from({ length: n }, (_, i) => ({
    project_id: 1,
    uuid: randomUUID(),
    event: i % 2 ? '$pageview' : 'signup',
    distinct_id: `u${(offset + i) % 997}`,
    person_id: randomUUID(),
    timestamp: 1_700_000_000_000 + offset + i,
    properties: JSON.stringify({ $browser: i % 2 ? 'Chrome' : 'Firefox', $current_url: `https://example.com/p/${offset + i}`, n: offset + i }),
    session_id: null,
    elements_chain: null,
    created_at: 1_700_000_000_000,
  }));

describe('DuckDB memory and checkpoint settings', () => {
  const saved = { mem: process.env.QUARRY_DUCKDB_MEMORY_LIMIT, ckpt: process.env.QUARRY_DUCKDB_CHECKPOINT_THRESHOLD };
  let dir: string;
  beforeEach(() => {
    delete process.env.QUARRY_DUCKDB_MEMORY_LIMIT;
    delete process.env.QUARRY_DUCKDB_CHECKPOINT_THRESHOLD;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-duck-settings-'));
  });
  afterEach(() => {
    for (const [k, v] of [
      ['QUARRY_DUCKDB_MEMORY_LIMIT', saved.mem],
      ['QUARRY_DUCKDB_CHECKPOINT_THRESHOLD', saved.ckpt],
    ] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('defaults to a 1GB memory limit and a 64MB checkpoint threshold', async () => {
    const e = await DuckDbEngine.open(path.join(dir, 'e.duckdb'));
    try {
      expect(await setting(e, 'memory_limit')).toBe(await rendered('memory_limit', '1GB'));
      expect(await setting(e, 'checkpoint_threshold')).toBe(await rendered('checkpoint_threshold', '64MB'));
      // the allocator returns freed pages from 8MB peaks on, with its background thread (see DuckDbEngine.open)
      expect(await setting(e, 'allocator_flush_threshold')).toBe(await rendered('allocator_flush_threshold', '8MB'));
      expect(await setting(e, 'allocator_background_threads')).toBe('true');
    } finally {
      await e.close();
    }
  });

  it('reads QUARRY_DUCKDB_* from the environment; explicit options win', async () => {
    process.env.QUARRY_DUCKDB_MEMORY_LIMIT = '300MB';
    process.env.QUARRY_DUCKDB_CHECKPOINT_THRESHOLD = '8MB';
    const fromEnv = await DuckDbEngine.open(path.join(dir, 'a.duckdb'));
    try {
      expect(await setting(fromEnv, 'memory_limit')).toBe(await rendered('memory_limit', '300MB'));
      expect(await setting(fromEnv, 'checkpoint_threshold')).toBe(await rendered('checkpoint_threshold', '8MB'));
    } finally {
      await fromEnv.close();
    }
    const explicit = await DuckDbEngine.open(path.join(dir, 'b.duckdb'), { memoryLimit: '200MB', checkpointThreshold: '32MB' });
    try {
      expect(await setting(explicit, 'memory_limit')).toBe(await rendered('memory_limit', '200MB'));
      expect(await setting(explicit, 'checkpoint_threshold')).toBe(await rendered('checkpoint_threshold', '32MB'));
    } finally {
      await explicit.close();
    }
  });

  it('refuses a size it cannot read, naming the setting', async () => {
    await expect(DuckDbEngine.open(path.join(dir, 'c.duckdb'), { checkpointThreshold: '64 parsecs' })).rejects.toThrow(/checkpointThreshold must be a size/);
  });

  it('rows written since the last checkpoint are released by the checkpoint the threshold triggers', async () => {
    const file = path.join(dir, 'd.duckdb');
    const e = await DuckDbEngine.open(file, { checkpointThreshold: '2MB' });
    const inMemoryMB = async () =>
      Number((await e.readAll("SELECT coalesce(sum(memory_usage_bytes), 0) FROM duckdb_memory() WHERE tag = 'IN_MEMORY_TABLE'"))[0][0]) / 2 ** 20;
    try {
      let peak = 0;
      for (let b = 0; b < 40; b++) {
        await e.writeBatch({ events: events(2000, b * 2000) });
        peak = Math.max(peak, await inMemoryMB());
      }
      expect(Number((await e.readAll('SELECT count(*) FROM events'))[0][0])).toBe(80_000);
      // 80,000 events make ~15 MB of WAL: without checkpoints all of it would still be held in memory.
      expect(fs.statSync(file).size).toBeGreaterThan(1 * 2 ** 20);
      expect(fs.existsSync(`${file}.wal`) ? fs.statSync(`${file}.wal`).size : 0).toBeLessThan(4 * 2 ** 20);
      expect(peak).toBeLessThan(10);
    } finally {
      await e.close();
    }
  });
});

describe('DuckDB periodic checkpoint', () => {
  const tmpFile = freshDirWithoutEnv('QUARRY_DUCKDB_CHECKPOINT_INTERVAL_MS', 'quarry-duck-ckpt-');

  it('checkpoints rows held since the last checkpoint (below the WAL threshold), and only when there are some', async () => {
    const file = tmpFile('a.duckdb');
    const e = await DuckDbEngine.open(file, { checkpointIntervalMs: 0 });
    const inMemoryMB = async () =>
      Number((await e.readAll("SELECT coalesce(sum(memory_usage_bytes), 0) FROM duckdb_memory() WHERE tag = 'IN_MEMORY_TABLE'"))[0][0]) / 2 ** 20;
    try {
      for (let b = 0; b < 5; b++) await e.writeBatch({ events: events(2000, b * 2000) });
      expect(fs.statSync(`${file}.wal`).size).toBeGreaterThan(0);
      expect(await inMemoryMB()).toBeGreaterThan(1);
      expect(await e.checkpointIfWritten(`${file}.wal`)).toBe(true);
      expect(fs.statSync(`${file}.wal`, { throwIfNoEntry: false })?.size ?? 0).toBe(0);
      expect(await inMemoryMB()).toBeLessThan(1);
      expect(await e.checkpointIfWritten(`${file}.wal`)).toBe(false);
      expect(Number((await e.readAll('SELECT count(*) FROM events'))[0][0])).toBe(10_000);
    } finally {
      await e.close();
    }
  });

  it('skips the periodic checkpoint while maintenance is held (bulk import), and resumes when released', async () => {
    const file = tmpFile('held.duckdb');
    const e = await DuckDbEngine.open(file, { checkpointIntervalMs: 10 });
    const walBytes = () => fs.statSync(`${file}.wal`, { throwIfNoEntry: false })?.size ?? 0;
    const release = e.holdMaintenance();
    try {
      await e.writeBatch({ events: events(2000, 0) });
      expect(walBytes()).toBeGreaterThan(0);
      // Many intervals pass under the hold: the WAL stays (no periodic checkpoint took it).
      for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 20));
      expect(walBytes()).toBeGreaterThan(0);
      release();
      release(); // releasing twice is harmless
      for (let i = 0; i < 500 && walBytes() > 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(walBytes()).toBe(0);
      expect(Number((await e.readAll('SELECT count(*) FROM events'))[0][0])).toBe(2000);
    } finally {
      release();
      await e.close();
    }
  });

  it('refuses an interval that is not a non-negative integer (option or QUARRY_DUCKDB_CHECKPOINT_INTERVAL_MS)', async () => {
    await expect(DuckDbEngine.open(tmpFile('b.duckdb'), { checkpointIntervalMs: -1 })).rejects.toThrow(/checkpointIntervalMs must be a non-negative integer/);
    process.env.QUARRY_DUCKDB_CHECKPOINT_INTERVAL_MS = 'soon';
    await expect(DuckDbEngine.open(tmpFile('c.duckdb'))).rejects.toThrow(/checkpointIntervalMs must be a non-negative integer/);
  });
});
