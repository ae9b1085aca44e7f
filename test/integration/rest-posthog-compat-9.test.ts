/**
 * The REST surface against PostHog's API tests, ninth batch (the earlier ones are rest-posthog-compat.test.ts and -2
 * to -8): posthog/api/test/test_personal_api_keys.py (scoped_teams and scoped_organizations validation),
 * products/endpoints tests (targeting a version on update, the version view's own fields, the deprecated
 * filters_override and the "Other" breakdown on an insight endpoint, a create without a body),
 * posthog/api/test/test_insight.py (list refresh modes, test_created_updated_and_last_modified, the `events` list
 * filter, a soft-deleted insight on update) and the query envelope's next_allowed_client_refresh (reference §9.2).
 * Each case names the PostHog test or the reference section it ports. One server and one project for the whole
 * file; the few events are an hour old and only counted per series, so no case depends on the engine (no
 * ClickHouse twin).
 */
import { newProject, startServer, type TestServer } from '../helpers/server';

let s: TestServer;
let p: number;

const sql = (query: string) => ({ kind: 'HogQLQuery', query });
const byBrowser = {
  kind: 'TrendsQuery',
  series: [{ kind: 'EventsNode', event: '$pageview' }],
  breakdownFilter: { breakdown: '$browser' },
  dateRange: { date_from: '-7d' },
};
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

beforeAll(async () => {
  s = await startServer();
  p = await newProject(s, 'rest-compat-9');
  const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();
  await s.server.services.ingestor.import(p, {
    events: [
      { event: '$pageview', distinct_id: 'u1', timestamp: hoursAgo(1), properties: { $browser: 'Chrome' } },
      { event: '$pageview', distinct_id: 'u2', timestamp: hoursAgo(1), properties: { $browser: 'Chrome' } },
      { event: '$pageview', distinct_id: 'u3', timestamp: hoursAgo(1), properties: { $browser: 'Safari' } },
    ],
  });
  await s.server.services.ingestor.flush();
});
afterAll(() => s.close());

describe('personal API keys (test_personal_api_keys.py, PersonalAPIKeySerializer.validate_scoped_teams)', () => {
  const memberOnly = {
    type: 'validation_error',
    code: 'invalid_input',
    detail: 'You must be a member of all teams that you are scoping the key to.',
    attr: 'scoped_teams',
  };

  it('a key scoped to a project the user is no member of (here: none such exists) is refused; nothing is created', async () => {
    const before = (await s.api('GET', '/api/personal_api_keys/')).body.length;
    const r = await s.api('POST', '/api/personal_api_keys/', { label: 'scoped', scopes: ['insight:read'], scoped_teams: [p, 987654] });
    expect([r.status, r.body]).toEqual([400, memberOnly]);
    expect((await s.api('GET', '/api/personal_api_keys/')).body.length).toBe(before);
  });

  it('the same check on update; the key keeps its projects; a project of its own is fine', async () => {
    const made = await s.api('POST', '/api/personal_api_keys/', { label: 'scoped', scopes: ['insight:read'], scoped_teams: [p] });
    expect([made.status, made.body.scoped_teams]).toEqual([201, [p]]);
    const bad = await s.api('PATCH', `/api/personal_api_keys/${made.body.id}/`, { scoped_teams: [987654] });
    expect([bad.status, bad.body]).toEqual([400, memberOnly]);
    expect((await s.api('GET', `/api/personal_api_keys/${made.body.id}/`)).body.scoped_teams).toEqual([p]);
  });

  it('scoped_organizations naming an organization (Quarry has one, unnamed): validate_scoped_organizations’ refusal', async () => {
    const org = '0190f0c2-1111-7000-8000-000000000001';
    const r = await s.api('POST', '/api/personal_api_keys/', { label: 'org', scopes: ['insight:read'], scoped_organizations: [org] });
    expect([r.status, r.body]).toEqual([
      400,
      { type: 'validation_error', code: 'invalid_input', detail: 'You must be a member of all organizations that you are scoping the key to.', attr: 'scoped_organizations' },
    ]);
  });
});

