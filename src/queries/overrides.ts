/**
 * The query envelope's `filters_override` and `variables_override` (reference §9.1), applied to the raw node before
 * it is validated, as PostHog's QueryRunner.apply_dashboard_filters / apply_variable_overrides do:
 * - `date_from` / `date_to` (either given) replace the node's date range, both of them (a missing one becomes
 *   null), and `explicitDate` when given;
 * - `properties` are ANDed with the node's own (`{type: AND, values: [{AND: own}, {AND: override}]}`);
 * - `breakdown_filter`, `interval` and `filterTestAccounts` replace the node's where the kind has them;
 * - on a HogQLQuery the date range and properties go into its `filters` (what `{filters}` expands to);
 * - `variables_override[variableId]` updates the node's variable of that id (variables the query does not declare
 *   are left out, as PostHog does).
 */
import { z } from 'zod';
import { parseInput } from '../validation';

const dashboardFilterSchema = z
  .object({
    date_from: z.string().nullish(),
    date_to: z.string().nullish(),
    explicitDate: z.boolean().nullish(),
    properties: z.array(z.record(z.string(), z.unknown())).nullish(),
    breakdown_filter: z.record(z.string(), z.unknown()).nullish(),
    interval: z.string().nullish(),
    filterTestAccounts: z.boolean().nullish(),
  })
  .strict();

const variablesOverrideSchema = z.record(z.string(), z.record(z.string(), z.unknown()));

/** Kinds with a `breakdownFilter`, and with an `interval`. */
const BREAKDOWN_KINDS = new Set(['TrendsQuery', 'FunnelsQuery', 'RetentionQuery']);
const INTERVAL_KINDS = new Set(['TrendsQuery', 'FunnelsQuery', 'StickinessQuery', 'LifecycleQuery']);
const HOGQL_KINDS = new Set(['HogQLQuery', 'ProductQLQuery']);

type Node = Record<string, unknown> & { kind: string };

/** Properties ANDed: `own` (a list or a group) and `extra` (a list). */
function andProperties(own: unknown, extra: Record<string, unknown>[]): unknown {
  if (own === null || own === undefined || (Array.isArray(own) && own.length === 0)) return extra;
  const ownGroup = Array.isArray(own) ? { type: 'AND', values: own } : own;
  return { type: 'AND', values: [ownGroup, { type: 'AND', values: extra }] };
}

/** The node with the overrides applied (a copy; the input is not changed). Bad override shapes are 400s. */
export function applyQueryOverrides(rawNode: Node, filtersOverride: unknown, variablesOverride: unknown): Node {
  let node: Node = rawNode;
  // An EventsQuery has no dateRange: PostHog's dashboard filters apply to nodes with both properties and a
  // dateRange, so it runs as given (its `after`/`before` are its own).
  if (filtersOverride !== undefined && filtersOverride !== null && rawNode.kind !== 'EventsQuery') {
    // (wrapped so that an error's attr names the envelope field: filters_override__date_from, ...)
    const f = parseInput(z.object({ filters_override: dashboardFilterSchema }), { filters_override: filtersOverride }).filters_override;
    node = { ...node };
    const hogql = HOGQL_KINDS.has(node.kind);
    const target: Record<string, unknown> = hogql ? { ...((node.filters as Record<string, unknown> | null | undefined) ?? {}) } : node;
    if (f.date_from || f.date_to) {
      const prev = (target.dateRange as Record<string, unknown> | null | undefined) ?? {};
      target.dateRange = {
        ...prev,
        date_from: f.date_from ?? null,
        date_to: f.date_to ?? null,
        ...(f.explicitDate !== undefined && f.explicitDate !== null ? { explicitDate: f.explicitDate } : {}),
      };
    }
    if (f.properties?.length) {
      // A HogQLQuery's filters.properties is a list: the override's filters are added to it.
      target.properties = hogql ? [...((target.properties as unknown[] | null | undefined) ?? []), ...f.properties] : andProperties(target.properties, f.properties);
    }
    if (hogql) {
      if (f.filterTestAccounts !== undefined && f.filterTestAccounts !== null) target.filterTestAccounts = f.filterTestAccounts;
      if (Object.keys(target).length) node.filters = target;
    } else {
      if (f.breakdown_filter && BREAKDOWN_KINDS.has(node.kind)) node.breakdownFilter = f.breakdown_filter;
      if (f.interval && INTERVAL_KINDS.has(node.kind)) node.interval = f.interval;
      if (f.filterTestAccounts !== undefined && f.filterTestAccounts !== null) node.filterTestAccounts = f.filterTestAccounts;
    }
  }
  if (variablesOverride !== undefined && variablesOverride !== null) {
    const v = parseInput(z.object({ variables_override: variablesOverrideSchema }), { variables_override: variablesOverride }).variables_override;
    const vars = node.variables as Record<string, unknown> | null | undefined;
    if (vars && typeof vars === 'object' && !Array.isArray(vars)) {
      const next: Record<string, unknown> = { ...vars };
      for (const [id, override] of Object.entries(v)) {
        const cur = next[id];
        if (cur !== undefined) next[id] = cur && typeof cur === 'object' && !Array.isArray(cur) ? { ...cur, ...override } : override;
      }
      node = { ...node, variables: next };
    }
  }
  return node;
}

/**
 * A saved query as PostHog's insight serializer shows it under `variables_override` (apply_dashboard_variables_to_dict):
 * through wrapper nodes (`source`), each variable of the HogQLQuery the override names becomes `{variableId,
 * code_name, value: <the override's value>}`; variables the query does not declare are left out. The same object when
 * nothing changes.
 */
export function queryWithVariablesOverride(query: Record<string, unknown>, variablesOverride: unknown): Record<string, unknown> {
  if (variablesOverride === undefined || variablesOverride === null) return query;
  const v = parseInput(z.object({ variables_override: variablesOverrideSchema }), { variables_override: variablesOverride }).variables_override;
  const source = query.source;
  if (source && typeof source === 'object' && !Array.isArray(source)) {
    const inner = queryWithVariablesOverride(source as Record<string, unknown>, v);
    return inner === source ? query : { ...query, source: inner };
  }
  const vars = query.variables;
  if (query.kind !== 'HogQLQuery' || !vars || typeof vars !== 'object' || Array.isArray(vars)) return query;
  const next: Record<string, unknown> = { ...(vars as Record<string, unknown>) };
  let changed = false;
  for (const [id, override] of Object.entries(v)) {
    const cur = next[id] as { code_name?: unknown } | undefined;
    if (!cur || typeof cur !== 'object') continue;
    next[id] = { variableId: id, code_name: cur.code_name, value: override.value };
    changed = true;
  }
  return changed ? { ...query, variables: next } : query;
}
