/**
 * The sessions table, second batch (after sessions-posthog-compat.test.ts, which this does not repeat): PostHog's
 * posthog/hogql/database/schema/test/test_sessions_v2.py scenarios `test_select_star`, `test_select_event_sessions_star`,
 * `test_persons_and_sessions_on_events`, `test_bounce_rate` (a `$pageleave` counts towards the duration, not as an
 * interaction), `test_lcp` (`$vitals_lcp`), the counts and bounds of a session, and session properties of those fields in
 * trends. Data go through the real ingest path, queries through the real runners;
 * sessions-posthog-compat-2.clickhouse.test.ts runs this file on ClickHouse with the same expected results.
 */
import { ev, openHarness, type Harness } from '../queries/funnels/testing';
import { productqlRunner } from '../queries/runners/productql-runner';
import { trendsRunner } from '../queries/runners/trends-runner';
import { actorsRunner } from '../queries/runners/actors-runner';
import { eventsRunner } from '../queries/runners/events-runner';
import { setInsightsClock } from '../queries/insights/date-range';
import { BREAKDOWN_NULL } from '../queries/insights/breakdown';
import { shutdownParser } from './index';
import { SESSION_FIELDS } from './sessions';

let h: Harness;
let pid: number;
let restoreClock: () => void;

const P1 = '00000000-0000-4000-8000-00000000d701';
const P2 = '00000000-0000-4000-8000-00000000d702';
const at = (hh: number, mm = 0, ss = 0) => new Date(Date.UTC(2024, 1, 1, hh, mm, ss)).toISOString();
const e = (who: string, event: string, session: string, t: string, props: Record<string, unknown> = {}) => ev(who, event, t, { $session_id: session, ...props });

/*
 * One project, every session on 2024-02-01:
 * - b1 (d1): a pageview and a pageleave at the same time: one interaction, 0 s: a bounce;
 * - b2 (d1): a pageview and a pageleave 11 s later: one interaction but ≥ 10 s: not a bounce;
 * - b3 (d1): a pageview and a pageleave 9 s later: a bounce;
 * - b4 (d2): two pageviews 1 s apart: not a bounce;
 * - b5 (d2): one screen: a bounce (screens count like pageviews);
 * - b6 (d2): a custom event without a url, then a pageview: the entry url is the pageview's;
 * - l1 (d1): `$web_vitals` with an LCP, then a pageview with another: the first one;
 * - l2 (d2): an LCP on a pageview (any event may carry it);
 * - u1 (d1) / u2 (d2): utm_source source1 / source2 (test_persons_and_sessions_on_events);
 * - m1: an anonymous pageview, then the same visitor identified as d1.
 */
beforeAll(async () => {
  h = await openHarness();
  restoreClock = setInsightsClock(new Date('2024-02-03T00:00:00Z'));
  pid = await h.load({
    persons: [
      { id: P1, distinct_ids: ['d1'], properties: {} },
      { id: P2, distinct_ids: ['d2'], properties: {} },
    ],
    events: [
      e('d1', '$pageview', 'b1', at(10), { $current_url: 'https://example.com/1' }),
      e('d1', '$pageleave', 'b1', at(10), { $current_url: 'https://example.com/1' }),
      e('d1', '$pageview', 'b2', at(11), { $current_url: 'https://example.com/2' }),
      e('d1', '$pageleave', 'b2', at(11, 0, 11), { $current_url: 'https://example.com/2' }),
      e('d1', '$pageview', 'b3', at(12), { $current_url: 'https://example.com/3' }),
      e('d1', '$pageleave', 'b3', at(12, 0, 9), { $current_url: 'https://example.com/3' }),
      e('d2', '$pageview', 'b4', at(13), { $current_url: 'https://example.com/4a' }),
      e('d2', '$pageview', 'b4', at(13, 0, 1), { $current_url: 'https://example.com/4b' }),
      e('d2', '$screen', 'b5', at(14), { $screen_name: 'Home' }),
      e('d2', 'custom', 'b6', at(15)),
      e('d2', '$pageview', 'b6', at(15, 0, 5), { $current_url: 'https://example.com/6?x=1#y' }),
      e('d1', '$web_vitals', 'l1', at(16), { $current_url: 'https://example.com/l1', $web_vitals_LCP_value: 123.456 }),
      e('d1', '$pageview', 'l1', at(16, 0, 1), { $current_url: 'https://example.com/l1', $web_vitals_LCP_value: 789.012 }),
      e('d2', '$pageview', 'l2', at(17), { $current_url: 'https://example.com/l2', $web_vitals_LCP_value: 2.5 }),
      e('d1', '$pageview', 'u1', at(18), { $current_url: 'https://example.com/u1', utm_source: 'source1' }),
      e('d2', '$pageview', 'u2', at(18, 30), { $current_url: 'https://example.com/u2', utm_source: 'source2' }),
      e('anon-m', '$pageview', 'm1', at(19), { $current_url: 'https://example.com/m' }),
      e('d1', '$identify', 'm1', at(19, 0, 3), { $anon_distinct_id: 'anon-m' }),
      e('d1', '$pageview', 'm1', at(19, 0, 5), { $current_url: 'https://example.com/m2' }),
    ],
  });
});
afterAll(async () => {
  restoreClock?.();
  await h?.close();
  await shutdownParser();
});

