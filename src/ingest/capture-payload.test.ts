import { gzipSync } from 'node:zlib';
import LZString from 'lz-string';
import {
  BATCH_ROUTE_MAX_BYTES,
  CaptureError,
  MAX_EVENT_BYTES,
  SINGLE_EVENT_ROUTE_MAX_BYTES,
  isIllegalDistinctId,
  nestingDepthExceeds,
  normalizeEvent,
  parseCaptureRequest,
  parseTimestamp,
  replaceLoneSurrogates,
  uuidv7,
  type CaptureRequestParts,
} from './capture-payload';

const TOKEN = 'phc_test';
const NOW = Date.parse('2025-01-01T12:00:10Z');
const ev = (extra: Record<string, unknown> = {}) => ({ event: 'e1', distinct_id: 'u1', properties: { a: 1 }, ...extra });
const json = (v: unknown) => Buffer.from(JSON.stringify(v));

function req(parts: Partial<CaptureRequestParts>): CaptureRequestParts {
  return { method: 'POST', query: {}, maxBytes: BATCH_ROUTE_MAX_BYTES, now: NOW, ...parts };
}

function errorOf(fn: () => unknown): CaptureError {
  try {
    fn();
  } catch (e) {
    if (e instanceof CaptureError) return e;
    throw e;
  }
  throw new Error('expected a CaptureError');
}

