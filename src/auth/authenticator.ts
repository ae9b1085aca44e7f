import { IsNull } from 'typeorm';
import { authenticationFailed, notAuthenticated } from '../errors';
import type { Store } from '../store/store';
import { hashKey, SECRET_KEY_PREFIX } from './key-material';
import { GenerationCache, watchMetadata } from './metadata-watch';
import type { Principal } from './principal';

/**
 * How old a key's `last_used_at` must be before a use writes it again: PostHog's hour (posthog/auth.py updates it only
 * when it is null or more than an hour old; test_personal_api_keys.py test_does_not_update_last_used_at_within_the_hour).
 */
const LAST_USED_WRITE_INTERVAL_MS = 3_600_000;

/**
 * Turns an `Authorization: Bearer <key>` header into a {@link Principal}.
 *
 * Keys that authenticated are remembered in memory by their hash (never by value) so a request costs one sha256
 * and a map lookup instead of a SQLite query. The memory is tied to the metadata store's generation counters
 * (see metadata-watch.ts): any write to keys, users or projects — a revocation, a scope change, a project
 * deletion — empties it before the write returns, so a revoked key is refused on the very next request. Unknown
 * and revoked keys are never remembered: each attempt with one goes to the store.
 */
export class Authenticator {
  private lastUsedWritten = new Map<string, number>();
  private readonly known = new GenerationCache<Principal>('identity');

  constructor(private readonly store: Store) {
    watchMetadata(store.db);
  }

  async authenticate(authorization: string | undefined): Promise<Principal> {
    const value = bearerToken(authorization);
    if (value === undefined) throw notAuthenticated();
    const secure = hashKey(value);
    const cached = this.known.get(secure);
    if (cached !== undefined) {
      this.touch(cached);
      return cached;
    }
    return this.lookup(value, secure);
  }

  /**
   * A personal key sent as PostHog also reads it (reference §3.1): `personal_api_key` in the request body or the
   * query string, tried only when no Authorization header was sent. Only personal keys travel that way; anything
   * else there is an invalid personal key, named after where it was found.
   */
  async authenticatePersonalKey(value: string, source: 'body' | 'query string'): Promise<Principal> {
    const invalid = () => authenticationFailed(`Personal API key found in request ${source} is invalid.`);
    if (value === '' || value.startsWith(SECRET_KEY_PREFIX) || /\s/.test(value)) throw invalid();
    const secure = hashKey(value);
    const cached = this.known.get(secure);
    if (cached !== undefined) {
      this.touch(cached);
      return cached;
    }
    try {
      return await this.lookup(value, secure);
    } catch (e) {
      throw isAuthFailure(e) ? invalid() : e;
    }
  }

  /**
   * {@link authenticate} answered from memory, synchronously (no promise: the hot path skips a microtask hop): the
   * principal of a remembered key, or undefined when the key must be looked up (then call {@link authenticate}).
   * A missing or malformed header throws as {@link authenticate} does.
   */
  remembered(authorization: string | undefined): Principal | undefined {
    const value = bearerToken(authorization);
    if (value === undefined) throw notAuthenticated();
    const cached = this.known.get(hashKey(value));
    if (cached !== undefined) this.touch(cached);
    return cached;
  }

  private async lookup(value: string, secure: string): Promise<Principal> {
    const gen = this.known.generation();
    let known: Principal;
    let lastUsed: Date | null;
    if (value.startsWith(SECRET_KEY_PREFIX)) {
      const key = await this.store.secretKeys.findOneBy({ secure_value: secure, revoked_at: IsNull() });
      if (!key) throw authenticationFailed('Project secret API key found in request Authorization header is invalid.');
      lastUsed = key.last_used_at;
      known = { kind: 'project_secret', keyId: key.id, projectId: key.project_id, scopes: key.scopes };
    } else {
      const key = await this.store.personalKeys.findOneBy({ secure_value: secure, revoked_at: IsNull() });
      if (!key) throw authenticationFailed();
      lastUsed = key.last_used_at;
      // PostHog restricts a key only when scoped_teams is non-empty: an empty list (what its UI sends) is every project
      const projectIds = key.scoped_teams !== null && key.scoped_teams.length > 0 ? key.scoped_teams : null;
      known = { kind: 'personal', keyId: key.id, userId: key.user_id, scopes: key.scopes, projectIds };
    }
    this.known.set(secure, known, gen);
    this.touch(known, lastUsed?.getTime());
    return known;
  }

  /** Forgets every remembered key (tests; writes through TypeORM already do this). */
  forgetAll(): void {
    this.known.clear();
  }

  /** Writes `last_used_at` when the last one known (written here, or `stored` when read from the store) is over an hour old. */
  private touch(p: Principal, stored?: number): void {
    const id = (p.kind === 'project_secret' ? 's:' : 'p:') + p.keyId;
    if (stored !== undefined && !this.lastUsedWritten.has(id)) this.lastUsedWritten.set(id, stored);
    const now = Date.now();
    if (now - (this.lastUsedWritten.get(id) ?? -Infinity) <= LAST_USED_WRITE_INTERVAL_MS) return;
    this.lastUsedWritten.set(id, now);
    const write = p.kind === 'project_secret'
      ? this.store.secretKeys.update(p.keyId, { last_used_at: new Date(now) })
      : this.store.personalKeys.update(p.keyId, { last_used_at: new Date(now) });
    write.catch(() => undefined); // a usage timestamp is not worth failing a request for
  }
}

const isAuthFailure = (e: unknown): boolean => (e as { code?: unknown } | null)?.code === 'authentication_failed';

/** The credential of a `Bearer` header; undefined when none was sent. A malformed header counts as a bad key. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  // the common spelling, without a match array: "Bearer <key>"
  if (authorization.startsWith('Bearer ') && authorization.length > 7 && !WHITESPACE.test(authorization.slice(7))) return authorization.slice(7);
  if (authorization.trim() === '') return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!m) throw authenticationFailed('Authorization header must be of the form "Bearer <key>".');
  return m[1];
}

const WHITESPACE = /\s/;
