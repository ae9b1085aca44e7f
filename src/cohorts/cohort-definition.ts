/**
 * A cohort's definition as a property group Quarry can evaluate: person-property conditions and references to
 * other cohorts, nested in AND/OR groups. PostHog's two forms are read:
 *
 * - `filters: {properties: {type, values: [...]}}` (current; a plain list of criteria is their AND): person filters
 *   (`negation: true` → the negated condition), cohort filters (`negation: true` → `not_in`; PostHog's
 *   `precalculated-cohort` and `static-cohort` types are cohort filters too), behavioral criteria,
 *   nested groups;
 * - legacy `groups: [{properties: [...]}, ...]`: groups are ORed, a group's properties ANDed; properties without
 *   a type, or typed `event`, are person properties (PostHog's "legacy cohorts have implicit type person").
 *
 * Behavioral criteria (`behavioral` filters, legacy `action_id`/`event_id` groups) are validated and kept in the group
 * as {@link BehavioralCriterion}s: the filter builder turns them into queries over the project's events
 * (src/cohorts/behavioral.ts).
 */
import { validationError } from '../errors';
import { personPropertyFilterSchema, type AnyPropertyFilter, type PropertyGroupFilter } from '../queries/insights/schema';
import { checkNegations, legacyBehavioral, parseBehavioral } from './behavioral';

/** Largest nesting of groups in a cohort definition. */
const MAX_DEPTH = 10;

/** A cohort id from a filter value (number or numeric text); null when it is not one. */
export function cohortIdOf(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

const isObject = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x);

/** Operators whose negation is another operator, NULLs included (`exact` is false on NULL, `is_not` true). */
const OPPOSITE: Record<string, string> = {
  exact: 'is_not',
  is_not: 'exact',
  icontains: 'not_icontains',
  not_icontains: 'icontains',
  regex: 'not_regex',
  not_regex: 'regex',
  is_set: 'is_not_set',
  is_not_set: 'is_set',
  in: 'not_in',
  not_in: 'in',
};
/** Operators whose negation is others (a NULL, false for each of these, makes their negation true). */
const COMPLEMENT: Record<string, string[]> = {
  gt: ['lte'],
  gte: ['lt'],
  min: ['lt'],
  lt: ['gte'],
  lte: ['gt'],
  max: ['gt'],
  between: ['not_between'],
  not_between: ['between'],
  is_date_before: ['is_date_after', 'is_date_exact'],
  is_date_after: ['is_date_before', 'is_date_exact'],
  is_date_exact: ['is_date_before', 'is_date_after'],
};

/**
 * A person criterion with `negation: true` (PostHog: NOT of the condition, true where the property is NULL) as
 * conditions Quarry's filters express: the opposite operator, or the complementary ones ORed with `is_not_set`.
 */
function negatedPerson(f: AnyPropertyFilter & { operator?: string | null; value?: unknown }, attr: string): AnyPropertyFilter | PropertyGroupFilter {
  const op = f.operator ?? 'exact';
  if (OPPOSITE[op]) return { ...f, operator: OPPOSITE[op] } as AnyPropertyFilter;
  const others = COMPLEMENT[op];
  if (!others || (Array.isArray(f.value) && op !== 'between' && op !== 'not_between' && f.value.length > 1))
    throw validationError(`A negated person criterion with operator "${op}" ${others ? 'takes one value' : 'is not supported'}.`, attr);
  const values = [...others.map((o) => ({ ...f, operator: o }) as AnyPropertyFilter), { type: 'person', key: f.key, operator: 'is_not_set' } as AnyPropertyFilter];
  return { type: 'OR', values };
}

function personFilter(raw: Record<string, unknown>, attr: string): AnyPropertyFilter | PropertyGroupFilter {
  const picked: Record<string, unknown> = { type: 'person', key: raw.key };
  if (raw.operator !== undefined && raw.operator !== null) picked.operator = raw.operator;
  if (raw.value !== undefined) picked.value = raw.value;
  const parsed = personPropertyFilterSchema.safeParse(picked);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw validationError(`Invalid person property criterion: ${issue?.path.join('.') || 'value'}: ${issue?.message ?? 'invalid'}.`, attr);
  }
  if (parsed.data.operator === 'flag_evaluates_to') throw validationError('Operator "flag_evaluates_to" is not supported in cohorts.', attr);
  return raw.negation === true ? negatedPerson(parsed.data as AnyPropertyFilter, attr) : (parsed.data as AnyPropertyFilter);
}

function cohortRef(raw: Record<string, unknown>, attr: string): AnyPropertyFilter {
  const id = cohortIdOf(raw.value);
  if (id === null) throw validationError('A cohort criterion needs the id of a cohort as its value.', attr);
  const op = raw.operator ?? 'in';
  if (op !== 'in' && op !== 'not_in') throw validationError(`Operator "${String(op)}" is not valid for a cohort criterion (in, not_in).`, attr);
  const negated = (op === 'not_in') !== (raw.negation === true);
  return { type: 'cohort', key: 'id', value: id, operator: negated ? 'not_in' : 'in' } as AnyPropertyFilter;
}

