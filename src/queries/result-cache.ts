/** One cached answer: the runner's response and when, at which data version, it was computed. */
export interface CacheEntry {
  projectId: number;
  response: Record<string, unknown>;
  lastRefresh: Date;
  dataVersion: number;
  /** The envelope of a plain cache hit and its JSON, built on the first hit (see QueryService.execute). */
  served?: { body: Record<string, unknown>; json: string };
}

/**
 * In-memory LRU of query answers, bounded by entries and by the approximate size of their JSON. A process
 * restart empties it, which only costs recomputation.
 */
export class ResultCache {
  private readonly entries = new Map<string, CacheEntry & { bytes: number }>();
  private bytes = 0;

  constructor(
    private readonly maxEntries = 2000,
    private readonly maxBytes = 256 * 1024 * 1024,
  ) {}

  get(key: string): CacheEntry | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    this.entries.set(key, e);
    return e;
  }

  set(key: string, entry: CacheEntry): void {
    const length = JSON.stringify(entry.response).length;
    if (length > this.maxBytes / 4) return; // one huge answer must not evict everything else
    // twice: room for the serialized envelope a cache hit keeps (`served`)
    const bytes = 2 * length;
    this.delete(key);
    this.entries.set(key, { ...entry, bytes });
    this.bytes += bytes;
    while (this.entries.size > this.maxEntries || this.bytes > this.maxBytes) {
      const oldest = this.entries.keys().next().value as string;
      this.delete(oldest);
    }
  }

  delete(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.bytes -= e.bytes;
    this.entries.delete(key);
  }

  /** Forgets a project's answers (the project was deleted). */
  dropProject(projectId: number): void {
    for (const [k, e] of this.entries) if (e.projectId === projectId) this.delete(k);
  }
}
