/**
 * The DuckDB dialect of the ProductQL printer.
 *
 * Placeholders are DuckDB's numbered `$1, $2, ...`; `params[i]` binds `$(i+1)`. A value used twice shares one
 * placeholder. Bound values are JS `string | number | boolean | null` only; numbers are safe integers (DuckDB
 * infers INTEGER/BIGINT) or non-integers (DOUBLE) — larger integers are bound as strings inside a CAST.
 *
 * Datetimes: stored as naive UTC TIMESTAMP; every datetime value the printer produces is again naive UTC, so
 * comparisons against stored columns stay plain (zone maps still prune). Calendar work happens on local
 * wall-clock time: `local(x) = timezone(tz, timezone('UTC', x))`, and back with
 * `utc(l) = timezone('UTC', timezone(tz, l))`, both DST-exact through ICU and independent of the session
 * TimeZone setting (printed in cheaper equal forms, and not at all in UTC projects: see the time helpers).
 * Dates (toDate, toStartOfWeek/Month/...) are local calendar DATEs.
 */
import type { ArithmeticOp, CompareOp, ConstantValue, NodeBase } from './ast';
import { captureGroupCount, groupArraySize, formatTemplate, regexpExtractArgs, isBoolTyped, INSIGNIFICANT_SECOND_LEVEL, MONTHS_PER_UNIT, SECONDS_PER_UNIT, MAX_GENERATED_CHARS, MAX_GENERATED_ELEMENTS, OVER_MARK, boundedCount, dateTimeNullable, dateTimeTextShape, SAMPLE_BUCKETS, SPARKLINE_MARKER, RECORDING_BUTTON_MARKER, RECORDING_BUTTON_ARGS, URL_HOST, URL_NETLOC, URL_PORT, URL_SCHEME, portDefault, arrayElementTyping, arrayOfTyping, groupArrayTyping, arrayLiteralTyping, elementDefault, elementTyping, flattenDepth, jsonExtractArrayElement, jsonExtractFunction, zipTyping, sameArrayTyping, aggregateDefault, sameValueTyping, orCombinatorParts, HASH_DIGESTS, hashArgument, intHashArgument, isHashDigest, parseDateTimeFormat, dateShiftOf, topKSize, zonedCall, decimalConversionOf, decimalTextPattern, type DecimalConversion, type IntConversion, exactQuantileIndex, intConversionOf, intTypeName, formatPieces, quantileLevel, startOfIntervalArgs, roundingDigits, typeNameOf, unitOf, unwrapIfCombinator, zoneOf, type Dialect, type FunctionCall, type Helpers, type IntervalUnit, type Printed, type TableNeeds } from './dialect';
import { EMPTY_ARRAY_TYPES, ROUND_STEPS, lookupFunction } from './functions';
import { SESSION_LIST_FIELDS } from './sessions';
import type { PType } from './schema';

// DuckDB has no zero-length identifier (ClickHouse's ``): an empty name (`properties.`` `, named '') gets a stand-in
const quoteIdent = (name: string): string => (name === '' ? '"__quarry_empty_name"' : `"${name.replace(/"/g, '""')}"`);
const q = quoteIdent;

const isNum = (p: Printed): boolean => p.type === 'int' || p.type === 'float';
const isStrLike = (p: Printed): boolean => p.type === 'string' || p.type === 'json';
/**
 * Text as a number. DuckDB's cast also reads text ClickHouse's toFloat64OrNull refuses (`' 7'`, `'7 '`, `'1_000'`);
 * guarding against it (a regexp per row) made reading a numeric property ~60% slower, so that difference is kept.
 */
const num = (p: Printed): string => (isStrLike(p) ? `TRY_CAST(${p.sql} AS DOUBLE)` : p.type === 'bool' ? `CAST(${p.sql} AS INTEGER)` : p.sql);
/**
 * A value as text the way ClickHouse writes it (concat() and toString read this text). A Float64 is written with the
 * shortest digits that read back, as plain decimals from 1e-6 up to 1e21 (`100000000000000000000`, `0.000001`) and
 * as `1e21`, `1e-7`, `1.5e-8` beyond (JavaScript's rule, without its `+`); NaN as `nan`. DuckDB writes a whole
 * number as `2.0`, exponents from 1e16 and below 1e-4 (`1e+20`, `1e-07`), and `-nan`.
 */
const chText = (p: Printed): string =>
  p.type === 'float' ? `list_transform([CAST(${p.sql} AS VARCHAR)], lambda __t: ${FLOAT_TEXT})[1]` : p.type === 'bool' && !isBoolTyped(p) ? `CAST(${p.sql} AS INTEGER)` : p.sql;
const FLOAT_TEXT = (() => {
  const m = `split_part(__t, 'e', 1)`;
  const e = `CAST(split_part(__t, 'e', 2) AS INTEGER)`;
  const sign = `CASE WHEN starts_with(__t, '-') THEN '-' ELSE '' END`;
  const digits = `replace(replace(${m}, '-', ''), '.', '')`;
  const big = `CASE WHEN length(${digits}) <= ${e} + 1 THEN ${digits} || repeat('0', ${e} + 1 - length(${digits})) ELSE ${digits}[1:${e} + 1] || '.' || ${digits}[${e} + 2:] END`;
  return (
    `CASE WHEN __t LIKE '%nan' THEN 'nan' WHEN strpos(__t, 'e') = 0 OR __t LIKE '%inf' THEN regexp_replace(__t, '\\.0$', '') ` +
    `WHEN ${e} BETWEEN 0 AND 20 THEN ${sign} || ${big} ` +
    `WHEN ${e} BETWEEN -6 AND -1 THEN ${sign} || '0.' || repeat('0', -${e} - 1) || ${digits} ` +
    `ELSE ${m} || 'e' || CAST(${e} AS VARCHAR) END`
  );
})();
/**
 * ClickHouse's text of an array or tuple (toString): `[1,2]`, `['a','b']`, `(1,'a')` — no spaces, strings quoted with
 * `\\` and `'` escaped, NULL as `NULL`; undefined when the element types are not known (DuckDB's own text stands).
 */
const compositeText = (p: Printed, timezone: string): string | undefined => {
  const scalar = (t: string, x: string): string | undefined => {
    const plain = t.replace(/^Nullable\((.*)\)$/, '$1');
    let text: string | undefined;
    if (plain === 'String') text = `'''' || replace(replace(${x}, '\\', '\\\\'), '''', '\\''') || ''''`;
    // (a UInt8 may be a DuckDB boolean, a comparison: ClickHouse writes it 1 / 0)
    else if (plain === 'UInt8') text = `CAST(CAST(${x} AS INTEGER) AS VARCHAR)`;
    else if (/^U?Int(8|16|32|64)$/.test(plain)) text = `CAST(${x} AS VARCHAR)`;
    else if (plain === 'Float64') text = chText({ sql: x, type: 'float', nullable: false });
    else if (plain === 'Bool') text = `CASE WHEN ${x} THEN 'true' ELSE 'false' END`;
    else if (plain === 'Date') text = `'''' || CAST(${x} AS VARCHAR) || ''''`;
    return text && `coalesce(${text}, 'NULL')`;
  };
  if (p.tupleItems) {
    const items = p.tupleItems.map((x) => scalar(typeNameOf(x, timezone), x.sql));
    return items.every((x) => x !== undefined) ? `'(' || ${items.join(` || ',' || `)} || ')'` : undefined;
  }
  if (p.type !== 'array' || !p.chType?.startsWith('Array(')) return undefined;
  const e = scalar(p.chType.slice('Array('.length, -1), '__e');
  return e && `'[' || array_to_string(list_transform(${p.sql}, lambda __e: ${e}), ',') || ']'`;
};
const numType = (p: Printed): PType => (p.type === 'int' ? 'int' : p.type === 'unknown' ? 'unknown' : 'float');

/** What to test for NULL: the cheaper equivalent when the value carries one for its very SQL (see Printed.nullTest). */
const nullTestSql = (p: Printed): string => (p.nullTest && p.nullTest.of === p.sql ? p.nullTest.sql : p.sql);

/**
 * A JSON pointer for a property chain. Numbers are array indexes counted from 1, as ClickHouse's JSONExtract* and
 * HogQL's `properties.arr[1]` count them (the caller has checked they are positive integers).
 */
