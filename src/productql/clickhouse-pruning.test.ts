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
    expect(sql).toMatch(/FROM \(SELECT \* FROM `events` AS `events` WHERE `events`.`project_id` = 1 AND `events`.`timestamp` >= .* AND `events`.`timestamp` <= /);
    const read = await readRows(sql);
    expect(read).toBeGreaterThanOrEqual(2000);
    expect(read).toBeLessThan(180_000 / 10);
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

  it('conditions that do not bound the range (OR, NOT, in the select list) add no bound', async () => {
    const or = await run("select count() from events where timestamp >= '2024-02-10' or timestamp < '2024-01-02'").catch((e: Error) => e);
    expect(or).toBeInstanceOf(Error); // no usable bound: the forced-index setting refuses it, proving none was added
    const r = await compileProductQL({
      query: "select countIf(timestamp >= '2024-02-10'), count() from events where not(timestamp < '2024-02-10')",
      projectId: 1,
      timezone: 'UTC',
      dialect: 'clickhouse',
    });
    expect(r.sql).not.toMatch(/SELECT \* FROM `events`/);
    expect((await engine.query(r.sql, [])).rows).toEqual([[100_000, 100_000]]);
  });
});
