/**
 * Endpoint variables: declarations, the placeholders a ProductQL query uses, PostHog's "magic" variables of
 * insight endpoints, and turning the values of a run into bound values (never spliced text).
 */
import { z } from 'zod';
import { validationError } from '../errors';
import type { Query } from '../productql';
import type { EndpointVariable } from '../store/entities/endpoint-version';

export const VARIABLE_TYPES = ['String', 'Number', 'Boolean', 'List', 'Date'] as const;
export type VariableType = (typeof VARIABLE_TYPES)[number];

/**
 * The `code_name` PostHog's InsightVariableSerializer derives from a variable's name: its letters, digits and spaces
 * (Python's `isalnum`, so any script), spaces turned into `_`, lowercased ("Test 1" → `test_1`, "Max. price" →
 * `max_price`).
 */
export function codeNameOf(name: string): string {
  return [...name]
    .filter((c) => c === ' ' || /[\p{L}\p{N}]/u.test(c))
    .join('')
    .replace(/ /g, '_')
    .toLowerCase();
}

/** A saved variable as variable definitions read it (src/insights/insight-variable-service.ts). */
export interface SavedVariable {
  id: string;
  code_name: string | null;
  type: string;
  default_value: unknown;
}

/** Where runners and endpoints read a project's saved variables from (see RunnerContext.variables). */
export interface SavedVariableSource {
  /** The saved variables of `projectId` among `ids` (other projects' are absent). */
  savedVariables(projectId: number, ids: string[]): Promise<SavedVariable[]>;
  /** The saved variables of `projectId` whose code_name is one of `codeNames`. */
  savedVariablesByCodeName(projectId: number, codeNames: string[]): Promise<SavedVariable[]>;
}

/** A saved variable's type as a declaration type (a type Quarry does not know reads as String, as PostHog's OpenAPI). */
export const declarationType = (type: string): VariableType => ((VARIABLE_TYPES as readonly string[]).includes(type) ? (type as VariableType) : 'String');

/** A variable definition as PostHog's HogQLQuery carries it (`variables: {<uuid>: {variableId, code_name, value, isNull?}}`). */
interface VariableDefinition {
  variableId?: string;
  code_name: string;
  value?: unknown;
  isNull?: boolean;
}

const isDefinition = (v: unknown): v is VariableDefinition =>
  !!v && typeof v === 'object' && !Array.isArray(v) && typeof (v as { code_name?: unknown }).code_name === 'string';

/** A saved variable's id (src/insights/insight-variable-service.ts: a UUID). */
const SAVED_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The saved variables the definitions name: their `variableId`s that are saved-variable ids (UUIDs). Any other id
 * (or none) is Quarry's inline definition, bound as given — the REST readers' own queries name their values so; in
 * PostHog every definition names a saved variable.
 */
export function savedVariableRefs(defs: Record<string, unknown> | null | undefined): string[] {
  const out: string[] = [];
  for (const v of Object.values(defs ?? {})) if (isDefinition(v) && typeof v.variableId === 'string' && SAVED_ID.test(v.variableId)) out.push(v.variableId);
  return out;
}

/**
 * PostHog's replace_variables: the code names of definitions naming a saved variable (see {@link savedVariableRefs})
 * that no saved variable among them answers — "Variable <code_name> does not exist" once the query uses them.
 * `saved`: the project's saved variables among the definitions' ids. A code name an inline definition also gives is
 * bound by that one.
 */
export function unknownSavedVariables(defs: Record<string, unknown>, saved: SavedVariable[]): Set<string> {
  const known = new Set(saved.map((s) => s.code_name));
  const inline = new Set<string>();
  const unknown = new Set<string>();
  for (const v of Object.values(defs)) {
    if (!isDefinition(v)) continue;
    if (typeof v.variableId === 'string' && SAVED_ID.test(v.variableId)) {
      if (!known.has(v.code_name)) unknown.add(v.code_name);
    } else inline.add(v.code_name);
  }
  for (const name of inline) unknown.delete(name);
  return unknown;
}

