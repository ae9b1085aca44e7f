import { z } from 'zod';
import { validationError, type UserError } from './errors';

/** Turns the first zod issue into a PostHog-style validation error (`attr` = path joined by `__`). */
export function zodToUserError(error: z.ZodError): UserError {
  const issue = error.issues[0];
  let path = issue.path.map(String);
  let detail = issue.message;
  let code = 'invalid_input';
  if (issue.code === 'unrecognized_keys') {
    path = [...path, issue.keys[0]];
    detail = `Unknown field '${issue.keys[0]}'.`;
    code = 'unrecognized_field';
  } else if (issue.code === 'invalid_type' && issue.input === undefined) {
    detail = 'This field is required.';
    code = 'required';
  } else if (issue.code === 'invalid_type' && issue.input === null) {
    detail = 'This field may not be null.';
    code = 'null';
  } else if (issue.code === 'custom' && typeof issue.params?.code === 'string') {
    code = issue.params.code; // a limit (src/limits.ts) names its own code
  }
  return validationError(detail, path.length ? path.join('__') : null, code);
}

/** Validates `input` with `schema`; throws a validation UserError naming the first bad field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const r = schema.safeParse(input, { reportInput: true });
  if (!r.success) throw zodToUserError(r.error);
  return r.data;
}

/** Python's name for the type of a JSON value, as DRF and pydantic put it in messages (`got type "str"`, `input_type=str`). */
export function pythonTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'NoneType';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  return Array.isArray(v) ? 'list' : 'dict';
}

/**
 * A JSON value as Python's repr shows it in a pydantic error (`input_value=…`), cut as pydantic-core cuts it (over 50
 * characters: the first 25, `...`, the last 24); the walk stops early on a large or deep value.
 */
export function pyRepr(v: unknown): string {
  let out = '';
  let cut = false;
  const walk = (x: unknown, depth: number): void => {
    if (cut) return;
    if (out.length > 4096 || depth > 64) {
      cut = true;
      out += '...';
      return;
    }
    if (x === null || x === undefined) out += 'None';
    else if (typeof x === 'boolean') out += x ? 'True' : 'False';
    else if (typeof x === 'string') out += `'${x.length > 4096 ? x.slice(0, 4096) : x}'`;
    else if (typeof x === 'number') out += String(x);
    else {
      const list = Array.isArray(x);
      out += list ? '[' : '{';
      const entries = list ? x.entries() : Object.entries(x as Record<string, unknown>).values();
      let first = true;
      for (const [k, e] of entries) {
        if (cut) break;
        out += `${first ? '' : ', '}${list ? '' : `'${k}': `}`;
        first = false;
        walk(e, depth + 1);
      }
      out += list ? ']' : '}';
    }
  };
  walk(v, 0);
  return out.length > 50 ? `${out.slice(0, 25)}...${out.slice(-24)}` : out;
}

/** A request body as an object to read fields from: anything else (null, an array, text) reads as `{}`. */
export function objectBody(input: unknown): Record<string, unknown> {
  return (input !== null && typeof input === 'object' && !Array.isArray(input) ? input : {}) as Record<string, unknown>;
}
