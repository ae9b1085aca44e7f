/**
 * Resolution and safety, independent of the SQL dialect. Walks the AST once with a scope stack and prints
 * through a {@link Dialect}. Nothing from the query text reaches the output except through this walk:
 *
 * - tables come only from the virtual schema or from the query's own CTEs/subqueries; every engine table is
 *   printed as a guarded reference (`... WHERE <alias>.project_id = <bound project id>`), whatever the join type;
 * - fields come only from the virtual schema or from subquery/CTE output columns;
 * - functions come only from the allow-list, with arity checks;
 * - every literal and variable is a bound value; identifiers are quoted by the dialect;
 * - only SELECT and set queries exist in the AST the parser accepts, and this walk prints nothing else.
 *
 * Bound values are referenced in the text through sentinels while printing, then numbered in order of first
 * appearance at the end, so unused values are never bound and equal values share one placeholder (which lets
 * DuckDB match `GROUP BY` expressions against the select list).
 */
import type {
  Alias,
  ArithmeticOp,
  Call,
  CTE,
  CompareOperation,
  ConstantValue,
  Expr,
  Field,
  JoinConstraint,
  JoinExpr,
  NodeBase,
  OrderExpr,
  Query,
  SelectQuery,
  SelectSetQuery,
  WindowExpr,
  WindowFrameExpr,
  WindowFunction,
} from './ast';
import { WEEK_MODES, weekNumberExpr } from './week-number';
import { MULTI_SEARCH_FUNCTIONS, multiSearchExpr } from './multi-search';
import { MAX_NUMBERS_ROWS, jodaToMysqlFormat, OVER_MARK, aggregateDefault, arrayElementTyping, arrayOfTyping, conditionalTypeName, intArithmeticTypeName, isBoolTyped, typeNameOf, unitOf, zoneOf, type Dialect, type FunctionCall, type Helpers, type IntervalUnit, type Printed, type TableNeeds } from './dialect';
import { productqlError } from './errors';
import { EXACT_VARIANTS, LAMBDA_FUNCTIONS, OPTIONAL_LAMBDA_FUNCTIONS, arityError, lookupFunction, unknownFunctionError } from './functions';
import { regexError } from '../limits';
import { displayHogQLExpr, placeholderValuesOf } from './hogql';
import { hogqlxTagTuple, isHogQLXTag } from './ast';
import { MAX_AST_DEPTH } from './parser';
import { inCohortAsIn, installedCohortMembers, type CohortMembers } from './cohorts';
import { GROUPS, SESSIONS_QUERY, SESSION_FIELDS, VIRTUAL_TABLES, type PType, type VirtualTable } from './schema';
import { boundedSessionsQuery, timestampBounds } from './session-bounds';
import { sessionsWith } from './sessions';
import type { CustomChannelRule } from './channel-type';

/** HogQL's error for a 0 index (posthog/hogql/test/test_printer.py test_expr_parse_errors). */
const ZERO_INDEX = 'SQL indexes start from one, not from zero. E.g: array[1]';

/** Default LIMIT of the outer query when none is given. */
export const DEFAULT_LIMIT = 100;
/** Largest LIMIT of the outer query; larger values are clamped. */
export const MAX_LIMIT = 50_000;
/** Largest LIMIT/OFFSET accepted anywhere (inner queries are not clamped to MAX_LIMIT). */
const MAX_INNER_LIMIT = 1_000_000_000_000;
/** The functions of the arithmetic operators (typed alike, intArithmeticTypeName). */
const ARITHMETIC_CALLS: Readonly<Record<string, string>> = { plus: '+', minus: '-', multiply: '*', modulo: '%' };
/** Calls a LIMIT / OFFSET expression may fold (with arithmetic operators): see Compiler.constantValue. */
const FOLDED_CALLS: ReadonlySet<string> = new Set(['plus', 'minus', 'multiply', 'divide', 'modulo', 'min2', 'max2', 'least', 'greatest']);

export interface CompileOptions {
  projectId: number;
  /** IANA timezone of the project; buckets and displayed datetimes use it. */
  timezone: string;
  /** `{variables.name}` values. A scalar is bound as one value; a list as a tuple (right of IN) or an array of bound items. */
  variables?: Record<string, unknown>;
  /** Variables defined as saved ones the project lacks: `{variables.name}` of one is PostHog's "Variable name does not exist". */
  unknownVariables?: readonly string[];
  /** `{name}` values (HogQL `values`). Each is bound as one scalar value. */
  values?: Record<string, unknown>;
  /** Outer LIMIT when the query has none (default 100); clamped to 50,000. With a LIMIT/OFFSET of its own, the page within its rows. */
  limit?: number;
  /** Outer OFFSET when the query has none (default 0); with a LIMIT/OFFSET of its own, the page within its rows. */
  offset?: number;
  /** False when the project has no person overrides (see {@link TableNeeds.personOverrides}). Default true. */
  personOverrides?: boolean;
  /** True when the project may hold events stored without a person (see {@link TableNeeds.personless}). Default false. */
  personless?: boolean;
  /** Members of the cohorts `IN COHORT` names (cohorts.ts). Default: the installed resolver; none: every cohort is unknown (400). */
  cohortMembers?: CohortMembers;
  /**
   * The project's first day of the week (0 Sunday, 1 Monday): `toStartOfWeek(x)` without a mode starts weeks there, as
   * HogQL gives it the team's mode (0, or 3 for Monday). Default 0.
   */
  weekStartDay?: number;
  /** The query's `bounceRateDurationSeconds` modifier: the shortest session that is no bounce (`$is_bounce`). Default 10. */
  bounceRateDurationSeconds?: number;
  /** The query's `customChannelTypeRules` modifier: rules tried before the default `$channel_type` of sessions. */
  customChannelTypeRules?: readonly CustomChannelRule[];
}

export interface OutputColumn {
  name: string;
  type: PType;
  nullable: boolean;
  chType?: string;
}

export interface CompileResult {
  sql: string;
  params: unknown[];
  columns: OutputColumn[];
  /** Effective outer limit (rows the caller returns). */
  limit: number;
  /** Rows fetched: limit + 1, so the caller can compute hasMore. */
  fetchLimit: number;
  offset: number;
  /** True when the query had no LIMIT and the default was applied. */
  limitDefaulted: boolean;
  /** The query as run: the original AST with the effective LIMIT/OFFSET. */
  query: Query;
  /**
   * Materialized CTEs (Dialect.stagesCtes), in dependency order: the engine computes each `sql` into a temporary
   * table named `table` before running `sql`, which reads them by that name. Same `params` as the query.
   */
  stages: QueryStage[];
}

export interface QueryStage {
  table: string;
  sql: string;
}

const SENTINEL = '\u0000';

class Params {
  private readonly values: ConstantValue[] = [];
  private readonly index = new Map<string, number>();
  add(v: ConstantValue): string {
    const key = (v === null ? 'null' : typeof v) + ':' + String(v);
    let i = this.index.get(key);
    if (i === undefined) {
      this.values.push(v);
      i = this.values.length - 1;
      this.index.set(key, i);
    }
    return `${SENTINEL}${i}${SENTINEL}`;
  }
  /** Numbers the placeholders in order of appearance across `sqls` (one list of values for all of them). */
  finalize(sqls: string[], dialect: Dialect): { sqls: string[]; params: unknown[] } {
    const out: unknown[] = [];
    const renum = new Map<number, number>();
    const texts = sqls.map((sql) =>
      sql.replace(/\u0000(\d+)\u0000/g, (_m, d: string) => {
        const i = Number(d);
        let j = renum.get(i);
        if (j === undefined) {
          out.push(this.values[i]);
          j = out.length;
          renum.set(i, j);
        }
        return dialect.placeholder(j);
      }),
    );
    return { sqls: texts, params: out };
  }
}

interface ColumnInfo {
  type: PType;
  nullable: boolean;
  chType?: string;
}

interface TableSource {
  /** Name used in the query (alias, or table/CTE name). */
  name: string;
  sqlAlias: string;
  virtual?: VirtualTable;
  columns?: Map<string, ColumnInfo>;
  columnOrder?: string[];
  /** SQL names of columns renamed by {@link Compiler.joinedSource}; unset: the column names. */
  columnSql?: Map<string, string>;
  /** With columnSql: the columns the query reads (only those are selected through the join). */
  readColumns?: Set<string>;
  /** Full SQL of each column (ARRAY JOIN aliases, which are not `<alias>.<column>` on every engine); unset: as above. */
  columnRef?: Map<string, string>;
  /** Columns this table joined on with USING: an unqualified name reads the left table's (the merged column). */
  usingHidden?: Set<string>;
  needs: TableNeeds;
  /** A table of PostHog's database compiled as a subquery (sessions, numbers()): its errors are a table's. */
  isTable?: boolean;
}

type CteInfo =
  | { kind: 'subquery'; sqlName: string; columns: Map<string, ColumnInfo>; order: string[]; body?: string }
  | { kind: 'column'; expr: Expr };

class Scope {
  readonly tables: TableSource[] = [];
  readonly ctes = new Map<string, CteInfo>();
  readonly selectAliases = new Map<string, Expr>();
  readonly inProgress = new Set<string>();
  /** Lambda arguments in scope, with the SQL each reads as (its quoted name, or an element of another array). */
  readonly lambdaArgs = new Map<string, string>();
  /** Conditions of inner joins printed as CROSS JOIN (Dialect.crossJoinNonEqui): part of this SELECT's WHERE. */
  readonly joinWhere: string[] = [];
  /** SQL of the FROM clause other than guarded table references (JOIN ON conditions, subqueries, inlined CTEs). */
  readonly fromTexts: string[] = [];
  /** The named windows of this SELECT (`WINDOW w AS (...)`). */
  windows = new Map<string, WindowExpr>();
  /** The select list, for dialects that print `GROUP BY 1` / `ORDER BY 1` as the expression itself. */
  selectList?: Expr[];
  constructor(
    readonly parent: Scope | undefined,
    readonly isLambda = false,
  ) {}
  findCte(name: string): CteInfo | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) {
      const c = s.ctes.get(name);
      if (c) return c;
    }
    return undefined;
  }
}

interface QueryOut {
  sql: string;
  columns: OutputColumn[];
}

const asList = <T>(x: T[] | Record<string, T> | null | undefined): T[] =>
  Array.isArray(x) ? x : x ? Object.values(x) : [];

const JOIN_TYPES: Record<string, string> = {
  JOIN: 'JOIN',
  'INNER JOIN': 'JOIN',
  'LEFT JOIN': 'LEFT JOIN',
  'LEFT OUTER JOIN': 'LEFT JOIN',
  'RIGHT JOIN': 'RIGHT JOIN',
  'RIGHT OUTER JOIN': 'RIGHT JOIN',
  'FULL JOIN': 'FULL JOIN',
  'FULL OUTER JOIN': 'FULL JOIN',
  'CROSS JOIN': 'CROSS JOIN',
  ',': 'CROSS JOIN',
  'LEFT SEMI JOIN': 'SEMI JOIN',
  'LEFT ANTI JOIN': 'ANTI JOIN',
  // ON = equalities plus one inequality; the match is the nearest row on the inequality's side (DuckDB only here).
  'ASOF JOIN': 'ASOF JOIN',
  'ASOF INNER JOIN': 'ASOF JOIN',
  'ASOF LEFT JOIN': 'ASOF LEFT JOIN',
  'ASOF LEFT OUTER JOIN': 'ASOF LEFT JOIN',
  // (the parser's spelling of `ASOF LEFT JOIN` / `ASOF INNER JOIN`)
  'LEFT ASOF JOIN': 'ASOF LEFT JOIN',
  'LEFT OUTER ASOF JOIN': 'ASOF LEFT JOIN',
  'INNER ASOF JOIN': 'ASOF JOIN',
};

/** Own-property lookup: keys come from the query, and `toString`/`constructor` must not hit Object.prototype. */
const own = <V>(obj: Record<string, V>, key: string): V | undefined =>
  Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;

const LAMBDA_FUNCS = LAMBDA_FUNCTIONS;

/** Functions whose datetime result keeps the zone of its value argument (index), or takes the zone argument's. */
const ZONE_KEEPING: Record<string, { value: number; tzArg?: number }> = {
  toStartOfMinute: { value: 0 },
  toStartOfFiveMinutes: { value: 0 },
  toStartOfTenMinutes: { value: 0 },
  toStartOfFifteenMinutes: { value: 0 },
  toStartOfHour: { value: 0 },
  toStartOfDay: { value: 0 },
  toStartOfSecond: { value: 0 },
  toStartOfInterval: { value: 0 },
  dateTrunc: { value: 1, tzArg: 2 },
  date_trunc: { value: 1, tzArg: 2 },
};

/** `expr::Type` casts: ClickHouse/HogQL type names (the parser lowercases them) to the conversion function. */
const CASTS: [RegExp, string][] = [
  [/^u?int(8|16|32|64|128|256)?$/, 'toInt'],
  [/^(float(32|64)?|double|decimal(\d+)?(\(.*\))?|numeric)$/, 'toFloat'],
  [/^(string|text|varchar|fixedstring\(\d+\))$/, 'toString'],
  [/^date(32)?$/, 'toDate'],
  // (a DateTime64 keeps its fraction; a DateTime has whole seconds, see WHOLE_SECOND_FUNCTIONS)
  [/^datetime64(\(.*\))?$/, 'toDateTime64'],
  [/^datetime(\(.*\))?$/, 'toDateTime'],
  [/^(bool|boolean)$/, 'toBool'],
  [/^uuid$/, 'toUUID'],
];
const CAST_TYPES = 'Int*, UInt*, Float*, Decimal, String, Date, DateTime, DateTime64, Bool, UUID';

/** `e` with every field chain read through `via` (`properties.x` → `person.properties.x`). */
function prefixFieldChains(e: unknown, via: string[]): unknown {
  if (Array.isArray(e)) return e.map((x) => prefixFieldChains(x, via));
  if (!e || typeof e !== 'object') return e;
  const n = e as Record<string, unknown>;
  if (n.node === 'Field' && Array.isArray(n.chain)) return { ...n, chain: [...via, ...n.chain] };
  return Object.fromEntries(Object.entries(n).map(([k, v]) => [k, prefixFieldChains(v, via)]));
}

/** The conversion function for a cast's type name: `Int64` → toInt64, `Float32` → toFloat, `DateTime64(3)` → toDateTime64. */
const castFunction = (typeName: unknown): string | undefined => {
  const t = String(typeName).toLowerCase().replace(/\s+/g, '');
  const own = CAST_NAMES.find((n) => n.toLowerCase() === `to${t}`);
  if (own) return own;
  return CASTS.find(([re]) => re.test(t))?.[1];
};
/**
 * Functions whose datetime is a ClickHouse DateTime (whole seconds), not a DateTime64(6): toString writes it without a
 * fraction (Printed.wholeSeconds). toDateTime is one for a number or datetime argument (mapping.py prints
 * toDateTime(<text>) as parseDateTime64BestEffortOrNull(text, 6, tz), a DateTime64(6)).
 */
const WHOLE_SECOND_FUNCTIONS = new Set(['toStartOfDay', 'toStartOfHour', 'toStartOfMinute', 'toStartOfFiveMinutes', 'toStartOfFiveMinute', 'toStartOfTenMinutes', 'toStartOfFifteenMinutes', 'toStartOfInterval', 'dateTrunc', 'date_trunc', 'fromUnixTimestamp']);
/** A datetime column typed as a ClickHouse DateTime (whole seconds) rather than a DateTime64(6). */
const isWholeSecondsType = (c: { type: string; chType?: string }): boolean => c.type === 'datetime' && /^DateTime\(/.test(c.chType ?? '');
const CAST_NAMES = ['toInt64', 'toInt32', 'toFloat64', 'toString', 'toDate', 'toDateTime', 'toUUID', 'toBool'];

/**
 * `expr::Type` (the parser's TypeCast node) as a call of the type's conversion function, everywhere in the AST, so
 * it compiles with that function's semantics and prints back (column names, the normalized query) as that call.
 * Unknown types are left as they are and refused when compiled. Returns the same object when there is no cast.
 */
function rewriteCasts(x: unknown): unknown {
  if (Array.isArray(x)) {
    let changed = false;
    const out = x.map((v) => {
      const r = rewriteCasts(v);
      if (r !== v) changed = true;
      return r;
    });
    return changed ? out : x;
  }
  if (!x || typeof x !== 'object') return x;
  const o = x as Record<string, unknown>;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    const r = rewriteCasts(v);
    if (r !== v) changed = true;
    out[k] = r;
  }
  if (o.node === 'TypeCast') {
    const fn = castFunction(o.type_name);
    if (fn) return { node: 'Call', name: fn, args: [out.expr], start: o.start, end: o.end };
  }
  return changed ? out : x;
}

/** Number of elements of a `Tuple(...)` type name (top-level commas), or undefined when it is not one. */
function tupleSize(chType: string | undefined): number | undefined {
  if (!chType || !chType.startsWith('Tuple(') || !chType.endsWith(')')) return undefined;
  let depth = 0;
  let n = 1;
  for (const ch of chType.slice(6, -1)) {
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === ',' && depth === 0) n++;
  }
  return n;
}

