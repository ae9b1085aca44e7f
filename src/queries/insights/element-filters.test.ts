/**
 * Autocapture element conditions: the selector → regex translation (posthog/hogql/test/test_property.py
 * `test_selector_to_expr` / `test_elements_chain_key_filter` as recalled), and element property filters and action
 * steps run through the real query path (the events of posthog/queries/test/test_property.py `test_prop_element`,
 * the action steps of test_action.py). element-filters.clickhouse.test.ts runs this file on ClickHouse.
 *
 * Project 1, all $autocapture on 2024-01-02 by `whatever`:
 *  e1 a.small[href=/a-url, text "bla bla"] < button.btn.btn-primary < div < label#nested   (attr some_other_val)
 *  e2 a.small[href=/a-url, text 'bla"bla'] < button.btn.btn-primary < div < img#nested      (attr some_val)
 *  e3 a[href=/789] < button.btn.btn-tertiary
 *  e4 no elements
 *  e5 (posthog-js $elements, sent as capture sends them) button.cta#go[text "Sign up"] < form < body, on /signup, 11:00
 * Project 2: one event with e1's elements (tenancy).
 */
import * as ast from '../../productql/ast';
import { elementsToString, type ChainElement } from '../../ingest/elements-chain';
import { setInsightsClock } from './date-range';
import { elementChainKeyFilter, parseSelector, selectorToRegex } from './element-filters';
import { runInsightQuery } from './execute';
import { ensureFilterParser, propertiesToExpr } from './property-filters';
import type { AnyPropertyFilter } from './schema';
import { createInsightTestDb, modelActionStep as step, type InsightTestDb } from './testing';
import { trendsRunner } from '../runners/trends-runner';
import { funnelsRunner } from '../runners/funnels-runner';
import type { ActionDef } from '../../actions/matching';

const TAIL = '([-_a-zA-Z0-9\\.:"= \\[\\]\\(\\),]*?)?($|;|:([^;^\\s]*(;|$|\\s)))';

describe('selector → regex over elements_chain (PostHog build_selector_regex)', () => {
  it.each<[string, string]>([
    ['div', `(^|;)div${TAIL}`],
    ['div > div', `(^|;)div${TAIL}div${TAIL}.*`],
    ['.class', `(^|;).*?\\.class${TAIL}`],
    ['#withid', `(^|;).*?attr_id="withid".*?${TAIL}`],
    ['#with-dashed-id', `(^|;).*?attr_id="with\\-dashed\\-id".*?${TAIL}`],
    ["a[href='boo']", `(^|;)a.*?href="boo".*?${TAIL}`],
    ['[id="nested"] > a', `(^|;)a${TAIL}.*?attr_id="nested".*?${TAIL}.*`],
    ['div > a:nth-child(2)', `(^|;)a.*?nth\\-child="2".*?${TAIL}div${TAIL}.*`],
    ['button.btn-primary.btn', `(^|;)button.*?\\.btn\\..*?btn\\-primary${TAIL}`],
    ['div > * > a', `(^|;)a${TAIL}div${TAIL}`],
    ['div > *', `(^|;)div${TAIL}`],
    // not PostHog: it reads `div>a` as one tag name; here `>` is a combinator with or without spaces
    ['div>a', `(^|;)a${TAIL}div${TAIL}.*`],
    ['div  >  a', `(^|;)a${TAIL}div${TAIL}.*`],
    ['a[data-attr="x y"]', `(^|;)a.*?attr__data\\-attr="x\\ y".*?${TAIL}`],
  ])('%s', (selector, regex) => {
    expect(selectorToRegex(selector)).toBe(regex);
  });

  it('parts run innermost first; `>` marks the parent part as a direct descendant', () => {
    expect(parseSelector('body div > a.small#x')).toEqual([
      { tagName: 'a', classes: ['small'], attributes: { attr_id: 'x' }, directDescendant: false },
      { tagName: 'div', attributes: {}, directDescendant: true },
      { tagName: 'body', attributes: {}, directDescendant: false },
    ]);
  });

  it('regex metacharacters in the selector are matched literally', () => {
    expect(selectorToRegex('a.w-1/2[title="(a|b)*"]')).toBe(`(^|;)a.*?\\.w\\-1/2.*?attr__title="\\(a\\|b\\)\\*".*?${TAIL}`);
  });
});

