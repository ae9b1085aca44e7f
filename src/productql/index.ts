/**
 * ProductQL public entry points: compile a query (text or AST) to engine SQL + bound values, and shape the
 * engine's rows into a HogQL-style response.
 *
 * ```ts
 * const compiled = await compileProductQL({ query: 'SELECT event, count() FROM events GROUP BY event', projectId: 2,
 *   timezone: 'Europe/Berlin', dialect: 'duckdb' });
 * const result = await engine.query(compiled.sql, compiled.params, { stages: compiled.stages });
 * const response = shapeResult(result.rows, compiled, result.types);
 * ```
 *
 * DuckDB placeholders are numbered `$1, $2, ...` (`params[0]` binds `$1`); equal values share one placeholder.
 * Params are `string | number | boolean | null` only (numbers: safe integers or non-integers).
 * The outer query always fetches `limit + 1` rows; `shapeResult` trims to `limit` and sets `hasMore`.
 * Text queries are parsed in a worker thread under a time limit; ASTs skip parsing entirely.
 */
import { UserError } from '../errors';
import type { Expr, Query } from './ast';
import type { CustomChannelRule } from './channel-type';
import { Compiler, DEFAULT_LIMIT, MAX_LIMIT, type CompileOptions, type OutputColumn, type QueryStage } from './compiler';
import { MONTHS_PER_UNIT, SECONDS_PER_UNIT, type Dialect, type IntervalUnit } from './dialect';
import { duckdbDialect } from './duckdb';
import { displayHogQL, placeholderValuesOf } from './hogql';
import { parseExpr, parseSelect, parseSelectSync } from './parser';
import type { PType } from './schema';
import { isoOffset, zonedFormatter } from '../projects/timezone';

export * as ast from './ast';
export type { Query, Expr } from './ast';
export { initParser, parseSelect, parseExpr, parseSelectSync, parseExprSync, shutdownParser, setParseTimeout } from './parser';
export { printHogQL, printHogQLExpr, displayHogQL, displayHogQLExpr } from './hogql';
export { DEFAULT_LIMIT, MAX_LIMIT } from './compiler';
export type { OutputColumn, QueryStage } from './compiler';

export type ProductQLDialect = 'duckdb' | 'clickhouse';

export interface PrintContext extends CompileOptions {}

export interface PrintedQuery {
  sql: string;
  params: unknown[];
}

/** One printer per engine; resolution and safety are shared (compiler.ts), spelling is per dialect. */
export interface Printer {
  print(query: Query, ctx: PrintContext): PrintedQuery & CompiledMeta;
}

interface CompiledMeta {
  columns: OutputColumn[];
  limit: number;
  fetchLimit: number;
  offset: number;
  limitDefaulted: boolean;
  query: Query;
  stages: QueryStage[];
}

export const dialectPrinter = (dialect: Dialect): Printer => ({
  print: (query, ctx) => new Compiler(dialect, ctx).compile(query),
});

const printers: Partial<Record<ProductQLDialect, Printer>> = { duckdb: dialectPrinter(duckdbDialect) };

/** Registers the printer of another dialect (the ClickHouse printer registers itself here). */
export const registerPrinter = (dialect: ProductQLDialect, printer: Printer): void => {
  printers[dialect] = printer;
};

export interface CompileProductQLInput {
  /** ProductQL text (`SELECT ...`) or an AST built with `ast` helpers. */
  query: string | Query;
  projectId: number;
  /** IANA timezone of the project. Buckets (toStartOfDay, ...) and displayed datetimes use it. */
  timezone: string;
  /** `{variables.name}` values; each is one bound scalar. A missing one is a 400 naming it. */
  variables?: Record<string, unknown>;
  /** See {@link CompileOptions.unknownVariables}. */
  unknownVariables?: readonly string[];
  /** `{name}` placeholder values (HogQL `values`). */
  values?: Record<string, unknown>;
  /** Outer LIMIT when the query has none. Default 100; anything above 50,000 is clamped. */
  limit?: number;
  /** Outer OFFSET when the query has none. Default 0. */
  offset?: number;
  /**
   * False when the project has no person overrides (EventEngine.hasPersonOverrides): person_id is read as stored,
   * without the overrides join. Default true.
   */
  personOverrides?: boolean;
  /**
   * True when the project may hold events stored without a person (EventEngine.hasPersonlessEvents): such an event's
   * person_id is the person its distinct id maps to now, if any (TableNeeds.personless). Default false.
   */
  personless?: boolean;
  /** The project's `week_start_day` (0 Sunday, 1 Monday): where `toStartOfWeek(x)` without a mode starts weeks. Default 0. */
  weekStartDay?: number;
  /** The query's `bounceRateDurationSeconds` modifier (`$is_bounce` of the sessions table). Default 10. */
  bounceRateDurationSeconds?: number;
  /** The query's `customChannelTypeRules` modifier (`$channel_type` of the sessions table). */
  customChannelTypeRules?: readonly CustomChannelRule[];
  dialect: ProductQLDialect;
}

