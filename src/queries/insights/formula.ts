/**
 * Trends formulas (`A+B`, `(A-B)/A*100`, `A**2`): series letters A, B, C… in `series` order (case-insensitive),
 * numbers, `+ - * / % **`, unary ±, parentheses, with Python's semantics (PostHog's FormulaAST). Division (and
 * modulo) by zero gives 0; null operands are 0.
 * Anything else — unknown letters, function calls, identifiers — is a 400. Evaluated point-wise in JS; no text
 * from the formula ever reaches SQL.
 */
import { validationError } from '../../errors';

type Node =
  | { t: 'num'; v: number }
  | { t: 'var'; i: number }
  | { t: 'neg'; e: Node }
  | { t: 'bin'; op: '+' | '-' | '*' | '/' | '%' | '**'; l: Node; r: Node };

/** A compiled formula. */
export interface Formula {
  text: string;
  /** Series indexes used. */
  uses: number[];
  /** Evaluates with `values[i]` = value of series i (letter `A`+i). */
  evaluate(values: readonly (number | null | undefined)[]): number;
}

/**
 * Parses a formula for `seriesCount` series. Throws a 400 (attr `attr`) on syntax errors, unknown letters or calls.
 */
export function parseFormula(text: string, seriesCount: number, attr = 'trendsFilter__formula'): Formula {
  const src = text;
  let pos = 0;
  const fail = (msg: string): never => {
    throw validationError(`Invalid formula "${src}": ${msg}`, attr, 'invalid_formula');
  };
  const ws = (): void => {
    while (pos < src.length && /\s/.test(src[pos])) pos++;
  };
  const peek = (): string => {
    ws();
    return src.slice(pos, pos + 2) === '**' ? '**' : (src[pos] ?? '');
  };
  const uses = new Set<number>();

  const primary = (): Node => {
    const c = peek();
    if (c === '(') {
      pos++;
      const e = expr();
      if (peek() !== ')') fail('missing ")"');
      pos++;
      return e;
    }
    if (c === '-' || c === '+') {
      pos++;
      const e = unary();
      return c === '-' ? { t: 'neg', e } : e;
    }
    const num = /^(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?/.exec(src.slice(pos));
    if (num) {
      pos += num[0].length;
      return { t: 'num', v: Number(num[0]) };
    }
    const id = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(pos));
    if (id) {
      pos += id[0].length;
      ws();
      if (src[pos] === '(') fail(`functions are not allowed (${id[0]})`);
      if (id[0].length !== 1) fail(`unknown identifier "${id[0]}"`);
      const i = id[0].toUpperCase().charCodeAt(0) - 65;
      if (i >= seriesCount) fail(`"${id[0]}" does not refer to a series (there ${seriesCount === 1 ? 'is 1 series' : `are ${seriesCount} series`})`);
      uses.add(i);
      return { t: 'var', i };
    }
    return fail(pos >= src.length ? 'unexpected end' : `unexpected "${src[pos]}"`);
  };
  const unary = (): Node => {
    const base = primary();
    if (peek() === '**') {
      pos += 2;
      return { t: 'bin', op: '**', l: base, r: unary() };
    }
    return base;
  };
  const term = (): Node => {
    let l = unary();
    for (;;) {
      const c = peek();
      if (c === '*' || c === '/' || c === '%') {
        pos++;
        l = { t: 'bin', op: c, l, r: unary() };
      } else return l;
    }
  };
  const expr = (): Node => {
    let l = term();
    for (;;) {
      const c = peek();
      if (c === '+' || c === '-') {
        pos++;
        l = { t: 'bin', op: c, l, r: term() };
      } else return l;
    }
  };
  if (!src.trim()) fail('empty formula');
  const root = expr();
  ws();
  if (pos < src.length) fail(`unexpected "${src[pos]}"`);

  const ev = (n: Node, vals: readonly (number | null | undefined)[]): number => {
    switch (n.t) {
      case 'num':
        return n.v;
      case 'var': {
        const v = vals[n.i];
        return typeof v === 'number' && Number.isFinite(v) ? v : 0;
      }
      case 'neg':
        return -ev(n.e, vals);
      case 'bin': {
        const a = ev(n.l, vals);
        const b = ev(n.r, vals);
        let r: number;
        switch (n.op) {
          case '+':
            r = a + b;
            break;
          case '-':
            r = a - b;
            break;
          case '*':
            r = a * b;
            break;
          case '/':
            r = b === 0 ? 0 : a / b;
            break;
          case '%':
            // Python's modulo (PostHog evaluates formulas with operator.mod): the sign of the divisor, -1 % 3 = 2
            r = b === 0 ? 0 : a % b;
            if (r !== 0 && b < 0 !== r < 0) r += b;
            break;
          case '**':
            r = a ** b;
            break;
        }
        return Number.isFinite(r) ? r : 0;
      }
    }
  };
  // (`-A` over a zero is -0, which JSON writes as 0 anyway; answered as 0 so results compare equal to 0 everywhere)
  return { text, uses: [...uses].sort(), evaluate: (vals) => ev(root, vals) || 0 };
}
