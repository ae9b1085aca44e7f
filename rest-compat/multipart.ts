import type { FastifyInstance, FastifyRequest } from 'fastify';
import { UserError } from '../src/errors';

/** An uploaded file of a multipart form. */
export interface FormFile {
  filename: string;
  contentType: string;
  data: Buffer;
}

/**
 * A `multipart/form-data` body as DRF's MultiPartParser hands it to a view: text fields (`request.data`, the last value
 * of a repeated name) and files (`request.FILES`).
 */
export class MultipartForm {
  readonly fields: Record<string, string> = Object.create(null);
  readonly files: Record<string, FormFile> = Object.create(null);
}

/** The route option that lets a route take a multipart form (every other /api route answers such a body 415). */
export const FORM_ROUTE = 'acceptsForm';

/**
 * Parses `multipart/form-data` bodies for the routes that take one (PostHog's cohort create/update with a `csv` file);
 * on any other route the body is refused as before (415), so no JSON-only route ever sees a form.
 */
export function registerFormParser(app: FastifyInstance): void {
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, (request, body, done) => {
    if ((request.routeOptions.config as unknown as Record<string, unknown> | undefined)?.[FORM_ROUTE] !== true) {
      return done(Object.assign(new Error('Unsupported Media Type'), { statusCode: 415 }), undefined);
    }
    try {
      done(null, parseMultipart(request, body as Buffer));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
}

const parseError = (why: string) => new UserError(400, 'invalid_request', 'parse_error', `Multipart form parse error - ${why}`);

function parseMultipart(request: FastifyRequest, body: Buffer): MultipartForm {
  const type = request.headers['content-type'] ?? '';
  const m = /;\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(type);
  const boundary = m?.[1] ?? m?.[2];
  if (!boundary || boundary.length > 200) throw parseError(`Invalid boundary in multipart: ${boundary ?? 'None'}`);
  const form = new MultipartForm();
  const delimiter = Buffer.from(`--${boundary}`);
  let at = body.indexOf(delimiter);
  if (at < 0) throw parseError('no part found');
  for (;;) {
    at += delimiter.length;
    if (body.subarray(at, at + 2).toString() === '--') return form; // the closing delimiter
    const headersEnd = body.indexOf('\r\n\r\n', at);
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headersEnd < 0 ? at : headersEnd);
    if (headersEnd < 0 || next < 0) throw parseError('the form ends inside a part');
    const headers = body.subarray(at, headersEnd).toString('utf8');
    const data = body.subarray(headersEnd + 4, next);
    const disposition = /^content-disposition:\s*form-data(.*)$/im.exec(headers)?.[1] ?? '';
    const name = /;\s*name="([^"]*)"/i.exec(disposition)?.[1];
    const filename = /;\s*filename="([^"]*)"/i.exec(disposition)?.[1];
    if (name !== undefined) {
      if (filename !== undefined) {
        const contentType = /^content-type:\s*(.*)$/im.exec(headers)?.[1]?.trim() ?? 'application/octet-stream';
        form.files[name] = { filename, contentType, data: Buffer.from(data) };
      } else {
        form.fields[name] = data.toString('utf8');
      }
    }
    at = next + 2;
  }
}
