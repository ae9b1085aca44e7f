import { UserError, type SourceSpan } from '../errors';
import type { NodeBase } from './ast';

/** Span of a node when it came from parsed text; built nodes have none. */
export const spanOf = (n: NodeBase | null | undefined): SourceSpan | undefined =>
  n && typeof n.start === 'number' && typeof n.end === 'number' ? { start: n.start, end: n.end } : undefined;

/**
 * A query the caller can fix: unknown table/field/function, wrong arity, unsupported construct, ... (HTTP 400). The
 * codes are PostHog's (`hogql_query_error`, `hogql_syntax_error`): clients of its query API match on them.
 */
export const productqlError = (message: string, node?: NodeBase | SourceSpan | null, code = 'hogql_query_error'): UserError => {
  const span = node && 'start' in node && typeof node.start === 'number' && typeof node.end === 'number'
    ? { start: node.start, end: node.end }
    : undefined;
  return new UserError(400, 'validation_error', code, message, span ? { span } : {});
};

/** The detail is the parser's message alone, as PostHog's (str() of its SyntaxError: "mismatched input 'x' expecting …"). */
export const syntaxError = (message: string, span: SourceSpan): UserError =>
  new UserError(400, 'validation_error', 'hogql_syntax_error', message, { span });
