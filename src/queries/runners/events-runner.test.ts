import { createInsightTestDb, type InsightTestDb } from '../insights/testing';
import { setInsightsClock } from '../insights/date-range';
import type { ActionDef } from '../../actions/matching';
import type { ActionStep } from '../../store/entities/action';
import { eventsRunner, hasAggregation } from './events-runner';
import { productqlRunner } from './productql-runner';
import { parseExprSync, initParser, shutdownParser } from '../../productql/parser';

/**
 * PostHog's EventsQuery (posthog/hogql_queries/test/test_events_query_runner.py and the EventsQuery cases of
 * posthog/api/test/test_query.py), on the engine of the harness (DuckDB here, ClickHouse in the .clickhouse twin).
 *
 * Project 1 (UTC), now = 2024-01-08 12:00:00Z. The last 24 hours (after 2024-01-07 12:00) hold:
 *   11:00 $autocapture u1 (elements chain)       | 10:00 sign up u1 key=test_val1 Chrome url a.com/x
 *   09:00 sign up u2 key=test_val2 Safari        | 08:00 sign out u1b key=test_val3 screen Home
 *   07:00 sign up anon (personless)               | Jan 7 20:00 sign up u2 key=test_val2
 * and outside it: Jan 5 sign up u1 (old), Jan 9 sign up u1 (future).
 * Persons: P1 = u1 + u1b (email tom@posthog.com, name Tom), P2 = u2 (email ann@example.com).
 * Project 2 holds a person with distinct id u1 too, and a "secret" event.
 */
let db: InsightTestDb;
let restore: () => void;
let p1: string;
let p2: string;
let otherProjectPerson: string;
const actions = new Map<number, ActionDef>();

const CHAIN = 'a.btn.primary:href="/signup"nth-child="1"nth-of-type="1"text="Sign up"';

beforeAll(async () => {
  db = await createInsightTestDb();
  await initParser();
  restore = setInsightsClock(new Date('2024-01-08T12:00:00Z'));
  db.actions = { liveActions: async (projectId, ids) => new Map(ids.filter((id) => actions.has(id) && projectId === 1).map((id) => [id, actions.get(id)!])) };
  const ev = (event: string, distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}) => ({ event, distinct_id, timestamp, properties });
  await db.load(1, {
    persons: [
      { distinct_ids: ['u1', 'u1b'], properties: { email: 'tom@posthog.com', name: 'Tom' }, created_at: '2023-12-01T00:00:00Z' },
      { distinct_ids: ['u2'], properties: { email: 'ann@example.com' }, created_at: '2023-12-02T00:00:00Z' },
    ],
    events: [
      ev('$autocapture', 'u1', '2024-01-08T11:00:00Z', { $current_url: 'https://a.com/y', $elements_chain: CHAIN }),
      ev('sign up', 'u1', '2024-01-08T10:00:00Z', { key: 'test_val1', $browser: 'Chrome', $current_url: 'https://a.com/x', $lib: 'web' }),
      ev('sign up', 'u2', '2024-01-08T09:00:00Z', { key: 'test_val2', $browser: 'Safari', $lib: 'web' }),
      ev('sign out', 'u1b', '2024-01-08T08:00:00Z', { key: 'test_val3', $screen_name: 'Home', $lib: 'ios' }),
      ev('sign up', 'anon', '2024-01-08T07:00:00Z', { $process_person_profile: false }),
      ev('sign up', 'u2', '2024-01-07T20:00:00Z', { key: 'test_val2' }),
      ev('sign up', 'u1', '2024-01-05T10:00:00Z', { key: 'old' }),
      ev('sign up', 'u1', '2024-01-09T10:00:00Z', { key: 'future' }),
    ],
  });
  await db.load(2, {
    persons: [{ distinct_ids: ['u1', 'x9'], properties: { email: 'secret@other.com' }, created_at: '2023-11-01T00:00:00Z' }],
    events: [ev('secret', 'u1', '2024-01-08T10:30:00Z', { key: 'test_val1' }), ev('secret', 'x9', '2024-01-08T10:30:00Z', { key: 'hidden' })],
  });
  const personOf = async (project: number, did: string) =>
    (await db.run(productqlRunner, { kind: 'HogQLQuery', query: `SELECT toString(person_id) FROM events WHERE distinct_id = '${did}' LIMIT 1` }, project)).results[0][0] as string;
  p1 = await personOf(1, 'u1');
  p2 = await personOf(1, 'u2');
  otherProjectPerson = await personOf(2, 'x9');
});
afterAll(async () => {
  restore();
  await db.close();
  await shutdownParser();
});

