/**
 * Limit/offset paging as DRF's LimitOffsetPagination: default page 100, at most 1000 (PostHog sets no maximum; Quarry
 * clamps as DRF's `max_limit` would). A `limit` or `offset` that is not one reads as DRF reads it: it falls back rather
 * than failing the request (`get_limit`/`get_offset` swallow the ValueError of `_positive_int`).
 */
export interface Page {
  limit: number;
  offset: number;
}

export interface Paged<T> {
  count: number;
  results: T[];
}

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

/**
 * Python's `int(text)` for the texts a query string carries: surrounding blanks, a sign, `_` between digits; null when
 * it raises ValueError. A repeated parameter is its last value (Django's QueryDict).
 */
export function pythonInt(raw: unknown): number | null {
  const v = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : null;
  if (typeof v !== 'string') return null;
  const t = v.trim();
  if (!/^[+-]?\d+(_\d+)*$/.test(t)) return null;
  const n = Number(t.replace(/_/g, ''));
  return Number.isSafeInteger(n) ? n : t.startsWith('-') ? null : Number.MAX_SAFE_INTEGER;
}

/**
 * DRF's `get_limit` (`_positive_int(strict=True, cutoff=max_limit)`): a positive integer, cut to the maximum; missing,
 * not an integer, zero or negative → the default. `get_offset` (`_positive_int`): zero or more; anything else → 0.
 */
export function parsePage(query: Record<string, unknown> | undefined): Page {
  const q = query ?? {};
  const limit = pythonInt(q.limit);
  const offset = pythonInt(q.offset);
  return {
    limit: limit === null || limit <= 0 ? DEFAULT_PAGE_SIZE : Math.min(limit, MAX_PAGE_SIZE),
    offset: offset === null || offset < 0 ? 0 : offset,
  };
}

export function pageOf<T>(items: T[], page: Page): Paged<T> {
  return { count: items.length, results: items.slice(page.offset, page.offset + page.limit) };
}
