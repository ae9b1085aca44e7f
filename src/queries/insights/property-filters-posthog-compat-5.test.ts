/**
 * Property filters: the fifth batch of scenarios from PostHog's suites, on the real server (REST `/query/`, the action
 * count route), events imported through the real ingest path:
 * - posthog/hogql/property.py `_expr_to_compare_op` for `is_cleaned_path_exact` (test_property.py
 *   `test_property_to_expr_event` names the operator; without rules it is `exact`, pinned in compat-4): PostHog's
 *   `apply_path_cleaning` wraps the property in one `replaceRegexpAll(…, regex, alias)` per rule of the project's
 *   `path_cleaning_filters`, in order, and compares it with the value — a cleaned path such as `/project/<id>/home`,
 *   as web analytics shows it, matches every path that cleans to it. The rules are the project's: another project's
 *   query is exact. They apply wherever a property filter does (an EventsQuery, a TrendsQuery series, a HogQLQuery's
 *   `{filters}`, an action step). Whether PostHog also cleans a raw value (`/project/123/home`) is not pinned here:
 *   the team's note says the rules apply to the property;
 * - an invalid regex value is the caller's 400 (posthog/errors.py: ClickHouse's CANNOT_COMPILE_REGEXP is user-safe);
 * - person filters on personless events (test_property.py `test_person_scope` / the persons join: a personless event
 *   has no person properties, so `is_set` fails and `is_not_set` passes).
 * - test_trends.py `test_breakdown_user_props_with_filter`, `test_breakdown_filter_by_precalculated_cohort`,
 *   `test_person_property_filtering` (a list of values), `test_filter_events_by_cohort` (not_in keeps personless events),
 *   test_filter.py `test_is_not_true_false`, and is_date_* on text that is no date (NULL on both engines).
 * property-filters-posthog-compat-5.clickhouse.test.ts runs this file on ClickHouse with the same expectations.
 */
import { quarryOnTestEngine } from '../../../test/helpers/clickhouse-quarry';
import type { TestServer } from '../../../test/helpers/server';

const server = quarryOnTestEngine('quarry_filters_compat_5');

let s: TestServer;
/** A project with path-cleaning rules, and one without. */
let p: number;
let q: number;

const RULES = [
  { regex: '/project/\\d+', alias: '/project/<id>' },
  // sees the first rule's output: `/project/<id>/settings/<section>`
  { regex: '<id>/settings/\\w+', alias: '<id>/settings/<section>' },
];

/** `$pageview` events (`properties.i` = index) by p1 (a person) and `anon` (personless). */
const PATHS: (string | null)[] = [
  '/project/123/home', // 0
  '/project/456/home', // 1
  '/project/123/settings/billing', // 2
  '/project/789/settings/members', // 3
  '/about', // 4
  null, // 5: no $pathname
  '/Project/123/home', // 6: the rule is case-sensitive
  '/project/abc/home', // 7: no digits, not cleaned
];
const ALL = PATHS.map((_, i) => i);

beforeAll(async () => {
  s = server();
  const created = await s.api('POST', '/api/projects/', { name: 'filters compat 5', path_cleaning_filters: RULES });
  expect([created.status, created.body.path_cleaning_filters]).toEqual([201, RULES]);
  p = created.body.id;
  q = (await s.api('POST', '/api/projects/', { name: 'filters compat 5, no rules' })).body.id;
  const events = PATHS.map((path, i) => ({
    event: '$pageview',
    distinct_id: i % 2 ? 'anon' : 'p1',
    timestamp: `2024-03-01T1${i}:00:00Z`,
    properties: { i, ...(path === null ? {} : { $pathname: path }), ...(i % 2 ? { $process_person_profile: false } : {}) },
  }));
  const ing = s.server.services.ingestor;
  for (const project of [p, q]) await ing.import(project, { persons: [{ distinct_ids: ['p1'], properties: { email: 'p1@posthog.com' } }], events });
  await ing.flush();
});

// force_blocking: the result cache keys on the node, the project, its timezone and week start, not on its rules
const query = async (node: Record<string, unknown>, project = p) => {
  const r = await s.api('POST', `/api/projects/${project}/query/`, { query: node, refresh: 'force_blocking' });
  expect([r.status, r.body?.detail]).toEqual([200, undefined]);
  return r.body;
};
/** Indexes (`properties.i`) of the events an EventsQuery with `properties` returns. */
const matching = async (properties: unknown[], project = p): Promise<number[]> => {
  const body = await query({ kind: 'EventsQuery', select: ['properties.i'], after: '2024-01-01', before: '2024-04-01', properties }, project);
  return (body.results as unknown[][]).map((r) => Number(r[0])).sort((a, b) => a - b);
};
const cleaned = (value: unknown, operator = 'is_cleaned_path_exact') => ({ type: 'event', key: '$pathname', operator, value });

