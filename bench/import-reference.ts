/**
 * The import target's references, measured in the same run as Quarry's import (bench/import.ts), on the same file,
 * each into a fresh DuckDB file with Quarry's events table, timed up to a CHECKPOINT as Quarry's import is:
 *
 * - **appender**: "DuckDB's appender fed row by row from JS" (../shared/bench-reference.md: 371k events/s). The
 *   file's events are decoded into JS values untimed, a batch of 100,000 at a time; only the row-by-row appends
 *   (one `append*` call per value, `endRow`), the flush and the checkpoint are timed. Nothing is validated, no
 *   person is resolved, no duplicate looked for: the floor of loading from JS. Twice: into Quarry's events table
 *   (10 columns), and into the reference's 4-column one (person_id, event, timestamp, properties), the layout
 *   its figure was measured on. The cost is mostly per value appended, so the column count matters (here, 300k
 *   events: ~4.3 µs of CPU per row for 10 columns, ~3 µs for 4).
 * - **bulk load**: DuckDB reading the (decompressed, untimed) file itself, `INSERT INTO events SELECT … FROM
 *   read_json(…)` with the columns typed, no validation or identity: the floor of loading at all.
 */
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { DuckDBInstance, DuckDBTimestampValue, DuckDBUUIDValue, type DuckDBConnection } from '@duckdb/node-api';
import { DUCKDB_SCHEMA } from '../src/engines/duckdb/schema';
import { openInput } from '../src/ingest/import-file';

export interface LoadTiming {
  events: number;
  seconds: number;
  eventsPerSecond: number;
  /** CPU seconds of this process (all threads) in the timed part. */
  cpuSeconds: number;
}

const BATCH = 100_000;

const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

const REFERENCE_TABLE_SQL = 'CREATE TABLE events (person_id UUID, event VARCHAR, "timestamp" TIMESTAMP, properties JSON)';

async function freshDb(dir: string, name: string, tableSql = DUCKDB_SCHEMA[0]): Promise<{ inst: DuckDBInstance; conn: DuckDBConnection; file: string }> {
  const file = path.join(dir, `${name}.duckdb`);
  fs.rmSync(file, { force: true });
  fs.rmSync(`${file}.wal`, { force: true });
  // The memory limit Quarry's import runs under.
  const inst = await DuckDBInstance.create(file, { memory_limit: '512MB' });
  const conn = await inst.connect();
  await conn.run(tableSql);
  return { inst, conn, file };
}

type Row = [bigint, string, string, bigint, string, string | null];

/** The appender reference into Quarry's events table, or the reference's 4-column one: see the module comment. */
export async function appenderLoad(ndjson: string, dir: string, layout: 'quarry' | 'reference'): Promise<LoadTiming> {
  const { inst, conn } = await freshDb(dir, `reference-appender-${layout}`, layout === 'quarry' ? DUCKDB_SCHEMA[0] : REFERENCE_TABLE_SQL);
  const createdAt = new DuckDBTimestampValue(BigInt(Date.now()) * 1000n);
  let events = 0;
  let seconds = 0;
  let cpuSeconds = 0;
  try {
    const appender = await conn.createAppender('events');
    const append = (rows: Row[]) => {
      const t0 = performance.now();
      const c0 = cpuNow();
      if (layout === 'reference') {
        for (const [uuid, event, , ts, props] of rows) {
          appender.appendUUID(DuckDBUUIDValue.fromUint128(uuid)); // stands for the person id
          appender.appendVarchar(event);
          appender.appendTimestamp(new DuckDBTimestampValue(ts));
          appender.appendVarchar(props);
          appender.endRow();
        }
      } else {
        for (const [uuid, event, distinctId, ts, props, sid] of rows) {
          appender.appendInteger(1);
          appender.appendUUID(DuckDBUUIDValue.fromUint128(uuid));
          appender.appendVarchar(event);
          appender.appendVarchar(distinctId);
          appender.appendNull();
          appender.appendTimestamp(new DuckDBTimestampValue(ts));
          appender.appendVarchar(props);
          if (sid === null) appender.appendNull();
          else appender.appendVarchar(sid);
          appender.appendNull();
          appender.appendTimestamp(createdAt);
          appender.endRow();
        }
      }
      seconds += (performance.now() - t0) / 1000;
      cpuSeconds += cpuNow() - c0;
      events += rows.length;
    };
    const { stream } = await openInput(ndjson);
    let rows: Row[] = [];
    for await (const line of readline.createInterface({ input: stream, crlfDelay: Infinity })) {
      if (!line) continue;
      const o = JSON.parse(line) as Record<string, unknown>;
      if (typeof o.event !== 'string') continue; // persons
      const p = (o.properties ?? {}) as Record<string, unknown>;
      rows.push([
        BigInt(`0x${String(o.uuid).replace(/-/g, '')}`),
        o.event,
        String(o.distinct_id),
        BigInt(Date.parse(String(o.timestamp))) * 1000n,
        JSON.stringify(p),
        typeof p.$session_id === 'string' ? p.$session_id : null,
      ]);
      if (rows.length === BATCH) {
        append(rows);
        rows = [];
      }
    }
    append(rows);
    const t0 = performance.now();
    const c0 = cpuNow();
    appender.flushSync();
    appender.closeSync();
    await conn.run('CHECKPOINT');
    seconds += (performance.now() - t0) / 1000;
    cpuSeconds += cpuNow() - c0;
  } finally {
    conn.closeSync();
    inst.closeSync();
  }
  return { events, seconds: round(seconds, 2), eventsPerSecond: Math.round(events / seconds), cpuSeconds: round(cpuSeconds, 2) };
}

/** The bulk-load reference: see the module comment. */
export async function bulkLoad(ndjson: string, dir: string): Promise<LoadTiming> {
  const plain = path.join(dir, 'reference-events.ndjson');
  const { stream } = await openInput(ndjson);
  await new Promise<void>((resolve, reject) => stream.pipe(fs.createWriteStream(plain)).on('finish', resolve).on('error', reject));
  const { inst, conn } = await freshDb(dir, 'reference-bulk');
  try {
    const t0 = performance.now();
    const c0 = cpuNow();
    const r = await conn.run(
      `INSERT INTO events
       SELECT 1, uuid, event, distinct_id, NULL, "timestamp", properties, properties->>'$."$session_id"', NULL, now()
       FROM read_json(${`'${plain.replace(/'/g, "''")}'`}, format = 'newline_delimited',
         columns = {uuid: 'UUID', event: 'VARCHAR', distinct_id: 'VARCHAR', "timestamp": 'TIMESTAMP', properties: 'JSON'})
       WHERE event IS NOT NULL`,
    );
    await conn.run('CHECKPOINT');
    const seconds = (performance.now() - t0) / 1000;
    const events = Number(r.rowsChanged);
    return { events, seconds: round(seconds, 2), eventsPerSecond: Math.round(events / seconds), cpuSeconds: round(cpuNow() - c0, 2) };
  } finally {
    conn.closeSync();
    inst.closeSync();
    fs.rmSync(plain, { force: true });
  }
}

function round(x: number, d: number): number {
  const f = 10 ** d;
  return Math.round(x * f) / f;
}
