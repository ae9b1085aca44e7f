/**
 * Session properties in insights, through the real runners (reference §1.4 `{type: 'session'}` → `session.<key>`,
 * §1.6 session breakdowns → `session.<key>`). Scenarios follow PostHog's suites: test_trends.py (session property
 * filters and `$session_duration` breakdowns), test_funnel.py (session filters and breakdowns), hogql/test/test_property.py
 * (`{type: 'session', key: '$session_duration', operator: 'gt', value: 10}` is `session.$session_duration > 10`) and
 * test_sessions_v2 (the field set). Expected values are computed by hand from the dataset below.
 */
import { createInsightTestDb, type InsightTestDb, useInsightsClock } from './testing';
import { BREAKDOWN_NULL } from './breakdown';
import { trendsRunner } from '../runners/trends-runner';
import { funnelsRunner } from '../runners/funnels-runner';
import { stickinessRunner } from '../runners/stickiness-runner';
import { lifecycleRunner } from '../runners/lifecycle-runner';
import { retentionRunner } from '../runners/retention-runner';
import { pathsRunner } from '../runners/paths-runner';

let db: InsightTestDb;
const freeze = useInsightsClock();

const P = 1; // the sessions below
const P_OTHER = 2; // another project reusing the session ids, with very different sessions
const P_LONG = 3; // a session much longer than PostHog's 3-day session buffer

const ev = (event: string, distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}) => ({ event, distinct_id, timestamp, properties });
const pv = (distinct_id: string, timestamp: string, session: string, url: string) => ev('$pageview', distinct_id, timestamp, { $session_id: session, $current_url: url });
const signUp = (distinct_id: string, timestamp: string, session?: string) => ev('sign up', distinct_id, timestamp, session ? { $session_id: session } : {});

/*
 * Sessions (duration = last event − first event, any event of the session):
 * - s0 (u4): starts 2019-12-31 23:59, before the range; entry /old; 1 pageview; 120 s; sign up on Jan 1.
 * - s1 (u1): Jan 1 10:00; entry /landing; 2 pageviews; 60 s; sign up.
 * - s2 (u2): Jan 2 09:00; entry /; 1 pageview; 5 s: a bounce; sign up.
 * - s3 (u1): Jan 3 12:00; entry /docs; 1 pageview; 300 s; sign up.
 * - u3 signs up on Jan 2 without a session.
 */
beforeAll(async () => {
  db = await createInsightTestDb();
  await db.load(P, {
    persons: [
      { distinct_ids: ['u1'], properties: { email: 'u1@a.com' }, created_at: '2020-01-01T00:00:00Z' },
      { distinct_ids: ['u2'], properties: { email: 'u2@a.com' }, created_at: '2020-01-01T00:00:00Z' },
      { distinct_ids: ['u3'], properties: { email: 'u3@a.com' }, created_at: '2020-01-01T00:00:00Z' },
      { distinct_ids: ['u4'], properties: { email: 'u4@a.com' }, created_at: '2020-01-01T00:00:00Z' },
    ],
    events: [
      pv('u4', '2019-12-31T23:59:00Z', 's0', 'https://a.com/old'),
      signUp('u4', '2020-01-01T00:01:00Z', 's0'),
      pv('u1', '2020-01-01T10:00:00Z', 's1', 'https://a.com/landing?utm_source=x'),
      pv('u1', '2020-01-01T10:00:30Z', 's1', 'https://a.com/pricing'),
      signUp('u1', '2020-01-01T10:01:00Z', 's1'),
      pv('u2', '2020-01-02T09:00:00Z', 's2', 'https://a.com/'),
      signUp('u2', '2020-01-02T09:00:05Z', 's2'),
      signUp('u3', '2020-01-02T15:00:00Z'),
      pv('u1', '2020-01-03T12:00:00Z', 's3', 'https://a.com/docs'),
      signUp('u1', '2020-01-03T12:05:00Z', 's3'),
    ],
  });
  // Same session ids in another project: long sessions with other entry pages. Nothing of it may show in project 1.
  await db.load(P_OTHER, {
    persons: [{ distinct_ids: ['u1'], properties: {} }],
    events: [
      pv('u1', '2019-12-31T00:00:00Z', 's1', 'https://secret.com/leak'),
      pv('u1', '2019-12-31T00:00:00Z', 's2', 'https://secret.com/leak'),
      signUp('u1', '2020-01-03T23:00:00Z', 's1'),
      signUp('u1', '2020-01-03T23:00:00Z', 's2'),
    ],
  });
  await db.load(P_LONG, {
    persons: [{ distinct_ids: ['u9'], properties: {} }],
    events: [ev('ping', 'u9', '2019-12-20T00:00:00Z', { $session_id: 'long' }), signUp('u9', '2020-01-02T00:00:00Z', 'long')],
  });
});

