/**
 * PostHog's persons, cohort persons and groups API cases, third batch (posthog/api/test/test_person.py, test_cohort.py,
 * test_groups.py): empty answers of the values endpoints, unparsable property filters on the persons list, and a
 * cohort's persons narrowed by `properties` and `search`, through the real server with data from the real ingest path. persons-cohorts-posthog-compat-3.clickhouse.test.ts runs this file on ClickHouse.
 */
import { quarryOnTestEngine } from '../helpers/clickhouse-quarry';
import { newKey, type TestServer } from '../helpers/server';

const server = quarryOnTestEngine('quarry_persons_cohorts_compat_3');

let s: TestServer;
let p: number;
const api = (path: string) => `/api/projects/${p}/${path}`;

beforeAll(async () => {
  s = server();
  p = (await s.api('POST', '/api/projects/', { name: 'persons groups compat 3' })).body.id;
  await s.server.services.ingestor.import(p, {
    persons: [{ distinct_ids: ['p1'], properties: { email: 'p1@posthog.com' } }],
    events: [
      {
        event: '$groupidentify',
        distinct_id: '$organization_org:1',
        timestamp: '2021-05-01T00:00:00Z',
        properties: { $group_type: 'organization', $group_key: 'org:1', $group_set: { industry: 'finance' } },
      },
    ],
  });
  await s.server.services.ingestor.flush();
});

describe('groups (test_groups.py)', () => {
  it('test_empty_property_values: a key no group of the type has answers []', async () => {
    const r = await s.api('GET', api('groups/property_values/?key=name&group_type_index=0'));
    expect([r.status, r.body]).toEqual([200, []]);
    expect((await s.api('GET', api('groups/property_values/?key=industry&group_type_index=0'))).body).toEqual([{ name: 'finance', count: 1 }]);
  });
});

describe('persons (test_person.py)', () => {
  it('test_person_property_values: a key no person has answers []', async () => {
    const r = await s.api('GET', api('persons/values/?key=nobody_has_this'));
    expect([r.status, r.body]).toEqual([200, []]);
  });

  it('persons/values without a key, with an empty one, or with a virtual one answers [] (PersonViewSet.values: `if key and not key.startswith("$virt")`)', async () => {
    for (const q of ['', '?key=', '?key=%24virt_initial_channel_type', '?value=x']) {
      const r = await s.api('GET', api(`persons/values/${q}`));
      expect([q, r.status, r.body]).toEqual([q, 200, []]);
    }
  });

  it('properties that are not JSON are PostHog’s “Properties are unparsable!” (property_mixin), as on the events list', async () => {
    const r = await s.api('GET', api('persons/?properties=not%20json'));
    expect([r.status, r.body]).toEqual([400, { type: 'validation_error', code: 'invalid_input', detail: 'Properties are unparsable!', attr: null }]);
  });
});

describe('cohort persons (test_cohort.py)', () => {
  let c: number;
  beforeAll(async () => {
    await s.server.services.ingestor.import(p, {
      persons: [
        ...Array.from({ length: 5 }, (_, i) => ({ distinct_ids: [`person_${i}`], properties: { $os: 'Chrome' } })),
        { distinct_ids: ['target'], properties: { $os: 'Chrome', $browser: 'Safari' } },
        // test_filter_by_cohort_prop_from_clickhouse: Safari, but outside the cohort
        { distinct_ids: ['not_target'], properties: { $os: 'Something else', $browser: 'Safari' } },
      ],
    });
    await s.server.services.ingestor.flush();
    const r = await s.api('POST', api('cohorts/'), { name: 'chrome', groups: [{ properties: [{ key: '$os', value: 'Chrome', type: 'person' }] }] });
    expect(r.status).toBe(201);
    c = r.body.id;
    expect((await s.api('GET', api(`cohorts/${c}/persons/`))).body.results).toHaveLength(6);
  });

  it('test_filter_by_cohort_prop: the persons list’s properties filter within the cohort', async () => {
    const props = encodeURIComponent(JSON.stringify([{ key: '$browser', value: 'Safari', type: 'person' }]));
    const r = await s.api('GET', api(`cohorts/${c}/persons/?properties=${props}`));
    expect(r.body.results.map((x: { distinct_ids: string[] }) => x.distinct_ids)).toEqual([['target']]);
  });

  it('test_filter_by_cohort_search: search by a distinct id within the cohort', async () => {
    const r = await s.api('GET', api(`cohorts/${c}/persons/?search=target`));
    expect([r.status, r.body.detail]).toEqual([200, undefined]);
    expect(r.body.results.map((x: { distinct_ids: string[] }) => x.distinct_ids)).toEqual([['target']]);
  });
});

