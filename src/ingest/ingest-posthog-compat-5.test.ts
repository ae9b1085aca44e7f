/**
 * Ingestion semantics ported from PostHog's own tests, fifth pass (after ingest-posthog-compat{,-2,-3,-4}.test.ts):
 * plugin-server person-state.test.ts and process-event.test.ts on the order person updates are applied in (the order
 * events are processed, not their timestamps), `created_at`, `$set_once` / `$set` with null and object values, `$unset`
 * (top-level keys only; after a merge), versions and is_identified around merges (person-state.ts mergeDistinctIds),
 * personless events whose distinct id later gets a person, rust capture's `historical_migration`, and timestamps.test.ts
 * parseEventTimestamp cases not pinned before (the 23-hour future limit). Each test names the PostHog case it ports.
 *
 * Events go through the real capture parser and the real Ingestor into the engine; persons are read back with
 * ProductQL, as a user would. ingest-posthog-compat-5.clickhouse.test.ts runs this file on ClickHouse.
 */
import { ingestCompat } from './testing';

const TOKEN = 'phc_compat5';
const compat = ingestCompat(TOKEN);
const { project, parse, capture, batch, hogql } = compat;

const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v) as Record<string, unknown>;

interface PersonRow {
  distinct_ids: string[];
  is_identified: boolean;
  properties: Record<string, unknown>;
  created_at: string;
  version: number;
}

/** The persons of a project, by first (sorted) distinct id; properties without `$creator_event_uuid`. */
async function persons(pid: number): Promise<PersonRow[]> {
  const rows = await hogql(
    pid,
    'select p.id, p.properties, p.is_identified, groupArray(d.distinct_id), toUnixTimestamp(p.created_at), p.version from raw_persons p join person_distinct_ids d on d.person_id = p.id group by p.id, p.properties, p.is_identified, p.created_at, p.version',
  );
  return rows
    .map(([, props, identified, ids, created, version]) => {
      const { $creator_event_uuid: _creator, ...properties } = json(props);
      return {
        distinct_ids: [...(ids as string[])].sort(),
        is_identified: identified === true || identified === 1,
        properties,
        created_at: new Date(Number(created) * 1000).toISOString(),
        version: Number(version),
      };
    })
    .sort((a, b) => a.distinct_ids[0].localeCompare(b.distinct_ids[0]));
}

const ev = (distinct_id: string, event: string, properties: Record<string, unknown>, timestamp?: string) =>
  ({ event, distinct_id, properties, ...(timestamp ? { timestamp } : {}) }) as Record<string, unknown>;

describe('person-state.test.ts / process-event.test.ts: person updates follow the order events are processed in', () => {
  it('a batch applies $set in the order of its events, not of their timestamps (the last processed value wins)', async () => {
    const pid = await project();
    await capture(
      pid,
      batch(
        ev('u', 'e', { $set: { plan: 'late' } }, '2021-10-30T02:00:00.000Z'),
        ev('u', 'e', { $set: { plan: 'early' } }, '2021-10-30T01:00:00.000Z'),
      ),
    );
    expect((await persons(pid)).map((p) => p.properties)).toEqual([{ plan: 'early' }]);
  });

  it('$set_once never overwrites: the first processed value stays, whatever the timestamps', async () => {
    const pid = await project();
    await capture(
      pid,
      batch(
        ev('u', 'e', { $set_once: { first: 'processed-first' } }, '2021-10-30T02:00:00.000Z'),
        ev('u', 'e', { $set_once: { first: 'earlier-timestamp' } }, '2021-10-30T01:00:00.000Z'),
      ),
    );
    await capture(pid, batch(ev('u', 'e', { $set_once: { first: 'next-request' } }, '2021-10-29T00:00:00.000Z')));
    expect((await persons(pid)).map((p) => p.properties)).toEqual([{ first: 'processed-first' }]);
  });

  it("created_at is the time of the event that created the person; a later-processed, earlier-timestamped event leaves it", async () => {
    const pid = await project();
    await capture(pid, batch(ev('u', 'e', {}, '2021-10-30T02:00:00.000Z'), ev('u', 'e', { $set: { a: 1 } }, '2021-10-30T01:00:00.000Z')));
    await capture(pid, batch(ev('u', 'e', { $set: { a: 2 } }, '2021-10-29T00:00:00.000Z')));
    expect(await persons(pid)).toEqual([
      { distinct_ids: ['u'], is_identified: false, properties: { a: 2 }, created_at: '2021-10-30T02:00:00.000Z', version: 2 },
    ]);
  });
});

