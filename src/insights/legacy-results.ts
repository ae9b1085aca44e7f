/**
 * The legacy `GET|POST …/insights/trend/`, `…/insights/funnel/`, `…/insights/path/` and `GET …/insights/retention/`
 * routes of PostHog's InsightViewSet: legacy filter
 * parameters → the query they convert to → its results in the legacy envelope `{result, timezone, is_cached,
 * last_refresh, timings, next?}`. This file holds the request and response shaping; the service runs the query.
 */
import { UserError } from '../errors';
import { parseLegacyValues } from './legacy-filters';

type Dict = Record<string, unknown>;

export type LegacyEndpoint = 'trend' | 'funnel' | 'retention' | 'path';

/** PostHog's BREAKDOWN_VALUES_LIMIT: a trend answer with this many series has a `next` page. */
export const LEGACY_BREAKDOWN_LIMIT = 25;

/** The legacy envelope (`next` is added by the face that knows the request URL: {@link LegacyAnswer.hasNext}). */
export interface LegacyAnswer {
  body: { result: unknown; timezone: string; is_cached: boolean; last_refresh: string | null; timings: { k: string; t: number }[] };
  /** Trend answers only: the offset of the next page when this one is full (PostHog's `format_paginated_url`). */
  nextOffset?: number | null;
  /** The query's resolved date range (for the CSV export's file name); not part of the JSON envelope. */
  resolvedDateRange?: unknown;
}

const isDict = (v: unknown): v is Dict => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The filter of a legacy request, as PostHog's `Filter(request=…)` builds it: the query string, then the JSON body
 * over it, then what the route forces. `/funnel/` is always a funnel, `/retention/` a retention (RetentionFilter),
 * `/path/` paths (PathFilter with `insight: PATHS`); `/trend/` answers trends, or stickiness or lifecycle when
 * `insight` or the old `shown_as` asks for them (PostHog's `calculate_trends`).
 */
export function legacyRequestFilter(endpoint: LegacyEndpoint, query: Dict, body: unknown): Dict {
  if (body !== undefined && body !== null && !isDict(body)) throw new UserError(400, 'invalid_request', 'parse_error', 'The request body must be a JSON object.');
  const merged = { ...query, ...(body ?? {}) };
  if (endpoint === 'funnel') return { ...merged, insight: 'FUNNELS' };
  // the legacy route's RetentionFilter counts RETENTION_DEFAULT_INTERVALS (11) periods when none are asked for, where a
  // RetentionQuery without totalIntervals counts 8 (its schema default)
  if (endpoint === 'retention') return { total_intervals: 11, ...merged, insight: 'RETENTION' };
  if (endpoint === 'path') return { ...merged, insight: 'PATHS' };
  const shownAs = merged.shown_as;
  const insight =
    merged.insight === 'STICKINESS' || shownAs === 'Stickiness' ? 'STICKINESS' : merged.insight === 'LIFECYCLE' || shownAs === 'Lifecycle' ? 'LIFECYCLE' : 'TRENDS';
  return { ...merged, insight };
}

/** The legacy `offset` (a number; 0 when absent or not a number). */
export const legacyOffset = (query: Dict): number => {
  const n = Number(query.offset);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
};

/** `refresh` of a legacy route: any truthy value recalculates (PostHog's `cached_by_filters`), else a fresh cache entry answers. */
export const legacyRefresh = (filter: Dict): 'force_blocking' | 'blocking' => {
  const r = filter.refresh;
  return r === undefined || r === null || r === false || r === '' || r === 'false' || r === '0' ? 'blocking' : 'force_blocking';
};

/**
 * PostHog's `protect_old_clients_from_multi_property_default`: a funnel breakdown answers lists of breakdown values;
 * a client that POSTed `insight: FUNNELS` with a person, event or group breakdown given as one string gets single
 * values back, as it did before multi-property breakdowns.
 */
export function protectOldClients(requestBody: unknown, result: unknown): unknown {
  if (!isDict(requestBody) || !Array.isArray(result)) return result;
  const data = parseLegacyValues(requestBody);
  const breakdownRequest = data.insight === 'FUNNELS' && ['person', 'event', 'group'].includes(String(data.breakdown_type));
  const single = breakdownRequest && typeof data.breakdown === 'string';
  const breakdownResult = result.length > 0 && Array.isArray(result[0]);
  if (!single || !breakdownResult) return result;
  return (result as unknown[][]).map((series) =>
    series.map((step) => {
      if (!isDict(step)) return step;
      const out = { ...step };
      if (Array.isArray(out.breakdown) && out.breakdown.length) out.breakdown = out.breakdown[0];
      if (Array.isArray(out.breakdown_value) && out.breakdown_value.length) out.breakdown_value = out.breakdown_value[0];
      return out;
    }),
  );
}
