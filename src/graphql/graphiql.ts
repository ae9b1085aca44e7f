/**
 * GraphiQL, served entirely from this server: the graphiql 3 UMD bundle and React 18 UMD come from
 * node_modules, the page and its bootstrap script from this file. No CDN and no external URL, so the IDE
 * works on an air-gapped install and a strict Content-Security-Policy can be applied to it.
 *
 * Wiring (in app.ts):
 *   registerGraphiQL(app);                         // GET /graphiql/* assets
 *   // GET /graphql from a browser → the page, everything else → Apollo:
 *   if (request.method === 'GET' && prefersHtml(request.headers.accept)) return sendGraphiQLPage(reply);
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** URL prefix of the static assets. The page references them by absolute path under it. */
export const GRAPHIQL_ASSET_PREFIX = '/graphiql/';

/** Path the GraphiQL fetcher posts to; also where the lead routes the HTML page. */
export const GRAPHQL_PATH = '/graphql';

/**
 * Content-Security-Policy for the GraphiQL page (set it on the HTML response; `sendGraphiQLPage` does).
 * Why each part, checked against graphiql 3.9.0 in headless Chromium (test/e2e/graphiql.test.ts fails on
 * any violation):
 * - script-src 'self': the bootstrap is an external file (/graphiql/init.js), not an inline script, and the
 *   bundle uses neither eval nor `new Function`, so neither 'unsafe-inline' nor 'unsafe-eval' is needed.
 * - style-src 'self' 'unsafe-inline': required. Opening a dialog (settings, short keys) injects a <style>
 *   element at run time (Radix's scroll lock); with style-src 'self' alone Chromium reports
 *   `style-src-elem inline` violations. Style injection cannot run script, and connect-src/img-src 'self'
 *   leave CSS no channel off this origin, so this is low risk.
 * - font-src/img-src data:: graphiql.min.css embeds its Roboto/Fira Code fonts and a few images as data: URLs.
 * - connect-src 'self': the fetcher only talks to /graphql on this origin (no subscriptions URL is set).
 * - worker-src: none needed; graphiql 3 (CodeMirror 5) starts no web workers (graphiql 4/5 with Monaco do).
 * - frame-ancestors 'none': the IDE holds a pasted API key; it must not be framed by another site.
 */
export const GRAPHIQL_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers for the HTML page response. `no-cache` so a new build's asset hashes are picked up at once. */
export const GRAPHIQL_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': GRAPHIQL_CSP,
  'cache-control': 'no-cache',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/** Default editor text only: the schema owns these fields, GraphiQL does not validate against them here. */
export const GRAPHIQL_DEFAULT_QUERY = `# Welcome to Quarry.
# Paste your API key into the Headers pane below,
# then press the run button (Ctrl-Enter).
{
  viewer {
    principalType
    principalId
    scopes
    projects {
      id
      name
    }
  }
}
`;

/** Text in the default Authorization header that marks it as not yet filled in. */
const KEY_PLACEHOLDER = '<paste your key>';

/** Pre-filled, editable Headers pane. Persisted in the browser's localStorage once edited. */
export const GRAPHIQL_DEFAULT_HEADERS = JSON.stringify({ Authorization: `Bearer ${KEY_PLACEHOLDER}` }, null, 2);

/**
 * The bootstrap script, served as /graphiql/init.js so the page needs no inline script (CSP script-src 'self').
 * Besides rendering GraphiQL it smooths the first minute of a user who has not pasted a key yet:
 * - introspection is not sent while the Authorization header is missing or still the placeholder, so the
 *   result pane says what to do instead of showing the server's authentication error;
 * - once a key is pasted (headers edited, debounced), the schema is fetched again if it is not loaded, so docs
 *   and autocomplete start working without the user finding the "Re-fetch GraphQL schema" button.
 * The logo is replaced (the default one links to an external site), and hosts the refetch hook because
 * GraphiQL only renders the children it knows (Logo, Toolbar, Footer) inside its context providers.
 */
