/**
 * The engine-dependent cases of rest-posthog-compat-3.test.ts (PostHog's test_person.py, test_event.py and the cohort
 * persons action), for one engine: the persons list's paging and `count`, bulk_delete, a cohort's persons and the
 * events list's unknown cohorts all read ProductQL's persons tables, so they must answer the same on DuckDB
 * (rest-posthog-compat-3.test.ts) and ClickHouse (rest-posthog-compat-3.clickhouse.test.ts).
 */
import { newKey, newProject, type TestServer } from './server';

export function describeRestCompat3Persons(engine: string, server: () => TestServer): void {
  let s: TestServer;
  beforeAll(() => {
    s = server();
  });

  /** Follows an absolute `next`/`previous` link. */
  async function follow(link: string) {
    const url = new URL(link);
    return s.api('GET', url.pathname + url.search);
  }

  describe(`persons list (test_person.py) on ${engine}`, () => {
    let p: number;
    const base = () => `/api/projects/${p}/persons/`;
    beforeAll(async () => {
      p = await newProject(s, 'persons-3');
      // 19 persons, one a day: newest first is 118, 117, …, 100
      await s.server.services.ingestor.import(p, {
        persons: Array.from({ length: 19 }, (_, i) => ({
          distinct_ids: [String(i + 100)],
          properties: { $browser: 'whatever', $os: 'Windows' },
          created_at: new Date(Date.UTC(2024, 0, 1 + i)).toISOString(),
        })),
      });
      await s.server.services.ingestor.flush();
    });

    it('test_pagination_limit: pages of `limit` newest first through next; no count unless include_total', async () => {
      const first = await s.api('GET', `${base()}?limit=10`);
      expect(first.status).toBe(200);
      // PostHog's PersonViewSet.list answers {results, next, previous}: counting every person is a second query
      expect(Object.keys(first.body)).toEqual(['results', 'next', 'previous']);
      expect(first.body.results).toHaveLength(10);
      expect(first.body.previous).toBeNull();
      const second = await follow(first.body.next);
      expect(second.body.results).toHaveLength(9);
      expect(second.body.next).toBeNull();
      const ids = [...first.body.results, ...second.body.results].map((x: { distinct_ids: string[] }) => x.distinct_ids[0]);
      expect(ids).toEqual(Array.from({ length: 19 }, (_, i) => String(118 - i)));
      // the previous page of the second one is the first
      expect((await follow(second.body.previous)).body.results).toEqual(first.body.results);
    });

    it('include_total adds the count of the filtered persons', async () => {
      const r = await s.api('GET', `${base()}?limit=5&include_total=true`);
      expect([r.body.count, r.body.results.length]).toEqual([19, 5]);
      const filtered = await s.api('GET', `${base()}?include_total=1&distinct_id=105`);
      expect([filtered.body.count, filtered.body.results.map((x: { distinct_ids: string[] }) => x.distinct_ids)]).toEqual([1, [['105']]]);
      expect((await s.api('GET', `${base()}?include_total=false`)).body).not.toHaveProperty('count');
    });

    it('next whenever a page is full (PostHog: len(results) >= limit); previous only when a whole page fits before', async () => {
      const full = await s.api('GET', `${base()}?limit=19`);
      expect(full.body.results).toHaveLength(19);
      expect(new URL(full.body.next).searchParams.get('offset')).toBe('19');
      const past = await follow(full.body.next);
      expect([past.status, past.body.results, past.body.next]).toEqual([200, [], null]);
      // offset 5 with limit 10: offset - limit < 0, so PostHog links no previous page
      const shifted = await s.api('GET', `${base()}?limit=10&offset=5`);
      expect([shifted.body.results.length, shifted.body.previous]).toEqual([10, null]);
      const later = await s.api('GET', `${base()}?limit=5&offset=10`);
      expect(new URL(later.body.previous).searchParams.get('offset')).toBe('5');
    });
  });

  describe(`persons bulk_delete (test_person.py) on ${engine}`, () => {
    const seed = async (name: string) => {
      const p = await newProject(s, name);
      await s.server.services.ingestor.import(p, {
        persons: [
          { distinct_ids: ['a1', 'a2'], properties: { n: 1 }, created_at: '2024-01-01T00:00:00Z' },
          { distinct_ids: ['b1'], properties: { n: 2 }, created_at: '2024-01-02T00:00:00Z' },
          { distinct_ids: ['c1'], properties: { n: 3 }, created_at: '2024-01-03T00:00:00Z' },
        ],
        events: [
          { event: 'e', distinct_id: 'a2', timestamp: '2024-01-05T00:00:00Z' },
          { event: 'e', distinct_id: 'b1', timestamp: '2024-01-05T00:00:00Z' },
        ],
      });
      await s.server.services.ingestor.flush();
      return p;
    };
    const left = async (p: number) => (await s.api('GET', `/api/projects/${p}/persons/`)).body.results.flatMap((x: { distinct_ids: string[] }) => x.distinct_ids).sort();

    it('test_bulk_delete_ids: the persons with those UUIDs are gone (202, empty body); unknown ids are skipped', async () => {
      const p = await seed('bulk-ids');
      const persons = (await s.api('GET', `/api/projects/${p}/persons/`)).body.results as { uuid: string; distinct_ids: string[] }[];
      const ids = persons.filter((x) => !x.distinct_ids.includes('c1')).map((x) => x.uuid.toUpperCase());
      const r = await s.api('POST', `/api/projects/${p}/persons/bulk_delete/`, { ids: [...ids, '00000000-0000-4000-8000-000000000000', 'not-a-uuid'] });
      expect([r.status, r.text]).toEqual([202, '']);
      await s.server.services.ingestor.flush();
      expect(await left(p)).toEqual(['c1']);
      // their events stay unless delete_events is asked for
      expect((await s.api('GET', `/api/projects/${p}/events/`)).body.results).toHaveLength(2);
    });

    it('test_bulk_delete_distinct_id: any of a person’s distinct ids finds it; delete_events takes its events too', async () => {
      const p = await seed('bulk-dids');
      const r = await s.api('POST', `/api/projects/${p}/persons/bulk_delete/`, { distinct_ids: ['a2', 'nobody'], delete_events: true });
      expect(r.status).toBe(202);
      await s.server.services.ingestor.flush();
      expect(await left(p)).toEqual(['b1', 'c1']);
      expect((await s.api('GET', `/api/projects/${p}/events/`)).body.results.map((e: { distinct_id: string }) => e.distinct_id)).toEqual(['b1']);
    });

    it('another project’s persons are never touched', async () => {
      const mine = await seed('bulk-mine');
      const theirs = await seed('bulk-theirs');
      const theirIds = (await s.api('GET', `/api/projects/${theirs}/persons/`)).body.results.map((x: { uuid: string }) => x.uuid);
      expect((await s.api('POST', `/api/projects/${mine}/persons/bulk_delete/`, { ids: theirIds })).status).toBe(202);
      expect((await s.api('POST', `/api/projects/${mine}/persons/bulk_delete/`, { distinct_ids: ['a1', 'b1', 'c1'] })).status).toBe(202);
      await s.server.services.ingestor.flush();
      expect(await left(mine)).toEqual([]);
      expect(await left(theirs)).toEqual(['a1', 'a2', 'b1', 'c1']);
    });

    it.each([
      ['neither ids nor distinct_ids', {}, 'You need to specify either distinct_ids or ids'],
      ['empty lists', { ids: [], distinct_ids: [] }, 'You need to specify either distinct_ids or ids'],
      ['over 1,000 ids', { ids: Array.from({ length: 1001 }, () => '00000000-0000-4000-8000-000000000000') }, 'You can only pass 1000 ids in one call'],
      ['over 1,000 distinct ids', { distinct_ids: Array.from({ length: 1001 }, (_, i) => `d${i}`) }, 'You can only pass 1000 distinct_ids in one call'],
    ])('%s → 400', async (_n, body, detail) => {
      const r = await s.api('POST', '/api/projects/1/persons/bulk_delete/', body);
      expect([r.status, r.body]).toEqual([400, { type: 'validation_error', code: 'invalid_input', detail, attr: null }]);
    });

    it.each([
      ['ids not a list', { ids: 'abc' }, 'ids'],
      ['distinct_ids not a list', { distinct_ids: { a: 1 } }, 'distinct_ids'],
      ['delete_events not a boolean', { ids: ['00000000-0000-4000-8000-000000000000'], delete_events: 'yes' }, 'delete_events'],
    ])('%s → 400 naming the field', async (_n, body, attr) => {
      const r = await s.api('POST', '/api/projects/1/persons/bulk_delete/', body);
      expect([r.status, r.body.type, r.body.attr]).toEqual([400, 'validation_error', attr]);
    });

    it('scope person:write', async () => {
      const denied = await s.api('POST', '/api/projects/1/persons/bulk_delete/', { ids: [] }, await newKey(s, ['person:read']));
      expect([denied.status, denied.body.detail]).toEqual([403, "API key missing required scope 'person:write'"]);
    });
  });

  describe(`events list (test_event.py) on ${engine}`, () => {
    it('test_events_nonexistent_cohort_handling: a cohort the project does not have gives no events, as a property nobody has', async () => {
      const p = await newProject(s, 'events-cohorts');
      await s.server.services.ingestor.import(p, { events: [{ event: 'e', distinct_id: 'd1', timestamp: '2024-01-01T00:00:00Z', properties: { account_id: 'x' } }] });
      await s.server.services.ingestor.flush();
      const list = async (props: unknown) => s.api('GET', `/api/projects/${p}/events/?properties=${encodeURIComponent(JSON.stringify(props))}`);
      const nonexistentCohort = await list([{ key: 'id', value: 2137, type: 'cohort' }]);
      const nonexistentProperty = await list([{ key: 'account_id', value: 'abc', type: 'event' }]);
      expect([nonexistentCohort.status, nonexistentCohort.body]).toEqual([200, { next: null, results: [] }]);
      expect(nonexistentProperty.body).toEqual(nonexistentCohort.body);
      // another project's cohort is one this project does not have
      const other = await newProject(s, 'events-cohorts-other');
      const theirs = (await s.api('POST', `/api/projects/${other}/cohorts/`, { name: 'theirs', groups: [{ properties: [{ key: 'email', operator: 'is_set', value: 'is_set', type: 'person' }] }] })).body;
      expect((await list([{ key: 'id', value: theirs.id, type: 'cohort' }])).body).toEqual({ next: null, results: [] });
      // an existing cohort still filters
      const mine = (await s.api('POST', `/api/projects/${p}/cohorts/`, { name: 'everyone', groups: [{ properties: [{ key: 'nope', operator: 'is_not_set', value: 'is_not_set', type: 'person' }] }] })).body;
      expect((await list([{ key: 'id', value: mine.id, type: 'cohort' }])).body.results.map((e: { event: string }) => e.event)).toEqual(['e']);
    });
  });

  describe(`cohort persons (test_cohort.py test_filter_by_cohort / CohortViewSet.persons) on ${engine}`, () => {
    let p: number;
    let cohort: number;
    const base = () => `/api/projects/${p}/cohorts/`;
    beforeAll(async () => {
      p = await newProject(s, 'cohort-persons');
      await s.server.services.ingestor.import(p, {
        persons: [
          { distinct_ids: ['fake'], properties: {}, created_at: '2023-12-31T00:00:00Z' },
          ...Array.from({ length: 150 }, (_, i) => ({
            distinct_ids: [`person_${i}`],
            properties: { $os: 'Chrome', ...(i === 7 ? { email: 'seven@example.com' } : {}) },
            created_at: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(),
          })),
        ],
      });
      await s.server.services.ingestor.flush();
      cohort = (await s.api('POST', base(), { name: 'chrome', groups: [{ properties: [{ key: '$os', value: 'Chrome', type: 'person' }] }] })).body.id;
    });

    it('pages of 100 by default, then the rest through next; only the cohort’s persons', async () => {
      const first = await s.api('GET', `${base()}${cohort}/persons/`);
      expect(first.status).toBe(200);
      expect(Object.keys(first.body)).toEqual(['results', 'next', 'previous']);
      expect(first.body.results).toHaveLength(100);
      const second = await follow(first.body.next);
      expect([second.body.results.length, second.body.next]).toEqual([50, null]);
      const ids = [...first.body.results, ...second.body.results].flatMap((x: { distinct_ids: string[] }) => x.distinct_ids);
      expect(new Set(ids).size).toBe(150);
      expect(ids).not.toContain('fake');
      expect(ids[0]).toBe('person_149'); // newest first, as the persons list
      // the persons list's person, plus the actor fields PostHog's cohort persons carry
      expect(first.body.results[0]).toEqual({
        ...(await s.api('GET', `/api/projects/${p}/persons/?distinct_id=person_149`)).body.results[0],
        type: 'person',
        matched_recordings: [],
        value_at_data_point: null,
      });
    });

    it('the persons list’s filters and include_total apply within the cohort', async () => {
      const r = await s.api('GET', `${base()}${cohort}/persons/?search=seven@&include_total=true`);
      expect([r.body.count, r.body.results.map((x: { name: string }) => x.name)]).toEqual([1, ['seven@example.com']]);
      expect((await s.api('GET', `${base()}${cohort}/persons/?distinct_id=fake`)).body.results).toEqual([]);
    });

    it('a static cohort lists its persons; unknown and other projects’ cohorts are 404; scopes cohort:read and person:read', async () => {
      const [person] = (await s.api('GET', `/api/projects/${p}/persons/?distinct_id=fake`)).body.results;
      const stat = (await s.api('POST', base(), { name: 'static', is_static: true, _create_static_person_ids: [person.uuid] })).body.id;
      expect((await s.api('GET', `${base()}${stat}/persons/`)).body.results.map((x: { uuid: string }) => x.uuid)).toEqual([person.uuid]);
      const nf = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };
      expect((await s.api('GET', `${base()}987654/persons/`)).body).toEqual(nf);
      expect((await s.api('GET', `${base()}not-a-number/persons/`)).status).toBe(404);
      const other = await newProject(s, 'cohort-persons-other');
      expect((await s.api('GET', `/api/projects/${other}/cohorts/${cohort}/persons/`)).body).toEqual(nf);
      for (const [scopes, lacking] of [[['person:read'], 'cohort:read'], [['cohort:read'], 'person:read']] as const) {
        const denied = await s.api('GET', `${base()}${cohort}/persons/`, undefined, await newKey(s, [...scopes]));
        expect([denied.status, denied.body.detail]).toEqual([403, `API key missing required scope '${lacking}'`]);
      }
    });
  });
}
