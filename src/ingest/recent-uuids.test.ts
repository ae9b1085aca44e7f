import { randomUUID } from 'node:crypto';
import { RecentUuids } from './recent-uuids';
import { uuidv7 } from './capture-payload';

describe('RecentUuids', () => {
  it('remembers (project, uuid) keys exactly: another project or a uuid one bit apart is not a duplicate', () => {
    const r = new RecentUuids(1000);
    const u = '0190a6f4-1c2b-7d3e-8f40-123456789abc';
    r.add(1, u);
    expect(r.has(1, u)).toBe(true);
    expect(r.has(2, u)).toBe(false);
    expect(r.has(1, '0190a6f4-1c2b-7d3e-8f40-123456789abd')).toBe(false);
    expect(r.has(1, '1190a6f4-1c2b-7d3e-8f40-123456789abc')).toBe(false);
    // The same key in upper case is the same uuid.
    expect(r.has(1, u.toUpperCase())).toBe(true);
  });

  it('keeps the newest capacity/2 to capacity keys (two generations), like the Set it replaces', () => {
    const r = new RecentUuids(10);
    const ids = Array.from({ length: 23 }, () => randomUUID());
    ids.forEach((u) => r.add(7, u));
    // Generations of 5 keys, rotated after the 5th, 10th, 15th and 20th: 15–19 are the previous one, 20–22 the current.
    expect(ids.map((u) => r.has(7, u))).toEqual(ids.map((_, i) => i >= 15));
    expect(r.size).toBe(8);
    // Adding a key the current generation holds is not a new key (no rotation).
    r.add(7, ids[22]);
    expect(r.size).toBe(8);
    expect(r.has(7, ids[15])).toBe(true);
  });

  it('holds hundreds of thousands of keys (uuid v4 and v7) without a miss or a false duplicate', () => {
    const r = new RecentUuids(1_000_000);
    const ids: string[] = [];
    for (let i = 0; i < 300_000; i++) {
      const u = i % 2 ? randomUUID() : uuidv7(1_700_000_000_000 + i); // v7: time-ordered prefixes, clustered keys
      ids.push(u);
      r.add(1 + (i % 3), u);
    }
    expect(r.size).toBe(300_000);
    let misses = 0;
    for (let i = 0; i < ids.length; i++) if (!r.has(1 + (i % 3), ids[i])) misses++;
    expect(misses).toBe(0);
    let falseHits = 0;
    for (let i = 0; i < 100_000; i++) if (r.has(1, randomUUID())) falseHits++;
    expect(falseHits).toBe(0);
  });

  it('checker: a uuid seen earlier in the batch or retained is a duplicate; new ones are recorded in the batch set', () => {
    const r = new RecentUuids(100);
    const stored = randomUUID();
    r.add(3, stored);
    const seen = new Map<number, Set<string>>();
    const isDup = r.checker(3, seen);
    const fresh = randomUUID();
    expect(isDup(stored)).toBe(true);
    expect(isDup(fresh)).toBe(false);
    expect(isDup(fresh)).toBe(true);
    expect([...seen.get(3)!]).toEqual([fresh]);
    r.addAll(seen);
    expect(r.has(3, fresh)).toBe(true);
  });

  it('keeps keys that are not uuids too, within the same bound', () => {
    const r = new RecentUuids(4);
    r.add(1, 'not-a-uuid');
    expect(r.has(1, 'not-a-uuid')).toBe(true);
    expect(r.has(2, 'not-a-uuid')).toBe(false);
    r.add(1, randomUUID());
    r.add(1, randomUUID());
    r.add(1, randomUUID());
    r.add(1, randomUUID());
    expect(r.has(1, 'not-a-uuid')).toBe(false);
  });

  it.each([0, 1, 2.5, Number.NaN])('refuses capacity %p', (c) => {
    expect(() => new RecentUuids(c)).toThrow(/capacity/);
  });
});
