/**
 * Literal and identifier escaping for ClickHouse SQL text.
 *
 * ClickHouse 18.16 (Debian's package) has no server-side query parameters, so the ClickHouse printer splices
 * every bound value into the SQL itself, through these functions and nowhere else. String literals use
 * ClickHouse's backslash escapes; every character that could end the literal or confuse a reader of logs
 * (quote, backslash, NUL and other control characters) is escaped, everything else (any Unicode) is kept as
 * UTF-8. Lone UTF-16 surrogates cannot be encoded as UTF-8 and become U+FFFD, as Node's encoder would do.
 */

/** A ClickHouse string literal: `'...'` with `\\`, `\'`, `\0`, `\n`, `\r`, `\t` and `\xHH` escapes. */
export function chString(s: string): string {
  let out = "'";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x27) out += "\\'";
    else if (c === 0x5c) out += '\\\\';
    else if (c === 0) out += '\\0';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    else if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out += s[i] + s[i + 1];
        i++;
      } else out += '\ufffd';
    } else if (c >= 0xdc00 && c <= 0xdfff) out += '\ufffd';
    else out += s[i];
  }
  return out + "'";
}

/** A ClickHouse quoted identifier: backticks, with the same escapes as strings (backtick escaped too). */
export function chIdent(name: string): string {
  return '`' + chString(name).slice(1, -1).replace(/\\'/g, "'").replace(/`/g, '\\`') + '`';
}

/**
 * A number as a ClickHouse literal. Safe integers print as they are (negative ones parenthesised, so `1 - -1`
 * can never become a `--` comment); other finite numbers go through `toFloat64('...')` when JavaScript would
 * print an exponent ClickHouse 18.16's parser refuses (`5e-324`).
 */
export function chNumber(n: number): string {
  if (!Number.isFinite(n)) throw new Error(`cannot print non-finite number ${n}`);
  const text = String(n);
  if (Number.isSafeInteger(n) || /^-?\d+(\.\d+)?$/.test(text)) return n < 0 || Object.is(n, -0) ? `(${text})` : text;
  return `toFloat64(${chString(text)})`;
}

/** Any bound value (string, number, boolean, null) as a literal. Booleans are UInt8 1/0, as in ClickHouse. */
export function chLiteral(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'string') return chString(v);
  if (typeof v === 'number') return chNumber(v);
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (typeof v === 'bigint') return v < 0n ? `(${v.toString()})` : v.toString();
  if (v instanceof Date) return `${chNumber(v.getTime())}`;
  throw new Error(`cannot print a ${typeof v} as a ClickHouse literal`);
}

/**
 * Substitutes `?` placeholders (outside string literals and quoted identifiers) with escaped literals. For
 * Quarry's own internal statements; ProductQL output never contains placeholders.
 */
export function bindPositional(sql: string, params: readonly unknown[]): string {
  if (params.length === 0) return sql;
  let out = '';
  let k = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i];
    if (c === "'" || c === '`' || c === '"') {
      let j = i + 1;
      while (j < sql.length && sql[j] !== c) j += sql[j] === '\\' ? 2 : 1;
      out += sql.slice(i, j + 1);
      i = j;
    } else if (c === '?') {
      if (k >= params.length) throw new Error('more placeholders than parameters');
      out += chLiteral(params[k++]);
    } else out += c;
  }
  if (k !== params.length) throw new Error('more parameters than placeholders');
  return out;
}
