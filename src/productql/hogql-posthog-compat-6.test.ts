/**
 * HogQL cases ported from PostHog, after hogql-posthog-compat(-2,-3,-4,-5).test.ts (which this does not repeat):
 * hogql property filters in a HogQLQuery's `filters` (posthog/hogql/test/test_property.py test_property_to_expr_hogql,
 * posthog/hogql_queries/test/test_hogql_query_runner.py), NULL in `IN (subquery)` under the `transform_null_in = 1` of
 * PostHog's HogQLGlobalSettings, and ClickHouse functions of posthog/hogql/functions/mapping.py with the values
 * ClickHouse gives: toWeek / toYearWeek in every mode (the ClickHouse and MySQL documentation examples, then year
 * boundaries computed as ClickHouse's DateLUTImpl::toYearWeek does), dateDiff('week') counting Monday boundaries,
 * has/hasAny/hasAll/countEqual/arrayUniq treating NULL as a value, lagInFrame/leadInFrame reading the type's default
 * without a row at the offset, and events LEFT JOIN sessions (test_sessions_v2.py) and subqueries with array columns.
 * Data through the real ingest path and runner, like PostHog's `_create_event`.
 * hogql-posthog-compat-6.clickhouse.test.ts runs this file on ClickHouse with the same expected results.
 */
import { ev, openHarness, type Harness } from '../queries/funnels/testing';
import { productqlRunner } from '../queries/runners/productql-runner';
import { shutdownParser } from './index';
import { testEngine } from '../engines/clickhouse/test-engine';

const ALICE = '00000000-0000-4000-8000-0000000a11c6';
const BOB = '00000000-0000-4000-8000-000000000b06';

let h: Harness;
let pid: number;
beforeAll(async () => {
  h = await openHarness();
  pid = await h.load({
    persons: [
      { id: ALICE, distinct_ids: ['alice'], properties: { email: 'alice@x.com' } },
      { id: BOB, distinct_ids: ['bob'], properties: { email: 'bob@x.com' } },
    ],
    events: [
      // a Thursday, late evening in UTC: already Friday 2021-01-01 in Tokyo
      ev('alice', '$pageview', '2020-12-31T23:30:00Z', { $browser: 'Chrome', $session_id: 's-alice' }),
      ev('alice', 'signup', '2021-01-03T12:00:00Z', { plan: 'pro', $session_id: 's-alice' }),
      ev('bob', '$pageview', '2021-01-04T08:00:00Z', { $browser: 'Safari', $session_id: 's-bob' }),
      ev('bob', 'purchase', '2021-01-05T00:30:00Z', {}),
    ],
  });
});
afterAll(async () => {
  await h.close();
  await shutdownParser();
});

type Node = { query: string; filters?: unknown };
const hogql = (node: Node | string, project: Record<string, unknown> = {}) =>
  h.run(productqlRunner, { kind: 'HogQLQuery', ...(typeof node === 'string' ? { query: node } : node) }, pid, project);
const rows = async (node: Node | string, project: Record<string, unknown> = {}) => (await hogql(node, project)).results;
const fails = (query: string, message: string | RegExp) =>
  expect(hogql(query)).rejects.toMatchObject({ status: 400, code: 'hogql_query_error', message: typeof message === 'string' ? message : expect.stringMatching(message) });

// First in the file: a hogql filter is parsed in the runner's thread, which nothing had readied (an internal error).
describe('test_property.py test_property_to_expr_hogql: hogql property filters in a HogQLQuery `filters`', () => {
  it('{type: hogql, key: "1"} is the constant 1: every event', async () => {
    expect(await rows({ query: 'SELECT count() FROM events WHERE {filters}', filters: { properties: [{ type: 'hogql', key: '1' }] } })).toEqual([[4]]);
  });

  it('an expression over the events table filters them, alone or with other filters', async () => {
    const filters = { properties: [{ type: 'hogql', key: "event = 'signup' OR properties.$browser = 'Safari'" }] };
    expect(await rows({ query: 'SELECT event FROM events WHERE {filters} ORDER BY timestamp', filters })).toEqual([['signup'], ['$pageview']]);
    const both = { properties: [...filters.properties, { type: 'event', key: '$browser', operator: 'is_set' }] };
    expect(await rows({ query: 'SELECT event, distinct_id FROM events WHERE {filters}', filters: both })).toEqual([['$pageview', 'bob']]);
  });

  it('a hogql test-account filter applies with filterTestAccounts', async () => {
    const project = { test_account_filters: [{ type: 'hogql', key: "distinct_id != 'bob'" }] };
    expect(await rows({ query: 'SELECT count() FROM events WHERE {filters}', filters: { filterTestAccounts: true } }, project)).toEqual([[2]]);
  });

  it('a hogql filter that does not parse is a 400', async () => {
    await expect(hogql({ query: 'SELECT count() FROM events WHERE {filters}', filters: { properties: [{ type: 'hogql', key: 'event = ' }] } })).rejects.toMatchObject({ status: 400 });
  });
});

