import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM for values the service must read back but must not hold in clear (stored responses that
 * contain a one-time secret, webhook signing secrets).
 */
export interface CryptoBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

export function parseEncryptionKey(text: string): Buffer {
  const key = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32) throw new Error('must be 32 bytes, as 64 hex characters or base64');
  return key;
}

export function generateEncryptionKey(): string {
  return randomBytes(32).toString('hex');
}

export function createCryptoBox(key: Buffer): CryptoBox {
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
    },
    open(sealed) {
      if (!sealed.startsWith('v1.')) throw new Error('unknown sealed format');
      const raw = Buffer.from(sealed.slice(3), 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}
