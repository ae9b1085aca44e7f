/**
 * Append-only, group-committed write-ahead log for captured events.
 *
 * Format: segment files `wal-<first seq, 16 digits>.log`, one NDJSON line per capture call:
 *   {"s":<seq>,"p":<project id>,"e":[[uuid,event,distinct_id,timestamp_ms,created_at_ms,<properties JSON>],…]}
 * The properties JSON text is embedded as produced at parse time (no second escaping). A line is complete only
 * with its trailing newline; a torn tail after a crash fails to parse and is cut off at open.
 *
 * Group commit: appends arriving while a write+fdatasync is in flight are queued and written together by the
 * next one, so N concurrent requests cost one fsync. `onDurable` is called synchronously, in sequence order,
 * with the records of each group once they are on disk.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { ParsedEvent } from './capture-payload';
import { DERIVED_KEY } from './person-initial-properties';

export interface WalRecord {
  seq: number;
  projectId: number;
  events: ParsedEvent[];
  /** The record's line exactly as written to the log (records appended by this process). */
  line?: Buffer;
  /**
   * Set for records appended with {@link WalOptions.compact}: the events kept as bytes and typed arrays instead of
   * objects ({@link events} is then empty; {@link eventCount} counts either form).
   */
  compact?: CompactEvents;
}

/**
 * A record's events without per-event JS objects: every string column is a byte range of `buf` (the record's log
 * line followed by side bytes), numbers are in typed arrays. Queued events wait ~200 ms for the flusher, long
 * enough to survive two young-generation GCs and be promoted; as objects (event, uuid, distinct id, session id:
 * ~400 bytes per event) they were most of what every scavenge copied. Bytes in a Buffer are not scanned at all.
 */
export interface CompactEvents {
  n: number;
  /** The log line (`buf[0, lineBytes)`) followed by side bytes: raw UTF-8 of strings escaped in the line, session ids, element chains. */
  buf: Buffer;
  lineBytes: number;
  /** {@link C_STRIDE} entries per event: byte offsets into `buf` at C_* and the event's F_* flags at C_FLAGS. */
  pos: Uint32Array;
  /** timestamp, created_at (epoch ms) per event. */
  times: Float64Array;
  /**
   * The identity properties of event i (slimProperties), or null when no event of the record has any. Properties
   * holding only the derived-person-properties text (person-initial-properties.ts DERIVED_KEY: most web events) are
   * that text alone: a parse worker sends this array by structured clone, ~60 ns an event for a string against
   * ~470 ns for a one-key object. {@link identityProperties} reads an entry.
   */
  identity: IdentityEntry[] | null;
}

/** An entry of {@link CompactEvents.identity}: identity properties, or the DERIVED_KEY text they would hold alone. */
export type IdentityEntry = Record<string, unknown> | string;

/** The identity properties of an {@link IdentityEntry} (a new object for the text form). */
export function identityProperties(e: IdentityEntry | undefined): Record<string, unknown> {
  return e === undefined ? {} : typeof e === 'string' ? { [DERIVED_KEY]: e } : e;
}

/** Offsets in {@link CompactEvents.pos}: uuid text (36 bytes), then [start, end) of each string column, then flags. */
export const C_UUID = 0;
export const C_EVENT = 1;
export const C_DISTINCT_ID = 3;
export const C_PROPERTIES = 5;
export const C_SESSION_ID = 7;
export const C_ELEMENTS_CHAIN = 9;
export const C_FLAGS = 11;
export const C_STRIDE = 12;
/** The server generated the uuid (dedup skips it). */
export const F_UUID_GENERATED = 1;
/** `$session_id` / `$elements_chain` are set (else null). */
export const F_SESSION_ID = 2;
export const F_ELEMENTS_CHAIN = 4;
/** The event is `$identify` / `$create_alias` / `$merge_dangerously` (the names identity acts on). */
export const F_IDENTIFY = 8;
export const F_CREATE_ALIAS = 16;
export const F_MERGE_DANGEROUSLY = 32;
/** The event needs group processing (ParsedEvent.groups: `$groupidentify` or `$groups`). */
export const F_GROUPS = 64;

