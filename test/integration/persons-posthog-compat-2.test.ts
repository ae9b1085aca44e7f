/**
 * PostHog's persons API and persons tables, second batch (posthog/api/test/test_person.py, and the persons tables of
 * posthog/hogql/database/schema/persons.py / person_distinct_ids.py): deletes with and without events and what a
 * deleted person's distinct ids do next, the default display-name rule, and how an identity merge shows through the
 * REST API and ProductQL's `persons`, `persons.pdi` and `person_distinct_ids`. Real server, data from the real ingest
 * path; persons-posthog-compat-2.clickhouse.test.ts runs this file on ClickHouse.
 */
import { quarryOnTestEngine } from '../helpers/clickhouse-quarry';
import { newKey, type TestServer } from '../helpers/server';
import type { PersonView as Person } from '../../src/projects/person-reader';
import { uuidFromDistinctId } from '../../src/ingest/person-uuid';

const server = quarryOnTestEngine('quarry_persons_compat_2');

let s: TestServer;
let p: number;
let other: number;
/** A key of `p` only: `p` is its current project, which PostHog's legacy `/api/person/` routes serve. */
let legacyKey: string;
const legacy = (method: string, path: string, body?: unknown) => s.api(method, `/api/person/${path}`, body, legacyKey);
const base = () => `/api/projects/${p}/persons/`;
const nf = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };

async function personOf(distinctId: string, project = p): Promise<Person | undefined> {
  const r = await s.api('GET', `/api/projects/${project}/persons/?distinct_id=${encodeURIComponent(distinctId)}`);
  expect(r.status).toBe(200);
  return r.body.results[0];
}

async function sql(query: string, values: Record<string, unknown> = {}): Promise<unknown[][]> {
  const variables = Object.fromEntries(Object.entries(values).map(([k, value]) => [k, { variableId: k, code_name: k, value }]));
  const r = await s.api('POST', `/api/projects/${p}/query/`, { query: { kind: 'HogQLQuery', query, variables }, refresh: 'force_blocking' });
  expect([r.status, r.body.detail]).toEqual([200, undefined]);
  return r.body.results;
}

async function ingest(project: number, body: { persons?: unknown[]; events?: unknown[] }): Promise<void> {
  await s.server.services.ingestor.import(project, { persons: body.persons ?? [], events: body.events ?? [] });
  await s.server.services.ingestor.flush();
}

async function eventsNamed(event: string): Promise<string[]> {
  const r = await s.api('GET', `/api/projects/${p}/events/?event=${encodeURIComponent(event)}&orderBy=${encodeURIComponent('["timestamp"]')}`);
  expect(r.status).toBe(200);
  return r.body.results.map((e: { distinct_id: string }) => e.distinct_id);
}

beforeAll(async () => {
  s = server();
  p = (await s.api('POST', '/api/projects/', { name: 'persons compat 2' })).body.id;
  other = (await s.api('POST', '/api/projects/', { name: 'persons compat 2 other' })).body.id;
  legacyKey = await newKey(s, ['person:read', 'person:write'], { scoped_teams: [p] });
  await ingest(p, {
    persons: [
      // test_person_display_name_defaults
      { distinct_ids: ['distinct_id1'], properties: { name: 'someone', email: 'someone@gmail.com' }, created_at: '2024-02-01T00:00:00Z' },
      { distinct_ids: ['distinct_id2'], properties: { name: 'another_one' }, created_at: '2024-02-02T00:00:00Z' },
      { distinct_ids: ['distinct_id3'], properties: {}, created_at: '2024-02-03T00:00:00Z' },
      { distinct_ids: ['display_4'], properties: { UserName: 'u4', username: 'user4', Name: 'Name Four' }, created_at: '2024-02-04T00:00:00Z' },
      // get_person_name_helper skips a display property unless it is truthy in Python: [] and {} are not
      { distinct_ids: ['display_5'], properties: { email: [], Email: {}, name: '', Name: 0, username: 'user5' }, created_at: '2024-02-04T00:00:01Z' },
      // test_delete_person / test_delete_person_and_events: a person with two distinct ids, events on both and on another person
      { distinct_ids: ['person_1', 'anonymous_id'], properties: { $os: 'Chrome' }, created_at: '2024-02-05T00:00:00Z' },
      { distinct_ids: ['person_2', 'anonymous_id_2'], properties: { $os: 'Chrome' }, created_at: '2024-02-06T00:00:00Z' },
    ],
    events: [
      { event: 'test', distinct_id: 'person_1', timestamp: '2024-02-10T00:00:00Z' },
      { event: 'test', distinct_id: 'anonymous_id', timestamp: '2024-02-10T00:01:00Z' },
      { event: 'test', distinct_id: 'someone_else', timestamp: '2024-02-10T00:02:00Z' },
      { event: 'test 2', distinct_id: 'person_2', timestamp: '2024-02-10T00:00:00Z' },
      { event: 'test 2', distinct_id: 'anonymous_id_2', timestamp: '2024-02-10T00:01:00Z' },
      { event: 'test 2', distinct_id: 'someone_else_2', timestamp: '2024-02-10T00:02:00Z' },
      // two persons of their own, merged below: anon_m seen first, with properties user_m does not have
      { event: '$pageview', distinct_id: 'anon_m', timestamp: '2024-03-01T00:00:00Z', properties: { $set: { merge_plan: 'free', anon_only: 1 } } },
      { event: '$pageview', distinct_id: 'user_m', timestamp: '2024-03-02T00:00:00Z', properties: { $set: { merge_plan: 'pro' } } },
    ],
  });
  // another project with the same distinct ids: nothing of it is touched or shown
  await ingest(other, { persons: [{ distinct_ids: ['person_1', 'anon_m'], properties: { $os: 'Linux' } }] });
});

