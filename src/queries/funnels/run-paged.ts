import { compileProductQL, MAX_LIMIT, type Query } from '../../productql';
import type { RunnerContext } from '../runner';

export interface PagedRun {
  rows: unknown[][];
  columns: string[];
  /** The query as run (normalized ProductQL), for the response's `hogql`. */
  hogql: string;
}

/**
 * Runs an insight's intermediate query through the one printer and returns every row. The printer clamps the
 * top-level LIMIT to 50,000 (a safety rule for callers), so large per-actor intermediate results are read in
 * pages of that size; the query must have a total ORDER BY for the pages to be stable.
 */
export async function runAllRows(ctx: RunnerContext, query: Query, label = 'execute'): Promise<PagedRun> {
  const rows: unknown[][] = [];
  let offset = 0;
  let hogql = '';
  let columns: string[] = [];
  for (;;) {
    const compiled = await ctx.timings.measure('print', () =>
      compileProductQL({
        query,
        projectId: ctx.project.id,
        timezone: ctx.project.timezone,
        limit: MAX_LIMIT,
        offset,
        dialect: ctx.engine.dialect,
      }),
    );
    hogql ||= compiled.hogql;
    columns = compiled.columnNames;
    const res = await ctx.timings.measure(label, () =>
      ctx.engine.query(compiled.sql, compiled.params, { signal: ctx.signal, timeoutMs: ctx.timeoutMs }),
    );
    const page = res.rows.length > compiled.limit ? res.rows.slice(0, compiled.limit) : res.rows;
    for (const r of page) rows.push(r);
    if (res.rows.length <= compiled.limit) break;
    offset += compiled.limit;
  }
  return { rows, columns, hogql };
}
