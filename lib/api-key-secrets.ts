import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export type KeyEnvironment = 'test' | 'live';
export type KeyAccessKind = 'secret' | 'publishable';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 40; // ~238 bits of entropy

/** `sk_test_`, `pk_live_`, … followed by 40 base62 characters. */
export const API_KEY_PATTERN = /^(sk|pk)_(test|live)_[0-9A-Za-z]{40}$/;

export function keyPrefix(environment: KeyEnvironment, access: KeyAccessKind): string {
  return `${access === 'secret' ? 'sk' : 'pk'}_${environment}_`;
}

export interface MintedKey {
  value: string;
  prefix: string;
  last4: string;
  hash: string;
}

export function mintKey(environment: KeyEnvironment, access: KeyAccessKind): MintedKey {
  const bytes = randomBytes(BODY_LENGTH);
  // The modulo bias of 256 % 62 costs under one bit of the 238; simpler than rejection sampling.
  const body = Array.from(bytes, (b) => ALPHABET[b % ALPHABET.length]).join('');
  const value = keyPrefix(environment, access) + body;
  return { value, prefix: keyPrefix(environment, access), last4: value.slice(-4), hash: hashKey(value) };
}

/**
 * Keys carry enough entropy that a fast hash is the right tool (as for session tokens): a slow KDF would
 * add nothing against guessing and would cost every request.
 */
export function hashKey(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
