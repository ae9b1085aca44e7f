/**
 * Property filters ported from PostHog's suites, on real data through the real ingest path:
 * - posthog/hogql/test/test_property.py (`property_to_expr`): every operator × property type, list values, groups;
 * - ee/clickhouse/models/test/test_property.py `test_prop_filter_json_extract` (its fixture of 25 events and its
 *   parametrized filters → matching event indexes), including the date formats of `is_date_*`;
 * - posthog/hogql_queries/insights/trends/test/test_trends.py property-filter cases and posthog/hogql/test/test_filters.py
 *   (`{filters}`), through the TrendsQuery and HogQLQuery runners;
 * - the schema's refusals (400 naming the filter) for types and operators Quarry does not filter on.
 * property-filters-posthog-compat.clickhouse.test.ts runs this file on ClickHouse with the same expectations.
 */
import * as ast from '../../productql/ast';
import { shutdownParser } from '../../productql';
import { parseInput } from '../../validation';
import { UserError } from '../../errors';
import { runInsightQuery } from './execute';
import { ensureFilterParser, propertiesToExpr } from './property-filters';
import { propertiesSchema, trendsQuerySchema } from './schema';
import { createInsightTestDb, type InsightTestDb } from './testing';
import { trendsRunner } from '../runners/trends-runner';
import { productqlRunner } from '../runners/productql-runner';

let db: InsightTestDb;
/** The test_prop_filter_json_extract fixture (project 1) and the trends fixtures (project 2). */
const P = 1;
const T = 2;

/**
 * `test_events` of ee/clickhouse/models/test/test_property.py, in order (the event's index is `properties.i`), plus
 * booleans, numbers, and JSON objects/arrays (18–24).
 */
const EVENTS: Record<string, unknown>[] = [
  { email: 'test@posthog.com' },
  { email: 'mongo@example.com' },
  { attr: 'some_val' },
  { attr: '50' },
  { attr: 5 },
  { unix_timestamp: Date.UTC(2021, 3, 1, 18) / 1000 },
  { unix_timestamp: Date.UTC(2021, 3, 1, 19) / 1000 },
  { long_date: '2021-04-01 18:00:00' },
  { long_date: '2021-04-01 19:00:00' },
  { short_date: '2021-04-04' },
  { short_date: '2021-04-06' },
  { sdk_$time: 1639427152.339 },
  { unix_timestamp_milliseconds: 1641977394339 },
  { rfc_822_time: 'Wed, 02 Oct 2002 15:00:00 +0200' },
  { iso_8601_$time: '2021-04-01T19:00:00Z' },
  { full_date_increasing_$time: '01-04-2021 19:00:00' },
  { with_slashes_$time: '2021/04/01 19:00:00' },
  { with_slashes_increasing_$time: '01/04/2021 19:00:00' },
  { bool: true },
  { bool: false },
  { bool: 'true' },
  { num: 0 },
  { num: -1.5 },
  { nested: { a: 1 } },
  { arr: [1, 2] },
];
const ALL = EVENTS.map((_, i) => i);
const range = (a: number, b = EVENTS.length) => ALL.slice(a, b);

beforeAll(async () => {
  db = await createInsightTestDb();
  await ensureFilterParser();
  await db.load(P, {
    persons: [
      { distinct_ids: ['whatever'], properties: { email: 'whatever@posthog.com' } },
      { distinct_ids: ['p2'], properties: { email: 'p2@example.com' } },
      { distinct_ids: ['p3'], properties: {} },
    ],
    events: EVENTS.map((p, i) => ({
      event: i === 0 ? '$autocapture' : '$pageview',
      // the first three events by other people (test_property_to_expr_event_metadata)
      distinct_id: i === 1 ? 'p2' : i === 2 ? 'p3' : 'whatever',
      timestamp: `2021-05-01T${String(i % 24).padStart(2, '0')}:00:00Z`,
      properties: { ...p, i, ...(i < 3 ? { $group_0: `org:${i}`, '$feature/beta': i === 0 ? 'true' : 'false' } : {}) },
    })),
  });
  // test_trends.py: test_property_filtering, test_person_property_filtering, test_filter_test_accounts
  const day = (d: number) => `2020-01-0${d}T12:00:00Z`;
  await db.load(T, {
    persons: [
      { distinct_ids: ['person1'], properties: { name: 'person1', email: 'test@posthog.com' } },
      { distinct_ids: ['person2'], properties: { name: 'person2' } },
      { distinct_ids: ['person3'], properties: { name: 'person3', email: 'someone@example.com' } },
    ],
    events: [
      { event: 'watched movie', distinct_id: 'person1', timestamp: day(1), properties: { $some_property: 'value1', $browser: 'Chrome', order: '2' } },
      { event: 'watched movie', distinct_id: 'person1', timestamp: day(2), properties: { $some_property: 'value2', $browser: 'Safari', order: '10' } },
      { event: 'watched movie', distinct_id: 'person2', timestamp: day(2), properties: { $some_property: 'value1', order: 3 } },
      { event: 'watched movie', distinct_id: 'person3', timestamp: day(3), properties: { $browser: 'Chrome', order: '' } },
      { event: 'watched movie', distinct_id: 'person3', timestamp: day(4), properties: { $some_property: null } },
    ],
  });
});
afterAll(async () => {
  await db.close();
  await shutdownParser();
});

