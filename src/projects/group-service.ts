import { z } from 'zod';
import type { Principal } from '../auth/principal';
import type { Scope } from '../auth/scopes';
import type { EventEngine, GroupRow, GroupTypeRow } from '../engines/engine';
import { notFound, UserError, validationError } from '../errors';
import type { Ingestor } from '../ingest/ingestor';
import { MAX_GROUP_TEXT, MAX_GROUP_TYPES } from '../ingest/groups';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../pagination';
import { objectBody, parseInput } from '../validation';
import { drfTime } from './person-reader';
import type { ProjectService } from './project-service';

/** PostHog's group scopes (`GroupsViewSet` / `GroupsTypesViewSet`, scope_object "group"). */
const GROUP_READ: Scope = 'group:read';
const GROUP_WRITE: Scope = 'group:write';

/**
 * PostHog's GroupTypeSerializer. Quarry has no group dashboards or column settings: those are null. `created_at` is
 * null, as for PostHog's mappings made without one (its tests' `create_group_type_mapping_without_created_at`).
 */
export interface GroupTypeView {
  group_type: string;
  group_type_index: number;
  name_singular: string | null;
  name_plural: string | null;
  detail_dashboard: null;
  default_columns: null;
  created_at: null;
}

/** PostHog's GroupSerializer. */
export interface GroupView {
  group_type_index: number;
  group_key: string;
  group_properties: Record<string, unknown>;
  created_at: string;
}

/** A page of groups and the cursors of its neighbours (null at either end). */
export interface GroupPage {
  results: GroupView[];
  nextCursor: string | null;
  previousCursor: string | null;
}

const typeView = (t: GroupTypeRow): GroupTypeView => ({ ...t, detail_dashboard: null, default_columns: null, created_at: null });

const groupView = (g: GroupRow): GroupView => ({
  group_type_index: g.group_type_index,
  group_key: g.group_key,
  group_properties: g.properties,
  created_at: drfTime(new Date(g.created_at)),
});

const MISSING_INDEX = 'You must pass ?group_type_index= in this URL. To get a list of valid group types, call /api/:project_id/groups_types/.';

/** `group_key` from a query string: required. */
function groupKeyParam(v: unknown): string {
  if (typeof v !== 'string' || v === '') throw validationError('You must pass ?group_key= in this URL.', 'group_key', 'required');
  return v;
}

/** `group_type_index` from a query string or body: an integer 0–4 (PostHog's GroupTypeIndex). */
function groupTypeIndex(v: unknown): number {
  // a plain DRF ValidationError({"group_type_index": [...]}): code "invalid", rendered "invalid_input"
  if (v === undefined || v === null || v === '') throw validationError(MISSING_INDEX, 'group_type_index');
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 0 || n >= MAX_GROUP_TYPES)
    throw validationError(`group_type_index must be an integer from 0 to ${MAX_GROUP_TYPES - 1}.`, 'group_type_index');
  return n;
}

const name = z.string().max(MAX_GROUP_TEXT).nullable().optional();
/** One row of `update_metadata`: PostHog's serializer takes the names; other (read-only) fields are ignored. */
const metadataRows = z.array(z.object({ group_type_index: z.unknown(), name_singular: name, name_plural: name })).min(1);

const listQuery = z.object({
  search: z.string().max(1000).optional(),
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
});

const valuesQuery = z.object({
  key: z.string({ error: 'key is required.' }).min(1, 'key is required.').max(1000),
  value: z.string().max(1000).optional(),
});

/** The list cursor: opaque to clients (DRF's cursors are too), the offset inside. */
const cursorText = (offset: number): string => Buffer.from(JSON.stringify({ o: offset })).toString('base64url');

function cursorOffset(cursor: string | undefined): number {
  if (cursor === undefined || cursor === '') return 0;
  try {
    const o = (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o?: unknown }).o;
    if (typeof o === 'number' && Number.isSafeInteger(o) && o >= 0) return o;
  } catch {
    /* not ours */
  }
  // DRF's CursorPagination answers an unreadable cursor 404 "Invalid cursor".
  throw notFound('Invalid cursor');
}

