import { hkdfSync } from 'node:crypto';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { decrypt, encrypt, type KeyRing } from './crypto-box';

/** The metadata that marks an encrypted payload (ARCHITECTURE.md, "Workflow payloads"). */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';

/**
 * Payloads get keys of their own, derived from the ring's (HKDF), so a sealed column value can never be passed off
 * as a payload or the reverse; the key id stays the ring key's, so one rotation covers both.
 */
function payloadKey(key: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'commerce temporal payloads', 32));
}

function text(bytes: Uint8Array | null | undefined): string | undefined {
  return bytes ? Buffer.from(bytes).toString('utf8') : undefined;
}

/**
 * AES-256-GCM over the whole serialized payload (metadata included: `json/plain` says nothing, but a type name
 * could). Decoding passes payloads without the encrypted encoding through, so runs started before the codec still
 * replay and their results still read.
 */
export function createPayloadCodec(ring: KeyRing): PayloadCodec {
  const keys = new Map(ring.all.map(({ id, key }) => [id, payloadKey(key)]));
  const currentId = ring.current.id;
  const currentKey = keys.get(currentId)!;
  return {
    async encode(payloads: Payload[]): Promise<Payload[]> {
      return payloads.map((payload) => ({
        metadata: { encoding: Buffer.from(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: Buffer.from(currentId) },
        data: encrypt(currentKey, Buffer.from(temporal.api.common.v1.Payload.encode(payload).finish()), Buffer.from(currentId)),
      }));
    },
    async decode(payloads: Payload[]): Promise<Payload[]> {
      return payloads.map((payload) => {
        if (text(payload.metadata?.encoding) !== ENCRYPTED_ENCODING) return payload;
        const keyId = text(payload.metadata?.[KEY_ID_METADATA]);
        const key = keyId === undefined ? undefined : keys.get(keyId);
        if (!key || keyId === undefined) {
          throw new Error(`payload encrypted under key ${keyId ?? '(none named)'}, which is neither ENCRYPTION_KEY nor one of ENCRYPTION_KEYS_RETIRED`);
        }
        const plain = decrypt(key, Buffer.from(payload.data ?? new Uint8Array()), Buffer.from(keyId));
        return temporal.api.common.v1.Payload.decode(plain);
      });
    },
  };
}

/** The one data converter of every Temporal client and worker of the service. */
export function createDataConverter(ring: KeyRing): DataConverter {
  return { payloadCodecs: [createPayloadCodec(ring)] };
}
