import { ALL_SCOPES, hasScope, isValidScope, SCOPE_OBJECTS, SECRET_KEY_SCOPES, type Scope } from './scopes';

describe('hasScope', () => {
  it.each<[string, string[], Scope, boolean]>([
    ['exact read', ['project:read'], 'project:read', true],
    ['exact write', ['project:write'], 'project:write', true],
    ['write implies read', ['project:write'], 'project:read', true],
    ['read does not imply write', ['project:read'], 'project:write', false],
    ['other object read', ['insight:read'], 'project:read', false],
    ['other object write does not imply read', ['insight:write'], 'project:read', false],
    ['* grants read', ['*'], 'endpoint:read', true],
    ['* grants write', ['*'], 'personal_api_key:write', true],
    ['* is satisfied by *', ['*'], '*', true],
    ['all scopes but * do not satisfy *', ALL_SCOPES.filter((s) => s !== '*'), '*', false],
    ['empty grants nothing', [], 'query:read', false],
    ['object prefix is not a wildcard', ['project'], 'project:read', false],
    ['object:* is not a wildcard', ['project:*'], 'project:read', false],
    ['case matters', ['PROJECT:READ'], 'project:read', false],
    ['several scopes, one matches', ['query:read', 'endpoint:write'], 'endpoint:read', true],
  ])('%s', (_name, granted, required, expected) => {
    expect(hasScope(granted, required)).toBe(expected);
  });
});

describe('isValidScope', () => {
  it.each(['*', ...SCOPE_OBJECTS.flatMap((o) => [`${o}:read`, `${o}:write`])])('accepts %s', (s) => {
    expect(isValidScope(s)).toBe(true);
  });

  it.each(['', 'project', 'project:', ':read', 'project:delete', 'project:*', 'unknown:read', 'Project:read', ' project:read', 'project:read ', '**', 'internal_run:read'])(
    'rejects %j',
    (s) => {
      expect(isValidScope(s)).toBe(false);
    },
  );

  it.each(['dashboard:read', 'person:write', 'feature_flag:read', 'cohort:write'])('accepts PostHog scope %s (granting nothing here)', (s) => {
    expect(isValidScope(s)).toBe(true);
    expect(hasScope([s], 'insight:read')).toBe(false);
  });

  it('lists * and a read and write scope per object', () => {
    expect(ALL_SCOPES).toHaveLength(1 + SCOPE_OBJECTS.length * 2);
    expect(new Set(ALL_SCOPES).size).toBe(ALL_SCOPES.length);
  });
});

describe('SECRET_KEY_SCOPES', () => {
  it('is PostHog’s allowed pairs (reference §3.3); only endpoint:read grants anything in Quarry', () => {
    expect(SECRET_KEY_SCOPES).toEqual(['endpoint:read', 'feature_flag:read', 'account:read', 'loop:write', 'experiment:read']);
    for (const s of SECRET_KEY_SCOPES) expect(isValidScope(s)).toBe(true);
  });
  it('never contains *', () => {
    expect(SECRET_KEY_SCOPES).not.toContain('*');
  });
});
