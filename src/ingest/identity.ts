/**
 * Identity: distinct id → person, persons-on-events, merges (reference §6.5, person-merge-service.ts).
 *
 * All state of a project lives in memory once loaded (distinct id map, persons with properties, overrides),
 * so the per-event lookup is a Map get. Changes are tracked as "dirty" sets and drained into a
 * {@link WriteBatch} that the ingestor commits together with the events in one DuckDB transaction. If that
 * commit fails, the caller calls {@link IdentityStore.invalidate} and the state is reloaded from DuckDB.
 */
import { randomUUID } from 'node:crypto';
import type { DistinctIdUpsert, OverrideUpsert, PersonUpsert } from '../engines/duckdb/duckdb-engine';
import { isIllegalDistinctId } from './capture-payload';
import { DERIVED_KEY, EVENT_TO_PERSON_PROPERTIES, derivedCovered, expandDerived } from './person-initial-properties';
import { ProjectStateStore } from './project-state';

export interface PersonState {
  id: string;
  created_at: number;
  properties: Record<string, unknown>;
  is_identified: boolean;
  version: number;
  distinctIds: Set<string>;
  /** Whether a row for this person exists in the database (decides insert vs replace). */
  persisted?: boolean;
  /**
   * The last derived-keys text (person-initial-properties.ts DERIVED_KEY) found covered by the properties, cleared
   * whenever they change: consecutive events with the same keys skip the check (most of a person's events).
   */
  coveredCodes?: string;
}

export interface IdentityEvent {
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  timestamp: number;
  /**
   * The event's whole properties, for identity properties that name derived person properties without their values
   * (person-initial-properties.ts DERIVED_KEY): read only when needed. Absent: nothing is derived.
   */
  full?: () => Record<string, unknown>;
  /**
   * The uuid of a captured event, read only when the event creates a person: PostHog's createPerson stores it as the
   * person property `$creator_event_uuid` (person-state.test.ts 'creates person if they're new'). Imports set none
   * (a PostHog export's persons already hold it).
   */
  creatorUuid?: () => string;
}

export interface IngestionWarning {
  type: 'cannot_merge_with_illegal_distinct_id' | 'cannot_merge_already_identified';
  details: Record<string, unknown>;
}

/** Loads a project's identity rows (used at first touch of a project). */
export interface IdentityLoader {
  loadProject(projectId: number): Promise<{
    persons: { id: string; created_at: number; properties: Record<string, unknown>; is_identified: boolean; version: number }[];
    distinctIds: { distinct_id: string; person_id: string; version: number; seq?: number }[];
    overrides: { old_person_id: string; override_person_id: string; version: number }[];
  }>;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Whether two property values (parsed from JSON) are the same, as their JSON texts would compare: primitives by
 * value, objects and arrays by their JSON text. Only those are stringified: stringifying both sides of every `$set`
 * value was ~15% of the bulk import's identity pass (bench rows: ~5.9 → ~5.0 µs a row).
 */
function sameValue(a: unknown, b: unknown): boolean {
  const ao = typeof a === 'object' && a !== null;
  const bo = typeof b === 'object' && b !== null;
  if (!ao && !bo) return a === b || JSON.stringify(a) === JSON.stringify(b);
  if (ao !== bo) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);
const NO_KEYS: readonly unknown[] = Object.freeze([]);

/** Whether a value holds a NUL character anywhere (in a string, or in a string nested in objects/arrays). */
function hasNul(v: unknown): boolean {
  if (typeof v === 'string') return v.indexOf('\u0000') >= 0;
  if (typeof v !== 'object' || v === null) return false;
  if (Array.isArray(v)) return v.some(hasNul);
  for (const k in v) if (k.indexOf('\u0000') >= 0 || hasNul((v as Record<string, unknown>)[k])) return true;
  return false;
}

function replaceNul(v: unknown): unknown {
  if (typeof v === 'string') return v.replace(/\u0000/g, '\uFFFD');
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(replaceNul);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) setOwn(out, k.replace(/\u0000/g, '\uFFFD'), replaceNul((v as Record<string, unknown>)[k]));
  return out;
}

