/**
 * Logs never contain a key or a secret variable value (issue #11). A real `quarry serve` process at log level
 * trace goes through a session of requests that carry secrets everywhere a client might put them (header, query
 * string, body, malformed JSON, GraphQL text, capture token), succeed, fail (401, 403, 404, 400, 413, 415) and run
 * endpoints with a project secret key whose fixed variable is a tenant id ("marked secret": the caller never sees
 * or sends it). Then every line it wrote is checked: no full key or secret value, and no long slice of one.
 * The one exception is by design: the bootstrap key banner printed once on the first start (plain text, not a log line).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TEST_KEY } from '../helpers/server';

const CHILD = path.join(__dirname, '..', 'helpers', 'quarry-child.js');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-logsecrets-'));

let child: ChildProcessWithoutNullStreams;
let url = '';
let stdout = '';
let stderr = '';

beforeAll(async () => {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('QUARRY_')) env[k] = v;
  child = spawn(process.execPath, [CHILD, 'serve'], {
    env: { ...env, QUARRY_DATA_DIR: dataDir, QUARRY_PORT: '0', QUARRY_HOST: '127.0.0.1', QUARRY_LOG_LEVEL: 'trace', QUARRY_BOOTSTRAP_KEY: TEST_KEY, QUARRY_BODY_LIMIT_BYTES: '65536' },
  });
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.on('data', (d) => (stdout += d));
  url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${stdout}\n${stderr}`)), 90_000);
    const poll = setInterval(() => {
      const m = /Quarry listening on (http:\/\/\S+)/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        clearInterval(poll);
        resolve(m[1]);
      }
    }, 50);
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}:\n${stdout}\n${stderr}`)));
  });
}, 120_000);

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.removeAllListeners('exit');
    await new Promise((r) => {
      child.on('exit', r);
      child.kill('SIGTERM');
    });
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function call(method: string, p: string, opts: { key?: string | null; body?: unknown; raw?: string; type?: string } = {}) {
  const headers: Record<string, string> = {};
  if (opts.key !== null) headers.authorization = `Bearer ${opts.key ?? TEST_KEY}`;
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers['content-type'] = opts.type ?? 'application/json';
  const res = await fetch(url + p, { method, headers, body });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, body: json, text };
}

describe('a session of requests with secrets everywhere', () => {
  const secrets: Record<string, string> = { bootstrap: TEST_KEY };
  const statuses: number[] = [];
  const track = async (p: Promise<{ status: number; body: any; text: string }>) => {
    const r = await p;
    statuses.push(r.status);
    return r;
  };

  it('runs the session', async () => {
    // personal keys: one used, one revoked, one only ever sent in odd places
    const k1 = await track(call('POST', '/api/personal_api_keys/', { body: { label: 'k1', scopes: ['query:read', 'endpoint:read'] } }));
    secrets.personal = k1.body.value;
    const k2 = await track(call('POST', '/api/personal_api_keys/', { body: { label: 'k2', scopes: ['*'] } }));
    secrets.personalRevoked = k2.body.value;
    const k3 = await track(call('POST', '/api/personal_api_keys/', { body: { label: 'k3', scopes: ['project:read'] } }));
    secrets.personalElsewhere = k3.body.value;
    // a project secret key whose fixed variable is a tenant id, and an endpoint that uses it
    secrets.tenant = 'tenant-7Qx2Lr9Vp4Zk1Wm8';
    const ep = await track(
      call('POST', '/api/projects/1/endpoints/', {
        body: { name: 'per_tenant', query: { kind: 'ProductQLQuery', query: 'SELECT count() FROM events WHERE properties.tenant = {variables.tenant}' }, variables: [{ name: 'tenant', type: 'String' }] },
      }),
    );
    expect(ep.status).toBe(201);
    const sk = await track(call('POST', '/api/projects/1/project_secret_api_keys/', { body: { label: 's', scopes: ['endpoint:read'], fixed_variables: { tenant: secrets.tenant } } }));
    expect(sk.status).toBe(201);
    secrets.projectSecret = sk.body.value;
    const token = (await track(call('GET', '/api/projects/1/'))).body.api_token;

    // successes
    expect((await track(call('POST', '/api/projects/1/query/', { key: secrets.personal, body: { query: { kind: 'ProductQLQuery', query: 'SELECT 1' } } }))).status).toBe(200);
    expect((await track(call('POST', '/api/projects/1/endpoints/per_tenant/run/', { key: secrets.projectSecret, body: {} }))).status).toBe(200);
    expect((await track(call('POST', '/graphql', { key: secrets.personal, body: { query: '{ viewer { principalType } }' } }))).status).toBe(200);
    const capture = await fetch(`${url}/e/`, { method: 'POST', body: JSON.stringify({ api_key: token, event: 'e', distinct_id: 'd', properties: { tenant: secrets.tenant } }) });
    expect(capture.status).toBe(200);

    // errors with the same credentials
    await track(call('GET', '/api/projects/', { key: secrets.personal })); // 403 missing scope
    await track(call('GET', '/api/projects/1/endpoints/nope/run/', { key: secrets.projectSecret })); // 404
    await track(call('GET', '/api/projects/999/endpoints/per_tenant/run/', { key: secrets.projectSecret })); // 404 other project
    await track(call('POST', '/api/projects/1/endpoints/per_tenant/run/', { key: secrets.projectSecret, body: { variables: { tenant: 'other', nope: 1 } } }));
    await track(call('POST', '/api/projects/1/query/', { key: secrets.projectSecret, body: { query: { kind: 'ProductQLQuery', query: 'SELECT 1' } } })); // 403
    await track(call('DELETE', `/api/personal_api_keys/${k2.body.id}/`));
    await track(call('GET', '/api/projects/1/', { key: secrets.personalRevoked })); // 401 revoked
    await track(call('GET', '/api/projects/1/', { key: secrets.personal.slice(0, -1) + (secrets.personal.endsWith('A') ? 'B' : 'A') })); // 401 typo
    await track(call('GET', '/api/projects/1/', { key: `phs_${secrets.projectSecret.slice(4, -2)}xx` })); // 401 secret typo
    // keys where they do not belong
    await track(call('GET', `/api/projects/?personal_api_key=${secrets.personalElsewhere}`, { key: null }));
    await track(call('POST', '/api/projects/', { key: null, body: { personal_api_key: secrets.personalElsewhere, name: 'x' } }));
    await track(call('POST', '/api/projects/', { raw: `{"name": "${secrets.personalElsewhere}`, key: secrets.personalElsewhere })); // malformed JSON
    await track(call('POST', '/api/projects/', { raw: `name=${secrets.personalElsewhere}`, type: 'text/plain' })); // 415
    await track(call('POST', '/api/projects/', { body: { name: 'y', pad: `${secrets.personalElsewhere}${'x'.repeat(70_000)}` } })); // 413
    await track(call('POST', '/api/projects/1/query/', { body: { query: { kind: 'ProductQLQuery', query: `SELECT '${secrets.personalElsewhere}' FROM nope` } } }));
    await track(call('POST', '/api/projects/1/query/', { body: { query: { kind: 'TrendsQuery', series: [], x: secrets.personalElsewhere } } }));
    await track(call('POST', '/graphql', { key: secrets.personalElsewhere, body: { query: `{ viewer(x: "${secrets.personalElsewhere}") { principalType } }` } }));
    await track(call('POST', '/graphql', { key: secrets.personalRevoked, body: { query: '{ viewer { principalType } }' } }));
    await track(call('POST', '/graphql', { key: secrets.projectSecret, body: { query: '{ projects { count } }' } }));
    const badCapture = await fetch(`${url}/e/`, { method: 'POST', body: JSON.stringify({ api_key: secrets.personalElsewhere, event: 'e', distinct_id: 'd' }) });
    expect(badCapture.status).toBe(401);
    const secretAsToken = await fetch(`${url}/batch/`, { method: 'POST', body: JSON.stringify({ api_key: secrets.projectSecret, batch: [{ event: 'e', distinct_id: 'd' }] }) });
    expect(secretAsToken.status).toBe(401);

    expect(new Set(statuses)).toEqual(new Set([200, 201, 204, 400, 401, 403, 404, 413, 415]));
    // let the last log lines reach the pipe
    await new Promise((r) => setTimeout(r, 500));
  });

  it('the server logged the session', () => {
    const lines = (stdout + stderr).split('\n').filter((l) => l.startsWith('{'));
    if (process.env.LOG_SECRETS_DUMP) fs.writeFileSync(process.env.LOG_SECRETS_DUMP, stdout + stderr);
    expect(lines.length).toBeGreaterThan(30);
    expect(lines.some((l) => /"status":401/.test(l))).toBe(true);
  });

  it('no log line holds a key or the secret variable value, whole or in part', () => {
    const all = (stdout + stderr).split('\n');
    const banner = all.filter((l) => l.includes(TEST_KEY));
    // the bootstrap key may appear only in the one-time banner (plain text), never in a JSON log line
    for (const l of banner) expect(l.trim()).toBe(TEST_KEY);
    const logLines = all.filter((l) => !banner.includes(l));
    const leaks: string[] = [];
    for (const [name, value] of Object.entries(secrets)) {
      // the full value and any 12-character slice of its random part (keys are phx_/phs_ + random)
      const core = value.replace(/^ph[xsc]_/, '');
      const slices = new Set<string>([value]);
      for (let i = 0; i + 12 <= core.length; i += 4) slices.add(core.slice(i, i + 12));
      for (const l of logLines) for (const s of slices) if (l.includes(s)) leaks.push(`${name} (${s}) in: ${l.slice(0, 300)}`);
    }
    expect(leaks).toEqual([]);
  });
});
