/**
 * The REST surface against PostHog's API tests, eleventh batch (the earlier ones are rest-posthog-compat.test.ts and
 * -2 to -10): posthog/api/test/test_query.py (EventsQuery select expressions, paging and hogql/event/person property
 * filters, a full HogQL query and its {filters}, a missing query or body, refresh modes on a miss, the force_async
 * answer, TestQueryRetrieve's running query, aggregations in property filters, the EventsQuery default limit and date
 * range, syntax error details, query/upgrade/), test_insight_query.py (saving events, events-table, persons-table and
 * insight queries), test_insight.py (test_insight_with_filters_via_hogql, legacy trends compare, the `dashboards`
 * field), test_action.py (the unpaginated list) and test_person.py (update_property). Each case names the PostHog test
 * it ports. One server; one project for test_query.py's four events, in January 2020, only ordered or counted, and a
 * project of its own for each case that needs other data (no ClickHouse twin).
 */
import { newProject, startServer, type TestServer } from '../helpers/server';

let s: TestServer;
let Q: string;
let I: string;

const SELECT = ['properties.key', 'event', 'distinct_id', "concat(event, ' ', properties.key)"];
const events = (extra: Record<string, unknown> = {}) => ({ query: { kind: 'EventsQuery', select: SELECT, after: 'all', ...extra } });
const ROWS = [
  ['test_val1', 'sign up', '2', 'sign up test_val1'],
  ['test_val2', 'sign out', '2', 'sign out test_val2'],
  ['test_val2', 'sign out', '3', 'sign out test_val2'],
  ['test_val3', 'sign out', '4', 'sign out test_val3'],
];

beforeAll(async () => {
  s = await startServer();
  const p = await newProject(s, 'rest-compat-11');
  Q = `/api/projects/${p}/query/`;
  I = `/api/projects/${p}/insights/`;
  // test_query.py's set-up: a person with two distinct ids and an email; events at 12:00, 12:11, 12:12, 12:13
  await s.server.services.ingestor.import(p, {
    persons: [{ distinct_ids: ['2', 'some-random-uid'], properties: { email: 'tom@posthog.com' } }],
    events: [
      { event: 'sign up', distinct_id: '2', timestamp: '2020-01-10T12:00:00Z', properties: { key: 'test_val1' } },
      { event: 'sign out', distinct_id: '2', timestamp: '2020-01-10T12:11:00Z', properties: { key: 'test_val2' } },
      { event: 'sign out', distinct_id: '3', timestamp: '2020-01-10T12:12:00Z', properties: { key: 'test_val2' } },
      { event: 'sign out', distinct_id: '4', timestamp: '2020-01-10T12:13:00Z', properties: { key: 'test_val3' } },
    ],
  });
  await s.server.services.ingestor.flush();
});
afterAll(() => s.close());

