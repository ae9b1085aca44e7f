/**
 * Test support for ProductQL: a real in-memory DuckDB with the engine schema and two projects whose data
 * overlap (same distinct ids, same person UUIDs) but carry project-specific marker strings.
 * Project 2's rows all contain `P2_SECRET`; nothing compiled for project 1 may ever return it.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { DUCKDB_SCHEMA } from '../engines/duckdb/schema';
import { testEngine } from '../engines/clickhouse/test-engine';
import type { EventInsert, GroupUpsert } from '../engines/engine';
import { compileProductQL, shapeResult, type CompileProductQLInput, type CompiledProductQL, type ShapedResult } from './index';

export const P1A = '00000000-0000-4000-8000-00000000a001';
export const P1B = '00000000-0000-4000-8000-00000000a002';
export const P1C = '00000000-0000-4000-8000-00000000a003'; // merged into P1A (row deleted, override written)
export const P2X = '00000000-0000-4000-8000-00000000b001';

export const SECRET = 'P2_SECRET';

interface Ev {
  project: number;
  uuid: string;
  event: string;
  distinct_id: string;
  person_id: string | null;
  ts: string; // UTC
  props: Record<string, unknown>;
  session?: string | null;
}

let n = 0;
const uuid = (): string => `10000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;

export const EVENTS: Ev[] = [
  // Project 1, timezone tests use Europe/Berlin (DST starts 2024-03-31 01:00 UTC).
  { project: 1, uuid: uuid(), event: '$pageview', distinct_id: 'user1', person_id: P1A, ts: '2024-03-30 22:30:00', props: { $browser: 'Chrome', price: 10, marker: 'P1_MARKER', empty: '', nul: null, nested: { a: { b: 'deep' } } }, session: 's1' },
  { project: 1, uuid: uuid(), event: '$pageview', distinct_id: 'user1', person_id: P1A, ts: '2024-03-30 23:30:00', props: { $browser: 'Safari', price: 9.5, 'a.b': 'dotted', 'x/y': 'slashed', list: ['first', 'second', { k: 'third' }] }, session: 's1' },
  { project: 1, uuid: uuid(), event: '$pageview', distinct_id: 'user2', person_id: P1B, ts: '2024-03-31 21:30:00', props: { $browser: 'Chrome', price: '100' }, session: 's2' },
  { project: 1, uuid: uuid(), event: 'signup', distinct_id: 'user2', person_id: P1B, ts: '2024-03-31 22:30:00', props: { plan: 'pro', price: 'abc' }, session: 's2' },
  { project: 1, uuid: uuid(), event: '$pageview', distinct_id: 'user3', person_id: P1C, ts: '2024-04-01 10:00:00', props: {}, session: null },
  { project: 1, uuid: uuid(), event: '$pageview', distinct_id: 'anon', person_id: null, ts: '2024-04-01 11:00:00', props: { $browser: '' }, session: null },
  // Project 2: overlapping distinct ids and person ids, secrets everywhere.
  { project: 2, uuid: uuid(), event: '$pageview', distinct_id: 'user1', person_id: P1A, ts: '2024-03-30 22:30:00', props: { $browser: SECRET, price: 1000, marker: SECRET }, session: 's1' },
  { project: 2, uuid: uuid(), event: SECRET, distinct_id: 'user2', person_id: P2X, ts: '2024-03-31 12:00:00', props: { $browser: 'Chrome', marker: SECRET }, session: SECRET },
  { project: 2, uuid: uuid(), event: '$pageview', distinct_id: SECRET, person_id: P1C, ts: '2024-04-01 10:00:00', props: { marker: SECRET }, session: null },
];

export const PERSONS = [
  { project: 1, id: P1A, created: '2024-01-01 00:00:00', props: { email: 'a@p1.com', plan: 'pro', marker: 'P1_MARKER' }, identified: true },
  { project: 1, id: P1B, created: '2024-03-31 21:00:00', props: { email: 'b@p1.com', plan: 'free' }, identified: false },
  { project: 2, id: P1A, created: '2020-01-01 00:00:00', props: { email: SECRET, plan: SECRET, marker: SECRET }, identified: true },
  { project: 2, id: P2X, created: '2020-01-01 00:00:00', props: { email: SECRET, plan: SECRET }, identified: true },
  { project: 2, id: P1C, created: '2020-01-01 00:00:00', props: { email: SECRET, plan: SECRET }, identified: true },
];

export const PDIS = [
  { project: 1, distinct_id: 'user1', person: P1A },
  { project: 1, distinct_id: 'user2', person: P1B },
  { project: 1, distinct_id: 'user3', person: P1A },
  { project: 2, distinct_id: 'user1', person: P1A },
  { project: 2, distinct_id: SECRET, person: P2X },
];

export const OVERRIDES = [
  { project: 1, old: P1C, new: P1A },
  // Project 2 redirects project 1's person ids: must never apply to project 1.
  { project: 2, old: P1A, new: P2X },
  { project: 2, old: P1B, new: P2X },
];

/**
 * Groups: project 1's events carry no `$group_N` here (suites add their own); project 2 has groups of the same types
 * and keys as project 1, and one keyed `''` (the `$group_N` of every event without that group).
 */
