/**
 * Lazily joined tables on events (`pdi`, `poe`) and the tables beside persons (PostHog's
 * posthog/hogql/test/test_query.py joins cases), on a real DuckDB; lazy-tables.clickhouse.test.ts runs this file on
 * ClickHouse with the same expected results. Project 2 shares distinct ids and person ids with project 1 but maps
 * them to its own persons (`P2_SECRET` everywhere): nothing of it may show through a lazy join.
 */
import { UserError } from '../errors';
import { compileProductQL, shutdownParser } from './index';
import { createTestDb, P1A, P1B, SECRET, type TestDb } from './testing';
import { SESSION_FIELDS } from './sessions';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  await db?.close();
  await shutdownParser();
});

const all = async (text: string): Promise<unknown[][]> => (await db.query(text)).results;
const noSecret = (rows: unknown) => expect(JSON.stringify(rows)).not.toContain(SECRET);

describe('events.pdi (person_distinct_ids on distinct_id)', () => {
  // test_query_joins_events_pdi / test_query_joins_events_e_pdi
  it.each([
    'select event, timestamp, pdi.distinct_id, pdi.person_id from events order by timestamp',
    'select event, e.timestamp, e.pdi.distinct_id, pdi.person_id from events e order by e.timestamp',
  ])('%s', async (text) => {
    const r = await all(text);
    expect(r.map((x) => [x[0], x[2], x[3]])).toEqual([
      ['$pageview', 'user1', P1A],
      ['$pageview', 'user1', P1A],
      ['$pageview', 'user2', P1B],
      ['signup', 'user2', P1B],
      // user3 is mapped to P1A (its old person P1C was merged away)
      ['$pageview', 'user3', P1A],
      // a distinct id with no mapping: NULL, not an empty string
      ['$pageview', null, null],
    ]);
  });

  // test_query_joins_events_pdi_person / _person_properties / test_query_joins_events_person_properties
  it('reaches the mapped person through pdi.person', async () => {
    const r = await all(
      'select distinct_id, pdi.person.id, pdi.person.properties.email, e.pdi.person.created_at, pdi.person.properties from events e order by timestamp',
    );
    expect(r.map((x) => x.slice(0, 3))).toEqual([
      ['user1', P1A, 'a@p1.com'],
      ['user1', P1A, 'a@p1.com'],
      ['user2', P1B, 'b@p1.com'],
      ['user2', P1B, 'b@p1.com'],
      ['user3', P1A, 'a@p1.com'],
      ['anon', null, null],
    ]);
    expect(r[0][3]).toBe('2024-01-01T01:00:00+01:00');
    expect(JSON.parse(r[0][4] as string)).toEqual({ email: 'a@p1.com', plan: 'pro', marker: 'P1_MARKER' });
    expect(r[5][4]).toBeNull();
    noSecret(r);
  });

  // test_query_joins_events_person_properties_in_aggregration
  it('groups by a pdi.person property', async () => {
    expect(await all('select s.pdi.person.properties.email, count() from events s group by s.pdi.person.properties.email order by 1')).toEqual([
      ['a@p1.com', 3],
      ['b@p1.com', 2],
      [null, 1],
    ]);
  });

  it('filters on pdi fields', async () => {
    expect(await all("select count() from events where pdi.person.properties.plan = 'pro'")).toEqual([[3]]);
    expect(await all('select count() from events where pdi.person_id is null')).toEqual([[1]]);
    expect(await all(`select count() from events where pdi.person_id = '${P1A}'`)).toEqual([[3]]);
  });

  it('types pdi fields as nullable', async () => {
    const r = await db.query('select pdi.distinct_id, pdi.person_id, pdi.person.properties.email from events limit 1');
    expect(r.types).toEqual([
      ['distinct_id', 'Nullable(String)'],
      ['person_id', 'Nullable(UUID)'],
      ['email', 'Nullable(String)'],
    ]);
  });

  it.each([
    ['select pdi from events', "Can't select a table when a column is expected: pdi"],
    ['select pdi.version from events', 'Field not found: version'],
    ['select pdi.distinct_id.x from events', 'Cannot access "x" on pdi.distinct_id'],
    ['select pdi.person from events', "Can't select a table when a column is expected: pdi.person"],
    ['select pdi.person.version from events', 'Field not found: version'],
  ])('refuses %s', async (text, message) => {
    const e = await db.query(text).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UserError);
    expect((e as UserError).status).toBe(400);
    expect((e as UserError).message).toContain(message);
  });
});

