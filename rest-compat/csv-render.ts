/**
 * DRF's CSV renderer as PostHog's viewsets use it (`?format=csv`; rest_framework_csv): each record is flattened to
 * one level, nested keys and list indexes joined by `.` (`created_by.email`, `tags.0`); the header is every key seen,
 * sorted; a missing or null value is an empty cell. A list envelope (`{count, next, previous, results}`) renders its
 * `results`, one line per record (PaginatedCSVRenderer).
 */
import { csvCell } from '../src/endpoints/stream';
import { notFound } from '../src/errors';
import { respond, type RestResponse } from './route';

/** The renderer a `format` parameter picks: JSON (absent or `json`), CSV, or DRF's 404 for any other. */
export function requestedFormat(query: Record<string, unknown>): 'json' | 'csv' {
  const f = query.format;
  if (f === undefined || f === 'json') return 'json';
  if (f === 'csv') return 'csv';
  throw notFound();
}

function flatten(value: unknown, prefix: string, out: Map<string, unknown>): void {
  if (Array.isArray(value) || (value !== null && typeof value === 'object')) {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value as object);
    for (const [k, v] of entries) flatten(v, prefix ? `${prefix}.${k}` : k, out);
    return;
  }
  out.set(prefix, value);
}

/** One record or a list envelope as CSV text (CRLF lines, as Python's csv writer). */
export function renderCsv(data: unknown): string {
  const records =
    data !== null && typeof data === 'object' && !Array.isArray(data) && Array.isArray((data as { results?: unknown }).results)
      ? ((data as { results: unknown[] }).results)
      : Array.isArray(data)
        ? data
        : [data];
  const rows = records.map((r) => {
    const m = new Map<string, unknown>();
    flatten(r, '', m);
    return m;
  });
  const header = [...new Set(rows.flatMap((m) => [...m.keys()]))].sort();
  if (header.length === 0) return '';
  const lines = [header.map(csvCell).join(','), ...rows.map((m) => header.map((h) => csvCell(m.get(h))).join(','))];
  return lines.join('\r\n') + '\r\n';
}

/** A CSV answer of `data`. */
export const csvResponse = (data: unknown): RestResponse => respond(200, renderCsv(data), { 'content-type': 'text/csv; charset=utf-8' });

/**
 * DRF's DefaultContentNegotiation over a JSON then a CSV renderer, for a request without `format`: the Accept header's
 * media ranges grouped by precedence (with parameters, then type/subtype, then type/*, then the full wildcard), and in each group the first
 * renderer one of them matches; `q` is ignored, as DRF ignores it. No Accept, or nothing either renderer takes, is JSON
 * (DRF would answer 406 to the latter; Quarry keeps answering).
 */
export function negotiatedFormat(accept: string | undefined): 'json' | 'csv' {
  if (!accept) return 'json';
  const ranges = accept.split(',').map((part) => {
    const [type, ...params] = part.split(';');
    const [main = '', sub = ''] = type.trim().toLowerCase().split('/');
    const hasParams = params.some((kv) => {
      const key = kv.split('=')[0].trim();
      return key !== '' && key !== 'q';
    });
    return { main, sub, precedence: hasParams ? 3 : sub !== '*' ? 2 : main !== '*' ? 1 : 0 };
  });
  const renderers = [
    ['json', 'application', 'json'],
    ['csv', 'text', 'csv'],
  ] as const;
  for (let precedence = 3; precedence >= 0; precedence--) {
    for (const [format, main, sub] of renderers) {
      if (ranges.some((r) => r.precedence === precedence && (r.main === '*' || r.main === main) && (r.sub === '*' || r.sub === sub))) return format;
    }
  }
  return 'json';
}

/**
 * How the answer is rendered, picked before any work is done: the request's `format` (the query string's, or a URL
 * suffix put there by the route), else the Accept header as DRF negotiates it ({@link negotiatedFormat}); the body
 * itself (JSON) or its CSV; any other format is DRF's 404 (from {@link requestedFormat}).
 */
export function formatRenderer(query: Record<string, unknown>, accept?: string): (body: unknown) => unknown {
  return chosenFormat(query, accept) === 'csv' ? csvResponse : (body) => body;
}

/** The renderer DRF picks for a request: its `format` ({@link requestedFormat}), else its Accept header ({@link negotiatedFormat}). */
export function chosenFormat(query: Record<string, unknown>, accept?: string): 'json' | 'csv' {
  return query.format === undefined && accept !== undefined ? negotiatedFormat(accept) : requestedFormat(query);
}
