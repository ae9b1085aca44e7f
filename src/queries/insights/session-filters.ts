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
import { SESSION_LIST_FIELDS } from '../../productql/sessions';
import { validationError } from '../../errors';

/**
 * The session properties a filter or breakdown may name: the sessions table's fields but its lists (`$urls`), in its
 * order (v1 names such as `$exit_current_url` and `duration` are fields there too, as PostHog's sessions v2 table
 * answers to them).
 */
export const SESSION_PROPERTY_KEYS: readonly string[] = Object.keys(SESSION_FIELDS).filter((k) => !SESSION_LIST_FIELDS.has(k));

/** The sessions table field a session property reads (`key` itself); a 400 otherwise. */
export function sessionFieldName(key: string, attr: string): string {
  if (SESSION_LIST_FIELDS.has(key))
    throw validationError(`Session property "${key}" is a list and cannot be compared as a property value: use $num_uniq_urls, $entry_current_url or $end_current_url.`, attr);
  if (Object.prototype.hasOwnProperty.call(SESSION_FIELDS, key)) return key;
  throw validationError(`Unknown session property "${key}". Session properties are: ${SESSION_PROPERTY_KEYS.join(', ')}.`, attr);
}

/**
 * The value of session property `key` for the event (`table`: the events alias, default the single FROM table):
 * `session.<field>`. A boolean (`$is_bounce`) compares with `'true'` / `'false'` and reads as text as the printers write
 * its type: `'0'` / `'1'` for PostHog's `not(...)`, a ClickHouse UInt8. An unknown key is a 400 on `attr`.
 */
export function sessionPropertyExpr(key: string, attr: string, table?: string): Expr {
  const name = sessionFieldName(key, attr);
  return ast.field(...(table ? [table, 'session', name] : ['session', name]));
}
