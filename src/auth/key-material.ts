import { hash, randomBytes } from 'node:crypto';

/** Recognizable prefixes, as PostHog's: personal keys, project secret keys, public capture tokens. */
export const PERSONAL_KEY_PREFIX = 'phx_';
export const SECRET_KEY_PREFIX = 'phs_';
export const CAPTURE_TOKEN_PREFIX = 'phc_';

// Base-57: base-62 without the look-alikes 0 1 O I l, as PostHog's current keys.
const ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** A random token of `length` base-57 characters (≈5.8 bits each; 43 chars ≈ 250 bits). */
export function randomToken(length = 43): string {
  const out: string[] = [];
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      // 228 = 4 * 57: reject the top of the byte range so every character is equally likely.
      if (b < 228 && out.length < length) out.push(ALPHABET[b % 57]);
    }
  }
  return out.join('');
}

export const newPersonalKey = (): string => PERSONAL_KEY_PREFIX + randomToken();
export const newSecretKey = (): string => SECRET_KEY_PREFIX + randomToken();
export const newCaptureToken = (): string => CAPTURE_TOKEN_PREFIX + randomToken();

/**
 * Stored form of a key. Keys carry ~250 bits of entropy, so a fast hash is enough (as PostHog's
 * `sha256$…`); a slow KDF would only add latency to every request. Every authenticated request hashes its key:
 * the one-shot `crypto.hash` (UTF-8 in, hex out) costs a fraction of a `createHash` object's update and digest.
 */
export function hashKey(value: string): string {
  return 'sha256$' + hash('sha256', value, 'hex');
}

/** What listings show: the first 4 and last 4 characters. */
export function maskKey(value: string): string {
  return `${value.slice(0, 4)}...${value.slice(-4)}`;
}
