import { randomUUID } from 'node:crypto';

/** PostHog's QueryStatus, as async modes return it and `GET …/query/<id>/` polls it. */
export interface QueryStatus {
  id: string;
  query_async: true;
  team_id: number;
  insight_id: number | null;
  dashboard_id: null;
  complete: boolean;
  error: boolean;
  error_message: string | null;
  /** Stable code of the error (query_timeout, cancelled, …) when `error`. */
  error_code: string | null;
  /** The full response once complete. */
  results: Record<string, unknown> | null;
  pickup_time: string | null;
  start_time: string;
  end_time: string | null;
  expiration_time: string | null;
  /** PostHog's celery task id; Quarry runs async queries in-process, so there is no task: always null. */
  task_id: null;
  query_progress: null;
  labels: string[];
}

interface Job {
  status: QueryStatus;
  controller: AbortController;
  done: Promise<void>;
}

/**
 * Async queries: their status and results outlive the request that started them for `ttlMs` after they end.
 * Cancelling aborts the job's signal, which interrupts the engine.
 */
export class AsyncQueries {
  private readonly jobs = new Map<string, Job>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly ttlMs: number) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(ttlMs, 60_000));
    this.sweeper.unref();
  }

  /** Starts `work` in the background and returns its status at once. */
  start(
    projectId: number,
    id: string | undefined,
    work: (signal: AbortSignal, markPickedUp: () => void) => Promise<Record<string, unknown>>,
    insightId: number | null = null,
  ): QueryStatus {
    const queryId = id ?? randomUUID().replace(/-/g, '');
    const existing = this.jobs.get(queryId);
    if (existing && !existing.status.complete) return existing.status;
    const controller = new AbortController();
    const status: QueryStatus = {
      id: queryId,
      query_async: true,
      team_id: projectId,
      insight_id: insightId,
      dashboard_id: null,
      complete: false,
      error: false,
      error_message: null,
      error_code: null,
      results: null,
      pickup_time: null,
      start_time: new Date().toISOString(),
      end_time: null,
      expiration_time: null,
      task_id: null,
      query_progress: null,
      labels: [],
    };
    const done = work(controller.signal, () => (status.pickup_time = new Date().toISOString())).then(
      (results) => {
        status.results = results;
      },
      (e: unknown) => {
        status.error = true;
        const err = e as { code?: string; message?: string; status?: number };
        if (controller.signal.aborted) {
          status.error_code = 'cancelled';
          status.error_message = 'Query was cancelled.';
        } else {
          status.error_code = typeof err?.code === 'string' && typeof err?.status === 'number' ? err.code : 'error';
          // only user errors carry a message a caller may see; an internal one has none (PostHog's
          // execute_process_query sets error_message for exposed errors only), which the status route answers as a 500
          status.error_message = typeof err?.status === 'number' ? (err.message ?? null) : null;
        }
      },
    ).finally(() => {
      status.complete = true;
      status.end_time = new Date().toISOString();
      status.expiration_time = new Date(Date.now() + this.ttlMs).toISOString();
    });
    this.jobs.set(queryId, { status, controller, done });
    return status;
  }

  /** The status of a project's query; undefined when unknown, expired or another project's. */
  get(projectId: number, id: string): QueryStatus | undefined {
    const job = this.jobs.get(id);
    return job && job.status.team_id === projectId ? job.status : undefined;
  }

  /** Cancels a running query; resolves once it has stopped. False when there is nothing to cancel. */
  async cancel(projectId: number, id: string): Promise<boolean> {
    const job = this.jobs.get(id);
    if (!job || job.status.team_id !== projectId) return false;
    if (!job.status.complete) {
      job.controller.abort();
      await job.done;
    }
    return true;
  }

  /** Resolves when the job has ended (tests, shutdown). */
  async wait(id: string): Promise<void> {
    await this.jobs.get(id)?.done;
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const job of this.jobs.values()) if (!job.status.complete) job.controller.abort();
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, job] of this.jobs) {
      if (job.status.complete && job.status.expiration_time && Date.parse(job.status.expiration_time) < now) this.jobs.delete(id);
    }
  }
}
