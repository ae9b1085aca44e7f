/**
 * ProductQL's `x IN COHORT <id>` / `x IN COHORT 'name'` (HogQL, posthog/hogql/functions/cohort.py) over the cohort
 * scope of the running query:
 *
 * - before a runner starts, {@link productqlCohortIds} finds the cohorts a node's ProductQL text names (a
 *   HogQLQuery's `query`, `hogql` property filters, any other ProductQL string in the node), so the cohort-aware
 *   runner wrapper loads them (with the cohorts they refer to) from the query's own project;
 * - while the query compiles, {@link cohortMembersQuery} (installed as the compiler's resolver when this module loads)
 *   turns a reference into the persons whose membership the insight filters compute — the very same expansion
 *   (`propertyFilterToExpr` of a cohort filter, on the persons table): dynamic cohorts by their person-property
 *   and behavioral criteria, static ones by their person list, nested references recursively.
 *
 * A reference the scope does not hold (another project's cohort, a missing one) is PostHog's 400: "Could not find
 * cohort with ID 5" / "Could not find a cohort with the name 'x'"; a name two cohorts share is "Found multiple
 * cohorts with name 'x'".
 */
import * as ast from '../productql/ast';
import type { NodeBase, Query } from '../productql/ast';
import { cohortRefs, setCohortMembers, unknownCohortMessage, type CohortRef } from '../productql/cohorts';
import { productqlError } from '../productql/errors';
import { parseExpr, parseSelect } from '../productql/parser';
import { propertyFilterToExpr } from '../queries/insights/property-filters';
import type { AnyPropertyFilter } from '../queries/insights/schema';
import type { CohortLoader } from './cohort-loader';
import { cohortInScope, cohortsInScope, type ResolvedCohort } from './cohort-scope';

/** What {@link productqlCohortIds} needs of the loader: ids by name (optional: without it, names are unknown). */
export type CohortNameSource = Pick<CohortLoader, 'load'> & {
  idsByName?(projectId: number, names: string[]): Promise<Map<string, number[]>>;
};

/** Text that may hold an IN COHORT operator (the parse is skipped otherwise). */
const MAY_NAME_COHORT = /\bin\s+cohort\b/i;

/** The ProductQL texts of a node: a HogQL query's `query` (a SELECT), and other strings that may be expressions. */
function texts(node: unknown): { select: string[]; exprs: string[] } {
  const select: string[] = [];
  const exprs: string[] = [];
  const walk = (x: unknown, depth: number, key: string | null, parent: Record<string, unknown> | null) => {
    if (depth > 64) return;
    if (typeof x === 'string') {
      if (!MAY_NAME_COHORT.test(x)) return;
      const isQuery = key === 'query' && (parent?.kind === 'HogQLQuery' || parent?.kind === 'ProductQLQuery');
      (isQuery ? select : exprs).push(x);
      return;
    }
    if (x === null || typeof x !== 'object') return;
    if (Array.isArray(x)) return x.forEach((v) => walk(v, depth + 1, null, null));
    const o = x as Record<string, unknown>;
    for (const [k, v] of Object.entries(o)) walk(v, depth + 1, k, o);
  };
  walk(node, 0, null, null);
  return { select, exprs };
}

/**
 * The ids of the cohorts the node's ProductQL names through IN COHORT, by id or (with a loader that has
 * `idsByName`) by name, for the runner wrapper to load into the scope. Text that does not parse names nothing here
 * (the runner reports its syntax error). Ids are not checked: a missing one is the compiler's 400.
 */
export async function productqlCohortIds(node: unknown, projectId: number, loader: CohortNameSource): Promise<number[]> {
  const { select, exprs } = texts(node);
  if (!select.length && !exprs.length) return [];
  const refs: CohortRef[] = [];
  const parsed = await Promise.all([
    ...select.map((t) => parseSelect(t).catch(() => null)),
    ...exprs.map((t) => parseExpr(t).catch(() => null)),
  ]);
  for (const p of parsed) if (p) refs.push(...cohortRefs(p));
  const ids = refs.filter((r): r is number => typeof r === 'number');
  const names = [...new Set(refs.filter((r): r is string => typeof r === 'string'))];
  if (names.length && loader.idsByName) for (const found of (await loader.idsByName(projectId, names)).values()) ids.push(...found);
  return [...new Set(ids)];
}

function resolve(ref: CohortRef, node: NodeBase): ResolvedCohort {
  if (typeof ref === 'number') {
    const c = cohortInScope(ref);
    if (!c) throw productqlError(unknownCohortMessage(ref), node);
    return c;
  }
  // the scope holds the cohorts loaded for this query (named ones by productqlCohortIds), all of its project
  const matches = [...cohortsInScope()].filter((c) => c.name === ref);
  if (matches.length > 1) throw productqlError(`Found multiple cohorts with name '${ref}'`, node);
  if (!matches.length) throw productqlError(unknownCohortMessage(ref), node);
  return matches[0];
}

/** `SELECT id FROM persons WHERE <membership>` for a cohort of the running query's scope. */
export function cohortMembersQuery(ref: CohortRef, node: NodeBase): Query {
  const cohort = resolve(ref, node);
  const filter = { type: 'cohort', key: 'id', value: cohort.id, operator: 'in' } as AnyPropertyFilter;
  return ast.select({ select: [ast.field('id')], from: 'persons', where: propertyFilterToExpr(filter, { personTable: true }) });
}

setCohortMembers(cohortMembersQuery);