describe('person-state.test.ts applyEventPropertyUpdates: null values', () => {
  it('$set of null stores the key with null; $set_once does not replace a null (the key is set)', async () => {
    const pid = await project();
    await capture(pid, batch(ev('u', 'e', { $set: { a: null, b: 1 }, $set_once: { c: null } })));
    await capture(pid, batch(ev('u', 'e', { $set_once: { a: 'x', c: 'y', d: 'z' } })));
    expect((await persons(pid)).map((p) => [p.properties, p.version])).toEqual([[{ a: null, b: 1, c: null, d: 'z' }, 1]]);
    expect(await hogql(pid, "select properties.a is null, properties.d from persons")).toEqual([[1, 'z']]);
  });

  it('$set of null over a value is a change; $set of null over null is none', async () => {
    const pid = await project();
    await capture(pid, batch(ev('u', 'e', { $set: { a: 1 } })));
    await capture(pid, batch(ev('u', 'e', { $set: { a: null } })));
    await capture(pid, batch(ev('u', 'e', { $set: { a: null } })));
    expect((await persons(pid)).map((p) => [p.properties, p.version])).toEqual([[{ a: null }, 1]]);
  });
});

describe("process-event.test.ts 'person $unset' then $set_once", () => {
  it('an $unset key is unset: a later $set_once sets it again', async () => {
    const pid = await project();
    await capture(pid, batch(ev('u', 'e', { $set_once: { a: 'first' } })));
    await capture(pid, batch(ev('u', 'e', { $unset: ['a'] }), ev('u', 'e', { $set_once: { a: 'second' } })));
    expect((await persons(pid)).map((p) => [p.properties, p.version])).toEqual([[{ a: 'second' }, 2]]);
  });

  it("$unset names top-level keys only: 'obj.a' is no path into an object", async () => {
    const pid = await project();
    await capture(pid, batch(ev('u', 'e', { $set: { obj: { a: 1, b: 2 }, 'obj.a': 'dotted' } })));
    await capture(pid, batch(ev('u', 'e', { $unset: ['obj.a', 'obj.b'] })));
    expect((await persons(pid)).map((p) => [p.properties, p.version])).toEqual([[{ obj: { a: 1, b: 2 } }, 1]]);
  });
});

describe('person-state.test.ts: values are replaced whole (applyEventPropertyUpdates sets top-level keys)', () => {
  it('$set of an object replaces the stored object, it is not merged into it', async () => {
    const pid = await project();
    await capture(pid, batch(ev('u', 'e', { $set: { obj: { a: 1, b: 2 }, list: [1, 2] } })));
    await capture(pid, batch(ev('u', 'e', { $set: { obj: { a: 3 }, list: [3] } })));
    expect((await persons(pid)).map((p) => [p.properties, p.version])).toEqual([[{ obj: { a: 3 }, list: [3] }, 1]]);
  });

  it('$set_once of an object on a key that holds one changes nothing', async () => {
    const pid = await project();
    await capture(pid, batch(ev('u', 'e', { $set_once: { obj: { a: 1 } } })));
    await capture(pid, batch(ev('u', 'e', { $set_once: { obj: { a: 2, b: 2 } } })));
    expect((await persons(pid)).map((p) => [p.properties, p.version])).toEqual([[{ obj: { a: 1 } }, 0]]);
  });

  it('one event on an existing person: $set_once adds a missing key, $set of the same key overwrites it', async () => {
    const pid = await project();
    await capture(pid, batch(ev('u', 'e', { $set: { x: 0 } })));
    await capture(pid, batch(ev('u', 'e', { $set_once: { a: 'once', b: 'once' }, $set: { a: 'set' } })));
    expect((await persons(pid)).map((p) => [p.properties, p.version])).toEqual([[{ x: 0, a: 'set', b: 'once' }, 1]]);
  });
});

