/**
 * Property filters → ProductQL boolean expressions, with PostHog's semantics (reference §1.4):
 *
 * - properties read as strings; a missing key and JSON null are NULL, `""` is `''` (the printer's property access does this);
 * - nullable `=` is false on NULL, nullable `!=`/`NOT IN`/`NOT ILIKE`/`not_regex` are TRUE on NULL (the printer
 *   wraps comparisons in `coalesce(…, false|true)` exactly like HogQL's `ifNull(…, 0|1)`);
 * - lists: `exact`/`is_not` become IN/NOT IN (a null item matches a NULL property, as under HogQL's
 *   transform_null_in); other operators OR their per-value conditions (negative operators AND them); an empty list is
 *   a no-op (TRUE);
 * - `gt`/`lt`/… compare numerically when the value is a number (or numeric text);
 * - `exact` / `is_not` with a null value are "not set" / "set" (PostHog compares with NULL: `x = NULL` is isNull);
 * - `is_date_*` read Unix timestamps (seconds or milliseconds) as instants and other text as dates in the project
 *   timezone; values may be relative (`-7d`);
 * - groups `{type: AND|OR, values}` nest; an empty group is TRUE; a plain array is AND;
 * - person keys `$virt_*` are fields computed from the person's properties (person-virtual-properties.ts);
 * - `is_cleaned_path_exact` compares the property, rewritten by the project's path-cleaning rules, with the value
 *   (path-cleaning.ts).
 *
 * Every value is an AST constant (bound by the printer), never spliced into text. `hogql` filters are parsed with
 * the ProductQL parser: call {@link ensureFilterParser} (or `initParser`) once before building.
 */
import * as ast from '../../productql/ast';
import type { Expr } from '../../productql/ast';
import { initParser, parseExprSync } from '../../productql/parser';
import { validationError } from '../../errors';
import type { AnyPropertyFilter, PropertiesInput, PropertyGroupFilter } from './schema';
import { insightsNow, parseDateString } from './date-range';
import { asTextExpr } from './breakdown';
import { instantToLocal, sqlLocal } from './local-time';
import { cohortInScope, cohortNotFoundMessage } from '../../cohorts/cohort-scope';
import { cohortIdOf } from '../../cohorts/cohort-definition';
import { behavioralExpr, isBehavioral } from '../../cohorts/behavioral';
import { sessionPropertyExpr } from './session-filters';
import { elementFilterToExpr } from './element-filters';
import { groupPropertyChain } from './group-filters';
import { isSemverOperator, semverCondition } from './semver';
import { isPersonVirtualProperty, personVirtualPropertyExpr } from './person-virtual-properties';
import { cleanedPathExpr, pathCleaningInScope } from './path-cleaning';

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

/**
 * `event_metadata` filter keys → the events column they read (PostHog's property_to_expr reads `ast.Field([key])`, a
 * column of the events table, printed bare). Its text columns are never NULL: `$group_N`, `$session_id`, `$window_id` and
 * `elements_chain` hold `''` when the event has none, as PostHog's String columns do, so `is_set` holds for them.
 */
const EVENT_METADATA_COLUMNS: Record<string, string> = {
  distinct_id: 'distinct_id',
  event: 'event',
  timestamp: 'timestamp',
  created_at: 'created_at',
  person_id: 'person_id',
  $session_id: '$session_id',
  session_id: '$session_id',
  $window_id: '$window_id',
  uuid: 'uuid',
  elements_chain: 'elements_chain',
  ...Object.fromEntries([0, 1, 2, 3, 4].map((i) => [`$group_${i}`, `$group_${i}`])),
};
const DATETIME_COLUMNS = new Set(['timestamp', 'created_at']);
/** Filter types that read the event itself (on the persons table there is none). */
const EVENT_ONLY = new Set(['event', 'feature', 'event_metadata', 'element', 'session', 'group']);
/** PostHog's property_to_expr in person scope: "The 'event' property filter does not work in 'person' scope". */
function assertRowsHaveEvents(type: string, ctx: FilterContext): void {
  if (ctx.personTable && EVENT_ONLY.has(type)) throw validationError(`The '${type}' property filter does not work in 'person' scope`, ctx.attr ?? 'properties');
}
/** The session properties that are datetimes (src/productql/sessions.ts). */
const SESSION_DATETIMES = new Set(['$start_timestamp', '$end_timestamp']);

