/**
 * Property-based fuzzing of the ProductQL guard: generated queries, valid and near-valid, over two
 * projects whose rows overlap (same distinct ids, same person ids) but whose project 2 rows all carry the
 * marker P2_SECRET. Compiled for project 1, no query may return that marker, and every failure must be a
 * clean user error (never a crash, never an internal error).
 *
 * `npm test` runs 430 queries (300 valid, 130 mutated); `npm run fuzz` runs 10,000 (FUZZ_RUNS=7000). Each
 * distinct text is parsed afresh by the WebAssembly parser, which is what costs the time.
 */
import fc from 'fast-check';
import { isUserError } from '../../src/errors';
import { compileProductQL, shutdownParser } from '../../src/productql';
import { createTestDb, SECRET, type TestDb } from '../../src/productql/testing';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  db.close();
  await shutdownParser();
});

const TABLES = ['events', 'persons', 'person_distinct_ids', 'query_log'] as const;
const FIELDS: Record<(typeof TABLES)[number], string[]> = {
  events: ['event', 'distinct_id', 'person_id', 'timestamp', 'uuid', '$session_id', 'properties.$browser', 'properties.marker', 'person.properties.email', 'person.id', 'properties'],
  persons: ['id', 'created_at', 'properties.email', 'properties.plan', 'properties.marker', 'is_identified', 'properties'],
  person_distinct_ids: ['distinct_id', 'person_id', 'person.properties.email'],
  query_log: ['kind', 'name', 'principal', 'query', 'query_hash', 'status'],
};
// The marker itself is never a literal (the query would just echo it); fragments of it probe predicates.
const LITERALS = ["'P2_SEC'", "'%SECRET%'", "'Chrome'", "'user1'", '1', '2', '0', 'NULL', "'00000000-0000-4000-8000-00000000b001'", "'project_id'", "''"];

const table = fc.constantFrom(...TABLES);
const literal = fc.constantFrom(...LITERALS);

/**
 * A scalar expression over table `t` (alias `a`), at most two levels deep: the WebAssembly parser is slow on
 * deeply nested calls (seconds at ten levels), which the parser's own limits already refuse.
 */
const expr = (t: (typeof TABLES)[number]): fc.Arbitrary<string> => {
  const term = fc.oneof(fc.constantFrom(...FIELDS[t].map((f) => `a.${f}`)), literal);
  const cmp = fc.tuple(term, fc.constantFrom('=', '!=', '<', '>', 'like', 'ilike', '=~'), term).map(([l, op, r]) => `(${l} ${op} ${r})`);
  return fc.oneof(
    term,
    cmp,
    fc.tuple(fc.constantFrom('lower', 'upper', 'toString', 'length'), term).map(([f, x]) => `${f}(${x})`),
    fc.tuple(fc.constantFrom('coalesce', 'ifNull', 'concat'), term).map(([f, x]) => `${f}(${x}, 'x')`),
    fc.tuple(cmp, term, term).map(([c, x, y]) => `if(${c}, ${x}, ${y})`),
  );
};

const selectFrom = (depth: number): fc.Arbitrary<string> =>
  table.chain((t) =>
    fc
      .record({
        cols: fc.array(expr(t), { minLength: 1, maxLength: 3 }),
        where: fc.option(expr(t), { nil: undefined }),
        join: fc.option(table, { nil: undefined }),
        sub: depth > 0 ? fc.option(selectFrom(depth - 1), { nil: undefined }) : fc.constant(undefined),
        limit: fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: undefined }),
        agg: fc.boolean(),
      })
      .map(({ cols, where, join, sub, limit, agg }) => {
        const from = sub ? `(${sub}) AS a` : `${t} AS a`;
        const j = join && !sub ? ` LEFT JOIN ${join} AS b ON a.${FIELDS[t][0]} = b.${FIELDS[join][0]}` : '';
        const select = sub ? 'a.*' : agg ? `count(), groupArray(${cols[0]})` : cols.join(', ');
        const w = where && !sub ? ` WHERE ${where}` : '';
        const l = limit !== undefined ? ` LIMIT ${limit}` : '';
        return `SELECT ${select} FROM ${from}${j}${w}${l}`;
      }),
  );

const query = fc.oneof(
  selectFrom(2),
  fc.tuple(selectFrom(1), selectFrom(1)).map(([a, b]) => `${a} UNION ALL ${b}`),
  selectFrom(1).map((q) => `WITH c AS (${q}) SELECT * FROM c`),
);

/** Near-valid: a valid query with a random edit (delete, duplicate or insert a hostile fragment). */
const nearValid = fc
  .tuple(query, fc.nat(), fc.constantFrom('', "'", '"', ';', '--', '/*', ')', '(', ' DROP TABLE events', ' FROM read_csv(\'/etc/passwd\')', ' UNION SELECT * FROM duckdb_tables()', '\\', '`', '{variables.x}', ' SETTINGS max_threads=1'))
  .map(([q, pos, frag]) => {
    const i = pos % (q.length + 1);
    return q.slice(0, i) + frag + q.slice(i + (frag === '' ? 1 : 0));
  });

async function check(text: string): Promise<void> {
  let compiled;
  try {
    compiled = await compileProductQL({ query: text, projectId: 1, timezone: 'UTC', dialect: 'duckdb', variables: {} });
  } catch (e) {
    if (!isUserError(e) || e.status !== 400) throw new Error(`compile crashed on ${text}: ${String(e)}`);
    return;
  }
  // user literals are bound: outside quoted identifiers (column names echo the expression) the marker never appears
  expect(compiled.sql.replace(/"(?:[^"]|"")*"/g, '""')).not.toContain(SECRET);
  let rows: unknown[][];
  try {
    rows = (await db.run(compiled.sql, compiled.params)).rows;
  } catch (e) {
    // the engine may refuse a type mismatch the compiler let through; that is a clean failure, not a leak
    return;
  }
  const text2 = JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
  if (text2.includes(SECRET)) throw new Error(`LEAK: ${text} returned ${text2.slice(0, 300)}`);
}

describe('ProductQL guard under fuzzing', () => {
  it(`never leaks another project (${Number(process.env.FUZZ_RUNS ?? 300)} valid queries)`, async () => {
    await fc.assert(fc.asyncProperty(query, check), { numRuns: Number(process.env.FUZZ_RUNS ?? 300), seed: 20261125 });
  }, 600_000);

  it(`never crashes on near-valid queries (${Math.round(Number(process.env.FUZZ_RUNS ?? 300) * 3 / 7)} mutated queries)`, async () => {
    await fc.assert(fc.asyncProperty(nearValid, check), { numRuns: Math.round(Number(process.env.FUZZ_RUNS ?? 300) * 3 / 7), seed: 4242 });
  }, 600_000);
});
