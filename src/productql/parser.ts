/**
 * Adapter over `@posthog/hogql-parser` (PostHog's ANTLR grammar compiled to WebAssembly). Parsed ASTs are cached
 * by text in a bounded LRU and handed out as deep copies, so callers may mutate what they get.
 *
 * The parser's cost explodes on some shapes of input (nested calls, long `not not ...` chains: seconds to
 * minutes for ~100 tokens), and WebAssembly cannot be interrupted. So untrusted text goes through
 * {@link parseSelect}/{@link parseExpr}, which parse in a worker thread under a time limit
 * ({@link PARSE_TIMEOUT_MS}) and kill and replace the worker when it is exceeded. The `...Sync` variants parse on
 * the calling thread (after {@link initParser}) and are meant for trusted, short text.
 */
import { Worker } from 'worker_threads';
import type { Expr, Query } from './ast';
import { productqlError, syntaxError } from './errors';

interface WasmParser {
  parseExpr(input: string, isInternal?: boolean): string;
  parseSelect(input: string, isInternal?: boolean): string;
}

/** Longest ProductQL text accepted; longer input is rejected before parsing (a 400, not a slow parse). */
export const MAX_QUERY_LENGTH = 256 * 1024;
/**
 * Deepest bracket nesting accepted in query text. The ANTLR-generated parser's prediction cost grows steeply with
 * nesting (measured: ~0.4-4 s for 10 nested calls on a loaded 2-core machine, far more beyond); deeper text is
 * refused before parsing rather than left to the worker's time limit.
 */
export const MAX_TEXT_NESTING = 16;
/** Deepest AST accepted (guards recursion in the resolver/printer and the engine's planner). */
export const MAX_AST_DEPTH = 256;

let parser: WasmParser | null = null;
let loading: Promise<WasmParser> | null = null;

/** Loads the WebAssembly parser once. Safe to call many times. */
export function initParser(): Promise<void> {
  if (parser) return Promise.resolve();
  if (!loading) {
    loading = (async () => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const mod = require('@posthog/hogql-parser') as
        | (() => Promise<WasmParser>)
        | { default: () => Promise<WasmParser> };
      const factory = typeof mod === 'function' ? mod : mod.default;
      const p = await factory();
      parser = p;
      return p;
    })();
    loading.catch(() => {
      loading = null;
    });
  }
  return loading.then(() => undefined);
}

export const isParserReady = (): boolean => parser !== null;

/** Time a single parse may take in the worker before the query is refused as too complex. */
export let PARSE_TIMEOUT_MS = 3000;
export const setParseTimeout = (ms: number): void => {
  PARSE_TIMEOUT_MS = ms;
};

/** Parsed once by each new worker before it takes work (a typical query's grammar: calls, IN, INTERVAL, GROUP/ORDER BY). */
const WARM_UP_QUERY =
  "SELECT event, count() AS c, toStartOfDay(timestamp) FROM events WHERE timestamp > now() - INTERVAL 7 DAY AND properties.$browser IN ('a', 'b') AND (x = 1 OR NOT y) GROUP BY event ORDER BY c DESC LIMIT 10";

const WORKER_SOURCE = `
const { parentPort, workerData } = require('worker_threads');
const mod = require(workerData.modulePath);
(typeof mod === 'function' ? mod : mod.default)().then(
  (p) => {
    // A first parse is several times slower than later ones (WebAssembly tiering, ANTLR's empty DFA cache): pay it
    // here, before 'ready', so no query's time limit covers it.
    try {
      p.parseSelect(${JSON.stringify(WARM_UP_QUERY)});
    } catch {}
    parentPort.postMessage({ ready: true });
    parentPort.on('message', (m) => {
      try {
        const json = m.kind === 'select' ? p.parseSelect(m.text) : p.parseExpr(m.text);
        JSON.parse(json); // a corrupted module can return garbage
        parentPort.postMessage({ id: m.id, json });
      } catch (e) {
        parentPort.postMessage({ id: m.id, crashed: true });
      }
    });
  },
  (e) => parentPort.postMessage({ ready: false, error: String(e) }),
);
`;

