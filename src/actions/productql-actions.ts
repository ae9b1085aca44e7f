/**
 * ProductQL's `matchesAction(<id or name>)` (HogQL's, posthog/hogql/functions/action.py `matches_action`): the saved
 * action's condition — action_to_expr, the OR of its steps (matching.ts) — on the events table of the SELECT the call
 * is in (its alias when it has one). A HogQLQuery's text is rewritten before it compiles, the actions read from the
 * query's project (RunnerContext.actions):
 *
 * - a number is an action id: unknown → PostHog's 400 "Could not find cohort with ID <id>" (its message, copied from
 *   the cohort function, says cohort);
 * - a string is an action name: unknown → "Could not find an action with the name '<name>'"; two live actions never
 *   share a name here (the action service refuses it), where PostHog says "Found multiple actions with name '<name>'";
 * - any other argument → "action() takes exactly one string or integer argument"; one that is no constant →
 *   "action() takes only constant arguments".
 */
import type { Query } from '../productql/ast';
import { productqlError } from '../productql/errors';
import { parseSelect } from '../productql/parser';
import { actionToExpr, type ActionDef, type ActionSource } from './matching';

/** Text that may call matchesAction (the parse is skipped otherwise). */
export const MAY_MATCH_ACTION = /\bmatchesAction\s*\(/;

/**
 * The action ids and names `matchesAction(…)` calls name in any ProductQL text of a node, read from the text itself
 * (for loaders that run before the query parses, such as the cohorts of the actions' steps); a superset is harmless.
 */
export function matchesActionRefs(node: unknown): { ids: number[]; names: string[] } {
  const ids = new Set<number>();
  const names = new Set<string>();
  const walk = (x: unknown, depth: number) => {
    if (depth > 64) return;
    if (typeof x === 'string') {
      if (!MAY_MATCH_ACTION.test(x)) return;
      for (const m of x.matchAll(/\bmatchesAction\s*\(\s*(?:(\d+)|'((?:[^'\\]|\\.)*)')\s*\)/g)) {
        if (m[1] !== undefined) ids.add(Number(m[1]));
        else names.add(m[2].replace(/\\(.)/g, '$1'));
      }
      return;
    }
    if (x && typeof x === 'object') for (const v of Object.values(x)) walk(v, depth + 1);
  };
  walk(node, 0);
  return { ids: [...ids].filter(Number.isSafeInteger), names: [...names] };
}

type Node = { node: string } & Record<string, unknown>;
const isNode = (v: unknown): v is Node => !!v && typeof v === 'object' && typeof (v as { node?: unknown }).node === 'string';

/** The alias of the events table a SELECT reads (FROM/JOIN order); null when it reads it without one, or reads none. */
function eventsAliasOf(q: Node | undefined): string | null {
  for (let j = q?.select_from as Node | null | undefined; j; j = j.next_join as Node | null | undefined) {
    const t = j.table as { node?: string; chain?: unknown[] } | undefined;
    if (t?.node === 'Field' && t.chain?.length === 1 && t.chain[0] === 'events') return typeof j.alias === 'string' && j.alias ? j.alias : null;
  }
  return null;
}

/** The action reference of a `matchesAction(...)` call: a number (id) or a string (name). */
function refOf(call: Node): number | string {
  const args = (call.args as Node[] | undefined) ?? [];
  if (args.length !== 1) throw productqlError(`Function 'matchesAction' expects 1 argument, found ${args.length}`, call as never);
  const arg = args[0];
  if (arg.node !== 'Constant') throw productqlError('action() takes only constant arguments', arg as never);
  const v = arg.value;
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'string') return arg.value_type === 'number' ? Number(v) : v;
  throw productqlError('action() takes exactly one string or integer argument', arg as never);
}

/** Every matchesAction call of the query, with the events alias of its SELECT. */
function calls(query: unknown): { call: Node; alias: string | null }[] {
  const out: { call: Node; alias: string | null }[] = [];
  const walk = (v: unknown, select: Node | undefined, depth: number) => {
    if (depth > 256) return;
    if (!v || typeof v !== 'object') return;
    if (Array.isArray(v)) return v.forEach((x) => walk(x, select, depth + 1));
    const inner = isNode(v) && v.node === 'SelectQuery' ? v : select;
    if (isNode(v) && v.node === 'Call' && v.name === 'matchesAction') out.push({ call: v, alias: eventsAliasOf(inner) });
    for (const x of Object.values(v)) walk(x, inner, depth + 1);
  };
  walk(query, undefined, 0);
  return out;
}

/**
 * `query` (text or AST) with each `matchesAction(x)` replaced by the condition of the action `x` names in the project;
 * the query itself when it calls none.
 */
export async function withActions(query: string | Query, projectId: number, source: ActionSource | undefined): Promise<string | Query> {
  if (typeof query === 'string' && !MAY_MATCH_ACTION.test(query)) return query;
  const tree = typeof query === 'string' ? await parseSelect(query) : query;
  const found = calls(tree);
  if (!found.length) return query;
  const refs = found.map((f) => refOf(f.call));
  const ids = [...new Set(refs.filter((r): r is number => typeof r === 'number'))];
  const names = [...new Set(refs.filter((r): r is string => typeof r === 'string'))];
  const byId = ids.length && source ? await source.liveActions(projectId, ids) : new Map<number, ActionDef>();
  const byName = names.length && source?.liveActionsByName ? await source.liveActionsByName(projectId, names) : [];
  const conditions = new Map<Node, unknown>();
  found.forEach(({ call, alias }, i) => {
    const ref = refs[i];
    const matches = typeof ref === 'number' ? [byId.get(ref)].filter((a): a is ActionDef => !!a) : byName.filter((a) => a.name === ref);
    const arg = (call.args as Node[])[0];
    if (matches.length > 1) throw productqlError(`Found multiple actions with name '${String(ref)}'`, arg as never);
    if (!matches.length)
      throw productqlError(typeof ref === 'number' ? `Could not find cohort with ID ${ref}` : `Could not find an action with the name '${ref}'`, arg as never);
    conditions.set(call, actionToExpr(matches[0], { table: alias ?? undefined, attr: 'query' }));
  });
  const rewrite = (v: unknown): unknown => {
    if (!v || typeof v !== 'object') return v;
    if (Array.isArray(v)) return v.map(rewrite);
    if (conditions.has(v as Node)) return conditions.get(v as Node);
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = rewrite(x);
    return out;
  };
  return rewrite(tree) as Query;
}