/** Number of events in a record, in either form. */
export function eventCount(r: WalRecord): number {
  return r.compact ? r.compact.n : r.events.length;
}

/** Buffer's own per-encoding readers (what `toString(encoding, start, end)` dispatches to after checking its arguments). */
type RawReaders = { utf8Slice(start: number, end: number): string; latin1Slice(start: number, end: number): string };

/** The text of bytes [start, end) of `b` (UTF-8), without toString's argument handling (this runs per event). */
export function utf8Text(b: Buffer, start: number, end: number): string {
  return (b as unknown as RawReaders).utf8Slice(start, end);
}

/** The text of bytes [start, end) of `b` read as latin1 (ASCII text: uuids). */
export function latin1Text(b: Buffer, start: number, end: number): string {
  return (b as unknown as RawReaders).latin1Slice(start, end);
}

/** The text of a compact string column of event i (`col` is one of C_EVENT, C_DISTINCT_ID, …). */
export function compactText(c: CompactEvents, i: number, col: number): string {
  const o = i * C_STRIDE + col;
  return utf8Text(c.buf, c.pos[o], c.pos[o + 1]);
}

/** Event i of a compact record as a ParsedEvent (for engines other than DuckDB, and tests). */
export function compactEvent(c: CompactEvents, i: number): ParsedEvent {
  const flags = c.pos[i * C_STRIDE + C_FLAGS];
  const u = c.pos[i * C_STRIDE + C_UUID];
  return {
    uuid: latin1Text(c.buf, u, u + 36),
    event: compactText(c, i, C_EVENT),
    distinct_id: compactText(c, i, C_DISTINCT_ID),
    properties: identityProperties(c.identity?.[i]),
    propertiesJson: compactText(c, i, C_PROPERTIES),
    timestamp: c.times[2 * i],
    created_at: c.times[2 * i + 1],
    session_id: flags & F_SESSION_ID ? compactText(c, i, C_SESSION_ID) : null,
    elements_chain: flags & F_ELEMENTS_CHAIN ? compactText(c, i, C_ELEMENTS_CHAIN) : null,
    uuidGenerated: (flags & F_UUID_GENERATED) !== 0,
    groups: (flags & F_GROUPS) !== 0,
  };
}

/** Event i's properties JSON text, in either form. */
export function propertiesText(r: WalRecord, i: number): string {
  return r.compact ? compactText(r.compact, i, C_PROPERTIES) : r.events[i].propertiesJson;
}

export interface WalOptions {
  /** Start a new segment once the current one reaches this size. Default 64 MiB. */
  segmentBytes?: number;
  /** fdatasync after each group. Default true; turning it off loses acknowledged events on power loss. */
  fsync?: boolean;
  /**
   * Default false. When true, `append` keeps the events only as {@link CompactEvents} (bytes of the record's log
   * line plus typed arrays; `record.events` is empty) and clears each event's `propertiesJson`: queued events then
   * hold almost nothing on the V8 heap for the young-generation GC to copy and promote.
   */
  compact?: boolean;
}

interface Segment {
  firstSeq: number;
  lastSeq: number;
  file: string;
}

interface Pending {
  record: WalRecord;
  line: Buffer;
  resolve: () => void;
  reject: (e: Error) => void;
}

const SEGMENT_RE = /^wal-(\d{16})\.log$/;

function segmentName(seq: number): string {
  return `wal-${String(seq).padStart(16, '0')}.log`;
}

/**
 * Encodes the events of a record as the JSON array text stored in the log (`[[uuid,event,…,{props}],…]`). An event
 * with an elements chain has it as a 7th item: the chain is not in its properties (ingestion removes `$elements` /
 * `$elements_chain` from them, as PostHog does), and replay must restore the column.
 */
export function encodeEvents(events: ParsedEvent[]): string {
  let s = '[';
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    if (i) s += ',';
    const chain = e.elements_chain === null ? '' : `,${JSON.stringify(e.elements_chain)}`;
    s += `[${JSON.stringify(e.uuid)},${JSON.stringify(e.event)},${JSON.stringify(e.distinct_id)},${e.timestamp},${e.created_at},${e.propertiesJson}${chain}]`;
  }
  return s + ']';
}

