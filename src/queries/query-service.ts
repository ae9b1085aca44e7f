import { z } from 'zod';
import type { Principal } from '../auth/principal';
import type { EventEngineBase } from '../engines/engine';
import { UserError, validationError } from '../errors';
import type { ProjectService } from '../projects/project-service';
import { zodToUserError } from '../validation';
import type { QueryRunner } from './runner';
import { RUNNERS } from './runners';
import { Timings } from './timings';

/** The request envelope of `POST /api/projects/<id>/query/` (PostHog's QueryRequest; unknown keys → 400). */
export const queryRequestSchema = z
  .object({
    query: z.object({ kind: z.string() }).passthrough(),
    refresh: z
      .union([
        z.enum(['blocking', 'force_blocking', 'async', 'lazy_async', 'async_except_on_cache_miss', 'force_async', 'force_cache']),
        z.boolean(),
      ])
      .optional(),
    client_query_id: z.string().max(200).optional(),
    name: z.string().max(128).optional(),
    filters_override: z.unknown().optional(),
    variables_override: z.unknown().optional(),
    async: z.boolean().optional(),
  })
  .strict();

export type QueryRequest = z.infer<typeof queryRequestSchema>;

export interface QueryServiceOptions {
  timeoutMs: number;
}

/** The query operation: one entry point for every kind, over REST and GraphQL alike. */
export class QueryService {
  private readonly runners = new Map<string, QueryRunner>();

  constructor(
    private readonly projects: ProjectService,
    private readonly engine: EventEngineBase,
    private readonly options: QueryServiceOptions,
    runners: QueryRunner[] = RUNNERS,
  ) {
    for (const r of runners) for (const k of r.kinds) this.runners.set(k, r);
  }

  /** Runs the request's query for a project (scope `query:read`); returns the kind's response with timings. */
  async run(principal: Principal, projectId: number, body: unknown, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'query:read' });
    const timings = new Timings();
    const { runner, node } = timings.measureSync('validate', () => {
      const parsed = queryRequestSchema.safeParse(body);
      if (!parsed.success) throw zodToUserError(parsed.error);
      return this.validateNode(parsed.data.query);
    });
    const response = await runner.run(node, {
      project,
      principal,
      engine: this.engine,
      timings,
      signal,
      timeoutMs: this.options.timeoutMs,
    });
    return { ...response, timezone: project.timezone, timings: timings.toJSON() };
  }

  /** Picks the runner for `node.kind` and validates the node with its schema (errors point into `query__…`). */
  validateNode(node: { kind: string }): { runner: QueryRunner; node: unknown } {
    const runner = this.runners.get(node.kind);
    if (!runner) {
      throw validationError(
        `Unknown query kind "${node.kind}". Supported: ${[...this.runners.keys()].join(', ')}.`,
        'query__kind',
      );
    }
    const parsed = runner.schema.safeParse(node);
    if (!parsed.success) {
      const e = zodToUserError(parsed.error);
      throw new UserError(e.status, e.type, e.code, e.message, { attr: e.attr ? `query__${e.attr}` : 'query' });
    }
    return { runner, node: parsed.data };
  }
}
