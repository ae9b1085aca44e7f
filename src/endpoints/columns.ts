/** Result columns of an endpoint version: PostHog's column types, inference from a response, and version diffs. */
import type { ColumnChanges, EndpointColumn } from '../store/entities/endpoint-version';

/** PostHog's endpoint column types. */
export const COLUMN_TYPES = ['integer', 'float', 'string', 'datetime', 'date', 'boolean', 'array', 'json', 'unknown'] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

/** A ClickHouse-style type name (`Nullable(Int64)`, `DateTime64(6, 'UTC')`, `Array(String)`) as a column type. */
export function columnTypeOf(chType: string): ColumnType {
  let t = chType.trim();
  for (;;) {
    const m = /^(Nullable|LowCardinality)\((.*)\)$/.exec(t);
    if (!m) break;
    t = m[2];
  }
  if (/^U?Int\d+$/.test(t)) return 'integer';
  if (/^(Float\d+|Decimal)/.test(t)) return 'float';
  if (/^DateTime/.test(t)) return 'datetime';
  if (/^Date(32)?$/.test(t)) return 'date';
  if (t === 'Bool' || t === 'Boolean') return 'boolean';
  if (/^Array\(/.test(t)) return 'array';
  if (/^(Map|Tuple|JSON|Object)/.test(t)) return 'json';
  if (t === 'String' || t === 'UUID' || /^FixedString/.test(t) || /^Enum/.test(t)) return 'string';
  if (t === 'Nothing') return 'unknown';
  return 'unknown';
}

/** The column type of a JSON value (insight results have no declared types). */
export function valueType(v: unknown): ColumnType {
  if (v === null || v === undefined) return 'unknown';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'float';
  if (typeof v === 'string') return 'string';
  if (Array.isArray(v)) return 'array';
  return 'json';
}

/**
 * Columns of a runner response: `columns` + `types` when the runner reports them (ProductQL), else the keys of
 * the result objects (insights), typed by their values (integer widened to float when both appear).
 */
export function columnsOfResponse(response: Record<string, unknown>): EndpointColumn[] {
  const cols = response.columns;
  const types = response.types;
  if (Array.isArray(cols) && cols.every((c) => typeof c === 'string')) {
    const typeMap = new Map<string, string>();
    // `[name, type]` pairs (ProductQL), or one type per column (EventsQuery, ActorsQuery: PostHog's plain strings)
    if (Array.isArray(types))
      types.forEach((t, i) => {
        if (Array.isArray(t)) typeMap.set(String(t[0]), String(t[1]));
        else if (typeof t === 'string' && i < cols.length) typeMap.set(cols[i] as string, t);
      });
    return (cols as string[]).map((name) => ({ name, type: typeMap.has(name) ? columnTypeOf(typeMap.get(name)!) : 'unknown' }));
  }
  const results = response.results;
  if (!Array.isArray(results)) return [];
  const out = new Map<string, ColumnType>();
  const rows = results.flat(1).filter((r) => r && typeof r === 'object' && !Array.isArray(r)).slice(0, 50) as Record<string, unknown>[];
  for (const row of rows) {
    for (const [k, v] of Object.entries(row)) {
      const t = valueType(v);
      const prev = out.get(k);
      if (prev === undefined || prev === 'unknown') out.set(k, t);
      else if (prev === 'integer' && t === 'float') out.set(k, 'float');
    }
  }
  return [...out].map(([name, type]) => ({ name, type }));
}

/** How `next` differs from `prev`: columns added, removed, and retyped (by name). */
export function diffColumns(prev: EndpointColumn[], next: EndpointColumn[]): ColumnChanges {
  const before = new Map(prev.map((c) => [c.name, c.type]));
  const after = new Map(next.map((c) => [c.name, c.type]));
  return {
    added: next.filter((c) => !before.has(c.name)),
    removed: prev.filter((c) => !after.has(c.name)),
    retyped: next
      .filter((c) => before.has(c.name) && before.get(c.name) !== c.type)
      .map((c) => ({ name: c.name, from: before.get(c.name)!, to: c.type })),
  };
}