export const GROUPS = [
  { project: 1, index: 0, key: 'org:1', created: '2024-01-02 00:00:00', props: { name: 'Org One', industry: 'tech', marker: 'P1_MARKER' } },
  { project: 1, index: 0, key: 'org:2', created: '2024-01-03 00:00:00', props: { name: 'Org Two', industry: 'retail' } },
  { project: 1, index: 1, key: 'team:1', created: '2024-01-04 00:00:00', props: { name: 'Team One' } },
  { project: 2, index: 0, key: 'org:1', created: '2020-01-01 00:00:00', props: { name: SECRET, industry: SECRET, marker: SECRET } },
  { project: 2, index: 0, key: '', created: '2020-01-01 00:00:00', props: { name: SECRET, marker: SECRET } },
  { project: 2, index: 1, key: 'team:1', created: '2020-01-01 00:00:00', props: { name: SECRET, marker: SECRET } },
];

/** {@link GROUPS} as the engine's group upserts. */
export const groupUpserts = (): GroupUpsert[] =>
  GROUPS.map((g) => ({
    project_id: g.project,
    group_type_index: g.index,
    group_key: g.key,
    created_at: Date.parse(g.created.replace(' ', 'T') + 'Z'),
    properties: g.props,
    version: 1,
  }));

const lit = (s: string): string => `'${s.replace(/'/g, "''")}'`;

export interface TestDb {
  conn: DuckDBConnection;
  run(sql: string, params?: unknown[]): Promise<{ rows: unknown[][]; types: string[]; columns: string[] }>;
  query(text: string | CompileProductQLInput['query'], opts?: Partial<CompileProductQLInput>): Promise<ShapedResult & { compiled: CompiledProductQL }>;
  /** Adds events (a suite's own data, e.g. under another project id) through the engine's write path or SQL. */
  addEvents(events: EventInsert[]): Promise<void>;
  /** Adds groups (a suite's own), like addEvents. */
  addGroups(groups: GroupUpsert[]): Promise<void>;
  /** DuckDB closes synchronously; ClickHouse (parametrized suites) stops its server: await it. */
  close(): void | Promise<void>;
}

