/**
 * Cohorts over REST, fourth pass, after PostHog's cohort model tests (ee/clickhouse/models/test/test_cohort.py) and
 * the event filters of posthog/queries/test (test_prop_cohort_*): membership follows the persons as they change
 * (`test_cohortpeople_prop_changed`, `test_cohortpeople_deleted_person`), legacy action/event groups with
 * `count_operator` (`test_cohortpeople_action_count`) and `days` read through the events API
 * (`test_prop_cohort_basic_event_days`, `test_prop_cohort_basic_action_days`), and a legacy group naming another
 * cohort (`test_cohortpeople_with_valid_other_cohort_filter`). Each case has its own project, its persons imported
 * through the real ingest path and its cohorts and actions saved over REST; membership is read back as the cohort's
 * `count`, its persons and `IN COHORT`. cohorts-posthog-compat-3.clickhouse.test.ts runs this file on ClickHouse.
 */
import { quarryOnTestEngine } from '../../test/helpers/clickhouse-quarry';
import type { TestServer } from '../../test/helpers/server';

const server = quarryOnTestEngine('quarry_cohorts_compat_3');

const HOUR = 3600_000;
const DAY = 24 * HOUR;
/** An ISO timestamp `ms` before the real now (PostHog's tests place events relative to `datetime.now()`). */
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

let s: TestServer;
beforeAll(() => {
  s = server();
});

type Seed = { persons?: { distinct_ids: string[]; properties: Record<string, unknown> }[]; events?: { event: string; distinct_id: string; timestamp: string; properties?: Record<string, unknown> }[] };
async function project(name: string, seed: Seed): Promise<number> {
  const r = await s.api('POST', '/api/projects/', { name });
  expect(r.status).toBe(201);
  await s.server.services.ingestor.import(r.body.id, seed);
  await s.server.services.ingestor.flush();
  return r.body.id;
}
async function create(p: number, body: Record<string, unknown>): Promise<number> {
  const r = await s.api('POST', `/api/projects/${p}/cohorts/`, { name: 'c', ...body });
  expect([r.status, r.body?.detail]).toEqual([201, undefined]);
  return r.body.id;
}
/** The cohort as PostHog's cohortpeople would hold it: its count, its persons' distinct ids, and IN COHORT's count. */
async function membership(p: number, id: number): Promise<[number, string[], number]> {
  const count = (await s.api('GET', `/api/projects/${p}/cohorts/${id}/`)).body.count;
  const persons = await s.api('GET', `/api/projects/${p}/cohorts/${id}/persons/`);
  expect(persons.status).toBe(200);
  const q = await s.api('POST', `/api/projects/${p}/query/`, { query: { kind: 'HogQLQuery', query: `select count() from persons where id in cohort ${id}` } });
  expect(q.status).toBe(200);
  return [count, persons.body.results.flatMap((x: { distinct_ids: string[] }) => x.distinct_ids).sort(), Number(q.body.results[0][0])];
}
const uuidOf = async (p: number, distinctId: string): Promise<string> =>
  (await s.api('GET', `/api/projects/${p}/persons/?distinct_id=${encodeURIComponent(distinctId)}`)).body.results[0].uuid;
const SOME_PROP = [{ properties: [{ key: '$some_prop', value: 'something', type: 'person' }] }];