const hogql = (query: string) => h.run(productqlRunner, { kind: 'HogQLQuery', query }, pid);
const rows = async (query: string): Promise<unknown[][]> => (await hogql(query)).results;

describe('test_sessions_v2.py, second batch', () => {
  it('test_select_star: select * from sessions reads one row per session', async () => {
    const r = await hogql("select * from sessions where session_id = 'b1'");
    expect(r.results).toHaveLength(1);
    expect(r.columns).toEqual(expect.arrayContaining(['session_id', '$start_timestamp', '$end_timestamp', '$session_duration', '$entry_current_url', '$channel_type', '$is_bounce']));
  });

  it('test_select_event_sessions_star: session.* on events reads the event’s sessions row', async () => {
    const star = await hogql("select session.* from events where session.session_id = 'b5'");
    expect(star.results).toHaveLength(1);
    const table = await hogql("select * from sessions where session_id = 'b5'");
    expect(star.columns).toEqual(table.columns);
    expect(star.results).toEqual(table.results);
    // the same through the events table's name
    expect(await rows("select events.session.* from events where $session_id = 'b5'")).toEqual(table.results);
  });

  it('test_persons_and_sessions_on_events: events.person_id beside session.$entry_utm_source', async () => {
    expect(await rows("select events.person_id, session.$entry_utm_source from events where $session_id = 'u1' or $session_id = 'u2' order by 2 asc")).toEqual([
      [P1, 'source1'],
      [P2, 'source2'],
    ]);
  });

  it('distinct_id is the session’s last distinct id (raw sessions v2: argMax), the identified one after an identify', async () => {
    expect(await rows("select distinct_id, $session_duration from sessions where session_id = 'm1'")).toEqual([['d1', 5]]);
  });

  it('test_bounce_rate: a pageleave lengthens the session but is no interaction; screens count like pageviews', async () => {
    expect(await rows("select session_id, $is_bounce, $session_duration from sessions where session_id like 'b%' order by session_id")).toEqual([
      ['b1', 1, 0],
      ['b2', 0, 11],
      ['b3', 1, 9],
      ['b4', 0, 1],
      ['b5', 1, 0],
      ['b6', 1, 5],
    ]);
  });

  it('test_lcp: $vitals_lcp is the first LCP value of the session, from any event; NULL without one', async () => {
    expect(await rows("select session_id, $vitals_lcp from sessions where session_id in ('b4', 'l1', 'l2') order by session_id")).toEqual([
      ['b4', null],
      ['l1', 123.456],
      ['l2', 2.5],
    ]);
    expect(await rows("select session.$vitals_lcp from events where event = '$pageview' and $session_id = 'l1'")).toEqual([[123.456]]);
  });

  it('pageview, autocapture and screen counts, and the first and last timestamps', async () => {
    expect(
      await rows("select session_id, $pageview_count, $autocapture_count, $screen_count, $page_screen_autocapture_count_up_to from sessions where session_id in ('b2', 'b4', 'b5', 'b6') order by session_id"),
    ).toEqual([
      ['b2', 1, 0, 0, 1],
      ['b4', 2, 0, 0, 2],
      ['b5', 0, 0, 1, 1],
      ['b6', 1, 0, 0, 1],
    ]);
    expect(await rows("select $start_timestamp = toDateTime('2024-02-01 15:00:00'), $end_timestamp = toDateTime('2024-02-01 15:00:05') from sessions where session_id = 'b6'")).toEqual([[1, 1]]);
  });

  it('the entry url is the first url of the session, skipping events without one; the pathname drops query and fragment', async () => {
    expect(await rows("select $entry_current_url, $entry_pathname, $end_current_url, $entry_hostname from sessions where session_id = 'b6'")).toEqual([
      ['https://example.com/6?x=1#y', '/6', 'https://example.com/6?x=1#y', 'example.com'],
    ]);
    expect(await rows("select $entry_current_url, $end_current_url from sessions where session_id = 'b4'")).toEqual([['https://example.com/4a', 'https://example.com/4b']]);
  });

  it('test_select_each_field: every field reads from the sessions table, and the same through events.session', async () => {
    for (const name of Object.keys(SESSION_FIELDS)) {
      const table = await rows(`select ${name} from sessions where session_id = 'b6'`);
      expect([name, table.length]).toEqual([name, 1]);
      // b6 has two events: each reads its session's row
      expect([name, await rows(`select session.${name} from events where $session_id = 'b6'`)]).toEqual([name, [table[0], table[0]]]);
    }
  });
});

