import { z } from 'zod';
import { UserError } from './errors';
import { objectBody, parseInput, zodToUserError } from './validation';

const schema = z
  .object({
    name: z.string().min(1),
    week_start_day: z.union([z.literal(0), z.literal(1)]),
    nested: z.object({ inner: z.object({ n: z.number() }).strict() }).strict().optional(),
    list: z.array(z.object({ alias: z.string() }).strict()).optional(),
  })
  .strict();

function errorOf(input: unknown): UserError {
  try {
    parseInput(schema, input);
  } catch (e) {
    return e as UserError;
  }
  throw new Error('expected a validation error');
}

describe('parseInput', () => {
  it('returns the parsed value', () => {
    expect(parseInput(schema, { name: 'x', week_start_day: 1 })).toEqual({ name: 'x', week_start_day: 1 });
  });

  it.each<[string, unknown, { code: string; attr: string | null; detail?: string }]>([
    ['missing field', { week_start_day: 0 }, { code: 'required', attr: 'name', detail: 'This field is required.' }],
    ['null field', { name: null, week_start_day: 0 }, { code: 'null', attr: 'name', detail: 'This field may not be null.' }],
    ['wrong type', { name: 5, week_start_day: 0 }, { code: 'invalid_input', attr: 'name' }],
    ['out of range', { name: 'x', week_start_day: 2 }, { code: 'invalid_input', attr: 'week_start_day' }],
    ['unknown top-level field', { name: 'x', week_start_day: 0, colour: 'red' }, { code: 'unrecognized_field', attr: 'colour', detail: "Unknown field 'colour'." }],
    ['unknown nested field', { name: 'x', week_start_day: 0, nested: { inner: { n: 1, extra: 1 } } }, { code: 'unrecognized_field', attr: 'nested__inner__extra', detail: "Unknown field 'extra'." }],
    ['nested wrong type', { name: 'x', week_start_day: 0, nested: { inner: { n: 'one' } } }, { code: 'invalid_input', attr: 'nested__inner__n' }],
    ['array element path', { name: 'x', week_start_day: 0, list: [{ alias: 'a' }, { alias: 3 }] }, { code: 'invalid_input', attr: 'list__1__alias' }],
    ['not an object', 'just a string', { code: 'invalid_input', attr: null }],
    ['no body at all', undefined, { code: 'required', attr: null, detail: 'This field is required.' }],
  ])('%s', (_name, input, expected) => {
    const e = errorOf(input);
    expect(e).toBeInstanceOf(UserError);
    expect(e.status).toBe(400);
    expect(e.type).toBe('validation_error');
    expect({ code: e.code, attr: e.attr }).toEqual({ code: expected.code, attr: expected.attr });
    if (expected.detail) expect(e.detail).toBe(expected.detail);
    expect(e.toBody()).toEqual({ type: 'validation_error', code: expected.code, detail: e.detail, attr: expected.attr });
  });

  it('reports only the first issue (as drf-exceptions-hog)', () => {
    const e = errorOf({ name: 5, week_start_day: 9, colour: 'x' });
    expect(e.attr).toBe('name');
  });

  it('uses the schema’s own message when it has one', () => {
    const s = z.object({ tz: z.string().refine(() => false, { message: 'Not a valid IANA timezone name.' }) });
    const r = s.safeParse({ tz: 'Mars/Base' });
    expect(r.success).toBe(false);
    const e = zodToUserError((r as { error: z.ZodError }).error);
    expect(e.toBody()).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'Not a valid IANA timezone name.', attr: 'tz' });
  });
});

describe('objectBody', () => {
  it('is the body when it is an object, else {}', () => {
    expect(objectBody({ a: 1 })).toEqual({ a: 1 });
    for (const v of [null, undefined, [1], 'text', 3]) expect(objectBody(v)).toEqual({});
  });
});