/** The ProductQL field a filter reads: `properties.k`, `person.properties.k`, a column (`event_metadata`), ... */
export function propertyField(f: { type: string; key: string; group_type_index?: number | null }, ctx: FilterContext = {}): Expr {
  assertRowsHaveEvents(f.type, ctx);
  switch (f.type) {
    case 'event':
      if (f.key === '$elements_chain') return prefixed(ctx, 'elements_chain');
      return prefixed(ctx, 'properties', f.key);
    case 'feature':
      // PostHog's property_to_expr reads a feature filter as an event property, its key as it is (the frontend's keys
      // carry the prefix, `$feature/my-flag`); test_property_to_expr_feature: `{type: feature, key: a}` is `properties.a`
      return prefixed(ctx, 'properties', f.key);
    case 'session':
      return sessionPropertyExpr(f.key, ctx.attr ?? 'properties', ctx.table);
    case 'group':
      return prefixed(ctx, ...groupPropertyChain(f, ctx.attr ?? 'properties'));
    case 'person': {
      const read = (key: string) => (ctx.personTable ? prefixed(ctx, 'properties', key) : prefixed(ctx, 'person', 'properties', key));
      // `$virt_*` keys are fields computed from the person's properties (PostHog's persons table), not stored ones
      return isPersonVirtualProperty(f.key) ? personVirtualPropertyExpr(f.key, read, ctx.attr ?? 'properties') : read(f.key);
    }
    case 'event_metadata': {
      const col = EVENT_METADATA_COLUMNS[f.key];
      if (!col)
        throw validationError(
          `Unknown event metadata field "${f.key}" (${Object.keys(EVENT_METADATA_COLUMNS).join(', ')}).`,
          ctx.attr ?? 'properties',
        );
      if (DATETIME_COLUMNS.has(col)) return prefixed(ctx, col);
      // as text (uuid and person_id compare with the filter's string value as PostHog's String comparison does)
      return ast.call('concat', [prefixed(ctx, col), ast.constant('')]);
    }
    default:
      throw validationError(`Property filters of type "${f.type}" are not supported.`, ctx.attr ?? 'properties');
  }
}

type Scalar = string | number | boolean | null;

const asString = (v: Scalar): string => (v === null ? '' : typeof v === 'boolean' ? (v ? 'true' : 'false') : String(v));

/**
 * The text an `exact`/`is_not` value compares with. An object or array property reads as its stored JSON text, which
 * Quarry keeps compact; PostHog's tests store and filter json.dumps text (`{"a": 1, "b": [1]}`), so a value that is
 * JSON of an object or array is compared in the stored (compact) form (test_filter.py test_json_object).
 */
function comparedText(v: Scalar): string {
  const s = asString(v);
  const t = s.trim();
  if (typeof v !== 'string' || !((t.startsWith('{') && t.endsWith('}')) || (t.startsWith('[') && t.endsWith(']')))) return s;
  try {
    return JSON.stringify(JSON.parse(t));
  } catch {
    return s;
  }
}

const numericValue = (v: Scalar): number | null => {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
};

function dateConstant(v: Scalar, ctx: FilterContext): Expr {
  const s = asString(v);
  const tz = ctx.timezone ?? 'UTC';
  if (/^-?\d*[hdwmqyMs](Start|End)?$/.test(s)) {
    const parsed = parseDateString(s, instantToLocal(insightsNow(), tz), tz, ctx.attr ?? 'properties');
    return ast.call('toDateTime', [ast.constant(sqlLocal(parsed.value))]);
  }
  // a value that is no date (`1336234635`, `abc`) is the caller's 400, not the engine's conversion error
  try {
    parseDateString(s, instantToLocal(insightsNow(), tz), tz, ctx.attr ?? 'properties');
  } catch {
    throw validationError(`A date filter needs a date (YYYY-MM-DD, an ISO 8601 datetime or a relative date like -7d), got ${JSON.stringify(v)}.`, ctx.attr ?? 'properties');
  }
  return ast.call('toDateTime', [ast.constant(s)]);
}

