/**
 * Capture payload parsing (pure): raw request parts in, validated events out. Mirrors PostHog's capture service
 * (reference §6.2–6.4): three body shapes, gzip by header / param / magic bytes, base64 and form-encoded legacy
 * bodies, token and distinct id rules, clock-skew correction, the client's address as `$ip`, events that are not
 * stored as events (`$$heatmap`, `$$client_ingestion_warning`). Errors are {@link CaptureError}s carrying the HTTP
 * status and the plain-text body the route sends.
 */
import { gunzipSync } from 'node:zlib';
import { randomFillSync } from 'node:crypto';
import { stableJson } from '../stable-json';
import { decompressLz64, Lz64TooLarge } from './lz64';
import { takeElementsChain } from './elements-chain';
import { DERIVED_KEY, derivedKeys, withOsFallback } from './person-initial-properties';

/** Decompressed body cap for the single-event routes (`/e`, `/capture`, `/i/v0/e`, `/track`, `/engage`). */
export const SINGLE_EVENT_ROUTE_MAX_BYTES = 2 * 1024 * 1024;
/** Decompressed body cap for `/batch`. */
export const BATCH_ROUTE_MAX_BYTES = 20 * 1024 * 1024;
/** Decompressed body cap for `/s`, session recordings (reference §6.1: 25 MB). */
export const RECORDINGS_ROUTE_MAX_BYTES = 25 * 1024 * 1024;
/**
 * Largest accepted event (its properties serialized as JSON), 1 MiB, like PostHog's Kafka message cap. A bigger
 * event rejects the whole request with 413, so nothing of it is stored.
 */
export const MAX_EVENT_BYTES = 1024 * 1024;
/** Deepest accepted nesting of objects/arrays in an event's properties. Deeper → 400 (stack-safe checks). */
export const MAX_PROPERTIES_DEPTH = 64;
/** distinct ids are truncated to this many characters (PostHog: 200). */
export const MAX_DISTINCT_ID_CHARS = 200;
/**
 * Event names are truncated to this many characters, as PostHog's ingestion does (plugin-server
 * `sanitizeEventName`: `eventName.substr(0, 200)`; process-event.test.ts 'long event name substr').
 */
export const MAX_EVENT_NAME_CHARS = 200;
/** A timestamp more than this far in the future (after skew correction) is replaced by the receive time (PostHog: 23 h). */
export const MAX_FUTURE_MS = 23 * 3600 * 1000;

/** A 4xx from capture with its plain-text body. */
export class CaptureError extends Error {
  constructor(
    readonly status: 400 | 401 | 413,
    message: string,
  ) {
    super(message);
    this.name = 'CaptureError';
  }
}

/** One validated event, ready for the durable log. */
export interface ParsedEvent {
  uuid: string;
  event: string;
  distinct_id: string;
  /** Properties, with top-level `$set`/`$set_once` merged into `properties.$set`/`$set_once`. */
  properties: Record<string, unknown>;
  /** The properties serialized once (JSON text), reused by the log and the appender. */
  propertiesJson: string;
  /** Epoch ms (UTC), after clock-skew correction. */
  timestamp: number;
  /** Epoch ms when the server received it. */
  created_at: number;
  /**
   * The two extracted columns: `properties.$session_id` when a string; the autocapture chain, from
   * `properties.$elements_chain` or `$elements` (see elements-chain.ts; both keys are removed from the properties,
   * as PostHog does). Always set, so every
   * event has one hidden class from the start: adding them later (when the event is queued) cost an allocation per
   * event. After {@link slimProperties}, `properties` holds only the identity keys; `propertiesJson` stays complete.
   */
  session_id: string | null;
  elements_chain: string | null;
  /** The server generated the uuid (none was sent): it cannot be a duplicate, so dedup skips it. */
  uuidGenerated: boolean;
  /** A `$groupidentify`, or `properties.$groups` is set: the event needs group processing (groups.ts). */
  groups: boolean;
}

/** The property keys identity reads; the only ones a parse worker sends back to the main thread as objects. */
export const IDENTITY_KEYS = ['$set', '$set_once', '$unset', '$anon_distinct_id', 'alias', '$process_person_profile'] as const;

const NO_PROPERTIES: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

/**
 * The identity keys of `props` as a new object (a shared frozen empty object when it has none). What is kept of an
 * event's properties as objects while it waits to be applied: the full trees would otherwise live until the next
 * flush, long enough to be promoted to V8's old generation; the complete text is in `propertiesJson`.
 *
 * With the event's name (captured events), they also name the keys the event derives person properties from
 * (`$initial_*`, campaign params: person-initial-properties.ts DERIVED_KEY); identity reads the values from the stored
 * text when it needs them. Imports derive nothing (a PostHog export already holds them in its `$set` / `$set_once`).
 */
export function slimProperties(props: Record<string, unknown>, event?: string): Record<string, unknown> {
  let ident: Record<string, unknown> | null = null;
  for (let i = 0; i < IDENTITY_KEYS.length; i++) {
    const k = IDENTITY_KEYS[i];
    const v = props[k];
    if (v !== undefined) (ident ??= {})[k] = v;
  }
  if (event !== undefined) {
    // (Slimming slim properties keeps their text: idempotent.)
    const d = derivedKeys(event, props) ?? props[DERIVED_KEY];
    if (typeof d === 'string') (ident ??= {})[DERIVED_KEY] = d;
  }
  return ident ?? NO_PROPERTIES;
}

export interface CaptureRequestParts {
  method: string;
  /** Parsed query string. */
  query: Record<string, unknown>;
  contentType?: string;
  contentEncoding?: string;
  /** Raw body (absent on GET). */
  body?: Buffer;
  /** Decompressed size cap for this route. */
  maxBytes: number;
  /** Receive time (epoch ms). Default Date.now(). */
  now?: number;
  /**
   * The client's IP address (capture-routes.ts clientIp). Each event whose `$ip` property is missing or empty gets it,
   * as PostHog's normalizeEvent does with the address capture saw (`if (!properties['$ip'] && event.ip)`).
   */
  ip?: string;
  /**
   * The capture tokens of the projects with `anonymize_ips` on (ProjectService.anonymizeIpTokens): a request with one
   * of them stores its events without `$ip`, neither {@link ip} nor the event's own ({@link NormalizeContext.anonymizeIps}).
   * Looked up once per request, by the token the body names, so a parse worker applies it before the project is
   * resolved. Absent: none.
   */
  anonymizeIpTokens?: ReadonlySet<string>;
  /**
   * The request came to `/engage`: an event without a name is a `$identify` (PostHog's Python capture, for the
   * Mixpanel-style JS identify call: test_capture.py test_engage).
   */
  engage?: boolean;
  /**
   * The request came to `/s`, PostHog's session recordings route. Quarry keeps no recordings: the payload is checked
   * as rust capture's process_replay_events checks it (a 400 for what PostHog refuses) and nothing of it is stored.
   */
  recordings?: boolean;
}

