/**
 * Capture over HTTP: the real posthog-node SDK against registerCaptureRoutes + DuckDB, and bad input.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import LZString from 'lz-string';
import { PostHog } from 'posthog-node';
import { startCaptureServer, type CaptureServer } from '../fixtures/ingest-server';

const TOKEN = 'phc_test_project_1';

// Everything runs twice: bodies parsed inline on the main thread, and by the worker-thread parse pool.
describe.each([0, 1])('parseWorkers=%i', (parseWorkers) => {
  let dir: string;
  let srv: CaptureServer;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-ingest-'));
    srv = await startCaptureServer(dir, { parseWorkers });
  });
  afterAll(async () => {
    await srv.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const rows = async (sql: string, params: unknown[] = []) => (await srv.engine.query(sql, params)).rows;

  function sdk(opts: { disableCompression?: boolean } = {}): PostHog {
    return new PostHog(TOKEN, {
      host: srv.url,
      flushAt: 100,
      flushInterval: 0,
      fetchRetryCount: 0,
      disableGeoip: true,
      enableLocalEvaluation: false,
      ...opts,
    });
  }

  async function post(p: string, body: string | Buffer, headers: Record<string, string> = {}) {
    const r = await fetch(`${srv.url}${p}`, { method: "POST", body: typeof body === "string" ? body : new Uint8Array(body), headers: { 'content-type': 'application/json', ...headers } });
    return { status: r.status, text: await r.text(), headers: r.headers };
  }

  describe.each([
    ['gzip', false],
    ['uncompressed', true],
  ])('posthog-node SDK (%s)', (label, disableCompression) => {
    it('captures events in groups of 100 exactly as sent', async () => {
      const client = sdk({ disableCompression });
      const run = randomUUID();
      const sent: { uuid: string; i: number }[] = [];
      for (let i = 0; i < 250; i++) {
        const uuid = randomUUID();
        sent.push({ uuid, i });
        client.capture({
          distinctId: `user-${label}-${i % 10}`,
          event: 'test_event',
          uuid,
          properties: { run, i, nested: { a: [1, 'two', { three: 3 }] }, unicode: 'héllo ✓' },
          timestamp: new Date(Date.parse('2024-03-01T00:00:00Z') + i * 1000),
        });
      }
      await client.shutdown();
      await srv.ingestor.flush();
      const got = await rows(
        `SELECT uuid::VARCHAR, distinct_id, properties, timestamp FROM events WHERE properties->>'$.run' = $1 ORDER BY (properties->>'$.i')::INT`,
        [run],
      );
      expect(got).toHaveLength(250);
      got.forEach((r, i) => {
        expect(r[0]).toBe(sent[i].uuid);
        expect(r[1]).toBe(`user-${label}-${i % 10}`);
        const props = r[2] as Record<string, unknown>;
        expect(props).toMatchObject({ run, i, nested: { a: [1, 'two', { three: 3 }] }, unicode: 'héllo ✓' });
        expect(props.$lib).toBe('posthog-node');
        // The SDK sends sent_at with the batch; the clock-skew correction is ~0 on one machine.
        expect(Math.abs(Date.parse(r[3] as string) - (Date.parse('2024-03-01T00:00:00Z') + i * 1000))).toBeLessThan(2000);
      });
    });

    it('identify, alias and $set build and merge persons', async () => {
      const client = sdk({ disableCompression });
      const anon = `anon-${label}-${randomUUID()}`;
      const user = `user-${label}-${randomUUID()}`;
      const other = `other-${label}-${randomUUID()}`;
      client.capture({ distinctId: anon, event: '$pageview', properties: { $set_once: { first_seen: 'x' } }, timestamp: new Date('2024-01-01T00:00:00Z') });
      client.capture({ distinctId: user, event: 'login', timestamp: new Date('2024-01-02T00:00:00Z') });
      await client.flush();
      await srv.ingestor.flush();
      const [[anonPerson]] = await rows('SELECT person_id::VARCHAR FROM events WHERE distinct_id = $1', [anon]);
      const [[userPerson]] = await rows('SELECT person_id::VARCHAR FROM events WHERE distinct_id = $1', [user]);
      expect(anonPerson).not.toBe(userPerson);

      client.identify({ distinctId: user, properties: { email: 'a@b.c', $anon_distinct_id: anon } });
      client.alias({ distinctId: user, alias: other });
      client.capture({ distinctId: user, event: '$set', properties: { $set: { plan: 'pro' } } });
      await client.shutdown();
      await srv.ingestor.flush();

      const persons = await rows(
        `SELECT p.id::VARCHAR, p.properties, p.is_identified, p.created_at, list_sort(list(d.distinct_id))
         FROM persons p JOIN person_distinct_ids d ON d.project_id = p.project_id AND d.person_id = p.id
         WHERE p.project_id = 1 AND p.id = $1::UUID GROUP BY ALL`,
        [userPerson],
      );
      expect(persons).toHaveLength(1);
      const [id, props, identified, createdAt, dids] = persons[0];
      expect(id).toBe(userPerson);
      // `$creator_event_uuid`: the event that created the (target) person, as PostHog's createPerson stores it.
      const [[login]] = await rows("SELECT uuid::VARCHAR FROM events WHERE distinct_id = $1 AND event = 'login'", [user]);
      expect(props).toEqual({ first_seen: 'x', email: 'a@b.c', plan: 'pro', $creator_event_uuid: login });
      expect(identified).toBe(true);
      // the earlier of the two (timestamps carry the few-ms clock-skew correction from sent_at)
      expect(Math.abs(Date.parse(createdAt as string) - Date.parse('2024-01-01T00:00:00Z'))).toBeLessThan(1000);
      expect(dids).toEqual([anon, other, user].sort());
      // The anonymous person is gone and its past events resolve to the merged person through the override.
      expect(await rows('SELECT count(*) FROM persons WHERE id = $1::UUID', [anonPerson])).toEqual([[0]]);
      const resolved = await rows(
        `SELECT coalesce(o.override_person_id, e.person_id)::VARCHAR FROM events e
         LEFT JOIN person_overrides o ON o.project_id = e.project_id AND o.old_person_id = e.person_id
         WHERE e.project_id = 1 AND e.distinct_id IN ($1, $2)`,
        [anon, user],
      );
      expect(new Set(resolved.map((r) => r[0]))).toEqual(new Set([userPerson]));
    });
  });

  describe('capture routes', () => {
    it.each(['/batch', '/batch/', '/capture', '/capture/', '/e', '/e/', '/i/v0/e', '/i/v0/e/', '/track', '/engage/'])(
      'POST %s accepts an event with {"status": 1}',
      async (p) => {
        const uuid = randomUUID();
        const r = await post(p, JSON.stringify({ api_key: TOKEN, event: 'route', distinct_id: 'r', uuid }));
        expect(r.status).toBe(200);
        expect(JSON.parse(r.text)).toEqual({ status: 1 });
        await srv.ingestor.flush();
        expect(await rows('SELECT count(*) FROM events WHERE uuid = $1::UUID', [uuid])).toEqual([[1]]);
      },
    );

    it('GET ?data= base64 and beacon=1 → 204', async () => {
      const uuid = randomUUID();
      const data = Buffer.from(JSON.stringify({ token: TOKEN, event: 'get', distinct_id: 'g', uuid })).toString('base64');
      const r = await fetch(`${srv.url}/e/?data=${encodeURIComponent(data)}&beacon=1`);
      expect(r.status).toBe(204);
      await srv.ingestor.flush();
      expect(await rows('SELECT count(*) FROM events WHERE uuid = $1::UUID', [uuid])).toEqual([[1]]);
    });

    it('form-encoded data= gzip and project routing by token', async () => {
      const uuid = randomUUID();
      const data = gzipSync(JSON.stringify([{ event: 'form', properties: { token: 'phc_test_project_2', distinct_id: 'f' }, uuid }])).toString('base64');
      const r = await post('/e/?compression=gzip-js', `data=${encodeURIComponent(data)}`, { 'content-type': 'application/x-www-form-urlencoded' });
      expect(r.status).toBe(200);
      await srv.ingestor.flush();
      expect(await rows('SELECT project_id FROM events WHERE uuid = $1::UUID', [uuid])).toEqual([[2]]);
    });

    it('lz64 (old posthog-js): a text/plain body and a form data= field, emoji intact', async () => {
      const u1 = randomUUID();
      const u2 = randomUUID();
      const body = (uuid: string) =>
        LZString.compressToBase64(JSON.stringify({ api_key: TOKEN, batch: [{ event: 'lz', uuid, properties: { distinct_id: 'lz', s: 'Ñ 🦔' } }] }));
      const plain = await post('/batch/?compression=lz64', body(u1), { 'content-type': 'text/plain' });
      expect(plain.status).toBe(200);
      const form = await post('/batch/', `data=${encodeURIComponent(body(u2))}&compression=lz64`, {
        'content-type': 'application/x-www-form-urlencoded',
      });
      expect(form.status).toBe(200);
      const bad = await post('/batch/?compression=lz64', 'N4Ig', { 'content-type': 'text/plain' });
      expect(bad.status).toBe(400);
      expect(bad.text).toMatch(/invalid lz64/);
      await srv.ingestor.flush();
      expect(
        await rows(`SELECT uuid::VARCHAR, properties->>'$.s' FROM events WHERE uuid IN ($1::UUID, $2::UUID) ORDER BY 1`, [u1, u2]),
      ).toEqual([u1, u2].sort().map((u) => [u, 'Ñ 🦔']));
    });

    it('CORS preflight mirrors the origin', async () => {
      const r = await fetch(`${srv.url}/batch/`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example', 'access-control-request-headers': 'content-type' },
      });
      expect(r.status).toBe(200);
      expect(r.headers.get('access-control-allow-origin')).toBe('https://app.example');
      expect(r.headers.get('access-control-allow-credentials')).toBe('true');
    });

    it('the same uuid sent twice is stored once', async () => {
      const uuid = randomUUID();
      const body = JSON.stringify({ api_key: TOKEN, batch: [{ event: 'dup', distinct_id: 'd', uuid }, { event: 'dup', distinct_id: 'd', uuid }] });
      expect((await post('/batch', body)).status).toBe(200);
      expect((await post('/batch', body)).status).toBe(200);
      await srv.ingestor.flush();
      expect(await rows('SELECT count(*) FROM events WHERE uuid = $1::UUID', [uuid])).toEqual([[1]]);
    });

    // PostHog's personInitialAndUTMProperties / normalizeProcessPerson (src/ingest/ingest-posthog-compat.test.ts), through
    // HTTP: a body over 8 kB goes to the parse worker when there is one.
    it('pageviews give their person $initial_* properties; a personless $identify is dropped; the stored events are as sent', async () => {
      const d = `initial-${parseWorkers}-${randomUUID()}`;
      const pad = 'p'.repeat(200);
      const batch = [
        ...Array.from({ length: 60 }, (_, i) => ({ event: '$pageview', distinct_id: d, timestamp: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(), properties: { $current_url: `https://a.com/${i}`, utm_source: 'mail', pad } })),
        { event: '$identify', distinct_id: `${d}-other`, properties: { $anon_distinct_id: d, $process_person_profile: false } },
      ];
      const body = JSON.stringify({ api_key: TOKEN, batch });
      expect(body.length).toBeGreaterThan(8 * 1024);
      expect((await post('/batch', body)).status).toBe(200);
      await srv.ingestor.flush();
      const persons = await rows(
        `SELECT p.properties FROM persons p JOIN person_distinct_ids d ON d.project_id = p.project_id AND d.person_id = p.id WHERE d.distinct_id = $1`,
        [d],
      );
      expect(persons.map((r) => (typeof r[0] === 'string' ? JSON.parse(r[0]) : r[0]))).toEqual([
        { $current_url: 'https://a.com/0', utm_source: 'mail', $initial_current_url: 'https://a.com/0', $initial_utm_source: 'mail', $creator_event_uuid: expect.stringMatching(/^[0-9a-f-]{36}$/) },
      ]);
      expect(await rows('SELECT count(*), count(*) FILTER (WHERE properties::VARCHAR LIKE \'%$set%\') FROM events WHERE distinct_id LIKE $1', [`${d}%`])).toEqual([[60, 0]]);
    });
  });

  describe('bad input: clear 4xx, nothing stored, server keeps serving', () => {
    const marker = randomUUID();
    const good = (extra: Record<string, unknown> = {}) => ({ event: 'bad_input', distinct_id: 'b', properties: { marker }, ...extra });
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);

    it.each<[string, string, () => string | Buffer, Record<string, string>, number, RegExp]>([
      ['malformed JSON', '/batch', () => `{"api_key":"${TOKEN}","batch":[`, {}, 400, /invalid JSON/],
      ['truncated gzip', '/batch', () => gzipSync(JSON.stringify({ api_key: TOKEN, batch: [good()] })).subarray(0, 30), { 'content-encoding': 'gzip' }, 400, /invalid GZIP/],
      ['wrong token', '/batch', () => JSON.stringify({ api_key: 'phc_nope', batch: [good()] }), {}, 401, /API key is not valid/],
      ['personal key as token', '/batch', () => JSON.stringify({ api_key: 'phx_abc', batch: [good()] }), {}, 401, /API key is not valid/],
      ['missing token', '/batch', () => JSON.stringify({ batch: [good()] }), {}, 401, /without an api_key/],
      ['oversize raw body on /e', '/e', () => JSON.stringify({ api_key: TOKEN, ...good({ properties: { marker, s: 'x'.repeat(3_200_000) } }) }), {}, 413, /maximum event size exceeded/],
      ['oversize decompressed gzip on /e', '/e', () => gzipSync(JSON.stringify({ api_key: TOKEN, ...good({ properties: { marker, s: 'x'.repeat(2_500_000) } }) })), { 'content-encoding': 'gzip' }, 413, /maximum event size exceeded/],
      ['unparseable timestamp', '/batch', () => JSON.stringify({ api_key: TOKEN, batch: [good(), good({ timestamp: 'not a date' })] }), {}, 400, /timestamp/],
      ['invalid uuid', '/batch', () => JSON.stringify({ api_key: TOKEN, batch: [good(), good({ uuid: 'not a uuid' })] }), {}, 400, /uuid/],
      ['properties not an object', '/batch', () => JSON.stringify({ api_key: TOKEN, batch: [good(), good({ properties: [marker] })] }), {}, 400, /properties must be a JSON object/],
      ['10,000-level nested JSON', '/batch', () => `{"api_key":"${TOKEN}","batch":[{"event":"bad_input","distinct_id":"b","properties":{"marker":"${marker}","deep":${deep}}}]}`, {}, 400, /nested deeper/],
      ['1 MB string property', '/batch', () => JSON.stringify({ api_key: TOKEN, batch: [good(), good({ properties: { marker, s: 'y'.repeat(1024 * 1024) } })] }), {}, 413, /maximum event size exceeded/],
      ['empty batch', '/batch', () => JSON.stringify({ api_key: TOKEN, batch: [] }), {}, 400, /empty batch/],
    ])('%s', async (_n, p, body, headers, status, message) => {
      const r = await post(p, body(), headers);
      expect(r.status).toBe(status);
      expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(r.text).toMatch(message);
      // Still serving.
      const ok = await post('/batch', JSON.stringify({ api_key: TOKEN, batch: [{ event: 'alive', distinct_id: 'a' }] }));
      expect(ok.status).toBe(200);
    });

    it('stored nothing from the rejected requests', async () => {
      await srv.ingestor.flush();
      expect(await rows(`SELECT count(*) FROM events WHERE properties->>'$.marker' = $1`, [marker])).toEqual([[0]]);
    });

    it('a 1 MB string below the limit is accepted intact', async () => {
      const s = 'z'.repeat(1000 * 1000);
      const uuid = randomUUID();
      const r = await post('/batch', JSON.stringify({ api_key: TOKEN, batch: [{ event: 'big', distinct_id: 'b', uuid, properties: { s } }] }));
      expect(r.status).toBe(200);
      await srv.ingestor.flush();
      expect(await rows(`SELECT length(properties->>'$.s') FROM events WHERE uuid = $1::UUID`, [uuid])).toEqual([[1000 * 1000]]);
    });
  });
});
