/**
 * Action matching and the action count endpoint as PostHog's tests pin them: posthog/api/test/test_action.py
 * (`test_get_event_count`, `test_update_action_remove_all_steps`, `test_create_action_event_with_space`),
 * posthog/models/action/test/test_action.py / ee/clickhouse/models/test/test_action.py (`_get_events_for_action`:
 * `test_filter_event_exact_url`, `…_with_query_params`, `test_filter_event_contains_url`, `test_filter_event_regex_url`,
 * `test_double`, `test_empty_selector_same_as_null`, text/href matching) and posthog/hogql/test/test_property.py
 * `test_action_to_expr` (steps ORed, an event-less step matching everything, `like '%url%'` with the url unescaped).
 * Every action is saved over REST and counted by `GET …/actions/<id>/count/` on the real server, events imported
 * through the real ingest path. actions-posthog-compat.clickhouse.test.ts runs this file on ClickHouse.
 *
 * Project P (distinct ids `whatever` email test@posthog.com, `other` email other@x.io), twelve events:
 *  1 $autocapture https://posthog.com/feedback/123        div "some_other_text"
 *  2 $autocapture https://posthog.com/feedback/1234       div "some_other_text"
 *  3 $autocapture https://posthog.com/feedback/123?vip=1
 *  4 $autocapture https://test.com/feedback
 *  5 $autocapture https://test.com/123/feedback/
 *  6 $pageview    https://posthog.com/Feedback/123
 *  7 insight viewed {filters_count: 2}   8 insight viewed {insight: RETENTION}   9 insight viewed {insight: TRENDS, filters_count: 1}
 * 10 $autocapture https://posthog.com/signup              a[href=/a-url] "Sign UP" < button.btn < div
 * 11 custom event by `other`   12 custom event by `whatever`
 * Project Q: a custom event and event 1 again (never counted in P).
 */
import { quarryOnTestEngine } from '../../test/helpers/clickhouse-quarry';
import type { TestServer } from '../../test/helpers/server';
import { printHogQLExpr } from '../productql';
import type { ActionStep } from '../store/entities/action';
import { actionToExpr } from './matching';
import { modelActionStep } from '../queries/insights/testing';

const server = quarryOnTestEngine('quarry_actions_compat');

let s: TestServer;
let p: number;
let q: number;

const at = (n: number) => `2024-03-0${1 + (n % 5)}T1${n % 10}:00:00Z`;
const ev = (n: number, event: string, properties: Record<string, unknown> = {}, distinct_id = 'whatever') => ({ event, distinct_id, timestamp: at(n), properties });
const url = (u: string, extra: Record<string, unknown> = {}) => ({ $current_url: u, ...extra });
const div = [{ tag_name: 'div', $el_text: 'some_other_text', nth_child: 1, nth_of_type: 1 }];

async function action(steps: unknown[], project = p): Promise<number> {
  const r = await s.api('POST', `/api/projects/${project}/actions/`, { name: `a${Math.random()}`, steps });
  expect([r.status, r.body?.detail]).toEqual([201, undefined]);
  return r.body.id;
}
async function count(id: number, project = p): Promise<number> {
  const r = await s.api('GET', `/api/projects/${project}/actions/${id}/count/`);
  expect([r.status, r.body?.detail]).toEqual([200, undefined]);
  return r.body.count;
}
const countOf = async (steps: unknown[]) => count(await action(steps));

beforeAll(async () => {
  s = server();
  p = (await s.api('POST', '/api/projects/', { name: 'actions compat' })).body.id;
  q = (await s.api('POST', '/api/projects/', { name: 'actions compat other' })).body.id;
  const ing = s.server.services.ingestor;
  await ing.import(p, {
    persons: [
      { distinct_ids: ['whatever'], properties: { email: 'test@posthog.com' } },
      { distinct_ids: ['other'], properties: { email: 'other@x.io' } },
    ],
    events: [
      ev(1, '$autocapture', url('https://posthog.com/feedback/123', { $elements: div })),
      ev(2, '$autocapture', url('https://posthog.com/feedback/1234', { $elements: div })),
      ev(3, '$autocapture', url('https://posthog.com/feedback/123?vip=1')),
      ev(4, '$autocapture', url('https://test.com/feedback')),
      ev(5, '$autocapture', url('https://test.com/123/feedback/')),
      ev(6, '$pageview', url('https://posthog.com/Feedback/123')),
      ev(7, 'insight viewed', { filters_count: 2 }),
      ev(8, 'insight viewed', { insight: 'RETENTION' }),
      ev(9, 'insight viewed', { insight: 'TRENDS', filters_count: 1 }),
      ev(
        10,
        '$autocapture',
        url('https://posthog.com/signup', {
          $elements: [
            { tag_name: 'a', attr__href: '/a-url', $el_text: 'Sign UP', nth_child: 1, nth_of_type: 1 },
            { tag_name: 'button', attr__class: 'btn', nth_child: 1, nth_of_type: 1 },
            { tag_name: 'div', nth_child: 1, nth_of_type: 1 },
          ],
        }),
      ),
      ev(11, 'custom event', {}, 'other'),
      ev(12, 'custom event'),
    ],
  });
  await ing.import(q, {
    persons: [{ distinct_ids: ['whatever'], properties: { email: 'test@posthog.com' } }],
    events: [ev(1, 'custom event'), ev(2, '$autocapture', url('https://posthog.com/feedback/123', { $elements: div }))],
  });
  await ing.flush();
});

