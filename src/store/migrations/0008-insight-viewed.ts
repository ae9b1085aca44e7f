import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Insight views (PostHog's InsightViewed): when each user last viewed each insight. */
export class InsightViewed1764100000008 implements MigrationInterface {
  name = 'InsightViewed1764100000008';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE insight_viewed (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      user_id INTEGER NOT NULL,
      insight_id INTEGER NOT NULL REFERENCES insights(id) ON DELETE CASCADE,
      last_viewed_at DATETIME NOT NULL
    )`);
    await q.query('CREATE UNIQUE INDEX idx_insight_viewed_user_insight ON insight_viewed (user_id, insight_id)');
    await q.query('CREATE INDEX idx_insight_viewed_project_user ON insight_viewed (project_id, user_id, last_viewed_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE insight_viewed');
  }
}
