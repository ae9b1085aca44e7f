/**
 * Property-based fuzzing of the structured query bodies of `POST /api/projects/<id>/query/` through the real server:
 * every insight kind (trends, funnels, retention, paths, stickiness, lifecycle, HogQL) and the actors/events kinds,
 * generated from valid shapes with odd values in the fields that matter (property filters of every type and
 * operator, breakdowns, date ranges, formulas, funnel steps, retention periods, paths keys, nested actor sources),
 * then mutated structurally (wrong types, nulls, empty values, huge numbers, unknown keys, deep nesting).
 *
 * The standard (DESIGN.md "Errors"): no body a caller sends gets a 5xx (a query timeout, 504 `query_timeout`, is the
 * one user error in that range), every error has the `{type, code, detail, attr}` body with no stack trace or SQL,
 * no answer carries another project's rows, and the server still answers `/healthz` afterwards.
 *
 * `npm test` runs a few hundred bodies (< 60 s here); `npm run fuzz` runs FUZZ_RUNS of them. Other knobs: FUZZ_SEED (another
 * sample), FUZZ_ENGINE=clickhouse (a Quarry on a loopback ClickHouse), FUZZ_COLLECT=1 (list every failure instead of
 * stopping at the first), FUZZ_STATS=1 (print how the bodies were answered, to see what the generators reach).
 */
import fc from 'fast-check';
import { startSingle } from '../../src/engines/clickhouse/test-server';
import { startServer, type ApiResponse, type TestServer } from '../helpers/server';

const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const SECRET = 'P2_SECRET_MARKER';
const NO_LEAKS = /\bat \S+ \(|node_modules|\.ts:\d+|SQLITE|QueryFailedError|\bstack\b|DB::Exception/i;
/** SQL text in a message (case-sensitive: "the select list" is prose). */
const SQL_TEXT = /SELECT |INSERT /;
const leaks = (text: string): boolean => NO_LEAKS.test(text) || SQL_TEXT.test(text);
/**
 * Fields holding ProductQL text: a body with one may fail in the engine (a type mismatch the caller wrote), which is
 * a 400 `query_error` with the engine's message. A body without one is Quarry's own SQL: an engine failure is a bug.
 */
const PRODUCTQL_FIELDS = /"(math_hogql|pathsHogQLExpression|funnelAggregateByHogQL|select|where|orderBy|query|hogql)"/;

let srv: TestServer;
let p2: number;
let actionId = 0;
let cohortId = 0;

const DAY = 86_400_000;
const iso = (daysAgo: number, h = 12) => new Date(Date.now() - daysAgo * DAY - h * 3_600_000).toISOString();

async function capture(projectId: number, batch: Record<string, unknown>[]): Promise<void> {
  const token = (await srv.api('GET', `/api/projects/${projectId}/`)).body.api_token;
  const r = await fetch(`${srv.url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: token, batch }) });
  expect(r.status).toBe(200);
  await srv.server.services.ingestor.flush();
}

/** `FUZZ_ENGINE=clickhouse`: the same bodies against a Quarry on a loopback ClickHouse (src/engines/clickhouse/test-server). */
let ch: { url: string; stop(): Promise<void> } | undefined;

beforeAll(async () => {
  if (process.env.FUZZ_ENGINE === 'clickhouse') {
    ch = await startSingle();
    srv = await startServer({ env: { QUARRY_EVENTS_ENGINE: 'clickhouse', QUARRY_CLICKHOUSE_URL: ch.url, QUARRY_CLICKHOUSE_DATABASE: 'query_fuzz' } });
  } else srv = await startServer();
  p2 = (await srv.api('POST', '/api/projects/', { name: 'other' })).body.id;
  const users = ['u1', 'u2', 'u3', 'u4', 'u5', 'u6'];
  const batch: Record<string, unknown>[] = [];
  users.forEach((u, i) => {
    batch.push({ event: '$identify', distinct_id: u, timestamp: iso(12 - i), properties: { $set: { email: `${u}@example.com`, plan: i % 2 ? 'pro' : 'free', age: 20 + i, $initial_browser: 'Chrome' } } });
    for (let d = 0; d < 10; d += 1 + (i % 3)) {
      batch.push({ event: '$pageview', distinct_id: u, timestamp: iso(d, i), properties: { $browser: i % 2 ? 'Chrome' : 'Safari', $current_url: `https://example.com/p/${d % 4}?q=${i}`, $pathname: `/p/${d % 4}`, $session_id: `s-${u}-${d}`, amount: d * 1.5, $os: 'Mac OS X', $screen_width: 1000 + i, version: `1.${i}.${d}` } });
      if (d % 2 === 0) batch.push({ event: 'signup', distinct_id: u, timestamp: iso(d, i - 1), properties: { plan: 'pro', amount: d, $session_id: `s-${u}-${d}` } });
      if (d % 3 === 0) batch.push({ event: 'purchase', distinct_id: u, timestamp: iso(d, i - 2), properties: { amount: 10 * d + i, currency: 'USD', $group_0: 'org1' } });
    }
  });
  await capture(1, batch);
  await capture(p2, [
    { event: 'p2_only', distinct_id: 'u1', timestamp: iso(1), properties: { $browser: SECRET, $set: { email: SECRET } } },
    { event: '$pageview', distinct_id: 'u2', timestamp: iso(2), properties: { $browser: SECRET, $current_url: SECRET } },
  ]);
  const a = await srv.api('POST', '/api/projects/1/actions/', { name: 'pageviews', steps: [{ event: '$pageview' }] });
  if (a.status === 201) actionId = a.body.id;
  const c = await srv.api('POST', '/api/projects/1/cohorts/', { name: 'pros', groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }] }] });
  if (c.status === 201) cohortId = c.body.id;
}, 120_000);

