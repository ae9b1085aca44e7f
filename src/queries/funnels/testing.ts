/** Test harness for the insight runners: a real DuckDB engine fed through the real ingest path. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDbEngine } from '../../engines/duckdb/duckdb-engine';
import type { EventEngineBase } from '../../engines/engine';
import { testEngine, type TestEngineKind } from '../../engines/clickhouse/test-engine';
import { Ingestor } from '../../ingest/ingestor';
import type { Project } from '../../store/entities';
import type { QueryRunner, RunnerContext } from '../runner';
import { Timings } from '../timings';

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
