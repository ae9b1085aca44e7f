import { actionRegistry, actionStep, createInsightTestDb, ev, type InsightTestDb, useInsightsClock } from '../insights/testing';
import { actorsRunner } from './actors-runner';
import { insightActorsOptionsRunner } from './insight-actors-options-runner';
import { lifecycleRunner } from './lifecycle-runner';
import { stickinessRunner } from './stickiness-runner';
import { retentionRunner } from './retention-runner';
import { trendsRunner } from './trends-runner';
import { eventsRunner } from './events-runner';
import { pathsRunner } from './paths-runner';
import { shutdownParser } from '../../productql/parser';

/**
 * PostHog's actors cases, fourth batch (events-actors-posthog-compat{,-2,-3}.test.ts are the first three):
 * - insights/insight_actors_query_options_runner.py (test_insight_actors_query_options_runner.py):
 *   InsightActorsQueryOptionsRunner.calculate asks the source runner — stickiness answers its series and compare
 *   options, retention its intervals; any other source (funnels, paths) gets the response with every option null;
 *   every answer has all seven keys. The options round-trip: each one is a point the actors can be asked for.
 * - the actors of stickiness points without a day (StickinessQueryRunner.to_actors_query(interval_num=None)), of
 *   retention cohorts with the default columns (ActorsQueryRunner.input_columns), and of lifecycle points
 *   aggregated by groups (GroupStrategy: its actor shape, search and orderBy).
 * - test_actors_query_runner.py's ActorsQuery over `_create_random_persons`: orderBy items, person property
 *   filters, search, event_count, aggregates and paging over a data point; a ProductQL source's id column
 *   (ActorsQueryRunner.source_id_column).
 * - events_query_runner.py: the Person column's sort (`orderBy: ["person"]` / `["person ASC"]` ascend, `["person DESC"]`
 *   descends).
 * - a compatibility pass over EventsQueryRunner / ActorsQueryRunner: filters combined (search, properties,
 *   fixedProperties — its items may be property groups —, personId, actionId, event), paging at and past the end, types, relative bounds; and the actors of
 *   a paths edge or drop-off (PathsQueryRunner.to_actors_query).
 * All data is loaded once; each describe has a project of its own. Runs on DuckDB here and on ClickHouse in the
 * .clickhouse twin, with the same pinned results.
 */
let db: InsightTestDb;
const freeze = useInsightsClock();

const P_INSIGHT = 401;
const P_PERSONS = 402;

/** test_insight_actors_query_runner.py `_create_test_events` (each person created at their first event), with orgs. */
const INSIGHT_DATA: [string, string[], string | null][] = [
  ['p1', ['2020-01-11T12:00:00Z', '2020-01-12T12:00:00Z', '2020-01-13T12:00:00Z', '2020-01-15T12:00:00Z', '2020-01-17T12:00:00Z', '2020-01-19T12:00:00Z'], 'org:6'],
  ['p2', ['2020-01-09T12:00:00Z', '2020-01-12T12:00:00Z'], 'org:5'],
  ['p3', ['2020-01-12T12:00:00Z'], 'org:7'],
  ['p4', ['2020-01-15T12:00:00Z'], 'org:7'],
];

/** test_actors_query_runner.py `_create_random_persons`: ten persons of one random uuid, two events each. */
const RANDOM = 'c0ffee42';
const RANDOM_PERSONS = Array.from({ length: 10 }, (_, i) => ({
  distinct_ids: [`id-${RANDOM}-${i}`],
  properties: { email: `jacob${i}@${RANDOM}.posthog.com`, name: `Mr Jacob ${RANDOM}`, random_uuid: RANDOM, index: i },
  created_at: `2020-01-0${1 + (i % 9)}T00:00:00Z`,
}));

beforeAll(async () => {
  db = await createInsightTestDb();
  const group = (key: string, name: string) => ev('$groupidentify', 'p1', '2020-01-01T00:00:00Z', { $group_type: 'organization', $group_key: key, $group_set: { name } });
  await db.load(P_INSIGHT, {
    persons: INSIGHT_DATA.map(([id, ts]) => ({ distinct_ids: [id], properties: { name: id }, created_at: ts[0] })),
    events: [
      group('org:5', 'Hedgebox Inc.'),
      group('org:6', 'Hooli'),
      group('org:7', 'Pied Piper'),
      ...INSIGHT_DATA.flatMap(([id, ts, org]) => ts.map((t) => ev('$pageview', id, t, { $browser: id === 'p1' ? 'Chrome' : 'Safari', ...(org ? { $groups: { organization: org } } : {}) }))),
      // (a second series: p1 leaves on two days, p2 on one)
      ev('$pageleave', 'p1', '2020-01-11T13:00:00Z'),
      ev('$pageleave', 'p1', '2020-01-12T13:00:00Z'),
      ev('$pageleave', 'p2', '2020-01-13T13:00:00Z'),
    ],
  });
  await db.load(P_PERSONS, {
    persons: RANDOM_PERSONS,
    events: RANDOM_PERSONS.flatMap((p, i) => [0, 1].map((k) => ev(`clicky-${i}`, p.distinct_ids[0], `2020-01-1${k}T12:00:00Z`))),
  });
});
afterAll(async () => {
  await db.close();
  await shutdownParser();
});

