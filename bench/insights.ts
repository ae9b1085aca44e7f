/**
 * Insight queries end to end: TrendsQuery / LifecycleQuery / StickinessQuery / FunnelsQuery / RetentionQuery nodes
 * sent through `POST /api/projects/1/query/` (cache bypassed with `refresh: 'force_blocking'`) against a server
 * holding the dataset (the same server and data directory as the `queries` bench: see `openQueryServer`), each
 * timed against hand-written DuckDB SQL answering the same question directly on the reference DuckDB file. The
 * API and the SQL runs alternate (SQL, then API, `runs` times after one warm-up of each) so both see the same
 * machine state. The SQL is the reference SQL of bench/reference-sql.ts where it answers the question, and
 * hand-written here for lifecycle and stickiness. Answers are compared loosely; a mismatch is reported, not fatal.
 *
 * Retention cohorts are weeks starting on Monday in the reference SQL (DuckDB's `date_trunc('week')`; the dataset
 * starts on Monday 2024-01-01): the project's `week_start_day` is set to 1 (Monday) when it is not already.
 */
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { ensureReferenceDb, type DatasetSpec } from './dataset';
import { median, referenceQueries, type RangeSpec } from './reference-sql';
import { openQueryServer, runQuery } from './queries';

export interface InsightTiming {
  id: string;
  label: string;
  query: Record<string, unknown>;
  /** Where the hand-written SQL comes from: `reference (x)` or `hand-written`. */
  sqlSource: string;
  sql: string;
  medianMs: number;
  runsMs: number[];
  sqlMedianMs: number;
  sqlRunsMs: number[];
  /** Quarry median / SQL median. */
  ratio: number;
  check: { ok: boolean | null; detail: string };
  error?: unknown;
}

export interface InsightsBenchResult {
  dataDir: string;
  load: 'capture' | 'copy';
  refresh: string | null;
  weekStartDay: number | null;
  queries: InsightTiming[];
}

const DAY = 86_400_000;

function day(d: Date): string {
  return d.toISOString().slice(0, 10);
}

function ts(d: Date): string {
  return `TIMESTAMP '${d.toISOString().slice(0, 19).replace('T', ' ')}'`;
}

function norm(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  if (v && typeof v === 'object') return String(v);
  return v;
}

type Rows = unknown[][];
type Check = (body: Record<string, unknown>, rows: Rows) => { ok: boolean | null; detail: string };

interface InsightCase {
  id: string;
  label: string;
  query: Record<string, unknown>;
  sqlSource: string;
  sql: string;
  check: Check;
}

const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v ?? NaN));
const results = (body: Record<string, unknown>): Record<string, unknown>[] => (Array.isArray(body.results) ? body.results : []) as Record<string, unknown>[];

/** Compares a daily series (days[], data[]) with reference rows [day, value]. */
function checkDaily(body: Record<string, unknown>, rows: Rows): { ok: boolean; detail: string } {
  const s = results(body)[0];
  if (!s) return { ok: false, detail: 'no series in the answer' };
  const days = (s.days as string[]) ?? [];
  const data = (s.data as number[]) ?? [];
  const got = new Map(days.map((d, i) => [String(d).slice(0, 10), num(data[i])]));
  const want = new Map(rows.map((r) => [String(r[0]).slice(0, 10), num(r[1])]));
  const sumGot = data.reduce((a, v) => a + num(v), 0);
  const sumWant = rows.reduce((a, r) => a + num(r[1]), 0);
  const differing = [...new Set([...got.keys(), ...want.keys()])].filter((d) => (got.get(d) ?? 0) !== (want.get(d) ?? 0));
  return {
    ok: differing.length === 0,
    detail: `${days.length} days, sum ${sumGot} vs ${sumWant}` + (differing.length ? `; ${differing.length} days differ (first ${differing[0]}: ${got.get(differing[0])} vs ${want.get(differing[0])})` : ''),
  };
}

