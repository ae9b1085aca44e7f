/**
 * Fifth pass over PostHog's paths suites (posthog/hogql_queries/insights/paths/test/test_paths_query_runner.py and
 * test_paths_query_runner_ee.py): the cases the earlier compat files (paths-posthog-compat, -2, -3, -4, paths.test.ts)
 * do not pin — which of several pathGroupings wins, a pageview without a URL, cohort and OR-group property filters,
 * start and end points on screens and custom events, a start..end segment of exactly stepLimit items, a start point
 * reached in two sessions, and the actors of an end-point path. Expected values follow PostHog's semantics
 * (reference §5.3); fixtures are small copies of the shape of PostHog's.
 */
import { ev, openHarness, persons, type Harness } from '../funnels/testing';
import { edges, type Link, pv, screen } from './testing';
import { runWithCohorts, type ResolvedCohort } from '../../cohorts/cohort-scope';
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
/** `2021-05-01T00:mm:00Z`, one item a minute from minute 1 (PostHog's test_start_and_end / test_end fixtures). */
const minute = (m: number) => `2021-05-01T${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}:00Z`;
const seq = (id: string, urls: string[], from = 1) => urls.map((u, i) => pv(id, u, minute(from + i)));
const MAY = { date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 00:00:00' };

async function load(events: ReturnType<typeof ev>[], personList?: unknown[]): Promise<number> {
  return h.load({ persons: personList ?? persons(...new Set(events.map((e) => e.distinct_id))), events });
}
const paths = async (pid: number, query: Record<string, unknown>, project: Record<string, unknown> = {}): Promise<Link[]> =>
  (await h.run(pathsRunner, { kind: 'PathsQuery', dateRange: MAY, pathsFilter: {}, ...query }, pid, project as any)).results;
/** PostHog's `_get_people_at_path`: the first distinct id of each actor behind a node or edge, sorted. */
async function people(pid: number, pathsFilter: Record<string, unknown>): Promise<string[]> {
  const source = { kind: 'PathsQuery', dateRange: MAY, pathsFilter };
  const r = await h.run(actorsRunner, { kind: 'ActorsQuery', select: ['person'], source: { kind: 'InsightActorsQuery', source } }, pid);
  return (r.results as any[]).map((row) => row[0].distinct_ids[0]).sort();
}

describe('pathGroupings: the first pattern that matches names the item (reference §5.3)', () => {
  let pid: number;
  beforeAll(async () => {
    pid = await load(seq('p1', ['/a/b/1', '/a/c', '/x']));
  });

  it('the narrower pattern first: /a/b/1 and /a/c are two nodes', async () => {
    expect(edges(await paths(pid, { pathsFilter: { pathGroupings: ['/a/b*', '/a/*'] } }))).toEqual(['1_/a/b* -> 2_/a/* (1)', '2_/a/* -> 3_/x (1)']);
  });

  it('the wider pattern first: both are /a/*, and collapse like duplicates', async () => {
    expect(edges(await paths(pid, { pathsFilter: { pathGroupings: ['/a/*', '/a/b*'] } }))).toEqual(['1_/a/* -> 2_/x (1)']);
  });
});

it('a pageview without $current_url is the item "" (reference §5.3: null → \'\')', async () => {
  const pid = await load([pv('p1', '/a', minute(1)), pv('p1', null, minute(2)), pv('p1', '/b', minute(3))]);
  expect(await paths(pid, { pathsFilter: { includeEventTypes: ['$pageview'] } })).toEqual([
    { source: '1_/a', target: '2_', value: 1, average_conversion_time: ONE_MINUTE },
    { source: '2_', target: '3_/b', value: 1, average_conversion_time: ONE_MINUTE },
  ]);
});

describe('property filters of other kinds (test_paths_properties_filter with a cohort and an OR group)', () => {
  const events = [
    pv('chrome_pro', '/', minute(1), { $browser: 'Chrome' }),
    pv('chrome_pro', '/about', minute(2), { $browser: 'Chrome' }),
    pv('safari_free', '/', minute(1), { $browser: 'Safari' }),
    pv('safari_free', '/pricing', minute(2), { $browser: 'Safari' }),
    pv('firefox_free', '/', minute(1), { $browser: 'Firefox' }),
    pv('firefox_free', '/signup', minute(2), { $browser: 'Firefox' }),
  ];
  const personList = [
    { distinct_ids: ['chrome_pro'], properties: { plan: 'pro' } },
    { distinct_ids: ['safari_free'], properties: { plan: 'free' } },
    { distinct_ids: ['firefox_free'], properties: { plan: 'free' } },
  ];
  const pro: ResolvedCohort = { id: 91, name: 'pro', isStatic: false, group: { type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }] } as any, personIds: [] };
  const scope = <T>(fn: () => Promise<T>) => runWithCohorts(new Map([[91, pro]]), fn);
  let pid: number;
  beforeAll(async () => {
    pid = await load(events, personList);
  });

  it.each<[string, string, string[]]>([
    ['in', 'in', ['1_/ -> 2_/about (1)']],
    ['not_in', 'not_in', ['1_/ -> 2_/pricing (1)', '1_/ -> 2_/signup (1)']],
  ])('a cohort filter, operator %s', async (_n, operator, expected) => {
    const r = await scope(() => paths(pid, { properties: [{ type: 'cohort', key: 'id', value: 91, operator }] }));
    expect(edges(r)).toEqual(expected);
  });

  it('an OR group: a person property or an event property', async () => {
    const properties = {
      type: 'OR',
      values: [
        { type: 'AND', values: [{ type: 'person', key: 'plan', operator: 'exact', value: 'pro' }] },
        { type: 'AND', values: [{ type: 'event', key: '$browser', operator: 'exact', value: 'Firefox' }] },
      ],
    };
    expect(edges(await paths(pid, { properties }))).toEqual(['1_/ -> 2_/about (1)', '1_/ -> 2_/signup (1)']);
  });
});

