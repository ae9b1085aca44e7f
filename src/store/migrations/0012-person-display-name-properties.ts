import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The project's person display name properties (PostHog's team.person_display_name_properties; null: the defaults). */
export class PersonDisplayNameProperties1764100000012 implements MigrationInterface {
  name = 'PersonDisplayNameProperties1764100000012';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE projects ADD COLUMN person_display_name_properties TEXT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE projects DROP COLUMN person_display_name_properties');
  }
}