/** Unix timestamps in a date property: 9+ integer digits (1973 on), optionally with a fraction. */
const EPOCH_TEXT = '^[0-9]{9,}(\\.[0-9]+)?$';
/** From this value on, a Unix timestamp is in milliseconds (in seconds it would be the year 5138). */
const EPOCH_MS_FROM = 1e11;

/** Date text has a four-digit year somewhere. */
const YEAR_TEXT = '[0-9]{4}';

/** A day-first date with dashes (`01-04-2021 19:00:00`, 1 April): rewritten with slashes, the day-first form both engines' best-effort parsers read. */
const DAY_FIRST_DASHES = '^\\s*([0-9]{1,2})-([0-9]{1,2})-([0-9]{4})';

/**
 * A property as a datetime for `is_date_*`: a Unix timestamp (a JSON number or numeric text, in seconds or
 * milliseconds; what PostHog's DateTime property formats `unix_timestamp` / `unix_timestamp_milliseconds` read) is
 * that instant, anything else is parsed as date text the way PostHog's `parseDateTime64BestEffortOrNull` reads it
 * (ISO, `2021/04/01`, day-first `01/04/2021` and `01-04-2021`, RFC 822 `Wed, 02 Oct 2002 15:00:00 +0200`; NULL when it
 * is none). Datetime fields (`timestamp`, a session's `$start_timestamp`, ...) are used as they are.
 */
function dateOf(x: Expr, isDatetime: boolean): Expr {
  if (isDatetime) return x;
  const n = ast.call('toFloat', [x]);
  const seconds = ast.call('if', [ast.compare('>=', n, ast.constant(EPOCH_MS_FROM)), ast.arithmetic('/', n, ast.constant(1000)), n]);
  const text = ast.call('replaceRegexpOne', [asTextExpr(x), ast.constant(DAY_FIRST_DASHES), ast.constant('\\1/\\2/\\3')]);
  // text without a year (`ünï`, `5`, a JSON object) is no date; the old ClickHouse release under test would read it as one
  const parsed = ast.call('if', [ast.compare('=~', asTextExpr(x), ast.constant(YEAR_TEXT)), ast.call('parseDateTimeBestEffortOrNull', [text]), ast.constant(null)]);
  return ast.call('if', [ast.compare('=~', asTextExpr(x), ast.constant(EPOCH_TEXT)), ast.call('toDateTime', [seconds]), parsed]);
}

/** One operator on one scalar value. */
function scalarCondition(x: Expr, op: string, v: Scalar, ctx: FilterContext, isDatetime = false): Expr {
  switch (op) {
    case 'is_cleaned_path_exact': {
      // PostHog's apply_path_cleaning: the project's rules rewrite the property, which is then compared with the value
      const rules = pathCleaningInScope();
      return scalarCondition(rules.length ? cleanedPathExpr(asTextExpr(x), rules) : x, 'exact', v, ctx, isDatetime);
    }
    case 'exact':
    case 'in':
      // PostHog compares with a NULL constant (`x = NULL`), which HogQL prints as isNull(x)
      if (v === null) return ast.call('isNull', [x]);
      return ast.compare('==', x, ast.constant(comparedText(v)));
    case 'is_not':
    case 'not_in':
      if (v === null) return ast.call('isNotNull', [x]);
      return ast.compare('!=', x, ast.constant(comparedText(v)));
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
      // PostHog compares with a NULL constant (`x > NULL`), which is NULL, printed as ifNull(…, 0): nothing passes
      if (v === null) return ast.constant(false);
      const n = numericValue(v);
      return ast.compare(sym, x, n === null ? ast.constant(asString(v)) : ast.constant(n));
    }
    case 'is_date_exact':
      return ast.compare('==', dateOf(x, isDatetime), dateConstant(v, ctx));
    case 'is_date_before':
      return ast.compare('<', dateOf(x, isDatetime), dateConstant(v, ctx));
    case 'is_date_after':
      return ast.compare('>', dateOf(x, isDatetime), dateConstant(v, ctx));
    default:
      if (isSemverOperator(op)) return semverCondition(x, op, v, ctx.attr ?? 'properties');
      throw validationError(`Operator "${op}" is not supported for this filter.`, ctx.attr ?? 'properties');
  }
}

