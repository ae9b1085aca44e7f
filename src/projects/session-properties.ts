import type { Principal } from '../auth/principal';
import { validationError } from '../errors';
import { CHANNEL_TYPES } from '../productql/channel-type';
import { SESSION_FIELDS } from '../productql/sessions';
import type { QueryService } from '../queries/query-service';
import type { ProjectService } from './project-service';

/** PostHog's property definition of a session field (get_lazy_session_table_properties_v2). */
export interface SessionPropertyDefinition {
  id: string;
  name: string;
  is_numerical: boolean;
  property_type: 'String' | 'Numeric' | 'Boolean' | 'DateTime' | 'Duration';
  is_seen_on_filtered_events: null;
  tags: [];
}

/** Fields PostHog does not offer as session properties (ids, lists, v1 aliases, the bounce counter). */
const HIDDEN = new Set(['id', 'session_id', 'distinct_id', '$urls', 'duration', '$num_uniq_urls', '$page_screen_autocapture_count_up_to', '$exit_current_url', '$exit_pathname', '$exit_hostname']);

/** Property types of the non-text fields (PostHog's field classes, `$session_duration` overridden to Duration). */
const TYPES: Record<string, SessionPropertyDefinition['property_type']> = {
  $start_timestamp: 'DateTime',
  $end_timestamp: 'DateTime',
  $session_duration: 'Duration',
  $pageview_count: 'Numeric',
  $autocapture_count: 'Numeric',
  $screen_count: 'Numeric',
  $vitals_lcp: 'Numeric',
  $is_bounce: 'Boolean',
};

const typeOf = (name: string): SessionPropertyDefinition['property_type'] => TYPES[name] ?? 'String';

/** Values listed per field (PostHog's LIMIT 25). */
const VALUES_LIMIT = 25;

/**
 * PostHog's sessions API (`posthog/api/sessions.py`, scope `query:read`): the session properties filters and
 * breakdowns can use, and the values of one of them. The sessions table has no properties object: its fields are the
 * properties, a fixed list.
 */
export class SessionProperties {
  constructor(
    private readonly projects: ProjectService,
    private readonly queries: QueryService,
  ) {}

  /** `GET sessions/property_definitions/?search=`: every field, or those whose name contains every word of `search`. */
  async definitions(principal: Principal, projectId: number, query: Record<string, unknown>): Promise<{ count: number; results: SessionPropertyDefinition[] }> {
    await this.projects.projectFor(principal, projectId, { scope: 'query:read' });
    const words = typeof query.search === 'string' && query.search !== '' ? query.search.toLowerCase().split(' ') : [];
    const results = Object.keys(SESSION_FIELDS)
      .filter((name) => !HIDDEN.has(name) && words.every((w) => name.toLowerCase().includes(w)))
      .map((name) => {
        const property_type = typeOf(name);
        return { id: name, name, is_numerical: property_type === 'Numeric' || property_type === 'Duration', property_type, is_seen_on_filtered_events: null, tags: [] as [] };
      });
    return { count: results.length, results };
  }

  /**
   * `GET sessions/values/?key=K&value=V`: `$channel_type` lists PostHog's channel types (those containing V,
   * case-insensitive); a text field its distinct values among the project's sessions (containing V: ILIKE, the
   * value's `%` and `_` left as wildcards, as PostHog), sorted, at most 25; other fields nothing.
   */
  async values(principal: Principal, projectId: number, query: Record<string, unknown>): Promise<{ name: unknown }[]> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'query:read' });
    const key = query.key;
    if (typeof key !== 'string' || key === '') throw validationError('Key not provided');
    const search = typeof query.value === 'string' && query.value !== '' ? query.value : undefined;
    if (key === '$channel_type') return CHANNEL_TYPES.filter((t) => !search || t.toLowerCase().includes(search.toLowerCase())).map((name) => ({ name }));
    if (!Object.hasOwn(SESSION_FIELDS, key) || HIDDEN.has(key) || typeOf(key) !== 'String') return [];
    // the key is one of the table's field names (checked above), never user text
    const where = search === undefined ? '' : ` WHERE ${key} ILIKE {variables.pattern}`;
    const sql = `SELECT DISTINCT ${key} FROM sessions${where} ORDER BY ${key} ASC LIMIT ${VALUES_LIMIT}`;
    const variables = search === undefined ? {} : { pattern: { variableId: 'pattern', code_name: 'pattern', value: `%${search}%` } };
    const out = await this.queries.execute(principal, project, { kind: 'HogQLQuery', query: sql, variables }, { refresh: 'force_blocking', name: 'session values' });
    return ((out.body.results ?? []) as unknown[][]).map(([v]) => ({ name: v }));
  }
}
