/**
 * PostHog's semantic-version property operators (`semver_eq`, `semver_neq`, `semver_gt`, `semver_gte`, `semver_lt`,
 * `semver_lte`, `semver_tilde`, `semver_caret`, `semver_wildcard`; schema.py PropertyOperator) on a property holding a
 * version such as `1.2.3` or `v2.0`: versions compare by major, then minor, then patch (missing parts are 0; a
 * pre-release or build suffix is ignored). The ranges are npm's: `~1.2.3` is `>=1.2.3 <1.3.0`, `^1.2.3` is
 * `>=1.2.3 <2.0.0` (`^0.2.3` is `<0.3.0`, `^0.0.3` is `<0.0.4`), `1.2.*` is `>=1.2.0 <1.3.0`. A property that is
 * not a version matches no positive operator.
 *
 * The version is compared as one number, major·10¹² + minor·10⁶ + patch, computed from the property's text in SQL
 * and from the filter's value here (a value that is not a version is a 400).
 */
import * as ast from '../../productql/ast';
import type { Expr } from '../../productql/ast';
import { validationError } from '../../errors';

export const SEMVER_OPERATORS = [
  'semver_eq',
  'semver_neq',
  'semver_gt',
  'semver_gte',
  'semver_lt',
  'semver_lte',
  'semver_tilde',
  'semver_caret',
  'semver_wildcard',
] as const;
export type SemverOperator = (typeof SEMVER_OPERATORS)[number];
export const isSemverOperator = (op: string): op is SemverOperator => (SEMVER_OPERATORS as readonly string[]).includes(op);

/** Each part below 10⁶. */
const MINOR = 1e6;
const MAJOR = 1e12;
const PART_LIMIT = 999_999;

const VERSION_PREFIX = '^\\s*v?';
/** The property's version as one number (NULL when its text does not start with a version). */
function versionKey(x: Expr): Expr {
  const part = (pattern: string): Expr => ast.call('toFloat', [ast.call('extract', [ast.call('toString', [x]), ast.constant(VERSION_PREFIX + pattern)])]);
  const major = part('([0-9]+)');
  const minor = ast.call('coalesce', [part('[0-9]+\\.([0-9]+)'), ast.constant(0)]);
  const patch = ast.call('coalesce', [part('[0-9]+\\.[0-9]+\\.([0-9]+)'), ast.constant(0)]);
  return ast.arithmetic(
    '+',
    ast.arithmetic('+', ast.arithmetic('*', major, ast.constant(MAJOR)), ast.arithmetic('*', minor, ast.constant(MINOR))),
    patch,
  );
}

interface Version {
  parts: number[];
  /** How many parts were written (`1.2` → 2); a wildcard part ends them. */
  given: number;
}

function parseVersion(v: unknown, op: SemverOperator, attr: string): Version {
  const text = typeof v === 'number' ? String(v) : typeof v === 'string' ? v : '';
  const m = /^\s*[~^]?\s*v?(\d+)(?:\.(\d+|[*xX]))?(?:\.(\d+|[*xX]))?(?:[-+].*)?\s*$/.exec(text);
  const bad = () =>
    validationError(`Operator "${op}" needs a version such as 1.2.3${op === 'semver_wildcard' ? ' or 1.2.*' : ''}, got ${JSON.stringify(v)}.`, attr);
  if (!m) throw bad();
  const raw = [m[1], m[2], m[3]];
  const parts: number[] = [];
  for (const p of raw) {
    if (p === undefined || /^[*xX]$/.test(p)) break;
    parts.push(Number(p));
  }
  // a wildcard part is for semver_wildcard only, and nothing follows it
  const wildcardAt = raw.findIndex((p) => p !== undefined && /^[*xX]$/.test(p));
  if (wildcardAt >= 0 && (op !== 'semver_wildcard' || raw.slice(wildcardAt + 1).some((p) => p !== undefined && !/^[*xX]$/.test(p)))) throw bad();
  if (parts.some((p) => p > PART_LIMIT)) throw bad();
  return { parts, given: parts.length };
}

const keyOf = (parts: number[]): number => (parts[0] ?? 0) * MAJOR + (parts[1] ?? 0) * MINOR + (parts[2] ?? 0);

/** `[lower, upper)` of a range operator, as version keys. */
function rangeOf(op: 'semver_tilde' | 'semver_caret' | 'semver_wildcard', { parts, given }: Version): [number, number] {
  const [major, minor = 0, patch = 0] = parts;
  const lower = keyOf([major, minor, patch]);
  if (op === 'semver_tilde') return [lower, given >= 2 ? keyOf([major, minor + 1, 0]) : keyOf([major + 1, 0, 0])];
  if (op === 'semver_wildcard') {
    if (given >= 3) return [lower, lower + 1];
    return [lower, given === 2 ? keyOf([major, minor + 1, 0]) : keyOf([major + 1, 0, 0])];
  }
  // caret: the first non-zero part may not change
  if (major > 0 || given === 1) return [lower, keyOf([major + 1, 0, 0])];
  if (minor > 0 || given === 2) return [lower, keyOf([0, minor + 1, 0])];
  return [lower, keyOf([0, 0, patch + 1])];
}

/** One semver operator on one value. */
export function semverCondition(x: Expr, op: SemverOperator, value: unknown, attr: string): Expr {
  const version = parseVersion(value, op, attr);
  const key = versionKey(x);
  switch (op) {
    case 'semver_eq':
      return ast.compare('==', key, ast.constant(keyOf(version.parts)));
    case 'semver_neq':
      return ast.compare('!=', key, ast.constant(keyOf(version.parts)));
    case 'semver_gt':
      return ast.compare('>', key, ast.constant(keyOf(version.parts)));
    case 'semver_gte':
      return ast.compare('>=', key, ast.constant(keyOf(version.parts)));
    case 'semver_lt':
      return ast.compare('<', key, ast.constant(keyOf(version.parts)));
    case 'semver_lte':
      return ast.compare('<=', key, ast.constant(keyOf(version.parts)));
    default: {
      const [lower, upper] = rangeOf(op, version);
      return ast.and(ast.compare('>=', key, ast.constant(lower)), ast.compare('<', key, ast.constant(upper)));
    }
  }
}
