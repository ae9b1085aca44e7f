/**
 * Property-based tests of the capture payload parser: whatever bytes, JSON shapes, encodings and query strings
 * a client sends, the parser either returns events or throws a CaptureError with a 4xx — never anything else.
 */
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { CaptureError, parseCaptureRequest } from '../../src/ingest/capture-payload';

const MAX = 2 * 1024 * 1024;

function attempt(parts: Parameters<typeof parseCaptureRequest>[0]): void {
  try {
    const r = parseCaptureRequest(parts);
    for (const e of r.events) {
      expect(typeof e.event).toBe('string');
      expect(typeof e.distinct_id).toBe('string');
      expect(e.distinct_id.length).toBeLessThanOrEqual(200);
    }
  } catch (e) {
    if (!(e instanceof CaptureError)) throw e;
    expect([400, 401, 413]).toContain(e.status);
  }
}

const event = fc.record(
  {
    event: fc.oneof(fc.string(), fc.constantFrom('$pageview', '$identify', '$create_alias', ''), fc.integer(), fc.constant(null)),
    distinct_id: fc.oneof(fc.string({ maxLength: 300 }), fc.integer(), fc.constant(null), fc.object()),
    properties: fc.oneof(fc.object(), fc.string(), fc.array(fc.anything()), fc.constant(null)),
    timestamp: fc.oneof(fc.date({ noInvalidDate: false }).map((d) => (isNaN(d.getTime()) ? 'not a date' : d.toISOString())), fc.string(), fc.integer()),
    uuid: fc.oneof(fc.uuid(), fc.string()),
    api_key: fc.oneof(fc.constant('phc_test'), fc.constant('phx_personal'), fc.string()),
    $set: fc.oneof(fc.object(), fc.string()),
  },
  { requiredKeys: [] },
);

const payload = fc.oneof(
  event,
  fc.array(event, { maxLength: 5 }),
  fc.record({ api_key: fc.oneof(fc.constant('phc_test'), fc.string()), batch: fc.array(event, { maxLength: 5 }), sent_at: fc.oneof(fc.string(), fc.date({ noInvalidDate: true }).map((d) => d.toISOString())) }, { requiredKeys: ['batch'] }),
  fc.anything(),
);

describe('capture payload parser under fuzzing', () => {
  it('JSON bodies of any shape: events or a clean 4xx', () => {
    fc.assert(
      fc.property(payload, fc.constantFrom(undefined, 'gzip'), (p, enc) => {
        const body = Buffer.from(JSON.stringify(p) ?? 'null');
        attempt({ method: 'POST', query: {}, contentType: 'application/json', contentEncoding: enc, body: enc ? gzipSync(body) : body, maxBytes: MAX });
      }),
      { numRuns: 3000, seed: 7 },
    );
  });

  it('arbitrary bytes, encodings and query strings: never a crash', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 2048 }),
        fc.constantFrom(undefined, 'gzip', 'deflate', 'br'),
        fc.dictionary(fc.constantFrom('compression', 'data', '_', 'ver', 'beacon'), fc.string()),
        fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', undefined),
        (bytes, enc, query, contentType) => {
          attempt({ method: 'POST', query, contentType, contentEncoding: enc, body: Buffer.from(bytes), maxBytes: MAX });
          attempt({ method: 'GET', query, maxBytes: MAX });
        },
      ),
      { numRuns: 3000, seed: 11 },
    );
  });
});
