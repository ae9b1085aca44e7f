/**
 * What a SQL dialect supplies to the compiler. The compiler (compiler.ts) owns resolution and safety: scopes,
 * the allow-lists, the project guard's placement, LIMIT handling. A dialect owns spelling: quoting, placeholders,
 * function mapping, casts, timezone handling and the text of a guarded table reference.
 */
import type { ArithmeticOp, CompareOp, ConstantValue, Expr, NodeBase } from './ast';
import { lookupFunction, type FunctionSignature } from './functions';
import type { PType } from './schema';

/** A printed expression plus what the compiler knows about its value. */
export interface Printed {
  sql: string;
  type: PType;
  nullable: boolean;
  /** ClickHouse type name to report when more precise than `type` (e.g. `UInt64` for count()). */
  chType?: string;
  /** Set when the expression is a single bound value (a literal or a variable). */
  constValue?: ConstantValue;
  isConst?: boolean;
  /** For intervals: the unit (second .. year). */
  intervalUnit?: string;
  /** For JSON access: the JSON-text expression and the key path so far, so `a.b['c']` keeps extending. */
  json?: { base: string; keys: (string | number)[] };
  /** Right side of IN with a literal list: the items, each printed. */
  list?: Printed[];
  /** Right side of IN is an array value (`x IN {array}`): printed as list containment. */
  arrayIn?: boolean;
  /**
   * The same condition spelled for `JOIN ... ON`, when the engine accepts only plain equalities there (ClickHouse
   * refuses the `ifNull(a = b, 0)` a nullable comparison otherwise prints as). Unset: `sql` is used.
   */
  joinSql?: string;
  /**
   * The same condition for a filter position (a WHERE/HAVING conjunct, a JOIN ... ON condition), where NULL counts
   * as false: a nullable `coalesce(a = b, false)` may be printed plain there, so engines can push it into scans and
   * hash joins. Only valid through AND/OR, never under NOT. Unset: `sql` is used.
   */
  filterSql?: string;
  /**
   * A cheaper GROUP BY key with the same groups, of which `sql` is a function (e.g. the local DATE under
   * toStartOfDay's datetime): engines that match select items against sub-expressions of the keys then compute
   * `sql` once per group. Unset: `sql` is used.
   */
  groupSql?: string;
  /**
   * Bounds on a table's `timestamp` that hold wherever this condition is true: set by a dialect on comparisons of
   * `timestamp` with a constant, carried through AND only. The compiler hands the bounds of WHERE conditions to
   * the table they are on ({@link TableNeeds.timeBounds}).
   */
  timeBounds?: TimeBound[];
  /**
   * A cheaper expression that is NULL exactly when `sql` is, for `IS [NOT] NULL` tests (e.g. the stored
   * `events.person_id` under the override-resolved person id: an override only ever maps a non-null id to a
   * non-null id). Valid only for this very `sql` (`of`), so a Printed copied with another `sql` cannot misuse it.
   */
  nullTest?: { of: string; sql: string };
  /**
   * The same datetime as whole seconds in the engine's stored `DateTime` (ClickHouse: the guarded events reference
   * exposes `timestamp` as epoch ms and the stored column as `__timestamp_s`): calendar functions (buckets) read it
   * instead of converting the epoch-ms value per row. Valid only for this very `sql` (`of`), like `nullTest`.
   */
  seconds?: { of: string; sql: string };
  /**
   * Set with `timeBounds`: what this condition still has to check once every one of its bounds is applied inside the
   * guarded table reference (`'1'`: nothing; the bounds are exactly the condition). The compiler prints it instead of
   * the condition when all the bounds went to the only table of the SELECT (so no outer join can null-extend rows
   * the bound removed); otherwise the full condition is printed and the bounds only prune. Carried through AND only.
   */
  residual?: string;
  /** For tuples (`(a, b)`, `tuple(a, b)`): the printed elements, so `t.2` knows its element's type. */
  tupleItems?: Printed[];
  /** For intervals (`INTERVAL 5 minute`, `toIntervalMinute(5)`): the printed count. */
  intervalCount?: Printed;
  /**
   * The IANA zone a datetime is shown in (`toTimeZone(ts, 'America/New_York')`): results display it there, and
   * `toString` / `formatDateTime` / calendar parts read its wall clock there. Unset: the project timezone.
   */
  displayTz?: string;
}

