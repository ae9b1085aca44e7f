import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Legacy `filters` of insights saved without a query (PostHog's filters-only insights); null for query insights. */
export class InsightFilters1764100000007 implements MigrationInterface {
  name = 'InsightFilters1764100000007';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE insights ADD COLUMN filters TEXT');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE insights DROP COLUMN filters');
  }
}
