import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { DuckDBInstance } from '@duckdb/node-api';
import { CacheTrimmer, memoryUsage, trimTarget, type CacheTrimHooks, type DuckDbMemoryUsage } from './cache-trim';
import { DuckDbEngine } from './duckdb-engine';
import { freshDirWithoutEnv } from '../../../test/helpers/fresh-dir';
import type { EventInsert } from '../engine';

const MB = 2 ** 20;

describe('trimTarget', () => {
  it.each([
    // [total, cache, limit, target]
    [100 * MB, 40 * MB, 64 * MB, null], // within the limit
    [100 * MB, 64 * MB, 64 * MB, null], // at the limit
    [200 * MB, 100 * MB, 64 * MB, 148 * MB], // cache 100 → 48 (3/4 of 64): total − 52
    [80 * MB, 80 * MB, 0, 0 + 1], // a zero limit evicts every cached block (a limit of at least 1 byte)
  ])('total %d, cache %d, limit %d → %p', (total, cache, limit, target) => {
    expect(trimTarget({ total, cache }, limit)).toBe(target);
  });

  it('sums duckdb_memory() rows, counting BASE_TABLE as the cache', () => {
    expect(
      memoryUsage([
        ['BASE_TABLE', 30n],
        ['IN_MEMORY_TABLE', 50],
        ['HASH_TABLE', '5'],
        ['ALLOCATOR', null],
      ]),
    ).toEqual({ total: 85, cache: 30 });
  });
});

/** Hooks over a fake engine: `busy` makes the exclusive section unavailable, `refuse` makes DuckDB refuse the limit. */
function fakeHooks(start: DuckDbMemoryUsage, opts: { busy?: boolean; refuse?: boolean } = {}) {
  const state = { ...start, limits: [] as number[], sections: 0 };
  const hooks: CacheTrimHooks = {
    usage: async () => ({ total: state.total, cache: state.cache }),
    exclusive: async (fn) => {
      if (opts.busy) return null;
      state.sections++;
      return fn({
        usage: async () => ({ total: state.total, cache: state.cache }),
        lowerAndRestore: async (bytes) => {
          state.limits.push(bytes);
          if (opts.refuse) return false;
          const evicted = Math.min(state.cache, Math.max(0, state.total - bytes));
          state.cache -= evicted;
          state.total -= evicted;
          return true;
        },
      });
    },
  };
  return { hooks, state };
}

describe('CacheTrimmer', () => {
  it('does nothing (and takes no exclusive section) while the cache is within its limit', async () => {
    const { hooks, state } = fakeHooks({ total: 90 * MB, cache: 20 * MB });
    const t = new CacheTrimmer(64 * MB, hooks);
    expect(await t.trimOnce()).toEqual({ cacheBefore: 20 * MB, cacheAfter: null, skipped: 'within_limit' });
    expect(state.sections).toBe(0);
  });

  it('evicts the excess only: the rest of what DuckDB holds stays', async () => {
    const { hooks, state } = fakeHooks({ total: 180 * MB, cache: 100 * MB });
    const t = new CacheTrimmer(64 * MB, hooks);
    expect(await t.trimOnce()).toEqual({ cacheBefore: 100 * MB, cacheAfter: 48 * MB });
    expect(state.limits).toEqual([128 * MB]);
    expect(state.total).toBe(128 * MB);
    expect(t.stats).toMatchObject({ trims: 1, busy: 0, refused: 0 });
  });

  it('skips when the engine stays busy, and when DuckDB refuses the lower limit', async () => {
    const busy = new CacheTrimmer(64 * MB, fakeHooks({ total: 180 * MB, cache: 100 * MB }, { busy: true }).hooks);
    expect((await busy.trimOnce()).skipped).toBe('busy');
    expect(busy.stats.busy).toBe(1);
    const refused = new CacheTrimmer(64 * MB, fakeHooks({ total: 180 * MB, cache: 100 * MB }, { refuse: true }).hooks);
    expect((await refused.trimOnce()).skipped).toBe('refused');
    expect(refused.stats.refused).toBe(1);
  });

  it('checks nothing on its timer while held (holds nest), and checks again once every hold is released', async () => {
    const { hooks, state } = fakeHooks({ total: 180 * MB, cache: 100 * MB });
    let checks = 0;
    const counted: CacheTrimHooks = { ...hooks, usage: async () => (checks++, hooks.usage()) };
    const t = new CacheTrimmer(64 * MB, counted);
    const release = t.hold();
    const inner = t.hold();
    t.start(5);
    try {
      // Wait (by ticks seen, not by time) until the timer has skipped a few checks.
      while (t.stats.held < 3) await new Promise((r) => setTimeout(r, 5));
      expect(checks).toBe(0);
      inner();
      release();
      release(); // a second release of the same hold changes nothing
      while (t.stats.trims < 1) await new Promise((r) => setTimeout(r, 5));
      expect(state.limits).toEqual([128 * MB]);
    } finally {
      await t.stop();
    }
  });

  it('rejects a limit that is not a byte count', () => {
    expect(() => new CacheTrimmer(Number.NaN, fakeHooks({ total: 0, cache: 0 }).hooks)).toThrow(/cache limit/);
  });
});

