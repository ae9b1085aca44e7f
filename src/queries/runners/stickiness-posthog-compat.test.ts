/**
 * A stickiness pass of its own over PostHog's test_stickiness_query_runner.py and the legacy
 * posthog/queries/test/test_stickiness.py: the scenarios the earlier passes (retention-lifecycle-stickiness-,
 * rsl-posthog-compat-{2,3}, stickiness-lifecycle-posthog-compat{,-2}, stickiness-runner) do not pin yet — compare's
 * previous period under a frozen clock (the `-7d` week kludge with no, a relative or an absolute date_to; `-1w`; by
 * week; by hour; a missing action), relative ranges (`-24h` by hour, `-1mStart`..`-1mEnd` by day) and their inclusive
 * bounds, months across a year, the 25-hour autumn DST day by hour, stickinessCriteria by week, over all events, over a
 * two-step action, over groups and over merged persons, intervalCount with computedAs cumulative, persons merged after
 * their events (test_stickiness_with_person_on_events_v2), ProductQL actors, and schema errors. Each title names the
 * PostHog test it follows; PostHog's fixtures are not reproduced exactly, so the expectations are derived from the
 * reference (§1.5, §1.7, §6) and the comments give the arithmetic. One data set per fixture, loaded once.
 */
import { actionRegistry, actionStep, createInsightTestDb, type InsightTestDb, type TestEvent, useInsightsClock } from '../insights/testing';
import { stickinessRunner } from './stickiness-runner';

let db: InsightTestDb;
const { source: actionSource, action } = actionRegistry(700);
const freeze = useInsightsClock('each');

const ev = (event: string, distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}): TestEvent => ({ event, distinct_id, timestamp, properties });
const PV = { kind: 'EventsNode', event: '$pageview' };
const zeros = (n: number, at: Record<number, number> = {}) => Array.from({ length: n }, (_, i) => at[i] ?? 0);
const unitLabels = (unit: string, n: number) => Array.from({ length: n }, (_, i) => `${i + 1} ${unit}${i === 0 ? '' : 's'}`);

/**
 * Ranges and clocks (UTC unless a test sets a timezone):
 *  a: $pageview Jan 6, Jan 13 (2020) | b: Jan 5 | c: Jan 14 12:00, Jan 19 11:30, Jan 19 12:30, Jan 20 10:00
 *  e: Jan 31 23:59:59, Feb 1 00:00:00, Feb 29 23:59:59, Mar 1 00:00:00 | f: 2019-11-20, 2019-12-05
 *  n1: Nov 1 2020 08:30Z and 09:30Z (01:30 PDT and 01:30 PST in US/Pacific) | n2: Nov 1 2020 10:30Z
 */
let main: number;
/** Criteria and actions, range Mon Jan 13 .. Sun Jan 19 2020 (weeks of Jan 12 and Jan 19):
 *  g: buy Jan 13 10:00, view Jan 13 11:00, view Jan 14, view Jan 19 10:00 and 11:00 | h: buy Jan 15, buy Jan 16 */
let shop: number;
/** test_stickiness.py `_create_multiple_people` (days from Jan 1 2020, 12:00): person1 day 0; person2 days 0, 1, 1;
 *  person3 days 0, 1, 2; person4 day 4; then person1 merged into person2 (after all their events). */
let merged: number;
/** Organizations, Jan 13 .. 19 2020: org:1 has g's and h's visits on Jan 17 and g's on Jan 18; org:2 h's on Jan 18. */
let orgs: number;

