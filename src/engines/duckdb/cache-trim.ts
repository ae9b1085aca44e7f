/**
 * Bounds DuckDB's cache of table blocks separately from its memory limit.
 *
 * DuckDB has one `memory_limit` for everything it holds: query working memory (hash tables, sorts), the rows written
 * since the last checkpoint, and its cache of the database file's blocks. The cache is never trimmed below that
 * limit: every block a checkpoint writes, or a scan reads, stays resident until the limit forces an eviction. So
 * under steady capture the server's RSS grows with the data until it reaches `memory_limit` (1GB by default), and a
 * lower `memory_limit` is no answer: it caps working memory too (measured on 10M events, 256MB instead of 1GB: the
 * funnel insight 0.94 s → 4.5 s, spilling to disk).
 *
 * DuckDB does evict unpinned blocks at once when `memory_limit` is lowered below what it holds, persistent table
 * blocks first (they need no write; rows not yet checkpointed would have to be spilled), and the freed memory goes
 * back to the OS. The trimmer uses that: every `intervalMs` it reads DuckDB's memory by tag; when the cached table
 * blocks (`BASE_TABLE`) exceed `cacheLimit`, it lowers the limit to what DuckDB holds minus the excess (down to
 * three quarters of `cacheLimit`, so that it does not run again at once) and restores it in the same call. Blocks
 * least recently used go first, so blocks a checkpoint wrote and no query reads go before the ones queries scan; an
 * evicted block that is needed again is read back from the file (from the OS page cache when it is there).
 *
 * It runs under the engine's exclusive section (no read in flight, the writer idle), so no query ever runs while
 * the limit is lowered; when that section is not free within a short wait the trim is skipped until the next tick.
 */

/** DuckDB's `duckdb_memory()` tag of cached persistent table blocks. */
export const CACHE_TAG = 'BASE_TABLE';

/** Memory DuckDB's buffer manager holds, in bytes: in total and in cached table blocks. */
export interface DuckDbMemoryUsage {
  total: number;
  cache: number;
}

/** Sums `duckdb_memory()` rows (tag, memory_usage_bytes) into {@link DuckDbMemoryUsage}. */
export function memoryUsage(rows: readonly (readonly unknown[])[]): DuckDbMemoryUsage {
  let total = 0;
  let cache = 0;
  for (const [tag, bytes] of rows) {
    const n = Number(bytes);
    if (!Number.isFinite(n)) continue;
    total += n;
    if (tag === CACHE_TAG) cache += n;
  }
  return { total, cache };
}

/**
 * The memory limit (bytes) that makes DuckDB evict its cache down to three quarters of `cacheLimit`, or null when
 * the cache is within `cacheLimit`. Only the cache's excess is taken off what DuckDB holds, so nothing else (rows not
 * yet checkpointed) has to move.
 */
export function trimTarget(usage: DuckDbMemoryUsage, cacheLimit: number): number | null {
  if (usage.cache <= cacheLimit) return null;
  const excess = usage.cache - Math.floor(cacheLimit * 0.75);
  return Math.max(1, Math.floor(usage.total - excess));
}

/** What the trimmer may do inside the engine's exclusive section (on the writer connection). */
export interface CacheTrimSection {
  /** Reads DuckDB's memory by tag. */
  usage(): Promise<DuckDbMemoryUsage>;
  /**
   * Sets `memory_limit` to `bytes` and back to the configured limit in one call (the second always runs). Resolves
   * to false when DuckDB refused the lower limit (it could not free enough), leaving the limit as it was.
   */
  lowerAndRestore(bytes: number): Promise<boolean>;
}

export interface CacheTrimHooks {
  /** Reads DuckDB's memory by tag (outside the exclusive section: a plain read). */
  usage(): Promise<DuckDbMemoryUsage>;
  /**
   * Runs `fn` with no read in flight and the writer idle, or returns null without running it when that could not
   * be had within the engine's short wait.
   */
  exclusive<T>(fn: (section: CacheTrimSection) => Promise<T>): Promise<T | null>;
}

export interface CacheTrimResult {
  /** The cache before, in bytes. */
  cacheBefore: number;
  /** The cache after, in bytes (re-read), or null when nothing was trimmed. */
  cacheAfter: number | null;
  /** Why nothing was trimmed, when nothing was. */
  skipped?: 'within_limit' | 'busy' | 'refused';
}

export class CacheTrimmer {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  /** Holds taken by {@link hold} and not yet released: the timer skips its checks while any is held. */
  private holds = 0;
  /** Trims done and skipped since start (for logs and tests); `held`: timer checks skipped under a {@link hold}. */
  readonly stats = { trims: 0, busy: 0, refused: 0, errors: 0, held: 0 };

  constructor(
    private readonly cacheLimit: number,
    private readonly hooks: CacheTrimHooks,
    private readonly onError: (e: unknown) => void = () => undefined,
  ) {
    if (!Number.isFinite(cacheLimit) || cacheLimit < 0) throw new Error(`cache limit must be a non-negative number of bytes (got ${cacheLimit})`);
  }

  /** Checks every `intervalMs` (the timer does not keep the process alive). */
  start(intervalMs: number): void {
    if (this.timer || !(intervalMs > 0)) return;
    this.timer = setInterval(() => {
      if (this.running) return; // the previous check is still waiting for its turn
      if (this.holds > 0) {
        this.stats.held++;
        return;
      }
      this.running = this.trimOnce()
        .catch((e) => {
          this.stats.errors++;
          this.onError(e);
        })
        .finally(() => (this.running = null));
    }, intervalMs);
    this.timer.unref();
  }

  /**
   * Suspends the timer's checks until the returned function is called (holds nest; releasing twice is harmless).
   * A bulk import takes one (through the engine): a trim would take the write lock between its chunks, and the
   * import bounds DuckDB's memory itself meanwhile. {@link trimOnce} still works.
   */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
    };
  }

  /** Stops the timer and waits for a trim in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One check: trims when the cache is over the limit. */
  async trimOnce(): Promise<CacheTrimResult> {
    const seen = await this.hooks.usage();
    if (trimTarget(seen, this.cacheLimit) === null) return { cacheBefore: seen.cache, cacheAfter: null, skipped: 'within_limit' };
    const r = await this.hooks.exclusive(async (section): Promise<CacheTrimResult> => {
      // Re-read inside the section: with no query running, every cached block is unpinned.
      const now = await section.usage();
      const target = trimTarget(now, this.cacheLimit);
      if (target === null) return { cacheBefore: now.cache, cacheAfter: null, skipped: 'within_limit' };
      if (!(await section.lowerAndRestore(target))) {
        this.stats.refused++;
        return { cacheBefore: now.cache, cacheAfter: null, skipped: 'refused' };
      }
      this.stats.trims++;
      return { cacheBefore: now.cache, cacheAfter: (await section.usage()).cache };
    });
    if (r === null) {
      this.stats.busy++;
      return { cacheBefore: seen.cache, cacheAfter: null, skipped: 'busy' };
    }
    return r;
  }
}