describe('text / href filters (PostHog element_chain_key_filter)', () => {
  const re = (e: ast.Expr) => (e as ast.CompareOperation).right as ast.Constant;
  const op = (e: ast.Expr) => (e as ast.CompareOperation).op;
  it.each<[string, string, string, '=~' | '!~']>([
    ['exact', 'bla"bla', '(text="bla\\\\"bla")', '=~'],
    ['is_not', 'a.b', '(text="a\\.b")', '!~'],
    ['icontains', 'Bla', '(?i)(text="[^"]*Bla[^"]*")', '=~'],
    ['not_icontains', 'Bla', '(?i)(text="[^"]*Bla[^"]*")', '!~'],
    ['regex', '^b.a', '(text="^b.a")', '=~'],
    ['not_regex', '^b.a', '(text="^b.a")', '!~'],
    ['is_set', '', '(text="[^"]+")', '=~'],
    ['is_not_set', '', '(text="[^"]+")', '!~'],
  ])('%s', (operator, value, regex, cmp) => {
    const e = elementChainKeyFilter('text', value, operator);
    expect([re(e).value, op(e)]).toEqual([regex, cmp]);
  });
});

// ------------------------------------------------------------------------------------------ through the engine

const el = (tag_name: string, extra: Partial<ChainElement> = {}): ChainElement => ({ tag_name, nth_child: 0, nth_of_type: 0, ...extra });
const E1 = [el('a', { href: '/a-url', attr_class: ['small'], text: 'bla bla', nth_child: 1 }), el('button', { attr_class: ['btn', 'btn-primary'] }), el('div'), el('label', { attr_id: 'nested' })];
const E2 = [el('a', { href: '/a-url', attr_class: ['small'], text: 'bla"bla', nth_child: 1 }), el('button', { attr_class: ['btn', 'btn-primary'] }), el('div'), el('img', { attr_id: 'nested' })];
const E3 = [el('a', { href: '/789' }), el('button', { attr_class: ['btn', 'btn-tertiary'] })];
/** posthog-js's shape, converted at ingestion. */
const E5_CAPTURED = [
  { tag_name: 'button', $el_text: 'Sign up', attr__class: 'cta', attr__id: 'go', nth_child: 2, nth_of_type: 1 },
  { tag_name: 'form', attr__action: '/signup', nth_child: 1, nth_of_type: 1 },
  { tag_name: 'body', nth_child: 2, nth_of_type: 1 },
];

const ACTIONS: ActionDef[] = [
  { id: 1, name: 'Primary button click', steps: [step({ event: '$autocapture', selector: 'div > button.btn-primary' })] },
  { id: 2, name: 'Link by href and text', steps: [step({ event: '$autocapture', tag_name: 'a', href: '/a-url', text: 'bla bla' })] },
  // element fields count in $autocapture steps only (PostHog's action_to_expr; src/actions/matching.ts)
  { id: 3, name: 'Text contains (case-insensitive)', steps: [step({ event: '$autocapture', text: 'BLA', text_matching: 'contains' })] },
  { id: 4, name: 'href regex or signup click', steps: [step({ event: '$autocapture', href: '/[0-9]+', href_matching: 'regex' }), step({ event: '$autocapture', selector: '#go', url: '/signup' })] },
  { id: 5, name: 'Selector and url that do not meet', steps: [step({ event: '$autocapture', selector: '#go', url: '/pricing' })] },
  { id: 6, name: 'Bad text regex', steps: [step({ event: '$autocapture', text: '(', text_matching: 'regex' })] },
];

let db: InsightTestDb;
let restore: () => void;
beforeAll(async () => {
  db = await createInsightTestDb();
  await ensureFilterParser();
  db.actions = { liveActions: async (projectId, ids) => new Map(projectId === 1 ? ACTIONS.filter((a) => ids.includes(a.id)).map((a) => [a.id, a]) : []) };
  restore = setInsightsClock(new Date('2024-01-08T12:00:00Z'));
  const ts = '2024-01-02T10:00:00Z';
  const auto = (properties: Record<string, unknown>) => ({ event: '$autocapture', distinct_id: 'whatever', timestamp: ts, properties });
  await db.load(1, {
    events: [
      auto({ attr: 'some_other_val', $elements_chain: elementsToString(E1) }),
      auto({ attr: 'some_val', $elements_chain: elementsToString(E2) }),
      auto({ $elements_chain: elementsToString(E3) }),
      auto({}),
      { ...auto({ $current_url: 'https://app.example.com/signup', $elements: E5_CAPTURED }), timestamp: '2024-01-02T11:00:00Z' },
    ],
  });
  await db.load(2, { events: [auto({ $elements_chain: elementsToString(E1) })] });
});
afterAll(async () => {
  restore();
  await db.close();
});