describe('NULL in IN (subquery) (PostHog runs HogQL with transform_null_in = 1: NULL matches NULL, as in an IN list)', () => {
  it.each([
    ['NULL IN (SELECT NULL)', 1],
    ['NULL NOT IN (SELECT NULL)', 0],
  ])('%s is %s', async (expr, expected) => {
    expect(await rows(`SELECT ${expr}`)).toEqual([[expected]]);
  });

  it('a property without a value matches when the subquery reads a NULL; NOT IN is the opposite', async () => {
    // the signup and the purchase have no $browser
    const withNull = "(SELECT properties.$browser FROM events WHERE event = 'signup')";
    expect(await rows(`SELECT event FROM events WHERE properties.$browser IN ${withNull} ORDER BY timestamp`)).toEqual([['signup'], ['purchase']]);
    expect(await rows(`SELECT event FROM events WHERE properties.$browser NOT IN ${withNull} ORDER BY timestamp`)).toEqual([['$pageview'], ['$pageview']]);
    const withoutNull = "(SELECT properties.$browser FROM events WHERE event = '$pageview')";
    expect(await rows(`SELECT event FROM events WHERE properties.$browser IN ${withoutNull} ORDER BY timestamp`)).toEqual([['$pageview'], ['$pageview']]);
    expect(await rows(`SELECT event FROM events WHERE properties.$browser NOT IN ${withoutNull} ORDER BY timestamp`)).toEqual([['signup'], ['purchase']]);
  });

  it('per row in the select list, over a UNION ALL; the column is named by PostHog\'s hogql print', async () => {
    const r = await hogql("SELECT event, properties.$browser IN (SELECT 'Chrome' UNION ALL SELECT NULL) FROM events ORDER BY timestamp");
    expect(r.results).toEqual([
      ['$pageview', 1],
      ['signup', 1],
      ['$pageview', 0],
      ['purchase', 1],
    ]);
    expect(r.columns).toEqual(['event', "in(properties.$browser, (SELECT 'Chrome' UNION ALL SELECT NULL))"]);
  });

  it('non-NULL values still compare as before, with NULLs in the subquery', async () => {
    expect(await rows("SELECT count() FROM events WHERE properties.$browser IN (SELECT properties.$browser FROM events)")).toEqual([[4]]);
    expect(await rows("SELECT count() FROM events WHERE properties.$browser NOT IN (SELECT properties.$browser FROM events WHERE event != 'signup')")).toEqual([[0]]);
    expect(await rows("SELECT count() FROM events WHERE person_id IN (SELECT person_id FROM events WHERE event = 'signup')")).toEqual([[2]]);
  });
});