/** Indexes (`properties.i`) of project 1's events matching `props` (validated as a query's `properties` are). */
const matching = async (props: unknown, timezone = 'UTC'): Promise<number[]> => {
  const q = ast.select({
    select: [ast.alias('i', ast.field('properties', 'i'))],
    from: 'events',
    where: propertiesToExpr(propertiesSchema.parse(props)),
  });
  const { rows } = await runInsightQuery(db.ctx(P, { timezone }), q);
  return rows.map((r) => Number(r.i)).sort((a, b) => a - b);
};
const ev = (key: string, operator?: string, value?: unknown) => ({ type: 'event', key, ...(operator ? { operator } : {}), ...(value !== undefined ? { value } : {}) });

describe('test_prop_filter_json_extract (ee/clickhouse/models/test/test_property.py)', () => {
  it.each<[string, unknown, number[]]>([
    ['email (default operator exact)', { key: 'email', value: 'test@posthog.com' }, [0]],
    ['email exact', ev('email', 'exact', 'test@posthog.com'), [0]],
    ['email exact with a list', ev('email', 'exact', ['pineapple@pineapple.com', 'mongo@example.com']), [1]],
    ['attr "5" matches the number 5', { key: 'attr', value: '5' }, [4]],
    ['attr 5', { key: 'attr', value: 5 }, [4]],
    ['is_not: everything else, the events without email included', ev('email', 'is_not', 'test@posthog.com'), range(1)],
    ['is_not with a list', ev('email', 'is_not', ['test@posthog.com', 'mongo@example.com']), range(2)],
    ['regex', ev('email', 'regex', '.*est@.*'), [0]],
    ['icontains', ev('email', 'icontains', 'posthog.com'), [0]],
    ['not_icontains', ev('email', 'not_icontains', 'posthog.com'), range(1)],
    ['is_set (its value ignored)', ev('email', 'is_set', 'is_set'), [0, 1]],
    ['is_not_set', ev('email', 'is_not_set', 'is_not_set'), range(2)],
    ['unix_timestamp is_date_before a date', ev('unix_timestamp', 'is_date_before', '2021-04-02'), [5, 6]],
    ['unix_timestamp is_date_after a date', ev('unix_timestamp', 'is_date_after', '2021-03-31'), [5, 6]],
    ['unix_timestamp is_date_before a datetime', ev('unix_timestamp', 'is_date_before', '2021-04-01 18:30:00'), [5]],
    ['unix_timestamp is_date_after a datetime', ev('unix_timestamp', 'is_date_after', '2021-04-01 18:30:00'), [6]],
    ['long_date is_date_before', ev('long_date', 'is_date_before', '2021-04-02'), [7, 8]],
    ['long_date is_date_after', ev('long_date', 'is_date_after', '2021-03-31'), [7, 8]],
    ['long_date is_date_after a datetime', ev('long_date', 'is_date_after', '2021-04-01 18:30:00'), [8]],
    ['short_date is_date_before', ev('short_date', 'is_date_before', '2021-04-05'), [9]],
    ['short_date is_date_after', ev('short_date', 'is_date_after', '2021-04-05'), [10]],
    ['short_date is_date_exact', ev('short_date', 'is_date_exact', '2021-04-04'), [9]],
    ['sdk_$time (seconds with a fraction) is_date_before', ev('sdk_$time', 'is_date_before', '2021-12-25'), [11]],
    ['sdk_$time is_date_after', ev('sdk_$time', 'is_date_after', '2021-12-13'), [11]],
    ['unix_timestamp_milliseconds is_date_after', ev('unix_timestamp_milliseconds', 'is_date_after', '2022-01-11'), [12]],
    ['unix_timestamp_milliseconds is_date_before', ev('unix_timestamp_milliseconds', 'is_date_before', '2022-01-13'), [12]],
    ['iso_8601_$time is_date_before', ev('iso_8601_$time', 'is_date_before', '2021-04-01 20:00:00'), [14]],
    ['iso_8601_$time is_date_after', ev('iso_8601_$time', 'is_date_after', '2021-04-01 18:00:00'), [14]],
    ['with_slashes_$time is_date_before', ev('with_slashes_$time', 'is_date_before', '2021-04-01 20:00:00'), [16]],
    ['with_slashes_$time is_date_after', ev('with_slashes_$time', 'is_date_after', '2021-04-01 18:00:00'), [16]],
    ['is_date_before a relative date (-7d)', ev('iso_8601_$time', 'is_date_before', '-7d'), [14]],
    ['is_date_after a relative date (-7d)', ev('iso_8601_$time', 'is_date_after', '-7d'), []],
    ['is_date_after a relative date (-1h) on unix timestamps', ev('unix_timestamp', 'is_date_after', '-1h'), []],
    ['is_date_after on text that is no date matches nothing', ev('email', 'is_date_after', '2000-01-01'), []],
  ])('%s', async (_n, f, expected) => {
    expect(await matching([f])).toEqual(expected);
  });
});

