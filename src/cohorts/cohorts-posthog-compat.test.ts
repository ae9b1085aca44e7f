/**
 * Behavioral cohorts after PostHog's ee/clickhouse/queries/test/test_cohort_query.py (and the legacy action/event
 * groups of posthog/models/cohort): events are placed relative to the real "now", membership is read through the
 * real ProductQL runner (`SELECT id FROM persons WHERE id IN COHORT n`, the expansion insight filters use too) on
 * data from the real ingest path, with cohorts and actions saved in a real metadata store and loaded by the real
 * CohortLoader. cohorts-posthog-compat.clickhouse.test.ts runs this file on ClickHouse.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ev, openHarness, type Harness } from '../queries/funnels/testing';
import { productqlRunner } from '../queries/runners/productql-runner';
import { trendsRunner } from '../queries/runners/trends-runner';
import { shutdownParser } from '../productql';
import { Action } from '../store/entities/action';
import type { Cohort } from '../store/entities/cohort';
import { Project } from '../store/entities';
import { Store } from '../store/store';
import { CohortLoader } from './cohort-loader';
import { runWithCohorts } from './cohort-scope';
import './productql-cohorts'; // installs IN COHORT's resolver, as the app does
import { cohortGroup } from './cohort-definition';
import { DAY, HOUR, ago, saveActionRow, saveCohortRow } from './testing';

const NAMES = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'];
const uuid = (i: number) => `00000000-0000-4000-8000-0000000b00${String(i + 1).padStart(2, '0')}`;

let h: Harness;
let store: Store;
let dir: string;
let loader: CohortLoader;
let pid: number;
let other: number;
let pageviewAction: number;
let signupAction: number;

const saveCohort = (c: Partial<Cohort>, project = pid) => saveCohortRow(store, project, c);
const saveAction = (project: number, name: string, steps: Parameters<typeof saveActionRow>[3]) => saveActionRow(store, project, name, steps);
const filters = (type: 'AND' | 'OR', ...values: unknown[]) => ({ properties: { type, values } });
const behavioral = (value: string, key: string | number, extra: Record<string, unknown> = {}) => ({
  type: 'behavioral',
  value,
  key,
  event_type: typeof key === 'number' ? 'actions' : 'events',
  time_value: 7,
  time_interval: 'day',
  ...extra,
});

/** The distinct ids (p1…) of the persons in the cohort, as the cohort-aware runner wrapper would run it. */
async function members(id: number, project = pid): Promise<string[]> {
  const cohorts = await loader.load(project, [id]);
  const r = await runWithCohorts(cohorts, () => h.run(productqlRunner, { kind: 'HogQLQuery', query: `SELECT id FROM persons WHERE id IN COHORT ${id}` }, project));
  return (r.results as string[][]).map(([u]) => NAMES[Number(u.slice(-2)) - 1] ?? u).sort();
}
const cohortOf = async (f: ReturnType<typeof filters>) => members(await saveCohort({ filters: f }));

