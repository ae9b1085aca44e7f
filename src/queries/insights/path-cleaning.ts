/**
 * The project's path-cleaning rules (`path_cleaning_filters`: `{regex, alias}`) as the `is_cleaned_path_exact`
 * property operator applies them: PostHog's `apply_path_cleaning` (posthog/hogql/property.py) wraps a path in one
 * `replaceRegexpAll(path, regex, alias)` per rule, in the order the project stores them, and the operator compares the
 * cleaned property with the value (a cleaned path such as `/project/<id>`, as web analytics shows it). Without rules
 * the operator is `exact`.
 *
 * Property filters are built synchronously inside the runners, which pass the filter builder a timezone but not the
 * project: the query service runs each query with its project's rules in scope ({@link runWithPathCleaning}), as the
 * cohort-aware runner wrapper does for cohorts (src/cohorts/cohort-scope.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import * as ast from '../../productql/ast';
import type { Expr } from '../../productql/ast';

/** One rule: every match of `regex` (RE2) in the path becomes `alias`. */
export interface PathCleaningRule {
  regex: string;
  alias: string;
}

const scope = new AsyncLocalStorage<readonly PathCleaningRule[]>();

/**
 * The usable rules of a stored list, in order. An empty regex cleans nothing (ClickHouse's replaceRegexpAll refuses
 * one); entries that are no `{regex, alias}` are skipped, as PostHog's `path_cleaning_filter_models` skips the ones it
 * cannot validate.
 */
export function pathCleaningRules(list: unknown[] | null | undefined): PathCleaningRule[] {
  return (list ?? []).filter(
    (r): r is PathCleaningRule =>
      !!r && typeof r === 'object' && typeof (r as PathCleaningRule).regex === 'string' && (r as PathCleaningRule).regex !== '' && typeof (r as PathCleaningRule).alias === 'string',
  );
}

/** Runs `fn` with the project's path-cleaning rules visible to {@link pathCleaningInScope}. */
export function runWithPathCleaning<T>(project: { path_cleaning_filters?: unknown[] | null }, fn: () => T): T {
  return scope.run(pathCleaningRules(project.path_cleaning_filters), fn);
}

/** The running query's project rules (none when no query runs). */
export const pathCleaningInScope = (): readonly PathCleaningRule[] => scope.getStore() ?? [];

/** `path` with every rule applied in turn (PostHog's apply_path_cleaning); `path` itself without rules. */
export function cleanedPathExpr(path: Expr, rules: readonly PathCleaningRule[] = pathCleaningInScope()): Expr {
  return rules.reduce<Expr>((x, r) => ast.call('replaceRegexpAll', [x, ast.constant(r.regex), ast.constant(r.alias)]), path);
}
