/**
 * Durable group-commit ingest: capture → write-ahead log (fsync, grouped) → acknowledge → background flusher
 * (identity + DuckDB appender, one transaction per batch, checkpoint in the same transaction).
 *
 * Guarantees:
 * - `capture()` resolves only once its events are fsynced to the log; a crash after that loses nothing: on
 *   start, log records after the DuckDB checkpoint are replayed, in order, through the same path.
 * - Events are deduplicated by (project, uuid) within a batch and against a bounded set of recently stored
 *   uuids (loaded at start from events created in the last {@link IngestorOptions.dedupWindowMs}). Because the
 *   checkpoint commits atomically with the events, replay never re-applies a committed record; the recent set
 *   catches client retries. Duplicates older than the window or beyond the set's capacity are not detected.
 * - Everything acknowledged is queryable within ~`flushIntervalMs` (+ apply time) under normal load.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { EventEngine, EventInsert, GroupRow, GroupTypeRow, WriteBatch } from '../engines/engine';
import { validationError } from '../errors';
import { DuckDbEngine, type DuckDbWriteBatch, type EngineLogger, type EventSlice } from '../engines/duckdb/duckdb-engine';
import { CaptureError, normalizeEvent, parseTimestamp, slimProperties, type ParsedEvent } from './capture-payload';
import { IdentityStore, type IdentityEvent, type IdentityLoader } from './identity';
import { GroupStore, propertiesJsonText, type ProjectGroups } from './groups';
import {
  C_DISTINCT_ID,
  C_FLAGS,
  C_PROPERTIES,
  C_STRIDE,
  C_UUID,
  F_CREATE_ALIAS,
  F_GROUPS,
  F_IDENTIFY,
  F_MERGE_DANGEROUSLY,
  F_UUID_GENERATED,
  Wal,
  compactEvent,
  encodeRecord,
  eventCount,
  latin1Text,
  utf8Text,
  type CompactEvents,
  type EncodedEvents,
  type IdentityEntry,
  type WalRecord,
} from './wal';
import { importNdjsonFile, type ImportFileSummary } from './import-file';
import { importFileNative, type NativeImportOptions } from './native-import';
import { RecentUuids } from './recent-uuids';
import { DERIVED_KEY, withPersonInitialProperties } from './person-initial-properties';
import { uuidFromDistinctId } from './person-uuid';

/**
 * Whether an apply error may be caused by the records themselves (a value DuckDB refuses). I/O and resource
 * errors are not: those are retried forever (capture answers 503 under backpressure) and nothing is set aside.
 */
function isDataError(e: unknown): boolean {
  return !/IO Error|I\/O|disk|No space|ENOSPC|EIO|Permission|read-only|Could not (write|open)|out of memory|closed|invalidated|FATAL/i.test(
    (e as Error)?.message ?? '',
  );
}

export interface IngestorOptions {
  dataDir: string;
  engine: EventEngine;
  logger?: EngineLogger;
  /** How often the flusher applies the log to DuckDB. Default 200 ms. */
  flushIntervalMs?: number;
  /**
   * Most events applied in one DuckDB transaction (and, once this many are queued, applying starts without waiting
   * for the next tick). Default 8,192. Applying runs on the event loop (identity, then the appender), so a batch
   * delays every request that completes meanwhile: 50,000-event batches (when the flusher fell behind) held the
   * loop for 100–400 ms on a busy 2-core box, 8,192-event ones for a few tens of ms, with the loop free between
   * transactions. CPU per event: no difference measurable in the capture bench (2,048 cost ~1.7× in an apply
   * harness: per-transaction overhead).
   */
  maxBatchEvents?: number;
  /** Acknowledged-but-unapplied events above which capture waits (backpressure). Default 500,000. */
  maxQueuedEvents?: number;
  /** fdatasync the log per group. Default true. Off only for tests/benchmarks that accept loss on power failure. */
  fsync?: boolean;
  /** Capacity of the recent-uuid dedup set. Default 1,000,000. */
  dedupCapacity?: number;
  /** Events created within this window are loaded into the dedup set at start. Default 15 minutes. */
  dedupWindowMs?: number;
}

