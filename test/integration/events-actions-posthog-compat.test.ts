/**
 * The events and actions REST APIs against PostHog's own tests, a further batch: posthog/api/test/test_event.py
 * (retrieve by UUID and its 400/404, relative and absolute `before`/`after`, events in the future, paging 250 events
 * by the `next` link, the CSV export's limits, event name and element filters, property values) and
 * posthog/api/test/test_action.py (update, name uniqueness on update, the DRF validation of the serializer's fields,
 * pinning, the count endpoint with the events filter, scopes and isolation). Cases already pinned elsewhere
 * (persons-events-compat.ts, actions-http.test.ts, src/actions/actions-posthog-compat*.test.ts) are not repeated.
 * One server for the file; each describe its own project (PostHog's tests each get a fresh team); the clock is frozen
 * as the PostHog test freezes it.
 */
import { useInsightsClock } from '../../src/queries/insights/testing';
import { newKey, newProject, startServer, type TestServer } from '../helpers/server';

let s: TestServer;
const freeze = useInsightsClock('each');

interface Ev {
  event: string;
  distinct_id: string;
  timestamp: string;
  properties?: Record<string, unknown>;
}
async function seed(name: string, events: Ev[], persons: unknown[] = []): Promise<number> {
  const p = await newProject(s, name);
  await s.server.services.ingestor.import(p, { persons, events: events.map((e) => ({ properties: {}, ...e })) });
  await s.server.services.ingestor.flush();
  return p;
}
const get = async (path: string) => {
  const r = await s.api('GET', path);
  expect([r.status, r.body?.detail]).toEqual([200, undefined]);
  return r.body;
};
/** A `next` link followed on the test server. */
const follow = async (next: string) => {
  const u = new URL(next);
  return get(u.pathname + u.search);
};
const props = (x: unknown) => encodeURIComponent(JSON.stringify(x));

beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => {
  await s?.close();
});

