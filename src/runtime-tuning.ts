import os from 'node:os';
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

/**
 * Turns V8's parallel scavenger off when asked, or for `auto` below 4 CPUs (`--no-parallel-scavenge`, read at each
 * young-generation collection, so it takes effect when set at runtime). Returns the flag applied, or null.
 */
export function applyScavenger(
  mode: 'auto' | 'on' | 'off',
  cpus: number = os.availableParallelism(),
  setFlags: (flags: string) => void = v8.setFlagsFromString,
): string | null {
  if (mode === 'on' || (mode === 'auto' && cpus >= 4)) return null;
  const flag = '--no-parallel-scavenge';
  setFlags(flag);
  return flag;
}
