/**
 * Quarry's hard limits, in one place. Each is a 4xx in the standard error body (`{type, code, detail, attr}`), checked
 * before any engine work. The README's "Limits" table lists these with their source; change both together.
 *
 * Limits that live next to the code that enforces them are re-exported here so this module is the index:
 * request bodies (config `bodyLimitBytes`), GraphQL depth/cost (config), capture payloads (src/ingest). The
 * ProductQL outer LIMIT (default 100, clamped to 50,000 rows) is `DEFAULT_LIMIT`/`MAX_LIMIT` in src/productql/compiler.ts.
 */
import { validationError, type UserError } from './errors';

export {
  BATCH_ROUTE_MAX_BYTES,
  MAX_DISTINCT_ID_CHARS,
  MAX_EVENT_BYTES,
  MAX_EVENT_NAME_CHARS,
  MAX_PROPERTIES_DEPTH,
  SINGLE_EVENT_ROUTE_MAX_BYTES,
} from './ingest/capture-payload';

/**
 * Series in one TrendsQuery, StickinessQuery or LifecycleQuery. PostHog documents no number; Quarry runs one engine
 * query per series (twice with compare), so 20 bounds one request to 40 engine queries. Formulas name series
 * A–Z, so 20 still leaves every letter a formula can reach within 26.
 */
export const MAX_SERIES = 20;

/**
 * Steps in one FunnelsQuery. PostHog documents no number. Measured on the 2-core reference machine with an empty
 * project, the ordered funnel's engine time grows steeply with steps (10–15 steps: 0.1–1.5 s, 20 steps: 50 s),
 * so 15 is the largest count that stays interactive.
 */
export const MAX_FUNNEL_STEPS = 15;
/** Funnel exclusions (`funnelsFilter.exclusions`) share the steps' bound: each adds a condition per step pair. */
export const MAX_FUNNEL_EXCLUSIONS = MAX_FUNNEL_STEPS;

/** Entries of `breakdownFilter.breakdowns` (multi-breakdown). PostHog's schema: "max 3". */
export const MAX_BREAKDOWNS = 3;

/** Values of a legacy list `breakdownFilter.breakdown` (cohort ids or properties). */
export const MAX_BREAKDOWN_LIST = 25;

/**
 * Largest `breakdown_limit`. PostHog's default is 25, 250 for WorldMap and 512 for CSV exports; 1,000 is above
 * every figure PostHog uses and keeps one answer at most ~1,000 series per input series.
 */
export const MAX_BREAKDOWN_LIMIT = 1000;

/** Characters in one regular expression (property filter `regex`/`not_regex`, ProductQL `match()`, …). */
export const MAX_REGEX_LENGTH = 1000;

/**
 * RE2 (DuckDB's and ClickHouse's regex engine) refuses a counted repetition above 1,000, and nested counted
 * repetitions whose product exceeds 1,000 (`(a{100}){100}`): the same budget is checked here, before execution.
 */
const RE2_MAX_REPEAT = 1000;

/** Error codes of the limits, stable for clients. */
export const LIMIT_CODES = {
  tooManySeries: 'too_many_series',
  tooManySteps: 'too_many_funnel_steps',
  tooManyExclusions: 'too_many_funnel_exclusions',
  tooManyBreakdowns: 'too_many_breakdowns',
  breakdownLimit: 'breakdown_limit_out_of_range',
  regexTooLong: 'regex_too_long',
  invalidRegex: 'invalid_regex',
} as const;

/**
 * Why RE2 would refuse `pattern`, or null when it compiles. Mirrors RE2's parser (Perl flags, as DuckDB and
 * ClickHouse use it): no lookaround, no backreferences, no possessive or doubled repetition operators, repetition
 * counts ≤ 1,000 (product of nested counts too), balanced groups and classes, valid escapes and class ranges.
 * A unit test checks each verdict against DuckDB itself.
 */