describe('events.poe (persons on events: current person, after merges)', () => {
  // test_select_person_on_events
  it('groups by a poe property', async () => {
    expect(await all('select poe.properties.email, count() from events s group by poe.properties.email order by 1')).toEqual([
      ['a@p1.com', 3],
      ['b@p1.com', 2],
      [null, 1],
    ]);
  });

  it('reads poe.id as the person id and poe.* as person.*', async () => {
    const r = await all(
      'select poe.id, person_id, poe.properties.plan, person.properties.plan, poe.created_at, person.created_at, poe.properties.marker from events order by timestamp',
    );
    expect(r.map((x) => [x[0], x[1], x[2]])).toEqual([
      [P1A, P1A, 'pro'],
      [P1A, P1A, 'pro'],
      [P1B, P1B, 'free'],
      [P1B, P1B, 'free'],
      // P1C's event: merged into P1A
      [P1A, P1A, 'pro'],
      [null, null, null],
    ]);
    for (const row of r) {
      expect(row[2]).toEqual(row[3]);
      expect(row[4]).toEqual(row[5]);
    }
    expect(r[0][6]).toBe('P1_MARKER');
    noSecret(r);
  });

  it('refuses poe as a value and unknown poe fields', async () => {
    for (const [text, message] of [
      ['select poe from events', "Can't select a table when a column is expected: poe"],
      ['select poe.version from events', 'Field not found: version'],
    ]) {
      const e = await db.query(text).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(UserError);
      expect((e as UserError).message).toContain(message);
    }
  });
});

describe('raw_persons / raw_person_distinct_ids (one version per row in Quarry)', () => {
  // test_query_joins_pdi: PostHog's own dedup of raw_person_distinct_ids, with the alias named like the column.
  it('runs the argMax-by-version dedup over raw_person_distinct_ids', async () => {
    const r = await all(
      `SELECT event, timestamp, pdi.distinct_id, pdi.person_id FROM events e
       INNER JOIN (SELECT distinct_id, argMax(person_id, version) as person_id FROM raw_person_distinct_ids
                   GROUP BY distinct_id HAVING argMax(is_deleted, version) = 0) AS pdi
       ON e.distinct_id = pdi.distinct_id ORDER BY timestamp`,
    );
    expect(r.map((x) => [x[0], x[2], x[3]])).toEqual([
      ['$pageview', 'user1', P1A],
      ['$pageview', 'user1', P1A],
      ['$pageview', 'user2', P1B],
      ['signup', 'user2', P1B],
      ['$pageview', 'user3', P1A],
    ]);
  });

  it('reads the rows of person_distinct_ids plus version and is_deleted = false', async () => {
    const r = await db.query('select *, person.properties.email from raw_person_distinct_ids order by distinct_id');
    expect(r.columns).toEqual(['distinct_id', 'person_id', 'version', 'is_deleted', 'email']);
    expect(r.results).toEqual([
      ['user1', P1A, 1, 0, 'a@p1.com'],
      ['user2', P1B, 1, 0, 'b@p1.com'],
      ['user3', P1A, 1, 0, 'a@p1.com'],
    ]);
  });

  it('reads the rows of persons plus version and is_deleted = false', async () => {
    const r = await db.query('select * from raw_persons order by id');
    expect(r.columns).toEqual(['id', 'created_at', 'properties', 'is_identified', 'version', 'is_deleted']);
    expect(r.results.map((x) => [x[0], x[3], x[4], x[5]])).toEqual([
      [P1A, 1, 1, 0],
      [P1B, 0, 1, 0],
    ]);
    noSecret(r.results);
    expect(await all('select id, argMax(properties.email, version) from raw_persons group by id having argMax(is_deleted, version) = 0 order by id')).toEqual([
      [P1A, 'a@p1.com'],
      [P1B, 'b@p1.com'],
    ]);
    expect(await all('select count() from raw_persons where is_deleted')).toEqual([[0]]);
  });
});

