/**
 * Fixtures of PostHog's trends suites that more than one trends-posthog-compat file loads (each file picks its own
 * project ids). Test support only: not part of the build.
 */
import { ev, type TestEvent, type TestPerson } from '../insights/testing';

export type Fixture = { persons: TestPerson[]; events: TestEvent[] };

/** test_formula.py setUp: "session start" with a "session duration" per location, and "session end" (person blabla). */
export function formulaSetUp(): Fixture {
  const ss = (ts: string, duration: number, location: string, os: string, extra: Record<string, unknown> = {}) =>
    ev('session start', 'blabla', ts, { 'session duration': duration, location, $os: os, ...extra });
  return {
    persons: [{ distinct_ids: ['blabla'], properties: { $some_prop: 'some_val' } }],
    events: [
      ss('2020-01-02T13:01:01Z', 200, 'Paris', 'Mac', { $current_url: 'http://example.org' }),
      ss('2020-01-02T13:01:01Z', 300, 'Paris', 'Mac'),
      ss('2020-01-02T13:01:01Z', 400, 'London', 'Windows'),
      ss('2020-01-03T13:01:01Z', 400, 'London', 'Windows'),
      ss('2020-01-03T13:04:01Z', 500, 'London', 'Windows'),
      ev('session end', 'blabla', '2020-01-03T13:04:01Z', { 'session duration': 500, location: 'London', $os: 'Windows' }),
      ev('session end', 'blabla', '2020-01-03T13:04:01Z', { 'session duration': 500, location: 'Berlin', $os: 'Windows' }),
      ev('session end', 'blabla', '2020-01-03T13:04:01Z', { 'session duration': 800, location: 'Berlin', $os: 'Windows' }),
    ],
  };
}

/** test_trends.py _create_multiple_people: person1 once, person2 three times (twice on Jan 2), person3 on three days, person4 later. */
export function multiplePeople(): Fixture {
  const wm = (d: string, day: string, order: string) => ev('watched movie', d, `${day}T12:00:00Z`, { order });
  return {
    persons: ['person1', 'person2', 'person3', 'person4'].map((d) => ({ distinct_ids: [d], properties: { name: d } })),
    events: [
      wm('person1', '2020-01-01', '1'),
      wm('person2', '2020-01-01', '1'),
      wm('person2', '2020-01-02', '2'),
      wm('person2', '2020-01-02', '2'),
      wm('person3', '2020-01-01', '1'),
      wm('person3', '2020-01-02', '2'),
      wm('person3', '2020-01-03', '2'),
      wm('person4', '2020-01-05', '1'),
    ],
  };
}

/** test_trends_query_runner._create_test_events: the properties of p1..p4, which are on their events too. */
export const RUNNER_PEOPLE: Record<string, Record<string, unknown>> = {
  p1: { $browser: 'Chrome', prop: 10, bool_field: true, nullable_prop: '1.1' },
  p2: { $browser: 'Firefox', prop: 20, bool_field: false, nullable_prop: '2.0' },
  p3: { $browser: 'Edge', prop: 30, bool_field: true, nullable_prop: null },
  p4: { $browser: 'Safari', prop: 40, bool_field: false, nullable_prop: null },
};

/**
 * test_trends_query_runner._create_test_events' $pageview and $pageleave events of p1..p4 (at 12:00 on days of
 * January 2020); each person's events carry `props[distinct_id]`.
 */
export function runnerEvents(props: Record<string, Record<string, unknown>>): TestEvent[] {
  const at = (d: string, event: string, days: number[]) => days.map((day) => ev(event, d, `2020-01-${String(day).padStart(2, '0')}T12:00:00Z`, props[d]));
  return [
    ...at('p1', '$pageview', [11, 12, 13, 14, 15, 16, 17, 18, 19]),
    ...at('p1', '$pageleave', [11, 12, 13]),
    ...at('p2', '$pageview', [9, 12, 13, 15]),
    ...at('p2', '$pageleave', [16]),
    ...at('p3', '$pageview', [12]),
    ...at('p3', '$pageleave', [13]),
    ...at('p4', '$pageview', [15]),
    ...at('p4', '$pageleave', [16]),
  ];
}

/** test_retention_query_runner.py's `_date(day, month=0, hour=0)`: 2020-06-10 + `day` days, + `month` months (UTC, no zone suffix). */
export const retentionDate = (day: number, month = 0, hour = 0) => new Date(Date.UTC(2020, 5 + month, 10 + day, hour)).toISOString().slice(0, 19);

/** An event of `distinct_id` at `ts` (a `retentionDate`, read as UTC); a $pageview unless `event` says otherwise. */
export const retentionEvent = (distinct_id: string, ts: string, properties: Record<string, unknown> = {}, event = '$pageview'): TestEvent => ({
  event,
  distinct_id,
  timestamp: `${ts}Z`,
  properties,
});