describe('display name (test_person.py)', () => {
  it('test_person_display_name_defaults: email before name, name, else the distinct id', async () => {
    expect((await personOf('distinct_id1'))?.name).toBe('someone@gmail.com');
    expect((await personOf('distinct_id2'))?.name).toBe('another_one');
    expect((await personOf('distinct_id3'))?.name).toBe('distinct_id3');
  });

  it('PERSON_DEFAULT_DISPLAY_NAME_PROPERTIES order: Name before username and UserName', async () => {
    expect((await personOf('display_4'))?.name).toBe('Name Four');
  });

  it('a display property that is empty in Python’s sense ([], {}, "", 0) is skipped', async () => {
    expect((await personOf('display_5'))?.name).toBe('user5');
  });
});

describe('list filters (test_person.py, PersonQuery)', () => {
  it('an empty distinct_id or email filters nothing (PersonQuery adds the clause only for a value)', async () => {
    const all = (await s.api('GET', `${base()}?include_total=1`)).body.count as number;
    expect(all).toBeGreaterThan(1);
    for (const qs of ['distinct_id=', 'email=', 'distinct_id=&email=&search=']) {
      expect((await s.api('GET', `${base()}?${qs}&include_total=1`)).body.count).toBe(all);
    }
  });
});

describe('delete (test_person.py)', () => {
  it('test_delete_person: 202 with an empty body, the person is gone, a second delete is a 404, the events stay', async () => {
    const person = (await personOf('person_1'))!;
    expect(person.distinct_ids).toEqual(['person_1', 'anonymous_id']);
    const r = await s.api('DELETE', `${base()}${person.uuid}/`);
    expect([r.status, r.text]).toEqual([202, '']);
    expect((await s.api('GET', `${base()}${person.uuid}/`)).body).toEqual(nf);
    expect(await personOf('person_1')).toBeUndefined();
    expect(await personOf('anonymous_id')).toBeUndefined();
    const again = await s.api('DELETE', `${base()}${person.uuid}/`);
    expect([again.status, again.body]).toEqual([404, nf]);
    // without delete_events every event stays, the deleted person's and the other person's
    expect(await eventsNamed('test')).toEqual(['person_1', 'anonymous_id', 'someone_else']);
    // ProductQL: the person and its distinct ids are gone from persons and person_distinct_ids
    expect(await sql('SELECT count() FROM persons WHERE toString(id) = {variables.pid}', { pid: person.uuid })).toEqual([[0]]);
    expect(await sql("SELECT count() FROM person_distinct_ids WHERE distinct_id IN ('person_1', 'anonymous_id')")).toEqual([[0]]);
    // another project's person with the same distinct id is untouched
    expect((await personOf('person_1', other))?.properties).toEqual({ $os: 'Linux' });
  });

  it('a deleted person’s distinct id, seen again, makes a new person without the old properties', async () => {
    await ingest(p, { events: [{ event: 'test again', distinct_id: 'person_1', timestamp: '2024-02-11T00:00:00Z' }] });
    const reborn = (await personOf('person_1'))!;
    expect(reborn).toMatchObject({ distinct_ids: ['person_1'], properties: {}, is_identified: false, name: 'person_1' });
    expect(await personOf('anonymous_id')).toBeUndefined();
    expect(await sql("SELECT toString(person_id) FROM events WHERE event = 'test again'")).toEqual([[reborn.uuid]]);
  });

  it('test_delete_person_and_events: delete_events=true takes the events of every distinct id of the person, no other', async () => {
    const person = (await personOf('anonymous_id_2'))!;
    expect(await eventsNamed('test 2')).toEqual(['person_2', 'anonymous_id_2', 'someone_else_2']);
    // the UUID in any letter case, as Django's UUID lookup takes it
    const r = await s.api('DELETE', `${base()}${person.uuid.toUpperCase()}/?delete_events=true`);
    expect([r.status, r.text]).toEqual([202, '']);
    expect(await personOf('person_2')).toBeUndefined();
    expect(await eventsNamed('test 2')).toEqual(['someone_else_2']);
  });

  it('the deleted persons’ properties leave persons/values and persons/properties; another project’s never show', async () => {
    expect((await s.api('GET', `${base()}values/?key=%24os`)).body).toEqual([]);
    const names = ((await s.api('GET', `${base()}properties/`)).body as { name: string }[]).map((n) => n.name);
    expect(names).not.toContain('$os');
    expect((await s.api('GET', `/api/projects/${other}/persons/values/?key=%24os`)).body).toEqual([{ name: 'Linux', count: 1 }]);
  });

  it('another project’s person is a 404 and stays', async () => {
    const theirs = (await personOf('anon_m', other))!;
    expect((await s.api('DELETE', `${base()}${theirs.uuid}/`)).body).toEqual(nf);
    expect((await s.api('GET', `/api/projects/${other}/persons/${theirs.uuid}/`)).status).toBe(200);
  });
});

