import { Client, Connection } from '@temporalio/client';

export interface TemporalClientOptions {
  address: string;
  namespace: string;
}

/** The API's one Temporal client; it starts and signals workflows and answers /readyz. */
export async function connectTemporal({ address, namespace }: TemporalClientOptions): Promise<Client> {
  const connection = await Connection.connect({ address });
  return new Client({ connection, namespace });
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
