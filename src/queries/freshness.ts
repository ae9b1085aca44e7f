/**
 * How long an answer stays fresh, and how soon a client may ask again, per the node's interval (PostHog's
 * thresholds; reference §9.2).
 */
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

type IntervalName = 'minute' | 'hour' | 'day' | 'week' | 'month' | 'none';

const STALE_AFTER: Record<IntervalName, number> = { minute: 5 * MINUTE, hour: HOUR, day: 6 * HOUR, week: DAY, month: DAY, none: 6 * HOUR };
const LAZY_STALE_AFTER: Record<IntervalName, number> = {
  minute: 15 * MINUTE,
  hour: 2 * HOUR,
  day: 12 * HOUR,
  week: DAY,
  month: DAY,
  none: 12 * HOUR,
};

/** The interval that governs a node's freshness. ProductQL and interval-less kinds count as day (as PostHog). */
export function nodeInterval(node: unknown): IntervalName {
  const n = node as { interval?: unknown; kind?: string; retentionFilter?: { period?: string } };
  const raw = typeof n?.interval === 'string' ? n.interval : n?.retentionFilter?.period?.toLowerCase();
  if (raw === 'minute' || raw === 'hour' || raw === 'day' || raw === 'week' || raw === 'month') return raw;
  return 'day';
}

export function staleAfterMs(node: unknown, lazy: boolean): number {
  return (lazy ? LAZY_STALE_AFTER : STALE_AFTER)[nodeInterval(node)];
}

/** Minimum time before a client-triggered refresh makes sense: 1 min for minute/hour-ish queries, else 15. */
export function refreshFrequencyMs(node: unknown): number {
  const interval = nodeInterval(node);
  if (interval === 'minute') return MINUTE;
  if (interval === 'hour') return 3 * MINUTE;
  const n = node as { dateRange?: { date_from?: string } };
  const from = n?.dateRange?.date_from;
  if (typeof from === 'string' && /^-([1-7])d$/.test(from)) return 3 * MINUTE;
  const kind = (node as { kind?: string })?.kind;
  if (kind === 'ProductQLQuery' || kind === 'HogQLQuery' || kind === 'EventsQuery') return MINUTE;
  return 15 * MINUTE;
}
