/**
 * Groups at ingestion (PostHog's group analytics, plugin-server `addGroupProperties`, `upsertGroup` and
 * `GroupTypeManager.fetchGroupTypeIndex`):
 *
 * - an event's `properties.$groups` (group type → key) gives the event `$group_<index>` = the key, the index being
 *   the type's in the project's mapping; a type seen for the first time takes the lowest free index 0–4 and is
 *   recorded; with all five taken the type is ignored;
 * - a `$groupidentify` event (`$group_type`, `$group_key`, `$group_set`) upserts the group: `$group_set` merged over
 *   its properties, `created_at` the earliest event timestamp seen, `version` + 1. The event itself is stored like any
 *   other (and has person processing like any other: PostHog's pipeline runs it; posthog-node sends it with the
 *   distinct id `$<type>_<key>`), except that with `$process_person_profile: false` it is dropped, as PostHog drops
 *   it (ingestion warning `invalid_event_when_process_person_profile_is_false`).
 *
 * As with identity (identity.ts), a project's group types and groups are loaded once and kept in memory (groups are
 * few next to persons, which identity keeps in memory too); changes are drained into the WriteBatch that stores the
 * events, so a replay of the durable log after a crash applies them exactly once. Assignment is deterministic (file
 * or log order), so a replay assigns the same indexes.
 */
import type { GroupRow, GroupTypeRow, GroupTypeUpsert, GroupUpsert, ProjectGroups as StoredGroups } from '../engines/engine';
import { replaceLoneSurrogates } from './capture-payload';
import { ProjectStateStore } from './project-state';

/** A project has at most five group types (PostHog's MAX_GROUP_TYPES_PER_TEAM), indexes 0–4. */
export const MAX_GROUP_TYPES = 5;

/** Longest group type name and group key (PostHog's `group_type` / `group_key` columns are varchar(400)). */
export const MAX_GROUP_TEXT = 400;

/** Loads a project's stored group types and groups (at first touch of the project). */
export interface GroupsLoader {
  loadGroups(projectId: number): Promise<StoredGroups>;
}

/** What group processing needs of an event; `properties` are the complete properties (they may get `$group_N`). */
export interface GroupEvent {
  event: string;
  properties: Record<string, unknown>;
  timestamp: number;
}

/**
 * What {@link ProjectGroups.processEvent} did to an event: nothing, added `$group_N` properties (its JSON text must be
 * made again), or the event must not be stored.
 */
