import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Prometheus metrics at GET /metrics: requests and latencies per route pattern (never raw URLs, so the label
 * set stays bounded and holds no ids), queries by kind and cache outcome, the cache hit ratio, ingest lag and
 * engine errors, plus the process defaults (memory, event-loop lag, GC).
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly queryDuration = new Histogram({
    name: 'quarry_query_duration_seconds',
    help: 'Time to compute a query (cache misses) by kind.',
    labelNames: ['kind'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  private readonly engineErrors = new Counter({
    name: 'quarry_engine_errors_total',
    help: 'Queries that failed inside the event engine (timeouts included), by error code.',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });
  private hits = 0;
  private lookups = 0;

  constructor(ingestLag: () => number, engineMemory?: () => Promise<number>) {
    this.requestCounts = new LabelledCounter(this.registry, 'quarry_http_requests_total', 'HTTP requests by method, route pattern and status.');
    this.requestLatency = new LatencyHistogram(
      this.registry,
      'quarry_http_request_duration_seconds',
      'HTTP request duration by route pattern.',
      [0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    );
    this.queryCounts = new LabelledCounter(this.registry, 'quarry_queries_total', 'Query answers by kind, cache outcome (hit/miss) and status (ok/error/cancelled).');
    collectDefaultMetrics({ register: this.registry, prefix: 'quarry_process_' });
    if (engineMemory)
      new Gauge({
        name: 'quarry_engine_memory_bytes',
        help: "Memory held by the embedded event engine (DuckDB's buffer manager), bounded by QUARRY_DUCKDB_MEMORY_LIMIT; rows written since the last checkpoint are released by it (QUARRY_DUCKDB_CHECKPOINT_THRESHOLD).",
        registers: [this.registry],
        async collect() {
          this.set(await engineMemory().catch(() => Number.NaN));
        },
      });
    new Gauge({
      name: 'quarry_ingest_lag_events',
      help: 'Events acknowledged (durable) but not yet queryable.',
      registers: [this.registry],
      collect() {
        this.set(ingestLag());
      },
    });
    const self = this;
    new Gauge({
      name: 'quarry_query_cache_hit_ratio',
      help: 'Share of query answers served from the result cache since start.',
      registers: [this.registry],
      collect() {
        this.set(self.lookups ? self.hits / self.lookups : 0);
      },
    });
  }

  // Request and query counts are plain numbers in maps keyed by their labels, handed to the registry only when
  // /metrics is read (see LabelledCounter, LatencyHistogram): prom-client hashes a label object on every call,
  // even through a label-bound child, which is a measurable share of a cached answer's cost.
  private readonly requestCounts: LabelledCounter;
  private readonly requestLatency: LatencyHistogram;
  private readonly queryCounts: LabelledCounter;
  private readonly requestKeys = new Map<string, Map<string, Map<number, RequestSlots>>>();
  private readonly queryKeys = new Map<string, (CountSlot | undefined)[]>();

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.requestKeys.get(route);
    if (byMethod === undefined) this.requestKeys.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
    let c = byStatus.get(status);
    if (c === undefined) {
      c = { count: this.requestCounts.slot({ method, route, status: String(status) }), latency: this.requestLatency.series(route) };
      byStatus.set(status, c);
    }
    c.count.value++;
    c.latency.observe(seconds);
  }

  observeQuery(kind: string, cached: boolean, status: 'ok' | 'error' | 'cancelled', seconds: number, errorCode?: string | null): void {
    this.lookups++;
    if (cached) this.hits++;
    let byOutcome = this.queryKeys.get(kind);
    if (byOutcome === undefined) this.queryKeys.set(kind, (byOutcome = []));
    const i = (cached ? 3 : 0) + (status === 'ok' ? 0 : status === 'error' ? 1 : 2);
    let c = byOutcome[i];
    if (c === undefined) byOutcome[i] = c = this.queryCounts.slot({ kind, cache: cached ? 'hit' : 'miss', status });
    c.value++;
    if (!cached && status === 'ok') this.queryDuration.observe({ kind }, seconds);
    if (errorCode && /^query_(timeout|error)$/.test(errorCode)) this.engineErrors.inc({ code: errorCode });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

interface RequestSlots {
  count: CountSlot;
  latency: HistogramSeries;
}

interface CountSlot {
  labels: Record<string, string>;
  value: number;
}

/** The shape prom-client's Registry reads from a metric (`get()`), for the two hand-kept kinds below. */
interface CollectedMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: { labels: Record<string, string | number>; value: number; metricName?: string }[];
}

/** A counter whose series are plain numbers ({@link CountSlot}), read by the registry at collection time. */
class LabelledCounter {
  private readonly slots: CountSlot[] = [];

  constructor(
    registry: Registry,
    readonly name: string,
    readonly help: string,
  ) {
    registry.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  /** A new series (callers keep it and bump `value`; each label set is asked for once). */
  slot(labels: Record<string, string>): CountSlot {
    const s = { labels, value: 0 };
    this.slots.push(s);
    return s;
  }

  get(): CollectedMetric {
    return { name: this.name, help: this.help, type: 'counter', aggregator: 'sum', values: this.slots.map((s) => ({ labels: s.labels, value: s.value })) };
  }

  reset(): void {
    for (const s of this.slots) s.value = 0;
  }
}

/** One route's latency series: per-bucket counts (not cumulative until collected), sum and count. */
class HistogramSeries {
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(
    readonly route: string,
    private readonly upper: readonly number[],
  ) {
    this.counts = new Array<number>(upper.length).fill(0);
  }

  observe(v: number): void {
    this.sum += v;
    this.count++;
    const upper = this.upper;
    for (let i = 0; i < upper.length; i++) {
      if (v <= upper[i]) {
        this.counts[i]++;
        return;
      }
    }
  }
}

/** A histogram by route, exposed as prom-client's would be (`_bucket` with `le`, `_sum`, `_count`). */
class LatencyHistogram {
  private readonly byRoute = new Map<string, HistogramSeries>();

  constructor(
    registry: Registry,
    readonly name: string,
    readonly help: string,
    private readonly upper: readonly number[],
  ) {
    registry.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  series(route: string): HistogramSeries {
    let s = this.byRoute.get(route);
    if (s === undefined) this.byRoute.set(route, (s = new HistogramSeries(route, this.upper)));
    return s;
  }

  get(): CollectedMetric {
    const values: CollectedMetric['values'] = [];
    for (const s of this.byRoute.values()) {
      let acc = 0;
      for (let i = 0; i < this.upper.length; i++) {
        acc += s.counts[i];
        values.push({ labels: { le: this.upper[i], route: s.route }, value: acc, metricName: `${this.name}_bucket` });
      }
      values.push({ labels: { le: '+Inf', route: s.route }, value: s.count, metricName: `${this.name}_bucket` });
      values.push({ labels: { route: s.route }, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { route: s.route }, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: 'histogram', aggregator: 'sum', values };
  }

  reset(): void {
    for (const s of this.byRoute.values()) {
      s.counts.fill(0);
      s.sum = 0;
      s.count = 0;
    }
  }
}