/**
 * A person property value as PostHog stores it: NUL characters become U+FFFD (plugin-server sanitizeJsonbValue;
 * person-state.test.ts 'creates person if they're new': `$set: { null_byte: '\u0000' }` → `'\uFFFD'`).
 */
function personValue(v: unknown): unknown {
  if (typeof v === 'string') return v.indexOf('\u0000') < 0 ? v : replaceNul(v);
  if (typeof v !== 'object' || v === null) return v;
  return hasNul(v) ? replaceNul(v) : v;
}

/** Sets an own property, also for `__proto__`, which a plain assignment would take as the object's prototype. */
function setOwn(target: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(target, k, { value: v, writable: true, enumerable: true, configurable: true });
  else target[k] = v;
}

/**
 * Applies `$set_once`, `$set`, `$unset` (in that order) to a property bag; returns whether anything changed.
 * Keys are the bag's own properties only: `toString` or `constructor` are not "already set" because every object
 * inherits them.
 *
 * A `$set` that only gives a new value to one of the {@link EVENT_TO_PERSON_PROPERTIES} the person already has
 * (`$browser`, `$current_url`, `utm_source`, ...: what every event of a web SDK carries) is no change on its own: it is
 * applied only when the same event changes something else, as PostHog's applyEventPropertyUpdates does ("only set
 * updated if the key is not in eventToPersonProperties or if it's not set already"). Without it, each pageview
 * would rewrite its person.
 */
export function applyPropertyUpdates(
  target: Record<string, unknown>,
  props: Record<string, unknown>,
  full?: () => Record<string, unknown>,
): boolean {
  // What a captured event derives for its person (person-initial-properties.ts) is read only when it can matter, from
  // the event's whole properties (`full`; without them, nothing is derived).
  const derived = props[DERIVED_KEY];
  if (typeof derived === 'string' && full !== undefined) {
    if (!derivedCovered(derived, target)) props = expandDerived(props, full);
    else if (props.$set !== undefined || props.$set_once !== undefined || props.$unset !== undefined) {
      // Covered: the derived values only matter if the event's own updates change something (then they are written
      // too, under the event's own `$set` and before its `$unset`), so those go first and the text is read only then.
      if (!applyPropertyUpdates(target, props)) return false;
      const own = isObj(props.$set) ? props.$set : null;
      const unset = props.$unset;
      const removed = new Set(Array.isArray(unset) ? unset : isObj(unset) ? Object.keys(unset) : []);
      const d = expandDerived({ [DERIVED_KEY]: derived }, full).$set;
      if (isObj(d))
        for (const k of Object.keys(d)) if (!(own && hasOwn(own, k)) && !removed.has(k)) setOwn(target, k, personValue(d[k]));
      return true;
    }
  }
  let changed = false;
  const once = props.$set_once;
  if (isObj(once))
    for (const k of Object.keys(once))
      if (!hasOwn(target, k)) {
        setOwn(target, k, personValue(once[k]));
        changed = true;
      }
  const set = props.$set;
  const unset = props.$unset;
  const keys = Array.isArray(unset) ? unset : isObj(unset) ? Object.keys(unset) : NO_KEYS;
  if (isObj(set)) {
    // First only looked at (no allocation when, as for most events, nothing changes), then applied.
    let real = changed;
    let filtered = false;
    for (const k in set) {
      if (!hasOwn(set, k)) continue;
      const has = hasOwn(target, k);
      if (has && sameValue(target[k], set[k])) continue;
      if (has && EVENT_TO_PERSON_PROPERTIES.has(k)) filtered = true;
      else {
        real = true;
        break;
      }
    }
    if (filtered && !real) for (const k of keys) if (typeof k === 'string' && hasOwn(target, k)) real = true;
    if (real)
      for (const k of Object.keys(set)) {
        const v = personValue(set[k]);
        if (!hasOwn(target, k) || !sameValue(target[k], v)) {
          setOwn(target, k, v);
          changed = true;
        }
      }
  }
  for (const k of keys)
    if (typeof k === 'string' && hasOwn(target, k)) {
      delete target[k];
      changed = true;
    }
  return changed;
}