/** A property value as PostHog's property_values lists it: strings as they are, other JSON values as their text. */
const valueName = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/**
 * PostHog's groups API (`posthog/api/group.py`): group types (list, rename, delete) and groups (list, find, property
 * definitions and values). Reads go to the engine's group statements; writes to group types go through the Ingestor,
 * which owns the in-memory mapping ingestion assigns indexes from.
 */
export class GroupService {
  constructor(
    private readonly projects: ProjectService,
    private readonly engine: EventEngine,
    private readonly ingestor: Ingestor,
  ) {}

  /** `GET groups_types/`: the project's group types by index. */
  async listTypes(principal: Principal, projectId: number): Promise<GroupTypeView[]> {
    await this.projects.projectFor(principal, projectId, { scope: GROUP_READ });
    return (await this.engine.listGroupTypes(projectId)).map(typeView);
  }

  /** `PATCH groups_types/update_metadata`: renames group types, answers the whole list. */
  async updateTypeMetadata(principal: Principal, projectId: number, body: unknown): Promise<GroupTypeView[]> {
    await this.projects.projectFor(principal, projectId, { scope: GROUP_WRITE });
    const rows = parseInput(metadataRows, body).map((r) => ({ ...r, group_type_index: groupTypeIndex(r.group_type_index) }));
    await this.ingestor.updateGroupTypeNames(projectId, rows);
    return (await this.engine.listGroupTypes(projectId)).map(typeView);
  }

  /** `DELETE groups_types/<index>`: the group type and its groups; an index without a type is a 404. */
  async deleteType(principal: Principal, projectId: number, index: string): Promise<void> {
    await this.projects.projectFor(principal, projectId, { scope: GROUP_WRITE });
    const i = /^\d+$/.test(index) ? Number(index) : NaN;
    const types = await this.engine.listGroupTypes(projectId);
    if (!types.some((t) => t.group_type_index === i)) throw notFound();
    await this.ingestor.deleteGroupType(projectId, i);
  }

  /**
   * `GET groups/?group_type_index=N`: newest first (created_at, then key); `search` matches the key exactly or the
   * properties' text (case-insensitive), as PostHog's `group_key__iexact | group_properties__icontains`.
   */
  async list(principal: Principal, projectId: number, query: Record<string, unknown>): Promise<GroupPage> {
    await this.projects.projectFor(principal, projectId, { scope: GROUP_READ });
    const index = groupTypeIndex(query.group_type_index);
    const q = parseInput(listQuery, { search: query.search, cursor: query.cursor, limit: query.limit });
    const offset = cursorOffset(q.cursor);
    const search = q.search?.trim() ? q.search.trim() : undefined;
    const rows = await this.engine.listGroups(projectId, { group_type_index: index, search }, { limit: q.limit + 1, offset });
    return {
      results: rows.slice(0, q.limit).map(groupView),
      nextCursor: rows.length > q.limit ? cursorText(offset + q.limit) : null,
      previousCursor: offset > 0 ? cursorText(Math.max(0, offset - q.limit)) : null,
    };
  }

  /** `GET groups/find?group_type_index=N&group_key=K`: the group, or 404. */
  async find(principal: Principal, projectId: number, query: Record<string, unknown>): Promise<GroupView> {
    await this.projects.projectFor(principal, projectId, { scope: GROUP_READ });
    const index = groupTypeIndex(query.group_type_index);
    const g = await this.engine.getGroup(projectId, index, groupKeyParam(query.group_key));
    if (!g) throw notFound();
    return groupView(g);
  }

  /**
   * `POST groups/update_property?group_type_index=N&group_key=K` with `{key, value}` (PostHog's GroupsViewSet
   * update_property, scope `group:write`): sets one property of the group, saved directly as PostHog saves it; answers
   * the group. An unknown group is a 404; then a missing or null `value`, then `key`, is PostHog's hand-written 400
   * (`"code": "This field is required.", "detail": "required"`, as persons' update_property).
   */
  async updateProperty(principal: Principal, projectId: number, query: Record<string, unknown>, body: unknown): Promise<GroupView> {
    return this.changeProperties(principal, projectId, query, body, ['value', 'key'], (b, props) => ({ ...props, [String(b.key)]: b.value }));
  }

