import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A personal key's `scoped_organizations` as sent (PostHog's ArrayField, null=True): Quarry has one organization, so
 * it is null or the empty list PostHog's clients send, shown back as stored.
 */
export class KeyScopedOrganizations1764100000014 implements MigrationInterface {
  name = 'KeyScopedOrganizations1764100000014';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE personal_api_keys ADD COLUMN scoped_organizations TEXT');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE personal_api_keys DROP COLUMN scoped_organizations');
  }
}
