/**
 * More of PostHog's persons and events API cases (posthog/api/test/test_person.py, test_event.py), through the real
 * server, for one engine: property filters, `email`, names, property values, ordering and paging of the events list.
 * Used by persons-events-posthog-compat.test.ts (DuckDB) and its .clickhouse twin: same cases, same answers.
 * (The first batch is persons-compat.ts.)
 */
import type { TestServer } from './server';

const DAY = 86_400_000;
/** An instant `days` before now (the values endpoints look at the last 7 days only). */
const ago = (days: number, extraMs = 0): string => new Date(Date.now() - days * DAY - extraMs).toISOString();

async function seed(s: TestServer, name: string, body: { persons?: unknown[]; events?: unknown[] }): Promise<number> {
  const p = (await s.api('POST', '/api/projects/', { name })).body.id as number;
  await s.server.services.ingestor.import(p, { persons: body.persons ?? [], events: body.events ?? [] });
  await s.server.services.ingestor.flush();
  return p;
}

const invalid = (detail: string, attr: string | null = null) => ({ type: 'validation_error', code: 'invalid_input', detail, attr });

export function describePersonsEventsCompat(engine: string, server: () => TestServer): void {
  describe(`persons list filters and values (test_person.py) on ${engine}`, () => {
    let s: TestServer;
    let p: number;
    let other: number;
    const base = () => `/api/projects/${p}/persons/`;
    const names = async (qs: string): Promise<string[]> => {
      const r = await s.api('GET', `${base()}${qs}`);
      expect(r.status).toBe(200);
      return r.body.results.map((x: { name: string }) => x.name);
    };
    beforeAll(async () => {
      s = server();
      p = await seed(s, 'persons-2', {
        persons: [
          { distinct_ids: ['distinct_id', 'another_one'], properties: { email: 'someone@gmail.com' }, is_identified: true, created_at: '2024-01-01T00:00:00Z' },
          { distinct_ids: ['distinct_id_2'], properties: { email: 'another@gmail.com', name: 'james' }, created_at: '2024-01-02T00:00:00Z' },
          { distinct_ids: ['distinct_id_3'], properties: { name: 'jane' }, created_at: '2024-01-03T00:00:00Z' },
          // test_return_non_anonymous_name: an SDK-generated (anonymous-looking) id is not the name when another id is there
          { distinct_ids: ['17787c327b-0e8f623ea9-336473-1aeaa0-17787c30995b7c', 'distinct_id4'], properties: {}, created_at: '2024-01-04T00:00:00Z' },
          { distinct_ids: ['17787c3099427b-0e8f6c86323ea9-33647309-1aeaa0-17787c30995b7c'], properties: { random_prop: 'asdf' }, created_at: '2024-01-05T00:00:00Z' },
          { distinct_ids: ['p6'], properties: { random_prop: 'asdf', some_other_prop: 'with some text' }, created_at: '2024-01-06T00:00:00Z' },
          { distinct_ids: ['p7'], properties: { random_prop: 'qwerty', n: 5, tags: ['a', 'b'], flag: true }, created_at: '2024-01-07T00:00:00Z' },
        ],
      });
      // another project with the same distinct ids and emails: nothing of it shows
      other = await seed(s, 'persons-2-other', {
        persons: [
          { distinct_ids: ['distinct_id', 'x_another_one'], properties: { random_prop: 'other-project' } },
          { distinct_ids: ['x_distinct_id_2'], properties: { email: 'team2_another@gmail.com', random_prop: 'qwerty' } },
        ],
      });
    });

    it('test_filter_person_list: distinct_id (any of the person’s ids, exactly) and email (exactly); non-matches are empty', async () => {
      const r = await s.api('GET', `${base()}?distinct_id=distinct_id`);
      expect(r.body.results.map((x: any) => [x.name, x.distinct_ids])).toEqual([['someone@gmail.com', ['distinct_id', 'another_one']]]);
      expect(await names('?distinct_id=another_one')).toEqual(['someone@gmail.com']);
      const byEmail = await s.api('GET', `${base()}?email=another@gmail.com`);
      expect(byEmail.body.results).toHaveLength(1);
      expect(byEmail.body.results[0]).toMatchObject({ id: byEmail.body.results[0].uuid, distinct_ids: ['distinct_id_2'], name: 'another@gmail.com' });
      expect(await names('?email=inexistent')).toEqual([]);
      expect(await names('?email=ANOTHER@gmail.com')).toEqual([]);
      expect(await names('?distinct_id=inexistent')).toEqual([]);
    });

    it('test_cant_see_another_organization_pii_with_filters: another project’s persons never match', async () => {
      expect(await names('?distinct_id=x_another_one')).toEqual([]);
      expect(await names('?email=team2_another@gmail.com')).toEqual([]);
      expect(await names('?search=team2_another')).toEqual([]);
      const r = await s.api('GET', `/api/projects/${other}/persons/?distinct_id=distinct_id`);
      expect(r.body.results.map((x: any) => x.properties)).toEqual([{ random_prop: 'other-project' }]);
    });

    it('test_search: email substring and a distinct id', async () => {
      expect(await names('?search=another@gm')).toEqual(['another@gmail.com']);
      expect(await names('?search=distinct_id_3')).toEqual(['jane']);
    });

    it('test_return_non_anonymous_name: the name is the distinct id that does not look SDK-generated', async () => {
      const r = await s.api('GET', `${base()}?search=distinct_id4`);
      expect(r.body.results.map((x: any) => x.name)).toEqual(['distinct_id4']);
      // with only an anonymous-looking id, that id is the name
      expect(await names('?distinct_id=17787c3099427b-0e8f6c86323ea9-33647309-1aeaa0-17787c30995b7c')).toEqual([
        '17787c3099427b-0e8f6c86323ea9-33647309-1aeaa0-17787c30995b7c',
      ]);
    });

    it.each([
      ['test_properties: is_set', [{ key: 'email', operator: 'is_set', value: 'is_set', type: 'person' }], ['another@gmail.com', 'someone@gmail.com'], ''],
      ['exact (the default operator), a filter without a type is a person filter', [{ key: 'random_prop', value: 'asdf' }], ['p6', '17787c3099427b-0e8f6c86323ea9-33647309-1aeaa0-17787c30995b7c'], ''],
      ['icontains', [{ key: 'name', operator: 'icontains', value: 'JA', type: 'person' }], ['jane', 'another@gmail.com'], ''],
      ['is_not_set', [{ key: 'random_prop', operator: 'is_not_set', value: 'is_not_set', type: 'person' }], ['distinct_id4', 'jane', 'another@gmail.com', 'someone@gmail.com'], ''],
      ['gt on a number', [{ key: 'n', operator: 'gt', value: 4, type: 'person' }], ['p7'], ''],
      ['a list of values is any of them', [{ key: 'random_prop', value: ['qwerty', 'nope'], type: 'person' }], ['p7'], ''],
      ['a quote in a value is a value', [{ key: 'email', value: "o'brien@x.com", type: 'person' }], [], ''],
      ['a property group (OR)', { type: 'OR', values: [{ key: 'name', value: 'jane', type: 'person' }, { key: 'random_prop', value: 'qwerty', type: 'person' }] }, ['p7', 'jane'], ''],
      ['several filters are ANDed, with search', [{ key: 'email', operator: 'is_set', value: 'is_set', type: 'person' }], ['another@gmail.com'], 'search=james'],
      ['a hogql filter', [{ type: 'hogql', key: "properties.name = 'jane'" }], ['jane'], ''],
    ])('properties: %s', async (_n, props, want, extra: string) => {
      const qs = `?properties=${encodeURIComponent(JSON.stringify(props))}${extra ? `&${extra}` : ''}`;
      expect(await names(qs)).toEqual(want);
    });

    it('properties: a cohort (in / not_in); another project’s cohort, or none, matches nobody', async () => {
      const cohort = await s.api('POST', `/api/projects/${p}/cohorts/`, { name: 'asdf people', groups: [{ properties: [{ key: 'random_prop', value: 'asdf', type: 'person' }] }] });
      expect(cohort.status).toBe(201);
      const f = (operator: string) => encodeURIComponent(JSON.stringify([{ type: 'cohort', key: 'id', value: cohort.body.id, operator }]));
      expect(await names(`?properties=${f('in')}`)).toEqual(['p6', '17787c3099427b-0e8f6c86323ea9-33647309-1aeaa0-17787c30995b7c']);
      expect(await names(`?properties=${f('not_in')}&search=gmail`)).toEqual(['another@gmail.com', 'someone@gmail.com']);
      const theirs = await s.api('POST', `/api/projects/${other}/cohorts/`, { name: 'theirs', groups: [{ properties: [{ key: 'random_prop', value: 'qwerty', type: 'person' }] }] });
      // PostHog's PersonQuery (parse_prop_clauses): "If cohort doesn't exist, nothing can match", not_in too; ORed
      // with a cohort the project has, that one's persons
      const persons = async (props: unknown) => s.api('GET', `${base()}?properties=${encodeURIComponent(JSON.stringify(props))}`);
      for (const value of [theirs.body.id, 99_999_999]) {
        for (const operator of ['in', 'not_in']) {
          const r = await persons([{ type: 'cohort', key: 'id', value, operator }]);
          expect([value, operator, r.status, r.body.results]).toEqual([value, operator, 200, []]);
        }
      }
      const orMine = await persons({ type: 'OR', values: [{ type: 'cohort', key: 'id', value: 99_999_999 }, { type: 'cohort', key: 'id', value: cohort.body.id }] });
      expect(orMine.body.results.map((x: { distinct_ids: string[] }) => x.distinct_ids[0]).sort()).toEqual(['17787c3099427b-0e8f6c86323ea9-33647309-1aeaa0-17787c30995b7c', 'p6'].sort());
      // the events API answers no events for a cohort the project does not have (test_event.py
      // test_events_nonexistent_cohort_handling; rest-posthog-compat-3.test.ts)
      const events = await s.api('GET', `/api/projects/${p}/events/?properties=${encodeURIComponent(JSON.stringify([{ type: 'cohort', key: 'id', value: theirs.body.id }]))}`);
      expect([events.status, events.body]).toEqual([200, { next: null, results: [] }]);
      // … nor for a value that names no cohort, nor when such a filter is ORed with a real cohort's (only that one matches)
      const eventsOf = async (props: unknown) => (await s.api('GET', `/api/projects/${p}/events/?properties=${encodeURIComponent(JSON.stringify(props))}`)).body;
      expect(await eventsOf([{ type: 'cohort', key: 'id', value: 'not a cohort' }])).toEqual({ next: null, results: [] });
      await s.server.services.ingestor.import(p, { events: [{ event: 'cohort probe', distinct_id: 'p6', timestamp: '2024-01-01T00:00:00Z' }] });
      await s.server.services.ingestor.flush();
      const inMine = { type: 'cohort', key: 'id', value: cohort.body.id };
      const mine = await eventsOf([inMine]);
      expect(mine.results.map((e: { event: string }) => e.event)).toEqual(['cohort probe']);
      const either = await eventsOf({ type: 'OR', values: [inMine, { type: 'cohort', key: 'id', value: theirs.body.id }] });
      expect(either.results).toEqual(mine.results);
    });

    it('test_person_cohorts: the cohorts the person is in now, with their counts; person:read and cohort:read', async () => {
      const mk = async (name: string, body: Record<string, unknown>) => (await s.api('POST', `/api/projects/${p}/cohorts/`, { name, ...body })).body.id as number;
      const qwerty = await mk('cohort qwerty', { groups: [{ properties: [{ key: 'random_prop', value: 'qwerty', type: 'person' }] }] });
      const numbered = await mk('cohort n', { groups: [{ properties: [{ key: 'n', operator: 'is_set', value: 'is_set', type: 'person' }] }] });
      await mk('cohort jane', { groups: [{ properties: [{ key: 'name', value: 'jane', type: 'person' }] }] });
      const [p7] = (await s.api('GET', `${base()}?distinct_id=p7`)).body.results;
      const [p6] = (await s.api('GET', `${base()}?distinct_id=p6`)).body.results;
      const stat = await mk('static', { is_static: true, _create_static_person_ids: [p7.uuid, p6.uuid] });
      const r = await s.api('GET', `${base()}cohorts/?person_id=${p7.uuid}`);
      expect(r.status).toBe(200);
      const got = [...r.body.results].sort((a: any, b: any) => a.id - b.id).map((c: any) => ({ id: c.id, name: c.name, count: c.count }));
      expect(got).toEqual([
        { id: qwerty, name: 'cohort qwerty', count: 1 },
        { id: numbered, name: 'cohort n', count: 1 },
        { id: stat, name: 'static', count: 2 },
      ]);
      const nf = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };
      expect((await s.api('GET', `${base()}cohorts/?person_id=00000000-0000-4000-8000-000000000000`)).body).toEqual(nf);
      const [theirs] = (await s.api('GET', `/api/projects/${other}/persons/?distinct_id=x_distinct_id_2`)).body.results;
      expect((await s.api('GET', `${base()}cohorts/?person_id=${theirs.uuid}`)).body).toEqual(nf);
      const missing = await s.api('GET', `${base()}cohorts/`);
      expect([missing.status, missing.body.attr]).toEqual([400, 'person_id']);
      for (const [scopes, lacking] of [[['person:read'], 'cohort:read'], [['cohort:read'], 'person:read']] as const) {
        const k = (await s.api('POST', '/api/personal_api_keys/', { label: 'pc', scopes })).body.value;
        const denied = await s.api('GET', `${base()}cohorts/?person_id=${p7.uuid}`, undefined, k);
        expect([denied.status, denied.body.detail]).toEqual([403, `API key missing required scope '${lacking}'`]);
      }
    });

    it('test_pagination_limit: following next pages through every person once, newest first; test_search_person_id', async () => {
      const first = await s.api('GET', `${base()}?limit=4&include_total`);
      expect([first.body.count, first.body.results.length, first.body.previous]).toEqual([7, 4, null]);
      const url = new URL(first.body.next);
      const second = await s.api('GET', url.pathname + url.search);
      expect([second.body.results.length, second.body.next]).toEqual([3, null]);
      expect(new URL(second.body.previous).searchParams.get('offset')).toBeNull();
      const all = [...first.body.results, ...second.body.results];
      expect(all.map((x: any) => x.created_at)).toEqual([...all.map((x: any) => x.created_at)].sort().reverse());
      expect(new Set(all.map((x: any) => x.uuid)).size).toBe(7);
      expect(await names(`?search=${all[2].uuid}`)).toEqual([all[2].name]);
    });

    it('count and paging follow the filters', async () => {
      const qs = `properties=${encodeURIComponent(JSON.stringify([{ key: 'email', operator: 'is_not_set', value: 'is_not_set', type: 'person' }]))}`;
      const r = await s.api('GET', `${base()}?${qs}&limit=2&include_total=true`);
      expect(r.body.count).toBe(5);
      expect(r.body.results.map((x: any) => x.name)).toEqual(['p7', 'p6']);
      const next = new URL(r.body.next);
      expect(next.searchParams.get('offset')).toBe('2');
      const page2 = await s.api('GET', next.pathname + next.search);
      expect(page2.body.results).toHaveLength(2);
    });

    it.each([
      ['not JSON', 'invalid_json', invalid('Properties are unparsable!')],
      ['an unknown operator', JSON.stringify([{ key: 'email', operator: 'nope', value: 'x', type: 'person' }]), expect.objectContaining({ type: 'validation_error', attr: expect.stringMatching(/^properties/) })],
    ])('properties %s: 400', async (_n, raw, body) => {
      const r = await s.api('GET', `${base()}?properties=${encodeURIComponent(raw)}`);
      expect([r.status, r.body]).toEqual([400, body]);
    });

    it('test_person_property_values: [{name, count}] most frequent first; value filters by substring', async () => {
      const r = await s.api('GET', `${base()}values/?key=random_prop`);
      expect([r.status, r.body]).toEqual([
        200,
        [
          { name: 'asdf', count: 2 },
          { name: 'qwerty', count: 1 },
        ],
      ]);
      expect((await s.api('GET', `${base()}values/?key=random_prop&value=qw`)).body).toEqual([{ name: 'qwerty', count: 1 }]);
      expect((await s.api('GET', `${base()}values/?key=random_prop&value=QW`)).body).toEqual([{ name: 'qwerty', count: 1 }]);
      // PostHog's "%{}%".format(value), unescaped: % is a wildcard
      expect((await s.api('GET', `${base()}values/?key=random_prop&value=%25`)).body).toEqual([
        { name: 'asdf', count: 2 },
        { name: 'qwerty', count: 1 },
      ]);
      expect((await s.api('GET', `${base()}values/?key=nobody_has_this`)).body).toEqual([]);
    });

    it('person property values: numbers, booleans and lists as PostHog names them; odd keys are keys', async () => {
      expect((await s.api('GET', `${base()}values/?key=n`)).body).toEqual([{ name: '5', count: 1 }]);
      expect((await s.api('GET', `${base()}values/?key=flag`)).body).toEqual([{ name: 'true', count: 1 }]);
      expect((await s.api('GET', `${base()}values/?key=tags`)).body).toEqual([{ name: '["a", "b"]', count: 1 }]);
      expect((await s.api('GET', `${base()}values/?key=${encodeURIComponent("x`) FROM events --'")}`)).body).toEqual([]);
    });

    it('test_delete_person_properties: 201 with an empty body; the property is gone once the event is ingested', async () => {
      const [victim] = (await s.api('GET', `${base()}?distinct_id=p6`)).body.results;
      expect(victim.properties).toEqual({ random_prop: 'asdf', some_other_prop: 'with some text' });
      const r = await s.api('POST', `${base()}${victim.uuid}/delete_property/`, { $unset: 'some_other_prop' });
      expect([r.status, r.text]).toEqual([201, '']);
      await s.server.services.ingestor.flush();
      expect((await s.api('GET', `${base()}${victim.uuid}/`)).body.properties).toEqual({ random_prop: 'asdf' });
      // PostHog captures it as an event of the person's distinct id
      const events = await s.api('GET', `/api/projects/${p}/events/?event=%24delete_person_property`);
      expect(events.body.results.map((e: any) => [e.distinct_id, e.properties.$unset])).toEqual([['p6', ['some_other_prop']]]);
    });

    it('test_update_person_props: PATCH (or PUT) sets the given properties through a $set event, keeps the others; 202', async () => {
      const [person] = (await s.api('GET', `${base()}?distinct_id=distinct_id_3`)).body.results;
      const r = await s.api('PATCH', `${base()}${person.uuid}/`, { properties: { foo: 'bar' } });
      expect([r.status, r.text]).toEqual([202, '']);
      expect((await s.api('PUT', `${base()}${person.uuid}/`, { properties: { name: 'jane doe', n: 1 } })).status).toBe(202);
      await s.server.services.ingestor.flush();
      expect((await s.api('GET', `${base()}${person.uuid}/`)).body.properties).toEqual({ name: 'jane doe', foo: 'bar', n: 1 });
      const events = await s.api('GET', `/api/projects/${p}/events/?event=%24set&orderBy=${encodeURIComponent('["timestamp"]')}`);
      expect(events.body.results.map((e: any) => [e.distinct_id, e.properties.$set])).toEqual([
        ['distinct_id_3', { foo: 'bar' }],
        ['distinct_id_3', { name: 'jane doe', n: 1 }],
      ]);
      for (const body of [{}, { properties: 'x' }, { properties: ['a'] }]) {
        const bad = await s.api('PATCH', `${base()}${person.uuid}/`, body);
        expect([bad.status, bad.body.type, bad.body.attr]).toEqual([400, 'validation_error', 'properties']);
      }
      expect((await s.api('PATCH', `${base()}00000000-0000-4000-8000-000000000000/`, { properties: { a: 1 } })).status).toBe(404);
      // restore what the other cases read
      expect((await s.api('PATCH', `${base()}${person.uuid}/`, { properties: { name: 'jane' } })).status).toBe(202);
      await s.server.services.ingestor.flush();
    });

    it('test_update_multiple_person_properties_validation: no `properties` (or null) is PersonViewSet.update’s hand-written 400, before the person is looked up; nothing is captured', async () => {
      const [person] = (await s.api('GET', `${base()}?distinct_id=p6`)).body.results;
      // validation_error_response("required", "This field is required.", "properties"): detail and code the other way round
      const required = { type: 'validation_error', code: 'This field is required.', detail: 'required', attr: 'properties' };
      for (const body of [{ foo: 'bar', bar: 'baz' }, { properties: null }]) {
        const r = await s.api('PATCH', `${base()}${person.uuid}/`, body);
        expect([r.status, r.body]).toEqual([400, required]);
      }
      expect((await s.api('PUT', `${base()}${person.uuid}/`, {})).body).toEqual(required);
      // `if request.data.get("properties") is None` comes before get_object: an unknown person is the same 400
      expect((await s.api('PATCH', `${base()}00000000-0000-4000-8000-000000000000/`, { foo: 'bar' })).body).toEqual(required);
      // the scope is checked first (the permission classes run before the view)
      const reader = (await s.api('POST', '/api/personal_api_keys/', { label: 'u', scopes: ['person:read'] })).body.value;
      const denied = await s.api('PATCH', `${base()}${person.uuid}/`, { foo: 'bar' }, reader);
      expect([denied.status, denied.body.detail]).toEqual([403, "API key missing required scope 'person:write'"]);
      await s.server.services.ingestor.flush();
      // mock_capture.assert_not_called(): no $set event of p6, its properties unchanged
      const events = await s.api('GET', `/api/projects/${p}/events/?event=%24set&distinct_id=p6`);
      expect([events.status, events.body.results]).toEqual([200, []]);
      expect((await s.api('GET', `${base()}${person.uuid}/`)).body.properties).toEqual(person.properties);
    });

    it('delete_property: 404 for unknown, malformed and other projects’ persons; $unset is required; scope person:write', async () => {
      const nf = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };
      expect((await s.api('POST', `${base()}00000000-0000-4000-8000-000000000000/delete_property/`, { $unset: 'x' })).body).toEqual(nf);
      expect((await s.api('POST', `${base()}not-a-uuid/delete_property/`, { $unset: 'x' })).body).toEqual(nf);
      const [theirs] = (await s.api('GET', `/api/projects/${other}/persons/?distinct_id=x_distinct_id_2`)).body.results;
      const cross = await s.api('POST', `${base()}${theirs.uuid}/delete_property/`, { $unset: 'email' });
      expect([cross.status, cross.body]).toEqual([404, nf]);
      await s.server.services.ingestor.flush();
      expect((await s.api('GET', `/api/projects/${other}/persons/${theirs.uuid}/`)).body.properties.email).toBe('team2_another@gmail.com');
      const [mine] = (await s.api('GET', `${base()}?distinct_id=p7`)).body.results;
      const missing = await s.api('POST', `${base()}${mine.uuid}/delete_property/`, {});
      expect([missing.status, missing.body.attr, missing.body.code]).toEqual([400, '$unset', 'required']);
      const reader = (await s.api('POST', '/api/personal_api_keys/', { label: 'r', scopes: ['person:read'] })).body.value;
      const denied = await s.api('POST', `${base()}${mine.uuid}/delete_property/`, { $unset: 'n' }, reader);
      expect([denied.status, denied.body.detail]).toEqual([403, "API key missing required scope 'person:write'"]);
    });

    it('person property values without a key: [] (PersonViewSet.values looks values up only for a key); scope person:read', async () => {
      const r = await s.api('GET', `${base()}values/`);
      expect([r.status, r.body]).toEqual([200, []]);
      const k = (await s.api('POST', '/api/personal_api_keys/', { label: 'v', scopes: ['query:read'] })).body.value;
      const denied = await s.api('GET', `${base()}values/?key=random_prop`, undefined, k);
      expect([denied.status, denied.body.detail]).toEqual([403, "API key missing required scope 'person:read'"]);
    });
  });

  describe(`events list filters, order and values (test_event.py) on ${engine}`, () => {
    let s: TestServer;
    let p: number;
    let other: number;
    const base = () => `/api/projects/${p}/events/`;
    const list = async (qs: string) => {
      const r = await s.api('GET', `${base()}${qs}`);
      expect(r.status).toBe(200);
      return r.body as { next: string | null; results: any[] };
    };
    /** Follows a `next` link (absolute, as PostHog's). */
    const follow = async (next: string | null) => {
      const url = new URL(next!);
      const r = await s.api('GET', url.pathname + url.search);
      expect(r.status).toBe(200);
      return r.body as { next: string | null; results: any[] };
    };
    beforeAll(async () => {
      s = server();
      const t = (i: number) => new Date(Date.UTC(2021, 0, 1) + i * DAY + i * 1000).toISOString();
      p = await seed(s, 'events-2', {
        persons: [{ distinct_ids: ['2', 'some-random-uid'], properties: { email: 'tim@posthog.com', plan: 'pro' }, is_identified: true, created_at: '2020-01-01T00:00:00Z' }],
        events: [
          { event: 'event_name', distinct_id: '2', timestamp: '2020-06-01T00:00:00Z', properties: { $browser: 'Chrome' } },
          { event: 'event_name', distinct_id: '2', timestamp: '2020-06-01T00:00:01Z', properties: { $browser: 'Safari' } },
          { event: 'random event', distinct_id: 'some-random-uid', timestamp: '2020-06-02T00:00:00Z', properties: { $ip: '8.8.8.8' } },
          { event: 'random event', distinct_id: 'some-other-one', timestamp: '2020-06-03T00:00:00Z', properties: {} },
          // ten events of distinct id "1", one a day (test_ascending_order_timestamp, test_pagination)
          ...Array.from({ length: 10 }, (_, i) => ({ event: 'some event', distinct_id: '1', timestamp: t(i), properties: { idx: i } })),
          // for the values endpoint: the last 7 days count, older values do not (test_event_property_values)
          { event: 'random event', distinct_id: 'bla', timestamp: ago(10), properties: { random_prop: "don't include", 'some other prop': 'with some text' } },
          { event: 'random event', distinct_id: 'bla', timestamp: ago(0, 60_000), properties: { random_prop: 'asdf', 'some other prop': 'with some text' } },
          { event: 'random event', distinct_id: 'bla', timestamp: ago(0, 60_000), properties: { random_prop: 'asdf' } },
          { event: 'random event', distinct_id: 'bla', timestamp: ago(0, 60_000), properties: { random_prop: 'qwerty' } },
          { event: 'random event', distinct_id: 'bla', timestamp: ago(1), properties: { random_prop: true } },
          { event: 'random event', distinct_id: 'bla', timestamp: ago(1), properties: { random_prop: false } },
          { event: 'random event', distinct_id: 'bla', timestamp: ago(1), properties: { random_prop: { first_name: 'Mary', last_name: 'Smith' } } },
          { event: 'random event', distinct_id: 'bla', timestamp: ago(1), properties: { something_else: 'qwerty' } },
          { event: 'random event', distinct_id: 'bla', timestamp: ago(2), properties: { random_prop: 565 } },
          { event: 'random event', distinct_id: 'bla', timestamp: ago(2), properties: { random_prop: ['item1', 'item2'] } },
          { event: 'random event', distinct_id: 'bla', timestamp: ago(2), properties: { random_prop: ['item3'] } },
          { event: 'another event', distinct_id: 'bla', timestamp: ago(2), properties: { random_prop: 'only-in-another' } },
          { event: '$pageview', distinct_id: 'bla', timestamp: ago(3), properties: {} },
          { event: 'should_be_excluded', distinct_id: '2', timestamp: '2020-06-05T00:00:00Z', properties: { prop_that_is_a_unix_timestamp: Date.UTC(2012, 0, 7, 18) / 1000 } },
          { event: 'should_be_included', distinct_id: '2', timestamp: '2020-06-05T00:00:01Z', properties: { prop_that_is_a_unix_timestamp: Date.UTC(2012, 0, 7, 19) / 1000 } },
          { event: 'personless', distinct_id: 'personless-visitor', timestamp: '2020-06-04T00:00:00Z', properties: { $process_person_profile: false } },
          // an event in the future is not listed (PostHog's query_events_list: before now + 5 s)
          { event: 'future event', distinct_id: 'bla', timestamp: new Date(Date.now() + 2 * DAY).toISOString(), properties: { random_prop: 'future' } },
        ],
      });
      other = await seed(s, 'events-2-other', {
        events: [{ event: 'random event', distinct_id: 'bla', timestamp: ago(0, 60_000), properties: { random_prop: 'abcd', $browser: 'Safari' } }],
      });
    });

    it('test_filter_events_by_properties: a JSON list of property filters; not JSON is “Properties are unparsable!”', async () => {
      const r = await list(`?properties=${encodeURIComponent(JSON.stringify([{ key: '$browser', value: 'Safari' }]))}`);
      expect(r.results.map((e) => [e.event, e.properties])).toEqual([['event_name', { $browser: 'Safari' }]]);
      const bad = await s.api('GET', `${base()}?properties=invalid_json`);
      expect([bad.status, bad.body]).toEqual([400, invalid('Properties are unparsable!')]);
    });

    it.each([
      ['a person property of the event’s person', [{ key: 'email', value: 'tim@posthog.com', type: 'person' }], 'event=random%20event', ['random event/some-random-uid']],
      ['is_not', [{ key: '$browser', value: 'Chrome', operator: 'is_not' }], 'event=event_name', ['event_name/2']],
      ['the old style object {key: value}', { $browser: 'Chrome' }, '', ['event_name/2']],
      ['the old style object with an operator suffix', { $ip__icontains: '8.8' }, '', ['random event/some-random-uid']],
      ['a property group', { type: 'OR', values: [{ key: '$browser', value: 'Chrome' }, { key: '$ip', value: '8.8.8.8' }] }, '', ['random event/some-random-uid', 'event_name/2']],
      ['with distinct_id', [{ key: '$browser', operator: 'is_set', value: 'is_set' }], 'distinct_id=2', ['event_name/2', 'event_name/2']],
      ['a hogql filter', [{ type: 'hogql', key: "properties.$ip = '8.8.8.8'" }], '', ['random event/some-random-uid']],
      // event_metadata reads the events column: distinct_id, and $group_0 / $session_id, which hold '' when the event
      // has none (PostHog's String columns), so is_set holds and is_not_set never does
      ['event_metadata distinct_id', [{ type: 'event_metadata', key: 'distinct_id', value: 'some-other-one' }], '', ['random event/some-other-one']],
      ['event_metadata $group_0 is_set', [{ type: 'event_metadata', key: '$group_0', operator: 'is_set' }], 'event=event_name', ['event_name/2', 'event_name/2']],
      ['event_metadata $session_id exact ""', [{ type: 'event_metadata', key: '$session_id', value: '' }], 'event=event_name', ['event_name/2', 'event_name/2']],
      ['event_metadata $group_0 is_not_set', [{ type: 'event_metadata', key: '$group_0', operator: 'is_not_set' }], 'event=event_name', []],
    ])('properties: %s', async (_n, props, extra, want) => {
      const r = await list(`?properties=${encodeURIComponent(JSON.stringify(props))}${extra ? `&${extra}` : ''}`);
      expect(r.results.map((e) => `${e.event}/${e.distinct_id}`)).toEqual(want);
    });

    it('test_filter_events: the person of the event, its elements; another project’s events never show', async () => {
      const r = await list('?distinct_id=2');
      expect(r.results[0].person).toEqual({ distinct_ids: ['2'], is_identified: true, properties: { email: 'tim@posthog.com' } });
      expect((await list('?event=random%20event')).results.map((e) => e.person?.properties ?? null)).not.toContainEqual({ random_prop: 'abcd' });
      const mine = await list('?distinct_id=bla&limit=1000');
      expect(mine.results.map((e) => e.properties.random_prop)).not.toContain('abcd');
      expect((await s.api('GET', `/api/projects/${other}/events/`)).body.results).toHaveLength(1);
    });

    it('test_filter_by_nonexisting_person: 200 with no events; test_filter_by_person: the person’s distinct ids', async () => {
      expect((await list('?person_id=5555555555')).results).toEqual([]);
      expect((await list('?person_id=00000000-0000-4000-8000-000000000000')).results).toEqual([]);
      const person = (await s.api('GET', `/api/projects/${p}/persons/?distinct_id=2`)).body.results[0];
      expect((await list(`?person_id=${person.uuid}`)).results.map((e) => e.distinct_id)).toEqual(['2', '2', 'some-random-uid', '2', '2']);
    });

    it('a personless event ($process_person_profile: false) has person null, as PostHog’s serializer without a person', async () => {
      const [e] = (await list('?distinct_id=personless-visitor')).results;
      expect(e).toMatchObject({ event: 'personless', distinct_id: 'personless-visitor', person: null });
      expect((await s.api('GET', `${base()}${e.id}/`)).body.person).toBeNull();
    });

    it('test_filter_events_by_being_after_properties_with_date_type: is_date_after on a unix timestamp property', async () => {
      const props = [{ key: 'prop_that_is_a_unix_timestamp', value: '2012-01-07 18:30:00', operator: 'is_date_after', type: 'event' }];
      const r = await list(`?properties=${encodeURIComponent(JSON.stringify(props))}`);
      expect(r.results.map((e) => e.event)).toEqual(['should_be_included']);
    });

    it('test_action_no_steps / an action that does not exist: 200 with no events', async () => {
      const action = await s.api('POST', `/api/projects/${p}/actions/`, { name: 'no steps' });
      expect(action.status).toBe(201);
      expect(await list(`?action_id=${action.body.id}`)).toEqual({ next: null, results: [] });
      expect(await list('?action_id=987654')).toEqual({ next: null, results: [] });
    });

    it('action_id: the events matching the action’s steps', async () => {
      const action = await s.api('POST', `/api/projects/${p}/actions/`, { name: 'safari views', steps: [{ event: 'event_name', properties: [{ key: '$browser', value: 'Safari', type: 'event' }] }] });
      expect(action.status).toBe(201);
      expect((await list(`?action_id=${action.body.id}`)).results.map((e) => e.properties)).toEqual([{ $browser: 'Safari' }]);
    });

    it('test_ascending_order_timestamp / test_default_descending_order_timestamp / test_specified_descending_order_timestamp', async () => {
      const asc = await list(`?distinct_id=1&orderBy=${encodeURIComponent('["timestamp"]')}`);
      expect(asc.results.map((e) => e.properties.idx)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      const dflt = await list('?distinct_id=1');
      expect(dflt.results.map((e) => e.properties.idx)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
      const desc = await list(`?distinct_id=1&orderBy=${encodeURIComponent('["-timestamp"]')}`);
      expect(desc.results.map((e) => e.properties.idx)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
      const bad = await s.api('GET', `${base()}?orderBy=${encodeURIComponent('["event"]')}`);
      expect([bad.status, bad.body.attr]).toEqual([400, 'orderBy']);
    });

    it('test_pagination: next only while more events follow; newest first pages by before, oldest first by after', async () => {
      const first = await list('?distinct_id=1&limit=4');
      expect(first.results.map((e) => e.properties.idx)).toEqual([9, 8, 7, 6]);
      const next = new URL(first.next!);
      expect(next.pathname).toBe(`/api/projects/${p}/events/`);
      expect(Object.fromEntries(next.searchParams)).toEqual({ distinct_id: '1', limit: '4', before: first.results[3].timestamp });
      const second = await follow(first.next);
      expect(second.results.map((e) => e.properties.idx)).toEqual([5, 4, 3, 2]);
      const third = await follow(second.next);
      expect([third.results.map((e) => e.properties.idx), third.next]).toEqual([[1, 0], null]);
      // exactly a full last page: no next link to an empty page
      expect((await list('?distinct_id=1&limit=10')).next).toBeNull();

      const asc = await list(`?distinct_id=1&limit=6&orderBy=${encodeURIComponent('["timestamp"]')}`);
      const ascNext = new URL(asc.next!);
      expect(ascNext.searchParams.get('after')).toBe(asc.results[5].timestamp);
      expect((await follow(asc.next)).results.map((e) => e.properties.idx)).toEqual([6, 7, 8, 9]);
    });

    it('test_pagination_bounded_date_range: before and after stay in the next link', async () => {
      const after = '2021-01-02T00:00:00+00:00';
      const before = '2021-01-09T00:00:00+00:00';
      const r = await list(`?distinct_id=1&after=${encodeURIComponent(after)}&before=${encodeURIComponent(before)}&limit=3`);
      expect(r.results.map((e) => e.properties.idx)).toEqual([7, 6, 5]);
      const next = new URL(r.next!);
      expect(next.searchParams.get('after')).toBe(after);
      const page2 = await follow(r.next);
      expect(page2.results.map((e) => e.properties.idx)).toEqual([4, 3, 2]);
      const page3 = await follow(page2.next);
      expect([page3.results.map((e) => e.properties.idx), page3.next]).toEqual([[1], null]);
    });

    it('before/after take relative dates; events in the future are not listed', async () => {
      expect((await list('?after=-4d&distinct_id=bla')).results.map((e) => e.event)).not.toContain('future event');
      expect((await list('?after=-4d&distinct_id=bla')).results).toHaveLength(12);
      expect((await list('?event=future%20event')).results).toEqual([]);
    });

    it('test_limit', async () => {
      expect((await list('?limit=1')).results).toHaveLength(1);
      expect((await list('?limit=2')).results).toHaveLength(2);
    });

    it('test_get_events_with_specified_token: ?token= names the project (TeamAndOrgViewSetMixin._get_team_from_request)', async () => {
      const tokenOf = async (id: number) => (await s.api('GET', `/api/projects/${id}/`)).body.api_token as string;
      const [mine, theirs] = [await tokenOf(p), await tokenOf(other)];
      const [event1] = (await list('?event=event_name&limit=1')).results;
      const [event2] = (await s.api('GET', `/api/projects/${other}/events/`)).body.results;
      const plain = await s.api('GET', `${base()}${event1.id}/`);
      const withToken = await s.api('GET', `${base()}${event1.id}/?token=${mine}`);
      expect([plain.status, withToken.status, withToken.body]).toEqual([200, 200, plain.body]);
      // the other project's token: its event is found through this project's URL, this project's event is not
      const team2 = await s.api('GET', `${base()}${event2.id}/?token=${theirs}`);
      expect([team2.status, team2.body.id, team2.body.properties]).toEqual([200, event2.id, { random_prop: 'abcd', $browser: 'Safari' }]);
      expect((await s.api('GET', `${base()}${event1.id}/?token=${theirs}`)).status).toBe(404);
      expect((await s.api('GET', `${base()}?token=${theirs}`)).body.results.map((e: { id: string }) => e.id)).toEqual([event2.id]);
      // api_key is read as the token too; a token no project has is AuthenticationFailed
      expect((await s.api('GET', `${base()}?api_key=${theirs}`)).body.results).toHaveLength(1);
      const unknown = await s.api('GET', `${base()}?token=phc_nobody_has_this_token`);
      expect([unknown.status, unknown.body]).toEqual([
        401,
        { type: 'authentication_error', code: 'authentication_failed', detail: 'Incorrect authentication credentials.', attr: null },
      ]);
    });

    it('timestamps are UTC whatever the project’s timezone (ClickhouseEventSerializer.get_timestamp: astimezone().isoformat() on a UTC server)', async () => {
      const tz = await seed(s, 'events-2-tz', {
        events: [
          { event: 'tz event', distinct_id: 'tz', timestamp: '2021-01-05T00:00:00.123Z', properties: { n: 1 } },
          { event: 'tz event', distinct_id: 'tz', timestamp: '2021-01-04T03:00:00Z', properties: { n: 2 } },
        ],
      });
      expect((await s.api('PATCH', `/api/projects/${tz}/`, { timezone: 'America/New_York' })).status).toBe(200);
      const r = await s.api('GET', `/api/projects/${tz}/events/?limit=1`);
      expect(r.status).toBe(200);
      // microseconds only when there are any, as Python's isoformat
      expect(r.body.results.map((e: { timestamp: string }) => e.timestamp)).toEqual(['2021-01-05T00:00:00.123000+00:00']);
      expect(new URL(r.body.next).searchParams.get('before')).toBe('2021-01-05T00:00:00.123000+00:00');
      const url = new URL(r.body.next);
      const page2 = await s.api('GET', url.pathname + url.search);
      expect(page2.body.results.map((e: { timestamp: string }) => e.timestamp)).toEqual(['2021-01-04T03:00:00+00:00']);
      const one = await s.api('GET', `/api/projects/${tz}/events/${r.body.results[0].id}/`);
      expect([one.status, one.body.timestamp]).toEqual([200, '2021-01-05T00:00:00.123000+00:00']);
    });

    it('test_event_property_values: the last 7 days, arrays flattened, booleans and objects named as PostHog', async () => {
      const r = await s.api('GET', `${base()}values/?key=random_prop`);
      expect(r.status).toBe(200);
      expect(r.body.every((x: object) => Object.keys(x).join() === 'name')).toBe(true);
      expect(r.body.map((x: { name: string }) => x.name).sort()).toEqual(
        ['asdf', 'qwerty', '565', 'false', 'true', '{"first_name": "Mary", "last_name": "Smith"}', 'item1', 'item2', 'item3', 'only-in-another'].sort(),
      );
      expect((await s.api('GET', `${base()}values/?key=random_prop&value=qw`)).body).toEqual([{ name: 'qwerty' }]);
      expect((await s.api('GET', `${base()}values/?key=random_prop&value=6`)).body).toEqual([{ name: '565' }]);
      expect((await s.api('GET', `${base()}values/?key=random_prop&value=ASD`)).body).toEqual([{ name: 'asdf' }]);
      expect((await s.api('GET', `${base()}values/?key=${encodeURIComponent("x`) FROM persons --'\\")}`)).body).toEqual([]);
    });

    it('event property values: event_name keeps those events’ values (repeatable)', async () => {
      expect((await s.api('GET', `${base()}values/?key=random_prop&event_name=another%20event`)).body).toEqual([{ name: 'only-in-another' }]);
      const both = await s.api('GET', `${base()}values/?key=random_prop&value=o&event_name=another%20event&event_name=random%20event`);
      expect(both.body.map((x: { name: string }) => x.name).sort()).toEqual(['only-in-another']);
    });

    it('test_custom_event_values: the event names but PostHog’s built-in ones', async () => {
      const r = await s.api('GET', `${base()}values/?key=custom_event`);
      expect(r.body.map((x: { name: string }) => x.name).sort()).toEqual(['another event', 'event_name', 'future event', 'personless', 'random event', 'should_be_excluded', 'should_be_included', 'some event']);
    });

    it('is_column=true: the values of an events column; another key is a 400', async () => {
      const r = await s.api('GET', `${base()}values/?key=event&is_column=true&value=another`);
      expect(r.body).toEqual([{ name: 'another event' }]);
      const bad = await s.api('GET', `${base()}values/?key=properties&is_column=true`);
      expect([bad.status, bad.body.attr]).toEqual([400, 'key']);
      // EventViewSet.values looks values up only for a key (`elif key:`): without one, or with an empty one, []
      for (const qs of ['', '?key=', '?value=x']) expect([qs, (await s.api('GET', `${base()}values/${qs}`)).body]).toEqual([qs, []]);
    });

    it('is_column=true reads the $group_N columns too (the event_metadata filter picker asks for them)', async () => {
      const g = await seed(s, 'events-values-groups', {
        events: [
          { event: 'grouped', distinct_id: 'g', timestamp: ago(0, 60_000), properties: { $groups: { company: 'acme' } } },
          { event: 'grouped', distinct_id: 'g', timestamp: ago(0, 60_000), properties: { $groups: { company: 'globex' } } },
          { event: 'ungrouped', distinct_id: 'g', timestamp: ago(0, 60_000), properties: {} },
        ],
      });
      const r = await s.api('GET', `/api/projects/${g}/events/values/?key=$group_0&is_column=true`);
      expect([r.status, [...r.body].sort((a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name))]).toEqual([200, [{ name: 'acme' }, { name: 'globex' }]]);
      expect((await s.api('GET', `/api/projects/${g}/events/values/?key=$group_0&is_column=true&value=ACM`)).body).toEqual([{ name: 'acme' }]);
    });

    it('event property values: scope query:read', async () => {
      const k = (await s.api('POST', '/api/personal_api_keys/', { label: 'v', scopes: ['person:read'] })).body.value;
      const denied = await s.api('GET', `${base()}values/?key=random_prop`, undefined, k);
      expect([denied.status, denied.body.detail]).toEqual([403, "API key missing required scope 'query:read'"]);
    });
  });
}