afterAll(async () => {
  await db.close();
});

beforeEach(() => {
  freeze('2020-01-04T13:00:00Z');
});

const SIGN_UP = { kind: 'EventsNode', event: 'sign up' };
const PAGEVIEW = { kind: 'EventsNode', event: '$pageview' };
const RANGE = { date_from: '2020-01-01', date_to: '2020-01-03' };
const session = (key: string, operator: string, value?: unknown) => ({ type: 'session', key, operator, ...(value !== undefined ? { value } : {}) });
const trends = (q: Record<string, unknown>, project = P) => db.run(trendsRunner, { kind: 'TrendsQuery', dateRange: RANGE, ...q }, project);
const daily = async (filter: unknown, project = P): Promise<number[]> => (await trends({ series: [SIGN_UP], properties: [filter] }, project)).results[0].data;

describe('session property filters in trends (test_trends.py session property filters)', () => {
  it.each<[string, unknown, number[]]>([
    // s0 (120 s) and s1 (60 s) on Jan 1; s3 (300 s) on Jan 3
    ['$session_duration gt 30 (numeric)', session('$session_duration', 'gt', 30), [2, 0, 1]],
    ['$session_duration gt "30" (numeric text)', session('$session_duration', 'gt', '30'), [2, 0, 1]],
    ['$session_duration lt 100', session('$session_duration', 'lt', 100), [1, 1, 0]],
    ['$session_duration gte 60', session('$session_duration', 'gte', 60), [2, 0, 1]],
    ['$session_duration lte 5', session('$session_duration', 'lte', 5), [0, 1, 0]],
    ['$session_duration between [50, 200]', session('$session_duration', 'between', [50, 200]), [2, 0, 0]],
    ['$session_duration not_between [50, 200]', session('$session_duration', 'not_between', [50, 200]), [0, 1, 1]],
    ['$session_duration exact 300', session('$session_duration', 'exact', 300), [0, 0, 1]],
    ['$session_duration exact ["5", "60"]', session('$session_duration', 'exact', ['5', '60']), [1, 1, 0]],
    // a nullable `!=` is true without a session (PostHog's ifNull(notEquals(…), 1)): u3's event counts
    ['$session_duration is_not 300', session('$session_duration', 'is_not', 300), [2, 2, 0]],
    ['$pageview_count gte 2', session('$pageview_count', 'gte', 2), [1, 0, 0]],
    ['$entry_current_url icontains landing', session('$entry_current_url', 'icontains', 'landing'), [1, 0, 0]],
    ['$entry_current_url not_icontains landing', session('$entry_current_url', 'not_icontains', 'landing'), [1, 2, 1]],
    ['$entry_pathname exact /docs', session('$entry_pathname', 'exact', '/docs'), [0, 0, 1]],
    ['$entry_pathname in [/, /old]', session('$entry_pathname', 'exact', ['/', '/old']), [1, 1, 0]],
    ['$entry_current_url regex ^https://a\\.com/(old|docs)$', session('$entry_current_url', 'regex', '^https://a\\.com/(old|docs)$'), [1, 0, 1]],
    ['$exit_current_url exact …/pricing', session('$exit_current_url', 'exact', 'https://a.com/pricing'), [1, 0, 0]],
    ['$end_current_url (the v2 name) exact …/pricing', session('$end_current_url', 'exact', 'https://a.com/pricing'), [1, 0, 0]],
    ['$is_bounce exact true', session('$is_bounce', 'exact', 'true'), [0, 1, 0]],
    ['$is_bounce exact false', session('$is_bounce', 'exact', false), [2, 0, 1]],
    ['$session_duration is_set', session('$session_duration', 'is_set'), [2, 1, 1]],
    ['$session_duration is_not_set: events without a session', session('$session_duration', 'is_not_set'), [0, 1, 0]],
    ['$start_timestamp is_date_before 2020-01-01', session('$start_timestamp', 'is_date_before', '2020-01-01'), [1, 0, 0]],
    ['$start_timestamp is_date_after 2020-01-02 12:00:00', session('$start_timestamp', 'is_date_after', '2020-01-02 12:00:00'), [0, 0, 1]],
  ])('%s', async (_name, filter, expected) => {
    expect(await daily(filter)).toEqual(expected);
  });

  it('a session filter in a series and in a property group (AND/OR)', async () => {
    const r = await trends({ series: [{ ...SIGN_UP, properties: [session('$session_duration', 'gt', 100)] }] });
    expect(r.results[0].data).toEqual([1, 0, 1]);
    const group = {
      type: 'OR',
      values: [{ type: 'AND', values: [session('$entry_pathname', 'exact', '/'), session('$is_bounce', 'exact', 'true')] }, session('$session_duration', 'gt', 250)],
    };
    expect((await trends({ series: [SIGN_UP], properties: group })).results[0].data).toEqual([0, 1, 1]);
  });

  it('reads the sessions of its own project only', async () => {
    // project 2's s1/s2 started on Dec 31 at /leak and last days: no project-1 event sees them
    expect(await daily(session('$entry_pathname', 'exact', '/leak'))).toEqual([0, 0, 0]);
    expect(await daily(session('$session_duration', 'gt', 3600))).toEqual([0, 0, 0]);
    // and the other way round: project 2 sees its own sessions
    expect(await daily(session('$entry_pathname', 'exact', '/leak'), P_OTHER)).toEqual([0, 0, 2]);
  });

  it('a session started before date_from is read whole (its first event is before the range)', async () => {
    expect(await daily(session('$start_timestamp', 'is_date_before', '2020-01-01'))).toEqual([1, 0, 0]);
    expect(await daily(session('$session_duration', 'exact', 120))).toEqual([1, 0, 0]);
  });

  it('the sessions are read from the events of the range ± 3 days (PostHog’s session buffer), not from all of the project’s', async () => {
    // 'long' began on Dec 20, 13 days before its sign up: past the buffer, so only its events from Dec 29 on are read
    // (PostHog leaves a session that began before the buffer out altogether: the same answer for this filter)
    expect(await daily(session('$session_duration', 'gt', 86_400), P_LONG)).toEqual([0, 0, 0]);
    expect(await daily(session('$session_duration', 'exact', 0), P_LONG)).toEqual([0, 1, 0]);
  });

  it('works with dau and unique_session math', async () => {
    const r = await trends({
      series: [
        { ...SIGN_UP, math: 'dau' },
        { ...SIGN_UP, math: 'unique_session' },
      ],
      properties: [session('$session_duration', 'gt', 30)],
      interval: 'week',
      trendsFilter: { display: 'ActionsTable' },
    });
    expect(r.results.map((x: any) => x.aggregated_value)).toEqual([2, 3]);
  });

  it.each<[string, unknown, string]>([
    ['an unknown session property', session('$nope', 'exact', 'x'), 'Unknown session property "$nope"'],
    ['an event property name', session('$browser', 'exact', 'x'), 'Unknown session property "$browser"'],
  ])('%s is a 400 naming the key', async (_name, filter, message) => {
    await expect(trends({ series: [SIGN_UP], properties: [filter] })).rejects.toMatchObject({ status: 400, type: 'validation_error', code: 'invalid_input', attr: 'properties', message: expect.stringContaining(message) });
  });
});