beforeAll(async () => {
  h = await openHarness();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-behavioral-'));
  store = await Store.open(dir);
  loader = new CohortLoader(store);
  pid = await h.load({
    persons: NAMES.map((n, i) => ({ id: uuid(i), distinct_ids: [n], properties: { name: n === 'p5' ? 'special' : 'test', email: n === 'p1' ? 'test@posthog.com' : `${n}@x.io` } })),
    events: [
      // p1: $pageview 2 and 4 days ago (with a property on the first), $new_view 1 day ago
      ev('p1', '$pageview', ago(2 * DAY), { $filter_prop: 'something' }),
      ev('p1', '$pageview', ago(4 * DAY)),
      ev('p1', '$new_view', ago(1 * DAY)),
      // p2: $pageview 9 days ago and 20 days ago, signed up 1 hour ago
      ev('p2', '$pageview', ago(9 * DAY)),
      ev('p2', '$pageview', ago(20 * DAY)),
      ev('p2', 'signup', ago(HOUR)),
      // p3: $pageview 30 days ago, then 12 hours ago; $new_view 20 days ago
      ev('p3', '$pageview', ago(30 * DAY)),
      ev('p3', '$pageview', ago(12 * HOUR)),
      ev('p3', '$new_view', ago(20 * DAY)),
      // p4: three $pageviews in the last 2 days (12 h, 36 h, 40 h ago)
      ev('p4', '$pageview', ago(12 * HOUR)),
      ev('p4', '$pageview', ago(36 * HOUR)),
      ev('p4', '$pageview', ago(40 * HOUR)),
      // p5: $new_view 3 days ago then $pageview 2 days ago (the other order than p1's)
      ev('p5', '$new_view', ago(3 * DAY)),
      ev('p5', '$pageview', ago(2 * DAY + HOUR)),
      // p6: nothing but a future event (never counted: PostHog bounds every window by now)
      ev('p6', '$pageview', new Date(Date.now() + 3 * DAY).toISOString()),
    ],
  });
  // the other project: the same distinct ids and person ids, all of them having just viewed pages
  other = await h.load({
    persons: NAMES.map((n, i) => ({ id: uuid(i), distinct_ids: [n], properties: {} })),
    events: NAMES.map((n) => ev(n, '$pageview', ago(HOUR))),
  });
  for (const id of [pid, other]) await store.db.getRepository(Project).insert({ id, name: `p${id}`, api_token: `t${id}`, created_at: new Date() });
  pageviewAction = await saveAction(pid, 'pageviews', [{ event: '$pageview' }]);
  signupAction = await saveAction(pid, 'signups or new views', [{ event: 'signup' }, { event: '$new_view' }]);
});
afterAll(async () => {
  await h.close();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
  await shutdownParser();
});

describe('performed_event (test_cohort_query.py)', () => {
  it('test_performed_event: persons with the event in the last 7 days', async () => {
    expect(await cohortOf(filters('AND', behavioral('performed_event', '$pageview')))).toEqual(['p1', 'p3', 'p4', 'p5']);
  });

  it('test_performed_event with weeks, months and years', async () => {
    expect(await cohortOf(filters('AND', behavioral('performed_event', '$pageview', { time_value: 2, time_interval: 'week' })))).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);
    expect(await cohortOf(filters('AND', behavioral('performed_event', '$pageview', { time_value: 2, time_interval: 'month' })))).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);
    expect(await cohortOf(filters('AND', behavioral('performed_event', '$new_view', { time_value: 1, time_interval: 'year' })))).toEqual(['p1', 'p3', 'p5']);
  });

  it('time_value and operator_value given as a fraction are truncated (parse_and_validate_positive_integer: int(value))', async () => {
    expect(await cohortOf(filters('AND', behavioral('performed_event', '$pageview', { time_value: 1.9, time_interval: 'day' })))).toEqual(['p3', 'p4']);
    expect(await cohortOf(filters('AND', behavioral('performed_event_multiple', '$pageview', { operator: 'gte', operator_value: 3.7 })))).toEqual(['p4']);
  });

  it('time_interval hour and minute (validate_interval takes the units of INTERVAL_TO_SECONDS)', async () => {
    // p3 and p4 viewed 12 h ago; p4 also 36 h and 40 h ago, p1 48 h, p5 49 h
    expect(await cohortOf(filters('AND', behavioral('performed_event', '$pageview', { time_value: 24, time_interval: 'hour' })))).toEqual(['p3', 'p4']);
    expect(await cohortOf(filters('AND', behavioral('performed_event_multiple', '$pageview', { time_value: 41, time_interval: 'hour', operator: 'gte', operator_value: 3 })))).toEqual(['p4']);
    expect(await cohortOf(filters('AND', behavioral('performed_event', 'signup', { time_value: 90, time_interval: 'minute' })))).toEqual(['p2']);
    expect(await cohortOf(filters('AND', behavioral('performed_event', 'signup', { time_value: 30, time_interval: 'minute' })))).toEqual([]);
    // stopped: viewed in the last 3 days, not in the last 24 hours (a 24 h seq window is more recent than 3 days)
    expect(await cohortOf(filters('AND', behavioral('stopped_performing_event', '$pageview', { time_value: 3, time_interval: 'day', seq_time_value: 24, seq_time_interval: 'hour' })))).toEqual(['p1', 'p5']);
    expect(() => cohortGroup({ filters: filters('AND', behavioral('stopped_performing_event', '$pageview', { time_value: 1, time_interval: 'day', seq_time_value: 25, seq_time_interval: 'hour' })), groups: [] })).toThrow(
      expect.objectContaining({ status: 400, message: 'seq_date must be more recent than date' }),
    );
  });

  it('test_performed_event_with_event_filters_and_explicit_date: explicit_datetime and event_filters narrow the events', async () => {
    const prop = { key: '$filter_prop', value: 'something', operator: 'exact', type: 'event' };
    expect(await cohortOf(filters('AND', behavioral('performed_event', '$pageview', { explicit_datetime: '-3d', event_filters: [prop], time_value: undefined, time_interval: undefined })))).toEqual(['p1']);
    expect(await cohortOf(filters('AND', behavioral('performed_event', '$pageview', { explicit_datetime: '-3d', time_value: undefined, time_interval: undefined })))).toEqual(['p1', 'p3', 'p4', 'p5']);
    expect(await cohortOf(filters('AND', behavioral('performed_event', '$pageview', { explicit_datetime: '2000-01-01' })))).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);
  });

  it('test_performed_event with an action: the action’s steps match the events', async () => {
    expect(await cohortOf(filters('AND', behavioral('performed_event', signupAction, { time_value: 2, time_interval: 'day' })))).toEqual(['p1', 'p2']);
    expect(await cohortOf(filters('AND', behavioral('performed_event', pageviewAction, { time_value: 3, time_interval: 'day' })))).toEqual(['p1', 'p3', 'p4', 'p5']);
  });

  it('test_person_props_and_behavioral (test_basic_query): person criteria and behavioral ones in AND/OR groups', async () => {
    const f = filters(
      'AND',
      { type: 'OR', values: [behavioral('performed_event', '$pageview', { time_value: 1, time_interval: 'day' }), { key: 'email', value: 'test@posthog.com', type: 'person' }] },
      { type: 'AND', values: [behavioral('performed_event', '$pageview', { time_value: 2, time_interval: 'week' }), { key: 'name', value: 'special', type: 'person', operator: 'is_not' }] },
    );
    // p1 by email, p3 and p4 by a pageview in the last day; p5 is "special"
    expect(await cohortOf(f)).toEqual(['p1', 'p3', 'p4']);
  });
});

