import { IsNull } from 'typeorm';
import { authenticationFailed, notAuthenticated } from '../errors';
import type { Store } from '../store/store';
import { hashKey, SECRET_KEY_PREFIX } from './key-material';
import type { Principal } from './principal';

/** How often `last_used_at` is written per key: often enough to be useful, rarely enough to cost nothing. */
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/**
 * Turns an `Authorization: Bearer <key>` header into a {@link Principal}. Keys are looked up by hash on every
 * request, so a revocation takes effect on the next one.
 */
export class Authenticator {
  private lastUsedWritten = new Map<string, number>();

  constructor(private readonly store: Store) {}

  async authenticate(authorization: string | undefined): Promise<Principal> {
    const value = bearerToken(authorization);
    if (value === undefined) throw notAuthenticated();
    const secure = hashKey(value);
    if (value.startsWith(SECRET_KEY_PREFIX)) {
      const key = await this.store.secretKeys.findOneBy({ secure_value: secure, revoked_at: IsNull() });
      if (!key) throw authenticationFailed('Project secret API key found in request Authorization header is invalid.');
      this.touch('s:' + key.id, () => this.store.secretKeys.update(key.id, { last_used_at: new Date() }));
      return { kind: 'project_secret', keyId: key.id, projectId: key.project_id, scopes: key.scopes };
    }
    const key = await this.store.personalKeys.findOneBy({ secure_value: secure, revoked_at: IsNull() });
    if (!key) throw authenticationFailed();
    this.touch('p:' + key.id, () => this.store.personalKeys.update(key.id, { last_used_at: new Date() }));
    return { kind: 'personal', keyId: key.id, userId: key.user_id, scopes: key.scopes, projectIds: key.scoped_teams };
  }

  private touch(id: string, write: () => Promise<unknown>): void {
    const now = Date.now();
    if (now - (this.lastUsedWritten.get(id) ?? 0) < LAST_USED_WRITE_INTERVAL_MS) return;
    this.lastUsedWritten.set(id, now);
    write().catch(() => undefined); // a usage timestamp is not worth failing a request for
  }
}

/** The credential of a `Bearer` header; undefined when none was sent. A malformed header counts as a bad key. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined || authorization.trim() === '') return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!m) throw authenticationFailed('Authorization header must be of the form "Bearer <key>".');
  return m[1];
}
