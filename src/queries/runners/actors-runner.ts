/**
 * ActorsQuery (PostHog's persons modal and persons list): the persons — or groups — behind an insight data point
 * (`source`: InsightActorsQuery over a trends query, FunnelsActorsQuery over a funnel), or a project's persons when
 * there is no source. The data point's actors come from the insight's own filters (see actors-sources.ts); they are
 * joined to the `persons` (or `groups`) table, so only the project's actors appear (the printer guards both tables),
 * then searched, filtered, ordered and paged here.
 */
import { z } from 'zod';
import * as ast from '../../productql/ast';
import type { Expr } from '../../productql/ast';
import { parseExprSync, parseSelectSync } from '../../productql/parser';
import { lookupFunction } from '../../productql/functions';
import { validationError } from '../../errors';
import { drfDateTime, parseProperties } from '../../projects/person-reader';
import type { QueryRunner, RunnerContext } from '../runner';
import { dataNodeShape, ensureFilterParser, executeCompiled, printInsightQuery, propertiesSchema, propertiesToExpr, runInsightQuery, toNumber } from '../insights';
import { MAX_LIMIT, shapeResult } from '../../productql';
import { actorSourceSchema, resolveActorSource, type ActorSource } from './actors-sources';
import { hasAggregation } from './events-runner';
import { displayNameProperties } from '../../projects/person-display-name';

/** PostHog's ActorsQuery (schema.py), strict like every node. */
export const actorsQuerySchema = z
  .object({
    kind: z.literal('ActorsQuery'),
    source: actorSourceSchema.nullish(),
    /** Columns, as ProductQL expressions over the actor (`person`/`actor`/`group`: the actor object). */
    select: z.array(z.string().min(1).max(1000)).max(50).nullish(),
    orderBy: z.array(z.string().min(1).max(1000)).max(20).nullish(),
    /** Default 100 (also for 0 or less); more than 50,000 reads 50,000 (PostHog's HogQLHasMorePaginator.from_limit_context). */
    limit: z.number().int().nullish(),
    offset: z.number().int().min(0).max(1_000_000).nullish(),
    search: z.string().max(1000).nullish(),
    properties: propertiesSchema,
    fixedProperties: propertiesSchema,
    ...dataNodeShape,
  })
  .strict();
export type ActorsQuery = z.infer<typeof actorsQuerySchema>;

const DEFAULT_LIMIT = 100;

/** PostHog's default columns per actor kind (PersonStrategy / GroupStrategy `input_columns`). */
const defaultSelect = (groups: boolean): string[] => (groups ? ['group'] : ['person', 'id', 'created_at', 'person.$delete']);

const ACTOR_COLUMNS = new Set(['person', 'actor', 'group']);

/**
 * `person_display_name`: the person's first display property set (the project's display properties:
 * displayNameProperties), else the person's id (PostHog's ActorsQueryRunner).
 */
const displayNameExpr = (keys: readonly string[]): Expr =>
  ast.call('coalesce', [...keys.map((k) => ast.call('toString', [ast.field('p', 'properties', k)])), ast.call('toString', [ast.field('p', 'id')])]);

/** The type of PostHog's matching events column (`groupUniqArray(100)((timestamp, uuid, $session_id, $window_id))`). */
const RECORDINGS_TYPE = "Array(Tuple(DateTime64(6, 'UTC'), UUID, String, String))";

/**
 * Prefixes the fields of a user expression with the actor table (`p`), `event_count` with the source (`s`).
 * Aggregates are allowed (the other columns then group, as PostHog's ActorsQueryRunner `has_aggregation`);
 * subqueries and window functions are refused.
 */
