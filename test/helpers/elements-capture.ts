/**
 * Autocapture elements through the real server, for one engine: posthog-js's `$elements` (and a ready
 * `$elements_chain`) posted to `/batch/` become the events' `elements_chain` column, read back with ProductQL, with
 * both keys gone from the stored properties (as PostHog's ingestion deletes them); element filters and a selector
 * action answer over the query API. Used by ingest-elements.test.ts (DuckDB) and ingest-elements.clickhouse.test.ts.
 */
import type { TestServer } from './server';

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
}
