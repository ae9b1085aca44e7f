/**
 * Third pass over PostHog's paths suites (posthog/hogql_queries/insights/test/test_paths_query_runner.py and
 * test_paths_query_runner_ee.py): event types mixed in one person's timeline (pageviews, screens, custom and `$` events,
 * with inclusion and exclusion together), ProductQL path items with start and end points, and bad ProductQL items.
 * Expected values follow PostHog's semantics (reference §5.3); where PostHog's fixture is long, the data is a smaller
 * copy of its shape and the expectations are derived for it.
 */
import { ev, openHarness, persons, type Harness } from '../funnels/testing';
import { edges, type Link, pv, screen } from './testing';
import { pathsRunner } from '../runners/paths-runner';
import { actorsRunner } from '../runners/actors-runner';

let h: Harness;
beforeAll(async () => {
  h = await openHarness();
});
afterAll(async () => {
  await h.close();
});

const RANGE = { date_from: '2012-01-01 00:00:00', date_to: '2012-01-02 00:00:00' };
const minute = (m: number) => `2012-01-01T03:${String(20 + m).padStart(2, '0')}:34Z`;

async function load(events: ReturnType<typeof ev>[]): Promise<number> {
  return h.load({ persons: persons(...new Set(events.map((e) => e.distinct_id))), events });
}
const paths = async (pid: number, query: Record<string, unknown>): Promise<Link[]> =>
  (await h.run(pathsRunner, { kind: 'PathsQuery', dateRange: RANGE, pathsFilter: {}, ...query }, pid)).results;
async function people(pid: number, pathsFilter: Record<string, unknown>): Promise<string[]> {
  const source = { kind: 'PathsQuery', dateRange: RANGE, pathsFilter };
  const r = await h.run(actorsRunner, { kind: 'ActorsQuery', select: ['person'], source: { kind: 'InsightActorsQuery', source } }, pid);
  return (r.results as any[]).map((row) => row[0].distinct_ids[0]).sort();
}

