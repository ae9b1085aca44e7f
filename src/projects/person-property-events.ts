import { z } from 'zod';
import type { Principal } from '../auth/principal';
import { notFound, UserError } from '../errors';
import type { Ingestor } from '../ingest/ingestor';
import type { QueryService } from '../queries/query-service';
import type { Store } from '../store/store';
import { objectBody, parseInput } from '../validation';
import { PROPERTIES_CHANGED, recordPersonActivity } from './person-activity';
import type { ProjectService } from './project-service';

/** What these writes need of the services. */
export interface PersonEventDeps {
  projects: ProjectService;
  queries: QueryService;
  ingestor: Ingestor;
  store: Store;
}

const unsetBody = z.object({ $unset: z.string().min(1).max(400) }).strip();
const setBody = z.object({ properties: z.record(z.string().max(400), z.unknown()) }).strip();

/**
 * PostHog's hand-written 400 of PersonViewSet.update and update_property for a missing or null field, whose code and
 * detail are the other way round (`"code": "This field is required.", "detail": "required"`).
 */
const requiredByHand = (attr: string) => new UserError(400, 'validation_error', 'This field is required.', 'required', { attr });

/**
 * PostHog's `POST …/persons/<uuid>/delete_property/` (PersonViewSet.delete_property, scope `person:write`): the body
 * `{"$unset": key}` becomes a `$delete_person_property` event with `properties.$unset: [key]`. PostHog answers 201
 * with an empty body before the event is processed; here too the property is gone once the event is ingested.
 */
export async function deletePersonProperty(deps: PersonEventDeps, principal: Principal, projectId: number, personId: string, input: unknown): Promise<void> {
  const { $unset: key } = parseInput(unsetBody, input ?? {});
  await captureForPerson(deps, principal, projectId, personId, '$delete_person_property', { $unset: [key] }, 'delete_property');
}

/**
 * PostHog's `PATCH`/`PUT …/persons/<uuid>/` (PersonViewSet.update, scope `person:write`): only sets properties, through
 * a `$set` event with `properties.$set` = the body's `properties` (others are kept; removing one is delete_property).
 * PostHog answers 202 with an empty body; the properties are set once the event is ingested. Missing or null
 * `properties` is the hand-written 400 (test_person.py test_update_multiple_person_properties_validation).
 */
export async function setPersonProperties(deps: PersonEventDeps, principal: Principal, projectId: number, personId: string, input: unknown): Promise<void> {
  await deps.projects.projectFor(principal, projectId, { scope: 'person:write' });
  const body = objectBody(input);
  if (body.properties === undefined || body.properties === null) throw requiredByHand('properties');
  const { properties } = parseInput(setBody, body);
  await captureForPerson(deps, principal, projectId, personId, '$set', { $set: properties }, 'updated');
}

/**
 * PostHog's `POST …/persons/<uuid>/update_property/` (PersonViewSet.update_property, scope `person:write`): `{key, value}`
 * becomes a `$set` of that one property; 202 with an empty body. A missing or null `value`, then `key`, is PostHog's
 * hand-written 400, checked before the person is looked up, whose code and detail are the other way round
 * (`"code": "This field is required.", "detail": "required"`).
 */
export async function updatePersonProperty(deps: PersonEventDeps, principal: Principal, projectId: number, personId: string, input: unknown): Promise<void> {
  await deps.projects.projectFor(principal, projectId, { scope: 'person:write' });
  const body = objectBody(input);
  for (const attr of ['value', 'key']) {
    if (body[attr] === undefined || body[attr] === null) throw requiredByHand(attr);
  }
  await captureForPerson(deps, principal, projectId, personId, '$set', { $set: { [String(body.key)]: body.value } }, 'updated');
}

/**
 * Ingests `event` from the person's first distinct id, through the identity rules like any captured event (scope
 * `person:write`), and logs `activity` (PostHog's `Change(type="Person", action="changed", field="properties")`). A
 * malformed or unknown id, or another project's person, is a 404.
 */
async function captureForPerson(
  deps: PersonEventDeps,
  principal: Principal,
  projectId: number,
  personId: string,
  event: string,
  properties: Record<string, unknown>,
  activity: 'updated' | 'delete_property',
): Promise<void> {
  const project = await deps.projects.projectFor(principal, projectId, { scope: 'person:write' });
  if (!z.guid().safeParse(personId).success) throw notFound();
  const out = await deps.queries.execute(
    principal,
    project,
    {
      kind: 'HogQLQuery',
      query: 'SELECT distinct_id FROM person_distinct_ids WHERE toString(person_id) = {variables.pid} ORDER BY seq, distinct_id LIMIT 1',
      variables: { pid: { variableId: 'pid', code_name: 'pid', value: personId.toLowerCase() } },
    },
    { refresh: 'force_blocking', name: 'persons' },
  );
  const [row] = (out.body.results ?? []) as unknown[][];
  if (!row) throw notFound();
  const result = await deps.ingestor.import(project.id, { events: [{ event, distinct_id: String(row[0]), timestamp: new Date().toISOString(), properties }] });
  if (result.errors.length) throw new Error(`${event} was not ingested: ${result.errors[0].message}`);
  await recordPersonActivity(deps.store, principal, project, personId, activity, { changes: [PROPERTIES_CHANGED] });
}
