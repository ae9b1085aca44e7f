/**
 * Autocapture element conditions on the `elements_chain` column, as PostHog's HogQL builds them
 * (posthog/hogql/property.py `selector_to_expr`, `tag_name_to_expr`, `element_chain_key_filter`, with the selector
 * parsed as posthog/models/property/util.py `Selector` / `build_selector_regex` do). Used by `{type: 'element'}`
 * property filters and by action steps (`selector`, `tag_name`, `text`, `href`).
 *
 * The chain is `tag.class1.class2:attr="v"attr="v";parent…` (innermost element first; see
 * src/ingest/elements-chain.ts). Every condition is one RE2 match of the chain against a pattern built here with
 * the user's text escaped, and reaches SQL as a bound constant (`elements_chain =~ {regex}`); the pattern is checked
 * against the regex limits first, so a bad one is a 400 naming the filter. An event without a chain matches no
 * positive condition and every negated one (NULL reads as PostHog's empty chain).
 */
import * as ast from '../../productql/ast';
import type { Expr } from '../../productql/ast';
import { validationError } from '../../errors';
import { assertRegex } from '../../limits';
import type { FilterContext } from './property-filters';

/** What follows a matched element's name, classes and attributes: the rest of that element up to its end. */
const ELEMENT_TAIL = '([-_a-zA-Z0-9\\.:"= \\[\\]\\(\\),]*?)?($|;|:([^;^\\s]*(;|$|\\s)))';

/** Python's `re.escape` (3.7+): the characters it escapes, each preceded by a backslash (RE2 reads them literally). */
export function reEscape(s: string): string {
  return s.replace(/[()[\]{}?*+\-|^$\\.&~# \t\n\r\v\f]/g, (c) => `\\${c}`);
}

/** One compound selector of a selector (`a.small[href="x"]:nth-child(2)`). */
export interface SelectorPart {
  tagName?: string;
  classes?: string[];
  /** Attributes as the chain names them: `attr_id`, `href`, `nth-child`, `nth-of-type`, `attr__<name>`. */
  attributes: Record<string, string>;
  /** The part is the direct parent (`>`) of the part before it (parts run innermost first). */
  directDescendant: boolean;
}

/**
 * Splits a selector at spaces outside `[...]` (PostHog's `Selector._split`). Unlike PostHog, a `>` written without
 * spaces around it (`div>a`) is a combinator too, and repeated spaces make no empty steps.
 */
function splitSelector(selector: string): string[] {
  const out: string[] = [];
  let inAttribute = false;
  let quote: string | null = null;
  let part = '';
  const flush = () => {
    if (part) out.push(part);
    part = '';
  };
  for (const ch of selector) {
    if (ch === '[' && quote === null) inAttribute = true;
    if (ch === ']' && quote === null) inAttribute = false;
    if (ch === '"' || ch === "'") {
      if (quote === null) quote = ch;
      else if (quote === ch) quote = null;
    }
    if (inAttribute) part += ch;
    else if (ch === ' ' || ch === '\t' || ch === '\n') flush();
    else if (ch === '>') {
      flush();
      out.push('>');
    } else part += ch;
  }
  flush();
  return out;
}

const ATTRIBUTE_RE = /^(.*?)\[\s*([^=\]\s]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\]]*))\s*\](.*)$/;

/** Chain attribute name of a `[name=value]` selector attribute. */
const chainAttribute = (name: string): string => (name === 'id' ? 'attr_id' : name === 'href' ? 'href' : `attr__${name}`);

function parsePart(compound: string, directDescendant: boolean): SelectorPart {
  const part: SelectorPart = { attributes: {}, directDescendant };
  let tag = compound;
  for (let m = ATTRIBUTE_RE.exec(tag); m; m = ATTRIBUTE_RE.exec(tag)) {
    part.attributes[chainAttribute(m[2])] = m[3] ?? m[4] ?? m[5].trim();
    tag = m[1] + m[6];
  }
  for (const [pseudo, key] of [
    [':nth-child(', 'nth-child'],
    [':nth-of-type(', 'nth-of-type'],
  ] as const) {
    const at = tag.indexOf(pseudo);
    if (at < 0) continue;
    const close = tag.indexOf(')', at);
    const end = close < 0 ? tag.length : close + 1;
    part.attributes[key] = tag.slice(at + pseudo.length, close < 0 ? tag.length : close).trim();
    tag = tag.slice(0, at) + tag.slice(end);
  }
  const hash = tag.indexOf('#');
  if (hash >= 0) {
    const rest = tag.slice(hash + 1);
    const dot = rest.indexOf('.');
    part.attributes.attr_id = dot < 0 ? rest : rest.slice(0, dot);
    tag = tag.slice(0, hash) + (dot < 0 ? '' : rest.slice(dot));
  }
  if (tag.includes('.')) {
    const [name, ...classes] = tag.split('.');
    part.classes = classes;
    tag = name;
  }
  if (tag) part.tagName = tag;
  return part;
}