const INIT_JS = String.raw`'use strict';
(function () {
  var h = React.createElement;
  var PLACEHOLDER = ${JSON.stringify(KEY_PLACEHOLDER)};

  function authorizationOf(headers) {
    if (!headers) return null;
    if (typeof headers === 'string') {
      try { headers = JSON.parse(headers); } catch (e) { return null; }
    }
    if (!headers || typeof headers !== 'object') return null;
    for (var name in headers) {
      if (name.toLowerCase() === 'authorization' && typeof headers[name] === 'string') {
        var value = headers[name].trim();
        if (value === '' || value.indexOf(PLACEHOLDER) !== -1 || /^Bearer\s*$/i.test(value)) return null;
        return value;
      }
    }
    return null;
  }

  function isIntrospection(params) {
    return params && (params.operationName === 'IntrospectionQuery' || /^\s*query\s+IntrospectionQuery\b/.test(params.query || ''));
  }

  var baseFetcher = GraphiQL.createFetcher({ url: ${JSON.stringify(GRAPHQL_PATH)} });
  function fetcher(params, opts) {
    if (isIntrospection(params) && !authorizationOf(opts && opts.headers)) {
      return Promise.resolve({
        errors: [{ message: 'Paste your API key into the Headers pane ({"Authorization": "Bearer <key>"}); the schema loads as soon as it is there.' }]
      });
    }
    return baseFetcher(params, opts);
  }

  // onEditHeaders fires outside GraphiQL's providers; the hook below runs inside them (it needs the schema context).
  var headerListeners = [];
  function onEditHeaders(value) {
    for (var i = 0; i < headerListeners.length; i++) headerListeners[i](value);
  }

  function RefetchSchemaOnKey() {
    var schema = GraphiQL.React.useSchemaContext({ nonNull: true });
    var state = React.useState(null);
    var auth = state[0];
    var setAuth = state[1];
    var tried = React.useRef(null);
    React.useEffect(function () {
      function listener(value) { setAuth(authorizationOf(value)); }
      headerListeners.push(listener);
      return function () { headerListeners.splice(headerListeners.indexOf(listener), 1); };
    }, []);
    React.useEffect(function () {
      if (!auth || auth === tried.current || schema.schema || schema.isFetching) return undefined;
      var timer = setTimeout(function () {
        tried.current = auth;
        schema.introspect();
      }, 400);
      return function () { clearTimeout(timer); };
    }, [auth, schema.schema, schema.isFetching]);
    return null;
  }

  ReactDOM.createRoot(document.getElementById('graphiql')).render(
    h(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: ${JSON.stringify(GRAPHIQL_DEFAULT_QUERY)},
      defaultHeaders: ${JSON.stringify(GRAPHIQL_DEFAULT_HEADERS)},
      shouldPersistHeaders: true,
      isHeadersEditorEnabled: true,
      defaultEditorToolsVisibility: 'headers',
      onEditHeaders: onEditHeaders
    },
      h(GraphiQL.Logo, null, 'Quarry', h(RefetchSchemaOnKey))
    )
  );
})();
`;

const PAGE_CSS = `html, body, #graphiql { height: 100%; margin: 0; }
body { overflow: hidden; }
`;

interface Asset {
  body: Buffer;
  contentType: string;
  etag: string;
  /** Content-hashed URL, so the long cache lifetime can never serve a stale file after an upgrade. */
  url: string;
}

/**
 * Directory of an installed package. Resolved through its package.json because graphiql's and react's
 * `exports` maps do not expose the UMD files themselves (require.resolve('graphiql/graphiql.min.js')
 * throws ERR_PACKAGE_PATH_NOT_EXPORTED). require.resolve walks up from this file, so it finds the same
 * node_modules from src/ (ts-jest) and from dist/src/ (compiled).
 */