describe('session filters in action steps', () => {
  const step = (properties: unknown[]) => ({ event: 'sign up', properties, selector: null, tag_name: null, text: null, text_matching: null, href: null, href_matching: null, url: null, url_matching: null });
  beforeAll(() => {
    db.actions = {
      liveActions: async (projectId: number, ids: number[]) =>
        new Map(
          projectId === P && ids.includes(1)
            ? [[1, { id: 1, name: 'Long-session sign ups', steps: [step([session('$session_duration', 'gt', 100)]), step([session('$entry_pathname', 'exact', '/')])] }]]
            : [],
        ),
    };
  });
  afterAll(() => {
    db.actions = undefined;
  });

  it('an action whose steps filter on session properties (OR of its steps)', async () => {
    const r = await trends({ series: [{ kind: 'ActionsNode', id: 1 }] });
    // s0 (120 s) on Jan 1, s2 (entry /) on Jan 2, s3 (300 s) on Jan 3
    expect(r.results[0]).toMatchObject({ label: 'Long-session sign ups', data: [1, 1, 1] });
  });
});

describe('session breakdowns in trends (breakdown_type: session)', () => {
  const values = (r: any) => r.results.map((x: any) => [x.breakdown_value, x.data]);

  it('breaks down by $entry_pathname; events without a session are the null value', async () => {
    const r = await trends({ series: [SIGN_UP], breakdownFilter: { breakdown_type: 'session', breakdown: '$entry_pathname' } });
    expect(values(r)).toEqual([
      ['/docs', [0, 0, 1]],
      ['/landing', [1, 0, 0]],
      ['/old', [1, 0, 0]],
      ['/', [0, 1, 0]],
      [BREAKDOWN_NULL, [0, 1, 0]],
    ].sort((a: any, b: any) => (a[0] === BREAKDOWN_NULL ? 1 : b[0] === BREAKDOWN_NULL ? -1 : a[0] < b[0] ? -1 : 1)));
    expect(r.results[0]).toMatchObject({ breakdown_value: '/', label: '/' });
  });

  it('breakdowns: [{type: session}] with an event property (multi-breakdown)', async () => {
    const r = await trends({
      series: [PAGEVIEW],
      breakdownFilter: {
        breakdowns: [
          { type: 'session', property: '$pageview_count' },
          { type: 'event', property: '$current_url' },
        ],
      },
    });
    expect(values(r)).toEqual([
      [['1', 'https://a.com/'], [0, 1, 0]],
      [['1', 'https://a.com/docs'], [0, 0, 1]],
      [['2', 'https://a.com/landing?utm_source=x'], [1, 0, 0]],
      [['2', 'https://a.com/pricing'], [1, 0, 0]],
    ]);
  });

  it('$session_duration breaks down by its value, and into bins with breakdown_histogram_bin_count', async () => {
    const plain = await trends({
      series: [SIGN_UP],
      breakdownFilter: { breakdown_type: 'session', breakdown: '$session_duration' },
      trendsFilter: { display: 'ActionsTable' },
    });
    expect(plain.results.map((x: any) => [x.breakdown_value, x.aggregated_value])).toEqual([
      ['120', 1],
      ['300', 1],
      ['5', 1],
      ['60', 1],
      [BREAKDOWN_NULL, 1],
    ]);
    // durations 120, 60, 5, 300: split at their median, 90 (PostHog's bins are quantiles of the values)
    const binned = await trends({
      series: [SIGN_UP],
      breakdownFilter: { breakdown_type: 'session', breakdown: '$session_duration', breakdown_histogram_bin_count: 2 },
      trendsFilter: { display: 'ActionsTable' },
    });
    // (an event without a session duration is PostHog's '["",""]', the bins' multiIf else branch: an ordinary value)
    expect(binned.results.map((x: any) => [x.breakdown_value, x.aggregated_value])).toEqual([
      ['[5.0,90.0]', 2],
      ['[90.0,300.01]', 2],
      ['["",""]', 1],
    ]);
  });

  it('a session breakdown with a session filter', async () => {
    const r = await trends({
      series: [SIGN_UP],
      properties: [session('$session_duration', 'gt', 30)],
      breakdownFilter: { breakdown_type: 'session', breakdown: '$entry_pathname' },
      trendsFilter: { display: 'ActionsTable' },
    });
    expect(r.results.map((x: any) => [x.breakdown_value, x.aggregated_value])).toEqual([
      ['/docs', 1],
      ['/landing', 1],
      ['/old', 1],
    ]);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['breakdown', { breakdown_type: 'session', breakdown: '$nope' }, 'Unknown session property "$nope"'],
    ['breakdowns', { breakdowns: [{ type: 'session', property: 'nope' }] }, 'Unknown session property "nope"'],
  ])('an unknown session property in %s is a 400', async (_n, breakdownFilter, message) => {
    await expect(trends({ series: [SIGN_UP], breakdownFilter })).rejects.toMatchObject({ status: 400, type: 'validation_error', message: expect.stringContaining(message) });
  });
});

