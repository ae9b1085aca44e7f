/**
 * Runs a ProductQL AST built by an insight runner through the one printer and the engine, recording timings.
 */
import { compileProductQL, type Query } from '../../productql';
import { printHogQL } from '../../productql/hogql';
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
 * Prints `query` for the project (project guard, bound values) and runs it. BIGINT/HUGEINT values come back as JS
 * numbers; datetimes stay as the engine returns them (runners bucket via text keys, not Date objects).
 */
export async function runInsightQuery(ctx: RunnerContext, query: Query, stage = 'execute'): Promise<InsightRows> {
  const compiled = await ctx.timings.measure('print', () =>
    compileProductQL({
      query,
      projectId: ctx.project.id,
      timezone: ctx.project.timezone,
      limit: INSIGHT_ROW_LIMIT,
      dialect: ctx.engine.dialect,
    }),
  );
  const result = await ctx.timings.measure(stage, () =>
    ctx.engine.query(compiled.sql, compiled.params, { signal: ctx.signal, timeoutMs: ctx.timeoutMs }),
  );
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
  return { rows, hogql: printHogQL(query), truncated: result.rows.length > compiled.limit };
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
