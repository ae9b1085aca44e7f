/**
 * Property filters → ProductQL boolean expressions, with PostHog's semantics (reference §1.4):
 *
 * - properties read as strings; `''` and JSON null are NULL (the printer's property access already does this);
 * - nullable `=` is false on NULL, nullable `!=`/`NOT IN`/`NOT ILIKE`/`not_regex` are TRUE on NULL (the printer
 *   wraps comparisons in `coalesce(…, false|true)` exactly like HogQL's `ifNull(…, 0|1)`);
 * - lists: `exact`/`is_not` become IN/NOT IN; other operators OR their per-value conditions (negative operators
 *   AND them); an empty list is a no-op (TRUE);
 * - `gt`/`lt`/… compare numerically when the value is a number (or numeric text);
 * - groups `{type: AND|OR, values}` nest; an empty group is TRUE; a plain array is AND.
 *
 * Every value is an AST constant (bound by the printer), never spliced into text. `hogql` filters are parsed with
 * the ProductQL parser: call {@link ensureFilterParser} (or `initParser`) once before building.
 */
import * as ast from '../../productql/ast';
import type { Expr } from '../../productql/ast';
import { initParser, parseExprSync } from '../../productql/parser';
import { validationError } from '../../errors';
import type { AnyPropertyFilter, PropertiesInput, PropertyGroupFilter } from './schema';
import { parseDateString } from './date-range';
import { asTextExpr } from './breakdown';
import { instantToLocal, sqlLocal } from './local-time';
import { cohortInScope, cohortNotFoundMessage } from '../../cohorts/cohort-scope';
import { cohortIdOf } from '../../cohorts/cohort-definition';
import { sessionPropertyExpr } from './session-filters';
import { elementFilterToExpr } from './element-filters';
import { groupPropertyChain } from './group-filters';

/** Loads the ProductQL parser (needed by `hogql` filters, breakdowns and math). Idempotent. */
export const ensureFilterParser = (): Promise<void> => initParser();

/** Where the filtered fields live. */
export interface FilterContext {
  /** Table alias to prefix fields with (`e` → `e.properties.x`). Default: none (the single FROM table). */
  table?: string;
  /** Project timezone (relative dates in `is_date_*` values). Default UTC. */
  timezone?: string;
  /** Attribute for validation errors. Default `properties`. */
  attr?: string;
  /**
   * The filtered rows are persons themselves (the `persons` table: a cohort's count), not events: person
   * properties are read as `properties.k` and the person id as `id`. Default false (events, via their person).
   */
  personTable?: boolean;
  /** Cohorts being expanded (outermost first), to refuse a cohort that refers back to itself. Default none. */
  cohortPath?: number[];
}

const prefixed = (ctx: FilterContext, ...chain: (string | number)[]): Expr =>
  ast.field(...(ctx.table ? [ctx.table, ...chain] : chain));

/** The ProductQL field a filter reads: `properties.k`, `person.properties.k`, a column (`event_metadata`), ... */
export function propertyField(f: { type: string; key: string; group_type_index?: number | null }, ctx: FilterContext = {}): Expr {
  switch (f.type) {
    case 'event':
      if (f.key === '$elements_chain') return prefixed(ctx, 'elements_chain');
      return prefixed(ctx, 'properties', f.key);
    case 'feature':
      return prefixed(ctx, 'properties', `$feature/${f.key}`);
    case 'session':
      if (ctx.personTable) throw validationError('Session property filters apply to events, not to persons.', ctx.attr ?? 'properties');
      return sessionPropertyExpr(f.key, ctx.attr ?? 'properties', ctx.table);
    case 'group':
      return prefixed(ctx, ...groupPropertyChain(f, ctx.personTable ? 'persons' : undefined, ctx.attr ?? 'properties'));
    case 'person':
      return ctx.personTable ? prefixed(ctx, 'properties', f.key) : prefixed(ctx, 'person', 'properties', f.key);
    case 'event_metadata': {
      const cols: Record<string, string> = {
        distinct_id: 'distinct_id',
        event: 'event',
        timestamp: 'timestamp',
        person_id: 'person_id',
        $session_id: '$session_id',
        session_id: '$session_id',
        uuid: 'uuid',
        elements_chain: 'elements_chain',
      };
      const col = cols[f.key];
      if (!col) throw validationError(`Unknown event metadata field "${f.key}".`, ctx.attr ?? 'properties');
      if (col === 'timestamp') return prefixed(ctx, 'timestamp');
      return ast.call('nullIf', [ast.call('concat', [prefixed(ctx, col), ast.constant('')]), ast.constant('')]);
    }
    default:
      throw validationError(`Property filters of type "${f.type}" are not supported.`, ctx.attr ?? 'properties');
  }
}

