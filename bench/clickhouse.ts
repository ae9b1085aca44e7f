/**
 * `--only clickhouse`: the insight benchmarks on ClickHouse beside DuckDB, in one run.
 *
 * For each question (daily count, DAU, browser breakdown, 3-step funnel, 8 × 8 weekly retention over the dataset):
 *   - hand-written ClickHouse SQL sent straight to ClickHouse's HTTP interface (windowFunnel for the funnel, arrays
 *     for retention: the best a person writing ClickHouse SQL by hand would do on 18.16);
 *   - Quarry's own generated SQL: the insight node through `POST /api/projects/1/query/` (refresh force_blocking)
 *     of a server started with QUARRY_EVENTS_ENGINE=clickhouse;
 *   - the DuckDB reference SQL on the reference DuckDB file, and (when its data directory is free) the same node
 *     through a DuckDB-backed Quarry server (the `insights` bench's server and data).
 * Runs alternate (one warm-up each, then `runs` rounds), so every variant sees the same machine state. The ratio
 * reported is Quarry on ClickHouse / hand-written ClickHouse SQL (target ≤ 1.25×). Answers are checked against
 * the hand-written ClickHouse rows; a mismatch is reported, not fatal.
 *
 * Data: ClickHouse (Debian's clickhouse-server, on loopback) runs from `.bench-data/clickhouse-<dataset>/`, started
 * and stopped by PID through `.ci/clickhouse`. The first run fills it with `quarry migrate-events --to clickhouse`
 * from a copy of the reference DuckDB file (a bench server may hold the original), then writes
 * `bench-loaded.json`; later runs reuse the directory.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { BENCH_DIR, datasetName, ensureReferenceDb, type DatasetSpec } from './dataset';
import { insightCases } from './insights';
import { openQueryServer, runQuery } from './queries';
import { median, type RangeSpec } from './reference-sql';
import { startBenchServer, type BenchServer } from './server';
import { freePorts } from '../src/engines/clickhouse/local-ports';

const run = promisify(execFile);
/** The checkout root: the nearest directory above the compiled bench holding `.ci/clickhouse` (any --outDir depth). */
function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, '.ci', 'clickhouse'))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(from, '..', '..');
  }
}
const ROOT = findRoot(__dirname);
const SCRIPT = path.join(ROOT, '.ci', 'clickhouse');
/** The compiled CLI next to this compiled bench (as bench/server.ts starts it). */
const MAIN = path.resolve(__dirname, '..', 'src', 'main.js');
const DAY = 86_400_000;
const DATABASE = 'quarry';

export interface ClickHouseTiming {
  id: string;
  label: string;
  clickhouseSql: string;
  /** Hand-written ClickHouse SQL, direct. */
  chSqlMs: number;
  /** Quarry's generated SQL on ClickHouse, through HTTP. */
  quarryChMs: number;
  /** DuckDB reference SQL on the reference file. */
  duckSqlMs: number;
  /** Quarry on DuckDB through HTTP (null when that server could not be opened). */
  quarryDuckMs: number | null;
  /** quarryChMs / chSqlMs (target ≤ 1.25). */
  ratio: number;
  runs: { chSql: number[]; quarryCh: number[]; duckSql: number[]; quarryDuck: number[] };
  check: { ok: boolean | null; detail: string };
  error?: unknown;
}

export interface ClickHouseBenchResult {
  server: string;
  dataDir: string;
  loadSeconds: number | null;
  quarryDuck: 'ok' | string;
  queries: ClickHouseTiming[];
}

const round = (x: number): number => Math.round(x * 10) / 10;
const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v ?? NaN));

