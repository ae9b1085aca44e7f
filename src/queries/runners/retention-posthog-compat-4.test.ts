/**
 * Fourth pass over PostHog's test_retention_query_runner.py: the less obvious cases the earlier compat files
 * (retention-lifecycle-stickiness-posthog-compat, rsl-posthog-compat-2/-3, retention/retention.test.ts) do not pin —
 * input errors, `breakdowns` (the multi-breakdown form, first one used), the actors of a breakdown row, Hour and
 * Month labels, a single interval. Each title names the PostHog test (or the reference section) it follows.
 */
import { createInsightTestDb, type InsightTestDb, type TestPerson } from '../insights/testing';
import { retentionDate as _date, retentionEvent as ev, retentionCounts as counts } from './testing';
import { retentionRunner } from './retention-runner';
import { actorsRunner } from './actors-runner';

let db: InsightTestDb;
beforeAll(async () => {
  db = await createInsightTestDb();
});
afterAll(async () => {
  await db.close();
});

const project: InsightTestDb['project'] = (persons, events) => db.project(persons, events);

const retention = (pid: number, q: Record<string, unknown>, proj: Record<string, unknown> = {}) =>
  db.run(retentionRunner, { kind: 'RetentionQuery', retentionFilter: {}, ...q }, pid, proj as any);
async function actorsOf(pid: number, source: Record<string, unknown>): Promise<string[]> {
  const r = await db.run(actorsRunner, { kind: 'ActorsQuery', select: ['person'], source: { kind: 'InsightActorsQuery', ...source } }, pid);
  return (r.results as any[]).map((row) => [...row[0].distinct_ids].sort()[0]).sort();
}