describe('performed_event_multiple', () => {
  it.each([
    ['gte', 2, ['p1', 'p4']],
    ['gte', 1, ['p1', 'p3', 'p4', 'p5']],
    ['lte', 1, ['p3', 'p5']],
    ['eq', 3, ['p4']],
    ['exact', 2, ['p1']],
    ['gt', 2, ['p4']],
    ['lt', 2, ['p3', 'p5']],
    [null, 1, ['p3', 'p5']],
  ])('test_performed_event_multiple operator %s %s (persons who never did it are not counted)', async (operator, value, want) => {
    expect(await cohortOf(filters('AND', behavioral('performed_event_multiple', '$pageview', { operator, operator_value: value })))).toEqual(want);
  });

  it('test_can_handle_many_performed_multiple_filters: ORed counts', async () => {
    const f = filters(
      'OR',
      behavioral('performed_event_multiple', '$pageview', { operator: 'eq', operator_value: 1 }),
      behavioral('performed_event_multiple', '$pageview', { operator: 'eq', operator_value: 2 }),
    );
    expect(await cohortOf(f)).toEqual(['p1', 'p3', 'p5']);
  });

  it('event_filters of other kinds: hogql on the event, person properties of its person', async () => {
    const hogql = [{ type: 'hogql', key: "properties.$filter_prop = 'something'" }];
    expect(await cohortOf(filters('AND', behavioral('performed_event', '$pageview', { event_filters: hogql })))).toEqual(['p1']);
    const special = [{ type: 'person', key: 'name', value: 'special' }];
    expect(await cohortOf(filters('AND', behavioral('performed_event', '$pageview', { event_filters: special })))).toEqual(['p5']);
  });

  it('performed_event_multiple with event_filters counts only the matching events', async () => {
    const f = filters('AND', behavioral('performed_event_multiple', '$pageview', { operator: 'gte', operator_value: 1, event_filters: [{ key: '$filter_prop', value: 'some', operator: 'icontains', type: 'event' }] }));
    expect(await cohortOf(f)).toEqual(['p1']);
  });
});