function packageDir(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

/** The bundle ends in a sourceMappingURL to a file that is not shipped under that name; drop it. */
function stripSourceMap(js: Buffer): Buffer {
  return Buffer.from(js.toString('utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n'), 'utf8');
}

function makeAsset(name: string, body: Buffer, contentType: string): Asset {
  const hash = createHash('sha256').update(body).digest('hex');
  return {
    body,
    contentType,
    etag: `"${hash.slice(0, 32)}"`,
    url: `${GRAPHIQL_ASSET_PREFIX}${name}?v=${hash.slice(0, 12)}`,
  };
}

let assetCache: Map<string, Asset> | undefined;

/** Loaded once, on first use (about 1.5 MB held in memory; cheaper than a disk read per request). */
function assets(): Map<string, Asset> {
  if (assetCache) return assetCache;
  const js = 'application/javascript; charset=utf-8';
  const css = 'text/css; charset=utf-8';
  const graphiql = packageDir('graphiql');
  const react = packageDir('react');
  const reactDom = packageDir('react-dom');
  const files: Array<[string, Buffer, string]> = [
    ['react.production.min.js', readFileSync(join(react, 'umd', 'react.production.min.js')), js],
    ['react-dom.production.min.js', readFileSync(join(reactDom, 'umd', 'react-dom.production.min.js')), js],
    ['graphiql.min.js', stripSourceMap(readFileSync(join(graphiql, 'graphiql.min.js'))), js],
    ['graphiql.min.css', readFileSync(join(graphiql, 'graphiql.min.css')), css],
    ['quarry.css', Buffer.from(PAGE_CSS, 'utf8'), css],
    ['init.js', Buffer.from(INIT_JS, 'utf8'), js],
  ];
  assetCache = new Map(files.map(([name, body, type]) => [name, makeAsset(name, body, type)]));
  return assetCache;
}

function assetUrl(name: string): string {
  const asset = assets().get(name);
  if (!asset) throw new Error(`graphiql: unknown asset ${name}`);
  return asset.url;
}

/**
 * Serves the GraphiQL assets under /graphiql/. Cached for a year as immutable: every URL in the page
 * carries a content hash, so an upgrade changes the URL rather than relying on revalidation.
 */
export function registerGraphiQL(app: FastifyInstance): void {
  const table = assets(); // fail at startup, not on the first browser visit, if node_modules is incomplete
  app.get<{ Params: { file: string } }>(`${GRAPHIQL_ASSET_PREFIX}:file`, async (request, reply) => {
    const asset = table.get(request.params.file);
    if (!asset) {
      return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    }
    reply
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('etag', asset.etag)
      .header('x-content-type-options', 'nosniff')
      .header('cross-origin-resource-policy', 'same-origin');
    if (request.headers['if-none-match'] === asset.etag) {
      return reply.code(304).send();
    }
    return reply.type(asset.contentType).send(asset.body);
  });
}

function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** The GraphiQL HTML page. Only same-origin, absolute-path references; the bootstrap is /graphiql/init.js. */
export function graphiqlPage(): string {
  const script = (name: string) => `<script src="${escapeAttr(assetUrl(name))}"></script>`;
  const style = (name: string) => `<link rel="stylesheet" href="${escapeAttr(assetUrl(name))}">`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Quarry GraphiQL</title>
<link rel="icon" href="data:,">
${style('graphiql.min.css')}
${style('quarry.css')}
</head>
<body>
<div id="graphiql">Loading GraphiQL…</div>
${script('react.production.min.js')}
${script('react-dom.production.min.js')}
${script('graphiql.min.js')}
${script('init.js')}
</body>
</html>
`;
}

/**
 * True when the client would rather have HTML than JSON: a browser navigating to /graphql. API clients
 * send `application/json` or nothing, and get Apollo.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const types = accept.split(',').map((part) => {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return { type: type.trim(), q: q ? Number(q.slice(2)) : 1 };
  });
  const html = types.find((t) => t.type === 'text/html');
  if (!html || !(html.q > 0)) return false;
  const json = types.find((t) => t.type === 'application/json' || t.type === 'application/graphql-response+json');
  return !json || html.q >= json.q;
}

/** Sends the page with its CSP and security headers. */
export function sendGraphiQLPage(reply: FastifyReply): FastifyReply {
  return reply.headers(GRAPHIQL_PAGE_HEADERS).send(graphiqlPage());
}