describe('session properties of these fields in trends', () => {
  const RANGE = { date_from: '2024-02-01', date_to: '2024-02-01' };
  const trends = (q: Record<string, unknown>) => h.run(trendsRunner, { kind: 'TrendsQuery', dateRange: RANGE, trendsFilter: { display: 'ActionsTable' }, ...q }, pid);
  const PAGEVIEWS = { kind: 'EventsNode', event: '$pageview' };
  const total = async (properties: unknown[], math?: string) => (await trends({ series: [{ ...PAGEVIEWS, ...(math ? { math } : {}) }], properties })).results[0].aggregated_value;

  it('filters on $vitals_lcp (numeric), is_set and is_not_set', async () => {
    // l1's two events and l2's pageview
    expect(await total([{ type: 'session', key: '$vitals_lcp', operator: 'gt', value: 100 }])).toBe(1);
    expect(await total([{ type: 'session', key: '$vitals_lcp', operator: 'is_set' }], 'unique_session')).toBe(2);
    expect(await total([{ type: 'session', key: '$vitals_lcp', operator: 'is_not_set' }], 'unique_session')).toBe(8);
  });

  it('breaks pageviews down by $entry_pathname; sessions without a url are the null value', async () => {
    const r = await trends({ series: [{ kind: 'EventsNode', event: null }], breakdownFilter: { breakdown_type: 'session', breakdown: '$entry_pathname' } });
    const got = new Map(r.results.map((x: any) => [x.breakdown_value, x.aggregated_value]));
    expect(got.get('/4a')).toBe(2);
    expect(got.get('/6')).toBe(2);
    expect(got.get(BREAKDOWN_NULL)).toBe(1);
  });

  it('avg and max of $session_duration over sessions, not events', async () => {
    // pageview sessions: b1 0, b2 11, b3 9, b4 1, b6 5, l1 1, l2 0, u1 0, u2 0, m1 5 → avg 32/10 = 3.2
    const math = async (m: string) => (await trends({ series: [{ ...PAGEVIEWS, math: m, math_property: '$session_duration' }] })).results[0].aggregated_value;
    expect(await math('avg')).toBe(3.2);
    expect(await math('max')).toBe(11);
    expect(await math('min')).toBe(0);
  });

  it('a hogql filter and a hogql breakdown through the session lazy join', async () => {
    // b2 (11 s) and b3 (9 s) have one pageview each
    expect(await total([{ type: 'hogql', key: 'session.$session_duration >= 9' }])).toBe(2);
    // sessions with one pageview: b1, b2, b3, b6, l1, l2, u1, u2; with two: b4, m1
    const r = await trends({ series: [PAGEVIEWS], breakdownFilter: { breakdown_type: 'hogql', breakdown: 'session.$pageview_count' } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.aggregated_value])).toEqual([
      ['1', 8],
      ['2', 4],
    ]);
  });
});

/*
 * test_sessions_v1.py / test_sessions_v2.py `test_bounce_rate` with PostHog's own dataset (both bounce-rate modes answer
 * the same), and a session across midnight in a project timezone.
 */
