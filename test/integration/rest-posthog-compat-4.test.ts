/**
 * The insights REST API against PostHog's posthog/api/test/test_insight.py, fourth batch (the earlier ones are
 * rest-posthog-compat.test.ts, -2 and -3, and insights-api.test.ts): list filters read as PostHog reads them
 * (presence-only `favorited` and `user`, `created_by` forms, exact `short_id`), query schema errors (reference §2.1),
 * the `refresh` modes with the cache fields (§2.4), and project isolation of every lookup. Each case names the
 * PostHog test or the reference section it ports. The persons cases read the engine: they live in
 * test/helpers/rest-compat-4.ts and run on ClickHouse too (rest-posthog-compat-4.clickhouse.test.ts); the insight
 * cases only run insight queries the runners already test on ClickHouse.
 */
import { Insight, User } from '../../src/store/entities';
import { describeRestCompat4Persons } from '../helpers/rest-compat-4';
import { newProject, startServer, type TestServer } from '../helpers/server';

let s: TestServer;

const trends = (extra: Record<string, unknown> = {}) => ({
  kind: 'InsightVizNode',
  source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], ...extra },
});

beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

// the persons cases on DuckDB (ClickHouse: rest-posthog-compat-4.clickhouse.test.ts)
describeRestCompat4Persons('DuckDB', () => s);

const insightsOf = (p: number) => `/api/projects/${p}/insights/`;
async function make(p: number, body: Record<string, unknown>): Promise<{ id: number; short_id: string }> {
  const r = await s.api('POST', insightsOf(p), { query: trends(), ...body });
  expect(r.status).toBe(201);
  return r.body;
}
const names = async (p: number, qs: string): Promise<string[]> => {
  const r = await s.api('GET', `${insightsOf(p)}?${qs}`);
  expect(r.status).toBe(200);
  return r.body.results.map((x: { name: string }) => x.name).sort();
};

describe('list filters (test_insight.py, reference §2.3)', () => {
  let p: number;
  let other: number;
  beforeAll(async () => {
    p = await newProject(s, 'compat4 list');
    await make(p, { name: 'fav', favorited: true });
    await make(p, { name: 'plain' });
    const theirs = await make(p, { name: 'theirs' });
    // another user of the organization made this one (Quarry's keys all belong to the bootstrap user)
    const users = s.server.services.store.db.getRepository(User);
    other = (await users.save(users.create({ email: 'other@compat4.test', name: 'Other' }))).id;
    await s.server.services.store.db.getRepository(Insight).update({ id: theirs.id }, { created_by_id: other });
  });

  it.each(['favorited', 'favorited=true', 'favorited=false', 'favorited=0', 'favorited=anything'])(
    'test_get_favorited_insight_items: ?%s selects the favorites (PostHog filters on the parameter’s presence)',
    async (qs) => {
      expect(await names(p, qs)).toEqual(['fav']);
    },
  );

  it.each(['user', 'user=true', 'user=false'])('?%s: the caller’s own insights, whatever the value (presence, as PostHog)', async (qs) => {
    expect(await names(p, qs)).toEqual(['fav', 'plain']);
  });

  it('test_listing_insights_by_created_by: a JSON array of user ids, or one id (older clients)', async () => {
    expect(await names(p, `created_by=${encodeURIComponent(`[${other}]`)}`)).toEqual(['theirs']);
    expect(await names(p, `created_by=${other}`)).toEqual(['theirs']);
    expect(await names(p, `created_by=${encodeURIComponent(`[1,${other}]`)}`)).toEqual(['fav', 'plain', 'theirs']);
    expect(await names(p, `created_by=${encodeURIComponent('[]')}`)).toEqual([]);
    // the basic serializer carries the creator too
    const basic = await s.api('GET', `${insightsOf(p)}?basic=true&created_by=${other}`);
    expect(basic.body.results[0].created_by).toMatchObject({ id: other, email: 'other@compat4.test' });
  });

  it('test_get_insight_by_short_id: ?short_id= is an exact match, within the project', async () => {
    const mine = await make(p, { name: 'by short id' });
    expect(await names(p, `short_id=${mine.short_id}`)).toEqual(['by short id']);
    const flipped = mine.short_id.replace(/[a-zA-Z]/, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
    expect(await names(p, `short_id=${flipped}`)).toEqual([]);
    expect(await names(p, `short_id=${mine.short_id.slice(0, 4)}`)).toEqual([]);
    const elsewhere = await newProject(s, 'compat4 short id elsewhere');
    expect(await names(elsewhere, `short_id=${mine.short_id}`)).toEqual([]);
    await s.api('PATCH', `${insightsOf(p)}${mine.id}/`, { deleted: true });
  });

  it('search matches tag names too (reference §2.3: name, derived_name, description and tags)', async () => {
    await make(p, { name: 'tagged', tags: ['Growth-Team'] });
    expect(await names(p, 'search=growth-team')).toEqual(['tagged']);
    expect(await names(p, 'search=GROWTH')).toEqual(['tagged']);
  });
});

describe('query errors (test_insight.py, reference §2.1)', () => {
  it('a query that fails the query schema: 400 parse_error naming the field; nothing is created or changed', async () => {
    const p = await newProject(s, 'compat4 errors');
    const bad = await s.api('POST', insightsOf(p), { name: 'bad', query: trends({ interval: 'fortnight' }) });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ type: 'invalid_request', code: 'parse_error', attr: 'query__source__interval' });
    const unknownKind = await s.api('POST', insightsOf(p), { query: { kind: 'InsightVizNode', source: { kind: 'TomatoSoupQuery' } } });
    expect(unknownKind.body).toMatchObject({ code: 'parse_error', attr: 'query__source__kind' });
    expect((await s.api('GET', insightsOf(p))).body.count).toBe(0);

    const ok = await make(p, { name: 'good' });
    for (const method of ['PATCH', 'PUT']) {
      const r = await s.api(method, `${insightsOf(p)}${ok.id}/`, { name: 'renamed', query: { kind: 'InsightVizNode', source: { kind: 'TrendsQuery' } } });
      expect([r.status, r.body.code, r.body.attr]).toEqual([400, 'parse_error', 'query__source__series']);
    }
    const kept = await s.api('GET', `${insightsOf(p)}${ok.id}/`);
    expect([kept.body.name, kept.body.query]).toEqual(['good', trends()]);
    // no query on create: an insight without one (PostHog's query is required=False, allow_null=True)
    expect((await s.api('POST', insightsOf(p), { name: 'none', filters: {} })).body).toMatchObject({ name: 'none', query: null, filters: {}, result: null });
  });
});

