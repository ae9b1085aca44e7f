import { assertResultSize } from '../../limits';
import { compileProductQL, shapeResult, type CompileProductQLInput, type CompiledProductQL } from '../../productql';
import { executeCompiled } from '../insights/execute';
import type { QueryRunner } from '../runner';
import { productqlQuerySchema, variableValues, type ProductQLQueryNode } from '../schema/productql-query';

/** Runs a ProductQL query: parse → resolve → print (with the project guard) → execute → shape. */
export const productqlRunner: QueryRunner<ProductQLQueryNode> = {
  kinds: ['ProductQLQuery', 'HogQLQuery'],
  schema: productqlQuerySchema,
  async run(node, ctx) {
    const compiled = await ctx.timings.measure('print', () =>
      compileMemo({
        query: node.query,
        projectId: ctx.project.id,
        timezone: ctx.project.timezone,
        variables: variableValues(node.variables),
        values: node.values,
        limit: node.limit,
        offset: node.offset,
        personOverrides: ctx.engine.hasPersonOverrides?.(ctx.project.id) ?? true,
        dialect: ctx.engine.dialect,
      }),
    );
    const result = await executeCompiled(ctx, compiled);
    assertResultSize(result.rows);
    const shaped = ctx.timings.measureSync('shape', () => shapeResult(result.rows, compiled));
    const explainAllowed = node.explain === true && ctx.principal.kind === 'personal';
    return {
      results: shaped.results,
      columns: shaped.columns,
      types: shaped.types,
      hasMore: shaped.hasMore,
      limit: shaped.limit,
      offset: shaped.offset,
      productql: compiled.hogql,
      hogql: compiled.hogql,
      query: node.query,
      ...(explainAllowed ? { explain: { engine: ctx.engine.dialect, sql: compiled.sql, params: compiled.params } } : {}),
    };
  },
};

/** Compiled queries kept by {@link compileMemo} (oldest forgotten first). */
export const COMPILE_MEMO_ENTRIES = 500;
/** Query texts longer than this are compiled every time (the memo keeps small, repeated questions). */
const COMPILE_MEMO_MAX_CHARS = 16 * 1024;
const compiledByInput = new Map<string, CompiledProductQL>();

/**
 * {@link compileProductQL}, remembered by its whole input. A compilation is a pure function of that input (text,
 * project id, timezone, variables, values, limit, offset, person overrides, dialect: the printer reads nothing else, binds every
 * literal and prints `now()` as SQL, never as a value), so a query asked again — a dashboard refresh, a
 * `force_blocking` rerun, an endpoint run with the same variables — skips resolving and printing. The compiled
 * object is only read afterwards (the engine takes its params as readonly). Errors are not remembered.
 */
export async function compileMemo(input: CompileProductQLInput): Promise<CompiledProductQL> {
  if (typeof input.query !== 'string' || input.query.length > COMPILE_MEMO_MAX_CHARS || !plainJson(input.variables) || !plainJson(input.values)) {
    return compileProductQL(input);
  }
  const key = JSON.stringify([
    input.dialect,
    input.projectId,
    input.timezone,
    input.query,
    input.variables ?? null,
    input.values ?? null,
    input.limit ?? null,
    input.offset ?? null,
    input.personOverrides ?? true,
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
