/**
 * Breakdowns (reference §1.6, §2.3): the value expression per breakdown, PostHog's sentinels, histogram bins, and
 * ranking into the top `breakdown_limit` values + Other.
 *
 * Values are strings: `ifNull(nullIf(toString(v), ''), '$$_posthog_breakdown_null_$$')`. Multiple breakdowns
 * (`breakdowns`, max 3) give one such column each; their combined value is a string array.
 */
import * as ast from '../../productql/ast';
import type { Expr } from '../../productql/ast';
import { parseExprSync } from '../../productql/parser';
import { validationError } from '../../errors';
import type { BreakdownFilter } from './schema';
import { groupPropertyChain, groupTypeIndexOf } from './group-filters';
import { sessionPropertyExpr } from './session-filters';
import { containsAggregate } from './math';
import { isPersonVirtualProperty, personVirtualPropertyExpr } from './person-virtual-properties';

/** Value of events whose breakdown property is missing, null or `''`. */
export const BREAKDOWN_NULL = '$$_posthog_breakdown_null_$$';
/** Value of the bucket that sums every value past `breakdown_limit`. */
export const BREAKDOWN_OTHER = '$$_posthog_breakdown_other_$$';
/** The labels of the two sentinels in the actors options (PostHog's BREAKDOWN_NULL_DISPLAY / BREAKDOWN_OTHER_DISPLAY). */
export const BREAKDOWN_NULL_DISPLAY = 'None (i.e. no value)';
export const BREAKDOWN_OTHER_DISPLAY = 'Other (i.e. all remaining values)';

/** One breakdown dimension. */
export interface BreakdownSpec {
  type: 'event' | 'person' | 'hogql' | 'event_metadata' | 'session' | 'group';
  property: string;
  /** The group type index of a `group` breakdown (0–4); unset for other types. */
  groupTypeIndex?: number;
  normalizeUrl: boolean;
  /** Numeric bucketing into this many equal-width bins (trends). */
  histogramBinCount: number | null;
}

/**
 * The breakdown dimensions of a filter: `breakdowns` (multi) or the single `breakdown`; [] when none.
 * Cohort/data-warehouse breakdowns are a 400; a group breakdown needs its group type index (group-filters.ts). `histogramBinCount` falls back to `trendsBinCount`.
 */
export function breakdownSpecs(f: BreakdownFilter | null | undefined, trendsBinCount?: number | null, attr = 'breakdownFilter'): BreakdownSpec[] {
  if (!f) return [];
  const check = (type: string | null | undefined, a: string): BreakdownSpec['type'] => {
    const t = type ?? 'event';
    if (t === 'event' || t === 'person' || t === 'hogql' || t === 'event_metadata' || t === 'session' || t === 'group') return t;
    throw validationError(`Breakdowns of type "${t}" are not supported.`, a);
  };
  if (f.breakdowns && f.breakdowns.length) {
    return f.breakdowns.map((b, i) => ({
      type: check(b.type, `${attr}__breakdowns__${i}__type`),
      property: String(b.property),
      normalizeUrl: !!b.normalize_url,
      histogramBinCount: b.histogram_bin_count ?? null,
      ...groupIndexOf(b.type, b.group_type_index, `${attr}__breakdowns__${i}__group_type_index`),
    }));
  }
  if (f.breakdown === null || f.breakdown === undefined || f.breakdown === '') return [];
  if (Array.isArray(f.breakdown)) {
    if (f.breakdown_type === 'cohort') throw validationError('Cohort breakdowns are supported in trends only.', `${attr}__breakdown_type`);
    if (f.breakdown.length === 0) return [];
    if (f.breakdown.length > 1) throw validationError('A list breakdown is only valid for cohorts; use `breakdowns` for several properties.', `${attr}__breakdown`);
  }
  const prop = Array.isArray(f.breakdown) ? f.breakdown[0] : f.breakdown;
  return [
    {
      type: check(f.breakdown_type, `${attr}__breakdown_type`),
      property: String(prop),
      normalizeUrl: !!f.breakdown_normalize_url,
      histogramBinCount: f.breakdown_histogram_bin_count ?? trendsBinCount ?? null,
      ...groupIndexOf(f.breakdown_type, f.breakdown_group_type_index, `${attr}__breakdown_group_type_index`),
    },
  ];
}

