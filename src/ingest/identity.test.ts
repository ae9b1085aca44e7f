import { ProjectIdentity, applyPropertyUpdates, type IdentityEvent } from './identity';

const T0 = Date.parse('2024-01-01T00:00:00Z');
let tick = 0;
function ev(event: string, distinct_id: string, properties: Record<string, unknown> = {}, timestamp = T0 + tick++ * 1000): IdentityEvent {
  return { event, distinct_id, properties, timestamp };
}

function fresh(): ProjectIdentity {
  tick = 0;
  return new ProjectIdentity(1);
}

describe('person properties', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>]>([
    ['$set overwrites', { a: 1 }, { $set: { a: 2 } }, { a: 2 }],
    ['$set_once keeps existing', { a: 1 }, { $set_once: { a: 2, b: 3 } }, { a: 1, b: 3 }],
    ['$set wins over $set_once in one event', {}, { $set_once: { a: 1 }, $set: { a: 2 } }, { a: 2 }],
    ['$unset list', { a: 1, b: 2 }, { $unset: ['a'] }, { b: 2 }],
    ['$unset object form', { a: 1, b: 2 }, { $unset: { b: null } }, { a: 1 }],
  ])('%s', (_n, start, props, expected) => {
    const target = { ...start };
    applyPropertyUpdates(target, props);
    expect(target).toEqual(expected);
  });
});

describe('$set reports a change only when a value differs as JSON (the person row is rewritten then)', () => {
  it.each<[string, unknown, unknown, boolean]>([
    ['same string', 'a', 'a', false],
    ['other string', 'a', 'b', true],
    ['number vs string', 1, '1', true],
    ['same number', 2.5, 2.5, false],
    ['0 and -0 (same JSON)', 0, -0, false],
    ['null vs null', null, null, false],
    ['null vs object', null, {}, true],
    ['same object, other key order', { x: 1, y: 2 }, { y: 2, x: 1 }, true],
    ['equal nested object', { x: [1, { y: 'z' }] }, { x: [1, { y: 'z' }] }, false],
    ['string vs its JSON text', '[1]', [1], true],
    ['boolean', true, false, true],
  ])('%s', (_n, before, after, changed) => {
    const target: Record<string, unknown> = { k: before };
    expect(applyPropertyUpdates(target, { $set: { k: after } })).toBe(changed);
    expect(JSON.stringify(target.k)).toBe(JSON.stringify(after));
  });
});