type Scalar = string | number | boolean | null;

const asString = (v: Scalar): string => (v === null ? '' : typeof v === 'boolean' ? (v ? 'true' : 'false') : String(v));

const numericValue = (v: Scalar): number | null => {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
};

function dateConstant(v: Scalar, ctx: FilterContext): Expr {
  const s = asString(v);
  const tz = ctx.timezone ?? 'UTC';
  if (/^-?\d*[hdwmqyMs](Start|End)?$/.test(s)) {
    const parsed = parseDateString(s, instantToLocal(new Date(), tz), tz, ctx.attr ?? 'properties');
    return ast.call('toDateTime', [ast.constant(sqlLocal(parsed.value))]);
  }
  return ast.call('toDateTime', [ast.constant(s)]);
}

/** One operator on one scalar value. */
function scalarCondition(x: Expr, op: string, v: Scalar, ctx: FilterContext): Expr {
  switch (op) {
    case 'exact':
    case 'is_cleaned_path_exact':
    case 'in':
      return ast.compare('==', x, ast.constant(asString(v)));
    case 'is_not':
    case 'not_in':
      return ast.compare('!=', x, ast.constant(asString(v)));
    case 'icontains':
      return ast.compare('ilike', asTextExpr(x), ast.constant(`%${asString(v)}%`));
    case 'not_icontains':
      return ast.compare('not ilike', asTextExpr(x), ast.constant(`%${asString(v)}%`));
    case 'regex':
      return ast.compare('=~', asTextExpr(x), ast.constant(asString(v)));
    case 'not_regex':
      return ast.compare('!~', asTextExpr(x), ast.constant(asString(v)));
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
    case 'min':
    case 'max': {
      const sym = ({ gt: '>', gte: '>=', lt: '<', lte: '<=', min: '>=', max: '<=' } as const)[op];
      const n = numericValue(v);
      return ast.compare(sym, x, n === null ? ast.constant(asString(v)) : ast.constant(n));
    }
    case 'is_date_exact':
      return ast.compare('==', ast.call('toDateTime', [x]), dateConstant(v, ctx));
    case 'is_date_before':
      return ast.compare('<', ast.call('toDateTime', [x]), dateConstant(v, ctx));
    case 'is_date_after':
      return ast.compare('>', ast.call('toDateTime', [x]), dateConstant(v, ctx));
    default:
      throw validationError(`Operator "${op}" is not supported for this filter.`, ctx.attr ?? 'properties');
  }
}

const NEGATIVE = new Set(['is_not', 'not_icontains', 'not_regex', 'not_in']);

/** One property filter as a boolean expression. */
export function propertyFilterToExpr(f: AnyPropertyFilter, ctx: FilterContext = {}): Expr {
  if (f.type === 'hogql') return parseExprSync(f.key);
  if (f.type === 'cohort') return cohortFilterExpr(f, ctx);
  if (f.type === 'element') return elementFilterToExpr(f, ctx);
  const x = propertyField(f, ctx);
  const op = f.operator ?? 'exact';
  const value = f.value;
  if (op === 'is_set') return ast.call('isNotNull', [x]);
  if (op === 'is_not_set') return ast.call('isNull', [x]);
  if (op === 'flag_evaluates_to') throw validationError('Operator "flag_evaluates_to" is not supported.', ctx.attr ?? 'properties');
  if (op === 'between' || op === 'not_between') {
    const pair = Array.isArray(value) ? value.map(numericValue) : [];
    if (pair.length !== 2 || pair[0] === null || pair[1] === null)
      throw validationError(`Operator "${op}" needs a [min, max] pair of numbers.`, ctx.attr ?? 'properties');
    if (pair[0] > pair[1]) throw validationError(`Operator "${op}": min must be less than or equal to max.`, ctx.attr ?? 'properties');
    const lo = ast.constant(pair[0]);
    const hi = ast.constant(pair[1]);
    return op === 'between'
      ? ast.and(ast.compare('>=', x, lo), ast.compare('<=', x, hi))
      : ast.or(ast.compare('<', x, lo), ast.compare('>', x, hi));
  }
  if ((op === 'in' || op === 'not_in') && !Array.isArray(value))
    throw validationError(`Operator "${op}" needs a list value.`, ctx.attr ?? 'properties');
  const values: Scalar[] = Array.isArray(value) ? value : [value ?? null];
  if (values.length === 0) return ast.constant(true);
  if (values.length === 1) return scalarCondition(x, op, values[0], ctx);
  if (op === 'exact' || op === 'in' || op === 'is_not' || op === 'not_in') {
    const list = ast.tuple(values.map((v) => ast.constant(asString(v))));
    return ast.compare(op === 'exact' || op === 'in' ? 'in' : 'not in', x, list);
  }
  const parts = values.map((v) => scalarCondition(x, op, v, ctx));
  return NEGATIVE.has(op) ? ast.and(...parts) : ast.or(...parts);
}

