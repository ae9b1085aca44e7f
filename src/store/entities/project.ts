import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { jsonColumn } from '../json-column';

@Entity('projects')
export class Project {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'text' })
  name!: string;

  /** IANA timezone name; dates are bucketed and shown in it. */
  @Column({ type: 'text', default: 'UTC' })
  timezone!: string;

  /** 0 = Sunday, 1 = Monday: the first day of a week interval. */
  @Column({ type: 'integer', default: 0 })
  week_start_day!: number;

  /** Public capture token (phc_…), safe in client code. Stored in clear, as PostHog does. */
  @Column({ type: 'text', unique: true })
  api_token!: string;

  /** Property filters applied when a query sets filterTestAccounts. */
  @Column({ ...jsonColumn, default: '[]' })
  test_account_filters!: unknown[];

  /** Path cleaning rules ({alias, regex}) used by paths queries with pathReplacements. */
  @Column({ ...jsonColumn, default: '[]' })
  path_cleaning_filters!: unknown[];

  /**
   * The person properties a person's display name is taken from, in order (PostHog's person_display_name_properties);
   * null: PostHog's defaults (email, name, username in their spellings).
   */
  @Column({ ...jsonColumn, nullable: true, default: null })
  person_display_name_properties!: string[] | null;

  /** Capture stores this project's events without `$ip` (PostHog's anonymize_ips). Default false. */
  @Column({ type: 'boolean', default: false })
  anonymize_ips!: boolean;

  @CreateDateColumn({ type: 'datetime' })
  created_at!: Date;
}
