/**
 * The REST surface against PostHog's API tests, tenth batch (the earlier ones are rest-posthog-compat.test.ts and -2
 * to -9): posthog/api/test/test_personal_api_keys.py (the limit of keys per user), DRF's LimitOffsetPagination as
 * every PostHog list uses it (paging parameters that are no valid numbers fall back, links with sorted parameters), and
 * posthog/api/test/test_cohort.py (a static cohort from a CSV upload, cohorts sent as multipart forms, with the model
 * test test_cohort.py test_insert_by_distinct_id_or_email it relies on). Each case names the PostHog test or the
 * reference section it ports. One server for the whole file, started with Quarry's defaults for the key limit; its persons are imported,
 * not computed from events, so no case depends on the engine (no ClickHouse twin).
 */
import { startServer, newProject, type TestServer } from '../helpers/server';

let s: TestServer;
let p: number;

/** A multipart form request (the only body the CSV upload comes in), with the bootstrap key. */
async function form(method: string, path: string, fields: Record<string, string>, csv?: string) {
  const body = new FormData();
  for (const [k, v] of Object.entries(fields)) body.append(k, v);
  if (csv !== undefined) body.append('csv', new Blob([csv], { type: 'application/csv' }), 'example.csv');
  const res = await fetch(s.url + path, { method, headers: { authorization: `Bearer ${s.key}` }, body });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  // '' is "unset": the server's own default limit of personal keys (the test helper raises it for other files)
  s = await startServer({ env: { QUARRY_PERSONAL_API_KEYS_PER_USER: '' } });
  p = await newProject(s, 'rest-compat-10');
  const other = await newProject(s, 'rest-compat-10 other');
  await s.server.services.ingestor.import(p, {
    persons: [
      { distinct_ids: ['1'], properties: { email: 'email@example.org' } },
      { distinct_ids: ['000'] },
      { distinct_ids: ['123', '123-alias'] },
      { distinct_ids: ['456'] },
    ],
  });
  // team leakage: the same distinct id in another project is another project's person
  await s.server.services.ingestor.import(other, { persons: [{ distinct_ids: ['123'] }, { distinct_ids: ['789'] }] });
  await s.server.services.ingestor.flush();
});
afterAll(() => s.close());

describe('personal API keys (test_personal_api_keys.py)', () => {
  const tooMany = {
    type: 'validation_error',
    code: 'invalid_input',
    detail: 'You can only have 10 personal API keys. Remove an existing key before creating a new one.',
    attr: null,
  };

  it('test_create_too_many_api_keys: the 11th key is refused; a revoked key frees a place', async () => {
    const live = (await s.api('GET', '/api/personal_api_keys/')).body.length; // the bootstrap key
    const made: string[] = [];
    for (let i = live; i < 10; i++) {
      const r = await s.api('POST', '/api/personal_api_keys/', { label: String(i), scopes: ['insight:read'], scoped_organizations: [], scoped_teams: [] });
      expect(r.status).toBe(201);
      made.push(r.body.id);
    }
    const refused = await s.api('POST', '/api/personal_api_keys/', { label: 'eleventh', scopes: ['insight:read'] });
    expect([refused.status, refused.body]).toEqual([400, tooMany]);
    expect((await s.api('GET', '/api/personal_api_keys/')).body.length).toBe(10);

    // the fields are validated first (the serializer's create runs after is_valid)
    const badScope = await s.api('POST', '/api/personal_api_keys/', { label: 'eleventh', scopes: ['nope:read'] });
    expect([badScope.status, badScope.body.detail]).toEqual([400, 'Invalid scope: nope:read']);

    expect((await s.api('DELETE', `/api/personal_api_keys/${made[0]}/`)).status).toBe(204);
    const again = await s.api('POST', '/api/personal_api_keys/', { label: 'tenth again', scopes: ['insight:read'] });
    expect(again.status).toBe(201);
    for (const id of [...made.slice(1), again.body.id]) expect((await s.api('DELETE', `/api/personal_api_keys/${id}/`)).status).toBe(204);
  });
});

