export { CohortService, type CohortView } from './cohort-service';
export { CohortLoader, type PersonIdResolver } from './cohort-loader';
export { withCohortRunners, cohortFilterIds } from './cohort-runners';
export { runWithCohorts, cohortInScope, type ResolvedCohort } from './cohort-scope';
