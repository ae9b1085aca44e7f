/**
 * PostHog's groups API (posthog/api/group.py, posthog/api/test/test_groups.py) through the real server, for one
 * engine: group types (list, update_metadata, delete), groups (list with search and cursor, find, property
 * definitions and values, related actors), bad parameters, scopes, and project isolation; and the sessions API's
 * property definitions and values (posthog/api/sessions.py). Used by groups-api.test.ts (DuckDB) and
 * groups-api.clickhouse.test.ts (ClickHouse): same cases, same expected answers.
 */
import type { TestServer } from './server';

const NOT_FOUND = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };

export function describeGroupsCompat(engine: string, server: () => TestServer): void {
  describe(`groups (test_groups.py) on ${engine}`, () => {
    let s: TestServer;
    let p: number;
    let other: number;
    const api = (path: string) => `/api/projects/${p}/${path}`;
    const identify = (type: string, key: string, set: Record<string, unknown>, timestamp: string) => ({
      event: '$groupidentify',
      distinct_id: `$${type}_${key}`,
      timestamp,
      properties: { $group_type: type, $group_key: key, $group_set: set },
    });
    beforeAll(async () => {
      s = server();
      p = (await s.api('POST', '/api/projects/', { name: 'groups' })).body.id;
      other = (await s.api('POST', '/api/projects/', { name: 'groups elsewhere' })).body.id;
      const ing = s.server.services.ingestor;
      await ing.import(p, {
        events: [
          { event: '$pageview', distinct_id: 'u1', timestamp: '2021-05-01T00:00:00Z', properties: { $groups: { organization: 'org:5', project: 'proj:1' } } },
          identify('organization', 'org:5', { industry: 'finance', name: 'Mr. Krabs' }, '2021-05-01T00:00:00Z'),
          identify('organization', 'org:6', { industry: 'technology' }, '2021-05-02T00:00:00Z'),
          identify('project', 'proj:1', { name: 'Krusty Krab', issues: 3 }, '2021-05-03T00:00:00.250Z'),
          identify('organization', 'org:7', { industry: 'finance' }, '2021-05-01T12:00:00Z'),
        ],
      });
      await ing.import(other, { events: [identify('organization', 'org:5', { secret: 'other project' }, '2021-05-01T00:00:00Z')] });
      await ing.flush();
    });

    it('lists group types by index with PostHog’s fields', async () => {
      const r = await s.api('GET', api('groups_types/'));
      expect(r.status).toBe(200);
      expect(r.body).toEqual([
        { group_type: 'organization', group_type_index: 0, name_singular: null, name_plural: null, detail_dashboard: null, default_columns: null, created_at: null },
        { group_type: 'project', group_type_index: 1, name_singular: null, name_plural: null, detail_dashboard: null, default_columns: null, created_at: null },
      ]);
    });

    it('lists the groups of a type newest first as {next, previous, results}', async () => {
      const r = await s.api('GET', api('groups/?group_type_index=0'));
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        next: null,
        previous: null,
        results: [
          { created_at: '2021-05-02T00:00:00Z', group_key: 'org:6', group_properties: { industry: 'technology' }, group_type_index: 0 },
          { created_at: '2021-05-01T12:00:00Z', group_key: 'org:7', group_properties: { industry: 'finance' }, group_type_index: 0 },
          { created_at: '2021-05-01T00:00:00Z', group_key: 'org:5', group_properties: { industry: 'finance', name: 'Mr. Krabs' }, group_type_index: 0 },
        ],
      });
      const proj = await s.api('GET', api('groups/?group_type_index=1'));
      expect(proj.body.results).toEqual([
        { created_at: '2021-05-03T00:00:00.250000Z', group_key: 'proj:1', group_properties: { name: 'Krusty Krab', issues: 3 }, group_type_index: 1 },
      ]);
    });

    it.each([
      ['a property value, case-insensitively', 'krabs', ['org:5']],
      ['the key, exactly', 'ORG:6', ['org:6']],
      ['not part of a key', 'org:', []],
      ['a property value shared by two groups', 'finance', ['org:7', 'org:5']],
    ])('search matches %s', async (_n, search, keys) => {
      const r = await s.api('GET', api(`groups/?group_type_index=0&search=${encodeURIComponent(search)}`));
      expect(r.body.results.map((g: { group_key: string }) => g.group_key)).toEqual(keys);
    });

    it('pages with an opaque cursor (next and previous links)', async () => {
      const first = await s.api('GET', api('groups/?group_type_index=0&limit=2'));
      expect(first.body.results.map((g: { group_key: string }) => g.group_key)).toEqual(['org:6', 'org:7']);
      expect(first.body.previous).toBeNull();
      const next = new URL(first.body.next);
      expect(next.searchParams.get('group_type_index')).toBe('0');
      const second = await s.api('GET', next.pathname + next.search);
      expect(second.body.results.map((g: { group_key: string }) => g.group_key)).toEqual(['org:5']);
      expect(second.body.next).toBeNull();
      const back = new URL(second.body.previous);
      expect((await s.api('GET', back.pathname + back.search)).body.results.map((g: { group_key: string }) => g.group_key)).toEqual(['org:6', 'org:7']);
      const bad = await s.api('GET', api('groups/?group_type_index=0&cursor=nonsense'));
      expect([bad.status, bad.body.detail]).toEqual([404, 'Invalid cursor']);
    });

    it.each([
      ['missing', '', 'You must pass ?group_type_index= in this URL. To get a list of valid group types, call /api/:project_id/groups_types/.'],
      ['not a number', '?group_type_index=abc', 'group_type_index must be an integer from 0 to 4.'],
      ['out of range', '?group_type_index=5', 'group_type_index must be an integer from 0 to 4.'],
    ])('group_type_index %s is a 400 naming it', async (_n, qs, detail) => {
      const r = await s.api('GET', api(`groups/${qs}`));
      expect(r.status).toBe(400);
      // test_groups_list_no_group_type: {type: validation_error, attr: group_type_index, code: invalid_input}
      expect(r.body).toMatchObject({ type: 'validation_error', code: 'invalid_input', attr: 'group_type_index', detail });
    });

    it('finds one group by type and key; 404 when it does not exist or is another project’s', async () => {
      const r = await s.api('GET', api('groups/find?group_type_index=0&group_key=org:5'));
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ created_at: '2021-05-01T00:00:00Z', group_key: 'org:5', group_properties: { industry: 'finance', name: 'Mr. Krabs' }, group_type_index: 0 });
      expect((await s.api('GET', api('groups/find?group_type_index=1&group_key=org:5'))).body).toEqual(NOT_FOUND);
      expect((await s.api('GET', api('groups/find?group_type_index=0&group_key=org:404'))).body).toEqual(NOT_FOUND);
      const missing = await s.api('GET', api('groups/find?group_type_index=0'));
      expect([missing.status, missing.body.attr]).toEqual([400, 'group_key']);
      // the other project's org:5 is only visible there
      const theirs = await s.api('GET', `/api/projects/${other}/groups/find?group_type_index=0&group_key=org:5`);
      expect(theirs.body.group_properties).toEqual({ secret: 'other project' });
      const ours = await s.api('GET', api('groups/?group_type_index=0&search=secret'));
      expect(ours.body.results).toEqual([]);
    });

    it('property definitions per group type, most common first', async () => {
      const r = await s.api('GET', api('groups/property_definitions'));
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        '0': [
          { name: 'industry', count: 3 },
          { name: 'name', count: 1 },
        ],
        '1': [
          { name: 'issues', count: 1 },
          { name: 'name', count: 1 },
        ],
      });
    });

    it('property values of one key in one group type, with an optional value filter', async () => {
      const r = await s.api('GET', api('groups/property_values?group_type_index=0&key=industry'));
      expect(r.status).toBe(200);
      expect(r.body).toEqual([
        { name: 'finance', count: 2 },
        { name: 'technology', count: 1 },
      ]);
      expect((await s.api('GET', api('groups/property_values?group_type_index=0&key=industry&value=TECH'))).body).toEqual([{ name: 'technology', count: 1 }]);
      expect((await s.api('GET', api('groups/property_values?group_type_index=1&key=issues'))).body).toEqual([{ name: '3', count: 1 }]);
      const noKey = await s.api('GET', api('groups/property_values?group_type_index=0'));
      expect([noKey.status, noKey.body.attr]).toEqual([400, 'key']);
    });

    it('update_metadata renames group types and answers the list; bad rows are 400 and change nothing', async () => {
      const r = await s.api('PATCH', api('groups_types/update_metadata'), [
        { group_type_index: 0, name_singular: 'Organization', name_plural: 'Organizations', group_type: 'ignored' },
        { group_type_index: 1, name_plural: 'Projects' },
      ]);
      expect(r.status).toBe(200);
      expect(r.body.map((t: Record<string, unknown>) => [t.group_type, t.name_singular, t.name_plural])).toEqual([
        ['organization', 'Organization', 'Organizations'],
        ['project', null, 'Projects'],
      ]);
      for (const body of [[{ group_type_index: 3, name_singular: 'x' }], [{ group_type_index: 0, name_singular: 5 }], { group_type_index: 0 }, []]) {
        const bad = await s.api('PATCH', api('groups_types/update_metadata'), body);
        expect(bad.status).toBe(400);
        expect(bad.body.type).toBe('validation_error');
      }
      expect((await s.api('GET', api('groups_types/'))).body[0].name_singular).toBe('Organization');
    });

    it('scopes: group:read lists, group:write renames; other scopes are refused', async () => {
      const key = async (scopes: string[]) => (await s.api('POST', '/api/personal_api_keys/', { label: 'groups', scopes })).body.value as string;
      const reader = await key(['group:read']);
      const writer = await key(['group:write']);
      const outsider = await key(['query:read', 'person:read']);
      expect((await s.api('GET', api('groups_types/'), undefined, reader)).status).toBe(200);
      expect((await s.api('GET', api('groups/?group_type_index=0'), undefined, writer)).status).toBe(200);
      const denied = await s.api('GET', api('groups/?group_type_index=0'), undefined, outsider);
      expect([denied.status, denied.body.detail]).toEqual([403, "API key missing required scope 'group:read'"]);
      const readOnly = await s.api('PATCH', api('groups_types/update_metadata'), [{ group_type_index: 0, name_singular: 'x' }], reader);
      expect([readOnly.status, readOnly.body.detail]).toEqual([403, "API key missing required scope 'group:write'"]);
      expect((await s.api('GET', '/api/projects/999999/groups_types/')).body.detail).toBe('Project not found.');
    });

    describe('test_property_values, test_empty_property_values', () => {
      let v: number;
      beforeAll(async () => {
        v = (await s.api('POST', '/api/projects/', { name: 'group values' })).body.id;
        await s.server.services.ingestor.import(v, {
          events: [
            identify('organization', 'org:5', { industry: 'finance' }, '2021-05-01T00:00:00Z'),
            identify('organization', 'org:6', { industry: 'technology' }, '2021-05-01T00:00:00Z'),
            identify('organization', 'org:7', { industry: 'finance-technology' }, '2021-05-01T00:00:00Z'),
            identify('company', 'org:1', { industry: 'finance' }, '2021-05-01T00:00:00Z'),
          ],
        });
        await s.server.services.ingestor.flush();
      });
      const values = async (qs: string) => (await s.api('GET', `/api/projects/${v}/groups/property_values/?${qs}`)).body;

      it('values of one type, filtered by a case-insensitive substring', async () => {
        expect(await values('key=industry&group_type_index=0')).toEqual([
          { name: 'finance', count: 1 },
          { name: 'finance-technology', count: 1 },
          { name: 'technology', count: 1 },
        ]);
        expect(await values('key=industry&group_type_index=0&value=fin')).toEqual([
          { name: 'finance', count: 1 },
          { name: 'finance-technology', count: 1 },
        ]);
        expect(await values('key=industry&group_type_index=0&value=TECH')).toEqual([
          { name: 'finance-technology', count: 1 },
          { name: 'technology', count: 1 },
        ]);
      });

      it('a key no group has: []', async () => {
        expect(await values('key=name&group_type_index=0')).toEqual([]);
      });
    });

    /*
     * test_groups.py _create_related_groups_data: person 1 (distinct ids 1 and 2) shared events with 0::0, 0::1, 1::2 and
     * 1::3 lately; an event with 1::4 is too old (PostHog looks back 90 days, so the recent events are a few days old
     * here); `no such group` has no groups row. Persons 3 and 4 have no events.
     */
    describe('related actors (test_related_groups, test_related_groups_person)', () => {
      let r: number;
      const PERSON = '01795392-cc00-0003-7dc7-67a694604d72';
      const recent = new Date(Date.now() - 5 * 86_400_000).toISOString();
      const group = (index: number, key: string) => ({
        created_at: '2021-05-10T00:00:00Z',
        group_key: key,
        group_type_index: index,
        id: key,
        matched_recordings: [],
        properties: {},
        type: 'group',
        value_at_data_point: null,
      });
      beforeAll(async () => {
        r = (await s.api('POST', '/api/projects/', { name: 'related groups' })).body.id;
        const ing = s.server.services.ingestor;
        const pageview = (distinct_id: string, timestamp: string, groups: Record<string, string>) => ({ event: '$pageview', distinct_id, timestamp, properties: { $groups: groups } });
        await ing.import(r, {
          persons: [
            { id: PERSON, distinct_ids: ['1', '2'], properties: {}, created_at: '2021-05-10T00:00:00Z' },
            { distinct_ids: ['3'], properties: {} },
            { distinct_ids: ['4'], properties: {} },
          ],
          events: [
            ...['0::0', '0::1'].map((k) => identify('organization', k, {}, '2021-05-10T00:00:00Z')),
            ...['1::2', '1::3', '1::4', '1::5'].map((k) => identify('playlist', k, {}, '2021-05-10T00:00:00Z')),
            pageview('1', recent, { organization: '0::0', playlist: '1::2' }),
            pageview('1', recent, { organization: '0::0', playlist: '1::3' }),
            pageview('1', recent, { organization: '0::1', playlist: '1::3' }),
            // too old
            pageview('1', '2000-05-05T00:00:00Z', { organization: '0::0', playlist: '1::4' }),
            // no such group
            pageview('1', recent, { organization: '0::0', playlist: 'no such group' }),
          ],
        });
        await ing.flush();
      });

      it('test_related_groups: the persons, then the groups of the other types, of a group', async () => {
        const res = await s.api('GET', `/api/projects/${r}/groups/related?id=0::0&group_type_index=0`);
        expect(res.status).toBe(200);
        expect(res.body).toEqual([
          {
            created_at: '2021-05-10T00:00:00Z',
            distinct_ids: ['1', '2'],
            id: PERSON,
            uuid: PERSON,
            is_identified: false,
            name: '1',
            properties: {},
            type: 'person',
            matched_recordings: [],
            value_at_data_point: null,
          },
          group(1, '1::2'),
          group(1, '1::3'),
        ]);
      });

      it('test_related_groups_person: the groups of every type of a person', async () => {
        const res = await s.api('GET', `/api/projects/${r}/groups/related?id=${PERSON}`);
        expect(res.status).toBe(200);
        expect(res.body).toEqual([group(0, '0::0'), group(0, '0::1'), group(1, '1::2'), group(1, '1::3')]);
        // scope group:read is enough
        const reader = (await s.api('POST', '/api/personal_api_keys/', { label: 'related', scopes: ['group:read'] })).body.value as string;
        expect((await s.api('GET', `/api/projects/${r}/groups/related?id=${PERSON}`, undefined, reader)).body).toHaveLength(4);
      });
    });

    it('test_list_group_types and test_update_groups_metadata: the whole list, as PostHog answers it', async () => {
      const m = (await s.api('POST', '/api/projects/', { name: 'group metadata' })).body.id;
      await s.server.services.ingestor.import(m, {
        events: ['organization', 'playlist', 'another'].map((t, i) => identify(t, `k${i}`, {}, '2021-05-01T00:00:00Z')),
      });
      await s.server.services.ingestor.flush();
      const type = (group_type: string, group_type_index: number, name_singular: string | null = null, name_plural: string | null = null) => ({
        group_type_index,
        group_type,
        name_singular,
        name_plural,
        default_columns: null,
        detail_dashboard: null,
        created_at: null,
      });
      expect((await s.api('GET', `/api/projects/${m}/groups_types`)).body).toEqual([type('organization', 0), type('playlist', 1), type('another', 2)]);
      const r = await s.api('PATCH', `/api/projects/${m}/groups_types/update_metadata`, [
        { group_type_index: 0, name_singular: 'organization!' },
        { group_type_index: 1, group_type: 'rename attempt', name_plural: 'playlists' },
      ]);
      expect(r.body).toEqual([type('organization', 0, 'organization!'), type('playlist', 1, null, 'playlists'), type('another', 2)]);
    });

    describe('test_retrieve_group, update_property and delete_property', () => {
      let g: number;
      const at = (path: string) => `/api/projects/${g}/groups/${path}`;
      beforeAll(async () => {
        g = (await s.api('POST', '/api/projects/', { name: 'group properties' })).body.id;
        await s.server.services.ingestor.import(g, {
          events: [
            identify('organization', 'key', { industry: 'finance', name: 'Mr. Krabs' }, '2021-05-02T00:00:00Z'),
            identify('playlist', 'foo//bar', {}, '2021-05-02T00:00:00Z'),
          ],
        });
        await s.server.services.ingestor.flush();
      });

      it('test_retrieve_group: by type and key, a key with slashes too', async () => {
        expect((await s.api('GET', at('find?group_type_index=1&group_key=key'))).status).toBe(404);
        const ok = await s.api('GET', at('find?group_type_index=0&group_key=key'));
        expect(ok.body).toEqual({ created_at: '2021-05-02T00:00:00Z', group_key: 'key', group_properties: { industry: 'finance', name: 'Mr. Krabs' }, group_type_index: 0 });
        const slashes = await s.api('GET', at('find?group_type_index=1&group_key=foo//bar'));
        expect([slashes.status, slashes.body]).toEqual([200, { created_at: '2021-05-02T00:00:00Z', group_key: 'foo//bar', group_properties: {}, group_type_index: 1 }]);
      });

      it('update_property sets one property (added or changed) and answers the group', async () => {
        const added = await s.api('POST', at('update_property?group_type_index=0&group_key=key'), { key: 'seats', value: 10 });
        expect(added.status).toBe(200);
        expect(added.body).toEqual({ created_at: '2021-05-02T00:00:00Z', group_key: 'key', group_properties: { industry: 'finance', name: 'Mr. Krabs', seats: 10 }, group_type_index: 0 });
        await s.api('POST', at('update_property?group_type_index=0&group_key=key'), { key: 'industry', value: 'technology' });
        expect((await s.api('GET', at('find?group_type_index=0&group_key=key'))).body.group_properties).toEqual({ industry: 'technology', name: 'Mr. Krabs', seats: 10 });
        // insights read the new value
        const q = await s.api('POST', `/api/projects/${g}/query/`, { query: { kind: 'HogQLQuery', query: "select properties.industry from groups where key = 'key'" } });
        expect(q.body.results).toEqual([['technology']]);
        // a later $groupidentify still merges over it
        await s.server.services.ingestor.import(g, { events: [identify('organization', 'key', { plan: 'pro' }, '2021-05-03T00:00:00Z')] });
        await s.server.services.ingestor.flush();
        expect((await s.api('GET', at('find?group_type_index=0&group_key=key'))).body.group_properties).toEqual({ industry: 'technology', name: 'Mr. Krabs', seats: 10, plan: 'pro' });
      });

      it('delete_property removes one property and answers the group', async () => {
        const r = await s.api('POST', at('delete_property?group_type_index=0&group_key=key'), { $unset: 'seats' });
        expect(r.status).toBe(200);
        expect(r.body.group_properties).toEqual({ industry: 'technology', name: 'Mr. Krabs', plan: 'pro' });
        expect((await s.api('GET', at('find?group_type_index=0&group_key=key'))).body.group_properties).toEqual({ industry: 'technology', name: 'Mr. Krabs', plan: 'pro' });
      });

      it('an unknown group is a 404; a missing field is PostHog’s hand-written 400; group:write is required', async () => {
        expect((await s.api('POST', at('update_property?group_type_index=0&group_key=nope'), { key: 'a', value: 1 })).body).toEqual(NOT_FOUND);
        expect((await s.api('POST', at('delete_property?group_type_index=1&group_key=key'), { $unset: 'a' })).status).toBe(404);
        const noValue = await s.api('POST', at('update_property?group_type_index=0&group_key=key'), { key: 'a' });
        expect([noValue.status, noValue.body]).toEqual([400, { type: 'validation_error', code: 'This field is required.', detail: 'required', attr: 'value' }]);
        const noKey = await s.api('POST', at('update_property?group_type_index=0&group_key=key'), { value: 1 });
        expect([noKey.status, noKey.body.attr]).toEqual([400, 'key']);
        const noUnset = await s.api('POST', at('delete_property?group_type_index=0&group_key=key'), {});
        expect([noUnset.status, noUnset.body.attr]).toEqual([400, '$unset']);
        const noIndex = await s.api('POST', at('update_property?group_key=key'), { key: 'a', value: 1 });
        expect([noIndex.status, noIndex.body.attr]).toEqual([400, 'group_type_index']);
        const reader = (await s.api('POST', '/api/personal_api_keys/', { label: 'groups read', scopes: ['group:read'] })).body.value as string;
        const denied = await s.api('POST', at('update_property?group_type_index=0&group_key=key'), { key: 'a', value: 1 }, reader);
        expect([denied.status, denied.body.detail]).toEqual([403, "API key missing required scope 'group:write'"]);
        expect((await s.api('GET', at('find?group_type_index=0&group_key=key'))).body.group_properties).toEqual({ industry: 'technology', name: 'Mr. Krabs', plan: 'pro' });
      });
    });

    it('deleting a group type removes it and its groups; the next new type takes its index', async () => {
      const del = await s.api('DELETE', api('groups_types/1'));
      expect([del.status, del.text]).toEqual([204, '']);
      expect((await s.api('DELETE', api('groups_types/1'))).status).toBe(404);
      expect((await s.api('DELETE', api('groups_types/x'))).status).toBe(404);
      expect((await s.api('GET', api('groups_types/'))).body.map((t: { group_type: string }) => t.group_type)).toEqual(['organization']);
      expect((await s.api('GET', api('groups/?group_type_index=1'))).body.results).toEqual([]);
      await s.server.services.ingestor.import(p, { events: [identify('workspace', 'w1', {}, '2021-06-01T00:00:00Z')] });
      await s.server.services.ingestor.flush();
      expect((await s.api('GET', api('groups_types/'))).body.map((t: { group_type: string; group_type_index: number }) => [t.group_type, t.group_type_index])).toEqual([
        ['organization', 0],
        ['workspace', 1],
      ]);
      // the other project's types are untouched
      expect((await s.api('GET', `/api/projects/${other}/groups_types/`)).body.map((t: { group_type: string }) => t.group_type)).toEqual(['organization']);
    });
  });

  /*
   * PostHog's sessions API (posthog/api/test/test_sessions.py): session s1 (d1) entered with utm_source google, then
   * youtube; s2 (d2) with youtube.
   */
  describe(`sessions property definitions and values (test_sessions.py) on ${engine}`, () => {
    let s: TestServer;
    let p: number;
    const api = (path: string) => `/api/projects/${p}/sessions/${path}`;
    beforeAll(async () => {
      s = server();
      p = (await s.api('POST', '/api/projects/', { name: 'sessions api' })).body.id;
      const pageview = (distinct_id: string, session: string, utm_source: string, timestamp: string) => ({
        event: '$pageview',
        distinct_id,
        timestamp,
        properties: { $session_id: session, utm_source },
      });
      await s.server.services.ingestor.import(p, {
        events: [pageview('d1', 's1', 'google', '2024-01-01T10:00:00Z'), pageview('d1', 's1', 'youtube', '2024-01-01T10:00:05Z'), pageview('d2', 's2', 'youtube', '2024-01-01T11:00:00Z')],
      });
      await s.server.services.ingestor.flush();
    });
    const names = async (path: string): Promise<Set<unknown>> => {
      const r = await s.api('GET', api(path));
      expect(r.status).toBe(200);
      return new Set((Array.isArray(r.body) ? r.body : r.body.results).map((x: { name: unknown }) => x.name));
    };

    it('test_search_session_properties and test_empty_search_session_properties', async () => {
      expect(await names('property_definitions/?search=utm')).toEqual(new Set(['$entry_utm_campaign', '$entry_utm_content', '$entry_utm_medium', '$entry_utm_source', '$entry_utm_term']));
      expect(await names('property_definitions/?search=doesnotexist')).toEqual(new Set());
    });

    it('property definitions carry PostHog’s fields; $session_duration is a Duration', async () => {
      const r = await s.api('GET', api('property_definitions/?search=session_duration'));
      expect(r.body.results).toEqual([{ id: '$session_duration', name: '$session_duration', is_numerical: true, property_type: 'Duration', is_seen_on_filtered_events: null, tags: [] }]);
      expect(r.body.count).toBe(1);
    });

    it('test_list_channel_type_values and test_search_channel_type_values', async () => {
      const all = await names('values/?key=$channel_type');
      for (const t of ['Direct', 'Organic Search', 'Paid Search', 'Referral', 'Email', 'Unknown']) expect(all).toContain(t);
      expect(await names('values/?key=$channel_type&value=paid')).toEqual(new Set(['Paid Unknown', 'Paid Search', 'Paid Shopping', 'Paid Video', 'Paid Social']));
    });

    it('test_list_session_property_values, test_search_session_property_values, no matching values', async () => {
      expect(await names('values/?key=$entry_utm_source')).toEqual(new Set(['google', 'youtube']));
      expect(await names('values/?key=$entry_utm_source&value=tub')).toEqual(new Set(['youtube']));
      expect(await names('values/?key=$entry_utm_source&value=doesnotexist')).toEqual(new Set());
      expect(await names('values/?key=$nope')).toEqual(new Set());
    });

    it('a missing key is a 400', async () => {
      const r = await s.api('GET', api('values/'));
      expect([r.status, r.body.detail]).toEqual([400, 'Key not provided']);
    });

    it('the session modifiers (bounceRateDurationSeconds, customChannelTypeRules) change the answer, cached apart', async () => {
      const query = (modifiers?: Record<string, unknown>) =>
        s.api('POST', `/api/projects/${p}/query/`, { query: { kind: 'HogQLQuery', query: 'select session_id, $channel_type, $is_bounce from sessions order by session_id', ...(modifiers ? { modifiers } : {}) } });
      // s1 lasts 5 s over two pageviews (no bounce), s2 is one pageview of 0 s (a bounce); neither has a referring domain
      expect((await query()).body.results).toEqual([
        ['s1', 'Organic Search', 0],
        ['s2', 'Organic Video', 1],
      ]);
      const rules = [{ id: 'a', channel_type: 'From Google', combiner: 'AND', items: [{ id: '1', key: 'utm_source', op: 'exact', value: 'google' }] }];
      expect((await query({ customChannelTypeRules: rules })).body.results).toEqual([
        ['s1', 'From Google', 0],
        ['s2', 'Organic Video', 1],
      ]);
      // a session of 0 s lasts at least 0 s: no bounce
      expect((await query({ bounceRateDurationSeconds: 0 })).body.results.map((r: unknown[]) => r[2])).toEqual([0, 0]);
      expect((await query()).body.results.map((r: unknown[]) => r.slice(1))).toEqual([
        ['Organic Search', 0],
        ['Organic Video', 1],
      ]);
      const bad = await query({ customChannelTypeRules: [{ channel_type: 'x', combiner: 'AND', items: [{ key: 'nope', op: 'exact', value: 'y' }] }] });
      expect(bad.status).toBe(400);
    });
  });
}