describe('an alias named like a column', () => {
  // Regression: the alias's own definition read the alias (toString(toString(event)), argMax(argMax(...))).
  it('reads the column inside its own definition', async () => {
    expect(await all("select concat(event, '!') as event from events order by timestamp limit 1")).toEqual([['$pageview!']]);
    expect(await all('select count() as c, c + 1 from events')).toEqual([[6, 7]]);
  });
});

describe('sessions (computed from events) and events.session', () => {
  // Project 3 (UTC) has its own sessions; project 2 writes into session id "a" too, with a secret entry URL earlier.
  const at = (t: string): number => Date.parse(`2024-05-01T${t}Z`);
  let seq = 0;
  const ev = (project: number, event: string, distinct: string, t: string, session: string | null, props: Record<string, unknown> = {}) => ({
    project_id: project,
    uuid: `30000000-0000-4000-8000-${String(++seq).padStart(12, '0')}`,
    event,
    distinct_id: distinct,
    person_id: null,
    timestamp: at(t),
    properties: JSON.stringify(props),
    session_id: session,
    elements_chain: null,
    created_at: at(t),
  });
  const q3 = async (text: string) => db.query(text, { projectId: 3, timezone: 'UTC' });

  beforeAll(async () => {
    await db.addEvents([
      // a: two pageviews and an autocapture over two minutes
      ev(3, '$pageview', 'u1', '10:00:00.000', 'a', { $current_url: 'https://ex.com/landing?utm_source=x#top', $referring_domain: 'google.com' }),
      ev(3, '$autocapture', 'u1b', '10:00:05.500', 'a', { $current_url: 'https://ex.com/landing' }),
      ev(3, '$pageview', 'u1', '10:02:00.000', 'a', { $current_url: 'https://ex.com/pricing', $referring_domain: 'bing.com' }),
      // b: one pageview: a bounce
      ev(3, '$pageview', 'u2', '11:00:00.000', 'b', { $current_url: 'https://ex.com/', $referring_domain: '$direct' }),
      // c: one pageview and a custom event 8.2 s (9 second boundaries) later: still a bounce; the first event has no referrer
      ev(3, '$pageview', 'u3', '12:00:00.900', 'c', { $current_url: 'http://ex.com/docs/a?b=1' }),
      ev(3, 'clicked', 'u3', '12:00:09.100', 'c', { $referring_domain: 'late.com' }),
      // d: no pageview, screen or autocapture: is_bounce is NULL
      ev(3, 'clicked', 'u4', '13:00:00.000', 'd'),
      ev(3, 'clicked', 'u4', '13:00:30.000', 'd'),
      // e: one screen and 10 seconds: not a bounce
      ev(3, '$screen', 'u5', '14:00:00.000', 'e'),
      ev(3, 'clicked', 'u5', '14:00:10.000', 'e'),
      // no session: no sessions row
      ev(3, '$pageview', 'u6', '15:00:00.000', null, { $current_url: 'https://ex.com/none' }),
      ev(3, '$pageview', 'u6', '15:00:01.000', '', { $current_url: 'https://ex.com/empty' }),
      // another project's events in session "a"
      ev(2, '$pageview', SECRET, '09:00:00.000', 'a', { $current_url: `https://${SECRET}.com/x`, $referring_domain: SECRET }),
      ev(2, '$autocapture', SECRET, '10:30:00.000', 'a', { $current_url: `https://${SECRET}.com/y` }),
    ]);
  });

  it('has one row per session id, with PostHog v2 fields', async () => {
    const r = await q3('select * from sessions order by session_id');
    // `*` is every field (sessions-posthog-compat.test.ts covers the v2 fields not picked below)
    expect(r.columns).toEqual(Object.keys(SESSION_FIELDS));
    const picked = [
      'session_id',
      'distinct_id',
      '$start_timestamp',
      '$end_timestamp',
      '$session_duration',
      '$pageview_count',
      '$autocapture_count',
      '$screen_count',
      '$entry_current_url',
      '$exit_current_url',
      '$entry_pathname',
      '$exit_pathname',
      '$entry_referring_domain',
      '$is_bounce',
    ];
    expect(r.results.map((row) => picked.map((c) => row[r.columns.indexOf(c)]))).toEqual([
      ['a', 'u1', '2024-05-01T10:00:00Z', '2024-05-01T10:02:00Z', 120, 2, 1, 0, 'https://ex.com/landing?utm_source=x#top', 'https://ex.com/pricing', '/landing', '/pricing', 'google.com', 0],
      ['b', 'u2', '2024-05-01T11:00:00Z', '2024-05-01T11:00:00Z', 0, 1, 0, 0, 'https://ex.com/', 'https://ex.com/', '/', '/', '$direct', 1],
      ['c', 'u3', '2024-05-01T12:00:00.900000Z', '2024-05-01T12:00:09.100000Z', 9, 1, 0, 0, 'http://ex.com/docs/a?b=1', 'http://ex.com/docs/a?b=1', '/docs/a', '/docs/a', null, 1],
      ['d', 'u4', '2024-05-01T13:00:00Z', '2024-05-01T13:00:30Z', 30, 0, 0, 0, null, null, null, null, null, null],
      ['e', 'u5', '2024-05-01T14:00:00Z', '2024-05-01T14:00:10Z', 10, 0, 0, 1, null, null, null, null, null, 0],
    ]);
    noSecret(r.results);
  });

  it('types the session fields', async () => {
    const r = await q3('select session_id, $start_timestamp, $session_duration, $pageview_count, $is_bounce, $entry_current_url from sessions limit 1');
    // session_id: String, as PostHog's sessions table (events' `$session_id` is never NULL: '' without a session).
    expect(r.types.map((t) => t[1])).toEqual(['String', "Nullable(DateTime64(6, 'UTC'))", 'Nullable(Int64)', 'UInt64', 'Nullable(UInt8)', 'Nullable(String)']);
  });

  it('joins each event to its session (events.session.*), NULL without a session id', async () => {
    const r = await q3(
      'select event, session.session_id, session.$session_duration, session.$is_bounce, e.session.$entry_pathname, session.distinct_id, session.$start_timestamp from events e order by timestamp',
    );
    expect(r.results).toEqual([
      ['$pageview', 'a', 120, 0, '/landing', 'u1', '2024-05-01T10:00:00Z'],
      ['$autocapture', 'a', 120, 0, '/landing', 'u1', '2024-05-01T10:00:00Z'],
      ['$pageview', 'a', 120, 0, '/landing', 'u1', '2024-05-01T10:00:00Z'],
      ['$pageview', 'b', 0, 1, '/', 'u2', '2024-05-01T11:00:00Z'],
      ['$pageview', 'c', 9, 1, '/docs/a', 'u3', '2024-05-01T12:00:00.900000Z'],
      ['clicked', 'c', 9, 1, '/docs/a', 'u3', '2024-05-01T12:00:00.900000Z'],
      ['clicked', 'd', 30, null, null, 'u4', '2024-05-01T13:00:00Z'],
      ['clicked', 'd', 30, null, null, 'u4', '2024-05-01T13:00:00Z'],
      ['$screen', 'e', 10, 0, null, 'u5', '2024-05-01T14:00:00Z'],
      ['clicked', 'e', 10, 0, null, 'u5', '2024-05-01T14:00:00Z'],
      ['$pageview', null, null, null, null, null, null],
      ['$pageview', null, null, null, null, null, null],
    ]);
  });

  it('aggregates over session fields (bounce rate, average duration by entry page)', async () => {
    expect((await q3("select countIf(session.$is_bounce), count() from events where event = '$pageview'")).results).toEqual([[2, 6]]);
    expect((await q3('select $entry_pathname, avg($session_duration), count() from sessions group by $entry_pathname order by 1')).results).toEqual([
      ['/', 0, 1],
      ['/docs/a', 9, 1],
      ['/landing', 120, 1],
      [null, 20, 2],
    ]);
    expect((await q3('select count() from sessions where $is_bounce')).results).toEqual([[2]]);
  });

  it('joins sessions explicitly and through a CTE named events', async () => {
    expect(
      (await q3('select s.session_id, count() from events e join sessions s on s.session_id = e.$session_id group by s.session_id order by 1')).results,
    ).toEqual([
      ['a', 3],
      ['b', 1],
      ['c', 2],
      ['d', 2],
      ['e', 2],
    ]);
    // The sessions table reads the project's events, not the query's own "events".
    expect((await q3('with events as (select 1 as x) select count() from sessions')).results).toEqual([[5]]);
  });

  it("keeps other projects' events out of the same session id (project 1)", async () => {
    const r = await db.query('select session_id, distinct_id, $pageview_count, $session_duration from sessions order by session_id');
    expect(r.results).toEqual([
      ['s1', 'user1', 2, 3600],
      ['s2', 'user2', 1, 3600],
    ]);
    const e = await db.query("select count() from events where session.$pageview_count = 2 and session.distinct_id = 'user1'");
    expect(e.results).toEqual([[2]]);
  });

  it.each([
    ['select session from events', "Can't select a table when a column is expected: session"],
    ['select session.project_id from events', 'Field not found: project_id'],
    ['select session.$session_duration.x from events', 'Cannot access "x" on session.$session_duration'],
    ['select project_id from sessions', 'Unable to resolve field: project_id'],
    ['select * from sessions s where s.team_id = 2', 'Field not found: team_id'],
  ])('refuses %s', async (text, message) => {
    const e = await db.query(text).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UserError);
    expect((e as UserError).message).toContain(message);
  });
});

