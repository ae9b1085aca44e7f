/**
 * The REST surface against PostHog's API tests, third batch (the first two are rest-posthog-compat.test.ts and
 * rest-posthog-compat-2.test.ts): posthog/api/test/test_person.py (the persons list's paging and `count`),
 * test_query.py (cancel, placeholders), test_insight.py (insight views: viewed, my_last_viewed, last_viewed_at and
 * its filters) and products/endpoints tests (variable errors). Each case names the PostHog test or the reference
 * section it ports. The persons and events cases read the engine: they live in test/helpers/rest-compat-3.ts and run
 * on ClickHouse too (rest-posthog-compat-3.clickhouse.test.ts).
 */
import { InsightViewed } from '../../src/store/entities';
import { describeRestCompat3Persons } from '../helpers/rest-compat-3';
import { newKey, newProject, startServer, type TestServer } from '../helpers/server';

let s: TestServer;

const sqlViz = (query: string) => ({ kind: 'DataVisualizationNode', source: { kind: 'HogQLQuery', query } });

beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

// persons, cohort persons and the events list on DuckDB (ClickHouse: rest-posthog-compat-3.clickhouse.test.ts)
describeRestCompat3Persons('DuckDB', () => s);

describe('query API (test_query.py)', () => {
  it('TestQueryRetrieve.test_destroy: DELETE cancels and answers 204 with an empty body, finished, unknown or not', async () => {
    const p = await newProject(s, 'query-destroy');
    const q = `/api/projects/${p}/query/`;
    await s.server.services.ingestor.import(p, {
      events: Array.from({ length: 3000 }, (_, i) => ({ event: 'bulk', distinct_id: `d${i % 50}`, timestamp: '2024-01-01T00:00:00Z' })),
    });
    await s.server.services.ingestor.flush();
    const slow = 'SELECT count() FROM events AS a CROSS JOIN events AS b CROSS JOIN events AS c';
    const started = await s.api('POST', q, { query: { kind: 'HogQLQuery', query: slow }, refresh: 'force_async', client_query_id: 'compat3-destroy' });
    expect(started.status).toBe(202);
    const r = await s.api('DELETE', `${q}compat3-destroy/`);
    expect([r.status, r.text]).toEqual([204, '']);
    await s.server.services.queries.async.wait('compat3-destroy');
    expect((await s.api('GET', `${q}compat3-destroy/`)).body.query_status).toMatchObject({ complete: true, error: true, error_code: 'cancelled' });
    // cancel_query passes over an unknown id (QueryNotFoundError): still 204, and still nothing to poll
    expect((await s.api('DELETE', `${q}never-ran/`)).status).toBe(204);
    expect((await s.api('GET', `${q}never-ran/`)).status).toBe(404);
    // a query that already finished: still 204, and its answer stays pollable
    await s.api('POST', q, { query: { kind: 'HogQLQuery', query: 'select 5' }, refresh: 'force_async', client_query_id: 'compat3-done' });
    await s.server.services.queries.async.wait('compat3-done');
    const done = await s.api('DELETE', `${q}compat3-done/`);
    expect([done.status, done.text]).toEqual([204, '']);
    expect((await s.api('GET', `${q}compat3-done/`)).body.query_status).toMatchObject({ complete: true, error: false });
    // another project's query is not this project's: nothing of it is touched (a 204 all the same)
    expect((await s.api('DELETE', `/api/projects/1/query/compat3-done/`)).status).toBe(204);
    expect((await s.api('GET', `${q}compat3-done/`)).body.query_status).toMatchObject({ complete: true, error: false });
    // an unknown project is still a 404
    expect((await s.api('DELETE', `/api/projects/987654/query/compat3-done/`)).status).toBe(404);
  });

  it('test_full_hogql_query_values: a HogQLQuery’s `values` fill its {placeholders} as bound constants', async () => {
    const p = await newProject(s, 'query-values');
    await s.server.services.ingestor.import(p, {
      events: [
        ...Array.from({ length: 20 }, () => ({ event: 'sign up', distinct_id: 'random-uuid-1', timestamp: '2020-01-10T12:00:00Z', properties: { key: 'test_val1' } })),
        { event: 'sign up', distinct_id: 'someone else', timestamp: '2020-01-10T12:00:00Z' },
      ],
    });
    await s.server.services.ingestor.flush();
    const r = await s.api('POST', `/api/projects/${p}/query/`, {
      query: { kind: 'HogQLQuery', query: 'select count() from events where distinct_id = {random_uuid}', values: { random_uuid: 'random-uuid-1' } },
    });
    expect([r.status, r.body.results]).toEqual([200, [[20]]]);
    // a value is a constant, never SQL text
    const hostile = await s.api('POST', `/api/projects/${p}/query/`, {
      query: { kind: 'HogQLQuery', query: 'select count() from events where distinct_id = {v}', values: { v: "x' OR 1 = 1 --" } },
    });
    expect(hostile.body.results).toEqual([[0]]);
  });
});

