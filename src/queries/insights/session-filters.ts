/**
 * Session properties in insights (reference §1.4, §1.6): a `{type: 'session', key}` filter or a `session` breakdown
 * reads `session.<key>`, the lazily joined sessions row of the event's `$session_id` (src/productql/schema.ts). An
 * event without a session id has no sessions row, so its session properties are NULL (a positive filter drops it, a
 * breakdown puts it under the null value).
 *
 * The key must be a field of the sessions table: anything else is a 400 naming the key (PostHog's HogQL resolver
 * refuses an unknown field of a lazily joined table the same way), raised before a query is printed.
 */
import * as ast from '../../productql/ast';
import type { Expr } from '../../productql/ast';
import { SESSION_FIELDS } from '../../productql/schema';
import { validationError } from '../../errors';

/**
 * Names PostHog's sessions v2 table also answers to, for the fields Quarry keeps under their v1 name: v2 stores the
 * last URL as `$end_current_url` / `$end_pathname` and keeps `$exit_*` as aliases.
 */
const SESSION_ALIASES: Record<string, string> = {
  $end_current_url: '$exit_current_url',
  $end_pathname: '$exit_pathname',
};

/** The session properties a filter or breakdown may name, in the sessions table's order, then the aliases. */
export const SESSION_PROPERTY_KEYS: readonly string[] = [...Object.keys(SESSION_FIELDS), ...Object.keys(SESSION_ALIASES)];

/** The sessions table field a session property reads (`key` itself, or the field an alias names); a 400 otherwise. */
export function sessionFieldName(key: string, attr: string): string {
  if (Object.prototype.hasOwnProperty.call(SESSION_FIELDS, key)) return key;
  if (Object.prototype.hasOwnProperty.call(SESSION_ALIASES, key)) return SESSION_ALIASES[key];
  throw validationError(`Unknown session property "${key}". Session properties are: ${SESSION_PROPERTY_KEYS.join(', ')}.`, attr);
}

/**
 * The value of session property `key` for the event (`table`: the events alias, default the single FROM table):
 * `session.<field>`. A boolean (`$is_bounce`) compares with text and reads as text as `'true'` / `'false'` on every
 * engine (the printers see to it), as PostHog's ClickHouse `Bool`. An unknown key is a 400 on `attr`.
 */
export function sessionPropertyExpr(key: string, attr: string, table?: string): Expr {
  const name = sessionFieldName(key, attr);
  return ast.field(...(table ? [table, 'session', name] : ['session', name]));
}
