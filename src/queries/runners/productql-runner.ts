import { z } from 'zod';
import { validationError } from '../../errors';
import { productqlError } from '../../productql/errors';
import { assertResultSize } from '../../limits';
import { ast, compileProductQL, parseSelect, shapeResult, type CompileProductQLInput, type CompiledProductQL, type Expr, type Query } from '../../productql';
import { executeCompiled, projectCompileInput } from '../insights/execute';
import { insightsNow, parseDateString } from '../insights/date-range';
import { instantToLocal, sqlLocal } from '../insights/local-time';
import { ensureFilterParser, propertiesToExpr, testAccountFiltersExpr } from '../insights/property-filters';
import { dateRangeSchema, propertiesSchema } from '../insights/schema';
import type { QueryRunner, RunnerContext } from '../runner';
import { productqlQuerySchema, variableValues } from '../schema/productql-query';
import { savedVariableRefs, unknownSavedVariables, withSavedDefaults } from '../../endpoints/variables';
import { MAY_MATCH_ACTION, withActions } from '../../actions/productql-actions';
import { MAY_HOLD_QUERY_TAG, inlineQueryTags } from './hogqlx-queries';

/** PostHog's `HogQLFilters`: what `{filters}` in a HogQLQuery expands to (reference §8.3). */
export const hogqlFiltersSchema = z
  .object({
    properties: propertiesSchema,
    dateRange: dateRangeSchema.nullish(),
    filterTestAccounts: z.boolean().nullish(),
  })
  .strict();

/**
 * The HogQLQuery node with the rest of PostHog's fields: `filters` (`{filters}`, `{filters.dateRange.from}`,
 * `{filters.dateRange.to}`), `version` (schema migrations; nothing to migrate), `sendRawQuery` (only meaningful with
 * `connectionId`) and `connectionId` (direct queries to an external source: refused when set, never ignored).
 */
export const hogqlQueryRunnerSchema = productqlQuerySchema.extend({
  filters: hogqlFiltersSchema.nullish(),
  version: z.number().nullish(),
  sendRawQuery: z.boolean().nullish(),
  connectionId: z.string().nullish(),
});
type HogQLQueryNode = z.infer<typeof hogqlQueryRunnerSchema>;
type HogQLFilters = z.infer<typeof hogqlFiltersSchema>;

/** Runs a ProductQL query: parse → resolve → print (with the project guard) → execute → shape. */
export const productqlRunner: QueryRunner<HogQLQueryNode> = {
  kinds: ['ProductQLQuery', 'HogQLQuery'],
  schema: hogqlQueryRunnerSchema,
  async run(node, ctx) {
    if (node.connectionId) throw validationError('Direct connections to external sources (connectionId) are not supported by this server', 'connectionId');
    // PostHog's HogQLQueryExecutor: {filters} has one source; a `filters` value next to the query's filters is refused
    // (test_query.py test_hogql_query_filters_double_error)
    if (node.filters != null && node.values != null && Object.prototype.hasOwnProperty.call(node.values, 'filters')) {
      throw productqlError("Query contains 'filters' placeholder, yet filters are also provided as a standalone query parameter.");
    }
    const filtered = FILTERS_PLACEHOLDER.test(node.query) ? await ctx.timings.measure('filters', () => withFilters(node.query, node.filters, ctx)) : node.query;
    // matchesAction(x), in the text or in a hogql filter of {filters}: the saved action's condition (src/actions/productql-actions.ts)
    const withMatches = MAY_MATCH_ACTION.test(node.query) || typeof filtered !== 'string' ? await withActions(filtered, ctx.project.id, ctx.actions) : filtered;
    // `<ActorsQuery ...>` where a table goes: that node's answer (hogqlx-queries.ts)
    const query = MAY_HOLD_QUERY_TAG.test(node.query)
      ? await inlineQueryTags(typeof withMatches === 'string' ? await parseSelect(withMatches) : withMatches, node.values ?? {}, (inner) => runTagNode(inner, ctx))
      : withMatches;
    // definitions of saved variables take the saved default when they have no value, and one naming no saved variable
    // of that code name does not exist (PostHog's replace_variables)
    const refs = ctx.variables ? savedVariableRefs(node.variables) : [];
    const saved = refs.length ? await ctx.variables!.savedVariables(ctx.project.id, refs) : [];
    const defs = saved.length ? withSavedDefaults(node.variables!, saved) : node.variables;
    const unknown = refs.length ? [...unknownSavedVariables(node.variables!, saved)] : [];
    const variables = variableValues(defs);
    for (const name of unknown) delete variables[name];
    const compiled = await ctx.timings.measure('print', () =>
      compileMemo({
        ...projectCompileInput(ctx),
        query,
        variables,
        unknownVariables: unknown.length ? unknown : undefined,
        values: node.values,
        limit: node.limit,
        offset: node.offset,
      }),
    );
    const result = await executeCompiled(ctx, compiled);
    assertResultSize(result.rows);
    const shaped = ctx.timings.measureSync('shape', () => shapeResult(result.rows, compiled));
    const explainAllowed = node.explain === true && ctx.principal.kind === 'personal';
    // hasMore/limit/offset describe the default limit or Quarry's paging (node limit/offset); with the query's own
    // LIMIT they are absent, as in PostHog (reference §8.3).
    const paged = compiled.limitDefaulted || node.limit !== undefined || node.offset !== undefined;
    return {
      results: shaped.results,
      columns: shaped.columns,
      types: shaped.types,
      ...(paged ? { hasMore: shaped.hasMore, limit: shaped.limit, offset: shaped.offset } : {}),
      productql: compiled.hogql,
      hogql: compiled.hogql,
      query: node.query,
      // HogQLQueryResponse.modifiers: the modifiers the query ran with (PostHog adds its defaults for the rest)
      modifiers: node.modifiers ?? {},
      ...(explainAllowed ? { explain: { engine: ctx.engine.dialect, sql: compiled.sql, params: compiled.params } } : {}),
    };
  },
};