describe('body shapes and encodings', () => {
  const single = { api_key: TOKEN, ...ev() };
  const array = [{ event: 'e1', properties: { token: TOKEN, distinct_id: 'u1', a: 1 } }];
  const batch = { api_key: TOKEN, batch: [ev()] };
  const b64 = (v: unknown) => json(v).toString('base64');
  const lz = (v: unknown) => LZString.compressToBase64(JSON.stringify(v));
  // A batch whose lz64 text contains '+' (checked below), for the raw form-encoding case.
  const lzPlus = (() => {
    for (let i = 0; ; i++) {
      const t = lz({ api_key: TOKEN, batch: [ev({ properties: { a: 1, n: i } })] });
      if (t.includes('+')) return t;
    }
  })();

  it.each<[string, Partial<CaptureRequestParts>]>([
    ['single event JSON', { body: json(single), contentType: 'application/json' }],
    ['array of events', { body: json(array), contentType: 'application/json' }],
    ['batch object', { body: json(batch) }],
    ['batch object with token key', { body: json({ token: TOKEN, batch: [ev()] }) }],
    ['gzip by Content-Encoding', { body: gzipSync(json(batch)), contentEncoding: 'gzip' }],
    ['gzip by magic bytes only', { body: gzipSync(json(batch)), contentType: 'text/plain' }],
    ['gzip by compression=gzip param', { body: gzipSync(json(batch)), query: { compression: 'gzip' } }],
    ['gzip by compression=gzip-js param', { body: gzipSync(json(batch)), query: { compression: 'gzip-js' } }],
    ['base64 by compression=base64', { body: Buffer.from(b64(batch)), query: { compression: 'base64' } }],
    ['base64 by compression=b64', { body: Buffer.from(b64(batch)), query: { compression: 'b64' } }],
    [
      'form data= base64',
      { body: Buffer.from(`data=${encodeURIComponent(b64(batch))}`), contentType: 'application/x-www-form-urlencoded' },
    ],
    [
      'form data= plain JSON',
      {
        body: Buffer.from(`data=${encodeURIComponent(JSON.stringify(batch))}`),
        contentType: 'application/x-www-form-urlencoded',
      },
    ],
    [
      'form data= gzip+base64 with form compression',
      {
        body: Buffer.from(
          `data=${encodeURIComponent(gzipSync(json(batch)).toString('base64'))}&compression=gzip-js`,
        ),
        contentType: 'application/x-www-form-urlencoded',
      },
    ],
    ['lz64 by compression=lz64', { body: Buffer.from(lz(batch)), query: { compression: 'lz64' } }],
    ['lz64 by compression=lz-string', { body: Buffer.from(lz(batch)), query: { compression: 'lz-string' } }],
    [
      'form data= lz64, percent-encoded, with form compression',
      { body: Buffer.from(`data=${encodeURIComponent(lz(batch))}&compression=lz64`), contentType: 'application/x-www-form-urlencoded' },
    ],
    [
      // Sent without percent-encoding, the alphabet's '+' arrives as a space.
      'form data= lz64 with raw + signs',
      { body: Buffer.from(`data=${lzPlus}&compression=lz64`), contentType: 'application/x-www-form-urlencoded' },
    ],
    ['GET ?data= base64', { method: 'GET', query: { data: b64(single) } }],
    ['GET ?data= plain JSON', { method: 'GET', query: { data: JSON.stringify(single) } }],
  ])('%s', (_name, parts) => {
    const r = parseCaptureRequest(req(parts));
    expect(r.token).toBe(TOKEN);
    expect(r.events).toHaveLength(1);
    expect(r.events[0]).toMatchObject({ event: 'e1', distinct_id: 'u1' });
    expect(r.events[0].properties.a).toBe(1);
    expect(r.events[0].uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it.each<[string, Partial<CaptureRequestParts>, number, RegExp]>([
    ['malformed JSON', { body: Buffer.from('{"event": ') }, 400, /failed to decode request: invalid JSON/],
    ['truncated gzip', { body: gzipSync(json(batch)).subarray(0, 20) }, 400, /invalid GZIP data/],
    ['garbage with gzip header', { body: Buffer.from('not gzip'), contentEncoding: 'gzip' }, 400, /invalid GZIP/],
    ['corrupt lz64', { body: Buffer.from('N4Ig'), query: { compression: 'lz64' } }, 400, /invalid lz64/],
    ['truncated lz64', { body: Buffer.from(LZString.compressToBase64(JSON.stringify(batch)).slice(0, 30)), query: { compression: 'lz64' } }, 400, /invalid lz64/],
    [
      'lz64 bomb',
      { body: Buffer.from(LZString.compressToBase64('a'.repeat(3_000_000))), query: { compression: 'lz64' }, maxBytes: SINGLE_EVENT_ROUTE_MAX_BYTES },
      413,
      /maximum event size exceeded/,
    ],
    ['empty body', { body: Buffer.alloc(0) }, 400, /empty body/],
    ['empty batch', { body: json({ api_key: TOKEN, batch: [] }) }, 400, /empty batch/],
    ['batch not an array', { body: json({ api_key: TOKEN, batch: {} }) }, 400, /batch must be an array/],
    ['scalar payload', { body: json(42) }, 400, /payload must be/],
    ['no token', { body: json(ev()) }, 401, /without an api_key/],
    ['empty token', { body: json({ ...ev(), api_key: '' }) }, 401, /API key is not valid/],
    ['personal key', { body: json({ ...ev(), api_key: 'phx_abc' }) }, 401, /API key is not valid/],
    ['secret key', { body: json({ api_key: 'phs_abc', batch: [ev()] }) }, 401, /API key is not valid/],
    [
      'inconsistent tokens',
      { body: json([{ ...ev(), api_key: 'phc_a' }, { ...ev(), properties: { token: 'phc_b' } }]) },
      401,
      /inconsistent api_key/,
    ],
    ['missing event name', { body: json({ api_key: TOKEN, distinct_id: 'u' }) }, 400, /without a name/],
    ['missing distinct id', { body: json({ api_key: TOKEN, event: 'x' }) }, 400, /without a distinct_id/],
    // Only an empty id is missing (rust capture: `distinct_id.is_empty()`); a whitespace-only one is an id
    // (ingest-posthog-compat-2.test.ts).
    ['empty distinct id', { body: json({ api_key: TOKEN, event: 'x', distinct_id: '' }) }, 400, /distinct_id/],
    ['properties an array', { body: json({ api_key: TOKEN, ...ev({ properties: [1] }) }) }, 400, /properties must be a JSON object/],
    ['properties a string', { body: json({ api_key: TOKEN, ...ev({ properties: 'x' }) }) }, 400, /properties must be a JSON object/],
    ['$set not an object', { body: json({ api_key: TOKEN, ...ev({ $set: 3 }) }) }, 400, /\$set must be a JSON object/],
    // Issue #3: unparseable timestamps are a clear 4xx (PostHog would store the event at the receive time).
    ['unparseable timestamp', { body: json({ api_key: TOKEN, ...ev({ timestamp: 'yesterday' }) }) }, 400, /timestamp/],
    ['impossible date', { body: json({ api_key: TOKEN, ...ev({ timestamp: '2024-02-30T00:00:00Z' }) }) }, 400, /timestamp/],
    ['timestamp an object', { body: json({ api_key: TOKEN, ...ev({ timestamp: {} }) }) }, 400, /timestamp/],
    ['offset not a number', { body: json({ api_key: TOKEN, ...ev({ offset: 'soon' }) }) }, 400, /offset/],
    ['bad uuid', { body: json({ api_key: TOKEN, ...ev({ uuid: 'nope' }) }) }, 400, /uuid/],
    ['oversize decompressed', { body: gzipSync(Buffer.alloc(3_000_000, 32)), maxBytes: SINGLE_EVENT_ROUTE_MAX_BYTES }, 413, /maximum event size exceeded/],
    [
      '1 MB string property',
      { body: json({ api_key: TOKEN, ...ev({ properties: { s: 'x'.repeat(MAX_EVENT_BYTES) } }) }) },
      413,
      /maximum event size exceeded/,
    ],
  ])('rejects %s', (_name, parts, status, message) => {
    const e = errorOf(() => parseCaptureRequest(req(parts)));
    expect(e.status).toBe(status);
    expect(e.message).toMatch(message);
  });

  it('rejects 10,000-level nested properties without crashing', () => {
    const deep = '{"api_key":"phc_test","event":"e","distinct_id":"u","properties":{"p":' + '['.repeat(10_000) + ']'.repeat(10_000) + '}}';
    const e = errorOf(() => parseCaptureRequest(req({ body: Buffer.from(deep) })));
    expect(e.status).toBe(400);
    expect(e.message).toMatch(/nested deeper/);
    const deepObj =
      '{"api_key":"phc_test","event":"e","distinct_id":"u","properties":' + '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_001);
    const e2 = errorOf(() => parseCaptureRequest(req({ body: Buffer.from(deepObj) })));
    expect(e2.status).toBe(400);
  });

  // The shallow (recursive, depth ≤ 8) fast path must agree with the iterative check around its own bound and the limit.
  it.each([
    [1, false],
    [8, false],
    [9, false],
    [64, false],
    [65, true],
  ])('properties nested %i levels deep: exceeds 64 = %s', (levels, exceeds) => {
    const nested = (n: number, arrays: boolean): unknown => {
      let v: unknown = 1;
      for (let i = 1; i < n; i++) v = arrays ? [v] : { k: v };
      return arrays ? [v] : { k: v };
    };
    expect(nestingDepthExceeds(nested(levels, false), 64)).toBe(exceeds);
    expect(nestingDepthExceeds(nested(levels, true), 64)).toBe(exceeds);
    expect(nestingDepthExceeds({ a: 1, b: [2, { c: 3 }], d: nested(Math.max(1, levels - 1), false) }, 64)).toBe(levels > 1 && exceeds);
  });

  it('keeps a canonical uuid as given and lowercases/dashes others', () => {
    const u = '0190a0a0-0000-7000-8000-00000000000a';
    expect(normalizeEvent(ev({ uuid: u }), { now: NOW }).uuid).toBe(u);
    expect(normalizeEvent(ev({ uuid: '0190A0A000007000800000000000000A' }), { now: NOW }).uuid).toBe(u);
  });

  it('a one-event error rejects the whole request', () => {
    const e = errorOf(() =>
      parseCaptureRequest(req({ body: json({ api_key: TOKEN, batch: [ev(), ev({ uuid: 'bad' })] }) })),
    );
    expect(e.message).toMatch(/event 1/);
  });

  it('form fields are bytes: percent-encoded UTF-8 and raw bytes both arrive as sent; the first of a repeated field counts', () => {
    const text = (body: Buffer) =>
      parseCaptureRequest(req({ body, contentType: 'application/x-www-form-urlencoded' })).events.map((e) => e.properties.t);
    const data = (t: string) => JSON.stringify({ api_key: TOKEN, ...ev({ properties: { t } }) });
    expect(text(Buffer.from(`data=${encodeURIComponent(data('é 💻'))}&data=x`))).toEqual(['é 💻']);
    expect(text(Buffer.concat([Buffer.from('data='), Buffer.from(data('é 💻'), 'utf8')]))).toEqual(['é 💻']);
    // A '%' not followed by two hex digits stays itself.
    expect(text(Buffer.from(`data=${encodeURIComponent(data('100')).replace('100', '100%')}`))).toEqual(['100%']);
  });

  it.each<[string, string, string]>([
    ['a surrogate pair encoded half by half (CESU-8) is its character', '5a eda0bd edb2bb 5a', 'Z💻Z'],
    ['at the very end', 'eda0bd edb2bb', '💻'],
    ['two in a row', 'eda0bd edb2bb eda0bd edb2bb', '💻💻'],
    ['a lone high half is left (read as replacement characters)', 'eda0bd 5a', '\uFFFD\uFFFD\uFFFDZ'],
    ['real 4-byte UTF-8 is untouched', 'f09f92bb', '💻'],
    ['a 3-byte character led by ED (U+D7FF) is untouched', 'ed9fbf', '\uD7FF'],
  ])('base64 payloads: %s', (_name, hex, expected) => {
    const bytes = Buffer.concat([Buffer.from(`{"api_key":"${TOKEN}","event":"e","distinct_id":"u","properties":{"t":"`), Buffer.from(hex.replace(/ /g, ''), 'hex'), Buffer.from('"}}')]);
    const r = parseCaptureRequest(req({ method: 'GET', query: { data: bytes.toString('base64') } }));
    expect(r.events[0].properties.t).toBe(expected);
  });

  it('beacon=1 and historical_migration are reported', () => {
    const r = parseCaptureRequest(req({ body: json({ api_key: TOKEN, historical_migration: true, batch: [ev()] }), query: { beacon: '1' } }));
    expect(r.beacon).toBe(true);
    expect(r.historicalMigration).toBe(true);
  });
});

describe('field rules', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['top-level distinct_id wins', { distinct_id: 'top', properties: { distinct_id: 'prop' } }, 'top'],
    ['$distinct_id', { $distinct_id: 'dollar' }, 'dollar'],
    ['properties.distinct_id', { properties: { distinct_id: 'prop' } }, 'prop'],
    ['number stringified', { distinct_id: 42 }, '42'],
    ['object stringified', { distinct_id: { a: 1 } }, '{"a":1}'],
    ['truncated to 200', { distinct_id: 'x'.repeat(300) }, 'x'.repeat(200)],
    ['NUL replaced', { distinct_id: 'a\u0000b' }, 'a\uFFFDb'],
  ])('distinct id: %s', (_n, raw, expected) => {
    expect(normalizeEvent({ event: 'e', ...raw }, { now: NOW }).distinct_id).toBe(expected);
  });

  it.each<[string, Record<string, unknown>, number | undefined, string]>([
    ['no timestamp → now', {}, undefined, '2025-01-01T12:00:10.000Z'],
    ['timestamp, no sent_at → as given', { timestamp: '2025-01-01T11:00:00Z' }, undefined, '2025-01-01T11:00:00.000Z'],
    // client clock 1 h fast: sent_at 13:00:05, event 13:00:00 → now - 5 s
    ['skew corrected with sent_at', { timestamp: '2025-01-01T13:00:00Z' }, Date.parse('2025-01-01T13:00:05Z'), '2025-01-01T12:00:05.000Z'],
    ['offset without timestamp', { offset: 3000 }, undefined, '2025-01-01T12:00:07.000Z'],
    ['timezone offset honoured', { timestamp: '2025-01-01T13:00:00+01:00' }, undefined, '2025-01-01T12:00:00.000Z'],
    ['space separator and micros', { timestamp: '2025-01-01 11:00:00.123456' }, undefined, '2025-01-01T11:00:00.123Z'],
    ['far future clamped to now', { timestamp: '2030-01-01T00:00:00Z' }, undefined, '2025-01-01T12:00:10.000Z'],
  ])('timestamp: %s', (_n, raw, sentAt, expected) => {
    const e = normalizeEvent({ event: 'e', distinct_id: 'u', ...raw }, { now: NOW, sentAt });
    expect(new Date(e.timestamp).toISOString()).toBe(expected);
  });

  it('sent_at from the batch body and from the _ query param (epoch ms or seconds)', () => {
    const body = json({ api_key: TOKEN, sent_at: '2025-01-01T13:00:05Z', batch: [ev({ timestamp: '2025-01-01T13:00:00Z' })] });
    expect(new Date(parseCaptureRequest(req({ body })).events[0].timestamp).toISOString()).toBe('2025-01-01T12:00:05.000Z');
    const body2 = json([{ ...ev({ timestamp: '2025-01-01T13:00:00Z' }), api_key: TOKEN }]);
    const r2 = parseCaptureRequest(req({ body: body2, query: { _: String(Date.parse('2025-01-01T13:00:05Z')) } }));
    expect(new Date(r2.events[0].timestamp).toISOString()).toBe('2025-01-01T12:00:05.000Z');
    // `_` of at most 11 digits is seconds (posthog/api/capture.py _datetime_from_seconds_or_millis)
    const r3 = parseCaptureRequest(req({ body: body2, query: { _: '1735736405' } }));
    expect(new Date(r3.events[0].timestamp).toISOString()).toBe('2025-01-01T12:00:05.000Z');
  });

  it('top-level $set/$set_once merge into properties', () => {
    const e = normalizeEvent(
      { event: '$identify', distinct_id: 'u', $set: { a: 1 }, $set_once: { b: 2 }, properties: { $set: { a: 0, c: 3 } } },
      { now: NOW },
    );
    expect(e.properties.$set).toEqual({ a: 1, c: 3 });
    expect(e.properties.$set_once).toEqual({ b: 2 });
    expect(JSON.parse(e.propertiesJson)).toEqual(e.properties);
  });

  it('keeps a given uuid (normalized to lower case)', () => {
    expect(normalizeEvent({ ...ev(), uuid: '0190A0A0-0000-7000-8000-00000000000A' }, { now: NOW }).uuid).toBe(
      '0190a0a0-0000-7000-8000-00000000000a',
    );
  });

  it('historical imports keep timestamps as given', () => {
    const e = normalizeEvent({ ...ev(), timestamp: '2030-01-01T00:00:00Z' }, { now: NOW, sentAt: NOW + 5000, historical: true });
    expect(new Date(e.timestamp).toISOString()).toBe('2030-01-01T00:00:00.000Z');
  });

  it.each([
    ['2024-01-01', '2024-01-01T00:00:00.000Z'],
    ['2024-01-01T10:20', '2024-01-01T10:20:00.000Z'],
    ['2024-01-01T10:20:30.5Z', '2024-01-01T10:20:30.500Z'],
    ['2024-01-01T10:20:30-0230', '2024-01-01T12:50:30.000Z'],
  ])('parseTimestamp(%s)', (s, iso) => {
    expect(new Date(parseTimestamp(s)!).toISOString()).toBe(iso);
  });

  it.each(['', 'yesterday', '2024-13-01', '2024-01-01T25:00:00Z', '01/02/2024', 'Mon, 01 Jan 2024'])(
    'parseTimestamp rejects %j',
    (s) => expect(parseTimestamp(s)).toBeNull(),
  );

  it('uuidv7 is time ordered', () => {
    const a = uuidv7(1000);
    const b = uuidv7(2000);
    expect(a < b).toBe(true);
  });

  it('uuidv7: version 7, RFC variant, the timestamp in the first 48 bits, unique and ordered within a millisecond', () => {
    const t = Date.parse('2025-06-01T12:34:56.789Z');
    const ids = Array.from({ length: 3000 }, (_, i) => uuidv7(t + Math.floor(i / 1000)));
    for (const u of ids) expect(u).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(ids[0].replace(/-/g, '').slice(0, 12), 16)).toBe(t);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    // The random tail varies (62 random bits per id).
    expect(new Set(ids.map((u) => u.slice(19))).size).toBe(ids.length);
  });

  it.each([
    ['anonymous', true],
    ['Anonymous', true],
    ['GUEST', true],
    ['null', true],
    ['"null"', true],
    ["'undefined'", true],
    ['NaN', true],
    ['nan', false],
    ['None', true],
    ['0', true],
    ['[object Object]', true],
    ['   ', true],
    ['user-1', false],
    ['00', false],
  ])('isIllegalDistinctId(%j) = %s', (id, illegal) => expect(isIllegalDistinctId(id)).toBe(illegal));
});

