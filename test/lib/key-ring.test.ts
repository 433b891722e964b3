import { createCipheriv, randomBytes } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { defaultPayloadConverter } from '@temporalio/common';
import { createCryptoBox, createKeyRing, encryptionKeyId } from '../../lib/crypto-box';
import { createPayloadCodec, ENCRYPTED_ENCODING, KEY_ID_METADATA } from '../../lib/payload-codec';

const oldKey = randomBytes(32);
const newKey = randomBytes(32);

/** A value as the crypto box sealed it before keys had ids (`v1.`). */
function sealV1(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
}

const metadataText = (payload: temporal.api.common.v1.IPayload, key: string) => Buffer.from(payload.metadata![key]!).toString('utf8');

describe('key ring (lib/crypto-box.ts)', () => {
  it('seals under the current key and names it: v2.<key id>.…', () => {
    const box = createCryptoBox(createKeyRing(newKey, [oldKey]));
    const sealed = box.seal('whsec_secret');
    expect(sealed.startsWith(`v2.${encryptionKeyId(newKey)}.`)).toBe(true);
    expect(encryptionKeyId(newKey)).toMatch(/^[0-9a-f]{16}$/);
    expect(encryptionKeyId(newKey)).not.toBe(encryptionKeyId(oldKey));
    expect(box.open(sealed)).toBe('whsec_secret');
  });

  it('opens what the old key sealed once it is retired, and not once it is removed', () => {
    const sealedBefore = createCryptoBox(oldKey).seal('4111 0000 1234');
    expect(createCryptoBox(createKeyRing(newKey, [oldKey])).open(sealedBefore)).toBe('4111 0000 1234');
    expect(() => createCryptoBox(newKey).open(sealedBefore)).toThrow(/neither ENCRYPTION_KEY nor one of ENCRYPTION_KEYS_RETIRED/);
  });

  it('re-seals a value under the current key, and leaves a current one alone', () => {
    const ring = createCryptoBox(createKeyRing(newKey, [oldKey]));
    const resealed = ring.reseal(createCryptoBox(oldKey).seal('body'))!;
    expect(resealed.startsWith(`v2.${encryptionKeyId(newKey)}.`)).toBe(true);
    expect(createCryptoBox(newKey).open(resealed)).toBe('body');
    expect(ring.reseal(resealed)).toBeNull();
  });

  it('opens legacy v1 values with the current key or a retired one, and re-seals them as v2', () => {
    expect(createCryptoBox(oldKey).open(sealV1(oldKey, 'legacy'))).toBe('legacy');
    const ring = createCryptoBox(createKeyRing(newKey, [oldKey]));
    expect(ring.open(sealV1(oldKey, 'legacy'))).toBe('legacy');
    expect(ring.reseal(sealV1(oldKey, 'legacy'))!.startsWith('v2.')).toBe(true);
    expect(() => createCryptoBox(newKey).open(sealV1(oldKey, 'legacy'))).toThrow(/none of the configured keys/);
  });

  it('refuses a value whose key id was swapped (the id is authenticated)', () => {
    const ring = createCryptoBox(createKeyRing(newKey, [oldKey]));
    const sealed = createCryptoBox(oldKey).seal('x');
    const swapped = sealed.replace(encryptionKeyId(oldKey), encryptionKeyId(newKey));
    expect(() => ring.open(swapped)).toThrow();
  });
});

describe('payload codec (lib/payload-codec.ts)', () => {
  const plain = defaultPayloadConverter.toPayload({ customerEmail: 'buyer@example.com' });

  it('encrypts each payload whole: binary/encrypted with the key id, nothing of the value in clear', async () => {
    const [encoded] = await createPayloadCodec(createKeyRing(newKey, [oldKey])).encode([plain]);
    expect(Object.keys(encoded!.metadata!).sort()).toEqual(['encoding', KEY_ID_METADATA].sort());
    expect(metadataText(encoded!, 'encoding')).toBe(ENCRYPTED_ENCODING);
    expect(metadataText(encoded!, KEY_ID_METADATA)).toBe(encryptionKeyId(newKey));
    expect(Buffer.from(encoded!.data!).toString('latin1')).not.toContain('buyer@example.com');
    expect(Buffer.from(encoded!.data!).toString('latin1')).not.toContain('json/plain');
  });

  it('decodes what it encoded, under a retired key too, and passes plain payloads of older runs through', async () => {
    const [byOld] = await createPayloadCodec(createKeyRing(oldKey)).encode([plain]);
    const rotated = createPayloadCodec(createKeyRing(newKey, [oldKey]));
    const [decoded, passed] = await rotated.decode([byOld!, plain]);
    expect(defaultPayloadConverter.fromPayload(decoded!)).toEqual({ customerEmail: 'buyer@example.com' });
    expect(passed).toBe(plain);
    await expect(createPayloadCodec(createKeyRing(newKey)).decode([byOld!])).rejects.toThrow(/neither ENCRYPTION_KEY nor one of ENCRYPTION_KEYS_RETIRED/);
  });

  it('uses keys of its own: a payload is not a sealed value under the same ring key', async () => {
    const [encoded] = await createPayloadCodec(createKeyRing(newKey)).encode([plain]);
    const asSealed = `v2.${encryptionKeyId(newKey)}.${Buffer.from(encoded!.data!).toString('base64')}`;
    expect(() => createCryptoBox(newKey).open(asSealed)).toThrow();
  });
});