/** One `retentionEvent` per [distinct id, ts] row, each with its own copy of `properties`. */
export const retentionEvents = (rows: [string, string][], event = '$pageview', properties: Record<string, unknown> = {}): TestEvent[] =>
  rows.map(([distinct_id, ts]) => retentionEvent(distinct_id, ts, structuredClone(properties), event));

/**
 * The layout of test_retention_query_runner.py's day tests (test_retention_default, test_day_interval): person1 (with
 * alias1) on days 0, 1, 2, 5 (and alias1 on day 5 at 09:00) and 6 ...
 */
export const PERSON1_DAY_ROWS: [string, string][] = [
  ['person1', retentionDate(0)],
  ['person1', retentionDate(1)],
  ['person1', retentionDate(2)],
  ['person1', retentionDate(5)],
  ['alias1', retentionDate(5, 0, 9)],
  ['person1', retentionDate(6)],
];
/** ... and person2 on days 1, 2, 3 and 6. */
export const PERSON2_DAY_ROWS: [string, string][] = [
  ['person2', retentionDate(1)],
  ['person2', retentionDate(2)],
  ['person2', retentionDate(3)],
  ['person2', retentionDate(6)],
];

/**
 * test_lifecycle_query_runner.py's `_create_events`: each person (named by its id; p1 with the email the test-account
 * filter looks at) created at its first event (freeze_time), its events `event`s with `props(id)`.
 */
export function lifecycleData(data: [string, string[]][], event = '$pageview', props: (id: string) => Record<string, unknown> = () => ({})): Fixture {
  const persons: TestPerson[] = data.map(([id, ts]) => ({ distinct_ids: [id], created_at: ts[0], properties: { name: id, ...(id === 'p1' ? { email: 'test@posthog.com' } : {}) } }));
  const events: TestEvent[] = data.flatMap(([id, ts]) => ts.map((t) => ({ event, distinct_id: id, timestamp: t, properties: props(id) })));
  return { persons, events };
}
/** test_lifecycle_trend's persons and their days. */
export const LIFECYCLE_DAYS: [string, string[]][] = [
  ['p1', ['2020-01-11T12:00:00Z', '2020-01-12T12:00:00Z', '2020-01-13T12:00:00Z', '2020-01-15T12:00:00Z', '2020-01-17T12:00:00Z', '2020-01-19T12:00:00Z']],
  ['p2', ['2020-01-09T12:00:00Z', '2020-01-12T12:00:00Z']],
  ['p3', ['2020-01-12T12:00:00Z']],
  ['p4', ['2020-01-15T12:00:00Z']],
];
/** test_lifecycle_trend's answer for Jan 12 .. Jan 19 (daily, LIFECYCLE_DAYS). */
export const LIFECYCLE_TREND = {
  new: [1, 0, 0, 1, 0, 0, 0, 0],
  returning: [1, 1, 0, 0, 0, 0, 0, 0],
  resurrecting: [1, 0, 0, 1, 0, 1, 0, 1],
  dormant: [0, -2, -1, 0, -2, 0, -1, 0],
};
/** test_lifecycle_trend's answer without p1: p2 resurrecting and p3 new on the 12th, both dormant on the 13th, p4 new on the 15th. */
export const LIFECYCLE_TREND_WITHOUT_P1 = {
  new: [1, 0, 0, 1, 0, 0, 0, 0],
  returning: [0, 0, 0, 0, 0, 0, 0, 0],
  resurrecting: [1, 0, 0, 0, 0, 0, 0, 0],
  dormant: [0, -2, 0, 0, -1, 0, 0, 0],
};
/** A lifecycle answer as status → data, the shape the expectations above take. */
export const byStatus = (r: { results: unknown[] }): Record<string, number[]> =>
  Object.fromEntries((r.results as { status: string; data: number[] }[]).map((x) => [x.status, x.data]));
/** test_lifecycle_trend_weeks' persons and their days. */
export const LIFECYCLE_WEEKS: [string, string[]][] = [
  ['p1', ['2020-02-01T12:00:00Z', '2020-02-05T12:00:00Z', '2020-02-10T12:00:00Z', '2020-02-15T12:00:00Z', '2020-02-27T12:00:00Z', '2020-03-02T12:00:00Z']],
  ['p2', ['2020-02-11T12:00:00Z', '2020-02-18T12:00:00Z']],
  ['p3', ['2020-02-12T12:00:00Z']],
  ['p4', ['2020-02-27T12:00:00Z']],
];

/** A RetentionQuery answer's counts: one row per cohort, one count per interval. */
export const retentionCounts = (r: any): number[][] => (r.results as any[]).map((x) => x.values.map((v: any) => v.count));

/** PostHog's `pad`: the old triangle format to the matrix format (every row has the same length, zero-filled). */
export function pad(rows: number[][]): number[][] {
  const max = Math.max(...rows.map((r) => r.length));
  return rows.map((r) => [...r, ...new Array(max - r.length).fill(0)]);
}
