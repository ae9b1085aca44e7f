/**
 * The dialect-independent function allow-list: names (HogQL / ClickHouse spelling), arity and kind. A name that
 * is not here is an unknown function (400). Each dialect maps every name to its own SQL; a test checks that the
 * DuckDB dialect covers the whole list.
 */

export type FunctionKind = 'scalar' | 'aggregate' | 'window';

export interface FunctionSignature {
  name: string;
  min: number;
  max: number;
  kind: FunctionKind;
  /** Parametric aggregates (`quantile(0.9)(x)`): allowed number of parameters. */
  params?: [number, number];
  /**
   * Set on `<aggregate>If` names without their own entry (ClickHouse's -If combinator, which HogQL allows on every
   * aggregation): the aggregate they filter. The last argument is the condition.
   */
  ifOf?: string;
  /** Set on `<aggregate>Distinct` names (ClickHouse's -Distinct combinator): the aggregate over distinct values. */
  distinctOf?: string;
  /**
   * Set on `<aggregate>OrNull` / `<aggregate>OrDefault` names (ClickHouse's combinators): the aggregate, and what it
   * reads when it had no value to aggregate: NULL, or its type's default (0, '').
   */
  orOf?: { base: string; mode: 'null' | 'default' };
  /** Set on `<aggregate>Array` names (ClickHouse's -Array combinator): the aggregate over the elements of its array argument. */
  arrayOf?: string;
  /**
   * Set on `<aggregate>State` / `<aggregate>Merge` names (ClickHouse's combinators): the aggregate whose intermediate
   * state the call computes (State), or whose states it merges into the aggregate's value (Merge, one argument).
   */
  stateOf?: string;
  mergeOf?: string;
  /** Set on `<aggregate>ForEach` names (ClickHouse's -ForEach combinator): the aggregate of each array position over the rows. */
  forEachOf?: string;
}

/** The element types of ClickHouse's emptyArray<Type>() functions, and the DuckDB type of their elements. */
export const EMPTY_ARRAY_TYPES: Readonly<Record<string, string>> = {
  String: 'VARCHAR',
  UInt8: 'UTINYINT',
  UInt16: 'USMALLINT',
  UInt32: 'UINTEGER',
  UInt64: 'UBIGINT',
  Int8: 'TINYINT',
  Int16: 'SMALLINT',
  Int32: 'INTEGER',
  Int64: 'BIGINT',
  Float32: 'FLOAT',
  Float64: 'DOUBLE',
};

const sigs: FunctionSignature[] = [];
const add = (kind: FunctionKind, min: number, max: number, names: string[], params?: [number, number]): void => {
  for (const name of names) sigs.push({ name, min, max, kind, ...(params ? { params } : {}) });
};

// Aggregates
add('aggregate', 0, 1, ['count']);
// countIf(cond) or countIf(x, cond): PostHog allows 1 to 2 arguments.
add('aggregate', 1, 2, ['countIf']);
add('aggregate', 1, 10, ['uniq', 'uniqExact']);
add('aggregate', 2, 2, ['uniqIf', 'uniqExactIf', 'sumIf', 'avgIf', 'minIf', 'maxIf', 'argMax', 'argMin', 'anyIf']);
add('aggregate', 1, 1, ['sum', 'avg', 'min', 'max', 'any', 'median', 'stddevPop', 'stddevSamp', 'varPop', 'varSamp']);
// groupArray(max_size)(x): the first max_size values
add('aggregate', 1, 1, ['groupArray', 'groupUniqArray'], [0, 1]);
add('aggregate', 1, 1, ['quantile'], [1, 1]);
add('aggregate', 1, 1, ['quantiles'], [1, 20]);

// Window-only functions
add('window', 0, 0, ['row_number', 'rank', 'dense_rank', 'percent_rank', 'cume_dist']);
add('window', 1, 1, ['ntile', 'first_value', 'last_value']);
add('window', 1, 3, ['lag', 'lead', 'lagInFrame', 'leadInFrame']);
add('window', 2, 2, ['nth_value']);

// Dates and times (project timezone)
add('scalar', 1, 2, ['toDate', 'toDateTime', 'toStartOfWeek']);
add('scalar', 1, 1, [
  'toStartOfMinute',
  'toStartOfFiveMinutes',
  'toStartOfFifteenMinutes',
  'toStartOfHour',
  'toStartOfDay',
  'toStartOfMonth',
  'toStartOfQuarter',
  'toStartOfYear',
  'toYear',
  'toMonth',
  'toDayOfMonth',
  'toDayOfWeek',
  'toHour',
  'toMinute',
  'toUnixTimestamp',
  'fromUnixTimestamp',
  'toIntervalSecond',
  'toIntervalMinute',
  'toIntervalHour',
  'toIntervalDay',
  'toIntervalWeek',
  'toIntervalMonth',
  'toIntervalQuarter',
  'toIntervalYear',
]);
add('scalar', 2, 2, ['toTimeZone']);
add('scalar', 0, 0, ['today', 'yesterday']);
// now([tz]): the current instant, shown in the zone given (ClickHouse's now(timezone))
add('scalar', 0, 1, ['now']);
add('scalar', 3, 3, ['dateDiff', 'date_diff', 'dateAdd', 'date_add', 'dateSub', 'date_sub']);