function qualify(e: unknown, source: ActorSource | null, attr: string, valueExprs: Record<string, () => Expr> = {}): void {
  if (!e || typeof e !== 'object') return;
  if (Array.isArray(e)) {
    for (const x of e) qualify(x, source, attr, valueExprs);
    return;
  }
  const n = e as Record<string, unknown>;
  if (n.node === 'Field') {
    const chain = n.chain as (string | number)[];
    const valueExpr = chain.length === 1 && Object.hasOwn(valueExprs, chain[0]) ? valueExprs[String(chain[0])] : undefined;
    if (valueExpr) {
      // (in place: the parent holds this node)
      for (const k of Object.keys(n)) delete n[k];
      Object.assign(n, valueExpr());
    } else if (chain[0] === 'event_count') {
      if (!source?.eventCount) throw validationError('event_count exists only for an insight data point whose actors have events.', attr);
      n.chain = ['s', 'event_count'];
    } else if (chain[0] !== 'p' && chain[0] !== 's') n.chain = ['p', ...chain];
    return;
  }
  if (n.node === 'SelectQuery' || n.node === 'SelectSetQuery') throw validationError('Subqueries are not allowed in actor columns.', attr);
  if (n.node === 'WindowFunction' || (n.node === 'Call' && lookupFunction(String(n.name))?.kind === 'window'))
    throw validationError(`Window functions are not allowed in actor columns${n.node === 'Call' ? ` (${String(n.name)})` : ''}.`, attr);
  for (const [k, v] of Object.entries(n)) if (k !== 'start' && k !== 'end') qualify(v, source, attr, valueExprs);
}

/**
 * A column computed with the actors (retention's `appearances`) as an expression of the actor id — its value at the
 * actor's place in the list — so that expressions can use it: PostHog's retention actors are asked for with
 * `orderBy: ["length(appearances) DESC", "actor_id"]` (test_retention_query_runner.py `run_actors_query`).
 */
function valueColumnExpr(values: Map<string, unknown>, idField: Expr): Expr {
  const lit = (v: unknown): Expr =>
    Array.isArray(v) ? ast.array(v.map(lit)) : ast.constant(v === undefined ? null : (v as string | number | boolean | null));
  const ids = [...values.keys()];
  if (!ids.length) return ast.array([]); // (no actors: any expression that prints)
  const at: Expr = ast.call('arrayElement', [ast.array(ids.map((id) => lit(values.get(id)))), ast.call('indexOf', [ast.array(ids.map((id) => ast.constant(id))), idField])]);
  // An element looked up is typed unknown (ClickHouse's length() would then read it as text); arraySort types it as an
  // array, and changes nothing when every list is sorted already (appearances are).
  const sorted = (v: unknown) => Array.isArray(v) && v.every((x, i) => typeof x === 'number' && (i === 0 || v[i - 1] <= x));
  return [...values.values()].every(sorted) ? ast.call('arraySort', [at]) : at;
}

/**
 * One `orderBy` entry as PostHog's parse_order_expr reads it: `expr [ASC|DESC]`, and only its first ORDER BY item —
 * the grammar's orderExpr rule stops there, so the persons modal's `"event_count DESC, actor_id DESC"` orders by
 * event_count alone (PostHog's parser, @posthog/hogql-parser parseOrderExpr, ignores the rest).
 */
function parseOrderItem(text: string, attr: string): { expr: Expr; order: 'ASC' | 'DESC' } {
  let q: ReturnType<typeof parseSelectSync>;
  try {
    q = parseSelectSync(`SELECT 1 ORDER BY ${text}`);
  } catch (err) {
    if (err instanceof Error && 'status' in err) throw err;
    throw validationError(`Cannot parse "${text}".`, attr);
  }
  const first = q.node === 'SelectQuery' ? q.order_by?.[0] : undefined;
  if (!first) throw validationError(`"${text}" is not an ORDER BY expression.`, attr);
  return { expr: first.expr, order: first.order === 'DESC' ? 'DESC' : 'ASC' };
}

function parseColumn(text: string, attr: string): Expr {
  try {
    return parseExprSync(text);
  } catch (err) {
    if (err instanceof Error && 'status' in err) throw err;
    throw validationError(`Cannot parse "${text}".`, attr);
  }
}

interface Column {
  name: string;
  /** The actor object goes in this column. */
  actor?: boolean;
  /** A value computed with the actors (by actor id), not by the engine. */
  values?: Map<string, unknown>;
  /** `matched_recordings`: no recordings are stored, so `[]` for every actor. */
  recordings?: boolean;
  /** `person_display_name`: the index of its person id among the extra columns. */
  display?: number;
  expr: Expr;
}

