import { GenerationCache, metadataGenerations, watchMetadata } from './metadata-watch';

describe('GenerationCache', () => {
  let watched: number;
  beforeEach(() => {
    watched = metadataGenerations.watchedStores;
    metadataGenerations.watchedStores = Math.max(1, watched);
  });
  afterEach(() => {
    metadataGenerations.watchedStores = watched;
  });

  it('serves a value until its table is written', () => {
    const c = new GenerationCache<string>('identity');
    c.set('k', 'v', c.generation());
    expect(c.get('k')).toBe('v');
    metadataGenerations.identity++;
    expect(c.get('k')).toBeUndefined();
  });

  it('drops a read that a write overtook (read before the write, stored after it)', () => {
    const c = new GenerationCache<string>('projects');
    const gen = c.generation();
    metadataGenerations.projects++; // a write lands while the read is in flight
    c.set('k', 'stale', gen);
    expect(c.get('k')).toBeUndefined();
  });

  it('is not invalidated by writes to other tables', () => {
    const c = new GenerationCache<string>('endpoints');
    c.set('k', 'v', c.generation());
    metadataGenerations.identity++;
    expect(c.get('k')).toBe('v');
  });

  it('caches nothing while no store is watched', () => {
    metadataGenerations.watchedStores = 0;
    const c = new GenerationCache<string>('identity');
    c.set('k', 'v', c.generation());
    expect(c.get('k')).toBeUndefined();
  });

  it('expires entries after its ttl even without writes', () => {
    const c = new GenerationCache<string>('identity', 10, -1);
    c.set('k', 'v', c.generation());
    expect(c.get('k')).toBeUndefined();
  });

  it('keeps at most maxEntries, dropping the oldest', () => {
    const c = new GenerationCache<number, number>('identity', 3);
    for (let i = 0; i < 5; i++) c.set(i, i, c.generation());
    expect([0, 1, 2, 3, 4].map((i) => c.get(i))).toEqual([undefined, undefined, 2, 3, 4]);
  });
});

describe('watchMetadata', () => {
  const table = (tableName: string) => ({ tableName }) as never;
  const db = { subscribers: [] as Record<string, (e: unknown) => void>[] };
  beforeAll(() => watchMetadata(db as never));
  const sub = () => db.subscribers[0];

  it.each([
    ['personal_api_keys', 'identity'],
    ['project_secret_api_keys', 'identity'],
    ['users', 'identity'],
    ['projects', 'projects'],
    ['projects', 'endpoints'],
    ['projects', 'identity'],
    ['endpoints', 'endpoints'],
    ['endpoint_versions', 'endpoints'],
  ] as const)('a write to %s moves the %s generation', (tableName, counter) => {
    const before = metadataGenerations[counter];
    sub().afterUpdate({ metadata: table(tableName), entity: { revoked_at: new Date() }, updatedColumns: [] });
    expect(metadataGenerations[counter]).toBeGreaterThan(before);
    const mid = metadataGenerations[counter];
    sub().afterRemove({ metadata: table(tableName) });
    expect(metadataGenerations[counter]).toBeGreaterThan(mid);
  });

  it('ignores writes to other tables (insights, activity)', () => {
    const before = { ...metadataGenerations };
    sub().afterInsert({ metadata: table('insights') });
    sub().afterUpdate({ metadata: table('activity_log'), entity: { x: 1 }, updatedColumns: [] });
    expect(metadataGenerations).toEqual(before);
  });

  it('ignores usage timestamps (last_used_at, last_executed_at), not the rest of an update', () => {
    const before = metadataGenerations.identity;
    sub().afterUpdate({ metadata: table('personal_api_keys'), entity: { last_used_at: new Date() }, updatedColumns: [] });
    sub().afterUpdate({ metadata: table('personal_api_keys'), entity: {}, updatedColumns: [{ propertyName: 'last_used_at' }] });
    expect(metadataGenerations.identity).toBe(before);
    sub().afterUpdate({ metadata: table('personal_api_keys'), entity: { last_used_at: new Date(), scopes: [] }, updatedColumns: [] });
    expect(metadataGenerations.identity).toBeGreaterThan(before);
  });
});