// Conditionals and nulls
add('scalar', 3, 3, ['if']);
add('scalar', 3, 201, ['multiIf']);
add('scalar', 4, 201, ['_caseWithExpression']);
add('scalar', 1, 100, ['coalesce']);
add('scalar', 2, 2, ['ifNull', 'nullIf']);
add('scalar', 1, 1, ['isNull', 'isNotNull', 'assumeNotNull']);

// Strings
add('scalar', 1, 1, ['lower', 'upper', 'length', 'empty', 'notEmpty', 'reverse']);
// `trim([LEADING|TRAILING|BOTH] chars FROM s)` parses as trimLeft/trimRight/trim(s, chars): chars is a set of characters.
add('scalar', 1, 2, ['trim', 'trimLeft', 'trimRight']);
// HogQL's two-argument least/greatest (posthog/hogql/functions/mapping.py).
add('scalar', 2, 2, ['min2', 'max2']);
add('scalar', 1, 100, ['concat']);
add('scalar', 2, 3, ['substring']);
add('scalar', 3, 3, ['replaceAll', 'replace', 'replaceRegexpAll', 'replaceRegexpOne']);
add('scalar', 2, 3, ['regexpExtract']);
add('scalar', 1, 100, ['format']);
add('scalar', 2, 2, ['position', 'startsWith', 'endsWith', 'like', 'ilike', 'notLike', 'notILike', 'match', 'extract', 'extractAll', 'splitByChar', 'splitByString']);

// Conversions and maths
add('scalar', 1, 1, ['toString', 'toInt', 'toInt64', 'toInt32', 'toFloat', 'toFloat64', 'toUUID', 'toBool', 'abs', 'sqrt', 'exp', 'log', 'log2', 'log10']);
// round/floor/ceil(x[, N]): to N decimal places (N < 0: to tens, hundreds, ...)
add('scalar', 1, 2, ['round', 'floor', 'ceil']);
add('scalar', 2, 2, ['pow', 'power', 'intDiv', 'modulo', 'plus', 'minus', 'multiply', 'divide']);
add('scalar', 2, 2, ['bitAnd', 'bitOr', 'bitXor']);
add('scalar', 2, 100, ['greatest', 'least']);

// Operators spelled as functions
add('scalar', 2, 2, ['equals', 'notEquals', 'less', 'lessOrEquals', 'greater', 'greaterOrEquals']);
add('scalar', 2, 100, ['and', 'or']);
add('scalar', 1, 1, ['not']);

// Arrays and tuples
add('scalar', 2, 2, ['has', 'indexOf', 'arrayElement']);
// arrayExists / arrayAll / arrayCount([lambda,] arr1, ...): without a lambda, the non-zero elements (ClickHouse's);
// arraySum / arrayMin / arrayMax / arrayAvg([lambda,] arr1, ...): of the lambda's values (compiler.ts arrayOverLambda)
add('scalar', 1, 11, ['arrayExists', 'arrayAll', 'arrayCount']);
// arrayMap/arrayFilter over several arrays (`arrayMap((x, y) -> x + y, a, b)`): the i-th elements together.
add('scalar', 2, 11, ['arrayMap', 'arrayFilter']);
add('scalar', 1, 1, ['arrayJoin']);
add('scalar', 0, 100, ['array', 'tuple']);

/**
 * Allow-listed functions that ClickHouse 18.16 lacks and that cannot be spelled with what it has: a clear 400 there
 * ("not available on ClickHouse") rather than an engine error.
 */
export const DUCKDB_ONLY_FUNCTIONS: ReadonlySet<string> = new Set([
  'base64Encode',
  'base64Decode',
  'tryBase64Decode',
  'JSONExtractArrayRaw',
  'JSONExtractKeys',
  'JSONExtractKeysAndValues',
  'isValidJSON',
  'toJSONString',
  'encodeURLComponent',
  'roundBankers',
  'splitByRegexp',
  'JSONArrayLength',
]);

/**
 * Functions only the ClickHouse dialect prints (none left: the array functions the funnels runner's ClickHouse path
 * uses, arraySort ... arrayReduce, print on DuckDB too; DuckDB's arrayReduce takes min, max and sum).
 */