/** `{groupTypeIndex}` for a group breakdown (a 400 without a valid index), nothing for other types. */
const groupIndexOf = (type: string | null | undefined, index: unknown, attr: string): { groupTypeIndex?: number } =>
  type === 'group' ? { groupTypeIndex: groupTypeIndexOf(index, attr) } : {};

/** One value of a cohort breakdown: a cohort id, or `'all'` (all users). */
export type CohortBreakdownValue = number | 'all';

/**
 * The values of `breakdown_type: 'cohort'` (`breakdown: [id, …, 'all']`, or a single id / `'all'`), in the given
 * order, duplicates dropped; null when the filter is not a cohort breakdown. A value that is neither a cohort id nor
 * `'all'`, or a cohort breakdown combined with `breakdowns`, is a 400.
 */
export function cohortBreakdownValues(f: BreakdownFilter | null | undefined, attr = 'breakdownFilter'): CohortBreakdownValue[] | null {
  if (!f || f.breakdown_type !== 'cohort') return null;
  if (f.breakdowns && f.breakdowns.length) throw validationError('A cohort breakdown cannot be combined with `breakdowns`.', `${attr}__breakdowns`);
  const raw = f.breakdown === null || f.breakdown === undefined ? [] : Array.isArray(f.breakdown) ? f.breakdown : [f.breakdown];
  if (raw.length === 0) throw validationError('A cohort breakdown needs a list of cohort ids (or "all").', `${attr}__breakdown`);
  const out: CohortBreakdownValue[] = [];
  for (const v of raw) {
    const t = typeof v === 'string' ? v.trim() : v;
    const value: CohortBreakdownValue | null =
      t === 'all' || t === 0 || t === '0' ? 'all' : typeof t === 'number' ? (Number.isSafeInteger(t) && t > 0 ? t : null) : /^\d+$/.test(t) ? Number(t) : null;
    if (value === null) throw validationError(`"${String(v)}" is not a cohort id (or "all").`, `${attr}__breakdown`);
    if (!out.includes(value)) out.push(value);
  }
  return out;
}

/** The raw (nullable) value of a breakdown: `properties.k`, `person.properties.k`, a column, or parsed ProductQL. */
export function breakdownRawExpr(spec: BreakdownSpec, table?: string): Expr {
  const f = (...chain: string[]): Expr => ast.field(...(table ? [table, ...chain] : chain));
  switch (spec.type) {
    case 'event':
      return f('properties', spec.property);
    case 'person':
      // PostHog's get_properties_chain: a `$virt_*` key is a field of the persons table (person-virtual-properties.ts)
      if (isPersonVirtualProperty(spec.property)) return personVirtualPropertyExpr(spec.property, (k) => f('person', 'properties', k), 'breakdownFilter__breakdown');
      return f('person', 'properties', spec.property);
    case 'event_metadata':
      return f(spec.property);
    case 'session':
      return sessionPropertyExpr(spec.property, 'breakdownFilter', table);
    case 'group':
      return f(...groupPropertyChain({ key: spec.property, group_type_index: spec.groupTypeIndex }, 'breakdownFilter'));
    case 'hogql': {
      const expr = parseExprSync(spec.property);
      if (containsAggregate(expr))
        throw validationError(`The breakdown "${spec.property}" contains an aggregation; break down by a value of each event (e.g. properties.$browser).`, 'breakdownFilter__breakdown');
      return expr;
    }
  }
}

/**
 * Any expression as text. Property access is already text; other values go through `concat(x, '')` (ClickHouse's
 * toString text; NULL becomes '', which callers turn back into NULL with nullIf).
 */
export function asTextExpr(x: Expr): Expr {
  if (x.node === 'Field' && (x.chain.includes('properties') || x.chain[x.chain.length - 1] === 'event' || x.chain[x.chain.length - 1] === 'distinct_id')) return x;
  return ast.call('concat', [x, ast.constant('')]);
}

