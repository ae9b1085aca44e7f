/**
 * ProductQL `IN COHORT` after PostHog's posthog/hogql/test/test_query.py (test_in_cohort_dynamic,
 * test_in_cohort_static, test_in_cohort_strings, test_in_cohort_error), through the real HogQL runner on data from
 * the real ingest path, with cohorts saved in a real metadata store and loaded by the real CohortLoader the way the
 * cohort-aware runner wrapper does it (`loadAndRun` below). productql-cohorts.clickhouse.test.ts runs this file on
 * ClickHouse.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ev, openHarness, type Harness } from '../queries/funnels/testing';
import { productqlRunner } from '../queries/runners/productql-runner';
import { trendsRunner } from '../queries/runners/trends-runner';
import type { QueryRunner } from '../queries/runner';
import { compileProductQL, shutdownParser } from '../productql';
import { Cohort } from '../store/entities/cohort';
import { Project } from '../store/entities';
import { Store } from '../store/store';
import { CohortLoader } from './cohort-loader';
import { runWithCohorts } from './cohort-scope';
import { productqlCohortIds } from './productql-cohorts';
import { saveCohortRow } from './testing';

const A = '00000000-0000-4000-8000-0000000c0001';
const B = '00000000-0000-4000-8000-0000000c0002';
const C = '00000000-0000-4000-8000-0000000c0003';

let h: Harness;
let store: Store;
let dir: string;
let loader: CohortLoader;
let pid: number;
let other: number;
const ids: Record<string, number> = {};

const saveCohort = (project: number, c: Partial<Cohort>) => saveCohortRow(store, project, c, { check: false });

beforeAll(async () => {
  h = await openHarness();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-pq-cohorts-'));
  store = await Store.open(dir);
  loader = new CohortLoader(store);
  pid = await h.load({
    persons: [
      { id: A, distinct_ids: ['a1', 'a2'], properties: { $os: 'Chrome', plan: 'paid' } },
      { id: B, distinct_ids: ['b1'], properties: { $os: 'Safari', plan: 'paid' } },
      { id: C, distinct_ids: ['c1'], properties: { $os: 'Chrome' } },
    ],
    events: [
      ev('a1', 'random event', '2020-01-10T10:00:00Z'),
      ev('a2', 'random event', '2020-01-10T11:00:00Z'),
      ev('b1', 'random event', '2020-01-10T12:00:00Z'),
      ev('c1', 'other event', '2020-01-10T13:00:00Z'),
      ev('nobody', 'random event', '2020-01-10T14:00:00Z'),
    ],
  });
  // another project with the same person ids and a cohort of the same name
  other = await h.load({ persons: [{ id: B, distinct_ids: ['b1'], properties: { $os: 'Chrome' } }], events: [ev('b1', 'random event', '2020-01-10T12:00:00Z')] });
  for (const id of [pid, other]) await store.db.getRepository(Project).insert({ id, name: `p${id}`, api_token: `t${id}`, created_at: new Date() });
  ids.chrome = await saveCohort(pid, { name: 'chrome users', groups: [{ properties: [{ key: '$os', value: 'Chrome', type: 'person' }] }] });
  ids.static = await saveCohort(pid, { name: 'my cohort', is_static: true, static_person_ids: [B] });
  ids.paidChrome = await saveCohort(pid, {
    name: 'paid chrome',
    filters: { properties: { type: 'AND', values: [{ type: 'cohort', key: 'id', value: ids.chrome }, { type: 'person', key: 'plan', value: 'paid' }] } },
  });
  ids.dup1 = await saveCohort(pid, { name: 'dup', is_static: true, static_person_ids: [A] });
  ids.dup2 = await saveCohort(pid, { name: 'dup', is_static: true, static_person_ids: [C] });
  ids.otherChrome = await saveCohort(other, { name: 'chrome users', groups: [{ properties: [{ key: '$os', value: 'Chrome', type: 'person' }] }] });
});
afterAll(async () => {
  await h.close();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
  await shutdownParser();
});

/** What the cohort-aware runner wrapper does before a run: load the cohorts the node's ProductQL names, then run in their scope. */
async function loadAndRun(runner: QueryRunner, node: Record<string, unknown>, project = pid): Promise<any> {
  const cohorts = await loader.load(project, await productqlCohortIds(node, project, loader));
  return runWithCohorts(cohorts, () => h.run(runner, node, project));
}
const hogql = (query: string, project = pid) => loadAndRun(productqlRunner, { kind: 'HogQLQuery', query }, project);
const rows = async (query: string, project = pid) => (await hogql(query, project)).results;

