/**
 * Cohorts, fifth pass: behavioral and nested definitions after PostHog's ee/clickhouse/queries/test/test_cohort_query.py
 * (`test_basic_query`, `test_person_properties_with_pushdowns`, `test_performed_event_sequence_and_clause_with_additional_event`,
 * `test_cohort_filter_with_another_cohort_with_event_sequence`) and ee/clickhouse/models/test/test_cohort.py
 * (`test_query_with_multiple_new_style_cohorts`, `test_cohortpeople_with_not_in_cohort_operator_and_no_precalculation`,
 * `test_cohortpeople_with_nonexistent_other_cohort_filter`, `test_cohortpeople_with_cyclic_cohort_filter`), and
 * posthog/hogql/functions/cohort.py's lookup of a cohort by name. Events are placed relative to the real "now" as
 * PostHog's tests place them; membership is read through the query API (`SELECT id FROM persons WHERE id IN COHORT n`)
 * and the cohort API (`count`, `persons/`) on data from the real ingest path, with cohorts and actions saved in the
 * server's metadata store.
 *
 * One project holds every case's persons, each PostHog test's persons prefixed by the case (`bq_p1`…); a case reads
 * back only its own persons. cohorts-posthog-compat-5.clickhouse.test.ts runs this file on ClickHouse.
 */
import { quarryOnTestEngine } from '../../test/helpers/clickhouse-quarry';
import type { TestServer } from '../../test/helpers/server';
import { Cohort } from '../store/entities/cohort';
import { cohortGroup } from './cohort-definition';
import { CasePersons, DAY, HOUR, WEEK, behavioral, cohortRef, props, saveActionRow, saveCohortRow, sequence } from './testing';

const server = quarryOnTestEngine('quarry_cohorts_compat_5');

const FEEDBACK = 'https://posthog.com/feedback/123';

const cases = new CasePersons('e');
const { person, event, eventSequence } = cases;

// test_basic_query: p1 meets everything; p2's first action is too old; p3's email is not the one
person('bq_p1');
event('bq_p1', '$autocapture', 2 * DAY, { $current_url: FEEDBACK });
event('bq_p1', '$pageview', 12 * HOUR);
person('bq_p2');
event('bq_p2', '$autocapture', 3 * WEEK, { $current_url: FEEDBACK });
event('bq_p2', '$pageview', 12 * HOUR);
person('bq_p3', { name: 'test', email: 'testXX@posthog.com' });
event('bq_p3', '$autocapture', 2 * DAY, { $current_url: FEEDBACK });
event('bq_p3', '$pageview', 12 * HOUR);
// test_person_properties_with_pushdowns, test_query_with_multiple_new_style_cohorts: p3 has no $pageview, but is "special"
person('pd_p1');
event('pd_p1', '$autocapture', 2 * DAY, { $current_url: FEEDBACK });
event('pd_p1', '$pageview', 12 * HOUR);
person('pd_p2');
event('pd_p2', '$autocapture', 3 * WEEK, { $current_url: FEEDBACK });
event('pd_p2', '$pageview', 12 * HOUR);
person('pd_p3', { name: 'special', email: 'test@posthog.com' });
event('pd_p3', '$autocapture', 2 * DAY, { $current_url: FEEDBACK });
// test_performed_event_sequence_and_clause_with_additional_event
person('se_p1');
eventSequence('se_p1', 2, [1, 1]);
person('se_p2');
event('se_p2', '$new_view', 3 * DAY);
person('se_p3'); // one $pageview (no sequence), a $new_view before the week
event('se_p3', '$pageview', 2 * DAY);
event('se_p3', '$new_view', 10 * DAY);
// test_cohort_filter_with_another_cohort_with_event_sequence
person('cc_p1');
eventSequence('cc_p1', 2, [1, 1]);
eventSequence('cc_p1', 2, [1, 1], '$new_view');
person('cc_p2'); // the $pageview sequence only
eventSequence('cc_p2', 2, [1, 1]);
person('cc_p3', { name: 'test22', email: 'test22@posthog.com' }); // both sequences, another name
eventSequence('cc_p3', 2, [1, 1]);
eventSequence('cc_p3', 2, [1, 1], '$new_view');
person('cc_p4'); // the $new_view sequence only
eventSequence('cc_p4', 2, [1, 1], '$new_view');
// test_cohortpeople_with_not_in_cohort_operator_and_no_precalculation
person('ni_1', { $some_prop: 'something1' });
event('ni_1', '$pageview', 10 * DAY, { attr: 'some_val' });
person('ni_2', { $some_prop: 'something2' });
event('ni_2', '$pageview', 20 * DAY, { attr: 'some_val' });
// test_cohortpeople_with_nonexistent_other_cohort_filter, test_cohortpeople_with_cyclic_cohort_filter
person('nx_1', { foo: 'bar' });
person('nx_2', { foo: 'non' });
// cohorts in insights: rt_view events on the days before today (rt_p3 also did rt_signup ten days ago)
person('rt_p1', { plan: 'pro' });
event('rt_p1', 'rt_view', 3 * DAY);
event('rt_p1', 'rt_view', 2 * DAY);
person('rt_p2', { plan: 'free' });
event('rt_p2', 'rt_view', 3 * DAY);
event('rt_p2', 'rt_view', 1 * DAY);
person('rt_p3', { plan: 'pro' });
event('rt_p3', 'rt_view', 2 * DAY);
event('rt_p3', 'rt_signup', 10 * DAY);


