/**
 * Parses capture requests on worker threads, so the main thread (HTTP, durable log, identity, DuckDB appender)
 * is not also spending its time on gzip, JSON.parse, validation and the log encoding.
 *
 * A worker does everything up to the log line: it parses, validates and encodes the events as the log stores them
 * ({@link encodeEventsAhead}: the line's bytes plus typed arrays of offsets), and transfers those buffers back (no
 * copy, no per-event objects to clone). The main thread only writes the record header and appends. Only the
 * properties identity reads ({@link IDENTITY_KEYS}) cross as objects, and only for events that have any.
 */
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { CaptureError, parseCaptureRequest, slimProperties, type CaptureRequestParts, type ParsedCapture } from './capture-payload';
import { encodeEventsAhead, type EncodedEvents } from './wal';

/** A request parsed off the main thread: its events already encoded for the log. */
export interface ParsedAhead {
  token: string;
  beacon: boolean;
  historicalMigration: boolean;
  encoded: EncodedEvents;
}

export type ParseReply =
  | ({ id: number; ok: true } & ParsedAhead)
  | { id: number; ok: false; status: number; message: string };

/** Runs in the worker: request parts → events encoded for the log (throws CaptureError for 4xx). */
export function parseAhead(parts: CaptureRequestParts): ParsedAhead {
  const parsed = parseCaptureRequest(parts);
  for (const e of parsed.events) e.properties = slimProperties(e.properties, e.event);
  return { token: parsed.token, beacon: parsed.beacon, historicalMigration: parsed.historicalMigration, encoded: encodeEventsAhead(parsed.events) };
}

/** The buffers of a parsed request that move to the main thread instead of being copied. */
export function transferList(p: ParsedAhead): ArrayBuffer[] {
  return [p.encoded.raw.buffer as ArrayBuffer, p.encoded.pos.buffer as ArrayBuffer, p.encoded.times.buffer as ArrayBuffer];
}

/** Bodies smaller than this are parsed inline: a worker round trip costs more than parsing them. */
const INLINE_BELOW_BYTES = 8 * 1024;
/**
 * A compressed body counts this many times its size against {@link INLINE_BELOW_BYTES}: the work is in the JSON it
 * inflates to, and event JSON compresses ~5–10× (SDKs gzip their batches, so a 100-event batch is often < 8 kB).
 */
const COMPRESSED_WEIGHT = 8;

/** Whether the body is compressed, by magic bytes, Content-Encoding or the `compression` parameter. */
function isCompressed(parts: CaptureRequestParts): boolean {
  const b = parts.body;
  if (b && b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b) return true;
  if ((parts.contentEncoding ?? '').toLowerCase().includes('gzip')) return true;
  const c = parts.query.compression;
  return typeof c === 'string' && c.toLowerCase().startsWith('gzip');
}

/** Whether a request is parsed on the calling thread: no body (GET) goes to a worker, a small one does not. */
export function parsesInline(parts: CaptureRequestParts): boolean {
  if (!parts.body) return false;
  return parts.body.length * (isCompressed(parts) ? COMPRESSED_WEIGHT : 1) < INLINE_BELOW_BYTES;
}

function spawn(): Worker {
  const ext = path.extname(__filename);
  const file = path.join(__dirname, `parse-worker${ext}`);
  if (ext !== '.ts') return new Worker(file);
  // Running from TypeScript sources (tests): transpile on the fly inside the worker.
  const tsPath = require.resolve('typescript');
  const code = `
    const fs = require('node:fs');
    const ts = require(${JSON.stringify(tsPath)});
    require.extensions['.ts'] = (m, f) => m._compile(ts.transpileModule(fs.readFileSync(f, 'utf8'), { fileName: f,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } }).outputText, f);
    require(${JSON.stringify(file)});`;
  return new Worker(code, { eval: true });
}

/**
 * Default parse workers: env `QUARRY_CAPTURE_PARSE_WORKERS` when set (0–16), else by CPU count: none on 1 CPU, else
 * CPUs − 2, at least 2 and at most 4 (see the pool).
 */
