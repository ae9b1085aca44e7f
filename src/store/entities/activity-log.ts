import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { jsonColumn } from '../json-column';

/** One field change of an activity entry (PostHog's `Change`). */
export interface ActivityChange {
  type: string;
  action: 'created' | 'changed' | 'deleted' | 'split';
  field: string | null;
  before: unknown;
  after: unknown;
}

/** PostHog's activity `detail`: what the item was called and what changed. */
export interface ActivityDetail {
  /** The item's id (insights); PostHog's person entries have none. */
  id?: string;
  name: string | null;
  short_id: string | null;
  type: string | null;
  changes: ActivityChange[] | null;
  trigger: null;
}

/** Who did what to which item of a project, and when (create, update, delete, restore). */
@Entity('activity_log')
export class ActivityLog {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'integer' })
  project_id!: number;

  /** The kind of item, e.g. `Insight`. */
  @Column({ type: 'text' })
  scope!: string;

  @Column({ type: 'text' })
  item_id!: string;

  /** `created`, `updated`, `deleted` or `restored`. */
  @Column({ type: 'text' })
  activity!: string;

  @Column({ type: 'integer', nullable: true })
  user_id!: number | null;

  @Column(jsonColumn)
  detail!: ActivityDetail;

  @Column({ type: 'datetime' })
  created_at!: Date;
}