describe('test_bounce_rate (PostHog’s dataset) and sessions in the project timezone', () => {
  let bounce: number;
  let tz: number;
  const NY = { timezone: 'America/New_York' };
  beforeAll(async () => {
    bounce = await h.load({
      persons: ['d1', 'd2', 'd3', 'd4', 'd5'].map((d) => ({ distinct_ids: [d], properties: {} })),
      events: [
        // a person with two sessions: two pageviews on two days, then one pageview
        e('d1', '$pageview', 's1a', '2023-12-02T00:00:00Z', { $current_url: 'https://example.com/1' }),
        e('d1', '$pageview', 's1a', '2023-12-03T00:00:00Z', { $current_url: 'https://example.com/2' }),
        e('d1', '$pageview', 's1b', '2023-12-12T00:00:00Z', { $current_url: 'https://example.com/3' }),
        // one pageview
        e('d2', '$pageview', 's2', '2023-12-11T00:00:00Z', { $current_url: 'https://example.com/4' }),
        // a pageview and an autocapture at the same time
        e('d3', '$pageview', 's3', '2023-12-11T00:00:00Z', { $current_url: 'https://example.com/5' }),
        e('d3', '$autocapture', 's3', '2023-12-11T00:00:00Z', { $current_url: 'https://example.com/5' }),
        // a short session with a pageleave
        e('d4', '$pageview', 's4', '2023-12-11T12:00:00Z', { $current_url: 'https://example.com/6' }),
        e('d4', '$pageleave', 's4', '2023-12-11T12:00:01Z', { $current_url: 'https://example.com/6' }),
        // a long session with a pageleave
        e('d5', '$pageview', 's5', '2023-12-11T12:00:00Z', { $current_url: 'https://example.com/7' }),
        e('d5', '$pageleave', 's5', '2023-12-11T12:00:11Z', { $current_url: 'https://example.com/7' }),
      ],
    });
    tz = await h.load({
      persons: [{ distinct_ids: ['n1'], properties: {} }],
      events: [
        // 23:30 on 29 Feb to 00:30 on 1 Mar in New York
        e('n1', '$pageview', 'mid', '2024-03-01T04:30:00Z', { $current_url: 'https://example.com/before' }),
        e('n1', '$pageview', 'mid', '2024-03-01T05:30:00Z', { $current_url: 'https://example.com/after' }),
      ],
    });
  });

  it('test_bounce_rate: select $is_bounce, session_id from sessions ORDER BY session_id', async () => {
    expect((await h.run(productqlRunner, { kind: 'HogQLQuery', query: 'select $is_bounce, session_id from sessions ORDER BY session_id' }, bounce)).results).toEqual([
      [0, 's1a'],
      [1, 's1b'],
      [1, 's2'],
      [0, 's3'],
      [1, 's4'],
      [0, 's5'],
    ]);
  });

  it.each(['count_pageviews', 'uniq_urls', 'uniq_page_screen_autocaptures'])(
    'test_bounce_rate with bounceRatePageViewMode %s (and sessionTableVersion v2): the same bounces on this dataset',
    async (bounceRatePageViewMode) => {
      const modifiers = { bounceRatePageViewMode, sessionTableVersion: 'v2' };
      const r = await h.run(productqlRunner, { kind: 'HogQLQuery', query: 'select $is_bounce, session_id from sessions ORDER BY session_id', modifiers }, bounce);
      expect(r.results).toEqual([
        [0, 's1a'],
        [1, 's1b'],
        [1, 's2'],
        [0, 's3'],
        [1, 's4'],
        [0, 's5'],
      ]);
    },
  );

  it('test_custom_bounce_rate_duration: the bounceRateDurationSeconds modifier is the shortest session that is no bounce', async () => {
    const bounces = async (modifiers?: Record<string, unknown>, query = 'select $is_bounce, session_id from sessions ORDER BY session_id') =>
      (await h.run(productqlRunner, { kind: 'HogQLQuery', query, ...(modifiers ? { modifiers } : {}) }, bounce)).results;
    // s4 lasts 1 s, s5 11 s (s1a has two pageviews, s3 a pageview and an autocapture: never bounces)
    expect(await bounces({ bounceRateDurationSeconds: 10 })).toEqual(await bounces());
    expect(await bounces({ bounceRateDurationSeconds: 30 })).toEqual([
      [0, 's1a'],
      [1, 's1b'],
      [1, 's2'],
      [0, 's3'],
      [1, 's4'],
      [1, 's5'],
    ]);
    expect(await bounces({ bounceRateDurationSeconds: 1 })).toEqual([
      [0, 's1a'],
      [1, 's1b'],
      [1, 's2'],
      [0, 's3'],
      [0, 's4'],
      [0, 's5'],
    ]);
    // through the events' lazy join too
    expect(await bounces({ bounceRateDurationSeconds: 11.5 }, "select distinct session.$is_bounce, $session_id from events where $session_id in ('s4', 's5') order by $session_id")).toEqual([
      [1, 's4'],
      [1, 's5'],
    ]);
    expect(await bounces({ bounceRateDurationSeconds: 11 }, "select distinct session.$is_bounce, $session_id from events where $session_id in ('s4', 's5') order by $session_id")).toEqual([
      [1, 's4'],
      [0, 's5'],
    ]);
  });

  it('the bounceRateDurationSeconds modifier of a TrendsQuery applies to its session filters and breakdowns (QueryRunner.modifiers)', async () => {
    const trend = async (extra: Record<string, unknown>) =>
      (
        await h.run(
          trendsRunner,
          {
            kind: 'TrendsQuery',
            series: [{ kind: 'EventsNode', event: '$pageview', math: 'unique_session' }],
            dateRange: { date_from: '2023-12-11', date_to: '2023-12-11' },
            properties: [{ type: 'session', key: '$is_bounce', operator: 'exact', value: 'true' }],
            ...extra,
          },
          bounce,
        )
      ).results.map((r: any) => r.count);
    // on 2023-12-11: s2 (a pageview), s3 (no bounce), s4 (1 s), s5 (11 s)
    expect(await trend({})).toEqual([2]);
    expect(await trend({ modifiers: { bounceRateDurationSeconds: 30 } })).toEqual([3]);
    expect(await trend({ modifiers: { bounceRateDurationSeconds: 1 } })).toEqual([1]);
    // a session-property breakdown: sessions by $is_bounce ('1' / '0')
    const byBounce = async (modifiers?: Record<string, unknown>) =>
      (
        await h.run(
          trendsRunner,
          {
            kind: 'TrendsQuery',
            series: [{ kind: 'EventsNode', event: '$pageview', math: 'unique_session' }],
            dateRange: { date_from: '2023-12-11', date_to: '2023-12-11' },
            breakdownFilter: { breakdown_type: 'session', breakdown: '$is_bounce' },
            ...(modifiers ? { modifiers } : {}),
          },
          bounce,
        )
      ).results
        .map((r: any) => [r.breakdown_value, r.count])
        .sort();
    expect(await byBounce()).toEqual([
      ['0', 2],
      ['1', 2],
    ]);
    expect(await byBounce({ bounceRateDurationSeconds: 30 })).toEqual([
      ['0', 1],
      ['1', 3],
    ]);
  });

  it('test_page_screen_autocapture_count_up_to: 2 for more than one, whichever of the three they are', async () => {
    const t = (s: number) => `2024-01-01T10:00:0${s}Z`;
    const counts = await h.load({
      persons: [{ distinct_ids: ['c1'], properties: {} }],
      events: [
        // two pageviews; one pageview; one screen; one autocapture; one of each; another event only
        e('c1', '$pageview', 'p1', t(0)),
        e('c1', '$pageview', 'p1', t(1)),
        e('c1', '$pageview', 'p2', t(0)),
        e('c1', '$screen', 'p3', t(0)),
        e('c1', '$autocapture', 'p4', t(0)),
        e('c1', '$pageview', 'p5', t(0)),
        e('c1', '$screen', 'p5', t(1)),
        e('c1', '$autocapture', 'p5', t(2)),
        e('c1', 'other event', 'p6', t(0)),
      ],
    });
    const r = await h.run(productqlRunner, { kind: 'HogQLQuery', query: 'select $page_screen_autocapture_count_up_to from sessions ORDER BY session_id' }, counts);
    expect(r.results).toEqual([[2], [1], [1], [1], [2], [0]]);
  });

  it('$start_timestamp and $end_timestamp read in the project timezone; the duration is unchanged', async () => {
    const r = await h.run(
      productqlRunner,
      { kind: 'HogQLQuery', query: 'select toString($start_timestamp), toString($end_timestamp), toString(toDate($start_timestamp)), $session_duration from sessions' },
      tz,
      NY,
    );
    // min/max of the events' DateTime64(6) timestamps: microseconds in the text
    expect(r.results).toEqual([['2024-02-29 23:30:00.000000', '2024-03-01 00:30:00.000000', '2024-02-29', 3600]]);
    const ev2 = await h.run(productqlRunner, { kind: 'HogQLQuery', query: 'select toString(session.$start_timestamp), toString(timestamp) from events order by timestamp' }, tz, NY);
    expect(ev2.results).toEqual([
      ['2024-02-29 23:30:00.000000', '2024-02-29 23:30:00.000000'],
      ['2024-02-29 23:30:00.000000', '2024-03-01 00:30:00.000000'],
    ]);
  });

  it('a breakdown by $start_timestamp is its text in the project timezone (DateTime64(6): microseconds)', async () => {
    const r = await h.run(
      trendsRunner,
      {
        kind: 'TrendsQuery',
        dateRange: { date_from: '2024-02-29', date_to: '2024-03-01' },
        series: [{ kind: 'EventsNode', event: '$pageview' }],
        breakdownFilter: { breakdown_type: 'session', breakdown: '$start_timestamp' },
      },
      tz,
      NY,
    );
    expect(r.results.map((x: any) => [x.breakdown_value, x.data])).toEqual([['2024-02-29 23:30:00.000000', [1, 1]]]);
  });

  it('a session across midnight counts on both local days with unique_session; a $start_timestamp filter compares in the project timezone', async () => {
    const run = (q: Record<string, unknown>) =>
      h.run(trendsRunner, { kind: 'TrendsQuery', dateRange: { date_from: '2024-02-29', date_to: '2024-03-01' }, series: [{ kind: 'EventsNode', event: '$pageview', math: 'unique_session' }], ...q }, tz, NY);
    expect((await run({})).results[0].data).toEqual([1, 1]);
    const before = await run({ properties: [{ type: 'session', key: '$start_timestamp', operator: 'is_date_before', value: '2024-03-01' }] });
    expect(before.results[0].data).toEqual([1, 1]);
    const after = await run({ properties: [{ type: 'session', key: '$start_timestamp', operator: 'is_date_after', value: '2024-03-01' }] });
    expect(after.results[0].data).toEqual([0, 0]);
  });
});

