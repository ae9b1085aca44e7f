/**
 * The cohorts REST API (PostHog's posthog/api/test/test_cohort.py): CohortSerializer fields, create/retrieve/list/
 * partial update, soft delete by PATCH and 405 on DELETE, validation of definitions (criteria well formed,
 * references to cohorts and actions must exist and not loop), behavioral cohorts' counts, scopes `cohort:read`/`cohort:write`, and tenancy (another project's cohort is
 * a 404, exactly like a missing one).
 */
import { startServer, type TestServer } from '../helpers/server';

let s: TestServer;
let p: number;
let other: number;
const base = (project = p) => `/api/projects/${project}/cohorts/`;

const FIELDS = [
  'cohort_type',
  'count',
  'created_at',
  'created_by',
  'deleted',
  'description',
  'errors_calculating',
  'experiment_set',
  'filters',
  'groups',
  'id',
  'is_calculating',
  'is_static',
  'last_calculation',
  'last_error_at',
  'name',
  'query',
];

const JANE = { properties: { type: 'OR', values: [{ type: 'AND', values: [{ type: 'person', key: 'name', value: 'Jane', operator: 'exact' }] }] } };

async function newKey(body: Record<string, unknown>): Promise<string> {
  const r = await s.api('POST', '/api/personal_api_keys/', { label: 'cohorts', ...body });
  expect(r.status).toBe(201);
  return r.body.value;
}

beforeAll(async () => {
  s = await startServer();
  p = (await s.api('POST', '/api/projects/', { name: 'cohorts api' })).body.id;
  other = (await s.api('POST', '/api/projects/', { name: 'cohorts api other' })).body.id;
  await s.server.services.ingestor.import(p, {
    persons: [
      { distinct_ids: ['a'], properties: { name: 'Jane' } },
      { distinct_ids: ['b'], properties: { name: 'John' } },
    ],
  });
  await s.server.services.ingestor.flush();
});
afterAll(() => s.close());