export function re2Problem(pattern: string): string | null {
  if (pattern.length > MAX_REGEX_LENGTH) return `longer than ${MAX_REGEX_LENGTH} characters`;
  const p = pattern;
  let i = 0;
  /** Node indexes of the open groups, innermost last. */
  const groups: number[] = [];
  /** Atoms as a tree for the nested-repetition budget: each node knows its parent group index and its count. */
  interface Node {
    parent: number; // index into nodes of the enclosing group node, -1 for top level
    count: number; // repetition count applied to this node (1 when none)
  }
  const nodes: Node[] = [];
  let current = -1; // node index of the innermost open group
  let lastAtom = -1; // node index of the last atom (for a following quantifier), -1 when none may be repeated
  let lastWasRepeat = false;

  const atom = () => {
    nodes.push({ parent: current, count: 1 });
    lastAtom = nodes.length - 1;
    lastWasRepeat = false;
  };
  const noAtom = () => {
    lastAtom = -1;
    lastWasRepeat = false;
  };

  const isOctal = (c: string | undefined) => c !== undefined && c >= '0' && c <= '7';
  const isHex = (c: string | undefined) => c !== undefined && /[0-9A-Fa-f]/.test(c);

  /** Parses an escape at p[i] === '\\'; returns its length, or an error message. `inClass` for `[...]` escapes. */
  const escape = (inClass: boolean): number | string => {
    const c = p[i + 1];
    if (c === undefined) return 'trailing \\';
    if (c >= '1' && c <= '7' && !isOctal(p[i + 2])) return `invalid escape sequence: \\${c}`;
    if (c >= '0' && c <= '7') {
      let n = 2;
      while (n < 4 && isOctal(p[i + n])) n++;
      return n;
    }
    if (c === '8' || c === '9') return `invalid escape sequence: \\${c}`;
    if (c === 'x') {
      if (p[i + 2] === '{') {
        const end = p.indexOf('}', i + 3);
        if (end < 0) return 'invalid escape sequence: \\x{';
        const hex = p.slice(i + 3, end);
        if (!hex || !/^[0-9A-Fa-f]+$/.test(hex) || parseInt(hex, 16) > 0x10ffff) return `invalid escape sequence: \\x{${hex}}`;
        return end - i + 1;
      }
      if (!isHex(p[i + 2]) || !isHex(p[i + 3])) return 'invalid escape sequence: \\x';
      return 4;
    }
    if (c === 'p' || c === 'P') {
      if (p[i + 2] === '{') {
        const end = p.indexOf('}', i + 3);
        if (end < 0) return 'invalid character class range: missing }';
        const name = p.slice(i + 3, end).replace(/^\^/, '');
        if (!unicodeClassName(name)) return `invalid character class range: \\p{${name}}`;
        return end - i + 1;
      }
      if (!p[i + 2] || !unicodeClassName(p[i + 2])) return 'invalid character class range';
      return 3;
    }
    if ('aftnrv'.includes(c)) return 2;
    if ('dDsSwW'.includes(c)) return 2;
    if (!inClass && 'bBAzC'.includes(c)) return 2;
    if (/[A-Za-z0-9]/.test(c)) return `invalid escape sequence: \\${c}`;
    if (c.charCodeAt(0) >= 0x80) return `invalid escape sequence: \\${c}`;
    return 2; // escaped punctuation
  };

  const POSIX = new Set(['alnum', 'alpha', 'ascii', 'blank', 'cntrl', 'digit', 'graph', 'lower', 'print', 'punct', 'space', 'upper', 'word', 'xdigit']);

  /** Parses `[...]` starting at p[i] === '['; returns the index after it, or an error message. */
  const charClass = (): number | string => {
    let j = i + 1;
    if (p[j] === '^') j++;
    let first = true;
    while (j < p.length) {
      const c = p[j];
      if (c === ']' && !first) return j + 1;
      first = false;
      if (c === '[' && p[j + 1] === ':') {
        const end = p.indexOf(':]', j + 2);
        if (end >= 0) {
          const name = p.slice(j + 2, end).replace(/^\^/, '');
          if (!POSIX.has(name)) return `invalid character class range: [:${name}:]`;
          j = end + 2;
          continue;
        }
      }
      let code: number | null;
      let len: number;
      if (c === '\\') {
        const save = i;
        i = j;
        const e = escape(true);
        i = save;
        if (typeof e === 'string') return e;
        len = e;
        const body = p.slice(j + 1, j + len);
        if (/^[dDsSwWpP]/.test(body)) code = null;
        else if (body[0] === 'x') code = parseInt(body.replace(/[x{}]/g, ''), 16);
        else if (/^[0-7]/.test(body)) code = parseInt(body, 8);
        else code = ({ a: 7, f: 12, t: 9, n: 10, r: 13, v: 11 } as Record<string, number>)[body] ?? body.codePointAt(0)!;
      } else {
        code = p.codePointAt(j)!;
        len = code > 0xffff ? 2 : 1;
      }
      // a range `a-z` (a `-` before `]` or after a class like `\\d` is literal)
      if (code !== null && p[j + len] === '-' && p[j + len + 1] !== ']' && p[j + len + 1] !== undefined) {
        let k = j + len + 1;
        let hi: number | null;
        if (p[k] === '\\') {
          const save = i;
          i = k;
          const e = escape(true);
          i = save;
          if (typeof e === 'string') return e;
          const body = p.slice(k + 1, k + e);
          if (/^[dDsSwWpP]/.test(body)) return 'invalid character class range';
          hi = body[0] === 'x' ? parseInt(body.replace(/[x{}]/g, ''), 16) : /^[0-7]/.test(body) ? parseInt(body, 8) : body.codePointAt(0)!;
          k += e;
        } else {
          hi = p.codePointAt(k)!;
          k += hi > 0xffff ? 2 : 1;
        }
        if (hi < code) return 'invalid character class range';
        j = k;
        continue;
      }
      j += len;
    }
    return 'missing ]';
  };

  while (i < p.length) {
    const c = p[i];
    switch (c) {
      case '\\': {
        if (p[i + 1] === 'Q') {
          const end = p.indexOf('\\E', i + 2);
          const lit = end < 0 ? p.slice(i + 2) : p.slice(i + 2, end);
          i = end < 0 ? p.length : end + 2;
          if (lit.length) atom();
          else lastWasRepeat = false; // `\Q\E` is nothing: a repetition after it applies to the atom before
          continue;
        }
        const e = escape(false);
        if (typeof e === 'string') return e;
        i += e;
        atom(); // empty-width assertions (\b, \A, …) may be repeated too, as in RE2
        continue;
      }
      case '[': {
        const r = charClass();
        if (typeof r === 'string') return r;
        i = r;
        atom();
        continue;
      }
      case '(': {
        if (p[i + 1] === '?') {
          const rest = p.slice(i + 2);
          // lookaround, atomic groups, comments; `(?<name>` too: the RE2 in DuckDB 1.x only knows `(?P<name>`
          if (/^(=|!|<|>|\||#)/.test(rest)) return 'invalid or unsupported Perl syntax';
          const named = /^P<([A-Za-z0-9_]*)>/.exec(rest);
          if (named) {
            if (!named[1]) return 'invalid named capture group';
            i += 2 + named[0].length;
          } else {
            const flags = /^(-?[imsU]+|[imsU]+-[imsU]*)(:|\))/.exec(rest) ?? /^([imsU]*)(:|\))/.exec(rest);
            if (!flags || /-$/.test(flags[1])) return 'invalid or unsupported Perl syntax';
            i += 2 + flags[0].length;
            if (flags[2] === ')') {
              lastWasRepeat = false; // a flags-only group is no atom: a repetition after it applies to the atom before
              continue;
            }
          }
        } else i++;
        nodes.push({ parent: current, count: 1 });
        current = nodes.length - 1;
        groups.push(current);
        noAtom();
        continue;
      }
      case ')': {
        if (!groups.length) return 'unexpected )';
        const g = groups.pop()!;
        current = nodes[g].parent;
        lastAtom = g;
        lastWasRepeat = false;
        i++;
        continue;
      }
      case '|':
        noAtom();
        i++;
        continue;
      case '^':
      case '$':
        atom();
        i++;
        continue;
      case '*':
      case '+':
      case '?':
      case '{': {
        let count = 1;
        let len = 1;
        if (c === '{') {
          const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i));
          if (!m) {
            // not a repetition: a literal `{`
            atom();
            i++;
            continue;
          }
          const lo = Number(m[1]);
          const hi = m[2] === undefined ? lo : m[3] === '' ? -1 : Number(m[3]);
          if (lo > RE2_MAX_REPEAT || hi > RE2_MAX_REPEAT || (hi >= 0 && hi < lo)) return `bad repetition operator: ${m[0]}`;
          count = hi >= 0 ? hi : lo;
          len = m[0].length;
        }
        if (lastWasRepeat) return `bad repetition operator: ${p.slice(i - 1, i + len)}`;
        if (lastAtom < 0) return `missing argument to repetition operator: ${p.slice(i, i + len)}`;
        if (count > 0) nodes[lastAtom].count = count;
        i += len;
        if (p[i] === '?') i++; // lazy
        lastWasRepeat = true;
        continue;
      }
      default: {
        i += (p.codePointAt(i) ?? 0) > 0xffff ? 2 : 1;
        atom();
        continue;
      }
    }
  }
  if (groups.length) return 'missing )';
  // RE2's RepetitionWalker: 1000 divided by each enclosing count must stay > 0.
  for (let n = 0; n < nodes.length; n++) {
    let budget = RE2_MAX_REPEAT;
    for (let k = n; k >= 0; k = nodes[k].parent) {
      if (nodes[k].count > 1) budget = Math.floor(budget / nodes[k].count);
      if (budget === 0) return 'bad repetition operator: nested repetitions exceed 1000';
    }
  }
  return null;
}

