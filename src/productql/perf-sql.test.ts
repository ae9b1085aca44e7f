/**
 * The DuckDB printer's fast spellings (see duckdb.ts' time helpers and `filterSql`/`groupSql` in dialect.ts), and
 * the semantic edges they must keep. Each shape below was measured: per-row timezone conversions made a daily count
 * ×25 slower than hand-written SQL at 10M events, `coalesce(a = b, false)` in ON turned a hash join into a nested
 * loop (8.9 s instead of 6 ms at 1M events), and nullif() around a property made DuckDB extract it twice.
 */
import { compileProductQL, shutdownParser } from './index';
import './clickhouse'; // registers the ClickHouse printer (ASOF JOIN refusal below)
import { createTestDb, type TestDb } from './testing';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  db.close();
  await shutdownParser();
});

const sqlOf = async (text: string, timezone = 'UTC'): Promise<string> =>
  (await compileProductQL({ query: text, projectId: 1, timezone, dialect: 'duckdb' })).sql;
const one = async (text: string, tz = 'Europe/Berlin'): Promise<unknown> => (await db.query(text, { timezone: tz })).results[0][0];
const all = async (text: string, tz = 'Europe/Berlin'): Promise<unknown[][]> => (await db.query(text, { timezone: tz })).results;

describe('printed shapes', () => {
  it('UTC projects print no timezone conversion, and the timestamp column stays bare in comparisons', async () => {
    const sql = await sqlOf(
      "select toStartOfDay(timestamp) as d, count() from events where timestamp >= '2024-03-01' and timestamp < toDateTime('2024-03-31 00:00:00') group by d order by d",
    );
    expect(sql).not.toMatch(/timezone|epoch_us/);
    expect(sql).toContain('"events"."timestamp" >= CAST($');
    expect(sql).toContain('GROUP BY CAST("events"."timestamp" AS DATE)');
    for (const tz of ['Etc/UTC', 'GMT', 'utc']) expect(await sqlOf('select toStartOfDay(timestamp) from events', tz)).not.toMatch(/timezone/);
  });

  it('other projects convert the constant, never the column, and use one ICU call per direction', async () => {
    const sql = await sqlOf("select toStartOfDay(timestamp) as d from events where timestamp >= '2024-03-01' group by d", 'Europe/Berlin');
    expect(sql).toContain(`"events"."timestamp" >= timezone('UTC', timezone($`);
    expect(sql).toMatch(/GROUP BY CAST\(timezone\(\$\d+, make_timestamptz\(epoch_us\("events"\."timestamp"\)\)\) AS DATE\)/);
    expect(sql).not.toMatch(/timezone\('UTC', "events"/);
  });

  // (A property: `events.$session_id` is never NULL, '' without a session, as PostHog's String column.)
  it('nullable equalities are plain in ON and WHERE, coalesced elsewhere and when negated', async () => {
    const sql = await sqlOf(
      "select p.id = e.person_id from events e join persons p on p.id = e.person_id and e.properties.s = 's1' where e.properties.s = 's1' and not(e.properties.s = 's2') and e.properties.s != 's3'",
    );
    expect(sql).toContain(`ON (("p"."id" = "e"."__person_id") AND (json_extract_string("e"."properties", $2) = $`);
    expect(sql).toContain(`SELECT coalesce("p"."id" = "e"."__person_id", false)`);
    expect(sql).toMatch(/WHERE \(\(json_extract_string\("e"\."properties", \$2\) = \$\d\) AND \(NOT coalesce\(json_extract_string\("e"\."properties", \$2\) = \$\d, false\)\) AND coalesce\(json_extract_string\("e"\."properties", \$2\) <> \$\d, true\)\)/);
  });

  it("a property is json_extract_string alone (PostHog's '' is a value, JSON null and a missing key NULL): no nullif", async () => {
    const sql = await sqlOf("select properties.plan = 'pro', properties.plan = '', properties.plan in ('a', 'b'), properties.plan < 'm' from events");
    expect(sql).not.toContain('nullif');
    expect(sql).toContain(`coalesce(json_extract_string("events"."properties", $1) = $2, false)`);
    expect(sql).toContain(`coalesce(json_extract_string("events"."properties", $1) = $3, false)`);
    expect(sql).toContain(`coalesce(json_extract_string("events"."properties", $1) IN ($4, $5), false)`);
    expect(sql).toContain(`coalesce(json_extract_string("events"."properties", $1) < $6, false)`);
  });

  it('null tests on person_id read the stored column (an override never maps a person to none), values the resolved one', async () => {
    const sql = await sqlOf('select person_id, isNull(person_id), person_id = NULL from events where isNotNull(person_id) and person_id IS NOT NULL');
    expect(sql).toContain('SELECT "events"."__person_id" AS "person_id", ("events"."person_id" IS NULL) AS "isNull(person_id)", ("events"."person_id" IS NULL) AS');
    expect(sql).toContain('WHERE (("events"."person_id" IS NOT NULL) AND ("events"."person_id" IS NOT NULL))');
    // anything computed from person_id keeps the resolved value
    expect(await sqlOf('select isNull(toString(person_id)) from events')).toContain('(CAST("events"."__person_id" AS VARCHAR) IS NULL)');
  });

  it('ASOF JOIN prints on DuckDB and is refused on ClickHouse', async () => {
    const q = 'select a.event, b.event from events a asof left join events b on a.person_id = b.person_id and a.timestamp < b.timestamp';
    expect(await sqlOf(q)).toMatch(/ASOF LEFT JOIN \(SELECT/);
    expect(await sqlOf(q.replace('asof left join', 'asof join'))).toMatch(/ASOF JOIN \(SELECT/);
    await expect(compileProductQL({ query: q, projectId: 1, timezone: 'UTC', dialect: 'clickhouse' })).rejects.toThrow(/ASOF LEFT JOIN is not available/);
  });

  it('does not add a person join to queries that do not use person_id', async () => {
    expect(await sqlOf("select count() from events where event = 'x'")).not.toContain('person_overrides');
  });
});

describe('semantics kept', () => {
  // Events (UTC): 03-30 22:30, 03-30 23:30, 03-31 21:30, 03-31 22:30, 04-01 10:00, 04-01 11:00. Berlin moves from
  // +01:00 to +02:00 at 2024-03-31 01:00 UTC.
  it.each([
    // without an offset a string is project-local wall-clock time, on either side of the change
    ["timestamp = '2024-03-31 00:30:00'", 1],
    ["timestamp >= '2024-03-31 00:30:00'", 5],
    ["timestamp > '2024-03-31 00:30:00'", 4],
    ["timestamp >= '2024-03-31 23:30:00'", 4],
    ["timestamp > '2024-03-31 23:30:00'", 3],
    ["timestamp = toDateTime('2024-03-31 23:30:00')", 1],
    ["timestamp between '2024-03-31 00:00:00' and '2024-03-31 23:59:59'", 2],
    ["'2024-03-31 23:30:00' <= timestamp", 4],
    // with an offset (Z, ±hh:mm) it is that instant, whatever the project's zone
    ["timestamp >= '2024-03-31T21:30:00Z'", 4],
    ["timestamp >= '2024-03-31 23:30:00+02:00'", 4],
    ["timestamp >= '2024-03-31 22:30:00+01:00'", 4],
    ["timestamp = '2024-03-30T23:30:00Z'", 1],
    ["timestamp < '2024-03-31T01:00:00Z'", 2],
    // dates are local days
    ["timestamp >= toDate('2024-04-01')", 3],
    ["toDate(timestamp) = '2024-03-31'", 2],
  ])('Europe/Berlin: %s → %d', async (cond, n) => {
    expect(await one(`select count() from events where ${cond}`)).toBe(n);
  });

  it.each([
    ["timestamp = '2024-03-30 23:30:00'", 1],
    ["timestamp >= '2024-03-31'", 4],
    ["timestamp >= '2024-03-31T01:30:00+02:00'", 5],
    ["toDate(timestamp) = '2024-03-31'", 2],
  ])('UTC: %s → %d', async (cond, n) => {
    expect(await one(`select count() from events where ${cond}`, 'UTC')).toBe(n);
  });

  it('day buckets through a GROUP BY on the local date, with ORDER BY and HAVING on the bucket', async () => {
    const q = 'select toStartOfDay(timestamp) as d, count() as c from events group by d having d >= toDateTime(\'2024-03-31 00:00:00\') order by d desc';
    expect(await all(q)).toEqual([
      ['2024-04-01T00:00:00+02:00', 3],
      ['2024-03-31T00:00:00+01:00', 2],
    ]);
    expect(await all(q, 'UTC')).toEqual([
      ['2024-04-01T00:00:00Z', 2],
      ['2024-03-31T00:00:00Z', 2],
    ]);
    expect(await all('select toStartOfDay(timestamp) + interval 1 day as n, count() from events group by toStartOfDay(timestamp) order by 1', 'America/New_York')).toEqual([
      ['2024-03-31T00:00:00-04:00', 2],
      ['2024-04-01T00:00:00-04:00', 2],
      ['2024-04-02T00:00:00-04:00', 2],
    ]);
  });

  it('NULL on one side: plain equality in WHERE/ON filters like the coalesced one', async () => {
    expect(await one("select count() from events where properties.$browser = 'Chrome' or properties.$browser = 'Safari'")).toBe(3);
    expect(await one("select count() from events where not(properties.$browser = 'Chrome')")).toBe(4);
    expect(await one("select count() from events where properties.$browser != 'Chrome'")).toBe(4);
    expect(await one("select count() from events where properties.$browser not in ('Chrome', 'Safari')")).toBe(3);
    expect(await one("select count() from events where properties.empty = ''")).toBe(1);
    expect(await one("select count() from events where properties.empty != 'x'")).toBe(6);
    expect(await one('select count() from events e join persons p on p.id = e.person_id')).toBe(5);
    expect(await one('select count() from events e left join persons p on p.id = e.person_id where p.id is null')).toBe(1);
    expect(await one('select count() from events e join persons p on not(p.id = e.person_id)')).toBe(7);
    expect(await one("select count() from events e join persons p on p.id = e.person_id and e.$session_id = 's1'")).toBe(2);
  });

  it('null tests on the stored person_id agree with the override-resolved person_id (merged persons included)', async () => {
    const byStored = await all('select countIf(isNull(person_id)), countIf(isNotNull(person_id)) from events');
    const byResolved = await all('select countIf(isNull(toString(person_id))), countIf(isNotNull(toString(person_id))) from events');
    expect(byStored).toEqual(byResolved);
    expect(await one('select count() from events e join persons p on p.id = e.person_id where isNotNull(e.person_id)')).toBe(5);
  });

  it('ASOF JOIN: the nearest later row of the same person, none when there is none', async () => {
    const rows = await all(
      'select a.timestamp, b.timestamp from events a asof left join events b on a.person_id = b.person_id and a.timestamp < b.timestamp where isNotNull(a.person_id) order by a.timestamp',
      'UTC',
    );
    for (const [a, b] of rows) if (b !== null) expect(String(b) > String(a)).toBe(true);
    expect(rows.some(([, b]) => b === null)).toBe(true);
  });

  it('the epoch forms equal the ICU forms at every instant, across DST, in odd zones, and under any session TimeZone', async () => {
    const prev = String((await db.run("SELECT current_setting('TimeZone')")).rows[0][0]);
    await db.run("SET TimeZone = 'America/Los_Angeles'");
    try {
      for (const tz of ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'America/Sao_Paulo']) {
        const r = await db.run(
          `WITH t AS (SELECT TIMESTAMP '2024-03-31 00:00:00' + to_microseconds(i * 1117 * 1000000::BIGINT + i) AS x FROM range(-60000, 60000) r(i)
             UNION ALL SELECT TIMESTAMP '1901-12-13 20:45:52' UNION ALL SELECT TIMESTAMP '2090-07-01 00:00:00.000001' UNION ALL SELECT NULL)
           SELECT count(*) FILTER (WHERE timezone($1, timezone('UTC', x)) IS DISTINCT FROM timezone($1, make_timestamptz(epoch_us(x))))
                + count(*) FILTER (WHERE timezone('UTC', timezone($1, x)) IS DISTINCT FROM make_timestamp(epoch_us(timezone($1, x)))) FROM t`,
          [tz],
        );
        expect([tz, Number(r.rows[0][0])]).toEqual([tz, 0]);
      }
    } finally {
      await db.run(`SET TimeZone = '${prev.replace(/'/g, "''")}'`);
    }
  });
});