beforeAll(async () => {
  db = await createInsightTestDb();
  db.actions = actionSource;
  const pv = (d: string, t: string) => ev('$pageview', d, t);
  main = await db.project(
    ['a', 'b', 'c', 'e', 'f', 'n1', 'n2'].map((d) => ({ distinct_ids: [d] })),
    [
      pv('a', '2020-01-06T12:00:00Z'),
      pv('a', '2020-01-13T12:00:00Z'),
      pv('b', '2020-01-05T12:00:00Z'),
      pv('c', '2020-01-14T12:00:00Z'),
      pv('c', '2020-01-19T11:30:00Z'),
      pv('c', '2020-01-19T12:30:00Z'),
      pv('c', '2020-01-20T10:00:00Z'),
      pv('e', '2020-01-31T23:59:59Z'),
      pv('e', '2020-02-01T00:00:00Z'),
      pv('e', '2020-02-29T23:59:59Z'),
      pv('e', '2020-03-01T00:00:00Z'),
      pv('f', '2019-11-20T12:00:00Z'),
      pv('f', '2019-12-05T12:00:00Z'),
      pv('n1', '2020-11-01T08:30:00Z'),
      pv('n1', '2020-11-01T09:30:00Z'),
      pv('n2', '2020-11-01T10:30:00Z'),
    ],
  );
  shop = await db.project(
    [{ distinct_ids: ['g'] }, { distinct_ids: ['h'] }],
    [
      ev('buy', 'g', '2020-01-13T10:00:00Z'),
      ev('view', 'g', '2020-01-13T11:00:00Z'),
      ev('view', 'g', '2020-01-14T10:00:00Z'),
      ev('view', 'g', '2020-01-19T10:00:00Z'),
      ev('view', 'g', '2020-01-19T11:00:00Z'),
      ev('buy', 'h', '2020-01-15T10:00:00Z'),
      ev('buy', 'h', '2020-01-16T10:00:00Z'),
    ],
  );
  const movie = (d: string, day: number) => ev('watched movie', d, `2020-01-0${1 + day}T12:00:00Z`);
  merged = await db.project(
    [1, 2, 3, 4].map((i) => ({ distinct_ids: [`person${i}`], properties: { name: `person${i}` } })),
    [
      movie('person1', 0),
      movie('person2', 0),
      movie('person2', 1),
      movie('person2', 1),
      movie('person3', 0),
      movie('person3', 1),
      movie('person3', 2),
      movie('person4', 4),
      ev('$merge_dangerously', 'person2', '2020-01-09T12:00:00Z', { alias: 'person1' }),
    ],
  );
  orgs = await db.project(
    [{ distinct_ids: ['g'] }, { distinct_ids: ['h'] }],
    [
      ev('visit', 'g', '2020-01-17T10:00:00Z', { $group_0: 'org:1' }),
      ev('visit', 'h', '2020-01-17T11:00:00Z', { $group_0: 'org:1' }),
      ev('visit', 'g', '2020-01-18T10:00:00Z', { $group_0: 'org:1' }),
      ev('visit', 'h', '2020-01-18T11:00:00Z', { $group_0: 'org:2' }),
    ],
  );
});
afterAll(async () => {
  await db.close();
});

const run = (pid: number, q: Record<string, unknown>, proj: Record<string, unknown> = {}) =>
  db.run(stickinessRunner, { kind: 'StickinessQuery', series: [PV], ...q }, pid, proj as any);
const periods = (r: any) => (r.results as any[]).map((x) => [x.compare_label, x.count, x.data]);

