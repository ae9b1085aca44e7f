/**
 * Prints an AST back as normalized ProductQL text: the `hogql` field of a response and the name of an
 * unaliased column (`count()`). This is display only; it never reaches an engine.
 */
import type { Expr, JoinExpr, OrderExpr, Query, SelectQuery, WindowExpr, WindowFrameExpr, CTE } from './ast';
import { hogqlxTagTuple, isHogQLXTag } from './ast';

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

const list = (xs: Expr[] | null | undefined): string => (xs ?? []).map(printHogQLExpr).join(', ');

export function printHogQLExpr(e: Expr): string {
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
      return `${printHogQLExpr(e.expr)} AS ${hogqlIdent(e.alias)}`;
    case 'Call': {
      const params = e.params ? `(${list(e.params)})` : '';
      const filter = e.filter_expr ? ` FILTER (WHERE ${printHogQLExpr(e.filter_expr)})` : '';
      return `${e.name}${params}(${e.distinct ? 'DISTINCT ' : ''}${list(e.args)})${filter}`;
    }
    case 'CompareOperation':
      return `${printHogQLExpr(e.left)} ${e.op === '==' ? '=' : e.op.toUpperCase()} ${printHogQLExpr(e.right)}`;
    case 'And':
      return e.exprs.map((x) => wrap(x)).join(' AND ');
    case 'Or':
      return '(' + e.exprs.map((x) => wrap(x)).join(' OR ') + ')';
    case 'Not':
      return `NOT ${wrap(e.expr)}`;
    case 'ArithmeticOperation':
      return `${wrap(e.left)} ${e.op} ${wrap(e.right)}`;
    case 'ArrayAccess':
      return `${printHogQLExpr(e.array)}[${printHogQLExpr(e.property)}]`;
    case 'TupleAccess':
      return `${wrap(e.tuple)}.${e.index}`;
    case 'Tuple':
      return `(${list(e.exprs)}${e.exprs.length === 1 ? ',' : ''})`;
    case 'Array':
      return `[${list(e.exprs)}]`;
    case 'Lambda':
      return `${e.args.length === 1 ? hogqlIdent(e.args[0]) : '(' + e.args.map(hogqlIdent).join(', ') + ')'} -> ${printHogQLExpr(e.expr)}`;
    case 'WindowFunction':
      return `${e.name}(${list(e.exprs)})${e.args?.length ? `(${list(e.args)})` : ''} OVER ${
        e.over_identifier ? hogqlIdent(e.over_identifier) : `(${printWindow(e.over_expr ?? { node: 'WindowExpr' })})`
      }`;
    case 'Placeholder':
      return `{${printHogQLExpr(e.expr)}}`;
    case 'BetweenExpr':
      return `${printHogQLExpr(e.expr)}${e.negated ? ' NOT' : ''} BETWEEN ${printHogQLExpr(e.low)} AND ${printHogQLExpr(e.high)}`;
    case 'SelectQuery':
    case 'SelectSetQuery':
      return `(${printHogQL(e)})`;
    default:
      if (isHogQLXTag(e)) return printHogQLExpr(hogqlxTagTuple(e));
      return `<${(e as { node: string }).node}>`;
  }
}

const wrap = (e: Expr): string =>
  e.node === 'And' || e.node === 'Or' || e.node === 'ArithmeticOperation' || e.node === 'CompareOperation'
    ? `(${printHogQLExpr(e)})`
    : printHogQLExpr(e);

const printOrder = (o: OrderExpr): string => `${printHogQLExpr(o.expr)} ${o.order}`;

const printFrame = (f: WindowFrameExpr): string =>
  f.frame_type === 'CURRENT ROW' ? 'CURRENT ROW' : `${f.frame_value ?? 'UNBOUNDED'} ${f.frame_type}`;