/**
 * The typing an element of array `p` keeps when it is taken out (arrayJoin, ARRAY JOIN): its tuple type, when `p` is
 * known as an `Array(Tuple(...))` (so `kv.1` works on the pairs of JSONExtractKeysAndValues). Empty otherwise.
 */
export function arrayElementTyping(p: Pick<Printed, 'chType'>): { chType?: string } {
  const inner = p.chType?.startsWith('Array(Tuple(') && p.chType.endsWith(')') ? p.chType.slice('Array('.length, -1) : undefined;
  return inner ? { chType: inner } : {};
}

/** ClickHouse's type name for the smallest integer type that holds a constant (as ClickHouse types literals). */
function intLiteralType(v: number): string {
  if (v >= 0) return v <= 0xff ? 'UInt8' : v <= 0xffff ? 'UInt16' : v <= 0xffffffff ? 'UInt32' : 'UInt64';
  return v >= -0x80 ? 'Int8' : v >= -0x8000 ? 'Int16' : v >= -0x80000000 ? 'Int32' : 'Int64';
}

const BASE_TYPE_NAMES: Record<PType, string> = {
  string: 'String',
  int: 'Int64',
  float: 'Float64',
  bool: 'Bool',
  datetime: 'DateTime64',
  date: 'Date',
  interval: 'IntervalSecond',
  json: 'String',
  uuid: 'UUID',
  array: 'Array(String)',
  null: 'Nullable(Nothing)',
  unknown: 'String',
};

/**
 * The ClickHouse type name of a printed value, as `toTypeName` reports it and as tuple columns are typed: literals
 * take ClickHouse's literal types (`1` is UInt8, `'a'` String, `1.5` Float64), datetimes `DateTime64(6, '<zone>')`
 * in the zone they are shown in, nullable values `Nullable(...)`.
 */
export function typeNameOf(p: Printed, timezone: string): string {
  let base: string;
  if (p.tupleItems) base = `Tuple(${p.tupleItems.map((x) => typeNameOf(x, timezone)).join(', ')})`;
  else if (p.type === 'datetime') base = p.chType ?? `DateTime64(6, '${p.displayTz ?? timezone}')`;
  else if (p.chType) base = p.chType;
  else if (p.isConst && typeof p.constValue === 'number' && p.type === 'int') base = intLiteralType(p.constValue);
  else if (p.type === 'interval') base = `Interval${(p.intervalUnit ?? 'second').replace(/^./, (c) => c.toUpperCase())}`;
  else base = BASE_TYPE_NAMES[p.type];
  if (base.startsWith('Nullable(') || base.startsWith('Array(') || base.startsWith('Tuple(') || p.type === 'null' || p.isConst) return base;
  return p.nullable ? `Nullable(${base})` : base;
}

export interface FunctionCall {
  sig: FunctionSignature;
  node: NodeBase;
  args: Printed[];
  raw: Expr[];
  params: Printed[];
  distinct: boolean;
  /** Printed FILTER (WHERE ...) condition. */
  filter?: string;
  /** True when the call has an OVER clause (a window function, or an aggregate used as one). */
  over?: boolean;
}

export interface Helpers {
  /** Binds a value; returns the placeholder text. Equal values share one placeholder. */
  param(v: ConstantValue): string;
  /** The project's timezone, bound. */
  tz(): string;
  readonly timezone: string;
  error(message: string, node?: NodeBase | null): never;
}

/** Interval units of `toInterval<Unit>`, `dateAdd`/`dateSub` and `dateDiff`. */
export const INTERVAL_UNITS = ['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'] as const;
export type IntervalUnit = (typeof INTERVAL_UNITS)[number];

/** Unit name from a constant argument ('day', 'DAY', 'days'). */
export function unitOf(p: Printed, h: Helpers, node: NodeBase): IntervalUnit {
  const raw = typeof p.constValue === 'string' ? p.constValue.toLowerCase().replace(/s$/, '') : undefined;
  const u = INTERVAL_UNITS.find((x) => x === raw);
  if (!p.isConst || !u) return h.error(`Unit must be one of ${INTERVAL_UNITS.join(', ')}`, node);
  return u;
}