export interface CompiledProductQL {
  sql: string;
  /** Positional values for the placeholders (`$1` = params[0] for DuckDB). */
  params: unknown[];
  /** Rows the caller returns at most. */
  limit: number;
  /** Rows requested from the engine (limit + 1); one more than `limit` means hasMore. */
  fetchLimit: number;
  offset: number;
  /** The query had no LIMIT, so the default applied (PostHog reports hasMore/limit/offset only then). */
  limitDefaulted: boolean;
  /** The query as run, printed back as normalized ProductQL. */
  hogql: string;
  columnNames: string[];
  columns: OutputColumn[];
  timezone: string;
  /** Materialized CTEs the engine computes before `sql` (ClickHouse only; empty elsewhere): pass to EventEngine.query. */
  stages: QueryStage[];
}

/** Zones already known to be valid: building an Intl.DateTimeFormat costs ~0.15 ms, and compile runs per query. */
const validTimezones = new Set<string>();

function checkTimezone(tz: string): void {
  if (validTimezones.has(tz)) return;
  try {
    if (typeof tz !== 'string' || !tz) throw new Error('empty');
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    throw new UserError(400, 'validation_error', 'invalid_timezone', `Unknown timezone "${String(tz)}"`);
  }
  validTimezones.add(tz);
}

/** Parses (if text), resolves and prints a ProductQL query for one project. Throws UserError (400) on bad input. */
export async function compileProductQL(input: CompileProductQLInput): Promise<CompiledProductQL> {
  checkTimezone(input.timezone);
  const query = typeof input.query === 'string' ? await parseSelect(input.query) : input.query;
  return compileProductQLSync({ ...input, query });
}

/**
 * Same as {@link compileProductQL}, synchronously. Text is parsed on the calling thread without a time limit, so
 * use it for ASTs or trusted text only (and after {@link initParser}).
 */
export function compileProductQLSync(input: CompileProductQLInput): CompiledProductQL {
  checkTimezone(input.timezone);
  const printer = printers[input.dialect];
  if (!printer) throw new Error(`No ProductQL printer registered for dialect ${input.dialect}`);
  const query = typeof input.query === 'string' ? parseSelectSync(input.query) : input.query;
  for (const [k, v] of [
    ['limit', input.limit],
    ['offset', input.offset],
  ] as const) {
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < 0))
      throw new UserError(400, 'validation_error', 'invalid_input', `${k} must be a non-negative integer`, { attr: k });
  }
  const out = printer.print(query, {
    projectId: input.projectId,
    timezone: input.timezone,
    variables: input.variables,
    unknownVariables: input.unknownVariables,
    values: input.values,
    limit: input.limit,
    offset: input.offset,
    personOverrides: input.personOverrides,
    personless: input.personless,
    weekStartDay: input.weekStartDay,
    bounceRateDurationSeconds: input.bounceRateDurationSeconds,
    customChannelTypeRules: input.customChannelTypeRules,
  });
  return {
    sql: out.sql,
    params: out.params,
    limit: out.limit,
    fetchLimit: out.fetchLimit,
    offset: out.offset,
    limitDefaulted: out.limitDefaulted,
    hogql: displayHogQL(out.query, placeholderValuesOf(input.values, input.variables)),
    columnNames: out.columns.map((c) => c.name),
    columns: out.columns,
    timezone: input.timezone,
    stages: out.stages,
  };
}