interface WorkerReply {
  id?: number;
  json?: string;
  crashed?: boolean;
  ready?: boolean;
  error?: string;
}

/** One parser worker; parses one text at a time so each time limit covers only its own parse. */
class ParserWorker {
  private worker: Worker | null = null;
  private ready: Promise<void> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  private current: { id: number; resolve: (r: WorkerReply) => void } | null = null;

  private start(): Promise<void> {
    if (this.ready) return this.ready;
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { modulePath: require.resolve('@posthog/hogql-parser') } });
    this.worker = worker;
    this.ready = new Promise<void>((resolve, reject) => {
      const onFirst = (m: WorkerReply) => {
        worker.off('message', onFirst);
        if (m.ready) resolve();
        else reject(new Error(`ProductQL parser worker failed to start: ${m.error ?? 'unknown'}`));
      };
      worker.on('message', onFirst);
      worker.on('error', (e) => reject(e));
    });
    worker.on('message', (m: WorkerReply) => {
      if (this.current && m.id === this.current.id) this.current.resolve(m);
    });
    worker.on('exit', () => {
      if (this.worker === worker) this.reset();
    });
    this.ready.catch(() => this.reset());
    // after the listeners: adding a 'message' listener refs the worker's port again, and a ref'd port keeps a
    // process that is done (a CLI command, a test file) from exiting
    worker.unref();
    return this.ready;
  }

  private reset(): void {
    const w = this.worker;
    this.worker = null;
    this.ready = null;
    if (w) void w.terminate();
    if (this.current) this.current.resolve({ crashed: true });
  }

  parse(kind: 'select' | 'expr', text: string): Promise<string> {
    const job = this.queue.then(async () => {
      await this.start();
      const worker = this.worker!;
      const id = this.nextId++;
      let timer: NodeJS.Timeout | undefined;
      const reply = await new Promise<WorkerReply | 'timeout'>((resolve) => {
        this.current = { id, resolve };
        timer = setTimeout(() => resolve('timeout'), PARSE_TIMEOUT_MS);
        worker.postMessage({ id, kind, text });
      });
      clearTimeout(timer);
      this.current = null;
      if (reply === 'timeout' || reply.crashed || typeof reply.json !== 'string') {
        this.reset();
        throw productqlError('Query is too complex to parse', undefined, 'productql_too_complex');
      }
      return reply.json;
    });
    this.queue = job.catch(() => undefined);
    return job;
  }

  async stop(): Promise<void> {
    await this.queue;
    this.reset();
  }
}

const parserWorker = new ParserWorker();

/** Stops the parser worker (tests, shutdown). It restarts on the next async parse. */
export const shutdownParser = (): Promise<void> => parserWorker.stop();

class Lru<V> {
  private map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(k: string): V | undefined {
    const v = this.map.get(k);
    if (v !== undefined) {
      this.map.delete(k);
      this.map.set(k, v);
    }
    return v;
  }
  set(k: string, v: V): void {
    this.map.delete(k);
    this.map.set(k, v);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }
}

const selectCache = new Lru<Query>(500);
const exprCache = new Lru<Expr>(2000);

/** Converts parser positions `{line, column, offset}` to plain offsets and drops nulls; checks depth. */
function normalize(raw: unknown, depth = 0): unknown {
  if (depth > MAX_AST_DEPTH * 3) throw productqlError('Query is nested too deeply', undefined, 'productql_too_complex');
  if (Array.isArray(raw)) return raw.map((x) => normalize(x, depth + 1));
  if (raw && typeof raw === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
      if (v === null || v === undefined) continue;
      if ((k === 'start' || k === 'end') && typeof v === 'object' && v && 'offset' in v) {
        out[k] = (v as { offset: number }).offset;
        continue;
      }
      out[k] = normalize(v, depth + 1);
    }
    // Constant null comes without `value`; keep the key so the node is well-formed.
    if (out.node === 'Constant' && !('value' in out)) out.value = null;
    return out;
  }
  return raw;
}

