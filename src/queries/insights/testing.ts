/**
 * Test support for insight runners: a real DuckDB event store filled through the real ingest path
 * (identity rules, merges, historical timestamps), and a RunnerContext for a project with a chosen timezone.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDbEngine } from '../../engines/duckdb/duckdb-engine';
import type { EventEngineBase } from '../../engines/engine';
import { testEngine, type TestEngineKind } from '../../engines/clickhouse/test-engine';
import { Ingestor } from '../../ingest/ingestor';
import type { Project } from '../../store/entities';
import type { ActionDef, ActionSource } from '../../actions/matching';
import type { ActionStep } from '../../store/entities/action';
import type { QueryRunner, RunnerContext } from '../runner';
import { Timings } from '../timings';
import { setInsightsClock } from './date-range';
import { sessionModifiersOf } from '../session-modifiers';

/** An event and a person as the import takes them (the fixtures of the PostHog compatibility suites). */
export type TestEvent = { event: string; distinct_id: string; timestamp: string; properties?: Record<string, unknown> };
export type TestPerson = { distinct_ids: string[]; created_at?: string; properties?: Record<string, unknown> };

/**
 * The query clock of a test file, as PostHog's `freeze_time`: `const freeze = useInsightsClock();` at the top level,
 * then `freeze('2020-01-04T13:00:00Z')` in a hook or a test. Each call replaces the last; the real clock is back after
 * the file (`'each'`: after every test).
 */
export function useInsightsClock(restoreAfter: 'all' | 'each' = 'all'): (at: string | Date) => void {
  let restore: (() => void) | null = null;
  (restoreAfter === 'each' ? afterEach : afterAll)(() => {
    restore?.();
    restore = null;
  });
  return (at) => {
    restore?.();
    restore = setInsightsClock(new Date(at));
  };
}

/** An event for `db.load`/`db.project`: `ev('sign up', 'blabla', '2020-01-01T00:00:00Z', { key: 'val' })`. */
export const ev = (event: string, distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}): Required<TestEvent> => ({
  event,
  distinct_id,
  timestamp,
  properties,
});

/** An action step matching `event` (null: any event) and `properties`, every element field null. */
export const actionStep = (event: string | null, properties: unknown[] = []): ActionStep => ({
  event,
  properties,
  selector: null,
  tag_name: null,
  text: null,
  text_matching: null,
  href: null,
  href_matching: null,
  url: null,
  url_matching: null,
});

/** An action step with the defaults of PostHog's ActionStep model (any event, no properties, url_matching 'contains') under `s`. */
export const modelActionStep = (s: Partial<ActionStep>): ActionStep => ({ ...actionStep(null), url_matching: 'contains', ...s });

/**
 * Saved actions for a suite (PostHog's `Action.objects.create(steps_json=...)`): `action(name, steps)` stores one under
 * the next id from `firstId` and returns the id; `source` is what `db.actions` takes (ids of unknown actions are absent).
 */
export function actionRegistry(firstId: number): { actions: Map<number, ActionDef>; source: ActionSource; action(name: string, steps: ActionStep[]): number } {
  const actions = new Map<number, ActionDef>();
  let next = firstId;
  return {
    actions,
    source: { liveActions: async (_projectId, ids) => new Map(ids.filter((id) => actions.has(id)).map((id) => [id, actions.get(id)!])) },
    action(name, steps) {
      const id = next++;
      actions.set(id, { id, name, steps });
      return id;
    },
  };
}

export interface InsightTestDb {
  /** Which engine this is (see src/engines/clickhouse/test-engine.ts: suites run on both). */
  kind: TestEngineKind;
  engine: EventEngineBase;
  ingestor: Ingestor;
  /** Imports persons and events into `projectId` and flushes. */
  load(projectId: number, input: { persons?: unknown[]; events?: unknown[] }): Promise<void>;
  /** Loads persons and events into a new project of their own (ids from 100,000 up); its id. */
  project(persons: TestPerson[], events: TestEvent[]): Promise<number>;
  /** A context for `projectId` (timezone, week start, test-account filters overridable). */
  ctx(projectId: number, project?: Partial<Project>): RunnerContext;
  /** The saved actions runners see (RunnerContext.actions); none by default. */
  actions?: ActionSource;
  /** Validates `node` with the runner's schema (throws on error) and runs it. */
  run(runner: QueryRunner, node: unknown, projectId?: number, project?: Partial<Project>): Promise<any>;
  close(): Promise<void>;
}