describe('RetentionQuery, fourth pass (test_retention_query_runner.py)', () => {
  it('test_retention_invalid_properties: unparsable properties are a 400, not a 500', async () => {
    const pid = await project([{ distinct_ids: ['p1'] }], [ev('p1', _date(0))]);
    // (the query schema refuses it; the executor renders a schema error as a 400 validation error on its path)
    const bad = retentionRunner.schema.safeParse({ kind: 'RetentionQuery', properties: 'invalid_json', retentionFilter: { totalIntervals: 3 } });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0].path).toEqual(['properties']);
    const badOperator = { id: '$pageview', type: 'events', properties: [{ type: 'event', key: '$browser', operator: 'nope', value: 'x' }] };
    expect(retentionRunner.schema.safeParse({ kind: 'RetentionQuery', retentionFilter: { targetEntity: badOperator } }).success).toBe(false);
  });

  it('breakdownFilter.breakdowns (multiple breakdowns): retention uses the first one (reference §4.3)', async () => {
    const pid = await project(
      [{ distinct_ids: ['p1'] }, { distinct_ids: ['p2'] }],
      [
        ev('p1', _date(0), { $browser: 'Chrome', $os: 'Mac' }),
        ev('p1', _date(1), { $browser: 'Chrome', $os: 'Mac' }),
        ev('p2', _date(0), { $browser: 'Safari', $os: 'Mac' }),
      ],
    );
    const r = await retention(pid, {
      dateRange: { date_from: _date(0), date_to: _date(1) },
      retentionFilter: { totalIntervals: 2 },
      breakdownFilter: { breakdowns: [{ property: '$browser', type: 'event' }, { property: '$os', type: 'event' }] },
    });
    expect((r.results as any[]).map((x) => [x.breakdown_value, x.label, x.values.map((v: any) => v.count)])).toEqual([
      ['Chrome', 'Day 0', [1, 1]],
      ['Chrome', 'Day 1', [1, 0]],
      ['Safari', 'Day 0', [1, 0]],
      ['Safari', 'Day 1', [0, 0]],
    ]);
  });

  it('the actors of a breakdown row: InsightActorsQuery with `breakdown` keeps the actors of that value', async () => {
    const pid = await project(
      [{ distinct_ids: ['p1'] }, { distinct_ids: ['p2'] }, { distinct_ids: ['p3'] }],
      [ev('p1', _date(0), { $browser: 'Chrome' }), ev('p2', _date(0), { $browser: 'Safari' }), ev('p3', _date(0), { $browser: 'Chrome' }), ev('p3', _date(1))],
    );
    const source = {
      kind: 'RetentionQuery',
      dateRange: { date_from: _date(0), date_to: _date(1) },
      retentionFilter: { totalIntervals: 2 },
      breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
    };
    expect(await actorsOf(pid, { source, interval: 0, breakdown: 'Chrome' })).toEqual(['p1', 'p3']);
    expect(await actorsOf(pid, { source, interval: 0, breakdown: 'Safari' })).toEqual(['p2']);
    expect(await actorsOf(pid, { source, interval: 0 })).toEqual(['p1', 'p2', 'p3']);
  });

  it.each<[string, string, string[]]>([
    ['Hour', 'Hour', ['Hour 0', 'Hour 1', 'Hour 2']],
    ['Week', 'Week', ['Week 0', 'Week 1', 'Week 2']],
    ['Month', 'Month', ['Month 0', 'Month 1', 'Month 2']],
  ])('labels: %s periods are labelled "%s i" on rows and values', async (period, _p, labels) => {
    const pid = await project([{ distinct_ids: ['p1'] }], [ev('p1', _date(0))]);
    const r = await retention(pid, { dateRange: { date_to: _date(0) }, retentionFilter: { period, totalIntervals: 3 } });
    expect((r.results as any[]).map((x) => x.label)).toEqual(labels);
    expect((r.results as any[])[0].values.map((v: any) => v.label)).toEqual(labels);
  });

  it('totalIntervals 1: one cohort row (the date_to period) with its size only', async () => {
    const pid = await project([{ distinct_ids: ['p1'] }, { distinct_ids: ['p2'] }], [ev('p1', _date(0)), ev('p2', _date(0, 0, 5)), ev('p1', _date(-1))]);
    const r = await retention(pid, { dateRange: { date_to: _date(0) }, retentionFilter: { totalIntervals: 1 } });
    expect(counts(r)).toEqual([[2]]);
    expect((r.results as any[])[0].date).toMatch(/^2020-06-10T00:00:00/);
  });

  it('recurring: a return counts only after its cohort interval, and only events of the returning entity count (another event name is no return)', async () => {
    const pid = await project(
      [{ distinct_ids: ['p1'] }, { distinct_ids: ['p2'] }],
      [ev('p1', _date(0)), ev('p1', _date(2)), ev('p2', _date(1)), ev('p2', _date(0), {}, 'other')],
    );
    const r = await retention(pid, { dateRange: { date_from: _date(0), date_to: _date(2) }, retentionFilter: { totalIntervals: 3 } });
    expect(counts(r)).toEqual([
      [1, 0, 1],
      [1, 0, 0],
      [1, 0, 0],
    ]);
  });

  describe('24_hour_windows with minimumOccurrences and a breakdown (reference §4.3: t0 = first target event, units of 24 h from it)', () => {
    // a: t0 Jun 10 20:00 (C); returns 23 h later (window 0: no return), 25 h and 26 h later (window 1: two events)
    // b: t0 Jun 11 10:00 (S); returns 25 h later (window 1), 47 h and 47.5 h later (window 1 too)
    const events = [
      ev('a', '2020-06-10T20:00:00', { br: 'C' }),
      ev('a', '2020-06-11T19:00:00', { br: 'S' }),
      ev('a', '2020-06-11T21:00:00'),
      ev('a', '2020-06-11T22:00:00'),
      ev('b', '2020-06-11T10:00:00', { br: 'S' }),
      ev('b', '2020-06-12T11:00:00'),
      ev('b', '2020-06-13T09:00:00'),
      ev('b', '2020-06-13T09:30:00'),
    ];
    const base = { dateRange: { date_from: '2020-06-10', date_to: '2020-06-13' }, retentionFilter: { totalIntervals: 4, timeWindowMode: '24_hour_windows' } };
    let pid: number;
    beforeAll(async () => {
      pid = await project([{ distinct_ids: ['a'] }, { distinct_ids: ['b'] }], events);
    });

    it('each actor in one cohort (the window of its first event); a return 23 h later is still window 0', async () => {
      expect(counts(await retention(pid, base))).toEqual([
        [1, 1, 0, 0],
        [1, 1, 0, 0],
        [0, 0, 0, 0],
        [0, 0, 0, 0],
      ]);
    });

    it('minimumOccurrences counts the returning events of a 24-hour window, not of a calendar day', async () => {
      // window 1 of a holds 21:00 and 22:00 (19:00 is window 0); window 1 of b holds three: both kept at 2, a drops at 3
      const q = (m: number) => ({ ...base, retentionFilter: { ...base.retentionFilter, minimumOccurrences: m } });
      expect(counts(await retention(pid, q(2))).slice(0, 2)).toEqual([
        [1, 1, 0, 0],
        [1, 1, 0, 0],
      ]);
      expect(counts(await retention(pid, q(3))).slice(0, 2)).toEqual([
        [1, 0, 0, 0],
        [1, 1, 0, 0],
      ]);
    });

    it('a breakdown takes the value of the first event: a under C, b under S', async () => {
      const r = await retention(pid, { ...base, breakdownFilter: { breakdown: 'br', breakdown_type: 'event' } });
      expect((r.results as any[]).filter((x) => x.values[0].count).map((x) => [x.breakdown_value, x.label, x.values.map((v: any) => v.count)])).toEqual([
        ['C', 'Day 0', [1, 1, 0, 0]],
        ['S', 'Day 1', [1, 1, 0, 0]],
      ]);
    });
  });

  describe('retentionCustomBrackets combined with cumulative and 24_hour_windows (reference §4.2/§4.3)', () => {
    // a: Jun 10, 11 and 13 at 10:00; b: Jun 11 10:00 and Jun 13 11:00
    let pid: number;
    beforeAll(async () => {
      pid = await project(
        [{ distinct_ids: ['a'] }, { distinct_ids: ['b'] }],
        [ev('a', '2020-06-10T10:00:00'), ev('a', '2020-06-11T10:00:00'), ev('a', '2020-06-13T10:00:00'), ev('b', '2020-06-11T10:00:00'), ev('b', '2020-06-13T11:00:00')],
      );
    });
    const dateRange = { date_from: '2020-06-10', date_to: '2020-06-13' };
    const cells = (r: any) => (r.results as any[]).map((x) => x.values.map((v: any) => `${v.label}=${v.count}`).join(' '));

    it('brackets [1, 2]: "Day 1" then "Day 2-3"; a return two days later counts in the second bracket', async () => {
      expect(cells(await retention(pid, { dateRange, retentionFilter: { retentionCustomBrackets: [1, 2] } }))).toEqual([
        'Day 0=1 Day 1=1 Day 2-3=1',
        'Day 0=2 Day 1=0 Day 2-3=2',
        'Day 0=0 Day 1=0 Day 2-3=0',
        'Day 0=2 Day 1=0 Day 2-3=0',
      ]);
    });

    it('cumulative: an actor counted in a bracket is counted in every earlier bracket too', async () => {
      expect(cells(await retention(pid, { dateRange, retentionFilter: { retentionCustomBrackets: [1, 2], cumulative: true } }))[1]).toBe('Day 0=2 Day 1=2 Day 2-3=2');
    });

    it('24-hour windows: brackets group 24-hour units from each actor\'s first event (b: 49 h later is unit 2)', async () => {
      expect(cells(await retention(pid, { dateRange, retentionFilter: { retentionCustomBrackets: [2, 1], timeWindowMode: '24_hour_windows' } })).slice(0, 2)).toEqual([
        'Day 0=1 Day 1-2=1 Day 3=1',
        'Day 0=1 Day 1-2=1 Day 3=0',
      ]);
    });
  });

  describe('Hour periods: the three retention types in both window modes (reference §4.3)', () => {
    // a: first pro event 10 minutes before the range, again at 01:00; b: pro at 00:30, back (no plan) at 01:29 and 01:31;
    // c: first event free at 00:10, pro at 01:10, back at 02:20. Target: pageviews with plan = pro; returns: any pageview.
    let pid: number;
    beforeAll(async () => {
      pid = await project(
        [{ distinct_ids: ['a'] }, { distinct_ids: ['b'] }, { distinct_ids: ['c'] }],
        [
          ev('a', '2020-06-09T23:50:00', { plan: 'pro' }),
          ev('a', '2020-06-10T01:00:00', { plan: 'pro' }),
          ev('b', '2020-06-10T00:30:00', { plan: 'pro' }),
          ev('b', '2020-06-10T01:29:00'),
          ev('b', '2020-06-10T01:31:00'),
          ev('c', '2020-06-10T00:10:00', { plan: 'free' }),
          ev('c', '2020-06-10T01:10:00', { plan: 'pro' }),
          ev('c', '2020-06-10T02:20:00'),
        ],
      );
    });
    const pro = { id: '$pageview', type: 'events', properties: [{ type: 'event', key: 'plan', operator: 'exact', value: 'pro' }] };

    it.each<[string, string, number[][]]>([
      // hour 0: b (returns in hour 1); hour 1: a (no return) and c (returns in hour 2)
      ['retention_recurring', 'strict_calendar_dates', [[1, 1], [2, 1]]],
      // b: 01:29 is 59 minutes after its first event (unit 0), 01:31 is unit 1; c: 02:20 is 70 minutes after 01:10 (unit 1)
      ['retention_recurring', '24_hour_windows', [[1, 1], [2, 1]]],
      // a's first pro event is before the range: a is in no cohort
      ['retention_first_time', 'strict_calendar_dates', [[1, 1], [1, 1]]],
      ['retention_first_time', '24_hour_windows', [[1, 1], [1, 1]]],
      // c's very first pageview is free: c is in no cohort either
      ['retention_first_ever_occurrence', 'strict_calendar_dates', [[1, 1], [0, 0]]],
      ['retention_first_ever_occurrence', '24_hour_windows', [[1, 1], [0, 0]]],
    ])('%s, %s', async (retentionType, timeWindowMode, firstTwoRows) => {
      const r = await retention(pid, {
        dateRange: { date_from: '2020-06-10 00:00:00', date_to: '2020-06-10 03:00:00' },
        retentionFilter: { period: 'Hour', totalIntervals: 4, retentionType, timeWindowMode, targetEntity: pro },
      });
      expect(counts(r)).toEqual([...firstTwoRows.map((row) => [...row, 0, 0]), [0, 0, 0, 0], [0, 0, 0, 0]]);
    });
  });
});
