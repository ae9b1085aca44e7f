import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Prometheus metrics at GET /metrics: requests and latencies per route pattern (never raw URLs, so the label
 * set stays bounded and holds no ids), queries by kind and cache outcome, the cache hit ratio, ingest lag and
 * engine errors, plus the process defaults (memory, event-loop lag, GC).
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'quarry_http_requests_total',
    help: 'HTTP requests by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'quarry_http_request_duration_seconds',
    help: 'HTTP request duration by route pattern.',
    labelNames: ['route'] as const,
    buckets: [0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  private readonly queries = new Counter({
    name: 'quarry_queries_total',
    help: 'Query answers by kind, cache outcome (hit/miss) and status (ok/error/cancelled).',
    labelNames: ['kind', 'cache', 'status'] as const,
    registers: [this.registry],
  });
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
    collectDefaultMetrics({ register: this.registry, prefix: 'quarry_process_' });
    if (engineMemory)
      new Gauge({
        name: 'quarry_engine_memory_bytes',
        help: "Memory held by the embedded event engine (DuckDB's buffer manager), bounded by QUARRY_DUCKDB_MEMORY_LIMIT.",
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

  // Label-bound children, looked up by one string: prom-client hashes a label object on every call otherwise.
  // Bounded like the label sets themselves (route patterns, not URLs; query kinds are validated).
  private readonly requestChildren = new Map<string, Map<string, Map<number, RequestChildren>>>();
  private readonly queryChildren = new Map<string, ({ inc(): void } | undefined)[]>();

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.requestChildren.get(route);
    if (byMethod === undefined) this.requestChildren.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
    let c = byStatus.get(status);
    if (c === undefined) {
      c = { count: this.requests.labels({ method, route, status: String(status) }), latency: this.latency.labels({ route }) };
      byStatus.set(status, c);
    }
    c.count.inc();
    c.latency.observe(seconds);
  }

  observeQuery(kind: string, cached: boolean, status: 'ok' | 'error' | 'cancelled', seconds: number, errorCode?: string | null): void {
    this.lookups++;
    if (cached) this.hits++;
    let byOutcome = this.queryChildren.get(kind);
    if (byOutcome === undefined) this.queryChildren.set(kind, (byOutcome = []));
    const i = (cached ? 3 : 0) + (status === 'ok' ? 0 : status === 'error' ? 1 : 2);
    let c = byOutcome[i];
    if (c === undefined) byOutcome[i] = c = this.queries.labels({ kind, cache: cached ? 'hit' : 'miss', status });
    c.inc();
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

interface RequestChildren {
  count: { inc(): void };
  latency: { observe(v: number): void };
}
