import { z } from 'zod';
import { pythonTypeName } from '../validation';

/**
 * Insight request fields that fail the way PostHog's DRF serializer fields fail: DRF's own messages and codes
 * (`max_length`, `not_a_list`, `min_length`, a renamed `invalid` → `invalid_input`), which drf-exceptions-hog passes
 * through. The codes travel as `params.code` of a custom issue, which `zodToUserError` reports as given.
 */

/**
 * A CharField with `max_length` (trim_whitespace, DRF's default): text, or a number DRF coerces to text (`5` → "5"; a
 * boolean, an object or a list is "Not a valid string.", code `invalid` → `invalid_input`); leading and trailing
 * whitespace stripped; then "Ensure this field has no more than N characters." (code `max_length`) on what is left,
 * counted in code points as Python's len.
 */
export function drfChar(max: number) {
  return z.unknown().transform((v, ctx) => {
    if (typeof v !== 'string' && !(typeof v === 'number' && Number.isFinite(v))) {
      ctx.addIssue({ code: 'custom', message: 'Not a valid string.', params: { code: 'invalid_input' } });
      return z.NEVER;
    }
    const text = String(v).trim();
    if ([...text].length > max) {
      ctx.addIssue({ code: 'custom', message: `Ensure this field has no more than ${max} characters.`, params: { code: 'max_length' } });
      return z.NEVER;
    }
    return text;
  });
}

/**
 * A ListField: anything but an array (a string and an object included) is `not_a_list`; null is DRF's `null`; then
 * `child` for each element (attr `field__index`); then `min_length`/`max_length` in elements.
 */
export function drfList<C extends z.ZodType>(child: C, opts: { min?: number; max?: number } = {}) {
  const shape = z.unknown().superRefine((v, ctx) => {
    if (v === null) ctx.addIssue({ code: 'custom', message: 'This field may not be null.', params: { code: 'null' }, abort: true });
    else if (v !== undefined && !Array.isArray(v))
      ctx.addIssue({ code: 'custom', message: `Expected a list of items but got type "${pythonTypeName(v)}".`, params: { code: 'not_a_list' }, abort: true });
  });
  // DRF validates the elements in to_internal_value and the length validators after it
  const sized = z.array(child).superRefine((v, ctx) => {
    if (opts.min !== undefined && v.length < opts.min)
      ctx.addIssue({ code: 'custom', message: `Ensure this field has at least ${opts.min} elements.`, params: { code: 'min_length' } });
    else if (opts.max !== undefined && v.length > opts.max)
      ctx.addIssue({ code: 'custom', message: `Ensure this field has no more than ${opts.max} elements.`, params: { code: 'max_length' } });
  });
  return shape.pipe(sized);
}

/**
 * An IntegerField: an integer, or text of one ("5", " 5 ", "5.0" — DRF strips a zero decimal part); anything else is
 * "A valid integer is required." (DRF's `invalid`, renamed `invalid_input`). `min`/`max` are DRF's min_value/max_value
 * (a model IntegerField gets the database's range).
 */
export function drfInteger(opts: { min?: number; max?: number } = {}) {
  return z.unknown().transform((v, ctx) => {
    let n: number | undefined;
    if (typeof v === 'number' && Number.isSafeInteger(v)) n = v;
    else if (typeof v === 'string') {
      const m = /^\s*([-+]?\d+)(\.0*)?\s*$/.exec(v);
      if (m && Number.isSafeInteger(Number(m[1]))) n = Number(m[1]);
    }
    if (n === undefined) {
      const [message, code] = v === null ? ['This field may not be null.', 'null'] : ['A valid integer is required.', 'invalid_input'];
      ctx.addIssue({ code: 'custom', message, params: { code } });
      return z.NEVER;
    }
    if (opts.min !== undefined && n < opts.min) {
      ctx.addIssue({ code: 'custom', message: `Ensure this value is greater than or equal to ${opts.min}.`, params: { code: 'min_value' } });
      return z.NEVER;
    }
    if (opts.max !== undefined && n > opts.max) {
      ctx.addIssue({ code: 'custom', message: `Ensure this value is less than or equal to ${opts.max}.`, params: { code: 'max_value' } });
      return z.NEVER;
    }
    return n;
  });
}

const TRUE_VALUES = new Set<unknown>(['t', 'T', 'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON', '1', 1, true]);
const FALSE_VALUES = new Set<unknown>(['f', 'F', 'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF', '0', 0, false]);

/** A BooleanField: DRF's TRUE_VALUES / FALSE_VALUES; anything else is "Must be a valid boolean."; null is `null`. */
export function drfBoolean() {
  return z.unknown().transform((v, ctx) => {
    if (TRUE_VALUES.has(v)) return true;
    if (FALSE_VALUES.has(v)) return false;
    const [message, code] = v === null ? ['This field may not be null.', 'null'] : ['Must be a valid boolean.', 'invalid_input'];
    ctx.addIssue({ code: 'custom', message, params: { code } });
    return z.NEVER;
  });
}

/**
 * A PrimaryKeyRelatedField(many=True) over a table with no rows (Quarry has no dashboards): a list (a string is
 * `not_a_list`; null is `null`) whose first element is refused as DRF refuses a pk it cannot find — `does_not_exist`
 * ('Invalid pk "7" - object does not exist.', the pk as Python's str shows it), or `incorrect_type` for a boolean,
 * an object, a list or text that is no number. An empty list is fine.
 */
export function drfMissingRelatedList() {
  return z.unknown().transform((v, ctx) => {
    const fail = (message: string, code: string) => {
      ctx.addIssue({ code: 'custom', message, params: { code } });
      return z.NEVER;
    };
    if (v === null) return fail('This field may not be null.', 'null');
    // ManyRelatedField iterates what it gets: a dict yields its keys; a string or a number is no list
    if (typeof v !== 'object') return fail(`Expected a list of items but got type "${pythonTypeName(v)}".`, 'not_a_list');
    const items: unknown[] = Array.isArray(v) ? v : Object.keys(v as object);
    if (items.length === 0) return [] as number[];
    const first = items[0];
    // Django's integer pk lookup: int() of a number or of numeric text; anything else is a TypeError/ValueError
    const numeric = (typeof first === 'number' && Number.isFinite(first)) || (typeof first === 'string' && /^\s*[-+]?\d+\s*$/.test(first));
    if (first !== null && !numeric) return fail(`Incorrect type. Expected pk value, received ${pythonTypeName(first)}.`, 'incorrect_type');
    return fail(`Invalid pk "${first === null ? 'None' : String(first)}" - object does not exist.`, 'does_not_exist');
  });
}