afterAll(async () => {
  await srv?.close();
  await ch?.stop();
});

// ---------------------------------------------------------------------------------------------- odd values

const HUGE = [1e308, -1e308, 2 ** 53 + 2, -(2 ** 53) - 2, 2 ** 31, -(2 ** 31) - 1, 1e21, Number.MIN_VALUE];
const SMALL = [0, -1, 1, 2, 3, -0.5, 1.5, 100, 10_000, 99_999];
const STRINGS = [
  '',
  ' ',
  'abc',
  'Chrome',
  '10',
  '-1',
  '1e400',
  'NaN',
  'Infinity',
  'null',
  'true',
  '2024-01-01',
  '-7d',
  'all',
  "'; DROP TABLE events; --",
  '\u0000',
  '\ud800',
  '%',
  '_',
  '(',
  '[',
  '.*',
  '(?<x>a)',
  '(a+)+$',
  '{variables.x}',
  '{filters}',
  '$pageview',
  'x'.repeat(5000),
  '1.2.3',
  'v1.2.3-beta',
  '99999999999999999999999',
  '🙂',
  'properties.$browser',
  'person.properties.email',
];
const oddScalar = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, ...HUGE, ...SMALL, ...STRINGS),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 20 }),
);
const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: oddScalar },
  { weight: 1, arbitrary: fc.constantFrom<unknown>([], {}, [null], [[]], [{}], { a: 1 }, ['Chrome', 'Safari'], [1, 'a', true, null]) },
  { weight: 1, arbitrary: fc.array(oddScalar, { maxLength: 4 }) },
);
/** A property filter value: any scalar or list of scalars. */
const filterValue = fc.oneof({ weight: 3, arbitrary: oddScalar }, { weight: 1, arbitrary: fc.array(oddScalar, { maxLength: 4 }) });
/** A value that is usually valid for the field (`good`), sometimes odd. */
const mostly = <T>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> => fc.oneof({ weight: 40, arbitrary: good as fc.Arbitrary<unknown> }, { weight: 1, arbitrary: oddValue });
const optional = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined, freq: 2 });

// ---------------------------------------------------------------------------------------------- pieces

const EVENTS = ['$pageview', 'signup', 'purchase', '$identify', 'never_seen', '', null, '$autocapture', '$screen', 'p2_only'];
const event = fc.constantFrom<unknown>(...EVENTS);
const PROP_KEYS = ['$browser', '$current_url', '$pathname', 'plan', 'amount', 'email', 'age', '$os', 'version', '$session_id', 'unknown_prop', '', 'a.b', "a'b", 'a"b', 'x'.repeat(300), '$group_0', 'properties', 'id', 'distinct_id', 'timestamp', '$session_duration', '$entry_pathname', 'tag_name', 'text', 'href', 'selector', '$initial_browser', '$virt_initial_channel_type'];
const propKey = fc.constantFrom(...PROP_KEYS);
const OPERATORS = ['exact', 'is_not', 'icontains', 'not_icontains', 'regex', 'not_regex', 'gt', 'gte', 'lt', 'lte', 'is_set', 'is_not_set', 'is_date_exact', 'is_date_before', 'is_date_after', 'between', 'not_between', 'min', 'max', 'in', 'not_in', 'is_cleaned_path_exact', 'flag_evaluates_to', 'semver_eq', 'semver_gt', 'semver_lt', 'semver_tilde', 'semver_caret', 'semver_wildcard', null];
const operator = fc.constantFrom<unknown>(...OPERATORS);
const HOGQL_EXPRS = ['1', 'event', "properties.$browser = 'Chrome'", 'count()', 'sum(toFloat(properties.amount))', 'person.properties.email', 'toInt(properties.plan)', 'a +', ')', 'SELECT 1', 'now() - interval 1 day', "'x'", 'arrayJoin([1,2])', 'x'.repeat(2000), 'properties.amount / 0', 'toDate(properties.plan)', 'events.team_id', 'sleep(10)', "{variables.x}", 'timestamp > now()', 'person_id', 'JSONExtractString(properties, \'x\')', 'if(1, 2)', 'lower()', "match(event, '(a+)+$')", 'NULL', 'properties'];
const hogqlExpr = fc.constantFrom(...HOGQL_EXPRS);
const FILTER_TYPES = ['event', 'event', 'person', 'person', 'event_metadata', 'session', 'feature', 'element', 'group', 'hogql', 'cohort'];

const propertyFilter: fc.Arbitrary<unknown> = fc.constantFrom(...FILTER_TYPES).chain((type): fc.Arbitrary<unknown> => {
  if (type === 'cohort')
    return fc.record(
      {
        type: fc.constant('cohort'),
        key: mostly(fc.constant('id')),
        value: mostly(fc.constantFrom<unknown>(() => cohortId, 0, -1, 999_999, 2 ** 40, 'abc', '1')),
        operator: optional(fc.constantFrom<unknown>('in', 'not_in', 'exact', null)),
      },
      { requiredKeys: ['type', 'key', 'value'] },
    );
  if (type === 'hogql') return fc.record({ type: fc.constant('hogql'), key: hogqlExpr, value: optional(oddValue) }, { requiredKeys: ['type', 'key'] });
  return fc.record(
    {
      type: fc.constant(type),
      key: mostly(propKey),
      operator: optional(operator),
      value: optional(filterValue),
      ...(type === 'group' ? { group_type_index: mostly(fc.constantFrom(0, 1, 4)) } : {}),
    },
    { requiredKeys: type === 'group' ? ['type', 'key', 'group_type_index'] : ['type', 'key'] } as never,
  );
});
const propertyGroup = (depth: number): fc.Arbitrary<unknown> =>
  fc.record({
    type: fc.constantFrom('AND', 'OR'),
    values: fc.array(depth > 0 ? fc.oneof(propertyFilter, propertyGroup(depth - 1)) : propertyFilter, { maxLength: 3 }),
  });
