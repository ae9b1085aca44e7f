import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A version's optional breakdown properties (PostHog's `optional_breakdown_properties`, reference §1.1). */
export class EndpointOptionalBreakdowns1764100000010 implements MigrationInterface {
  name = 'EndpointOptionalBreakdowns1764100000010';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE endpoint_versions ADD COLUMN optional_breakdown_properties TEXT NOT NULL DEFAULT '[]'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE endpoint_versions DROP COLUMN optional_breakdown_properties');
  }
}
