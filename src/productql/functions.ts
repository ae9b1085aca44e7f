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
}

const sigs: FunctionSignature[] = [];
const add = (kind: FunctionKind, min: number, max: number, names: string[], params?: [number, number]): void => {
  for (const name of names) sigs.push({ name, min, max, kind, ...(params ? { params } : {}) });
};

// Aggregates
add('aggregate', 0, 1, ['count']);
add('aggregate', 1, 1, ['countIf']);
add('aggregate', 1, 10, ['uniq', 'uniqExact']);
add('aggregate', 2, 2, ['uniqIf', 'uniqExactIf', 'sumIf', 'avgIf', 'minIf', 'maxIf', 'argMax', 'argMin', 'anyIf']);
add('aggregate', 1, 1, ['sum', 'avg', 'min', 'max', 'any', 'median', 'groupArray', 'groupUniqArray', 'stddevPop', 'stddevSamp', 'varPop', 'varSamp']);
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
add('scalar', 0, 0, ['now', 'today', 'yesterday']);
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
add('scalar', 2, 2, ['position', 'startsWith', 'endsWith', 'like', 'ilike', 'notLike', 'notILike', 'match', 'extract', 'extractAll', 'splitByChar', 'splitByString']);

// Conversions and maths
add('scalar', 1, 1, ['toString', 'toInt', 'toInt64', 'toInt32', 'toFloat', 'toFloat64', 'toUUID', 'toBool', 'floor', 'ceil', 'abs', 'sqrt', 'exp', 'log', 'log2', 'log10']);
add('scalar', 1, 2, ['round']);
add('scalar', 2, 2, ['pow', 'power', 'intDiv', 'modulo', 'plus', 'minus', 'multiply', 'divide']);
add('scalar', 2, 2, ['bitAnd', 'bitOr', 'bitXor']);
add('scalar', 2, 100, ['greatest', 'least']);

// Operators spelled as functions
add('scalar', 2, 2, ['equals', 'notEquals', 'less', 'lessOrEquals', 'greater', 'greaterOrEquals']);
add('scalar', 2, 100, ['and', 'or']);
add('scalar', 1, 1, ['not']);

// Arrays and tuples
add('scalar', 2, 2, ['has', 'indexOf', 'arrayElement', 'arrayExists']);
// arrayMap/arrayFilter over several arrays (`arrayMap((x, y) -> x + y, a, b)`): the i-th elements together.
add('scalar', 2, 11, ['arrayMap', 'arrayFilter']);
add('scalar', 1, 1, ['arrayJoin']);
add('scalar', 0, 100, ['array', 'tuple']);

/**
 * ClickHouse-only array functions (the funnels runner's ClickHouse path uses them; ClickHouse 18.16 lambdas cannot
 * capture columns, so per-actor work is elementwise over arrays, shifted arrays and running sums). DuckDB refuses them
 * ("not available on this engine"). `arrayReduce` takes a constant aggregate name from a short list.
 */
/**
 * Allow-listed functions that ClickHouse 18.16 lacks and that cannot be spelled with what it has: a clear 400 there
 * ("not available on ClickHouse") rather than an engine error.
 */
export const DUCKDB_ONLY_FUNCTIONS: ReadonlySet<string> = new Set(['base64Encode', 'base64Decode', 'tryBase64Decode', 'JSONExtractArrayRaw', 'JSONExtractKeys', 'JSONExtractKeysAndValues']);

export const CLICKHOUSE_ONLY_FUNCTIONS: ReadonlySet<string> = new Set([
  'arraySort',
  'arrayReverseSort',
  'arrayCumSum',
  'arrayCumSumNonNegative',
  'arrayPushFront',
  'arrayPushBack',
  'arrayPopFront',
  'arrayPopBack',
  'arrayDifference',
  'arrayConcat',
  'arrayEnumerate',
  'arrayReduce',
]);
add('scalar', 1, 1, ['arraySort', 'arrayReverseSort', 'arrayCumSum', 'arrayCumSumNonNegative', 'arrayDifference', 'arrayPopFront', 'arrayPopBack', 'arrayEnumerate']);
add('scalar', 2, 2, ['arrayPushFront', 'arrayPushBack']);
add('scalar', 2, 10, ['arrayConcat', 'arrayReduce']);

// Added for HogQL parity (posthog/hogql/functions/mapping.py), ClickHouse semantics on every engine.
// Dates and times
add('scalar', 2, 3, ['formatDateTime', 'dateTrunc', 'date_trunc']);
add('scalar', 2, 2, ['toStartOfInterval']);
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
// Strings
add('scalar', 2, 2, ['left', 'right', 'positionCaseInsensitive', 'positionUTF8', 'positionCaseInsensitiveUTF8']);
add('scalar', 1, 1, ['lengthUTF8', 'lowerUTF8', 'upperUTF8', 'reverseUTF8', 'base64Encode', 'base64Decode', 'tryBase64Decode']);
add('scalar', 3, 3, ['replaceOne']);
add('scalar', 2, 3, ['substringUTF8']);
// Conversions
add('scalar', 1, 1, ['toIntOrNull', 'toInt64OrNull', 'toFloatOrNull', 'toFloat64OrNull', 'toIntOrZero', 'toFloatOrZero']);
// Arrays
add('scalar', 1, 1, ['arraySum', 'arrayDistinct', 'arrayReverse', 'arrayUniq']);
add('scalar', 1, 2, ['arrayStringConcat']);
add('scalar', 2, 3, ['arraySlice']);
add('scalar', 2, 2, ['arrayCount', 'arrayAll', 'hasAny', 'hasAll']);
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

export const FUNCTIONS: ReadonlyMap<string, FunctionSignature> = new Map(sigs.map((s) => [s.name, s]));
const lowerIndex = new Map(sigs.map((s) => [s.name.toLowerCase(), s]));

/** Exact name first, then case-insensitively (HogQL accepts `COUNT()`, `Sum()`). */
export const lookupFunction = (name: string): FunctionSignature | undefined =>
  typeof name === 'string' ? (FUNCTIONS.get(name) ?? lowerIndex.get(name.toLowerCase())) : undefined;