const PV = { kind: 'EventsNode', event: '$pageview' };
const LEAVE = { kind: 'EventsNode', event: '$pageleave' };
const dateRange = { date_from: '2020-01-09', date_to: '2020-01-19' };
const actors = (q: Record<string, unknown>, project: number, settings: Record<string, unknown> = {}) =>
  db.run(actorsRunner, { kind: 'ActorsQuery', ...q }, project, settings);
const options = (source: Record<string, unknown>, project = P_INSIGHT) => db.run(insightActorsOptionsRunner, { kind: 'InsightActorsQueryOptions', source }, project);
const insightOptions = (source: Record<string, unknown>) => options({ kind: 'InsightActorsQuery', source });
/** PostHog's InsightActorsQueryOptionsResponse() with nothing set. */
const NONE = { day: null, status: null, interval: null, breakdown: null, breakdowns: null, series: null, compare: null };
const retention = (retentionFilter: Record<string, unknown> = {}) => ({
  kind: 'RetentionQuery',
  dateRange: { date_to: '2020-01-19' },
  retentionFilter: { totalIntervals: 7, targetEntity: { id: '$pageview', type: 'events' }, returningEntity: { id: '$pageview', type: 'events' }, ...retentionFilter },
});

describe('InsightActorsQueryOptions (insight_actors_query_options_runner.py, test_insight_actors_query_options_runner.py)', () => {
  beforeEach(() => freeze('2020-01-20T12:00:00Z'));

  it('stickiness (StickinessQueryRunner.to_actors_query_options): the series by index, no days, no compare', async () => {
    const r = await insightOptions({ kind: 'StickinessQuery', dateRange, series: [PV, { kind: 'EventsNode', event: null }, LEAVE] });
    expect(r).toEqual({
      ...NONE,
      series: [
        { label: '$pageview', value: 0 },
        { label: 'All events', value: 1 },
        { label: '$pageleave', value: 2 },
      ],
    });
  });

  it('stickiness with compareFilter: Current and Previous', async () => {
    const r = await insightOptions({ kind: 'StickinessQuery', dateRange, series: [PV], compareFilter: { compare: true } });
    expect(r.compare).toEqual([
      { label: 'Current', value: 'current' },
      { label: 'Previous', value: 'previous' },
    ]);
    expect(r.series).toEqual([{ label: '$pageview', value: 0 }]);
    expect((await insightOptions({ kind: 'StickinessQuery', dateRange, series: [PV], compareFilter: { compare: false } })).compare).toBeNull();
  });

  it("stickiness: an action series is labelled by the action's name", async () => {
    const registry = actionRegistry(7001);
    db.actions = registry.source;
    const chrome = registry.action('chrome views', [actionStep('$pageview', [{ type: 'event', key: '$browser', value: 'Chrome', operator: 'exact' }])]);
    const r = await insightOptions({ kind: 'StickinessQuery', dateRange, series: [LEAVE, { kind: 'ActionsNode', id: chrome }] });
    expect(r.series).toEqual([
      { label: '$pageleave', value: 0 },
      { label: 'chrome views', value: 1 },
    ]);
  });

  it('each stickiness series option is a series the stickiness actors can be asked for', async () => {
    const source = { kind: 'StickinessQuery', dateRange, series: [PV, LEAVE] };
    const o = await insightOptions(source);
    const counts = await db.run(stickinessRunner, source, P_INSIGHT);
    for (const { value } of o.series) {
      const r = await actors({ select: ['properties.name'], source: { kind: 'InsightActorsQuery', source, day: 2, series: value } }, P_INSIGHT);
      expect(r.results).toHaveLength(counts.results[value].data[1]);
    }
  });

  it('stickiness actors without a day (to_actors_query(interval_num=None)): every actor of the series', async () => {
    const source = { kind: 'StickinessQuery', dateRange, series: [PV, LEAVE] };
    const names = async (series: number) =>
      (await actors({ select: ['properties.name'], orderBy: ['properties.name'], source: { kind: 'InsightActorsQuery', source, series } }, P_INSIGHT)).results.map((r: string[]) => r[0]);
    expect(await names(0)).toEqual(['p1', 'p2', 'p3', 'p4']);
    expect(await names(1)).toEqual(['p1', 'p2']);
  });

  it('retention (RetentionQueryRunner.to_actors_query_options): an interval per cohort row, labelled as the row', async () => {
    const r = await insightOptions(retention());
    expect(r).toEqual({ ...NONE, interval: [0, 1, 2, 3, 4, 5, 6].map((i) => ({ label: `Day ${i}`, value: i })) });
    const weeks = await insightOptions(retention({ period: 'Week', totalIntervals: 3 }));
    expect(weeks.interval).toEqual([
      { label: 'Week 0', value: 0 },
      { label: 'Week 1', value: 1 },
      { label: 'Week 2', value: 2 },
    ]);
  });

  it('each retention interval option is a cohort whose actors number its cohort size', async () => {
    const source = retention();
    const o = await insightOptions(source);
    const rows = (await db.run(retentionRunner, source, P_INSIGHT)).results;
    expect(o.interval.map((x: { label: string }) => x.label)).toEqual(rows.map((row: { label: string }) => row.label));
    for (const { value } of o.interval) {
      const r = await actors({ select: ['id'], source: { kind: 'InsightActorsQuery', source, interval: value } }, P_INSIGHT);
      expect(r.results).toHaveLength(rows[value].values[0].count);
    }
  });

  it('ActorsQuery over a retention cohort without select: the default person columns (input_columns), appearances only when selected', async () => {
    const source = { kind: 'InsightActorsQuery', source: retention(), interval: 2 };
    const r = await actors({ source }, P_INSIGHT);
    expect(r.columns).toEqual(['person', 'id', 'created_at', 'person.$delete']);
    // (newest first: created_at is selected)
    expect(r.results.map((row: any[]) => row[0].distinct_ids[0])).toEqual(['p4', 'p1']);
    const withAppearances = await actors({ select: ['properties.name', 'appearances'], orderBy: ['length(appearances) DESC', 'actor_id'], source }, P_INSIGHT);
    expect(withAppearances.results).toEqual([
      ['p1', [0, 2, 4]],
      ['p4', [0]],
    ]);
  });

  it('funnels (FunnelsActorsQuery): the response with every option null', async () => {
    const source = { kind: 'FunnelsQuery', dateRange, series: [PV, LEAVE] };
    expect(await options({ kind: 'FunnelsActorsQuery', source, funnelStep: 1 })).toEqual(NONE);
    const trendsFunnel = { ...source, funnelsFilter: { funnelVizType: 'trends' } };
    expect(await options({ kind: 'FunnelsActorsQuery', source: trendsFunnel, funnelTrendsEntrancePeriodStart: '2020-01-09' })).toEqual(NONE);
  });

  it('paths: the response with every option null', async () => {
    expect(await insightOptions({ kind: 'PathsQuery', dateRange, pathsFilter: { includeEventTypes: ['$pageview'] } })).toEqual(NONE);
  });

  it('trends and lifecycle answers carry the keys they do not set, as null', async () => {
    const trends = await insightOptions({ kind: 'TrendsQuery', dateRange, series: [PV] });
    expect([trends.status, trends.interval, trends.breakdown, trends.breakdowns, trends.compare]).toEqual([null, null, null, null, null]);
    expect(trends.day).toHaveLength(11);
    const lifecycle = await insightOptions({ kind: 'LifecycleQuery', dateRange, series: [PV] });
    expect([lifecycle.series, lifecycle.interval, lifecycle.breakdown, lifecycle.breakdowns, lifecycle.compare]).toEqual([null, null, null, null, null]);
    expect(lifecycle.status).toHaveLength(4);
  });

  it('trends breakdown options (TrendsQueryRunner._get_breakdown_items): Other and the null value by their display labels, the value kept', async () => {
    const OTHER = '$$_posthog_breakdown_other_$$';
    const NULL = '$$_posthog_breakdown_null_$$';
    const expected = [
      { label: 'Chrome', value: 'Chrome' },
      { label: 'Other (i.e. all remaining values)', value: OTHER },
      { label: 'None (i.e. no value)', value: NULL },
    ];
    const single = await insightOptions({ kind: 'TrendsQuery', dateRange, series: [PV, LEAVE], breakdownFilter: { breakdown: '$browser', breakdown_limit: 1 } });
    expect([single.breakdown, single.breakdowns]).toEqual([expected, null]);
    const multi = await insightOptions({ kind: 'TrendsQuery', dateRange, series: [PV, LEAVE], breakdownFilter: { breakdowns: [{ property: '$browser' }], breakdown_limit: 1 } });
    expect([multi.breakdown, multi.breakdowns]).toEqual([null, [{ values: expected }]]);
    // each value names a line whose actors can be asked for (the null value: p1 and p2 left without a $browser)
    const names = async (breakdown: string) =>
      (await actors({ select: ['properties.name'], orderBy: ['properties.name'], source: { kind: 'InsightActorsQuery', series: 1, breakdown, source: { kind: 'TrendsQuery', dateRange, series: [PV, LEAVE], breakdownFilter: { breakdown: '$browser', breakdown_limit: 1 } } } }, P_INSIGHT)).results;
    expect(await names(NULL)).toEqual([['p1'], ['p2']]);
  });
});

