import { groupingRegex, pathsRunner, runPaths, stripTrailingSlash } from '../runners/paths-runner';
import { ev, openHarness, persons, type Harness } from '../funnels/testing';
import { edgeLinks } from './compute';

let h: Harness;
beforeAll(async () => {
  h = await openHarness();
});
afterAll(async () => {
  await h.close();
});

const RANGE = { date_from: '2024-01-01', date_to: '2024-01-31' };
const pv = (id: string, url: string, at: string, props: Record<string, unknown> = {}) => ev(id, '$pageview', at, { $current_url: url, ...props });
const t = (min: number, sec = 0) => new Date(Date.UTC(2024, 0, 2, 10, min, sec)).toISOString();

async function paths(events: ReturnType<typeof ev>[], pathsFilter: Record<string, unknown> = {}, extra: Record<string, unknown> = {}, project: Record<string, unknown> = {}) {
  const ids = [...new Set(events.map((e) => e.distinct_id))];
  const pid = await h.load({ persons: persons(...ids), events });
  return h.run(pathsRunner, { kind: 'PathsQuery', dateRange: RANGE, pathsFilter, ...extra }, pid, project as any);
}
const edges = (r: any) => (r.results as any[]).map((e) => `${e.source} -> ${e.target} (${e.value})`);

describe('path items', () => {
  it('pageviews by URL (one trailing slash stripped), screens by name, custom events by name; times in ms', async () => {
    const r = await paths([pv('a', '/home/', t(0)), ev('a', '$screen', t(1), { $screen_name: 'Settings' }), ev('a', 'signed_up', t(3))]);
    expect(r.results).toEqual([
      { source: '1_/home', target: '2_Settings', value: 1, average_conversion_time: 60_000 },
      { source: '2_Settings', target: '3_signed_up', value: 1, average_conversion_time: 120_000 },
    ]);
  });

  it.each([
    [['$pageview'], ['1_/a -> 2_/b (1)']],
    [['custom_event'], ['1_signed_up -> 2_bought (1)']],
    [['$pageview', 'custom_event'], ['1_/a -> 2_signed_up (1)', '2_signed_up -> 3_/b (1)', '3_/b -> 4_bought (1)']],
  ])('includeEventTypes %j', async (types, expected) => {
    const r = await paths(
      [pv('a', '/a', t(0)), ev('a', 'signed_up', t(1)), ev('a', '$autocapture', t(2)), pv('a', '/b', t(3)), ev('a', 'bought', t(4))],
      { includeEventTypes: types },
    );
    expect(edges(r)).toEqual(expected);
  });

  it('consecutive duplicates collapse to one item carrying the last timestamp', async () => {
    const r = await paths([pv('a', '/a', t(0)), pv('a', '/a', t(2)), pv('a', '/a/', t(3)), pv('a', '/b', t(4))]);
    expect(r.results).toEqual([{ source: '1_/a', target: '2_/b', value: 1, average_conversion_time: 60_000 }]);
  });

  it.each([
    ['29 minutes stays one path', 29, ['1_/a -> 2_/b (1)']],
    ['30 minutes splits', 30, []],
    ['31 minutes splits', 31, []],
  ])('inactivity: %s', async (_n, gap, expected) => {
    const r = await paths([pv('a', '/a', t(0)), pv('a', '/b', t(gap))]);
    expect(edges(r)).toEqual(expected);
  });

  it('a split starts a new path at step 1 (the same edge in two sessions counts twice)', async () => {
    const r = await paths([pv('a', '/a', t(0)), pv('a', '/b', t(1)), pv('a', '/a', t(40)), pv('a', '/b', t(41))]);
    expect(edges(r)).toEqual(['1_/a -> 2_/b (2)']);
  });

  it('pathGroupings: wildcards match mid-URL and the item becomes the pattern', async () => {
    const r = await paths(
      [pv('a', 'https://x.io/product/1/reviews', t(0)), pv('a', 'https://x.io/cart', t(1)), pv('b', 'https://x.io/product/2', t(0)), pv('b', 'https://x.io/cart', t(1))],
      { pathGroupings: ['/product/*'] },
    );
    expect(edges(r)).toEqual(['1_/product/* -> 2_https://x.io/cart (2)']);
  });

  it('pathReplacements apply the project path cleaning rules; local rules too', async () => {
    const events = [pv('a', '/user/123/profile', t(0)), pv('a', '/home?ref=x', t(1))];
    const r = await paths(events, { pathReplacements: true, localPathCleaningFilters: [{ regex: '\\?.*$', alias: '' }] }, {}, {
      path_cleaning_filters: [{ regex: '/user/\\d+', alias: '/user/:id' }],
    });
    expect(edges(r)).toEqual(['1_/user/:id/profile -> 2_/home (1)']);
    const off = await paths([pv('b', '/user/9', t(0)), pv('b', '/x', t(1))], {}, {}, { path_cleaning_filters: [{ regex: '/user/\\d+', alias: '/user/:id' }] });
    expect(edges(off)).toEqual(['1_/user/9 -> 2_/x (1)']);
  });

  it('excludeEvents drops the items before duplicates are collapsed', async () => {
    const r = await paths([pv('a', '/a', t(0)), pv('a', '/noise', t(1)), pv('a', '/a', t(2)), pv('a', '/b', t(3))], { excludeEvents: ['/noise'] });
    expect(edges(r)).toEqual(['1_/a -> 2_/b (1)']);
  });
});