describe('compare: the previous period (test_compare; reference §1.7)', () => {
  it('test_compare with date_from -7d: the previous period starts a day later (Jan 6 .. Jan 13, PostHog\'s week kludge)', async () => {
    freeze('2020-01-20T12:00:00Z');
    const r = await run(main, { dateRange: { date_from: '-7d' }, compareFilter: { compare: true } });
    // current Jan 13 .. 20: a on Jan 13, c on Jan 14, 19, 20. previous Jan 6 .. 13 (not Jan 5 .. 12): a on Jan 6 and 13,
    // b's Jan 5 is outside
    expect(periods(r)).toEqual([
      ['current', 2, zeros(8, { 0: 1, 2: 1 })],
      ['previous', 1, zeros(8, { 1: 1 })],
    ]);
    expect(r.results[1]).toMatchObject({ compare: true, days: [1, 2, 3, 4, 5, 6, 7, 8], labels: unitLabels('day', 8) });
  });

  it('test_compare with date_from -7d and date_to -1d: no kludge, the previous period is the 7 days before (Jan 6 .. Jan 12)', async () => {
    freeze('2020-01-20T12:00:00Z');
    const r = await run(main, { dateRange: { date_from: '-7d', date_to: '-1d' }, compareFilter: { compare: true } });
    // current Jan 13 .. 19: a on Jan 13, c on Jan 14 and 19 (Jan 20 is after date_to). previous: a on Jan 6
    expect(periods(r)).toEqual([
      ['current', 2, zeros(7, { 0: 1, 1: 1 })],
      ['previous', 1, zeros(7, { 0: 1 })],
    ]);
  });

  it('test_compare with date_from -7d and an absolute date_to: the kludge still applies (previous Jan 8 .. Jan 13)', async () => {
    freeze('2020-01-20T12:00:00Z');
    const r = await run(main, { dateRange: { date_from: '-7d', date_to: '2020-01-18' }, compareFilter: { compare: true } });
    // current Jan 13 .. 18: a on Jan 13, c on Jan 14. previous: 6 days ending a day late, with a's Jan 13 (Jan 7 .. 12 has none)
    expect(periods(r)).toEqual([
      ['current', 2, zeros(6, { 0: 2 })],
      ['previous', 1, zeros(6, { 0: 1 })],
    ]);
  });

  it('test_compare with date_from -1w: weeks are no days, so no kludge (Jan 5 .. Jan 12)', async () => {
    freeze('2020-01-20T12:00:00Z');
    const r = await run(main, { dateRange: { date_from: '-1w' }, compareFilter: { compare: true } });
    // -1w starts on Jan 13 like -7d, but its delta is in weeks: previous a on Jan 6, b on Jan 5
    expect(periods(r)).toEqual([
      ['current', 2, zeros(8, { 0: 1, 2: 1 })],
      ['previous', 2, zeros(8, { 0: 2 })],
    ]);
  });

  it('test_compare by week with date_from -7d: the kludge is for day intervals only (previous Jan 5 .. Jan 12, weeks of Jan 5 and 12)', async () => {
    freeze('2020-01-20T12:00:00Z');
    const r = await run(main, { interval: 'week', dateRange: { date_from: '-7d' }, compareFilter: { compare: true } });
    // current weeks of Jan 12 and 19: a in one, c in both. previous: a (Jan 6) and b (Jan 5) in the week of Jan 5
    expect(periods(r)).toEqual([
      ['current', 2, [1, 1]],
      ['previous', 2, [2, 0]],
    ]);
    expect(r.results[1].labels).toEqual(['1 week', '2 weeks']);
  });

  it('test_compare by hour with -24h: the previous period starts at the same hour of the day before (Jan 18 12:00 .. Jan 19 12:59)', async () => {
    freeze('2020-01-20T12:00:00Z');
    const r = await run(main, { interval: 'hour', dateRange: { date_from: '-24h' }, compareFilter: { compare: true } });
    // current: c at Jan 19 12:30 and Jan 20 10:00; previous: c at Jan 19 11:30 and 12:30 — two hours each time
    expect(periods(r)).toEqual([
      ['current', 1, zeros(25, { 1: 1 })],
      ['previous', 1, zeros(25, { 1: 1 })],
    ]);
  });

  it('test_filter_test_accounts with compare: the team filters apply to the previous period too', async () => {
    freeze('2020-01-20T12:00:00Z');
    const proj = { test_account_filters: [{ type: 'hogql', key: "distinct_id != 'a'" }] };
    const r = await run(main, { dateRange: { date_from: '-7d' }, compareFilter: { compare: true }, filterTestAccounts: true }, proj);
    // without a: c alone now (3 days), nobody in Jan 6 .. 13
    expect(periods(r)).toEqual([
      ['current', 1, zeros(8, { 2: 1 })],
      ['previous', 0, zeros(8)],
    ]);
  });

  it('test_compare with an action that does not exist: its current and previous items are both dropped', async () => {
    freeze('2020-01-20T12:00:00Z');
    const r = await run(main, { series: [{ kind: 'ActionsNode', id: 699 }, PV], dateRange: { date_from: '-7d' }, compareFilter: { compare: true } });
    expect(r.results.map((x: any) => [x.label, x.compare_label, x.action.order])).toEqual([
      ['$pageview', 'current', 1],
      ['$pageview', 'previous', 1],
    ]);
  });
});

