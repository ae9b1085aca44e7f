import { missingScope, permissionDenied } from '../errors';
import type { Principal } from './principal';
import { hasScope, type Scope } from './scopes';

export interface AccessRule {
  scope: Scope;
  /** Project secret keys are refused unless the action allows them (only endpoint runs do). */
  allowSecretKey?: boolean;
  /**
   * On a route not nested under a project, personal keys restricted to projects are refused unless the action
   * allows them (listing projects does, and shows only the allowed ones).
   */
  allowProjectRestrictedKey?: boolean;
}

/** Checks the scope of a route that is not nested under a project. */
export function requireScope(principal: Principal, rule: AccessRule): void {
  if (principal.kind === 'project_secret') {
    // PostHog's team binding (reference §3.3): a project secret key works on project-nested routes only
    if (!rule.allowSecretKey) throw permissionDenied('Project secret API keys are only supported on project-based endpoints.');
  } else if (principal.projectIds !== null && !rule.allowProjectRestrictedKey) {
    throw permissionDenied('API keys with scoped projects are only supported on project-based endpoints.');
  }
  if (!hasScope(principal.scopes, rule.scope)) throw missingScope(rule.scope);
}

/**
 * Checks a project-nested route: the scope, then that the principal may see the project. A project outside a key's
 * projects is PostHog's 403 "API key does not have access to the requested project" (reference §3.2, §3.3), given
 * before any lookup: it reads the same whether or not the project exists, so ids leak nothing.
 */
export function requireProjectAccess(principal: Principal, projectId: number, rule: AccessRule): void {
  if (principal.kind === 'project_secret') {
    if (!rule.allowSecretKey) throw permissionDenied('This action does not support project secret API key access');
    if (!hasScope(principal.scopes, rule.scope)) throw missingScope(rule.scope);
    if (principal.projectId !== projectId) throw projectOutOfScope(projectId);
    return;
  }
  if (!hasScope(principal.scopes, rule.scope)) throw missingScope(rule.scope);
  if (!canSeeProject(principal, projectId)) throw projectOutOfScope(projectId);
}

const projectOutOfScope = (projectId: number) => permissionDenied(`API key does not have access to the requested project: ID ${projectId}.`);

export function canSeeProject(principal: Principal, projectId: number): boolean {
  if (principal.kind === 'project_secret') return principal.projectId === projectId;
  return principal.projectIds === null || principal.projectIds.includes(projectId);
}
