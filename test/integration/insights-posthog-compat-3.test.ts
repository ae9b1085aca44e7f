/**
 * Saved insights against PostHog's posthog/api/test/test_insight.py and the reference (posthog-api.md §2, §4), third
 * compatibility pass (the earlier ones: insights-api, insights-legacy-filters and the rest-posthog-compat files). It
 * covers what those leave out: the whole InsightSerializer record and `result` (never `results`), UserBasic, the
 * project's timezone, a trends result's `hogql`, numeric short_ids, the default `order` ordering, `saved`/`basic` read
 * with str_to_bool, search over derived names and its fuzzy "similar" matches, the `insight=JSON` and `feature_flag`
 * list filters, `refresh=async` on a miss and on a stale result, `refresh=True` as Python clients send it, DRF's
 * CharField on name/description, the CSV renderer through format suffixes (`trend.csv/`) and Accept, and the DRF
 * error bodies of the insight routes, and the legacy routes' hogql filters and breakdowns. Each case names the PostHog
 * test or the reference section it follows. One server; the two events are an hour old and only counted; the hogql
 * cases run on the default engine (the filters themselves are pinned on both engines by the property-filter files).
 */
import { Insight } from '../../src/store/entities';
import { newProject, startServer, type TestServer } from '../helpers/server';

let s: TestServer;
let p: number;

const base = (project = p) => `/api/projects/${project}/insights/`;
const trends = (extra: Record<string, unknown> = {}) => ({
  kind: 'InsightVizNode',
  source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '-1d' }, ...extra },
});
const sqlViz = (query: string) => ({ kind: 'DataVisualizationNode', source: { kind: 'HogQLQuery', query } });

async function make(body: Record<string, unknown>, project = p): Promise<Record<string, any>> {
  const r = await s.api('POST', base(project), { query: trends(), ...body });
  expect(r.status).toBe(201);
  return r.body;
}
async function listNames(qs: string, project: number): Promise<string[]> {
  const r = await s.api('GET', `${base(project)}?basic=true&${qs}`);
  expect(r.status).toBe(200);
  return r.body.results.map((i: { name: string | null; derived_name: string | null }) => i.name ?? i.derived_name);
}

beforeAll(async () => {
  s = await startServer();
  p = await newProject(s, 'insights compat 3');
  const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
  await s.server.services.ingestor.import(p, {
    events: [
      { event: '$pageview', distinct_id: 'u1', timestamp: hourAgo, properties: {} },
      { event: '$pageview', distinct_id: 'u2', timestamp: hourAgo, properties: {} },
    ],
  });
  await s.server.services.ingestor.flush();
});
afterAll(() => s.close());

describe('the InsightSerializer record (reference §2.2)', () => {
  // every field of §2.2's table but search_match_type (only when searching)
  const RECORD = [
    'id', 'short_id', 'name', 'derived_name', 'description', 'query', 'filters', 'order', 'deleted', 'dashboards',
    'dashboard_tiles', 'result', 'hasMore', 'columns', 'types', 'hogql', 'last_refresh', 'cache_target_age',
    'next_allowed_client_refresh', 'is_cached', 'query_status', 'timezone', 'resolved_date_range', 'created_at',
    'created_by', 'updated_at', 'last_modified_at', 'last_modified_by', 'tags', 'favorited', 'saved', 'is_sample',
    'effective_restriction_level', 'effective_privilege_level', 'user_access_level', 'alerts', 'last_viewed_at',
    'filters_hash',
  ];

  it('every field on create, retrieve, list and PATCH; the answer is `result`, never the query API’s `results`', async () => {
    const made = await make({ name: 'record' });
    const bodies = [
      made,
      (await s.api('GET', `${base()}${made.id}/`)).body,
      (await s.api('GET', `${base()}${made.id}/?refresh=blocking`)).body,
      (await s.api('GET', `${base()}?short_id=${made.short_id}`)).body.results[0],
      (await s.api('PATCH', `${base()}${made.id}/`, { description: 'patched' })).body,
    ];
    for (const body of bodies) {
      expect(RECORD.filter((k) => !(k in body))).toEqual([]);
      expect(body).not.toHaveProperty('results');
      expect(body).not.toHaveProperty('search_match_type');
      expect(body).toMatchObject({ id: made.id, dashboards: [], dashboard_tiles: [], alerts: [], is_sample: false });
    }
    // the computed answer is under `result`, the same rows as the query API's `results`
    const direct = await s.api('POST', `/api/projects/${p}/query/`, { query: trends().source });
    expect(bodies[2].result).toEqual(direct.body.results);
    expect(bodies[2].result[0].count).toBe(2);
  });

  it('test_created_updated_and_last_modified: created_by and last_modified_by are UserBasic, every key of its serializer', async () => {
    const made = await make({ name: 'who' });
    const USER_BASIC = ['distinct_id', 'email', 'first_name', 'hedgehog_config', 'id', 'is_email_verified', 'last_name', 'role_at_organization', 'uuid'];
    for (const user of [made.created_by, made.last_modified_by]) {
      expect(Object.keys(user).sort()).toEqual(USER_BASIC);
      expect(user).toMatchObject({ id: 1, email: 'admin@localhost', hedgehog_config: null });
    }
    // the activity log names its author by first name and email only (activity_page_response's ActivityLogSerializer,
    // whose entries test_insight.py assert_insight_activity compares whole)
    const activity = (await s.api('GET', `${base()}${made.id}/activity/`)).body.results[0];
    expect(activity.user).toEqual({ first_name: made.created_by.first_name, email: made.created_by.email });
    expect(Object.keys(activity).sort()).toEqual(['activity', 'created_at', 'detail', 'item_id', 'scope', 'user']);
  });

  it('test_insight_refreshing_query-style trends: the result brings its generated hogql with it', async () => {
    const made = await make({ name: 'hogql of trends' });
    const got = (await s.api('GET', `${base()}${made.id}/?refresh=force_blocking`)).body;
    expect(typeof got.hogql).toBe('string');
    expect(got.hogql).toMatch(/\bFROM events\b/i);
    // and the cached answer keeps it
    expect((await s.api('GET', `${base()}${made.id}/`)).body).toMatchObject({ is_cached: true, hogql: got.hogql });
  });

  it('timezone: the project’s, before any result and with one', async () => {
    const tzProject = (await s.api('POST', '/api/projects/', { name: 'compat 3 tz', timezone: 'America/Phoenix' })).body.id;
    const made = await make({ name: 'in Phoenix' }, tzProject);
    expect(made).toMatchObject({ timezone: 'America/Phoenix', result: null });
    const computed = (await s.api('GET', `${base(tzProject)}${made.id}/?refresh=blocking`)).body;
    expect(computed).toMatchObject({ timezone: 'America/Phoenix', is_cached: false });
    expect(computed.result).not.toBeNull();
    expect((await s.api('GET', base(tzProject))).body.results[0].timezone).toBe('America/Phoenix');
  });
});