describe('mapping.py toWeek(x[, mode[, tz]]) / toYearWeek(x[, mode[, tz]]): MySQL week modes, as ClickHouse computes them', () => {
  it('the ClickHouse documentation example: 2016-12-27 is week 52 (modes 0, 1) and week 1 of 2017 (mode 9)', async () => {
    const d = "toDate('2016-12-27')";
    expect(await rows(`SELECT toWeek(${d}) AS week0, toWeek(${d}, 1) AS week1, toWeek(${d}, 9) AS week9`)).toEqual([[52, 52, 1]]);
    expect(await rows(`SELECT toYearWeek(${d}) AS yearWeek0, toYearWeek(${d}, 1) AS yearWeek1, toYearWeek(${d}, 9) AS yearWeek9`)).toEqual([[201652, 201652, 201701]]);
  });

  // [date, toWeek in modes 0..9, toYearWeek in modes 0..9]; the first rows are the MySQL documentation's WEEK examples
  it.each([
    ['2008-02-20', [7, 8, 7, 8, 8, 7, 8, 7, 8, 8], [200807, 200808, 200807, 200808, 200808, 200807, 200808, 200807, 200808, 200808]],
    ['1987-01-01', [0, 1, 52, 1, 0, 0, 53, 52, 1, 1], [198652, 198701, 198652, 198701, 198653, 198652, 198653, 198652, 198701, 198701]],
    ['2000-01-01', [0, 0, 52, 52, 0, 0, 52, 52, 1, 1], [199952, 199952, 199952, 199952, 199952, 199952, 199952, 199952, 200001, 200001]],
    ['2019-12-29', [52, 52, 52, 52, 53, 51, 1, 51, 1, 52], [201952, 201952, 201952, 201952, 202001, 201951, 202001, 201951, 202001, 201952]],
    ['2019-12-30', [52, 53, 52, 1, 53, 52, 1, 52, 1, 1], [201952, 202001, 201952, 202001, 202001, 201952, 202001, 201952, 202001, 202001]],
    ['2020-01-01', [0, 1, 52, 1, 1, 0, 1, 52, 1, 1], [201952, 202001, 201952, 202001, 202001, 201952, 202001, 201952, 202001, 202001]],
    ['2020-12-31', [52, 53, 52, 53, 53, 52, 53, 52, 1, 1], [202052, 202053, 202052, 202053, 202053, 202052, 202053, 202052, 202101, 202101]],
    ['2021-01-01', [0, 0, 52, 53, 0, 0, 53, 52, 1, 1], [202052, 202053, 202052, 202053, 202053, 202052, 202053, 202052, 202101, 202101]],
    ['2021-01-03', [1, 0, 1, 53, 1, 0, 1, 52, 2, 1], [202101, 202053, 202101, 202053, 202101, 202052, 202101, 202052, 202102, 202101]],
    ['2021-01-04', [1, 1, 1, 1, 1, 1, 1, 1, 2, 2], [202101, 202101, 202101, 202101, 202101, 202101, 202101, 202101, 202102, 202102]],
    ['2017-01-01', [1, 0, 1, 52, 1, 0, 1, 52, 1, 1], [201701, 201652, 201701, 201652, 201701, 201652, 201701, 201652, 201701, 201701]],
    ['2022-01-01', [0, 0, 52, 52, 0, 0, 52, 52, 1, 1], [202152, 202152, 202152, 202152, 202152, 202152, 202152, 202152, 202201, 202201]],
  ])('%s', async (date, weeks, yearWeeks) => {
    const modes = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    const d = `toDate('${date}')`;
    expect(await rows(`SELECT ${modes.map((m) => `toWeek(${d}, ${m})`).join(', ')}, ${modes.map((m) => `toYearWeek(${d}, ${m})`).join(', ')}`)).toEqual([[...weeks, ...yearWeeks]]);
  });

  it('mode 3 is the ISO week (toISOWeek, toISOYear) on every day of eight years; no mode is mode 0', async () => {
    const days = "(SELECT addDays(toDate('2014-12-01'), number) AS d FROM numbers(3000))";
    expect(
      await rows(
        `SELECT countIf(toWeek(d, 3) != toISOWeek(d)), countIf(toYearWeek(d, 3) != toISOYear(d) * 100 + toISOWeek(d)), countIf(toWeek(d) != toWeek(d, 0)), countIf(toYearWeek(d) != toYearWeek(d, 0)), count() FROM ${days}`,
      ),
    ).toEqual([[0, 0, 0, 0, 3000]]);
  });

  it('reads a datetime in the project timezone, or in the zone given', async () => {
    const q = "SELECT toWeek(timestamp), toYearWeek(timestamp, 1), toWeek(timestamp, 0, 'Asia/Tokyo'), toWeek(timestamp, 0, 'UTC') FROM events WHERE event = '$pageview' ORDER BY timestamp";
    // 2020-12-31 23:30 UTC: Thursday 2020-12-31 in UTC, Friday 2021-01-01 in Tokyo
    expect(await rows(q)).toEqual([
      [52, 202053, 0, 52],
      [1, 202101, 1, 1],
    ]);
    expect(await rows(q, { timezone: 'Asia/Tokyo' })).toEqual([
      [0, 202053, 0, 52],
      [1, 202101, 1, 1],
    ]);
  });

  it('the column is the call as written, and the week of a missing value is NULL', async () => {
    const r = await hogql("SELECT toWeek(toDate('2021-01-04'), 1), toYearWeek(toDate(properties.nope)) FROM events WHERE event = 'signup'");
    expect(r.columns).toEqual(["toWeek(toDate('2021-01-04'), 1)", 'toYearWeek(toDate(properties.nope))']);
    expect(r.results).toEqual([[1, null]]);
    // ClickHouse's types: UInt8 and UInt32
    expect(await rows("SELECT toTypeName(toWeek(timestamp)), toTypeName(toYearWeek(timestamp, 3)), toTypeName(toWeek(toDate(properties.nope))) FROM events WHERE event = 'signup'")).toEqual([
      ['UInt8', 'UInt32', 'Nullable(UInt8)'],
    ]);
  });

  it.each([
    ["SELECT toWeek(toDate('2021-01-04'), event) FROM events", 'The mode of toWeek must be a constant from 0 to 9'],
    ["SELECT toYearWeek(toDate('2021-01-04'), 10)", 'The mode of toYearWeek must be a constant from 0 to 9'],
    ['SELECT toWeek()', "Function 'toWeek' expects at least 1 argument, found 0"],
    ["SELECT toYearWeek(toDate('2021-01-04'), 1, 'UTC', 2)", "Function 'toYearWeek' expects at most 3 arguments, found 4"],
  ])('%s is a 400: %s', async (query, message) => {
    await fails(query, message);
  });
});

