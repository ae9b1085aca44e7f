/**
 * Autocapture elements through the real server, for one engine: posthog-js's `$elements` (and a ready
 * `$elements_chain`) posted to `/batch/` become the events' `elements_chain` column, read back with ProductQL, with
 * both keys gone from the stored properties (as PostHog's ingestion deletes them); element filters and a selector
 * action answer over the query API. Used by ingest-elements.test.ts (DuckDB) and ingest-elements.clickhouse.test.ts.
 */
import { newKey, type TestServer } from './server';

export function describeElementsCapture(engine: string, server: () => TestServer): void {
  describe(`autocapture elements over /batch/ on ${engine}`, () => {
    let s: TestServer;
    let p: number;
    const query = (q: Record<string, unknown>) => s.api('POST', `/api/projects/${p}/query/`, { query: q, refresh: 'force_blocking' });

    beforeAll(async () => {
      s = server();
      const project = (await s.api('POST', '/api/projects/', { name: 'autocapture' })).body;
      p = project.id;
      const batch = [
        {
          event: '$autocapture',
          distinct_id: 'u1',
          timestamp: '2024-01-02T10:00:00Z',
          properties: {
            $current_url: 'https://app.example.com/pricing',
            $event_type: 'click',
            $elements: [
              { tag_name: 'a', $el_text: 'Buy "pro"', attr__href: '/checkout', attr__class: 'btn btn-primary', nth_child: 2, nth_of_type: 1 },
              { tag_name: 'div', attr__class: 'card', nth_child: 1, nth_of_type: 1 },
              { tag_name: 'body', nth_child: 2, nth_of_type: 1 },
            ],
          },
        },
        { event: '$autocapture', distinct_id: 'u2', timestamp: '2024-01-02T11:00:00Z', properties: { $elements_chain: 'button:nth-child="1"nth-of-type="1"text="Go"' } },
        { event: '$autocapture', distinct_id: 'u3', timestamp: '2024-01-02T12:00:00Z', properties: { $elements: 'not a list' } },
        { event: '$pageview', distinct_id: 'u3', timestamp: '2024-01-02T13:00:00Z', properties: {} },
      ];
      const r = await fetch(`${s.url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: project.api_token, batch }) });
      expect(r.status).toBe(200);
      await s.server.services.ingestor.flush();
    });

    it('the chain is stored in elements_chain, in PostHog’s format; $elements / $elements_chain leave the properties', async () => {
      const r = await query({
        kind: 'HogQLQuery',
        query: 'SELECT event, elements_chain, properties.$elements, properties.$elements_chain, properties.$event_type FROM events ORDER BY timestamp',
      });
      expect(r.status).toBe(200);
      expect(r.body.results).toEqual([
        [
          '$autocapture',
          'a.btn.btn-primary:attr__class="btn btn-primary"attr__href="/checkout"href="/checkout"nth-child="2"nth-of-type="1"text="Buy \\"pro\\"";' +
            'div.card:attr__class="card"nth-child="1"nth-of-type="1";body:nth-child="2"nth-of-type="1"',
          null,
          null,
          'click',
        ],
        ['$autocapture', 'button:nth-child="1"nth-of-type="1"text="Go"', null, null, null],
        // no chain reads '' (PostHog's elements_chain is never null)
        ['$autocapture', '', null, null, null],
        ['$pageview', '', null, null, null],
      ]);
    });

    it('the events API shows the chain read back as elements (PostHog ElementSerializer)', async () => {
      const r = await s.api('GET', `/api/projects/${p}/events/?event=$autocapture`);
      expect(r.status).toBe(200);
      const [noChain, sent, captured] = r.body.results;
      expect(noChain.elements).toEqual([]);
      expect(sent.elements).toEqual([
        { text: 'Go', tag_name: 'button', attr_class: null, href: null, attr_id: null, nth_child: 1, nth_of_type: 1, attributes: {}, order: 0 },
      ]);
      expect(captured.elements.map((e: any) => [e.order, e.tag_name, e.attr_class, e.href, e.text])).toEqual([
        [0, 'a', ['btn', 'btn-primary'], '/checkout', 'Buy \\"pro\\"'],
        [1, 'div', ['card'], null, null],
        [2, 'body', null, null, null],
      ]);
      expect(captured.elements[0].attributes).toEqual({ attr__class: 'btn btn-primary', attr__href: '/checkout' });
    });

    it('element property filters and a selector action answer over the query API', async () => {
      const count = async (properties: unknown[]) => {
        const r = await query({ kind: 'HogQLQuery', query: 'SELECT count() FROM events WHERE {filters}', filters: { properties } });
        expect(r.status).toBe(200);
        return r.body.results[0][0];
      };
      expect(await count([{ type: 'element', key: 'selector', value: 'body > div.card', operator: 'exact' }])).toBe(1);
      expect(await count([{ type: 'element', key: 'selector', value: 'a.btn-primary.btn', operator: 'exact' }])).toBe(1);
      expect(await count([{ type: 'element', key: 'text', value: 'buy "PRO"', operator: 'icontains' }])).toBe(1);
      expect(await count([{ type: 'element', key: 'tag_name', value: ['a', 'button'], operator: 'exact' }])).toBe(2);
      expect(await count([{ type: 'element', key: 'href', value: '/checkout', operator: 'is_not' }])).toBe(3);

      const action = await s.api('POST', `/api/projects/${p}/actions/`, {
        name: 'Checkout click',
        steps: [{ event: '$autocapture', selector: 'a.btn', href: '/checkout', url: '/pricing' }],
      });
      expect(action.status).toBe(201);
      const trends = await query({ kind: 'TrendsQuery', series: [{ kind: 'ActionsNode', id: action.body.id }], dateRange: { date_from: '2024-01-01', date_to: '2024-01-03' } });
      expect([trends.status, trends.body.results[0].data]).toEqual([200, [0, 1, 0]]);
    });

    it('an element filter with a bad operator is a 400 naming the filter, not a 500', async () => {
      const properties = [{ type: 'element', key: 'selector', value: 'a', operator: 'regex' }];
      const r = await query({ kind: 'HogQLQuery', query: 'SELECT count() FROM events WHERE {filters}', filters: { properties } });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ type: 'validation_error', detail: expect.stringMatching(/exact and is_not/) });
    });
  });

  /**
   * PostHog's posthog/api/test/test_element.py (ElementViewSet): its _setup_events fixture (three autocaptures and a
   * rageclick today, an autocapture 8 days ago), chains written by elements_to_string.
   */
  describe(`elements API (PostHog test_element.py) on ${engine}`, () => {
    let s: TestServer;
    let p: number;
    const chain = (n: number) => `a:href="https://posthog.com/event-${n}"nth-child="0"nth-of-type="0"text="event ${n}";div:nth-child="0"nth-of-type="0"`;
    const elements = (n: number) => [
      { text: `event ${n}`, tag_name: 'a', attr_class: null, href: `https://posthog.com/event-${n}`, attr_id: null, nth_child: 0, nth_of_type: 0, attributes: {}, order: 0 },
      { text: null, tag_name: 'div', attr_class: null, href: null, attr_id: null, nth_child: 0, nth_of_type: 0, attributes: {}, order: 1 },
    ];
    const autocapture = [
      { count: 2, hash: null, type: '$autocapture', elements: elements(1) },
      { count: 1, hash: null, type: '$autocapture', elements: elements(2) },
    ];
    const rageclick = [{ count: 1, hash: null, type: '$rageclick', elements: elements(1) }];
    const get = (path: string) => s.api('GET', `/api/projects/${p}/elements/${path}`);

    beforeAll(async () => {
      s = server();
      const project = (await s.api('POST', '/api/projects/', { name: 'elements api' })).body;
      p = project.id;
      // early today (the UTC project's day): what a date_from clamped to the start of the day still sees
      const today = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 + 1000).toISOString();
      const eightDaysAgo = new Date(Date.now() - 8 * 86_400_000).toISOString();
      const ev = (event: string, distinct_id: string, n: number, url: string, timestamp = today) => ({
        event,
        distinct_id,
        timestamp,
        properties: { $elements_chain: chain(n), $current_url: `http://example.com/${url}` },
      });
      const person = (distinct_id: string) => ({ event: '$identify', distinct_id, timestamp: today, properties: { $set: { email: `${distinct_id}@mail.com` } } });
      const batch = [
        person('one'),
        person('two'),
        ev('$autocapture', 'one', 1, 'demo'),
        ev('$autocapture', 'one', 1, 'demo'),
        ev('$autocapture', 'two', 2, 'another_page'),
        ev('$rageclick', 'one', 1, 'demo'),
        // only the last 7 days load by default
        ev('$autocapture', 'one', 1, 'demo', eightDaysAgo),
        ev('$pageview', 'one', 1, 'demo'),
      ];
      const r = await fetch(`${s.url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: project.api_token, batch }) });
      expect(r.status).toBe(200);
      await s.server.services.ingestor.flush();
    });

    it('test_element_stats: autocapture chains of the last 7 days, most counted first; a bare list unless paginate_response=true', async () => {
      const bare = await get('stats/');
      expect([bare.status, bare.body]).toEqual([200, autocapture]);
      const paged = await get('stats/?paginate_response=true');
      expect([paged.status, paged.body]).toEqual([200, { results: autocapture, next: null, previous: null }]);
      // date_from=all: the older autocapture counts too
      const all = await get('stats/?date_from=all');
      expect(all.body.map((e: any) => e.count)).toEqual([3, 1]);
    });

    it('test_element_stats_can_load_only_rageclick_data / rageclick_and_autocapture_data (include)', async () => {
      expect((await get('stats/?paginate_response=true&include=$rageclick')).body.results).toEqual(rageclick);
      expect((await get('stats/?paginate_response=true&include=$rageclick&include=$autocapture')).body.results).toEqual([...autocapture, ...rageclick]);
      // test_element_stats_can_load_all_the_data: every kind asked for (no dead clicks here)
      expect((await get('stats/?paginate_response=true&include=$dead_click&include=$rageclick&include=$autocapture')).body.results).toEqual([...autocapture, ...rageclick]);
    });

    it('test_element_stats_obeys_limit_parameter: next is the request with offset and limit set', async () => {
      const first = await get('stats/?paginate_response=true&limit=1');
      expect(first.status).toBe(200);
      expect(first.body.results).toEqual([autocapture[0]]);
      expect(first.body.next).toBe(`${s.url}/api/projects/${p}/elements/stats/?paginate_response=true&limit=1&offset=1`);
      const next = new URL(first.body.next);
      const second = await s.api('GET', next.pathname + next.search);
      expect(second.body.results).toEqual([autocapture[1]]);
      expect(second.body.next).toBeNull();
      // without paginate_response the limit applies to the bare list
      expect((await get('stats/?limit=1&offset=1')).body).toEqual([autocapture[1]]);
    });

    it('test_element_stats_does_not_allow_non_numeric_limit / offset, nor an unexpected include', async () => {
      for (const q of ['limit=not-a-number', 'offset=not-a-number']) {
        const r = await get(`stats/?${q}`);
        expect([r.status, r.body.type, r.body.code]).toEqual([400, 'validation_error', 'invalid_input']);
      }
      // each include is taken off the list once: one given twice is left over, as another event is
      for (const q of ['include=$pageview', 'include=$rageclick&include=$rageclick']) {
        const r = await get(`stats/?${q}`);
        expect([r.status, r.body]).toEqual([
          400,
          { type: 'validation_error', code: 'invalid_input', detail: 'Only $autocapture, $rageclick, and $dead_click are supported.', attr: null },
        ]);
      }
    });

    it('test_element_stats_clamps_date_from_to_start_of_day: a date_from with a time starts at its day', async () => {
      const r = await get(`stats/?paginate_response=true&date_from=${encodeURIComponent(new Date().toISOString())}`);
      expect([r.status, r.body.results]).toEqual([200, autocapture]);
      // a day before the 8-day-old event: it counts
      const older = await get(`stats/?date_from=${new Date(Date.now() - 9 * 86_400_000).toISOString().slice(0, 10)}`);
      expect(older.body.map((e: any) => e.count)).toEqual([3, 1]);
    });

    it('the legacy /api/element/ routes serve the current project (a key of this project only), next links staying on them', async () => {
      const key = await newKey(s, ['element:read'], { scoped_teams: [p] });
      const r = await s.api('GET', '/api/element/stats/?paginate_response=true&limit=1', undefined, key);
      expect([r.status, r.body.results]).toEqual([200, [autocapture[0]]]);
      expect(r.body.next).toBe(`${s.url}/api/element/stats/?paginate_response=true&limit=1&offset=1`);
      expect((await s.api('GET', '/api/element/stats', undefined, key)).body).toEqual(autocapture);
      expect((await s.api('GET', '/api/element/values/?key=text&value=2', undefined, key)).body).toEqual([{ name: 'event 2' }]);
      // scope element:read, as the project routes
      const other = await newKey(s, ['query:read'], { scoped_teams: [p] });
      expect((await s.api('GET', '/api/element/stats/', undefined, other)).status).toBe(403);
    });

    it('properties filter the events counted', async () => {
      const properties = encodeURIComponent(JSON.stringify([{ key: '$current_url', value: 'http://example.com/another_page', type: 'event' }]));
      expect((await get(`stats/?properties=${properties}`)).body).toEqual([autocapture[1]]);
      // person properties too (PostHog's _create_person fixtures have emails)
      const byPerson = encodeURIComponent(JSON.stringify([{ key: 'email', value: 'one@mail.com', type: 'person' }]));
      expect((await get(`stats/?properties=${byPerson}&include=$autocapture&include=$rageclick`)).body).toEqual([autocapture[0], ...rageclick]);
    });

    it('test_event_property_values: values of an element field, most frequent first; a key that is no field is []', async () => {
      expect((await get('values/?key=tag_name')).body).toEqual([{ name: 'a' }]);
      expect((await get('values/?key=tag_name&value=a')).body).toEqual([{ name: 'a' }]);
      expect((await get('values/?key=tag_name&value=div')).body).toEqual([]);
      // every event's chain, whatever the event ($pageview included) and however old
      expect((await get('values/?key=text&value=event')).body).toEqual([{ name: 'event 1' }, { name: 'event 2' }]);
      expect((await get('values/?key=text&value=2')).body).toEqual([{ name: 'event 2' }]);
      expect((await get('values/?key=href')).body).toEqual([{ name: 'https://posthog.com/event-1' }, { name: 'https://posthog.com/event-2' }]);
      expect((await get('values/?key=selector')).body).toEqual([]);
      expect((await get('values/')).body).toEqual([]);
    });
  });
}
