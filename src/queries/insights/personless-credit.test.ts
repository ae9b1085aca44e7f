/**
 * Personless events credited to the person their distinct id gets later.
 *
 * posthog-js (`person_profiles: 'identified_only'`) sends anonymous events with `$process_person_profile: false`;
 * PostHog stores them under a person id derived from the distinct id (plugin-server person-state: uuidFromDistinctId).
 * When that distinct id later gets a person, PostHog credits those events to it: a person created by a normal event
 * of the distinct id takes that very derived id, and a personless distinct id merged into a person (`$identify` with
 * `$anon_distinct_id`, `$create_alias`) gets a distinct-id override (person_distinct_id_overrides) — so queries read
 * the events under the person from then on, and a later merge moves them along. A distinct id that never gets a
 * person stays one actor of its own (test_funnel_personless_events_are_supported, test_trends personless DAU).
 *
 * Quarry stores such events without a person and resolves them at query time through person_distinct_ids
 * (TableNeeds.personless). Every case below checks a query kind before and after the distinct id gets a person,
 * ingested through the real Ingestor (the import path: identity rules, merges).
 */
import { createInsightTestDb, type InsightTestDb, type TestEvent, useInsightsClock } from './testing';
import { trendsRunner } from '../runners/trends-runner';
import { funnelsRunner } from '../runners/funnels-runner';
import { stickinessRunner } from '../runners/stickiness-runner';
import { lifecycleRunner } from '../runners/lifecycle-runner';
import { retentionRunner } from '../runners/retention-runner';
import { pathsRunner } from '../runners/paths-runner';
import { actorsRunner } from '../runners/actors-runner';
import { productqlRunner } from '../runners/productql-runner';
import { compileProductQL, shutdownParser } from '../../productql';
import { normalizeEvent } from '../../ingest/capture-payload';

let db: InsightTestDb;
const freeze = useInsightsClock();
beforeAll(async () => {
  db = await createInsightTestDb();
  freeze('2024-01-08T12:00:00Z');
});
afterAll(async () => {
  await db.close();
  await shutdownParser();
});

const PERSONLESS = { $process_person_profile: false };
const ev = (event: string, distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}): TestEvent => ({ event, distinct_id, timestamp, properties });
const pv = (distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}) => ev('$pageview', distinct_id, timestamp, properties);
const anonPv = (distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}) => pv(distinct_id, timestamp, { ...PERSONLESS, ...properties });
const identify = (distinct_id: string, anon: string, timestamp: string, set: Record<string, unknown> = {}) =>
  ev('$identify', distinct_id, timestamp, { $anon_distinct_id: anon, $set: set });

const WEEK = { date_from: '2024-01-01', date_to: '2024-01-07' };
const PV = { kind: 'EventsNode', event: '$pageview' };
const trends = (pid: number, series: Record<string, unknown>[], extra: Record<string, unknown> = {}) =>
  db.run(trendsRunner, { kind: 'TrendsQuery', dateRange: WEEK, interval: 'day', series, ...extra }, pid);
const sql = async (pid: number, query: string) => (await db.run(productqlRunner, { kind: 'HogQLQuery', query }, pid)).results as unknown[][];

/** Persons by their first distinct id (the project's persons, with all their distinct ids). */
async function personIds(pid: number): Promise<Record<string, string>> {
  const rows = await sql(pid, 'SELECT toString(person_id), distinct_id FROM person_distinct_ids ORDER BY distinct_id');
  return Object.fromEntries(rows.map(([p, d]) => [String(d), String(p)]));
}