describe('refresh and the cache fields (test_insight.py test_insight_refreshing_query, reference §2.4)', () => {
  let p: number;
  let id: number;
  const get = async (qs = '') => {
    const r = await s.api('GET', `${insightsOf(p)}${id}/${qs}`);
    expect(r.status).toBe(200);
    return r.body;
  };
  beforeAll(async () => {
    p = await newProject(s, 'compat4 refresh');
    await s.server.services.ingestor.import(p, { events: [{ event: '$pageview', distinct_id: 'u1', timestamp: new Date(Date.now() - 3_600_000).toISOString() }] });
    await s.server.services.ingestor.flush();
    id = (await make(p, { name: 'refreshing' })).id;
  });

  it('basic=true never computes, whatever refresh says; force_cache (the default) answers a miss as nulls', async () => {
    const basic = await get('?basic=true&refresh=force_blocking');
    expect(basic).not.toHaveProperty('result');
    expect(basic.last_refresh).toBeNull();
    const miss = await get();
    expect(miss).toMatchObject({ result: null, last_refresh: null, is_cached: false, cache_target_age: null, next_allowed_client_refresh: null });
  });

  it('blocking computes on a miss, then reuses the fresh result; force_blocking and refresh=true recompute', async () => {
    const first = await get('?refresh=blocking');
    expect(first.is_cached).toBe(false);
    expect(first.result[0].count).toBe(1);
    const lastRefresh = Date.parse(first.last_refresh);
    // the cache fields come from the same computation: the target age and the next allowed refresh lie after it
    expect(Date.parse(first.cache_target_age)).toBeGreaterThan(lastRefresh);
    expect(Date.parse(first.next_allowed_client_refresh)).toBeGreaterThan(lastRefresh);
    const again = await get('?refresh=blocking');
    expect([again.is_cached, again.last_refresh]).toEqual([true, first.last_refresh]);
    const cached = await get();
    expect([cached.is_cached, cached.last_refresh, cached.result]).toEqual([true, first.last_refresh, first.result]);
    for (const qs of ['?refresh=force_blocking', '?refresh=true']) {
      const forced = await get(qs);
      expect(forced.is_cached).toBe(false);
      expect(Date.parse(forced.last_refresh)).toBeGreaterThanOrEqual(lastRefresh);
    }
    // the basic serializer shows when the insight last got a result
    expect((await get('?basic=true')).last_refresh).not.toBeNull();
  });

  it('force_async: a query_status to poll, bound to the insight; the finished result is then the cached one', async () => {
    const started = await get('?refresh=force_async&client_query_id=compat4-async');
    expect(started.query_status).toMatchObject({ id: 'compat4-async', complete: false, insight_id: id });
    await s.server.services.queries.async.wait('compat4-async');
    const polled = await s.api('GET', `/api/projects/${p}/query/compat4-async/`);
    expect(polled.body.query_status).toMatchObject({ complete: true, error: false });
    const after = await get();
    expect(after.is_cached).toBe(true);
    expect(after.result[0].count).toBe(1);
    expect(after.query_status).toBeNull();
  });

  it('test_get_insight_in_dashboard_context: from_dashboard of a dashboard that does not exist is ignored', async () => {
    const r = await get('?from_dashboard=424242');
    expect(r.id).toBe(id);
  });
});

