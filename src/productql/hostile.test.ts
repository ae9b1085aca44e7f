/**
 * Hostile ProductQL corpus, run against a real DuckDB holding two projects with overlapping distinct ids and
 * person UUIDs. Every query must either be rejected with a 400 UserError or run and return nothing of project 2.
 */
import { UserError } from '../errors';
import { compileProductQL, setParseTimeout, shutdownParser } from './index';
import { createTestDb, P2X, SECRET, type TestDb } from './testing';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
  setParseTimeout(1000);
});
afterAll(async () => {
  db.close();
  setParseTimeout(3000);
  await shutdownParser();
});

const deep = (n: number, open: string, inner: string, close: string): string => open.repeat(n) + inner + close.repeat(n);
const nestedSubqueries = (n: number): string => {
  let q = 'SELECT properties FROM events';
  for (let i = 0; i < n; i++) q = `SELECT properties FROM (${q})`;
  return q;
};

/** Things that must never run: not a SELECT, a second statement, engine features outside ProductQL. */
const MUST_REJECT: string[] = [
  'select event from events; select * from persons',
  'select 1; drop table events',
  'drop table events',
  'insert into events values (1)',
  'delete from events',
  'update events set event = 1',
  'create table x (a int)',
  "attach 'x.db' as y",
  "copy events to '/tmp/x.csv'",
  'pragma database_list',
  'install httpfs',
  'load httpfs',
  'set threads = 1',
  'checkpoint',
  'explain select 1',
  'describe events',
  'show tables',
  "select * from read_csv('/etc/passwd')",
  "select * from read_csv_auto('/etc/passwd')",
  "select * from read_parquet('x.parquet')",
  "select * from read_json_auto('x.json')",
  "select * from glob('*')",
  "select * from read_text('/etc/passwd')",
  "select * from 'data.csv'",
  'select * from duckdb_tables()',
  'select * from duckdb_settings()',
  'select * from duckdb_databases',
  'select * from information_schema.tables',
  'select * from information_schema.columns',
  'select * from system.tables',
  'select * from pg_catalog.pg_tables',
  'select * from sqlite_master',
  'select * from main.events',
  'select * from memory.main.events',
  'select * from person_overrides',
  'select * from ingest_checkpoint',
  'select * from `person_overrides`',
  'select * from events(1)',
  "select current_setting('threads')",
  "select getenv('HOME')",
  "select read_text('/etc/passwd')",
  'select duckdb_extensions()',
  'select version()',
  'select sleep(10)',
  'select range(1000000000)',
  'select currval(1)',
  "select nextval('x')",
  'select project_id from events',
  'select team_id from events',
  'select e.project_id from events e',
  'select `project_id` from events',
  'select person.project_id from events',
  'select person.version from events',
  'select p.version from persons p',
  'select events.__person_id from events',
  'select __person_properties from events',
  'select * from events as __override',
  'select 1 from events e join persons __p on 1 = 1',
  'with __cte_x_1 as (select 1) select * from __cte_x_1',
  'select x from (select 1 as x) as `__set`',
  'select * from events where true or project_id = 2',
  'select {filters}',
  'select {variables.missing}',
  "select dateDiff('day; drop table events', timestamp, now()) from events",
  "select toTimeZone(timestamp, 'Europe/Berlin\\'; drop table events') from events",
  "select toTimeZone(timestamp, 'Not/AZone') from events",
  'select event from events where person_id in cohort 5',
  'select count() from events limit -1',
  "select 'x\\u0041'",
  'select `ev\\`ent` from events',
  deep(300, '(', '1', ')'),
  'select ' + deep(400, 'not(', '1', ')'),
  'select ' + Array.from({ length: 3000 }, () => '1').join(' + '),
  nestedSubqueries(300),
  'select 1 as x from events e where e.x.y.z = 1',
  // Parser-cost bombs: refused by the worker's time limit (or a crash), never hanging the event loop.
  'select ' + 'not '.repeat(300) + '1',
  'select ' + Array(400).fill('a').join('.'),
  'select ' + 'x -> '.repeat(100) + '1',
  'select ' + 'f('.repeat(16) + '1' + ')'.repeat(16),
  'select person from events',
  // Object.prototype names must not resolve as functions, units, tables or fields.
  'select constructor(1)',
  'select __proto__(1)',
  'select hasOwnProperty(event) from events',
  "select dateDiff('constructor', timestamp, now()) from events",
  "select dateAdd('toString', 1, timestamp) from events",
  'select * from constructor',
  'select * from __proto__',
  'select toString from events',
  'select constructor from events',
  'select person.constructor from events',
  'select {variables.constructor}',
  'select {variables.__proto__}',
  'select properties.$browser from events e1 join events e2 on 1 = 1',
  'select pdi from events',
  'select pdi.version from events',
  'select pdi.person.version from events',
  'select pdi.person.id from persons',
  'select pdi.project_id from persons',
  'select poe.version from events',
  'select e.pdi.__person_id from events e',
  'select r.project_id from raw_persons r',
  'select * from raw_person_overrides',
  'select session from events',
  'select session.project_id from events',
  'select project_id from sessions',
  'select s.team_id from sessions s',
  // groups: the project id is on no table; the lazy joins only reach groups columns.
  'select team_id from groups',
  'select g.project_id from groups g',
  'select group_0 from events',
  'select group_0.project_id from events',
  'select group_0.__group0_properties from events',
  'select e.__group0_properties from events e',
];