const count = async (props: AnyPropertyFilter[], project = 1): Promise<number> => {
  const q = ast.select({ select: [ast.alias('c', ast.call('count', []))], from: 'events', where: propertiesToExpr(props) });
  const { rows } = await runInsightQuery(db.ctx(project), q);
  return Number(rows[0].c);
};
const f = (key: string, value: unknown, operator = 'exact'): AnyPropertyFilter => ({ type: 'element', key, value, operator }) as AnyPropertyFilter;

describe('element property filters (test_prop_element)', () => {
  it.each<[string, AnyPropertyFilter, number]>([
    ['selector .btn (list)', f('selector', ['.btn']), 3],
    ['selector .btn (scalar)', f('selector', '.btn'), 3],
    ['selector .btn-primary', f('selector', ['.btn-primary']), 2],
    ['selector with a direct parent: div > button', f('selector', 'div > button'), 2],
    ['selector: the parent must be the next element (a > button is none)', f('selector', 'a > button'), 0],
    ['selector label > div', f('selector', 'label > div'), 1],
    // PostHog's element tail stops at whitespace in the attributes: e1's `a` (text "bla bla") is no part's child
    ['as PostHog: button > a matches e2 and e3, and misses e1 (a space in its text)', f('selector', 'button > a'), 2],
    ['selector a:nth-child(1)', f('selector', 'a:nth-child(1)'), 2],
    ['selector [id="nested"]', f('selector', '[id="nested"]'), 2],
    ['selector label#nested', f('selector', 'label#nested'), 1],
    ['selector list → OR', f('selector', ['label', 'img']), 2],
    ['selector is_not: events without the element, and without a chain', f('selector', ['.btn'], 'is_not'), 2],
    ['selector of a captured $elements event (id and class from attr__*)', f('selector', 'form > button.cta#go'), 1],
    ['tag_name div', f('tag_name', ['div']), 2],
    ['tag_name img', f('tag_name', ['img']), 1],
    ['tag_name label', f('tag_name', ['label']), 1],
    ['tag_name list → OR', f('tag_name', ['img', 'label']), 2],
    ['tag_name does not match a class or text', f('tag_name', 'small'), 0],
    ['tag_name is_not', f('tag_name', 'button', 'is_not'), 1],
    ['href exact', f('href', ['/a-url']), 2],
    ['href list → OR', f('href', ['/a-url', '/789']), 3],
    ['href is_not (no chain passes)', f('href', ['/a-url'], 'is_not'), 3],
    ['href is_set', f('href', null, 'is_set'), 3],
    ['href is_not_set', f('href', null, 'is_not_set'), 2],
    ['text exact with a quote', f('text', ['bla"bla']), 1],
    ['text exact', f('text', 'bla bla'), 1],
    ['text icontains', f('text', ['BLA'], 'icontains'), 2],
    ['text not_icontains', f('text', ['bla'], 'not_icontains'), 3],
    ['text not_icontains list → AND', f('text', ['bla', 'sign'], 'not_icontains'), 2],
    // the value sits inside `(text="…")`, as in PostHog: `^`/`$` in it anchor to the whole chain, so leave them out
    ['text regex', f('text', 'Sign.*', 'regex'), 1],
    ['text not_regex', f('text', 'bla.*', 'not_regex'), 3],
    ['empty list is a no-op', f('text', []), 5],
  ])('%s', async (_n, filter, expected) => {
    expect(await count([filter])).toBe(expected);
  });

  it('combines with event property filters (AND)', async () => {
    expect(await count([f('selector', '.btn-primary'), { type: 'event', key: 'attr', value: 'some_val', operator: 'exact' } as AnyPropertyFilter])).toBe(1);
  });

  it('test_prop_element_with_space: a class with a space in it (`btn space`) does not stop a tag or class selector', async () => {
    const chain = elementsToString([el('a', { href: '/789' }), el('button', { attr_class: ['btn space', 'btn-tertiary'] })]);
    await db.load(3, { events: [{ event: '$autocapture', distinct_id: 'whatever', timestamp: '2024-01-02T10:00:00Z', properties: { $elements_chain: chain } }] });
    expect(await count([f('selector', ['button'])], 3)).toBe(1);
    expect(await count([f('selector', '.btn-tertiary')], 3)).toBe(1);
    expect(await count([f('tag_name', 'button')], 3)).toBe(1);
    expect(await count([f('selector', 'a > button')], 3)).toBe(0);
  });

  it("only the project's own events: tenancy", async () => {
    expect(await count([f('tag_name', 'label')], 2)).toBe(1);
    expect(await count([f('tag_name', 'img')], 2)).toBe(0);
  });

  it.each<[string, AnyPropertyFilter, RegExp]>([
    ['an unknown key', f('nth_child', '1'), /Unsupported element property "nth_child"/],
    ['a selector operator other than exact/is_not', f('selector', 'a', 'icontains'), /exact and is_not/],
    ['a text operator it has no pattern for', f('text', '1', 'gt'), /Operator "gt" is not supported for element text filters/],
    ['an empty selector', f('selector', '  '), /non-empty value/],
    ['an empty tag_name', f('tag_name', ''), /non-empty value/],
  ])('a clear 400 for %s', async (_n, filter, message) => {
    await expect(count([filter])).rejects.toMatchObject({ status: 400, attr: 'properties', message: expect.stringMatching(message) });
  });

  it.each([
    ['a[title="tab\there\nnewline"]'],
    ['.😀 > a#ü'],
    ['a[title="back\\slash \\d+"]'],
    ["a[title='quote\"s; and']"],
    ['div{1,2000}(?i).x|y'],
    ["'; DROP TABLE events; --"],
  ])('odd characters in a selector are matched literally, never an engine error: %s', async (selector) => {
    expect(await count([f('selector', selector)])).toBe(0);
    expect(await count([f('text', selector, 'icontains'), f('href', selector, 'is_not')])).toBe(0);
  });

  it('a selector whose pattern passes the regex length limit is a 400 (regex_too_long)', async () => {
    await expect(count([f('selector', Array.from({ length: 40 }, () => 'div').join(' > '))])).rejects.toMatchObject({ status: 400, code: 'regex_too_long' });
  });
});