it('is_date_* reads dates without an offset in the project timezone; Unix timestamps are instants', async () => {
  // 18:00Z and 19:00Z are 14:00 and 15:00 in New York (EDT)
  const before = (key: string, value: string) => matching([ev(key, 'is_date_before', value)], 'America/New_York');
  expect(await before('unix_timestamp', '2021-04-01 14:30:00')).toEqual([5]);
  expect(await before('long_date', '2021-04-01 18:30:00')).toEqual([7]);
  expect(await before('iso_8601_$time', '2021-04-01 15:30:00')).toEqual([14]);
  expect(await before('iso_8601_$time', '2021-04-01 14:30:00')).toEqual([]);
});

it.each<[string, string, number[]]>([
  ['a value with Z is that instant, whatever the project timezone', '2021-04-01T19:30:00Z', [14]],
  ['… and one with an offset too (19:30+02:00 is 17:30Z)', '2021-04-01T19:30:00+02:00', []],
  ['a value with milliseconds', '2021-04-01T19:00:00.001Z', [14]],
  ['a value without seconds (15:30 in New York)', '2021-04-01 15:30', [14]],
  ['a T-separated value without seconds', '2021-04-01T14:30', []],
])('is_date_before with an ISO value: %s', async (_n, value, expected) => {
  expect(await matching([ev('iso_8601_$time', 'is_date_before', value)], 'America/New_York')).toEqual(expected);
});

it('event_metadata timestamp compared with a datetime without offset reads it in the project timezone (ClickHouse reads a string against a DateTime in its zone)', async () => {
  const gt = { type: 'event_metadata', key: 'timestamp', operator: 'gt', value: '2021-05-01 02:00:00' };
  expect(await matching([gt])).toEqual(range(3, 24));
  // 02:00 in New York (EDT) is 06:00 UTC
  expect(await matching([gt], 'America/New_York')).toEqual(range(7, 24));
  expect(await matching([{ ...gt, operator: 'is_date_after' }], 'America/New_York')).toEqual(range(7, 24));
});

