import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Saved insights (with the cache fields of their last result) and the activity log of changes to them. */
export class Insights1764100000003 implements MigrationInterface {
  name = 'Insights1764100000003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE insights (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      short_id TEXT NOT NULL,
      name TEXT,
      derived_name TEXT,
      description TEXT,
      query TEXT NOT NULL,
      query_kind TEXT NOT NULL,
      source_kind TEXT,
      tags TEXT NOT NULL DEFAULT '[]',
      favorited INTEGER NOT NULL DEFAULT 0,
      saved INTEGER NOT NULL DEFAULT 1,
      deleted INTEGER NOT NULL DEFAULT 0,
      "order" INTEGER,
      created_at DATETIME NOT NULL,
      created_by_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
      updated_at DATETIME NOT NULL,
      last_modified_at DATETIME NOT NULL,
      last_modified_by_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
      cache_key TEXT,
      last_refresh DATETIME,
      cache_target_age DATETIME,
      next_allowed_client_refresh DATETIME
    )`);
    await q.query(`CREATE UNIQUE INDEX idx_insights_short_id ON insights (project_id, short_id)`);
    await q.query(`CREATE INDEX idx_insights_project_live ON insights (project_id, deleted)`);
    await q.query(`CREATE TABLE activity_log (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      scope TEXT NOT NULL,
      item_id TEXT NOT NULL,
      activity TEXT NOT NULL,
      user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
      detail TEXT NOT NULL,
      created_at DATETIME NOT NULL
    )`);
    await q.query(`CREATE INDEX idx_activity_log_item ON activity_log (project_id, scope, item_id, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE activity_log');
    await q.query('DROP TABLE insights');
  }
}