describe('identity merges through the persons API and tables ($create_alias, reference §6.5)', () => {
  let anon: Person;
  let user: Person;
  let merged: Person;
  beforeAll(async () => {
    anon = (await personOf('anon_m'))!;
    user = (await personOf('user_m'))!;
    await ingest(p, { events: [{ event: '$create_alias', distinct_id: 'user_m', timestamp: '2024-03-03T00:00:00Z', properties: { alias: 'anon_m' } }] });
    merged = (await personOf('user_m'))!;
  });

  it('the two persons are one: B’s person survives, both distinct ids in the order first seen, B wins conflicts', async () => {
    expect(anon.uuid).not.toBe(user.uuid);
    // a person made by an event is created at the event's time
    expect([anon.created_at, user.created_at]).toEqual(['2024-03-01T00:00:00Z', '2024-03-02T00:00:00Z']);
    expect(merged.uuid).toBe(user.uuid);
    expect((await personOf('anon_m'))?.uuid).toBe(user.uuid);
    expect(merged.distinct_ids).toEqual(['anon_m', 'user_m']);
    expect(merged.properties).toEqual({ merge_plan: 'pro', anon_only: 1 });
    expect(merged.is_identified).toBe(true);
    // created_at becomes the earlier of the two
    expect(merged.created_at).toBe(anon.created_at);
  });

  it('the merged-away person is a 404 for retrieve, update, delete_property and delete', async () => {
    expect((await s.api('GET', `${base()}${anon.uuid}/`)).body).toEqual(nf);
    expect((await s.api('PATCH', `${base()}${anon.uuid}/`, { properties: { x: 1 } })).status).toBe(404);
    expect((await s.api('POST', `${base()}${anon.uuid}/delete_property/`, { $unset: 'anon_only' })).status).toBe(404);
    expect((await s.api('DELETE', `${base()}${anon.uuid}/`)).status).toBe(404);
  });

  it('person_distinct_ids maps both ids to the survivor; persons.pdi reads one row per distinct id', async () => {
    expect(await sql("SELECT distinct_id, toString(person_id) FROM person_distinct_ids WHERE distinct_id IN ('anon_m', 'user_m') ORDER BY distinct_id")).toEqual([
      ['anon_m', user.uuid],
      ['user_m', user.uuid],
    ]);
    expect(await sql('SELECT pdi.distinct_id FROM persons WHERE toString(id) = {variables.pid} ORDER BY pdi.distinct_id', { pid: user.uuid })).toEqual([
      ['anon_m'],
      ['user_m'],
    ]);
    expect(await sql('SELECT count() FROM persons WHERE toString(id) IN {variables.ids}', { ids: [anon.uuid, user.uuid] })).toEqual([[1]]);
    // is_identified is PostHog's Int8 column; a property read from the JSON is its text (no property definitions)
    expect(await sql('SELECT is_identified, properties.merge_plan, properties.anon_only FROM persons WHERE toString(id) = {variables.pid}', { pid: user.uuid })).toEqual([
      [1, 'pro', '1'],
    ]);
    expect(await sql("SELECT distinct_id, person.properties.merge_plan FROM person_distinct_ids WHERE distinct_id IN ('anon_m', 'user_m') ORDER BY distinct_id")).toEqual([
      ['anon_m', 'pro'],
      ['user_m', 'pro'],
    ]);
  });

  it('events.person_id of both distinct ids is the survivor, the earlier events included', async () => {
    expect(await sql("SELECT distinct_id, toString(person_id) FROM events WHERE distinct_id IN ('anon_m', 'user_m') AND event = '$pageview' ORDER BY timestamp")).toEqual([
      ['anon_m', user.uuid],
      ['user_m', user.uuid],
    ]);
  });

  it('test_person_property_values / test_person_property_names: the merged person counts once', async () => {
    expect((await s.api('GET', `${base()}values/?key=merge_plan`)).body).toEqual([{ name: 'pro', count: 1 }]);
    const names = (await s.api('GET', `${base()}properties/`)).body as { name: string; count: number }[];
    expect(names.filter((n) => ['merge_plan', 'anon_only'].includes(n.name))).toEqual([
      { name: 'anon_only', count: 1 },
      { name: 'merge_plan', count: 1 },
    ]);
  });

  it('test_update_multiple_person_props: PATCH (no trailing slash) sets them through a $set of the first distinct id', async () => {
    const r = await s.api('PATCH', `${base()}${user.uuid}`, { properties: { foo: 'bar', bar: 'baz' } });
    expect([r.status, r.text]).toEqual([202, '']);
    await s.server.services.ingestor.flush();
    expect((await s.api('GET', `${base()}${user.uuid}`)).body.properties).toEqual({ merge_plan: 'pro', anon_only: 1, foo: 'bar', bar: 'baz' });
    const sets = await s.api('GET', `/api/projects/${p}/events/?event=%24set`);
    expect(sets.body.results.map((e: { distinct_id: string; properties: Record<string, unknown> }) => [e.distinct_id, e.properties.$set])).toEqual([
      ['anon_m', { foo: 'bar', bar: 'baz' }],
    ]);
  });

  it('search and distinct_id find the merged person once, by either id', async () => {
    for (const qs of ['distinct_id=anon_m', 'search=anon_m', 'search=user_m', `search=${user.uuid}`]) {
      const r = await s.api('GET', `${base()}?${qs}`);
      expect(r.body.results.map((x: Person) => x.uuid)).toEqual([user.uuid]);
    }
    expect((await s.api('GET', `${base()}?search=${anon.uuid}`)).body.results).toEqual([]);
  });
});

