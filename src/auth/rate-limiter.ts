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

/**
 * Fixed-window counters per key and per project, burst (minute) and sustained (hour). A request is counted
 * in every bucket it belongs to only when all of them admit it, so a refused request costs nothing. Buckets
 * are kept per key id (never the key) and per project, so one tenant's keys cannot together exceed the
 * project's budget either.
 */
export class RateLimiter {
  private readonly windows = new Map<string, Window>();
  private lastSweep = Date.now();

  constructor(
    private readonly rules: Record<RateFamily, RateRule>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request of `principal` in `family` (for `projectId` when project-nested); throws 429 when over. */
  check(principal: Principal, family: RateFamily, projectId?: number): void {
    const rule = this.rules[family];
    const t = this.now();
    this.sweep(t);
    // Allocation-free on the hot path: four windows looked up by two strings, checked, then counted.
    const keyBase = `${family}|k:${principal.keyId}|`;
    const km = this.window(keyBase + 'm', 60_000, t);
    const kh = this.window(keyBase + 'h', 3_600_000, t);
    const pid = projectId ?? (principal.kind === 'project_secret' ? principal.projectId : undefined);
    let pm: Window | undefined;
    let ph: Window | undefined;
    if (pid !== undefined) {
      const projectBase = `${family}|p:${pid}|`;
      pm = this.window(projectBase + 'm', 60_000, t);
      ph = this.window(projectBase + 'h', 3_600_000, t);
    }
    let wait = 0;
    if (km.count >= rule.burst) wait = Math.max(wait, Math.ceil((km.start + 60_000 - t) / 1000));
    if (kh.count >= rule.sustained) wait = Math.max(wait, Math.ceil((kh.start + 3_600_000 - t) / 1000));
    if (pm !== undefined && pm.count >= rule.burst) wait = Math.max(wait, Math.ceil((pm.start + 60_000 - t) / 1000));
    if (ph !== undefined && ph.count >= rule.sustained) wait = Math.max(wait, Math.ceil((ph.start + 3_600_000 - t) / 1000));
    if (wait > 0) throw throttled(Math.max(1, wait));
    km.count++;
    kh.count++;
    if (pm !== undefined) pm.count++;
    if (ph !== undefined) ph.count++;
  }

  private window(key: string, span: number, t: number): Window {
    let w = this.windows.get(key);
    const start = t - (t % span);
    if (w === undefined) {
      w = { start, count: 0 };
      this.windows.set(key, w);
    } else if (w.start !== start) {
      w.start = start;
      w.count = 0;
    }
    return w;
  }

  /** Drops windows that ended, so memory stays bounded by the keys active in the last hour. */
  private sweep(t: number): void {
    if (t - this.lastSweep < 60_000) return;
    this.lastSweep = t;
    for (const [k, w] of this.windows) if (w.start + (k.endsWith('|h') ? 3_600_000 : 60_000) <= t) this.windows.delete(k);
  }
}
