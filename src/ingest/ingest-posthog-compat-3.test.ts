/**
 * Ingestion semantics ported from PostHog's own tests, third pass (after ingest-posthog-compat{,-2}.test.ts): rust
 * capture's v0_request.rs (extract_distinct_id, extract_token), posthog/api/test/test_capture.py (sent_at as a form
 * field, lz64 by Content-Encoding, custom uuids), plugin-server utils/event.test.ts (normalizeEvent), process-event.test.ts
 * (the `when handling $identify` / `$create_alias` sequences, read as events per person; anonymous-id cases; illegal ids)
 * and person-state.test.ts ('illegal aliasing'); the `/s` recordings route as rust capture's process_replay_events checks
 * it. Each test names the PostHog case it ports.
 *
 * Events go through the real capture parser and the real Ingestor into the engine; results are read back with
 * ProductQL, as a user would. ingest-posthog-compat-3.clickhouse.test.ts runs this file on ClickHouse.
 */
import { gzipSync } from 'node:zlib';
import Fastify from 'fastify';
import LZString from 'lz-string';
import { registerCaptureRoutes } from './capture-routes';
import { COMPAT_NOW as NOW, ingestCompat } from './testing';

const TOKEN = 'phc_compat3';
const compat = ingestCompat(TOKEN);
const { project, parse, capture, batch, hogql } = compat;

const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v) as Record<string, unknown>;

/** The persons of a project: sorted distinct ids, is_identified, properties (without `$creator_event_uuid`). */
async function persons(pid: number): Promise<{ distinct_ids: string[]; is_identified: boolean; properties: Record<string, unknown> }[]> {
  const rows = await hogql(pid, 'select p.id, p.properties, p.is_identified, groupArray(d.distinct_id) from persons p join person_distinct_ids d on d.person_id = p.id group by p.id, p.properties, p.is_identified');
  return rows
    .map(([, props, identified, ids]) => {
      const { $creator_event_uuid: _creator, ...properties } = json(props);
      return { distinct_ids: [...(ids as string[])].sort(), is_identified: identified === true || identified === 1, properties };
    })
    .sort((a, b) => a.distinct_ids[0].localeCompare(b.distinct_ids[0]));
}

/**
 * process-event.test.ts getEventsByPerson: for each person (in order of their first event), its distinct ids (sorted
 * here) and the names of its events in time order, reading the events' person_id as a query does.
 */
async function eventsByPerson(pid: number): Promise<[string[], string[]][]> {
  const events = await hogql(pid, 'select toString(person_id), event from events order by timestamp');
  const ids = await hogql(pid, 'select toString(person_id), distinct_id from person_distinct_ids');
  const out = new Map<string, [string[], string[]]>();
  for (const [person, event] of events) {
    if (!out.has(person as string)) {
      const own = ids.filter(([p]) => p === person).map(([, d]) => d as string);
      out.set(person as string, [own.sort(), []]);
    }
    out.get(person as string)![1].push(event as string);
  }
  return [...out.values()];
}

/** A sequence of single events, one second apart (so their order is their time order). */
function sequence() {
  let t = Date.parse('2021-10-30T01:00:00.000Z');
  return (distinct_id: string, event: string, properties: Record<string, unknown> = {}) =>
    batch({ event, distinct_id, properties, timestamp: new Date((t += 1000)).toISOString() });
}