/** Parses a ProductQL expression (e.g. a `hogql` property filter) into an AST node for query builders. */
export async function parseProductQLExpr(text: string): Promise<Expr> {
  return parseExpr(text);
}

// ------------------------------------------------------------------------------------------------ results

export interface ShapedResult {
  results: unknown[][];
  columns: string[];
  /** `[column, ClickHouse type]` pairs, as PostHog's HogQLQueryResponse reports them. */
  types: [string, string][];
  hasMore: boolean;
  limit: number;
  offset: number;
}

/**
 * ClickHouse-style type name for a DuckDB result type (`VARCHAR` → `String`, `TIMESTAMP` → `DateTime64(6, tz)`,
 * `INTEGER[]` → `Array(Int32)`, ...). Unknown types are reported as `String`.
 */
export function clickhouseTypeFromDuckDB(duckType: string, timezone = 'UTC'): string {
  const t = duckType.trim().toUpperCase();
  if (t.endsWith('[]')) return `Array(${clickhouseTypeFromDuckDB(duckType.trim().slice(0, -2), timezone)})`;
  const dec = /^DECIMAL\((\d+),\s*(\d+)\)$/.exec(t);
  if (dec) return `Decimal(${dec[1]}, ${dec[2]})`;
  const map: Record<string, string> = {
    VARCHAR: 'String',
    JSON: 'String',
    // (DuckDB's booleans are comparisons here: ClickHouse's UInt8; Bool values are typed by the compiler)
    BOOLEAN: 'UInt8',
    TINYINT: 'Int8',
    SMALLINT: 'Int16',
    INTEGER: 'Int32',
    BIGINT: 'Int64',
    HUGEINT: 'Int128',
    UTINYINT: 'UInt8',
    USMALLINT: 'UInt16',
    UINTEGER: 'UInt32',
    UBIGINT: 'UInt64',
    FLOAT: 'Float32',
    DOUBLE: 'Float64',
    DATE: 'Date',
    TIMESTAMP: `DateTime64(6, '${timezone}')`,
    'TIMESTAMP WITH TIME ZONE': `DateTime64(6, '${timezone}')`,
    UUID: 'UUID',
    INTERVAL: 'IntervalSecond',
    '"NULL"': 'Nothing',
    NULL: 'Nothing',
  };
  return map[t] ?? 'String';
}

const BASE_TYPES: Record<PType, string> = {
  string: 'String',
  int: 'Int64',
  float: 'Float64',
  bool: 'UInt8',
  datetime: "DateTime64(6, 'UTC')",
  date: 'Date',
  interval: 'IntervalSecond',
  json: 'String',
  uuid: 'UUID',
  array: 'Array(String)',
  null: 'Nothing',
  unknown: 'String',
};

function reportedType(col: OutputColumn, tz: string, engineType?: string): string {
  let base: string;
  if (col.chType) base = col.chType;
  else if (col.type === 'datetime') base = `DateTime64(6, '${tz}')`;
  else if (engineType && (col.type === 'unknown' || col.type === 'array' || col.type === 'int' || col.type === 'float')) {
    // Engines may report ClickHouse names already (`Int64`, `Array(String)`) or DuckDB names (`BIGINT`, `VARCHAR[]`).
    const unwrapped = engineType.replace(/^Nullable\((.*)\)$/, '$1');
    base = /[a-z]/.test(unwrapped) ? unwrapped : clickhouseTypeFromDuckDB(unwrapped, tz);
  }
  else base = BASE_TYPES[col.type];
  if (base === 'Nothing') return 'Nullable(Nothing)';
  // ClickHouse has no Nullable(Array(...)) nor Nullable(Tuple(...)), nor Nullable(Nullable(...)) (a chType may be Nullable already).
  return col.nullable && !base.startsWith('Array(') && !base.startsWith('Tuple(') && !base.startsWith('Nullable(') ? `Nullable(${base})` : base;
}

function partsIn(date: Date, tz: string): Record<string, number> {
  const f = zonedFormatter(tz);
  const out: Record<string, number> = {};
  for (const p of f.formatToParts(date)) if (p.type !== 'literal') out[p.type] = Number(p.value);
  return out;
}

const pad = (n: number, w = 2): string => String(Math.abs(n)).padStart(w, '0');

