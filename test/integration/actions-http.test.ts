/**
 * Actions over REST (PostHog's /api/projects/<id>/actions/): CRUD in the ActionSerializer shape, soft delete, 405 on
 * DELETE, scopes, tenancy, and ActionsNode series answered from the stored action through the query API (an edit
 * to the action changes the next answer).
 */
import { newKey, startServer, type TestServer } from '../helpers/server';

let s: TestServer;
let otherProject: number;
const BASE = '/api/projects/1/actions/';
const RANGE = { date_from: '2024-01-01', date_to: '2024-01-03' };

const create = async (body: Record<string, unknown>, project = 1) => {
  const r = await s.api('POST', `/api/projects/${project}/actions/`, body);
  expect([r.status, r.body?.detail]).toEqual([201, undefined]);
  return r.body;
};
const trends = (series: unknown[], project = 1) =>
  s.api('POST', `/api/projects/${project}/query/`, { query: { kind: 'TrendsQuery', series, dateRange: RANGE } });

beforeAll(async () => {
  s = await startServer();
  const ing = s.server.services.ingestor;
  const ev = (event: string, distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}) => ({ event, distinct_id, timestamp, properties });
  await ing.import(1, {
    persons: [{ distinct_ids: ['u1'], created_at: '2024-01-01T00:00:00Z' }, { distinct_ids: ['u2'], created_at: '2023-01-01T00:00:00Z' }],
    events: [
      ev('$pageview', 'u1', '2024-01-01T10:00:00Z', { $current_url: 'https://x.io/signup' }),
      ev('sign up', 'u1', '2024-01-01T10:05:00Z', { $browser: 'Chrome' }),
      ev('$pageview', 'u2', '2024-01-02T10:00:00Z', { $current_url: 'https://x.io/home' }),
      ev('sign up', 'u2', '2024-01-03T10:00:00Z', { $browser: 'Safari' }),
    ],
  });
  await ing.flush();
  otherProject = (await s.api('POST', '/api/projects/', { name: 'other' })).body.id;
  await ing.import(otherProject, { events: [ev('sign up', 'o1', '2024-01-02T10:00:00Z')] });
  await ing.flush();
});
afterAll(() => s.close());

