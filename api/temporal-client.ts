import { Client, Connection } from '@temporalio/client';
import type { KeyRing } from '../lib/crypto-box';
import { createDataConverter } from '../lib/payload-codec';
import { clientInterceptors } from '../lib/temporal-interceptors';

export interface TemporalClientOptions {
  address: string;
  namespace: string;
  /** Encrypts what the client sends and decrypts what it reads (lib/payload-codec.ts). */
  keyRing: KeyRing;
}

/** The API's one Temporal client; it starts and signals workflows (with the request id and trace context) and answers /readyz. */
export async function connectTemporal({ address, namespace, keyRing }: TemporalClientOptions): Promise<Client> {
  const connection = await Connection.connect({ address });
  return new Client({ connection, namespace, dataConverter: createDataConverter(keyRing), interceptors: clientInterceptors() });
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