/** A query tag's node, answered by the runner of its kind (validated by its schema, as the query operation does). */
async function runTagNode(node: Record<string, unknown>, ctx: RunnerContext): Promise<Record<string, unknown>> {
  // (the runner list imports this runner: read at call time)
  const { RUNNERS } = await import('./index');
  const runner = RUNNERS.find((r) => !r.queryOnly && r.kinds.includes(String(node.kind)));
  if (!runner) throw validationError(`<${String(node.kind)}> is no query kind this server answers.`);
  const parsed = runner.schema.safeParse(node);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw validationError(`<${String(node.kind)}>: ${issue.path.join('.') || 'node'}: ${issue.message}`);
  }
  return runner.run(parsed.data, ctx);
}

/** Compiled queries kept by {@link compileMemo} (oldest forgotten first). */
export const COMPILE_MEMO_ENTRIES = 500;
/** Query texts longer than this are compiled every time (the memo keeps small, repeated questions). */
const COMPILE_MEMO_MAX_CHARS = 16 * 1024;
const compiledByInput = new Map<string, CompiledProductQL>();

/**
 * {@link compileProductQL}, remembered by its whole input. A compilation is a pure function of that input (text,
 * project id, timezone, variables, values, limit, offset, person overrides, dialect, week start, session modifiers: the printer reads nothing else, binds every
 * literal and prints `now()` as SQL, never as a value), so a query asked again — a dashboard refresh, a
 * `force_blocking` rerun, an endpoint run with the same variables — skips resolving and printing. The compiled
 * object is only read afterwards (the engine takes its params as readonly). Errors are not remembered.
 */
export async function compileMemo(input: CompileProductQLInput): Promise<CompiledProductQL> {
  // `IN COHORT` expands the cohort's current definition, which the input does not carry: compiled every time
  if (
    typeof input.query !== 'string' ||
    input.query.length > COMPILE_MEMO_MAX_CHARS ||
    !plainJson(input.variables) ||
    !plainJson(input.values) ||
    /\bin\s+cohort\b/i.test(input.query)
  ) {
    return compileProductQL(input);
  }
  const key = JSON.stringify([
    input.dialect,
    input.projectId,
    input.timezone,
    input.query,
    input.variables ?? null,
    input.unknownVariables ?? null,
    input.values ?? null,
    input.limit ?? null,
    input.offset ?? null,
    input.personOverrides ?? true,
    input.personless ?? false,
    input.weekStartDay ?? 0,
    input.bounceRateDurationSeconds ?? null,
    input.customChannelTypeRules ?? null,
  ]);
  const hit = compiledByInput.get(key);
  if (hit !== undefined) return hit;
  const compiled = await compileProductQL(input);
  if (compiledByInput.size >= COMPILE_MEMO_ENTRIES) compiledByInput.delete(compiledByInput.keys().next().value as string);
  compiledByInput.set(key, compiled);
  return compiled;
}

/**
 * True for undefined or a value made only of strings, finite numbers, booleans, null, arrays and plain objects:
 * values whose JSON text identifies them (a Date, a bigint or NaN would print like a different value).
 */
function plainJson(v: unknown, depth = 0): boolean {
  if (v === undefined || v === null) return true;
  const t = typeof v;
  if (t === 'string' || t === 'boolean') return true;
  if (t === 'number') return Number.isFinite(v);
  if (t !== 'object' || depth > 8) return false;
  if (Array.isArray(v)) return v.every((x) => x !== undefined && plainJson(x, depth + 1));
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(v as Record<string, unknown>).every((x) => plainJson(x, depth + 1));
}