describe('the intervals of a range (reference §1.5, §6.3)', () => {
  it('test_interval_hour_last_days with -24h: from the top of the hour a day ago to the end of the current hour (25 hours)', async () => {
    freeze('2020-01-20T12:00:00Z');
    const r = await run(main, { interval: 'hour', dateRange: { date_from: '-24h' } });
    // c: Jan 19 12:30 and Jan 20 10:00 (Jan 19 11:30 is before the hour a day ago)
    expect(r.results[0]).toMatchObject({ count: 1, data: zeros(25, { 1: 1 }), days: zeros(25).map((_, i) => i + 1), labels: unitLabels('hour', 25) });
  });

  it('yesterday (-1dStart .. -1dEnd) and today (dStart) by hour: 24 hours, and 13 up to the end of the current hour', async () => {
    freeze('2020-01-20T12:00:00Z');
    const yesterday = await run(main, { interval: 'hour', dateRange: { date_from: '-1dStart', date_to: '-1dEnd' } });
    // c at Jan 19 11:30 and 12:30
    expect(yesterday.results[0]).toMatchObject({ count: 1, data: zeros(24, { 1: 1 }), labels: unitLabels('hour', 24) });
    const today = await run(main, { interval: 'hour', dateRange: { date_from: 'dStart' } });
    // c at Jan 20 10:00
    expect(today.results[0]).toMatchObject({ count: 1, data: zeros(13, { 0: 1 }) });
  });

  it('-1mStart .. -1mEnd by day: the 29 days of February 2020; both bounds are inclusive, the instants around them are not', async () => {
    freeze('2020-03-15T12:00:00Z');
    const r = await run(main, { dateRange: { date_from: '-1mStart', date_to: '-1mEnd' } });
    // e: Feb 1 00:00:00 and Feb 29 23:59:59 count (2 days); Jan 31 23:59:59 and Mar 1 00:00:00 do not
    expect(r.results[0]).toMatchObject({ count: 1, data: zeros(29, { 1: 1 }), labels: unitLabels('day', 29) });
  });

  it('test_interval_month across a year: Nov 2019 .. Feb 2020 is 4 months', async () => {
    const r = await run(main, { interval: 'month', dateRange: { date_from: '2019-11-15', date_to: '2020-02-10' } });
    // a, b, c: January only; e: January and February (its Feb 29 event is after date_to); f: November and December
    expect(r.results[0]).toMatchObject({ count: 5, data: [3, 2, 0, 0], days: [1, 2, 3, 4], labels: ['1 month', '2 months', '3 months', '4 months'] });
  });

  it('test_timezones by hour on the autumn DST day (US/Pacific, Nov 1 2020): 25 hours, 01:30 PDT and 01:30 PST are two of them', async () => {
    const r = await run(main, { interval: 'hour', dateRange: { date_from: '2020-11-01T00:00:00', date_to: '2020-11-01T23:00:00' } }, { timezone: 'US/Pacific' });
    // dateDiff('hour', 00:00 PDT, 23:00 PST + 1 hour) counts real hours: 25
    expect(r.results[0]).toMatchObject({ count: 2, data: zeros(25, { 0: 1, 1: 1 }), labels: unitLabels('hour', 25) });
    expect(r.results[0].days).toHaveLength(25);
  });
});

