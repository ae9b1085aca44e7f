/**
 * HogQLX query tags where a table goes: `select * from (<ActorsQuery select={['properties.name']}><InsightActorsQuery
 * day='2020-01-12'><LifecycleQuery ... /></InsightActorsQuery></ActorsQuery>)`, as PostHog's own tests query the actors
 * of an insight (posthog/hogql_queries/insights/test/test_insight_actors_query_runner.py). PostHog's resolver turns
 * such a tag into the query node its attributes describe (a single child tag is its `source`, a nested tag a value
 * of its own) and runs that kind's runner; here the node is answered by Quarry's runner of that kind and its rows are
 * inlined as a literal table (one SELECT of constants per row, UNION ALL), which the printer guards and binds like
 * any other query.
 */
import { validationError } from '../../errors';
import { ast, type Expr, type Query } from '../../productql';
import { isHogQLXTag, type HogQLXTag, type JoinExpr, type SelectQuery } from '../../productql/ast';

/** Answers one query node (the kind's runner, with the HogQL query's context). */
export type RunNode = (node: Record<string, unknown>) => Promise<{ columns?: unknown; results?: unknown }>;

/** Whether the query text may hold a query tag (`<SomethingQuery`), so that others skip the extra parse. */
export const MAY_HOLD_QUERY_TAG = /<[A-Z][A-Za-z]*Query\b/;

/** The node a tag describes: attributes as keys (tags in them as nested objects), its one child tag as `source`. */
function tagToNode(tag: HogQLXTag, values: Record<string, unknown>): Record<string, unknown> {
  // Nodes carry their kind (EventsNode, ...), property filters their type (<PersonPropertyFilter />: person); plain
  // objects such as <DateRange /> have neither
  const filterType = FILTER_TYPES[tag.kind];
  const out: Record<string, unknown> = /(Query|Node)$/.test(tag.kind) ? { kind: tag.kind } : filterType ? { type: filterType } : {};
  for (const a of tag.attributes ?? []) {
    if (a.name === 'children') {
      const kids = (Array.isArray(a.value) ? a.value : [a.value]).filter(isHogQLXTag);
      if (kids.length > 1) throw validationError(`<${tag.kind}> takes one child tag (its source), not ${kids.length}.`);
      if (kids.length === 1) out.source = tagToNode(kids[0], values);
      continue;
    }
    out[a.name] = attributeValue(a.value, values, `<${tag.kind} ${a.name}>`);
  }
  return out;
}

/** The `type` of each property filter model of PostHog's schema, by its name. */
const FILTER_TYPES: Record<string, string> = {
  EventPropertyFilter: 'event',
  PersonPropertyFilter: 'person',
  ElementPropertyFilter: 'element',
  SessionPropertyFilter: 'session',
  CohortPropertyFilter: 'cohort',
  GroupPropertyFilter: 'group',
  FeaturePropertyFilter: 'feature',
  HogQLPropertyFilter: 'hogql',
  EventMetadataPropertyFilter: 'event_metadata',
};

function attributeValue(v: unknown, values: Record<string, unknown>, where: string): unknown {
  if (isHogQLXTag(v)) return tagToNode(v, values);
  if (Array.isArray(v)) return v.map((x) => attributeValue(x, values, where));
  const e = v as Expr & Record<string, unknown>;
  if (e && typeof e === 'object') {
    if (e.node === 'Constant') return e.value;
    if (e.node === 'Array' || e.node === 'Tuple') return (e.exprs as unknown[]).map((x) => attributeValue(x, values, where));
    // a placeholder ({name}) or a bare name: the query's `values`
    const inner = e.node === 'Placeholder' ? (e.expr as Expr & Record<string, unknown>) : e;
    const chain = inner?.node === 'Field' ? (inner.chain as unknown[]) : undefined;
    if (chain?.length === 1 && Object.prototype.hasOwnProperty.call(values, String(chain[0]))) return values[String(chain[0])];
  }
  throw validationError(`${where}: a HogQLX attribute of a query tag must be a constant, a list, a tag or a placeholder with a value.`);
}

