/**
 * A cohort's definition as a property group Quarry can evaluate: person-property conditions and references to
 * other cohorts, nested in AND/OR groups. PostHog's two forms are read:
 *
 * - `filters: {properties: {type, values: [...]}}` (current): person filters, cohort filters (`negation: true` →
 *   `not_in`), nested groups;
 * - legacy `groups: [{properties: [...]}, ...]`: groups are ORed, a group's properties ANDed; properties without
 *   a type, or typed `event`, are person properties (PostHog's "legacy cohorts have implicit type person").
 *
 * Behavioral criteria (`behavioral` filters, `action_id`/`event_id` groups) are refused with a 400: Quarry does not
 * evaluate them, and silently dropping them would widen the cohort.
 */
import { validationError } from '../errors';
import { personPropertyFilterSchema, type AnyPropertyFilter, type PropertyGroupFilter } from '../queries/insights/schema';

/** Largest nesting of groups in a cohort definition. */
const MAX_DEPTH = 10;

/** A cohort id from a filter value (number or numeric text); null when it is not one. */
export function cohortIdOf(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

const isObject = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x);

function personFilter(raw: Record<string, unknown>, attr: string): AnyPropertyFilter {
  if (raw.negation === true) throw validationError('Negated person property criteria are not supported: use a negative operator (is_not, not_icontains, is_not_set, …).', attr);
  const picked: Record<string, unknown> = { type: 'person', key: raw.key };
  if (raw.operator !== undefined && raw.operator !== null) picked.operator = raw.operator;
  if (raw.value !== undefined) picked.value = raw.value;
  const parsed = personPropertyFilterSchema.safeParse(picked);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw validationError(`Invalid person property criterion: ${issue?.path.join('.') || 'value'}: ${issue?.message ?? 'invalid'}.`, attr);
  }
  if (parsed.data.operator === 'flag_evaluates_to') throw validationError('Operator "flag_evaluates_to" is not supported in cohorts.', attr);
  return parsed.data as AnyPropertyFilter;
}

function cohortRef(raw: Record<string, unknown>, attr: string): AnyPropertyFilter {
  const id = cohortIdOf(raw.value);
  if (id === null) throw validationError('A cohort criterion needs the id of a cohort as its value.', attr);
  const op = raw.operator ?? 'in';
  if (op !== 'in' && op !== 'not_in') throw validationError(`Operator "${String(op)}" is not valid for a cohort criterion (in, not_in).`, attr);
  const negated = (op === 'not_in') !== (raw.negation === true);
  return { type: 'cohort', key: 'id', value: id, operator: negated ? 'not_in' : 'in' } as AnyPropertyFilter;
}

function criterion(raw: unknown, attr: string, legacy: boolean): AnyPropertyFilter {
  if (!isObject(raw)) throw validationError('Each criterion must be an object.', attr);
  const type = raw.type ?? (legacy ? 'person' : undefined);
  if (type === 'person' || (legacy && type === 'event')) return personFilter(raw, attr);
  if (type === 'cohort') return cohortRef(raw, attr);
  if (type === 'behavioral') throw validationError('Behavioral cohort criteria (performed_event, …) are not supported: define the cohort by person properties.', attr);
  throw validationError(`Cohort criteria of type "${String(type)}" are not supported (person, cohort).`, attr);
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
  if (!isObject(filters)) throw validationError('Must be an object: {"properties": {"type": …, "values": […]}}.', 'filters');
  const props = filters.properties;
  if (props === undefined || props === null) return { type: 'AND', values: [] };
  return group(props, 'filters', 0);
}

/** Legacy `groups` → group (groups ORed, properties ANDed). */
export function groupFromLegacyGroups(groups: unknown): PropertyGroupFilter {
  if (!Array.isArray(groups)) throw validationError('Must be a list of groups.', 'groups');
  const values = groups.map((g): PropertyGroupFilter => {
    if (!isObject(g)) throw validationError('Each group must be an object.', 'groups');
    if (g.action_id !== undefined || g.event_id !== undefined)
      throw validationError('Behavioral cohort groups (action_id, event_id) are not supported: define the cohort by person properties.', 'groups');
    const props = g.properties ?? [];
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