describe('retrieve by id or short_id (reference §2.1)', () => {
  it('a numeric string is tried as the pk first, then as a short_id', async () => {
    const a = await make({ name: 'pk target' });
    const b = await make({ name: 'numeric short id' });
    const c = await make({ name: 'short id equal to a pk' });
    const repo = s.server.services.store.db.getRepository(Insight);
    // short_ids are read-only: set them as PostHog's (random) generator could have made them
    const numericShort = String(90_000_000 + b.id);
    await repo.update({ id: b.id }, { short_id: numericShort });
    await repo.update({ id: c.id }, { short_id: String(a.id) });
    // a pk wins over a short_id of the same text
    expect((await s.api('GET', `${base()}${a.id}/`)).body.name).toBe('pk target');
    // no pk of that number: the short_id
    const byShort = await s.api('GET', `${base()}${numericShort}/`);
    expect([byShort.status, byShort.body.id, byShort.body.short_id]).toEqual([200, b.id, numericShort]);
    expect((await s.api('PATCH', `${base()}${numericShort}/`, { description: 'by numeric short id' })).body).toMatchObject({ id: b.id, description: 'by numeric short id' });
    // the pk of a deleted insight: its text is still a live insight's short_id
    await s.api('PATCH', `${base()}${a.id}/`, { deleted: true });
    expect((await s.api('GET', `${base()}${a.id}/`)).body).toMatchObject({ id: c.id, name: 'short id equal to a pk' });
  });

  it('both prefixes reach the same rows: a PATCH under /api/environments/ is what /api/projects/ lists', async () => {
    const made = await make({ name: 'env alias' });
    const patched = await s.api('PATCH', `/api/environments/${p}/insights/${made.short_id}/`, { name: 'env alias renamed' });
    expect([patched.status, patched.body.id]).toEqual([200, made.id]);
    expect(await listNames(`short_id=${made.short_id}`, p)).toEqual(['env alias renamed']);
    const envList = (await s.api('GET', `/api/environments/${p}/insights/?short_id=${made.short_id}`)).body;
    expect([envList.count, envList.results[0].id]).toEqual([1, made.id]);
  });
});