/** The test data set in an in-memory DuckDB, or (suites run through runSuiteOnClickHouse) in a fresh ClickHouse. */
export async function createTestDb(): Promise<TestDb> {
  if (testEngine() === 'clickhouse') {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { startTestServer, createClickHouseTestDb } = require('../engines/clickhouse/testing') as typeof import('../engines/clickhouse/testing');
    const server = await startTestServer();
    const db = await createClickHouseTestDb({ url: server.url, nodeUrls: server.urls, cluster: server.cluster, database: 'semantics' }).catch(async (e) => {
      await server.stop();
      throw e;
    });
    return {
      conn: undefined as unknown as DuckDBConnection,
      run: (sql, params = []) => db.engine.query(sql, params),
      query: db.query,
      addEvents: (events) => db.engine.writeBatch({ events }),
      addGroups: (groups) => db.engine.writeBatch({ events: [], groups }),
      async close() {
        await db.close();
        await server.stop();
      },
    };
  }
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  for (const ddl of DUCKDB_SCHEMA) await conn.run(ddl);
  const evs = EVENTS.map(
    (e) =>
      `(${e.project}, ${lit(e.uuid)}, ${lit(e.event)}, ${lit(e.distinct_id)}, ${e.person_id ? lit(e.person_id) : 'NULL'}, TIMESTAMP ${lit(e.ts)}, ${lit(JSON.stringify(e.props))}, ${e.session ? lit(e.session) : 'NULL'}, NULL, TIMESTAMP ${lit(e.ts)})`,
  );
  await conn.run(`INSERT INTO events VALUES ${evs.join(', ')}`);
  await conn.run(
    `INSERT INTO persons VALUES ${PERSONS.map((p) => `(${p.project}, ${lit(p.id)}, TIMESTAMP ${lit(p.created)}, ${lit(JSON.stringify(p.props))}, ${p.identified}, 1)`).join(', ')}`,
  );
  await conn.run(`INSERT INTO person_distinct_ids (project_id, distinct_id, person_id, version) VALUES ${PDIS.map((p) => `(${p.project}, ${lit(p.distinct_id)}, ${lit(p.person)}, 1)`).join(', ')}`);
  await conn.run(
    `INSERT INTO query_log VALUES (1, 'q1', NULL, TIMESTAMP '2024-04-01 10:00:00', 'key:1', 'HogQLQuery', NULL, 'h1', '{"kind":"HogQLQuery"}', 12.5, 3, 100, false, 'ok', NULL),` +
      ` (2, 'q2', NULL, TIMESTAMP '2024-04-01 10:00:00', ${lit(SECRET)}, ${lit(SECRET)}, ${lit(SECRET)}, 'h2', ${lit(JSON.stringify({ q: SECRET }))}, 1, 1, 1, false, 'ok', NULL)`,
  );
  const groupRow = (g: GroupUpsert): string =>
    `(${g.project_id}, ${g.group_type_index}, ${lit(g.group_key)}, TIMESTAMP ${lit(new Date(g.created_at).toISOString().replace('T', ' ').replace('Z', ''))}, ${lit(JSON.stringify(g.properties))}, ${g.version})`;
  await conn.run(`INSERT INTO groups VALUES ${groupUpserts().map(groupRow).join(', ')}`);
  await conn.run(`INSERT INTO person_overrides VALUES ${OVERRIDES.map((o) => `(${o.project}, ${lit(o.old)}, ${lit(o.new)}, 1)`).join(', ')}`);

  const run: TestDb['run'] = async (sql, params = []) => {
    const reader = await conn.runAndReadAll(sql, params as never);
    return {
      rows: reader.getRowsJS() as unknown[][],
      types: reader.columnTypes().map((t) => t.toString()),
      columns: reader.columnNames(),
    };
  };
  const ts = (ms: number): string => `TIMESTAMP ${lit(new Date(ms).toISOString().replace('T', ' ').replace('Z', ''))}`;
  return {
    conn,
    run,
    async addEvents(events) {
      if (!events.length) return;
      const rows = events.map(
        (e) =>
          `(${e.project_id}, ${lit(e.uuid)}, ${lit(e.event)}, ${lit(e.distinct_id)}, ${e.person_id ? lit(e.person_id) : 'NULL'}, ${ts(e.timestamp)}, ${lit(e.properties)}, ${e.session_id === null ? 'NULL' : lit(e.session_id)}, ${e.elements_chain === null ? 'NULL' : lit(e.elements_chain)}, ${ts(e.created_at)})`,
      );
      await conn.run(`INSERT INTO events VALUES ${rows.join(', ')}`);
    },
    async addGroups(groups) {
      if (groups.length) await conn.run(`INSERT INTO groups VALUES ${groups.map(groupRow).join(', ')}`);
    },
    async query(text, opts = {}) {
      const compiled = await compileProductQL({ query: text, projectId: 1, timezone: 'Europe/Berlin', dialect: 'duckdb', ...opts });
      const r = await run(compiled.sql, compiled.params);
      return { ...shapeResult(r.rows, compiled, r.types), compiled };
    },
    close() {
      conn.closeSync();
      instance.closeSync();
    },
  };
}