describe('CRUD (test_cohort.py)', () => {
  it('test_creating_update_and_calculating: create answers 201 with the serializer fields and the count', async () => {
    const r = await s.api('POST', base(), { name: 'whatever', filters: JANE });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(FIELDS);
    expect(r.body).toMatchObject({ name: 'whatever', description: '', filters: JANE, groups: [], deleted: false, is_static: false, is_calculating: false, count: 1, cohort_type: 'person_property' });
    expect(r.body.created_by).toMatchObject({ id: expect.any(Number), email: expect.any(String) });
    // DRF's DateTimeField renders microseconds (none when there are none)
    const drf = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$/);
    expect([r.body.created_at, r.body.last_calculation]).toEqual([drf, drf]);

    const u = await s.api('PATCH', `${base()}${r.body.id}/`, { name: 'whatever2', description: 'A great cohort!', groups: [{ properties: [{ key: 'name', value: 'John' }] }], filters: null });
    expect(u.status).toBe(200);
    expect(u.body).toMatchObject({ id: r.body.id, name: 'whatever2', description: 'A great cohort!', filters: null, count: 1 });
    expect((await s.api('GET', `${base()}${r.body.id}/`)).body).toEqual(u.body);
  });

  it('lists live cohorts newest first with paging; PATCH deleted hides from the list, retrieve still works, restore', async () => {
    const project = (await s.api('POST', '/api/projects/', { name: 'list' })).body.id;
    const ids: number[] = [];
    for (const name of ['one', 'two', 'three']) ids.push((await s.api('POST', base(project), { name, groups: [] })).body.id);
    const page = await s.api('GET', `${base(project)}?limit=2`);
    expect(page.status).toBe(200);
    expect(page.body.count).toBe(3);
    expect(page.body.results.map((c: any) => c.name)).toEqual(['three', 'two']);
    expect(page.body.next).toContain('offset=2');
    expect(page.body.results[0].count).toBe(0);

    const del = await s.api('PATCH', `${base(project)}${ids[1]}/`, { deleted: true });
    expect([del.status, del.body.deleted]).toEqual([200, true]);
    expect((await s.api('GET', base(project))).body.results.map((c: any) => c.name)).toEqual(['three', 'one']);
    expect((await s.api('GET', `${base(project)}${ids[1]}/`)).body.deleted).toBe(true);
    await s.api('PATCH', `${base(project)}${ids[1]}/`, { deleted: false });
    expect((await s.api('GET', base(project))).body.count).toBe(3);
  });

  it('test_cohort_change / test_update_cohort (ee models test_cohort.py): after the groups change, the count and the persons follow the new definition', async () => {
    const persons = async (id: number) =>
      ((await s.api('GET', `${base()}${id}/persons/`)).body.results as { distinct_ids: string[] }[]).map((x) => x.distinct_ids[0]).sort();
    const made = await s.api('POST', base(), { name: 'changing', groups: [{ properties: [{ key: 'name', value: 'Jane', type: 'person' }] }] });
    expect([made.status, made.body.count, await persons(made.body.id)]).toEqual([201, 1, ['a']]);
    const changed = await s.api('PATCH', `${base()}${made.body.id}/`, { groups: [{ properties: [{ key: 'name', value: 'John', type: 'person' }] }] });
    expect([changed.status, changed.body.count, await persons(made.body.id)]).toEqual([200, 1, ['b']]);
    const both = await s.api('PATCH', `${base()}${made.body.id}/`, { groups: [{ properties: [{ key: 'name', value: 'Jane', type: 'person' }] }, { properties: [{ key: 'name', value: 'John', type: 'person' }] }] });
    expect([both.status, both.body.count, await persons(made.body.id)]).toEqual([200, 2, ['a', 'b']]);
  });

  it('DELETE answers 405 (soft delete is PATCH, as PostHog’s ForbidDestroyModel)', async () => {
    const id = (await s.api('POST', base(), { name: 'x' })).body.id;
    expect((await s.api('DELETE', `${base()}${id}/`)).status).toBe(405);
    expect((await s.api('GET', `${base()}${id}/`)).status).toBe(200);
  });

  it('is served under /api/environments/ too', async () => {
    const r = await s.api('GET', `/api/environments/${p}/cohorts/`);
    expect(r.status).toBe(200);
  });

  it('static cohorts: created with persons, persons added and removed, no criteria allowed', async () => {
    const persons = (await s.api('GET', `/api/projects/${p}/persons/`)).body.results.map((x: any) => x.uuid);
    const c = await s.api('POST', base(), { name: 'static', is_static: true, _create_static_person_ids: [persons[0]] });
    expect(c.status).toBe(201);
    expect(c.body).toMatchObject({ is_static: true, count: 1, cohort_type: 'static' });
    const add = await s.api('PATCH', `${base()}${c.body.id}/add_persons_to_static_cohort/`, { person_ids: persons });
    expect(add.status).toBe(200);
    expect((await s.api('GET', `${base()}${c.body.id}/`)).body.count).toBe(2);
    await s.api('PATCH', `${base()}${c.body.id}/remove_person_from_static_cohort/`, { person_id: persons[0] });
    expect((await s.api('GET', `${base()}${c.body.id}/`)).body.count).toBe(1);

    const dynamic = (await s.api('POST', base(), { name: 'dyn', filters: JANE })).body.id;
    const refused = await s.api('PATCH', `${base()}${dynamic}/add_persons_to_static_cohort/`, { person_ids: persons });
    expect([refused.status, refused.body.detail]).toEqual([400, 'Can only add users to static cohorts']);
    const flip = await s.api('PATCH', `${base()}${dynamic}/`, { is_static: true });
    expect([flip.status, flip.body.attr]).toEqual([400, 'is_static']);
    // criteria given to a static cohort are kept, not evaluated: its persons are its list (PostHog's frontend creates a
    // static cohort with `filters: {"properties": {}}`)
    const withCriteria = await s.api('POST', base(), { name: 's', is_static: true, filters: JANE, _create_static_person_ids: [persons[1]] });
    expect([withCriteria.status, withCriteria.body.filters, withCriteria.body.count, withCriteria.body.cohort_type]).toEqual([201, JANE, 1, 'static']);
    const asTheFrontend = await s.api('POST', base(), { name: 'csv', is_static: true, filters: { properties: {} } });
    expect([asTheFrontend.status, asTheFrontend.body.count, asTheFrontend.body.cohort_type]).toEqual([201, 0, 'static']);
  });
});