describe('CRUD', () => {
  it('creates (201) in the ActionSerializer shape: unknown step keys ignored, absent step fields null, url_matching contains', async () => {
    const r = await s.api('POST', BASE, {
      name: 'user signed up',
      description: 'Test description',
      steps: [{ text: 'sign up', selector: 'div > button', url: '/signup', url_matching: 'contains', useless_key: 'xyz' }],
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(Number),
      name: 'user signed up',
      description: 'Test description',
      tags: [],
      post_to_slack: false,
      slack_message_format: '',
      steps: [
        {
          event: null,
          properties: [],
          selector: 'div > button',
          tag_name: null,
          text: 'sign up',
          text_matching: null,
          href: null,
          href_matching: null,
          url: '/signup',
          url_matching: 'contains',
        },
      ],
      created_at: expect.any(String),
      created_by: expect.objectContaining({ id: expect.any(Number) }),
      updated_at: expect.any(String),
      deleted: false,
      is_calculating: false,
      last_calculated_at: expect.any(String),
      team_id: 1,
      is_action: true,
      bytecode_error: null,
      pinned_at: null,
      creation_context: null,
      user_access_level: 'editor',
    });
    const got = await s.api('GET', `${BASE}${r.body.id}/`);
    expect(got.body).toEqual(r.body);
    expect((await s.api('GET', `/api/environments/1/actions/${r.body.id}`)).body).toEqual(r.body);
  });

  it('PATCH replaces the steps (property filters kept as sent), PUT changes what it is given', async () => {
    const a = await create({ name: 'to edit', steps: [{ event: 'x' }] });
    const p = await s.api('PATCH', `${BASE}${a.id}/`, {
      name: 'edited',
      steps: [{ event: 'sign up', properties: [{ key: '$browser', value: 'Chrome' }] }, { href: '/a-new-link' }],
    });
    expect(p.status).toBe(200);
    expect(p.body.name).toBe('edited');
    expect(p.body.steps.map((x: any) => [x.event, x.properties, x.href, x.url_matching])).toEqual([
      ['sign up', [{ key: '$browser', value: 'Chrome' }], null, 'contains'],
      [null, [], '/a-new-link', 'contains'],
    ]);
    const put = await s.api('PUT', `${BASE}${a.id}/`, { description: 'd', tags: ['t1', 't1'] });
    expect([put.status, put.body.name, put.body.description, put.body.tags, put.body.steps.length]).toEqual([200, 'edited', 'd', ['t1'], 2]);
  });

  it('lists every live action unpaginated, newest first (PostHog’s ActionViewSet.list: {results}, -last_calculated_at)', async () => {
    for (const n of ['list a', 'list b', 'list c']) await create({ name: n });
    const all = await s.api('GET', BASE);
    expect(all.status).toBe(200);
    expect(Object.keys(all.body)).toEqual(['results']);
    const names = all.body.results.map((a: { name: string }) => a.name);
    expect(names.indexOf('list c')).toBeLessThan(names.indexOf('list b'));
    expect(names.indexOf('list b')).toBeLessThan(names.indexOf('list a'));
    // limit and offset are no parameters of that list
    expect((await s.api('GET', `${BASE}?limit=1&offset=1`)).body).toEqual(all.body);
  });

  it.each<[string, Record<string, unknown>, string, string?]>([
    ['bad url_matching', { name: 'v1', steps: [{ url: '/x', url_matching: 'startswith' }] }, 'steps__0__url_matching'],
    ['a step property without key', { name: 'v2', steps: [{ properties: [{ value: 'x' }] }] }, 'steps__0__properties__0__key'],
    ['an invalid url regex', { name: 'v3', steps: [{ url: '(', url_matching: 'regex' }] }, 'steps__0__url'],
    ['an invalid text regex', { name: 'v5', steps: [{ text: '(', text_matching: 'regex' }] }, 'steps__0__text'],
    ['an invalid href regex', { name: 'v6', steps: [{ href: '[', href_matching: 'regex' }] }, 'steps__0__href'],
    ['an $autocapture step selector Quarry cannot match', { name: 'v7', steps: [{ event: '$autocapture', selector: '>>>' }] }, 'steps__0__selector'],
    ['steps not a list', { name: 'v4', steps: 'x' }, 'steps'],
    ['name too long', { name: 'n'.repeat(401) }, 'name'],
  ])('400 with attr: %s', async (_n, body, attr) => {
    const r = await s.api('POST', BASE, body);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ type: 'validation_error', attr });
  });

  it('the selector of a step of another event is not checked: PostHog ignores element fields outside $autocapture steps', async () => {
    const a = await create({ name: 'pageview with a stray selector', steps: [{ event: '$pageview', selector: '>>>' }] });
    expect(a.steps[0].selector).toBe('>>>');
  });

  it('a name is unique among the live actions of a project', async () => {
    const a = await create({ name: 'unique one' });
    const dup = await s.api('POST', BASE, { name: 'unique one' });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ type: 'validation_error', code: 'unique', detail: `This project already has an action with this name, ID ${a.id}`, attr: 'name' });
    // another project may use it; a deleted action frees it
    await create({ name: 'unique one' }, otherProject);
    await s.api('PATCH', `${BASE}${a.id}/`, { deleted: true });
    const again = await create({ name: 'unique one' });
    // restoring the first now collides
    const restore = await s.api('PATCH', `${BASE}${a.id}/`, { deleted: false });
    expect([restore.status, restore.body.attr]).toEqual([400, 'name']);
    expect(again.id).not.toBe(a.id);
  });

  it('DELETE answers 405 (PostHog forbids hard deletes); PATCH deleted soft-deletes and restores', async () => {
    const a = await create({ name: 'deletable' });
    const d = await s.api('DELETE', `${BASE}${a.id}/`);
    expect(d.status).toBe(405);
    expect((await s.api('GET', `${BASE}${a.id}/`)).body.deleted).toBe(false);
    expect((await s.api('PATCH', `${BASE}${a.id}/`, { deleted: true })).body.deleted).toBe(true);
    expect((await s.api('GET', BASE)).body.results.map((x: any) => x.id)).not.toContain(a.id);
    expect((await s.api('GET', `${BASE}${a.id}/`)).body.deleted).toBe(true);
    expect((await s.api('PATCH', `${BASE}${a.id}/`, { deleted: false })).body.deleted).toBe(false);
    expect((await s.api('GET', BASE)).body.results.map((x: any) => x.id)).toContain(a.id);
  });

  it('404 for an unknown or malformed id; 400 for a body that is not an object', async () => {
    expect((await s.api('GET', `${BASE}999999/`)).status).toBe(404);
    expect((await s.api('GET', `${BASE}abc/`)).status).toBe(404);
    expect((await s.api('PATCH', `${BASE}999999/`, { name: 'x' })).status).toBe(404);
    const r = await s.api('POST', BASE, [1, 2]);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ type: 'invalid_request', code: 'parse_error' });
  });
});

