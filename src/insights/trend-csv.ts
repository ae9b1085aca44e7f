/**
 * The CSV export of the legacy `…/insights/trend/` route (PostHog's InsightViewSet.trend when the CSV renderer is
 * chosen: `?format=csv` or `Accept: text/csv`): one line per series, `series` then one column per interval label, an
 * optional first line linking the exported insight (`export_insight_id`), and an attachment file name built from
 * `export_name` and the date range.
 */
import { csvCell } from '../endpoints/stream';

type Dict = Record<string, unknown>;

const isDict = (v: unknown): v is Dict => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The CSV text of a trend result, as PostHog builds it: a row per series named by the series' `custom_name`, else
 * its label; its values under the interval labels (the first series' labels make the header). `insightUrl`, when
 * given, is the first line. Lines end in CRLF (Python's csv writer).
 */
export function trendCsv(result: unknown, insightUrl?: string): string {
  const series = Array.isArray(result) ? result.filter(isDict) : [];
  const rows = series.map((item) => {
    const action = isDict(item.action) ? item.action : {};
    const line: [string, unknown][] = [['series', action.custom_name || item.label]];
    const labels = Array.isArray(item.labels) ? item.labels : [];
    const data = Array.isArray(item.data) ? item.data : [];
    data.forEach((v, i) => line.push([String(labels[i] ?? i), v]));
    return line;
  });
  // PostHog takes the header from the first row; with no series it has nothing to export but the header
  const header = rows.length ? rows[0].map(([k]) => k) : ['series'];
  let out = insightUrl ? `${insightUrl}\n` : '';
  out += header.map(csvCell).join(',') + '\r\n';
  for (const row of rows) {
    const byKey = new Map(row);
    out += header.map((k) => csvCell(byKey.get(k))).join(',') + '\r\n';
  }
  return out;
}

/** Django's `slugify`: ASCII, lower case, only word characters and hyphens, runs of spaces/hyphens as one hyphen. */
export function slugify(value: string): string {
  const ascii = value.normalize('NFKD').replace(/[^\x00-\x7f]/g, '');
  return ascii
    .toLowerCase()
    .replace(/[^\w\s-]/g, '')
    .replace(/[-\s]+/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '');
}

/**
 * PostHog's `Content-Disposition` of the export: `attachment; filename="<slug> (<from> - <to>) from PostHog.csv"`, the
 * dates being the days (in the project's time zone) of the resolved range; `up until <to>` without a start.
 */
export function trendCsvDisposition(exportName: unknown, dateRange: unknown): string {
  const name = slugify(typeof exportName === 'string' && exportName !== '' ? exportName : 'export');
  const day = (v: unknown) => (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v) ? v.slice(0, 10) : null);
  const range = isDict(dateRange) ? dateRange : {};
  const from = day(range.date_from);
  const to = day(range.date_to) ?? new Date().toISOString().slice(0, 10);
  return `attachment; filename="${name} (${from ? `${from} -` : 'up until'} ${to}) from PostHog.csv"`;
}
