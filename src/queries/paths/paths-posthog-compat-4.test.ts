/**
 * Fourth pass over PostHog's paths suites (posthog/hogql_queries/insights/test/test_paths_query_runner.py and
 * test_paths_query_runner_ee.py): the cases the earlier compat files do not pin — test_step_conversion_times,
 * team and local path cleaning rules together (test_path_by_grouping_replacement_multiple), start/end points on grouped
 * or cleaned items, edge weights with the edge limit, and the actors behind an end point. Expected values follow
 * PostHog's semantics (reference §5.3); fixtures are PostHog's where short, else a smaller copy of their shape.
 */
import { ev, openHarness, persons, type Harness } from '../funnels/testing';
import { edges, type Link, pv } from './testing';
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

async function load(events: ReturnType<typeof ev>[]): Promise<number> {
  return h.load({ persons: persons(...new Set(events.map((e) => e.distinct_id))), events });
}
const paths = async (pid: number, query: Record<string, unknown>, project: Record<string, unknown> = {}): Promise<Link[]> =>
  (await h.run(pathsRunner, { kind: 'PathsQuery', dateRange: RANGE, pathsFilter: {}, ...query }, pid, project as any)).results;
async function people(pid: number, pathsFilter: Record<string, unknown>, project: Record<string, unknown> = {}): Promise<string[]> {
  const source = { kind: 'PathsQuery', dateRange: RANGE, pathsFilter };
  const r = await h.run(actorsRunner, { kind: 'ActorsQuery', select: ['person'], source: { kind: 'InsightActorsQuery', source } }, pid, project as any);
  return (r.results as any[]).map((row) => row[0].distinct_ids[0]).sort();
}

describe('test_step_conversion_times', () => {
  it('average_conversion_time is the mean of the persons\' times on each edge, in milliseconds', async () => {
    const pid = await load([
      pv('fake', '/1', '2012-01-01T03:21:34Z'),
      pv('fake', '/2', '2012-01-01T03:22:34Z'),
      pv('fake', '/3', '2012-01-01T03:24:34Z'),
      pv('fake2', '/1', '2012-01-01T03:21:34Z'),
      pv('fake2', '/2', '2012-01-01T03:23:34Z'),
    ]);
    expect(await paths(pid, { pathsFilter: { stepLimit: 4, includeEventTypes: ['$pageview'] } })).toEqual([
      { source: '1_/1', target: '2_/2', value: 2, average_conversion_time: 90_000 },
      { source: '2_/2', target: '3_/3', value: 1, average_conversion_time: 120_000 },
    ]);
  });
});

describe('test_path_by_grouping_replacement_multiple: team rules, then local rules, each on the result of the previous', () => {
  const team = {
    path_cleaning_filters: [
      { alias: '?<param>', regex: '\\?(.*)' },
      { alias: '/<id>', regex: '/\\d+' },
    ],
  };
  let pid: number;
  beforeAll(async () => {
    pid = await load([
      pv('p1', 'test.com/step1', '2012-01-01T03:21:00Z'),
      pv('p1', 'test.com/step2', '2012-01-01T03:22:00Z'),
      pv('p1', 'test.com/step3/12?key=value1', '2012-01-01T03:23:00Z'),
      pv('p2', 'test.com/step1', '2012-01-01T03:21:00Z'),
      pv('p2', 'test.com/step2', '2012-01-01T03:22:00Z'),
      pv('p2', 'test.com/step3/34?key=value2', '2012-01-01T03:23:00Z'),
      pv('p3', 'test.com/step1', '2012-01-01T03:21:00Z'),
      pv('p3', 'test.com/step2', '2012-01-01T03:22:00Z'),
      pv('p3', 'test.com/step3/56?key=value3', '2012-01-01T03:23:00Z'),
    ]);
  });

  it('pathReplacements applies the team rules in order', async () => {
    expect(edges(await paths(pid, { pathsFilter: { includeEventTypes: ['$pageview'], pathReplacements: true } }, team))).toEqual([
      '1_test.com/step1 -> 2_test.com/step2 (3)',
      '2_test.com/step2 -> 3_test.com/step3/<id>?<param> (3)',
    ]);
  });

  it('local rules run after the team rules, on their output', async () => {
    const localPathCleaningFilters = [{ alias: '/stepN', regex: '/step\\d' }];
    expect(edges(await paths(pid, { pathsFilter: { includeEventTypes: ['$pageview'], pathReplacements: true, localPathCleaningFilters } }, team))).toEqual([
      '1_test.com/stepN -> 2_test.com/stepN/<id>?<param> (3)',
    ]);
  });

  it('without pathReplacements the team rules are not applied; local rules still are', async () => {
    const localPathCleaningFilters = [{ alias: '', regex: '\\?.*' }];
    expect(edges(await paths(pid, { pathsFilter: { includeEventTypes: ['$pageview'], localPathCleaningFilters } }, team))).toEqual([
      '1_test.com/step1 -> 2_test.com/step2 (3)',
      '2_test.com/step2 -> 3_test.com/step3/12 (1)',
      '2_test.com/step2 -> 3_test.com/step3/34 (1)',
      '2_test.com/step2 -> 3_test.com/step3/56 (1)',
    ]);
  });

  it('start and end points match the cleaned item; the actors behind a cleaned node are every person mapped to it', async () => {
    const pf = { includeEventTypes: ['$pageview'], pathReplacements: true, startPoint: 'test.com/step2' };
    expect(edges(await paths(pid, { pathsFilter: pf }, team))).toEqual(['1_test.com/step2 -> 2_test.com/step3/<id>?<param> (3)']);
    expect(edges(await paths(pid, { pathsFilter: { includeEventTypes: ['$pageview'], pathReplacements: true, endPoint: 'test.com/step3/<id>?<param>' } }, team))).toEqual([
      '1_test.com/step1 -> 2_test.com/step2 (3)',
      '2_test.com/step2 -> 3_test.com/step3/<id>?<param> (3)',
    ]);
    expect(await people(pid, { ...pf, pathEndKey: '2_test.com/step3/<id>?<param>' }, team)).toEqual(['p1', 'p2', 'p3']);
  });
});