describe('start and end points on other event kinds (test_paths_start / test_end with screens and custom events)', () => {
  it('startPoint names a screen by $screen_name', async () => {
    const pid = await load([screen('p1', 'home', minute(1)), screen('p1', 'list', minute(2)), screen('p1', 'detail', minute(3)), screen('p2', 'list', minute(1)), screen('p2', 'home', minute(2))]);
    expect(edges(await paths(pid, { pathsFilter: { includeEventTypes: ['$screen'], startPoint: 'list' } }))).toEqual(['1_list -> 2_detail (1)', '1_list -> 2_home (1)']);
  });

  it('endPoint names a custom event; a path that never reaches it is dropped', async () => {
    const pid = await load([
      ev('p1', 'opened', minute(1)),
      ev('p1', 'searched', minute(2)),
      ev('p1', 'bought', minute(3)),
      ev('p1', 'left', minute(4)),
      ev('p2', 'searched', minute(1)),
      ev('p2', 'bought', minute(2)),
      ev('p3', 'opened', minute(1)),
      ev('p3', 'searched', minute(2)),
    ]);
    expect(edges(await paths(pid, { pathsFilter: { includeEventTypes: ['custom_event'], endPoint: 'bought' } }))).toEqual([
      '1_opened -> 2_searched (1)',
      '1_searched -> 2_bought (1)',
      '2_searched -> 3_bought (1)',
    ]);
  });
});

describe('test_start_and_end: segment lengths around stepLimit', () => {
  it('a start..end segment of exactly stepLimit items is kept whole, without "..."', async () => {
    const pid = await load(seq('p1', ['/0', '/start', '/b', '/c', '/end', '/after']));
    expect(edges(await paths(pid, { pathsFilter: { startPoint: '/start', endPoint: '/end', stepLimit: 4 } }))).toEqual([
      '1_/start -> 2_/b (1)',
      '2_/b -> 3_/c (1)',
      '3_/c -> 4_/end (1)',
    ]);
  });

  it('an end point at the first item of a path: a path of one item, no edges', async () => {
    const pid = await load(seq('p1', ['/end', '/b', '/end']));
    expect(await paths(pid, { pathsFilter: { endPoint: '/end' } })).toEqual([]);
  });
});

it('a start point reached in two sessions (30 minutes apart) starts two paths', async () => {
  const pid = await load([...seq('p1', ['/x', '/start', '/a']), ...seq('p1', ['/start', '/b', '/start'], 40)]);
  expect(edges(await paths(pid, { pathsFilter: { startPoint: '/start' } }))).toEqual(['1_/start -> 2_/a (1)', '1_/start -> 2_/b (1)', '2_/b -> 3_/start (1)']);
  expect(await people(pid, { startPoint: '/start', pathStartKey: '1_/start', pathEndKey: '2_/b' })).toEqual(['p1']);
});