describe('first time, stopped, restarted, regularly, sequence', () => {
  it('test_performed_event_first_time: the first such event ever is in the window', async () => {
    expect(await cohortOf(filters('AND', behavioral('performed_event_first_time', '$pageview', { time_value: 5, time_interval: 'day' })))).toEqual(['p1', 'p4', 'p5']);
    expect(await cohortOf(filters('AND', behavioral('performed_event_first_time', '$new_view', { time_value: 5, time_interval: 'day' })))).toEqual(['p1', 'p5']);
  });

  it('test_stopped_performing_event: did it in the window, not in the last seq period', async () => {
    const stopped = (seq: number) => filters('AND', behavioral('stopped_performing_event', '$pageview', { time_value: 10, time_interval: 'day', seq_time_value: seq, seq_time_interval: 'day' }));
    expect(await cohortOf(stopped(3))).toEqual(['p2']);
    expect(await cohortOf(stopped(1))).toEqual(['p1', 'p2', 'p5']);
  });

  it('test_restarted_performing_event: did it before the window, not in it, then again in the last seq period', async () => {
    const f = filters('AND', behavioral('restarted_performing_event', '$pageview', { time_value: 15, time_interval: 'day', seq_time_value: 1, seq_time_interval: 'day' }));
    expect(await cohortOf(f)).toEqual(['p3']);
  });

  it('test_performed_event_regularly: at least min_periods of total_periods periods', async () => {
    const regularly = (min: number, total: number, opValue = 1) =>
      behavioral('performed_event_regularly', '$pageview', { time_value: 1, time_interval: 'day', operator: 'gte', operator_value: opValue, min_periods: min, total_periods: total });
    // p4: periods 0 and 1; p1: periods 2 and 4
    expect(await cohortOf(filters('AND', regularly(2, 3)))).toEqual(['p4']);
    expect(await cohortOf(filters('AND', regularly(2, 5)))).toEqual(['p1', 'p4']);
    expect(await cohortOf(filters('AND', regularly(1, 2, 2)))).toEqual(['p4']);
  });

  it('test_performed_event_sequence: the event, then the sequence event within seq_time', async () => {
    const seq = (extra: Record<string, unknown>) => filters('AND', behavioral('performed_event_sequence', '$pageview', { seq_event: '$new_view', seq_time_value: 3, seq_time_interval: 'day', ...extra }));
    expect(await cohortOf(seq({}))).toEqual(['p1']);
    // both events must be in the window: p1's pageviews are older than a day
    expect(await cohortOf(seq({ time_value: 1, time_interval: 'day' }))).toEqual([]);
    expect(await cohortOf(filters('AND', behavioral('performed_event_sequence', '$new_view', { seq_event: '$pageview', seq_time_value: 2, seq_time_interval: 'day' })))).toEqual(['p5']);
  });
});

describe('negation', () => {
  it('test_negation_with_simplify_filters: a negated criterion beside a positive one', async () => {
    const f = filters('AND', behavioral('performed_event', '$pageview'), behavioral('performed_event', '$new_view', { negation: true }));
    expect(await cohortOf(f)).toEqual(['p3', 'p4']);
  });

  it('test_negation_dynamic_time_bound_with_performed_event: different windows on each side', async () => {
    const f = filters('AND', behavioral('performed_event', '$pageview', { time_value: 3, time_interval: 'day' }), behavioral('performed_event', '$pageview', { negation: true, time_value: 1, time_interval: 'day' }));
    expect(await cohortOf(f)).toEqual(['p1', 'p5']);
  });

  it('a negated behavioral criterion beside a person criterion (persons without any event included)', async () => {
    const f = filters('AND', { key: 'name', value: 'test', type: 'person' }, behavioral('performed_event', '$pageview', { negation: true }));
    expect(await cohortOf(f)).toEqual(['p2', 'p6']);
  });

  it('a negated person criterion beside a behavioral one: persons without the property count as not having it', async () => {
    const f = filters('AND', behavioral('performed_event', '$pageview'), { key: 'email', value: 'x.io', operator: 'icontains', type: 'person', negation: true });
    expect(await cohortOf(f)).toEqual(['p1']);
    const g = filters('AND', behavioral('performed_event', '$pageview'), { key: 'name', value: 'special', type: 'person', negation: true });
    expect(await cohortOf(g)).toEqual(['p1', 'p3', 'p4']);
    // nobody has these properties: the negations hold for everyone
    for (const neg of [{ key: 'plan', value: 'paid' }, { key: 'age', value: 5, operator: 'gt' }])
      expect(await cohortOf(filters('AND', behavioral('performed_event', '$pageview'), { ...neg, type: 'person', negation: true }))).toEqual(['p1', 'p3', 'p4', 'p5']);
  });

  it.each([
    ['alone', filters('AND', behavioral('performed_event', '$pageview', { negation: true }))],
    ['in an OR group with a positive one', filters('OR', behavioral('performed_event', '$pageview'), behavioral('performed_event', '$new_view', { negation: true }))],
  ])('test_negation: a negated criterion %s is refused', (_n, f) => {
    expect(() => cohortGroup({ filters: f, groups: [] })).toThrow(expect.objectContaining({ status: 400, message: 'Negations must be paired with a positive filter.' }));
  });
});