export class ProjectIdentity {
  readonly byDistinctId = new Map<string, PersonState>();
  readonly persons = new Map<string, PersonState>();
  /** old person id → current person id. */
  readonly overrides = new Map<string, { target: string; version: number }>();
  /** current person id → old ids pointing at it. */
  private readonly overriddenBy = new Map<string, Set<string>>();
  readonly dirtyPersons = new Set<string>();
  readonly deletedPersons = new Set<string>();
  readonly dirtyDistinctIds = new Set<string>();
  readonly dirtyOverrides = new Set<string>();
  readonly warnings: IngestionWarning[] = [];
  private distinctVersion = new Map<string, number>();
  /**
   * When each distinct id was first seen in the project (DistinctIdUpsert.seq): kept when a merge moves the id, so
   * a person's ids list in PostHog's order (PersonDistinctId rows by id).
   */
  private readonly distinctSeq = new Map<string, number>();
  private lastSeq = 0;
  /** distinct ids with a row in the database (decides insert vs replace). */
  private readonly persistedDistinctIds = new Set<string>();

  /** The whole properties of the event being processed (IdentityEvent.full), for the property updates. */
  private full: (() => Record<string, unknown>) | undefined = undefined;
  /** The uuid of the event being processed, when captured (IdentityEvent.creatorUuid). */
  private creatorUuid: (() => string) | undefined = undefined;

  constructor(readonly projectId: number) {}

  load(data: Awaited<ReturnType<IdentityLoader['loadProject']>>): void {
    for (const p of data.persons)
      this.persons.set(p.id, { ...p, distinctIds: new Set(), persisted: true });
    for (const d of data.distinctIds) {
      const p = this.persons.get(d.person_id);
      if (!p) continue;
      p.distinctIds.add(d.distinct_id);
      this.byDistinctId.set(d.distinct_id, p);
      this.distinctVersion.set(d.distinct_id, d.version);
      const seq = d.seq ?? 0;
      this.distinctSeq.set(d.distinct_id, seq);
      if (seq > this.lastSeq) this.lastSeq = seq;
      this.persistedDistinctIds.add(d.distinct_id);
    }
    for (const o of data.overrides) this.setOverride(o.old_person_id, o.override_person_id, o.version, false);
  }

  private setOverride(oldId: string, target: string, version: number, dirty = true): void {
    const prev = this.overrides.get(oldId);
    if (prev) this.overriddenBy.get(prev.target)?.delete(oldId);
    this.overrides.set(oldId, { target, version });
    let s = this.overriddenBy.get(target);
    if (!s) this.overriddenBy.set(target, (s = new Set()));
    s.add(oldId);
    if (dirty) this.dirtyOverrides.add(oldId);
  }

  /** The person an old (merged-away) id now resolves to, or the id itself. */
  resolvePersonId(id: string): string {
    return this.overrides.get(id)?.target ?? id;
  }

  personFor(distinctId: string): PersonState | undefined {
    return this.byDistinctId.get(distinctId);
  }

  /**
   * Called whenever a distinct id is (re)mapped to a person. Bulk import records these changes, with the
   * position of the row that caused them, to give every other row its person in SQL.
   */
  onAttach: ((distinctId: string, personId: string) => void) | null = null;

  private attach(p: PersonState, distinctId: string): void {
    this.onAttach?.(distinctId, p.id);
    p.distinctIds.add(distinctId);
    this.byDistinctId.set(distinctId, p);
    this.distinctVersion.set(distinctId, (this.distinctVersion.get(distinctId) ?? -1) + 1);
    if (!this.distinctSeq.has(distinctId)) this.distinctSeq.set(distinctId, ++this.lastSeq);
    this.dirtyDistinctIds.add(distinctId);
  }

  private createPerson(
    distinctIds: string[],
    timestamp: number,
    props: Record<string, unknown>,
    isIdentified: boolean,
    id: string = randomUUID(),
  ): PersonState {
    const p: PersonState = { id, created_at: timestamp, properties: {}, is_identified: isIdentified, version: 0, distinctIds: new Set() };
    applyPropertyUpdates(p.properties, props, this.full);
    // PostHog: `{ ...propertiesOnce, ...properties, $creator_event_uuid }` (it wins over the event's own `$set`).
    if (this.creatorUuid !== undefined) setOwn(p.properties, '$creator_event_uuid', this.creatorUuid());
    this.persons.set(id, p);
    this.deletedPersons.delete(id);
    this.dirtyPersons.add(id);
    for (const d of distinctIds) this.attach(p, d);
    return p;
  }

