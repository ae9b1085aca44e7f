/**
 * PostHog's persons and events APIs (posthog/api/test/test_person.py, test_event.py) through the real server, for
 * one engine: list and retrieve with identity merges applied, filters, paging, 404s, scopes, delete. Used by
 * rest-posthog-compat.test.ts (DuckDB) and rest-posthog-compat.clickhouse.test.ts (ClickHouse): same cases, same
 * expected answers.
 */
import type { TestServer } from './server';

async function newKey(s: TestServer, body: Record<string, unknown>): Promise<Record<string, any>> {
  const r = await s.api('POST', '/api/personal_api_keys/', { label: 'persons', ...body });
  expect(r.status).toBe(201);
  return r.body;
}

export function describePersonsCompat(engine: string, server: () => TestServer): void {
  describe(`persons (test_person.py) on ${engine}`, () => {
    let s: TestServer;
    let p: number;
    const base = () => `/api/projects/${p}/persons/`;
    beforeAll(async () => {
      s = server();
      p = (await s.api('POST', '/api/projects/', { name: 'persons' })).body.id;
      await s.server.services.ingestor.import(p, {
        persons: [
          { distinct_ids: ['person_1'], properties: { email: 'someone@gmail.com' }, created_at: '2024-01-01T00:00:00Z' },
          { distinct_ids: ['distinct_id_2'], properties: { email: 'another@gmail.com', name: 'Another' }, created_at: '2024-01-02T00:00:00Z' },
        ],
        events: [
          // an anonymous visitor who then identifies as person_1: one person, both ids, person_1's properties first
          { event: '$pageview', distinct_id: 'anonymous_id', timestamp: '2024-01-03T00:00:00Z', properties: { $set: { plan: 'free' } } },
          { event: '$identify', distinct_id: 'person_1', timestamp: '2024-01-03T01:00:00Z', properties: { $anon_distinct_id: 'anonymous_id' } },
          { event: '$pageview', distinct_id: 'nameless', timestamp: '2024-01-04T00:00:00Z', properties: {} },
        ],
      });
      await s.server.services.ingestor.flush();
    });

    it('lists persons newest first with PostHog’s fields; a merge shows as one person with both distinct ids', async () => {
      const r = await s.api('GET', base());
      expect(r.status).toBe(200);
      // PostHog's PersonViewSet.list: no `count` unless include_total asks for it
      expect(Object.keys(r.body)).toEqual(['results', 'next', 'previous']);
      expect(r.body).toMatchObject({ next: null, previous: null });
      expect((await s.api('GET', `${base()}?include_total=true`)).body.count).toBe(3);
      expect(r.body.results.map((x: any) => [x.name, x.distinct_ids, x.created_at])).toEqual([
        ['nameless', ['nameless'], '2024-01-04T00:00:00Z'],
        ['another@gmail.com', ['distinct_id_2'], '2024-01-02T00:00:00Z'],
        // PostHog lists a person's ids in the order first seen (PersonDistinctId by id): person_1 came first
        ['someone@gmail.com', ['person_1', 'anonymous_id'], '2024-01-01T00:00:00Z'],
      ]);
      const merged = r.body.results[2];
      expect(Object.keys(merged).sort()).toEqual(['created_at', 'distinct_ids', 'id', 'is_identified', 'name', 'properties', 'uuid']);
      expect(merged).toMatchObject({ id: merged.uuid, is_identified: true, properties: { email: 'someone@gmail.com', plan: 'free' } });
      expect(merged.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    });

    it.each([
      ['test_filter_by_distinct_id', '?distinct_id=distinct_id_2', ['another@gmail.com']],
      ['a merged-away distinct id finds the surviving person', '?distinct_id=anonymous_id', ['someone@gmail.com']],
      ['an unknown distinct id', '?distinct_id=nobody', []],
      ['test_search: email, case-insensitive substring', '?search=ANOTHER@', ['another@gmail.com']],
      ['search: the name property', '?search=anoth', ['another@gmail.com']],
      ['search: a distinct id, exactly', '?search=anonymous_id', ['someone@gmail.com']],
      // PostHog's search is ILIKE f"%{search}%" (its icontains): % in the term is a wildcard, so every email matches
      ['search: LIKE wildcards are wildcards, as PostHog', '?search=%25', ['another@gmail.com', 'someone@gmail.com']],
      ['paging', '?limit=1&offset=1', ['another@gmail.com']],
    ])('%s', async (_n, qs, names) => {
      const r = await s.api('GET', `${base()}${qs}`);
      expect(r.status).toBe(200);
      expect(r.body.results.map((x: { name: string }) => x.name)).toEqual(names);
    });

    it('retrieves one person by UUID (any letter case); 404 for unknown, malformed and other projects’ ids', async () => {
      const listed = (await s.api('GET', `${base()}?distinct_id=person_1`)).body.results[0];
      const got = await s.api('GET', `${base()}${listed.uuid.toUpperCase()}/`);
      expect([got.status, got.body]).toEqual([200, listed]);
      const nf = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };
      expect((await s.api('GET', `${base()}00000000-0000-4000-8000-000000000000/`)).body).toEqual(nf);
      expect((await s.api('GET', `${base()}not-a-uuid/`)).body).toEqual(nf);
      expect((await s.api('GET', `/api/projects/1/persons/${listed.uuid}/`)).body).toEqual(nf);
    });

    it('a person id in PostHog’s UUIDT form (no RFC variant bits) is found like any other', async () => {
      const q = (await s.api('POST', '/api/projects/', { name: 'persons uuidt' })).body.id;
      const uuid = '01795392-cc00-0003-7dc7-67a694604d72';
      await s.server.services.ingestor.import(q, { persons: [{ uuid, distinct_ids: ['uuidt'] }], events: [] });
      await s.server.services.ingestor.flush();
      const got = await s.api('GET', `/api/projects/${q}/persons/${uuid}/`);
      expect([got.status, got.body.uuid, got.body.distinct_ids]).toEqual([200, uuid, ['uuidt']]);
      expect((await s.api('GET', `/api/projects/${q}/persons/cohorts/?person_id=${uuid}`)).body).toEqual({ results: [] });
    });

    it('scope person:read; a deleted person is gone from the list (DELETE answers 202)', async () => {
      const reader = await newKey(s, { scopes: ['person:read'] });
      expect((await s.api('GET', base(), undefined, reader.value)).status).toBe(200);
      const other = await newKey(s, { scopes: ['query:read', 'event:read'] });
      const denied = await s.api('GET', base(), undefined, other.value);
      expect([denied.status, denied.body.detail]).toEqual([403, "API key missing required scope 'person:read'"]);
      const victim = (await s.api('GET', `${base()}?distinct_id=nameless`)).body.results[0];
      const del = await s.api('DELETE', `${base()}${victim.uuid}/`);
      expect([del.status, del.text]).toEqual([202, '']);
      expect((await s.api('GET', `${base()}${victim.uuid}/`)).status).toBe(404);
      expect((await s.api('GET', `${base()}?include_total=1`)).body.count).toBe(2);
    });
  });

  describe(`events (test_event.py) on ${engine}`, () => {
    let s: TestServer;
    let p: number;
    const base = () => `/api/projects/${p}/events/`;
    const names = (r: { body: { results: { event: string; distinct_id: string }[] } }) => r.body.results.map((e) => `${e.event}/${e.distinct_id}`);
    beforeAll(async () => {
      s = server();
      p = (await s.api('POST', '/api/projects/', { name: 'events' })).body.id;
      await s.server.services.ingestor.import(p, {
        persons: [{ distinct_ids: ['2'], properties: { email: 'tim@posthog.com', plan: 'pro' }, created_at: '2020-01-01T00:00:00Z' }],
        events: [
          { event: 'event_name', distinct_id: '2', timestamp: '2020-01-10T12:00:00Z', properties: { $browser: 'Chrome' } },
          { event: 'another event', distinct_id: '2', timestamp: '2020-01-10T12:00:01.500Z', properties: { $browser: 'Safari' } },
          { event: 'event_name', distinct_id: 'anon', timestamp: '2020-01-11T00:00:00Z', properties: {} },
          { event: '$identify', distinct_id: '2', timestamp: '2020-01-12T00:00:00Z', properties: { $anon_distinct_id: 'anon' } },
        ],
      });
      await s.server.services.ingestor.flush();
    });

    it('lists events newest first as {next, results} with the event serializer fields', async () => {
      const r = await s.api('GET', base());
      expect(r.status).toBe(200);
      expect(Object.keys(r.body).sort()).toEqual(['next', 'results']);
      expect(r.body.next).toBeNull();
      expect(names(r)).toEqual(['$identify/2', 'event_name/anon', 'another event/2', 'event_name/2']);
      const e = r.body.results[2];
      expect(e).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
        distinct_id: '2',
        properties: { $browser: 'Safari' },
        event: 'another event',
        timestamp: '2020-01-10T12:00:01.500000+00:00',
        // the person as it is now (the merge applied), with only the display properties
        person: { is_identified: true, distinct_ids: ['2'], properties: { email: 'tim@posthog.com' } },
        elements: [],
        elements_chain: '',
      });
      // PostHog's serializer sends the person's first distinct id only (`distinct_ids[:1]`), whichever the event has
      expect(r.body.results[1].person).toEqual({ is_identified: true, distinct_ids: ['2'], properties: { email: 'tim@posthog.com' } });
    });

    it.each([
      ['test_filter_events_by_event_name', '?event=event_name', ['event_name/anon', 'event_name/2']],
      ['filter by distinct_id', '?distinct_id=anon', ['event_name/anon']],
      ['after (exclusive)', '?after=2020-01-11T00:00:00Z', ['$identify/2']],
      ['before (exclusive)', '?before=2020-01-10T12:00:01.500Z', ['event_name/2']],
      ['before and after', '?after=2020-01-10T12:00:00Z&before=2020-01-12T00:00:00Z', ['event_name/anon', 'another event/2']],
      ['an event nobody sent', '?event=nope', []],
    ])('%s', async (_n, qs, want) => {
      const r = await s.api('GET', `${base()}${qs}`);
      expect(r.status).toBe(200);
      expect(names(r)).toEqual(want);
    });

    it('test_filter_by_person: every distinct id of the person, merged ones included', async () => {
      const person = (await s.api('GET', `/api/projects/${p}/persons/?distinct_id=2`)).body.results[0];
      const r = await s.api('GET', `${base()}?person_id=${person.uuid}`);
      expect(names(r)).toEqual(['$identify/2', 'event_name/anon', 'another event/2', 'event_name/2']);
    });

    it('test_pagination: a full page links the next one by `before`; following it ends with next null', async () => {
      const first = await s.api('GET', `${base()}?limit=3`);
      expect(names(first)).toEqual(['$identify/2', 'event_name/anon', 'another event/2']);
      const next = new URL(first.body.next);
      expect(Object.fromEntries(next.searchParams)).toEqual({ limit: '3', before: '2020-01-10T12:00:01.500000+00:00' });
      const second = await s.api('GET', next.pathname + next.search);
      expect([names(second), second.body.next]).toEqual([['event_name/2'], null]);
    });

    it('test_get_event_by_id: 200 with the same record (the person with include_person); 404 for unknown and other projects’ ids, 400 for malformed ones', async () => {
      const listed = (await s.api('GET', `${base()}?event=another%20event`)).body.results[0];
      const got = await s.api('GET', `${base()}${listed.id}/?include_person=true`);
      expect([got.status, got.body]).toEqual([200, listed]);
      for (const [path, id] of [
        [`${base()}00000000-0000-4000-8000-000000000000/`, '00000000-0000-4000-8000-000000000000'],
        [`/api/projects/1/events/${listed.id}/`, listed.id],
      ]) {
        expect((await s.api('GET', path)).body).toEqual({ type: 'invalid_request', code: 'not_found', detail: `No events exist for event UUID ${id}`, attr: null });
      }
      // EventViewSet.retrieve: an id that is no UUID is its own 400 (PostHog's test accepts a 400 or a 404)
      const bad = await s.api('GET', `${base()}123456/`);
      expect([bad.status, bad.body]).toEqual([400, { detail: 'Invalid UUID', code: 'invalid', type: 'validation_error' }]);
    });

    it.each([
      ['limit 0', '?limit=0', 'limit'],
      ['a malformed before', '?before=yesterday-ish', 'before'],
      // PostHog filters the events list by `properties` (test_event.py test_filter_events_by_properties): text that is
      // not JSON is its 400 "Properties are unparsable!" (persons-events-compat.ts has the filters themselves)
      ['property filters that are not JSON', '?properties=invalid_json', null],
    ])('400 for %s', async (_n, qs, attr) => {
      const r = await s.api('GET', `${base()}${qs}`);
      expect([r.status, r.body.type, r.body.attr]).toEqual([400, 'validation_error', attr]);
    });

    it('scope query:read (PostHog: the query scope covers the events API)', async () => {
      const other = await newKey(s, { scopes: ['person:read'] });
      const r = await s.api('GET', base(), undefined, other.value);
      expect([r.status, r.body.detail]).toEqual([403, "API key missing required scope 'query:read'"]);
      const reader = await newKey(s, { scopes: ['query:read'] });
      expect((await s.api('GET', base(), undefined, reader.value)).status).toBe(200);
    });
  });
}