describe('session properties in funnels (test_funnel.py)', () => {
  const funnel = (q: Record<string, unknown>) =>
    db.run(funnelsRunner, { kind: 'FunnelsQuery', series: [PAGEVIEW, SIGN_UP], dateRange: { date_from: '2019-12-31', date_to: '2020-01-03' }, ...q }, P);
  const counts = (r: any) => (r.results as any[]).map((s) => s.count);

  it('a global session filter keeps the steps of matching sessions', async () => {
    expect(counts(await funnel({}))).toEqual([3, 3]);
    // u2's only session lasted 5 s
    expect(counts(await funnel({ properties: [session('$session_duration', 'gt', 30)] }))).toEqual([2, 2]);
    // the sign up step of u1 must come from a session entered on /docs; u1's pageview at /landing still starts it
    expect(counts(await funnel({ series: [PAGEVIEW, { ...SIGN_UP, properties: [session('$entry_pathname', 'exact', '/docs')] }] }))).toEqual([3, 1]);
  });

  it('breaks down by a session property', async () => {
    const r = await funnel({ breakdownFilter: { breakdown_type: 'session', breakdown: '$is_bounce' } });
    const rows = (r.results as any[][]).map((steps) => [steps[0].breakdown_value, steps.map((s) => s.count)]);
    // $is_bounce is UInt8 (PostHog's `not(...)`): its text is '0' / '1'
    expect(rows).toEqual([
      [['0'], [2, 2]],
      [['1'], [1, 1]],
    ]);
  });
});

