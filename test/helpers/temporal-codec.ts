import type { WorkflowHandle } from '@temporalio/client';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { loadConfig, requireKeyRing } from '../../lib/config';
import type { KeyRing } from '../../lib/crypto-box';
import { createDataConverter, createPayloadCodec, ENCRYPTED_ENCODING } from '../../lib/payload-codec';

/** The suite's key ring (ENCRYPTION_KEY of globalSetup), as the API and the worker build it. */
export function testKeyRing(): KeyRing {
  return requireKeyRing(loadConfig(process.env));
}

/** For clients and workers a test builds itself: the service's data converter over the suite's key ring. */
export function testDataConverter(): DataConverter {
  return createDataConverter(testKeyRing());
}

function isEncrypted(value: unknown): value is Payload {
  const encoding = (value as Payload | null)?.metadata?.encoding;
  return encoding instanceof Uint8Array && Buffer.from(encoding).toString('utf8') === ENCRYPTED_ENCODING;
}

/** Replaces, in place, every encrypted payload anywhere in `value` by what it encrypts. */
async function decodeWithin(value: unknown, codec: PayloadCodec): Promise<void> {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return;
  for (const [key, child] of Object.entries(value)) {
    if (isEncrypted(child)) (value as Record<string, unknown>)[key] = (await codec.decode([child]))[0];
    else await decodeWithin(child, codec);
  }
}

/**
 * A run's history with its payloads decrypted, for RECORD_HISTORIES: recorded histories stay readable and replay
 * under any key (the replay test's codec passes plain payloads through, as it does for runs from before the codec).
 */
export async function plainHistory(handle: WorkflowHandle, ring: KeyRing = testKeyRing()): Promise<temporal.api.history.v1.IHistory> {
  const history = await handle.fetchHistory();
  await decodeWithin(history, createPayloadCodec(ring));
  return history;
}