export interface ParsedCapture {
  token: string;
  events: ParsedEvent[];
  historicalMigration: boolean;
  /** `beacon=1`: answer 204 with no body. */
  beacon: boolean;
}

const GZIP_MAGIC0 = 0x1f;
const GZIP_MAGIC1 = 0x8b;

function str(v: unknown): string | undefined {
  if (Array.isArray(v)) return str(v[0]);
  return typeof v === 'string' ? v : undefined;
}

const BASE64_RE = /^[A-Za-z0-9+/_\-\s]+=*\s*$/;

function looksLikeBase64(buf: Buffer): boolean {
  if (buf.length < 4) return false;
  const first = buf[0];
  if (first === 0x7b || first === 0x5b) return false; // '{' or '['
  return BASE64_RE.test(buf.subarray(0, Math.min(buf.length, 4096)).toString('latin1'));
}

function decodeBase64(s: string): Buffer {
  // Form decoding turns '+' into ' '; base64 never contains spaces, so map them back.
  return joinSurrogatePairs(Buffer.from(s.replace(/ /g, '+').replace(/-/g, '+').replace(/_/g, '/'), 'base64'));
}

/**
 * UTF-16 surrogate pairs encoded one half at a time (CESU-8, `ED A0..AF xx ED B0..BF xx`), as old clients' base64 of a
 * JavaScript string carried an emoji, rewritten as the UTF-8 of their code point. PostHog's Python capture decoded
 * base64 payloads with `surrogatepass` and read them as UTF-16, so such a pair is the character (test_capture.py
 * test_emojis_in_text: "💻 Writing code"); UTF-8 decoding would make each half three U+FFFD. Lone halves are left.
 */
function joinSurrogatePairs(buf: Buffer): Buffer {
  let i = buf.indexOf(0xed);
  if (i < 0) return buf;
  let out: Buffer | null = null;
  let from = 0;
  let w = 0;
  for (; i >= 0 && i + 5 < buf.length; i = buf.indexOf(0xed, i + 1)) {
    const b1 = buf[i + 1];
    const b4 = buf[i + 4];
    if (b1 < 0xa0 || b1 > 0xaf || buf[i + 3] !== 0xed || b4 < 0xb0 || b4 > 0xbf) continue;
    const b2 = buf[i + 2];
    const b5 = buf[i + 5];
    if ((b2 & 0xc0) !== 0x80 || (b5 & 0xc0) !== 0x80) continue;
    const cp = 0x10000 + ((((b1 & 0x0f) << 6) | (b2 & 0x3f)) << 10) + (((b4 & 0x0f) << 6) | (b5 & 0x3f));
    out ??= Buffer.allocUnsafe(buf.length);
    w += buf.copy(out, w, from, i);
    out[w++] = 0xf0 | (cp >> 18);
    out[w++] = 0x80 | ((cp >> 12) & 0x3f);
    out[w++] = 0x80 | ((cp >> 6) & 0x3f);
    out[w++] = 0x80 | (cp & 0x3f);
    from = i + 6;
    i += 5;
  }
  if (out === null) return buf;
  w += buf.copy(out, w, from);
  return out.subarray(0, w);
}

const hexValue = (c: number): number => (c >= 0x30 && c <= 0x39 ? c - 0x30 : (c | 0x20) >= 0x61 && (c | 0x20) <= 0x66 ? (c | 0x20) - 0x57 : -1);

/** A form-encoded name or value (a latin1 string: one character a byte) as its bytes: '+' is a space, %XX a byte. */
function formBytes(s: string): Buffer {
  const b = Buffer.from(s, 'latin1');
  let w = 0;
  for (let i = 0; i < b.length; i++) {
    const c = b[i];
    if (c === 0x2b) b[w++] = 0x20;
    else if (c === 0x25 && i + 2 < b.length && hexValue(b[i + 1]) >= 0 && hexValue(b[i + 2]) >= 0) {
      b[w++] = hexValue(b[i + 1]) * 16 + hexValue(b[i + 2]);
      i += 2;
    } else b[w++] = c;
  }
  return b.subarray(0, w);
}

/**
 * The fields of an `application/x-www-form-urlencoded` body (the first of each name), their values as bytes: a
 * percent-encoded UTF-8 `data=` stays UTF-8 (as Django's request.POST reads it) and raw bytes stay as sent.
 */
function formFields(body: Buffer): Map<string, Buffer> {
  const fields = new Map<string, Buffer>();
  for (const pair of body.toString('latin1').split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = formBytes(eq < 0 ? pair : pair.slice(0, eq)).toString('utf8');
    if (!fields.has(name)) fields.set(name, formBytes(eq < 0 ? '' : pair.slice(eq + 1)));
  }
  return fields;
}

function tooLarge(maxBytes: number): CaptureError {
  return new CaptureError(413, `maximum event size exceeded: decompressed payload is larger than ${maxBytes} bytes`);
}

function gunzip(buf: Buffer, maxBytes: number): Buffer {
  try {
    return gunzipSync(buf, { maxOutputLength: maxBytes + 1 });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) throw tooLarge(maxBytes);
    throw new CaptureError(400, 'failed to decode request: invalid GZIP data');
  }
}

function isGzip(buf: Buffer): boolean {
  return buf.length >= 2 && buf[0] === GZIP_MAGIC0 && buf[1] === GZIP_MAGIC1;
}

/**
 * Turns the request into the decompressed JSON text of the payload. Order: form `data=` / GET `data=` →
 * compression (lz64 by param or Content-Encoding; gzip by param, header or magic bytes) → base64 → size cap.
 */