/**
 * `toStartOfInterval(value, INTERVAL k unit)`: the interval's constant positive count and unit, and whether the value
 * is a Date (a Date takes a unit of a day or more); a 400 otherwise.
 */
export function startOfIntervalArgs(a: Printed[], h: Helpers, node: NodeBase, subDay: (u: IntervalUnit) => boolean): { k: number; unit: IntervalUnit; isDate: boolean } {
  const iv = a[1];
  const cnt = iv.intervalCount;
  if (iv.type !== 'interval' || !cnt?.isConst || typeof cnt.constValue !== 'number' || !Number.isSafeInteger(cnt.constValue) || cnt.constValue < 1)
    return h.error('toStartOfInterval takes an interval with a constant positive count, such as INTERVAL 5 minute', node);
  const unit = iv.intervalUnit as IntervalUnit;
  const isDate = a[0].type === 'date';
  if (isDate && subDay(unit)) return h.error(`toStartOfInterval on a Date takes a unit of a day or more, not ${unit}`, node);
  return { k: cnt.constValue, unit, isDate };
}

/** Lazily joined columns a guarded table reference must expose (`__person_id`, `__person_properties`, ...). */
export interface TableNeeds {
  personId: boolean;
  personFields: string[];
  /** person_distinct_ids columns of the row of the table's `distinct_id` (events.pdi), exposed as `__pdi_<column>`. */
  pdiFields?: string[];
  /**
   * persons columns of the person of that person_distinct_ids row (events.pdi.person), exposed as
   * `__pdiperson_<column>`.
   */
  pdiPersonFields?: string[];
  /**
   * The sessions row of the table's `$session_id` (events.session): `sql` is the compiled sessions SELECT (one row
   * per `session_id`), `fields` its columns to expose as `__session_<field>`.
   */
  session?: { sql: string; fields: string[] };
  /**
   * The groups rows of the table's `$group_N` keys (events.group_N), one entry per type index: `fields` are the
   * groups columns to expose as `__group<index>_<column>`; `key(properties)` prints the event's group key (`''` when
   * none) from the SQL of the reference's `properties` column.
   */
  groups?: { index: number; fields: string[]; key: (properties: string) => string }[];
  /**
   * False when the project has no person overrides: the stored `person_id` is the resolved one and the overrides
   * join is left out. Unset: the join is printed.
   */
  personOverrides?: false;
  /**
   * Bounds on the events table's `timestamp` implied by the WHERE clause of the SELECT that reads the table (see
   * {@link Printed.timeBounds}); a dialect may repeat them inside the guarded reference so the engine prunes by its
   * sort/partition key. Unset: none.
   */
  timeBounds?: TimeBound[];
  /**
   * The stored columns of the table that the printed query reads through this reference: each name the SQL of the
   * SELECT that owns the reference (its select list, kept WHERE conditions, JOIN ON, GROUP BY, HAVING, ORDER BY and
   * the queries nested in them) spells as `<alias>.<column>`. It may hold more than is read (never less), so a
   * dialect may expose only these columns. A WHERE comparison replaced by {@link timeBounds} does not count. Unset:
   * unknown, every column is exposed.
   */
  columns?: ReadonlySet<string>;
}

/**
 * `<table>.<column> <op> <value>` (column `timestamp` unless set; `event` for event-name filters), with the value
 * printed by the dialect (e.g. whole seconds for ClickHouse; for `in`, a parenthesized list).
 */
export interface TimeBound {
  /** The quoted table alias the bound is on. */
  aliasSql: string;
  /** `person_id`: the stored column, with `isNull` / `isNotNull` (no value). */
  column?: 'timestamp' | 'event' | 'person_id';
  op: '>=' | '<=' | '>' | '<' | '=' | 'in' | 'isNull' | 'isNotNull';
  value: string;
  /** A timestamp bound on a UTC day boundary: `toDate(timestamp) <op> toDate(value)` alone is exactly the bound. */
  dateOnly?: boolean;
}

