/**
 * How query runners reach a project's actions. Runners get the engine in their context but not the metadata store, so
 * the action service registers itself as the source for its engine (one per opened service layer); a runner asks the
 * source of `ctx.engine`. An engine without a source (runner unit tests) has no actions: every ActionsNode names an
 * action that does not exist.
 */
import type { ActionDef } from './matching';

export interface ActionSource {
  /** The live (not deleted) actions of `projectId` among `ids`; ids of other projects or deleted actions are absent. */
  liveActions(projectId: number, ids: number[]): Promise<Map<number, ActionDef>>;
}

const sources = new WeakMap<object, ActionSource>();

export function registerActionSource(engine: object, source: ActionSource): void {
  sources.set(engine, source);
}

export function actionSourceFor(engine: object): ActionSource | undefined {
  return sources.get(engine);
}
