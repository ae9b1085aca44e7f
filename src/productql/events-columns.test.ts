/**
 * The columns of PostHog's events table beyond the stored ones (posthog/hogql/database/schema/events.py): `$window_id`
 * (materialized from the property), `elements_chain` never NULL, and the materialized autocapture columns
 * `elements_chain_href`, `elements_chain_texts`, `elements_chain_ids`, `elements_chain_elements`
 * (posthog/models/event/sql.py: `extract` / `arrayDistinct(extractAll(...))` over elements_chain). None of them is in
 * `SELECT *` (EventsTable.avoid_asterisk_fields). Events go through the real ingest path (an `$elements_chain` property
 * becomes the column) and the real runner; events-columns.clickhouse.test.ts runs this file on ClickHouse.
 */
import { ev, openHarness, type Harness } from '../queries/funnels/testing';
import { productqlRunner } from '../queries/runners/productql-runner';
import { shutdownParser } from './index';

// PostHog's elements_to_string: `tag.classes:attributes` (sorted), innermost element first, joined by ';'.
const CHAIN =
  'a.btn:attr__class="btn"attr_id="signup-link"href="/signup"nth-child="1"nth-of-type="1"text="Sign up";' +
  'button:nth-child="2"nth-of-type="1"text="Sign up";div.nav:attr__class="nav"attr_id="nav"nth-child="1"nth-of-type="1";' +
  'form:attr_id="f"nth-child="1"nth-of-type="1";label:text="Email"';
const PLAIN = 'div:nth-child="1"nth-of-type="1";span:text="Hi"';

let h: Harness;
let pid: number;
beforeAll(async () => {
  h = await openHarness();
  pid = await h.load({
    events: [
      ev('u1', '$autocapture', '2024-01-08T10:00:00Z', { $elements_chain: CHAIN, $window_id: 'w-1', $session_id: 's-1' }),
      ev('u1', '$autocapture', '2024-01-08T10:01:00Z', { $elements_chain: PLAIN, $window_id: '' }),
      ev('u1', '$pageview', '2024-01-08T10:02:00Z', { $current_url: 'https://a.com/' }),
    ],
  });
});
afterAll(async () => {
  await h.close();
  await shutdownParser();
});

const hogql = (query: string) => h.run(productqlRunner, { kind: 'HogQLQuery', query }, pid);

describe('events columns of PostHog beyond the stored ones', () => {
  it('elements_chain_href / _texts / _ids / _elements read the chain as PostHog materializes them', async () => {
    const r = await hogql('select elements_chain_href, elements_chain_texts, elements_chain_ids, elements_chain_elements from events order by timestamp');
    expect(r.results).toEqual([
      ['/signup', ['Sign up', 'Email'], ['signup-link', 'nav', 'f'], ['a', 'button', 'form', 'label']],
      ['', ['Hi'], [], []],
      ['', [], [], []],
    ]);
    expect(r.types.map((t: [string, string]) => t[1])).toEqual(['String', 'Array(String)', 'Array(String)', 'Array(String)']);
  });

  it('elements_chain is never NULL: an event without elements has an empty chain', async () => {
    const r = await hogql("select elements_chain, elements_chain is null, elements_chain = '' from events order by timestamp");
    expect(r.results).toEqual([
      [CHAIN, 0, 0],
      [PLAIN, 0, 0],
      ['', 0, 1],
    ]);
    expect(r.types[0]).toEqual(['elements_chain', 'String']);
  });

  it('$window_id is the property, or an empty string', async () => {
    const r = await hogql('select $window_id, events.$window_id, $session_id from events order by timestamp');
    expect(r.results.map((x: unknown[]) => x.slice(0, 2))).toEqual([
      ['w-1', 'w-1'],
      ['', ''],
      ['', ''],
    ]);
    expect(r.types[0]).toEqual(['$window_id', 'String']);
  });

  it('filters and aggregates on them', async () => {
    expect((await hogql("select count() from events where elements_chain_href = '/signup' and has(elements_chain_texts, 'Email')")).results).toEqual([[1]]);
    expect((await hogql("select countIf(has(elements_chain_elements, 'button')), countIf($window_id != '') from events")).results).toEqual([[1, 1]]);
    expect((await hogql('select arrayJoin(elements_chain_ids) as id from events order by id')).results).toEqual([['f'], ['nav'], ['signup-link']]);
  });

  it('are not in SELECT *', async () => {
    const r = await hogql('select * from events limit 1');
    for (const c of ['$window_id', 'elements_chain_href', 'elements_chain_texts', 'elements_chain_ids', 'elements_chain_elements']) expect(r.columns).not.toContain(c);
    expect(r.columns).toContain('elements_chain');
  });

  it('take no further access', async () => {
    await expect(hogql('select elements_chain_href.x from events')).rejects.toMatchObject({ code: 'hogql_query_error', message: expect.stringContaining('Cannot access "x" on elements_chain_href') });
  });
});