describe('persons table: latest version, deleted persons left out (hogql/database/schema/test/test_persons.py TestPersonOptimization)', () => {
  let first: Person;
  let second: Person;
  beforeAll(async () => {
    await ingest(p, {
      persons: [
        { distinct_ids: ['opt_1'], properties: { $some_prop: 'something', $another_prop: 'something1' }, created_at: '2024-01-01T12:00:00Z' },
        { distinct_ids: ['opt_2'], properties: { $some_prop: 'ifwematcholdversionsthiswillmatch', $another_prop: 'something2' }, created_at: '2024-01-01T13:00:00Z' },
        { distinct_ids: ['opt_3'], properties: { $some_prop: 'not something', $another_prop: 'something3' }, created_at: '2024-01-01T14:00:00Z' },
        { distinct_ids: ['opt_deleted'], properties: { $some_prop: 'ifwematcholdversionsthiswillmatch', $another_prop: 'something2' }, created_at: '2024-01-01T13:00:00Z' },
      ],
      events: [
        // second_person's newer version has the matching value
        { event: '$set', distinct_id: 'opt_2', timestamp: '2024-01-02T00:00:00Z', properties: { $set: { $some_prop: 'something' } } },
        ...['opt_1', 'opt_2', 'opt_3'].map((d) => ({ event: 'opt pageview', distinct_id: d, timestamp: '2024-01-03T00:00:00Z' })),
      ],
    });
    const deleted = (await personOf('opt_deleted'))!;
    expect((await s.api('DELETE', `${base()}${deleted.uuid}/`)).status).toBe(202);
    first = (await personOf('opt_1'))!;
    second = (await personOf('opt_2'))!;
  });

  it('test_simple_filter: a property filter on persons sees the latest properties only, never a deleted person', async () => {
    const rows = await sql("select toString(id), properties.$another_prop from persons where properties.$some_prop = 'something' order by created_at");
    expect(rows).toEqual([
      [first.uuid, 'something1'],
      [second.uuid, 'something2'],
    ]);
    expect(await sql("select count() from persons where properties.$some_prop = 'ifwematcholdversionsthiswillmatch'")).toEqual([[0]]);
  });

  it('test_joins_are_left_alone_for_now: events.person.properties filter', async () => {
    const rows = await sql("select distinct_id from events where event = 'opt pageview' and person.properties.$some_prop = 'something' order by distinct_id");
    expect(rows).toEqual([['opt_1'], ['opt_2']]);
  });

  it('test_order_by_limit_transferred: ORDER BY and LIMIT over the filtered persons', async () => {
    const rows = await sql("select toString(id) from persons where properties.$some_prop = 'something' order by created_at desc limit 1");
    expect(rows).toEqual([[second.uuid]]);
  });

  it('the REST list agrees: the same property filter, newest first', async () => {
    const props = encodeURIComponent(JSON.stringify([{ key: '$some_prop', value: 'something', type: 'person' }]));
    const r = await s.api('GET', `${base()}?properties=${props}`);
    expect(r.body.results.map((x: Person) => x.distinct_ids)).toEqual([['opt_2'], ['opt_1']]);
  });
});

