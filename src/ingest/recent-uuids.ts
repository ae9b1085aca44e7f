/**
 * The ingestor's duplicate test: a bounded set of recently stored (project, uuid) keys in preallocated typed arrays.
 *
 * Why not a Set of strings: a uuid string costs ~56 bytes of V8 heap plus ~20–40 bytes of Set table, so the
 * default 1,000,000 keys held ~90 MB of live JavaScript heap, filled in step with the ingest rate and was only
 * reached after a million captured events; with the heap allowed to grow to twice its live data
 * (QUARRY_HEAP_GROWTH_PERCENT) the server's RSS rose all along a 10-minute capture soak (issue #11). Here a key is
 * its 128 bits and its project (20 bytes, plus one occupancy byte), in two open-addressing tables (at most half
 * full) that double as keys arrive up to their bound: 22 MB per generation of 500,000 keys at most, nothing for the
 * GC. (Allocated whole at start, the 44 MB cost every server and ingest-harness start ~60 ms of page zeroing.)
 *
 * Semantics are those of the previous two-generation set: keys are added to the current generation; when it holds
 * `capacity / 2` keys it becomes the previous one and the old previous generation is forgotten, so the newest
 * `capacity / 2` to `capacity` keys are retained. A key is compared exactly (all 128 bits and the project), so a
 * new event is never taken for a duplicate. Keys that are not uuids (none reach here: capture and import
 * normalize uuids to canonical text) go to a small string set per generation, which counts toward the same bound.
 */

/** Hex digit values by char code ('0'–'9', 'a'–'f', 'A'–'F'), -1 for anything else. */
const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) {
  HEX[97 + i] = 10 + i;
  HEX[65 + i] = 10 + i;
}

/** Value of the 4 hex digits of `s` from `at`, or -1 when one is not a hex digit. */
function hex4(s: string, at: number): number {
  const a = s.charCodeAt(at);
  const b = s.charCodeAt(at + 1);
  const c = s.charCodeAt(at + 2);
  const d = s.charCodeAt(at + 3);
  if ((a | b | c | d) >= 128) return -1;
  const va = HEX[a];
  const vb = HEX[b];
  const vc = HEX[c];
  const vd = HEX[d];
  if ((va | vb | vc | vd) < 0) return -1;
  return (va << 12) | (vb << 8) | (vc << 4) | vd;
}

/** The four 32-bit words of canonical uuid text (8-4-4-4-12 hex digits) into `out`; false when `s` is not one. */
function parseUuid(s: string, out: Uint32Array): boolean {
  if (s.length !== 36 || s.charCodeAt(8) !== 45 || s.charCodeAt(13) !== 45 || s.charCodeAt(18) !== 45 || s.charCodeAt(23) !== 45) return false;
  const h0 = hex4(s, 0);
  const h1 = hex4(s, 4);
  const h2 = hex4(s, 9);
  const h3 = hex4(s, 14);
  const h4 = hex4(s, 19);
  const h5 = hex4(s, 24);
  const h6 = hex4(s, 28);
  const h7 = hex4(s, 32);
  if ((h0 | h1 | h2 | h3 | h4 | h5 | h6 | h7) < 0) return false;
  out[0] = (h0 << 16) | h1;
  out[1] = (h2 << 16) | h3;
  out[2] = (h4 << 16) | h5;
  out[3] = (h6 << 16) | h7;
  return true;
}

/** One generation: open addressing with linear probing over a power-of-two number of slots. */
class Generation {
  /** 5 words per slot: the uuid's four, then the project id. */
  private keys: Uint32Array;
  private used: Uint8Array;
  private mask: number;
  /** Keys that are not uuids (see the file comment). */
  other = new Set<string>();
  size = 0;

  /** Starts with a few slots and doubles (kept at most half full) up to `maxSlots`. */
  constructor(private readonly maxSlots: number) {
    const slots = Math.min(maxSlots, 1024);
    this.keys = new Uint32Array(slots * 5);
    this.used = new Uint8Array(slots);
    this.mask = slots - 1;
  }

  /** Doubles the table, re-inserting every key. */
  private grow(): void {
    const { keys, used } = this;
    const slots = used.length * 2;
    this.keys = new Uint32Array(slots * 5);
    this.used = new Uint8Array(slots);
    this.mask = slots - 1;
    const w = new Uint32Array(4);
    for (let i = 0; i < used.length; i++) {
      if (used[i] === 0) continue;
      const o = i * 5;
      w[0] = keys[o];
      w[1] = keys[o + 1];
      w[2] = keys[o + 2];
      w[3] = keys[o + 3];
      this.place(-1 - this.find(w, keys[o + 4]), w, keys[o + 4]);
    }
  }