/** What an element of a tuple keeps when it is read back out (`t.2` is typed like the element was). */
const pickTyping = (p: Printed): Partial<Printed> => ({
  ...(p.chType ? { chType: p.chType } : {}),
  ...(p.tupleItems ? { tupleItems: p.tupleItems } : {}),
  ...(p.displayTz ? { displayTz: p.displayTz } : {}),
  ...(p.intervalUnit ? { intervalUnit: p.intervalUnit } : {}),
});

/** An interval column of a subquery keeps its unit (typed IntervalDay ...: see compileSelect), for datetime arithmetic. */
const intervalTyping = (c: { type: PType; chType?: string }): Partial<Printed> => {
  const unit = c.type === 'interval' ? /^Interval(\w+)$/.exec(c.chType ?? '')?.[1] : undefined;
  return unit ? { intervalUnit: unit.toLowerCase() } : {};
};

/** A bare `*` (as in `count(*)`). */
const isStar = (e: Expr | undefined): boolean => e?.node === 'Field' && Array.isArray(e.chain) && e.chain.length === 1 && e.chain[0] === '*';
/** Operators and functions whose pattern (right side, second argument) is an RE2 regex: checked by src/limits.ts. */
const REGEX_OPS = new Set<string>(['=~', '!~', '=~*', '!~*']);

/**
 * `x IN (a, NULL)` as `x IN (a) OR x = NULL` (`NOT IN`: `x NOT IN (a) AND x != NULL`; `x = NULL` is isNull): PostHog runs
 * HogQL with ClickHouse's `transform_null_in = 1`, under which NULL in an IN list is a value a NULL `x` matches.
 * Undefined when the list has no NULL constant.
 */
function inWithNull(e: CompareOperation): Expr | undefined {
  const r = e.right;
  const isNull = (x: Expr | undefined): boolean => x?.node === 'Constant' && x.value === null;
  const items = r?.node === 'Tuple' ? r.exprs : r?.node === 'Call' && r.name === 'tuple' ? r.args : isNull(r) ? [r] : undefined;
  if (!Array.isArray(items) || !items.some(isNull)) return undefined;
  const rest = items.filter((x) => !isNull(x));
  const nullTest: Expr = { node: 'CompareOperation', op: e.op === 'in' ? '==' : '!=', left: e.left, right: { node: 'Constant', value: null }, start: e.start, end: e.end };
  if (!rest.length) return nullTest;
  const inRest: Expr = { ...e, right: { node: 'Tuple', exprs: rest, start: r!.start, end: r!.end } };
  return { node: e.op === 'in' ? 'Or' : 'And', exprs: [inRest, nullTest], start: e.start, end: e.end };
}

const isStarField = (e: Expr | undefined): boolean => e?.node === 'Field' && Array.isArray(e.chain) && e.chain[e.chain.length - 1] === '*';

/** Whether `e` calls an aggregation or a window function, outside its subqueries (GROUP BY ALL leaves such items out). */
function containsAggregate(e: unknown): boolean {
  if (!e || typeof e !== 'object') return false;
  if (Array.isArray(e)) return e.some(containsAggregate);
  const n = e as { node?: string; name?: unknown };
  if (n.node === 'SelectQuery' || n.node === 'SelectSetQuery') return false;
  if (n.node === 'WindowFunction') return true;
  if (n.node === 'Call' && typeof n.name === 'string' && lookupFunction(n.name)?.kind === 'aggregate') return true;
  return Object.entries(e).some(([k, v]) => k !== 'start' && k !== 'end' && typeof v === 'object' && containsAggregate(v));
}

/**
 * `SELECT arrayJoin(arr) AS x, count() ... GROUP BY x` as `SELECT x, count() ... ARRAY JOIN arr AS x GROUP BY x`: the
 * same rows (one per element, the row dropped for an empty array), for engines that cannot group by an unnested
 * select item (DuckDB: "UNNEST not supported here"). Only one aliased arrayJoin in the select list, in a grouped
 * SELECT without an ARRAY JOIN clause of its own: two arrayJoins are a cross product in ClickHouse, which the clause
 * (zipping its arrays) is not.
 */
function groupedArrayJoinAsClause(q: SelectQuery): SelectQuery {
  if (!q.group_by?.length || q.array_join_op || q.array_join_list?.length || !q.select_from || !Array.isArray(q.select)) return q;
  const isArrayJoin = (e: Expr | undefined): boolean => e?.node === 'Call' && e.name === 'arrayJoin' && Array.isArray(e.args) && e.args.length === 1;
  const at = q.select.findIndex((e) => e?.node === 'Alias' && isArrayJoin(e.expr));
  if (at < 0 || q.select.some((e, i) => i !== at && (isArrayJoin(e) || (e?.node === 'Alias' && isArrayJoin(e.expr))))) return q;
  const item = q.select[at] as Alias;
  const arr = (item.expr as Call).args[0];
  const select = q.select.map((e, i) => (i === at ? ({ node: 'Field', chain: [item.alias], start: item.start, end: item.end } as Field) : e));
  return { ...q, select, array_join_op: 'ARRAY JOIN', array_join_list: [{ ...item, expr: arr }] };
}
const ARRAY_AGGREGATES = new Set(['arraySum', 'arrayMin', 'arrayMax', 'arrayAvg']);
const ARRAY_PREDICATES = new Set(['arrayExists', 'arrayAll', 'arrayCount']);

/**
 * ClickHouse's optional lambdas, spelled with the one-array forms: `arraySum(f, a, b)` is `arraySum(arrayMap(f, a, b))`
 * (so arrayMin / arrayMax / arrayAvg); `arrayCount(a)` counts the non-zero elements, `arrayCount(x -> x, a)`, and a
 * lambda over several arrays is `arrayCount(x -> x != 0, arrayMap(f, a, b))` (so arrayExists / arrayAll). Undefined
 * where the call needs no rewriting.
 */
function arrayOverLambda(name: string, args: Expr[], at: Pick<NodeBase, 'start' | 'end'>): Expr | undefined {
  const isLambda = args[0]?.node === 'Lambda';
  const nonZero = (): Expr => ({ node: 'Lambda', args: ['x'], expr: { node: 'CompareOperation', op: '!=', left: { node: 'Field', chain: ['x'], ...at }, right: { node: 'Constant', value: 0, ...at }, ...at }, ...at }) as Expr;
  const mapped = (): Expr => ({ node: 'Call', name: 'arrayMap', args, ...at }) as Expr;
  if (ARRAY_AGGREGATES.has(name) && isLambda) return { node: 'Call', name, args: [mapped()], ...at } as Expr;
  if (ARRAY_PREDICATES.has(name) && !isLambda) return args.length === 1 ? ({ node: 'Call', name, args: [nonZero(), args[0]], ...at } as Expr) : undefined;
  if (ARRAY_PREDICATES.has(name) && args.length > 2) return { node: 'Call', name, args: [nonZero(), mapped()], ...at } as Expr;
  return undefined;
}

/** The parts of a date or datetime, typed as ClickHouse types them (toYear is a UInt16, toMonth a UInt8, ...). */
const DATE_PART_TYPES: Record<string, string> = {
  toYear: 'UInt16',
  toISOYear: 'UInt16',
  toQuarter: 'UInt8',
  toMonth: 'UInt8',
  toISOWeek: 'UInt8',
  toDayOfYear: 'UInt16',
  toDayOfMonth: 'UInt8',
  toDayOfWeek: 'UInt8',
  toHour: 'UInt8',
  toMinute: 'UInt8',
  toSecond: 'UInt8',
  toYYYYMM: 'UInt32',
  toYYYYMMDD: 'UInt32',
  toYYYYMMDDhhmmss: 'UInt64',
  toUnixTimestamp: 'UInt32',
};
/**
 * More of HogQL's calendar functions (posthog/hogql/functions/mapping.py) as ClickHouse computes them, spelled with the
 * ones Quarry has, and ClickHouse's type of each: timeSlot(t), the start of its half hour; toLastDayOfWeek(t[, mode]),
 * the last day of its week (mode as toStartOfWeek's, default 0: Sunday to Saturday); toStartOfISOYear(t), the Monday
 * of its ISO year's first week; toModifiedJulianDay(d) / fromModifiedJulianDay(n), days since 1858-11-17 (40587 of
 * them before 1970-01-01).
 */
const CALENDAR_REWRITES: Record<string, { type?: string; to: (args: Expr[], call: (name: string, ...xs: Expr[]) => Expr, k: (v: string | number) => Expr) => Expr }> = {
  timeSlot: { to: ([t], call, k) => call('toStartOfInterval', t, call('toIntervalMinute', k(30))) },
  toLastDayOfWeek: { type: 'Date', to: ([t, mode], call, k) => call('addDays', call('toStartOfWeek', t, mode ?? k(0)), k(6)) },
  toStartOfISOYear: { type: 'Date', to: ([t], call, k) => call('minus', call('toMonday', t), call('multiply', call('minus', call('toISOWeek', t), k(1)), k(7))) },
  toModifiedJulianDay: { type: 'Int32', to: ([d], call, k) => call('plus', call('toRelativeDayNum', call('toDate', d)), k(40587)) },
  toModifiedJulianDayOrNull: { type: 'Int32', to: ([d], call, k) => call('plus', call('toRelativeDayNum', call('toDateOrNull', d)), k(40587)) },
  fromModifiedJulianDay: { type: 'Date', to: ([n], call, k) => call('addDays', call('toDate', k('1970-01-01')), call('minus', n, k(40587))) },
  fromModifiedJulianDayOrNull: { type: 'Date', to: ([n], call, k) => call('addDays', call('toDate', k('1970-01-01')), call('minus', n, k(40587))) },
};
/** dateName's parts: the function giving each ('weekday': the day's English name). */
const DATE_NAME_PARTS: Record<string, string> = {
  year: 'toYear',
  quarter: 'toQuarter',
  month: 'monthName',
  week: 'toISOWeek',
  dayofyear: 'toDayOfYear',
  day: 'toDayOfMonth',
  weekday: 'weekday',
  hour: 'toHour',
  minute: 'toMinute',
  second: 'toSecond',
};
/**
 * mapping.py's time windows (ClickHouse's, on a DateTime): tumble(t, size) is the window of `size` holding t, from
 * toStartOfInterval(t, size); hop(t, step, size) the window of `size` ending at the first `step` boundary after t;
 * `(tumble|hop)(Start|End)` one bound, of the same arguments or of a window tuple. Bounds are DateTimes.
 */
function timeWindowExpr(name: string, args: Expr[], at: { start?: number; end?: number }): Expr | undefined {
  const call = (fn: string, ...xs: Expr[]): Expr => ({ node: 'Call', name: fn, args: xs, ...at }) as Expr;
  const arith = (op: '+' | '-', left: Expr, right: Expr): Expr => ({ node: 'ArithmeticOperation', op, left, right, ...at }) as Expr;
  const element = (t: Expr, i: number): Expr => call('tupleElement', t, { node: 'Constant', value: i, ...at } as Expr);
  const hop = name.startsWith('hop');
  const bound = name.endsWith('Start') ? 1 : name.endsWith('End') ? 2 : 0;
  if (bound && args.length === 1) return element(args[0], bound);
  if (args.length !== (hop ? 3 : 2)) return undefined;
  const [t, step] = args;
  const start = call('toDateTime', call('toStartOfInterval', t, step));
  const [lower, upper] = hop ? [arith('-', arith('+', start, step), args[2]), arith('+', start, step)] : [start, arith('+', start, step)];
  return bound === 1 ? lower : bound === 2 ? upper : call('tuple', lower, upper);
}
const TIME_WINDOWS = new Set(['tumble', 'tumbleStart', 'tumbleEnd', 'hop', 'hopStart', 'hopEnd']);
/** dateAdd(unit, n, t) / dateSub(unit, n, t): t ± n units. */
const DATE_SHIFT = new Set(['dateAdd', 'date_add', 'dateSub', 'date_sub']);
/** timeStampAdd(t, interval) / timeStampSub: t ± interval. */
const TIMESTAMP_SHIFT: Record<string, '+' | '-'> = { timeStampAdd: '+', timestamp_add: '+', timeStampSub: '-', timestamp_sub: '-' };
/**
 * dateDiff's unit abbreviations (ClickHouse's: `dateDiff('dd', a, b)`, `'mi'`, `'yyyy'`, ...), read as the unit. Plurals
 * (`'days'`) are read by unitOf.
 */
const DATE_DIFF_UNIT_ALIASES: Record<string, IntervalUnit> = {
  ss: 'second',
  s: 'second',
  mi: 'minute',
  n: 'minute',
  hh: 'hour',
  h: 'hour',
  dd: 'day',
  d: 'day',
  wk: 'week',
  ww: 'week',
  mm: 'month',
  m: 'month',
  qq: 'quarter',
  q: 'quarter',
  yyyy: 'year',
  yy: 'year',
};
const REGEX_FUNCS = new Set(['match', 'extract', 'extractAll', 'regexpExtract', 'replaceRegexpAll', 'replaceRegexpOne', 'countMatches', 'countMatchesCaseInsensitive']);

// HogQL's HOGQL_COMPARISON_MAPPING: these calls print as comparisons, with their NULL handling (`notLike(NULL, p)` is
// true, as `NULL not like p` is)
const CMP_FUNCS: Record<string, CompareOperation['op']> = {
  equals: '==',
  notEquals: '!=',
  less: '<',
  lessOrEquals: '<=',
  greater: '>',
  greaterOrEquals: '>=',
  like: 'like',
  ilike: 'ilike',
  notLike: 'not like',
  notILike: 'not ilike',
};

export class Compiler {
  private readonly params = new Params();
  /** Materialized CTEs compiled so far (Dialect.stagesCtes), in the order they must run. */
  private readonly stages: QueryStage[] = [];
  private readonly h: Helpers;
  private depth = 0;
  private aliasCounter = 0;
  /** Names of the CTEs whose bodies are being compiled: a body reading its own name is PostHog's CTE loop. */
  private readonly cteBodies: string[] = [];
  /** Aggregate calls whose arguments are being compiled (innermost last); a nested one is refused, as in HogQL. */
  private aggregates: string[] = [];
  /**
   * The clause of the current SELECT being compiled when it is one that is evaluated per row before grouping (WHERE,
   * PREWHERE, JOIN ON, GROUP BY): aggregations and window functions there are refused with a 400, as ClickHouse does
   * ("Aggregate function count() is found in WHERE"), rather than left to the engine's own wording.
   */
  private rowClause: string | undefined;
  /** The sessions query, compiled once per query (FROM sessions, events.session.*). */
  private sessionsOut?: QueryOut;
  private projectParam = '';

  constructor(
    private readonly dialect: Dialect,
    private readonly opts: CompileOptions,
  ) {
    const self = this;
    this.h = {
      param: (v) => self.params.add(v),
      tz: () => self.params.add(opts.timezone),
      timezone: opts.timezone,
      error: (message, node) => {
        throw productqlError(message, node ?? undefined);
      },
    };
  }

  private err(message: string, node?: NodeBase | null): never {
    throw productqlError(message, node ?? undefined);
  }

  private q(name: string): string {
    if (/[\u0000]/.test(name)) this.err('Identifiers may not contain NUL characters');
    return this.dialect.quoteIdent(name);
  }

  // ------------------------------------------------------------------------------------------ entry point