describe('test_event_inclusion_exclusion_filters_across_single_person', () => {
  // p1, a minute apart: /1 /2 /3 (pageviews), /screen1 /screen2 (screens), /3 (pageview), $autocapture,
  // custom_event_1, custom_event_2, /4 (pageview)
  let pid: number;
  beforeAll(async () => {
    pid = await load([
      pv('p1', '/1', minute(1)),
      pv('p1', '/2', minute(2)),
      pv('p1', '/3', minute(3)),
      screen('p1', '/screen1', minute(4)),
      screen('p1', '/screen2', minute(5)),
      pv('p1', '/3', minute(6)),
      ev('p1', '$autocapture', minute(7)),
      ev('p1', 'custom_event_1', minute(8)),
      ev('p1', 'custom_event_2', minute(9)),
      pv('p1', '/4', minute(10)),
    ]);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['every event, the first five items (stepLimit 5)', {}, ['1_/1 -> 2_/2 (1)', '2_/2 -> 3_/3 (1)', '3_/3 -> 4_/screen1 (1)', '4_/screen1 -> 5_/screen2 (1)']],
    [
      'every event, stepLimit 10: $ events by their name',
      { stepLimit: 10 },
      [
        '1_/1 -> 2_/2 (1)',
        '2_/2 -> 3_/3 (1)',
        '3_/3 -> 4_/screen1 (1)',
        '4_/screen1 -> 5_/screen2 (1)',
        '5_/screen2 -> 6_/3 (1)',
        '6_/3 -> 7_$autocapture (1)',
        '7_$autocapture -> 8_custom_event_1 (1)',
        '8_custom_event_1 -> 9_custom_event_2 (1)',
        '9_custom_event_2 -> 10_/4 (1)',
      ],
    ],
    // without the screens, the two /3 pageviews are consecutive duplicates
    ['pageviews only', { includeEventTypes: ['$pageview'], stepLimit: 10 }, ['1_/1 -> 2_/2 (1)', '2_/2 -> 3_/3 (1)', '3_/3 -> 4_/4 (1)']],
    // custom events are the names not starting with "$": $autocapture is none
    [
      'screens and custom events',
      { includeEventTypes: ['$screen', 'custom_event'], stepLimit: 10 },
      ['1_/screen1 -> 2_/screen2 (1)', '2_/screen2 -> 3_custom_event_1 (1)', '3_custom_event_1 -> 4_custom_event_2 (1)'],
    ],
    [
      'an excluded URL',
      { excludeEvents: ['/3'], stepLimit: 10 },
      [
        '1_/1 -> 2_/2 (1)',
        '2_/2 -> 3_/screen1 (1)',
        '3_/screen1 -> 4_/screen2 (1)',
        '4_/screen2 -> 5_$autocapture (1)',
        '5_$autocapture -> 6_custom_event_1 (1)',
        '6_custom_event_1 -> 7_custom_event_2 (1)',
        '7_custom_event_2 -> 8_/4 (1)',
      ],
    ],
    [
      'excluded event names ($screen drops every screen), then the duplicates collapse',
      { excludeEvents: ['$screen', '$autocapture', 'custom_event_1'], stepLimit: 10 },
      ['1_/1 -> 2_/2 (1)', '2_/2 -> 3_/3 (1)', '3_/3 -> 4_custom_event_2 (1)', '4_custom_event_2 -> 5_/4 (1)'],
    ],
    [
      'included types and excluded items together',
      { includeEventTypes: ['$pageview', 'custom_event'], excludeEvents: ['/2', 'custom_event_2'], stepLimit: 10 },
      ['1_/1 -> 2_/3 (1)', '2_/3 -> 3_custom_event_1 (1)', '3_custom_event_1 -> 4_/4 (1)'],
    ],
  ])('%s', async (_name, pathsFilter, expected) => {
    expect(edges(await paths(pid, { pathsFilter }))).toEqual(expected);
  });

  it('with startPoint (the per-actor evaluation): the same items from the start point on', async () => {
    expect(edges(await paths(pid, { pathsFilter: { includeEventTypes: ['$screen', 'custom_event'], startPoint: '/screen2' } }))).toEqual([
      '1_/screen2 -> 2_custom_event_1 (1)',
      '2_custom_event_1 -> 3_custom_event_2 (1)',
    ]);
  });
});

describe('test_custom_hogql_paths: ProductQL items', () => {
  let pid: number;
  beforeAll(async () => {
    const custom = (id: string, event: string, m: number) => ev(id, event, minute(m), { a: '!' });
    pid = await load([
      custom('p1', '1', 1),
      custom('p1', '2', 2),
      custom('p1', '3', 3),
      custom('p2', '1', 1),
      custom('p2', '3', 2),
      screen('p2', 'home', minute(3)),
    ]);
  });
  const hogql = { includeEventTypes: ['hogql'], pathsHogQLExpression: 'concat(event, properties.a)' };

  it('start and end points are matched against the ProductQL item', async () => {
    expect(edges(await paths(pid, { pathsFilter: { ...hogql, startPoint: '2!' } }))).toEqual(['1_2! -> 2_3! (1)']);
    expect(edges(await paths(pid, { pathsFilter: { ...hogql, endPoint: '3!' } }))).toEqual(['1_1! -> 2_2! (1)', '1_1! -> 2_3! (1)', '2_2! -> 3_3! (1)']);
    expect(await people(pid, { ...hogql, pathEndKey: '2_3!' })).toEqual(['p2']);
  });

  it('with $screen included too, screens are named by $screen_name', async () => {
    expect(edges(await paths(pid, { pathsFilter: { ...hogql, includeEventTypes: ['hogql', '$screen'] } }))).toEqual([
      '1_1! -> 2_2! (1)',
      '1_1! -> 2_3! (1)',
      '2_2! -> 3_3! (1)',
      '2_3! -> 3_home (1)',
    ]);
  });

  it('test_custom_hogql_paths\' own expression: `event || properties.a` (|| is concat; a missing property adds nothing)', async () => {
    expect(edges(await paths(pid, { pathsFilter: { includeEventTypes: ['hogql'], pathsHogQLExpression: 'event || properties.a' } }))).toEqual([
      '1_1! -> 2_2! (1)',
      '1_1! -> 2_3! (1)',
      '2_2! -> 3_3! (1)',
      '2_3! -> 3_$screen (1)',
    ]);
  });

  it('an aggregate is no path item: a 400 naming pathsHogQLExpression, not an engine error', async () => {
    await expect(paths(pid, { pathsFilter: { ...hogql, pathsHogQLExpression: 'count()' } })).rejects.toMatchObject({
      status: 400,
      attr: 'pathsFilter__pathsHogQLExpression',
    });
    await expect(paths(pid, { pathsFilter: { ...hogql, pathsHogQLExpression: 'count()', startPoint: '1!' } })).rejects.toMatchObject({ status: 400 });
  });
});

