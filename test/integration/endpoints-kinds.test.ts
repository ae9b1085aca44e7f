import { INSIGHT_SOURCE_KINDS } from '../../src/insights/insight-query';
import { RUNNERS } from '../../src/queries/runners';
import { startServer, type TestServer } from '../helpers/server';

/**
 * Every registered query kind published as an endpoint and run with its variables. A kind registered in
 * src/queries/runners without a sample below fails here with a message naming it: add a sample.
 */
const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();
const ev = (event: string) => ({ kind: 'EventsNode', event });
const browserBreakdown = { breakdown: '$browser', breakdown_type: 'event' };

/** A sample node per kind, and the magic variables it must offer. */
const SAMPLES: Record<string, { query: Record<string, unknown>; variables: string[] }> = {
  HogQLQuery: {
    query: { kind: 'HogQLQuery', query: 'SELECT event, count() AS c FROM events WHERE properties.$browser = {variables.browser} GROUP BY event ORDER BY event' },
    variables: ['browser'],
  },
  ProductQLQuery: {
    query: { kind: 'ProductQLQuery', query: 'SELECT event, count() AS c FROM events WHERE properties.$browser = {variables.browser} GROUP BY event ORDER BY event' },
    variables: ['browser'],
  },
  TrendsQuery: {
    query: { kind: 'TrendsQuery', series: [ev('$pageview'), ev('signup')], breakdownFilter: browserBreakdown, dateRange: { date_from: '-7d' } },
    variables: ['$browser', 'date_from', 'date_to'],
  },
  StickinessQuery: { query: { kind: 'StickinessQuery', series: [ev('$pageview')], dateRange: { date_from: '-7d' } }, variables: ['date_from', 'date_to'] },
  LifecycleQuery: { query: { kind: 'LifecycleQuery', series: [ev('$pageview')], dateRange: { date_from: '-7d' } }, variables: ['date_from', 'date_to'] },
  FunnelsQuery: {
    query: { kind: 'FunnelsQuery', series: [ev('$pageview'), ev('signup')], breakdownFilter: browserBreakdown, dateRange: { date_from: '-7d' } },
    variables: ['$browser', 'date_from', 'date_to'],
  },
  RetentionQuery: {
    query: {
      kind: 'RetentionQuery',
      retentionFilter: { period: 'Day', totalIntervals: 7, targetEntity: { id: '$pageview', type: 'events' }, returningEntity: { id: '$pageview', type: 'events' } },
      breakdownFilter: browserBreakdown,
      dateRange: { date_from: '-7d' },
    },
    variables: ['$browser', 'date_from', 'date_to'],
  },
  PathsQuery: { query: { kind: 'PathsQuery', pathsFilter: { includeEventTypes: ['$pageview'] }, dateRange: { date_from: '-7d' } }, variables: ['date_from', 'date_to'] },
  // its own after/before, no dateRange: no magic variables
  EventsQuery: { query: { kind: 'EventsQuery', select: ['event', 'count()'], after: '-30d', orderBy: ['event'] }, variables: [] },
  ActorsQuery: {
    query: { kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: { kind: 'TrendsQuery', series: [ev('$pageview')], dateRange: { date_from: '-7d' } } }, select: ['actor', 'event_count'] },
    variables: [],
  },
};

const KINDS = [...new Set(RUNNERS.filter((r) => !r.queryOnly).flatMap((r) => [...r.kinds]))];
const INSIGHT_KINDS: readonly string[] = INSIGHT_SOURCE_KINDS;

