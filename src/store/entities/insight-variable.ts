import { Column, Entity, PrimaryColumn } from 'typeorm';
import { jsonColumn } from '../json-column';

/**
 * A saved variable of a project (PostHog's InsightVariable): SQL insights and endpoints reference it as
 * `{variables.<code_name>}`. Its id is a UUID (PostHog's UUIDModel); `code_name` is derived from the name at creation
 * and unique in the project. Deleted for good (PostHog's viewset destroys it).
 */
@Entity('insight_variables')
export class InsightVariable {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'integer' })
  project_id!: number;

  @Column({ type: 'text' })
  name!: string;

  /** `String`, `Number`, `Boolean`, `List` or `Date`. */
  @Column({ type: 'text' })
  type!: string;

  /** Any JSON value; null when unset. */
  @Column({ ...jsonColumn, nullable: true })
  default_value!: unknown;

  /** The choices of a List variable (any JSON value; null when unset). */
  @Column({ ...jsonColumn, nullable: true })
  values!: unknown;

  @Column({ type: 'text', nullable: true })
  code_name!: string | null;

  @Column({ type: 'integer', nullable: true })
  created_by_id!: number | null;

  @Column({ type: 'datetime' })
  created_at!: Date;
}
