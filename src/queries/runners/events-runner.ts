/**
 * PostHog's `EventsQuery` (posthog/hogql_queries/events_query_runner.py): the events explorer / DataTableNode query.
 * Every part of the node becomes one ProductQL SELECT over `events`, printed (project guard, bound values) and run
 * like any other query:
 *
 * - `select`: ProductQL expressions (a `-- comment` names nothing; `columns` echoes the strings as given). `*` is the
 *   whole event, answered as a dict (`uuid, event, properties, timestamp, team_id, distinct_id, elements_chain,
 *   created_at`, properties parsed, plus `elements` when the event has an elements chain); `person` selects the
 *   distinct id and is answered as the person of that distinct id (`{uuid, created_at, properties, distinct_id}`, or
 *   `{distinct_id}` alone when it has no person), read in a second query as PostHog reads it from Postgres;
 *   `person_display_name` (PostHog's newer Person column) is `{display_name, id}`: the person's first display property
 *   set (email, name, username, ...), else the distinct id, and the person's id.
 * - when some select expression aggregates, the others are the GROUP BY (PostHog's `has_aggregation`); conditions of
 *   `where`/`properties` that aggregate go to HAVING.
 * - filters, ANDed: `where`, `properties`, `fixedProperties`, `event`, `actionId` (the action's steps), `personId`
 *   (events of the person's distinct ids), `filterTestAccounts`, `timestamp < before` (default now + 5 s) and
 *   `timestamp > after` (default `-24h`; `all`: no lower bound). Dates are ISO (naive = UTC, as PostHog's isoparse) or
 *   relative (`-24h`, `-7d`) and are not rounded.
 * - order: `orderBy` (`expr [ASC|DESC]`; exactly `["person"]`, `["person DESC"]` or `["person ASC"]`: the person's email,
 *   ascending unless `person DESC`), else `count() DESC` when `count()` is selected, else the first aggregate
 *   DESC, else `timestamp DESC` when `timestamp` is selected, else the first column ASC (ties: oldest event first).
 * - paging: `limit` (default 100; ≤ 0 → 100; clamped to 50,000) and `offset`; `hasMore` from one extra row.
 */
import { z } from 'zod';
import { UserError, validationError } from '../../errors';
import { assertResultSize } from '../../limits';
import { ast, compileProductQL, parseExpr, parseSelect, displayHogQL, shapeResult, MAX_LIMIT, DEFAULT_LIMIT, type Expr, type Query } from '../../productql';
import type { OrderExpr, SelectQuery } from '../../productql/ast';
import { lookupFunction } from '../../productql/functions';
import { chainToElements } from '../../ingest/elements-chain';
import { drfDateTime, parseProperties } from '../../projects/person-reader';
import { actionToExpr } from '../../actions/matching';
import { executeCompiled, projectCompileInput } from '../insights/execute';
import { insightsNow, parseDateString } from '../insights/date-range';
import { instantToLocal, sqlLocal } from '../insights/local-time';
import { ensureFilterParser, propertiesToExpr, testAccountFiltersExpr } from '../insights/property-filters';
import { dataNodeShape, filtersAndGroupsSchema, propertiesSchema } from '../insights/schema';
import type { QueryRunner, RunnerContext } from '../runner';
import { displayNameProperties } from '../../projects/person-display-name';

/** PostHog's EventsQuery node. `source` (InsightActorsQuery) is refused, never ignored. */
export const eventsQuerySchema = z
  .object({
    kind: z.literal('EventsQuery'),
    select: z.array(z.string().max(10_000)).max(200),
    where: z.array(z.string().max(10_000)).max(200).nullish(),
    properties: propertiesSchema,
    fixedProperties: filtersAndGroupsSchema,
    filterTestAccounts: z.boolean().nullish(),
    event: z.string().max(1000).nullish(),
    actionId: z.number().int().nullish(),
    personId: z.string().max(200).nullish(),
    before: z.string().max(100).nullish(),
    after: z.string().max(100).nullish(),
    orderBy: z.array(z.string().max(10_000)).max(50).nullish(),
    limit: z.number().int().nullish(),
    offset: z.number().int().min(0).max(10_000_000).nullish(),
    source: z.unknown().optional(),
    ...dataNodeShape,
  })
  .strict();