describe('posthog/api/test/test_event.py: retrieve', () => {
  let p: number;
  let other: number;
  let id: string;
  beforeAll(async () => {
    p = await seed('events retrieve', [{ event: 'event', distinct_id: '1', timestamp: '2024-03-01T10:00:00Z', properties: { key: 'test_val' } }], [
      { distinct_ids: ['1'], properties: { email: 'someone@posthog.com', plan: 'x' }, is_identified: true },
    ]);
    other = await seed('events retrieve other', [{ event: 'theirs', distinct_id: '1', timestamp: '2024-03-01T10:00:00Z' }]);
    id = (await get(`/api/projects/${p}/events/`)).results[0].id;
  });

  it('test_get_event_by_id: the event, its properties, and with include_person its person (display properties only)', async () => {
    const r = await get(`/api/projects/${p}/events/${id}?include_person=True`);
    expect(r).toMatchObject({ id, event: 'event', distinct_id: '1', properties: { key: 'test_val' }, elements: [], elements_chain: '' });
    expect(r.person).toEqual({ distinct_ids: ['1'], is_identified: true, properties: { email: 'someone@posthog.com' } });
    expect(r.timestamp).toBe('2024-03-01T10:00:00+00:00');
  });

  it('retrieve without include_person has person null (EventViewSet.retrieve loads people only when asked); the list always has it', async () => {
    const r = await get(`/api/projects/${p}/events/${id}/`);
    expect(r.person).toBeNull();
    const listed = (await get(`/api/projects/${p}/events/`)).results[0];
    expect({ ...listed, person: null }).toEqual(r);
    expect(listed.person).toEqual((await get(`/api/projects/${p}/events/${id}/?include_person=1`)).person);
    expect((await get(`/api/projects/${p}/events/${id}/?include_person=`)).person).toBeNull();
  });

  it('the person shows its first distinct id only (`distinct_ids[:1]`), whichever of its ids the event has', async () => {
    const q = await seed(
      'events first distinct id',
      [
        { event: 'by anon', distinct_id: 'anon-1', timestamp: '2024-03-01T10:00:00Z' },
        { event: 'by user', distinct_id: 'user-1', timestamp: '2024-03-01T11:00:00Z' },
      ],
      [{ distinct_ids: ['user-1', 'anon-1'], properties: { name: 'Jane', plan: 'pro' } }],
    );
    const rows = (await get(`/api/projects/${q}/events/`)).results;
    expect(rows.map((e: any) => [e.event, e.distinct_id, e.person.distinct_ids, e.person.properties])).toEqual([
      ['by user', 'user-1', ['user-1'], { name: 'Jane' }],
      ['by anon', 'anon-1', ['user-1'], { name: 'Jane' }],
    ]);
    expect((await get(`/api/projects/${q}/events/${rows[1].id}/?include_person=true`)).person.distinct_ids).toEqual(['user-1']);
  });

  it.each(['123456', 'im_a_string_not_an_integer', `${'0'.repeat(31)}g`])('test_get_event_by_id: %s is no UUID: 400 "Invalid UUID" (EventViewSet.retrieve)', async (bad) => {
    const r = await s.api('GET', `/api/projects/${p}/events/${bad}/`);
    expect([r.status, r.body]).toEqual([400, { detail: 'Invalid UUID', code: 'invalid', type: 'validation_error' }]);
  });

  it('a UUID no event has: 404 "No events exist for event UUID …"; another project’s event likewise', async () => {
    const unknown = '0190d1c7-0000-7000-8000-000000000000';
    const r = await s.api('GET', `/api/projects/${p}/events/${unknown}/`);
    expect([r.status, r.body]).toEqual([404, { type: 'invalid_request', code: 'not_found', detail: `No events exist for event UUID ${unknown}`, attr: null }]);
    const theirs = (await get(`/api/projects/${other}/events/`)).results[0].id;
    const cross = await s.api('GET', `/api/projects/${p}/events/${theirs}/`);
    expect([cross.status, cross.body.detail]).toEqual([404, `No events exist for event UUID ${theirs}`]);
  });

  it('the UUID is read as PostHog reads it (`pk.replace("-", "")`): without dashes, or in capitals, is the same event', async () => {
    expect((await get(`/api/projects/${p}/events/${id.replace(/-/g, '')}/`)).id).toBe(id);
    expect((await get(`/api/projects/${p}/events/${id.toUpperCase()}/`)).id).toBe(id);
  });

  it('served under /api/environments/ too, with or without the trailing slash', async () => {
    expect((await get(`/api/environments/${p}/events/${id}`)).id).toBe(id);
    expect((await get(`/api/environments/${p}/events?event=event`)).results.map((e: { id: string }) => e.id)).toEqual([id]);
    const bad = await s.api('GET', `/api/environments/${p}/events/nope/`);
    expect([bad.status, bad.body.detail]).toEqual([400, 'Invalid UUID']);
  });

  it('an id that is no UUID is checked after the key: no query:read is a 403, not the 400', async () => {
    const key = await newKey(s, ['action:read']);
    const r = await s.api('GET', `/api/projects/${p}/events/123456/`, undefined, key);
    expect([r.status, r.body.detail]).toEqual([403, "API key missing required scope 'query:read'"]);
    expect((await s.api('GET', `/api/projects/${p}/events/123456/`, undefined, null)).status).toBe(401);
  });

  it('the events API is read-only (EventViewSet: list and retrieve mixins): other methods are DRF’s 405', async () => {
    for (const [method, path] of [
      ['POST', `/api/projects/${p}/events/`],
      ['DELETE', `/api/projects/${p}/events/${id}/`],
      ['PATCH', `/api/projects/${p}/events/${id}/`],
    ] as const) {
      const r = await s.api(method, path, method === 'DELETE' ? undefined : {});
      expect([method, r.status, r.body]).toEqual([method, 405, { type: 'invalid_request', code: 'method_not_allowed', detail: `Method "${method}" not allowed.`, attr: null }]);
    }
    expect((await get(`/api/projects/${p}/events/${id}/`)).id).toBe(id);
  });

  it('list and retrieve need query:read (EventViewSet scope_object "query"); a key of another project is refused', async () => {
    const key = await newKey(s, ['action:read', 'person:read']);
    for (const path of [`/api/projects/${p}/events/`, `/api/projects/${p}/events/${id}/`]) {
      const r = await s.api('GET', path, undefined, key);
      expect([r.status, r.body.detail]).toEqual([403, "API key missing required scope 'query:read'"]);
    }
    const scoped = await newKey(s, ['query:read'], { scoped_teams: [other] });
    expect((await s.api('GET', `/api/projects/${p}/events/${id}/`, undefined, scoped)).status).toBe(403);
    expect((await s.api('GET', `/api/projects/${other}/events/`, undefined, scoped)).status).toBe(200);
  });
});