describe('endpoints: targeting a version (products/endpoints tests, reference §1.2, §1.5)', () => {
  let ep: string;
  beforeAll(async () => {
    ep = `/api/environments/${p}/endpoints`;
    expect((await s.api('POST', `${ep}/`, { name: 'targeted', query: sql('select 1 as a'), description: 'first' })).status).toBe(201);
    expect((await s.api('PATCH', `${ep}/targeted/`, { query: sql('select 2 as a') })).body.current_version).toBe(2);
  });

  it('description sent with ?version=1 changes version 1 only; the answer is version 1’s view', async () => {
    const r = await s.api('PATCH', `${ep}/targeted/?version=1`, { description: 'old one' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ version: 1, description: 'old one', current_version: 2, query: sql('select 1 as a') });
    expect((await s.api('GET', `${ep}/targeted/`)).body.description).toBe('first');
    expect((await s.api('GET', `${ep}/targeted/?version=2`)).body.description).toBe('first');
  });

  it('the version view: version_created_by, version_created_at kept and version_updated_at moved by a targeted update', async () => {
    const before = (await s.api('GET', `${ep}/targeted/?version=1`)).body;
    expect(before.version_created_by).toMatchObject({ id: before.created_by.id, email: before.created_by.email });
    await new Promise((r) => setTimeout(r, 5));
    const after = (await s.api('PATCH', `${ep}/targeted/`, { version: 1, data_freshness_seconds: 3600 })).body;
    expect([after.version, after.data_freshness_seconds, after.version_created_at]).toEqual([1, 3600, before.version_created_at]);
    expect(Date.parse(after.version_updated_at)).toBeGreaterThan(Date.parse(before.version_updated_at));
    // the endpoint view is the current version's: its freshness did not change
    expect((await s.api('GET', `${ep}/targeted/`)).body.data_freshness_seconds).toBe(86400);
  });

  it('is_active while targeting toggles that version only: its view says false, endpoint_is_active and the endpoint stay true', async () => {
    const off = await s.api('PATCH', `${ep}/targeted/?version=1`, { is_active: false });
    expect([off.status, off.body.version, off.body.is_active, off.body.endpoint_is_active]).toEqual([200, 1, false, true]);
    const latest = await s.api('GET', `${ep}/targeted/`);
    expect(latest.body.is_active).toBe(true);
    const versions = await s.api('GET', `${ep}/targeted/versions/`);
    expect(versions.body.results.map((v: { version: number; is_active: boolean }) => [v.version, v.is_active])).toEqual([
      [2, true],
      [1, false],
    ]);
    expect((await s.api('POST', `${ep}/targeted/run/`, {})).body.results).toEqual([[2]]);
    const pinned = await s.api('POST', `${ep}/targeted/run/`, { version: 1 });
    expect([pinned.status, pinned.body.detail]).toEqual([400, 'Version 1 is inactive and cannot be executed.']);
    expect((await s.api('PATCH', `${ep}/targeted/?version=1`, { is_active: true })).body.is_active).toBe(true);
    expect((await s.api('POST', `${ep}/targeted/run/`, { version: 1 })).body.results).toEqual([[1]]);
  });
});

describe('endpoint run filters_override on an insight endpoint (reference §1.6: deprecated, insight endpoints only)', () => {
  it('the dashboard filter applies to the answer and the response warns with X-PostHog-Warn; a run without it does not', async () => {
    const ep = `/api/environments/${p}/endpoints`;
    expect((await s.api('POST', `${ep}/`, { name: 'browsers', query: byBrowser })).status).toBe(201);
    const plain = await s.api('POST', `${ep}/browsers/run/`, {});
    expect(plain.status).toBe(200);
    expect(plain.headers.get('x-posthog-warn')).toBeNull();
    expect(plain.body.results[0].days).toHaveLength(8);
    const over = await s.api('POST', `${ep}/browsers/run/`, {
      filters_override: { date_from: '-1d', properties: [{ key: '$browser', value: 'Chrome', type: 'event', operator: 'exact' }] },
    });
    expect(over.status).toBe(200);
    expect(over.headers.get('x-posthog-warn')).toMatch(/^filters_override is deprecated/);
    expect(over.body.results.map((r: { breakdown_value: string; data: number[]; days: string[] }) => [r.breakdown_value, sum(r.data), r.days.length])).toEqual([
      ['Chrome', 2, 2],
    ]);
  });
});

describe('breakdown sentinels on an insight endpoint run (reference §1.6: the "other" marker becomes "Other")', () => {
  it('breakdown_limit 1: the query API keeps PostHog’s marker; the endpoint run answers "Other" for the same series', async () => {
    const query = { ...byBrowser, breakdownFilter: { breakdown: '$browser', breakdown_limit: 1 } };
    const pairs = (results: { breakdown_value: unknown; count: number }[]) => results.map((r) => [r.breakdown_value, r.count]);
    const direct = await s.api('POST', `/api/projects/${p}/query/`, { query });
    expect(pairs(direct.body.results)).toEqual([
      ['Chrome', 2],
      ['$$_posthog_breakdown_other_$$', 1],
    ]);
    const ep = `/api/environments/${p}/endpoints`;
    expect((await s.api('POST', `${ep}/`, { name: 'top-browser', query })).status).toBe(201);
    const run = await s.api('POST', `${ep}/top-browser/run/`, {});
    expect([run.status, pairs(run.body.results)]).toEqual([
      200,
      [
        ['Chrome', 2],
        ['Other', 1],
      ],
    ]);
  });
});