describe('EventsQuery through /query/ (test_query.py)', () => {
  it('test_select_hogql_expressions: columns as selected, rows ordered by the first column, hasMore false', async () => {
    const r = await s.api('POST', Q, events());
    expect(r.status).toBe(200);
    // the types ClickHouse reports: a property is Nullable(String); HogQL's concat() wraps its arguments in ifNull
    expect(r.body).toMatchObject({ columns: SELECT, types: ['Nullable(String)', 'String', 'String', 'String'], hasMore: false, is_cached: false });
    // the order of the two test_val2 rows is not fixed by the query (PostHog's order is by the first column only)
    expect(r.body.results[0]).toEqual(ROWS[0]);
    expect(r.body.results[3]).toEqual(ROWS[3]);
    expect(r.body.results.slice(1, 3).sort()).toEqual([ROWS[1], ROWS[2]]);
  });

  it("test_select_hogql_expressions: select ['*', 'event'] gives the whole event as a tuple, then the column", async () => {
    const r = await s.api('POST', Q, events({ select: ['*', 'event'], orderBy: ['timestamp'] }));
    expect(r.body.columns).toEqual(['*', 'event']);
    expect(r.body.results.map((row: unknown[]) => row[1])).toEqual(['sign up', 'sign out', 'sign out', 'sign out']);
    expect(r.body.results[0][0]).toMatchObject({ event: 'sign up', distinct_id: '2', properties: { key: 'test_val1' } });
  });

  it('test_select_hogql_expressions: count() with where and orderBy', async () => {
    const r = await s.api('POST', Q, events({ select: ['count()', 'event'], where: ["event == 'sign up' or like(properties.key, '%val2')"], orderBy: ['count() DESC', 'event'] }));
    expect(r.body).toMatchObject({ columns: ['count()', 'event'], types: ['UInt64', 'String'], hasMore: false, results: [[2, 'sign out'], [1, 'sign up']] });
  });

  it('limit and offset page the rows (HogQLHasMorePaginator): the page asked for, hasMore while rows remain', async () => {
    const page = await s.api('POST', Q, events({ select: ['event', 'distinct_id'], orderBy: ['timestamp'], limit: 2, offset: 1 }));
    expect(page.body).toMatchObject({ results: [['sign out', '2'], ['sign out', '3']], hasMore: true, limit: 2, offset: 1 });
    const last = await s.api('POST', Q, events({ select: ['event', 'distinct_id'], orderBy: ['timestamp'], limit: 2, offset: 2 }));
    expect(last.body).toMatchObject({ results: [['sign out', '3'], ['sign out', '4']], hasMore: false, limit: 2, offset: 2 });
  });

  it.each<[string, string, number]>([
    ["'a%sd' == 'foo'", 'a false constant', 0],
    ["'a%sd' == 'a%sd'", "a true constant with a %s (no format escape)", 4],
    ["properties.key == 'test_val2'", 'an event property', 2],
  ])('test_hogql_property_filter: %s (%s) → %d rows', async (key, _what, n) => {
    const r = await s.api('POST', Q, events({ properties: [{ type: 'hogql', key }] }));
    expect([r.status, r.body.results.length]).toEqual([200, n]);
  });

  it('test_event_property_filter: exact test_val3 → the one event', async () => {
    const r = await s.api('POST', Q, events({ properties: [{ type: 'event', key: 'key', value: 'test_val3', operator: 'exact' }] }));
    expect(r.body.results).toEqual([ROWS[3]]);
  });

  it("test_person_property_filter: the person's email → the events of both of its distinct ids' person", async () => {
    const r = await s.api('POST', Q, events({ properties: [{ type: 'person', key: 'email', value: 'tom@posthog.com', operator: 'exact' }] }));
    expect(r.body.results).toEqual([ROWS[0], ROWS[1]]);
  });
});

describe('HogQLQuery through /query/ (test_query.py)', () => {
  it('test_full_hogql_query: rows in timestamp order, a property column named by its last part', async () => {
    const r = await s.api('POST', Q, { query: { kind: 'HogQLQuery', query: 'select event, distinct_id, properties.key from events order by timestamp' } });
    expect(r.status).toBe(200);
    expect(r.body.columns).toEqual(['event', 'distinct_id', 'key']);
    expect(r.body.results).toEqual(ROWS.map(([key, event, id]) => [event, id, key]));
  });

  it('test_hogql_query_filters: {filters} takes the query’s filters.properties', async () => {
    const r = await s.api('POST', Q, {
      query: {
        kind: 'HogQLQuery',
        query: 'select event, distinct_id, properties.key from events where {filters} order by timestamp',
        filters: { properties: [{ key: 'key', value: 'test_val3', operator: 'exact', type: 'event' }] },
      },
    });
    expect(r.body.results).toEqual([['sign out', '4', 'test_val3']]);
  });

  it('test_hogql_query_filters_empty_true: {filters} without filters is true: every row', async () => {
    const r = await s.api('POST', Q, { query: { kind: 'HogQLQuery', query: 'select event from events where {filters} order by timestamp' } });
    expect([r.status, r.body.results.length]).toEqual([200, 4]);
    expect(r.body.hogql).toMatch(/WHERE true\b/);
  });

  // HogQLQueryExecutor: `filters` among the values while the query has its own filters is refused, nothing runs
  it("test_hogql_query_filters_double_error: a 'filters' value next to the query's filters is a 400", async () => {
    const r = await s.api('POST', Q, {
      query: {
        kind: 'HogQLQuery',
        query: 'select event from events where {filters}',
        filters: { properties: [{ key: 'key', value: 'test_val3', operator: 'exact', type: 'event' }] },
        values: { filters: 'something' },
      },
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ type: 'validation_error', detail: "Query contains 'filters' placeholder, yet filters are also provided as a standalone query parameter." });
  });
});