export interface Dialect {
  readonly name: 'duckdb' | 'clickhouse';
  /**
   * When true, the compiler prints each CTE reference as the CTE's body in parentheses instead of a `WITH`
   * clause (for engines without `WITH name AS (SELECT ...)`, like ClickHouse 18.16). Default false.
   */
  readonly inlineCtes?: boolean;
  /**
   * When true, a CTE marked `materialized` becomes a stage (CompileResult.stages): the engine computes its body
   * into a temporary table before the query, and the query reads that table by name. On ClickHouse 18.16
   * everything after a GROUP BY runs in one stream; a table read back runs on every thread. Default false.
   */
  readonly stagesCtes?: boolean;
  /**
   * When true, a repeated output name within one select list is aliased `<name>__dup<n>` in the SQL, and the
   * outermost select list gets positional aliases `__c0, __c1, ...` (result column names come from the compiled
   * columns, not from the engine). Default false.
   */
  readonly uniqueSelectNames?: boolean;
  /**
   * When true, `LIMIT n BY exprs` is printed natively (ClickHouse; without an OFFSET, which 18.16 lacks). Otherwise
   * it becomes a `QUALIFY row_number() OVER (PARTITION BY exprs ORDER BY <the query's ORDER BY>)` bound. Default false.
   */
  readonly nativeLimitBy?: boolean;
  /**
   * When true, lambdas take one array's element and its 1-based index (DuckDB): a lambda function over several arrays
   * (`arrayMap((x, y) -> x + y, a, b)`) is printed over the first array, the other arguments reading the other arrays
   * at the element's index. Default false: the dialect prints several arrays itself (ClickHouse zips them).
   */
  readonly lambdaIndex?: boolean;
  /** When true, the engine has UNION ALL only (ClickHouse 18.16): UNION DISTINCT is printed as DISTINCT over it. */
  readonly unionAllOnly?: boolean;
  /**
   * When true, `LIMIT n WITH TIES` is printed as a `QUALIFY rank() OVER (<the ORDER BY>)` bound (window functions);
   * otherwise it is refused (400). Default false.
   */
  readonly limitWithTies?: boolean;
  /** When true, `GROUP BY 1` / `ORDER BY 2` are printed as the select item's expression. Default false (kept as is). */
  readonly positionalAsExpression?: boolean;
  /**
   * When true, a GROUP BY key whose SQL equals a select item's is printed as that item's alias. ClickHouse 18.16
   * matches GROUP BY keys to select expressions by their text, and an `IN (subquery)` inside gets a new name at
   * each occurrence, so the repeated expression would not match ("not under aggregate function"). Default false.
   */
  readonly groupByAlias?: boolean;
  /**
   * When true, an inner JOIN whose ON condition has no equality is printed as CROSS JOIN with the condition in
   * WHERE (ClickHouse 18.16 accepts only equalities in ON). Same rows. Default false.
   */
  readonly crossJoinNonEqui?: boolean;
  /**
   * When true, the columns of a joined subquery or CTE are renamed uniquely in the SQL (see the compiler's
   * joinedSource): ClickHouse 18.16 fails on right-hand columns named like left-hand ones. Default false.
   */
  readonly renameJoinedColumns?: boolean;
  /**
   * Optional: what a single-column `SELECT DISTINCT` selects instead of `item`, when the engine cannot deduplicate
   * that value as it is (ClickHouse 18.16 fails on a lone Nullable(UUID) key with "numeric column has sizeOfField not
   * in 1, 2, 4, 8"). The replacement must hold the same values as the results show them; `chType` keeps the type
   * reported for the column. Undefined (or unset): the item is kept.
   */
  distinctKey?(item: Printed): { sql: string; type: PType; chType?: string } | undefined;
  quoteIdent(name: string): string;
  /** Placeholder text for the 1-based i-th bound value. */
  placeholder(i: number): string;
  constant(value: ConstantValue, bigNumber: boolean, h: Helpers): Printed;
  /** `base.k1.k2` on JSON text: a string, NULL for missing, JSON null and ''. */
  jsonProperty(base: string, keys: (string | number)[], h: Helpers): Printed;
  /** A JSON column used as a value (selected, compared, unioned): its text. */
  jsonAsText(base: string): string;
  /** `base[key]` with a non-constant key. */
  jsonPropertyDynamic(base: string, key: Printed, h: Helpers): Printed;
  compare(op: CompareOp, l: Printed, r: Printed, h: Helpers, node: NodeBase): Printed;
  between(x: Printed, lo: Printed, hi: Printed, negated: boolean, h: Helpers): Printed;
  arithmetic(op: ArithmeticOp, l: Printed, r: Printed, h: Helpers, node: NodeBase): Printed;
  /** `count` units as an interval value (type 'interval' with its `intervalUnit`), for datetime arithmetic. */
  interval(unit: IntervalUnit, count: Printed): Printed;
  call(fn: FunctionCall, h: Helpers): Printed;
  lambda(args: string[], body: Printed): Printed;
  arrayAccess(arr: Printed, index: Printed, h: Helpers): Printed;
  /** `t.<index>` on a tuple value (1-based; the compiler has checked the index is a positive integer in range). */
  tupleElement(t: Printed, index: number, h: Helpers): Printed;
  /**
   * A guarded reference to an engine table: `(SELECT ... FROM <table> AS <alias> ... WHERE <alias>.project_id = ?)
   * AS <alias>`, exposing the lazily joined person columns named in `needs`.
   */
  guardedTable(table: string, alias: string, projectParam: string, needs: TableNeeds): string;
  /** SQL of a lazily joined column as seen from outside the guarded reference. */
  lazyColumn(alias: string, name: 'person_id' | `person_${string}` | `pdi_${string}` | `pdiperson_${string}` | `session_${string}` | `group${number}_${string}`): string;
  /**
   * Optional: an expression, visible outside the guarded reference, that is NULL exactly when the lazily joined
   * `person_id` is (the stored column), so null tests need not wait for the override join and can prune scans.
   */
  lazyPersonIdNullTest?(alias: string): string;
  /**
   * Optional: for a datetime column of an engine table, an expression visible outside the guarded reference holding
   * the same instant as the stored whole-second value (see {@link Printed.seconds}). Unset: none.
   */
  storedSeconds?(table: string, column: string, alias: string): string | undefined;
  /**
   * The table function `numbers(offset, count)`: a SELECT with one UInt64 column `number` holding offset ..
   * offset + count - 1 (the compiler has checked both are non-negative safe integers and bounded count).
   */
  numbersTable(offset: number, count: number): string;
  /**
   * `FROM <from> [LEFT] ARRAY JOIN <arrays>`: the FROM text with the arrays joined (`tables`: the quoted aliases the
   * FROM clause defines; `id`: unique within the query). Several arrays are zipped (their i-th elements form the i-th
   * row), in array order. ARRAY JOIN drops rows whose arrays are empty; LEFT ARRAY JOIN keeps them once.
   */
  arrayJoinFrom(from: string, tables: string[], items: { name: string; sql: string }[], left: boolean, id: number): string;
  /** The SQL that reads the element of ARRAY JOIN alias `name` (of the ARRAY JOIN `id`) outside the FROM clause. */
  arrayJoinRef(id: number, name: string): string;
  /**
   * `SAMPLE ratio [OFFSET offset]` on the events table: a condition keeping the rows whose sampling key (the
   * `distinct_id`, PostHog's events sample key) hashes into [offset, offset + ratio) of the hash range.
   */
  sampleCondition(distinctIdSql: string, ratio: number, offset: number): string;
}

