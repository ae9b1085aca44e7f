/**
 * Which `timestamp` bounds of a SELECT restrict the sessions its `events.session.*` lazy join aggregates
 * (session-bounds.ts), and the bounded sessions query (PostHog's SESSION_BUFFER_DAYS = 3 on each side).
 */
import { initParser, parseSelect } from './parser';
import { printHogQLExpr } from './hogql';
import type { SelectQuery } from './ast';
import { SESSIONS_QUERY } from './schema';
import { compileProductQL } from './index';
import { SESSION_BUFFER_DAYS, boundedSessionsQuery, timestampBounds } from './session-bounds';

beforeAll(async () => {
  await initParser();
});

const bounds = async (text: string, name = 'events', sole = true) => {
  const q = (await parseSelect(text)) as SelectQuery;
  const b = timestampBounds(q, name, sole);
  return b && { lower: b.lower.map(printHogQLExpr), upper: b.upper.map(printHogQLExpr) };
};

describe('timestampBounds', () => {
  it.each<[string, { lower: string[]; upper: string[] }]>([
    ["select 1 from events where timestamp >= '2020-01-01' and timestamp <= '2020-01-03'", { lower: ["'2020-01-01'"], upper: ["'2020-01-03'"] }],
    ["select 1 from events where timestamp > '2020-01-01' and event = 'a' and timestamp < now()", { lower: ["'2020-01-01'"], upper: ['now()'] }],
    // flipped sides, nested ANDs, PREWHERE, BETWEEN, equality
    ["select 1 from events prewhere '2020-01-01' <= timestamp where (event = 'a' and (timestamp <= '2020-01-03'))", { lower: ["'2020-01-01'"], upper: ["'2020-01-03'"] }],
    ["select 1 from events where timestamp between '2020-01-01' and '2020-01-03'", { lower: ["'2020-01-01'"], upper: ["'2020-01-03'"] }],
    ["select 1 from events where timestamp = toDateTime('2020-01-02 10:00:00')", { lower: ["toDateTime('2020-01-02 10:00:00')"], upper: ["toDateTime('2020-01-02 10:00:00')"] }],
    ['select 1 from events where timestamp >= now() - interval 7 day', { lower: ['now() - toIntervalDay(7)'], upper: [] }],
    ["select 1 from events e where e.timestamp >= '2020-01-01'", { lower: ["'2020-01-01'"], upper: [] }],
  ])('%s', async (text, expected) => {
    const b = await bounds(text, text.includes(' e ') ? 'e' : 'events');
    // the printed form of a bound may differ in spelling (e.g. `minus(...)` vs `-`): compare without spaces
    expect(b && { lower: b.lower.map((x) => x.replace(/\s/g, '')), upper: b.upper.map((x) => x.replace(/\s/g, '')) }).toEqual({
      lower: expected.lower.map((x) => x.replace(/\s/g, '')),
      upper: expected.upper.map((x) => x.replace(/\s/g, '')),
    });
  });

  it.each([
    ['no WHERE', 'select 1 from events'],
    ['an OR (not every kept row is bounded)', "select 1 from events where timestamp >= '2020-01-01' or event = 'a'"],
    ['a negated condition', "select 1 from events where not (timestamp >= '2020-01-01')"],
    ['NOT BETWEEN', "select 1 from events where timestamp not between '2020-01-01' and '2020-01-03'"],
    ['a bound that reads a column', 'select 1 from events where timestamp >= created_at'],
    ['a bound with a subquery', 'select 1 from events where timestamp >= (select min(timestamp) from events)'],
    ['an aggregate bound', 'select 1 from events where timestamp >= max(created_at)'],
    ['another table’s timestamp', "select 1 from events e where x.timestamp >= '2020-01-01'"],
    ['a select alias named timestamp shadows the column', "select timestamp - interval 10 day as timestamp from events where timestamp >= '2020-01-01'"],
    ['not a range comparison', "select 1 from events where timestamp != '2020-01-01'"],
  ])('none for %s', async (_n, text) => {
    expect(await bounds(text, text.includes(' e ') ? 'e' : 'events')).toBeNull();
  });

  it('a bare timestamp is the table’s only when it is the only table of the SELECT', async () => {
    const text = "select 1 from events e join persons p on p.id = e.person_id where timestamp >= '2020-01-01'";
    expect(await bounds(text, 'e', false)).toBeNull();
    expect(await bounds("select 1 from events e join persons p on p.id = e.person_id where e.timestamp >= '2020-01-01'", 'e', false)).toEqual({
      lower: ["'2020-01-01'"],
      upper: [],
    });
  });
});

describe('boundedSessionsQuery', () => {
  it('aggregates the events in the bounds widened by 3 days on each side, with the sessions table’s own conditions', async () => {
    expect(SESSION_BUFFER_DAYS).toBe(3);
    const q = (await parseSelect("select 1 from events where timestamp >= '2020-01-01' and timestamp <= '2020-01-03 23:59:59'")) as SelectQuery;
    const bounded = boundedSessionsQuery(timestampBounds(q, 'events', true)!);
    expect({ ...bounded, where: undefined }).toEqual({ ...SESSIONS_QUERY, where: undefined });
    expect(printHogQLExpr(bounded.where!)).toBe(
      `(${printHogQLExpr(SESSIONS_QUERY.where!)}) AND (timestamp >= toDateTime('2020-01-01') - toIntervalDay(3)) AND (timestamp <= toDateTime('2020-01-03 23:59:59') + toIntervalDay(3))`,
    );
  });
});

describe('events.session in a compiled query', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  beforeAll(() => require('./clickhouse'));
  const WHERE = "timestamp >= '2020-01-10 00:00:00' and timestamp <= '2020-01-12 23:59:59'";
  const compile = (dialect: 'duckdb' | 'clickhouse', where: string) =>
    compileProductQL({ query: `select count() from events where ${where} and session.$session_duration > 30`, projectId: 1, timezone: 'UTC', dialect });

  it.each(['duckdb', 'clickhouse'] as const)('%s: the lazily joined sessions aggregate the events of the kept range ± 3 days only', async (dialect) => {
    const bounded = await compile(dialect, WHERE);
    const unbounded = await compile(dialect, "event = 'x'");
    // the bounds are bound values inside the sessions subquery (between its events reference and its GROUP BY) too
    const sessions = (sql: string) => sql.slice(sql.indexOf('JOIN ('), sql.indexOf('GROUP BY'));
    expect(sessions(bounded.sql).length).toBeGreaterThan(sessions(unbounded.sql).length);
    expect(sessions(unbounded.sql)).not.toMatch(/interval|INTERVAL|to_days|toIntervalDay/);
    expect(sessions(bounded.sql)).toMatch(/interval|INTERVAL|to_days|toIntervalDay|addDays|subtractDays/);
  });
});
