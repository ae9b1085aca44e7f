import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Per-project insight settings: test-account filters and path cleaning rules. */
export class ProjectSettings1764100000002 implements MigrationInterface {
  name = 'ProjectSettings1764100000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE projects ADD COLUMN test_account_filters TEXT NOT NULL DEFAULT '[]'`);
    await q.query(`ALTER TABLE projects ADD COLUMN path_cleaning_filters TEXT NOT NULL DEFAULT '[]'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE projects DROP COLUMN path_cleaning_filters');
    await q.query('ALTER TABLE projects DROP COLUMN test_account_filters');
  }
}
