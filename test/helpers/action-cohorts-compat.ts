/**
 * Cohort filters inside saved actions' steps, after PostHog's test_trends.py `test_action_filtering_with_cohort` (an
 * action whose step carries `{key: 'id', type: 'cohort', value}` counts only the cohort's persons' events), through
 * the real server for one engine: the action saved over REST, the query over REST. Used by action-cohorts.test.ts
 * (DuckDB) and action-cohorts.clickhouse.test.ts (ClickHouse): same cases, same expected answers.
 */
import type { TestServer } from './server';

const DATES = { date_from: '2020-01-01', date_to: '2020-01-04' };

export function describeActionCohortsCompat(engine: string, server: () => TestServer): void {
  describe(`cohort filters in action steps on ${engine}`, () => {
    let s: TestServer;
    let p: number;
    let other: number;
    const ids: Record<string, number> = {};

    const create = async (project: number, kind: 'cohorts' | 'actions', body: Record<string, unknown>): Promise<number> => {
      const r = await s.api('POST', `/api/projects/${project}/${kind}/`, body);
      expect(r.status).toBe(201);
      return r.body.id;
    };
    const query = (node: Record<string, unknown>, project = p) => s.api('POST', `/api/projects/${project}/query/`, { query: node });
    const A = (id: number) => ({ kind: 'ActionsNode', id });
    const trends = (series: unknown[], extra: Record<string, unknown> = {}, project = p) =>
      query({ kind: 'TrendsQuery', series, dateRange: DATES, interval: 'day', ...extra }, project);
    const cohortStep = (cohort: number, extra: Record<string, unknown> = {}) => ({ event: '$pageview', properties: [{ key: 'id', type: 'cohort', value: cohort, ...extra }] });

    beforeAll(async () => {
      s = server();
      p = (await s.api('POST', '/api/projects/', { name: `action cohorts ${engine}` })).body.id;
      other = (await s.api('POST', '/api/projects/', { name: `action cohorts other ${engine}` })).body.id;
      const at = (d: number) => `2020-01-0${d}T12:00:00Z`;
      await s.server.services.ingestor.import(p, {
        persons: [
          { distinct_ids: ['xyz'], properties: { $some_prop: 'some_val' } },
          { distinct_ids: ['abc'], properties: { $some_prop: 'other_val' } },
          { distinct_ids: ['st'], properties: {} },
        ],
        events: [
          { event: '$pageview', distinct_id: 'xyz', timestamp: at(2), properties: {} },
          { event: '$pageview', distinct_id: 'xyz', timestamp: at(2), properties: {} },
          { event: '$pageview', distinct_id: 'xyz', timestamp: at(3), properties: {} },
          { event: '$pageview', distinct_id: 'abc', timestamp: at(2), properties: {} },
          { event: '$pageview', distinct_id: 'st', timestamp: at(3), properties: {} },
          { event: 'signed up', distinct_id: 'xyz', timestamp: at(3), properties: {} },
          { event: 'signed up', distinct_id: 'abc', timestamp: at(3), properties: {} },
        ],
      });
      await s.server.services.ingestor.import(other, {
        persons: [{ distinct_ids: ['xyz'], properties: { $some_prop: 'some_val' } }],
        events: [{ event: '$pageview', distinct_id: 'xyz', timestamp: at(2), properties: {} }],
      });
      await s.server.services.ingestor.flush();
      const st = (await s.api('GET', `/api/projects/${p}/persons/?distinct_id=st`)).body.results[0].uuid;
      ids.someVal = await create(p, 'cohorts', { name: 'cohort1', groups: [{ properties: [{ key: '$some_prop', value: 'some_val', type: 'person' }] }] });
      ids.static = await create(p, 'cohorts', { name: 'static', is_static: true, _create_static_person_ids: [st] });
      ids.otherCohort = await create(other, 'cohorts', { name: 'other', groups: [{ properties: [{ key: '$some_prop', value: 'some_val', type: 'person' }] }] });
      ids.dynamicAction = await create(p, 'actions', { name: 'action1', steps: [cohortStep(ids.someVal)] });
      ids.staticAction = await create(p, 'actions', { name: 'static action', steps: [cohortStep(ids.static)] });
      ids.notInAction = await create(p, 'actions', { name: 'not in cohort1', steps: [cohortStep(ids.someVal, { operator: 'not_in' })] });
      // two steps: pageviews of cohort1, or any sign up
      ids.twoSteps = await create(p, 'actions', { name: 'two steps', steps: [cohortStep(ids.someVal), { event: 'signed up' }] });
      ids.foreignAction = await create(p, 'actions', { name: 'foreign cohort', steps: [cohortStep(ids.otherCohort)] });
      ids.otherProjectAction = await create(other, 'actions', { name: 'other project', steps: [cohortStep(ids.otherCohort)] });
    });

    it('test_action_filtering_with_cohort: the action counts only the events of the cohort’s persons', async () => {
      const r = await trends([A(ids.dynamicAction)]);
      expect(r.status).toBe(200);
      expect(r.body.results[0]).toMatchObject({ label: 'action1', count: 3, data: [0, 2, 1, 0] });
    });

    it.each([
      ['a static cohort', () => ids.staticAction, [0, 0, 1, 0]],
      ['not_in', () => ids.notInAction, [0, 1, 1, 0]],
      ['one step of two', () => ids.twoSteps, [0, 2, 3, 0]],
    ])('%s in a step', async (_n, action, data) => {
      const r = await trends([A(action())]);
      expect(r.status).toBe(200);
      expect(r.body.results[0].data).toEqual(data);
    });

    it('an action with a cohort step, next to a cohort filter of the query and a cohort breakdown', async () => {
      const filtered = await trends([A(ids.twoSteps)], { properties: [{ type: 'cohort', key: 'id', value: ids.someVal, operator: 'not_in' }] });
      expect(filtered.status).toBe(200);
      expect(filtered.body.results[0].data).toEqual([0, 0, 1, 0]); // abc's sign up
      const broken = await trends([A(ids.dynamicAction)], { breakdownFilter: { breakdown_type: 'cohort', breakdown: [ids.static, 'all'] } });
      expect(broken.status).toBe(200);
      expect(broken.body.results.map((x: any) => [x.label, x.count])).toEqual([
        ['action1 - static', 0],
        ['action1 - all users', 3],
      ]);
    });

    it('funnels, stickiness, lifecycle and retention read the cohort step too', async () => {
      const f = await query({ kind: 'FunnelsQuery', series: [A(ids.dynamicAction), { kind: 'EventsNode', event: 'signed up' }], dateRange: DATES });
      expect(f.status).toBe(200);
      expect(f.body.results.map((x: any) => x.count)).toEqual([1, 1]);
      const st = await query({ kind: 'StickinessQuery', series: [A(ids.dynamicAction)], dateRange: DATES });
      expect(st.status).toBe(200);
      expect(st.body.results[0].data.slice(0, 3)).toEqual([0, 1, 0]); // xyz on 2 days
      const r = await query({
        kind: 'RetentionQuery',
        dateRange: { date_to: '2020-01-04' },
        retentionFilter: { totalIntervals: 3, period: 'Day', targetEntity: { id: ids.dynamicAction, type: 'actions' }, returningEntity: { id: ids.dynamicAction, type: 'actions' } },
      });
      expect(r.status).toBe(200);
      expect(r.body.results[0].values.map((v: any) => v.count)).toEqual([1, 1, 0]); // Jan 2: xyz, back on Jan 3
      const lc = await query({ kind: 'LifecycleQuery', series: [A(ids.staticAction)], dateRange: DATES });
      expect(lc.status).toBe(200);
      const active = lc.body.results.filter((x: any) => x.status !== 'dormant').flatMap((x: any) => x.data);
      expect(active.reduce((a: number, b: number) => a + b, 0)).toBe(1);
    });

    it('a step naming another project’s cohort is a 400 and reads nothing; that project’s own action works there', async () => {
      const r = await trends([A(ids.foreignAction)]);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ type: 'validation_error', detail: `Could not find cohort with ID ${ids.otherCohort}` });
      const own = await trends([A(ids.otherProjectAction)], {}, other);
      expect(own.status).toBe(200);
      expect(own.body.results[0].count).toBe(1);
    });
  });
}