describe('start, end, limits', () => {
  const seq = (id: string, urls: string[]) => urls.map((u, i) => pv(id, u, t(i)));
  it('stepLimit defaults to 5 items', async () => {
    const r = await paths(seq('a', ['/1', '/2', '/3', '/4', '/5', '/6', '/7']));
    expect(edges(r)).toEqual(['1_/1 -> 2_/2 (1)', '2_/2 -> 3_/3 (1)', '3_/3 -> 4_/4 (1)', '4_/4 -> 5_/5 (1)']);
  });

  it('startPoint starts at its first occurrence (trailing slash stripped); sessions without it drop', async () => {
    const r = await paths([...seq('a', ['/x', '/s', '/y']), ...seq('b', ['/q', '/r'])], { startPoint: '/s/' });
    expect(edges(r)).toEqual(['1_/s -> 2_/y (1)']);
  });

  it('endPoint truncates at its first occurrence keeping the last stepLimit items', async () => {
    const r = await paths(seq('a', ['/1', '/2', '/3', '/e', '/4']), { endPoint: '/e', stepLimit: 3 });
    expect(edges(r)).toEqual(['1_/2 -> 2_/3 (1)', '2_/3 -> 3_/e (1)']);
  });

  it('start and end: a long segment keeps both ends around "..."', async () => {
    const r = await paths(seq('a', ['/s', '/1', '/2', '/3', '/4', '/e']), { startPoint: '/s', endPoint: '/e', stepLimit: 4 });
    expect(edges(r)).toEqual(['1_/s -> 2_/1 (1)', '2_/1 -> 3_... (1)', '3_... -> 4_/4 (1)', '4_/4 -> 5_/e (1)']);
    // "..." carries the time of the first item it stands for (/2): 1 minute in, 2 minutes out.
    expect(r.results.map((e: any) => e.average_conversion_time)).toEqual([60_000, 60_000, 120_000, 60_000]);
  });

  it('edges sort by value then source/target; weights filter; edgeLimit prunes unreachable deeper edges', async () => {
    const events = [
      ...seq('a', ['/a', '/b', '/c']),
      ...seq('b', ['/a', '/b', '/c']),
      ...seq('c', ['/a', '/b']),
      ...seq('d', ['/z', '/y']),
    ];
    const all = await paths(events);
    expect(edges(all)).toEqual(['1_/a -> 2_/b (3)', '2_/b -> 3_/c (2)', '1_/z -> 2_/y (1)']);
    const min = await paths(events, { minEdgeWeight: 2 });
    expect(edges(min)).toEqual(['1_/a -> 2_/b (3)', '2_/b -> 3_/c (2)']);
    const max = await paths(events, { maxEdgeWeight: 2 });
    // 2_/b -> 3_/c is no longer reachable from a first-step node once 1_/a -> 2_/b is filtered out.
    expect(edges(max)).toEqual(['1_/z -> 2_/y (1)']);
    const limited = await paths(events, { edgeLimit: 1 });
    expect(edges(limited)).toEqual(['1_/a -> 2_/b (3)']);
  });
});

it('a funnelPathsFilter without its funnel source is refused by the schema', () => {
  const r = pathsRunner.schema.safeParse({ kind: 'PathsQuery', pathsFilter: {}, funnelPathsFilter: { funnelPathType: 'funnel_path_after_step', funnelStep: 1 } });
  expect(r.success).toBe(false);
  expect(JSON.stringify(r.error?.issues)).toContain('funnelSource');
});

describe('helpers', () => {
  it.each([
    ['/a/', '/a'],
    ['/', '/'],
    ['/a//', '/a/'],
  ])('stripTrailingSlash(%s) = %s', (x, y) => expect(stripTrailingSlash(x)).toBe(y));
  it('groupingRegex escapes everything but *', () => {
    expect(groupingRegex('/a.b/*?x=(1)')).toBe('/a\\.b/.*\\?x=\\(1\\)');
    expect(new RegExp(groupingRegex('/product/*')).test('https://x.io/product/1')).toBe(true);
  });
});

