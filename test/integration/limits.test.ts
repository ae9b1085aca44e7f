/**
 * Issue #11 limits, end to end: each is a 400 in the standard error body with its own code and the offending field
 * as `attr`, answered before the engine runs (src/limits.ts holds the numbers; the README's Limits table lists them).
 */
import {
  MAX_BREAKDOWN_LIMIT,
  MAX_BREAKDOWNS,
  MAX_FUNNEL_STEPS,
  MAX_REGEX_LENGTH,
  MAX_SERIES,
} from '../../src/limits';
import { gql, startServer, type TestServer } from '../helpers/server';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
  await srv.server.services.ingestor.import(1, {
    events: [
      { event: '$pageview', distinct_id: 'u1', timestamp: '2024-01-01T00:00:00Z', properties: { $current_url: 'https://x.test/a/' } },
      { event: '$pageview', distinct_id: 'u1', timestamp: '2024-01-01T00:01:00Z', properties: { $current_url: 'https://x.test/b/' } },
    ],
  });
}, 60_000);
afterAll(async () => {
  await srv?.close();
});

const ev = (event = '$pageview') => ({ kind: 'EventsNode', event });
const many = (n: number) => Array.from({ length: n }, (_, i) => ev(`e${i}`));
const dateRange = { date_from: '2024-01-01', date_to: '2024-01-03' };
const query = (q: unknown) => srv.api('POST', '/api/projects/1/query/', { query: q, refresh: 'force_blocking' });

interface Case {
  name: string;
  node: unknown;
  code: string;
  attr: string | null;
  detail?: RegExp;
}

const regexFilter = (value: unknown, operator = 'regex') => [{ type: 'event', key: '$current_url', operator, value }];

const CASES: Case[] = [
  { name: 'trends series', node: { kind: 'TrendsQuery', series: many(MAX_SERIES + 1) }, code: 'too_many_series', attr: 'query__series', detail: /At most 20 series are allowed, got 21\./ },
  { name: 'stickiness series', node: { kind: 'StickinessQuery', series: many(MAX_SERIES + 1) }, code: 'too_many_series', attr: 'query__series' },
  { name: 'lifecycle series', node: { kind: 'LifecycleQuery', series: many(MAX_SERIES + 1) }, code: 'too_many_series', attr: 'query__series' },
  { name: 'funnel steps', node: { kind: 'FunnelsQuery', series: many(MAX_FUNNEL_STEPS + 1) }, code: 'too_many_funnel_steps', attr: 'query__series' },
  {
    name: 'funnel exclusions',
    node: {
      kind: 'FunnelsQuery',
      series: [ev(), ev('b')],
      funnelsFilter: { exclusions: Array.from({ length: MAX_FUNNEL_STEPS + 1 }, () => ({ kind: 'EventsNode', event: 'x', funnelFromStep: 0, funnelToStep: 1 })) },
    },
    code: 'too_many_funnel_exclusions',
    attr: 'query__funnelsFilter__exclusions',
  },
  {
    name: 'breakdowns',
    node: { kind: 'TrendsQuery', series: [ev()], breakdownFilter: { breakdowns: Array.from({ length: MAX_BREAKDOWNS + 1 }, (_, i) => ({ property: `p${i}` })) } },
    code: 'too_many_breakdowns',
    attr: 'query__breakdownFilter__breakdowns',
  },
  {
    name: 'breakdown_limit above the maximum',
    node: { kind: 'TrendsQuery', series: [ev()], breakdownFilter: { breakdown: '$browser', breakdown_limit: MAX_BREAKDOWN_LIMIT + 1 } },
    code: 'breakdown_limit_out_of_range',
    attr: 'query__breakdownFilter__breakdown_limit',
  },
  {
    name: 'breakdown_limit 0',
    node: { kind: 'FunnelsQuery', series: [ev(), ev()], breakdownFilter: { breakdown: '$browser', breakdown_limit: 0 } },
    code: 'breakdown_limit_out_of_range',
    attr: 'query__breakdownFilter__breakdown_limit',
  },
  {
    name: 'regex filter RE2 refuses (lookahead)',
    node: { kind: 'TrendsQuery', series: [ev()], properties: regexFilter('^(?=x)') },
    code: 'invalid_regex',
    attr: 'query__properties__0__value',
    detail: /Invalid regular expression: invalid or unsupported Perl syntax/,
  },
  {
    name: 'not_regex list value with a backreference',
    node: { kind: 'TrendsQuery', series: [ev()], properties: regexFilter(['ok', '(a)\\1'], 'not_regex') },
    code: 'invalid_regex',
    attr: 'query__properties__0__value__1',
  },
  {
    name: 'series filter with a too long regex',
    node: { kind: 'StickinessQuery', series: [{ ...ev(), properties: regexFilter('a'.repeat(MAX_REGEX_LENGTH + 1)) }] },
    code: 'regex_too_long',
    attr: 'query__series__0__properties__0__value',
  },
  {
    name: 'nested repetition over RE2 budget in a property group',
    node: { kind: 'RetentionQuery', retentionFilter: {}, properties: { type: 'AND', values: [{ type: 'OR', values: regexFilter('(a{100}){100}') }] } },
    code: 'invalid_regex',
    attr: 'query__properties__values__0__values__0__value',
  },
  {
    name: 'paths cleaning rule regex',
    node: { kind: 'PathsQuery', pathsFilter: { localPathCleaningFilters: [{ regex: '[z-a]', alias: 'x' }] } },
    code: 'invalid_regex',
    attr: 'query__pathsFilter__localPathCleaningFilters__0__regex',
  },
];