export const CLICKHOUSE_ONLY_FUNCTIONS: ReadonlySet<string> = new Set<string>();
add('scalar', 1, 11, ['arraySort', 'arrayReverseSort']);
add('scalar', 1, 1, ['arrayCumSum', 'arrayCumSumNonNegative', 'arrayDifference', 'arrayPopFront', 'arrayPopBack', 'arrayEnumerate']);
add('scalar', 2, 2, ['arrayPushFront', 'arrayPushBack']);
add('scalar', 2, 10, ['arrayConcat', 'arrayReduce']);

// Added for HogQL parity (posthog/hogql/functions/mapping.py), ClickHouse semantics on every engine.
// Dates and times
add('scalar', 2, 3, ['formatDateTime', 'dateTrunc', 'date_trunc']);
add('scalar', 2, 2, ['toStartOfInterval']);
// toWeek(x[, mode[, tz]]), toYearWeek(...): MySQL's week modes, as a ProductQL expression (week-number.ts)
add('scalar', 1, 3, ['toWeek', 'toYearWeek']);
add('scalar', 1, 1, [
  'toTypeName',
  'toDayOfYear',
  'toISOWeek',
  'toISOYear',
  'toSecond',
  'toQuarter',
  'toYYYYMM',
  'toYYYYMMDD',
  'toYYYYMMDDhhmmss',
  'toMonday',
  'toStartOfTenMinutes',
  'toStartOfSecond',
  'toRelativeDayNum',
  'toRelativeWeekNum',
  'toRelativeMonthNum',
  'toRelativeYearNum',
  'toUnixTimestamp64Milli',
  'fromUnixTimestamp64Milli',
]);
add('scalar', 1, 3, ['toDateTime64']);
add('scalar', 1, 2, ['parseDateTimeBestEffort', 'parseDateTimeBestEffortOrNull', 'parseDateTimeBestEffortOrZero', 'toDateOrNull', 'toDateTimeOrNull']);
// parseDateTime(text, format[, tz]): MySQL format codes (dialect.ts parseDateTimeFormat); NULL when the text does not match
add('scalar', 2, 3, ['parseDateTime', 'parseDateTimeOrNull']);
// parseDateTimeInJodaSyntax(text, format[, tz]): Joda fields yyyy MM dd HH mm ss (compiler.ts: as parseDateTime); NULL when no match
add('scalar', 2, 3, ['parseDateTimeInJodaSyntax', 'parseDateTimeInJodaSyntaxOrNull']);
// Strings
add('scalar', 2, 2, ['left', 'right', 'positionCaseInsensitive', 'positionUTF8', 'positionCaseInsensitiveUTF8']);
// initcap(s): each word's first letter upper case, the rest lower case (words: runs of ASCII letters and digits)
add('scalar', 1, 1, ['initcap']);
add('scalar', 1, 1, ['lengthUTF8', 'lowerUTF8', 'upperUTF8', 'reverseUTF8', 'base64Encode', 'base64Decode', 'tryBase64Decode']);
add('scalar', 3, 3, ['replaceOne']);
add('scalar', 2, 3, ['substringUTF8']);
// Conversions
add('scalar', 1, 1, ['toIntOrNull', 'toInt64OrNull', 'toFloatOrNull', 'toFloat64OrNull', 'toIntOrZero', 'toFloatOrZero', 'toFloat64OrZero']);
// ClickHouse's fixed-width integers (dialect.ts intConversionOf): toUInt8 .. toUInt64, toInt8 .. toInt64, -OrNull, -OrZero.
add('scalar', 1, 1, [
  ...['8', '16', '32', '64'].flatMap((b) => [`toUInt${b}`, `toUInt${b}OrNull`, `toUInt${b}OrZero`, `toInt${b}OrZero`]),
  ...['8', '16'].map((b) => `toInt${b}`),
  ...['8', '16', '32'].map((b) => `toInt${b}OrNull`),
]);
// Decimals (dialect.ts decimalConversionOf): HogQL's toDecimal(x, scale) (accurateCastOrNull to Decimal64(scale)) and
// ClickHouse's toDecimal32/64/128(x, scale) with -OrNull / -OrZero.
add('scalar', 2, 2, ['toDecimal', ...['32', '64', '128'].flatMap((b) => [`toDecimal${b}`, `toDecimal${b}OrNull`, `toDecimal${b}OrZero`])]);
// Arrays
add('scalar', 1, 11, ['arraySum']);
add('scalar', 1, 1, ['arrayDistinct', 'arrayReverse', 'arrayUniq']);
add('scalar', 1, 2, ['arrayStringConcat']);
add('scalar', 2, 3, ['arraySlice']);
add('scalar', 2, 2, ['hasAny', 'hasAll']);
// Tuples: `tupleElement(t, 2)` is `t.2`.
add('scalar', 2, 2, ['tupleElement']);