describe('posthog/api/test/test_event.py: before and after', () => {
  let p: number;
  let action: number;
  beforeAll(async () => {
    p = await seed(
      'events before after',
      [
        { event: 'sign up', distinct_id: '2', timestamp: '2020-01-10T00:00:00Z' },
        { event: 'sign up', distinct_id: '2', timestamp: '2020-01-08T00:00:00Z' },
        { event: 'random other event', distinct_id: '2', timestamp: '2020-01-07T00:00:00Z' },
      ],
      [{ distinct_ids: ['2', 'some-random-uid'], properties: { email: 'tim@posthog.com' } }],
    );
    const a = await s.api('POST', `/api/projects/${p}/actions/`, { name: 'sign up', steps: [{ event: 'sign up' }] });
    action = a.body.id;
  });

  it.each([
    ['after=4d&before=1d', 2],
    ['after=6d&before=2h', 3],
    ['before=4d', 1],
    ['after=5d', 3],
    ['after=-4d&before=-1d', 2],
  ])('test_before_and_after: relative values (sign optional, as relative_date_parse reads them), %s', async (qs, n) => {
    freeze('2020-01-11T12:03:03.829294Z');
    expect((await get(`/api/projects/${p}/events/?${qs}`)).results).toHaveLength(n);
  });

  it('test_before_and_after: absolute values, and after with an action', async () => {
    expect((await get(`/api/projects/${p}/events/?after=2020-01-09&before=2020-01-11`)).results).toHaveLength(1);
    expect((await get(`/api/projects/${p}/events/?after=2020-01-06&before=2020-01-09`)).results).toHaveLength(2);
    expect((await get(`/api/projects/${p}/events/?after=2020-01-09T00:00:00.000Z&action_id=${action}`)).results).toHaveLength(1);
    expect((await get(`/api/projects/${p}/events/?action_id=${action}`)).results.map((e: Ev) => e.event)).toEqual(['sign up', 'sign up']);
  });

  it('test_events_in_future: events more than 5 seconds after now are not listed', async () => {
    const q = await seed('events future', [
      { event: '5th action', distinct_id: '2', timestamp: '2012-01-15T04:01:34.000Z', properties: { $os: 'Windows 95' } },
      { event: '5th action', distinct_id: '2', timestamp: '2012-01-15T04:01:44.000Z', properties: { $os: 'Windows 95' } },
    ]);
    freeze('2012-01-15T04:01:34.000Z');
    expect((await get(`/api/projects/${q}/events/`)).results).toHaveLength(1);
    freeze('2012-01-15T04:01:40.000Z');
    expect((await get(`/api/projects/${q}/events/`)).results).toHaveLength(2);
  });
});