/**
 * The value as text with `''` → NULL, URL-normalized when asked (trailing `/?#` stripped, empty → `/`). `text`: the
 * value's text when the caller already has it (default: {@link asTextExpr} of {@link breakdownRawExpr}).
 *
 * PostHog normalizes before its `nullIf(toString(x), '')` (breakdown.py `_get_breakdown_values_transform`:
 * `empty(trimRight(x, '/?#')) ? '/' : trimRight(x, '/?#')`), so a URL holding `''` is `/` there, and only a missing
 * (NULL) one is null.
 */
export function breakdownStringExpr(spec: BreakdownSpec, table?: string, text?: Expr): Expr {
  const raw = text ?? asTextExpr(breakdownRawExpr(spec, table));
  const s = ast.call('nullIf', [raw, ast.constant('')]);
  if (!spec.normalizeUrl) return s;
  // NULL stays NULL: asTextExpr's concat turns a NULL non-text value into '', so test the value itself there
  const isNull = ast.call('isNull', [text ?? breakdownRawExpr(spec, table)]);
  const stripped = ast.call('replaceRegexpAll', [raw, ast.constant('[/?#]+$'), ast.constant('')]);
  return ast.call('if', [isNull, s, ast.call('coalesce', [ast.call('nullIf', [stripped, ast.constant('')]), ast.constant('/')])]);
}

/** The breakdown column: text value with the null sentinel (`text`: as in {@link breakdownStringExpr}). */
export function breakdownValueExpr(spec: BreakdownSpec, table?: string, text?: Expr): Expr {
  return ast.call('ifNull', [breakdownStringExpr(spec, table, text), ast.constant(BREAKDOWN_NULL)]);
}

/** Python's repr of a float (`10.0`, `12.5`), as PostHog prints histogram bounds. */
export const pyFloat = (n: number): string => (Number.isInteger(n) ? `${n}.0` : String(n));

/** One histogram bin. `label` is PostHog's `[lo,hi]`. */
export interface HistogramBin {
  lo: number;
  hi: number;
  label: string;
}

/**
 * The value of events outside every histogram bin (no value, or not a number), and of all events when there are no
 * numeric values: PostHog's `else` branch of the bins' multiIf (breakdown.py `_get_breakdown_histogram_multi_if`).
 * It is an ordinary value, ranked by its total like a bin (not the null value).
 */
export const HISTOGRAM_EMPTY = '["",""]';

/**
 * The bounds of PostHog's histogram bins (breakdown_values.py `_to_bucketing_expression`): over the breakdown's distinct
 * numeric values (its breakdown values query: one row per value), `quantiles(0.00, 1/n, …, 1.00)` — the levels printed
 * with 2 decimals, so thirds are 0.33 and 0.67 — then `floor(x, 2)` and `arrayCompact` (equal neighbours dropped).
 * ClickHouse's `quantiles` is exact at that size: linear interpolation at `level × (count − 1)` in the sorted values.
 * So bins are quantile-based, not equal-width: values 0, 5, 10, 15 in 3 bins give 0, 4.95, 10.05, 15
 * (test_trends.py test_unique_session_with_session_breakdown).
 */
export function histogramBounds(values: readonly number[], count: number): number[] {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (!sorted.length) return [];
  const n = Math.max(1, count);
  // (the epsilon keeps binary fractions such as 0.7 = 0.69999… on their decimal; the result is at most 1e-9 above x)
  const floor2 = (x: number): number => Math.floor(x * 100 + 1e-7) / 100;
  const quantile = (level: number): number => {
    const index = Math.max(0, Math.min(sorted.length - 1, level * (sorted.length - 1)));
    const left = Math.floor(index);
    if (left + 1 >= sorted.length) return sorted[left];
    return sorted[left] * (left + 1 - index) + sorted[left + 1] * (index - left);
  };
  // Python's f'{i * (1.0 / n):.2f}': rounded half to even on the float's exact value (0.125 → 0.12)
  const level = (x: number): number => {
    const c = x * 100;
    const f = Math.floor(c);
    return (c - f === 0.5 ? (f % 2 === 0 ? f : f + 1) : Math.round(c)) / 100;
  };
  const bounds: number[] = [];
  for (let i = 0; i <= n; i++) {
    const b = floor2(quantile(level(i * (1 / n))));
    if (bounds[bounds.length - 1] !== b) bounds.push(b);
  }
  return bounds;
}