export const actorsRunner: QueryRunner<ActorsQuery> = {
  kinds: ['ActorsQuery'],
  schema: actorsQuerySchema,
  async run(node, ctx) {
    await ensureFilterParser();
    const source = node.source ? await resolveActorSource(node.source, ctx) : null;
    const gti = source?.groupTypeIndex ?? null;
    const groups = gti !== null;
    const idField = groups ? ast.field('p', 'key') : ast.call('toString', [ast.field('p', 'id')]);

    // (PostHog's input_columns: the strategy's defaults, whatever the source; retention's `appearances` only when selected)
    const names = node.select?.length ? node.select : defaultSelect(groups);
    // `actor_id`: the actor's id, as PostHog's actors queries name it (e.g. `orderBy: ["actor_id"]`)
    const valueExprs: Record<string, () => Expr> = { actor_id: () => structuredClone(idField) };
    for (const [name, values] of Object.entries(source?.values ?? {})) valueExprs[name] = () => valueColumnExpr(values, idField);
    /** Columns run after the named ones (the person id of `person_display_name`). */
    const extra: Expr[] = [];
    const columns: Column[] = names.map((name, i) => {
      if (ACTOR_COLUMNS.has(name)) return { name, actor: true, expr: idField };
      const values = source?.values?.[name];
      if (values) return { name, values, expr: ast.constant(null) };
      if (name === 'person.$delete') return { name, expr: ast.constant(1) };
      if (!groups && name.split('--')[0].trim() === 'person_display_name') {
        // PostHog's (coalesce(<display properties>, toString(id)), toString(id)), answered as {display_name, id}: run
        // as the name here and the id among the extra columns (so that grouped rows group by both, as by the tuple)
        extra.push(structuredClone(idField));
        return { name, display: extra.length - 1, expr: displayNameExpr(displayNameProperties(ctx.project)) };
      }
      // PostHog's matched_recordings: the recorded sessions among the actor's matching events, `[]` when none was
      // recorded; Quarry stores no recordings, so the list is always empty. It exists only when the source asks for
      // it (includeRecordings), as in PostHog, whose source query has the column then only.
      if (name === 'matched_recordings') {
        if (!source?.recordings) throw validationError('matched_recordings needs a source with includeRecordings: true.', `select__${i}`);
        return { name, recordings: true, expr: ast.constant(null) };
      }
      const expr = parseColumn(name, `select__${i}`);
      qualify(expr, source, `select__${i}`, valueExprs);
      return { name, expr };
    });

    // Search: persons by email, name or a distinct id (PostHog's ILIKE '%term%' on properties.email, properties.name
    // and pdi.distinct_id) or the UUID (exact), as PostHog's PersonStrategy.filter_conditions; groups by name or key
    // (GroupStrategy). The term goes into the pattern as given, as PostHog's f"%{search}%" does (like its icontains
    // property filter): a % or _ in it is a LIKE wildcard, and spaces are kept (only "" is no search).
    const term = node.search;
    const contains = (e: Expr): Expr => ast.compare('ilike', e, ast.constant(`%${term}%`));
    const search = !term
      ? undefined
      : groups
        ? ast.or(contains(ast.field('p', 'properties', 'name')), contains(ast.call('toString', [ast.field('p', 'key')])))
        : ast.or(
            contains(ast.field('p', 'properties', 'email')),
            contains(ast.field('p', 'properties', 'name')),
            ast.compare('==', ast.call('toString', [ast.field('p', 'id')]), ast.constant(term)),
            ast.compare('in', ast.call('toString', [ast.field('p', 'id')]), ast.select({ select: [ast.call('toString', [ast.field('person_id')])], from: 'person_distinct_ids', where: contains(ast.field('distinct_id')) })),
          );
    if (groups && (node.properties || node.fixedProperties)) throw validationError('properties filter persons; they do not apply to group actors.', 'properties');
    const filterCtx = { table: 'p', personTable: true, timezone: ctx.project.timezone };
    const where = ast.and(
      groups ? ast.compare('==', ast.field('p', 'index'), ast.constant(gti)) : undefined,
      source?.ids ? (source.ids.length ? ast.compare('in', idField, ast.tuple(source.ids.map((id) => ast.constant(id)))) : ast.constant(false)) : undefined,
      search,
      groups ? undefined : propertiesToExpr(node.properties ?? undefined, { ...filterCtx, attr: 'properties' }),
      groups ? undefined : propertiesToExpr(node.fixedProperties ?? undefined, { ...filterCtx, attr: 'fixedProperties' }),
    );

    const table = groups ? 'groups' : 'persons';
    const from = source?.query
      ? ast.joins(
          ast.joinExpr(table, { alias: 'p' }),
          ast.joinExpr(source.query, { alias: 's', type: 'INNER JOIN', on: ast.compare('==', idField, ast.field('s', 'actor_id')) }),
        )
      : ast.joinExpr(table, { alias: 'p' });

    // PostHog's has_aggregation: when a column aggregates, the other (non-constant) columns group the rows.
    const aggregations = columns.filter((c) => !c.actor && !c.values && hasAggregation(c.expr)).map((c) => c.expr);
    const grouped = aggregations.length > 0;
    const perActor = columns.find((c) => c.values || c.recordings);
    if (grouped && perActor) throw validationError(`${perActor.name} cannot be selected with an aggregate.`, 'select');
    const groupBy = grouped ? [...columns.filter((c) => !hasAggregation(c.expr) && c.expr.node !== 'Constant').map((c) => c.expr), ...extra] : undefined;

    // Order (PostHog's ActorsQueryRunner): the given expressions; else count() DESC when selected, else the first
    // aggregate DESC, else created_at DESC when selected, else the first column ASC. When that first column is the actor
    // (PostHog: its id, an arbitrary order) and `event_count` is selected, Quarry puts the most active actors first (the
    // persons modal's order). The actor id breaks ties so pages are
    // stable (not when grouping: the id is no column then).
    const hasCol = (n: string): boolean => names.includes(n);
    let orderBy: ast.OrderExpr[];
    if (node.orderBy?.length) {
      orderBy = node.orderBy.map((text, i) => {
        const { expr, order: dir } = parseOrderItem(text, `orderBy__${i}`);
        // PostHog's PersonStrategy/GroupStrategy order_by: the actor column sorts by its display name property (a
        // group's name; a person's first display property: email, or the project's person_display_name_properties[0]).
        if (expr.node === 'Field' && expr.chain.length === 1 && ACTOR_COLUMNS.has(String(expr.chain[0])))
          return ast.order(ast.field('p', 'properties', groups ? 'name' : displayNameProperties(ctx.project)[0]), dir);
        // an alias of a select column (`properties.email as email`) orders by that column, as in PostHog's SELECT
        const aliased = expr.node === 'Field' && expr.chain.length === 1 ? columns.find((c) => c.expr.node === 'Alias' && c.expr.alias === expr.chain[0]) : undefined;
        if (aliased?.expr.node === 'Alias') return ast.order(structuredClone(aliased.expr.expr), dir);
        qualify(expr, source, `orderBy__${i}`, valueExprs);
        return ast.order(expr, dir);
      });
    } else if (hasCol('count()')) orderBy = [ast.order(ast.call('count', []), 'DESC')];
    else if (grouped) orderBy = [ast.order(structuredClone(aggregations[0]), 'DESC')];
    else if (hasCol('created_at')) orderBy = [ast.order(ast.field('p', 'created_at'), 'DESC')];
    else if (hasCol('event_count') && source?.eventCount && columns[0].actor) orderBy = [ast.order(ast.field('s', 'event_count'), 'DESC')];
    else orderBy = [ast.order(structuredClone(columns[0].values ? valueExprs[columns[0].name]() : columns[0].expr), 'ASC')];
    if (!grouped) orderBy.push(ast.order(idField));

    const limit = !node.limit || node.limit <= 0 ? DEFAULT_LIMIT : Math.min(node.limit, MAX_LIMIT);
    const offset = node.offset ?? 0;
    // Ungrouped, each row is one actor: its id and fields come along; grouped, the rows are the columns alone (an actor
    // column then holds the grouped id) and the actors are read by id afterwards.
    const internal = grouped ? 0 : groups ? 3 : 4;
    const q = ast.select({
      select: [
        ...(grouped
          ? []
          : [
              ast.alias('a_id', idField),
              ast.alias('a_created_at', ast.field('p', 'created_at')),
              ast.alias('a_properties', ast.field('p', 'properties')),
              ...(groups ? [] : [ast.alias('a_identified', ast.field('p', 'is_identified'))]),
            ]),
        ...columns.map((c, i) => ast.alias(`c${i}`, c.expr)),
        ...extra.map((e, i) => ast.alias(`x${i}`, e)),
      ],
      from,
      where,
      groupBy,
      orderBy,
    });
    // Cells as ProductQL answers them (datetimes in the project's timezone, PostHog's type names); one row past the
    // page tells `hasMore`.
    const { compiled, hogql } = await ctx.timings.measure('print', () => printInsightQuery(ctx, q, { limit, offset }));
    const shaped = shapeResult((await executeCompiled(ctx, compiled, 'actors')).rows as unknown[][], compiled);
    const actorAt = columns.findIndex((c) => c.actor);
    let rows: ActorRow[];
    if (!grouped) rows = shaped.results.map((cells) => ({ id: String(cells[0]), createdAt: cells[1], properties: cells[2], identified: cells[3], cells: cells.slice(internal) }));
    else {
      const found = actorAt < 0 ? new Map<string, ActorRow>() : await actorRowsById(ctx, [...new Set(shaped.results.map((r) => String(r[actorAt])))], table, gti);
      rows = shaped.results.map((cells) => {
        const id = actorAt < 0 ? '' : String(cells[actorAt]);
        return { ...(found.get(id) ?? { id, createdAt: null, properties: null, identified: null }), cells };
      });
    }

    const known = grouped && actorAt >= 0 ? rows.filter((r) => r.createdAt !== null) : rows;
    const shapedActors = actorAt < 0 && grouped ? [] : groups ? known.map((row) => groupActor(row, gti)) : await personActors(ctx, known);
    const byId = new Map(shapedActors.map((a) => [String(a.id), a]));
    const cell = (row: ActorRow, c: Column, j: number): unknown => {
      if (c.actor) return byId.get(row.id) ?? { id: row.id };
      if (c.values) return c.values.get(row.id) ?? null;
      if (c.recordings) return [];
      // PostHog's {display_name, id} of the person_display_name tuple
      if (c.display !== undefined) return { display_name: row.cells[j], id: row.cells[columns.length + c.display] };
      return row.cells[j];
    };
    const results = rows.map((row) => columns.map((c, j) => cell(row, c, j)));

    // PostHog counts the actors it could not find whenever an actor column is selected: none can be missing from the
    // persons list itself
    let missing: number | undefined;
    if (source) missing = await missingActors(ctx, source, table, gti);
    else if (actorAt >= 0) missing = 0;
    return {
      columns: names,
      // the actor column is typed as its id (PostHog: persons.id UUID, groups.key String)
      types: columns.map((c, j) => {
        if (c.actor) return groups ? 'String' : 'UUID';
        if (c.values) return 'Array(Int64)';
        if (c.recordings) return RECORDINGS_TYPE;
        if (c.display !== undefined) return `Tuple(${shaped.types[internal + j][1]}, ${shaped.types[internal + columns.length + c.display][1]})`;
        return shaped.types[internal + j][1];
      }),
      results,
      hasMore: shaped.hasMore,
      limit,
      offset,
      hogql: hogql(),
      ...(missing !== undefined ? { missing_actors_count: missing } : {}),
      modifiers: node.modifiers ?? {},
    };
  },
};

