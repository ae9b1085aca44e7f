/**
 * Test support: the ProductQL test data set (src/productql/testing.ts: two projects with overlapping ids and
 * project-2 secrets) loaded into a ClickHouse database through the engine's own write path.
 */
import '../../productql/clickhouse';
import { compileProductQL, shapeResult, type CompileProductQLInput, type CompiledProductQL, type ShapedResult } from '../../productql/index';
import { EVENTS, OVERRIDES, P1A, PDIS, PERSONS, SECRET, groupUpserts } from '../../productql/testing';
import { ClickHouseEngine, type ClickHouseEngineOptions } from './clickhouse-engine';
import { startCluster, startSingle, type TestServer } from './test-server';

const utcMs = (s: string): number => Date.parse(s.replace(' ', 'T') + 'Z');

export interface ClickHouseTestDb {
  engine: ClickHouseEngine;
  run(sql: string): Promise<{ rows: unknown[][]; types: string[]; columns: string[] }>;
  query(text: string | CompileProductQLInput['query'], opts?: Partial<CompileProductQLInput>): Promise<ShapedResult & { compiled: CompiledProductQL }>;
  close(): Promise<void>;
}

export async function createClickHouseTestDb(options: ClickHouseEngineOptions): Promise<ClickHouseTestDb> {
  const engine = await ClickHouseEngine.open(options);
  await engine.writeBatch({
    events: EVENTS.map((e) => ({
      project_id: e.project,
      uuid: e.uuid,
      event: e.event,
      distinct_id: e.distinct_id,
      person_id: e.person_id,
      timestamp: utcMs(e.ts),
      properties: JSON.stringify(e.props),
      session_id: e.session ?? null,
      elements_chain: null,
      created_at: utcMs(e.ts),
    })),
    newPersons: PERSONS.map((p) => ({ project_id: p.project, id: p.id, created_at: utcMs(p.created), properties: p.props, is_identified: p.identified, version: 1 })),
    newDistinctIds: PDIS.map((p) => ({ project_id: p.project, distinct_id: p.distinct_id, person_id: p.person, version: 1 })),
    overrides: OVERRIDES.map((o) => ({ project_id: o.project, old_person_id: o.old, override_person_id: o.new, version: 1 })),
    groups: groupUpserts(),
  });
  const lit = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const t = Math.floor(utcMs('2024-04-01 10:00:00') / 1000);
  await engine.exec(
    `INSERT INTO query_log VALUES (1, 'q1', NULL, ${t}, 0, 'key:1', 'HogQLQuery', NULL, 'h1', '{"kind":"HogQLQuery"}', 12.5, 3, 100, 0, 'ok', NULL),` +
      ` (2, 'q2', NULL, ${t}, 0, ${lit(SECRET)}, ${lit(SECRET)}, ${lit(SECRET)}, 'h2', ${lit(JSON.stringify({ q: SECRET }))}, 1, 1, 1, 0, 'ok', NULL)`,
  );
  return {
    engine,
    run: (sql) => engine.query(sql, []),
    async query(text, opts = {}) {
      const compiled = await compileProductQL({ query: text, projectId: 1, timezone: 'Europe/Berlin', dialect: 'clickhouse', ...opts });
      const r = await engine.query(compiled.sql, compiled.params);
      return { ...shapeResult(r.rows, compiled, r.types), compiled };
    },
    close: () => engine.close(),
  };
}

/** A single node, or two shards with QUARRY_TEST_CLICKHOUSE_CLUSTER=1 (the parametrized suites' ClickHouse). */
export const startTestServer = (): Promise<TestServer> => (process.env.QUARRY_TEST_CLICKHOUSE_CLUSTER === '1' ? startCluster() : startSingle());

export interface ClickHouseForTests {
  engine: ClickHouseEngine;
  server: TestServer;
  close(): Promise<void>;
}

/**
 * A ClickHouse server (single node; two shards with QUARRY_TEST_CLICKHOUSE_CLUSTER=1) started for one test file,
 * with Quarry's schema in `database`. `close()` stops the server by PID and removes its temp dir.
 */
export async function openClickHouseForTests(database = 'quarry_test'): Promise<ClickHouseForTests> {
  const server = await startTestServer();
  try {
    const engine = await ClickHouseEngine.open({ url: server.url, nodeUrls: server.urls, cluster: server.cluster, database });
    return {
      engine,
      server,
      async close() {
        await engine.close();
        await server.stop();
      },
    };
  } catch (e) {
    await server.stop();
    throw e;
  }
}