const events = (q: Record<string, unknown>, project = 1, settings: Record<string, unknown> = {}) => db.run(eventsRunner, { kind: 'EventsQuery', ...q }, project, settings);
const rowsOf = async (q: Record<string, unknown>, project = 1, settings: Record<string, unknown> = {}) => (await events(q, project, settings)).results;

describe('select', () => {
  it('scalar columns, newest first when timestamp is selected; the last 24 hours, no future events', async () => {
    const r = await events({ select: ['event', 'distinct_id', 'properties.key', 'timestamp'] });
    expect(r.columns).toEqual(['event', 'distinct_id', 'properties.key', 'timestamp']);
    expect(r.results).toEqual([
      ['$autocapture', 'u1', null, '2024-01-08T11:00:00Z'],
      ['sign up', 'u1', 'test_val1', '2024-01-08T10:00:00Z'],
      ['sign up', 'u2', 'test_val2', '2024-01-08T09:00:00Z'],
      ['sign out', 'u1b', 'test_val3', '2024-01-08T08:00:00Z'],
      ['sign up', 'anon', null, '2024-01-08T07:00:00Z'],
      ['sign up', 'u2', 'test_val2', '2024-01-07T20:00:00Z'],
    ]);
    expect(r).toMatchObject({ hasMore: false, limit: 100, offset: 0 });
    expect(r.types).toHaveLength(4);
    expect(r.types[0]).toMatch(/String/);
    expect(r.types[3]).toMatch(/^DateTime64/);
    expect(r.hogql).toMatch(/^SELECT event, distinct_id, properties\.key, timestamp FROM events WHERE .*ORDER BY timestamp DESC LIMIT 100/);
  });

  it('"*" is the whole event as a dict (properties parsed, team_id, elements from the chain)', async () => {
    const r = await events({ select: ['*', 'event', 'timestamp'], event: '$autocapture' });
    expect(r.columns).toEqual(['*', 'event', 'timestamp']);
    expect(r.results).toHaveLength(1);
    const [star, event, ts] = r.results[0];
    expect(event).toBe('$autocapture');
    expect(ts).toBe('2024-01-08T11:00:00Z');
    expect(Object.keys(star)).toEqual(['uuid', 'event', 'properties', 'timestamp', 'team_id', 'distinct_id', 'elements_chain', 'created_at', 'elements']);
    expect(star).toMatchObject({ event: '$autocapture', timestamp: '2024-01-08T11:00:00Z', team_id: 1, distinct_id: 'u1', elements_chain: CHAIN });
    expect(star.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(star.properties).toMatchObject({ $current_url: 'https://a.com/y' });
    expect(star.elements).toEqual([expect.objectContaining({ tag_name: 'a', attr_class: ['btn', 'primary'], href: '/signup', text: 'Sign up', nth_child: 1 })]);
    expect(typeof star.created_at).toBe('string');
    expect(r.types[0]).toMatch(/^Tuple\(UUID, .*Int64.*\)$/);
    expect(r.hogql).toContain('tuple(uuid, event, properties, timestamp, team_id, distinct_id, elements_chain, created_at)');
  });

  it('an event without elements has no "elements" key; an empty select means "*"', async () => {
    const r = await events({ select: [], event: 'sign out' });
    expect(r.columns).toEqual(['*']);
    expect(r.results).toHaveLength(1);
    expect(r.results[0][0]).toMatchObject({ event: 'sign out', distinct_id: 'u1b', elements_chain: '', properties: { key: 'test_val3', $screen_name: 'Home' } });
    expect(r.results[0][0]).not.toHaveProperty('elements');
  });

  it('"person" is the person of the distinct id ({uuid, created_at, properties, distinct_id}); personless: {distinct_id}', async () => {
    const r = await events({ select: ['person', 'event', 'timestamp'], where: ["event != '$autocapture'"], after: '2024-01-08' });
    expect(r.results.map((x: unknown[]) => x[0])).toEqual([
      { uuid: p1, created_at: '2023-12-01T00:00:00Z', properties: { email: 'tom@posthog.com', name: 'Tom' }, distinct_id: 'u1' },
      { uuid: p2, created_at: '2023-12-02T00:00:00Z', properties: { email: 'ann@example.com' }, distinct_id: 'u2' },
      { uuid: p1, created_at: '2023-12-01T00:00:00Z', properties: { email: 'tom@posthog.com', name: 'Tom' }, distinct_id: 'u1b' },
      { distinct_id: 'anon' },
    ]);
  });

  it('"person -- Person" is the person column too; columns echo the text, comments and all', async () => {
    const r = await events({
      select: ['person -- Person', 'coalesce(properties.$current_url, properties.$screen_name) -- Url / Screen', 'properties.$lib', 'timestamp'],
      event: null,
      where: ["event = 'sign out'"],
    });
    expect(r.columns).toEqual(['person -- Person', 'coalesce(properties.$current_url, properties.$screen_name) -- Url / Screen', 'properties.$lib', 'timestamp']);
    expect(r.results).toEqual([[expect.objectContaining({ uuid: p1, distinct_id: 'u1b' }), 'Home', 'ios', '2024-01-08T08:00:00Z']]);
  });

  it('the person of a distinct id is read from the query project only', async () => {
    const r = await events({ select: ['person', 'timestamp'], event: 'secret' }, 2);
    const people = r.results.map((x: unknown[]) => x[0] as Record<string, unknown>);
    expect(people.map((p: Record<string, unknown>) => p.properties)).toEqual([{ email: 'secret@other.com' }, { email: 'secret@other.com' }]);
    const mine = await events({ select: ['person', 'timestamp'], event: 'sign up', after: '2024-01-08T09:30:00Z' });
    expect(mine.results[0][0]).toMatchObject({ uuid: p1, properties: { email: 'tom@posthog.com', name: 'Tom' } });
  });
});

describe('aggregations', () => {
  it('count() groups by the other columns and orders by count() DESC', async () => {
    const r = await events({ select: ['count()', 'event'], where: ["event == 'sign up'"] });
    expect(r.results).toEqual([[4, 'sign up']]);
    const all = await events({ select: ['count()', 'event'], orderBy: ['count() DESC', 'event'] });
    expect(all.results).toEqual([
      [4, 'sign up'],
      [1, '$autocapture'],
      [1, 'sign out'],
    ]);
    expect(all.hogql).toMatch(/GROUP BY event ORDER BY count\(\) DESC, event ASC/);
  });

  it('the first aggregate orders DESC when count() is not selected; aliases are allowed', async () => {
    const r = await events({ select: ['properties.$lib AS lib', 'uniq(distinct_id) AS users'], where: ['isNotNull(properties.$lib)'] });
    expect(r.results).toEqual([
      ['web', 2],
      ['ios', 1],
    ]);
  });

  it('conditions that aggregate (where and hogql filters) become HAVING', async () => {
    const r = await events({ select: ['properties.key', 'count()'], properties: [{ type: 'hogql', key: 'count() > 1' }, { type: 'event', key: 'key', operator: 'is_set' }] });
    expect(r.results).toEqual([['test_val2', 2]]);
    const w = await events({ select: ['event', 'count()'], where: ['count() < 2'], orderBy: ['event'] });
    expect(w.results).toEqual([
      ['$autocapture', 1],
      ['sign out', 1],
    ]);
  });

  it('has_aggregation looks through expressions but not into subqueries', () => {
    expect(hasAggregation(parseExprSync('count()'))).toBe(true);
    expect(hasAggregation(parseExprSync('round(sum(properties.x) / 2)'))).toBe(true);
    expect(hasAggregation(parseExprSync('event'))).toBe(false);
    expect(hasAggregation(parseExprSync('(SELECT count() FROM events)'))).toBe(false);
  });
});

describe('filters', () => {
  it('where: a list of ProductQL conditions, ANDed', async () => {
    expect(await rowsOf({ select: ['properties.key'], where: ["event = 'sign up'", "properties.$browser = 'Safari'"] })).toEqual([['test_val2']]);
    // escaped quotes (test_escaped_single_quotes_in_where_clause)
    expect(await rowsOf({ select: ['event'], where: ["properties.key = 'it\\'s'"] })).toEqual([]);
  });

  it('event property filters', async () => {
    const q = (properties: unknown[]) => rowsOf({ select: ['properties.key', 'timestamp'], properties });
    expect(await q([{ type: 'event', key: 'key', value: 'test_val3', operator: 'exact' }])).toEqual([['test_val3', '2024-01-08T08:00:00Z']]);
    expect((await q([{ type: 'event', key: 'key', operator: 'is_set' }])).map((r: unknown[]) => r[0])).toEqual(['test_val1', 'test_val2', 'test_val3', 'test_val2']);
    expect((await q([{ type: 'event', key: 'key', value: ['test_val1', 'test_val3'], operator: 'exact' }])).map((r: unknown[]) => r[0])).toEqual(['test_val1', 'test_val3']);
  });

  it('person property filters, fixedProperties ANDed with properties', async () => {
    expect(await rowsOf({ select: ['distinct_id', 'timestamp'], properties: [{ type: 'person', key: 'email', value: 'tom@posthog.com', operator: 'exact' }] })).toEqual([
      ['u1', '2024-01-08T11:00:00Z'],
      ['u1', '2024-01-08T10:00:00Z'],
      ['u1b', '2024-01-08T08:00:00Z'],
    ]);
    expect(
      await rowsOf({
        select: ['distinct_id', 'timestamp'],
        properties: [{ type: 'person', key: 'email', value: 'tom@posthog.com', operator: 'exact' }],
        fixedProperties: [{ type: 'event', key: 'key', operator: 'is_set' }],
      }),
    ).toEqual([
      ['u1', '2024-01-08T10:00:00Z'],
      ['u1b', '2024-01-08T08:00:00Z'],
    ]);
  });

  it('hogql property filters (test_query.py test_hogql_property_filter)', async () => {
    const n = async (key: string) => (await rowsOf({ select: ['event'], properties: [{ type: 'hogql', key }] })).length;
    expect(await n("'a%sd' == 'foo'")).toBe(0);
    expect(await n("'a%sd' == 'a%sd'")).toBe(6);
    expect(await n("properties.key == 'test_val2'")).toBe(2);
  });

  it('event: one event name', async () => {
    expect(await rowsOf({ select: ['event', 'distinct_id'], event: 'sign out' })).toEqual([['sign out', 'u1b']]);
  });

  it('filterTestAccounts applies the project test-account filters', async () => {
    const settings = { test_account_filters: [{ key: 'email', value: '@posthog.com', operator: 'not_icontains', type: 'person' }] };
    const r = await rowsOf({ select: ['distinct_id', 'timestamp'], filterTestAccounts: true, event: 'sign up' }, 1, settings);
    expect(r.map((x: unknown[]) => x[0])).toEqual(['u2', 'anon', 'u2']);
    expect((await rowsOf({ select: ['distinct_id', 'timestamp'], filterTestAccounts: false, event: 'sign up' }, 1, settings)).length).toBe(4);
  });

  it('personId: the events of all the distinct ids of that person', async () => {
    expect(await rowsOf({ select: ['distinct_id', 'event', 'timestamp'], personId: p1 })).toEqual([
      ['u1', '$autocapture', '2024-01-08T11:00:00Z'],
      ['u1', 'sign up', '2024-01-08T10:00:00Z'],
      ['u1b', 'sign out', '2024-01-08T08:00:00Z'],
    ]);
    expect(await rowsOf({ select: ['distinct_id', 'timestamp'], personId: p1.toUpperCase(), after: 'all' })).toHaveLength(4);
  });

  it.each([
    ['another project’s person (who has the distinct id u1 there too)', () => otherProjectPerson],
    ['an unknown uuid', () => '00000000-0000-0000-0000-000000000000'],
    ['not a uuid', () => "x' OR 1=1 --"],
  ])('personId of %s matches nothing', async (_what, id) => {
    expect(await rowsOf({ select: ['distinct_id'], personId: id(), after: 'all' })).toEqual([]);
  });

  it('actionId: the events matching the action', async () => {
    actions.set(7, { id: 7, name: 'signed up on a.com', steps: [{ event: 'sign up', url: 'a.com', url_matching: 'contains' } as ActionStep, { event: 'sign out' } as ActionStep] });
    expect(await rowsOf({ select: ['event', 'distinct_id', 'timestamp'], actionId: 7 })).toEqual([
      ['sign up', 'u1', '2024-01-08T10:00:00Z'],
      ['sign out', 'u1b', '2024-01-08T08:00:00Z'],
    ]);
  });

  it('actionId of a missing action (or another project’s, or one without steps) is a 400', async () => {
    await expect(events({ select: ['event'], actionId: 404 })).rejects.toMatchObject({ status: 400, code: 'action_not_found', attr: 'actionId' });
    await expect(events({ select: ['event'], actionId: 7 }, 2)).rejects.toMatchObject({ status: 400, code: 'action_not_found' });
    actions.set(8, { id: 8, name: 'empty', steps: [] });
    await expect(events({ select: ['event'], actionId: 8 })).rejects.toMatchObject({ status: 400, attr: 'actionId' });
  });
});

describe('time bounds', () => {
  it('after: "all" has no lower bound; before still hides future events by default', async () => {
    const keys = (await rowsOf({ select: ['properties.key', 'timestamp'], event: 'sign up', after: 'all' })).map((r: unknown[]) => r[0]);
    expect(keys).toEqual(['test_val1', 'test_val2', null, 'test_val2', 'old']);
  });

  it('relative and absolute bounds, strict on both ends, not rounded', async () => {
    const ts = async (q: Record<string, unknown>) => (await rowsOf({ select: ['timestamp'], ...q })).map((r: unknown[]) => r[0]);
    expect(await ts({ after: '-3h' })).toEqual(['2024-01-08T11:00:00Z', '2024-01-08T10:00:00Z']);
    expect(await ts({ after: '-4d', before: '-1d' })).toEqual(['2024-01-05T10:00:00Z']);
    expect(await ts({ after: '2024-01-08T08:00:00Z', before: '2024-01-08T10:00:00Z' })).toEqual(['2024-01-08T09:00:00Z']);
    expect(await ts({ after: '2024-01-08', before: '2024-01-08 09:00:00' })).toEqual(['2024-01-08T08:00:00Z', '2024-01-08T07:00:00Z']);
    expect(await ts({ after: '-1h' })).toEqual([]);
    expect(await ts({ after: '-1h', before: '2024-01-10' })).toEqual(['2024-01-09T10:00:00Z']);
    expect(await ts({ after: '2024-01-09', before: '2024-01-10' })).toEqual(['2024-01-09T10:00:00Z']);
  });

  it('naive ISO dates are UTC (PostHog isoparses them and prints the naive datetime as UTC), results shown in the project timezone', async () => {
    const r = await rowsOf({ select: ['timestamp'], after: '2024-01-08 09:30:00', before: '2024-01-08 11:30' }, 1, { timezone: 'Europe/Berlin' });
    expect(r).toEqual([['2024-01-08T12:00:00+01:00'], ['2024-01-08T11:00:00+01:00']]);
    // with an offset: that instant; relative: from now
    const z = await rowsOf({ select: ['timestamp'], after: '2024-01-08T10:30:00+01:00', before: '2024-01-08T12:30:00+01:00' }, 1, { timezone: 'Europe/Berlin' });
    expect(z).toEqual([['2024-01-08T12:00:00+01:00'], ['2024-01-08T11:00:00+01:00']]);
  });

  it('an invalid date is a 400 naming the field', async () => {
    await expect(events({ select: ['event'], after: 'yesterday-ish' })).rejects.toMatchObject({ status: 400, attr: 'after' });
    await expect(events({ select: ['event'], before: '2024-13-45' })).rejects.toMatchObject({ status: 400, attr: 'before' });
  });
});

describe('ordering and paging', () => {
  it('orderBy ASC / DESC (test_query.py test_select_hogql_expressions)', async () => {
    const q = (orderBy: string[]) => rowsOf({ select: ['properties.key', 'event', 'distinct_id', "concat(event, ' ', properties.key)"], where: ['isNotNull(properties.key)'], orderBy });
    expect(await q(['properties.key ASC', 'timestamp'])).toEqual([
      ['test_val1', 'sign up', 'u1', 'sign up test_val1'],
      ['test_val2', 'sign up', 'u2', 'sign up test_val2'],
      ['test_val2', 'sign up', 'u2', 'sign up test_val2'],
      ['test_val3', 'sign out', 'u1b', 'sign out test_val3'],
    ]);
    expect((await q(['properties.key DESC', 'timestamp DESC'])).map((r: unknown[]) => r[0])).toEqual(['test_val3', 'test_val2', 'test_val2', 'test_val1']);
  });

  it('without timestamp or aggregates, the first column ASC', async () => {
    expect(await rowsOf({ select: ['distinct_id'], event: 'sign up' })).toEqual([['anon'], ['u1'], ['u2'], ['u2']]);
  });

  it('limit / offset / hasMore', async () => {
    const page = (limit: number | undefined, offset?: number) => events({ select: ['timestamp'], limit, offset });
    const a = await page(2);
    expect(a.results.map((r: unknown[]) => r[0])).toEqual(['2024-01-08T11:00:00Z', '2024-01-08T10:00:00Z']);
    expect(a).toMatchObject({ hasMore: true, limit: 2, offset: 0 });
    const b = await page(2, 4);
    expect(b.results.map((r: unknown[]) => r[0])).toEqual(['2024-01-08T07:00:00Z', '2024-01-07T20:00:00Z']);
    expect(b).toMatchObject({ hasMore: false, limit: 2, offset: 4 });
    expect(await page(0)).toMatchObject({ limit: 100, hasMore: false });
    expect(await page(1_000_000)).toMatchObject({ limit: 50_000 });
  });
});

describe('errors', () => {
  it('a select that does not parse is hogql_syntax_error naming the entry', async () => {
    await expect(events({ select: ['event', 'count(('] })).rejects.toMatchObject({ status: 400, code: 'hogql_syntax_error', attr: 'select__1' });
    await expect(events({ select: ['event'], where: ['event ==== 1'] })).rejects.toMatchObject({ status: 400, code: 'hogql_syntax_error', attr: 'where__0' });
    for (const bad of ['event LIMIT 1', 'event, timestamp', 'event SETTINGS max_threads = 1', 'event) UNION ALL (SELECT 1'])
      await expect(events({ select: ['event'], orderBy: [bad] })).rejects.toMatchObject({ status: 400, code: 'hogql_syntax_error', attr: 'orderBy__0' });
  });

  it('unknown fields, tables and functions are hogql_query_error', async () => {
    await expect(events({ select: ['nope_field'] })).rejects.toMatchObject({ status: 400, code: 'hogql_query_error' });
    await expect(events({ select: ['event'], where: ['secretFn(event)'] })).rejects.toMatchObject({ status: 400, code: 'hogql_query_error' });
    await expect(events({ select: ['(SELECT count() FROM pg_tables)'] })).rejects.toMatchObject({ status: 400 });
  });

  it('unknown keys and a source are refused', async () => {
    await expect(events({ select: ['event'], nonsense: 1 })).rejects.toBeTruthy();
    await expect(events({ select: ['event'], source: { kind: 'InsightActorsQuery' } })).rejects.toMatchObject({ status: 400, attr: 'source' });
  });
});

describe('project isolation', () => {
  it('subqueries in select and where read the query project only', async () => {
    expect(await rowsOf({ select: ['(SELECT count() FROM events)', 'event'], event: 'sign out' })).toEqual([[8, 'sign out']]);
    expect(await rowsOf({ select: ['event'], where: ["event IN (SELECT event FROM events WHERE event = 'secret')"], after: 'all' })).toEqual([]);
    expect(await rowsOf({ select: ['event'], where: ["distinct_id IN (SELECT distinct_id FROM person_distinct_ids WHERE distinct_id = 'x9')"], after: 'all' })).toEqual([]);
    expect(await rowsOf({ select: ['(SELECT count() FROM persons)'], limit: 1 })).toEqual([[2]]);
  });

  it('the other project sees its own events only', async () => {
    expect(await rowsOf({ select: ['event', 'properties.key'], orderBy: ['properties.key'] }, 2)).toEqual([
      ['secret', 'hidden'],
      ['secret', 'test_val1'],
    ]);
    expect((await rowsOf({ select: ['*'], after: 'all' }, 2)).every((r: unknown[]) => (r[0] as { team_id: number }).team_id === 2)).toBe(true);
  });
});
