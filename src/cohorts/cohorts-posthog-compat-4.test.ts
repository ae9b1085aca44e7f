/**
 * Cohorts, fourth pass over PostHog's ee/clickhouse/queries/test/test_cohort_query.py: the event sequences
 * (`test_performed_event_sequence*`, `test_multiple_performed_event_sequence`), the regular-performance periods
 * (`test_performed_event_regularly*`), the `precalculated-cohort` / `static-cohort` criteria of
 * `test_precalculated_cohort_filter*` and `test_static_cohort_filter`, negation with a sequence, negated cohorts
 * several layers down, and person criteria over lists, numbers and missing properties; then, over REST,
 * test_person.py's `test_person_cohorts` and test_cohort.py's `test_creating_update_and_calculating_with_cycle`.
 * Events are placed relative to the real "now" as PostHog's `_make_event_sequence` places them; membership is read
 * through the query API (`SELECT id FROM persons WHERE id IN COHORT n`, the cohort-aware runner wrapper loading the
 * cohorts) on data from the real ingest path, with cohorts and actions saved in the server's metadata store.
 *
 * One project holds every case's persons; each PostHog test's persons are prefixed by the case (`sq_p1`…), and a
 * case reads back only its own persons, so each assertion is PostHog's set for that test.
 * cohorts-posthog-compat-4.clickhouse.test.ts runs this file on ClickHouse.
 */
import { quarryOnTestEngine } from '../../test/helpers/clickhouse-quarry';
import type { TestServer } from '../../test/helpers/server';
import type { Cohort } from '../store/entities/cohort';
import { cohortGroup } from './cohort-definition';
import { CasePersons, DAY, behavioral, cohortRef, props, saveActionRow, saveCohortRow, sequence } from './testing';

const server = quarryOnTestEngine('quarry_cohorts_compat_4');


const cases = new CasePersons('d');
const { person, event, eventSequence } = cases;

