/**
 * GraphiQL in a real browser (Debian's headless Chromium): the page loads only from this server, a user can
 * paste a key into the Headers pane, run a query with the run button, and read the viewer in the result pane.
 *
 * Two servers:
 * - a tiny fastify app with the GraphiQL routes, the recommended CSP and a graphql-js stand-in schema,
 *   which pins the page itself (assets, caching, CSP, no external URL) independent of the rest of Quarry;
 * - the real Quarry server (test/helpers/server.ts), which pins the wiring in app.ts and the viewer query.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { buildSchema, graphql } from 'graphql';
import type { Page } from 'playwright-core';
import {
  GRAPHIQL_CSP,
  graphiqlPage,
  prefersHtml,
  registerGraphiQL,
  sendGraphiQLPage,
} from '../../src/graphql/graphiql';
import { startServer } from '../helpers/server';
import { launchBrowser, type TestBrowser } from './browser';

const VIEWER_QUERY = '{ viewer { principalType scopes } }';

let browser: TestBrowser;
let shotDir: string;

beforeAll(async () => {
  shotDir = mkdtempSync(join(tmpdir(), 'quarry-graphiql-shots-'));
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  if (shotDir) rmSync(shotDir, { recursive: true, force: true });
});

/** Records CSP violations from the first script on, so a blocked asset cannot go unnoticed. */
async function watchCsp(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __cspViolations: string[] };
    w.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      w.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
}

async function cspViolations(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations ?? []);
}

/**
 * Replaces a CodeMirror editor's text as a user pasting would: focus it with a click, select all, insert.
 * insertText (a paste-like input event, no key presses) avoids CodeMirror's bracket/quote auto-closing,
 * which makes typed JSON come out with doubled braces.
 */
async function replaceEditorText(page: Page, editorSelector: string, text: string): Promise<void> {
  const editor = page.locator(`${editorSelector} .CodeMirror`).first();
  await editor.waitFor({ state: 'visible' });
  await editor.locator('.CodeMirror-lines').click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText(text);
  const value = await editor.evaluate((el) => (el as unknown as { CodeMirror: { getValue(): string } }).CodeMirror.getValue());
  expect(value).toBe(text);
}

async function waitForResultText(page: Page, text: string): Promise<void> {
  await page.waitForFunction(
    (t) => (document.querySelector('.result-window')?.textContent ?? '').includes(t),
    text,
    { timeout: 20_000 },
  );
}

const QUERY_EDITOR = '.graphiql-query-editor';
const HEADERS_EDITOR = '.graphiql-editor-tool .graphiql-editor:not(.hidden)';

/**
 * The whole user path: open /graphql, paste the key into Headers, write the query, press run, and wait for
 * the result pane to show the viewer. Returns the parsed result-pane JSON.
 */
async function runViewerQueryInGraphiQL(
  page: Page,
  baseUrl: string,
  key: string,
): Promise<{ result: unknown; introspectionStatus: number; introspectionBody: string }> {
  const doc = await page.goto(`${baseUrl}/graphql`, { waitUntil: 'domcontentloaded' });
  expect(doc?.status()).toBe(200);
  expect(doc?.headers()['content-type']).toMatch(/^text\/html/);
  await page.locator('.graphiql-container').waitFor({ state: 'visible', timeout: 20_000 });
  // No key yet: the page says what to do rather than sending the placeholder key to the server.
  await waitForResultText(page, 'Paste your API key into the Headers pane');
  expect(browser.requests.filter((r) => r.url === `${baseUrl}/graphql` && r.method === 'POST')).toEqual([]);

  // The default page already shows Headers; click the tab anyway so a persisted "Variables" choice can't matter.
  await page.locator('button[data-name="headers"]').click();
  const headersValue = await page
    .locator(`${HEADERS_EDITOR} .CodeMirror`)
    .first()
    .evaluate((el) => (el as unknown as { CodeMirror: { getValue(): string } }).CodeMirror.getValue());
  expect(JSON.parse(headersValue)).toEqual({ Authorization: 'Bearer <paste your key>' });

  // Pasting a key loads the schema by itself (docs, autocomplete) without "Re-fetch GraphQL schema".
  const introspected = page.waitForResponse(
    (res) =>
      res.url() === `${baseUrl}/graphql` &&
      (res.request().postData() ?? '').includes('IntrospectionQuery') &&
      res.request().headers()['authorization'] === `Bearer ${key}`,
    { timeout: 20_000 },
  );
  await replaceEditorText(page, HEADERS_EDITOR, JSON.stringify({ Authorization: `Bearer ${key}` }, null, 2));
  const introspection = await introspected;
  const introspectionStatus = introspection.status();
  const introspectionBody = await introspection.text();
  await replaceEditorText(page, QUERY_EDITOR, VIEWER_QUERY);

  const responded = page.waitForResponse(
    (res) => res.url() === `${baseUrl}/graphql` && res.request().method() === 'POST' && (res.request().postData() ?? '').includes('principalType scopes'),
    { timeout: 20_000 },
  );
  await page.locator('.graphiql-execute-button').click();
  const res = await responded;
  expect(res.request().headers()['authorization']).toBe(`Bearer ${key}`);

  // What the user sees: the result pane shows the viewer.
  await waitForResultText(page, '"principalType"');
  const resultText = await page
    .locator('.result-window .CodeMirror')
    .evaluate((el) => (el as unknown as { CodeMirror: { getValue(): string } }).CodeMirror.getValue());
  return { result: JSON.parse(resultText), introspectionStatus, introspectionBody };
}