interface ActorRow {
  id: string;
  createdAt: unknown;
  properties: unknown;
  identified: unknown;
  cells: unknown[];
}

/** PostHog's GroupStrategy.get_actors row: the group's fields, with `properties` repeated (legacy, for the frontend). */
function groupActor(row: ActorRow, gti: number): Record<string, unknown> {
  const properties = parseProperties(row.properties);
  return {
    id: row.id,
    type: 'group',
    properties,
    group_key: row.id,
    group_type_index: gti,
    created_at: drfDateTime(row.createdAt),
    group_properties: properties,
  };
}

/** The actor fields of the actors with these ids (persons, or groups of type `gti`), for grouped rows. */
async function actorRowsById(ctx: RunnerContext, ids: string[], table: string, gti: number | null): Promise<Map<string, ActorRow>> {
  const out = new Map<string, ActorRow>();
  if (!ids.length) return out;
  const id = gti !== null ? ast.field('key') : ast.call('toString', [ast.field('id')]);
  const r = await runInsightQuery(
    ctx,
    ast.select({
      select: [
        ast.alias('a_id', id),
        ast.alias('a_created_at', ast.field('created_at')),
        ast.alias('a_properties', ast.field('properties')),
        ...(gti !== null ? [] : [ast.alias('a_identified', ast.field('is_identified'))]),
      ],
      from: table,
      where: ast.and(gti !== null ? ast.compare('==', ast.field('index'), ast.constant(gti)) : undefined, ast.compare('in', structuredClone(id), ast.tuple(ids.map((x) => ast.constant(x))))),
      limit: 50_000,
    }),
    'actors',
  );
  for (const row of r.rows) out.set(String(row.a_id), { id: String(row.a_id), createdAt: row.a_created_at, properties: row.a_properties, identified: row.a_identified, cells: [] });
  return out;
}