/** JSON.stringify changes only strings holding these (quote, backslash, controls, surrogates); others are copied. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * Lines are encoded straight into slabs of this size and handed out as slices of them (no copy, no allocation
 * per record). A slab is freed once no queued record's line points into it.
 */
const SLAB_BYTES = 4 << 20;
let slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
/** Start of the record being encoded (everything before it belongs to earlier records and is never written). */
let recStart = 0;

/**
 * Buffer's own per-encoding writers (what `buf.write(s, offset, encoding)` dispatches to after normalizing its
 * arguments, which cost more than the copy for the short strings written here).
 */
type RawWriters = { utf8Write(s: string, offset: number): number; latin1Write(s: string, offset: number): number };
const w = (b: Buffer): RawWriters => b as unknown as RawWriters;

/** Makes room for `bytes` more at `pos`; returns `pos`, rebased when the record moved to a new slab. */
function room(pos: number, bytes: number): number {
  if (pos + bytes <= slab.length) return pos;
  const used = pos - recStart;
  const next = Buffer.allocUnsafeSlow(Math.max(SLAB_BYTES, (used + bytes) * 2));
  slab.copy(next, 0, recStart, pos);
  slab = next;
  recStart = 0;
  return used;
}

function putAscii(pos: number, s: string): number {
  pos = room(pos, s.length);
  return pos + w(slab).latin1Write(s, pos);
}

/** Writes `${n}`: digits in place for non-negative safe integers (epoch ms), else the number's string. */
function putNumber(pos: number, n: number): number {
  if (!(Number.isSafeInteger(n) && n >= 0)) return putAscii(pos, String(n));
  let digits = 1;
  for (let x = n; x >= 10; x = Math.floor(x / 10)) digits++;
  pos = room(pos, digits);
  let x = n;
  for (let i = pos + digits - 1; i >= pos; i--) {
    const q = Math.floor(x / 10);
    slab[i] = 48 + (x - q * 10);
    x = q;
  }
  return pos + digits;
}

/** Whether the last {@link putJsonString} had to escape its string (its bytes in the line are then not the text). */
let escaped = false;

function putJsonString(pos: number, s: string): number {
  escaped = NEEDS_ESCAPE.test(s);
  if (escaped) {
    const j = JSON.stringify(s);
    pos = room(pos, j.length * 3);
    return pos + w(slab).utf8Write(j, pos);
  }
  pos = room(pos, s.length * 3 + 2);
  slab[pos++] = 0x22;
  pos += w(slab).utf8Write(s, pos);
  slab[pos++] = 0x22;
  return pos;
}

/** Writes the raw UTF-8 of `s` (a side string of a compact record); returns the new position. */
function putRaw(pos: number, s: string): number {
  pos = room(pos, s.length * 3);
  return pos + w(slab).utf8Write(s, pos);
}

/** A `,` at `pos` (room made first). */
function putComma(pos: number): number {
  pos = room(pos, 1);
  slab[pos++] = 0x2c;
  return pos;
}

/**
 * Encodes one record as its log line in UTF-8, byte for byte `encodeRecord` (pinned by a test), written straight
 * into a slab: no per-event template strings, no joined group text, no flattening copy. Also returns where each
 * event's properties text sits in the line.
 */
export function encodeRecordBytes(seq: number, projectId: number, events: ParsedEvent[]): { line: Buffer; props: Uint32Array } {
  const { line, compact } = encodeCompact(seq, projectId, events);
  const props = new Uint32Array(events.length * 2);
  for (let i = 0; i < events.length; i++) {
    props[2 * i] = compact.pos[i * C_STRIDE + C_PROPERTIES];
    props[2 * i + 1] = compact.pos[i * C_STRIDE + C_PROPERTIES + 1];
  }
  return { line, props };
}

const EMPTY_IDENTITY: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

function onlyKey(o: Record<string, unknown>, key: string): boolean {
  for (const k in o) if (k !== key) return false;
  return true;
}

