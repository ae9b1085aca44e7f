import type { Config } from '../config';
import { isUserError } from '../errors';
import { bootstrap } from '../store/bootstrap';
import { CliError } from './cli-error';
import { readServerLock } from '../data-dir-lock';
import type { ImportChunk, ImportFileOptions, ImportSink } from '../ingest/import-file';
import { createLogger } from '../logger';
import { openServices, type Services } from '../services';

export interface EventSink {
  send: ImportSink;
  /** Where the rows go, for the user. */
  target: string;
  close(): Promise<void>;
}

/**
 * Where `import` and `demo` write: through the running server's import route when a server holds the data
 * directory (never two writers on one store), else directly into the stores.
 */
export async function openEventSink(config: Config, projectId: number, apiKey: string | undefined): Promise<EventSink> {
  const lock = readServerLock(config.dataDir);
  if (lock) {
    if (!apiKey) {
      throw new CliError(
        `A Quarry server (${lock.url}) holds ${config.dataDir}: the rows go through its API, which needs a key with ` +
          'event:write. Pass --key or set QUARRY_API_KEY.',
      );
    }
    const url = `${lock.url}/api/projects/${projectId}/import/`;
    return {
      target: lock.url,
      send: async (chunk) => {
        const res = await fetch(url, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify(chunk),
        });
        const body = (await res.json().catch(() => ({}))) as { detail?: string };
        if (!res.ok) throw new CliError(`The server answered ${res.status}: ${body.detail ?? 'no detail'}`);
        return body as Awaited<ReturnType<ImportSink>>;
      },
      close: async () => undefined,
    };
  }
  const services: Services = await openServices(config, createLogger('warn'));
  try {
    const boot = await bootstrap(services.store, services.projects, services.keys, config.bootstrapKey);
    if (boot.key) console.log(`Created project 1 and a personal API key with all scopes (shown once): ${boot.key}`);
    await services.projects.find(projectId);
  } catch (e) {
    await services.close();
    throw isUserError(e) ? new CliError(`Project ${projectId} does not exist.`) : e;
  }
  return {
    target: config.dataDir,
    // The whole file goes to the Ingestor's native bulk path (DuckDB reads the NDJSON itself).
    send: Object.assign((chunk: ImportChunk) => services.ingestor.import(projectId, chunk), {
      importFile: (file: string, o: ImportFileOptions) => services.ingestor.importFile(projectId, file, o),
    }),
    close: () => services.close(),
  };
}
