/**
 * `quarry migrate-events --to clickhouse`: copies a DuckDB event store into ClickHouse, project by project, with
 * progress and a per-project count check at the end.
 *
 * - Run it with the server stopped (DuckDB lets one process open the file).
 * - Events go in batches through the same writeBatch path ingestion uses; identity rows (persons, distinct ids,
 *   overrides) are copied with their versions. The ingest checkpoint is copied too, so switching
 *   QUARRY_EVENTS_ENGINE afterwards neither replays nor skips the durable log.
 * - Re-running is safe: a project that already has rows in ClickHouse is deleted there first and copied again
 *   (events only collapse by uuid when parts merge, so copying over them would count twice until then).
 * - The query log is diagnostics and is not copied.
 */
import type { DuckDbEngine, WriteBatch } from '../duckdb/duckdb-engine';
import type { ClickHouseEngine } from './clickhouse-engine';

export interface MigrateProgress {
  projectId: number;
  events: number;
  totalEvents: number;
}

export interface ProjectCheck {
  projectId: number;
  table: 'events' | 'persons' | 'person_distinct_ids' | 'person_overrides';
  source: number;
  target: number;
}

export interface MigrateResult {
  projects: number[];
  events: number;
  checks: ProjectCheck[];
  /** True when every count matched. */
  ok: boolean;
}

const obj = (v: unknown): Record<string, unknown> => {
  if (typeof v === 'string') {
    try {
      return JSON.parse(v) as Record<string, unknown>;
    } catch {
      return {};
    }
  }
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
};