const properties = fc.oneof(fc.array(propertyFilter, { maxLength: 3 }), propertyGroup(2));

const DATES = ['-7d', '-0d', '-1h', '-30M', '-1w', '-1m', '-1y', '-1dStart', '-1mStart', '-1yStart', 'mStart', 'dStart', 'yStart', 'all', '2020-01-01', '2099-12-31', '0001-01-01', '9999-12-31T23:59:59Z', '2024-02-30', 'garbage', '', '-99999999d', '+5d', '5d', '2024-01-01T00:00:00+25:00', '2024-01-01T00:00:00Z[Mars/Olympus]', '1e10', '2024-13-45', '2024-01-01 00:00:00', 'today', '-0h', '-1000000000y', '-99999999999999h', '-1q', '-3.5d', 'P1D', '1700000000', null];
const dateRange = fc.record({ date_from: optional(fc.constantFrom<unknown>(...DATES)), date_to: optional(fc.constantFrom<unknown>(...DATES)), explicitDate: optional(mostly(fc.boolean())) });
const INTERVALS = ['minute', 'hour', 'day', 'day', 'week', 'month', null];
const interval = fc.constantFrom<unknown>(...INTERVALS);
const MATH = ['total', 'dau', 'weekly_active', 'monthly_active', 'unique_session', 'first_time_for_user', 'first_matching_event_for_user', 'avg', 'sum', 'min', 'max', 'median', 'p75', 'p90', 'p95', 'p99', 'avg_count_per_actor', 'max_count_per_actor', 'p99_count_per_actor', 'unique_group', 'hogql', 'first_time_for_user_with_filters', null];

const eventsNode = fc.record(
  {
    kind: fc.constant('EventsNode'),
    event,
    name: optional(fc.constantFrom('x', '', null)),
    custom_name: optional(fc.constantFrom(...STRINGS)),
    math: optional(fc.constantFrom<unknown>(...MATH)),
    math_property: optional(mostly(propKey)),
    math_hogql: optional(hogqlExpr),
    math_group_type_index: optional(mostly(fc.constantFrom(0, 4))),
    math_multiplier: optional(mostly(fc.constantFrom(0, -1, 1e308, 0.001))),
    properties: optional(fc.array(propertyFilter, { maxLength: 2 })),
  },
  { requiredKeys: ['kind'] },
);
const actionsNode = fc.record({ kind: fc.constant('ActionsNode'), id: mostly(fc.constantFrom<unknown>(() => actionId, 999_999, 0, -1, 2 ** 40)), math: optional(fc.constantFrom<unknown>(...MATH)), properties: optional(fc.array(propertyFilter, { maxLength: 2 })) });
const seriesNode = fc.oneof({ weight: 4, arbitrary: eventsNode }, { weight: 1, arbitrary: actionsNode });
const groupNode = fc.record({ kind: fc.constant('GroupNode'), operator: mostly(fc.constantFrom('OR', 'AND')), nodes: fc.array(seriesNode, { maxLength: 3 }), math: optional(fc.constantFrom<unknown>(...MATH)) });
const series = (max: number) => fc.array(seriesNode, { minLength: 1, maxLength: max });

const BREAKDOWN_TYPES = ['event', 'person', 'group', 'session', 'cohort', 'hogql', 'event_metadata', 'data_warehouse', 'data_warehouse_person_property', 'revenue_analytics', null];
const breakdownValue = fc.oneof(propKey, hogqlExpr, fc.constantFrom<unknown>('all', 0, -1, 999_999, [0, 999_999], ['all'], [], [() => cohortId]));
const breakdownFilter = fc.record(
  {
    breakdown_type: optional(fc.constantFrom<unknown>(...BREAKDOWN_TYPES)),
    breakdown: optional(mostly(breakdownValue)),
    breakdown_limit: optional(mostly(fc.constantFrom(1, 2, 25))),
    breakdown_normalize_url: optional(mostly(fc.boolean())),
    breakdown_group_type_index: optional(mostly(fc.constantFrom(0, 4, 5, -1, 2 ** 40))),
    breakdown_histogram_bin_count: optional(mostly(fc.constantFrom(1, 2, 10, 1000, 1e9, 2 ** 53))),
    breakdown_hide_other_aggregation: optional(fc.boolean()),
    breakdowns: optional(
      fc.array(
        fc.record(
          { type: optional(fc.constantFrom<unknown>(...BREAKDOWN_TYPES)), property: mostly(breakdownValue), histogram_bin_count: optional(mostly(fc.constantFrom(1, 3, 1e9))), normalize_url: optional(fc.boolean()), group_type_index: optional(fc.constantFrom(0, 5)) },
          { requiredKeys: ['property'] },
        ),
        { maxLength: 4 },
      ),
    ),
  },
  { requiredKeys: [] },
);
const FORMULAS = ['A', 'A+B', 'A/B', 'A/0', 'A*', '(((', 'Z', 'A+B+C+D', 'sum(A)', "A + 'x'", '1/0', 'A - -B', '', ' ', 'A**2', 'A%B', 'SELECT 1', 'A B', '-A', 'a+b', 'abs(A)', 'A/B*100', 'A; DROP TABLE events', 'x'.repeat(3000), '0', 'A+1e308*1e308', 'if(A, B, C)'];
const formula = fc.constantFrom(...FORMULAS);
const DISPLAYS = ['ActionsLineGraph', 'ActionsBar', 'ActionsAreaGraph', 'ActionsLineGraphCumulative', 'BoldNumber', 'ActionsPie', 'ActionsBarValue', 'ActionsTable', 'WorldMap', 'CalendarHeatmap', null];

