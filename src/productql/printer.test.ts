/** Exact printed SQL, limits, variables, errors with spans, and AST builders. */
import { UserError } from '../errors';
import { alias, and, call, compare, constant, cte, eq, field, joinExpr, joins, order, select, unionAll } from './ast';
import { CLICKHOUSE_ONLY_FUNCTIONS, FUNCTIONS } from './functions';
import { compileProductQL, parseProductQLExpr, setParseTimeout, shapeResult, shutdownParser, type CompileProductQLInput } from './index';
import { bracketDepth } from './parser';
import './clickhouse'; // registers the ClickHouse printer
import { createTestDb, type TestDb } from './testing';

const compile = (query: CompileProductQLInput['query'], opts: Partial<CompileProductQLInput> = {}) =>
  compileProductQL({ query, projectId: 7, timezone: 'UTC', dialect: 'duckdb', ...opts });

afterAll(() => shutdownParser());

const EV = (a = 'events') => `(SELECT "${a}".* FROM "events" AS "${a}" WHERE "${a}"."project_id" = $1) AS "${a}"`;

describe('exact printed SQL', () => {
  it.each([
    ['select count() from events', `SELECT count(*) AS "count()" FROM ${EV()} LIMIT 101`, [7]],
    [
      "select event from events where event = '$pageview'",
      `SELECT "events"."event" AS "event" FROM ${EV()} WHERE ("events"."event" = $2) LIMIT 101`,
      [7, '$pageview'],
    ],
    [
      "select properties.$browser as b, count() from events e where e.properties.price > 10 group by b",
      `SELECT json_extract_string("e"."properties", $1) AS "b", count(*) AS "count()" FROM (SELECT "e".* FROM "events" AS "e" WHERE "e"."project_id" = $2) AS "e" WHERE (TRY_CAST(json_extract_string("e"."properties", $3) AS DOUBLE) > $4) GROUP BY json_extract_string("e"."properties", $1) LIMIT 101`,
      ['/$browser', 7, '/price', 10],
    ],
    [
      "select properties.plan != 'pro', properties.plan = NULL from events",
      `SELECT coalesce(json_extract_string("events"."properties", $1) <> $2, true) AS "notEquals(properties.plan, 'pro')", (json_extract_string("events"."properties", $1) IS NULL) AS "equals(properties.plan, NULL)" FROM (SELECT "events".* FROM "events" AS "events" WHERE "events"."project_id" = $3) AS "events" LIMIT 101`,
      ['/plan', 'pro', 7],
    ],
    [
      'select p.id from events e left join persons p on p.id = e.person_id',
      `SELECT "p"."id" AS "id" FROM (SELECT "e".*, coalesce("__override"."override_person_id", "e"."person_id") AS "__person_id" FROM "events" AS "e" LEFT JOIN (SELECT "__o".* FROM "person_overrides" AS "__o" WHERE "__o"."project_id" = $1) AS "__override" ON "__override"."old_person_id" = "e"."person_id" WHERE "e"."project_id" = $1) AS "e" LEFT JOIN (SELECT "p".* FROM "persons" AS "p" WHERE "p"."project_id" = $1) AS "p" ON ("p"."id" = "e"."__person_id") LIMIT 101`,
      [7],
    ],
    [
      'select distinct_id from events union all select distinct_id from person_distinct_ids',
      `SELECT * FROM ((SELECT "events"."distinct_id" AS "distinct_id" FROM ${EV()} LIMIT 100) UNION ALL (SELECT "person_distinct_ids"."distinct_id" AS "distinct_id" FROM (SELECT "person_distinct_ids".* FROM "person_distinct_ids" AS "person_distinct_ids" WHERE "person_distinct_ids"."project_id" = $1) AS "person_distinct_ids" LIMIT 100)) AS "__set" LIMIT 201`,
      [7],
    ],
    [
      'with x as (select event from events) select event from x limit 5',
      `WITH "__cte_x_1" AS (SELECT "events"."event" AS "event" FROM ${EV()}) SELECT "x"."event" AS "event" FROM "__cte_x_1" AS "x" LIMIT 6`,
      [7],
    ],
    [
      "select event from events where event in ('a', 'b') and timestamp >= '2024-01-01'",
      `SELECT "events"."event" AS "event" FROM ${EV()} WHERE (("events"."event" IN ($2, $3)) AND ("events"."timestamp" >= CAST($4 AS TIMESTAMP))) LIMIT 101`,
      [7, 'a', 'b', '2024-01-01'],
    ],
  ])('%s', async (text, sql, params) => {
    const c = await compile(text);
    expect(c.sql).toBe(sql);
    expect(c.params).toEqual(params);
  });

  it('a project without person overrides reads the stored person_id: no overrides join (DuckDB and ClickHouse)', async () => {
    const text = 'select person_id, person.properties.email from events';
    const duck = await compile(text, { personOverrides: false });
    expect(duck.sql).toBe(
      `SELECT "events"."__person_id" AS "person_id", json_extract_string("events"."__person_properties", $1) AS "email" FROM (SELECT "events".*, "events"."person_id" AS "__person_id", "__person"."properties" AS "__person_properties" FROM "events" AS "events" LEFT JOIN (SELECT "__p".* FROM "persons" AS "__p" WHERE "__p"."project_id" = $2) AS "__person" ON "__person"."id" = "events"."person_id" WHERE "events"."project_id" = $2) AS "events" LIMIT 101`,
    );
    expect((await compile(text)).sql).toContain('person_overrides');
    const ch = await compile(text, { personOverrides: false, dialect: 'clickhouse' });
    expect(ch.sql).not.toContain('person_overrides');
    expect(ch.sql).toContain('person_id` AS `__person_id`');
    expect((await compile(text, { dialect: 'clickhouse' })).sql).toContain('person_overrides');
  });

  it('binds equal values once and numbers placeholders by first use', async () => {
    const c = await compile("select 'x', 'x', 1 from events where event = 'x'");
    expect(c.sql.match(/\$\d+/g)).toEqual(['$1', '$1', '$2', '$3', '$1']);
    expect(c.params).toEqual(['x', 1, 7]);
  });

  it('prints the normalized ProductQL text with the effective limit', async () => {
    const c = await compile('select   event ,count( )  from events group by event');
    expect(c.hogql).toBe('SELECT event, count() FROM events GROUP BY event LIMIT 100');
    expect(c.columnNames).toEqual(['event', 'count()']);
  });
});