/**
 * A `\p{…}` name RE2 knows: `Any`, a one- or two-letter general category (`L`, `Lu`, …) or a Unicode script
 * (`Greek`, `Han`, …). JavaScript's own Unicode tables decide which scripts exist.
 */
function unicodeClassName(name: string): boolean {
  if (name === 'Any') return true;
  if (!/^[A-Za-z_]+$/.test(name)) return false;
  const accepts = (src: string) => {
    try {
      new RegExp(src, 'u');
      return true;
    } catch {
      return false;
    }
  };
  if (name.length <= 2) return accepts(`\\p{General_Category=${name}}`);
  return accepts(`\\p{Script=${name}}`);
}

/** Throws a 400 (`regex_too_long` or `invalid_regex`) when `pattern` is not a regex RE2 accepts within the limits. */
export function assertRegex(pattern: string, attr: string | null): void {
  const problem = regexError(pattern, attr);
  if (problem) throw problem;
}

/** The 400 for a bad regex, or null when it is fine. */
export function regexError(pattern: string, attr: string | null): UserError | null {
  if (pattern.length > MAX_REGEX_LENGTH)
    return validationError(`Regular expression is longer than ${MAX_REGEX_LENGTH} characters.`, attr, LIMIT_CODES.regexTooLong);
  const problem = re2Problem(pattern);
  return problem ? validationError(`Invalid regular expression: ${problem}.`, attr, LIMIT_CODES.invalidRegex) : null;
}

