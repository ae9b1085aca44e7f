/**
 * Prints an AST back as ProductQL text, in two styles. This is display only; it never reaches an engine.
 * - {@link printHogQL} / {@link printHogQLExpr}: operators as written (`a = b AND c + 1 > 2`), text that parses back to
 *   the same expression with the same meaning (persons `properties=`, printed conditions in tests);
 * - {@link displayHogQL} / {@link displayHogQLExpr}: PostHog's printer in its "hogql" dialect (posthog/hogql/printer.py),
 *   which writes every operator as its function (`and(equals(a, b), greater(plus(c, 1), 2))`, `tuple(1, 2)`): the
 *   `hogql` field of an answer and the name of an unaliased column (`plus(1, 2)`), as PostHog returns them
 *   (test_query.py test_query / test_subquery / test_query_joins_*: `WHERE equals(properties.random_uuid, '...')`,
 *   `ON equals(pdi.distinct_id, e.distinct_id)`, `HAVING equals(argMax(is_deleted, version), 0)`).
 */
import type { ArithmeticOp, CompareOp, Expr, JoinExpr, OrderExpr, Query, SelectQuery, WindowExpr, WindowFrameExpr, CTE } from './ast';
import { hogqlxTagTuple, isHogQLXTag } from './ast';
import { SPARKLINE_MARKER } from './dialect';

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const KEYWORDS = new Set(['select', 'from', 'where', 'and', 'or', 'not', 'as', 'join', 'on', 'true', 'false', 'null', 'group', 'order', 'by', 'limit']);