describe('identity', () => {
  it('creates a person on first event with created_at = event timestamp', () => {
    const id = fresh();
    const pid = id.processEvent(ev('pageview', 'u1', { $set: { plan: 'free' } }, T0 + 5));
    const p = id.persons.get(pid!)!;
    expect(p.created_at).toBe(T0 + 5);
    expect(p.properties).toEqual({ plan: 'free' });
    expect(p.is_identified).toBe(false);
    expect(id.processEvent(ev('x', 'u1'))).toBe(pid);
  });

  it('personless events get no person and create none', () => {
    const id = fresh();
    expect(id.processEvent(ev('x', 'u1', { $process_person_profile: false }))).toBeNull();
    expect(id.persons.size).toBe(0);
  });

  it("a personless event of a known distinct id gets that person, and changes nothing (PostHog's read-only person)", () => {
    const id = fresh();
    const pid = id.processEvent(ev('x', 'u1', { $set: { plan: 'free' } }));
    const personless = { $process_person_profile: false };
    expect(id.processEvent(ev('x', 'u1', { ...personless, $set: { plan: 'pro' } }))).toBe(pid);
    expect(id.processEvent(ev('$identify', 'u2', { ...personless, $anon_distinct_id: 'u1' }))).toBeNull();
    expect(id.persons.size).toBe(1);
    expect(id.persons.get(pid!)!.properties).toEqual({ plan: 'free' });
    expect(id.personFor('u2')).toBeUndefined();
  });

  it('$identify with an anonymous id of a new person attaches the identified id', () => {
    const id = fresh();
    const anon = id.processEvent(ev('pageview', 'anon-1'));
    const pid = id.processEvent(ev('$identify', 'user@x', { $anon_distinct_id: 'anon-1', $set: { email: 'user@x' } }));
    expect(pid).toBe(anon);
    const p = id.persons.get(pid!)!;
    expect([...p.distinctIds].sort()).toEqual(['anon-1', 'user@x']);
    expect(p.is_identified).toBe(true);
    expect(p.properties.email).toBe('user@x');
  });

  it('only B has a person: A is attached to B', () => {
    const id = fresh();
    const b = id.processEvent(ev('pageview', 'B'));
    expect(id.processEvent(ev('$create_alias', 'B', { alias: 'A' }))).toBe(b);
    expect(id.personFor('A')!.id).toBe(b);
  });

  it('neither has a person: one new person with both ids and the $set', () => {
    const id = fresh();
    const pid = id.processEvent(ev('$identify', 'B', { $anon_distinct_id: 'A', $set: { x: 1 }, $set_once: { y: 2 } }));
    const p = id.persons.get(pid!)!;
    expect([...p.distinctIds].sort()).toEqual(['A', 'B']);
    expect(p.properties).toEqual({ x: 1, y: 2 });
    expect(p.is_identified).toBe(true);
  });

  it('both have persons: merged into B with the §6.5 rules and an override', () => {
    const id = fresh();
    const a = id.processEvent(ev('e', 'A', { $set: { shared: 'a', onlyA: 1, once: 'a' } }, T0))!;
    id.processEvent(ev('e', 'A2', {}, T0 + 1));
    // A2 joins A's person
    id.processEvent(ev('$create_alias', 'A', { alias: 'A2' }, T0 + 2));
    // A is not identified ($create_alias marks identified) → reset for the test
    id.persons.get(a)!.is_identified = false;
    const b = id.processEvent(ev('e', 'B', { $set: { shared: 'b', onlyB: 2 } }, T0 + 100))!;
    const older = id.persons.get(a)!;
    older.version = 7;
    id.persons.get(b)!.version = 3;
    id.drain();
    const merged = id.processEvent(ev('$identify', 'B', { $anon_distinct_id: 'A', $set: { fromEvent: true }, $set_once: { once: 'event', newOnce: 1 } }, T0 + 200));
    expect(merged).toBe(b);
    const p = id.persons.get(b)!;
    expect(p.properties).toEqual({ shared: 'b', onlyA: 1, once: 'a', onlyB: 2, fromEvent: true, newOnce: 1 });
    expect(p.created_at).toBe(T0);
    expect(p.is_identified).toBe(true);
    expect(p.version).toBe(8);
    expect([...p.distinctIds].sort()).toEqual(['A', 'A2', 'B']);
    expect(id.persons.has(a)).toBe(false);
    expect(id.resolvePersonId(a)).toBe(b);
    const d = id.drain();
    expect(d.deletedPersons).toEqual([{ project_id: 1, id: a }]);
    // A's override and the one of A2's earlier person (which pointed at A) now both point at B.
    expect(d.overrides).toHaveLength(2);
    expect(d.overrides).toContainEqual({ project_id: 1, old_person_id: a, override_person_id: b, version: 8 });
    expect(d.overrides.every((o) => o.override_person_id === b)).toBe(true);
    expect(d.distinctIds.map((x) => [x.distinct_id, x.person_id]).sort()).toEqual(
      [['A', b], ['A2', b]].sort(),
    );
  });

  it('re-points overrides whose target was merged away', () => {
    const id = fresh();
    const x = id.processEvent(ev('e', 'X'))!;
    const a = id.processEvent(ev('e', 'A'))!;
    const b = id.processEvent(ev('e', 'B'))!;
    id.processEvent(ev('$create_alias', 'A', { alias: 'X' })); // X → A
    expect(id.resolvePersonId(x)).toBe(a);
    id.persons.get(a)!.is_identified = false;
    id.processEvent(ev('$create_alias', 'B', { alias: 'A' })); // A → B
    expect(id.resolvePersonId(x)).toBe(b);
    expect(id.resolvePersonId(a)).toBe(b);
    const overrides = id.drain().overrides.map((o) => [o.old_person_id, o.override_person_id]).sort();
    expect(overrides).toEqual([[a, b], [x, b]].sort());
  });

  it.each([
    ['$identify', { $anon_distinct_id: 'A' }, false],
    ['$create_alias', { alias: 'A' }, false],
    ['$merge_dangerously', { alias: 'A' }, true],
  ])('%s onto an already identified A (%j): merges=%s', (event, props, merges) => {
    const id = fresh();
    const a = id.processEvent(ev('$identify', 'A', { $anon_distinct_id: 'anon-a' }))!;
    expect(id.persons.get(a)!.is_identified).toBe(true);
    const b = id.processEvent(ev('e', 'B'))!;
    const got = id.processEvent(ev(event, 'B', props));
    expect(got).toBe(b);
    expect(id.persons.has(a)).toBe(!merges);
    expect(id.personFor('A')!.id).toBe(merges ? b : a);
    const w = id.drain().warnings;
    expect(w.map((x) => x.type)).toEqual(merges ? [] : ['cannot_merge_already_identified']);
  });

  it.each(['anonymous', 'null', '"undefined"', 'NaN', '0', ' '])('refuses merges with illegal id %j', (illegal) => {
    const id = fresh();
    const a = id.processEvent(ev('e', illegal))!;
    const b = id.processEvent(ev('$identify', 'B', { $anon_distinct_id: illegal }))!;
    expect(b).not.toBe(a);
    expect(id.personFor(illegal)!.id).toBe(a);
    expect(id.drain().warnings[0].type).toBe('cannot_merge_with_illegal_distinct_id');
  });

  it('A == B is a plain event', () => {
    const id = fresh();
    const a = id.processEvent(ev('e', 'A'))!;
    expect(id.processEvent(ev('$identify', 'A', { $anon_distinct_id: 'A' }))).toBe(a);
    expect(id.persons.size).toBe(1);
  });

  it('imports a person with its created_at and distinct ids, and refuses stolen ids', () => {
    const id = fresh();
    const r = id.importPerson({ distinct_ids: ['a', 'b'], properties: { p: 1 }, created_at: T0 - 1000, is_identified: true });
    expect('id' in r).toBe(true);
    const pid = (r as { id: string }).id;
    expect(id.persons.get(pid)).toMatchObject({ created_at: T0 - 1000, properties: { p: 1 }, is_identified: true });
    expect(id.processEvent(ev('e', 'b'))).toBe(pid);
    const r2 = id.importPerson({ distinct_ids: ['c', 'a'], properties: {}, created_at: T0, is_identified: false });
    expect(r2).toEqual({ error: expect.stringMatching(/already belongs/) });
    expect(id.personFor('c')).toBeUndefined();
  });

  it('load() restores state from rows', () => {
    const id = new ProjectIdentity(1);
    id.load({
      persons: [{ id: 'p1', created_at: T0, properties: { a: 1 }, is_identified: false, version: 2 }],
      distinctIds: [{ distinct_id: 'd1', person_id: 'p1', version: 0 }],
      overrides: [{ old_person_id: 'p0', override_person_id: 'p1', version: 1 }],
    });
    expect(id.processEvent(ev('e', 'd1'))).toBe('p1');
    expect(id.resolvePersonId('p0')).toBe('p1');
  });
});