describe('legacy groups (posthog/models/cohort: action_id / event_id with days and count)', () => {
  it.each([
    ['event_id with days', () => [{ event_id: '$pageview', days: 3 }], ['p1', 'p3', 'p4', 'p5']],
    ['action_id with days', () => [{ action_id: signupAction, days: 2 }], ['p1', 'p2']],
    ['without days: the last 365 days', () => [{ event_id: '$pageview' }], ['p1', 'p2', 'p3', 'p4', 'p5']],
    ['count and count_operator gte', () => [{ event_id: '$pageview', days: 7, count: 2, count_operator: 'gte' }], ['p1', 'p4']],
    ['count and count_operator lte', () => [{ action_id: pageviewAction, days: 7, count: 1, count_operator: 'lte' }], ['p3', 'p5']],
    ['count without an operator is an exact count', () => [{ event_id: '$pageview', days: 30, count: 2 }], ['p1', 'p2']],
    ['ORed with a person-property group', () => [{ event_id: 'signup', days: 1 }, { properties: [{ key: 'name', value: 'special', type: 'person' }] }], ['p2', 'p5']],
  ])('%s', async (_n, groups, want) => {
    expect(await members(await saveCohort({ groups: groups() }))).toEqual(want);
  });
});

describe('behavioral cohorts in queries', () => {
  it('nested: a cohort referring to a behavioral cohort (test_cohort_filter_with_another_cohort_with_event_sequence)', async () => {
    const inner = await saveCohort({ filters: filters('AND', behavioral('performed_event_sequence', '$pageview', { seq_event: '$new_view', seq_time_value: 3, seq_time_interval: 'day' })) });
    const outer = await saveCohort({ filters: filters('OR', { type: 'cohort', key: 'id', value: inner }, behavioral('performed_event', 'signup', { time_value: 1, time_interval: 'day' })) });
    expect(await members(outer)).toEqual(['p1', 'p2']);
  });

  it('test_cohortpeople_with_not_in_cohort_operator_for_behavioural_cohorts: performed an event and not in a behavioral cohort', async () => {
    const signedUp = await saveCohort({ groups: [{ event_id: 'signup', days: 2 }] });
    const f = filters('AND', behavioral('performed_event', '$pageview', { time_value: 2, time_interval: 'year' }), { type: 'cohort', key: 'id', value: signedUp, negation: true });
    expect(await cohortOf(f)).toEqual(['p1', 'p3', 'p4', 'p5']);
  });

  it('test_cohortpeople_with_not_in_cohort_operator: performed an event and not in a person-property cohort', async () => {
    const special = await saveCohort({ groups: [{ properties: [{ key: 'name', value: 'special', type: 'person' }] }] });
    const f = filters('AND', behavioral('performed_event', '$pageview', { time_value: 2, time_interval: 'year' }), { type: 'cohort', key: 'id', value: special, negation: true });
    expect(await cohortOf(f)).toEqual(['p1', 'p2', 'p3', 'p4']);
  });

  it('a trends insight filtered by a behavioral cohort counts only its persons’ events', async () => {
    const id = await saveCohort({ filters: filters('AND', behavioral('performed_event_multiple', '$pageview', { operator: 'gte', operator_value: 2 })) });
    const cohorts = await loader.load(pid, [id]);
    const node = {
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: '$pageview', math: 'total' }],
      dateRange: { date_from: '-7d' },
      interval: 'day',
      properties: [{ type: 'cohort', key: 'id', value: id }],
    };
    const r = await runWithCohorts(cohorts, () => h.run(trendsRunner, node, pid));
    // p1's two pageviews and p4's three
    expect(r.results[0].count).toBe(5);
  });

  it('a cohort keeps counting the events of an action deleted after it was saved (PostHog reads the action row)', async () => {
    const action = await saveAction(pid, 'to delete', [{ event: '$new_view' }]);
    const id = await saveCohort({ filters: filters('AND', behavioral('performed_event', action)) });
    await store.db.getRepository(Action).update({ id: action }, { deleted: true });
    expect(await members(id)).toEqual(['p1', 'p5']);
  });

  it('another project’s events never count, and its actions never resolve', async () => {
    const id = await saveCohort({ filters: filters('AND', behavioral('performed_event', '$pageview', { time_value: 1, time_interval: 'day' })) });
    expect(await members(id)).toEqual(['p3', 'p4']);
    // the same cohort definition in the other project: every person there viewed a page an hour ago
    const theirs = await saveCohort({ filters: filters('AND', behavioral('performed_event', '$pageview', { time_value: 1, time_interval: 'day' })) }, other);
    expect(await members(theirs, other)).toEqual(NAMES);
    const withOurAction = await saveCohort({ filters: filters('AND', behavioral('performed_event', pageviewAction)) }, other);
    await expect(members(withOurAction, other)).rejects.toMatchObject({ status: 400, message: `Action ${pageviewAction} does not exist.` });
  });
});