// JSON
add('scalar', 1, 20, ['JSONExtractString', 'JSONExtractInt', 'JSONExtractFloat', 'JSONExtractBool', 'JSONExtractRaw', 'JSONLength']);
add('scalar', 2, 20, ['JSONHas']);
// The elements of a JSON array as raw JSON text, the keys of a JSON object (ARRAY JOIN over properties): DuckDB only,
// as ClickHouse 18.16 has no JSONExtract*.
add('scalar', 1, 20, ['JSONExtractArrayRaw', 'JSONExtractKeys']);
// JSONExtractKeysAndValues(json[, keys...], 'ValueType')
add('scalar', 2, 21, ['JSONExtractKeysAndValues']);

// ---- More of posthog/hogql/functions/mapping.py (HOGQL_AGGREGATIONS, HOGQL_CLICKHOUSE_FUNCTIONS, HOGQL_POSTHOG_FUNCTIONS)
// Aggregations. The approximate ClickHouse variants (uniqCombined, quantileTDigest, ...) are computed exactly: the
// same answer an exact count gives, which is what PostHog's tests of them expect on small data.
add('aggregate', 1, 1, ['anyLast', 'anyHeavy', 'medianExact', 'medianExactLow', 'medianExactHigh', 'medianTiming', 'medianTDigest', 'groupBitAnd', 'groupBitOr', 'groupBitXor']);
add('aggregate', 2, 2, ['covarPop', 'covarSamp', 'corr', 'avgWeighted', 'medianDeterministic']);
add('aggregate', 1, 10, ['uniqCombined', 'uniqCombined64', 'uniqHLL12', 'uniqTheta']);
add('aggregate', 1, 1, ['uniqUpTo'], [1, 1]);
add('aggregate', 1, 1, ['topK'], [0, 1]);
add('aggregate', 1, 1, ['quantileExact', 'quantileExactLow', 'quantileExactHigh', 'quantileTiming', 'quantileTDigest'], [1, 1]);
add('aggregate', 2, 2, ['quantileDeterministic'], [1, 1]);

/**
 * Approximate ClickHouse aggregations answered by their exact counterpart, on every engine (the compiler rewrites
 * the call before the dialect sees it): the target's name, and how many leading arguments it takes (the
 * `Deterministic` variants' second argument only seeds ClickHouse's sampling).
 */
export const EXACT_VARIANTS: Readonly<Record<string, { to: string; args?: number }>> = {
  uniqCombined: { to: 'uniqExact' },
  uniqCombined64: { to: 'uniqExact' },
  uniqHLL12: { to: 'uniqExact' },
  uniqTheta: { to: 'uniqExact' },
  medianTDigest: { to: 'median' },
  medianDeterministic: { to: 'median', args: 1 },
  quantileTDigest: { to: 'quantile' },
  quantileDeterministic: { to: 'quantile', args: 1 },
};
// Maths
add('scalar', 0, 0, ['e', 'pi']);
add('scalar', 1, 1, ['ln', 'exp2', 'exp10', 'cbrt', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'sign', 'degrees', 'radians', 'log1p', 'negate', 'isFinite', 'isInfinite', 'isNaN']);
add('scalar', 2, 2, ['atan2', 'hypot', 'intDivOrZero', 'moduloOrZero', 'gcd', 'lcm']);
add('scalar', 1, 2, ['trunc', 'roundBankers']);
// roundToExp2(x): 0 below 1, else the greatest power of two not above x; roundDuration / roundAge(x): the greatest of
// ClickHouse's fixed steps not above x (0 below the first), as its documentation states them
add('scalar', 1, 1, ['roundToExp2', 'roundDuration', 'roundAge']);

