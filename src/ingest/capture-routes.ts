/**
 * PostHog-compatible capture routes (reference §6.1, §6.4): `/batch`, `/capture`, `/e`, `/i/v0/e`, `/track`,
 * `/engage`, and `/s` for session recordings, which are checked and not stored (trailing slash optional), POST and GET,
 * permissive CORS. No auth header: the body's token is the project's public capture token (in the payload, else a form
 * field or the query string). Each event gets the client's address as `$ip` unless it has one ({@link clientIp}), or
 * none at all when its project has `anonymize_ips` on ({@link CaptureRouteDeps.anonymizeIpTokens}); on
 * `/engage` an event without a name is a `$identify`. Errors are plain-text bodies; success is `{"status": 1}` (204 with
 * `beacon=1`).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  BATCH_ROUTE_MAX_BYTES,
  CaptureError,
  RECORDINGS_ROUTE_MAX_BYTES,
  SINGLE_EVENT_ROUTE_MAX_BYTES,
} from './capture-payload';
import type { Ingestor } from './ingestor';
import { CaptureParsePool } from './parse-pool';

export interface CaptureRouteDeps {
  ingestor: Pick<Ingestor, 'capture' | 'captureEncoded'>;
  /** Resolves a public project token (phc_…) to its project id; null when unknown. */
  resolveToken(token: string): Promise<number | null>;
  /**
   * The tokens of the projects with `anonymize_ips` on, whose events are stored without `$ip`
   * (CaptureRequestParts.anonymizeIpTokens), asked per request: the provider keeps them in memory and drops them when
   * a project changes, so a PATCH counts from the next request. Absent: none.
   */
  anonymizeIpTokens?(): Promise<ReadonlySet<string>>;
  /**
   * Worker threads parsing request bodies off the main thread. Default: 0 (inline) below 4 CPUs, else
   * min(4, CPUs − 2); see {@link CaptureParsePool}. The pool is closed with the app.
   */
  parseWorkers?: number;
}

const SINGLE_PATHS = ['/capture', '/e', '/i/v0/e', '/track', '/engage'];