describe('the actors of lifecycle points aggregated by groups (test_lifecycle_query_runner.py group aggregation)', () => {
  beforeEach(() => freeze('2020-01-20T12:00:00Z'));
  // Every org was created Jan 1 (its $groupidentify), before the range: its first visible activity resurrects it.
  const source = { kind: 'LifecycleQuery', dateRange, aggregation_group_type_index: 0, series: [PV] };
  const names = async (day: string, status: string, lifecycle: Record<string, unknown> = source) =>
    (await actors({ select: ['properties.name'], source: { kind: 'InsightActorsQuery', source: lifecycle, day, status } }, P_INSIGHT)).results.map((r: string[]) => r[0]).sort();

  it.each<[string, string, string[]]>([
    ['2020-01-09', 'resurrecting', ['Hedgebox Inc.']],
    ['2020-01-10', 'dormant', ['Hedgebox Inc.']],
    ['2020-01-11', 'resurrecting', ['Hooli']],
    ['2020-01-12', 'returning', ['Hooli']],
    ['2020-01-12', 'resurrecting', ['Hedgebox Inc.', 'Pied Piper']],
    ['2020-01-12', 'new', []],
    ['2020-01-13', 'dormant', ['Hedgebox Inc.', 'Pied Piper']],
    ['2020-01-16', 'dormant', ['Hooli', 'Pied Piper']],
  ])('%s %s', async (day, status, expected) => {
    expect(await names(day, status)).toEqual(expected);
  });

  it('the group actors number the lifecycle counts of every day and status', async () => {
    const narrow = { ...source, dateRange: { date_from: '2020-01-12', date_to: '2020-01-14' } };
    const counts = await db.run(lifecycleRunner, narrow, P_INSIGHT);
    for (const line of counts.results)
      for (const [i, day] of (line.days as string[]).entries())
        expect([day, line.status, (await names(day, line.status, narrow)).length]).toEqual([day, line.status, Math.abs(line.data[i])]);
  });

  it('the default column is the group, with its key and type index', async () => {
    const r = await actors({ source: { kind: 'InsightActorsQuery', source, day: '2020-01-11', status: 'resurrecting' } }, P_INSIGHT);
    expect(r.columns).toEqual(['group']);
    expect(r.results.map((row: any[]) => [row[0].group_key, row[0].group_type_index, row[0].properties.name])).toEqual([['org:6', 0, 'Hooli']]);
  });
  it('GroupStrategy: search by name or key (any case), orderBy ["group ..."] by the name', async () => {
    const point = { kind: 'InsightActorsQuery', source, day: '2020-01-12' };
    const names = async (q: Record<string, unknown>) => (await actors({ select: ['properties.name'], source: point, ...q }, P_INSIGHT)).results.map((r: string[]) => r[0]);
    expect(await names({ search: 'PIPER' })).toEqual(['Pied Piper']);
    expect(await names({ search: 'org:6' })).toEqual(['Hooli']);
    expect(await names({ search: 'nobody' })).toEqual([]);
    expect(await names({ orderBy: ['group DESC'] })).toEqual(['Pied Piper', 'Hooli', 'Hedgebox Inc.']);
    expect(await names({ orderBy: ['group ASC'] })).toEqual(['Hedgebox Inc.', 'Hooli', 'Pied Piper']);
  });
});

