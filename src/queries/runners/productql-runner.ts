import { assertResultSize } from '../../limits';
import { compileProductQL, shapeResult } from '../../productql';
import type { QueryRunner } from '../runner';
import { productqlQuerySchema, variableValues, type ProductQLQueryNode } from '../schema/productql-query';

/** Runs a ProductQL query: parse → resolve → print (with the project guard) → execute → shape. */
export const productqlRunner: QueryRunner<ProductQLQueryNode> = {
  kinds: ['ProductQLQuery', 'HogQLQuery'],
  schema: productqlQuerySchema,
  async run(node, ctx) {
    const compiled = await ctx.timings.measure('print', () =>
      compileProductQL({
        query: node.query,
        projectId: ctx.project.id,
        timezone: ctx.project.timezone,
        variables: variableValues(node.variables),
        values: node.values,
        limit: node.limit,
        offset: node.offset,
        dialect: ctx.engine.dialect,
      }),
    );
    const result = await ctx.timings.measure('execute', () =>
      ctx.engine.query(compiled.sql, compiled.params, { signal: ctx.signal, timeoutMs: ctx.timeoutMs }),
    );
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
