import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ensureEmptyDir, restoreInto, snapshotDataDir, type BackupManifest } from '../backup/snapshot';
import type { Config } from '../config';
import { readServerLock } from '../data-dir-lock';
import { isUserError } from '../errors';
import { createLogger } from '../logger';
import { openServices } from '../services';
import { CliError } from './cli-error';

export const BACKUP_USAGE = 'quarry backup DIR [--key KEY]     (DIR new or empty; while serving, KEY is a personal key with * and no project restriction)';
export const RESTORE_USAGE = 'quarry restore DIR                 (into QUARRY_DATA_DIR, which must be empty, with no server running)';

const summary = (m: BackupManifest) =>
  `${m.counts.events} events, ${m.counts.persons} persons (+ ingest log past checkpoint ${m.checkpoint}, ${m.ingestLog.bytes} bytes), ` +
  `${m.counts.projects} projects, ${m.counts.insights} insights, ${m.counts.endpoints} endpoints, ${m.counts.keys} personal keys`;

/**
 * `quarry backup DIR`: a consistent backup of the data directory. While a server holds it (server.json), the server
 * takes the backup (it owns the DuckDB file) through `POST /api/backups/` and the CLI moves the result to DIR;
 * otherwise the CLI opens the stores itself.
 */
export async function backupCommand(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { key: { type: 'string' } } });
  if (positionals.length !== 1) {
    console.error(`Usage: ${BACKUP_USAGE}`);
    return 1;
  }
  const target = path.resolve(positionals[0]);
  if (isInside(target, config.dataDir)) throw new CliError(`The backup directory must be outside the data directory ${config.dataDir}.`);
  await userErrors(() => ensureEmptyDir(target, 'Backup directory'));
  const lock = readServerLock(config.dataDir);
  let manifest: BackupManifest;
  if (lock) {
    const key = values.key ?? process.env.QUARRY_API_KEY;
    if (!key) {
      throw new CliError(
        `A Quarry server (${lock.url}) holds ${config.dataDir}: the backup goes through its API, which needs a personal key ` +
          'with * and no project restriction. Pass --key or set QUARRY_API_KEY.',
      );
    }
    const res = await fetch(`${lock.url}/api/backups/`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
    const body = (await res.json().catch(() => ({}))) as { path?: string; manifest?: BackupManifest; detail?: string };
    if (res.status !== 201 || !body.path || !body.manifest) throw new CliError(`The server answered ${res.status}: ${body.detail ?? 'no detail'}`);
    await move(body.path, target);
    manifest = body.manifest;
  } else {
    if (!fs.existsSync(path.join(config.dataDir, 'quarry.sqlite'))) throw new CliError(`There is no Quarry data directory at ${config.dataDir}.`);
    const services = await openServices(config, createLogger('warn'));
    try {
      manifest = await userErrors(() => snapshotDataDir(services, target));
    } finally {
      await services.close();
    }
  }
  console.log(`Backed up ${config.dataDir} to ${target} in ${(manifest.durationMs / 1000).toFixed(1)} s: ${summary(manifest)}.`);
  return 0;
}

/** `quarry restore DIR`: copies a backup into the (empty) data directory; the next `serve` replays its ingest log. */
export async function restoreCommand(config: Config, args: string[]): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  if (positionals.length !== 1) {
    console.error(`Usage: ${RESTORE_USAGE}`);
    return 1;
  }
  const lock = readServerLock(config.dataDir);
  if (lock) throw new CliError(`A Quarry server (pid ${lock.pid}, ${lock.url}) is running on ${config.dataDir}: stop it, and restore into an empty data directory.`);
  let m: BackupManifest;
  try {
    m = await restoreInto(path.resolve(positionals[0]), config.dataDir);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  console.log(`Restored the backup of ${m.createdAt} into ${config.dataDir}: ${summary(m)}. Start the server on it to replay the ingest log.`);
  return 0;
}

async function userErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (isUserError(e)) throw new CliError(e.message);
    throw e;
  }
}

const isInside = (child: string, parent: string) => {
  const rel = path.relative(path.resolve(parent), child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

/** Moves the server's backup to `target` (an empty directory): a rename, or copy + delete across file systems. */
async function move(from: string, target: string): Promise<void> {
  await fsp.rmdir(target);
  try {
    await fsp.rename(from, target);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    await fsp.cp(from, target, { recursive: true });
    await fsp.rm(from, { recursive: true, force: true });
  }
}
