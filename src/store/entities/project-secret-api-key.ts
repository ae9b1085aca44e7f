import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import { jsonColumn } from '../json-column';

@Entity('project_secret_api_keys')
export class ProjectSecretApiKey {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Index()
  @Column({ type: 'integer' })
  project_id!: number;

  @Column({ type: 'text', default: '' })
  label!: string;

  @Index({ unique: true })
  @Column({ type: 'text' })
  secure_value!: string;

  @Column({ type: 'text' })
  mask_value!: string;

  @Column(jsonColumn)
  scopes!: string[];

  @Column({ type: 'integer', nullable: true })
  created_by_id!: number | null;

  /** Endpoint variables this key always runs with; they override whatever the caller sends. */
  @Column({ ...jsonColumn, nullable: true })
  fixed_variables!: Record<string, unknown> | null;

  @CreateDateColumn({ type: 'datetime' })
  created_at!: Date;

  @Column({ type: 'datetime', nullable: true })
  last_used_at!: Date | null;

  /** When the value was last replaced by a roll; null if never. */
  @Column({ type: 'datetime', nullable: true })
  last_rolled_at!: Date | null;

  @Column({ type: 'datetime', nullable: true })
  revoked_at!: Date | null;
}