function criterion(raw: unknown, attr: string, legacy: boolean): AnyPropertyFilter | PropertyGroupFilter {
  if (!isObject(raw)) throw validationError('Each criterion must be an object.', attr);
  const type = raw.type ?? (legacy ? 'person' : undefined);
  if (type === 'person' || (legacy && type === 'event')) return personFilter(raw, attr);
  // PostHog's cohort query reads its precalculated and static cohort property types as cohort criteria
  if (type === 'cohort' || type === 'precalculated-cohort' || type === 'static-cohort') return cohortRef(raw, attr);
  if (type === 'behavioral') return parseBehavioral(raw, attr) as unknown as AnyPropertyFilter;
  throw validationError(`Cohort criteria of type "${String(type)}" are not supported (person, cohort, behavioral).`, attr);
}

function group(raw: unknown, attr: string, depth: number): PropertyGroupFilter {
  if (depth > MAX_DEPTH) throw validationError(`Cohort criteria may nest at most ${MAX_DEPTH} groups deep.`, attr);
  if (!isObject(raw) || (raw.type !== 'AND' && raw.type !== 'OR') || !Array.isArray(raw.values))
    throw validationError('Must be a property group: {"type": "AND" | "OR", "values": [...]}.', attr);
  const values = raw.values.map((v) =>
    isObject(v) && (v.type === 'AND' || v.type === 'OR') ? group(v, attr, depth + 1) : criterion(v, attr, false),
  );
  return { type: raw.type, values };
}

/** `filters` (current form) → group; throws a 400 for anything Quarry cannot evaluate. */
export function groupFromFilters(filters: unknown): PropertyGroupFilter {
  // PostHog's CohortSerializer.validate_filters: an object with a `properties` key, nothing else
  if (!isObject(filters) || !('properties' in filters)) throw validationError("Filters must be a dictionary with a 'properties' key.", 'filters');
  // a plain list of criteria is an AND of them, as PostHog's Filter reads `properties` given as a list
  const props = Array.isArray(filters.properties) ? { type: 'AND', values: filters.properties } : filters.properties;
  if (props === undefined || props === null) return { type: 'AND', values: [] };
  const g = group(props, 'filters', 0);
  checkNegations(props, 'filters');
  return g;
}

/**
 * PostHog's oldest property form, a dict `{"key": value, "key__operator": value}` (Filter._parse_properties): one
 * untyped property per entry, the operator after `__`.
 */
function oldStyleProperties(dict: Record<string, unknown>): Record<string, unknown>[] {
  return Object.entries(dict).map(([k, value]) => {
    const [key, operator] = k.split('__');
    return { key, value, ...(operator ? { operator } : {}) };
  });
}

/** Legacy `groups` → group (groups ORed, properties ANDed; an `action_id`/`event_id` group is its behavioral criterion). */
export function groupFromLegacyGroups(groups: unknown): PropertyGroupFilter {
  if (!Array.isArray(groups)) throw validationError('Must be a list of groups.', 'groups');
  const values = groups.map((g): PropertyGroupFilter => {
    if (!isObject(g)) throw validationError('Each group must be an object.', 'groups');
    if ((g.action_id !== undefined && g.action_id !== null) || (g.event_id !== undefined && g.event_id !== null))
      return { type: 'AND', values: [legacyBehavioral(g, 'groups') as unknown as AnyPropertyFilter] };
    const props = isObject(g.properties) ? oldStyleProperties(g.properties) : (g.properties ?? []);
    if (!Array.isArray(props)) throw validationError('A group\'s properties must be a list.', 'groups');
    return { type: 'AND', values: props.map((p) => criterion(p, 'groups', true)) };
  });
  return { type: 'OR', values };
}

/** The stored definition as a group: `filters` when it has properties, else the legacy `groups`. */
export function cohortGroup(c: { filters: Record<string, unknown> | null; groups: unknown[] }): PropertyGroupFilter {
  if (c.filters && isObject(c.filters) && c.filters.properties) return groupFromFilters(c.filters);
  return groupFromLegacyGroups(c.groups ?? []);
}

/** True when the group has no criterion at all (such a dynamic cohort matches no one). */
export function isEmptyGroup(g: PropertyGroupFilter): boolean {
  return g.values.every((v) => 'values' in v && isEmptyGroup(v as PropertyGroupFilter));
}

/** Ids of the cohorts a group refers to (directly). */
export function referencedCohorts(g: PropertyGroupFilter): number[] {
  const out: number[] = [];
  const walk = (x: PropertyGroupFilter | AnyPropertyFilter) => {
    if ('values' in x && Array.isArray((x as PropertyGroupFilter).values) && (x.type === 'AND' || x.type === 'OR')) (x as PropertyGroupFilter).values.forEach(walk);
    else if (x.type === 'cohort') {
      const id = cohortIdOf((x as { value: unknown }).value);
      if (id !== null) out.push(id);
    }
  };
  walk(g);
  return out;
}