describe('list filters and ordering (reference §2.3)', () => {
  let q: number;
  beforeAll(async () => {
    q = await newProject(s, 'compat 3 list');
    await make({ name: 'ordered second', order: 2 }, q);
    await make({ name: 'unordered' }, q);
    await make({ name: 'ordered first', order: 1 }, q);
    await make({ name: 'ordered minus', order: -5 }, q);
  });

  it('no `order` parameter: by the insights’ `order`, those without one after them', async () => {
    expect(await listNames('', q)).toEqual(['ordered minus', 'ordered first', 'ordered second', 'unordered']);
    expect(await listNames('order=-order', q)).toEqual(['ordered second', 'ordered first', 'ordered minus', 'unordered']);
  });

  it('test_get_saved_insight_items: saved and basic are read with str_to_bool — y/yes/t/true/on/1 in any casing, anything else false', async () => {
    const sv = await newProject(s, 'compat 3 saved');
    await make({ name: 'kept', saved: true }, sv);
    await make({ name: 'draft', saved: false }, sv);
    for (const qs of ['saved=true', 'saved=True', 'saved=on', 'saved=y']) expect([qs, await listNames(qs, sv)]).toEqual([qs, ['kept']]);
    for (const qs of ['saved=false', 'saved=0', 'saved=maybe', 'saved=']) expect([qs, await listNames(qs, sv)]).toEqual([qs, ['draft']]);
    const keysOf = async (qs: string) => Object.keys((await s.api('GET', `${base(sv)}?${qs}`)).body.results[0]);
    for (const qs of ['basic=yes', 'basic=True', 'basic=1']) expect(await keysOf(qs)).not.toContain('result');
    for (const qs of ['basic=no', 'basic=0', 'basic=maybe', 'basic=']) expect(await keysOf(qs)).toContain('result');
  });

  it('search_match_type is only set when searching', async () => {
    const plain = (await s.api('GET', base(q))).body.results;
    expect(plain.filter((i: object) => 'search_match_type' in i)).toEqual([]);
    const found = (await s.api('GET', `${base(q)}?search=ordered`)).body.results;
    expect(found.map((i: { search_match_type: string }) => i.search_match_type)).toEqual(['exact', 'exact', 'exact', 'exact']);
  });

  it('search covers derived_name: an unnamed insight is found by its generated title', async () => {
    const r = await s.api('POST', base(q), { query: trends({ series: [{ kind: 'EventsNode', event: 'purchase_completed' }] }) });
    expect(r.body).toMatchObject({ name: null, derived_name: 'purchase_completed count' });
    const found = (await s.api('GET', `${base(q)}?search=PURCHASE_comp`)).body;
    expect(found.results.map((i: { id: number }) => i.id)).toEqual([r.body.id]);
  });

  it('search: a misspelt word is a fuzzy trigram match, "similar", after the exact matches', async () => {
    const fuzzy = await newProject(s, 'compat 3 fuzzy');
    // series of another event: their derived names ("signup count") are no match either way
    const query = trends({ series: [{ kind: 'EventsNode', event: 'signup' }] });
    await make({ name: 'Weekly pageviews', query }, fuzzy);
    await make({ name: 'Pagevew typo board', query }, fuzzy);
    await make({ name: 'Revenue', query }, fuzzy);
    const r = await s.api('GET', `${base(fuzzy)}?search=pagevew`);
    expect(r.body.results.map((i: { name: string; search_match_type: string }) => [i.name, i.search_match_type])).toEqual([
      ['Pagevew typo board', 'exact'],
      ['Weekly pageviews', 'similar'],
    ]);
    expect(r.body.count).toBe(2);
    // nothing alike: no match; the derived name is searched fuzzily too
    expect((await s.api('GET', `${base(fuzzy)}?search=zzqx`)).body.count).toBe(0);
    const unnamed = await make({ query }, fuzzy);
    const byDerived = (await s.api('GET', `${base(fuzzy)}?search=signpu`)).body.results;
    expect(byDerived.map((i: { id: number; search_match_type: string }) => [i.id, i.search_match_type])).toContainEqual([unnamed.id, 'similar']);
  });

  it('insight=JSON: query insights of no insight type and not SQL (a table of events), none of the others', async () => {
    const json = await newProject(s, 'compat 3 json');
    await make({ name: 'trend' }, json);
    await make({ name: 'sql', query: sqlViz('SELECT 1') }, json);
    await make({ name: 'events table', query: { kind: 'DataTableNode', source: { kind: 'EventsQuery', select: ['*'] } } }, json);
    await s.api('POST', base(json), { name: 'no query' });
    expect(await listNames('insight=JSON', json)).toEqual(['events table']);
    expect(await listNames('insight=SQL', json)).toEqual(['sql']);
    expect(await listNames('insight=TRENDS', json)).toEqual(['trend']);
  });

  it('feature_flag: insights broken down by the flag or filtered on it, legacy filters included', async () => {
    const ff = await newProject(s, 'compat 3 flags');
    await make({ name: 'by variant', query: trends({ breakdownFilter: { breakdown: '$feature/new-checkout', breakdown_type: 'event' } }) }, ff);
    await make(
      { name: 'filtered', query: trends({ properties: [{ key: '$feature/new-checkout', value: ['test'], operator: 'exact', type: 'event' }] }) },
      ff,
    );
    await make({ name: 'legacy by variant', query: undefined, filters: { insight: 'TRENDS', events: [{ id: '$pageview' }], breakdown: '$feature/new-checkout', breakdown_type: 'event' } }, ff);
    await make({ name: 'other flag', query: trends({ breakdownFilter: { breakdown: '$feature/other', breakdown_type: 'event' } }) }, ff);
    await make({ name: 'no flag' }, ff);
    expect((await listNames('feature_flag=new-checkout', ff)).sort()).toEqual(['by variant', 'filtered', 'legacy by variant']);
    expect(await listNames('feature_flag=nobody', ff)).toEqual([]);
  });
});

describe('refresh=async on retrieve and list (test_insight.py test_insight_refreshing_query_async, reference §2.4)', () => {
  it('a miss: null result and a query_status to poll; stale: the old result while it recomputes; fresh: the cache alone', async () => {
    const a = await newProject(s, 'compat 3 async');
    const ing = s.server.services.ingestor;
    await ing.import(a, { events: [{ event: '$pageview', distinct_id: 'a1', timestamp: '2024-01-01T00:00:00Z', properties: {} }] });
    await ing.flush();
    const made = await make({ name: 'async', query: sqlViz('SELECT count() FROM events') }, a);
    const get = async (qs: string) => (await s.api('GET', `${base(a)}${made.id}/${qs}`)).body;

    const miss = await get('?refresh=async&client_query_id=compat3-miss');
    expect(miss).toMatchObject({ result: null, is_cached: false, query_status: { id: 'compat3-miss', complete: false, insight_id: made.id } });
    await s.server.services.queries.async.wait('compat3-miss');
    expect(await get('')).toMatchObject({ result: [[1]], is_cached: true, query_status: null });

    // new events make the cached answer stale: async answers it at once and recomputes in the background
    await ing.import(a, { events: [{ event: '$pageview', distinct_id: 'a2', timestamp: '2024-01-01T00:00:00Z', properties: {} }] });
    await ing.flush();
    const stale = await get('?refresh=async&client_query_id=compat3-stale');
    expect(stale).toMatchObject({ result: [[1]], is_cached: true, query_status: { id: 'compat3-stale', complete: false } });
    await s.server.services.queries.async.wait('compat3-stale');
    const fresh = await get('?refresh=async');
    expect(fresh).toMatchObject({ result: [[2]], is_cached: true, query_status: null });

    // the list: each insight answers as retrieve does
    const listed = (await s.api('GET', `${base(a)}?refresh=async`)).body.results;
    expect(listed.map((i: { result: unknown; query_status: unknown }) => [i.result, i.query_status])).toEqual([[[[2]], null]]);
  });
});

