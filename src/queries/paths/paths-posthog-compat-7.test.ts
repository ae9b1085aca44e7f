/**
 * Seventh pass over PostHog's paths suites (posthog/hogql_queries/insights/paths/test/test_paths_query_runner.py and
 * test_paths_query_runner_ee.py): funnel paths whose funnel names its actor through `funnelAggregateByHogQL`
 * (`person_id`, or beside a group index) or filters its own events, the drop-off node of a path cut by stepLimit,
 * ProductQL items with exclusions and groupings, start and end points over cleaned and grouped items, and edge weights
 * on the per-actor evaluation. Expected values follow PostHog's semantics (reference §5.3); fixtures are small copies
 * of PostHog's.
 */
import { actionSource, ev, openHarness, persons, type Harness } from '../funnels/testing';
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

const ONE_MINUTE = 60_000;
/** `2021-05-01T..:mm:00Z`: minute `m` of May 1st 2021. */
const minute = (m: number) => `2021-05-01T${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}:00Z`;
const seq = (id: string, urls: string[], from = 1) => urls.map((u, i) => pv(id, u, minute(from + i)));
const evs = (id: string, names: string[], from = 1, props: Record<string, unknown> = {}) => names.map((n, i) => ev(id, n, minute(from + i), { ...props })) // a copy each: ingest rewrites `$groups` in place;
const MAY = { date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 00:00:00' };

async function load(events: ReturnType<typeof ev>[]): Promise<number> {
  return h.load({ persons: persons(...new Set(events.map((e) => e.distinct_id))), events });
}
const paths = async (pid: number, query: Record<string, unknown>): Promise<Link[]> =>
  (await h.run(pathsRunner, { kind: 'PathsQuery', dateRange: MAY, pathsFilter: {}, ...query }, pid)).results;
/** PostHog's `_get_people_at_path`: the ids of the actors behind a node or edge, sorted. */
async function actors(pid: number, query: Record<string, unknown>, keys: Record<string, string>): Promise<string[]> {
  const source = { kind: 'PathsQuery', dateRange: MAY, ...query, pathsFilter: { ...((query.pathsFilter as object) ?? {}), ...keys } };
  const r = await h.run(actorsRunner, { kind: 'ActorsQuery', select: ['actor'], source: { kind: 'InsightActorsQuery', source } }, pid);
  return (r.results as any[]).map((row) => row[0].distinct_ids?.[0] ?? row[0].id).sort();
}

describe('funnel paths of a funnel with funnelAggregateByHogQL (the actor as the funnels runner resolves it)', () => {
  let pid: number;
  const org = (key: string) => ({ $groups: { organization: key } });
  beforeAll(async () => {
    const gi = (id: string, key: string) => ev(id, '$groupidentify', '2021-04-30T00:00:00Z', { $group_type: 'organization', $group_key: key, $group_set: { name: key } });
    pid = await load([
      gi('u1', 'org:1'),
      gi('u3', 'org:2'),
      // u1 converts (step one → browse → step two → after); u2 drops off after step one; both in org:1
      ...evs('u1', ['step one', 'browse', 'step two', 'after'], 1, org('org:1')),
      ...evs('u2', ['step one', 'wander'], 1, org('org:1')),
      // u3 of org:2 drops off
      ...evs('u3', ['step one', 'leave'], 1, org('org:2')),
    ]);
  });
  const source = (extra: Record<string, unknown> = {}, funnelsFilter: Record<string, unknown> = {}) => ({
    kind: 'FunnelsQuery',
    dateRange: MAY,
    series: ['step one', 'step two'].map((event) => ({ kind: 'EventsNode', event })),
    funnelsFilter: { funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day', ...funnelsFilter },
    ...extra,
  });
  const q = (funnelPathType: string, funnelStep: number, src: Record<string, unknown>) => ({ pathsFilter: {}, funnelPathsFilter: { funnelPathType, funnelStep, funnelSource: src } });

  it('funnelAggregateByHogQL "person_id" is the person, as without it (test_path_by_funnel_after_step / _after_dropoff)', async () => {
    const byPerson = source({}, { funnelAggregateByHogQL: 'person_id' });
    for (const [type, step] of [
      ['funnel_path_after_step', 2],
      ['funnel_path_after_step', -2],
      ['funnel_path_before_step', 2],
      ['funnel_path_between_steps', 2],
    ] as const)
      expect(await paths(pid, q(type, step, byPerson))).toEqual(await paths(pid, q(type, step, source())));
    expect(await paths(pid, q('funnel_path_after_step', 2, byPerson))).toEqual([{ source: '1_step two', target: '2_after', value: 1, average_conversion_time: ONE_MINUTE }]);
    expect(edges(await paths(pid, q('funnel_path_after_step', -2, byPerson)))).toEqual(['1_step one -> 2_leave (1)', '1_step one -> 2_wander (1)']);
    expect(await actors(pid, q('funnel_path_after_step', -2, byPerson), { pathEndKey: '2_wander' })).toEqual(['u2']);
  });

  it('with aggregation_group_type_index the group is the actor (the group index comes first), whatever funnelAggregateByHogQL says', async () => {
    const byGroup = source({ aggregation_group_type_index: 0 }, { funnelAggregateByHogQL: 'properties.$session_id' });
    // org:1 converted (u1's step two); its events after step two: `after`. org:2 dropped off.
    expect(edges(await paths(pid, q('funnel_path_after_step', 2, byGroup)))).toEqual(['1_step two -> 2_after (1)']);
    expect(edges(await paths(pid, q('funnel_path_after_step', -2, byGroup)))).toEqual(['1_step one -> 2_leave (1)']);
    expect(await actors(pid, q('funnel_path_after_step', -2, byGroup), { pathEndKey: '2_leave' })).toEqual(['org:2']);
  });
});

describe('test_path_by_funnel_after_dropoff_with_group_filter: the funnel\'s filters pick the actors, the paths query\'s the events', () => {
  let pid: number;
  beforeAll(async () => {
    const chrome = { $browser: 'Chrome' };
    pid = await load([
      ev('u1', 'step one', minute(1), chrome),
      ev('u1', 'step two', minute(2), chrome),
      ev('u1', 'after', minute(3)),
      ev('u1', 'later', minute(4), chrome),
      ev('u2', 'step one', minute(1), { $browser: 'Firefox' }),
      ev('u2', 'step two', minute(2), { $browser: 'Firefox' }),
      ev('u2', 'elsewhere', minute(3)),
    ]);
  });
  const source = {
    kind: 'FunnelsQuery',
    dateRange: MAY,
    series: ['step one', 'step two'].map((event) => ({ kind: 'EventsNode', event })),
    properties: [{ type: 'event', key: '$browser', operator: 'exact', value: 'Chrome' }],
  };
  const funnelPathsFilter = { funnelPathType: 'funnel_path_after_step', funnelStep: 2, funnelSource: source };

  it('only the actors of the filtered funnel; their events without the funnel\'s property are still on the path', async () => {
    const q = { pathsFilter: {}, funnelPathsFilter };
    expect(edges(await paths(pid, q))).toEqual(['1_step two -> 2_after (1)', '2_after -> 3_later (1)']);
    expect(await actors(pid, q, { pathEndKey: '2_after' })).toEqual(['u1']);
  });

  it('the paths query\'s own properties filter the path events', async () => {
    const properties = [{ type: 'event', key: '$browser', operator: 'exact', value: 'Chrome' }];
    expect(edges(await paths(pid, { pathsFilter: {}, funnelPathsFilter, properties }))).toEqual(['1_step two -> 2_later (1)']);
  });
});

describe('test_step_limit: the drop-off node of a path cut by stepLimit is its last kept item (path_dropoff_key of limited_path)', () => {
  let pid: number;
  beforeAll(async () => {
    pid = await load([...seq('fake', ['/1', '/2', '/3', '/4', '/5']), ...seq('short', ['/1', '/2'])]);
  });
  it.each<[number, string[], Record<string, string[]>]>([
    [2, ['1_/1 -> 2_/2 (2)'], { '2_/2': ['fake', 'short'], '3_/3': [] }],
    [3, ['1_/1 -> 2_/2 (2)', '2_/2 -> 3_/3 (1)'], { '2_/2': ['short'], '3_/3': ['fake'], '5_/5': [] }],
    [5, ['1_/1 -> 2_/2 (2)', '2_/2 -> 3_/3 (1)', '3_/3 -> 4_/4 (1)', '4_/4 -> 5_/5 (1)'], { '2_/2': ['short'], '3_/3': [], '5_/5': ['fake'] }],
  ])('stepLimit %i', async (stepLimit, expected, dropoffs) => {
    const query = { pathsFilter: { stepLimit } };
    expect(edges(await paths(pid, query))).toEqual(expected);
    for (const [key, who] of Object.entries(dropoffs)) expect(await actors(pid, query, { pathDropoffKey: key })).toEqual(who);
  });
});

describe('ProductQL path items (test_custom_hogql_paths) with the other path filters', () => {
  let pid: number;
  beforeAll(async () => {
    pid = await load([
      ev('p1', 'viewed', minute(1), { page: 'home' }),
      ev('p1', 'viewed', minute(2), { page: 'item-1' }),
      ev('p1', 'viewed', minute(3), { page: 'item-2' }),
      ev('p1', 'bought', minute(4), { page: 'cart' }),
      ev('p2', 'viewed', minute(1), { page: 'home' }),
      ev('p2', 'pinged', minute(2), { page: 'ping' }),
      ev('p2', 'viewed', minute(3), { page: 'item-7' }),
    ]);
  });
  const hogql = (extra: Record<string, unknown>) => ({ pathsFilter: { includeEventTypes: ['hogql'], pathsHogQLExpression: "concat(event, ':', properties.page)", ...extra } });

  it('the expression names every item; excludeEvents matches the expression\'s value', async () => {
    expect(edges(await paths(pid, hogql({ excludeEvents: ['pinged:ping'] })))).toEqual([
      '1_viewed:home -> 2_viewed:item-1 (1)',
      '1_viewed:home -> 2_viewed:item-7 (1)',
      '2_viewed:item-1 -> 3_viewed:item-2 (1)',
      '3_viewed:item-2 -> 4_bought:cart (1)',
    ]);
  });

  it('pathGroupings group the expression\'s values, which then collapse like duplicates', async () => {
    expect(edges(await paths(pid, hogql({ pathGroupings: ['viewed:item-*'] })))).toEqual([
      '1_viewed:home -> 2_pinged:ping (1)',
      '1_viewed:home -> 2_viewed:item-* (1)',
      '2_pinged:ping -> 3_viewed:item-* (1)',
      '2_viewed:item-* -> 3_bought:cart (1)',
    ]);
  });

  it('pathsHogQLExpression without "hogql" in includeEventTypes names nothing: events keep their names', async () => {
    const expected = ['1_viewed -> 2_bought (1)', '1_viewed -> 2_pinged (1)', '2_pinged -> 3_viewed (1)'];
    expect(edges(await paths(pid, { pathsFilter: { includeEventTypes: ['custom_event'], pathsHogQLExpression: 'properties.page' } }))).toEqual(expected);
    expect(edges(await paths(pid, { pathsFilter: { pathsHogQLExpression: 'properties.page' } }))).toEqual(expected);
  });

  it('startPoint and endPoint on grouped ProductQL items', async () => {
    const q = hogql({ pathGroupings: ['viewed:item-*'], startPoint: 'viewed:item-*', endPoint: 'bought:cart' });
    expect(await paths(pid, q)).toEqual([{ source: '1_viewed:item-*', target: '2_bought:cart', value: 1, average_conversion_time: ONE_MINUTE }]);
    expect(await actors(pid, q, { pathStartKey: '1_viewed:item-*', pathEndKey: '2_bought:cart' })).toEqual(['p1']);
  });
});

describe('start and end points over cleaned and grouped URLs (cleaning, then groupings, then the points)', () => {
  let pid: number;
  beforeAll(async () => {
    pid = await load([
      ...seq('p1', ['/home', '/product/1?ref=ad', '/product/2', '/cart/31', '/checkout']),
      ...seq('p2', ['/product/9?ref=mail', '/cart/7', '/home']),
      ...seq('p3', ['/home', '/cart/8']),
    ]);
  });
  const base = { localPathCleaningFilters: [{ regex: '\\?.*$', alias: '' }], pathGroupings: ['/cart/*'] };

  it('startPoint is a cleaned URL, endPoint a grouping pattern: the segment between them', async () => {
    expect(edges(await paths(pid, { pathsFilter: { ...base, startPoint: '/product/1', endPoint: '/cart/*' } }))).toEqual([
      '1_/product/1 -> 2_/product/2 (1)',
      '2_/product/2 -> 3_/cart/* (1)',
    ]);
  });

  it('endPoint alone: every path that reaches the grouped cart, up to it', async () => {
    const q = { pathsFilter: { ...base, endPoint: '/cart/*' } };
    expect(edges(await paths(pid, q))).toEqual([
      '1_/home -> 2_/cart/* (1)',
      '1_/home -> 2_/product/1 (1)',
      '1_/product/9 -> 2_/cart/* (1)',
      '2_/product/1 -> 3_/product/2 (1)',
      '3_/product/2 -> 4_/cart/* (1)',
    ]);
    expect(await actors(pid, q, { pathDropoffKey: '2_/cart/*' })).toEqual(['p2', 'p3']);
  });

  it('an odd stepLimit with an endPoint keeps the last stepLimit items before it (test_paths_end)', async () => {
    expect(edges(await paths(pid, { pathsFilter: { ...base, endPoint: '/cart/*', stepLimit: 3 } }))).toEqual([
      '1_/home -> 2_/cart/* (1)',
      '1_/product/1 -> 2_/product/2 (1)',
      '1_/product/9 -> 2_/cart/* (1)',
      '2_/product/2 -> 3_/cart/* (1)',
    ]);
  });
});

describe('edge weights and the edge limit on the per-actor evaluation (with a start point)', () => {
  let pid: number;
  beforeAll(async () => {
    pid = await load([
      ...seq('a1', ['/start', '/x', '/y']),
      ...seq('a2', ['/start', '/x', '/y']),
      ...seq('a3', ['/start', '/x', '/z']),
      ...seq('a4', ['/start', '/w']),
      ...seq('a5', ['/pre', '/start', '/x', '/y']),
    ]);
  });

  it('minEdgeWeight drops light edges before the limit; what they orphaned goes too', async () => {
    expect(edges(await paths(pid, { pathsFilter: { startPoint: '/start', minEdgeWeight: 2 } }))).toEqual(['1_/start -> 2_/x (4)', '2_/x -> 3_/y (3)']);
  });

  it('maxEdgeWeight drops heavy edges, and the edges only reachable through them', async () => {
    expect(edges(await paths(pid, { pathsFilter: { startPoint: '/start', maxEdgeWeight: 3 } }))).toEqual(['1_/start -> 2_/w (1)']);
  });

  it('edgeLimit keeps the heaviest edges first', async () => {
    expect(edges(await paths(pid, { pathsFilter: { startPoint: '/start', edgeLimit: 2 } }))).toEqual(['1_/start -> 2_/x (4)', '2_/x -> 3_/y (3)']);
    expect(edges(await paths(pid, { pathsFilter: { startPoint: '/start', edgeLimit: 3 } }))).toEqual(['1_/start -> 2_/x (4)', '2_/x -> 3_/y (3)', '1_/start -> 2_/w (1)']);
  });

  it('without a start point, an edge limit that keeps only deeper edges answers nothing', async () => {
    // three first steps into /m, so the deeper /m → /n (3) outweighs each of them (1)
    const other = await load([...seq('b1', ['/a', '/m', '/n']), ...seq('b2', ['/b', '/m', '/n']), ...seq('b3', ['/c', '/m', '/n'])]);
    expect(edges(await paths(other, { pathsFilter: { edgeLimit: 1 } }))).toEqual([]);
    expect(edges(await paths(other, { pathsFilter: { edgeLimit: 2 } }))).toEqual(['2_/m -> 3_/n (3)', '1_/a -> 2_/m (1)']);
  });
});

describe('funnel paths of funnels with action steps and per-step filters (test_path_by_funnel_after_step / _after_dropoff with the funnel\'s own step definitions)', () => {
  let pid: number;
  beforeAll(async () => {
    pid = await load([
      // u1 and u2 reach step two through either event of the "purchase" action; u3 never does
      ...evs('u1', ['step one', 'browse', 'buy a', 'after a'], 1, { $browser: 'Chrome' }),
      ...evs('u2', ['step one', 'buy b', 'after b'], 1, { $browser: 'Firefox' }),
      ...evs('u3', ['step one', 'leave'], 1, { $browser: 'Chrome' }),
    ]);
  });
  const PURCHASE = 7001;
  const extra = actionSource([{ id: PURCHASE, name: 'purchase', steps: [{ event: 'buy a' }, { event: 'buy b' }] } as any]);
  const run = async (pathType: string, step: number, stepTwo: Record<string, unknown>) =>
    (
      await h.run(
        pathsRunner,
        {
          kind: 'PathsQuery',
          dateRange: MAY,
          pathsFilter: {},
          funnelPathsFilter: {
            funnelPathType: pathType,
            funnelStep: step,
            funnelSource: { kind: 'FunnelsQuery', dateRange: MAY, series: [{ kind: 'EventsNode', event: 'step one' }, stepTwo] },
          },
        },
        pid,
        {},
        extra,
      )
    ).results as Link[];

  it('an action as step two: the converters\' paths start at the event that matched the action', async () => {
    const step = { kind: 'ActionsNode', id: PURCHASE };
    expect(edges(await run('funnel_path_after_step', 2, step))).toEqual(['1_buy a -> 2_after a (1)', '1_buy b -> 2_after b (1)']);
    expect(edges(await run('funnel_path_after_step', -2, step))).toEqual(['1_step one -> 2_leave (1)']);
    expect(edges(await run('funnel_path_between_steps', 2, step))).toEqual(['1_step one -> 2_browse (1)', '1_step one -> 2_buy b (1)', '2_browse -> 3_buy a (1)']);
  });

  it('a step with its own property filter: a step-two event that fails it is no conversion, just an event on the drop-off\'s path', async () => {
    const step = { kind: 'ActionsNode', id: PURCHASE, properties: [{ type: 'event', key: '$browser', operator: 'exact', value: 'Chrome' }] };
    expect(edges(await run('funnel_path_after_step', 2, step))).toEqual(['1_buy a -> 2_after a (1)']);
    expect(edges(await run('funnel_path_after_step', -2, step))).toEqual([
      '1_step one -> 2_buy b (1)',
      '1_step one -> 2_leave (1)',
      '2_buy b -> 3_after b (1)',
    ]);
  });
});

describe('funnel paths with path groupings and cleaning (test_path_by_funnel_after_step with test_path_groupings\' filters)', () => {
  let pid: number;
  beforeAll(async () => {
    const at = (id: string, items: [string, number][]) => items.map(([e, s]) => ev(id, e, new Date(Date.parse('2021-05-01T00:00:00Z') + s * 1000).toISOString()));
    pid = await load([
      // two converters: step two, three (u1) or two (u2) events between, step three
      ...at('u1', [['step one', 0], ['step two', 60], ['between_a', 120], ['between_b', 200], ['between_c', 300], ['step three', 420]]),
      ...at('u2', [['step one', 0], ['step two', 60], ['between_a', 100], ['between_b', 180], ['step three', 300]]),
    ]);
  });
  const funnelPathsFilter = {
    funnelPathType: 'funnel_path_after_step',
    funnelStep: 2,
    funnelSource: { kind: 'FunnelsQuery', dateRange: MAY, series: ['step one', 'step two', 'step three'].map((event) => ({ kind: 'EventsNode', event })) },
  };

  it('grouped items collapse like duplicates, carrying the time of the last item of the run', async () => {
    // u1: step two (60 s) → between_* (last at 300 s) → step three (420 s); u2: 60 s → 180 s → 300 s
    expect(await paths(pid, { pathsFilter: { pathGroupings: ['between_*'] }, funnelPathsFilter })).toEqual([
      { source: '1_step two', target: '2_between_*', value: 2, average_conversion_time: ((240 + 120) / 2) * 1000 },
      { source: '2_between_*', target: '3_step three', value: 2, average_conversion_time: ((120 + 120) / 2) * 1000 },
    ]);
  });

  it('local cleaning rules rename the items of funnel paths too', async () => {
    expect(edges(await paths(pid, { pathsFilter: { localPathCleaningFilters: [{ regex: '_[ab]$', alias: '_ab' }] }, funnelPathsFilter }))).toEqual([
      '1_step two -> 2_between_ab (2)',
      '2_between_ab -> 3_between_c (1)',
      '2_between_ab -> 3_step three (1)',
      '3_between_c -> 4_step three (1)',
    ]);
  });
});

describe('exclusions and weights around the points and funnel paths', () => {
  let pid: number;
  beforeAll(async () => {
    pid = await load([
      ...seq('a1', ['/home', '/ad', '/pricing', '/signup']),
      ...seq('a2', ['/home', '/pricing', '/signup']),
      ...seq('a3', ['/home', '/pricing', '/about']),
    ]);
  });

  it('an excluded endPoint ends no path: an empty list', async () => {
    expect(await paths(pid, { pathsFilter: { endPoint: '/signup', excludeEvents: ['/signup'] } })).toEqual([]);
  });

  it('an excluded item before the endPoint: the path closes over it', async () => {
    expect(edges(await paths(pid, { pathsFilter: { endPoint: '/signup', excludeEvents: ['/ad'] } }))).toEqual(['1_/home -> 2_/pricing (2)', '2_/pricing -> 3_/signup (2)']);
  });

  it('an excluded startPoint starts no path; an excluded item after it is skipped', async () => {
    expect(await paths(pid, { pathsFilter: { startPoint: '/home', excludeEvents: ['/home'] } })).toEqual([]);
    expect(edges(await paths(pid, { pathsFilter: { startPoint: '/home', excludeEvents: ['/pricing'] } }))).toEqual([
      '1_/home -> 2_/about (1)',
      '1_/home -> 2_/ad (1)',
      '1_/home -> 2_/signup (1)',
      '2_/ad -> 3_/signup (1)',
    ]);
  });

  it('funnel paths with edge weights: the bounds apply to the funnel actors\' edges', async () => {
    const funnelPathsFilter = {
      funnelPathType: 'funnel_path_after_step',
      funnelStep: 1,
      funnelSource: { kind: 'FunnelsQuery', dateRange: MAY, series: [{ kind: 'EventsNode', event: '$pageview', properties: [{ type: 'event', key: '$current_url', operator: 'exact', value: '/home' }] }, { kind: 'EventsNode', event: '$pageview' }] },
    };
    // everyone reaches step one (/home): a1 /home → /ad → /pricing → /signup; a2 /home → /pricing → /signup; a3 /home → /pricing → /about
    expect(edges(await paths(pid, { pathsFilter: { minEdgeWeight: 2 }, funnelPathsFilter }))).toEqual(['1_/home -> 2_/pricing (2)']);
    // the converters of step two (any later pageview) start at it: a1 at /ad, a2 and a3 at /pricing
    expect(edges(await paths(pid, { pathsFilter: { minEdgeWeight: 2 }, funnelPathsFilter: { ...funnelPathsFilter, funnelStep: 2 } }))).toEqual([]);
    expect(edges(await paths(pid, { pathsFilter: { maxEdgeWeight: 1 }, funnelPathsFilter: { ...funnelPathsFilter, funnelStep: 2 } }))).toEqual([
      '1_/ad -> 2_/pricing (1)',
      '1_/pricing -> 2_/about (1)',
      '1_/pricing -> 2_/signup (1)',
      '2_/pricing -> 3_/signup (1)',
    ]);
  });
});
