/**
 * PathsQuery scenarios ported from PostHog's paths tests (posthog/hogql_queries/insights/paths/test/
 * test_paths_query_runner.py, ee/clickhouse/queries/test/test_paths.py), through the real runner on events
 * imported by the real ingest path. Expected values are PostHog's (reference §5); paths.test.ts already pins the
 * basics (item kinds, 30-minute split, start/end points, weights, edge limit, groupings, cleaning rules).
 */
import { setInsightsClock } from '../insights/date-range';
import { ev, openHarness, persons, type Harness } from '../funnels/testing';
import { edges, pv, screen } from './testing';
import { pathsRunner } from '../runners/paths-runner';

let h: Harness;
beforeAll(async () => {
  h = await openHarness();
});
afterAll(async () => {
  await h.close();
});

const ONE_MINUTE = 60_000; // PostHog's tests: average_conversion_time is in milliseconds
/** `2012-01-14T03:21:34Z` plus `m` minutes and `s` seconds. */
const at = (day: string, m = 0, s = 0) => new Date(Date.parse(`${day}T03:21:34Z`) + m * 60_000 + s * 1000).toISOString();

async function run(
  data: { persons?: unknown[]; events: ReturnType<typeof ev>[] },
  query: Record<string, unknown>,
  project: Record<string, unknown> = {},
): Promise<{ source: string; target: string; value: number; average_conversion_time: number }[]> {
  const ids = [...new Set(data.events.map((e) => e.distinct_id))];
  const pid = await h.load({ persons: data.persons ?? persons(...ids), events: data.events });
  const r = await h.run(pathsRunner, { kind: 'PathsQuery', pathsFilter: {}, ...query }, pid, project as any);
  return r.results;
}

describe('test_current_url_paths_and_logic', () => {
  // One person on 2012-01-01, two on 2012-01-14, and person_2 with a longer path on 2012-01-14.
  const events = [
    pv('fake', '/', at('2012-01-01')),
    pv('fake', '/about', at('2012-01-01', 1)),
    pv('person_0', '/', at('2012-01-14')),
    pv('person_0', '/about', at('2012-01-14', 1)),
    pv('person_1', '/', at('2012-01-14')),
    pv('person_1', '/about', at('2012-01-14', 2)),
    pv('person_2', '/', at('2012-01-14')),
    pv('person_2', '/pricing', at('2012-01-14', 1)),
    pv('person_2', '/about', at('2012-01-14', 2)),
  ];

  it('counts each person-session once per edge; ordered by value, then source and target', async () => {
    const r = await run({ events }, { dateRange: { date_from: '2012-01-01', date_to: '2012-01-15' } });
    expect(r).toEqual([
      { source: '1_/', target: '2_/about', value: 3, average_conversion_time: (ONE_MINUTE + ONE_MINUTE + 2 * ONE_MINUTE) / 3 },
      { source: '1_/', target: '2_/pricing', value: 1, average_conversion_time: ONE_MINUTE },
      { source: '2_/pricing', target: '3_/about', value: 1, average_conversion_time: ONE_MINUTE },
    ]);
  });

  it.each([
    ['a range after every event', { date_from: '2012-12-12' }, []],
    ['a range before every event', { date_from: '2011-12-01', date_to: '2011-12-31' }, []],
    ['one day: date_from is the start and date_to the end of their days', { date_from: '2012-01-14', date_to: '2012-01-14' }, ['1_/ -> 2_/about (2)', '1_/ -> 2_/pricing (1)', '2_/pricing -> 3_/about (1)']],
    ['only the first day', { date_from: '2012-01-01', date_to: '2012-01-01' }, ['1_/ -> 2_/about (1)']],
    ['the week either side of 2012-01-15', { date_from: '2012-01-08', date_to: '2012-01-22' }, ['1_/ -> 2_/about (2)', '1_/ -> 2_/pricing (1)', '2_/pricing -> 3_/about (1)']],
    ['date_from after date_to (now + 7 days, now - 7 days): an empty list, not an error', { date_from: '2012-01-22', date_to: '2012-01-08' }, []],
  ])('date filtering: %s', async (_name, dateRange, expected) => {
    expect(edges(await run({ events }, { dateRange }))).toEqual(expected);
  });

  it('an empty project answers an empty list', async () => {
    expect(await run({ persons: persons('nobody'), events: [] }, { dateRange: { date_from: '2012-01-01' } })).toEqual([]);
  });
});

