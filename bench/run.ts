/**
 * `npm run bench [-- options]`: builds the dataset (cached in .bench-data/), runs the selected benchmarks, prints a
 * table and writes .bench-data/results.json. Loopback only; every benchmark is bounded in time and count.
 *
 *   --events N          dataset size (default 1,000,000; the reference figures use 10,000,000)
 *   --persons N         persons (default 50,000)
 *   --seed N            generator seed (default 42)
 *   --only a,b          subset of: reference, import, capture, queries, insights, cached, compile, endpoint, soak, clickhouse (default: all)
 *   --cached-seconds S  seconds per route of the cached-answer latency bench (default 10, 50 clients)
 *   --soak-seconds S    duration of the mixed-workload soak (default 600); --soak-clients N its clients (default 200)
 *   --soak-capture M    unique (default: new events) | bounded (re-sends stored events: fixed data size, so growth is a leak) | off
 *   --runs N            timed runs per query after a warm-up (default 5)
 *   --capture-seconds S capture duration (default 15)
 *   --clients N         concurrent capture clients (default 32)
 *   --batch N           events per /batch request (default 100)
 *   --import-chunk N    rows per Ingestor.import() call (default 10,000, as the import command)
 *   --queries-load M    how the query server (queries, insights) gets the data: capture (through /batch/; default up to 2M events)
 *                       or copy (the reference DuckDB file; default above 2M)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_DIR, datasetName, ensureNdjson, ensureReferenceDb, type DatasetSpec } from './dataset';
import { runReferenceSql, type QueryTiming } from './reference-sql';
import { benchImport, type ImportBenchResult } from './import';
import { benchCapture, type CaptureBenchResult } from './capture';
import { benchQueries, type QueriesBenchResult } from './queries';
import { benchInsights, type InsightsBenchResult } from './insights';
import { benchCached, type CachedLatency } from './cached';
import { benchCompile, type CompileTiming } from './compile';
import { benchEndpointRun, type EndpointRunTiming } from './endpoint-run';
import { benchSoak, formatSoak, soakProblems, type SoakResult } from './soak';
import { benchClickHouse, clickhouseReport, type ClickHouseBenchResult } from './clickhouse';

const ALL = ['reference', 'import', 'capture', 'queries', 'insights', 'cached', 'compile', 'endpoint', 'soak', 'clickhouse'] as const;
type BenchName = (typeof ALL)[number];

interface Results {
  startedAt: string;
  finishedAt?: string;
  machine: { cpus: number; cpuModel: string; memoryGiB: number; node: string; platform: string };
  dataset: DatasetSpec & { name: string; start: string; days: number };
  reference?: QueryTiming[];
  import?: ImportBenchResult | { skipped: string };
  capture?: CaptureBenchResult | { skipped: string };
  queries?: QueriesBenchResult | { skipped: string };
  insights?: InsightsBenchResult | { skipped: string };
  cached?: CachedLatency[];
  compile?: CompileTiming[];
  endpoint?: EndpointRunTiming | { skipped: string };
  soak?: SoakResult;
  clickhouse?: ClickHouseBenchResult | { skipped: string };
  errors: { bench: string; message: string }[];
}

function intArg(v: string | undefined, def: number, name: string): number {
  if (v === undefined) return def;
  const n = Number(v.replace(/_/g, ''));
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a non-negative number`);
  return Math.floor(n);
}

function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      events: { type: 'string' },
      persons: { type: 'string' },
      seed: { type: 'string' },
      only: { type: 'string' },
      runs: { type: 'string' },
      'capture-seconds': { type: 'string' },
      clients: { type: 'string' },
      batch: { type: 'string' },
      'import-chunk': { type: 'string' },
      'queries-load': { type: 'string' },
      'cached-seconds': { type: 'string' },
      'soak-seconds': { type: 'string' },
      'soak-clients': { type: 'string' },
      'soak-capture': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(fs.readFileSync(__filename, 'utf8').match(/\/\*\*([\s\S]*?)\*\//)?.[1].replace(/^ \* ?/gm, '') ?? '');
    return 0;
  }
  const spec: DatasetSpec = {
    events: intArg(values.events, 1_000_000, 'events'),
    persons: intArg(values.persons, 50_000, 'persons'),
    seed: intArg(values.seed, 42, 'seed'),
  };
  const only = (values.only ? values.only.split(',').map((s) => s.trim()) : [...ALL]) as BenchName[];
  for (const o of only) if (!ALL.includes(o)) throw new Error(`--only: unknown benchmark "${o}" (known: ${ALL.join(', ')})`);
  const runs = intArg(values.runs, 5, 'runs');
  const start = new Date(Date.UTC(2024, 0, 1));
  const days = 90;

  const results: Results = {
    startedAt: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
    },
    dataset: { ...spec, name: datasetName(spec), start: start.toISOString(), days },
    errors: [],
  };
  const save = () => {
    fs.mkdirSync(BENCH_DIR, { recursive: true });
    const json = JSON.stringify(results, null, 2) + '\n';
    fs.writeFileSync(path.join(BENCH_DIR, 'results.json'), json);
    // Also kept per dataset size, merged section by section, so a 1M run or an `--only` run does not overwrite the
    // other figures of that dataset.
    const perDataset = path.join(BENCH_DIR, `results-${datasetName(spec)}.json`);
    let previous: Record<string, unknown> = {};
    try {
      previous = JSON.parse(fs.readFileSync(perDataset, 'utf8')) as Record<string, unknown>;
    } catch {
      /* first run for this dataset */
    }
    const merged: Record<string, unknown> = { ...previous, ...results };
    for (const k of ALL) if (results[k] === undefined && previous[k] !== undefined) merged[k] = previous[k];
    fs.writeFileSync(perDataset, JSON.stringify(merged, null, 2) + '\n');
  };
  const attempt = async (name: BenchName, fn: () => Promise<void>) => {
    if (!only.includes(name)) return;
    try {
      await fn();
    } catch (e) {
      const message = (e as Error).stack ?? String(e);
      results.errors.push({ bench: name, message });
      process.stderr.write(`[bench] ${name} failed: ${message}\n`);
    }
    save();
  };

  let refDb: string | undefined;
  await attempt('reference', async () => {
    refDb = await ensureReferenceDb(spec);
    results.reference = await runReferenceSql(refDb, { start, days }, { runs });
  });
  await attempt('import', async () => {
    const file = await ensureNdjson(spec);
    refDb ??= await ensureReferenceDb(spec);
    results.import = await benchImport(file, spec, {
      referenceDb: refDb,
      range: { start, days },
      chunkRows: intArg(values['import-chunk'], 10_000, 'import-chunk'),
    });
  });
  await attempt('capture', async () => {
    results.capture = await benchCapture(spec, {
      seconds: intArg(values['capture-seconds'], 15, 'capture-seconds'),
      clients: intArg(values.clients, 32, 'clients'),
      batchSize: intArg(values.batch, 100, 'batch'),
    });
  });
  await attempt('queries', async () => {
    const load = values['queries-load'];
    if (load !== undefined && load !== 'capture' && load !== 'copy') throw new Error('--queries-load must be capture or copy');
    results.queries = await benchQueries(spec, { start, days, runs, reference: results.reference, load });
  });
  await attempt('insights', async () => {
    const load = values['queries-load'];
    if (load !== undefined && load !== 'capture' && load !== 'copy') throw new Error('--queries-load must be capture or copy');
    results.insights = await benchInsights(spec, { start, days, runs, load });
  });
  await attempt('endpoint', async () => {
    const load = values['queries-load'];
    results.endpoint = await benchEndpointRun(spec, { runs, load: load === 'capture' || load === 'copy' ? load : undefined });
  });
  await attempt('compile', async () => {
    results.compile = await benchCompile();
  });
  await attempt('soak', async () => {
    const capture = values['soak-capture'] ?? 'unique';
    if (capture !== 'unique' && capture !== 'bounded' && capture !== 'off') throw new Error('--soak-capture must be unique, bounded or off');
    results.soak = await benchSoak({ seconds: intArg(values['soak-seconds'], 600, 'soak-seconds'), clients: intArg(values['soak-clients'], 200, 'soak-clients'), capture });
    const problems = soakProblems(results.soak);
    if (problems) throw new Error(problems);
  });
  await attempt('clickhouse', async () => {
    results.clickhouse = await benchClickHouse(spec, { start, days, runs });
  });
  await attempt('cached', async () => {
    results.cached = await benchCached({ clients: 50, seconds: intArg(values['cached-seconds'], 10, 'cached-seconds') });
  });
  results.finishedAt = new Date().toISOString();
  save();

  // ---- report
  const out: string[] = [];
  out.push(
    `\nQuarry bench — ${fmt(spec.events)} events, ${fmt(spec.persons)} persons, seed ${spec.seed}; ` +
      `${results.machine.cpus} CPUs, ${results.machine.memoryGiB} GiB, Node ${results.machine.node}\n`,
  );
  if (results.reference) {
    out.push('Reference SQL, DuckDB direct (median of ' + runs + ' after warm-up)');
    out.push(
      table(
        ['query', 'median ms', 'min ms', 'rows'],
        results.reference.map((q) => [`(${q.id}) ${q.label}`, fmt(q.medianMs, 1), fmt(q.minMs, 1), q.rows]),
      ),
    );
    out.push('');
  }
  const sectionFor = (title: string, r: object | undefined, rowsOf: (r: never) => (string | number)[][]) => {
    if (!r) return;
    out.push(title);
    if ('skipped' in r) out.push(`  skipped: ${(r as { skipped: string }).skipped}`);
    else out.push(table(['metric', 'value'], rowsOf(r as never)));
    out.push('');
  };
  if (results.endpoint && !('skipped' in results.endpoint)) {
    const r = results.endpoint;
    out.push('Uncached ProductQL endpoint run vs the same query through the query operation (target ≤ 1.1×)');
    out.push(table(['metric', 'value'], [
      ['query operation (force_blocking) median ms', fmt(r.queryOperationMs, 1)],
      ['endpoint run (refresh: force) median ms', fmt(r.endpointRunMs, 1)],
      ['ratio', `×${r.ratio}`],
      ['same rows', r.sameRows ? 'yes' : 'NO'],
    ]));
    out.push('');
  }
  if (results.compile) {
    out.push('ProductQL parse + resolve + print, in process (targets: p50 < 2 ms with the parse cache, < 15 ms without)');
    out.push(
      table(
        ['query', 'cached p50', 'cached p99', 'uncached p50', 'uncached p99'],
        results.compile.map((c) => [c.query, fmt(c.warmP50Ms, 2), fmt(c.warmP99Ms, 2), fmt(c.coldP50Ms, 2), fmt(c.coldP99Ms, 2)]),
      ),
    );
    out.push('');
  }
  if (results.cached) {
    out.push('Cached answers through HTTP (autocannon in its own process, 50 connections, whole-ms latencies; targets p50 < 2 ms, p99 < 10 ms)');
    out.push(
      table(
        ['route', 'requests', 'req/s', 'errors', 'p50 ms', 'p99 ms'],
        results.cached.map((c) => [c.route, fmt(c.requests), fmt(c.requestsPerSecond), c.errors, fmt(c.p50Ms, 2), fmt(c.p99Ms, 2)]),
      ),
    );
    out.push('');
  }
  if (results.clickhouse) {
    out.push('skipped' in results.clickhouse ? `ClickHouse: skipped: ${results.clickhouse.skipped}` : clickhouseReport(results.clickhouse, fmt, table));
    out.push('');
  }
  sectionFor('Import through the Ingestor (NDJSON.gz file → import())', results.import, (r: ImportBenchResult) => [
    ['events imported', fmt(r.events)],
    ['rows per import() call', fmt(r.chunkRows)],
    ['persons imported', fmt(r.persons)],
    ['seconds', fmt(r.seconds, 1)],
    ['events/s', fmt(r.eventsPerSecond)],
    ['peak RSS MB', fmt(r.peakRssMB)],
    ['DuckDB file MB', fmt(r.dbMB)],
    ...(r.reference
      ? ([
          ['reference: DuckDB appender fed row by row from JS, events/s', `${fmt(r.reference.appender.eventsPerSecond)} (Quarry ×${fmt(r.eventsPerSecond / r.reference.appender.eventsPerSecond, 2)})`],
          ['  the same into the reference\'s 4-column table', `${fmt(r.reference.appenderReferenceTable.eventsPerSecond)} (Quarry ×${fmt(r.eventsPerSecond / r.reference.appenderReferenceTable.eventsPerSecond, 2)})`],
          ['reference: DuckDB bulk load from the file, events/s', `${fmt(r.reference.bulkLoad.eventsPerSecond)} (Quarry ×${fmt(r.eventsPerSecond / r.reference.bulkLoad.eventsPerSecond, 2)})`],
        ] as [string, string][])
      : []),
    ...r.checks.map((c): [string, string] => [`check: ${c.name}`, c.ok ? 'ok' : `MISMATCH ${JSON.stringify(c.detail)}`]),
  ]);
  sectionFor('Capture over HTTP (/batch/, loopback)', results.capture, (r: CaptureBenchResult) => [
    ['clients × events/request', `${r.clients} × ${r.batchSize}`],
    ['seconds', fmt(r.seconds, 1)],
    ['requests ok / failed', `${fmt(r.requestsOk)} / ${fmt(r.requestsFailed)}`],
    ['events acknowledged', fmt(r.eventsAcked)],
    ['events/s acknowledged', fmt(r.eventsPerSecond)],
    ['request latency p50 / p99 ms', `${fmt(r.latencyP50Ms, 1)} / ${fmt(r.latencyP99Ms, 1)}`],
    ['server peak RSS MB', r.serverPeakRssMB === null ? 'n/a' : fmt(r.serverPeakRssMB)],
    ['shutdown (drain) seconds', r.shutdownSeconds === null ? 'n/a' : fmt(r.shutdownSeconds, 1)],
    ['events stored after shutdown', r.eventsStored === null ? 'n/a' : fmt(r.eventsStored)],
    ...(r.eventsStoredAfterRestart !== undefined
      ? [['events stored after a restart (log replay)', r.eventsStoredAfterRestart === null ? 'n/a' : fmt(r.eventsStoredAfterRestart)]]
      : []),
    ['server exit code', String(r.serverExitCode ?? 'signal')],
  ]);
  sectionFor(`ProductQL end to end (POST /api/projects/1/query/; data loaded by ${(results.queries as QueriesBenchResult | undefined)?.load ?? '-'})`, results.queries, (r: QueriesBenchResult) =>
    r.queries.map((q) => [
      `${q.id}: ${q.label}`,
      `${fmt(q.medianMs, 1)} ms${q.referenceMs !== undefined ? ` (reference ${fmt(q.referenceMs, 1)} ms, ×${fmt(q.medianMs / Math.max(q.referenceMs, 0.1), 1)})` : ''}${q.matchesReference === false ? ' ANSWER DIFFERS' : ''}`,
    ]),
  );
  if (results.insights) {
    const r = results.insights;
    out.push(
      `Insights end to end (POST /api/projects/1/query/, refresh ${'skipped' in r ? '-' : (r.refresh ?? 'none')}; data loaded by ${'skipped' in r ? '-' : r.load}) vs hand-written DuckDB SQL on the reference file (median of ${runs} after warm-up, alternating)`,
    );
    if ('skipped' in r) out.push(`  skipped: ${r.skipped}`);
    else
      out.push(
        table(
          ['query', 'Quarry ms', 'hand-written ms', 'ratio', 'SQL', 'answer'],
          r.queries.map((q) => [
            q.label,
            fmt(q.medianMs, 1),
            fmt(q.sqlMedianMs, 1),
            Number.isFinite(q.ratio) ? `×${fmt(q.ratio, 2)}` : '-',
            q.sqlSource,
            q.check.ok === true ? 'ok' : q.check.ok === false ? `MISMATCH: ${q.check.detail}` : `n/a: ${q.check.detail}`,
          ]),
        ),
      );
    out.push('');
  }
  if (results.soak) out.push(formatSoak(results.soak, table, fmt), '');
  for (const e of results.errors) out.push(`ERROR in ${e.bench}: ${e.message.split('\n')[0]}`);
  out.push(`Results: ${path.relative(process.cwd(), path.join(BENCH_DIR, 'results.json'))}`);
  console.log(out.join('\n'));
  return results.errors.length ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exitCode = 1;
  },
);