describe('the envelope (test_query.py)', () => {
  it.each<[string, unknown]>([
    ['test_missing_query: an empty query', { query: {} }],
    ['test_missing_body: no body at all', undefined],
  ])('%s → 400 parse_error', async (_what, body) => {
    const r = await s.api('POST', Q, body);
    expect([r.status, r.body.type, r.body.code]).toEqual([400, 'invalid_request', 'parse_error']);
  });

  // reference §9.1: /query/ converts force_cache to blocking; async_except_on_cache_miss blocks on a miss
  it.each(['force_cache', 'async_except_on_cache_miss'])('refresh=%s on a cache miss computes at once (200, no query_status), then answers from the cache', async (refresh) => {
    const body = { query: { kind: 'HogQLQuery', query: `select '${refresh}'` }, refresh };
    const miss = await s.api('POST', Q, body);
    expect([miss.status, miss.body.results, miss.body.is_cached, miss.body.query_status]).toEqual([200, [[refresh]], false, null]);
    const hit = await s.api('POST', Q, body);
    expect([hit.status, hit.body.results, hit.body.is_cached]).toEqual([200, [[refresh]], true]);
  });

  it('force_async answers QueryStatusResponse: the query_status alone (reference §9.1), then polls to the result', async () => {
    const r = await s.api('POST', Q, { query: { kind: 'HogQLQuery', query: 'select 5' }, refresh: 'force_async', client_query_id: 'compat11-force' });
    expect(r.status).toBe(202);
    expect(Object.keys(r.body)).toEqual(['query_status']);
    expect(r.body.query_status).toMatchObject({ id: 'compat11-force', query_async: true, complete: false, error: false, results: null });
    await s.server.services.queries.async.wait('compat11-force');
    const st = await s.api('GET', `${Q}compat11-force/`);
    expect(st.status).toBe(200);
    expect(st.body.query_status).toMatchObject({ complete: true, error: false, results: { results: [[5]] } });
  });

  it('TestQueryRetrieve.test_running_query: the status of a query still running is a 202, complete false', async () => {
    // 1e14 rows to sum: runs until cancelled (a query over the numbers() bound would fail, not run)
    const slow = 'SELECT sum((a.number * b.number) % 7) FROM numbers(10000000) AS a CROSS JOIN numbers(10000000) AS b';
    const r = await s.api('POST', Q, { query: { kind: 'HogQLQuery', query: slow }, refresh: 'force_async', client_query_id: 'compat11-running' });
    expect(r.status).toBe(202);
    const st = await s.api('GET', `${Q}compat11-running/`);
    expect(st.status).toBe(202);
    expect(st.body.query_status).toMatchObject({ id: 'compat11-running', complete: false, error: false, results: null });
    expect((await s.api('DELETE', `${Q}compat11-running/`)).status).toBe(204);
    await s.server.services.queries.async.wait('compat11-running');
    expect((await s.api('GET', `${Q}compat11-running/`)).body.query_status).toMatchObject({ complete: true, error: true, error_code: 'cancelled' });
  });

  it('an async cache miss answers CacheMissResponse: cache_key and query_status', async () => {
    const r = await s.api('POST', Q, { query: { kind: 'HogQLQuery', query: 'select 6' }, refresh: 'async' });
    expect(r.status).toBe(202);
    expect(Object.keys(r.body).sort()).toEqual(['cache_key', 'query_status']);
    await s.server.services.queries.async.wait(r.body.query_status.id);
  });

  // QueryViewSet.create: 202 whenever the answer's query_status is not complete; the async modes' stale answer carries
  // the status of the refresh it started (QueryRunner.run: cached_response.query_status = …)
  it('refresh=async on a stale cache entry: 202, the cached results with the running refresh’s query_status; then the fresh answer', async () => {
    const p = await newProject(s, 'rest-compat-11 async stale');
    const q = `/api/projects/${p}/query/`;
    const ing = s.server.services.ingestor;
    await ing.import(p, { events: [{ event: 'e', distinct_id: 'a', timestamp: '2020-01-10T12:00:00Z' }] });
    await ing.flush();
    const body = (id?: string) => ({ query: { kind: 'HogQLQuery', query: 'select count() from events' }, refresh: 'async', ...(id ? { client_query_id: id } : {}) });
    expect((await s.api('POST', q, { ...body(), refresh: 'blocking' })).body.results).toEqual([[1]]);
    await ing.import(p, { events: [{ event: 'e', distinct_id: 'b', timestamp: '2020-01-10T12:01:00Z' }] });
    await ing.flush();
    const stale = await s.api('POST', q, body('compat11-stale'));
    expect(stale.status).toBe(202);
    expect(stale.body).toMatchObject({ results: [[1]], is_cached: true, query_status: { id: 'compat11-stale', complete: false } });
    await s.server.services.queries.async.wait('compat11-stale');
    const fresh = await s.api('POST', q, body());
    expect([fresh.status, fresh.body.results, fresh.body.is_cached, fresh.body.query_status]).toEqual([200, [[2]], true, null]);
  });

  // PostHog's QueryStatus model: every field is dumped (model_dump), task_id included (null without a celery task)
  it('TestQueryRetrieve.test_completed_query: the status carries every QueryStatus field, task_id among them', async () => {
    await s.api('POST', Q, { query: { kind: 'HogQLQuery', query: 'select 8' }, refresh: 'force_async', client_query_id: 'compat11-fields' });
    await s.server.services.queries.async.wait('compat11-fields');
    const st = await s.api('GET', `${Q}compat11-fields/`);
    expect(st.status).toBe(200);
    for (const key of ['id', 'team_id', 'complete', 'error', 'error_message', 'results', 'start_time', 'pickup_time', 'end_time', 'expiration_time', 'task_id', 'query_async', 'dashboard_id', 'insight_id', 'query_progress', 'labels']) {
      expect(st.body.query_status).toHaveProperty(key);
    }
    expect(st.body.query_status).toMatchObject({ id: 'compat11-fields', team_id: Number(Q.split('/')[3]), complete: true, error: false, error_message: null, query_async: true, task_id: null });
  });

  // QueryViewSet.retrieve: an error with a message is one the user can act on (400); an error without one is an
  // internal surprise (500), its cause not shown (execute_process_query sets error_message for exposed errors only)
  it('TestQueryRetrieve.test_failed_query: an internal failure has no error_message and answers 500; a user error 400 with its message', async () => {
    const p = Number(Q.split('/')[3]);
    s.server.services.queries.async.start(p, 'compat11-internal', async () => {
      throw new Error('secret internal detail');
    });
    await s.server.services.queries.async.wait('compat11-internal');
    const internal = await s.api('GET', `${Q}compat11-internal/`);
    expect(internal.status).toBe(500);
    expect(internal.body.query_status).toMatchObject({ complete: true, error: true, error_message: null, results: null });
    expect(internal.text).not.toContain('secret internal detail');
    await s.api('POST', Q, { query: { kind: 'HogQLQuery', query: 'select nope' }, refresh: 'force_async', client_query_id: 'compat11-user-error' });
    await s.server.services.queries.async.wait('compat11-user-error');
    const user = await s.api('GET', `${Q}compat11-user-error/`);
    expect([user.status, user.body.query_status.error, user.body.query_status.error_message]).toEqual([400, true, 'Unable to resolve field: nope']);
  });
});

