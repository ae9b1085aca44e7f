import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * For a describe block: each test gets a new temp directory and runs with the environment variable `envName` unset
 * (its value before the block is restored after each test, with the directory removed). Returns the path of a file
 * in the current test's directory.
 */
export function freshDirWithoutEnv(envName: string, prefix: string): (name: string) => string {
  const saved = process.env[envName];
  let dir = '';
  beforeEach(() => {
    delete process.env[envName];
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  afterEach(() => {
    if (saved === undefined) delete process.env[envName];
    else process.env[envName] = saved;
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return (name) => path.join(dir, name);
}
