import { createInsightTestDb, type InsightTestDb } from '../insights/testing';
import { setInsightsClock } from '../insights/date-range';
import { trendsRunner } from './trends-runner';

let db: InsightTestDb;
let restore: () => void;
beforeAll(async () => {
  db = await createInsightTestDb();
  restore = setInsightsClock(new Date('2024-01-08T12:00:00Z'));
  await db.load(1, {
    persons: [
      { distinct_ids: ['u1'], properties: { plan: 'pro', email: 'a@x.com' }, created_at: '2023-12-01T00:00:00Z' },
      { distinct_ids: ['u2'], properties: { plan: 'free' }, created_at: '2023-12-01T00:00:00Z' },
      { distinct_ids: ['u3'], properties: {}, created_at: '2023-12-01T00:00:00Z' },
    ],
    events: [
      { event: '$pageview', distinct_id: 'u1', timestamp: '2024-01-01T10:00:00Z', properties: { $browser: 'Chrome', price: 10 } },
      { event: '$pageview', distinct_id: 'u1', timestamp: '2024-01-01T11:00:00Z', properties: { $browser: 'Chrome', price: 20 } },
      { event: '$pageview', distinct_id: 'u2', timestamp: '2024-01-02T10:00:00Z', properties: { $browser: 'Safari', price: '5' } },
      { event: '$pageview', distinct_id: 'u3', timestamp: '2024-01-03T10:00:00Z', properties: { $browser: '' } },
      { event: 'signup', distinct_id: 'u2', timestamp: '2024-01-03T12:00:00Z', properties: {} },
      { event: '$pageview', distinct_id: 'u1', timestamp: '2024-01-08T09:00:00Z', properties: { $browser: 'Firefox' } },
    ],
  });
});
afterAll(async () => {
  restore();
  await db.close();
});

const trends = (q: Record<string, unknown>) => db.run(trendsRunner, { kind: 'TrendsQuery', ...q });

it('smoke: -7d daily counts', async () => {
  const r = await trends({ series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '-7d' } });
  console.log(JSON.stringify(r, null, 1).slice(0, 3000));
  expect(r.results[0].data).toEqual([1 + 1, 1, 1, 0, 0, 0, 0, 1].map((x, i) => (i === 0 ? 2 : x)));
});

import { stickinessRunner } from './stickiness-runner';
import { lifecycleRunner } from './lifecycle-runner';
it('smoke: stickiness + lifecycle', async () => {
  const s = await db.run(stickinessRunner, { kind: 'StickinessQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '-7d' } });
  console.log(JSON.stringify(s.results));
  const l = await db.run(lifecycleRunner, { kind: 'LifecycleQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '-7d' } });
  console.log(JSON.stringify(l.results.map((x: any) => [x.status, x.data])), l.hogql);
});