describe('is_cleaned_path_exact with the project’s path_cleaning_filters (property.py apply_path_cleaning)', () => {
  it.each<[string, unknown, number[]]>([
    ['the cleaned form matches every path that cleans to it', cleaned('/project/<id>/home'), [0, 1]],
    ['the rules apply in order (the second rewrites the first’s output)', cleaned('/project/<id>/settings/<section>'), [2, 3]],
    ['… so the first rule’s output alone matches nothing there', cleaned('/project/<id>/settings/billing'), []],
    ['a path no rule touches compares as it is', cleaned('/about'), [4]],
    ['the regex is case-sensitive: /Project/… is not cleaned', cleaned('/Project/123/home'), [6]],
    ['… nor is a path without digits', cleaned('/project/abc/home'), [7]],
    ['a list is an OR of the values', cleaned(['/about', '/project/<id>/home']), [0, 1, 4]],
    ['events without the property match no value', cleaned(['/about', '/project/<id>/home', '/project/<id>/settings/<section>', '/Project/123/home', '/project/abc/home']), [0, 1, 2, 3, 4, 6, 7]],
    ['exact is not cleaned', cleaned('/project/123/home', 'exact'), [0]],
    ['is_not is not cleaned either', cleaned('/project/123/home', 'is_not'), ALL.filter((i) => i !== 0)],
  ])('%s', async (_n, f, expected) => {
    expect(await matching([f])).toEqual(expected);
  });

  it('a project without rules: is_cleaned_path_exact is exact', async () => {
    expect(await matching([cleaned('/project/123/home')], q)).toEqual([0]);
    expect(await matching([cleaned('/project/<id>/home')], q)).toEqual([]);
    expect(await matching([cleaned('/project/<id>/home')])).toEqual([0, 1]);
  });

  it('a TrendsQuery series filter', async () => {
    const node = {
      kind: 'TrendsQuery',
      dateRange: { date_from: '2024-02-29', date_to: '2024-03-02' },
      series: [{ kind: 'EventsNode', event: '$pageview', properties: [cleaned('/project/<id>/home')] }],
    };
    expect((await query(node)).results[0].data).toEqual([0, 2, 0]);
    expect((await query(node, q)).results[0].data).toEqual([0, 0, 0]);
  });

  it('a HogQLQuery’s {filters}', async () => {
    const node = { kind: 'HogQLQuery', query: 'select count() from events where {filters}', filters: { properties: [cleaned('/project/<id>/settings/<section>')], dateRange: { date_from: '2024-01-01' } } };
    expect((await query(node)).results).toEqual([[2]]);
  });

  it('an action step’s property filter (the action count route)', async () => {
    const created = await s.api('POST', `/api/projects/${p}/actions/`, { name: 'project home', steps: [{ event: '$pageview', properties: [cleaned('/project/<id>/home')] }] });
    expect(created.status).toBe(201);
    expect((await s.api('GET', `/api/projects/${p}/actions/${created.body.id}/count/`)).body).toEqual({ count: 2 });
  });

  it('a project’s rules changed by PATCH apply to the next query', async () => {
    const other = (await s.api('POST', '/api/projects/', { name: 'filters compat 5, patched' })).body.id;
    const ing = s.server.services.ingestor;
    await ing.import(other, { events: ['/a/1', '/a/2', '/b/1'].map((path, i) => ({ event: '$pageview', distinct_id: 'x', timestamp: `2024-03-01T0${i}:00:00Z`, properties: { i, $pathname: path } })) });
    await ing.flush();
    expect(await matching([cleaned('/a/:n')], other)).toEqual([]);
    const patched = await s.api('PATCH', `/api/projects/${other}/`, { path_cleaning_filters: [{ regex: '/\\d+$', alias: '/:n' }] });
    expect(patched.status).toBe(200);
    expect(await matching([cleaned('/a/:n')], other)).toEqual([0, 1]);
  });
});

