import { z } from 'zod';
import type { Principal } from '../auth/principal';
import type { CohortService, CohortView } from '../cohorts/cohort-service';
import { notFound } from '../errors';
import { MAX_PAGE_SIZE } from '../pagination';
import type { QueryService } from '../queries/query-service';
import { parseInput } from '../validation';
import type { ProjectService } from './project-service';

const params = z.object({ person_id: z.string().min(1).max(100) });

/**
 * PostHog's `GET …/persons/cohorts/?person_id=<uuid>` (PersonViewSet.cohorts, scopes `person:read` and
 * `cohort:read`): `{results: [cohort, ...]}`, the project's cohorts the person belongs to now, each as the cohorts API
 * shows it (with its count). Membership is ProductQL's `id IN COHORT <id>`, the same expansion as cohort filters.
 * An unknown person (or another project's) is a 404.
 */
export async function cohortsOfPerson(
  deps: { projects: ProjectService; queries: QueryService; cohorts: CohortService },
  principal: Principal,
  projectId: number,
  query: Record<string, unknown>,
): Promise<{ results: CohortView[] }> {
  await deps.projects.projectFor(principal, projectId, { scope: 'cohort:read' });
  const project = await deps.projects.projectFor(principal, projectId, { scope: 'person:read' });
  const { person_id: personId } = parseInput(params, { person_id: query.person_id });
  if (!z.guid().safeParse(personId).success) throw notFound();
  // every live cohort of the project, oldest first (PostHog lists them by id)
  const cohorts = (await deps.cohorts.list(principal, projectId, { limit: MAX_PAGE_SIZE, offset: 0 })).results.reverse();
  const columns = cohorts.length ? cohorts.map((c) => `id IN COHORT ${Number(c.id)}`).join(', ') : '1';
  const out = await deps.queries.execute(
    principal,
    project,
    {
      kind: 'HogQLQuery',
      query: `SELECT ${columns} FROM persons WHERE toString(id) = {variables.pid} LIMIT 1`,
      variables: { pid: { variableId: 'pid', code_name: 'pid', value: personId.toLowerCase() } },
    },
    { refresh: 'force_blocking', name: 'persons' },
  );
  const [row] = (out.body.results ?? []) as unknown[][];
  if (!row) throw notFound();
  return { results: cohorts.filter((_c, i) => row[i] === true || row[i] === 1) };
}
