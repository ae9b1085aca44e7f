import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Saved variables of a project (PostHog's InsightVariable), used by SQL insights and endpoints. */
export class InsightVariables1764100000011 implements MigrationInterface {
  name = 'InsightVariables1764100000011';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE insight_variables (
      id TEXT PRIMARY KEY,
      project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      type TEXT NOT NULL,
      default_value TEXT,
      "values" TEXT,
      code_name TEXT,
      created_by_id INTEGER,
      created_at DATETIME NOT NULL
    )`);
    await q.query(`CREATE INDEX idx_insight_variables_project ON insight_variables (project_id, code_name)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE insight_variables');
  }
}