describe('limits answer 400 with code and attr', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_n, c) => {
    const r = await query(c.node);
    expect({ status: r.status, type: r.body?.type, code: r.body?.code, attr: r.body?.attr }).toEqual({ status: 400, type: 'validation_error', code: c.code, attr: c.attr });
    if (c.detail) expect(r.body.detail).toMatch(c.detail);
  });

  it.each([
    ['trends', { kind: 'TrendsQuery', series: many(MAX_SERIES), dateRange }],
    ['funnel', { kind: 'FunnelsQuery', series: many(MAX_FUNNEL_STEPS), dateRange }],
    ['breakdowns + breakdown_limit', { kind: 'TrendsQuery', series: [ev()], dateRange, breakdownFilter: { breakdowns: [{ property: 'a' }, { property: 'b' }, { property: 'c' }], breakdown_limit: MAX_BREAKDOWN_LIMIT } }],
    ['a valid RE2 regex filter', { kind: 'TrendsQuery', series: [ev()], dateRange, properties: regexFilter('^https://x\\.test/(?P<p>[a-z]+)/$') }],
  ])('at the limit: %s runs', async (_n, node) => {
    const r = await query(node);
    expect([r.status, r.body?.detail]).toEqual([200, undefined]);
  });
});

describe("a project's test-account filters: a regex RE2 refuses is refused when saved", () => {
  it('PATCH with a lookahead regex → 400 naming the filter; the stored filters are unchanged', async () => {
    const before = (await srv.api('GET', '/api/projects/1/')).body.test_account_filters;
    const r = await srv.api('PATCH', '/api/projects/1/', { test_account_filters: [{ key: 'email', type: 'person', operator: 'is_set' }, ...regexFilter('^(?=x)', 'not_regex')] });
    expect({ status: r.status, code: r.body?.code, attr: r.body?.attr }).toEqual({ status: 400, code: 'invalid_regex', attr: 'test_account_filters__1__value' });
    expect((await srv.api('GET', '/api/projects/1/')).body.test_account_filters).toEqual(before);
  });

  it('create with a too long regex → 400; a valid one is stored', async () => {
    const bad = await srv.api('POST', '/api/projects/', { name: 'taf', test_account_filters: regexFilter('a'.repeat(MAX_REGEX_LENGTH + 1)) });
    expect([bad.status, bad.body?.code]).toEqual([400, 'regex_too_long']);
    const good = await srv.api('POST', '/api/projects/', { name: 'taf', test_account_filters: regexFilter('@example\\.com$', 'not_regex') });
    expect([good.status, good.body?.test_account_filters]).toEqual([201, regexFilter('@example\\.com$', 'not_regex')]);
  });
});

