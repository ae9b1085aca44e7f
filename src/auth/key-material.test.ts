import { createHash } from 'node:crypto';
import {
  CAPTURE_TOKEN_PREFIX,
  hashKey,
  maskKey,
  newCaptureToken,
  newPersonalKey,
  newSecretKey,
  PERSONAL_KEY_PREFIX,
  randomToken,
  SECRET_KEY_PREFIX,
} from './key-material';

const BASE57 = /^[23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz]+$/;

describe('key prefixes', () => {
  it.each([
    ['personal', newPersonalKey, PERSONAL_KEY_PREFIX, 'phx_'],
    ['project secret', newSecretKey, SECRET_KEY_PREFIX, 'phs_'],
    ['capture token', newCaptureToken, CAPTURE_TOKEN_PREFIX, 'phc_'],
  ])('%s keys start with %s', (_kind, make, prefix, literal) => {
    expect(prefix).toBe(literal);
    const k = make();
    expect(k.startsWith(literal)).toBe(true);
    expect(k.slice(4)).toMatch(BASE57);
    expect(k).toHaveLength(4 + 43);
  });
});

describe('randomToken', () => {
  it('uses base-57 (no 0 1 O I l) at the requested length', () => {
    for (const n of [1, 8, 43, 200]) {
      const t = randomToken(n);
      expect(t).toHaveLength(n);
      expect(t).toMatch(BASE57);
    }
  });

  it('defaults to 43 characters (~250 bits, above PostHog’s 35 bytes)', () => {
    expect(randomToken()).toHaveLength(43);
    expect(43 * Math.log2(57)).toBeGreaterThan(35 * 8 - 40);
  });

  it('does not repeat', () => {
    const seen = new Set(Array.from({ length: 2000 }, () => randomToken()));
    expect(seen.size).toBe(2000);
  });

  it('uses every character of the alphabet roughly evenly (no modulo bias)', () => {
    const counts = new Map<string, number>();
    const sample = randomToken(57 * 2000);
    for (const c of sample) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(57);
    for (const n of counts.values()) {
      expect(n).toBeGreaterThan(2000 * 0.8);
      expect(n).toBeLessThan(2000 * 1.2);
    }
  });
});

describe('hashKey', () => {
  it('is sha256$<hex> of the utf-8 value', () => {
    const v = 'phx_abc';
    expect(hashKey(v)).toBe('sha256$' + createHash('sha256').update(v).digest('hex'));
    expect(hashKey(v)).toMatch(/^sha256\$[0-9a-f]{64}$/);
  });
  it('is deterministic and distinguishes keys', () => {
    const a = newPersonalKey();
    expect(hashKey(a)).toBe(hashKey(a));
    expect(hashKey(a)).not.toBe(hashKey(a + 'x'));
  });
  it('does not contain the key', () => {
    const a = newPersonalKey();
    expect(hashKey(a)).not.toContain(a.slice(4));
  });
});

describe('maskKey', () => {
  it.each([
    ['phx_ABCDEFGHJKwxyz', 'phx_...wxyz'],
    ['phs_2345678abcd', 'phs_...abcd'],
  ])('%s → %s (first 4 and last 4)', (value, mask) => {
    expect(maskKey(value)).toBe(mask);
  });
  it('reveals only the prefix and the last 4 characters of a real key', () => {
    const k = newPersonalKey();
    expect(maskKey(k)).toBe(`phx_...${k.slice(-4)}`);
  });
});
