/**
 * The hostile ProductQL corpus of hostile.test.ts (read from that file, so both engines face the same list),
 * plus ClickHouse-specific attacks (table functions, system tables, dictionaries), compiled by the ClickHouse
 * printer and run against a real ClickHouse holding two projects. Every query must be refused with a 400 or run
 * and return nothing of project 2; every engine table reference in the SQL carries the project guard, and the
 * only string literals the printer writes itself are its own fixed ones (everything else is an escaped value).
 */
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors';
import { describeClickHouse, startSingle, type TestServer } from '../engines/clickhouse/test-server';
import { createClickHouseTestDb, type ClickHouseTestDb } from '../engines/clickhouse/testing';
import { clickhouseDialect } from './clickhouse';
import { compileProductQL, dialectPrinter, parseSelect, setParseTimeout, shutdownParser } from './index';
import { P2X, SECRET } from './testing';

/** Evaluates the corpus arrays of hostile.test.ts (plain string expressions and its two helpers). */
function loadCorpus(): { mustReject: string[]; mayRun: string[] } {
  const src = fs.readFileSync(path.join(__dirname, 'hostile.test.ts'), 'utf8');
  const grab = (name: string): string[] => {
    const m = new RegExp(`const ${name}: string\\[\\] = \\[([\\s\\S]*?)\\n\\];`).exec(src);
    if (!m) throw new Error(`hostile.test.ts no longer defines ${name} as expected; update this loader`);
    const deep = (n: number, open: string, inner: string, close: string): string => open.repeat(n) + inner + close.repeat(n);
    const nestedSubqueries = (n: number): string => {
      let q = 'SELECT properties FROM events';
      for (let i = 0; i < n; i++) q = `SELECT properties FROM (${q})`;
      return q;
    };
    return new Function('deep', 'nestedSubqueries', 'P2X', `return [${m[1]}];`)(deep, nestedSubqueries, P2X) as string[];
  };
  return { mustReject: grab('MUST_REJECT'), mayRun: grab('MAY_RUN') };
}

const corpus = loadCorpus();

const CLICKHOUSE_REJECT = [
  "select * from url('http://127.0.0.1:1/x', CSV, 'a String')",
  "select * from file('/etc/passwd', TSV, 'a String')",
  "select * from remote('127.0.0.1', system.one)",
  "select * from remote('127.0.0.1', default, events)",
  "select * from cluster('quarry_test', default, events)",
  "select * from s3('http://x/y', 'CSV', 'a String')",
  "select * from merge(currentDatabase(), '.*')",
  'select * from numbers_mt(10)',
  'select * from zeros(10)',
  "select * from jdbc('x', 'y')",
  "select * from mysql('127.0.0.1:3306', 'db', 't', 'u', 'p')",
  "select * from input('a String')",
  'select * from system.one',
  'select * from system.numbers',
  'select * from system.parts',
  'select * from system.processes',
  'select * from system.query_log',
  'select * from system.users',
  'select * from quarry.events',
  'select * from default.events',
  'select * from events_local',
  'select * from ingest_checkpoint',
  'select * from quarry_schema',
  'select (select count() from system.tables)',
  'select event from events where event in (select name from system.tables)',
  "select dictGetString('d', 'a', toUInt64(1))",
  'select currentDatabase()',
  'select hostName()',
  'select version()',
  "select getSetting('max_memory_usage')",
  'select sleepEachRow(3) from events',
  "select visitParamExtractRaw(properties, 'x') from events",
  "select toColumnTypeName(1)",
  "select dumpColumnStructure(1)",
  'select * from events final settings max_threads = 1',
  "select * from events into outfile '/tmp/x'",
  'kill query where 1',
  'optimize table events final',
  "alter table events delete where 1",
  'truncate table events',
  'rename table events to x',
  'system shutdown',
  'show processlist',
  'exists table events',
  'set readonly = 0',
];

/** String literals the ClickHouse dialect writes itself (everything else must be a spliced bound value). */
const INTERNAL_LITERALS = new Set([
  "'\"'",
  "'null'",
  "''",
  "'{\"k\":'",
  "'}'",
  "'k'",
  "'(?i)'",
  "'^\\\\s+|\\\\s+$'",
  "'true'",
  ...['1', 't', 'yes', 'y', 'false', '0', 'f', 'no', 'n'].map((x) => `'${x}'`),
  ...['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'].map((u) => `'${u}'`),
]);

const TABLES = 'events|persons|person_distinct_ids|person_overrides|query_log|ingest_checkpoint|quarry_schema|groups|group_type_mapping';

