import { z } from 'zod';
import { throttled } from '../errors';
import type { Principal } from './principal';

/**
 * Route families and their limits, PostHog's documented figures: default CRUD 480/min and 4800/h; analytics
 * (insights, persons) 240/min and 1200/h; the query API and endpoint runs 240/min and 2400/h.
 */
export const RATE_FAMILIES = ['default', 'analytics', 'query', 'endpoint_run'] as const;
export type RateFamily = (typeof RATE_FAMILIES)[number];

/**
 * The throttles of a query API request, as PostHog's QueryViewSet.get_throttles chooses them: a body whose `query` is a
 * HogQL (ProductQL) query has the query throttles; anything else (another kind, polling or cancelling a query) the
 * ClickHouse ones, the analytics family.
 */
export function queryRateFamily(body: unknown): RateFamily {
  const query = body !== null && typeof body === 'object' ? (body as { query?: unknown }).query : undefined;
  const kind = query !== null && typeof query === 'object' ? (query as { kind?: unknown }).kind : undefined;
  return kind === 'HogQLQuery' || kind === 'ProductQLQuery' ? 'query' : 'analytics';
}

export interface RateRule {
  /** Requests per minute. */
  burst: number;
  /** Requests per hour. */
  sustained: number;
}

export const DEFAULT_RATE_RULES: Record<RateFamily, RateRule> = {
  default: { burst: 480, sustained: 4800 },
  analytics: { burst: 240, sustained: 1200 },
  query: { burst: 240, sustained: 2400 },
  endpoint_run: { burst: 240, sustained: 2400 },
};

const ruleSchema = z.object({ burst: z.number().int().min(1), sustained: z.number().int().min(1) }).strict();
export const rateRulesOverride = z.partialRecord(z.enum(RATE_FAMILIES), ruleSchema);

/** Parses QUARRY_RATE_LIMITS (JSON, e.g. `{"query": {"burst": 60, "sustained": 600}}`) over the defaults. */
export function rateRules(json: string | undefined): Record<RateFamily, RateRule> {
  if (!json) return { ...DEFAULT_RATE_RULES };
  return { ...DEFAULT_RATE_RULES, ...rateRulesOverride.parse(JSON.parse(json)) };
}

/**
 * The request times of one throttle (one key or project, one family, one window), oldest first from `head` on: the
 * history of Django REST framework's SimpleRateThrottle, which PostHog's throttles are.
 */
class History {
  private times: number[] = [];
  private head = 0;

  get size(): number {
    return this.times.length - this.head;
  }

  get oldest(): number {
    return this.times[this.head];
  }

  get newest(): number {
    return this.times[this.times.length - 1];
  }

  push(t: number): void {
    this.times.push(t);
  }

  /** Forgets the times at or before `since` (DRF drops `history[-1] <= now - duration`). */
  dropUntil(since: number): void {
    while (this.head < this.times.length && this.times[this.head] <= since) this.head++;
    if (this.head > 64 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }
}

/** The minute (burst) and hour (sustained) throttles of one key or project in one family. */
interface Buckets {
  m: History;
  h: History;
}

/**
 * PostHog's burst and sustained throttles (DRF SimpleRateThrottle: a sliding window over the request times), per key
 * id (never the key) and per project, so one tenant's keys cannot together exceed the project's budget either. Each
 * throttle judges a request on its own, as DRF's check_throttles asks every one of them: a throttle that admits it
 * counts it even when another refuses it, and one that refuses does not. The wait is DRF's: what remains of the
 * window of the oldest request counted, spread over the requests still available; the longest wait is reported.
 */
export class RateLimiter {
  // Per family, by key id and by project id: looked up with values the request already holds (no key strings are
  // built per request; every query and endpoint run passes here).
  private readonly byKey = new Map<RateFamily, Map<string, Buckets>>();
  private readonly byProject = new Map<RateFamily, Map<number, Buckets>>();
  private lastSweep: number;

  constructor(
    private readonly rules: Record<RateFamily, RateRule>,
    // read through Date.now each time (not a reference to it), so a test's clock applies to a running server
    private readonly now: () => number = () => Date.now(),
  ) {
    this.lastSweep = now();
  }

  /** Counts one request of `principal` in `family` (for `projectId` when project-nested); throws 429 when over. */
  check(principal: Principal, family: RateFamily, projectId?: number): void {
    const rule = this.rules[family];
    const t = this.now();
    this.sweep(t);
    const k = bucketsOf(this.byKey, family, principal.keyId);
    const pid = projectId ?? (principal.kind === 'project_secret' ? principal.projectId : undefined);
    const p = pid === undefined ? undefined : bucketsOf(this.byProject, family, pid);
    let refused = false;
    let wait: number | undefined;
    const judge = (history: History, limit: number, duration: number): void => {
      history.dropUntil(t - duration);
      if (history.size < limit) return history.push(t);
      refused = true;
      const available = limit - history.size + 1;
      if (available > 0) wait = Math.max(wait ?? 0, (duration - (t - history.oldest)) / available);
    };
    judge(k.m, rule.burst, MINUTE);
    judge(k.h, rule.sustained, HOUR);
    if (p !== undefined) {
      judge(p.m, rule.burst, MINUTE);
      judge(p.h, rule.sustained, HOUR);
    }
    // DRF's Throttled(wait): whole seconds, rounded up
    if (refused) throw throttled(wait === undefined ? undefined : Math.max(1, Math.ceil(wait / 1000)));
  }

  /** Drops histories idle for an hour, so memory stays bounded by the keys and projects active in the last hour. */
  private sweep(t: number): void {
    if (t - this.lastSweep < MINUTE) return;
    this.lastSweep = t;
    for (const families of [this.byKey, this.byProject] as Map<RateFamily, Map<unknown, Buckets>>[]) {
      for (const buckets of families.values()) {
        for (const [id, b] of buckets) if (b.h.size === 0 || b.h.newest <= t - HOUR) buckets.delete(id);
      }
    }
  }
}

const MINUTE = 60_000;
const HOUR = 3_600_000;

/** The throttles of `id` in `family`, created on first use. */
function bucketsOf<K>(families: Map<RateFamily, Map<K, Buckets>>, family: RateFamily, id: K): Buckets {
  let buckets = families.get(family);
  if (buckets === undefined) families.set(family, (buckets = new Map()));
  let b = buckets.get(id);
  if (b === undefined) buckets.set(id, (b = { m: new History(), h: new History() }));
  return b;
}
