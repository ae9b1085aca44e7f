import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Endpoints (named, published queries) and their immutable versions; fixed variables on project secret keys.
 * Endpoint names are unique among the live (not soft-deleted) endpoints of a project: a partial unique index.
 */
export class Endpoints1764100000004 implements MigrationInterface {
  name = 'Endpoints1764100000004';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE endpoints (
      id TEXT PRIMARY KEY,
      project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      is_active BOOLEAN NOT NULL DEFAULT 1,
      current_version INTEGER NOT NULL DEFAULT 1,
      tags TEXT NOT NULL DEFAULT '[]',
      derived_from_insight TEXT,
      created_by_id INTEGER,
      updated_by_id INTEGER,
      created_at DATETIME NOT NULL DEFAULT (datetime('now')),
      updated_at DATETIME NOT NULL DEFAULT (datetime('now')),
      last_executed_at DATETIME,
      deleted BOOLEAN NOT NULL DEFAULT 0,
      deleted_at DATETIME
    )`);
    await q.query(`CREATE UNIQUE INDEX idx_endpoints_live_name ON endpoints (project_id, name) WHERE deleted = 0`);
    await q.query(`CREATE TABLE endpoint_versions (
      id TEXT PRIMARY KEY,
      endpoint_id TEXT NOT NULL REFERENCES endpoints(id) ON DELETE CASCADE,
      version INTEGER NOT NULL,
      query TEXT NOT NULL,
      variables TEXT NOT NULL DEFAULT '[]',
      columns TEXT NOT NULL DEFAULT '[]',
      column_changes TEXT,
      description TEXT NOT NULL DEFAULT '',
      data_freshness_seconds INTEGER NOT NULL DEFAULT 86400,
      is_active BOOLEAN NOT NULL DEFAULT 1,
      created_by_id INTEGER,
      created_at DATETIME NOT NULL DEFAULT (datetime('now')),
      updated_at DATETIME NOT NULL DEFAULT (datetime('now')),
      last_executed_at DATETIME
    )`);
    await q.query(`CREATE UNIQUE INDEX idx_endpoint_versions_version ON endpoint_versions (endpoint_id, version)`);
    await q.query(`ALTER TABLE project_secret_api_keys ADD COLUMN fixed_variables TEXT`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE project_secret_api_keys DROP COLUMN fixed_variables');
    await q.query('DROP TABLE endpoint_versions');
    await q.query('DROP TABLE endpoints');
  }
}