describe("rust capture v0_request.rs 'extract_distinct_id': the stored distinct id", () => {
  it.each<[string, string]>([
    ['{"event": "e", "distinct_id": "myid"}', 'myid'],
    ['{"event": "e", "$distinct_id": "23"}', '23'],
    ['{"event": "e", "properties": {"distinct_id": "myid"}}', 'myid'],
    ['{"event": "e", "distinct_id": 23, "properties": {"distinct_id": "myid"}}', '23'],
    ['{"event": "e", "distinct_id": null, "properties": {"distinct_id": "myid"}}', 'myid'],
    ['{"event": "e", "distinct_id": 23}', '23'],
    ['{"event": "e", "distinct_id": 23.4}', '23.4'],
    // serde_json's Value::to_string: a number written with a fraction or an exponent is an f64, printed by ryu with
    // `.0` (and in exponent form from 1e16); one written as an integer is an i64/u64, printed exactly
    ['{"event": "e", "distinct_id": 23.0}', '23.0'],
    ['{"event": "e", "$distinct_id": 1e2}', '100.0'],
    ['{"event": "e", "properties": {"distinct_id": -5.00}}', '-5.0'],
    ['{"event": "e", "distinct_id": 1e16}', '1e16'],
    ['{"event": "e", "distinct_id": 12345678901234567890}', '12345678901234567890'],
    ['{"event": "e", "distinct_id": -9007199254740993}', '-9007199254740993'],
    ['{"event": "e", "distinct_id": 23, "properties": {"distinct_id": 23.0}}', '23'],
    ['{"event": "e", "distinct_id": ["a", "b"]}', '["a","b"]'],
    // serde_json's maps are sorted by key.
    ['{"event": "e", "distinct_id": {"string": "a", "int": 42}}', '{"int":42,"string":"a"}'],
    ['{"event": "e", "distinct_id": {"z": {"y": 1, "x": [{"b": 1, "a": 2}]}, "10": 0, "9": 0}}', '{"10":0,"9":0,"z":{"x":[{"a":2,"b":1}],"y":1}}'],
    [`{"event": "e", "distinct_id": "${'a'.repeat(222)}"}`, 'a'.repeat(200)],
    // NUL characters are replaced (plugin-server normalizeEvent: sanitizeString(String(event.distinct_id))).
    ['{"event": "e", "distinct_id": "a\\u0000b"}', 'a\uFFFDb'],
  ])('%s → %j', async (event, expected) => {
    const pid = await project();
    await capture(pid, `[${event.replace(/^\{/, `{"api_key": "${TOKEN}", `)}]`);
    expect(await hogql(pid, 'select distinct_id from events')).toEqual([[expected]]);
    expect(await hogql(pid, 'select distinct_id from person_distinct_ids')).toEqual([[expected]]);
  });

  it.each([
    ['missing', '{"event": "e"}', /without a distinct_id/],
    ['null, breaking compat with capture-py', '{"event": "e", "distinct_id": null}', /without a distinct_id/],
    ['empty', '{"event": "e", "distinct_id": ""}', /distinct_id/],
  ])('a distinct id %s is a 400', (_name, event, message) => {
    expect(() => parse(event.replace(/^\{/, `{"api_key": "${TOKEN}", `))).toThrow(expect.objectContaining({ status: 400, message: expect.stringMatching(message) }));
  });
});

describe("rust capture v0_request.rs 'extract_token'", () => {
  it.each<[string, string]>([
    ['[{"event":"e","distinct_id":"u","token":"token1"},{"event":"e","distinct_id":"u","token":"token1"}]', 'token1'],
    ['{"batch":[{"event":"e","distinct_id":"u","token":"token1"}],"api_key":"batched"}', 'batched'],
    ['{"event":"e","distinct_id":"u","$token":"single_token"}', 'single_token'],
    ['{"event":"e","distinct_id":"u","api_key":"single_token"}', 'single_token'],
  ])('%s → %j', (body, token) => {
    expect(parse(body).token).toBe(token);
  });

  it.each<[string, string, RegExp]>([
    ['NoTokenError', '{"event": "e", "distinct_id": "u"}', /without an api_key/],
    ['TokenValidationError: empty', '{"api_key": "", "batch":[{"event": "e", "distinct_id": "u"}]}', /API key is not valid/],
    ['TokenValidationError: personal api key', '[{"event": "e", "distinct_id": "u", "token": "phx_hellothere"}]', /API key is not valid/],
    ['MultipleTokensError', '[{"event": "e", "distinct_id": "u", "token": "token1"},{"event": "e", "distinct_id": "u", "token": "token2"}]', /inconsistent api_key/],
  ])('%s is a 401', (_name, body, message) => {
    expect(() => parse(body)).toThrow(expect.objectContaining({ status: 401, message: expect.stringMatching(message) }));
  });
});

describe("plugin-server utils/event.test.ts 'normalizeEvent()'", () => {
  it.each<[unknown, string]>([
    ['abc', 'abc'],
    [123, '123'],
    [true, 'true'],
  ])('distinctId %j is stored as %j', async (distinctId, expected) => {
    const pid = await project();
    await capture(pid, batch({ event: 'e', distinct_id: distinctId }));
    expect(await hogql(pid, 'select distinct_id, person.id is not null from events')).toEqual([[expected, 1]]);
  });

  it('combines .properties $set and $set_once with top-level $set and $set_once (top level wins), on the event and on the person', async () => {
    const pid = await project();
    await capture(
      pid,
      batch({
        event: 'some_event',
        $set: { key1: 'value1', key2: 'value2' },
        $set_once: { key1_once: 'value1', key2_once: 'value2' },
        properties: {
          distinct_id: 'something',
          $set: { key2: 'value3', key3: 'value4' },
          $set_once: { key2_once: 'value3', key3_once: 'value4' },
        },
      }),
    );
    const [[set, setOnce]] = await hogql(pid, 'select properties.$set, properties.$set_once from events');
    expect(json(set)).toEqual({ key1: 'value1', key2: 'value2', key3: 'value4' });
    expect(json(setOnce)).toEqual({ key1_once: 'value1', key2_once: 'value2', key3_once: 'value4' });
    expect(await persons(pid)).toEqual([
      {
        distinct_ids: ['something'],
        is_identified: false,
        properties: { key1: 'value1', key2: 'value2', key3: 'value4', key1_once: 'value1', key2_once: 'value2', key3_once: 'value4' },
      },
    ]);
  });
});

describe("the `_` query parameter (posthog-js): epoch milliseconds of a year after 2020 (rust capture EventQuery::sent_at), or seconds (posthog/api/capture.py)", () => {
  const tsWith = (timestamp: string, query: Record<string, unknown>) =>
    new Date(parse([{ event: 'e', distinct_id: 'u', timestamp, properties: { token: TOKEN } }], { query }).events[0].timestamp).toISOString();
  const ms = (iso: string) => String(Date.parse(iso));

  it.each<[string, string, Record<string, unknown>, string]>([
    // The client's clock is 10 minutes ahead of the server's: its event of 10 minutes ago happened 10 minutes ago.
    ['milliseconds: skew corrected', '2021-10-30T03:22:00.000Z', { _: String(NOW + 600_000) }, '2021-10-30T03:12:00.000Z'],
    ['`sent_at` (its name in the query struct) too', '2021-10-30T03:22:00.000Z', { sent_at: String(NOW + 600_000) }, '2021-10-30T03:12:00.000Z'],
    // _datetime_from_seconds_or_millis: at most 11 digits are seconds (rust capture drops them; test_capture.py pins them)
    ['seconds: skew corrected too', '2021-10-30T03:22:00.000Z', { _: String(Math.floor((NOW + 600_000) / 1000)) }, '2021-10-30T03:12:00.000Z'],
    ['seconds in a `sent_at` query field too', '2021-10-30T03:22:00.000Z', { sent_at: String(Math.floor((NOW + 600_000) / 1000)) }, '2021-10-30T03:12:00.000Z'],
    ['seconds before 2021: dropped as such milliseconds are', '2020-12-31T23:58:59.000Z', { _: String(Date.parse('2020-12-31T23:59:59.000Z') / 1000) }, '2020-12-31T23:58:59.000Z'],
    // A client whose clock is back in 2020, sending an event of one minute before.
    ['milliseconds of 2020: dropped (`sent_at.year() > 2020`)', '2020-12-31T23:58:59.999Z', { _: ms('2020-12-31T23:59:59.999Z') }, '2020-12-31T23:58:59.999Z'],
    ['the first millisecond of 2021: taken', '2020-12-31T23:59:00.000Z', { _: ms('2021-01-01T00:00:00.000Z') }, '2021-10-30T03:13:00.000Z'],
  ])('%s', (_name, timestamp, query, expected) => {
    expect(tsWith(timestamp, query)).toBe(expected);
  });
});

describe('test_capture.py', () => {
  it("'test_sent_at_field': sent_at as a form field beside data= corrects the clock skew", async () => {
    const pid = await project();
    // The client's clock is 26 h ahead: the event, 10 minutes before it was sent, happened 10 minutes before now.
    const tomorrow = NOW + 26 * 3600_000;
    const data = Buffer.from(JSON.stringify({ event: '$pageview', timestamp: new Date(tomorrow).toISOString(), properties: { distinct_id: 'eeee' } })).toString('base64');
    const form = new URLSearchParams({ sent_at: new Date(tomorrow + 600_000).toISOString(), data, api_key: TOKEN }).toString();
    expect(await capture(pid, form, { contentType: 'application/x-www-form-urlencoded' })).toEqual(['$pageview']);
    const [[ts]] = await hogql(pid, "select toUnixTimestamp(timestamp) from events where distinct_id = 'eeee'");
    expect(Number(ts) * 1000).toBe(NOW - 600_000);
  });

  it("'test_js_library_underscore_sent_at': GET /e/?_=<seconds>&data=<json>, the client 26 h ahead: the event happened 10 minutes ago", async () => {
    const pid = await project();
    const tomorrow = NOW + 26 * 3600_000;
    const data = JSON.stringify({ event: 'movie played', timestamp: new Date(tomorrow).toISOString(), properties: { distinct_id: 2, token: TOKEN } });
    const query = { _: String(Math.floor((tomorrow + 600_000) / 1000)), data };
    expect(await capture(pid, '', { method: 'GET', query, contentType: 'application/json', body: undefined })).toEqual(['movie played']);
    const [[ts, distinctId]] = await hogql(pid, 'select toUnixTimestamp(timestamp), distinct_id from events');
    expect([Number(ts) * 1000, distinctId]).toEqual([NOW - 600_000, '2']);
  });

  it("'test_batch_lzstring' and 'test_lz64_with_emoji': an lz64 body named by Content-Encoding: lz64", async () => {
    const pid = await project();
    const body = LZString.compressToBase64(JSON.stringify({ api_key: TOKEN, batch: [{ type: 'capture', event: '🤓', distinct_id: '2', properties: { text: 'ünïcödé 🍕' } }] }));
    expect(await capture(pid, body, { contentType: 'application/json', contentEncoding: 'lz64' })).toEqual(['🤓']);
    expect(await hogql(pid, 'select event, distinct_id, properties.text from events')).toEqual([['🤓', '2', 'ünïcödé 🍕']]);
  });

  it("'test_custom_uuid': the event keeps the uuid it was sent with (any variant); 'test_custom_uuid_invalid' is a 400", async () => {
    const pid = await project();
    const uuid = '01823e89-f75d-0000-0d4d-3d43e54f6de5';
    await capture(pid, { event: 'some_event', properties: { distinct_id: '1', token: TOKEN }, uuid });
    expect(await hogql(pid, 'select toString(uuid) from events')).toEqual([[uuid]]);
    expect(() => parse({ event: 'some_event', properties: { distinct_id: '1', token: TOKEN }, uuid: 'invalid_uuid' })).toThrow(expect.objectContaining({ status: 400 }));
  });
});

describe("process-event.test.ts 'when handling $identify'", () => {
  it('we do not alias users if distinct id changes but we are already identified', async () => {
    const pid = await project();
    const e = sequence();
    await capture(pid, e('anonymous_id', 'event 1'));
    await capture(pid, e('initial_distinct_id', '$identify', { $anon_distinct_id: 'anonymous_id' }));
    await capture(pid, e('initial_distinct_id', 'event 2'));
    await capture(pid, e('p2_distinct_id', 'event 3'));
    await capture(pid, e('new_distinct_id', '$identify', { $anon_distinct_id: 'p2_distinct_id' }));
    await capture(pid, e('new_distinct_id', 'event 4'));
    // Switching back to the first user does not alias the second one to it.
    await capture(pid, e('initial_distinct_id', '$identify', { $anon_distinct_id: 'new_distinct_id' }));
    expect(await eventsByPerson(pid)).toEqual([
      [['anonymous_id', 'initial_distinct_id'], ['event 1', '$identify', 'event 2', '$identify']],
      [['new_distinct_id', 'p2_distinct_id'], ['event 3', '$identify', 'event 4']],
    ]);
    expect((await persons(pid)).map((p) => p.is_identified)).toEqual([true, true]);
  });

  it('we do not alias users if distinct id changes but we are already identified, with no anonymous person', async () => {
    const pid = await project();
    const e = sequence();
    await capture(pid, e('initial_distinct_id', '$identify', { $anon_distinct_id: 'anonymous_id' }));
    await capture(pid, e('initial_distinct_id', 'event 2'));
    await capture(pid, e('new_distinct_id', '$identify', { $anon_distinct_id: 'p2_distinct_id' }));
    await capture(pid, e('new_distinct_id', 'event 4'));
    await capture(pid, e('initial_distinct_id', '$identify', { $anon_distinct_id: 'new_distinct_id' }));
    expect(await eventsByPerson(pid)).toEqual([
      [['anonymous_id', 'initial_distinct_id'], ['$identify', 'event 2', '$identify']],
      [['new_distinct_id', 'p2_distinct_id'], ['$identify', 'event 4']],
    ]);
    expect((await persons(pid)).map((p) => p.is_identified)).toEqual([true, true]);
  });

  it('we do alias users if distinct id changes but we are not already identified', async () => {
    const pid = await project();
    const e = sequence();
    await capture(pid, e('initial-distinct-id', 'some event'));
    await capture(pid, e('new-distinct-id', '$identify', { $anon_distinct_id: 'initial-distinct-id' }));
    expect(await eventsByPerson(pid)).toEqual([[['initial-distinct-id', 'new-distinct-id'], ['some event', '$identify']]]);
    expect((await persons(pid)).map((p) => p.is_identified)).toEqual([true]);
  });
});

describe("process-event.test.ts 'when handling $create_alias'", () => {
  // The helpers' identify(id) sends a $identify from `id` with the previous id as $anon_distinct_id ('anonymous_id' first).
  it('we can alias an identified person to an identified person', async () => {
    const pid = await project();
    const e = sequence();
    await capture(pid, e('identified_id1', '$identify', { $anon_distinct_id: 'anonymous_id' }));
    await capture(pid, e('identified_id1', 'some event'));
    await capture(pid, e('identified_id2', '$identify', { $anon_distinct_id: 'identified_id1' }));
    await capture(pid, e('identified_id2', '$create_alias', { alias: 'identified_id1' }));
    expect(await eventsByPerson(pid)).toEqual([[['anonymous_id', 'identified_id1', 'identified_id2'], ['$identify', 'some event', '$identify', '$create_alias']]]);
  });

  it.each([
    ['we can alias an anonymous person to an identified person', 'anonymous_id', 'initial_distinct_id'],
    ['we can alias an identified person to an anonymous person', 'initial_distinct_id', 'anonymous_id'],
  ])('%s', async (_name, alias, distinctId) => {
    const pid = await project();
    const e = sequence();
    await capture(pid, e('initial_distinct_id', '$identify', { $anon_distinct_id: 'anonymous_id' }));
    await capture(pid, e('anonymous_id', 'anonymous event'));
    await capture(pid, e(distinctId, '$create_alias', { alias }));
    expect(await eventsByPerson(pid)).toEqual([[['anonymous_id', 'initial_distinct_id'], ['$identify', 'anonymous event', '$create_alias']]]);
  });

  it('we can alias an anonymous person to an anonymous person', async () => {
    const pid = await project();
    const e = sequence();
    await capture(pid, e('anonymous_id1', 'anonymous event 1'));
    await capture(pid, e('anonymous_id2', 'anonymous event 2'));
    await capture(pid, e('anonymous_id2', '$create_alias', { alias: 'anonymous_id1' }));
    expect(await eventsByPerson(pid)).toEqual([[['anonymous_id1', 'anonymous_id2'], ['anonymous event 1', 'anonymous event 2', '$create_alias']]]);
  });
});

describe('process-event.test.ts: anonymous ids', () => {
  it('distinct with anonymous_id: the new id joins the anonymous person; the same $identify again changes nothing', async () => {
    const pid = await project();
    await capture(pid, batch({ event: 'e', distinct_id: 'anonymous_id' }));
    for (let i = 0; i < 2; i++) {
      await capture(pid, batch({ event: '$identify', distinct_id: 'new_distinct_id', properties: { $anon_distinct_id: 'anonymous_id' } }));
      expect(await persons(pid)).toEqual([{ distinct_ids: ['anonymous_id', 'new_distinct_id'], is_identified: true, properties: {} }]);
    }
    expect(await hogql(pid, 'select event, count(), count(distinct person_id) from events group by event order by event')).toEqual([
      ['$identify', 2, 1],
      ['e', 1, 1],
    ]);
  });

  it('distinct with multiple anonymous_ids which were already created', async () => {
    const pid = await project();
    await capture(pid, batch({ event: 'e', distinct_id: 'anonymous_id' }));
    await capture(pid, batch({ event: 'e', distinct_id: 'new_distinct_id', properties: { $set: { email: 'someone@gmail.com' } } }));
    await capture(pid, batch({ event: '$identify', distinct_id: 'new_distinct_id', properties: { $anon_distinct_id: 'anonymous_id' } }));
    expect(await persons(pid)).toEqual([{ distinct_ids: ['anonymous_id', 'new_distinct_id'], is_identified: true, properties: { email: 'someone@gmail.com' } }]);
    await capture(pid, batch({ event: 'e', distinct_id: 'anonymous_id_2' }));
    await capture(pid, batch({ event: '$identify', distinct_id: 'new_distinct_id', properties: { $anon_distinct_id: 'anonymous_id_2' } }));
    expect(await persons(pid)).toEqual([
      { distinct_ids: ['anonymous_id', 'anonymous_id_2', 'new_distinct_id'], is_identified: true, properties: { email: 'someone@gmail.com' } },
    ]);
  });

  it.each<[string, Record<string, unknown>]>([
    ['$identify', { $anon_distinct_id: 'anonymous_id' }],
    ['$create_alias', { alias: 'anonymous_id' }],
    ['$merge_dangerously', { alias: 'anonymous_id' }],
  ])("identify with the same distinct_id as anon_distinct_id (person-merge-service: 'No reason to alias person against itself'): %s merges nothing, identifies no one", async (event, properties) => {
    const pid = await project();
    await capture(pid, batch({ event: 'e', distinct_id: 'anonymous_id' }));
    await capture(pid, batch({ event, distinct_id: 'anonymous_id', properties: { ...properties, $set: { a: 1 } } }));
    expect(await persons(pid)).toEqual([{ distinct_ids: ['anonymous_id'], is_identified: false, properties: { a: 1 } }]);
  });

  it("'alias twice', one step further: a person merged into one that is merged again follows it (events of all three ids, one person)", async () => {
    const pid = await project();
    const e = sequence();
    await capture(pid, e('a', 'event a'));
    await capture(pid, e('b', 'event b'));
    await capture(pid, e('c', 'event c'));
    await capture(pid, e('b', '$create_alias', { alias: 'a' }));
    // b's person is identified now: only $merge_dangerously merges it on.
    await capture(pid, e('c', '$merge_dangerously', { alias: 'b' }));
    expect(await eventsByPerson(pid)).toEqual([[['a', 'b', 'c'], ['event a', 'event b', 'event c', '$create_alias', '$merge_dangerously']]]);
    expect(await hogql(pid, 'select count(distinct person_id), count(distinct person.id) from events')).toEqual([[1, 1]]);
  });
});

describe('illegal ids in merges', () => {
  // person-state.test.ts 'illegal aliasing': the event's own id still gets its person; nothing is merged or identified.
  it.each<[string, string, Record<string, unknown>]>([
    ['stops $identify if current distinct_id is illegal', '[object Object]', { $anon_distinct_id: 'anonymous_id' }],
    ['stops $identify if $anon_distinct_id is illegal', 'some_distinct_id', { $anon_distinct_id: 'undefined' }],
    ['stops $create_alias if current distinct_id is illegal', 'false', { alias: 'some_distinct_id' }],
    ['stops $create_alias if alias is illegal', 'some_distinct_id', { alias: 'null' }],
  ])('%s', async (_name, distinctId, properties) => {
    const pid = await project();
    const event = '$anon_distinct_id' in properties ? '$identify' : '$create_alias';
    await capture(pid, batch({ event, distinct_id: distinctId, properties }));
    expect(await persons(pid)).toEqual([{ distinct_ids: [distinctId], is_identified: false, properties: {} }]);
    expect(await hogql(pid, 'select distinct_id, person.id is not null from events')).toEqual([[distinctId, 1]]);
  });

  it("process-event.test.ts 'Alias with illegal (generic) id': the illegal id gets a person of its own, not merged", async () => {
    const pid = await project();
    await capture(pid, batch({ event: 'e', distinct_id: 'user123' }));
    await capture(pid, batch({ event: '$create_alias', distinct_id: 'null', properties: { alias: 'user123' } }));
    expect(await persons(pid)).toEqual([
      { distinct_ids: ['null'], is_identified: false, properties: {} },
      { distinct_ids: ['user123'], is_identified: false, properties: {} },
    ]);
  });
});

describe("rust capture '/s' (session recordings, reference §6.1): accepted as process_replay_events checks them, not stored", () => {
  const app = Fastify({ logger: false });
  let pid: number;
  let url: string;
  beforeAll(async () => {
    pid = await project();
    registerCaptureRoutes(app, { ingestor: compat.h.ingestor, resolveToken: async (t) => (t === TOKEN ? pid : null), parseWorkers: 0 });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => app.close());

  // What posthog-js sends to /s/: $snapshot events whose $snapshot_data holds rrweb events.
  const snapshot = (props: Record<string, unknown> = {}) => ({
    event: '$snapshot',
    properties: { $snapshot_data: [{ type: 2, data: {}, timestamp: 1 }], $session_id: 's1', $window_id: 'w1', distinct_id: 'rec-user', token: TOKEN, ...props },
  });
  const send = async (path: string, body: unknown) => {
    const r = await fetch(url + path, { method: 'POST', body: gzipSync(JSON.stringify(body)), headers: { 'content-type': 'text/plain' } });
    return { statusCode: r.status, body: await r.text() };
  };

  it('a posthog-js recording batch (gzip-js, one rrweb event or many) is a 200, and stores no event and no person', async () => {
    for (const path of ['/s/?compression=gzip-js&ver=1.57.2', '/s']) {
      const r = await send(path, [snapshot(), snapshot({ $snapshot_data: { type: 3, data: {} } })]);
      expect([r.statusCode, r.body]).toEqual([200, '{"status":1}']);
    }
    await compat.h.ingestor.flush();
    expect(await hogql(pid, 'select count() from events')).toEqual([[0]]);
    expect(await hogql(pid, 'select count() from persons')).toEqual([[0]]);
  });

  it.each<[string, unknown[], number, string]>([
    ['MissingSessionId', [snapshot({ $session_id: undefined })], 400, 'replay event submitted without session id'],
    ['MissingSnapshotData', [snapshot(), snapshot({ $snapshot_data: undefined })], 400, 'replay event submitted without snapshot data'],
    ['MissingSnapshotData (not an array or object)', [snapshot({ $snapshot_data: 'x' })], 400, 'replay event submitted without snapshot data'],
    ['MissingDistinctId', [snapshot({ distinct_id: undefined })], 400, 'event submitted without a distinct_id'],
    ['NoTokenError', [snapshot({ token: undefined })], 401, 'event submitted without an api_key'],
  ])('%s', async (_name, body, status, message) => {
    const r = await send('/s/', body);
    expect([r.statusCode, r.body]).toEqual([status, message]);
  });
});

describe('person-state.test.ts versions, read from raw_persons / raw_person_distinct_ids', () => {
  const version = async (pid: number, distinctId: string) =>
    (await hogql(pid, `select p.version from raw_persons p join raw_person_distinct_ids d on d.person_id = p.id where d.distinct_id = '${distinctId}'`))[0]?.[0];

  it("'creates person if they're new' at version 0; 'updates person properties' adds one; 'does not update person if not needed' adds none; 'marks user as is_identified' adds one", async () => {
    const pid = await project();
    await capture(pid, batch({ event: 'e', distinct_id: 'u', properties: { $set: { a: 1 } } }));
    expect(await version(pid, 'u')).toBe(0);
    await capture(pid, batch({ event: 'e', distinct_id: 'u', properties: { $set: { a: 2 } } }));
    expect(await version(pid, 'u')).toBe(1);
    await capture(pid, batch({ event: 'e', distinct_id: 'u', properties: { $set: { a: 2 }, $set_once: { a: 3 }, $unset: ['missing'] } }));
    expect(await version(pid, 'u')).toBe(1);
    await capture(pid, batch({ event: '$identify', distinct_id: 'u', properties: { $anon_distinct_id: 'anon' } }));
    expect(await version(pid, 'u')).toBe(2);
    expect(await hogql(pid, 'select distinct_id, version from raw_person_distinct_ids order by distinct_id')).toEqual([
      ['anon', 0],
      ['u', 0],
    ]);
  });

  it('a merge: the person is at max(v1, v2) + 1, the distinct ids moved to it one version up (moveDistinctIds)', async () => {
    const pid = await project();
    await capture(pid, batch({ event: 'e', distinct_id: 'old-user', properties: { $set: { n: 0 } } }));
    for (let n = 1; n <= 3; n++) await capture(pid, batch({ event: 'e', distinct_id: 'old-user', properties: { $set: { n } } }));
    await capture(pid, batch({ event: 'e', distinct_id: 'new-user' }));
    await capture(pid, batch({ event: '$identify', distinct_id: 'new-user', properties: { $anon_distinct_id: 'old-user' } }));
    expect(await hogql(pid, 'select count() from raw_persons')).toEqual([[1]]);
    expect(await version(pid, 'new-user')).toBe(4);
    expect(await hogql(pid, 'select distinct_id, version from raw_person_distinct_ids order by distinct_id')).toEqual([
      ['new-user', 0],
      ['old-user', 1],
    ]);
  });
});

describe("process-event.test.ts '$groupidentify creating group' / 'updating properties', read from the groups table", () => {
  it('the first $groupidentify creates the group at its time; a later one merges $group_set over it and keeps created_at', async () => {
    const pid = await project();
    const groupidentify = (timestamp: string, $group_set: Record<string, unknown>) =>
      batch({ event: '$groupidentify', distinct_id: 'distinct_id1', timestamp, properties: { $group_type: 'organization', $group_key: 'org::5', $group_set } });
    await capture(pid, groupidentify('2021-10-30T01:00:00.000Z', { a: 1, b: 2 }));
    await capture(pid, groupidentify('2021-10-30T01:01:00.000Z', { foo: 'bar', a: 3 }));
    const rows = await hogql(pid, 'select index, key, properties, toUnixTimestamp(created_at) from groups');
    expect(rows.map(([i, k, p, c]) => [i, k, json(p), Number(c) * 1000])).toEqual([[0, 'org::5', { a: 3, b: 2, foo: 'bar' }, Date.parse('2021-10-30T01:00:00.000Z')]]);
    // An event naming the group gets its column.
    await capture(pid, batch({ event: 'e', distinct_id: 'distinct_id1', properties: { $groups: { organization: 'org::5' } } }));
    expect(await hogql(pid, "select $group_0 from events where event = 'e'")).toEqual([['org::5']]);
  });

  it("'groupidentify without group_type ingests event': the event is stored with its person, no group is made", async () => {
    const pid = await project();
    await capture(pid, batch({ event: '$groupidentify', distinct_id: 'distinct_id1', properties: { $group_key: 'org::5', $group_set: { foo: 'bar' } } }));
    expect(await hogql(pid, 'select event, distinct_id, properties.$group_key, person.id is not null from events')).toEqual([['$groupidentify', 'distinct_id1', 'org::5', 1]]);
    expect(await hogql(pid, 'select count() from groups')).toEqual([[0]]);
  });
});

describe("process-event.test.ts 'ip capture', 'ip override' and 'anonymized ip capture' (the project's anonymize_ips)", () => {
  const IP = '11.12.13.14';
  const storedIp = async (pid: number) => (await hogql(pid, "select JSONHas(properties, '$ip'), properties.$ip from events"));

  it.each<[string, Record<string, unknown>, boolean, unknown[][]]>([
    ["'ip capture': capture's address", {}, false, [[1, IP]]],
    ["'ip override': the event's own", { $ip: '1.0.0.1' }, false, [[1, '1.0.0.1']]],
    ['an empty $ip is replaced by the address', { $ip: '' }, false, [[1, IP]]],
    ["'anonymized ip capture': no $ip", {}, true, [[0, null]]],
    ["anonymized, the event's own $ip is removed too", { $ip: '1.0.0.1' }, true, [[0, null]]],
    ['anonymized, an empty $ip takes the address and so is removed', { $ip: '' }, true, [[0, null]]],
  ])('%s', async (_name, properties, anonymize, expected) => {
    const pid = await project();
    const parts = { ip: IP, anonymizeIpTokens: anonymize ? new Set([TOKEN]) : new Set(['phc_someone_else']) };
    await capture(pid, batch({ event: '$pageview', distinct_id: 'asdfasdfasdf', properties }), parts);
    expect(await storedIp(pid)).toEqual(expected);
  });

  it('anonymized with no address seen: a falsy $ip is kept as it is (the removal checks `properties.$ip` is truthy)', async () => {
    const pid = await project();
    await capture(pid, batch({ event: 'e', distinct_id: 'd', properties: { $ip: '' } }), { anonymizeIpTokens: new Set([TOKEN]) });
    expect(await storedIp(pid)).toEqual([[1, '']]);
  });

  it('only the named tokens: an event for another token keeps its address; a batch token decides for its events', async () => {
    const anon = new Set([TOKEN]);
    expect(parse({ api_key: 'phc_other', batch: [{ event: 'e', distinct_id: 'd', token: TOKEN }] }, { ip: IP, anonymizeIpTokens: anon }).events[0].properties.$ip).toBe(IP);
    expect(parse([{ event: 'e', distinct_id: 'd', token: TOKEN, properties: { $ip: '1.0.0.1' } }], { ip: IP, anonymizeIpTokens: anon }).events[0].properties.$ip).toBeUndefined();
  });

  it('an import with anonymizeIps stores no $ip; without, the row keeps its own', async () => {
    const pid = await project();
    const row = (uuid: string) => ({ event: 'imported', distinct_id: 'imp', uuid, timestamp: '2021-10-29T00:00:00Z', properties: { $ip: '1.0.0.1' } });
    await compat.h.ingestor.import(pid, { events: [row('0190a0a0-0000-7000-8000-00000000a001')] }, { anonymizeIps: true });
    await compat.h.ingestor.import(pid, { events: [row('0190a0a0-0000-7000-8000-00000000a002')] });
    expect(await hogql(pid, "select toString(uuid), JSONHas(properties, '$ip') from events order by uuid")).toEqual([
      ['0190a0a0-0000-7000-8000-00000000a001', 0],
      ['0190a0a0-0000-7000-8000-00000000a002', 1],
    ]);
  });
});