  private touch(p: PersonState, props: Record<string, unknown>, identify = false): void {
    let changed = applyPropertyUpdates(p.properties, props, this.full);
    if (identify && !p.is_identified) {
      p.is_identified = true;
      changed = true;
    }
    if (changed) {
      p.version++;
      p.coveredCodes = undefined;
      this.dirtyPersons.add(p.id);
    }
  }

  /**
   * Runs identity for one event and returns the person id to store on it. Implements $identify / $create_alias /
   * $merge_dangerously merges and $set/$set_once/$unset. A personless event (`$process_person_profile: false`)
   * changes nothing: it gets the person its distinct id already has, else none (PostHog's person state uses the
   * existing person read-only, and a stand-in id derived from the distinct id only when there is none).
   */
  processEvent(ev: IdentityEvent): string | null {
    this.full = ev.full;
    this.creatorUuid = ev.creatorUuid;
    const props = ev.properties;
    if (props.$process_person_profile === false) return this.personFor(ev.distinct_id)?.id ?? null;
    // PostHog's handleIdentifyOrAlias: `$identify` merges when `$anon_distinct_id` is present at all (any value,
    // stringified), `$create_alias` / `$merge_dangerously` when `alias` is truthy.
    let mergeFrom: string | undefined;
    let dangerously = false;
    if (ev.event === '$identify' && props.$anon_distinct_id !== undefined) mergeFrom = String(props.$anon_distinct_id);
    else if ((ev.event === '$create_alias' || ev.event === '$merge_dangerously') && props.alias) {
      mergeFrom = String(props.alias);
      dangerously = ev.event === '$merge_dangerously';
    }
    // A merge that got past the same-id and illegal-id checks marks the event's person identified even when it is
    // refused (PostHog's mergeDistinctIds sets updateIsIdentified before looking at the persons); a `$identify`
    // without `$anon_distinct_id`, or whose merge stopped at those checks, identifies no one.
    let identifies = false;
    if (mergeFrom !== undefined && mergeFrom !== ev.distinct_id) {
      const merged = this.merge(mergeFrom, ev.distinct_id, ev, dangerously);
      if (merged) return merged.id;
      identifies = merged === null;
    }
    let p = this.byDistinctId.get(ev.distinct_id);
    // PostHog's createOrGetPerson creates the person from `$set_once` and `$set` only and reports the properties
    // handled, so a new person's `$unset` is not applied (a person a merge creates does get it: the merged person
    // goes through updatePersonProperties).
    if (!p) p = this.createPerson([ev.distinct_id], ev.timestamp, props.$unset === undefined ? props : { ...props, $unset: undefined }, identifies);
    else {
      // Most captured events only carry derived person properties the person already has: nothing to apply.
      const codes = props[DERIVED_KEY];
      if (typeof codes === 'string' && !identifies && props.$set === undefined && props.$set_once === undefined && props.$unset === undefined) {
        if (p.coveredCodes === codes) return p.id;
        if (derivedCovered(codes, p.properties)) {
          p.coveredCodes = codes;
          return p.id;
        }
      }
      this.touch(p, props, identifies);
    }
    return p.id;
  }