describe('membership follows the persons (ee/clickhouse/models/test/test_cohort.py)', () => {
  it('test_cohortpeople_prop_changed: a person whose property no longer matches leaves the cohort', async () => {
    const p = await project('cohort prop changed', {
      persons: [
        { distinct_ids: ['1'], properties: { $some_prop: 'something', $another_prop: 'something' } },
        { distinct_ids: ['2'], properties: { $some_prop: 'something', $another_prop: 'something' } },
      ],
    });
    const id = await create(p, { groups: SOME_PROP });
    expect(await membership(p, id)).toEqual([2, ['1', '2'], 2]);
    // PostHog: p2.properties = {"$some_prop": "another", ...}; recalculated → only p1
    const r = await s.api('PATCH', `/api/projects/${p}/persons/${await uuidOf(p, '2')}/`, { properties: { $some_prop: 'another' } });
    expect(r.status).toBe(202);
    await s.server.services.ingestor.flush();
    expect(await membership(p, id)).toEqual([1, ['1'], 1]);
  });

  it('test_cohortpeople_deleted_person: a deleted person is no longer in the cohort', async () => {
    const p = await project('cohort deleted person', {
      persons: [
        { distinct_ids: ['1'], properties: { $some_prop: 'something', $another_prop: 'something' } },
        { distinct_ids: ['2'], properties: { $some_prop: 'something', $another_prop: 'something' } },
      ],
    });
    const id = await create(p, { groups: SOME_PROP });
    expect(await membership(p, id)).toEqual([2, ['1', '2'], 2]);
    expect((await s.api('DELETE', `/api/projects/${p}/persons/${await uuidOf(p, '2')}/`)).status).toBe(202);
    await s.server.services.ingestor.flush();
    expect(await membership(p, id)).toEqual([1, ['1'], 1]);
  });

  it('a cohort filter on events: events without a person row (personless, or the person deleted) are in no dynamic cohort (cohortpeople holds persons)', async () => {
    const p = await project('cohort personless events', {
      persons: [
        { distinct_ids: ['1'], properties: { name: 'test' } },
        { distinct_ids: ['2'], properties: { name: 'test' } },
      ],
      events: ['1', '2', 'anon'].map((d, i) => ({ event: '$pageview', distinct_id: d, timestamp: ago((i + 1) * HOUR), properties: d === 'anon' ? { $process_person_profile: false } : {} })),
    });
    const negative = await create(p, { filters: { properties: { type: 'AND', values: [{ type: 'person', key: 'email', operator: 'is_not_set' }] } } });
    const behavioral = await create(p, {
      filters: { properties: { type: 'AND', values: [{ type: 'behavioral', key: '$pageview', event_type: 'events', value: 'performed_event', time_value: 7, time_interval: 'day' }] } },
    });
    expect((await s.api('DELETE', `/api/projects/${p}/persons/${await uuidOf(p, '2')}/?delete_events=false`)).status).toBe(202);
    await s.server.services.ingestor.flush();
    const events = async (id: number, operator: string) => {
      const r = await s.api('POST', `/api/projects/${p}/query/`, { query: { kind: 'EventsQuery', select: ['distinct_id'], properties: [{ type: 'cohort', key: 'id', value: id, operator }] } });
      expect(r.status).toBe(200);
      return (r.body.results as string[][]).map(([d]) => d).sort();
    };
    const hogql = async (id: number) => {
      const r = await s.api('POST', `/api/projects/${p}/query/`, { query: { kind: 'HogQLQuery', query: `select distinct_id from events where person_id in cohort ${id}` } });
      return (r.body.results as string[][]).map(([d]) => d).sort();
    };
    for (const id of [negative, behavioral]) {
      expect(await events(id, 'in')).toEqual(['1']);
      expect(await hogql(id)).toEqual(['1']);
      expect(await events(id, 'not_in')).toEqual(['2', 'anon']);
    }
  });
});