let s: TestServer;
let pid: number;
let action1: number;

const saveCohort = (c: Partial<Cohort>) => saveCohortRow(s.server.services.store, pid, c);
const emailIs = { key: 'email', value: 'test@posthog.com', type: 'person' };

async function hogql(query: string): Promise<unknown[][]> {
  const r = await s.api('POST', `/api/projects/${pid}/query/`, { query: { kind: 'HogQLQuery', query }, refresh: 'force_blocking' });
  expect([r.status, r.body.detail]).toEqual([200, undefined]);
  return r.body.results;
}
const members = (id: number, prefix: string) => cases.members(s, pid, id, prefix);
const cohortOf = async (f: ReturnType<typeof props>, prefix: string) => members(await saveCohort({ filters: f }), prefix);

beforeAll(async () => {
  s = server();
  pid = await cases.load(s, 'cohorts compat 5');
  action1 = await saveActionRow(s.server.services.store, pid, 'action1', [{ event: '$autocapture', url: FEEDBACK, url_matching: 'exact' }]);
});

describe('person properties and behavioral criteria together (test_cohort_query.py)', () => {
  /** The OR group of these tests: a $pageview in the last day or the last two weeks. */
  const pageviewed = () => [
    behavioral('performed_event', '$pageview', { time_value: 1, time_interval: 'day' }),
    behavioral('performed_event', '$pageview', { time_value: 2, time_interval: 'week' }),
  ];
  /** The AND group: the first action1 ever in the last two weeks, and the email. */
  const firstAction = () => ({ type: 'AND', values: [behavioral('performed_event_first_time', action1, { time_value: 2, time_interval: 'week' }), emailIs] });

  it('test_basic_query: an OR of $pageview windows AND (the first action in two weeks AND a person property)', async () => {
    expect(await cohortOf(props('AND', { type: 'OR', values: pageviewed() }, firstAction()), 'bq')).toEqual(['bq_p1']);
  });

  it('test_person_properties_with_pushdowns: a person property inside the OR group lets a person without $pageview in', async () => {
    const f = props('AND', { type: 'OR', values: [...pageviewed(), { key: 'name', value: 'special', type: 'person' }] }, firstAction());
    expect(await cohortOf(f, 'pd')).toEqual(['pd_p1', 'pd_p3']);
  });

  it('test_query_with_multiple_new_style_cohorts (test_cohort.py): the AND group as a cohort of its own', async () => {
    const cohort2 = await saveCohort({ name: 'cohort2', filters: props('AND', ...firstAction().values) });
    const f = props('AND', { type: 'OR', values: [...pageviewed(), { key: 'name', value: 'special', type: 'person' }] }, { type: 'AND', values: [cohortRef(cohort2)] });
    const cohort1 = await saveCohort({ name: 'cohort1', filters: f });
    expect(await members(cohort1, 'pd')).toEqual(['pd_p1', 'pd_p3']);
    expect(await members(cohort2, 'pd')).toEqual(['pd_p1', 'pd_p3']);
  });
});