  /**
   * Merges distinct id `a` into `b`. Returns B's (resulting) person; null when refused because A's person is already
   * identified; undefined when an id is illegal (nothing looked at).
   */
  private merge(a: string, b: string, ev: IdentityEvent, dangerously: boolean): PersonState | null | undefined {
    // PostHog looks at the id merged into (the event's) first, so the warning names it when both are illegal.
    const illegalB = isIllegalDistinctId(b);
    if (illegalB || isIllegalDistinctId(a)) {
      this.warnings.push({
        type: 'cannot_merge_with_illegal_distinct_id',
        details: { illegalDistinctId: illegalB ? b : a, otherDistinctId: illegalB ? a : b, eventUuid: undefined },
      });
      return undefined;
    }
    const pa = this.byDistinctId.get(a);
    const pb = this.byDistinctId.get(b);
    if (!pa && !pb) return this.createPerson([b, a], ev.timestamp, ev.properties, true);
    if (pa && !pb) {
      this.attach(pa, b);
      this.touch(pa, ev.properties, true);
      return pa;
    }
    if (!pa && pb) {
      this.attach(pb, a);
      this.touch(pb, ev.properties, true);
      return pb;
    }
    if (pa === pb) {
      this.touch(pb!, ev.properties, true);
      return pb!;
    }
    const A = pa!;
    const B = pb!;
    if (A.is_identified && !dangerously) {
      this.warnings.push({ type: 'cannot_merge_already_identified', details: { sourcePersonDistinctId: a, targetPersonDistinctId: b } });
      return null;
    }
    // B's values win over A's, then the event's $set_once / $set / $unset.
    const props: Record<string, unknown> = { ...A.properties, ...B.properties };
    applyPropertyUpdates(props, ev.properties, this.full);
    B.properties = props;
    B.coveredCodes = undefined;
    B.created_at = Math.min(A.created_at, B.created_at);
    B.is_identified = true;
    B.version = Math.max(A.version, B.version) + 1;
    this.dirtyPersons.add(B.id);
    for (const d of A.distinctIds) this.attach(B, d);
    A.distinctIds.clear();
    this.persons.delete(A.id);
    this.dirtyPersons.delete(A.id);
    this.deletedPersons.add(A.id);
    // Past events of A (and of persons earlier merged into A) now resolve to B.
    const version = B.version;
    for (const old of [...(this.overriddenBy.get(A.id) ?? [])]) this.setOverride(old, B.id, version);
    this.overriddenBy.delete(A.id);
    this.setOverride(A.id, B.id, version);
    return B;
  }

  /**
   * Imports a person as given (created_at kept). Returns an error message when a distinct id already belongs to
   * a different person.
   */
  importPerson(p: {
    id?: string;
    distinct_ids: string[];
    properties: Record<string, unknown>;
    created_at: number;
    is_identified: boolean;
  }): { id: string } | { error: string } {
    // Nothing of the last processed event applies to an imported person.
    this.full = undefined;
    this.creatorUuid = undefined;
    const existing = p.id ? this.persons.get(p.id) : undefined;
    for (const d of p.distinct_ids) {
      const owner = this.byDistinctId.get(d);
      if (owner && owner !== existing) return { error: `distinct_id ${JSON.stringify(d)} already belongs to person ${owner.id}` };
    }
    if (p.id && !existing && this.overrides.has(p.id)) return { error: `person ${p.id} was merged into ${this.overrides.get(p.id)!.target}` };
    if (existing) {
      existing.properties = { ...existing.properties, ...p.properties };
      existing.coveredCodes = undefined;
      existing.created_at = Math.min(existing.created_at, p.created_at);
      existing.is_identified = existing.is_identified || p.is_identified;
      existing.version++;
      this.dirtyPersons.add(existing.id);
      for (const d of p.distinct_ids) if (!existing.distinctIds.has(d)) this.attach(existing, d);
      return { id: existing.id };
    }
    const created = this.createPerson(p.distinct_ids, p.created_at, {}, p.is_identified, p.id ?? randomUUID());
    created.properties = { ...p.properties };
    return { id: created.id };
  }