describe('validation', () => {
  it.each([
    [behavioral('performed_event', '$pageview', { time_value: undefined }), /time_value cannot be None/],
    [behavioral('performed_event', '$pageview', { time_interval: 'fortnight' }), /Invalid interval/],
    [behavioral('performed_event', '$pageview', { time_value: -1 }), /time_value must be an integer/],
    [behavioral('performed_event_multiple', '$pageview', { operator: 'gte' }), /operator_value cannot be None/],
    [behavioral('performed_event_multiple', '$pageview', { operator: 'sometimes', operator_value: 1 }), /^count_operator must be gte, lte, eq, or None$/],
    // test_performed_event_zero_times_
    [behavioral('performed_event_multiple', '$pageview', { operator: 'eq', operator_value: 0, time_value: 1, time_interval: 'week' }), /operator_value must be greater than 0/],
    [behavioral('stopped_performing_event', '$pageview', { seq_time_value: 2, seq_time_interval: 'week' }), /seq_date must be more recent than date/],
    [behavioral('performed_event_regularly', '$pageview', { operator: 'gte', operator_value: 1, min_periods: 4, total_periods: 3 }), /min_periods \(4\) cannot be greater than total_periods \(3\)/],
    [behavioral('performed_event_sequence', '$pageview', { seq_time_value: 1, seq_time_interval: 'day' }), /seq_event/],
    [behavioral('performed_event', 'x', { event_type: 'actions' }), /action id/],
    [behavioral('performed_event', '$pageview', { event_type: 'persons' }), /event_type/],
    [behavioral('performed_event', '$pageview', { event_filters: [{ type: 'cohort', key: 'id', value: 1 }] }), /event_filters cannot refer to cohorts/],
    [behavioral('performed_event', '$pageview', { event_filters: [{ type: 'event', key: 'x', operator: 'sounds_like', value: 1 }] }), /Invalid event_filters/],
    [behavioral('performed_event', '$pageview', { explicit_datetime: 'yesterday-ish' }), /./],
    [behavioral('did_a_thing', '$pageview'), /Unknown behavioral criterion/],
    [behavioral('performed_event', '$pageview', { time_value: 101, time_interval: 'year' }), /at most 100 years/],
    [behavioral('performed_event_regularly', '$pageview', { time_value: 2, time_interval: 'year', operator: 'gte', operator_value: 1, min_periods: 1, total_periods: 51 }), /at most 100 years/],
    [behavioral('performed_event_regularly', '$pageview', { operator: 'gte', operator_value: 1, min_periods: 1, total_periods: 101 }), /total_periods may be at most 100/],
  ])('%j is a 400', (criterion, message) => {
    expect(() => cohortGroup({ filters: filters('AND', criterion), groups: [] })).toThrow(expect.objectContaining({ status: 400, message: expect.stringMatching(message) }));
  });
});