  private place(i: number, w: Uint32Array, project: number): void {
    const o = i * 5;
    this.keys[o] = w[0];
    this.keys[o + 1] = w[1];
    this.keys[o + 2] = w[2];
    this.keys[o + 3] = w[3];
    this.keys[o + 4] = project >>> 0;
    this.used[i] = 1;
  }

  /** Slot holding the key, or the empty slot where it would go (encoded as -1 - slot). */
  private find(w: Uint32Array, project: number): number {
    // Mix every word (uuid v7 starts with a timestamp, v4 with random bits) and the project.
    let h = Math.imul(w[0] ^ Math.imul(w[1], 0x9e3779b1), 0x85ebca6b) ^ Math.imul(w[2] ^ (w[3] >>> 7), 0xc2b2ae35) ^ Math.imul(project, 0x27d4eb2f);
    h ^= h >>> 15;
    h = Math.imul(h, 0x2c1b3c6d);
    h ^= h >>> 13;
    let i = h & this.mask;
    const keys = this.keys;
    const used = this.used;
    for (;;) {
      if (used[i] === 0) return -1 - i;
      const o = i * 5;
      if (keys[o] === w[0] && keys[o + 1] === w[1] && keys[o + 2] === w[2] && keys[o + 3] === w[3] && keys[o + 4] === project >>> 0) return i;
      i = (i + 1) & this.mask;
    }
  }

  has(w: Uint32Array, project: number): boolean {
    return this.find(w, project) >= 0;
  }

  /** Adds the key; false when it was already there. The caller keeps size below half of `maxSlots`. */
  add(w: Uint32Array, project: number): boolean {
    const f = this.find(w, project);
    if (f >= 0) return false;
    if ((this.size + 1) * 2 > this.used.length && this.used.length < this.maxSlots) {
      this.grow();
      return this.add(w, project);
    }
    this.place(-1 - f, w, project);
    this.size++;
    return true;
  }

  clear(): void {
    // Only the occupancy bytes (the table keeps its size): a slot's key words are ignored until it is used again.
    this.used.fill(0);
    this.other = new Set();
    this.size = 0;
  }
}

export class RecentUuids {
  private cur: Generation;
  private prev: Generation;
  /** Keys a generation takes before it is rotated out. */
  private readonly perGeneration: number;
  private readonly words = new Uint32Array(4);

  /**
   * @param capacity most keys retained (at least the newest `capacity / 2`); the memory grows with the keys, up to
   * 2 generations × the power of two ≥ 2 × capacity / 2 slots × 21 bytes (1,000,000 → 2 × 1,048,576 slots, 44 MB).
   */
  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 2) throw new Error(`dedup capacity must be an integer ≥ 2 (got ${capacity})`);
    this.perGeneration = Math.ceil(capacity / 2);
    // At most half full: linear probing stays short.
    let slots = 16;
    while (slots < this.perGeneration * 2) slots *= 2;
    this.cur = new Generation(slots);
    this.prev = new Generation(slots);
  }

  /** Keys retained now (both generations). */
  get size(): number {
    return this.cur.size + this.cur.other.size + this.prev.size + this.prev.other.size;
  }

  has(project: number, uuid: string): boolean {
    if (parseUuid(uuid, this.words)) return this.cur.has(this.words, project) || this.prev.has(this.words, project);
    const k = `${project}:${uuid}`;
    return this.cur.other.has(k) || this.prev.other.has(k);
  }

  add(project: number, uuid: string): void {
    if (parseUuid(uuid, this.words)) {
      if (!this.cur.add(this.words, project)) return;
    } else {
      const k = `${project}:${uuid}`;
      if (this.cur.other.has(k)) return;
      this.cur.other.add(k);
    }
    if (this.cur.size + this.cur.other.size >= this.perGeneration) this.rotate();
  }

  /** Adds every key of a batch (project → uuids), as {@link add}. */
  addAll(batch: Map<number, Set<string>>): void {
    for (const [p, set] of batch) for (const u of set) this.add(p, u);
  }

  /**
   * A duplicate test for one project: true when the uuid is retained here or was already seen in this batch
   * (`seen`, the batch's own set, which records it otherwise; the caller adds `seen` once the batch is stored).
   */
  checker(project: number, seen: Map<number, Set<string>>): (uuid: string) => boolean {
    let s = seen.get(project);
    if (!s) seen.set(project, (s = new Set()));
    const own = s;
    return (uuid) => {
      if (own.has(uuid) || this.has(project, uuid)) return true;
      own.add(uuid);
      return false;
    };
  }

  private rotate(): void {
    const old = this.prev;
    this.prev = this.cur;
    old.clear();
    this.cur = old;
  }
}
