import { z } from 'zod';
import { parseInput } from './validation';

/** Limit/offset paging as DRF's LimitOffsetPagination: default page 100, at most 1000. */
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

const pageSchema = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
  offset: z.coerce.number().int().min(0).default(0),
});

export function parsePage(query: Record<string, unknown> | undefined): Page {
  const q = query ?? {};
  return parseInput(pageSchema, { limit: q.limit, offset: q.offset });
}

export function pageOf<T>(items: T[], page: Page): Paged<T> {
  return { count: items.length, results: items.slice(page.offset, page.offset + page.limit) };
}