/** The steps of roundDuration and roundAge: [from, value], ascending; below the first one reads 0. */
export const ROUND_STEPS: Readonly<Record<'roundDuration' | 'roundAge', readonly (readonly [number, number])[]>> = {
  roundDuration: [1, 10, 30, 60, 120, 180, 240, 300, 600, 1200, 1800, 3600, 7200, 18000, 36000].map((v) => [v, v] as const),
  roundAge: [
    [1, 17],
    [18, 18],
    [25, 25],
    [35, 35],
    [45, 45],
    [55, 55],
  ],
};
add('scalar', 2, 2, ['positiveModulo', 'bitShiftLeft', 'bitShiftRight']);
add('scalar', 1, 1, ['bitNot']);
add('scalar', 2, 10, ['xor']);
// Conversions
add('scalar', 1, 1, ['toUUIDOrNull', 'toUUIDOrZero', 'toNullable', 'toLowCardinality', 'toJSONString']);
add('scalar', 2, 2, ['toFloatOrDefault']);
// Dates and times
add('scalar', 2, 2, [
  'addSeconds',
  'addMinutes',
  'addHours',
  'addDays',
  'addWeeks',
  'addMonths',
  'addQuarters',
  'addYears',
  'subtractSeconds',
  'subtractMinutes',
  'subtractHours',
  'subtractDays',
  'subtractWeeks',
  'subtractMonths',
  'subtractQuarters',
  'subtractYears',
]);
add('scalar', 1, 1, ['toLastDayOfMonth', 'toRelativeQuarterNum', 'monthName']);
add('scalar', 3, 3, ['age']);
// timeSlot, toStartOfISOYear, toLastDayOfWeek(t[, mode]), (to|from)ModifiedJulianDay[OrNull]: compiler.ts CALENDAR_REWRITES
add('scalar', 1, 1, ['timeSlot', 'toStartOfISOYear', 'toModifiedJulianDay', 'toModifiedJulianDayOrNull', 'fromModifiedJulianDay', 'fromModifiedJulianDayOrNull']);
add('scalar', 1, 2, ['toLastDayOfWeek']);
// time windows: tumble(t, size), hop(t, step, size), their Start / End of those or of a window (compiler.ts timeWindowExpr)
add('scalar', 2, 2, ['tumble']);
add('scalar', 3, 3, ['hop']);
add('scalar', 1, 2, ['tumbleStart', 'tumbleEnd']);
add('scalar', 1, 3, ['hopStart', 'hopEnd']);
// dateName(part, t): compiler.ts DATE_NAME_PARTS
add('scalar', 2, 2, ['dateName']);
// timeStampAdd(datetime, interval) / timeStampSub: datetime + interval, datetime - interval (ClickHouse's aliases timestamp_add / timestamp_sub)
add('scalar', 2, 2, ['timeStampAdd', 'timeStampSub', 'timestamp_add', 'timestamp_sub']);
// Strings
add('scalar', 2, 3, ['leftPad', 'rightPad', 'leftPadUTF8', 'rightPadUTF8']);
add('scalar', 2, 2, ['repeat', 'appendTrailingCharIfAbsent', 'splitByRegexp', 'countSubstrings', 'leftUTF8', 'rightUTF8']);
add('scalar', 1, 100, ['concatWithSeparator']);
add('scalar', 1, 1, ['splitByWhitespace', 'hex', 'decodeURLComponent', 'encodeURLComponent']);
// unhex(s): the bytes of hexadecimal digits, as text (an odd count reads the first digit alone)
add('scalar', 1, 1, ['unhex']);
// URLs (ClickHouse's URL functions)
add('scalar', 1, 1, [
  'protocol',
  'domain',
  'domainWithoutWWW',
  'topLevelDomain',
  'firstSignificantSubdomain',
  'cutToFirstSignificantSubdomain',
  'path',
  'pathFull',
  'queryString',
  'fragment',
  'queryStringAndFragment',
  'extractURLParameters',
  'extractURLParameterNames',
  'cutWWW',
  'cutQueryString',
  'cutFragment',
  'cutQueryStringAndFragment',
]);
add('scalar', 2, 2, ['extractURLParameter']);
// netloc(url): `user:pass@host:port`; port(url[, default]): the port, or the default (0)
add('scalar', 1, 1, ['netloc']);
add('scalar', 1, 2, ['port']);
// ifNotFinite(x, y): x unless it is infinite or NaN (then y)
add('scalar', 2, 2, ['ifNotFinite']);
// Arrays
add('scalar', 1, 3, ['range']);
add('scalar', 2, 11, ['arrayFirst', 'arrayLast', 'arrayFirstIndex', 'arrayLastIndex']);
add('scalar', 2, 2, ['countEqual']);
add('scalar', 1, 11, ['arrayMin', 'arrayMax', 'arrayAvg']);
add('scalar', 1, 1, ['arrayCompact', 'arrayFlatten']);
add('scalar', 1, 10, ['arrayIntersect']);
// arrayResize(arr, size[, extender]), arrayWithConstant(n, x), arrayRotateLeft/Right(arr, n); arrayEnumerateUniq(arr):
// each element's occurrence number so far; arrayEnumerateDense(arr): the rank of each element's first occurrence
add('scalar', 2, 3, ['arrayResize']);
add('scalar', 2, 2, ['arrayWithConstant', 'arrayRotateLeft', 'arrayRotateRight']);
// hasSubstr(arr, sub): whether sub's elements appear in arr one after another, in that order
add('scalar', 2, 2, ['hasSubstr']);
add('scalar', 1, 1, ['arrayEnumerateUniq', 'arrayEnumerateDense']);
add('scalar', 1, 10, ['arrayZip']);
// JSON
add('scalar', 1, 20, ['JSONExtractUInt']);
// JSONExtract(json, keys..., 'Type')
add('scalar', 2, 21, ['JSONExtract']);
add('scalar', 1, 1, ['isValidJSON']);
add('scalar', 1, 20, ['JSONArrayLength']);
// Conditionals: transform(x, [from...], [to...][, default])
add('scalar', 3, 4, ['transform']);
// Hashes of a string (dialect.ts HASH_DIGESTS): its digest, shown as lowercase hex text on every engine
add('scalar', 1, 1, ['MD5', 'SHA1', 'SHA256']);
// Hashes of an integer (dialect.ts intHashArgument): ClickHouse's intHash32 / intHash64, the same numbers on every engine
add('scalar', 1, 1, ['intHash32', 'intHash64']);
// timeZoneOf(datetime): the zone a value is shown in; intExp2/intExp10(n): 2^n, 10^n as integers
add('scalar', 1, 1, ['timeZoneOf', 'intExp2', 'intExp10']);
add('scalar', 2, 2, ['countSubstringsCaseInsensitive']);
// countMatches(haystack, pattern): the number of non-overlapping matches of a regular expression
add('scalar', 2, 2, ['countMatches', 'countMatchesCaseInsensitive']);
// emptyArrayString() ...: an empty array of that element type
add('scalar', 0, 0, Object.keys(EMPTY_ARRAY_TYPES).map((t) => `emptyArray${t}`));
// Searches for several needles at once (multi-search.ts): multiSearchAny(haystack, ['a', 'b']), multiMatchAny(haystack, [patterns])
add('scalar', 2, 2, ['multiSearchAny', 'multiSearchFirstIndex', 'multiSearchFirstPosition', 'multiSearchAllPositions', 'multiSearchAllPositionsUTF8', 'multiMatchAny', 'multiMatchAnyIndex']);
// PostHog's own: sparkline(values) is a chart marker tuple the frontend draws.
add('scalar', 1, 1, ['sparkline']);
// PostHog's recording_button(session_id[, recording_status]): a tag tuple the frontend draws as a button (dialect.ts)
add('scalar', 1, 2, ['recording_button']);
// PostHog's sortableSemver(version): the numbers of its leading dotted version as an array, which sorts as versions do
add('scalar', 1, 1, ['sortableSemver']);