function hasKeys(o: Record<string, unknown>): boolean {
  for (const _ in o) return true;
  return false;
}

/**
 * Encodes one record as its log line (see {@link encodeRecordBytes}) and its events as {@link CompactEvents}: the
 * line's own bytes serve as the string columns where they are the text itself (no escape was needed); escaped
 * strings, session ids and element chains are written as raw UTF-8 after the line, in the same slab.
 * `events[i].properties` is taken as the event's identity properties (the caller slims them first).
 */
export function encodeCompact(seq: number, projectId: number, events: ParsedEvent[]): { line: Buffer; compact: CompactEvents } {
  return encodeWithPrefix(recordHeader(seq, projectId), events);
}

/** The start of a record's log line, before its events array. ASCII. */
function recordHeader(seq: number, projectId: number): string {
  return `{"s":${seq},"p":${projectId},"e":`;
}

/**
 * Bytes reserved in front of an {@link EncodedEvents} body for the record header, which is only known at append time
 * (the sequence number): `{"s":` + 16 digits + `,"p":` + 10 digits + `,"e":` is 41 bytes.
 */
export const HEADER_RESERVE = 48;

/**
 * A record's events encoded ahead of its append (by a parse worker): {@link HEADER_RESERVE} placeholder bytes, then
 * the events array and the rest of the log line, then the side bytes, in a buffer of its own (transferable, no
 * copy). Offsets in `pos` are relative to `raw`; {@link Wal.appendEncoded} writes the header into the reserve and
 * rebases them.
 */
export interface EncodedEvents {
  n: number;
  raw: Uint8Array;
  /** End of the log line in `raw` (after its newline). */
  lineEnd: number;
  pos: Uint32Array;
  times: Float64Array;
  identity: IdentityEntry[] | null;
}

/**
 * Encodes events as {@link encodeCompact} does, without the header, into a buffer of their own (see
 * {@link EncodedEvents}). Runs where the request is parsed; `events[i].properties` are the identity properties.
 */
export function encodeEventsAhead(events: ParsedEvent[]): EncodedEvents {
  const { line, compact } = encodeWithPrefix(RESERVE_TEXT, events);
  const raw = new Uint8Array(compact.buf.length);
  raw.set(compact.buf);
  return { n: compact.n, raw, lineEnd: line.length, pos: compact.pos, times: compact.times, identity: compact.identity };
}

const RESERVE_TEXT = ' '.repeat(HEADER_RESERVE);

/** Moves every byte offset of a compact record `shift` bytes down (C_SESSION_ID / C_ELEMENTS_CHAIN only when set). */
function rebase(pos: Uint32Array, n: number, shift: number): void {
  for (let i = 0; i < n; i++) {
    const o = i * C_STRIDE;
    const flags = pos[o + C_FLAGS];
    pos[o + C_UUID] -= shift;
    pos[o + C_EVENT] -= shift;
    pos[o + C_EVENT + 1] -= shift;
    pos[o + C_DISTINCT_ID] -= shift;
    pos[o + C_DISTINCT_ID + 1] -= shift;
    pos[o + C_PROPERTIES] -= shift;
    pos[o + C_PROPERTIES + 1] -= shift;
    if (flags & F_SESSION_ID) {
      pos[o + C_SESSION_ID] -= shift;
      pos[o + C_SESSION_ID + 1] -= shift;
    }
    if (flags & F_ELEMENTS_CHAIN) {
      pos[o + C_ELEMENTS_CHAIN] -= shift;
      pos[o + C_ELEMENTS_CHAIN + 1] -= shift;
    }
  }
}

/**
 * Turns events encoded ahead ({@link encodeEventsAhead}) into the record's line and compact events: the header is
 * written at the end of the reserve, and every offset rebased to the line's first byte. Takes `enc` over.
 */