describe('an identified person is merged only dangerously (reference §6.5), as the persons API shows it', () => {
  let a: Person;
  let b: Person;
  beforeAll(async () => {
    await ingest(p, {
      persons: [
        { distinct_ids: ['ident_a'], properties: { side: 'a', a_only: true }, is_identified: true, created_at: '2024-04-01T00:00:00Z' },
        { distinct_ids: ['ident_b'], properties: { side: 'b' }, is_identified: true, created_at: '2024-04-02T00:00:00Z' },
      ],
    });
    a = (await personOf('ident_a'))!;
    b = (await personOf('ident_b'))!;
  });

  it('$identify of an already identified anonymous person is refused: both persons stay', async () => {
    await ingest(p, { events: [{ event: '$identify', distinct_id: 'ident_b', timestamp: '2024-04-03T00:00:00Z', properties: { $anon_distinct_id: 'ident_a' } }] });
    expect((await personOf('ident_a'))?.uuid).toBe(a.uuid);
    expect((await personOf('ident_b'))?.distinct_ids).toEqual(['ident_b']);
  });

  it('$merge_dangerously merges it into the event’s person', async () => {
    await ingest(p, { events: [{ event: '$merge_dangerously', distinct_id: 'ident_b', timestamp: '2024-04-04T00:00:00Z', properties: { alias: 'ident_a' } }] });
    const merged = (await personOf('ident_a'))!;
    expect(merged).toMatchObject({ uuid: b.uuid, distinct_ids: ['ident_a', 'ident_b'], properties: { side: 'b', a_only: true }, created_at: a.created_at });
    expect((await s.api('GET', `${base()}${a.uuid}/`)).status).toBe(404);
  });
});