/** A person row in an import. */
export interface ImportPerson {
  id?: string;
  distinct_ids: string[];
  properties?: Record<string, unknown>;
  /** ISO 8601 or epoch ms; default: now. Kept as given. */
  created_at?: string | number;
  is_identified?: boolean;
}

export interface ImportError {
  index: number;
  kind: 'person' | 'event';
  message: string;
}

export interface ImportResult {
  imported: { persons: number; events: number };
  errors: ImportError[];
  /** Events skipped because their (project, uuid) was already stored. */
  duplicates: number;
}

class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Keeps of a captured event only what applying it needs: the properties JSON text (complete), the two extracted
 * columns, and as objects only the identity keys. The full property trees would otherwise live until the next
 * flush (~200 ms), long enough to be promoted to V8's old generation: slimming them right away made them
 * young-generation garbage (capture spent ~14% of its time in GC).
 */
export function slimForApply(ev: ParsedEvent): void {
  ev.properties = slimProperties(ev.properties, ev.event);
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const NO_IDENTITY: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;
/** One object reused for every compact event handed to identity (processEvent keeps none of its argument). */
const scratchEvent: IdentityEvent = { event: '', distinct_id: '', properties: NO_IDENTITY, timestamp: 0, full: undefined, creatorUuid: undefined };

/** The compact event whose whole properties {@link scratchFull} parses (set before each identity call). */
let scratchRecord: CompactEvents | null = null;
let scratchIndex = 0;
/** The whole properties of the current compact event, parsed from its logged text (only when identity asks). */
const scratchFull = (): Record<string, unknown> => {
  const c = scratchRecord!;
  const o = scratchIndex * C_STRIDE;
  return JSON.parse(utf8Text(c.buf, c.pos[o + C_PROPERTIES], c.pos[o + C_PROPERTIES + 1])) as Record<string, unknown>;
};

/** The uuid of the current compact event (read only when it creates a person: `$creator_event_uuid`). */
const scratchUuid = (): string => {
  const c = scratchRecord!;
  const u = c.pos[scratchIndex * C_STRIDE + C_UUID];
  return latin1Text(c.buf, u, u + 36);
};

/** One object reused for captured events in object form handed to identity, and the uuid it reports. */
const scratchObjectEvent: IdentityEvent = { event: '', distinct_id: '', properties: NO_IDENTITY, timestamp: 0, full: undefined, creatorUuid: undefined };
let scratchObjectUuid = '';
const objectUuid = (): string => scratchObjectUuid;

/** A captured event in object form (its properties whole) as identity sees it. */
function capturedIdentityEvent(ev: ParsedEvent, properties: Record<string, unknown>): IdentityEvent {
  scratchObjectEvent.event = ev.event;
  scratchObjectEvent.distinct_id = ev.distinct_id;
  scratchObjectEvent.properties = properties;
  scratchObjectEvent.timestamp = ev.timestamp;
  scratchObjectUuid = ev.uuid;
  scratchObjectEvent.creatorUuid = objectUuid;
  return scratchObjectEvent;
}

/**
 * A compact event as identity sees it. Identity reads the name only to recognise `$identify`, `$create_alias` and
 * `$merge_dangerously` (flagged at encoding), so other names are not decoded.
 */
/** One object reused for identity entries in their text form (wal.ts IdentityEntry). */
const scratchDerived: Record<string, unknown> = { [DERIVED_KEY]: '' };

function identityEvent(
  distinctId: string,
  flags: number,
  entry: IdentityEntry | undefined,
  timestamp: number,
  c: CompactEvents,
  i: number,
): IdentityEvent {
  let props: Record<string, unknown> | undefined;
  if (typeof entry === 'string') {
    scratchDerived[DERIVED_KEY] = entry;
    props = scratchDerived;
  } else props = entry;
  scratchRecord = c;
  scratchIndex = i;
  scratchEvent.full = scratchFull;
  scratchEvent.creatorUuid = scratchUuid;
  scratchEvent.event =
    flags & F_IDENTIFY ? '$identify' : flags & F_CREATE_ALIAS ? '$create_alias' : flags & F_MERGE_DANGEROUSLY ? '$merge_dangerously' : '';
  scratchEvent.distinct_id = distinctId;
  scratchEvent.properties = props ?? NO_IDENTITY;
  scratchEvent.timestamp = timestamp;
  return scratchEvent;
}

export class Ingestor {
  private readonly queue: WalRecord[] = [];
  private queuedEvents = 0;
  private applying: Promise<void> | null = null;
  private lastError: Error | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly lock = new Mutex();
  private readonly identity: IdentityStore;
  private readonly groups: GroupStore;
  private readonly recent: RecentUuids;
  private closed = false;
  private appliedSeq = 0;
  private segmentsToRelease = false;
  /** Totals since start (diagnostics). */
  readonly stats = { captured: 0, applied: 0, duplicates: 0, batches: 0, replayed: 0, rejected: 0 };
  private failures = 0;

  private constructor(
    private readonly engine: EventEngine,
    private readonly wal: Wal,
    private readonly opts: Required<Omit<IngestorOptions, 'logger' | 'engine' | 'dataDir'>>,
    private readonly logger?: EngineLogger,
  ) {
    // The engine's own statement (DuckDB or ClickHouse SQL): nothing here is spelled for one engine.
    const loader: IdentityLoader = { loadProject: (projectId) => engine.loadIdentity(projectId) };
    this.identity = new IdentityStore(loader);
    this.groups = new GroupStore({ loadGroups: (projectId) => engine.loadGroups(projectId) });
    this.recent = new RecentUuids(opts.dedupCapacity);
  }

  /** Opens the log under `<dataDir>/ingest-log`, replays unapplied records into the engine, starts the flusher. */
  static async open(o: IngestorOptions): Promise<Ingestor> {
    const opts = {
      flushIntervalMs: o.flushIntervalMs ?? 200,
      maxBatchEvents: o.maxBatchEvents ?? 8192,
      maxQueuedEvents: o.maxQueuedEvents ?? 500_000,
      fsync: o.fsync ?? true,
      dedupCapacity: o.dedupCapacity ?? 1_000_000,
      dedupWindowMs: o.dedupWindowMs ?? 15 * 60_000,
    };
    const wal = await Wal.open(path.join(o.dataDir, 'ingest-log'), { fsync: opts.fsync, compact: true });
    const ing = new Ingestor(o.engine, wal, opts, o.logger);
    const checkpoint = await o.engine.getCheckpoint();
    ing.appliedSeq = checkpoint;
    const since = new Date(Date.now() - opts.dedupWindowMs);
    for (const [p, u] of await o.engine.recentEventUuids(since, Math.floor(opts.dedupCapacity / 2))) ing.recent.add(p, u);
    const replay = await wal.readAfter(checkpoint, (rec) => {
      ing.queue.push(rec);
      ing.queuedEvents += eventCount(rec);
    });
    wal.ensureSeqAfter(checkpoint);
    if (replay.records || replay.tornBytes)
      o.logger?.info({ records: replay.records, tornBytes: replay.tornBytes, checkpoint }, 'replaying ingest log');
    ing.stats.replayed = ing.queuedEvents;
    await ing.flush();
    await wal.release(ing.appliedSeq);
    wal.onDurable = (recs) => {
      for (const r of recs) {
        ing.queue.push(r);
        ing.queuedEvents += eventCount(r);
      }
      if (ing.queuedEvents >= opts.maxBatchEvents) void ing.runApply();
    };
    ing.timer = setInterval(() => void ing.runApply(), opts.flushIntervalMs);
    ing.timer.unref();
    return ing;
  }

  /**
   * Durably logs the events; resolves after fsync (they reach DuckDB shortly after). The log takes the events over:
   * each can be logged once, and `events` is left empty (the queued record holds them as bytes).
   */
  async capture(projectId: number, events: ParsedEvent[]): Promise<void> {
    if (this.closed) throw new Error('ingestor is closed');
    if (events.length === 0) return;
    await this.backpressure();
    for (const ev of events) slimForApply(ev);
    const n = events.length;
    // Nothing of `events` is used after the append: the log record holds the events (compactly) from here on.
    await this.wal.append(projectId, events);
    this.stats.captured += n;
  }

  /** {@link capture} for events already encoded for the log (by a parse worker); takes `encoded` over. */
  async captureEncoded(projectId: number, encoded: EncodedEvents): Promise<void> {
    if (this.closed) throw new Error('ingestor is closed');
    if (encoded.n === 0) return;
    await this.backpressure();
    await this.wal.appendEncoded(projectId, encoded);
    this.stats.captured += encoded.n;
  }

  /** Waits while too many acknowledged events are not applied yet. */
  private async backpressure(): Promise<void> {
    while (this.queuedEvents > this.opts.maxQueuedEvents) {
      await this.runApply();
      if (this.lastError) throw this.lastError;
    }
  }

  /** Applies queued records to DuckDB until the queue is empty or an apply fails. */
  private runApply(): Promise<void> {
    if (this.applying) return this.applying;
    if (this.queue.length === 0) return Promise.resolve();
    this.applying = (async () => {
      try {
        while (this.queue.length) {
          let n = 0;
          let k = 0;
          // After a failure, records go one at a time so a bad one can be isolated.
          const max = this.failures > 0 ? 1 : Infinity;
          while (
            k < this.queue.length &&
            k < max &&
            (k === 0 || n + eventCount(this.queue[k]) <= this.opts.maxBatchEvents)
          ) {
            n += eventCount(this.queue[k]);
            k++;
          }
          const records = this.queue.slice(0, k);
          try {
            await this.lock.run(() => this.applyRecords(records));
          } catch (e) {
            this.failures++;
            if (!isDataError(e)) throw e; // I/O or resources: retried on the next tick, nothing dropped
            if (k === 1 && this.failures >= 3) {
              await this.reject(records[0], e as Error);
              this.failures = 0;
            }
            continue;
          }
          this.failures = 0;
          this.queue.splice(0, k);
          this.queuedEvents -= n;
          this.lastError = null;
        }
        if (this.segmentsToRelease) {
          this.segmentsToRelease = false;
          await this.wal.release(this.appliedSeq);
        }
      } catch (e) {
        this.lastError = e as Error;
        this.logger?.error({ err: (e as Error).message }, 'ingest flush failed; will retry');
      } finally {
        this.applying = null;
      }
    })();
    return this.applying;
  }

  /**
   * A record DuckDB refuses for its content (not for I/O) would block ingestion forever: it is written to
   * `<dataDir>/ingest-log/rejected/<seq>.ndjson` for inspection, logged, and the checkpoint moves past it.
   */
  private async reject(rec: WalRecord, err: Error): Promise<void> {
    const dir = path.join(this.wal.dir, 'rejected');
    await fsp.mkdir(dir, { recursive: true });
    await fsp.writeFile(path.join(dir, `${rec.seq}.ndjson`), rec.line ?? encodeRecord(rec));
    this.logger?.error({ seq: rec.seq, project_id: rec.projectId, events: eventCount(rec), err: err.message }, 'ingest record rejected by the event store');
    await this.lock.run(() => this.engine.writeBatch({ events: [], checkpoint: rec.seq }));
    this.invalidateState();
    this.queue.shift();
    this.queuedEvents -= eventCount(rec);
    this.appliedSeq = rec.seq;
    this.stats.rejected += eventCount(rec);
  }

  private toInsert(projectId: number, ev: ParsedEvent, personId: string | null): EventInsert {
    return {
      project_id: projectId,
      uuid: ev.uuid,
      event: ev.event,
      distinct_id: ev.distinct_id,
      person_id: personId,
      timestamp: ev.timestamp,
      properties: ev.propertiesJson,
      session_id: ev.session_id,
      elements_chain: ev.elements_chain,
      created_at: ev.created_at,
    };
  }

  /** Event i of a logged record (object form) as an insert. */
  private recordInsert(rec: WalRecord, i: number, personId: string | null): EventInsert {
    return this.toInsert(rec.projectId, rec.events[i], personId);
  }

  /** Forgets the in-memory identity and groups (of one project, or all): they are reloaded from the engine on next use. */
  private invalidateState(projectId?: number): void {
    this.identity.invalidate(projectId);
    this.groups.invalidate(projectId);
  }

  /**
   * The persons these person ids are now, in order: a merged-away person's id gives the person it merged into, any
   * other id itself (static cohorts follow their persons through merges with it: src/cohorts/cohort-loader.ts).
   */
  async resolvePersonIds(projectId: number, ids: string[]): Promise<string[]> {
    await this.identity.ensureLoaded(projectId);
    const ident = this.identity.get(projectId);
    return ids.map((id) => ident.resolvePersonId(id));
  }

  /** Loads the identity and groups of a project (once). */
  private async ensureLoaded(projectId: number): Promise<void> {
    await this.identity.ensureLoaded(projectId);
    await this.groups.ensureLoaded(projectId);
  }

  /**
   * Groups of one event (groups.ts): false when the event is not to be stored. When it got `$group_N` properties,
   * its properties text is made again.
   */
  private applyGroups(grp: ProjectGroups, ev: ParsedEvent): boolean {
    const out = grp.processEvent(ev);
    if (out === 'changed') ev.propertiesJson = propertiesJsonText(ev.properties);
    return out !== 'drop';
  }

  /** Moves the identity and group changes of every loaded project into the batch (and logs ingestion warnings). */
  private drainIdentity(batch: WriteBatch): void {
    batch.persons = [];
    batch.newPersons = [];
    batch.deletedPersons = [];
    batch.distinctIds = [];
    batch.newDistinctIds = [];
    batch.overrides = [];
    for (const pid of this.identity.loaded()) {
      const d = pid.drain();
      for (const r of d.persons) batch.persons.push(r);
      for (const r of d.newPersons) batch.newPersons.push(r);
      for (const r of d.deletedPersons) batch.deletedPersons.push(r);
      for (const r of d.distinctIds) batch.distinctIds.push(r);
      for (const r of d.newDistinctIds) batch.newDistinctIds.push(r);
      for (const r of d.overrides) batch.overrides.push(r);
      for (const w of d.warnings) this.logger?.warn({ project_id: pid.projectId, ...w }, 'ingestion warning');
    }
    batch.groups = [];
    batch.groupTypes = [];
    for (const pg of this.groups.loaded()) {
      const d = pg.drain();
      for (const r of d.groups) batch.groups.push(r);
      for (const r of d.groupTypes) batch.groupTypes.push(r);
      if (d.dropped)
        this.logger?.warn(
          { project_id: pg.projectId, type: 'invalid_event_when_process_person_profile_is_false', details: { event: '$groupidentify', count: d.dropped } },
          'ingestion warning',
        );
    }
  }

  private async applyRecords(records: WalRecord[]): Promise<void> {
    for (const pid of new Set(records.map((r) => r.projectId))) await this.ensureLoaded(pid);
    const seen = new Map<number, Set<string>>();
    const events: EventInsert[] = [];
    const slices: EventSlice[] = [];
    const duck = this.engine instanceof DuckDbEngine;
    let applied = 0;
    let dups = 0;
    try {
      for (const rec of records) {
        const ident = this.identity.get(rec.projectId);
        const grp = this.groups.get(rec.projectId);
        const isDup = this.recent.checker(rec.projectId, seen);
        const c = rec.compact;
        if (c) {
          const persons: (string | null)[] = new Array(c.n);
          const rows: number[] = [];
          // Events that concern groups (flagged when parsed) are parsed whole; one that got `$group_N` is inserted
          // from its new text.
          for (let i = 0; i < c.n; i++) {
            const o = i * C_STRIDE;
            const flags = c.pos[o + C_FLAGS];
            const candidate = (flags & F_GROUPS) !== 0;
            if (!(flags & F_UUID_GENERATED) && isDup(latin1Text(c.buf, c.pos[o + C_UUID], c.pos[o + C_UUID] + 36))) {
              dups++;
              continue;
            }
            let rewritten: ParsedEvent | null = null;
            if (candidate) {
              const ev = compactEvent(c, i);
              const text = ev.propertiesJson;
              ev.properties = JSON.parse(text) as Record<string, unknown>;
              if (!this.applyGroups(grp, ev)) continue;
              if (ev.propertiesJson !== text) rewritten = ev;
            }
            const distinctId = utf8Text(c.buf, c.pos[o + C_DISTINCT_ID], c.pos[o + C_DISTINCT_ID + 1]);
            persons[i] = ident.processEvent(identityEvent(distinctId, flags, c.identity?.[i], c.times[2 * i], c, i));
            applied++;
            if (rewritten) events.push(this.toInsert(rec.projectId, rewritten, persons[i]));
            else if (duck) rows.push(i);
            else events.push(this.toInsert(rec.projectId, compactEvent(c, i), persons[i]));
          }
          if (duck && rows.length) slices.push({ projectId: rec.projectId, events: c, rows, personIds: persons });
          continue;
        }
        const evs = rec.events;
        for (let i = 0; i < evs.length; i++) {
          const ev = evs[i];
          if (!ev.uuidGenerated && isDup(ev.uuid)) {
            dups++;
            continue;
          }
          if (!this.applyGroups(grp, ev)) continue;
          // A record read back from the log holds the stored properties: the person properties captured events
          // derive (person-initial-properties.ts; idempotent) are derived again, as when they were captured.
          const pev = withPersonInitialProperties(ev.event, ev.properties);
          events.push(this.recordInsert(rec, i, ident.processEvent(capturedIdentityEvent(ev, pev))));
          applied++;
        }
      }
      const batch: DuckDbWriteBatch = { events, checkpoint: records[records.length - 1].seq };
      if (slices.length) batch.eventSlices = slices;
      this.drainIdentity(batch);
      await this.engine.writeBatch(batch);
    } catch (e) {
      // In-memory identity and groups may now be ahead of the database: reload them from the engine on next use.
      this.invalidateState();
      throw e;
    }
    this.recent.addAll(seen);
    this.appliedSeq = records[records.length - 1].seq;
    this.segmentsToRelease = true;
    this.stats.applied += applied;
    this.stats.duplicates += dups;
    this.stats.batches++;
  }

  /**
   * Imports persons then events (historical: timestamps kept as given, no skew correction) directly into DuckDB in
   * one transaction. Rows that fail validation are reported with their index; the others land. With `anonymizeIps`
   * (the project's `anonymize_ips`), events are stored without `$ip`, as captured ones are.
   */
  async import(projectId: number, input: { persons?: unknown[]; events?: unknown[] }, opts: { anonymizeIps?: boolean } = {}): Promise<ImportResult> {
    // Validation is pure and runs before taking the write lock, so it overlaps with the previous chunk's commit.
    const errors: ImportError[] = [];
    const now = Date.now();
    const persons: { index: number; row: Exclude<ReturnType<typeof validateImportPerson>, { error: string }> }[] = [];
    (input.persons ?? []).forEach((raw, index) => {
      const r = validateImportPerson(raw, now);
      if ('error' in r) errors.push({ index, kind: 'person', message: r.error });
      else persons.push({ index, row: r });
    });
    const parsed: ParsedEvent[] = [];
    const eventErrors: ImportError[] = [];
    (input.events ?? []).forEach((raw, index) => {
      try {
        parsed.push(normalizeEvent(raw, { now, historical: true, anonymizeIps: opts.anonymizeIps === true }));
      } catch (e) {
        if (e instanceof CaptureError) eventErrors.push({ index, kind: 'event', message: e.message });
        else throw e;
      }
    });
    return this.lock.run(async () => {
      await this.ensureLoaded(projectId);
      const ident = this.identity.get(projectId);
      const grp = this.groups.get(projectId);
      let personsOk = 0;
      try {
        for (const { index, row } of persons) {
          const res = ident.importPerson(row);
          if ('error' in res) errors.push({ index, kind: 'person', message: res.error });
          else personsOk++;
        }
        errors.sort((a, b) => a.index - b.index);
        const seen = new Map<number, Set<string>>();
        const events: EventInsert[] = [];
        let dups = 0;
        const isDup = this.recent.checker(projectId, seen);
        for (const ev of parsed) {
          if (!ev.uuidGenerated && isDup(ev.uuid)) {
            dups++;
            continue;
          }
          if (!this.applyGroups(grp, ev)) continue;
          events.push(this.toInsert(projectId, ev, ident.processEvent(ev)));
        }
        const batch: WriteBatch = { events };
        this.drainIdentity(batch);
        await this.engine.writeBatch(batch);
        this.recent.addAll(seen);
        this.stats.duplicates += dups;
        return { imported: { persons: personsOk, events: events.length }, errors: [...errors, ...eventErrors], duplicates: dups };
      } catch (e) {
        this.invalidateState();
        throw e;
      }
    });
  }

  /**
   * Imports an NDJSON file (optionally gzip) into a project. On DuckDB, DuckDB reads the file itself and JS runs
   * identity only for the rows that can change it (see native-import.ts); chunks it cannot read as plain NDJSON,
   * and other engines, go through {@link import} in chunks of `chunkRows`. Same summary as importNdjsonFile.
   */
  importFile(projectId: number, file: string, opts: NativeImportOptions = {}): Promise<ImportFileSummary> {
    const engine = this.engine;
    if (!(engine instanceof DuckDbEngine)) return importNdjsonFile(file, (c) => this.import(projectId, c), opts);
    return importFileNative(
      {
        engine,
        identity: this.identity,
        groups: this.groups,
        locked: (fn) => this.lock.run(fn),
        importRows: (p, chunk) => this.import(p, chunk),
        drainIdentity: (batch) => this.drainIdentity(batch),
        validatePerson: validateImportPerson,
        rememberUuids: (p, uuids) => {
          for (const u of uuids) this.recent.add(p, u);
        },
        rememberLimit: this.opts.dedupCapacity / 2,
        tmpDir: path.dirname(this.wal.dir),
      },
      projectId,
      file,
      opts,
    );
  }

  /** Resolves once everything acknowledged so far is in DuckDB. Throws if applying fails. */
  async flush(): Promise<void> {
    await this.wal.idle();
    while (this.queue.length) {
      await this.runApply();
      if (this.lastError && this.queue.length) throw this.lastError;
    }
  }

  /** Deletes a project's events and persons; queued unapplied events of the project are dropped. */
  deleteProject(projectId: number): Promise<void> {
    return this.lock.run(async () => {
      for (let i = this.queue.length - 1; i >= 0; i--)
        if (this.queue[i].projectId === projectId) {
          this.queuedEvents -= eventCount(this.queue[i]);
          this.queue[i] = { ...this.queue[i], events: [], compact: undefined };
        }
      await this.engine.deleteProject(projectId);
      this.invalidateState(projectId);
    });
  }

  /** Deletes a person (and with `deleteEvents` its events); later events of its distinct ids create a new person. */
  deletePerson(projectId: number, personId: string, deleteEvents: boolean): Promise<void> {
    return this.lock.run(async () => {
      await this.engine.deletePerson(projectId, personId, deleteEvents);
      this.identity.invalidate(projectId);
    });
  }

  /**
   * Splits a person (PostHog's split_person, ProjectIdentity.splitPerson), serialized with the flusher: the person's
   * distinct ids before the split; null when the person is not (or no longer) the project's.
   */
  splitPerson(projectId: number, personId: string, mainDistinctId: string | null, maxSplits: number | null = null): Promise<string[] | null> {
    return this.lock.run(async () => {
      await this.ensureLoaded(projectId);
      const ident = this.identity.get(projectId);
      const ids = ident.splitPerson(personId, mainDistinctId, (d) => uuidFromDistinctId(projectId, d), Date.now(), maxSplits);
      if (ids === null) return null;
      const d = ident.drain();
      try {
        await this.engine.writeBatch({
          events: [],
          persons: d.persons,
          newPersons: d.newPersons,
          distinctIds: d.distinctIds,
          newDistinctIds: d.newDistinctIds,
          deletedPersons: d.deletedPersons,
          overrides: d.overrides,
        });
      } catch (e) {
        this.identity.invalidate(projectId);
        throw e;
      }
      return ids;
    });
  }

  /**
   * Renames group types (PostHog's `update_metadata`): every index must be one of the project's group types, else a
   * validation error names it and nothing changes. Serialized with the flusher, so the in-memory group types stay the stored ones.
   */
  updateGroupTypeNames(
    projectId: number,
    rows: { group_type_index: number; name_singular?: string | null; name_plural?: string | null }[],
  ): Promise<void> {
    return this.lock.run(async () => {
      const types = new Map((await this.engine.listGroupTypes(projectId)).map((t) => [t.group_type_index, t]));
      const updated = new Map<number, GroupTypeRow>();
      for (const r of rows) {
        const t = updated.get(r.group_type_index) ?? types.get(r.group_type_index);
        if (!t) throw validationError(`Group type ${r.group_type_index} does not exist.`, 'group_type_index');
        updated.set(r.group_type_index, {
          ...t,
          name_singular: r.name_singular === undefined ? t.name_singular : r.name_singular,
          name_plural: r.name_plural === undefined ? t.name_plural : r.name_plural,
        });
      }
      if (!updated.size) return;
      await this.engine.writeBatch({ events: [], groupTypes: [...updated.values()].map((t) => ({ project_id: projectId, ...t })) });
      this.groups.invalidate(projectId);
    });
  }

  /**
   * Replaces the properties of one stored group with `update(properties)` (PostHog's group `update_property` /
   * `delete_property`, which save the group directly rather than through an event): the new version is written at
   * once, serialized with the flusher so the in-memory groups stay the stored ones. Null when there is no such group.
   */
  updateGroupProperties(
    projectId: number,
    groupTypeIndex: number,
    groupKey: string,
    update: (properties: Record<string, unknown>) => Record<string, unknown>,
  ): Promise<GroupRow | null> {
    return this.lock.run(async () => {
      await this.groups.ensureLoaded(projectId);
      const g = this.groups.get(projectId).group(groupTypeIndex, groupKey);
      if (!g) return null;
      const next: GroupRow = { ...g, properties: update({ ...g.properties }), version: g.version + 1 };
      try {
        await this.engine.writeBatch({ events: [], groups: [{ project_id: projectId, ...next }] });
      } finally {
        this.groups.invalidate(projectId);
      }
      return next;
    });
  }

  /** Deletes a group type and its groups; the index is free for the next new type (serialized with the flusher). */
  deleteGroupType(projectId: number, groupTypeIndex: number): Promise<void> {
    return this.lock.run(async () => {
      await this.engine.deleteGroupType(projectId, groupTypeIndex);
      this.groups.invalidate(projectId);
    });
  }

  /** Events acknowledged but not yet in DuckDB. */
  get pendingEvents(): number {
    return this.queuedEvents;
  }

  /** Flushes, stops the flusher and closes the log (the engine stays open; its owner closes it). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    try {
      await this.flush();
      await this.wal.release(this.appliedSeq);
    } finally {
      await this.wal.close();
    }
  }
}

export function validateImportPerson(
  raw: unknown,
  now: number,
): { id?: string; distinct_ids: string[]; properties: Record<string, unknown>; created_at: number; is_identified: boolean } | { error: string } {
  if (!isObj(raw)) return { error: 'a person must be a JSON object' };
  const ids = raw.distinct_ids;
  if (!Array.isArray(ids) || ids.length === 0) return { error: 'distinct_ids must be a non-empty array of strings' };
  const distinct_ids: string[] = [];
  for (const d of ids) {
    if ((typeof d !== 'string' && typeof d !== 'number') || String(d).trim() === '')
      return { error: 'distinct_ids must be a non-empty array of strings' };
    distinct_ids.push(String(d).slice(0, 200));
  }
  let id: string | undefined;
  // `uuid` is PostHog's name for it (Person.uuid, `_create_person(uuid=…)`)
  const given = raw.id ?? raw.uuid;
  if (given !== undefined && given !== null) {
    const field = raw.id !== undefined && raw.id !== null ? 'id' : 'uuid';
    if (typeof given !== 'string' || !UUID_RE.test(given)) return { error: `${field} must be a UUID` };
    if (raw.id != null && raw.uuid != null && String(raw.uuid).toLowerCase() !== given.toLowerCase()) return { error: 'id and uuid differ' };
    id = given.toLowerCase();
  }
  if (raw.properties !== undefined && raw.properties !== null && !isObj(raw.properties))
    return { error: 'properties must be a JSON object' };
  let created_at = now;
  if (raw.created_at !== undefined && raw.created_at !== null) {
    const t = parseTimestamp(raw.created_at);
    if (t === null) return { error: 'created_at is not a valid ISO 8601 date-time' };
    created_at = t;
  }
  if (raw.is_identified !== undefined && typeof raw.is_identified !== 'boolean') return { error: 'is_identified must be a boolean' };
  return { id, distinct_ids, properties: (raw.properties as Record<string, unknown>) ?? {}, created_at, is_identified: raw.is_identified === true };
}