describe('activity (test_cohort.py test_cohort_activity_log; CohortViewSet activity / all_activity)', () => {
  it('created without changes, then updated with the changed fields in model order; newest first; a soft delete is an update', async () => {
    const project = (await s.api('POST', '/api/projects/', { name: 'cohort activity' })).body.id;
    const made = await s.api('POST', base(project), { name: 'whatever', groups: [{ properties: { team_id: 5 } }] });
    expect(made.status).toBe(201);
    const id = made.body.id;
    const activity = async (path: string) => {
      const r = await s.api('GET', `${base(project)}${path}`);
      expect(r.status).toBe(200);
      return r.body;
    };
    const created = await activity(`${id}/activity/`);
    expect(created).toMatchObject({ next: null, previous: null, total_count: 1 });
    expect(created.results).toEqual([
      // test_cohort.py assert_cohort_activity compares whole entries: these six keys, the author's first name and email
      {
        user: { email: expect.any(String), first_name: expect.any(String) },
        activity: 'created',
        scope: 'Cohort',
        item_id: String(id),
        detail: { changes: null, trigger: null, type: null, name: 'whatever', short_id: null },
        created_at: expect.stringMatching(/Z$/),
      },
    ]);
    expect((await s.api('PATCH', `${base(project)}${id}/`, { name: 'woohoo', groups: [{ properties: { team_id: 6 } }] })).status).toBe(200);
    const updated = (await activity(`${id}/activity/`)).results;
    expect(updated.map((a: { activity: string }) => a.activity)).toEqual(['updated', 'created']);
    expect(updated[0].detail).toEqual({
      changes: [
        { type: 'Cohort', action: 'changed', field: 'name', before: 'whatever', after: 'woohoo' },
        { type: 'Cohort', action: 'changed', field: 'groups', before: [{ properties: { team_id: 5 } }], after: [{ properties: { team_id: 6 } }] },
      ],
      trigger: null,
      type: null,
      name: 'woohoo',
      short_id: null,
    });
    expect((await s.api('PATCH', `${base(project)}${id}/`, { deleted: true })).status).toBe(200);
    const deleted = (await activity(`${id}/activity/`)).results[0];
    expect([deleted.activity, deleted.detail.changes]).toEqual(['updated', [{ type: 'Cohort', action: 'changed', field: 'deleted', before: false, after: true }]]);
    // every cohort's, paged by `limit` and 1-based `page`
    const second = (await s.api('POST', base(project), { name: 'second', filters: JANE })).body.id;
    const all = await activity('activity/?limit=2');
    expect([all.total_count, all.results.map((a: { item_id: string }) => a.item_id), typeof all.next]).toEqual([4, [String(second), String(id)], 'string']);
    expect((await activity('activity/?limit=2&page=2')).results.map((a: { activity: string }) => a.activity)).toEqual(['updated', 'created']);
    // a cohort of another project, or none, is a 404; the log needs activity_log:read
    expect((await s.api('GET', `${base()}${id}/activity/`)).status).toBe(404);
    expect((await s.api('GET', `${base(project)}999999/activity/`)).status).toBe(404);
    const reader = await newKey({ scopes: ['cohort:read'] });
    expect((await s.api('GET', `${base(project)}${id}/activity/`, undefined, reader)).status).toBe(403);
  });
});

