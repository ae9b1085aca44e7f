/**
 * Sixth pass over PostHog's paths suites (posthog/hogql_queries/insights/paths/test/test_paths_query_runner.py and
 * test_paths_query_runner_ee.py): the cases the earlier compat files (paths-posthog-compat, -2 … -5, paths.test.ts) do
 * not pin — events of types left out do not bridge a 30-minute gap, a session split at exactly 30 minutes, a null
 * ProductQL item, a screen without a name, capture groups in cleaning rules, `hogql` without an expression, end points
 * over groupings, and the actors of a one-item path. Expected values follow PostHog's semantics (reference §5.3);
 * fixtures are small copies of the shape of PostHog's.
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
/** `2021-05-01T..:mm:00Z`: minute `m` of May 1st 2021. */
const minute = (m: number) => `2021-05-01T${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}:00Z`;
const seq = (id: string, urls: string[], from = 1) => urls.map((u, i) => pv(id, u, minute(from + i)));
const MAY = { date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 00:00:00' };

async function load(events: ReturnType<typeof ev>[], personList?: unknown[]): Promise<number> {
  return h.load({ persons: personList ?? persons(...new Set(events.map((e) => e.distinct_id))), events });
}
const paths = async (pid: number, query: Record<string, unknown>, project: Record<string, unknown> = {}): Promise<Link[]> =>
  (await h.run(pathsRunner, { kind: 'PathsQuery', dateRange: MAY, pathsFilter: {}, ...query }, pid, project as any)).results;
/** The first distinct id of each actor behind a node or edge, sorted. */
async function people(pid: number, pathsFilter: Record<string, unknown>): Promise<string[]> {
  const source = { kind: 'PathsQuery', dateRange: MAY, pathsFilter };
  const r = await h.run(actorsRunner, { kind: 'ActorsQuery', select: ['person'], source: { kind: 'InsightActorsQuery', source } }, pid);
  return (r.results as any[]).map((row) => row[0].distinct_ids[0]).sort();
}

describe('sessions (reference §5.3: a gap of 30 minutes or more between the events of the path starts a new one)', () => {
  it('with includeEventTypes, events of other types do not bridge a gap: pageviews 40 minutes apart are two paths', async () => {
    // a custom event 20 minutes after /a would keep the session alive if every event counted
    const pid = await load([pv('p1', '/a', minute(1)), ev('p1', 'clicked', minute(21)), pv('p1', '/b', minute(41)), pv('p1', '/c', minute(42))]);
    expect(edges(await paths(pid, { pathsFilter: { includeEventTypes: ['$pageview'] } }))).toEqual(['1_/b -> 2_/c (1)']);
    // all events: one session, /a → clicked → /b → /c
    expect(edges(await paths(pid, {}))).toEqual(['1_/a -> 2_clicked (1)', '2_clicked -> 3_/b (1)', '3_/b -> 4_/c (1)']);
  });

  it('excluded items do not bridge a gap either', async () => {
    const pid = await load([pv('p1', '/a', minute(1)), pv('p1', '/ping', minute(21)), pv('p1', '/b', minute(41)), pv('p1', '/c', minute(42))]);
    expect(edges(await paths(pid, { pathsFilter: { excludeEvents: ['/ping'] } }))).toEqual(['1_/b -> 2_/c (1)']);
  });

  it('a gap of exactly 30 minutes splits; 29 minutes 59 seconds does not', async () => {
    const pid = await load([
      pv('p1', '/a', '2021-05-01T00:00:00Z'),
      pv('p1', '/b', '2021-05-01T00:30:00Z'),
      pv('p2', '/a', '2021-05-01T00:00:00Z'),
      pv('p2', '/b', '2021-05-01T00:29:59Z'),
    ]);
    expect(await paths(pid, {})).toEqual([{ source: '1_/a', target: '2_/b', value: 1, average_conversion_time: 1_799_000 }]);
  });
});

describe('path items', () => {
  it('test_custom_hogql_paths: a ProductQL item that is null is the item "" (ifNull(…, \'\'))', async () => {
    const pid = await load([ev('p1', 'a', minute(1), { step: 'one' }), ev('p1', 'b', minute(2)), ev('p1', 'c', minute(3), { step: 'three' })]);
    expect(edges(await paths(pid, { pathsFilter: { includeEventTypes: ['hogql'], pathsHogQLExpression: 'properties.step' } }))).toEqual(['1_one -> 2_ (1)', '2_ -> 3_three (1)']);
  });

  it('includeEventTypes hogql without pathsHogQLExpression: every event by its name, pageviews and screens too', async () => {
    const pid = await load([pv('p1', '/a', minute(1)), screen('p1', 'home', minute(2)), ev('p1', 'clicked', minute(3))]);
    expect(edges(await paths(pid, { pathsFilter: { includeEventTypes: ['hogql'] } }))).toEqual(['1_$pageview -> 2_$screen (1)', '2_$screen -> 3_clicked (1)']);
  });

  it('a screen without $screen_name is the item ""', async () => {
    const pid = await load([screen('p1', 'home', minute(1)), ev('p1', '$screen', minute(2)), screen('p1', 'cart', minute(3))]);
    expect(edges(await paths(pid, { pathsFilter: { includeEventTypes: ['$screen'] } }))).toEqual(['1_home -> 2_ (1)', '2_ -> 3_cart (1)']);
  });

  it('test_path_by_grouping_replacement with a capture group: the alias can use \\1 (replaceRegexpAll)', async () => {
    const pid = await load([...seq('p1', ['/shop/12/item', '/shop/13/item', '/cart']), ...seq('p2', ['/shop/7/item', '/cart'])]);
    const localPathCleaningFilters = [{ regex: '/shop/\\d+/(\\w+)', alias: '/shop/:id/\\1' }];
    expect(edges(await paths(pid, { pathsFilter: { localPathCleaningFilters } }))).toEqual(['1_/shop/:id/item -> 2_/cart (2)']);
  });

  it('cleaning rules apply to every kind of item: a custom event name is cleaned too', async () => {
    const pid = await load([ev('p1', 'viewed_item_12', minute(1)), ev('p1', 'viewed_item_13', minute(2)), ev('p1', 'bought', minute(3))]);
    const localPathCleaningFilters = [{ regex: '_\\d+$', alias: '_N' }];
    expect(edges(await paths(pid, { pathsFilter: { includeEventTypes: ['custom_event'], localPathCleaningFilters } }))).toEqual(['1_viewed_item_N -> 2_bought (1)']);
  });
});

describe('end points and groupings', () => {
  it('an endPoint equal to a pathGroupings pattern ends at the first item the pattern groups', async () => {
    const pid = await load([...seq('p1', ['/home', '/pricing', '/product/1', '/product/2', '/cart']), ...seq('p2', ['/pricing', '/product/3'])]);
    expect(edges(await paths(pid, { pathsFilter: { pathGroupings: ['/product/*'], endPoint: '/product/*' } }))).toEqual([
      '1_/home -> 2_/pricing (1)',
      '1_/pricing -> 2_/product/* (1)',
      '2_/pricing -> 3_/product/* (1)',
    ]);
  });

  it('endPoint with a trailing slash matches the item without it', async () => {
    const pid = await load(seq('p1', ['/a', '/b/', '/c']));
    expect(edges(await paths(pid, { pathsFilter: { endPoint: '/b/' } }))).toEqual(['1_/a -> 2_/b (1)']);
  });
});

describe('limits per session (test_step_limit, test_paths_end)', () => {
  it('stepLimit 2: one edge per session path, from its first two items', async () => {
    const pid = await load([...seq('p1', ['/a', '/b', '/c']), ...seq('p1', ['/c', '/a'], 60), ...seq('p2', ['/a', '/b'])]);
    expect(edges(await paths(pid, { pathsFilter: { stepLimit: 2 } }))).toEqual(['1_/a -> 2_/b (2)', '1_/c -> 2_/a (1)']);
  });

  it('an end point reached in two sessions ends two paths; a session without it is dropped', async () => {
    const pid = await load([...seq('p1', ['/x', '/end', '/y']), ...seq('p1', ['/y', '/z', '/end'], 40), ...seq('p1', ['/x', '/y'], 80)]);
    expect(edges(await paths(pid, { pathsFilter: { endPoint: '/end' } }))).toEqual(['1_/x -> 2_/end (1)', '1_/y -> 2_/z (1)', '2_/z -> 3_/end (1)']);
  });
});

describe('the actors of nodes', () => {
  it('a one-item path has a node and an actor (pathEndKey, pathDropoffKey), but no edge', async () => {
    const pid = await load([...seq('solo', ['/a']), ...seq('pair', ['/a', '/b'])]);
    expect(edges(await paths(pid, {}))).toEqual(['1_/a -> 2_/b (1)']);
    expect(await people(pid, { pathEndKey: '1_/a' })).toEqual(['pair', 'solo']);
    expect(await people(pid, { pathDropoffKey: '1_/a' })).toEqual(['solo']);
    expect(await people(pid, { pathDropoffKey: '2_/b' })).toEqual(['pair']);
    expect(await people(pid, { pathStartKey: '1_/a' })).toEqual(['pair']);
  });

  it('an actor with the node in two sessions is listed once', async () => {
    const pid = await load([...seq('p1', ['/a', '/b']), ...seq('p1', ['/a', '/b'], 60), ...seq('p2', ['/a', '/c'])]);
    expect(edges(await paths(pid, {}))).toEqual(['1_/a -> 2_/b (2)', '1_/a -> 2_/c (1)']);
    expect(await people(pid, { pathStartKey: '1_/a', pathEndKey: '2_/b' })).toEqual(['p1']);
    expect(await people(pid, { pathEndKey: '1_/a' })).toEqual(['p1', 'p2']);
  });

  it('a pathDropoffKey overrides pathStartKey and pathEndKey (PostHog checks those only without a drop-off key)', async () => {
    const pid = await load([...seq('solo', ['/a']), ...seq('pair', ['/a', '/b'])]);
    expect(await people(pid, { pathDropoffKey: '1_/a', pathEndKey: '2_/b' })).toEqual(['solo']);
    expect(await people(pid, { pathDropoffKey: '2_/b', pathStartKey: '1_/x' })).toEqual(['pair']);
    expect(await people(pid, { pathDropoffKey: '1_/a', pathStartKey: '1_/a', pathEndKey: '2_/b' })).toEqual(['solo']);
  });
});

it('average_conversion_time across sessions: the mean over every traversal of the edge, in milliseconds', async () => {
  // p1 crosses /a → /b twice (1 and 3 minutes), p2 once (2 minutes)
  const pid = await load([pv('p1', '/a', minute(1)), pv('p1', '/b', minute(2)), pv('p1', '/a', minute(60)), pv('p1', '/b', minute(63)), pv('p2', '/a', minute(1)), pv('p2', '/b', minute(3))]);
  expect(await paths(pid, {})).toEqual([{ source: '1_/a', target: '2_/b', value: 3, average_conversion_time: 2 * ONE_MINUTE }]);
});

describe('pageviews with an empty or missing $current_url (ifNull(properties.$current_url, \'\'): "" and no key are one item)', () => {
  let pid: number;
  beforeAll(async () => {
    pid = await load([
      // p1: /a, a pageview with "" and one without the key (one run of the item ""), /b
      pv('p1', '/a', minute(1)),
      pv('p1', '', minute(2)),
      pv('p1', null, minute(3)),
      pv('p1', '/b', minute(4)),
      // p2: /c, a URL-less pageview, /b
      pv('p2', '/c', minute(1)),
      pv('p2', null, minute(2)),
      pv('p2', '/b', minute(3)),
    ]);
  });

  it('the empty item is a node like any other; the run of "" carries the time of its last event', async () => {
    expect(await paths(pid, {})).toEqual([
      { source: '2_', target: '3_/b', value: 2, average_conversion_time: ONE_MINUTE },
      { source: '1_/a', target: '2_', value: 1, average_conversion_time: 2 * ONE_MINUTE },
      { source: '1_/c', target: '2_', value: 1, average_conversion_time: ONE_MINUTE },
    ]);
  });

  it('the per-actor evaluation (a start point) reads the same items', async () => {
    expect(edges(await paths(pid, { pathsFilter: { startPoint: '/a' } }))).toEqual(['1_/a -> 2_ (1)', '2_ -> 3_/b (1)']);
  });

  it('excludeEvents [""] drops the URL-less pageviews (path_item NOT IN excludeEvents)', async () => {
    expect(edges(await paths(pid, { pathsFilter: { excludeEvents: [''] } }))).toEqual(['1_/a -> 2_/b (1)', '1_/c -> 2_/b (1)']);
  });

  it('an empty startPoint or endPoint is no point (PostHog tests them for truthiness)', async () => {
    const all = edges(await paths(pid, {}));
    expect(edges(await paths(pid, { pathsFilter: { startPoint: '' } }))).toEqual(all);
    expect(edges(await paths(pid, { pathsFilter: { endPoint: '' } }))).toEqual(all);
  });

  it('an empty item that ends a session is dropped (PostHog keeps an item that differs from the next, the last compared with \'\')', async () => {
    const pid2 = await load([
      // p1: /a, /b, a URL-less pageview last; p2: /a, then a run of ""; p3: only ""; p4: "" first, then /x
      ...seq('p1', ['/a', '/b']),
      pv('p1', null, minute(3)),
      pv('p2', '/a', minute(1)),
      pv('p2', '', minute(2)),
      pv('p2', null, minute(3)),
      pv('p3', '', minute(1)),
      pv('p4', null, minute(1)),
      pv('p4', '/x', minute(2)),
    ]);
    expect(edges(await paths(pid2, {}))).toEqual(['1_ -> 2_/x (1)', '1_/a -> 2_/b (1)']);
    expect(edges(await paths(pid2, { pathsFilter: { startPoint: '/a' } }))).toEqual(['1_/a -> 2_/b (1)']);
    expect(await people(pid2, { pathDropoffKey: '1_/a' })).toEqual(['p2']);
    expect(await people(pid2, { pathDropoffKey: '2_/b' })).toEqual(['p1']);
    expect(await people(pid2, { pathEndKey: '2_' })).toEqual([]);
    expect(await people(pid2, { pathEndKey: '1_' })).toEqual(['p4']);
  });

  it('the actors of the empty node', async () => {
    expect(await people(pid, { pathEndKey: '2_' })).toEqual(['p1', 'p2']);
    expect(await people(pid, { pathStartKey: '1_/a', pathEndKey: '2_' })).toEqual(['p1']);
    expect(await people(pid, { pathStartKey: '2_', pathEndKey: '3_/b' })).toEqual(['p1', 'p2']);
  });
});