/** Legitimate (or at least syntactically fine) SELECTs: may run, but must never see project 2. */
const MAY_RUN: string[] = [
  'select event from events order by timestamp limit 1 by distinct_id',
  'select * from events',
  "select properties from events where properties.marker = 'P2_SECRET'",
  'select * from events e1 join events e2 on e1.distinct_id = e2.distinct_id',
  'select e2.properties from events e1 left join events e2 on 1 = 1',
  'select e2.properties, e2.event from events e1 right join events e2 on 1 = 0',
  'select e2.properties, e1.event from events e1 full outer join events e2 on 0 = 1',
  'select * from events e1 cross join persons p',
  'select p.properties from persons p',
  'select p.properties from events e join persons p on p.id = e.person_id',
  'select p.properties from events e right join persons p on p.id = e.person_id',
  'select person.properties from events',
  'select person.properties.email, person.created_at from events',
  'select pdi.distinct_id, pdi.person.properties from person_distinct_ids pdi',
  'select * from person_distinct_ids',
  'select * from query_log',
  "select q.query.q, count() from query_log q join events e on 1 = 1 group by 1",
  'select * from (select * from events) sub',
  'select x.properties from (select properties from events) x',
  'with e as (select * from events) select * from e',
  'with e as (select * from events), f as (select * from e) select * from f',
  'with events as (select 2 as project_id) select * from events',
  'with persons as (select * from events) select p.properties from persons p',
  'select event from events union all select event from events',
  'select properties from events union distinct select properties from persons',
  'select distinct_id from events intersect select distinct_id from person_distinct_ids',
  'select distinct_id from events except select distinct_id from events',
  'select properties from events union all select properties from persons union all select toString(person_id) from person_distinct_ids',
  'select (select properties from events order by timestamp desc limit 1)',
  'select event from events where distinct_id in (select distinct_id from person_distinct_ids)',
  'select event, (select count() from events e2 where e2.distinct_id = e.distinct_id) from events e',
  'select count() from events where 1 = 1 or 1 = 1',
  "select * from events where event = 'x' or 1 = 1",
  'select groupArray(properties) from events',
  'select arrayJoin(groupArray(properties.marker)) from events',
  // range() is HogQL's array function (posthog/hogql/functions/mapping.py "range", 1 to 3 arguments), never DuckDB's
  // range table function; range(1000000000) above is refused by its size bound.
  'select arrayMap(x -> x, range(10))',
  // ARRAY JOIN, numbers() and SAMPLE are HogQL (reference §10): they run, guarded like every other table reference.
  'select * from numbers(10)',
  'select n.number, e.properties from numbers(3) n cross join events e',
  'select * from events sample 0.1',
  'select * from events sample 1/2 offset 1/2',
  'select * from events array join [1] as a',
  'select a from events array join [properties, person.properties] as a',
  'select a from events left array join (select groupArray(properties.marker) from events) as a',
  'select a from numbers(1) array join (select groupArray(toString(properties)) from events) as a',
  // JOIN ... USING is HogQL's grammar: printed as ON equalities between guarded references.
  'select * from events e1 join events e2 using (event)',
  'select e2.properties from events e1 left join events e2 using (distinct_id)',
  'select * from events as `events"; drop table x; --`',
  "select event from events as e where e.distinct_id = 'user1' -- comment",
  'select event /* comment */ from events',
  'select event from events -- ; select * from persons',
  'select * from `events`',
  'select * from "events"',
  'select properties.`project_id` from events',
  'select event as `x" FROM persons --` from events',
  "select event from events where event = 'a'' or 1=1 --'",
  "select event from events where event = 'a\\' or 1=1 --'",
  "select 'a\\0b', '\\x41'",
  "select event from events where event = '$pageview\\0'",
  "select 'ü𝄞' as `ü𝄞`",
  'select properties.`$browser"); DROP TABLE events; --` from events',
  "select properties['\\'); drop table events; --'] from events",
  "select properties[concat('mar', 'ker')] from events",
  'select 99999999999999999999999999999999',
  'select 1e308 * 10',
  'select -9223372036854775808',
  `select '${'a'.repeat(100_000)}' as big`,
  `select count() from events where event in (${Array.from({ length: 3000 }, (_, i) => `'e${i}'`).join(', ')})`,
  'select count() from events limit 99999999999999999999',
  'select count() from events limit 10 offset 100000000000000000000',
  deep(60, '(', '1', ')'),
  nestedSubqueries(20),
  'select ' + '1 ? '.repeat(100) + '1' + ' : 1'.repeat(100),
  "select match(event, '(a+)+$') from events",
  "select event from events where event =~ '(.*)*(.*)*(.*)*x'",
  "select event from events where event !~* '^(a|aa)+$'",
  "select replaceRegexpAll(event, '(a|aa)+', 'x') from events",
  "select count() from events where properties.marker like '%SECRET%'",
  "select count() from events where properties.marker ilike '%p2%'",
  'select count() from events e1, events e2',
  'select * from events final',
  "select * from events prewhere event = '$pageview'",
  'select person.properties from events where person.id is not null',
  'select e.person.properties.marker from events e',
  'select p.person.properties from person_distinct_ids p',
  'select count() over () from events',
  'select sum(properties.price) over (order by timestamp rows between unbounded preceding and current row) from events',
  'select lagInFrame(properties, 1) over (order by timestamp) from events',
  'select argMax(properties, timestamp) from events',
  'select any(properties) from events',
  "select JSONExtractString(properties, 'marker') from events",
  'select JSONExtractRaw(properties) from events',
  'select concat(event, properties.marker) from events',
  'select toString(properties) from events',
  "select * from events where distinct_id = 'P2_SECRET'",
  "select event from events where event = 'P2_SECRET'",
  `select count() from events e where e.person_id = '${P2X}'`,
  'select distinct person_id from events',
  `select p.id, p.properties from persons p where p.id = '${P2X}'`,
  'select p.id from persons p where id in (select person_id from events)',
  'select * from events where uuid in (select uuid from events)',
  'select e.*, p.* from events e left join persons p on e.person_id = p.id',
  'select now(), today()',
  "select toDateTime('2024-01-01 00:00:00')",
  'select toStartOfWeek(timestamp, 1) from events',
  'select if(1 = 1, properties, properties) from events',
  "select multiIf(1 = 1, 'a', 'b')",
  "select lower(upper('x'))",
  "select splitByChar(',', event) from events",
  "select has(['a'], event) from events",
  "select arrayFilter(x -> x like '%', ['a', 'b'])",
  "select count() from events where event like '%'",
  "select toInt('123'), toFloat('1.5'), round(1.234, 2)",
  'select quantile(0.5)(properties.price) from events',
  'select quantiles(0.1, 0.9)(properties.price) from events',
  'select uniq(distinct_id), uniqExact(person_id) from events',
  'select toString(timestamp), toString(event), toString(properties.marker) from events',
  'select event from events where event = {variables.x} or {variables.n} = 5',
  'select event from events where event = {variables.x}',
  'select count() from events limit {variables.n}',
  'select person.properties.marker, count() from events group by 1 order by 2 desc',
  "select events.person.properties.plan from events where events.person.properties.plan = 'P2_SECRET'",
  'select p.distinct_id from person_distinct_ids p where p.person.properties.marker is not null',
  // Lazy joins on events: pdi (and its person) and poe, keyed by ids project 2 shares.
  'select event, pdi.distinct_id, pdi.person_id, pdi.person.properties, pdi.person.id from events',
  "select pdi.person.properties.marker, count() from events where pdi.person.properties.email != 'x' group by 1",
  'select e.pdi.person.properties.marker, e.poe.properties.marker, poe.id, poe.created_at from events e',
  'select poe.properties, count() from events group by poe.properties',
  'select e1.pdi.person.properties from events e1 join events e2 on e1.uuid = e2.uuid',
  'select x.m from (select pdi.person.properties.marker as m from events) x',
  // persons.pdi: project 2 maps its distinct ids to project 1's person ids.
  'select id, properties, pdi.distinct_id, pdi.person_id from persons',
  "select p.properties.marker from persons p where p.pdi.distinct_id != 'x'",
  // raw_persons / raw_person_distinct_ids: the same guarded rows as persons / person_distinct_ids.
  'select * from raw_persons',
  'select * from raw_person_distinct_ids',
  'select r.person.properties, r.version, r.is_deleted from raw_person_distinct_ids r',
  'select id, argMax(properties, version) from raw_persons group by id having argMax(is_deleted, version) = 0',
  'select e.event, r.properties.marker from events e join raw_persons r on r.id = e.person_id',
  // sessions (aggregated from the project's events) and events.session: project 2 writes into session id s1 too.
  'select * from sessions',
  'select session.session_id, session.distinct_id, session.$entry_current_url, session.$pageview_count from events',
  'select s.* from events e join sessions s on s.session_id = e.$session_id',
  "with events as (select 2 as project_id, 'x' as `$session_id`) select * from sessions",
  'select session_id, distinct_id from sessions where session_id in (select $session_id from events)',
  'select session.$session_duration, pdi.person.properties, poe.properties, person.properties from events',
  'select x.d from (select session.distinct_id as d from events) x',
  'select distinct_id, count() from sessions group by distinct_id',
  // groups and events.group_N: project 2 has groups of the same types and keys, and one keyed '' (the $group_N of
  // every event without that group).
  'select * from groups',
  'select g.properties.marker, g.key from groups g where g.key in (select $group_0 from events)',
  "select group_0.properties, group_1.properties, group_0.key, $group_0 from events where group_0.properties.marker = 'P2_SECRET' or 1 = 1",
  'select group_0.properties.marker, count() from events group by 1',
  'select e.$group_0, g.properties from events e left join groups g on g.key = e.$group_0',
  'select e1.group_0.properties from events e1 join events e2 on e1.uuid = e2.uuid',
  'select x.m from (select group_0.properties.marker as m from events) x',
  "with groups as (select 2 as project_id, '' as key) select * from groups",
  'select session.session_id, pdi.person.properties, group_0.properties, group_4.properties from events',
];