const events = (n: number, offset: number): EventInsert[] =>
  Array.from({ length: n }, (_, i) => ({
    project_id: 1,
    uuid: randomUUID(),
    event: i % 2 ? '$pageview' : 'signup',
    distinct_id: `u${(offset + i) % 997}`,
    person_id: randomUUID(),
    timestamp: 1_700_000_000_000 + offset + i,
    properties: JSON.stringify({ $browser: i % 2 ? 'Chrome' : 'Firefox', $current_url: `https://example.com/p/${offset + i}/${randomUUID()}`, n: offset + i }),
    session_id: null,
    elements_chain: null,
    created_at: 1_700_000_000_000,
  }));

async function rendered(value: string): Promise<string> {
  const i = await DuckDBInstance.create(':memory:');
  const c = await i.connect();
  await c.run(`SET memory_limit = '${value}'`);
  const r = await c.runAndReadAll(`SELECT current_setting('memory_limit')`);
  c.closeSync();
  i.closeSync();
  return String(r.getRows()[0][0]);
}

describe('DuckDbEngine cache limit', () => {
  const file = freshDirWithoutEnv('QUARRY_DUCKDB_CACHE_LIMIT', 'quarry-duck-cache-');

  const cacheMB = async (e: DuckDbEngine) =>
    Number((await e.readAll("SELECT coalesce(sum(memory_usage_bytes), 0) FROM duckdb_memory() WHERE tag = 'BASE_TABLE'"))[0][0]) / MB;

  /** Fills a file database and checkpoints it: the blocks the checkpoint wrote stay cached. */
  async function filled(file: string, opts: { cacheLimit?: string }): Promise<DuckDbEngine> {
    const e = await DuckDbEngine.open(file, { memoryLimit: '1GB', cacheTrimIntervalMs: 0, ...opts });
    for (let b = 0; b < 15; b++) await e.writeBatch({ events: events(4000, b * 4000) });
    await e.exec('CHECKPOINT');
    await e.readAll("SELECT count(*), sum(length(properties)), count(DISTINCT uuid) FROM events WHERE event <> ''");
    return e;
  }

  it('evicts cached table blocks above the cache limit and restores the memory limit; answers stay the same', async () => {
    const e = await filled(file('a.duckdb'), { cacheLimit: '4MB' });
    try {
      const before = await cacheMB(e);
      expect(before).toBeGreaterThan(4); // the test needs a cache above the limit
      const answer = await e.readAll('SELECT count(*), count(DISTINCT uuid), sum(length(properties)) FROM events');
      const r = await e.trimCache();
      expect(r).not.toBeNull();
      expect(r!.skipped).toBeUndefined();
      expect(r!.cacheAfter! / MB).toBeLessThanOrEqual(3 + 0.5); // 3/4 of the limit, give or take a block
      expect(await cacheMB(e)).toBeLessThanOrEqual(3.5);
      expect(String((await e.readAll("SELECT current_setting('memory_limit')"))[0][0])).toBe(await rendered('1GB'));
      // evicted blocks are read back from the file
      expect(await e.readAll('SELECT count(*), count(DISTINCT uuid), sum(length(properties)) FROM events')).toEqual(answer);
    } finally {
      await e.close();
    }
  });

  it('restores the memory limit in force, not the configured one (a native import lowers it while it runs)', async () => {
    const e = await filled(file('c.duckdb'), { cacheLimit: '4MB' });
    try {
      await e.setMemoryLimit('512MB');
      const r = await e.trimCache();
      expect(r!.skipped).toBeUndefined();
      expect(String((await e.readAll("SELECT current_setting('memory_limit')"))[0][0])).toBe(await rendered('512MB'));
      await e.setMemoryLimit(null);
      expect(String((await e.readAll("SELECT current_setting('memory_limit')"))[0][0])).toBe(await rendered('1GB'));
    } finally {
      await e.close();
    }
  });

  it('leaves a cache within its limit alone (default 32MB), and never trims at or above the memory limit', async () => {
    const e = await filled(file('b.duckdb'), {});
    try {
      expect((await e.trimCache())!.skipped).toBe('within_limit');
    } finally {
      await e.close();
    }
    const off = await DuckDbEngine.open(file('c.duckdb'), { memoryLimit: '100MB', cacheLimit: '100MB' });
    try {
      expect(await off.trimCache()).toBeNull();
    } finally {
      await off.close();
    }
  });

  it('reads QUARRY_DUCKDB_CACHE_LIMIT; refuses a size it cannot read', async () => {
    process.env.QUARRY_DUCKDB_CACHE_LIMIT = '2MB';
    const e = await filled(file('d.duckdb'), {});
    try {
      expect((await e.trimCache())!.cacheAfter! / MB).toBeLessThanOrEqual(2);
    } finally {
      await e.close();
    }
    await expect(DuckDbEngine.open(file('e.duckdb'), { cacheLimit: 'lots' })).rejects.toThrow(/cacheLimit must be a size/);
  });

  it('a trim among concurrent reads and writes: every read answers, nothing runs while the limit is lowered', async () => {
    const e = await filled(file('f.duckdb'), { cacheLimit: '2MB' });
    try {
      const expected = await e.readAll('SELECT count(*) FROM events WHERE project_id = 1');
      // Reads in flight whenever the limit is lowered (engine internals, observed through its trim section).
      const seen: number[] = [];
      const internals = e as unknown as { trimSection(): { lowerAndRestore(b: number): Promise<boolean> }; readsInFlight: number };
      const section = internals.trimSection.bind(e);
      internals.trimSection = () => {
        const s = section();
        return { ...s, lowerAndRestore: (b: number) => (seen.push(internals.readsInFlight), s.lowerAndRestore(b)) };
      };
      const reads = Array.from({ length: 30 }, () => e.readAll('SELECT count(*) FROM events WHERE project_id = 1'));
      const trims = Array.from({ length: 5 }, () => e.trimCache());
      const writes = e.writeBatch({ events: events(500, 1_000_000).map((ev) => ({ ...ev, project_id: 2 })) });
      for (const r of await Promise.all(reads)) expect(r).toEqual(expected);
      for (const t of await Promise.all(trims)) expect(['within_limit', 'busy', undefined]).toContain(t!.skipped);
      await writes;
      await e.readAll('SELECT sum(length(properties)), count(DISTINCT uuid) FROM events');
      await e.trimCache();
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((n) => n === 0)).toBe(true);
      expect(String((await e.readAll("SELECT current_setting('memory_limit')"))[0][0])).toBe(await rendered('1GB'));
    } finally {
      await e.close();
    }
  });
});
