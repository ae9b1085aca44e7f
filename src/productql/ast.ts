/**
 * ProductQL AST. The node shapes mirror what `@posthog/hogql-parser` emits (PostHog's HogQL AST, field names in
 * snake_case) so a parsed query needs no translation; `start`/`end` are source offsets (absent on built nodes).
 *
 * Insight runners build queries with the helpers at the bottom of this file and hand them to the same
 * compiler/printer as parsed text, so safety (project guard, bound literals, allow-listed functions) applies to
 * both.
 */

export interface NodeBase {
  /** Source offset of the first character (parsed nodes only). */
  start?: number;
  /** Source offset after the last character (parsed nodes only). */
  end?: number;
}

export type ConstantValue = string | number | boolean | null;

export interface Constant extends NodeBase {
  node: 'Constant';
  value: ConstantValue;
  /** Set by the parser for integers too large for a double-safe representation (value is then a string). */
  value_type?: 'number';
}

export interface Field extends NodeBase {
  node: 'Field';
  chain: (string | number)[];
}

export interface Call extends NodeBase {
  node: 'Call';
  name: string;
  args: Expr[];
  /** Parametric aggregate parameters: `quantile(0.9)(x)` has params [0.9]. */
  params?: Expr[] | null;
  distinct?: boolean;
  filter_expr?: Expr | null;
}

export interface Alias extends NodeBase {
  node: 'Alias';
  alias: string;
  expr: Expr;
  hidden?: boolean;
}

export type CompareOp =
  | '=='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | 'like'
  | 'not like'
  | 'ilike'
  | 'not ilike'
  | 'in'
  | 'not in'
  | 'in cohort'
  | 'not in cohort'
  | '=~'
  | '!~'
  | '=~*'
  | '!~*';

export interface CompareOperation extends NodeBase {
  node: 'CompareOperation';
  op: CompareOp;
  left: Expr;
  right: Expr;
}

export interface And extends NodeBase {
  node: 'And';
  exprs: Expr[];
}
export interface Or extends NodeBase {
  node: 'Or';
  exprs: Expr[];
}
export interface Not extends NodeBase {
  node: 'Not';
  expr: Expr;
}

export type ArithmeticOp = '+' | '-' | '*' | '/' | '%';
export interface ArithmeticOperation extends NodeBase {
  node: 'ArithmeticOperation';
  op: ArithmeticOp;
  left: Expr;
  right: Expr;
}

export interface ArrayAccess extends NodeBase {
  node: 'ArrayAccess';
  array: Expr;
  property: Expr;
  nullish?: boolean;
}
export interface TupleAccess extends NodeBase {
  node: 'TupleAccess';
  tuple: Expr;
  index: number;
}
export interface Tuple extends NodeBase {
  node: 'Tuple';
  exprs: Expr[];
}
export interface ArrayExpr extends NodeBase {
  node: 'Array';
  exprs: Expr[];
}
export interface Lambda extends NodeBase {
  node: 'Lambda';
  args: string[];
  expr: Expr;
}

export interface WindowFrameExpr extends NodeBase {
  node: 'WindowFrameExpr';
  frame_type: 'CURRENT ROW' | 'PRECEDING' | 'FOLLOWING';
  frame_value?: number | null;
}
export interface WindowExpr extends NodeBase {
  node: 'WindowExpr';
  partition_by?: Expr[] | null;
  order_by?: OrderExpr[] | null;
  frame_method?: 'ROWS' | 'RANGE' | null;
  frame_start?: WindowFrameExpr | null;
  frame_end?: WindowFrameExpr | null;
}
export interface WindowFunction extends NodeBase {
  node: 'WindowFunction';
  name: string;
  exprs?: Expr[] | null;
  args?: Expr[] | null;
  over_expr?: WindowExpr | null;
  over_identifier?: string | null;
}

export interface Placeholder extends NodeBase {
  node: 'Placeholder';
  expr: Expr;
}

export interface BetweenExpr extends NodeBase {
  node: 'BetweenExpr';
  expr: Expr;
  low: Expr;
  high: Expr;
  negated?: boolean;
}