// ("'\\'" is the SQL literal '\' : LIKE's ESCAPE character on DuckDB, where ClickHouse escapes with a backslash by default.)
const internalLiterals = new Set(["'UTC'", "''", "'VARCHAR'", "'/'", "'~'", "'~0'", "'~1'", "'$'", "'g'", "'i'", "'\\'", "'%Y-%m-%d %H:%M:%S'", "'%Y-%m-%d %H:%M:%S.%f'", "'%Y-%m-%d'", ...['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'].map((u) => `'${u}'`)]);

function assertGuarded(sql: string, params: unknown[]): void {
  const refs = [...sql.matchAll(/FROM "(events|persons|person_distinct_ids|person_overrides|query_log|groups)" AS "((?:[^"]|"")*)"/g)];
  if (refs.length) expect(params).toContain(1);
  const guard = `$${params.indexOf(1) + 1}`;
  for (const m of refs) {
    // The guard closes the same parenthesised reference.
    expect(sql.slice(m.index)).toContain(`WHERE "${m[2]}"."project_id" = ${guard}`);
  }
  // Outside quoted identifiers, no engine table is used as a relation except through a guarded reference,
  // and the only string literals are the printer's own fixed ones: everything from the query is bound.
  const bare = sql.replace(/"(?:[^"]|"")*"/g, (m) =>
    /^"(events|persons|person_distinct_ids|person_overrides|query_log|ingest_checkpoint|groups|group_type_mapping)"$/.test(m) ? m : '"_"',
  );
  const relations = bare.match(/(FROM|JOIN) "(events|persons|person_distinct_ids|person_overrides|query_log|ingest_checkpoint|groups|group_type_mapping)"/g) ?? [];
  expect(relations.length).toBe(refs.length);
  for (const lit of bare.match(/'(?:[^']|'')*'/g) ?? []) expect(internalLiterals.has(lit)).toBe(true);
}

