import { parseSelectSync, initParser } from '../productql';
import { columnsOfResponse, columnTypeOf, diffColumns } from './columns';
import { csvCell, rowStream } from './stream';
import { applyMagic, checkPlaceholders, codeNameOf, isRequired, magicVariables, placeholderNames, resolveValues, savedVariableRefs, unknownSavedVariables, withSavedDefaults } from './variables';
import type { EndpointVariable } from '../store/entities/endpoint-version';

beforeAll(() => initParser());

describe('placeholders', () => {
  it('finds {variables.x} and refuses other placeholders', () => {
    expect([...placeholderNames(parseSelectSync('SELECT {variables.a} FROM events WHERE event = {variables.b} AND 1 = {variables.a}'))]).toEqual(['a', 'b']);
    expect(() => placeholderNames(parseSelectSync('SELECT {x}'))).toThrow(/only use \{variables/);
  });

  it.each([
    [['a'], [], /undefined variable\(s\): a/],
    [[], ['a'], /declared but not used in the query: a/],
  ])('placeholders %j vs declarations %j', (used, declared, msg) => {
    expect(() => checkPlaceholders(new Set(used), declared.map((name) => ({ name, type: 'String' as const })))).toThrow(msg);
  });
});

describe('run values', () => {
  const decl: EndpointVariable[] = [
    { name: 's', type: 'String', required: true },
    { name: 'n', type: 'Number', default: 3 },
    { name: 'b', type: 'Boolean', required: false },
    { name: 'd', type: 'Date', default: '2024-01-01' },
    { name: 'l', type: 'List', default: [] },
  ];

  it('applies defaults, nulls optional ones, lets fixed values win', () => {
    expect(resolveValues(decl, { s: 'x' }, {})).toEqual({ s: 'x', n: 3, b: null, d: '2024-01-01', l: [] });
    expect(resolveValues(decl, { s: 'x', n: 9 }, { s: 'fixed' })).toMatchObject({ s: 'fixed', n: 9 });
    expect(resolveValues(decl, {}, { s: 'fixed' }).s).toBe('fixed');
  });

  it.each([
    [{ s: 'x', zz: 1 }, /Unknown variable\(s\): zz/],
    [{}, /Required variable\(s\) 's' not provided/],
    [{ s: 1 }, /'s' must be a string/],
    [{ s: 'x', n: '1' }, /'n' must be a number/],
    [{ s: 'x', b: 'true' }, /'b' must be a boolean/],
    [{ s: 'x', d: '01/02/2024' }, /'d' must be a date/],
    [{ s: 'x', l: [{}] }, /'l' must be a list/],
  ])('%j → 400', (given, msg) => {
    expect(() => resolveValues(decl, given, {})).toThrow(msg);
  });

  it('is required by default only without a default', () => {
    expect(isRequired({ name: 'a', type: 'String' })).toBe(true);
    expect(isRequired({ name: 'a', type: 'String', default: 'x' })).toBe(false);
    expect(isRequired({ name: 'a', type: 'String', required: false })).toBe(false);
  });
});

describe('magic variables of insights', () => {
  const node = { kind: 'TrendsQuery', series: [], breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' }, properties: [{ type: 'event', key: 'a', value: 1 }] };
  const m = magicVariables(node, () => true);

  it('offers dates and the single breakdown property', () => {
    expect(m).toEqual({ dates: true, breakdown: { property: '$browser', type: 'event', groupTypeIndex: undefined } });
    expect(magicVariables({ ...node, breakdownFilter: { breakdown: 'x', breakdown_type: 'hogql' } }, () => true).breakdown).toBeNull();
  });

  it('turns values into filters and a date range, as data', () => {
    expect(applyMagic(node, m, { $browser: 'Chrome', date_from: '-3d' })).toMatchObject({
      dateRange: { date_from: '-3d' },
      properties: [{ type: 'event', key: 'a', value: 1 }, { type: 'event', key: '$browser', operator: 'exact', value: 'Chrome' }],
    });
    expect(applyMagic({ ...node, properties: null }, m, { $browser: '' }).properties).toEqual([{ type: 'event', key: '$browser', operator: 'is_not_set' }]);
  });
});

describe('columns', () => {
  it.each([
    ['Nullable(Int64)', 'integer'],
    ['UInt8', 'integer'],
    ['Float64', 'float'],
    ['Decimal(10, 2)', 'float'],
    ["DateTime64(6, 'UTC')", 'datetime'],
    ['Date', 'date'],
    ['Bool', 'boolean'],
    ['Array(String)', 'array'],
    ['Map(String, String)', 'json'],
    ['Nullable(String)', 'string'],
    ['Nullable(Nothing)', 'unknown'],
  ])('%s → %s', (ch, t) => expect(columnTypeOf(ch)).toBe(t));

  it('types columns from [name, type] pairs (ProductQL) or one type per column (EventsQuery, ActorsQuery)', () => {
    expect(columnsOfResponse({ columns: ['event', 'c'], types: [['event', 'String'], ['c', 'UInt64']] })).toEqual([
      { name: 'event', type: 'string' },
      { name: 'c', type: 'integer' },
    ]);
    expect(columnsOfResponse({ columns: ['event', 'count()', 'x'], types: ['String', 'UInt64'] })).toEqual([
      { name: 'event', type: 'string' },
      { name: 'count()', type: 'integer' },
      { name: 'x', type: 'unknown' },
    ]);
  });

  it('infers insight columns from result objects and diffs versions', () => {
    const cols = columnsOfResponse({ results: [{ count: 1, label: 'a', data: [1] }, { count: 1.5, label: 'b', data: [], extra: null }] });
    expect(cols).toEqual([
      { name: 'count', type: 'float' },
      { name: 'label', type: 'string' },
      { name: 'data', type: 'array' },
      { name: 'extra', type: 'unknown' },
    ]);
    expect(diffColumns([{ name: 'a', type: 'integer' }, { name: 'b', type: 'string' }], [{ name: 'a', type: 'float' }, { name: 'c', type: 'date' }])).toEqual({
      added: [{ name: 'c', type: 'date' }],
      removed: [{ name: 'b', type: 'string' }],
      retyped: [{ name: 'a', from: 'integer', to: 'float' }],
    });
  });
});

describe('csv', () => {
  it.each([
    [null, ''],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['line\nbreak', '"line\nbreak"'],
    [{ a: 1 }, '"{""a"":1}"'],
    [3.5, '3.5'],
  ])('%j → %s', (v, out) => expect(csvCell(v)).toBe(out));

  it('streams a header and rows', async () => {
    let text = '';
    for await (const chunk of rowStream('csv', ['a', 'b'], [[1, 'x'], [2, null]])) text += chunk;
    expect(text).toBe('a,b\r\n1,x\r\n2,\r\n');
  });
});

describe('saved variables (PostHog’s InsightVariable, posthog/api/insight_variable.py, posthog/hogql/variables.py)', () => {
  it.each([
    ['Test 1', 'test_1'], // test_insight_variable.py test_create_insight_variable
    ['Max. price ($)', 'max_price_'],
    ['  two  spaces ', '__two__spaces_'],
    ['Größe', 'größe'],
    ['a-b_c', 'abc'], // `_` is not alphanumeric in Python either
    ['!!!', ''],
  ])('the code name of %j is %j (alphanumerics and spaces kept, spaces → _, lowercased)', (name, code) => {
    expect(codeNameOf(name)).toBe(code);
  });

  const id = '0190f0c2-2222-7000-8000-000000000001';
  const saved = [{ id, code_name: 'foo', type: 'String', default_value: 'some value' }];

  it('a definition without a value takes the saved default (replace_variables); a value or isNull wins', () => {
    const defs = {
      [id]: { variableId: id, code_name: 'foo' },
      b: { variableId: 'b', code_name: 'foo', value: null },
      c: { variableId: id, code_name: 'foo', value: 'bar' },
      d: { variableId: id, code_name: 'foo', isNull: true },
    };
    expect(savedVariableRefs(defs)).toEqual([id, id, id]);
    expect(withSavedDefaults(defs, saved)).toEqual({
      [id]: { variableId: id, code_name: 'foo', value: 'some value' },
      b: { variableId: 'b', code_name: 'foo', value: 'some value' },
      c: { variableId: id, code_name: 'foo', value: 'bar' },
      d: { variableId: id, code_name: 'foo', isNull: true },
    });
  });

  it('a falsy value (0, "", false) is a value: only null or absent takes the default (replace_variables’ `value is not None`)', () => {
    const defs = {
      zero: { variableId: id, code_name: 'foo', value: 0 },
      empty: { variableId: id, code_name: 'foo', value: '' },
      no: { variableId: id, code_name: 'foo', value: false },
    };
    expect(withSavedDefaults(defs, saved)).toEqual(defs);
  });

  it('a definition no saved variable answers is left as it is; no saved variable: the same object', () => {
    const defs = { x: { variableId: 'x', code_name: 'other' } };
    expect(withSavedDefaults(defs, saved)).toEqual(defs);
    expect(withSavedDefaults(defs, [])).toBe(defs);
    expect(savedVariableRefs({ plain: 5, y: { code_name: 'y' }, z: { variableId: 'z', code_name: 'z' } })).toEqual([]);
  });

  it('a definition naming a saved variable (a UUID) no saved variable of its code name answers does not exist; inline ones bind', () => {
    const other = '0190f0c2-2222-7000-8000-000000000002';
    const defs = {
      [id]: { variableId: id, code_name: 'foo' },
      [other]: { variableId: other, code_name: 'gone' },
      renamed: { variableId: id, code_name: 'bar' },
      inline: { variableId: 'inline', code_name: 'own' },
      both: { variableId: other, code_name: 'own' },
    };
    expect([...unknownSavedVariables(defs, saved)]).toEqual(['gone', 'bar']);
    expect([...unknownSavedVariables(defs, [])]).toEqual(['foo', 'gone', 'bar']);
  });
});
