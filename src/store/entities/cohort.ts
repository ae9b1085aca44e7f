import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { jsonColumn } from '../json-column';

/**
 * A cohort: a saved group of persons of a project (PostHog's Cohort). Dynamic cohorts are defined by person
 * properties (`filters`, or the legacy `groups`) and evaluated against the current persons at query time; static
 * cohorts hold an explicit list of person ids.
 */
@Entity('cohorts')
@Index(['project_id', 'deleted'])
export class Cohort {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'integer' })
  project_id!: number;

  @Column({ type: 'text', nullable: true })
  name!: string | null;

  @Column({ type: 'text', default: '' })
  description!: string;

  /** Legacy definition: `[{properties: [...]}, ...]`, groups ORed, properties ANDed. Default `[]`. */
  @Column({ ...jsonColumn, default: '[]' })
  groups!: Record<string, unknown>[];

  /** Current definition: `{properties: {type: 'AND'|'OR', values: [...]}}`; null when only `groups` is used. */
  @Column({ ...jsonColumn, nullable: true })
  filters!: Record<string, unknown> | null;

  @Column({ type: 'boolean', default: false })
  is_static!: boolean;

  /** Person ids (UUID text) of a static cohort, in insertion order; `[]` for dynamic ones. */
  @Column({ ...jsonColumn, default: '[]' })
  static_person_ids!: string[];

  @Column({ type: 'boolean', default: false })
  deleted!: boolean;

  @Column({ type: 'datetime' })
  created_at!: Date;

  @Column({ type: 'integer', nullable: true })
  created_by_id!: number | null;

  /** Bumped by every save (PostHog's `last_calculation`: Quarry evaluates cohorts at query time). */
  @Column({ type: 'datetime' })
  updated_at!: Date;
}
