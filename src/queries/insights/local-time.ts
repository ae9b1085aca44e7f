import { isoOffset, zonedFormatter } from '../../projects/timezone';
/**
 * Wall-clock time in the project's timezone, as plain numbers.
 *
 * A `LocalTime` is milliseconds since 1970-01-01 of the *wall clock* (its UTC fields are the local fields), so
 * calendar arithmetic (add a day, start of month) is DST-free and exact. Converting to an instant is done only at
 * the edges: "now" comes in as an instant, and ProductQL receives naive `YYYY-MM-DD HH:MM:SS[.ffffff]` strings that
 * its printer interprets in the project timezone (as PostHog sends date constants to ClickHouse).
 */

/** Wall-clock milliseconds in the project timezone (UTC fields = local fields). */
export type LocalTime = number;

const MS_HOUR = 3_600_000;
const MS_DAY = 86_400_000;

const formatter = zonedFormatter;

/** The wall-clock time in `tz` of an instant. */
export function instantToLocal(instant: Date | number, tz: string): LocalTime {
  const ms = typeof instant === 'number' ? instant : instant.getTime();
  return ms + offsetAt(ms, tz);
}

/**
 * UTC offsets by 15-minute slot of time, per zone: `formatToParts` costs microseconds and an insight asks for
 * hundreds of conversions (bucket labels, range edges). A slot whose first and last millisecond have the same
 * offset has it throughout (zones change offset at most once in 15 minutes); a slot that holds a change is
 * marked NaN and converted exactly each time.
 */
const SLOT_MS = 15 * 60_000;
const offsets = new Map<string, Map<number, number>>();

function offsetAt(ms: number, tz: string): number {
  let byZone = offsets.get(tz);
  if (!byZone) offsets.set(tz, (byZone = new Map()));
  const slot = Math.floor(ms / SLOT_MS);
  let off = byZone.get(slot);
  if (off === undefined) {
    if (byZone.size >= 100_000) byZone.clear();
    const first = slot * SLOT_MS;
    const a = exactLocal(first, tz) - first;
    const b = exactLocal(first + SLOT_MS - 1, tz) - (first + SLOT_MS - 1);
    off = a === b ? a : Number.NaN;
    byZone.set(slot, off);
  }
  return Number.isNaN(off) ? exactLocal(ms, tz) - ms : off;
}

function exactLocal(ms: number, tz: string): LocalTime {
  const p: Record<string, number> = {};
  for (const part of formatter(tz).formatToParts(new Date(ms))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  const frac = ((ms % 1000) + 1000) % 1000;
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) + frac;
}

/**
 * The instant of a wall-clock time in `tz`. Times in a DST gap move forward by the gap; ambiguous times (clocks
 * going back) resolve to the earlier instant.
 */