  /**
   * PostHog's Person.split_person: each distinct id of the person but `mainDistinctId` moves to a person of its own
   * (`get_or_create(uuid=newId(distinct_id))`: new, without properties, unidentified, created `now`, one version
   * above the original). Without a main id the person keeps its first distinct id and loses its properties. Past
   * events keep their person id (PostHog writes no override for a split); later events of a moved id go to its new
   * person. With `maxSplits`, only the last `maxSplits` distinct ids (in order) move when the person has more
   * (`distinct_ids[-1 * max_splits:]`, so 0 is all of them). Returns the person's distinct ids before the split, in
   * order; null when the person is not the project's.
   */
  splitPerson(
    personId: string,
    mainDistinctId: string | null,
    newId: (distinctId: string) => string,
    now: number,
    maxSplits: number | null = null,
  ): string[] | null {
    const p = this.persons.get(personId);
    if (!p) return null;
    const ids = [...p.distinctIds].sort((a, b) => (this.distinctSeq.get(a) ?? 0) - (this.distinctSeq.get(b) ?? 0));
    let main = mainDistinctId;
    if (!main) {
      p.properties = {};
      p.coveredCodes = undefined;
      p.version++;
      this.dirtyPersons.add(p.id);
      main = ids[0];
    }
    const version = p.version + 1;
    this.full = undefined;
    this.creatorUuid = undefined;
    const moving = maxSplits !== null && ids.length > maxSplits ? ids.slice(-maxSplits) : ids;
    for (const d of moving) {
      if (d === main) continue;
      const id = newId(d);
      let target = this.persons.get(id);
      if (target === p) continue;
      if (!target) {
        target = this.createPerson([], now, {}, false, id);
        target.version = version;
      }
      p.distinctIds.delete(d);
      this.attach(target, d);
    }
    return ids;
  }

  /** Forgets a deleted person (after the engine deleted it). */
  forgetPerson(personId: string): void {
    const p = this.persons.get(personId);
    // Its distinct ids' rows are gone: seen again, they are new ids (PostHog adds new PersonDistinctId rows).
    if (p)
      for (const d of p.distinctIds) {
        this.byDistinctId.delete(d);
        this.distinctSeq.delete(d);
      }
    this.persons.delete(personId);
    for (const old of this.overriddenBy.get(personId) ?? []) this.overrides.delete(old);
    this.overriddenBy.delete(personId);
  }

  /** Drains the dirty sets into rows for one write batch. */
  drain(): {
    persons: PersonUpsert[];
    newPersons: PersonUpsert[];
    deletedPersons: { project_id: number; id: string }[];
    distinctIds: DistinctIdUpsert[];
    newDistinctIds: DistinctIdUpsert[];
    overrides: OverrideUpsert[];
    warnings: IngestionWarning[];
  } {
    const project_id = this.projectId;
    const persons: PersonUpsert[] = [];
    const newPersons: PersonUpsert[] = [];
    for (const id of this.dirtyPersons) {
      const p = this.persons.get(id);
      if (!p) continue;
      const row = { project_id, id, created_at: p.created_at, properties: p.properties, is_identified: p.is_identified, version: p.version };
      if (p.persisted) persons.push(row);
      else newPersons.push(row);
      p.persisted = true;
    }
    const deletedPersons = [...this.deletedPersons].map((id) => ({ project_id, id }));
    const distinctIds: DistinctIdUpsert[] = [];
    const newDistinctIds: DistinctIdUpsert[] = [];
    for (const d of this.dirtyDistinctIds) {
      const p = this.byDistinctId.get(d);
      if (!p) continue;
      const row = { project_id, distinct_id: d, person_id: p.id, version: this.distinctVersion.get(d) ?? 0, seq: this.distinctSeq.get(d) ?? 0 };
      if (this.persistedDistinctIds.has(d)) distinctIds.push(row);
      else newDistinctIds.push(row);
      this.persistedDistinctIds.add(d);
    }
    const overrides: OverrideUpsert[] = [];
    for (const old of this.dirtyOverrides) {
      const o = this.overrides.get(old);
      if (o) overrides.push({ project_id, old_person_id: old, override_person_id: o.target, version: o.version });
    }
    const warnings = this.warnings.splice(0);
    this.dirtyPersons.clear();
    this.deletedPersons.clear();
    this.dirtyDistinctIds.clear();
    this.dirtyOverrides.clear();
    return { persons, newPersons, deletedPersons, distinctIds, newDistinctIds, overrides, warnings };
  }
}

/** Identity state of every project touched so far, loaded lazily. */
export class IdentityStore extends ProjectStateStore<ProjectIdentity> {
  constructor(loader?: IdentityLoader) {
    super('identity', async (projectId) => {
      const p = new ProjectIdentity(projectId);
      if (loader) p.load(await loader.loadProject(projectId));
      return p;
    });
  }
}