describe('sequences with other criteria (test_cohort_query.py)', () => {
  it('test_performed_event_sequence_and_clause_with_additional_event: a sequence ORed with performed_event_multiple of another event', async () => {
    const newView = behavioral('performed_event_multiple', '$new_view', { operator: 'gte', operator_value: 1, time_value: 1, time_interval: 'week' });
    expect(await cohortOf(props('OR', sequence('$pageview'), newView), 'se')).toEqual(['se_p1', 'se_p2']);
  });

  it('test_cohort_filter_with_another_cohort_with_event_sequence: a cohort with a sequence inside a cohort with another', async () => {
    const inner = await saveCohort({ name: 'cohortCeption', filters: props('AND', { key: 'name', value: 'test', type: 'person' }, sequence('$pageview')) });
    expect(await members(inner, 'cc')).toEqual(['cc_p1', 'cc_p2']);
    expect(await cohortOf(props('AND', cohortRef(inner), sequence('$new_view')), 'cc')).toEqual(['cc_p1']);
  });
});

describe('cohorts inside cohorts (ee/clickhouse/models/test/test_cohort.py)', () => {
  it('test_cohortpeople_with_not_in_cohort_operator_and_no_precalculation: events filtered by the cohort are only person 2’s', async () => {
    const cohort0 = await saveCohort({ name: 'cohort0', groups: [{ properties: [{ key: '$some_prop', value: 'something1', type: 'person' }] }] });
    const cohort1 = await saveCohort({
      name: 'cohort1',
      filters: props('AND', behavioral('performed_event', '$pageview', { negation: false, time_interval: 'year', time_value: 2 }), cohortRef(cohort0, { negation: true })),
    });
    expect(await hogql(`SELECT distinct_id FROM events WHERE person_id IN COHORT ${cohort1} AND distinct_id IN ('ni_1', 'ni_2')`)).toEqual([['ni_2']]);
    // the same filter as an insight's cohort property
    const r = await s.api('POST', `/api/projects/${pid}/query/`, {
      query: { kind: 'EventsQuery', select: ['distinct_id'], after: '-30d', where: ["distinct_id IN ('ni_1', 'ni_2')"], properties: [{ key: 'id', value: cohort1, type: 'cohort' }] },
    });
    expect([r.status, r.body.results]).toEqual([200, [['ni_2']]]);
  });

  describe('a cohort naming a cohort that cannot be evaluated holds nobody through it (PostHog: “If cohort doesn’t exist, nothing can match”)', () => {
    const cohortApi = (id: number, rest = '') => s.api('GET', `/api/projects/${pid}/cohorts/${id}/${rest}`);

    it('test_cohortpeople_with_nonexistent_other_cohort_filter: a group naming a cohort that does not exist', async () => {
      const cohort1 = await saveCohort({ name: 'cohort1', groups: [{ properties: [{ key: 'id', type: 'cohort', value: 99_999_999 }] }] });
      expect(await members(cohort1, 'nx')).toEqual([]);
      const got = await cohortApi(cohort1);
      expect([got.status, got.body.count]).toEqual([200, 0]);
      const persons = await cohortApi(cohort1, 'persons/');
      expect([persons.status, persons.body.results]).toEqual([200, []]);
      // ORed with a criterion that does hold, that criterion's persons are in
      const either = await saveCohort({ filters: props('OR', cohortRef(99_999_999), { key: 'foo', value: 'bar', type: 'person' }) });
      expect(await members(either, 'nx')).toEqual(['nx_1']);
      // the list (newest first) still answers, each cohort with its count
      const list = await s.api('GET', `/api/projects/${pid}/cohorts/?limit=2`);
      expect(list.status).toBe(200);
      expect(list.body.results.find((c: { id: number }) => c.id === cohort1).count).toBe(0);
    });

    it('test_cohortpeople_with_cyclic_cohort_filter: a cohort made to refer to itself holds nobody', async () => {
      const cohort1 = await saveCohort({ name: 'cohort1', groups: [{ properties: [{ key: 'foo', value: 'bar', type: 'person' }] }] });
      expect(await members(cohort1, 'nx')).toEqual(['nx_1']);
      await s.server.services.store.db.getRepository(Cohort).update({ id: cohort1 }, { groups: [{ properties: [{ key: 'id', type: 'cohort', value: cohort1 }] }] });
      expect(await members(cohort1, 'nx')).toEqual([]);
      expect((await cohortApi(cohort1)).body.count).toBe(0);
    });
  });
});