describe('printed SQL of the lazy joins (DuckDB)', () => {
  const compile = (query: string) => compileProductQL({ query, projectId: 7, timezone: 'UTC', dialect: 'duckdb' });

  it('guards person_distinct_ids and the person behind it inside the events reference', async () => {
    const c = await compile('select pdi.distinct_id, pdi.person.properties.email from events');
    expect(c.sql).toBe(
      `SELECT "events"."__pdi_distinct_id" AS "distinct_id", json_extract_string("events"."__pdiperson_properties", $1) AS "email"` +
        ` FROM (SELECT "events".*, "__pdi"."distinct_id" AS "__pdi_distinct_id", "__pdiperson"."properties" AS "__pdiperson_properties" FROM "events" AS "events"` +
        ` LEFT JOIN (SELECT "__d".* FROM "person_distinct_ids" AS "__d" WHERE "__d"."project_id" = $2) AS "__pdi" ON "__pdi"."distinct_id" = "events"."distinct_id"` +
        ` LEFT JOIN (SELECT "__pp".* FROM "persons" AS "__pp" WHERE "__pp"."project_id" = $2) AS "__pdiperson" ON "__pdiperson"."id" = "__pdi"."person_id"` +
        ` WHERE "events"."project_id" = $2) AS "events" LIMIT 101`,
    );
    expect(c.params).toEqual(['/email', 7]);
  });

  it('computes only the session fields a query reads', async () => {
    const c = await compile('select session.$session_duration from events');
    expect(c.sql).toContain('"$session_duration"');
    for (const other of ['$channel_type', '$entry_utm_source', '$urls', '$entry_current_url']) expect(c.sql).not.toContain(`"${other}"`);
    expect(c.sql.length).toBeLessThan(3000);
  });

  it('guards the events the session row is computed from', async () => {
    const c = await compile('select session.$session_duration from events');
    expect(c.sql).toContain(`LEFT JOIN (SELECT coalesce("events"."$session_id", $1) AS "session_id", `);
    expect(c.sql).toContain(`FROM (SELECT "events".* FROM "events" AS "events" WHERE "events"."project_id" = $`);
    expect(c.sql).toContain(`AS "__session" ON "__session"."session_id" = "events"."$session_id" WHERE "events"."project_id" = $`);
    expect(c.sql.match(/FROM "events" AS "events" WHERE "events"."project_id" = \$(\d+)/g)?.length).toBe(1);
    expect(c.params[Number(/"project_id" = \$(\d+)/.exec(c.sql)![1]) - 1]).toBe(7);
  });
});