/** A column name for the literal table: the select text's name (its last field for a chain), else `column_<i>`. */
function columnNames(columns: unknown, width: number): string[] {
  const list = Array.isArray(columns) ? columns.map((c) => String(c).split('--')[0].trim()) : [];
  const seen = new Set<string>();
  return Array.from({ length: width }, (_, i) => {
    const text = list[i] ?? '';
    const last = text.split('.').pop() ?? '';
    let name = /^[A-Za-z_$][\w$]*$/.test(text) ? text : /^[A-Za-z_$][\w$]*$/.test(last) ? last : `column_${i}`;
    if (seen.has(name)) name = `${name}_${i}`;
    seen.add(name);
    return name;
  });
}

function literal(v: unknown): Expr {
  if (v === null || v === undefined) return ast.constant(null);
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return ast.constant(v);
  if (Array.isArray(v) && v.every((x) => x === null || ['string', 'number', 'boolean'].includes(typeof x))) return ast.array(v.map(literal));
  // an actor object, a nested list: its JSON text
  return ast.constant(JSON.stringify(v));
}

/**
 * An ActorsQuery's actor columns (`person`, `actor`, `group`) as the actor's id: PostHog's ActorsQueryRunner selects
 * the id there (persons.id, groups.key) and only its answer replaces it by the actor object, which a query over the
 * tag never sees.
 */
function actorIds(columns: unknown, results: unknown): unknown {
  if (!Array.isArray(columns) || !Array.isArray(results)) return results;
  const at = columns.flatMap((c, i) => (['person', 'actor', 'group'].includes(String(c)) ? [i] : []));
  if (!at.length) return results;
  return results.map((row) => {
    if (!Array.isArray(row)) return row;
    const out = [...row];
    for (const i of at) {
      const cell = out[i] as { id?: unknown } | null;
      if (cell && typeof cell === 'object' && 'id' in cell) out[i] = cell.id;
    }
    return out;
  });
}

/** The rows of an answer as a query: one SELECT of constants per row, UNION ALL (none: one that has no row). */
function literalTable(kind: string, columns: unknown, results: unknown): Query {
  const rows = Array.isArray(results) ? (results as unknown[]).map((r) => (Array.isArray(r) ? r : [r])) : [];
  if (rows.length > MAX_INLINED_ROWS)
    throw validationError(`<${kind}> answered ${rows.length} rows; a query tag inlines at most ${MAX_INLINED_ROWS} (set its limit).`);
  const width = Math.max(Array.isArray(columns) ? columns.length : 0, ...rows.map((r) => r.length), 1);
  const names = columnNames(columns, width);
  if (!rows.length) return ast.select({ select: names.map((n) => ast.alias(n, ast.constant(null))), where: ast.constant(false) });
  // each row numbered, so that the rows keep the answer's order (the parts of a UNION ALL come in any order)
  const row = (r: unknown[], at: number): SelectQuery => ast.select({ select: [...names.map((n, i) => ast.alias(n, literal(r[i]))), ast.alias(ROW, ast.constant(at))] });
  const [first, ...rest] = rows.map(row);
  const union: Query = rest.length
    ? { node: 'SelectSetQuery', initial_select_query: first, subsequent_select_queries: rest.map((q) => ({ node: 'SelectSetNode', select_query: q, set_operator: 'UNION ALL' })) }
    : first;
  return ast.select({ select: names.map((n) => ast.field(n)), from: union, orderBy: [ast.order(ast.field(ROW), 'ASC')] });
}

const ROW = 'hogqlx_row_number';

/** The most rows a query tag's answer may bring in (each becomes a SELECT of constants in the printed query). */
export const MAX_INLINED_ROWS = 1_000;

/** The query with each query tag in a FROM or JOIN replaced by its answer (nested queries included). */
export async function inlineQueryTags(query: Query, values: Record<string, unknown>, run: RunNode): Promise<Query> {
  const visit = async (n: unknown): Promise<void> => {
    if (!n || typeof n !== 'object') return;
    if (Array.isArray(n)) {
      for (const x of n) await visit(x);
      return;
    }
    const o = n as Record<string, unknown>;
    if (o.node === 'JoinExpr' && isHogQLXTag(o.table) && /Query$/.test(o.table.kind)) {
      const answer = await run(tagToNode(o.table, values));
      const results = o.table.kind === 'ActorsQuery' ? actorIds(answer.columns, answer.results) : answer.results;
      (o as unknown as JoinExpr).table = literalTable(o.table.kind, answer.columns, results);
    }
    for (const v of Object.values(o)) if (v && typeof v === 'object') await visit(v);
  };
  await visit(query);
  return query;
}
