/**
 * What a SQL dialect supplies to the compiler. The compiler (compiler.ts) owns resolution and safety: scopes,
 * the allow-lists, the project guard's placement, LIMIT handling. A dialect owns spelling: quoting, placeholders,
 * function mapping, casts, timezone handling and the text of a guarded table reference.
 */
import type { ArithmeticOp, CompareOp, ConstantValue, Expr, NodeBase } from './ast';
import type { FunctionSignature } from './functions';
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
}

export interface Helpers {
  /** Binds a value; returns the placeholder text. Equal values share one placeholder. */
  param(v: ConstantValue): string;
  /** The project's timezone, bound. */
  tz(): string;
  readonly timezone: string;
  error(message: string, node?: NodeBase | null): never;
}

/** Lazily joined columns a guarded table reference must expose (`__person_id`, `__person_properties`, ...). */
export interface TableNeeds {
  personId: boolean;
  personFields: string[];
}

export interface Dialect {
  readonly name: 'duckdb' | 'clickhouse';
  /**
   * When true, the compiler prints each CTE reference as the CTE's body in parentheses instead of a `WITH`
   * clause (for engines without `WITH name AS (SELECT ...)`, like ClickHouse 18.16). Default false.
   */
  readonly inlineCtes?: boolean;
  /**
   * When true, a repeated output name within one select list is aliased `<name>__dup<n>` in the SQL, and the
   * outermost select list gets positional aliases `__c0, __c1, ...` (result column names come from the compiled
   * columns, not from the engine). Default false.
   */
  readonly uniqueSelectNames?: boolean;
  /** When true, `GROUP BY 1` / `ORDER BY 2` are printed as the select item's expression. Default false (kept as is). */
  readonly positionalAsExpression?: boolean;
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
  call(fn: FunctionCall, h: Helpers): Printed;
  lambda(args: string[], body: Printed): Printed;
  arrayAccess(arr: Printed, index: Printed, h: Helpers): Printed;
  /**
   * A guarded reference to an engine table: `(SELECT ... FROM <table> AS <alias> ... WHERE <alias>.project_id = ?)
   * AS <alias>`, exposing the lazily joined person columns named in `needs`.
   */
  guardedTable(table: string, alias: string, projectParam: string, needs: TableNeeds): string;
  /** SQL of a lazily joined column as seen from outside the guarded reference. */
  lazyColumn(alias: string, name: 'person_id' | `person_${string}`): string;
}