/**
 * Marks where the compiler's ` OVER (...)` goes in a call a dialect printed for a window (FunctionCall.over), when the
 * aggregate is wrapped in other SQL (`coalesce(list(x)<mark>, [])`); without the mark it is appended.
 */
export const OVER_MARK = '\u0002';

/** Largest `count` of the `numbers()` table function: more rows are refused (400) before anything runs. */
export const MAX_NUMBERS_ROWS = 10_000_000;

/** Buckets of the sampling hash: `SAMPLE r OFFSET o` keeps hash % SAMPLE_BUCKETS in [o, o + r) * SAMPLE_BUCKETS. */
export const SAMPLE_BUCKETS = 4_294_967_296;

/** formatDateTime's format codes (ClickHouse's), each a one-character code after `%`. */
export const FORMAT_CODES = 'YmdHMSFTDRyejuwpIGVz%';
/** Codes that are spelled with others: `%F` is `%Y-%m-%d`, `%T` `%H:%M:%S`, `%D` `%m/%d/%y`, `%R` `%H:%M`. */
const COMPOSITE_CODES: Record<string, string> = { F: '%Y-%m-%d', T: '%H:%M:%S', D: '%m/%d/%y', R: '%H:%M' };

/** A piece of a formatDateTime pattern: text for the engine's own formatter (`native`), or one code it lacks. */
export type FormatPiece = { native: string } | { code: string };