describe('person filters on personless events (no person: no person properties)', () => {
  it.each<[string, unknown, number[]]>([
    ['is_set fails on a personless event', { type: 'person', key: 'email', operator: 'is_set' }, [0, 2, 4, 6]],
    ['is_not_set passes', { type: 'person', key: 'email', operator: 'is_not_set' }, [1, 3, 5, 7]],
    ['is_not passes', { type: 'person', key: 'email', operator: 'is_not', value: 'p1@posthog.com' }, [1, 3, 5, 7]],
    ['not_icontains passes', { type: 'person', key: 'email', operator: 'not_icontains', value: 'posthog' }, [1, 3, 5, 7]],
    ['not_regex passes', { type: 'person', key: 'email', operator: 'not_regex', value: '^p1' }, [1, 3, 5, 7]],
    ['icontains fails', { type: 'person', key: 'email', operator: 'icontains', value: 'P1@' }, [0, 2, 4, 6]],
  ])('%s', async (_n, f, expected) => {
    expect(await matching([f])).toEqual(expected);
  });
});

describe('a regex ClickHouse cannot compile (CANNOT_COMPILE_REGEXP is user-safe in PostHog: a 400, not a 500)', () => {
  it.each([['regex'], ['not_regex']])('%s with an unbalanced parenthesis', async (operator) => {
    const r = await s.api('POST', `/api/projects/${p}/query/`, { query: { kind: 'EventsQuery', select: ['event'], properties: [{ type: 'event', key: '$pathname', operator, value: '/project/(' }] } });
    expect([r.status, r.body.type]).toEqual([400, 'validation_error']);
  });

  it.each<[string, string]>([
    ['a lookahead (not RE2)', '/project(?=/)'],
    ['a backreference (not RE2)', '(a)\\1'],
    ['test_invalid_regex (test_filter.py): "?*"', '?*'],
  ])('%s is a 400 too', async (_n, value) => {
    const r = await s.api('POST', `/api/projects/${p}/query/`, { query: { kind: 'EventsQuery', select: ['event'], properties: [{ type: 'person', key: 'email', operator: 'regex', value }] } });
    expect([r.status, r.body.type]).toEqual([400, 'validation_error']);
  });
});

/**
 * test_trends.py `test_breakdown_user_props_with_filter`, `test_breakdown_filter_by_precalculated_cohort`,
 * `test_person_property_filtering` (a list of values), `test_filter_events_by_cohort` on personless events, and
 * posthog/models/filters/test/test_filter.py `test_is_not_true_false`, on a project of their own.
 * Persons: person1 test@posthog.com (name test), person2 test@gmail.com (name test), person3 other@gmail.com (name foo);
 * `anon` is personless.
 */
