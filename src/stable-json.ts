/**
 * Compact JSON with every object's keys in sorted order — integer-like keys too, which JSON.stringify would put
 * first in numeric order — and without undefined members. Two values that differ only in key order give the same
 * text (PostHog compares endpoint queries this way to decide on a new version, and funnel steps' filters as sets),
 * and it is how rust capture's serde_json (BTreeMap objects) prints an object distinct id.
 */
export function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined || typeof x === 'function' ? 'null' : stableJson(x))).join(',')}]`;
  if (typeof v !== 'object' || v === null) return JSON.stringify(v) ?? 'null';
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).sort().filter((k) => o[k] !== undefined);
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`).join(',')}}`;
}
