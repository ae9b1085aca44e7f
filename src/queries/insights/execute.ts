/**
 * Runs a ProductQL AST built by an insight runner through the one printer and the engine, recording timings.
 */
import { compileProductQL, type CompiledProductQL, type CompileProductQLInput, type Query } from '../../productql';
import { displayHogQL } from '../../productql/hogql';
import type { QueryResult } from '../../engines/engine';
import type { RunnerContext } from '../runner';

/** Rows as objects keyed by output column name, plus the ProductQL text of the query (PostHog's `hogql`). */
export interface InsightRows {
  rows: Record<string, unknown>[];
  hogql: string;
  /** More than {@link INSIGHT_ROW_LIMIT} rows existed; `rows` holds only the first ones. */
  truncated: boolean;
}

/** Largest number of rows an insight query reads back (PostHog raises its per-query limit to this). */
export const INSIGHT_ROW_LIMIT = 50_000;

/**
 * Printed insight queries by dialect, project, timezone and AST. A runner rebuilds the same AST each time an insight
 * is asked (the date range, filters and values are in it), and printing costs 0.3–1.5 ms of JS per query — a
 * noticeable share of a small insight, more than the engine needs for one at small sizes. The printer is a pure
 * function of these inputs, so a hit is exactly what printing again would produce. Bounded; oldest entries go first.
 */
const printed = new Map<string, { compiled: CompiledProductQL; hogql?: string }>();
const PRINTED_CACHE_ENTRIES = 500;

/**
 * A cache key for an AST: its JSON, with the values JSON cannot tell apart tagged (undefined, non-finite numbers,
 * -0) so that distinct ASTs never share a key. Null (do not cache) for anything but plain objects, arrays and
 * primitives.
 */
export function astCacheKey(query: Query): string | null {
  try {
    return JSON.stringify(query, function (this: Record<string, unknown>, k: string, v: unknown) {
      const original = this[k];
      if (original === undefined) return { '\u0000': 'undefined' };
      if (typeof original === 'number') return Number.isFinite(original) && !Object.is(original, -0) ? original : { '\u0000': String(Object.is(original, -0) ? '-0' : original) };
      if (typeof original === 'bigint' || typeof original === 'function' || typeof original === 'symbol') throw new Error('not cacheable');
      if (original !== null && typeof original === 'object') {
        const proto = Object.getPrototypeOf(original);
        if (!Array.isArray(original) && proto !== Object.prototype && proto !== null) throw new Error('not cacheable');
      }
      return v;
    });
  } catch {
    return null;
  }
}

/**
 * What a compilation takes from the running query's project and engine (everything but the query, paging and
 * variables): every runner compiles with these, so a project setting reaches each printed query the same way.
 */
export function projectCompileInput(
  ctx: RunnerContext,
): Pick<CompileProductQLInput, 'projectId' | 'timezone' | 'weekStartDay' | 'personOverrides' | 'personless' | 'dialect' | 'bounceRateDurationSeconds' | 'customChannelTypeRules'> {
  return {
    projectId: ctx.project.id,
    timezone: ctx.project.timezone,
    weekStartDay: ctx.project.week_start_day,
    personOverrides: ctx.engine.hasPersonOverrides?.(ctx.project.id) ?? true,
    // events stored without a person take the person their distinct id gets later (PostHog credits them to it)
    personless: mayHavePersonless(ctx),
    dialect: ctx.engine.dialect,
    // the query's sessions modifiers ($is_bounce, $channel_type), for any sessions table or session property it reads
    bounceRateDurationSeconds: ctx.sessionModifiers?.bounceRateDurationSeconds,
    customChannelTypeRules: ctx.sessionModifiers?.customChannelTypeRules,
  };
}

/**
 * Prints `query` for the project with the insight row limit (or `limit`/`offset`), reusing an earlier print of an
 * equal AST for the same dialect, project, timezone and week start. The result is shared: callers must not modify it.
 */
export async function printInsightQuery(
  ctx: RunnerContext,
  query: Query,
  page: { limit?: number; offset?: number } = {},
): Promise<{ compiled: CompiledProductQL; hogql(): string }> {
  const limit = page.limit ?? INSIGHT_ROW_LIMIT;
  const offset = page.offset;
  const ast = astCacheKey(query);
  const input = projectCompileInput(ctx);
  const key =
    ast === null
      ? null
      : `${input.dialect}\u0001${input.projectId}\u0001${input.timezone}\u0001${input.weekStartDay}\u0001${limit}\u0001${offset ?? ''}\u0001${input.personOverrides}\u0001${input.personless}\u0001${input.bounceRateDurationSeconds ?? ''}\u0001${JSON.stringify(input.customChannelTypeRules ?? null)}\u0001${ast}`;
  let entry = key === null ? undefined : printed.get(key);
  if (entry) printed.delete(key!); // re-inserted below: the map's order is recency
  else entry = { compiled: await compileProductQL({ ...input, query, limit, offset }) };
  if (key !== null) {
    while (printed.size >= PRINTED_CACHE_ENTRIES) printed.delete(printed.keys().next().value as string);
    printed.set(key, entry);
  }
  const e = entry;
  return { compiled: e.compiled, hogql: () => (e.hogql ??= displayHogQL(query)) };
}

/**
 * Runs printed ProductQL on the project's engine under the request's signal and time limit, with its stages (the
 * printer's materialized CTEs), timed as `label`. Every runner executes compiled SQL through here.
 */
export function executeCompiled(ctx: RunnerContext, compiled: CompiledProductQL, label = 'execute'): Promise<QueryResult> {
  return ctx.timings.measure(label, () => ctx.engine.query(compiled.sql, compiled.params, { signal: ctx.signal, timeoutMs: ctx.timeoutMs, stages: compiled.stages }));
}

/**
 * Prints `query` for the project (project guard, bound values) and runs it. BIGINT/HUGEINT values come back as JS
 * numbers; datetimes stay as the engine returns them (runners bucket via text keys, not Date objects).
 */
/**
 * Whether the project may hold events without a person (EventEngine.hasPersonlessEvents; true when the engine does not
 * track it): runners that key actors on the stored person id run their distinct-id actors' pass only then.
 */
export function mayHavePersonless(ctx: RunnerContext): boolean {
  return ctx.engine.hasPersonlessEvents?.(ctx.project.id) ?? true;
}

export async function runInsightQuery(ctx: RunnerContext, query: Query, stage = 'execute'): Promise<InsightRows> {
  const { compiled, hogql } = await ctx.timings.measure('print', () => printInsightQuery(ctx, query));
  const result = await executeCompiled(ctx, compiled, stage);
  const names = compiled.columnNames;
  // Datetimes as ISO text on every engine (ClickHouse returns them as epoch-ms numbers, DuckDB as ISO text).
  const datetime = compiled.columns.map((c) => c.type === 'datetime');
  const rows = (result.rows as unknown[][]).slice(0, compiled.limit).map((r) => {
    const o: Record<string, unknown> = {};
    names.forEach((n, i) => {
      const v = r[i];
      o[n] = typeof v === 'bigint' ? Number(v) : datetime[i] && typeof v === 'number' ? new Date(v).toISOString() : v;
    });
    return o;
  });
  return { rows, hogql: hogql(), truncated: result.rows.length > compiled.limit };
}

/** A number from an engine value (bigint, decimal text, null → 0). */
export const toNumber = (v: unknown): number => {
  if (v === null || v === undefined) return 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  const n = Number(v);
  return Number.isFinite(n) ? n : 0;
};