/** Maximum depth of (), [] and {} outside string literals, quoted identifiers and comments. */
export function bracketDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"' || c === '`') {
      for (i++; i < text.length; i++) {
        if (text[i] === '\\') i++;
        else if (text[i] === c) {
          if (text[i + 1] === c) i++;
          else break;
        }
      }
    } else if (c === '-' && text[i + 1] === '-') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else if (c === '(' || c === '[' || c === '{') {
      if (++depth > max) max = depth;
    } else if (c === ')' || c === ']' || c === '}') {
      depth--;
    }
  }
  return max;
}

function precheck(text: string): void {
  if (typeof text !== 'string') throw productqlError('Query must be a string');
  if (text.length > MAX_QUERY_LENGTH)
    throw productqlError(`Query is too long (${text.length} characters, at most ${MAX_QUERY_LENGTH})`, undefined, 'productql_too_complex');
  if (bracketDepth(text) > MAX_TEXT_NESTING)
    throw productqlError(`Query is nested too deeply (more than ${MAX_TEXT_NESTING} levels of brackets)`, undefined, 'productql_too_complex');
}

function fromJson(json: string): unknown {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(json) as Record<string, unknown>;
  } catch {
    throw productqlError('Query could not be parsed (too complex)', undefined, 'productql_too_complex');
  }
  if (raw && raw.error === true) {
    const start = (raw.start as { offset?: number } | undefined)?.offset ?? 0;
    const end = (raw.end as { offset?: number } | undefined)?.offset ?? start;
    throw syntaxError(String(raw.message ?? 'Syntax error'), { start, end });
  }
  return normalize(raw);
}

function runSync(kind: 'select' | 'expr', text: string): unknown {
  if (!parser) throw new Error('ProductQL parser not initialised: await initParser() first');
  precheck(text);
  let json: string;
  try {
    json = kind === 'select' ? parser.parseSelect(text) : parser.parseExpr(text);
    JSON.parse(json);
  } catch (e) {
    // The WASM parser can exhaust its stack on pathological input, which leaves the module unusable: drop it and
    // load a fresh instance.
    parser = null;
    loading = null;
    void initParser().catch(() => undefined);
    throw productqlError('Query could not be parsed (too complex)', undefined, 'productql_too_complex');
  }
  return fromJson(json);
}

const asSelect = (ast: unknown): Query => {
  const q = ast as Query;
  if (q.node !== 'SelectQuery' && q.node !== 'SelectSetQuery') throw productqlError('Only SELECT queries are allowed');
  return q;
};

const clone = <T>(x: T): T => structuredClone(x);

/** Parses a SELECT / set query. Requires {@link initParser}. Throws a 400 UserError with the span on bad syntax. */
export function parseSelectSync(text: string): Query {
  const hit = selectCache.get(text);
  if (hit) return clone(hit);
  const ast = asSelect(runSync('select', text));
  selectCache.set(text, ast);
  return clone(ast);
}

/** Parses one expression (e.g. a hogql property filter). Requires {@link initParser}. */
export function parseExprSync(text: string): Expr {
  const hit = exprCache.get(text);
  if (hit) return clone(hit);
  const ast = runSync('expr', text) as Expr;
  exprCache.set(text, ast);
  return clone(ast);
}

/** Parses untrusted SELECT text in the parser worker, under {@link PARSE_TIMEOUT_MS}. */
export async function parseSelect(text: string): Promise<Query> {
  const hit = selectCache.get(text);
  if (hit) return clone(hit);
  precheck(text);
  const ast = asSelect(fromJson(await parserWorker.parse('select', text)));
  selectCache.set(text, ast);
  return clone(ast);
}

/** Parses an untrusted expression in the parser worker, under {@link PARSE_TIMEOUT_MS}. */
export async function parseExpr(text: string): Promise<Expr> {
  const hit = exprCache.get(text);
  if (hit) return clone(hit);
  precheck(text);
  const ast = fromJson(await parserWorker.parse('expr', text)) as Expr;
  exprCache.set(text, ast);
  return clone(ast);
}
