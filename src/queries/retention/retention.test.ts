import { retentionRunner, runRetention } from '../runners/retention-runner';
import { ev, openHarness, persons, type Harness } from '../funnels/testing';

let h: Harness;
beforeAll(async () => {
  h = await openHarness();
});
afterAll(async () => {
  await h.close();
});

const PV = { id: '$pageview', type: 'events' };

async function retention(events: ReturnType<typeof ev>[], rf: Record<string, unknown>, extra: Record<string, unknown> = {}, project: Record<string, unknown> = {}) {
  const ids = [...new Set(events.map((e) => e.distinct_id))];
  const pid = await h.load({ persons: persons(...ids), events });
  return h.run(
    retentionRunner,
    { kind: 'RetentionQuery', dateRange: { date_to: '2024-01-07' }, retentionFilter: { totalIntervals: 7, targetEntity: PV, returningEntity: PV, ...rf }, ...extra },
    pid,
    project as any,
  );
}
const grid = (r: any) => (r.results as any[]).map((row) => row.values.map((v: any) => v.count));

const day = (d: number, hour = 10) => `2024-01-${String(d).padStart(2, '0')}T${String(hour).padStart(2, '0')}:00:00Z`;

describe('recurring (default)', () => {
  const events = [
    ev('a', '$pageview', day(1)),
    ev('a', '$pageview', day(2)),
    ev('a', '$pageview', day(4)),
    ev('b', '$pageview', day(1, 9)),
    ev('b', '$pageview', day(1, 15)),
  ];
  it('an actor is in every cohort they were active in; interval 0 is the cohort size; rows are zero-padded', async () => {
    const r = await retention(events, { retentionType: 'retention_recurring' });
    expect(r.results).toHaveLength(7);
    expect(grid(r)).toEqual([
      [2, 1, 0, 1, 0, 0, 0],
      [1, 0, 1, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0],
      [1, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0],
    ]);
    expect(r.results[0]).toMatchObject({ label: 'Day 0', date: '2024-01-01T00:00:00Z' });
    expect(r.results[0].values[3]).toEqual({ count: 1, label: 'Day 3' });
  });

  it('a return inside the cohort interval itself does not count', async () => {
    const r = await retention([ev('b', '$pageview', day(1, 9)), ev('b', '$pageview', day(1, 15))], {});
    expect(grid(r)[0]).toEqual([1, 0, 0, 0, 0, 0, 0]);
  });

  it('cumulative counts an actor at every interval up to their last return', async () => {
    const r = await retention([ev('a', '$pageview', day(1)), ev('a', '$pageview', day(4))], { cumulative: true });
    expect(grid(r)[0]).toEqual([1, 1, 1, 1, 0, 0, 0]);
  });

  it('minimumOccurrences requires that many returning events in the interval', async () => {
    const r = await retention(
      [ev('a', '$pageview', day(1)), ev('a', '$pageview', day(2, 8)), ev('a', '$pageview', day(3, 8)), ev('a', '$pageview', day(3, 9))],
      { minimumOccurrences: 2 },
    );
    expect(grid(r)[0]).toEqual([1, 0, 1, 0, 0, 0, 0]);
  });
});

describe('regression: integer period indexes (DuckDB) at period edges', () => {
  // On DuckDB a uniform period's index is intDiv(dateDiff('second', from, ts), seconds): events at a period start,
  // a millisecond before one and a millisecond after one must land where the float form and the per-actor path put them.
  const edges = [
    ev('a', '$pageview', '2024-01-01T00:00:00.000Z'),
    ev('a', '$pageview', '2024-01-01T23:59:59.999Z'),
    ev('a', '$pageview', '2024-01-02T00:00:00.000Z'),
    ev('b', '$pageview', '2024-01-02T23:59:59.999Z'),
    ev('b', '$pageview', '2024-01-03T00:00:00.001Z'),
    ev('b', '$pageview', '2024-01-07T23:59:59.999Z'),
  ];
  it('Day periods', async () => {
    const r = await retention(edges, { retentionType: 'retention_recurring' });
    expect(grid(r)).toEqual([
      [1, 1, 0, 0, 0, 0, 0],
      [2, 1, 0, 0, 0, 1, 0],
      [1, 0, 0, 0, 1, 0, 0],
      [0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0],
      [1, 0, 0, 0, 0, 0, 0],
    ]);
    if (h.kind === 'duckdb') expect(r.hogql).toContain("intDiv(dateDiff('second'");
  });
  it('Week periods (first-time cohorts), weeks starting on Monday', async () => {
    const r = await retention(
      [...edges, ev('c', '$pageview', '2024-01-07T23:59:59.999Z'), ev('c', '$pageview', '2024-01-08T00:00:00.000Z'), ev('c', '$pageview', '2024-01-15T00:00:00.000Z')],
      { period: 'Week', totalIntervals: 3, retentionType: 'retention_first_time' },
      { dateRange: { date_from: '2024-01-01', date_to: '2024-01-21' } },
      { week_start_day: 1 },
    );
    expect(grid(r)).toEqual([
      [3, 1, 1],
      [0, 0, 0],
      [0, 0, 0],
    ]);
  });
});