describe('cohort persons as CSV (test_cohort.py test_csv_export_new; CohortViewSet.persons with PaginatedCSVRenderer)', () => {
  let c: number;
  beforeAll(async () => {
    await s.server.services.ingestor.import(p, {
      persons: [
        { distinct_ids: ['csv_person3', ...Array.from({ length: 20 }, (_, i) => `csv_person_${i + 4}`)], properties: { $os: 'Windows 95', email: 'csv@posthog.com' } },
        { distinct_ids: ['csv_person1'], properties: { $os: 'Windows 95' } },
      ],
    });
    await s.server.services.ingestor.flush();
    const r = await s.api('POST', api('cohorts/'), { name: 'csv', groups: [{ properties: [{ key: '$os', value: 'Windows 95', type: 'person' }] }] });
    expect(r.status).toBe(201);
    c = r.body.id;
  });
  const lines = (text: string) => text.split('\r\n').filter((l) => l !== '');

  it.each([`cohorts/CID/persons.csv`, `cohorts/CID/persons/?format=csv`])('%s: a header and a line per person; the email property is the email column, uuid and is_identified are gone', async (path) => {
    const r = await s.api('GET', api(path.replace('CID', String(c))));
    expect([r.status, r.headers.get('content-type')]).toEqual([200, expect.stringContaining('text/csv')]);
    const [header, ...rows] = lines(r.text);
    expect(rows).toHaveLength(2);
    const columns = header.split(',');
    expect(columns).toEqual([...columns].sort());
    expect(columns).toEqual(expect.arrayContaining(['id', 'email', 'name', 'created_at', 'properties.$os', 'distinct_ids.0']));
    for (const gone of ['uuid', 'is_identified', 'type', 'value_at_data_point', 'properties.email', 'next', 'previous']) expect(columns).not.toContain(gone);
    const withEmail = rows.find((l) => l.includes('csv@posthog.com'))!.split(',');
    expect(withEmail[columns.indexOf('email')]).toBe('csv@posthog.com');
    expect(withEmail[columns.indexOf('distinct_ids.0')]).toBe('csv_person3');
    const without = rows.find((l) => l.includes('csv_person1'))!.split(',');
    expect(without[columns.indexOf('email')]).toBe('');
  });

  it('through the legacy /api/cohort/<id>/persons.csv (the test’s own path)', async () => {
    const key = await newKey(s, ['cohort:read', 'person:read'], { scoped_teams: [p] });
    const r = await s.api('GET', `/api/cohort/${c}/persons.csv`, undefined, key);
    expect([r.status, lines(r.text).length]).toEqual([200, 3]);
  });

  it('JSON stays the persons list’s shape (uuid and the email property kept); is_csv_export shapes it as the CSV', async () => {
    const json = await s.api('GET', api(`cohorts/${c}/persons/`));
    const one = json.body.results.find((x: { distinct_ids: string[] }) => x.distinct_ids[0] === 'csv_person3');
    expect([typeof one.uuid, one.properties.email, one.email]).toEqual(['string', 'csv@posthog.com', undefined]);
    // serialize_people's SerializedPerson
    expect(one).toMatchObject({ type: 'person', id: one.uuid, matched_recordings: [], value_at_data_point: null, is_identified: expect.any(Boolean) });
    const shaped = await s.api('GET', api(`cohorts/${c}/persons/?is_csv_export=1`));
    const two = shaped.body.results.find((x: { distinct_ids: string[] }) => x.distinct_ids[0] === 'csv_person3');
    expect([two.uuid, two.type, two.properties.email, two.email, two.properties.$os]).toEqual([undefined, undefined, undefined, 'csv@posthog.com', 'Windows 95']);
  });
});