/** Hand-written ClickHouse SQL for the same questions as the DuckDB reference (bench/reference-sql.ts). */
export function clickhouseSql(r: RangeSpec): Record<string, string> {
  const end = new Date(r.start.getTime() + r.days * DAY);
  const from30 = new Date(end.getTime() - 30 * DAY);
  const d = (x: Date) => `'${x.toISOString().slice(0, 10)}'`;
  const t = (x: Date) => `toDateTime('${x.toISOString().slice(0, 19).replace('T', ' ')}', 'UTC')`;
  // toDate(timestamp) is in the primary key (project_id, toDate(timestamp), ...): day ranges on it prune granules.
  const last30 = `project_id = 1 AND toDate(timestamp) >= ${d(from30)} AND toDate(timestamp) < ${d(end)}`;
  const all = `project_id = 1 AND toDate(timestamp) >= ${d(r.start)} AND toDate(timestamp) < ${d(end)}`;
  const monday = `toRelativeDayNum(toDate(${d(r.start)}))`;
  return {
    'trends-total': `SELECT toDate(timestamp) AS day, count() AS c FROM events WHERE ${last30} AND event = '$pageview' GROUP BY day ORDER BY day`,
    'trends-dau': `SELECT toDate(timestamp) AS day, uniqExact(person_id) AS c FROM events WHERE ${last30} AND event = '$pageview' GROUP BY day ORDER BY day`,
    'trends-breakdown': `SELECT nullIf(visitParamExtractString(properties, '$browser'), '') AS browser, count() AS c FROM events WHERE ${last30} AND event = '$pageview' GROUP BY browser ORDER BY c DESC, browser LIMIT 25`,
    funnel: `SELECT countIf(level >= 1), countIf(level >= 2), countIf(level >= 3) FROM (
               SELECT person_id, windowFunnel(${14 * 86400})(timestamp, event = '$pageview', event = 'signup', event = 'purchase') AS level
               FROM events WHERE ${all} AND timestamp < ${t(end)} AND event IN ('$pageview', 'signup', 'purchase') AND isNotNull(person_id)
               GROUP BY person_id)`,
    retention: `SELECT cohort, off, count() FROM (
                  SELECT cohort, arrayJoin(arrayFilter(o -> o >= 0 AND o <= 7, arrayMap(w -> w - cohort, weeks))) AS off FROM (
                    SELECT person_id,
                           intDiv(toInt64(toRelativeDayNum(toMonday(minIf(timestamp, event = '$pageview')))) - ${monday}, 7) AS cohort,
                           groupUniqArray(intDiv(toInt64(toRelativeDayNum(toMonday(timestamp))) - ${monday}, 7)) AS weeks
                    FROM events WHERE ${all} AND isNotNull(person_id) GROUP BY person_id HAVING countIf(event = '$pageview') > 0)
                  WHERE cohort BETWEEN 0 AND 7)
                GROUP BY cohort, off ORDER BY cohort, off`,
  };
}

interface ClickHouseServer {
  url: string;
  pid: number;
  dir: string;
  stop(): Promise<void>;
}

async function startClickHouse(dir: string): Promise<ClickHouseServer> {
  const port = await freePorts(3);
  const { stdout } = await run('bash', [SCRIPT, 'start-single', String(port), dir]);
  const pid = Number(stdout.trim());
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`.ci/clickhouse start-single printed ${JSON.stringify(stdout)}`);
  let stopped = false;
  return {
    url: `http://127.0.0.1:${port}`,
    pid,
    dir,
    async stop() {
      if (stopped) return;
      stopped = true;
      await run('bash', [SCRIPT, 'stop', String(pid)]);
    },
  };
}