const insightBase = {
  dateRange: optional(dateRange),
  filterTestAccounts: optional(mostly(fc.boolean())),
  properties: optional(properties),
  aggregation_group_type_index: optional(mostly(fc.constantFrom(0, 4))),
  samplingFactor: optional(mostly(fc.constantFrom(0.1, 1, 10, 1e-300))),
};

const trends = fc.record(
  {
    kind: fc.constant('TrendsQuery'),
    series: fc.oneof({ weight: 4, arbitrary: series(4) }, { weight: 1, arbitrary: fc.array(fc.oneof(seriesNode, groupNode), { minLength: 1, maxLength: 3 }) }),
    interval: optional(interval),
    ...insightBase,
    breakdownFilter: optional(breakdownFilter),
    compareFilter: optional(fc.record({ compare: optional(mostly(fc.boolean())), compare_to: optional(fc.constantFrom<unknown>(...DATES)) })),
    trendsFilter: optional(
      fc.record({
        display: optional(fc.constantFrom<unknown>(...DISPLAYS)),
        formula: optional(formula),
        formulas: optional(fc.array(formula, { maxLength: 3 })),
        formulaNodes: optional(fc.array(fc.record({ formula, custom_name: optional(oddValue) }), { maxLength: 3 })),
        smoothingIntervals: optional(mostly(fc.constantFrom(1, 2, 7, 1000, 1e9, 2 ** 53))),
        breakdown_histogram_bin_count: optional(mostly(fc.constantFrom(1, 5, 2 ** 40))),
      }),
    ),
  },
  { requiredKeys: ['kind', 'series'] },
);

const stepIndex = fc.constantFrom<unknown>(0, 1, 2, 3, -1, -2, -3, 10, 99, -99, 2 ** 31, null);
const funnelsFilter = fc.record({
  funnelVizType: optional(fc.constantFrom<unknown>('steps', 'trends', 'time_to_convert')),
  funnelOrderType: optional(fc.constantFrom<unknown>('ordered', 'strict', 'unordered')),
  funnelWindowInterval: optional(mostly(fc.constantFrom(1, 14, 1e9, 2 ** 31, 2 ** 53))),
  funnelWindowIntervalUnit: optional(fc.constantFrom<unknown>('second', 'minute', 'hour', 'day', 'week', 'month', null)),
  exclusions: optional(fc.array(fc.record({ kind: fc.constant('EventsNode'), event, funnelFromStep: stepIndex, funnelToStep: stepIndex }), { maxLength: 2 })),
  breakdownAttributionType: optional(fc.constantFrom<unknown>('first_touch', 'last_touch', 'all_events', 'step')),
  breakdownAttributionValue: optional(stepIndex),
  funnelFromStep: optional(stepIndex),
  funnelToStep: optional(stepIndex),
  binCount: optional(mostly(fc.constantFrom(1, 5, 0, -1, 1e6, 2 ** 31, 2 ** 53))),
  funnelAggregateByHogQL: optional(hogqlExpr),
  funnelStepReference: optional(fc.constantFrom<unknown>('total', 'previous')),
});
const funnels = fc.record(
  { kind: fc.constant('FunnelsQuery'), series: series(5), interval: optional(interval), ...insightBase, breakdownFilter: optional(breakdownFilter), funnelsFilter: optional(funnelsFilter) },
  { requiredKeys: ['kind', 'series'] },
);

const retentionEntity = fc.record({
  id: optional(fc.oneof(event, fc.constantFrom<unknown>(() => actionId, 999_999, -1))),
  type: optional(fc.constantFrom<unknown>('events', 'actions', null)),
  kind: optional(fc.constantFrom<unknown>('EventsNode', 'ActionsNode', null)),
  name: optional(fc.constantFrom<unknown>('$pageview', null)),
  properties: optional(fc.array(propertyFilter, { maxLength: 2 })),
});
const retention = fc.record(
  {
    kind: fc.constant('RetentionQuery'),
    retentionFilter: fc.record({
      period: optional(fc.constantFrom<unknown>('Hour', 'Day', 'Week', 'Month', null)),
      totalIntervals: optional(mostly(fc.constantFrom(1, 2, 11, 500))),
      retentionType: optional(fc.constantFrom<unknown>('retention_first_time', 'retention_recurring', 'retention_first_ever_occurrence')),
      targetEntity: optional(retentionEntity),
      returningEntity: optional(retentionEntity),
      retentionReference: optional(fc.constantFrom<unknown>('total', 'previous')),
      minimumOccurrences: optional(mostly(fc.constantFrom(1, 2, 100, 1e9, 2 ** 53))),
      cumulative: optional(mostly(fc.boolean())),
      timeWindowMode: optional(fc.constantFrom<unknown>('strict_calendar_dates', '24_hour_windows')),
      retentionCustomBrackets: optional(fc.array(fc.constantFrom<unknown>(1, 2, 7, 0, -1, 1.5, 1e9, 1e308), { maxLength: 4 })),
      aggregationType: optional(fc.constantFrom<unknown>('count', 'sum', 'avg')),
      aggregationProperty: optional(mostly(propKey)),
      aggregationPropertyType: optional(fc.constantFrom<unknown>('event', 'person', 'data_warehouse')),
    }),
    ...insightBase,
    breakdownFilter: optional(breakdownFilter),
  },
  { requiredKeys: ['kind', 'retentionFilter'] },
);

