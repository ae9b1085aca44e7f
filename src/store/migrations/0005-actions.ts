import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Actions: saved event definitions of a project (an OR of steps), soft-deleted like insights. */
export class Actions1764100000005 implements MigrationInterface {
  name = 'Actions1764100000005';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE actions (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      name TEXT,
      description TEXT NOT NULL DEFAULT '',
      steps TEXT NOT NULL DEFAULT '[]',
      tags TEXT NOT NULL DEFAULT '[]',
      post_to_slack BOOLEAN NOT NULL DEFAULT 0,
      slack_message_format TEXT NOT NULL DEFAULT '',
      pinned_at DATETIME,
      deleted BOOLEAN NOT NULL DEFAULT 0,
      created_at DATETIME NOT NULL,
      created_by_id INTEGER,
      updated_at DATETIME NOT NULL
    )`);
    await q.query(`CREATE INDEX idx_actions_project_live ON actions (project_id, deleted)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE actions');
  }
}