describe('start point on a grouped item (test_path_groupings with startPoint)', () => {
  it('a startPoint equal to a pathGroupings pattern starts at the first item the pattern groups', async () => {
    const pid = await load([
      pv('p1', '/home', '2012-01-01T03:21:00Z'),
      pv('p1', '/product/1', '2012-01-01T03:22:00Z'),
      pv('p1', '/cart', '2012-01-01T03:23:00Z'),
      pv('p2', '/product/2', '2012-01-01T03:21:00Z'),
      pv('p2', '/product/3', '2012-01-01T03:22:00Z'),
      pv('p2', '/cart', '2012-01-01T03:23:00Z'),
      pv('p3', '/home', '2012-01-01T03:21:00Z'),
      pv('p3', '/cart', '2012-01-01T03:22:00Z'),
    ]);
    expect(edges(await paths(pid, { pathsFilter: { pathGroupings: ['/product/*'], startPoint: '/product/*' } }))).toEqual(['1_/product/* -> 2_/cart (2)']);
  });
});

describe('edge weights with the edge limit', () => {
  it('minEdgeWeight and maxEdgeWeight bound value before edgeLimit cuts; edges orphaned by the bounds are dropped', async () => {
    const evs: ReturnType<typeof ev>[] = [];
    // 3 persons /a → /b → /c; 2 persons /a → /d; 1 person /a → /b → /e
    const walk = (id: string, urls: string[]) => urls.forEach((u, i) => evs.push(pv(id, u, `2012-01-01T03:2${i}:00Z`)));
    for (const id of ['u1', 'u2', 'u3']) walk(id, ['/a', '/b', '/c']);
    for (const id of ['u4', 'u5']) walk(id, ['/a', '/d']);
    walk('u6', ['/a', '/b', '/e']);
    const pid = await load(evs);
    expect(edges(await paths(pid, {}))).toEqual(['1_/a -> 2_/b (4)', '2_/b -> 3_/c (3)', '1_/a -> 2_/d (2)', '2_/b -> 3_/e (1)']);
    expect(edges(await paths(pid, { pathsFilter: { minEdgeWeight: 2 } }))).toEqual(['1_/a -> 2_/b (4)', '2_/b -> 3_/c (3)', '1_/a -> 2_/d (2)']);
    expect(edges(await paths(pid, { pathsFilter: { minEdgeWeight: 2, edgeLimit: 2 } }))).toEqual(['1_/a -> 2_/b (4)', '2_/b -> 3_/c (3)']);
    // every 1_ edge above the bound: the deeper edges have no path from a 1_ node and are dropped too
    expect(edges(await paths(pid, { pathsFilter: { maxEdgeWeight: 3 } }))).toEqual(['1_/a -> 2_/d (2)']);
  });
});

describe('actors are persons (reference §5.3: "actor = person_id (groups not used)")', () => {
  it('aggregation_group_type_index on a PathsQuery does not merge the persons of a group into one path', async () => {
    const org = { $groups: { organization: 'org:1' } };
    const pid = await load([
      ev('p1', '$pageview', '2012-01-01T03:21:00Z', { $current_url: '/a', ...org }),
      ev('p2', '$pageview', '2012-01-01T03:21:30Z', { $current_url: '/b', ...org }),
      ev('p1', '$pageview', '2012-01-01T03:22:00Z', { $current_url: '/c', ...org }),
      ev('p2', '$pageview', '2012-01-01T03:22:30Z', { $current_url: '/c', ...org }),
    ]);
    const r = await paths(pid, { aggregation_group_type_index: 0 });
    expect(edges(r)).toEqual(['1_/a -> 2_/c (1)', '1_/b -> 2_/c (1)']);
    expect(await people(pid, { pathEndKey: '2_/c' })).toEqual(['p1', 'p2']);
  });
});

describe('default edge limit (reference §5.1: edgeLimit defaults to 50)', () => {
  it('60 edges of weight 1: the first 50 in source order are returned', async () => {
    const evs: ReturnType<typeof ev>[] = [];
    const ids = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
    for (const i of ids) evs.push(pv(`u${i}`, `/s${i}`, '2012-01-01T03:21:00Z'), pv(`u${i}`, `/t${i}`, '2012-01-01T03:22:00Z'));
    const pid = await load(evs);
    const r = await paths(pid, { pathsFilter: { stepLimit: 2 } });
    expect(r).toHaveLength(50);
    expect(edges(r)).toEqual(ids.slice(0, 50).map((i) => `1_/s${i} -> 2_/t${i} (1)`));
    expect(await paths(pid, { pathsFilter: { stepLimit: 2, edgeLimit: 60 } })).toHaveLength(60);
  });
});