describe('split (test_person.py test_split_people_keep_props / _delete_props / test_split_person_clickhouse)', () => {
  const props = { $browser: 'whatever', $os: 'Mac OS X' };
  let keep: Person;
  let drop: Person;
  let middle: Person;
  beforeAll(async () => {
    await ingest(p, {
      persons: [
        { distinct_ids: ['split_k1', 'split_k2', 'split_k3'], properties: props, created_at: '2024-05-01T00:00:00Z' },
        { distinct_ids: ['split_d1', 'split_d2', 'split_d3'], properties: props, created_at: '2024-05-02T00:00:00Z' },
        { distinct_ids: ['split_m1', 'split_m2', 'split_m3'], properties: props, is_identified: true, created_at: '2024-05-03T00:00:00Z' },
      ],
      events: [{ event: 'before split', distinct_id: 'split_d2', timestamp: '2024-05-04T00:00:00Z' }],
    });
    keep = (await personOf('split_k1'))!;
    drop = (await personOf('split_d1'))!;
    middle = (await personOf('split_m2'))!;
  });

  it('with main_distinct_id: the person keeps it and its properties; every other id is a new person without properties', async () => {
    const r = await legacy('POST', `${keep.uuid}/split/`, { main_distinct_id: 'split_k1' });
    expect([r.status, r.body]).toEqual([201, { success: true }]);
    expect(await personOf('split_k1')).toMatchObject({ uuid: keep.uuid, distinct_ids: ['split_k1'], properties: props });
    for (const d of ['split_k2', 'split_k3']) {
      const own = (await personOf(d))!;
      // PostHog's get_or_create(uuid=uuidFromDistinctId(team_id, distinct_id))
      expect(own).toMatchObject({ uuid: uuidFromDistinctId(p, d), id: uuidFromDistinctId(p, d), distinct_ids: [d], properties: {}, is_identified: false, name: d });
    }
  });

  it('without main_distinct_id: the first distinct id stays, the properties go; {"success": true}', async () => {
    const r = await s.api('POST', `${base()}${drop.uuid}/split/`);
    expect([r.status, r.body]).toEqual([201, { success: true }]);
    expect(await personOf('split_d1')).toMatchObject({ uuid: drop.uuid, distinct_ids: ['split_d1'], properties: {} });
    expect((await personOf('split_d2'))?.distinct_ids).toEqual(['split_d2']);
    expect((await personOf('split_d3'))?.distinct_ids).toEqual(['split_d3']);
    expect(await sql("SELECT distinct_id, toString(person_id) FROM person_distinct_ids WHERE distinct_id LIKE 'split_d%' ORDER BY distinct_id")).toEqual([
      ['split_d1', drop.uuid],
      ['split_d2', uuidFromDistinctId(p, 'split_d2')],
      ['split_d3', uuidFromDistinctId(p, 'split_d3')],
    ]);
  });

  it('stored events keep their person id (no override for a split); later events of a moved id go to its new person', async () => {
    await ingest(p, { events: [{ event: 'after split', distinct_id: 'split_d2', timestamp: '2024-05-05T00:00:00Z' }] });
    expect(await sql("SELECT event, toString(person_id) FROM events WHERE distinct_id = 'split_d2' ORDER BY timestamp")).toEqual([
      ['before split', drop.uuid],
      ['after split', uuidFromDistinctId(p, 'split_d2')],
    ]);
  });

  it('a main_distinct_id that is not the first: the ids before and after it move, the person stays identified', async () => {
    const r = await s.api('POST', `${base()}${middle.uuid}/split/`, { main_distinct_id: 'split_m2' });
    expect(r.status).toBe(201);
    expect(await personOf('split_m2')).toMatchObject({ uuid: middle.uuid, distinct_ids: ['split_m2'], properties: props, is_identified: true });
    expect((await personOf('split_m1'))?.uuid).toBe(uuidFromDistinctId(p, 'split_m1'));
    expect((await personOf('split_m3'))?.uuid).toBe(uuidFromDistinctId(p, 'split_m3'));
  });

  it('a person of one distinct id: nothing moves', async () => {
    const r = await s.api('POST', `${base()}${keep.uuid}/split/`);
    expect(r.status).toBe(201);
    expect(await personOf('split_k1')).toMatchObject({ uuid: keep.uuid, distinct_ids: ['split_k1'], properties: {} });
  });

  it('max_splits (split_person(main_distinct_id, max_splits)): only the last that many distinct ids move', async () => {
    await ingest(p, {
      persons: [
        { distinct_ids: ['split_x1', 'split_x2', 'split_x3', 'split_x4'], properties: props, created_at: '2024-05-06T00:00:00Z' },
        { distinct_ids: ['split_y1', 'split_y2', 'split_y3'], properties: props, created_at: '2024-05-07T00:00:00Z' },
      ],
    });
    const x = (await personOf('split_x1'))!;
    const r = await s.api('POST', `${base()}${x.uuid}/split/`, { main_distinct_id: 'split_x1', max_splits: 2 });
    expect([r.status, r.body]).toEqual([201, { success: true }]);
    expect(await personOf('split_x1')).toMatchObject({ uuid: x.uuid, distinct_ids: ['split_x1', 'split_x2'], properties: props });
    for (const d of ['split_x3', 'split_x4']) expect((await personOf(d))?.uuid).toBe(uuidFromDistinctId(p, d));
    // without a main id the properties still go and the first id stays; max_splits 0 is every id (`distinct_ids[-0:]`)
    const y = (await personOf('split_y1'))!;
    expect((await s.api('POST', `${base()}${y.uuid}/split/`, { max_splits: 1 })).status).toBe(201);
    expect(await personOf('split_y1')).toMatchObject({ uuid: y.uuid, distinct_ids: ['split_y1', 'split_y2'], properties: {} });
    expect((await personOf('split_y3'))?.uuid).toBe(uuidFromDistinctId(p, 'split_y3'));
    expect((await s.api('POST', `${base()}${y.uuid}/split/`, { max_splits: 0 })).status).toBe(201);
    expect((await personOf('split_y2'))?.uuid).toBe(uuidFromDistinctId(p, 'split_y2'));
    expect((await personOf('split_y1'))?.distinct_ids).toEqual(['split_y1']);
  });

  it('404 for an unknown, a malformed or another project’s person', async () => {
    const theirs = (await personOf('anon_m', other))!;
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', theirs.uuid]) {
      const r = await s.api('POST', `${base()}${id}/split/`);
      expect([r.status, r.body]).toEqual([404, nf]);
    }
    expect((await personOf('anon_m', other))?.distinct_ids).toEqual(theirs.distinct_ids);
  });
});

