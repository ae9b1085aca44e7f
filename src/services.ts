import type { Logger } from 'pino';
import { Authenticator } from './auth/authenticator';
import { KeyService } from './auth/key-service';
import type { Config } from './config';
import { ProjectService } from './projects/project-service';
import { Store } from './store/store';

/** The service layer both faces (GraphQL and REST) call. Built once per process from the config. */
export interface Services {
  config: Config;
  store: Store;
  auth: Authenticator;
  projects: ProjectService;
  keys: KeyService;
  /** Closes everything, newest first. */
  close(): Promise<void>;
}

export async function openServices(config: Config, _logger: Logger): Promise<Services> {
  const store = await Store.open(config.dataDir);
  const projects = new ProjectService(store);
  const closers: (() => Promise<void>)[] = [() => store.close()];
  return {
    config,
    store,
    auth: new Authenticator(store),
    projects,
    keys: new KeyService(store, projects),
    async close() {
      for (const c of closers.reverse()) await c();
    },
  };
}