export function decodePayload(parts: CaptureRequestParts, form?: { token?: string; sentAt?: string }): Buffer {
  const { maxBytes } = parts;
  const encoding = (parts.contentEncoding ?? '').toLowerCase().trim();
  // PostHog's Python capture took the compression from the query, the form, else the Content-Encoding header, which is
  // how its tests send lz64 (test_capture.py test_batch_lzstring, test_lz64_with_emoji: `Content-Encoding: lz64`).
  let compression = (str(parts.query.compression) ?? (encoding === 'lz64' || encoding === 'lz-string' ? encoding : '')).toLowerCase();
  let data: Buffer | undefined;
  let fromForm = false;
  const ct = (parts.contentType ?? '').toLowerCase();

  if (parts.body && parts.body.length > 0 && ct.startsWith('application/x-www-form-urlencoded')) {
    const fields = formFields(parts.body);
    const field = (name: string): string | undefined => fields.get(name)?.toString('utf8') || undefined;
    const d = fields.get('data');
    if (d === undefined) throw new CaptureError(400, 'failed to decode request: form body without a data field');
    const fc = field('compression');
    if (fc) compression = fc.toLowerCase();
    // The token may come as a form field beside `data` (posthog/api/capture.py get_token: `request.POST["api_key"]`).
    // So may `sent_at` (posthog/api/capture.py _get_sent_at: `request.POST["sent_at"]`; test_capture.py test_sent_at_field).
    if (form) {
      form.token = field('api_key') || field('token');
      form.sentAt = field('sent_at');
    }
    data = d;
    fromForm = true;
  } else if (parts.body && parts.body.length > 0) {
    data = parts.body;
  } else {
    const d = str(parts.query.data);
    if (d === undefined || d === '') throw new CaptureError(400, 'failed to decode request: empty body');
    data = Buffer.from(d, 'utf8');
    fromForm = true;
  }

  if (compression === 'lz64' || compression === 'lz-string') {
    // A form decoder turns the alphabet's '+' into a space, so spaces read as '+' (as PostHog's Python capture did).
    let text: string | null;
    try {
      text = decompressLz64(data.toString('latin1').replace(/ /g, '+'), maxBytes);
    } catch (e) {
      if (e instanceof Lz64TooLarge) throw tooLarge(maxBytes);
      throw e;
    }
    if (!text) throw new CaptureError(400, 'failed to decode request: invalid lz64 (lz-string) data');
    data = Buffer.from(text, 'utf8');
    if (data.length > maxBytes) throw tooLarge(maxBytes);
    return data;
  }

  if (compression === 'gzip' || compression === 'gzip-js' || encoding === 'gzip' || isGzip(data)) {
    if (fromForm && !isGzip(data)) data = decodeBase64(data.toString('latin1'));
    data = gunzip(data, maxBytes);
  } else if (compression === 'base64' || compression === 'b64' || (fromForm && looksLikeBase64(data))) {
    data = decodeBase64(data.toString('latin1'));
    if (isGzip(data)) data = gunzip(data, maxBytes);
  } else if (encoding && encoding !== 'identity' && encoding !== 'lz64' && encoding !== 'lz-string') {
    throw new CaptureError(400, `failed to decode request: unsupported Content-Encoding ${encoding}`);
  }
  // Legacy clients may double-encode: a payload that still looks like base64 is decoded once more.
  if (looksLikeBase64(data)) {
    const again = decodeBase64(data.toString('latin1'));
    if (again.length > 0 && (again[0] === 0x7b || again[0] === 0x5b)) data = again;
  }
  if (data.length > maxBytes) throw tooLarge(maxBytes);
  return data;
}

function daysInMonth(y: number, m: number): number {
  return m === 2 ? (y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31;
}

const CANONICAL_ISO_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/** The decimal value of v[a..b) (digits already checked by the caller's pattern). */
function digitsAt(v: string, a: number, b: number): number {
  let x = 0;
  for (let i = a; i < b; i++) x = x * 10 + v.charCodeAt(i) - 48;
  return x;
}

/** Parses an ISO-8601 / RFC 3339 timestamp (or epoch ms number) to epoch ms; null when unparseable. */
export function parseTimestamp(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) && Math.abs(v) < 8.64e15 ? v : null;
  if (typeof v !== 'string') return null;
  // Fast path for the canonical form SDKs send (Date#toISOString): fixed offsets, no regex captures.
  if (v.length === 24 && CANONICAL_ISO_RE.test(v)) {
    const y = digitsAt(v, 0, 4);
    const mo = digitsAt(v, 5, 7);
    const d = digitsAt(v, 8, 10);
    const h = digitsAt(v, 11, 13);
    const mi = digitsAt(v, 14, 16);
    const sec = digitsAt(v, 17, 19);
    if (mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth(y, mo) && h <= 23 && mi <= 59 && sec <= 59)
      return Date.UTC(y, mo - 1, d, h, mi, sec, digitsAt(v, 20, 23));
    return null;
  }
  const s = v.trim();
  const m = ISO_RE.exec(s);
  if (!m) return isoWeekOrOrdinalDate(s);
  const [, y, mo, d, h = '00', mi = '00', sec = '00', frac, tz] = m;
  const ms = frac ? Number((frac + '00').slice(0, 3)) : 0;
  const monthN = Number(mo);
  const dayN = Number(d);
  if (monthN < 1 || monthN > 12 || dayN < 1 || dayN > 31 || Number(h) > 23 || Number(mi) > 59 || Number(sec) > 60)
    return null;
  let t = Date.UTC(Number(y), monthN - 1, dayN, Number(h), Number(mi), Number(sec), ms);
  if (new Date(Date.UTC(Number(y), monthN - 1, dayN)).getUTCDate() !== dayN) return null;
  if (tz && tz !== 'Z' && tz !== 'z') {
    const sign = tz[0] === '-' ? -1 : 1;
    const digits = tz.slice(1).replace(':', '');
    const offMin = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0');
    t -= sign * offMin * 60_000;
  }
  return Number.isFinite(t) ? t : null;
}

