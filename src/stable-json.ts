/**
 * JSON with sorted keys and without undefined members: two values that differ only in key order give the same text
 * (PostHog compares endpoint queries this way to decide on a new version, and funnel steps' filters as sets).
 */
export function stableJson(v: unknown): string {
  const norm = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(norm);
    if (x && typeof x === 'object') {
      const o: Record<string, unknown> = {};
      for (const k of Object.keys(x).sort()) if ((x as Record<string, unknown>)[k] !== undefined) o[k] = norm((x as Record<string, unknown>)[k]);
      return o;
    }
    return x;
  };
  return JSON.stringify(norm(v));
}