describe('the two flows on one day (DAU 2, not 4)', () => {
  // x: a personless event, then a normal one (which creates x's person); anon: a personless event, then user
  // identifies with $anon_distinct_id anon (user's person gets anon).
  const events = [
    anonPv('x', '2024-01-03T10:00:00Z'),
    pv('x', '2024-01-03T11:00:00Z'),
    anonPv('anon', '2024-01-03T10:00:00Z'),
    identify('user', 'anon', '2024-01-03T12:00:00Z'),
  ];

  it('trends DAU over all events counts one user per person, the personless events included', async () => {
    const pid = await db.project([], events);
    const r = await trends(pid, [{ kind: 'EventsNode', event: null, math: 'dau' }]);
    expect(r.results[0].data).toEqual([0, 0, 2, 0, 0, 0, 0]);
    const total = await trends(pid, [{ kind: 'EventsNode', event: null }]);
    expect(total.results[0].data).toEqual([0, 0, 4, 0, 0, 0, 0]);
  });

  it('before the distinct ids get a person they count one user each; after, they join the person', async () => {
    const pid = await db.project([], [events[0], events[2]]);
    const dau = async () => (await trends(pid, [{ kind: 'EventsNode', event: null, math: 'dau' }])).results[0].data[2];
    expect(await dau()).toBe(2);
    await db.load(pid, { events: [events[1], events[3]] });
    expect(await dau()).toBe(2);
    // a third anonymous visitor who never gets a person stays a user of their own
    await db.load(pid, { events: [anonPv('ghost', '2024-01-03T09:00:00Z')] });
    expect(await dau()).toBe(3);
  });

  it('the same through live capture (Ingestor.capture, as the capture routes ingest)', async () => {
    const pid = await db.project([], []);
    const captured = events.map((e) => normalizeEvent(e, { now: Date.parse('2024-01-08T12:00:00Z') }));
    await db.ingestor.capture(pid, captured.slice(0, 1));
    await db.ingestor.capture(pid, captured.slice(2, 3));
    await db.ingestor.flush();
    const dau = async () => (await trends(pid, [{ kind: 'EventsNode', event: null, math: 'dau' }])).results[0].data[2];
    expect(await dau()).toBe(2);
    expect(await sql(pid, 'SELECT countIf(person_id IS NULL) FROM events')).toEqual([[2]]);
    await db.ingestor.capture(pid, [captured[1], captured[3]]);
    await db.ingestor.flush();
    expect(await dau()).toBe(2);
    expect(await sql(pid, 'SELECT countIf(person_id IS NULL), uniq(person_id) FROM events')).toEqual([[0, 2]]);
  });

  it.each<[string, TestEvent[]]>([
    ['$create_alias by user with alias anon', [ev('$create_alias', 'user', '2024-01-03T12:00:00Z', { alias: 'anon' })]],
    ['$identify by the personless distinct id itself (anon identifies, $anon_distinct_id user)', [identify('anon', 'user', '2024-01-03T12:00:00Z')]],
    ['$identify by user, whose person already exists', [pv('user', '2024-01-03T08:00:00Z'), identify('user', 'anon', '2024-01-03T12:00:00Z')]],
  ])('%s: the personless events of anon count with that person', async (_n, merge) => {
    const pid = await db.project([], [anonPv('anon', '2024-01-03T10:00:00Z'), anonPv('anon', '2024-01-03T11:00:00Z'), ...merge]);
    const r = await trends(pid, [{ kind: 'EventsNode', event: null, math: 'dau' }]);
    expect(r.results[0].data[2]).toBe(1);
    expect(await sql(pid, 'SELECT uniq(person_id), countIf(person_id IS NULL) FROM events')).toEqual([[1, 0]]);
  });
});

/*
 * The week (Jan 1..7), project of its own per describe:
 *  x:     personless $pageview Jan 1 10:00 (/), Jan 2 10:00 (/pricing); normal $pageview Jan 3 10:00 (/app, $set name X)
 *  anon:  personless $pageview Jan 1 11:00 (/), Jan 2 11:00 (/signup)
 *  user:  normal $pageview Jan 1 12:00 (/home); $identify ($anon_distinct_id anon, $set name U) Jan 3 12:00;
 *         purchase Jan 3 13:00
 *  ghost: personless $pageview Jan 1 13:00 (/), Jan 2 13:00 (/pricing); never gets a person
 *  x also purchases Jan 3 14:00.
 */
const week = (): TestEvent[] => [
  anonPv('x', '2024-01-01T10:00:00Z', { $current_url: '/' }),
  anonPv('x', '2024-01-02T10:00:00Z', { $current_url: '/pricing' }),
  anonPv('anon', '2024-01-01T11:00:00Z', { $current_url: '/' }),
  anonPv('anon', '2024-01-02T11:00:00Z', { $current_url: '/signup' }),
  pv('user', '2024-01-01T12:00:00Z', { $current_url: '/home' }),
  anonPv('ghost', '2024-01-01T13:00:00Z', { $current_url: '/' }),
  anonPv('ghost', '2024-01-02T13:00:00Z', { $current_url: '/pricing' }),
];
const later = (): TestEvent[] => [
  pv('x', '2024-01-03T10:00:00Z', { $current_url: '/app', $set: { name: 'X' } }),
  identify('user', 'anon', '2024-01-03T12:00:00Z', { name: 'U' }),
  ev('purchase', 'user', '2024-01-03T13:00:00Z'),
  ev('purchase', 'x', '2024-01-03T14:00:00Z'),
];

