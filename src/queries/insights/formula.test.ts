import { parseFormula } from './formula';
import { BREAKDOWN_NULL, BREAKDOWN_OTHER, compareBreakdownRanks, compareBreakdowns, histogramBins, pyFloat, rankBreakdownValues } from './breakdown';
import { effectiveMath } from './math';

describe('formulas', () => {
  it.each<[string, (number | null)[], number]>([
    ['A+B', [2, 3], 5],
    ['a+b', [2, 3], 5],
    ['A-B', [2, 3], -1],
    ['A*B/2', [2, 3], 3],
    ['A/B', [1, 0], 0],
    ['A%B', [7, 0], 0],
    ['A%B', [7, 4], 3],
    ['A%B', [-1, 3], 2], // Python's modulo: the sign of the divisor
    ['A%B', [7, -4], -1],
    ['A%B', [-1.5, 1], 0.5],
    ['A**2', [3, 0], 9],
    ['-A + +B', [3, 5], 2],
    ['(A+B)*(A-B)', [5, 3], 16],
    ['A/B*100', [1, 4], 25],
    ['A + 1.5', [1, 0], 2.5],
    ['A+B', [null, 2], 2],
    ['2**3**2', [0, 0], 512],
  ])('%s with %j = %d', (f, vals, expected) => {
    expect(parseFormula(f, 2).evaluate(vals)).toBe(expected);
  });

  it('-A over a zero is 0, not -0', () => {
    expect(Object.is(parseFormula('-A', 1).evaluate([0]), 0)).toBe(true);
    expect(Object.is(parseFormula('A*-1', 1).evaluate([0]), 0)).toBe(true);
  });

  it.each(['C', 'A+', 'sum(A)', 'AB', 'A B', '', 'A; DROP TABLE events'])('%j is a 400', (f) => {
    expect(() => parseFormula(f, 2)).toThrow(expect.objectContaining({ status: 400, attr: 'trendsFilter__formula' }));
  });
});

describe('breakdown ranking', () => {
  it('normal values by total desc then value asc, then null, then other', () => {
    const items = [
      { value: BREAKDOWN_OTHER, total: 100 },
      { value: BREAKDOWN_NULL, total: 50 },
      { value: 'b', total: 5 },
      { value: 'a', total: 5 },
      { value: 'c', total: 9 },
    ];
    expect(items.sort(compareBreakdowns).map((x) => x.value)).toEqual(['c', 'a', 'b', BREAKDOWN_NULL, BREAKDOWN_OTHER]);
  });
  it('formula results rank by class and total only: ties keep their order (a stable sort)', () => {
    const items = [
      { value: 'Paris', total: 2 },
      { value: BREAKDOWN_NULL, total: 9 },
      { value: 'Berlin', total: 2 },
      { value: 'London', total: 4 },
    ];
    expect(items.sort(compareBreakdownRanks).map((x) => x.value)).toEqual(['London', 'Paris', 'Berlin', BREAKDOWN_NULL]);
  });
  it('limit keeps the top values; with more values than the limit the null value goes to Other', () => {
    const totals = new Map([
      ['x', { value: 'x', total: 1 }],
      ['y', { value: 'y', total: 3 }],
      [BREAKDOWN_NULL, { value: BREAKDOWN_NULL, total: 10 }],
    ]);
    expect(rankBreakdownValues(totals, 2)).toEqual({ kept: ['y', 'x'], rest: [BREAKDOWN_NULL] });
    expect(rankBreakdownValues(totals, 3).kept).toEqual(['y', 'x', BREAKDOWN_NULL]);
  });
});

describe('histogram bins (quantiles of the distinct values, as PostHog)', () => {
  it('the quantiles at 0, 1/n, …, 1 of the values; last upper bound + 0.01', () => {
    // test_trends_query_runner.py test_trends_breakdowns_histogram: values 10, 20, 30, 40 in 4 bins
    expect(histogramBins([10, 20, 30, 40], 4).map((b) => b.label)).toEqual(['[10.0,17.5]', '[17.5,25.0]', '[25.0,32.5]', '[32.5,40.01]']);
    // test_trends.py test_unique_session_with_session_breakdown: levels 0.33 and 0.67, not thirds
    expect(histogramBins([0, 5, 10, 15], 3).map((b) => b.label)).toEqual(['[0.0,4.95]', '[4.95,10.05]', '[10.05,15.01]']);
    // not equal-width: the middle bound is the median value
    expect(histogramBins([1, 2, 3, 100], 2).map((b) => b.label)).toEqual(['[1.0,2.5]', '[2.5,100.01]']);
  });
  it('bounds are floored to 2 decimals (PostHog floor(x, 2)); equal bounds merge (arrayCompact)', () => {
    expect(histogramBins([0.005, 1], 1).map((b) => b.label)).toEqual(['[0.0,1.01]']);
    expect(histogramBins([-1.005, 2.999], 1).map((b) => b.label)).toEqual(['[-1.01,3.0]']);
    expect(histogramBins([1, 1.001, 5], 4).map((b) => b.label)).toEqual(['[1.0,3.0]', '[3.0,5.01]']);
  });
  it('the last upper bound is a float sum, printed as Python prints it', () => {
    expect(histogramBins([0, 0.2], 1).map((b) => b.label)).toEqual(['[0.0,0.21000000000000002]']);
  });
  it('a single value → one bin; no values → none', () => {
    expect(histogramBins([5], 3).map((b) => b.label)).toEqual(['[5.0,5.01]']);
    expect(histogramBins([], 3)).toEqual([]);
  });
  it('python float repr', () => {
    expect([pyFloat(10), pyFloat(12.5), pyFloat(-1)]).toEqual(['10.0', '12.5', '-1.0']);
  });
});

describe('WAU/MAU → DAU at coarse intervals', () => {
  it.each([
    ['weekly_active', 'day', 'weekly_active'],
    ['weekly_active', 'hour', 'weekly_active'],
    ['weekly_active', 'week', 'dau'],
    ['weekly_active', 'month', 'dau'],
    ['monthly_active', 'week', 'monthly_active'],
    ['monthly_active', 'month', 'dau'],
    [undefined, 'day', 'total'],
  ] as const)('%s at %s → %s', (m, i, out) => {
    expect(effectiveMath(m, i)).toBe(out);
  });
});
