/**
 * Test support: which event engine the engine-parametrized suites run on in this test file.
 *
 * The insight and ProductQL suites (trends, stickiness, lifecycle, funnels, retention, paths, property filters,
 * ProductQL semantics) are written once, with their expected results pinned, and run on every engine: the suite
 * file itself runs on DuckDB, and a sibling `<suite>.clickhouse.test.ts` runs the very same file on ClickHouse
 * through {@link runSuiteOnClickHouse}. Identical expectations on both is the parity check.
 *
 * Harnesses (src/queries/insights/testing.ts, src/queries/funnels/testing.ts, src/productql/testing.ts) ask
 * {@link testEngine} when they open. This module has no heavy imports, so a DuckDB-only run never touches
 * ClickHouse. Jest gives every test file its own module registry, so the choice never leaks between files.
 *
 * `QUARRY_TEST_CLICKHOUSE_CLUSTER=1` runs the ClickHouse side on a two-shard cluster instead of a single node.
 */
export type TestEngineKind = 'duckdb' | 'clickhouse';

let current: TestEngineKind = 'duckdb';

/** The engine the harnesses of this test file open. Default `duckdb`. */
export const testEngine = (): TestEngineKind => current;

/**
 * Runs a suite file on ClickHouse: `runSuiteOnClickHouse('trends', () => require('./trends-runner.test'))`.
 * Skipped when ClickHouse is not installed locally; an error in CI or with QUARRY_TEST_CLICKHOUSE=required.
 */
export function runSuiteOnClickHouse(name: string, load: () => unknown): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { describeClickHouse } = require('./test-server') as typeof import('./test-server');
  describeClickHouse(`${name} on ClickHouse${process.env.QUARRY_TEST_CLICKHOUSE_CLUSTER === '1' ? ' (two shards)' : ''}`, () => {
    // The harnesses open in beforeAll, after registration: the choice stays for the whole (single-suite) file.
    current = 'clickhouse';
    load();
  });
}
