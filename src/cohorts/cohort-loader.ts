/**
 * Loads cohorts of one project for queries: the named ones and, transitively, the cohorts their criteria refer to.
 * Rows of other projects are never read (every lookup is by project and id), so a query can only see its own
 * project's cohorts.
 */
import { In } from 'typeorm';
import type { ActionDef } from '../actions/matching';
import { Action } from '../store/entities/action';
import { Cohort } from '../store/entities/cohort';
import type { Store } from '../store/store';
import { ensureFilterParser } from '../queries/insights/property-filters';
import { attachActions, behavioralActionIds, behavioralCriteria } from './behavioral';
import { cohortGroup, referencedCohorts } from './cohort-definition';
import type { ResolvedCohort } from './cohort-scope';

/** Most cohorts one query may pull in (nested references included). */
const MAX_COHORTS = 200;

export function resolveCohort(c: Cohort): ResolvedCohort {
  return {
    id: c.id,
    name: c.name,
    isStatic: c.is_static,
    group: c.is_static ? null : cohortGroup(c),
    personIds: c.is_static ? [...(c.static_person_ids ?? [])] : [],
  };
}

/**
 * The persons that stored person ids stand for now, in order (PostHog moves a merged-away person's cohort links to the
 * person it merged into: reference §6.5 "All of A's distinct ids, cohort links … move to B"). Given the project and
 * the ids, it answers each id's current person id (the id itself when it was never merged away).
 */
export type PersonIdResolver = (projectId: number, personIds: string[]) => Promise<string[]>;

export class CohortLoader {
  /**
   * @param resolvePersons maps a static cohort's stored person ids to the persons they were merged into (default:
   *   none, the ids as stored — a person merged away after being added then drops out of the cohort).
   */
  constructor(
    private readonly store: Store,
    private readonly resolvePersons?: PersonIdResolver,
  ) {}

  /**
   * The project's cohorts with these ids and every cohort they refer to, by id. Ids the project does not have are
   * simply absent (callers answer PostHog's 400). Soft-deleted cohorts still resolve, as PostHog's lookups do.
   */
  async load(projectId: number, ids: Iterable<number>): Promise<Map<number, ResolvedCohort>> {
    const out = new Map<number, ResolvedCohort>();
    const seen = new Set<number>();
    let pending = [...new Set(ids)];
    while (pending.length && seen.size < MAX_COHORTS) {
      pending.forEach((id) => seen.add(id));
      const rows = await this.store.db.getRepository(Cohort).findBy({ project_id: projectId, id: In(pending) });
      const next: number[] = [];
      for (const row of rows) {
        const r = resolveCohort(row);
        out.set(r.id, r);
        if (r.group) for (const ref of referencedCohorts(r.group)) if (!seen.has(ref)) next.push(ref);
      }
      pending = [...new Set(next)];
    }
    await this.followMerges(projectId, out);
    const groups = [...out.values()].flatMap((c) => (c.group ? [c.group] : []));
    // hogql event_filters are parsed when the filter builder expands the cohort, synchronously
    if (groups.some((g) => behavioralCriteria(g).some((c) => c.eventFilters.some((f) => f.type === 'hogql')))) await ensureFilterParser();
    const actionIds = [...new Set(groups.flatMap(behavioralActionIds))];
    if (actionIds.length) {
      const actions = await this.actions(projectId, actionIds);
      for (const g of groups) attachActions(g, actions);
    }
    return out;
  }

  /** Static cohorts' person ids replaced by the persons they now are (one resolver call for all of them). */
  private async followMerges(projectId: number, cohorts: Map<number, ResolvedCohort>): Promise<void> {
    if (!this.resolvePersons) return;
    const statics = [...cohorts.values()].filter((c) => c.isStatic && c.personIds.length);
    if (!statics.length) return;
    const stored = [...new Set(statics.flatMap((c) => c.personIds))];
    const now = await this.resolvePersons(projectId, stored);
    const current = new Map(stored.map((id, i) => [id, (now[i] ?? id).toLowerCase()]));
    for (const c of statics) c.personIds = [...new Set(c.personIds.map((id) => current.get(id) ?? id))];
  }

  /**
   * The project's actions with these ids, for behavioral criteria that count an action's events. Soft-deleted actions
   * still resolve (PostHog's cohort query reads the action row whatever its `deleted`); other projects' never do.
   */
  async actions(projectId: number, ids: number[], opts: { live?: boolean } = {}): Promise<Map<number, ActionDef>> {
    if (!ids.length) return new Map();
    const rows = await this.store.db.getRepository(Action).findBy({ project_id: projectId, id: In(ids), ...(opts.live ? { deleted: false } : {}) });
    return new Map(rows.map((a) => [a.id, { id: a.id, name: a.name, steps: a.steps }]));
  }

  /** Live and deleted cohorts of the project by name (`IN COHORT 'name'`): each name's ids, absent when none. */
  async idsByName(projectId: number, names: string[]): Promise<Map<string, number[]>> {
    const out = new Map<string, number[]>();
    if (!names.length) return out;
    for (const r of await this.store.db.getRepository(Cohort).findBy({ project_id: projectId, name: In(names) }))
      if (r.name !== null) out.set(r.name, [...(out.get(r.name) ?? []), r.id]);
    return out;
  }
}
