import { randomBytes } from 'node:crypto';

/**
 * Licence keys: `<PREFIX>-XXXX-XXXX-XXXX-XXXX`. The 16 random symbols carry the secret; the prefix only says
 * which product the key is for (docs/decisions/licenses.md).
 */

/** Digits and capitals without 0/O, 1/I/L: 31 symbols a buyer can read back and type without guessing. */
export const KEY_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
const RANDOM_SYMBOLS = 16;
const GROUP = 4;
/** The largest multiple of the alphabet's size that fits a byte: drawing again above it keeps every symbol equally likely. */
const UNBIASED_BELOW = 256 - (256 % KEY_ALPHABET.length);
const FALLBACK_PREFIX = 'LIC';

/** Up to the first 6 letters and digits of the product slug, upper-cased (`ebook-pro` → `EBOOKP`). */
export function licenseKeyPrefix(productSlug: string): string {
  return productSlug.toUpperCase().replace(/[^A-Z0-9]/g, '').slice(0, 6) || FALLBACK_PREFIX;
}

function randomSymbols(count: number): string {
  let symbols = '';
  while (symbols.length < count) {
    for (const byte of randomBytes(count * 2)) {
      if (byte < UNBIASED_BELOW && symbols.length < count) symbols += KEY_ALPHABET[byte % KEY_ALPHABET.length];
    }
  }
  return symbols;
}

/** A new key: 16 symbols of 31, about 79 bits from the CSPRNG. */
export function newLicenseKey(prefix: string): string {
  const symbols = randomSymbols(RANDOM_SYMBOLS);
  const groups = Array.from({ length: RANDOM_SYMBOLS / GROUP }, (_, i) => symbols.slice(i * GROUP, (i + 1) * GROUP));
  return [prefix, ...groups].join('-');
}
