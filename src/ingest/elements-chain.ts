/**
 * Autocapture elements → the `elements_chain` column, as PostHog's ingestion builds it (plugin-server
 * `getElementsChain` / `extractElements` / `elementsToString`, the same text as Django's `elements_to_string` in
 * posthog/models/element/element.py):
 *
 * - a non-empty string `properties.$elements_chain` is the chain as sent;
 * - else an array `properties.$elements` (posthog-js's shape: `tag_name`, `$el_text`, `attr__href`, `attr__class`,
 *   `attr__id`, `nth_child`, `nth_of_type`, other `attr__*`) is converted: one element per item, innermost (the
 *   clicked element) first, joined by `;`; each is `tag.class1.class2:` (classes sorted, `"` removed) followed by
 *   its attributes `key="value"` sorted by key: `text` (the `$el_text`, cut to 400 characters) when set,
 *   `nth-child` and `nth-of-type` (0 when absent), `href` (the `attr__href`, cut to 2,048) and `attr_id` (the
 *   `attr__id`) when set, and every `attr__*` key as sent; `"` in keys and values is escaped as `\"`;
 * - both keys are then removed from the stored properties (PostHog deletes `$elements` and `$elements_chain`).
 *
 * Bad shapes never fail the event: a non-array `$elements` or a non-string `$elements_chain` gives no chain, items
 * that are not objects are skipped, attribute values that are null or not JSON-representable are left out. A chain
 * longer than {@link MAX_ELEMENTS_CHAIN_CHARS} is cut at the last whole element within the limit (the innermost
 * elements, which selectors and tag filters match first, are kept).
 */

/** Longest stored chain, 64 Ki characters (real chains are a few KB; every element filter scans the chain). */
export const MAX_ELEMENTS_CHAIN_CHARS = 64 * 1024;
/** PostHog cuts an element's `text` to 400 characters and its `href` to 2,048. */
const MAX_TEXT_CHARS = 400;
const MAX_HREF_CHARS = 2048;

/** One element (PostHog's Element model fields the chain holds). */
export interface ChainElement {
  tag_name?: string | null;
  text?: string | null;
  href?: string | null;
  attr_class?: string[] | null;
  attr_id?: string | null;
  nth_child?: number | string | null;
  nth_of_type?: number | string | null;
  /** Other attributes (`attr__*` keys from posthog-js), values as text. */
  attributes?: Record<string, string>;
}