/** A well-formed `type/subtype` (RFC 9110 tokens), parameters after a `;` not checked. */
const MEDIA_TYPE_RE = /^\s*[\w!#$%&'*+.^`|~-]+\/[\w!#$%&'*+.^`|~-]+\s*(?:;|$)/;

function setCors(req: FastifyRequest, reply: FastifyReply): void {
  const origin = req.headers.origin;
  reply.header('Access-Control-Allow-Origin', origin ?? '*');
  if (origin) {
    reply.header('Access-Control-Allow-Credentials', 'true');
    reply.header('Vary', 'Origin');
  }
  reply.header('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
  const reqHeaders = req.headers['access-control-request-headers'];
  reply.header('Access-Control-Allow-Headers', typeof reqHeaders === 'string' && reqHeaders ? reqHeaders : '*');
}

/**
 * The client's address as PostHog's capture takes it: the first entry of `X-Forwarded-For` when a proxy set one, else
 * the peer's address; a port is cut (posthog/api/utils.py get_ip_address: "Azure gateway handles x-forwarded-for
 * incorrectly"), and an IPv4 address seen over IPv6 (`::ffff:1.2.3.4`) reads as IPv4. Trusting the header costs
 * nothing here: an SDK can set `$ip` itself.
 */
export function clientIp(forwardedFor: string | string[] | undefined, peer: string | undefined): string | undefined {
  const header = Array.isArray(forwardedFor) ? forwardedFor[0] : forwardedFor;
  let ip = header ? header.split(',')[0].trim() : peer;
  if (!ip) return undefined;
  if (ip.startsWith('::ffff:') && ip.indexOf('.') > 0) ip = ip.slice(7);
  const parts = ip.split(':');
  if (parts.length === 2) ip = parts[0];
  return ip || undefined;
}

function text(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type('text/plain; charset=utf-8').send(body);
}

/** Token → project id, cached for {@link TOKEN_CACHE_MS} so hot capture paths do not query the store per request. */
const TOKEN_CACHE_MS = 5000;
const TOKEN_CACHE_MAX = 10_000;

function cachedResolver(resolve: (t: string) => Promise<number | null>): (t: string) => Promise<number | null> {
  const cache = new Map<string, { id: number | null; until: number }>();
  return async (token) => {
    const now = Date.now();
    const hit = cache.get(token);
    if (hit && hit.until > now) return hit.id;
    const id = await resolve(token);
    if (cache.size >= TOKEN_CACHE_MAX) cache.clear();
    // Unknown tokens are remembered briefly too (a flood of bad tokens must not hit the store per request).
    cache.set(token, { id, until: now + (id === null ? 1000 : TOKEN_CACHE_MS) });
    return id;
  };
}

/**
 * Registers the capture routes in their own encapsulated scope (own raw-body parser and error handler).
 * Token lookups are cached for 5 s (unknown tokens for 1 s): a revoked token may capture for up to 5 s more.
 */
export function registerCaptureRoutes(app: FastifyInstance, deps: CaptureRouteDeps): void {
  void app.register(async (scope) => {
    const pool = new CaptureParsePool(deps.parseWorkers);
    const resolveToken = cachedResolver(deps.resolveToken);
    scope.addHook('onClose', async () => pool.close());
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    // Capture reads the body whatever its Content-Type says (gzip by magic bytes, JSON sent as text/plain): an empty or
    // malformed header, which fastify answers with 415 before any parser, is taken as no header (test_capture.py
    // test_js_gzip_with_no_content_type posts gzip with `Content-Type: ""`).
    scope.addHook('onRequest', (req, _reply, done) => {
      const ct = req.headers['content-type'];
      if (ct !== undefined && !MEDIA_TYPE_RE.test(ct)) delete req.headers['content-type'];
      done();
    });

    scope.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
      setCors(req, reply);
      const status = err.statusCode ?? 500;
      if (status === 413 || err.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
        return text(reply, 413, 'maximum event size exceeded: request body too large');
      if (status >= 400 && status < 500) return text(reply, status, `failed to decode request: ${err.message}`);
      req.log.error({ err }, 'capture failed');
      return text(reply, 503, 'transient error, please retry');
    });

    const handler = (maxBytes: number, engage: boolean, recordings: boolean) => async (req: FastifyRequest, reply: FastifyReply) => {
      setCors(req, reply);
      const anonymizing = deps.anonymizeIpTokens ? await deps.anonymizeIpTokens() : undefined;
      let parsed;
      try {
        parsed = await pool.parse({
          method: req.method,
          query: (req.query ?? {}) as Record<string, unknown>,
          contentType: req.headers['content-type'],
          contentEncoding: req.headers['content-encoding'] as string | undefined,
          body: Buffer.isBuffer(req.body) ? req.body : undefined,
          maxBytes,
          ip: clientIp(req.headers['x-forwarded-for'], req.socket.remoteAddress),
          // (Only a non-empty set crosses to a parse worker.)
          anonymizeIpTokens: anonymizing && anonymizing.size > 0 ? anonymizing : undefined,
          engage,
          recordings,
        });
      } catch (e) {
        if (e instanceof CaptureError) return text(reply, e.status, e.message);
        throw e;
      }
      const projectId = await resolveToken(parsed.token);
      if (projectId === null || projectId === undefined)
        return text(reply, 401, 'API key is not valid: no project has this token');
      try {
        // `/s`: a recording, checked and not stored (capture-payload.ts CaptureRequestParts.recordings).
        if (!recordings) {
          if ('encoded' in parsed) await deps.ingestor.captureEncoded(projectId, parsed.encoded);
          else await deps.ingestor.capture(projectId, parsed.events);
        }
      } catch (e) {
        req.log.error({ err: e }, 'capture: ingest log write failed');
        return text(reply, 503, 'transient error, please retry');
      }
      if (parsed.beacon) return reply.code(204).send();
      return reply.code(200).type('application/json').send('{"status":1}');
    };

    const options = (req: FastifyRequest, reply: FastifyReply) => {
      setCors(req, reply);
      reply.header('Access-Control-Max-Age', '86400');
      return reply.code(200).send();
    };

    const routes: [string, number][] = [
      ['/batch', BATCH_ROUTE_MAX_BYTES],
      ['/s', RECORDINGS_ROUTE_MAX_BYTES],
      ...SINGLE_PATHS.map((p): [string, number] => [p, SINGLE_EVENT_ROUTE_MAX_BYTES]),
    ];
    for (const [p, max] of routes) {
      for (const url of [p, `${p}/`]) {
        try {
          // The raw (possibly compressed) body may be a little larger than the decompressed cap (gzip of
          // incompressible data, base64 inflation); the decompressed cap is enforced after decoding.
          scope.route({ method: ['GET', 'POST'], url, bodyLimit: Math.ceil(max * 1.4) + 65536, handler: handler(max, p === '/engage', p === '/s') });
          scope.route({ method: 'OPTIONS', url, handler: options });
        } catch (e) {
          // With ignoreTrailingSlash the slash variant is already served by the bare path.
          if (url === p || (e as { code?: string }).code !== 'FST_ERR_DUPLICATED_ROUTE') throw e;
        }
      }
    }
  });
}
