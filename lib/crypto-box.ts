import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM for values the service must read back but must not hold in clear (stored responses that
 * contain a one-time secret, webhook signing secrets, bank account numbers, e-mail bodies).
 *
 * Sealed values are `v2.<key id>.<base64 of iv, tag, ciphertext>`; the key id is also the cipher's associated data,
 * so a value cannot be passed off as sealed under another key. `v1.<base64>` values (before keys had ids) still open.
 */
export interface CryptoBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
  /** The value sealed under the current key; null when it already is (nothing to write back). */
  reseal(sealed: string): string | null;
  readonly keyRing: KeyRing;
}

export interface RingKey {
  /** Names the key in sealed values and payload metadata; derived from the key, so it never needs configuring. */
  id: string;
  key: Buffer;
}

/** The current key seals; retired keys stay only to open what was sealed before a rotation. */
export interface KeyRing {
  current: RingKey;
  /** Every key, current first. */
  all: readonly RingKey[];
  byId(id: string): RingKey | undefined;
}

export function parseEncryptionKey(text: string): Buffer {
  const key = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32) throw new Error('must be 32 bytes, as 64 hex characters or base64');
  return key;
}

export function generateEncryptionKey(): string {
  return randomBytes(32).toString('hex');
}

/** A one-way digest of the key: it tells keys apart without revealing them. */
export function encryptionKeyId(key: Buffer): string {
  return createHash('sha256').update('commerce-encryption-key-id:').update(key).digest('hex').slice(0, 16);
}

export function createKeyRing(current: Buffer, retired: readonly Buffer[] = []): KeyRing {
  const all = [current, ...retired].map((key) => ({ id: encryptionKeyId(key), key }));
  const byId = new Map(all.map((k) => [k.id, k]));
  return { current: all[0]!, all, byId: (id) => byId.get(id) };
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** iv ‖ tag ‖ ciphertext, the layout of sealed values and encrypted payloads alike. */
export function encrypt(key: Buffer, plaintext: Buffer, aad?: Buffer): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  if (aad) cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

export function decrypt(key: Buffer, raw: Buffer, aad?: Buffer): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  if (aad) decipher.setAAD(aad);
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
}

/** A ring, or one key (a ring without retired keys). */
export function createCryptoBox(keys: KeyRing | Buffer): CryptoBox {
  const ring = Buffer.isBuffer(keys) ? createKeyRing(keys) : keys;
  const openV1 = (raw: Buffer): string => {
    // v1 carried no key id: it was sealed under whichever key was current then, so each key is tried (GCM rejects the wrong ones).
    for (const { key } of ring.all) {
      try {
        return decrypt(key, raw).toString('utf8');
      } catch {
        // not this key
      }
    }
    throw new Error('cannot open a v1 sealed value: none of the configured keys (ENCRYPTION_KEY, ENCRYPTION_KEYS_RETIRED) sealed it');
  };
  const parse = (sealed: string): { keyId: string | null; raw: Buffer } => {
    if (sealed.startsWith('v1.')) return { keyId: null, raw: Buffer.from(sealed.slice(3), 'base64') };
    const match = /^v2\.([0-9a-f]{16})\.(.*)$/s.exec(sealed);
    if (!match) throw new Error('unknown sealed format');
    return { keyId: match[1]!, raw: Buffer.from(match[2]!, 'base64') };
  };
  const box: CryptoBox = {
    keyRing: ring,
    seal(plaintext) {
      const { id, key } = ring.current;
      return `v2.${id}.${encrypt(key, Buffer.from(plaintext, 'utf8'), Buffer.from(id)).toString('base64')}`;
    },
    open(sealed) {
      const { keyId, raw } = parse(sealed);
      if (keyId === null) return openV1(raw);
      const found = ring.byId(keyId);
      if (!found) throw new Error(`sealed under key ${keyId}, which is neither ENCRYPTION_KEY nor one of ENCRYPTION_KEYS_RETIRED`);
      return decrypt(found.key, raw, Buffer.from(keyId)).toString('utf8');
    },
    reseal(sealed) {
      return parse(sealed).keyId === ring.current.id ? null : box.seal(box.open(sealed));
    },
  };
  return box;
}