/**
 * An event's `timestamp` as PostHog's plugin-server parseDate() reads it: what JavaScript's Date parses (RFC 2822
 * `Fri, 29 Oct 2021 02:00:00 +0200`, `Date#toString()` text, ...), else ISO 8601 by Luxon. Quarry reads ISO 8601 (and
 * week / ordinal dates) first, the same instants for every form both take, then Date's other forms. A form without a
 * zone is UTC, as on PostHog's servers (they run in UTC, and Date reads such text as local time). Epoch-ms numbers are
 * taken too (imports). `sent_at` is not read this way: capture parses it as ISO 8601 only.
 */
export function parseEventDate(v: unknown): number | null {
  const t = parseTimestamp(v);
  if (t !== null || typeof v !== 'string' || ISO_RE.test(v.trim())) return t;
  const local = Date.parse(v);
  if (!Number.isFinite(local)) return null;
  if (HAS_ZONE_RE.test(v)) return local;
  // Read as local time: shift back to the same wall-clock time in UTC.
  const utc = local - new Date(local).getTimezoneOffset() * 60_000;
  return Math.abs(utc) < 8.64e15 ? utc : null;
}

/** Whether a date text names its zone or offset, as Date.parse reads it (`Z`, `GMT`, `UT(C)`, `+0200`, US zones). */
const HAS_ZONE_RE = /(?:\d[zZ]\b|\b(?:GMT|UTC?|[ECMP][SD]T)\b|[+-]\d{2}:?\d{2}\s*(?:\(.*\))?\s*$)/i;

const WEEK_DATE_RE = /^(\d{4})-?W(\d{2})-?([1-7])$/;
const ORDINAL_DATE_RE = /^(\d{4})-?(\d{3})$/;

/**
 * ISO 8601 week dates (`2021-W43-5`) and ordinal dates (`2021-302`), midnight UTC: PostHog parses event
 * timestamps with Luxon's fromISO, which takes them (plugin-server timestamps.test.ts `parseDate()` cases).
 */
function isoWeekOrOrdinalDate(s: string): number | null {
  const w = WEEK_DATE_RE.exec(s);
  if (w) {
    const y = Number(w[1]);
    const week = Number(w[2]);
    const jan4 = Date.UTC(y, 0, 4);
    const weeks = (yr: number) => {
      const d = new Date(Date.UTC(yr, 0, 1)).getUTCDay();
      const leap = yr % 4 === 0 && (yr % 100 !== 0 || yr % 400 === 0);
      return d === 4 || (leap && d === 3) ? 53 : 52;
    };
    if (week < 1 || week > weeks(y)) return null;
    const mondayOfWeek1 = jan4 - ((new Date(jan4).getUTCDay() + 6) % 7) * 86_400_000;
    return mondayOfWeek1 + ((week - 1) * 7 + Number(w[3]) - 1) * 86_400_000;
  }
  const o = ORDINAL_DATE_RE.exec(s);
  if (o) {
    const y = Number(o[1]);
    const day = Number(o[2]);
    const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
    if (day < 1 || day > (leap ? 366 : 365)) return null;
    return Date.UTC(y, 0, day);
  }
  return null;
}

/**
 * The earliest epoch-ms `sent_at` taken: rust capture's EventQuery::sent_at reads `_` as milliseconds and drops a value
 * whose year is not after 2020.
 */
const MIN_SENT_AT_MS = Date.UTC(2021, 0, 1);

/**
 * An epoch `sent_at` (`_`, a `sent_at` form or query field) of at most 11 digits is seconds, a longer one milliseconds,
 * as posthog/api/capture.py _datetime_from_seconds_or_millis reads it (test_capture.py
 * test_js_library_underscore_sent_at sends `_` in seconds and expects that time; rust capture drops such a value).
 */
const MAX_SENT_AT_SECONDS_DIGITS = 11;

function parseSentAt(v: unknown): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'number') return v >= MIN_SENT_AT_MS ? v : undefined;
  if (typeof v === 'string' && /^\d+$/.test(v)) {
    const n = v.length <= MAX_SENT_AT_SECONDS_DIGITS ? Number(v) * 1000 : Number(v);
    return n >= MIN_SENT_AT_MS ? n : undefined;
  }
  const t = parseTimestamp(v);
  return t === null ? undefined : t;
}

let lastV7Ms = -1;
let v7Seq = 0;
/** Random bytes drawn in bulk (one randomFillSync per 2,048 uuids), 8 per uuid for its random tail. */
const v7Random = Buffer.alloc(16384);
let v7RandomPos = v7Random.length;
/** The text of one uuid is written here and read back as one flat latin1 string (no concatenation garbage). */
const v7Text = Buffer.from('00000000-0000-7000-8000-000000000000', 'latin1');
const HEX = Buffer.from('0123456789abcdef', 'latin1');

function hexInto(pos: number, value: number, digits: number): void {
  for (let i = digits - 1; i >= 0; i--) {
    v7Text[pos + i] = HEX[value & 15];
    value >>>= 4;
  }
}

/**
 * A UUID v7 (time-ordered: 48-bit ms timestamp, 4-bit version, 12-bit in-ms counter, 2-bit variant, 62 random
 * bits). Random bytes come from crypto.randomFillSync in bulk; the text is written into a reused buffer and read
 * as a single string: the previous version (randomUUID + slices + concatenation) allocated ~700 bytes per uuid,
 * and capture generates one per event sent without a uuid.
 */
export function uuidv7(now = Date.now()): string {
  if (now === lastV7Ms) v7Seq = (v7Seq + 1) & 0xfff;
  else {
    lastV7Ms = now;
    v7Seq = 0;
    const ms = Math.max(0, Math.trunc(now)) % 2 ** 48;
    hexInto(0, Math.floor(ms / 65536), 8); // top 32 bits
    hexInto(9, ms % 65536, 4); // low 16 bits
  }
  hexInto(15, v7Seq, 3); // after the version digit '7' at 14
  if (v7RandomPos + 8 > v7Random.length) {
    randomFillSync(v7Random);
    v7RandomPos = 0;
  }
  const r = v7Random;
  const o = v7RandomPos;
  v7RandomPos += 8;
  // Variant 10 plus 2 random bits in the first digit of the fourth group, then 60 more random bits.
  v7Text[19] = HEX[8 | (r[o] & 3)];
  hexInto(20, ((r[o] >>> 4) << 8) | r[o + 1], 3);
  hexInto(24, (r[o + 2] << 16) | (r[o + 3] << 8) | r[o + 4], 6);
  hexInto(30, (r[o + 5] << 16) | (r[o + 6] << 8) | r[o + 7], 6);
  return (v7Text as unknown as { latin1Slice(start: number, end: number): string }).latin1Slice(0, 36);
}

