import type { ActionSource } from '../actions/matching';
import type { SavedVariableSource } from '../endpoints/variables';
import type { z } from 'zod';
import type { Principal } from '../auth/principal';
import type { EventEngineBase } from '../engines/engine';
import type { SessionModifiers } from '../productql/sessions';
import type { Project } from '../store/entities';
import type { Timings } from './timings';

/** What a runner gets besides its node: the project (timezone, week start, settings), the engine and limits. */
export interface RunnerContext {
  project: Project;
  principal: Principal;
  engine: EventEngineBase;
  timings: Timings;
  /** Aborting stops the engine work. */
  signal?: AbortSignal;
  timeoutMs: number;
  /** The project's saved actions (ActionsNode series, action entities); absent: no action exists. */
  actions?: ActionSource;
  /** The project's saved variables (defaults of HogQL variables sent without a value); absent: none is saved. */
  variables?: SavedVariableSource;
  /** The query's modifiers changing the sessions table (session-modifiers.ts); absent: none. */
  sessionModifiers?: SessionModifiers;
}

/** One query kind: its node schema (mirroring PostHog's) and how to answer it. */
export interface QueryRunner<N = any> {
  /** `kind` values this runner answers (aliases included, e.g. HogQLQuery for ProductQLQuery). */
  kinds: readonly string[];
  schema: z.ZodType<N>;
  /** Answers the query operation only: not a saved insight's or a published endpoint's query (UI helper kinds). */
  queryOnly?: true;
  run(node: N, ctx: RunnerContext): Promise<Record<string, unknown>>;
}
