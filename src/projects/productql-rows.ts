import type { Principal } from '../auth/principal';
import type { QueryService } from '../queries/query-service';
import type { Project } from '../store/entities';

/**
 * The rows of a ProductQL text that a REST reader (events, persons, related actors, elements) runs through the query
 * service: the caller's access is checked there, `values` are bound as `{variables.<name>}` (never spliced into the
 * text), `filters` fill a `{filters}` placeholder, and the answer is always fresh (`force_blocking`). `name` labels
 * the query in the query log.
 */
export async function productqlRows(
  queries: QueryService,
  principal: Principal,
  project: Project,
  name: string,
  sql: string,
  values: Record<string, unknown>,
  filters?: unknown,
): Promise<unknown[][]> {
  const variables = Object.fromEntries(Object.entries(values).map(([code, value]) => [code, { variableId: code, code_name: code, value }]));
  const node = { kind: 'HogQLQuery', query: sql, variables, ...(filters !== undefined ? { filters } : {}) };
  const out = await queries.execute(principal, project, node, { refresh: 'force_blocking', name });
  return (out.body.results ?? []) as unknown[][];
}