async function screenshot(page: Page, name: string): Promise<string> {
  const file = join(shotDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  const bytes = readFileSync(file);
  expect(bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
  expect(statSync(file).size).toBeGreaterThan(10_000); // a rendered IDE, not a blank page
  if (process.env.QUARRY_KEEP_SCREENSHOTS) {
    copyFileSync(file, join(process.env.QUARRY_KEEP_SCREENSHOTS, `${name}.png`));
  }
  return file;
}

function expectNothingLeftLoopback(): void {
  const outside = browser.nonLoopbackRequests().map((r) => `${r.method} ${r.url}`);
  expect(outside).toEqual([]);
}

describe('GraphiQL page on its own (stand-in schema, recommended CSP)', () => {
  const KEY = 'qk_test_graphiql_stub';
  let app: FastifyInstance;
  let url: string;

  beforeAll(async () => {
    const schema = buildSchema(`
      type Project { id: ID! name: String! }
      type Viewer { principalType: String! principalId: String! scopes: [String!]! projects: [Project!]! }
      type Query { viewer: Viewer }
    `);
    // Nothing to drain in a stand-in: Chromium's speculative preconnects would otherwise hold close() for 60 s.
    app = Fastify({ forceCloseConnections: true });
    registerGraphiQL(app);
    app.get('/graphql', async (request, reply) => {
      if (!prefersHtml(request.headers.accept)) return reply.code(400).send({ error: 'stand-in serves the page only' });
      return sendGraphiQLPage(reply);
    });
    app.post<{ Body: { query: string; variables?: Record<string, unknown>; operationName?: string } }>(
      '/graphql',
      async (request) => {
        const authorized = request.headers.authorization === `Bearer ${KEY}`;
        const rootValue = {
          viewer: authorized
            ? { principalType: 'api_key', principalId: 'key_1', scopes: ['query:read'], projects: [{ id: '1', name: 'Demo' }] }
            : null,
        };
        return graphql({
          schema,
          source: request.body.query,
          variableValues: request.body.variables,
          operationName: request.body.operationName,
          rootValue,
        });
      },
    );
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  });

  afterAll(async () => {
    await app?.close();
  });

  it('serves every asset with its content type and a long, immutable cache', async () => {
    const html = graphiqlPage();
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1].replace(/&amp;/g, '&'));
    const assetRefs = refs.filter((r) => r.startsWith('/graphiql/'));
    expect(assetRefs).toHaveLength(6);
    for (const ref of assetRefs) {
      const res = await fetch(url + ref);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(ref.includes('.css') ? /^text\/css/ : /^application\/javascript/);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(10);
      const again = await fetch(url + ref, { headers: { 'if-none-match': String(res.headers.get('etag')) } });
      expect(again.status).toBe(304);
    }
    expect((await fetch(`${url}/graphiql/%2e%2e%2fpackage.json`)).status).toBe(404);
    expect((await fetch(`${url}/graphiql/graphiql.min.js.map`)).status).toBe(404);
  });

  it('names no external URL in the page or its bootstrap', async () => {
    const html = graphiqlPage();
    expect(html).not.toMatch(/(?:https?:)?\/\/[a-z0-9.-]+/i);
    const init = html.match(/src="(\/graphiql\/init\.js[^"]*)"/)![1].replace(/&amp;/g, '&');
    const body = await (await fetch(url + init)).text();
    expect(body).not.toMatch(/https?:\/\//i);
    expect(body).toContain("GraphiQL.createFetcher({ url: \"/graphql\" })");
  });

  it.each([
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', true], // Chromium navigation
    ['text/html', true],
    ['application/json', false],
    ['application/graphql-response+json, application/json;q=0.9', false], // Apollo clients
    ['*/*', false], // curl
    [undefined, false],
    ['application/json, text/html;q=0.5', false],
    ['text/html;q=0', false],
  ])('prefersHtml(%j) is %s', (accept, expected) => {
    expect(prefersHtml(accept)).toBe(expected);
  });

  it('runs the viewer query from the Headers pane under the CSP, with nothing leaving loopback', async () => {
    const page = await browser.context.newPage();
    await watchCsp(page);
    try {
      const { result, introspectionStatus } = await runViewerQueryInGraphiQL(page, url, KEY);
      expect(introspectionStatus).toBe(200);
      expect(result).toEqual({ data: { viewer: { principalType: 'api_key', scopes: ['query:read'] } } });

      const doc = browser.requests.find((r) => r.url === `${url}/graphql` && r.method === 'GET');
      expect(doc).toBeDefined();
      expect(await cspViolations(page)).toEqual([]);
      expect(browser.pageErrors).toEqual([]);
      // The docs explorer renders from the introspected schema: also exercises popover/markdown styling under the CSP.
      await page.getByRole('button', { name: 'Show Documentation Explorer' }).click();
      await page.locator('.graphiql-doc-explorer').getByText('Viewer', { exact: true }).waitFor({ state: 'visible' });
      // Dialogs (Radix) and autocomplete (CodeMirror hints) build styled DOM at run time: exercise them too.
      for (const name of ['Open settings dialog', 'Open short keys dialog']) {
        await page.getByRole('button', { name }).click();
        await page.getByRole('dialog').waitFor({ state: 'visible' });
        await page.keyboard.press('Escape');
        await page.getByRole('dialog').waitFor({ state: 'detached' });
      }
      await replaceEditorText(page, QUERY_EDITOR, '{\n  \n}');
      await page.keyboard.press('ArrowUp');
      await page.keyboard.type('vie');
      await page.locator('.CodeMirror-hints').getByText('viewer', { exact: true }).waitFor({ state: 'visible' });
      expect(await cspViolations(page)).toEqual([]);
      await screenshot(page, 'graphiql-standin');
      expectNothingLeftLoopback();
    } finally {
      await page.close();
    }
  });
});