/**
 * The bins between consecutive bounds of {@link histogramBounds} (breakdown.py `_get_breakdown_histogram_buckets`): the
 * last upper bound is +0.01 so that the largest value falls inside it (added, not floored: Python's float sum); one
 * bound alone is the bin `[v, v + 0.01]`.
 */
export function histogramBins(values: readonly number[], count: number): HistogramBin[] {
  let bounds = histogramBounds(values, count);
  if (!bounds.length) return [];
  if (bounds.length === 1) bounds = [bounds[0], bounds[0]];
  const bins: HistogramBin[] = [];
  for (let i = 0; i < bounds.length - 1; i++) {
    const lo = bounds[i];
    const hi = i === bounds.length - 2 ? bounds[i + 1] + 0.01 : bounds[i + 1];
    bins.push({ lo, hi, label: `[${pyFloat(lo)},${pyFloat(hi)}]` });
  }
  return bins;
}

/** The binned breakdown column: `multiIf(x >= lo AND x < hi, '[lo,hi]', ..., '["",""]')`. */
export function histogramValueExpr(spec: BreakdownSpec, bins: HistogramBin[], table?: string): Expr {
  const x = ast.call('toFloat', [breakdownRawExpr(spec, table)]);
  if (!bins.length) return ast.constant(HISTOGRAM_EMPTY);
  const args: Expr[] = [];
  for (const b of bins) {
    args.push(ast.and(ast.compare('>=', x, ast.constant(b.lo)), ast.compare('<', x, ast.constant(b.hi))));
    args.push(ast.constant(b.label));
  }
  args.push(ast.constant(HISTOGRAM_EMPTY));
  return ast.call('multiIf', args);
}

/** Ranking class: normal values, then the null sentinel, then Other. */
const classOf = (v: string | string[]): number => {
  const s = Array.isArray(v) ? v : [v];
  if (s.every((x) => x === BREAKDOWN_OTHER)) return 2;
  if (s.every((x) => x === BREAKDOWN_NULL)) return 1;
  return 0;
};

/**
 * Class (normal < null < other), then total desc; 0 on a tie. PostHog sorts formula results by this alone (a stable
 * sort: tied values keep the order they first appear in, series A's ranking first).
 */
export function compareBreakdownRanks(a: { value: string | string[]; total: number }, b: { value: string | string[]; total: number }): number {
  const ca = classOf(a.value);
  const cb = classOf(b.value);
  if (ca !== cb) return ca - cb;
  return a.total !== b.total ? b.total - a.total : 0;
}

/**
 * Strings in the engines' order (UTF-8 bytes, i.e. code points), not JS's UTF-16 units, which put a character above
 * U+FFFF (a surrogate pair, e.g. an emoji) before U+E000–U+FFFF (e.g. fullwidth letters).
 */
function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const fix = (c: number): number => (c >= 0xe000 ? c - 0x800 : c >= 0xd800 ? c + 0x2000 : c);
    return fix(x) - fix(y);
  }
  return a.length - b.length;
}

/** PostHog's breakdown order: class (normal < null < other), then total desc, then value asc (as ClickHouse orders strings). */
export function compareBreakdowns(a: { value: string | string[]; total: number }, b: { value: string | string[]; total: number }): number {
  const byRank = compareBreakdownRanks(a, b);
  if (byRank !== 0) return byRank;
  const sa = Array.isArray(a.value) ? a.value.join('\u0000') : a.value;
  const sb = Array.isArray(b.value) ? b.value.join('\u0000') : b.value;
  return Math.sign(compareCodePoints(sa, sb));
}

/**
 * Splits breakdown values into the kept top `limit` (in display order) and the rest (summed into Other by the
 * caller). `totals` maps a value key to its total over the range.
 */
export function rankBreakdownValues<K extends string>(
  totals: Map<K, { value: string | string[]; total: number }>,
  limit: number,
): { kept: K[]; rest: K[] } {
  const sorted = [...totals.entries()].sort((a, b) => compareBreakdowns(a[1], b[1])).map(([k]) => k);
  return { kept: sorted.slice(0, limit), rest: sorted.slice(limit) };
}

/** Label of a breakdown value: the value itself, arrays joined with `::`. */
export const breakdownLabel = (v: string | string[]): string => (Array.isArray(v) ? v.join('::') : v);