describe('legacy action/event groups (test_cohort.py)', () => {
  it('test_cohortpeople_action_count: count with count_operator gte, lte and eq over the last `days`', async () => {
    const p = await project('cohort action count', {
      persons: [
        { distinct_ids: ['1'], properties: { $some_prop: 'something', $another_prop: 'something' } },
        { distinct_ids: ['2'], properties: { $some_prop: 'something', $another_prop: 'something' } },
        { distinct_ids: ['3'], properties: { $another_prop: 'something' } },
      ],
      events: [
        { event: '$pageview', distinct_id: '1', timestamp: ago(DAY + 12 * HOUR), properties: { attr: 'some_val' } },
        { event: '$pageview', distinct_id: '1', timestamp: ago(12 * HOUR), properties: { attr: 'some_val' } },
        { event: '$pageview', distinct_id: '2', timestamp: ago(DAY + 12 * HOUR), properties: { attr: 'some_val' } },
        { event: '$pageview', distinct_id: '2', timestamp: ago(12 * HOUR), properties: { attr: 'some_val' } },
        { event: '$pageview', distinct_id: '3', timestamp: ago(12 * HOUR), properties: { attr: 'some_val' } },
      ],
    });
    const action = await s.api('POST', `/api/projects/${p}/actions/`, { name: '$pageview', steps: [{ event: '$pageview' }] });
    expect(action.status).toBe(201);
    const cohort = (count: number, count_operator: string) => create(p, { groups: [{ action_id: action.body.id, days: 3, count, count_operator }] });
    expect(await membership(p, await cohort(2, 'gte'))).toEqual([2, ['1', '2'], 2]);
    expect(await membership(p, await cohort(1, 'lte'))).toEqual([1, ['3'], 1]);
    expect(await membership(p, await cohort(1, 'eq'))).toEqual([1, ['3'], 1]);
    // the legacy UI stored days and count as text (Cohort.properties: int(count), time_value=days)
    expect(await membership(p, await create(p, { groups: [{ action_id: action.body.id, days: '3', count: '2', count_operator: 'gte' }] }))).toEqual([2, ['1', '2'], 2]);
    // a count of 0 is no count: performed_event, whatever the operator
    expect(await membership(p, await create(p, { groups: [{ action_id: action.body.id, days: 3, count: 0, count_operator: 'lte' }] }))).toEqual([3, ['1', '2', '3'], 3]);
  });

  describe('test_prop_cohort_basic_event_days / test_prop_cohort_basic_action_days: a cohort filter on the events API', () => {
    let p: number;
    let action: number;
    beforeAll(async () => {
      p = await project('cohort event days', {
        persons: [
          { distinct_ids: ['some_other_id'], properties: { $some_prop: 'something' } },
          { distinct_ids: ['some_id'], properties: { $another_prop: 'something' } },
        ],
        events: [
          { event: '$pageview', distinct_id: 'some_id', timestamp: ago(12 * HOUR), properties: { attr: 'some_val' } },
          { event: '$pageview', distinct_id: 'some_other_id', timestamp: ago(4 * DAY + 12 * HOUR), properties: { attr: 'some_val' } },
        ],
      });
      action = (await s.api('POST', `/api/projects/${p}/actions/`, { name: '$pageview', steps: [{ event: '$pageview' }] })).body.id;
    });
    const eventsOf = async (cohort: number): Promise<string[]> => {
      const r = await s.api('GET', `/api/projects/${p}/events/?properties=${encodeURIComponent(JSON.stringify([{ key: 'id', value: cohort, type: 'cohort' }]))}`);
      expect(r.status).toBe(200);
      return r.body.results.map((e: { distinct_id: string }) => e.distinct_id);
    };

    it.each([
      ['event_id', () => '$pageview'],
      ['action_id', () => action],
    ])('%s: days 1 keeps the recent person’s event, days 7 both', async (key, value) => {
      expect(await eventsOf(await create(p, { groups: [{ [key]: value(), days: 1 }] }))).toEqual(['some_id']);
      expect(await eventsOf(await create(p, { groups: [{ [key]: value(), days: 7 }] }))).toEqual(['some_id', 'some_other_id']);
    });
  });
});