describe('saving queries as insights (test_insight_query.py)', () => {
  const COLUMNS = ['*', 'event', 'person', 'coalesce(properties.$current_url, properties.$screen_name) -- Url / Screen', 'properties.$lib', 'timestamp'];
  const eventsQuery = { kind: 'EventsQuery', select: COLUMNS, properties: [{ type: 'event', key: '$browser', operator: 'exact', value: 'Chrome' }], limit: 100 };

  it('test_can_save_valid_events_query_to_an_insight / test_no_default_filters_on_insight_query', async () => {
    const r = await s.api('POST', I, { name: 'Insight with events query', query: eventsQuery });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: 'Insight with events query', query: eventsQuery, filters: {} });
    const run = await s.api('GET', `${I}${r.body.id}/?refresh=blocking`);
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ result: [], columns: COLUMNS });
  });

  it('test_can_save_valid_events_table_query_to_an_insight', async () => {
    const query = { kind: 'DataTableNode', columns: COLUMNS, source: eventsQuery };
    const r = await s.api('POST', I, { name: 'Insight with events table query', query });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ query, filters: {} });
  });

  const personsTable = (source: Record<string, unknown>) => ({ kind: 'DataTableNode', columns: ['person', 'id', 'created_at', 'person.$delete'], source: { kind: 'PersonsNode', ...source } });

  it('test_can_save_valid_persons_table_query_to_an_insight: a PersonsNode (no runner) is saved; the cache-only default answers a miss', async () => {
    const query = personsTable({ properties: [{ type: 'person', key: '$browser', operator: 'exact', value: 'Chrome' }] });
    const r = await s.api('POST', I, { name: 'Insight with persons table query', query });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ query, filters: {}, result: null });
    const got = await s.api('GET', `${I}${r.body.id}/`);
    expect([got.status, got.body.result, got.body.query_status]).toEqual([200, null, null]);
    // process_query_model: computing a node no runner answers is "Unsupported query kind"
    const run = await s.api('GET', `${I}${r.body.id}/?refresh=blocking`);
    expect([run.status, run.body.detail]).toEqual([400, 'Unsupported query kind: PersonsNode']);
  });

  it('the same DataTableNode through /query/: valid, but no runner answers a PersonsNode (process_query_model)', async () => {
    const r = await s.api('POST', Q, { query: personsTable({}) });
    expect([r.status, r.body]).toEqual([400, { type: 'validation_error', code: 'invalid_input', detail: 'Unsupported query kind: PersonsNode', attr: null }]);
  });

  it('test_cannot_save_invalid_persons_table_query_to_an_insight: a PersonsNode failing its schema is a 400; nothing is saved', async () => {
    const before = (await s.api('GET', I)).body.count;
    const bad = await s.api('POST', I, { name: 'bad', query: personsTable({ properties: 'this is not a list' }) });
    expect([bad.status, bad.body.attr]).toEqual([400, 'query__source__properties']);
    const unknown = await s.api('POST', I, { name: 'bad', query: personsTable({ bogus: true }) });
    expect([unknown.status, unknown.body.attr]).toEqual([400, 'query__source__bogus']);
    expect((await s.api('GET', I)).body.count).toBe(before);
  });

  it('test_can_save_insights_query_to_an_insight', async () => {
    const query = {
      kind: 'InsightVizNode',
      source: {
        kind: 'TrendsQuery',
        filterTestAccounts: false,
        series: [{ kind: 'EventsNode', event: '$pageview', name: '$pageview', math: 'total', properties: [] }],
        interval: 'day',
        trendsFilter: { display: 'ActionsLineGraph' },
      },
    };
    const r = await s.api('POST', I, { name: 'Insight with insights query', query });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ query, filters: {} });
  });
});