/**
 * Splits a constant formatDateTime pattern into runs the engine formats itself (codes in `native`, literal text with
 * `%` written `%%`) and single codes the dialect spells (the rest). An unknown code or a trailing `%` is a 400.
 */
export function formatPieces(pattern: string, native: string, h: Helpers, node: NodeBase): FormatPiece[] {
  let expanded = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch !== '%') {
      expanded += ch;
      continue;
    }
    const code = pattern[++i];
    if (code === undefined || !FORMAT_CODES.includes(code))
      h.error(`formatDateTime: unsupported format code "%${code ?? ''}" (supported: ${[...FORMAT_CODES].map((c) => `%${c}`).join(' ')})`, node);
    expanded += COMPOSITE_CODES[code] ?? `%${code}`;
  }
  const out: FormatPiece[] = [];
  let run = '';
  for (let i = 0; i < expanded.length; i++) {
    const ch = expanded[i];
    if (ch !== '%') {
      run += ch === '%' ? '%%' : ch;
      continue;
    }
    const code = expanded[++i];
    if (code === '%' || native.includes(code)) run += `%${code}`;
    else {
      if (run) out.push({ native: run });
      run = '';
      out.push({ code });
    }
  }
  if (run || out.length === 0) out.push({ native: run });
  return out;
}

/** The zone a datetime value is shown in: set by toTimeZone, or carried by its `DateTime64(6, '<zone>')` type. */
export function zoneOf(p: Printed): string | undefined {
  if (p.displayTz) return p.displayTz;
  return p.type === 'datetime' && p.chType ? /^DateTime64\(\d, '([^']+)'\)$/.exec(p.chType)?.[1] : undefined;
}

/**
 * `<aggregate>If(args..., cond)` (FunctionSignature.ifOf) as the aggregate itself over the rows where `cond` holds:
 * the condition joins the call's FILTER; `<aggregate>Distinct(args)` (distinctOf) as the aggregate with DISTINCT.
 * Undefined for any other call.
 */
export function unwrapIfCombinator(fn: FunctionCall): FunctionCall | undefined {
  if (fn.sig.distinctOf) return { ...fn, sig: lookupFunction(fn.sig.distinctOf)!, distinct: true };
  if (!fn.sig.ifOf) return undefined;
  const cond = fn.args[fn.args.length - 1];
  const base = lookupFunction(fn.sig.ifOf)!;
  return { ...fn, sig: base, args: fn.args.slice(0, -1), raw: fn.raw.slice(0, -1), filter: [fn.filter, `(${cond.sql})`].filter(Boolean).join(' AND ') };
}

/** `addDays(x, n)`, `subtractMonths(x, n)`, ...: the operator and unit; undefined for other names. */
export function dateShiftOf(name: string): { op: '+' | '-'; unit: IntervalUnit } | undefined {
  if (name[0] !== 'a' && name[0] !== 's') return undefined;
  const m = /^(add|subtract)(Second|Minute|Hour|Day|Week|Month|Quarter|Year)s$/.exec(name);
  return m ? { op: m[1] === 'add' ? '+' : '-', unit: m[2].toLowerCase() as IntervalUnit } : undefined;
}

/** A quantile level parameter: a constant number from 0 to 1 (a 400 otherwise). */
export function quantileLevel(p: Printed | undefined, h: Helpers, node: NodeBase): number {
  if (!p || typeof p.constValue !== 'number' || p.constValue < 0 || p.constValue > 1) return h.error('quantile level must be a number between 0 and 1', node);
  return p.constValue;
}