// test_performed_event_regularly
person('rg_p1');
eventSequence('rg_p1', 3, [1, 1, 1]);
person('rg_p2');
eventSequence('rg_p2', 3, [1, 0, 1]);
// test_performed_event_regularly_with_variable_event_counts_in_each_period
person('rv_p1');
eventSequence('rv_p1', 3, [0, 1, 2]);
person('rv_p2');
eventSequence('rv_p2', 3, [1, 2, 2]);
// test_performed_event_first_time
person('ft_p1');
event('ft_p1', '$pageview', 20 * DAY);
event('ft_p1', '$pageview', 4 * DAY);
person('ft_p2');
event('ft_p2', '$pageview', 4 * DAY);
// test_person_props_only
person('pp_p1', { name: 'test1', email: 'test1@posthog.com' });
person('pp_p2', { name: 'test2', email: 'test2@posthog.com' });
person('pp_p3', { name: 'test3', email: 'test3@posthog.com' });
person('pp_p4', { name: 'test3', email: 'test4@posthog.com' });
// test_performed_event_sequence
person('sq_p1');
eventSequence('sq_p1', 2, [1, 1]);
person('sq_p2');
event('sq_p2', '$pageview', 2 * DAY);
// test_performed_event_sequence_with_action
const FEEDBACK = 'https://posthog.com/feedback/123';
person('sa_p1');
eventSequence('sa_p1', 2, [1, 1], '$pageview', { $current_url: FEEDBACK });
person('sa_p2');
event('sa_p2', '$pageview', 2 * DAY, { $current_url: FEEDBACK });
person('sa_p3');
eventSequence('sa_p3', 2, [1, 1], '$pageview', { $current_url: 'https://posthog.com/feedback/A' });
// test_performed_event_sequence_with_restarted
person('sr_p1');
eventSequence('sr_p1', 2, [1, 1]);
person('sr_p2');
event('sr_p2', '$new_view', 18 * DAY);
event('sr_p2', '$new_view', 5 * DAY);
person('sr_p3'); // only in the last week: never did it before, so did not restart
event('sr_p3', '$new_view', 5 * DAY);
// test_performed_event_sequence_with_extra_conditions
person('sx_p1');
eventSequence('sx_p1', 2, [1, 1]);
person('sx_p2');
event('sx_p2', '$pageview', 2 * DAY);
// test_performed_event_sequence_with_person_properties
person('sp_p1');
eventSequence('sp_p1', 2, [1, 1]);
person('sp_p2');
event('sp_p2', '$pageview', 2 * DAY);
person('sp_p3', { name: 'test22', email: 'test22@posthog.com' });
eventSequence('sp_p3', 2, [1, 1]);
// test_multiple_performed_event_sequence
person('ms_p1');
eventSequence('ms_p1', 2, [1, 1]);
event('ms_p1', '$new_view', 9 * DAY);
event('ms_p1', '$new_view', 7 * DAY);
person('ms_p2');
event('ms_p2', '$new_view', 9 * DAY);
// test_negation_dynamic_time_bound_with_performed_event_sequence
person('nq_p1'); // the sequence in the last week: out
event('nq_p1', '$new_view', 4 * DAY);
event('nq_p1', '$pageview', 4 * DAY);
event('nq_p1', '$pageview', 2 * DAY);
person('nq_p2'); // no $new_view: out
event('nq_p2', '$pageview', 4 * DAY);
person('nq_p3'); // the sequence long before the window: in
event('nq_p3', '$new_view', 5 * DAY);
event('nq_p3', '$pageview', 37 * DAY);
event('nq_p3', '$pageview', 35 * DAY);
person('nq_p4'); // no $pageview at all: in
event('nq_p4', '$new_view', 4 * DAY);
// test_precalculated_cohort_filter(_with_extra_filters), test_static_cohort_filter
person('pc_p1', { name: 'test' });
person('pc_p2', { name: 'test2' });
person('pc_p3', { name: 'test3' });
// person criteria: operators that hold where the property is missing
person('op_a', { email: 'a@posthog.com', plan: 'paid', age: 30 });
person('op_b', { email: 'b@gmail.com', plan: 'free', age: '20' });
person('op_c', {});
// test_unwrap_with_negated_cohort / test_unwrap_multiple_levels
person('uw_p1', { name: 'test' });
event('uw_p1', '$new_view', 2 * DAY);
event('uw_p1', '$pageview', DAY);
person('uw_p2', { name: 'other' });
event('uw_p2', '$new_view', 2 * DAY);
event('uw_p2', '$pageview', DAY);
person('uw_p3', { name: 'other' });
event('uw_p3', '$new_view', 2 * DAY);
person('uw_p4', { name: 'other' });
event('uw_p4', '$pageview', DAY);

const { uuidOf } = cases;

let s: TestServer;
let pid: number;

const saveCohort = (c: Partial<Cohort>) => saveCohortRow(s.server.services.store, pid, c);
const saveAction = (name: string, steps: Parameters<typeof saveActionRow>[3]) => saveActionRow(s.server.services.store, pid, name, steps);
const pageviewedThisWeek = behavioral('performed_event_multiple', '$pageview', { operator: 'gte', operator_value: 1, time_value: 1, time_interval: 'week' });

const members = (id: number, prefix: string) => cases.members(s, pid, id, prefix);
const cohortOf = async (f: ReturnType<typeof props>, prefix: string) => members(await saveCohort({ filters: f }), prefix);

beforeAll(async () => {
  s = server();
  pid = await cases.load(s, 'cohorts compat 4');
});

describe('performed_event_regularly (test_cohort_query.py)', () => {
  const regularly = (operatorValue: number, minPeriods: number) =>
    props('AND', behavioral('performed_event_regularly', '$pageview', { operator: 'gte', operator_value: operatorValue, time_interval: 'day', time_value: 3, total_periods: 3, min_periods: minPeriods }));

  it('test_performed_event_regularly: at least once in each of the last 3 periods of 3 days', async () => {
    expect(await cohortOf(regularly(1, 3), 'rg')).toEqual(['rg_p1']);
  });

  it('counts compare in every period: lte and eq 0 hold in a period without the event', async () => {
    // rg_p1 (1, 1, 1), rg_p2 (1, 0, 1): PostHog's countIf per period compared with get_count_operator's operator
    const f = (operator: string, operatorValue: number, minPeriods: number) =>
      props('AND', behavioral('performed_event_regularly', '$pageview', { operator, operator_value: operatorValue, time_interval: 'day', time_value: 3, total_periods: 3, min_periods: minPeriods }));
    expect(await cohortOf(f('lte', 1, 3), 'rg')).toEqual(['rg_p1', 'rg_p2']);
    expect(await cohortOf(f('eq', 0, 1), 'rg')).toEqual(['rg_p2']);
    expect(await cohortOf(f('exact', 1, 3), 'rg')).toEqual(['rg_p1']);
  });

  it('test_performed_event_regularly_with_variable_event_counts_in_each_period', async () => {
    // at least 2 times per period in 2 of the 3 periods: p1 (0, 1, 2) has one such period, p2 (1, 2, 2) two
    expect(await cohortOf(regularly(2, 2), 'rv')).toEqual(['rv_p2']);
    expect(await cohortOf(regularly(1, 2), 'rv')).toEqual(['rv_p1', 'rv_p2']);
  });
});