describe("person-state.test.ts 'merges people on $identify event': the event's $unset applies to the merged person", () => {
  it("A's and B's properties are merged (B wins), then the event's $set_once, $set and $unset", async () => {
    const pid = await project();
    await capture(pid, batch(ev('anon', 'e', { $set: { shared: 'anon', only_anon: 1, drop_anon: 1 } }, '2021-10-30T01:00:00.000Z')));
    await capture(pid, batch(ev('user', 'e', { $set: { shared: 'user', only_user: 1, drop_user: 1 } }, '2021-10-30T02:00:00.000Z')));
    await capture(
      pid,
      batch(ev('user', '$identify', { $anon_distinct_id: 'anon', $set_once: { only_anon: 'once', fresh: 'once' }, $set: { set: 1 }, $unset: ['drop_anon', 'drop_user'] })),
    );
    expect(await persons(pid)).toEqual([
      {
        distinct_ids: ['anon', 'user'],
        is_identified: true,
        properties: { shared: 'user', only_anon: 1, only_user: 1, fresh: 'once', set: 1 },
        created_at: '2021-10-30T01:00:00.000Z',
        version: 1,
      },
    ]);
  });
});

describe('person-state.ts mergeDistinctIds: is_identified and versions', () => {
  it("a refused merge (the anonymous id's person is identified): the event's person is identified, one version up; the other is untouched", async () => {
    const pid = await project();
    await capture(pid, batch(ev('a', '$identify', { $anon_distinct_id: 'a-anon' })));
    await capture(pid, batch(ev('b', 'e', { $set: { b: 1 } })));
    await capture(pid, batch(ev('b', '$identify', { $anon_distinct_id: 'a' })));
    expect((await persons(pid)).map((p) => [p.distinct_ids, p.is_identified, p.properties, p.version])).toEqual([
      [['a', 'a-anon'], true, {}, 0],
      [['b'], true, { b: 1 }, 1],
    ]);
  });

  it('a new id joining an identified person changes the person not at all (addDistinctId writes only the id)', async () => {
    const pid = await project();
    await capture(pid, batch(ev('user', '$identify', { $anon_distinct_id: 'first' })));
    await capture(pid, batch(ev('user', '$identify', { $anon_distinct_id: 'second' })));
    await capture(pid, batch(ev('third', '$create_alias', { alias: 'user' })));
    expect((await persons(pid)).map((p) => [p.distinct_ids, p.is_identified, p.version])).toEqual([[['first', 'second', 'third', 'user'], true, 0]]);
    expect(await hogql(pid, 'select distinct_id, version from raw_person_distinct_ids order by distinct_id')).toEqual([
      ['first', 0],
      ['second', 0],
      ['third', 0],
      ['user', 0],
    ]);
  });
});

describe('process-event.test.ts: personless events, then the distinct id gets a person', () => {
  it("an anonymous id's personless events count as the person an $identify then creates for it", async () => {
    const pid = await project();
    const pl = { $process_person_profile: false };
    await capture(pid, batch(ev('anon', 'pl-1', pl, '2021-10-30T01:00:00.000Z'), ev('anon', 'pl-2', pl, '2021-10-30T01:01:00.000Z')));
    expect(await hogql(pid, 'select count() from persons')).toEqual([[0]]);
    await capture(pid, batch(ev('user', '$identify', { $anon_distinct_id: 'anon', $set: { email: 'a@b.c' } }, '2021-10-30T01:02:00.000Z')));
    expect((await persons(pid)).map((p) => [p.distinct_ids, p.is_identified, p.properties])).toEqual([[['anon', 'user'], true, { email: 'a@b.c' }]]);
    expect(await hogql(pid, 'select count(distinct person_id), count(), countIf(person.properties.email = \'a@b.c\') from events')).toEqual([[1, 3, 3]]);
  });

  it('personless events of an id later merged into another person count as that person', async () => {
    const pid = await project();
    await capture(pid, batch(ev('anon', 'pl', { $process_person_profile: false }, '2021-10-30T01:00:00.000Z')));
    await capture(pid, batch(ev('anon', 'e', {}, '2021-10-30T01:01:00.000Z'), ev('user', 'e', { $set: { who: 'user' } }, '2021-10-30T01:02:00.000Z')));
    await capture(pid, batch(ev('user', '$identify', { $anon_distinct_id: 'anon' }, '2021-10-30T01:03:00.000Z')));
    expect(await hogql(pid, 'select event, person.properties.who from events order by timestamp')).toEqual([
      ['pl', 'user'],
      ['e', 'user'],
      ['e', 'user'],
      ['$identify', 'user'],
    ]);
    expect(await hogql(pid, 'select count(distinct person_id) from events')).toEqual([[1]]);
  });
});