describe('posthog/api/test/test_event.py: paging and the CSV export', () => {
  let p: number;
  const DAY = 86_400_000;
  beforeAll(async () => {
    // test_pagination: 250 events of distinct id 1, from 11 months before 2021-10-10T12:03:03Z, a day and a second apart
    const start = Date.parse('2020-11-10T12:03:03.829Z');
    p = await seed(
      'events paging',
      Array.from({ length: 250 }, (_, idx) => ({ event: 'some event', distinct_id: '1', timestamp: new Date(start + idx * (DAY + 1000)).toISOString(), properties: { idx } })),
      [{ distinct_ids: ['1'] }],
    );
  });

  it('test_pagination: 100 a page by default, the next link keeps the parameters and adds before, 100 + 100 + 50', async () => {
    freeze('2021-10-10T12:03:03.829294Z');
    const first = await get(`/api/projects/${p}/events/?distinct_id=1`);
    expect(first.results).toHaveLength(100);
    expect(decodeURIComponent(first.next)).toContain(`/api/projects/${p}/events/?distinct_id=1&before=`);
    expect(new URL(first.next).searchParams.get('before')).toBe(first.results[99].timestamp);
    const page2 = await follow(first.next);
    expect(page2.results).toHaveLength(100);
    expect(page2.results.map((e: { properties: { idx: number } }) => e.properties.idx)).toEqual(Array.from({ length: 100 }, (_, i) => 149 - i));
    const page3 = await follow(page2.next);
    expect([page3.results.length, page3.next]).toEqual([50, null]);
    expect(page3.results[49].properties.idx).toBe(0);
  });

  it('test_events_csv_export_with_param_limit: events.csv?limit=100 is 100 lines and a header', async () => {
    freeze('2021-10-10T12:03:03.829294Z');
    const r = await s.api('GET', `/api/projects/${p}/events.csv?limit=100`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = r.text.split(/\r?\n/).filter((l) => l !== '');
    expect(lines).toHaveLength(101);
    expect(lines[0].split(',')).toEqual(expect.arrayContaining(['event', 'distinct_id', 'id', 'timestamp', 'properties.idx']));
  });

  it('test_events_csv_export_default_limit: without a limit the CSV has every event (no page of 100), and no next', async () => {
    freeze('2021-10-10T12:03:03.829294Z');
    const r = await s.api('GET', `/api/projects/${p}/events.csv`);
    expect([r.status, r.text.split(/\r?\n/).filter((l) => l !== '').length]).toEqual([200, 251]);
    const q = await s.api('GET', `/api/projects/${p}/events/?format=csv&limit=10&distinct_id=1`);
    expect([q.status, q.text.split(/\r?\n/).filter((l) => l !== '').length]).toEqual([200, 11]);
  });

  it('a JSON limit above a page is clamped, never refused (EventViewSet.list: `min(limit, CSV_EXPORT_MAXIMUM_LIMIT)`): ?limit=2000 is every event, no next', async () => {
    freeze('2021-10-10T12:03:03.829294Z');
    const r = await s.api('GET', `/api/projects/${p}/events/?distinct_id=1&limit=2000`);
    expect([r.status, r.body.results?.length, r.body.next]).toEqual([200, 250, null]);
    const page = await get(`/api/projects/${p}/events/?distinct_id=1&limit=1200`);
    expect(page.results.map((e: { properties: { idx: number } }) => e.properties.idx).slice(0, 2)).toEqual([249, 248]);
  });

  it('format=json is the JSON list; a format no renderer has is a 404', async () => {
    freeze('2021-10-10T12:03:03.829294Z');
    expect((await get(`/api/projects/${p}/events/?format=json&limit=1`)).results).toHaveLength(1);
    expect((await s.api('GET', `/api/projects/${p}/events/?format=xml`)).status).toBe(404);
  });
});

describe('posthog/api/test/test_event.py: filters', () => {
  let p: number;
  const list = async (qs: string): Promise<any[]> => (await get(`/api/projects/${p}/events/?${qs}`)).results;
  beforeAll(async () => {
    p = await seed(
      'events filters',
      [
        { event: 'event_name', distinct_id: '2', timestamp: '2024-02-01T10:00:00Z', properties: { $browser: 'Chrome' } },
        { event: 'event_name', distinct_id: '2', timestamp: '2024-02-01T10:00:01Z', properties: { $browser: 'Safari' } },
        { event: 'another event', distinct_id: 'some-other-one', timestamp: '2024-02-01T10:00:02Z' },
        {
          event: '$autocapture',
          distinct_id: '2',
          timestamp: '2024-02-01T10:00:03Z',
          properties: { $ip: '8.8.8.8', $elements: [{ tag_name: 'button', $el_text: 'something', nth_child: 1, nth_of_type: 1 }, { tag_name: 'div', nth_child: 1, nth_of_type: 1 }] },
        },
        { event: 'should_be_excluded', distinct_id: '2', timestamp: '2024-02-01T10:00:04Z', properties: { prop_that_is_a_unix_timestamp: Date.UTC(2012, 0, 7, 18) / 1000 } },
        { event: 'should_be_included', distinct_id: '2', timestamp: '2024-02-01T10:00:05Z', properties: { prop_that_is_a_unix_timestamp: Date.UTC(2012, 0, 7, 19) / 1000 } },
      ],
      [{ distinct_ids: ['2', 'some-random-uid'], properties: { email: 'tim@posthog.com' }, is_identified: true }],
    );
  });

  it('test_filter_events_by_event_name: only that event; an event nobody sent gives no events and no next', async () => {
    expect((await list('event=event_name')).map((e) => e.event)).toEqual(['event_name', 'event_name']);
    expect(await get(`/api/projects/${p}/events/?event=nope`)).toEqual({ next: null, results: [] });
  });

  it('test_filter_events: the elements of an autocapture event, innermost first, and its elements_chain', async () => {
    const [e] = await list('event=%24autocapture');
    expect(e.elements.map((x: any) => [x.tag_name, x.text, x.order])).toEqual([
      ['button', 'something', 0],
      ['div', null, 1],
    ]);
    expect(e.elements_chain).toContain('button');
    expect(e.properties).toEqual({ $ip: '8.8.8.8' });
  });

  it.each([
    ['tag_name', [{ key: 'tag_name', value: 'button', type: 'element' }], ['$autocapture']],
    ['a selector', [{ key: 'selector', value: 'div > button', type: 'element' }], ['$autocapture']],
    ['a selector nothing matches', [{ key: 'selector', value: 'span > button', type: 'element' }], []],
    ['text exact', [{ key: 'text', value: 'something', type: 'element' }], ['$autocapture']],
    ['a list of tag names is any of them', [{ key: 'tag_name', value: ['a', 'div'], type: 'element' }], ['$autocapture']],
  ])('properties: an element filter, %s (property_to_expr type element)', async (_n, filter, want) => {
    expect((await list(`properties=${props(filter)}`)).map((e) => e.event)).toEqual(want);
  });

  it('test_filter_events_by_precalculated_cohort: the events of the cohort’s persons', async () => {
    const q = await seed(
      'events cohort',
      ['p1', 'p2', 'p3'].map((d) => ({ event: '$pageview', distinct_id: d, timestamp: '2020-01-02T12:00:00Z' })),
      [
        { distinct_ids: ['p1'], properties: { key: 'value' } },
        { distinct_ids: ['p2'], properties: { key: 'value' } },
        { distinct_ids: ['p3'], properties: { key_2: 'value_2' } },
      ],
    );
    const cohort = await s.api('POST', `/api/projects/${q}/cohorts/`, { name: 'cohort1', groups: [{ properties: [{ key: 'key', value: 'value', type: 'person' }] }] });
    expect(cohort.status).toBe(201);
    freeze('2020-01-10T00:00:00Z');
    const r = await get(`/api/projects/${q}/events/?properties=${props([{ key: 'id', value: cohort.body.id, type: 'cohort' }])}`);
    expect(r.results.map((e: Ev) => e.distinct_id).sort()).toEqual(['p1', 'p2']);
  });

  it('properties: is_date_before on a unix timestamp property (the mirror of is_date_after)', async () => {
    const f = [{ key: 'prop_that_is_a_unix_timestamp', value: '2012-01-07 18:30:00', operator: 'is_date_before', type: 'event' }];
    expect((await list(`properties=${props(f)}`)).map((e) => e.event)).toEqual(['should_be_excluded']);
  });

  it('event, distinct_id and properties together are ANDed', async () => {
    const f = [{ key: '$browser', value: 'Safari' }];
    expect((await list(`event=event_name&distinct_id=2&properties=${props(f)}`)).map((e) => e.properties)).toEqual([{ $browser: 'Safari' }]);
    expect(await list(`event=another%20event&distinct_id=2`)).toEqual([]);
  });

  it('empty parameters as query_events_list reads them: event= and distinct_id= compare with "" (no events), action_id= is no filter (`if action_id:`)', async () => {
    expect(await get(`/api/projects/${p}/events/?event=`)).toEqual({ next: null, results: [] });
    expect(await get(`/api/projects/${p}/events/?distinct_id=`)).toEqual({ next: null, results: [] });
    expect(await list('action_id=')).toHaveLength(6);
    expect((await list('action_id=&event=event_name')).map((e) => e.event)).toEqual(['event_name', 'event_name']);
  });

  it('the values of the distinct_id column (is_column=true), and value search over them', async () => {
    freeze('2024-02-03T00:00:00Z');
    const r = await get(`/api/projects/${p}/events/values/?key=distinct_id&is_column=true`);
    expect(r.map((x: { name: string }) => x.name).sort()).toEqual(['2', 'some-other-one']);
    expect(await get(`/api/projects/${p}/events/values/?key=distinct_id&is_column=true&value=other`)).toEqual([{ name: 'some-other-one' }]);
    expect(await get(`/api/projects/${p}/events/values/?key=$browser&event_name=another%20event`)).toEqual([]);
  });

  it('values without a key, or with an empty one: [] (EventViewSet.values looks values up only `elif key:`)', async () => {
    freeze('2024-02-03T00:00:00Z');
    for (const qs of ['', '?key=', '?value=x&event_name=event_name']) expect([qs, await get(`/api/projects/${p}/events/values/${qs}`)]).toEqual([qs, []]);
  });
});

describe('posthog/api/test/test_action.py', () => {
  let p: number;
  let other: number;
  const base = () => `/api/projects/${p}/actions/`;
  const create = async (body: Record<string, unknown>, project = p) => {
    const r = await s.api('POST', `/api/projects/${project}/actions/`, body);
    expect([r.status, r.body?.detail]).toEqual([201, undefined]);
    return r.body;
  };
  beforeAll(async () => {
    p = await seed(
      'actions',
      [
        { event: 'sign up', distinct_id: 'a', timestamp: '2024-01-01T10:00:00Z', properties: { $browser: 'Chrome' } },
        { event: 'sign up', distinct_id: 'b', timestamp: '2024-01-02T10:00:00Z', properties: { $browser: 'Safari' } },
        { event: '$pageview', distinct_id: 'a', timestamp: '2024-01-03T10:00:00Z', properties: { $current_url: 'https://posthog.com/signup' } },
      ],
    );
    other = await seed('actions other', [{ event: 'sign up', distinct_id: 'a', timestamp: '2024-01-01T10:00:00Z' }]);
  });

  it('test_update_action: the fields given change, steps are replaced, created_by in the body is ignored', async () => {
    const a = await create({ name: 'user signed up', steps: [{ text: 'sign me up!', event: '$autocapture' }, { href: '/a-url', selector: 'a' }] });
    const r = await s.api('PATCH', `${base()}${a.id}/`, {
      name: 'user signed up 2',
      steps: [{ text: 'sign up NOW', selector: 'div > button', properties: [{ key: '$browser', value: 'Chrome' }], url: null }, { href: '/a-new-link' }],
      description: 'updated description',
      created_by: -1,
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      ...a,
      name: 'user signed up 2',
      description: 'updated description',
      steps: [
        { event: null, properties: [{ key: '$browser', value: 'Chrome' }], selector: 'div > button', tag_name: null, text: 'sign up NOW', text_matching: null, href: null, href_matching: null, url: null, url_matching: 'contains' },
        { event: null, properties: [], selector: null, tag_name: null, text: null, text_matching: null, href: '/a-new-link', href_matching: null, url: null, url_matching: 'contains' },
      ],
      updated_at: expect.any(String),
      last_calculated_at: expect.any(String),
    });
    expect(r.body.created_by).toEqual(a.created_by);
    expect((await get(`${base()}${a.id}/`)).name).toBe('user signed up 2');
  });

  it('test_cant_update_action_with_the_same_name: the other live action’s ID; its own name is no collision', async () => {
    const first = await create({ name: 'taken name' });
    const second = await create({ name: 'free name' });
    const r = await s.api('PATCH', `${base()}${second.id}/`, { name: 'taken name' });
    expect([r.status, r.body]).toEqual([400, { type: 'validation_error', code: 'unique', detail: `This project already has an action with this name, ID ${first.id}`, attr: 'name' }]);
    expect((await s.api('PATCH', `${base()}${first.id}/`, { name: 'taken name', description: 'same name' })).status).toBe(200);
    expect((await s.api('PATCH', `${base()}${second.id}/`, { description: 'no name given' })).status).toBe(200);
    expect((await get(`${base()}${second.id}/`)).name).toBe('free name');
  });

  it('a name in another project is no collision, nor a soft-deleted action’s; a deleted action may take a live one’s name', async () => {
    const mine = await create({ name: 'shared name' });
    await create({ name: 'shared name' }, other);
    const gone = await create({ name: 'to be deleted' });
    expect((await s.api('PATCH', `${base()}${gone.id}/`, { deleted: true })).body.deleted).toBe(true);
    await create({ name: 'to be deleted' });
    expect((await s.api('PATCH', `${base()}${gone.id}/`, { name: 'shared name', deleted: true })).status).toBe(200);
    expect(mine.name).toBe('shared name');
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['name over 400 characters', { name: 'n'.repeat(401) }, { code: 'max_length', detail: 'Ensure this field has no more than 400 characters.', attr: 'name' }],
    ['slack_message_format over 1200 characters', { name: 'slack long', slack_message_format: 'x'.repeat(1201) }, { code: 'max_length', detail: 'Ensure this field has no more than 1200 characters.', attr: 'slack_message_format' }],
    ['description null (a TextField without null)', { name: 'null description', description: null }, { code: 'null', detail: 'This field may not be null.', attr: 'description' }],
    ['slack_message_format null', { name: 'null slack', slack_message_format: null }, { code: 'null', detail: 'This field may not be null.', attr: 'slack_message_format' }],
    ['post_to_slack not a boolean', { name: 'bad bool', post_to_slack: 'maybe' }, { code: 'invalid_input', detail: 'Must be a valid boolean.', attr: 'post_to_slack' }],
    ['deleted a list', { name: 'bad deleted', deleted: [] }, { code: 'invalid_input', detail: 'Must be a valid boolean.', attr: 'deleted' }],
    [
      'pinned_at not a datetime',
      { name: 'bad pin', pinned_at: 'yesterday' },
      { code: 'invalid_input', detail: 'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].', attr: 'pinned_at' },
    ],
  ])('DRF validation of the ActionSerializer: %s is a 400', async (_n, body, want) => {
    const r = await s.api('POST', base(), body);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ type: 'validation_error', ...want });
  });

  it('DRF’s BooleanField takes its true/false words; a CharField trims the name (and the uniqueness check sees the trimmed one)', async () => {
    const a = await create({ name: '  trimmed name  ', post_to_slack: 'true', deleted: 'false' });
    expect([a.name, a.post_to_slack, a.deleted]).toEqual(['trimmed name', true, false]);
    const dup = await s.api('POST', base(), { name: 'trimmed name ' });
    expect([dup.status, dup.body.detail]).toEqual([400, `This project already has an action with this name, ID ${a.id}`]);
  });

  it('step fields are DRF CharFields: trimmed (but event, trim_whitespace=False), a number is its text, a boolean is refused', async () => {
    const a = await create({ name: 'trimmed steps', steps: [{ event: 'sign up ', url: '  /signup ', url_matching: 'exact', text: ' Sign up ', selector: ' div > a ', href: 5 }] });
    expect(a.steps[0]).toMatchObject({ event: 'sign up ', url: '/signup', text: 'Sign up', selector: 'div > a', href: '5' });
    const bad = await s.api('POST', base(), { name: 'bool url', steps: [{ event: 'x' }, { url: true }] });
    expect([bad.status, bad.body]).toEqual([400, { type: 'validation_error', code: 'invalid_input', detail: 'Not a valid string.', attr: 'steps__1__url' }]);
  });

  it('read-only fields of the ActionSerializer in the body are ignored (id, team_id, created_by, is_calculating, …)', async () => {
    const a = await create({
      name: 'read-only fields',
      id: 1,
      team_id: other,
      created_by: { id: -1 },
      created_at: '2000-01-01T00:00:00Z',
      is_calculating: true,
      is_action: false,
      bytecode_error: 'x',
      last_calculated_at: '2000-01-01T00:00:00Z',
    });
    expect([a.team_id, a.is_calculating, a.is_action, a.bytecode_error, a.created_by?.id]).toEqual([p, false, true, null, expect.any(Number)]);
    expect(a.created_at.startsWith('2000')).toBe(false);
    expect(a.last_calculated_at.startsWith('2000')).toBe(false);
    expect((await get(`/api/projects/${other}/actions/`)).results.map((x: { name: string }) => x.name)).not.toContain('read-only fields');
  });

  it('a name of exactly 400 characters is accepted; no name is an action named null', async () => {
    expect((await create({ name: 'n'.repeat(400) })).name).toHaveLength(400);
    const unnamed = await create({ steps: [{ event: 'sign up' }] });
    expect([unnamed.name, unnamed.description, unnamed.tags, unnamed.post_to_slack, unnamed.slack_message_format]).toEqual([null, '', [], false, '']);
  });

  it('post_to_slack and slack_message_format are kept and changed', async () => {
    const a = await create({ name: 'to slack', post_to_slack: true, slack_message_format: '[action.name] by [person]' });
    expect([a.post_to_slack, a.slack_message_format]).toEqual([true, '[action.name] by [person]']);
    const r = await s.api('PATCH', `${base()}${a.id}/`, { post_to_slack: false });
    expect([r.body.post_to_slack, r.body.slack_message_format]).toEqual([false, '[action.name] by [person]']);
  });

  it('pinned_at: set by a datetime, cleared by "" (ActionSerializer.validate) or null', async () => {
    const a = await create({ name: 'pinned', pinned_at: '2024-05-01T10:00:00Z' });
    expect(Date.parse(a.pinned_at)).toBe(Date.parse('2024-05-01T10:00:00Z'));
    expect((await s.api('PATCH', `${base()}${a.id}/`, { pinned_at: '' })).body.pinned_at).toBeNull();
    expect((await s.api('PATCH', `${base()}${a.id}/`, { pinned_at: '2024-05-02T10:00:00Z' })).body.pinned_at).not.toBeNull();
    // DRF's DateTimeField renders UTC with `Z`, microseconds (six digits) only when there are any
    expect(a.pinned_at).toBe('2024-05-01T10:00:00Z');
    expect((await s.api('PATCH', `${base()}${a.id}/`, { pinned_at: '2024-05-02T12:00:00.5+02:00' })).body.pinned_at).toBe('2024-05-02T10:00:00.500000Z');
    for (const k of ['created_at', 'updated_at', 'last_calculated_at']) expect([k, a[k]]).toEqual([k, expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$/)]);
    expect((await s.api('PATCH', `${base()}${a.id}/`, { pinned_at: null })).body.pinned_at).toBeNull();
  });

  it('test_get_event_count: a step with a property filter, and the url of a $pageview step', async () => {
    const chrome = await create({ name: 'chrome signups', steps: [{ event: 'sign up', properties: [{ key: '$browser', value: 'Chrome', type: 'event' }] }] });
    expect(await get(`${base()}${chrome.id}/count/`)).toEqual({ count: 1 });
    const both = await create({ name: 'signup pages', steps: [{ event: '$pageview', url: '/signup' }, { event: 'sign up' }] });
    expect(await get(`${base()}${both.id}/count/`)).toEqual({ count: 3 });
    // the events list with action_id agrees with the count
    expect((await get(`/api/projects/${p}/events/?action_id=${both.id}`)).results).toHaveLength(3);
  });

  it('test_person_with_different_distinct_id: the action’s events of both distinct ids of one person carry that person', async () => {
    const q = await seed(
      'actions person ids',
      [
        { event: 'watched movie', distinct_id: 'anonymous_user', timestamp: '2024-01-01T10:00:00Z' },
        { event: 'watched movie', distinct_id: 'is_now_signed_up', timestamp: '2024-01-01T11:00:00Z' },
        { event: 'other', distinct_id: 'is_now_signed_up', timestamp: '2024-01-01T12:00:00Z' },
      ],
      [{ distinct_ids: ['anonymous_user', 'is_now_signed_up'] }],
    );
    const a = await create({ name: 'watched movie', steps: [{ event: 'watched movie' }] }, q);
    const rows = (await get(`/api/projects/${q}/events/?action_id=${a.id}&orderBy=${encodeURIComponent('["timestamp"]')}`)).results;
    expect(rows.map((e: any) => [e.distinct_id, e.person.distinct_ids])).toEqual([
      ['anonymous_user', ['anonymous_user']],
      ['is_now_signed_up', ['anonymous_user']],
    ]);
    expect(await get(`/api/projects/${q}/actions/${a.id}/count/`)).toEqual({ count: 2 });
  });

  it('the events list by another project’s action id: no events (the action is not this project’s)', async () => {
    const theirs = await create({ name: 'their signups', steps: [{ event: 'sign up' }] }, other);
    expect(await get(`/api/projects/${p}/events/?action_id=${theirs.id}`)).toEqual({ next: null, results: [] });
    expect((await get(`/api/projects/${other}/events/?action_id=${theirs.id}`)).results).toHaveLength(1);
  });

  it('the list as CSV (ActionViewSet’s PaginatedCSVRenderer): a line per live action, `actions.csv` or ?format=csv', async () => {
    const q = await seed('actions csv', []);
    const a = await s.api('POST', `/api/projects/${q}/actions/`, { name: 'csv one', steps: [{ event: 'sign up', url: '/x' }] });
    await s.api('POST', `/api/projects/${q}/actions/`, { name: 'csv two' });
    const gone = await s.api('POST', `/api/projects/${q}/actions/`, { name: 'csv gone' });
    await s.api('PATCH', `/api/projects/${q}/actions/${gone.body.id}/`, { deleted: true });
    for (const path of [`/api/projects/${q}/actions.csv`, `/api/projects/${q}/actions/?format=csv`]) {
      const r = await s.api('GET', path);
      expect([path, r.status, r.headers.get('content-type')]).toEqual([path, 200, expect.stringMatching(/^text\/csv/)]);
      const [header, ...rows] = r.text.trim().split('\r\n');
      const cols = header.split(',');
      expect(cols).toEqual(expect.arrayContaining(['id', 'name', 'steps.0.event', 'steps.0.url', 'team_id']));
      expect(rows.map((l) => l.split(',')[cols.indexOf('name')]).sort()).toEqual(['csv one', 'csv two']);
      expect(rows.find((l) => l.includes('csv one'))!.split(',')[cols.indexOf('id')]).toBe(String(a.body.id));
    }
    expect((await s.api('GET', `/api/projects/${q}/actions/?format=xml`)).status).toBe(404);
  });

  it('the toolbar’s @current project: list, create and count the caller’s current project’s actions', async () => {
    const current = (await get('/api/projects/@current/')).id as number;
    const a = await s.api('POST', '/api/projects/@current/actions/', { name: 'via current', steps: [{ event: 'never sent' }] });
    expect([a.status, a.body.team_id]).toEqual([201, current]);
    expect((await get('/api/projects/@current/actions/')).results.map((x: { id: number }) => x.id)).toContain(a.body.id);
    expect(await get(`/api/projects/@current/actions/${a.body.id}/count/`)).toEqual({ count: 0 });
    expect((await get(`/api/projects/${current}/actions/${a.body.id}/`)).name).toBe('via current');
  });

  it('an unknown action: 404 in DRF’s shape for retrieve, update and count', async () => {
    const nf = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };
    for (const [method, path] of [
      ['GET', `${base()}99999999/`],
      ['PATCH', `${base()}99999999/`],
      ['GET', `${base()}99999999/count/`],
    ] as const) {
      const r = await s.api(method, path, method === 'PATCH' ? { name: 'x' } : undefined);
      expect([method, path, r.status, r.body]).toEqual([method, path, 404, nf]);
    }
  });
});

