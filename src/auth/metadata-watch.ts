import type { DataSource, EntitySubscriberInterface, InsertEvent, RemoveEvent, UpdateEvent } from 'typeorm';

/**
 * Generation counters of the metadata tables that the request hot path reads (keys, users, projects, endpoints),
 * bumped after every insert, update or delete that TypeORM makes to them — `save`, `update`, `delete`, query
 * builders alike (the metadata store is written only through TypeORM; migrations run before anything is cached).
 *
 * In-memory caches of those rows (the authenticator's principals, the query service's projects, the endpoint
 * service's endpoints) remember the generation they read at and are dropped when it moved, so a revoked key, a
 * deleted project or a changed timezone is seen by the very next request, with no expiry to wait for.
 *
 * The counters are process-wide: a write to any watched store invalidates the caches of every store in the
 * process. Writes are rare (a key's `last_used_at` at most once a minute), so over-invalidating costs nothing.
 */
export const metadataGenerations = {
  /** users, personal and project secret API keys, projects (a project's deletion removes its secret keys). */
  identity: 0,
  /** projects (settings: timezone, week start, filters; deletion). */
  projects: 0,
  /** endpoints and their versions, and projects (a deleted project takes its endpoints with it). */
  endpoints: 0,
  /** How many stores are watched: caches that depend on the counters stay off while none is. */
  watchedStores: 0,
};

const IDENTITY_TABLES = new Set(['users', 'personal_api_keys', 'project_secret_api_keys']);
const ENDPOINT_TABLES = new Set(['endpoints', 'endpoint_versions']);

function bump(tableName: string | undefined): void {
  if (tableName === undefined) {
    // unknown target: invalidate everything rather than risk a stale read
    metadataGenerations.identity++;
    metadataGenerations.projects++;
    metadataGenerations.endpoints++;
    return;
  }
  if (tableName === 'projects') {
    metadataGenerations.identity++;
    metadataGenerations.projects++;
    metadataGenerations.endpoints++;
  } else if (IDENTITY_TABLES.has(tableName)) metadataGenerations.identity++;
  else if (ENDPOINT_TABLES.has(tableName)) metadataGenerations.endpoints++;
}

/**
 * Usage timestamps: written as requests come (a key's `last_used_at` once a minute, an endpoint's
 * `last_executed_at` once per 30 minutes), read by no cached path. Bumping on them would empty the caches
 * continuously once many keys are in use.
 */
const USAGE_COLUMNS = new Set(['last_used_at', 'last_executed_at']);

/** True for an update that only sets usage timestamps (query-builder updates carry the values set as `entity`). */
function usageOnly(e: UpdateEvent<unknown>): boolean {
  const columns = e.updatedColumns?.length
    ? e.updatedColumns.map((c) => c.propertyName)
    : e.entity && typeof e.entity === 'object'
      ? Object.keys(e.entity)
      : [];
  return columns.length > 0 && columns.every((c) => USAGE_COLUMNS.has(c));
}

const watched = new WeakSet<DataSource>();

/** Installs the generation-bumping subscriber on a metadata store's DataSource (idempotent). */
export function watchMetadata(db: DataSource): void {
  if (watched.has(db)) return;
  watched.add(db);
  const subscriber: EntitySubscriberInterface = {
    // before and after: a read that started before the write and stores its row after it is dropped too
    beforeInsert: (e: InsertEvent<unknown>) => bump(e.metadata?.tableName),
    afterInsert: (e: InsertEvent<unknown>) => bump(e.metadata?.tableName),
    beforeUpdate: (e: UpdateEvent<unknown>) => {
      if (!usageOnly(e)) bump(e.metadata?.tableName);
    },
    afterUpdate: (e: UpdateEvent<unknown>) => {
      if (!usageOnly(e)) bump(e.metadata?.tableName);
    },
    beforeRemove: (e: RemoveEvent<unknown>) => bump(e.metadata?.tableName),
    afterRemove: (e: RemoveEvent<unknown>) => bump(e.metadata?.tableName),
    beforeSoftRemove: (e: RemoveEvent<unknown>) => bump(e.metadata?.tableName),
    afterSoftRemove: (e: RemoveEvent<unknown>) => bump(e.metadata?.tableName),
    // a read made inside a transaction may hold rows that a rollback undoes
    afterTransactionCommit: () => bump(undefined),
    afterTransactionRollback: () => bump(undefined),
  };
  (db.subscribers as EntitySubscriberInterface[]).push(subscriber);
  metadataGenerations.watchedStores++;
}

/**
 * A small map of rows read from the metadata store, valid while one generation counter has not moved since the
 * read. Bounded: past `maxEntries` the oldest entry goes. `ttlMs` only bounds how long an entry may serve
 * without any write at all (a safety net, e.g. against a write made outside TypeORM).
 */
export class GenerationCache<V, K = string> {
  private readonly entries = new Map<K, { value: V; gen: number; at: number }>();

  constructor(
    private readonly counter: 'identity' | 'projects' | 'endpoints',
    private readonly maxEntries = 10_000,
    private readonly ttlMs = 60_000,
  ) {}

  /** The current generation: read it before the store lookup, pass it to {@link set}. */
  generation(): number {
    return metadataGenerations[this.counter];
  }

  get(key: K): V | undefined {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    if (e.gen !== metadataGenerations[this.counter] || metadataGenerations.watchedStores === 0 || Date.now() - e.at > this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  /** Stores a row read at generation `gen` (ignored if a write happened since, or when no store is watched). */
  set(key: K, value: V, gen: number): void {
    if (gen !== metadataGenerations[this.counter] || metadataGenerations.watchedStores === 0) return;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, { value, gen, at: Date.now() });
  }

  clear(): void {
    this.entries.clear();
  }
}
