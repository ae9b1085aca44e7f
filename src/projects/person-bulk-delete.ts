import { z } from 'zod';
import type { Principal } from '../auth/principal';
import { validationError } from '../errors';
import type { EventService } from '../ingest/event-service';
import type { Store } from '../store/store';
import { parseInput } from '../validation';
import { recordPersonActivity } from './person-activity';
import type { PersonReader } from './person-reader';
import type { ProjectService } from './project-service';

/** PostHog's bulk_delete takes at most 1,000 ids or distinct ids per call. */
export const BULK_DELETE_MAX = 1000;

const body = z.object({
  ids: z.array(z.string().max(100)).nullable().optional(),
  distinct_ids: z.array(z.union([z.string(), z.number()]).transform(String)).nullable().optional(),
  delete_events: z.boolean().optional(),
});

/**
 * PostHog's `POST …/persons/bulk_delete/` (PersonViewSet.bulk_delete, scope `person:write`): deletes the persons with
 * the given UUIDs (`ids`), or owning any of the given `distinct_ids` (which win when both are sent), at most 1,000;
 * with `delete_events` their events too. Ids that match no person of the project are skipped. Answers 202.
 */
export async function bulkDeletePersons(
  deps: { projects: ProjectService; persons: PersonReader; events: EventService; store: Store },
  principal: Principal,
  projectId: number,
  input: unknown,
): Promise<void> {
  const project = await deps.projects.projectFor(principal, projectId, { scope: 'person:write' });
  const b = parseInput(body, input ?? {});
  let uuids: string[];
  if (b.distinct_ids && b.distinct_ids.length > 0) {
    if (b.distinct_ids.length > BULK_DELETE_MAX) throw validationError(`You can only pass ${BULK_DELETE_MAX} distinct_ids in one call`);
    uuids = await deps.persons.uuidsOf(principal, project, { distinctIds: b.distinct_ids });
  } else if (b.ids && b.ids.length > 0) {
    if (b.ids.length > BULK_DELETE_MAX) throw validationError(`You can only pass ${BULK_DELETE_MAX} ids in one call`);
    uuids = await deps.persons.uuidsOf(principal, project, { ids: b.ids });
  } else throw validationError('You need to specify either distinct_ids or ids');
  for (const uuid of uuids) await deletePerson(deps, principal, project.id, uuid, b.delete_events ?? false);
}

/**
 * PostHog's `DELETE …/persons/<uuid>/` (PersonViewSet.destroy, scope `person:write`): deletes the person (with
 * `deleteEvents`, its events too) and logs `deleted`, named by the UUID (test_person.py test_delete_person).
 */
export async function deletePerson(
  deps: { projects: ProjectService; events: EventService; store: Store },
  principal: Principal,
  projectId: number,
  personId: string,
  deleteEvents: boolean,
): Promise<void> {
  const project = await deps.projects.projectFor(principal, projectId, { scope: 'person:write' });
  await deps.events.deletePerson(principal, project.id, personId, deleteEvents);
  await recordPersonActivity(deps.store, principal, project, personId, 'deleted', { name: personId.toLowerCase() });
}
