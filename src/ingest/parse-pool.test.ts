import os from 'node:os';
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { parseCaptureRequest, slimProperties } from './capture-payload';
import { CaptureParsePool, defaultParseWorkers, parsesInline } from './parse-pool';
import { completeEncoded, encodeCompact } from './wal';

describe('defaultParseWorkers', () => {
  it('follows QUARRY_CAPTURE_PARSE_WORKERS when set', () => {
    expect(defaultParseWorkers({ QUARRY_CAPTURE_PARSE_WORKERS: '0' })).toBe(0);
    expect(defaultParseWorkers({ QUARRY_CAPTURE_PARSE_WORKERS: ' 2 ' })).toBe(2);
  });

  it('otherwise goes by CPU count: inline on 1 CPU, else CPUs - 2, at least 2 and at most 4', () => {
    const want = defaultParseWorkers({}, os.cpus().length);
    expect(defaultParseWorkers({})).toBe(want);
    expect(defaultParseWorkers({ QUARRY_CAPTURE_PARSE_WORKERS: '' })).toBe(want);
    expect([1, 2, 3, 4, 5, 6, 8, 32].map((c) => defaultParseWorkers({}, c))).toEqual([0, 2, 2, 2, 3, 4, 4, 4]);
  });

  it.each(['-1', '17', '1.5', 'many'])('refuses QUARRY_CAPTURE_PARSE_WORKERS=%p', (v) => {
    expect(() => defaultParseWorkers({ QUARRY_CAPTURE_PARSE_WORKERS: v })).toThrow(/QUARRY_CAPTURE_PARSE_WORKERS/);
  });
});

describe('CaptureParsePool with a worker', () => {
  let pool: CaptureParsePool;
  beforeAll(() => {
    pool = new CaptureParsePool(1);
  });
  afterAll(() => pool.close());

  const body = (batch: unknown[]) => Buffer.from(JSON.stringify({ api_key: 'phc_t', batch }), 'utf8');
  const parts = (b: Buffer) => ({ method: 'POST', query: {}, contentType: 'application/json', body: b, maxBytes: 20 << 20, now: 1_700_000_000_000 });

  it('returns large bodies encoded for the log, the same bytes as parsing and encoding inline', async () => {
    const batch = Array.from({ length: 60 }, (_, i) => ({
      event: i === 3 ? '$identify' : `ev "${i}"`,
      distinct_id: `ü-${i % 5}`,
      uuid: `0190a1b2-c3d4-7e5f-8a9b-${String(i).padStart(12, '0')}`,
      timestamp: '2023-11-14T22:13:20.000Z',
      properties: { i, text: 'x'.repeat(200), $session_id: `s${i % 3}`, ...(i === 3 ? { $anon_distinct_id: 'a', $set: { plan: 'pro' } } : {}) },
    }));
    const b = body(batch);
    expect(b.length).toBeGreaterThan(8 * 1024);
    const inline = parseCaptureRequest(parts(Buffer.from(b)));
    const got = await pool.parse(parts(b));
    if (!('encoded' in got)) throw new Error('expected the worker path');
    expect(got.token).toBe('phc_t');
    expect(b.length).toBe(0); // a body owning its memory moves to the worker (no copy)
    for (const e of inline.events) e.properties = slimProperties(e.properties, e.event);
    const want = encodeCompact(11, 2, inline.events);
    const done = completeEncoded(11, 2, got.encoded);
    expect(done.line.equals(want.line)).toBe(true);
    expect(Array.from(done.compact.pos)).toEqual(Array.from(want.compact.pos));
    expect(done.compact.identity).toEqual(want.compact.identity);
  });

  it('answers bad large bodies with the same 4xx as inline parsing', async () => {
    const b = body(Array.from({ length: 100 }, (_, i) => ({ event: 'e', distinct_id: 'd', uuid: i === 50 ? 'not a uuid' : undefined, properties: { pad: 'p'.repeat(100) } })));
    expect(b.length).toBeGreaterThan(8 * 1024);
    const broken = Buffer.concat([b, Buffer.from('}')]);
    await expect(pool.parse(parts(b))).rejects.toMatchObject({ name: 'CaptureError', status: 400, message: expect.stringMatching(/event 50.*uuid/) });
    await expect(pool.parse(parts(broken))).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/invalid JSON/) });
  });

  it('copies a body that shares its memory (the rest of that memory stays usable)', async () => {
    const shared = Buffer.alloc(64 * 1024);
    const json = body(Array.from({ length: 60 }, (_, i) => ({ event: 'e', distinct_id: `d${i}`, properties: { pad: 'p'.repeat(200) } })));
    json.copy(shared, 100);
    const view = shared.subarray(100, 100 + json.length);
    const got = await pool.parse(parts(view));
    expect('encoded' in got && got.encoded.n).toBe(60);
    expect(view.length).toBe(json.length);
    expect(shared.subarray(100, 100 + json.length).equals(json)).toBe(true);
  });

  it('parses small bodies inline (a worker round trip costs more than they do)', async () => {
    const got = await pool.parse(parts(body([{ event: 'e', distinct_id: 'd' }])));
    expect('events' in got && got.events.length).toBe(1);
  });
});

describe('parsesInline', () => {
  const parts = (body: Buffer | undefined, extra: { contentEncoding?: string; query?: Record<string, unknown> } = {}) => ({
    method: body ? 'POST' : 'GET',
    query: extra.query ?? {},
    contentEncoding: extra.contentEncoding,
    body,
    maxBytes: 20 << 20,
  });
  // Events like an SDK's: a uuid, a session, a few dozen bytes of varied values each.
  const events = (n: number) =>
    JSON.stringify({
      api_key: 'phc_t',
      batch: Array.from({ length: n }, (_, i) => ({
        event: '$pageview',
        distinct_id: randomUUID(),
        uuid: randomUUID(),
        properties: { $session_id: randomUUID(), $current_url: `https://example.com/p/${randomUUID()}`, $screen_width: 1000 + i },
      })),
    });

  it.each([
    ['a small JSON body', true, () => Buffer.from(events(2)), {}],
    ['a gzipped body under 1 kB inflating to ~1 kB', true, () => gzipSync(events(3)), {}],
    ['a 100-event JSON body', false, () => Buffer.from(events(100)), {}],
    // What SDKs send: the batch gzipped, a few kB that inflate to far more.
    ['a gzipped 100-event body (magic bytes)', false, () => gzipSync(events(100)), {}],
    ['a gzipped body announced by Content-Encoding', false, () => gzipSync(events(100)), { contentEncoding: 'gzip' }],
    ['no body (GET with data=)', false, () => undefined, { query: { data: 'e30=' } }],
  ])('%s → inline: %s', (_, inline, body, extra) => {
    expect(parsesInline(parts(body(), extra))).toBe(inline);
  });
});