describe('the session join from events (hogql test_query.py) and session filters in the persons of an insight', () => {
  it('test_join_with_property_materialized_session_id / not_materialized: session.session_id of events filtered on properties.$session_id', async () => {
    expect(await rows("select session.session_id from events where properties.$session_id = 'b4'")).toEqual([['b4'], ['b4']]);
    expect(await rows("select session.id from events where properties.$session_id = 'b5'")).toEqual([['b5']]);
  });

  it('an EventsQuery selects and filters session fields of its events (the events table’s session columns)', async () => {
    const r = await h.run(
      eventsRunner,
      {
        kind: 'EventsQuery',
        select: ['event', 'session.$session_duration', 'session.$is_bounce'],
        properties: [{ type: 'session', key: '$session_duration', operator: 'gt', value: 10 }],
        after: '2024-02-01',
        before: '2024-02-02',
        orderBy: ['timestamp ASC'],
      },
      pid,
    );
    expect(r.columns).toEqual(['event', 'session.$session_duration', 'session.$is_bounce']);
    expect(r.results).toEqual([
      ['$pageview', 11, 0],
      ['$pageleave', 11, 0],
    ]);
  });

  it('a trends day’s persons under a session filter: only those with a matching session', async () => {
    const source = {
      kind: 'TrendsQuery',
      dateRange: { date_from: '2024-02-01', date_to: '2024-02-01' },
      series: [{ kind: 'EventsNode', event: '$pageview' }],
      properties: [{ type: 'session', key: '$session_duration', operator: 'gte', value: 9 }],
    };
    // b2 (11 s) and b3 (9 s) are d1's; d2's longest session lasts 5 s
    const r = await h.run(actorsRunner, { kind: 'ActorsQuery', select: ['actor'], source: { kind: 'InsightActorsQuery', source, day: '2024-02-01' } }, pid);
    expect(r.results.map((x: any[]) => x[0].id)).toEqual([P1]);
  });
});