describe('trends property filters with person breakdowns and cohorts (test_trends.py, test_filter.py)', () => {
  let r: number;
  let cohort: number;
  const RANGE = { date_from: '2024-03-01', date_to: '2024-03-03' };
  /** `sign up` for the breakdown case, `$pageview` by every person and anon, `flag` for the boolean case, `dates` for is_date_*. */
  const EVENTS: { event: string; distinct_id: string; properties: Record<string, unknown> }[] = [
    { event: 'sign up', distinct_id: 'person1', properties: { key: 'val' } }, // 0
    { event: 'sign up', distinct_id: 'person2', properties: { key: 'val' } }, // 1
    { event: 'sign up', distinct_id: 'person2', properties: { key: 'oh' } }, // 2
    { event: '$pageview', distinct_id: 'person1', properties: {} }, // 3
    { event: '$pageview', distinct_id: 'person2', properties: {} }, // 4
    { event: '$pageview', distinct_id: 'person3', properties: {} }, // 5
    { event: '$pageview', distinct_id: 'anon', properties: { $process_person_profile: false } }, // 6
    { event: 'flag', distinct_id: 'person1', properties: { is_first_user: true } }, // 7
    { event: 'flag', distinct_id: 'person1', properties: {} }, // 8
    { event: 'dates', distinct_id: 'person1', properties: { d: 'ünï' } }, // 9
    { event: 'dates', distinct_id: 'person1', properties: { d: { a: 1 } } }, // 10
    { event: 'dates', distinct_id: 'person1', properties: { d: '2020-01-01' } }, // 11
  ];

  beforeAll(async () => {
    r = (await s.api('POST', '/api/projects/', { name: 'filters compat 5, trends' })).body.id;
    const ing = s.server.services.ingestor;
    await ing.import(r, {
      persons: [
        { distinct_ids: ['person1'], properties: { email: 'test@posthog.com', name: 'test' } },
        { distinct_ids: ['person2'], properties: { email: 'test@gmail.com', name: 'test' } },
        { distinct_ids: ['person3'], properties: { email: 'other@gmail.com', name: 'foo' } },
      ],
      events: EVENTS.map((e, i) => ({ ...e, timestamp: `2024-03-02T${10 + i}:00:00Z`, properties: { ...e.properties, i } })),
    });
    await ing.flush();
    const created = await s.api('POST', `/api/projects/${r}/cohorts/`, { name: 'cohort1', groups: [{ properties: [{ key: 'name', value: 'test', type: 'person' }] }] });
    expect(created.status).toBe(201);
    cohort = created.body.id;
  });

  const trends = async (event: string, q: Record<string, unknown>) =>
    (await query({ kind: 'TrendsQuery', dateRange: RANGE, series: [{ kind: 'EventsNode', event }], ...q }, r)).results as Record<string, unknown>[];
  const summary = (rows: Record<string, unknown>[]) => rows.map((x) => [x.breakdown_value, x.count, x.data]);

  it('test_breakdown_user_props_with_filter: a person not_icontains and an event filter, a person breakdown', async () => {
    const rows = await trends('sign up', {
      breakdownFilter: { breakdown: 'email', breakdown_type: 'person' },
      properties: [
        { key: 'email', value: '@posthog.com', operator: 'not_icontains', type: 'person' },
        { key: 'key', value: 'val' },
      ],
    });
    expect(summary(rows)).toEqual([['test@gmail.com', 1, [0, 1, 0]]]);
  });

  it('test_breakdown_filter_by_precalculated_cohort: a cohort filter and a person breakdown', async () => {
    const rows = await trends('$pageview', { breakdownFilter: { breakdown: 'name', breakdown_type: 'person' }, properties: [{ key: 'id', type: 'cohort', value: cohort }] });
    expect(summary(rows)).toEqual([['test', 2, [0, 2, 0]]]);
  });

  it.each<[string, string, number]>([
    ['in: the events of the cohort’s persons', 'in', 2],
    ['not_in: the others, the personless event included', 'not_in', 2],
  ])('test_filter_events_by_cohort, %s', async (_n, operator, count) => {
    const rows = await trends('$pageview', { properties: [{ key: 'id', type: 'cohort', value: cohort, operator }] });
    expect(rows.map((x) => x.count)).toEqual([count]);
  });

  it('a cohort id given as numeric text is the cohort (CohortPropertyFilter.value is an int, read in pydantic’s lax mode)', async () => {
    const rows = await trends('$pageview', { properties: [{ key: 'id', type: 'cohort', value: String(cohort) }] });
    expect(rows.map((x) => x.count)).toEqual([2]);
  });

  it('test_person_property_filtering: a list of values is any of them', async () => {
    const rows = await trends('$pageview', { properties: [{ key: 'email', type: 'person', value: ['test@posthog.com', 'other@gmail.com'] }] });
    expect(rows.map((x) => x.count)).toEqual([2]);
  });

  // property_to_expr on a CohortPropertyFilter: `person_id IN COHORT n` on events, `id IN COHORT n` in person scope
  // (ActorsQuery's PersonStrategy filters the persons table itself)
  it.each<[string, string | undefined, string[]]>([
    ['the persons list: the cohort’s persons (the default operator is in)', undefined, ['test@gmail.com', 'test@posthog.com']],
    ['the persons list: not_in, the others', 'not_in', ['other@gmail.com']],
  ])('a cohort filter on ActorsQuery, %s', async (_n, operator, expected) => {
    const body = await query({ kind: 'ActorsQuery', select: ['properties.email'], orderBy: ['properties.email'], properties: [{ key: 'id', type: 'cohort', value: cohort, ...(operator ? { operator } : {}) }] }, r);
    expect(body.results).toEqual(expected.map((x) => [x]));
  });

  it('a cohort filter on EventsQuery (properties and fixedProperties) and on the actors of a filtered trends point', async () => {
    const inCohort = { key: 'id', type: 'cohort', value: cohort };
    expect(await matching([inCohort, { key: 'i', type: 'event', operator: 'between', value: [3, 6] }], r)).toEqual([3, 4]);
    const fixed = await query({ kind: 'EventsQuery', select: ['properties.i'], after: '2024-01-01', before: '2024-04-01', event: '$pageview', fixedProperties: [{ ...inCohort, operator: 'not_in' }] }, r);
    expect((fixed.results as unknown[][]).map((x) => Number(x[0])).sort()).toEqual([5, 6]);
    const source = { kind: 'TrendsQuery', dateRange: RANGE, series: [{ kind: 'EventsNode', event: '$pageview' }], properties: [inCohort] };
    const actors = await query({ kind: 'ActorsQuery', select: ['properties.email'], orderBy: ['properties.email DESC'], source: { kind: 'InsightActorsQuery', source, day: '2024-03-02' } }, r);
    expect(actors.results).toEqual([['test@posthog.com'], ['test@gmail.com']]);
  });

  it('test_filter_test_accounts_cohorts: a cohort as the test-account filter keeps its members’ events', async () => {
    expect((await s.api('PATCH', `/api/projects/${r}/`, { test_account_filters: [{ key: 'id', value: cohort, type: 'cohort' }] })).status).toBe(200);
    expect((await trends('$pageview', { filterTestAccounts: true })).map((x) => x.count)).toEqual([2]);
    expect((await trends('$pageview', { filterTestAccounts: false })).map((x) => x.count)).toEqual([4]);
  });

  it('test_is_not_true_false: is_not "true" keeps the event without the property, not the JSON true', async () => {
    const is = async (operator: string, value: unknown) => (await matching([{ key: 'is_first_user', type: 'event', operator, value }, { key: 'i', type: 'event', operator: 'between', value: [7, 8] }], r));
    expect(await is('is_not', 'true')).toEqual([8]);
    expect(await is('exact', 'true')).toEqual([7]);
    expect(await is('exact', ['true'])).toEqual([7]);
  });

  // posthog/hogql/property.py reads is_date_* with parseDateTime64BestEffortOrNull: text that is no date is NULL
  it.each<[string, string, number[]]>([
    ['is_date_before', '2024-01-01', [11]],
    ['is_date_after', '1999-01-01', [11]],
    ['is_date_exact', '2020-01-01', [11]],
  ])('%s %s: text without a date and a JSON object match no date filter', async (operator, value, expected) => {
    expect(await matching([{ key: 'd', type: 'event', operator, value }, { key: 'i', type: 'event', operator: 'gte', value: 9 }], r)).toEqual(expected);
  });
});