/**
 * The calendar functions of HogQL's mapping that take a timezone after their value, as ClickHouse's do:
 * `toStartOfDay(x[, tz])`, `toUnixTimestamp(x[, tz])`, `toDayOfWeek(x[, mode[, tz]])` (posthog/hogql/functions/
 * mapping.py: 1 to 2, 1 to 2 and 1 to 3 arguments; its other date functions take the value alone). The value is
 * read in that zone (a string without an offset is that zone's local time) and a datetime result is shown there, as
 * `f(toDateTime(x, tz))` would be. (toDateTime, toDate, formatDateTime, dateTrunc and parseDateTimeBestEffort take
 * theirs in their own code.)
 */
export const TIMEZONE_ARGUMENT: ReadonlySet<string> = new Set(['toStartOfDay', 'toUnixTimestamp', 'toDayOfWeek']);
for (const sig of sigs) if (TIMEZONE_ARGUMENT.has(sig.name)) sig.max = timezoneArgumentIndex(sig.name) + 1;

/** The position of a TIMEZONE_ARGUMENT function's zone argument. */
export function timezoneArgumentIndex(name: string): number {
  return name === 'toDayOfWeek' ? 2 : 1;
}

/** Functions whose first argument is a lambda (`arrayMap(x -> x * 2, arr)`). */
export const LAMBDA_FUNCTIONS: ReadonlySet<string> = new Set([
  'arrayMap',
  'arrayFilter',
  'arrayExists',
  'arrayCount',
  'arrayAll',
  'arrayFirst',
  'arrayLast',
  'arrayFirstIndex',
  'arrayLastIndex',
  'arraySort',
  'arrayReverseSort',
]);
/** Of those, the ones whose lambda may be left out: `arraySort(arr)`, or `arraySort(x -> key, arr[, more arrays])`. */
export const OPTIONAL_LAMBDA_FUNCTIONS: ReadonlySet<string> = new Set(['arraySort', 'arrayReverseSort']);

export const FUNCTIONS: ReadonlyMap<string, FunctionSignature> = new Map(sigs.map((s) => [s.name, s]));

/**
 * The names HogQL also accepts in any letter case (`COUNT()`, `Sum(x)`, `LOWER(s)`): its `case_sensitive=False`
 * entries of posthog/hogql/functions/mapping.py, the SQL-standard names ClickHouse itself takes in any case. Every
 * other name must be spelled exactly (`TOString(x)` is an unknown function there, as in HogQL).
 */