export async function migrateEventsToClickHouse(
  source: DuckDbEngine,
  target: ClickHouseEngine,
  opts: { batchSize?: number; onProgress?: (p: MigrateProgress) => void } = {},
): Promise<MigrateResult> {
  const batchSize = opts.batchSize ?? 50_000;
  const projects = (
    await source.query(
      `SELECT DISTINCT project_id FROM (SELECT project_id FROM events UNION ALL SELECT project_id FROM persons
         UNION ALL SELECT project_id FROM person_distinct_ids UNION ALL SELECT project_id FROM person_overrides
         UNION ALL SELECT project_id FROM group_type_mapping) ORDER BY 1`,
      [],
    )
  ).rows.map((r) => Number(r[0]));
  let copied = 0;
  for (const projectId of projects) {
    const existingRows = async () =>
      Number(
        (
          await target.query(
            `SELECT (SELECT count() FROM events WHERE project_id = ${projectId}) + (SELECT count() FROM persons WHERE project_id = ${projectId})`,
            [],
          )
        ).rows[0][0],
      );
    if ((await existingRows()) > 0) {
      await target.deleteProject(projectId);
      // Copying over rows a mutation has not removed yet would count them twice: wait until none is visible.
      const deadline = Date.now() + 120_000;
      while ((await existingRows()) > 0) {
        if (Date.now() > deadline) throw new Error(`project ${projectId}: ClickHouse still holds rows after the delete`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const [persons, dids, overrides, groups] = await Promise.all([
      source.query('SELECT id::VARCHAR, epoch_ms(created_at), properties, is_identified, version FROM persons WHERE project_id = $1', [projectId]),
      source.query('SELECT distinct_id, person_id::VARCHAR, version, seq FROM person_distinct_ids WHERE project_id = $1', [projectId]),
      source.query('SELECT old_person_id::VARCHAR, override_person_id::VARCHAR, version FROM person_overrides WHERE project_id = $1', [projectId]),
      source.loadGroups(projectId),
    ]);
    await target.writeBatch({
      events: [],
      persons: persons.rows.map((r) => ({
        project_id: projectId,
        id: String(r[0]),
        created_at: Number(r[1]),
        properties: obj(r[2]),
        is_identified: Boolean(r[3]),
        version: Number(r[4]),
      })),
      distinctIds: dids.rows.map((r) => ({ project_id: projectId, distinct_id: String(r[0]), person_id: String(r[1]), version: Number(r[2]), seq: Number(r[3] ?? 0) })),
      overrides: overrides.rows.map((r) => ({ project_id: projectId, old_person_id: String(r[0]), override_person_id: String(r[1]), version: Number(r[2]) })),
      groups: groups.groups.map((g) => ({ project_id: projectId, ...g })),
      groupTypes: groups.types.map((t) => ({ project_id: projectId, ...t })),
    });
    const total = Number((await source.query('SELECT count(*) FROM events WHERE project_id = $1', [projectId])).rows[0][0]);
    let done = 0;
    opts.onProgress?.({ projectId, events: 0, totalEvents: total });
    // Keyset pagination on (timestamp, uuid): stable and linear, whatever the table size.
    let after: [number, string] | null = null;
    for (;;) {
      const page: { rows: unknown[][] } = await source.query(
        `SELECT uuid::VARCHAR, event, distinct_id, person_id::VARCHAR, epoch_ms(timestamp), CAST(properties AS VARCHAR), "$session_id",
                elements_chain, epoch_ms(created_at), epoch_us(timestamp)
           FROM events WHERE project_id = $1 ${after ? 'AND (epoch_us(timestamp), uuid::VARCHAR) > ($2, $3)' : ''}
           ORDER BY epoch_us(timestamp), uuid::VARCHAR LIMIT ${batchSize}`,
        after ? [projectId, after[0], after[1]] : [projectId],
      );
      if (page.rows.length === 0) break;
      const batch: WriteBatch = {
        events: page.rows.map((r) => ({
          project_id: projectId,
          uuid: String(r[0]),
          event: String(r[1]),
          distinct_id: String(r[2]),
          person_id: r[3] === null ? null : String(r[3]),
          timestamp: Number(r[4]),
          properties: String(r[5]),
          session_id: r[6] === null ? null : String(r[6]),
          elements_chain: r[7] === null ? null : String(r[7]),
          created_at: Number(r[8]),
        })),
      };
      await target.writeBatch(batch);
      done += page.rows.length;
      copied += page.rows.length;
      const last = page.rows[page.rows.length - 1];
      after = [Number(last[9]), String(last[0])];
      opts.onProgress?.({ projectId, events: done, totalEvents: total });
    }
  }
  const checkpoint = Number((await source.query('SELECT coalesce(max(applied_seq), 0) FROM ingest_checkpoint', [])).rows[0][0]);
  if (checkpoint > (await target.getCheckpoint())) await target.writeBatch({ events: [], checkpoint });

  // Both engines count the same way (engine.ts projectCounts: distinct event uuids, live identity rows).
  const checks: ProjectCheck[] = [];
  const tables = ['events', 'persons', 'person_distinct_ids', 'person_overrides'] as const;
  for (const projectId of projects) {
    const [src, dst] = await Promise.all([source.projectCounts(projectId), target.projectCounts(projectId)]);
    for (const table of tables) checks.push({ projectId, table, source: src[table], target: dst[table] });
  }
  return { projects, events: copied, checks, ok: checks.every((c) => c.source === c.target) };
}

export const MIGRATE_EVENTS_USAGE =
  'quarry migrate-events --to clickhouse   (server stopped; ClickHouse from QUARRY_CLICKHOUSE_*; copies <data dir>/events.duckdb)';

/**
 * `quarry migrate-events --to clickhouse`: the CLI face of {@link migrateEventsToClickHouse}. Prints progress to
 * stderr and a per-project check table; exits 0 when every count matched, 2 otherwise, 1 on bad usage.
 */
export async function migrateEventsCommand(config: import('../../config').Config, args: string[]): Promise<number> {
  const { parseArgs } = await import('node:util');
  const { values } = parseArgs({ args, options: { to: { type: 'string' }, 'batch-size': { type: 'string' } } });
  if (values.to !== 'clickhouse') {
    console.error(`Usage: ${MIGRATE_EVENTS_USAGE}`);
    return 1;
  }
  const path = await import('node:path');
  const { DuckDbEngine } = await import('../duckdb/duckdb-engine');
  const { ClickHouseEngine } = await import('./clickhouse-engine');
  const ch = config.clickhouse ?? {
    url: 'http://127.0.0.1:8123',
    nodeUrls: ['http://127.0.0.1:8123'],
    user: 'default',
    password: '',
    database: 'quarry',
  };
  const duck = await DuckDbEngine.open(path.join(config.dataDir, 'events.duckdb'));
  try {
    const target = await ClickHouseEngine.open({
      url: ch.url,
      nodeUrls: ch.nodeUrls,
      username: ch.user,
      password: ch.password,
      database: ch.database,
      cluster: ch.cluster,
    });
    try {
      const r = await migrateEventsToClickHouse(duck, target, {
        batchSize: values['batch-size'] ? Number(values['batch-size']) : undefined,
        onProgress: (p) => console.error(`project ${p.projectId}: ${p.events}/${p.totalEvents} events`),
      });
      for (const c of r.checks)
        console.log(`${c.projectId}\t${c.table}\tduckdb=${c.source}\tclickhouse=${c.target}\t${c.source === c.target ? 'ok' : 'MISMATCH'}`);
      console.error(r.ok ? `Copied ${r.events} events of ${r.projects.length} projects; all counts match.` : 'Counts differ: see MISMATCH lines.');
      return r.ok ? 0 : 2;
    } finally {
      await target.close();
    }
  } finally {
    await duck.close();
  }
}