describe('insight views (test_insight.py, reference §2.1/§2.2/§2.3)', () => {
  let p: number;
  const base = () => `/api/projects/${p}/insights/`;
  const make = async (name: string) => (await s.api('POST', base(), { name, query: sqlViz('SELECT 1') })).body as { id: number; short_id: string };
  const lastViewed = async (key?: string) => {
    const r = await s.api('GET', `${base()}my_last_viewed/`, undefined, key);
    expect(r.status).toBe(200);
    return r.body.map((x: { name: string }) => x.name);
  };
  beforeAll(async () => {
    p = await newProject(s, 'insight-views');
  });

  it('test_get_recently_viewed_insights_when_no_insights_viewed: an empty list', async () => {
    await make('never viewed');
    expect(await lastViewed()).toEqual([]);
  });

  it('test_get_recently_viewed_insights: a viewed insight comes back as a basic insight', async () => {
    const a = await make('viewed once');
    const v = await s.api('POST', `${base()}${a.id}/viewed/`);
    expect([v.status, v.text]).toEqual([201, '']);
    const r = await s.api('GET', `${base()}my_last_viewed/`);
    expect(r.body).toHaveLength(1);
    expect(r.body[0]).toMatchObject({ id: a.id, short_id: a.short_id, name: 'viewed once', refreshing: false });
    expect(r.body[0]).not.toHaveProperty('result');
  });

  it('test_recently_viewed_insights_ordered_by_view_date: the latest view first; at most 5; deleted ones left out', async () => {
    const made = [];
    for (const n of ['r1', 'r2', 'r3', 'r4', 'r5', 'r6']) made.push(await make(n));
    const view = async (ids: number[]) => expect((await s.api('POST', `${base()}viewed/`, { insight_ids: ids })).status).toBe(201);
    for (const i of made) {
      await view([i.id]);
      await new Promise((res) => setTimeout(res, 5)); // distinct view times
    }
    await view([made[1].id]);
    expect(await lastViewed()).toEqual(['r2', 'r6', 'r5', 'r4', 'r3']);
    await s.api('PATCH', `${base()}${made[5].id}/`, { deleted: true });
    expect(await lastViewed()).toEqual(['r2', 'r5', 'r4', 'r3', 'r1']);
  });

  it('views belong to the user, not the key: another key of the same user sees the same list', async () => {
    // PostHog's InsightViewed is keyed by user; every personal key of Quarry belongs to the bootstrap user
    const reader = await newKey(s, ['insight:read']);
    expect((await lastViewed(reader))[0]).toBe('r2');
  });

  it('last_viewed_at: set on retrieve and list once viewed; order=-last_viewed_at and the last-viewed date filters use it', async () => {
    const q = await make('latest view');
    const before = await s.api('GET', `${base()}${q.id}/`);
    expect(before.body.last_viewed_at).toBeNull();
    await s.api('POST', `${base()}viewed/`, { insight_ids: [q.id] });
    const after = await s.api('GET', `${base()}${q.id}/`);
    expect(Date.parse(after.body.last_viewed_at)).toBeGreaterThan(Date.now() - 60_000);
    const list = await s.api('GET', `${base()}?order=-last_viewed_at&limit=3`);
    expect(list.body.results.map((x: { name: string }) => x.name)).toEqual(['latest view', 'r2', 'r5']); // r6 is deleted
    expect(list.body.results[0].last_viewed_at).toBe(after.body.last_viewed_at);
    // never viewed: last with order=-last_viewed_at (nulls last), and outside any last-viewed bound
    const names = async (qs: string) => (await s.api('GET', `${base()}?basic=true&${qs}`)).body.results.map((x: { name: string }) => x.name);
    expect((await names('order=-last_viewed_at')).at(-1)).toBe('never viewed');
    const recent = await names('last_viewed_date_from=-1h');
    expect(recent).toContain('latest view');
    expect(recent).not.toContain('never viewed');
    expect(await names('last_viewed_date_to=-1h')).toEqual([]);
  });

  it('viewed ignores ids of other projects, unknown and deleted insights (201 all the same)', async () => {
    const other = await newProject(s, 'insight-views-other');
    const theirs = (await s.api('POST', `/api/projects/${other}/insights/`, { name: 'theirs', query: sqlViz('SELECT 2') })).body;
    const r = await s.api('POST', `${base()}viewed/`, { insight_ids: [theirs.id, 987654321] });
    expect([r.status, r.text]).toEqual([201, '']);
    expect(await lastViewed()).not.toContain('theirs');
    expect((await s.api('GET', `/api/projects/${other}/insights/${theirs.id}/`)).body.last_viewed_at).toBeNull();
    expect((await s.api('GET', `/api/projects/${other}/insights/my_last_viewed/`)).body).toEqual([]);
  });

  it('deleting a project deletes its insights’ views', async () => {
    const doomed = await newProject(s, 'insight-views-doomed');
    const i = (await s.api('POST', `/api/projects/${doomed}/insights/`, { name: 'doomed', query: sqlViz('SELECT 3') })).body;
    await s.api('POST', `/api/projects/${doomed}/insights/viewed/`, { insight_ids: [i.id] });
    const views = s.server.services.store.db.getRepository(InsightViewed);
    expect(await views.countBy({ project_id: doomed })).toBe(1);
    expect((await s.api('DELETE', `/api/projects/${doomed}/`)).status).toBe(204);
    expect(await views.countBy({ project_id: doomed })).toBe(0);
  });

  it.each([
    ['no insight_ids', {}, 'insight_ids'],
    ['an empty list', { insight_ids: [] }, 'insight_ids'],
    ['not integers', { insight_ids: ['a'] }, 'insight_ids__0'],
    ['more than 2,500', { insight_ids: Array.from({ length: 2501 }, (_, i) => i + 1) }, 'insight_ids'],
  ])('viewed with %s → 400 naming the field', async (_n, body, attr) => {
    const r = await s.api('POST', `${base()}viewed/`, body);
    expect([r.status, r.body.type, r.body.attr]).toEqual([400, 'validation_error', attr]);
  });

  it.each([
    ['a JSON list', [1]],
    ['a JSON string', '"x"'],
    ['ids as text', { insight_ids: '1,2' }],
  ])('viewed with %s as the body → 400, never a 500', async (_n, body) => {
    const r = await s.api('POST', `${base()}viewed/`, body);
    expect([r.status, r.body.type]).toEqual([400, 'validation_error']);
  });

  it('the per-insight viewed: 404 for a deleted or unknown insight; by short_id too; scope insight:read', async () => {
    const gone = await make('gone');
    await s.api('PATCH', `${base()}${gone.id}/`, { deleted: true });
    expect((await s.api('POST', `${base()}${gone.id}/viewed/`)).status).toBe(404);
    expect((await s.api('POST', `${base()}99999999/viewed/`)).status).toBe(404);
    const byShort = await make('by short id');
    expect((await s.api('POST', `${base()}${byShort.short_id}/viewed/`)).status).toBe(201);
    expect((await lastViewed())[0]).toBe('by short id');
    const other = await newKey(s, ['query:read']);
    for (const [method, path] of [
      ['POST', `${base()}viewed/`],
      ['POST', `${base()}${byShort.id}/viewed/`],
      ['GET', `${base()}my_last_viewed/`],
    ] as const) {
      const denied = await s.api(method, path, method === 'POST' ? { insight_ids: [byShort.id] } : undefined, other);
      expect([denied.status, denied.body.detail]).toEqual([403, "API key missing required scope 'insight:read'"]);
    }
  });
});

