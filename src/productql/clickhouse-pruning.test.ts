/**
 * Time filters use ClickHouse's partition and primary key: a ProductQL time range printed for ClickHouse runs with
 * `force_index_by_date` and `force_primary_key` (the server refuses a query that would not use them), and reads only
 * the rows of the range (rows_read in the server's statistics; 18.16 has no EXPLAIN).
 */
import { ClickHouseEngine } from '../engines/clickhouse/clickhouse-engine';
import { describeClickHouse, startSingle, type TestServer } from '../engines/clickhouse/test-server';
import { compileProductQL, shutdownParser } from './index';
import './clickhouse';

const DAY = 86_400_000;
const START = Date.UTC(2024, 0, 1);

describeClickHouse('ClickHouse time filters prune by partition and primary key', () => {
  let server: TestServer;
  let engine: ClickHouseEngine;
  beforeAll(async () => {
    server = await startSingle();
    engine = await ClickHouseEngine.open({ url: server.url, database: 'pruning' });
    // 90 days (three monthly partitions), 2,000 events a day, one part per day: 180,000 events.
    for (let d = 0; d < 90; d++) {
      const events = Array.from({ length: 2000 }, (_, i) => ({
        project_id: 1,
        uuid: `50000000-0000-4000-8000-${String(d * 2000 + i).padStart(12, '0')}`,
        event: i % 2 ? '$pageview' : 'signup',
        distinct_id: `u${i % 300}`,
        person_id: null,
        timestamp: START + d * DAY + i * 40_000 + 250,
        properties: JSON.stringify({ i }),
        session_id: null,
        elements_chain: null,
        created_at: START + d * DAY,
      }));
      await engine.writeBatch({ events });
    }
    // Project 2: one distinct id whose events all have a person (outer-join null-test regression below).
    await engine.writeBatch({
      events: [0, 1].map((i) => ({
        project_id: 2,
        uuid: `51000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        event: '$pageview',
        distinct_id: 'p2',
        person_id: '51000000-0000-4000-8000-0000000000aa',
        timestamp: START + i * 1000,
        properties: '{}',
        session_id: null,
        elements_chain: null,
        created_at: START,
      })),
    });
  });
  afterAll(async () => {
    await engine?.close();
    await server?.stop();
    await shutdownParser();
  });

  const run = async (query: string, timezone = 'UTC') => {
    const c = await compileProductQL({ query, projectId: 1, timezone, dialect: 'clickhouse' });
    // The server refuses to run a query that would not use the date partition key and the primary key.
    const r = await engine.query(`${c.sql} SETTINGS force_index_by_date = 1, force_primary_key = 1`, []);
    return { rows: r.rows, sql: c.sql };
  };

  /** Rows the server read for `sql` (the JSON formats report it), with the forced-index settings. */
  const readRows = async (sql: string): Promise<number> => {
    const res = await fetch(`${server.url}/?database=pruning&force_index_by_date=1&force_primary_key=1`, { method: 'POST', body: `${sql} FORMAT JSONCompact` });
    expect(res.status).toBe(200);
    return Number(((await res.json()) as { statistics: { rows_read: number } }).statistics.rows_read);
  };

  it('a day range reads about one day, not the table', async () => {
    const q = "select count() from events where timestamp >= '2024-02-10' and timestamp < '2024-02-11'";
    const { rows, sql } = await run(q);
    expect(rows).toEqual([[2000]]);
    // Whole UTC days: the stored column's date alone is the bound (and prunes).
    expect(sql).toMatch(/FROM \(SELECT `events`.`timestamp` AS `__timestamp_s` FROM `events` AS `events` WHERE `events`.`project_id` = 1 AND toDate\(`events`.`timestamp`\) >= .* AND toDate\(`events`.`timestamp`\) < .*\) AS `events` LIMIT/);
    expect(sql).not.toMatch(/`events`.`timestamp` [<>]/);
    const read = await readRows(sql);
    expect(read).toBeGreaterThanOrEqual(2000);
    expect(read).toBeLessThan(180_000 / 10);
  });

  it('a bound on a UTC day boundary is the date alone; other bounds keep the stored seconds too', async () => {
    const count = async (q: string, tz = 'UTC') => {
      const c = await compileProductQL({ query: q, projectId: 1, timezone: tz, dialect: 'clickhouse' });
      const r = await engine.query(`${c.sql} SETTINGS force_index_by_date = 1, force_primary_key = 1`, []);
      return { n: r.rows[0][0], seconds: /`events`.`timestamp` [<>]/.test(c.sql), date: /toDate\(`events`.`timestamp`\) [<>]/.test(c.sql) };
    };
    // Events are at hh:mm:ss.250, 2,000 a day, every 40 s from midnight.
    const day = (q: string) => `select count() from events where ${q}`;
    for (const [q, n] of [
      ["timestamp >= '2024-02-10 00:00:00' and timestamp <= '2024-02-10 23:59:59.999'", 2000],
      ["timestamp > '2024-02-09 23:59:59.999' and timestamp < '2024-02-11'", 2000],
      ["timestamp >= '2024-02-10T00:00:00Z' and timestamp < '2024-02-11T00:00:00+00:00'", 2000],
      ["'2024-02-11' > timestamp and '2024-02-10' <= timestamp", 2000],
    ] as const)
      expect(await count(day(q))).toEqual({ n, seconds: false, date: true });
    // Not on a day boundary, or a zone-less bound in another zone's project: the seconds are compared too.
    expect(await count(day("timestamp >= '2024-02-10 00:00:40' and timestamp < '2024-02-11'"))).toEqual({ n: 1999, seconds: true, date: true });
    expect(await count(day("timestamp >= '2024-02-10 00:00:00' and timestamp < '2024-02-10 23:59:59.999'"))).toEqual({ n: 2000, seconds: true, date: true });
    expect(await count(day("timestamp >= '2024-02-10 01:00:00' and timestamp < '2024-02-11 01:00:00'"), 'Europe/London')).toEqual({ n: 2000, seconds: true, date: true });
    expect(await count(day("timestamp >= '2024-02-10' and timestamp < '2024-02-11'"), 'Europe/Berlin')).toEqual({ n: 2000, seconds: true, date: true });
  });

  it('the bound keeps sub-second edges exact (ms column compared outside)', async () => {
    // Events sit at hh:mm:ss.250; a bound at .249 keeps the event, one at .251 drops it.
    const at = new Date(START + 5 * DAY + 250).toISOString();
    const before = new Date(START + 5 * DAY + 249).toISOString();
    const after = new Date(START + 5 * DAY + 251).toISOString();
    expect((await run(`select count() from events where timestamp >= toDateTime('${before}') and timestamp <= toDateTime('${at}')`)).rows).toEqual([[1]]);
    expect((await run(`select count() from events where timestamp >= toDateTime('${after}') and timestamp <= toDateTime('${at}')`)).rows).toEqual([[0]]);
    expect((await run(`select count() from events where toDateTime('${at}') = timestamp`)).rows).toEqual([[1]]);
    // Fractions of a second in zone-less text are kept (DateTime itself has whole seconds).
    expect((await run("select count() from events where timestamp >= '2024-01-06 00:00:00.251' and timestamp < '2024-01-06 00:00:40'")).rows).toEqual([[0]]);
    expect((await run("select count() from events where timestamp >= '2024-01-06 00:00:00.2' and timestamp < '2024-01-06 00:00:40'")).rows).toEqual([[1]]);
  });

  it('insight-shaped queries (buckets, person join, project timezone) prune too', async () => {
    const q =
      "select toStartOfDay(timestamp) as day, count(), uniq(person_id) from events where timestamp >= toDateTime('2024-03-01 00:00:00') and timestamp <= toDateTime('2024-03-03 23:59:59.999999') and event = '$pageview' group by day order by day";
    const { rows, sql } = await run(q, 'Europe/Berlin');
    expect(rows.map((r) => r[1])).toEqual([1000, 1000, 1000]);
    expect(await readRows(sql)).toBeLessThan(180_000 / 10);
  });

  it('a bound that is exactly the condition replaces it; sub-second or other conditions stay outside', async () => {
    // Whole-second constants: the stored-second bounds keep exactly the rows the epoch-ms comparison keeps.
    const exact = await run("select count() from events where timestamp >= '2024-02-10' and timestamp < '2024-02-11' and event = '$pageview'");
    expect(exact.rows).toEqual([[1000]]);
    expect(exact.sql).not.toMatch(/\) AS `events` WHERE /);
    // .999 upper bound (the insights' inclusive end of day) is exact too.
    const inclusive = await run("select count() from events where timestamp >= '2024-02-10 00:00:00' and timestamp <= '2024-02-10 23:59:59.999'");
    expect(inclusive.rows).toEqual([[2000]]);
    expect(inclusive.sql).not.toMatch(/\) AS `events` WHERE /);
    // A fraction the stored seconds cannot express keeps the comparison (events sit at .250).
    const sub = await run("select count() from events where timestamp > '2024-01-06 00:00:00.250' and timestamp <= '2024-01-06 00:00:40.250'");
    expect(sub.rows).toEqual([[1]]);
    expect(sub.sql).toMatch(/\) AS `events` WHERE \(+`events`.`timestamp` > /);
    // Under OR nothing is pushed, so nothing is dropped.
    const or = await compileProductQL({ query: "select count() from events where timestamp >= '2024-02-10' or event = 'signup'", projectId: 1, timezone: 'UTC', dialect: 'clickhouse' });
    expect((await engine.query(or.sql, [])).rows).toEqual([[50 * 2000 + 40 * 1000]]);
  });

  it('regression: a bound on the events side of an outer join never replaces the condition (null-extended rows)', async () => {
    // No event has distinct id 'nobody': the LEFT JOIN yields one null-extended row, which the WHERE then removes.
    const q = "select count() from (select 'nobody' as d) as a left join events as e on a.d = e.distinct_id where e.timestamp >= '2024-02-10' and e.event = '$pageview'";
    const c = await compileProductQL({ query: q, projectId: 1, timezone: 'UTC', dialect: 'clickhouse' });
    expect((await engine.query(c.sql, [])).rows).toEqual([[0]]);
  });

  it('regression: an IS NULL test on the events side of an outer join is not pushed into it', async () => {
    // 'p2' matches two events, both with a person: no row is left after the WHERE. Pushed into the joined events,
    // the test would leave no match, and the null-extended row would pass `isNull`.
    const q = "select count() from (select 'p2' as d) as a left join events as e on a.d = e.distinct_id where isNull(e.person_id)";
    const c = await compileProductQL({ query: q, projectId: 2, timezone: 'UTC', dialect: 'clickhouse' });
    expect(c.sql).not.toMatch(/PREWHERE/);
    expect((await engine.query(c.sql, [])).rows).toEqual([[0]]);
    const notNull = await compileProductQL({ query: q.replace('isNull', 'isNotNull'), projectId: 2, timezone: 'UTC', dialect: 'clickhouse' });
    expect((await engine.query(notNull.sql, [])).rows).toEqual([[2]]);
  });

  it('null tests of the person id read the stored column as a PREWHERE', async () => {
    const nulls = await run("select count() from events where timestamp >= '2024-02-10' and timestamp < '2024-02-12' and isNull(person_id)");
    expect(nulls.rows).toEqual([[4000]]);
    expect(nulls.sql).toMatch(/PREWHERE isNull\(`events`.`person_id`\) WHERE `events`.`project_id` = 1/);
    const persons = await run("select count(), uniq(distinct_id) from events where timestamp >= '2024-02-10' and timestamp < '2024-02-12' and person_id is not null");
    expect(persons.rows).toEqual([[0, 0]]);
    expect(persons.sql).toMatch(/PREWHERE isNotNull\(`events`.`person_id`\)/);
  });

  it('without person overrides the guarded reference itself exposes the stored person id (no extra level)', async () => {
    const q = 'select uniq(person_id), countIf(isNull(person_id)), count() from events';
    const plain = await compileProductQL({ query: q, projectId: 2, timezone: 'UTC', dialect: 'clickhouse', personOverrides: false });
    expect(plain.sql).not.toContain('__b');
    expect(plain.sql).toContain('`events`.`person_id` AS `__person_id` FROM `events` AS `events` WHERE');
    expect((await engine.query(plain.sql, [])).rows).toEqual([[1, 0, 2]]);
    const withPerson = await compileProductQL({ query: `${q} where person.properties.email is null`, projectId: 2, timezone: 'UTC', dialect: 'clickhouse', personOverrides: false });
    expect(withPerson.sql).not.toContain('person_overrides');
    expect((await engine.query(withPerson.sql, [])).rows).toEqual([[1, 0, 2]]);
    const merged = await compileProductQL({ query: q, projectId: 2, timezone: 'UTC', dialect: 'clickhouse' });
    expect(merged.sql).toContain('person_overrides');
    expect((await engine.query(merged.sql, [])).rows).toEqual([[1, 0, 2]]);
  });

  it('the guarded events reference is one SELECT of the columns read, unless an epoch-ms datetime is read', async () => {
    const range = "timestamp >= '2024-02-10' and timestamp < '2024-02-12'";
    const flat = async (query: string, columns: string[], rows: unknown[][]) => {
      const r = await run(query);
      expect(r.rows).toEqual(rows);
      expect(r.sql).not.toContain('SELECT *');
      const cols = [...columns.map((c) => `\`events\`.\`${c}\` AS \`${c}\`, `), '`events`.`timestamp` AS `__timestamp_s` FROM `events` AS `events`'].join('');
      expect(r.sql).toContain(`(SELECT ${cols}`);
    };
    // The daily count: the event name and the range are bounds inside the reference; only the stored seconds are read.
    await flat(`select toStartOfDay(timestamp) as d, count() from events where event = '$pageview' and ${range} group by d order by d`, [], [
      [Date.UTC(2024, 1, 10), 1000],
      [Date.UTC(2024, 1, 11), 1000],
    ]);
    await flat(`select count(), uniq(distinct_id) from events where ${range} and properties.i < 10`, ['distinct_id', 'properties'], [[20, 10]]);
    await flat(`select event, count() from events where ${range} and isNull(person_id) group by event order by event`, ['event', 'person_id'], [
      ['$pageview', 2000],
      ['signup', 2000],
    ]);
    // Reading an epoch-ms datetime (selected, in a kept condition, or through *) keeps the two-level reference.
    const nested = /FROM \(SELECT `events`.`uuid` AS `uuid`, .* FROM \(SELECT \*, `events`.`timestamp` AS `__timestamp_s` FROM `events` AS `events` WHERE `events`.`project_id` = 1 AND/;
    const max = await run(`select max(timestamp), max(created_at) from events where ${range}`);
    expect(max.rows).toEqual([[Date.UTC(2024, 1, 11) + 1999 * 40_000 + 250, Date.UTC(2024, 1, 11)]]);
    expect(max.sql).toMatch(nested);
    const created = await run(`select count() from events where ${range} and created_at >= '2024-02-11'`);
    expect(created.rows).toEqual([[2000]]);
    expect(created.sql).toMatch(nested);
    const kept = await run(`select count() from events where ${range} and (timestamp < '2024-02-11' or event = 'signup')`);
    expect(kept.rows).toEqual([[3000]]);
    expect(kept.sql).toMatch(nested);
    const star = await run(`select * from events where ${range} order by timestamp limit 1`);
    expect(star.rows[0][3]).toBe(Date.UTC(2024, 1, 10) + 250);
    expect(star.sql).toMatch(nested);
    // A self-join: each reference exposes what its own alias reads (`a`'s range is kept outside, as a join is there).
    const joinQuery = "select count() from events a join events b on a.uuid = b.uuid where a.timestamp >= '2024-02-10' and a.timestamp < '2024-02-12'";
    const join = await compileProductQL({ query: joinQuery, projectId: 1, timezone: 'UTC', dialect: 'clickhouse' });
    expect((await engine.query(join.sql, [])).rows).toEqual([[4000]]);
    expect(join.sql).toContain('(SELECT `b`.`uuid` AS `uuid`, `b`.`timestamp` AS `__timestamp_s` FROM `events` AS `b` WHERE `b`.`project_id` = 1) AS `b`');
    expect(join.sql).toContain('FROM (SELECT *, `a`.`timestamp` AS `__timestamp_s` FROM `events` AS `a`');
    // With person overrides the stored person id is read by the overrides join, so the reference exposes it.
    const merged = await compileProductQL({ query: 'select count(distinct person_id), count() from events', projectId: 2, timezone: 'UTC', dialect: 'clickhouse' });
    expect(merged.sql).toContain('(SELECT `events`.`person_id` AS `person_id`, `events`.`timestamp` AS `__timestamp_s` FROM `events` AS `events` WHERE');
    expect((await engine.query(merged.sql, [])).rows).toEqual([[1, 2]]);
  });

  it('day buckets read the stored seconds (no epoch-ms round trip), in UTC and in the project timezone', async () => {
    const q = "select toStartOfDay(timestamp) as day, count() from events where timestamp >= '2024-03-01' and timestamp < '2024-03-03' group by day order by day";
    const utc = await run(q);
    expect(utc.rows.map((r) => r[1])).toEqual([2000, 2000]);
    expect(utc.sql).toMatch(/toStartOfDay\(`events`.`__timestamp_s`\)/);
    const berlin = await run(q, 'Europe/Berlin');
    // Berlin days run 23:00..23:00 UTC in March; each UTC day's events (00:00..22:13) fall in the same local day.
    expect(berlin.rows.map((r) => r[1])).toEqual([2000, 2000]);
    expect(berlin.sql).toMatch(/toStartOfDay\(toDateTime\(`events`.`__timestamp_s`, 'Europe\/Berlin'\)\)/);
  });

  it('conditions that do not bound the range (OR, NOT, in the select list) add no bound', async () => {
    const or = await run("select count() from events where timestamp >= '2024-02-10' or timestamp < '2024-01-02'").catch((e: Error) => e);
    expect(or).toBeInstanceOf(Error); // no usable bound: the forced-index setting refuses it, proving none was added
    const r = await compileProductQL({
      query: "select countIf(timestamp >= '2024-02-10'), count() from events where not(timestamp < '2024-02-10')",
      projectId: 1,
      timezone: 'UTC',
      dialect: 'clickhouse',
    });
    expect(r.sql).toMatch(/FROM `events` AS `events` WHERE `events`.`project_id` = 1\)/);
    expect((await engine.query(r.sql, [])).rows).toEqual([[100_000, 100_000]]);
  });
});