export function insightCases(r: RangeSpec): InsightCase[] {
  const end = new Date(r.start.getTime() + r.days * DAY);
  const from30 = new Date(end.getTime() - 30 * DAY);
  const lastDay = new Date(end.getTime() - DAY);
  const last30Range = { date_from: day(from30), date_to: day(lastDay) };
  const allRange = { date_from: day(r.start), date_to: day(lastDay) };
  const ref = new Map(referenceQueries(r).map((q) => [q.id, q.sql]));
  const refSql = (id: string): string => {
    const s = ref.get(id);
    if (!s) throw new Error(`reference query (${id}) not found`);
    return s;
  };
  const pageview = { kind: 'EventsNode', event: '$pageview', name: '$pageview' };
  const last30 = `timestamp >= ${ts(from30)} AND timestamp < ${ts(end)}`;
  const before30 = new Date(from30.getTime() - DAY);
  const d0 = `DATE '${day(from30)}'`;
  const from7 = new Date(end.getTime() - 7 * DAY);
  const last7 = `timestamp >= ${ts(from7)} AND timestamp < ${ts(end)}`;
  const dN = `DATE '${day(lastDay)}'`;

  return [
    {
      id: 'trends-total',
      label: 'Trends: daily $pageview total, last 30 days',
      query: { kind: 'TrendsQuery', series: [{ ...pageview, math: 'total' }], interval: 'day', dateRange: last30Range },
      sqlSource: 'reference (a)',
      sql: refSql('a'),
      check: checkDaily,
    },
    {
      id: 'trends-dau',
      label: 'Trends: daily DAU of $pageview, last 30 days',
      query: { kind: 'TrendsQuery', series: [{ ...pageview, math: 'dau' }], interval: 'day', dateRange: last30Range },
      sqlSource: 'reference (b)',
      sql: refSql('b'),
      check: checkDaily,
    },
    {
      id: 'trends-breakdown',
      label: 'Trends: $pageview by $browser (top 25), last 30 days',
      query: {
        kind: 'TrendsQuery',
        series: [{ ...pageview, math: 'total' }],
        interval: 'day',
        dateRange: last30Range,
        breakdownFilter: { breakdown_type: 'event', breakdown: '$browser', breakdown_limit: 25 },
      },
      sqlSource: 'reference (c), LIMIT 25',
      sql: refSql('c').replace(/LIMIT 10\s*$/, 'LIMIT 25'),
      check: (body, rows) => {
        const got = new Map(results(body).map((s) => [String(s.breakdown_value), num(s.count)]));
        const want = rows.filter((row) => row[0] !== null);
        const differing = want.filter((row) => got.get(String(row[0])) !== num(row[1]));
        return {
          ok: differing.length === 0,
          detail:
            `${got.size} series, ${want.length} reference values` +
            (differing.length ? `; ${differing.length} differ (first ${String(differing[0][0])}: ${got.get(String(differing[0][0]))} vs ${num(differing[0][1])})` : ''),
        };
      },
    },
    {
      id: 'lifecycle',
      label: 'Lifecycle: daily $pageview, last 30 days',
      query: { kind: 'LifecycleQuery', series: [pageview], interval: 'day', dateRange: last30Range },
      sqlSource: 'hand-written',
      // new = the day of the person's created_at; returning = active the day before; resurrecting otherwise;
      // dormant = the day after an active day without activity. Activity from the day before the range.
      sql: `WITH
        act AS (SELECT DISTINCT person_id, CAST(timestamp AS DATE) AS d FROM events
                WHERE project_id = 1 AND event = '$pageview' AND person_id IS NOT NULL
                  AND timestamp >= ${ts(before30)} AND timestamp < ${ts(end)}),
        nb AS (SELECT person_id, d, lag(d) OVER w AS prev_d, lead(d) OVER w AS next_d FROM act
               WINDOW w AS (PARTITION BY person_id ORDER BY d)),
        st AS (SELECT nb.d, CASE WHEN nb.d = CAST(p.created_at AS DATE) THEN 'new'
                                 WHEN nb.prev_d = nb.d - 1 THEN 'returning' ELSE 'resurrecting' END AS status
               FROM nb LEFT JOIN persons p ON p.project_id = 1 AND p.id = nb.person_id
               UNION ALL
               SELECT d + 1 AS d, 'dormant' AS status FROM nb WHERE next_d IS NULL OR next_d <> d + 1)
        SELECT d, status, count(*) AS persons FROM st WHERE d BETWEEN ${d0} AND ${dN} GROUP BY 1, 2 ORDER BY 1, 2`,
      check: (body, rows) => {
        const got = new Map(results(body).map((s) => [String(s.status), Math.abs(num(s.count))]));
        const want = new Map<string, number>();
        for (const row of rows) want.set(String(row[1]), (want.get(String(row[1])) ?? 0) + num(row[2]));
        const statuses = ['new', 'returning', 'resurrecting', 'dormant'];
        const detail = statuses.map((s) => `${s} ${got.get(s) ?? 0}${got.get(s) === (want.get(s) ?? 0) ? '' : `≠${want.get(s) ?? 0}`}`).join(', ');
        return { ok: statuses.every((s) => (got.get(s) ?? 0) === (want.get(s) ?? 0)), detail };
      },
    },
    {
      id: 'stickiness',
      label: 'Stickiness: daily $pageview, last 30 days',
      query: { kind: 'StickinessQuery', series: [pageview], interval: 'day', dateRange: last30Range },
      sqlSource: 'hand-written',
      sql: `SELECT n, count(*) AS persons FROM (
              SELECT person_id, count(DISTINCT CAST(timestamp AS DATE)) AS n FROM events
              WHERE project_id = 1 AND event = '$pageview' AND person_id IS NOT NULL AND ${last30} GROUP BY 1)
            GROUP BY 1 ORDER BY 1`,
      check: (body, rows) => {
        const data = ((results(body)[0]?.data as number[]) ?? []).map(num);
        const want = new Map(rows.map((row) => [num(row[0]), num(row[1])]));
        const differing = data.map((v, i) => [i + 1, v] as const).filter(([n, v]) => v !== (want.get(n) ?? 0));
        const total = data.reduce((a, v) => a + v, 0);
        const wantTotal = rows.reduce((a, row) => a + num(row[1]), 0);
        return {
          ok: data.length > 0 && differing.length === 0 && total === wantTotal,
          detail: `${data.length} buckets, ${total} vs ${wantTotal} persons` + (differing.length ? `; ${differing.length} buckets differ (first ${differing[0][0]} d: ${differing[0][1]} vs ${want.get(differing[0][0]) ?? 0})` : ''),
        };
      },
    },
    {
      id: 'funnel',
      label: 'Funnel: $pageview → signup → purchase, ordered, 14 d, 90 d',
      query: {
        kind: 'FunnelsQuery',
        series: [pageview, { kind: 'EventsNode', event: 'signup', name: 'signup' }, { kind: 'EventsNode', event: 'purchase', name: 'purchase' }],
        dateRange: allRange,
        funnelsFilter: { funnelOrderType: 'ordered', funnelVizType: 'steps', funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day' },
      },
      sqlSource: 'reference (d)',
      sql: refSql('d'),
      check: (body, rows) => {
        const got = results(body).map((s) => num(s.count));
        const want = (rows[0] ?? []).map(num);
        return { ok: JSON.stringify(got) === JSON.stringify(want), detail: `steps ${got.join(' / ')}${JSON.stringify(got) === JSON.stringify(want) ? '' : ` vs ${want.join(' / ')}`}` };
      },
    },
    {
      id: 'retention',
      label: 'Retention: weekly, 8 intervals, first-time $pageview',
      query: {
        kind: 'RetentionQuery',
        dateRange: allRange,
        retentionFilter: {
          period: 'Week',
          totalIntervals: 8,
          retentionType: 'retention_first_time',
          targetEntity: { id: '$pageview', type: 'events', name: '$pageview' },
          // the reference counts a person as retained on any event
          returningEntity: { id: null, type: 'events', name: 'All events' },
        },
      },
      sqlSource: 'reference (e)',
      sql: refSql('e'),
      check: (body, rows) => {
        const cohorts = results(body).map((c) => ((c.values as { count: unknown }[]) ?? []).map((v) => num(v.count)));
        const differing = rows.filter((row) => cohorts[num(row[0])]?.[num(row[1])] !== num(row[2]));
        const first = differing[0];
        return {
          ok: rows.length > 0 && differing.length === 0,
          detail:
            `${cohorts.length} cohorts, ${rows.length} reference cells, week 0 cohort ${cohorts[0]?.[0] ?? '-'}` +
            (first ? `; ${differing.length} cells differ (first c${num(first[0])}+${num(first[1])}: ${cohorts[num(first[0])]?.[num(first[1])]} vs ${num(first[2])})` : ''),
        };
      },
    },
    {
      id: 'paths',
      label: 'Paths: top 50 edges, all events, last 7 days',
      query: { kind: 'PathsQuery', dateRange: { date_from: day(from7), date_to: day(lastDay) }, pathsFilter: { stepLimit: 5, edgeLimit: 50 } },
      sqlSource: 'hand-written',
      // Item per event ($pageview: URL without one trailing slash; $screen: screen name; else the event), sessions split
      // at gaps of 30 minutes, runs of one item collapsed to their last event, the first 5 items of each session, and
      // the edges between consecutive items: count and mean time (ms). Equal timestamps are ordered by item, as the API does. (The API also prunes edges not reachable from
      // a step-1 node among the 50 returned: none are at this size.)
      sql: `WITH
        ev AS (SELECT person_id AS actor, epoch_ms(timestamp) AS ms,
                      CASE WHEN event = '$pageview' THEN (CASE WHEN ends_with(u, '/') AND length(u) > 1 THEN left(u, length(u) - 1) ELSE u END)
                           WHEN event = '$screen' THEN coalesce(nullif(properties->>'$."$screen_name"', ''), '')
                           ELSE event END AS item
               FROM (SELECT *, coalesce(nullif(properties->>'$."$current_url"', ''), '') AS u FROM events
                     WHERE project_id = 1 AND person_id IS NOT NULL AND ${last7})),
        g AS (SELECT actor, ms, item, sum(CASE WHEN ms - prev_ms < 1800000 THEN 0 ELSE 1 END) OVER (PARTITION BY actor ORDER BY ms, item ROWS UNBOUNDED PRECEDING) AS sess
              FROM (SELECT *, lag(ms) OVER (PARTITION BY actor ORDER BY ms, item) AS prev_ms FROM ev)),
        c AS (SELECT actor, sess, ms, item FROM (SELECT *, lead(item) OVER (PARTITION BY actor, sess ORDER BY ms, item) AS next_item FROM g)
              WHERE next_item IS NULL OR next_item <> item),
        n AS (SELECT item, row_number() OVER w AS step, lead(item) OVER w AS next_item, lead(ms) OVER w - ms AS dt
              FROM c WINDOW w AS (PARTITION BY actor, sess ORDER BY ms, item))
        SELECT step || '_' || item AS source, (step + 1) || '_' || next_item AS target, count(*) AS value, avg(dt) AS average_conversion_time
        FROM n WHERE step < 5 AND next_item IS NOT NULL
        GROUP BY 1, 2 ORDER BY value DESC, source, target LIMIT 50`,
      check: (body, rows) => {
        const got = results(body).map((e) => `${String(e.source)} → ${String(e.target)}: ${num(e.value)}`);
        // The API keeps only edges reachable from a step-1 node through the returned edges: prune alike.
        const reach = new Set<string>();
        const stack = rows.map((r) => String(r[0])).filter((s) => s.startsWith('1_'));
        while (stack.length) {
          const n = stack.pop()!;
          if (reach.has(n)) continue;
          reach.add(n);
          for (const r of rows) if (String(r[0]) === n) stack.push(String(r[1]));
        }
        const want = rows.filter((r) => reach.has(String(r[0]))).map((r) => `${String(r[0])} → ${String(r[1])}: ${num(r[2])}`);
        const missing = want.filter((w) => !got.includes(w));
        const extra = got.filter((g) => !want.includes(g));
        return {
          ok: missing.length === 0 && extra.length === 0,
          detail: `${got.length} edges vs ${want.length}` + (missing.length || extra.length ? `; differ: ${[...missing.map((m) => `-${m}`), ...extra.map((e) => `+${e}`)].slice(0, 3).join(', ')}` : ''),
        };
      },
    },
  ];
}

const round = (x: number): number => Math.round(x * 10) / 10;

export async function benchInsights(
  spec: DatasetSpec,
  opts: RangeSpec & { runs: number; load?: 'capture' | 'copy' },
): Promise<InsightsBenchResult | { skipped: string }> {
  const opened = await openQueryServer(spec, { load: opts.load });
  if ('skipped' in opened) return opened;
  const { server, dataDir, load, refresh } = opened;
  const refFile = await ensureReferenceDb(spec);
  const inst = await DuckDBInstance.create(refFile, { access_mode: 'READ_ONLY' });
  const conn = await inst.connect();
  try {
    // Retention weeks: Monday, as the reference SQL.
    let weekStartDay: number | null = null;
    const project = await server.api('GET', '/api/projects/1/');
    weekStartDay = (project.body as { week_start_day?: number }).week_start_day ?? null;
    if (weekStartDay !== 1) {
      const patched = await server.api('PATCH', '/api/projects/1/', { week_start_day: 1 });
      if (patched.status === 200) weekStartDay = 1;
      else process.stderr.write(`[bench] insights: could not set week_start_day = 1 (${patched.status}); retention weeks may differ\n`);
    }

    const out: InsightTiming[] = [];
    for (const c of insightCases(opts)) {
      const base = { id: c.id, label: c.label, query: c.query, sqlSource: c.sqlSource, sql: c.sql };
      const first = await runQuery(server, c.query, refresh); // warm-up
      let rows: Rows = ((await conn.runAndReadAll(c.sql)).getRows() as Rows).map((r) => r.map(norm)); // warm-up
      if (first.status !== 200) {
        out.push({
          ...base,
          medianMs: NaN,
          runsMs: [],
          sqlMedianMs: NaN,
          sqlRunsMs: [],
          ratio: NaN,
          check: { ok: null, detail: `HTTP ${first.status}` },
          error: first.body,
        });
        process.stderr.write(`[bench] insights (${c.id}): HTTP ${first.status} ${JSON.stringify(first.body).slice(0, 300)}\n`);
        continue;
      }
      const times: number[] = [];
      const sqlTimes: number[] = [];
      let last = first;
      for (let i = 0; i < opts.runs; i++) {
        const r0 = performance.now();
        const reader = await conn.runAndReadAll(c.sql);
        rows = (reader.getRows() as Rows).map((r) => r.map(norm));
        sqlTimes.push(performance.now() - r0);
        const t = performance.now();
        last = await runQuery(server, c.query, refresh);
        times.push(performance.now() - t);
      }
      let check: InsightTiming['check'];
      try {
        check = last.status === 200 ? c.check(last.body as Record<string, unknown>, rows) : { ok: null, detail: `HTTP ${last.status}` };
      } catch (e) {
        check = { ok: false, detail: `check failed: ${(e as Error).message}` };
      }
      const medianMs = round(median(times));
      const sqlMedianMs = round(median(sqlTimes));
      out.push({
        ...base,
        medianMs,
        runsMs: times.map(round),
        sqlMedianMs,
        sqlRunsMs: sqlTimes.map(round),
        ratio: Math.round((medianMs / Math.max(sqlMedianMs, 0.1)) * 100) / 100,
        check,
      });
      process.stderr.write(`[bench] insights (${c.id}): ${medianMs} ms, SQL ${sqlMedianMs} ms${check.ok === false ? ` MISMATCH ${check.detail}` : ''}\n`);
    }
    return { dataDir: path.relative(process.cwd(), dataDir), load, refresh, weekStartDay, queries: out };
  } finally {
    conn.closeSync();
    inst.closeSync();
    await server.stop().catch(() => undefined);
  }
}