describe('first-time cohorts', () => {
  const events = [
    ev('a', '$pageview', '2023-12-30T10:00:00Z'),
    ev('a', '$pageview', day(2)),
    ev('c', '$pageview', day(2)),
    ev('c', '$pageview', day(3)),
    ev('c', '$pageview', day(5)),
  ];
  it('retention_first_time: only the interval of the first-ever target event, looked up over all time', async () => {
    const r = await retention(events, { retentionType: 'retention_first_time' });
    expect(grid(r).slice(0, 4)).toEqual([
      [0, 0, 0, 0, 0, 0, 0],
      [1, 1, 0, 1, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0],
    ]);
  });

  it('recurring puts the same actors in several cohorts', async () => {
    const r = await retention(events, { retentionType: 'retention_recurring' });
    expect(grid(r).slice(0, 5).map((row) => row[0])).toEqual([0, 2, 1, 0, 1]);
  });

  // ClickHouse reads the anchors (all time before date_to) and the returns (inside the range) in one pass over the
  // events: a return before date_from, one at date_to's end, and an actor with returns but no anchor stay out.
  it('first-time cohorts with returns of another event: returns outside the range and actors without an anchor do not count', async () => {
    const r = await retention(
      [
        ev('a', 'signup', '2023-12-31T10:00:00Z'),
        ev('a', '$pageview', day(2)),
        ev('a', 'signup', day(2, 12)),
        ev('a', 'signup', day(4)),
        ev('a', 'signup', '2024-01-08T00:00:00Z'),
        ev('b', 'signup', day(3)),
        ev('b', 'signup', day(5)),
        ev('c', '$pageview', '2023-12-31T10:00:00Z'),
        ev('c', 'signup', day(3)),
      ],
      { retentionType: 'retention_first_time', returningEntity: { id: 'signup', type: 'events' } },
    );
    expect(grid(r).slice(0, 3)).toEqual([
      [0, 0, 0, 0, 0, 0, 0],
      [1, 0, 1, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0],
    ]);
    expect(grid(r).reduce((s, row) => s + row[0], 0)).toBe(1);
  });

  const pro = { ...PV, properties: [{ type: 'event', key: 'plan', operator: 'exact', value: 'pro' }] };
  const d = [ev('d', '$pageview', day(2), { plan: 'free' }), ev('d', '$pageview', day(3), { plan: 'pro' }), ev('d', '$pageview', day(4), { plan: 'free' })];
  it.each([
    ['retention_first_time uses the first event matching the filters', 'retention_first_time', [0, 0, 1]],
    ['retention_first_ever_occurrence needs the very first event to match', 'retention_first_ever_occurrence', [0, 0, 0]],
  ])('%s', async (_n, retentionType, sizes) => {
    const r = await retention(d, { retentionType, targetEntity: pro });
    expect(grid(r).slice(0, 3).map((row) => row[0])).toEqual(sizes);
  });
});

