/**
 * Scopes are `<object>:<read|write>`; write implies read; `*` grants everything.
 * Objects: project, query, insight, endpoint, event (capture/import), personal_api_key.
 */
export const SCOPE_OBJECTS = ['project', 'query', 'insight', 'endpoint', 'event', 'personal_api_key'] as const;
export type ScopeObject = (typeof SCOPE_OBJECTS)[number];
export type Scope = `${ScopeObject}:${'read' | 'write'}` | '*';

export const ALL_SCOPES: readonly string[] = ['*', ...SCOPE_OBJECTS.flatMap((o) => [`${o}:read`, `${o}:write`])];

/** The only scopes a project secret API key may hold. */
export const SECRET_KEY_SCOPES: readonly string[] = ['endpoint:read'];

export function isValidScope(s: string): s is Scope {
  return ALL_SCOPES.includes(s);
}

/** True when `granted` satisfies `required` (write implies read, `*` implies all). */
export function hasScope(granted: readonly string[], required: Scope): boolean {
  if (granted.includes('*') || granted.includes(required)) return true;
  const [object, action] = required.split(':');
  return action === 'read' && granted.includes(`${object}:write`);
}
