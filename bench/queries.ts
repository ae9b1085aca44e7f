/**
 * ProductQL end to end: the same questions as the reference SQL asked through Quarry's API
 * (`POST /api/projects/1/query/` with a ProductQLQuery), against a server holding the same dataset. Reports the
 * median HTTP round trip of `runs` runs after a warm-up (cache bypassed with `refresh: 'force_blocking'`), the
 * median of the reference SQL for the same question timed interleaved with those runs (so both see the same
 * machine load), and whether the answers agree.
 *
 * The server's data directory is cached in .bench-data/<dataset>.server/ and loaded once, then kept:
 * - `load: 'capture'` (default up to 2M events): through `/batch/` with the dataset's own uuids, i.e. real
 *   ingestion (identity, merges, overrides);
 * - `load: 'copy'` (default above 2M, where capture would take long): the reference DuckDB file is copied in as
 *   the server's `events.duckdb` (person ids already resolved, no overrides). Same answers, no ingestion.
 * Skips with a message while the query route does not exist (404).
 */
import fs from 'node:fs';
import path from 'node:path';
import { demoEvents } from '../src/ingest/demo-data';
import { BENCH_DIR, datasetName, demoOptions, ensureReferenceDb, type DatasetSpec } from './dataset';
import { median, referenceQueries, summarize, type QueryTiming, type RangeSpec } from './reference-sql';
import { DuckDBInstance } from '@duckdb/node-api';
import { startBenchServer, type BenchServer } from './server';

export interface QueriesBenchResult {
  dataDir: string;
  load: 'capture' | 'copy';
  loadSeconds: number | null;
  refresh: string | null;
  queries: {
    id: string;
    label: string;
    productql: string;
    medianMs: number;
    runsMs: number[];
    referenceMs?: number;
    /**
     * Median of the server's own total for the request (the `.` timing: validation to envelope, the engine's
     * `execute` stage included) and of its `execute` stage: the HTTP round trip minus `serverMs` is what transport,
     * authentication, JSON and the client cost.
     */
    serverMs?: number;
    executeMs?: number;
    matchesReference?: boolean;
    answer: unknown;
  }[];
}

function day(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** ProductQL versions of the reference questions that ProductQL can express directly. */
export function productqlQueries(r: RangeSpec): { id: string; label: string; query: string }[] {
  const end = new Date(r.start.getTime() + r.days * 86_400_000);
  const from30 = new Date(end.getTime() - 30 * 86_400_000);
  const range = `timestamp >= toDateTime('${day(from30)} 00:00:00') AND timestamp < toDateTime('${day(end)} 00:00:00')`;
  return [
    {
      id: 'a',
      label: 'daily $pageview count, last 30 days',
      query: `SELECT toStartOfDay(timestamp) AS day, count() FROM events WHERE event = '$pageview' AND ${range} GROUP BY day ORDER BY day`,
    },
    {
      id: 'b',
      label: 'daily distinct persons of $pageview, last 30 days',
      query: `SELECT toStartOfDay(timestamp) AS day, count(DISTINCT person_id) FROM events WHERE event = '$pageview' AND ${range} GROUP BY day ORDER BY day`,
    },
    {
      id: 'c',
      label: '$pageview by $browser, top 10, last 30 days',
      query: `SELECT properties.$browser AS browser, count() AS c FROM events WHERE event = '$pageview' AND ${range} GROUP BY browser ORDER BY c DESC, browser LIMIT 10`,
    },
    {
      id: 'f',
      label: "daily count where plan = 'pro', last 30 days",
      query: `SELECT toStartOfDay(timestamp) AS day, count() FROM events WHERE ${range} AND properties.plan = 'pro' GROUP BY day ORDER BY day`,
    },
  ];
}

/** Rows normalized for comparison: day-like strings → YYYY-MM-DD, numeric strings/bigints → numbers. */
function normalizeRows(rows: unknown[][]): unknown[][] {
  return rows.map((row) =>
    row.map((v) => {
      if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}([T ]00:00:00(\.0+)?(Z|[+-]00:?00)?)?$/.test(v)) return v.slice(0, 10);
      if (typeof v === 'string' && /^-?\d+$/.test(v)) return Number(v);
      if (typeof v === 'bigint') return Number(v);
      return v;
    }),
  );
}

function summarizeNormalized(rows: unknown[][]): unknown {
  if (rows.length <= 12) return rows;
  const total = rows.reduce((s, r) => s + (typeof r[r.length - 1] === 'number' ? (r[r.length - 1] as number) : 0), 0);
  return { rows: rows.length, first: rows.slice(0, 3), last: rows[rows.length - 1], sumOfLastColumn: total };
}

