/**
 * Loads cohorts of one project for queries: the named ones and, transitively, the cohorts their criteria refer to.
 * Rows of other projects are never read (every lookup is by project and id), so a query can only see its own
 * project's cohorts.
 */
import { In } from 'typeorm';
import { Cohort } from '../store/entities/cohort';
import type { Store } from '../store/store';
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

export class CohortLoader {
  constructor(private readonly store: Store) {}

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
    return out;
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
