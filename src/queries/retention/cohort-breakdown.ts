/**
 * Retention cohort breakdowns (`breakdownFilter: {breakdown_type: 'cohort', breakdown: [id, …, 'all']}`), as PostHog's
 * retention runner answers them (reference §4.3): one retention per cohort, with the cohort as an extra filter (`all`:
 * none), so an actor in two cohorts counts in both. Each cohort is one block of rows with `breakdown_value` = the cohort
 * id (0 for all users); blocks are ranked as other retention breakdowns are, by total cohort size (then id).
 *
 * The cohorts must be in the run's scope (src/cohorts/cohort-scope.ts, loaded by the cohort-aware runner wrapper).
 */
import { validationError } from '../../errors';
import { cohortInScope, cohortNotFoundMessage } from '../../cohorts/cohort-scope';
import { cohortBreakdownValues } from '../insights';
import type { RunnerContext } from '../runner';
import type { RetentionQueryNode } from './schema';

type OnActor = (actor: string, cohort: number, appearances: number[], breakdownValue: string) => void;
type Run = (node: RetentionQueryNode, ctx: RunnerContext, opts: { onActor?: OnActor }) => Promise<Record<string, unknown>>;

/** The cohort ids of a cohort breakdown (0: all users), each checked to be a cohort of the project; null for other breakdowns. */
export function retentionCohortIds(node: RetentionQueryNode): number[] | null {
  const values = cohortBreakdownValues(node.breakdownFilter);
  if (!values) return null;
  for (const v of values) if (v !== 'all' && !cohortInScope(v)) throw validationError(cohortNotFoundMessage(v), 'breakdownFilter__breakdown');
  return values.map((v) => (v === 'all' ? 0 : v));
}

type Props = RetentionQueryNode['properties'];
function withCohort(props: Props, id: number): Props {
  const filter = { type: 'cohort', key: 'id', value: id, operator: 'in' };
  if (!props) return [filter] as Props;
  if (Array.isArray(props)) return [...props, filter] as Props;
  return { type: 'AND', values: [props, filter] } as unknown as Props;
}

export async function runRetentionCohortBreakdown(node: RetentionQueryNode, ctx: RunnerContext, ids: number[], run: Run, onActor?: OnActor): Promise<Record<string, unknown>> {
  const blocks: { id: number; size: number; rows: Record<string, unknown>[] }[] = [];
  let first: Record<string, unknown> | null = null;
  for (const id of ids) {
    const sub: RetentionQueryNode = { ...node, breakdownFilter: null, properties: id === 0 ? node.properties : withCohort(node.properties, id) };
    const response = await run(sub, ctx, { onActor: onActor ? (actor, cohort, appearances) => onActor(actor, cohort, appearances, String(id)) : undefined });
    first ??= response;
    const rows = (response.results as { values: { count: number }[] }[]).map((r) => ({ ...r, breakdown_value: id }));
    const size = rows.reduce((s, r) => s + (r.values[0]?.count ?? 0), 0);
    blocks.push({ id, size, rows });
  }
  blocks.sort((a, b) => b.size - a.size || a.id - b.id);
  return { ...(first ?? {}), results: blocks.flatMap((b) => b.rows) };
}