const CASE_INSENSITIVE = [
  'count',
  'sum',
  'avg',
  'min',
  'max',
  'abs',
  'if',
  'coalesce',
  'lower',
  'upper',
  'length',
  'substring',
  'concat',
  'trim',
  'replace',
  'position',
  'round',
  'floor',
  'ceil',
  'sqrt',
  'exp',
  'log',
  'ln',
  'pow',
  'power',
  'pi',
  'sin',
  'cos',
  'tan',
  'asin',
  'acos',
  'atan',
  'greatest',
  'least',
  'now',
  'today',
  'date_trunc',
  'date_diff',
  'date_add',
  'date_sub',
];
const lowerIndex = new Map(CASE_INSENSITIVE.map((name) => [name, FUNCTIONS.get(name)!]));

const exact = (name: string): FunctionSignature | undefined => FUNCTIONS.get(name) ?? lowerIndex.get(name.toLowerCase());

/** The aggregates the -Array combinator applies to (`sumArray(arr)`, `uniqArray(arr)`, `groupArrayArray(arr)`). */
export const ARRAY_COMBINABLE: ReadonlySet<string> = new Set(['count', 'sum', 'avg', 'min', 'max', 'uniq', 'uniqExact', 'groupArray', 'groupUniqArray']);

/** The aggregates the -ForEach combinator applies to. */
export const FOREACH_COMBINABLE: ReadonlySet<string> = new Set(['count', 'sum', 'min', 'max']);

/** The aggregates the -State / -Merge combinators apply to. */
export const STATE_COMBINABLE: ReadonlySet<string> = new Set(['count', 'sum', 'avg', 'min', 'max', 'uniq', 'uniqExact', 'argMax', 'argMin']);

const own = (obj: object, key: string): boolean => Object.prototype.hasOwnProperty.call(obj, key);

/**
 * Exact name first, then the case-insensitive ones in any case (HogQL accepts `COUNT()`, `Sum()`); then `<aggregate>If`, ClickHouse's -If
 * combinator on any allowed aggregation (`argMaxIf(x, t, cond)`, `quantileIf(0.9)(x, cond)`): one more argument.
 */
export const lookupFunction = (name: string): FunctionSignature | undefined => {
  if (typeof name !== 'string') return undefined;
  const found = exact(name);
  if (found) return found;
  if (name.length > 2 && name.endsWith('If')) {
    const base = lookupFunction(name.slice(0, -2));
    if (!base || base.kind !== 'aggregate' || base.name.endsWith('If')) return undefined;
    return { name: `${base.name}If`, min: base.min + 1, max: base.max + 1, kind: 'aggregate', ...(base.params ? { params: base.params } : {}), ifOf: base.name };
  }
  for (const [suffix, mode] of [
    ['OrNull', 'null'],
    ['OrDefault', 'default'],
  ] as const) {
    if (name.length <= suffix.length || !name.endsWith(suffix)) continue;
    // `sumOrNull(x)`, `avgIfOrDefault(x, cond)`: the aggregate (combinators nest: -If, -Array, -Distinct inside)
    const base = lookupFunction(name.slice(0, -suffix.length));
    if (!base || base.kind !== 'aggregate' || base.orOf || own(EXACT_VARIANTS, base.name)) return undefined;
    return { name: `${base.name}${suffix}`, min: base.min, max: base.max, kind: 'aggregate', ...(base.params ? { params: base.params } : {}), orOf: { base: base.name, mode } };
  }
  if (name.length > 5 && (name.endsWith('State') || name.endsWith('Merge'))) {
    // `uniqState(x)` in a subquery, `uniqMerge(state)` over its rows: the same count as uniq over all of them
    const base = exact(name.slice(0, -5));
    if (!base || !STATE_COMBINABLE.has(base.name)) return undefined;
    if (name.endsWith('State')) return { name: `${base.name}State`, min: base.min, max: base.max, kind: 'aggregate', stateOf: base.name };
    return { name: `${base.name}Merge`, min: 1, max: 1, kind: 'aggregate', mergeOf: base.name };
  }
  if (name.length > 7 && name.endsWith('ForEach')) {
    // `sumForEach(arr)`: [sum of the first elements, sum of the second elements, ...]
    const base = exact(name.slice(0, -7));
    if (!base || !FOREACH_COMBINABLE.has(base.name)) return undefined;
    return { name: `${base.name}ForEach`, min: 1, max: 1, kind: 'aggregate', forEachOf: base.name };
  }
  if (name.length > 5 && name.endsWith('Array')) {
    // `sumArray(arr)`: the aggregate over the arrays' elements (`groupArray` itself is exact, found above)
    const base = exact(name.slice(0, -5));
    if (!base || !ARRAY_COMBINABLE.has(base.name)) return undefined;
    return { name: `${base.name}Array`, min: 1, max: 1, kind: 'aggregate', arrayOf: base.name };
  }
  if (name.length > 8 && name.endsWith('Distinct')) {
    // `sumDistinct(x)`, `countDistinct(x)`: the aggregate of the distinct values (combinators nest as -DistinctIf)
    const base = exact(name.slice(0, -8));
    if (!base || base.kind !== 'aggregate' || base.ifOf || base.name.endsWith('If') || base.max < 1) return undefined;
    return { ...base, name: `${base.name}Distinct`, min: Math.max(base.min, 1), distinctOf: base.name };
  }
  return undefined;
};