describe('DRF LimitOffsetPagination (reference §0: PostHog lists page with limit/offset, default 100)', () => {
  let list: string;
  let all: { id: number }[];
  beforeAll(async () => {
    list = `/api/projects/${p}/insights/`;
    for (const name of ['first', 'second', 'third']) {
      const r = await s.api('POST', list, { name, query: { kind: 'DataTableNode', source: { kind: 'HogQLQuery', query: 'select 1' } } });
      expect(r.status).toBe(201);
    }
    all = (await s.api('GET', list)).body.results;
    expect(all).toHaveLength(3);
  });

  // get_limit: `_positive_int(strict=True)` raising ValueError (not an integer, zero, negative) → the default limit
  it.each(['limit=abc', 'limit=0', 'limit=-5', 'limit=1.5', 'limit=', 'limit=1e2'])('?%s is the default page, not an error', async (qs) => {
    const r = await s.api('GET', `${list}?${qs}`);
    expect([r.status, r.body.count, r.body.results.map((i: { id: number }) => i.id), r.body.next, r.body.previous]).toEqual([200, 3, all.map((i) => i.id), null, null]);
  });

  // get_offset: `_positive_int` raising ValueError (not an integer, negative) → offset 0
  it.each(['offset=-1', 'offset=two', 'offset=0.5'])('?limit=1&%s starts at the first row', async (qs) => {
    const r = await s.api('GET', `${list}?limit=1&${qs}`);
    expect([r.status, r.body.results.map((i: { id: number }) => i.id), r.body.previous]).toEqual([200, [all[0].id], null]);
    expect(new URL(r.body.next).searchParams.get('offset')).toBe('1');
  });

  it('Python’s int(): blanks around the number are fine (limit=%202%20 is 2)', async () => {
    const r = await s.api('GET', `${list}?limit=%202%20`);
    expect(r.body.results.map((i: { id: number }) => i.id)).toEqual(all.slice(0, 2).map((i) => i.id));
  });

  it('the links carry the limit actually used: ?limit=abc&offset=1 links back to ?limit=100', async () => {
    const r = await s.api('GET', `${list}?limit=abc&offset=1`);
    expect(r.body.results.map((i: { id: number }) => i.id)).toEqual(all.slice(1).map((i) => i.id));
    expect([r.body.next, r.body.previous]).toEqual([null, `${s.url}${list}?limit=100`]);
  });

  it('replace_query_param writes the link’s parameters sorted by name, the request’s others kept', async () => {
    const r = await s.api('GET', `${list}?saved=true&limit=1&basic=true`);
    expect(r.body.next).toBe(`${s.url}${list}?basic=true&limit=1&offset=1&saved=true`);
    const last = await s.api('GET', `${list}?saved=true&offset=2&limit=1`);
    expect([last.body.next, last.body.previous]).toEqual([null, `${s.url}${list}?limit=1&offset=1&saved=true`]);
  });

  it('other lists page alike: cohorts, endpoints', async () => {
    for (const path of [`/api/projects/${p}/cohorts/`, `/api/environments/${p}/endpoints/`]) {
      const r = await s.api('GET', `${path}?limit=zero&offset=-2`);
      expect([path, r.status, Array.isArray(r.body.results)]).toEqual([path, 200, true]);
    }
  });
});