export const hogqlIdent = (name: string | number): string => {
  const s = String(name);
  if (s === '*' || typeof name === 'number' || (IDENT.test(s) && !KEYWORDS.has(s.toLowerCase()))) return s;
  return '`' + s.replace(/\\/g, '\\\\').replace(/`/g, '``') + '`';
};

export const hogqlString = (s: string): string =>
  "'" +
  s
    .replace(/\\/g, '\\\\')
    .replace(/'/g, "\\'")
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t')
    .replace(/\0/g, '\\0') +
  "'";

/**
 * The value of a `{name}` / `{variables.name}` placeholder, or undefined where it has none: PostHog replaces
 * placeholders with their constants before it prints, so its `hogql` shows the values.
 */
export type PlaceholderValues = (chain: string[]) => unknown;

/** `posthog: false`: operators as written; `true`: PostHog's hogql dialect (operators as their functions, placeholders as their values). */
interface Style {
  posthog: boolean;
  values?: PlaceholderValues;
}
const SOURCE: Style = { posthog: false };

/** PostHog's printer.py visit_compare_operation: the function each comparison is written as. */
const COMPARE_FUNCTIONS: Partial<Record<CompareOp, string>> = {
  '==': 'equals',
  '!=': 'notEquals',
  '<': 'less',
  '<=': 'lessOrEquals',
  '>': 'greater',
  '>=': 'greaterOrEquals',
  like: 'like',
  'not like': 'notLike',
  ilike: 'ilike',
  'not ilike': 'notILike',
  in: 'in',
  'not in': 'notIn',
};

/** PostHog's printer.py visit_arithmetic_operation. */
const ARITHMETIC_FUNCTIONS: Record<ArithmeticOp, string> = { '+': 'plus', '-': 'minus', '*': 'multiply', '/': 'divide', '%': 'modulo' };

/** An operator node in PostHog's hogql dialect, or undefined for the nodes both styles print alike. */
function posthogOperator(e: Expr, style: Style): string | undefined {
  const x = (v: Expr) => exprText(v, style);
  switch (e.node) {
    case 'CompareOperation': {
      const [l, r] = [x(e.left), x(e.right)];
      const fn = COMPARE_FUNCTIONS[e.op];
      if (fn) return `${fn}(${l}, ${r})`;
      if (e.op === '=~') return `match(${l}, ${r})`;
      if (e.op === '!~') return `not(match(${l}, ${r}))`;
      if (e.op === '=~*') return `match(${l}, concat('(?i)', ${r}))`;
      if (e.op === '!~*') return `not(match(${l}, concat('(?i)', ${r})))`;
      return `${l} ${e.op.toUpperCase()} ${r}`;
    }
    case 'And':
    case 'Or':
      return e.exprs.length === 1 ? x(e.exprs[0]) : `${e.node === 'And' ? 'and' : 'or'}(${e.exprs.map(x).join(', ')})`;
    case 'Not':
      return `not(${x(e.expr)})`;
    case 'ArithmeticOperation':
      return `${ARITHMETIC_FUNCTIONS[e.op]}(${x(e.left)}, ${x(e.right)})`;
    case 'Tuple':
      return `tuple(${e.exprs.map(x).join(', ')})`;
    case 'Call':
      // PostHog's resolver turns sparkline(values) into its marker tuple before printing (test_sparkline.py)
      if (e.name === 'sparkline' && e.args?.length === 1 && !e.params && !e.distinct)
        return `tuple(${[...SPARKLINE_MARKER.map(hogqlString), x(e.args[0])].join(', ')})`;
      return undefined;
    case 'Placeholder': {
      const chain = e.expr?.node === 'Field' ? e.expr.chain.map(String) : undefined;
      const v = chain && style.values ? style.values(chain) : undefined;
      return v === undefined ? undefined : valueText(v);
    }
    default:
      return undefined;
  }
}

/** {@link PlaceholderValues} of a query's `values` (`{name}`) and variables (`{variables.name}`). */
export function placeholderValuesOf(values?: Record<string, unknown> | null, variables?: Record<string, unknown> | null): PlaceholderValues {
  const own = (o: Record<string, unknown> | null | undefined, k: string) => (o && Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined);
  return (chain) => (chain.length === 1 ? own(values, chain[0]) : chain.length === 2 && chain[0] === 'variables' ? own(variables, chain[1]) : undefined);
}

/** A placeholder's value as PostHog prints the constant it becomes; undefined for what is no constant. */
function valueText(v: unknown): string | undefined {
  if (v === null) return 'NULL';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : undefined;
  if (typeof v === 'string') return hogqlString(v);
  if (Array.isArray(v)) {
    const items = v.map(valueText);
    return items.every((x) => x !== undefined) ? `[${items.join(', ')}]` : undefined;
  }
  return undefined;
}

export const printHogQLExpr = (e: Expr): string => exprText(e, SOURCE);
export const displayHogQLExpr = (e: Expr, values?: PlaceholderValues): string => exprText(e, { posthog: true, values });

function exprText(e: Expr, style: Style): string {
  if (style.posthog) {
    const op = posthogOperator(e, style);
    if (op !== undefined) return op;
  }
  const ex = (x: Expr): string => exprText(x, style);
  const list = (xs: Expr[] | null | undefined): string => (xs ?? []).map(ex).join(', ');
  const wrap = (x: Expr): string => (isOperator(x) ? `(${ex(x)})` : ex(x));
  const qt = (x: Query): string => queryText(x, style);
  const printWindow = (w: WindowExpr) => windowText(w, style);
  switch (e.node) {
    case 'Constant': {
      const v = e.value;
      if (v === null) return 'NULL';
      if (typeof v === 'boolean') return v ? 'true' : 'false';
      if (typeof v === 'number') return String(v);
      return e.value_type === 'number' ? v : hogqlString(v);
    }
    case 'Field':
      return e.chain.map(hogqlIdent).join('.');
    case 'Alias':
      return `${ex(e.expr)} AS ${hogqlIdent(e.alias)}`;
    case 'Call': {
      const params = e.params ? `(${list(e.params)})` : '';
      const filter = e.filter_expr ? ` FILTER (WHERE ${ex(e.filter_expr)})` : '';
      return `${e.name}${params}(${e.distinct ? 'DISTINCT ' : ''}${list(e.args)})${filter}`;
    }
    case 'CompareOperation':
      return `${ex(e.left)} ${e.op === '==' ? '=' : e.op.toUpperCase()} ${ex(e.right)}`;
    case 'And':
      return e.exprs.map((x) => wrap(x)).join(' AND ');
    case 'Or':
      return '(' + e.exprs.map((x) => wrap(x)).join(' OR ') + ')';
    case 'Not':
      return `NOT ${wrap(e.expr)}`;
    case 'ArithmeticOperation':
      return `${wrap(e.left)} ${e.op} ${wrap(e.right)}`;
    case 'ArrayAccess':
      return `${ex(e.array)}[${ex(e.property)}]`;
    case 'TupleAccess':
      return `${wrap(e.tuple)}.${e.index}`;
    case 'Tuple':
      return `(${list(e.exprs)}${e.exprs.length === 1 ? ',' : ''})`;
    case 'Array':
      return `[${list(e.exprs)}]`;
    case 'Lambda':
      return `${e.args.length === 1 ? hogqlIdent(e.args[0]) : '(' + e.args.map(hogqlIdent).join(', ') + ')'} -> ${ex(e.expr)}`;
    case 'WindowFunction':
      return `${e.name}(${list(e.exprs)})${e.args?.length ? `(${list(e.args)})` : ''} OVER ${
        e.over_identifier ? hogqlIdent(e.over_identifier) : `(${printWindow(e.over_expr ?? { node: 'WindowExpr' })})`
      }`;
    case 'Placeholder':
      return `{${ex(e.expr)}}`;
    case 'BetweenExpr':
      return `${ex(e.expr)}${e.negated ? ' NOT' : ''} BETWEEN ${ex(e.low)} AND ${ex(e.high)}`;
    case 'SelectQuery':
    case 'SelectSetQuery':
      return `(${qt(e)})`;
    default:
      if (isHogQLXTag(e)) return ex(hogqlxTagTuple(e));
      return `<${(e as { node: string }).node}>`;
  }
}

const isOperator = (e: Expr): boolean => e.node === 'And' || e.node === 'Or' || e.node === 'ArithmeticOperation' || e.node === 'CompareOperation';

const orderText = (o: OrderExpr, style: Style): string => `${exprText(o.expr, style)} ${o.order}`;

const printFrame = (f: WindowFrameExpr): string =>
  f.frame_type === 'CURRENT ROW' ? 'CURRENT ROW' : `${f.frame_value ?? 'UNBOUNDED'} ${f.frame_type}`;

function windowText(w: WindowExpr, style: Style): string {
  const list = (xs: Expr[] | null | undefined): string => (xs ?? []).map((x) => exprText(x, style)).join(', ');
  const printOrder = (o: OrderExpr) => orderText(o, style);
  const parts: string[] = [];
  if (w.partition_by?.length) parts.push(`PARTITION BY ${list(w.partition_by)}`);
  if (w.order_by?.length) parts.push(`ORDER BY ${w.order_by.map(printOrder).join(', ')}`);
  if (w.frame_method && w.frame_start) {
    parts.push(
      w.frame_end
        ? `${w.frame_method} BETWEEN ${printFrame(w.frame_start)} AND ${printFrame(w.frame_end)}`
        : `${w.frame_method} ${printFrame(w.frame_start)}`,
    );
  }
  return parts.join(' ');
}

/** A SAMPLE ratio (`RatioExpr {left, right?}`): `0.1`, `1/10`. */
function printRatio(r: unknown): string {
  const x = r as { left?: Expr | null; right?: Expr | null } | null | undefined;
  if (!x?.left) return '?';
  return x.right ? `${printHogQLExpr(x.left)}/${printHogQLExpr(x.right)}` : printHogQLExpr(x.left);
}

function joinText(j: JoinExpr, first: boolean, style: Style): string {
  const ex = (x: Expr): string => exprText(x, style);
  const list = (xs: Expr[] | null | undefined): string => (xs ?? []).map(ex).join(', ');
  const qt = (x: Query): string => queryText(x, style);
  const printJoin = (x: JoinExpr, f: boolean) => joinText(x, f, style);
  let s = first ? '' : ` ${j.join_type ?? 'JOIN'} `;
  s += j.table.node === 'Field' ? j.table.chain.map(hogqlIdent).join('.') : `(${qt(j.table)})`;
  if (j.table_args?.length) s += `(${list(j.table_args)})`;
  if (j.alias) s += ` AS ${hogqlIdent(j.alias)}`;
  const sample = j.sample as { node?: string; sample_value?: unknown; offset_value?: unknown } | null | undefined;
  if (sample?.node === 'SampleExpr') s += ` SAMPLE ${printRatio(sample.sample_value)}${sample.offset_value ? ` OFFSET ${printRatio(sample.offset_value)}` : ''}`;
  if (j.constraint) s += ` ${j.constraint.constraint_type} ${ex(j.constraint.expr)}`;
  if (j.next_join) s += printJoin(j.next_join, false);
  return s;
}

const ctesOf = (q: SelectQuery): CTE[] => (Array.isArray(q.ctes) ? q.ctes : q.ctes ? Object.values(q.ctes) : []);

export const printHogQL = (q: Query): string => queryText(q, SOURCE);
export const displayHogQL = (q: Query, values?: PlaceholderValues): string => queryText(q, { posthog: true, values });

function queryText(q: Query, style: Style): string {
  const ex = (x: Expr): string => exprText(x, style);
  const list = (xs: Expr[] | null | undefined): string => (xs ?? []).map(ex).join(', ');
  const qt = (x: Query): string => queryText(x, style);
  const printJoin = (x: JoinExpr, f: boolean) => joinText(x, f, style);
  const printWindow = (w: WindowExpr) => windowText(w, style);
  const printOrder = (o: OrderExpr) => orderText(o, style);
  if (q.node === 'SelectSetQuery') {
    let s = qt(q.initial_select_query);
    for (const n of q.subsequent_select_queries) s += ` ${n.set_operator} ${qt(n.select_query)}`;
    if (q.limit) s = `SELECT * FROM (${s}) LIMIT ${ex(q.limit)}${q.offset ? ` OFFSET ${ex(q.offset)}` : ''}`;
    return s;
  }
  const parts: string[] = [];
  const ctes = ctesOf(q);
  if (ctes.length)
    parts.push(
      'WITH ' +
        ctes
          .map((c) => (c.cte_type === 'column' ? `${ex(c.expr)} AS ${hogqlIdent(c.name)}` : `${hogqlIdent(c.name)} AS ${ex(c.expr)}`))
          .join(', '),
    );
  parts.push(`SELECT${q.distinct ? ' DISTINCT' : ''} ${list(q.select)}`);
  if (q.select_from) parts.push(`FROM ${printJoin(q.select_from, true)}`);
  if (q.array_join_list?.length) parts.push(`${q.array_join_op ?? 'ARRAY JOIN'} ${list(q.array_join_list)}`);
  if (q.prewhere) parts.push(`PREWHERE ${ex(q.prewhere)}`);
  if (q.where) parts.push(`WHERE ${ex(q.where)}`);
  if (q.group_by_mode === 'all') parts.push('GROUP BY ALL');
  else if (q.group_by_mode === 'grouping_sets')
    parts.push(`GROUP BY GROUPING SETS (${(q.group_by ?? []).map((g) => `(${list((g as unknown as { exprs?: Expr[] }).exprs ?? [])})`).join(', ')})`);
  else if (q.group_by_mode === 'rollup' || q.group_by_mode === 'cube') parts.push(`GROUP BY ${q.group_by_mode.toUpperCase()}(${list(q.group_by ?? [])})`);
  else if (q.group_by?.length) parts.push(`GROUP BY ${list(q.group_by)}`);
  if (q.having) parts.push(`HAVING ${ex(q.having)}`);
  if (q.window_exprs && Object.keys(q.window_exprs).length)
    parts.push('WINDOW ' + Object.entries(q.window_exprs).map(([k, w]) => `${hogqlIdent(k)} AS (${printWindow(w)})`).join(', '));
  if (q.qualify) parts.push(`QUALIFY ${ex(q.qualify)}`);
  if (q.order_by?.length) parts.push(`ORDER BY ${q.order_by.map(printOrder).join(', ')}`);
  if (q.limit_by) parts.push(`LIMIT ${ex(q.limit_by.n)} BY ${list(q.limit_by.exprs)}`);
  if (q.limit) parts.push(`LIMIT ${ex(q.limit)}${q.limit_with_ties ? ' WITH TIES' : ''}`);
  if (q.offset) parts.push(`OFFSET ${ex(q.offset)}`);
  return parts.join(' ');
}