describe('splitPerson (PostHog Person.split_person)', () => {
  const newId = (d: string) => `new-${d}`;

  it('keeps main_distinct_id and the properties; the other ids get persons of their own, one version up, written in the drain', () => {
    const id = fresh();
    const pid = (id.importPerson({ distinct_ids: ['1', '2', '3'], properties: { $os: 'Mac' }, created_at: T0, is_identified: true }) as { id: string }).id;
    id.drain();
    expect(id.splitPerson(pid, '2', newId, T0 + 5)).toEqual(['1', '2', '3']);
    expect(id.persons.get(pid)).toMatchObject({ properties: { $os: 'Mac' }, is_identified: true, distinctIds: new Set(['2']) });
    expect(id.persons.get('new-1')).toMatchObject({ properties: {}, is_identified: false, created_at: T0 + 5, version: 1, distinctIds: new Set(['1']) });
    expect(id.personFor('3')?.id).toBe('new-3');
    const d = id.drain();
    expect(d.newPersons.map((p) => p.id).sort()).toEqual(['new-1', 'new-3']);
    expect(d.distinctIds.map((r) => [r.distinct_id, r.person_id, r.version])).toEqual([
      ['1', 'new-1', 1],
      ['3', 'new-3', 1],
    ]);
    expect(d.overrides).toEqual([]);
    // later events of a moved id go to its new person
    expect(id.processEvent(ev('e', '3'))).toBe('new-3');
  });

  it('without a main id: the first distinct id stays and the properties go; an unknown person is null', () => {
    const id = fresh();
    const pid = id.processEvent(ev('e', 'a', { $set: { x: 1 } }))!;
    id.processEvent(ev('$identify', 'b', { $anon_distinct_id: 'a' }));
    expect(id.splitPerson(pid, null, newId, T0)).toEqual(['a', 'b']);
    expect(id.persons.get(pid)).toMatchObject({ properties: {}, distinctIds: new Set(['a']) });
    expect(id.personFor('b')?.id).toBe('new-b');
    expect(id.splitPerson('nobody', null, newId, T0)).toBeNull();
  });
});
