import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The project's anonymize_ips setting (PostHog's team.anonymize_ips): capture stores its events without `$ip`. */
export class AnonymizeIps1764100000013 implements MigrationInterface {
  name = 'AnonymizeIps1764100000013';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE projects ADD COLUMN anonymize_ips BOOLEAN NOT NULL DEFAULT 0');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE projects DROP COLUMN anonymize_ips');
  }
}