async function chQuery(url: string, sql: string): Promise<unknown[][]> {
  const res = await fetch(`${url}/?database=${DATABASE}`, { method: 'POST', body: `${sql} FORMAT JSONCompact` });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`ClickHouse answered ${res.status}: ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { data: unknown[][] }).data;
}

/** Fills the ClickHouse data directory through `quarry migrate-events --to clickhouse` (first run only). */
async function ensureLoaded(spec: DatasetSpec, ch: ClickHouseServer, marker: string): Promise<number | null> {
  if (fs.existsSync(marker)) return null;
  const src = path.join(BENCH_DIR, `clickhouse-${datasetName(spec)}.migrate-src`);
  fs.rmSync(src, { recursive: true, force: true });
  fs.mkdirSync(src, { recursive: true });
  const t = Date.now();
  try {
    fs.copyFileSync(await ensureReferenceDb(spec), path.join(src, 'events.duckdb'));
    process.stderr.write(`[bench] clickhouse: loading ${spec.events.toLocaleString('en-US')} events with migrate-events…\n`);
    await run(process.execPath, [MAIN, 'migrate-events', '--to', 'clickhouse', '--batch-size', '200000'], {
      env: { ...process.env, QUARRY_DATA_DIR: src, QUARRY_EVENTS_ENGINE: 'clickhouse', QUARRY_CLICKHOUSE_URL: ch.url, QUARRY_CLICKHOUSE_DATABASE: DATABASE },
      maxBuffer: 64 * 1024 * 1024,
    });
  } finally {
    fs.rmSync(src, { recursive: true, force: true });
  }
  const seconds = (Date.now() - t) / 1000;
  fs.writeFileSync(marker, JSON.stringify({ ...spec, loadedWith: 'migrate-events', loadedAt: new Date().toISOString(), loadSeconds: seconds }) + '\n');
  return seconds;
}

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = performance.now();
  const v = await fn();
  return [performance.now() - t, v];
}

export async function benchClickHouse(spec: DatasetSpec, opts: RangeSpec & { runs: number }): Promise<ClickHouseBenchResult | { skipped: string }> {
  try {
    await run('bash', [SCRIPT, 'binary']);
  } catch {
    return { skipped: 'clickhouse-server is not installed (.ci/clickhouse install)' };
  }
  const dir = path.join(BENCH_DIR, `clickhouse-${datasetName(spec)}`);
  fs.mkdirSync(dir, { recursive: true });
  const marker = path.join(dir, 'bench-loaded.json');
  const ch = await startClickHouse(dir);
  let chServer: BenchServer | undefined;
  let duck: Awaited<ReturnType<typeof openQueryServer>> | undefined;
  let inst: DuckDBInstance | undefined;
  try {
    const loadSeconds = await ensureLoaded(spec, ch, marker);
    const version = String((await chQuery(ch.url, 'SELECT version()'))[0][0]);

    // Quarry on ClickHouse: fresh metadata, the events in ClickHouse.
    const serverDir = path.join(BENCH_DIR, `clickhouse-${datasetName(spec)}.server`);
    fs.rmSync(serverDir, { recursive: true, force: true });
    chServer = await startBenchServer(serverDir, {
      env: { QUARRY_EVENTS_ENGINE: 'clickhouse', QUARRY_CLICKHOUSE_URL: ch.url, QUARRY_CLICKHOUSE_DATABASE: DATABASE },
    });
    const patched = await chServer.api('PATCH', '/api/projects/1/', { week_start_day: 1 });
    if (patched.status !== 200) process.stderr.write(`[bench] clickhouse: could not set week_start_day = 1 (${patched.status})\n`);

    // DuckDB beside it: the reference SQL on the reference file, and Quarry on DuckDB when its directory is free.
    inst = await DuckDBInstance.create(await ensureReferenceDb(spec), { access_mode: 'READ_ONLY' });
    const conn = await inst.connect();
    let quarryDuck = 'ok';
    try {
      duck = await openQueryServer(spec, { load: 'copy' });
      if ('skipped' in duck) quarryDuck = duck.skipped;
    } catch (e) {
      quarryDuck = `not run: ${(e as Error).message.split('\n')[0]}`;
      duck = undefined;
    }
    const duckServer = duck && !('skipped' in duck) ? duck : undefined;
    if (duckServer) await duckServer.server.api('PATCH', '/api/projects/1/', { week_start_day: 1 });

    const chSql = clickhouseSql(opts);
    const out: ClickHouseTiming[] = [];
    for (const c of insightCases(opts).filter((x) => chSql[x.id])) {
      const sql = chSql[c.id];
      const r: ClickHouseTiming['runs'] = { chSql: [], quarryCh: [], duckSql: [], quarryDuck: [] };
      const base = { id: c.id, label: c.label, clickhouseSql: sql.replace(/\s+/g, ' ') };
      try {
        // Warm-up of every variant.
        let rows = await chQuery(ch.url, sql);
        let answer = await runQuery(chServer, c.query, 'force_blocking');
        if (answer.status !== 200) throw Object.assign(new Error(`Quarry on ClickHouse answered HTTP ${answer.status}`), { body: answer.body });
        await conn.runAndReadAll(c.sql);
        if (duckServer) await runQuery(duckServer.server, c.query, duckServer.refresh);
        for (let i = 0; i < opts.runs; i++) {
          const [a, rowsNow] = await timed(() => chQuery(ch.url, sql));
          rows = rowsNow;
          r.chSql.push(a);
          const [b, ans] = await timed(() => runQuery(chServer!, c.query, 'force_blocking'));
          answer = ans;
          r.quarryCh.push(b);
          r.duckSql.push((await timed(() => conn.runAndReadAll(c.sql)))[0]);
          if (duckServer) r.quarryDuck.push((await timed(() => runQuery(duckServer.server, c.query, duckServer.refresh)))[0]);
        }
        const normRows = rows.map((row) => row.map((v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v)));
        let check: ClickHouseTiming['check'];
        try {
          check = c.check(answer.body as Record<string, unknown>, normRows);
        } catch (e) {
          check = { ok: false, detail: `check failed: ${(e as Error).message}` };
        }
        const chSqlMs = round(median(r.chSql));
        const quarryChMs = round(median(r.quarryCh));
        out.push({
          ...base,
          chSqlMs,
          quarryChMs,
          duckSqlMs: round(median(r.duckSql)),
          quarryDuckMs: r.quarryDuck.length ? round(median(r.quarryDuck)) : null,
          ratio: Math.round((quarryChMs / Math.max(chSqlMs, 0.1)) * 100) / 100,
          runs: { chSql: r.chSql.map(round), quarryCh: r.quarryCh.map(round), duckSql: r.duckSql.map(round), quarryDuck: r.quarryDuck.map(round) },
          check,
        });
        process.stderr.write(`[bench] clickhouse (${c.id}): CH SQL ${chSqlMs} ms, Quarry/CH ${quarryChMs} ms${check.ok === false ? ` MISMATCH ${check.detail}` : ''}\n`);
      } catch (e) {
        out.push({
          ...base,
          chSqlMs: r.chSql.length ? round(median(r.chSql)) : NaN,
          quarryChMs: NaN,
          duckSqlMs: r.duckSql.length ? round(median(r.duckSql)) : NaN,
          quarryDuckMs: null,
          ratio: NaN,
          runs: r,
          check: { ok: null, detail: (e as Error).message },
          error: (e as { body?: unknown }).body ?? (e as Error).message,
        });
        process.stderr.write(`[bench] clickhouse (${c.id}): ${(e as Error).message} ${JSON.stringify((e as { body?: unknown }).body ?? '').slice(0, 300)}\n`);
      }
    }
    conn.closeSync();
    return { server: `clickhouse-server ${version}`, dataDir: path.relative(process.cwd(), dir), loadSeconds, quarryDuck, queries: out };
  } finally {
    inst?.closeSync();
    if (duck && !('skipped' in duck)) await duck.server.stop().catch(() => undefined);
    await chServer?.stop().catch(() => undefined);
    await ch.stop();
  }
}

/** The report table of the `clickhouse` section. */
export function clickhouseReport(r: ClickHouseBenchResult, fmt: (n: number, digits?: number) => string, table: (h: string[], rows: (string | number)[][]) => string): string {
  const f = (x: number | null) => (x === null || Number.isNaN(x) ? '-' : fmt(x, 1));
  return [
    `ClickHouse beside DuckDB (${r.server}; medians in ms; ratio = Quarry on ClickHouse / hand-written ClickHouse SQL, target ≤ 1.25×)`,
    table(
      ['query', 'CH SQL', 'Quarry/CH', 'ratio', 'DuckDB SQL', 'Quarry/DuckDB', 'answer'],
      r.queries.map((q) => [q.label, f(q.chSqlMs), f(q.quarryChMs), Number.isNaN(q.ratio) ? '-' : `×${q.ratio}`, f(q.duckSqlMs), f(q.quarryDuckMs), q.check.ok === false ? `MISMATCH ${q.check.detail}` : q.check.ok === null ? q.check.detail.slice(0, 60) : 'ok']),
    ),
    r.quarryDuck === 'ok' ? '' : `Quarry on DuckDB: ${r.quarryDuck}`,
  ].join('\n');
}