describe('trending insights (reference §2.1, InsightViewSet.trending)', () => {
  it('the most viewed live insights of the last days, with view_count, viewers and last_modified_by; paging envelope without pages', async () => {
    const p = await newProject(s, 'trending');
    const base = `/api/projects/${p}/insights/`;
    const mk = async (name: string) => (await s.api('POST', base, { name, query: sqlViz('SELECT 1') })).body as { id: number; short_id: string };
    const [a, b, c, gone, old] = [await mk('a'), await mk('b'), await mk('c'), await mk('gone'), await mk('old')];
    expect((await s.api('GET', `${base}trending/`)).body).toEqual({ count: 0, next: null, previous: null, results: [] });
    for (const i of [b, a, gone, old]) {
      await s.api('POST', `${base}viewed/`, { insight_ids: [i.id] });
      await new Promise((res) => setTimeout(res, 5));
    }
    await s.api('PATCH', `${base}${gone.id}/`, { deleted: true });
    // a view from ten days ago is outside the default 7 days
    await s.server.services.store.db.getRepository(InsightViewed).update({ insight_id: old.id }, { last_viewed_at: new Date(Date.now() - 10 * 86_400_000) });
    const r = await s.api('GET', `${base}trending/`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ count: 2, next: null, previous: null });
    expect(r.body.results.map((x: { name: string }) => x.name)).toEqual(['a', 'b']); // one viewer each: the latest view first
    expect(r.body.results[0]).toMatchObject({
      id: a.id,
      short_id: a.short_id,
      view_count: 1,
      viewers: [{ id: 1, email: 'admin@localhost' }],
      last_modified_by: { id: 1 },
    });
    expect(r.body.results[0]).not.toHaveProperty('result');
    expect(r.body.results.map((x: { id: number }) => x.id)).not.toContain(c.id); // never viewed
    expect((await s.api('GET', `${base}trending/?days=30`)).body.results.map((x: { name: string }) => x.name)).toEqual(['a', 'b', 'old']);
    expect((await s.api('GET', `${base}trending/?days=30&limit=1`)).body.results.map((x: { name: string }) => x.name)).toEqual(['a']);
    for (const qs of ['days=0', 'days=x', 'limit=0']) {
      const bad = await s.api('GET', `${base}trending/?${qs}`);
      expect([bad.status, bad.body.attr]).toEqual([400, qs.split('=')[0]]);
    }
  });
});

