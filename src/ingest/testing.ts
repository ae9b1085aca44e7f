/**
 * Test support for the ingest-posthog-compat suites: events go through the real capture parser and the real Ingestor
 * into the engine (the funnels harness, so DuckDB or ClickHouse), and are read back with ProductQL. Test support only:
 * not part of the build.
 */
import { BATCH_ROUTE_MAX_BYTES, parseCaptureRequest, type CaptureRequestParts } from './capture-payload';
import { openHarness, type Harness } from '../queries/funnels/testing';
import { productqlRunner } from '../queries/runners/productql-runner';
import { shutdownParser } from '../productql';

/** The receive time of the compat suites' captures (a request's `now`), unless a case gives its own. */
export const COMPAT_NOW = Date.parse('2021-10-30T03:14:00.000Z');

export interface IngestCompat {
  /** The harness: opened before the file's tests, closed after them (with the ProductQL parser). */
  readonly h: Harness;
  /** A fresh project; its id. */
  project(): Promise<number>;
  /** Parses a capture request as the capture routes do: `body` sent as JSON (a string as it is), `parts` the request's other parts. */
  parse(body: unknown, parts?: Partial<CaptureRequestParts>): ReturnType<typeof parseCaptureRequest>;
  /** Captures a request as `parse` does and applies it; the names of the accepted events. */
  capture(pid: number, body: unknown, parts?: Partial<CaptureRequestParts>): Promise<string[]>;
  /** A batch body with the suite's token. */
  batch(...events: Record<string, unknown>[]): { api_key: string; batch: Record<string, unknown>[] };
  /** Runs a ProductQL query in `pid`; its rows. */
  hogql(pid: number, query: string): Promise<unknown[][]>;
}

/** Registers the file's beforeAll/afterAll for the harness; call it at the top level of a test file. */
export function ingestCompat(token: string): IngestCompat {
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness();
  });
  afterAll(async () => {
    await h.close();
    await shutdownParser();
  });
  const parse: IngestCompat['parse'] = (body, parts = {}) =>
    parseCaptureRequest({
      method: 'POST',
      query: {},
      contentType: 'application/json',
      body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
      maxBytes: BATCH_ROUTE_MAX_BYTES,
      now: COMPAT_NOW,
      ...parts,
    });
  return {
    get h() {
      return h;
    },
    project: () => h.load({ events: [] }),
    parse,
    async capture(pid, body, parts = {}) {
      const parsed = parse(body, parts);
      // The log takes the events over (the array is emptied): what was accepted is reported by name.
      const accepted = parsed.events.map((e) => e.event);
      await h.ingestor.capture(pid, parsed.events);
      await h.ingestor.flush();
      return accepted;
    },
    batch: (...events) => ({ api_key: token, batch: events }),
    hogql: async (pid, query) => (await h.run(productqlRunner, { kind: 'HogQLQuery', query }, pid)).results,
  };
}
