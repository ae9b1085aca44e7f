/**
 * Capture over HTTP as PostHog's capture tests pin it (posthog/api/test/test_capture.py, plugin-server
 * process-event.test.ts 'ip capture' and 'anonymized ip capture'): the client's address as `$ip` (none with the project's
 * `anonymize_ips`), the token from a form field or the query
 * string, `/engage`, legacy base64 bodies. The parsing rules themselves are in src/ingest/ingest-posthog-compat-2.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { clientIp } from '../../src/ingest/capture-routes';
import { startCaptureServer, type CaptureServer } from '../fixtures/ingest-server';
import { startServer, type TestServer } from '../helpers/server';

const TOKEN = 'phc_test_project_1';

describe('clientIp (posthog/api/utils.py get_ip_address)', () => {
  it.each<[string | string[] | undefined, string | undefined, string | undefined]>([
    [undefined, '127.0.0.1', '127.0.0.1'],
    [undefined, '::ffff:10.1.2.3', '10.1.2.3'],
    [undefined, '::1', '::1'],
    ['203.0.113.9, 10.0.0.1', '127.0.0.1', '203.0.113.9'],
    [' 203.0.113.9:4711 ,10.0.0.1', '127.0.0.1', '203.0.113.9'],
    ['2001:db8::1', '127.0.0.1', '2001:db8::1'],
    [['198.51.100.2', '10.0.0.1'], '127.0.0.1', '198.51.100.2'],
    ['', '127.0.0.1', '127.0.0.1'],
    [undefined, undefined, undefined],
  ])('X-Forwarded-For %j, peer %j → %j', (header, peer, ip) => {
    expect(clientIp(header, peer)).toBe(ip);
  });
});

describe.each([0, 1])('capture as test_capture.py pins it (parseWorkers=%i)', (parseWorkers) => {
  let dir: string;
  let srv: CaptureServer;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-capture-compat-'));
    srv = await startCaptureServer(dir, { parseWorkers });
  });
  afterAll(async () => {
    await srv.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const rows = async (sql: string, params: unknown[] = []) => (await srv.engine.query(sql, params)).rows;
  const byUuid = async (uuid: string) =>
    rows(`SELECT project_id, event, distinct_id, properties FROM events WHERE uuid = $1::UUID`, [uuid]).then((r) =>
      r.map(([p, e, d, props]) => [p, e, d, typeof props === 'string' ? JSON.parse(props) : props]),
    );
  // Bodies big enough for the parse worker when there is one (small ones are parsed inline).
  const pad = 'p'.repeat(parseWorkers ? 9000 : 10);

  async function send(p: string, init: RequestInit = {}) {
    const r = await fetch(`${srv.url}${p}`, init);
    const text = await r.text();
    await srv.ingestor.flush();
    return { status: r.status, text };
  }

  it("'test_capture_event_ip': $ip is the peer's address, or the first X-Forwarded-For entry; the event's own $ip wins", async () => {
    const [u1, u2, u3] = [randomUUID(), randomUUID(), randomUUID()];
    const body = (uuid: string, props: Record<string, unknown> = {}) =>
      JSON.stringify({ api_key: TOKEN, batch: [{ event: 'ip', distinct_id: 'ip', uuid, properties: { pad, ...props } }] });
    const json = { 'content-type': 'application/json' };
    expect((await send('/batch/', { method: 'POST', headers: json, body: body(u1) })).status).toBe(200);
    expect((await send('/batch/', { method: 'POST', headers: { ...json, 'x-forwarded-for': '203.0.113.9, 10.0.0.1' }, body: body(u2) })).status).toBe(200);
    expect((await send('/batch/', { method: 'POST', headers: { ...json, 'x-forwarded-for': '203.0.113.9' }, body: body(u3, { $ip: '1.0.0.1' }) })).status).toBe(200);
    expect((await byUuid(u1))[0][3].$ip).toBe('127.0.0.1');
    expect((await byUuid(u2))[0][3].$ip).toBe('203.0.113.9');
    expect((await byUuid(u3))[0][3].$ip).toBe('1.0.0.1');
  });

  it('a numeric distinct id is stored as rust capture prints it (23.0 stays "23.0", an integer beyond 2^53 stays exact)', async () => {
    const [u1, u2] = [randomUUID(), randomUUID()];
    // written by hand: JSON.stringify would print 23.0 as 23
    const body = `{"api_key": ${JSON.stringify(TOKEN)}, "batch": [{"event": "num", "distinct_id": 23.0, "uuid": "${u1}", "properties": {"pad": "${pad}"}}, {"event": "num", "$distinct_id": 12345678901234567890, "uuid": "${u2}"}]}`;
    expect((await send('/batch/', { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status).toBe(200);
    expect((await byUuid(u1))[0][2]).toBe('23.0');
    expect((await byUuid(u2))[0][2]).toBe('12345678901234567890');
  });

  it("'test_base64_decode_variations': form data= with the token as the form's api_key, '+' sent as '+' or as ' '", async () => {
    // test_capture.py's own payload: {"event": "$pageview", "properties": {"distinct_id": "eeeeeeegϥeeeee"}}.
    const data = 'eyJldmVudCI6IiRwYWdldmlldyIsInByb3BlcnRpZXMiOnsiZGlzdGluY3RfaWQiOiJlZWVlZWVlZ8+lZWVlZWUifX0=';
    const count = async () => Number((await rows(`SELECT count(*) FROM events WHERE distinct_id = 'eeeeeeegϥeeeee' AND event = '$pageview'`))[0][0]);
    const before = await count();
    for (const sent of [data, data.replace(/\+/g, ' ')]) {
      const form = `data=${sent.replace(/\+/g, '%2B').replace(/ /g, '+').replace(/=/g, '%3D')}&api_key=${TOKEN}`;
      const r = await send('/track/', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });
      expect(r).toEqual({ status: 200, text: '{"status":1}' });
    }
    expect(await count()).toBe(before + 2);
  });

  it("'test_incorrect_padding': GET /e/?data= base64 without its padding, the token in the query string", async () => {
    const uuid = randomUUID();
    const data = Buffer.from(JSON.stringify({ event: 'whatevefr', uuid, properties: { distinct_id: 'asdf' } })).toString('base64').replace(/=+$/, '');
    expect(data.length % 4).not.toBe(0);
    const r = await send(`/e/?data=${encodeURIComponent(data)}&token=${TOKEN}`);
    expect(r.status).toBe(200);
    expect((await byUuid(uuid)).map((x) => x.slice(0, 3))).toEqual([[1, 'whatevefr', 'asdf']]);
  });

  it("'test_engage': GET /engage/?data= with $token, $distinct_id and $set becomes a $identify setting the person", async () => {
    const d = `engage-${parseWorkers}-${randomUUID()}`;
    const data = JSON.stringify({ $set: { $os: 'Mac OS X' }, $token: TOKEN, $distinct_id: d, $device_id: '16fd4afae9b2d8', $user_id: 3 });
    const r = await send(`/engage/?data=${encodeURIComponent(data)}`, { headers: { origin: 'https://localhost' } });
    expect(r).toEqual({ status: 200, text: '{"status":1}' });
    expect(await rows('SELECT event FROM events WHERE distinct_id = $1', [d])).toEqual([['$identify']]);
    const [[props]] = await rows(
      'SELECT p.properties FROM persons p JOIN person_distinct_ids i ON i.project_id = p.project_id AND i.person_id = p.id WHERE i.distinct_id = $1',
      [d],
    );
    const [[creator]] = await rows('SELECT uuid::VARCHAR FROM events WHERE distinct_id = $1', [d]);
    expect(typeof props === 'string' ? JSON.parse(props) : props).toEqual({ $os: 'Mac OS X', $creator_event_uuid: creator });
  });

  it("'test_js_gzip' and 'test_js_gzip_with_no_content_type': a gzip body with compression=gzip-js, sent as text/plain or with an empty Content-Type", async () => {
    // (A malformed header, which fastify would refuse with 415, is read as none too: capture ignores the type.)
    for (const contentType of ['text/plain', '', 'not a media type']) {
      const uuid = randomUUID();
      const body = gzipSync(JSON.stringify({ event: 'my-event', uuid, properties: { distinct_id: 2, token: TOKEN, prop: '💻 Writing code', pad } }));
      const r = await send('/track?compression=gzip-js', { method: 'POST', headers: { 'content-type': contentType }, body });
      expect(r).toEqual({ status: 200, text: '{"status":1}' });
      const [[, event, distinctId, props]] = await byUuid(uuid);
      expect([event, distinctId, props.prop]).toEqual(['my-event', '2', '💻 Writing code']);
    }
  });

  it("'test_invalid_gzip': a body named gzip that is not is a 400, nothing stored", async () => {
    const r = await send('/track?compression=gzip', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: Buffer.from('1f8b08000000000000031234', 'hex') });
    expect(r).toEqual({ status: 400, text: 'failed to decode request: invalid GZIP data' });
  });

  it("'test_multiple_events': form data= holding a percent-encoded JSON array; its UTF-8 text arrives intact", async () => {
    const [u1, u2] = [randomUUID(), randomUUID()];
    const data = JSON.stringify([
      { event: 'beep', uuid: u1, properties: { distinct_id: 'eeee', token: TOKEN, text: 'ünïcödé 💻', pad } },
      { event: 'boop', uuid: u2, properties: { distinct_id: 'aaaa', token: TOKEN } },
    ]);
    const r = await send('/track/', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `data=${encodeURIComponent(data)}` });
    expect(r).toEqual({ status: 200, text: '{"status":1}' });
    expect((await byUuid(u1)).map(([, e, d, p]) => [e, d, p.text])).toEqual([['beep', 'eeee', 'ünïcödé 💻']]);
    expect((await byUuid(u2)).map(([, e, d]) => [e, d])).toEqual([['boop', 'aaaa']]);
  });

  it("'test_emojis_in_text': base64 whose emoji is a UTF-8-encoded surrogate pair (as Python's surrogatepass decoded it) reads as the emoji", async () => {
    const uuid = randomUUID();
    // {"event": "$web_event", "properties": {"$elements": [{"tag_name": "button", "$el_text": "💻 Writing code"}], ...}}
    // with 💻 as ED A0 BD ED B2 BB, as in test_capture.py's payload.
    const json = Buffer.from(JSON.stringify({ event: '$web_event', uuid, properties: { distinct_id: 63, token: TOKEN, text: 'XX Writing code', $elements: [{ tag_name: 'button', $el_text: 'XX Writing code' }], pad } }));
    const cesu = Buffer.from('eda0bdedb2bb', 'hex');
    const parts: Buffer[] = [];
    let from = 0;
    for (let i = json.indexOf('XX'); i >= 0; i = json.indexOf('XX', i + 2)) {
      parts.push(json.subarray(from, i), cesu);
      from = i + 2;
    }
    parts.push(json.subarray(from));
    const data = Buffer.concat(parts).toString('base64');
    const r = await send('/track', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `data=${encodeURIComponent(data)}` });
    expect(r).toEqual({ status: 200, text: '{"status":1}' });
    expect((await byUuid(uuid))[0][3].text).toBe('💻 Writing code');
    const [[chain]] = await rows('SELECT elements_chain FROM events WHERE uuid = $1::UUID', [uuid]);
    expect(chain).toContain('text="💻 Writing code"');
  });

  it("'test_capture_event_ipv6' and 'test_capture_event_ip_with_port': an IPv6 X-Forwarded-For is kept whole, a port is cut from IPv4", async () => {
    const [u1, u2] = [randomUUID(), randomUUID()];
    const post = (uuid: string, xff: string) =>
      send('/e/', { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': xff }, body: JSON.stringify({ event: 'ip', uuid, properties: { distinct_id: 'ip', token: TOKEN, pad } }) });
    expect((await post(u1, '2345:0425:2CA1:0000:0000:0567:5673:23b5')).status).toBe(200);
    expect((await post(u2, '1.2.3.4:5555')).status).toBe(200);
    expect((await byUuid(u1))[0][3].$ip).toBe('2345:0425:2CA1:0000:0000:0567:5673:23b5');
    expect((await byUuid(u2))[0][3].$ip).toBe('1.2.3.4');
  });

  it('a token with surrounding whitespace is the token (get_token strips it); a query token never overrides the body', async () => {
    const [u1, u2] = [randomUUID(), randomUUID()];
    const post = (body: unknown, q = '') => send(`/batch/${q}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post({ api_key: ` ${TOKEN}\n`, batch: [{ event: 'ws', distinct_id: 'w', uuid: u1, properties: { pad } }] })).status).toBe(200);
    expect((await post({ api_key: 'phc_test_project_2', batch: [{ event: 'ws', distinct_id: 'w', uuid: u2, properties: { pad } }] }, `?token=${TOKEN}`)).status).toBe(200);
    expect((await byUuid(u1))[0][0]).toBe(1);
    expect((await byUuid(u2))[0][0]).toBe(2);
    const none = await post({ batch: [{ event: 'ws', distinct_id: 'w', properties: { pad } }] });
    expect(none).toEqual({ status: 401, text: 'event submitted without an api_key' });
  });

  it("'test_empty_request_returns_an_error': an empty GET data= and a POST of {} are 400s (not the 401 of a missing token), nothing stored", async () => {
    const count = async () => Number((await rows('SELECT count(*) FROM events'))[0][0]);
    const before = await count();
    expect(await send('/e/?data=', { headers: { origin: 'https://localhost' } })).toEqual({ status: 400, text: 'failed to decode request: empty body' });
    // rust capture cannot deserialize an event without `event` (nor the Python capture find data in it): before any token
    for (const body of [{}, { properties: { pad } }, [{ distinct_id: 'x', properties: { pad } }]]) {
      const r = await send('/e/', { method: 'POST', headers: { 'content-type': 'application/json', origin: 'https://localhost' }, body: JSON.stringify(body) });
      expect(r).toEqual({ status: 400, text: 'event submitted without a name' });
    }
    const notAnEvent = await send('/batch/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ batch: [{ event: 'e', distinct_id: 'x', properties: { pad } }, 1] }) });
    expect(notAnEvent).toEqual({ status: 400, text: 'invalid event (event 1): an event must be a JSON object' });
    expect(await count()).toBe(before);
  });

  it.each<[string, string, unknown, string]>([
    ["'test_handle_lacking_event_name_field'", '/e/', { distinct_id: 'abc', properties: { cost: 2 }, api_key: TOKEN }, 'event submitted without a name'],
    ["'test_distinct_id_set_but_null'", '/e/', { api_key: TOKEN, type: 'capture', event: 'user signed up', distinct_id: null }, 'event submitted without a distinct_id'],
    ["'test_batch_distinct_id_not_set'", '/batch/', { api_key: TOKEN, batch: [{ type: 'capture', event: 'user signed up' }] }, 'event submitted without a distinct_id'],
  ])('%s: a 400, nothing stored', async (_name, route, body, text) => {
    const count = async () => Number((await rows('SELECT count(*) FROM events'))[0][0]);
    const before = await count();
    const padded = JSON.parse(JSON.stringify(body));
    for (const e of 'batch' in padded ? padded.batch : [padded]) e.properties = { ...e.properties, pad };
    expect(await send(route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(padded) })).toEqual({ status: 400, text });
    expect(await count()).toBe(before);
  });

  it("'test_batch_token_not_set': 401; 'test_distinct_id_nan' (NaN is no JSON) and 'test_incorrect_json': 400", async () => {
    const batch = await send('/batch/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ batch: [{ type: 'capture', event: 'user signed up', distinct_id: '2', properties: { pad } }] }) });
    expect(batch).toEqual({ status: 401, text: 'event submitted without an api_key' });
    const nan = `data=${encodeURIComponent(`[{"event": "beep", "properties": {"distinct_id": NaN, "token": "${TOKEN}", "pad": "${pad}"}}]`)}&api_key=${TOKEN}`;
    expect((await send('/track/', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: nan })).status).toBe(400);
    const broken = await send(`/e/?data=${encodeURIComponent(`{"event": "incorrect json with trailing comma", "properties": {"distinct_id": "x", "token": "${TOKEN}",}}`)}`);
    expect(broken.status).toBe(400);
    expect(broken.text).toMatch(/^failed to decode request: invalid JSON/);
  });

  it.each([
    ["'test_batch_gzip_header' (Content-Encoding: gzip)", '/batch/', { 'content-encoding': 'gzip' }],
    ["'test_batch_gzip_param' (?compression=gzip)", '/batch/?compression=gzip', {}],
  ])('%s: the gzip batch is read', async (_name, route, headers) => {
    const uuid = randomUUID();
    const body = gzipSync(JSON.stringify({ api_key: TOKEN, batch: [{ type: 'capture', event: 'user signed up', distinct_id: '2', uuid, properties: { pad } }] }));
    expect(await send(route, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })).toEqual({ status: 200, text: '{"status":1}' });
    expect((await byUuid(uuid)).map((x) => x.slice(0, 3))).toEqual([[1, 'user signed up', '2']]);
  });

  it("'test_long_distinct_id': a 250-character distinct id is stored cut to 200 (GET /e/ with `_` in seconds)", async () => {
    const uuid = randomUUID();
    const now = Date.now();
    const data = JSON.stringify({ event: 'movie played', uuid, timestamp: new Date(now + 26 * 3600_000).toISOString(), properties: { distinct_id: 'a'.repeat(250), token: TOKEN, pad } });
    const r = await send(`/e/?_=${Math.floor((now + 26 * 3600_000 + 600_000) / 1000)}&data=${encodeURIComponent(data)}`, { headers: { origin: 'https://localhost' } });
    expect(r.status).toBe(200);
    expect((await byUuid(uuid)).map((x) => x.slice(0, 3))).toEqual([[1, 'movie played', 'a'.repeat(200)]]);
  });

  it("'test_offset_timestamp': an event sent with `offset: 150` happened 150 ms before it was received", async () => {
    const uuid = randomUUID();
    const data = JSON.stringify({ offset: 150, event: '$autocapture', distinct_id: 'la', uuid, token: TOKEN, properties: { pad } });
    const before = Date.now();
    expect((await send(`/e/?data=${encodeURIComponent(data)}`)).status).toBe(200);
    const after = Date.now();
    const [[ms]] = await rows('SELECT epoch_ms(timestamp) FROM events WHERE uuid = $1::UUID', [uuid]);
    expect(Number(ms)).toBeGreaterThanOrEqual(before - 150 - 1);
    expect(Number(ms)).toBeLessThanOrEqual(after - 150 + 1);
  });
});

describe.each([0, 1])("the project's anonymize_ips (process-event.test.ts 'anonymized ip capture'; parseWorkers=%i)", (parseWorkers) => {
  let srv: TestServer;
  let pid: number;
  let token: string;
  const saved = process.env.QUARRY_CAPTURE_PARSE_WORKERS;

  beforeAll(async () => {
    process.env.QUARRY_CAPTURE_PARSE_WORKERS = String(parseWorkers);
    try {
      srv = await startServer();
    } finally {
      if (saved === undefined) delete process.env.QUARRY_CAPTURE_PARSE_WORKERS;
      else process.env.QUARRY_CAPTURE_PARSE_WORKERS = saved;
    }
    const created = await srv.api('POST', '/api/projects/', { name: 'anonymize' });
    expect(created.status).toBe(201);
    ({ id: pid, api_token: token } = created.body);
  });
  afterAll(async () => {
    await srv?.close();
  });

  // Bodies big enough for the parse worker when there is one (small ones are parsed inline).
  const pad = 'p'.repeat(parseWorkers ? 9000 : 10);
  const setting = async (on: unknown) => srv.api('PATCH', `/api/projects/${pid}/`, { anonymize_ips: on });

  /** Captures two events, one with its own `$ip`, one from 203.0.113.9 (X-Forwarded-For); their stored `$ip`s. */
  async function captureBoth(): Promise<[unknown, unknown]> {
    const [own, forwarded] = [randomUUID(), randomUUID()];
    const post = (uuid: string, props: Record<string, unknown>) =>
      fetch(`${srv.url}/batch/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.9' },
        body: JSON.stringify({ api_key: token, batch: [{ event: 'ip', distinct_id: 'ip', uuid, properties: { pad, ...props } }] }),
      });
    expect((await post(own, { $ip: '1.0.0.1' })).status).toBe(200);
    expect((await post(forwarded, {})).status).toBe(200);
    return [await storedIp(own), await storedIp(forwarded)];
  }

  /** The event's stored `$ip`; undefined when its properties have none. */
  async function storedIp(uuid: string): Promise<unknown> {
    await srv.server.services.ingestor.flush();
    const r = await srv.api('POST', `/api/projects/${pid}/query/`, { query: { kind: 'HogQLQuery', query: `select properties from events where uuid = '${uuid}'` } });
    expect(r.status).toBe(200);
    expect(r.body.results).toHaveLength(1);
    const props = r.body.results[0][0];
    return (typeof props === 'string' ? JSON.parse(props) : props).$ip;
  }

  it('off (the default): the event keeps its own $ip, or gets the forwarded address', async () => {
    expect((await srv.api('GET', `/api/projects/${pid}/`)).body.anonymize_ips).toBe(false);
    expect(await captureBoth()).toEqual(['1.0.0.1', '203.0.113.9']);
  });

  it('on: neither is stored; off again: both are, from the next request', async () => {
    const on = await setting(true);
    expect(on.status).toBe(200);
    expect(on.body.anonymize_ips).toBe(true);
    expect((await srv.api('GET', `/api/projects/${pid}/`)).body.anonymize_ips).toBe(true);
    expect(await captureBoth()).toEqual([undefined, undefined]);
    expect((await setting(false)).body.anonymize_ips).toBe(false);
    expect(await captureBoth()).toEqual(['1.0.0.1', '203.0.113.9']);
  });

  it("another project's events keep their $ip", async () => {
    expect((await setting(true)).status).toBe(200);
    try {
      const other = (await srv.api('GET', '/api/projects/1/')).body.api_token;
      const uuid = randomUUID();
      const r = await fetch(`${srv.url}/e/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.2' },
        body: JSON.stringify({ event: 'ip', distinct_id: 'ip', uuid, api_key: other, properties: { pad } }),
      });
      expect(r.status).toBe(200);
      await srv.server.services.ingestor.flush();
      const q = await srv.api('POST', '/api/projects/1/query/', { query: { kind: 'HogQLQuery', query: `select properties.$ip from events where uuid = '${uuid}'` } });
      expect(q.body.results).toEqual([['198.51.100.2']]);
    } finally {
      await setting(false);
    }
  });

  it('the import route honours it too', async () => {
    const imp = async () => {
      const uuid = randomUUID();
      const r = await srv.api('POST', `/api/projects/${pid}/import/`, {
        events: [{ event: 'imported', distinct_id: 'imp', uuid, timestamp: '2024-01-01T00:00:00Z', properties: { $ip: '1.0.0.1' } }],
      });
      expect(r.status).toBe(200);
      return storedIp(uuid);
    };
    expect(await imp()).toBe('1.0.0.1');
    expect((await setting(true)).status).toBe(200);
    try {
      expect(await imp()).toBeUndefined();
    } finally {
      await setting(false);
    }
  });

  it("a BooleanField: DRF's true/false words; anything else is refused", async () => {
    expect((await setting('true')).body.anonymize_ips).toBe(true);
    expect((await setting(0)).body.anonymize_ips).toBe(false);
    const bad = await setting('maybe');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ type: 'validation_error', detail: 'Must be a valid boolean.', attr: 'anonymize_ips' });
    expect((await srv.api('GET', `/api/projects/${pid}/`)).body.anonymize_ips).toBe(false);
  });
});
