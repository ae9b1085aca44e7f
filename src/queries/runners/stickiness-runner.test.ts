import { createInsightTestDb, type InsightTestDb } from '../insights/testing';
import { setInsightsClock } from '../insights/date-range';
import { stickinessRunner } from './stickiness-runner';

/**
 * UTC, now = 2024-01-08 12:00, -7d = Jan 1..8. $pageview activity:
 *  a: Jan 1 (3 events), Jan 2, Jan 3 (+ Dec 30) | b: Jan 1, Jan 5 (2 events) | c: Jan 8
 *  | personless 'ghost': Jan 2 (an actor of its own, as PostHog derives a person id from the distinct id).
 *  signup: a Jan 4.
 */
let db: InsightTestDb;
let restore: () => void;
beforeAll(async () => {
  db = await createInsightTestDb();
  restore = setInsightsClock(new Date('2024-01-08T12:00:00Z'));
  const pv = (d: string, ts: string, properties: Record<string, unknown> = {}) => ({ event: '$pageview', distinct_id: d, timestamp: ts, properties });
  await db.load(1, {
    events: [
      pv('a', '2024-01-01T01:00:00Z'),
      pv('a', '2024-01-01T02:00:00Z'),
      pv('a', '2024-01-01T03:00:00Z'),
      pv('a', '2024-01-02T10:00:00Z'),
      pv('a', '2024-01-03T10:00:00Z'),
      pv('a', '2023-12-30T10:00:00Z'),
      pv('b', '2024-01-01T10:00:00Z'),
      pv('b', '2024-01-05T10:00:00Z'),
      pv('b', '2024-01-05T11:00:00Z'),
      pv('c', '2024-01-08T10:00:00Z'),
      pv('ghost', '2024-01-02T10:00:00Z', { $process_person_profile: false }),
      { event: 'signup', distinct_id: 'a', timestamp: '2024-01-04T10:00:00Z' },
    ],
  });
});
afterAll(async () => {
  restore();
  await db.close();
});

const PV = { kind: 'EventsNode', event: '$pageview' };
const sticky = (q: Record<string, unknown>) => db.run(stickinessRunner, { kind: 'StickinessQuery', series: [PV], dateRange: { date_from: '-7d' }, ...q });

it('actors per number of active days (N = 8 for -7d); labels and days', async () => {
  const r = await sticky({});
  expect(r.results).toHaveLength(1);
  expect(r.results[0]).toMatchObject({
    data: [2, 1, 1, 0, 0, 0, 0, 0],
    count: 4,
    days: [1, 2, 3, 4, 5, 6, 7, 8],
    label: '$pageview',
    labels: ['1 day', '2 days', '3 days', '4 days', '5 days', '6 days', '7 days', '8 days'],
  });
  expect(r.results[0].action).toMatchObject({ id: '$pageview', type: 'events', order: 0 });
});

it('cumulative: actors active in at least k days; count unchanged', async () => {
  const r = await sticky({ stickinessFilter: { computedAs: 'cumulative' } });
  expect(r.results[0]).toMatchObject({ data: [4, 2, 1, 0, 0, 0, 0, 0], count: 4 });
  expect(r.results[0].labels[0]).toBe('1 day or more');
});

it.each<[string, Record<string, unknown>, number[]]>([
  ['gte 2 events in a day', { operator: 'gte', value: 2 }, [2, 0, 0, 0, 0, 0, 0, 0]],
  ['exactly 1 event in a day', { operator: 'exact', value: 1 }, [3, 1, 0, 0, 0, 0, 0, 0]],
  ['lte 1 event in a day', { operator: 'lte', value: 1 }, [3, 1, 0, 0, 0, 0, 0, 0]],
])('stickinessCriteria %s', async (_n, criteria, data) => {
  const r = await sticky({ stickinessFilter: { stickinessCriteria: criteria } });
  expect(r.results[0].data).toEqual(data);
});

it('week interval', async () => {
  const r = await sticky({ interval: 'week' });
  // Weeks Dec 31 – Jan 6 and Jan 7 – 13: a, b, ghost in the first, c in the second.
  expect(r.results[0]).toMatchObject({ data: [4, 0], labels: ['1 week', '2 weeks'] });
});

it('intervalCount 2: pairs of days counted back from date_to (N = 4)', async () => {
  const r = await sticky({ intervalCount: 2 });
  // Pairs: {Jan 7,8} {Jan 5,6} {Jan 3,4} {Jan 1,2} → a: 2 pairs, b: 2 pairs, c and ghost: 1 pair.
  expect(r.results[0].data).toEqual([2, 2, 0, 0]);
});

it('compare: items interleaved per series', async () => {
  const r = await sticky({ series: [PV, { kind: 'EventsNode', event: 'signup' }], compareFilter: { compare: true } });
  expect(r.results.map((x: any) => [x.label, x.compare_label])).toEqual([
    ['$pageview', 'current'],
    ['$pageview', 'previous'],
    ['signup', 'current'],
    ['signup', 'previous'],
  ]);
  // Previous period Dec 25 – Jan 1: a on Dec 30 and Jan 1, b on Jan 1.
  expect(r.results[1].data.slice(0, 3)).toEqual([1, 1, 0]);
  expect(r.results[2].data[0]).toBe(1);
});

it('an ActionsNode (no action exists here) is dropped from the results; other series keep their order', async () => {
  expect((await sticky({ series: [{ kind: 'ActionsNode', id: 7 }] })).results).toEqual([]);
  const r = (await sticky({ series: [{ kind: 'ActionsNode', id: 7 }, PV] })).results as { action: { order: number } }[];
  expect(r.map((x) => x.action.order)).toEqual([1]);
});

it('no data → zeros', async () => {
  const r = await sticky({ series: [{ kind: 'EventsNode', event: 'nope' }] });
  expect(r.results[0]).toMatchObject({ data: [0, 0, 0, 0, 0, 0, 0, 0], count: 0 });
});

it('aggregation_group_type_index is not a stickiness field (400 from the schema)', () => {
  const r = stickinessRunner.schema.safeParse({ kind: 'StickinessQuery', series: [PV], aggregation_group_type_index: 0 });
  expect(r.success).toBe(false);
});
