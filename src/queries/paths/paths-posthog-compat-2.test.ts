/**
 * More PathsQuery cases ported from PostHog's paths suites (posthog/hogql_queries/insights/test/
 * test_paths_query_runner.py and test_paths_query_runner_ee.py): start and end points with their "..." timings, the
 * paths actors query (pathStartKey / pathEndKey / pathDropoffKey through InsightActorsQuery), event type inclusion
 * and exclusion, exclusions of grouped items, ties, and funnel paths (funnelPathsFilter). Expected values follow
 * PostHog's semantics (reference §5.3); where PostHog's fixtures are long, the data is a smaller copy of their shape
 * and the expectations are derived for it.
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

const ONE_MINUTE = 60_000;
/** `/1`, `/2`, ... one a minute from 2021-05-01T00:01:00Z (PostHog's test_start_and_end fixture). */
const seq = (id: string, urls: string[]) => urls.map((u, i) => pv(id, u, `2021-05-01T00:${String(i + 1).padStart(2, '0')}:00Z`));
const MAY = { date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 00:00:00' };

async function load(events: ReturnType<typeof ev>[], personList?: unknown[]): Promise<number> {
  return h.load({ persons: personList ?? persons(...new Set(events.map((e) => e.distinct_id))), events });
}
const paths = async (pid: number, query: Record<string, unknown>, project: Record<string, unknown> = {}): Promise<Link[]> =>
  (await h.run(pathsRunner, { kind: 'PathsQuery', dateRange: MAY, pathsFilter: {}, ...query }, pid, project as any)).results;
/** PostHog's `_get_people_at_path`: the first distinct id of each actor behind a node or edge, sorted. */
async function people(pid: number, query: Record<string, unknown>, keys: { pathStartKey?: string; pathEndKey?: string; pathDropoffKey?: string }): Promise<string[]> {
  const source = { kind: 'PathsQuery', dateRange: MAY, ...query, pathsFilter: { ...((query.pathsFilter as object) ?? {}), ...keys } };
  const r = await h.run(actorsRunner, { kind: 'ActorsQuery', select: ['person'], source: { kind: 'InsightActorsQuery', source } }, pid);
  return (r.results as any[]).map((row) => row[0].distinct_ids[0]).sort();
}

describe('test_start_and_end', () => {
  let pid: number;
  beforeAll(async () => {
    pid = await load([
      ...seq('person_1', ['/1', '/2', '/3', '/4', '/5', '/about', '/after']),
      ...seq('person_2', ['/5', '/about']),
      ...seq('person_3', ['/3', '/4', '/about', '/after']),
    ]);
  });
  const base = { includeEventTypes: ['$pageview'], startPoint: '/5', endPoint: '/about' };

  it('the segment from the start to the end point; persons without the start point are left out', async () => {
    expect(await paths(pid, { pathsFilter: base })).toEqual([{ source: '1_/5', target: '2_/about', value: 2, average_conversion_time: ONE_MINUTE }]);
    expect(await people(pid, { pathsFilter: base }, { pathStartKey: '1_/5', pathEndKey: '2_/about' })).toEqual(['person_1', 'person_2']);
  });

  it('a segment longer than stepLimit keeps both ends around "...", which carries the time of the first item it hides', async () => {
    const pf = { ...base, startPoint: '/2', stepLimit: 4 };
    expect(await paths(pid, { pathsFilter: pf })).toEqual([
      { source: '1_/2', target: '2_/3', value: 1, average_conversion_time: ONE_MINUTE },
      { source: '2_/3', target: '3_...', value: 1, average_conversion_time: ONE_MINUTE },
      { source: '3_...', target: '4_/5', value: 1, average_conversion_time: ONE_MINUTE },
      { source: '4_/5', target: '5_/about', value: 1, average_conversion_time: ONE_MINUTE },
    ]);
    expect(await people(pid, { pathsFilter: pf }, { pathStartKey: '3_...', pathEndKey: '4_/5' })).toEqual(['person_1']);
  });

  it('an odd stepLimit: ⌊n/2⌋ items on each side of "..."', async () => {
    const pf = { ...base, startPoint: '/1', stepLimit: 5 };
    // /1 /2 /3 /4 /5 /about: six items → /1 /2 ... /5 /about
    expect(edges(await paths(pid, { pathsFilter: pf }))).toEqual(['1_/1 -> 2_/2 (1)', '2_/2 -> 3_... (1)', '3_... -> 4_/5 (1)', '4_/5 -> 5_/about (1)']);
  });

  it('an end point that never follows the start point drops the path', async () => {
    expect(await paths(pid, { pathsFilter: { ...base, startPoint: '/about', endPoint: '/3' } })).toEqual([]);
  });
});

describe('test_paths_start (test_paths_query_runner.py)', () => {
  it('paths begin at the first occurrence of the start point and run for stepLimit items', async () => {
    const pid = await load([
      ...seq('person_1', ['/1', '/2', '/3', '/4', '/5', '/6', '/7']),
      ...seq('person_2', ['/2', '/3', '/2', '/9']),
      ...seq('person_3', ['/3', '/4']),
    ]);
    const r = await paths(pid, { pathsFilter: { includeEventTypes: ['$pageview'], startPoint: '/2/' } });
    expect(edges(r)).toEqual([
      '1_/2 -> 2_/3 (2)',
      '2_/3 -> 3_/2 (1)',
      '2_/3 -> 3_/4 (1)',
      '3_/2 -> 4_/9 (1)',
      '3_/4 -> 4_/5 (1)',
      '4_/5 -> 5_/6 (1)',
    ]);
    expect(await people(pid, { pathsFilter: { startPoint: '/2' } }, { pathEndKey: '2_/3' })).toEqual(['person_1', 'person_2']);
    expect(await people(pid, { pathsFilter: { startPoint: '/2' } }, { pathStartKey: '2_/3', pathEndKey: '3_/2' })).toEqual(['person_2']);
  });
});

describe('test_paths_person_dropoffs', () => {
  // 5 persons go /1 → /2, 10 go /1 → /2 → /3, 15 go /1 → /2 → /3 → /4 (PostHog's fixture, pages for events).
  let pid: number;
  beforeAll(async () => {
    const events = [
      ...Array.from({ length: 5 }, (_, i) => seq(`user_${i}`, ['/1', '/2'])).flat(),
      ...Array.from({ length: 10 }, (_, i) => seq(`user_${i + 5}`, ['/1', '/2', '/3'])).flat(),
      ...Array.from({ length: 15 }, (_, i) => seq(`user_${i + 15}`, ['/1', '/2', '/3', '/4'])).flat(),
    ];
    pid = await load(events);
  });
  const count = async (keys: Record<string, string>) => (await people(pid, { pathsFilter: { includeEventTypes: ['$pageview'] } }, keys)).length;

  it.each([
    [{ pathDropoffKey: '2_/2' }, 5],
    [{ pathEndKey: '2_/2' }, 30],
    [{ pathDropoffKey: '3_/3' }, 10],
    [{ pathEndKey: '3_/3' }, 25],
    [{ pathDropoffKey: '4_/4' }, 15],
    [{ pathEndKey: '4_/4' }, 15],
    [{ pathStartKey: '2_/2' }, 25],
    [{ pathStartKey: '1_/1', pathEndKey: '2_/2' }, 30],
    [{ pathDropoffKey: '1_/1' }, 0],
    [{ pathEndKey: '2_/nowhere' }, 0],
    [{}, 30],
  ])('%j → %i persons', async (keys, n) => {
    expect(await count(keys)).toBe(n);
  });

  it('the paths of the same fixture', async () => {
    expect(edges(await paths(pid, { pathsFilter: { includeEventTypes: ['$pageview'] } }))).toEqual(['1_/1 -> 2_/2 (30)', '2_/2 -> 3_/3 (25)', '3_/3 -> 4_/4 (15)']);
  });

  it('a key that is no node: an empty list, not an error', async () => {
    expect(await people(pid, {}, { pathDropoffKey: 'nonsense' })).toEqual([]);
  });
});

describe('test_event_inclusion_exclusion_filters', () => {
  let pid: number;
  beforeAll(async () => {
    const at = (m: number) => `2021-05-01T00:0${m}:00Z`;
    pid = await load([
      pv('p1', '/1', at(1)),
      pv('p1', '/2', at(2)),
      pv('p1', '/3', at(3)),
      screen('p2', '/screen1', at(1)),
      screen('p2', '/screen2', at(2)),
      screen('p2', '/screen3', at(3)),
      ev('p3', 'custom_event_1', at(1)),
      ev('p3', 'custom_event_2', at(2)),
      ev('p3', 'custom_event_3', at(3)),
      pv('p4', '/pageview1', at(1)),
      screen('p4', '/screen1', at(2)),
      ev('p4', 'custom_event_1', at(3)),
    ]);
  });

  it.each([
    [{ includeEventTypes: ['$pageview'] }, ['1_/1 -> 2_/2 (1)', '2_/2 -> 3_/3 (1)']],
    [{ includeEventTypes: ['$screen'] }, ['1_/screen1 -> 2_/screen2 (1)', '2_/screen2 -> 3_/screen3 (1)']],
    [{ includeEventTypes: ['custom_event'] }, ['1_custom_event_1 -> 2_custom_event_2 (1)', '2_custom_event_2 -> 3_custom_event_3 (1)']],
    [
      { includeEventTypes: ['$pageview', '$screen'] },
      ['1_/1 -> 2_/2 (1)', '1_/pageview1 -> 2_/screen1 (1)', '1_/screen1 -> 2_/screen2 (1)', '2_/2 -> 3_/3 (1)', '2_/screen2 -> 3_/screen3 (1)'],
    ],
    [
      { excludeEvents: ['$pageview'] },
      [
        '1_/screen1 -> 2_/screen2 (1)',
        '1_/screen1 -> 2_custom_event_1 (1)',
        '1_custom_event_1 -> 2_custom_event_2 (1)',
        '2_/screen2 -> 3_/screen3 (1)',
        '2_custom_event_2 -> 3_custom_event_3 (1)',
      ],
    ],
    [
      { excludeEvents: ['$screen'] },
      ['1_/1 -> 2_/2 (1)', '1_/pageview1 -> 2_custom_event_1 (1)', '1_custom_event_1 -> 2_custom_event_2 (1)', '2_/2 -> 3_/3 (1)', '2_custom_event_2 -> 3_custom_event_3 (1)'],
    ],
    [
      { excludeEvents: ['custom_event_1', 'custom_event_2', 'custom_event_3'] },
      ['1_/1 -> 2_/2 (1)', '1_/pageview1 -> 2_/screen1 (1)', '1_/screen1 -> 2_/screen2 (1)', '2_/2 -> 3_/3 (1)', '2_/screen2 -> 3_/screen3 (1)'],
    ],
    [{ includeEventTypes: ['$pageview', '$screen'], excludeEvents: ['/screen2', '/2'] }, ['1_/1 -> 2_/3 (1)', '1_/pageview1 -> 2_/screen1 (1)', '1_/screen1 -> 2_/screen3 (1)']],
  ])('%j', async (pathsFilter, expected) => {
    expect(edges(await paths(pid, { pathsFilter }))).toEqual(expected);
  });

  it('hogql names every included event by the expression, pageviews too when $pageview is not a type of its own', async () => {
    const r = await paths(pid, { pathsFilter: { includeEventTypes: ['hogql'], pathsHogQLExpression: "concat(event, '!')" } });
    expect(edges(r)).toContain('1_$pageview! -> 2_$screen! (1)');
    expect(edges(r)).toContain('1_custom_event_1! -> 2_custom_event_2! (1)');
    const withUrls = await paths(pid, { pathsFilter: { includeEventTypes: ['hogql', '$pageview'], pathsHogQLExpression: "concat(event, '!')" } });
    expect(edges(withUrls)).toContain('1_/pageview1 -> 2_$screen! (1)');
  });
});

describe('test_event_exclusion_filters_with_wildcard_groups', () => {
  it('excludeEvents matches the grouped item, before duplicates collapse', async () => {
    const pid = await load([
      ...seq('p1', ['/', '/bar/a/foo', '/about']),
      ...seq('p2', ['/', '/bar/b/foo', '/', '/x']),
    ]);
    const pathGroupings = ['/bar/*/foo'];
    expect(edges(await paths(pid, { pathsFilter: { includeEventTypes: ['$pageview'], pathGroupings } }))).toEqual([
      '1_/ -> 2_/bar/*/foo (2)',
      '2_/bar/*/foo -> 3_/ (1)',
      '2_/bar/*/foo -> 3_/about (1)',
      '3_/ -> 4_/x (1)',
    ]);
    expect(edges(await paths(pid, { pathsFilter: { includeEventTypes: ['$pageview'], pathGroupings, excludeEvents: ['/bar/*/foo'] } }))).toEqual([
      '1_/ -> 2_/about (1)',
      '1_/ -> 2_/x (1)',
    ]);
  });
});

describe('test_wildcard_groups_across_people', () => {
  it('grouped items of different persons are one node, with every person behind it', async () => {
    const pid = await load([...seq('p1', ['/a/1', '/b']), ...seq('p2', ['/a/2', '/b']), ...seq('p3', ['/a/3', '/c'])]);
    const query = { pathsFilter: { pathGroupings: ['/a/*'] } };
    expect(edges(await paths(pid, query))).toEqual(['1_/a/* -> 2_/b (2)', '1_/a/* -> 2_/c (1)']);
    expect(await people(pid, query, { pathEndKey: '1_/a/*' })).toEqual(['p1', 'p2', 'p3']);
    expect(await people(pid, query, { pathStartKey: '1_/a/*', pathEndKey: '2_/c' })).toEqual(['p3']);
  });
});

describe('ties', () => {
  it('events at the same time are ordered by item, in the engine and the per-actor evaluation alike', async () => {
    const pid = await load([pv('p', '/b', '2021-05-01T00:01:00Z'), pv('p', '/a', '2021-05-01T00:01:00Z'), pv('p', '/c', '2021-05-01T00:02:00Z')]);
    expect(edges(await paths(pid, {}))).toEqual(['1_/a -> 2_/b (1)', '2_/b -> 3_/c (1)']);
    // startPoint takes the per-actor evaluation
    expect(edges(await paths(pid, { pathsFilter: { startPoint: '/a' } }))).toEqual(['1_/a -> 2_/b (1)', '2_/b -> 3_/c (1)']);
  });
});

describe('test_event_ordering', () => {
  it('events sent out of order are ordered by timestamp', async () => {
    const events = Array.from({ length: 10 }, (_, i) => [
      pv(`user_${i}`, '/3', '2021-05-01T00:03:00Z'),
      pv(`user_${i}`, '/2', '2021-05-01T00:02:00Z'),
      pv(`user_${i}`, '/1', '2021-05-01T00:01:00Z'),
    ]).flat();
    const pid = await load(events);
    const expected = [
      { source: '1_/1', target: '2_/2', value: 10, average_conversion_time: ONE_MINUTE },
      { source: '2_/2', target: '3_/3', value: 10, average_conversion_time: ONE_MINUTE },
    ];
    expect(await paths(pid, { pathsFilter: { includeEventTypes: ['$pageview'] } })).toEqual(expected);
    expect(await paths(pid, { pathsFilter: { includeEventTypes: ['$pageview'], startPoint: '/1' } })).toEqual(expected);
  });
});

describe('test_start_dropping_orphaned_edges', () => {
  it('with a start point, edges cut off from every 1_ node by edgeLimit are dropped', async () => {
    // Five persons /2 /3 /4 /5; one /2 /a /c /d and one /2 /b /c /d: 3_/c -> 4_/d (2) outweighs both of its parents (1).
    const pid = await load([
      ...Array.from({ length: 5 }, (_, i) => seq(`person_${i}`, ['/2', '/3', '/4', '/5'])).flat(),
      ...seq('person_a', ['/1', '/2', '/a', '/c', '/d']),
      ...seq('person_b', ['/2', '/b', '/c', '/d']),
    ]);
    const pathsFilter = { includeEventTypes: ['$pageview'], startPoint: '/2' };
    expect(edges(await paths(pid, { pathsFilter }))).toEqual([
      '1_/2 -> 2_/3 (5)',
      '2_/3 -> 3_/4 (5)',
      '3_/4 -> 4_/5 (5)',
      '3_/c -> 4_/d (2)',
      '1_/2 -> 2_/a (1)',
      '1_/2 -> 2_/b (1)',
      '2_/a -> 3_/c (1)',
      '2_/b -> 3_/c (1)',
    ]);
    // The top four include 3_/c -> 4_/d, whose parents fall past the limit.
    expect(edges(await paths(pid, { pathsFilter: { ...pathsFilter, edgeLimit: 4 } }))).toEqual(['1_/2 -> 2_/3 (5)', '2_/3 -> 3_/4 (5)', '3_/4 -> 4_/5 (5)']);
  });
});

describe('test_step_limit: actors', () => {
  it('nodes past stepLimit have no actors', async () => {
    const pid = await load(seq('p1', ['/1', '/2', '/3', '/4', '/5']));
    for (const [stepLimit, last] of [[2, '2_/2'], [3, '3_/3'], [4, '4_/4']] as const) {
      const query = { pathsFilter: { stepLimit } };
      expect(await people(pid, query, { pathEndKey: last })).toEqual(['p1']);
      expect(await people(pid, query, { pathDropoffKey: last })).toEqual(['p1']);
      expect(await people(pid, query, { pathStartKey: last })).toEqual([]);
    }
  });
});

describe('date_from "all"', () => {
  it('starts at the project\'s earliest event, not today', async () => {
    const pid = await load([pv('p', '/old', '2015-03-01T10:00:00Z'), pv('p', '/older', '2015-03-01T10:01:00Z'), ...seq('q', ['/1', '/2'])]);
    expect(edges(await paths(pid, { dateRange: { date_from: 'all', date_to: '2021-05-07' } }))).toEqual(['1_/1 -> 2_/2 (1)', '1_/old -> 2_/older (1)']);
    expect(edges(await paths(pid, { dateRange: { date_from: 'all', date_to: '2021-05-07' }, pathsFilter: { startPoint: '/old' } }))).toEqual(['1_/old -> 2_/older (1)']);
  });
});

describe('test_path_groups_filtering', () => {
  it('group property filters keep the events of matching groups', async () => {
    const gi = (id: string, key: string, industry: string) =>
      ev(id, '$groupidentify', '2021-04-30T00:00:00Z', { $group_type: 'organization', $group_key: key, $group_set: { industry } });
    const org = (key: string) => ({ $groups: { organization: key } });
    const pid = await load([
      gi('p1', 'org:5', 'finance'),
      gi('p2', 'org:6', 'technology'),
      pv('p1', '/1', '2021-05-01T00:01:00Z', org('org:5')),
      pv('p1', '/2', '2021-05-01T00:02:00Z', org('org:5')),
      pv('p2', '/1', '2021-05-01T00:01:00Z', org('org:6')),
      pv('p2', '/3', '2021-05-01T00:02:00Z', org('org:6')),
    ]);
    const properties = [{ key: 'industry', value: 'finance', type: 'group', group_type_index: 0, operator: 'exact' }];
    expect(edges(await paths(pid, { properties, pathsFilter: { includeEventTypes: ['$pageview'] } }))).toEqual(['1_/1 -> 2_/2 (1)']);
    expect(await people(pid, { properties }, { pathEndKey: '2_/2' })).toEqual(['p1']);
  });
});

// ------------------------------------------------------------------------------------------------ funnel paths

/**
 * PostHog's `_create_sample_data_multiple_dropoffs`, smaller: 3 persons do the whole funnel with events between the
 * steps, 2 reach step two, 4 drop off after step one (2 of them with a third event between). u0 also lands on the
 * site a minute before step one.
 */
function multipleDropoffs(): ReturnType<typeof ev>[] {
  const at = (m: number, s = 0) => new Date(Date.UTC(2021, 4, 1, 1, m, s)).toISOString();
  const out: ReturnType<typeof ev>[] = [ev('u0', 'landing', new Date(Date.UTC(2021, 4, 1, 0, 59)).toISOString())];
  const add = (id: string, list: [string, string][]) => out.push(...list.map(([e, t]) => ev(id, e, t)));
  for (const id of ['u0', 'u1', 'u2'])
    add(id, [
      ['step one', at(0)],
      ['between_step_1_a', at(1)],
      ['between_step_1_b', at(2)],
      ['between_step_1_c', at(3)],
      ['step two', at(4)],
      ['between_step_2_a', at(5, 20)],
      ['between_step_2_b', at(6, 40)],
      ['between_step_2_c', at(8)],
      ['step three', at(10)],
    ]);
  for (const id of ['u3', 'u4'])
    add(id, [
      ['step one', at(0)],
      ['between_step_1_a', at(1)],
      ['between_step_1_b', at(2)],
      ['step two', at(3)],
      ['between_step_2_a', at(4, 20)],
      ['between_step_2_b', at(5, 40)],
    ]);
  for (const id of ['u5', 'u6', 'u7', 'u8'])
    add(id, [
      ['step one', at(0)],
      ['between_step_1_a', at(1)],
      ['between_step_1_b', at(2)],
      ...(id === 'u5' || id === 'u6' ? ([['between_step_1_c', at(3)]] as [string, string][]) : []),
    ]);
  return out;
}

const funnelSource = (window: { funnelWindowInterval?: number; funnelWindowIntervalUnit?: string } = { funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day' }) => ({
  kind: 'FunnelsQuery',
  dateRange: MAY,
  series: ['step one', 'step two', 'step three'].map((event) => ({ kind: 'EventsNode', event })),
  funnelsFilter: window,
});
const funnelPaths = (funnelPathType: string, funnelStep: number, pathsFilter: Record<string, unknown> = {}, source = funnelSource()) => ({
  pathsFilter,
  funnelPathsFilter: { funnelPathType, funnelStep, funnelSource: source },
});

describe('funnel paths (test_path_by_funnel_*)', () => {
  let pid: number;
  beforeAll(async () => {
    pid = await load(multipleDropoffs());
  });
  const T = (source: string, target: string, value: number, average_conversion_time = ONE_MINUTE): Link => ({ source, target, value, average_conversion_time });

  it('test_path_by_funnel_after_dropoff: the drop-offs of step two, from their step one on', async () => {
    const q = funnelPaths('funnel_path_after_step', -2);
    expect(await paths(pid, q)).toEqual([
      T('1_step one', '2_between_step_1_a', 4),
      T('2_between_step_1_a', '3_between_step_1_b', 4),
      T('3_between_step_1_b', '4_between_step_1_c', 2),
    ]);
    expect(await people(pid, q, { pathStartKey: '1_step one', pathEndKey: '2_between_step_1_a' })).toEqual(['u5', 'u6', 'u7', 'u8']);
    expect(await people(pid, q, { pathDropoffKey: '3_between_step_1_b' })).toEqual(['u7', 'u8']);
  });

  it('test_path_by_funnel_after_step: the converters of step two, from step two on', async () => {
    const q = funnelPaths('funnel_path_after_step', 2);
    expect(await paths(pid, q)).toEqual([
      T('1_step two', '2_between_step_2_a', 5, 80_000),
      T('2_between_step_2_a', '3_between_step_2_b', 5, 80_000),
      T('3_between_step_2_b', '4_between_step_2_c', 3, 80_000),
      T('4_between_step_2_c', '5_step three', 3, 120_000),
    ]);
    expect(await people(pid, q, { pathEndKey: '3_between_step_2_b' })).toEqual(['u0', 'u1', 'u2', 'u3', 'u4']);
    expect(await people(pid, q, { pathDropoffKey: '3_between_step_2_b' })).toEqual(['u3', 'u4']);
  });

  it('test_path_by_funnel_after_step_limit: stepLimit cuts funnel paths too', async () => {
    expect(edges(await paths(pid, funnelPaths('funnel_path_after_step', 2, { stepLimit: 3 })))).toEqual([
      '1_step two -> 2_between_step_2_a (5)',
      '2_between_step_2_a -> 3_between_step_2_b (5)',
    ]);
  });

  it('test_path_by_funnel_before_step: the converters of step two, up to step two (earlier events included)', async () => {
    expect(await paths(pid, funnelPaths('funnel_path_before_step', 2))).toEqual([
      T('1_step one', '2_between_step_1_a', 4),
      T('2_between_step_1_a', '3_between_step_1_b', 4),
      T('3_between_step_1_b', '4_between_step_1_c', 2),
      T('3_between_step_1_b', '4_step two', 2),
      T('4_between_step_1_c', '5_step two', 2),
      T('1_landing', '2_step one', 1),
      T('2_step one', '3_between_step_1_a', 1),
      T('3_between_step_1_a', '4_between_step_1_b', 1),
      T('4_between_step_1_b', '5_between_step_1_c', 1),
    ]);
  });

  it('test_path_by_funnel_before_dropoff: the drop-offs of step three, up to the end of the window after step two', async () => {
    expect(await paths(pid, funnelPaths('funnel_path_before_step', -3))).toEqual([
      T('1_step one', '2_between_step_1_a', 2),
      T('2_between_step_1_a', '3_between_step_1_b', 2),
      T('3_between_step_1_b', '4_step two', 2),
      T('4_step two', '5_between_step_2_a', 2, 80_000),
    ]);
  });

  it('test_path_by_funnel_between_step: from step one to step two, nothing before', async () => {
    const q = funnelPaths('funnel_path_between_steps', 2);
    expect(await paths(pid, q)).toEqual([
      T('1_step one', '2_between_step_1_a', 5),
      T('2_between_step_1_a', '3_between_step_1_b', 5),
      T('3_between_step_1_b', '4_between_step_1_c', 3),
      T('4_between_step_1_c', '5_step two', 3),
      T('3_between_step_1_b', '4_step two', 2),
    ]);
    expect(await people(pid, q, { pathStartKey: '3_between_step_1_b', pathEndKey: '4_step two' })).toEqual(['u3', 'u4']);
    expect(edges(await paths(pid, funnelPaths('funnel_path_between_steps', 3)))).toEqual([
      '1_step two -> 2_between_step_2_a (3)',
      '2_between_step_2_a -> 3_between_step_2_b (3)',
      '3_between_step_2_b -> 4_between_step_2_c (3)',
      '4_between_step_2_c -> 5_step three (3)',
    ]);
  });

  it('path filters apply inside funnel paths (includeEventTypes, excludeEvents)', async () => {
    expect(edges(await paths(pid, funnelPaths('funnel_path_after_step', 2, { excludeEvents: ['between_step_2_b', 'between_step_2_c'] })))).toEqual([
      '1_step two -> 2_between_step_2_a (5)',
      '2_between_step_2_a -> 3_step three (3)',
    ]);
    expect(await paths(pid, funnelPaths('funnel_path_after_step', 2, { includeEventTypes: ['$pageview'] }))).toEqual([]);
  });

  it.each([
    ['funnel_path_after_step', 0],
    ['funnel_path_after_step', -1],
    ['funnel_path_after_step', 4],
    ['funnel_path_before_step', -4],
    ['funnel_path_between_steps', 1],
    ['funnel_path_between_steps', -2],
  ])('%s with funnelStep %i is a validation error', async (type, step) => {
    await expect(paths(pid, funnelPaths(type, step))).rejects.toMatchObject({ status: 400, attr: 'funnelPathsFilter__funnelStep' });
  });

  it('funnelStep is required', async () => {
    await expect(paths(pid, { pathsFilter: {}, funnelPathsFilter: { funnelPathType: 'funnel_path_after_step', funnelSource: funnelSource() } })).rejects.toMatchObject({
      status: 400,
    });
  });
});

describe('test_path_by_funnel_after_step_respects_conversion_window', () => {
  let pid: number;
  beforeAll(async () => {
    pid = await load([
      ev('slow', 'step one', '2021-05-01T01:00:00Z'),
      ev('slow', 'x', '2021-05-01T01:01:00Z'),
      ev('slow', 'z', '2021-05-01T02:00:00Z'), // 59 minutes later: one session within a funnel window
      ev('slow', 'step two', '2021-05-03T01:00:00Z'),
      ev('slow', 'y', '2021-05-03T01:01:00Z'),
    ]);
  });

  it('converting after the window is dropping off; sessions split at the funnel window, not at 30 minutes', async () => {
    const oneDay = funnelSource({ funnelWindowInterval: 1, funnelWindowIntervalUnit: 'day' });
    expect(await paths(pid, funnelPaths('funnel_path_after_step', 2, {}, oneDay))).toEqual([]);
    expect(await paths(pid, funnelPaths('funnel_path_after_step', -2, {}, oneDay))).toEqual([
      { source: '1_step one', target: '2_x', value: 1, average_conversion_time: ONE_MINUTE },
      { source: '1_step two', target: '2_y', value: 1, average_conversion_time: ONE_MINUTE },
      { source: '2_x', target: '3_z', value: 1, average_conversion_time: 59 * ONE_MINUTE },
    ]);
    const week = funnelSource();
    expect(edges(await paths(pid, funnelPaths('funnel_path_after_step', 2, {}, week)))).toEqual(['1_step two -> 2_y (1)']);
  });
});

describe('test_path_by_funnel_after_dropoff_with_group_filter / group funnels', () => {
  it('a funnel aggregated by groups: the paths are those of the groups, their events together', async () => {
    const org = (key: string) => ({ $groups: { organization: key } });
    const gi = (id: string, key: string) => ev(id, '$groupidentify', '2021-04-30T00:00:00Z', { $group_type: 'organization', $group_key: key, $group_set: { name: key } });
    const pid = await load([
      gi('a', 'org:1'),
      gi('c', 'org:2'),
      ev('a', 'step one', '2021-05-01T01:00:00Z', org('org:1')),
      ev('b', 'browse', '2021-05-01T01:01:00Z', org('org:1')),
      ev('b', 'step two', '2021-05-01T01:02:00Z', org('org:1')),
      ev('c', 'step one', '2021-05-01T01:00:00Z', org('org:2')),
      ev('c', 'browse', '2021-05-01T01:05:00Z', org('org:2')),
      ev('c', 'no group', '2021-05-01T01:06:00Z'),
    ]);
    const source = { ...funnelSource(), series: funnelSource().series.slice(0, 2), aggregation_group_type_index: 0 };
    const q = funnelPaths('funnel_path_after_step', -2, {}, source);
    expect(edges(await paths(pid, q))).toEqual(['1_step one -> 2_browse (1)']);
    const r = await h.run(actorsRunner, { kind: 'ActorsQuery', select: ['actor'], source: { kind: 'InsightActorsQuery', source: { kind: 'PathsQuery', dateRange: MAY, ...q, pathsFilter: { pathEndKey: '2_browse' } } } }, pid);
    expect(r.results.map((row: any[]) => row[0].id)).toEqual(['org:2']);
    expect(edges(await paths(pid, funnelPaths('funnel_path_before_step', 2, {}, source)))).toEqual(['1_step one -> 2_browse (1)', '2_browse -> 3_step two (1)']);
  });
});

describe('bad input is a 400', () => {
  let pid: number;
  beforeAll(async () => {
    pid = await load(seq('p', ['/1', '/2']));
  });
  it.each([
    ['an unparsable pathsHogQLExpression', { includeEventTypes: ['hogql'], pathsHogQLExpression: 'concat(event,' }],
    ['an unknown function in pathsHogQLExpression', { includeEventTypes: ['hogql'], pathsHogQLExpression: 'nosuchfunction(event)' }],
  ])('%s', async (_name, pathsFilter) => {
    await expect(paths(pid, { pathsFilter })).rejects.toMatchObject({ status: 400 });
  });
  it('an actors query over paths of another project sees nothing', async () => {
    const other = await load(seq('q', ['/1', '/2']));
    expect(await people(other, {}, { pathEndKey: '2_/2' })).toEqual(['q']);
    expect(await people(pid, {}, { pathEndKey: '2_/2' })).toEqual(['p']);
  });
});