describe('parseTimestamp canonical fast path', () => {
  it.each([
    ['2024-02-29T23:59:59.999Z', Date.UTC(2024, 1, 29, 23, 59, 59, 999)],
    ['2023-02-29T00:00:00.000Z', null],
    ['2024-04-31T00:00:00.000Z', null],
    ['2024-01-01T24:00:00.000Z', null],
    ['1999-12-31T00:00:00.000Z', Date.UTC(1999, 11, 31)],
  ])('%s', (s, expected) => expect(parseTimestamp(s)).toBe(expected));
});

describe('lone surrogates', () => {
  it.each([
    ['{"a":"\\ud800"}', '{"a":"\\ufffd"}'],
    ['{"a":"x\\udfffy"}', '{"a":"x\\ufffdy"}'],
    ['{"a":"\\\\ud800"}', '{"a":"\\\\ud800"}'], // an escaped backslash followed by text "ud800" is kept
    ['{"a":"\\\\\\ud800"}', '{"a":"\\\\\\ufffd"}'],
  ])('%s → %s', (input, out) => expect(replaceLoneSurrogates(input)).toBe(out));

  it('normalizeEvent produces JSON without lone surrogate escapes', () => {
    const e = normalizeEvent({ event: 'e', distinct_id: 'u', properties: { a: 'x\ud800', ok: '😀' } }, { now: NOW });
    expect(e.propertiesJson).toBe('{"a":"x\\ufffd","ok":"😀"}');
  });
});