  /**
   * `POST groups/delete_property?group_type_index=N&group_key=K` with `{"$unset": key}` (PostHog's GroupsViewSet
   * delete_property, scope `group:write`): removes one property of the group (a key it lacks changes nothing);
   * answers the group.
   */
  async deleteProperty(principal: Principal, projectId: number, query: Record<string, unknown>, body: unknown): Promise<GroupView> {
    return this.changeProperties(principal, projectId, query, body, ['$unset'], (b, props) => {
      delete props[String(b.$unset)];
      return props;
    });
  }

  private async changeProperties(
    principal: Principal,
    projectId: number,
    query: Record<string, unknown>,
    input: unknown,
    required: string[],
    change: (body: Record<string, unknown>, properties: Record<string, unknown>) => Record<string, unknown>,
  ): Promise<GroupView> {
    await this.projects.projectFor(principal, projectId, { scope: GROUP_WRITE });
    const index = groupTypeIndex(query.group_type_index);
    const key = groupKeyParam(query.group_key);
    if (!(await this.engine.getGroup(projectId, index, key))) throw notFound();
    const body = objectBody(input);
    for (const attr of required)
      if (body[attr] === undefined || body[attr] === null) throw new UserError(400, 'validation_error', 'This field is required.', 'required', { attr });
    const g = await this.ingestor.updateGroupProperties(projectId, index, key, (props) => change(body, props));
    if (!g) throw notFound();
    return groupView(g);
  }

  /**
   * `GET groups/property_definitions`: per group type index (as a string key), the property names of its groups
   * with the number of groups having each, most common first (then by name), as PostHog's query orders them.
   */
  async propertyDefinitions(principal: Principal, projectId: number): Promise<Record<string, { name: string; count: number }[]>> {
    await this.projects.projectFor(principal, projectId, { scope: GROUP_READ });
    const counts = new Map<number, Map<string, number>>();
    for (const g of (await this.engine.loadGroups(projectId)).groups) {
      let m = counts.get(g.group_type_index);
      if (!m) counts.set(g.group_type_index, (m = new Map()));
      for (const k of Object.keys(g.properties)) m.set(k, (m.get(k) ?? 0) + 1);
    }
    const out: Record<string, { name: string; count: number }[]> = {};
    for (const index of [...counts.keys()].sort((a, b) => a - b))
      out[String(index)] = [...counts.get(index)!].map(([n, count]) => ({ name: n, count })).sort(byCountThenName);
    return out;
  }

  /**
   * `GET groups/property_values?group_type_index=N&key=K[&value=V]`: the values property K takes among the groups of
   * type N, with the number of groups having each, most common first, at most 20 (PostHog's query); `value` keeps
   * the values containing it (case-insensitive).
   */
  async propertyValues(principal: Principal, projectId: number, query: Record<string, unknown>): Promise<{ name: string; count: number }[]> {
    await this.projects.projectFor(principal, projectId, { scope: GROUP_READ });
    const index = groupTypeIndex(query.group_type_index);
    const q = parseInput(valuesQuery, { key: query.key, value: query.value });
    const needle = q.value?.toLowerCase();
    const counts = new Map<string, number>();
    for (const g of (await this.engine.loadGroups(projectId)).groups) {
      if (g.group_type_index !== index || !Object.hasOwn(g.properties, q.key)) continue;
      const v = valueName(g.properties[q.key]);
      if (needle !== undefined && !v.toLowerCase().includes(needle)) continue;
      counts.set(v, (counts.get(v) ?? 0) + 1);
    }
    return [...counts].map(([n, count]) => ({ name: n, count })).sort(byCountThenName).slice(0, 20);
  }
}

function byCountThenName(a: { name: string; count: number }, b: { name: string; count: number }): number {
  return b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}
