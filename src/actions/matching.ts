/**
 * An action's match condition as a ProductQL expression, as PostHog's `action_to_expr` builds it: the OR of its steps;
 * a step is the AND of what it sets — `event = X` (a step without an event matches any event), the URL condition on
 * `properties.$current_url` (`exact`: equal; `regex`: RE2 match; `contains`, the default: `like '%url%'`, case
 * sensitive, `%`/`_` in the url act as wildcards as in PostHog) and its property filters (the series' semantics). A
 * step that sets nothing matches every event, and so does an action without steps.
 *
 * Autocapture element conditions (`selector`, `tag_name`, `href` by `href_matching`, `text` by `text_matching`) match
 * the event's `elements_chain` as PostHog's do (src/queries/insights/element-filters.ts), and only in `$autocapture`
 * steps: PostHog's action_to_expr (and the older filter_event) read them under `if step.event == AUTOCAPTURE_EVENT`,
 * so a step of another event, or of any event, ignores them.
 */
import * as ast from '../productql/ast';
import type { Expr } from '../productql/ast';
import { validationError } from '../errors';
import { propertiesToExpr, type FilterContext } from '../queries/insights/property-filters';
import { anyPropertyFilterSchema } from '../queries/insights/schema';
import { stepElementExprs } from '../queries/insights/element-filters';
import type { ActionStep } from '../store/entities/action';

/** What a query needs of an action. */
export interface ActionDef {
  id: number;
  name: string | null;
  steps: ActionStep[];
}

const AUTOCAPTURE = '$autocapture';

const fieldOf = (ctx: FilterContext, ...chain: string[]): Expr => ast.field(...(ctx.table ? [ctx.table, ...chain] : chain));

function urlExpr(step: ActionStep, ctx: FilterContext): Expr | undefined {
  if (!step.url) return undefined;
  const url = fieldOf(ctx, 'properties', '$current_url');
  switch (step.url_matching) {
    case 'exact':
      return ast.compare('==', url, ast.constant(step.url));
    case 'regex':
      return ast.compare('=~', url, ast.constant(step.url));
    default:
      return ast.compare('like', url, ast.constant(`%${step.url}%`));
  }
}

/** One step's condition (`true` when it sets nothing). */
export function stepToExpr(step: ActionStep, ctx: FilterContext): Expr {
  return ast.and(
    step.event ? ast.compare('==', fieldOf(ctx, 'event'), ast.constant(step.event)) : undefined,
    // PostHog's action_to_expr reads the element fields of `$autocapture` steps only (any other step ignores them)
    ...(step.event === AUTOCAPTURE ? stepElementExprs(step, { ...ctx, attr: ctx.attr ?? 'series' }) : []),
    urlExpr(step, ctx),
    step.properties?.length ? propertiesToExpr(stepProperties(step, ctx), ctx) : undefined,
  );
}

/** A step's property filters as stored (as sent, e.g. without `type`), read as series filters read them (`type` defaults to event). */
function stepProperties(step: ActionStep, ctx: FilterContext) {
  const parsed = stepPropertiesSchema.safeParse(step.properties);
  if (!parsed.success) throw validationError('The action has an invalid property filter.', ctx.attr ?? 'series');
  return parsed.data;
}
const stepPropertiesSchema = anyPropertyFilterSchema.array();

/** The action's condition: the OR of its steps; `true` for an action without steps (as PostHog). */
/** Where runners read a project's saved actions from (the action service; see RunnerContext.actions). */
export interface ActionSource {
  /** The live (not deleted) actions of `projectId` among `ids`; ids of other projects or deleted actions are absent. */
  liveActions(projectId: number, ids: number[]): Promise<Map<number, ActionDef>>;
  /** The live actions of `projectId` named one of `names` (ProductQL's `matchesAction('name')`); absent: names match none. */
  liveActionsByName?(projectId: number, names: string[]): Promise<ActionDef[]>;
}

export function actionToExpr(action: ActionDef, ctx: FilterContext = {}): Expr {
  if (action.steps.length === 0) return ast.constant(true);
  return ast.or(...action.steps.map((s) => stepToExpr(s, ctx)));
}