describe('refresh as Python clients send it (test_insight.py data={"refresh": True}, reference §2.4 `true` = force_blocking)', () => {
  it.each(['True', 'yes', '1'])('refresh=%s computes, as force_blocking', async (value) => {
    const made = await make({ name: `refresh ${value}` });
    const got = await s.api('GET', `${base()}${made.id}/?refresh=${value}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ is_cached: false });
    expect(got.body.result[0].count).toBe(2);
    // force_blocking recomputes even when a fresh result is cached
    expect((await s.api('GET', `${base()}${made.id}/?refresh=${value}`)).body.is_cached).toBe(false);
  });

  it('refresh=False is the default: the cached result or none, never computed', async () => {
    const made = await make({ name: 'refresh False', query: trends({ dateRange: { date_from: '-2d' } }) });
    expect((await s.api('GET', `${base()}${made.id}/?refresh=False`)).body).toMatchObject({ result: null, is_cached: false, last_refresh: null });
  });
});

describe('renderers: JSON and CSV (reference §2), chosen as DRF chooses them', () => {
  it('test_insight_trends_csv: GET …/insights/trend.csv/ (a format suffix) exports the legacy trend as CSV', async () => {
    const events = encodeURIComponent(JSON.stringify([{ id: '$pageview', custom_name: 'test custom' }]));
    const r = await s.api('GET', `${base()}trend.csv/?events=${events}&export_name=Pageview count&export_insight_id=test123`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(r.headers.get('content-disposition')).toMatch(/^attachment; filename="pageview-count \(.+\) from PostHog\.csv"$/);
    const lines = r.text.split(/\r?\n/);
    expect(lines[0]).toBe(`${s.url}/insights/test123/`);
    expect(lines[1]).toMatch(/^series,/);
    expect(lines[2]).toMatch(/^test custom,/);
    // the row's values add up to the two pageviews of the last hour
    expect(lines[2].split(',').slice(1).map(Number).reduce((a, b) => a + b, 0)).toBe(2);
    // the JSON suffix is the JSON envelope; a suffix no renderer has is DRF's 404
    expect((await s.api('GET', `${base()}trend.json/?events=${events}`)).body.result[0].count).toBe(2);
    expect((await s.api('GET', `${base()}trend.xml/?events=${events}`)).status).toBe(404);
  });

  it('a format suffix on retrieve and list: <id>.csv/, <short_id>.json, insights.csv; the suffix wins over ?format=', async () => {
    const made = await make({ name: 'suffixed' });
    const csv = await s.api('GET', `${base()}${made.id}.csv/`);
    expect([csv.status, csv.headers.get('content-type')?.startsWith('text/csv')]).toEqual([200, true]);
    expect(csv.text.split('\r\n')[0].split(',')).toEqual(expect.arrayContaining(['id', 'name', 'short_id']));
    expect(csv.text).toContain(made.short_id);
    const json = await s.api('GET', `${base()}${made.short_id}.json?format=csv`);
    expect([json.status, json.body.id]).toEqual([200, made.id]);
    expect((await s.api('GET', `${base()}${made.id}.xml/`)).status).toBe(404);
    // the list too: insights.csv is the CSV of the page, insights.json/ the JSON envelope
    const listCsv = await s.api('GET', `/api/environments/${p}/insights.csv?short_id=${made.short_id}`);
    expect([listCsv.status, listCsv.text.split('\r\n').filter(Boolean).length]).toEqual([200, 2]);
    expect(listCsv.text).toContain(made.short_id);
    expect((await s.api('GET', `/api/projects/${p}/insights.json/?short_id=${made.short_id}`)).body.results.map((i: { id: number }) => i.id)).toEqual([made.id]);
    expect((await s.api('GET', `/api/projects/${p}/insights.xml`)).status).toBe(404);
  });

  let made: Record<string, any> | undefined;
  it.each<[string, 'csv' | 'json']>([
    ['text/csv', 'csv'],
    ['text/csv, */*', 'csv'],
    ['text/*', 'csv'],
    ['application/json, text/csv', 'json'],
    // DRF ignores q: both are type/subtype, and the JSON renderer comes first
    ['text/csv;q=1, application/json;q=0.1', 'json'],
    ['*/*', 'json'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'json'],
  ])('Accept: %s on list and retrieve → %s (DRF content negotiation)', async (accept, format) => {
    made ??= await make({ name: 'negotiated' });
    for (const path of [`${base()}?short_id=${made.short_id}`, `${base()}${made.id}/`]) {
      const r = await s.api('GET', path, undefined, undefined, { accept });
      expect([path, r.status, r.headers.get('content-type')?.split(';')[0]]).toEqual([path, 200, format === 'csv' ? 'text/csv' : 'application/json']);
    }
    // ?format= decides over the header
    const forced = await s.api('GET', `${base()}${made.id}/?format=json`, undefined, undefined, { accept });
    expect(forced.body.id).toBe(made.id);
  });
});

describe('create (reference §2.1 body)', () => {
  it('test_insight_query.py: a HogQL insight is saved as long as its schema holds; its SQL is only checked when it runs', async () => {
    const made = await make({ name: 'bad sql', query: sqlViz('SELEC 1 FROM') });
    expect(made).toMatchObject({ result: null, query: sqlViz('SELEC 1 FROM') });
    const run = await s.api('GET', `${base()}${made.id}/?refresh=blocking`);
    expect([run.status, run.body.type, run.body.code]).toEqual([400, 'validation_error', 'hogql_syntax_error']);
    // the cache-only default never runs it
    expect((await s.api('GET', `${base()}${made.id}/`)).body).toMatchObject({ result: null, query_status: null });
  });

  it('name, derived_name and description are DRF CharFields: whitespace trimmed, a number taken as text, other types refused', async () => {
    const made = await make({ name: '  Padded name \n', description: 7, derived_name: '\t' });
    expect(made).toMatchObject({ name: 'Padded name', description: '7', derived_name: '' });
    // max_length counts what is left after trimming
    const padded = await s.api('POST', base(), { query: trends(), name: `  ${'x'.repeat(400)}  ` });
    expect([padded.status, padded.body.name]).toEqual([201, 'x'.repeat(400)]);
    for (const bad of [true, ['a'], { a: 1 }]) {
      const r = await s.api('PATCH', `${base()}${made.id}/`, { description: bad });
      expect([r.status, r.body]).toEqual([400, { type: 'validation_error', code: 'invalid_input', detail: 'Not a valid string.', attr: 'description' }]);
    }
    expect((await s.api('PATCH', `${base()}${made.id}/`, { name: 12.5 })).body.name).toBe('12.5');
  });

  it('_create_in_folder is accepted (the file system placement PostHog’s UI sends) and changes nothing else', async () => {
    const r = await s.api('POST', base(), { name: 'foldered', query: trends(), _create_in_folder: 'Unfiled/Insights' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: 'foldered', saved: true, deleted: false, filters: {} });
    expect(r.body).not.toHaveProperty('_create_in_folder');
  });
});

describe('error bodies of the insight routes (reference §0, §4.2)', () => {
  it.each([
    ['PUT', 'list'],
    ['PATCH', 'list'],
    ['POST', 'one'],
  ])('%s on the %s route → 405 method_not_allowed, as DRF', async (method, which) => {
    const made = await make({ name: `405 ${method} ${which}` });
    const path = which === 'list' ? base() : `${base()}${made.id}/`;
    const r = await s.api(method, path, {});
    expect([r.status, r.body]).toEqual([405, { type: 'invalid_request', code: 'method_not_allowed', detail: `Method "${method}" not allowed.`, attr: null }]);
  });

  it.each(['abc', '1e3'])('a project id that is no number (%s) → 404 Project not found.', async (id) => {
    for (const path of [`/api/projects/${id}/insights/`, `/api/environments/${id}/insights/1/`]) {
      const r = await s.api('GET', path);
      expect([path, r.status, r.body]).toEqual([path, 404, { type: 'invalid_request', code: 'not_found', detail: 'Project not found.', attr: null }]);
    }
  });
});

describe('update, soft delete and the list (test_insight.py test_update_insight / test_soft_delete_can_be_reversed, DRF ModelSerializer)', () => {
  it('PATCH ignores read-only fields (DRF drops them) and unknown keys; the writable ones change', async () => {
    const made = await make({ name: 'read only on patch' });
    const r = await s.api('PATCH', `${base()}${made.id}/`, {
      id: made.id + 1000, short_id: 'zzzzzzzz', created_at: '2001-01-01T00:00:00Z', created_by: null, last_refresh: '2001-01-01T00:00:00Z',
      result: [1], is_cached: true, timezone: 'Asia/Tokyo', not_a_field: 1, description: 'changed',
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: made.id, short_id: made.short_id, created_at: made.created_at, created_by: made.created_by, description: 'changed' });
    expect(r.body).not.toHaveProperty('not_a_field');
    expect(r.body.timezone).not.toBe('Asia/Tokyo');
  });

  it('an unknown key in a create body is ignored: 201', async () => {
    const r = await s.api('POST', base(), { name: 'extra key', query: trends(), not_a_field: 'x' });
    expect(r.status).toBe(201);
    expect(r.body).not.toHaveProperty('not_a_field');
  });

  it('name, description and derived_name are null=True, blank=True: null and "" are both kept', async () => {
    const made = await make({ name: 'to clear', description: 'd' });
    const cleared = await s.api('PATCH', `${base()}${made.id}/`, { name: null, description: '', derived_name: null });
    expect([cleared.status, cleared.body.name, cleared.body.description, cleared.body.derived_name]).toEqual([200, null, '', null]);
    const blank = await s.api('PATCH', `${base()}${made.id}/`, { name: '' });
    expect([blank.status, blank.body.name]).toEqual([200, '']);
  });

  it('tags, favorited and name each change alone; the others stay', async () => {
    const made = await make({ name: 'partial', tags: ['a'], favorited: true });
    const r = await s.api('PATCH', `${base()}${made.id}/`, { name: 'partial renamed' });
    expect(r.body).toMatchObject({ name: 'partial renamed', tags: ['a'], favorited: true, description: null });
    const r2 = await s.api('PATCH', `${base()}${made.id}/`, { favorited: false });
    expect(r2.body).toMatchObject({ name: 'partial renamed', tags: ['a'], favorited: false });
  });

  it('a soft-deleted insight leaves every list filter (short_id, search, favorited, insight kind) and comes back when restored', async () => {
    const d = await newProject(s, 'compat 3 deleted');
    const made = await make({ name: 'gone for now', favorited: true }, d);
    await make({ name: 'stays' }, d);
    expect((await s.api('PATCH', `${base(d)}${made.id}/`, { deleted: true })).body.deleted).toBe(true);
    for (const qs of [`short_id=${made.short_id}`, 'search=gone', 'favorited=true', 'insight=TRENDS', '']) {
      expect([qs, (await listNames(qs, d)).includes('gone for now')]).toEqual([qs, false]);
    }
    expect((await s.api('GET', base(d))).body.count).toBe(1);
    const back = await s.api('PATCH', `${base(d)}${made.id}/`, { deleted: false });
    expect([back.status, back.body.deleted]).toEqual([200, false]);
    expect(await listNames(`short_id=${made.short_id}`, d)).toEqual(['gone for now']);
    expect((await s.api('GET', base(d))).body.count).toBe(2);
  });

  it('test_soft_delete_cannot_be_reversed_for_another_team: PATCH {deleted: false} through this project is a 404; it stays deleted there', async () => {
    const other = await newProject(s, 'compat 3 other team');
    const theirs = await make({ name: 'other team deleted' }, other);
    expect((await s.api('PATCH', `${base(other)}${theirs.id}/`, { deleted: true })).status).toBe(200);
    const r = await s.api('PATCH', `${base()}${theirs.id}/`, { deleted: false });
    expect([r.status, r.body]).toEqual([404, { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null }]);
    // still deleted in its own project: out of its list, and restorable only there
    expect(await listNames('', other)).toEqual([]);
    expect((await s.api('PATCH', `${base(other)}${theirs.id}/`, { deleted: false })).body.deleted).toBe(false);
  });

  it('order=created_at / -created_at / -last_modified_at (Django order_by of the field)', async () => {
    const o = await newProject(s, 'compat 3 order by');
    const first = await make({ name: 'first made' }, o);
    await make({ name: 'second made' }, o);
    expect(await listNames('order=created_at', o)).toEqual(['first made', 'second made']);
    expect(await listNames('order=-created_at', o)).toEqual(['second made', 'first made']);
    await new Promise((r) => setTimeout(r, 5));
    await s.api('PATCH', `${base(o)}${first.id}/`, { name: 'first made, renamed' });
    expect(await listNames('order=-last_modified_at', o)).toEqual(['first made, renamed', 'second made']);
    expect(await listNames('order=-created_at', o)).toEqual(['second made', 'first made, renamed']);
  });
});

describe('datetimes as DRF renders them (test_insight.py test_insight_refreshing_query: "2012-01-15T04:01:34Z")', () => {
  // DRF: isoformat() with +00:00 as Z; Python prints microseconds as six digits, and none when they are zero
  const DRF_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$/;
  it('created_at, updated_at, last_modified_at, last_viewed_at, last_refresh and the cache times', async () => {
    const made = await make({ name: 'drf times' });
    await s.api('POST', `${base()}viewed/`, { insight_ids: [made.id] });
    const got = (await s.api('GET', `${base()}${made.id}/?refresh=blocking`)).body;
    const listed = (await s.api('GET', `${base()}?short_id=${made.short_id}&basic=true`)).body.results[0];
    for (const [where, body] of [['create', made], ['retrieve', got], ['basic list', listed]] as const) {
      for (const k of ['created_at', 'updated_at', 'last_modified_at']) expect([where, k, body[k]]).toEqual([where, k, expect.stringMatching(DRF_TIME)]);
    }
    for (const k of ['last_viewed_at', 'last_refresh', 'cache_target_age', 'next_allowed_client_refresh']) expect([k, got[k]]).toEqual([k, expect.stringMatching(DRF_TIME)]);
    expect(listed.last_refresh).toBe(got.last_refresh);
    // the same instant as before, only written as DRF writes it
    expect(Date.parse(got.created_at)).toBe(Date.parse(made.created_at));
    // the activity log's entries too (ActivityLogSerializer)
    const activity = (await s.api('GET', `${base()}${made.id}/activity/`)).body.results;
    for (const entry of activity) expect(entry.created_at).toMatch(DRF_TIME);
  });
});

describe('legacy routes with hogql filters and breakdowns (test_insight.py test_insight_*_hogql_*)', () => {
  // PostHog's fixture: person "1" (fish: "there is no fish") sends 25 pageviews with int_value 0..24 on 2012-01-14;
  // the tests freeze time on 2012-01-15, whose default -7d range is given here as dates
  let hp: number;
  const RANGE = { date_from: '2012-01-08', date_to: '2012-01-15' };
  const qs = (params: Record<string, unknown>) =>
    new URLSearchParams(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])).toString();
  const trend = (params: Record<string, unknown>) => s.api('GET', `${base(hp)}trend/?${qs({ events: [{ id: '$pageview' }], ...RANGE, ...params })}`);
  beforeAll(async () => {
    hp = await newProject(s, 'insights compat 3 hogql');
    await s.server.services.ingestor.import(hp, {
      persons: [{ distinct_ids: ['1'], properties: { fish: 'there is no fish' } }, { distinct_ids: ['2'] }],
      events: [
        ...Array.from({ length: 25 }, (_, i) => ({ event: '$pageview', distinct_id: '1', timestamp: '2012-01-14T03:21:34Z', properties: { int_value: i } })),
        { event: 'user signed up', distinct_id: '2', timestamp: '2012-01-15T04:01:34Z', properties: { int_value: 1 } },
        { event: 'user did things', distinct_id: '2', timestamp: '2012-01-15T04:01:35Z', properties: { int_value: 20 } },
      ],
    });
    await s.server.services.ingestor.flush();
  });

  it('test_insight_trend_hogql_global_filters: a hogql property over the event and one over the person', async () => {
    const r = await trend({ properties: [{ key: "toInt(properties.int_value) > 10 and 'bla' != 'a%sd'", type: 'hogql' }] });
    expect(r.status).toBe(200);
    expect([r.body.result[0].count, r.body.result[0].data]).toEqual([14, [0, 0, 0, 0, 0, 0, 14, 0]]);
    const fish = await trend({ properties: [{ key: "like(person.properties.fish, '%fish%')", type: 'hogql' }] });
    expect(fish.body.result[0].count).toBe(25);
  });

  it('test_insight_trend_hogql_local_filters: the same filters on the series', async () => {
    const local = (key: string) => trend({ events: [{ id: '$pageview', properties: [{ key, type: 'hogql' }] }] });
    expect((await local("toInt(properties.int_value) < 10 and 'bla' != 'a%sd'")).body.result[0].count).toBe(10);
    expect((await local("like(person.properties.fish, '%fish%')")).body.result[0].count).toBe(25);
  });

  it('test_insight_trend_hogql_breakdown: breakdown_type hogql breaks down by the expression', async () => {
    const r = await trend({ breakdown_type: 'hogql', breakdown: "if(toInt(properties.int_value) < 10, 'le%ss', 'more')" });
    expect(r.status).toBe(200);
    const rows = [...r.body.result].sort((a, b) => String(a.label).localeCompare(String(b.label)));
    expect(rows.map((x: { label: string; count: number; breakdown_value: string }) => [x.label, x.breakdown_value, x.count])).toEqual([
      ['le%ss', 'le%ss', 10],
      ['more', 'more', 15],
    ]);
  });

  it('test_insight_funnels_hogql_global_filters / _local_filters: properties as JSON text in a POSTed body', async () => {
    const steps = [
      { id: 'user signed up', type: 'events', order: 0 },
      { id: 'user did things', type: 'events', order: 1 },
    ];
    const filter = [{ key: "toInt(properties.int_value) < 10 and 'bla' != 'a%sd'", type: 'hogql' }];
    const funnel = (body: Record<string, unknown>) => s.api('POST', `${base(hp)}funnel/`, { date_from: '2012-01-01', date_to: '2012-01-16', funnel_window_days: 14, ...body });
    const global = await funnel({ events: steps, properties: JSON.stringify(filter) });
    expect(global.status).toBe(200);
    expect(global.body.result.map((x: { name: string; count: number }) => [x.name, x.count])).toEqual([
      ['user signed up', 1],
      ['user did things', 0],
    ]);
    const local = await funnel({ events: [steps[0], { ...steps[1], properties: JSON.stringify(filter) }] });
    expect(local.body.result.map((x: { name: string; count: number }) => [x.name, x.count])).toEqual([
      ['user signed up', 1],
      ['user did things', 0],
    ]);
    // PropertyMixin: text that is no JSON
    const unparsable = await funnel({ events: [steps[0], { ...steps[1], properties: '[{"key": ' }] });
    expect([unparsable.status, unparsable.body.detail]).toEqual([400, 'Properties are unparsable!']);
  });

  it('test_insight_funnels_hogql_breakdown: breakdown_type hogql on a person property; each step carries the value as a list', async () => {
    const fp = await newProject(s, 'insights compat 3 funnel hogql breakdown');
    await s.server.services.ingestor.import(fp, {
      persons: [{ distinct_ids: ['1'], properties: { fish: 'there is no fish' } }],
      events: [
        { event: 'user signed up', distinct_id: '1', timestamp: '2012-01-15T04:01:34Z', properties: { int_value: 1 } },
        { event: 'user did things', distinct_id: '1', timestamp: '2012-01-15T04:01:35Z', properties: { int_value: 20 } },
      ],
    });
    await s.server.services.ingestor.flush();
    const r = await s.api('POST', `${base(fp)}funnel/`, {
      breakdown_type: 'hogql',
      breakdown: 'person.properties.fish',
      events: [
        { id: 'user signed up', type: 'events', order: 0 },
        { id: 'user did things', type: 'events', order: 1 },
      ],
      date_from: '2012-01-01',
      date_to: '2012-01-16',
      funnel_window_days: 14,
    });
    expect(r.status).toBe(200);
    expect(r.body.result).toHaveLength(1);
    expect(r.body.result[0].map((x: Record<string, unknown>) => [x.name, x.count, x.breakdown, x.breakdown_value])).toEqual([
      ['user signed up', 1, ['there is no fish'], ['there is no fish']],
      ['user did things', 1, ['there is no fish'], ['there is no fish']],
    ]);
  });

  it('test_insight_retention_hogql: the default legacy retention (11 days to today), filtered by a hogql property', async () => {
    const rp = await newProject(s, 'insights compat 3 retention hogql');
    const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();
    await s.server.services.ingestor.import(rp, {
      persons: [{ distinct_ids: ['person1'], properties: { email: 'person1@test.com' } }],
      events: [
        { event: '$pageview', distinct_id: 'person1', timestamp: daysAgo(11), properties: { int_value: 1 } },
        { event: '$pageview', distinct_id: 'person1', timestamp: daysAgo(10), properties: { int_value: 20 } },
      ],
    });
    await s.server.services.ingestor.flush();
    const plain = await s.api('GET', `${base(rp)}retention/`);
    expect(plain.status).toBe(200);
    expect([plain.body.result.length, plain.body.result[0].values[0].count]).toEqual([11, 1]);
    const filtered = await s.api('GET', `${base(rp)}retention/?${qs({ properties: [{ key: "toInt(properties.int_value) > 100 and 'bla' != 'a%sd'", type: 'hogql' }] })}`);
    expect([filtered.body.result.length, filtered.body.result[0].values[0].count]).toEqual([11, 0]);
  });

  it('test_save_new_funnel: a funnel’s legacy filters are saved and shown as sent, the UI’s extra keys (new_entity, layout) included', async () => {
    const step = (id: string, order: number) => ({ id, math: null, name: id, type: 'events', order, properties: [], math_hogql: null, math_property: null });
    const filters = {
      insight: 'FUNNELS',
      events: [step('$pageview', 0), step('$rageclick', 1)],
      display: 'FunnelViz',
      interval: 'day',
      date_from: '-30d',
      actions: [],
      new_entity: [],
      layout: 'horizontal',
    };
    const r = await s.api('POST', base(hp), { filters, name: 'My Funnel One' });
    expect(r.status).toBe(201);
    expect([r.body.filters.events[1].id, r.body.filters.display, r.body.filters.interval, r.body.filters.date_from, r.body.filters.layout, r.body.name]).toEqual([
      '$rageclick',
      'FunnelViz',
      'day',
      '-30d',
      'horizontal',
      'My Funnel One',
    ]);
  });

  it('math hogql on the legacy route: the series is the expression (math_hogql) per interval', async () => {
    const r = await trend({ events: [{ id: '$pageview', math: 'hogql', math_hogql: 'sum(toInt(properties.int_value))' }] });
    expect(r.status).toBe(200);
    expect([r.body.result[0].count, r.body.result[0].data]).toEqual([300, [0, 0, 0, 0, 0, 0, 300, 0]]);
  });

  it('test_insight_trends_basic: the legacy answer names the series’ action and the project’s timezone', async () => {
    const r = await trend({});
    expect([r.body.result[0].count, r.body.result[0].action.name, r.body.timezone]).toEqual([25, '$pageview', 'UTC']);
  });

  it('test_insight_trends_cumulative: total, unique users counted once over the range, and a breakdown', async () => {
    const cp = await newProject(s, 'insights compat 3 cumulative');
    const ev = (d: string, ts: string, key: string) => ({ event: '$pageview', distinct_id: d, timestamp: ts, properties: { key } });
    await s.server.services.ingestor.import(cp, {
      persons: ['p1', 'p2', 'p3'].map((d) => ({ distinct_ids: [d], properties: { key: 'some_val' } })),
      events: [
        ev('p1', '2012-01-13T03:21:34Z', 'val'),
        ev('p1', '2012-01-13T03:21:34Z', 'val'),
        ev('p1', '2012-01-14T03:21:34Z', 'val'),
        ev('p2', '2012-01-14T03:21:34Z', 'notval'),
        ev('p3', '2012-01-14T03:21:34Z', 'val'),
      ],
    });
    await s.server.services.ingestor.flush();
    const cumulative = async (params: Record<string, unknown>) => {
      const r = await s.api('GET', `${base(cp)}trend/?${qs({ events: [{ id: '$pageview' }], display: 'ActionsLineGraphCumulative', ...RANGE, ...params })}`);
      expect(r.status).toBe(200);
      return r.body.result.map((x: { breakdown_value?: unknown; data: number[] }) => [x.breakdown_value ?? null, x.data]);
    };
    expect(await cumulative({})).toEqual([[null, [0, 0, 0, 0, 0, 2, 5, 5]]]);
    expect(await cumulative({ events: [{ id: '$pageview', math: 'dau' }] })).toEqual([[null, [0, 0, 0, 0, 0, 1, 3, 3]]]);
    expect(await cumulative({ breakdown: 'key' })).toEqual([
      ['val', [0, 0, 0, 0, 0, 2, 4, 4]],
      ['notval', [0, 0, 0, 0, 0, 0, 1, 1]],
    ]);
    expect(await cumulative({ events: [{ id: '$pageview', math: 'dau' }], breakdown: 'key' })).toEqual([
      ['val', [0, 0, 0, 0, 0, 1, 2, 2]],
      ['notval', [0, 0, 0, 0, 0, 0, 1, 1]],
    ]);
  });

  it('a hogql property naming nothing: 400 with the resolver’s message', async () => {
    const r = await trend({ properties: [{ key: 'bla', type: 'hogql' }] });
    expect([r.status, r.body.type, r.body.detail]).toEqual([400, 'validation_error', 'Unable to resolve field: bla']);
  });
});