describe('test_action.py: the count action', () => {
  it('test_get_event_count: the events of the project the action matches, none of another project', async () => {
    const id = await action([{ event: 'custom event' }]);
    expect(await s.api('GET', `/api/projects/${p}/actions/${id}/count/`).then((r) => [r.status, r.body])).toEqual([200, { count: 2 }]);
    // the same definition in the other project counts that project's one event
    expect(await count(await action([{ event: 'custom event' }], q), q)).toBe(1);
    // served without the trailing slash and under /api/environments/ too
    expect((await s.api('GET', `/api/environments/${p}/actions/${id}/count`)).body).toEqual({ count: 2 });
  });

  it('an action without steps counts nothing (PostHog: "If no steps, it shouldn\'t match this action")', async () => {
    expect(await countOf([])).toBe(0);
  });

  it("another project's action, an unknown or malformed id is a 404", async () => {
    const theirs = await action([{ event: 'custom event' }], q);
    for (const path of [`/api/projects/${p}/actions/${theirs}/count/`, `/api/projects/${p}/actions/99999999/count/`, `/api/projects/${p}/actions/abc/count/`]) {
      const r = await s.api('GET', path);
      expect([path, r.status]).toEqual([path, 404]);
    }
  });

  it('needs action:read (a query:read key is refused)', async () => {
    const id = await action([{ event: 'custom event' }]);
    const key = async (scopes: string[]) => (await s.api('POST', '/api/personal_api_keys/', { label: scopes.join(','), scopes })).body.value as string;
    expect((await s.api('GET', `/api/projects/${p}/actions/${id}/count/`, undefined, await key(['action:read']))).body).toEqual({ count: 2 });
    const denied = await s.api('GET', `/api/projects/${p}/actions/${id}/count/`, undefined, await key(['query:read']));
    expect([denied.status, denied.body.detail]).toEqual([403, "API key missing required scope 'action:read'"]);
  });

  it('test_update_action_remove_all_steps: PATCH steps [] leaves none, and the action then counts nothing', async () => {
    const id = await action([{ event: 'custom event' }]);
    const r = await s.api('PATCH', `/api/projects/${p}/actions/${id}/`, { steps: [] });
    expect([r.status, r.body.steps]).toEqual([200, []]);
    expect(await count(id)).toBe(0);
  });

  it('test_create_action_event_with_space: the event name is kept as sent, trailing space included', async () => {
    // in project Q, whose events no other case counts
    await s.server.services.ingestor.import(q, { events: [{ event: 'test_event ', distinct_id: 'whatever', timestamp: '2024-03-09T10:00:00Z', properties: {} }] });
    await s.server.services.ingestor.flush();
    const r = await s.api('POST', `/api/projects/${q}/actions/`, { name: 'test event', steps: [{ event: 'test_event ' }] });
    expect([r.status, r.body.steps[0].event]).toEqual([201, 'test_event ']);
    expect(await count(r.body.id, q)).toBe(1);
    expect(await count(await action([{ event: 'test_event' }], q), q)).toBe(0);
  });
});

describe('URL matching (test_action.py _get_events_for_action)', () => {
  it.each<[string, Record<string, unknown>, number]>([
    ['test_filter_event_exact_url: exact is the whole url', { event: '$autocapture', url: 'https://posthog.com/feedback/123', url_matching: 'exact' }, 1],
    ['test_filter_event_exact_url_with_query_params: "?" is literal', { event: '$autocapture', url: 'https://posthog.com/feedback/123?vip=1', url_matching: 'exact' }, 1],
    ['test_filter_event_contains_url: contains (the default), case-sensitive, any event when the step has none', { url: 'posthog.com/feedback/123' }, 3],
    ['contains given explicitly', { event: '$autocapture', url: 'posthog.com/feedback/123', url_matching: 'contains' }, 3],
    ['test_filter_event_regex_url: an RE2 search anywhere in the url', { event: '$autocapture', url: '/123($|/)', url_matching: 'regex' }, 2],
    ['regex is case-sensitive', { url: '/feedback/123$', url_matching: 'regex' }, 1],
    ["contains is `like '%url%'` with the url unescaped: `_` matches one character", { url: 'feedback/12_' }, 3],
    ['… and `%` any run of characters', { url: 'posthog.com%123' }, 4],
  ])('%s', async (_n, step, n) => {
    expect(await countOf([step])).toBe(n);
  });
});