export type EventsQueryNode = z.infer<typeof eventsQuerySchema>;

/** The fields `*` answers, in PostHog's order (SELECT_STAR_FROM_EVENTS_FIELDS). */
export const SELECT_STAR_FROM_EVENTS_FIELDS = ['uuid', 'event', 'properties', 'timestamp', 'team_id', 'distinct_id', 'elements_chain', 'created_at'] as const;
/** The ones read from the events table (`team_id` is the project's id, which no table exposes). */
const STAR_COLUMNS = SELECT_STAR_FROM_EVENTS_FIELDS.filter((f) => f !== 'team_id');

/** Largest number of distinct ids one person lookup query binds. */
const PERSON_LOOKUP_CHUNK = 1000;

/** A select entry: an expression, `*` or `person` (PostHog matches them on the text before any `--` comment). */
type EntryKind = 'star' | 'person' | 'display' | 'expr';
const entryKind = (text: string): EntryKind => {
  if (text === '*') return 'star';
  const head = text.split('--')[0].trim();
  if (head === 'person') return 'person';
  if (head === 'person_display_name') return 'display';
  return 'expr';
};

/** The orderBy lists PostHog's EventsQueryRunner reads as the Person column's sort (`[["person"], ["person DESC"], ["person ASC"]]`). */
const PERSON_ORDER = new Set(['person', 'person DESC', 'person ASC']);

/**
 * `person_display_name` (the events table's Person column in PostHog's newer default columns): the person's first
 * display property set (the project's display properties: displayNameProperties), else the distinct id; and the
 * person's id. Run as two columns, shown as PostHog's tuple.
 */
const displayNameExprs = (keys: readonly string[]): [Expr, Expr] => [
  ast.call('coalesce', [...keys.map((k) => ast.call('toString', [ast.field('person', 'properties', k)])), ast.field('distinct_id')]),
  ast.call('toString', [ast.field('person', 'id')]),
];

/** A 400 for `attr` (e.g. `select__2`) carrying a ProductQL error's code, message and span. */
function withAttr(e: unknown, attr: string): unknown {
  if (e instanceof UserError && e.attr === null) return new UserError(e.status, e.type, e.code, e.message, { attr, span: e.span, extra: e.extra });
  return e;
}

async function parseAt(text: string, attr: string): Promise<Expr> {
  try {
    return await parseExpr(text);
  } catch (e) {
    throw withAttr(e, attr);
  }
}

/** The keys of `SELECT 1 ORDER BY <one item>` as parsed. */
const ORDER_PARSE_KEYS = new Set(['node', 'select', 'order_by', 'start', 'end']);

/** PostHog's parse_order_expr: `expr`, `expr ASC` or `expr DESC`. */
async function parseOrder(text: string, attr: string): Promise<OrderExpr> {
  let q: Query;
  try {
    q = await parseSelect(`SELECT 1 ORDER BY ${text}`);
  } catch (e) {
    throw withAttr(e, attr);
  }
  const s = q as SelectQuery;
  // the text is one ORDER BY item and nothing else (no LIMIT, SETTINGS, second item, ... smuggled after it)
  const only = q.node === 'SelectQuery' && s.order_by?.length === 1 && Object.keys(s).every((k) => ORDER_PARSE_KEYS.has(k));
  if (!only) throw new UserError(400, 'validation_error', 'hogql_syntax_error', `Syntax error: "${text}" is not an ORDER BY expression.`, { attr });
  const o = s.order_by![0];
  return { node: 'OrderExpr', expr: o.expr, order: o.order === 'DESC' ? 'DESC' : 'ASC' };
}

/** PostHog's has_aggregation: an aggregate function call anywhere in the expression, subqueries not counted. */
export function hasAggregation(e: unknown): boolean {
  if (Array.isArray(e)) return e.some(hasAggregation);
  if (!e || typeof e !== 'object') return false;
  const n = e as Record<string, unknown>;
  if (n.node === 'SelectQuery' || n.node === 'SelectSetQuery') return false;
  if (n.node === 'Call' && lookupFunction(String(n.name))?.kind === 'aggregate') return true;
  return Object.values(n).some((v) => v !== null && typeof v === 'object' && hasAggregation(v));
}