describe('test_prop_cohort_basic / test_prop_cohort_multiple_groups / test_prop_cohort_with_negation (ee models test_cohort.py): a cohort filter on the events API', () => {
  const eventsOf = async (p: number, cohort: number): Promise<string[]> => {
    const r = await s.api('GET', `/api/projects/${p}/events/?properties=${encodeURIComponent(JSON.stringify([{ key: 'id', value: cohort, type: 'cohort' }]))}`);
    expect(r.status).toBe(200);
    return r.body.results.map((e: { distinct_id: string }) => e.distinct_id).sort();
  };
  const EVENTS = ['some_id', 'some_other_id'].map((d) => ({ event: '$pageview', distinct_id: d, timestamp: ago(HOUR), properties: { attr: 'some_val' } }));

  it('test_prop_cohort_basic: an old-style dict of properties, ANDed: one person’s event', async () => {
    const p = await project('prop cohort basic', {
      persons: [
        { distinct_ids: ['some_other_id'], properties: { $some_prop: 'something' } },
        { distinct_ids: ['some_id'], properties: { $some_prop: 'something', $another_prop: 'something' } },
        { distinct_ids: ['no_match'], properties: {} },
      ],
      events: EVENTS,
    });
    expect(await eventsOf(p, await create(p, { groups: [{ properties: { $some_prop: 'something', $another_prop: 'something' } }] }))).toEqual(['some_id']);
  });

  it('test_prop_cohort_multiple_groups: groups ORed: both persons’ events', async () => {
    const p = await project('prop cohort multiple groups', {
      persons: [
        { distinct_ids: ['some_other_id'], properties: { $some_prop: 'something' } },
        { distinct_ids: ['some_id'], properties: { $another_prop: 'something' } },
      ],
      events: EVENTS,
    });
    expect(await eventsOf(p, await create(p, { groups: [{ properties: { $some_prop: 'something' } }, { properties: { $another_prop: 'something' } }] }))).toEqual(['some_id', 'some_other_id']);
  });

  it('test_prop_cohort_with_negation: is_not over a project whose only person has the value: no events (the other project’s person never counts)', async () => {
    const p = await project('prop cohort negation', { persons: [{ distinct_ids: ['some_other_id'], properties: { $some_prop: 'something' } }], events: [EVENTS[1]] });
    await project('prop cohort negation, team2', { persons: [{ distinct_ids: ['some_id'], properties: { $another_prop: 'something' } }], events: [EVENTS[0]] });
    expect(await eventsOf(p, await create(p, { groups: [{ properties: [{ type: 'person', key: '$some_prop', operator: 'is_not', value: 'something' }] }] }))).toEqual([]);
  });
});

describe('cohorts in legacy groups (test_cohort.py)', () => {
  it('test_cohortpeople_with_valid_other_cohort_filter: a group naming another cohort holds its persons', async () => {
    const p = await project('cohort in legacy group', {
      persons: [
        { distinct_ids: ['1'], properties: { foo: 'bar' } },
        { distinct_ids: ['2'], properties: { foo: 'non' } },
      ],
    });
    const cohort0 = await create(p, { groups: [{ properties: [{ key: 'foo', value: 'bar', type: 'person' }] }] });
    const cohort1 = await create(p, { groups: [{ properties: [{ key: 'id', type: 'cohort', value: cohort0 }] }] });
    expect(await membership(p, cohort1)).toEqual([1, ['1'], 1]);
  });
});

describe('cohorts inside cohorts with behavioral criteria (test_cohort_query.py)', () => {
  let p: number;
  let statik: number;
  let named: number;
  const performed = (event: string) => ({ key: event, event_type: 'events', time_value: 1, time_interval: 'week', value: 'performed_event', type: 'behavioral' });
  const cohortRef = (id: number) => ({ key: 'id', value: id, type: 'cohort' });
  const props = (type: 'AND' | 'OR', ...values: unknown[]) => ({ properties: { type, values } });
  beforeAll(async () => {
    // p1, p2: name test; p3: name other. p2 and p3 viewed a page 12 hours ago; p4 had a $new_view; p1 did nothing.
    p = await project('cohorts in cohorts with behavior', {
      persons: [
        { distinct_ids: ['p1'], properties: { name: 'test', email: 'test@posthog.com' } },
        { distinct_ids: ['p2'], properties: { name: 'test', email: 'test@posthog.com' } },
        { distinct_ids: ['p3'], properties: { name: 'other' } },
        { distinct_ids: ['p4'], properties: { name: 'other' } },
      ],
      events: [
        { event: '$pageview', distinct_id: 'p2', timestamp: ago(12 * HOUR) },
        { event: '$pageview', distinct_id: 'p3', timestamp: ago(12 * HOUR) },
        { event: '$new_view', distinct_id: 'p4', timestamp: ago(12 * HOUR) },
        { event: '$pageview', distinct_id: 'p4', timestamp: ago(12 * HOUR) },
      ],
    });
    const uuids = [await uuidOf(p, 'p1'), await uuidOf(p, 'p2')];
    statik = await create(p, { name: 'static', is_static: true, _create_static_person_ids: uuids });
    named = await create(p, { name: 'named test', groups: [{ properties: [{ key: 'name', value: 'test', type: 'person' }] }] });
  });

  it.each([
    ['test_static_cohort_filter_with_extra: AND', 'static', 'AND', ['p2']],
    ['test_static_cohort_filter_with_extra: OR', 'static', 'OR', ['p1', 'p2', 'p3', 'p4']],
    ['test_cohort_filter_with_extra: AND', 'named', 'AND', ['p2']],
    ['test_cohort_filter_with_extra: OR', 'named', 'OR', ['p1', 'p2', 'p3', 'p4']],
  ])('%s (a cohort and performed_event $pageview)', async (_n, which, type, want) => {
    const id = await create(p, { filters: props(type as 'AND' | 'OR', cohortRef(which === 'static' ? statik : named), performed('$pageview')) });
    const [count, members, inCohort] = await membership(p, id);
    expect([count, members, inCohort]).toEqual([want.length, want, want.length]);
  });

  it('test_unwrapping_static_cohort_filter_hidden_in_layers_of_cohorts: a static cohort two layers down', async () => {
    // the static cohort (p1, p2) or a $new_view (p4), and then a $pageview (p2, p3, p4)
    const middle = await create(p, { filters: props('OR', cohortRef(statik), performed('$new_view')) });
    const outer = await create(p, { filters: props('AND', cohortRef(middle), performed('$pageview')) });
    expect(await membership(p, outer)).toEqual([2, ['p2', 'p4'], 2]);
    const negated = await create(p, { filters: props('AND', performed('$pageview'), { ...cohortRef(middle), negation: true }) });
    expect(await membership(p, negated)).toEqual([1, ['p3'], 1]);
  });
});