export function completeEncoded(seq: number, projectId: number, enc: EncodedEvents): { line: Buffer; compact: CompactEvents } {
  const header = recordHeader(seq, projectId);
  const shift = HEADER_RESERVE - header.length;
  if (
    shift < 0 ||
    enc.lineEnd <= HEADER_RESERVE ||
    enc.lineEnd > enc.raw.length ||
    enc.pos.length !== enc.n * C_STRIDE ||
    enc.times.length !== enc.n * 2
  )
    throw new Error('encoded events do not fit their record');
  const all = Buffer.from(enc.raw.buffer, enc.raw.byteOffset, enc.raw.byteLength);
  w(all).latin1Write(header, shift);
  const buf = all.subarray(shift);
  rebase(enc.pos, enc.n, shift);
  const lineBytes = enc.lineEnd - shift;
  return { line: buf.subarray(0, lineBytes), compact: { n: enc.n, buf, lineBytes, pos: enc.pos, times: enc.times, identity: enc.identity } };
}

function encodeWithPrefix(prefix: string, events: ParsedEvent[]): { line: Buffer; compact: CompactEvents } {
  const n = events.length;
  const at = new Uint32Array(n * C_STRIDE);
  const times = new Float64Array(n * 2);
  let identity: IdentityEntry[] | null = null;
  let pos = putAscii(recStart, prefix);
  pos = room(pos, 1);
  slab[pos++] = 0x5b; // [
  for (let i = 0; i < n; i++) {
    const e = events[i];
    const o = i * C_STRIDE;
    let flags = e.uuidGenerated ? F_UUID_GENERATED : 0;
    pos = room(pos, 2);
    if (i) slab[pos++] = 0x2c; // ,
    slab[pos++] = 0x5b; // [
    at[o + C_UUID] = pos + 1 - recStart;
    pos = putJsonString(pos, e.uuid);
    // A uuid is canonical (36 hex digits and dashes) by the time it is logged; anything else is not stored as one.
    if (escaped || e.uuid.length !== 36) throw new Error(`event uuid is not canonical: ${e.uuid.slice(0, 40)}`);
    pos = putComma(pos);
    at[o + C_EVENT] = pos + 1 - recStart;
    pos = putJsonString(pos, e.event);
    if (escaped) flags |= ESCAPED_EVENT;
    else at[o + C_EVENT + 1] = pos - 1 - recStart;
    pos = putComma(pos);
    at[o + C_DISTINCT_ID] = pos + 1 - recStart;
    pos = putJsonString(pos, e.distinct_id);
    if (escaped) flags |= ESCAPED_DISTINCT_ID;
    else at[o + C_DISTINCT_ID + 1] = pos - 1 - recStart;
    pos = putComma(pos);
    pos = putNumber(pos, e.timestamp);
    pos = putComma(pos);
    pos = putNumber(pos, e.created_at);
    pos = putComma(pos);
    const pj = e.propertiesJson;
    // '' is what a detached event holds after it was logged: writing it would make an unparseable line, and
    // replay stops at the first one (dropping every record after it). Logging an event twice is refused instead.
    if (pj.length === 0) throw new Error(`event ${e.uuid} has no properties text (an event object can be logged once)`);
    pos = room(pos, pj.length * 3 + 1);
    at[o + C_PROPERTIES] = pos - recStart;
    pos += w(slab).utf8Write(pj, pos);
    at[o + C_PROPERTIES + 1] = pos - recStart;
    if (e.elements_chain !== null) {
      pos = putComma(pos);
      pos = putJsonString(pos, e.elements_chain);
    }
    pos = room(pos, 1);
    slab[pos++] = 0x5d; // ]
    times[2 * i] = e.timestamp;
    times[2 * i + 1] = e.created_at;
    if (e.session_id !== null) flags |= F_SESSION_ID;
    if (e.elements_chain !== null) flags |= F_ELEMENTS_CHAIN;
    if (e.groups) flags |= F_GROUPS;
    if (e.event.charCodeAt(0) === 0x24 /* $ */)
      flags |= e.event === '$identify' ? F_IDENTIFY : e.event === '$create_alias' ? F_CREATE_ALIAS : e.event === '$merge_dangerously' ? F_MERGE_DANGEROUSLY : 0;
    at[o + C_FLAGS] = flags;
    const ident = e.properties;
    if (ident !== EMPTY_IDENTITY && hasKeys(ident)) {
      const derived = ident[DERIVED_KEY];
      (identity ??= new Array<IdentityEntry>(n).fill(EMPTY_IDENTITY))[i] = typeof derived === 'string' && onlyKey(ident, DERIVED_KEY) ? derived : ident;
    }
  }
  pos = putAscii(pos, ']}\n');
  const lineBytes = pos - recStart;
  // Side bytes: raw text of the strings the line holds escaped, and the two extracted columns.
  for (let i = 0; i < n; i++) {
    const e = events[i];
    const o = i * C_STRIDE;
    const flags = at[o + C_FLAGS];
    if (flags & ESCAPED_EVENT) {
      at[o + C_EVENT] = pos - recStart;
      pos = putRaw(pos, e.event);
      at[o + C_EVENT + 1] = pos - recStart;
    }
    if (flags & ESCAPED_DISTINCT_ID) {
      at[o + C_DISTINCT_ID] = pos - recStart;
      pos = putRaw(pos, e.distinct_id);
      at[o + C_DISTINCT_ID + 1] = pos - recStart;
    }
    if (e.session_id !== null) {
      at[o + C_SESSION_ID] = pos - recStart;
      pos = putRaw(pos, e.session_id);
      at[o + C_SESSION_ID + 1] = pos - recStart;
    }
    if (e.elements_chain !== null) {
      at[o + C_ELEMENTS_CHAIN] = pos - recStart;
      pos = putRaw(pos, e.elements_chain);
      at[o + C_ELEMENTS_CHAIN + 1] = pos - recStart;
    }
    at[o + C_FLAGS] = flags & ~(ESCAPED_EVENT | ESCAPED_DISTINCT_ID);
  }
  const buf = slab.subarray(recStart, pos);
  const line = buf.subarray(0, lineBytes);
  recStart = pos;
  if (slab.length - recStart < 64 * 1024) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    recStart = 0;
  }
  return { line, compact: { n, buf, lineBytes, pos: at, times, identity } };
}