describe('IN COHORT by name (posthog/hogql/functions/cohort.py)', () => {
  it('the name is matched exactly: another case is no cohort of that name', async () => {
    const named = await saveCohort({ name: 'Cohort By Name', groups: [{ properties: [{ key: 'foo', value: 'bar', type: 'person' }] }] });
    expect(await members(named, 'nx')).toEqual(['nx_1']);
    expect(await hogql("SELECT count() FROM persons WHERE id IN COHORT 'Cohort By Name' AND properties.foo IS NOT NULL")).toEqual([[1]]);
    const r = await s.api('POST', `/api/projects/${pid}/query/`, { query: { kind: 'HogQLQuery', query: "SELECT count() FROM persons WHERE id IN COHORT 'cohort by name'" } });
    expect([r.status, r.body.detail]).toEqual([400, "Could not find a cohort with the name 'cohort by name'"]);
  });

  it('a quoted id is a name (cohort() looks strings up by name only)', async () => {
    const id = await saveCohort({ name: 'by id only', groups: [{ properties: [{ key: 'foo', value: 'bar', type: 'person' }] }] });
    const r = await s.api('POST', `/api/projects/${pid}/query/`, { query: { kind: 'HogQLQuery', query: `SELECT count() FROM persons WHERE id IN COHORT '${id}'` } });
    expect([r.status, r.body.detail]).toEqual([400, `Could not find a cohort with the name '${id}'`]);
  });
});

describe('negations in nested groups (test_cohort_query.py: check_negation_clause)', () => {
  const neg = behavioral('performed_event', '$pageview', { time_value: 1, time_interval: 'week', negation: true });
  const pos = behavioral('performed_event', '$new_view', { time_value: 1, time_interval: 'week' });

  it('a negation is paired only by a positive criterion of an AND group around it, at any depth', () => {
    const refused = { status: 400, message: 'Negations must be paired with a positive filter.' };
    // each AND group holds one side only, and the OR above them pairs nothing
    expect(() => cohortGroup({ filters: props('OR', { type: 'AND', values: [neg] }, { type: 'AND', values: [pos] }), groups: [] })).toThrow(expect.objectContaining(refused));
    expect(() => cohortGroup({ filters: props('AND', { type: 'OR', values: [{ type: 'AND', values: [pos, neg] }] }), groups: [] })).not.toThrow();
    expect(() => cohortGroup({ filters: props('AND', { type: 'AND', values: [neg] }, { type: 'AND', values: [pos] }), groups: [] })).not.toThrow();
  });
});

