import { z } from 'zod';
import { throttled } from '../errors';
import type { Principal } from './principal';

/**
 * Route families and their limits, PostHog's documented figures: default CRUD 480/min and 4800/h; analytics
 * (insights, persons) 240/min and 1200/h; the query API and endpoint runs 240/min and 2400/h.
 */
export const RATE_FAMILIES = ['default', 'analytics', 'query', 'endpoint_run'] as const;
export type RateFamily = (typeof RATE_FAMILIES)[number];

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

interface Window {
  start: number;
  count: number;
}

/** The minute and hour windows of one key or project in one family. */
interface Buckets {
  m: Window;
  h: Window;
}

/**
 * Fixed-window counters per key and per project, burst (minute) and sustained (hour). A request is counted
 * in every bucket it belongs to only when all of them admit it, so a refused request costs nothing. Buckets
 * are kept per key id (never the key) and per project, so one tenant's keys cannot together exceed the
 * project's budget either.
 */
export class RateLimiter {
  // Per family, by key id and by project id: looked up with values the request already holds (no key strings are
  // built per request; every query and endpoint run passes here).
  private readonly byKey = new Map<RateFamily, Map<string, Buckets>>();
  private readonly byProject = new Map<RateFamily, Map<number, Buckets>>();
  private lastSweep: number;

  constructor(
    private readonly rules: Record<RateFamily, RateRule>,
    private readonly now: () => number = Date.now,
  ) {
    this.lastSweep = now();
  }

  /** Counts one request of `principal` in `family` (for `projectId` when project-nested); throws 429 when over. */
  check(principal: Principal, family: RateFamily, projectId?: number): void {
    const rule = this.rules[family];
    const t = this.now();
    this.sweep(t);
    const k = bucketsOf(this.byKey, family, principal.keyId, t);
    const pid = projectId ?? (principal.kind === 'project_secret' ? principal.projectId : undefined);
    const p = pid === undefined ? undefined : bucketsOf(this.byProject, family, pid, t);
    let wait = 0;
    if (k.m.count >= rule.burst) wait = Math.max(wait, Math.ceil((k.m.start + MINUTE - t) / 1000));
    if (k.h.count >= rule.sustained) wait = Math.max(wait, Math.ceil((k.h.start + HOUR - t) / 1000));
    if (p !== undefined && p.m.count >= rule.burst) wait = Math.max(wait, Math.ceil((p.m.start + MINUTE - t) / 1000));
    if (p !== undefined && p.h.count >= rule.sustained) wait = Math.max(wait, Math.ceil((p.h.start + HOUR - t) / 1000));
    if (wait > 0) throw throttled(Math.max(1, wait));
    k.m.count++;
    k.h.count++;
    if (p !== undefined) {
      p.m.count++;
      p.h.count++;
    }
  }

  /** Drops buckets whose hour ended, so memory stays bounded by the keys and projects active in the last hour. */
  private sweep(t: number): void {
    if (t - this.lastSweep < MINUTE) return;
    this.lastSweep = t;
    for (const families of [this.byKey, this.byProject] as Map<RateFamily, Map<unknown, Buckets>>[]) {
      for (const buckets of families.values()) for (const [id, b] of buckets) if (b.h.start + HOUR <= t) buckets.delete(id);
    }
  }
}

const MINUTE = 60_000;
const HOUR = 3_600_000;

/** The buckets of `id` in `family`, created on first use; windows that ended restart at the current one. */
function bucketsOf<K>(families: Map<RateFamily, Map<K, Buckets>>, family: RateFamily, id: K, t: number): Buckets {
  let buckets = families.get(family);
  if (buckets === undefined) families.set(family, (buckets = new Map()));
  let b = buckets.get(id);
  const m = t - (t % MINUTE);
  const h = t - (t % HOUR);
  if (b === undefined) buckets.set(id, (b = { m: { start: m, count: 0 }, h: { start: h, count: 0 } }));
  else {
    if (b.m.start !== m) {
      b.m.start = m;
      b.m.count = 0;
    }
    if (b.h.start !== h) {
      b.h.start = h;
      b.h.count = 0;
    }
  }
  return b;
}
