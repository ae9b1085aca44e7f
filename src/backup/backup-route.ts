import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { apiRoute, respond } from '../../rest-compat/route';
import { requireScope } from '../auth/access';
import type { Services } from '../services';
import { snapshotDataDir } from './snapshot';

/** Where the server writes backups it is asked for; `quarry backup <dir>` moves each one to `<dir>`. */
export const BACKUPS_SUBDIR = 'backups';

/**
 * `POST /api/backups/`: a consistent backup of the whole data directory, taken by the server that owns it (DuckDB
 * allows one process on the event file). It holds every project's data, so it needs an instance administrator: a
 * personal key with `*` and no project restriction. The caller chooses no path: the server writes under
 * `<dataDir>/backups/` and answers where; the CLI, which reached the server through the data dir's server.json,
 * moves it from there. One backup runs at a time; a second request waits for the first.
 */
export function registerBackupRoute(app: FastifyInstance, services: Services): void {
  let running: Promise<unknown> = Promise.resolve();
  apiRoute(app, services, 'POST', '/backups', async (r) => {
    requireScope(r.principal, { scope: '*' });
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
    const dir = path.join(services.config.dataDir, BACKUPS_SUBDIR, name);
    const run = running.then(
      () => snapshotDataDir(services, dir),
      () => snapshotDataDir(services, dir),
    );
    running = run.catch(() => undefined);
    try {
      return respond(201, { path: dir, manifest: await run });
    } catch (e) {
      await fs.rm(dir, { recursive: true, force: true });
      throw e;
    }
  });
}