describe('entities, periods, filters and breakdowns', () => {
  it('different target and returning entities', async () => {
    const r = await retention(
      [ev('a', 'signup', day(1)), ev('a', '$pageview', day(2)), ev('a', 'purchase', day(3)), ev('b', 'purchase', day(2))],
      { targetEntity: { id: 'signup', type: 'events' }, returningEntity: { id: 'purchase', type: 'events' } },
    );
    expect(grid(r)[0]).toEqual([1, 0, 1, 0, 0, 0, 0]);
    expect(grid(r)[1][0]).toBe(0);
  });

  it('Week periods start on the project week start day', async () => {
    // 2024-01-07 is a Sunday. Weeks starting Sunday: 2023-12-31, 01-07; Monday: 01-01.
    const events = [ev('a', '$pageview', '2024-01-06T10:00:00Z'), ev('a', '$pageview', '2024-01-07T10:00:00Z')];
    const sunday = await retention(events, { period: 'Week', totalIntervals: 2 }, { dateRange: { date_to: '2024-01-07' } });
    expect(sunday.results.map((r: any) => r.date)).toEqual(['2023-12-31T00:00:00Z', '2024-01-07T00:00:00Z']);
    expect(grid(sunday)).toEqual([
      [1, 1],
      [1, 0],
    ]);
    expect(sunday.results[1].label).toBe('Week 1');
    const monday = await retention(events, { period: 'Week', totalIntervals: 2 }, { dateRange: { date_to: '2024-01-07' } }, { week_start_day: 1 });
    expect(monday.results.map((r: any) => r.date)).toEqual(['2023-12-25T00:00:00Z', '2024-01-01T00:00:00Z']);
    expect(grid(monday)).toEqual([
      [0, 0],
      [1, 0],
    ]);
  });

  it('Hour and Month periods', async () => {
    const hour = await retention(
      [ev('a', '$pageview', '2024-01-07T10:05:00Z'), ev('a', '$pageview', '2024-01-07T12:59:00Z')],
      { period: 'Hour', totalIntervals: 4 },
      { dateRange: { date_from: '2024-01-07T10:00:00', date_to: '2024-01-07T13:00:00' } },
    );
    expect(hour.results).toHaveLength(4);
    expect(hour.results[0].values.map((v: any) => v.label)).toEqual(['Hour 0', 'Hour 1', 'Hour 2', 'Hour 3']);
    expect(grid(hour)[0]).toEqual([1, 0, 1, 0]);
    const month = await retention(
      [ev('a', '$pageview', '2024-01-31T23:00:00Z'), ev('a', '$pageview', '2024-03-01T00:00:00Z')],
      { period: 'Month', totalIntervals: 3 },
      { dateRange: { date_from: '2024-01-01', date_to: '2024-03-15' } },
    );
    expect(month.results.map((r: any) => r.date)).toEqual(['2024-01-01T00:00:00Z', '2024-02-01T00:00:00Z', '2024-03-01T00:00:00Z']);
    expect(grid(month)[0]).toEqual([1, 0, 1]);
  });

  it('periods follow the project timezone', async () => {
    // 23:30 UTC on Jan 1 is Jan 2 in Berlin.
    const r = await retention([ev('a', '$pageview', '2024-01-01T23:30:00Z'), ev('a', '$pageview', '2024-01-02T23:30:00Z')], {}, {}, { timezone: 'Europe/Berlin' });
    expect(r.results[1].date).toBe('2024-01-02T00:00:00+01:00');
    expect(grid(r)[1]).toEqual([1, 1, 0, 0, 0, 0, 0]);
    expect(grid(r)[0][0]).toBe(0);
  });

  it('global property filters apply to start and return events', async () => {
    const r = await retention(
      [ev('a', '$pageview', day(1), { $browser: 'Chrome' }), ev('a', '$pageview', day(2), { $browser: 'Safari' }), ev('b', '$pageview', day(1), { $browser: 'Safari' })],
      {},
      { properties: [{ type: 'event', key: '$browser', operator: 'exact', value: 'Chrome' }] },
    );
    expect(grid(r)[0]).toEqual([1, 0, 0, 0, 0, 0, 0]);
  });

  it('breakdowns: rows per value ranked by cohort size, empty value is "", rest is Other', async () => {
    const r = await retention(
      [
        ev('a', '$pageview', day(1), { $browser: 'Chrome' }),
        ev('a', '$pageview', day(2), { $browser: 'Chrome' }),
        ev('b', '$pageview', day(1), { $browser: 'Chrome' }),
        ev('c', '$pageview', day(1)),
        ev('c', '$pageview', day(1)),
        ev('c', '$pageview', day(1)),
        ev('e', '$pageview', day(1), { $browser: 'Edge' }),
      ],
      { totalIntervals: 2 },
      { dateRange: { date_from: '2024-01-01', date_to: '2024-01-02' }, breakdownFilter: { breakdown: '$browser', breakdown_type: 'event', breakdown_limit: 2 } },
    );
    expect(r.results.map((x: any) => [x.breakdown_value, x.label, x.values.map((v: any) => v.count)])).toEqual([
      ['Chrome', 'Day 0', [2, 1]],
      ['Chrome', 'Day 1', [1, 0]],
      ['', 'Day 0', [1, 0]],
      ['', 'Day 1', [0, 0]],
      ['$$_posthog_breakdown_other_$$', 'Day 0', [1, 0]],
      ['$$_posthog_breakdown_other_$$', 'Day 1', [0, 0]],
    ]);
  });

  it('24-hour windows: one cohort per actor, returns measured from the first event', async () => {
    const r = await retention(
      [ev('a', '$pageview', day(1, 22)), ev('a', '$pageview', day(2, 20)), ev('a', '$pageview', day(3, 23))],
      { timeWindowMode: '24_hour_windows' },
    );
    // 22:00 → next day 20:00 is within 24h (window 0); day 3 23:00 is 49h later (window 2).
    expect(grid(r)[0]).toEqual([1, 0, 1, 0, 0, 0, 0]);
    expect(grid(r)[1][0]).toBe(0);
  });

  it('personless events count one actor per distinct id (PostHog gives them a person id derived from it)', async () => {
    const pl = { $process_person_profile: false };
    const events = [ev('a', '$pageview', day(1)), ev('a', '$pageview', day(2)), ev('g', '$pageview', day(1), pl), ev('g', '$pageview', day(3), pl)];
    const pid = await h.load({ persons: persons('a'), events });
    const node = { kind: 'RetentionQuery', dateRange: { date_to: '2024-01-07' }, retentionFilter: { totalIntervals: 7, targetEntity: PV, returningEntity: PV } };
    const r = await h.run(retentionRunner, node, pid);
    expect(grid(r)[0]).toEqual([2, 1, 1, 0, 0, 0, 0]);
  });

  it('400 for cumulative with 24-hour windows', async () => {
    await expect(retention([ev('a', '$pageview', day(1))], { timeWindowMode: '24_hour_windows', cumulative: true })).rejects.toMatchObject({ status: 400 });
  });

  it('default range without dateRange: totalIntervals rows ending today', async () => {
    const pid = await h.load({ persons: persons('z'), events: [ev('z', '$pageview', new Date().toISOString())] });
    const r = await h.run(retentionRunner, { kind: 'RetentionQuery', retentionFilter: { period: 'Day', totalIntervals: 7 } }, pid);
    expect(r.results).toHaveLength(7);
    expect(r.results[6].values[0].count).toBe(1);
  });
});

