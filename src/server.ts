import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app';
import type { Config } from './config';
import { DataDirBusyError, readServerLock, removeServerLock, writeServerLock } from './data-dir-lock';
import { openServices, type Services } from './services';
import { bootstrap } from './store/bootstrap';

export interface RunningServer {
  app: FastifyInstance;
  services: Services;
  url: string;
  /** The bootstrap key when this start created the store; shown once. */
  bootstrapKey?: string;
  /** Drains requests, then closes the stores. Idempotent. */
  stop(): Promise<void>;
}

/** Opens the stores, bootstraps an empty one, and listens. */
export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  const held = readServerLock(config.dataDir);
  if (held) throw new DataDirBusyError(config.dataDir, held);
  const services = await openServices(config, logger);
  let app: FastifyInstance | undefined;
  try {
    const boot = await bootstrap(services.store, services.projects, services.keys, config.bootstrapKey);
    app = await buildApp(config, services, logger);
    await app.listen({ host: config.host, port: config.port });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
    writeServerLock(config.dataDir, url);
    let stopping: Promise<void> | undefined;
    const started = app;
    return {
      app,
      services,
      url,
      bootstrapKey: boot.key,
      stop: () =>
        (stopping ??= (async () => {
          await started.close();
          await services.close();
          removeServerLock(config.dataDir);
        })()),
    };
  } catch (e) {
    await app?.close().catch(() => undefined);
    await services.close();
    throw e;
  }
}