/** Encoder-internal flags: the string was escaped in the line, its raw text goes to the side bytes. */
const ESCAPED_EVENT = 1 << 20;
const ESCAPED_DISTINCT_ID = 1 << 21;

/** Encodes one record as a log line (with trailing newline). */
export function encodeRecord(r: WalRecord): string {
  return `${recordHeader(r.seq, r.projectId)}${encodeEvents(r.events)}}\n`;
}

/** Decodes one log line; throws when it is torn or corrupt. */
export function decodeRecord(line: string): WalRecord {
  const o = JSON.parse(line) as { s: number; p: number; e: [string, string, string, number, number, Record<string, unknown>, unknown?][] };
  if (typeof o.s !== 'number' || typeof o.p !== 'number' || !Array.isArray(o.e)) throw new Error('bad record');
  return {
    seq: o.s,
    projectId: o.p,
    events: o.e.map(([uuid, event, distinct_id, timestamp, created_at, properties, chain]) => {
      if (typeof properties !== 'object' || properties === null) throw new Error('bad record');
      return {
      uuid,
      event,
      distinct_id,
      properties,
      propertiesJson: JSON.stringify(properties),
      timestamp,
      created_at,
      session_id: typeof properties.$session_id === 'string' ? properties.$session_id : null,
      // the 7th item; logs written before chains left the properties have it there
      elements_chain: typeof chain === 'string' ? chain : typeof properties.$elements_chain === 'string' ? properties.$elements_chain : null,
      // Not recorded in the log: a replayed generated uuid goes through the duplicate check (it never matches).
      uuidGenerated: false,
      groups: event === '$groupidentify' || properties.$groups !== undefined,
      };
    }),
  };
}

export class Wal {
  /** Called with each durable group, in sequence order. */
  onDurable: (records: WalRecord[]) => void = () => undefined;
  private segments: Segment[] = [];
  private current: { seg: Segment; fh: fsp.FileHandle; size: number } | null = null;
  private pending: Pending[] = [];
  private writing = false;
  private nextSeq = 1;
  private closed = false;
  private readonly segmentBytes: number;
  private readonly fsync: boolean;
  private readonly compact: boolean;
  private idleWaiters: (() => void)[] = [];