it('test_end: the actors behind the nodes of end-point paths (pathEndKey, pathDropoffKey)', async () => {
  // PostHog's test_end layout: person_1 /1../5, /about, /after; person_2 /5, /about; person_3 /3, /4, /about, /after
  const pid = await load([
    ...seq('person_1', ['/1', '/2', '/3', '/4', '/5', '/about', '/after']),
    ...seq('person_2', ['/5', '/about']),
    ...seq('person_3', ['/3', '/4', '/about', '/after']),
  ]);
  const pf = { includeEventTypes: ['$pageview'], endPoint: '/about' };
  // paths (last five items up to /about): person_1 /2 /3 /4 /5 /about; person_2 /5 /about; person_3 /3 /4 /about
  expect(await people(pid, { ...pf, pathEndKey: '2_/about' })).toEqual(['person_2']);
  expect(await people(pid, { ...pf, pathEndKey: '3_/about' })).toEqual(['person_3']);
  expect(await people(pid, { ...pf, pathEndKey: '5_/about' })).toEqual(['person_1']);
  expect(await people(pid, { ...pf, pathDropoffKey: '5_/about' })).toEqual(['person_1']);
  expect(await people(pid, { ...pf, pathStartKey: '1_/3', pathEndKey: '2_/4' })).toEqual(['person_3']);
  // /after is past the end point: no node
  expect(await people(pid, { ...pf, pathEndKey: '6_/after' })).toEqual([]);
});

describe('date bounds (reference §1.5 with the day interval paths use)', () => {
  let pid: number;
  beforeAll(async () => {
    pid = await load([pv('p1', '/1', minute(1)), pv('p1', '/2', minute(2)), pv('p1', '/3', minute(4)), pv('p1', '/4', minute(6))]);
  });

  it('an absolute date_from starts at the start of its day, an absolute date_to ends at the end of its day', async () => {
    expect(edges(await paths(pid, { dateRange: { date_from: '2021-05-01 00:01:30', date_to: '2021-05-01 00:05:00' } }))).toEqual([
      '1_/1 -> 2_/2 (1)',
      '2_/2 -> 3_/3 (1)',
      '3_/3 -> 4_/4 (1)',
    ]);
  });

  it('explicitDate: the bounds are used as given', async () => {
    expect(edges(await paths(pid, { dateRange: { date_from: '2021-05-01 00:01:30', date_to: '2021-05-01 00:05:00', explicitDate: true } }))).toEqual(['1_/2 -> 2_/3 (1)']);
  });
});

it('sessions are split by 30 minutes of inactivity, not by $session_id (reference §5.3)', async () => {
  const pid = await load([
    pv('p1', '/a', minute(1), { $session_id: 's1' }),
    pv('p1', '/b', minute(2), { $session_id: 's2' }),
    pv('p1', '/c', minute(40), { $session_id: 's2' }),
  ]);
  expect(edges(await paths(pid, {}))).toEqual(['1_/a -> 2_/b (1)']);
});

it('includeEventTypes [] is every event, as when it is left out', async () => {
  const pid = await load([pv('p1', '/a', minute(1)), ev('p1', 'clicked', minute(2)), screen('p1', 'home', minute(3))]);
  const all = ['1_/a -> 2_clicked (1)', '2_clicked -> 3_home (1)'];
  expect(edges(await paths(pid, { pathsFilter: { includeEventTypes: [] } }))).toEqual(all);
  expect(edges(await paths(pid, {}))).toEqual(all);
});

it('minEdgeWeight above maxEdgeWeight: no edge can pass, an empty list', async () => {
  const pid = await load([...seq('p1', ['/a', '/b']), ...seq('p2', ['/a', '/b'])]);
  expect(await paths(pid, { pathsFilter: { minEdgeWeight: 3, maxEdgeWeight: 2 } })).toEqual([]);
  expect(edges(await paths(pid, { pathsFilter: { minEdgeWeight: 2, maxEdgeWeight: 2 } }))).toEqual(['1_/a -> 2_/b (2)']);
});