describe('trends', () => {
  it('DAU per day: before, every distinct id is a user; after, x and anon are their persons (user is anon)', async () => {
    const pid = await db.project([], week());
    expect((await trends(pid, [{ ...PV, math: 'dau' }])).results[0].data).toEqual([4, 3, 0, 0, 0, 0, 0]);
    await db.load(pid, { events: later() });
    const r = await trends(pid, [{ ...PV, math: 'dau' }]);
    expect(r.results[0].data).toEqual([3, 3, 1, 0, 0, 0, 0]);
    expect(r.results[0].count).toBe(7);
    // weekly active users over the whole week: x's person, user's person (with anon), ghost
    const wau = await trends(pid, [{ ...PV, math: 'dau' }], { interval: 'week' });
    expect(wau.results[0].data.reduce((a: number, b: number) => a + b, 0)).toBe(3);
    // total count is untouched
    expect((await trends(pid, [PV])).results[0].data).toEqual([4, 3, 1, 0, 0, 0, 0]);
  });

  it('a breakdown by a person property puts the earlier personless events under the person they now belong to', async () => {
    const pid = await db.project([], [...week(), ...later()]);
    const r = await trends(pid, [PV], { breakdownFilter: { breakdown: 'name', breakdown_type: 'person' } });
    const byValue = Object.fromEntries(r.results.map((s: any) => [s.breakdown_value, s.data]));
    expect(byValue).toEqual({
      X: [1, 1, 1, 0, 0, 0, 0],
      U: [2, 1, 0, 0, 0, 0, 0],
      $$_posthog_breakdown_null_$$: [1, 1, 0, 0, 0, 0, 0],
    });
  });
});

describe('ProductQL: SELECT person_id, person.properties.name FROM events', () => {
  it('before: NULL for personless events; after: the person the distinct id got, with its properties', async () => {
    const pid = await db.project([], week());
    const q = "SELECT distinct_id, toString(person_id), person.properties.name FROM events WHERE event = '$pageview' ORDER BY timestamp";
    const before = await sql(pid, q);
    const userBefore = (await personIds(pid)).user;
    expect(before).toEqual([
      ['x', null, null],
      ['anon', null, null],
      ['user', userBefore, null],
      ['ghost', null, null],
      ['x', null, null],
      ['anon', null, null],
      ['ghost', null, null],
    ]);
    await db.load(pid, { events: later() });
    const ids = await personIds(pid);
    expect(ids.anon).toBe(ids.user);
    expect(ids.user).toBe(userBefore);
    expect(await sql(pid, q)).toEqual([
      ['x', ids.x, 'X'],
      ['anon', ids.user, 'U'],
      ['user', ids.user, 'U'],
      ['ghost', null, null],
      ['x', ids.x, 'X'],
      ['anon', ids.user, 'U'],
      ['ghost', null, null],
      ['x', ids.x, 'X'],
    ]);
    // null tests agree with the resolved id
    expect(await sql(pid, "SELECT countIf(person_id IS NULL), countIf(isNotNull(person_id)), uniq(person_id) FROM events WHERE event = '$pageview'")).toEqual([[2, 6, 2]]);
    // poe.id is the event's person id too
    expect(await sql(pid, "SELECT count() FROM events WHERE poe.id = person_id AND distinct_id = 'anon'")).toEqual([[2]]);
  });

  it('a merge after that moves the credited events along (x identifies as user: x\'s person merges into user\'s)', async () => {
    const pid = await db.project([], [...week(), ...later()]);
    await db.load(pid, { events: [identify('user', 'x', '2024-01-04T10:00:00Z')] });
    const ids = await personIds(pid);
    expect(ids.x).toBe(ids.user);
    const rows = await sql(pid, "SELECT toString(person_id), count() FROM events WHERE event = '$pageview' GROUP BY person_id ORDER BY count() DESC");
    expect(rows).toEqual([
      [ids.user, 6],
      [null, 2],
    ]);
    expect((await trends(pid, [{ ...PV, math: 'dau' }])).results[0].data).toEqual([2, 2, 1, 0, 0, 0, 0]);
  });
});

describe('actors', () => {
  it('DAU actors of Jan 1: the persons (x credited its personless event); the distinct id without a person is missing', async () => {
    const pid = await db.project([], [...week(), ...later()]);
    const r = await db.run(
      actorsRunner,
      {
        kind: 'ActorsQuery',
        select: ['actor', 'event_count'],
        source: { kind: 'InsightActorsQuery', source: { kind: 'TrendsQuery', dateRange: WEEK, series: [{ ...PV, math: 'dau' }] }, day: '2024-01-01' },
      },
      pid,
    );
    const actors = r.results.map((row: any[]) => [[...row[0].distinct_ids].sort(), row[1]]);
    expect(actors).toEqual([
      [['anon', 'user'], 2],
      [['x'], 1],
    ]);
    expect(r.missing_actors_count).toBe(1);
  });
});