/** Operators that compare a datetime column with the value itself: the value must be a date the engine reads. */
const DATETIME_COMPARED = new Set(['exact', 'is_not', 'in', 'not_in', 'is_cleaned_path_exact', 'gt', 'gte', 'lt', 'lte', 'min', 'max']);

/** A value compared with a datetime column (`timestamp = '(?<x>a)'`): anything but a date is the caller's 400, not the engine's conversion error. */
function absoluteDateValue(v: Scalar, ctx: FilterContext): void {
  const tz = ctx.timezone ?? 'UTC';
  let relative = true;
  try {
    relative = parseDateString(asString(v), instantToLocal(insightsNow(), tz), tz).delta !== null;
  } catch {
    // refused below
  }
  if (typeof v !== 'string' || relative)
    throw validationError(`A date property is compared with a date (YYYY-MM-DD or an ISO 8601 datetime), got ${JSON.stringify(v)}.`, ctx.attr ?? 'properties');
}

const NEGATIVE = new Set(['is_not', 'not_icontains', 'not_regex', 'not_in', 'semver_neq']);

/** One property filter as a boolean expression. */
export function propertyFilterToExpr(f: AnyPropertyFilter, ctx: FilterContext = {}): Expr {
  if (f.type === 'hogql') return parseExprSync(f.key);
  if (f.type === 'cohort') return cohortFilterExpr(f, ctx);
  // behavioral criteria exist only inside cohort definitions (src/cohorts/behavioral.ts); node schemas refuse them
  if (isBehavioral(f)) return behavioralExpr(f, ctx);
  if (f.type === 'element') {
    assertRowsHaveEvents(f.type, ctx);
    return elementFilterToExpr(f, ctx);
  }
  // An incomplete group filter (no group_type_index) fails PostHog's Property validation ("Missing required key
  // group_type_index for property type group"), which property_to_expr answers, outside strict mode, with the
  // constant 1: the filter is left out (test_property.py test_property_to_expr_group; reference §1.4: an incomplete
  // filter is TRUE).
  if (f.type === 'group' && ((f as { group_type_index?: number | null }).group_type_index ?? null) === null) return ast.constant(true);
  const x = propertyField(f, ctx);
  const op = f.operator ?? 'exact';
  const value = f.value;
  // PostHog's property_to_expr returns TRUE for an empty list value before it looks at the operator
  if ((op === 'is_set' || op === 'is_not_set') && Array.isArray(value) && value.length === 0) return ast.constant(true);
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
  const isDatetime =
    (f.type === 'event_metadata' && DATETIME_COLUMNS.has(EVENT_METADATA_COLUMNS[f.key])) || (f.type === 'session' && SESSION_DATETIMES.has(f.key));
  if (isDatetime && DATETIME_COMPARED.has(op)) for (const v of values) if (v !== null) absoluteDateValue(v, ctx);
  if (values.length === 1) return scalarCondition(x, op, values[0], ctx, isDatetime);
  if (op === 'exact' || op === 'in' || op === 'is_not' || op === 'not_in') {
    // a null item stays NULL: PostHog's tuple keeps None, and HogQL's transform_null_in makes it match a NULL property
    const list = ast.tuple(values.map((v) => ast.constant(v === null ? null : comparedText(v))));
    return ast.compare(op === 'exact' || op === 'in' ? 'in' : 'not in', x, list);
  }
  const parts = values.map((v) => scalarCondition(x, op, v, ctx, isDatetime));
  return NEGATIVE.has(op) ? ast.and(...parts) : ast.or(...parts);
}

