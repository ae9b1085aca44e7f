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

/**
 * Minimum time before a client-triggered refresh makes sense (reference §9.2): 1 min for ProductQL and minute
 * queries; 3 min for an hour interval or a range of at most 7 days; else 15 min. The range is the answer's
 * `resolved_date_range` when it has one, measured as PostHog's insight runners' `_refresh_frequency` does:
 * `ceil((date_to - date_from) / 1 day)` on the resolved bounds, so the default `-7d` (7 days ago 00:00 to today
 * 23:59:59.999999) is 8 days, and a week from Monday to Sunday is 7.
 */
export function refreshFrequencyMs(node: unknown, response?: { resolved_date_range?: unknown }): number {
  const interval = nodeInterval(node);
  if (interval === 'minute') return MINUTE;
  if (interval === 'hour') return 3 * MINUTE;
  const resolved = response?.resolved_date_range as { date_from?: unknown; date_to?: unknown } | null | undefined;
  if (resolved && typeof resolved.date_from === 'string' && typeof resolved.date_to === 'string') {
    const days = Math.ceil((Date.parse(resolved.date_to) - Date.parse(resolved.date_from)) / DAY);
    if (Number.isFinite(days)) return days <= 7 ? 3 * MINUTE : 15 * MINUTE;
  }
  // no resolved range (retention, paths): `-Nd` runs from N days ago 00:00 to today's end, N + 1 days
  const n = node as { dateRange?: { date_from?: string } };
  const from = n?.dateRange?.date_from;
  if (typeof from === 'string' && /^-[1-6]d$/.test(from)) return 3 * MINUTE;
  const kind = (node as { kind?: string })?.kind;
  if (kind === 'ProductQLQuery' || kind === 'HogQLQuery' || kind === 'EventsQuery') return MINUTE;
  return 15 * MINUTE;
}