describe('isolation (test_insight.py test_cannot_access_insights_of_another_team-style lookups)', () => {
  it('another project’s insight is a 404 by id and by short_id, for retrieve, update and activity', async () => {
    const a = await newProject(s, 'compat4 iso a');
    const b = await newProject(s, 'compat4 iso b');
    const theirs = await make(a, { name: 'secret' });
    for (const ref of [theirs.id, theirs.short_id]) {
      expect((await s.api('GET', `${insightsOf(b)}${ref}/`)).status).toBe(404);
      expect((await s.api('PATCH', `${insightsOf(b)}${ref}/`, { name: 'stolen' })).status).toBe(404);
      expect((await s.api('GET', `${insightsOf(b)}${ref}/activity/`)).status).toBe(404);
    }
    expect((await s.api('GET', `${insightsOf(a)}${theirs.id}/`)).body.name).toBe('secret');
  });
});

describe('legacy trend CSV export (test_insight.py test_insight_trends_csv, reference §2: `?format=csv`)', () => {
  let p: number;
  beforeAll(async () => {
    p = await newProject(s, 'compat4 csv');
    await s.server.services.ingestor.import(p, {
      events: [
        { event: '$pageview', distinct_id: '1', timestamp: '2012-01-14T03:21:34Z' },
        { event: '$pageview', distinct_id: '2', timestamp: '2012-01-14T03:21:34Z' },
        { event: '$pageview', distinct_id: '2', timestamp: '2012-01-15T04:01:34Z' },
      ],
    });
    await s.server.services.ingestor.flush();
  });
  const trendUrl = (extra: string) =>
    `${insightsOf(p)}trend/?events=${encodeURIComponent(JSON.stringify([{ id: '$pageview', custom_name: 'test custom' }]))}` +
    `&date_from=2012-01-08&date_to=2012-01-15${extra}`;

  it('a line per series (custom name first), a column per day; the insight link first; an attachment name', async () => {
    const r = await s.api('GET', trendUrl('&export_name=Pageview%20count&export_insight_id=test123'), undefined, undefined, { accept: 'text/csv' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(r.headers.get('content-disposition')).toBe('attachment; filename="pageview-count (2012-01-08 - 2012-01-15) from PostHog.csv"');
    const lines = r.text.split(/\r?\n/).filter((l) => l !== '');
    expect(lines).toEqual([
      `${s.url}/insights/test123/`,
      'series,8-Jan-2012,9-Jan-2012,10-Jan-2012,11-Jan-2012,12-Jan-2012,13-Jan-2012,14-Jan-2012,15-Jan-2012',
      'test custom,0,0,0,0,0,0,2,1',
    ]);
  });

  it('?format=csv chooses CSV too (no link line without export_insight_id); a series without a custom name uses its label', async () => {
    const plain = `${insightsOf(p)}trend/?events=${encodeURIComponent(JSON.stringify([{ id: '$pageview' }]))}&date_from=2012-01-13&date_to=2012-01-15&format=csv`;
    const r = await s.api('GET', plain);
    expect(r.headers.get('content-disposition')).toBe('attachment; filename="export (2012-01-13 - 2012-01-15) from PostHog.csv"');
    expect(r.text.split(/\r?\n/).filter((l) => l !== '')).toEqual(['series,13-Jan-2012,14-Jan-2012,15-Jan-2012', '$pageview,0,2,1']);
  });

  it('format=json (or none) keeps the JSON envelope; a format without a renderer is a 404, as DRF', async () => {
    const json = await s.api('GET', trendUrl('&format=json'));
    expect(json.status).toBe(200);
    expect(json.body.result[0].data).toEqual([0, 0, 0, 0, 0, 0, 2, 1]);
    expect((await s.api('GET', trendUrl(''))).body.result[0].data).toEqual([0, 0, 0, 0, 0, 0, 2, 1]);
    expect((await s.api('GET', trendUrl('&format=xml'))).status).toBe(404);
  });
});

describe('legacy trend cohort filters (test_insight.py)', () => {
  let p: number;
  const events = encodeURIComponent(JSON.stringify([{ id: '$pageview' }]));
  const trend = async (properties: unknown[]) => {
    const r = await s.api('GET', `${insightsOf(p)}trend/?events=${events}&date_from=2012-01-08&date_to=2012-01-15&properties=${encodeURIComponent(JSON.stringify(properties))}`);
    expect(r.status).toBe(200);
    return r.body.result.map((x: Record<string, unknown>) => ({ data: x.data, labels: x.labels, count: x.count, label: x.label }));
  };
  beforeAll(async () => {
    p = await newProject(s, 'compat4 cohorts');
    await s.server.services.ingestor.import(p, {
      events: [
        { event: '$pageview', distinct_id: '1', timestamp: '2012-01-14T03:21:34Z' },
        { event: '$pageview', distinct_id: '2', timestamp: '2012-01-13T03:21:34Z' },
      ],
    });
    await s.server.services.ingestor.flush();
  });

  it('test_nonexistent_cohort_is_handled: no error, the answer of a property nobody has', async () => {
    const nobody = await trend([{ type: 'event', key: 'foo', value: 'barabarab' }]);
    expect(nobody[0].count).toBe(0);
    expect(await trend([{ type: 'cohort', key: 'id', value: 2137 }])).toEqual(nobody);
    // another project's cohort is no cohort of this one
    const elsewhere = await newProject(s, 'compat4 cohorts elsewhere');
    const theirs = await s.api('POST', `/api/projects/${elsewhere}/cohorts/`, { name: 'theirs', groups: [{ properties: [{ key: 'x', value: 'y', type: 'person' }] }] });
    expect(theirs.status).toBe(201);
    expect(await trend([{ type: 'cohort', key: 'id', value: theirs.body.id }])).toEqual(nobody);
    // the query API keeps PostHog's HogQL 400 for the same filter
    const q = await s.api('POST', `/api/projects/${p}/query/`, {
      query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], properties: [{ type: 'cohort', key: 'id', value: 2137 }] },
    });
    expect([q.status, q.body.detail]).toEqual([400, 'Could not find cohort with ID 2137']);
  });

  it('test_cohort_without_people_is_handled: a cohort nobody is in matches nothing; a real one still filters', async () => {
    const empty = await s.api('POST', `/api/projects/${p}/cohorts/`, {
      name: 'nobody', groups: [{ properties: [{ key: '$some_prop', value: 'something', type: 'person' }] }],
    });
    expect(empty.status).toBe(201);
    const none = await trend([{ type: 'cohort', key: 'id', value: empty.body.id }]);
    expect(none[0].count).toBe(0);
    const all = await trend([]);
    expect(all[0].count).toBe(2);
    // a missing cohort next to a real filter: the whole AND matches nothing
    expect((await trend([{ type: 'event', key: '$lib', value: 'x', operator: 'is_not' }, { type: 'cohort', key: 'id', value: 999999 }]))[0].count).toBe(0);
  });
});

