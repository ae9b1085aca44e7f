/**
 * The ClickHouse dialect of the ProductQL printer. Resolution and safety (project guard placement, table and
 * function allow-lists, LIMIT default and clamp) are the shared compiler's; this file only changes spelling.
 *
 * Targets ClickHouse 18.16 (Debian's package) and current releases alike, so it avoids what 18.16 lacks:
 * - no server-side query parameters: bound values are spliced as escaped literals (clickhouse-literals.ts)
 *   after compilation; the printer returns no params. Placeholders are sentinels (`\u0001n\u0001`) that can
 *   never come from the query text (identifiers escape control characters, strings are never spliced raw);
 * - no `WITH name AS (subquery)`: CTE bodies are inlined (`Dialect.inlineCtes`);
 * - no `JSONExtract*`: properties are read with `visitParamExtractRaw/String` (top-level-key semantics, see
 *   {@link ClickHouseDialect.jsonProperty});
 * - no sub-second DateTime: every datetime value is an `Int64` of epoch milliseconds (UTC). Stored datetime
 *   columns are `DateTime` + a `<name>_ms UInt16` column; the guarded table reference exposes
 *   `toInt64(toUInt32(x)) * 1000 + x_ms` under the original name, so ordering and display keep milliseconds.
 *   Calendar functions convert to `DateTime(<project tz>)`, work there (DST-exact), and convert back;
 * - no window functions, no more than one JOIN per SELECT, no INTERSECT/EXCEPT: such queries are refused
 *   (window functions at print time, the others by the engine as a 400 `query_error`);
 * - no Bool type: booleans are UInt8 (0/1); `shapeResult` shows the Bool-typed ones (true/false, toBool) as true/false,
 *   as current ClickHouse does (comparisons stay UInt8 1/0 there too).
 */
import type { ArithmeticOp, CompareOp, ConstantValue, NodeBase } from './ast';
import { chIdent, chLiteral } from './clickhouse-literals';
import { productqlError } from './errors';
import { SESSION_LIST_FIELDS } from './sessions';
import { EMPTY_ARRAY_TYPES, ROUND_STEPS, lookupFunction } from './functions';
import { formatTemplate, groupArraySize, regexpExtractArgs, MAX_GENERATED_CHARS, MAX_GENERATED_ELEMENTS, MONTH_NAMES, WEEKDAY_NAMES, URL_NETLOC, URL_PORT, portDefault, SAMPLE_BUCKETS, boundedCount, SPARKLINE_MARKER, RECORDING_BUTTON_MARKER, RECORDING_BUTTON_ARGS, arrayElementTyping, arrayOfTyping, groupArrayTyping, arrayLiteralTyping, elementDefault, elementTyping, flattenDepth, jsonExtractArrayElement, jsonExtractFunction, zipTyping, sameArrayTyping, aggregateDefault, sameValueTyping, orCombinatorParts, HASH_DIGESTS, hashArgument, isBoolTyped, intHashArgument, isHashDigest, parseDateTimeFormat, dateShiftOf, topKSize, zonedCall, decimalConversionOf, dateTimeNullable, dateTimeTextShape, decimalTextPattern, type DecimalConversion, exactQuantileIndex, intConversionOf, intTypeName, formatPieces, quantileLevel, startOfIntervalArgs, roundingDigits, typeNameOf, unitOf, unwrapIfCombinator, zoneOf, type Dialect, type FunctionCall, type Helpers, type IntervalUnit, type Printed, type TableNeeds, type TimeBound } from './dialect';
import { dialectPrinter, registerPrinter, type Printer } from './index';
import type { PType } from './schema';

const q = chIdent;
const P = (sql: string, type: PType, nullable: boolean, extra: Partial<Printed> = {}): Printed => ({ sql, type, nullable, ...extra });

/**
 * ClickHouse 18.16's regular expressions check a literal "required substring" before running RE2, and that check is
 * case-sensitive even under `(?i)`: `match('Feedback', '(?i)feedback')` is false there. A top-level alternative that
 * never matches turns the check off without changing what matches: `(?:P)|[^\s\S]`.
 */
const NEVER_MATCHES = '|[^\\s\\S]';

/** `=~*`: the pattern (SQL of a text) matched case-insensitively, in the form 18.16 honours ({@link NEVER_MATCHES}). */
function caseInsensitivePattern(patternSql: string, h: Helpers): string {
  return `concat(${h.param('(?:(?i)')}, ${patternSql}, ${h.param(`)${NEVER_MATCHES}`)})`;
}

const isNum = (p: Printed): boolean => p.type === 'int' || p.type === 'float' || p.type === 'bool';
const isStrLike = (p: Printed): boolean => p.type === 'string' || p.type === 'json';
/**
 * A boolean's text, `'true'` / `'false'` (NULL stays NULL), as DuckDB and ClickHouse's `Bool` type spell it: 18.16
 * has no Bool, booleans are UInt8, whose `toString` is `'1'` / `'0'`. Used wherever a boolean becomes text
 * (`toString`, `concat`, LIKE) or meets text in a comparison (`x = 'true'`).
 */
const boolText = (p: Printed): string => {
  if (p.isConst && typeof p.constValue === 'boolean') return `'${String(p.constValue)}'`;
  return p.nullable ? `if(isNull(${p.sql}), NULL, if(assumeNotNull(${p.sql}), 'true', 'false'))` : `if(${p.sql}, 'true', 'false')`;
};
/** Any value as text for concatenation and LIKE: booleans as `'true'` / `'false'`, the rest by `toString`. */
const asText = (p: Printed): string => (isBoolTyped(p) ? boolText(p) : `toString(${p.sql})`);
/** A numeric view of any value: strings that are not numbers become NULL (never an error). */
const num = (p: Printed): string => (isStrLike(p) ? `toFloat64OrNull(${p.sql})` : p.sql);
/** The arguments of sumState / avgState: the value as a number, as sum and avg read it. */
const a0num = (fn: FunctionCall): string[] => [num(fn.args[0])];
const numType = (p: Printed): PType => (p.type === 'int' ? 'int' : p.type === 'unknown' ? 'unknown' : 'float');

const HAS_OFFSET = /(?:Z|[+-]\d\d(?::?\d\d)?)$/i;
const SUB_DAY_MS: Record<string, number> = { second: 1000, minute: 60_000, hour: 3_600_000 };
const CH_UNIT: Record<string, string> = {
  second: 'Second',
  minute: 'Minute',
  hour: 'Hour',
  day: 'Day',
  week: 'Week',
  month: 'Month',
  quarter: 'Quarter',
  year: 'Year',
};

function validTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Datetime columns per engine table: stored as `DateTime` + `<name>_ms`, exposed as epoch-ms Int64. */
export const CH_TABLE_COLUMNS: Record<string, { name: string; datetime?: boolean }[]> = {
  events: [
    { name: 'uuid' },
    { name: 'event' },
    { name: 'distinct_id' },
    { name: 'person_id' },
    { name: 'timestamp', datetime: true },
    { name: 'properties' },
    { name: '$session_id' },
    { name: 'elements_chain' },
    { name: 'created_at', datetime: true },
  ],
  persons: [{ name: 'id' }, { name: 'created_at', datetime: true }, { name: 'properties' }, { name: 'is_identified' }, { name: 'version' }],
  person_distinct_ids: [{ name: 'distinct_id' }, { name: 'person_id' }, { name: 'version' }, { name: 'seq' }],
  person_overrides: [{ name: 'old_person_id' }, { name: 'override_person_id' }, { name: 'version' }],
  groups: [{ name: 'group_type_index' }, { name: 'group_key' }, { name: 'created_at', datetime: true }, { name: 'properties' }, { name: 'version' }],
  query_log: [
    { name: 'id' },
    { name: 'query_id' },
    { name: 'event_time', datetime: true },
    { name: 'principal' },
    { name: 'kind' },
    { name: 'name' },
    { name: 'query_hash' },
    { name: 'query' },
    { name: 'duration_ms' },
    { name: 'result_rows' },
    { name: 'result_bytes' },
    { name: 'is_cached' },
    { name: 'status' },
    { name: 'error_code' },
  ],
};

/** Tables whose rows are replaced by newer versions (ReplacingMergeTree + `is_deleted`): read with FINAL. */
const REPLACING = new Set(['persons', 'person_distinct_ids', 'person_overrides', 'groups']);

/** A reference to a table's `event` column, as the compiler prints it (quoted alias, quoted name). */
const EVENT_COL = /^(`(?:[^`\\]|\\.)*`)\.`event`$/;
/** The stored `person_id` of a guarded events reference (`lazyPersonIdNullTest`). */
const PERSON_ID_COL = /^(`(?:[^`\\]|\\.)*`)\.`person_id`$/;

/** Epoch ms a stored `DateTime` can hold (UInt32 seconds): exactness is only claimed inside it. */
const MAX_DATETIME_MS = 4_294_967_295_000;

/**
 * The millisecond part (0..999) of the epoch-ms value `dt()` prints for a constant, when it is known at print time:
 * zone-less text is parsed to whole seconds (plus its written fraction), text with an offset is converted here.
 * Undefined when unknown, or when the year is outside what DateTime holds (then no exactness is claimed).
 */
function msRemainder(p: Printed): number | undefined {
  if (p.type === 'datetime' || !p.isConst || typeof p.constValue !== 'string') return undefined;
  const s = p.constValue.trim();
  if (HAS_OFFSET.test(s) && /\d[T ]\d/.test(s)) {
    const t = Date.parse(s);
    return Number.isNaN(t) || t < 0 || t >= MAX_DATETIME_MS ? undefined : t % 1000;
  }
  const year = /^(\d{4})-\d{2}-\d{2}/.exec(s);
  if (!year || Number(year[1]) < 1971 || Number(year[1]) > 2105) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(s)) return 0;
  const frac = /^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2})\.(\d+)$/.exec(s);
  if (frac) return Number(`${frac[2]}00`.slice(0, 3));
  return 0;
}

const DAY_MS = 86_400_000;
/** Time zones that are UTC: a zone-less datetime constant is read in the project's zone. */
const UTC_ZONES = new Set(['UTC', 'Etc/UTC', 'GMT', 'Etc/GMT', 'Etc/Universal', 'Universal', 'Zulu', 'Etc/Zulu']);

/**
 * The epoch ms of a datetime constant as `dt()` prints it (whole seconds plus the written milliseconds), when known
 * at print time: text with an offset, or zone-less text in a UTC project. Undefined otherwise, or outside what
 * DateTime holds.
 */
function utcEpochMs(p: Printed, tz: string): number | undefined {
  if (p.type === 'datetime' || !p.isConst || typeof p.constValue !== 'string') return undefined;
  const s = p.constValue.trim();
  let t: number;
  if (HAS_OFFSET.test(s) && /\d[T ]\d/.test(s)) t = Date.parse(s);
  else {
    const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}:\d{2})(?:\.(\d+))?)?$/.exec(s);
    if (!m || !UTC_ZONES.has(tz)) return undefined;
    t = Date.parse(`${m[1]}T${m[2] ?? '00:00:00'}Z`) + (m[3] ? Number(`${m[3]}00`.slice(0, 3)) : 0);
  }
  return Number.isNaN(t) || t < 0 || t >= MAX_DATETIME_MS || t < Date.UTC(1971, 0, 1) || t >= Date.UTC(2106, 0, 1) ? undefined : t;
}

/** Aggregates `arrayReduce` may name (a constant): nothing that reads outside its arguments. */
const ARRAY_REDUCE_AGGREGATES = new Set(['min', 'max', 'sum', 'argMin', 'argMax']);

/** Sentinel placeholders, replaced by escaped literals after compilation. */
const MARK = '\u0001';

export class ClickHouseDialect implements Dialect {
  readonly name = 'clickhouse' as const;
  readonly inlineCtes = true;
  readonly stagesCtes = true;
  readonly uniqueSelectNames = true;
  readonly positionalAsExpression = true;
  readonly nativeLimitBy = true;
  readonly groupByAlias = true;
  readonly crossJoinNonEqui = true;
  readonly renameJoinedColumns = true;
  readonly unionAllOnly = true;
  quoteIdent = chIdent;
  /** A lone nullable UUID is deduplicated as its text (a UUID reads as its text in results anyway). */
  distinctKey(item: Printed): { sql: string; type: PType; chType: string } | undefined {
    return item.type === 'uuid' && item.nullable ? { sql: `toString(${item.sql})`, type: 'string', chType: item.chType ?? 'UUID' } : undefined;
  }
  placeholder = (i: number): string => `${MARK}${i}${MARK}`;

  constant(value: ConstantValue, bigNumber: boolean, h: Helpers): Printed {
    const c = { isConst: true, constValue: value };
    if (value === null) return P('NULL', 'null', true, c);
    if (typeof value === 'boolean') return P(h.param(value), 'bool', false, { ...c, chType: 'Bool' });
    if (typeof value === 'number') {
      if (Number.isSafeInteger(value)) return P(h.param(value), 'int', false, c);
      if (!Number.isInteger(value)) return P(h.param(value), 'float', false, c);
      return P(`toFloat64(${h.param(String(value))})`, 'float', false, c);
    }
    if (bigNumber) return P(`toFloat64(${h.param(value)})`, 'float', false, { isConst: true, constValue: Number(value) });
    return P(h.param(value), 'string', false, c);
  }

  // ---------------------------------------------------------------------------------------- time helpers
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