describe('test_property_to_expr_* (posthog/hogql/test/test_property.py)', () => {
  it.each<[string, unknown, number[]]>([
    // test_property_to_expr_event
    ['gt compares numerically (the number 5 and the text "50")', ev('attr', 'gt', 10), [3]],
    ['gt with a numeric text value', ev('attr', 'gt', '10'), [3]],
    ['lt', ev('attr', 'lt', '10'), [4]],
    ['gte / lte bounds are inclusive', [ev('attr', 'gte', 5), ev('attr', 'lte', 50)], [3, 4]],
    ['min is gte, max is lte', [ev('attr', 'min', 50), ev('attr', 'max', 50)], [3]],
    ['between (inclusive)', ev('attr', 'between', [5, 49]), [4]],
    ['not_between', ev('attr', 'not_between', [5, 49]), [3]],
    ['numbers: lt 0', ev('num', 'lt', 0), [22]],
    ['numbers: gt a negative text value', ev('num', 'gt', '-2'), [21, 22]],
    ['numbers: 0 is set', ev('num', 'is_set'), [21, 22]],
    ['numbers: exact 0', ev('num', 'exact', 0), [21]],
    ['icontains reads a number as text', ev('attr', 'icontains', '5'), [3, 4]],
    ['icontains reads a JSON object as its text', ev('nested', 'icontains', '"a"'), [23]],
    ['exact on a JSON array compares its text', ev('arr', 'exact', '[1,2]'), [24]],
    ['not_regex: the events without the property pass', ev('email', 'not_regex', '^test'), range(1)],
    // value None: PostHog compares with NULL (`properties.a = NULL`), which HogQL prints as isNull / isNotNull
    ['exact null is "not set"', ev('email', 'exact', null), range(2)],
    ['is_not null is "set"', ev('email', 'is_not', null), [0, 1]],
    // `properties.a > NULL` is NULL, ifNull(…, 0): no event, whatever it holds (the event timestamp included)
    ['gt null matches nothing', ev('attr', 'gt', null), []],
    ['lte null matches nothing', ev('email', 'lte', null), []],
    ['event_metadata timestamp lt null matches nothing', { type: 'event_metadata', key: 'timestamp', operator: 'lt', value: null }, []],
    // test_property_to_expr_event_list
    ['exact list → IN', ev('email', 'exact', ['test@posthog.com', 'mongo@example.com']), [0, 1]],
    ['icontains list → OR', ev('email', 'icontains', ['POSTHOG', 'mongo']), [0, 1]],
    ['regex list → OR', ev('email', 'regex', ['^test', '^mongo']), [0, 1]],
    ['not_icontains list → AND', ev('email', 'not_icontains', ['posthog', 'mongo']), range(2)],
    ['not_regex list → AND', ev('email', 'not_regex', ['^test', '^mongo']), range(2)],
    ['gt list → OR', ev('attr', 'gt', [49, 100]), [3]],
    ['an empty list is no filter', ev('email', 'exact', []), ALL],
    ['an empty list is no filter, negated operators too', ev('email', 'is_not', []), ALL],
    ['a one-value list is the value', ev('email', 'is_not', ['test@posthog.com']), range(1)],
    // test_property_to_expr_boolean: JSON booleans read as 'true' / 'false'
    ['boolean: exact true (JSON true and the text "true")', ev('bool', 'exact', true), [18, 20]],
    ['boolean: exact "true"', ev('bool', 'exact', 'true'), [18, 20]],
    ['boolean: exact ["true"]', ev('bool', 'exact', ['true']), [18, 20]],
    ['boolean: exact false', ev('bool', 'exact', false), [19]],
    ['boolean: false is set', ev('bool', 'is_set'), [18, 19, 20]],
    ['boolean: is_not true', [ev('bool', 'is_set'), ev('bool', 'is_not', true)], [19]],
    // test_property_to_expr_feature: `{type: feature, key: a}` is `properties.a` (no prefix is added: the key is the
    // event property, `$feature/<flag>` as the frontend sends it)
    ['feature', { type: 'feature', key: '$feature/beta', operator: 'exact', value: 'true' }, [0]],
    ['feature: the key is read as it is', { type: 'feature', key: 'email', operator: 'exact', value: 'test@posthog.com' }, [0]],
    ['feature with a bare flag key reads that key (no event has `beta`)', { type: 'feature', key: 'beta', operator: 'exact', value: 'false' }, []],
    // test_property_to_expr_person
    ['person', { type: 'person', key: 'email', operator: 'icontains', value: 'example.com' }, [1]],
    ['person is_not_set', { type: 'person', key: 'email', operator: 'is_not_set' }, [2]],
    ['person is_not: persons without the property pass', { type: 'person', key: 'email', operator: 'is_not', value: 'p2@example.com' }, [0, ...range(2)]],
    // test_property_to_expr_event_metadata: events columns
    ['event_metadata distinct_id', { type: 'event_metadata', key: 'distinct_id', operator: 'exact', value: 'p3' }, [2]],
    ['event_metadata distinct_id list', { type: 'event_metadata', key: 'distinct_id', operator: 'exact', value: ['p3', 'p2'] }, [1, 2]],
    ['event_metadata event', { type: 'event_metadata', key: 'event', operator: 'exact', value: '$autocapture' }, [0]],
    ['event_metadata $group_0', { type: 'event_metadata', key: '$group_0', operator: 'exact', value: 'org:1' }, [1]],
    // the column is a String holding '' when the event has no group: isNotNull('') holds, as on PostHog's column
    ['event_metadata $group_0 is_set ("" is set)', { type: 'event_metadata', key: '$group_0', operator: 'is_set' }, ALL],
    ['event_metadata $group_0 is_not_set: never', { type: 'event_metadata', key: '$group_0', operator: 'is_not_set' }, []],
    ['event_metadata $group_0 exact "": the events without one', { type: 'event_metadata', key: '$group_0', operator: 'exact', value: '' }, range(3)],
    ['event_metadata timestamp is_date_before', { type: 'event_metadata', key: 'timestamp', operator: 'is_date_before', value: '2021-05-01 02:00:00' }, [0, 1, 24]],
    ['event_metadata timestamp is_date_after', { type: 'event_metadata', key: 'timestamp', operator: 'is_date_after', value: '2021-05-01T22:00:00Z' }, [23]],
    // test_property_to_expr_hogql
    ['hogql: the key is an expression', { type: 'hogql', key: "properties.email = 'test@posthog.com' or properties.attr = '5'" }, [0, 4]],
    ['hogql: a constant 1 is true', { type: 'hogql', key: '1' }, ALL],
    // test_property_groups, test_property_groups_single, test_property_groups_combined
    ['a list is AND', [ev('email', 'is_set'), ev('email', 'icontains', 'mongo')], [1]],
    ['AND group', { type: 'AND', values: [ev('email', 'is_set'), ev('email', 'icontains', 'mongo')] }, [1]],
    ['OR group of one', { type: 'OR', values: [ev('email', 'exact', 'test@posthog.com')] }, [0]],
    [
      'AND of a filter and an OR group',
      { type: 'AND', values: [ev('attr', 'is_set'), { type: 'OR', values: [ev('attr', 'exact', '5'), ev('attr', 'regex', '^s')] }] },
      [2, 4],
    ],
    [
      'OR of AND groups across property types',
      {
        type: 'OR',
        values: [
          { type: 'AND', values: [ev('email', 'is_set'), { type: 'person', key: 'email', operator: 'icontains', value: 'posthog' }] },
          { type: 'AND', values: [{ type: 'event_metadata', key: 'distinct_id', operator: 'exact', value: 'p3' }] },
        ],
      },
      [0, 2],
    ],
    ['an empty group is no filter', { type: 'AND', values: [] }, ALL],
    ['empty groups inside groups are no filter', { type: 'OR', values: [{ type: 'AND', values: [] }, { type: 'OR', values: [] }] }, ALL],
    ['an empty list of filters is no filter', [], ALL],
  ])('%s', async (_n, f, expected) => {
    expect(await matching(Array.isArray(f) || (f as { values?: unknown }).values ? f : [f])).toEqual(expected);
  });

  it.each<[string, unknown]>([
    ['event', ev('email', 'exact', 'x')],
    ['feature', { type: 'feature', key: '$feature/beta', value: 'true' }],
    ['event_metadata', { type: 'event_metadata', key: 'distinct_id', value: 'p3' }],
    ['element', { type: 'element', key: 'tag_name', value: 'a' }],
  ])('test_person_scope: a %s filter on persons (person scope) is a 400', (_n, f) => {
    expect(() => propertiesToExpr(propertiesSchema.parse([f]), { personTable: true })).toThrow(
      expect.objectContaining({ status: 400, message: `The '${_n}' property filter does not work in 'person' scope` }),
    );
  });

  it('test_person_scope: person filters on persons read their own properties', async () => {
    const q = ast.select({
      select: [ast.alias('n', ast.call('count', []))],
      from: 'persons',
      where: propertiesToExpr(propertiesSchema.parse([{ type: 'person', key: 'email', operator: 'icontains', value: 'posthog' }]), { personTable: true }),
    });
    expect(Number((await runInsightQuery(db.ctx(P), q)).rows[0].n)).toBe(1);
  });

  it('test_property_to_expr_event_metadata: an unknown events column is a 400 naming the known ones', () => {
    expect(() => propertiesToExpr([{ type: 'event_metadata', key: 'nope', operator: 'exact', value: 'x' }])).toThrow(
      expect.objectContaining({ status: 400, message: expect.stringContaining('Unknown event metadata field "nope" (distinct_id, event, timestamp') }),
    );
  });
});

