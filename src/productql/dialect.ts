/**
 * What a SQL dialect supplies to the compiler. The compiler (compiler.ts) owns resolution and safety: scopes,
 * the allow-lists, the project guard's placement, LIMIT handling. A dialect owns spelling: quoting, placeholders,
 * function mapping, casts, timezone handling and the text of a guarded table reference.
 */
import type { ArithmeticOp, CompareOp, ConstantValue, Expr, NodeBase } from './ast';
import { TIMEZONE_ARGUMENT, lookupFunction, timezoneArgumentIndex, type FunctionSignature } from './functions';
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
  /** For lambdas: the body's typing (arrayMap types its array by it: Array(Tuple(...)), Array(DateTime64(6, tz)), ...). */
  lambdaBody?: Pick<Printed, 'type' | 'chType' | 'tupleItems' | 'displayTz' | 'wholeSeconds' | 'nullable' | 'isConst' | 'constValue'>;
  /**
   * For datetimes: a ClickHouse DateTime (whole seconds: toDateTime of a number or datetime, toStartOfDay, ...) rather
   * than the DateTime64(6) of `timestamp`, now() and toDateTime(text); toString writes no fraction then. Unset: six
   * decimals, `2023-01-01 12:00:00.000000`.
   */
  wholeSeconds?: boolean;
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
  // Comparisons and logical operators are UInt8 in ClickHouse; only true/false and toBool are Bool (chType).
  bool: 'UInt8',
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
 * Whether a boolean value is of ClickHouse's Bool type (the literals true/false, toBool): those read and print as
 * true/false. Other booleans (comparisons, and/or/not, like, in, ...) are UInt8 in ClickHouse: 1/0, text '1'/'0'.
 */
export const isBoolTyped = (p: Pick<Printed, 'type' | 'chType'>): boolean => p.type === 'bool' && p.chType?.replace(/^Nullable\((.*)\)$/, '$1') === 'Bool';

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

/**
 * ClickHouse's type of integer arithmetic (NumberTraits): `+` and `*` the next size up of the larger operand, signed
 * when one is (UInt8 + UInt8 is UInt16); `-` the same, always signed; `%` the size of the divisor (the next one up
 * when the dividend is signed), signed as the dividend. Undefined unless both operands are integers.
 */
export function intArithmeticTypeName(op: string, l: Printed, r: Printed, timezone: string): string | undefined {
  if (l.type !== 'int' || r.type !== 'int') return undefined;
  const parse = (p: Printed) => /^(?:Nullable\()?(U?)Int(8|16|32|64)\)?$/.exec(typeNameOf(p, timezone));
  const [a, b] = [parse(l), parse(r)];
  if (!a || !b) return undefined;
  const [aSigned, bSigned] = [a[1] === '', b[1] === ''];
  const [aBits, bBits] = [Number(a[2]), Number(b[2])];
  const next = (bits: number) => Math.min(bits * 2, 64);
  const name = (signed: boolean, bits: number) => `${signed ? '' : 'U'}Int${bits}`;
  if (op === '+' || op === '*') return name(aSigned || bSigned, next(Math.max(aBits, bBits)));
  if (op === '-') return name(true, next(Math.max(aBits, bBits)));
  if (op === '%') return name(aSigned, aSigned ? next(bBits) : bBits);
  return undefined;
}

/**
 * ClickHouse's type of `if` / `multiIf` / `nullIf` when it is clear from the values it can take: their common type,
 * Nullable when one of them is NULL (`if(c, NULL, 1)`: Nullable(UInt8)) and always for nullIf; undefined otherwise
 * (values of different or unknown types, where the printed type stands).
 */
export function conditionalTypeName(name: string, args: Printed[], timezone: string): string | undefined {
  const coalescing = name === 'coalesce' || name === 'ifNull';
  const values = coalescing ? args : name === 'nullIf' ? args.slice(0, 1) : name === 'if' ? args.slice(1, 3) : name === 'multiIf' ? args.filter((_, i) => i % 2 === 1 || i === args.length - 1) : [];
  const typed = values.filter((v) => v.type !== 'null');
  if (!typed.length) return undefined;
  // coalesce / ifNull: of the values' non-Nullable types, Nullable only when every value is
  const names = typed.map((v) => typeNameOf(v, timezone)).map((x) => (coalescing ? x.replace(/^Nullable\((.*)\)$/, '$1') : x));
  const common = leastSupertype(names);
  if (!common) return undefined;
  const nullable = coalescing ? values.every((v) => v.type === 'null' || v.nullable) : name === 'nullIf' || typed.length < values.length;
  return nullable ? `Nullable(${common})` : common;
}

/**
 * ClickHouse's least supertype (getLeastSupertype) of integer, Float64 and String type names: one name as it is;
 * integers the widest unsigned, or a signed one wider than every unsigned (UInt8 and Int8: Int16); integers of at most
 * 32 bits with Float64 a Float64. Undefined where ClickHouse has none (UInt64 with a signed type, 64-bit integers with
 * Float64, numbers with text) or for other types.
 */