/**
 * An instant as ISO 8601 in `tz`, as PostHog's JSON renderer writes a Python datetime: `2024-03-31T02:00:00+02:00`,
 * `Z` for a zero offset, with `.ffffff` only when there are sub-second digits.
 */
export function formatDateTimeInTimezone(date: Date, tz: string): string {
  const ms = date.getTime();
  const p = partsIn(date, tz);
  const localAsUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  const offsetMin = Math.round((localAsUtc - Math.floor(ms / 1000) * 1000) / 60000);
  const frac = ((ms % 1000) + 1000) % 1000;
  return (
    `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}` +
    (frac ? `.${pad(frac, 3)}000` : '') +
    isoOffset(offsetMin)
  );
}

function toDate(v: unknown): Date | null {
  if (v instanceof Date) return v;
  if (typeof v === 'string') {
    const s = /[zZ]|[+-]\d\d:?\d\d$/.test(v) ? v : v.replace(' ', 'T') + 'Z';
    const d = new Date(s);
    return Number.isNaN(d.getTime()) ? null : d;
  }
  if (typeof v === 'number') return new Date(v);
  return null;
}

function jsonValue(v: unknown): unknown {
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (Array.isArray(v)) return v.map(jsonValue);
  if (v instanceof Date) return v.toISOString();
  if (v && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[k] = jsonValue(x);
    return o;
  }
  return v;
}

/**
 * A tuple as PostHog renders ClickHouse tuples: a JSON array. ClickHouse returns arrays already; DuckDB returns the
 * struct the printer builds, whose fields are named "1", "2", ... (nested tuples alike).
 */
function tupleValue(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(tupleValue);
  if (v && typeof v === 'object' && !(v instanceof Date)) {
    const keys = Object.keys(v);
    if (keys.length > 0 && keys.every((k, i) => k === String(i + 1))) return Object.values(v).map(tupleValue);
  }
  return jsonValue(v);
}

/** A tuple element type that is a datetime or a date. */
const TIME_ELEMENT = /^(?:Nullable\()?(DateTime(?:64)?\(.*\)|Date)\)?$/;

function convertCell(v: unknown, col: OutputColumn | undefined, tz: string): unknown {
  if (v === null || v === undefined) return null;
  // an array of datetimes or dates (groupArray(timestamp), [toDate(x)]): each element as a value of that type is shown
  const element = col?.type === 'array' ? /^Array\((?:Nullable\()?(DateTime(?:64)?\(.*\)|Date)\)?\)$/.exec(col.chType ?? '')?.[1] : undefined;
  if (element && Array.isArray(v)) return v.map((x) => convertCell(x, { ...col!, type: element === 'Date' ? 'date' : 'datetime', chType: element }, tz));
  if (col?.type === 'datetime') {
    const d = toDate(v);
    // A value converted with toTimeZone(x, zone) is typed DateTime64(6, '<zone>') and shown there; a DateTime('<zone>')
    // (toStartOfDay, toDateTime(number | datetime), ...) has whole seconds.
    const typed = col.chType ? /^DateTime(64\(\d, )?\(?'([^']+)'\)$/.exec(col.chType) : null;
    const zone = typed?.[2];
    const whole = d && typed && !typed[1] ? new Date(Math.floor(d.getTime() / 1000) * 1000) : d;
    return whole ? formatDateTimeInTimezone(whole, zone ?? tz) : jsonValue(v);
  }
  if (col?.chType?.startsWith('Tuple(')) {
    // a tuple holding datetimes or dates (tumble(t, size)): those elements shown as values of their type
    const items = typeList(col.chType.slice('Tuple('.length, -1));
    const elements = Array.isArray(v) ? v : tupleValue(v);
    if (Array.isArray(elements) && items.some((t) => TIME_ELEMENT.test(t)))
      return elements.map((x, i) => {
        const m = TIME_ELEMENT.exec(items[i] ?? '');
        if (!m || x === null || x === undefined) return tupleValue(x);
        const datetime = m[1] !== 'Date';
        // (ClickHouse's datetimes arrive as epoch milliseconds)
        const raw = datetime && typeof x === 'string' && /^-?\d+$/.test(x) ? Number(x) : x;
        return convertCell(raw, { ...col, type: datetime ? 'datetime' : 'date', chType: m[1] }, tz);
      });
  }
  if (col?.chType?.startsWith('Tuple(') || col?.chType?.startsWith('Array(Tuple(')) return tupleValue(v);
  if (col?.type === 'interval') return intervalValue(v, col.chType);
  if (col?.type === 'date') {
    if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v)) return v;
    const d = toDate(v);
    return d ? d.toISOString().slice(0, 10) : jsonValue(v);
  }
  return jsonValue(v);
}

