/**
 * The hand-written DuckDB reference SQL (a)–(f) of bench-reference.md, run directly on the reference DuckDB file
 * (events with person ids resolved at load, project_id = 1). Medians of `runs` runs after one warm-up. These are
 * the figures Quarry's own API answers are compared with.
 */
import { DuckDBInstance } from '@duckdb/node-api';

export interface RangeSpec {
  /** Range start (dataset start), UTC. */
  start: Date;
  /** Range length in days. */
  days: number;
}

export interface TimedQuery {
  id: string;
  label: string;
  sql: string;
}

export interface QueryTiming {
  id: string;
  label: string;
  medianMs: number;
  minMs: number;
  runsMs: number[];
  rows: number;
  /** A compact, comparable summary of the answer (first rows / totals). */
  answer: unknown;
}

function ts(d: Date): string {
  return `TIMESTAMP '${d.toISOString().slice(0, 19).replace('T', ' ')}'`;
}

/** The reference queries for a dataset range: "last 30 days" is the last 30 days of the range. */
export function referenceQueries(r: RangeSpec): TimedQuery[] {
  const end = new Date(r.start.getTime() + r.days * 86_400_000);
  const from30 = new Date(end.getTime() - 30 * 86_400_000);
  const last30 = `timestamp >= ${ts(from30)} AND timestamp < ${ts(end)}`;
  const all = `timestamp >= ${ts(r.start)} AND timestamp < ${ts(end)}`;
  // Weeks as whole 7-day steps from the range start, in microseconds (the start is a Monday at 00:00 UTC, so these are
  // the Monday weeks of date_trunc('week', ...); plain integer arithmetic measured ~30% faster than truncating dates).
  const startUs = `${BigInt(r.start.getTime()) * 1000n}`;
  const WEEK_US = '604800000000';
  return [
    {
      id: 'a',
      label: 'daily $pageview count, last 30 days',
      sql: `SELECT CAST(timestamp AS DATE) AS day, count(*) AS c FROM events
            WHERE project_id = 1 AND event = '$pageview' AND ${last30} GROUP BY 1 ORDER BY 1`,
    },
    {
      id: 'b',
      label: 'daily distinct persons of $pageview, last 30 days',
      sql: `SELECT CAST(timestamp AS DATE) AS day, count(DISTINCT person_id) AS c FROM events
            WHERE project_id = 1 AND event = '$pageview' AND ${last30} GROUP BY 1 ORDER BY 1`,
    },
    {
      id: 'c',
      label: '$pageview by $browser, top 10, last 30 days',
      sql: `SELECT properties->>'$."$browser"' AS browser, count(*) AS c FROM events
            WHERE project_id = 1 AND event = '$pageview' AND ${last30} GROUP BY 1 ORDER BY c DESC, browser LIMIT 10`,
    },
    {
      id: 'd',
      label: 'funnel $pageview → signup → purchase, 14 d, 90 d (ASOF)',
      sql: `WITH
        pv AS (SELECT person_id, timestamp AS ts FROM events WHERE project_id = 1 AND event = '$pageview' AND ${all}),
        su AS (SELECT person_id, timestamp AS ts FROM events WHERE project_id = 1 AND event = 'signup' AND ${all}),
        pu AS (SELECT person_id, timestamp AS ts FROM events WHERE project_id = 1 AND event = 'purchase' AND ${all}),
        s2 AS (SELECT su.person_id, pv.ts AS t1, su.ts AS t2
               FROM su ASOF JOIN pv ON su.person_id = pv.person_id AND su.ts >= pv.ts
               WHERE su.ts <= pv.ts + INTERVAL 14 DAY),
        s3 AS (SELECT s2.person_id, s2.t1, pu.ts AS t3
               FROM s2 ASOF LEFT JOIN pu ON s2.person_id = pu.person_id AND s2.t2 <= pu.ts),
        lvl AS (SELECT person_id, max(CASE WHEN t3 IS NOT NULL AND t3 <= t1 + INTERVAL 14 DAY THEN 3 ELSE 2 END) AS l
                FROM s3 GROUP BY 1)
        SELECT (SELECT count(DISTINCT person_id) FROM pv) AS step1,
               count(*) FILTER (WHERE l >= 2) AS step2, count(*) FILTER (WHERE l >= 3) AS step3 FROM lvl`,
    },
    {
      id: 'd2',
      label: 'same funnel, general window-function form',
      sql: `WITH
        ev AS (SELECT person_id, timestamp AS ts, event FROM events
               WHERE project_id = 1 AND event IN ('$pageview', 'signup', 'purchase') AND ${all}),
        w1 AS (SELECT *, min(CASE WHEN event = 'purchase' THEN ts END) OVER (PARTITION BY person_id ORDER BY ts DESC
                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS next_purchase FROM ev),
        w2 AS (SELECT *, min(CASE WHEN event = 'signup' THEN ts END) OVER (PARTITION BY person_id ORDER BY ts DESC
                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS next_signup,
                 min(CASE WHEN event = 'signup' THEN next_purchase END) OVER (PARTITION BY person_id ORDER BY ts DESC
                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS purchase_after_signup FROM w1),
        lvl AS (SELECT person_id, max(CASE
                   WHEN next_signup IS NULL OR next_signup > ts + INTERVAL 14 DAY THEN 1
                   WHEN purchase_after_signup IS NULL OR purchase_after_signup > ts + INTERVAL 14 DAY THEN 2
                   ELSE 3 END) AS l
                FROM w2 WHERE event = '$pageview' GROUP BY 1)
        SELECT count(*) AS step1, count(*) FILTER (WHERE l >= 2) AS step2, count(*) FILTER (WHERE l >= 3) AS step3 FROM lvl`,
    },
    {
      id: 'e',
      label: 'weekly retention, cohort = week of first $pageview, 8 × 8',
      sql: `WITH
        firsts AS (SELECT person_id, min(timestamp) AS f FROM events
                   WHERE project_id = 1 AND event = '$pageview' AND ${all} GROUP BY 1),
        cohorts AS (SELECT person_id, (epoch_us(f) - ${startUs}) // ${WEEK_US} AS cohort FROM firsts),
        active AS (SELECT DISTINCT person_id, (epoch_us(timestamp) - ${startUs}) // ${WEEK_US} AS wk
                   FROM events WHERE project_id = 1 AND ${all})
        SELECT cohort, wk - cohort AS week_offset, count(*) AS persons
        FROM cohorts JOIN active USING (person_id)
        WHERE cohort BETWEEN 0 AND 7 AND wk - cohort BETWEEN 0 AND 7
        GROUP BY 1, 2 ORDER BY 1, 2`,
    },
    {
      id: 'f',
      label: "daily count where plan = 'pro', last 30 days",
      sql: `SELECT CAST(timestamp AS DATE) AS day, count(*) AS c FROM events
            WHERE project_id = 1 AND ${last30} AND (properties->>'$.plan') = 'pro' GROUP BY 1 ORDER BY 1`,
    },
  ];
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Turns result rows into a small JSON-friendly answer summary (bigints → numbers, dates → ISO dates). */
export function summarize(rows: unknown[][]): unknown {
  const norm = (v: unknown): unknown =>
    typeof v === 'bigint' ? Number(v) : v instanceof Date ? v.toISOString().slice(0, 10) : v && typeof v === 'object' ? String(v) : v;
  const r = rows.map((row) => row.map(norm));
  if (r.length <= 12) return r;
  const total = r.reduce((s, row) => s + (typeof row[row.length - 1] === 'number' ? (row[row.length - 1] as number) : 0), 0);
  return { rows: r.length, first: r.slice(0, 3), last: r[r.length - 1], sumOfLastColumn: total };
}

/** Runs the reference queries on a DuckDB file (opened read-only). */
export async function runReferenceSql(
  dbFile: string,
  range: RangeSpec,
  opts: { runs?: number; only?: string[] } = {},
): Promise<QueryTiming[]> {
  const runs = opts.runs ?? 5;
  const instance = await DuckDBInstance.create(dbFile, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  const out: QueryTiming[] = [];
  try {
    for (const q of referenceQueries(range)) {
      if (opts.only && !opts.only.includes(q.id)) continue;
      let first;
      try {
        first = await conn.runAndReadAll(q.sql); // warm-up
      } catch (e) {
        out.push({ id: q.id, label: q.label, medianMs: NaN, minMs: NaN, runsMs: [], rows: 0, answer: { error: (e as Error).message } });
        process.stderr.write(`[bench] reference (${q.id}) failed: ${(e as Error).message}\n`);
        continue;
      }
      const rows = first.getRows() as unknown[][];
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        const t = process.hrtime.bigint();
        const r = await conn.runAndReadAll(q.sql);
        r.getRows();
        times.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
      out.push({
        id: q.id,
        label: q.label,
        medianMs: round(median(times)),
        minMs: round(Math.min(...times)),
        runsMs: times.map(round),
        rows: rows.length,
        answer: summarize(rows),
      });
      process.stderr.write(`[bench] reference (${q.id}) ${q.label}: ${round(median(times))} ms\n`);
    }
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
  return out;
}

function round(x: number): number {
  return Math.round(x * 10) / 10;
}
