/** The canonical IANA name of `tz`, or undefined when the runtime does not know it. */
export function canonicalTimezone(tz: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}
