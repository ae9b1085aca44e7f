import type { ColumnOptions } from 'typeorm';

/** A JSON value kept as TEXT in SQLite. */
export const jsonColumn: ColumnOptions = {
  type: 'text',
  transformer: {
    to: (v: unknown) => (v === undefined ? undefined : JSON.stringify(v)),
    // TypeORM also hydrates the value it just inserted, which is not text yet
    from: (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : (v ?? null)),
  },
};
