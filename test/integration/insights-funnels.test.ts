import { gql, startServer, type TestServer } from '../helpers/server';

let s: TestServer;
const t = (d: number, h: number, m = 0) => new Date(Date.UTC(2024, 0, d, h, m)).toISOString();
beforeAll(async () => {
  s = await startServer();
  const ing = s.server.services.ingestor;
  const r = await ing.import(1, {
    persons: ['a', 'b', 'c'].map((id) => ({ distinct_ids: [id], properties: {} })),
    events: [
      { event: '$pageview', distinct_id: 'a', timestamp: t(2, 10), properties: { $browser: 'Chrome' } },
      { event: 'signup', distinct_id: 'a', timestamp: t(2, 11), properties: {} },
      { event: '$pageview', distinct_id: 'b', timestamp: t(3, 10), properties: { $browser: 'Safari' } },
      { event: 'signup', distinct_id: 'b', timestamp: t(3, 10, 30), properties: {} },
      { event: '$pageview', distinct_id: 'c', timestamp: t(3, 10), properties: {} },
    ],
  });
  expect(r.errors).toEqual([]);
  await ing.flush();
});
afterAll(async () => {
  await s.close();
});

const query = {
  kind: 'FunnelsQuery',
  series: [
    { kind: 'EventsNode', event: '$pageview' },
    { kind: 'EventsNode', event: 'signup' },
  ],
  dateRange: { date_from: '2024-01-01', date_to: '2024-01-10' },
};

describe('FunnelsQuery over HTTP', () => {
  it('steps with counts and conversion times in seconds, in the query envelope', async () => {
    const res = await s.api('POST', '/api/projects/1/query/', { query });
    expect(res.status).toBe(200);
    expect(res.body.results.map((x: any) => [x.name, x.count, x.average_conversion_time, x.median_conversion_time])).toEqual([
      ['$pageview', 3, null, null],
      ['signup', 2, 2700, 2700],
    ]);
    expect(res.body.timezone).toBe('UTC');
    expect(typeof res.body.hogql).toBe('string');
  });

  it('breakdown values are boxed arrays', async () => {
    const res = await s.api('POST', '/api/projects/1/query/', { query: { ...query, breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } } });
    expect(res.status).toBe(200);
    expect(res.body.results.map((steps: any[]) => steps[0].breakdown_value)).toEqual([['Chrome'], ['Safari'], ['']]);
  });

  it('an invalid exclusion range is a 400 naming the attribute', async () => {
    const res = await s.api('POST', '/api/projects/1/query/', {
      query: { ...query, funnelsFilter: { exclusions: [{ kind: 'EventsNode', event: 'x', funnelFromStep: 1, funnelToStep: 1 }] } },
    });
    expect(res.status).toBe(400);
    expect(res.body.attr).toContain('exclusions');
  });

  it('unknown keys are a 400', async () => {
    const res = await s.api('POST', '/api/projects/1/query/', { query: { ...query, funnelsFilter: { bogus: 1 } } });
    expect(res.status).toBe(400);
  });

  it('step math other than first-time is ignored, as PostHog (test_funnel_with_actions)', async () => {
    const res = await s.api('POST', '/api/projects/1/query/', { query: { ...query, series: query.series.map((x) => ({ ...x, math: 'dau' })) } });
    expect(res.status).toBe(200);
    expect(res.body.results.map((x: any) => x.count)).toEqual([3, 2]);
  });
});

describe('FunnelsActorsQuery over HTTP', () => {
  const actors = async (source: Record<string, unknown>) => {
    const res = await s.api('POST', '/api/projects/1/query/', { query: { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: query, ...source }, select: ['actor'] } });
    return { status: res.status, body: res.body, ids: res.status === 200 ? (res.body.results as any[][]).map((r) => r[0].distinct_ids[0]).sort() : [] };
  };
  const trends = { ...query, funnelsFilter: { funnelVizType: 'trends' } };

  it('funnelCustomSteps: actors whose furthest step is in the list', async () => {
    expect((await actors({ funnelCustomSteps: [1] })).ids).toEqual(['c']);
    expect((await actors({ funnelCustomSteps: [1, 2] })).ids).toEqual(['a', 'b', 'c']);
  });

  it('trends: the converted and dropped-off actors of an entrance period', async () => {
    const run = (extra: Record<string, unknown>) => actors({ source: trends, ...extra });
    expect((await run({ funnelTrendsEntrancePeriodStart: '2024-01-03 00:00:00', funnelTrendsDropOff: false })).ids).toEqual(['b']);
    expect((await run({ funnelTrendsEntrancePeriodStart: '2024-01-03 00:00:00', funnelTrendsDropOff: true })).ids).toEqual(['c']);
    const missing = await run({ funnelTrendsDropOff: true });
    expect([missing.status, missing.body.attr]).toEqual([400, 'source__funnelTrendsEntrancePeriodStart']);
  });

  it('a funnel aggregated by a ProductQL expression answers (persons whose id the value is)', async () => {
    const r = await actors({ source: { ...query, funnelsFilter: { funnelAggregateByHogQL: 'person_id' } }, funnelStep: 2 });
    expect(r.ids).toEqual(['a', 'b']);
  });
});