describe('endpoints of every registered kind', () => {
  let s: TestServer;
  const P = '/api/projects/1/endpoints';

  beforeAll(async () => {
    s = await startServer();
    const events = [];
    for (let u = 0; u < 6; u++) {
      const browser = u % 2 ? 'Firefox' : 'Chrome';
      for (const d of [3, 2, 1]) {
        events.push({ event: '$pageview', distinct_id: `u${u}`, timestamp: day(d), properties: { $browser: browser, $current_url: `https://x.test/${d}` } });
      }
      if (u < 4) events.push({ event: 'signup', distinct_id: `u${u}`, timestamp: day(1) + '', properties: { $browser: browser } });
    }
    expect(await s.server.services.ingestor.import(1, { events })).toMatchObject({ errors: [] });
    await s.server.services.ingestor.flush();
  });
  afterAll(() => s.close());

  it('a query-only kind (InsightActorsQueryOptions) cannot be published', async () => {
    const query = { kind: 'InsightActorsQueryOptions', source: { kind: 'InsightActorsQuery', source: SAMPLES.TrendsQuery.query } };
    const r = await s.api('POST', `${P}/`, { name: 'k_options', query });
    expect([r.status, r.body.attr]).toEqual([400, 'query__kind']);
  });

  it.each(KINDS)('%s is published, offers its variables, and runs with them', async (kind) => {
    const sample = SAMPLES[kind];
    if (!sample) throw new Error(`No endpoint sample for the registered kind ${kind}: add one to SAMPLES in this file.`);
    const name = `k_${kind}`;
    const isSql = kind === 'HogQLQuery' || kind === 'ProductQLQuery';
    const created = await s.api('POST', `${P}/`, {
      name,
      query: sample.query,
      ...(isSql ? { variables: [{ name: 'browser', type: 'String', default: 'Chrome' }] } : {}),
    });
    expect(created.status).toBe(201);
    expect(created.body.variables.map((v: { name: string }) => v.name).sort()).toEqual([...sample.variables].sort());
    const plain = await s.api('POST', `${P}/${name}/run`, {});
    // columns are computed at creation from the result (insights: the keys of the result objects)
    if (plain.body.results?.length) expect(created.body.columns.length).toBeGreaterThan(0);
    expect(plain.status).toBe(200);
    expect(Object.keys(plain.body)[0]).toBe('results');
    expect(plain.body).toMatchObject({ name, endpoint_version: 1, hasMore: false });
    expect(Array.isArray(plain.body.results)).toBe(true);

    const bad = await s.api('POST', `${P}/${name}/run`, { variables: { nope: 'x' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ attr: 'variables', detail: 'Unknown variable(s): nope' });

    if (sample.variables.includes('date_from')) {
      const old = await s.api('POST', `${P}/${name}/run`, { variables: { date_from: '-30d', date_to: day(20).slice(0, 10) } });
      expect(old.status).toBe(200);
      if (plain.body.results.length) expect(JSON.stringify(old.body.results)).not.toEqual(JSON.stringify(plain.body.results));
      const typed = await s.api('POST', `${P}/${name}/run`, { variables: { date_from: 7 } });
      expect(typed.status).toBe(400);
      expect(typed.body.attr).toBe('variables__date_from');
    }
    if (sample.variables.includes('$browser')) {
      const chrome = await s.api('POST', `${P}/${name}/run`, { variables: { $browser: 'Chrome' } });
      expect(chrome.status).toBe(200);
      const text = JSON.stringify(chrome.body.results);
      expect(text).toContain('Chrome');
      expect(text).not.toContain('Firefox');
    }
    if (isSql) {
      const ff = await s.api('POST', `${P}/${name}/run`, { variables: { browser: 'Firefox' } });
      expect(ff.body.results).toEqual([['$pageview', 9], ['signup', 2]]);
    }

    // paging works for every kind that returns rows; insight kinds refuse it (PostHog pages HogQL endpoints only:
    // posthog-api.md §1.6, 400 attr limit / offset)
    const total = plain.body.results.length;
    if (INSIGHT_KINDS.includes(kind)) {
      const limited = await s.api('POST', `${P}/${name}/run`, { limit: 1 });
      expect([limited.status, limited.body.attr, limited.body.detail]).toEqual([400, 'limit', 'limit is only supported for HogQLQuery endpoints.']);
      const paged = await s.api('POST', `${P}/${name}/run?limit=1&offset=1`, {});
      expect([paged.status, paged.body.attr]).toEqual([400, 'limit']);
    } else if (total >= 2) {
      const p = await s.api('POST', `${P}/${name}/run`, { limit: 1, offset: 1 });
      expect(p.status).toBe(200);
      expect(p.body.results).toHaveLength(1);
      expect(p.body.results[0]).toEqual(plain.body.results[1]);
      expect(p.body.hasMore).toBe(total > 2);
    }

    const spec = await s.api('GET', `${P}/${name}/openapi.json`);
    expect(spec.status).toBe(200);
    // (no Variables schema at all for an endpoint without variables)
    expect(Object.keys(spec.body.components.schemas.Variables?.properties ?? {}).sort()).toEqual([...sample.variables].sort());
    if (!sample.variables.length) expect(spec.body.components.schemas.Variables).toBeUndefined();
  });
});
