/** Copying a DuckDB event store into ClickHouse: progress, per-project verification, idempotence, same answers. */
import '../../productql/clickhouse';
import { compileProductQL, shapeResult, shutdownParser } from '../../productql/index';
import { DuckDbEngine } from '../duckdb/duckdb-engine';
import { ClickHouseEngine } from './clickhouse-engine';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../config';
import { migrateEventsCommand, migrateEventsToClickHouse, type MigrateProgress } from './migrate';
import { describeClickHouse, startSingle, type TestServer } from './test-server';

const P = (n: number) => `50000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const U = (n: number) => `60000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describeClickHouse('migrate-events --to clickhouse', () => {
  let server: TestServer;
  let duck: DuckDbEngine;
  let ch: ClickHouseEngine;
  beforeAll(async () => {
    server = await startSingle();
    duck = await DuckDbEngine.open(':memory:');
    ch = await ClickHouseEngine.open({ url: server.url, database: 'migrated' });
    const base = Date.UTC(2024, 2, 1);
    for (const project of [1, 2]) {
      await duck.writeBatch({
        events: Array.from({ length: 7 }, (_, i) => ({
          project_id: project,
          uuid: U(project * 100 + i),
          event: i % 2 ? 'signup' : '$pageview',
          distinct_id: `d${i % 3}`,
          person_id: i % 3 === 2 ? null : P(i % 3),
          timestamp: base + i * 3_600_000 + (i % 2) * 7, // sub-second parts survive
          properties: JSON.stringify({ i, quote: "it's \\ \u0000", project }),
          session_id: i % 2 ? null : 's',
          elements_chain: null,
          created_at: base,
        })),
        newPersons: [0, 1].map((k) => ({ project_id: project, id: P(k), created_at: base, properties: { plan: k ? 'pro' : 'free' }, is_identified: k === 1, version: 1 })),
        newDistinctIds: [0, 1].map((k) => ({ project_id: project, distinct_id: `d${k}`, person_id: P(k), version: 1 })),
        overrides: [{ project_id: project, old_person_id: P(9), override_person_id: P(1), version: 2 }],
        checkpoint: 42,
      });
    }
  });
  afterAll(async () => {
    await ch?.close();
    await duck?.close();
    await server?.stop();
    await shutdownParser();
  });

  it('copies every project with progress and matching counts, twice without duplicates', async () => {
    const progress: MigrateProgress[] = [];
    const r = await migrateEventsToClickHouse(duck, ch, { batchSize: 3, onProgress: (p) => progress.push(p) });
    expect(r.projects).toEqual([1, 2]);
    expect(r.events).toBe(14);
    expect(r.ok).toBe(true);
    expect(r.checks).toHaveLength(8);
    expect(progress.filter((p) => p.projectId === 1).map((p) => p.events)).toEqual([0, 3, 6, 7]);
    expect(await ch.getCheckpoint()).toBe(42);
    const again = await migrateEventsToClickHouse(duck, ch, { batchSize: 100 });
    expect(again.ok).toBe(true);
  });

  it('runs as a command on the data directory, checking every project', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-migrate-'));
    try {
      const file = await DuckDbEngine.open(path.join(dataDir, 'events.duckdb'));
      await file.writeBatch({ events: [{ project_id: 9, uuid: U(900), event: 'x', distinct_id: 'd', person_id: null, timestamp: Date.UTC(2024, 0, 1), properties: '{}', session_id: null, elements_chain: null, created_at: Date.UTC(2024, 0, 1) }] });
      await file.close();
      const config = loadConfig({ QUARRY_DATA_DIR: dataDir, QUARRY_EVENTS_ENGINE: 'clickhouse', QUARRY_CLICKHOUSE_URL: server.url, QUARRY_CLICKHOUSE_DATABASE: 'from_cli' });
      const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
      const err = jest.spyOn(console, 'error').mockImplementation(() => undefined);
      try {
        expect(await migrateEventsCommand(config, ['--to', 'duckdb'])).toBe(1);
        expect(await migrateEventsCommand(config, ['--to', 'clickhouse'])).toBe(0);
        expect(log.mock.calls.map((c) => c[0])).toContain('9\tevents\tduckdb=1\tclickhouse=1\tok');
      } finally {
        log.mockRestore();
        err.mockRestore();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('answers ProductQL the same on both engines afterwards', async () => {
    const text =
      "select event, timestamp, properties.quote, person.properties.plan, person_id, $session_id from events order by timestamp, event";
    const run = async (dialect: 'duckdb' | 'clickhouse') => {
      const c = await compileProductQL({ query: text, projectId: 2, timezone: 'UTC', dialect });
      const r = await (dialect === 'duckdb' ? duck : ch).query(c.sql, c.params);
      return shapeResult(r.rows, c, r.types).results;
    };
    const [d, c] = await Promise.all([run('duckdb'), run('clickhouse')]);
    expect(c).toEqual(d);
    expect(c[1][1]).toBe('2024-03-01T01:00:00.007000Z');
  });
});