describe('insight activity (test_insight.py)', () => {
  it('test_insight_activity: created carries no changes; an update lists them; a no-op update logs nothing', async () => {
    const p = await newProject(s, 'insight-activity');
    const base = `/api/projects/${p}/insights/`;
    const made = (await s.api('POST', base, { name: 'insight name', query: sqlViz('SELECT 1') })).body;
    await s.api('PATCH', `${base}${made.id}/`, { name: 'insight new name' });
    await s.api('PATCH', `${base}${made.id}/`, { name: 'insight new name' });
    const r = await s.api('GET', `${base}${made.id}/activity/`);
    expect(r.body.results.map((a: { activity: string }) => a.activity)).toEqual(['updated', 'created']);
    const [updated, created] = r.body.results;
    expect(created).toMatchObject({
      activity: 'created',
      scope: 'Insight',
      item_id: String(made.id),
      detail: { changes: null, trigger: null, type: null, name: 'insight name', short_id: made.short_id },
    });
    expect(updated.detail).toMatchObject({
      name: 'insight new name',
      short_id: made.short_id,
      changes: [{ type: 'Insight', action: 'changed', field: 'name', before: 'insight name', after: 'insight new name' }],
    });
  });
});

describe('endpoints (products/endpoints tests, reference §1.4)', () => {
  it('a placeholder without a definition: PostHog’s “Query references undefined variable(s)” message', async () => {
    const r = await s.api('POST', '/api/environments/1/endpoints/', { name: 'undefined_vars', query: { kind: 'HogQLQuery', query: 'select {variables.x}, {variables.y}' } });
    expect(r.status).toBe(400);
    expect(r.body.detail).toBe('Query references undefined variable(s): x, y. See https://posthog.com/docs/endpoints/variables for detail.');
  });

  // PostHog's endpoint validation: each in-query definition names a saved variable of the project by its UUID
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    for (const c of ['a', 'b', 'c']) ids[c] = (await s.api('POST', '/api/projects/1/insight_variables/', { name: c, type: 'String' })).body.id;
  });
  const hogql = (query: string, codeNames: string[]) => ({
    kind: 'HogQLQuery',
    query,
    variables: Object.fromEntries(codeNames.map((c) => [ids[c], { variableId: ids[c], code_name: c, value: `${c}-default` }])),
  });

  it('definitions of placeholders the query does not use are dropped, from the query too', async () => {
    const r = await s.api('POST', '/api/environments/1/endpoints/', { name: 'unused_defs', query: hogql('select {variables.a} as a', ['a', 'b']) });
    expect(r.status).toBe(201);
    expect(Object.values(r.body.query.variables).map((v: any) => v.code_name)).toEqual(['a']);
    const run = await s.api('POST', '/api/environments/1/endpoints/unused_defs/run/', { variables: { a: 'x' } });
    expect([run.status, run.body.results]).toEqual([200, [['x']]]);
    const unknown = await s.api('POST', '/api/environments/1/endpoints/unused_defs/run/', { variables: { b: 'x' } });
    expect([unknown.status, unknown.body.detail]).toEqual([400, 'Unknown variable(s): b']);
  });

  it('GET …/versions/<n>/ (the older per-version route): the version view as ?version=n; PostHog’s bare 404 and 400', async () => {
    await s.api('POST', '/api/environments/1/endpoints/', { name: 'versioned', query: { kind: 'HogQLQuery', query: 'select 1 as one' } });
    await s.api('PATCH', '/api/environments/1/endpoints/versioned/', { query: { kind: 'HogQLQuery', query: 'select 2 as two' } });
    const v1 = await s.api('GET', '/api/environments/1/endpoints/versioned/versions/1/');
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual((await s.api('GET', '/api/environments/1/endpoints/versioned/?version=1')).body);
    expect(v1.body).toMatchObject({ version: 1, current_version: 2, query: { query: 'select 1 as one' } });
    expect((await s.api('GET', '/api/projects/1/endpoints/versioned/versions/2')).body.version).toBe(2);
    const missing = await s.api('GET', '/api/environments/1/endpoints/versioned/versions/7/');
    expect([missing.status, missing.body]).toEqual([404, { error: 'Version 7 not found' }]);
    expect((await s.api('GET', '/api/environments/1/endpoints/versioned/versions/x/')).body.attr).toBe('version');
    expect((await s.api('GET', '/api/environments/1/endpoints/nope/versions/1/')).status).toBe(404);
  });

  it('a new query’s own variable definitions declare its placeholders (the update makes version 2)', async () => {
    await s.api('POST', '/api/environments/1/endpoints/', { name: 'redefined', query: hogql('select {variables.a} as a', ['a']) });
    const r = await s.api('PATCH', '/api/environments/1/endpoints/redefined/', { query: hogql('select {variables.a} as a, {variables.c} as c', ['a', 'c']) });
    expect([r.status, r.body.current_version]).toEqual([200, 2]);
    const run = await s.api('POST', '/api/environments/1/endpoints/redefined/run/', { variables: { a: 'x' } });
    expect(run.body.results).toEqual([['x', 'c-default']]);
  });
});