describe('validation', () => {
  it.each([
    ['a behavioral criterion without its window', { filters: { properties: { type: 'AND', values: [{ type: 'behavioral', key: '$pageview', value: 'performed_event', event_type: 'events' }] } } }, 'filters'],
    ['a legacy group of a missing action', { groups: [{ action_id: 987654, days: 7 }] }, 'groups'],
    ['a malformed group', { filters: { properties: { type: 'XOR', values: [] } } }, 'filters'],
    ['an unknown operator', { filters: { properties: { type: 'AND', values: [{ type: 'person', key: 'x', value: 'y', operator: 'sounds_like' }] } } }, 'filters'],
    ['an event property criterion', { filters: { properties: { type: 'AND', values: [{ type: 'event', key: 'x', value: 'y' }] } } }, 'filters'],
    ['a reference to a missing cohort', { filters: { properties: { type: 'AND', values: [{ type: 'cohort', key: 'id', value: 987654 }] } } }, 'filters'],
    ['a name that is not text', { name: 5 }, 'name'],
    ['person ids on a dynamic cohort', { _create_static_person_ids: ['0189e2a4-0000-0000-0000-000000000000'] }, '_create_static_person_ids'],
  ])('%s is a 400', async (_n, body, attr) => {
    const r = await s.api('POST', base(), { name: 'bad', ...body });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ type: 'validation_error', attr });
    expect(typeof r.body.detail).toBe('string');
  });

  it('a cohort may not refer to itself, directly or through another', async () => {
    const a = (await s.api('POST', base(), { name: 'a', filters: JANE })).body.id;
    const b = (await s.api('POST', base(), { name: 'b', filters: { properties: { type: 'AND', values: [{ type: 'cohort', key: 'id', value: a }] } } })).body.id;
    const direct = await s.api('PATCH', `${base()}${a}/`, { filters: { properties: { type: 'AND', values: [{ type: 'cohort', key: 'id', value: a }] } } });
    expect([direct.status, direct.body.attr]).toEqual([400, 'filters']);
    const loop = await s.api('PATCH', `${base()}${a}/`, { filters: { properties: { type: 'AND', values: [{ type: 'cohort', key: 'id', value: b }] } } });
    expect(loop.status).toBe(400);
    expect((await s.api('GET', `${base()}${b}/`)).body.count).toBe(1);
  });

  it('test_creating_update_with_non_directed_cycle: C refers to B and to A, B to A: no loop, created (201)', async () => {
    const a = await s.api('POST', base(), { name: 'cohort A', groups: [{ properties: { team_id: 5 } }] });
    expect(a.status).toBe(201);
    const b = await s.api('POST', base(), { name: 'cohort B', groups: [{ properties: [{ type: 'cohort', value: a.body.id, key: 'id' }] }] });
    expect(b.status).toBe(201);
    const c = await s.api('POST', base(), {
      name: 'cohort C',
      groups: [{ properties: [{ type: 'cohort', value: b.body.id, key: 'id' }, { type: 'cohort', value: a.body.id, key: 'id' }] }],
    });
    expect([c.status, c.body.detail]).toEqual([201, undefined]);
    const viaFilters = await s.api('POST', base(), {
      name: 'cohort D',
      filters: { properties: { type: 'OR', values: [{ type: 'AND', values: [{ type: 'cohort', key: 'id', value: c.body.id }, { type: 'cohort', key: 'id', value: a.body.id }] }] } },
    });
    expect([viaFilters.status, viaFilters.body.detail]).toEqual([201, undefined]);
  });

  it('a reference to another project’s cohort is refused like a missing one', async () => {
    const theirs = (await s.api('POST', base(other), { name: 'theirs', filters: JANE })).body.id;
    const r = await s.api('POST', base(), { name: 'mine', filters: { properties: { type: 'AND', values: [{ type: 'cohort', key: 'id', value: theirs }] } } });
    expect([r.status, r.body.detail]).toEqual([400, `Could not find cohort with ID ${theirs}`]);
  });
});