/**
 * PostHog's arity error (posthog/hogql/functions/core.py `validate_function_args`): "Function 'f' expects 1 argument,
 * found 0", "Aggregation 'count' expects at most 1 argument, found 4"; undefined when `count` is in range.
 */
export function arityError(sig: FunctionSignature, count: number, what: 'argument' | 'parameter' = 'argument', range: [number, number] = [sig.min, sig.max]): string | undefined {
  const [min, max] = range;
  if (count >= min && count <= max) return undefined;
  const term = `${sig.kind === 'aggregate' ? 'Aggregation' : 'Function'} '${sig.name}'`;
  const n = (k: number) => `${k} ${what}${k === 1 ? '' : 's'}`;
  if (min === max) return `${term} expects ${n(min)}, found ${count}`;
  return count < min ? `${term} expects at least ${n(min)}, found ${count}` : `${term} expects at most ${n(max)}, found ${count}`;
}

/** Python's difflib SequenceMatcher.ratio (no junk heuristics: names are short): 2 * matched characters / total. */
function similarity(a: string, b: string): number {
  const matched = (alo: number, ahi: number, blo: number, bhi: number): number => {
    // the longest common block, then recursively left and right of it (difflib's get_matching_blocks)
    let best = 0;
    let bi = alo;
    let bj = blo;
    for (let i = alo; i < ahi; i++)
      for (let j = blo; j < bhi; j++) {
        let k = 0;
        while (i + k < ahi && j + k < bhi && a[i + k] === b[j + k]) k++;
        if (k > best) [best, bi, bj] = [k, i, j];
      }
    if (best === 0) return 0;
    return best + matched(alo, bi, blo, bj) + matched(bi + best, ahi, bj + best, bhi);
  };
  return a.length + b.length === 0 ? 1 : (2 * matched(0, a.length, 0, b.length)) / (a.length + b.length);
}

const NO_MAPS = 'Map values are not available in ProductQL (ClickHouse 18.16 has no Map type): read JSON properties with properties.key, JSONExtractKeys or JSONExtractKeysAndValues';
const NO_HASH = 'this hash is not available in ProductQL (its values could not be the same on every engine): use MD5, SHA1 or SHA256';
const NO_FUNNEL = 'ClickHouse\'s funnel and sequence aggregations are not available in ProductQL: use a FunnelsQuery, or arraySort and arrayFilter over groupArray';
/**
 * ClickHouse functions HogQL users reach for that ProductQL does not have, with why and what to use instead: the
 * "Unsupported function call" error says so rather than suggesting a similar name.
 */
const UNAVAILABLE: Record<string, string> = {
  ...Object.fromEntries(
    ['map', 'mapFromArrays', 'mapKeys', 'mapValues', 'mapContains', 'mapContainsKeyLike', 'mapExtractKeyLike', 'mapAdd', 'mapSubtract', 'mapApply', 'mapFilter', 'mapUpdate', 'mapPopulateSeries'].map((f) => [f, NO_MAPS]),
  ),
  ...Object.fromEntries(
    ['cityHash64', 'sipHash64', 'sipHash128', 'halfMD5', 'farmHash64', 'xxHash32', 'xxHash64', 'murmurHash2_32', 'murmurHash2_64', 'murmurHash3_32', 'murmurHash3_64', 'murmurHash3_128', 'javaHash', 'hiveHash', 'URLHash', 'MD4', 'SHA224', 'SHA512'].map((f) => [f, NO_HASH]),
  ),
  ...Object.fromEntries(['windowFunnel', 'sequenceMatch', 'sequenceCount', 'retention'].map((f) => [f, NO_FUNNEL])),
};

/**
 * PostHog's error for a name that is not a function (posthog/hogql/printer.py `visit_call`): "Unsupported function call
 * 'f(...)'", with the closest known name when one is similar enough (difflib.get_close_matches, cutoff 0.6).
 */
export function unknownFunctionError(name: string): string {
  const why = typeof name === 'string' && Object.prototype.hasOwnProperty.call(UNAVAILABLE, name) ? UNAVAILABLE[name] : undefined;
  if (why) return `Unsupported function call '${name}(...)': ${why}`;
  let best: string | undefined;
  let score = 0.6;
  if (name.length <= 64)
    for (const known of FUNCTIONS.keys()) {
      const r = similarity(name, known);
      if (r > score || (r === score && best === undefined)) [best, score] = [known, r];
    }
  return `Unsupported function call '${name}(...)'` + (best ? `. Perhaps you meant '${best}(...)'?` : '');
}