/**
 * A local time (`YYYY-MM-DD HH:MM:SS[.ffffff]`) as the datetime constant PostHog's {filters} puts in the query, which
 * its hogql printer writes `toDateTime('2020-01-02 00:00:00.000000')` (escape_sql.py: microseconds, no timezone).
 */
const datetimeConstant = (local: string): Expr => ast.call('toDateTime', [ast.constant(local.includes('.') ? local : `${local}.000000`)]);

/** Text that may hold a `{filters...}` placeholder (spaces allowed, as the grammar allows them). */
const FILTERS_PLACEHOLDER = /\{\s*filters\b/;

const isNode = (v: unknown): v is { node: string } & Record<string, unknown> => !!v && typeof v === 'object' && typeof (v as { node?: unknown }).node === 'string';

/** `['filters', ...]` when `e` is a `{filters...}` placeholder, else null. */
function filtersChain(e: unknown): string[] | null {
  if (!isNode(e) || e.node !== 'Placeholder') return null;
  const f = (e as { expr?: unknown }).expr;
  if (!isNode(f) || f.node !== 'Field') return null;
  const chain = ((f as { chain?: unknown[] }).chain ?? []).map(String);
  return chain[0] === 'filters' ? chain : null;
}

/** The tables `{filters}` applies to (PostHog's replace_filters also knows `logs`, which Quarry does not have). */
type FilterTableKind = 'events' | 'sessions' | 'groups';

/**
 * The first of the events, sessions or groups tables a SELECT reads, in FROM/JOIN order, with its alias (or null),
 * as PostHog's replace_filters finds it; undefined when it reads none of them.
 */
function filterTableOf(q: Record<string, unknown>): { kind: FilterTableKind; alias: string | null } | undefined {
  for (let j = q.select_from as Record<string, unknown> | null | undefined; j; j = j.next_join as Record<string, unknown> | null | undefined) {
    const t = j.table as { node?: string; chain?: unknown[] } | undefined;
    const name = t?.node === 'Field' && t.chain?.length === 1 ? t.chain[0] : undefined;
    if (name === 'events' || name === 'sessions' || name === 'groups') return { kind: name, alias: typeof j.alias === 'string' && j.alias ? j.alias : null };
  }
  return undefined;
}

/**
 * The filter types that apply to each table: the sessions table's own fields are session properties, the groups
 * table's properties are group properties (PostHog's property_to_expr with scope "session" / "group"); `hogql`
 * filters are expressions over the table itself.
 */
const FILTER_TYPES: Record<Exclude<FilterTableKind, 'events'>, string[]> = { sessions: ['session', 'hogql'], groups: ['group', 'hogql'] };

/** Each filter of a filter list or a nested AND/OR group, in order. */
function* leafFilters(v: unknown): Generator<{ type?: unknown }> {
  if (Array.isArray(v)) for (const x of v) yield* leafFilters(x);
  else if (v && typeof v === 'object') {
    const g = v as { type?: unknown; values?: unknown };
    if ((g.type === 'AND' || g.type === 'OR') && Array.isArray(g.values)) yield* leafFilters(g.values);
    else yield g;
  }
}

/**
 * A filter condition built for events (`session.<field>`, `group_N.properties.<key>`) re-rooted on the sessions or
 * groups table itself (`<field>`, `properties.<key>`), keeping the table alias. Nested queries are left alone.
 */
function reroot(e: Expr, kind: Exclude<FilterTableKind, 'events'>, alias: string | null): Expr {
  const head = kind === 'sessions' ? (h: string) => h === 'session' : (h: string) => /^group_\d$/.test(h);
  const visit = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(visit);
    if (!isNode(v) || v.node === 'SelectQuery' || v.node === 'SelectSetQuery') return v;
    if (v.node === 'Field') {
      const chain = ((v as { chain?: unknown[] }).chain ?? []).map(String);
      const at = alias !== null && chain[0] === alias ? 1 : 0;
      if (chain.length > at + 1 && head(chain[at])) return { ...v, chain: [...chain.slice(0, at), ...chain.slice(at + 1)] };
      return v;
    }
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = visit(x);
    return out;
  };
  return visit(e) as Expr;
}

/**
 * PostHog's `replace_filters` (posthog/hogql/filters.py) for a HogQLQuery: `{filters}` becomes the node's `filters` as
 * one condition on the table the SELECT it appears in reads — events, sessions or groups, the first in FROM/JOIN
 * order — made of the property filters, the date range (`timestamp`; sessions: `$start_timestamp`; groups:
 * `created_at`; `>= date_from`, none for "all"; `< date_to`; dates parsed as given: no rounding to the day, as
 * `isoparse`/`relative_date_parse` do) and the project's test-account filters — or `true` when there are no filters.
 * On sessions only session (and hogql) property filters apply, on groups only group (and hogql) ones: others are a
 * 400. `{filters.dateRange.from}` and `{filters.dateRange.to}` are datetime constants; when unset, the comparison
 * they appear in becomes `true`.
 */