/** Checks the printed SQL before values are spliced in (placeholders are `\u0001n\u0001`). */
function assertGuarded(presplice: string, params: unknown[]): void {
  const guard = `\u0001${params.indexOf(1) + 1}\u0001`;
  // Every engine table is referenced only as `FROM `t` AS `a` [FINAL] WHERE `a`.`project_id` = <project 1>`.
  const bare = presplice.replace(/`(?:[^`\\]|\\.)*`/g, (m) => (new RegExp(`^\`(${TABLES})\`$`).test(m) ? m : '`_`'));
  const relations = bare.match(new RegExp(`(FROM|JOIN) \`(${TABLES})\``, 'g')) ?? [];
  const refs = [...presplice.matchAll(new RegExp(`FROM \`(${TABLES})\` AS (\`(?:[^\`\\\\]|\\\\.)*\`)( FINAL)? WHERE \\2\\.\`project_id\` = ${guard}`, 'g'))];
  expect(refs.length).toBe(relations.length);
  if (refs.length) expect(params).toContain(1);
  for (const lit of bare.match(/'(?:[^'\\]|\\.)*'/g) ?? []) expect(INTERNAL_LITERALS.has(lit)).toBe(true);
  expect(bare).not.toMatch(/\bsystem\s*\.|\b(url|file|remote|remoteSecure|cluster|s3|merge|jdbc|mysql|input|hdfs)\s*\(/i);
  // The only table function is the printer's own numbers(<offset>, <count>) (ProductQL's numbers(), reference §10).
  expect(bare.replace(/FROM numbers\(\d+, \d+\)/g, '')).not.toMatch(/\b(numbers|numbers_mt|zeros)\s*\(/i);
}

describeClickHouse('hostile corpus against the ClickHouse printer', () => {
  let server: TestServer;
  let db: ClickHouseTestDb;
  const printer = dialectPrinter(clickhouseDialect);
  beforeAll(async () => {
    server = await startSingle();
    db = await createClickHouseTestDb({ url: server.url, database: 'hostile' });
    setParseTimeout(1000);
  });
  afterAll(async () => {
    await db?.close();
    await server?.stop();
    setParseTimeout(3000);
    await shutdownParser();
  });

  const variables = { x: "' OR 1=1; DROP TABLE events; --", n: 5 };

  async function attempt(text: string): Promise<{ error?: unknown; json?: string; sql?: string }> {
    try {
      const compiled = await compileProductQL({ query: text, projectId: 1, timezone: 'Europe/Berlin', dialect: 'clickhouse', variables });
      expect(compiled.params).toEqual([]);
      const pre = printer.print(await parseSelect(text), { projectId: 1, timezone: 'Europe/Berlin', variables });
      assertGuarded(pre.sql, pre.params);
      const r = await db.run(compiled.sql);
      return { json: JSON.stringify(r.rows), sql: compiled.sql };
    } catch (e) {
      return { error: e };
    }
  }

  it('has the shared corpus and the ClickHouse additions', () => {
    expect(corpus.mustReject.length + corpus.mayRun.length).toBeGreaterThanOrEqual(100);
    expect(CLICKHOUSE_REJECT.length).toBeGreaterThanOrEqual(40);
  });

  it.each([...corpus.mustReject, ...CLICKHOUSE_REJECT].map((q) => [q.length > 120 ? q.slice(0, 117) + '...' : q, q]))(
    'rejects %s',
    async (_label, text) => {
      const r = await attempt(text);
      expect(r.error).toBeInstanceOf(UserError);
      expect((r.error as UserError).status).toBe(400);
    },
  );

  it.each(corpus.mayRun.map((q) => [q.length > 120 ? q.slice(0, 117) + '...' : q, q]))('contains %s', async (_label, text) => {
    const r = await attempt(text);
    if (r.error) {
      // A refusal (by the printer or, for what ClickHouse 18.16 cannot run, by the server) is fine; anything
      // else would be a 500 for the caller.
      if (!(r.error instanceof UserError)) throw r.error;
      expect(r.error.status).toBe(400);
      expect(r.error.message).not.toContain(SECRET);
      return;
    }
    expect(r.json).not.toContain(SECRET);
    expect(r.json).not.toContain(P2X);
  });

  it('never lets a variable change the query shape', async () => {
    const evil = "x' OR '1'='1";
    const c = await compileProductQL({
      query: 'select count() from events where event = {variables.v}',
      projectId: 1,
      timezone: 'UTC',
      dialect: 'clickhouse',
      variables: { v: evil },
    });
    expect(c.sql).toContain("'x\\' OR \\'1\\'=\\'1'");
    const r = await db.run(c.sql);
    expect(Number(r.rows[0][0])).toBe(0);
    const backslash = await compileProductQL({
      query: 'select count() from events where event = {variables.v}',
      projectId: 1,
      timezone: 'UTC',
      dialect: 'clickhouse',
      variables: { v: "\\' OR 1=1 --" },
    });
    expect(Number((await db.run(backslash.sql)).rows[0][0])).toBe(0);
  });

  it('runs most of the legitimate corpus rather than refusing it', async () => {
    let ran = 0;
    for (const q of corpus.mayRun) if (!(await attempt(q)).error) ran++;
    // ClickHouse 18.16 refuses window functions, multi-join queries, INTERSECT/EXCEPT and dynamic keys.
    expect(ran / corpus.mayRun.length).toBeGreaterThan(0.6);
  });
});