describe('stickinessCriteria, actions and intervalCount (test_stickiness_query_runner.py; reference §6.3)', () => {
  const range = { dateRange: { date_from: '2020-01-13', date_to: '2020-01-19' } };
  const shopRun = (q: Record<string, unknown>) => run(shop, { ...range, ...q });

  it.each<[string, Record<string, unknown>, number[]]>([
    // weeks of Jan 12 (Jan 13 .. 18) and Jan 19. g: 3 events then 2; h: 2 then none
    ['gte 2 events in a week', { operator: 'gte', value: 2 }, [1, 1]],
    ['exactly 2 events in a week', { operator: 'exact', value: 2 }, [2, 0]],
    ['lte 1 event in a week', { operator: 'lte', value: 1 }, [0, 0]],
  ])('stickinessCriteria by week over all events: %s', async (_n, stickinessCriteria, data) => {
    const r = await shopRun({ interval: 'week', series: [{ kind: 'EventsNode', event: null }], stickinessFilter: { stickinessCriteria } });
    expect(r.results[0]).toMatchObject({ data, labels: ['1 week', '2 weeks'], label: 'All events' });
  });

  it('test_any_event with stickinessCriteria: the events of every name in a day count together', async () => {
    const all = { kind: 'EventsNode', event: null };
    expect((await shopRun({ series: [all] })).results[0]).toMatchObject({ count: 2, data: zeros(7, { 1: 1, 2: 1 }) });
    // g: buy + view on Jan 13 and two views on Jan 19; h never has two events in a day
    const r = await shopRun({ series: [all], stickinessFilter: { stickinessCriteria: { operator: 'gte', value: 2 } } });
    expect(r.results[0]).toMatchObject({ count: 1, data: zeros(7, { 1: 1 }) });
  });

  it('test_actions with two steps: an event of either step makes the day; custom_name is display-only', async () => {
    const id = action('Shopping', [actionStep('buy'), actionStep('view')]);
    const series = [{ kind: 'ActionsNode', id, custom_name: 'Shoppers' }];
    const r = await shopRun({ series });
    expect(r.results[0]).toMatchObject({ label: 'Shopping', count: 2, data: zeros(7, { 1: 1, 2: 1 }) });
    expect(r.results[0].action).toEqual({ order: 0, type: 'actions', name: 'Shopping', id, custom_name: 'Shoppers' });
    // the criteria count the events of both steps together (g's buy and view on Jan 13)
    const crit = await shopRun({ series, stickinessFilter: { stickinessCriteria: { operator: 'gte', value: 2 } } });
    expect(crit.results[0]).toMatchObject({ count: 1, data: zeros(7, { 1: 1 }) });
  });

  it('test_group_aggregations with stickinessCriteria: the events of a group are counted whoever sent them', async () => {
    const visit = { kind: 'EventsNode', event: 'visit' };
    const crit = { stickinessFilter: { stickinessCriteria: { operator: 'gte', value: 2 } } };
    const groups = [{ ...visit, math: 'unique_group', math_group_type_index: 0 }];
    expect((await run(orgs, { ...range, series: groups })).results[0]).toMatchObject({ count: 2, data: zeros(7, { 0: 1, 1: 1 }) });
    // org:1 has two visits on Jan 17 (g's and h's); no person has two visits in a day
    expect((await run(orgs, { ...range, series: groups, ...crit })).results[0]).toMatchObject({ count: 1, data: zeros(7, { 0: 1 }) });
    expect((await run(orgs, { ...range, series: [visit], ...crit })).results[0]).toMatchObject({ count: 0, data: zeros(7) });
  });

  it('intervalCount 2 with computedAs cumulative: pairs counted back from date_to, then actors in at least k pairs', async () => {
    // pairs {Jan 18, 19} {16, 17} {14, 15} {13}: g in three (13; 14; 19), h in two (15; 16)
    const series = [{ kind: 'EventsNode', event: null }];
    expect((await shopRun({ series, intervalCount: 2 })).results[0]).toMatchObject({ count: 2, data: [0, 1, 1, 0] });
    const r = await shopRun({ series, intervalCount: 2, stickinessFilter: { computedAs: 'cumulative' } });
    expect(r.results[0]).toMatchObject({ count: 2, data: [2, 2, 1, 0] });
  });
});

