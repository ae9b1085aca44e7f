import type { Principal } from '../auth/principal';
import { toNumber } from '../queries/insights/execute';
import type { QueryService } from '../queries/query-service';
import type { ActionService } from './action-service';

/**
 * PostHog's `GET …/actions/<id>/count/` (ActionViewSet.count, scope `action:read`, posthog/api/test/test_action.py
 * `test_get_event_count`): `{count}`, the number of the project's events the action matches, over all time (PostHog's
 * query has no date bound; Quarry's runs as an EventsQuery with `after: 'all'`, so events stamped more than 5 s in the
 * future stay out, as they do of every events query). An action without steps counts 0, as PostHog's empty filter
 * does; so does a soft-deleted one (queries never read deleted actions). Unknown ids and other projects' actions are a
 * 404. The count reads the engine (never the cache), through the query service: project guard, cohort filters in the
 * steps, timeout and query log as any query.
 */
export async function actionEventCount(
  deps: { actions: ActionService; queries: QueryService },
  principal: Principal,
  projectId: number,
  ref: string,
): Promise<{ count: number }> {
  const action = await deps.actions.get(principal, projectId, ref);
  if (action.deleted || action.steps.length === 0) return { count: 0 };
  const project = await deps.queries.projectFor(principal, projectId, { scope: 'action:read' });
  const node = { kind: 'EventsQuery', select: ['count()'], actionId: action.id, after: 'all' };
  const out = await deps.queries.execute(principal, project, node, { refresh: 'force_blocking', name: 'action_count' });
  const rows = (out.body.results ?? []) as unknown[][];
  return { count: toNumber(rows[0]?.[0]) };
}