describe("the session's urls skip an empty $current_url (raw sessions v2: nullIf(…, '') before argMin / argMax / groupUniqArray)", () => {
  let p: number;
  beforeAll(async () => {
    p = await h.load({
      persons: [{ distinct_ids: ['eu'], properties: {} }],
      events: [
        e('eu', '$pageview', 'eu1', '2024-02-01T10:00:00Z', { $current_url: '', $referring_domain: '' }),
        e('eu', '$pageview', 'eu1', '2024-02-01T10:00:01Z', { $current_url: 'https://a.example.com/x?y=1', $referring_domain: 'google.com' }),
        e('eu', '$pageview', 'eu1', '2024-02-01T10:00:02Z', { $current_url: '' }),
        e('eu', '$pageview', 'eu2', '2024-02-01T11:00:00Z', { $current_url: '' }),
      ],
    });
  });

  it('entry and end urls, pathnames and hostnames are of the events with a url; the entry referring domain is the first event’s', async () => {
    const q = 'select session_id, $entry_current_url, $end_current_url, $entry_pathname, $end_hostname, $urls, $num_uniq_urls, $entry_referring_domain from sessions order by session_id';
    expect((await h.run(productqlRunner, { kind: 'HogQLQuery', query: q }, p)).results).toEqual([
      ['eu1', 'https://a.example.com/x?y=1', 'https://a.example.com/x?y=1', '/x', 'a.example.com', ['https://a.example.com/x?y=1'], 1, null],
      ['eu2', null, null, null, null, [], 0, null],
    ]);
  });

  it('a trends breakdown by $entry_current_url: a session whose urls are all empty is the null value', async () => {
    const r = await h.run(
      trendsRunner,
      {
        kind: 'TrendsQuery',
        dateRange: { date_from: '2024-02-01', date_to: '2024-02-01' },
        series: [{ kind: 'EventsNode', event: '$pageview' }],
        breakdownFilter: { breakdown_type: 'session', breakdown: '$entry_current_url' },
        trendsFilter: { display: 'ActionsTable' },
      },
      p,
    );
    expect(r.results.map((x: any) => [x.breakdown_value, x.aggregated_value])).toEqual([
      ['https://a.example.com/x?y=1', 3],
      [BREAKDOWN_NULL, 1],
    ]);
  });
});