/**
 * An interval as ClickHouse returns it: the number of units of its type (`toIntervalDay(5)` is 5, an IntervalDay).
 * DuckDB returns its INTERVAL as months, days and microseconds.
 */
function intervalValue(v: unknown, chType: string | undefined): unknown {
  if (typeof v !== 'object' || v === null || !('months' in v) || !('days' in v) || !('micros' in v)) return jsonValue(v);
  const { months, days, micros } = v as { months: unknown; days: unknown; micros: unknown };
  const unit = (/^Interval(\w+)$/.exec(chType ?? '')?.[1] ?? 'Second').toLowerCase() as IntervalUnit;
  const perMonths = MONTHS_PER_UNIT[unit];
  if (perMonths) return Number(months) / perMonths;
  const seconds = Number(months) * 30 * 86_400 + Number(days) * 86_400 + Number(micros) / 1e6;
  return seconds / (SECONDS_PER_UNIT[unit] ?? 1);
}

/** The top-level parts of a type list: `UInt8, Tuple(String, Bool)` → `['UInt8', 'Tuple(String, Bool)']`. */
function typeList(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')') depth--;
    else if (s[i] === ',' && depth === 0) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(s.slice(start).trim());
  return out;
}

/**
 * Booleans as ClickHouse returns them: only values of type Bool (the literals true/false, toBool) are true/false;
 * comparisons and logical operators are UInt8, 1/0. DuckDB returns booleans for both, ClickHouse 18.16 (which has no
 * Bool type) 1/0 for both: `type` (the reported ClickHouse type) tells them apart, inside arrays and tuples too.
 */
function clickhouseBools(v: unknown, type: string | undefined): unknown {
  const t = type?.replace(/^Nullable\((.*)\)$/, '$1');
  if (typeof v === 'boolean') return t === 'Bool' ? v : Number(v);
  if (typeof v === 'number') return t === 'Bool' ? v !== 0 : v;
  if (Array.isArray(v)) {
    if (t?.startsWith('Array(')) return v.map((x) => clickhouseBools(x, t.slice(6, -1)));
    if (t?.startsWith('Tuple(')) {
      const items = typeList(t.slice(6, -1));
      return v.map((x, i) => clickhouseBools(x, items[i]));
    }
    return v.map((x) => clickhouseBools(x, undefined));
  }
  return v;
}

/**
 * Turns engine rows into the HogQL response fields. `rows` may hold `limit + 1` rows; the extra one only sets
 * `hasMore`. `engineTypes` (optional; ClickHouse-style names as the engines report
 * them, or raw DuckDB names) refine the reported types of computed columns whose type the resolver cannot tell.
 */
export function shapeResult(
  rows: readonly unknown[][],
  compiled: Pick<CompiledProductQL, 'columns' | 'limit' | 'offset' | 'timezone'>,
  engineTypes?: readonly string[],
): ShapedResult {
  const tz = compiled.timezone;
  const hasMore = rows.length > compiled.limit;
  const kept = hasMore ? rows.slice(0, compiled.limit) : rows;
  const types = compiled.columns.map((c, i): [string, string] => [c.name, reportedType(c, tz, engineTypes?.[i])]);
  return {
    results: kept.map((r) => r.map((v, i) => clickhouseBools(convertCell(v, compiled.columns[i], tz), types[i]?.[1]))),
    columns: compiled.columns.map((c) => c.name),
    types,
    hasMore,
    limit: compiled.limit,
    offset: compiled.offset,
  };
}

export { DEFAULT_LIMIT as PRODUCTQL_DEFAULT_LIMIT, MAX_LIMIT as PRODUCTQL_MAX_LIMIT };