/**
 * PostHog's replace_variables: a definition without a value takes the `default_value` of the saved variable with its
 * code name among the saved variables the definitions name (`saved`: those of the project). `isNull: true` stays NULL;
 * a definition no saved variable answers is left as it is (see {@link unknownSavedVariables}).
 */
export function withSavedDefaults<T extends Record<string, unknown>>(defs: T, saved: SavedVariable[]): T {
  if (!saved.length) return defs;
  const byCode = new Map<string, SavedVariable>();
  for (const s of saved) if (s.code_name !== null && !byCode.has(s.code_name)) byCode.set(s.code_name, s);
  let out: Record<string, unknown> | null = null;
  for (const [key, v] of Object.entries(defs)) {
    if (!isDefinition(v) || v.isNull === true || (v.value !== undefined && v.value !== null)) continue;
    const hit = byCode.get(v.code_name);
    if (!hit || hit.default_value === undefined) continue;
    out ??= { ...defs };
    out[key] = { ...v, value: hit.default_value };
  }
  return (out ?? defs) as T;
}

/** `{variables.<name>}`: a ProductQL identifier. */
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** A breakdown property may be named anything (`$browser`, `plan tier`), but not absurdly. */
const MAGIC_NAME = /^[^\u0000-\u001f]{1,400}$/;

const DATE_RE = /^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

export const variableDeclarationSchema = z
  .object({
    name: z.string().regex(MAGIC_NAME, 'Not a valid variable name.'),
    type: z.enum(VARIABLE_TYPES, { message: `type must be one of ${VARIABLE_TYPES.join(', ')}.` }),
    default: z.unknown().optional(),
    required: z.boolean().optional(),
    description: z.string().max(1000).optional(),
  })
  .strict();

export const variableDeclarationsSchema = z.array(variableDeclarationSchema).max(100);

/** A required variable must be sent (or fixed by the key); by default, one without a default is required (as PostHog's OpenAPI says). */
export const isRequired = (v: EndpointVariable): boolean => v.required ?? v.default === undefined;

/**
 * The value of a variable as it will be bound, or a message saying why it does not fit the type. `null` is SQL
 * NULL and fits every type.
 */
export function checkValue(type: VariableType, value: unknown): { ok: true; value: unknown } | { ok: false; expected: string } {
  if (value === null) return { ok: true, value: null };
  switch (type) {
    case 'String':
      return typeof value === 'string' ? { ok: true, value } : { ok: false, expected: 'a string' };
    case 'Number':
      return typeof value === 'number' && Number.isFinite(value) ? { ok: true, value } : { ok: false, expected: 'a number' };
    case 'Boolean':
      return typeof value === 'boolean' ? { ok: true, value } : { ok: false, expected: 'a boolean' };
    case 'Date':
      return typeof value === 'string' && DATE_RE.test(value) && !Number.isNaN(new Date(value.slice(0, 10)).getTime())
        ? { ok: true, value }
        : { ok: false, expected: 'a date (YYYY-MM-DD or an ISO 8601 datetime)' };
    case 'List':
      return Array.isArray(value) &&
        value.length <= 1000 &&
        value.every((x) => typeof x === 'string' || typeof x === 'boolean' || (typeof x === 'number' && Number.isFinite(x)))
        ? { ok: true, value }
        : { ok: false, expected: 'a list of strings, numbers or booleans' };
  }
}

/** Validates declarations (unique names, defaults of the declared type). */
export function checkDeclarations(vars: EndpointVariable[], allowedNames?: (name: string) => boolean): void {
  const seen = new Set<string>();
  for (const v of vars) {
    if (seen.has(v.name)) throw validationError(`Variable '${v.name}' is declared twice.`, 'variables');
    seen.add(v.name);
    if (allowedNames ? !allowedNames(v.name) : !VARIABLE_NAME.test(v.name)) {
      throw validationError(`Not a valid variable name: '${v.name}'.`, 'variables');
    }
    if (v.default !== undefined) {
      const c = checkValue(v.type, v.default);
      if (!c.ok) throw validationError(`The default of variable '${v.name}' must be ${c.expected}.`, 'variables');
    }
  }
}

// ------------------------------------------------------------------------------------------------ placeholders

