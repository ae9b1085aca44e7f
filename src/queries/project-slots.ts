/**
 * A per-project concurrency limit that queues instead of failing: at most `limit` queries of one project run
 * at once; the others wait their turn in arrival order (an aborted waiter leaves the queue).
 */
export class ProjectSlots {
  private readonly running = new Map<number, number>();
  private readonly waiting = new Map<number, (() => void)[]>();

  constructor(private readonly limit: number) {}

  async run<T>(projectId: number, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(projectId, signal);
    try {
      return await fn();
    } finally {
      this.release(projectId);
    }
  }

  /** Queries of the project now running (diagnostics and tests). */
  active(projectId: number): number {
    return this.running.get(projectId) ?? 0;
  }

  queued(projectId: number): number {
    return this.waiting.get(projectId)?.length ?? 0;
  }

  private acquire(projectId: number, signal?: AbortSignal): Promise<void> {
    const n = this.running.get(projectId) ?? 0;
    if (n < this.limit) {
      this.running.set(projectId, n + 1);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const queue = this.waiting.get(projectId) ?? [];
      this.waiting.set(projectId, queue);
      const wake = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const i = queue.indexOf(wake);
        if (i >= 0) queue.splice(i, 1);
        reject(signal?.reason ?? new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(wake);
    });
  }

  private release(projectId: number): void {
    const next = this.waiting.get(projectId)?.shift();
    if (next) next(); // the slot passes to the next waiter
    else {
      const n = (this.running.get(projectId) ?? 1) - 1;
      if (n <= 0) this.running.delete(projectId);
      else this.running.set(projectId, n);
    }
  }
}