describe('ActorsQuery over the persons of a data point (test_actors_query_runner.py `_create_random_persons`)', () => {
  beforeEach(() => freeze('2020-01-20T12:00:00Z'));
  const point = (day: string | null = '2020-01-10') => ({
    kind: 'InsightActorsQuery',
    source: { kind: 'TrendsQuery', dateRange: { date_from: '2020-01-09', date_to: '2020-01-12' }, series: [{ kind: 'EventsNode', event: null }] },
    ...(day ? { day } : {}),
  });
  const emails = (r: { results: unknown[][] }) => r.results.map((row) => row[0]);
  const email = (i: number) => `jacob${i}@${RANDOM}.posthog.com`;

  it('orderBy: every item orders, in turn (parse_order_expr per item)', async () => {
    const r = await actors({ select: ['properties.email'], orderBy: ['properties.name', 'properties.index DESC'] }, P_PERSONS);
    expect(emails(r)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0].map(email));
    const byDay = await actors({ select: ['properties.email', 'created_at'], orderBy: ['created_at DESC', 'properties.email'], limit: 3 }, P_PERSONS);
    // created Jan 9 (index 8), then Jan 8 (index 7), then Jan 7 (index 6)
    expect([emails(byDay), byDay.hasMore]).toEqual([[8, 7, 6].map(email), true]);
  });

  it('properties filter the persons of the data point', async () => {
    const properties = [{ type: 'person', key: 'index', value: '6', operator: 'gt' }];
    const r = await actors({ select: ['properties.email'], source: point(), properties, orderBy: ['properties.email'] }, P_PERSONS);
    expect(emails(r)).toEqual([7, 8, 9].map(email));
    const fixed = await actors({ select: ['properties.email'], source: point(), properties, fixedProperties: [{ type: 'person', key: 'email', value: 'jacob8', operator: 'icontains' }] }, P_PERSONS);
    expect(emails(fixed)).toEqual([email(8)]);
  });

  it('search within the persons of the data point', async () => {
    const r = await actors({ select: ['properties.email'], source: point(), search: 'JACOB3@' }, P_PERSONS);
    expect(emails(r)).toEqual([email(3)]);
    expect((await actors({ select: ['properties.email'], source: point(), search: `id-${RANDOM}-5` }, P_PERSONS)).results).toEqual([[email(5)]]);
  });

  it('event_count: the events of the actor in the data point (one a day here, two over the range)', async () => {
    const day = await actors({ select: ['properties.email', 'event_count'], source: point(), orderBy: ['properties.email'], limit: 2 }, P_PERSONS);
    expect(day.results).toEqual([
      [email(0), 1],
      [email(1), 1],
    ]);
    const all = await actors({ select: ['properties.email', 'event_count'], source: point(null), orderBy: ['properties.email'], limit: 2 }, P_PERSONS);
    expect(all.results).toEqual([
      [email(0), 2],
      [email(1), 2],
    ]);
  });

  it('aggregates over the actors of a data point: count() and sum() with a property column', async () => {
    const r = await actors({ select: ['properties.name', 'count()', 'sum(event_count)'], source: point(null) }, P_PERSONS);
    expect(r.results).toEqual([[`Mr Jacob ${RANDOM}`, 10, 20]]);
  });

  it('limit and offset page the actors of a data point; hasMore tells a next page', async () => {
    const page = (offset: number) => actors({ select: ['properties.email'], source: point(), orderBy: ['properties.email'], limit: 4, offset }, P_PERSONS);
    const pages = [await page(0), await page(4), await page(8)];
    expect(pages.map((p) => [emails(p), p.hasMore])).toEqual([
      [[0, 1, 2, 3].map(email), true],
      [[4, 5, 6, 7].map(email), true],
      [[8, 9].map(email), false],
    ]);
  });
});

