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

describe('histogram bins', () => {
  it('equal width between min and max; last upper bound + 0.01', () => {
    expect(histogramBins(0, 30, 3).map((b) => b.label)).toEqual(['[0.0,10.0]', '[10.0,20.0]', '[20.0,30.01]']);
    expect(histogramBins(1, 2, 4).map((b) => b.label)).toEqual(['[1.0,1.25]', '[1.25,1.5]', '[1.5,1.75]', '[1.75,2.01]']);
  });
  it('bounds are floored to 2 decimals (PostHog floor(x, 2)): the smallest value stays inside the first bin', () => {
    expect(histogramBins(0.005, 1, 1).map((b) => b.label)).toEqual(['[0.0,1.01]']);
    expect(histogramBins(0.1, 0.8, 7).map((b) => b.label)).toEqual(['[0.1,0.2]', '[0.2,0.3]', '[0.3,0.4]', '[0.4,0.5]', '[0.5,0.6]', '[0.6,0.7]', '[0.7,0.81]']);
    expect(histogramBins(-1.005, 2.999, 1).map((b) => b.label)).toEqual(['[-1.01,3.0]']);
  });
  it('single value → one bin; no values → none', () => {
    expect(histogramBins(5, 5, 3).map((b) => b.label)).toEqual(['[5.0,5.01]']);
    expect(histogramBins(null, null, 3)).toEqual([]);
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
