import { Column, Entity, PrimaryColumn } from 'typeorm';
import { jsonColumn } from '../json-column';

/** A declared endpoint variable (`{variables.<name>}` in ProductQL). */
export interface EndpointVariable {
  name: string;
  type: 'String' | 'Number' | 'Boolean' | 'List' | 'Date';
  default?: unknown;
  required?: boolean;
  description?: string;
}

/** A result column, typed as PostHog's endpoint `columns` are (integer, float, string, datetime, ...). */
export interface EndpointColumn {
  name: string;
  type: string;
}

/** How a version's result columns differ from the previous version's. */
export interface ColumnChanges {
  added: EndpointColumn[];
  removed: EndpointColumn[];
  retyped: { name: string; from: string; to: string }[];
}

/** An immutable query snapshot of an endpoint, with its per-version settings. */
@Entity('endpoint_versions')
export class EndpointVersion {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  endpoint_id!: string;

  @Column({ type: 'integer' })
  version!: number;

  /** The query node (ProductQLQuery/HogQLQuery or an insight kind), never changed after creation. */
  @Column(jsonColumn)
  query!: Record<string, unknown>;

  @Column({ ...jsonColumn, default: '[]' })
  variables!: EndpointVariable[];

  /** Result columns, computed when the version was created. */
  @Column({ ...jsonColumn, default: '[]' })
  columns!: EndpointColumn[];

  /** Difference from the previous version's columns; null for version 1. */
  @Column({ ...jsonColumn, nullable: true })
  column_changes!: ColumnChanges | null;

  @Column({ type: 'text', default: '' })
  description!: string;

  /** Cache TTL of runs: one of PostHog's buckets (900 … 604800), default 86400. */
  @Column({ type: 'integer', default: 86400 })
  data_freshness_seconds!: number;

  /**
   * Breakdown properties a run may leave out (PostHog's `optional_breakdown_properties`; each one a breakdown of the
   * query). They only change a run of a materialized endpoint there; Quarry runs every endpoint inline, so they are
   * kept and shown, and a run without such a variable answers across all its values, as any inline run does.
   */
  @Column({ ...jsonColumn, default: '[]' })
  optional_breakdown_properties!: string[];

  /** Running an inactive version is a 400. */
  @Column({ type: 'boolean', default: true })
  is_active!: boolean;

  @Column({ type: 'integer', nullable: true })
  created_by_id!: number | null;

  @Column({ type: 'datetime' })
  created_at!: Date;

  @Column({ type: 'datetime' })
  updated_at!: Date;

  @Column({ type: 'datetime', nullable: true })
  last_executed_at!: Date | null;
}