type Node = Record<string, unknown>;

function walk(value: unknown, visit: (n: Node, parent: Node | null, key: string) => void, parent: Node | null = null, key = ''): void {
  if (Array.isArray(value)) {
    for (const v of value) walk(v, visit, parent, key);
    return;
  }
  if (!value || typeof value !== 'object') return;
  const n = value as Node;
  if (typeof n.node === 'string') visit(n, parent, key);
  for (const [k, v] of Object.entries(n)) if (v && typeof v === 'object') walk(v, visit, typeof n.node === 'string' ? n : parent, k);
}

const placeholderChain = (n: Node): string[] | null => {
  const e = n.expr as Node | undefined;
  if (!e || e.node !== 'Field' || !Array.isArray(e.chain)) return null;
  return (e.chain as unknown[]).map(String);
};

/**
 * The `{variables.x}` names a query uses. Any other placeholder (`{x}`, `{filters}`) cannot be bound by an
 * endpoint run, so it is a 400 naming it.
 */
export function placeholderNames(query: Query): Set<string> {
  const names = new Set<string>();
  walk(query, (n) => {
    if (n.node !== 'Placeholder') return;
    const chain = placeholderChain(n);
    if (chain && chain[0] === 'variables' && chain.length === 2) names.add(chain[1]);
    else
      throw validationError(
        `Endpoint queries may only use {variables.<name>} placeholders, not {${chain?.join('.') ?? '?'}}.`,
        'query',
      );
  });
  return names;
}

/** Placeholder and declarations must match one to one (PostHog's "Query references undefined variable(s)"). */
export function checkPlaceholders(used: Set<string>, declared: EndpointVariable[]): void {
  const names = new Set(declared.map((d) => d.name));
  const undeclared = [...used].filter((u) => !names.has(u));
  if (undeclared.length) {
    throw validationError(
      `Query references undefined variable(s): ${undeclared.join(', ')}. See https://posthog.com/docs/endpoints/variables for detail.`,
      'variables',
    );
  }
  const unused = declared.filter((d) => !used.has(d.name)).map((d) => d.name);
  if (unused.length) {
    throw validationError(`Variable(s) declared but not used in the query: ${unused.join(', ')}.`, 'variables');
  }
}

// ------------------------------------------------------------------------------------------------ run values

/**
 * Checks a run's variables against the declarations and computes the values to bind: fixed values (from the key)
 * override the caller's; then defaults; a missing required one is a 400.
 */
export function resolveValues(
  declared: EndpointVariable[],
  given: Record<string, unknown>,
  fixed: Record<string, unknown>,
): Record<string, unknown> {
  const byName = new Map(declared.map((d) => [d.name, d]));
  const unknown = Object.keys(given).filter((k) => !byName.has(k));
  if (unknown.length) throw validationError(`Unknown variable(s): ${unknown.join(', ')}`, 'variables');
  const merged: Record<string, unknown> = { ...given, ...fixed };
  const missing = declared.filter((d) => !(d.name in merged) && d.default === undefined && isRequired(d)).map((d) => d.name);
  if (missing.length) throw validationError(`Required variable(s) '${missing.join("', '")}' not provided`, 'variables');
  const out: Record<string, unknown> = {};
  for (const d of declared) {
    const raw = d.name in merged ? merged[d.name] : (d.default ?? null);
    const c = checkValue(d.type, raw);
    if (!c.ok) throw validationError(`Variable '${d.name}' must be ${c.expected}.`, `variables__${d.name}`);
    out[d.name] = c.value;
  }
  return out;
}

/** A placeholder value of the declared type, used to compute result columns when a version is created. */
export function sampleValue(v: EndpointVariable): unknown {
  if (v.default !== undefined) return v.default;
  switch (v.type) {
    case 'String':
      return '';
    case 'Number':
      return 0;
    case 'Boolean':
      return false;
    case 'Date':
      return '1970-01-01';
    case 'List':
      return [];
  }
}

// ------------------------------------------------------------------------------------------------ insight variables

/** Breakdown types whose property can be turned into a bound, exact-match property filter. */
const FILTERABLE_BREAKDOWNS = new Set(['event', 'person', 'session', 'group', 'event_metadata']);

