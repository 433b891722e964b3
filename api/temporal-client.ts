import { Connection, type Client } from '@temporalio/client';
import type { KeyRing } from '../lib/crypto-box';
import { createTemporalClient } from '../lib/temporal-client';

export interface TemporalClientOptions {
  address: string;
  namespace: string;
  /** Encrypts what the client sends and decrypts what it reads (lib/payload-codec.ts). */
  keyRing: KeyRing;
}

/** The API's one Temporal client; it starts and signals workflows (with the request id and trace context) and answers /readyz. */
export async function connectTemporal({ address, namespace, keyRing }: TemporalClientOptions): Promise<Client> {
  const connection = await Connection.connect({ address });
  return createTemporalClient({ connection, namespace, keyRing });
}

/** True when the Temporal frontend answers within the timeout. */
export async function temporalIsReachable(client: Client, timeoutMs = 2_000): Promise<boolean> {
  try {
    await client.connection.withDeadline(Date.now() + timeoutMs, () =>
      client.workflowService.getSystemInfo({}),
    );
    return true;
  } catch {
    return false;
  }
}