const UUID_RE = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;

const CANONICAL_UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function normalizeUuid(v: unknown): string | null {
  // SDKs send canonical lowercase uuids: kept as is (no copies) on the per-event hot path.
  if (typeof v === 'string' && v.length === 36 && CANONICAL_UUID_RE.test(v)) return v;
  if (typeof v !== 'string' || !UUID_RE.test(v)) return null;
  const h = v.replace(/-/g, '').toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * JSON.stringify escapes lone UTF-16 surrogates as `\udXXX`, which DuckDB's JSON type rejects (one such event
 * would make its whole batch fail). Replaces those escapes with U+FFFD, as PostHog replaces invalid text.
 */
export function replaceLoneSurrogates(json: string): string {
  return json.replace(/(\\+)u(d[89a-f][0-9a-f]{2})/gi, (m, slashes: string) =>
    slashes.length % 2 === 1 ? `${slashes.slice(0, -1)}\\ufffd` : m,
  );
}

const SHALLOW_DEPTH = 8;

/** Whether `v` (at depth `d`) nests no deeper than {@link SHALLOW_DEPTH}; recursion depth is bounded by it. */
function depthWithin(v: object, d: number): boolean {
  if (d > SHALLOW_DEPTH) return false;
  if (Array.isArray(v)) {
    for (const c of v) if (typeof c === 'object' && c !== null && !depthWithin(c, d + 1)) return false;
  } else {
    for (const k in v) {
      const c = (v as Record<string, unknown>)[k];
      if (typeof c === 'object' && c !== null && !depthWithin(c, d + 1)) return false;
    }
  }
  return true;
}

/** Depth of nested objects/arrays, computed without recursion; stops once `limit` is passed. */
export function nestingDepthExceeds(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  // Almost every event is a few levels deep: checked recursively (bounded depth, no allocation) first.
  if (limit >= SHALLOW_DEPTH && depthWithin(value, 1)) return false;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (d > limit) return true;
    const children = Array.isArray(v) ? v : Object.values(v as object);
    for (const c of children) if (typeof c === 'object' && c !== null) stack.push([c, d + 1]);
  }
  return false;
}

/** `"distinct_id": <number>` / `"$distinct_id": <number>` in a request's JSON text: the number as written. */
const NUMERIC_ID_LITERAL = /"\$?distinct_id"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;

/**
 * The integral number ids of a request's JSON text as rust capture prints them (serde_json's `Value::to_string`),
 * keyed by value, where JavaScript's String() differs: a literal written with a fraction or an exponent is an f64,
 * printed by ryu with `.0` (`23.0` → "23.0", `1e2` → "100.0"), in exponent form from 1e16 (`1e16`); one written as an
 * integer is an i64/u64, printed exactly (beyond 2^53 too). The same value written both ways reads as the integer.
 * Built once per request, and only when an id is an integral number (rare).
 */
function integralIdTexts(json: string): Map<number, string> {
  const out = new Map<number, string>();
  const integer = new Set<number>();
  NUMERIC_ID_LITERAL.lastIndex = 0;
  for (let m = NUMERIC_ID_LITERAL.exec(json); m; m = NUMERIC_ID_LITERAL.exec(json)) {
    const lit = m[1];
    const v = Number(lit);
    if (!Number.isInteger(v) || integer.has(v)) continue;
    // an integer beyond i64/u64 (and -0) is an f64 to serde_json
    if (!/[.eE]/.test(lit) && lit !== '-0' && BigInt(lit) >= -(2n ** 63n) && BigInt(lit) < 2n ** 64n) {
      out.set(v, lit);
      integer.add(v);
    } else if (!out.has(v)) out.set(v, Math.abs(v) < 1e16 ? `${Object.is(v, -0) ? '-0' : String(v)}.0` : v.toExponential().replace('e+', 'e'));
  }
  return out;
}

function stringifyId(v: unknown, ctx?: NormalizeContext): string | null {
  if (v === undefined || v === null) return null;
  let s: string;
  if (typeof v === 'string') s = v;
  else if (typeof v === 'number' && Number.isInteger(v) && ctx?.json !== undefined) s = (ctx.idTexts ??= integralIdTexts(ctx.json)).get(v) ?? String(v);
  else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') s = String(v);
  else {
    // Keys sorted, as rust capture's serde_json (its maps are BTreeMaps) prints an object id: v0_request.rs
    // extract_distinct_id pins `{"string": "a", "int": 42}` → `{"int":42,"string":"a"}`.
    try {
      s = stableJson(v);
    } catch {
      return null;
    }
  }
  if (s.indexOf('\u0000') >= 0) s = s.replace(/\u0000/g, '\uFFFD');
  // Only an empty id is missing: PostHog's capture checks `distinct_id.is_empty()`, so a whitespace-only id is an id
  // (process-event.test.ts 'identify with illegal (generic) id' gives a person to '  '; merging it is refused).
  if (s === '') return null;
  return s.length > MAX_DISTINCT_ID_CHARS ? firstCodePoints(s, MAX_DISTINCT_ID_CHARS) : s;
}

/**
 * The first `n` characters (code points: a surrogate pair is one, never split) of `s`, as PostHog's capture
 * truncates distinct ids (`distinct_id.chars().take(200)`).
 */
function firstCodePoints(s: string, n: number): string {
  let i = 0;
  for (let k = 0; k < n && i < s.length; k++) {
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1;
  }
  return s.slice(0, i);
}