/**
 * `{type: 'cohort', key: 'id', value: <id>, operator: 'in' | 'not_in'}`: the event's person (or, on the persons
 * table, the person) belongs to the cohort. A dynamic cohort is its person-property definition read through the
 * same person join as person-property filters (PostHog evaluates membership on current person properties); a
 * static one is its list of person ids; nested cohort references expand recursively. The cohort must be one the
 * running query's project has (loaded by the cohort-aware runner): anything else is PostHog's 400 (inside a cohort's
 * definition it holds nobody instead, as a reference back to a cohort being expanded does).
 */
function cohortFilterExpr(f: { value: unknown; operator?: string | null }, ctx: FilterContext): Expr {
  const attr = ctx.attr ?? 'properties';
  const id = cohortIdOf(f.value);
  const cohort = id === null ? undefined : cohortInScope(id);
  const path = ctx.cohortPath ?? [];
  // inside a cohort's definition, a reference to a cohort that does not exist, or back to one being expanded, holds
  // nobody (PostHog's "0 = 13": "If cohort doesn't exist, nothing can match"; a cyclic cohort calculates empty)
  const unusable = path.length > 0 && (!cohort || path.includes(cohort.id));
  if (!cohort && !unusable) throw validationError(cohortNotFoundMessage(f.value), attr);
  const op = f.operator ?? 'in';
  if (op !== 'in' && op !== 'not_in' && op !== 'exact' && op !== 'is_not')
    throw validationError(`Operator "${op}" is not valid for a cohort filter (in, not_in).`, attr);
  let member: Expr;
  if (unusable || !cohort) member = ast.constant(false);
  else if (cohort.isStatic) {
    const pid = ast.call('concat', [prefixed(ctx, ctx.personTable ? 'id' : 'person_id'), ast.constant('')]);
    member = cohort.personIds.length ? ast.compare('in', pid, ast.tuple(cohort.personIds.map((p) => ast.constant(p)))) : ast.constant(false);
  } else {
    const inner = cohort.group ? propertyGroupToExpr(cohort.group, { ...ctx, cohortPath: [...path, cohort.id] }) : undefined;
    // a dynamic cohort without criteria matches no one (an empty property group would be TRUE)
    member = inner && cohort.group && hasCriteria(cohort.group) ? inner : ast.constant(false);
    // its members are persons (PostHog's cohortpeople): an event without a person row (personless, or its person
    // deleted) is in no dynamic cohort, whatever its criteria say of the missing person's properties or events
    // (`person.created_at` is set on every persons row; `person.id` may be the event's own person id)
    if (!ctx.personTable && !(member.node === 'Constant' && member.value === false))
      member = ast.and(ast.call('isNotNull', [prefixed(ctx, 'person', 'created_at')]), member);
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
export function propertiesToExpr(props: PropertiesInput | (AnyPropertyFilter | PropertyGroupFilter)[] | null | undefined, ctx: FilterContext = {}): Expr | undefined {
  if (!props) return undefined;
  // a list may hold groups too (EventsQuery.fixedProperties)
  if (Array.isArray(props)) return props.length ? ast.and(...props.map((f) => (isGroup(f) ? propertyGroupToExpr(f, ctx) : propertyFilterToExpr(f, ctx)))) : undefined;
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
    // a stored filter without `type` is an event property filter (PostHog's Property defaults its type to "event")
    const filter = 'type' in raw && (raw as { type?: unknown }).type != null ? raw : { ...raw, type: 'event' };
    try {
      exprs.push(propertyFilterToExpr(filter as AnyPropertyFilter, ctx));
    } catch {
      // non-strict: an unusable stored filter is ignored
    }
  }
  return exprs.length ? ast.and(...exprs) : undefined;
}
