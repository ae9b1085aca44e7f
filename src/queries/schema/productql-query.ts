import { z } from 'zod';

/** A variable as PostHog's HogQLQuery sends it; a plain value is accepted too. */
const variableValue = z.union([
  z
    .object({
      variableId: z.string().optional(),
      code_name: z.string(),
      value: z.unknown().optional(),
      isNull: z.boolean().optional(),
    })
    .strict(),
  z.unknown(),
]);

/**
 * `ProductQLQuery` (alias `HogQLQuery`): PostHog's HogQLQuery node. `limit`/`offset` are Quarry's paging of the
 * outer query (of a query with a LIMIT/OFFSET of its own: the page within its rows); `explain` returns the printed
 * engine SQL (personal keys only).
 */
export const productqlQuerySchema = z
  .object({
    kind: z.enum(['ProductQLQuery', 'HogQLQuery']),
    query: z.string().min(1, 'The query is empty.').max(100_000),
    variables: z.record(z.string(), variableValue).optional(),
    values: z.record(z.string(), z.unknown()).optional(),
    name: z.string().max(400).optional(),
    modifiers: z.record(z.string(), z.unknown()).optional(),
    explain: z.boolean().optional(),
    limit: z.number().int().min(1).max(50_000).optional(),
    offset: z.number().int().min(0).max(10_000_000).optional(),
    tags: z.record(z.string(), z.unknown()).optional(),
    response: z.unknown().optional(),
  })
  .strict();

export type ProductQLQueryNode = z.infer<typeof productqlQuerySchema>;

/** `{name: value}` from either a plain map or PostHog's `{id: {code_name, value}}` map. */
export function variableValues(vars: ProductQLQueryNode['variables']): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(vars ?? {})) {
    if (v && typeof v === 'object' && !Array.isArray(v) && 'code_name' in v) {
      const pv = v as { code_name: string; value?: unknown; isNull?: boolean };
      out[pv.code_name] = pv.isNull ? null : pv.value;
    } else out[key] = v;
  }
  return out;
}
