/**
 * Per-project ingest state (identity, groups), loaded from the engine the first time a project is touched and kept
 * in memory; dropped by {@link ProjectStateStore.invalidate} when the stored state may differ (a failed write, a
 * deleted project).
 */
export class ProjectStateStore<T> {
  private readonly projects = new Map<number, T>();

  /** `what` names the state in errors; `load` builds a project's state (from the engine, or empty). */
  constructor(
    private readonly what: string,
    private readonly load: (projectId: number) => Promise<T>,
  ) {}

  async ensureLoaded(projectId: number): Promise<T> {
    const p = this.projects.get(projectId);
    if (p) return p;
    const made = await this.load(projectId);
    const raced = this.projects.get(projectId);
    if (raced) return raced;
    this.projects.set(projectId, made);
    return made;
  }

  /** The loaded state of a project (call ensureLoaded first). */
  get(projectId: number): T {
    const p = this.projects.get(projectId);
    if (!p) throw new Error(`${this.what} of project ${projectId} not loaded`);
    return p;
  }

  loaded(): T[] {
    return [...this.projects.values()];
  }

  invalidate(projectId?: number): void {
    if (projectId === undefined) this.projects.clear();
    else this.projects.delete(projectId);
  }
}
