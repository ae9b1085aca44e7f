import { z } from 'zod';
import type { Principal } from '../auth/principal';
import { notFound } from '../errors';
import type { Ingestor } from '../ingest/ingestor';
import type { Store } from '../store/store';
import { parseInput } from '../validation';
import { recordPersonActivity } from './person-activity';
import type { ProjectService } from './project-service';

/**
 * `main_distinct_id`: the distinct id that stays with the person. A number is taken as its text here; PostHog compares
 * a JSON number with the text ids as is, so none stays and every id moves (form posts, as its tests send, are text).
 */
const body = z
  .object({
    main_distinct_id: z.union([z.string(), z.number().transform(String)]).nullable().optional(),
    // PostHog's split_person(main_distinct_id, max_splits): only the last `max_splits` distinct ids move
    max_splits: z.number().int().nullable().optional(),
  })
  .strip();

/**
 * PostHog's `POST …/persons/<uuid>/split/` (PersonViewSet.split, scope `person:write`; test_person.py
 * test_split_people_keep_props / test_split_people_delete_props / test_split_person_clickhouse): every distinct id of
 * the person but `main_distinct_id` becomes a person of its own (UUID `uuidFromDistinctId`, no properties); without
 * `main_distinct_id` (or with an empty one) the person keeps its first distinct id and loses its properties. With
 * `max_splits` (PostHog's split task argument for persons of very many ids) only the last that many distinct ids move.
 * Events already stored keep their person id, as in PostHog (which writes no person override for a split). A malformed
 * or unknown id, or another project's person, is a 404. The route answers 201 `{"success": true}`. Logged as
 * `split_person` with the person's UUID and distinct ids before the split.
 */
export async function splitPerson(
  deps: { projects: ProjectService; ingestor: Ingestor; store: Store },
  principal: Principal,
  projectId: number,
  personId: string,
  input: unknown,
): Promise<void> {
  const project = await deps.projects.projectFor(principal, projectId, { scope: 'person:write' });
  if (!z.guid().safeParse(personId).success) throw notFound();
  const b = parseInput(body, input ?? {});
  // events acknowledged before the split keep the person their distinct id had then
  await deps.ingestor.flush();
  const uuid = personId.toLowerCase();
  const ids = await deps.ingestor.splitPerson(project.id, uuid, b.main_distinct_id || null, b.max_splits ?? null);
  if (ids === null) throw notFound();
  await recordPersonActivity(deps.store, principal, project, uuid, 'split_person', {
    name: uuid,
    changes: [{ type: 'Person', action: 'split', field: null, before: null, after: { uuid, distinct_ids: ids } }],
  });
}
