/**
 * The cohorts a running query may refer to. Property filters are built synchronously inside the runners, which
 * know neither the project nor the metadata store; the cohort-aware runner wrapper ({@link withCohortRunners})
 * loads every cohort the query names (nested ones included, from the query's own project only) before the runner
 * starts, and makes them visible to the filter builder for the duration of that run.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { PropertyGroupFilter } from '../queries/insights/schema';

/** A cohort as the filter builder needs it. */
export interface ResolvedCohort {
  id: number;
  name: string | null;
  isStatic: boolean;
  /**
   * Definition of a dynamic cohort (null for a static one): person-property, cohort and behavioral criteria, the
   * actions of its behavioral criteria attached by the loader.
   */
  group: PropertyGroupFilter | null;
  /** Person ids of a static cohort. */
  personIds: string[];
}

const scope = new AsyncLocalStorage<ReadonlyMap<number, ResolvedCohort>>();

/** Runs `fn` with `cohorts` visible to {@link cohortInScope}. */
export function runWithCohorts<T>(cohorts: ReadonlyMap<number, ResolvedCohort>, fn: () => T): T {
  return scope.run(cohorts, fn);
}

/** The cohort of the running query's project with this id; undefined when it is not one (or no query runs). */
export function cohortInScope(id: number): ResolvedCohort | undefined {
  return scope.getStore()?.get(id);
}

/** The cohorts of the running query's scope (none when no query runs). */
export function cohortsInScope(): Iterable<ResolvedCohort> {
  return scope.getStore()?.values() ?? [];
}

/** PostHog's error for a cohort id the project does not have. */
export const cohortNotFoundMessage = (id: unknown): string => `Could not find cohort with ID ${String(id)}`;