export interface OrderExpr extends NodeBase {
  node: 'OrderExpr';
  expr: Expr;
  order: 'ASC' | 'DESC';
  /** `WITH FILL [FROM a] [TO b] [STEP s]` (parsed, not printed: see Compiler.orderExpr). */
  with_fill?: { node: 'WithFillExpr'; from_value?: Expr; to_value?: Expr; step_value?: Expr } | null;
}

export interface JoinConstraint extends NodeBase {
  node: 'JoinConstraint';
  expr: Expr;
  constraint_type: 'ON' | 'USING';
}

export interface JoinExpr extends NodeBase {
  node: 'JoinExpr';
  table: Field | SelectQuery | SelectSetQuery;
  alias?: string | null;
  join_type?: string | null;
  constraint?: JoinConstraint | null;
  next_join?: JoinExpr | null;
  table_args?: Expr[] | null;
  table_final?: boolean | null;
  sample?: unknown;
}

export interface CTE extends NodeBase {
  node: 'CTE';
  name: string;
  expr: Expr;
  cte_type: 'subquery' | 'column';
  /**
   * Set by Quarry's own query builders (the parser never sets it): the result is computed once, before the query,
   * where the dialect supports it (Dialect.stagesCtes); elsewhere an ordinary CTE.
   */
  materialized?: boolean;
}

export interface LimitByExpr extends NodeBase {
  node: 'LimitByExpr';
  n: Expr;
  offset_value?: Expr | null;
  exprs: Expr[];
}

export interface SelectQuery extends NodeBase {
  node: 'SelectQuery';
  /** The parser emits a list; PostHog's Python AST uses a dict — both are accepted. */
  ctes?: CTE[] | Record<string, CTE> | null;
  select: Expr[];
  distinct?: boolean | null;
  select_from?: JoinExpr | null;
  where?: Expr | null;
  prewhere?: Expr | null;
  having?: Expr | null;
  qualify?: Expr | null;
  group_by?: Expr[] | null;
  /** `GROUP BY ALL`, `ROLLUP(...)`, `CUBE(...)`, `GROUPING SETS (...)` (then group_by holds GroupingSet nodes). */
  group_by_mode?: 'all' | 'rollup' | 'cube' | 'grouping_sets' | null;
  order_by?: OrderExpr[] | null;
  limit?: Expr | null;
  offset?: Expr | null;
  limit_with_ties?: boolean | null;
  limit_by?: LimitByExpr | null;
  array_join_op?: string | null;
  array_join_list?: Expr[] | null;
  window_exprs?: Record<string, WindowExpr> | null;
}

export type SetOperator = 'UNION ALL' | 'UNION DISTINCT' | 'INTERSECT' | 'INTERSECT DISTINCT' | 'EXCEPT';

export interface SelectSetNode extends NodeBase {
  node: 'SelectSetNode';
  select_query: SelectQuery | SelectSetQuery;
  set_operator: SetOperator;
}

export interface SelectSetQuery extends NodeBase {
  node: 'SelectSetQuery';
  initial_select_query: SelectQuery | SelectSetQuery;
  subsequent_select_queries: SelectSetNode[];
  limit?: Expr | null;
  offset?: Expr | null;
}

export type Query = SelectQuery | SelectSetQuery;

export type Expr =
  | Constant
  | Field
  | Call
  | Alias
  | CompareOperation
  | And
  | Or
  | Not
  | ArithmeticOperation
  | ArrayAccess
  | TupleAccess
  | Tuple
  | ArrayExpr
  | Lambda
  | WindowFunction
  | Placeholder
  | BetweenExpr
  | SelectQuery
  | SelectSetQuery;

export type AnyNode = Expr | OrderExpr | JoinExpr | JoinConstraint | CTE | WindowExpr | WindowFrameExpr | SelectSetNode;

export const isQuery = (n: unknown): n is Query =>
  !!n && typeof n === 'object' && ((n as Expr).node === 'SelectQuery' || (n as Expr).node === 'SelectSetQuery');