describe("rust capture 'historical_migration': the batch is ingested like any other", () => {
  it('old timestamps are kept, persons are built and merged', async () => {
    const pid = await project();
    await capture(pid, {
      ...batch(
        ev('anon', '$pageview', { $set: { plan: 'free' } }, '2019-01-01T00:00:00.000Z'),
        ev('user', '$identify', { $anon_distinct_id: 'anon', $set: { plan: 'pro' } }, '2019-01-02T00:00:00.000Z'),
      ),
      historical_migration: true,
    });
    expect(await hogql(pid, 'select event, toString(timestamp) from events order by timestamp')).toEqual([
      ['$pageview', '2019-01-01 00:00:00.000000'],
      ['$identify', '2019-01-02 00:00:00.000000'],
    ]);
    expect((await persons(pid)).map((p) => [p.distinct_ids, p.is_identified, p.properties, p.created_at])).toEqual([
      [['anon', 'user'], true, { plan: 'pro' }, '2019-01-01T00:00:00.000Z'],
    ]);
  });
});

describe('timestamps.test.ts parseEventTimestamp', () => {
  const tsOf = (event: Record<string, unknown>, sentAt?: string) =>
    new Date(parse({ ...batch({ event: 'e', distinct_id: 'u', ...event }), ...(sentAt ? { sent_at: sentAt } : {}) }).events[0].timestamp).toISOString();

  it('sent_at and timestamp with zone offsets: the skew is the difference of the two instants', () => {
    expect(tsOf({ timestamp: '2021-10-30T03:02:00.000+04:00' }, '2021-10-30T03:12:00.000+04:00')).toBe('2021-10-30T03:04:00.000Z');
  });

  it("'reports event_timestamp_in_future with $ignore_sent_at': a timestamp over 23 hours ahead is clamped to now", () => {
    expect(tsOf({ timestamp: '2021-10-31T03:14:00.001Z', properties: { $ignore_sent_at: true } }, '2021-10-30T03:12:00.000Z')).toBe(
      '2021-10-30T03:14:00.000Z',
    );
  });

  it('a timestamp exactly 23 hours ahead is kept as sent (only a later one is clamped: `nowDiff > 23 * 3600 * 1000`)', () => {
    expect(tsOf({ timestamp: '2021-10-31T02:14:00.000Z' })).toBe('2021-10-31T02:14:00.000Z');
    expect(tsOf({ timestamp: '2021-10-31T02:14:00.001Z' })).toBe('2021-10-30T03:14:00.000Z');
  });

  it('the 23 hours are checked after the sent_at correction', () => {
    // Clock two days fast: the event is corrected to two minutes before now, and kept.
    expect(tsOf({ timestamp: '2021-11-01T03:12:00.000Z' }, '2021-11-01T03:14:00.000Z')).toBe('2021-10-30T03:12:00.000Z');
    // Clock two days slow, event sent two days after it happened (sent_at in the past): corrected into the future, clamped.
    expect(tsOf({ timestamp: '2021-10-28T03:14:00.000Z' }, '2021-10-26T03:14:00.000Z')).toBe('2021-10-30T03:14:00.000Z');
  });
});
