/** CSV and NDJSON renderings of a run's rows, streamed row by row (`Accept: text/csv` / `application/x-ndjson`). */
import { Readable } from 'node:stream';

export type StreamFormat = 'csv' | 'ndjson';

/** The streaming format an `Accept` header asks for, if any (JSON otherwise). */
export function streamFormatOf(accept: string | undefined): StreamFormat | null {
  const a = (accept ?? '').toLowerCase();
  if (/\btext\/csv\b/.test(a)) return 'csv';
  if (/\bapplication\/(x-)?ndjson\b/.test(a)) return 'ndjson';
  return null;
}

/** One CSV cell (RFC 4180): null is empty; objects and arrays are JSON text; quoted when needed. */
export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
  return /[",\r\n]/.test(s) || /^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The header of a CSV: the response's columns, or the keys of object rows (in order of appearance). */
export function csvColumns(columns: unknown, rows: unknown[]): string[] {
  if (Array.isArray(columns) && columns.length) return columns.map(String);
  const seen = new Set<string>();
  for (const r of rows) if (r && typeof r === 'object' && !Array.isArray(r)) for (const k of Object.keys(r)) seen.add(k);
  return [...seen];
}

function* csvLines(columns: string[], rows: unknown[]): Generator<string> {
  yield columns.map(csvCell).join(',') + '\r\n';
  for (const r of rows) {
    const cells = Array.isArray(r) ? r : r && typeof r === 'object' ? columns.map((c) => (r as Record<string, unknown>)[c]) : [r];
    yield cells.map(csvCell).join(',') + '\r\n';
  }
}

function* ndjsonLines(rows: unknown[]): Generator<string> {
  for (const r of rows) yield JSON.stringify(r) + '\n';
}

/** A readable stream of the rows; each NDJSON line is exactly one element of the JSON `results`. */
export function rowStream(format: StreamFormat, columns: unknown, results: unknown): Readable {
  const rows = Array.isArray(results) ? results : [];
  const gen = format === 'csv' ? csvLines(csvColumns(columns, rows), rows) : ndjsonLines(rows);
  return Readable.from(gen, { objectMode: false });
}

export const CONTENT_TYPES: Record<StreamFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
};