describe('person property names over many persons (test_person.py test_person_property_names)', () => {
  it('every person counts once, however many batches the persons are read in', async () => {
    const p = await newProject(s, 'compat4 many persons');
    const n = 5003;
    await s.server.services.ingestor.import(p, {
      persons: Array.from({ length: n }, (_, i) => ({ distinct_ids: [`p${i}`], properties: i % 2 ? { odd: true, all: 1 } : { all: 1 } })),
    });
    await s.server.services.ingestor.flush();
    const r = await s.api('GET', `/api/projects/${p}/persons/properties/`);
    expect(r.body).toEqual([
      { name: 'all', count: n },
      { name: 'odd', count: Math.floor(n / 2) },
    ]);
  });
});

describe('insight activity names (test_insight.py)', () => {
  it('test_create_insight_logs_derived_name_if_there_is_no_name: the entry names the derived name; a set name wins', async () => {
    const p = await newProject(s, 'compat4 activity names');
    const made = await make(p, { derived_name: 'pageview count' });
    const activity = async () => (await s.api('GET', `${insightsOf(p)}${made.id}/activity/`)).body.results;
    expect((await activity())[0]).toMatchObject({ activity: 'created', detail: { name: 'pageview count', short_id: made.short_id, changes: null } });
    await s.api('PATCH', `${insightsOf(p)}${made.id}/`, { name: 'My insight' });
    const [updated] = await activity();
    expect(updated).toMatchObject({ activity: 'updated', detail: { name: 'My insight' } });
    expect(updated.detail.changes).toEqual([{ type: 'Insight', action: 'changed', field: 'name', before: null, after: 'My insight' }]);
  });
});

