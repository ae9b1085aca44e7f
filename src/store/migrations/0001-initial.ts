import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Users, projects and both kinds of API keys. */
export class Initial1764100000001 implements MigrationInterface {
  name = 'Initial1764100000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE users (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      email TEXT NOT NULL,
      name TEXT NOT NULL DEFAULT '',
      created_at DATETIME NOT NULL DEFAULT (datetime('now'))
    )`);
    await q.query(`CREATE TABLE projects (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      name TEXT NOT NULL,
      timezone TEXT NOT NULL DEFAULT 'UTC',
      week_start_day INTEGER NOT NULL DEFAULT 0,
      api_token TEXT NOT NULL UNIQUE,
      created_at DATETIME NOT NULL DEFAULT (datetime('now'))
    )`);
    await q.query(`CREATE TABLE personal_api_keys (
      id TEXT PRIMARY KEY,
      user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      label TEXT NOT NULL DEFAULT '',
      secure_value TEXT NOT NULL,
      mask_value TEXT NOT NULL,
      scopes TEXT NOT NULL,
      scoped_teams TEXT,
      created_at DATETIME NOT NULL DEFAULT (datetime('now')),
      last_used_at DATETIME,
      revoked_at DATETIME
    )`);
    await q.query(`CREATE UNIQUE INDEX idx_personal_api_keys_secure_value ON personal_api_keys (secure_value)`);
    await q.query(`CREATE TABLE project_secret_api_keys (
      id TEXT PRIMARY KEY,
      project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      label TEXT NOT NULL DEFAULT '',
      secure_value TEXT NOT NULL,
      mask_value TEXT NOT NULL,
      scopes TEXT NOT NULL,
      created_by_id INTEGER,
      created_at DATETIME NOT NULL DEFAULT (datetime('now')),
      last_used_at DATETIME,
      revoked_at DATETIME
    )`);
    await q.query(`CREATE UNIQUE INDEX idx_psak_secure_value ON project_secret_api_keys (secure_value)`);
    await q.query(`CREATE INDEX idx_psak_project ON project_secret_api_keys (project_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE project_secret_api_keys');
    await q.query('DROP TABLE personal_api_keys');
    await q.query('DROP TABLE projects');
    await q.query('DROP TABLE users');
  }
}