describe('insights (test_insight.py)', () => {
  it('test_insight_with_filters_via_hogql: a lifecycle over a hogql property, refreshed from the list by short_id, then cached', async () => {
    const created = await s.api('POST', I, {
      filters: { insight: 'LIFECYCLE', events: [{ id: '$pageview' }], properties: [{ key: "toInt(properties.int_value) > 10 and 'bla' != 'a%sd'", type: 'hogql' }] },
    });
    expect(created.status).toBe(201);
    const fresh = await s.api('GET', `${I}?short_id=${created.body.short_id}&refresh=true`);
    expect(fresh.status).toBe(200);
    expect(fresh.body.results[0].result[0].data).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(fresh.body.results[0].is_cached).toBe(false);
    const cached = await s.api('GET', `${I}?short_id=${created.body.short_id}`);
    expect(cached.body.results[0].result[0].data).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(cached.body.results[0].is_cached).toBe(true);
  });
});

describe('legacy /insights/trend/ (test_insight.py)', () => {
  it('compare=true: the current period, then the previous one, labelled by compare_label', async () => {
    const qs = new URLSearchParams({ events: JSON.stringify([{ id: 'sign out' }]), date_from: '2020-01-09', date_to: '2020-01-11', compare: 'true' });
    const r = await s.api('GET', `${I}trend/?${qs}`);
    expect(r.status).toBe(200);
    expect(r.body.result.map((x: { compare_label: string; data: number[]; count: number }) => [x.compare_label, x.data, x.count])).toEqual([
      ['current', [0, 3, 0], 3],
      ['previous', [0, 0, 0], 0],
    ]);
  });
});