describe('the schema refuses what Quarry does not filter on: a 400 naming the filter', () => {
  const validate = (properties: unknown): UserError => {
    try {
      parseInput(trendsQuerySchema, { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'e' }], properties });
    } catch (e) {
      return e as UserError;
    }
    throw new Error('expected a validation error');
  };
  it.each<[string, unknown, string, RegExp]>([
    [
      'a data_warehouse_person_property filter',
      [{ type: 'data_warehouse_person_property', key: 'x', operator: 'exact', value: 'a' }],
      'properties__0__type',
      /^Property filters of type "data_warehouse_person_property" are not supported \(event, person, .*hogql\)\.$/,
    ],
    ['a recording filter inside a group', { type: 'AND', values: [{ type: 'OR', values: [{ type: 'recording', key: 'duration', value: 1 }] }] }, 'properties__values__0__values__0__type', /type "recording" are not supported/],
    ['an operator PostHog does not have', [ev('a', 'contains', 'x')], 'properties__0__operator', /expected one of "exact"/],
    ['a filter without key', [{ type: 'person', value: 'x' }], 'properties__0__key', /^This field is required\.$/],
    ['a filter with an unknown field', [{ type: 'event', key: 'a', value: 'x', negation: true }], 'properties__0__negation', /Unknown field 'negation'/],
    ['an object value', [ev('a', 'exact', { x: 1 })], 'properties__0__value', /./],
  ])('%s', (_n, properties, attr, message) => {
    const e = validate(properties);
    expect(e).toBeInstanceOf(UserError);
    expect(e.status).toBe(400);
    expect(e.attr).toBe(attr);
    expect(e.message).toMatch(message);
  });

  it('a filter without type is an event filter; nested groups of valid filters pass', () => {
    const node = parseInput(trendsQuerySchema, {
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: 'e', properties: [{ key: 'a', value: 'x' }] }],
      properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'b', operator: 'is_set' }] }, { key: 'c', value: ['1', '2'] }] },
    });
    expect(node.series[0].properties).toEqual([{ type: 'event', key: 'a', value: 'x' }]);
    expect(node.properties).toEqual({ type: 'OR', values: [{ type: 'AND', values: [{ type: 'event', key: 'b', operator: 'is_set' }] }, { type: 'event', key: 'c', value: ['1', '2'] }] });
  });
});

