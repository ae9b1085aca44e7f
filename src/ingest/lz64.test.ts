import fc from 'fast-check';
import LZString from 'lz-string';
import { decompressLz64, Lz64TooLarge } from './lz64';

const BIG = 1 << 30;

describe('decompressLz64 (lz-string decompressFromBase64 with an output bound)', () => {
  it('inverts lz-string compressToBase64 for any text, emoji and lone surrogates included', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' })), (s) => {
        fc.pre(s.length > 0);
        expect(decompressLz64(LZString.compressToBase64(s), BIG)).toBe(s);
      }),
      { numRuns: 500 },
    );
  });

  it('round-trips a realistic posthog-js batch', () => {
    const batch = {
      api_key: 'phc_x',
      batch: Array.from({ length: 200 }, (_, i) => ({
        event: '$pageview',
        properties: { distinct_id: `u${i % 7}`, $current_url: `https://example.com/${i % 13}`, emoji: '🦔✓', $lib: 'web' },
      })),
    };
    const text = JSON.stringify(batch);
    const compressed = LZString.compressToBase64(text);
    expect(compressed.length).toBeLessThan(text.length / 4);
    expect(decompressLz64(compressed, BIG)).toBe(text);
  });

  it('agrees with the library on arbitrary (mostly corrupt) input, and never throws on it', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=';
    let compared = 0;
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...alphabet, ' ', '!'), maxLength: 40 }), (s) => {
        fc.pre(s.length > 0);
        const got = decompressLz64(s, BIG);
        // The library reads a first code of 3 as an undefined entry (it then throws or returns junk) and throws on
        // some other corrupt input: those are null here.
        if ((Math.max(0, alphabet.indexOf(s[0])) & 48) === 48) return expect(got).toBeNull();
        let want: string | null;
        try {
          want = LZString.decompressFromBase64(s);
        } catch {
          return expect(got).toBeNull();
        }
        compared++;
        expect(got).toBe(want === '' ? null : want);
      }),
      { numRuns: 2000 },
    );
    expect(compared).toBeGreaterThan(1000);
  });

  it('stops at the bound instead of expanding a bomb', () => {
    const text = 'a'.repeat(100_000);
    const compressed = LZString.compressToBase64(text);
    expect(compressed.length).toBeLessThan(2_000); // LZW: output grows quadratically in the codes
    expect(decompressLz64(compressed, 100_000)).toBe(text);
    expect(() => decompressLz64(compressed, 99_999)).toThrow(Lz64TooLarge);
  });

  it('reads the empty text as invalid', () => {
    expect(decompressLz64('', BIG)).toBeNull();
    expect(decompressLz64(LZString.compressToBase64(''), BIG)).toBeNull();
  });
});