export interface NormalizeContext {
  /** Receive time, epoch ms. */
  now: number;
  /** Client send time (epoch ms) for clock-skew correction. */
  sentAt?: number;
  /** When true (imports), timestamps are taken as given: no skew correction, no future clamp. */
  historical?: boolean;
  /** Position used in error messages. */
  index?: number;
  /** The request's JSON text, where an integral number id is read as written ({@link integralIdTexts}). Default none: String(id). */
  json?: string;
  /** integralIdTexts(json), built on first use. */
  idTexts?: Map<number, string>;
  /**
   * The client's IP address ({@link CaptureRequestParts.ip}), set as `$ip` when the event has none. The event's own
   * properties object gets it (parseCaptureRequest's own parse, never a caller's object).
   */
  ip?: string;
  /**
   * The project has `anonymize_ips` on: a truthy `$ip` is removed from the event's properties once {@link ip} was
   * given its chance, so neither the event's own nor the client's is stored (plugin-server EventsProcessor, after
   * normalizeEvent: `if (properties['$ip'] && team.anonymize_ips) delete properties['$ip']`; process-event.test.ts
   * 'anonymized ip capture'). Default false.
   */
  anonymizeIps?: boolean;
  /** The name of an event sent without one ({@link CaptureRequestParts.engage}); absent: such an event is a 400. */
  defaultEvent?: string;
}

/** The event's position for error messages (built only when one is thrown, not per event). */
function at(ctx: { index?: number }): string {
  return ctx.index !== undefined ? ` (event ${ctx.index})` : '';
}

/** An event's name, or `defaultEvent` when it has none ({@link NormalizeContext.defaultEvent}); null when it has no usable one. */
function eventName(raw: Record<string, unknown>, defaultEvent: string | undefined): string | null {
  const name = raw.event === undefined || raw.event === null || raw.event === '' ? (defaultEvent ?? raw.event) : raw.event;
  return typeof name === 'string' && name.trim() !== '' ? name : null;
}

/**
 * What fails rust capture's deserialization of the request (RawEvent: an object with `event: String`,
 * `timestamp: Option<String>`, `offset: Option<i64>`), a 400 for the whole request checked before its token is looked
 * at (an offset beside a timestamp too, which is not used then): test_capture.py test_empty_request_returns_an_error
 * posts `{}` and gets a 400, not the 401 of a missing token. Captured events only: imports take epoch-ms timestamps.
 */
function checkCaptureFieldTypes(raw: unknown, ctx: { index?: number; defaultEvent?: string }): void {
  if (!isPlainObject(raw)) throw new CaptureError(400, `invalid event${at(ctx)}: an event must be a JSON object`);
  if (eventName(raw, ctx.defaultEvent) === null) throw new CaptureError(400, `event submitted without a name${at(ctx)}`);
  if (raw.timestamp !== undefined && raw.timestamp !== null && typeof raw.timestamp !== 'string')
    throw new CaptureError(400, `invalid event${at(ctx)}: timestamp must be a string`);
  if (raw.offset !== undefined && raw.offset !== null && !(typeof raw.offset === 'number' && Number.isSafeInteger(raw.offset)))
    throw new CaptureError(400, `invalid event${at(ctx)}: offset must be an integer number of milliseconds`);
}

/**
 * Validates and normalizes one raw event. Throws CaptureError(400) for a missing name, missing distinct id,
 * non-object properties, bad uuid or unparseable timestamp; CaptureError(413) for an oversize event.
 */
