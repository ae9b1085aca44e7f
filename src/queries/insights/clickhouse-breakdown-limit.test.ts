/**
 * The one-scan breakdown limit on ClickHouse: ranking (normal values by total desc, then by value; NULL totals after
 * numbers; the null value last), folding into Other, and NULL values kept where they were (the array form must not
 * lose them: `groupArray` skips NULLs). The trends suite covers the common cases through the runner on both engines.
 */
import { ClickHouseEngine } from '../../engines/clickhouse/clickhouse-engine';
import { describeClickHouse, startSingle, type TestServer } from '../../engines/clickhouse/test-server';
import * as ast from '../../productql/ast';
import { compileProductQL, shutdownParser } from '../../productql';
import '../../productql/clickhouse';
import { BREAKDOWN_NULL as NULL_V, BREAKDOWN_OTHER as OTHER, breakdownValueExpr, type BreakdownSpec } from './breakdown';
import { clickhouseBreakdownLimit, clickhouseRawBreakdownKeys } from './clickhouse-breakdown-limit';

const DAY = 86_400_000;
const D1 = Date.UTC(2024, 0, 1, 10);

/** Properties texts (as the engine stores them) whose `v`/`w`/`u` values the raw-key form must read like `properties.k`. */
const RAW_PROPERTIES = [
  '{"v":"Chrome","w":"x","u":"https://a.example/p/"}',
  '{"v":"Chrome","w":"x","u":"https://a.example/p"}',
  '{"v":"Chr\\u006fme","w":"y","u":"/"}',
  '{"v":"a\\"b\\\\c","w":1.50}',
  '{"v":"é","w":true,"u":""}',
  '{"v":"\\u00e9","w":false}',
  '{"v":"line\\nbreak","w":null}',
  '{"v":"","w":[1,"a"]}',
  '{"v":null,"w":{"k":"v","n":[1]}}',
  '{"w":""}',
  '{"v":12,"w":-0.5e3}',
  '{"v":"12","w":"12"}',
  '{"v":{"x":"Chrome"},"u":"https://a.example/?q=1#h"}',
  '{"v":[],"w":"Chrome"}',
  '{}',
];

