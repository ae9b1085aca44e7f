#!/usr/bin/env node
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { CliError } from './cli/cli-error';
import { ConfigError, loadConfig, type Config } from './config';
import { DataDirBusyError, readServerLock } from './data-dir-lock';
import { isUserError } from './errors';
import { createLogger } from './logger';
import { applyHeapGrowth, applyScavenger } from './runtime-tuning';
import type { KeyService } from './auth/key-service';
import type { ProjectService } from './projects/project-service';
import type { Store } from './store/store';

// Each command loads only what it runs (`await import` below): the server's module graph (GraphQL, HTTP, engines)
// takes a second or more to load, which `quarry help`, a usage error or `keys list` should not pay.

const USAGE = `Usage: quarry <command> [options]   (through npm: npm run quarry -- <command> ...)

  serve                                   start the server (what npm start runs)
  projects list
  projects create --name NAME [--timezone TZ] [--week-start 0|1]
  keys list
  keys create --scopes S1,S2 [--projects 1,2] [--label LABEL]
  keys revoke KEY_ID
  import --project N --events FILE [--persons FILE] [--key KEY]
  demo [--events N] [--project ID] [--seed N] [--key KEY]
  migrate-events --to clickhouse          copy the DuckDB event store into ClickHouse (QUARRY_CLICKHOUSE_*)
  backup DIR [--key KEY]                  consistent backup of the data dir, also while a server runs on it
                                          (then through its API: KEY is a personal key with * and no project restriction)
  restore DIR                             restore a backup into an empty data dir (no server running on it)

Configuration comes from QUARRY_* environment variables (see README).`;

async function main(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  const config = loadConfig();
  switch (command) {
    case 'serve':
      return serve(config);
    case 'projects':
      return withStore(config, (s) => projectsCommand(s, sub, rest));
    case 'keys':
      return withStore(config, (s) => keysCommand(s, sub, rest));
    case 'import':
      return (await import('./cli/import-command')).importCommand(config, argv.slice(1));
    case 'demo':
      return (await import('./cli/demo-command')).demoCommand(config, argv.slice(1));
    case 'migrate-events':
      return (await import('./engines/clickhouse/migrate')).migrateEventsCommand(config, argv.slice(1));
    case 'backup':
      return (await import('./cli/backup-command')).backupCommand(config, argv.slice(1));
    case 'restore':
      return (await import('./cli/backup-command')).restoreCommand(config, argv.slice(1));
    case undefined:
    case 'help':
    case '--help':
      console.log(USAGE);
      return command === undefined ? 1 : 0;
    default:
      console.error(`Unknown command "${command}".\n\n${USAGE}`);
      return 1;
  }
}

async function serve(config: Config): Promise<number> {
  const logger = createLogger(config.logLevel);
  // Before the server allocates anything: V8 reads the factor at each full collection.
  const heapFlag = applyHeapGrowth(config.heapGrowthPercent);
  if (heapFlag) logger.debug({ flag: heapFlag }, 'V8 heap growth set');
  const scavengeFlag = applyScavenger(config.parallelScavenge);
  if (scavengeFlag) logger.debug({ flag: scavengeFlag }, 'V8 parallel scavenge off');
  // Signal handlers go in before anything else: a supervisor may send SIGTERM the moment it reads "listening" (or
  // during start-up), and a signal arriving before they were installed killed the process without draining.
  const signalled = new Promise<string>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  const { startServer } = await import('./server');
  const server = await startServer(config, logger);
  if (server.bootstrapKey) {
    // Printed once, on the first start of an empty store; only its hash is kept.
    process.stdout.write(
      `\nQuarry created project 1 and a personal API key with all scopes. It is shown only once:\n\n    ${server.bootstrapKey}\n\n`,
    );
  }
  process.stdout.write(`Quarry listening on ${server.url} (GraphiQL: ${server.url}/graphql)\n`);
  const signal = await signalled;
  logger.info({ signal }, 'draining requests and closing stores');
  await server.stop().catch((e: unknown) => logger.error({ err: e }, 'error while stopping'));
  return 0;
}

/** What the metadata commands use: the store and the project and key services over it. */
interface Metadata {
  store: Store;
  projects: ProjectService;
  keys: KeyService;
}

/**
 * Runs a metadata command directly on the store; refuses while a server holds the data directory. Only the store
 * opens (no event engine, ingest log or query services): the command starts in about a third of the time.
 */