describe('behavioral cohorts (test_cohort.py)', () => {
  let q: number;
  const ago = (hours: number) => new Date(Date.now() - hours * 3600_000).toISOString();
  const performed = (extra: Record<string, unknown> = {}) => ({ type: 'behavioral', key: '$pageview', event_type: 'events', value: 'performed_event', time_value: 1, time_interval: 'day', ...extra });
  const create = (body: Record<string, unknown>, project = q) => s.api('POST', base(project), { name: 'behavioral', ...body });

  beforeAll(async () => {
    q = (await s.api('POST', '/api/projects/', { name: 'behavioral cohorts' })).body.id;
    await s.server.services.ingestor.import(q, {
      persons: [
        { distinct_ids: ['p1'], properties: { $some_prop: 'something' } },
        { distinct_ids: ['p2'], properties: {} },
        { distinct_ids: ['p3'], properties: {} },
      ],
      events: [
        { event: '$pageview', distinct_id: 'p2', timestamp: ago(12), properties: {} },
        { event: '$pageview', distinct_id: 'p3', timestamp: ago(24 * 5), properties: {} },
        { event: '$pageview', distinct_id: 'p3', timestamp: ago(24 * 6), properties: {} },
        { event: 'signed up', distinct_id: 'p3', timestamp: ago(24 * 6), properties: {} },
      ],
    });
    await s.server.services.ingestor.flush();
  });

  it('test_creating_update_and_calculating_with_new_cohort_filters: person and behavioral criteria ORed; count and type follow the events', async () => {
    const filters = { properties: { type: 'OR', values: [{ type: 'OR', values: [{ key: '$some_prop', value: 'something', type: 'person' }, performed()] }] } };
    const r = await create({ filters });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ filters, count: 2, cohort_type: 'behavioral', is_static: false });
    // a week back: p3's pageviews count too
    const wider = { properties: { type: 'OR', values: [{ key: '$some_prop', value: 'something', type: 'person' }, performed({ time_value: 1, time_interval: 'week' })] } };
    const u = await s.api('PATCH', `${base(q)}${r.body.id}/`, { filters: wider });
    expect([u.status, u.body.count]).toEqual([200, 3]);
  });

  it('test_calculating_with_new_cohort_event_filters: event_filters narrow the events of a performed_event criterion', async () => {
    const r = await s.api('POST', '/api/projects/', { name: 'behavioral event filters' });
    const project = r.body.id;
    await s.server.services.ingestor.import(project, {
      persons: [
        { distinct_ids: ['p1'], properties: { $some_prop: 'something' } },
        { distinct_ids: ['p2'], properties: { $some_prop: 'not it' } },
        { distinct_ids: ['p3'], properties: { $some_prop: 'not it' } },
      ],
      events: [
        { event: '$pageview', distinct_id: 'p1', timestamp: ago(12), properties: { $filter_prop: 'something' } },
        { event: '$pageview', distinct_id: 'p2', timestamp: ago(12), properties: { $filter_prop: 'something2' } },
        { event: '$pageview', distinct_id: 'p3', timestamp: ago(24 * 31), properties: { $filter_prop: 'something2' } },
      ],
    });
    await s.server.services.ingestor.flush();
    const made = await create(
      { name: 'cohort A', filters: { properties: { type: 'OR', values: [performed({ event_filters: [{ key: '$filter_prop', value: 'something', operator: 'exact', type: 'event' }] })] } } },
      project,
    );
    expect([made.status, made.body.count, made.body.is_calculating]).toEqual([201, 1, false]);
    const persons = await s.api('GET', `${base(project)}${made.body.id}/persons/?cohort=${made.body.id}`);
    expect(persons.body.results.map((x: { distinct_ids: string[] }) => x.distinct_ids)).toEqual([['p1']]);
  });

  it('performed_event_multiple and the analytical kinds count their persons; cohort_type tells them apart', async () => {
    const multiple = await create({ filters: { properties: { type: 'AND', values: [performed({ value: 'performed_event_multiple', operator: 'gte', operator_value: 2, time_interval: 'week' })] } } });
    expect([multiple.status, multiple.body.count, multiple.body.cohort_type]).toEqual([201, 1, 'behavioral']);
    const stopped = await create({
      filters: { properties: { type: 'AND', values: [performed({ value: 'stopped_performing_event', time_value: 7, time_interval: 'day', seq_time_value: 2, seq_time_interval: 'day' })] } },
    });
    expect([stopped.status, stopped.body.count, stopped.body.cohort_type]).toEqual([201, 1, 'analytical']);
    // a cohort referring to a behavioral one is of its type, and counts through it
    const ref = await create({ filters: { properties: { type: 'AND', values: [{ type: 'cohort', key: 'id', value: multiple.body.id }] } } });
    expect([ref.status, ref.body.count, ref.body.cohort_type]).toEqual([201, 1, 'behavioral']);
    const listed = (await s.api('GET', base(q))).body.results.find((c: any) => c.id === stopped.body.id);
    expect(listed).toMatchObject({ count: 1, cohort_type: 'analytical' });
  });

  it('legacy groups: an action_id group over an action of the project, an event_id group with a count', async () => {
    const action = await s.api('POST', `/api/projects/${q}/actions/`, { name: 'signups', steps: [{ event: 'signed up' }] });
    expect(action.status).toBe(201);
    const byAction = await create({ groups: [{ action_id: action.body.id, days: 7 }] });
    expect([byAction.status, byAction.body.count]).toEqual([201, 1]);
    const byEvent = await create({ groups: [{ event_id: '$pageview', days: 7, count: 2, count_operator: 'gte' }, { properties: [{ key: '$some_prop', value: 'something', type: 'person' }] }] });
    expect([byEvent.status, byEvent.body.count]).toEqual([201, 2]);
    // another project cannot use this project's action
    const theirs = await create({ groups: [{ action_id: action.body.id, days: 7 }] }, p);
    expect([theirs.status, theirs.body.detail, theirs.body.attr]).toEqual([400, `Action ${action.body.id} does not exist.`, 'groups']);
  });

  it('a trends insight filtered by a behavioral cohort counts its persons’ events only', async () => {
    const id = (await create({ filters: { properties: { type: 'AND', values: [performed({ time_interval: 'week', value: 'performed_event_multiple', operator: 'eq', operator_value: 1 })] } } })).body.id;
    const r = await s.api('POST', `/api/projects/${q}/query/`, {
      query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '-14d' }, properties: [{ type: 'cohort', key: 'id', value: id }] },
    });
    expect(r.status).toBe(200);
    expect(r.body.results[0].count).toBe(1);
  });

  it.each([
    ['a lone negated criterion', { type: 'AND', values: [performed({ negation: true })] }, 'Negations must be paired with a positive filter.'],
    ['an unknown behavioral value', { type: 'AND', values: [performed({ value: 'performed_event_sometimes' })] }, expect.stringContaining('Unknown behavioral criterion')],
  ])('%s is a 400', async (_n, properties, detail) => {
    const r = await create({ filters: { properties } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ type: 'validation_error', attr: 'filters', detail });
  });
});