describe('limits', () => {
  it.each([
    ['select event from events', {}, 100, 101, 0, true],
    ['select event from events limit 3', {}, 3, 4, 0, false],
    ['select event from events limit 100000', {}, 50000, 50001, 0, false],
    ['select event from events limit 10 offset 20', {}, 10, 11, 20, false],
    ['select event from events', { limit: 2, offset: 1 }, 2, 3, 1, false],
    ['select event from events', { limit: 60000 }, 50000, 50001, 0, false],
  ] as const)('%s %j', async (text, opts, limit, fetchLimit, offset, defaulted) => {
    const c = await compile(text, opts);
    expect([c.limit, c.fetchLimit, c.offset, c.limitDefaulted]).toEqual([limit, fetchLimit, offset, defaulted]);
    expect(c.sql.endsWith(`LIMIT ${fetchLimit}${offset ? ` OFFSET ${offset}` : ''}`)).toBe(true);
  });

  it('without a LIMIT of its own, a set query gets the default LIMIT on each SELECT, each clamped (test_query.py test_hogql_union_all_limits)', async () => {
    // the LIMIT is the second SELECT's; the whole is capped at 50,000 rows
    const c = await compile('select 1 union all select 2 limit 70000');
    expect(c.sql).toMatch(/LIMIT 100\) UNION ALL \(SELECT \$2 AS "2" LIMIT 50000\)\) AS "__set" LIMIT 50001$/);
    expect(c.limitDefaulted).toBe(false);
  });

  it('shapes hasMore from the extra row', () => {
    const compiled = { columns: [{ name: 'x', type: 'int' as const, nullable: false }], limit: 2, offset: 0, timezone: 'UTC' };
    expect(shapeResult([[1], [2], [3]], compiled)).toMatchObject({ results: [[1], [2]], hasMore: true, limit: 2, offset: 0 });
    expect(shapeResult([[1n], [2]], compiled)).toMatchObject({ results: [[1], [2]], hasMore: false });
  });
});

