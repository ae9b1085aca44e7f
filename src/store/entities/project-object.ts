import { Column, PrimaryGeneratedColumn } from 'typeorm';

/**
 * The columns every saved object of a project shares (insights, actions, cohorts, as PostHog's models do): its id,
 * project, name, soft-delete flag, creator and times. Each entity adds its own columns; each table is its own
 * (the migrations create them).
 */
export abstract class ProjectObject {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'integer' })
  project_id!: number;

  @Column({ type: 'text', nullable: true })
  name!: string | null;

  @Column({ type: 'boolean', default: false })
  deleted!: boolean;

  @Column({ type: 'datetime' })
  created_at!: Date;

  @Column({ type: 'integer', nullable: true })
  created_by_id!: number | null;

  /** Bumped by every save. */
  @Column({ type: 'datetime' })
  updated_at!: Date;
}