describe('cohort persons paging (test_cohort.py test_filter_by_cohort)', () => {
  it('150 persons in the cohort: a page of 100, then its next link gives the other 50 (a person outside is never listed)', async () => {
    await s.server.services.ingestor.import(p, {
      persons: [{ distinct_ids: ['fake'], properties: {} }, ...Array.from({ length: 150 }, (_, i) => ({ distinct_ids: [`paged_${i}`], properties: { $os: 'Linux' } }))],
    });
    await s.server.services.ingestor.flush();
    const made = await s.api('POST', api('cohorts/'), { name: 'linux', groups: [{ properties: [{ key: '$os', value: 'Linux', type: 'person' }] }] });
    expect([made.status, made.body.count]).toEqual([201, 150]);
    const first = await s.api('GET', api(`cohorts/${made.body.id}/persons/`));
    expect([first.status, first.body.results.length, typeof first.body.next]).toEqual([200, 100, 'string']);
    const next = new URL(first.body.next);
    const second = await s.api('GET', `${next.pathname}${next.search}`);
    expect([second.status, second.body.results.length, second.body.next]).toEqual([200, 50, null]);
    const ids = [...first.body.results, ...second.body.results].map((x: { distinct_ids: string[] }) => x.distinct_ids[0]);
    expect(new Set(ids).size).toBe(150);
    expect(ids).not.toContain('fake');
  });

  it('test_filter_by_cohort / test_filter_by_static_cohort through the legacy /api/cohort/<id>/persons (the current project)', async () => {
    // a key of this project only: it is the key's current project
    const key = await newKey(s, ['cohort:read', 'cohort:write', 'person:read'], { scoped_teams: [p] });
    const linux = (await s.api('GET', api('cohorts/'))).body.results.find((x: { name: string }) => x.name === 'linux');
    const first = await s.api('GET', `/api/cohort/${linux.id}/persons`, undefined, key);
    expect([first.status, first.body.results.length]).toEqual([200, 100]);
    const next = new URL(first.body.next);
    expect(next.pathname).toBe(`/api/cohort/${linux.id}/persons`);
    expect((await s.api('GET', `${next.pathname}${next.search}`, undefined, key)).body.results).toHaveLength(50);
    const made = await s.api('POST', '/api/cohort/', { name: 'static', is_static: true, groups: [] }, key);
    expect([made.status, made.body.is_static]).toEqual([201, true]);
    const uuid = async (d: string) => (await s.api('GET', api(`persons/?distinct_id=${d}`))).body.results[0].uuid as string;
    const added = await s.api('PATCH', `/api/cohort/${made.body.id}/add_persons_to_static_cohort/`, { person_ids: [await uuid('paged_1'), await uuid('paged_2')] }, key);
    expect(added.status).toBe(200);
    const persons = await s.api('GET', `/api/cohort/${made.body.id}/persons`, undefined, key);
    expect(persons.body.results.map((x: { distinct_ids: string[] }) => x.distinct_ids[0]).sort()).toEqual(['paged_1', 'paged_2']);
    expect((await s.api('GET', api(`cohorts/${made.body.id}/`))).body.name).toBe('static');
  });

  it('a CSV export without a limit is every person (up to CSV_EXPORT_LIMIT) from the first, whatever the offset; with a limit, that page', async () => {
    const linux = (await s.api('GET', api('cohorts/?search=linux'))).body.results[0];
    const rows = async (qs: string) => {
      const r = await s.api('GET', api(`cohorts/${linux.id}/persons.csv${qs}`));
      expect(r.status).toBe(200);
      return r.text.split('\r\n').filter((l) => l !== '').length - 1;
    };
    expect(await rows('')).toBe(150);
    expect(await rows('?offset=100')).toBe(150);
    expect(await rows('?limit=10&offset=145')).toBe(5);
  });
});