describe('scopes and tenancy', () => {
  it('cohort:read reads, cohort:write writes; other scopes get 403', async () => {
    const id = (await s.api('POST', base(), { name: 'scoped', filters: JANE })).body.id;
    const reader = await newKey({ scopes: ['cohort:read'] });
    expect((await s.api('GET', base(), undefined, reader)).status).toBe(200);
    expect((await s.api('GET', `${base()}${id}/`, undefined, reader)).status).toBe(200);
    const denied = await s.api('POST', base(), { name: 'no' }, reader);
    expect([denied.status, denied.body.detail]).toEqual([403, "API key missing required scope 'cohort:write'"]);
    expect((await s.api('PATCH', `${base()}${id}/`, { deleted: true }, reader)).status).toBe(403);
    const insights = await newKey({ scopes: ['insight:write'] });
    const none = await s.api('GET', base(), undefined, insights);
    expect([none.status, none.body.detail]).toEqual([403, "API key missing required scope 'cohort:read'"]);
    const writer = await newKey({ scopes: ['cohort:write'] });
    expect((await s.api('POST', base(), { name: 'yes' }, writer)).status).toBe(201);
  });

  it('another project’s cohort is a 404 under this project, and a key scoped to one project sees no other', async () => {
    const theirs = (await s.api('POST', base(other), { name: 'theirs' })).body.id;
    expect((await s.api('GET', `${base()}${theirs}/`)).status).toBe(404);
    expect((await s.api('PATCH', `${base()}${theirs}/`, { name: 'stolen' })).status).toBe(404);
    expect((await s.api('GET', `${base(other)}${theirs}/`)).body.name).toBe('theirs');
    expect((await s.api('GET', base())).body.results.map((c: any) => c.id)).not.toContain(theirs);

    const key = await newKey({ scopes: ['cohort:write'], scoped_teams: [p] });
    // outside the key's projects: PostHog's 403 naming the project (posthog-api.md §3.2)
    expect((await s.api('GET', base(other), undefined, key)).status).toBe(403);
    expect((await s.api('GET', `${base(other)}${theirs}/`, undefined, key)).status).toBe(403);
    expect((await s.api('POST', base(other), { name: 'x' }, key)).status).toBe(403);
    expect((await s.api('GET', base(), undefined, key)).status).toBe(200);
  });

  it('a missing or malformed id is a 404', async () => {
    expect((await s.api('GET', `${base()}999999/`)).status).toBe(404);
    expect((await s.api('GET', `${base()}abc/`)).status).toBe(404);
  });
});