describe('event kinds', () => {
  it('test_custom_event_paths: custom events by name; pageviews are left out', async () => {
    const events = [
      ev('person_1', 'custom_event_1', at('2012-01-14')),
      ev('person_1', 'custom_event_3', at('2012-01-14', 1)),
      pv('person_1', '/', at('2012-01-14', 2)),
      ev('person_2', 'custom_event_1', at('2012-01-14')),
      ev('person_2', 'custom_event_2', at('2012-01-14', 1)),
      ev('person_2', 'custom_event_3', at('2012-01-14', 2)),
      ev('person_3', 'custom_event_2', at('2012-01-14')),
      ev('person_3', 'custom_event_1', at('2012-01-14', 1)),
      ev('person_4', 'custom_event_1', at('2012-01-14')),
      ev('person_4', 'custom_event_2', at('2012-01-14', 1)),
      ev('person_5a', 'custom_event_1', at('2012-01-14')),
      ev('person_5a', 'custom_event_2', at('2012-01-14', 1)),
      ev('person_5a', 'custom_event_3', at('2012-01-14', 2)),
      ev('person_5a', 'custom_event_4', at('2012-01-14', 3)),
    ];
    const r = await run({ events }, { dateRange: { date_from: '2012-01-01', date_to: '2012-01-15' }, pathsFilter: { includeEventTypes: ['custom_event'] } });
    expect(edges(r)).toEqual([
      '1_custom_event_1 -> 2_custom_event_2 (3)',
      '2_custom_event_2 -> 3_custom_event_3 (2)',
      '1_custom_event_1 -> 2_custom_event_3 (1)',
      '1_custom_event_2 -> 2_custom_event_1 (1)',
      '3_custom_event_3 -> 4_custom_event_4 (1)',
    ]);
    expect(r.every((e) => e.average_conversion_time === ONE_MINUTE)).toBe(true);
  });

  it('test_screen_paths: screens by $screen_name; custom events are left out', async () => {
    const events = [
      screen('person_1', '/', at('2012-01-14')),
      screen('person_1', '/about', at('2012-01-14', 1)),
      ev('person_1', 'signed_up', at('2012-01-14', 2)),
      screen('person_2', '/', at('2012-01-14')),
      screen('person_2', '/pricing', at('2012-01-14', 1)),
      screen('person_2', '/about', at('2012-01-14', 2)),
    ];
    const r = await run({ events }, { dateRange: { date_from: '2012-01-01', date_to: '2012-01-15' }, pathsFilter: { includeEventTypes: ['$screen'] } });
    expect(r).toEqual([
      { source: '1_/', target: '2_/about', value: 1, average_conversion_time: ONE_MINUTE },
      { source: '1_/', target: '2_/pricing', value: 1, average_conversion_time: ONE_MINUTE },
      { source: '2_/pricing', target: '3_/about', value: 1, average_conversion_time: ONE_MINUTE },
    ]);
  });

  it('hogql paths: pathsHogQLExpression names the items of custom events', async () => {
    const events = [
      ev('person_1', 'signed_up', at('2012-01-14'), { plan: 'free' }),
      ev('person_1', 'upgraded', at('2012-01-14', 1), { plan: 'pro' }),
      ev('person_2', 'signed_up', at('2012-01-14'), { plan: 'free' }),
      ev('person_2', 'upgraded', at('2012-01-14', 2), { plan: 'team' }),
    ];
    const r = await run(
      { events },
      { dateRange: { date_from: '2012-01-14', date_to: '2012-01-14' }, pathsFilter: { includeEventTypes: ['hogql'], pathsHogQLExpression: "concat(event, '@', properties.plan)" } },
    );
    expect(edges(r)).toEqual(['1_signed_up@free -> 2_upgraded@pro (1)', '1_signed_up@free -> 2_upgraded@team (1)']);
  });

  it('no includeEventTypes: every event, each kind named its own way (screen, URL, event name)', async () => {
    const events = [screen('p', 'Home', at('2012-01-14')), pv('p', 'https://x.io/', at('2012-01-14', 1)), ev('p', '$autocapture', at('2012-01-14', 2))];
    expect(edges(await run({ events }, { dateRange: { date_from: '2012-01-14', date_to: '2012-01-14' } }))).toEqual([
      '1_Home -> 2_https://x.io (1)',
      '2_https://x.io -> 3_$autocapture (1)',
    ]);
  });

  it('only one trailing slash comes off a URL; "/" stays "/"', async () => {
    const events = [pv('p', '/', at('2012-01-14')), pv('p', '/docs//', at('2012-01-14', 1)), pv('p', '/x?a=/', at('2012-01-14', 2))];
    expect(edges(await run({ events }, { dateRange: { date_from: '2012-01-14', date_to: '2012-01-14' } }))).toEqual([
      '1_/ -> 2_/docs/ (1)',
      '2_/docs/ -> 3_/x?a= (1)',
    ]);
  });
});