describe('scopes and tenancy', () => {
  it('action:read reads, action:write writes; other scopes are refused', async () => {
    const a = await create({ name: 'scoped' });
    const [readKey, writeKey, insightKey] = await Promise.all([newKey(s, ['action:read']), newKey(s, ['action:write']), newKey(s, ['insight:write'])]);
    expect((await s.api('GET', BASE, undefined, readKey)).status).toBe(200);
    expect((await s.api('GET', `${BASE}${a.id}/`, undefined, readKey)).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', BASE, { name: 'nope' }],
      ['PATCH', `${BASE}${a.id}/`, { name: 'x' }],
      ['PUT', `${BASE}${a.id}/`, { name: 'x' }],
      ['DELETE', `${BASE}${a.id}/`, undefined],
    ] as const) {
      const r = await s.api(method, path, body, readKey);
      expect([method, r.status, r.body]).toEqual([
        method,
        403,
        { type: 'authentication_error', code: 'permission_denied', detail: "API key missing required scope 'action:write'", attr: null },
      ]);
    }
    expect((await s.api('POST', BASE, { name: 'by writer' }, writeKey)).status).toBe(201);
    expect((await s.api('GET', BASE, undefined, writeKey)).status).toBe(200);
    const r = await s.api('GET', BASE, undefined, insightKey);
    expect([r.status, r.body.detail]).toEqual([403, "API key missing required scope 'action:read'"]);
    expect((await s.api('GET', BASE, undefined, null)).status).toBe(401);
  });

  it("a key never sees another project's actions: 404 by id through the other project, absent from its list", async () => {
    const a = await create({ name: 'project one only' });
    expect((await s.api('GET', `/api/projects/${otherProject}/actions/${a.id}/`)).status).toBe(404);
    expect((await s.api('PATCH', `/api/projects/${otherProject}/actions/${a.id}/`, { name: 'stolen' })).status).toBe(404);
    expect((await s.api('GET', `/api/projects/${otherProject}/actions/`)).body.results.map((x: any) => x.id)).not.toContain(a.id);
    const restricted = await newKey(s, ['action:write'], { scoped_teams: [otherProject] });
    // a key restricted to another project: PostHog's 403 naming the project (posthog-api.md §3.2)
    expect((await s.api('GET', BASE, undefined, restricted)).status).toBe(403);
    expect((await s.api('GET', `${BASE}${a.id}/`, undefined, restricted)).status).toBe(403);
    expect((await s.api('GET', `/api/projects/${otherProject}/actions/`, undefined, restricted)).status).toBe(200);
  });
});

