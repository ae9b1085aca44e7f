import { createInsightTestDb, type InsightTestDb } from '../insights/testing';
import { setInsightsClock } from '../insights/date-range';
import { lifecycleRunner } from './lifecycle-runner';

/**
 * UTC, now = 2024-01-08 12:00, -7d = Jan 1..8 (events fetched from Dec 31).
 *  pN  created Jan 2: Jan 2, 3, 5            → new Jan 2, returning Jan 3, dormant Jan 4, resurrecting Jan 5, dormant Jan 6
 *  pOld created 2023-06: Dec 31, Jan 1, 2    → returning Jan 1 and 2, dormant Jan 3
 *  merged: anonymous 'anon-m' seen Jan 4, identified as 'm1' (created Jan 4) on Jan 5, seen again Jan 5
 *          → one person: new Jan 4, returning Jan 5, dormant Jan 6
 *          (unmerged it would be: new Jan 4 + dormant Jan 5, resurrecting Jan 5 + dormant Jan 6)
 *  pC  created Jan 8: Jan 8                  → new Jan 8
 *  a personless event on Jan 3 is excluded.
 */
let db: InsightTestDb;
let restore: () => void;
beforeAll(async () => {
  db = await createInsightTestDb();
  restore = setInsightsClock(new Date('2024-01-08T12:00:00Z'));
  const pv = (d: string, ts: string, properties: Record<string, unknown> = {}) => ({ event: '$pageview', distinct_id: d, timestamp: ts, properties });
  await db.load(1, {
    persons: [
      { distinct_ids: ['n1'], created_at: '2024-01-02T00:00:00Z' },
      { distinct_ids: ['o1'], created_at: '2023-06-01T00:00:00Z' },
      { distinct_ids: ['m1'], created_at: '2024-01-04T00:00:00Z' },
      { distinct_ids: ['c1'], created_at: '2024-01-08T00:00:00Z' },
    ],
    events: [
      pv('n1', '2024-01-02T10:00:00Z'),
      pv('n1', '2024-01-03T10:00:00Z'),
      pv('n1', '2024-01-05T10:00:00Z'),
      pv('o1', '2023-12-31T10:00:00Z'),
      pv('o1', '2024-01-01T10:00:00Z'),
      pv('o1', '2024-01-02T10:00:00Z'),
      pv('anon-m', '2024-01-04T10:00:00Z'),
      { event: '$identify', distinct_id: 'm1', timestamp: '2024-01-05T09:00:00Z', properties: { $anon_distinct_id: 'anon-m' } },
      pv('m1', '2024-01-05T10:00:00Z'),
      pv('c1', '2024-01-08T10:00:00Z'),
      pv('ghost', '2024-01-03T10:00:00Z', { $process_person_profile: false }),
    ],
  });
});
afterAll(async () => {
  restore();
  await db.close();
});

const PV = { kind: 'EventsNode', event: '$pageview' };
const lifecycle = (q: Record<string, unknown> = {}) => db.run(lifecycleRunner, { kind: 'LifecycleQuery', series: [PV], dateRange: { date_from: '-7d' }, ...q });

it('four series in order new, returning, resurrecting, dormant', async () => {
  const r = await lifecycle();
  expect(r.results.map((x: any) => x.status)).toEqual(['new', 'returning', 'resurrecting', 'dormant']);
  expect(r.results.map((x: any) => x.label)).toEqual(['$pageview - new', '$pageview - returning', '$pageview - resurrecting', '$pageview - dormant']);
  expect(r.results[0].days).toHaveLength(8);
  expect(r.results[0].labels[0]).toBe('1-Jan-2024');
  expect(r.results[0].action).toMatchObject({ id: '$pageview', type: 'events', order: 0, math: 'total' });
});

it.each<[string, number[], number]>([
  ['new', [0, 1, 0, 1, 0, 0, 0, 1], 3],
  ['returning', [1, 1, 1, 0, 1, 0, 0, 0], 4],
  ['resurrecting', [0, 0, 0, 0, 1, 0, 0, 0], 1],
  ['dormant', [0, 0, -1, -1, 0, -2, 0, 0], -4],
])('%s (merged distinct ids count as one person; personless excluded)', async (status, data, count) => {
  const r = await lifecycle();
  const s = r.results.find((x: any) => x.status === status);
  expect(s.data).toEqual(data);
  expect(s.count).toBe(count);
});