describe('insights through the runners', () => {
  const RANGE = { date_from: '2024-01-01', date_to: '2024-01-03' };
  const trends = (q: Record<string, unknown>) => db.run(trendsRunner, { kind: 'TrendsQuery', dateRange: RANGE, ...q });
  const data = (r: any) => r.results.map((x: any) => x.data);
  const A = (id: number) => ({ kind: 'ActionsNode', id });

  it('trends with an element filter on the series and on the query', async () => {
    const r = await trends({
      series: [{ kind: 'EventsNode', event: '$autocapture', properties: [f('tag_name', 'button')] }],
      properties: [f('text', 'bla', 'icontains')],
    });
    expect(data(r)).toEqual([[0, 2, 0]]);
  });

  it.each<[string, number, number]>([
    ['selector step: div > button.btn-primary', 1, 2],
    ['tag_name + href exact + text exact (text_matching unset = exact)', 2, 1],
    ['text contains is case-insensitive', 3, 2],
    ['OR of steps: href regex, or a selector on the url', 4, 2],
    ['element and url conditions must both hold', 5, 0],
  ])('action with %s', async (_n, id, total) => {
    const r = await trends({ series: [A(id)] });
    expect(r.results[0].count).toBe(total);
    expect(r.results[0].data).toEqual([0, total, 0]);
  });

  it('an action step with an invalid text regex is a 400 naming the series', async () => {
    await expect(trends({ series: [A(6)] })).rejects.toMatchObject({ status: 400, code: 'invalid_regex', attr: 'series__0' });
  });

  it('a funnel whose step is an autocapture action', async () => {
    const r = await db.run(funnelsRunner, {
      kind: 'FunnelsQuery',
      dateRange: RANGE,
      series: [{ kind: 'EventsNode', event: '$autocapture' }, A(4)],
    });
    expect(r.results.map((s: any) => s.count)).toEqual([1, 1]);
  });
});