const PATH_POINTS = ['/p/1', '/p/0', 'https://example.com/p/1?q=1', '$pageview', 'signup', '', '/nope', '**', '*', '/p/*', "'", 'x'.repeat(3000), null];
const PATH_KEYS = ['1_/p/1', '2_/p/2', '1_signup', '0_x', '99_/p/1', 'abc', '', '_', '1_', '-1_/p/1', null];
const pathsFilter = fc.record({
  includeEventTypes: optional(fc.array(fc.constantFrom<unknown>('$pageview', '$screen', 'custom_event', 'hogql'), { maxLength: 3 })),
  startPoint: optional(fc.constantFrom<unknown>(...PATH_POINTS)),
  endPoint: optional(fc.constantFrom<unknown>(...PATH_POINTS)),
  stepLimit: optional(mostly(fc.constantFrom(2, 5, 20))),
  edgeLimit: optional(mostly(fc.constantFrom(1, 50, 10_000))),
  minEdgeWeight: optional(mostly(fc.constantFrom(0, 1, 5, -1, 1e9))),
  maxEdgeWeight: optional(mostly(fc.constantFrom(0, 1, 5, -1, 1e9))),
  excludeEvents: optional(fc.array(fc.constantFrom<unknown>(...PATH_POINTS), { maxLength: 3 })),
  pathGroupings: optional(fc.array(fc.constantFrom<unknown>('/p/*', '*', '**', '(', '[', '\\', '', '/p/[0-9]'), { maxLength: 3 })),
  pathReplacements: optional(fc.boolean()),
  localPathCleaningFilters: optional(fc.array(fc.record({ alias: optional(fc.constantFrom<unknown>('x', '', null)), regex: optional(fc.constantFrom<unknown>('/p/\\d', '(', '.*', '', '(a+)+$', null)) }), { maxLength: 2 })),
  pathsHogQLExpression: optional(hogqlExpr),
  pathStartKey: optional(fc.constantFrom<unknown>(...PATH_KEYS)),
  pathEndKey: optional(fc.constantFrom<unknown>(...PATH_KEYS)),
  pathDropoffKey: optional(fc.constantFrom<unknown>(...PATH_KEYS)),
});
const paths = fc.record(
  {
    kind: fc.constant('PathsQuery'),
    pathsFilter,
    funnelPathsFilter: optional(
      fc.record({ funnelPathType: fc.constantFrom<unknown>('funnel_path_before_step', 'funnel_path_between_steps', 'funnel_path_after_step'), funnelSource: funnels, funnelStep: optional(stepIndex) }),
    ),
    ...insightBase,
  },
  { requiredKeys: ['kind', 'pathsFilter'] },
);

const stickiness = fc.record(
  {
    kind: fc.constant('StickinessQuery'),
    series: series(3),
    interval: optional(interval),
    intervalCount: optional(mostly(fc.constantFrom(1, 2, 7, 1e9, 2 ** 53))),
    dateRange: optional(dateRange),
    properties: optional(properties),
    filterTestAccounts: optional(fc.boolean()),
    stickinessFilter: optional(
      fc.record({
        computedAs: optional(fc.constantFrom<unknown>('non_cumulative', 'cumulative')),
        stickinessCriteria: optional(fc.record({ operator: fc.constantFrom<unknown>('gte', 'lte', 'exact'), value: mostly(fc.constantFrom(0, 1, 3, -1, 1e9)) })),
      }),
    ),
    compareFilter: optional(fc.record({ compare: optional(fc.boolean()), compare_to: optional(fc.constantFrom<unknown>(...DATES)) })),
  },
  { requiredKeys: ['kind', 'series'] },
);

const lifecycle = fc.record(
  {
    kind: fc.constant('LifecycleQuery'),
    series: series(2),
    interval: optional(interval),
    ...insightBase,
    lifecycleFilter: optional(fc.record({ toggledLifecycles: optional(fc.array(fc.constantFrom<unknown>('new', 'returning', 'resurrecting', 'dormant'), { maxLength: 3 })) })),
  },
  { requiredKeys: ['kind', 'series'] },
);

const HOGQL_QUERIES = [
  'SELECT event, count() FROM events GROUP BY event',
  'SELECT {variables.x}',
  'SELECT * FROM events WHERE {filters}',
  'SELECT count() FROM events WHERE timestamp > {filters.dateRange.from}',
  'SELECT properties.amount + 1 FROM events',
  'SELECT toInt(properties.plan) FROM events',
  "SELECT 1 + 'a'",
  'SELECT 1/0, intDiv(1, 0), 1 % 0',
  'SELECT toDate(properties.$browser) FROM events',
  'SELECT arrayJoin(range(1000000)) LIMIT 10',
  'SELECT * FROM persons',
  'SELECT x FROM',
  '',
];
const hogql = fc.record(
  {
    kind: fc.constantFrom('HogQLQuery', 'ProductQLQuery'),
    query: fc.constantFrom<unknown>(...HOGQL_QUERIES),
    variables: optional(fc.oneof(fc.dictionary(fc.constantFrom('x', 'y', ''), oddValue, { maxKeys: 2 }), fc.record({ v1: fc.record({ code_name: fc.constantFrom<unknown>('x', '', 5), value: oddValue, variableId: optional(fc.constant('v1')) }) }))),
    filters: optional(fc.record({ properties: optional(properties), dateRange: optional(dateRange), filterTestAccounts: optional(fc.boolean()) })),
    limit: optional(mostly(fc.constantFrom(1, 100, 50_000))),
    offset: optional(mostly(fc.constantFrom(0, 5, 10_000_000))),
  },
  { requiredKeys: ['kind', 'query'] },
);

