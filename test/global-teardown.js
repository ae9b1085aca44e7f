/** Jest global teardown: removes the run's temp directory made by global-setup.js. */
const fs = require('node:fs');

module.exports = async () => {
  const dir = process.env.QUARRY_TEST_RUN_TMPDIR;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
};