describe('errors', () => {
  const fails = async (text: string, opts: Partial<CompileProductQLInput> = {}) => {
    try {
      await compile(text, opts);
    } catch (e) {
      expect(e).toBeInstanceOf(UserError);
      return e as UserError;
    }
    throw new Error('expected an error');
  };

  it.each([
    ['select * from foo', 'hogql_query_error', 14, 17, /Unknown table "foo"/],
    ['select foo from events', 'hogql_query_error', 7, 10, /^Unable to resolve field: foo$/],
    // PostHog's texts (posthog/hogql/printer.py visit_call, posthog/hogql/functions/core.py validate_function_args)
    ['select foo(1) from events', 'hogql_query_error', 7, 13, /Unsupported function call 'foo\(\.\.\.\)'/],
    ['select count(1, 2) from events', 'hogql_query_error', 7, 18, /Aggregation 'count' expects at most 1 argument, found 2/],
    // posthog/hogql/functions/mapping.py: "toStartOfDay": HogQLFunctionMeta("toStartOfDay", 1, 2) (value, timezone)
    ['select toStartOfDay() from events', 'hogql_query_error', 7, 21, /Function 'toStartOfDay' expects at least 1 argument, found 0/],
    ['select person.nope from events', 'hogql_query_error', 7, 18, /^Field not found: nope$/],
    ['select event from events where', 'hogql_syntax_error', 30, 30, /^no viable alternative at input 'select event from events where'$/],
    ['select {variables.plan}', 'productql_missing_variable', 7, 23, /^Variable plan is missing from query$/],
    ['select properties from events e join persons p on 1 = 1', 'hogql_query_error', 7, 17, /^Ambiguous query. Found multiple sources for field: properties/],
    ['select row_number() from events', 'hogql_query_error', 7, 19, /needs an OVER clause/],
  ])('%s', async (text, code, start, end, message) => {
    const e = await fails(text);
    expect(e.status).toBe(400);
    expect(e.code).toBe(code);
    expect(e.message).toMatch(message);
    expect(e.span).toEqual({ start, end });
  });

  it('rejects an unknown timezone', async () => {
    const e = await fails('select 1', { timezone: 'Mars/Olympus' });
    expect(e.code).toBe('invalid_timezone');
  });

  it('refuses deep bracket nesting before parsing', async () => {
    expect(bracketDepth("select ((1)), '((((' -- ((((\n")).toBe(2);
    const e = await fails('select ' + '('.repeat(20) + '1' + ')'.repeat(20));
    expect(e.code).toBe('productql_too_complex');
  });
});

describe('parser isolation', () => {
  it('a parser-cost bomb neither blocks the event loop nor breaks later parses', async () => {
    setParseTimeout(500);
    try {
      let ticks = 0;
      const timer = setInterval(() => ticks++, 20);
      const bomb = compile('select ' + 'not '.repeat(400) + '1').catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 300));
      const e = await bomb;
      clearInterval(timer);
      expect(ticks).toBeGreaterThan(3);
      expect(e).toBeInstanceOf(UserError);
      expect((await compile('select count() from events')).sql).toContain('count(*)');
    } finally {
      setParseTimeout(3000);
    }
  });

  it('shapes engine-provided ISO strings in the project timezone', () => {
    const compiled = {
      columns: [
        { name: 't', type: 'datetime' as const, nullable: false },
        { name: 'd', type: 'date' as const, nullable: false },
      ],
      limit: 10,
      offset: 0,
      timezone: 'America/New_York',
    };
    expect(shapeResult([['2024-03-10T12:00:00.000Z', '2024-03-10'], ['2024-03-10 06:00:00', new Date('2024-03-09T00:00:00Z')]], compiled).results).toEqual([
      ['2024-03-10T08:00:00-04:00', '2024-03-10'],
      ['2024-03-10T01:00:00-05:00', '2024-03-09'],
    ]);
  });
});

describe('function allow-list', () => {
  it('every allow-listed function prints on DuckDB', async () => {
    const missing: string[] = [];
    for (const sig of FUNCTIONS.values()) {
      if (['and', 'or', 'not', 'equals', 'notEquals', 'less', 'lessOrEquals', 'greater', 'greaterOrEquals'].includes(sig.name)) continue;
      if (CLICKHOUSE_ONLY_FUNCTIONS.has(sig.name)) continue;
      const args = Array.from({ length: sig.min }, (_, i) =>
        i === 0 && ['arrayMap', 'arrayFilter', 'arrayExists'].includes(sig.name) ? 'x -> x' : sig.name.startsWith('date') && i === 0 ? "'day'" : 'timestamp',
      );
      const params = sig.params ? `(${Array.from({ length: sig.params[0] }, () => '0.5').join(', ')})` : '';
      const text =
        sig.kind === 'window'
          ? `select ${sig.name}(${args.join(', ')}) over (order by timestamp) from events`
          : `select ${sig.name}${params}(${args.join(', ')}) from events`;
      try {
        await compile(text);
      } catch (e) {
        if (e instanceof UserError && /not available on this engine/.test(e.message)) missing.push(sig.name);
      }
    }
    expect(missing).toEqual([]);
  });

  // arraySort ... arrayReduce print on DuckDB too now (hogql-posthog-compat-3.test.ts pins their results there).
  it.each([
    ["select arrayReduce('argMax', [1], [2]) from events", /arrayReduce takes a constant aggregate name \(min, max or sum\)/],
    ["select arrayReduce(event, [1]) from events", /arrayReduce takes a constant aggregate name/],
  ])('arrayReduce beyond min/max/sum is a clear 400 on DuckDB: %s', async (text, message) => {
    await expect(compile(text)).rejects.toThrow(message);
  });
});