describe('session filters in stickiness, lifecycle, retention and paths', () => {
  it('stickiness counts the days with matching events', async () => {
    const r = await db.run(
      stickinessRunner,
      { kind: 'StickinessQuery', series: [SIGN_UP], dateRange: RANGE, properties: [session('$session_duration', 'gt', 30)] },
      P,
    );
    // u1 on Jan 1 and Jan 3 (2 days), u4 on Jan 1 (1 day)
    expect(r.results[0].data).toEqual([1, 1, 0]);
  });

  it('lifecycle sees only the events of matching sessions', async () => {
    const r = await db.run(
      lifecycleRunner,
      { kind: 'LifecycleQuery', series: [SIGN_UP], dateRange: RANGE, properties: [session('$session_duration', 'gt', 30)] },
      P,
    );
    const rows = Object.fromEntries(r.results.map((x: any) => [x.status, x.data]));
    // new: u1 and u4 on Jan 1 (u2's 5 s session and u3's sessionless sign up do not match); both dormant on Jan 2;
    // u1 back on Jan 3
    expect(rows).toEqual({ new: [2, 0, 0], returning: [0, 0, 0], resurrecting: [0, 0, 1], dormant: [0, -2, 0] });
  });

  it('retention filters the events with a session property', async () => {
    const r = await db.run(
      retentionRunner,
      {
        kind: 'RetentionQuery',
        dateRange: { date_to: '2020-01-03' },
        properties: [session('$session_duration', 'gt', 30)],
        retentionFilter: { totalIntervals: 3, targetEntity: { id: 'sign up', type: 'events' }, returningEntity: { id: 'sign up', type: 'events' } },
      },
      P,
    );
    // Jan 1: u1 and u4; u1 returns on Jan 3 (day 2)
    expect(r.results[0].values.map((v: any) => v.count)).toEqual([2, 0, 1]);
  });

  it('paths follow only the events of matching sessions', async () => {
    const r = await db.run(
      pathsRunner,
      {
        kind: 'PathsQuery',
        dateRange: { date_from: '2019-12-31', date_to: '2020-01-03' },
        pathsFilter: { includeEventTypes: ['$pageview'] },
        properties: [session('$pageview_count', 'gte', 2)],
      },
      P,
    );
    expect(r.results.map((x: any) => [x.source, x.target, x.value])).toEqual([['1_https://a.com/landing?utm_source=x', '2_https://a.com/pricing', 1]]);
  });
});