describe('IN COHORT', () => {
  it('test_in_cohort_dynamic: the persons matching the criteria now', async () => {
    expect(await rows(`SELECT event, distinct_id, person_id FROM events WHERE person_id IN COHORT ${ids.chrome} ORDER BY timestamp`)).toEqual([
      ['random event', 'a1', A],
      ['random event', 'a2', A],
      ['other event', 'c1', C],
    ]);
  });

  it('test_in_cohort_static: the listed persons', async () => {
    expect(await rows(`SELECT event, distinct_id FROM events WHERE person_id IN COHORT ${ids.static}`)).toEqual([['random event', 'b1']]);
  });

  it("test_in_cohort_strings: a cohort named by a string", async () => {
    expect(await rows("SELECT distinct_id FROM events WHERE person_id IN COHORT 'my cohort'")).toEqual([['b1']]);
    expect(await rows("SELECT count() FROM events WHERE person_id IN COHORT 'chrome users'")).toEqual([[3]]);
  });

  it('NOT IN COHORT: everyone else, events without a person included', async () => {
    expect(await rows(`SELECT distinct_id FROM events WHERE person_id NOT IN COHORT ${ids.chrome} ORDER BY timestamp`)).toEqual([['b1'], ['nobody']]);
  });

  it('a cohort referring to another cohort, and IN COHORT on person.id, the persons table and in the select list', async () => {
    expect(await rows(`SELECT count(), min(distinct_id) FROM events WHERE person.id IN COHORT ${ids.paidChrome}`)).toEqual([[2, 'a1']]);
    expect(await rows(`SELECT id FROM persons WHERE id IN COHORT ${ids.chrome} ORDER BY id`)).toEqual([[A], [C]]);
    expect(await rows(`SELECT distinct_id, person_id IN COHORT ${ids.static} FROM events WHERE distinct_id IN ('a1', 'b1') ORDER BY distinct_id`)).toEqual([
      // a membership test is ClickHouse's UInt8, as every `in` (PostHog's HogQL answers 1/0)
      ['a1', 0],
      ['b1', 1],
    ]);
  });

  it('each compilation reads the cohort as the scope holds it then (a changed static list changes the query)', async () => {
    const compile = async () => {
      const cohorts = await loader.load(pid, [ids.static]);
      return runWithCohorts(cohorts, () =>
        compileProductQL({ query: `SELECT count() FROM events WHERE person_id IN COHORT ${ids.static}`, projectId: pid, timezone: 'UTC', dialect: 'duckdb' }),
      );
    };
    expect((await compile()).params).toContain(B);
    await store.db.getRepository(Cohort).update({ id: ids.static }, { static_person_ids: [A] });
    try {
      const after = await compile();
      expect(after.params).toContain(A);
      expect(after.params).not.toContain(B);
    } finally {
      await store.db.getRepository(Cohort).update({ id: ids.static }, { static_person_ids: [B] });
    }
  });

  it('a hogql property filter with IN COHORT in an insight', async () => {
    const node = {
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: 'random event' }],
      dateRange: { date_from: '2020-01-09', date_to: '2020-01-11' },
      interval: 'day',
      properties: [{ type: 'hogql', key: `person_id IN COHORT ${ids.chrome}` }],
    };
    const r = await loadAndRun(trendsRunner, node);
    expect(r.results[0].count).toBe(2);
  });

  it("another project's cohort is unknown, by id and by name; its own same-named cohort is its own", async () => {
    await expect(hogql(`SELECT count() FROM events WHERE person_id IN COHORT ${ids.otherChrome}`)).rejects.toMatchObject({
      status: 400,
      message: `Could not find cohort with ID ${ids.otherChrome}`,
    });
    expect(await rows("SELECT distinct_id FROM events WHERE person_id IN COHORT 'chrome users'", other)).toEqual([['b1']]);
    expect(await rows(`SELECT count() FROM events WHERE person_id IN COHORT ${ids.otherChrome}`, other)).toEqual([[1]]);
  });

  it.each([
    ['person_id IN COHORT true', 'cohort() takes exactly one string or integer argument'],
    ["person_id IN COHORT 'blabla'", "Could not find a cohort with the name 'blabla'"],
    ['person_id IN COHORT 999999', 'Could not find cohort with ID 999999'],
    ['person_id IN COHORT 99999999999999999999', 'Could not find cohort with ID 99999999999999999999'],
    ["person_id IN COHORT 'dup'", "Found multiple cohorts with name 'dup'"],
    ['person_id IN COHORT 1.5', 'cohort() takes exactly one string or integer argument'],
    ['person_id IN COHORT event', 'cohort() takes only constant arguments'],
  ])('test_in_cohort_error: %s', async (cond, message) => {
    await expect(hogql(`SELECT event FROM events WHERE ${cond}`)).rejects.toMatchObject({ status: 400, message, code: 'hogql_query_error' });
  });

  it('outside a cohort scope every cohort is unknown (a 400, never a crash)', async () => {
    await expect(h.run(productqlRunner, { kind: 'HogQLQuery', query: `SELECT 1 FROM events WHERE person_id IN COHORT ${ids.chrome}` }, pid)).rejects.toMatchObject({
      status: 400,
      message: `Could not find cohort with ID ${ids.chrome}`,
    });
  });

  it('productqlCohortIds finds references in HogQL text and hogql filters, by id and by name, and skips text that names none', async () => {
    expect(await productqlCohortIds({ kind: 'HogQLQuery', query: 'SELECT 1' }, pid, loader)).toEqual([]);
    expect(await productqlCohortIds({ kind: 'HogQLQuery', query: `SELECT 1 FROM events WHERE person_id IN COHORT 7 OR person_id NOT IN COHORT 'my cohort'` }, pid, loader)).toEqual([7, ids.static]);
    expect(await productqlCohortIds({ kind: 'TrendsQuery', properties: [{ type: 'hogql', key: 'person_id in cohort 8' }] }, pid, loader)).toEqual([8]);
    expect(await productqlCohortIds({ kind: 'HogQLQuery', query: 'SELECT in cohort (' }, pid, loader)).toEqual([]);
  });
});