describe('legacy /api/event/, /api/action/ and /api/insight/ (posthog/api/__init__.py legacy project router)', () => {
  it('each serves the current project of the caller (a key of one project), with the project routes’ scopes', async () => {
    const p = await seed('legacy routes', [{ event: 'legacy seen', distinct_id: 'l1', timestamp: '2024-03-01T10:00:00Z' }]);
    const key = await newKey(s, ['query:read', 'action:read', 'action:write', 'insight:read', 'insight:write'], { scoped_teams: [p] });
    const events = await s.api('GET', '/api/event/', undefined, key);
    expect([events.status, events.body.results.map((e: { event: string }) => e.event)]).toEqual([200, ['legacy seen']]);
    const one = await s.api('GET', `/api/event/${events.body.results[0].id}/`, undefined, key);
    expect([one.status, one.body.event]).toEqual([200, 'legacy seen']);
    const made = await s.api('POST', '/api/action/', { name: 'legacy action', steps: [{ event: 'legacy seen' }] }, key);
    expect([made.status, made.body.team_id]).toEqual([201, p]);
    expect((await s.api('GET', `/api/action/${made.body.id}/count/`, undefined, key)).body).toEqual({ count: 1 });
    expect((await s.api('GET', `/api/projects/${p}/actions/${made.body.id}/`)).body.name).toBe('legacy action');
    const insight = await s.api('POST', '/api/insight/', { name: 'legacy insight', query: { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'legacy seen' }] } } }, key);
    expect(insight.status).toBe(201);
    expect((await s.api('GET', `/api/projects/${p}/insights/${insight.body.id}/`)).body.name).toBe('legacy insight');
    // the scopes of the project routes (the events list is scope query:read, as PostHog's EventViewSet)
    const weak = await newKey(s, ['person:read'], { scoped_teams: [p] });
    expect((await s.api('GET', '/api/event/', undefined, weak)).status).toBe(403);
    expect((await s.api('GET', '/api/action/', undefined, weak)).status).toBe(403);
  });
});