async function withStore(config: Config, fn: (s: Metadata) => Promise<number>): Promise<number> {
  const lock = readServerLock(config.dataDir);
  if (lock) throw new DataDirBusyError(config.dataDir, lock);
  const [{ Store }, { ProjectService }, { KeyService }, { bootstrap }] = await Promise.all([
    import('./store/store'),
    import('./projects/project-service'),
    import('./auth/key-service'),
    import('./store/bootstrap'),
  ]);
  const store = await Store.open(config.dataDir);
  try {
    const projects = new ProjectService(store);
    const keys = new KeyService(store, projects, config.personalApiKeysPerUser);
    const boot = await bootstrap(store, projects, keys, config.bootstrapKey);
    if (boot.key) console.log(`Created project 1 and a personal API key with all scopes (shown once): ${boot.key}`);
    return await fn({ store, projects, keys });
  } finally {
    await store.close();
  }
}

async function projectsCommand(s: Metadata, sub: string | undefined, args: string[]): Promise<number> {
  if (sub === 'list') {
    const projects = await s.store.projects.find({ order: { id: 'ASC' } });
    for (const p of projects) console.log(`${p.id}\t${p.name}\t${p.timezone}\t${p.api_token}`);
    return 0;
  }
  if (sub === 'create') {
    const { values } = parseArgs({
      args,
      options: { name: { type: 'string' }, timezone: { type: 'string' }, 'week-start': { type: 'string' } },
    });
    const created = await s.projects.create(await cliPrincipal(s), {
      name: values.name,
      ...(values.timezone ? { timezone: values.timezone } : {}),
      ...(values['week-start'] !== undefined ? { week_start_day: Number(values['week-start']) } : {}),
    });
    console.log(`Created project ${created.id} "${created.name}" (${created.timezone}); capture token: ${created.api_token}`);
    return 0;
  }
  console.error('Usage: quarry projects list | quarry projects create --name NAME [--timezone TZ] [--week-start 0|1]');
  return 1;
}

async function keysCommand(s: Metadata, sub: string | undefined, args: string[]): Promise<number> {
  const principal = await cliPrincipal(s);
  if (sub === 'list') {
    for (const k of await s.keys.listPersonal(principal)) {
      console.log(`${k.id}\t${k.mask_value}\t${k.scopes.join(',')}\t${k.scoped_teams?.join(',') ?? 'all projects'}\t${k.label}`);
    }
    return 0;
  }
  if (sub === 'create') {
    const { values } = parseArgs({
      args,
      options: { scopes: { type: 'string' }, projects: { type: 'string' }, label: { type: 'string' } },
    });
    const list = (v?: string) => (v ? v.split(',').map((x) => x.trim()).filter(Boolean) : undefined);
    const key = await s.keys.createPersonal(principal, {
      label: values.label, // none: the service's default ('')
      scopes: list(values.scopes),
      scoped_teams: list(values.projects)?.map(Number) ?? null,
    });
    console.log(`Created key ${key.id} (${key.scopes.join(',')}). It is shown only once:\n\n    ${key.value}\n`);
    return 0;
  }
  if (sub === 'revoke' && args[0]) {
    await s.keys.revokePersonalUnchecked(args[0]);
    console.log(`Revoked key ${args[0]}.`);
    return 0;
  }
  console.error('Usage: quarry keys list | quarry keys create --scopes S1,S2 [--projects 1,2] [--label L] | quarry keys revoke KEY_ID');
  return 1;
}

/** The CLI acts as the instance's first user with every scope: it has the data directory, so it has everything. */
async function cliPrincipal(s: Metadata) {
  const user = await s.store.users.findOne({ where: {}, order: { id: 'ASC' } });
  return { kind: 'personal' as const, keyId: 'cli', userId: user!.id, scopes: ['*'], projectIds: null };
}

/** Runs the CLI with `argv` (without node and script) and sets the exit code; errors print as one line. */
export function cli(argv: string[]): Promise<void> {
  return main(argv).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      if (e instanceof ConfigError || e instanceof DataDirBusyError || e instanceof CliError) console.error(e.message);
      // DuckDB's own file lock (another process holds events.duckdb): a refusal to explain, not a crash to debug.
      else if (e instanceof Error && /^The event store .* is in use by another process/.test(e.message)) console.error(e.message);
      else if (String((e as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS_')) console.error(`${(e as Error).message}\n\n${USAGE}`);
      else if (isUserError(e)) console.error(`Error: ${e.message}${e.attr ? ` (${e.attr})` : ''}`);
      else console.error(e);
      process.exitCode = 1;
    },
  );
}

if (require.main === module) void cli(process.argv.slice(2));
