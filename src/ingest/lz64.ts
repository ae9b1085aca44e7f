/**
 * `compression=lz64` / `lz-string` capture bodies (reference §6.3): lz-string's `compressToBase64` output, as old
 * posthog-js versions send it. The decoder is lz-string 1.5.0's `decompressFromBase64` (MIT), ported with one
 * addition the library cannot give: a bound on the output. LZW output grows up to quadratically in its input (each
 * code can name an entry one character longer than the last), so a 2 MB body could otherwise expand to hundreds of
 * GB inside the decoder before any size check ran. Here decoding stops as soon as the text passes `maxChars`.
 * The tests check it against the library itself (round trips, emoji, corrupt input).
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=';
const VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUE[ALPHABET.charCodeAt(i)] = i;

/** The output passed the bound given to {@link decompressLz64}. */
export class Lz64TooLarge extends Error {}

/**
 * Decompresses lz-string base64 text. Returns null where lz-string returns null or "" for a non-empty input (corrupt
 * or truncated data); throws {@link Lz64TooLarge} once the output would pass `maxChars` UTF-16 code units.
 */
export function decompressLz64(input: string, maxChars: number): string | null {
  if (input === '') return null;
  const length = input.length;
  // Characters outside the alphabet read as 0, as in lz-string.
  const valueAt = (i: number) => {
    const c = input.charCodeAt(i);
    return c < 128 && VALUE[c] >= 0 ? VALUE[c] : 0;
  };
  let val = valueAt(0);
  let position = 32;
  let index = 1;
  const readBits = (n: number): number => {
    let bits = 0;
    for (let power = 1, max = 1 << n; power !== max; power <<= 1) {
      const resb = val & position;
      position >>= 1;
      if (position === 0) {
        position = 32;
        val = valueAt(index++);
      }
      if (resb > 0) bits |= power;
    }
    return bits;
  };

  const dictionary: string[] = [];
  let dictSize = 4;
  let numBits = 3;
  let enlargeIn = 4;
  let c: string;
  switch (readBits(2)) {
    case 0:
      c = String.fromCharCode(readBits(8));
      break;
    case 1:
      c = String.fromCharCode(readBits(16));
      break;
    case 2:
      return null; // lz-string: "" (an empty text has no first character)
    default:
      return null; // lz-string: f(3), an undefined entry
  }
  dictionary[3] = c;
  let w = c;
  const result: string[] = [c];
  let size = c.length;
  for (;;) {
    if (index > length) return null;
    let code = readBits(numBits);
    if (code === 0 || code === 1) {
      dictionary[dictSize++] = String.fromCharCode(readBits(code === 0 ? 8 : 16));
      code = dictSize - 1;
      enlargeIn--;
    } else if (code === 2) {
      return result.join('');
    }
    if (enlargeIn === 0) {
      enlargeIn = 2 ** numBits;
      numBits++;
    }
    let entry: string;
    if (dictionary[code]) entry = dictionary[code];
    else if (code === dictSize) entry = w + w.charAt(0);
    else return null;
    size += entry.length;
    if (size > maxChars) throw new Lz64TooLarge(`lz64 payload decompresses past ${maxChars} characters`);
    result.push(entry);
    dictionary[dictSize++] = w + entry.charAt(0);
    enlargeIn--;
    w = entry;
    if (enlargeIn === 0) {
      enlargeIn = 2 ** numBits;
      numBits++;
    }
  }
}
