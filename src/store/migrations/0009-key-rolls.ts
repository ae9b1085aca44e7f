import type { MigrationInterface, QueryRunner } from 'typeorm';

/** When a key's value was last replaced by a roll (PostHog's `last_rolled_at`, personal and project secret keys). */
export class KeyRolls1764100000009 implements MigrationInterface {
  name = 'KeyRolls1764100000009';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE personal_api_keys ADD COLUMN last_rolled_at DATETIME');
    await q.query('ALTER TABLE project_secret_api_keys ADD COLUMN last_rolled_at DATETIME');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE project_secret_api_keys DROP COLUMN last_rolled_at');
    await q.query('ALTER TABLE personal_api_keys DROP COLUMN last_rolled_at');
  }
}
