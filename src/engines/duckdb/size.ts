/** DuckDB size settings ('1GB', '512MiB', '64 MB', and the '953.6 MiB' that `current_setting` shows). */

/** DuckDB's units: KB/MB/… are powers of 1000, KiB/MiB/… of 1024. */
const SIZE_UNITS: Record<string, number> = { b: 1, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40 };

/** Bytes of a DuckDB size setting, or null when it is not one. */
export function sizeBytes(v: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i.exec(v.trim());
  return m ? Number(m[1]) * SIZE_UNITS[m[2].toLowerCase()] : null;
}