export function localToInstant(local: LocalTime, tz: string): Date {
  // Two fixed-point steps find the offset; try both neighbouring offsets to resolve ambiguity deterministically.
  const candidates = new Set<number>();
  for (const probe of [local - 12 * MS_HOUR, local, local + 12 * MS_HOUR]) {
    const offset = instantToLocal(probe, tz) - probe;
    candidates.add(local - offset);
  }
  const exact = [...candidates].filter((c) => instantToLocal(c, tz) === local).sort((a, b) => a - b);
  if (exact.length) return new Date(exact[0]);
  // In a gap: use the offset from before the gap.
  const before = instantToLocal(local - 12 * MS_HOUR, tz) - (local - 12 * MS_HOUR);
  return new Date(local - before);
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** `YYYY-MM-DD` of a local time. */
export function formatLocalDate(t: LocalTime): string {
  const d = new Date(t);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** `YYYY-MM-DD HH:MM:SS` of a local time (seconds precision). */
export function formatLocalDateTime(t: LocalTime): string {
  const d = new Date(t);
  return `${formatLocalDate(t)} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/**
 * A local time as the naive string ProductQL binds as a datetime constant (interpreted in the project timezone).
 * `endOfSecondMicros` prints `.999999` — PostHog's 23:59:59.999999 end-of-range marker, which milliseconds cannot hold.
 */
export function sqlLocal(t: LocalTime, endOfSecondMicros = false): string {
  const ms = ((t % 1000) + 1000) % 1000;
  const base = formatLocalDateTime(t - ms);
  if (endOfSecondMicros) return `${base}.999999`;
  return ms ? `${base}.${pad(ms, 3)}000` : base;
}

/**
 * ISO 8601 with the timezone's offset for a local time, e.g. `2024-01-01T00:00:00+01:00` (optionally `.999999`); a zero
 * offset is `Z`, as PostHog's JSON renderer writes an aware datetime ({@link isoOffset}).
 * A wall-clock time in a DST gap keeps the offset from before the gap, as Python's `isoformat()` of an aware datetime
 * with fold=0 does (`2022-09-11T00:00:00-04:00` in America/Santiago, whose clocks go from 00:00 to 01:00 that day):
 * the offset printed is the one {@link localToInstant} used, not the one in force at the resulting instant.
 */
export function isoWithOffset(t: LocalTime, tz: string, endOfSecondMicros = false): string {
  const instant = localToInstant(t, tz).getTime();
  const offsetMin = Math.round((t - instant) / 60000);
  const ms = ((t % 1000) + 1000) % 1000;
  const base = formatLocalDateTime(t - ms).replace(' ', 'T');
  const frac = endOfSecondMicros ? '.999999' : ms ? `.${pad(ms, 3)}000` : '';
  return `${base}${frac}${isoOffset(offsetMin)}`;
}

/** Calendar helpers on local times. */
export const cal = {
  year: (t: LocalTime): number => new Date(t).getUTCFullYear(),
  month: (t: LocalTime): number => new Date(t).getUTCMonth(),
  day: (t: LocalTime): number => new Date(t).getUTCDate(),
  /** 0 = Sunday. */
  weekday: (t: LocalTime): number => new Date(t).getUTCDay(),
  startOfMinute: (t: LocalTime): LocalTime => Math.floor(t / 60000) * 60000,
  startOfHour: (t: LocalTime): LocalTime => Math.floor(t / MS_HOUR) * MS_HOUR,
  startOfDay: (t: LocalTime): LocalTime => Math.floor(t / MS_DAY) * MS_DAY,
  startOfMonth: (t: LocalTime): LocalTime => {
    const d = new Date(t);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  },
  startOfYear: (t: LocalTime): LocalTime => Date.UTC(new Date(t).getUTCFullYear(), 0, 1),
  /** Start of the week containing `t`; `weekStartDay` 0 = Sunday, 1 = Monday. */
  startOfWeek: (t: LocalTime, weekStartDay: number): LocalTime => {
    const day = Math.floor(t / MS_DAY) * MS_DAY;
    const back = (new Date(day).getUTCDay() - weekStartDay + 7) % 7;
    return day - back * MS_DAY;
  },
  /** Adds calendar months, clamping the day (Jan 31 + 1 month = Feb 29/28), like dateutil's relativedelta. */
  addMonths: (t: LocalTime, n: number): LocalTime => {
    const d = new Date(t);
    const y = d.getUTCFullYear();
    const m = d.getUTCMonth() + n;
    const target = Date.UTC(y, m, 1);
    const td = new Date(target);
    const lastDay = new Date(Date.UTC(td.getUTCFullYear(), td.getUTCMonth() + 1, 0)).getUTCDate();
    return Date.UTC(td.getUTCFullYear(), td.getUTCMonth(), Math.min(d.getUTCDate(), lastDay), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
  },
  addDays: (t: LocalTime, n: number): LocalTime => t + n * MS_DAY,
  addHours: (t: LocalTime, n: number): LocalTime => t + n * MS_HOUR,
  addMinutes: (t: LocalTime, n: number): LocalTime => t + n * 60000,
  /** Last millisecond of the day. */
  endOfDay: (t: LocalTime): LocalTime => Math.floor(t / MS_DAY) * MS_DAY + MS_DAY - 1,
  MS_DAY,
  MS_HOUR,
};