describe('dashboards on an insight (InsightSerializer.dashboards: PrimaryKeyRelatedField(many=True), reference §2.1)', () => {
  // Quarry has no dashboards, so every id is one Dashboard.objects.all() does not hold: DRF's does_not_exist
  it.each<[string, unknown, string, string]>([
    ['an unknown id', [999], 'does_not_exist', 'Invalid pk "999" - object does not exist.'],
    ['an id as text', ['12'], 'does_not_exist', 'Invalid pk "12" - object does not exist.'],
    ['text that is no id', ['abc'], 'incorrect_type', 'Incorrect type. Expected pk value, received str.'],
    ['a boolean', [true], 'incorrect_type', 'Incorrect type. Expected pk value, received bool.'],
    ['no list', 5, 'not_a_list', 'Expected a list of items but got type "int".'],
    ['null', null, 'null', 'This field may not be null.'],
  ])('%s (%j): 400 naming dashboards, on create and on update; nothing changes', async (_what, dashboards, code, detail) => {
    const before = (await s.api('GET', I)).body.count;
    const r = await s.api('POST', I, { name: 'on a dashboard', query: { kind: 'HogQLQuery', query: 'select 1' }, dashboards });
    expect([r.status, r.body]).toEqual([400, { type: 'validation_error', code, detail, attr: 'dashboards' }]);
    expect((await s.api('GET', I)).body.count).toBe(before);
    const ok = await s.api('POST', I, { name: 'on no dashboard', query: { kind: 'HogQLQuery', query: 'select 1' }, dashboards: [] });
    expect([ok.status, ok.body.dashboards]).toEqual([201, []]);
    const patched = await s.api('PATCH', `${I}${ok.body.id}/`, { name: 'renamed', dashboards });
    expect([patched.status, patched.body.code, patched.body.attr]).toEqual([400, code, 'dashboards']);
    expect((await s.api('GET', `${I}${ok.body.id}/`)).body.name).toBe('on no dashboard');
  });
});