  private constructor(
    readonly dir: string,
    opts: WalOptions,
  ) {
    this.segmentBytes = opts.segmentBytes ?? 64 * 1024 * 1024;
    this.fsync = opts.fsync ?? true;
    this.compact = opts.compact ?? false;
  }

  static async open(dir: string, opts: WalOptions = {}): Promise<Wal> {
    await fsp.mkdir(dir, { recursive: true });
    const w = new Wal(dir, opts);
    const names = (await fsp.readdir(dir)).filter((n) => SEGMENT_RE.test(n)).sort();
    w.segments = names.map((n) => {
      const first = Number(SEGMENT_RE.exec(n)![1]);
      return { firstSeq: first, lastSeq: first - 1, file: path.join(dir, n) };
    });
    return w;
  }

  /**
   * Reads every record with seq > `afterSeq`, repairing a torn tail (the file is truncated after the last
   * complete line). Also fixes the next sequence number. Call once, before the first append.
   */
  async readAfter(afterSeq: number, onRecord: (r: WalRecord) => void): Promise<{ records: number; tornBytes: number }> {
    let maxSeq = afterSeq;
    let count = 0;
    let tornBytes = 0;
    for (let i = 0; i < this.segments.length; i++) {
      const seg = this.segments[i];
      const buf = await fsp.readFile(seg.file);
      let pos = 0;
      let goodEnd = 0;
      while (pos < buf.length) {
        const nl = buf.indexOf(0x0a, pos);
        if (nl < 0) break;
        const line = buf.subarray(pos, nl).toString('utf8');
        let rec: WalRecord | null = null;
        try {
          rec = decodeRecord(line);
        } catch {
          rec = null;
        }
        if (!rec) break;
        seg.lastSeq = Math.max(seg.lastSeq, rec.seq);
        maxSeq = Math.max(maxSeq, rec.seq);
        if (rec.seq > afterSeq) {
          onRecord(rec);
          count++;
        }
        pos = nl + 1;
        goodEnd = pos;
      }
      if (goodEnd < buf.length) {
        tornBytes += buf.length - goodEnd;
        // Only the tail of a segment can be torn (a crash mid-write); cut it so later appends stay parseable.
        await fsp.truncate(seg.file, goodEnd);
      }
    }
    this.nextSeq = maxSeq + 1;
    return { records: count, tornBytes };
  }

  /** Sets the next sequence number to at least `seq + 1` (e.g. from the database checkpoint). */
  ensureSeqAfter(seq: number): void {
    if (this.nextSeq <= seq) this.nextSeq = seq + 1;
  }

  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  /**
   * Appends one record; resolves once it is on disk (fdatasync). The record takes the events over:
   * with `compact` the record keeps them as {@link CompactEvents}, their `propertiesJson` is cleared and the
   * `events` array itself is emptied.
   */
  append(projectId: number, events: ParsedEvent[]): Promise<number> {
    if (this.closed) return Promise.reject(new Error('ingest log is closed'));
    // The sequence number is taken only once the line is encoded: a refused record leaves no gap.
    const record: WalRecord = { seq: this.nextSeq, projectId, events };
    let line: Buffer;
    try {
      if (this.compact) {
        const enc = encodeCompact(record.seq, projectId, events);
        line = enc.line;
        record.compact = enc.compact;
        record.events = [];
        for (const e of events) e.propertiesJson = '';
        // The caller's array is emptied too: a request handler holds it until the fsync, and whatever a young GC
        // finds reachable then is copied (and eventually promoted); the record needs none of these objects.
        events.length = 0;
      } else line = encodeRecordBytes(record.seq, projectId, events).line;
    } catch (e) {
      return Promise.reject(e as Error);
    }
    this.nextSeq++;
    record.line = line;
    return this.enqueue(record);
  }

