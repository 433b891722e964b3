import { Client, type Connection } from '@temporalio/client';
import type { KeyRing } from './crypto-box';
import { createDataConverter } from './payload-codec';
import { clientInterceptors } from './temporal-interceptors';

export interface TemporalClientOptions {
  connection: Connection;
  namespace: string;
  /** Encrypts what the client sends and decrypts what it reads (lib/payload-codec.ts). */
  keyRing: KeyRing;
}

/**
 * Every Temporal client of the service (the API, the worker's relays, the CLI, npm start): payloads through the
 * codec, and the request id and trace context on each start and signal. Lint refuses a `new Client(` elsewhere, so
 * none can start a workflow in clear or outside its request's trace.
 */
export function createTemporalClient({ connection, namespace, keyRing }: TemporalClientOptions): Client {
  return new Client({ connection, namespace, dataConverter: createDataConverter(keyRing), interceptors: clientInterceptors() });
}