// ---------------------------------------------------------------------------------------------- zod helpers

/** The shape of a zod refinement context this module needs (zod 4's `RefinementCtx`). */
interface IssueSink {
  addIssue(issue: { code: 'custom'; message: string; path?: (string | number)[]; params?: Record<string, unknown> }): void;
}

/**
 * Adds a limit violation as a zod issue carrying its error `code`: `zodToUserError` renders it as a 400 with that
 * code and the issue's path as `attr`.
 */
export function limitIssue(ctx: IssueSink, code: string, message: string, path: (string | number)[] = []): void {
  ctx.addIssue({ code: 'custom', message, path, params: { code } });
}

/** A zod check of a list's length: `too_many_<what>` past `max`. */
export const maxItems =
  (max: number, code: string, what: string) =>
  (list: unknown[] | null | undefined, ctx: IssueSink): void => {
    if (list && list.length > max) limitIssue(ctx, code, `At most ${max} ${what} are allowed, got ${list.length}.`);
  };

/**
 * {@link maxItems} for a list PostHog's schema caps itself (pydantic `max_length`): pydantic's message, which
 * PostHog's tests match ("List should have at most 3 items after validation, not 4").
 */
export const maxLength =
  (max: number, code: string) =>
  (list: unknown[] | null | undefined, ctx: IssueSink): void => {
    if (list && list.length > max) limitIssue(ctx, code, `List should have at most ${max} items after validation, not ${list.length}`);
  };

/** A zod check of a regex value (a string or a list of strings) for `regex`/`not_regex` filters. */
export function checkRegexValue(value: unknown, ctx: IssueSink, path: (string | number)[]): void {
  const one = (v: unknown, p: (string | number)[]) => {
    if (typeof v !== 'string') return;
    const e = regexError(v, null);
    if (e) limitIssue(ctx, e.code, e.message, p);
  };
  if (Array.isArray(value)) value.forEach((v, i) => one(v, [...path, i]));
  else one(value, path);
}

// ---------------------------------------------------------------------------------------------- result size

/**
 * Bytes of one answer's rows (as JSON, estimated). 50,000 rows is the row cap, but 50,000 rows of 1 MB `properties`
 * would be 50 GB: 64 MB bounds the response and the cache entry. Checked by the ProductQL runner right after the engine
 * read (insight answers are bounded by their series, intervals and breakdown limits).
 */
export const MAX_RESULT_BYTES = 64 * 1024 * 1024;

/** Estimated JSON size of rows, stopping as soon as it passes `limit` (so a huge answer costs little to refuse). */
export function estimateRowsBytes(rows: readonly unknown[], limit = Number.POSITIVE_INFINITY): number {
  let n = 2;
  const stack: unknown[] = [...rows];
  while (stack.length && n <= limit) {
    const v = stack.pop();
    if (v === null || v === undefined) n += 5;
    else if (typeof v === 'string') n += v.length + 3;
    else if (typeof v === 'number' || typeof v === 'bigint') n += 12;
    else if (typeof v === 'boolean') n += 6;
    else if (v instanceof Date) n += 27;
    else if (Array.isArray(v)) {
      n += 2;
      for (const x of v) stack.push(x);
    } else if (typeof v === 'object') {
      n += 2;
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        n += k.length + 4;
        stack.push(x);
      }
    } else n += 8;
  }
  return n;
}

/** Throws a 400 `result_too_large` when rows exceed {@link MAX_RESULT_BYTES}. */
export function assertResultSize(rows: readonly unknown[], maxBytes = MAX_RESULT_BYTES): void {
  if (estimateRowsBytes(rows, maxBytes) > maxBytes)
    throw validationError(
      `The answer is larger than ${Math.round(maxBytes / 1024 / 1024)} MB. Select fewer columns or rows (LIMIT), or page with offset.`,
      null,
      'result_too_large',
    );
}
