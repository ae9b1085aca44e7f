/**
 * `x IN COHORT <id>` / `x IN COHORT 'name'` / `x NOT IN COHORT ...` (HogQL's cohort operators, posthog/hogql/
 * functions/cohort.py): `x IN (<the cohort's person ids>)`. The compiler knows nothing of cohorts; it asks a
 * {@link CohortMembers} function for the members query of a cohort reference. The cohorts layer installs one that
 * reads the running query's cohort scope (src/cohorts/productql-cohorts.ts), so a query only ever sees its own
 * project's cohorts; without one every reference is unknown (PostHog's "Could not find cohort" 400).
 */
import type { CompareOperation, Expr, NodeBase, Query } from './ast';
import { productqlError } from './errors';

/** A cohort as a ProductQL query names it: its id, or its name. */
export type CohortRef = number | string;

/**
 * The members of a referenced cohort as a one-column SELECT of person ids (`SELECT id FROM persons WHERE ...`): it is
 * compiled like user text, so the persons table in it carries the project guard. Throws a 400 (a UserError) for a
 * cohort the project does not have.
 */
export type CohortMembers = (ref: CohortRef, node: NodeBase, projectId: number) => Query;

let installed: CohortMembers | undefined;

/** Installs the cohort resolver the compiler uses when CompileOptions.cohortMembers is unset. */
export function setCohortMembers(fn: CohortMembers | undefined): void {
  installed = fn;
}

/** The installed cohort resolver, if any. */
export const installedCohortMembers = (): CohortMembers | undefined => installed;

/** PostHog's messages for a cohort reference that names no cohort of the project. */
export const unknownCohortMessage = (ref: CohortRef): string =>
  typeof ref === 'number' ? `Could not find cohort with ID ${ref}` : `Could not find a cohort with the name '${ref}'`;

/** The cohort a `IN COHORT` right-hand side names, or a 400 with PostHog's text. */
export function cohortRefOf(right: Expr | undefined, node: NodeBase): CohortRef {
  if (!right || right.node !== 'Constant') throw productqlError('cohort() takes only constant arguments', right ?? node);
  const v = right.value;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  // an integer too large for a double arrives as its digits: no cohort has such an id
  if (right.value_type === 'number') throw productqlError(`Could not find cohort with ID ${String(v)}`, right);
  if (typeof v === 'string' && v.length > 0) return v;
  throw productqlError('cohort() takes exactly one string or integer argument', right);
}

/** `x [NOT] IN COHORT ref` as `x [NOT] IN (<members>)`. */
export function inCohortAsIn(e: CompareOperation, members: CohortMembers | undefined, projectId: number): CompareOperation {
  const ref = cohortRefOf(e.right, e);
  if (!members) throw productqlError(unknownCohortMessage(ref), e.right);
  const sub = members(ref, e.right, projectId);
  return { node: 'CompareOperation', op: e.op === 'not in cohort' ? 'not in' : 'in', left: e.left, right: sub, start: e.start, end: e.end };
}

/** Every cohort a parsed query or expression names through IN COHORT (constant references only), in order. */
export function cohortRefs(root: unknown): CohortRef[] {
  const out: CohortRef[] = [];
  const seen = new Set<string>();
  const walk = (x: unknown, depth: number): void => {
    if (depth > 1000 || x === null || typeof x !== 'object') return;
    if (Array.isArray(x)) {
      for (const v of x) walk(v, depth + 1);
      return;
    }
    const o = x as Record<string, unknown>;
    if (o.node === 'CompareOperation' && (o.op === 'in cohort' || o.op === 'not in cohort')) {
      const r = o.right as { node?: string; value?: unknown } | undefined;
      if (r?.node === 'Constant' && ((typeof r.value === 'number' && Number.isSafeInteger(r.value)) || (typeof r.value === 'string' && r.value))) {
        const key = `${typeof r.value}:${String(r.value)}`;
        if (!seen.has(key)) {
          seen.add(key);
          out.push(r.value as CohortRef);
        }
      }
    }
    for (const v of Object.values(o)) walk(v, depth + 1);
  };
  walk(root, 0);
  return out;
}