describe('funnels', () => {
  it.each([
    ['SQL path', {}],
    ['per-actor path', { exclusions: [{ kind: 'EventsNode', event: 'never happens', funnelFromStep: 0, funnelToStep: 1 }] }],
  ])('%s: a personless step 1 converts through the person the distinct id gets (x and anon/user)', async (_n, ff) => {
    const pid = await db.project([], week());
    const funnel = { kind: 'FunnelsQuery', series: [PV, { kind: 'EventsNode', event: 'purchase' }], dateRange: WEEK, funnelsFilter: ff };
    const counts = async () => (await db.run(funnelsRunner, funnel, pid)).results.map((s: any) => s.count);
    expect(await counts()).toEqual([4, 0]);
    await db.load(pid, { events: later() });
    expect(await counts()).toEqual([3, 2]);
  });
});

describe('retention', () => {
  it('first-time $pageview cohorts: x (personless Jan 1) returns Jan 2 and Jan 3 as its person', async () => {
    const pid = await db.project([], [...week(), ...later()]);
    const r = await db.run(
      retentionRunner,
      {
        kind: 'RetentionQuery',
        dateRange: { date_from: '2024-01-01', date_to: '2024-01-04' },
        retentionFilter: {
          period: 'Day',
          totalIntervals: 4,
          targetEntity: { id: '$pageview', type: 'events' },
          returningEntity: { id: '$pageview', type: 'events' },
          retentionType: 'retention_first_time',
        },
      },
      pid,
    );
    // Jan 1: x, user (with anon), ghost; Jan 2: all three; Jan 3: x only
    expect(r.results[0].values.map((v: any) => v.count)).toEqual([3, 3, 1, 0]);
  });
});

describe('stickiness', () => {
  it('days active per person: x 3 (two personless days), user 2 (anon\'s days), ghost 2', async () => {
    const pid = await db.project([], [...week(), ...later()]);
    const r = await db.run(stickinessRunner, { kind: 'StickinessQuery', dateRange: WEEK, series: [PV] }, pid);
    expect(r.results[0].data).toEqual([0, 2, 1, 0, 0, 0, 0]);
  });
});

describe('lifecycle', () => {
  it('personless events stay out of lifecycle (PostHog excludes them), also once their distinct id has a person', async () => {
    const pid = await db.project([], [...week(), ...later()]);
    const r = await db.run(lifecycleRunner, { kind: 'LifecycleQuery', dateRange: WEEK, interval: 'day', series: [PV] }, pid);
    const byStatus = Object.fromEntries(r.results.map((s: any) => [s.status, s.data]));
    // user: new Jan 1, dormant Jan 2; x: new Jan 3 (its first normal event, and its person's creation), dormant Jan 4
    expect(byStatus.new).toEqual([1, 0, 1, 0, 0, 0, 0]);
    expect(byStatus.dormant).toEqual([0, -1, 0, -1, 0, 0, 0]);
  });
});

describe('paths', () => {
  it("anon's personless pages and user's page after identifying make one path", async () => {
    const pid = await db.project(
      [],
      [
        anonPv('anon', '2024-01-05T10:00:00Z', { $current_url: '/landing' }),
        anonPv('anon', '2024-01-05T10:01:00Z', { $current_url: '/signup' }),
        identify('user', 'anon', '2024-01-05T10:02:00Z'),
        pv('user', '2024-01-05T10:03:00Z', { $current_url: '/app' }),
        anonPv('ghost', '2024-01-05T10:00:00Z', { $current_url: '/landing' }),
      ],
    );
    const r = await db.run(pathsRunner, { kind: 'PathsQuery', dateRange: { date_from: '2024-01-05', date_to: '2024-01-05' }, pathsFilter: { includeEventTypes: ['$pageview'] } }, pid);
    expect(r.results.map((e: any) => `${e.source} -> ${e.target} (${e.value})`)).toEqual(['1_/landing -> 2_/signup (1)', '2_/signup -> 3_/app (1)']);
  });
});

describe('the printer', () => {
  it('joins person_distinct_ids for the person id only for a project that may hold personless events', async () => {
    const print = async (personless: boolean) =>
      (await compileProductQL({ query: 'SELECT person_id, person.properties.name FROM events', projectId: 1, timezone: 'UTC', dialect: db.kind, personless })).sql;
    expect(await print(false)).not.toContain('person_distinct_ids');
    const withFallback = await print(true);
    expect(withFallback).toContain('person_distinct_ids');
    // every table inside stays guarded by the project id
    const tables = withFallback.match(/FROM [`"](events|persons|person_distinct_ids|person_overrides)[`"]/g) ?? [];
    const guards = withFallback.match(/[`"]project_id[`"] = /g) ?? [];
    expect(tables.length).toBe(4);
    expect(guards.length).toBeGreaterThanOrEqual(tables.length);
    // nothing personless in a project: the flag stays off, and the stored column answers null tests
    const pid = await db.project([{ distinct_ids: ['p'] }], [pv('p', '2024-01-02T10:00:00Z')]);
    expect(db.engine.hasPersonlessEvents?.(pid)).toBe(false);
  });
});