async function attempt(text: string): Promise<{ error?: unknown; json?: string; sql?: string }> {
  try {
    const compiled = await compileProductQL({
      query: text,
      projectId: 1,
      timezone: 'Europe/Berlin',
      dialect: 'duckdb',
      variables: { x: "' OR 1=1; DROP TABLE events; --", n: 5 },
    });
    assertGuarded(compiled.sql, compiled.params);
    const r = await db.run(compiled.sql, compiled.params);
    return { json: JSON.stringify(r.rows, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)), sql: compiled.sql };
  } catch (e) {
    return { error: e };
  }
}

describe('hostile corpus', () => {
  it('has at least 100 queries', () => {
    expect(MUST_REJECT.length + MAY_RUN.length).toBeGreaterThanOrEqual(100);
  });

  it.each(MUST_REJECT.map((q) => [q.length > 120 ? q.slice(0, 117) + '...' : q, q]))('rejects %s', async (_label, text) => {
    const r = await attempt(text);
    expect(r.error).toBeInstanceOf(UserError);
    expect((r.error as UserError).status).toBe(400);
  });

  it.each(MAY_RUN.map((q) => [q.length > 120 ? q.slice(0, 117) + '...' : q, q]))('contains %s', async (_label, text) => {
    const r = await attempt(text);
    if (r.error) {
      // A refusal is fine; an engine failure is not (it would be a 500 for the caller).
      if (!(r.error instanceof UserError)) throw r.error;
      expect(r.error.status).toBe(400);
      return;
    }
    expect(r.json).not.toContain(SECRET);
    expect(r.json).not.toContain(P2X);
  });

  it('never lets a variable change the query shape', async () => {
    const evil = "x' OR '1'='1";
    const c = await compileProductQL({
      query: 'select count() from events where event = {variables.v}',
      projectId: 1,
      timezone: 'UTC',
      dialect: 'duckdb',
      variables: { v: evil },
    });
    expect(c.params).toContain(evil);
    expect(c.sql).not.toContain('OR');
    const r = await db.run(c.sql, c.params);
    expect(Number(r.rows[0][0])).toBe(0);
    // A list binds each item as its own value: an item can no more change the query than a scalar can.
    const list = await compileProductQL({
      query: 'select count() from events where event in {variables.v}',
      projectId: 1,
      timezone: 'UTC',
      dialect: 'duckdb',
      variables: { v: [evil, 'b'] },
    });
    expect([list.params, list.sql.includes('OR')]).toEqual([expect.arrayContaining([evil, 'b']), false]);
    expect(Number((await db.run(list.sql, list.params)).rows[0][0])).toBe(0);
    for (const v of [{ sql: 'x' }, [[1]], [{ a: 1 }]]) {
      await expect(
        compileProductQL({ query: 'select {variables.v}', projectId: 1, timezone: 'UTC', dialect: 'duckdb', variables: { v } }),
      ).rejects.toMatchObject({ status: 400, code: 'productql_invalid_variable' });
    }
  });
});