describe('more of test_query.py', () => {
  it('test_property_filter_aggregations: a hogql property filter over an aggregation filters the groups (HAVING)', async () => {
    const r = await s.api('POST', Q, events({ select: ['properties.key', 'count()'], properties: [{ type: 'hogql', key: 'count() > 1' }] }));
    expect([r.status, r.body.results]).toEqual([200, [['test_val2', 2]]]);
  });

  it('test_full_events_query_limit: an EventsQuery without limit answers DEFAULT_RETURNED_ROWS (100) rows, hasMore, limit 100, offset 0', async () => {
    const p = await newProject(s, 'rest-compat-11 events limit');
    const events150 = Array.from({ length: 150 }, (_, i) => ({ event: 'sign up', distinct_id: 'many', timestamp: new Date(Date.UTC(2020, 0, 10, 12, 0, i)).toISOString() }));
    await s.server.services.ingestor.import(p, { events: events150 });
    await s.server.services.ingestor.flush();
    const r = await s.api('POST', `/api/projects/${p}/query/`, { query: { kind: 'EventsQuery', select: ['event'], after: 'all', where: ["distinct_id = 'many'"] } });
    expect(r.status).toBe(200);
    expect([r.body.results.length, r.body.hasMore, r.body.limit, r.body.offset]).toEqual([100, true, 100, 0]);
  });

  it('test_events_query_all_time_date: after "all" has no lower bound; before and after take relative dates; the default is the last 24 hours', async () => {
    const p = await newProject(s, 'rest-compat-11 all time');
    const ago = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
    await s.server.services.ingestor.import(p, {
      events: [
        { event: 'a', distinct_id: 'x', timestamp: ago(800) },
        { event: 'b', distinct_id: 'x', timestamp: ago(200) },
        { event: 'c', distinct_id: 'x', timestamp: ago(2) },
      ],
    });
    await s.server.services.ingestor.flush();
    const events = async (range: Record<string, string>) =>
      (await s.api('POST', `/api/projects/${p}/query/`, { query: { kind: 'EventsQuery', select: ['event'], ...range } })).body.results.map((r: string[]) => r[0]);
    expect(await events({ after: 'all' })).toEqual(['a', 'b', 'c']);
    expect(await events({ after: 'all', before: '-1y' })).toEqual(['a']);
    expect(await events({ after: '-4y', before: '-1y' })).toEqual(['a']);
    expect(await events({ after: '-1y' })).toEqual(['b', 'c']);
    expect(await events({ after: '-7d', before: '-1d' })).toEqual(['c']);
    expect(await events({})).toEqual([]);
  });

  // reference §4.2: the detail of a HogQL syntax error is the parser's message alone (str() of PostHog's SyntaxError)
  it.each<[string, string]>([
    ['SELEC 1', "mismatched input 'SELEC' expecting {SELECT, WITH, '{', '(', '<'}"],
    ['select event from events where', "no viable alternative at input 'select event from events where'"],
  ])('a HogQL syntax error (%s): 400 hogql_syntax_error, the detail the parser’s message', async (query, detail) => {
    const r = await s.api('POST', Q, { query: { kind: 'HogQLQuery', query } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ type: 'validation_error', code: 'hogql_syntax_error', detail, attr: null });
  });

  // reference §9.2: POST …/query/upgrade/ answers {query} migrated to the latest schema, without running it
  it('POST query/upgrade/: {query} as migrated (a current HogQLQuery unchanged), under both prefixes; nothing runs', async () => {
    const query = { kind: 'HogQLQuery', query: 'select event from events where {filters}', filters: { dateRange: { date_from: '-7d' } } };
    for (const prefix of ['projects', 'environments']) {
      const p = Q.split('/')[3];
      const r = await s.api('POST', `/api/${prefix}/${p}/query/upgrade/`, { query });
      expect([r.status, r.body]).toEqual([200, { query }]);
    }
  });
});

describe('the actions list (test_action.py; ActionViewSet.list: Response({"results": …}), ordering -last_calculated_at, name)', () => {
  it('not paginated: every live action (more than a page of 100), newest first; an update does not move one; limit is no parameter', async () => {
    const p = await newProject(s, 'rest-compat-11 actions');
    const base = `/api/projects/${p}/actions/`;
    const made: number[] = [];
    // names fall as actions are made: creations within one millisecond are ordered by name, the same way
    for (let i = 0; i < 102; i++) made.push((await s.api('POST', base, { name: `action ${999 - i}`, steps: [{ event: 'sign up' }] })).body.id);
    expect((await s.api('PATCH', `${base}${made[1]}/`, { deleted: true })).status).toBe(200);
    expect((await s.api('PATCH', `${base}${made[0]}/`, { name: 'renamed first' })).status).toBe(200);
    const r = await s.api('GET', base);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['results']);
    expect(r.body.results.map((a: { id: number }) => a.id)).toEqual(made.filter((id) => id !== made[1]).reverse());
    expect((await s.api('GET', `${base}?limit=1&offset=5`)).body.results).toHaveLength(101);
  });
});