function leastSupertype(names: string[]): string | undefined {
  if (names.every((x) => x === names[0])) return /^(U?Int(8|16|32|64)|Float64|String)$/.test(names[0]) ? names[0] : undefined;
  let unsigned = 0;
  let signed = 0;
  let float = false;
  for (const x of names) {
    const m = /^(U?)Int(8|16|32|64)$/.exec(x);
    if (m) {
      if (m[1]) unsigned = Math.max(unsigned, Number(m[2]));
      else signed = Math.max(signed, Number(m[2]));
    } else if (x === 'Float64') float = true;
    else return undefined;
  }
  if (float) return Math.max(unsigned, signed) <= 32 ? 'Float64' : undefined;
  if (!signed) return `UInt${unsigned}`;
  const bits = Math.max(signed, unsigned * 2);
  return bits <= 64 ? `Int${bits}` : undefined;
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
  /**
   * lagInFrame / leadInFrame: whether the row at the offset is inside the window frame — always, never, or when it
   * is a peer of the current row (`peers`: the printed ORDER BY expressions). Unset: not known.
   */
  inFrame?: { reach: 'always' | 'never' | 'peers'; peers: string[] };
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

/**
 * How an interval counts in its own unit (ClickHouse returns and writes an IntervalDay as its number of days): months
 * per unit for the calendar units, seconds per unit for the others.
 */
export const MONTHS_PER_UNIT: Partial<Record<IntervalUnit, number>> = { year: 12, quarter: 3, month: 1 };
export const SECONDS_PER_UNIT: Partial<Record<IntervalUnit, number>> = { week: 604_800, day: 86_400, hour: 3_600, minute: 60, second: 1 };

/** Unit name from a constant argument ('day', 'DAY', 'days'). */
export function unitOf(p: Printed, h: Helpers, node: NodeBase): IntervalUnit {
  const raw = typeof p.constValue === 'string' ? p.constValue.toLowerCase().replace(/s$/, '') : undefined;
  const u = INTERVAL_UNITS.find((x) => x === raw);
  if (!p.isConst || !u) return h.error(`Unit must be one of ${INTERVAL_UNITS.join(', ')}`, node);
  return u;
}

/** The digits of `floor(x, N)` / `ceil(x, N)`: a constant integer, as ClickHouse requires; a 400 otherwise. */
export function roundingDigits(p: Printed, name: string, h: Helpers, node: NodeBase): number {
  const k = p.constValue;
  if (!p.isConst || typeof k !== 'number' || !Number.isInteger(k) || Math.abs(k) > 18) return h.error(`The second argument of ${name} must be a constant integer (decimal places)`, node);
  return k;
}

/**
 * `toStartOfInterval(value, INTERVAL k unit)`: the interval's constant positive count and unit, and whether the value
 * is a Date (a Date takes a unit of a day or more); a 400 otherwise.
 */
export function startOfIntervalArgs(a: Printed[], h: Helpers, node: NodeBase, subDay: (u: IntervalUnit) => boolean): { k: number; unit: IntervalUnit; isDate: boolean } {
  const iv = a[1];
  const cnt = iv.intervalCount;
  // the count a constant number, or text of one (toIntervalDay('1'), as ClickHouse reads it)
  const v = cnt?.isConst ? cnt.constValue : undefined;
  const k = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
  if (iv.type !== 'interval' || !Number.isSafeInteger(k) || k < 1)
    return h.error('toStartOfInterval takes an interval with a constant positive count, such as INTERVAL 5 minute', node);
  const unit = iv.intervalUnit as IntervalUnit;
  const isDate = a[0].type === 'date';
  if (isDate && subDay(unit)) return h.error(`toStartOfInterval on a Date takes a unit of a day or more, not ${unit}`, node);
  return { k, unit, isDate };
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
   * True when the project may hold events stored without a person (EventEngine.hasPersonlessEvents): the events'
   * person id is then the override of the stored one, else the stored one, else (an event stored without a person)
   * the person its distinct id maps to now (person_distinct_ids), as PostHog credits a personless distinct id's
   * events to the person it gets later. Unset: the pdi fallback join is left out.
   */
  personless?: true;
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
  /**
   * `(a, b) IN (SELECT x, y ...)`: the subquery's SQL (`sub`, of `columns` columns, more than one) as a one-column
   * subquery of tuples, for engines whose IN takes one column only (DuckDB). Absent: the subquery is kept as is
   * (ClickHouse compares a tuple with the rows of several columns).
   */
  tupleRows?(sub: string, columns: number): string;
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
   * `person_id` is (the stored column), so null tests need not wait for the override join and can prune scans. Not
   * asked for when {@link TableNeeds.personless} is set (a stored NULL may then resolve through person_distinct_ids).
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

/**
 * formatDateTime's format codes (current ClickHouse's, each a one-character code after `%`). `%M` is the month's name
 * (ClickHouse since 23.4; 18.16 read it as the minute, which is `%i`), `%i` / `%s` / `%h` are the MySQL spellings of
 * minute, second and 12-hour hour, `%c` / `%k` / `%l` print the month and hours with their leading zero (ClickHouse's
 * default, formatdatetime_format_without_leading_zeros = 0); `%f` the microseconds, six digits (000000 for a value without a
 * fraction: a DateTime or Date, as ClickHouse since 23.4); `%g` the ISO 8601 week-based year's last two digits (`%G`'s).
 */
export const FORMAT_CODES = 'YmdHMSFTDRyejuwpIGgVzish%abcCklrQWntf';
/**
 * Codes that are spelled with others: `%F` is `%Y-%m-%d`, `%T` `%H:%M:%S`, `%D` `%m/%d/%y`, `%R` `%H:%M`, `%i` `%M`, ...
 * After this expansion, `%M` is the minute, `%B` / `%A` the month's / weekday's full name (strftime's codes).
 */
const COMPOSITE_CODES: Record<string, string> = {
  F: '%Y-%m-%d',
  T: '%H:%M:%S',
  D: '%m/%d/%y',
  R: '%H:%M',
  i: '%M',
  s: '%S',
  h: '%I',
  c: '%m',
  k: '%H',
  l: '%I',
  r: '%I:%M %p',
  n: '\n',
  t: '\t',
  M: '%B',
  W: '%A',
};
/** The English names formatDateTime's `%a`, `%A`, `%b`, `%B` print. */
export const WEEKDAY_NAMES = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

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
  return p.type === 'datetime' && p.chType ? /^DateTime(?:64\(\d, )?\(?'([^']+)'\)$/.exec(p.chType)?.[1] : undefined;
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

/**
 * How the printers read a constant text as a datetime: `valid` is `YYYY-MM-DD[( |T)hh:mm:ss[.f]][offset]` with every
 * part in range, read with the strict parse (not Nullable); `invalid` is that shape with a part out of range (month
 * 13, 24:00), NULL for toDateTime; `other` text goes to the engine's lenient parse. HogQL prints toDateTime of text as
 * parseDateTime64BestEffortOrNull, so only text that is not `valid` makes toDateTime Nullable.
 */
export function dateTimeTextShape(text: string): 'valid' | 'invalid' | 'other' {
  const s = text.trim();
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?)?(Z|[+-]\d\d(?::?\d\d)?)?$/i.exec(s);
  if (!m || (m[7] && !m[4])) return 'other';
  const [y, mo, d, hh, mi, ss] = m.slice(1, 7).map((x) => Number(x ?? 0));
  const back = new Date(0);
  back.setUTCFullYear(y, mo - 1, d); // (Date.UTC reads years 0..99 as 1900..1999)
  back.setUTCHours(hh, mi, ss);
  const same = back.getUTCFullYear() === y && back.getUTCMonth() === mo - 1 && back.getUTCDate() === d && back.getUTCHours() === hh && back.getUTCMinutes() === mi && back.getUTCSeconds() === ss;
  return same ? 'valid' : 'invalid';
}

/**
 * Whether `toDateTime(p[, zone])` is Nullable: when `p` is, when it is neither a datetime nor a constant, and when it
 * is constant text that is not a clean datetime (`lenient`, toDateTime's reading: such text may read NULL).
 */
export function dateTimeNullable(p: Printed, lenient: boolean): boolean {
  if (p.nullable || !(p.type === 'datetime' || p.isConst)) return true;
  return lenient && (p.type === 'string' || p.type === 'json') && dateTimeTextShape(String(p.constValue)) !== 'valid';
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

/** The authority of a URL (`user:pass@host:port`, after `//`), in group 1. */
export const URL_NETLOC = `^(?:${URL_SCHEME}:)?//([^/?#]*)`;
/** The port of a URL's authority, in group 1 (an IPv6 host is bracketed). */
export const URL_PORT = `^(?:${URL_SCHEME}:)?//(?:[^/?#@]*@)?(?:\\[[^\\]/?#]*\\]|[^/?#:]*):([0-9]+)(?:[/?#]|$)`;

/** port(url[, default]): the default, a constant integer (0 when left out; a 400 otherwise). */
export function portDefault(a: Printed[], h: Helpers, node: NodeBase): number {
  if (a.length < 2) return 0;
  const d = a[1].constValue;
  if (!a[1].isConst || typeof d !== 'number' || !Number.isInteger(d) || d < 0 || d > 65535) return h.error('port takes a constant default port from 0 to 65535', node);
  return d;
}

/** sparkline(values): PostHog's chart marker, `('__hogql_chart_type', 'sparkline', 'results', values)`. */
export const SPARKLINE_MARKER = ['__hogql_chart_type', 'sparkline', 'results'];

/**
 * recording_button(session_id[, recording_status]) (posthog/hogql/functions/recording_button.py): the tag tuple
 * `('__hx_tag', 'RecordingButton', 'sessionId', session_id)`, with `'recordingStatus', recording_status` after it
 * when that is given. The marker's constants, then which argument follows each name.
 */
export const RECORDING_BUTTON_MARKER = ['__hx_tag', 'RecordingButton'];
export const RECORDING_BUTTON_ARGS = ['sessionId', 'recordingStatus'];

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

/**
 * The typing of groupArray(x) / groupUniqArray(x): arrayOfTyping's for tuples; `Array(T)` for text, numbers, datetimes
 * and dates (so results render each element as the value renders, shapeResult), T the
 * type of x without Nullable (ClickHouse leaves NULLs out: groupArray of a Nullable(String) is an Array(String)), so
 * toString writes `['a','b']`. Empty otherwise.
 */
export function groupArrayTyping(item: Printed | undefined, timezone: string): { chType?: string } {
  const tuples = arrayOfTyping(item, timezone);
  if (tuples.chType || !item || !['string', 'int', 'float', 'bool', 'datetime', 'date'].includes(item.type)) return tuples;
  return { chType: `Array(${typeNameOf({ ...item, nullable: false }, timezone).replace(/^Nullable\((.*)\)$/, '$1')})` };
}

/**
 * The typing of an array literal (`[1, 2, 3]`): arrayOfTyping's for tuples; otherwise `Array(<T>)` when ClickHouse's
 * element type is clear from the items — all of one known type (`['a', 'b']`: Array(String), `[[1], [2, 3]]`:
 * Array(Array(UInt8))), or all unsigned integer literals (the widest of their types). Empty when unclear (mixed
 * types, NULL items, values of unknown type), where an element read out of range stays NULL (see elementDefault).
 */
export function arrayLiteralTyping(items: Printed[], timezone: string): { chType?: string } {
  const tuples = arrayOfTyping(items[0], timezone);
  if (tuples.chType || items.length === 0) return tuples;
  const scalar = (p: Printed) => ['int', 'float', 'string', 'bool', 'datetime', 'date'].includes(p.type);
  const known = (p: Printed) => !p.nullable && (scalar(p) || (p.type === 'array' && !!p.chType?.startsWith('Array(')));
  if (!items.every(known)) {
    // Nullable items of one scalar type (`[properties.$browser]`): ClickHouse's Array(Nullable(T)), whose text is
    // `['Chrome']` / `[NULL]`
    if (!items.every(scalar)) return {};
    const bases = items.map((p) => typeNameOf({ ...p, nullable: false }, timezone));
    return bases.every((x) => x === bases[0]) && !bases[0].startsWith('Nullable(') ? { chType: `Array(Nullable(${bases[0]}))` } : {};
  }
  const names = items.map((p) => typeNameOf(p, timezone));
  if (names.every((x) => x === names[0])) return { chType: `Array(${names[0]})` };
  const widths = names.map((x) => /^UInt(8|16|32|64)$/.exec(x)?.[1]);
  if (widths.every((w) => w !== undefined)) return { chType: `Array(UInt${Math.max(...widths.map(Number))})` };
  // numbers with a Float64 among them: ClickHouse's common type is Float64 (`[1.5, 2]`)
  if (names.includes('Float64') && names.every((x) => /^(U?Int(8|16|32|64)|Float64)$/.test(x))) return { chType: 'Array(Float64)' };
  return {};
}

/**
 * What ClickHouse reads for an element of a (non-Nullable) array `arr` outside its bounds (`[1, 2][5]`, `arr[-9]`,
 * `arrayElement(arr, 0)` at run time): the default of the element type (0, '', false, []) and that type's typing.
 * Undefined when the element type is not known, or is Nullable (whose default is NULL).
 */
export function elementDefault(arr: Printed): { sql: string; type: PType; chType: string } | undefined {
  if (arr.nullable || !arr.chType?.startsWith('Array(') || !arr.chType.endsWith(')')) return undefined;
  const inner = arr.chType.slice('Array('.length, -1);
  if (/^(U?Int(8|16|32|64)|Float(32|64))$/.test(inner)) return { sql: '0', type: inner.startsWith('Float') ? 'float' : 'int', chType: inner };
  if (inner === 'String') return { sql: "''", type: 'string', chType: inner };
  if (inner === 'Bool') return { sql: 'false', type: 'bool', chType: inner };
  if (inner.startsWith('Array(')) return { sql: '[]', type: 'array', chType: inner };
  return undefined;
}

/**
 * The typing of one element taken out of `arr` (arrayJoin, arrayFirst / arrayLast): its known non-Nullable type when
 * elementDefault knows it (so it is not NULL, and an element read out of it has a default too), else arrayElementTyping.
 */
export function elementTyping(arr: Printed): Pick<Printed, 'type' | 'nullable' | 'chType'> {
  const d = elementDefault(arr);
  return d ? { type: d.type, nullable: false, chType: d.chType } : { type: 'unknown', nullable: true, ...arrayElementTyping(arr) };
}

/**
 * arrayFlatten of an array whose nesting is known from its ClickHouse type (`Array(Array(Array(UInt8)))`): how many
 * one-level flattens make it flat, and the flat array's type. One flatten when the nesting is not known.
 */
export function flattenDepth(arr: Pick<Printed, 'chType'>): { times: number; chType?: string } {
  let inner = arr.chType;
  let depth = 0;
  while (inner?.startsWith('Array(') && inner.endsWith(')')) {
    inner = inner.slice('Array('.length, -1);
    depth++;
  }
  return depth >= 2 && inner ? { times: depth - 1, chType: `Array(${inner})` } : { times: 1 };
}

/** The typing an array function's result keeps from its array argument (sorted, filtered, sliced: same elements). */
export function sameArrayTyping(arr: Printed | undefined): { chType?: string } {
  return arr?.chType?.startsWith('Array(') ? { chType: arr.chType } : {};
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

/**
 * `JSONExtract(json, keys..., 'Array(T)')` (PostHog's own tests filter on `has(JSONExtract(…, 'Array(String)'), x)`):
 * `T` when the return type is an array of a scalar type JSONExtract reads, else undefined.
 */
export function jsonExtractArrayElement(type: Printed): string | undefined {
  const t = type.isConst && typeof type.constValue === 'string' ? type.constValue : '';
  const m = /^Array\((String|Bool|U?Int(?:8|16|32|64)|Float(?:32|64))\)$/.exec(t);
  return m ? m[1] : undefined;
}

/** arrayZip's typing: an array of tuples of the arrays' element types (String where unknown). */
export function zipTyping(arrays: Printed[]): { chType: string } {
  const element = (p: Printed) => (p.chType?.startsWith('Array(') ? p.chType.slice('Array('.length, -1) : 'String');
  return { chType: `Array(Tuple(${arrays.map(element).join(', ')}))` };
}

/**
 * `toUInt8(x)` .. `toInt64OrZero(x)`: the width, signedness and variant of a fixed-width integer conversion (undefined
 * for other names, and for toInt64 / toInt64OrNull, which are toInt). The value is toInt's (a number truncated
 * toward zero, a string read as an integer; NULL when it is none, as "1.5"), then wrapped into the width as ClickHouse converts
 * integers (`toUInt8(300)` is 44, `toUInt8(-1)` 255, `toInt8(200)` -56). -OrZero reads 0 where toInt reads NULL;
 * the plain name reads NULL there as -OrNull does (ClickHouse throws: a NULL rather than a failed query).
 */
export function intConversionOf(name: string): IntConversion | undefined {
  if (!name.startsWith('toInt') && !name.startsWith('toUInt')) return undefined;
  const m = /^to(U?)Int(8|16|32|64)(OrNull|OrZero)?$/.exec(name);
  if (!m || (m[1] === '' && m[2] === '64' && m[3] !== 'OrZero')) return undefined;
  const orNull = m[3] === 'OrNull';
  return { bits: Number(m[2]) as 8 | 16 | 32 | 64, signed: m[1] === '', orZero: m[3] === 'OrZero', nullable: (x) => orNull || convertedNullable(x) };
}

export interface IntConversion {
  bits: 8 | 16 | 32 | 64;
  signed: boolean;
  orZero: boolean;
  /** Whether the result is typed Nullable (as ClickHouse types it: -OrNull always; otherwise as a non-number input). */
  nullable(x: Printed): boolean;
}

/** A plain conversion's result is NULL where its input is, or where a non-number input cannot be read. */
const convertedNullable = (x: Printed): boolean => x.nullable || !(x.type === 'int' || x.type === 'float' || x.type === 'bool');

/** ClickHouse's type name of an integer conversion's result (`UInt8`, `Int16`, ...). */
export const intTypeName = (c: { bits: number; signed: boolean }): string => `${c.signed ? '' : 'U'}Int${c.bits}`;

/**
 * `toDecimal(x, S)`, `toDecimal32/64/128[OrNull|OrZero](x, S)`: the precision (9, 18, 38 digits) and the constant scale
 * S (0 .. precision; a 400 otherwise); undefined for other names. The value has S decimals, the rest cut off (as
 * ClickHouse converts: a number `x` is `trunc(x * 10^S) / 10^S` in Float64, as ClickHouse multiplies; a string keeps
 * its first S decimal digits exactly); NULL when it is unreadable or has more than precision - S integer digits (0 for
 * -OrZero; ClickHouse's plain toDecimal32/64/128 throw there: a NULL rather than a failed query). HogQL's toDecimal is
 * `accurateCastOrNull(x, 'Decimal64(S)')`.
 */
export function decimalConversionOf(name: string, scale: Printed | undefined, h: Helpers, node: NodeBase): DecimalConversion | undefined {
  if (!name.startsWith('toDecimal')) return undefined;
  const m = /^toDecimal(32|64|128)?(OrNull|OrZero)?$/.exec(name);
  if (!m || (m[1] === undefined && m[2] !== undefined)) return undefined;
  const precision = { '32': 9, '64': 18, '128': 38 }[m[1] ?? '64']!;
  const s = scale?.constValue;
  if (!scale?.isConst || typeof s !== 'number' || !Number.isInteger(s) || s < 0 || s > precision)
    return h.error(`${name} takes a constant scale from 0 to ${precision} as its second argument`, node);
  const orNull = m[1] === undefined || m[2] === 'OrNull';
  return { precision, scale: s, orZero: m[2] === 'OrZero', typeName: `Decimal(${precision}, ${s})`, nullable: (x) => orNull || convertedNullable(x) };
}

export interface DecimalConversion {
  precision: number;
  scale: number;
  orZero: boolean;
  typeName: string;
  /** Whether the result is typed Nullable (toDecimal and -OrNull always, as accurateCastOrNull; else as its input). */
  nullable(x: Printed): boolean;
}

/** The RE2 pattern (for a regexp replace with `\1`) that keeps a decimal number's text up to `scale` decimals. */
export const decimalTextPattern = (scale: number): string => `^\\s*([+-]?[0-9]*(?:[.][0-9]{0,${scale}})?)[0-9]*\\s*$`;

/** `topK(k)(x)`'s k: a constant integer from 1 to 10,000 (10 when not given). */
export function topKSize(fn: FunctionCall, h: Helpers): number {
  const k = fn.params.length ? fn.params[0].constValue : 10;
  if (typeof k !== 'number' || !Number.isSafeInteger(k) || k < 1 || k > 10_000) return h.error('topK takes a constant integer from 1 to 10000', fn.node);
  return k;
}

/** groupArray(max_size)(x) / groupUniqArray(max_size)(x): the constant size, undefined without a parameter. */
export function groupArraySize(fn: FunctionCall, h: Helpers): number | undefined {
  if (!fn.params.length) return undefined;
  const k = fn.params[0].constValue;
  if (typeof k !== 'number' || !Number.isSafeInteger(k) || k < 1) return h.error(`Parameter for aggregate function ${fn.sig.name} should be positive number`, fn.node);
  return k;
}

/**
 * The capturing groups of an RE2 pattern: each `(` that is not escaped, not in a character class and not `(?...`
 * other than a named group `(?P<name>` / `(?<name>`.
 */
export function captureGroupCount(re: string): number {
  let inClass = false;
  let groups = 0;
  for (let i = 0; i < re.length; i++) {
    const c = re[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') {
      inClass = true;
      if (re[i + 1] === '^') i++;
      if (re[i + 1] === ']') i++;
    } else if (c === '(' && (re[i + 1] !== '?' || re.startsWith('P<', i + 2) || (re[i + 2] === '<' && re[i + 3] !== '=' && re[i + 3] !== '!'))) groups++;
  }
  return groups;
}

/**
 * regexpExtract(haystack, pattern[, index]): the constant pattern and the group to read (default 1, 0 the whole
 * match), which must exist in the pattern, as in ClickHouse.
 */
export function regexpExtractArgs(fn: FunctionCall, h: Helpers): { pattern: string; index: number } {
  const [, p, i] = fn.args;
  if (!p.isConst || typeof p.constValue !== 'string') return h.error('regexpExtract takes a constant pattern', fn.node);
  const index = i ? i.constValue : 1;
  if (i && !i.isConst) return h.error('regexpExtract takes a constant group index', fn.node);
  const groups = captureGroupCount(p.constValue);
  if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index > groups)
    return h.error(`Index value ${String(index)} is out of range, should be in [0, ${groups}]`, fn.node);
  return { pattern: p.constValue, index };
}

/**
 * ClickHouse's format(pattern, args...): the constant pattern as literal text and 0-based argument indexes. `{}`
 * takes the next argument, `{n}` argument n, `{{` and `}}` are braces. Mixing `{}` with `{n}`, an unmatched brace,
 * or an argument that is not there is a 400.
 */
export function formatTemplate(fn: FunctionCall, h: Helpers): (string | number)[] {
  const p = fn.args[0];
  if (!p.isConst || typeof p.constValue !== 'string') return h.error('format takes a constant pattern', fn.node);
  const pattern = p.constValue;
  const argCount = fn.args.length - 1;
  const out: (string | number)[] = [];
  let text = '';
  let next = 0;
  let mode: 'auto' | 'manual' | undefined;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if ((c === '{' || c === '}') && pattern[i + 1] === c) {
      text += c;
      i++;
      continue;
    }
    if (c === '}') return h.error("Unmatched '}' in format string", fn.node);
    if (c !== '{') {
      text += c;
      continue;
    }
    const close = pattern.indexOf('}', i);
    if (close < 0) return h.error("Unmatched '{' in format string", fn.node);
    const inner = pattern.slice(i + 1, close);
    if (inner !== '' && !/^\d+$/.test(inner)) return h.error(`Not a number in curly braces at position ${i}`, fn.node);
    const m = inner === '' ? 'auto' : 'manual';
    if (mode && mode !== m)
      return h.error(m === 'auto' ? 'Cannot switch from manual field specification to automatic field numbering' : 'Cannot switch from automatic field numbering to manual field specification', fn.node);
    mode = m;
    const index = inner === '' ? next++ : Number(inner);
    if (index >= argCount) return h.error(`Argument is too big for formatting: ${index} (the pattern has ${argCount} argument${argCount === 1 ? '' : 's'})`, fn.node);
    if (text) out.push(text);
    text = '';
    out.push(index);
    i = close;
  }
  if (text) out.push(text);
  return out;
}

/**
 * The zone-taking forms, the same in every dialect: `f(x, …, 'tz')` (the value moved into the zone, then `f` without
 * it; a datetime result shows in that zone, as ClickHouse's DateTime(zone)) and `toDayOfWeek(x, mode)`. Undefined
 * when `fn` is neither.
 */
export function zonedCall(
  fn: FunctionCall,
  h: Helpers,
  call: (fn: FunctionCall, h: Helpers) => Printed,
  inZone: (p: Printed, zone: Printed, h: Helpers, node: NodeBase) => Printed,
): Printed | undefined {
  const a = fn.args;
  if (TIMEZONE_ARGUMENT.has(fn.sig.name) && a.length > timezoneArgumentIndex(fn.sig.name)) {
    const i = timezoneArgumentIndex(fn.sig.name);
    const out = call({ ...fn, args: [inZone(a[0], a[i], h, fn.node), ...a.slice(1, i)], raw: fn.raw.slice(0, i) }, h);
    const zone = a[i].constValue as string;
    return out.type === 'datetime' && !out.displayTz ? { ...out, displayTz: zone, chType: `DateTime64(6, '${zone}')` } : out;
  }
  if (fn.sig.name === 'toDayOfWeek' && a.length > 1) {
    const iso = call({ ...fn, args: a.slice(0, 1), raw: fn.raw.slice(0, 1) }, h);
    return { sql: dayOfWeekInMode(iso.sql, a[1], h, fn.node), type: 'int', nullable: iso.nullable };
  }
  return undefined;
}

/**
 * `toDayOfWeek(x, mode)`: ClickHouse's modes over the ISO day number `iso` (Monday 1 .. Sunday 7): 0 is that, 1 Monday
 * 0 .. Sunday 6, 2 Sunday 0 .. Saturday 6, 3 Sunday 1 .. Saturday 7. The mode must be a constant 0 to 3 (a 400).
 */
export function dayOfWeekInMode(iso: string, mode: Printed, h: Helpers, node: NodeBase): string {
  const m = mode.constValue;
  if (!mode.isConst || typeof m !== 'number' || ![0, 1, 2, 3].includes(m)) return h.error('toDayOfWeek mode must be a constant 0, 1, 2 or 3', node);
  return [iso, `(${iso} - 1)`, `(${iso} % 7)`, `(${iso} % 7 + 1)`][m];
}

/**
 * `<aggregate>OrNull` / `<aggregate>OrDefault` (FunctionSignature.orOf): the aggregate's call, and the call that counts
 * its values (count(x), or countArray(x) under -Array) over the same rows: no value counted is "nothing to aggregate".
 */
export function orCombinatorParts(fn: FunctionCall): { value: FunctionCall; count: FunctionCall } {
  const value = { ...fn, sig: lookupFunction(fn.sig.orOf!.base)! };
  let base = value;
  for (let u = unwrapIfCombinator(base); u; u = unwrapIfCombinator(base)) base = u;
  if (base.sig.name.endsWith('If') && !base.sig.ifOf) {
    // an -If aggregate of its own (sumIf, countIf, ...): its last argument is the condition
    const cond = base.args[base.args.length - 1];
    base = { ...base, args: base.args.slice(0, -1), raw: base.raw.slice(0, -1), filter: [base.filter, `(${cond.sql})`].filter(Boolean).join(' AND ') };
  }
  const counter = lookupFunction(base.sig.arrayOf ? 'countArray' : 'count')!;
  return { value, count: { ...base, sig: counter, args: base.args.slice(0, 1), raw: base.raw.slice(0, 1), params: [], distinct: false } };
}

/** What `<aggregate>OrDefault` reads with nothing to aggregate: its type's default (bound by `param`); undefined when it has none to name. */
/**
 * The typing of an aggregate that returns one of its values (min, max, any, anyLast, anyHeavy, argMin, argMax): the
 * value's ClickHouse type (any(true) is Bool, any(1 = 1) UInt8, max(1) UInt8), and Nullable only when the value is,
 * as no row gives the type's default (0, '', false). Values of other types keep the printed typing (`{}`).
 */
export function sameValueTyping(value: Printed, timezone: string): Pick<Printed, 'chType' | 'displayTz' | 'wholeSeconds'> & { nullable?: boolean } {
  // a datetime keeps its type and zone (max(toStartOfDay(t)) is a DateTime, shown and written without a fraction);
  // its aggregate of no row stays NULL here
  if (value.type === 'datetime')
    return { ...(value.chType ? { chType: value.chType } : {}), ...(value.displayTz ? { displayTz: value.displayTz } : {}), ...(value.wholeSeconds ? { wholeSeconds: true } : {}) };
  if (!['bool', 'int', 'float', 'string'].includes(value.type) || value.tupleItems) return {};
  if (value.type === 'string') return { nullable: value.nullable };
  return { chType: typeNameOf({ ...value, nullable: false }, timezone).replace(/^Nullable\((.*)\)$/, '$1'), nullable: value.nullable };
}

export function aggregateDefault(p: Printed, param: (v: ConstantValue) => string): string | undefined {
  if (p.type === 'int' || p.type === 'float') return '0';
  if (p.type === 'string') return param('');
  return undefined;
}

/**
 * MD5 / SHA1 / SHA256 of a string: ClickHouse returns the digest's bytes (FixedString(16 / 20 / 32)), which no JSON
 * result can show; Quarry shows them as lowercase hex text on every engine (what `lower(hex(MD5(s)))` reads in
 * ClickHouse), typed by the FixedString, and `hex()` of such a value is its uppercase hex, as ClickHouse's `hex(MD5(s))`.
 * Their length() is the text's (32, 40, 64), not the bytes'.
 */
export const HASH_DIGESTS: Readonly<Record<string, { duck: string; bytes: number }>> = {
  MD5: { duck: 'md5', bytes: 16 },
  SHA1: { duck: 'sha1', bytes: 20 },
  SHA256: { duck: 'sha256', bytes: 32 },
};

/** Whether a value is a hash digest (HASH_DIGESTS): hex() of it is its uppercase text. */
export const isHashDigest = (p: Printed): boolean => !!p.chType && /^FixedString\((16|20|32)\)$/.test(p.chType);

/** The argument of a hash function: a string (a 400 otherwise, as ClickHouse's take String only). */
export function hashArgument(fn: FunctionCall, h: Helpers): Printed {
  const x = fn.args[0];
  if (!(x.type === 'string' || x.type === 'json' || x.type === 'unknown' || x.type === 'null')) return h.error(`${fn.sig.name} takes a string: use ${fn.sig.name}(toString(x))`, fn.node);
  return x;
}

/** The argument of intHash32 / intHash64: an integer (a 400 otherwise, as ClickHouse's take integers only). */
export function intHashArgument(fn: FunctionCall, h: Helpers): Printed {
  const x = fn.args[0];
  if (!(x.type === 'int' || x.type === 'null')) return h.error(`${fn.sig.name} takes an integer: use ${fn.sig.name}(toInt(x))`, fn.node);
  return x;
}

/** parseDateTimeInJodaSyntax's fixed-width Joda fields, as the MySQL codes parseDateTime reads. */
const JODA_CODES: Record<string, string> = { yyyy: '%Y', MM: '%m', dd: '%d', HH: '%H', mm: '%i', ss: '%s' };

/**
 * `parseDateTimeInJodaSyntax(text, format[, tz])` (HogQL's parseDateTimeInJodaSyntaxOrNull): its Joda format as the
 * MySQL format parseDateTime reads (`yyyy-MM-dd HH:mm:ss` is `%Y-%m-%d %H:%i:%s`); letters are fields (yyyy MM dd HH mm
 * ss here), other characters and `'quoted'` text literals (`''` a quote). An error message for any other field.
 */
export function jodaToMysqlFormat(format: string): { format: string } | { error: string } {
  let out = '';
  for (let i = 0; i < format.length; ) {
    const ch = format[i];
    if (ch === "'") {
      const end = format.indexOf("'", i + 1);
      if (end < 0) return { error: 'parseDateTimeInJodaSyntax: an unterminated quote in the format' };
      out += end === i + 1 ? "'" : format.slice(i + 1, end).replace(/%/g, '%%');
      i = end + 1;
    } else if (/[A-Za-z]/.test(ch)) {
      let j = i;
      while (format[j] === ch) j++;
      const field = format.slice(i, j);
      if (!Object.prototype.hasOwnProperty.call(JODA_CODES, field)) return { error: `parseDateTimeInJodaSyntax: unsupported field "${field}" (supported: yyyy MM dd HH mm ss)` };
      out += JODA_CODES[field];
      i = j;
    } else {
      out += ch === '%' ? '%%' : ch;
      i++;
    }
  }
  return { format: out };
}

/** parseDateTime's format codes (MySQL's, as ClickHouse reads them) that Quarry reads: fixed-width numbers. */
const PARSE_CODES: Record<string, { re: string; part: 'Y' | 'm' | 'd' | 'H' | 'i' | 's' }> = {
  Y: { re: '([0-9]{4})', part: 'Y' },
  m: { re: '([0-9]{2})', part: 'm' },
  d: { re: '([0-9]{2})', part: 'd' },
  H: { re: '([0-9]{2})', part: 'H' },
  i: { re: '([0-9]{2})', part: 'i' },
  s: { re: '([0-9]{2})', part: 's' },
  S: { re: '([0-9]{2})', part: 's' },
};

/**
 * `parseDateTime(text, format[, tz])` (HogQL's parseDateTimeOrNull, MySQL format codes): an RE2 pattern matching the
 * whole text, and the replacement (`\\1` ...) that rewrites a match as `YYYY-MM-DD hh:mm:ss` (parts the format lacks
 * are the start of their unit: day 01, time 00). The format must be a constant with %Y, %m, %d, %H, %i, %s / %S, %%
 * only, each part at most once, and a year (a 400 otherwise).
 */
export function parseDateTimeFormat(format: Printed, h: Helpers, node: NodeBase): { pattern: string; template: string } {
  const f = format.constValue;
  if (!format.isConst || typeof f !== 'string') return h.error('parseDateTime takes a constant format string', node);
  let pattern = '^';
  const group: Partial<Record<string, number>> = {};
  let n = 0;
  for (let i = 0; i < f.length; i++) {
    const ch = f[i];
    if (ch !== '%') {
      pattern += ch.replace(/[\\^$.|?*+()[\]{}]/g, (c) => `\\${c}`);
      continue;
    }
    const code = f[++i];
    if (code === '%') {
      pattern += '%';
      continue;
    }
    const c = code === undefined ? undefined : PARSE_CODES[code];
    if (!c) return h.error(`parseDateTime: unsupported format code "%${code ?? ''}" (supported: %Y %m %d %H %i %s %S %%)`, node);
    if (group[c.part] !== undefined) return h.error(`parseDateTime: the format reads "%${code}" twice`, node);
    group[c.part] = ++n;
    pattern += c.re;
  }
  if (group.Y === undefined) return h.error('parseDateTime: the format must read a year (%Y)', node);
  const g = (part: string, dflt: string) => (group[part] !== undefined ? `\\${group[part]}` : dflt);
  return { pattern: `${pattern}$`, template: `${g('Y', '')}-${g('m', '01')}-${g('d', '01')} ${g('H', '00')}:${g('i', '00')}:${g('s', '00')}` };
}