  /**
   * Appends one record of events encoded ahead ({@link encodeEventsAhead}, e.g. by a parse worker); resolves once it
   * is on disk, like {@link append}. The record takes `enc` over (its buffer becomes the record's bytes).
   */
  appendEncoded(projectId: number, enc: EncodedEvents): Promise<number> {
    if (this.closed) return Promise.reject(new Error('ingest log is closed'));
    let done: { line: Buffer; compact: CompactEvents };
    try {
      done = completeEncoded(this.nextSeq, projectId, enc);
    } catch (e) {
      return Promise.reject(e as Error);
    }
    const record: WalRecord = { seq: this.nextSeq++, projectId, events: [], line: done.line, compact: done.compact };
    return this.enqueue(record);
  }

  private enqueue(record: WalRecord): Promise<number> {
    const line = record.line!;
    return new Promise<number>((resolve, reject) => {
      this.pending.push({ record, line, resolve: () => resolve(record.seq), reject });
      if (!this.writing) void this.drain();
    });
  }

  private async openSegment(firstSeq: number): Promise<void> {
    if (this.current) {
      await this.current.fh.close();
      this.current = null;
    }
    const seg: Segment = { firstSeq, lastSeq: firstSeq - 1, file: path.join(this.dir, segmentName(firstSeq)) };
    const fh = await fsp.open(seg.file, 'a');
    const st = await fh.stat();
    if (this.fsync) await fsyncDir(this.dir);
    // A leftover empty segment with the same name (crash right after creating it) is reused, not listed twice.
    this.segments = this.segments.filter((s) => s.file !== seg.file);
    this.segments.push(seg);
    this.current = { seg, fh, size: st.size };
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.pending.length) {
        const group = this.pending.splice(0);
        try {
          if (!this.current || this.current.size >= this.segmentBytes) await this.openSegment(group[0].record.seq);
          const cur = this.current!;
          const lines = group.map((p) => p.line);
          let total = 0;
          for (const l of lines) total += l.length;
          // One writev for the group (libuv writes all of it, resuming after short writes); should it still
          // come back short, the rest is written from a copy.
          const { bytesWritten } = await cur.fh.writev(lines);
          if (bytesWritten < total) {
            const rest = Buffer.concat(lines).subarray(bytesWritten);
            let off = 0;
            while (off < rest.length) off += (await cur.fh.write(rest, off, rest.length - off)).bytesWritten;
          }
          const bufLength = total;
          if (this.fsync) await cur.fh.datasync();
          cur.size += bufLength;
          cur.seg.lastSeq = group[group.length - 1].record.seq;
        } catch (e) {
          // A failed write (ENOSPC, EIO) may have left part of the group in the file. Cut it off, or the next
          // group would follow a torn line, and replay, which stops at the first bad line, would drop every
          // record after it. If the cut fails too, the next group starts a new segment.
          const cur = this.current;
          if (cur) {
            try {
              await cur.fh.truncate(cur.size);
            } catch {
              this.current = null;
              await cur.fh.close().catch(() => undefined);
            }
          }
          for (const p of group) p.reject(e as Error);
          continue;
        }
        try {
          this.onDurable(group.map((p) => p.record));
        } finally {
          for (const p of group) p.resolve();
        }
      }
    } finally {
      this.writing = false;
      for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  /** Resolves when no write is in flight. */
  idle(): Promise<void> {
    if (!this.writing && this.pending.length === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /** Deletes segments whose records are all applied (seq ≤ appliedSeq), except the one being written. */
  async release(appliedSeq: number): Promise<void> {
    const keep: Segment[] = [];
    for (const s of this.segments) {
      const isCurrent = this.current?.seg === s;
      if (!isCurrent && s.lastSeq <= appliedSeq) await fsp.rm(s.file, { force: true });
      else keep.push(s);
    }
    this.segments = keep;
  }

  /** Total bytes in the log's segments (for diagnostics/tests). */
  sizeBytes(): number {
    let n = 0;
    for (const s of this.segments) {
      try {
        n += fs.statSync(s.file).size;
      } catch {
        /* removed */
      }
    }
    return n;
  }

  async close(): Promise<void> {
    await this.idle();
    this.closed = true;
    if (this.current) {
      await this.current.fh.close();
      this.current = null;
    }
  }
}

async function fsyncDir(dir: string): Promise<void> {
  try {
    const fh = await fsp.open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    /* not supported on this platform */
  }
}
