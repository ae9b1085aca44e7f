/** Test harness for the insight runners: a real DuckDB engine fed through the real ingest path. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDbEngine } from '../../engines/duckdb/duckdb-engine';
import type { EventEngineBase, GroupTypeUpsert, InternalStatements } from '../../engines/engine';
import type { ActionDef } from '../../actions/matching';
import { testEngine, type TestEngineKind } from '../../engines/clickhouse/test-engine';
import { Ingestor } from '../../ingest/ingestor';
import type { Project } from '../../store/entities';
import type { QueryRunner, RunnerContext } from '../runner';
import { Timings } from '../timings';
import { sessionModifiersOf } from '../session-modifiers';
import { shutdownParser } from '../../productql';
import { productqlRunner } from '../runners/productql-runner';

export interface Harness {
  /** Which engine this is (see src/engines/clickhouse/test-engine.ts: suites run on both). */
  kind: TestEngineKind;
  engine: EventEngineBase;
  ingestor: Ingestor;
  /** Imports into a fresh project id; returns it. */
  load(data: { persons?: unknown[]; events?: unknown[] }): Promise<number>;
  /** `extra`: more of the runner context (e.g. `actions`, the project's saved actions). */
  run(runner: QueryRunner, node: unknown, projectId: number, project?: Partial<Project>, extra?: Partial<RunnerContext>): Promise<any>;
  close(): Promise<void>;
}

let nextProject = 100;