const insightActors = fc.record(
  {
    kind: fc.constant('InsightActorsQuery'),
    source: fc.oneof(trends, stickiness, lifecycle, retention, paths, funnels, hogql),
    day: optional(fc.constantFrom<unknown>(...DATES, 0, 1, -1, 1e9, 'garbage')),
    status: optional(fc.constantFrom<unknown>('new', 'returning', 'resurrecting', 'dormant')),
    series: optional(mostly(fc.constantFrom(0, 1, 5, 99, 2 ** 40))),
    breakdown: optional(mostly(breakdownValue)),
    compare: optional(fc.constantFrom<unknown>('current', 'previous')),
    interval: optional(mostly(fc.constantFrom(0, 1, 10, 499, 1e9))),
  },
  { requiredKeys: ['kind', 'source'] },
);
const funnelsActors = fc.record(
  {
    kind: fc.constant('FunnelsActorsQuery'),
    source: funnels,
    funnelStep: optional(stepIndex),
    funnelStepBreakdown: optional(mostly(breakdownValue)),
    funnelCustomSteps: optional(fc.array(stepIndex, { maxLength: 3 })),
    funnelTrendsDropOff: optional(fc.boolean()),
    funnelTrendsEntrancePeriodStart: optional(fc.constantFrom<unknown>(...DATES)),
  },
  { requiredKeys: ['kind', 'source'] },
);
const SELECTS = ['person', 'id', 'created_at', 'person.$delete', 'event_count', 'actor', 'group', 'count()', 'properties.email', 'matched_recordings', 'x +', '(SELECT 1)', 'row_number() OVER ()', 'person.properties.plan', 'toString(id)', '1'];
const actors = fc.record(
  {
    kind: fc.constant('ActorsQuery'),
    source: optional(fc.oneof(insightActors, funnelsActors, hogql, fc.constantFrom({ kind: 'ActorsQuery' }, { kind: 'EventsQuery', select: ['*'] }, { kind: 'TrendsQuery', series: [] }))),
    select: optional(fc.array(fc.constantFrom<unknown>(...SELECTS), { maxLength: 4 })),
    orderBy: optional(fc.array(fc.constantFrom<unknown>(...SELECTS, 'id DESC', 'event_count DESC'), { maxLength: 2 })),
    limit: optional(mostly(fc.constantFrom(0, 1, 100, -5, 1e9, 2 ** 53))),
    offset: optional(mostly(fc.constantFrom(0, 1, 100, 1_000_000))),
    search: optional(fc.constantFrom<unknown>('u1', '%', "'", '', 'x'.repeat(1000), '00000000-0000-0000-0000-000000000000', '\\')),
    properties: optional(properties),
  },
  { requiredKeys: ['kind'] },
);
const EVENTS_SELECTS = ['*', 'event', 'person', 'person_display_name -- Person', 'properties.$browser', 'timestamp', 'count()', 'sum(properties.amount)', 'x +', "toInt('a')", 'properties', 'distinct_id', '1/0', 'event -- comment', ''];
const events = fc.record(
  {
    kind: fc.constant('EventsQuery'),
    select: fc.array(fc.constantFrom<unknown>(...EVENTS_SELECTS), { maxLength: 4 }),
    where: optional(fc.array(hogqlExpr, { maxLength: 2 })),
    properties: optional(properties),
    fixedProperties: optional(properties),
    event: optional(event),
    actionId: optional(fc.constantFrom<unknown>(() => actionId, 999_999, -1)),
    personId: optional(fc.constantFrom<unknown>('00000000-0000-0000-0000-000000000000', 'abc', '', "'")),
    before: optional(fc.constantFrom<unknown>(...DATES)),
    after: optional(fc.constantFrom<unknown>(...DATES)),
    orderBy: optional(fc.array(fc.constantFrom<unknown>(...EVENTS_SELECTS, 'timestamp DESC', 'event ASC'), { maxLength: 2 })),
    limit: optional(mostly(fc.constantFrom(0, 1, 100, -5, 1e9, 2 ** 53))),
    offset: optional(mostly(fc.constantFrom(0, 1, 100, 10_000_000))),
    filterTestAccounts: optional(fc.boolean()),
  },
  { requiredKeys: ['kind', 'select'] },
);

const anyQuery = fc.oneof(
  { weight: 4, arbitrary: trends },
  { weight: 3, arbitrary: funnels },
  { weight: 2, arbitrary: retention },
  { weight: 2, arbitrary: paths },
  { weight: 2, arbitrary: stickiness },
  { weight: 2, arbitrary: lifecycle },
  { weight: 2, arbitrary: hogql },
  { weight: 3, arbitrary: actors },
  { weight: 1, arbitrary: insightActors },
  { weight: 1, arbitrary: funnelsActors },
  { weight: 2, arbitrary: events },
);

// ---------------------------------------------------------------------------------------------- structural mutation

/** Late-bound ids (actions, cohorts created in beforeAll) are thunks in the arbitraries; resolve them in a copy. */
const materialize = (v: unknown): unknown => {
  if (typeof v === 'function') return (v as () => unknown)();
  if (Array.isArray(v)) return v.map(materialize);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, materialize(x)]));
  return v;
};

type Path = (string | number)[];
const paths_ = (v: unknown, at: Path = [], out: Path[] = []): Path[] => {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => paths_(x, [...at, i], out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) paths_(x, [...at, k], out);
  return out;
};
let deep: unknown = 'bottom';
for (let i = 0; i < 200; i++) deep = { kind: 'TrendsQuery', series: [deep] };

const MUTATIONS = ['replace', 'delete', 'unknown_key', 'wrap_array', 'wrap_object', 'deep', 'duplicate_parent', 'string_of'] as const;
const mutation = fc.record({ at: fc.nat(), how: fc.constantFrom(...MUTATIONS), value: oddValue, key: fc.constantFrom('bogus', '__proto__', 'constructor', 'kind', '', 'x'.repeat(300)) });