/** PostHog's `Selector`: the compound selectors of `selector`, innermost (the clicked element) first. */
export function parseSelector(selector: string): SelectorPart[] {
  // As PostHog: a `*` step adds nothing (`div > * > a` reads as `div a`).
  const cleaned = selector.replaceAll('> * > ', '').replaceAll('> *', '').trim();
  const tags = splitSelector(cleaned).reverse();
  const parts: SelectorPart[] = [];
  tags.forEach((tag, i) => {
    if (tag === '>') return;
    parts.push(parsePart(tag, i > 0 && tags[i - 1] === '>'));
  });
  return parts;
}

/** PostHog's `build_selector_regex`: one RE2 pattern over the chain for the whole selector. */
export function selectorToRegex(selector: string): string {
  let regex = '(^|;)';
  for (const part of parseSelector(selector)) {
    if (part.tagName && part.tagName !== '*') regex += reEscape(part.tagName);
    if (part.classes?.length) regex += `.*?\\.${[...part.classes].sort().map(reEscape).join('\\..*?')}`;
    const keys = Object.keys(part.attributes).sort();
    if (keys.length) {
      regex += '.*?';
      for (const k of keys) regex += `${reEscape(k)}="${reEscape(part.attributes[k])}".*?`;
    }
    regex += ELEMENT_TAIL;
    if (part.directDescendant) regex += '.*';
  }
  return regex;
}

const chainField = (ctx: FilterContext): Expr => ast.field(...(ctx.table ? [ctx.table, 'elements_chain'] : ['elements_chain']));

/** `elements_chain =~ regex` (or `!~`), the pattern checked against the regex limits first. */
function chainMatch(regex: string, negated: boolean, ctx: FilterContext): Expr {
  assertRegex(regex, ctx.attr ?? 'properties');
  return ast.compare(negated ? '!~' : '=~', chainField(ctx), ast.constant(regex));
}

function required(value: string, what: string, ctx: FilterContext): string {
  if (value.trim() === '') throw validationError(`An element ${what} filter needs a non-empty value.`, ctx.attr ?? 'properties');
  return value;
}

/** PostHog's `selector_to_expr`: the event's elements match the CSS selector. */
export function selectorToExpr(selector: string, ctx: FilterContext = {}): Expr {
  const parts = parseSelector(required(selector, 'selector', ctx));
  if (parts.length === 0) throw validationError(`"${selector}" is not a selector Quarry can match.`, ctx.attr ?? 'properties');
  return chainMatch(selectorToRegex(selector), false, ctx);
}

/** PostHog's `tag_name_to_expr` pattern: some element of the chain has this tag (the name escaped). */
const tagNameRegex = (tagName: string): string => `(^|;)${reEscape(tagName)}(\\.|$|;|:)`;

/** PostHog's `tag_name_to_expr`: some element of the chain has this tag. */
export function tagNameToExpr(tagName: string, ctx: FilterContext = {}): Expr {
  return chainMatch(tagNameRegex(required(tagName, 'tag_name', ctx)), false, ctx);
}

/** Operators of text/href element filters. */
const KEY_OPERATORS = ['exact', 'is_not', 'icontains', 'not_icontains', 'regex', 'not_regex', 'is_set', 'is_not_set'] as const;
type KeyOperator = (typeof KEY_OPERATORS)[number];
const NEGATED = new Set<string>(['is_not', 'not_icontains', 'not_regex', 'is_not_set']);