export interface MagicVariables {
  /** `date_from` and `date_to`: the node has a `dateRange`. */
  dates: boolean;
  /** The single breakdown property, if filterable. */
  breakdown: { property: string; type: string; groupTypeIndex?: number | null } | null;
}

/** The magic variables an insight node offers (PostHog: dates when not materialized; the single breakdown property). */
export function magicVariables(node: Node, accepts: (candidate: Node) => boolean): MagicVariables {
  const dates = accepts({ ...node, dateRange: { ...((node.dateRange as Node | null) ?? {}), date_from: '-7d', date_to: null } });
  let breakdown: MagicVariables['breakdown'] = null;
  const bf = node.breakdownFilter as Node | null | undefined;
  if (bf) {
    let prop: unknown = bf.breakdown;
    let type = (bf.breakdown_type as string | null | undefined) ?? 'event';
    let gti = bf.breakdown_group_type_index as number | null | undefined;
    if (Array.isArray(prop)) prop = prop.length === 1 ? prop[0] : undefined;
    if ((prop === undefined || prop === null) && Array.isArray(bf.breakdowns) && bf.breakdowns.length === 1) {
      const b = bf.breakdowns[0] as Node;
      prop = b.property;
      type = (b.type as string | null | undefined) ?? 'event';
      gti = b.group_type_index as number | null | undefined;
    }
    if (typeof prop === 'string' && prop && FILTERABLE_BREAKDOWNS.has(type) && !['date_from', 'date_to'].includes(prop)) {
      const candidate = withPropertyFilter(node, { type, key: prop, operator: 'exact', value: 'x', ...(type === 'group' ? { group_type_index: gti ?? 0 } : {}) });
      if (accepts(candidate)) breakdown = { property: prop, type, groupTypeIndex: gti };
    }
  }
  return { dates, breakdown };
}

/** The declarations of the magic variables (all optional, as on a non-materialized PostHog endpoint). */
export function magicDeclarations(m: MagicVariables): EndpointVariable[] {
  const out: EndpointVariable[] = [];
  if (m.breakdown) out.push({ name: m.breakdown.property, type: 'String', required: false, description: `Filters on the breakdown value of ${m.breakdown.property}` });
  if (m.dates) {
    out.push({ name: 'date_from', type: 'String', required: false, description: 'Start of the date range (e.g. 2025-01-01 or -7d)' });
    out.push({ name: 'date_to', type: 'String', required: false, description: 'End of the date range' });
  }
  return out;
}

function withPropertyFilter(node: Node, filter: Node): Node {
  const props = node.properties as unknown;
  let next: unknown;
  if (Array.isArray(props)) next = [...props, filter];
  else if (props && typeof props === 'object') next = { type: 'AND', values: [props, { type: 'AND', values: [filter] }] };
  else next = [filter];
  return { ...node, properties: next };
}

/**
 * Applies run values of magic variables to an insight node: a breakdown value becomes an exact-match filter
 * (`""` or null → is_not_set), dates become the date range. Values stay data in the node, never query text.
 */
export function applyMagic(node: Node, m: MagicVariables, values: Record<string, unknown>): Node {
  let out = { ...node };
  if (m.dates && (values.date_from !== undefined || values.date_to !== undefined)) {
    const dr = { ...((out.dateRange as Node | null) ?? {}) };
    if (values.date_from !== undefined && values.date_from !== null) dr.date_from = values.date_from;
    if (values.date_to !== undefined && values.date_to !== null) dr.date_to = values.date_to;
    out.dateRange = dr;
  }
  if (m.breakdown && values[m.breakdown.property] !== undefined) {
    const v = values[m.breakdown.property];
    const base: Node = { type: m.breakdown.type, key: m.breakdown.property };
    if (m.breakdown.type === 'group') base.group_type_index = m.breakdown.groupTypeIndex ?? 0;
    out = withPropertyFilter(out, v === '' || v === null ? { ...base, operator: 'is_not_set' } : { ...base, operator: 'exact', value: v });
  }
  return out;
}