export async function withFilters(text: string, filters: HogQLFilters | null | undefined, ctx: Pick<RunnerContext, 'project'>): Promise<Query> {
  const parsed = await parseSelect(text);
  const tz = ctx.project.timezone;
  const nowLocal = instantToLocal(insightsNow(), tz);
  const range = filters?.dateRange ?? undefined;
  const bound = (which: 'from' | 'to'): string | null => {
    const raw = which === 'from' ? range?.date_from : range?.date_to;
    if (raw === null || raw === undefined || raw === '' || (which === 'from' && raw === 'all')) return null;
    return sqlLocal(parseDateString(raw, nowLocal, tz, `filters.dateRange.date_${which}`).value);
  };
  const empty =
    !filters ||
    ((filters.properties === null || filters.properties === undefined || (Array.isArray(filters.properties) && filters.properties.length === 0)) &&
      !range?.date_from &&
      !range?.date_to &&
      !filters.filterTestAccounts);
  // hogql property filters (also among the test-account filters) are parsed in this thread
  if (!empty) await ensureFilterParser();
  const selects: Record<string, unknown>[] = [];

  const condition = (placeholder: unknown): Expr => {
    if (empty) return ast.constant(true);
    const q = selects[selects.length - 1];
    const table = q ? filterTableOf(q) : undefined;
    if (!table)
      throw productqlError("Cannot use 'filters' placeholder in a SELECT clause that does not select from the events, sessions or groups table.", placeholder as never);
    const { kind, alias } = table;
    const fctx = { table: alias ?? undefined, timezone: tz, attr: 'filters.properties' };
    const tsName = kind === 'sessions' ? '$start_timestamp' : kind === 'groups' ? 'created_at' : 'timestamp';
    const ts = alias ? ast.field(alias, tsName) : ast.field(tsName);
    const from = bound('from');
    const to = bound('to');
    const testAccounts = filters!.filterTestAccounts ? (ctx.project.test_account_filters ?? []) : [];
    if (kind !== 'events') {
      const allowed = FILTER_TYPES[kind];
      for (const [attr, list] of [['filters.properties', filters!.properties], ['filters.filterTestAccounts', testAccounts]] as const)
        for (const f of leafFilters(list))
          if (!allowed.includes(String(f.type)))
            throw validationError(`${String(f.type)} property filters do not apply to {filters} over the ${kind} table: use ${allowed.join(' or ')} filters.`, attr);
    }
    const onTable = (e: Expr | undefined): Expr | undefined => (e && kind !== 'events' ? reroot(e, kind, alias) : e);
    // PostHog's order (filters.py: date_to, then date_from), the dates as datetime constants
    const parts = [
      onTable(propertiesToExpr(filters!.properties, fctx)),
      to !== null ? ast.compare('<', ts, datetimeConstant(to)) : undefined,
      from !== null ? ast.compare('>=', ts, datetimeConstant(from)) : undefined,
      onTable(testAccountFiltersExpr(ctx.project, filters!.filterTestAccounts, { ...fctx, attr: 'filters.filterTestAccounts' })),
    ].filter((x): x is Expr => !!x);
    return parts.length ? ast.and(...parts) : ast.constant(true);
  };
  const dateConstant = (chain: string[], placeholder: unknown): Expr | null => {
    const which = chain.length === 3 && chain[1] === 'dateRange' ? (chain[2] === 'from' ? 'from' : chain[2] === 'to' ? 'to' : null) : null;
    if (!which) throw productqlError(`Unknown filter field "{${chain.join('.')}}": use {filters}, {filters.dateRange.from} or {filters.dateRange.to}`, placeholder as never);
    const v = bound(which);
    return v === null ? null : datetimeConstant(v);
  };

  const visit = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(visit);
    if (!v || typeof v !== 'object') return v;
    const chain = filtersChain(v);
    if (chain) {
      if (chain.length === 1) return condition(v);
      // an unset date outside a comparison reads as true, as in PostHog
      return dateConstant(chain, v) ?? ast.constant(true);
    }
    const n = v as Record<string, unknown>;
    if (n.node === 'CompareOperation') {
      for (const side of [n.left, n.right]) {
        const c = filtersChain(side);
        if (c && c.length > 1 && dateConstant(c, side) === null) return ast.constant(true);
      }
    }
    const isSelect = n.node === 'SelectQuery';
    if (isSelect) selects.push(n);
    try {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(n)) out[k] = visit(x);
      return out;
    } finally {
      if (isSelect) selects.pop();
    }
  };
  return visit(parsed) as Query;
}