describe('first time and person properties only (test_cohort_query.py)', () => {
  it('test_performed_event_first_time: the first $pageview ever is in the last week (an older one disqualifies)', async () => {
    expect(await cohortOf(props('AND', behavioral('performed_event_first_time', '$pageview', { time_interval: 'week', time_value: 1 })), 'ft')).toEqual(['ft_p2']);
  });

  it('test_person_props_only: an OR of an OR group and an AND group of person properties', async () => {
    const email = (n: number) => ({ key: 'email', value: `test${n}@posthog.com`, type: 'person' });
    const f = props('OR', { type: 'OR', values: [email(1), email(2)] }, { type: 'AND', values: [{ key: 'name', value: 'test3', type: 'person' }, email(3)] });
    expect(await cohortOf(f, 'pp')).toEqual(['pp_p1', 'pp_p2', 'pp_p3']);
  });
});

describe('performed_event_sequence (test_cohort_query.py)', () => {
  it('test_performed_event_sequence: the same event twice within the sequence time (one event is no sequence)', async () => {
    expect(await cohortOf(props('AND', sequence()), 'sq')).toEqual(['sq_p1']);
  });

  it('test_performed_event_sequence_with_action: both steps an action (url exact)', async () => {
    const action = await saveAction('action1', [{ event: '$pageview', url: FEEDBACK, url_matching: 'exact' }]);
    expect(await cohortOf(props('AND', sequence(action, action)), 'sa')).toEqual(['sa_p1']);
  });

  it('test_performed_event_sequence_with_restarted: a sequence ORed with restarted_performing_event', async () => {
    const restarted = behavioral('restarted_performing_event', '$new_view', { time_interval: 'week', time_value: 2, seq_time_interval: 'week', seq_time_value: 1 });
    expect(await cohortOf(props('OR', sequence(), restarted), 'sr')).toEqual(['sr_p1', 'sr_p2']);
  });

  it('test_performed_event_sequence_with_extra_conditions: a sequence ANDed with performed_event_multiple', async () => {
    expect(await cohortOf(props('AND', sequence(), pageviewedThisWeek), 'sx')).toEqual(['sx_p1']);
  });

  it('test_performed_event_sequence_with_person_properties: and a person property', async () => {
    expect(await cohortOf(props('AND', sequence(), pageviewedThisWeek, { key: 'email', value: 'test@posthog.com', type: 'person' }), 'sp')).toEqual(['sp_p1']);
  });

  it('test_multiple_performed_event_sequence: two sequences ANDed, each with its own windows', async () => {
    const newViews = sequence('$new_view', '$new_view', { time_interval: 'week', time_value: 2, seq_time_interval: 'day', seq_time_value: 4 });
    expect(await cohortOf(props('AND', sequence(), newViews), 'ms')).toEqual(['ms_p1']);
  });

  it('test_negation_dynamic_time_bound_with_performed_event_sequence: a negated sequence only looks in its own window', async () => {
    const f = props('AND', behavioral('performed_event', '$new_view', { time_value: 1, time_interval: 'week' }), sequence('$pageview', '$pageview', { time_interval: 'week', time_value: 1, negation: true }));
    expect(await cohortOf(f, 'nq')).toEqual(['nq_p3', 'nq_p4']);
  });
});

