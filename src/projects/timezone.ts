/**
 * The IANA name of `tz` with its canonical capitalisation, or undefined when the runtime does not know it.
 * Current names are kept even where the runtime resolves them to an older alias (Asia/Kolkata stays
 * Asia/Kolkata, not Asia/Calcutta).
 */
export function canonicalTimezone(tz: string): string | undefined {
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
    return resolved.toLowerCase() === tz.toLowerCase() ? resolved : tz;
  } catch {
    return undefined;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/**
 * A cached formatter giving the wall-clock fields (year … second, 24-hour) of an instant in `tz`: the one
 * place date math turns instants into local time.
 */
export function zonedFormatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(tz, f);
  }
  return f;
}

/**
 * The offset suffix of an aware datetime in a JSON response: `Z` for zero (DRF's encoder and orjson's OPT_UTC_Z both
 * write `Z` where Python's isoformat() says `+00:00`), else `±HH:MM`.
 */
export function isoOffset(offsetMin: number): string {
  if (offsetMin === 0) return 'Z';
  const sign = offsetMin < 0 ? '-' : '+';
  return `${sign}${String(Math.floor(Math.abs(offsetMin) / 60)).padStart(2, '0')}:${String(Math.abs(offsetMin) % 60).padStart(2, '0')}`;
}