// ---------------------------------------------------------------------------------------------------------------
// Builders. Kept deliberately small: every helper returns a plain node, so runners can also spread and edit.

export const constant = (value: ConstantValue): Constant => ({ node: 'Constant', value });

/** `field('properties', '$browser')` or `field('e.event')` — a dotted string is split on dots. */
export const field = (...chain: (string | number)[]): Field => ({
  node: 'Field',
  chain: chain.length === 1 && typeof chain[0] === 'string' ? chain[0].split('.') : chain,
});

export const call = (name: string, args: Expr[] = [], opts: { params?: Expr[]; distinct?: boolean } = {}): Call => ({
  node: 'Call',
  name,
  args,
  ...(opts.params ? { params: opts.params } : {}),
  ...(opts.distinct ? { distinct: true } : {}),
});

export const alias = (name: string, expr: Expr): Alias => ({ node: 'Alias', alias: name, expr });

export const compare = (op: CompareOp, left: Expr, right: Expr): CompareOperation => ({
  node: 'CompareOperation',
  op,
  left,
  right,
});
export const eq = (left: Expr, right: Expr): CompareOperation => compare('==', left, right);

/** AND of the given expressions; drops undefined; a single expression is returned as is; none → `true`. */
export const and = (...exprs: (Expr | null | undefined)[]): Expr => {
  const xs = exprs.filter((e): e is Expr => !!e);
  if (xs.length === 0) return constant(true);
  return xs.length === 1 ? xs[0] : { node: 'And', exprs: xs };
};
export const or = (...exprs: (Expr | null | undefined)[]): Expr => {
  const xs = exprs.filter((e): e is Expr => !!e);
  if (xs.length === 0) return constant(false);
  return xs.length === 1 ? xs[0] : { node: 'Or', exprs: xs };
};
export const not = (expr: Expr): Not => ({ node: 'Not', expr });

export const arithmetic = (op: ArithmeticOp, left: Expr, right: Expr): ArithmeticOperation => ({
  node: 'ArithmeticOperation',
  op,
  left,
  right,
});

export const tuple = (exprs: Expr[]): Tuple => ({ node: 'Tuple', exprs });
export const array = (exprs: Expr[]): ArrayExpr => ({ node: 'Array', exprs });

/** A HogQLX tag as the parser gives it (`<strong>hi</strong>`: kind `strong`, a `children` attribute holding a list). */
export interface HogQLXTag extends NodeBase {
  node: 'HogQLXTag';
  kind: string;
  attributes?: { name: string; value: unknown }[];
}

export const isHogQLXTag = (n: unknown): n is HogQLXTag => !!n && typeof n === 'object' && (n as { node?: unknown }).node === 'HogQLXTag';

/**
 * A HogQLX tag in an expression, as PostHog's resolver reads it (posthog/hogql/resolver.py visit_hogqlx_tag,
 * convert_to_hx): the tuple `('__hx_tag', kind, name1, value1, ...)` (the shape recording_button returns and the
 * frontend renders), a list (`children`) as an array, a nested tag as its own tuple.
 */
export function hogqlxTagTuple(tag: HogQLXTag): Tuple {
  const value = (v: unknown): Expr =>
    isHogQLXTag(v) ? hogqlxTagTuple(v) : Array.isArray(v) ? { node: 'Array', exprs: v.map(value) } : v && typeof v === 'object' && 'node' in v ? (v as Expr) : constant(v as ConstantValue);
  const exprs: Expr[] = [constant('__hx_tag'), constant(tag.kind)];
  for (const a of tag.attributes ?? []) exprs.push(constant(a.name), value(a.value));
  return { node: 'Tuple', exprs, start: tag.start, end: tag.end };
}
export const lambda = (args: string[], expr: Expr): Lambda => ({ node: 'Lambda', args, expr });
export const between = (expr: Expr, low: Expr, high: Expr, negated = false): BetweenExpr => ({
  node: 'BetweenExpr',
  expr,
  low,
  high,
  negated,
});
export const placeholder = (name: string): Placeholder => ({ node: 'Placeholder', expr: field(name) });
export const order = (expr: Expr, dir: 'ASC' | 'DESC' = 'ASC'): OrderExpr => ({ node: 'OrderExpr', expr, order: dir });