/** The persons of a page with their distinct ids (one more query, bounded by the page). */
async function personActors(ctx: RunnerContext, rows: ActorRow[]): Promise<Record<string, unknown>[]> {
  if (!rows.length) return [];
  const ids = rows.map((r) => r.id);
  const pairs = await runInsightQuery(
    ctx,
    ast.select({
      select: [ast.alias('pid', ast.call('toString', [ast.field('person_id')])), ast.alias('did', ast.field('distinct_id'))],
      from: 'person_distinct_ids',
      where: ast.compare('in', ast.call('toString', [ast.field('person_id')]), ast.tuple(ids.map((id) => ast.constant(id)))),
      // PostHog lists a person's distinct ids in the order they were first seen (PersonDistinctId by id)
      orderBy: [ast.order(ast.field('seq')), ast.order(ast.field('distinct_id'))],
      limit: 50_000,
    }),
    'actors',
  );
  const byPerson = new Map<string, string[]>();
  for (const p of pairs.rows) {
    const list = byPerson.get(String(p.pid)) ?? [];
    list.push(String(p.did));
    byPerson.set(String(p.pid), list);
  }
  // PostHog's PersonStrategy.get_actors: id, distinct_ids, properties, created_at, is_identified
  return rows.map((r) => ({
    id: r.id,
    distinct_ids: byPerson.get(r.id) ?? [],
    properties: parseProperties(r.properties),
    created_at: drfDateTime(r.createdAt),
    is_identified: r.identified === true || r.identified === 1 || r.identified === 'true',
  }));
}

/** Actors of the data point with no persons (or groups) row: PostHog's `missing_actors_count`. */
async function missingActors(ctx: RunnerContext, source: ActorSource, table: string, gti: number | null): Promise<number> {
  const key = ast.call('toString', [ast.field(gti !== null ? 'key' : 'id')]);
  const ofType = gti !== null ? ast.compare('==', ast.field('index'), ast.constant(gti)) : undefined;
  if (source.ids) {
    if (!source.ids.length) return 0;
    const found = await runInsightQuery(
      ctx,
      ast.select({
        select: [ast.alias('n', ast.call('count', []))],
        from: table,
        where: ast.and(ofType, ast.compare('in', key, ast.tuple(source.ids.map((id) => ast.constant(id))))),
      }),
      'actors',
    );
    return Math.max(0, source.ids.length - toNumber(found.rows[0]?.n));
  }
  const r = await runInsightQuery(
    ctx,
    ast.select({
      select: [ast.alias('n', ast.call('count', []))],
      from: source.query!,
      fromAlias: 's',
      where: ast.compare('not in', ast.field('s', 'actor_id'), ast.select({ select: [key], from: table, where: ofType })),
    }),
    'actors',
  );
  return toNumber(r.rows[0]?.n);
}