/**
 * posthog/hogql_queries/test/test_events_query_runner.py: `_create_boolean_field_test_events` (true, false, missing,
 * JSON null) with `test_is_not_set_boolean` / `test_is_set_boolean` (the filter's value is the operator's name, as the
 * UI sends it), and `test_test_account_filters` (a person not_icontains test-account filter on an EventsQuery).
 */
describe('EventsQuery property filters (test_events_query_runner.py)', () => {
  let e: number;
  beforeAll(async () => {
    e = (await s.api('POST', '/api/projects/', { name: 'filters compat 5, events query' })).body.id;
    const rows: [string, string, Record<string, unknown>][] = [
      ['p_true', '2020-01-11T12:00:01Z', { boolean_field: true }],
      ['p_false', '2020-01-11T12:00:02Z', { boolean_field: false }],
      ['p_notset', '2020-01-11T12:00:04Z', {}],
      ['p_null', '2020-01-11T12:00:04Z', { boolean_field: null }],
      ['test', '2020-01-11T12:00:05Z', { some: 'thing' }],
    ];
    await s.server.services.ingestor.import(e, {
      persons: rows.map(([d]) => ({ distinct_ids: [d], properties: { name: d, ...(d === 'test' ? { email: 'test@posthog.com' } : {}) } })),
      events: rows.map(([distinct_id, timestamp, properties]) => ({ event: '$pageview', distinct_id, timestamp, properties })),
    });
    await s.server.services.ingestor.flush();
  });
  const ids = async (extra: Record<string, unknown>, project: Record<string, unknown> | null = null): Promise<string[]> => {
    if (project) expect((await s.api('PATCH', `/api/projects/${e}/`, project)).status).toBe(200);
    const body = await query({ kind: 'EventsQuery', event: '$pageview', after: '2020-01-10', before: '2020-01-12', orderBy: ['timestamp ASC'], select: ['*'], ...extra }, e);
    return (body.results as Record<string, unknown>[][]).map((r) => r[0].distinct_id as string).sort();
  };
  const boolean = (operator: string, value: unknown = operator) => ({ properties: [{ type: 'event', key: 'boolean_field', operator, value }] });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['test_is_not_set_boolean: missing and JSON null (the test account’s event lacks it too)', boolean('is_not_set'), ['p_notset', 'p_null', 'test']],
    ['test_is_set_boolean: true and false', boolean('is_set'), ['p_false', 'p_true']],
    ['exact true', boolean('exact', true), ['p_true']],
    ['exact false', boolean('exact', 'false'), ['p_false']],
    ['is_not true: false, missing and null', boolean('is_not', true), ['p_false', 'p_notset', 'p_null', 'test']],
  ])('%s', async (_n, extra, expected) => {
    expect(await ids(extra)).toEqual(expected);
  });

  it('test_test_account_filters: a person not_icontains filter leaves out the test account', async () => {
    const filters = { test_account_filters: [{ key: 'email', value: '@posthog.com', operator: 'not_icontains', type: 'person' }] };
    expect(await ids({ filterTestAccounts: true }, filters)).toEqual(['p_false', 'p_notset', 'p_null', 'p_true']);
    expect(await ids({ filterTestAccounts: false })).toEqual(['p_false', 'p_notset', 'p_null', 'p_true', 'test']);
  });
});