describe('legacy /api/person/ (LegacyPersonViewSet: the current project) and persons.csv', () => {
  it('test_pagination_limit through /api/person/: the next link stays on the legacy path', async () => {
    const mine = (await s.api('GET', `${base()}?limit=10`)).body;
    const r = await legacy('GET', '?limit=10');
    expect(r.status).toBe(200);
    expect(r.body.results).toEqual(mine.results);
    expect(new URL(r.body.next).pathname + new URL(r.body.next).search).toBe('/api/person/?limit=10&offset=10');
    const next = await legacy('GET', '?limit=10&offset=10');
    expect(next.body.results).toEqual((await s.api('GET', `${base()}?limit=10&offset=10`)).body.results);
  });

  it('retrieve, values and 404s as under the project', async () => {
    const person = (await personOf('distinct_id1'))!;
    expect((await legacy('GET', `${person.uuid}/`)).body).toEqual(person);
    expect((await legacy('GET', person.uuid)).body).toEqual(person);
    expect((await legacy('GET', 'values/?key=name')).body).toEqual((await s.api('GET', `${base()}values/?key=name`)).body);
    const theirs = (await personOf('anon_m', other))!;
    expect((await legacy('GET', `${theirs.uuid}/`)).body).toEqual(nf);
  });

  it('test_csv_export: persons.csv has a header and a line per person; properties filter it', async () => {
    const count = (await s.api('GET', `${base()}?include_total=1&limit=1000`)).body.count as number;
    const r = await s.api('GET', `/api/projects/${p}/persons.csv?limit=1000`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(r.text.split(/\r?\n/).filter((l) => l !== '').length).toBe(count + 1);
    const props = encodeURIComponent(JSON.stringify([{ key: 'email', value: 'someone@gmail.com', type: 'person' }]));
    const one = await s.api('GET', `/api/projects/${p}/persons.csv?properties=${props}`);
    expect(one.text.split(/\r?\n/).filter((l) => l !== '').length).toBe(2);
    // DRF's content negotiation: Accept text/csv picks PersonViewSet's CSV renderer; ?format= wins over it
    const negotiated = await s.api('GET', `${base()}?properties=${props}`, undefined, undefined, { accept: 'text/csv' });
    expect([negotiated.headers.get('content-type')?.split(';')[0], negotiated.text]).toEqual(['text/csv', one.text]);
    const json = await s.api('GET', `${base()}?properties=${props}&format=json`, undefined, undefined, { accept: 'text/csv' });
    expect(json.body.results).toHaveLength(1);
  });
});

describe('team person_display_name_properties (test_person.py test_person_display_name)', () => {
  let q: number;
  beforeAll(async () => {
    q = (await s.api('POST', '/api/projects/', { name: 'persons compat 2 display names' })).body.id;
    await ingest(q, {
      persons: [
        { distinct_ids: ['distinct_id1'], properties: { custom_name: 'someone', custom_email: 'someone@custom.com', email: 'someone@gmail.com' }, created_at: '2024-06-01T00:00:00Z' },
        { distinct_ids: ['distinct_id2'], properties: { custom_email: 'another_one@custom.com', email: 'another_one@gmail.com' }, created_at: '2024-06-02T00:00:00Z' },
        { distinct_ids: ['distinct_id3'], properties: { email: 'yet_another_one@gmail.com' }, created_at: '2024-06-03T00:00:00Z' },
      ],
      events: [1, 2, 3].map((i) => ({ event: `e${i}`, distinct_id: `distinct_id${i}`, timestamp: `2024-06-0${i + 3}T00:00:00Z` })),
    });
  });
  const names = async () => ((await s.api('GET', `/api/projects/${q}/persons/`)).body.results as Person[]).map((x) => x.name);

  it('unset (null): the defaults', async () => {
    expect((await s.api('GET', `/api/projects/${q}/`)).body.person_display_name_properties).toBeNull();
    expect(await names()).toEqual(['yet_another_one@gmail.com', 'another_one@gmail.com', 'someone@gmail.com']);
  });

  it('set by PATCH: they replace the defaults, in order; a person with none of them is named by its distinct id', async () => {
    const r = await s.api('PATCH', `/api/projects/${q}/`, { person_display_name_properties: ['custom_name', 'custom_email'] });
    expect([r.status, r.body.person_display_name_properties]).toEqual([200, ['custom_name', 'custom_email']]);
    expect(await names()).toEqual(['distinct_id3', 'another_one@custom.com', 'someone']);
    const one = (await personOf('distinct_id2', q))!;
    expect((await s.api('GET', `/api/projects/${q}/persons/${one.uuid}/`)).body.name).toBe('another_one@custom.com');
  });

  it('EventsQuery and ActorsQuery person_display_name take them too (team.person_display_name_properties or the defaults)', async () => {
    const run = async (query: unknown) => {
      const r = await s.api('POST', `/api/projects/${q}/query/`, { query, refresh: 'force_blocking' });
      expect([r.status, r.body.detail]).toEqual([200, undefined]);
      return r.body.results as { display_name: string; id: string }[][];
    };
    const third = (await personOf('distinct_id3', q))!;
    const events = await run({ kind: 'EventsQuery', select: ['person_display_name -- Person', 'event'], orderBy: ['event'], after: 'all' });
    // EventsQuery falls back to the distinct id, ActorsQuery to the person id
    expect(events.map((row) => row[0].display_name)).toEqual(['someone', 'another_one@custom.com', 'distinct_id3']);
    const actors = await run({ kind: 'ActorsQuery', select: ['person_display_name -- Person', 'created_at'], orderBy: ['created_at'] });
    expect(actors.map((row) => row[0].display_name)).toEqual(['someone', 'another_one@custom.com', third.uuid]);
  });

  it('an empty list or null is the defaults again', async () => {
    for (const v of [[], null]) {
      expect((await s.api('PATCH', `/api/projects/${q}/`, { person_display_name_properties: v })).status).toBe(200);
      expect(await names()).toEqual(['yet_another_one@gmail.com', 'another_one@gmail.com', 'someone@gmail.com']);
    }
  });
});

describe('person activity (test_person.py _assert_person_activity: /persons/activity and /persons/<uuid>/activity)', () => {
  let q: number;
  let person: Person;
  let gone: Person;
  const changed = [{ type: 'Person', action: 'changed', field: 'properties', before: null, after: null }];
  const detail = (d: Record<string, unknown>) => ({ changes: null, trigger: null, type: null, name: null, short_id: null, ...d });
  const activity = async (path: string) => {
    const r = await s.api('GET', `/api/projects/${q}/persons/${path}`);
    expect(r.status).toBe(200);
    return r.body;
  };
  beforeAll(async () => {
    q = (await s.api('POST', '/api/projects/', { name: 'persons compat 2 activity' })).body.id;
    await ingest(q, {
      persons: [
        { distinct_ids: ['act_1', 'act_2', 'act_3'], properties: { $browser: 'whatever', $os: 'Mac OS X' }, created_at: '2024-07-01T00:00:00Z' },
        { distinct_ids: ['act_gone'], properties: { $os: 'Chrome' }, created_at: '2024-07-02T00:00:00Z' },
      ],
    });
    person = (await personOf('act_1', q))!;
    gone = (await personOf('act_gone', q))!;
  });

  it('test_patch_user_property_activity: the whole person PATCHed back is 202 and logs one `updated` entry', async () => {
    const body = (await s.api('GET', `/api/projects/${q}/persons/${person.uuid}/`)).body;
    body.properties.a = 'b';
    expect((await s.api('PATCH', `/api/projects/${q}/persons/${person.uuid}/`, body)).status).toBe(202);
    const page = await activity(`${person.uuid}/activity/`);
    expect(page).toEqual({ results: [expect.any(Object)], next: null, previous: null, total_count: 1 });
    const [entry] = page.results;
    expect(entry).toMatchObject({ activity: 'updated', scope: 'Person', item_id: person.uuid, user: { email: expect.any(String) } });
    expect(entry.detail).toEqual(detail({ changes: changed }));
    expect(entry.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$/);
  });

  it('test_delete_person_properties / update_property: `delete_property` and `updated`, newest first', async () => {
    expect((await s.api('POST', `/api/projects/${q}/persons/${person.uuid}/delete_property/`, { $unset: 'a' })).status).toBe(201);
    expect((await s.api('POST', `/api/projects/${q}/persons/${person.uuid}/update_property/`, { key: 'k', value: 1 })).status).toBe(202);
    const page = await activity(`${person.uuid}/activity/`);
    expect(page.results.map((a: { activity: string; detail: unknown }) => [a.activity, a.detail])).toEqual([
      ['updated', detail({ changes: changed })],
      ['delete_property', detail({ changes: changed })],
      ['updated', detail({ changes: changed })],
    ]);
  });

  it('test_split_person_clickhouse: `split_person` named by the UUID, with the distinct ids before the split', async () => {
    expect((await s.api('POST', `/api/projects/${q}/persons/${person.uuid}/split/`)).status).toBe(201);
    const [entry] = (await activity(`${person.uuid}/activity/`)).results;
    expect([entry.activity, entry.item_id]).toEqual(['split_person', person.uuid]);
    expect(entry.detail).toEqual(
      detail({
        name: person.uuid,
        changes: [{ type: 'Person', action: 'split', field: null, before: null, after: { uuid: person.uuid, distinct_ids: ['act_1', 'act_2', 'act_3'] } }],
      }),
    );
    // the new persons have no activity of their own
    expect((await activity(`${uuidFromDistinctId(q, 'act_2')}/activity/`)).results).toEqual([]);
  });

  it('test_delete_person: `deleted` named by the UUID, seen in the project’s activity; the deleted person’s own is a 404', async () => {
    expect((await s.api('DELETE', `/api/projects/${q}/persons/${gone.uuid}/`)).status).toBe(202);
    const all = await activity('activity/');
    expect(all.total_count).toBe(5);
    expect(all.results[0]).toMatchObject({ activity: 'deleted', scope: 'Person', item_id: gone.uuid, detail: detail({ name: gone.uuid }) });
    expect(all.results.map((a: { item_id: string }) => a.item_id)).toEqual([gone.uuid, ...Array(4).fill(person.uuid)]);
    expect((await s.api('GET', `/api/projects/${q}/persons/${gone.uuid}/activity/`)).status).toBe(404);
    // a failed delete logs nothing
    expect((await s.api('DELETE', `/api/projects/${q}/persons/${gone.uuid}/`)).status).toBe(404);
    expect((await activity('activity/')).total_count).toBe(5);
  });

  it('pages of `limit`, 1-based `page`; another project’s activity is its own', async () => {
    const first = await activity('activity/?limit=2');
    expect(first.results).toHaveLength(2);
    expect(first.previous).toBeNull();
    expect(new URL(first.next).searchParams.get('page')).toBe('2');
    const third = await activity('activity/?limit=2&page=3');
    expect([third.results.length, third.next]).toEqual([1, null]);
    const theirs = (await s.api('GET', `/api/projects/${other}/persons/activity/`)).body;
    expect(theirs.results.every((a: { item_id: string }) => a.item_id !== person.uuid)).toBe(true);
  });
});