describe('PersonViewSet.update_property (test_person.py)', () => {
  let base: string;
  let uuid: string;
  beforeAll(async () => {
    const p = await newProject(s, 'rest-compat-11 persons');
    base = `/api/projects/${p}/persons/`;
    await s.server.services.ingestor.import(p, { persons: [{ distinct_ids: ['first', 'second'], properties: { email: 'a@example.com' } }] });
    await s.server.services.ingestor.flush();
    uuid = (await s.api('GET', `${base}?distinct_id=second`)).body.results[0].uuid;
  });

  it('{key, value}: 202 with an empty body; the property is set through a $set event of the first distinct id, the others stay', async () => {
    const r = await s.api('POST', `${base}${uuid}/update_property/`, { key: 'foo', value: 'bar' });
    expect([r.status, r.text]).toEqual([202, '']);
    expect((await s.api('POST', `${base}${uuid}/update_property`, { key: 'n', value: 0 })).status).toBe(202);
    await s.server.services.ingestor.flush();
    expect((await s.api('GET', `${base}${uuid}/`)).body.properties).toEqual({ email: 'a@example.com', foo: 'bar', n: 0 });
    const events = await s.api('GET', `${base.replace('persons', 'events')}?event=%24set&orderBy=${encodeURIComponent('["timestamp"]')}`);
    expect(events.body.results.map((e: { distinct_id: string; properties: { $set: unknown } }) => [e.distinct_id, e.properties.$set])).toEqual([
      ['first', { foo: 'bar' }],
      ['first', { n: 0 }],
    ]);
  });

  // PostHog's hand-written answer: code and detail the other way round from DRF's "required" error
  it.each<[string, Record<string, unknown>, string]>([
    ['no value', { key: 'foo' }, 'value'],
    ['a null value', { key: 'foo', value: null }, 'value'],
    ['no key', { value: 'bar' }, 'key'],
    ['nothing', {}, 'value'],
  ])('%s: 400 {"attr", "code": "This field is required.", "detail": "required"}, before the person is looked up', async (_what, body, attr) => {
    const want = { type: 'validation_error', code: 'This field is required.', detail: 'required', attr };
    const r = await s.api('POST', `${base}${uuid}/update_property/`, body);
    expect([r.status, r.body]).toEqual([400, want]);
    const unknown = await s.api('POST', `${base}00000000-0000-4000-8000-000000000000/update_property/`, body);
    expect([unknown.status, unknown.body]).toEqual([400, want]);
  });

  it('an unknown person is a 404', async () => {
    const r = await s.api('POST', `${base}00000000-0000-4000-8000-000000000000/update_property/`, { key: 'foo', value: 'bar' });
    expect(r.status).toBe(404);
  });
});

describe('QueryRequest.limit_context (reference §9.1: "posthog_ai" | null)', () => {
  it.each([null, 'posthog_ai'])('%j is a valid envelope: the query runs', async (limit_context) => {
    const r = await s.api('POST', Q, { query: { kind: 'HogQLQuery', query: "select 'ai'" }, limit_context });
    expect([r.status, r.body.results]).toEqual([200, [['ai']]]);
  });

  it('any other value is a 400 naming limit_context', async () => {
    const r = await s.api('POST', Q, { query: { kind: 'HogQLQuery', query: "select 'ai'" }, limit_context: 'export' });
    expect([r.status, r.body.type, r.body.code, r.body.attr]).toEqual([400, 'invalid_request', 'parse_error', 'limit_context']);
  });
});

describe('test_query.py, EventsQuery hogql filters', () => {
  it('test_hogql_property_filter: a hogql property filter with %s in its text is an expression, never a format string', async () => {
    const select = ['event', 'distinct_id', 'properties.key', "'a%sd'", "concat(event, ' ', properties.key)"];
    const count = async (properties?: unknown[]) => {
      const r = await s.api('POST', Q, { query: { kind: 'EventsQuery', select, after: 'all', ...(properties ? { properties } : {}) } });
      expect([r.status, r.body.detail]).toEqual([200, undefined]);
      return r.body.results.length;
    };
    expect(await count()).toBe(4);
    expect(await count([{ type: 'hogql', key: "'a%sd' == 'foo'" }])).toBe(0);
    expect(await count([{ type: 'hogql', key: "'a%sd' == 'a%sd'" }])).toBe(4);
    expect(await count([{ type: 'hogql', key: "properties.key == 'test_val2'" }])).toBe(2);
  });

});