describe('insights list refresh (test_insight.py, reference §2.4: list defaults to force_cache)', () => {
  it('create and the default list never compute (result null); refresh=blocking computes; then the default list serves the cache', async () => {
    const base = `/api/projects/${p}/insights`;
    // a query no other case runs, so no cached answer exists yet
    const source = { ...byBrowser, dateRange: { date_from: '-14d' } };
    const made = await s.api('POST', `${base}/`, { name: 'listed browsers', query: { kind: 'InsightVizNode', source } });
    expect([made.status, made.body.result, made.body.last_refresh, made.body.is_cached]).toEqual([201, null, null, false]);
    const find = (r: { body: { results: { id: number }[] } }) => r.body.results.find((i) => i.id === made.body.id) as any;

    const miss = find(await s.api('GET', `${base}/`));
    expect([miss.result, miss.last_refresh, miss.is_cached]).toEqual([null, null, false]);
    const blocking = find(await s.api('GET', `${base}/?refresh=blocking`));
    expect(blocking.result.map((r: { breakdown_value: string; count: number }) => [r.breakdown_value, r.count])).toEqual([
      ['Chrome', 2],
      ['Safari', 1],
    ]);
    expect([blocking.is_cached, typeof blocking.last_refresh]).toEqual([false, 'string']);
    const cached = find(await s.api('GET', `${base}/`));
    expect([cached.is_cached, cached.last_refresh, cached.result]).toEqual([true, blocking.last_refresh, blocking.result]);
    expect((await s.api('GET', `${base}/${made.body.id}/`)).body).toMatchObject({ is_cached: true, last_refresh: blocking.last_refresh });
  });
});

describe('insight times (test_insight.py test_created_updated_and_last_modified, reference §2.2)', () => {
  it('a bare POST creates; favorited moves updated_at only; filters, name and description move last_modified_at too', async () => {
    const base = `/api/projects/${p}/insights`;
    const tick = () => new Promise((r) => setTimeout(r, 5));
    const times = (b: Record<string, unknown>) => [b.created_at, b.updated_at, b.last_modified_at];
    // PostHog's test posts no body at all: an insight needs no field
    const made = await s.api('POST', `${base}/`);
    expect(made.status).toBe(201);
    const created = made.body.created_at;
    expect(times(made.body)).toEqual([created, created, created]);
    expect(made.body.last_modified_by).toEqual(made.body.created_by);

    await tick();
    const fav = (await s.api('PATCH', `${base}/${made.body.id}/`, { favorited: true })).body;
    expect(fav.updated_at > created).toBe(true);
    expect([fav.created_at, fav.last_modified_at]).toEqual([created, created]);

    // legacy filters on an insight that has no query yet are material (PostHog's test sends {"events": []}, which
    // Quarry refuses: a trends query needs a series)
    let last = fav.updated_at as string;
    for (const change of [{ filters: { events: [{ id: '$pageview' }] } }, { name: 'XYZ' }, { description: 'Lorem ipsum.' }]) {
      await tick();
      const r = await s.api('PATCH', `${base}/${made.body.id}/`, change);
      expect(r.status).toBe(200);
      expect([r.body.created_at, r.body.updated_at > last, r.body.last_modified_at]).toEqual([created, true, r.body.updated_at]);
      last = r.body.updated_at;
    }
    const got = (await s.api('GET', `${base}/${made.body.id}/`)).body;
    expect([got.name, got.description, got.filters, got.query?.source?.series?.[0]?.event]).toEqual(['XYZ', 'Lorem ipsum.', { events: [{ id: '$pageview' }] }, '$pageview']);
  });

  it('a PATCH or PUT with no body is an empty update (DRF: no field is required): 200, nothing changes', async () => {
    const base = `/api/projects/${p}/insights`;
    const made = await s.api('POST', `${base}/`, { name: 'untouched' });
    for (const method of ['PATCH', 'PUT']) {
      const r = await s.api(method, `${base}/${made.body.id}/`);
      expect([method, r.status, r.body.name, r.body.last_modified_at]).toEqual([method, 200, 'untouched', made.body.last_modified_at]);
    }
  });

  it('an endpoint create with no body names its first missing field, as with an empty object', async () => {
    const r = await s.api('POST', `/api/environments/${p}/endpoints/`);
    expect([r.status, r.body]).toEqual([400, { type: 'validation_error', code: 'required', detail: 'This field is required.', attr: 'name' }]);
  });
});

