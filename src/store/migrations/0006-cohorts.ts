import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Cohorts (saved person groups) per project. */
export class Cohorts1764100000006 implements MigrationInterface {
  name = 'Cohorts1764100000006';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE cohorts (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      name TEXT,
      description TEXT NOT NULL DEFAULT '',
      groups TEXT NOT NULL DEFAULT '[]',
      filters TEXT,
      is_static INTEGER NOT NULL DEFAULT 0,
      static_person_ids TEXT NOT NULL DEFAULT '[]',
      deleted INTEGER NOT NULL DEFAULT 0,
      created_at DATETIME NOT NULL,
      created_by_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
      updated_at DATETIME NOT NULL
    )`);
    await q.query(`CREATE INDEX idx_cohorts_project_live ON cohorts (project_id, deleted)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE cohorts');
  }
}