describe('steps (test_property.py test_action_to_expr)', () => {
  it('test_double: each step keeps its own property filters (a value given as text compares as a number for gt)', async () => {
    const steps = [
      { event: 'insight viewed', properties: [{ key: 'insight', type: 'event', value: ['RETENTION'], operator: 'exact' }] },
      { event: 'insight viewed', properties: [{ key: 'filters_count', type: 'event', value: '1', operator: 'gt' }] },
    ];
    expect(await countOf(steps)).toBe(2);
    expect(await countOf([steps[1]])).toBe(1);
  });

  it('an event-less step matches every event, so an OR with it matches all (`event = $pageview OR true`)', async () => {
    expect(await countOf([{ event: '$pageview' }, { event: null }])).toBe(12);
    expect(await countOf([{ event: '$pageview' }])).toBe(1);
    expect(await countOf([{}])).toBe(12);
  });

  it('person property filters in a step read the event’s person', async () => {
    expect(await countOf([{ event: 'custom event', properties: [{ key: 'email', value: 'other@x.io', type: 'person' }] }])).toBe(1);
    expect(await countOf([{ event: 'custom event', properties: [{ key: 'email', value: 'posthog.com', operator: 'icontains', type: 'person' }] }])).toBe(1);
  });

  it('a hogql property filter in a step', async () => {
    expect(await countOf([{ properties: [{ type: 'hogql', key: "event = 'insight viewed' and properties.insight = 'TRENDS'" }] }])).toBe(1);
  });

  it('a step’s url and properties are ANDed', async () => {
    expect(await countOf([{ url: 'posthog.com', properties: [{ key: '$current_url', value: 'signup', operator: 'icontains', type: 'event' }] }])).toBe(1);
  });
});

describe('autocapture element conditions of $autocapture steps', () => {
  it.each<[string, Record<string, unknown>, number]>([
    ['test_empty_selector_same_as_null: an empty selector adds no condition', { event: '$autocapture', selector: '' }, 6],
    ['tag_name, href and text exact together', { event: '$autocapture', tag_name: 'a', href: '/a-url', text: 'Sign UP' }, 1],
    ['text exact is case-sensitive', { event: '$autocapture', text: 'sign up' }, 0],
    ['text contains is case-insensitive', { event: '$autocapture', text: 'sign up', text_matching: 'contains' }, 1],
    // PostHog's element_chain_key_filter: the pattern sits inside `(text="…")`, so it matches a whole text value
    ['text regex', { event: '$autocapture', text: 'some_.*text', text_matching: 'regex' }, 2],
    ['href contains', { event: '$autocapture', href: '/a-', href_matching: 'contains' }, 1],
    ['href regex', { event: '$autocapture', href: '/a-.*', href_matching: 'regex' }, 1],
    ['a selector with a direct-descendant step', { event: '$autocapture', selector: 'div > button' }, 1],
    ['a selector with a class', { event: '$autocapture', selector: 'button.btn' }, 1],
    ['a tag_name no element has', { event: '$autocapture', tag_name: 'span' }, 0],
    ['element and url conditions both hold', { event: '$autocapture', tag_name: 'div', url: '/feedback/1234' }, 1],
  ])('%s', async (_n, step, n) => {
    expect(await countOf([step])).toBe(n);
  });
});

describe('element fields of other steps', () => {
  it.each<[string, Record<string, unknown>, number]>([
    ['a $pageview step ignores its selector (PostHog reads element fields of $autocapture steps only)', { event: '$pageview', selector: 'div > button' }, 1],
    ['… and its text, href and tag_name', { event: '$pageview', text: 'nope', href: '/nope', tag_name: 'span' }, 1],
    ['an event-less step with element fields matches every event', { text: 'nope', text_matching: 'contains' }, 12],
    ['a custom event step ignores them too', { event: 'custom event', text: 'a', href: 'x' }, 2],
  ])('%s', async (_n, step, n) => {
    expect(await countOf([step])).toBe(n);
  });
});