function mutate(body: unknown, m: { at: number; how: (typeof MUTATIONS)[number]; value: unknown; key: string }): unknown {
  const root = { body: structuredClone(body) } as Record<string, unknown>;
  const all = paths_(root.body).map((p) => ['body', ...p] as Path);
  const path = all[m.at % all.length];
  const parent = path.slice(0, -1).reduce<any>((o, k) => o[k], root);
  const last = path[path.length - 1];
  const cur = parent[last];
  switch (m.how) {
    case 'replace':
      parent[last] = m.value;
      break;
    case 'delete':
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
      break;
    case 'unknown_key':
      if (cur && typeof cur === 'object' && !Array.isArray(cur)) Object.defineProperty(cur, m.key, { value: m.value, enumerable: true, writable: true, configurable: true });
      else parent[last] = m.value;
      break;
    case 'wrap_array':
      parent[last] = [cur];
      break;
    case 'wrap_object':
      parent[last] = { value: cur };
      break;
    case 'deep':
      parent[last] = deep;
      break;
    case 'duplicate_parent':
      parent[last] = structuredClone(root.body);
      break;
    case 'string_of':
      parent[last] = JSON.stringify(cur ?? null);
      break;
  }
  return root.body;
}

const REFRESH = [undefined, 'blocking', 'force_blocking', 'force_cache', 'async'];
const request = fc.record({
  query: fc.tuple(anyQuery, fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, { weight: 2, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }) })).map(([q, ms]) => ms.reduce<unknown>((b, m) => mutate(b, m), materialize(q))),
  refresh: fc.constantFrom(...REFRESH),
});

// ---------------------------------------------------------------------------------------------- the check

/** `detail` without the caller's own strings (a syntax error quotes the query it refuses). */
function withoutEchoes(detail: string, body: unknown): string {
  const strings: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') strings.push(v, JSON.stringify(v));
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(body);
  for (const x of strings.filter((x) => x.length > 2).sort((a, b) => b.length - a.length)) detail = detail.split(x).join('');
  return detail;
}

function checkAnswer(body: unknown, r: ApiResponse): void {
  const where = `${r.status} for ${String(JSON.stringify(body)).slice(0, 3000)}\n→ ${r.text.slice(0, 1000)}`;
  if (r.status >= 500 && !(r.status === 504 && r.body?.code === 'query_timeout')) throw new Error(`server error ${where}`);
  if (r.status >= 400) {
    if (!r.body || typeof r.body !== 'object') throw new Error(`error without a JSON body: ${where}`);
    for (const k of ['type', 'code', 'detail', 'attr']) if (!(k in r.body)) throw new Error(`error body misses ${k}: ${where}`);
    if (typeof r.body.detail !== 'string' || r.body.detail === '' || typeof r.body.code !== 'string') throw new Error(`error body malformed: ${where}`);
    // (a ProductQL syntax error quotes the ProductQL it parsed, which may be the caller's expression in a wrapper)
    const detail = /^(hogql|productql)_/.test(r.body.code) ? r.body.detail.replace(/'[^']*'/g, "''") : r.body.detail;
    if (leaks(withoutEchoes(detail, body))) throw new Error(`error detail leaks internals: ${where}`);
    if (r.body.code === 'query_error' && !PRODUCTQL_FIELDS.test(JSON.stringify(body))) throw new Error(`engine failure on a body without ProductQL: ${where}`);
  }
  if (r.text.includes(SECRET)) throw new Error(`LEAK of project ${p2}: ${where}`);
}

async function post(query: unknown, refresh?: unknown): Promise<ApiResponse> {
  const payload: Record<string, unknown> = { query };
  if (refresh !== undefined) payload.refresh = refresh;
  return srv.api('POST', '/api/projects/1/query/', payload);
}