describe('static cohort from a CSV upload (test_cohort.py test_static_cohort_csv_upload)', () => {
  const cohorts = () => `/api/projects/${p}/cohorts/`;
  const distinctIdsIn = async (id: number) =>
    ((await s.api('GET', `${cohorts()}${id}/persons/`)).body.results as { distinct_ids: string[] }[]).map((x) => [...x.distinct_ids].sort()[0]).sort();

  it('test_insert_by_distinct_id_or_email: the first column’s distinct ids; a header, an email, unknown ids and another project’s persons match nobody', async () => {
    const r = await form('POST', cohorts(), { name: 'test', is_static: 'True' }, 'a header or something\n123\n000\nemail@example.org\n');
    expect([r.status, r.body?.detail]).toEqual([201, undefined]);
    expect(r.body).toMatchObject({ name: 'test', is_static: true, is_calculating: false, cohort_type: 'static', count: 2, groups: [] });
    expect(await distinctIdsIn(r.body.id)).toEqual(['000', '123']);
  });

  it('the PostHog test’s file: a "User ID," header, then one id per row with a trailing comma', async () => {
    const r = await form('POST', cohorts(), { name: 'test', is_static: 'true' }, '\nUser ID,\nemail@example.org,\n123\n');
    expect([r.status, r.body.count, r.body.is_calculating]).toEqual([201, 1, false]);
    expect(await distinctIdsIn(r.body.id)).toEqual(['123']);
  });

  it('only the first column counts; a quoted cell is read as csv reads it; a second distinct id of a person adds no one', async () => {
    const r = await form('POST', cohorts(), { name: 'columns', is_static: '1' }, 'distinct_id,email\r\n"000",a@b.c\r\n456,123\r\n"123-alias"\r\n123\r\n');
    expect([r.status, r.body.count]).toEqual([201, 3]);
    expect(await distinctIdsIn(r.body.id)).toEqual(['000', '123', '456']);
  });

  it('a PATCH with a new file adds its persons (insert_users_by_list never removes); one without a file changes fields only', async () => {
    const made = await form('POST', cohorts(), { name: 'grows', is_static: 'True' }, '123\n');
    expect(made.body.count).toBe(1);
    const renamed = await form('PATCH', `${cohorts()}${made.body.id}/`, { name: 'test2' });
    expect([renamed.status, renamed.body.name, renamed.body.count]).toEqual([200, 'test2', 1]);
    const more = await form('PATCH', `${cohorts()}${made.body.id}/`, { name: 'test' }, '123\n456\n');
    expect([more.status, more.body.name, more.body.count]).toEqual([200, 'test', 2]);
    expect(await distinctIdsIn(made.body.id)).toEqual(['123', '456']);
  });

  it('the cohort filters insights like any static cohort', async () => {
    const made = await form('POST', cohorts(), { name: 'filter', is_static: 'True' }, '456\n1\n');
    const q = await s.api('POST', `/api/projects/${p}/query/`, {
      query: { kind: 'HogQLQuery', query: `select count() from persons where id IN COHORT ${made.body.id}` },
    });
    expect([q.status, q.body.results]).toEqual([200, [[2]]]);
  });

  it('a form’s booleans take DRF’s spellings; anything else is BooleanField’s error, and nothing is created', async () => {
    const before = (await s.api('GET', cohorts())).body.count;
    const r = await form('POST', cohorts(), { name: 'bad', is_static: 'maybe' }, '123\n');
    expect([r.status, r.body]).toEqual([400, { type: 'validation_error', code: 'invalid_input', detail: 'Must be a valid boolean.', attr: 'is_static' }]);
    expect((await s.api('GET', cohorts())).body.count).toBe(before);
  });

  it('PostHog’s own client sends every cohort as a form: filters as JSON text define a dynamic cohort (no csv needed)', async () => {
    const filters = { properties: { type: 'OR', values: [{ type: 'AND', values: [{ type: 'person', key: 'email', value: 'email@example.org', operator: 'exact' }] }] } };
    const r = await form('POST', cohorts(), { name: 'by email', is_static: 'false', filters: JSON.stringify(filters) });
    expect([r.status, r.body.is_static, r.body.filters, r.body.count, r.body.cohort_type]).toEqual([201, false, filters, 1, 'person_property']);
    const bad = await form('PATCH', `${cohorts()}${r.body.id}/`, { filters: '{not json' });
    expect([bad.status, bad.body]).toEqual([400, { type: 'validation_error', code: 'invalid_input', detail: 'Value must be valid JSON.', attr: 'filters' }]);
  });

  it('a multipart body on a route that takes JSON only is still a 415', async () => {
    const r = await form('POST', `/api/projects/${p}/insights/`, { name: 'x' });
    expect([r.status, r.body.code]).toEqual([415, 'unsupported_media_type']);
  });
});