describe('through the runners (test_trends.py, test_filters.py)', () => {
  const RANGE = { date_from: '2020-01-01', date_to: '2020-01-04' };
  const MOVIE = { kind: 'EventsNode', event: 'watched movie' };
  const trends = (q: Record<string, unknown>, project: Record<string, unknown> = {}) =>
    db.run(trendsRunner, { kind: 'TrendsQuery', dateRange: RANGE, series: [MOVIE], ...q }, T, project);
  const data = async (q: Record<string, unknown>, project?: Record<string, unknown>) => (await trends(q, project)).results.map((r: { data: number[] }) => r.data);

  it.each<[string, Record<string, unknown>, number[][]]>([
    ['test_property_filtering: global filter', { properties: [{ key: '$some_property', value: 'value1' }] }, [[1, 1, 0, 0]]],
    ['test_property_filtering: series filter', { series: [{ ...MOVIE, properties: [{ key: '$some_property', value: 'value1' }] }] }, [[1, 1, 0, 0]]],
    ['is_not counts events without the property (and with null)', { properties: [ev('$some_property', 'is_not', 'value1')] }, [[0, 1, 1, 1]]],
    ['is_not_set: missing and null', { properties: [ev('$some_property', 'is_not_set')] }, [[0, 0, 1, 1]]],
    ['gt on numeric text and a number ("" is not set)', { properties: [ev('order', 'gt', 2)] }, [[0, 2, 0, 0]]],
    ['test_person_property_filtering', { properties: [{ type: 'person', key: 'name', value: 'person1' }] }, [[1, 1, 0, 0]]],
    ['test_entity_person_property_filtering (on the series)', { series: [{ ...MOVIE, properties: [{ type: 'person', key: 'name', value: 'person3' }] }] }, [[0, 0, 1, 1]]],
    [
      'global and series filters are ANDed',
      { properties: [ev('$browser', 'exact', 'Chrome')], series: [{ ...MOVIE, properties: [{ type: 'person', key: 'name', operator: 'is_not', value: 'person3' }] }] },
      [[1, 0, 0, 0]],
    ],
    [
      'a property group with OR across event and person properties',
      { properties: { type: 'OR', values: [{ type: 'AND', values: [ev('$browser', 'exact', 'Safari')] }, { type: 'AND', values: [{ type: 'person', key: 'name', value: 'person2' }] }] } },
      [[0, 2, 0, 0]],
    ],
    ['a hogql filter', { properties: [{ type: 'hogql', key: "properties.$browser = 'Chrome' and person.properties.name = 'person3'" }] }, [[0, 0, 1, 0]]],
  ])('%s', async (_n, q, expected) => {
    expect(await data(q)).toEqual(expected);
  });

  it('test_filter_test_accounts: not_icontains on a person property keeps persons without it', async () => {
    const project = { test_account_filters: [{ key: 'email', type: 'person', value: '@posthog.com', operator: 'not_icontains' }] };
    expect(await data({ filterTestAccounts: true }, project)).toEqual([[0, 1, 1, 1]]);
    expect(await data({ filterTestAccounts: false }, project)).toEqual([[1, 2, 1, 1]]);
  });

  it('is_date_* on datetime fields (a session start, the event timestamp) compares them as they are', async () => {
    const S = 3;
    await db.load(S, {
      events: [
        { event: 'watched movie', distinct_id: 'a', timestamp: '2020-01-01T10:00:00Z', properties: { $session_id: 's1' } },
        { event: 'watched movie', distinct_id: 'a', timestamp: '2020-01-03T10:00:00Z', properties: { $session_id: 's2' } },
        { event: 'watched movie', distinct_id: 'a', timestamp: '2020-01-03T11:00:00Z' },
      ],
    });
    const run = async (f: unknown) => (await db.run(trendsRunner, { kind: 'TrendsQuery', dateRange: RANGE, series: [MOVIE], properties: [f] }, S)).results[0].data;
    expect(await run({ type: 'session', key: '$start_timestamp', operator: 'is_date_after', value: '2020-01-02' })).toEqual([0, 0, 1, 0]);
    expect(await run({ type: 'session', key: '$start_timestamp', operator: 'is_date_before', value: '2020-01-02' })).toEqual([1, 0, 0, 0]);
    expect(await run({ type: 'event_metadata', key: 'timestamp', operator: 'is_date_after', value: '2020-01-03 10:30:00' })).toEqual([0, 0, 1, 0]);
  });

  it.each<[string, string]>([
    ['a syntax error', "properties.$browser = "],
    ['a field events do not have', 'nonexistent_field = 1'],
    ['a function ProductQL does not have', "nosuchfunction(properties.$browser) = 'x'"],
  ])('a hogql filter with %s is a 400', async (_n, key) => {
    const e = await trends({ properties: [{ type: 'hogql', key }] }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UserError);
    expect((e as UserError).status).toBe(400);
  });

  it('a hogql filter with an aggregation is a 400, not an engine error', async () => {
    const e = await trends({ properties: [{ type: 'hogql', key: 'count() > 1' }] }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UserError);
    expect((e as UserError).status).toBe(400);
  });

  it('test_hogql_query_filters: {filters} takes property groups, dates as Unix timestamps and test-account filters', async () => {
    const hogql = async (filters: unknown, projectId: number, project: Record<string, unknown> = {}) =>
      (await db.run(productqlRunner, { kind: 'HogQLQuery', query: 'select properties.i from events where {filters}', filters }, projectId, project)).results
        .map((r: unknown[]) => Number(r[0]))
        .sort((a: number, b: number) => a - b);
    expect(await hogql({ properties: { type: 'OR', values: [ev('unix_timestamp', 'is_date_after', '2021-04-01 18:30:00'), ev('short_date', 'is_date_exact', '2021-04-06')] } }, P)).toEqual([6, 10]);
    const project = { test_account_filters: [{ type: 'event_metadata', key: 'distinct_id', operator: 'is_not', value: 'whatever' }] };
    expect(await hogql({ filterTestAccounts: true }, P, project)).toEqual([1, 2]);
  });
});