describe('$session_duration is dateDiff(second, min, max) of the session (second boundaries crossed, as ClickHouse counts), what $is_bounce compares with 10', () => {
  let p: number;
  beforeAll(async () => {
    p = await h.load({
      persons: [{ distinct_ids: ['sd'], properties: {} }],
      events: [
        // 0.2 s apart across a second boundary: 1
        e('sd', '$pageview', 'sd1', '2024-02-01T10:00:00.900Z', { $current_url: 'https://example.com/a' }),
        e('sd', '$pageleave', 'sd1', '2024-02-01T10:00:01.100Z', { $current_url: 'https://example.com/a' }),
        // 9.8 s within the same boundaries: 9, a bounce
        e('sd', '$pageview', 'sd2', '2024-02-01T11:00:00.100Z', { $current_url: 'https://example.com/b' }),
        e('sd', '$pageleave', 'sd2', '2024-02-01T11:00:09.900Z', { $current_url: 'https://example.com/b' }),
        // 9.2 s across ten boundaries: 10, no bounce
        e('sd', '$pageview', 'sd3', '2024-02-01T12:00:00.900Z', { $current_url: 'https://example.com/c' }),
        e('sd', '$pageleave', 'sd3', '2024-02-01T12:00:10.100Z', { $current_url: 'https://example.com/c' }),
      ],
    });
  });

  it('select session_id, $session_duration, $is_bounce from sessions', async () => {
    expect((await h.run(productqlRunner, { kind: 'HogQLQuery', query: 'select session_id, $session_duration, $is_bounce from sessions order by session_id' }, p)).results).toEqual([
      ['sd1', 1, 1],
      ['sd2', 9, 1],
      ['sd3', 10, 0],
    ]);
  });
});