/**
 * POSTs a query node (a string is a ProductQLQuery) to /api/projects/1/query/. With `timings`, the node asks for
 * per-stage timings (display-only: same cache key, same work).
 */
export async function runQuery(server: BenchServer, query: string | Record<string, unknown>, refresh: string | null, timings = false) {
  const node = typeof query === 'string' ? { kind: 'ProductQLQuery', query } : query;
  const body: Record<string, unknown> = { query: timings ? { ...node, modifiers: { timings: true } } : node };
  if (refresh) body.refresh = refresh;
  return server.api('POST', '/api/projects/1/query/', body);
}

/** Loads the dataset into a fresh server through /batch/ and waits until every event is queryable. */
async function loadThroughCapture(server: BenchServer, spec: DatasetSpec, refresh: string | null): Promise<void> {
  const project = await server.api('GET', '/api/projects/1/');
  const token = (project.body as { api_token?: string }).api_token;
  if (!token) throw new Error(`cannot read project 1's api_token (${project.status})`);
  process.stderr.write(`[bench] queries: loading ${spec.events.toLocaleString('en-US')} events into the server through /batch/…\n`);
  const it = demoEvents(demoOptions(spec))[Symbol.iterator]();
  let done = false;
  const nextBody = (): string | null => {
    if (done) return null;
    const batch: unknown[] = [];
    while (batch.length < 1000) {
      const r = it.next();
      if (r.done) {
        done = true;
        break;
      }
      batch.push(r.value);
    }
    return batch.length ? JSON.stringify({ api_key: token, historical_migration: true, batch }) : null;
  };
  const worker = async () => {
    for (let b = nextBody(); b !== null; b = nextBody()) {
      for (let attempt = 0; ; attempt++) {
        const res = await fetch(`${server.url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: b });
        const text = await res.text();
        if (res.status === 200) break;
        if (res.status < 500 || attempt >= 5) throw new Error(`/batch/ answered ${res.status}: ${text.slice(0, 300)}`);
        await new Promise((r) => setTimeout(r, 500 * (attempt + 1)));
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  const deadline = Date.now() + 30 * 60_000;
  for (;;) {
    const r = await runQuery(server, 'SELECT count() FROM events', refresh);
    const n = Number((r.body as { results?: unknown[][] }).results?.[0]?.[0] ?? -1);
    if (n >= spec.events) return;
    if (Date.now() > deadline) throw new Error(`only ${n} of ${spec.events} events became queryable`);
    await new Promise((res) => setTimeout(res, 1000));
  }
}

/** A started query server holding the dataset (see {@link openQueryServer}). */
export interface QueryServer {
  server: BenchServer;
  dataDir: string;
  load: 'capture' | 'copy';
  loadSeconds: number | null;
  /** `force_blocking`, or null when the server does not accept a `refresh` parameter. */
  refresh: string | null;
}

/**
 * Starts a server on the dataset's cached data directory (.bench-data/<dataset>.<load>.server/), loading the data
 * first when the directory is not loaded yet (copy of the reference DuckDB file, or capture through /batch/), and
 * probes the query route. Returns `{skipped}` (server already stopped) while the route does not exist. The caller
 * stops `server`.
 */
export async function openQueryServer(spec: DatasetSpec, opts: { load?: 'capture' | 'copy' } = {}): Promise<QueryServer | { skipped: string }> {
  const load = opts.load ?? (spec.events > 2_000_000 ? 'copy' : 'capture');
  const dataDir = path.join(BENCH_DIR, `${datasetName(spec)}.${load}.server`);
  const marker = path.join(dataDir, 'bench-loaded.json');
  if (!fs.existsSync(marker)) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (load === 'copy') {
      fs.mkdirSync(dataDir, { recursive: true });
      const t = Date.now();
      fs.copyFileSync(await ensureReferenceDb(spec), path.join(dataDir, 'events.duckdb'));
      fs.writeFileSync(marker, JSON.stringify({ ...spec, load, loadedAt: new Date().toISOString(), loadSeconds: (Date.now() - t) / 1000 }) + '\n');
    }
  }
  const server = await startBenchServer(dataDir);
  try {
    // Probe the route and the refresh parameter.
    let refresh: string | null = 'force_blocking';
    let probe = await runQuery(server, 'SELECT 1', refresh);
    if (probe.status === 404) {
      await server.stop().catch(() => undefined);
      return { skipped: 'POST /api/projects/1/query/ answered 404: the query route is not wired yet' };
    }
    if (probe.status === 400) {
      refresh = null;
      probe = await runQuery(server, 'SELECT 1', refresh);
    }
    if (probe.status !== 200) throw new Error(`query route answered ${probe.status}: ${JSON.stringify(probe.body).slice(0, 500)}`);

    let loadSeconds: number | null = null;
    if (!fs.existsSync(marker)) {
      const t = Date.now();
      await loadThroughCapture(server, spec, refresh);
      loadSeconds = (Date.now() - t) / 1000;
      fs.writeFileSync(marker, JSON.stringify({ ...spec, load, loadedAt: new Date().toISOString(), loadSeconds }) + '\n');
    }
    return { server, dataDir, load, loadSeconds, refresh };
  } catch (e) {
    await server.stop().catch(() => undefined);
    throw e;
  }
}

export async function benchQueries(
  spec: DatasetSpec,
  opts: RangeSpec & { runs: number; reference?: QueryTiming[]; load?: 'capture' | 'copy' },
): Promise<QueriesBenchResult | { skipped: string }> {
  const opened = await openQueryServer(spec, { load: opts.load });
  if ('skipped' in opened) return opened;
  const { server, dataDir, load, loadSeconds, refresh } = opened;
  try {
    // The reference SQL for the same question is timed interleaved with the API runs (same machine state), when the
    // reference database exists.
    const refFile = path.join(BENCH_DIR, `${datasetName(spec)}.duckdb`);
    const refInst = fs.existsSync(refFile) ? await DuckDBInstance.create(refFile, { access_mode: 'READ_ONLY' }) : null;
    const refConn = refInst ? await refInst.connect() : null;
    const refSql = new Map(referenceQueries(opts).map((r) => [r.id, r.sql]));
    const out: QueriesBenchResult['queries'] = [];
    for (const q of productqlQueries(opts)) {
      const first = await runQuery(server, q.query, refresh);
      if (first.status !== 200) {
        out.push({ id: q.id, label: q.label, productql: q.query, medianMs: NaN, runsMs: [], answer: { error: first.status, body: first.body } });
        continue;
      }
      const times: number[] = [];
      const refTimes: number[] = [];
      const serverTimes: number[] = [];
      const executeTimes: number[] = [];
      const sql = refSql.get(q.id);
      if (refConn && sql) await refConn.runAndReadAll(sql); // warm-up
      let last = first;
      const ref = opts.reference?.find((r) => r.id === q.id);
      let refAnswer: unknown = ref?.answer;
      for (let i = 0; i < opts.runs; i++) {
        if (refConn && sql) {
          const r0 = performance.now();
          const rows = (await refConn.runAndReadAll(sql)).getRows() as unknown[][];
          refTimes.push(performance.now() - r0);
          refAnswer = summarize(rows);
        }
        const t = performance.now();
        last = await runQuery(server, q.query, refresh, true);
        times.push(performance.now() - t);
        const stages = (last.body as { timings?: { k: string; t: number }[] | null }).timings ?? [];
        for (const st of stages) {
          if (st.k === '.') serverTimes.push(st.t * 1000);
          if (st.k === './execute') executeTimes.push(st.t * 1000);
        }
      }
      const rows = normalizeRows(((last.body as { results?: unknown[][] }).results ?? []) as unknown[][]);
      const answer = summarizeNormalized(rows);
      out.push({
        id: q.id,
        label: q.label,
        productql: q.query,
        medianMs: Math.round(median(times) * 10) / 10,
        runsMs: times.map((x) => Math.round(x * 10) / 10),
        referenceMs: refTimes.length ? Math.round(median(refTimes) * 10) / 10 : ref?.medianMs,
        serverMs: serverTimes.length ? Math.round(median(serverTimes) * 10) / 10 : undefined,
        executeMs: executeTimes.length ? Math.round(median(executeTimes) * 10) / 10 : undefined,
        matchesReference: refAnswer !== undefined ? JSON.stringify(refAnswer) === JSON.stringify(answer) : undefined,
        answer,
      });
      process.stderr.write(`[bench] ProductQL (${q.id}): ${Math.round(median(times))} ms\n`);
    }
    refConn?.closeSync();
    refInst?.closeSync();
    return { dataDir: path.relative(process.cwd(), dataDir), load, loadSeconds, refresh, queries: out };
  } finally {
    await server.stop().catch(() => undefined);
  }
}