/**
 * `{type: 'cohort', key: 'id', value: <id>, operator: 'in' | 'not_in'}`: the event's person (or, on the persons
 * table, the person) belongs to the cohort. A dynamic cohort is its person-property definition read through the
 * same person join as person-property filters (PostHog evaluates membership on current person properties); a
 * static one is its list of person ids; nested cohort references expand recursively. The cohort must be one the
 * running query's project has (loaded by the cohort-aware runner): anything else is PostHog's 400.
 */
function cohortFilterExpr(f: { value: unknown; operator?: string | null }, ctx: FilterContext): Expr {
  const attr = ctx.attr ?? 'properties';
  const id = cohortIdOf(f.value);
  const cohort = id === null ? undefined : cohortInScope(id);
  if (!cohort) throw validationError(cohortNotFoundMessage(f.value), attr);
  const op = f.operator ?? 'in';
  if (op !== 'in' && op !== 'not_in' && op !== 'exact' && op !== 'is_not')
    throw validationError(`Operator "${op}" is not valid for a cohort filter (in, not_in).`, attr);
  const path = ctx.cohortPath ?? [];
  if (path.includes(cohort.id)) throw validationError(`Cohort ${cohort.id} refers to itself through its criteria.`, attr);
  let member: Expr;
  if (cohort.isStatic) {
    const pid = ast.call('concat', [prefixed(ctx, ctx.personTable ? 'id' : 'person_id'), ast.constant('')]);
    member = cohort.personIds.length ? ast.compare('in', pid, ast.tuple(cohort.personIds.map((p) => ast.constant(p)))) : ast.constant(false);
  } else {
    const inner = cohort.group ? propertyGroupToExpr(cohort.group, { ...ctx, cohortPath: [...path, cohort.id] }) : undefined;
    // a dynamic cohort without criteria matches no one (an empty property group would be TRUE)
    member = inner && cohort.group && hasCriteria(cohort.group) ? inner : ast.constant(false);
  }
  return op === 'not_in' || op === 'is_not' ? ast.not(member) : member;
}

const hasCriteria = (g: PropertyGroupFilter): boolean => g.values.some((v) => !isGroup(v) || hasCriteria(v));

const isGroup = (x: unknown): x is PropertyGroupFilter =>
  !!x && typeof x === 'object' && ((x as { type?: string }).type === 'AND' || (x as { type?: string }).type === 'OR');

/** A property group (AND/OR, nested) as a boolean expression; empty → TRUE. */
export function propertyGroupToExpr(g: PropertyGroupFilter, ctx: FilterContext = {}): Expr {
  const parts = g.values.map((v) => (isGroup(v) ? propertyGroupToExpr(v, ctx) : propertyFilterToExpr(v, ctx)));
  if (parts.length === 0) return ast.constant(true);
  return g.type === 'AND' ? ast.and(...parts) : ast.or(...parts);
}

/** `properties` of a node or series (list = AND, or a group) as one expression; undefined when there is none. */
export function propertiesToExpr(props: PropertiesInput | AnyPropertyFilter[] | null | undefined, ctx: FilterContext = {}): Expr | undefined {
  if (!props) return undefined;
  if (Array.isArray(props)) return props.length ? ast.and(...props.map((f) => propertyFilterToExpr(f, ctx))) : undefined;
  if (isGroup(props)) return props.values.length ? propertyGroupToExpr(props, ctx) : undefined;
  return undefined;
}

/**
 * The project's test-account filters as one AND expression (when `filterTestAccounts` is set), undefined
 * otherwise. Malformed stored filters are skipped, as PostHog's non-strict mode does.
 */
export function testAccountFiltersExpr(
  project: { test_account_filters?: unknown[] | null },
  enabled: boolean | null | undefined,
  ctx: FilterContext = {},
): Expr | undefined {
  if (!enabled) return undefined;
  const exprs: Expr[] = [];
  for (const raw of project.test_account_filters ?? []) {
    if (!raw || typeof raw !== 'object') continue;
    try {
      exprs.push(propertyFilterToExpr(raw as AnyPropertyFilter, ctx));
    } catch {
      // non-strict: an unusable stored filter is ignored
    }
  }
  return exprs.length ? ast.and(...exprs) : undefined;
}
