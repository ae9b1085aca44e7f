import { Column, Entity, Index } from 'typeorm';
import { jsonColumn } from '../json-column';
import { ProjectObject } from './project-object';

/** A saved insight: a named query node of a project, plus the cache fields of its last result. */
@Entity('insights')
@Index(['project_id', 'short_id'], { unique: true })
export class Insight extends ProjectObject {
  /** 8 alphanumerics, unique per project; PostHog's UI URLs use it (`/insights/<short_id>`). */
  @Column({ type: 'text' })
  short_id!: string;

  /** The auto-generated title, shown when `name` is empty. */
  @Column({ type: 'text', nullable: true })
  derived_name!: string | null;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  /** The node as the client sent it (validated), e.g. `{kind: 'InsightVizNode', source: {kind: 'TrendsQuery', …}}`. */
  @Column(jsonColumn)
  query!: Record<string, unknown> | null;

  /**
   * The legacy `filters` of an insight saved without a query, as the client sent them; `query` then holds the query
   * they convert to (PostHog's `query_from_filters`). Null for an insight saved with a query.
   */
  @Column({ ...jsonColumn, nullable: true })
  filters!: Record<string, unknown> | null;

  /** `query.kind`, kept for the `kind` list filter. */
  @Column({ type: 'text' })
  query_kind!: string;

  /** `query.source.kind` of a wrapper node (InsightVizNode, DataVisualizationNode, DataTableNode); else null. */
  @Column({ type: 'text', nullable: true })
  source_kind!: string | null;

  @Column({ ...jsonColumn, default: '[]' })
  tags!: string[];

  @Column({ type: 'boolean', default: false })
  favorited!: boolean;

  @Column({ type: 'boolean', default: true })
  saved!: boolean;

  @Column({ type: 'integer', nullable: true })
  order!: number | null;

  /** Bumped only when a material field (name, description, query, filters) changes. */
  @Column({ type: 'datetime' })
  last_modified_at!: Date;

  @Column({ type: 'integer', nullable: true })
  last_modified_by_id!: number | null;

  /** Cache key of the last result seen for this insight (PostHog's `filters_hash`). */
  @Column({ type: 'text', nullable: true })
  cache_key!: string | null;

  @Column({ type: 'datetime', nullable: true })
  last_refresh!: Date | null;

  @Column({ type: 'datetime', nullable: true })
  cache_target_age!: Date | null;

  @Column({ type: 'datetime', nullable: true })
  next_allowed_client_refresh!: Date | null;
}