describe('trends options as the persons modal uses them (TrendsQueryRunner.to_actors_query_options → InsightActorsQuery)', () => {
  beforeEach(() => freeze('2020-01-20T12:00:00Z'));

  it('US/Pacific, two series, a breakdown with the null value: the actors of every (series, day, breakdown) option number its data point', async () => {
    const settings = { timezone: 'US/Pacific' };
    const source = { kind: 'TrendsQuery', dateRange: { date_from: '2020-01-12', date_to: '2020-01-13' }, series: [{ ...PV, math: 'dau' }, { ...LEAVE, math: 'dau' }], breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' } };
    const o = await db.run(insightActorsOptionsRunner, { kind: 'InsightActorsQueryOptions', source: { kind: 'InsightActorsQuery', source } }, P_INSIGHT, settings);
    const counts = (await db.run(trendsRunner, source, P_INSIGHT, settings)).results as { action: { order: number }; breakdown_value: string; data: number[] }[];
    expect(o.breakdown.map((b: { value: string }) => b.value).sort()).toEqual(['$$_posthog_breakdown_null_$$', 'Chrome', 'Safari']);
    let total = 0;
    for (const series of o.series)
      for (const [i, day] of o.day.entries())
        for (const breakdown of o.breakdown) {
          const line = counts.find((c) => c.action.order === series.value && c.breakdown_value === breakdown.value);
          const r = await db.run(actorsRunner, { kind: 'ActorsQuery', select: ['id'], source: { kind: 'InsightActorsQuery', source, series: series.value, day: day.value, breakdown: breakdown.value } }, P_INSIGHT, settings);
          expect([series.label, day.label, breakdown.label, r.results.length]).toEqual([series.label, day.label, breakdown.label, line?.data[i] ?? 0]);
          total += r.results.length;
        }
    expect(total).toBeGreaterThan(4);
  });

  it('lifecycle in US/Pacific: the actors of every (day, status) option number its data point', async () => {
    const settings = { timezone: 'US/Pacific' };
    const source = { kind: 'LifecycleQuery', dateRange: { date_from: '2020-01-11', date_to: '2020-01-12' }, series: [PV] };
    const o = await db.run(insightActorsOptionsRunner, { kind: 'InsightActorsQueryOptions', source: { kind: 'InsightActorsQuery', source } }, P_INSIGHT, settings);
    expect(o.day[0]).toEqual({ label: '11-Jan-2020', value: '2020-01-11T00:00:00-08:00' });
    const lines = (await db.run(lifecycleRunner, source, P_INSIGHT, settings)).results as { status: string; data: number[] }[];
    for (const [i, day] of o.day.entries())
      for (const status of o.status) {
        const r = await db.run(actorsRunner, { kind: 'ActorsQuery', select: ['id'], source: { kind: 'InsightActorsQuery', source, day: day.value, status: status.value } }, P_INSIGHT, settings);
        expect([day.label, status.value, r.results.length]).toEqual([day.label, status.value, Math.abs(lines.find((l) => l.status === status.value)!.data[i])]);
      }
  });
});

describe('ActorsQuery over a ProductQL source: its id column (ActorsQueryRunner.source_id_column)', () => {
  beforeEach(() => freeze('2020-01-20T12:00:00Z'));
  const emails = async (query: string) =>
    (await actors({ select: ['properties.email'], orderBy: ['properties.email'], source: { kind: 'HogQLQuery', query } }, P_PERSONS)).results.map((r: string[]) => r[0]);
  const email = (i: number) => `jacob${i}@${RANDOM}.posthog.com`;

  it('the column named person_id, wherever it is', async () => {
    expect(await emails("SELECT event, person_id FROM events WHERE event = 'clicky-3'")).toEqual([email(3)]);
  });

  it('an alias group_key / actor_id / person_id wins over an earlier id column', async () => {
    const q = "SELECT event AS event_id, count() AS c, person_id AS actor_id FROM events WHERE event IN ('clicky-1', 'clicky-2') GROUP BY event, person_id";
    expect(await emails(q)).toEqual([email(1), email(2)]);
  });

  it('else the first column with "id" in its alias or field name', async () => {
    expect(await emails("SELECT event, toString(person_id) AS pid FROM events WHERE event = 'clicky-7'")).toEqual([email(7)]);
    expect(await emails("SELECT properties.index, id FROM persons WHERE properties.index IN ('4', '5')")).toEqual([email(4), email(5)]);
  });

  it('a source without an id column is a 400 ("Source query must have an id column")', async () => {
    await expect(emails('SELECT event FROM events')).rejects.toMatchObject({ status: 400, attr: 'source__query' });
  });
});

describe('EventsQuery: the Person column sort (events_query_runner.py orderBy [["person"], ["person DESC"], ["person ASC"]])', () => {
  beforeEach(() => freeze('2020-01-20T12:00:00Z'));
  const email = (i: number) => `jacob${i}@${RANDOM}.posthog.com`;
  const emails = async (orderBy: string[], limit = 4) =>
    (await db.run(eventsRunner, { kind: 'EventsQuery', select: ['event', 'person'], after: 'all', orderBy, limit }, P_PERSONS)).results.map(
      (r: [string, { properties: { email: string } }]) => r[1].properties.email,
    );

  it('"person ASC": by the person’s email, ascending', async () => {
    expect(await emails(['person ASC'])).toEqual([0, 0, 1, 1].map(email));
  });

  it('"person DESC": descending', async () => {
    expect(await emails(['person DESC'])).toEqual([9, 9, 8, 8].map(email));
  });

  it('bare "person": ascending, as the frontend writes a column\'s ascending sort ("DESC" only for "person DESC")', async () => {
    expect(await emails(['person'])).toEqual([0, 0, 1, 1].map(email));
  });

  it("the person sort reads the project's person_display_name_properties[0] when set (EventsQueryRunner, PersonStrategy.order_by)", async () => {
    const settings = { person_display_name_properties: ['name', 'email'] };
    const ev = await db.run(eventsRunner, { kind: 'EventsQuery', select: ['event', 'person'], after: 'all', orderBy: ['person DESC'] }, P_INSIGHT, settings);
    const names = ev.results.map((r: [string, { properties: { name: string } }]) => r[1].properties.name);
    expect(names.filter((n: string, i: number) => n !== names[i - 1])).toEqual(['p4', 'p3', 'p2', 'p1']);
    expect((await actors({ select: ['properties.name'], orderBy: ['person DESC'] }, P_INSIGHT, settings)).results).toEqual([['p4'], ['p3'], ['p2'], ['p1']]);
    expect((await actors({ select: ['properties.name'], orderBy: ['person ASC'] }, P_INSIGHT, settings)).results).toEqual([['p1'], ['p2'], ['p3'], ['p4']]);
  });

  it('the person sort with a second item is an ordinary orderBy', async () => {
    const r = await db.run(eventsRunner, { kind: 'EventsQuery', select: ['event', 'person.properties.email'], after: 'all', orderBy: ['person.properties.email DESC', 'event'], limit: 3 }, P_PERSONS);
    expect(r.results).toEqual([
      ['clicky-9', email(9)],
      ['clicky-9', email(9)],
      ['clicky-8', email(8)],
    ]);
  });
});

describe('EventsQuery and ActorsQuery, compatibility pass (test_events_query_runner.py, test_actors_query_runner.py)', () => {
  beforeEach(() => freeze('2020-01-20T12:00:00Z'));
  const email = (i: number) => `jacob${i}@${RANDOM}.posthog.com`;
  const events = (q: Record<string, unknown>) => db.run(eventsRunner, { kind: 'EventsQuery', after: 'all', ...q }, P_PERSONS);
  const emails = (r: { results: unknown[][] }) => r.results.map((row) => row[0]);

  it('test_persons_query_properties with a HogQLPropertyFilter: toInt(properties.index) > 5', async () => {
    const properties = [
      { type: 'person', key: 'random_uuid', value: RANDOM, operator: 'exact' },
      { type: 'hogql', key: 'toInt(properties.index) > 5' },
    ];
    expect((await actors({ properties }, P_PERSONS)).results).toHaveLength(4);
  });

  it('an empty search is no search (PersonStrategy.filter_conditions: search != "")', async () => {
    expect((await actors({ select: ['id'], search: '' }, P_PERSONS)).results).toHaveLength(10);
  });

  it('the search term is not trimmed (f"%{search}%"): spaces are part of the pattern', async () => {
    expect((await actors({ select: ['id'], search: ' JACOB3@' }, P_PERSONS)).results).toEqual([]);
    expect((await actors({ select: ['properties.email'], search: 'b3@' }, P_PERSONS)).results).toEqual([[email(3)]]);
    expect((await actors({ select: ['id'], search: ' ' }, P_PERSONS)).results).toHaveLength(10);
  });

  it('search is ANDed with properties', async () => {
    const r = await actors({ select: ['properties.email'], search: 'JACOB', properties: [{ type: 'person', key: 'index', value: '6', operator: 'gt' }] }, P_PERSONS);
    expect(emails(r)).toEqual([7, 8, 9].map(email));
  });

  it('an offset past the last actor: no rows, no more', async () => {
    const r = await actors({ select: ['properties.email'], orderBy: ['properties.email'], limit: 5, offset: 10 }, P_PERSONS);
    expect([r.results, r.hasMore, r.limit, r.offset]).toEqual([[], false, 5, 10]);
  });

  it('EventsQuery select ["count()"] alone: one row, no grouping', async () => {
    const r = await events({ select: ['count()'] });
    expect([r.columns, r.results, r.hasMore]).toEqual([['count()'], [[20]], false]);
  });

  it('EventsQuery an offset past the last event: no rows, no more', async () => {
    const r = await events({ select: ['event', 'timestamp'], limit: 5, offset: 20 });
    expect([r.results, r.hasMore, r.limit, r.offset]).toEqual([[], false, 5, 20]);
  });

  it('EventsQuery personId with event: both apply', async () => {
    const person = (await actors({ select: ['id'], search: email(3) }, P_PERSONS)).results[0][0];
    const r = await events({ select: ['event', 'timestamp'], personId: person, event: 'clicky-3' });
    expect(r.results).toEqual([
      ['clicky-3', '2020-01-11T12:00:00Z'],
      ['clicky-3', '2020-01-10T12:00:00Z'],
    ]);
    expect((await events({ select: ['event'], personId: person, event: 'clicky-4' })).results).toEqual([]);
  });

  it('EventsQuery a person property filter with a count() per person email', async () => {
    const r = await events({
      select: ['person.properties.email', 'count()'],
      properties: [{ type: 'person', key: 'index', value: '7', operator: 'gt' }],
      orderBy: ['person.properties.email'],
    });
    expect(r.results).toEqual([
      [email(8), 2],
      [email(9), 2],
    ]);
  });

  it('no orderBy, created_at selected: newest first (created_at DESC)', async () => {
    const r = await actors({ select: ['properties.email', 'created_at'] }, P_PERSONS);
    expect(emails(r).slice(0, 8)).toEqual([8, 7, 6, 5, 4, 3, 2, 1].map(email));
    expect(r.results[0][1]).toBe('2020-01-09T00:00:00Z');
  });

  it('EventsQuery types: the ClickHouse types of the columns', async () => {
    const r = await events({ select: ['event', 'timestamp', 'distinct_id', 'uuid', 'count()'], limit: 1 });
    expect(r.types).toEqual(['String', "DateTime64(6, 'UTC')", 'String', 'UUID', 'UInt64']);
  });

  it('EventsQuery aggregates page by group: limit counts groups, hasMore tells more', async () => {
    const r = await events({ select: ['event', 'count()'], limit: 3 });
    expect([r.results.length, r.hasMore, r.results.map((x: unknown[]) => x[1])]).toEqual([3, true, [2, 2, 2]]);
  });

  it('EventsQuery orderBy without a direction ascends', async () => {
    const r = await events({ select: ['event', 'timestamp'], orderBy: ['timestamp', 'event'], limit: 2 });
    expect(r.results).toEqual([
      ['clicky-0', '2020-01-10T12:00:00Z'],
      ['clicky-1', '2020-01-10T12:00:00Z'],
    ]);
  });

  it('ActorsQuery count() alone, and with a search: one row', async () => {
    expect((await actors({ select: ['count()'] }, P_PERSONS)).results).toEqual([[10]]);
    expect((await actors({ select: ['properties.name', 'count()'], search: email(2) }, P_PERSONS)).results).toEqual([[`Mr Jacob ${RANDOM}`, 1]]);
  });

  it('EventsQuery where on a person property: the events of that person, first column ASC', async () => {
    const r = await events({ select: ['event', 'person.properties.email'], where: ["person.properties.email ILIKE '%jacob1@%'"] });
    expect(r.results).toEqual([
      ['clicky-1', email(1)],
      ['clicky-1', email(1)],
    ]);
  });

  it('EventsQuery fixedProperties (a hogql filter) ANDed with properties', async () => {
    const r = await events({
      select: ['event', 'timestamp'],
      fixedProperties: [{ type: 'hogql', key: "event IN ('clicky-2', 'clicky-5')" }],
      properties: [{ type: 'person', key: 'index', value: '4', operator: 'gt' }],
    });
    expect(r.results).toEqual([
      ['clicky-5', '2020-01-11T12:00:00Z'],
      ['clicky-5', '2020-01-10T12:00:00Z'],
    ]);
  });

  it('EventsQuery fixedProperties items may be property groups (list[PropertyGroupFilter | PropertyGroupFilterValue | AnyPropertyFilter])', async () => {
    const r = await events({
      select: ['event'],
      orderBy: ['event'],
      fixedProperties: [
        { type: 'OR', values: [{ type: 'person', key: 'index', value: '2', operator: 'exact' }, { type: 'event', key: '$ev', operator: 'is_not_set' }] },
        { type: 'AND', values: [{ type: 'OR', values: [{ type: 'hogql', key: "event = 'clicky-2'" }, { type: 'hogql', key: "event = 'clicky-7'" }] }] },
        { type: 'hogql', key: "timestamp < '2020-01-11'" },
      ],
    });
    expect(r.results).toEqual([['clicky-2'], ['clicky-7']]);
    // a group with no filters matches all; a bad filter inside a group fails the schema at its path
    expect((await events({ select: ['count()'], fixedProperties: [{ type: 'AND', values: [] }] })).results).toEqual([[20]]);
    await expect(events({ select: ['event'], fixedProperties: [{ type: 'OR', values: [{ type: 'event', key: 'x', operator: 'nope' }] }] })).rejects.toThrow(
      /"fixedProperties",\s*0,\s*"values",\s*0,\s*"operator"/,
    );
  });

  it('EventsQuery actionId with event: both apply', async () => {
    const registry = actionRegistry(7101);
    db.actions = registry.source;
    const clicky3 = registry.action('clicky 3', [actionStep('clicky-3')]);
    expect((await events({ select: ['event', 'count()'], actionId: clicky3 })).results).toEqual([['clicky-3', 2]]);
    expect((await events({ select: ['event', 'count()'], actionId: clicky3, event: 'clicky-4' })).results).toEqual([]);
  });

  it('EventsQuery actionId 0, personId "" and event "" filter nothing (events_query_runner.py tests them for truth: `if self.query.actionId:`)', async () => {
    expect((await events({ select: ['count()'], actionId: 0, personId: '', event: '' })).results).toEqual([[20]]);
  });

  it('a limit of exactly the row count: every row, hasMore false (the paginator reads limit + 1)', async () => {
    const ev20 = await events({ select: ['event'], limit: 20 });
    expect([ev20.results.length, ev20.hasMore]).toEqual([20, false]);
    const act10 = await actors({ limit: 10 }, P_PERSONS);
    expect([act10.results.length, act10.hasMore]).toEqual([10, false]);
  });

  it('ActorsQuery over a data point without orderBy: the first column ASC (ActorsQueryRunner), event_count included', async () => {
    const source = { kind: 'InsightActorsQuery', source: { kind: 'TrendsQuery', dateRange, series: [LEAVE] } };
    expect((await actors({ select: ['event_count', 'properties.name'], source }, P_INSIGHT)).results).toEqual([
      [1, 'p2'],
      [2, 'p1'],
    ]);
    const pv = { kind: 'InsightActorsQuery', source: { kind: 'TrendsQuery', dateRange, series: [PV] } };
    expect((await actors({ select: ['properties.name', 'event_count'], source: pv }, P_INSIGHT)).results).toEqual([
      ['p1', 6],
      ['p2', 2],
      ['p3', 1],
      ['p4', 1],
    ]);
  });

  it('test_default_persons_query: person.$delete is the constant 1', async () => {
    const r = await actors({ limit: 3 }, P_PERSONS);
    expect(r.results.map((row: unknown[]) => row[3])).toEqual([1, 1, 1]);
  });

  it('EventsQuery relative after ("-10d", not rounded) and before, strict on both ends', async () => {
    expect((await events({ select: ['event'], after: '-10d' })).results).toHaveLength(10);
    expect((await events({ select: ['event'], after: '-11d', before: '2020-01-11T12:00:00Z' })).results).toHaveLength(10);
  });

  it('EventsQuery naive ISO before/after are UTC whatever the project timezone (isoparse, then the naive datetime printed with astimezone)', async () => {
    const inPhoenix = (q: Record<string, unknown>) => db.run(eventsRunner, { kind: 'EventsQuery', select: ['timestamp'], orderBy: ['timestamp'], ...q }, P_PERSONS, { timezone: 'America/Phoenix' });
    const days = async (q: Record<string, unknown>) => [...new Set((await inPhoenix(q)).results.map((r: string[]) => r[0]))];
    // events at 12:00 UTC on 01-10 and 01-11: 05:00 in Phoenix
    expect(await days({ after: '2020-01-10T11:59:00', before: '2020-01-11T12:00:00' })).toEqual(['2020-01-10T05:00:00-07:00']);
    expect(await days({ after: '2020-01-10 12:00', before: '2020-01-12' })).toEqual(['2020-01-11T05:00:00-07:00']);
    expect(await days({ after: '2020-01-10', before: '2020-01-11 12:00:01' })).toEqual(['2020-01-10T05:00:00-07:00', '2020-01-11T05:00:00-07:00']);
    // an offset: that instant
    expect(await days({ after: '2020-01-10T05:00:00-07:00', before: '2020-01-11T05:00:01-07:00' })).toEqual(['2020-01-11T05:00:00-07:00']);
  });
});

describe('InsightActorsQuery over paths (paths_query_runner.py to_actors_query: pathStartKey / pathEndKey / pathDropoffKey)', () => {
  const P_PATHS = 403;
  // u1: /1 → /2 → /3, u2: /1 → /2, u3: /1 → /3 (one session each, a minute apart)
  const visits: [string, string[]][] = [
    ['u1', ['/1', '/2', '/3']],
    ['u2', ['/1', '/2']],
    ['u3', ['/1', '/3']],
  ];
  beforeAll(async () => {
    await db.load(P_PATHS, {
      persons: visits.map(([id]) => ({ distinct_ids: [id], properties: { name: id }, created_at: '2020-01-01T00:00:00Z' })),
      events: visits.flatMap(([id, urls]) => urls.map((url, i) => ev('$pageview', id, `2020-01-10T12:0${i}:00Z`, { $current_url: `https://example.com${url}` }))),
    });
  });
  beforeEach(() => freeze('2020-01-20T12:00:00Z'));
  const paths = (pathsFilter: Record<string, unknown> = {}) => ({
    kind: 'PathsQuery',
    dateRange: { date_from: '2020-01-09', date_to: '2020-01-19' },
    pathsFilter: { includeEventTypes: ['$pageview'], ...pathsFilter },
  });
  const names = async (pathsFilter: Record<string, unknown>) =>
    (await actors({ select: ['properties.name'], orderBy: ['properties.name'], source: { kind: 'InsightActorsQuery', source: paths(pathsFilter) } }, P_PATHS)).results.map((r: string[]) => r[0]);

  it('the edges, keyed by step and URL', async () => {
    const r = await db.run(pathsRunner, paths(), P_PATHS);
    const edges = (r.results as { source: string; target: string; value: number }[]).map((e) => [e.source, e.target, e.value]);
    expect(edges.sort()).toEqual([
      ['1_https://example.com/1', '2_https://example.com/2', 2],
      ['1_https://example.com/1', '2_https://example.com/3', 1],
      ['2_https://example.com/2', '3_https://example.com/3', 1],
    ]);
  });

  it('pathStartKey with pathEndKey: the actors of the edge, as many as its value', async () => {
    expect(await names({ pathStartKey: '1_https://example.com/1', pathEndKey: '2_https://example.com/2' })).toEqual(['u1', 'u2']);
    expect(await names({ pathStartKey: '1_https://example.com/1', pathEndKey: '2_https://example.com/3' })).toEqual(['u3']);
    expect(await names({ pathStartKey: '2_https://example.com/2', pathEndKey: '3_https://example.com/3' })).toEqual(['u1']);
  });

  it('pathDropoffKey: the actors whose path ends at the node', async () => {
    expect(await names({ pathDropoffKey: '2_https://example.com/2' })).toEqual(['u2']);
    expect(await names({ pathDropoffKey: '3_https://example.com/3' })).toEqual(['u1']);
  });
});