describe('person property criteria, every operator (test_cohort_query.py: person properties)', () => {
  let p: number;
  beforeAll(async () => {
    p = await project('cohort person operators', {
      persons: [
        { distinct_ids: ['a'], properties: { email: 'a@posthog.com', age: 30, signed_up: '2024-01-10' } },
        { distinct_ids: ['b'], properties: { email: 'b@gmail.com', age: 20, signed_up: '2024-03-01' } },
        { distinct_ids: ['c'], properties: { email: 'c@posthog.com', age: 25 } },
        { distinct_ids: ['d'], properties: {} },
      ],
    });
  });

  it.each([
    ['exact', { key: 'email', value: 'b@gmail.com' }, ['b']],
    ['exact with a list: any of them', { key: 'email', value: ['a@posthog.com', 'b@gmail.com'] }, ['a', 'b']],
    // PostHog's `!=` and NOT ILIKE are true where the property is missing
    ['is_not (a person without it matches)', { key: 'email', operator: 'is_not', value: 'b@gmail.com' }, ['a', 'c', 'd']],
    ['icontains', { key: 'email', operator: 'icontains', value: 'POSTHOG' }, ['a', 'c']],
    ['not_icontains (a person without it matches)', { key: 'email', operator: 'not_icontains', value: 'posthog' }, ['b', 'd']],
    ['regex', { key: 'email', operator: 'regex', value: '^[ab]@' }, ['a', 'b']],
    ['gt', { key: 'age', operator: 'gt', value: 20 }, ['a', 'c']],
    ['gte', { key: 'age', operator: 'gte', value: 25 }, ['a', 'c']],
    ['lt', { key: 'age', operator: 'lt', value: 25 }, ['b']],
    ['lte', { key: 'age', operator: 'lte', value: 25 }, ['b', 'c']],
    ['is_set', { key: 'age', operator: 'is_set', value: 'is_set' }, ['a', 'b', 'c']],
    ['is_not_set', { key: 'age', operator: 'is_not_set', value: 'is_not_set' }, ['d']],
    ['is_date_before', { key: 'signed_up', operator: 'is_date_before', value: '2024-02-01' }, ['a']],
    ['is_date_after', { key: 'signed_up', operator: 'is_date_after', value: '2024-02-01' }, ['b']],
  ])('%s', async (_n, criterion, want) => {
    const id = await create(p, { filters: { properties: { type: 'AND', values: [{ type: 'person', ...criterion }] } } });
    expect(await membership(p, id)).toEqual([want.length, want, want.length]);
  });
});