  compile(query: Query): CompileResult {
    if (!query || (query.node !== 'SelectQuery' && query.node !== 'SelectSetQuery'))
      this.err('Only SELECT queries are allowed', query as NodeBase);
    query = rewriteCasts(query) as Query;
    if (!Number.isSafeInteger(this.opts.projectId)) throw new Error('projectId must be an integer');
    this.projectParam = this.params.add(this.opts.projectId);

    let userLimit = query.limit ? this.intConstant(query.limit, 'LIMIT') : undefined;
    const userOffset = query.offset ? this.intConstant(query.offset, 'OFFSET') : undefined;
    let limitDefaulted = userLimit === undefined && this.opts.limit === undefined;
    let limitedEach = false;
    if (limitDefaulted && userOffset === undefined && this.opts.offset === undefined && query.node === 'SelectSetQuery') {
      // PostHog's HogQLQueryRunner pages single SELECTs only; for a set, execute_hogql_query puts the default LIMIT on
      // each SELECT of it that has none (test_query.py test_hogql_union_all_limits: `SELECT event FROM events LIMIT
      // 100 UNION ALL SELECT event FROM events LIMIT 100`) and reports no hasMore/limit/offset.
      const limited = this.limitEachSelect(query);
      query = limited.query;
      userLimit = Math.min(limited.rows, MAX_LIMIT);
      limitDefaulted = false;
      limitedEach = true;
    }
    let limit = Math.max(0, Math.min(userLimit ?? this.opts.limit ?? DEFAULT_LIMIT, MAX_LIMIT));
    let offset = Math.max(0, Math.min(userOffset ?? this.opts.offset ?? 0, MAX_INNER_LIMIT));
    // `LIMIT n WITH TIES`: the rows ranked within offset + n (see compileSelect) may be more than n; up to MAX_LIMIT
    // of them are returned.
    const ties = query.node === 'SelectQuery' && !!query.limit_with_ties && userLimit !== undefined;
    let fetchLimit = (ties ? MAX_LIMIT : limit) + 1;
    if (!ties && (userLimit !== undefined || userOffset !== undefined) && (this.opts.limit !== undefined || this.opts.offset !== undefined)) {
      // Paging (an endpoint run's limit/offset) of a query with a LIMIT or OFFSET of its own: the page within the
      // query's own rows, fetching one more only while its LIMIT leaves room (hasMore never counts a row past it).
      const pageOffset = Math.max(0, this.opts.offset ?? 0);
      const room = userLimit === undefined ? Infinity : Math.max(0, userLimit - pageOffset);
      limit = Math.max(0, Math.min(this.opts.limit ?? DEFAULT_LIMIT, room, MAX_LIMIT));
      offset = Math.min((userOffset ?? 0) + pageOffset, MAX_INNER_LIMIT);
      fetchLimit = room > limit ? limit + 1 : limit;
    }
    const tail = ` LIMIT ${fetchLimit}${offset ? ` OFFSET ${offset}` : ''}`;

    let out: QueryOut;
    if (query.node === 'SelectQuery') {
      out = this.compileSelect(query, undefined, tail, ties ? offset + limit : undefined);
    } else {
      const inner = this.compileSet({ ...query, limit: null, offset: null }, undefined);
      out = { sql: `SELECT * FROM (${inner.sql}) AS ${this.q('__set')}${tail}`, columns: inner.columns };
    }
    const { sqls, params } = this.params.finalize([...this.stages.map((s) => s.sql), out.sql], this.dialect);
    const stages = this.stages.map((s, i) => ({ table: s.table, sql: sqls[i] }));
    const sql = sqls[sqls.length - 1];
    const effective: Query = limitedEach ? query : { ...query, limit: { node: 'Constant', value: limit } };
    if (offset) effective.offset = { node: 'Constant', value: offset };
    else delete effective.offset;
    return { sql, params, columns: out.columns, limit: ties ? fetchLimit - 1 : limit, fetchLimit, offset, limitDefaulted, query: effective, stages };
  }

  /**
   * `q` with the default LIMIT on each of its SELECTs that has none and every LIMIT clamped to MAX_LIMIT (a
   * parenthesized set with its own LIMIT is one part); `rows`: the most rows it can return.
   */
  private limitEachSelect(q: Query): { query: Query; rows: number } {
    const constant = (value: number): Expr => ({ node: 'Constant', value });
    if (q.node === 'SelectQuery' || q.limit) {
      const n = q.limit ? Math.min(this.intConstant(q.limit, 'LIMIT'), MAX_LIMIT) : DEFAULT_LIMIT;
      return { query: { ...q, limit: constant(n) }, rows: n };
    }
    if (q.node !== 'SelectSetQuery' || !q.initial_select_query || !Array.isArray(q.subsequent_select_queries)) this.err('Malformed set query', q);
    const first = this.limitEachSelect(q.initial_select_query);
    let rows = first.rows;
    const subsequent = q.subsequent_select_queries.map((n) => {
      if (!n || !n.select_query) this.err('Malformed set query', q);
      const part = this.limitEachSelect(n.select_query);
      rows += part.rows;
      return { ...n, select_query: part.query };
    });
    return { query: { ...q, initial_select_query: first.query, subsequent_select_queries: subsequent }, rows };
  }

