/**
 * HogQL cases ported from PostHog, after hogql-posthog-compat(-2 .. -7).test.ts (which this does not repeat):
 * toDateTime of text (posthog/hogql/functions/mapping.py prints `toDateTime(<String>)` as
 * parseDateTime64BestEffortOrNull: text that is no datetime reads NULL, the result is Nullable).
 * Data through the real ingest path and runner, like PostHog's `_create_event`.
 * hogql-posthog-compat-8.clickhouse.test.ts runs this file on ClickHouse with the same expected results.
 */
import { ev, hogqlTestProject } from '../queries/funnels/testing';

const project = hogqlTestProject({
  persons: [{ id: '00000000-0000-4000-8000-0000000a11c7', distinct_ids: ['alice'], properties: { email: 'alice@x.com' } }],
  events: [
    ev('alice', '$pageview', '2021-01-01T10:00:00Z', { when: '2021-02-03 04:05:06', n: 1 }),
    ev('alice', 'signup', '2021-01-02T10:00:00Z', { when: 'not a date', n: 2 }),
    ev('alice', 'purchase', '2021-01-03T10:00:00Z', { n: 3 }),
  ],
});

const hogql = (query: string, timezone = 'UTC') => project.hogql(query, { timezone });
const rows = async (query: string, timezone?: string) => (await hogql(query, timezone)).results;

// First in the file, with a short query: the parser's first parse is its slowest (see parser.ts PARSE_TIMEOUT_MS).
describe('mapping.py toDateTime of text is parseDateTime64BestEffortOrNull: NULL for text that is no datetime, not an error', () => {
  it.each([["toDateTime('abc')"], ["toDateTime('')"], ["toDateTime('2021-13-45 10:00:00')"], ["toDateTime('2021-02-30')"], ["toDateTime('abc', 'America/New_York')"]])('%s is NULL', async (expr) => {
    expect(await rows(`SELECT ${expr}`)).toEqual([[null]]);
  });

  it('is Nullable: isNull / ifNull / ?? read it, and the type says so', async () => {
    const r = await hogql("SELECT isNull(toDateTime('abc')), toDateTime('abc') ?? toDateTime('2020-01-01 00:00:00'), toDateTime('abc'), toDateTime(event) FROM events WHERE event = 'signup'");
    expect(r.results).toEqual([[1, '2020-01-01T00:00:00Z', null, null]]);
    expect(r.types.slice(2).map((t: [string, string]) => t[1])).toEqual(["Nullable(DateTime64(6, 'UTC'))", "Nullable(DateTime64(6, 'UTC'))"]);
  });

  it('datetimes in text keep reading as before: project-local without an offset, the instant with one', async () => {
    expect(await rows("SELECT toDateTime('2021-01-01 10:00:00'), toDateTime('2021-01-01T10:00:00Z'), toDateTime('2021-01-01'), toDateTime('2021-01-01 10:00')", 'America/Phoenix')).toEqual([
      ['2021-01-01T10:00:00-07:00', '2021-01-01T03:00:00-07:00', '2021-01-01T00:00:00-07:00', '2021-01-01T10:00:00-07:00'],
    ]);
  });

  it('per row: a property that is no datetime (or not set) reads NULL, and comparisons with it are false', async () => {
    expect(await rows('SELECT properties.n, toDateTime(properties.when), toDateTime(properties.when) > timestamp FROM events ORDER BY timestamp')).toEqual([
      ['1', '2021-02-03T04:05:06Z', 1],
      ['2', null, 0],
      ['3', null, 0],
    ]);
  });

  it('in WHERE, a bound that is no datetime matches no row', async () => {
    expect(await rows("SELECT count() FROM events WHERE timestamp > toDateTime('abc')")).toEqual([[0]]);
    expect(await rows("SELECT count() FROM events WHERE timestamp > toDateTime('2021-01-01 12:00:00')")).toEqual([[2]]);
  });
});

describe('ORDER BY ... WITH FILL (test_printer.py prints it; ClickHouse then inserts the missing rows)', () => {
  // Not PostHog's result: Quarry does not fill (ClickHouse 18.16 has no WITH FILL either), and answering without
  // the inserted rows would be silently wrong, so the clause is a 400 rather than ignored.
  it.each([['SELECT number * 2 AS n FROM numbers(3) ORDER BY n WITH FILL'], ['SELECT number AS n FROM numbers(3) ORDER BY n DESC WITH FILL FROM 5 TO 0 STEP -1']])('%s is a 400, not an answer without the filled rows', async (query) => {
    await expect(hogql(query)).rejects.toMatchObject({ status: 400, message: 'ORDER BY ... WITH FILL is not supported' });
  });
});
