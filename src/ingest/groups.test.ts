/**
 * Groups at ingestion (groups.ts), after PostHog's plugin-server: `$groups` → `$group_N` event properties with group
 * type indexes assigned in order of first sight (five at most), `$groupidentify` → group upserts; through the
 * Ingestor for captured events (compact log records, and their replay), the row-by-row import, and engines other than
 * DuckDB.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { DuckDbEngine } from '../engines/duckdb/duckdb-engine';
import type { EventEngine, WriteBatch } from '../engines/engine';
import { normalizeEvent, type ParsedEvent } from './capture-payload';
import { ProjectGroups, groupKeyText } from './groups';
import { Ingestor, slimForApply } from './ingestor';
import { C_FLAGS, C_STRIDE, F_GROUPS, Wal, compactEvent, decodeRecord, encodeCompact, encodeEventsAhead, encodeRecord } from './wal';

const T0 = Date.parse('2024-05-01T00:00:00Z');

describe('ProjectGroups', () => {
  const event = (properties: Record<string, unknown>, name = 'e', timestamp = T0) => ({ event: name, properties, timestamp });

  it('gives $groups their $group_N properties, assigning indexes in order of first sight', () => {
    const g = new ProjectGroups(1);
    const a = event({ $groups: { company: 'acme', project: 42 } });
    expect(g.processEvent(a)).toBe('changed');
    expect(a.properties).toMatchObject({ $group_0: 'acme', $group_1: '42' });
    const b = event({ $groups: { project: 'p1', company: 'initech' } });
    g.processEvent(b);
    expect(b.properties).toMatchObject({ $group_0: 'initech', $group_1: 'p1' });
    expect(g.drain().groupTypes).toEqual([
      { project_id: 1, group_type: 'company', group_type_index: 0, name_singular: null, name_plural: null },
      { project_id: 1, group_type: 'project', group_type_index: 1, name_singular: null, name_plural: null },
    ]);
    // drained once: nothing new to write
    g.processEvent(event({ $groups: { company: 'x' } }));
    expect(g.drain()).toEqual({ groups: [], groupTypes: [], dropped: 0 });
  });

  it('assigns at most five group types; a sixth is ignored, now and later', () => {
    const g = new ProjectGroups(1);
    const e = event({ $groups: { a: '1', b: '2', c: '3', d: '4', e: '5', f: '6' } });
    g.processEvent(e);
    expect(e.properties).toEqual({ $groups: e.properties.$groups, $group_0: '1', $group_1: '2', $group_2: '3', $group_3: '4', $group_4: '5' });
    const later = event({ $groups: { f: 'x' } });
    expect(g.processEvent(later)).toBe('unchanged');
    expect(later.properties).toEqual({ $groups: { f: 'x' } });
    expect(g.drain().groupTypes.map((t) => [t.group_type, t.group_type_index])).toEqual([
      ['a', 0],
      ['b', 1],
      ['c', 2],
      ['d', 3],
      ['e', 4],
    ]);
    expect(g.indexOf('f')).toBeNull();
  });

  it('takes the lowest free index after a gap (a deleted group type)', () => {
    const g = new ProjectGroups(1);
    g.load({
      types: [
        { group_type: 'a', group_type_index: 0, name_singular: null, name_plural: null },
        { group_type: 'c', group_type_index: 2, name_singular: 'C', name_plural: null },
      ],
      groups: [],
    });
    expect([g.indexOf('c'), g.indexOf('b'), g.indexOf('d')]).toEqual([2, 1, 3]);
  });

  it.each([
    ['not an object', 'acme'],
    ['an array', ['acme']],
    ['null', null],
  ])('$groups that is %s is ignored', (_, groups) => {
    const g = new ProjectGroups(1);
    const e = event({ $groups: groups });
    expect(g.processEvent(e)).toBe('unchanged');
    expect(g.drain().groupTypes).toEqual([]);
  });

  it.each([
    ['acme', 'acme'],
    [42, '42'],
    [true, 'true'],
    ['', null],
    [null, null],
    [{ id: 1 }, null],
    [Number.NaN, null],
  ])('group key %p is stored as %p', (key, text) => {
    expect(groupKeyText(key)).toBe(text);
    const g = new ProjectGroups(1);
    const e = event({ $groups: { company: key } });
    g.processEvent(e);
    expect(e.properties.$group_0).toBe(text ?? undefined);
  });

  it('$groupidentify merges $group_set over the group (newer values win), keeps the earliest timestamp, counts versions', () => {
    const g = new ProjectGroups(1);
    const identify = (set: unknown, t: number, key: unknown = 'acme') =>
      g.processEvent(event({ $group_type: 'company', $group_key: key, $group_set: set }, '$groupidentify', t));
    expect(identify({ name: 'Acme', plan: 'free' }, T0 + 5000)).toBe('unchanged');
    expect(g.drain()).toEqual({
      groups: [{ project_id: 1, group_type_index: 0, group_key: 'acme', created_at: T0 + 5000, properties: { name: 'Acme', plan: 'free' }, version: 1 }],
      groupTypes: [{ project_id: 1, group_type: 'company', group_type_index: 0, name_singular: null, name_plural: null }],
      dropped: 0,
    });
    identify({ plan: 'pro', seats: 3 }, T0 + 9000);
    identify({ plan: 'pro' }, T0 + 1000); // same values, earlier: only created_at moves
    const [row] = g.drain().groups;
    expect(row).toEqual({ project_id: 1, group_type_index: 0, group_key: 'acme', created_at: T0 + 1000, properties: { name: 'Acme', plan: 'pro', seats: 3 }, version: 3 });
    // nothing new, later: no write
    identify({ seats: 3 }, T0 + 20_000);
    expect(g.drain().groups).toEqual([]);
    // a numeric key is its text
    identify({}, T0, 7);
    expect(g.drain().groups.map((x) => [x.group_key, x.properties, x.version])).toEqual([['7', {}, 1]]);
  });

  it.each([
    ['no $group_type', { $group_key: 'k', $group_set: { a: 1 } }],
    ['no $group_key', { $group_type: 'company', $group_set: { a: 1 } }],
    ['an empty $group_key', { $group_type: 'company', $group_key: '', $group_set: { a: 1 } }],
    ['an object $group_key', { $group_type: 'company', $group_key: { k: 1 }, $group_set: { a: 1 } }],
    ['a numeric $group_type', { $group_type: 5, $group_key: 'k', $group_set: { a: 1 } }],
    ['a $group_key over 400 characters', { $group_type: 'company', $group_key: 'k'.repeat(401) }],
  ])('$groupidentify with %s changes no group (the event is still stored)', (_, props) => {
    const g = new ProjectGroups(1);
    expect(g.processEvent(event(props, '$groupidentify'))).toBe('unchanged');
    expect(g.drain()).toEqual({ groups: [], groupTypes: [], dropped: 0 });
  });

  it('$groupidentify with a $group_set that is not an object creates the group without properties', () => {
    const g = new ProjectGroups(1);
    g.processEvent(event({ $group_type: 'company', $group_key: 'k', $group_set: 'nope' }, '$groupidentify'));
    expect(g.drain().groups.map((x) => x.properties)).toEqual([{}]);
  });

  it('a personless $groupidentify is dropped, changing nothing (PostHog drops it with an ingestion warning)', () => {
    const g = new ProjectGroups(1);
    const out = g.processEvent(event({ $process_person_profile: false, $group_type: 'company', $group_key: 'k' }, '$groupidentify'));
    expect(out).toBe('drop');
    expect(g.drain()).toEqual({ groups: [], groupTypes: [], dropped: 1 });
    // other personless events keep their groups
    const e = event({ $process_person_profile: false, $groups: { company: 'k' } });
    expect(g.processEvent(e)).toBe('changed');
  });
});

describe('the group flag of a logged event', () => {
  const ev = (raw: Record<string, unknown>) => {
    const e = normalizeEvent({ event: 'e', distinct_id: 'd', ...raw }, { now: T0 });
    slimForApply(e);
    return e;
  };

  it('is set when parsed for $groupidentify and for $groups (which slimming drops), and kept through the log record', () => {
    const events = [
      ev({ properties: { a: 1 } }),
      ev({ properties: { $groups: { company: 'acme' } } }),
      ev({ distinct_id: 'x', properties: { note: 'no groups here' } }),
      ev({ event: '$groupidentify', properties: {} }),
      ev({ properties: { a: { b: 'nested "$groups" text' } } }),
      ev({ properties: { $group_type: 'company' } }),
    ];
    expect(events.map((e) => e.groups)).toEqual([false, true, false, true, false, false]);
    const { compact } = encodeCompact(1, 1, events);
    expect(events.map((_, i) => (compact.pos[i * C_STRIDE + C_FLAGS] & F_GROUPS) !== 0)).toEqual([false, true, false, true, false, false]);
    expect(events.map((_, i) => compactEvent(compact, i).groups)).toEqual([false, true, false, true, false, false]);
    expect(decodeRecord(encodeRecord({ seq: 1, projectId: 1, events })).events.map((e) => e.groups)).toEqual([false, true, false, true, false, false]);
  });
});

describe('through the Ingestor', () => {
  let dir: string;
  let engine: DuckDbEngine;
  let ing: Ingestor;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-groups-ingest-'));
    engine = await DuckDbEngine.open(path.join(dir, 'events.duckdb'));
    ing = await Ingestor.open({ dataDir: dir, engine, flushIntervalMs: 50 });
  });
  afterEach(async () => {
    await ing.close();
    await engine.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const ev = (raw: Record<string, unknown>) => normalizeEvent({ event: 'e', distinct_id: 'u1', ...raw }, { now: Date.now() });
  const rows = async (sql: string, params: unknown[] = []) => (await engine.query(sql, params)).rows;
  const groupProps = (project = 1) =>
    rows(
      `SELECT event, json_extract_string(properties, '$."$group_0"'), json_extract_string(properties, '$."$group_1"') FROM events
       WHERE project_id = $1 ORDER BY timestamp, event`,
      [project],
    );

  it('captured events get $group_N and $groupidentify stores the group; the $groupidentify distinct id gets a person', async () => {
    await ing.capture(1, [
      ev({ event: 'plain', timestamp: T0, properties: { a: 1 } }),
      ev({ event: 'with-groups', timestamp: T0 + 1, properties: { $groups: { company: 'acme', project: 7 }, $session_id: 's1' } }),
    ]);
    // as posthog-node sends it: distinct id `$<type>_<key>`
    await ing.capture(1, [
      ev({
        event: '$groupidentify',
        distinct_id: '$company_acme',
        timestamp: T0 + 2,
        properties: { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme Inc.', employees: 50 } },
      }),
    ]);
    await ing.capture(2, [ev({ event: 'other-project', timestamp: T0 + 3, properties: { $groups: { team: 'x' } } })]);
    await ing.flush();
    expect(await groupProps()).toEqual([
      ['plain', null, null],
      ['with-groups', 'acme', '7'],
      ['$groupidentify', null, null],
    ]);
    // The rewritten event keeps everything else, its session id column included.
    expect(await rows(`SELECT "$session_id", properties->>'$."$groups"' FROM events WHERE event = 'with-groups'`)).toEqual([['s1', '{"company":"acme","project":7}']]);
    expect(await engine.listGroupTypes(1)).toEqual([
      { group_type: 'company', group_type_index: 0, name_singular: null, name_plural: null },
      { group_type: 'project', group_type_index: 1, name_singular: null, name_plural: null },
    ]);
    expect(await engine.getGroup(1, 0, 'acme')).toEqual({
      group_type_index: 0,
      group_key: 'acme',
      created_at: T0 + 2,
      properties: { name: 'Acme Inc.', employees: 50 },
      version: 1,
    });
    // Project 2 has its own mapping: its first type is index 0 too.
    expect(await groupProps(2)).toEqual([['other-project', 'x', null]]);
    expect((await engine.loadGroups(2)).types.map((t) => t.group_type)).toEqual(['team']);
    expect(await rows(`SELECT count(*) FROM person_distinct_ids WHERE project_id = 1 AND distinct_id = '$company_acme'`)).toEqual([[1]]);
  });

  it('events encoded by a parse worker, the row-by-row import and a restart keep one mapping', async () => {
    const slim = (evs: ParsedEvent[]) => {
      for (const e of evs) slimForApply(e);
      return evs;
    };
    await ing.captureEncoded(1, encodeEventsAhead(slim([ev({ event: 'w', timestamp: T0, properties: { $groups: { org: 'o1' } } })])));
    await ing.flush();
    await ing.close();
    ing = await Ingestor.open({ dataDir: dir, engine });
    const r = await ing.import(1, {
      events: [
        { event: 'imp', distinct_id: 'u', timestamp: new Date(T0 + 1).toISOString(), properties: { $groups: { team: 't1', org: 'o2' } } },
        { event: '$groupidentify', distinct_id: 'u', timestamp: new Date(T0 + 2).toISOString(), properties: { $group_type: 'team', $group_key: 't1', $group_set: { n: 1 } } },
        { event: '$groupidentify', distinct_id: 'u', timestamp: new Date(T0 + 3).toISOString(), properties: { $group_type: 'team', $group_key: 'x', $process_person_profile: false } },
      ],
    });
    expect(r.imported.events).toBe(2);
    expect(await groupProps()).toEqual([
      ['w', 'o1', null],
      ['imp', 'o2', 't1'],
      ['$groupidentify', null, null],
    ]);
    expect((await engine.loadGroups(1)).groups.map((g) => [g.group_type_index, g.group_key, g.properties])).toEqual([[1, 't1', { n: 1 }]]);
  });

  it('a record logged but not applied is replayed at the next start, its groups applied exactly once', async () => {
    await ing.close();
    const w = await Wal.open(path.join(dir, 'ingest-log'), { compact: true });
    await w.readAfter(0, () => undefined);
    w.ensureSeqAfter(await engine.getCheckpoint());
    const logged = [
      ev({ event: '$groupidentify', timestamp: T0, properties: { $group_type: 'company', $group_key: 'acme', $group_set: { plan: 'pro' } } }),
      ev({ event: 'g', timestamp: T0 + 1, properties: { $groups: { company: 'acme' } } }),
      ev({ event: '$groupidentify', timestamp: T0 + 2, properties: { $group_type: 'company', $group_key: 'acme', $group_set: { seats: 5 } } }),
    ];
    for (const e of logged) slimForApply(e);
    await w.append(1, logged);
    await w.close();
    ing = await Ingestor.open({ dataDir: dir, engine });
    const expected = { group_type_index: 0, group_key: 'acme', created_at: T0, properties: { plan: 'pro', seats: 5 }, version: 2 };
    expect(await engine.getGroup(1, 0, 'acme')).toEqual(expected);
    expect(await groupProps()).toEqual([
      ['$groupidentify', null, null],
      ['g', 'acme', null],
      ['$groupidentify', null, null],
    ]);
    // Opening again replays nothing: the checkpoint committed with the groups.
    await ing.close();
    ing = await Ingestor.open({ dataDir: dir, engine });
    expect(await engine.getGroup(1, 0, 'acme')).toEqual(expected);
    expect(await rows('SELECT count(*) FROM events')).toEqual([[3]]);
  });

  it('a batch that fails to apply is retried without counting its group changes twice', async () => {
    await ing.close();
    let failures = 1;
    const flaky = new Proxy(engine, {
      get(target, prop, receiver) {
        if (prop === 'writeBatch')
          return async (b: WriteBatch) => {
            if (b.groups?.length && failures-- > 0) throw new Error('Constraint Error: simulated');
            return target.writeBatch(b);
          };
        const v = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    ing = await Ingestor.open({ dataDir: dir, engine: flaky as unknown as EventEngine, flushIntervalMs: 20 });
    await ing.capture(1, [ev({ event: '$groupidentify', timestamp: T0, properties: { $group_type: 'company', $group_key: 'acme', $group_set: { a: 1 } } })]);
    await ing.capture(1, [ev({ event: '$groupidentify', timestamp: T0 + 1, properties: { $group_type: 'company', $group_key: 'acme', $group_set: { b: 2 } } })]);
    for (let i = 0; i < 50 && (await rows('SELECT count(*) FROM events'))[0][0] !== 2; i++) await new Promise((r) => setTimeout(r, 20));
    await ing.flush();
    expect(failures).toBeLessThan(0);
    expect(await engine.getGroup(1, 0, 'acme')).toMatchObject({ properties: { a: 1, b: 2 }, version: 2 });
    expect((await engine.listGroupTypes(1)).length).toBe(1);
  });

  it('renaming and deleting group types go through the ingest lock and reset the cached mapping', async () => {
    await ing.capture(1, [ev({ properties: { $groups: { company: 'c', project: 'p' } } })]);
    await ing.flush();
    await ing.updateGroupTypeNames(1, [{ group_type_index: 1, name_singular: 'Project', name_plural: 'Projects' }]);
    await expect(ing.updateGroupTypeNames(1, [{ group_type_index: 3, name_singular: 'x' }])).rejects.toMatchObject({ status: 400, attr: 'group_type_index' });
    expect((await engine.listGroupTypes(1))[1]).toEqual({ group_type: 'project', group_type_index: 1, name_singular: 'Project', name_plural: 'Projects' });
    await ing.deleteGroupType(1, 0);
    // index 0 is free again: the next new type takes it
    await ing.capture(1, [ev({ event: 'after', properties: { $groups: { workspace: 'w', project: 'p2' } } })]);
    await ing.flush();
    expect((await engine.listGroupTypes(1)).map((t) => [t.group_type, t.group_type_index, t.name_singular])).toEqual([
      ['workspace', 0, null],
      ['project', 1, 'Project'],
    ]);
    expect((await groupProps()).find((r) => r[0] === 'after')).toEqual(['after', 'w', 'p2']);
  });
});

/** An engine that has stored nothing and hands every batch the Ingestor writes to `onBatch`. */
function recordingEngine(onBatch: (b: WriteBatch) => void): EventEngine {
  return {
    getCheckpoint: async () => 0,
    recentEventUuids: async () => [],
    loadIdentity: async () => ({ persons: [], distinctIds: [], overrides: [] }),
    loadGroups: async () => ({ types: [], groups: [] }),
    writeBatch: async (b: WriteBatch) => void onBatch(b),
  } as unknown as EventEngine;
}

it('an engine other than DuckDB receives the rewritten properties text and the group rows in the same batch', async () => {
  const batches: WriteBatch[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-groups-other-'));
  const ing = await Ingestor.open({ dataDir: dir, engine: recordingEngine((b) => batches.push(b)) });
  try {
    const u = randomUUID();
    await ing.capture(1, [
      normalizeEvent({ event: 'e', distinct_id: 'u', uuid: u, timestamp: T0, properties: { city: 'München', $groups: { company: 'acme' } } }, { now: Date.now() }),
    ]);
    await ing.flush();
    const withEvents = batches.filter((b) => b.events.length);
    expect(withEvents).toHaveLength(1);
    expect(JSON.parse(withEvents[0].events[0].properties)).toEqual({ city: 'München', $groups: { company: 'acme' }, $group_0: 'acme' });
    expect(withEvents[0].groupTypes).toEqual([{ project_id: 1, group_type: 'company', group_type_index: 0, name_singular: null, name_plural: null }]);
  } finally {
    await ing.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