describe('the in-engine path computation agrees with the per-actor evaluation', () => {
  // Deterministic pseudo-random visits: gaps from seconds to an hour (exactly 30 minutes included), repeats of the
  // same page, several sessions per person, some personless actors. Timestamps are distinct per person (both order
  // ties by item: paths-posthog-compat-2.test.ts, 'ties').
  let seed = 5;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const pages = ['/a', '/b/', '/c', '/d'];
  const events: ReturnType<typeof ev>[] = [];
  for (let p = 0; p < 30; p++) {
    let at = Date.UTC(2024, 0, 2, 8, 0, 0) + p * 1000;
    for (let i = 0, n = 2 + Math.floor(rnd() * 16); i < n; i++) {
      const g = rnd();
      at += g < 0.1 ? 30 * 60_000 : g < 0.15 ? 30 * 60_000 - 1 : g < 0.25 ? 45 * 60_000 : 1000 + Math.floor(rnd() * 600_000);
      const iso = new Date(at).toISOString();
      // every sixth actor is personless (one actor per distinct id)
      const own = p % 6 === 0 ? { $process_person_profile: false } : {};
      events.push(rnd() < 0.75 ? pv(`p${p}`, pages[Math.floor(rnd() * 4)], iso, own) : ev(`p${p}`, ['signed_up', 'bought'][Math.floor(rnd() * 2)], iso, own));
    }
  }
  let pid: number;
  beforeAll(async () => {
    pid = await h.load({ persons: persons(...new Set(events.filter((e) => e.properties.$process_person_profile !== false).map((e) => e.distinct_id))), events });
  });
  it.each([
    [{}],
    [{ stepLimit: 3 }],
    [{ excludeEvents: ['/c'], edgeLimit: 6 }],
    [{ includeEventTypes: ['$pageview'], pathGroupings: ['/b*'], minEdgeWeight: 2 }],
  ])('%j', async (pathsFilter) => {
    const node = pathsRunner.schema.parse({ kind: 'PathsQuery', dateRange: RANGE, pathsFilter });
    const ctxFor = async () => {
      const captured: any = {};
      await h.run({ ...pathsRunner, run: async (_n: unknown, ctx: unknown) => Object.assign(captured, { ctx }) } as any, node, pid);
      return captured.ctx;
    };
    const fast: any = await runPaths(node, await ctxFor());
    const general: any = await runPaths(node, await ctxFor(), { forceGeneral: true });
    expect(fast.results).toEqual(general.results);
    expect(general.results.length).toBeGreaterThan(2);
  });
});

describe('TestClickhousePathsEdgeValidation (validate_results): only edges reachable from a 1_ node are kept', () => {
  const BASIC_PATH: [string, string][] = [['1_a', '2_b'], ['2_b', '3_c'], ['3_c', '4_d']];
  const BASIC_PATH_2: [string, string][] = [['1_x', '2_y'], ['2_y', '3_z']];
  const validate = (list: [string, string][]) =>
    edgeLinks(list.map(([source, target]) => ({ source, target, value: 1, total: 0 })), { stepLimit: 5, edgeLimit: 50 })
      .map((e) => `${e.source}>${e.target}`)
      .sort();
  const names = (list: [string, string][]) => list.map(([s, t]) => `${s}>${t}`).sort();

  it('test_basic_forest', () => {
    expect(validate([...BASIC_PATH, ...BASIC_PATH_2])).toEqual(names([...BASIC_PATH, ...BASIC_PATH_2]));
  });
  it('test_basic_forest_with_dangling_edges', () => {
    const dangling: [string, string][] = [['2_w', '3_z'], ['3_x', '4_d'], ['2_xxx', '3_yyy']];
    expect(validate([...BASIC_PATH, ...BASIC_PATH_2, ...dangling])).toEqual(names([...BASIC_PATH, ...BASIC_PATH_2]));
  });
  it('test_basic_forest_with_dangling_and_cross_edges', () => {
    const extra: [string, string][] = [['2_w', '3_z'], ['3_x', '4_d'], ['2_y', '3_c']];
    expect(validate([...BASIC_PATH, ...BASIC_PATH_2, ...extra])).toEqual(names([...BASIC_PATH, ...BASIC_PATH_2, ['2_y', '3_c']]));
  });
  it('test_no_start_point', () => {
    const list = [...BASIC_PATH, ...BASIC_PATH_2, ['2_w', '3_z'], ['3_x', '4_d']].filter(([s]) => s !== '1_a') as [string, string][];
    expect(validate(list)).toEqual(names(BASIC_PATH_2));
  });
});
