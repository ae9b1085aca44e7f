import v8 from 'node:v8';

/**
 * Applies V8's heap growing factor for this process: after a full collection the heap may grow by `percent` of
 * what survived before the next one (`--heap-growing-percent`, read by V8 at every full collection, so it takes
 * effect when set at runtime). 0 leaves V8's own factor (1.1× to 4× depending on its GC speed vs allocation rate).
 * Returns the flag applied, or null.
 */
export function applyHeapGrowth(percent: number, setFlags: (flags: string) => void = v8.setFlagsFromString): string | null {
  if (!Number.isInteger(percent) || percent < 0) throw new Error(`heap growth percent must be a non-negative integer (got ${percent})`);
  if (percent === 0) return null;
  const flag = `--heap-growing-percent=${percent}`;
  setFlags(flag);
  return flag;
}