it('toggledLifecycles is display-only', async () => {
  const r = await lifecycle({ lifecycleFilter: { toggledLifecycles: ['new'] } });
  expect(r.results).toHaveLength(4);
});

it('first visible activity of a person created long before is resurrecting', async () => {
  const r = await lifecycle({ dateRange: { date_from: '2024-01-02', date_to: '2024-01-03' } });
  // o1 is active Jan 1 (outside, but fetched: one interval before) and Jan 2 → returning on Jan 2.
  expect(r.results.find((x: any) => x.status === 'returning').data).toEqual([1, 1]);
  const r2 = await lifecycle({ dateRange: { date_from: '2024-01-08', date_to: '2024-01-08' }, series: [{ ...PV, properties: [{ type: 'event_metadata', key: 'distinct_id', value: 'o1' }] }] });
  expect(r2.results.map((x: any) => x.data[0])).toEqual([0, 0, 0, 0]);
});

it('week interval', async () => {
  const r = await lifecycle({ interval: 'week', dateRange: { date_from: '2024-01-01', date_to: '2024-01-13' } });
  // Weeks (Sunday start) Dec 31 and Jan 7. Dec 31 week: n1 new (created Jan 2), o1 resurrecting (created 2023),
  // merged person new (created Jan 4). Jan 7 week: c1 new; n1, o1, merged dormant.
  const by = Object.fromEntries(r.results.map((x: any) => [x.status, x.data]));
  expect(by).toEqual({ new: [2, 1], returning: [0, 0], resurrecting: [1, 0], dormant: [0, -3] });
});

it('no data → four zero series', async () => {
  const r = await lifecycle({ series: [{ kind: 'EventsNode', event: 'nope' }] });
  expect(r.results.map((x: any) => x.count)).toEqual([0, 0, 0, 0]);
});

it('month interval: a gap month is dormant, the month after it resurrecting, consecutive months returning', async () => {
  // (day/week/month buckets find the previous/next active interval with lag/lead on DuckDB: pins that a neighbour two
  // months away is not "the previous month", and that creation months count as new)
  const pv = (d: string, ts: string) => ({ event: '$pageview', distinct_id: d, timestamp: ts, properties: {} });
  await db.load(2, {
    persons: [
      { distinct_ids: ['q1'], created_at: '2023-11-15T00:00:00Z' },
      { distinct_ids: ['q2'], created_at: '2024-02-10T00:00:00Z' },
    ],
    events: [
      pv('q1', '2023-12-20T10:00:00Z'),
      pv('q1', '2024-01-10T10:00:00Z'),
      pv('q1', '2024-03-05T10:00:00Z'),
      pv('q1', '2024-04-01T00:00:00Z'),
      pv('q2', '2024-02-11T10:00:00Z'),
      pv('q2', '2024-02-20T10:00:00Z'),
    ],
  });
  const r = await db.run(lifecycleRunner, { kind: 'LifecycleQuery', series: [PV], interval: 'month', dateRange: { date_from: '2024-01-01', date_to: '2024-04-30' } }, 2);
  const by = Object.fromEntries(r.results.map((x: any) => [x.status, x.data]));
  expect(by).toEqual({ new: [0, 1, 0, 0], returning: [1, 0, 0, 1], resurrecting: [0, 0, 1, 0], dormant: [0, -1, -1, 0] });
  // the same activity by hour (neighbours by self-join there): q2's two February hours are far apart
  const h = await db.run(
    lifecycleRunner,
    { kind: 'LifecycleQuery', series: [PV], interval: 'hour', dateRange: { date_from: '2024-02-20T09:00:00', date_to: '2024-02-20T11:00:00' } },
    2,
  );
  const byH = Object.fromEntries(h.results.map((x: any) => [x.status, x.data]));
  expect(byH).toEqual({ new: [0, 0, 0], returning: [0, 0, 0], resurrecting: [0, 1, 0], dormant: [0, 0, -1] });
});