/** Queries run on both engines (and on a cluster) with identical results required. [query, timezone, expected results (or undefined: only equality across engines)] */
export const PARITY_CASES: [string, string, unknown[][] | undefined][] = [
  ['select countIf(properties.missing is null) from events', 'Europe/Berlin', [[6]]],
  ['select countIf(properties.empty is null) from events', 'Europe/Berlin', [[5]]],
  ['select countIf(properties.nul is null) from events', 'Europe/Berlin', [[6]]],
  ["select countIf(properties.empty = '') from events", 'Europe/Berlin', [[1]]],
  ['select countIf(properties.$browser is not null) from events', 'Europe/Berlin', [[4]]],
  ["select countIf(properties.$browser = 'Chrome') from events", 'Europe/Berlin', [[2]]],
  ["select countIf(properties.$browser != 'Chrome') from events", 'Europe/Berlin', [[4]]],
  ["select countIf(not(properties.$browser = 'Chrome')) from events", 'Europe/Berlin', [[4]]],
  ["select countIf(properties.$browser not in ('Chrome', 'Safari')) from events", 'Europe/Berlin', [[3]]],
  ["select countIf(properties.$browser not like 'Chr%') from events", 'Europe/Berlin', [[4]]],
  ["select countIf(properties.$browser !~ '^C') from events", 'Europe/Berlin', [[4]]],
  ["select countIf(properties.$browser =~ '^C') from events", 'Europe/Berlin', [[2]]],
  ["select countIf(properties.$browser ilike 'chr%') from events", 'Europe/Berlin', [[2]]],
  ['select countIf(properties.price > 9) from events', 'Europe/Berlin', [[3]]],
  ['select countIf(properties.price = 10) from events', 'Europe/Berlin', [[1]]],
  ['select countIf(properties.price < 10) from events', 'Europe/Berlin', [[1]]],
  ['select countIf(properties.price >= 100) from events', 'Europe/Berlin', [[1]]],
  ['select countIf(properties.price between 9 and 11) from events', 'Europe/Berlin', [[2]]],
  ['select sum(properties.price) from events', 'Europe/Berlin', [[119.5]]],
  ["select countIf(properties.price = '10') from events", 'Europe/Berlin', [[1]]],
  [
    "select properties.price, properties.nested.a.b, properties['nested']['a']['b'], properties.nested, properties['a.b'], properties['x/y'], properties.`$browser` from events order by timestamp limit 2",
    'Europe/Berlin',
    [
      ['10', 'deep', 'deep', '{"a":{"b":"deep"}}', null, null, 'Chrome'],
      ['9.5', null, null, null, 'dotted', 'slashed', 'Safari'],
    ],
  ],
  [
    "select JSONExtractString(properties, 'missing'), JSONExtractFloat(properties, 'price'), JSONExtractString(properties, 'nested', 'a', 'b'), JSONHas(properties, 'nul'), JSONHas(properties, 'nope') from events order by timestamp limit 1",
    'Europe/Berlin',
    [['', 10, 'deep', 1, 0]],
  ],
  [
    'select toStartOfDay(timestamp) as d, count() from events group by d order by d',
    'Europe/Berlin',
    [
      ['2024-03-30T00:00:00+01:00', 1],
      ['2024-03-31T00:00:00+01:00', 2],
      ['2024-04-01T00:00:00+02:00', 3],
    ],
  ],
  ['select toStartOfDay(timestamp) as d, count() from events group by d order by d', 'UTC', undefined],
  [
    'select timestamp, toDate(timestamp), toStartOfHour(timestamp), toStartOfWeek(timestamp), toStartOfWeek(timestamp, 1), toStartOfMonth(timestamp), toHour(timestamp) from events order by timestamp',
    'Europe/Berlin',
    undefined,
  ],
  [
    "select toStartOfHour(toDateTime('2024-10-27T00:30:00Z')), toStartOfHour(toDateTime('2024-10-27T01:30:00Z'))",
    'Europe/Berlin',
    [['2024-10-27T02:00:00+02:00', '2024-10-27T02:00:00+01:00']],
  ],
  ["select count() from events where timestamp >= '2024-03-31'", 'Europe/Berlin', [[5]]],
  ["select count() from events where timestamp >= '2024-03-31'", 'UTC', [[4]]],
  ["select count() from events where timestamp >= toDateTime('2024-03-31T00:00:00Z')", 'Europe/Berlin', [[4]]],
  [
    "select toDateTime('2024-03-30 12:00:00') + interval 1 day, toDateTime('2024-03-30 12:00:00') + interval 24 hour, dateAdd('day', 1, toDateTime('2024-03-30 12:00:00')), dateDiff('day', toDateTime('2024-03-30 23:30:00'), toDateTime('2024-03-31 00:30:00')), dateDiff('hour', toDateTime('2024-03-31 00:00:00'), toDateTime('2024-03-31 12:00:00'))",
    'Europe/Berlin',
    [['2024-03-31T12:00:00+02:00', '2024-03-31T13:00:00+02:00', '2024-03-31T12:00:00+02:00', 1, 11]],
  ],
  [
    "select toStartOfDay(toDateTime('2024-03-10T12:00:00Z')), toStartOfHour(toDateTime('2024-03-10T12:40:00Z'))",
    'Asia/Kolkata',
    [['2024-03-10T00:00:00+05:30', '2024-03-10T18:00:00+05:30']],
  ],
  [
    "select toStartOfDay(timestamp) as day, properties.$browser as browser, count() as c from events where event = '$pageview' group by day, browser order by day, browser",
    'Europe/Berlin',
    undefined,
  ],
  [
    'select person.properties.plan as plan, count() as c, uniq(person_id) from events group by plan order by plan nulls last',
    'Europe/Berlin',
    [
      ['free', 2, 1],
      ['pro', 3, 1],
      [null, 1, 0],
    ],
  ],
  [`select count() from events where person_id = '${P1A}'`, 'Europe/Berlin', [[3]]],
  [
    'select p.properties.email, count() from events e inner join persons p on p.id = e.person_id group by p.properties.email order by 1',
    'Europe/Berlin',
    [
      ['a@p1.com', 3],
      ['b@p1.com', 2],
    ],
  ],
  ['select pdi.distinct_id, pdi.person.properties.email, pdi.person_id from person_distinct_ids pdi order by 1', 'Europe/Berlin', undefined],
  ["with pv as (select distinct_id from events where event = '$pageview') select count(distinct distinct_id) from pv", 'Europe/Berlin', [[4]]],
  ['select count() from (select distinct_id, count() as c from events group by distinct_id) where c > 1', 'Europe/Berlin', [[2]]],
  ["select count() from events where distinct_id in (select distinct_id from events where event = 'signup')", 'Europe/Berlin', [[2]]],
  ['select distinct_id, count() as c from events group by distinct_id having c > 1 order by distinct_id', 'Europe/Berlin', undefined],
  ["select event from events where event = 'signup' union all select 'x' as event", 'Europe/Berlin', [['signup'], ['x']]],
  [
    "select arrayMap(x -> x * 2, [1, 2, 3]), arrayFilter(x -> x > 1, [1, 2, 3]), has(['a', 'b'], 'a'), splitByChar(',', 'a,b'), if(1 > 2, 'y', 'n'), multiIf(1 > 2, 'a', 2 > 1, 'b', 'c'), case when 1 = 1 then 'one' else 'other' end, concat('a', 'b'), lower('AB'), length('abc'), coalesce(NULL, 'z'), ifNull(properties.missing, 'd'), round(1.2345, 2) from events limit 1",
    'Europe/Berlin',
    [[[2, 4, 6], [2, 3], 1, ['a', 'b'], 'n', 'b', 'one', 'ab', 'ab', 3, 'z', 'd', 1.23]],
  ],
  ["select quantile(0.5)(properties.price), median(properties.price) from events where event = '$pageview'", 'Europe/Berlin', [[10, 10]]],
  ['select id, kind, query.kind, duration_ms, is_cached from query_log', 'Europe/Berlin', [['q1', 'HogQLQuery', 'HogQLQuery', 12.5, 0]]],
  ['select event, distinct_id from events order by timestamp desc, distinct_id limit 3', 'Europe/Berlin', undefined],
  ['select * from events order by timestamp', 'Europe/Berlin', undefined],
  ['select * from persons order by created_at', 'Europe/Berlin', undefined],
  // Positional GROUP BY / ORDER BY (ClickHouse 18.16 would group by the constant: printed as the expression).
  ['select event, count() from events group by 1 order by 2 desc, 1', 'Europe/Berlin', [['$pageview', 5], ['signup', 1]]],
  ['select e.event, p.properties.plan from events e left join persons p on e.person_id = p.id order by e.timestamp', 'Europe/Berlin', undefined],
  ['select toUnixTimestamp(timestamp), toYear(timestamp), toDayOfWeek(timestamp) from events order by timestamp', 'Europe/Berlin', undefined],
];

