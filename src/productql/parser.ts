/**
 * Adapter over `@posthog/hogql-parser` (PostHog's ANTLR grammar compiled to WebAssembly). The module is loaded
 * once (async); after {@link initParser} resolves, parsing is synchronous. Parsed ASTs are cached by text in a
 * bounded LRU and handed out as deep copies, so callers may mutate what they get.
 */
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
 * nesting (measured: ~0.4-4 s for 10 nested calls on a loaded 2-core machine, far more beyond), and it runs
 * synchronously on the event loop, so deeper text is refused before parsing.
 */
export const MAX_TEXT_NESTING = 12;
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

function run(kind: 'select' | 'expr', text: string): unknown {
  if (!parser) throw new Error('ProductQL parser not initialised: await initParser() first');
  if (typeof text !== 'string') throw productqlError('Query must be a string');
  if (text.length > MAX_QUERY_LENGTH)
    throw productqlError(`Query is too long (${text.length} characters, at most ${MAX_QUERY_LENGTH})`, undefined, 'productql_too_complex');
  if (bracketDepth(text) > MAX_TEXT_NESTING)
    throw productqlError(`Query is nested too deeply (more than ${MAX_TEXT_NESTING} levels of brackets)`, undefined, 'productql_too_complex');
  let json: string;
  try {
    json = kind === 'select' ? parser.parseSelect(text) : parser.parseExpr(text);
  } catch (e) {
    // The WASM parser can exhaust its stack on pathological input, which leaves the module unusable: drop it and
    // load a fresh instance (compileProductQL awaits initParser, so the next query gets it).
    parser = null;
    loading = null;
    void initParser().catch(() => undefined);
    throw productqlError('Query could not be parsed (too complex)', undefined, 'productql_too_complex');
  }
  const raw = JSON.parse(json) as Record<string, unknown>;
  if (raw && raw.error === true) {
    const start = (raw.start as { offset?: number } | undefined)?.offset ?? 0;
    const end = (raw.end as { offset?: number } | undefined)?.offset ?? start;
    throw syntaxError(String(raw.message ?? 'Syntax error'), { start, end });
  }
  return normalize(raw);
}

const clone = <T>(x: T): T => structuredClone(x);

/** Parses a SELECT / set query. Requires {@link initParser}. Throws a 400 UserError with the span on bad syntax. */
export function parseSelectSync(text: string): Query {
  const hit = selectCache.get(text);
  if (hit) return clone(hit);
  const ast = run('select', text) as Query;
  if (ast.node !== 'SelectQuery' && ast.node !== 'SelectSetQuery') throw productqlError('Only SELECT queries are allowed');
  selectCache.set(text, ast);
  return clone(ast);
}

/** Parses one expression (e.g. a hogql property filter). Requires {@link initParser}. */
export function parseExprSync(text: string): Expr {
  const hit = exprCache.get(text);
  if (hit) return clone(hit);
  const ast = run('expr', text) as Expr;
  exprCache.set(text, ast);
  return clone(ast);
}

export async function parseSelect(text: string): Promise<Query> {
  await initParser();
  return parseSelectSync(text);
}

export async function parseExpr(text: string): Promise<Expr> {
  await initParser();
  return parseExprSync(text);
}
