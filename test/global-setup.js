/**
 * Jest global setup: the run's temp files (data dirs, ClickHouse servers, CLI builds) go to a fresh directory on
 * RAM-backed /dev/shm when the machine has a roomy one. Nothing a test checks depends on the medium, but
 * ClickHouse inserts and fsync'd ingest logs on the VM disk cost ~a quarter of the suite's time. The workers start
 * after this and inherit TMPDIR, and so do the servers and CLIs they spawn; global-teardown.js removes the
 * directory. QUARRY_TEST_TMPDIR picks another parent directory (e.g. the default temp dir: `QUARRY_TEST_TMPDIR=/tmp`).
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const MIN_FREE = 4 * 2 ** 30;

function parentDir() {
  if (process.env.QUARRY_TEST_TMPDIR) return process.env.QUARRY_TEST_TMPDIR;
  try {
    const s = fs.statfsSync('/dev/shm');
    if (s.bavail * s.bsize >= MIN_FREE) return '/dev/shm';
  } catch {
    // no /dev/shm
  }
  return os.tmpdir();
}

module.exports = async () => {
  const dir = fs.mkdtempSync(path.join(parentDir(), 'quarry-tests-'));
  process.env.QUARRY_TEST_RUN_TMPDIR = dir;
  process.env.TMPDIR = dir;
};
