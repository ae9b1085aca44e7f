import fs from 'node:fs';
import path from 'node:path';

/**
 * The server owns its data directory: DuckDB allows one writer per file, and two writers on the metadata store
 * would race. The server writes `<dataDir>/server.json` ({pid, url}); CLI commands read it to go through the
 * server or refuse with a clear message.
 */
export interface ServerLock {
  pid: number;
  url: string;
}

const lockFile = (dataDir: string) => path.join(dataDir, 'server.json');

/** The live server holding `dataDir`, if any (a stale file from a killed server is ignored). */
export function readServerLock(dataDir: string): ServerLock | undefined {
  let lock: ServerLock;
  try {
    lock = JSON.parse(fs.readFileSync(lockFile(dataDir), 'utf8')) as ServerLock;
  } catch {
    return undefined;
  }
  if (!Number.isInteger(lock.pid) || lock.pid === process.pid) return undefined;
  try {
    process.kill(lock.pid, 0);
    return lock;
  } catch {
    return undefined;
  }
}

export function writeServerLock(dataDir: string, url: string): void {
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(lockFile(dataDir), JSON.stringify({ pid: process.pid, url } satisfies ServerLock));
}

export function removeServerLock(dataDir: string): void {
  try {
    const lock = JSON.parse(fs.readFileSync(lockFile(dataDir), 'utf8')) as ServerLock;
    if (lock.pid === process.pid) fs.unlinkSync(lockFile(dataDir));
  } catch {
    // nothing to remove
  }
}

export class DataDirBusyError extends Error {
  constructor(dataDir: string, lock: ServerLock) {
    super(
      `A Quarry server (pid ${lock.pid}, ${lock.url}) holds ${dataDir}. Use its API, or stop it first: ` +
        'only one process may write to a data directory.',
    );
  }
}