describe('GraphiQL on the real Quarry server', () => {
  let server: Awaited<ReturnType<typeof startServer>>;

  beforeAll(async () => {
    server = await startServer();
  });

  afterAll(async () => {
    await server?.close();
  });

  it('GET /graphql from a browser is GraphiQL; an API client still gets Apollo', async () => {
    const html = await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await html.text()).toContain('/graphiql/graphiql.min.js');

    const api = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${server.key}` },
      body: JSON.stringify({ query: VIEWER_QUERY }),
    });
    expect(api.headers.get('content-type')).toMatch(/json/);
  });

  let introspection: { status: number; body: string } | undefined;

  it('runs { viewer { principalType scopes } } with the run button and shows the viewer', async () => {
    const page = await browser.context.newPage();
    await watchCsp(page);
    try {
      const run = await runViewerQueryInGraphiQL(page, server.url, server.key);
      introspection = { status: run.introspectionStatus, body: run.introspectionBody };
      const result = run.result as {
        data?: { viewer?: { principalType?: unknown; scopes?: unknown } };
        errors?: unknown;
      };
      expect(result.errors).toBeUndefined();
      expect(typeof result.data?.viewer?.principalType).toBe('string');
      expect(Array.isArray(result.data?.viewer?.scopes)).toBe(true);
      expect(await cspViolations(page)).toEqual([]);
      await screenshot(page, 'graphiql-quarry');
      expectNothingLeftLoopback();
    } finally {
      await page.close();
    }
  });

  // GraphiQL's docs and autocomplete need its standard introspection query to pass the server's limits.
  it('answers GraphiQL\'s introspection once a key is pasted', () => {
    expect(introspection).toBeDefined();
    expect({ status: introspection!.status, body: introspection!.body.slice(0, 300) }).toEqual({
      status: 200,
      body: expect.stringContaining('"__schema"'),
    });
  });
});
