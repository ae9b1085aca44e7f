import { Column, Entity, PrimaryColumn } from 'typeorm';
import { jsonColumn } from '../json-column';

/** A named, published query of a project. Its query and settings live in {@link EndpointVersion}s. */
@Entity('endpoints')
export class Endpoint {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'integer' })
  project_id!: number;

  /** `^[a-zA-Z][a-zA-Z0-9_-]{0,127}$`, unique among the project's live endpoints. */
  @Column({ type: 'text' })
  name!: string;

  /** An inactive endpoint cannot be run (404). */
  @Column({ type: 'boolean', default: true })
  is_active!: boolean;

  /** The highest version number; runs without a pinned version use it. */
  @Column({ type: 'integer', default: 1 })
  current_version!: number;

  @Column({ ...jsonColumn, default: '[]' })
  tags!: string[];

  @Column({ type: 'text', nullable: true })
  derived_from_insight!: string | null;

  @Column({ type: 'integer', nullable: true })
  created_by_id!: number | null;

  @Column({ type: 'integer', nullable: true })
  updated_by_id!: number | null;

  @Column({ type: 'datetime' })
  created_at!: Date;

  @Column({ type: 'datetime' })
  updated_at!: Date;

  /** Set by runs through an API key, with PostHog's 30-minute granularity. */
  @Column({ type: 'datetime', nullable: true })
  last_executed_at!: Date | null;

  /** Soft delete: a deleted endpoint disappears from every route and frees its name. */
  @Column({ type: 'boolean', default: false })
  deleted!: boolean;

  @Column({ type: 'datetime', nullable: true })
  deleted_at!: Date | null;
}