describe("mapping.py dateDiff('week', a, b): the Monday week boundaries crossed, as ClickHouse counts them", () => {
  it.each([
    ["toDate('2020-01-01')", "toDate('2020-01-20')", 3],
    ["toDate('2020-01-05')", "toDate('2020-01-06')", 1],
    ["toDate('2020-01-06')", "toDate('2020-01-12')", 0],
    ["toDate('2020-01-20')", "toDate('2020-01-01')", -3],
    ["toDateTime('2020-01-05 23:00:00')", "toDateTime('2020-01-06 01:00:00')", 1],
  ])('from %s to %s: %i', async (a, b, n) => {
    expect(await rows(`SELECT dateDiff('week', ${a}, ${b})`)).toEqual([[n]]);
  });

  it('on timestamps, in the project timezone', async () => {
    // the $pageviews: Thursday 2020-12-31 23:30 UTC and Monday 2021-01-04 08:00 UTC
    const q = "SELECT dateDiff('week', min(timestamp), max(timestamp)) FROM events WHERE event = '$pageview'";
    expect(await rows(q)).toEqual([[1]]);
    // in Los Angeles the second one is still Monday 00:00: one boundary too; in Honolulu it is Sunday 22:00, none
    expect(await rows(q, { timezone: 'America/Los_Angeles' })).toEqual([[1]]);
    expect(await rows(q, { timezone: 'Pacific/Honolulu' })).toEqual([[0]]);
  });
});

describe('mapping.py has / hasAny / hasAll / countEqual / indexOf / arrayUniq: NULL is a value there (ClickHouse has([1, NULL], NULL) = 1)', () => {
  it.each([
    ['has([1, NULL], NULL)', 1],
    ['has([1, 2], NULL)', 0],
    ["has(['a', NULL], 'a')", 1],
    ['indexOf([1, NULL], NULL)', 2],
    ['hasAny([1, NULL], [NULL])', 1],
    ['hasAny([1, 2], [NULL])', 0],
    ['hasAny([1, 2], [3, 2])', 1],
    ['hasAny([], [1])', 0],
    ['hasAll([1, NULL], [NULL])', 1],
    ['hasAll([1, 2], [])', 1],
    ['hasAll([1, 2], [2, 3])', 0],
    ['hasAll([1, 2, 3], [3, 1])', 1],
    ['countEqual([1, NULL, NULL], NULL)', 2],
    ['countEqual([1, 2, 1], 1)', 2],
    ['countEqual([1, NULL], 2)', 0],
    ['arrayUniq([1, NULL, NULL])', 2],
    ["arrayUniq(['a', NULL, 'b'])", 3],
    ['arrayUniq([NULL])', 1],
    ['arrayUniq([1, 2, 1])', 2],
  ])('%s is %s', async (expr, expected) => {
    expect(await rows(`SELECT ${expr}`)).toEqual([[expected]]);
  });

  it('per row, a property without a value', async () => {
    expect(await rows("SELECT has(['Chrome', NULL], properties.$browser), has(['Chrome'], properties.$browser) FROM events ORDER BY timestamp")).toEqual([
      [1, 1],
      [1, 0],
      [0, 0],
      [1, 0],
    ]);
    const q = "SELECT hasAny(['Chrome', NULL], [properties.$browser]), hasAll([properties.$browser, 'x'], ['x', NULL]), countEqual([properties.$browser, NULL], NULL) FROM events WHERE event IN ('$pageview', 'signup') ORDER BY timestamp";
    expect(await rows(q)).toEqual([
      [1, 0, 1],
      [1, 1, 2],
      [0, 0, 1],
    ]);
  });
});

