import { z } from 'zod';
import type { Principal } from '../auth/principal';
import { notFound, validationError } from '../errors';
import type { QueryService } from '../queries/query-service';
import type { Project } from '../store/entities';
import { parseInput } from '../validation';
import { chainToElements, type ElementView } from '../ingest/elements-chain';
import { parseProperties } from './person-reader';
import type { ProjectService } from './project-service';

/** PostHog's event record of the events API (ClickhouseEventSerializer). */
export interface EventView {
  id: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  event: string;
  /** ISO 8601 in UTC, as ProductQL answers datetimes (`+00:00`, microseconds when there are any). */
  timestamp: string;
  /** The event's person, light: identified or not, the event's distinct id, the display properties; null without one. */
  person: { is_identified: boolean; distinct_ids: string[]; properties: Record<string, unknown> } | null;
  /** The elements_chain read back as PostHog's ElementSerializer shows it (innermost first). */
  elements: ElementView[];
  elements_chain: string;
}

/** The person properties the events API carries (PostHog's serializer keeps the display-name ones). */
const PERSON_PROPERTIES = ['email', 'name', 'username'] as const;

export const DEFAULT_EVENTS_LIMIT = 100;
export const MAX_EVENTS_LIMIT = 1000;

const listParams = z
  .object({
    event: z.string().max(1000).optional(),
    distinct_id: z.string().max(400).optional(),
    person_id: z.string().max(100).optional(),
    before: z.string().max(100).optional(),
    after: z.string().max(100).optional(),
    limit: z.coerce.number().int().min(1).max(MAX_EVENTS_LIMIT).default(DEFAULT_EVENTS_LIMIT),
  })
  .strip();

const SELECT =
  'SELECT toString(uuid), event, distinct_id, properties, timestamp, elements_chain, toString(person_id), person.properties, person.is_identified FROM events';

/**
 * A project's events for PostHog's events API, `GET …/events/` and `GET …/events/<uuid>/` (scope `query:read`, as
 * PostHog's): newest first, read through ProductQL (persons as queries see them, merges applied), values bound.
 * A page that is full links the next one with `before` = its last timestamp, as PostHog's `next`.
 */
export class EventReader {
  constructor(
    private readonly projects: ProjectService,
    private readonly queries: QueryService,
  ) {}

  async list(principal: Principal, projectId: number, query: Record<string, unknown>): Promise<{ results: EventView[]; nextBefore: string | null; limit: number }> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'query:read' });
    if (query.properties !== undefined) {
      throw validationError('Property filters are not supported on the events list: use the query API (HogQLQuery).', 'properties');
    }
    const p = parseInput(listParams, query);
    const where: string[] = [];
    const vars: Record<string, unknown> = {};
    if (p.event !== undefined) {
      where.push('event = {variables.event}');
      vars.event = p.event;
    }
    if (p.distinct_id !== undefined) {
      where.push('distinct_id = {variables.did}');
      vars.did = p.distinct_id;
    }
    if (p.person_id !== undefined) {
      where.push('toString(person_id) = {variables.pid}');
      vars.pid = p.person_id.toLowerCase();
    }
    if (p.after !== undefined) {
      where.push('timestamp > {variables.after}');
      vars.after = boundTime(p.after, 'after');
    }
    if (p.before !== undefined) {
      where.push('timestamp < {variables.before}');
      vars.before = boundTime(p.before, 'before');
    }
    const cond = where.length ? ` WHERE ${where.join(' AND ')}` : '';
    const rows = await this.run(principal, project, `${SELECT}${cond} ORDER BY timestamp DESC, toString(uuid) LIMIT ${p.limit}`, vars);
    const results = rows.map(eventView);
    return { results, nextBefore: results.length === p.limit ? results[results.length - 1].timestamp : null, limit: p.limit };
  }

  /** One event by UUID; a malformed or unknown id, or another project's event, is a 404. */
  async get(principal: Principal, projectId: number, eventId: string): Promise<EventView> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'query:read' });
    if (!z.uuid().safeParse(eventId).success) throw notFound();
    const rows = await this.run(principal, project, `${SELECT} WHERE toString(uuid) = {variables.id} LIMIT 1`, { id: eventId.toLowerCase() });
    if (rows.length === 0) throw notFound();
    return eventView(rows[0]);
  }

  private async run(principal: Principal, project: Project, sql: string, values: Record<string, unknown>): Promise<unknown[][]> {
    const variables = Object.fromEntries(Object.entries(values).map(([code, value]) => [code, { variableId: code, code_name: code, value }]));
    const out = await this.queries.execute(principal, project, { kind: 'HogQLQuery', query: sql, variables }, { refresh: 'force_blocking', name: 'events' });
    return (out.body.results ?? []) as unknown[][];
  }
}

/** A timestamp parameter as the engines compare it: `YYYY-MM-DD HH:MM:SS[.ffffff]` in UTC. */
function boundTime(v: string, attr: string): string {
  const d = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(v) || !/T|\d\d:\d\d/.test(v) ? v : `${v}Z`);
  if (Number.isNaN(d.getTime())) throw validationError(`Not a valid ISO 8601 datetime: ${v}`, attr);
  const micro = /\.(\d{1,6})/.exec(v)?.[1]?.padEnd(6, '0');
  const base = d.toISOString().slice(0, 19).replace('T', ' ');
  return micro && /[1-9]/.test(micro) ? `${base}.${micro}` : base;
}

function eventView(row: unknown[]): EventView {
  const [uuid, event, distinctId, properties, timestamp, elementsChain, personId, personProperties, identified] = row;
  let person: EventView['person'] = null;
  if (personId !== null && personId !== undefined && personId !== '') {
    const all = parseProperties(personProperties);
    const props: Record<string, unknown> = {};
    for (const k of PERSON_PROPERTIES) if (all[k] !== undefined) props[k] = all[k];
    person = { is_identified: identified === true || identified === 1 || identified === 'true', distinct_ids: [String(distinctId)], properties: props };
  }
  return {
    id: String(uuid),
    distinct_id: String(distinctId),
    properties: parseProperties(properties),
    event: String(event),
    timestamp: String(timestamp),
    person,
    elements: chainToElements(elementsChain === null || elementsChain === undefined ? '' : String(elementsChain)),
    elements_chain: elementsChain === null || elementsChain === undefined ? '' : String(elementsChain),
  };
}
