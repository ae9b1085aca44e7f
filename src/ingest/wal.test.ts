import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { DuckDbEngine } from '../engines/duckdb/duckdb-engine';
import { normalizeEvent, slimProperties, type ParsedEvent } from './capture-payload';
import { Ingestor } from './ingestor';
import {
  C_FLAGS,
  C_STRIDE,
  F_IDENTIFY,
  Wal,
  compactEvent,
  completeEncoded,
  decodeRecord,
  encodeCompact,
  encodeEventsAhead,
  encodeRecord,
  encodeRecordBytes,
  eventCount,
  propertiesText,
  type WalRecord,
} from './wal';

const NOW = Date.parse('2025-01-01T00:00:00Z');
const mk = (i: number, extra: Record<string, unknown> = {}): ParsedEvent =>
  normalizeEvent(
    { event: `e${i}`, distinct_id: `u${i % 7}`, uuid: randomUUID(), properties: { i, s: 'q"uote\n', ...extra } },
    { now: Date.now() },
  );

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-wal-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

async function readAll(w: Wal, after = 0): Promise<WalRecord[]> {
  const out: WalRecord[] = [];
  await w.readAfter(after, (r) => out.push(r));
  return out;
}

describe('wal', () => {
  it('encodes and decodes a record losslessly', () => {
    const r: WalRecord = { seq: 7, projectId: 3, events: [mk(1), mk(2, { nested: { a: [1, { b: null }] } })] };
    const line = encodeRecord(r);
    expect(line.endsWith('\n')).toBe(true);
    expect(decodeRecord(line.trimEnd())).toEqual(r);
  });

  it.each([
    ['plain ASCII', 'pageview', 'user-1', { a: 1 }],
    ['quotes, backslashes and controls', 'say "hi"\\', 'tab\there\u0001', { s: 'q"uote\n\\' }],
    ['non-ASCII and emoji', 'Übersicht 😀', 'ユーザー', { city: 'München', e: '😀', rtl: 'שלום' }],
    ['lone surrogates', 'bad\ud800name', 'x\udc00', { s: 'lone \ud83d here' }],
    ['U+2028 and DEL', 'a\u2028b', 'c\u007fd', { s: '\u2029' }],
  ])('encodeRecordBytes is encodeRecord byte for byte (%s), with each properties text located', (_, event, distinct, props) => {
    const events = [mk(1), normalizeEvent({ event, distinct_id: distinct, properties: props }, { now: NOW }), mk(2)];
    const { line, props: at } = encodeRecordBytes(9, 4, events);
    expect(line.equals(Buffer.from(encodeRecord({ seq: 9, projectId: 4, events }), 'utf8'))).toBe(true);
    events.forEach((e, i) => expect(line.subarray(at[2 * i], at[2 * i + 1]).toString('utf8')).toBe(e.propertiesJson));
    expect(decodeRecord(line.toString('utf8').trimEnd()).events.map((e) => e.properties)).toEqual(events.map((e) => JSON.parse(e.propertiesJson)));
  });

  it.each([0, 7, 10, 1735689600000, Number.MAX_SAFE_INTEGER, -1, -62135596800000, 1735689600000.5, 1e21])(
    'encodeRecordBytes writes the timestamp %p as encodeRecord does',
    (t) => {
      const events = [{ ...mk(1), timestamp: t, created_at: t }];
      expect(encodeRecordBytes(1, 1, events).line.toString('utf8')).toBe(encodeRecord({ seq: 1, projectId: 1, events }));
    },
  );

  it('encodeRecordBytes: records larger than a slab and many records in a row stay intact', () => {
    const big = normalizeEvent({ event: 'big', distinct_id: 'u', properties: { s: 'é'.repeat(900_000) } }, { now: NOW });
    const lines: [Buffer, string][] = [];
    for (let i = 0; i < 40; i++) {
      const events = i % 7 === 3 ? [big, mk(i), big, big, big, big] : Array.from({ length: 50 }, (_, k) => mk(i * 100 + k));
      lines.push([encodeRecordBytes(i, 1, events).line, encodeRecord({ seq: i, projectId: 1, events })]);
    }
    // Earlier lines are not overwritten by later records (they are slices of shared slabs).
    for (const [line, text] of lines) expect(line.toString('utf8')).toBe(text);
  });

  it('compact keeps the events only as bytes of the line; it is logged and read back the same', async () => {
    const w = await Wal.open(dir, { compact: true });
    await w.readAfter(0, () => undefined);
    const seen: WalRecord[] = [];
    w.onDurable = (recs) => seen.push(...recs);
    const events = [mk(1, { é: 'ü😀' }), mk(2)];
    const objects = [...events];
    const texts = events.map((e) => e.propertiesJson);
    await w.append(1, events);
    expect(objects.map((e) => e.propertiesJson)).toEqual(['', '']);
    expect(events).toEqual([]); // the caller's array is emptied: nothing keeps the objects alive
    expect(seen[0].events).toEqual([]);
    expect(eventCount(seen[0])).toBe(2);
    expect([0, 1].map((i) => propertiesText(seen[0], i))).toEqual(texts);
    await w.close();
    const back = await readAll(await Wal.open(dir));
    expect(back[0].events.map((e) => e.propertiesJson)).toEqual(texts);
  });

  it.each([
    ['plain ASCII', 'pageview', 'user-1', { a: 1, $session_id: 's-1', $elements_chain: 'a:nth-child(1)' }],
    ['quotes, backslashes and controls', 'say "hi"\\', 'tab\there\u0001', { $session_id: 'q"s\\', $elements_chain: 'x\ny' }],
    ['non-ASCII and emoji', 'Übersicht 😀', 'ユーザー', { city: 'München', $session_id: 'sé😀' }],
    ['lone surrogates', 'bad\ud800name', 'x\udc00', { s: 'lone \ud83d here', $session_id: 'a\udc00' }],
    ['identity events', '$identify', 'u-9', { $anon_distinct_id: 'anon-1', $set: { plan: 'pro' } }],
  ])('encodeCompact: every column of every event reads back as the event (%s)', (_, event, distinct, props) => {
    const events = [mk(1), normalizeEvent({ event, distinct_id: distinct, properties: props }, { now: NOW }), mk(2)];
    for (const e of events) e.properties = slimProperties(e.properties);
    const expected = events.map((e) => ({ ...e }));
    const { line, compact } = encodeCompact(5, 2, events);
    // The line is the record's log line, byte for byte.
    expect(line.equals(Buffer.from(encodeRecord({ seq: 5, projectId: 2, events }), 'utf8'))).toBe(true);
    expect(compact.lineBytes).toBe(line.length);
    // Strings as V8 encodes them in UTF-8 (a lone surrogate becomes U+FFFD), as DuckDB receives them.
    const utf8 = (s: string | null) => (s === null ? null : Buffer.from(s, 'utf8').toString('utf8'));
    expected.forEach((e, i) => {
      const back = compactEvent(compact, i);
      expect(back).toEqual({
        ...e,
        event: utf8(e.event),
        distinct_id: utf8(e.distinct_id),
        session_id: utf8(e.session_id),
        elements_chain: utf8(e.elements_chain),
        propertiesJson: utf8(e.propertiesJson),
        properties: Object.keys(e.properties).length ? e.properties : {},
      });
    });
    const flags = compact.pos[C_STRIDE + C_FLAGS];
    expect((flags & F_IDENTIFY) !== 0).toBe(event === '$identify');
    expect(compact.identity === null).toBe(event !== '$identify');
  });

  it.each([
    ['plain ASCII', 'pageview', 'user-1', { a: 1, $session_id: 's-1', $elements_chain: 'a:nth-child(1)' }, 1],
    ['quotes, backslashes and controls', 'say "hi"\\', 'tab\there\u0001', { $session_id: 'q"s\\', $elements_chain: 'x\ny' }, 42],
    ['non-ASCII and emoji', 'Übersicht 😀', 'ユーザー', { city: 'München', $session_id: 'sé😀' }, 9_999_999_999_999_999],
    ['identity events', '$identify', 'u-9', { $anon_distinct_id: 'anon-1', $set: { plan: 'pro' } }, 123_456],
  ])(
    'events encoded ahead (parse worker) and completed at append are encodeCompact byte for byte (%s)',
    (_, event, distinct, props, seq) => {
      const make = () => {
        const events = [mk(1), normalizeEvent({ event, distinct_id: distinct, properties: props, uuid: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' }, { now: NOW }), mk(2)];
        events[0].uuid = events[2].uuid = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c';
        for (const e of events) {
          e.properties = slimProperties(e.properties);
          e.timestamp = e.created_at = NOW;
        }
        return events;
      };
      const same = make();
      // Both encodings from events with the same content (each takes its events' texts).
      const ahead = encodeEventsAhead(make());
      const want = encodeCompact(seq, 77, same);
      // The worker's buffers are standalone: they move to the main thread without a copy.
      expect(ahead.raw.byteOffset).toBe(0);
      expect(ahead.raw.byteLength).toBe(ahead.raw.buffer.byteLength);
      const moved = structuredClone(ahead, { transfer: [ahead.raw.buffer, ahead.pos.buffer, ahead.times.buffer] });
      expect(ahead.raw.byteLength).toBe(0); // transferred, not copied
      const got = completeEncoded(seq, 77, moved);
      expect(got.line.equals(want.line)).toBe(true);
      expect(got.compact.lineBytes).toBe(got.line.length);
      expect(got.compact.buf.equals(want.compact.buf)).toBe(true);
      expect(Array.from(got.compact.pos)).toEqual(Array.from(want.compact.pos));
      expect(Array.from(got.compact.times)).toEqual(Array.from(want.compact.times));
      expect(got.compact.identity).toEqual(want.compact.identity);
      for (let i = 0; i < 3; i++) expect(compactEvent(got.compact, i)).toEqual(compactEvent(want.compact, i));
    },
  );

  it('completeEncoded refuses encoded events whose arrays do not match their count', () => {
    const enc = encodeEventsAhead([mk(1), mk(2)]);
    expect(() => completeEncoded(1, 1, { ...enc, n: 3 })).toThrow(/do not fit/);
  });

  it('appendEncoded: records encoded ahead are logged between ordinary ones, in order, and replay as written', async () => {
    const w = await Wal.open(dir, { compact: true });
    await w.readAfter(0, () => undefined);
    const logged: WalRecord[] = [];
    w.onDurable = (recs) => logged.push(...recs);
    const batches = [0, 1, 2, 3].map((b) => [mk(10 * b), mk(10 * b + 1, { $session_id: `s${b}` })]);
    const texts = batches.map((evs) => evs.map((e) => ({ ...e })));
    const seqs = await Promise.all([
      w.append(1, batches[0]),
      w.appendEncoded(2, encodeEventsAhead(batches[1])),
      w.appendEncoded(3, encodeEventsAhead(batches[2])),
      w.append(4, batches[3]),
    ]);
    expect(seqs).toEqual([1, 2, 3, 4]);
    expect(logged.map((r) => [r.seq, r.projectId, eventCount(r)])).toEqual([[1, 1, 2], [2, 2, 2], [3, 3, 2], [4, 4, 2]]);
    // The queued (compact) form reads back as the events.
    logged.forEach((r, b) => texts[b].forEach((e, i) => expect(compactEvent(r.compact!, i).propertiesJson).toBe(e.propertiesJson)));
    await w.close();
    const recs = await readAll(await Wal.open(dir));
    expect(recs.map((r) => [r.seq, r.projectId])).toEqual([[1, 1], [2, 2], [3, 3], [4, 4]]);
    recs.forEach((r, b) =>
      r.events.forEach((e, i) => {
        expect(e.uuid).toBe(texts[b][i].uuid);
        expect(e.propertiesJson).toBe(texts[b][i].propertiesJson);
        expect(e.session_id).toBe(texts[b][i].session_id);
      }),
    );
  });

  it('encodeCompact: offsets stay right when a record outgrows its slab and moves (line and side bytes)', () => {
    const big = (i: number) =>
      normalizeEvent({ event: `big "${i}"`, distinct_id: `ü${i}`, properties: { s: 'é'.repeat(700_000), $session_id: `s${i}` } }, { now: NOW });
    for (let round = 0; round < 4; round++) {
      const events = [mk(round), big(1), mk(round + 1), big(2), big(3), big(4), big(5), big(6)];
      const expected = events.map((e) => ({ ...e }));
      const { line, compact } = encodeCompact(round, 1, events);
      expect(line.toString('utf8')).toBe(encodeRecord({ seq: round, projectId: 1, events: expected }));
      expected.forEach((e, i) => {
        const back = compactEvent(compact, i);
        expect([back.event, back.distinct_id, back.session_id, back.propertiesJson, back.uuid]).toEqual([
          e.event,
          e.distinct_id,
          e.session_id,
          e.propertiesJson,
          e.uuid,
        ]);
      });
    }
  });

  it('encodeCompact refuses a uuid that is not canonical (it could not be stored as one)', () => {
    const e = { ...mk(1), uuid: 'not-a-uuid' };
    expect(() => encodeCompact(1, 1, [e])).toThrow(/not canonical/);
  });

  it('groups concurrent appends into few fsyncs and reports them in order', async () => {
    const w = await Wal.open(dir);
    await w.readAfter(0, () => undefined);
    const groups: number[][] = [];
    w.onDurable = (recs) => groups.push(recs.map((r) => r.seq));
    const seqs = await Promise.all(Array.from({ length: 200 }, (_, i) => w.append(1, [mk(i)])));
    expect(seqs).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(groups.flat()).toEqual(seqs);
    expect(groups.length).toBeLessThan(200);
    await w.close();
    const w2 = await Wal.open(dir);
    const recs = await readAll(w2, 150);
    expect(recs.map((r) => r.seq)).toEqual(seqs.slice(150));
    expect(w2.lastSeq).toBe(200);
  });

  it('cuts a torn tail and keeps appending after it', async () => {
    const w = await Wal.open(dir);
    await w.readAfter(0, () => undefined);
    await w.append(1, [mk(1)]);
    await w.append(1, [mk(2)]);
    await w.close();
    const file = path.join(dir, fs.readdirSync(dir)[0]);
    fs.appendFileSync(file, '{"s":3,"p":1,"e":[["x"'); // crash mid-write
    const w2 = await Wal.open(dir);
    const recs = await readAll(w2);
    expect(recs.map((r) => r.seq)).toEqual([1, 2]);
    await w2.append(1, [mk(3)]);
    await w2.close();
    const w3 = await Wal.open(dir);
    expect((await readAll(w3)).map((r) => r.seq)).toEqual([1, 2, 3]);
  });

  it('rotates segments and releases applied ones', async () => {
    const w = await Wal.open(dir, { segmentBytes: 150 });
    await w.readAfter(0, () => undefined);
    for (let i = 0; i < 10; i++) await w.append(1, [mk(i)]);
    const before = fs.readdirSync(dir).length;
    expect(before).toBeGreaterThan(3);
    await w.release(8);
    const after = fs.readdirSync(dir).length;
    expect(after).toBeLessThan(before);
    await w.close();
    const w2 = await Wal.open(dir);
    const seqs = (await readAll(w2, 8)).map((r) => r.seq);
    expect(seqs).toEqual([9, 10]);
  });
});

describe('ingestor replay', () => {
  it('applies log records not yet in DuckDB exactly once, then checkpoints', async () => {
    // A "crashed" server: records in the log, nothing applied.
    const w = await Wal.open(path.join(dir, 'ingest-log'));
    await w.readAfter(0, () => undefined);
    const events = Array.from({ length: 50 }, (_, i) => mk(i));
    for (let i = 0; i < 5; i++) await w.append(1, events.slice(i * 10, i * 10 + 10));
    await w.append(1, [events[0]]); // a client retry of an already logged uuid
    await w.close();

    const engine = await DuckDbEngine.open(path.join(dir, 'events.duckdb'));
    try {
      const ing = await Ingestor.open({ dataDir: dir, engine });
      const count = await engine.query('SELECT count(*), count(DISTINCT uuid) FROM events', []);
      expect(count.rows[0]).toEqual([50, 50]);
      expect(await engine.getCheckpoint()).toBe(6);
      // Reopening does not replay again.
      await ing.close();
      const ing2 = await Ingestor.open({ dataDir: dir, engine });
      expect(ing2.stats.replayed).toBe(0);
      await ing2.capture(1, [mk(100)]);
      await ing2.capture(1, [events[3]]); // duplicate of a stored uuid
      await ing2.flush();
      expect((await engine.query('SELECT count(*) FROM events', [])).rows[0][0]).toBe(51);
      expect(await engine.getCheckpoint()).toBe(8);
      await ing2.close();
    } finally {
      await engine.close();
    }
  });
});

describe('poison records', () => {
  it('a record DuckDB refuses is set aside; the others land and ingestion continues', async () => {
    const w = await Wal.open(path.join(dir, 'ingest-log'));
    await w.readAfter(0, () => undefined);
    await w.append(1, [mk(1)]);
    await w.append(1, [{ ...mk(2), timestamp: 1e16 }]); // beyond DuckDB's TIMESTAMP range
    await w.append(1, [mk(3)]);
    await w.close();
    const engine = await DuckDbEngine.open(path.join(dir, 'events.duckdb'));
    try {
      const ing = await Ingestor.open({ dataDir: dir, engine });
      expect((await engine.query('SELECT list_sort(list(event)) FROM events', [])).rows).toEqual([[['e1', 'e3']]]);
      expect(ing.stats.rejected).toBe(1);
      expect(fs.readdirSync(path.join(dir, 'ingest-log', 'rejected'))).toEqual(['2.ndjson']);
      expect(await engine.getCheckpoint()).toBe(3);
      await ing.close();
    } finally {
      await engine.close();
    }
  });
});