describe('FunnelsQuery over GraphQL', () => {
  it('typed steps match the REST answer', async () => {
    const res = await gql(
      s,
      `query($q: FunnelsQueryInput!) { funnels(projectId: 1, query: $q) { steps { name count average_conversion_time } breakdowns { breakdown_value } timezone } }`,
      { q: { series: [{ event: '$pageview' }, { event: 'signup' }], dateRange: { date_from: '2024-01-01', date_to: '2024-01-10' } } },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.funnels.steps).toEqual([
      { name: '$pageview', count: 3, average_conversion_time: null },
      { name: 'signup', count: 2, average_conversion_time: 2700 },
    ]);
    expect(res.body.data.funnels.breakdowns).toBeNull();
  });

  it('trends and time_to_convert are typed too', async () => {
    const res = await gql(
      s,
      `query($q: FunnelsQueryInput!, $t: FunnelsQueryInput!) {
        tr: funnels(projectId: 1, query: $q) { trends { data days } }
        ttc: funnels(projectId: 1, query: $t) { timeToConvert { bins { bin count } average_conversion_time } } }`,
      {
        q: { series: [{ event: '$pageview' }, { event: 'signup' }], dateRange: { date_from: '2024-01-02', date_to: '2024-01-03' }, funnelsFilter: { funnelVizType: 'trends' } },
        t: { series: [{ event: '$pageview' }, { event: 'signup' }], dateRange: { date_from: '2024-01-01', date_to: '2024-01-10' }, funnelsFilter: { funnelVizType: 'time_to_convert', binCount: 1 } },
      },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.tr.trends).toEqual([{ data: [100, 50], days: ['2024-01-02', '2024-01-03'] }]);
    expect(res.body.data.ttc.timeToConvert).toEqual({ bins: [{ bin: 1800, count: 1 }, { bin: 3600, count: 1 }], average_conversion_time: 2700 });
  });
});

describe('FunnelsQuery cohort breakdowns', () => {
  let cohortId: number;
  beforeAll(async () => {
    const persons = (await s.api('GET', '/api/projects/1/persons/')).body.results;
    const a = persons.find((p: any) => p.distinct_ids.includes('a')).uuid;
    const c = await s.api('POST', '/api/projects/1/cohorts/', { name: 'only a', is_static: true, _create_static_person_ids: [a] });
    expect(c.status).toBe(201);
    cohortId = c.body.id;
  });

  it('by cohort id over HTTP: one funnel per cohort, named by the cohort', async () => {
    const res = await s.api('POST', '/api/projects/1/query/', { query: { ...query, breakdownFilter: { breakdown_type: 'cohort', breakdown: ['all', cohortId] } } });
    expect(res.status).toBe(200);
    const byValue = Object.fromEntries(res.body.results.map((steps: any[]) => [steps[0].breakdown_value, steps.map((x) => x.count)]));
    expect(byValue).toEqual({ 0: [3, 2], [cohortId]: [1, 1] });
  });

  it('a missing cohort id is a 400 naming the breakdown', async () => {
    const res = await s.api('POST', '/api/projects/1/query/', { query: { ...query, breakdownFilter: { breakdown_type: 'cohort', breakdown: [999_999] } } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: 'validation_error', attr: 'breakdownFilter__breakdown' });
  });

  it('over GraphQL: a single breakdown value comes back as a one-item list', async () => {
    const res = await gql(
      s,
      `query($q: FunnelsQueryInput!) { funnels(projectId: 1, query: $q) { breakdowns { breakdown_value steps { count breakdown_value } } } }`,
      { q: { series: [{ event: '$pageview' }, { event: 'signup' }], dateRange: query.dateRange, breakdownFilter: { breakdown_type: 'cohort', breakdown: String(cohortId) } } },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.funnels.breakdowns).toEqual([
      { breakdown_value: [String(cohortId)], steps: [{ count: 1, breakdown_value: [String(cohortId)] }, { count: 1, breakdown_value: [String(cohortId)] }] },
    ]);
  });
});
