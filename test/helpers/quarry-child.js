// Child-process entry for tests that run the real server (`quarry serve`) in its own process, so it can be
// killed with SIGKILL: transpiles the TypeScript sources on the fly (no build step, the options of tsconfig.json;
// isolatedModules makes per-file transpiling exact) and runs src/main.ts as the main module with the arguments
// given (default `serve`). Configuration comes from the QUARRY_* environment, as for the real CLI.
// Transpiled files are cached in the OS temp dir by path + mtime + size, so restarts within a test are fast.
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const ts = require('typescript');

const cacheDir = path.join(os.tmpdir(), 'quarry-test-ts-cache');
fs.mkdirSync(cacheDir, { recursive: true });

require.extensions['.ts'] = (module, filename) => {
  const st = fs.statSync(filename);
  const key = crypto.createHash('sha1').update(`${filename}\0${st.mtimeMs}\0${st.size}\0${ts.version}`).digest('hex');
  const cached = path.join(cacheDir, `${key}.js`);
  let out;
  try {
    out = fs.readFileSync(cached, 'utf8');
  } catch {
    out = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
      fileName: filename,
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
        experimentalDecorators: true,
        emitDecoratorMetadata: true,
        useDefineForClassFields: false,
        isolatedModules: true,
      },
    }).outputText;
    const tmp = `${cached}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, out);
    fs.renameSync(tmp, cached);
  }
  module._compile(out, filename);
};

if (process.argv.length <= 2) process.argv.push('serve');
// Loaded as the main module, so main.ts's `require.main === module` entry runs.
require('node:module')._load(path.join(__dirname, '../../src/main.ts'), null, true);