describe('ProductQL regex functions: 400 before execution', () => {
  const sql = (q: string, variables?: Record<string, unknown>) => query({ kind: 'ProductQLQuery', query: q, ...(variables ? { variables } : {}) });

  it.each([
    ['match()', "SELECT count() FROM events WHERE match(event, '(?<=a)b')", 'invalid_regex'],
    ['=~', "SELECT count() FROM events WHERE event =~ 'a{1001}'", 'invalid_regex'],
    ['!~*', "SELECT count() FROM events WHERE event !~* '[[:nope:]]'", 'invalid_regex'],
    ['extract()', "SELECT extract(event, '(a') FROM events", 'invalid_regex'],
    ['replaceRegexpAll()', "SELECT replaceRegexpAll(event, '\\\\Z', '') FROM events", 'invalid_regex'],
    ['too long', `SELECT count() FROM events WHERE match(event, '${'a'.repeat(MAX_REGEX_LENGTH + 1)}')`, 'regex_too_long'],
  ])('%s', async (_n, q, code) => {
    const r = await sql(q);
    expect({ status: r.status, code: r.body?.code }).toEqual({ status: 400, code });
    expect(r.body.detail).not.toMatch(/Invalid Input Error|regexp_/); // not the engine's message
    expect(r.body.extra).toEqual(expect.objectContaining({ start: expect.any(Number), end: expect.any(Number) }));
  });

  it('a pattern passed as a variable is checked too', async () => {
    const r = await sql('SELECT count() FROM events WHERE match(event, {variables.re})', { re: '(?!x)' });
    expect({ status: r.status, code: r.body?.code }).toEqual({ status: 400, code: 'invalid_regex' });
  });

  it('a valid pattern runs', async () => {
    const r = await sql("SELECT count() FROM events WHERE match(event, '^\\\\$page(?i:VIEW)$')");
    expect([r.status, r.body.results]).toEqual([200, [[2]]]);
  });
});

describe('answer size', () => {
  it('a ProductQL answer over 64 MB is a 400 result_too_large, and the server keeps answering', async () => {
    const big = 'q'.repeat(9 * 1024 * 1024);
    const s = '{variables.s}';
    const r = await query({
      kind: 'ProductQLQuery',
      query: `SELECT concat(${[s, s, s, s, s, s, s, s].join(', ')}) FROM events`,
      variables: { s: { code_name: 's', value: big } },
    });
    expect({ status: r.status, code: r.body?.code }).toEqual({ status: 400, code: 'result_too_large' });
    const ok = await query({ kind: 'ProductQLQuery', query: 'SELECT count() FROM events' });
    expect([ok.status, ok.body.results]).toEqual([200, [[2]]]);
  });
});

describe('limits that already existed, pinned here', () => {
  it('ProductQL rows: LIMIT is clamped to 50,000', async () => {
    const r = await query({ kind: 'ProductQLQuery', query: 'SELECT event FROM events LIMIT 1000000' });
    expect(r.status).toBe(200);
    expect(r.body.hogql).toMatch(/LIMIT 50000/);
  });

  it('GraphQL typed inputs go through the same limits', async () => {
    const series = Array.from({ length: MAX_SERIES + 1 }, (_, i) => `{kind: "EventsNode", event: "e${i}"}`).join(', ');
    const r = await gql(srv, `{ trends(projectId: 1, query: {series: [${series}]}) { results { label } } }`);
    expect(r.body.errors?.[0]?.extensions).toEqual(expect.objectContaining({ code: 'too_many_series' }));
  });

  it('capture: an event name over 200 characters is cut to 200 (PostHog process-event.test.ts "long event name substr")', async () => {
    const token = (await srv.server.services.projects.find(1)).api_token;
    const r = await fetch(`${srv.url}/e/`, { method: 'POST', body: JSON.stringify({ api_key: token, event: 'x'.repeat(1001), distinct_id: 'long-name' }) });
    expect(r.status).toBe(200);
    await srv.server.services.ingestor.flush();
    const q = await query({ kind: 'HogQLQuery', query: "select length(event) from events where distinct_id = 'long-name'" });
    expect(q.body.results).toEqual([[200]]);
  });
});
