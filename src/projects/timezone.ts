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