export function defaultParseWorkers(env: NodeJS.ProcessEnv = process.env, cpus: number = os.cpus().length): number {
  const v = env.QUARRY_CAPTURE_PARSE_WORKERS;
  if (v !== undefined && v.trim() !== '') {
    const k = Number(v);
    if (!Number.isInteger(k) || k < 0 || k > 16) throw new Error(`QUARRY_CAPTURE_PARSE_WORKERS must be an integer 0–16 (got ${JSON.stringify(v)})`);
    return k;
  }
  return cpus < 2 ? 0 : Math.min(4, Math.max(2, cpus - 2));
}

interface Slot {
  worker: Worker;
  inflight: Map<number, { resolve: (p: ParsedAhead) => void; reject: (e: Error) => void }>;
}

export class CaptureParsePool {
  private slots: Slot[] = [];
  private nextId = 1;
  private closed = false;

  /**
   * `size` workers; 0 parses everything inline. Default: {@link defaultParseWorkers}. Measured on 2 cores (capture
   * bench, 32 clients × 100 events, interleaved with inline parsing, other load on the box): one worker takes the
   * main thread from 10.7–13 to 6.4–9 µs per event, since only the encoded log bytes and offset arrays come back
   * (transferred, not cloned); total CPU per event rose 10–16% (the hand-off itself measured ~0.5 µs per event in
   * isolation; the rest is a second busy thread). The main thread is the serial part of capture (HTTP, the log,
   * identity, the DuckDB appender): it was ~76% busy at 78k events/s, so requests queued behind it. With both cores
   * saturated by other work, throughput came out about even (the extra CPU cancels the gain); 14 interleaved pairs
   * averaged +10% events/s. (The earlier wire form, events as cloned strings re-encoded on the main thread, saved
   * the main thread nothing and cost ~25% more CPU in total.) Two workers on the idle 2-core box, interleaved with
   * one (capture bench, 5 + 3 runs): 109–116k vs 96–101k events/s, p50 24–26 vs 30–32 ms, and less server CPU per
   * event (13.8–14.7 vs 16.1–16.8 µs): requests wait less for a free parser, so the flusher applies fuller batches.
   */
  constructor(readonly size: number = defaultParseWorkers()) {
    // The workers start with the first request that needs one (it waits for them, ~0.1 s): a server that never
    // receives a large capture body never pays for them (from TypeScript sources, in tests, each costs ~2 s of CPU).
  }

  private start(): Slot {
    const worker = spawn();
    worker.unref();
    const slot: Slot = { worker, inflight: new Map() };
    worker.on('message', (m: ParseReply) => {
      const p = slot.inflight.get(m.id);
      if (!p) return;
      slot.inflight.delete(m.id);
      if (m.ok) p.resolve({ token: m.token, beacon: m.beacon, historicalMigration: m.historicalMigration, encoded: m.encoded });
      else if (m.status >= 400 && m.status < 500) p.reject(new CaptureError(m.status as 400 | 401 | 413, m.message));
      else p.reject(new Error(m.message));
    });
    const fail = (e: Error) => {
      for (const p of slot.inflight.values()) p.reject(e);
      slot.inflight.clear();
      if (!this.closed) {
        const i = this.slots.indexOf(slot);
        if (i >= 0) this.slots[i] = this.start();
      }
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`capture parse worker exited (${code})`)));
    return slot;
  }

  /**
   * Parses a request (throws CaptureError for 4xx): on a worker (events encoded for the log, {@link ParsedAhead}),
   * or inline (events as objects) when there is no worker or the body is small.
   */
  async parse(parts: CaptureRequestParts): Promise<ParsedCapture | ParsedAhead> {
    if (this.size === 0 || this.closed || parsesInline(parts)) return parseCaptureRequest(parts);
    while (this.slots.length < this.size) this.slots.push(this.start());
    let slot = this.slots[0];
    for (const s of this.slots) if (s.inflight.size < slot.inflight.size) slot = s;
    const id = this.nextId++;
    // A body that is the whole of its memory (fastify concatenates request bodies into a buffer of their own) is
    // moved to the worker rather than copied; the route does not read it after parsing.
    const body = parts.body;
    const transfer = body && body.byteOffset === 0 && body.byteLength === body.buffer.byteLength && !(body.buffer instanceof SharedArrayBuffer) ? [body.buffer as ArrayBuffer] : [];
    return new Promise<ParsedAhead>((resolve, reject) => {
      slot.inflight.set(id, { resolve, reject });
      slot.worker.postMessage({ id, parts: { ...parts, now: parts.now ?? Date.now() } }, transfer);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots = [];
  }
}
