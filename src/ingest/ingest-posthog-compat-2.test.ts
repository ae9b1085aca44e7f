/**
 * Ingestion semantics ported from PostHog's own tests, second pass (the first is ingest-posthog-compat.test.ts):
 * plugin-server person-state.test.ts (merges with $set / $set_once, version and created_at rules, when a person is
 * rewritten, is_identified), process-event.test.ts (the alias family, identify sequences, illegal ids, project
 * isolation, `$ip`, `$unset`), person-merge-service.ts isDistinctIdIllegal, and the capture-side rules of
 * posthog/api/test/test_capture.py (token from a form field or the query string, `/engage`) and of rust capture
 * (what is not an event). Each test names the PostHog case it ports.
 *
 * Events go through the real capture parser and the real Ingestor into the engine; results are read back with
 * ProductQL. ingest-posthog-compat-2.clickhouse.test.ts runs this file on ClickHouse.
 */
import { BATCH_ROUTE_MAX_BYTES, parseCaptureRequest } from './capture-payload';
import { ProjectIdentity } from './identity';
import { COMPAT_NOW as NOW, ingestCompat } from './testing';

const TOKEN = 'phc_compat2';
const compat = ingestCompat(TOKEN);
const { project, capture, batch, hogql } = compat;
const one = (distinct_id: string, event: string, properties: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
  batch({ event, distinct_id, properties, ...extra });

interface PersonRow {
  properties: Record<string, unknown>;
  is_identified: boolean;
  distinct_ids: string[];
  created_at: string;
}

/** The raw person properties of a project, in order of their creating event's uuid. */
async function personProperties(pid: number): Promise<Record<string, unknown>[]> {
  const rows = (await hogql(pid, 'select properties from persons')).map(([p]) => (typeof p === 'string' ? JSON.parse(p) : p) as Record<string, unknown>);
  return rows.sort((a, b) => String(a.$creator_event_uuid ?? '').localeCompare(String(b.$creator_event_uuid ?? '')));
}

/**
 * The persons of a project, in order of their first (sorted) distinct id. `$creator_event_uuid` (which every person a
 * captured event creates has; pinned below) is checked to be a uuid and left out of the compared properties.
 */
async function persons(pid: number): Promise<PersonRow[]> {
  const rows = await hogql(
    pid,
    'select p.id, p.properties, p.is_identified, groupArray(d.distinct_id), p.created_at from persons p join person_distinct_ids d on d.person_id = p.id group by p.id, p.properties, p.is_identified, p.created_at',
  );
  return rows
    .map(([, props, identified, ids, created]) => ({
      properties: withoutCreator(typeof props === 'string' ? JSON.parse(props) : (props as Record<string, unknown>)),
      is_identified: identified === true || identified === 1,
      distinct_ids: [...(ids as string[])].sort(),
      created_at: new Date(Date.parse(String(created).replace(' ', 'T') + (/Z|[+-]\d\d:?\d\d$/.test(String(created)) ? '' : 'Z'))).toISOString(),
    }))
    .sort((a, b) => a.distinct_ids[0].localeCompare(b.distinct_ids[0]));
}

function withoutCreator(props: Record<string, unknown>): Record<string, unknown> {
  const { $creator_event_uuid: creator, ...rest } = props;
  expect(creator).toMatch(UUID);
  return rest;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const idsOf = async (pid: number) => (await persons(pid)).map((p) => p.distinct_ids);

describe("person-state.test.ts 'creates person if they're new': $creator_event_uuid", () => {
  it('is the uuid of the event that created the person, wins over its $set, and stays through later events and merges', async () => {
    const pid = await project();
    const u = (n: number) => `0190a0a0-0000-7000-8000-${String(n).padStart(12, '0')}`;
    await capture(pid, batch({ event: 'e', distinct_id: 'new-user', uuid: u(1), properties: { $set: { $creator_event_uuid: 'mine', a: 1 } } }));
    await capture(pid, batch({ event: 'e', distinct_id: 'new-user', uuid: u(2), properties: { $set: { b: 2 } } }));
    expect(await personProperties(pid)).toEqual([{ $creator_event_uuid: u(1), a: 1, b: 2 }]);
    // A merge creating the person (neither id known) names the merging event; the merge target's one stays.
    await capture(pid, batch({ event: '$identify', distinct_id: 'other', uuid: u(3), properties: { $anon_distinct_id: 'other-anon' } }));
    await capture(pid, batch({ event: '$identify', distinct_id: 'new-user', uuid: u(4), properties: { $anon_distinct_id: 'x' } }));
    expect(await personProperties(pid)).toEqual([{ $creator_event_uuid: u(1), a: 1, b: 2 }, { $creator_event_uuid: u(3) }]);
  });

  it('a server-generated uuid (none sent) is named too; personless events create no person; imports give none', async () => {
    const pid = await project();
    await capture(pid, batch({ event: 'e', distinct_id: 'pl', properties: { $process_person_profile: false } }, { event: 'e', distinct_id: 'gen' }));
    const [[uuid]] = await hogql(pid, "select toString(uuid) from events where distinct_id = 'gen'");
    expect(await personProperties(pid)).toEqual([{ $creator_event_uuid: uuid }]);
    const imported = await compat.h.load({ events: [{ event: 'e', distinct_id: 'imp', timestamp: '2021-10-01T00:00:00Z', properties: { $set: { a: 1 } } }] });
    expect(await personProperties(imported)).toEqual([{ a: 1 }]);
  });
});

describe('person-state.test.ts: merges and updates', () => {
  it('merges people on $identify event and updates properties with $set/$set_once (the identified person wins, then the event)', async () => {
    const pid = await project();
    await capture(pid, one('old-user', 'e', { $set: { a: 1, b: 2 } }, { timestamp: '2021-10-29T00:00:00Z' }));
    await capture(pid, one('new-user', 'e', { $set: { b: 3, c: 4, d: 5 } }, { timestamp: '2021-10-30T00:00:00Z' }));
    await capture(pid, one('new-user', '$identify', { $anon_distinct_id: 'old-user', $set: { d: 6, e: 7 }, $set_once: { a: 8, f: 9 } }));
    expect(await persons(pid)).toEqual([
      { properties: { a: 1, b: 3, c: 4, d: 6, e: 7, f: 9 }, is_identified: true, distinct_ids: ['new-user', 'old-user'], created_at: '2021-10-29T00:00:00.000Z' },
    ]);
    // Every event, the anonymous ones included, now belongs to the one person.
    expect(await hogql(pid, 'select count(), count(distinct person_id) from events')).toEqual([[3, 1]]);
  });

  it('merges people on $identify when the identified (target) person is already identified: only the anonymous one must not be', async () => {
    const pid = await project();
    await capture(pid, one('user', '$identify', { $anon_distinct_id: 'first-device' }));
    await capture(pid, one('second-device', 'e', { $set: { device: 2 } }));
    await capture(pid, one('user', '$identify', { $anon_distinct_id: 'second-device' }));
    expect(await idsOf(pid)).toEqual([['first-device', 'second-device', 'user']]);
    expect((await persons(pid))[0].properties).toEqual({ device: 2 });
  });

  it('does not merge people when both users are identified; the event still lands on the target person', async () => {
    const pid = await project();
    await capture(pid, one('a', '$identify', { $anon_distinct_id: 'a-anon' }));
    await capture(pid, one('b', '$identify', { $anon_distinct_id: 'b-anon' }));
    await capture(pid, one('b', '$identify', { $anon_distinct_id: 'a', $set: { tried: true } }));
    expect(await persons(pid)).toEqual([
      expect.objectContaining({ properties: {}, distinct_ids: ['a', 'a-anon'] }),
      expect.objectContaining({ properties: { tried: true }, distinct_ids: ['b', 'b-anon'] }),
    ]);
    const warnings = new ProjectIdentity(1);
    warnings.processEvent({ event: '$identify', distinct_id: 'a', properties: { $anon_distinct_id: 'x' }, timestamp: NOW });
    warnings.processEvent({ event: '$identify', distinct_id: 'b', properties: { $anon_distinct_id: 'y' }, timestamp: NOW });
    warnings.processEvent({ event: '$identify', distinct_id: 'b', properties: { $anon_distinct_id: 'a' }, timestamp: NOW });
    expect(warnings.drain().warnings).toEqual([
      { type: 'cannot_merge_already_identified', details: { sourcePersonDistinctId: 'a', targetPersonDistinctId: 'b' } },
    ]);
  });

  it('adds distinct_id and marks user as is_identified when passed $anon_distinct_id person exists (created_at kept)', async () => {
    const pid = await project();
    await capture(pid, one('old-user', 'e', { $set: { a: 1 } }, { timestamp: '2021-10-01T00:00:00Z' }));
    await capture(pid, one('new-user', '$identify', { $anon_distinct_id: 'old-user', $set: { b: 2 } }));
    expect(await persons(pid)).toEqual([
      { properties: { a: 1, b: 2 }, is_identified: true, distinct_ids: ['new-user', 'old-user'], created_at: '2021-10-01T00:00:00.000Z' },
    ]);
  });

  it('marks is_identified to be updated when no changes to distinct_ids but $anon_distinct_id passed', async () => {
    // One unidentified person with both ids (as an import makes it: capture would identify it on the way).
    const id = new ProjectIdentity(1);
    id.processEvent({ event: 'e', distinct_id: 'new-user', properties: {}, timestamp: NOW });
    id.importPerson({ id: id.personFor('new-user')!.id, distinct_ids: ['old-user'], properties: {}, created_at: NOW, is_identified: false });
    const person = id.personFor('new-user')!;
    expect(id.personFor('old-user')).toBe(person);
    const version = person.version;
    id.processEvent({ event: '$identify', distinct_id: 'new-user', properties: { $anon_distinct_id: 'old-user' }, timestamp: NOW });
    expect(person.is_identified).toBe(true);
    expect(person.version).toBe(version + 1);
    expect(id.persons.size).toBe(1);
  });

  it('an id without a person joins the anonymous id\'s person even when that one is identified (mergeDistinctIds: only two persons are checked)', async () => {
    const pid = await project();
    await capture(pid, one('user-1', '$identify', { $anon_distinct_id: 'shared-device' }));
    await capture(pid, one('user-2', '$identify', { $anon_distinct_id: 'shared-device', $set: { second: true } }));
    expect(await persons(pid)).toEqual([expect.objectContaining({ properties: { second: true }, is_identified: true, distinct_ids: ['shared-device', 'user-1', 'user-2'] })]);
  });

  it('a neither-has-a-person merge creates one identified person, created at the event time', async () => {
    const pid = await project();
    await capture(pid, one('new-user', '$identify', { $anon_distinct_id: 'old-user', $set_once: { x: 1 } }, { timestamp: '2021-10-30T01:00:00Z' }));
    expect(await persons(pid)).toEqual([
      { properties: { x: 1 }, is_identified: true, distinct_ids: ['new-user', 'old-user'], created_at: '2021-10-30T01:00:00.000Z' },
    ]);
  });

  it('does not update person if not needed: the same $set / an existing $set_once key / $unset of a missing key rewrite nothing', () => {
    const id = new ProjectIdentity(1);
    id.processEvent({ event: 'e', distinct_id: 'u', properties: { $set: { b: 3, c: 4 } }, timestamp: NOW });
    id.drain();
    const person = id.personFor('u')!;
    for (const properties of [{ $set: { b: 3 } }, { $set_once: { c: 3 } }, { $unset: ['missing'] }, { $set: { c: 4 }, $set_once: { b: 1 }, $unset: { nope: 1 } }]) {
      id.processEvent({ event: 'e', distinct_id: 'u', properties, timestamp: NOW });
      expect(person.version).toBe(0);
      expect(id.drain().persons).toEqual([]);
    }
    expect(person.properties).toEqual({ b: 3, c: 4 });
  });

  it('updates person properties: the version goes up by one per changing event', () => {
    const id = new ProjectIdentity(1);
    id.processEvent({ event: 'e', distinct_id: 'u', properties: { $set: { b: 3, c: 4, toString: 1 } }, timestamp: NOW });
    id.processEvent({ event: 'e', distinct_id: 'u', properties: { $set_once: { c: 3, e: 4 }, $set: { b: 4, toString: 1, null_byte: '\u0000' } }, timestamp: NOW });
    const person = id.personFor('u')!;
    expect(person.properties).toEqual({ b: 4, c: 4, e: 4, toString: 1, null_byte: '\uFFFD' });
    expect(person.version).toBe(1);
  });

  it('merged persons: version is max(v1, v2) + 1 (reference §6.5); the merged-away person is deleted and its events resolve to the target', async () => {
    const id = new ProjectIdentity(1);
    id.processEvent({ event: 'e', distinct_id: 'a', properties: { $set: { n: 1 } }, timestamp: NOW });
    for (let i = 2; i <= 5; i++) id.processEvent({ event: 'e', distinct_id: 'a', properties: { $set: { n: i } }, timestamp: NOW });
    id.processEvent({ event: 'e', distinct_id: 'b', properties: { $set: { m: 1 } }, timestamp: NOW });
    const a = id.personFor('a')!;
    const b = id.personFor('b')!;
    expect([a.version, b.version]).toEqual([4, 0]);
    id.processEvent({ event: '$identify', distinct_id: 'b', properties: { $anon_distinct_id: 'a' }, timestamp: NOW });
    expect(id.personFor('a')).toBe(b);
    expect(b.version).toBe(5);
    expect(id.resolvePersonId(a.id)).toBe(b.id);
    const drained = id.drain();
    expect(drained.deletedPersons).toEqual([{ project_id: 1, id: a.id }]);
    expect(drained.overrides).toEqual([{ project_id: 1, old_person_id: a.id, override_person_id: b.id, version: 5 }]);
  });
});

describe("process-event.test.ts 'capture new person'", () => {
  it('the person gets the event-to-person properties and $initial_*; a later event with its own $set updates them; one with only those does not', async () => {
    const pid = await project();
    const first = {
      $browser: 'Chrome',
      $current_url: 'https://test.com',
      $os: 'Mac OS X',
      $browser_version: '95',
      $referring_domain: 'https://google.com',
      utm_medium: 'twitter',
      gclid: 'GOOGLE ADS ID',
      msclkid: 'BING ADS ID',
      $elements: [{ tag_name: 'a', nth_child: 1, nth_of_type: 2, attr__class: 'btn btn-sm' }],
    };
    await capture(pid, one('2', '$autocapture', first), { ip: '127.0.0.1' });
    const initial = {
      $initial_browser: 'Chrome',
      $initial_browser_version: '95',
      $initial_utm_medium: 'twitter',
      $initial_current_url: 'https://test.com',
      $initial_os: 'Mac OS X',
      $initial_gclid: 'GOOGLE ADS ID',
      $initial_msclkid: 'BING ADS ID',
      $initial_referring_domain: 'https://google.com',
    };
    const current = { $browser: 'Chrome', $current_url: 'https://test.com', $os: 'Mac OS X', $browser_version: '95', $referring_domain: 'https://google.com', utm_medium: 'twitter', gclid: 'GOOGLE ADS ID', msclkid: 'BING ADS ID' };
    expect(await persons(pid)).toEqual([{ properties: { ...initial, ...current }, is_identified: false, distinct_ids: ['2'], created_at: new Date(NOW).toISOString() }]);
    expect(await hogql(pid, 'select properties.$ip, elements_chain from events')).toEqual([['127.0.0.1', 'a.btn.btn-sm:attr__class="btn btn-sm"nth-child="1"nth-of-type="2"']]);

    const second = { utm_medium: 'instagram', $current_url: 'https://test.com/pricing', $browser_version: 80, $browser: 'Firefox', $set: { testProp: 'test' } };
    await capture(pid, one('2', '$autocapture', second));
    const updated = { ...initial, ...current, utm_medium: 'instagram', $current_url: 'https://test.com/pricing', $browser_version: 80, $browser: 'Firefox', testProp: 'test' };
    expect((await persons(pid))[0].properties).toEqual(updated);

    await capture(pid, one('2', '$autocapture', { utm_medium: 'email', $current_url: 'https://test.com/about' }));
    expect((await persons(pid))[0].properties).toEqual(updated);
  });
});

describe('process-event.test.ts: the alias family', () => {
  it("'alias': the aliased id joins the event's person", async () => {
    const pid = await project();
    await capture(pid, one('old_distinct_id', 'e'));
    await capture(pid, one('old_distinct_id', '$create_alias', { alias: 'new_distinct_id' }));
    expect(await idsOf(pid)).toEqual([['new_distinct_id', 'old_distinct_id']]);
  });

  it("'alias reverse': the event's id joins the aliased id's person", async () => {
    const pid = await project();
    await capture(pid, one('old_distinct_id', 'e'));
    await capture(pid, one('new_distinct_id', '$create_alias', { alias: 'old_distinct_id' }));
    expect(await idsOf(pid)).toEqual([['new_distinct_id', 'old_distinct_id']]);
  });

  it("'alias twice': a second anonymous person is merged into the aliased (identified) one", async () => {
    const pid = await project();
    await capture(pid, one('old_distinct_id', 'e'));
    await capture(pid, one('old_distinct_id', '$create_alias', { alias: 'new_distinct_id' }));
    await capture(pid, one('old_distinct_id_2', 'e'));
    expect((await idsOf(pid)).length).toBe(2);
    await capture(pid, one('new_distinct_id', '$create_alias', { alias: 'old_distinct_id_2' }));
    expect(await idsOf(pid)).toEqual([['new_distinct_id', 'old_distinct_id', 'old_distinct_id_2']]);
  });

  it("'alias before person': neither id known, one person with both", async () => {
    const pid = await project();
    await capture(pid, one('new_distinct_id', '$create_alias', { alias: 'old_distinct_id' }));
    expect(await persons(pid)).toEqual([expect.objectContaining({ is_identified: true, distinct_ids: ['new_distinct_id', 'old_distinct_id'] })]);
  });

  it("'alias both existing' and 'alias merge properties': the event's person keeps its values, the other's fill in", async () => {
    const pid = await project();
    await capture(pid, one('old_distinct_id', 'e', { $set: { key_on_both: 'old value both', key_on_old: 'old value' } }));
    await capture(pid, one('new_distinct_id', 'e', { $set: { key_on_both: 'new value both', key_on_new: 'new value' } }));
    await capture(pid, one('new_distinct_id', '$create_alias', { alias: 'old_distinct_id' }));
    expect(await persons(pid)).toEqual([
      expect.objectContaining({
        properties: { key_on_both: 'new value both', key_on_new: 'new value', key_on_old: 'old value' },
        distinct_ids: ['new_distinct_id', 'old_distinct_id'],
      }),
    ]);
  });

  it('a numeric alias merges as its text', async () => {
    const pid = await project();
    await capture(pid, one('42', 'e'));
    await capture(pid, one('user', '$create_alias', { alias: 42 }));
    expect(await idsOf(pid)).toEqual([['42', 'user']]);
  });
});

describe('process-event.test.ts: identify sequences, $unset, project isolation', () => {
  it("'identify set': a later $identify's $set overwrites, keys it does not name stay; the event keeps its $set", async () => {
    const pid = await project();
    await capture(pid, one('distinct_id1', '$identify', { $set: { a_prop: 'test-1', c_prop: 'test-1' } }));
    await capture(pid, one('distinct_id1', '$identify', { $set: { a_prop: 'test-2', b_prop: 'test-2b' } }));
    expect((await persons(pid))[0].properties).toEqual({ a_prop: 'test-2', b_prop: 'test-2b', c_prop: 'test-1' });
    const rows = await hogql(pid, 'select properties.$set from events order by timestamp, uuid');
    expect(rows.map(([s]) => JSON.parse(s as string))).toEqual(
      expect.arrayContaining([{ a_prop: 'test-1', c_prop: 'test-1' }, { a_prop: 'test-2', b_prop: 'test-2b' }]),
    );
  });

  it("'identify set_once': a later $identify's $set_once only adds keys", async () => {
    const pid = await project();
    await capture(pid, one('distinct_id1', '$identify', { $set_once: { a_prop: 'test-1', c_prop: 'test-1' } }));
    await capture(pid, one('distinct_id1', '$identify', { $set_once: { a_prop: 'test-2', b_prop: 'test-2b' } }));
    expect((await persons(pid))[0].properties).toEqual({ a_prop: 'test-1', b_prop: 'test-2b', c_prop: 'test-1' });
  });

  it("'person $unset': listed keys go, missing keys are ignored; $unset runs after $set in one event", async () => {
    const pid = await project();
    await capture(pid, one('u', 'e', { $set: { a: 1, b: 2, c: 3 } }));
    await capture(pid, one('u', 'e', { $unset: ['a', 'c', 'never-set'] }));
    expect((await persons(pid))[0].properties).toEqual({ b: 2 });
    await capture(pid, one('u', 'e', { $set: { d: 4, b: 5 }, $unset: ['d'] }));
    expect((await persons(pid))[0].properties).toEqual({ b: 5 });
  });

  it("'distinct team leakage': the same distinct id in two projects is two persons, merges stay in their project", async () => {
    const p1 = await project();
    const p2 = await project();
    await capture(p1, one('2', 'e', { $set: { project: 1 } }));
    await capture(p2, one('2', 'e', { $set: { project: 2 } }));
    await capture(p2, one('1', '$identify', { $anon_distinct_id: '2' }));
    expect(await persons(p1)).toEqual([expect.objectContaining({ properties: { project: 1 }, distinct_ids: ['2'], is_identified: false })]);
    expect(await persons(p2)).toEqual([expect.objectContaining({ properties: { project: 2 }, distinct_ids: ['1', '2'], is_identified: true })]);
    const [[person1]] = await hogql(p1, 'select person_id from events');
    expect(await hogql(p2, `select count() from events where person_id = '${person1}'`)).toEqual([[0]]);
  });
});

describe('illegal distinct ids (person-merge-service.ts isDistinctIdIllegal)', () => {
  it("process-event.test.ts 'identify with illegal (generic) id': every merge with a generic id is refused, 'Nan' merges", async () => {
    const pid = await project();
    await capture(pid, one('im an anonymous id', 'e'));
    const count = async () => (await hogql(pid, 'select count() from persons'))[0][0];
    const identifyFrom = async (distinctId: string) => {
      await capture(pid, one(distinctId, 'e'));
      await capture(pid, one(distinctId, '$identify', { $anon_distinct_id: 'im an anonymous id' }));
    };
    const expected: [string, number][] = [['distinctId', 2], ['  ', 3], ['NaN', 4], ['undefined', 5], ['None', 6], ['0', 7], ['Nan', 7]];
    for (const [id, n] of expected) {
      await identifyFrom(id);
      expect([id, await count()]).toEqual([id, n]);
    }
    // The whitespace-only id is an id of its own: it has its person and its events.
    expect(await hogql(pid, "select count() from events where distinct_id = '  '")).toEqual([[2]]);
  });

  it.each([
    ['"guest"', true],
    ["'NaN'", true],
    ['"NOT_AUTHENTICATED"', true],
    ["'None'", true],
    ['"nan"', false],
    [' anonymous', false],
    ['anonymous ', false],
    ['"0 "', false],
    ["' '", false],
    ['\t\n', true],
  ])('%j illegal: %s (quoted forms of the list; the id is looked up as it is, untrimmed)', (illegal, refused) => {
    const id = new ProjectIdentity(1);
    id.processEvent({ event: 'e', distinct_id: illegal, properties: {}, timestamp: NOW });
    id.processEvent({ event: '$identify', distinct_id: 'user', properties: { $anon_distinct_id: illegal }, timestamp: NOW });
    expect(id.personFor(illegal) === id.personFor('user')).toBe(!refused);
    expect(id.drain().warnings.map((w) => w.type)).toEqual(refused ? ['cannot_merge_with_illegal_distinct_id'] : []);
  });

  it('the warning names the id merged into when both are illegal, as PostHog checks it first', () => {
    const id = new ProjectIdentity(1);
    id.processEvent({ event: '$identify', distinct_id: 'null', properties: { $anon_distinct_id: 'anonymous' }, timestamp: NOW });
    id.processEvent({ event: '$create_alias', distinct_id: 'user', properties: { alias: 'guest' }, timestamp: NOW });
    expect(id.drain().warnings.map((w) => w.details)).toEqual([
      { illegalDistinctId: 'null', otherDistinctId: 'anonymous', eventUuid: undefined },
      { illegalDistinctId: 'guest', otherDistinctId: 'user', eventUuid: undefined },
    ]);
  });

  it('$anon_distinct_id: null is present, reads "null" and is refused (handleIdentifyOrAlias: `$anon_distinct_id` in properties)', () => {
    const id = new ProjectIdentity(1);
    id.processEvent({ event: '$identify', distinct_id: 'user', properties: { $anon_distinct_id: null }, timestamp: NOW });
    expect(id.drain().warnings).toEqual([
      { type: 'cannot_merge_with_illegal_distinct_id', details: { illegalDistinctId: 'null', otherDistinctId: 'user', eventUuid: undefined } },
    ]);
    expect(id.personFor('user')!.is_identified).toBe(false);
  });
});

describe('capture: event fields (process-event.test.ts, test_capture.py, rust capture)', () => {
  it("'ip capture': each event gets the client's address as $ip, for persons and personless events alike", async () => {
    const pid = await project();
    await capture(pid, batch({ event: 'a', distinct_id: 'u' }, { event: 'b', distinct_id: 'u', properties: { $process_person_profile: false } }), { ip: '127.0.0.1' });
    expect(await hogql(pid, 'select event, properties.$ip from events order by event')).toEqual([
      ['a', '127.0.0.1'],
      ['b', '127.0.0.1'],
    ]);
  });

  it("'ip override': an event's own $ip wins; an empty one is replaced (normalizeEvent: `!properties['$ip']`)", async () => {
    const pid = await project();
    await capture(pid, batch({ event: 'own', distinct_id: 'u', properties: { $ip: '1.0.0.1' } }, { event: 'empty', distinct_id: 'u', properties: { $ip: '' } }), { ip: '10.0.0.7' });
    expect(await hogql(pid, 'select event, properties.$ip from events order by event')).toEqual([
      ['empty', '10.0.0.7'],
      ['own', '1.0.0.1'],
    ]);
  });

  it('without a client address (imports, the SDK-less paths) no $ip is added', async () => {
    const pid = await project();
    await capture(pid, one('u', 'e', { x: 1 }));
    const [[props]] = await hogql(pid, 'select properties from events');
    expect(JSON.parse(props as string)).toEqual({ x: 1 });
  });

  it("test_capture.py 'test_engage': on /engage an event without a name is a $identify, with its top-level $set", async () => {
    const pid = await project();
    const accepted = await capture(
      pid,
      { $set: { $os: 'Mac OS X' }, $token: TOKEN, $distinct_id: 3, $device_id: '16fd4afae9b2d8-0fce8fe900d42b', $user_id: 3 },
      { engage: true },
    );
    expect(accepted).toEqual(['$identify']);
    expect(await hogql(pid, 'select event, distinct_id from events')).toEqual([['$identify', '3']]);
    // (`$initial_*` come from event properties, not from a `$set`.)
    expect(await persons(pid)).toEqual([expect.objectContaining({ properties: { $os: 'Mac OS X' }, distinct_ids: ['3'] })]);
    // A named event keeps its name there; elsewhere a missing name stays a 400.
    expect(await capture(pid, { api_key: TOKEN, event: 'named', distinct_id: 3 }, { engage: true })).toEqual(['named']);
    expect(() => parseCaptureRequest({ method: 'POST', query: {}, body: Buffer.from(JSON.stringify({ $token: TOKEN, $distinct_id: 3 })), maxBytes: BATCH_ROUTE_MAX_BYTES })).toThrow(
      /without a name/,
    );
  });

  it('$$heatmap, $$client_ingestion_warning and recording payloads are accepted and not stored as events; $heatmap_data leaves the stored properties', async () => {
    const pid = await project();
    const accepted = await capture(
      pid,
      batch(
        { event: '$$heatmap', distinct_id: 'u', properties: { $heatmap_data: { 'https://a.com': [{ x: 1, y: 2, target_fixed: false, type: 'click' }] } } },
        { event: '$$client_ingestion_warning', distinct_id: 'u', properties: { $$client_ingestion_warning_message: 'too big' } },
        { event: '$snapshot', distinct_id: 'u', properties: { $session_id: 's', $snapshot_data: { type: 2, data: {} } } },
        { event: '$snapshot_items', distinct_id: 'u', properties: { $session_id: 's', $snapshot_items: [] } },
        { event: '$performance_event', distinct_id: 'u', properties: { $session_id: 's', '0': 'resource' } },
        { event: '$pageleave', distinct_id: 'u', properties: { $heatmap_data: { 'https://a.com': [] }, kept: 1 } },
        { event: '$pageview', distinct_id: 'u', properties: { kept: 2 } },
        { event: '$$custom', distinct_id: 'u', properties: { kept: 3 } },
      ),
    );
    expect(accepted).toEqual(['$pageleave', '$pageview', '$$custom']);
    const rows = await hogql(pid, 'select event, properties from events order by properties.kept');
    expect(rows.map(([e, p]) => [e, JSON.parse(p as string)])).toEqual([
      ['$pageleave', { kept: 1 }],
      ['$pageview', { kept: 2 }],
      ['$$custom', { kept: 3 }],
    ]);
  });

  it('a whitespace-only distinct id is an id (rust capture rejects only an empty one)', async () => {
    const pid = await project();
    await capture(pid, batch({ event: 'e', distinct_id: ' ' }, { event: 'e', distinct_id: '\t' }));
    expect(await idsOf(pid)).toEqual([['\t'], [' ']]);
  });
});