const escapeQuotes = (s: string): string => (s.indexOf('"') < 0 ? s : s.replace(/"/g, '\\"'));

/** Keys in code point order, as Python's `sorted` (locale independent). */
const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** PostHog's `elements_to_string`: the chain text of `elements` (innermost first). */
export function elementsToString(elements: readonly ChainElement[]): string {
  return elements.map(elementToString).join(';');
}

function elementToString(el: ChainElement): string {
  let s = el.tag_name ? el.tag_name : '';
  if (el.attr_class && el.attr_class.length) {
    for (const c of [...el.attr_class].sort(byCodePoint)) s += `.${c.replace(/"/g, '')}`;
  }
  const attrs: Record<string, string> = {};
  if (el.text) attrs.text = el.text;
  attrs['nth-child'] = String(el.nth_child || 0);
  attrs['nth-of-type'] = String(el.nth_of_type || 0);
  if (el.href) attrs.href = el.href;
  if (el.attr_id) attrs.attr_id = el.attr_id;
  if (el.attributes) for (const k of Object.keys(el.attributes)) attrs[k] = el.attributes[k];
  s += ':';
  for (const k of Object.keys(attrs).sort(byCodePoint)) s += `${escapeQuotes(k)}="${escapeQuotes(attrs[k])}"`;
  return s;
}

/** A posthog-js attribute value as text (`undefined` for null and what has no text form). */
function asText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  // as PostHog's `value.toString()`: an array is its items joined by ','
  if (Array.isArray(v)) return String(v);
  if (v !== null && typeof v === 'object') {
    try {
      return JSON.stringify(v);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** `nth_child` / `nth_of_type` as sent when a number or text, else absent (printed as 0). */
const asIndex = (v: unknown): number | string | null => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' ? v : null);

/** PostHog's `extractElements`: one posthog-js `$elements` item as an element, or null when it is not an object. */
export function elementFromCapture(item: unknown): ChainElement | null {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return null;
  const o = item as Record<string, unknown>;
  const text = asText(o.$el_text);
  const href = asText(o.attr__href);
  const cls = o.attr__class;
  const attributes: Record<string, string> = {};
  for (const k of Object.keys(o)) {
    if (!k.startsWith('attr__')) continue;
    const v = asText(o[k]);
    if (v !== undefined) attributes[k] = v;
  }
  return {
    tag_name: asText(o.tag_name) ?? null,
    text: text ? text.slice(0, MAX_TEXT_CHARS) : null,
    href: href ? href.slice(0, MAX_HREF_CHARS) : null,
    attr_class: Array.isArray(cls)
      ? cls.map(asText).filter((c): c is string => c !== undefined)
      : typeof cls === 'string' && cls
        ? cls.split(' ')
        : null,
    attr_id: asText(o.attr__id) ?? null,
    nth_child: asIndex(o.nth_child),
    nth_of_type: asIndex(o.nth_of_type),
    attributes,
  };
}

/** Cuts a chain at the last `;` within the limit; null when not even its first element fits. */
function clampChain(chain: string): string | null {
  if (chain.length <= MAX_ELEMENTS_CHAIN_CHARS) return chain;
  const cut = chain.lastIndexOf(';', MAX_ELEMENTS_CHAIN_CHARS);
  return cut > 0 ? chain.slice(0, cut) : null;
}

/** The chain of a posthog-js `$elements` array (null when it is not an array or holds no element). */
export function chainFromCaptureElements(elements: unknown): string | null {
  if (!Array.isArray(elements)) return null;
  const parts: string[] = [];
  let length = -1;
  for (const item of elements) {
    const el = elementFromCapture(item);
    if (!el) continue;
    const s = elementToString(el);
    // past the limit the rest is dropped anyway: stop converting (a huge array costs no more than the limit)
    if (length + 1 + s.length > MAX_ELEMENTS_CHAIN_CHARS) break;
    parts.push(s);
    length += 1 + s.length;
  }
  return parts.length ? parts.join(';') : null;
}

/**
 * The event's chain from its properties (see the module comment), removing `$elements` and `$elements_chain`
 * from `props` in place. Returns null when the event has no chain.
 */
export function takeElementsChain(props: Record<string, unknown>): string | null {
  const sent = props.$elements_chain;
  const elements = props.$elements;
  delete props.$elements_chain;
  delete props.$elements;
  if (typeof sent === 'string' && sent !== '') return clampChain(sent);
  return chainFromCaptureElements(elements);
}

/** One element as PostHog's events API shows it (ElementSerializer): what `chain_to_elements` reads back. */
export interface ElementView {
  text: string | null;
  tag_name: string | null;
  attr_class: string[] | null;
  href: string | null;
  attr_id: string | null;
  nth_child: number | null;
  nth_of_type: number | null;
  attributes: Record<string, string>;
  order: number;
}

/** An element of the chain: unquoted text without whitespace or `;`, and quoted values (with `\"` escapes). */
const SPLIT_CHAIN_RE = /(?:[^\s;"]|"(?:\\.|[^"])*")+/g;
const SPLIT_CLASS_ATTRIBUTES_RE = /^(.*?)($|:([a-zA-Z\-_0-9]*=.*))/s;
const ATTRIBUTE_RE = /((.*?)="(.*?[^\\])")/gm;

const toInt = (s: string): number | null => (/^-?\d+$/.test(s) ? Number(s) : null);

/**
 * PostHog's `chain_to_elements` (posthog/models/element/element.py): the chain read back as elements, innermost
 * first (`order` 0). Values are kept as stored (a `\"` stays escaped, as in PostHog); nth values that are not
 * integers read as null.
 */
export function chainToElements(chain: string | null | undefined): ElementView[] {
  if (!chain) return [];
  const out: ElementView[] = [];
  for (const [elString] of chain.matchAll(SPLIT_CHAIN_RE)) {
    const split = SPLIT_CLASS_ATTRIBUTES_RE.exec(elString)!;
    const el: ElementView = {
      text: null,
      tag_name: null,
      attr_class: null,
      href: null,
      attr_id: null,
      nth_child: null,
      nth_of_type: null,
      attributes: {},
      order: out.length,
    };
    if (split[1]) {
      const dot = split[1].indexOf('.');
      el.tag_name = dot < 0 ? split[1] : split[1].slice(0, dot);
      if (dot >= 0) el.attr_class = split[1].slice(dot + 1).split('.').filter((c) => c !== '');
    }
    for (const [, , key, value] of (split[3] ?? '').matchAll(ATTRIBUTE_RE)) {
      if (key === 'href') el.href = value;
      else if (key === 'nth-child') el.nth_child = toInt(value);
      else if (key === 'nth-of-type') el.nth_of_type = toInt(value);
      else if (key === 'text') el.text = value;
      else if (key === 'attr_id') el.attr_id = value;
      else if (key) el.attributes[key] = value;
    }
    out.push(el);
  }
  return out;
}