describe('precalculated-cohort and static-cohort criteria (test_cohort_query.py)', () => {
  let named: number;
  beforeAll(async () => {
    named = await saveCohort({ name: 'cohort1', groups: [{ properties: [{ key: 'name', value: 'test', type: 'person' }] }] });
  });

  it('test_precalculated_cohort_filter: a precalculated-cohort criterion holds the cohort’s persons', async () => {
    expect(await cohortOf(props('OR', { key: 'id', value: named, type: 'precalculated-cohort' }), 'pc')).toEqual(['pc_p1']);
  });

  it('test_precalculated_cohort_filter_with_extra_filters: ORed with a person property', async () => {
    expect(await cohortOf(props('OR', { key: 'id', value: named, type: 'precalculated-cohort' }, { key: 'name', value: 'test2', type: 'person' }), 'pc')).toEqual(['pc_p1', 'pc_p2']);
  });

  it('test_static_cohort_filter: a static-cohort criterion holds the listed persons', async () => {
    const statik = await saveCohort({ name: 'static', is_static: true, static_person_ids: [uuidOf('pc_p3')] });
    expect(await cohortOf(props('OR', { key: 'id', value: statik, type: 'static-cohort' }), 'pc')).toEqual(['pc_p3']);
    // negated like a cohort criterion
    expect(await cohortOf(props('AND', { key: 'name', value: 'test', operator: 'icontains', type: 'person' }, { key: 'id', value: statik, type: 'static-cohort', negation: true }), 'pc')).toEqual(['pc_p1', 'pc_p2']);
  });
});

describe('negated cohorts in layers of cohorts (test_cohort_query.py: test_unwrap_with_negated_cohort, test_unwrap_multiple_levels)', () => {
  let named: number;
  let newViewNotNamed: number;
  beforeAll(async () => {
    named = await saveCohort({ groups: [{ properties: [{ key: 'name', value: 'test', type: 'person' }] }] });
    // a $new_view in the last week, and not named test: p2 and p3
    newViewNotNamed = await saveCohort({ filters: props('AND', behavioral('performed_event', '$new_view', { time_value: 1, time_interval: 'week' }), cohortRef(named, { negation: true })) });
  });

  it('a behavioral criterion and a negated cohort', async () => {
    expect(await members(newViewNotNamed, 'uw')).toEqual(['uw_p2', 'uw_p3']);
  });

  it('that cohort one layer down, in and negated', async () => {
    const pageview = behavioral('performed_event', '$pageview', { time_value: 1, time_interval: 'week' });
    expect(await cohortOf(props('AND', cohortRef(newViewNotNamed), pageview), 'uw')).toEqual(['uw_p2']);
    expect(await cohortOf(props('AND', pageview, cohortRef(newViewNotNamed, { negation: true })), 'uw')).toEqual(['uw_p1', 'uw_p4']);
    // two layers down
    const middle = await saveCohort({ filters: props('OR', cohortRef(newViewNotNamed)) });
    expect(await cohortOf(props('AND', pageview, cohortRef(middle, { negation: true })), 'uw')).toEqual(['uw_p1', 'uw_p4']);
  });
});

describe('person criteria: lists, numbers and text, missing properties (PostHog: `!=`, NOT ILIKE and NOT match are true on a missing property)', () => {
  it.each([
    ['is_not with a list: none of them', { key: 'email', operator: 'is_not', value: ['a@posthog.com', 'x@y.z'] }, ['op_b', 'op_c']],
    ['not_regex', { key: 'email', operator: 'not_regex', value: 'posthog' }, ['op_b', 'op_c']],
    ['not_icontains with a list: contains none of them', { key: 'email', operator: 'not_icontains', value: ['POSTHOG', 'nothing'] }, ['op_b', 'op_c']],
    ['icontains with a list: contains any of them', { key: 'email', operator: 'icontains', value: ['POSTHOG', 'gmail'] }, ['op_a', 'op_b']],
    ['exact with a one-item list', { key: 'plan', value: ['paid'] }, ['op_a']],
    ['exact with a number, the property a number', { key: 'age', value: 30 }, ['op_a']],
    ['exact with text, the property a number', { key: 'age', value: '30' }, ['op_a']],
    ['exact with a number, the property numeric text', { key: 'age', value: 20 }, ['op_b']],
    ['is_not with a number', { key: 'age', operator: 'is_not', value: 30 }, ['op_b', 'op_c']],
    ['gt with numeric text, over numbers and numeric text', { key: 'age', operator: 'gt', value: '10' }, ['op_a', 'op_b']],
  ])('%s', async (_n, criterion, want) => {
    expect(await cohortOf(props('AND', { type: 'person', ...criterion }), 'op')).toEqual(want);
  });
});