describe('insights as CSV (reference §2: renderers JSON and CSV, `?format=csv`)', () => {
  it('list and retrieve: flattened records (nested keys and list indexes joined by "."), sorted header; other formats 404', async () => {
    const p = await newProject(s, 'compat4 insights csv');
    const a = await make(p, { name: 'first, with comma', tags: ['x', 'y'] });
    await make(p, { name: 'second' });
    const list = await s.api('GET', `${insightsOf(p)}?format=csv&basic=true&order=name`);
    expect(list.status).toBe(200);
    expect(list.headers.get('content-type')).toMatch(/^text\/csv/);
    const [header, ...rows] = list.text.split('\r\n').filter((l) => l !== '');
    const cols = header.split(',');
    expect(cols).toEqual([...cols].sort());
    expect(cols).toEqual(expect.arrayContaining(['id', 'name', 'short_id', 'created_by.email', 'query.kind', 'query.source.series.0.event', 'tags.0', 'tags.1']));
    expect(rows).toHaveLength(2);
    const cell = (row: string, col: string) => row.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, ''))[cols.indexOf(col)];
    expect([cell(rows[0], 'name'), cell(rows[0], 'tags.1'), cell(rows[0], 'query.source.series.0.event')]).toEqual(['"first, with comma"', 'y', '$pageview']);
    expect([cell(rows[1], 'name'), cell(rows[1], 'tags.0')]).toEqual(['second', '']);

    const one = await s.api('GET', `${insightsOf(p)}${a.short_id}/?format=csv`);
    expect(one.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = one.text.split('\r\n').filter((l) => l !== '');
    expect(lines).toHaveLength(2);
    expect(lines[0].split(',')).toEqual(expect.arrayContaining(['id', 'result', 'last_refresh', 'is_cached']));

    expect((await s.api('GET', `${insightsOf(p)}?format=json`)).body.count).toBe(2);
    expect((await s.api('GET', `${insightsOf(p)}?format=xml`)).status).toBe(404);
    expect((await s.api('GET', `${insightsOf(p)}${a.id}/?format=yaml`)).status).toBe(404);
  });
});

describe('persons as CSV (PersonViewSet’s PaginatedCSVRenderer)', () => {
  it('?format=csv: a line per person of the page, properties and distinct ids flattened', async () => {
    const p = await newProject(s, 'compat4 persons csv');
    await s.server.services.ingestor.import(p, {
      persons: [
        { distinct_ids: ['a1', 'a2'], properties: { email: 'a@x.com' }, created_at: '2024-01-02T00:00:00Z' },
        { distinct_ids: ['b1'], properties: { name: 'B' }, created_at: '2024-01-01T00:00:00Z' },
      ],
    });
    await s.server.services.ingestor.flush();
    const r = await s.api('GET', `/api/projects/${p}/persons/?format=csv`);
    expect(r.headers.get('content-type')).toMatch(/^text\/csv/);
    const [header, ...rows] = r.text.split('\r\n').filter((l) => l !== '');
    expect(header.split(',')).toEqual(expect.arrayContaining(['distinct_ids.0', 'distinct_ids.1', 'properties.email', 'properties.name', 'uuid', 'name']));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain('a@x.com');
    expect(rows[1]).toContain('b1');
    expect((await s.api('GET', `/api/projects/${p}/persons/?format=xml`)).status).toBe(404);
  });
});