/** PostHog's `element_chain_key_filter`: some element's `text`/`href` attribute matches `value` under `operator`. */
export function elementChainKeyFilter(key: 'text' | 'href', value: string, operator: string, ctx: FilterContext = {}): Expr {
  if (!(KEY_OPERATORS as readonly string[]).includes(operator))
    throw validationError(
      `Operator "${operator}" is not supported for element ${key} filters (${KEY_OPERATORS.join(', ')}).`,
      ctx.attr ?? 'properties',
    );
  const op = operator as KeyOperator;
  // quotes inside attribute values are stored escaped (\") in the chain
  const escaped = value.replace(/"/g, '\\"');
  let pattern: string;
  if (op === 'is_set' || op === 'is_not_set') pattern = '[^"]+';
  else if (op === 'icontains' || op === 'not_icontains') pattern = `[^"]*${reEscape(escaped)}[^"]*`;
  else if (op === 'regex' || op === 'not_regex') pattern = escaped;
  else pattern = reEscape(escaped);
  const flag = op === 'icontains' || op === 'not_icontains' ? '(?i)' : '';
  return chainMatch(`${flag}(${key}="${pattern}")`, NEGATED.has(op), ctx);
}

type Scalar = string | number | boolean | null;
const asText = (v: Scalar | undefined): string => (v === null || v === undefined ? '' : String(v));

/** `{type: 'element', key: selector|tag_name|text|href, operator, value}` as a boolean expression. */
export function elementFilterToExpr(
  f: { key: string; operator?: string | null; value?: Scalar | Scalar[] | null },
  ctx: FilterContext = {},
): Expr {
  const op = f.operator ?? 'exact';
  const attr = ctx.attr ?? 'properties';
  if (f.key !== 'selector' && f.key !== 'tag_name' && f.key !== 'text' && f.key !== 'href')
    throw validationError(`Unsupported element property "${f.key}" (selector, tag_name, text, href).`, attr);
  if ((f.key === 'selector' || f.key === 'tag_name') && op !== 'exact' && op !== 'is_not')
    throw validationError(`Element ${f.key} filters support the exact and is_not operators, not "${op}".`, attr);
  const one = (v: Scalar | undefined): Expr => {
    if (f.key === 'text' || f.key === 'href') return elementChainKeyFilter(f.key, asText(v), op, ctx);
    const matched = f.key === 'selector' ? selectorToExpr(asText(v), ctx) : tagNameToExpr(asText(v), ctx);
    return op === 'is_not' ? ast.not(matched) : matched;
  };
  if (op === 'is_set' || op === 'is_not_set') return one(undefined);
  const values = Array.isArray(f.value) ? f.value : [f.value];
  if (values.length === 0) return ast.constant(true);
  if (values.length === 1) return one(values[0]);
  const parts = values.map(one);
  return NEGATED.has(op) ? ast.and(...parts) : ast.or(...parts);
}

/** How an action step's `text` / `href` is compared (`exact` when unset, `contains` is case-insensitive). */
const STEP_MATCHING: Record<string, KeyOperator> = { exact: 'exact', contains: 'icontains', regex: 'regex' };

/**
 * The element conditions of an action step, as PostHog's `action_to_expr` adds them: `selector` when non-empty,
 * `tag_name`, `href` (by `href_matching`) and `text` (by `text_matching`) when set (not null).
 */
export function stepElementExprs(
  step: { selector?: string | null; tag_name?: string | null; text?: string | null; text_matching?: string | null; href?: string | null; href_matching?: string | null },
  ctx: FilterContext = {},
): Expr[] {
  const out: Expr[] = [];
  if (step.selector) out.push(selectorToExpr(step.selector, ctx));
  // an empty tag_name is still a condition in PostHog (it tests `is not None`): an element without a tag name
  if (step.tag_name !== null && step.tag_name !== undefined) out.push(chainMatch(tagNameRegex(step.tag_name), false, ctx));
  if (step.href !== null && step.href !== undefined)
    out.push(elementChainKeyFilter('href', step.href, STEP_MATCHING[step.href_matching ?? 'exact'] ?? 'exact', ctx));
  if (step.text !== null && step.text !== undefined)
    out.push(elementChainKeyFilter('text', step.text, STEP_MATCHING[step.text_matching ?? 'exact'] ?? 'exact', ctx));
  return out;
}