/**
 * The 0-based position ClickHouse's quantileExact family takes in the sorted values (`n`: SQL of their count):
 * floor(level * n), the last one for level 1; quantileExactLow at 0.5 takes the lower of two middle values.
 */
export function exactQuantileIndex(level: number, n: string, low: boolean, int: (sql: string) => string = (x) => x): string {
  if (low && level === 0.5) return int(`floor((${n} - 1) / 2)`);
  if (level >= 1) return `(${n} - 1)`;
  return `least(${n} - 1, ${int(`floor(${level} * ${n})`)})`;
}

/** The month names monthName returns (ClickHouse's, English). */
export const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** The second-level labels under which firstSignificantSubdomain looks one level deeper (ClickHouse's list). */
export const INSIGNIFICANT_SECOND_LEVEL = ['com', 'net', 'org', 'co'];

/** A URL scheme (`https`, `svn+ssh`), as a regular expression. */
export const URL_SCHEME = '[a-zA-Z][a-zA-Z0-9+.-]*';
/** The host of a URL (after `//` and any user info, before the port, path, query or fragment), in group 1. */
export const URL_HOST = `^(?:${URL_SCHEME}:)?//(?:[^/?#@]*@)?([^/?#:]*)`;

/** sparkline(values): PostHog's chart marker, `('__hogql_chart_type', 'sparkline', 'results', values)`. */
export const SPARKLINE_MARKER = ['__hogql_chart_type', 'sparkline', 'results'];

/**
 * Bounds on what one call may generate (range's elements, repeat/leftPad/rightPad's characters): a constant beyond
 * them is a 400 before anything runs (`range(1000000000)` would exhaust memory); a computed count is capped there.
 */
export const MAX_GENERATED_ELEMENTS = 1_000_000;
export const MAX_GENERATED_CHARS = 10_000_000;

/** A count argument: a 400 when it is a constant above `limit`, else the SQL of the count capped at `limit`. */
export function boundedCount(p: Printed, limit: number, what: string, h: Helpers, node: NodeBase, least: (x: string, k: number) => string): string {
  if (p.isConst && typeof p.constValue === 'number' && p.constValue > limit) return h.error(`${what} is limited to ${limit.toLocaleString('en-US')}`, node);
  return p.isConst ? p.sql : least(p.sql, limit);
}

/**
 * The typing of an array built from `item`s (an array literal's, groupArray's): `Array(Tuple(...))` when they are
 * tuples, so results render them as JSON arrays (shapeResult) and `x.1` reads them. Empty otherwise.
 */
export function arrayOfTyping(item: Printed | undefined, timezone: string): { chType?: string } {
  return item?.tupleItems || item?.chType?.startsWith('Tuple(') ? { chType: `Array(${typeNameOf(item, timezone)})` } : {};
}

/** The typing an array function's result keeps from its array argument (sorted, filtered, sliced: same elements). */
export function sameArrayTyping(arr: Printed | undefined): { chType?: string } {
  return arr?.chType?.startsWith('Array(Tuple(') ? { chType: arr.chType } : {};
}

/**
 * `JSONExtract(json, keys..., 'Type')`: the JSONExtract<Kind> function that reads that ClickHouse type (String, Bool,
 * Int8 .. UInt64, Float32/Float64); a 400 for other types.
 */
export function jsonExtractFunction(type: Printed, h: Helpers, node: NodeBase): string {
  const t = type.isConst && typeof type.constValue === 'string' ? type.constValue : '';
  if (t === 'String') return 'JSONExtractString';
  if (t === 'Bool') return 'JSONExtractBool';
  if (/^U?Int(8|16|32|64)$/.test(t)) return 'JSONExtractInt';
  if (/^Float(32|64)$/.test(t)) return 'JSONExtractFloat';
  return h.error('JSONExtract takes the return type last, as a constant: String, Bool, Int8 .. Int64, UInt8 .. UInt64, Float32 or Float64', node);
}

/** arrayZip's typing: an array of tuples of the arrays' element types (String where unknown). */
export function zipTyping(arrays: Printed[]): { chType: string } {
  const element = (p: Printed) => (p.chType?.startsWith('Array(') ? p.chType.slice('Array('.length, -1) : 'String');
  return { chType: `Array(Tuple(${arrays.map(element).join(', ')}))` };
}