describe('saved cohorts in insights, through the query API (retention cohort breakdowns, cohort filters; reference §1.4, §4.3)', () => {
  /** Retention of rt_view over the three days before today. */
  const retentionQuery = (extra: Record<string, unknown>) => ({
    kind: 'RetentionQuery',
    dateRange: { date_from: '-3d', date_to: '-1d' },
    retentionFilter: { period: 'Day', totalIntervals: 3, targetEntity: { id: 'rt_view', type: 'events' }, returningEntity: { id: 'rt_view', type: 'events' } },
    ...extra,
  });
  const run = async (query: Record<string, unknown>) => {
    const r = await s.api('POST', `/api/projects/${pid}/query/`, { query, refresh: 'force_blocking' });
    expect([r.status, r.body.detail]).toEqual([200, undefined]);
    return r.body;
  };
  const rows = (body: any) => (body.results as any[]).map((x) => [x.breakdown_value, x.values.map((v: any) => v.count)]);
  let pro: number;
  let statik: number;
  let signedUp: number;
  beforeAll(async () => {
    pro = await saveCohort({ name: 'rt pro', filters: props('AND', { key: 'plan', value: 'pro', type: 'person' }) });
    statik = await saveCohort({ name: 'rt static', is_static: true, static_person_ids: [cases.uuidOf('rt_p2')] });
    signedUp = await saveCohort({ name: 'rt signed up', filters: props('AND', behavioral('performed_event', 'rt_signup', { time_value: 30, time_interval: 'day' })) });
  });

  it('a cohort breakdown of a person-property, a static and a behavioral cohort and all users: one block each, largest first', async () => {
    // all: rt_p1 and rt_p2 on day -3 (rt_p1 back on -2, rt_p2 on -1), rt_p1 and rt_p3 on -2, rt_p2 on -1
    const body = await run(retentionQuery({ breakdownFilter: { breakdown_type: 'cohort', breakdown: [pro, statik, signedUp, 'all'] } }));
    expect(rows(body)).toEqual([
      [0, [2, 1, 1]],
      [0, [2, 0, 0]],
      [0, [1, 0, 0]],
      [pro, [1, 1, 0]],
      [pro, [2, 0, 0]],
      [pro, [0, 0, 0]],
      [statik, [1, 0, 1]],
      [statik, [0, 0, 0]],
      [statik, [1, 0, 0]],
      [signedUp, [0, 0, 0]],
      [signedUp, [1, 0, 0]],
      [signedUp, [0, 0, 0]],
    ]);
  });

  it('a cohort property filter on a retention insight: in the static cohort, and not in the behavioral one', async () => {
    expect(rows(await run(retentionQuery({ properties: [{ type: 'cohort', key: 'id', value: statik }] })))).toEqual([
      [null, [1, 0, 1]],
      [null, [0, 0, 0]],
      [null, [1, 0, 0]],
    ]);
    expect(rows(await run(retentionQuery({ properties: [{ type: 'cohort', key: 'id', value: signedUp, operator: 'not_in' }] })))).toEqual([
      [null, [2, 1, 1]],
      [null, [1, 0, 0]],
      [null, [1, 0, 0]],
    ]);
  });

  it('a cohort breakdown given as one id (not a list): one block, that cohort\'s', async () => {
    expect(rows(await run(retentionQuery({ breakdownFilter: { breakdown_type: 'cohort', breakdown: statik } })))).toEqual([
      [statik, [1, 0, 1]],
      [statik, [0, 0, 0]],
      [statik, [1, 0, 0]],
    ]);
  });

  it('IN COHORT in a hogql breakdown of a retention insight: the named cohort is loaded for the run', async () => {
    const body = await run(retentionQuery({ breakdownFilter: { breakdown_type: 'hogql', breakdown: `if(person_id IN COHORT ${pro}, 'pro', 'rest')` } }));
    expect(rows(body)).toEqual([
      ['pro', [1, 1, 0]],
      ['pro', [2, 0, 0]],
      ['pro', [0, 0, 0]],
      ['rest', [1, 0, 1]],
      ['rest', [0, 0, 0]],
      ['rest', [1, 0, 0]],
    ]);
  });

  it('the actors of a cohort block (InsightActorsQuery with the cohort id as breakdown)', async () => {
    const source = retentionQuery({ breakdownFilter: { breakdown_type: 'cohort', breakdown: [pro, statik] } });
    const actors = async (interval: number, breakdown: number) => {
      const body = await run({ kind: 'ActorsQuery', select: ['person'], source: { kind: 'InsightActorsQuery', source, interval, breakdown } });
      return (body.results as any[]).map((r) => r[0].distinct_ids[0]).sort();
    };
    expect(await actors(1, pro)).toEqual(['rt_p1', 'rt_p3']);
    expect(await actors(0, statik)).toEqual(['rt_p2']);
    expect(await actors(1, statik)).toEqual([]);
  });
});
