/**
 * Crash safety under a mixed workload (issue #11 §6). The real server runs in a child process; concurrent clients
 * capture events over /batch/, create and rename insights, create endpoints and personal API keys, and run
 * queries. The server is SIGKILLed mid-flight and restarted on the same data directory. Then:
 * - every event acknowledged with 200 is stored, by uuid, exactly once (the ingest log is replayed);
 * - every insight, endpoint and key acknowledged with a 2xx exists (a key still authenticates), an insight's name
 *   is its last acknowledged rename or the rename in flight at the kill (never an older one), and an insight whose
 *   delete was acknowledged stays deleted;
 * - both stores open cleanly: the server starts, answers /healthz, takes new writes, stops gracefully, and
 *   SQLite's integrity check passes.
 */
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChildServer, stopAllChildren, type ChildServer } from '../helpers/child-server';

const dirs: string[] = [];
afterAll(async () => {
  await stopAllChildren();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const TRENDS = (n: number) => ({
  kind: 'InsightVizNode',
  source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: `crash_${n % 3}` }], dateRange: { date_from: '-7d' } },
});

it('kill -9 during capture + metadata writes + queries loses no acknowledged write and duplicates nothing', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-crash-'));
  dirs.push(dataDir);
  let srv: ChildServer = await startChildServer({ dataDir });
  const token = (await srv.api('GET', '/api/projects/1/')).body.api_token as string;

  const ackedEvents = new Set<string>();
  const insights = new Map<number, { acked: string; inFlight: string | null; deleting: boolean }>();
  const deletedInsights = new Set<number>();
  const endpoints = new Set<string>();
  const keys = new Map<string, string>(); // id → value
  const counts = { captureReq: 0, insightWrites: 0, endpointWrites: 0, keyWrites: 0, queries: 0, serverErrorsBeforeKill: 0 };
  let killed = false;
  let stop = false;
  // A request cut by the kill (connection reset) or answered after it is not acknowledged; anything else counts.
  const call = async (method: string, p: string, body?: unknown) => {
    try {
      const r = await srv.api(method, p, body, undefined, 10_000);
      if (r.status >= 500 && !killed) counts.serverErrorsBeforeKill++;
      return r;
    } catch {
      return null;
    }
  };

  const capture = async (c: number) => {
    for (let n = 0; !stop; n++) {
      const batch = Array.from({ length: 25 }, (_, i) => ({
        event: `crash_${(n + i) % 3}`,
        distinct_id: `c${c}-u${i % 7}`,
        uuid: randomUUID(),
        properties: { c, n, i, $set: { n } },
      }));
      try {
        const r = await fetch(`${srv.url}/batch/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ api_key: token, batch }),
          signal: AbortSignal.timeout(10_000),
        });
        await r.text();
        if (r.status === 200) for (const e of batch) ackedEvents.add(e.uuid);
        else if (r.status >= 500 && !killed) counts.serverErrorsBeforeKill++;
        counts.captureReq++;
      } catch {
        return;
      }
    }
  };
  const insightWriter = async (w: number) => {
    for (let n = 0; !stop; n++) {
      const name = `crash insight ${w}-${n}`;
      const r = await call('POST', '/api/projects/1/insights/', { name, query: TRENDS(n) });
      if (!r) return;
      if (r.status !== 201) continue;
      counts.insightWrites++;
      const id = r.body.id as number;
      insights.set(id, { acked: name, inFlight: null, deleting: false });
      // One rename per insight, awaited: at most one rename of it is in flight at the kill.
      const renamed = `${name} renamed`;
      insights.get(id)!.inFlight = renamed;
      const u = await call('PATCH', `/api/projects/1/insights/${id}/`, { name: renamed });
      if (!u) return;
      if (u.status === 200) insights.set(id, { acked: renamed, inFlight: null, deleting: false });
      counts.insightWrites++;
      if (n % 3 === 2) {
        insights.get(id)!.deleting = true;
        const d = await call('PATCH', `/api/projects/1/insights/${id}/`, { deleted: true });
        if (!d) return;
        if (d.status === 200) {
          insights.delete(id);
          deletedInsights.add(id);
        } else insights.get(id)!.deleting = false;
        counts.insightWrites++;
      }
    }
  };
  const endpointWriter = async () => {
    for (let n = 0; !stop; n++) {
      const name = `crash_ep_${n}`;
      const r = await call('POST', '/api/environments/1/endpoints/', {
        name,
        query: { kind: 'HogQLQuery', query: 'SELECT event, count() AS c FROM events WHERE event = {variables.e} GROUP BY event' },
        variables: [{ name: 'e', type: 'String', default: 'crash_0' }],
      });
      if (!r) return;
      if (r.status === 201) {
        endpoints.add(name);
        counts.endpointWrites++;
        await call('POST', `/api/environments/1/endpoints/${name}/run`, { variables: { e: 'crash_1' } });
      }
    }
  };
  const keyWriter = async () => {
    for (let n = 0; !stop; n++) {
      const r = await call('POST', '/api/personal_api_keys/', { label: `crash ${n}`, scopes: ['project:read'] });
      if (!r) return;
      if (r.status === 201) {
        keys.set(r.body.id, r.body.value);
        counts.keyWrites++;
      }
    }
  };
  const querier = async (q: number) => {
    for (let n = 0; !stop; n++) {
      const query =
        n % 2 === 0
          ? { kind: 'HogQLQuery', query: 'SELECT event, count() FROM events GROUP BY event ORDER BY event' }
          : { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: `crash_${q % 3}` }], dateRange: { date_from: '-1d' } };
      const r = await call('POST', '/api/projects/1/query/', { query, refresh: n % 3 === 0 ? 'force_blocking' : 'blocking' });
      if (!r) return;
      counts.queries++;
    }
  };

  const workers = [
    ...[0, 1, 2, 3, 4, 5].map(capture),
    insightWriter(0),
    insightWriter(1),
    endpointWriter(),
    keyWriter(),
    querier(0),
    querier(1),
  ];
  // Kill once every kind of write has been acknowledged several times (or after 25 s of load at most: on an idle
  // machine this takes ~2 s; a loaded one acknowledged no endpoint write in 8 s).
  const deadline = Date.now() + 25_000;
  await new Promise((r) => setTimeout(r, 1500));
  while (
    Date.now() < deadline &&
    !(ackedEvents.size >= 1000 && counts.insightWrites >= 6 && counts.endpointWrites >= 3 && counts.keyWrites >= 3 && counts.queries >= 4)
  )
    await new Promise((r) => setTimeout(r, 100));
  killed = true;
  await srv.kill();
  stop = true;
  await Promise.all(workers);

  expect(counts.serverErrorsBeforeKill).toBe(0);
  expect(ackedEvents.size).toBeGreaterThan(200);
  expect(insights.size).toBeGreaterThan(0);
  expect(endpoints.size).toBeGreaterThan(0);
  expect(keys.size).toBeGreaterThan(0);

  // Restart on the same data directory: the ingest log is replayed before the server listens.
  srv = await startChildServer({ dataDir });
  expect((await srv.api('GET', '/healthz')).status).toBe(200);

  // Events: every acknowledged uuid exactly once (pages hold at most 50,000 rows; the run stays far below).
  const stored = await srv.api('POST', '/api/projects/1/query/', {
    query: { kind: 'HogQLQuery', query: "SELECT toString(uuid) FROM events WHERE event LIKE 'crash_%'", limit: 50000 },
    refresh: 'force_blocking',
  });
  expect(stored.status).toBe(200);
  expect(stored.body.hasMore).toBe(false);
  const uuids: string[] = stored.body.results.map((r: string[]) => r[0].toLowerCase());
  const unique = new Set(uuids);
  expect(uuids.length - unique.size).toBe(0); // nothing duplicated
  const missing = [...ackedEvents].filter((u) => !unique.has(u));
  expect(missing).toEqual([]);

  // Insights: present, with the last acknowledged name (or the rename in flight at the kill).
  const list = await srv.api('GET', '/api/projects/1/insights/?limit=1000');
  expect(list.status).toBe(200);
  const byId = new Map<number, string>(list.body.results.map((i: { id: number; name: string }) => [i.id, i.name]));
  for (const [id, { acked, inFlight, deleting }] of insights) {
    if (!byId.has(id) && deleting) continue; // its delete was in flight at the kill
    expect(byId.has(id)).toBe(true);
    expect([acked, inFlight]).toContain(byId.get(id));
  }
  for (const id of deletedInsights) expect(byId.has(id)).toBe(false); // acknowledged deletes stay deleted
  // Endpoints: present and runnable.
  const eps = await srv.api('GET', '/api/environments/1/endpoints/?limit=1000');
  expect(eps.status).toBe(200);
  const epNames = new Set(eps.body.results.map((e: { name: string }) => e.name));
  for (const name of endpoints) expect(epNames.has(name)).toBe(true);
  const run = await srv.api('POST', `/api/environments/1/endpoints/${[...endpoints][0]}/run`, { variables: { e: 'crash_0' } });
  expect(run.status).toBe(200);
  // Keys: every acknowledged key still authenticates.
  for (const [, value] of keys) expect((await srv.api('GET', '/api/projects/', undefined, value)).status).toBe(200);

  // The restarted server takes writes, and stops gracefully; then SQLite checks clean.
  const more = await fetch(`${srv.url}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: token, batch: [{ event: 'after_crash', distinct_id: 'x' }] }),
  });
  expect(more.status).toBe(200);
  expect((await srv.api('POST', '/api/projects/1/insights/', { name: 'after crash', query: TRENDS(0) })).status).toBe(201);
  expect(await srv.stop()).toBe(0);
  const db = new Database(path.join(dataDir, 'quarry.sqlite'), { readonly: true });
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  } finally {
    db.close();
  }
  if (process.env.DEBUG_CRASH) console.log({ ...counts, events: ackedEvents.size, insights: insights.size, deleted: deletedInsights.size, endpoints: endpoints.size, keys: keys.size });
}, 120_000);
