/**
 * Property values as PostHog's values endpoints name them (`GET …/events/values/`, `GET …/persons/values/`): the
 * stored text read back as JSON where PostHog's `json.loads` would make an array, an object or a boolean of it,
 * then PostHog's convert_property_value.
 */

/** A value as PostHog's values endpoints name it: JSON arrays give their items; see {@link propertyValueName}. */
export function flattenValue(text: string): string[] {
  const v = jsonValue(text);
  return Array.isArray(v) ? v.map(propertyValueName) : [propertyValueName(v)];
}

/** The JSON value of a stored property's text when it is an array, an object or a boolean; the text otherwise. */
export function jsonValue(text: string): unknown {
  if (text === 'true' || text === 'false' || /^[[{]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/** PostHog's convert_property_value: booleans `true`/`false`, objects and arrays as Python's json.dumps(sort_keys=True). */
export function propertyValueName(v: unknown): string {
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v !== null && typeof v === 'object') return pythonJson(v);
  if (v === null) return 'None';
  return String(v);
}

/** Python's json.dumps(v, sort_keys=True): `, ` and `: ` separators, keys sorted, non-ASCII escaped. */
function pythonJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(pythonJson).join(', ')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${asciiJson(k)}: ${pythonJson((v as Record<string, unknown>)[k])}`)
      .join(', ')}}`;
  if (typeof v === 'string') return asciiJson(v);
  return JSON.stringify(v);
}

const asciiJson = (s: string): string => JSON.stringify(s).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);


/**
 * A property key as a quoted ProductQL identifier (`properties.<this>`): any text is one key. (A backtick doubles, as
 * the grammar reads it; the printer's hogqlIdent writes `\``, which the grammar does not read back.)
 */
export const quotedKey = (key: string): string => '`' + key.replace(/\\/g, '\\\\').replace(/`/g, '``') + '`';
