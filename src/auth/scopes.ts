/**
 * Scopes are `<object>:<read|write>`; write implies read; `*` grants everything.
 * Objects: project, query, insight, endpoint, event (capture/import), person (the persons API), personal_api_key,
 * action (saved actions), cohort (saved person groups), group (group types and groups: the groups API),
 * activity_log (the insights' activity: PostHog's `required_scopes=["activity_log:read"]` on those actions),
 * insight_variable (saved SQL variables: PostHog's InsightVariableViewSet), element (the elements API: PostHog's
 * ElementViewSet).
 */
export const SCOPE_OBJECTS = [
  'project',
  'query',
  'insight',
  'endpoint',
  'event',
  'person',
  'personal_api_key',
  'action',
  'cohort',
  'group',
  'activity_log',
  'insight_variable',
  'element',
] as const;
export type ScopeObject = (typeof SCOPE_OBJECTS)[number];
export type Scope = `${ScopeObject}:${'read' | 'write'}` | '*';

export const ALL_SCOPES: readonly string[] = ['*', ...SCOPE_OBJECTS.flatMap((o) => [`${o}:read`, `${o}:write`])];

/**
 * The only scopes a project secret API key may hold: PostHog's allowed pairs (reference §3.3; its flag-gated
 * `llm_gateway:read` left out). Only `endpoint:read` grants anything in Quarry (endpoint runs); the others are
 * accepted so PostHog clients can create such keys, and grant nothing here.
 */
export const SECRET_KEY_SCOPES: readonly string[] = ['endpoint:read', 'feature_flag:read', 'account:read', 'loop:write', 'experiment:read'];

/**
 * PostHog's public scope objects (reference §3.2, `posthog/scopes.py`) that Quarry has no routes for. A key
 * created by a PostHog client or script may name them (e.g. `dashboard:read`, `feature_flag:write`), so they are valid
 * and stored; they grant nothing here. PostHog's internal objects (`internal_run`, …) stay invalid, as there.
 */
export const POSTHOG_ONLY_SCOPE_OBJECTS: readonly string[] = [
  'access_control', 'account', 'alert', 'annotation', 'approvals', 'batch_export',
  'batch_import', 'billing', 'business_knowledge', 'canvas', 'comment', 'conversation', 'customer_analytics',
  'customer_task', 'customer_journey', 'customer_profile_config', 'data_catalog', 'data_catalog_approval', 'dashboard',
  'event_filter', 'dashboard_template', 'dataset', 'early_access_feature', 'engineering_analytics', 'error_tracking',
  'evaluation', 'event_definition', 'experiment', 'experiment_holdout', 'experiment_saved_metric', 'export',
  'external_data_schema', 'external_data_source', 'feature_flag', 'file_system', 'file_system_shortcut',
  'health_issue', 'heatmap', 'hog_flow', 'hog_function', 'ingestion_warning', 'integration',
  'legal_document', 'link', 'live_debugger', 'llm_analytics', 'ai_observability_clusters', 'llm_gateway',
  'llm_playground', 'llm_prompt', 'llm_provider_key', 'llm_skill', 'logs', 'loop', 'marketing_analytics',
  'mcp_analytics', 'metrics', 'notebook', 'organization', 'organization_integration', 'organization_member',
  'plugin', 'product_enablement', 'product_tour', 'property_definition', 'query_performance', 'replay_scanner',
  'review_hog', 'revenue_analytics', 'session_recording', 'session_recording_playlist', 'sharing_configuration',
  'signal_scout', 'stamphog', 'streamlit_app', 'subscription', 'survey', 'tagger', 'ticket', 'task', 'toolbar',
  'tracing', 'field_note', 'uploaded_media', 'usage_metric', 'user', 'user_interview', 'vision_action', 'vision_alert',
  'visual_review', 'warehouse_objects', 'warehouse_table', 'warehouse_view', 'web_analytics', 'webhook',
  'wizard_session', 'batch_import_support',
];

const POSTHOG_ONLY_SCOPES = new Set(POSTHOG_ONLY_SCOPE_OBJECTS.flatMap((o) => [`${o}:read`, `${o}:write`]));

export function isValidScope(s: string): s is Scope {
  return ALL_SCOPES.includes(s) || POSTHOG_ONLY_SCOPES.has(s);
}

/** True when `granted` satisfies `required` (write implies read, `*` implies all). */
export function hasScope(granted: readonly string[], required: Scope): boolean {
  if (granted.includes('*') || granted.includes(required)) return true;
  const [object, action] = required.split(':');
  return action === 'read' && granted.includes(`${object}:write`);
}