describe('semver operators (schema.py PropertyOperator semver_*)', () => {
  const V = 4;
  const VERSIONS = ['1.2.3', '1.2.10', '1.3.0', 'v2.0.0', '2.1', '0.2.5', '0.0.3', '1.2.3-beta.1', 'not a version', ''];
  beforeAll(async () => {
    await db.load(V, { events: VERSIONS.map((version, i) => ({ event: 'e', distinct_id: 'd', timestamp: '2021-01-01T00:00:00Z', properties: { i, version } })) });
  });
  const versions = async (operator: string, value: unknown): Promise<string[]> => {
    const q = ast.select({ select: [ast.alias('i', ast.field('properties', 'i'))], from: 'events', where: propertiesToExpr(propertiesSchema.parse([ev('version', operator, value)])) });
    const { rows } = await runInsightQuery(db.ctx(V), q);
    return rows.map((r) => Number(r.i)).sort((a, b) => a - b).map((i) => VERSIONS[i]);
  };
  it.each<[string, unknown, string[]]>([
    ['semver_eq', '1.2.3', ['1.2.3', '1.2.3-beta.1']],
    ['semver_eq', '2.1.0', ['2.1']],
    ['semver_gt', '1.2.3', ['1.2.10', '1.3.0', 'v2.0.0', '2.1']],
    ['semver_gte', '1.2.10', ['1.2.10', '1.3.0', 'v2.0.0', '2.1']],
    ['semver_lt', '1.0.0', ['0.2.5', '0.0.3']],
    ['semver_lte', 'v1.2.3', ['1.2.3', '0.2.5', '0.0.3', '1.2.3-beta.1']],
    ['semver_tilde', '1.2.3', ['1.2.3', '1.2.10', '1.2.3-beta.1']],
    ['semver_tilde', '~1', ['1.2.3', '1.2.10', '1.3.0', '1.2.3-beta.1']],
    ['semver_caret', '^1.2.3', ['1.2.3', '1.2.10', '1.3.0', '1.2.3-beta.1']],
    ['semver_caret', '0.2.1', ['0.2.5']],
    ['semver_caret', '0.0.3', ['0.0.3']],
    ['semver_wildcard', '1.2.*', ['1.2.3', '1.2.10', '1.2.3-beta.1']],
    ['semver_wildcard', '2.x', ['v2.0.0', '2.1']],
    ['semver_eq', ['1.3.0', '0.0.3'], ['1.3.0', '0.0.3']],
  ])('%s %j', async (op, value, expected) => {
    expect(await versions(op, value)).toEqual(expected);
  });
  it('semver_neq passes what is not that version, the missing or unparsable ones included (as is_not)', async () => {
    expect(await versions('semver_neq', '1.2.3')).toEqual(VERSIONS.filter((v) => v !== '1.2.3' && v !== '1.2.3-beta.1'));
  });
  it.each([['semver_gt', 'abc'], ['semver_eq', '1.*'], ['semver_wildcard', '1.*.3'], ['semver_lt', null]])('%s %j is a 400', (op, value) => {
    expect(() => propertiesToExpr(propertiesSchema.parse([ev('version', op, value)]))).toThrow(expect.objectContaining({ status: 400, message: expect.stringContaining('needs a version such as 1.2.3') }));
  });
});

