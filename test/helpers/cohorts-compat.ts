/**
 * Cohort filters and breakdowns in insights, after PostHog's own tests (posthog/hogql_queries/insights/trends/test/
 * test_trends.py test_filter_events_by_cohort, test_breakdown_by_cohort; funnels/test/test_funnel.py and
 * retention/test/test_retention.py with cohort filters; behavioral cohorts after ee/clickhouse/queries/test/
 * test_cohort_query.py), through the real server for one engine. Used by
 * cohorts.test.ts (DuckDB) and cohorts.clickhouse.test.ts (ClickHouse): same cases, same expected answers.
 */
import type { TestServer } from './server';

const DATES = { date_from: '2020-01-01', date_to: '2020-01-07' };

export function describeCohortsCompat(engine: string, server: () => TestServer): void {
  describe(`cohorts in insights on ${engine}`, () => {
    let s: TestServer;
    let p: number;
    let other: number;
    const ids: Record<string, number> = {};

    const cohort = async (project: number, body: Record<string, unknown>): Promise<number> => {
      const r = await s.api('POST', `/api/projects/${project}/cohorts/`, body);
      expect(r.status).toBe(201);
      return r.body.id;
    };
    const query = (node: Record<string, unknown>, project = p) => s.api('POST', `/api/projects/${project}/query/`, { query: node });
    const trends = (extra: Record<string, unknown>) =>
      query({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'event_name' }], dateRange: DATES, interval: 'day', ...extra });

    beforeAll(async () => {
      s = server();
      p = (await s.api('POST', '/api/projects/', { name: `cohorts ${engine}` })).body.id;
      other = (await s.api('POST', '/api/projects/', { name: `cohorts other ${engine}` })).body.id;
      const at = (d: number, h = 12) => `2020-01-0${d}T${String(h).padStart(2, '0')}:00:00Z`;
      await s.server.services.ingestor.import(p, {
        persons: [
          { distinct_ids: ['person_1'], properties: { name: 'John', plan: 'free' } },
          { distinct_ids: ['person_2'], properties: { name: 'Jane', plan: 'paid' } },
          { distinct_ids: ['person_3'], properties: { name: 'Jim', plan: 'paid' } },
        ],
        events: [
          { event: 'event_name', distinct_id: 'person_1', timestamp: at(2), properties: { $browser: 'Safari' } },
          { event: 'event_name', distinct_id: 'person_2', timestamp: at(2), properties: { $browser: 'Chrome' } },
          { event: 'event_name', distinct_id: 'person_2', timestamp: at(3), properties: { $browser: 'Safari' } },
          { event: 'event_name', distinct_id: 'person_3', timestamp: at(3), properties: {} },
          { event: 'event_name', distinct_id: 'person_3', timestamp: at(4), properties: {} },
          { event: 'event_name', distinct_id: 'person_3', timestamp: at(5), properties: {} },
          { event: 'paid', distinct_id: 'person_2', timestamp: at(3, 13), properties: {} },
          { event: 'paid', distinct_id: 'person_1', timestamp: at(3, 13), properties: {} },
        ],
      });
      // the other project has a person named Jane too: its events must never be counted
      await s.server.services.ingestor.import(other, {
        persons: [{ distinct_ids: ['person_2'], properties: { name: 'Jane' } }],
        events: [{ event: 'event_name', distinct_id: 'person_2', timestamp: at(2), properties: {} }],
      });
      await s.server.services.ingestor.flush();
      ids.jane = await cohort(p, { name: 'cohort1', groups: [{ properties: [{ key: 'name', value: 'Jane', type: 'person' }] }] });
      ids.john = await cohort(p, { name: 'cohort2', filters: { properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'name', value: 'John', type: 'person', operator: 'exact' }] }] } } });
      ids.janeOrJohn = await cohort(p, { name: 'cohort3', groups: [{ properties: [{ key: 'name', value: 'Jane' }] }, { properties: [{ key: 'name', value: 'John' }] }] });
      ids.paid = await cohort(p, { name: 'paid', filters: { properties: { type: 'AND', values: [{ key: 'plan', value: 'paid', type: 'person' }] } } });
      // nested: paid persons not in cohort1 (Jim)
      ids.paidNotJane = await cohort(p, {
        name: 'paid not Jane',
        filters: { properties: { type: 'AND', values: [{ type: 'cohort', key: 'id', value: ids.paid }, { type: 'cohort', key: 'id', value: ids.jane, negation: true }] } },
      });
      ids.otherJane = await cohort(other, { name: 'other', groups: [{ properties: [{ key: 'name', value: 'Jane' }] }] });
    });

    it('test_filter_events_by_cohort: only events of persons in the cohort', async () => {
      const r = await trends({ properties: [{ key: 'id', value: ids.jane, type: 'cohort' }] });
      expect(r.status).toBe(200);
      expect(r.body.results).toHaveLength(1);
      expect(r.body.results[0].count).toBe(2);
      expect(r.body.results[0].data).toEqual([0, 1, 1, 0, 0, 0, 0]);
    });

    it.each([
      ['in (default), a property group', () => ({ properties: { type: 'AND', values: [{ type: 'cohort', key: 'id', value: ids.janeOrJohn }] } }), 3],
      ['not_in', () => ({ properties: [{ type: 'cohort', key: 'id', value: ids.jane, operator: 'not_in' }] }), 4],
      ['a nested cohort with a negated reference', () => ({ properties: [{ type: 'cohort', key: 'id', value: ids.paidNotJane }] }), 3],
      ['on the series', () => ({ series: [{ kind: 'EventsNode', event: 'event_name', properties: [{ type: 'cohort', key: 'id', value: String(ids.john) }] }] }), 1],
      ['with another filter', () => ({ properties: [{ type: 'cohort', key: 'id', value: ids.paid }, { type: 'event', key: '$browser', value: 'Safari' }] }), 1],
    ])('cohort filter: %s', async (_name, extra, count) => {
      const r = await trends(extra());
      expect(r.status).toBe(200);
      expect(r.body.results[0].count).toBe(count);
    });

    it('test_breakdown_by_cohort: one series per cohort in the order given, labelled by cohort name, and all users', async () => {
      const r = await trends({ breakdownFilter: { breakdown_type: 'cohort', breakdown: [ids.jane, ids.john, ids.janeOrJohn, 'all'] } });
      expect(r.status).toBe(200);
      const rows = r.body.results.map((x: any) => [x.label, x.breakdown_value, x.count]);
      expect(rows).toEqual([
        ['event_name - cohort1', ids.jane, 2],
        ['event_name - cohort2', ids.john, 1],
        ['event_name - cohort3', ids.janeOrJohn, 3],
        ['event_name - all users', 'all', 6],
      ]);
    });

    it('cohort breakdown with two series: cohorts outer, series inner (PostHog’s setup_series)', async () => {
      const r = await query({
        kind: 'TrendsQuery',
        series: [{ kind: 'EventsNode', event: 'event_name' }, { kind: 'EventsNode', event: 'paid' }],
        dateRange: DATES,
        breakdownFilter: { breakdown_type: 'cohort', breakdown: [ids.paid, 'all'] },
      });
      expect(r.status).toBe(200);
      expect(r.body.results.map((x: any) => [x.label, x.breakdown_value, x.count])).toEqual([
        ['event_name - paid', ids.paid, 5],
        ['paid - paid', ids.paid, 1],
        ['event_name - all users', 'all', 6],
        ['paid - all users', 'all', 2],
      ]);
    });

    it('funnel with a cohort filter (test_funnel.py): only the cohort’s persons enter', async () => {
      const node = (props: unknown[]) => ({
        kind: 'FunnelsQuery',
        series: [{ kind: 'EventsNode', event: 'event_name' }, { kind: 'EventsNode', event: 'paid' }],
        dateRange: DATES,
        properties: props,
      });
      const all = await query(node([]));
      expect(all.status).toBe(200);
      expect(all.body.results.map((st: any) => st.count)).toEqual([3, 2]);
      const r = await query(node([{ type: 'cohort', key: 'id', value: ids.paid }]));
      expect(r.status).toBe(200);
      expect(r.body.results.map((st: any) => st.count)).toEqual([2, 1]);
    });

    it('retention with a cohort filter (test_retention.py): only the cohort’s persons are counted', async () => {
      const r = await query({
        kind: 'RetentionQuery',
        dateRange: { date_to: '2020-01-05' },
        properties: [{ type: 'cohort', key: 'id', value: ids.paid }],
        retentionFilter: {
          totalIntervals: 3,
          period: 'Day',
          targetEntity: { id: 'event_name', type: 'events' },
          returningEntity: { id: 'event_name', type: 'events' },
        },
      });
      expect(r.status).toBe(200);
      // Jan 3: Jane and Jim (John is not paid); Jane does not come back, Jim returns on Jan 4 and 5
      expect(r.body.results.map((row: any) => row.values.map((v: any) => v.count))).toEqual([
        [2, 1, 1],
        [1, 1, 0],
        [1, 0, 0],
      ]);
    });

    it('stickiness and lifecycle take cohort filters too', async () => {
      const st = await query({ kind: 'StickinessQuery', series: [{ kind: 'EventsNode', event: 'event_name' }], dateRange: DATES, properties: [{ type: 'cohort', key: 'id', value: ids.paid }] });
      expect(st.status).toBe(200);
      // Jane on 2 days, Jim on 3
      expect(st.body.results[0].data.slice(0, 3)).toEqual([0, 1, 1]);
      const lc = await query({ kind: 'LifecycleQuery', series: [{ kind: 'EventsNode', event: 'event_name' }], dateRange: DATES, properties: [{ type: 'cohort', key: 'id', value: ids.john }] });
      expect(lc.status).toBe(200);
      // John is active on one day only: one positive entry over every status
      const active = lc.body.results.filter((x: any) => x.status !== 'dormant').flatMap((x: any) => x.data);
      expect(active.reduce((a: number, b: number) => a + b, 0)).toBe(1);
    });

    it('a static cohort filters by its persons', async () => {
      const persons = (await s.api('GET', `/api/projects/${p}/persons/?distinct_id=person_3`)).body.results;
      expect(persons).toHaveLength(1);
      const id = await cohort(p, { name: 'static', is_static: true, _create_static_person_ids: [persons[0].uuid] });
      const got = await s.api('GET', `/api/projects/${p}/cohorts/${id}/`);
      expect(got.body).toMatchObject({ is_static: true, count: 1, cohort_type: 'static' });
      const r = await trends({ properties: [{ type: 'cohort', key: 'id', value: id }] });
      expect(r.body.results[0].count).toBe(3);
      const none = await trends({ breakdownFilter: { breakdown_type: 'cohort', breakdown: [id] }, properties: [{ type: 'cohort', key: 'id', value: ids.jane }] });
      expect(none.body.results.map((x: any) => x.count)).toEqual([0]);
    });

    it('count is the number of persons in the cohort', async () => {
      const counts = await Promise.all([ids.jane, ids.janeOrJohn, ids.paid, ids.paidNotJane].map(async (id) => (await s.api('GET', `/api/projects/${p}/cohorts/${id}/`)).body.count));
      expect(counts).toEqual([1, 2, 2, 1]);
    });

    it('behavioral cohorts (test_cohort_query.py): filters, breakdowns and counts follow the persons’ events', async () => {
      // paid at least once since 2020 (Jane and John); the legacy form: an event_id group over the last 100 years
      const paid = await cohort(p, {
        name: 'did pay',
        filters: { properties: { type: 'AND', values: [{ type: 'behavioral', key: 'paid', event_type: 'events', value: 'performed_event', explicit_datetime: '2020-01-01' }] } },
      });
      const legacy = await cohort(p, { name: 'did pay (legacy)', groups: [{ event_id: 'paid', days: 36500 }] });
      // event_name three times or more: Jim
      const often = await cohort(p, {
        name: 'often',
        filters: { properties: { type: 'AND', values: [{ type: 'behavioral', key: 'event_name', event_type: 'events', value: 'performed_event_multiple', operator: 'gte', operator_value: 3, time_value: 100, time_interval: 'year' }] } },
      });
      const counts = await Promise.all([paid, legacy, often].map(async (id) => (await s.api('GET', `/api/projects/${p}/cohorts/${id}/`)).body.count));
      expect(counts).toEqual([2, 2, 1]);
      const r = await trends({ properties: [{ type: 'cohort', key: 'id', value: paid }] });
      expect([r.status, r.body.results[0]?.count]).toEqual([200, 3]);
      const b = await trends({ breakdownFilter: { breakdown_type: 'cohort', breakdown: [legacy, often] } });
      expect(b.body.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([
        [legacy, 3],
        [often, 3],
      ]);
      const names = await query({ kind: 'HogQLQuery', query: `SELECT DISTINCT person.properties.name FROM events WHERE person_id NOT IN COHORT ${often} ORDER BY 1` });
      expect(names.body.results).toEqual([['Jane'], ['John']]);
    });

    it('a changed definition is used at once (no stale cached result)', async () => {
      const id = await cohort(p, { name: 'changing', groups: [{ properties: [{ key: 'name', value: 'John' }] }] });
      const before = await trends({ properties: [{ type: 'cohort', key: 'id', value: id }] });
      expect(before.body.results[0].count).toBe(1);
      await s.api('PATCH', `/api/projects/${p}/cohorts/${id}/`, { groups: [{ properties: [{ key: 'name', value: 'Jim' }] }] });
      const after = await trends({ properties: [{ type: 'cohort', key: 'id', value: id }] });
      expect(after.body.results[0].count).toBe(3);
    });

    it.each([
      ['an unknown id', () => 999999],
      ['another project’s cohort', () => ids.otherJane],
    ])('a filter on %s is a 400 and reads nothing', async (_n, id) => {
      const detail = `Could not find cohort with ID ${id()}`;
      const r = await trends({ properties: [{ type: 'cohort', key: 'id', value: id() }] });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ type: 'validation_error', detail });
      const b = await trends({ breakdownFilter: { breakdown_type: 'cohort', breakdown: [id()] } });
      expect(b.status).toBe(400);
      expect(b.body.detail).toBe(detail);
    });

    it('the other project’s own cohort counts only its own persons', async () => {
      const r = await trends({ properties: [{ type: 'cohort', key: 'id', value: ids.otherJane }] });
      expect(r.status).toBe(400);
      const own = await query({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'event_name' }], dateRange: DATES, properties: [{ type: 'cohort', key: 'id', value: ids.otherJane }] }, other);
      expect(own.status).toBe(200);
      expect(own.body.results[0].count).toBe(1);
      expect((await s.api('GET', `/api/projects/${other}/cohorts/${ids.otherJane}/`)).body.count).toBe(1);
    });

    it('funnel cohort breakdowns: one funnel per cohort (a person in two cohorts counts in both)', async () => {
      const r = await query({
        kind: 'FunnelsQuery',
        series: [{ kind: 'EventsNode', event: 'event_name' }, { kind: 'EventsNode', event: 'paid' }],
        dateRange: DATES,
        breakdownFilter: { breakdown_type: 'cohort', breakdown: [ids.jane, ids.paid] },
      });
      expect(r.status).toBe(200);
      const byCohort = Object.fromEntries(r.body.results.map((steps: any[]) => [steps[0].breakdown_value, steps.map((x) => x.count)]));
      expect(byCohort).toEqual({ [ids.jane]: [1, 1], [ids.paid]: [2, 1] });
    });

    it('HogQL IN COHORT over the query API: by id and by name, NOT IN, an edit used at once, other projects unknown', async () => {
      const hogql = (sql: string, project = p) => query({ kind: 'HogQLQuery', query: sql }, project);
      const names = async (sql: string) => {
        const r = await hogql(sql);
        expect([r.status, r.body.detail]).toEqual([200, undefined]);
        return (r.body.results as string[][]).map((row) => row[0]).sort();
      };
      expect(await names(`SELECT DISTINCT person.properties.name FROM events WHERE person_id IN COHORT ${ids.janeOrJohn}`)).toEqual(['Jane', 'John']);
      expect(await names(`SELECT DISTINCT person.properties.name FROM events WHERE person_id IN COHORT 'cohort2'`)).toEqual(['John']);
      expect(await names(`SELECT DISTINCT person.properties.name FROM events WHERE person_id NOT IN COHORT ${ids.paid}`)).toEqual(['John']);
      const made = await cohort(p, { name: 'renamed later', groups: [{ properties: [{ key: 'name', value: 'Jim' }] }] });
      expect(await names(`SELECT DISTINCT person.properties.name FROM events WHERE person_id IN COHORT ${made}`)).toEqual(['Jim']);
      await s.api('PATCH', `/api/projects/${p}/cohorts/${made}/`, { groups: [{ properties: [{ key: 'name', value: 'Jane' }] }] });
      expect(await names(`SELECT DISTINCT person.properties.name FROM events WHERE person_id IN COHORT ${made}`)).toEqual(['Jane']);
      const foreign = await hogql(`SELECT count() FROM events WHERE person_id IN COHORT ${ids.otherJane}`);
      expect([foreign.status, foreign.body.detail]).toEqual([400, `Could not find cohort with ID ${ids.otherJane}`]);
      const byName = await hogql(`SELECT count() FROM events WHERE person_id IN COHORT 'other'`);
      expect([byName.status, byName.body.detail]).toEqual([400, "Could not find a cohort with the name 'other'"]);
    });
  });
}