describe('validation', () => {
  it('test_restarted_performing_event_raises_if_seq_date_later_than_date', () => {
    const f = props('AND', behavioral('restarted_performing_event', '$pageview', { time_value: 1, time_interval: 'week', seq_time_value: 2, seq_time_interval: 'week' }));
    expect(() => cohortGroup({ filters: f, groups: [] })).toThrow(expect.objectContaining({ status: 400, message: 'seq_date must be more recent than date' }));
  });
});

describe('over REST', () => {
  const base = (project: number) => `/api/projects/${project}/cohorts/`;
  async function create(project: number, body: Record<string, unknown>): Promise<number> {
    const r = await s.api('POST', base(project), body);
    expect([r.status, r.body?.detail]).toEqual([201, undefined]);
    return r.body.id;
  }

  it('test_person_cohorts (test_person.py): the cohorts a person is in, each with its count', async () => {
    const r = await s.api('POST', '/api/projects/', { name: 'person cohorts' });
    const p = r.body.id;
    await s.server.services.ingestor.import(p, {
      persons: [
        { distinct_ids: ['1'], properties: { $some_prop: 'something', number: 1 } },
        { distinct_ids: ['2'], properties: { $some_prop: 'something', number: 2 } },
      ],
    });
    await s.server.services.ingestor.flush();
    const person2 = (await s.api('GET', `/api/projects/${p}/persons/?distinct_id=2`)).body.results[0].uuid;
    const cohort1 = await create(p, { name: 'cohort1', groups: [{ properties: [{ key: '$some_prop', value: 'something', type: 'person' }] }] });
    await create(p, { name: 'cohort2', groups: [{ properties: [{ key: 'number', value: 1, type: 'person' }] }] });
    const cohort3 = await create(p, { name: 'cohort3', groups: [{ properties: [{ key: 'number', value: 2, type: 'person' }] }] });
    const cohort4 = await create(p, { name: 'cohort4', is_static: true, _create_static_person_ids: [person2] });
    const got = await s.api('GET', `/api/projects/${p}/persons/cohorts/?person_id=${person2}`);
    expect(got.status).toBe(200);
    const results = [...got.body.results].sort((a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name));
    expect(results.map((c: { id: number; count: number; name: string }) => [c.id, c.count, c.name])).toEqual([
      [cohort1, 2, 'cohort1'],
      [cohort3, 1, 'cohort3'],
      [cohort4, 1, 'cohort4'],
    ]);
  });

  it('test_creating_update_and_calculating_with_cycle (test_cohort.py): A ← B ← C, then A → C or A → A is a 400', async () => {
    const a = await create(pid, { name: 'cohort A', groups: [{ properties: { team_id: 5 } }] });
    const ref = (id: number) => ({ groups: [{ properties: [{ type: 'cohort', value: id, key: 'id' }] }] });
    const b = await create(pid, { name: 'cohort B', ...ref(a) });
    const c = await create(pid, { name: 'cohort C', ...ref(b) });
    for (const target of [c, a]) {
      const r = await s.api('PATCH', `${base(pid)}${a}/`, { name: 'Cohort A, reloaded', ...ref(target) });
      expect([r.status, r.body.type, r.body.detail]).toEqual([400, 'validation_error', 'Cohorts cannot reference other cohorts in a loop.']);
    }
    expect((await s.api('GET', `${base(pid)}${a}/`)).body.name).toBe('cohort A');
  });

  it('a precalculated-cohort criterion saved over REST counts the cohort’s persons', async () => {
    const named = await create(pid, { name: 'pc named', groups: [{ properties: [{ key: 'name', value: 'test2', type: 'person' }] }] });
    const id = await create(pid, { name: 'pc outer', filters: props('OR', { key: 'id', value: named, type: 'precalculated-cohort' }) });
    expect(await members(id, 'pc')).toEqual(['pc_p2']);
  });
});
