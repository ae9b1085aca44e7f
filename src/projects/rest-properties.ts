import { z } from 'zod';
import { validationError } from '../errors';
import { propertiesSchema, type PropertiesInput } from '../queries/insights/schema';
import { parseInput } from '../validation';

/**
 * `properties=` of PostHog's REST filters (its Filter's `_parse_properties`): JSON text of a list of property filters,
 * a property group (`{type: AND|OR, values}`), or the old style object `{key: value, "key__operator": value}` of event
 * filters; validated as the query API validates filters (a 400 naming the bad one, where PostHog skips it). Text
 * that is not JSON is PostHog's `Properties are unparsable!`. `defaultType` is the type of a filter that names none.
 */
export function propertyList(raw: string, defaultType = 'event'): PropertiesInput {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw validationError('Properties are unparsable!');
  }
  if (parsed === null || parsed === '' || (typeof parsed === 'object' && Object.keys(parsed).length === 0)) return [];
  const withType = (f: unknown) => (f !== null && typeof f === 'object' && !Array.isArray(f) && !('type' in f) ? { ...f, type: defaultType } : f);
  let input: unknown;
  if (Array.isArray(parsed)) input = parsed.map(withType);
  else if (isGroup(parsed)) input = mapGroup(parsed, withType);
  else if (typeof parsed === 'object') {
    input = Object.entries(parsed).map(([k, value]) => {
      const [key, operator] = k.split('__');
      return { key, value, type: 'event', ...(operator ? { operator } : {}) };
    });
  } else throw validationError('Properties are unparsable!');
  return parseInput(z.object({ properties: propertiesSchema }), { properties: input }).properties;
}

const isGroup = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && ((v as { type?: unknown }).type === 'AND' || (v as { type?: unknown }).type === 'OR');

function mapGroup(g: Record<string, unknown>, leaf: (f: unknown) => unknown): unknown {
  const values = Array.isArray(g.values) ? g.values.map((v) => (isGroup(v) ? mapGroup(v, leaf) : leaf(v))) : g.values;
  return { ...g, values };
}