describe('the SQL grid agrees with the per-actor evaluation', () => {
  let seed = 11;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const events: ReturnType<typeof ev>[] = [];
  for (let p = 0; p < 60; p++)
    for (let i = 0, n = 1 + Math.floor(rnd() * 24); i < n; i++) {
      const march = rnd() < 0.4;
      const at = new Date(
        march
          ? Date.UTC(2024, 2, 27 + Math.floor(rnd() * 8), Math.floor(rnd() * 24), Math.floor(rnd() * 60))
          : Date.UTC(2023, 11, 25 + Math.floor(rnd() * 20), Math.floor(rnd() * 24), Math.floor(rnd() * 60)),
      ).toISOString();
      const props = { $browser: ['Chrome', 'Safari', 'Edge', ''][Math.floor(rnd() * 4)], plan: rnd() < 0.5 ? 'pro' : 'free' };
      // every seventh actor is personless: one actor per distinct id (the grid runs a second time for them)
      if (p % 7 === 3) Object.assign(props, { $process_person_profile: false });
      events.push(ev(`p${p}`, ['$pageview', '$pageview', 'signup', 'x'][Math.floor(rnd() * 4)], at, props));
    }
  let pid: number;
  beforeAll(async () => {
    pid = await h.load({ persons: persons(...new Set(events.filter((e) => e.properties?.$process_person_profile !== false).map((e) => e.distinct_id))), events });
  });
  const pro = { ...PV, properties: [{ type: 'event', key: 'plan', operator: 'exact', value: 'pro' }] };
  it.each([
    ['recurring Day', { period: 'Day' }, {}],
    ['first_time Week, Monday weeks', { period: 'Week', retentionType: 'retention_first_time' }, {}],
    ['first_ever filtered target', { retentionType: 'retention_first_ever_occurrence', targetEntity: pro }, {}],
    ['first_time filtered target, cumulative', { retentionType: 'retention_first_time', targetEntity: pro, cumulative: true }, {}],
    ['recurring, signup returns, min 2', { returningEntity: { id: null, type: 'events' }, minimumOccurrences: 2 }, {}],
    ['recurring Day by browser, limit 2', { period: 'Day' }, { breakdownFilter: { breakdown: '$browser', breakdown_limit: 2 } }],
    ['Hour', { period: 'Hour', totalIntervals: 24 }, { dateRange: { date_from: '2024-01-01T00:00:00', date_to: '2024-01-06T23:00:00' } }],
    ['Month', { period: 'Month', totalIntervals: 2 }, { dateRange: { date_from: '2023-12-01', date_to: '2024-01-31' } }],
    ['Day across DST (Berlin)', { period: 'Day' }, { dateRange: { date_from: '2024-03-27', date_to: '2024-04-03' } }, 'Europe/Berlin'],
    ['Hour across DST (Berlin)', { period: 'Hour', totalIntervals: 24 }, { dateRange: { date_from: '2024-03-30T12:00:00', date_to: '2024-03-31T12:00:00' } }, 'Europe/Berlin'],
    // (first-time cohorts: the period of the actor's first anchor event, computed from min(timestamp), and the value of
    // that event; anchors before date_from drop the actor)
    ['first_ever by browser, signup returns', { retentionType: 'retention_first_ever_occurrence', targetEntity: pro, returningEntity: { id: 'signup', type: 'events' } }, { breakdownFilter: { breakdown: '$browser' } }],
    ['first_time Day by browser, limit 2', { retentionType: 'retention_first_time' }, { breakdownFilter: { breakdown: '$browser', breakdown_limit: 2 } }],
    ['Week, first_time (New York)', { period: 'Week', retentionType: 'retention_first_time', totalIntervals: 3 }, { dateRange: { date_from: '2024-03-17', date_to: '2024-04-05' } }, 'America/New_York'],
    // option combinations (rsl-posthog-compat-3.test.ts pins small cases of each)
    ['recurring, min 2, cumulative', { minimumOccurrences: 2, cumulative: true }, {}],
    ['first_time, any event returns, min 2', { retentionType: 'retention_first_time', returningEntity: { id: null, type: 'events' }, minimumOccurrences: 2 }, {}],
    ['recurring cumulative by browser, limit 2', { cumulative: true }, { breakdownFilter: { breakdown: '$browser', breakdown_limit: 2 } }],
    ['first_ever, min 2, cumulative, Week', { period: 'Week', retentionType: 'retention_first_ever_occurrence', targetEntity: pro, minimumOccurrences: 2, cumulative: true, totalIntervals: 3 }, {}],
  ])('%s', async (_n, rf, extra, tz = 'UTC') => {
    const node = retentionRunner.schema.parse({
      kind: 'RetentionQuery',
      dateRange: { date_from: '2024-01-01', date_to: '2024-01-10' },
      retentionFilter: { totalIntervals: 7, targetEntity: PV, returningEntity: PV, ...rf },
      ...extra,
    });
    const ctxFor = async () => {
      const captured: any = {};
      await h.run({ ...retentionRunner, run: async (_x: unknown, ctx: unknown) => Object.assign(captured, { ctx }) } as any, node, pid, { week_start_day: 1, timezone: tz } as any);
      return captured.ctx;
    };
    const sql: any = await runRetention(node, await ctxFor());
    const general: any = await runRetention(node, await ctxFor(), { forceGeneral: true });
    expect(sql.results).toEqual(general.results);
    // (ClickHouse: the first-time cases without a breakdown read the events once; the generic join form agrees)
    const joined: any = await runRetention(node, await ctxFor(), { forceJoinGrid: true });
    expect(joined.results).toEqual(general.results);
    expect(general.results.some((r: any) => r.values.slice(1).some((v: any) => v.count > 0))).toBe(true);
  });
});