export const windowFunction = (
  name: string,
  exprs: Expr[],
  over: { partition_by?: Expr[]; order_by?: OrderExpr[] } | string,
): WindowFunction => ({
  node: 'WindowFunction',
  name,
  exprs,
  ...(typeof over === 'string' ? { over_identifier: over } : { over_expr: { node: 'WindowExpr', ...over } }),
});

export type JoinType = 'INNER JOIN' | 'LEFT JOIN' | 'RIGHT JOIN' | 'FULL OUTER JOIN' | 'CROSS JOIN' | 'ASOF JOIN' | 'ASOF LEFT JOIN';

/** A FROM/JOIN item. `table` is a table name (`'events'`), a field, or a subquery. */
export const joinExpr = (
  table: string | Field | Query,
  opts: { alias?: string; type?: JoinType; on?: Expr; next?: JoinExpr } = {},
): JoinExpr => ({
  node: 'JoinExpr',
  table: typeof table === 'string' ? field(table) : table,
  ...(opts.alias ? { alias: opts.alias } : {}),
  ...(opts.type ? { join_type: opts.type } : {}),
  ...(opts.on ? { constraint: { node: 'JoinConstraint', expr: opts.on, constraint_type: 'ON' } } : {}),
  ...(opts.next ? { next_join: opts.next } : {}),
});

/** Chains join items: `joins(from('events','e'), joinExpr('persons', {alias:'p', type:'LEFT JOIN', on}))`. */
export const joins = (...items: JoinExpr[]): JoinExpr => {
  const copy = items.map((j) => ({ ...j, next_join: null as JoinExpr | null }));
  for (let i = 0; i < copy.length - 1; i++) copy[i].next_join = copy[i + 1];
  return copy[0];
};

export interface SelectParts {
  select: Expr[];
  from?: string | JoinExpr | Query;
  /** Alias of `from` when it is a table name or subquery. */
  fromAlias?: string;
  where?: Expr;
  groupBy?: Expr[];
  having?: Expr;
  orderBy?: OrderExpr[];
  limit?: number;
  offset?: number;
  distinct?: boolean;
  ctes?: CTE[];
}

export const select = (parts: SelectParts): SelectQuery => {
  let from: JoinExpr | undefined;
  if (parts.from !== undefined) {
    from =
      typeof parts.from === 'object' && (parts.from as JoinExpr).node === 'JoinExpr'
        ? (parts.from as JoinExpr)
        : joinExpr(parts.from as string | Query, { alias: parts.fromAlias });
  }
  return {
    node: 'SelectQuery',
    select: parts.select,
    ...(from ? { select_from: from } : {}),
    ...(parts.where ? { where: parts.where } : {}),
    ...(parts.groupBy ? { group_by: parts.groupBy } : {}),
    ...(parts.having ? { having: parts.having } : {}),
    ...(parts.orderBy ? { order_by: parts.orderBy } : {}),
    ...(parts.limit !== undefined ? { limit: constant(parts.limit) } : {}),
    ...(parts.offset !== undefined ? { offset: constant(parts.offset) } : {}),
    ...(parts.distinct ? { distinct: true } : {}),
    ...(parts.ctes ? { ctes: parts.ctes } : {}),
  };
};

export const cte = (name: string, expr: Query, o: { materialized?: boolean } = {}): CTE => ({
  node: 'CTE',
  name,
  expr,
  cte_type: 'subquery',
  ...(o.materialized ? { materialized: true } : {}),
});

export const unionAll = (...queries: SelectQuery[]): SelectSetQuery => ({
  node: 'SelectSetQuery',
  initial_select_query: queries[0],
  subsequent_select_queries: queries
    .slice(1)
    .map((q) => ({ node: 'SelectSetNode', select_query: q, set_operator: 'UNION ALL' as SetOperator })),
});