  /** Epoch ms → DateTime in the project (or given) timezone, for calendar work. */
  private local(ms: string, h: Helpers, tz?: string): string {
    return `toDateTime(intDiv(${ms}, 1000), ${tz ?? h.tz()})`;
  }
  /** DateTime → epoch ms. */
  private ms(dt: string): string {
    return `(toInt64(toUInt32(${dt})) * 1000)`;
  }
  /** Any value as epoch ms (Int64); a Date or a string without an offset is local time in `zone` (bound SQL; default the project's). */
  private dt(p: Printed, h: Helpers, node: NodeBase, zone?: string, lenient = false): string {
    const tz = zone ?? h.tz();
    switch (p.type) {
      case 'datetime':
        return p.sql;
      case 'date':
        return this.ms(`toDateTime(${p.sql}, ${tz})`);
      case 'int':
      case 'float':
        return `toInt64(${p.sql} * 1000)`;
      case 'null':
        return 'CAST(NULL AS Nullable(Int64))';
      case 'string':
      case 'json':
      case 'unknown':
        if (p.isConst && typeof p.constValue === 'string') {
          const s = p.constValue.trim();
          // `lenient`: text that is no datetime reads NULL (HogQL prints toDateTime of text as parseDateTime64BestEffortOrNull);
          // datetimes in the usual shapes keep the strict forms below, which ClickHouse prunes partitions with.
          const shape = lenient ? dateTimeTextShape(s) : 'valid';
          if (shape === 'invalid' || (lenient && s === '')) return 'CAST(NULL AS Nullable(Int64))';
          if (shape === 'other') return this.ms(`parseDateTimeBestEffortOrNull(${p.sql}, ${tz})`);
          if (HAS_OFFSET.test(s) && /\d[T ]\d/.test(s)) {
            const t = Date.parse(s);
            if (Number.isNaN(t)) h.error(`Cannot parse ${JSON.stringify(s.slice(0, 40))} as a datetime`, node);
            return `toInt64(${h.param(t)})`;
          }
          if (/^\d{4}-\d{2}-\d{2}$/.test(s)) return this.ms(`toDateTime(toDate(${p.sql}), ${tz})`);
          // DateTime has whole seconds: parse without the fraction and add its milliseconds (as DuckDB keeps them).
          const frac = /^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2})\.(\d+)$/.exec(s);
          if (frac) return `(${this.ms(`parseDateTimeBestEffort(${h.param(frac[1])}, ${tz})`)} + ${Number(`${frac[2]}00`.slice(0, 3))})`;
          return this.ms(`parseDateTimeBestEffort(${p.sql}, ${tz})`);
        }
        return this.ms(`parseDateTimeBestEffortOrNull(${p.sql}, ${tz})`);
      default:
        return h.error(`Cannot use a ${p.type} value as a datetime`, node);
    }
  }
  private asDate(p: Printed, h: Helpers, node: NodeBase, tz?: string): string {
    if (p.type === 'date') return p.sql;
    if (isStrLike(p) && !(p.isConst && /\d[T ]\d/.test(String(p.constValue)))) return this.textDateOrNull(p.sql, h);
    return `toDate(${this.local(this.dt(p, h, node), h, tz)})`;
  }

  /**
   * toDateOrNull of text, NULL for a `Y-M-D` that is no real date, as ClickHouse's toDateOrNull gives (18.16 reads
   * month 13 as 0000-00-00 and February 30 as March 2): such text is a date only when its month and day come back.
   */
  private textDateOrNull(text: string, h: Helpers): string {
    const d = `toDateOrNull(${text})`;
    const part = (re: string) => `toUInt8OrZero(extract(${text}, ${h.param(re)}))`;
    const wrong = `(${part('^[0-9]{4}-([0-9]{1,2})-')} != toMonth(${d}) OR ${part('^[0-9]{4}-[0-9]{1,2}-([0-9]{1,2})')} != toDayOfMonth(${d}))`;
    // (the date assumeNotNull in its branch: 18.16 refuses a Nullable one there, "Nullable(UInt16) cannot be inside Nullable column")
    return `if(isNull(${d}) OR (match(${text}, ${h.param('^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}')}) AND ${wrong}), NULL, assumeNotNull(${d}))`;
  }

  // ---------------------------------------------------------------------------------------- properties
  /**
   * `base.k1.k2`: a string, NULL for a missing key and JSON null, '' for `""`. ClickHouse 18.16 has only the `visitParam*`
   * functions, which match a key's first `"key":` occurrence in the text (JSON as Quarry writes it: compact,
   * keys JSON-escaped). Nested keys extract the raw object first, then the key inside it.
   */
  jsonProperty(base: string, keys: (string | number)[], h: Helpers): Printed {
    // visitParam* read object keys only: an array element would silently read NULL.
    if (keys.some((k) => typeof k === 'number'))
      h.error('JSON array indexes in property paths (properties.list.1, properties.list[1]) are not available on this engine (ClickHouse 18.16 has no JSON parser)');
    let parent = base;
    let raw = base;
    for (const k of keys) {
      parent = raw;
      raw = `visitParamExtractRaw(${raw}, ${h.param(JSON.stringify(String(k)).slice(1, -1))})`;
    }
    const last = keys.length ? h.param(JSON.stringify(String(keys[keys.length - 1])).slice(1, -1)) : '';
    // Strings are unquoted/unescaped (read straight from the parent: the same first occurrence of the key as
    // visitParamExtractRaw finds), `""` being ''; numbers, objects and arrays are their JSON text; a missing key
    // (raw '') and JSON null are NULL — PostHog's `nullIf(nullIf(JSONExtractRaw(…), ''), 'null')` before unquoting.
    // (18.16's visitParamExtractRaw also answers '' for a string ending in an escaped backslash, `"a\\"`: a key that is
    // there with a raw '' is such a string, which visitParamExtractString reads)
    const sql = keys.length
      ? `if(${raw} = 'null', NULL, if(${raw} = '', if(visitParamHas(${parent}, ${last}), visitParamExtractString(${parent}, ${last}), NULL), if(substring(${raw}, 1, 1) = '"', visitParamExtractString(${parent}, ${last}), ${raw})))`
      : `nullIf(${raw}, '')`;
    return P(sql, 'string', true, { json: { base, keys } });
  }
  jsonAsText(base: string): string {
    return base;
  }
  jsonPropertyDynamic(_base: string, _key: Printed, h: Helpers): Printed {
    return h.error('Property keys must be constants on ClickHouse');
  }

  // ---------------------------------------------------------------------------------------- operators
  private coerce(l: Printed, r: Printed, h: Helpers, node: NodeBase): [string, string] {
    if (l.type === 'null' || r.type === 'null') return [l.sql, r.sql];
    if (l.type === 'datetime' || r.type === 'datetime') {
      if (l.type === r.type) return [l.sql, r.sql];
      return l.type === 'datetime' ? [l.sql, this.dt(r, h, node)] : [this.dt(l, h, node), r.sql];
    }
    if (l.type === 'date' || r.type === 'date') {
      if (l.type === r.type) return [l.sql, r.sql];
      return l.type === 'date' ? [l.sql, this.asDate(r, h, node)] : [this.asDate(l, h, node), r.sql];
    }
    // A boolean meets text as its text (`(a = b) = '1'`, `true = 'true'`: see asText), and a number as the number it is
    // (UInt8 1/0: `(1 = 1) = 2` is 0), as on DuckDB.
    // (the text 'true' / 'false' as a constant is that boolean, as a property filter's value `'true'` on a boolean field)
    const boolConst = (p: Printed) => (p.isConst && typeof p.constValue === 'string' && /^(true|false)$/i.test(p.constValue) ? h.param(p.constValue.toLowerCase() === 'true') : undefined);
    const lb = l.type === 'bool' && isStrLike(r) ? boolConst(r) : undefined;
    if (lb !== undefined) return [l.sql, lb];
    const rb = r.type === 'bool' && isStrLike(l) ? boolConst(l) : undefined;
    if (rb !== undefined) return [rb, r.sql];
    if (l.type === 'bool' && isStrLike(r)) return [asText(l), r.sql];
    if (isStrLike(l) && r.type === 'bool') return [l.sql, asText(r)];

    if (isNum(l) && isStrLike(r)) return [l.sql, num(r)];
    if (isStrLike(l) && isNum(r)) return [num(l), r.sql];
    if (l.type === 'uuid' && r.type !== 'uuid') return [`toString(${l.sql})`, `lower(${r.sql})`];
    if (r.type === 'uuid' && l.type !== 'uuid') return [`lower(${l.sql})`, `toString(${r.sql})`];
    return [l.sql, r.sql];
  }

  compare(op: CompareOp, l: Printed, r: Printed, h: Helpers, node: NodeBase): Printed {
    if (op === '==' || op === '!=') {
      const isNull = (p: Printed) => p.type === 'null';
      if (isNull(r) || isNull(l)) {
        const other = isNull(r) ? l : r;
        if (isNull(other)) return P(op === '==' ? '1' : '0', 'bool', false);
        return this.nullTest(other, op === '!=');
      }
    }
    const negative = op === '!=' || op === 'not like' || op === 'not ilike' || op === 'not in' || op === '!~' || op === '!~*';
    let sql: string;
    let joinSql: string | undefined;
    let timeBounds: TimeBound[] | undefined;
    let residual: string | undefined;
    if (op === 'in' || op === 'not in') {
      if (r.arrayIn) sql = `${op === 'not in' ? 'NOT ' : ''}has(${r.sql}, ${l.sql})`;
      else if (r.list) {
        let left = l.sql;
        const items = r.list.map((it) => {
          const [a, b] = this.coerce(l, it, h, node);
          left = a;
          return b;
        });
        sql = `${left} ${op === 'in' ? 'IN' : 'NOT IN'} (${items.join(', ')})`;
        const ev = op === 'in' && r.list.every((it) => it.isConst && it.type === 'string') ? EVENT_COL.exec(l.sql) : null;
        if (ev) {
          timeBounds = [{ aliasSql: ev[1], column: 'event', op: 'in', value: `(${items.join(', ')})` }];
          residual = '1';
        }
      } else {
        // A subquery of text (a DISTINCT person id is deduplicated as text: distinctKey) against a UUID: 18.16 wants
        // the same type on both sides of IN.
        const left = l.type === 'uuid' && isStrLike(r) ? `toString(${l.sql})` : l.sql;
        sql = `${left} ${op === 'in' ? 'IN' : 'NOT IN'} ${r.sql}`;
      }
    } else if (op === '=~' || op === '!~' || op === '=~*' || op === '!~*') {
      // a constant pattern with an inline (?i) flag: wrapped as the match() function's is, so that 18.16 honours it
      const inlineCi = !op.endsWith('*') && r.isConst && typeof r.constValue === 'string' && /\(\?[a-zA-Z]*i/.test(r.constValue);
      const pattern = op.endsWith('*') ? caseInsensitivePattern(r.sql, h) : inlineCi ? h.param(`(?:${r.constValue})${NEVER_MATCHES}`) : r.sql;
      const re = `match(${l.sql}, ${pattern})`;
      sql = op.startsWith('!') ? `NOT ${re}` : re;
    } else if (op === 'like' || op === 'not like') {
      const left = isStrLike(l) || l.type === 'unknown' ? l.sql : asText(l);
      sql = `${left} ${op === 'like' ? 'LIKE' : 'NOT LIKE'} ${r.sql}`;
    } else if (op === 'ilike' || op === 'not ilike') {
      const left = isStrLike(l) || l.type === 'unknown' ? l.sql : asText(l);
      sql = `lowerUTF8(${left}) ${op === 'ilike' ? 'LIKE' : 'NOT LIKE'} lowerUTF8(${r.sql})`;
    } else {
      const [a, b] = this.coerce(l, r, h, node);
      sql = `${a} ${op === '==' ? '=' : op === '!=' ? '!=' : op} ${b}`;
      const tb = this.timeBound(op, l, r, a, b, h.timezone);
      timeBounds = tb?.bounds;
      if (tb?.exact) residual = '1';
      // `event = '<name>'`: repeated inside the guarded reference too (`event` is in the primary key); the stored
      // column is the one compared, so the bound is the whole condition.
      const ev = op === '==' && !timeBounds ? (r.isConst && r.type === 'string' ? EVENT_COL.exec(l.sql) : l.isConst && l.type === 'string' ? EVENT_COL.exec(r.sql) : null) : null;
      if (ev) {
        timeBounds = [{ aliasSql: ev[1], column: 'event', op: '=', value: EVENT_COL.test(l.sql) ? b : a }];
        residual = '1';
      }
      // In JOIN ... ON a NULL comparison already excludes the row, so the plain equality means the same thing.
      // Both keys are wrapped in identity(): ClickHouse 18.16 corrupts memory (and can crash) when a query selects
      // a right-hand join key column that has the same name as the left one; a key expression avoids that path.
      if (op === '==') joinSql = `identity(${a}) = identity(${b})`;
    }
    const nullable = l.nullable || r.nullable;
    const extra: Partial<Printed> = { ...(joinSql ? { joinSql } : {}), ...(timeBounds ? { timeBounds } : {}), ...(timeBounds && residual ? { residual } : {}) };
    if (!nullable) return P(`(${sql})`, 'bool', false, extra);
    return P(`ifNull(${sql}, ${negative ? '1' : '0'})`, 'bool', false, extra);
  }

  /**
   * `<alias>.timestamp <op> <constant>` (either way round): the same bound on the stored whole-second column, which
   * the guarded events reference repeats next to the project guard so ClickHouse prunes partitions and key ranges
   * (the epoch-ms expression the outer query compares cannot use the key). `t_ms >= X` implies `t_s >= floor(X/1000)`,
   * `t_ms <= X` implies `t_s <= floor(X/1000)`: the bound never drops a row the comparison keeps.
   *
   * `exact`: the stored-second bound keeps exactly the rows the comparison keeps, because the constant's millisecond
   * part is known: `t_ms >= X` with X on a whole second is `t_s >= X/1000`, `t_ms < X` is `t_s < X/1000`; with X at
   * .999, `t_ms <= X` is `t_s <= floor(X/1000)` and `t_ms > X` is `t_s > floor(X/1000)` (t_ms = t_s·1000 + 0..999).
   */
  private timeBound(op: CompareOp, l: Printed, r: Printed, lSql: string, rSql: string, tz: string): { bounds: TimeBound[]; exact: boolean } | undefined {
    const col = /^(`(?:[^`\\]|\\.)*`)\.`timestamp`$/;
    const flip: Partial<Record<CompareOp, CompareOp>> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '==': '==' };
    // Constant: a bound value, or an expression without column references (columns are always quoted; bound
    // strings are still placeholders here, so a backquote can only come from an identifier).
    const constant = (p: Printed) => p.isConst || !p.sql.includes('`');
    let m = l.type === 'datetime' && constant(r) ? col.exec(l.sql) : null;
    let value = rSql;
    let o: CompareOp | undefined = op;
    if (!m && r.type === 'datetime' && constant(l)) {
      m = col.exec(r.sql);
      value = lSql;
      o = flip[op];
    }
    if (!m || !o) return undefined;
    // A bound that may be NULL (toDateTime of text that is no datetime) matches no row: 18.16 cannot compare a stored
    // DateTime with a Nullable one ("not of fixed size"), so such comparisons stay outside.
    if (/\bNULL\b|OrNull\(/.test(value)) return undefined;
    const rem = msRemainder(value === rSql ? r : l);
    // On a UTC day boundary (`>=`/`<` midnight, `<=`/`>` 23:59:59.999, as insight date ranges in UTC are) the date of
    // the stored column decides alone: the bound is then only `toDate(timestamp) <op> <date>`, one comparison a row
    // less (the partition and the primary key prune on it as before).
    const ms = utcEpochMs(value === rSql ? r : l, tz);
    if (ms !== undefined && (o === '>=' || o === '<' ? ms % DAY_MS === 0 : (o === '<=' || o === '>') && (ms + 1) % DAY_MS === 0))
      return { bounds: [{ aliasSql: m[1], op: o as '>=' | '<' | '<=' | '>', value: `toDateTime(intDiv(${value}, 1000), 'UTC')`, dateOnly: true }], exact: true };
    let bound: TimeBound['op'] | undefined = o === '>' || o === '>=' ? '>=' : o === '<' || o === '<=' ? '<=' : o === '==' ? '=' : undefined;
    if (!bound) return undefined;
    let exact = false;
    if ((o === '>=' && rem === 0) || (o === '<=' && rem === 999)) exact = true;
    else if ((o === '>' && rem === 999) || (o === '<' && rem === 0)) [bound, exact] = [o, true];
    return { bounds: [{ aliasSql: m[1], op: bound, value: `toDateTime(intDiv(${value}, 1000), 'UTC')` }], exact };
  }

  /**
   * `isNull(x)` / `isNotNull(x)` (negated). On the override-resolved events person id this tests the stored column
   * (NULL exactly when the resolved one is), and the test goes inside the guarded reference as a PREWHERE: a part of
   * a query about personless events then reads one column of the others.
   */
  private nullTest(p: Printed, negated: boolean): Printed {
    const stored = p.nullTest && p.nullTest.of === p.sql ? p.nullTest.sql : undefined;
    const sql = `${negated ? 'isNotNull' : 'isNull'}(${stored ?? p.sql})`;
    const m = stored ? PERSON_ID_COL.exec(stored) : null;
    if (!m) return P(sql, 'bool', false);
    return P(sql, 'bool', false, { timeBounds: [{ aliasSql: m[1], column: 'person_id', op: negated ? 'isNotNull' : 'isNull', value: '' }], residual: '1' });
  }

  between(x: Printed, lo: Printed, hi: Printed, negated: boolean, h: Helpers): Printed {
    const node = {};
    const [a, b] = this.coerce(x, lo, h, node);
    const [a2, c] = this.coerce(x, hi, h, node);
    const sql = negated ? `(${a} < ${b} OR ${a2} > ${c})` : `(${a} >= ${b} AND ${a2} <= ${c})`;
    const nullable = x.nullable || lo.nullable || hi.nullable;
    return nullable ? P(`ifNull(${sql}, ${negated ? '1' : '0'})`, 'bool', false) : P(sql, 'bool', false);
  }

  interval(unit: IntervalUnit, count: Printed): Printed {
    return P(`toInt64(${count.sql})`, 'interval', false, { intervalUnit: unit });
  }

  arithmetic(op: ArithmeticOp, l: Printed, r: Printed, h: Helpers, node: NodeBase): Printed {
    const nullable = l.nullable || r.nullable;
    if (r.type === 'interval' && (op === '+' || op === '-')) {
      const unit = r.intervalUnit ?? 'second';
      const fn = op === '+' ? 'plus' : 'minus';
      // 18.16 has no toIntervalQuarter: a quarter is 3 months
      const iv = unit === 'quarter' ? `toIntervalMonth(${r.sql} * 3)` : `toInterval${CH_UNIT[unit]}(${r.sql})`;
      // a Date moved by hours, minutes or seconds is a datetime (ClickHouse's addHours(Date) is a DateTime)
      if (l.type === 'date' && !SUB_DAY_MS[unit]) return P(`toDate(${fn}(${l.sql}, ${iv}))`, 'date', nullable);
      const base = this.dt(l, h, node);
      if (SUB_DAY_MS[unit]) return P(`(${base} ${op} ${r.sql} * ${SUB_DAY_MS[unit]})`, 'datetime', nullable);
      // Calendar units move the local wall clock (DST-aware); the sub-second part is kept.
      return P(
        `(${this.ms(`${fn}(${this.local(base, h)}, ${iv})`)} + (${base} % 1000))`,
        'datetime',
        nullable,
      );
    }
    if (l.type === 'interval' && op === '+' && r.type !== 'interval') return this.arithmetic(op, r, l, h, node);
    if (l.type === 'interval' || r.type === 'interval') return h.error('Interval arithmetic needs a datetime or date on the left', node);
    if (l.type === 'datetime' && r.type === 'datetime' && op === '-') return P(`((${l.sql} - ${r.sql}) / 1000)`, 'float', nullable);
    if (l.type === 'date' && isNum(r) && (op === '+' || op === '-')) return P(`(${l.sql} ${op} ${r.sql})`, 'date', nullable);
    if (l.type === 'date' && r.type === 'date' && op === '-') return P(`toInt64(${l.sql} - ${r.sql})`, 'int', nullable);
    const type: PType =
      l.type === 'unknown' || r.type === 'unknown'
        ? 'unknown'
        : op === '/' || l.type === 'float' || r.type === 'float' || isStrLike(l) || isStrLike(r)
          ? 'float'
          : 'int';
    const fn = { '+': 'plus', '-': 'minus', '*': 'multiply', '/': 'divide', '%': 'modulo' }[op];
    // The remainder of a float keeps its fraction (current ClickHouse: 7.5 % 2 = 1.5, the dividend's sign); 18.16's
    // modulo truncates floats to integers first
    if (op === '%' && (l.type === 'float' || r.type === 'float'))
      return P(`minus(${num(l)}, multiply(${num(r)}, trunc(divide(${num(l)}, ${num(r)}))))`, 'float', nullable);
    return P(`${fn}(${num(l)}, ${num(r)})`, type, nullable || isStrLike(l) || isStrLike(r));
  }

  lambda(args: string[], body: Printed): Printed {
    return P(`${args.length === 1 ? q(args[0]) : `(${args.map(q).join(', ')})`} -> ${body.sql}`, 'unknown', true);
  }

  arrayAccess(arr: Printed, index: Printed): Printed {
    // typed as on DuckDB: an element of a known non-Nullable type is of that type (out of bounds, its default)
    const d = elementDefault(arr);
    if (d) return P(`arrayElement(${arr.sql}, ${index.sql})`, d.type, index.nullable, { chType: d.chType });
    return P(`arrayElement(${arr.sql}, ${index.sql})`, 'unknown', true, arrayElementTyping(arr));
  }

  /** The index is an integer the compiler checked (tupleElement needs a constant index). */
  tupleElement(t: Printed, index: number): Printed {
    return P(`tupleElement(${t.sql}, ${index})`, 'unknown', true);
  }

  // ---------------------------------------------------------------------------------------- tables
  /**
   * `personId`: the events reference also exposes the stored `person_id` as `__person_id` (no overrides to apply).
   * `columns`: the events columns read outside (see {@link TableNeeds.columns}); unset: all of them.
   */
  private baseTable(table: string, alias: string, projectParam: string, bounds: TimeBound[] = [], personId = false, columns?: ReadonlySet<string>): string {
    const a = q(alias);
    const cols = (CH_TABLE_COLUMNS[table] ?? []).map((c) =>
      c.datetime
        ? `(toInt64(toUInt32(${a}.${q(c.name)})) * 1000 + ${a}.${q(`${c.name}_ms`)}) AS ${q(c.name)}`
        : `${a}.${q(c.name)} AS ${q(c.name)}`,
    );
    if (cols.length === 0) throw new Error(`no ClickHouse column list for table ${table}`);
    const final = REPLACING.has(table) ? ' FINAL' : '';
    const live = REPLACING.has(table) ? ` AND ${a}.${q('is_deleted')} = 0` : '';
    if (table === 'events') {
      // Inside this SELECT the epoch-ms alias `timestamp` shadows the stored column (18.16's alias rules), so the
      // stored column is read one level down: its bounds, which ClickHouse applies to the partition and primary key,
      // and the stored value itself, exposed as `__timestamp_s` for calendar functions (see `storedSeconds`).
      // Both spellings of a time bound: `timestamp` prunes partitions (minmax), `toDate(timestamp)` the primary key
      // (18.16 does not derive the key range from the raw column through the monotonic toDate); `<`/`>` prune the key
      // as `<=`/`>=` on the date.
      // Null tests of the stored person id are a PREWHERE: ClickHouse reads the other columns only where it holds.
      // The inner SELECT keeps the usual guard shape (`FROM t AS a WHERE a.project_id = ...`).
      const c = (name: string) => `${a}.${q(name)}`;
      const dateOp = (op: string) => (op === '<' ? '<=' : op === '>' ? '>=' : op);
      const where = [
        `${c('project_id')} = ${projectParam}`,
        ...bounds.flatMap((b) =>
          b.column === 'event'
            ? [`${c('event')} ${b.op === 'in' ? 'IN' : '='} ${b.value}`]
            : b.column === 'person_id'
              ? []
              : b.dateOnly
                ? [`toDate(${c('timestamp')}) ${b.op} toDate(${b.value})`]
                : [`${c('timestamp')} ${b.op} ${b.value}`, `toDate(${c('timestamp')}) ${dateOp(b.op)} toDate(${b.value})`],
        ),
      ];
      const nullTests = [...new Set(bounds.filter((b) => b.column === 'person_id').map((b) => `${b.op === 'isNull' ? 'isNull' : 'isNotNull'}(${c('person_id')})`))];
      const prewhere = nullTests.length ? ` PREWHERE ${nullTests.join(' AND ')}` : '';
      if (columns && !columns.has('timestamp') && !columns.has('created_at')) {
        // No epoch-ms alias is needed, so nothing shadows the stored `timestamp`: one SELECT reads only the columns
        // used, the stored seconds and the bounds (ClickHouse then skips the extra projection levels per block).
        const flat = (CH_TABLE_COLUMNS.events ?? []).filter((x) => columns.has(x.name)).map((x) => `${c(x.name)} AS ${q(x.name)}`);
        flat.push(`${c('timestamp')} AS ${q('__timestamp_s')}`);
        if (personId) flat.push(`${c('person_id')} AS ${q('__person_id')}`);
        return `SELECT ${flat.join(', ')} FROM ${q(table)} AS ${a}${prewhere} WHERE ${where.join(' AND ')}`;
      }
      cols.push(`${a}.${q('__timestamp_s')} AS ${q('__timestamp_s')}`);
      if (personId) cols.push(`${a}.${q('person_id')} AS ${q('__person_id')}`);
      return (
        `SELECT ${cols.join(', ')} FROM (SELECT *, ${c('timestamp')} AS ${q('__timestamp_s')} FROM ${q(table)} AS ${a}${prewhere}` +
        ` WHERE ${where.join(' AND ')}) AS ${a}`
      );
    }
    return `SELECT ${cols.join(', ')} FROM ${q(table)} AS ${a}${final} WHERE ${a}.${q('project_id')} = ${projectParam}${live}`;
  }

  /**
   * ClickHouse 18.16 allows one JOIN per SELECT, so the lazy joins nest: events ⋈ overrides gives
   * `__person_id`, then that ⋈ persons gives `__person_<field>`. Every engine table inside is guarded by the same
   * bound project id. Both right-hand sides hold one row per join key (FINAL over a ReplacingMergeTree ordered by
   * (project_id, key), live rows only; a cluster shards each by that key), so `ANY LEFT JOIN` gives the same rows as
   * `ALL` while skipping the multi-match bookkeeping.
   */
  guardedTable(table: string, alias: string, projectParam: string, needs: TableNeeds): string {
    const a = q(alias);
    const isEvents = table === 'events';
    const needPersonId = needs.personId || (isEvents && needs.personFields.length > 0);
    const overrides = isEvents && needPersonId && needs.personOverrides !== false;
    // An event stored without a person takes the person its distinct id maps to now (TableNeeds.personless): one more
    // level, joining person_distinct_ids on the distinct id (its rows move with merges: no override to apply there).
    const fallback = isEvents && needPersonId && needs.personless === true;
    // Without overrides the events' person id is the stored one: exposed by the same SELECT (one level less to run).
    // The overrides join reads the stored `person_id` of the events reference.
    const pdiPerson = needs.pdiPersonFields ?? [];
    const pdi = isEvents && (!!needs.pdiFields?.length || pdiPerson.length > 0);
    // persons.pdi: the person's distinct ids, an inner join (a person reads once per distinct id of theirs).
    const personsPdi = table === 'persons' && !!needs.pdiFields?.length;
    // The lazy joins read the stored `person_id` (overrides) and `distinct_id` (pdi) of the events reference.
    const session = isEvents && needs.session?.fields.length ? needs.session : undefined;
    const groups = isEvents ? (needs.groups ?? []).filter((g) => g.fields.length) : [];
    const keys = [
      ...(overrides || fallback ? ['person_id'] : []),
      ...(pdi || fallback ? ['distinct_id'] : []),
      ...(personsPdi ? ['id'] : []),
      ...(session ? ['$session_id'] : []),
      ...(groups.length ? ['properties'] : []),
    ];
    const columns = needs.columns && keys.length ? new Set([...needs.columns, ...keys]) : needs.columns;
    let sql = this.baseTable(table, alias, projectParam, needs.timeBounds, isEvents && needPersonId && !overrides && !fallback, columns);
    if (fallback) sql = this.lazyJoin(sql, '__k', '__plpdi', this.baseTable('person_distinct_ids', '__d', projectParam), ['person_id'], 'distinct_id', q('distinct_id'));
    const stored = (b: string) => (fallback ? `${q(b)}.${q('person_id')}, ${q(b)}.${q('__plpdi_person_id')}` : `${q(b)}.${q('person_id')}`);
    if (overrides) {
      sql =
        `SELECT ${q('__b')}.*, coalesce(${q('__override')}.${q('override_person_id')}, ${stored('__b')}) AS ${q('__person_id')}` +
        ` FROM (${sql}) AS ${q('__b')} ANY LEFT JOIN (${this.baseTable('person_overrides', '__o', projectParam)}) AS ${q('__override')}` +
        ` ON ${q('__override')}.${q('old_person_id')} = ${q('__b')}.${q('person_id')}`;
    } else if (fallback) {
      sql = `SELECT ${q('__b')}.*, coalesce(${stored('__b')}) AS ${q('__person_id')} FROM (${sql}) AS ${q('__b')}`;
    } else if (needPersonId && !isEvents) {
      sql = `SELECT ${q('__b')}.*, ${q('__b')}.${q('person_id')} AS ${q('__person_id')} FROM (${sql}) AS ${q('__b')}`;
    }
    if (needs.personFields.length) {
      const key = isEvents ? q('__person_id') : q('person_id');
      const fields = needs.personFields.map((f) => `${q('__person')}.${q(f)} AS ${q(`__person_${f}`)}`);
      sql =
        `SELECT ${q('__c')}.*, ${fields.join(', ')} FROM (${sql}) AS ${q('__c')}` +
        ` ANY LEFT JOIN (${this.baseTable('persons', '__p', projectParam)}) AS ${q('__person')} ON ${q('__person')}.${q('id')} = ${q('__c')}.${key}`;
    }
    if (pdi) {
      // events.pdi, then its person: one more level each. The right-hand columns get unique names (`__pdi_<column>`),
      // as 18.16 fails on right-hand columns named like left-hand ones.
      const pdiCols = [...new Set([...(needs.pdiFields ?? []), ...(pdiPerson.length ? ['person_id'] : [])])];
      sql = this.lazyJoin(sql, '__e', '__pdi', this.baseTable('person_distinct_ids', '__d', projectParam), pdiCols, 'distinct_id', q('distinct_id'));
      if (pdiPerson.length)
        sql = this.lazyJoin(sql, '__f', '__pdiperson', this.baseTable('persons', '__pp', projectParam), pdiPerson, 'id', q('__pdi_person_id'));
    }
    if (personsPdi)
      sql = this.lazyJoin(sql, '__e', '__pdi', this.baseTable('person_distinct_ids', '__d', projectParam), needs.pdiFields!, 'person_id', q('id'), undefined, 'ALL INNER JOIN');
    // events.session: the compiled sessions query (its own events reference is guarded), one row per session id.
    if (session) sql = this.lazyJoin(sql, '__g', '__session', session.sql, session.fields, 'session_id', q('$session_id'), SESSION_LIST_FIELDS);
    // events.group_N: the project's group of type N whose key is the event's `$group_N`. The key is a column of its own
    // one level down (18.16 joins on columns).
    for (const g of groups) {
      const h = q(`__h${g.index}`);
      const src = q(`__group${g.index}src`);
      sql = `SELECT ${h}.*, ${g.key(`${h}.${q('properties')}`)} AS ${src} FROM (${sql}) AS ${h}`;
      const right = `SELECT * FROM (${this.baseTable('groups', `__gr${g.index}`, projectParam)}) WHERE ${q('group_type_index')} = ${g.index}`;
      sql = this.lazyJoin(sql, `__i${g.index}`, `__group${g.index}`, right, g.fields, 'group_key', src);
    }
    return `(${sql}) AS ${a}`;
  }

  /**
   * `left` (a SELECT) with the columns `cols` of `right` (a SELECT) added as `<prefix>_<column>`, joined on
   * `right.<key> = left.<leftKey>` (one row per key on the right, or none: then NULL; `join` ALL INNER JOIN: every
   * matching row, rows without a match dropped). The key is matched under a
   * name of its own (`<prefix>key`): 18.16 fills a right-hand ON key column of a row without a match from the
   * left-hand key (or its default) rather than with NULL. The `lists` columns are `Array(String)`, which
   * join_use_nulls cannot make Nullable ("Nested type Array(String) cannot be inside Nullable type"): they cross the
   * join as their text and are parsed back, `[]` for a row without a match (as on DuckDB).
   */
  private lazyJoin(left: string, leftAlias: string, prefix: string, right: string, cols: string[], key: string, leftKey: string, lists?: ReadonlySet<string>, join = 'ANY LEFT JOIN'): string {
    const r = q(prefix);
    const named = (c: string) => q(`${prefix}_${c}`);
    const k = q(`${prefix}key`);
    const isList = (c: string) => !!lists?.has(c);
    const outer = (c: string) => (isList(c) ? `CAST(ifNull(${r}.${named(c)}, '[]') AS Array(String))` : `${r}.${named(c)}`);
    const inner = (c: string) => (isList(c) ? `toString(${q(c)})` : q(c));
    return (
      `SELECT ${q(leftAlias)}.*, ${cols.map((c) => `${outer(c)} AS ${named(c)}`).join(', ')} FROM (${left}) AS ${q(leftAlias)}` +
      ` ${join} (SELECT ${q(key)} AS ${k}, ${cols.map((c) => `${inner(c)} AS ${named(c)}`).join(', ')} FROM (${right})) AS ${r}` +
      ` ON ${r}.${k} = ${q(leftAlias)}.${leftKey}`
    );
  }

  lazyColumn(alias: string, name: string): string {
    return `${q(alias)}.${q(`__${name}`)}`;
  }

  /** `trim(LEADING|TRAILING|BOTH chars FROM s)`: the characters of a constant `chars` removed from that end (18.16's trim takes none). */
  private trimChars(a: Printed[], side: 'left' | 'right' | 'both', h: Helpers, n: NodeBase): Printed {
    const chars = a[1];
    if (!chars.isConst || typeof chars.constValue !== 'string') return h.error('The characters to trim must be a constant string', n);
    if (chars.constValue === '') return a[0];
    const set = `[${chars.constValue.replace(/[\\\]\[^-]/g, (c) => `\\${c}`)}]+`;
    const pattern = side === 'left' ? `^${set}` : side === 'right' ? `${set}$` : `^${set}|${set}$`;
    return P(`replaceRegexpAll(${a[0].sql}, ${h.param(pattern)}, ${h.param('')})`, 'string', a[0].nullable);
  }

  numbersTable(offset: number, count: number): string {
    // (18.16 reads numbers(offset, 0) as an endless series)
    if (count === 0) return `SELECT ${q('number')} FROM numbers(1) WHERE 0`;
    return `SELECT ${q('number')} FROM numbers(${offset}, ${count})`;
  }

  /**
   * Native ARRAY JOIN after the FROM clause (18.16 takes it after a JOIN too); aliases are unique per query. LEFT ARRAY
   * JOIN joins Nullable elements, so a row whose array is empty reads NULL (as on DuckDB) rather than the type's default.
   */
  arrayJoinFrom(from: string, tables: string[], items: { name: string; sql: string }[], left: boolean, id: number): string {
    // 18.16 joins the arrays to the first table before any JOIN runs: arrays may read that table only.
    const later = tables.slice(1);
    if (items.some((i) => later.some((t) => i.sql.includes(`${t}.`))))
      throw productqlError('On ClickHouse, ARRAY JOIN arrays may only read the first table of the FROM clause');
    const arr = (sql: string) => (left ? `arrayMap(${q('__x')} -> toNullable(${q('__x')}), ${sql})` : sql);
    return `${from} ${left ? 'LEFT ARRAY JOIN' : 'ARRAY JOIN'} ${items.map((i) => `${arr(i.sql)} AS ${this.arrayJoinRef(id, i.name)}`).join(', ')}`;
  }

  arrayJoinRef(id: number, name: string): string {
    return q(`__aj${id}_${name}`);
  }

  sampleCondition(distinctIdSql: string, ratio: number, offset: number): string {
    const h = `(cityHash64(${distinctIdSql}) % ${SAMPLE_BUCKETS})`;
    return `(${h} >= ${Math.floor(offset * SAMPLE_BUCKETS)} AND ${h} < ${Math.min(SAMPLE_BUCKETS, Math.floor((offset + ratio) * SAMPLE_BUCKETS))})`;
  }

  /** The stored person id (every level of the guarded reference selects it): NULL exactly when the resolved one is. */
  lazyPersonIdNullTest(alias: string): string {
    return `${q(alias)}.${q('person_id')}`;
  }

  /** events.timestamp: the stored whole-second DateTime the guarded reference exposes as `__timestamp_s`. */
  storedSeconds(table: string, column: string, alias: string): string | undefined {
    return table === 'events' && column === 'timestamp' ? `${q(alias)}.${q('__timestamp_s')}` : undefined;
  }

  /**
   * toDecimal(x, S), toDecimal32/64/128[OrNull|OrZero](x, S) (dialect.ts decimalConversionOf), computed in Float64 as on
   * DuckDB (the same digits on both engines; 18.16's Decimal types are experimental).
   */
  private decimalConversion(x: Printed, d: DecimalConversion, h: Helpers, n: NodeBase): Printed {
    let v: string;
    if (x.type === 'null') v = 'CAST(NULL AS Nullable(Float64))';
    else if (isNum(x)) v = `(trunc(toFloat64(${x.sql}) * 1e${d.scale}) / 1e${d.scale})`;
    else if (isStrLike(x) || x.type === 'unknown') v = `toFloat64OrNull(replaceRegexpOne(toString(${x.sql}), ${h.param(decimalTextPattern(d.scale))}, ${h.param('\\1')}))`;
    else return h.error(`Cannot convert a ${x.type} value to a decimal`, n);
    // (18.16's `if` takes neither a Nullable condition nor a Nullable branch beside NULL)
    const sql = `if(ifNull(abs(${v}) < 1e${d.precision - d.scale}, 0), assumeNotNull(${v}), NULL)`;
    return d.orZero ? P(`ifNull(${sql}, 0)`, 'float', false, { chType: d.typeName }) : P(sql, 'float', d.nullable(x), { chType: d.typeName });
  }

  /** `<aggregate>OrNull`, `-OrDefault`, `-Array`, `-ForEach`, `-State`, `-Merge` (FunctionSignature.orOf, arrayOf, forEachOf, stateOf, mergeOf). */
  private aggregateCombinator(fn: FunctionCall, h: Helpers): Printed {
    if (fn.over) return h.error(`Window functions are not available on ClickHouse (function "${fn.sig.name}" with OVER)`, fn.node);
    if (fn.sig.orOf) {
      const { value, count } = orCombinatorParts(fn);
      const v = this.call(value, h);
      const dflt = fn.sig.orOf.mode === 'null' ? 'NULL' : aggregateDefault(v, (x) => h.param(x));
      if (dflt === undefined) return v;
      // (18.16's `if` takes no Nullable branch beside a NULL one; with a value counted the aggregate has one)
      return P(`if(${this.call(count, h).sql} = 0, ${dflt}, assumeNotNull(${v.sql}))`, v.type, fn.sig.orOf.mode === 'null', v.chType ? { chType: v.chType } : {});
    }
    if (fn.sig.stateOf || fn.sig.mergeOf) {
      // natively (-StateIf / -MergeIf with a condition); uniq is exact, as everywhere in Quarry
      const name = (fn.sig.stateOf ?? fn.sig.mergeOf) === 'uniq' ? 'uniqExact' : (fn.sig.stateOf ?? fn.sig.mergeOf)!;
      const comb = fn.sig.stateOf ? 'State' : 'Merge';
      const args = fn.sig.stateOf && (name === 'sum' || name === 'avg') ? a0num(fn) : fn.args.map((x) => x.sql);
      const sql = fn.filter ? `${name}${comb}If(${[...args, fn.filter].join(', ')})` : `${name}${comb}(${args.join(', ')})`;
      if (fn.sig.stateOf) return P(sql, 'unknown', false);
      if (name === 'count' || name === 'uniqExact') return P(sql, 'int', false, { chType: 'UInt64' });
      return P(sql, name === 'sum' || name === 'avg' ? 'float' : 'unknown', true);
    }
    if (fn.sig.forEachOf) {
      const x = fn.args[0].sql;
      return P(fn.filter ? `${fn.sig.forEachOf}ForEachIf(${x}, ${fn.filter})` : `${fn.sig.forEachOf}ForEach(${x})`, 'array', false);
    }
    // -Array natively (-ArrayIf with a condition); uniq is exact, as everywhere in Quarry
    const base = fn.sig.arrayOf === 'uniq' ? 'uniqExact' : fn.sig.arrayOf!;
    const x = fn.args[0].sql;
    const sql = fn.filter ? `${base}ArrayIf(${x}, ${fn.filter})` : `${base}Array(${x})`;
    switch (base) {
      case 'count':
      case 'uniqExact':
        return P(sql, 'int', false, { chType: 'UInt64' });
      case 'sum':
        return P(sql, 'float', false);
      case 'avg':
        return P(`if(${fn.filter ? `countArrayIf(${x}, ${fn.filter})` : `countArray(${x})`} = 0, NULL, ${sql})`, 'float', true);
      case 'min':
      case 'max':
        return P(`if(${fn.filter ? `countArrayIf(${x}, ${fn.filter})` : `countArray(${x})`} = 0, NULL, ${sql})`, 'unknown', true);
      default:
        return P(sql, 'array', false, sameArrayTyping(fn.args[0]));
    }
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
    if (intConv) {
      // toInt's value, wrapped into the width by ClickHouse's own integer conversion
      const v = this.call({ ...fn, sig: lookupFunction('toInt')!, args: a.slice(0, 1), raw: fn.raw.slice(0, 1) }, h);
      const name = intTypeName(intConv);
      const sql = name === 'Int64' ? v.sql : `to${name}(${v.sql})`;
      return intConv.orZero ? P(`ifNull(${sql}, 0)`, 'int', false, { chType: name }) : P(sql, 'int', intConv.nullable(a[0]), { chType: name });
    }
    const dec = decimalConversionOf(fn.sig.name, a[1], h, n);
    if (dec) return this.decimalConversion(a[0], dec, h, n);
    const s = (i: number) => a[i].sql;
    const anyNull = a.some((x) => x.nullable);
    // a condition of if / multiIf: NULL reads as false (ClickHouse's if; 18.16 would answer NULL)
    const cond = (x: Printed) => (x.nullable || x.type === 'null' ? `ifNull(${x.sql}, 0)` : x.sql);
    if (fn.sig.kind === 'window' || fn.over) return h.error(`Window functions are not available on ClickHouse (function "${fn.sig.name}" with OVER)`, n);
    const agg = (name: string, args: string[], type: PType, nullable: boolean, extra?: string, chType?: string): Printed => {
      const conds = [extra, fn.filter].filter((x): x is string => !!x);
      if (fn.distinct && args.length === 1) {
        // 18.16 has no -Distinct combinator: the aggregate of the set of distinct values
        const set = conds.length ? `groupUniqArrayIf(${args[0]}, ${conds.join(' AND ')})` : `groupUniqArray(${args[0]})`;
        return P(name === 'groupUniqArray' || name === 'groupArray' ? set : `arrayReduce(${h.param(name)}, ${set})`, type, nullable, chType ? { chType } : {});
      }
      const base = fn.distinct ? `${name}Distinct` : name;
      const sql = conds.length ? `${base}If(${[...args, conds.join(' AND ')].join(', ')})` : `${base}(${args.join(', ')})`;
      return P(sql, type, nullable, chType ? { chType } : {});
    };
    const simple = (name: string, type: PType, nullable = anyNull): Printed => P(`${name}(${a.map((x) => x.sql).join(', ')})`, type, nullable);
    const sameValue = (p: Printed, keyNullable = false): Printed => {
      const { nullable, ...typing } = sameValueTyping(a[0], h.timezone);
      if (fn.distinct) return p;
      return nullable === undefined ? { ...p, ...typing } : { ...p, nullable: nullable || keyNullable, ...typing };
    };
    const tzArg = (i: number): string | undefined => {
      if (a.length <= i) return undefined;
      const t = a[i];
      if (!t.isConst || typeof t.constValue !== 'string' || !validTimezone(t.constValue)) h.error('Timezone must be a valid IANA timezone name', n);
      return t.sql;
    };
    const dtArg = (i: number) => this.dt(a[i], h, n);
    /** The zone calendar work on argument i happens in: an explicit zone argument, else the value's own (toTimeZone). */
    const zoneArg = (i: number, tz?: string): string | undefined => {
      if (tz !== undefined) return tz;
      const z = a[i] ? zoneOf(a[i]) : undefined;
      return z === undefined || z === h.timezone ? undefined : h.param(z);
    };
    const localArg = (i: number, explicitTz?: string) => {
      const tz = zoneArg(i, explicitTz);
      if (a[i].type === 'date') return `toDateTime(${s(i)}, ${tz ?? h.tz()})`;
      // The stored whole-second DateTime, when the argument is an events timestamp (no epoch-ms round trip per row);
      // it is a DateTime('UTC') already, so a UTC project needs no conversion at all.
      const sec = a[i].seconds;
      if (sec && sec.of === a[i].sql) return tz === undefined && h.timezone === 'UTC' ? sec.sql : `toDateTime(${sec.sql}, ${tz ?? h.tz()})`;
      return this.local(dtArg(i), h, tz);
    };
    const uniqArg = () => (a.length === 1 ? s(0) : a.map((x) => x.sql).join(', '));

    switch (fn.sig.name) {
      // ---------------- aggregates
      case 'count':
        if (a.length === 0) return fn.filter ? P(`countIf(${fn.filter})`, 'int', false, { chType: 'UInt64' }) : P('count()', 'int', false, { chType: 'UInt64' });
        if (fn.distinct)
          return P(`ifNull(${fn.filter ? `uniqExactIf(${s(0)}, ${fn.filter})` : `uniqExact(${s(0)})`}, 0)`, 'int', false, { chType: 'UInt64' });
        return P(`ifNull(${agg('count', [s(0)], 'int', false).sql}, 0)`, 'int', false, { chType: 'UInt64' });
      case 'countIf':
        // countIf(DISTINCT x, cond): the distinct non-NULL x where cond holds (ClickHouse's countDistinctIf, uniqExactIf)
        if (a.length === 2 && fn.distinct) return P(`ifNull(uniqExactIf(${s(0)}, ${[s(1), fn.filter].filter(Boolean).join(' AND ')}), 0)`, 'int', false, { chType: 'UInt64' });
        // countIf(x, cond): the non-NULL x where cond holds
        if (a.length === 2) return P(`countIf(${[`isNotNull(${s(0)})`, s(1), fn.filter].filter(Boolean).join(' AND ')})`, 'int', false, { chType: 'UInt64' });
        return P(`countIf(${[s(0), fn.filter].filter(Boolean).join(' AND ')})`, 'int', false, { chType: 'UInt64' });
      case 'uniq':
      case 'uniqExact':
        return P(`ifNull(${fn.filter ? `uniqExactIf(${uniqArg()}, ${fn.filter})` : `uniqExact(${uniqArg()})`}, 0)`, 'int', false, { chType: 'UInt64' });
      case 'uniqIf':
      case 'uniqExactIf':
        return P(`ifNull(uniqExactIf(${s(0)}, ${[s(1), fn.filter].filter(Boolean).join(' AND ')}), 0)`, 'int', false, { chType: 'UInt64' });
      // (over no rows ClickHouse's sum is 0, not NULL: Nullable only when its argument is, as on DuckDB)
      case 'sum':
        return agg('sum', [num(a[0])], numType(a[0]), a[0].nullable);
      case 'sumIf':
        return agg('sum', [num(a[0])], numType(a[0]), a[0].nullable, s(1));
      case 'avg':
        return agg('avg', [num(a[0])], 'float', true);
      case 'avgIf':
        return agg('avg', [num(a[0])], 'float', true, s(1));
      // (min / max / any ... return one of their values: typed as it is (any(true) is Bool), Nullable only when it is)
      case 'min':
      case 'max':
        return sameValue(agg(fn.sig.name, [s(0)], a[0].type, true));
      case 'minIf':
      case 'maxIf':
        return sameValue(agg(fn.sig.name.slice(0, 3), [s(0)], a[0].type, true, s(1)));
      case 'any':
        return sameValue(agg('any', [s(0)], a[0].type, true));
      case 'anyIf':
        return sameValue(agg('any', [s(0)], a[0].type, true, s(1)));
      case 'argMax':
      case 'argMin':
        return sameValue(agg(fn.sig.name, [s(0), s(1)], a[0].type, true), a[1].nullable);
      case 'median':
        return agg('median', [num(a[0])], 'float', true);
      case 'stddevPop':
      case 'stddevSamp':
      case 'varPop':
      case 'varSamp':
        return agg(fn.sig.name, [num(a[0])], 'float', true);
      case 'quantile': {
        const p = fn.params[0];
        if (typeof p.constValue !== 'number' || p.constValue < 0 || p.constValue > 1) h.error('quantile level must be a number between 0 and 1', n);
        // quantileIf(p)(x, cond): the -If condition is the call's filter, as topK's
        return P(fn.filter ? `quantileIf(${p.sql})(${num(a[0])}, ${fn.filter})` : `quantile(${p.sql})(${num(a[0])})`, 'float', true);
      }
      case 'quantiles': {
        for (const p of fn.params)
          if (typeof p.constValue !== 'number' || p.constValue < 0 || p.constValue > 1) h.error('quantile levels must be numbers between 0 and 1', n);
        const levels = fn.params.map((p) => p.sql).join(', ');
        return P(fn.filter ? `quantilesIf(${levels})(${num(a[0])}, ${fn.filter})` : `quantiles(${levels})(${num(a[0])})`, 'array', false);
      }
      case 'groupArray':
      case 'groupUniqArray': {
        const all = agg(fn.sig.name, [s(0)], 'array', false);
        const size = groupArraySize(fn, h);
        return { ...all, sql: size === undefined ? all.sql : `arraySlice(${all.sql}, 1, ${size})`, ...groupArrayTyping(a[0], h.timezone) };
      }

      // ---------------- dates
      case 'now': {
        const now = P(this.ms('now()'), 'datetime', false);
        return a.length ? this.inZone(now, a[0], h, n) : now;
      }
      case 'today':
        return P(`toDate(now(), ${h.tz()})`, 'date', false);
      case 'yesterday':
        return P(`(toDate(now(), ${h.tz()}) - 1)`, 'date', false);
      case 'toDateTime':
        // text that is no datetime is NULL (HogQL: parseDateTime64BestEffortOrNull), so text makes it Nullable
        if (a.length > 1) return this.inZone(a[0], a[1], h, n, true);
        // of a date, number or datetime: a ClickHouse DateTime, whole seconds (Printed.wholeSeconds), Nullable only as its argument
        if (a[0].type === 'date') return P(dtArg(0), 'datetime', a[0].nullable);
        if (['int', 'float', 'datetime'].includes(a[0].type)) return P(`(toInt64(floor(${dtArg(0)} / 1000)) * 1000)`, 'datetime', a[0].nullable);
        return P(this.dt(a[0], h, n, undefined, true), 'datetime', dateTimeNullable(a[0], true));
      case 'toDate': {
        const tz = tzArg(1);
        if (a[0].type === 'date') return a[0];
        // text with a zone: the datetime it is there, then its date there
        if (isStrLike(a[0]) && tz !== undefined) return P(`toDate(${this.local(this.dt(a[0], h, n, tz), h, tz)})`, 'date', true);
        if (isStrLike(a[0])) return P(this.asDate(a[0], h, n), 'date', a[0].nullable || !a[0].isConst);
        return P(`toDate(${localArg(0, tz)})`, 'date', a[0].nullable);
      }
      case 'toTimeZone': {
        tzArg(1);
        // The same instant, shown in the given zone (and read there by calendar functions and toString).
        const zone = a[1].constValue as string;
        return P(dtArg(0), 'datetime', a[0].nullable, { displayTz: zone, chType: `DateTime64(6, '${zone}')` });
      }
      case 'toStartOfMinute':
      case 'toStartOfFiveMinutes':
      case 'toStartOfFifteenMinutes':
      case 'toStartOfHour': {
        const f = fn.sig.name === 'toStartOfFiveMinutes' ? 'toStartOfFiveMinute' : fn.sig.name;
        return P(this.ms(`${f}(${localArg(0)})`), 'datetime', a[0].nullable);
      }
      case 'toStartOfDay':
        return P(this.ms(`toStartOfDay(${localArg(0)})`), 'datetime', a[0].nullable);
      case 'toStartOfWeek': {
        let mode = 0;
        if (a.length > 1) {
          if (!a[1].isConst || typeof a[1].constValue !== 'number') h.error('toStartOfWeek mode must be a constant number', n);
          mode = a[1].constValue;
        }
        const d = `toDate(${localArg(0)})`;
        // Mode 0: weeks start on Sunday; odd modes: Monday (toMonday exists in every release).
        const sql = mode % 2 === 1 ? `toMonday(${d})` : `(${d} - (toDayOfWeek(${d}) % 7))`;
        return P(sql, 'date', a[0].nullable);
      }
      case 'toStartOfMonth':
      case 'toStartOfQuarter':
      case 'toStartOfYear':
        return P(`${fn.sig.name}(toDate(${localArg(0)}))`, 'date', a[0].nullable);
      case 'toYear':
      case 'toMonth':
      case 'toDayOfMonth':
      case 'toDayOfWeek':
      case 'toHour':
      case 'toMinute':
        return P(`toInt64(${fn.sig.name}(${localArg(0)}))`, 'int', a[0].nullable);
      case 'toUnixTimestamp':
        return P(`intDiv(${dtArg(0)}, 1000)`, 'int', a[0].nullable);
      case 'fromUnixTimestamp':
        return P(`toInt64(${num(a[0])} * 1000)`, 'datetime', a[0].nullable);
      case 'dateDiff':
      case 'date_diff': {
        const unit = unitOf(a[0], h, n);
        const x = dtArg(1);
        const y = dtArg(2);
        if (SUB_DAY_MS[unit]) {
          // Boundaries crossed, as DuckDB's date_diff counts them.
          const u = SUB_DAY_MS[unit];
          return P(`toInt64(intDiv(${y}, ${u}) - intDiv(${x}, ${u}) - if(${y} < 0 AND ${y} % ${u} != 0, 1, 0) + if(${x} < 0 AND ${x} % ${u} != 0, 1, 0))`, 'int', a[1].nullable || a[2].nullable);
        }
        const rel: Record<string, string> = { day: 'toRelativeDayNum', week: 'toRelativeWeekNum', month: 'toRelativeMonthNum', year: 'toRelativeYearNum', quarter: 'toRelativeQuarterNum' };
        const f = rel[unit];
        return P(`(toInt64(${f}(${this.local(y, h)})) - toInt64(${f}(${this.local(x, h)})))`, 'int', a[1].nullable || a[2].nullable);
      }

      // ---------------- conditionals
      case 'if': {
        const type = a[1].type === 'null' ? a[2].type : a[1].type;
        return P(`if(${cond(a[0])}, ${s(1)}, ${s(2)})`, type, a[1].nullable || a[2].nullable);
      }
      case 'multiIf': {
        if (a.length % 2 !== 1) h.error('multiIf needs condition/value pairs and a default value', n);
        const vals = a.filter((_, i) => i % 2 === 1 || i === a.length - 1);
        return P(`multiIf(${a.map((x, i) => (i % 2 === 0 && i < a.length - 1 ? cond(x) : x.sql)).join(', ')})`, vals.find((v) => v.type !== 'null')?.type ?? 'null', vals.some((v) => v.nullable));
      }
      case '_caseWithExpression': {
        if (a.length % 2 !== 0) h.error('CASE needs WHEN/THEN pairs and an ELSE value', n);
        const parts: string[] = [];
        for (let i = 1; i + 1 < a.length; i += 2) parts.push(`${s(0)} = ${s(i)}`, s(i + 1));
        parts.push(s(a.length - 1));
        const vals = a.filter((_, i) => (i > 0 && i % 2 === 0) || i === a.length - 1);
        return P(`multiIf(${parts.join(', ')})`, vals.find((v) => v.type !== 'null')?.type ?? 'null', vals.some((v) => v.nullable));
      }
      case 'coalesce':
      case 'ifNull':
        return P(`coalesce(${a.map((x) => x.sql).join(', ')})`, a.find((x) => x.type !== 'null')?.type ?? 'null', a.every((x) => x.nullable));
      case 'nullIf':
        return P(`nullIf(${s(0)}, ${s(1)})`, a[0].type, true);
      case 'isNull':
        return this.nullTest(a[0], false);
      case 'isNotNull':
        return this.nullTest(a[0], true);
      case 'assumeNotNull':
        // ClickHouse's own function (as HogQL prints it): free, and it makes a Nullable key a plain one, which 18.16
        // groups by a faster method. On a NULL its result is unspecified (whatever value is stored under the null);
        // the DuckDB printer keeps NULL. Quarry's runners use it only on rows already filtered to non-null actors.
        return a[0].nullable ? P(`assumeNotNull(${s(0)})`, a[0].type, false) : a[0];

      // ---------------- strings
      case 'lower':
      case 'upper':
        // ASCII letters only, as ClickHouse's own (lowerUTF8 / upperUTF8 change the others)
        return simple(fn.sig.name, 'string');
      case 'trim':
        if (a.length === 2) return this.trimChars(a, 'both', h, n);
        return P(`replaceRegexpAll(${s(0)}, '^\\\\s+|\\\\s+$', '')`, 'string', anyNull);
      case 'reverse':
        if (a[0].type === 'array') return P(`reverse(${s(0)})`, 'array', anyNull, sameArrayTyping(a[0]));
        return simple('reverseUTF8', 'string');
      case 'length':
      case 'empty':
      case 'notEmpty': {
        // length: bytes of a string (lengthUTF8 counts characters), elements of an array; empty/notEmpty either.
        if (fn.sig.name === 'length') return P(`toInt64(length(${s(0)}))`, 'int', anyNull, { chType: 'UInt64' });
        const len = a[0].type === 'array' ? `length(${s(0)})` : `lengthUTF8(${s(0)})`;
        return P(`(${len} ${fn.sig.name === 'empty' ? '=' : '>'} 0)`, 'bool', anyNull);
      }
      case 'concat': {
        // A datetime as toString writes it (PostHog's concat takes toString of each argument that is no string).
        const text = (x: Printed, i: number) =>
          x.type === 'datetime' ? this.call({ ...fn, sig: lookupFunction('toString')!, args: [x], raw: fn.raw.slice(i, i + 1) }, h).sql : asText(x);
        return P(`concat(${a.map((x, i) => (isStrLike(x) || x.type === 'null' ? `ifNull(${x.sql}, '')` : `ifNull(${text(x, i)}, '')`)).join(', ')}${a.length === 1 ? ", ''" : ''})`, 'string', false);
      }
      case 'substring': {
        // 18.16's substringUTF8 takes exactly three arguments, all constant: other calls slice the string's
        // characters as an array (same 1-based semantics).
        const constant = (x: Printed) => x.isConst && typeof x.constValue === 'number' && Number.isInteger(x.constValue) && x.constValue >= 1;
        if (a.length === 3 && constant(a[1]) && constant(a[2])) return P(`substringUTF8(${s(0)}, ${s(1)}, ${s(2)})`, 'string', anyNull);
        const chars = `extractAll(${s(0)}, '(?s).')`;
        const slice = a.length > 2 ? `arraySlice(${chars}, ${num(a[1])}, greatest(${num(a[2])}, 0))` : `arraySlice(${chars}, ${num(a[1])})`;
        return P(`arrayStringConcat(${slice})`, 'string', anyNull);
      }
      case 'replaceAll':
      case 'replace':
        return simple('replaceAll', 'string');
      case 'replaceRegexpAll':
      case 'replaceRegexpOne':
        return simple(fn.sig.name, 'string');
      case 'position':
        // in bytes (positionUTF8 counts characters)
        return P(`toInt64(position(${s(0)}, ${s(1)}))`, 'int', anyNull);
      case 'startsWith':
        return P(`(substring(${s(0)}, 1, length(${s(1)})) = ${s(1)})`, 'bool', anyNull);
      case 'endsWith':
        return P(`(length(${s(0)}) >= length(${s(1)}) AND substring(${s(0)}, length(${s(0)}) - length(${s(1)}) + 1) = ${s(1)})`, 'bool', anyNull);
      case 'like':
        return P(`(${s(0)} LIKE ${s(1)})`, 'bool', anyNull);
      case 'ilike':
        return P(`(lowerUTF8(${s(0)}) LIKE lowerUTF8(${s(1)}))`, 'bool', anyNull);
      case 'notLike':
        return P(`(${s(0)} NOT LIKE ${s(1)})`, 'bool', anyNull);
      case 'notILike':
        return P(`(lowerUTF8(${s(0)}) NOT LIKE lowerUTF8(${s(1)}))`, 'bool', anyNull);
      case 'match':
        // a constant pattern with the case-insensitive flag, wrapped so that 18.16 honours it (caseInsensitivePattern)
        if (a[1].isConst && typeof a[1].constValue === 'string' && /\(\?[a-zA-Z]*i/.test(a[1].constValue))
          return P(`match(${s(0)}, ${h.param(`(?:${a[1].constValue})${NEVER_MATCHES}`)})`, 'bool', anyNull);
        return simple('match', 'bool');
      case 'extract':
        return simple('extract', 'string');
      case 'extractAll':
        return simple('extractAll', 'array');
      case 'regexpExtract': {
        // (18.16 has no regexpExtract) the group of the first match: the pattern after a lazy prefix, read by replaceRegexpOne
        const { pattern, index } = regexpExtractArgs(fn, h);
        if (index > 9) return h.error('regexpExtract reads groups 0 to 9', n);
        const whole = `^(?s:.*?)${index === 0 ? `(${pattern})` : `(?:${pattern})`}(?s:.*)$`;
        return P(`if(match(${s(0)}, ${s(1)}), replaceRegexpOne(${s(0)}, ${h.param(whole)}, ${h.param(`\\${index || 1}`)}), '')`, 'string', a[0].nullable);
      }
      case 'format': {
        // concat without ifNull: NULL when an argument it reads is NULL, as ClickHouse's format
        const text = (x: Printed, i: number) =>
          isStrLike(x) || x.type === 'null' ? x.sql : x.type === 'datetime' ? this.call({ ...fn, sig: lookupFunction('toString')!, args: [x], raw: fn.raw.slice(i, i + 1) }, h).sql : asText(x);
        const pieces = formatTemplate(fn, h);
        const sql = pieces.map((x) => (typeof x === 'string' ? h.param(x) : text(a[x + 1], x + 1)));
        const nullable = pieces.some((x) => typeof x === 'number' && (a[x + 1].nullable || a[x + 1].type === 'null'));
        return P(`concat(${[...sql, ...(sql.length < 2 ? ["''"] : [])].join(', ')})`, 'string', nullable);
      }
      case 'splitByChar':
      case 'splitByString':
        // an empty separator splits into single characters (current ClickHouse; 18.16 refuses it)
        if (a[0].isConst && a[0].constValue === '') return P(`extractAll(${s(1)}, ${h.param('(?s).')})`, 'array', anyNull, { chType: 'Array(String)' });
        return { ...simple(fn.sig.name, 'array'), chType: 'Array(String)' };

      // ---------------- conversions and maths
      case 'toString':
        if (a[0].type === 'datetime') {
          // a DateTime64(6) (timestamp, now(), toDateTime(text)) is written with six decimals (milliseconds here), a DateTime without
          const text = `toString(${this.local(s(0), h, zoneArg(0))})`;
          if (a[0].wholeSeconds) return P(text, 'string', a[0].nullable);
          return P(`concat(${text}, ${h.param('.')}, substring(toString(1000 + (${s(0)} % 1000 + 1000) % 1000), 2, 3), ${h.param('000')})`, 'string', a[0].nullable);
        }
        if (isBoolTyped(a[0])) return P(boolText(a[0]), 'string', a[0].nullable);
        if (a[0].type === 'date' || a[0].type === 'uuid' || isNum(a[0])) return P(`toString(${s(0)})`, 'string', a[0].nullable);
        return P(isStrLike(a[0]) ? s(0) : `toString(${s(0)})`, 'string', a[0].nullable);
      case 'toInt':
      case 'toInt64':
      case 'toInt32':
        if (a[0].type === 'bool') return P(`toInt64(${s(0)})`, 'int', a[0].nullable);
        if (a[0].type === 'datetime') return P(`intDiv(${s(0)}, 1000)`, 'int', a[0].nullable);
        // accurateCastOrNull(x, 'Int64'): a float beyond Int64 (or nan, inf) is NULL, where toInt64 would wrap it
        // (18.16's `if` takes no Nullable condition nor a Nullable branch beside NULL: a NULL x reads false there)
        if (a[0].type === 'float') {
          const inRange = `isFinite(${s(0)}) AND abs(${s(0)}) < 9223372036854775808.`;
          if (!a[0].nullable) return P(`if(${inRange}, toInt64(trunc(${s(0)})), NULL)`, 'int', true);
          return P(`if(ifNull(${inRange}, 0), toInt64(trunc(assumeNotNull(${s(0)}))), NULL)`, 'int', true);
        }
        if (isNum(a[0])) return P(`toInt64(trunc(${s(0)}))`, 'int', true);
        // a Date is its day number
        if (a[0].type === 'date') return P(`toInt64(${s(0)})`, 'int', a[0].nullable);
        // Text is read as an integer or is NULL ('1.5', '1e3', ' 1'), as accurateCastOrNull(x, 'Int64') parses it
        // (18.16's toInt64OrNull wraps digits beyond Int64: such a value is far from the text's float reading, so NULL)
        if (isStrLike(a[0])) {
          const v = `toInt64OrNull(if(match(${s(0)}, ${h.param('^[+-]?[0-9]+$')}), ${s(0)}, ''))`;
          return P(`if(ifNull(abs(toFloat64(${v}) - toFloat64OrNull(replaceRegexpOne(${s(0)}, ${h.param('^[+]')}, ''))) < 1e6, 0), assumeNotNull(${v}), NULL)`, 'int', true);
        }
        return P(`toInt64OrNull(toString(trunc(toFloat64OrNull(${s(0)}))))`, 'int', true);
      case 'toFloat':
      case 'toFloat64':
        return P(isNum(a[0]) ? `toFloat64(${s(0)})` : `toFloat64OrNull(${s(0)})`, 'float', true);
      case 'toUUID':
        // HogQL's toUUID is NULL for text that is not a UUID (toUUIDOrNull), as on DuckDB; 18.16's toUUID throws
        if (a[0].type === 'uuid') return a[0];
        return this.call({ ...fn, sig: { ...fn.sig, name: 'toUUIDOrNull' } }, h);
      case 'toBool':
        return P(isNum(a[0]) ? `(${s(0)} != 0)` : `multiIf(lower(${s(0)}) IN ('true', '1', 't', 'yes', 'y'), 1, lower(${s(0)}) IN ('false', '0', 'f', 'no', 'n'), 0, NULL)`, 'bool', a[0].nullable || !isNum(a[0]), { chType: 'Bool' });
      case 'round': {
        if (numType(a[0]) !== 'float') return P(a.length === 1 ? `round(${num(a[0])})` : `round(${num(a[0])}, ${s(1)})`, 'float', anyNull);
        // A float half-way goes to the even neighbour, as current ClickHouse rounds (18.16 went away from zero)
        const k = a.length > 1 ? roundingDigits(a[1], 'round', h, n) : 0;
        const scale = 10 ** Math.abs(k);
        const y = k === 0 ? num(a[0]) : k > 0 ? `(${num(a[0])} * ${scale})` : `(${num(a[0])} / ${scale})`;
        const r = `if(abs(${y} - floor(${y})) = 0.5, 2 * round(${y} / 2), round(${y}))`;
        return P(k === 0 ? r : k > 0 ? `(${r} / ${scale})` : `(${r} * ${scale})`, 'float', anyNull);
      }
      case 'floor':
      case 'ceil':
        // floor(x, N) / ceil(x, N): to N decimal places (N < 0: to tens, hundreds, ...), a constant as in ClickHouse
        if (a.length > 1) return P(`${fn.sig.name}(${num(a[0])}, ${roundingDigits(a[1], fn.sig.name, h, n)})`, numType(a[0]), anyNull);
        return P(`${fn.sig.name}(${num(a[0])})`, numType(a[0]), anyNull);
      case 'abs':
        return P(`${fn.sig.name}(${num(a[0])})`, numType(a[0]), anyNull);
      case 'sqrt':
      case 'exp':
      case 'log2':
      case 'log10':
        return P(`${fn.sig.name}(${num(a[0])})`, 'float', anyNull);
      case 'log':
        return P(`log(${num(a[0])})`, 'float', anyNull);
      case 'pow':
      case 'power':
        return P(`pow(${num(a[0])}, ${num(a[1])})`, 'float', anyNull);
      case 'intDiv':
        return P(`intDiv(${num(a[0])}, ${num(a[1])})`, 'int', anyNull);
      case 'modulo':
        if (a[0].type === 'float' || a[1].type === 'float') return this.arithmetic('%', a[0], a[1], h, n);
        return P(`modulo(${num(a[0])}, ${num(a[1])})`, numType(a[0]), anyNull);
      case 'bitAnd':
      case 'bitOr':
      case 'bitXor':
        // As Int64 (DuckDB's BIGINT): 18.16 evaluates bitAnd(Int8, UInt8) in the narrower type (bitAnd(-1, 255) = -1).
        return P(`${fn.sig.name}(toInt64(${num(a[0])}), toInt64(${num(a[1])}))`, 'int', anyNull);
      case 'plus':
      case 'minus':
      case 'multiply':
      case 'divide': {
        const op = ({ plus: '+', minus: '-', multiply: '*', divide: '/' } as const)[fn.sig.name as 'plus'];
        return this.arithmetic(op, a[0], a[1], h, n);
      }
      case 'greatest':
      case 'least':
      case 'min2':
      case 'max2': {
        const most = fn.sig.name === 'greatest' || fn.sig.name === 'max2' ? 'max' : 'min';
        // Current ClickHouse compares any number of values of one kind (numbers, strings, dates) and skips NULLs (24.12);
        // 18.16's greatest/least take two numbers: the aggregate over an array of them says the same on both.
        if (a.length === 2 && a.every((x) => isNum(x) && !x.nullable)) return simple(most === 'max' ? 'greatest' : 'least', a[0].type);
        return P(`arrayReduce('${most}', [${a.map((x) => x.sql).join(', ')}])`, a.every(isNum) ? numType(a.find((x) => x.type === 'float') ?? a[0]) : a[0].type, a.some((x) => x.nullable));
      }

      // ---------------- arrays
      case 'has':
        return P(`has(${s(0)}, ${s(1)})`, 'bool', a[0].nullable);
      case 'indexOf':
        return P(`toInt64(indexOf(${s(0)}, ${s(1)}))`, 'int', false);
      case 'arrayElement':
        // typed as arr[i] is (and as on DuckDB)
        return this.arrayAccess(a[0], a[1]);
      case 'arrayMap':
      case 'arrayFilter':
        // Several arrays of equal length: the lambda takes one argument per array (18.16 lambdas see only those).
        return P(`${fn.sig.name}(${a.map((x) => x.sql).join(', ')})`, 'array', a.slice(1).some((x) => x.nullable), fn.sig.name === 'arrayFilter' ? sameArrayTyping(a[1]) : {});
      case 'arraySort':
      case 'arrayReverseSort':
      case 'arrayCumSum':
      case 'arrayCumSumNonNegative':
      case 'arrayDifference':
      case 'arrayPopFront':
      case 'arrayPopBack':
      case 'arrayPushFront':
      case 'arrayPushBack':
      case 'arrayConcat':
        // (sorted by a lambda's key: the array after the lambda keeps its typing)
        return P(`${fn.sig.name}(${a.map((x) => x.sql).join(', ')})`, 'array', false, sameArrayTyping(fn.raw[0]?.node === 'Lambda' ? a[1] : a[0]));
      case 'arrayEnumerate':
        return P(`arrayEnumerate(${s(0)})`, 'array', false, { chType: 'Array(UInt32)' });
      case 'arrayReduce': {
        const agg = a[0];
        if (!agg.isConst || typeof agg.constValue !== 'string' || !ARRAY_REDUCE_AGGREGATES.has(agg.constValue))
          h.error(`arrayReduce takes a constant aggregate name: ${[...ARRAY_REDUCE_AGGREGATES].join(', ')}`, n);
        return P(`arrayReduce(${a.map((x) => x.sql).join(', ')})`, 'unknown', true);
      }
      case 'arrayExists':
        return P(`arrayExists(${s(0)}, ${s(1)})`, 'bool', a[1].nullable);
      case 'arrayJoin':
        return { sql: `arrayJoin(${s(0)})`, ...elementTyping(a[0]) };
      case 'array':
        return P(`[${a.map((x) => x.sql).join(', ')}]`, 'array', false, arrayLiteralTyping(a, h.timezone));
      case 'tuple': {
        if (a.length === 0) return h.error('A tuple needs at least one element', n);
        const t = P(`tuple(${a.map((x) => x.sql).join(', ')})`, 'unknown', false, { tupleItems: a });
        return { ...t, chType: typeNameOf(t, h.timezone) };
      }

      // ---------------- JSON (ClickHouse semantics: defaults instead of NULL), top-level keys via visitParam
      case 'JSONExtractString':
      case 'JSONExtractInt':
      case 'JSONExtractFloat':
      case 'JSONExtractBool':
      case 'JSONExtractRaw':
      case 'JSONHas': {
        const keys = a.slice(1);
        if (!keys.every((k) => k.isConst && typeof k.constValue === 'string'))
          h.error(`${fn.sig.name} on ClickHouse takes constant string keys`, n);
        // NULL for a NULL value, as ClickHouse's functions read Nullable arguments
        const read = (p: Printed): Printed => (a[0].nullable ? { ...p, sql: `if(isNull(${s(0)}), NULL, ${p.sql})`, nullable: true } : p);
        let raw = a[0].nullable ? `ifNull(${s(0)}, '')` : s(0);
        // (visitParamExtractRaw keeps the whitespace around a value, `{"a": 1}` reads ' 1': cut off, as JSONExtractRaw does)
        const ws = h.param('^\\s+|\\s+$');
        for (const k of keys) raw = `replaceRegexpAll(visitParamExtractRaw(${raw}, ${h.param(JSON.stringify(k.constValue as string).slice(1, -1))}), ${ws}, '')`;
        if (fn.sig.name === 'JSONExtractRaw') return read(P(raw, 'string', false));
        if (fn.sig.name === 'JSONHas') return read(P(`(${raw} != '')`, 'bool', false));
        const str = `if(substring(${raw}, 1, 1) = '"', visitParamExtractString(concat('{"k":', ${raw}, '}'), 'k'), if(${raw} = 'null', '', ${raw}))`;
        if (fn.sig.name === 'JSONExtractString') return read(P(`if(substring(${raw}, 1, 1) = '"', ${str}, '')`, 'string', false));
        // a fractional number (or text of one) is cut to its integer part, as ClickHouse's JSONExtractInt converts it
        if (fn.sig.name === 'JSONExtractInt') return read(P(`ifNull(toInt64OrNull(${str}), ifNull(toInt64(trunc(toFloat64OrNull(${str}))), 0))`, 'int', false));
        if (fn.sig.name === 'JSONExtractFloat') return read(P(`ifNull(toFloat64OrNull(${str}), 0)`, 'float', false));
        return read(P(`(${str} = 'true')`, 'bool', false));
      }

      // ---------------- HogQL parity: dates and times
      case 'formatDateTime': {
        const f = a[1];
        if (!f.isConst || typeof f.constValue !== 'string') return h.error('formatDateTime takes a constant format string', n);
        const explicit = tzArg(2);
        const l = localArg(0, explicit);
        // 18.16's formatDateTime lacks %G and %z: those are spelled here. It also formats in the server's zone unless
        // it is given one, whatever the DateTime's own zone.
        const zone = zoneArg(0, explicit) ?? h.tz();
        const names = (list: string[], i: string) => `arrayElement([${list.map((x) => h.param(x)).join(', ')}], ${i})`;
        const parts = formatPieces(f.constValue, 'YmdHMSyejuwpIV', h, n).map((piece) => {
          if ('native' in piece) return `formatDateTime(${l}, ${h.param(piece.native)}, ${zone})`;
          if (piece.code === 'G') return `toString(toISOYear(${l}))`;
          if (piece.code === 'g') return `substring(toString(100 + toISOYear(${l}) % 100), 2)`;
          if (piece.code === 'Q') return `toString(toQuarter(${l}))`;
          if (piece.code === 'f') return a[0].wholeSeconds || a[0].type !== 'datetime' ? h.param('000000') : `substring(toString(1000000 + (${dtArg(0)} % 1000) * 1000), 2)`;
          if (piece.code === 'C') return `substring(toString(100 + intDiv(toYear(${l}), 100) % 100), 2)`;
          if (piece.code === 'A' || piece.code === 'a') return names(piece.code === 'A' ? WEEKDAY_NAMES : WEEKDAY_NAMES.map((x) => x.slice(0, 3)), `toDayOfWeek(${l})`);
          if (piece.code === 'B' || piece.code === 'b') return names(piece.code === 'B' ? MONTH_NAMES : MONTH_NAMES.map((x) => x.slice(0, 3)), `toMonth(${l})`);
          const off = `(toInt64(toUInt32(toDateTime(toString(${l}), ${h.param('UTC')}))) - intDiv(${dtArg(0)}, 1000))`;
          const two = (v: string) => `substring(toString(100 + ${v}), 2)`;
          return `concat(if(${off} < 0, ${h.param('-')}, ${h.param('+')}), ${two(`intDiv(abs(${off}), 3600)`)}, ${two(`intDiv(abs(${off}) % 3600, 60)`)})`;
        });
        return P(parts.length === 1 ? parts[0] : `concat(${parts.join(', ')})`, 'string', a[0].nullable);
      }
      case 'dateTrunc':
      case 'date_trunc': {
        const unit = unitOf(a[0], h, n);
        const v = a[1];
        const explicit = a.length > 2 ? tzArg(2) : undefined;
        if (v.type === 'date') {
          if (SUB_DAY_MS[unit]) return P(this.dt(v, h, n), 'datetime', v.nullable);
          const f = { day: '', week: 'toMonday', month: 'toStartOfMonth', quarter: 'toStartOfQuarter', year: 'toStartOfYear' }[unit as 'day'];
          return P(f ? `${f}(${v.sql})` : v.sql, 'date', v.nullable);
        }
        const x = this.dt(v, h, n);
        if (unit === 'second') return P(`(intDiv(${x}, 1000) * 1000)`, 'datetime', v.nullable);
        const l = this.local(x, h, zoneArg(1, explicit));
        const tz = zoneArg(1, explicit) ?? h.tz();
        const f = { minute: 'toStartOfMinute', hour: 'toStartOfHour', day: 'toStartOfDay' }[unit as 'day'];
        if (f) return P(this.ms(`${f}(${l})`), 'datetime', v.nullable);
        const d = { week: 'toMonday', month: 'toStartOfMonth', quarter: 'toStartOfQuarter', year: 'toStartOfYear' }[unit as 'week'];
        return P(this.ms(`toDateTime(${d}(toDate(${l})), ${tz})`), 'datetime', v.nullable);
      }
      case 'toStartOfInterval': {
        const { k, unit, isDate } = startOfIntervalArgs(a, h, n, (u) => !!SUB_DAY_MS[u]);
        const v = a[0];
        const x = isDate ? '' : dtArg(0);
        const l = localArg(0);
        const epoch = `toDate(${h.param('1970-01-01')})`;
        const epochDate = (days: string) => `(${epoch} + ${days})`;
        switch (unit) {
          case 'second':
          case 'minute': {
            const ms = SUB_DAY_MS[unit] * k;
            return P(`(intDiv(${x}, ${ms}) * ${ms})`, 'datetime', v.nullable);
          }
          case 'hour': {
            // Hours counted from the local midnight, as ClickHouse does: back by the local time since the bucket start.
            const wall = `(toInt64(toHour(${l})) * 3600 + toMinute(${l}) * 60 + toSecond(${l}))`;
            return P(`((intDiv(${x}, 1000) - (${wall} - intDiv(${wall}, ${3600 * k}) * ${3600 * k})) * 1000)`, 'datetime', v.nullable);
          }
          case 'day': {
            const d = epochDate(`intDiv(toRelativeDayNum(${l}), ${k}) * ${k}`);
            return isDate ? P(d, 'date', v.nullable) : P(this.ms(`toDateTime(${d}, ${zoneArg(0) ?? h.tz()})`), 'datetime', v.nullable);
          }
          case 'week':
            return P(epochDate(`(4 + intDiv(toRelativeDayNum(${l}) - 4, ${7 * k}) * ${7 * k})`), 'date', v.nullable);
          case 'month':
          case 'quarter': {
            const m = unit === 'month' ? k : 3 * k;
            const idx = `(intDiv((toInt64(toYear(${l})) - 1900) * 12 + toMonth(${l}) - 1, ${m}) * ${m})`;
            // Month 840 after 1900-01 is 1970-01, where Date starts on 18.16.
            return P(`addMonths(${epoch}, ${idx} - 840)`, 'date', v.nullable);
          }
          case 'year':
            return P(`addYears(${epoch}, intDiv(toInt64(toYear(${l})), ${k}) * ${k} - 1970)`, 'date', v.nullable);
        }
        return h.error('Unknown interval unit', n);
      }
      case 'toDayOfYear':
      case 'toISOWeek':
      case 'toISOYear':
      case 'toSecond':
      case 'toQuarter':
      case 'toYYYYMM':
      case 'toYYYYMMDD':
      case 'toYYYYMMDDhhmmss':
      case 'toRelativeDayNum':
      case 'toRelativeWeekNum':
      case 'toRelativeMonthNum':
      case 'toRelativeYearNum':
        return P(`toInt64(${fn.sig.name}(${localArg(0)}))`, 'int', a[0].nullable);
      case 'toMonday':
        return P(`toMonday(toDate(${localArg(0)}))`, 'date', a[0].nullable);
      case 'toStartOfTenMinutes':
        return P(`(intDiv(${dtArg(0)}, 600000) * 600000)`, 'datetime', a[0].nullable);
      case 'toStartOfSecond':
        return P(`(intDiv(${dtArg(0)}, 1000) * 1000)`, 'datetime', a[0].nullable);
      case 'toUnixTimestamp64Milli':
        return P(`toInt64(${dtArg(0)})`, 'int', a[0].nullable);
      case 'fromUnixTimestamp64Milli':
        return P(`toInt64(${num(a[0])})`, 'datetime', a[0].nullable);
      case 'toDateTime64':
        if (a.length > 1 && (!a[1].isConst || typeof a[1].constValue !== 'number' || !Number.isInteger(a[1].constValue) || a[1].constValue < 0 || a[1].constValue > 9))
          h.error('toDateTime64 precision must be a constant integer from 0 to 9', n);
      {
        const v = a.length > 2 ? this.inZone(a[0], a[2], h, n) : P(dtArg(0), 'datetime', a[0].nullable || !(a[0].type === 'datetime' || a[0].isConst));
        if (a.length < 2) return v;
        // DateTime64(P): the fraction cut to P digits (milliseconds here)
        const p = a[1].constValue as number;
        const ms = 10 ** Math.max(0, 3 - p);
        const sql = ms > 1 ? `(intDiv(${v.sql}, ${ms}) * ${ms})` : v.sql;
        return { ...v, sql, chType: `DateTime64(${p}, '${v.displayTz ?? h.timezone}')`, ...(p === 0 ? { wholeSeconds: true } : {}) };
      }
      case 'parseDateTimeBestEffort':
      case 'parseDateTimeBestEffortOrNull':
      case 'parseDateTimeBestEffortOrZero':
      case 'toDateTimeOrNull': {
        const tz = tzArg(1);
        // Text is parsed leniently (NULL when it is not a datetime), with its own offset or else in the zone given.
        // An RFC 1123 weekday is left out: 18.16 reads no date after `Tue, ` or `Thu, ` (their T as a time separator).
        const text = `replaceRegexpOne(${s(0)}, ${h.param('^\\s*[A-Za-z]{3},\\s*')}, ${h.param('')})`;
        const x = isStrLike(a[0]) ? this.ms(`parseDateTimeBestEffortOrNull(${text}, ${tz ?? h.tz()})`) : dtArg(0);
        const shown = tz !== undefined ? { displayTz: a[1].constValue as string, chType: `DateTime64(6, '${a[1].constValue as string}')` } : {};
        if (fn.sig.name === 'parseDateTimeBestEffortOrZero') return P(`ifNull(${x}, toInt64(0))`, 'datetime', false, shown);
        return P(x, 'datetime', true, shown);
      }
      case 'toDateOrNull':
        return P(isStrLike(a[0]) ? this.textDateOrNull(s(0), h) : this.asDate(a[0], h, n), 'date', true);
      case 'parseDateTime':
      case 'parseDateTimeOrNull': {
        // (18.16 has no parseDateTime: the text rewritten as `YYYY-MM-DD hh:mm:ss`, '' when it does not match)
        const tz = tzArg(2);
        const { pattern, template } = parseDateTimeFormat(a[1], h, n);
        const text = `toString(${s(0)})`;
        const local = `if(match(${text}, ${h.param(pattern)}), replaceRegexpOne(${text}, ${h.param(pattern)}, ${h.param(template)}), '')`;
        // a real date and time only: read back unchanged in UTC (18.16 reads '' and month 13 as some date)
        const valid = `ifNull(toString(parseDateTimeBestEffortOrNull(${local}, ${h.param('UTC')})) = ${local}, 0)`;
        const parsed = `if(${valid}, assumeNotNull(parseDateTimeBestEffortOrNull(${local}, ${tz ?? h.tz()})), NULL)`;
        return P(this.ms(parsed), 'datetime', true, tz !== undefined ? { displayTz: a[2].constValue as string, chType: `DateTime64(6, '${a[2].constValue as string}')` } : {});
      }

      // ---------------- HogQL parity: strings (18.16 has no left/right/trimLeft/trimRight)
      case 'left':
      case 'right': {
        const chars = `extractAll(${s(0)}, ${h.param('(?s).')})`;
        const k = `toInt64(${num(a[1])})`;
        const slice =
          fn.sig.name === 'left'
            ? `arraySlice(${chars}, 1, if(${k} >= 0, ${k}, greatest(toInt64(length(${chars})) + ${k}, 0)))`
            : `if(${k} >= 0, arraySlice(${chars}, -${k}), arraySlice(${chars}, 1 - ${k}))`;
        return P(`arrayStringConcat(${slice})`, 'string', anyNull);
      }
      case 'positionUTF8':
        return P(`toInt64(positionUTF8(${s(0)}, ${s(1)}))`, 'int', anyNull);
      case 'positionCaseInsensitive':
      case 'positionCaseInsensitiveUTF8':
        return P(`toInt64(positionCaseInsensitiveUTF8(${s(0)}, ${s(1)}))`, 'int', anyNull);
      case 'trimLeft':
        if (a.length === 2) return this.trimChars(a, 'left', h, n);
        return P(`replaceRegexpOne(${s(0)}, ${h.param('^ +')}, ${h.param('')})`, 'string', anyNull);
      case 'trimRight':
        if (a.length === 2) return this.trimChars(a, 'right', h, n);
        return P(`replaceRegexpOne(${s(0)}, ${h.param(' +$')}, ${h.param('')})`, 'string', anyNull);
      case 'initcap': {
        // Each word (a run of ASCII letters and digits) with its first character upper case and the rest lower case
        const word = `if(match(__w, ${h.param('^[a-zA-Z0-9]')}), concat(upper(substring(__w, 1, 1)), lower(substring(__w, 2))), __w)`;
        const text = a[0].nullable || a[0].type === 'null' ? `ifNull(${s(0)}, '')` : s(0);
        const out = `arrayStringConcat(arrayMap(__w -> ${word}, extractAll(${text}, ${h.param('[a-zA-Z0-9]+|[^a-zA-Z0-9]+')})))`;
        return P(text === s(0) ? out : `if(isNull(${s(0)}), NULL, ${out})`, 'string', anyNull);
      }
      case 'lengthUTF8':
        return P(`toInt64(lengthUTF8(${s(0)}))`, 'int', anyNull, { chType: 'UInt64' });
      case 'lowerUTF8':
      case 'upperUTF8':
        return simple(fn.sig.name, 'string');
      case 'reverseUTF8':
      case 'substringUTF8':
        return this.call({ ...fn, sig: { ...fn.sig, name: fn.sig.name.slice(0, -4) } }, h);
      case 'replaceOne':
        if (a[1].isConst && a[1].constValue === '') return h.error('replaceOne: the pattern must not be empty', n);
        return simple('replaceOne', 'string');

      // ---------------- HogQL parity: conversions
      case 'toIntOrNull':
      case 'toInt64OrNull':
      case 'toFloatOrNull':
      case 'toFloat64OrNull':
      case 'toIntOrZero':
      case 'toFloatOrZero':
      case 'toFloat64OrZero': {
        const base = this.call({ ...fn, sig: { ...fn.sig, name: fn.sig.name.startsWith('toInt') ? 'toInt' : 'toFloat' } }, h);
        return fn.sig.name.endsWith('OrZero') ? P(`ifNull(${base.sql}, 0)`, base.type, false) : { ...base, nullable: true };
      }

      // ---------------- HogQL parity: arrays
      case 'arraySum':
        return P(`arraySum(${s(0)})`, 'float', false);
      case 'arrayStringConcat': {
        // ClickHouse 18.16 joins only an Array(String) ("must be array of strings"); current releases write other
        // elements as toString does, so they are written so first.
        const arr = a[0].chType === 'Array(String)' ? s(0) : `arrayMap(__sc -> toString(__sc), ${s(0)})`;
        return P(`arrayStringConcat(${[arr, ...a.slice(1).map((x) => x.sql)].join(', ')})`, 'string', false);
      }
      case 'arrayDistinct':
      case 'arrayReverse':
      case 'arraySlice':
        return P(`${fn.sig.name}(${a.map((x) => x.sql).join(', ')})`, 'array', anyNull);
      case 'hasAny':
      case 'hasAll':
        return P(`${fn.sig.name}(${s(0)}, ${s(1)})`, 'bool', anyNull);
      case 'arrayUniq':
        return P(`arrayUniq(${s(0)})`, 'int', false, { chType: 'UInt32' });
      case 'arrayCount':
        return P(`arrayCount(${s(0)}, ${s(1)})`, 'int', a[1].nullable, { chType: 'UInt32' });
      case 'arrayAll':
        return P(`arrayAll(${s(0)}, ${s(1)})`, 'bool', a[1].nullable);

      // ---------------- more of HogQL's mapping: aggregations
      case 'anyLast':
      case 'anyHeavy':
        return sameValue(agg(fn.sig.name, [s(0)], a[0].type, true));
      case 'covarPop':
      case 'covarSamp':
      case 'corr':
        return agg(fn.sig.name, [num(a[0]), num(a[1])], 'float', true);
      case 'avgWeighted': {
        const both = `isNotNull(${s(0)}) AND isNotNull(${s(1)})`;
        return P(`(${agg('sum', [`${num(a[0])} * ${num(a[1])}`], 'float', true, both).sql} / ${agg('sum', [num(a[1])], 'float', true, both).sql})`, 'float', true);
      }
      case 'uniqUpTo': {
        const k = fn.params[0].constValue;
        if (typeof k !== 'number' || !Number.isSafeInteger(k) || k < 0 || k > 100) return h.error('uniqUpTo takes a constant integer from 0 to 100', n);
        const u = this.call({ ...fn, sig: lookupFunction('uniqExact')!, params: [] }, h);
        return P(`least(${u.sql}, ${k + 1})`, 'int', false, { chType: 'UInt64' });
      }
      case 'topK': {
        const k = topKSize(fn, h);
        const conds = [fn.filter].filter((x): x is string => !!x);
        return P(conds.length ? `topKIf(${k})(${s(0)}, ${conds.join(' AND ')})` : `topK(${k})(${s(0)})`, 'array', false);
      }
      case 'medianExact':
      case 'medianExactLow':
      case 'medianExactHigh':
      case 'medianTiming':
      case 'quantileExact':
      case 'quantileExactLow':
      case 'quantileExactHigh':
      case 'quantileTiming': {
        // ClickHouse's exact quantiles take a value of the sorted set (no interpolation); spelled with groupArray, as
        // 18.16 lacks the Low/High variants, so every variant reads the same values on every engine.
        const level = fn.sig.name.startsWith('median') ? 0.5 : quantileLevel(fn.params[0], h, n);
        const vals = agg('groupArray', [num(a[0])], 'array', false).sql;
        const idx = exactQuantileIndex(level, `toInt64(length(${vals}))`, fn.sig.name.endsWith('Low'), (x) => `toInt64(${x})`);
        return P(`if(length(${vals}) = 0, NULL, arrayElement(arraySort(${vals}), toUInt64(greatest(${idx}, 0)) + 1))`, isStrLike(a[0]) ? 'float' : a[0].type, true);
      }
      case 'groupBitAnd':
      case 'groupBitOr':
      case 'groupBitXor':
        // 18.16 takes unsigned integers only; the bits are the same
        return P(`toInt64(${agg(fn.sig.name, [`toUInt64(toInt64(${num(a[0])}))`], 'int', true).sql})`, 'int', true);

      // ---------------- more of HogQL's mapping: maths (18.16 lacks atan2, hypot, log1p, sign, degrees, radians)
      case 'e':
      case 'pi':
        return P(`${fn.sig.name}()`, 'float', false);
      case 'ln':
        return P(`log(${num(a[0])})`, 'float', anyNull);
      case 'exp2':
      case 'exp10':
      case 'cbrt':
      case 'sin':
      case 'cos':
      case 'tan':
      case 'asin':
      case 'acos':
      case 'atan':
        return P(`${fn.sig.name}(${num(a[0])})`, 'float', anyNull);
      case 'degrees':
        return P(`(${num(a[0])} * 180 / pi())`, 'float', anyNull);
      case 'radians':
        return P(`(${num(a[0])} * pi() / 180)`, 'float', anyNull);
      case 'log1p':
        return P(`log(1 + ${num(a[0])})`, 'float', anyNull);
      case 'hypot':
        return P(`sqrt(${num(a[0])} * ${num(a[0])} + ${num(a[1])} * ${num(a[1])})`, 'float', anyNull);
      case 'atan2': {
        const [y, x] = [num(a[0]), num(a[1])];
        return P(`multiIf(${x} > 0, atan(${y} / ${x}), ${x} < 0 AND ${y} >= 0, atan(${y} / ${x}) + pi(), ${x} < 0, atan(${y} / ${x}) - pi(), ${y} > 0, pi() / 2, ${y} < 0, -pi() / 2, 0)`, 'float', anyNull);
      }
      case 'sign':
        return P(`toInt64(multiIf(${num(a[0])} > 0, 1, ${num(a[0])} < 0, -1, 0))`, 'int', anyNull);
      case 'negate':
        return P(`negate(${num(a[0])})`, numType(a[0]), anyNull);
      case 'isFinite':
      case 'isInfinite':
      case 'isNaN':
        return P(`${fn.sig.name}(toFloat64(${num(a[0])}))`, 'bool', anyNull);
      case 'intDivOrZero':
        return P(`toInt64(intDivOrZero(${num(a[0])}, ${num(a[1])}))`, 'int', anyNull);
      case 'moduloOrZero':
        // both branches are computed: the divisor of the other one must not be 0
        return P(`if(${num(a[1])} = 0, 0, modulo(${num(a[0])}, if(${num(a[1])} = 0, 1, ${num(a[1])})))`, numType(a[0]), anyNull);
      case 'gcd':
      case 'lcm':
        return P(`${fn.sig.name}(toInt64(${num(a[0])}), toInt64(${num(a[1])}))`, 'int', anyNull);
      case 'roundToExp2': {
        // spelled, not 18.16's roundToExp2, which reads a float below 1 as its own power of two (0.3 is 0.25)
        const [x, t] = [num(a[0]), numType(a[0])];
        const pow2 = `exp2(floor(log2(greatest(${x}, 1))))`;
        return P(`if(${x} < 1, ${t === 'int' ? 'toInt64(0)' : '0.'}, ${t === 'int' ? `toInt64(${pow2})` : pow2})`, t === 'int' ? 'int' : 'float', anyNull);
      }
      case 'roundDuration':
      case 'roundAge': {
        const x = num(a[0]);
        const steps = [...ROUND_STEPS[fn.sig.name as keyof typeof ROUND_STEPS]].reverse().map(([from, v]) => `${x} >= ${from}, ${v}`);
        return P(`toInt64(multiIf(${anyNull ? `isNull(${x}), NULL, ` : ''}${steps.join(', ')}, 0))`, 'int', anyNull);
      }
      case 'trunc':
        if (a.length > 1 && (!a[1].isConst || typeof a[1].constValue !== 'number')) return h.error('trunc takes a constant number of decimal places', n);
        return P(`trunc(${num(a[0])}${a.length > 1 ? `, ${s(1)}` : ''})`, a.length > 1 ? 'float' : numType(a[0]), anyNull);

      // ---------------- more of HogQL's mapping: conversions
      case 'toUUIDOrNull':
      case 'toUUIDOrZero': {
        const text = isStrLike(a[0]) ? s(0) : `toString(${s(0)})`;
        const ok = `match(${text}, ${h.param('^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$')})`;
        const zero = h.param('00000000-0000-0000-0000-000000000000');
        const uuid = `toUUID(if(${ok}, ${text}, ${zero}))`;
        return fn.sig.name === 'toUUIDOrZero' ? P(`ifNull(${uuid}, toUUID(${zero}))`, 'uuid', false) : P(`if(${ok}, ${uuid}, NULL)`, 'uuid', true);
      }
      case 'toNullable':
        return { ...a[0], nullable: true, isConst: false, constValue: undefined };
      case 'toLowCardinality':
        return a[0];
      case 'toFloatOrDefault': {
        const f = this.call({ ...fn, sig: lookupFunction('toFloat')!, args: a.slice(0, 1), raw: fn.raw.slice(0, 1) }, h);
        return P(`ifNull(${f.sql}, ${num(a[1])})`, 'float', a[1].nullable);
      }

      // ---------------- more of HogQL's mapping: dates
      case 'toLastDayOfMonth':
        return P(`(addMonths(toStartOfMonth(toDate(${localArg(0)})), 1) - 1)`, 'date', a[0].nullable);
      case 'toRelativeQuarterNum':
        return P(`toInt64(toRelativeQuarterNum(${localArg(0)}))`, 'int', a[0].nullable);
      case 'monthName':
        return P(`arrayElement([${MONTH_NAMES.map((m) => h.param(m)).join(', ')}], toMonth(${localArg(0)}))`, 'string', a[0].nullable);
      case 'age': {
        const [u, from, to] = a;
        const unit = unitOf(u, h, n);
        const d = this.call({ ...fn, sig: lookupFunction('dateDiff')! }, h);
        // (an interval cannot be Nullable there: a NULL difference gives a NULL result anyway)
        const count = P(`ifNull(${d.sql}, 0)`, 'int', false);
        const shifted = this.arithmetic('+', P(this.dt(from, h, n), 'datetime', from.nullable), this.interval(unit, count), h, n).sql;
        const y = this.dt(to, h, n);
        return P(`(${d.sql} - multiIf(${d.sql} > 0 AND ${shifted} > ${y}, 1, ${d.sql} < 0 AND ${shifted} < ${y}, -1, 0))`, 'int', d.nullable);
      }

      // ---------------- more of HogQL's mapping: strings (18.16 lacks leftPad/rightPad/repeat/countSubstrings)
      case 'leftPad':
      case 'leftPadUTF8':
      case 'rightPad':
      case 'rightPadUTF8': {
        const len = P(boundedCount({ ...a[1], sql: `toInt64(greatest(${num(a[1])}, 0))` }, MAX_GENERATED_CHARS, fn.sig.name, h, n, (x, k) => `least(${x}, ${k})`), 'int', a[1].nullable);
        const pad = a.length > 2 ? s(2) : h.param(' ');
        const padding = P(`arrayStringConcat(arrayResize(emptyArrayString(), toUInt64(${len.sql}), ${pad}))`, 'string', false);
        const left = (x: Printed, k: Printed) => this.call({ ...fn, sig: lookupFunction('left')!, args: [x, k], raw: [] }, h).sql;
        if (fn.sig.name.startsWith('right')) return P(left(P(`concat(${s(0)}, ${padding.sql})`, 'string', a[0].nullable), len), 'string', anyNull);
        const missing = P(`(${len.sql} - toInt64(lengthUTF8(${s(0)})))`, 'int', anyNull);
        return P(`if(${missing.sql} <= 0, ${left(a[0], len)}, concat(${left(padding, missing)}, ${s(0)}))`, 'string', anyNull);
      }
      case 'repeat': {
        const each = a[0].isConst && typeof a[0].constValue === 'string' ? Math.max(a[0].constValue.length, 1) : undefined;
        const times = `toInt64(greatest(${num(a[1])}, 0))`;
        if (a[1].isConst && typeof a[1].constValue === 'number' && each) boundedCount({ ...a[1], constValue: a[1].constValue * each }, MAX_GENERATED_CHARS, 'repeat', h, n, (x) => x);
        const count = a[1].isConst && each ? times : `least(${times}, intDiv(${MAX_GENERATED_CHARS}, greatest(length(${s(0)}), 1)))`;
        return P(`arrayStringConcat(arrayResize(emptyArrayString(), toUInt64(${count}), ${s(0)}))`, 'string', anyNull);
      }
      case 'appendTrailingCharIfAbsent':
        return simple('appendTrailingCharIfAbsent', 'string');
      case 'splitByWhitespace':
        return P(`extractAll(${s(0)}, ${h.param('[^\\s]+')})`, 'array', anyNull, { chType: 'Array(String)' });
      case 'timeZoneOf':
        if (a[0].type !== 'datetime') h.error('timeZoneOf takes a DateTime value', n);
        return P(h.param(zoneOf(a[0]) ?? h.timezone), 'string', false);
      case 'intExp2':
      case 'intExp10':
        // (as on DuckDB: NULL past Int64)
        return P(`toInt64OrNull(toString(pow(${fn.sig.name === 'intExp2' ? 2 : 10}, trunc(${num(a[0])}))))`, 'int', true);
      case 'countSubstringsCaseInsensitive':
        return this.call({ ...fn, sig: lookupFunction('countSubstrings')!, args: a.map((x) => ({ ...x, sql: `lower(${x.sql})`, constValue: typeof x.constValue === 'string' ? x.constValue.toLowerCase() : undefined })) }, h);
      case 'countSubstrings':
        // (18.16's replaceAll refuses an empty needle even in the branch not taken)
        if (a[1].isConst && a[1].constValue === '') return P('toInt64(0)', 'int', a[0].nullable);
        return P(`toInt64(if(length(${s(1)}) = 0, 0, intDiv(length(${s(0)}) - length(replaceAll(${s(0)}, ${s(1)}, '')), greatest(length(${s(1)}), 1))))`, 'int', anyNull);
      case 'leftUTF8':
      case 'rightUTF8':
        return this.call({ ...fn, sig: lookupFunction(fn.sig.name.slice(0, -4))! }, h);
      case 'concatWithSeparator':
        return this.call({ ...fn, sig: lookupFunction('concat')!, args: a.slice(1).flatMap((x, i) => (i ? [a[0], x] : [x])) }, h);
      case 'hex':
        if (isHashDigest(a[0])) return P(`upper(${s(0)})`, 'string', anyNull);
        return simple(fn.sig.name, 'string');
      case 'decodeURLComponent':
      case 'unhex':
        return simple(fn.sig.name, 'string');
      case 'MD5':
      case 'SHA1':
      case 'SHA256': {
        const x = hashArgument(fn, h);
        return P(`lower(hex(${fn.sig.name}(${x.sql})))`, 'string', x.nullable, { chType: `FixedString(${HASH_DIGESTS[fn.sig.name].bytes})` });
      }
      case 'intHash32':
      case 'intHash64': {
        const x = intHashArgument(fn, h);
        return P(`${fn.sig.name}(${x.sql})`, 'int', x.nullable, { chType: fn.sig.name === 'intHash32' ? 'UInt32' : 'UInt64' });
      }

      // ---------------- URLs: ClickHouse's own functions
      case 'netloc':
        return P(`extract(${s(0)}, ${h.param(URL_NETLOC)})`, 'string', anyNull);
      case 'port':
        // (18.16 has no port(): read from the text, as on DuckDB)
        return P(`toInt64(ifNull(toUInt16OrNull(extract(${s(0)}, ${h.param(URL_PORT)})), ${portDefault(a, h, n)}))`, 'int', a[0].nullable, { chType: 'UInt16' });
      case 'ifNotFinite':
        // (18.16's `if` takes no Nullable condition: a NULL value is not finite)
        if (a[0].type === 'null') return P(`toFloat64(${num(a[1])})`, 'float', a[1].nullable);
        return P(`if(ifNull(isFinite(toFloat64(${num(a[0])})), 0), toFloat64(assumeNotNull(${num(a[0])})), toFloat64(${num(a[1])}))`, 'float', a[1].nullable);
      case 'protocol':
      case 'domain':
      case 'domainWithoutWWW':
      case 'topLevelDomain':
      case 'firstSignificantSubdomain':
      case 'cutToFirstSignificantSubdomain':
      case 'path':
      case 'pathFull':
      case 'queryString':
      case 'fragment':
      case 'queryStringAndFragment':
      case 'cutWWW':
      case 'cutQueryString':
      case 'cutFragment':
      case 'cutQueryStringAndFragment':
      case 'extractURLParameter':
        return simple(fn.sig.name, 'string');
      case 'extractURLParameters':
      case 'extractURLParameterNames':
        return simple(fn.sig.name, 'array');

      // ---------------- arrays
      case 'range': {
        // 18.16's range takes the end alone: a constant positive step keeps every step-th number from the start
        const step = a[2]?.constValue;
        if (a.length > 2 && !(a[2].isConst && typeof step === 'number' && Number.isInteger(step) && step > 0)) return h.error('range(start, end, step) takes a constant positive integer step on ClickHouse', n);
        const cap = (x: string, k: number) => `least(${x}, ${k})`;
        if (a.length === 1) return P(`range(toUInt64(${boundedCount({ ...a[0], sql: `toInt64(greatest(${num(a[0])}, 0))` }, MAX_GENERATED_ELEMENTS, 'range', h, n, cap)}))`, 'array', anyNull);
        // start + k * step for k below the number of steps, so a negative start counts up from there (range(-3, 3))
        const [from, to] = a;
        const start = `toInt64(${num(from)})`;
        const constSpan = from.isConst && to.isConst && typeof from.constValue === 'number' && typeof to.constValue === 'number' ? to.constValue - from.constValue : undefined;
        const span: Printed = { ...to, sql: `greatest(toInt64(${num(to)}) - ${start}, 0)`, isConst: constSpan !== undefined, constValue: constSpan };
        const count = boundedCount(span, MAX_GENERATED_ELEMENTS, 'range', h, n, cap);
        if (a.length === 2 || step === 1) return P(`arrayMap(__x -> toInt64(__x) + ${start}, range(toUInt64(${count})))`, 'array', anyNull);
        return P(`arrayMap(__x -> toInt64(__x) * ${step} + ${start}, range(toUInt64(intDiv(${count} + ${(step as number) - 1}, ${step}))))`, 'array', anyNull);
      }
      case 'arrayFirst':
      case 'arrayFirstIndex':
        return P(`${fn.sig.name}(${a.map((x) => x.sql).join(', ')})`, fn.sig.name === 'arrayFirst' ? 'unknown' : 'int', fn.sig.name === 'arrayFirst', fn.sig.name === 'arrayFirst' ? arrayElementTyping(a[1]) : { chType: 'UInt32' });
      case 'arrayLast':
        return P(`arrayFirst(${[s(0), ...a.slice(1).map((x) => `arrayReverse(${x.sql})`)].join(', ')})`, 'unknown', true, arrayElementTyping(a[1]));
      case 'arrayLastIndex': {
        const p = `arrayFirstIndex(${[s(0), ...a.slice(1).map((x) => `arrayReverse(${x.sql})`)].join(', ')})`;
        return P(`if(${p} = 0, 0, length(${s(1)}) + 1 - ${p})`, 'int', false, { chType: 'UInt32' });
      }
      case 'countEqual':
        return P(`toInt64(countEqual(${s(0)}, ${s(1)}))`, 'int', anyNull, { chType: 'UInt64' });
      case 'arrayMin':
      case 'arrayMax':
      case 'arrayAvg':
        return P(`arrayReduce(${h.param(fn.sig.name.slice(5).toLowerCase())}, ${s(0)})`, fn.sig.name === 'arrayAvg' ? 'float' : 'unknown', true);
      case 'countMatches':
      case 'countMatchesCaseInsensitive': {
        // 18.16 has no countMatches: the matches extractAll finds (one per match, whatever groups the pattern has)
        const pattern = fn.sig.name === 'countMatches' ? s(1) : `concat('(?i)', ${s(1)})`;
        const count = (text: string) => `toUInt64(length(extractAll(${text}, ${pattern})))`;
        if (!a[0].nullable) return P(count(s(0)), 'int', anyNull, { chType: 'UInt64' });
        return P(`if(isNull(${s(0)}), NULL, ${count(`ifNull(${s(0)}, '')`)})`, 'int', true, { chType: 'UInt64' });
      }
      case 'hasSubstr': {
        // 18.16 has no hasSubstr, and its lambdas cannot read columns: both arrays come as arrays of copies, one per start
        const [arr, sub] = [s(0), s(1)];
        const copies = (x: string) => `arrayResize([${x}], length(${arr}), ${x})`;
        return P(`(length(${sub}) = 0 OR arrayExists((__i, __a, __s) -> arraySlice(__a, __i, length(__s)) = __s, arrayEnumerate(${arr}), ${copies(arr)}, ${copies(sub)}))`, 'bool', anyNull);
      }
      case 'arrayResize': {
        const size = boundedCount({ ...a[1], sql: `toInt64(${num(a[1])})` }, MAX_GENERATED_ELEMENTS, 'arrayResize', h, n, (x, k) => `least(${x}, ${k})`);
        return P(`arrayResize(${[s(0), size, ...(a.length > 2 ? [s(2)] : [])].join(', ')})`, 'array', anyNull, a.length > 2 ? {} : sameArrayTyping(a[0]));
      }
      case 'arrayWithConstant': {
        // 18.16 has no arrayWithConstant: the one-element array resized, filled with the value
        const size = boundedCount({ ...a[0], sql: `toInt64(${num(a[0])})` }, MAX_GENERATED_ELEMENTS, 'arrayWithConstant', h, n, (x, k) => `least(${x}, ${k})`);
        return P(`arrayResize([${s(1)}], greatest(${size}, 0), ${s(1)})`, 'array', a[0].nullable, arrayLiteralTyping([a[1]], h.timezone));
      }
      case 'arrayRotateLeft':
      case 'arrayRotateRight': {
        // 18.16 has neither: the array from the k-th element, then its first k (the divisor is never 0: both branches of if run)
        const len = `toInt64(greatest(length(${s(0)}), 1))`;
        const by = `${fn.sig.name === 'arrayRotateRight' ? '-' : ''}toInt64(${num(a[1])})`;
        const k = `modulo(modulo(${by}, ${len}) + ${len}, ${len})`;
        return P(`arrayConcat(arraySlice(${s(0)}, ${k} + 1), arraySlice(${s(0)}, 1, ${k}))`, 'array', anyNull, sameArrayTyping(a[0]));
      }
      case 'arrayEnumerateUniq':
      case 'arrayEnumerateDense':
        return P(`${fn.sig.name}(${s(0)})`, 'array', anyNull, { chType: 'Array(UInt32)' });
      case 'arrayCompact':
        // lambdas on 18.16 cannot read columns: the previous elements come as a second array
        // (NULLs equal each other: a run of them is one NULL)
        return P(`arrayFilter((__x, __p, __i) -> __i = 1 OR NOT (isNull(__x) AND isNull(__p) OR ifNull(__x = __p, 0)), ${s(0)}, arraySlice(arrayPushFront(${s(0)}, arrayElement(${s(0)}, 1)), 1, length(${s(0)})), arrayEnumerate(${s(0)}))`, 'array', anyNull);
      case 'arrayFlatten': {
        // ClickHouse flattens every level (18.16 has no arrayFlatten): one groupArrayArray per known level of nesting
        const { times, chType } = flattenDepth(a[0]);
        return P(Array.from({ length: times }).reduce<string>((x) => `arrayReduce(${h.param('groupArrayArray')}, ${x})`, s(0)), 'array', anyNull, chType ? { chType } : {});
      }
      case 'arrayIntersect':
        return simple('arrayIntersect', 'array');

      // ---------------- JSON, conditionals, PostHog's own
      case 'JSONExtract': {
        const element = jsonExtractArrayElement(a[a.length - 1]);
        if (element === undefined) return this.call({ ...fn, sig: lookupFunction(jsonExtractFunction(a[a.length - 1], h, n))!, args: a.slice(0, -1), raw: fn.raw.slice(0, -1) }, h);
        // 'Array(T)' (18.16 has no JSONExtract): the raw array's scalar elements (strings with their escapes, numbers,
        // true/false/null), each read as T; [] when the value is no array
        const raw = this.call({ ...fn, sig: lookupFunction('JSONExtractRaw')!, args: a.slice(0, -1), raw: fn.raw.slice(0, -1) }, h);
        const text = raw.nullable ? `ifNull(${raw.sql}, '')` : raw.sql;
        const items = `if(substring(${text}, 1, 1) = '[', extractAll(${text}, ${h.param('"(?:[^"\\\\]|\\\\.)*"|-?[0-9][0-9.eE+-]*|true|false|null')}), emptyArrayString())`;
        const item: Printed = { sql: '__je', type: 'string', nullable: false };
        const read = this.call({ ...fn, sig: lookupFunction(jsonExtractFunction({ ...a[a.length - 1], constValue: element }, h, n))!, args: [item], raw: [] }, h);
        return P(`arrayMap(__je -> ${read.sql}, ${items})`, 'array', false, { chType: `Array(${element})` });
      }
      case 'arrayZip': {
        // 18.16 has no arrayZip: a lambda over the arrays (which must have equal lengths, as arrayZip requires)
        const names = a.map((_, i) => `__z${i}`);
        return P(`arrayMap((${names.join(', ')}) -> tuple(${names.join(', ')}), ${a.map((x) => x.sql).join(', ')})`, 'array', anyNull, zipTyping(a));
      }
      case 'positiveModulo':
        // 18.16 has no positiveModulo; both branches of an if are computed, so the divisor is never 0 there
        return P(`modulo(modulo(${num(a[0])}, ${num(a[1])}) + ${num(a[1])}, ${num(a[1])})`, numType(a[0]), anyNull);
      case 'bitShiftLeft':
      case 'bitShiftRight':
        return P(`${fn.sig.name}(toInt64(${num(a[0])}), toUInt8(${num(a[1])}))`, 'int', anyNull);
      case 'bitNot':
        return P(`bitNot(toInt64(${num(a[0])}))`, 'int', anyNull);
      case 'xor':
        return P(`(modulo(${a.map((x) => `toUInt8(${x.sql} != 0)`).join(' + ')}, 2) = 1)`, 'bool', anyNull);
      case 'JSONExtractUInt':
        return this.call({ ...fn, sig: lookupFunction('JSONExtractInt')! }, h);
      case 'transform': {
        const dflt = a.length > 3 ? a[3] : a[0];
        return P(`transform(${a.map((x) => x.sql).join(', ')})`, dflt.type, true);
      }
      case 'sparkline':
        return this.call({ ...fn, sig: lookupFunction('tuple')!, args: [...SPARKLINE_MARKER.map((v) => this.constant(v, false, h)), a[0]], raw: [] }, h);
      case 'recording_button': {
        const tagged = a.flatMap((x, i) => [this.constant(RECORDING_BUTTON_ARGS[i], false, h), x]);
        return this.call({ ...fn, sig: lookupFunction('tuple')!, args: [...RECORDING_BUTTON_MARKER.map((v) => this.constant(v, false, h)), ...tagged], raw: [] }, h);
      }

      default:
        if (fn.sig.name.startsWith('emptyArray') && Object.prototype.hasOwnProperty.call(EMPTY_ARRAY_TYPES, fn.sig.name.slice('emptyArray'.length)))
          return P(`${fn.sig.name}()`, 'array', false, { chType: `Array(${fn.sig.name.slice('emptyArray'.length)})` });
        return h.error(`Function "${fn.sig.name}" is not available on ClickHouse`, n);
    }
  }
}

export const clickhouseDialect = new ClickHouseDialect();

const compilePrinter = dialectPrinter(clickhouseDialect);

/**
 * The ClickHouse printer: the shared compiler with the ClickHouse dialect, then every bound value spliced in
 * as an escaped literal. Returns `params: []`.
 */
export const clickhousePrinter: Printer = {
  print(query, ctx) {
    const out = compilePrinter.print(query, ctx);
    const splice = (text: string): string => {
      const sql = text.replace(/\u0001(\d+)\u0001/g, (_m, d: string) => {
        const i = Number(d) - 1;
        if (i < 0 || i >= out.params.length) throw new Error('placeholder out of range');
        return chLiteral(out.params[i]);
      });
      if (sql.includes(MARK)) throw new Error('unresolved placeholder in ClickHouse SQL');
      return sql;
    };
    return { ...out, sql: splice(out.sql), stages: out.stages.map((s) => ({ table: s.table, sql: splice(s.sql) })), params: [] };
  },
};

registerPrinter('clickhouse', clickhousePrinter);