const withoutAlias = (e: Expr): Expr => (e.node === 'Alias' ? withoutAlias(e.expr) : e);

/** The ISO dates and datetimes dateutil's isoparse reads (two-digit month and day), without an offset. */
const ISO_NAIVE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?$/;

/**
 * A date bound of the node, as a local-time constant: relative to now in the project timezone, or ISO. PostHog tries
 * isoparse first and prints the resulting datetime with astimezone(team timezone): a naive one is read in the
 * server's timezone, UTC (escape_sql's visit_datetime: naive 02:02:02 is 03:02:02 in Europe/Brussels), not the
 * project's.
 */
function dateBound(text: string, ctx: RunnerContext, attr: string): Expr {
  const tz = ctx.project.timezone;
  const s = text.trim();
  return ast.constant(sqlLocal(parseDateString(ISO_NAIVE.test(s) ? `${s}Z` : text, instantToLocal(insightsNow(), tz), tz, attr).value));
}

interface PersonView {
  uuid: string;
  created_at: unknown;
  properties: Record<string, unknown>;
}

/** The persons of `distinctIds` (those that have one), read from person_distinct_ids with merges applied. */
async function personsOf(ctx: RunnerContext, distinctIds: string[]): Promise<Map<string, PersonView>> {
  const out = new Map<string, PersonView>();
  for (let i = 0; i < distinctIds.length; i += PERSON_LOOKUP_CHUNK) {
    const chunk = distinctIds.slice(i, i + PERSON_LOOKUP_CHUNK);
    const q = ast.select({
      select: [ast.field('distinct_id'), ast.call('toString', [ast.field('person', 'id')]), ast.field('person', 'created_at'), ast.field('person', 'properties')],
      from: 'person_distinct_ids',
      where: ast.compare('in', ast.field('distinct_id'), ast.tuple(chunk.map((d) => ast.constant(d)))),
    });
    const compiled = await compileProductQL({ ...projectCompileInput(ctx), query: q, limit: MAX_LIMIT });
    const result = await executeCompiled(ctx, compiled, 'person_column_extra_query');
    for (const [did, uuid, createdAt, props] of shapeResult(result.rows, compiled).results) {
      if (uuid === null || uuid === undefined || uuid === '') continue;
      // created_at as PostHog's API renders the Postgres person's datetime (UTC, `Z`), whatever the project timezone
      out.set(String(did), { uuid: String(uuid), created_at: createdAt === null || createdAt === undefined ? null : drfDateTime(createdAt), properties: parseProperties(props) });
    }
  }
  return out;
}