describe("mapping.py lagInFrame / leadInFrame: without a row at the offset, the default of the value's type (ClickHouse), not NULL", () => {
  const window = async (query: string, expected: unknown[][]) => {
    if (testEngine() === 'clickhouse') {
      // ClickHouse 18.16 has no window functions (README: known limits): a clear 400
      await expect(hogql(query)).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/Window functions are not available/) });
      return;
    }
    expect(await rows(query)).toEqual(expected);
  };

  it('the ClickHouse documentation example: lagInFrame(number) of the first row is 0', async () => {
    await window('SELECT number, lagInFrame(number) OVER (ORDER BY number ASC) FROM numbers(3)', [
      [0, 0],
      [1, 0],
      [2, 1],
    ]);
  });

  it("a String reads ''; toNullable(x) reads NULL; a default given is kept", async () => {
    const over = 'OVER (ORDER BY timestamp ASC ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)';
    await window(
      `SELECT event, lagInFrame(event) ${over}, lagInFrame(toNullable(event)) ${over}, lagInFrame(event, 1, 'none') ${over}, leadInFrame(event, 2) ${over} FROM events ORDER BY timestamp`,
      [
        ['$pageview', '', null, 'none', '$pageview'],
        ['signup', '$pageview', '$pageview', '$pageview', 'purchase'],
        ['$pageview', 'signup', 'signup', 'signup', ''],
        ['purchase', '$pageview', '$pageview', '$pageview', ''],
      ],
    );
  });
});

describe('test_sessions_v2.py: events LEFT JOIN sessions, and LEFT JOIN subqueries with array columns', () => {
  it('an event without a session reads NULLs from the sessions table (ClickHouse: the unread $urls array no longer fails the join)', async () => {
    expect(await rows('SELECT e.event, s.session_id, s.$session_duration FROM events e LEFT JOIN sessions s ON e.$session_id = s.session_id ORDER BY e.timestamp')).toEqual([
      ['$pageview', 's-alice', 217800],
      ['signup', 's-alice', 217800],
      ['$pageview', 's-bob', 0],
      ['purchase', null, null],
    ]);
    expect(await rows('SELECT count(), sum(s.$pageview_count) FROM events e JOIN sessions s ON e.$session_id = s.session_id')).toEqual([[3, 3]]);
  });

  it('a subquery joined with LEFT JOIN: the columns read cross the join, an unread array column is left out', async () => {
    const q =
      "SELECT e.event, x.n FROM events e LEFT JOIN (SELECT distinct_id, groupArray(event) AS evs, count() AS n FROM events WHERE distinct_id = 'bob' GROUP BY distinct_id) x ON e.distinct_id = x.distinct_id ORDER BY e.timestamp";
    expect(await rows(q)).toEqual([['$pageview', null], ['signup', null], ['$pageview', 2], ['purchase', 2]]);
    expect(await rows("WITH x AS (SELECT distinct_id, groupArray(event) AS evs FROM events GROUP BY distinct_id) SELECT count() FROM events e LEFT JOIN x ON e.distinct_id = x.distinct_id")).toEqual([[4]]);
  });
});

// Found by the trends pass: a hogql breakdown giving a whole Float64 read "2.0" on DuckDB, "2" on ClickHouse/PostHog.
describe('floats as text, as ClickHouse writes them', () => {
  it('toString and concat of a whole Float64 have no ".0"; fractions keep their digits', async () => {
    expect(await rows("SELECT toString(2.0), toString(toFloat('3')), concat(2.5 * 2, ''), toString(0.5), concat('x', -1.25)")).toEqual([
      ['2', '3', '5', '0.5', 'x-1.25'],
    ]);
  });
});
