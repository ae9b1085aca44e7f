import { Column, Entity, Index } from 'typeorm';
import { jsonColumn } from '../json-column';
import { ProjectObject } from './project-object';

/**
 * A cohort: a saved group of persons of a project (PostHog's Cohort). Dynamic cohorts are defined by person
 * properties (`filters`, or the legacy `groups`) and evaluated against the current persons at query time; static
 * cohorts hold an explicit list of person ids. `updated_at` is shown as PostHog's `last_calculation` (Quarry evaluates
 * cohorts at query time).
 */
@Entity('cohorts')
@Index(['project_id', 'deleted'])
export class Cohort extends ProjectObject {
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
}