export function normalizeEvent(raw: unknown, ctx: NormalizeContext): ParsedEvent {
  if (!isPlainObject(raw)) throw new CaptureError(400, `invalid event${at(ctx)}: an event must be a JSON object`);
  const name = eventName(raw, ctx.defaultEvent);
  if (name === null) throw new CaptureError(400, `event submitted without a name${at(ctx)}`);
  let props: Record<string, unknown>;
  if (raw.properties === undefined || raw.properties === null) props = {};
  // The raw object comes from our own JSON.parse, so it is used in place; copied only when merged below.
  else if (isPlainObject(raw.properties)) props = raw.properties;
  else throw new CaptureError(400, `invalid event${at(ctx)}: properties must be a JSON object`);

  const distinct = stringifyId(raw.distinct_id ?? raw.$distinct_id ?? props.distinct_id, ctx);
  if (distinct === null) throw new CaptureError(400, `event submitted without a distinct_id${at(ctx)}`);

  for (const key of ['$set', '$set_once'] as const) {
    const top = raw[key];
    if (top === undefined || top === null) continue;
    if (!isPlainObject(top)) throw new CaptureError(400, `invalid event${at(ctx)}: ${key} must be a JSON object`);
    const inner = props[key];
    if (props === raw.properties) props = { ...props };
    props[key] = isPlainObject(inner) ? { ...inner, ...top } : top;
  }
  for (const key of ['$set', '$set_once'] as const)
    if (props[key] !== undefined && props[key] !== null && !isPlainObject(props[key]))
      throw new CaptureError(400, `invalid event${at(ctx)}: properties.${key} must be a JSON object`);

  let uuid: string;
  let uuidGenerated = false;
  if (raw.uuid === undefined || raw.uuid === null || raw.uuid === '') {
    uuid = uuidv7(ctx.now);
    uuidGenerated = true;
  } else {
    const u = normalizeUuid(raw.uuid);
    if (!u) throw new CaptureError(400, `invalid event${at(ctx)}: uuid is not a valid UUID`);
    uuid = u;
  }

  // Captured events follow PostHog's parseEventTimestamp (plugin-server timestamps.ts): skew-corrected by `sent_at`
  // unless `properties.$ignore_sent_at`. An unparseable or out-of-range time (or offset) is a 400 for the request, as
  // issue #3 asks ("unparseable timestamps → clear 4xx, nothing stored"), where PostHog stores the event at the time
  // it is processed with an `ignored_invalid_timestamp` warning; imports report it for the row.
  const now = ctx.now;
  const hist = ctx.historical === true;
  let timestamp: number;
  if (raw.timestamp !== undefined && raw.timestamp !== null && raw.timestamp !== '') {
    const t = parseEventDate(raw.timestamp);
    if (t === null) throw new CaptureError(400, `invalid event${at(ctx)}: timestamp is not a valid ISO 8601 date-time`);
    timestamp = !hist && ctx.sentAt !== undefined && !props.$ignore_sent_at ? now - (ctx.sentAt - t) : t;
  } else if (raw.offset !== undefined && raw.offset !== null) {
    const off = Number(raw.offset);
    if (!Number.isFinite(off)) throw new CaptureError(400, `invalid event${at(ctx)}: offset must be a number of milliseconds`);
    timestamp = now - off;
  } else timestamp = now;
  if (!hist && timestamp > now + MAX_FUTURE_MS) timestamp = now;
  if (!Number.isFinite(timestamp) || timestamp < -62135596800000 || timestamp > 253402300799999)
    throw new CaptureError(400, `invalid event${at(ctx)}: timestamp out of range`);

  // PostHog's normalizeProcessPerson (plugin-server utils/event.ts): a personless event, and any `$groupidentify`,
  // is stored without `$set` / `$set_once` / `$unset`; `$process_person_profile: true` (the default) is removed.
  const ppp = props.$process_person_profile;
  if ((ppp === false || name === '$groupidentify') && (props.$set !== undefined || props.$set_once !== undefined || props.$unset !== undefined)) {
    if (props === raw.properties) props = { ...props };
    delete props.$set;
    delete props.$set_once;
    delete props.$unset;
  }
  if (ppp === true) {
    if (props === raw.properties) props = { ...props };
    delete props.$process_person_profile;
  }

  if (!hist && props.$os_name !== undefined && ppp !== false) props = withOsFallback(props);

  // The client's address, unless the event has its own (PostHog's normalizeEvent: `if (!properties['$ip'] && event.ip)`).
  const ip = ctx.ip;
  if (ip !== undefined && !props.$ip) props.$ip = ip;
  // Then removed, whoever set it, when the project anonymizes IPs (a falsy one, with no address to replace it, stays).
  if (ctx.anonymizeIps === true && props.$ip) {
    if (props === raw.properties) props = { ...props };
    delete props.$ip;
  }
  // Heatmap data goes to PostHog's heatmaps table, never to the events table (plugin-server extractHeatmapDataStep:
  // "We don't want to ingest this data to the events table").
  if (props.$heatmap_data !== undefined) {
    if (props === raw.properties) props = { ...props };
    delete props.$heatmap_data;
  }

  // Autocapture elements become the elements_chain column and leave the stored properties (as in PostHog).
  let chain: string | null = null;
  if (props.$elements_chain !== undefined || props.$elements !== undefined) {
    if (props === raw.properties) props = { ...props };
    chain = takeElementsChain(props);
  }

  if (nestingDepthExceeds(props, MAX_PROPERTIES_DEPTH))
    throw new CaptureError(400, `invalid event${at(ctx)}: properties nested deeper than ${MAX_PROPERTIES_DEPTH} levels`);
  let propertiesJson: string;
  try {
    propertiesJson = JSON.stringify(props);
  } catch {
    throw new CaptureError(400, `invalid event${at(ctx)}: properties cannot be serialized`);
  }
  if (propertiesJson.includes('\\u')) propertiesJson = replaceLoneSurrogates(propertiesJson);
  const eventBytes = propertiesJson.length + (chain === null ? 0 : chain.length);
  if (eventBytes > MAX_EVENT_BYTES)
    throw new CaptureError(
      413,
      `maximum event size exceeded${at(ctx)}: properties${chain === null ? '' : ' and elements'} are ${eventBytes} bytes, the limit is ${MAX_EVENT_BYTES}`,
    );
  const sid = props.$session_id;
  return {
    uuid,
    event: name.length > MAX_EVENT_NAME_CHARS ? name.slice(0, MAX_EVENT_NAME_CHARS) : name,
    distinct_id: distinct,
    properties: props,
    propertiesJson,
    timestamp,
    created_at: now,
    session_id: typeof sid === 'string' ? sid : null,
    elements_chain: chain,
    uuidGenerated,
    groups: name === '$groupidentify' || props.$groups !== undefined,
  };
}

/** Events that only make sense with person processing (a personless `$groupidentify` is dropped in groups.ts). */
const PERSON_EVENTS = new Set(['$identify', '$create_alias', '$merge_dangerously']);

/**
 * A personless (`$process_person_profile: false`) `$identify`, `$create_alias` or `$merge_dangerously`: PostHog's
 * ingestion pipeline drops it with the ingestion warning `invalid_event_when_process_person_profile_is_false`
 * (plugin-server event-pipeline runner), after capture accepted it. Capture does the same: 200, nothing stored.
 */
export function isDroppedPersonless(ev: ParsedEvent): boolean {
  return ev.event.charCodeAt(0) === 36 /* $ */ && PERSON_EVENTS.has(ev.event) && ev.properties.$process_person_profile === false;
}

/**
 * Events PostHog never stores in the events table, by name: `$$heatmap` (the heatmaps table) and
 * `$$client_ingestion_warning` (ingestion warnings) (rust capture's data types HeatmapMain and ClientIngestionWarning),
 * and session recording payloads, `$snapshot` / `$snapshot_items` / `$performance_event` (PostHog's capture sends them
 * to the recordings pipeline: SESSION_RECORDING_EVENT_NAMES; plugin-server's EventsProcessor wrote `$snapshot` to
 * session_recording_events and `$performance_event` to performance_events, never to events). Accepted, not stored.
 */
const NOT_EVENTS = new Set(['$$heatmap', '$$client_ingestion_warning', '$snapshot', '$snapshot_items', '$performance_event']);

export function isNotAnEvent(ev: ParsedEvent): boolean {
  if (ev.event.charCodeAt(0) !== 36 /* $ */) return false;
  // Only names whose second character is one of theirs are looked up ('$', 's', 'p').
  const c = ev.event.charCodeAt(1);
  return (c === 36 || c === 115 || c === 112) && NOT_EVENTS.has(ev.event);
}

const PERSONAL_KEY_PREFIXES = ['phx_', 'phs_'];

function eventToken(e: unknown): string | undefined {
  if (!isPlainObject(e)) return undefined;
  const t = e.token ?? e.$token ?? e.api_key ?? (isPlainObject(e.properties) ? e.properties.token : undefined);
  return typeof t === 'string' ? t : t === undefined || t === null ? undefined : String(t);
}