function printWindow(w: WindowExpr): string {
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

function printJoin(j: JoinExpr, first: boolean): string {
  let s = first ? '' : ` ${j.join_type ?? 'JOIN'} `;
  s += j.table.node === 'Field' ? j.table.chain.map(hogqlIdent).join('.') : `(${printHogQL(j.table)})`;
  if (j.table_args?.length) s += `(${list(j.table_args)})`;
  if (j.alias) s += ` AS ${hogqlIdent(j.alias)}`;
  const sample = j.sample as { node?: string; sample_value?: unknown; offset_value?: unknown } | null | undefined;
  if (sample?.node === 'SampleExpr') s += ` SAMPLE ${printRatio(sample.sample_value)}${sample.offset_value ? ` OFFSET ${printRatio(sample.offset_value)}` : ''}`;
  if (j.constraint) s += ` ${j.constraint.constraint_type} ${printHogQLExpr(j.constraint.expr)}`;
  if (j.next_join) s += printJoin(j.next_join, false);
  return s;
}

const ctesOf = (q: SelectQuery): CTE[] => (Array.isArray(q.ctes) ? q.ctes : q.ctes ? Object.values(q.ctes) : []);

export function printHogQL(q: Query): string {
  if (q.node === 'SelectSetQuery') {
    let s = printHogQL(q.initial_select_query);
    for (const n of q.subsequent_select_queries) s += ` ${n.set_operator} ${printHogQL(n.select_query)}`;
    if (q.limit) s = `SELECT * FROM (${s}) LIMIT ${printHogQLExpr(q.limit)}${q.offset ? ` OFFSET ${printHogQLExpr(q.offset)}` : ''}`;
    return s;
  }
  const parts: string[] = [];
  const ctes = ctesOf(q);
  if (ctes.length)
    parts.push(
      'WITH ' +
        ctes
          .map((c) => (c.cte_type === 'column' ? `${printHogQLExpr(c.expr)} AS ${hogqlIdent(c.name)}` : `${hogqlIdent(c.name)} AS ${printHogQLExpr(c.expr)}`))
          .join(', '),
    );
  parts.push(`SELECT${q.distinct ? ' DISTINCT' : ''} ${list(q.select)}`);
  if (q.select_from) parts.push(`FROM ${printJoin(q.select_from, true)}`);
  if (q.array_join_list?.length) parts.push(`${q.array_join_op ?? 'ARRAY JOIN'} ${list(q.array_join_list)}`);
  if (q.prewhere) parts.push(`PREWHERE ${printHogQLExpr(q.prewhere)}`);
  if (q.where) parts.push(`WHERE ${printHogQLExpr(q.where)}`);
  if (q.group_by_mode === 'all') parts.push('GROUP BY ALL');
  else if (q.group_by_mode === 'grouping_sets')
    parts.push(`GROUP BY GROUPING SETS (${(q.group_by ?? []).map((g) => `(${list((g as unknown as { exprs?: Expr[] }).exprs ?? [])})`).join(', ')})`);
  else if (q.group_by_mode === 'rollup' || q.group_by_mode === 'cube') parts.push(`GROUP BY ${q.group_by_mode.toUpperCase()}(${list(q.group_by ?? [])})`);
  else if (q.group_by?.length) parts.push(`GROUP BY ${list(q.group_by)}`);
  if (q.having) parts.push(`HAVING ${printHogQLExpr(q.having)}`);
  if (q.window_exprs && Object.keys(q.window_exprs).length)
    parts.push('WINDOW ' + Object.entries(q.window_exprs).map(([k, w]) => `${hogqlIdent(k)} AS (${printWindow(w)})`).join(', '));
  if (q.qualify) parts.push(`QUALIFY ${printHogQLExpr(q.qualify)}`);
  if (q.order_by?.length) parts.push(`ORDER BY ${q.order_by.map(printOrder).join(', ')}`);
  if (q.limit_by) parts.push(`LIMIT ${printHogQLExpr(q.limit_by.n)} BY ${list(q.limit_by.exprs)}`);
  if (q.limit) parts.push(`LIMIT ${printHogQLExpr(q.limit)}${q.limit_with_ties ? ' WITH TIES' : ''}`);
  if (q.offset) parts.push(`OFFSET ${printHogQLExpr(q.offset)}`);
  return parts.join(' ');
}