describe('insights list filter events (reference §2.3: a JSON array of event names)', () => {
  it('insights with a series on one of the events, legacy filters-only ones included; an unused event matches none', async () => {
    const base = `/api/projects/${p}/insights`;
    const viz = (source: Record<string, unknown>) => ({ kind: 'InsightVizNode', source });
    const mk = async (body: Record<string, unknown>) => (await s.api('POST', `${base}/`, body)).body.id as number;
    const trends = await mk({ name: 'ev trends', query: viz({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'ev_signup' }] }) });
    const funnel = await mk({
      name: 'ev funnel',
      query: viz({ kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: 'ev_visit' }, { kind: 'EventsNode', event: 'ev_signup' }] }),
    });
    const legacy = await mk({ name: 'ev legacy', filters: { insight: 'TRENDS', events: [{ id: 'ev_signup', type: 'events' }] } });
    const other = await mk({ name: 'ev other', query: viz({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'ev_visit' }] }) });
    const mine = [trends, funnel, legacy, other];
    const ids = async (events: string[]) => {
      const r = await s.api('GET', `${base}/?basic=true&events=${encodeURIComponent(JSON.stringify(events))}`);
      expect(r.status).toBe(200);
      return (r.body.results as { id: number }[]).map((i) => i.id).filter((id) => mine.includes(id)).sort((a, b) => a - b);
    };
    expect(await ids(['ev_signup'])).toEqual([trends, funnel, legacy]);
    expect(await ids(['ev_visit'])).toEqual([funnel, other]);
    expect(await ids(['ev_nothing'])).toEqual([]);
    expect(await ids([])).toEqual(mine);
  });
});

describe('a soft-deleted insight (test_insight.py, reference §2.1: deleted rows are visible only to PATCH deleted)', () => {
  it('PATCH of another field, PUT, retrieve and activity are 404; PATCH {deleted: false} restores it with the change', async () => {
    const base = `/api/projects/${p}/insights`;
    const made = await s.api('POST', `${base}/`, { name: 'to delete' });
    const id = made.body.id;
    expect((await s.api('PATCH', `${base}/${id}/`, { deleted: true })).body.deleted).toBe(true);
    for (const [method, path, body] of [
      ['PATCH', `${base}/${id}/`, { name: 'renamed' }],
      ['PUT', `${base}/${id}/`, { name: 'renamed' }],
      ['GET', `${base}/${id}/`, undefined],
      ['GET', `${base}/${made.body.short_id}/`, undefined],
      ['GET', `${base}/${id}/activity/`, undefined],
    ] as const) {
      const r = await s.api(method, path, body);
      expect([method, path, r.status, r.body]).toEqual([method, path, 404, { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null }]);
    }
    const back = await s.api('PATCH', `${base}/${id}/`, { deleted: false, name: 'restored' });
    expect([back.status, back.body.deleted, back.body.name]).toEqual([200, false, 'restored']);
    expect((await s.api('GET', `${base}/${id}/`)).body.name).toBe('restored');
  });
});

describe('next_allowed_client_refresh (reference §9.2; the insight runners’ _refresh_frequency)', () => {
  const trends = (dateRange: Record<string, unknown>, interval = 'day') => ({
    kind: 'TrendsQuery',
    series: [{ kind: 'EventsNode', event: '$pageview' }],
    interval,
    dateRange,
  });
  it.each<[string, Record<string, unknown>, number]>([
    ['HogQL: 1 minute', sql('select 1'), 1],
    ['trends -6d (7 days 00:00 to 23:59:59.999999): 3 minutes', trends({ date_from: '-6d' }), 3],
    ['trends -7d, the default (8 days): 15 minutes', trends({ date_from: '-7d' }), 15],
    ['trends over a Monday-to-Sunday week: 3 minutes', trends({ date_from: '2024-01-01', date_to: '2024-01-07' }), 3],
    ['trends over 8 absolute days: 15 minutes', trends({ date_from: '2024-01-01', date_to: '2024-01-08' }), 15],
    ['trends by hour over 30 days: 3 minutes', trends({ date_from: '-30d' }, 'hour'), 3],
    ['paths -6d: 3 minutes', { kind: 'PathsQuery', pathsFilter: {}, dateRange: { date_from: '-6d' } }, 3],
    ['paths -7d (8 days): 15 minutes', { kind: 'PathsQuery', pathsFilter: {}, dateRange: { date_from: '-7d' } }, 15],
    ['funnels over the last 30 days: 15 minutes', { kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '-30d' } }, 15],
  ])('%s', async (_what, query, minutes) => {
    const r = await s.api('POST', `/api/projects/${p}/query/`, { query, refresh: 'force_blocking' });
    expect(r.status).toBe(200);
    expect((Date.parse(r.body.next_allowed_client_refresh) - Date.parse(r.body.last_refresh)) / 60_000).toBe(minutes);
  });
});
