import type { KeyService } from '../auth/key-service';
import type { ProjectService } from '../projects/project-service';
import type { Store } from './store';

export interface BootstrapResult {
  /** The new personal key, shown once; undefined when the store already held data. */
  key?: string;
  projectId?: number;
}

/**
 * First start on an empty store: a default user, project 1 ("Default project") and a personal key with `*`.
 * `bootstrapKey` (QUARRY_BOOTSTRAP_KEY) becomes that key's value instead of a random one.
 */
export async function bootstrap(
  store: Store,
  projects: ProjectService,
  keys: KeyService,
  bootstrapKey?: string,
): Promise<BootstrapResult> {
  if ((await store.users.count()) > 0) return {};
  return store.db.transaction(async () => {
    const user = await store.users.save(store.users.create({ email: 'admin@localhost', name: 'Admin' }));
    const project = await projects.createUnchecked({
      name: 'Default project',
      timezone: 'UTC',
      week_start_day: 0,
      test_account_filters: [],
      path_cleaning_filters: [],
    });
    const key = await keys.issuePersonal(user.id, { label: 'bootstrap', scopes: ['*'], scoped_teams: null }, bootstrapKey);
    return { key: key.value, projectId: project.id };
  });
}