/** Runs an EventsQuery: one SELECT over events (plus the person lookup for `person` columns). */
export const eventsRunner: QueryRunner<EventsQueryNode> = {
  kinds: ['EventsQuery'],
  schema: eventsQuerySchema,
  async run(node, ctx) {
    if (node.source !== undefined && node.source !== null)
      throw validationError('EventsQuery with a source (InsightActorsQuery) is not supported by this server.', 'source');
    await ensureFilterParser();
    const tz = ctx.project.timezone;
    const input = node.select.length === 0 ? ['*'] : node.select;

    // select: `*` runs as its columns (one output column each), shown as PostHog's tuple in `hogql`
    const run: Expr[] = [];
    const shown: Expr[] = [];
    const slots: { kind: EntryKind; at: number }[] = [];
    const starTuple = ast.call('tuple', SELECT_STAR_FROM_EVENTS_FIELDS.map((f) => ast.field(f)));
    for (const [i, text] of input.entries()) {
      const kind = entryKind(text);
      slots.push({ kind, at: run.length });
      if (kind === 'star') {
        run.push(...STAR_COLUMNS.map((f) => ast.field(f)));
        shown.push(starTuple);
      } else if (kind === 'person') {
        run.push(ast.field('distinct_id'));
        shown.push(ast.field('distinct_id'));
      } else if (kind === 'display') {
        run.push(...displayNameExprs(displayNameProperties(ctx.project)));
        shown.push(ast.call('tuple', displayNameExprs(displayNameProperties(ctx.project))));
      } else {
        const e = await parseAt(text, `select__${i}`);
        run.push(e);
        shown.push(e);
      }
    }
    // the expressions as PostHog has them (the tuple for `*`): what aggregation, grouping and ordering look at
    const aggregations = shown.filter(hasAggregation);
    const grouped = aggregations.length > 0;
    const groupBy = grouped ? run.filter((e) => !hasAggregation(e)).map(withoutAlias) : undefined;

    // filters
    const conditions: Expr[] = [];
    for (const [i, text] of (node.where ?? []).entries()) conditions.push(await parseAt(text, `where__${i}`));
    const props = propertiesToExpr(node.properties, { timezone: tz, attr: 'properties' });
    if (props) conditions.push(props);
    const fixed = propertiesToExpr(node.fixedProperties, { timezone: tz, attr: 'fixedProperties' });
    if (fixed) conditions.push(fixed);
    if (node.event) conditions.push(ast.compare('==', ast.field('event'), ast.constant(node.event)));
    // (PostHog's `if self.query.actionId:` / `if self.query.personId:`: 0 and "" filter nothing)
    if (node.actionId) {
      const action = ctx.actions ? (await ctx.actions.liveActions(ctx.project.id, [node.actionId])).get(node.actionId) : undefined;
      if (!action) throw validationError(`Action ${node.actionId} does not exist.`, 'actionId', 'action_not_found');
      if (action.steps.length === 0) throw validationError(`Action ${node.actionId} does not have any match groups.`, 'actionId');
      conditions.push(actionToExpr(action, { timezone: tz, attr: 'actionId' }));
    }
    if (node.personId) {
      // the person's distinct ids (none for an unknown id, or another project's person: the subquery is guarded)
      const ids = ast.select({
        select: [ast.field('distinct_id')],
        from: 'person_distinct_ids',
        where: ast.compare('==', ast.call('toString', [ast.field('person_id')]), ast.constant(node.personId.trim().toLowerCase())),
      });
      conditions.push(ast.compare('in', ast.field('distinct_id'), ids as unknown as Expr));
    }
    const testAccounts = testAccountFiltersExpr(ctx.project, node.filterTestAccounts, { timezone: tz, attr: 'filterTestAccounts' });
    if (testAccounts) conditions.push(testAccounts);
    // future events stay out by default; the last 24 hours unless `after` says otherwise
    const before = node.before ? dateBound(node.before, ctx, 'before') : ast.constant(sqlLocal(instantToLocal(insightsNow().getTime() + 5000, tz)));
    conditions.push(ast.compare('<', ast.field('timestamp'), before));
    const after = node.after || '-24h';
    if (after !== 'all') conditions.push(ast.compare('>', ast.field('timestamp'), dateBound(after, ctx, 'after')));
    const whereList = conditions.filter((c) => !hasAggregation(c));
    const havingList = conditions.filter(hasAggregation);

    // order
    let orderBy: OrderExpr[];
    if (node.orderBy !== undefined && node.orderBy !== null && PERSON_ORDER.has(node.orderBy.join('\n'))) {
      // PostHog's events table sort on its Person column: by the person's first display property (email, or the
      // project's person_display_name_properties[0]); only
      // exactly ["person DESC"] descends, ["person"] and ["person ASC"] ascend (`"DESC" if orderBy[0] == "person DESC"
      // else "ASC"`, as the frontend writes a column's ascending sort as its bare key)
      orderBy = [ast.order(ast.field('person', 'properties', displayNameProperties(ctx.project)[0]), node.orderBy[0] === 'person DESC' ? 'DESC' : 'ASC')];
    } else if (node.orderBy !== undefined && node.orderBy !== null) {
      orderBy = [];
      for (const [i, text] of node.orderBy.entries()) orderBy.push(await parseOrder(text, `orderBy__${i}`));
    } else if (input.includes('count()')) orderBy = [ast.order(ast.call('count'), 'DESC')];
    else if (aggregations.length > 0) orderBy = [ast.order(withoutAlias(aggregations[0]), 'DESC')];
    else if (input.includes('timestamp')) orderBy = [ast.order(ast.field('timestamp'), 'DESC')];
    else if (slots[0].kind === 'star') orderBy = STAR_COLUMNS.map((f) => ast.order(ast.field(f), 'ASC'));
    else orderBy = [ast.order(withoutAlias(run[slots[0].at]), 'ASC')];
    // Ties of that last default come out in storage order, which differs between engines: the event time (oldest first)
    // settles them. Only in the query run; `hogql` shows PostHog's query.
    const firstColumnOrder = !grouped && (node.orderBy === undefined || node.orderBy === null) && slots[0].kind !== 'star' && !input.includes('timestamp');

    const parts = {
      from: 'events',
      where: whereList.length ? ast.and(...whereList) : undefined,
      having: havingList.length ? ast.and(...havingList) : undefined,
      orderBy,
    };
    const query = ast.select({ ...parts, orderBy: firstColumnOrder ? [...orderBy, ast.order(ast.field('timestamp'), 'ASC')] : orderBy, select: run, groupBy });
    const limit = !node.limit || node.limit <= 0 ? DEFAULT_LIMIT : Math.min(node.limit, MAX_LIMIT);
    const offset = node.offset ?? 0;
    const compiled = await ctx.timings.measure('print', () =>
      compileProductQL({ ...projectCompileInput(ctx), query, limit, offset }),
    );
    const result = await executeCompiled(ctx, compiled);
    assertResultSize(result.rows);
    const shaped = ctx.timings.measureSync('shape', () => shapeResult(result.rows, compiled));

    const persons = slots.some((s) => s.kind === 'person')
      ? await personsOf(ctx, [...new Set(shaped.results.flatMap((r) => slots.filter((s) => s.kind === 'person').map((s) => String(r[s.at]))))])
      : new Map<string, PersonView>();
    const results = shaped.results.map((r) =>
      slots.map((s) => {
        if (s.kind === 'expr') return r[s.at];
        // PostHog's {display_name, id} of the person_display_name tuple
        if (s.kind === 'display') return { display_name: r[s.at], id: r[s.at + 1] };
        if (s.kind === 'person') {
          const distinctId = r[s.at] as string;
          const p = persons.get(String(distinctId));
          return p ? { uuid: p.uuid, created_at: p.created_at, properties: p.properties, distinct_id: distinctId } : { distinct_id: distinctId };
        }
        return starDict(r.slice(s.at, s.at + STAR_COLUMNS.length), ctx.project.id);
      }),
    );
    const types = slots.map((s) => {
      if (s.kind === 'display') return `Tuple(${shaped.types[s.at][1]}, ${shaped.types[s.at + 1][1]})`;
      if (s.kind !== 'star') return shaped.types[s.at][1];
      const t = shaped.types.slice(s.at, s.at + STAR_COLUMNS.length).map(([, x]) => x);
      // team_id (no column of the run: the project's id) in its place among the fields
      const teamAt = SELECT_STAR_FROM_EVENTS_FIELDS.indexOf('team_id');
      return `Tuple(${[...t.slice(0, teamAt), 'Int64', ...t.slice(teamAt)].join(', ')})`;
    });
    const hogql = displayHogQL({
      ...ast.select({ ...parts, select: shown, groupBy: grouped ? shown.filter((e) => !hasAggregation(e)).map(withoutAlias) : undefined }),
      limit: ast.constant(compiled.limit),
      offset: ast.constant(compiled.offset),
    });
    return {
      results,
      columns: input,
      types,
      hogql,
      hasMore: shaped.hasMore,
      limit: compiled.limit,
      offset: compiled.offset,
      modifiers: node.modifiers ?? {},
    };
  },
};

/** The `*` column of one row as PostHog's runner turns its tuple into a dict. */
function starDict(values: unknown[], projectId: number): Record<string, unknown> {
  const [uuid, event, properties, timestamp, distinctId, elementsChain, createdAt] = values;
  const chain = elementsChain === null || elementsChain === undefined ? '' : String(elementsChain);
  const out: Record<string, unknown> = {
    uuid,
    event,
    properties: parseProperties(properties),
    timestamp,
    team_id: projectId,
    distinct_id: distinctId,
    elements_chain: chain,
    created_at: createdAt,
  };
  if (chain) out.elements = chainToElements(chain);
  return out;
}