describeClickHouse('clickhouseBreakdownLimit', () => {
  let server: TestServer;
  let engine: ClickHouseEngine;
  beforeAll(async () => {
    server = await startSingle();
    engine = await ClickHouseEngine.open({ url: server.url, database: 'bdlimit' });
    // Project 2: property texts as stored (JSON escapes, every JSON type, null, '', missing) for the raw-key form.
    await engine.writeBatch({
      events: RAW_PROPERTIES.map((text, i) => ({
        project_id: 2,
        uuid: `61000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        event: 'e',
        distinct_id: 'x',
        person_id: null,
        timestamp: D1 + (i % 2) * DAY,
        properties: text,
        session_id: null,
        elements_chain: null,
        created_at: D1,
      })),
    });
    // totals of avg(n): a 12, b 25, c NULL (no n), the null value (no k) 100
    const rows: [number, Record<string, unknown>][] = [
      [D1, { k: 'a', n: 10 }],
      [D1, { k: 'b', n: 5 }],
      [D1, { k: 'c' }],
      [D1, { n: 100 }],
      [D1 + DAY, { k: 'a', n: 2 }],
      [D1 + DAY, { k: 'b', n: 20 }],
      [D1 + DAY, { k: 'c' }],
    ];
    await engine.writeBatch({
      events: rows.map(([ts, props], i) => ({
        project_id: 1,
        uuid: `60000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        event: 'e',
        distinct_id: 'x',
        person_id: null,
        timestamp: ts,
        properties: JSON.stringify(props),
        session_id: null,
        elements_chain: null,
        created_at: ts,
      })),
    });
  });
  afterAll(async () => {
    await engine?.close();
    await server?.stop();
    await shutdownParser();
  });

  const run = async (q: ast.SelectQuery, nb: number, hasBucket: boolean, limit: number, values?: ast.Expr[], projectId = 1) => {
    const c = await compileProductQL({ query: clickhouseBreakdownLimit(q, nb, hasBucket, limit, values), projectId, timezone: 'UTC', dialect: 'clickhouse' });
    const out = (await engine.query(c.sql, [])).rows.map((r) => r.map((v) => (v === null || typeof v === 'number' ? v : String(v))));
    return out.sort((x, y) => (JSON.stringify(x) < JSON.stringify(y) ? -1 : 1));
  };
  const b = (key: string) => ast.call('coalesce', [ast.field('properties', key), ast.constant(NULL_V)]);
  const value = ast.alias('value', ast.call('avg', [ast.call('toFloat', [ast.field('properties', 'n')])]));
  const daily = ast.select({
    select: [ast.alias('bucket', ast.call('toDate', [ast.field('timestamp')])), ast.alias('b0', b('k')), value],
    from: 'events',
    groupBy: [ast.constant(1), ast.constant(2)],
  });

  it('keeps the top values by total, folds the rest (NULL totals and the null value) into Other', async () => {
    expect(await run(daily, 1, true, 2)).toEqual([
      ['2024-01-01', OTHER, 100],
      ['2024-01-01', 'a', 10],
      ['2024-01-01', 'b', 5],
      ['2024-01-02', OTHER, null],
      ['2024-01-02', 'a', 2],
      ['2024-01-02', 'b', 20],
    ]);
  });

  it('a value whose total is NULL ranks after numbers but before the null value, and keeps its NULLs', async () => {
    expect(await run(daily, 1, true, 3)).toEqual([
      ['2024-01-01', OTHER, 100],
      ['2024-01-01', 'a', 10],
      ['2024-01-01', 'b', 5],
      ['2024-01-01', 'c', null],
      ['2024-01-02', 'a', 2],
      ['2024-01-02', 'b', 20],
      ['2024-01-02', 'c', null],
    ]);
  });

  it('without buckets, and with two breakdowns (ties by value)', async () => {
    const total = ast.select({ select: [ast.alias('b0', b('k')), ast.alias('value', ast.call('count', []))], from: 'events', groupBy: [ast.constant(1)] });
    // counts: a 2, b 2, c 2, null 1; ties by value: a, b kept
    expect(await run(total, 1, false, 2)).toEqual([
      [OTHER, 3],
      ['a', 2],
      ['b', 2],
    ]);
    const two = ast.select({
      select: [ast.alias('b0', b('k')), ast.alias('b1', ast.call('toString', [ast.call('toDate', [ast.field('timestamp')])])), ast.alias('value', ast.call('count', []))],
      from: 'events',
      groupBy: [ast.constant(1), ast.constant(2)],
    });
    // Every pair counts 1: the first by value wins; only a pair that is null in every breakdown ranks last, so
    // (null, 2024-01-01) sorts first ('$' < 'a'), as in the engine-neutral ORDER BY.
    expect(await run(two, 2, false, 1)).toEqual([
      [NULL_V, '2024-01-01', 1],
      [OTHER, OTHER, 6],
    ]);
  });

  describe('raw-key form (clickhouseRawBreakdownKeys): a count grouped by the raw JSON text, values made afterwards', () => {
    const spec = (property: string, normalizeUrl = false): BreakdownSpec => ({ type: 'event', property, normalizeUrl, histogramBinCount: null });
    const plain = (specs: BreakdownSpec[], hasBucket: boolean) =>
      ast.select({
        select: [
          ...(hasBucket ? [ast.alias('bucket', ast.call('toDate', [ast.field('timestamp')]))] : []),
          ...specs.map((sp, i) => ast.alias(`b${i}`, breakdownValueExpr(sp))),
          ast.alias('value', ast.call('count', [])),
        ],
        from: 'events',
        groupBy: specs.map((_, i) => ast.constant(i + 1)).concat(hasBucket ? [ast.constant(specs.length + 1)] : []),
      });
    const raw = (specs: BreakdownSpec[], hasBucket: boolean) => {
      const r = clickhouseRawBreakdownKeys(specs)!;
      const q = ast.select({
        select: [...(hasBucket ? [ast.alias('bucket', ast.call('toDate', [ast.field('timestamp')]))] : []), ...r.keys, ast.alias('value', ast.call('count', []))],
        from: 'events',
        groupBy: specs.map((_, i) => ast.constant(i + 1)).concat(hasBucket ? [ast.constant(specs.length + 1)] : []),
      });
      return { q, values: r.values };
    };

    it.each([
      ['one property, by day', [spec('v')], true],
      ['one property, no buckets', [spec('v')], false],
      ['a property holding every JSON type', [spec('w')], true],
      ['URL-normalized', [spec('u', true)], false],
      ['two properties', [spec('v'), spec('w')], true],
      ['a key that is absent everywhere', [spec('nope')], false],
    ] as [string, BreakdownSpec[], boolean][])('%s: the same rows as the property expression', async (_name, specs, hasBucket) => {
      for (const limit of [2, 5, 100]) {
        const r = raw(specs, hasBucket);
        const want = await run(plain(specs, hasBucket), specs.length, hasBucket, limit, undefined, 2);
        expect(await run(r.q, specs.length, hasBucket, limit, r.values, 2)).toEqual(want);
      }
    });

    it('unescapes strings, merges spellings of one value and the null value, keeps other JSON values as their text', async () => {
      const r = raw([spec('v')], false);
      const rows = await run(r.q, 1, false, 100, r.values, 2);
      expect(rows).toEqual(
        expect.arrayContaining([
          ['Chrome', 3],
          ['a"b\\c', 1],
          ['é', 2],
          ['line\nbreak', 1],
          ['12', 2],
          ['{"x":"Chrome"}', 1],
          ['[]', 1],
          [NULL_V, 4],
        ]),
      );
      expect(rows).toHaveLength(8);
    });

    it('applies only to plain event properties', () => {
      expect(clickhouseRawBreakdownKeys([])).toBeNull();
      expect(clickhouseRawBreakdownKeys([{ ...spec('v'), histogramBinCount: 5 }])).toBeNull();
      expect(clickhouseRawBreakdownKeys([spec('v'), { ...spec('plan'), type: 'person' }])).toBeNull();
      expect(clickhouseRawBreakdownKeys([{ ...spec('event'), type: 'event_metadata' }])).toBeNull();
      expect(clickhouseRawBreakdownKeys([{ ...spec('1'), type: 'hogql' }])).toBeNull();
    });
  });
});