/** `FUZZ_STATS=1`: how the bodies were answered (by kind, status and error code), to see what the fuzzer reaches. */
const stats = new Map<string, number>();
async function check(query: unknown, refresh?: unknown): Promise<ApiResponse> {
  const r = await post(query, refresh);
  if (process.env.FUZZ_STATS) {
    const k = `${(query as { kind?: unknown })?.kind} ${r.status} ${r.status >= 400 ? `${r.body?.code} ${String(r.body?.detail).slice(0, 60)}` : ''}`;
    stats.set(k, (stats.get(k) ?? 0) + 1);
  }
  checkAnswer(query, r);
  if (r.status === 202 && typeof r.body?.query_status?.id === 'string') {
    // an async query: its failure is reported through the status, with the same rules
    for (let i = 0; i < 100; i++) {
      const s = await srv.api('GET', `/api/projects/1/query/${r.body.query_status.id}/`);
      // a failed query's status is PostHog's 400 `{query_status}` (QueryViewSet.retrieve), its message inside
      if (s.status === 400 && s.body?.query_status?.error) {
        const err = s.body.query_status.error_message;
        if (typeof err !== 'string' || err === '' || leaks(withoutEchoes(err.replace(/'[^']*'/g, "''"), query))) throw new Error(`async error without a clean message: ${s.text.slice(0, 1000)}`);
        break;
      }
      checkAnswer(query, s);
      if (s.body?.query_status?.complete) {
        const err = s.body.query_status.error_message;
        if (typeof err === 'string' && leaks(withoutEchoes(err.replace(/'[^']*'/g, "''"), query))) throw new Error(`async error leaks internals: ${err}`);
        break;
      }
      await new Promise((res) => setTimeout(res, 20));
    }
  }
  return r;
}

describe('structured query bodies under fuzzing', () => {
  // `FUZZ_COLLECT=1`: check FUZZ_RUNS sampled bodies without stopping at the first failure, and list every failure
  if (process.env.FUZZ_COLLECT)
    it('collects every failure', async () => {
      const failures = new Map<string, string>();
      for (const { query, refresh } of fc.sample(request, { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 1) })) {
        try {
          await check(query, refresh);
        } catch (e) {
          const msg = String((e as Error).message);
          const key = msg.replace(/ for \{[\s\S]*?\n→/, '').slice(0, 200);
          if (!failures.has(key)) failures.set(key, msg);
        }
      }
      if (process.env.FUZZ_STATS) console.log([...stats].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n}\t${k}`).join('\n'));
      expect([...failures.values()]).toEqual([]);
    }, 3_600_000);

  it(`no 5xx, clean error bodies, no leaks (${RUNS} bodies)`, async () => {
    await fc.assert(
      fc.asyncProperty(request, async ({ query, refresh }) => {
        await check(query, refresh);
      }),
      { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20261127) },
    );
    if (process.env.FUZZ_STATS) console.log([...stats].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n}\t${k}`).join('\n'));
    const h = await srv.api('GET', '/healthz', undefined, null);
    expect([h.status, h.body]).toEqual([200, { status: 'ok' }]);
  }, 600_000);
});

/** Bodies the fuzzer found answered with a 5xx or an engine error, each now a 400 naming the field. */
describe('regressions found by fuzzing', () => {
  it.each([
    ['a relative date_to past the calendar (-1000000000y) in a stickiness query', { kind: 'StickinessQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_to: '-1000000000y' } }],
    ['a relative date_from past the calendar (-99999999d) in a trends query', { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '-99999999d' } }],
    ['a relative date_to past the calendar (-99999999d) in a retention query (was a 500)', { kind: 'RetentionQuery', retentionFilter: { period: 'Week', totalIntervals: 1 }, dateRange: { date_to: '-99999999d' } }],
    ['a relative date_from past the calendar (-99999999d) in a funnel', { kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'signup' }], dateRange: { date_from: '-99999999d' } }],
  ])('%s → 400 "out of range"', async (_name, query) => {
    const r = await check(query, 'force_blocking');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ type: 'validation_error', code: 'invalid_input', detail: expect.stringMatching(/^Invalid date "-\d+[dy]": it is out of range\.$/) });
  });

  it.each([
    ['a number', 1336234635],
    ['text', 'abc'],
  ])('is_date_exact on a person property with a value that is no date (%s) → 400, not a conversion error', async (_name, value) => {
    const query = {
      kind: 'LifecycleQuery',
      series: [{ kind: 'EventsNode', event: '$pageview' }],
      properties: [{ type: 'person', key: 'signed_up', operator: 'is_date_exact', value }],
    };
    const r = await check(query, 'force_blocking');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ type: 'validation_error', code: 'invalid_input', detail: `A date filter needs a date (YYYY-MM-DD, an ISO 8601 datetime or a relative date like -7d), got ${JSON.stringify(value)}.` });
  });

  it.each([
    ['a regex-like text', 'exact', '(?<x>a)'],
    ['a relative date', 'is_not', '-7d'],
    ['a number', 'gt', 5],
  ])('an event_metadata timestamp filter compared with %s → 400, not a conversion error', async (_name, operator, value) => {
    const query = { kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'signup' }], properties: [{ type: 'event_metadata', key: 'timestamp', operator, value }] };
    const r = await check(query, 'force_blocking');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ type: 'validation_error', code: 'invalid_input', detail: `A date property is compared with a date (YYYY-MM-DD or an ISO 8601 datetime), got ${JSON.stringify(value)}.` });
  });

  it('an event_metadata timestamp filter with a date still filters', async () => {
    const query = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '-30d' }, properties: [{ type: 'event_metadata', key: 'timestamp', operator: 'gt', value: '2000-01-01' }] };
    const r = await check(query, 'force_blocking');
    expect(r.status).toBe(200);
    expect(r.body.results[0].count).toBeGreaterThan(0);
  });

  it('a path cleaning rule with an empty regex cleans nothing (was a ClickHouse query_error)', async () => {
    const base = { kind: 'PathsQuery', pathsFilter: { includeEventTypes: ['$pageview'] }, dateRange: { date_from: '-30d' } };
    const plain = await check(base, 'force_blocking');
    const r = await check({ ...base, pathsFilter: { ...base.pathsFilter, localPathCleaningFilters: [{ regex: '', alias: 'x' }] } }, 'force_blocking');
    expect(r.status).toBe(200);
    expect(r.body.results).toEqual(plain.body.results);
  });

  it.each([
    ['LifecycleQuery', { kind: 'LifecycleQuery', series: [{ kind: 'EventsNode', event: '$pageview' }] }],
    ['StickinessQuery', { kind: 'StickinessQuery', series: [{ kind: 'EventsNode', event: '$pageview' }] }],
    ['FunnelsQuery trends', { kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'signup' }], funnelsFilter: { funnelVizType: 'trends' } }],
    ['TrendsQuery', { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }] }],
  ])('%s by minute over years → 400 too many intervals (lifecycle made ClickHouse stop answering)', async (_name, query) => {
    const r = await check({ ...query, interval: 'minute', dateRange: { date_from: '2020-01-01', date_to: '-1y', explicitDate: true } }, 'force_blocking');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ type: 'validation_error', attr: 'interval', detail: 'The date range has too many intervals; use a coarser interval.' });
  });

  it('the server still answers /healthz', async () => {
    const h = await srv.api('GET', '/healthz', undefined, null);
    expect([h.status, h.body]).toEqual([200, { status: 'ok' }]);
  });
});