describe('test_property_to_expr_event: values and property types beyond the plain string', () => {
  it.each<[string, unknown, number[]]>([
    // _expr_to_compare_op: ICONTAINS / REGEX read the property as toString(x): a JSON boolean is its text
    ['icontains on JSON booleans reads their text (and the text "true")', ev('bool', 'icontains', 'TRU'), [18, 20]],
    ['regex on JSON booleans', ev('bool', 'regex', '^true$'), [18, 20]],
    ['icontains on a JSON array reads its text', ev('arr', 'icontains', '1,2'), [24]],
    ['exact on a JSON object with its compact text', ev('nested', 'exact', '{"a":1}'), [23]],
    // numbers: negative and fractional values compare as numbers; is_not passes the events without the property
    ['gt a negative fraction', ev('num', 'gt', -1.6), [21, 22]],
    ['lt a negative numeric text', ev('num', 'lt', '-1'), [22]],
    ['is_not 0: the other number and the events without num', ev('num', 'is_not', 0), ALL.filter((i) => i !== 21)],
    ['exact with a fractional JSON number (Unix seconds with milliseconds)', ev('sdk_$time', 'exact', 1639427152.339), [11]],
    ['gt on Unix seconds compares the numbers', ev('unix_timestamp', 'gt', 1617300000), [6]],
    ['in with a number and a text value', ev('attr', 'in', [5, 'some_val']), [2, 4]],
    ['between with numeric text bounds (float(value[0]), float(value[1]))', ev('attr', 'between', ['4.5', '5.5']), [4]],
    // is_date_exact is `=` on the parsed date: a datetime does not equal its day
    ['is_date_exact on Unix seconds', ev('unix_timestamp', 'is_date_exact', '2021-04-01 18:00:00'), [5]],
    ['is_date_exact on a datetime with its day only', ev('long_date', 'is_date_exact', '2021-04-01'), []],
    ['is_date_exact on a datetime', ev('long_date', 'is_date_exact', '2021-04-01 18:00:00'), [7]],
    ['is_date_before on an RFC 822 time with an offset (15:00+02:00 is 13:00Z)', ev('rfc_822_time', 'is_date_before', '2002-10-02 13:30:00'), [13]],
    // values that are no dates: no event matches an is_date_* filter on them
    ['is_date_before on JSON booleans', ev('bool', 'is_date_before', '2100-01-01'), []],
    ['is_date_before on a JSON object', ev('nested', 'is_date_before', '2100-01-01'), []],
    ['is_date_after -7d on text that is no date', ev('email', 'is_date_after', '-7d'), []],
    // event_metadata columns take every operator
    ['event_metadata event icontains', { type: 'event_metadata', key: 'event', operator: 'icontains', value: 'AUTO' }, [0]],
    ['event_metadata distinct_id regex', { type: 'event_metadata', key: 'distinct_id', operator: 'regex', value: '^p' }, [1, 2]],
    ['event_metadata distinct_id not_regex', { type: 'event_metadata', key: 'distinct_id', operator: 'not_regex', value: '^p' }, range(3).concat([0])],
    ['event_metadata timestamp exact (a datetime without offset, in the project timezone)', { type: 'event_metadata', key: 'timestamp', operator: 'exact', value: '2021-05-01 03:00:00' }, [3]],
    ['event_metadata timestamp is_date_exact', { type: 'event_metadata', key: 'timestamp', operator: 'is_date_exact', value: '2021-05-01 03:00:00' }, [3]],
    ['event_metadata person_id is_set on every event (a column)', { type: 'event_metadata', key: 'person_id', operator: 'is_set' }, ALL],
    // a person filter on `id` reads the property `id` (person.properties.id), not the person's id
    ['a person filter on id reads the property', { type: 'person', key: 'id', operator: 'is_set' }, []],
  ])('%s', async (_n, f, expected) => {
    expect(await matching([f])).toEqual([...expected].sort((a, b) => a - b));
  });

  it.each<[string, unknown[], RegExp]>([
    ['non-numeric bounds', ['a', 'b'], /needs a \[min, max\] pair of numbers/],
    ['one bound', [1], /needs a \[min, max\] pair of numbers/],
    ['min above max', [10, 1], /min must be less than or equal to max/],
  ])('between with %s is a 400', async (_n, value, message) => {
    await expect(matching([ev('attr', 'between', value)])).rejects.toMatchObject({ status: 400, message: expect.stringMatching(message) });
  });
});

describe('is_date_* and datetime comparisons in the project timezone (relative_date_parse and parseDateTimeBestEffort read text without an offset there)', () => {
  it.each<[string, unknown, string, number[]]>([
    ['is_date_exact on a datetime text, both read in New York', ev('long_date', 'is_date_exact', '2021-04-01 18:00:00'), 'America/New_York', [7]],
    ['is_date_exact on a date, in Kolkata', ev('short_date', 'is_date_exact', '2021-04-04'), 'Asia/Kolkata', [9]],
    ['is_date_exact on Unix seconds: 18:00Z is 14:00 in New York', ev('unix_timestamp', 'is_date_exact', '2021-04-01 14:00:00'), 'America/New_York', [5]],
    ['an ISO time with Z (19:00Z, 15:00 in New York) after 14:59', ev('iso_8601_$time', 'is_date_after', '2021-04-01 14:59:00'), 'America/New_York', [14]],
    ['an RFC 822 time with +0200 (13:00Z, 09:00 in New York) before 09:30', ev('rfc_822_time', 'is_date_before', '2002-10-02 09:30:00'), 'America/New_York', [13]],
    ['a slashed datetime read in New York', ev('with_slashes_$time', 'is_date_before', '2021-04-01 19:30:00'), 'America/New_York', [16]],
    ['a day-first datetime read in New York', ev('full_date_increasing_$time', 'is_date_after', '2021-04-01 18:30:00'), 'America/New_York', [15]],
    ['event timestamp is_date_exact a New York time (03:00Z)', { type: 'event_metadata', key: 'timestamp', operator: 'is_date_exact', value: '2021-04-30 23:00:00' }, 'America/New_York', [3]],
    ['event timestamp before a Z time, whatever the timezone', { type: 'event_metadata', key: 'timestamp', operator: 'is_date_before', value: '2021-05-01T01:00:00Z' }, 'Asia/Kolkata', [0, 24]],
    ['event timestamp gt a time with an offset (18:00Z)', { type: 'event_metadata', key: 'timestamp', operator: 'gt', value: '2021-05-01T20:00:00+02:00' }, 'Asia/Kolkata', [19, 20, 21, 22, 23]],
    ['event timestamp lt a date: its midnight in Kolkata (2021-04-30 18:30Z)', { type: 'event_metadata', key: 'timestamp', operator: 'lt', value: '2021-05-01' }, 'Asia/Kolkata', []],
  ])('%s', async (_n, f, tz, expected) => {
    expect(await matching([f], tz)).toEqual(expected);
  });
});
