import type { Principal } from '../auth/principal';
import type { CohortService } from '../cohorts/cohort-service';
import type { Page } from '../pagination';
import type { ProjectService } from './project-service';
import type { PersonReader, PersonView } from './person-reader';

/**
 * PostHog's `GET …/cohorts/<id>/persons/` (CohortViewSet.persons, scopes `cohort:read` and `person:read`): the
 * persons in the cohort now, as the persons list shows them (newest first, its filters and paging), membership being
 * ProductQL's `id IN COHORT <id>`, the same expansion as cohort filters. An unknown cohort is a 404.
 */
export async function personsOfCohort(
  deps: { projects: ProjectService; cohorts: CohortService; persons: PersonReader },
  principal: Principal,
  projectId: number,
  cohortId: string,
  query: Record<string, unknown>,
  page: Page,
  includeTotal: boolean,
): Promise<{ count?: number; results: PersonView[] }> {
  // PostHog's required_scopes order: cohort:read, then person:read; then the cohort itself
  await deps.projects.projectFor(principal, projectId, { scope: 'cohort:read' });
  await deps.projects.projectFor(principal, projectId, { scope: 'person:read' });
  const cohort = await deps.cohorts.get(principal, projectId, cohortId);
  return deps.persons.list(principal, projectId, query, page, includeTotal, Number(cohort.id));
}