export type GroupOutcome = 'unchanged' | 'changed' | 'drop';

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A group key as stored: strings and numbers (and booleans) as their text; anything else, or '', is no key. */
export function groupKeyText(v: unknown): string | null {
  if (typeof v === 'string') return v === '' ? null : v;
  if ((typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean') return String(v);
  return null;
}

function validType(t: unknown): t is string {
  return typeof t === 'string' && t !== '' && t.length <= MAX_GROUP_TEXT;
}

const sameValue = (a: unknown, b: unknown): boolean => a === b || JSON.stringify(a) === JSON.stringify(b);

const mapKey = (index: number, key: string): string => `${index}\u0000${key}`;

/** The JSON text of event properties after a change, as normalizeEvent makes it (lone surrogates replaced). */
export function propertiesJsonText(props: Record<string, unknown>): string {
  const s = JSON.stringify(props);
  return s.includes('\\u') ? replaceLoneSurrogates(s) : s;
}

/** One project's group types and groups. */
export class ProjectGroups {
  private readonly indexByType = new Map<string, number>();
  private readonly types = new Map<number, GroupTypeRow>();
  private readonly groups = new Map<string, GroupRow>();
  private readonly dirtyTypes = new Set<number>();
  private readonly dirtyGroups = new Set<string>();
  /** Events dropped since the last drain (for the ingestion warning). */
  private dropped = 0;

  constructor(readonly projectId: number) {}

  load(data: StoredGroups): void {
    for (const t of data.types) {
      this.types.set(t.group_type_index, { ...t });
      this.indexByType.set(t.group_type, t.group_type_index);
    }
    for (const g of data.groups) this.groups.set(mapKey(g.group_type_index, g.group_key), { ...g });
  }

  /** The index of a group type: its mapping, else the lowest free index (recorded), else null (five taken). */
  indexOf(groupType: string): number | null {
    const known = this.indexByType.get(groupType);
    if (known !== undefined) return known;
    for (let i = 0; i < MAX_GROUP_TYPES; i++)
      if (!this.types.has(i)) {
        this.types.set(i, { group_type: groupType, group_type_index: i, name_singular: null, name_plural: null });
        this.indexByType.set(groupType, i);
        this.dirtyTypes.add(i);
        return i;
      }
    return null;
  }

  /** The group, if known. */
  group(index: number, key: string): GroupRow | undefined {
    return this.groups.get(mapKey(index, key));
  }

  /**
   * Applies one event: `$groups` → `$group_N` properties, `$groupidentify` → group upsert. Returns what became of the
   * event. New `$group_N` go into a copy of `ev.properties` (then `ev.properties` is the copy): the object given may
   * be the caller's own (an import's event objects), which the next project importing it must see unchanged.
   */
  processEvent(ev: GroupEvent): GroupOutcome {
    let props = ev.properties;
    if (ev.event === '$groupidentify') {
      if (props.$process_person_profile === false) {
        this.dropped++;
        return 'drop';
      }
      this.groupIdentify(props, ev.timestamp);
    }
    const groups = props.$groups;
    if (!isObj(groups)) return 'unchanged';
    let changed = false;
    for (const type of Object.keys(groups)) {
      const key = groupKeyText(groups[type]);
      if (key === null || !validType(type)) continue;
      const index = this.indexOf(type);
      if (index === null) continue;
      const prop = `$group_${index}`;
      if (props[prop] !== key) {
        if (!changed) props = { ...props };
        props[prop] = key;
        changed = true;
      }
    }
    if (changed) ev.properties = props;
    return changed ? 'changed' : 'unchanged';
  }

  /** PostHog's upsertGroup: invalid type or key → nothing. */
  private groupIdentify(props: Record<string, unknown>, timestamp: number): void {
    const type = props.$group_type;
    const key = groupKeyText(props.$group_key);
    if (!validType(type) || key === null || key.length > MAX_GROUP_TEXT) return;
    const index = this.indexOf(type);
    if (index === null) return;
    const set = isObj(props.$group_set) ? props.$group_set : {};
    const k = mapKey(index, key);
    const existing = this.groups.get(k);
    if (!existing) {
      this.groups.set(k, { group_type_index: index, group_key: key, created_at: timestamp, properties: { ...set }, version: 1 });
      this.dirtyGroups.add(k);
      return;
    }
    let changed = false;
    for (const name of Object.keys(set))
      if (!(name in existing.properties) || !sameValue(existing.properties[name], set[name])) {
        existing.properties[name] = set[name];
        changed = true;
      }
    if (timestamp < existing.created_at) {
      existing.created_at = timestamp;
      changed = true;
    }
    if (changed) {
      existing.version++;
      this.dirtyGroups.add(k);
    }
  }

  /** Drains the changes into rows for one write batch, and the count of dropped events since the last drain. */
  drain(): { groups: GroupUpsert[]; groupTypes: GroupTypeUpsert[]; dropped: number } {
    const project_id = this.projectId;
    const groups: GroupUpsert[] = [];
    for (const k of this.dirtyGroups) {
      const g = this.groups.get(k)!;
      groups.push({ project_id, group_type_index: g.group_type_index, group_key: g.group_key, created_at: g.created_at, properties: g.properties, version: g.version });
    }
    const groupTypes: GroupTypeUpsert[] = [];
    for (const i of this.dirtyTypes) groupTypes.push({ project_id, ...this.types.get(i)! });
    const dropped = this.dropped;
    this.dirtyGroups.clear();
    this.dirtyTypes.clear();
    this.dropped = 0;
    return { groups, groupTypes, dropped };
  }
}

/** Group state of every project touched so far, loaded lazily (like IdentityStore). */
export class GroupStore extends ProjectStateStore<ProjectGroups> {
  constructor(loader?: GroupsLoader) {
    super('groups', async (projectId) => {
      const p = new ProjectGroups(projectId);
      if (loader) p.load(await loader.loadGroups(projectId));
      return p;
    });
  }
}