describe('test_property.py test_action_to_expr: the expression, printed as ProductQL', () => {
  it.each<[string, Partial<ActionStep>[], string]>([
    ['contains: like with % around the url', [{ event: '$pageview', url: 'https://example.com' }], "(event = '$pageview') AND (properties.$current_url LIKE '%https://example.com%')"],
    [
      'steps ORed: regex =~ and exact =',
      [
        { event: '$pageview', url: 'https://example2.com', url_matching: 'regex' },
        { event: 'custom', url: 'https://example3.com', url_matching: 'exact' },
      ],
      "(((event = '$pageview') AND (properties.$current_url =~ 'https://example2.com')) OR ((event = 'custom') AND (properties.$current_url = 'https://example3.com')))",
    ],
    ['an event-less step is true', [{ event: '$pageview' }, { event: null }], "((event = '$pageview') OR true)"],
    ['no steps: true', [], 'true'],
    ['element fields of a $pageview step add nothing', [{ event: '$pageview', selector: 'a.nav-link.active', tag_name: 'a', text: 'x', href: 'y' }], "event = '$pageview'"],
    [
      'action1: an $autocapture step’s selector (classes sorted) then tag_name, ORed with a contains url step',
      [
        { event: '$autocapture', selector: 'a.nav-link.active', tag_name: 'a' },
        { event: '$pageview', url: 'https://example.com', url_matching: 'contains' },
      ],
      "(((event = '$autocapture') AND (elements_chain =~ '(^|;)a.*?\\\\.active\\\\..*?nav\\\\-link([-_a-zA-Z0-9\\\\.:\"= \\\\[\\\\]\\\\(\\\\),]*?)?($|;|:([^;^\\\\s]*(;|$|\\\\s)))') AND (elements_chain =~ '(^|;)a(\\\\.|$|;|:)')) OR ((event = '$pageview') AND (properties.$current_url LIKE '%https://example.com%')))",
    ],
    ['action3: a step’s event property, ORed with an event-less step', [{ event: '$pageview', properties: [{ key: '$browser', type: 'event', value: 'Chrome', operator: 'exact' }] }, { event: null }], "(((event = '$pageview') AND (properties.$browser = 'Chrome')) OR true)"],
    ['tag_name on $autocapture: one chain regex', [{ event: '$autocapture', tag_name: 'a' }], "(event = '$autocapture') AND (elements_chain =~ '(^|;)a(\\\\.|$|;|:)')"],
  ])('%s', (_n, steps, printed) => {
    expect(printHogQLExpr(actionToExpr({ id: 1, name: 'a', steps: steps.map(modelActionStep) }))).toBe(printed);
  });
});

describe('test_action.py test_hogql_filter / test_hogql_filter_no_event: a hogql step filter in the count, the events list and trends', () => {
  let h: number;
  beforeAll(async () => {
    h = (await s.api('POST', '/api/projects/', { name: 'actions compat hogql' })).body.id;
    await s.server.services.ingestor.import(h, {
      events: [
        { event: 'custom event', distinct_id: 'test', timestamp: '2021-12-04T19:20:00Z', properties: {} },
        { event: 'another event', distinct_id: 'test', timestamp: '2021-12-04T19:20:00Z', properties: {} },
        { event: 'blue event', distinct_id: 'test', timestamp: '2021-12-04T19:21:00Z', properties: {} },
        { event: 'green event', distinct_id: 'test', timestamp: '2021-12-04T19:22:00Z', properties: {} },
      ],
    });
    await s.server.services.ingestor.flush();
  });
  const threeWays = async (id: number) => {
    const events = await s.api('GET', `/api/projects/${h}/events/?action_id=${id}`);
    const trend = await s.api('GET', `/api/projects/${h}/insights/trend/?actions=${encodeURIComponent(JSON.stringify([{ type: 'actions', id }]))}&date_from=2021-12-01&date_to=2021-12-10`);
    expect([events.status, trend.status, trend.body?.detail]).toEqual([200, 200, undefined]);
    return [await count(id, h), events.body.results.length, trend.body.result[0].count];
  };

  it("test_hogql_filter: `'a%sd' != 'sdf'` (a % in a string constant stays a character) on a custom event step", async () => {
    const id = await action([{ event: 'custom event', properties: [{ key: "'a%sd' != 'sdf'", type: 'hogql' }] }], h);
    expect(await threeWays(id)).toEqual([1, 1, 1]);
  });

  it("test_hogql_filter_no_event: an event-less step with `event like 'blue %'`", async () => {
    const id = await action([{ event: null, properties: [{ key: "event like 'blue %'", type: 'hogql' }] }], h);
    expect(await threeWays(id)).toEqual([1, 1, 1]);
  });
});

