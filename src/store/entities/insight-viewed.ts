import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * When a user last viewed an insight (PostHog's InsightViewed: one row per user and insight, its time moved on each
 * view). It feeds `last_viewed_at`, the last-viewed list filters and ordering, `my_last_viewed` and `trending`.
 */
@Entity('insight_viewed')
@Index(['user_id', 'insight_id'], { unique: true })
export class InsightViewed {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'integer' })
  project_id!: number;

  @Column({ type: 'integer' })
  user_id!: number;

  @Column({ type: 'integer' })
  insight_id!: number;

  @Column({ type: 'datetime' })
  last_viewed_at!: Date;
}
