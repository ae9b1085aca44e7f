/**
 * `{filters}` over the sessions and groups tables (reference §8.3: PostHog's replace_filters, posthog/hogql/filters.py,
 * expands it in a SELECT over events, sessions, logs or groups): session / group property filters read the table's own
 * fields, the date range bounds `$start_timestamp` (sessions) or `created_at` (groups), other filter types are a 400.
 * `{filters}` over events is in hogql-posthog-compat.test.ts. Through the real ingest path and the real runner;
 * filters-tables.clickhouse.test.ts runs this file on ClickHouse.
 */
import { ev, openHarness, type Harness } from '../queries/funnels/testing';
import { productqlRunner } from '../queries/runners/productql-runner';
import { shutdownParser } from './index';

let h: Harness;
let pid: number;
beforeAll(async () => {
  h = await openHarness();
  const pv = (d: string, ts: string, session: string, url: string) => ev(d, '$pageview', ts, { $session_id: session, $current_url: url });
  const identify = (ts: string, type: string, key: string, set: Record<string, unknown>) => ev('admin', '$groupidentify', ts, { $group_type: type, $group_key: key, $group_set: set });
  pid = await h.load({
    events: [
      // s1: entered on /docs on Jan 1, 2 pageviews; s2: entered on / on Jan 2, a bounce; s3: entered on /docs on Jan 3
      pv('u1', '2020-01-01T10:00:00Z', 's1', 'https://a.com/docs'),
      pv('u1', '2020-01-01T10:05:00Z', 's1', 'https://a.com/pricing'),
      pv('u2', '2020-01-02T10:00:00Z', 's2', 'https://a.com/'),
      pv('u3', '2020-01-03T10:00:00Z', 's3', 'https://a.com/docs'),
      identify('2020-01-01T00:00:00Z', 'organization', 'org:1', { industry: 'tech' }),
      identify('2020-01-02T00:00:00Z', 'organization', 'org:2', { industry: 'retail' }),
      identify('2020-01-03T00:00:00Z', 'company', 'co:1', { industry: 'tech' }),
    ],
  });
});
afterAll(async () => {
  await h.close();
  await shutdownParser();
});

const hogql = (query: string, filters?: unknown, project: Record<string, unknown> = {}) =>
  h.run(productqlRunner, { kind: 'HogQLQuery', query, ...(filters ? { filters } : {}) }, pid, project);
const rows = async (query: string, filters?: unknown, project?: Record<string, unknown>) => (await hogql(query, filters, project)).results;
const session = (key: string, operator: string, value?: unknown) => ({ type: 'session', key, operator, ...(value !== undefined ? { value } : {}) });

describe('{filters} over the sessions table', () => {
  const q = 'select session_id from sessions where {filters} order by session_id';

  it('session property filters read the sessions fields', async () => {
    expect(await rows(q, { properties: [session('$entry_pathname', 'exact', '/docs')] })).toEqual([['s1'], ['s3']]);
    expect(await rows(q, { properties: [session('$pageview_count', 'gt', 1)] })).toEqual([['s1']]);
    expect(await rows(q, { properties: [session('$is_bounce', 'exact', 'true')] })).toEqual([['s2'], ['s3']]);
    // v2's name of the exit URL, and an aliased table
    expect(await rows('select s.session_id from sessions s where {filters}', { properties: [session('$end_current_url', 'exact', 'https://a.com/pricing')] })).toEqual([['s1']]);
  });

  it('the date range bounds $start_timestamp', async () => {
    expect(await rows(q, { dateRange: { date_from: '2020-01-02', date_to: '2020-01-03' } })).toEqual([['s2']]);
    expect(await rows(q, { dateRange: { date_from: 'all' }, properties: { type: 'AND', values: [{ type: 'OR', values: [session('$entry_pathname', 'exact', '/docs')] }] } })).toEqual([['s1'], ['s3']]);
  });

  it('event and person filters are a 400, as are test-account filters of those types', async () => {
    await expect(hogql(q, { properties: [{ type: 'event', key: '$browser', operator: 'exact', value: 'Chrome' }] })).rejects.toMatchObject({
      status: 400,
      attr: 'filters.properties',
      message: expect.stringContaining('event property filters do not apply to {filters} over the sessions table'),
    });
    const project = { test_account_filters: [{ type: 'person', key: 'email', operator: 'not_icontains', value: '@test.com' }] };
    await expect(hogql(q, { filterTestAccounts: true }, project)).rejects.toMatchObject({ status: 400, attr: 'filters.filterTestAccounts' });
    expect(await rows(q, { filterTestAccounts: false }, project)).toEqual([['s1'], ['s2'], ['s3']]);
  });
});

describe('{filters} over the groups table', () => {
  const q = 'select key from groups where {filters} order by key';

  it('group property filters read the groups properties', async () => {
    expect(await rows(q, { properties: [{ type: 'group', group_type_index: 0, key: 'industry', operator: 'exact', value: 'tech' }] })).toEqual([['co:1'], ['org:1']]);
    expect(await rows('select g.key from groups g where g.index = 0 and {filters}', { properties: [{ type: 'group', group_type_index: 0, key: 'industry', operator: 'is_not', value: 'tech' }] })).toEqual([['org:2']]);
  });

  it('the date range bounds created_at', async () => {
    expect(await rows(q, { dateRange: { date_from: '2020-01-02', date_to: '2020-01-03' } })).toEqual([['org:2']]);
  });

  it('other filter types are a 400', async () => {
    await expect(hogql(q, { properties: [session('$entry_pathname', 'exact', '/')] })).rejects.toMatchObject({ status: 400, attr: 'filters.properties' });
  });
});

describe('{filters} picks the first of events, sessions and groups in FROM/JOIN order', () => {
  it('sessions joined to events: filters go to events', async () => {
    const r = await rows(
      "select count() from events e join sessions s on s.session_id = e.$session_id where {filters}",
      { properties: [{ type: 'event', key: '$current_url', operator: 'exact', value: 'https://a.com/docs' }] },
    );
    expect(r).toEqual([[2]]);
  });

  it('persons alone is still a 400', async () => {
    await expect(hogql('select count() from persons where {filters}', { dateRange: { date_from: '2020-01-01' } })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('events, sessions or groups'),
    });
  });
});
