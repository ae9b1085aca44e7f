/**
 * Fault: the data directory's disk is full (issue #11 §7), on a small tmpfs mounted for this test (root only;
 * skipped with the reason in its name where mounting is impossible). With the disk full:
 * - capture answers 503 "transient error, please retry" (never 200) when its events cannot be made durable;
 * - reads keep working (health, metadata lists, ProductQL);
 * - a metadata write either succeeds or fails with the standard error body, never a half-write.
 * After space is freed, capture works again without a restart, everything acknowledged becomes queryable, and
 * after a SIGKILL + restart on the same directory every acknowledged event is stored exactly once and the ingest
 * log holds no corrupt record before valid ones.
 */
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChildServer, stopAllChildren, type ChildServer } from '../helpers/child-server';

const MOUNT_MB = 48;
const mount = (dir: string) => execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${MOUNT_MB}m,mode=0700`, 'quarry-test-tmpfs', dir], { stdio: 'pipe' });
const umount = (dir: string) => {
  try {
    execFileSync('umount', [dir], { stdio: 'pipe' });
  } catch {
    execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
  }
};

/**
 * Whether a tmpfs can be mounted here: probed at collection time (mounted and unmounted at once) so the suite is
 * skipped with the reason in its name; the real mount happens in beforeAll, so a filtered-out run mounts nothing.
 */
function probeMount(): string | null {
  if (process.platform !== 'linux') return `not Linux (${process.platform})`;
  if (process.getuid?.() !== 0) return 'not running as root (mounting a tmpfs needs it)';
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-mount-probe-'));
  try {
    mount(probe);
    umount(probe);
    return null;
  } catch (e) {
    return `mount -t tmpfs failed: ${String((e as { stderr?: Buffer }).stderr ?? (e as Error).message).trim()}`;
  } finally {
    fs.rmSync(probe, { recursive: true, force: true });
  }
}
const skipReason = probeMount();
const describeMounted = skipReason ? describe.skip : describe;
if (skipReason) console.warn(`faults-disk-full: SKIPPED — ${skipReason}`);

/** Fills the file system holding `dir` with `filler` until a 1-byte write fails; returns the bytes written. */
function fillDisk(filler: string): number {
  const fd = fs.openSync(filler, 'a');
  let total = 0;
  try {
    for (const size of [1 << 20, 64 << 10, 4096, 1]) {
      const buf = Buffer.alloc(size, 0x61);
      for (;;) {
        try {
          total += fs.writeSync(fd, buf);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw e;
        }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return total;
}

/** Every complete line of every ingest-log segment must be a valid record; only a segment's tail may be torn. */
function logDamage(dataDir: string): string[] {
  const dir = path.join(dataDir, 'ingest-log');
  const problems: string[] = [];
  for (const name of fs.readdirSync(dir).filter((n) => /^wal-\d+\.log$/.test(n)).sort()) {
    const lines = fs.readFileSync(path.join(dir, name), 'utf8').split('\n');
    lines.pop(); // the tail after the last newline (empty, or torn by a crash)
    lines.forEach((l, i) => {
      try {
        const o = JSON.parse(l);
        if (typeof o.s !== 'number' || !Array.isArray(o.e)) throw new Error('shape');
      } catch {
        problems.push(`${name} line ${i + 1} of ${lines.length}: ${l.length} bytes not a record (${JSON.stringify(l.slice(0, 60))}…)`);
      }
    });
  }
  return problems;
}

describeMounted(`disk full on the data dir (tmpfs ${MOUNT_MB} MB)${skipReason ? ` — skipped: ${skipReason}` : ''}`, () => {
  const mountPoint = path.join(os.tmpdir(), `quarry-diskfull-${process.pid}-${Date.now()}`);
  const dataDir = path.join(mountPoint, 'data');
  const filler = path.join(mountPoint, 'filler.bin');
  let mounted = false;
  beforeAll(() => {
    fs.mkdirSync(mountPoint);
    mount(mountPoint);
    mounted = true;
  });
  afterAll(async () => {
    await stopAllChildren(); // by PID, before the unmount (the server holds files there)
    if (mounted) umount(mountPoint);
    fs.rmSync(mountPoint, { recursive: true, force: true });
  });
  const acked = new Set<string>();
  let srv: ChildServer;
  let token: string;

  const capture = async (n: number, tag: string) => {
    // ~300 bytes per event: a batch spans several pages, so it cannot fit in a page the log already has.
    const batch = Array.from({ length: n }, (_, i) => ({
      event: 'disk_test',
      distinct_id: `u${i % 5}`,
      uuid: randomUUID(),
      properties: { tag, i, pad: 'x'.repeat(200) },
    }));
    const r = await fetch(`${srv.url}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: token, batch }),
      signal: AbortSignal.timeout(20_000),
    });
    const text = await r.text();
    if (r.status === 200) for (const e of batch) acked.add(e.uuid);
    return { status: r.status, text };
  };
  const stored = async (): Promise<string[]> => {
    const r = await srv.api('POST', '/api/projects/1/query/', {
      query: { kind: 'HogQLQuery', query: "SELECT toString(uuid) FROM events WHERE event = 'disk_test' LIMIT 50000" },
      refresh: 'force_blocking',
    });
    expect(r.status).toBe(200);
    return r.body.results.map((x: string[]) => x[0].toLowerCase());
  };
  const waitStored = async (n: number, ms = 15_000) => {
    const until = Date.now() + ms;
    let got: string[] = [];
    while (Date.now() < until) {
      got = await stored();
      if (got.length >= n) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    return got;
  };

  it('capture refuses while full, reads keep working, and everything recovers after space is freed', async () => {
    fs.mkdirSync(dataDir);
    srv = await startChildServer({ dataDir, env: { QUARRY_DUCKDB_MEMORY_LIMIT: '256MB' } });
    token = (await srv.api('GET', '/api/projects/1/')).body.api_token;
    expect((await capture(100, 'before')).status).toBe(200);
    expect((await waitStored(100)).length).toBe(100);
    const insight = await srv.api('POST', '/api/projects/1/insights/', { name: 'before full', query: { kind: 'HogQLQuery', query: 'SELECT 1' } });
    expect(insight.status).toBe(201);

    fillDisk(filler);

    // Capture: never a 200 for events that could not be made durable.
    const refusals: { status: number; text: string }[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await capture(200, 'full');
      if (r.status !== 200) refusals.push(r);
    }
    expect(refusals.length).toBeGreaterThan(0);
    for (const r of refusals) expect(r).toEqual({ status: 503, text: 'transient error, please retry' });

    // Reads keep working.
    expect((await srv.api('GET', '/healthz')).status).toBe(200);
    expect((await srv.api('GET', '/api/projects/1/insights/')).body.count).toBe(1);
    expect((await stored()).length).toBeGreaterThanOrEqual(100);
    const trends = await srv.api('POST', '/api/projects/1/query/', {
      query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'disk_test' }], dateRange: { date_from: '-1d' } },
      refresh: 'force_blocking',
    });
    expect(trends.status).toBe(200);

    // A metadata write: done, or refused with the standard error body.
    const meta = await srv.api('POST', '/api/projects/1/insights/', { name: 'while full', query: { kind: 'HogQLQuery', query: 'SELECT 2' } });
    if (meta.status !== 201) {
      expect(meta.status).toBe(503);
      expect(meta.body).toMatchObject({ type: 'server_error', code: 'disk_full', detail: expect.stringMatching(/out of space/) });
    }
    const metaAcked = meta.status === 201;
    if (process.env.DEBUG_FAULTS) console.log('metadata write while full:', meta.status, meta.body);

    // Free the space: capture works again without a restart and everything acknowledged becomes queryable.
    fs.unlinkSync(filler);
    let after = await capture(100, 'after');
    for (let i = 0; i < 20 && after.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 250));
      after = await capture(100, 'after');
    }
    expect(after.status).toBe(200);
    const visible = await waitStored(acked.size);
    expect(new Set(visible)).toEqual(acked);
    expect((await srv.api('POST', '/api/projects/1/insights/', { name: 'after full', query: { kind: 'HogQLQuery', query: 'SELECT 3' } })).status).toBe(201);

    // One more acknowledged batch, then SIGKILL right away: the restart replays the log.
    expect((await capture(100, 'last')).status).toBe(200);
    await srv.kill();
    const damage = logDamage(dataDir);
    srv = await startChildServer({ dataDir });
    const replayed = await stored();
    expect(replayed.length).toBe(new Set(replayed).size);
    // Regression: "acknowledged events lost after a disk-full episode and a crash". A log write that failed with
    // ENOSPC left its partial bytes in the segment; the next group was appended after them, so the segment had a
    // torn line in the middle, and replay (which stops at the first bad line and truncates there) dropped every
    // acknowledged record after it: the 100 events of the 'last' batch. Fix in src/ingest/wal.ts (Wal.drain):
    // on a failed write/datasync, truncate the segment back to its last good size (or start a new segment when
    // that fails). These two assertions fail until that fix is applied.
    expect([...acked].filter((u) => !replayed.includes(u))).toEqual([]); // lost acknowledged events
    expect(damage).toEqual([]); // corrupt record in the middle of the ingest log
    expect(new Set(replayed)).toEqual(acked);
    const names = (await srv.api('GET', '/api/projects/1/insights/')).body.results.map((i: { name: string }) => i.name).sort();
    expect(names).toEqual(['after full', 'before full', ...(metaAcked ? ['while full'] : [])].sort());
    expect(await srv.stop()).toBe(0);
    const db = new Database(path.join(dataDir, 'quarry.sqlite'), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
    // two server starts and a log replay: well under 20 s on an idle machine, but CI may share its cores
  }, 180_000);
});