describe('test_step_limit', () => {
  const events = [1, 2, 3, 4, 5].map((i) => pv('fake', `/${i}`, at('2012-01-01', i - 1)));
  it.each([
    [2, ['1_/1 -> 2_/2 (1)']],
    [3, ['1_/1 -> 2_/2 (1)', '2_/2 -> 3_/3 (1)']],
    [4, ['1_/1 -> 2_/2 (1)', '2_/2 -> 3_/3 (1)', '3_/3 -> 4_/4 (1)']],
    [5, ['1_/1 -> 2_/2 (1)', '2_/2 -> 3_/3 (1)', '3_/3 -> 4_/4 (1)', '4_/4 -> 5_/5 (1)']],
  ])('stepLimit %i', async (stepLimit, expected) => {
    const r = await run({ events }, { dateRange: { date_from: '2012-01-01', date_to: '2012-01-02' }, pathsFilter: { stepLimit } });
    expect(edges(r)).toEqual(expected);
    expect(r.map((e) => e.average_conversion_time)).toEqual(expected.map(() => ONE_MINUTE));
  });
});

it('test_paths_end: paths end at the first endPoint, keeping its last stepLimit items', async () => {
  const seq = (id: string, urls: string[]) => urls.map((u, i) => pv(id, u, `2021-05-01T00:0${i + 1}:00Z`));
  const events = [
    ...seq('person_1', ['/1', '/2', '/3', '/4', '/5', '/about', '/after']),
    ...seq('person_2', ['/5', '/about']),
    ...seq('person_3', ['/3', '/4', '/about', '/after']),
  ];
  const r = await run({ events }, { dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 00:00:00' }, pathsFilter: { includeEventTypes: ['$pageview'], endPoint: '/about' } });
  expect(edges(r)).toEqual([
    '1_/2 -> 2_/3 (1)',
    '1_/3 -> 2_/4 (1)',
    '1_/5 -> 2_/about (1)',
    '2_/3 -> 3_/4 (1)',
    '2_/4 -> 3_/about (1)',
    '3_/4 -> 4_/5 (1)',
    '4_/5 -> 5_/about (1)',
  ]);
  expect(r.every((e) => e.average_conversion_time === ONE_MINUTE)).toBe(true);
});

describe('conversion times', () => {
  it('test_paths_in_window: one session a day, the same edge twice, 4 minutes each', async () => {
    const events = [
      pv('person_1', '/', '2020-04-14T03:21:34Z'),
      pv('person_1', '/about', '2020-04-14T03:25:34Z'),
      pv('person_1', '/', '2020-04-15T03:21:34Z'),
      pv('person_1', '/about', '2020-04-15T03:25:34Z'),
    ];
    expect(await run({ events }, { dateRange: { date_from: '2020-04-13', date_to: '2020-04-16' } })).toEqual([
      { source: '1_/', target: '2_/about', value: 2, average_conversion_time: 4 * ONE_MINUTE },
    ]);
  });

  it('are the mean over the traversals, in milliseconds, sub-second parts included', async () => {
    const events = [pv('a', '/a', at('2012-01-14')), pv('a', '/b', at('2012-01-14', 0, 1.5)), pv('b', '/a', at('2012-01-14')), pv('b', '/b', at('2012-01-14', 0, 4))];
    expect(await run({ events }, { dateRange: { date_from: '2012-01-14', date_to: '2012-01-14' } })).toEqual([
      { source: '1_/a', target: '2_/b', value: 2, average_conversion_time: 2750 },
    ]);
  });
});

describe('filters and dates', () => {
  const events = [
    pv('chrome_user', '/', at('2012-01-14'), { $browser: 'Chrome' }),
    pv('chrome_user', '/about', at('2012-01-14', 1), { $browser: 'Chrome' }),
    pv('safari_user', '/', at('2012-01-14'), { $browser: 'Safari' }),
    pv('safari_user', '/pricing', at('2012-01-14', 1), { $browser: 'Safari' }),
  ];
  const dateRange = { date_from: '2012-01-14', date_to: '2012-01-14' };

  it('test_paths_properties_filter: event property filters', async () => {
    const r = await run({ events }, { dateRange, properties: [{ type: 'event', key: '$browser', operator: 'exact', value: 'Chrome' }] });
    expect(edges(r)).toEqual(['1_/ -> 2_/about (1)']);
  });

  it('person property filters read the person of each event', async () => {
    const r = await run(
      {
        persons: [
          { distinct_ids: ['chrome_user'], properties: { plan: 'pro' } },
          { distinct_ids: ['safari_user'], properties: { plan: 'free' } },
        ],
        events,
      },
      { dateRange, properties: [{ type: 'person', key: 'plan', operator: 'exact', value: 'free' }] },
    );
    expect(edges(r)).toEqual(['1_/ -> 2_/pricing (1)']);
  });

  it('filterTestAccounts applies the project test account filters', async () => {
    const r = await run({ events }, { dateRange, filterTestAccounts: true }, { test_account_filters: [{ type: 'event', key: '$browser', operator: 'is_not', value: 'Safari' }] });
    expect(edges(r)).toEqual(['1_/ -> 2_/about (1)']);
  });

  it('dates are in the project timezone', async () => {
    // 2012-01-14T03:21Z is still 2012-01-13 in Los Angeles.
    const la = { timezone: 'America/Los_Angeles' };
    expect(await run({ events }, { dateRange }, la)).toEqual([]);
    expect(edges(await run({ events }, { dateRange: { date_from: '2012-01-13', date_to: '2012-01-13' } }, la))).toEqual([
      '1_/ -> 2_/about (1)',
      '1_/ -> 2_/pricing (1)',
    ]);
  });

  it('no dateRange means the last 7 days, from the start of the day 7 days ago', async () => {
    const restore = setInsightsClock(new Date('2012-01-21T12:00:00Z'));
    try {
      const old = [pv('old', '/', '2012-01-13T23:59:00Z'), pv('old', '/old', '2012-01-13T23:59:30Z')];
      const edge = [pv('edge', '/', '2012-01-14T00:00:00Z'), pv('edge', '/edge', '2012-01-14T00:01:00Z')];
      expect(edges(await run({ events: [...old, ...edge] }, {}))).toEqual(['1_/ -> 2_/edge (1)']);
    } finally {
      restore();
    }
  });
});

describe('actors', () => {
  it('events of all distinct ids of a person form one path', async () => {
    const r = await run(
      {
        persons: [{ distinct_ids: ['phone', 'laptop'], properties: {} }],
        events: [pv('phone', '/a', at('2012-01-14')), pv('laptop', '/b', at('2012-01-14', 1)), pv('phone', '/c', at('2012-01-14', 2))],
      },
      { dateRange: { date_from: '2012-01-14', date_to: '2012-01-14' } },
    );
    expect(edges(r)).toEqual(['1_/a -> 2_/b (1)', '2_/b -> 3_/c (1)']);
  });

  it('personless events ($process_person_profile: false) make one path per distinct id, as PostHog derives their person id from it', async () => {
    const anon = { $process_person_profile: false };
    const events = [
      pv('guest-1', '/', at('2012-01-14'), anon),
      pv('guest-1', '/pricing', at('2012-01-14', 1), anon),
      pv('guest-2', '/', at('2012-01-14'), anon),
      pv('guest-2', '/about', at('2012-01-14', 2), anon),
      pv('member', '/', at('2012-01-14')),
      pv('member', '/pricing', at('2012-01-14', 3)),
    ];
    const r = await run({ persons: persons('member'), events }, { dateRange: { date_from: '2012-01-14', date_to: '2012-01-14' } });
    expect(r).toEqual([
      { source: '1_/', target: '2_/pricing', value: 2, average_conversion_time: 2 * ONE_MINUTE },
      { source: '1_/', target: '2_/about', value: 1, average_conversion_time: 2 * ONE_MINUTE },
    ]);
  });

  it('anonymous events before $identify join the identified person path', async () => {
    const events = [
      pv('anon-1', '/landing', at('2012-01-14')),
      pv('anon-1', '/signup', at('2012-01-14', 1)),
      ev('user-1', '$identify', at('2012-01-14', 2), { $anon_distinct_id: 'anon-1' }),
      pv('user-1', '/app', at('2012-01-14', 3)),
    ];
    const r = await run({ persons: [], events }, { dateRange: { date_from: '2012-01-14', date_to: '2012-01-14' }, pathsFilter: { includeEventTypes: ['$pageview'] } });
    expect(r).toEqual([
      { source: '1_/landing', target: '2_/signup', value: 1, average_conversion_time: ONE_MINUTE },
      { source: '2_/signup', target: '3_/app', value: 1, average_conversion_time: 2 * ONE_MINUTE },
    ]);
  });
});

describe('cleaning then grouping', () => {
  it('test_path_groupings: grouped items collapse like duplicates', async () => {
    const urls1 = ['/about_1', '/about_2', '/something else', '/about3', '/about4'];
    const urls2 = ['/about_1', '/about_2', '/something else', '/something1', '/something2', '/something3'];
    const events = [
      ...urls1.map((u, i) => pv('person_1', u, `2021-05-01T00:0${i}:00Z`)),
      ...urls2.map((u, i) => pv('person_2', u, `2021-05-01T00:0${i}:00Z`)),
    ];
    const dateRange = { date_from: '2021-05-01', date_to: '2021-05-03' };
    const wide = await run({ events }, { dateRange, pathsFilter: { pathGroupings: ['/about*'] } });
    expect(wide).toEqual([
      { source: '1_/about*', target: '2_/something else', value: 2, average_conversion_time: ONE_MINUTE },
      { source: '2_/something else', target: '3_/about*', value: 1, average_conversion_time: 2 * ONE_MINUTE },
      { source: '2_/something else', target: '3_/something1', value: 1, average_conversion_time: ONE_MINUTE },
      { source: '3_/something1', target: '4_/something2', value: 1, average_conversion_time: ONE_MINUTE },
      { source: '4_/something2', target: '5_/something3', value: 1, average_conversion_time: ONE_MINUTE },
    ]);
    const narrow = await run({ events }, { dateRange, pathsFilter: { pathGroupings: ['/about_*'] } });
    expect(edges(narrow)).toEqual([
      '1_/about_* -> 2_/something else (2)',
      '2_/something else -> 3_/about3 (1)',
      '2_/something else -> 3_/something1 (1)',
      '3_/about3 -> 4_/about4 (1)',
      '3_/something1 -> 4_/something2 (1)',
      '4_/something2 -> 5_/something3 (1)',
    ]);
  });

  it('test_path_groupings after local cleaning rules: the grouped item is the pattern itself', async () => {
    const events = [
      pv('p1', 'https://a.io/product/1?ref=x', at('2012-01-14')),
      pv('p1', 'https://a.io/cart', at('2012-01-14', 1)),
      pv('p2', 'https://a.io/product/2', at('2012-01-14')),
      pv('p2', 'https://a.io/cart?ref=y', at('2012-01-14', 1)),
    ];
    const r = await run(
      { events },
      {
        dateRange: { date_from: '2012-01-14', date_to: '2012-01-14' },
        pathsFilter: { localPathCleaningFilters: [{ regex: '\\?.*$', alias: '' }], pathGroupings: ['*/product/*'] },
      },
    );
    expect(edges(r)).toEqual(['1_*/product/* -> 2_https://a.io/cart (2)']);
  });

  it('test_path_grouping_with_evil_input: regex characters in groupings are literal', async () => {
    const events = [pv('p', '/a+b(c)', at('2012-01-14')), pv('p', '/aab', at('2012-01-14', 1)), pv('p', '/x', at('2012-01-14', 2))];
    const r = await run(
      { events },
      { dateRange: { date_from: '2012-01-14', date_to: '2012-01-14' }, pathsFilter: { pathGroupings: ['/a+b(c)*', '[aaa|aaaa]+', '(a+)+'] } },
    );
    expect(edges(r)).toEqual(['1_/a+b(c)* -> 2_/aab (1)', '2_/aab -> 3_/x (1)']);
  });
});
