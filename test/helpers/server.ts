import 'reflect-metadata';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { startServer as start, type RunningServer } from '../../src/server';

export const TEST_KEY = 'phx_test_bootstrap_key_0123456789abcdefghijklmnop';

export interface TestServer {
  url: string;
  /** The bootstrap personal key (all scopes). */
  key: string;
  dataDir: string;
  server: RunningServer;
  /** fetch against the server with the bootstrap key unless `key` is given (null = no Authorization). */
  api(method: string, path: string, body?: unknown, key?: string | null, headers?: Record<string, string>): Promise<ApiResponse>;
  close(): Promise<void>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** Boots the real server on 127.0.0.1 with a fresh temp data dir (or `dataDir`) and a known bootstrap key. */
export async function startServer(opts: { env?: Record<string, string>; dataDir?: string } = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-test-'));
  const config = loadConfig({
    QUARRY_HOST: '127.0.0.1',
    QUARRY_PORT: '0',
    QUARRY_DATA_DIR: dataDir,
    QUARRY_LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    QUARRY_BOOTSTRAP_KEY: TEST_KEY,
    // hundreds of requests per test on one key: rate limits are tested on their own (rate-limits.test.ts)
    QUARRY_RATE_LIMIT_ENABLED: 'false',
    // the same for PostHog's 10 personal keys per user: files make more with the one bootstrap user (the limit is
    // tested with its default in rest-posthog-compat-10.test.ts)
    QUARRY_PERSONAL_API_KEYS_PER_USER: '1000',
    ...opts.env,
  });
  const server = await start(config, createLogger(config.logLevel));
  const api = async (method: string, p: string, body?: unknown, key: string | null = TEST_KEY, headers: Record<string, string> = {}) => {
    const h: Record<string, string> = { ...headers };
    if (key !== null) h.authorization = `Bearer ${key}`;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      h['content-type'] ??= 'application/json';
    }
    const res = await fetch(server.url + p, { method, headers: h, body: payload });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
  return {
    url: server.url,
    key: TEST_KEY,
    dataDir,
    server,
    api,
    close: () => server.stop(),
  };
}

/** Creates a project through the API; its id. */
export async function newProject(srv: TestServer, name: string): Promise<number> {
  const r = await srv.api('POST', '/api/projects/', { name });
  expect(r.status).toBe(201);
  return r.body.id;
}

/** Creates a personal API key through the API (`scopes`, plus fields such as `scoped_teams`); its secret, shown once. */
export async function newKey(srv: TestServer, scopes: string[], extra: Record<string, unknown> = {}): Promise<string> {
  const r = await srv.api('POST', '/api/personal_api_keys/', { label: scopes.join(',').slice(0, 40), scopes, ...extra });
  expect(r.status).toBe(201);
  return r.body.value;
}

/** GraphQL over HTTP against a test server. */
export async function gql(
  srv: TestServer,
  query: string,
  variables?: Record<string, unknown>,
  key: string | null = srv.key,
): Promise<ApiResponse> {
  return srv.api('POST', '/graphql', { query, variables }, key);
}