describe('test_paths_query_runner_ee.py: sessions, duplicates and recordings (2011-12-12 fixtures)', () => {
  const DEC = { date_from: '2011-12-12', date_to: '2011-12-13' };
  const at = (hm: string) => `2011-12-12T${hm}:00Z`;
  const run = async (pid: number, pathsFilter: Record<string, unknown> = {}): Promise<Link[]> =>
    (await h.run(pathsRunner, { kind: 'PathsQuery', dateRange: DEC, pathsFilter }, pid)).results;

  it('test_path_respect_session_limits: /1 /2 /3 twice, an hour apart, are two sessions of the same path', async () => {
    const pid = await load([pv('fake', '/1', at('00:00')), pv('fake', '/2', at('00:01')), pv('fake', '/3', at('00:02')), pv('fake', '/1', at('01:00')), pv('fake', '/2', at('01:01')), pv('fake', '/3', at('01:02'))]);
    const expected = [
      { source: '1_/1', target: '2_/2', value: 2, average_conversion_time: 60_000 },
      { source: '2_/2', target: '3_/3', value: 2, average_conversion_time: 60_000 },
    ];
    expect(await run(pid)).toEqual(expected);
    // the per-actor evaluation (a start point) splits the sessions alike
    expect(await run(pid, { startPoint: '/1' })).toEqual(expected);
  });

  it('test_path_removes_duplicates: /1 /1 /2 /3 is the path /1 /2 /3, timed from the last /1', async () => {
    const pid = await load([
      pv('fake', '/1', at('00:00')),
      pv('fake', '/1', at('00:01')),
      pv('fake', '/2', at('00:02')),
      pv('fake', '/3', at('00:03')),
      pv('fake2', '/1', at('00:00')),
      pv('fake2', '/2', at('00:01')),
      pv('fake2', '/3', at('00:02')),
    ]);
    expect(await run(pid)).toEqual([
      { source: '1_/1', target: '2_/2', value: 2, average_conversion_time: 60_000 },
      { source: '2_/2', target: '3_/3', value: 2, average_conversion_time: 60_000 },
    ]);
  });

  it('test_path_recording_with_no_window_or_session_id: the actor of the edge, with no matched recordings', async () => {
    const pid = await load([pv('p1', '/1', '2011-12-12T03:21:34Z'), pv('p1', '/2', '2011-12-12T03:22:34Z')]);
    const source = { kind: 'PathsQuery', dateRange: DEC, pathsFilter: { includeEventTypes: ['$pageview'], pathStartKey: '1_/1', pathEndKey: '2_/2' } };
    const r = await h.run(actorsRunner, { kind: 'ActorsQuery', select: ['person', 'matched_recordings'], source: { kind: 'InsightActorsQuery', source, includeRecordings: true } }, pid);
    expect((r.results as any[]).map((row) => [row[0].distinct_ids, row[1]])).toEqual([[['p1'], []]]);
  });
});