describe('actors: merged persons, ProductQL actors (posthog/queries/test/test_stickiness.py, test_stickiness_query_runner.py)', () => {
  it('test_stickiness_with_person_on_events_v2: person1 merged into person2 after their events is one actor', async () => {
    const r = await run(merged, { series: [{ kind: 'EventsNode', event: 'watched movie' }], dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' } });
    // person1+2: Jan 1 and 2; person3: Jan 1, 2, 3; person4: Jan 5
    expect(r.results[0]).toMatchObject({ count: 3, data: [1, 1, 1, 0, 0, 0, 0, 0] });
  });

  it('stickinessCriteria on merged persons: the events of both distinct ids in a day count together', async () => {
    const crit = { operator: 'gte', value: 2 };
    const r = await run(merged, {
      series: [{ kind: 'EventsNode', event: 'watched movie' }],
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
      stickinessFilter: { stickinessCriteria: crit },
    });
    // person1+2: two events on Jan 1 (one per distinct id) and two on Jan 2; person3 and person4 one a day
    expect(r.results[0]).toMatchObject({ count: 1, data: [0, 1, 0, 0, 0, 0, 0, 0] });
  });

  it('test_hogql_aggregations with person properties and session ids: equal values are one actor, a missing value is none', async () => {
    // x1 and x2 share an email and a session (Jan 13, Jan 14); x3 has no email, and one event whose $session_id is ''
    // (a value, as PostHog reads "": one more actor, on one day)
    const pid = await db.project(
      [{ distinct_ids: ['x1'], properties: { email: 'same@example.com' } }, { distinct_ids: ['x2'], properties: { email: 'same@example.com' } }, { distinct_ids: ['x3'] }],
      [
        ev('$pageview', 'x1', '2020-01-13T10:00:00Z', { $session_id: 's1' }),
        ev('$pageview', 'x2', '2020-01-14T10:00:00Z', { $session_id: 's1' }),
        ev('$pageview', 'x3', '2020-01-14T10:00:00Z'),
        ev('$pageview', 'x3', '2020-01-15T10:00:00Z', { $session_id: '' }),
      ],
    );
    const q = (math_hogql: string) => run(pid, { series: [{ ...PV, math: 'hogql', math_hogql }], dateRange: { date_from: '2020-01-13', date_to: '2020-01-19' } });
    expect((await q('person.properties.email')).results[0]).toMatchObject({ count: 1, data: zeros(7, { 1: 1 }) });
    expect((await q('properties.$session_id')).results[0]).toMatchObject({ count: 2, data: zeros(7, { 0: 1, 1: 1 }) });
    // persons again: x3 on two days, x1 and x2 on one each
    expect((await q('person_id')).results[0]).toMatchObject({ count: 3, data: zeros(7, { 0: 2, 1: 1 }) });
  });
});

describe('schema errors (PostHog\'s pydantic models are extra="forbid"; reference §1.1, §6.1)', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['a criteria operator other than gte/lte/exact', { stickinessCriteria: { operator: 'gt', value: 1 } }, 'operator'],
    ['criteria without a value', { stickinessCriteria: { operator: 'gte' } }, 'value'],
    ['an unknown computedAs', { computedAs: 'rolling' }, 'computedAs'],
    ['an unknown stickinessFilter key', { criteria: { operator: 'gte', value: 1 } }, ''],
  ])('%s is refused', (_n, stickinessFilter, last) => {
    const r = stickinessRunner.schema.safeParse({ kind: 'StickinessQuery', series: [PV], stickinessFilter });
    expect(r.success).toBe(false);
    const path = r.error!.issues[0].path;
    expect(path.slice(0, 1)).toEqual(['stickinessFilter']);
    if (last) expect(path[path.length - 1]).toBe(last);
  });
});