export async function openHarness(): Promise<Harness> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-insights-'));
  const kind = testEngine();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ch = kind === 'clickhouse' ? await (require('../../engines/clickhouse/testing') as typeof import('../../engines/clickhouse/testing')).openClickHouseForTests() : null;
  const duck = ch ? null : await DuckDbEngine.open(path.join(dir, 'events.duckdb'));
  const engine: EventEngineBase = ch ? ch.engine : duck!;
  const ingestor = await Ingestor.open({ dataDir: dir, engine: ch ? ch.engine : duck!, flushIntervalMs: 50, fsync: false });
  return {
    kind,
    engine,
    ingestor,
    async load(data) {
      const id = nextProject++;
      const r = await ingestor.import(id, data);
      if (r.errors.length) throw new Error(JSON.stringify(r.errors));
      await ingestor.flush();
      return id;
    },
    async run(runner, node, projectId, project = {}, extra = {}) {
      const parsed = runner.schema.parse(node);
      return runner.run(parsed, {
        project: {
          id: projectId,
          name: 'p',
          timezone: 'UTC',
          week_start_day: 0,
          api_token: 't',
          test_account_filters: [],
          path_cleaning_filters: [],
          created_at: new Date(),
          ...project,
        } as Project,
        principal: { kind: 'personal', keyId: 'k', userId: 1, scopes: ['*'], projectIds: null },
        engine,
        timings: new Timings(),
        timeoutMs: 30_000,
        // as the query service reads them (session-modifiers.ts)
        sessionModifiers: sessionModifiersOf((parsed as { modifiers?: unknown }).modifiers),
        ...extra,
      });
    },
    async close() {
      await ingestor.close();
      await (ch ? ch.close() : engine.close());
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Builds import events quickly: `ev('alice', '$pageview', '2024-01-01T10:00:00Z', {...})`. */
export const ev = (distinct_id: string, event: string, timestamp: string, properties: Record<string, unknown> = {}) => ({
  distinct_id,
  event,
  timestamp,
  properties,
});

/** One person per distinct id. */
export const persons = (...ids: string[]) => ids.map((id) => ({ distinct_ids: [id], properties: {} }));

/** The runner context's saved actions (`run`'s `extra`): `defs` by id; ids of other actions are absent. */
export const actionSource = (defs: ActionDef[]): Partial<RunnerContext> => ({
  actions: { liveActions: async (_pid: number, ids: number[]) => new Map(defs.filter((d) => ids.includes(d.id)).map((d) => [d.id, d])) },
});

/** Writes project `id`'s group types organization (0) and company (1) and its `groups`, each [type index, key, properties]. */
export async function writeGroups(h: Harness, id: number, groups: [number, string, Record<string, unknown>][]): Promise<void> {
  const groupTypes: GroupTypeUpsert[] = ['organization', 'company'].map((g, i) => ({ project_id: id, group_type: g, group_type_index: i, name_singular: null, name_plural: null }));
  await (h.engine as unknown as InternalStatements).writeBatch({
    events: [],
    groupTypes,
    groups: groups.map(([index, key, properties]) => ({
      project_id: id,
      group_type_index: index,
      group_key: key,
      created_at: Date.parse('2020-01-01T00:00:00Z'),
      properties,
      version: 1,
    })),
  });
}

/**
 * `_create_groups` of test_funnel.py (organization (0) org:5 finance, org:6 technology; company (1) company:1), then
 * `events` with one person per distinct id, in a new project; its id.
 */
export async function loadWithGroups(h: Harness, events: ReturnType<typeof ev>[]): Promise<number> {
  const id = await h.load({ persons: persons(...new Set(events.map((e) => e.distinct_id))), events: [] });
  await writeGroups(h, id, [
    [0, 'org:5', { industry: 'finance' }],
    [0, 'org:6', { industry: 'technology' }],
    [1, 'company:1', {}],
  ]);
  const r = await h.ingestor.import(id, { events });
  if (r.errors.length) throw new Error(JSON.stringify(r.errors));
  await h.ingestor.flush();
  return id;
}

/** An import event as `ev` builds it. */
export type Ev = ReturnType<typeof ev>;

/**
 * breakdown_cases.py's journeys for test_funnel_breakdown_correct_breakdown_props_are_chosen(_for_step): person1's
 * `buy` lacks `$version`, so it fails a step filter on it and is discarded at step one.
 */
export const PROPS_CHOSEN_JOURNEYS: readonly Ev[] = [
  ev('person1', 'sign up', '2020-01-01T12:00:00Z', { $browser: 'Chrome', $version: 'xyz' }),
  ev('person1', 'buy', '2020-01-01T13:00:00Z', { $browser: 'Chrome' }),
  ev('person2', 'sign up', '2020-01-01T13:00:00Z'),
  ev('person2', 'buy', '2020-01-02T13:00:00Z', { $browser: 'Safari', $version: 'xyz' }),
  ev('person3', 'sign up', '2020-01-02T14:00:00Z', { $browser: 'Mac' }),
  ev('person3', 'buy', '2020-01-02T15:00:00Z', { $version: 'xyz', $browser: 'Mac' }),
];

/**
 * breakdown_cases.py's journeys for test_funnel_step_breakdown_with_{first_touch,last_touch,step_one}_attribution:
 * `sign up` → `buy` by five persons, `$browser` on different steps (person4's first value is the number 0, person5 has none).
 */
export const ATTRIBUTION_JOURNEYS: readonly Ev[] = [
  ev('person1', 'sign up', '2020-01-01T12:00:00Z', { $browser: 'Chrome' }),
  ev('person1', 'buy', '2020-01-01T13:00:00Z'),
  ev('person2', 'sign up', '2020-01-01T13:00:00Z'),
  ev('person2', 'buy', '2020-01-02T13:00:00Z', { $browser: 'Safari' }),
  ev('person3', 'sign up', '2020-01-02T14:00:00Z', { $browser: 'Mac' }),
  ev('person3', 'buy', '2020-01-02T15:00:00Z'),
  ev('person4', 'sign up', '2020-01-02T15:00:00Z', { $browser: 0 }),
  ev('person4', 'buy', '2020-01-02T16:00:00Z', { $browser: 'alakazam' }),
  ev('person5', 'sign up', '2020-01-02T15:00:00Z'),
  ev('person5', 'buy', '2020-01-02T16:00:00Z'),
];

/** A funnel series step: the EventsNode of `event` (null: all events) with `extra` fields. */
export const E = (event: string | null, extra: Record<string, unknown> = {}) => ({ kind: 'EventsNode', event, ...extra });

/** The count of each step of a funnel without breakdown. */
export const counts = (r: any) => (r.results as any[]).map((s) => s.count);

/** Breakdown results as [value, counts], sorted by value (PostHog's `sorted(results, key=lambda res: res[0]["breakdown"])`). */
export const byValue = (r: any) =>
  (r.results as any[][])
    .map((steps) => [steps[0].breakdown_value, steps.map((s) => s.count)] as [unknown, number[]])
    .sort((a, b) => (JSON.stringify(a[0]) < JSON.stringify(b[0]) ? -1 : 1));

/** `datetime(y, m, d, hh, mm, ss)` as an ISO UTC string. */
export const t = (y: number, m: number, d: number, hh = 0, mm = 0, ss = 0) => new Date(Date.UTC(y, m - 1, d, hh, mm, ss)).toISOString();

/**
 * For a ProductQL test file: `data` loaded into one project of a harness opened before the file's tests (closed,
 * with the parser worker, after them), and HogQLQuery helpers over that project.
 */
export function hogqlTestProject(data: { persons?: unknown[]; events?: unknown[] }) {
  let h: Harness;
  let pid: number;
  beforeAll(async () => {
    h = await openHarness();
    pid = await h.load(data);
  });
  afterAll(async () => {
    await h.close();
    await shutdownParser();
  });
  /** Runs a HogQLQuery node (`extra`: more of its fields, e.g. `filters`) on the project. */
  const hogql = (query: string, project?: Partial<Project>, extra: Record<string, unknown> = {}): Promise<any> =>
    h.run(productqlRunner, { kind: 'HogQLQuery', query, ...extra }, pid, project);
  const rows = async (query: string, project?: Partial<Project>): Promise<any[][]> => (await hogql(query, project)).results;
  return { hogql, rows, one: async (expr: string): Promise<unknown> => (await rows(`SELECT ${expr}`))[0][0], harness: () => h, projectId: () => pid };
}