/** Parses a whole capture request. The token is checked for presence/consistency/kind, not resolved. */
export function parseCaptureRequest(parts: CaptureRequestParts): ParsedCapture {
  const now = parts.now ?? Date.now();
  const form: { token?: string; sentAt?: string } = {};
  const data = decodePayload(parts, form);
  let payload: unknown;
  let json: string;
  try {
    // utf8Slice: toString's argument handling skipped (this decodes every request body).
    json = (data as unknown as { utf8Slice(start: number, end: number): string }).utf8Slice(0, data.length);
    payload = JSON.parse(json);
  } catch (e) {
    if (e instanceof RangeError) throw new CaptureError(400, 'failed to decode request: JSON nested too deeply');
    throw new CaptureError(400, `failed to decode request: invalid JSON (${(e as Error).message.slice(0, 200)})`);
  }

  let rawEvents: unknown[];
  let batchToken: string | undefined;
  let sentAtRaw: unknown;
  let historicalMigration = false;
  if (Array.isArray(payload)) rawEvents = payload;
  else if (isPlainObject(payload) && Array.isArray(payload.batch)) {
    rawEvents = payload.batch;
    const t = payload.api_key ?? payload.token;
    batchToken = typeof t === 'string' ? t : t === undefined || t === null ? undefined : String(t);
    sentAtRaw = payload.sent_at;
    historicalMigration = payload.historical_migration === true;
  } else if (isPlainObject(payload) && 'batch' in payload) {
    throw new CaptureError(400, 'failed to decode request: batch must be an array');
  } else if (isPlainObject(payload)) {
    rawEvents = [payload];
    sentAtRaw = payload.sent_at;
  } else throw new CaptureError(400, 'failed to decode request: payload must be an event, an array of events or a batch object');
  if (rawEvents.length === 0) throw new CaptureError(400, 'empty batch');

  // Token: the batch token, else every event's token, which must agree. A request rust capture could not deserialize
  // is a 400 first (recordings are checked on their own below).
  let token = batchToken;
  const shape: { index?: number; defaultEvent?: string } = { defaultEvent: parts.engage ? '$identify' : undefined };
  for (let i = 0; i < rawEvents.length; i++) {
    const e = rawEvents[i];
    if (!parts.recordings) {
      if (rawEvents.length > 1) shape.index = i;
      checkCaptureFieldTypes(e, shape);
    }
    const t = eventToken(e);
    if (t === undefined) continue;
    if (token === undefined) token = t;
    else if (batchToken === undefined && t !== token)
      throw new CaptureError(401, 'batch submitted with inconsistent api_key values');
  }
  // Else the `api_key` / `token` form field, else the query string (posthog/api/capture.py get_token; the Python capture
  // reads the query string on GET, any method here), stripped of surrounding whitespace as there.
  token ??= form.token ?? (str(parts.query.token) || str(parts.query.api_key) || undefined);
  if (token === undefined) throw new CaptureError(401, 'event submitted without an api_key');
  token = token.trim();
  if (token === '') throw new CaptureError(401, 'API key is not valid: the token is empty');
  if (PERSONAL_KEY_PREFIXES.some((p) => token!.startsWith(p)))
    throw new CaptureError(
      401,
      'API key is not valid: personal and secret API keys cannot be used to capture events; use the project token (phc_…)',
    );

  if (parts.recordings) {
    checkReplayEvents(rawEvents);
    return { token, events: [], historicalMigration, beacon: str(parts.query.beacon) === '1' };
  }

  const sentAt =
    parseSentAt(sentAtRaw) ?? parseSentAt(str(parts.query._)) ?? parseSentAt(str(parts.query.sent_at)) ?? parseSentAt(form.sentAt);
  const events: ParsedEvent[] = new Array(rawEvents.length);
  const ctx: NormalizeContext = {
    now,
    sentAt,
    index: undefined,
    json,
    ip: parts.ip,
    anonymizeIps: parts.anonymizeIpTokens !== undefined && parts.anonymizeIpTokens.has(token),
    defaultEvent: parts.engage ? '$identify' : undefined,
  };
  let dropped = 0;
  for (let i = 0; i < rawEvents.length; i++) {
    if (rawEvents.length > 1) ctx.index = i;
    const ev = normalizeEvent(rawEvents[i], ctx);
    if (isDroppedPersonless(ev) || isNotAnEvent(ev)) dropped++;
    else events[i - dropped] = ev;
  }
  if (dropped) events.length -= dropped;
  const beacon = str(parts.query.beacon) === '1';
  return { token, events, historicalMigration, beacon };
}

/**
 * What rust capture's process_replay_events refuses in a `/s` payload: the first event names the session
 * (`$session_id`) and the distinct id, and every event carries `$snapshot_data` (an array of rrweb events, or one).
 */
function checkReplayEvents(rawEvents: unknown[]): void {
  const first = rawEvents[0];
  const props = (e: unknown): Record<string, unknown> => (isPlainObject(e) && isPlainObject(e.properties) ? e.properties : {});
  const p0 = props(first);
  if (p0.$session_id === undefined || p0.$session_id === null) throw new CaptureError(400, 'replay event submitted without session id');
  const f = isPlainObject(first) ? first : {};
  if (stringifyId(f.distinct_id ?? f.$distinct_id ?? p0.distinct_id) === null) throw new CaptureError(400, 'event submitted without a distinct_id');
  for (const e of rawEvents) {
    const d = props(e).$snapshot_data;
    if (!Array.isArray(d) && !isPlainObject(d)) throw new CaptureError(400, 'replay event submitted without snapshot data');
  }
}

/**
 * PostHog's illegal distinct ids (merges involving them are refused), as person-merge-service.ts builds them: the bare
 * values and their single- and double-quoted forms, looked up on the id as it is (not trimmed: ' anonymous' is
 * legal); an id that is empty once trimmed is illegal too.
 */
const quotedToo = (ids: string[]): string[] => [...ids, ...ids.map((id) => `'${id}'`), ...ids.map((id) => `"${id}"`)];
const ILLEGAL_CASE_INSENSITIVE = new Set(
  quotedToo(['anonymous', 'guest', 'distinctid', 'distinct_id', 'id', 'not_authenticated', 'email', 'undefined', 'true', 'false']),
);
const ILLEGAL_CASE_SENSITIVE = new Set(quotedToo(['[object Object]', 'NaN', 'None', 'none', 'null', '0', 'undefined']));

export function isIllegalDistinctId(id: string): boolean {
  return id.trim() === '' || ILLEGAL_CASE_INSENSITIVE.has(id.toLowerCase()) || ILLEGAL_CASE_SENSITIVE.has(id);
}