  private intConstant(e: Expr, what: string): number {
    const v = this.constantValue(e, what);
    const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isFinite(n) || n < 0 || Math.floor(n) !== n)
      this.err(`${what} must be a non-negative integer`, e);
    return Math.min(n, MAX_INNER_LIMIT);
  }

  /**
   * The value of a constant expression: a constant, a placeholder, or arithmetic (+ - * / %, min2 / max2 / least /
   * greatest) of them, as ClickHouse folds `LIMIT 1 + 1` (PostHog prints any expression there).
   */
  private constantValue(e: Expr, what: string): unknown {
    if (e.node === 'Constant') return e.value;
    if (e.node === 'Placeholder') return this.placeholderValue(e.expr, e);
    const operands = e.node === 'ArithmeticOperation' ? [e.left, e.right] : e.node === 'Call' && FOLDED_CALLS.has(e.name) && Array.isArray(e.args) ? e.args : undefined;
    if (!operands || operands.length !== 2) return this.err(`${what} must be a constant integer`, e);
    const [l, r] = operands.map((x) => {
      const v = this.constantValue(x, what);
      const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
      return typeof n === 'number' ? n : this.err(`${what} must be a constant integer`, x);
    });
    const op = e.node === 'ArithmeticOperation' ? e.op : (e as Call).name;
    switch (op) {
      case '+':
      case 'plus':
        return l + r;
      case '-':
      case 'minus':
        return l - r;
      case '*':
      case 'multiply':
        return l * r;
      case '/':
      case 'divide':
        return l / r;
      case '%':
      case 'modulo':
        return l % r;
      case 'min2':
      case 'least':
        return Math.min(l, r);
      default:
        return Math.max(l, r);
    }
  }

  // ------------------------------------------------------------------------------------------ queries

  private compileQuery(q: Query, parent: Scope | undefined): QueryOut {
    this.enter(q);
    // A subquery inside an aggregate's argument aggregates on its own.
    const outerAggregates = this.aggregates;
    const outerClause = this.rowClause;
    this.aggregates = [];
    this.rowClause = undefined;
    try {
      if (q.node === 'SelectQuery') {
        const ties = q.limit_with_ties && q.limit ? this.intConstant(q.limit, 'LIMIT') + (q.offset ? this.intConstant(q.offset, 'OFFSET') : 0) : undefined;
        return this.compileSelect(q, parent, this.innerLimit(q), ties);
      }
      if (q.node === 'SelectSetQuery') {
        const inner = this.compileSet({ ...q, limit: null, offset: null }, parent);
        if (!q.limit && !q.offset) return inner;
        const lim = ` LIMIT ${q.limit ? this.intConstant(q.limit, 'LIMIT') : MAX_INNER_LIMIT}`;
        const off = q.offset ? ` OFFSET ${this.intConstant(q.offset, 'OFFSET')}` : '';
        return { sql: `SELECT * FROM (${inner.sql}) AS ${this.q('__set')}${lim}${off}`, columns: inner.columns };
      }
      return this.err('Only SELECT queries are allowed', q);
    } finally {
      this.aggregates = outerAggregates;
      this.rowClause = outerClause;
      this.depth--;
    }
  }

  private innerLimit(q: SelectQuery): string {
    let s = '';
    // WITH TIES: the rank bound of compileSelect stands for the LIMIT.
    if (q.limit && !q.limit_with_ties) s += ` LIMIT ${this.intConstant(q.limit, 'LIMIT')}`;
    // ClickHouse 18.16 has no OFFSET without a LIMIT: a LIMIT no query reaches stands for none
    else if (q.offset && !q.limit) s += ` LIMIT ${MAX_INNER_LIMIT}`;
    if (q.offset) s += ` OFFSET ${this.intConstant(q.offset, 'OFFSET')}`;
    return s;
  }

  private compileSet(q: SelectSetQuery, parent: Scope | undefined): QueryOut {
    if (!q.initial_select_query || !Array.isArray(q.subsequent_select_queries)) this.err('Malformed set query', q);
    const first = this.compileQuery(q.initial_select_query, parent);
    let sql = `(${first.sql})`;
    for (const n of q.subsequent_select_queries) {
      const op = own<string>(
        { 'UNION ALL': 'UNION ALL', 'UNION DISTINCT': 'UNION', INTERSECT: 'INTERSECT', 'INTERSECT DISTINCT': 'INTERSECT', EXCEPT: 'EXCEPT' },
        String(n.set_operator),
      );
      if (!op) this.err(`Unsupported set operator ${String(n.set_operator)}`, n);
      // ClickHouse 18.16 has only UNION ALL (UNION DISTINCT is written with it below)
      if ((op === 'INTERSECT' || op === 'EXCEPT') && this.dialect.name !== 'duckdb') this.err(`${String(n.set_operator)} is not available on this engine`, n);
      const next = this.compileQuery(n.select_query, parent);
      if (next.columns.length !== first.columns.length)
        this.err(`Each ${n.set_operator} query must have the same number of columns`, n.select_query);
      // Without UNION DISTINCT (ClickHouse 18.16): the distinct rows of everything so far and the next part (set
      // operators apply left to right).
      if (op === 'UNION' && this.dialect.unionAllOnly) sql = `(SELECT DISTINCT * FROM (${sql} UNION ALL (${next.sql})) AS ${this.q(`__union${++this.aliasCounter}`)})`;
      else sql += ` ${op} (${next.sql})`;
    }
    return { sql, columns: first.columns };
  }

  /**
   * `tiesRank`: for `LIMIT n [OFFSET m] WITH TIES`, m + n: the rows ranked within it by the ORDER BY are the first
   * m + n rows and every row tied with the last of them (`rank()`), from which the OFFSET then skips m, as ClickHouse's
   * WITH TIES keeps the rows equal to the n-th after the offset.
   */
  private compileSelect(q: SelectQuery, parent: Scope | undefined, tail: string, tiesRank?: number): QueryOut {
    if (this.dialect.name === 'duckdb') q = groupedArrayJoinAsClause(q);
    const scope = new Scope(parent);
    const withParts: string[] = [];

    for (const c of asList<CTE>(q.ctes)) {
      if (!c || c.node !== 'CTE' || typeof c.name !== 'string') this.err('Malformed CTE', c);
      this.checkUserName(c.name, c);
      if (c.cte_type === 'column') {
        scope.ctes.set(c.name, { kind: 'column', expr: c.expr });
        continue;
      }
      if (!c.expr || (c.expr.node !== 'SelectQuery' && c.expr.node !== 'SelectSetQuery')) this.err('A CTE must be a SELECT query', c);
      const sqlName = `__cte_${c.name}_${++this.aliasCounter}`;
      this.cteBodies.push(c.name);
      let body: QueryOut;
      try {
        body = this.compileQuery(c.expr, scope);
      } finally {
        this.cteBodies.pop();
      }
      const columns = new Map(body.columns.map((col) => [col.name, { type: col.type, nullable: col.nullable, chType: col.chType }]));
      const order = body.columns.map((x) => x.name);
      if (c.materialized && this.dialect.stagesCtes) {
        this.stages.push({ table: sqlName, sql: body.sql });
        scope.ctes.set(c.name, { kind: 'subquery', sqlName, columns, order });
      }
      // Dialects without WITH-subqueries (ClickHouse 18.16) get the body inlined at each reference instead.
      else if (this.dialect.inlineCtes) scope.ctes.set(c.name, { kind: 'subquery', sqlName, columns, order, body: body.sql });
      else {
        scope.ctes.set(c.name, { kind: 'subquery', sqlName, columns, order });
        withParts.push(`${this.q(sqlName)} AS (${body.sql})`);
      }
    }

    if (q.limit_with_ties && !this.dialect.limitWithTies) this.err('LIMIT ... WITH TIES is not available on this engine', q);
    if (!Array.isArray(q.select) || q.select.length === 0) this.err('SELECT needs at least one column', q);

    const from = q.select_from ? this.compileFrom(q.select_from, scope) : undefined;

    for (const e of q.select) {
      if (!e || e.node !== 'Alias') continue;
      // HogQL's resolver (visit_alias): one name, one alias per SELECT.
      if (scope.selectAliases.has(e.alias) && !e.hidden) this.err(`Cannot redefine an alias with the name: ${e.alias}`, e);
      scope.selectAliases.set(e.alias, e.expr);
    }
    scope.selectList = q.select;
    if (q.window_exprs) scope.windows = new Map(Object.entries(q.window_exprs));
    const arrayJoin = q.array_join_op || q.array_join_list?.length ? this.arrayJoin(q, scope) : undefined;

    const columns: OutputColumn[] = [];
    const selectSql: string[] = [];
    // Dialects that refuse two select items with one alias (ClickHouse) get `<name>__dup<n>` for repeats, and at the
    // top level positional names `__c<i>` (there an alias would shadow a same-named column anywhere in the SELECT);
    // callers name result columns from `columns`, and alias references are inlined, so the engine-side name is free.
    const used = new Set<string>();
    const alias = (name: string): string => {
      if (!this.dialect.uniqueSelectNames) return this.q(name);
      if (parent === undefined) {
        const positional = `__c${used.size}`;
        used.add(positional);
        return this.q(positional);
      }
      let n = name;
      for (let i = 2; used.has(n); i++) n = `${name}__dup${i}`;
      used.add(n);
      return this.q(n);
    };
    // Dialects with groupByAlias: a GROUP BY key equal to a select item is printed as that item's alias.
    const selectAliasOf = new Map<string, string>();
    // The expression and engine-side name of each select item, for a dialect's single-column DISTINCT key.
    const items: { sql: string; as: string }[] = [];
    for (const e of q.select) {
      if (e && e.node === 'Field' && e.chain[e.chain.length - 1] === '*') {
        for (const c of this.expandStar(e, scope)) {
          columns.push(c.col);
          const as = alias(c.col.name);
          items.push({ sql: c.sql, as });
          selectSql.push(`${c.sql} AS ${as}`);
        }
        continue;
      }
      const name = e && e.node === 'Alias' ? e.alias : this.columnName(e, parent === undefined);
      // the engine-side name never carries a {value} (values are bound, never spliced, not even into a name)
      const sqlName = e && e.node === 'Alias' ? e.alias : this.columnName(e, false);
      if (e && e.node === 'Alias') this.checkUserName(e.alias, e);
      // Inside its own definition an alias is not itself: `argMax(person_id, version) AS person_id` reads the column.
      const selfAlias = e && e.node === 'Alias' && !scope.inProgress.has(e.alias) ? e.alias : undefined;
      if (selfAlias !== undefined) scope.inProgress.add(selfAlias);
      let p: Printed;
      try {
        p = this.expr(e, scope);
      } finally {
        if (selfAlias !== undefined) scope.inProgress.delete(selfAlias);
      }
      // (an interval is typed by its unit, IntervalDay ..., as ClickHouse types it; its value is then read in that unit)
      // (an integer constant by its value, UInt8 for 1, as ClickHouse types a literal: through a subquery too)
      const chType = p.chType ?? (p.type === 'interval' || (p.type === 'int' && p.isConst) ? typeNameOf(p, this.h.timezone) : undefined);
      columns.push({ name, type: p.type, nullable: p.nullable, ...(chType ? { chType } : {}) });
      const as = alias(sqlName);
      items.push({ sql: p.sql, as });
      selectSql.push(`${p.sql} AS ${as}`);
      if (this.dialect.groupByAlias && !selectAliasOf.has(p.sql)) selectAliasOf.set(p.sql, as);
    }
    if (q.distinct && columns.length === 1 && this.dialect.distinctKey) {
      const col = columns[0];
      const key = this.dialect.distinctKey({ sql: items[0].sql, type: col.type, nullable: col.nullable, ...(col.chType ? { chType: col.chType } : {}) });
      if (key) {
        selectSql[0] = `${key.sql} AS ${items[0].as}`;
        columns[0] = { ...col, type: key.type, chType: key.chType ?? col.chType };
      }
    }

    const wherePrinted = (
      [
        [q.prewhere, 'PREWHERE'],
        [q.where, 'WHERE'],
      ] as const
    )
      .filter((x): x is [Expr, 'PREWHERE' | 'WHERE'] => !!x[0])
      .map(([x, clause]) => this.inRowClause(clause, () => this.expr(x, scope)));
    // Timestamp bounds of the WHERE go to the events table they are on (the FROM clause is printed after this).
    // A condition whose bounds all went to the only table of this SELECT (no join can null-extend its rows) and that
    // the dialect marks as implied by them (`residual`) is printed as that residual only.
    const sole = scope.tables.length === 1 && scope.joinWhere.length === 0;
    const whereSql = wherePrinted.map((p) => {
      let all = !!p.timeBounds?.length;
      for (const b of p.timeBounds ?? []) {
        const t = scope.tables.find((x) => x.virtual?.table === 'events' && this.q(x.sqlAlias) === b.aliasSql);
        // An `IS NULL` bound is true on null-extended rows: it may only go where no outer join can produce them.
        if (t && (sole || b.op !== 'isNull')) (t.needs.timeBounds ??= []).push(b);
        else all = false;
      }
      return all && p.residual !== undefined && sole ? p.residual : this.filterSql(p);
    });
    const where = [...whereSql.filter((w) => w !== '1'), ...scope.joinWhere];
    const keys: string[] = [];
    const groupBy = this.inRowClause('GROUP BY', () => this.groupKeys(q, scope, keys)).map((g) => selectAliasOf.get(g) ?? g);
    const mode = q.group_by_mode ?? null;
    let subtotalKeys: Map<string, string> | undefined;
    if (mode === 'rollup' || mode === 'cube' || mode === 'grouping_sets') {
      if (this.dialect.name !== 'duckdb') this.err(`GROUP BY ${mode === 'grouping_sets' ? 'GROUPING SETS' : mode.toUpperCase()} is not available on this engine`, q);
      // A key left out of a subtotal row reads its type's default ('' , 0), as ClickHouse fills it (group_by_use_nulls
      // is off in PostHog's settings); a Nullable key reads NULL there, which is its default.
      subtotalKeys = new Map();
      items.forEach((item, i) => {
        const col = columns[i];
        if (!keys.includes(item.sql) || col.nullable || subtotalKeys!.has(item.sql)) return;
        const dflt = col.type === 'bool' ? 'false' : aggregateDefault({ sql: item.sql, type: col.type, nullable: false }, (v) => this.h.param(v));
        if (dflt !== undefined) subtotalKeys!.set(item.sql, `CASE WHEN GROUPING(${item.sql}) = 1 THEN ${dflt} ELSE ${item.sql} END`);
      });
      items.forEach((item, i) => {
        const filled = subtotalKeys!.get(item.sql);
        if (filled) selectSql[i] = `${filled} AS ${item.as}`;
      });
      if (mode === 'grouping_sets') {
        // each key is one set's keys, printed by groupKeys as `(a, b)`
        groupBy.splice(0, groupBy.length, `GROUPING SETS (${groupBy.join(', ')})`);
      } else groupBy.splice(0, groupBy.length, `${mode.toUpperCase()} (${groupBy.join(', ')})`);
    }
    const having = q.having ? this.filterSql(this.inRowClause('HAVING', () => this.expr(q.having!, scope), true)) : undefined;
    const qualify = q.qualify ? this.expr(q.qualify, scope).sql : undefined;
    // A constant key (`ORDER BY 'a'`, or an alias of one) orders nothing: left out (DuckDB refuses a bound value there,
    // and would read an integer as a position).
    let orderBy = (q.order_by ?? []).map((o) => this.orderExpr(o, scope, true)).filter((o): o is string => o !== null);
    // ORDER BY reads a subtotal row's keys as its SELECT shows them (the type's default), as in ClickHouse
    if (subtotalKeys?.size) orderBy = orderBy.map((o) => [...subtotalKeys!].reduce((acc, [k, filled]) => acc.split(k).join(filled), o));
    const windows = Object.entries(q.window_exprs ?? {}).map(([name, w]) => `${this.q(name)} AS (${this.windowSpec(w, scope)})`);
    // `LIMIT n [OFFSET m] BY exprs`: at most n rows (after the first m) per distinct value of exprs, in ORDER BY order.
    let limitBy = '';
    let limitByQualify: string | undefined;
    if (q.limit_by) {
      const lb = q.limit_by;
      if (!Array.isArray(lb.exprs) || lb.exprs.length === 0) this.err('LIMIT BY needs at least one expression', lb);
      const n = this.intConstant(lb.n, 'LIMIT BY');
      const off = lb.offset_value ? this.intConstant(lb.offset_value, 'LIMIT BY OFFSET') : 0;
      const by = lb.exprs.map((x) => this.expr(x, scope).sql).join(', ');
      if (this.dialect.nativeLimitBy) {
        if (off) this.err('LIMIT ... OFFSET ... BY is not available on this engine', lb);
        limitBy = ` LIMIT ${n} BY ${by}`;
      } else {
        const rn = `row_number() OVER (PARTITION BY ${by}${orderBy.length ? ` ORDER BY ${orderBy.join(', ')}` : ''})`;
        limitByQualify = off ? `${rn} BETWEEN ${off + 1} AND ${off + n}` : `${rn} <= ${n}`;
      }
    }
    let tiesQualify: string | undefined;
    if (tiesRank !== undefined) {
      if (orderBy.length === 0) this.err('LIMIT ... WITH TIES needs an ORDER BY', q);
      tiesQualify = `rank() OVER (ORDER BY ${orderBy.join(', ')}) <= ${tiesRank}`;
    }
    const qualifyAll = [qualify, limitByQualify, tiesQualify].filter((x): x is string => !!x);

    // Every column of an engine table this SELECT reads is spelled `<alias>.<column>` somewhere in its text outside
    // the guarded references (which are printed last): the dialect may expose only those (TableNeeds.columns).
    const text = [withParts, selectSql, where, groupBy, having ?? '', qualifyAll, orderBy, limitBy, windows, scope.fromTexts, tail].flat().join('\n');
    for (const t of scope.tables) if (t.virtual) t.needs.columns = this.readColumns(t, t.virtual, text);

    // events.session: only the fields read, of the sessions of the events this SELECT keeps, not all of the
    // project's (session-bounds.ts).
    for (const t of scope.tables) {
      if (t.virtual?.table !== 'events' || !t.needs.session) continue;
      const bounds = timestampBounds(q, t.name, scope.tables.length === 1);
      const sessions = sessionsWith(t.needs.session.fields, this.opts);
      t.needs.session.sql = this.compileQuery(bounds ? boundedSessionsQuery(bounds, sessions) : sessions, new Scope(undefined)).sql;
    }
    let sql = withParts.length ? `WITH ${withParts.join(', ')} ` : '';
    sql += `SELECT ${q.distinct ? 'DISTINCT ' : ''}${selectSql.join(', ')}`;
    if (from) sql += ` FROM ${arrayJoin ? arrayJoin(from()) : from()}`;
    if (where.length) sql += ` WHERE ${where.length === 1 ? where[0] : where.map((w) => `(${w})`).join(' AND ')}`;
    if (groupBy.length) sql += ` GROUP BY ${groupBy.join(', ')}`;
    if (having) sql += ` HAVING ${having}`;
    if (windows.length) sql += ` WINDOW ${windows.join(', ')}`;
    if (qualifyAll.length) sql += ` QUALIFY ${qualifyAll.length === 1 ? qualifyAll[0] : qualifyAll.map((x) => `(${x})`).join(' AND ')}`;
    if (orderBy.length) sql += ` ORDER BY ${orderBy.join(', ')}`;
    sql += limitBy;
    sql += tail;
    return { sql, columns };
  }

  /**
   * The stored columns of `vt` that `text` names through `t`'s alias: its plain and JSON columns, and `person_id`
   * (the stored id, which lazy person columns and their null tests read). A superset of what is read: a nested query
   * with a table of the same alias adds its own columns, which only costs the narrower reference.
   */
  private readColumns(t: TableSource, vt: VirtualTable, text: string): ReadonlySet<string> {
    const a = `${this.q(t.sqlAlias)}.`;
    const names = new Set<string>(['person_id']);
    for (const def of Object.values(vt.fields)) if (def.kind === 'column' || def.kind === 'json') names.add(def.column);
    return new Set([...names].filter((n) => text.includes(a + this.q(n))));
  }

  /** A condition in a filter position (WHERE, HAVING, ON), where NULL means false. */
  private filterSql(p: Printed): string {
    return p.filterSql ?? p.sql;
  }

  /** User-chosen names that could collide with the printer's own (`__...`) are refused. */
  private checkUserName(name: string, node: NodeBase): void {
    if (typeof name !== 'string' || name.length === 0) this.err('Empty name', node);
    // PostHog's escape_hogql_identifier / escape_clickhouse_identifier (posthog/hogql/escape_sql.py) refuse it
    if (name.includes('%')) this.err(`The HogQL identifier "${name}" is not permitted as it contains the "%" character`, node);
    if (name.startsWith('__')) this.err(`Names starting with "__" are reserved: ${name}`, node);
    if (/[\u0000]/.test(name)) this.err('Names may not contain NUL characters', node);
  }

  /**
   * An unaliased column's name: PostHog's hogql-dialect print (`plus(1, 2)` for `1 + 2`); `withValues`: with the
   * `{name}` / `{variables.name}` values in place, as PostHog names result columns (placeholders are constants there).
   */
  private columnName(e: Expr, withValues: boolean): string {
    if (e && e.node === 'Field') return String(e.chain[e.chain.length - 1]);
    return displayHogQLExpr(e, withValues ? placeholderValuesOf(this.opts.values, this.opts.variables) : undefined);
  }

  /**
   * Compiles `fn` as the row clause `clause` of the current SELECT (see rowClause); `windowsOnly`: aggregations are
   * allowed there (HAVING), window functions are not.
   */
  private inRowClause<T>(clause: string, fn: () => T, windowsOnly = false): T {
    const outer = this.rowClause;
    this.rowClause = windowsOnly ? `~${clause}` : clause;
    try {
      return fn();
    } finally {
      this.rowClause = outer;
    }
  }

  /**
   * The GROUP BY keys of `q`: its expressions; for `GROUP BY ALL` the select items without an aggregation or window
   * function (ClickHouse's rule), by position; for `GROUPING SETS` each set as `(a, b)`.
   */
  /** The printed GROUP BY keys (a grouping set as `(a, b)`); `flat` collects each single key expression. */
  private groupKeys(q: SelectQuery, scope: Scope, flat: string[] = []): string[] {
    if (q.group_by_mode === 'all') {
      if (q.select.some(isStarField)) this.err('GROUP BY ALL cannot be used with *: name the columns', q);
      const positions = q.select.flatMap((e, i) => (containsAggregate(e && e.node === 'Alias' ? e.expr : e) ? [] : [i + 1]));
      return positions.map((i) => this.positionalOrExpr({ node: 'Constant', value: i }, scope, true));
    }
    return (q.group_by ?? []).map((x) => {
      if (x && (x as { node: string }).node === 'GroupingSet') {
        const exprs = (x as unknown as { exprs?: Expr[] }).exprs ?? [];
        const set = exprs.map((e) => this.positionalOrExpr(e, scope, true));
        flat.push(...set);
        return `(${set.join(', ')})`;
      }
      const key = this.positionalOrExpr(x, scope, true);
      flat.push(key);
      return key;
    });
  }

  private positionalOrExpr(e: Expr, scope: Scope, groupKey = false): string {
    // `GROUP BY 1` / `ORDER BY 2` are positional, as in ClickHouse; a validated integer is printed as is.
    if (e.node === 'Constant' && typeof e.value === 'number' && Number.isSafeInteger(e.value) && e.value > 0) {
      if (!this.dialect.positionalAsExpression || !scope.selectList) return String(e.value);
      // Engines without positional GROUP BY/ORDER BY (ClickHouse 18.16 would group by the constant) get the item.
      const item = scope.selectList[e.value - 1];
      if (!item) this.err(`Position ${e.value} is not in the select list`, e);
      if (item.node === 'Field' && item.chain[item.chain.length - 1] === '*') this.err('Positions cannot refer to *', e);
      return this.expr(item.node === 'Alias' ? item.expr : item, scope).sql;
    }
    const p = this.expr(e, scope);
    return (groupKey && p.groupSql) || p.sql;
  }

  /** One ORDER BY key; null for a constant key of a query's ORDER BY (`positional`), which orders nothing. */
  private orderExpr(o: OrderExpr, scope: Scope, positional: true): string | null;
  private orderExpr(o: OrderExpr, scope: Scope, positional: false): string;
  private orderExpr(o: OrderExpr, scope: Scope, positional: boolean): string | null {
    if (!o || o.node !== 'OrderExpr') this.err('Malformed ORDER BY', o);
    // ClickHouse inserts the missing rows; ignoring the clause would answer without them (and 18.16 has no WITH FILL).
    if (o.with_fill) this.err('ORDER BY ... WITH FILL is not supported', o);
    let s: string;
    if (positional) {
      const e = o.expr;
      if (e?.node === 'Constant' && typeof e.value === 'number') s = this.positionalOrExpr(e, scope);
      else {
        // (DuckDB refuses a bound value here, and would read an integer an alias stands for as a position.)
        const p = this.expr(e, scope);
        if (p.isConst) return null;
        s = p.sql;
      }
    } else s = this.expr(o.expr, scope).sql;
    return `${s} ${o.order === 'DESC' ? 'DESC' : 'ASC'}`;
  }

  // ------------------------------------------------------------------------------------------ FROM

  /** Registers tables in scope; returns a thunk printing the FROM clause once lazy-join needs are known. */
  private compileFrom(j: JoinExpr, scope: Scope): () => string {
    const pieces: (() => string)[] = [];
    let cur: JoinExpr | null | undefined = j;
    let first = true;
    while (cur) {
      if (cur.node !== 'JoinExpr') this.err('Malformed FROM clause', cur);
      const item: JoinExpr = cur;
      let joinKw = '';
      if (!first) {
        const raw = String(item.join_type ?? 'JOIN')
          .toUpperCase()
          .replace(/\bGLOBAL\b|\bALL\b/g, '')
          .replace(/\s+/g, ' ')
          .trim();
        joinKw = own(JOIN_TYPES, raw) ?? '';
        if (!joinKw) this.err(`Unsupported join type: ${String(item.join_type)}`, item);
        // (ClickHouse 18.16 has neither ASOF nor SEMI / ANTI joins: a clear 400 rather than its syntax error)
        if ((joinKw.startsWith('ASOF') || joinKw === 'SEMI JOIN' || joinKw === 'ANTI JOIN') && this.dialect.name !== 'duckdb')
          this.err(`${joinKw === 'SEMI JOIN' || joinKw === 'ANTI JOIN' ? `LEFT ${joinKw}` : joinKw} is not available on this engine`, item);
      }
      const table = this.tableSource(item, scope, !first);
      if (item.sample) this.sample(item, scope, !first);
      const tableSql = table;
      let constraint: (() => string) | undefined;
      if (item.constraint) {
        if (first) this.err('The first table cannot have a join constraint', item);
        const using = item.constraint.constraint_type === 'USING';
        if (!using && item.constraint.constraint_type !== 'ON') this.err(`Unsupported join constraint ${String(item.constraint.constraint_type)}`, item.constraint);
        if (joinKw === 'CROSS JOIN') this.err('CROSS JOIN cannot have a join constraint', item.constraint);
        const onPrinted = this.inRowClause('JOIN ON', () => this.expr(using ? this.usingAsOn(item.constraint!, scope, joinKw) : item.constraint!.expr, scope));
        if (this.dialect.crossJoinNonEqui && !onPrinted.joinSql && joinKw === 'JOIN') {
          // An inner join on a condition without equalities is the filtered cross product: the engine needs that form.
          joinKw = 'CROSS JOIN';
          scope.joinWhere.push(this.filterSql(onPrinted));
        } else {
          const on = onPrinted.joinSql ?? this.filterSql(onPrinted);
          scope.fromTexts.push(on);
          constraint = () => ` ON ${on}`;
        }
      } else if (!first && joinKw !== 'CROSS JOIN') {
        this.err(`${joinKw} needs an ON constraint`, item);
      }
      const kw = joinKw;
      const isFirst = first;
      pieces.push(() => `${isFirst ? '' : ` ${kw} `}${tableSql()}${constraint ? constraint() : ''}`);
      first = false;
      cur = item.next_join;
    }
    return () => pieces.map((p) => p()).join('');
  }

  /**
   * `JOIN t USING (a, b)` as `ON l.a = t.a AND l.b = t.b`, `l` being the one earlier table of the FROM clause with that
   * column. After an inner or left join an unqualified `a` reads `l.a` (ClickHouse's merged column); after a right or
   * full join it stays ambiguous (qualify it).
   */
  private usingAsOn(c: JoinConstraint, scope: Scope, joinKw: string): Expr {
    const right = scope.tables[scope.tables.length - 1];
    const cols = c.expr?.node === 'Tuple' ? c.expr.exprs : [c.expr];
    const parts = cols.map((x): Expr => {
      if (!x || x.node !== 'Field' || x.chain.length !== 1 || typeof x.chain[0] !== 'string') return this.err('USING takes column names: USING (a, b)', x ?? c);
      const col = x.chain[0];
      if (!this.tableHasField(right, col)) this.err(`Unknown field "${col}" on ${right.name}`, x);
      const left = scope.tables.slice(0, -1).filter((t) => this.tableHasField(t, col) && !t.usingHidden?.has(col));
      if (left.length !== 1)
        this.err(left.length ? `USING column "${col}" is ambiguous: it exists in ${left.map((t) => t.name).join(' and ')}` : `USING column "${col}" is on no table before ${right.name}`, x);
      if (joinKw !== 'RIGHT JOIN' && joinKw !== 'FULL JOIN') (right.usingHidden ??= new Set()).add(col);
      return { node: 'CompareOperation', op: '==', left: { node: 'Field', chain: [left[0].name, col] }, right: { node: 'Field', chain: [right.name, col] }, start: x.start, end: x.end };
    });
    return parts.length === 1 ? parts[0] : { node: 'And', exprs: parts, start: c.start, end: c.end };
  }

  /**
   * Dialects with renameJoinedColumns: the columns of a joined (not first) subquery or CTE get unique names
   * (`__j<n>_<name>`) through a wrapping SELECT, and references to them use those names. ClickHouse 18.16 renames a
   * right-hand column named like a left-hand one to `<alias>.<name>` and then fails on it ("No such name in
   * Block::erase()"). Only the columns the query reads go through (the FROM text is printed last, once they are
   * known): ClickHouse 18.16 cannot make an Array column Nullable for a LEFT JOIN (join_use_nulls: "Nested type
   * Array(String) cannot be inside Nullable type"), so an unread one, as the sessions table's `$urls`, failed the query.
   * Returns the FROM text for `body AS alias` (a thunk) and, for the column scan of the SELECT's text, all of it.
   */
  private joinedSource(src: TableSource, body: string, joined: boolean): { from: () => string; text: string } {
    const order = src.columnOrder ?? [];
    if (!joined || !this.dialect.renameJoinedColumns || order.length === 0 || new Set(order).size !== order.length) {
      const text = `${body} AS ${this.q(src.sqlAlias)}`;
      return { from: () => text, text };
    }
    const n = ++this.aliasCounter;
    const names = new Map(order.map((c) => [c, `__j${n}_${c}`]));
    src.columnSql = names;
    const read = new Set<string>();
    src.readColumns = read;
    const print = (cols: string[]) => `(SELECT ${cols.map((c) => `${this.q(c)} AS ${this.q(names.get(c)!)}`).join(', ')} FROM ${body}) AS ${this.q(src.sqlAlias)}`;
    return {
      from: () => {
        const cols = order.filter((c) => read.has(c));
        return print(cols.length ? cols : order.slice(0, 1));
      },
      text: print(order),
    };
  }

  /** Registers a compiled subquery (a FROM subquery, or the sessions table) as table `name`; returns its FROM text thunk. */
  private subquerySource(sub: QueryOut, name: string, scope: Scope, item: JoinExpr, joined: boolean, isTable = false): () => string {
    const src: TableSource = {
      ...(isTable ? { isTable } : {}),
      name,
      sqlAlias: name,
      columns: new Map(sub.columns.map((c) => [c.name, { type: c.type, nullable: c.nullable, chType: c.chType }])),
      columnOrder: sub.columns.map((c) => c.name),
      needs: { personId: false, personFields: [] },
    };
    this.addTable(scope, src, item);
    const { from, text } = this.joinedSource(src, `(${sub.sql})`, joined);
    scope.fromTexts.push(text);
    return from;
  }

  private tableSource(item: JoinExpr, scope: Scope, joined = false): () => string {
    const t = item.table;
    if (item.alias !== undefined && item.alias !== null) this.checkUserName(item.alias, item);
    if (Array.isArray(item.table_args)) return this.tableFunction(item, scope, joined);
    if (t && (t.node === 'SelectQuery' || t.node === 'SelectSetQuery')) {
      return this.subquerySource(this.compileQuery(t, scope), item.alias ?? `__sub${++this.aliasCounter}`, scope, item, joined);
    }
    const tag: unknown = t;
    if (isHogQLXTag(tag)) this.err(`A HogQLX tag (<${tag.kind} />) cannot be used as a table: name a table or write a subquery`, item);
    if (!t || t.node !== 'Field') this.err('Expected a table name or subquery', item);
    const chain = t.chain.map(String);
    const tname = chain.join('.');
    if (chain.length === 1) {
      const cte = scope.findCte(chain[0]);
      if (cte && cte.kind === 'subquery') {
        const src: TableSource = {
          name: item.alias ?? chain[0],
          sqlAlias: item.alias ?? chain[0],
          columns: cte.columns,
          columnOrder: cte.order,
          needs: { personId: false, personFields: [] },
        };
        this.addTable(scope, src, item);
        const { from, text } = this.joinedSource(src, cte.body !== undefined ? `(${cte.body})` : this.q(cte.sqlName), joined);
        scope.fromTexts.push(text);
        return from;
      }
      const vt = Object.prototype.hasOwnProperty.call(VIRTUAL_TABLES, chain[0]) ? VIRTUAL_TABLES[chain[0]] : undefined;
      if (vt) {
        const name = item.alias ?? chain[0];
        const src: TableSource = { name, sqlAlias: name, virtual: vt, needs: { personId: false, personFields: [] } };
        this.addTable(scope, src, item);
        return () =>
          this.dialect.guardedTable(vt.table, src.sqlAlias, this.projectParam, {
            ...src.needs,
            ...(this.opts.personOverrides === false ? { personOverrides: false } : {}),
            ...(this.opts.personless ? { personless: true } : {}),
          });
      }
    }
    if (chain.length === 1 && chain[0] === 'sessions') {
      return this.subquerySource(this.sessions(), item.alias ?? 'sessions', scope, item, joined, true);
    }
    // PostHog expands a CTE at each reference, so one reading itself expands until its limit of 50
    if (chain.length === 1 && this.cteBodies.includes(chain[0])) return this.err('Too many CTE expansions (50+). Probably a CTE loop.', t);
    return this.err(`Unknown table "${tname}". Available tables: ${[...Object.keys(VIRTUAL_TABLES), 'sessions'].join(', ')}`, t);
  }

  /**
   * The table function `numbers(count)` / `numbers(offset, count)` (HogQL's only one): column `number` (UInt64) from
   * offset to offset + count - 1. Arguments are constant non-negative integers; more than MAX_NUMBERS_ROWS rows is a
   * 400 before anything runs. It reads no project data, so it needs no guard.
   */
  private tableFunction(item: JoinExpr, scope: Scope, joined: boolean): () => string {
    const t = item.table;
    const name = t?.node === 'Field' && t.chain.length === 1 ? String(t.chain[0]) : '';
    if (name.toLowerCase() !== 'numbers') this.err(`Unknown table function "${name || '?'}". Available: numbers`, item);
    const args = item.table_args ?? [];
    if (args.length < 1 || args.length > 2) this.err('numbers() takes 1 or 2 arguments: numbers(count) or numbers(offset, count)', item);
    const offset = args.length === 2 ? this.intConstant(args[0], 'numbers() offset') : 0;
    const count = this.intConstant(args[args.length - 1], 'numbers() count');
    if (count > MAX_NUMBERS_ROWS) this.err(`numbers() returns at most ${MAX_NUMBERS_ROWS.toLocaleString('en-US')} rows, got ${count}`, args[args.length - 1]);
    const sub: QueryOut = { sql: this.dialect.numbersTable(offset, count), columns: [{ name: 'number', type: 'int', nullable: false, chType: 'UInt64' }] };
    return this.subquerySource(sub, item.alias ?? name, scope, item, joined, true);
  }

  /**
   * `SAMPLE ratio [OFFSET offset]` (ratios as `0.1` or `1/10`) on the events table just added: rows whose
   * `distinct_id` hashes into [offset, offset + ratio) of the hash range (PostHog samples events by a hash of the
   * distinct id), as a condition of this SELECT. `SAMPLE 1` and `SAMPLE n` with n > 1 (ClickHouse: "at least n rows")
   * keep every row.
   */
  private sample(item: JoinExpr, scope: Scope, joined: boolean): void {
    const s = item.sample as { node?: unknown; sample_value?: unknown; offset_value?: unknown } | null;
    if (!s || s.node !== 'SampleExpr') this.err('Malformed SAMPLE clause', item);
    const src = scope.tables[scope.tables.length - 1];
    if (src?.virtual?.table !== 'events') this.err('SAMPLE is only available on the events table', item);
    const ratio = this.ratio(s.sample_value, 'SAMPLE', item);
    const offset = s.offset_value ? this.ratio(s.offset_value, 'SAMPLE OFFSET', item) : 0;
    if (ratio <= 0) this.err('SAMPLE must be greater than 0', item);
    if (ratio > 1 || (ratio === 1 && offset === 0)) return;
    if (offset >= 1) this.err('SAMPLE OFFSET must be a fraction from 0 to 1, such as 1/2', item);
    const d = this.tableField(src, ['distinct_id'], item).sql;
    const cond = this.dialect.sampleCondition(d, ratio, offset);
    // (the null-extended rows of an outer-joined sampled table stay)
    scope.joinWhere.push(joined ? `(${d} IS NULL OR ${cond})` : cond);
  }

  private ratio(x: unknown, what: string, node: NodeBase): number {
    const r = x as { node?: unknown; left?: Expr | null; right?: Expr | null } | null;
    const num = (e: Expr | null | undefined): number => {
      if (!e || e.node !== 'Constant' || typeof e.value !== 'number' || !Number.isFinite(e.value) || e.value < 0)
        return this.err(`${what} takes a non-negative number or a ratio such as 1/10`, node);
      return e.value;
    };
    if (!r || r.node !== 'RatioExpr') return this.err(`${what} takes a non-negative number or a ratio such as 1/10`, node);
    const left = num(r.left);
    if (!r.right) return left;
    const right = num(r.right);
    if (right === 0) this.err(`${what}: division by zero`, node);
    return left / right;
  }

  /**
   * `[LEFT] ARRAY JOIN arr AS a, ...`: every row of the FROM clause once per element of its arrays (zipped), the
   * element readable as `a`. Each array needs an alias (as in HogQL). Returns the FROM text wrapper.
   */
  private arrayJoin(q: SelectQuery, scope: Scope): (from: string) => string {
    const op = String(q.array_join_op ?? 'ARRAY JOIN').toUpperCase();
    if (op !== 'ARRAY JOIN' && op !== 'LEFT ARRAY JOIN' && op !== 'INNER ARRAY JOIN') this.err(`Unsupported ARRAY JOIN operation: ${op}`, q);
    const list = q.array_join_list ?? [];
    if (!Array.isArray(list) || list.length === 0) this.err('ARRAY JOIN needs at least one array', q);
    if (!q.select_from) this.err('ARRAY JOIN needs a FROM clause', q);
    const id = ++this.aliasCounter;
    const names = new Set<string>();
    const items = list.map((e) => {
      if (!e || e.node !== 'Alias') return this.err('ARRAY JOIN arrays must have an alias', e ?? q);
      this.checkUserName(e.alias, e);
      if (names.has(e.alias)) this.err(`ARRAY JOIN alias "${e.alias}" is used twice`, e);
      names.add(e.alias);
      const p = this.expr(e.expr, scope);
      if (p.type !== 'array' && p.type !== 'unknown') this.err(`ARRAY JOIN needs an array, got a ${p.type} value`, e.expr);
      scope.fromTexts.push(p.sql);
      return { name: e.alias, sql: p.sql, typing: arrayElementTyping(p) };
    });
    const tables = scope.tables.map((t) => this.q(t.sqlAlias));
    const src: TableSource = {
      name: `__aj${id}`,
      sqlAlias: `__aj${id}`,
      columns: new Map(items.map((i) => [i.name, { type: 'unknown' as PType, nullable: true, ...i.typing }])),
      columnRef: new Map(items.map((i) => [i.name, this.dialect.arrayJoinRef(id, i.name)])),
      needs: { personId: false, personFields: [] },
    };
    this.addTable(scope, src, q);
    return (from) => this.dialect.arrayJoinFrom(from, tables, items, op === 'LEFT ARRAY JOIN', id);
  }

  /**
   * The sessions table (schema.ts SESSIONS_QUERY), compiled in a scope of its own: a query's CTE named `events` does
   * not reach it, and its events reference is guarded like every other.
   */
  private sessions(): QueryOut {
    const modified = this.opts.bounceRateDurationSeconds !== undefined || !!this.opts.customChannelTypeRules?.length;
    return (this.sessionsOut ??= this.compileQuery(modified ? sessionsWith(Object.keys(SESSION_FIELDS), this.opts) : SESSIONS_QUERY, new Scope(undefined)));
  }

  private addTable(scope: Scope, src: TableSource, node: NodeBase): void {
    // PostHog's resolver (visit_join_expr), word for word
    if (scope.tables.some((t) => t.name === src.name)) this.err(`Already have joined a table called "${src.name}". Can't redefine.`, node);
    scope.tables.push(src);
  }

  private expandStar(f: Field, scope: Scope): { sql: string; col: OutputColumn }[] {
    const chain = f.chain.map(String);
    let tables: TableSource[];
    // `session.*` / `events.session.*`: every field of the event's lazily joined sessions row (PostHog's
    // test_sessions_v2 test_select_event_sessions_star), named as the fields.
    const lazy = chain.length === 2 && !scope.tables.some((x) => x.name === chain[0]) ? scope.tables.filter((x) => this.tableHasField(x, chain[0])) : [];
    const owner = chain.length === 3 ? scope.tables.find((x) => x.name === chain[0]) : lazy.length === 1 ? lazy[0] : undefined;
    const via = chain[chain.length - 2];
    if (owner?.virtual && chain.length > 1 && Object.prototype.hasOwnProperty.call(owner.virtual.fields, via) && owner.virtual.fields[via].kind === 'session')
      return Object.keys(SESSION_FIELDS).map((n) => {
        const p = this.tableField(owner, [via, n], f);
        return { sql: p.sql, col: { name: n, type: p.type, nullable: p.nullable, ...(p.chType ? { chType: p.chType } : {}) } };
      });
    // (ARRAY JOIN aliases are no table of the query: PostHog's scope keeps them as aliases)
    if (chain.length === 1) tables = scope.tables.filter((t) => !t.columnRef);
    else if (chain.length === 2) {
      const t = scope.tables.find((x) => x.name === chain[0]);
      if (!t) this.err(`Unknown table "${chain[0]}"`, f);
      tables = [t];
    } else return this.err('Invalid use of *', f);
    // PostHog's resolver (visit_field), word for word
    if (tables.length === 0) this.err("Cannot use '*' when there are no tables in the query", f);
    if (tables.length > 1) this.err("Cannot use '*' without table name when there are multiple tables in the query", f);
    const out: { sql: string; col: OutputColumn }[] = [];
    for (const t of tables) {
      const names = t.virtual ? t.virtual.star : (t.columnOrder ?? []);
      for (const n of names) {
        const p = this.tableField(t, [n], f);
        out.push({ sql: p.sql, col: { name: n, type: p.type, nullable: p.nullable, ...(p.chType ? { chType: p.chType } : {}) } });
      }
    }
    return out;
  }

  // ------------------------------------------------------------------------------------------ fields

  private resolveField(f: Field, scope: Scope): Printed {
    if (!Array.isArray(f.chain) || f.chain.length === 0) this.err('Malformed field', f);
    const chain = f.chain.map(String);
    if (chain.includes('*')) this.err('* is only allowed in the select list', f);
    const head = chain[0];
    let selectScopeSeen = false;
    for (let s: Scope | undefined = scope; s; s = s.parent) {
      const lambdaArg = s.lambdaArgs.get(head);
      if (lambdaArg !== undefined) {
        if (chain.length > 1) this.err(`Cannot access "${chain.slice(1).join('.')}" on lambda argument ${head}`, f);
        return { sql: lambdaArg, type: 'unknown', nullable: true };
      }
      if (s.isLambda) continue;
      // Past the field's own SELECT only column CTEs are visible: as in HogQL's resolver, a subquery cannot read the
      // tables or aliases of the query around it (no correlated subqueries: "Unable to resolve field").
      const outer = selectScopeSeen;
      if (outer) {
        const outerCte = s.ctes.get(head);
        if (!(outerCte && outerCte.kind === 'column' && chain.length === 1)) continue;
      }
      if (chain.length > 1) {
        const t = s.tables.find((x) => x.name === head);
        if (t) return this.tableField(t, chain.slice(1), f);
      }
      if (!selectScopeSeen) {
        selectScopeSeen = true;
        const aliased = s.selectAliases.get(head);
        if (aliased && !s.inProgress.has(head)) {
          s.inProgress.add(head);
          try {
            const p = this.expr(aliased, s);
            if (chain.length === 1) return p;
            if (p.json || p.type === 'json' || p.type === 'string') return this.extendJson(p, chain.slice(1), f);
            return this.err(`Cannot access "${chain.slice(1).join('.')}" on ${head}`, f);
          } finally {
            s.inProgress.delete(head);
          }
        }
      }
      // A field of the SELECT's own tables comes before a column CTE of the same name (HogQL's visit_field: the scope's
      // fields, then CTEs).
      const candidates = outer ? [] : s.tables.filter((t) => this.tableHasField(t, head) && !t.usingHidden?.has(head));
      if (candidates.length > 1)
        // HogQL's resolver (lookup_field_by_name) words it so; the tables are named after it.
        this.err(`Ambiguous query. Found multiple sources for field: ${head} (in ${candidates.map((t) => t.name).join(' and ')})`, f);
      if (candidates.length === 1) return this.tableField(candidates[0], chain, f);
      const cte = s.ctes.get(head);
      if (cte && cte.kind === 'column' && chain.length === 1 && !s.inProgress.has(`cte:${head}`)) {
        s.inProgress.add(`cte:${head}`);
        try {
          return this.expr(cte.expr, s);
        } finally {
          s.inProgress.delete(`cte:${head}`);
        }
      }
    }
    // HogQL's resolver words it so, naming the first name of the chain (the one nothing defines).
    return this.err(`Unable to resolve field: ${head}`, f);
  }

  private tableHasField(t: TableSource, name: string): boolean {
    if (t.virtual) return Object.prototype.hasOwnProperty.call(t.virtual.fields, name);
    return !!t.columns?.has(name);
  }

  /** A lazy join (person, pdi, session, group_0, ...) read as a value: PostHog's printer visit_field refuses it, naming the chain as written. */
  private tableAsValue(node: NodeBase, name: string): never {
    const chain = (node as Partial<Field>).chain;
    return this.err(`Can't select a table when a column is expected: ${Array.isArray(chain) ? chain.map(String).join('.') : name}`, node);
  }

  private tableField(t: TableSource, rest: string[], node: NodeBase): Printed {
    const a = this.q(t.sqlAlias);
    const name = rest[0];
    if (!t.virtual) {
      const c = t.columns?.get(name);
      // PostHog's SelectQueryAliasType.get_child for a subquery or a CTE under its alias, BaseTableType's for a table
      if (!c) this.err(t.isTable ? `Field not found: ${name}` : `Field ${name} not found on query with alias ${t.name}`, node);
      t.readColumns?.add(name);
      const p: Printed = { sql: t.columnRef?.get(name) ?? `${a}.${this.q(t.columnSql?.get(name) ?? name)}`, type: c.type, nullable: c.nullable, ...(c.chType ? { chType: c.chType } : {}), ...(isWholeSecondsType(c) ? { wholeSeconds: true } : {}), ...intervalTyping(c) };
      return rest.length === 1 ? p : this.extendJson(p, rest.slice(1), node);
    }
    const def = Object.prototype.hasOwnProperty.call(t.virtual.fields, name) ? t.virtual.fields[name] : undefined;
    // PostHog's BaseTableType.get_child (posthog/hogql/ast.py): "Field not found: x", for every table and lazy table
    if (!def) this.err(`Field not found: ${name}`, node);
    switch (def.kind) {
      case 'column': {
        const sql = `${a}.${this.q(def.column)}`;
        const seconds = this.dialect.storedSeconds?.(t.virtual.table, def.column, t.sqlAlias);
        const p: Printed = { sql, type: def.type, nullable: def.nullable, ...(seconds ? { seconds: { of: sql, sql: seconds } } : {}) };
        if (rest.length > 1) this.err(`Cannot access "${rest.slice(1).join('.')}" on ${name}`, node);
        return def.orEmpty ? this.orEmpty({ ...p, nullable: true }, node) : p;
      }
      case 'expr': {
        if (rest.length > 1) this.err(`Cannot access "${rest.slice(1).join('.')}" on ${name}`, node);
        // Only the table's own fields are visible to the definition, whatever the query around it names.
        const tableScope = new Scope(undefined);
        tableScope.tables.push(t);
        return this.expr(def.expr, tableScope);
      }
      case 'json': {
        const base = `${a}.${this.q(def.column)}`;
        // As a value, JSON columns are text: set operations and CASE then mix them with strings without casts.
        if (rest.length === 1) return { sql: this.dialect.jsonAsText(base), type: 'json', nullable: false, json: { base, keys: [] } };
        return this.dialect.jsonProperty(base, rest.slice(1), this.h);
      }
      case 'person_id':
        if (rest.length > 1) this.err(`Cannot access "${rest.slice(1).join('.')}" on person_id`, node);
        t.needs.personId = true;
        {
          const sql = this.dialect.lazyColumn(t.sqlAlias, 'person_id');
          // (with personless events a stored NULL may resolve through the distinct id: test the resolved id)
          const test = this.opts.personless ? undefined : this.dialect.lazyPersonIdNullTest?.(t.sqlAlias);
          return { sql, type: 'uuid', nullable: true, ...(test ? { nullTest: { of: sql, sql: test } } : {}) };
        }
      case 'person': {
        if (rest.length === 1) this.tableAsValue(node, name);
        // poe.id is the event's person id itself (see schema.ts), set even when no persons row exists.
        if (def.poe && rest[1] === 'id') return this.tableField(t, ['person_id', ...rest.slice(2)], node);
        return this.lazyPersonField(t, rest.slice(1), t.needs.personFields, 'person', `${name}.`, node);
      }
      case 'pdi': {
        if (rest.length === 1) this.tableAsValue(node, name);
        const pf = rest[1];
        if (t.virtual.table === 'persons') {
          // persons.pdi: the person's own distinct ids (schema.ts)
          const own = pf === 'distinct_id' || pf === 'person_id' ? pf : undefined;
          if (!own) return this.err(`Field not found: ${pf}`, node);
          if (rest.length > 2) this.err(`Cannot access "${rest.slice(2).join('.')}" on pdi.${pf}`, node);
          const fields = (t.needs.pdiFields ??= []);
          if (!fields.includes(own)) fields.push(own);
          return { sql: this.dialect.lazyColumn(t.sqlAlias, `pdi_${own}`), type: own === 'person_id' ? 'uuid' : 'string', nullable: false };
        }
        if (pf === 'person') {
          if (rest.length === 2) this.tableAsValue(node, 'pdi.person');
          return this.lazyPersonField(t, rest.slice(2), (t.needs.pdiPersonFields ??= []), 'pdiperson', 'pdi.person.', node);
        }
        const pdef = own(VIRTUAL_TABLES.person_distinct_ids.fields, pf);
        if (!pdef || pdef.kind !== 'column') return this.err(`Field not found: ${pf}`, node);
        if (rest.length > 2) this.err(`Cannot access "${rest.slice(2).join('.')}" on pdi.${pf}`, node);
        const fields = (t.needs.pdiFields ??= []);
        if (!fields.includes(pdef.column)) fields.push(pdef.column);
        return { sql: this.dialect.lazyColumn(t.sqlAlias, `pdi_${pdef.column}`), type: pdef.type, nullable: true };
      }
      case 'session': {
        if (rest.length === 1) this.tableAsValue(node, name);
        const sf = rest[1];
        const col = own(SESSION_FIELDS, sf) ? this.sessions().columns.find((c) => c.name === sf) : undefined;
        if (!col) return this.err(`Field not found: ${sf}`, node);
        if (rest.length > 2) this.err(`Cannot access "${rest.slice(2).join('.')}" on session.${sf}`, node);
        const needs = (t.needs.session ??= { sql: this.sessions().sql, fields: [] });
        if (!needs.fields.includes(sf)) needs.fields.push(sf);
        // A row without a session (no `$session_id`, or another project's) reads NULL.
        return { sql: this.dialect.lazyColumn(t.sqlAlias, `session_${sf}`), type: col.type, nullable: true, ...(col.chType ? { chType: col.chType } : {}) };
      }
      case 'group_key':
        if (rest.length > 1) this.err(`Cannot access "${rest.slice(1).join('.')}" on ${name}`, node);
        return this.groupKey(`${a}.${this.q('properties')}`, def.index, node);
      case 'group': {
        if (rest.length === 1) this.tableAsValue(node, name);
        const gf = rest[1];
        const gdef = own(GROUPS.fields, gf);
        if (!gdef || (gdef.kind !== 'column' && gdef.kind !== 'json'))
          return this.err(`Field not found: ${gf}`, node);
        const groups = (t.needs.groups ??= []);
        let entry = groups.find((g) => g.index === def.index);
        if (!entry) {
          const index = def.index;
          entry = { index, fields: [], key: (properties: string) => this.groupKey(properties, index, node).sql };
          groups.push(entry);
        }
        if (!entry.fields.includes(gdef.column)) entry.fields.push(gdef.column);
        // An event without that group, or whose key names no group of this project, reads NULL.
        const sql = this.dialect.lazyColumn(t.sqlAlias, `group${def.index}_${gdef.column}`);
        if (gdef.kind === 'json') {
          if (rest.length === 2) return { sql: this.dialect.jsonAsText(sql), type: 'json', nullable: true, json: { base: sql, keys: [] } };
          return this.dialect.jsonProperty(sql, rest.slice(2), this.h);
        }
        if (rest.length > 2) this.err(`Cannot access "${rest.slice(2).join('.')}" on ${name}.${gf}`, node);
        return { sql, type: gdef.type, nullable: true };
      }
      case 'const':
        if (rest.length > 1) this.err(`Cannot access "${rest.slice(1).join('.')}" on ${name}`, node);
        // (raw_persons.is_deleted: an Int8 column in PostHog, 0, not a Bool)
        return { ...this.dialect.constant(def.value, false, this.h), type: def.type, nullable: false, chType: undefined };
    }
  }

  /** The event's group key of type `index` from its `properties` column (SQL): `properties.$group_N`, `''` when none. */
  private groupKey(properties: string, index: number, node: NodeBase): Printed {
    return this.orEmpty(this.dialect.jsonProperty(properties, [`$group_${index}`], this.h), node);
  }

  /** `ifNull(p, '')`: a string that is never NULL. */
  private orEmpty(p: Printed, node: NodeBase): Printed {
    const empty = this.dialect.constant('', false, this.h);
    return this.dialect.call({ sig: lookupFunction('ifNull')!, node, args: [p, empty], raw: [], params: [], distinct: false }, this.h);
  }

  /**
   * `<person>.<field>[.<key>...]` of a lazily joined persons row: records the column in `needs` and reads the
   * column the guarded reference exposes as `__<prefix>_<column>`.
   */
  private lazyPersonField(t: TableSource, rest: string[], needs: string[], prefix: 'person' | 'pdiperson', label: string, node: NodeBase): Printed {
    const pf = rest[0];
    const pdef = own(VIRTUAL_TABLES.persons.fields, pf);
    if (pdef?.kind === 'expr') {
      // A computed persons field (`$virt_*`): its definition reads the persons row's fields, here the joined
      // person's (`properties.x` → `person.properties.x`, `pdi.person.properties.x`, ...).
      if (rest.length > 1) this.err(`Cannot access "${rest.slice(1).join('.')}" on ${label}${pf}`, node);
      const via = label.slice(0, -1).split('.');
      const tableScope = new Scope(undefined);
      tableScope.tables.push(t);
      return this.expr(prefixFieldChains(pdef.expr, via) as Expr, tableScope);
    }
    if (!pdef || (pdef.kind !== 'column' && pdef.kind !== 'json'))
      return this.err(`Field not found: ${pf}`, node);
    if (!needs.includes(pdef.column)) needs.push(pdef.column);
    const sql = this.dialect.lazyColumn(t.sqlAlias, `${prefix}_${pdef.column}`);
    if (pdef.kind === 'json') {
      if (rest.length === 1) return { sql: this.dialect.jsonAsText(sql), type: 'json', nullable: true, json: { base: sql, keys: [] } };
      return this.dialect.jsonProperty(sql, rest.slice(1), this.h);
    }
    if (rest.length > 1) this.err(`Cannot access "${rest.slice(1).join('.')}" on ${label}${pf}`, node);
    return { sql, type: pdef.type, nullable: true };
  }

  private extendJson(p: Printed, keys: (string | number)[], node: NodeBase): Printed {
    if (p.json) return this.dialect.jsonProperty(p.json.base, [...p.json.keys, ...keys], this.h);
    if (p.type === 'json' || p.type === 'string' || p.type === 'unknown') return this.dialect.jsonProperty(p.sql, keys, this.h);
    return this.err(`Cannot access "${keys.join('.')}" on a ${p.type} value`, node);
  }

  // ------------------------------------------------------------------------------------------ expressions

  private enter(node: NodeBase): void {
    if (++this.depth > MAX_AST_DEPTH) {
      this.depth = 0;
      this.err('Query is nested too deeply', node);
    }
  }

  expr(e: Expr, scope: Scope): Printed {
    if (!e || typeof e !== 'object') this.err('Malformed expression');
    this.enter(e);
    try {
      return this.exprInner(e, scope);
    } finally {
      this.depth--;
    }
  }

  private exprInner(e: Expr, scope: Scope): Printed {
    switch (e.node) {
      case 'Constant':
        return this.constant(e.value, e.value_type === 'number', e);
      case 'Field':
        if (Array.isArray(e.chain) && e.chain.some((k, i) => i > 0 && k === 0)) this.err(ZERO_INDEX, e);
        return this.resolveField(e, scope);
      case 'Alias':
        // An alias nested inside an expression (HogQL allows `f(x AS y)`): the name is visible, the value is x.
        this.checkUserName(e.alias, e);
        return this.expr(e.expr, scope);
      case 'Placeholder': {
        const list = this.listPlaceholder(e, 'Array');
        return list ? this.exprInner(list, scope) : this.placeholder(e.expr, e);
      }
      case 'And':
      case 'Or': {
        if (!Array.isArray(e.exprs) || e.exprs.length === 0) this.err(`Empty ${e.node}`, e);
        const parts = e.exprs.map((x) => this.expr(x, scope));
        const op = e.node === 'And' ? ' AND ' : ' OR ';
        // NULL and false filter alike through AND/OR, so the parts' filter spellings compose.
        const filterSql = parts.some((p) => p.filterSql) ? `(${parts.map((p) => p.filterSql ?? p.sql).join(op)})` : undefined;
        // A conjunction of join equalities stays one in JOIN ... ON (dialects that accept only equalities there).
        const joinSql = e.node === 'And' && parts.some((p) => p.joinSql) ? `(${parts.map((p) => p.joinSql ?? p.filterSql ?? p.sql).join(op)})` : undefined;
        const timeBounds = e.node === 'And' ? parts.flatMap((p) => p.timeBounds ?? []) : [];
        // What a conjunction still has to check once its parts' bounds are applied (see Printed.residual).
        const kept = parts.filter((p) => p.residual !== '1').map((p) => p.residual ?? this.filterSql(p));
        const residual = e.node === 'And' && parts.some((p) => p.residual !== undefined) ? (kept.length ? `(${kept.join(op)})` : '1') : undefined;
        return {
          ...(timeBounds.length ? { timeBounds } : {}),
          ...(residual !== undefined ? { residual } : {}),
          sql: `(${parts.map((p) => p.sql).join(op)})`,
          type: 'bool',
          nullable: parts.some((p) => p.nullable),
          ...(filterSql ? { filterSql } : {}),
          ...(joinSql ? { joinSql } : {}),
        };
      }
      case 'Not': {
        const p = this.expr(e.expr, scope);
        return { sql: `(NOT ${p.sql})`, type: 'bool', nullable: p.nullable };
      }
      case 'CompareOperation':
        return this.compare(e, scope);
      case 'BetweenExpr':
        return this.dialect.between(this.expr(e.expr, scope), this.expr(e.low, scope), this.expr(e.high, scope), !!e.negated, this.h);
      case 'ArithmeticOperation': {
        if (!['+', '-', '*', '/', '%'].includes(e.op)) this.err(`Unknown operator ${String(e.op)}`, e);
        return this.shifted(e.op, this.expr(e.left, scope), this.expr(e.right, scope), e);
      }
      case 'ArrayAccess': {
        if (e.property?.node === 'Constant' && e.property.value === 0) this.err(ZERO_INDEX, e.property);
        const arr = this.expr(e.array, scope);
        if (arr.json || arr.type === 'json') {
          const key = this.expr(e.property, scope);
          if (key.isConst && (typeof key.constValue === 'string' || typeof key.constValue === 'number'))
            return this.extendJson(arr, [key.constValue], e);
          return this.dialect.jsonPropertyDynamic(arr.json && arr.json.keys.length === 0 ? arr.json.base : arr.sql, key, this.h);
        }
        return this.dialect.arrayAccess(arr, this.expr(e.property, scope), this.h);
      }
      case 'TupleAccess': {
        // `properties.arr.1`: on JSON, the same 1-based element as `properties.arr[1]`.
        const t = this.expr(e.tuple, scope);
        if ((t.json || t.type === 'json') && e.index === 0) this.err(ZERO_INDEX, e);
        if ((t.json || t.type === 'json') && typeof e.index === 'number') return this.extendJson(t, [e.index], e);
        return this.tupleElement(t, e.index, e);
      }
      case 'Tuple':
      case 'Array': {
        if (!Array.isArray(e.exprs)) this.err(`Malformed ${e.node}`, e);
        return this.dialect.call(
          {
            sig: lookupFunction(e.node === 'Tuple' ? 'tuple' : 'array')!,
            node: e,
            args: e.exprs.map((x) => this.expr(x, scope)),
            raw: e.exprs,
            params: [],
            distinct: false,
          },
          this.h,
        );
      }
      case 'Lambda':
        return this.err('A lambda is only allowed as the first argument of arrayMap, arrayFilter or arrayExists', e);
      case 'Call':
        return this.call(e, scope);
      case 'WindowFunction':
        return this.windowFunction(e, scope);
      case 'SelectQuery':
      case 'SelectSetQuery': {
        const sub = this.compileQuery(e, scope);
        const c = sub.columns[0];
        return { sql: `(${sub.sql})`, type: sub.columns.length === 1 && c ? c.type : 'unknown', nullable: true };
      }
      default: {
        // `expr::Type` (the parser's TypeCast node): the conversion function of that type, with its semantics.
        const cast = e as unknown as NodeBase & { node?: unknown; expr?: Expr; type_name?: unknown };
        if (cast.node === 'TypeCast' && cast.expr) {
          const fn = castFunction(cast.type_name);
          if (!fn) this.err(`Cannot cast to type ${JSON.stringify(String(cast.type_name))}: supported are ${CAST_TYPES}`, e);
          return this.call({ node: 'Call', name: fn, args: [cast.expr], start: cast.start, end: cast.end } as Call, scope);
        }
        // `b.a(x)`: the grammar parses a call of an expression (for Hog programs); PostHog's resolver refuses it
        if (cast.node === 'ExprCall') return this.err('You can only call simple functions in HogQL, not expressions', cast);
        if (isHogQLXTag(cast)) return this.expr(hogqlxTagTuple(cast), scope);
        return this.err(`Unsupported expression: ${String(cast.node)}`, cast);
      }
    }
  }

  /** `t.2` / `tupleElement(t, 2)`: 1-based, on a value the compiler knows is a tuple. */
  private tupleElement(t: Printed, index: unknown, node: NodeBase): Printed {
    const size = t.tupleItems?.length ?? tupleSize(t.chType);
    // A value of unknown type (a lambda's argument, an array's element: `arraySort(x -> x.1, pairs)`) may be a tuple:
    // the engine checks it (a 400 query_error when it is not).
    if (size === undefined && t.type !== 'unknown') return this.err('Tuple access (t.1) needs a tuple value, such as (a, b) or tuple(a, b)', node);
    if (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 1 || (size !== undefined && index > size))
      return this.err(`Tuple index out of range: ${String(index)} (the tuple has ${size} element${size === 1 ? '' : 's'}, the first is 1)`, node);
    const out = this.dialect.tupleElement(t, index, this.h);
    const item = t.tupleItems?.[index - 1];
    return item ? { ...out, type: item.type, nullable: item.nullable, ...pickTyping(item) } : out;
  }

  private constant(v: unknown, big: boolean, node: NodeBase): Printed {
    if (v === null || typeof v === 'boolean' || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)))
      return this.dialect.constant(v, big, this.h);
    return this.err('Unsupported constant', node);
  }

  private placeholderValue(e: Expr, node: NodeBase): unknown {
    if (!e || e.node !== 'Field') this.err('Placeholders must be {name} or {variables.name}', node);
    const chain = e.chain.map(String);
    if (chain[0] === 'variables' && chain.length === 2) {
      const vars = this.opts.variables ?? {};
      if (!Object.prototype.hasOwnProperty.call(vars, chain[1])) {
        // PostHog's texts (posthog/hogql/variables.py replace_variables)
        const text = this.opts.unknownVariables?.includes(chain[1]) ? 'does not exist' : 'is missing from query';
        throw productqlError(`Variable ${chain[1]} ${text}`, node, 'productql_missing_variable');
      }
      return vars[chain[1]];
    }
    if (chain.length === 1 && chain[0] !== 'filters') {
      const vals = this.opts.values ?? {};
      if (!Object.prototype.hasOwnProperty.call(vals, chain[0])) {
        // PostHog's texts (posthog/hogql/placeholders.py, query.py)
        const names = Object.keys(vals);
        const message = names.length
          ? `Placeholder {${chain[0]}} is not available in this context. You can use the following: ${names.join(', ')}`
          : `Query contains placeholders, but none were provided. Placeholders in query: ${chain[0]}`;
        throw productqlError(message, node, 'productql_missing_variable');
      }
      return vals[chain[0]];
    }
    return this.err(`Placeholder {${chain.join('.')}} is not supported here`, node);
  }

  /**
   * A variable bound to a list, as a Tuple (right of IN; an empty list is `(NULL)`, which matches nothing) or an
   * Array (elsewhere) of its items, each bound as its own value. Null when the placeholder is not a list.
   */
  private listPlaceholder(e: Expr, as: 'Tuple' | 'Array'): Expr | null {
    if (e.node !== 'Placeholder') return null;
    const v = this.placeholderValue(e.expr, e);
    if (!Array.isArray(v)) return null;
    const name = e.expr?.node === 'Field' ? e.expr.chain.join('.') : '?';
    const items = v.map((x) => {
      if (x === null || typeof x === 'string' || typeof x === 'boolean' || (typeof x === 'number' && Number.isFinite(x)))
        return { node: 'Constant', value: x } as Expr;
      throw productqlError(`Items of list variable "${name}" must be strings, numbers, booleans or null`, e, 'productql_invalid_variable');
    });
    if (as === 'Tuple' && !items.length) items.push({ node: 'Constant', value: null } as Expr);
    return { node: as, exprs: items } as Expr;
  }

  private placeholder(e: Expr, node: NodeBase): Printed {
    let v = this.placeholderValue(e, node);
    if (v === undefined) v = null;
    if (v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)))
      return this.dialect.constant(v as ConstantValue, false, this.h);
    const name = e.node === 'Field' ? e.chain.join('.') : '?';
    throw productqlError(`Variable "${name}" must be a string, number, boolean or null`, node, 'productql_invalid_variable');
  }

  private compare(e: CompareOperation, scope: Scope): Printed {
    const ops = ['==', '!=', '<', '<=', '>', '>=', 'like', 'not like', 'ilike', 'not ilike', 'in', 'not in', '=~', '!~', '=~*', '!~*'];
    if (e.op === 'in cohort' || e.op === 'not in cohort') return this.compare(inCohortAsIn(e, this.opts.cohortMembers ?? installedCohortMembers(), this.opts.projectId), scope);
    if (!ops.includes(e.op)) this.err(`Unknown operator ${String(e.op)}`, e);
    const withNull = e.op === 'in' || e.op === 'not in' ? inWithNull(e) : undefined;
    if (withNull) return this.expr(withNull, scope);
    const l = this.expr(e.left, scope);
    let r: Printed;
    if (e.op === 'in' || e.op === 'not in') {
      const list = e.right && this.listPlaceholder(e.right, 'Tuple');
      if (list) e = { ...e, right: list };
    }
    if ((e.op === 'in' || e.op === 'not in') && e.right && (e.right.node === 'Tuple' || (e.right.node === 'Call' && e.right.name === 'tuple'))) {
      const items = e.right.node === 'Tuple' ? e.right.exprs : e.right.args;
      if (!items.length) this.err('IN needs at least one value', e.right);
      const ps = items.map((x) => this.expr(x, scope));
      if (l.type === 'null') return this.nullIn(e.op as 'in' | 'not in', ps, e);
      r = { sql: `(${ps.map((p) => p.sql).join(', ')})`, type: 'unknown', nullable: ps.some((p) => p.nullable), list: ps };
    } else if ((e.op === 'in' || e.op === 'not in') && e.right && (e.right.node === 'SelectQuery' || e.right.node === 'SelectSetQuery')) {
      const sub = this.compileQuery(e.right, scope);
      const left = l.tupleItems?.length ?? (l.type === 'unknown' ? undefined : 1);
      // One column at right may hold the tuples themselves: `(a, b) IN (SELECT (x, y) ...)`.
      if (left !== undefined && sub.columns.length > 1 && sub.columns.length !== left)
        this.err(`Number of columns in section IN doesn't match. ${left} at left, ${sub.columns.length} at right.`, e);
      const rows = sub.columns.length > 1 && this.dialect.tupleRows ? this.dialect.tupleRows(sub.sql, sub.columns.length) : sub.sql;
      r = { sql: `(${rows})`, type: sub.columns.length > 1 ? 'unknown' : (sub.columns[0]?.type ?? 'unknown'), nullable: true };
      const col = sub.columns.length === 1 ? sub.columns[0] : undefined;
      if (col && (col.nullable || col.type === 'null' || e.right.node === 'SelectSetQuery') && (l.nullable || l.type === 'null')) return this.inSubqueryWithNull(e.op as 'in' | 'not in', l, r, sub.sql, col.name, e);
    } else {
      r = this.expr(e.right, scope);
      if ((e.op === 'in' || e.op === 'not in') && l.type === 'null' && r.type !== 'array') return this.nullIn(e.op, [r], e);
      if (REGEX_OPS.has(e.op)) this.checkRegex(r, e.right);
      if (e.op === 'in' || e.op === 'not in') {
        if (r.type === 'array') r = { ...r, arrayIn: true };
        else r = { ...r, sql: `(${r.sql})` };
      }
    }
    return this.dialect.compare(e.op, l, r, this.h, e);
  }

  /**
   * `NULL IN (a, b)`: under transform_null_in NULL is a value, so it is in the list when an item is NULL (literal NULLs
   * went through inWithNull): 0 for items that cannot be NULL (`NOT IN`: 1). Printed so, as ClickHouse 18.16 refuses
   * the Nothing-typed left side ("Type mismatch in IN or VALUES section").
   */
  private nullIn(op: 'in' | 'not in', items: Printed[], node: CompareOperation): Printed {
    const nul = this.dialect.constant(null, false, this.h);
    const tests = items.filter((p) => p.nullable).map((p) => this.dialect.compare('==', p, nul, this.h, node).sql);
    if (!tests.length) return { ...this.dialect.constant(op === 'not in', false, this.h), type: 'bool', nullable: false, chType: undefined };
    const any = `(${tests.join(' OR ')})`;
    return { sql: op === 'in' ? any : `(NOT ${any})`, type: 'bool', nullable: false };
  }

  /**
   * `x IN (SELECT y ...)` as PostHog runs it, with ClickHouse's `transform_null_in = 1`: a NULL `x` matches when the
   * subquery has a NULL row (`NOT IN`: then does not match), as NULL in an IN list does (inWithNull). Engines skip the
   * NULLs of the set, so the NULL case is its own test: `x` is NULL and the subquery has a NULL.
   */
  private inSubqueryWithNull(op: 'in' | 'not in', l: Printed, r: Printed, subSql: string, column: string, node: CompareOperation): Printed {
    const base = this.dialect.compare(op, l, r, this.h, node);
    const leftNull = this.dialect.compare('==', l, this.dialect.constant(null, false, this.h), this.h, node);
    const s = this.q(`__in_null${++this.aliasCounter}`);
    const hasNull = `((SELECT count(*) FROM (${subSql}) AS ${s} WHERE ${s}.${this.q(column)} IS NULL) > 0)`;
    const nullMatch = `(${leftNull.sql} AND ${hasNull})`;
    return { sql: op === 'in' ? `(${base.sql} OR ${nullMatch})` : `(${base.sql} AND NOT ${nullMatch})`, type: 'bool', nullable: false };
  }

  /** A constant pattern (literal or variable) RE2 would refuse, or one over the length limit, is a 400 before execution. */
  private checkRegex(p: Printed | undefined, node: NodeBase | undefined): void {
    if (!p?.isConst || typeof p.constValue !== 'string') return;
    const e = regexError(p.constValue, null);
    if (e) throw productqlError(e.message, node, e.code);
  }

  /**
   * `(x, y, ...) -> body`. `zipped`: the other arrays of a call over several arrays, on a dialect whose lambdas see one
   * array (Dialect.lambdaIndex): the lambda takes the first array's element and its 1-based index, and the other
   * arguments read the other arrays at that index.
   */
  private lambda(args: string[], body: Expr, scope: Scope, node: NodeBase, zipped?: Printed[]): Printed {
    if (!Array.isArray(args) || args.length === 0) this.err('A lambda needs arguments', node);
    const ls = new Scope(scope, true);
    for (const a of args) {
      this.checkUserName(a, node);
      ls.lambdaArgs.set(a, this.q(a));
    }
    let params = args;
    if (zipped) {
      const index = `__i${++this.aliasCounter}`;
      zipped.forEach((arr, i) => ls.lambdaArgs.set(args[i + 1], this.dialect.arrayAccess(arr, { sql: this.q(index), type: 'int', nullable: false }, this.h).sql));
      params = [args[0], index];
    }
    const b = this.expr(body, ls);
    // the body's typing rides along: arrayMap types its array by it
    return { ...this.dialect.lambda(params, b), lambdaBody: b };
  }

  /**
   * PostHog's checks of a parametric_first_arg function (posthog/hogql/printer.py visit_call), before its arity: no
   * argument, or a first argument naming no aggregation. An aggregation the engine cannot reduce with is the printer's.
   */
  private arrayReduceName(args: Expr[], c: Call): void {
    if (args.length === 0) this.err(`Missing arguments in function '${c.name}'`, c);
    const first = args[0];
    if (first?.node === 'Constant' && typeof first.value === 'string' && lookupFunction(first.value)?.kind !== 'aggregate')
      this.err(`Invalid parametric function in '${c.name}', '${first.value}' is not supported.`, first);
  }

  private call(c: Call, scope: Scope): Printed {
    if (typeof c.name !== 'string') this.err('Malformed function call', c);
    const sig = lookupFunction(c.name);
    if (!sig) this.err(unknownFunctionError(c.name), c);
    let args = c.args ?? [];
    if (!Array.isArray(args)) this.err('Malformed function call', c);
    // count(*) is count(), as in HogQL and ClickHouse.
    if (sig.name === 'count' && !c.distinct && args.length === 1 && isStar(args[0])) args = [];
    if (sig.name === 'arrayReduce') this.arrayReduceName(args, c);
    const arity = arityError(sig, args.length);
    if (arity) this.err(arity, c);
    const params = c.params ?? [];
    if (sig.params) {
      if (!c.params?.length && sig.params[0] > 0) this.err(`Aggregation '${sig.name}' requires parameters in addition to arguments`, c);
      const p = arityError(sig, params.length, 'parameter', sig.params);
      if (p) this.err(p, c);
    } else if (c.params && c.params.length) this.err(`Function '${sig.name}' takes no parameters`, c);
    if (sig.kind === 'window') this.err(`Window function "${sig.name}" needs an OVER clause`, c);
    if ((c.distinct || c.filter_expr) && sig.kind !== 'aggregate') this.err(`DISTINCT/FILTER only apply to aggregate functions`, c);

    const cmp = own(CMP_FUNCS, sig.name);
    if (cmp) return this.compare({ node: 'CompareOperation', op: cmp, left: args[0], right: args[1], start: c.start, end: c.end }, scope);
    if (sig.name === 'and' || sig.name === 'or')
      return this.expr({ node: sig.name === 'and' ? 'And' : 'Or', exprs: args, start: c.start, end: c.end }, scope);
    if (sig.name === 'not') return this.expr({ node: 'Not', expr: args[0], start: c.start, end: c.end }, scope);

    if (sig.name === 'toWeek' || sig.name === 'toYearWeek') {
      const mode = args.length > 1 ? this.expr(args[1], scope) : undefined;
      const m = mode ? mode.constValue : 0;
      if (mode && (!mode.isConst || typeof m !== 'number' || !WEEK_MODES.includes(m)))
        this.err(`The mode of ${sig.name} must be a constant from 0 to 9`, args[1]);
      // typed as ClickHouse types them (UInt8 week, UInt32 year * 100 + week)
      return { ...this.expr(weekNumberExpr(sig.name, args[0], m as number, args[2]), scope), chType: sig.name === 'toWeek' ? 'UInt8' : 'UInt32' };
    }
    const at = { start: c.start, end: c.end };
    const overLambda = arrayOverLambda(sig.name, args, at);
    if (overLambda) return this.expr(overLambda, scope);
    if (ARRAY_AGGREGATES.has(sig.name) && args.length > 1) this.err(`The first argument of ${sig.name} must be a lambda`, c);
    if (own(TIMESTAMP_SHIFT, sig.name)) return this.expr({ node: 'ArithmeticOperation', op: TIMESTAMP_SHIFT[sig.name], left: args[0], right: args[1], ...at }, scope);
    if (sig.name === 'sortableSemver') {
      // HogQL's own spelling (posthog/hogql/functions/mapping.py): the numbers of the leading `d.d[.d...]`, NULL read as ''
      const call = (name: string, ...xs: Expr[]): Expr => ({ node: 'Call', name, args: xs, ...at }) as Expr;
      const constant = (value: string): Expr => ({ node: 'Constant', value, ...at }) as Expr;
      const text = call('ifNull', args[0], constant(''));
      const parts = call('splitByChar', constant('.'), call('extract', text, constant('(\\d+(\\.\\d+)+)')));
      const toNumber = { node: 'Lambda', args: ['x'], expr: call('toUInt64OrZero', { node: 'Field', chain: ['x'], ...at } as Expr), ...at } as Expr;
      return this.expr(call('arrayMap', toNumber, parts), scope);
    }
    if (sig.name === 'dateName') {
      // dateName(part, t): the part as text (ClickHouse's: numbers unpadded, month and weekday names in English)
      const part = args[0]?.node === 'Constant' && typeof args[0].value === 'string' ? own(DATE_NAME_PARTS, args[0].value) : undefined;
      if (!part) this.err(`dateName's first argument must be one of ${Object.keys(DATE_NAME_PARTS).join(', ')}`, args[0] ?? c);
      const call = (name: string, ...xs: Expr[]): Expr => ({ node: 'Call', name, args: xs, ...at }) as Expr;
      const value = part === 'weekday' ? call('formatDateTime', args[1], { node: 'Constant', value: '%W', ...at } as Expr) : call(part, args[1]);
      return this.expr(call('toString', value), scope);
    }
    if (TIME_WINDOWS.has(sig.name)) {
      const window = timeWindowExpr(sig.name, args, at);
      if (!window) this.err(`${sig.name} takes ${sig.name.startsWith('hop') ? '(time, hop interval, window interval)' : '(time, interval)'}, or a window`, c);
      return this.expr(window, scope);
    }
    const calendar = own(CALENDAR_REWRITES, sig.name);
    if (calendar) {
      const call = (name: string, ...xs: Expr[]): Expr => ({ node: 'Call', name, args: xs, ...at }) as Expr;
      const out = this.expr(calendar.to(args, call, (value) => ({ node: 'Constant', value, ...at }) as Expr), scope);
      return calendar.type ? { ...out, chType: out.nullable ? `Nullable(${calendar.type})` : calendar.type } : out;
    }
    if (sig.name === 'parseDateTimeInJodaSyntax' || sig.name === 'parseDateTimeInJodaSyntaxOrNull') {
      // HogQL's parseDateTimeInJodaSyntaxOrNull: parseDateTime with the Joda format read as MySQL codes
      const f = args[1];
      if (f?.node !== 'Constant' || typeof f.value !== 'string') this.err(`${sig.name} takes a constant format string`, f ?? c);
      const mysql = jodaToMysqlFormat(f.value as string);
      if ('error' in mysql) this.err(mysql.error, f);
      return this.expr({ node: 'Call', name: 'parseDateTime', args: [args[0], { ...f, value: mysql.format }, ...args.slice(2)], ...at } as Expr, scope);
    }
    if (MULTI_SEARCH_FUNCTIONS.has(sig.name)) return this.expr(multiSearchExpr(sig.name, args[0], args[1], (m) => this.err(m, args[1])), scope);
    const outerAggregate = this.aggregates[this.aggregates.length - 1];
    if (sig.kind === 'aggregate' && outerAggregate !== undefined)
      this.err(`Aggregation '${c.name}' cannot be nested inside another aggregation '${outerAggregate}'.`, c);
    if (sig.kind === 'aggregate' && this.rowClause && !this.rowClause.startsWith('~'))
      this.err(`Aggregation '${c.name}' cannot be used in ${this.rowClause}${this.rowClause === 'WHERE' ? ': filter on aggregated values with HAVING' : ''}.`, c);
    if (sig.kind === 'aggregate') this.aggregates.push(c.name);
    let printedArgs: Printed[];
    try {
      const first = args[0];
      if (first?.node === 'Lambda' && LAMBDA_FUNCS.has(sig.name) && Array.isArray(first.args) && first.args.length !== args.length - 1)
        this.err(`The lambda of ${sig.name} takes one argument per array: ${args.length - 1} array(s), ${first.args.length} argument(s)`, first);
      if (first?.node === 'Lambda' && LAMBDA_FUNCS.has(sig.name) && args.length > 2 && this.dialect.lambdaIndex) {
        // Over several arrays on a dialect whose lambdas see one: the first array, the others read by index.
        const arrays = args.slice(1).map((a) => this.expr(a, scope));
        printedArgs = [this.lambda(first.args, first.expr, scope, first, arrays.slice(1)), arrays[0]];
      } else
        printedArgs = args.map((a, i) =>
          a && a.node === 'Lambda' && i === 0 && LAMBDA_FUNCS.has(sig.name) ? this.lambda(a.args, a.expr, scope, a) : this.expr(a, scope),
        );
    } finally {
      if (sig.kind === 'aggregate') this.aggregates.pop();
    }
    if (LAMBDA_FUNCS.has(sig.name) && !OPTIONAL_LAMBDA_FUNCTIONS.has(sig.name) && args[0]?.node !== 'Lambda') this.err(`The first argument of ${sig.name} must be a lambda`, c);
    if (REGEX_FUNCS.has(sig.name)) this.checkRegex(printedArgs[1], args[1]);
    // Computed from what the compiler knows of the value, for every engine (never the engine's own representation).
    if (sig.name === 'toTypeName') {
      const name = this.h.param(typeNameOf(printedArgs[0], this.h.timezone));
      // of an aggregate, still an aggregated query (one row, as ClickHouse's toTypeName(count()))
      const sql = containsAggregate(args[0]) ? `(CASE WHEN (${printedArgs[0].sql}) IS NULL THEN ${name} ELSE ${name} END)` : name;
      return { sql, type: 'string', nullable: false };
    }
    const printedParams = params.map((p) => {
      const x = this.expr(p, scope);
      if (!x.isConst) this.err(`Parameters of "${sig.name}" must be constants`, p);
      return x;
    });
    if (sig.name === 'toStartOfWeek' && printedArgs.length === 1 && this.opts.weekStartDay === 1) printedArgs.push(this.dialect.constant(3, false, this.h));
    const unit = printedArgs[0]?.constValue;
    if ((sig.name === 'dateDiff' || sig.name === 'date_diff') && typeof unit === 'string' && own(DATE_DIFF_UNIT_ALIASES, unit.toLowerCase()))
      printedArgs[0] = this.dialect.constant(DATE_DIFF_UNIT_ALIASES[unit.toLowerCase()], false, this.h);
    const filter = c.filter_expr ? this.expr(c.filter_expr, scope).sql : undefined;
    // Interval constructors and dateAdd/dateSub are datetime arithmetic, whatever the engine.
    if (sig.name.startsWith('toInterval'))
      return { ...this.dialect.interval(sig.name.slice('toInterval'.length).toLowerCase() as IntervalUnit, printedArgs[0]), intervalCount: printedArgs[0] };
    if (sig.name === 'tupleElement') {
      const i = printedArgs[1];
      return this.tupleElement(printedArgs[0], i.isConst ? i.constValue : undefined, c);
    }
    if (DATE_SHIFT.has(sig.name)) {
      const op = sig.name.toLowerCase().includes('add') ? '+' : '-';
      return this.shifted(op, printedArgs[2], this.dialect.interval(unitOf(printedArgs[0], this.h, c), printedArgs[1]), c);
    }
    const exact = own(EXACT_VARIANTS, sig.name);
    const called = exact
      ? this.dialect.call(
          { sig: lookupFunction(exact.to)!, node: c, args: printedArgs.slice(0, exact.args), raw: args.slice(0, exact.args), params: printedParams, distinct: !!c.distinct, filter },
          this.h,
        )
      : this.dialect.call({ sig, node: c, args: printedArgs, raw: args, params: printedParams, distinct: !!c.distinct, filter }, this.h);
    const wholeSeconds = called.type === 'datetime' && (WHOLE_SECOND_FUNCTIONS.has(sig.name) || (sig.name === 'toDateTime' && ['int', 'float', 'datetime', 'date'].includes(printedArgs[0]?.type)));
    // typed as ClickHouse types them: DateTime('<zone>'), not DateTime64(6, ...) (so a subquery column stays one, see field())
    const out = wholeSeconds ? { ...called, wholeSeconds, chType: `DateTime('${called.displayTz ?? this.opts.timezone}')` } : called;
    if (!out.chType && out.type === 'int' && own(DATE_PART_TYPES, sig.name)) return { ...out, chType: DATE_PART_TYPES[sig.name] };
    // sum of unsigned integers is a UInt64 (ClickHouse's sum widens to the 64-bit type of the same sign)
    if ((sig.name === 'sum' || sig.name === 'sumIf') && !out.chType && out.type === 'int' && printedArgs[0]?.type === 'int' && /^(Nullable\()?UInt/.test(typeNameOf(printedArgs[0], this.h.timezone)))
      return { ...out, chType: 'UInt64' };
    const op = own(ARITHMETIC_CALLS, sig.name) ? ARITHMETIC_CALLS[sig.name] : undefined;
    const intType = op && !out.chType && out.type === 'int' ? intArithmeticTypeName(op, printedArgs[0], printedArgs[1], this.h.timezone) : undefined;
    if (intType) return { ...out, chType: intType };
    if (sig.name === 'arrayMap' && !out.chType && printedArgs[0]?.lambdaBody) {
      // typed by the lambda's values where that changes how they render: tuples (JSON arrays), datetimes and dates
      const body = printedArgs[0].lambdaBody as Printed;
      const typing = body.tupleItems || body.chType?.startsWith('Tuple(') ? arrayOfTyping(body, this.h.timezone) : ['datetime', 'date'].includes(body.type) ? { chType: `Array(${typeNameOf(body, this.h.timezone)})` } : {};
      if (typing.chType) return { ...out, ...typing };
    }
    if (!out.chType && (sig.name === 'if' || sig.name === 'multiIf') && out.type === 'bool') {
      // if(c, true, false) is Bool as its values are; with a comparison among them, UInt8 (the bool default)
      const values = printedArgs.filter((_, i) => (sig.name === 'if' ? i > 0 : i % 2 === 1 || i === printedArgs.length - 1));
      if (values.every(isBoolTyped)) return { ...out, chType: 'Bool' };
    }
    if (!out.chType && ['if', 'multiIf', 'nullIf', 'coalesce', 'ifNull'].includes(sig.name) && ['int', 'float', 'string'].includes(out.type)) {
      const chType = conditionalTypeName(sig.name, printedArgs, this.h.timezone);
      // integers with a float among the values are a Float64 (if(c, 1, 2.5)), as ClickHouse's supertype is
      if (chType) return { ...out, chType, ...(/Float64/.test(chType) ? { type: 'float' as const } : {}) };
    }
    // A datetime bucket of a value shown in another zone (toTimeZone), or truncated in a given zone, is shown there too,
    // as ClickHouse keeps the DateTime's zone through these functions.
    const kept = own(ZONE_KEEPING, sig.name);
    if (kept !== undefined && out.type === 'datetime' && !out.displayTz) {
      const zoneArg = kept.tzArg !== undefined ? printedArgs[kept.tzArg] : undefined;
      const zone = zoneArg?.isConst && typeof zoneArg.constValue === 'string' ? zoneArg.constValue : printedArgs[kept.value] && zoneOf(printedArgs[kept.value]);
      if (zone && zone !== this.opts.timezone) return { ...out, displayTz: zone, chType: out.wholeSeconds ? `DateTime('${zone}')` : `DateTime64(6, '${zone}')` };
    }
    return out;
  }

  /**
   * Arithmetic, typed as ClickHouse types a date or DateTime moved by an interval: a DateTime (whole seconds) stays
   * one, and a Date moved by hours, minutes or seconds becomes one (addHours(Date) is a DateTime), so toString writes
   * no fraction and toTypeName says DateTime('<zone>').
   */
  private shifted(op: ArithmeticOp, l: Printed, r: Printed, node: NodeBase): Printed {
    const out = this.dialect.arithmetic(op, l, r, this.h, node);
    const intType = out.type === 'int' && !out.chType ? intArithmeticTypeName(op, l, r, this.h.timezone) : undefined;
    if (intType) return { ...out, chType: intType };
    const moved = r.type === 'interval' ? l : l.type === 'interval' && op === '+' ? r : undefined;
    if (out.type !== 'datetime' || !moved || !(moved.wholeSeconds || moved.type === 'date')) return out;
    return { ...out, wholeSeconds: true, chType: `DateTime('${out.displayTz ?? this.opts.timezone}')` };
  }

  private windowFunction(w: WindowFunction, scope: Scope): Printed {
    const sig = lookupFunction(w.name);
    if (!sig || sig.kind === 'scalar') this.err(`Unknown window function "${w.name}"`, w);
    if (this.rowClause) this.err(`Window function '${w.name}' cannot be used in ${this.rowClause.replace(/^~/, '')}: compute it in a subquery and filter its result.`, w);
    const outerAggregate = this.aggregates[this.aggregates.length - 1];
    if (outerAggregate !== undefined) this.err(`Window function '${w.name}' cannot be used inside aggregation '${outerAggregate}': compute it in a subquery.`, w);
    let args = w.exprs ?? [];
    // count(*) OVER (...) is count() OVER (...), as outside a window.
    if (sig.name === 'count' && args.length === 1 && isStar(args[0])) args = [];
    const arity = arityError(sig, args.length);
    if (arity) this.err(arity, w);
    const params = w.args ?? [];
    if (sig.params ? params.length < sig.params[0] || params.length > sig.params[1] : params.length > 0)
      this.err(`Wrong number of parameters for "${sig.name}"`, w);
    const printedArgs = args.map((a) => this.expr(a, scope));
    const printedParams = params.map((p) => this.expr(p, scope));
    let windowExpr: WindowExpr | undefined;
    if (w.over_identifier) {
      for (let s: Scope | undefined = scope; s; s = s.parent) {
        if (s.isLambda) continue;
        windowExpr = s.windows.get(w.over_identifier);
        break;
      }
      if (!windowExpr) this.err(`Unknown window "${w.over_identifier}"`, w);
    }
    const over = w.over_identifier ? this.q(w.over_identifier) : `(${this.windowSpec(w.over_expr ?? { node: 'WindowExpr' }, scope)})`;
    const inFrame = sig.name === 'lagInFrame' || sig.name === 'leadInFrame' ? this.offsetInFrame(sig.name, printedArgs, windowExpr ?? w.over_expr ?? undefined, scope) : undefined;
    const inner = this.dialect.call({ sig, node: w, args: printedArgs, raw: args, params: printedParams, distinct: false, over: true, ...(inFrame ? { inFrame } : {}) }, this.h);
    const sql = inner.sql.includes(OVER_MARK) ? inner.sql.split(OVER_MARK).join(` OVER ${over}`) : `${inner.sql} OVER ${over}`;
    return { ...inner, sql, isConst: false, constValue: undefined };
  }

  /**
   * lagInFrame / leadInFrame read the row at their offset only inside the window frame (ClickHouse; lag/lead ignore
   * frames): whether that row is in it always, never, or when it is a peer of the current row (the same ORDER BY
   * values: a RANGE bound at CURRENT ROW). The frame is ClickHouse's default without a frame clause: RANGE from
   * UNBOUNDED PRECEDING to CURRENT ROW (the whole partition without ORDER BY). Undefined when it cannot be told here
   * (an offset that is no constant, RANGE bounds of n PRECEDING / FOLLOWING).
   */
  private offsetInFrame(name: string, args: Printed[], w: WindowExpr | undefined, scope: Scope): FunctionCall['inFrame'] {
    const off = args.length > 1 ? args[1].constValue : 1;
    if (typeof off !== 'number' || !Number.isSafeInteger(off)) return undefined;
    const p = name === 'lagInFrame' ? -off : off;
    const pos = (f: WindowFrameExpr): number =>
      f.frame_type === 'CURRENT ROW' ? 0 : (f.frame_value ?? Infinity) * (f.frame_type === 'PRECEDING' ? -1 : 1);
    const start = w?.frame_method && w.frame_start ? pos(w.frame_start) : -Infinity;
    const end = w?.frame_method && w.frame_start && w.frame_end ? pos(w.frame_end) : 0;
    if (w?.frame_method === 'ROWS') return { reach: start <= p && p <= end ? 'always' : 'never', peers: [] };
    const ordered = w?.order_by ?? [];
    if (p === 0 || ordered.length === 0) return { reach: 'always', peers: [] };
    const [near, far] = p < 0 ? [end, start] : [-start, end];
    if (near < 0) return undefined;
    if (Math.abs(far) === Infinity) return { reach: 'always', peers: [] };
    if (far !== 0) return undefined;
    return { reach: 'peers', peers: ordered.map((o) => this.expr(o.expr, scope).sql) };
  }

  private windowSpec(w: WindowExpr, scope: Scope): string {
    const parts: string[] = [];
    if (w.partition_by?.length) parts.push(`PARTITION BY ${w.partition_by.map((x) => this.expr(x, scope).sql).join(', ')}`);
    if (w.order_by?.length) parts.push(`ORDER BY ${w.order_by.map((o) => this.orderExpr(o, scope, false)).join(', ')}`);
    if (w.frame_method) {
      if (w.frame_method !== 'ROWS' && w.frame_method !== 'RANGE') this.err('Unsupported window frame', w);
      if (!w.frame_start) this.err('Window frame needs a start', w);
      const fs = this.frame(w.frame_start);
      parts.push(w.frame_end ? `${w.frame_method} BETWEEN ${fs} AND ${this.frame(w.frame_end)}` : `${w.frame_method} ${fs}`);
    }
    return parts.join(' ');
  }

  private frame(f: WindowFrameExpr): string {
    if (f.frame_type === 'CURRENT ROW') return 'CURRENT ROW';
    if (f.frame_type !== 'PRECEDING' && f.frame_type !== 'FOLLOWING') this.err('Unsupported window frame', f);
    if (f.frame_value === undefined || f.frame_value === null) return `UNBOUNDED ${f.frame_type}`;
    if (typeof f.frame_value !== 'number' || !Number.isSafeInteger(f.frame_value) || f.frame_value < 0) this.err('Window frame offsets must be integers', f);
    return `${f.frame_value} ${f.frame_type}`;
  }
}