/**
 * ee/clickhouse/models/test/test_property.py `test_parse_groups`, `test_parse_groups_invalid_type`,
 * `test_parse_groups_persons`: a property group (OR of AND / OR groups) as a TrendsQuery's `properties`, counted whole.
 */
describe('property groups (test_property.py test_parse_groups*)', () => {
  let g: number;
  beforeAll(async () => {
    g = (await s.api('POST', '/api/projects/', { name: 'filters compat 5, groups' })).body.id;
    const pv = (distinct_id: string, properties: Record<string, unknown>, hour: number) => ({ event: '$pageview', distinct_id, timestamp: `2021-05-01T1${hour}:00:00Z`, properties });
    await s.server.services.ingestor.import(g, {
      persons: [
        { distinct_ids: ['some_id'], properties: { email: '1@posthog.com' } },
        { distinct_ids: ['some_other_id'], properties: { email: '2@posthog.com' } },
        { distinct_ids: ['some_other_random_id'], properties: { email: 'X@posthog.com' } },
      ],
      events: [
        pv('some_id', { attr_1: 'val_1', attr_2: 'val_2' }, 0),
        pv('some_id', { attr_1: 'val_2' }, 1),
        pv('some_other_id', { attr_1: 'val_3' }, 2),
        pv('some_other_random_id', {}, 3),
      ],
    });
    await s.server.services.ingestor.flush();
  });
  const total = async (properties: unknown) => {
    const body = await query(
      { kind: 'TrendsQuery', dateRange: { date_from: '2021-05-01', date_to: '2021-05-01' }, series: [{ kind: 'EventsNode', event: '$pageview' }], trendsFilter: { display: 'BoldNumber' }, properties },
      g,
    );
    return body.results[0].aggregated_value;
  };
  const event = (key: string, value: string) => ({ key, value });

  it('test_parse_groups: (attr_1 = val_1 AND attr_2 = val_2) OR (attr_1 = val_2)', async () => {
    const groups = {
      type: 'OR',
      values: [
        { type: 'AND', values: [event('attr_1', 'val_1'), event('attr_2', 'val_2')] },
        { type: 'OR', values: [event('attr_1', 'val_2')] },
      ],
    };
    expect(await total(groups)).toBe(2);
    // the same groups under AND: no event is both
    expect(await total({ ...groups, type: 'AND' })).toBe(0);
  });

  it('test_parse_groups_invalid_type: an XOR group is a 400', async () => {
    const r = await s.api('POST', `/api/projects/${g}/query/`, {
      query: {
        kind: 'TrendsQuery',
        series: [{ kind: 'EventsNode', event: '$pageview' }],
        properties: { type: 'OR', values: [{ type: 'AND', values: [event('attr', 'val_1')] }, { type: 'XOR', values: [event('attr', 'val_2')] }] },
      },
    });
    expect([r.status, r.body.type]).toEqual([400, 'validation_error']);
  });

  it('test_parse_groups_persons: an OR of person-property groups', async () => {
    const person = (value: string) => ({ type: 'OR', values: [{ key: 'email', type: 'person', value }] });
    expect(await total({ type: 'OR', values: [person('1@posthog.com'), person('2@posthog.com')] })).toBe(3);
    expect(await total({ type: 'AND', values: [person('1@posthog.com'), person('2@posthog.com')] })).toBe(0);
  });
});
