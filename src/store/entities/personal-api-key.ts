import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import { jsonColumn } from '../json-column';

@Entity('personal_api_keys')
export class PersonalApiKey {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'integer' })
  user_id!: number;

  @Column({ type: 'text', default: '' })
  label!: string;

  /** `sha256$<hex>` of the key; the key itself is never stored. */
  @Index({ unique: true })
  @Column({ type: 'text' })
  secure_value!: string;

  /** First 4 and last 4 characters, e.g. `phx_...abcd`. */
  @Column({ type: 'text' })
  mask_value!: string;

  @Column(jsonColumn)
  scopes!: string[];

  /** Project ids the key is restricted to; null = every project of its user. */
  @Column({ ...jsonColumn, nullable: true })
  scoped_teams!: number[] | null;

  /** PostHog's organization restriction as sent: null or [] (Quarry has one organization, so it restricts nothing). */
  @Column({ ...jsonColumn, nullable: true })
  scoped_organizations!: string[] | null;

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