const jsonPointer = (keys: (string | number)[]): string =>
  keys.map((k) => '/' + (typeof k === 'number' ? String(k - 1) : k.replace(/~/g, '~0').replace(/\//g, '~1'))).join('');

const HAS_OFFSET = /(?:Z|[+-]\d\d(?::?\d\d)?)$/i;

const ASCII_LOWER = 'abcdefghijklmnopqrstuvwxyz';
const ASCII_UPPER = ASCII_LOWER.toUpperCase();

const SUB_DAY = new Set(['second', 'minute', 'hour']);

/** An RFC 822 / 1123 date (`Tue, 01 Oct 2024 ...`, `2 Mar 2024 ...`, `Oct 01 2024 ...`): its start, for parseDateTimeBestEffort. */
const RFC_DATE = '^\\s*([A-Za-z]{3},\\s*)?(\\d{1,2}\\s+[A-Za-z]{3}|[A-Za-z]{3}\\s+\\d{1,2})\\s+\\d{4}(\\s|$)';
/** Its weekday, left out before parsing. */
const RFC_WEEKDAY = '^[A-Za-z]{3},\\s*';
/**
 * The other forms ClickHouse's parseDateTimeBestEffort reads as local time: `23/10/2020 12:12:57` (day first),
 * `2020/10/23 12:12`, `20201023121257`; each a pattern it matches and its strptime formats.
 */
const OTHER_DATE_FORMATS: [string, string[]][] = [
  ['^\\s*\\d{1,2}/\\d{1,2}/\\d{4}(\\s|$)', ['%d/%m/%Y %H:%M:%S', '%d/%m/%Y %H:%M', '%d/%m/%Y']],
  ['^\\s*\\d{4}/\\d{1,2}/\\d{1,2}(\\s|$)', ['%Y/%m/%d %H:%M:%S', '%Y/%m/%d %H:%M', '%Y/%m/%d']],
  ['^\\s*\\d{14}\\s*$', ['%Y%m%d%H%M%S']],
];
/** Its forms with a time (strptime), without the zone. */
const RFC_FORMATS = ['%d %b %Y %H:%M:%S', '%d %b %Y %H:%M', '%b %d %Y %H:%M:%S', '%b %d %Y %H:%M'];

const P = (sql: string, type: PType, nullable: boolean, extra: Partial<Printed> = {}): Printed => ({ sql, type, nullable, ...extra });

/**
 * sqrt, ln/log2/log10, asin/acos outside their domain: ClickHouse's IEEE answers (nan; -inf for the logarithm of 0),
 * which PostHog renders as null, where DuckDB raises an error.
 */
function outOfDomain(name: string, x: string): string {
  const v = `CAST(${x} AS DOUBLE)`;
  if (name === 'sqrt') return `CASE WHEN ${v} < 0 THEN 'nan'::DOUBLE ELSE sqrt(${v}) END`;
  if (name === 'asin' || name === 'acos') return `CASE WHEN ${v} < -1 OR ${v} > 1 THEN 'nan'::DOUBLE ELSE ${name}(${v}) END`;
  return `CASE WHEN ${v} < 0 THEN 'nan'::DOUBLE WHEN ${v} = 0 THEN '-inf'::DOUBLE ELSE ${name}(${v}) END`;
}

/*
 * ClickHouse's integer hashes (src/Common/HashTable/Hash.h, src/Functions/FunctionsHashing.h), in 64-bit unsigned
 * arithmetic done on UHUGEINT and masked: the value is read as a UInt64 (two's complement), salted, then mixed.
 * Each step binds its input once (`list_transform([v], lambda __ih: ...)[1]`), so the SQL does not grow with the
 * steps that read their input twice.
 */
const U64_MASK = '18446744073709551615::UHUGEINT';
const asUInt64 = (x: string) => `CAST(((CAST(${x} AS HUGEINT) % 18446744073709551616::HUGEINT) + 18446744073709551616::HUGEINT) % 18446744073709551616::HUGEINT AS UHUGEINT)`;
const hashStep = (v: string, body: string) => `list_transform([${v}], lambda __ih: ${body})[1]`;
const xorShift = (k: number) => `xor(__ih, __ih >> ${k})`;
/** intHash64(x): murmur's 64-bit finalizer of x XOR 0x4CF2D2BAAE6DA887. */
function intHash64(x: string): string {
  const salted = `xor(${asUInt64(x)}, 5544725790478674055::UHUGEINT)`;
  const a = hashStep(salted, `(${xorShift(33)} * 18397679294719823053::UHUGEINT) & ${U64_MASK}`);
  const b = hashStep(a, `(${xorShift(33)} * 14181476777654086739::UHUGEINT) & ${U64_MASK}`);
  return hashStep(b, xorShift(33));
}
/** intHash32(x): Thomas Wang's 64-to-32-bit hash of x XOR 0x75D9543DE018BF45. */
function intHash32(x: string): string {
  const rotXor = (r: number, l: number) => `xor(__ih, (__ih >> ${r}) | ((__ih << ${l}) & ${U64_MASK}))`;
  const salted = `xor(${asUInt64(x)}, 8491911197113237317::UHUGEINT)`;
  const a = hashStep(salted, `(xor(__ih, ${U64_MASK}) + ((__ih << 18) & ${U64_MASK})) & ${U64_MASK}`);
  const b = hashStep(a, `(${rotXor(31, 33)} * 21) & ${U64_MASK}`);
  const c = hashStep(b, rotXor(11, 53));
  const d = hashStep(c, `(__ih + (__ih << 6)) & ${U64_MASK}`);
  return `(${hashStep(d, rotXor(22, 42))} & 4294967295::UHUGEINT)`;
}

/** Value types JSONExtractKeysAndValues takes (ClickHouse's names), as DuckDB types. */
const JSON_VALUE_TYPES: Record<string, { duck: string }> = {
  String: { duck: 'VARCHAR' },
  Int8: { duck: 'TINYINT' },
  Int16: { duck: 'SMALLINT' },
  Int32: { duck: 'INTEGER' },
  Int64: { duck: 'BIGINT' },
  UInt8: { duck: 'UTINYINT' },
  UInt16: { duck: 'USMALLINT' },
  UInt32: { duck: 'UINTEGER' },
  UInt64: { duck: 'UBIGINT' },
  Float32: { duck: 'FLOAT' },
  Float64: { duck: 'DOUBLE' },
};

/** captureGroupCount at run time, for a pattern that is not a constant (escapes and classes approximated). */
const CAPTURE_GROUP_RE = '(^|[^\\\\])\\(([^?]|\\?P?<[^=!]|$)';

/** Zones whose offset is zero at every instant (tzdata links to Etc/UTC); local time there is UTC itself. */
const UTC_ZONES = new Set(['utc', 'etc/utc', 'gmt', 'etc/gmt', 'uct', 'etc/uct', 'universal', 'etc/universal', 'zulu', 'etc/zulu']);
export const isUtcZone = (tz: string): boolean => UTC_ZONES.has(tz.toLowerCase());

function validTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

class DuckDBDialect implements Dialect {
  readonly name = 'duckdb' as const;
  readonly lambdaIndex = true;
  readonly limitWithTies = true;
  quoteIdent = quoteIdent;

  /** Tuples are structs "1", "2", ... (the `tuple` function): the rows become such structs, read by position. */
  tupleRows(sub: string, columns: number): string {
    const cols = Array.from({ length: columns }, (_, i) => quoteIdent(`c${i + 1}`));
    const fields = cols.map((c, i) => `${quoteIdent(String(i + 1))} := ${quoteIdent('__rows')}.${c}`);
    return `SELECT struct_pack(${fields.join(', ')}) FROM (${sub}) AS ${quoteIdent('__rows')}(${cols.join(', ')})`;
  }
  placeholder = (i: number): string => `$${i}`;

  constant(value: ConstantValue, bigNumber: boolean, h: Helpers): Printed {
    const c = { isConst: true, constValue: value };
    if (value === null) return P('NULL', 'null', true, c);
    if (typeof value === 'boolean') return P(h.param(value), 'bool', false, { ...c, chType: 'Bool' });
    if (typeof value === 'number') {
      if (Number.isSafeInteger(value)) return P(h.param(value), 'int', false, c);
      if (!Number.isInteger(value)) return P(h.param(value), 'float', false, c);
      return P(`CAST(${h.param(String(value))} AS DOUBLE)`, 'float', false, c);
    }
    if (bigNumber) return P(`CAST(${h.param(value)} AS DOUBLE)`, 'float', false, { isConst: true, constValue: Number(value) });
    return P(h.param(value), 'string', false, c);
  }

  // ---------------------------------------------------------------------------------------- time helpers
  // Per-row conversions dominate simple queries (each ICU call costs about as much as scanning the row), so:
  // in a UTC project local time *is* the stored value and nothing is printed; elsewhere the UTC legs go through
  // epoch microseconds (plain arithmetic: `make_timestamptz(epoch_us(x))` is `timezone('UTC', x)` for every
  // finite x, and `make_timestamp(epoch_us(t))` is `timezone('UTC', t)`), leaving one ICU call per direction.
  private local(sql: string, h: Helpers, tz?: string): string {
    if (tz === undefined && isUtcZone(h.timezone)) return sql;
    return `timezone(${tz ?? h.tz()}, make_timestamptz(epoch_us(${sql})))`;
  }
  private utc(localSql: string, h: Helpers): string {
    if (isUtcZone(h.timezone)) return localSql;
    return `make_timestamp(epoch_us(timezone(${h.tz()}, ${localSql})))`;
  }
  /** `utc()` in a given zone (bound SQL); the project zone when unset. */
  private utcIn(localSql: string, h: Helpers, tz?: string): string {
    if (tz === undefined) return this.utc(localSql, h);
    return `make_timestamp(epoch_us(timezone(${tz}, ${localSql})))`;
  }
  /** The zone calendar functions read a value in: an explicit zone argument, else the value's own (toTimeZone). */
  private zone(p: Printed, h: Helpers, tz?: string): string | undefined {
    if (tz !== undefined) return tz;
    const z = zoneOf(p);
    return z === undefined || z === h.timezone ? undefined : h.param(z);
  }
  /** `utc()` for a bound constant: folded once at planning, so the ICU form (which keeps ±infinity) costs nothing. */
  private utcConst(localSql: string, h: Helpers): string {
    if (isUtcZone(h.timezone)) return localSql;
    return `timezone('UTC', timezone(${h.tz()}, ${localSql}))`;
  }
  /** Any value as a naive-UTC datetime; a Date or a string without an offset is local time in `tz` (bound SQL; default the project's). */
  private dt(p: Printed, h: Helpers, node: NodeBase, tz?: string, lenient = false): string {
    // `lenient`: text that is no datetime reads NULL (HogQL prints toDateTime of text as parseDateTime64BestEffortOrNull);
    // datetimes in the usual shapes keep the strict CAST (not Nullable, see dateTimeTextShape)
    const shape = lenient && p.isConst && isStrLike(p) ? dateTimeTextShape(String(p.constValue)) : 'valid';
    if (shape === 'invalid') return 'CAST(NULL AS TIMESTAMP)';
    const cast = shape === 'other' ? 'TRY_CAST' : 'CAST';
    if (tz !== undefined && (p.type === 'date' || isStrLike(p) || p.type === 'unknown')) {
      if (p.type === 'date') return this.utcIn(`CAST(${p.sql} AS TIMESTAMP)`, h, tz);
      if (p.isConst && typeof p.constValue === 'string' && !(HAS_OFFSET.test(p.constValue.trim()) && /\d[T ]\d/.test(p.constValue))) return this.utcIn(`${cast}(${p.sql} AS TIMESTAMP)`, h, tz);
      if (!p.isConst)
        return `CASE WHEN regexp_matches(${p.sql}, '\\d[T ]\\d.*(Z|[+-]\\d\\d(:?\\d\\d)?)$') THEN timezone('UTC', TRY_CAST(${p.sql} AS TIMESTAMPTZ)) ELSE ${this.utcIn(`TRY_CAST(${p.sql} AS TIMESTAMP)`, h, tz)} END`;
    }
    switch (p.type) {
      case 'datetime':
        return p.sql;
      case 'date':
        return (p.isConst ? this.utcConst : this.utc).call(this, `CAST(${p.sql} AS TIMESTAMP)`, h);
      case 'int':
      case 'float':
        return `timezone('UTC', to_timestamp(${p.sql}))`;
      case 'null':
        return 'CAST(NULL AS TIMESTAMP)';
      case 'string':
      case 'json':
      case 'unknown':
        if (p.isConst && typeof p.constValue === 'string') {
          const s = p.constValue.trim();
          if (HAS_OFFSET.test(s) && /\d[T ]\d/.test(s)) return `timezone('UTC', ${cast}(${p.sql} AS TIMESTAMPTZ))`;
          return this.utcConst(`${cast}(${p.sql} AS TIMESTAMP)`, h);
        }
        // a string carrying its own offset (Z, +02:00) is an instant; without one it is project-local time
        return `CASE WHEN regexp_matches(${p.sql}, '\\d[T ]\\d.*(Z|[+-]\\d\\d(:?\\d\\d)?)$') THEN timezone('UTC', TRY_CAST(${p.sql} AS TIMESTAMPTZ)) ELSE ${this.utc(`TRY_CAST(${p.sql} AS TIMESTAMP)`, h)} END`;
      default:
        return h.error(`Cannot use a ${p.type} value as a datetime`, node);
    }
  }
  /** Local wall-clock value of a datetime (or a DATE as is) for calendar functions. */
  private loc(p: Printed, h: Helpers, node: NodeBase, tz?: string): string {
    return p.type === 'date' ? p.sql : this.local(this.dt(p, h, node), h, this.zone(p, h, tz));
  }
  private asDate(p: Printed, h: Helpers, node: NodeBase): string {
    if (p.type === 'date') return p.sql;
    if ((p.type === 'string' || p.type === 'json') && !p.isConst) return `TRY_CAST(${p.sql} AS DATE)`;
    // TRY_CAST: HogQL's toDate of text is ClickHouse's toDateOrNull (`toDate('abc')` is NULL)
    if (p.type === 'string' && p.isConst && !/\d[T ]\d/.test(String(p.constValue))) return `TRY_CAST(${p.sql} AS DATE)`;
    return `CAST(${this.loc(p, h, node)} AS DATE)`;
  }

  // ---------------------------------------------------------------------------------------- properties
  jsonProperty(base: string, keys: (string | number)[], h: Helpers): Printed {
    for (const k of keys)
      if (typeof k === 'number' && (!Number.isSafeInteger(k) || k < 1)) h.error('JSON array indexes must be positive integers (the first element is 1)');
    return P(`json_extract_string(${base}, ${h.param(jsonPointer(keys))})`, 'string', true, { json: { base, keys } });
  }
  jsonAsText(base: string): string {
    return `CAST(${base} AS VARCHAR)`;
  }
  jsonPropertyDynamic(base: string, key: Printed, h: Helpers): Printed {
    return P(
      `json_extract_string(${base}, '/' || replace(replace(CAST(${key.sql} AS VARCHAR), '~', '~0'), '/', '~1'))`,
      'string',
      true,
    );
  }

  // ---------------------------------------------------------------------------------------- operators
  /** Brings two operands to comparable SQL (numbers numerically, datetimes as naive UTC, ...). */
  private coerce(l: Printed, r: Printed, h: Helpers, node: NodeBase): [string, string] {
    if (l.type === 'null' || r.type === 'null') return [l.sql, r.sql];
    if (l.type === 'datetime' || r.type === 'datetime') {
      if (l.type === r.type) return [l.sql, r.sql];
      if (l.type === 'datetime') return [l.sql, this.dt(r, h, node)];
      return [this.dt(l, h, node), r.sql];
    }
    if (l.type === 'date' || r.type === 'date') {
      if (l.type === r.type) return [l.sql, r.sql];
      return l.type === 'date' ? [l.sql, this.asDate(r, h, node)] : [this.asDate(l, h, node), r.sql];
    }
    if (isNum(l) && isStrLike(r)) return [l.sql, num(r)];
    if (isStrLike(l) && isNum(r)) return [num(l), r.sql];
    if (l.type === 'uuid' && isStrLike(r)) return [l.sql, `TRY_CAST(${r.sql} AS UUID)`];
    if (isStrLike(l) && r.type === 'uuid') return [`TRY_CAST(${l.sql} AS UUID)`, r.sql];
    // A boolean meets text as its text ('true'/'false' for Bool, '1'/'0' for the UInt8 of a comparison), and a number
    // as the number it is (`(1 = 1) = 2` is 0), as in ClickHouse.
    const text = (b: Printed) => (b.isConst ? h.param(String(b.constValue)) : `CAST(${chText(b)} AS VARCHAR)`);
    // (the text 'true' / 'false' as a constant is that boolean, as a property filter's value `'true'` on a boolean field)
    const boolConst = (p: Printed) => (p.isConst && typeof p.constValue === 'string' && /^(true|false)$/i.test(p.constValue) ? h.param(p.constValue.toLowerCase() === 'true') : undefined);
    const lb = l.type === 'bool' && isStrLike(r) ? boolConst(r) : undefined;
    if (lb !== undefined) return [l.sql, lb];
    const rb = r.type === 'bool' && isStrLike(l) ? boolConst(l) : undefined;
    if (rb !== undefined) return [rb, r.sql];
    if (isStrLike(l) && r.type === 'bool') return [l.sql, text(r)];
    if (l.type === 'bool' && isStrLike(r)) return [text(l), r.sql];
    if (l.type === 'bool' && isNum(r)) return [num(l), r.sql];
    if (isNum(l) && r.type === 'bool') return [l.sql, num(r)];
    return [l.sql, r.sql];
  }

  compare(op: CompareOp, l: Printed, r: Printed, h: Helpers, node: NodeBase): Printed {
    if (op === '==' || op === '!=') {
      const isNull = (p: Printed) => p.type === 'null';
      if (isNull(r) || isNull(l)) {
        const other = isNull(r) ? l : r;
        if (isNull(other)) return P(op === '==' ? 'true' : 'false', 'bool', false);
        return P(`(${nullTestSql(other)} IS ${op === '==' ? '' : 'NOT '}NULL)`, 'bool', false);
      }
    }
    const negative = op === '!=' || op === 'not like' || op === 'not ilike' || op === 'not in' || op === '!~' || op === '!~*';
    let sql: string;
    if (op === 'in' || op === 'not in') {
      if (r.arrayIn) sql = `${op === 'not in' ? 'NOT ' : ''}list_contains(${r.sql}, ${l.sql})`;
      else if (r.list) {
        let left = l.sql;
        const items = r.list.map((it) => {
          const [a, b] = this.coerce(l, it, h, node);
          left = a;
          return b;
        });
        sql = `${left} ${op === 'in' ? 'IN' : 'NOT IN'} (${items.join(', ')})`;
      } else sql = `${l.sql} ${op === 'in' ? 'IN' : 'NOT IN'} ${r.sql}`;
    } else if (op === '=~' || op === '!~' || op === '=~*' || op === '!~*') {
      const re = `regexp_matches(${l.sql}, ${r.sql}${op.endsWith('*') ? `, 'i'` : ''})`;
      sql = op.startsWith('!') ? `NOT ${re}` : re;
    } else if (op === 'like' || op === 'not like' || op === 'ilike' || op === 'not ilike') {
      const left = isStrLike(l) || l.type === 'unknown' ? l.sql : `CAST(${l.sql} AS VARCHAR)`;
      // ClickHouse (so HogQL) escapes % and _ with a backslash in LIKE patterns; DuckDB has no escape character unless told
      sql = `${left} ${op.toUpperCase()} ${r.sql} ESCAPE '\\'`;
    } else {
      const [a, b] = this.coerce(l, r, h, node);
      const sqlOp = op === '==' ? '=' : op === '!=' ? '<>' : op;
      sql = `${a} ${sqlOp} ${b}`;
    }
    const nullable = l.nullable || r.nullable;
    // HogQL: nullable `a = b` is ifNull(equals(a, b), 0); negations are ifNull(..., 1).
    if (!nullable) return P(`(${sql})`, 'bool', false);
    // Where NULL is falsy anyway (WHERE, ON) the plain comparison means the same and keeps hash joins/pushdown.
    return P(`coalesce(${sql}, ${negative ? 'true' : 'false'})`, 'bool', false, negative ? {} : { filterSql: `(${sql})` });
  }

  between(x: Printed, lo: Printed, hi: Printed, negated: boolean, h: Helpers): Printed {
    const node = {};
    const [a, b] = this.coerce(x, lo, h, node);
    const [, c] = this.coerce(x, hi, h, node);
    const sql = `${a} ${negated ? 'NOT ' : ''}BETWEEN ${b} AND ${c}`;
    const nullable = x.nullable || lo.nullable || hi.nullable;
    if (!nullable) return P(`(${sql})`, 'bool', false);
    return P(`coalesce(${sql}, ${negated ? 'true' : 'false'})`, 'bool', false, negated ? {} : { filterSql: `(${sql})` });
  }

  interval(unit: IntervalUnit, count: Printed): Printed {
    const c = `CAST(${count.sql} AS INTEGER)`;
    return P(unit === 'quarter' ? `to_months(${c} * 3)` : `to_${unit}s(${c})`, 'interval', false, { intervalUnit: unit });
  }

  arithmetic(op: ArithmeticOp, l: Printed, r: Printed, h: Helpers, node: NodeBase): Printed {
    const nullable = l.nullable || r.nullable;
    if (r.type === 'interval' && (op === '+' || op === '-')) {
      // a Date moved by hours, minutes or seconds is a datetime (ClickHouse's addHours(Date) is a DateTime)
      if (l.type === 'date' && !SUB_DAY.has(r.intervalUnit ?? '')) {
        const sql = `CAST((${l.sql} ${op} ${r.sql}) AS DATE)`;
        return P(sql, 'date', nullable);
      }
      const base = this.dt(l, h, node);
      if (SUB_DAY.has(r.intervalUnit ?? '')) return P(`(${base} ${op} ${r.sql})`, 'datetime', nullable);
      return P(this.utc(`(${this.local(base, h)} ${op} ${r.sql})`, h), 'datetime', nullable);
    }
    if (l.type === 'interval' && op === '+' && r.type !== 'interval') return this.arithmetic(op, r, l, h, node);
    if (l.type === 'interval' && r.type === 'interval') return P(`(${l.sql} ${op} ${r.sql})`, 'interval', nullable);
    if (l.type === 'datetime' && r.type === 'datetime' && op === '-')
      return P(`(epoch(${l.sql}) - epoch(${r.sql}))`, 'float', nullable);
    if (l.type === 'date' && isNum(r) && (op === '+' || op === '-')) return P(`(${l.sql} ${op} CAST(${r.sql} AS INTEGER))`, 'date', nullable);
    if (l.type === 'date' && r.type === 'date' && op === '-') return P(`(${l.sql} - ${r.sql})`, 'int', nullable);
    const type: PType =
      l.type === 'unknown' || r.type === 'unknown'
        ? 'unknown'
        : op === '/' || l.type === 'float' || r.type === 'float' || isStrLike(l) || isStrLike(r)
          ? 'float'
          : 'int';
    return P(`(${num(l)} ${op} ${num(r)})`, type, nullable);
  }

  lambda(args: string[], body: Printed): Printed {
    return P(`lambda ${args.map(q).join(', ')}: ${body.sql}`, 'unknown', true);
  }

  arrayAccess(arr: Printed, index: Printed): Printed {
    // Out of bounds, ClickHouse reads the element type's default where a DuckDB list reads NULL (no element is NULL
    // when there is a default: the elements are not Nullable); a NULL index still reads NULL.
    const d = elementDefault(arr);
    if (!d) return P(`${arr.sql}[${index.sql}]`, 'unknown', true, arrayElementTyping(arr));
    const read = `coalesce(${arr.sql}[${index.sql}], ${d.sql})`;
    return P(index.nullable ? `CASE WHEN ${index.sql} IS NULL THEN NULL ELSE ${read} END` : read, d.type, index.nullable, { chType: d.chType });
  }

  /** JSONExtractString(json, path...) .. JSONLength: the value at `path` of a non-NULL `json`, or the function's default. */
  private jsonScalar(name: string, json: string, path: string): Printed {
    switch (name) {
      case 'JSONExtractString':
        // a value that is no JSON string (a number, true, an object) reads '', as ClickHouse's "wrong type" default
        return P(`CASE WHEN json_type(${json}, ${path}) = 'VARCHAR' THEN json_extract_string(${json}, ${path}) ELSE '' END`, 'string', false);
      case 'JSONExtractInt': {
        // a fractional number (or text of one) is cut to its integer part, as ClickHouse converts it (DuckDB's cast
        // rounds); a whole one is cast exactly, beyond a double's precision too
        const t = `json_extract_string(${json}, ${path})`;
        const d = `TRY_CAST(${t} AS DOUBLE)`;
        return P(`coalesce(CASE WHEN ${d} = trunc(${d}) THEN coalesce(TRY_CAST(${t} AS BIGINT), TRY_CAST(${d} AS BIGINT)) ELSE TRY_CAST(trunc(${d}) AS BIGINT) END, 0)`, 'int', false);
      }
      case 'JSONExtractFloat':
        return P(`coalesce(TRY_CAST(json_extract_string(${json}, ${path}) AS DOUBLE), 0)`, 'float', false);
      case 'JSONExtractBool':
        return P(`coalesce(TRY_CAST(json_extract_string(${json}, ${path}) AS BOOLEAN), false)`, 'bool', false);
      case 'JSONExtractRaw':
        return P(`coalesce(CAST(json_extract(${json}, ${path}) AS VARCHAR), '')`, 'string', false);
      case 'JSONHas':
        return P(`(json_extract(${json}, ${path}) IS NOT NULL)`, 'bool', false);
      default:
        // ClickHouse's JSONLength: an array's elements or an object's keys; 0 for anything else
        return P(
          `CASE json_type(${json}, ${path}) WHEN 'ARRAY' THEN json_array_length(${json}, ${path}) WHEN 'OBJECT' THEN len(json_keys(${json}, ${path})) ELSE 0 END`,
          'int',
          false,
        );
    }
  }

  /** Tuples are structs with fields "1", "2", ... (see the `tuple` function); the index is a checked integer. */
  tupleElement(t: Printed, index: number): Printed {
    return P(`struct_extract_at(${t.sql}, ${index})`, 'unknown', true);
  }

  // ---------------------------------------------------------------------------------------- tables
  guardedTable(table: string, alias: string, projectParam: string, needs: TableNeeds): string {
    const a = q(alias);
    const cols = [`${a}.*`];
    const joins: string[] = [];
    const overridden = table === 'events' && needs.personOverrides !== false;
    // An event stored without a person takes the person its distinct id maps to now (TableNeeds.personless); the pdi
    // rows move with merges, so that person needs no override.
    const fallback = table === 'events' && needs.personless === true;
    const resolved = [
      ...(overridden ? [`${q('__override')}.${q('override_person_id')}`] : []),
      `${a}.${q('person_id')}`,
      ...(fallback ? [`${q('__plpdi')}.${q('person_id')}`] : []),
    ];
    const personId = resolved.length > 1 ? `coalesce(${resolved.join(', ')})` : resolved[0];
    if (overridden && (needs.personId || needs.personFields.length)) {
      // Ingestion keeps one row per (project_id, old_person_id) and rewrites chains, so one hop is enough.
      joins.push(
        `LEFT JOIN (SELECT ${q('__o')}.* FROM ${q('person_overrides')} AS ${q('__o')} WHERE ${q('__o')}.${q('project_id')} = ${projectParam})` +
          ` AS ${q('__override')} ON ${q('__override')}.${q('old_person_id')} = ${a}.${q('person_id')}`,
      );
    }
    if (fallback && (needs.personId || needs.personFields.length)) {
      joins.push(
        `LEFT JOIN (SELECT ${q('__pl')}.* FROM ${q('person_distinct_ids')} AS ${q('__pl')} WHERE ${q('__pl')}.${q('project_id')} = ${projectParam})` +
          ` AS ${q('__plpdi')} ON ${q('__plpdi')}.${q('distinct_id')} = ${a}.${q('distinct_id')} AND ${a}.${q('person_id')} IS NULL`,
      );
    }
    if (needs.personId) cols.push(`${personId} AS ${q('__person_id')}`);
    if (needs.personFields.length) {
      joins.push(
        `LEFT JOIN (SELECT ${q('__p')}.* FROM ${q('persons')} AS ${q('__p')} WHERE ${q('__p')}.${q('project_id')} = ${projectParam})` +
          ` AS ${q('__person')} ON ${q('__person')}.${q('id')} = ${personId}`,
      );
      for (const f of needs.personFields) cols.push(`${q('__person')}.${q(f)} AS ${q(`__person_${f}`)}`);
    }
    // events.pdi: the mapping of the row's distinct id (one per distinct id), and through it its person.
    const pdiPerson = needs.pdiPersonFields ?? [];
    if (needs.pdiFields?.length || pdiPerson.length) {
      // persons.pdi is an inner join on the person (one row per distinct id of theirs), events.pdi a left join on the
      // distinct id.
      const [kind, on] = table === 'persons' ? ['JOIN', `${q('__pdi')}.${q('person_id')} = ${a}.${q('id')}`] : ['LEFT JOIN', `${q('__pdi')}.${q('distinct_id')} = ${a}.${q('distinct_id')}`];
      joins.push(
        `${kind} (SELECT ${q('__d')}.* FROM ${q('person_distinct_ids')} AS ${q('__d')} WHERE ${q('__d')}.${q('project_id')} = ${projectParam})` +
          ` AS ${q('__pdi')} ON ${on}`,
      );
      for (const f of needs.pdiFields ?? []) cols.push(`${q('__pdi')}.${q(f)} AS ${q(`__pdi_${f}`)}`);
    }
    if (pdiPerson.length) {
      joins.push(
        `LEFT JOIN (SELECT ${q('__pp')}.* FROM ${q('persons')} AS ${q('__pp')} WHERE ${q('__pp')}.${q('project_id')} = ${projectParam})` +
          ` AS ${q('__pdiperson')} ON ${q('__pdiperson')}.${q('id')} = ${q('__pdi')}.${q('person_id')}`,
      );
      for (const f of pdiPerson) cols.push(`${q('__pdiperson')}.${q(f)} AS ${q(`__pdiperson_${f}`)}`);
    }
    // events.session: the compiled sessions query (its own events reference is guarded), one row per session id.
    if (needs.session?.fields.length) {
      joins.push(`LEFT JOIN (${needs.session.sql}) AS ${q('__session')} ON ${q('__session')}.${q('session_id')} = ${a}.${q('$session_id')}`);
      // a list field reads [] without a session, as on ClickHouse (whose arrays cannot be NULL)
      for (const f of needs.session.fields) {
        const col = `${q('__session')}.${q(f)}`;
        cols.push(`${SESSION_LIST_FIELDS.has(f) ? `coalesce(${col}, [])` : col} AS ${q(`__session_${f}`)}`);
      }
    }
    // events.group_N: the project's group of type N whose key is the event's `$group_N` (one row per type and key).
    for (const g of needs.groups ?? []) {
      const j = q(`__group${g.index}`);
      const r = q(`__gr${g.index}`);
      joins.push(
        `LEFT JOIN (SELECT ${r}.* FROM ${q('groups')} AS ${r} WHERE ${r}.${q('project_id')} = ${projectParam} AND ${r}.${q('group_type_index')} = ${g.index})` +
          ` AS ${j} ON ${j}.${q('group_key')} = ${g.key(`${a}.${q('properties')}`)}`,
      );
      for (const f of g.fields) cols.push(`${j}.${q(f)} AS ${q(`__group${g.index}_${f}`)}`);
    }
    return `(SELECT ${cols.join(', ')} FROM ${q(table)} AS ${a}${joins.map((j) => ' ' + j).join('')} WHERE ${a}.${q('project_id')} = ${projectParam}) AS ${a}`;
  }

  lazyColumn(alias: string, name: string): string {
    return `${q(alias)}.${q(`__${name}`)}`;
  }

  numbersTable(offset: number, count: number): string {
    return `SELECT range AS ${q('number')} FROM range(${offset}, ${offset + count})`;
  }

  /**
   * ARRAY JOIN as a derived table: each FROM table as one struct column (a reference `"e"."x"` then reads the
   * struct's field), and the arrays unnested in the select list, which keeps their order and zips several.
   */
  arrayJoinFrom(from: string, tables: string[], items: { name: string; sql: string }[], left: boolean, id: number): string {
    const arr = (sql: string) => (left ? `CASE WHEN coalesce(len(${sql}), 0) = 0 THEN [NULL] ELSE ${sql} END` : sql);
    const cols = [...tables, ...items.map((i) => `unnest(${arr(i.sql)}) AS ${q(i.name)}`)];
    return `(SELECT ${cols.join(', ')} FROM ${from}) AS ${q(`__aj${id}`)}`;
  }

  arrayJoinRef(id: number, name: string): string {
    return `${q(`__aj${id}`)}.${q(name)}`;
  }

  sampleCondition(distinctIdSql: string, ratio: number, offset: number): string {
    const h = `(hash(${distinctIdSql}) % ${SAMPLE_BUCKETS})`;
    return `(${h} >= ${Math.floor(offset * SAMPLE_BUCKETS)} AND ${h} < ${Math.min(SAMPLE_BUCKETS, Math.floor((offset + ratio) * SAMPLE_BUCKETS))})`;
  }

  /**
   * The stored person_id (selected by `alias.*`): NULL exactly when the override-resolved one is (not asked for when
   * the pdi fallback of TableNeeds.personless applies).
   */
  lazyPersonIdNullTest(alias: string): string {
    return `${q(alias)}.${q('person_id')}`;
  }

  /**
   * age(unit, from, to): the whole units from `from` to `to`, as dateDiff counts them less the last one when adding
   * that many units to `from` passes `to` (ClickHouse's age counts complete units only).
   */
  private age(fn: FunctionCall, h: Helpers): Printed {
    const [u, from, to] = fn.args;
    const unit = unitOf(u, h, fn.node);
    const d = this.call({ ...fn, sig: lookupFunction('dateDiff')! }, h);
    const shifted = this.arithmetic('+', P(this.dt(from, h, fn.node), 'datetime', from.nullable), this.interval(unit, d), h, fn.node).sql;
    const y = this.dt(to, h, fn.node);
    return P(`(${d.sql} - CASE WHEN ${d.sql} > 0 AND ${shifted} > ${y} THEN 1 WHEN ${d.sql} < 0 AND ${shifted} < ${y} THEN -1 ELSE 0 END)`, 'int', d.nullable);
  }

  /**
   * `toDateTime(x, zone)`, and the value of a calendar function given a zone (TIMEZONE_ARGUMENT): the instant, a string
   * without an offset or a Date read as local time there, shown in that zone.
   */
  private inZone(p: Printed, zone: Printed, h: Helpers, node: NodeBase, lenient = false): Printed {
    if (!zone.isConst || typeof zone.constValue !== 'string' || !validTimezone(zone.constValue)) return h.error('Timezone must be a valid IANA timezone name', node);
    const z = zone.constValue;
    const nullable = dateTimeNullable(p, lenient);
    return P(this.dt(p, h, node, zone.sql, lenient), 'datetime', nullable, { displayTz: z, chType: `DateTime64(6, '${z}')` });
  }

  /** `<aggregate>OrNull`, `-OrDefault`, `-Array`, `-ForEach`, `-State`, `-Merge` (FunctionSignature.orOf, arrayOf, forEachOf, stateOf, mergeOf). */
  private aggregateCombinator(fn: FunctionCall, h: Helpers): Printed {
    if (fn.over) return h.error(`Function "${fn.sig.name}" cannot be used as a window function`, fn.node);
    if (fn.sig.orOf) {
      const { value, count } = orCombinatorParts(fn);
      const v = this.call(value, h);
      const dflt = fn.sig.orOf.mode === 'null' ? 'NULL' : aggregateDefault(v, (x) => h.param(x));
      if (dflt === undefined) return v;
      return P(`CASE WHEN ${this.call(count, h).sql} = 0 THEN ${dflt} ELSE ${v.sql} END`, v.type, fn.sig.orOf.mode === 'null', v.chType ? { chType: v.chType } : {});
    }
    if (fn.sig.stateOf || fn.sig.mergeOf) return this.stateCombinator(fn, h);
    if (fn.sig.forEachOf) {
      // the rows' arrays folded position by position (the result is as long as the longest array)
      const x = fn.args[0].sql;
      const f = ` FILTER (WHERE ${[`${x} IS NOT NULL`, fn.filter].filter(Boolean).join(' AND ')})`;
      const at = (l: string) => `${l}[__fe_i]`;
      const combine = {
        sum: `coalesce(${at('__fe_acc')}, 0) + coalesce(${at('__fe_y')}, 0)`,
        count: `coalesce(${at('__fe_acc')}, 0) + coalesce(${at('__fe_y')}, 0)`,
        min: `least(${at('__fe_acc')}, ${at('__fe_y')})`,
        max: `greatest(${at('__fe_acc')}, ${at('__fe_y')})`,
      }[fn.sig.forEachOf as 'sum' | 'count' | 'min' | 'max'];
      // count: each array as 1 for a non-NULL element, 0 for NULL, then summed
      const rows = fn.sig.forEachOf === 'count' ? `list(list_transform(${x}, lambda __fe_e: CASE WHEN __fe_e IS NULL THEN 0 ELSE 1 END))${f}` : `list(${x})${f}`;
      const fold = `list_reduce(${rows}, lambda __fe_acc, __fe_y: list_transform(range(1, greatest(len(__fe_acc), len(__fe_y)) + 1), lambda __fe_i: ${combine}))`;
      return P(`CASE WHEN count(${x})${f} = 0 THEN [] ELSE ${fold} END`, 'array', false);
    }
    // -Array: the aggregate over the elements of the (non-NULL) arrays
    const x = fn.args[0].sql;
    const f = ` FILTER (WHERE ${[`${x} IS NOT NULL`, fn.filter].filter(Boolean).join(' AND ')})`;
    const elements = `flatten(coalesce(list(${x})${f}, []))`;
    switch (fn.sig.arrayOf) {
      case 'count':
        return P(`coalesce(sum(list_count(${x}))${f}, 0)`, 'int', false, { chType: 'UInt64' });
      case 'sum':
        return P(`coalesce(sum(list_sum(${x}))${f}, 0)`, 'float', false);
      case 'avg':
        return P(`(sum(list_sum(${x}))${f} / sum(list_count(${x}))${f})`, 'float', true);
      case 'min':
      case 'max':
        return P(`${fn.sig.arrayOf}(list_${fn.sig.arrayOf}(${x}))${f}`, 'unknown', true);
      case 'uniq':
      case 'uniqExact':
        return P(`len(list_distinct(${elements}))`, 'int', false, { chType: 'UInt64' });
      case 'groupArray':
        return P(elements, 'array', false, sameArrayTyping(fn.args[0]));
      default:
        return P(`list_distinct(${elements})`, 'array', false, sameArrayTyping(fn.args[0]));
    }
  }

  /**
   * `<aggregate>State` / `<aggregate>Merge`: a state is a value the merge can combine: the aggregate itself for count,
   * sum, min and max; the list of distinct values for uniq; {s: sum, c: count} for avg; {v: value, k: key} for
   * argMax / argMin. (ClickHouse's states are opaque binary: only their merges read alike on both engines.)
   */
  private stateCombinator(fn: FunctionCall, h: Helpers): Printed {
    const base = (fn.sig.stateOf ?? fn.sig.mergeOf)!;
    const f = (extra?: string) => {
      const parts = [extra, fn.filter].filter(Boolean);
      return parts.length ? ` FILTER (WHERE ${parts.join(' AND ')})` : '';
    };
    const x = fn.args[0]?.sql;
    if (fn.sig.stateOf) {
      const plain = (name: string) => this.call({ ...fn, sig: lookupFunction(name)! }, h);
      switch (base) {
        case 'uniq':
        case 'uniqExact': {
          const v = fn.args.length === 1 ? x : `row(${fn.args.map((a) => a.sql).join(', ')})`;
          return P(`coalesce(list(DISTINCT ${v})${f(fn.args.map((a) => `${a.sql} IS NOT NULL`).join(' AND '))}, [])`, 'unknown', false);
        }
        case 'avg':
          return P(`struct_pack(s := sum(${num(fn.args[0])})${f()}, c := count(${num(fn.args[0])})${f()})`, 'unknown', false);
        case 'argMax':
        case 'argMin':
          return P(`struct_pack(v := ${base === 'argMax' ? 'arg_max' : 'arg_min'}(${x}, ${fn.args[1].sql})${f()}, k := ${base === 'argMax' ? 'max' : 'min'}(${fn.args[1].sql})${f()})`, 'unknown', true);
        default:
          return { ...plain(base), type: 'unknown' };
      }
    }
    switch (base) {
      case 'count':
        return P(`coalesce(sum(${x})${f()}, 0)`, 'int', false, { chType: 'UInt64' });
      case 'sum':
        return P(`sum(${x})${f()}`, 'float', true);
      case 'min':
      case 'max':
        return P(`${base}(${x})${f()}`, 'unknown', true);
      case 'uniq':
      case 'uniqExact':
        return P(`len(list_distinct(flatten(coalesce(list(${x})${f(`${x} IS NOT NULL`)}, []))))`, 'int', false, { chType: 'UInt64' });
      case 'avg':
        return P(`(sum(struct_extract(${x}, 's'))${f()} / sum(struct_extract(${x}, 'c'))${f()})`, 'float', true);
      default:
        return P(`${base === 'argMax' ? 'arg_max' : 'arg_min'}(struct_extract(${x}, 'v'), struct_extract(${x}, 'k'))${f()}`, 'unknown', true);
    }
  }

  /** toUInt8 .. toInt64OrZero (dialect.ts intConversionOf): toInt's value wrapped into the width. */
  private intConversion(fn: FunctionCall, c: IntConversion, h: Helpers): Printed {
    const v = this.call({ ...fn, sig: lookupFunction('toInt')!, args: fn.args.slice(0, 1), raw: fn.raw.slice(0, 1) }, h);
    const m = 2n ** BigInt(c.bits);
    let sql = v.sql;
    if (c.bits < 64) sql = c.signed ? `((((${v.sql}) % ${m}) + ${m + m / 2n}) % ${m} - ${m / 2n})` : `((((${v.sql}) % ${m}) + ${m}) % ${m})`;
    else if (!c.signed) sql = `CAST((CAST(${v.sql} AS HUGEINT) + ${m}) % ${m} AS UBIGINT)`;
    const chType = intTypeName(c);
    return c.orZero ? P(`coalesce(${sql}, 0)`, 'int', false, { chType }) : P(sql, 'int', c.nullable(fn.args[0]), { chType });
  }

  /** toDecimal(x, S), toDecimal32/64/128[OrNull|OrZero](x, S) (dialect.ts decimalConversionOf). */
  private decimalConversion(x: Printed, d: DecimalConversion, h: Helpers, n: NodeBase): Printed {
    let v: string;
    if (x.type === 'null') v = 'CAST(NULL AS DOUBLE)';
    else if (isNum(x) || x.type === 'bool') v = `(trunc(CAST(${x.sql} AS DOUBLE) * 1e${d.scale}) / 1e${d.scale})`;
    else if (isStrLike(x) || x.type === 'unknown')
      v = `TRY_CAST(regexp_replace(CAST(${x.sql} AS VARCHAR), ${h.param(decimalTextPattern(d.scale))}, ${h.param('\\1')}) AS DOUBLE)`;
    else return h.error(`Cannot convert a ${x.type} value to a decimal`, n);
    const sql = `CASE WHEN abs(${v}) < 1e${d.precision - d.scale} THEN ${v} END`;
    return d.orZero ? P(`coalesce(${sql}, 0)`, 'float', false, { chType: d.typeName }) : P(sql, 'float', d.nullable(x), { chType: d.typeName });
  }

  // ---------------------------------------------------------------------------------------- functions
  call(fn: FunctionCall, h: Helpers): Printed {
    const unwrapped = unwrapIfCombinator(fn);
    if (unwrapped) return this.call(unwrapped, h);
    if (fn.sig.orOf || fn.sig.arrayOf || fn.sig.stateOf || fn.sig.mergeOf || fn.sig.forEachOf) return this.aggregateCombinator(fn, h);
    const a = fn.args;
    const n = fn.node;
    const shift = dateShiftOf(fn.sig.name);
    if (shift) return this.arithmetic(shift.op, a[0], this.interval(shift.unit, a[1]), h, n);
    const zoned = zonedCall(fn, h, (f, hh) => this.call(f, hh), (p, zone, hh, node) => this.inZone(p, zone, hh, node));
    if (zoned) return zoned;
    const intConv = intConversionOf(fn.sig.name);
    if (intConv) return this.intConversion(fn, intConv, h);
    const dec = decimalConversionOf(fn.sig.name, a[1], h, n);
    if (dec) return this.decimalConversion(a[0], dec, h, n);
    const noWindow = (): void => {
      if (fn.over) h.error(`Function "${fn.sig.name}" cannot be used as a window function`, n);
    };
    const s = (i: number) => a[i].sql;
    const anyNull = a.some((x) => x.nullable);
    const filterOf = (extra?: string): string => {
      const parts = [extra, fn.filter].filter((x): x is string => !!x);
      return parts.length ? ` FILTER (WHERE ${parts.join(' AND ')})` : '';
    };
    const d = fn.distinct ? 'DISTINCT ' : '';
    const agg = (name: string, arg: string, type: PType, nullable: boolean, extra?: string, chType?: string): Printed =>
      P(`${name}(${d}${arg})${filterOf(extra)}`, type, nullable, chType ? { chType } : {});
    const simple = (name: string, type: PType, nullable = anyNull): Printed => P(`${name}(${a.map((x) => x.sql).join(', ')})`, type, nullable);
    // ClickHouse aggregates no row of a non-Nullable value into its type's default (sum, min, max, any: 0, ''), not NULL
    const orTypeDefault = (p: Printed): Printed => {
      const dflt = a[0].nullable || fn.over ? undefined : a[0].type === 'bool' ? 'false' : aggregateDefault(a[0], (v) => h.param(v));
      return dflt === undefined ? p : { ...p, sql: `coalesce(${p.sql}, ${dflt})`, nullable: false };
    };
    // min / max / any ... return one of their values: typed as it is (any(true) is Bool), Nullable only when it is
    const sameValue = (p: Printed): Printed => {
      const { nullable: _, ...typing } = sameValueTyping(a[0], h.timezone);
      return fn.over ? p : { ...p, ...typing };
    };
    const tzArg = (i: number): string | undefined => {
      if (a.length <= i) return undefined;
      const t = a[i];
      if (!t.isConst || typeof t.constValue !== 'string' || !validTimezone(t.constValue)) h.error('Timezone must be a valid IANA timezone name', n);
      return t.sql;
    };
    const jsonPath = (from: number, to = a.length): string => {
      const keys = a.slice(from, to);
      if (keys.length === 0) return `'$'`;
      if (keys.every((k) => k.isConst && (typeof k.constValue === 'string' || typeof k.constValue === 'number'))) {
        return h.param(
          jsonPointer(
            keys.map((k) => {
              if (typeof k.constValue === 'number') {
                if (!Number.isSafeInteger(k.constValue) || k.constValue < 1) h.error('JSON array indexes must be positive integers', n);
                return k.constValue;
              }
              return k.constValue as string;
            }),
          ),
        );
      }
      return keys.map((k) => `'/' || replace(replace(CAST(${k.sql} AS VARCHAR), '~', '~0'), '/', '~1')`).join(' || ');
    };

    switch (fn.sig.name) {
      // ---------------- aggregates
      case 'count':
        if (a.length === 0) return P(`count(*)${filterOf()}`, 'int', false, { chType: 'UInt64' });
        return agg('count', s(0), 'int', false, undefined, 'UInt64');
      case 'countIf':
        // countIf(x, cond): the non-NULL x where cond holds
        if (a.length === 2) return agg('count', s(0), 'int', false, `(${s(1)})`, 'UInt64');
        return P(`count(*)${filterOf(s(0))}`, 'int', false, { chType: 'UInt64' });
      case 'uniq':
      case 'uniqExact':
        return P(`count(DISTINCT ${a.length === 1 ? s(0) : `row(${a.map((x) => x.sql).join(', ')})`})${filterOf()}`, 'int', false, { chType: 'UInt64' });
      case 'uniqIf':
      case 'uniqExactIf':
        return P(`count(DISTINCT ${s(0)})${filterOf(s(1))}`, 'int', false, { chType: 'UInt64' });
      case 'sum':
        return orTypeDefault(agg('sum', num(a[0]), numType(a[0]), true));
      case 'sumIf':
        return orTypeDefault(agg('sum', num(a[0]), numType(a[0]), true, s(1)));
      case 'avg':
        return agg('avg', num(a[0]), 'float', true);
      case 'avgIf':
        return agg('avg', num(a[0]), 'float', true, s(1));
      case 'min':
      case 'max':
        return sameValue(orTypeDefault(agg(fn.sig.name, s(0), a[0].type, true)));
      case 'minIf':
      case 'maxIf':
        return sameValue(orTypeDefault(agg(fn.sig.name.slice(0, 3), s(0), a[0].type, true, s(1))));
      case 'any':
        return sameValue(orTypeDefault(agg('any_value', s(0), a[0].type, true)));
      case 'anyIf':
        return sameValue(orTypeDefault(agg('any_value', s(0), a[0].type, true, s(1))));
      case 'argMax':
      case 'argMin': {
        const v = P(`${fn.sig.name === 'argMax' ? 'arg_max' : 'arg_min'}(${s(0)}, ${s(1)})${filterOf()}`, a[0].type, true);
        // no row: ClickHouse's default of the value's type ('', 0), as for any / min / max
        return sameValue(a[1].nullable ? v : orTypeDefault(v));
      }
      case 'median':
        return agg('median', num(a[0]), 'float', true);
      case 'stddevPop':
      case 'stddevSamp':
      case 'varPop':
      case 'varSamp': {
        const name = { stddevPop: 'stddev_pop', stddevSamp: 'stddev_samp', varPop: 'var_pop', varSamp: 'var_samp' }[fn.sig.name]!;
        return agg(name, num(a[0]), 'float', true);
      }
      case 'quantile': {
        const p = fn.params[0];
        if (typeof p.constValue !== 'number' || p.constValue < 0 || p.constValue > 1) h.error('quantile level must be a number between 0 and 1', n);
        return P(`quantile_cont(${num(a[0])}, ${p.sql})${filterOf()}`, 'float', true);
      }
      case 'quantiles': {
        for (const p of fn.params)
          if (typeof p.constValue !== 'number' || p.constValue < 0 || p.constValue > 1) h.error('quantile levels must be numbers between 0 and 1', n);
        return P(`quantile_cont(${num(a[0])}, [${fn.params.map((p) => p.sql).join(', ')}])${filterOf()}`, 'array', false);
      }
      case 'groupArray':
      case 'groupUniqArray': {
        const all = `coalesce(list(${fn.sig.name === 'groupUniqArray' ? 'DISTINCT ' : d}${s(0)})${filterOf(`${s(0)} IS NOT NULL`)}${fn.over ? OVER_MARK : ''}, [])`;
        const size = groupArraySize(fn, h);
        return P(size === undefined ? all : `list_slice(${all}, 1, ${size})`, 'array', false, groupArrayTyping(a[0], h.timezone));
      }

      // ---------------- window functions
      case 'row_number':
      case 'rank':
      case 'dense_rank':
        return P(`${fn.sig.name}()`, 'int', false, { chType: 'UInt64' });
      case 'percent_rank':
      case 'cume_dist':
        return P(`${fn.sig.name}()`, 'float', false);
      case 'ntile':
        return P(`ntile(${s(0)})`, 'int', false);
      case 'first_value':
      case 'last_value':
        return simple(fn.sig.name, a[0].type, true);
      case 'nth_value':
        return simple('nth_value', a[0].type, true);
      case 'lag':
      case 'lead':
      case 'lagInFrame':
      case 'leadInFrame': {
        // ClickHouse's lagInFrame/leadInFrame read the default of the value's type (not NULL) without a row at the
        // offset (PostHog queries wrap the value in toNullable to get NULL there)
        const typeDefault = ({ string: `''`, int: '0', float: '0', bool: 'false' } as Partial<Record<PType, string>>)[a[0].type];
        const lagOrLead = fn.sig.name.startsWith('lag') ? 'lag' : 'lead';
        const byType = fn.sig.name.endsWith('InFrame') && a.length < 3 && !a[0].nullable && typeDefault;
        const read = byType
          ? P(`${lagOrLead}(${a[0].sql}, ${a.length > 1 ? a[1].sql : '1'}, ${typeDefault})`, a[0].type, false)
          : P(`${lagOrLead}(${a.map((x) => x.sql).join(', ')})`, a[0].type, true);
        // ...and only inside the frame (DuckDB's lag/lead ignore it): outside it, the default as without a row there
        const reach = fn.inFrame?.reach ?? 'always';
        if (reach === 'always') return read;
        const dflt = a.length > 2 ? a[2].sql : byType ? typeDefault : 'NULL';
        const off = a.length > 1 ? a[1].sql : '1';
        const inside = reach === 'never' ? 'false' : fn.inFrame!.peers.map((k) => `${lagOrLead}(${k}, ${off})${OVER_MARK} IS NOT DISTINCT FROM ${k}`).join(' AND ');
        return { ...read, sql: `(CASE WHEN ${inside} THEN ${read.sql}${OVER_MARK} ELSE ${dflt} END)` };
      }

      // ---------------- dates
      case 'now': {
        const now = P(`timezone('UTC', now())`, 'datetime', false);
        return a.length ? this.inZone(now, a[0], h, n) : now;
      }
      case 'today':
        return P(`CAST(timezone(${h.tz()}, now()) AS DATE)`, 'date', false);
      case 'yesterday':
        return P(`(CAST(timezone(${h.tz()}, now()) AS DATE) - 1)`, 'date', false);
      case 'toDateTime':
        // text that is no datetime is NULL (HogQL: parseDateTime64BestEffortOrNull), so text makes it Nullable
        if (a.length > 1) return this.inZone(a[0], a[1], h, n, true);
        // of a date, number or datetime: a ClickHouse DateTime, whole seconds (Printed.wholeSeconds), Nullable only as its argument
        if (a[0].type === 'date') return P(this.dt(a[0], h, n), 'datetime', a[0].nullable);
        if (['int', 'float', 'datetime'].includes(a[0].type)) return P(`date_trunc('second', ${this.dt(a[0], h, n)})`, 'datetime', a[0].nullable);
        return P(this.dt(a[0], h, n, undefined, true), 'datetime', dateTimeNullable(a[0], true));
      case 'toDate': {
        const tz = tzArg(1);
        if (a[0].type === 'date') return a[0];
        // text with a zone: the datetime it is there, then its date there
        if (isStrLike(a[0]) && tz !== undefined) return P(`CAST(${this.local(this.dt(a[0], h, n, tz), h, tz)} AS DATE)`, 'date', true);
        if (isStrLike(a[0])) return P(this.asDate(a[0], h, n), 'date', a[0].nullable || !a[0].isConst);
        return P(`CAST(${this.loc(a[0], h, n, tz)} AS DATE)`, 'date', a[0].nullable);
      }
      case 'toTimeZone': {
        tzArg(1);
        // The same instant, shown in the given zone (and read there by calendar functions and toString).
        const zone = a[1].constValue as string;
        return P(this.dt(a[0], h, n), 'datetime', a[0].nullable, { displayTz: zone, chType: `DateTime64(6, '${zone}')` });
      }
      case 'toStartOfMinute':
      case 'toStartOfFiveMinutes':
      case 'toStartOfFifteenMinutes':
      case 'toStartOfHour': {
        // Sub-day buckets: subtract the local time elapsed since the local bucket start from the instant itself,
        // which stays unambiguous when the clocks go back.
        const x = this.dt(a[0], h, n);
        const l = this.local(x, h, this.zone(a[0], h));
        const part = fn.sig.name === 'toStartOfHour' ? 'hour' : 'minute';
        let start = `date_trunc('${part}', ${l})`;
        if (fn.sig.name === 'toStartOfFiveMinutes') start = `time_bucket(INTERVAL 5 MINUTE, ${l})`;
        if (fn.sig.name === 'toStartOfFifteenMinutes') start = `time_bucket(INTERVAL 15 MINUTE, ${l})`;
        return P(`(${x} - (${l} - ${start}))`, 'datetime', a[0].nullable);
      }
      case 'toStartOfDay': {
        // Grouped by the local DATE (cheaper to hash, and the conversion back to UTC then runs once per group);
        // the datetime is a function of it, so DuckDB matches the select item against that group key.
        const day = `CAST(${this.loc(a[0], h, n)} AS DATE)`;
        return P(this.utcIn(`CAST(${day} AS TIMESTAMP)`, h, this.zone(a[0], h)), 'datetime', a[0].nullable, { groupSql: day });
      }
      case 'toStartOfWeek': {
        let mode = 0;
        if (a.length > 1) {
          if (!a[1].isConst || typeof a[1].constValue !== 'number') h.error('toStartOfWeek mode must be a constant number', n);
          mode = a[1].constValue;
        }
        const l = this.loc(a[0], h, n);
        const sql = mode % 2 === 1 ? `CAST(date_trunc('week', ${l}) AS DATE)` : `(CAST(${l} AS DATE) - CAST(dayofweek(${l}) AS INTEGER))`;
        return P(sql, 'date', a[0].nullable);
      }
      case 'toStartOfMonth':
      case 'toStartOfQuarter':
      case 'toStartOfYear': {
        const part = { toStartOfMonth: 'month', toStartOfQuarter: 'quarter', toStartOfYear: 'year' }[fn.sig.name]!;
        return P(`CAST(date_trunc('${part}', ${this.loc(a[0], h, n)}) AS DATE)`, 'date', a[0].nullable);
      }
      case 'toYear':
      case 'toMonth':
      case 'toDayOfMonth':
      case 'toDayOfWeek':
      case 'toHour':
      case 'toMinute': {
        const f = { toYear: 'year', toMonth: 'month', toDayOfMonth: 'day', toDayOfWeek: 'isodow', toHour: 'hour', toMinute: 'minute' }[fn.sig.name]!;
        return P(`${f}(${this.loc(a[0], h, n)})`, 'int', a[0].nullable);
      }
      case 'toUnixTimestamp':
        return P(`CAST(floor(epoch(${this.dt(a[0], h, n)})) AS BIGINT)`, 'int', a[0].nullable);
      case 'fromUnixTimestamp':
        return P(`timezone('UTC', to_timestamp(${num(a[0])}))`, 'datetime', a[0].nullable);
      case 'dateDiff':
      case 'date_diff': {
        const unit = unitOf(a[0], h, n);
        const x = this.dt(a[1], h, n);
        const y = this.dt(a[2], h, n);
        // ClickHouse counts the Monday week boundaries crossed (toRelativeWeekNum); DuckDB's 'week' is whole 7-day spans
        const sql = SUB_DAY.has(unit)
          ? `date_diff('${unit}', ${x}, ${y})`
          : unit === 'week'
            ? `(date_diff('day', date_trunc('week', ${this.local(x, h)}), date_trunc('week', ${this.local(y, h)})) // 7)`
            : `date_diff('${unit}', ${this.local(x, h)}, ${this.local(y, h)})`;
        return P(sql, 'int', a[1].nullable || a[2].nullable);
      }

      // ---------------- conditionals
      case 'if': {
        const type = a[1].type === 'null' ? a[2].type : a[1].type;
        return P(`CASE WHEN ${s(0)} THEN ${s(1)} ELSE ${s(2)} END`, type, a[1].nullable || a[2].nullable);
      }
      case 'multiIf': {
        if (a.length % 2 !== 1) h.error('multiIf needs condition/value pairs and a default value', n);
        let sql = 'CASE';
        for (let i = 0; i + 1 < a.length; i += 2) sql += ` WHEN ${s(i)} THEN ${s(i + 1)}`;
        sql += ` ELSE ${s(a.length - 1)} END`;
        const vals = a.filter((_, i) => i % 2 === 1 || i === a.length - 1);
        return P(sql, vals.find((v) => v.type !== 'null')?.type ?? 'null', vals.some((v) => v.nullable));
      }
      case '_caseWithExpression': {
        if (a.length % 2 !== 0) h.error('CASE needs WHEN/THEN pairs and an ELSE value', n);
        let sql = `CASE ${s(0)}`;
        for (let i = 1; i + 1 < a.length; i += 2) sql += ` WHEN ${s(i)} THEN ${s(i + 1)}`;
        sql += ` ELSE ${s(a.length - 1)} END`;
        const vals = a.filter((_, i) => (i > 0 && i % 2 === 0) || i === a.length - 1);
        return P(sql, vals.find((v) => v.type !== 'null')?.type ?? 'null', vals.some((v) => v.nullable));
      }
      case 'coalesce':
      case 'ifNull':
        return P(`coalesce(${a.map((x) => x.sql).join(', ')})`, a.find((x) => x.type !== 'null')?.type ?? 'null', a.every((x) => x.nullable));
      case 'nullIf':
        return P(`nullif(${s(0)}, ${s(1)})`, a[0].type, true);
      case 'isNull':
        return P(`(${nullTestSql(a[0])} IS NULL)`, 'bool', false);
      case 'isNotNull':
        return P(`(${nullTestSql(a[0])} IS NOT NULL)`, 'bool', false);
      case 'assumeNotNull':
        return { ...a[0], nullable: false };

      // ---------------- strings
      case 'reverse':
        // ClickHouse's reverse takes an array too
        if (a[0].type === 'array') return P(`list_reverse(${s(0)})`, 'array', anyNull, sameArrayTyping(a[0]));
        return simple(fn.sig.name, 'string');
      case 'lower':
      case 'upper': {
        // ClickHouse's lower / upper change ASCII letters only (lowerUTF8 / upperUTF8 change the others)
        const [from, to] = fn.sig.name === 'lower' ? [ASCII_UPPER, ASCII_LOWER] : [ASCII_LOWER, ASCII_UPPER];
        return P(`translate(${s(0)}, ${h.param(from)}, ${h.param(to)})`, 'string', anyNull);
      }
      case 'trim':
        return simple(fn.sig.name, 'string');
      case 'length':
        // ClickHouse's length of a string counts its bytes (lengthUTF8 counts characters); of an array, its elements
        if (a[0].type === 'string') return P(`strlen(${s(0)})`, 'int', anyNull, { chType: 'UInt64' });
        return { ...simple('length', 'int'), chType: 'UInt64' };
      case 'empty':
        return P(`(length(${s(0)}) = 0)`, 'bool', anyNull);
      case 'notEmpty':
        return P(`(length(${s(0)}) > 0)`, 'bool', anyNull);
      case 'concat':
        // PostHog's concat takes toString of each argument that is no string: a datetime, an array or a tuple as toString writes it
        return P(`concat(${a.map((x, i) => (x.type === 'string' || x.type === 'null' ? x.sql : this.call({ ...fn, sig: lookupFunction('toString')!, args: [x], raw: fn.raw.slice(i, i + 1) }, h).sql)).join(', ')})`, 'string', false);
      case 'substring':
      case 'substringUTF8': {
        // ClickHouse reads nothing from offset 0, where DuckDB's substring starts before the first character
        const zeroOffset = a[1].isConst ? a[1].constValue === 0 : true;
        if (!zeroOffset) return simple('substring', 'string');
        return P(`CASE WHEN ${s(1)} = 0 THEN '' ELSE ${simple('substring', 'string').sql} END`, 'string', anyNull);
      }
      case 'replaceAll':
      case 'replace':
        return simple('replace', 'string');
      case 'replaceRegexpAll':
        return P(`regexp_replace(${s(0)}, ${s(1)}, ${s(2)}, 'g')`, 'string', anyNull);
      case 'replaceRegexpOne':
        return simple('regexp_replace', 'string');
      case 'position': {
        // in bytes, as ClickHouse's position (positionUTF8 counts characters): 'héllo' has its 'l' at byte 4
        const at = `strpos(${s(0)}, ${s(1)})`;
        return P(`CASE WHEN ${at} = 0 THEN 0 ELSE strlen(left(${s(0)}, ${at} - 1)) + 1 END`, 'int', anyNull);
      }
      case 'startsWith':
        return simple('starts_with', 'bool');
      case 'endsWith':
        return simple('ends_with', 'bool');
      case 'like':
        return P(`(${s(0)} LIKE ${s(1)} ESCAPE '\\')`, 'bool', anyNull);
      case 'ilike':
        return P(`(${s(0)} ILIKE ${s(1)} ESCAPE '\\')`, 'bool', anyNull);
      case 'notLike':
        return P(`(${s(0)} NOT LIKE ${s(1)} ESCAPE '\\')`, 'bool', anyNull);
      case 'notILike':
        return P(`(${s(0)} NOT ILIKE ${s(1)} ESCAPE '\\')`, 'bool', anyNull);
      case 'match':
        return simple('regexp_matches', 'bool');
      case 'extract':
      case 'extractAll': {
        // ClickHouse's: the first capturing group of each match, or the whole match when the pattern has none.
        const fnName = fn.sig.name === 'extract' ? 'regexp_extract' : 'regexp_extract_all';
        const pat = a[1];
        const type: PType = fn.sig.name === 'extract' ? 'string' : 'array';
        if (pat.isConst && typeof pat.constValue === 'string') return P(`${fnName}(${s(0)}, ${s(1)}, ${captureGroupCount(pat.constValue) > 0 ? 1 : 0})`, type, anyNull);
        return P(`CASE WHEN regexp_matches(${s(1)}, ${h.param(CAPTURE_GROUP_RE)}) THEN ${fnName}(${s(0)}, ${s(1)}, 1) ELSE ${fnName}(${s(0)}, ${s(1)}, 0) END`, type, anyNull);
      }
      case 'regexpExtract': {
        const { index } = regexpExtractArgs(fn, h);
        return P(`regexp_extract(${s(0)}, ${s(1)}, ${index})`, 'string', a[0].nullable);
      }
      case 'format': {
        // ClickHouse's format: NULL when an argument it reads is NULL (|| keeps NULL, DuckDB's concat would not)
        const text = (i: number) => (a[i].type === 'string' ? s(i) : this.call({ ...fn, sig: lookupFunction('toString')!, args: [a[i]], raw: fn.raw.slice(i, i + 1) }, h).sql);
        const pieces = formatTemplate(fn, h);
        const sql = pieces.map((x) => (typeof x === 'string' ? h.param(x) : text(x + 1)));
        const nullable = pieces.some((x) => typeof x === 'number' && (a[x + 1].nullable || a[x + 1].type === 'null'));
        return P(sql.length ? `(${sql.join(' || ')})` : h.param(''), 'string', nullable);
      }
      case 'splitByChar':
      case 'splitByString':
        return P(`string_split(${s(1)}, ${s(0)})`, 'array', anyNull, { chType: 'Array(String)' });

      // ---------------- conversions and maths
      case 'toString':
        // a DateTime64(6) (timestamp, now(), toDateTime(text)) is written with six decimals, a DateTime without
        if (a[0].type === 'datetime') return P(`strftime(${this.local(s(0), h, this.zone(a[0], h))}, '%Y-%m-%d %H:%M:%S${a[0].wholeSeconds ? '' : '.%f'}')`, 'string', a[0].nullable);
        if (a[0].type === 'date') return P(`strftime(${s(0)}, '%Y-%m-%d')`, 'string', a[0].nullable);
        if (a[0].type === 'interval') {
          // ClickHouse writes an interval as the count of its unit (toString(toIntervalDay(2)) is '2')
          const unit = (a[0].intervalUnit ?? 'second') as IntervalUnit;
          const months = MONTHS_PER_UNIT[unit];
          const seconds = SECONDS_PER_UNIT[unit] ?? 1;
          const count = months ? `(date_part('year', ${s(0)}) * 12 + date_part('month', ${s(0)})) // ${months}` : `CAST(epoch(${s(0)}) AS BIGINT) // ${seconds}`;
          return P(`CAST(${count} AS VARCHAR)`, 'string', a[0].nullable);
        }
        if (a[0].type === 'bool' && !isBoolTyped(a[0])) return P(`CAST(${chText(a[0])} AS VARCHAR)`, 'string', a[0].nullable);
        return P(a[0].type === 'float' ? chText(a[0]) : (compositeText(a[0], h.timezone) ?? `CAST(${s(0)} AS VARCHAR)`), 'string', a[0].nullable);
      case 'toInt':
      case 'toInt64':
      case 'toInt32':
        if (a[0].type === 'bool') return P(`CAST(${s(0)} AS INTEGER)`, 'int', a[0].nullable);
        if (a[0].type === 'datetime') return P(`CAST(floor(epoch(${s(0)})) AS BIGINT)`, 'int', a[0].nullable);
        // a Date is its day number, as ClickHouse stores it
        if (a[0].type === 'date') return P(`CAST(${s(0)} - DATE '1970-01-01' AS BIGINT)`, 'int', a[0].nullable);
        // Text is read as an integer or is NULL ('1.5', '1e3', ' 1'), as accurateCastOrNull(x, 'Int64') parses it
        if (isStrLike(a[0])) return P(`CASE WHEN regexp_full_match(${s(0)}, ${h.param('[+-]?[0-9]+')}) THEN TRY_CAST(${s(0)} AS BIGINT) END`, 'int', true);
        return P(`TRY_CAST(trunc(${isNum(a[0]) ? s(0) : `TRY_CAST(${s(0)} AS DOUBLE)`}) AS BIGINT)`, 'int', true);
      case 'toFloat':
      case 'toFloat64':
        // Text with surrounding whitespace or digit separators ('1 ', '1_000') is no number to ClickHouse: NULL
        if (isStrLike(a[0])) return P(`CASE WHEN NOT regexp_matches(${s(0)}, ${h.param('^\\s|\\s$|_')}) THEN TRY_CAST(${s(0)} AS DOUBLE) END`, 'float', true);
        return P(`TRY_CAST(${s(0)} AS DOUBLE)`, 'float', true);
      case 'toUUID':
        return P(`TRY_CAST(${s(0)} AS UUID)`, 'uuid', true);
      case 'toBool':
        return P(`TRY_CAST(${s(0)} AS BOOLEAN)`, 'bool', a[0].nullable || !(isNum(a[0]) || a[0].type === 'bool'), { chType: 'Bool' });
      case 'round': {
        // ClickHouse rounds a float half-way to the even neighbour (round(2.5) = 2); DuckDB's round goes away from zero
        const f = numType(a[0]) === 'float' ? 'round_even' : 'round';
        return P(a.length === 1 ? `${f}(${num(a[0])}${f === 'round_even' ? ', 0' : ''})` : `${f}(${num(a[0])}, CAST(${s(1)} AS INTEGER))`, 'float', anyNull);
      }
      case 'floor':
      case 'ceil':
        if (a.length > 1) {
          // floor(x, N) / ceil(x, N): to N decimal places (N < 0: to tens, hundreds, ...), computed as ClickHouse does
          const k = roundingDigits(a[1], fn.sig.name, h, n);
          const scale = 10 ** Math.abs(k);
          if (k >= 0 && numType(a[0]) === 'int') return P(num(a[0]), 'int', anyNull);
          const v = k >= 0 ? `(${fn.sig.name}(${num(a[0])} * ${scale}) / ${scale})` : `(${fn.sig.name}(${num(a[0])} / ${scale}) * ${scale})`;
          return P(numType(a[0]) === 'int' ? `CAST(${v} AS BIGINT)` : v, numType(a[0]), anyNull);
        }
        return P(`${fn.sig.name}(${num(a[0])})`, numType(a[0]), anyNull);
      case 'abs':
        return P(`${fn.sig.name}(${num(a[0])})`, numType(a[0]), anyNull);
      case 'exp':
        return P(`${fn.sig.name}(${num(a[0])})`, 'float', anyNull);
      case 'sqrt':
      case 'log2':
      case 'log10':
      case 'log':
        return P(outOfDomain(fn.sig.name === 'log' ? 'ln' : fn.sig.name, num(a[0])), 'float', anyNull);
      case 'pow':
      case 'power':
        return P(`pow(${num(a[0])}, ${num(a[1])})`, 'float', anyNull);
      case 'intDiv':
      case 'modulo': {
        // An integer division by zero is ClickHouse's "Division by zero" error (DuckDB's // and % read NULL)
        const d = a[1].isConst && typeof a[1].constValue === 'number' && a[1].constValue !== 0 ? num(a[1]) : `CASE WHEN ${num(a[1])} = 0 THEN error(${h.param('Division by zero')}) ELSE ${num(a[1])} END`;
        if (fn.sig.name === 'intDiv') return P(`(${num(a[0])} // ${d})`, 'int', anyNull);
        return P(`(${num(a[0])} % ${numType(a[0]) === 'int' && numType(a[1]) === 'int' ? d : num(a[1])})`, numType(a[0]), anyNull);
      }
      case 'bitAnd':
        return P(`(${num(a[0])} & ${num(a[1])})`, 'int', anyNull);
      case 'bitOr':
        return P(`(${num(a[0])} | ${num(a[1])})`, 'int', anyNull);
      case 'bitXor':
        return P(`xor(${num(a[0])}, ${num(a[1])})`, 'int', anyNull);
      case 'plus':
      case 'minus':
      case 'multiply':
      case 'divide': {
        const op = ({ plus: '+', minus: '-', multiply: '*', divide: '/' } as const)[fn.sig.name as 'plus'];
        return this.arithmetic(op, a[0], a[1], h, n);
      }
      case 'greatest':
      case 'least':
        return simple(fn.sig.name, a[0].type);
      case 'min2':
      case 'max2':
        return simple(fn.sig.name === 'min2' ? 'least' : 'greatest', a[0].type);

      // ---------------- arrays
      case 'has': {
        // list_position finds a NULL element (ClickHouse: has([1, NULL], NULL) = 1); list_contains says NULL there
        const found = `(list_position(${s(0)}, ${s(1)}) IS NOT NULL)`;
        return P(a[0].nullable ? `CASE WHEN ${s(0)} IS NULL THEN NULL ELSE ${found} END` : found, 'bool', a[0].nullable);
      }
      case 'indexOf':
        return P(`coalesce(list_position(${s(0)}, ${s(1)}), 0)`, 'int', false);
      case 'arrayElement':
        return this.arrayAccess(a[0], a[1]);
      case 'arrayMap':
      case 'arrayFilter':
        // (several arrays arrive as one, the others read by index: Dialect.lambdaIndex)
        return P(`${fn.sig.name === 'arrayMap' ? 'list_transform' : 'list_filter'}(${s(1)}, ${s(0)})`, 'array', a[1].nullable, fn.sig.name === 'arrayFilter' ? sameArrayTyping(a[1]) : {});
      case 'arrayExists':
        return P(`(length(list_filter(${s(1)}, ${s(0)})) > 0)`, 'bool', a[1].nullable);
      case 'arrayJoin':
        return { sql: `unnest(${s(0)})`, ...elementTyping(a[0]) };
      case 'array':
        return P(`[${a.map((x) => x.sql).join(', ')}]`, 'array', false, arrayLiteralTyping(a, h.timezone));
      case 'tuple': {
        // A struct with fields "1", "2", ...: results render it as a JSON array (shapeResult), `t.2` reads a field.
        if (a.length === 0) return h.error('A tuple needs at least one element', n);
        const t = P(`struct_pack(${a.map((x, i) => `${q(String(i + 1))} := ${x.sql}`).join(', ')})`, 'unknown', false, { tupleItems: a });
        return { ...t, chType: typeNameOf(t, h.timezone) };
      }

      // ---------------- JSON (ClickHouse semantics: defaults instead of NULL; NULL for a NULL argument)
      case 'JSONExtractString':
      case 'JSONExtractInt':
      case 'JSONExtractFloat':
      case 'JSONExtractBool':
      case 'JSONExtractRaw':
      case 'JSONHas':
      case 'JSONLength': {
        // Text that is not JSON reads as nothing there (ClickHouse: '', 0, false), not DuckDB's "Malformed JSON" error
        const doc = a[0].type === 'json' ? s(0) : `CASE WHEN json_valid(${s(0)}) THEN ${s(0)} END`;
        const read = this.jsonScalar(fn.sig.name, doc, jsonPath(1));
        const nullable = a.filter((x) => x.nullable);
        if (!nullable.length) return read;
        return { ...read, sql: `CASE WHEN ${nullable.map((x) => `${x.sql} IS NULL`).join(' OR ')} THEN NULL ELSE ${read.sql} END`, nullable: true };
      }
      case 'JSONExtractArrayRaw': {
        // ClickHouse: the array's elements as raw JSON text; [] when the value is missing or not an array.
        const path = jsonPath(1);
        return P(
          `CASE WHEN json_type(${s(0)}, ${path}) = 'ARRAY' THEN list_transform(CAST(json_extract(${s(0)}, ${path}) AS JSON[]), lambda __x: CAST(__x AS VARCHAR)) ELSE CAST([] AS VARCHAR[]) END`,
          'array',
          false,
        );
      }
      case 'JSONExtractKeys': {
        const path = jsonPath(1);
        return P(`CASE WHEN json_type(${s(0)}, ${path}) = 'OBJECT' THEN json_keys(${s(0)}, ${path}) ELSE CAST([] AS VARCHAR[]) END`, 'array', false);
      }
      case 'JSONExtractKeysAndValues': {
        // ClickHouse: the (key, value) pairs of the object at the path, in order, each value converted to the type
        // named last; a value that does not convert is left out (with its key); [] when there is no object there.
        const t = a[a.length - 1];
        const conv = t.isConst && typeof t.constValue === 'string' ? (Object.prototype.hasOwnProperty.call(JSON_VALUE_TYPES, t.constValue) ? JSON_VALUE_TYPES[t.constValue] : undefined) : undefined;
        if (!conv) return h.error(`JSONExtractKeysAndValues takes the value type last, as a constant: ${Object.keys(JSON_VALUE_TYPES).join(', ')}`, n);
        const path = jsonPath(1, a.length - 1);
        const pair = `STRUCT("1" VARCHAR, "2" ${conv.duck})`;
        const entries = `map_entries(CAST(json_extract(${s(0)}, ${path}) AS MAP(VARCHAR, JSON)))`;
        // Numbers go to integer types truncated (as toInt does), not rounded as DuckDB's cast would.
        const text = `json_extract_string(__kv.value, '$')`;
        const value = conv.duck === 'VARCHAR' || conv.duck === 'FLOAT' || conv.duck === 'DOUBLE' ? `TRY_CAST(${text} AS ${conv.duck})` : `TRY_CAST(trunc(TRY_CAST(${text} AS DOUBLE)) AS ${conv.duck})`;
        const pairs = `list_transform(${entries}, lambda __kv: struct_pack(${q('1')} := __kv.key, ${q('2')} := ${value}))`;
        return P(
          `CASE WHEN json_type(${s(0)}, ${path}) = 'OBJECT' THEN CAST(list_filter(${pairs}, lambda __p: __p.${q('2')} IS NOT NULL) AS ${pair}[]) ELSE CAST([] AS ${pair}[]) END`,
          'array',
          false,
          { chType: `Array(Tuple(String, ${t.constValue as string}))` },
        );
      }

      // ---------------- HogQL parity: dates and times
      case 'formatDateTime': {
        const f = a[1];
        if (!f.isConst || typeof f.constValue !== 'string') return h.error('formatDateTime takes a constant format string', n);
        const tz = this.zone(a[0], h, tzArg(2));
        const x = this.dt(a[0], h, n);
        const l = this.local(x, h, tz);
        const parts = formatPieces(f.constValue, 'YmdHMSyjuwpIGVaAbB', h, n).map((piece) => {
          if ('native' in piece) return `strftime(${l}, ${h.param(piece.native)})`;
          if (piece.code === 'e') return `lpad(CAST(day(${l}) AS VARCHAR), 2, ${h.param(' ')})`;
          if (piece.code === 'Q') return `CAST(quarter(${l}) AS VARCHAR)`;
          if (piece.code === 'g') return `lpad(CAST(isoyear(${l}) % 100 AS VARCHAR), 2, ${h.param('0')})`;
          if (piece.code === 'C') return `lpad(CAST(year(${l}) // 100 % 100 AS VARCHAR), 2, ${h.param('0')})`;
          if (piece.code === 'f') return a[0].wholeSeconds || a[0].type !== 'datetime' ? h.param('000000') : `lpad(CAST(microsecond(${x}) % 1000000 AS VARCHAR), 6, ${h.param('0')})`;
          // %z: the zone's offset at that instant, +hhmm
          const off = `CAST(epoch(${l}) - epoch(${x}) AS BIGINT)`;
          const two = (v: string) => `lpad(CAST(${v} AS VARCHAR), 2, ${h.param('0')})`;
          return `(CASE WHEN ${off} < 0 THEN ${h.param('-')} ELSE ${h.param('+')} END || ${two(`abs(${off}) // 3600`)} || ${two(`abs(${off}) % 3600 // 60`)})`;
        });
        return P(parts.length === 1 ? parts[0] : `(${parts.join(' || ')})`, 'string', a[0].nullable);
      }
      case 'dateTrunc':
      case 'date_trunc': {
        const unit = unitOf(a[0], h, n);
        const v = a[1];
        const tz = this.zone(v, h, tzArg(2));
        if (v.type === 'date') {
          if (SUB_DAY.has(unit)) return P(this.dt(v, h, n), 'datetime', v.nullable);
          return P(`CAST(date_trunc('${unit}', ${v.sql}) AS DATE)`, 'date', v.nullable);
        }
        const x = this.dt(v, h, n);
        if (unit === 'second') return P(`date_trunc('second', ${x})`, 'datetime', v.nullable);
        const l = this.local(x, h, tz);
        if (SUB_DAY.has(unit)) return P(`(${x} - (${l} - date_trunc('${unit}', ${l})))`, 'datetime', v.nullable);
        return P(this.utcIn(`CAST(date_trunc('${unit}', ${l}) AS TIMESTAMP)`, h, tz), 'datetime', v.nullable);
      }
      case 'toStartOfInterval': {
        const { k, unit, isDate } = startOfIntervalArgs(a, h, n, (u) => SUB_DAY.has(u));
        const v = a[0];
        const x = isDate ? '' : this.dt(v, h, n);
        const l = isDate ? v.sql : this.local(x, h, this.zone(v, h));
        const dn = `(CAST(${l} AS DATE) - make_date(1970, 1, 1))`;
        const epochDate = (days: string) => `CAST(make_date(1970, 1, 1) + CAST(${days} AS INTEGER) AS DATE)`;
        switch (unit) {
          case 'second':
          case 'minute': {
            // Counted from the epoch, as ClickHouse does (zones have whole-minute offsets).
            const us = (unit === 'second' ? 1_000_000 : 60_000_000) * k;
            return P(`make_timestamp(epoch_us(${x}) // ${us} * ${us})`, 'datetime', v.nullable);
          }
          case 'hour': {
            // Hours counted from the local midnight, as ClickHouse does.
            const day = `date_trunc('day', ${l})`;
            const start = `(${day} + to_seconds(CAST(floor(epoch(${l}) - epoch(${day})) AS BIGINT) // ${3600 * k} * ${3600 * k}))`;
            return P(`(${x} - (${l} - ${start}))`, 'datetime', v.nullable);
          }
          case 'day': {
            const d = epochDate(`${dn} // ${k} * ${k}`);
            return isDate ? P(d, 'date', v.nullable) : P(this.utcIn(`CAST(${d} AS TIMESTAMP)`, h, this.zone(v, h)), 'datetime', v.nullable);
          }
          case 'week':
            // 1970-01-05 is the first Monday after the epoch.
            return P(epochDate(`4 + (${dn} - 4) // ${7 * k} * ${7 * k}`), 'date', v.nullable);
          case 'month':
          case 'quarter': {
            // Months counted from 1900-01 (ClickHouse's date table start).
            const m = unit === 'month' ? k : 3 * k;
            const idx = `((year(${l}) - 1900) * 12 + month(${l}) - 1) // ${m} * ${m}`;
            return P(`make_date(CAST(1900 + ${idx} // 12 AS INTEGER), CAST(${idx} % 12 + 1 AS INTEGER), 1)`, 'date', v.nullable);
          }
          case 'year':
            return P(`make_date(CAST(year(${l}) // ${k} * ${k} AS INTEGER), 1, 1)`, 'date', v.nullable);
        }
        return h.error('Unknown interval unit', n);
      }
      case 'toDayOfYear':
      case 'toISOWeek':
      case 'toISOYear':
      case 'toSecond':
      case 'toQuarter': {
        const f = { toDayOfYear: 'dayofyear', toISOWeek: 'weekofyear', toISOYear: 'isoyear', toSecond: 'second', toQuarter: 'quarter' }[fn.sig.name]!;
        return P(`${f}(${this.loc(a[0], h, n)})`, 'int', a[0].nullable);
      }
      case 'toYYYYMM':
      case 'toYYYYMMDD':
      case 'toYYYYMMDDhhmmss': {
        const l = this.loc(a[0], h, n);
        const fmt = { toYYYYMM: '%Y%m', toYYYYMMDD: '%Y%m%d', toYYYYMMDDhhmmss: '%Y%m%d%H%M%S' }[fn.sig.name]!;
        return P(`CAST(strftime(${l}, ${h.param(fmt)}) AS BIGINT)`, 'int', a[0].nullable);
      }
      case 'toMonday':
        return P(`CAST(date_trunc('week', ${this.loc(a[0], h, n)}) AS DATE)`, 'date', a[0].nullable);
      case 'toStartOfTenMinutes': {
        const x = this.dt(a[0], h, n);
        const l = this.local(x, h, this.zone(a[0], h));
        return P(`(${x} - (${l} - time_bucket(INTERVAL 10 MINUTE, ${l})))`, 'datetime', a[0].nullable);
      }
      case 'toStartOfSecond':
        return P(`date_trunc('second', ${this.dt(a[0], h, n)})`, 'datetime', a[0].nullable);
      case 'toRelativeDayNum':
      case 'toRelativeWeekNum':
      case 'toRelativeMonthNum':
      case 'toRelativeYearNum': {
        const l = this.loc(a[0], h, n);
        const dn = `(CAST(${l} AS DATE) - make_date(1970, 1, 1))`;
        const sql = {
          toRelativeDayNum: dn,
          // ClickHouse: (day number + 8 - ISO day of week) / 7, weeks starting on Monday
          toRelativeWeekNum: `((${dn} + 8 - isodow(${l})) // 7)`,
          toRelativeMonthNum: `(year(${l}) * 12 + month(${l}))`,
          toRelativeYearNum: `year(${l})`,
        }[fn.sig.name]!;
        return P(`CAST(${sql} AS BIGINT)`, 'int', a[0].nullable);
      }
      case 'toUnixTimestamp64Milli':
        return P(`epoch_ms(${this.dt(a[0], h, n)})`, 'int', a[0].nullable);
      case 'fromUnixTimestamp64Milli':
        return P(`make_timestamp(CAST(${num(a[0])} AS BIGINT) * 1000)`, 'datetime', a[0].nullable);
      case 'toDateTime64': {
        if (a.length > 1 && (!a[1].isConst || typeof a[1].constValue !== 'number' || !Number.isInteger(a[1].constValue) || a[1].constValue < 0 || a[1].constValue > 9))
          h.error('toDateTime64 precision must be a constant integer from 0 to 9', n);
        const v = a.length > 2 ? this.inZone(a[0], a[2], h, n) : P(this.dt(a[0], h, n), 'datetime', a[0].nullable || !(a[0].type === 'datetime' || a[0].isConst));
        if (a.length < 2) return v;
        // DateTime64(P): the fraction cut to P digits (microseconds here)
        const p = a[1].constValue as number;
        const us = 10 ** Math.max(0, 6 - p);
        const sql = us > 1 ? `make_timestamp(CAST(floor(epoch_us(${v.sql}) / ${us}) AS BIGINT) * ${us})` : v.sql;
        return { ...v, sql, chType: `DateTime64(${p}, '${v.displayTz ?? h.timezone}')`, ...(p === 0 ? { wholeSeconds: true } : {}) };
      }
      case 'parseDateTimeBestEffort':
      case 'parseDateTimeBestEffortOrNull':
      case 'parseDateTimeBestEffortOrZero':
      case 'toDateTimeOrNull': {
        const tz = tzArg(1);
        // Text is parsed leniently (NULL when it is not a datetime), with its own offset or else in the zone given;
        // RFC 822 / 1123 dates too (`Tue, 01 Oct 2024 12:34:56 GMT`, `2 Mar 2024 10:00 +0200`), as ClickHouse reads them.
        let x: string;
        if (!isStrLike(a[0])) x = this.dt(a[0], h, n);
        else {
          const rfc = `regexp_replace(regexp_replace(trim(${s(0)}), ${h.param(RFC_WEEKDAY)}, ''), ${h.param('\\s+(?i:gmt|utc|z)$')}, ${h.param(' +0000')})`;
          const zoned = `timezone('UTC', try_strptime(${rfc}, [${RFC_FORMATS.map((f) => h.param(`${f} %z`)).join(', ')}]))`;
          const local = this.utcIn(`try_strptime(${rfc}, [${[...RFC_FORMATS, '%d %b %Y'].map((f) => h.param(f)).join(', ')}])`, h, tz);
          const other = OTHER_DATE_FORMATS.map(([re, formats]) => ` WHEN regexp_matches(${s(0)}, ${h.param(re)}) THEN ${this.utcIn(`try_strptime(trim(${s(0)}), [${formats.map((f) => h.param(f)).join(', ')}])`, h, tz)}`).join('');
          x =
            `CASE WHEN regexp_matches(${s(0)}, ${h.param(RFC_DATE)}) THEN coalesce(${zoned}, ${local})${other}` +
            ` WHEN regexp_matches(${s(0)}, ${h.param('\\d[T ]\\d.*(Z|[+-]\\d\\d(:?\\d\\d)?)$')}) THEN timezone('UTC', TRY_CAST(${s(0)} AS TIMESTAMPTZ)) ELSE ${this.utcIn(`TRY_CAST(${s(0)} AS TIMESTAMP)`, h, tz)} END`;
        }
        const shown = tz !== undefined ? { displayTz: a[1].constValue as string, chType: `DateTime64(6, '${a[1].constValue as string}')` } : {};
        if (fn.sig.name === 'parseDateTimeBestEffortOrZero') return P(`coalesce(${x}, make_timestamp(0))`, 'datetime', false, shown);
        return P(x, 'datetime', true, shown);
      }
      case 'toDateOrNull':
        return P(isStrLike(a[0]) ? `TRY_CAST(${s(0)} AS DATE)` : this.asDate(a[0], h, n), 'date', true);
      case 'parseDateTime':
      case 'parseDateTimeOrNull': {
        const tz = tzArg(2);
        const { pattern, template } = parseDateTimeFormat(a[1], h, n);
        const text = `CAST(${s(0)} AS VARCHAR)`;
        const norm = `regexp_replace(${text}, ${h.param(pattern)}, ${h.param(template)})`;
        // a real date and time only: read back unchanged (DuckDB reads 24:00 as the next day)
        const ts = `TRY_CAST(${norm} AS TIMESTAMP)`;
        const local = `CASE WHEN regexp_matches(${text}, ${h.param(pattern)}) AND strftime(${ts}, ${h.param('%Y-%m-%d %H:%M:%S')}) = ${norm} THEN ${ts} END`;
        return P(this.utcIn(local, h, tz), 'datetime', true, tz !== undefined ? { displayTz: a[2].constValue as string, chType: `DateTime64(6, '${a[2].constValue as string}')` } : {});
      }

      // ---------------- HogQL parity: strings
      case 'left':
      case 'right':
        return P(`${fn.sig.name}(${s(0)}, CAST(${num(a[1])} AS BIGINT))`, 'string', anyNull);
      case 'positionUTF8':
        return simple('strpos', 'int');
      case 'positionCaseInsensitive':
      case 'positionCaseInsensitiveUTF8':
        return P(`strpos(lower(${s(0)}), lower(${s(1)}))`, 'int', anyNull);
      case 'trimLeft':
        return simple('ltrim', 'string');
      case 'trimRight':
        return simple('rtrim', 'string');
      case 'lengthUTF8':
        return { ...simple('length', 'int'), chType: 'UInt64' };
      case 'initcap': {
        // Each word (a run of ASCII letters and digits) with its first character upper case and the rest lower case
        const word = `CASE WHEN regexp_matches(__w, ${h.param('^[a-zA-Z0-9]')}) THEN upper(__w[1]) || lower(__w[2:]) ELSE __w END`;
        return P(`array_to_string(list_transform(regexp_extract_all(${s(0)}, ${h.param('[a-zA-Z0-9]+|[^a-zA-Z0-9]+')}), lambda __w: ${word}), '')`, 'string', anyNull);
      }
      case 'lowerUTF8':
      case 'upperUTF8':
      case 'reverseUTF8':
        return simple(fn.sig.name.slice(0, -4), 'string');
      case 'base64Encode':
        return P(`to_base64(encode(${s(0)}))`, 'string', anyNull);
      case 'base64Decode':
        return P(`decode(from_base64(${s(0)}))`, 'string', anyNull);
      case 'tryBase64Decode':
        return P(`coalesce(TRY(decode(from_base64(${s(0)}))), '')`, 'string', anyNull);
      case 'replaceOne': {
        // ClickHouse refuses an empty pattern.
        if (a[1].isConst && a[1].constValue === '') return h.error('replaceOne: the pattern must not be empty', n);
        // The first occurrence only (an empty pattern replaces nothing), without regex semantics.
        const at = `strpos(${s(0)}, ${s(1)})`;
        return P(
          `CASE WHEN length(${s(1)}) > 0 AND ${at} > 0 THEN substring(${s(0)}, 1, ${at} - 1) || ${s(2)} || substring(${s(0)}, ${at} + length(${s(1)})) ELSE ${s(0)} END`,
          'string',
          anyNull,
        );
      }

      // ---------------- HogQL parity: conversions
      case 'toIntOrNull':
      case 'toInt64OrNull':
      case 'toFloatOrNull':
      case 'toFloat64OrNull':
      case 'toIntOrZero':
      case 'toFloatOrZero':
      case 'toFloat64OrZero': {
        const isInt = fn.sig.name.startsWith('toInt');
        const base = this.call({ ...fn, sig: { ...fn.sig, name: isInt ? 'toInt' : 'toFloat' } }, h);
        return fn.sig.name.endsWith('OrZero') ? P(`coalesce(${base.sql}, 0)`, base.type, false) : { ...base, nullable: true };
      }

      // ---------------- HogQL parity: arrays
      case 'arraySum':
        return P(`coalesce(list_sum(${s(0)}), 0)`, 'float', false);
      case 'arrayStringConcat': {
        // Elements as ClickHouse writes them (toString): a Float64 2 as `2`, where DuckDB's text is `2.0`.
        const float = a[0].chType?.replace(/^Array\((?:Nullable\()?(.*?)\)?\)$/, '$1') === 'Float64';
        const arr = float ? `list_transform(${s(0)}, lambda __sc: ${chText({ sql: '__sc', type: 'float', nullable: true })})` : s(0);
        return P(`coalesce(array_to_string(${arr}, ${a.length > 1 ? s(1) : `''`}), '')`, 'string', false);
      }
      case 'arrayDistinct':
        // First occurrences in order, without NULLs (list_distinct does not keep the order).
        return P(`list_filter(${s(0)}, lambda __e, __i: __e IS NOT NULL AND list_position(${s(0)}, __e) = __i)`, 'array', a[0].nullable);
      case 'arrayReverse':
        return P(`list_reverse(${s(0)})`, 'array', a[0].nullable);
      // NULL is a value there, as in has(): list_has_any/list_has_all skip NULL elements
      case 'hasAny':
        return P(`(len(list_filter(${s(1)}, lambda __e: list_position(${s(0)}, __e) IS NOT NULL)) > 0)`, 'bool', anyNull);
      case 'hasAll':
        return P(`(len(list_filter(${s(1)}, lambda __e: list_position(${s(0)}, __e) IS NULL)) = 0)`, 'bool', anyNull);
      case 'arrayUniq':
        // ClickHouse counts NULL elements as one more distinct value; list_distinct drops them
        return P(`(coalesce(length(list_distinct(${s(0)})), 0) + CASE WHEN list_position(${s(0)}, NULL) IS NULL THEN 0 ELSE 1 END)`, 'int', false, { chType: 'UInt32' });
      case 'arraySlice': {
        // ClickHouse: a 1-based offset (negative: from the end; 0: empty), an optional length (negative: stop that
        // many elements before the end).
        const len = `length(${s(0)})`;
        const o = `CAST(${num(a[1])} AS BIGINT)`;
        const b = `(CASE WHEN ${o} > 0 THEN ${o} WHEN ${o} < 0 THEN greatest(${len} + ${o} + 1, 1) END)`;
        const l = a.length > 2 ? `CAST(${num(a[2])} AS BIGINT)` : undefined;
        const e = l ? `(CASE WHEN ${l} >= 0 THEN ${b} + ${l} - 1 ELSE ${len} + ${l} END)` : len;
        return P(`CASE WHEN ${o} = 0 THEN list_slice(${s(0)}, 1, 0) ELSE list_slice(${s(0)}, ${b}, ${e}) END`, 'array', anyNull);
      }
      case 'arrayCount':
        return P(`length(list_filter(${s(1)}, ${s(0)}))`, 'int', a[1].nullable, { chType: 'UInt32' });
      case 'arrayAll':
        return P(`(length(list_filter(${s(1)}, ${s(0)})) = length(${s(1)}))`, 'bool', a[1].nullable);

      // ---------------- more of HogQL's mapping: aggregations
      case 'anyLast':
        return sameValue(orTypeDefault(agg('last', s(0), a[0].type, true, `${s(0)} IS NOT NULL`)));
      case 'anyHeavy':
        return sameValue(orTypeDefault(agg('any_value', s(0), a[0].type, true)));
      case 'covarPop':
      case 'covarSamp':
      case 'corr': {
        const name = { covarPop: 'covar_pop', covarSamp: 'covar_samp', corr: 'corr' }[fn.sig.name]!;
        return P(`${name}(${num(a[0])}, ${num(a[1])})${filterOf()}`, 'float', true);
      }
      case 'avgWeighted': {
        noWindow();
        const f = filterOf(`${s(0)} IS NOT NULL AND ${s(1)} IS NOT NULL`);
        return P(`(sum(${num(a[0])} * ${num(a[1])})${f} / sum(${num(a[1])})${f})`, 'float', true);
      }
      case 'uniqUpTo': {
        noWindow();
        const k = fn.params[0].constValue;
        if (typeof k !== 'number' || !Number.isSafeInteger(k) || k < 0 || k > 100) return h.error('uniqUpTo takes a constant integer from 0 to 100', n);
        return P(`least(count(DISTINCT ${s(0)})${filterOf()}, ${k + 1})`, 'int', false, { chType: 'UInt64' });
      }
      case 'topK': {
        const k = topKSize(fn, h);
        return P(`coalesce(approx_top_k(${s(0)}, ${k})${filterOf(`${s(0)} IS NOT NULL`)}${fn.over ? OVER_MARK : ''}, [])`, 'array', false);
      }
      case 'medianExact':
      case 'medianExactLow':
      case 'medianExactHigh':
      case 'medianTiming':
      case 'quantileExact':
      case 'quantileExactLow':
      case 'quantileExactHigh':
      case 'quantileTiming': {
        // ClickHouse's exact quantiles take a value of the sorted set (no interpolation).
        noWindow();
        const level = fn.sig.name.startsWith('median') ? 0.5 : quantileLevel(fn.params[0], h, n);
        const x = isStrLike(a[0]) ? num(a[0]) : s(0);
        const f = filterOf(`${x} IS NOT NULL`);
        const idx = exactQuantileIndex(level, `count(${x})${f}`, fn.sig.name.endsWith('Low'));
        const type: PType = isStrLike(a[0]) ? 'float' : a[0].type;
        return P(`list_sort(list(${x})${f})[CAST(${idx} AS BIGINT) + 1]`, type, true);
      }
      case 'groupBitAnd':
      case 'groupBitOr':
      case 'groupBitXor':
        return agg(`bit_${fn.sig.name.slice(8).toLowerCase()}`, `CAST(${num(a[0])} AS BIGINT)`, 'int', true);

      // ---------------- more of HogQL's mapping: maths
      case 'e':
        return P('exp(1)', 'float', false);
      case 'pi':
        return P('pi()', 'float', false);
      case 'ln':
      case 'asin':
      case 'acos':
        return P(outOfDomain(fn.sig.name, num(a[0])), 'float', anyNull);
      case 'cbrt':
      case 'sin':
      case 'cos':
      case 'tan':
      case 'atan':
      case 'degrees':
      case 'radians':
        return P(`${fn.sig.name}(${num(a[0])})`, 'float', anyNull);
      case 'exp2':
      case 'exp10':
        return P(`pow(${fn.sig.name === 'exp2' ? 2 : 10}, ${num(a[0])})`, 'float', anyNull);
      case 'log1p':
        return P(`ln(1 + ${num(a[0])})`, 'float', anyNull);
      case 'atan2':
        return P(`atan2(${num(a[0])}, ${num(a[1])})`, 'float', anyNull);
      case 'hypot':
        return P(`sqrt(${num(a[0])} * ${num(a[0])} + ${num(a[1])} * ${num(a[1])})`, 'float', anyNull);
      case 'sign':
        return P(`CAST(sign(${num(a[0])}) AS BIGINT)`, 'int', anyNull);
      case 'negate':
        return P(`(-${num(a[0])})`, numType(a[0]), anyNull);
      case 'isFinite':
      case 'isInfinite':
      case 'isNaN': {
        const f = { isFinite: 'isfinite', isInfinite: 'isinf', isNaN: 'isnan' }[fn.sig.name]!;
        return P(`${f}(CAST(${num(a[0])} AS DOUBLE))`, 'bool', anyNull);
      }
      case 'intDivOrZero':
        return P(`CASE WHEN ${num(a[1])} = 0 THEN 0 ELSE ${num(a[0])} // ${num(a[1])} END`, 'int', anyNull);
      case 'moduloOrZero':
        return P(`CASE WHEN ${num(a[1])} = 0 THEN 0 ELSE ${num(a[0])} % ${num(a[1])} END`, numType(a[0]), anyNull);
      case 'gcd':
      case 'lcm': {
        // ClickHouse divides each argument by the other first: a zero either side is its "Division by zero" error
        const [x, y] = [`CAST(${num(a[0])} AS BIGINT)`, `CAST(${num(a[1])} AS BIGINT)`];
        return P(`CASE WHEN ${x} = 0 OR ${y} = 0 THEN error(${h.param('Division by zero')}) ELSE ${fn.sig.name}(${x}, ${y}) END`, 'int', anyNull);
      }
      case 'trunc': {
        if (a.length === 1) return P(`trunc(${num(a[0])})`, numType(a[0]), anyNull);
        const scale = `pow(10, CAST(${num(a[1])} AS INTEGER))`;
        return P(`(trunc(${num(a[0])} * ${scale}) / ${scale})`, 'float', anyNull);
      }
      case 'roundToExp2': {
        const [x, t] = [num(a[0]), numType(a[0])];
        const pow2 = `pow(2, floor(log2(greatest(${x}, 1))))`;
        return P(`CASE WHEN ${x} < 1 THEN 0 ELSE ${t === 'int' ? `CAST(${pow2} AS BIGINT)` : pow2} END`, t === 'int' ? 'int' : 'float', anyNull);
      }
      case 'roundDuration':
      case 'roundAge': {
        const x = num(a[0]);
        const steps = [...ROUND_STEPS[fn.sig.name as keyof typeof ROUND_STEPS]].reverse().map(([from, v]) => `WHEN ${x} >= ${from} THEN ${v}`);
        return P(`CASE ${anyNull ? `WHEN ${x} IS NULL THEN NULL ` : ''}${steps.join(' ')} ELSE 0 END`, 'int', anyNull);
      }
      case 'roundBankers':
        return P(`round_even(${num(a[0])}, ${a.length > 1 ? `CAST(${num(a[1])} AS INTEGER)` : '0'})`, 'float', anyNull);

      // ---------------- more of HogQL's mapping: conversions
      case 'toUUIDOrNull':
        return P(`TRY_CAST(${s(0)} AS UUID)`, 'uuid', true);
      case 'toUUIDOrZero':
        return P(`coalesce(TRY_CAST(${s(0)} AS UUID), CAST(${h.param('00000000-0000-0000-0000-000000000000')} AS UUID))`, 'uuid', false);
      case 'toNullable':
        return { ...a[0], nullable: true, isConst: false, constValue: undefined };
      case 'toLowCardinality':
        return a[0];
      case 'toJSONString':
        return P(`CAST(to_json(${s(0)}) AS VARCHAR)`, 'string', anyNull);
      case 'toFloatOrDefault': {
        const f = this.call({ ...fn, sig: lookupFunction('toFloat')!, args: a.slice(0, 1), raw: fn.raw.slice(0, 1) }, h);
        return P(`coalesce(${f.sql}, ${num(a[1])})`, 'float', a[1].nullable);
      }

      // ---------------- more of HogQL's mapping: dates
      case 'toLastDayOfMonth':
        return P(`last_day(${this.loc(a[0], h, n)})`, 'date', a[0].nullable);
      case 'toRelativeQuarterNum': {
        const l = this.loc(a[0], h, n);
        return P(`CAST(year(${l}) * 4 + quarter(${l}) - 1 AS BIGINT)`, 'int', a[0].nullable);
      }
      case 'monthName':
        return P(`monthname(${this.loc(a[0], h, n)})`, 'string', a[0].nullable);
      case 'age':
        return this.age(fn, h);

      // ---------------- more of HogQL's mapping: strings
      case 'leftPad':
      case 'leftPadUTF8':
      case 'rightPad':
      case 'rightPadUTF8': {
        const len = boundedCount({ ...a[1], sql: `CAST(greatest(${num(a[1])}, 0) AS INTEGER)` }, MAX_GENERATED_CHARS, fn.sig.name, h, n, (x, k) => `least(${x}, ${k})`);
        return P(`${fn.sig.name.startsWith('left') ? 'lpad' : 'rpad'}(${s(0)}, ${len}, ${a.length > 2 ? s(2) : `' '`})`, 'string', anyNull);
      }
      case 'repeat': {
        const each = a[0].isConst && typeof a[0].constValue === 'string' ? Math.max(a[0].constValue.length, 1) : undefined;
        const times: Printed = { ...a[1], sql: `CAST(greatest(${num(a[1])}, 0) AS BIGINT)`, constValue: typeof a[1].constValue === 'number' && each ? a[1].constValue * each : undefined };
        const count = times.isConst && each ? (boundedCount(times, MAX_GENERATED_CHARS, 'repeat', h, n, (x) => x), times.sql) : `least(${times.sql}, ${MAX_GENERATED_CHARS} // greatest(length(${s(0)}), 1))`;
        return P(`repeat(${s(0)}, ${count})`, 'string', anyNull);
      }
      case 'appendTrailingCharIfAbsent':
        return P(`CASE WHEN ${s(0)} = '' OR ends_with(${s(0)}, ${s(1)}) THEN ${s(0)} ELSE ${s(0)} || ${s(1)} END`, 'string', anyNull);
      case 'splitByRegexp':
        return P(`string_split_regex(${s(1)}, ${s(0)})`, 'array', anyNull, { chType: 'Array(String)' });
      case 'splitByWhitespace':
        return P(`regexp_extract_all(${s(0)}, '\\S+')`, 'array', anyNull, { chType: 'Array(String)' });
      case 'timeZoneOf':
        if (a[0].type !== 'datetime') h.error('timeZoneOf takes a DateTime value', n);
        return P(h.param(zoneOf(a[0]) ?? h.timezone), 'string', false);
      case 'intExp2':
      case 'intExp10':
        return P(`TRY_CAST(pow(${fn.sig.name === 'intExp2' ? 2 : 10}, trunc(${num(a[0])})) AS BIGINT)`, 'int', true);
      case 'countSubstringsCaseInsensitive':
        return this.call({ ...fn, sig: lookupFunction('countSubstrings')!, args: a.map((x) => ({ ...x, sql: `lower(${x.sql})`, constValue: typeof x.constValue === 'string' ? x.constValue.toLowerCase() : undefined })) }, h);
      case 'countSubstrings':
        return P(`CASE WHEN length(${s(1)}) = 0 THEN 0 ELSE (length(${s(0)}) - length(replace(${s(0)}, ${s(1)}, ''))) // length(${s(1)}) END`, 'int', anyNull);
      case 'leftUTF8':
      case 'rightUTF8':
        return this.call({ ...fn, sig: lookupFunction(fn.sig.name.slice(0, -4))! }, h);
      case 'concatWithSeparator':
        return this.call({ ...fn, sig: lookupFunction('concat')!, args: a.slice(1).flatMap((x, i) => (i ? [a[0], x] : [x])) }, h);
      case 'hex':
        if (isHashDigest(a[0])) return P(`upper(${s(0)})`, 'string', anyNull);
        return P(`upper(hex(${s(0)}))`, 'string', anyNull);
      case 'unhex':
        // DuckDB's text holds UTF-8 only: bytes that are not text (or digits that are not hexadecimal) read '', as tryBase64Decode's
        return P(`coalesce(TRY(decode(unhex(${s(0)}))), CASE WHEN ${s(0)} IS NOT NULL THEN '' END)`, 'string', anyNull);
      case 'MD5':
      case 'SHA1':
      case 'SHA256': {
        const x = hashArgument(fn, h);
        const d = HASH_DIGESTS[fn.sig.name];
        return P(`${d.duck}(${x.sql})`, 'string', x.nullable, { chType: `FixedString(${d.bytes})` });
      }
      case 'intHash32':
      case 'intHash64': {
        const x = intHashArgument(fn, h);
        return fn.sig.name === 'intHash32' ? P(`CAST(${intHash32(x.sql)} AS UINTEGER)`, 'int', x.nullable, { chType: 'UInt32' }) : P(`CAST(${intHash64(x.sql)} AS UBIGINT)`, 'int', x.nullable, { chType: 'UInt64' });
      }
      case 'decodeURLComponent':
        return P(`url_decode(${s(0)})`, 'string', anyNull);
      case 'encodeURLComponent':
        return P(`url_encode(${s(0)})`, 'string', anyNull);

      // ---------------- URLs (ClickHouse's URL functions, by regular expressions)
      case 'protocol':
        return P(`regexp_extract(${s(0)}, ${h.param(`^(${URL_SCHEME}):`)}, 1)`, 'string', anyNull);
      case 'netloc':
        return P(`regexp_extract(${s(0)}, ${h.param(URL_NETLOC)}, 1)`, 'string', anyNull);
      case 'port':
        return P(`coalesce(TRY_CAST(nullif(regexp_extract(${s(0)}, ${h.param(URL_PORT)}, 1), '') AS USMALLINT), ${portDefault(a, h, n)})`, 'int', a[0].nullable, { chType: 'UInt16' });
      case 'ifNotFinite':
        return P(`CASE WHEN isfinite(CAST(${num(a[0])} AS DOUBLE)) THEN ${num(a[0])} ELSE ${num(a[1])} END`, 'float', a[1].nullable);
      case 'domain':
      case 'domainWithoutWWW':
      case 'topLevelDomain':
      case 'firstSignificantSubdomain':
      case 'cutToFirstSignificantSubdomain': {
        const host = `regexp_extract(${s(0)}, ${h.param(URL_HOST)}, 1)`;
        if (fn.sig.name === 'domain') return P(host, 'string', anyNull);
        if (fn.sig.name === 'domainWithoutWWW') return P(`regexp_replace(${host}, '^www\\.', '')`, 'string', anyNull);
        if (fn.sig.name === 'topLevelDomain') return P(`regexp_extract(${host}, '\\.([^.]+)$', 1)`, 'string', anyNull);
        // The second-level label, or the third when the second is com/net/org/co; the host itself without dots.
        const parts = `string_split(${host}, '.')`;
        const k = `(CASE WHEN len(${parts}) < 2 THEN 1 WHEN len(${parts}) >= 3 AND ${parts}[-2] IN (${INSIGNIFICANT_SECOND_LEVEL.map((x) => `'${x}'`).join(', ')}) THEN len(${parts}) - 2 ELSE len(${parts}) - 1 END)`;
        if (fn.sig.name === 'firstSignificantSubdomain') return P(`${parts}[${k}]`, 'string', anyNull);
        return P(`array_to_string(${parts}[${k}:], '.')`, 'string', anyNull);
      }
      case 'path':
        return P(`regexp_extract(${s(0)}, ${h.param(`^(?:${URL_SCHEME}:)?//[^/?#]*([^?#]*)`)}, 1)`, 'string', anyNull);
      case 'pathFull':
        return P(`regexp_extract(${s(0)}, ${h.param(`^(?:${URL_SCHEME}:)?//[^/?#]*([/].*)?$`)}, 1)`, 'string', anyNull);
      case 'queryString':
        return P(`regexp_extract(${s(0)}, '\\?([^#]*)', 1)`, 'string', anyNull);
      case 'fragment':
        return P(`regexp_extract(${s(0)}, '#(.*)$', 1)`, 'string', anyNull);
      case 'queryStringAndFragment':
        return P(`regexp_extract(${s(0)}, '\\?(.*)$', 1)`, 'string', anyNull);
      case 'extractURLParameters':
      case 'extractURLParameterNames': {
        const params = `list_filter(string_split(regexp_extract(${s(0)}, '\\?([^#]*)', 1), '&'), lambda __p: __p <> '')`;
        if (fn.sig.name === 'extractURLParameters') return P(params, 'array', anyNull);
        return P(`list_transform(${params}, lambda __p: split_part(__p, '=', 1))`, 'array', anyNull);
      }
      case 'extractURLParameter': {
        const name = a[1].isConst && typeof a[1].constValue === 'string' ? h.param(a[1].constValue.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&')) : `regexp_escape(${s(1)})`;
        return P(`regexp_extract(${s(0)}, '[?&]' || ${name} || '=([^&#]*)', 1)`, 'string', anyNull);
      }
      case 'cutWWW':
        return P(`regexp_replace(${s(0)}, ${h.param(`^((?:${URL_SCHEME}:)?//)www\\.`)}, '\\1')`, 'string', anyNull);
      case 'cutQueryString':
        return P(`regexp_replace(${s(0)}, '\\?[^#]*', '')`, 'string', anyNull);
      case 'cutFragment':
        return P(`regexp_replace(${s(0)}, '#.*$', '')`, 'string', anyNull);
      case 'cutQueryStringAndFragment':
        return P(`regexp_replace(${s(0)}, '[?#].*$', '')`, 'string', anyNull);

      // ---------------- arrays (ClickHouse's, on DuckDB lists)
      case 'arraySort':
      case 'arrayReverseSort': {
        const sort = fn.sig.name === 'arraySort' ? 'list_sort' : 'list_reverse_sort';
        if (fn.raw[0]?.node !== 'Lambda') return P(`${sort}(${s(0)})`, 'array', anyNull, sameArrayTyping(a[0]));
        // by key: (key, element) pairs sorted, then the elements (other arrays are read by index: Dialect.lambdaIndex)
        return P(`list_transform(${sort}(list_zip(list_transform(${s(1)}, ${s(0)}), ${s(1)})), lambda __p: struct_extract_at(__p, 2))`, 'array', a[1].nullable, sameArrayTyping(a[1]));
      }
      case 'arrayCumSum':
        return P(`list_transform(${s(0)}, lambda __e, __i: list_sum(${s(0)}[1:__i]))`, 'array', anyNull);
      case 'arrayCumSumNonNegative':
        // a running sum that restarts from 0 whenever it would go below it
        return P(`list_transform(${s(0)}, lambda __e, __i: list_reduce(list_prepend(0, ${s(0)}[1:__i]), lambda __acc, __y: greatest(__acc + __y, 0)))`, 'array', anyNull);
      case 'arrayDifference':
        return P(`list_transform(${s(0)}, lambda __e, __i: CASE WHEN __i = 1 THEN 0 ELSE __e - ${s(0)}[__i - 1] END)`, 'array', anyNull);
      case 'arrayPopFront':
        return P(`list_slice(${s(0)}, 2, len(${s(0)}))`, 'array', anyNull);
      case 'arrayPopBack':
        return P(`list_slice(${s(0)}, 1, len(${s(0)}) - 1)`, 'array', anyNull);
      case 'arrayPushFront':
        return P(`list_prepend(${s(1)}, ${s(0)})`, 'array', a[0].nullable);
      case 'arrayPushBack':
        return P(`list_append(${s(0)}, ${s(1)})`, 'array', a[0].nullable);
      case 'arrayConcat':
        return P(a.slice(1).reduce((acc, x) => `list_concat(${acc}, ${x.sql})`, s(0)), 'array', anyNull);
      case 'arrayEnumerate':
        return P(`range(1, len(${s(0)}) + 1)`, 'array', anyNull);
      case 'arrayReduce': {
        const f = a[0].isConst && typeof a[0].constValue === 'string' ? ({ min: 'list_min', max: 'list_max', sum: 'list_sum' } as Record<string, string>)[a[0].constValue] : undefined;
        if (!f || a.length !== 2) return h.error('arrayReduce takes a constant aggregate name (min, max or sum) and one array on this engine', n);
        return P(`${f}(${s(1)})`, 'unknown', true);
      }
      case 'range': {
        const i = (k: number) => `CAST(${num(a[k])} AS BIGINT)`;
        const cap = (x: string, k: number) => `least(${x}, ${k})`;
        if (a.length === 1) return P(`range(${boundedCount({ ...a[0], sql: i(0) }, MAX_GENERATED_ELEMENTS, 'range', h, n, cap)})`, 'array', anyNull);
        const [from, to] = a;
        const span: Printed = { ...to, sql: i(1), isConst: from.isConst && to.isConst, constValue: typeof from.constValue === 'number' && typeof to.constValue === 'number' ? to.constValue - from.constValue : undefined };
        const end = span.isConst ? (boundedCount(span, MAX_GENERATED_ELEMENTS, 'range', h, n, cap), i(1)) : `least(${i(1)}, ${i(0)} + ${MAX_GENERATED_ELEMENTS})`;
        return P(`range(${[i(0), end, ...(a.length > 2 ? [i(2)] : [])].join(', ')})`, 'array', anyNull);
      }
      case 'arrayFirst':
      case 'arrayLast': {
        // without a matching element, ClickHouse reads the element type's default (see arrayAccess)
        const found = `list_filter(${s(1)}, ${s(0)})[${fn.sig.name === 'arrayFirst' ? 1 : -1}]`;
        const d = elementDefault(a[1]);
        return d ? P(`coalesce(${found}, ${d.sql})`, d.type, false, { chType: d.chType }) : P(found, 'unknown', true, arrayElementTyping(a[1]));
      }
      case 'arrayFirstIndex':
        return P(`coalesce(list_position(list_transform(${s(1)}, ${s(0)}), true), 0)`, 'int', false, { chType: 'UInt32' });
      case 'arrayLastIndex': {
        const p = `coalesce(list_position(list_reverse(list_transform(${s(1)}, ${s(0)})), true), 0)`;
        return P(`CASE WHEN ${p} = 0 THEN 0 ELSE len(${s(1)}) + 1 - ${p} END`, 'int', false, { chType: 'UInt32' });
      }
      case 'countEqual':
        // ClickHouse counts NULL elements equal to a NULL x
        return P(`len(list_filter(${s(0)}, lambda __e: __e IS NOT DISTINCT FROM ${s(1)}))`, 'int', anyNull, { chType: 'UInt64' });
      case 'arrayMin':
      case 'arrayMax':
      case 'arrayAvg':
        return P(`list_${fn.sig.name.slice(5).toLowerCase()}(${s(0)})`, fn.sig.name === 'arrayAvg' ? 'float' : 'unknown', true);
      case 'countMatches':
      case 'countMatchesCaseInsensitive': {
        const flags = fn.sig.name === 'countMatches' ? '' : `, 'i'`;
        return P(`CAST(len(regexp_extract_all(${s(0)}, ${s(1)}, 0${flags})) AS BIGINT)`, 'int', anyNull, { chType: 'UInt64' });
      }
      case 'hasSubstr': {
        const [arr, sub] = [s(0), s(1)];
        return P(`(len(${sub}) = 0 OR len(list_filter(range(1, len(${arr}) - len(${sub}) + 2), lambda __i: ${arr}[__i:__i + len(${sub}) - 1] IS NOT DISTINCT FROM ${sub})) > 0)`, 'bool', anyNull);
      }
      case 'arrayResize': {
        // cut to the size, or filled up to it with the extender (else the element type's default, as ClickHouse)
        const size = boundedCount({ ...a[1], sql: `CAST(${num(a[1])} AS BIGINT)` }, MAX_GENERATED_ELEMENTS, 'arrayResize', h, n, (x, k) => `least(${x}, ${k})`);
        const ext = a.length > 2 ? s(2) : (elementDefault(a[0])?.sql ?? 'NULL');
        return P(`CASE WHEN ${size} <= len(${s(0)}) THEN ${s(0)}[1:${size}] ELSE list_concat(${s(0)}, list_transform(range(${size} - len(${s(0)})), lambda __i: ${ext})) END`, 'array', anyNull, a.length > 2 ? {} : sameArrayTyping(a[0]));
      }
      case 'arrayWithConstant': {
        const size = boundedCount({ ...a[0], sql: `CAST(${num(a[0])} AS BIGINT)` }, MAX_GENERATED_ELEMENTS, 'arrayWithConstant', h, n, (x, k) => `least(${x}, ${k})`);
        return P(`list_transform(range(greatest(${size}, 0)), lambda __i: ${s(1)})`, 'array', a[0].nullable, arrayLiteralTyping([a[1]], h.timezone));
      }
      case 'arrayRotateLeft':
      case 'arrayRotateRight': {
        const len = `len(${s(0)})`;
        const by = `CAST(${num(a[1])} AS BIGINT)${fn.sig.name === 'arrayRotateRight' ? ' * -1' : ''}`;
        const k = `(((${by}) % ${len}) + ${len}) % ${len}`;
        return P(`CASE WHEN ${len} = 0 THEN ${s(0)} ELSE list_concat(${s(0)}[${k} + 1:], ${s(0)}[1:${k}]) END`, 'array', anyNull, sameArrayTyping(a[0]));
      }
      case 'arrayEnumerateUniq':
        return P(`list_transform(${s(0)}, lambda __e, __i: len(list_filter(${s(0)}[1:__i], lambda __y: __y IS NOT DISTINCT FROM __e)))`, 'array', anyNull, { chType: 'Array(UInt32)' });
      case 'arrayEnumerateDense': {
        const firsts = `list_filter(${s(0)}, lambda __e, __i: list_position(${s(0)}, __e) = __i)`;
        return P(`list_transform(${s(0)}, lambda __e: list_position(${firsts}, __e))`, 'array', anyNull, { chType: 'Array(UInt32)' });
      }
      case 'arrayCompact':
        return P(`list_filter(${s(0)}, lambda __e, __i: __i = 1 OR __e IS DISTINCT FROM ${s(0)}[__i - 1])`, 'array', anyNull);
      case 'arrayFlatten': {
        // ClickHouse flattens every level: as many flattens as the known nesting has (one when it is not known)
        const { times, chType } = flattenDepth(a[0]);
        return P(Array.from({ length: times }).reduce<string>((x) => `flatten(${x})`, s(0)), 'array', anyNull, chType ? { chType } : {});
      }
      case 'arrayIntersect':
        return P(a.slice(1).reduce((acc, x) => `list_intersect(${acc}, ${x.sql})`, s(0)), 'array', anyNull);

      // ---------------- JSON, conditionals, PostHog's own
      case 'JSONExtract': {
        const element = jsonExtractArrayElement(a[a.length - 1]);
        if (element === undefined) return this.call({ ...fn, sig: lookupFunction(jsonExtractFunction(a[a.length - 1], h, n))!, args: a.slice(0, -1), raw: fn.raw.slice(0, -1) }, h);
        // 'Array(T)': each element of the array (raw JSON text) read as T; [] when the value is no array
        const items = this.call({ ...fn, sig: lookupFunction('JSONExtractArrayRaw')!, args: a.slice(0, -1), raw: fn.raw.slice(0, -1) }, h);
        const item: Printed = { sql: '__je', type: 'string', nullable: false };
        const read = this.call({ ...fn, sig: lookupFunction(jsonExtractFunction({ ...a[a.length - 1], constValue: element }, h, n))!, args: [item], raw: [] }, h);
        return P(`list_transform(${items.sql}, lambda __je: ${read.sql})`, 'array', false, { chType: `Array(${element})` });
      }
      case 'arrayZip': {
        // the i-th elements of the arrays as one tuple (a struct "1", "2", ...), up to the longest array
        const pairs = a.map((x, i) => `${q(String(i + 1))} := ${x.sql}[__i]`).join(', ');
        const longest = a.length === 1 ? `len(${s(0)})` : `greatest(${a.map((x) => `len(${x.sql})`).join(', ')})`;
        return P(`list_transform(range(1, ${longest} + 1), lambda __i: struct_pack(${pairs}))`, 'array', anyNull, zipTyping(a));
      }
      case 'positiveModulo':
        return P(`((${num(a[0])} % ${num(a[1])}) + ${num(a[1])}) % ${num(a[1])}`, numType(a[0]), anyNull);
      case 'bitShiftLeft':
      case 'bitShiftRight':
        return P(`(CAST(${num(a[0])} AS BIGINT) ${fn.sig.name === 'bitShiftLeft' ? '<<' : '>>'} CAST(${num(a[1])} AS INTEGER))`, 'int', anyNull);
      case 'bitNot':
        return P(`(~CAST(${num(a[0])} AS BIGINT))`, 'int', anyNull);
      case 'xor':
        // true when an odd number of the arguments are true
        return P(`((${a.map((x) => `CAST(CAST(${x.sql} AS BOOLEAN) AS INTEGER)`).join(' + ')}) % 2 = 1)`, 'bool', anyNull);
      case 'JSONArrayLength': {
        const path = jsonPath(1);
        return P(`CASE WHEN json_type(${s(0)}, ${path}) = 'ARRAY' THEN json_array_length(${s(0)}, ${path}) END`, 'int', true, { chType: 'Nullable(UInt64)' });
      }
      case 'JSONExtractUInt':
        return this.call({ ...fn, sig: lookupFunction('JSONExtractInt')! }, h);
      case 'isValidJSON':
        return P(`coalesce(json_valid(${s(0)}), false)`, 'bool', false);
      case 'transform': {
        // transform(x, from, to[, default]): the `to` element at x's position in `from`; else the default (or x).
        const at = `list_position(${s(1)}, ${s(0)})`;
        const dflt = a.length > 3 ? a[3] : a[0];
        return P(`CASE WHEN ${at} IS NULL THEN ${dflt.sql} ELSE ${s(2)}[${at}] END`, dflt.type, true);
      }
      case 'sparkline':
        return this.call({ ...fn, sig: lookupFunction('tuple')!, args: [...SPARKLINE_MARKER.map((v) => this.constant(v, false, h)), a[0]], raw: [] }, h);
      case 'recording_button': {
        const tagged = a.flatMap((x, i) => [this.constant(RECORDING_BUTTON_ARGS[i], false, h), x]);
        return this.call({ ...fn, sig: lookupFunction('tuple')!, args: [...RECORDING_BUTTON_MARKER.map((v) => this.constant(v, false, h)), ...tagged], raw: [] }, h);
      }

      default:
        if (fn.sig.name.startsWith('emptyArray') && Object.prototype.hasOwnProperty.call(EMPTY_ARRAY_TYPES, fn.sig.name.slice('emptyArray'.length))) {
          const t = fn.sig.name.slice('emptyArray'.length);
          return P(`CAST([] AS ${EMPTY_ARRAY_TYPES[t]}[])`, 'array', false, { chType: `Array(${t})` });
        }
        return h.error(`Function "${fn.sig.name}" is not available on this engine`, n);
    }
  }
}

/** Function names the DuckDB dialect implements (checked against the allow-list in tests). */
export const duckdbDialect: Dialect = new DuckDBDialect();