describe('materialized CTEs', () => {
  const built = () =>
    select({
      ctes: [cte('per_event', select({ select: [field('event'), alias('c', call('count'))], from: 'events', where: eq(field('event'), constant('it\'s')), groupBy: [field('event')] }), { materialized: true })],
      select: [alias('total', call('sum', [field('c')]))],
      from: 'per_event',
      where: compare('>', field('c'), constant(0)),
    });

  it('on DuckDB are ordinary CTEs (WITH), with no stages', async () => {
    const out = await compile(built());
    expect(out.stages).toEqual([]);
    expect(out.sql).toMatch(/^WITH "__cte_per_event_1" AS \(SELECT .* FROM \(SELECT "events"\.\* FROM "events" AS "events" WHERE "events"\."project_id" = \$1\)/);
  });

  it('on ClickHouse become stages: the guarded body runs first into a table the query reads by name, values spliced in both', async () => {
    const out = await compile(built(), { dialect: 'clickhouse' });
    expect(out.stages).toHaveLength(1);
    const [st] = out.stages;
    expect(st.table).toBe('__cte_per_event_1');
    expect(st.sql).toContain('`events`.`project_id` = 7');
    expect(st.sql).toContain("'it\\'s'");
    expect(out.sql).toContain('FROM `__cte_per_event_1` AS `per_event`');
    expect(out.sql).not.toContain('`events`');
    expect(out.sql).toContain('> 0');
    for (const text of [st.sql, out.sql]) expect(text).not.toMatch(/[\u0000\u0001]/);
    expect(out.params).toEqual([]);
    // The ProductQL the response reports is the query as written (a CTE).
    expect(out.hogql).toMatch(/^WITH per_event AS \(SELECT/);
  });

  it('text queries cannot ask for one (the parser never sets it): a CTE in ProductQL text is inlined on ClickHouse', async () => {
    const out = await compile('WITH x AS (SELECT event FROM events) SELECT event FROM x', { dialect: 'clickhouse' });
    expect(out.stages).toEqual([]);
  });
});

describe('AST builders and expressions', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await createTestDb();
  });
  afterAll(() => db.close());

  it('a built query prints like the same text', async () => {
    const built = select({
      select: [field('event'), alias('c', call('count'))],
      from: 'events',
      where: eq(field('event'), constant('$pageview')),
      groupBy: [field('event')],
      orderBy: [order(field('c'), 'DESC')],
    });
    const fromText = await compile("select event, count() as c from events where event = '$pageview' group by event order by c desc");
    const fromAst = await compile(built);
    expect(fromAst.sql).toBe(fromText.sql);
    expect(fromAst.hogql).toBe(fromText.hogql);
  });

  it('runs a built join with a parsed hogql filter expression', async () => {
    const filter = await parseProductQLExpr("person.properties.plan = 'pro' and e.properties.$browser = 'Chrome'");
    const q = select({
      select: [alias('n', call('count')), alias('people', call('uniq', [field('e.person_id')]))],
      from: joins(joinExpr('events', { alias: 'e' }), joinExpr('persons', { alias: 'p', type: 'LEFT JOIN', on: eq(field('p.id'), field('e.person_id')) })),
      where: and(filter, compare('>=', field('e.timestamp'), constant('2024-03-01'))),
    });
    const r = await db.query(q);
    expect(r.results).toEqual([[1, 1]]);
  });

  it('builds a UNION ALL', async () => {
    const q = unionAll(
      select({ select: [alias('e', field('event'))], from: 'events', where: eq(field('event'), constant('signup')) }),
      select({ select: [constant('x')] }),
    );
    const r = await db.query(q);
    expect(r.results).toEqual([['signup'], ['x']]);
  });

  it('rejects prototype names smuggled into built nodes', async () => {
    const base = select({ select: [field('e.event')], from: joins(joinExpr('events', { alias: 'e' }), joinExpr('persons', { alias: 'p', on: constant(true) })) });
    (base.select_from!.next_join as { join_type: string }).join_type = 'constructor';
    await expect(compile(base)).rejects.toMatchObject({ status: 400 });
    const set = unionAll(select({ select: [constant(1)] }), select({ select: [constant(2)] }));
    (set.subsequent_select_queries[0] as { set_operator: string }).set_operator = 'toString';
    await expect(compile(set)).rejects.toMatchObject({ status: 400 });
  });

  it('rejects malformed built nodes with a 400', async () => {
    await expect(compile({ node: 'SelectQuery', select: [{ node: 'Bogus' } as never] })).rejects.toMatchObject({ status: 400 });
    await expect(compile(select({ select: [field('event')], from: 'events', where: call('sleep', [constant(1)]) }))).rejects.toMatchObject({
      status: 400,
    });
  });
});
