/**
 * Per-stage timings of one query, in PostHog's shape: `[{k: "./parse", t: 0.0012}, …]` with `t` in seconds.
 * Stages: validate, plan, print, execute, shape, cache.
 */
export interface Timing {
  k: string;
  t: number;
}

export class Timings {
  private readonly entries: Timing[] = [];
  private readonly started = performance.now();

  async measure<T>(stage: string, fn: () => Promise<T> | T): Promise<T> {
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      this.record(stage, performance.now() - t0);
    }
  }

  measureSync<T>(stage: string, fn: () => T): T {
    const t0 = performance.now();
    try {
      return fn();
    } finally {
      this.record(stage, performance.now() - t0);
    }
  }

  record(stage: string, ms: number): void {
    this.entries.push({ k: `./${stage}`, t: Math.round(ms * 1000) / 1e6 });
  }

  toJSON(): Timing[] {
    return [...this.entries, { k: '.', t: Math.round((performance.now() - this.started) * 1000) / 1e6 }];
  }
}