describe('selectors of $autocapture steps (test_action.py _get_events_for_action: test_with_class, test_attributes, nth-child, #id)', () => {
  let e: number;
  const el = (tag_name: string, extra: Record<string, unknown> = {}) => ({ tag_name, ...extra });
  beforeAll(async () => {
    e = (await s.api('POST', '/api/projects/', { name: 'actions compat selectors' })).body.id;
    const click = (n: number, elements: unknown[]) => ({ event: '$autocapture', distinct_id: 'whatever', timestamp: `2024-04-01T10:0${n}:00Z`, properties: { $elements: elements } });
    await s.server.services.ingestor.import(e, {
      events: [
        // test_with_class: a span inside a.active.nav-link, and a lone span
        click(0, [el('span'), el('a', { attr__class: ['active', 'nav-link'] })]),
        click(1, [el('span')]),
        // nth-child: the second and the first button of a div
        click(2, [el('button', { nth_child: 2, nth_of_type: 2 }), el('div', { nth_child: 1, nth_of_type: 1 })]),
        click(3, [el('button', { nth_child: 1, nth_of_type: 1 }), el('div', { nth_child: 1, nth_of_type: 1 })]),
        // an id, and data attributes
        click(4, [el('div', { attr__id: 'someID' })]),
        click(5, [el('button', { 'attr__data-id': '123' })]),
        click(6, [el('button', { 'attr__data-id': '1234' })]),
        // a link two levels under a section (for a descendant and a `> * >` selector)
        click(7, [el('a', { attr__href: '/x' }), el('li'), el('section')]),
        // test_with_class_with_escaped_symbols: a class with a backslash, a colon and an @
        click(8, [el('span'), el('a', { attr__class: ['na\\v-link:b@ld'] })]),
        // a text with quotes (the chain stores them escaped: text="Say \"Hi\"")
        click(9, [el('button', { $el_text: 'Say "Hi"' })]),
        // test_with_class_with_escaped_slashes: a class with three backslashes in a row
        { ...click(0, [el('span'), el('a', { attr__class: ['na\\\\\\v-link:b@d'] })]), timestamp: '2024-04-01T10:10:00Z' },
      ],
    });
    await s.server.services.ingestor.flush();
  });

  it.each<[string, Record<string, unknown>, number]>([
    ['test_with_class: classes in any order, with tag_name', { selector: 'a.nav-link.active', tag_name: 'a' }, 1],
    ['a class alone', { selector: '.nav-link' }, 1],
    ['a class no element has', { selector: 'a.nav-link.inactive' }, 0],
    ['nth-child with a direct-descendant step', { selector: 'div > button:nth-child(2)' }, 1],
    // build_selector_regex's `.*?` before the attributes crosses elements: the first button's div parent is nth-child 1
    ['nth-child(1): PostHog’s pattern also matches a button whose parent is the first child', { selector: 'button:nth-child(1)' }, 2],
    ['a descendant selector', { selector: 'div button' }, 2],
    ['#id', { selector: '#someID' }, 1],
    ['#id with a tag', { selector: 'div#someID' }, 1],
    ['#id no element has', { selector: '#otherID' }, 0],
    ['test_attributes: [data-id="123"] is the whole value, not a prefix', { selector: '[data-id="123"]' }, 1],
    ["[data-id='1234']", { selector: "button[data-id='1234']" }, 1],
    ['a descendant selector whose parts are adjacent', { selector: 'li a' }, 1],
    ['two direct-descendant steps', { selector: 'section > li > a' }, 1],
    ['a direct child that is not one', { selector: 'section > a' }, 0],
    ['test_with_class_with_escaped_symbols: a class with \\, : and @ matches as written', { selector: 'a.na\\v-link:b@ld', tag_name: 'a' }, 1],
    ['element_chain_key_filter: an exact text with quotes (escaped as the chain stores them)', { text: 'Say "Hi"' }, 1],
    ['… contains, any case', { text: 'say "hi', text_matching: 'contains' }, 1],
    ['… regex over the escaped text', { text: 'Say \\\\"H.\\\\"', text_matching: 'regex' }, 1],
    ['test_with_class_with_escaped_slashes: a class with three backslashes matches as written', { selector: 'a.na\\\\\\v-link:b@d' }, 1],
    ['… and not with two', { selector: 'a.na\\\\v-link:b@d' }, 0],
  ])('%s', async (_n, step, n) => {
    expect(await count(await action([{ event: '$autocapture', ...step }], e), e)).toBe(n);
  });
});