export async function createInsightTestDb(): Promise<InsightTestDb> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-insights-'));
  const kind = testEngine();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ch = kind === 'clickhouse' ? await (require('../../engines/clickhouse/testing') as typeof import('../../engines/clickhouse/testing')).openClickHouseForTests() : null;
  const duck = ch ? null : await DuckDbEngine.open(path.join(dir, 'events.duckdb'));
  const engine: EventEngineBase = ch ? ch.engine : duck!;
  const ingestor = await Ingestor.open({ dataDir: dir, engine: ch ? ch.engine : duck!, flushIntervalMs: 50, fsync: false });
  const ctx = (projectId: number, project: Partial<Project> = {}): RunnerContext => ({
    project: {
      id: projectId,
      name: 'test',
      timezone: 'UTC',
      week_start_day: 0,
      api_token: 'phc_test',
      test_account_filters: [],
      path_cleaning_filters: [],
      created_at: new Date(),
      ...project,
    } as Project,
    principal: { kind: 'personal', keyId: 'k', userId: 1, scopes: ['*'], projectIds: null },
    engine,
    timings: new Timings(),
    timeoutMs: 30_000,
    actions: db.actions,
  });
  let nextProject = 100_000;
  const db: InsightTestDb = {
    kind,
    engine,
    ingestor,
    async load(projectId, input) {
      const r = await ingestor.import(projectId, input);
      if ((r as { errors?: unknown[] }).errors?.length) throw new Error(`import errors: ${JSON.stringify((r as { errors: unknown[] }).errors)}`);
      await ingestor.flush();
    },
    async project(persons, events) {
      const id = nextProject++;
      await db.load(id, { persons, events });
      return id;
    },
    ctx,
    async run(runner, node, projectId = 1, project = {}) {
      const parsed = runner.schema.safeParse(node);
      if (!parsed.success) throw parsed.error;
      // the query's session modifiers, as the query service reads them for every kind
      return runner.run(parsed.data, { ...ctx(projectId, project), sessionModifiers: sessionModifiersOf((parsed.data as { modifiers?: unknown }).modifiers) });
    },
    async close() {
      await ingestor.close();
      await (ch ? ch.close() : engine.close());
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return db;
}

// ------------------------------------------------------------------------------ PostHog's test_trends.py fixtures

/** test_trends.py `_create_event_count_per_actor_events()`, with its `$group_0` keys. */
export const eventCountPerActorFixture = (): { persons: TestPerson[]; events: TestEvent[] } => ({
  persons: [
    { distinct_ids: ['blabla', 'anonymous_id'], properties: { fruit: 'mango' } },
    { distinct_ids: ['tintin'], properties: { fruit: 'mango' } },
    { distinct_ids: ['murmur'], properties: {} },
    { distinct_ids: ['reeree'], properties: { fruit: 'tomato' } },
  ],
  events: [
    ev('viewed video', 'anonymous_id', '2020-01-01T00:06:02Z', { color: 'red', $group_0: 'bouba' }),
    ev('viewed video', 'blabla', '2020-01-01T00:06:02Z', { $group_0: 'bouba' }), // no color
    ev('viewed video', 'reeree', '2020-01-01T00:06:02Z', { color: 'blue', $group_0: 'bouba' }),
    ev('sign up', 'tintin', '2020-01-01T00:06:02Z', { $group_0: 'kiki' }),
    ev('sign up', 'murmur', '2020-01-03T19:06:34Z', { $group_0: 'kiki' }),
    ev('viewed video', 'tintin', '2020-01-04T23:17:00Z', { color: 'red', $group_0: 'kiki' }),
    ev('viewed video', 'blabla', '2020-01-05T19:06:34Z', { color: 'blue', $group_0: 'bouba' }),
    ev('viewed video', 'tintin', '2020-01-05T19:06:34Z', { color: 'red' }), // no group
    ev('viewed video', 'tintin', '2020-01-05T19:06:34Z', { color: 'red', $group_0: 'bouba' }),
    ev('viewed video', 'tintin', '2020-01-05T19:06:34Z', { color: 'red', $group_0: 'kiki' }),
  ],
});

/** test_trends.py `_create_active_users_events()`. */
export const activeUsersFixture = (): { persons: TestPerson[]; events: TestEvent[] } => ({
  persons: [
    { distinct_ids: ['p0'], properties: { name: 'p1' } },
    { distinct_ids: ['p1'], properties: { name: 'p1' } },
    { distinct_ids: ['p2'], properties: { name: 'p2' } },
  ],
  events: [
    ev('$pageview', 'p0', '2020-01-03T11:00:00Z', { key: 'val' }),
    ev('$pageview', 'p0', '2020-01-03T12:00:00Z', { key: 'val' }),
    ev('$pageview', 'p1', '2020-01-09T12:00:00Z', { key: 'bor' }),
    ev('$pageview', 'p1', '2020-01-10T12:00:00Z', { key: 'bor' }),
    ev('$pageview', 'p1', '2020-01-11T12:00:00Z', { key: 'val' }),
    ev('$pageview', 'p1', '2020-01-12T12:00:00Z', { key: 'val' }),
    ev('$pageview', 'p2', '2020-01-09T12:00:00Z', { key: 'val' }),
    ev('$pageview', 'p2', '2020-01-11T12:00:00Z', { key: 'bor' }),
  ],
});