describe('ActionsNode series through the query API', () => {
  it('trends reads the stored action; an edit changes the next answer; deleting it drops the series', async () => {
    const a = await create({ name: 'Signed up', steps: [{ event: 'sign up' }] });
    const r = await trends([{ kind: 'ActionsNode', id: a.id }]);
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: any) => [x.label, x.data, x.action.id, x.action.type])).toEqual([['Signed up', [1, 0, 1], a.id, 'actions']]);
    // the cached answer was computed with the old steps: an edit must not leave it served
    await s.api('PATCH', `${BASE}${a.id}/`, { steps: [{ event: 'sign up', properties: [{ key: '$browser', value: 'Chrome' }] }, { event: '$pageview', url: '/signup' }] });
    const edited = await trends([{ kind: 'ActionsNode', id: a.id }]);
    expect([edited.status, edited.body.detail]).toEqual([200, undefined]);
    expect(edited.body.results.map((x: any) => x.data)).toEqual([[2, 0, 0]]);
    await s.api('PATCH', `${BASE}${a.id}/`, { deleted: true });
    const gone = await trends([{ kind: 'ActionsNode', id: a.id }]);
    expect([gone.status, gone.body.results]).toEqual([200, []]);
    const lifecycle = await s.api('POST', '/api/projects/1/query/', {
      query: { kind: 'LifecycleQuery', series: [{ kind: 'ActionsNode', id: a.id }], dateRange: RANGE },
    });
    expect(lifecycle.status).toBe(400);
    expect(lifecycle.body).toMatchObject({ type: 'validation_error', code: 'action_not_found', attr: 'series__0' });
  });

  it("a query never reads another project's action (same id, other project: dropped / 400)", async () => {
    const a = await create({ name: 'P1 signup', steps: [{ event: 'sign up' }] });
    const r = await trends([{ kind: 'ActionsNode', id: a.id }], otherProject);
    expect([r.status, r.body.results]).toEqual([200, []]);
    const f = await s.api('POST', `/api/projects/${otherProject}/query/`, {
      query: { kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: 'sign up' }, { kind: 'ActionsNode', id: a.id }], dateRange: RANGE },
    });
    expect([f.status, f.body.attr]).toEqual([400, 'series__1']);
  });

  it('funnels and an autocapture step', async () => {
    const pv = await create({ name: 'Signup page', steps: [{ event: '$pageview', url: 'signup' }] });
    const su = await create({ name: 'Any signup', steps: [{ event: 'sign up' }] });
    const f = await s.api('POST', '/api/projects/1/query/', {
      query: { kind: 'FunnelsQuery', series: [{ kind: 'ActionsNode', id: pv.id }, { kind: 'ActionsNode', id: su.id }], dateRange: RANGE },
    });
    expect(f.status).toBe(200);
    expect(f.body.results.map((x: any) => [x.action_id, x.name, x.type, x.count])).toEqual([
      [pv.id, 'Signup page', 'actions', 1],
      [su.id, 'Any signup', 'actions', 1],
    ]);
    // Autocapture element conditions match elements_chain (PostHog's action_to_expr: selector_to_expr, text filter).
    const ing = s.server.services.ingestor;
    await ing.import(1, {
      events: [
        { event: '$autocapture', distinct_id: 'u2', timestamp: '2024-01-03T11:00:00Z', properties: { $elements: [{ tag_name: 'button', $el_text: 'Buy', nth_child: 1, nth_of_type: 1 }, { tag_name: 'div' }] } },
        { event: '$autocapture', distinct_id: 'u2', timestamp: '2024-01-03T11:01:00Z', properties: { $elements: [{ tag_name: 'a', $el_text: 'Buy' }] } },
      ],
    });
    await ing.flush();
    const click = await create({ name: 'Clicked', steps: [{ event: '$autocapture', selector: 'div > button', text: 'buy', text_matching: 'contains' }] });
    const r = await trends([{ kind: 'ActionsNode', id: click.id }]);
    expect([r.status, r.body.results[0].data]).toEqual([200, [0, 0, 1]]);
  });
});
