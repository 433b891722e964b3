import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

const GRPC_ALREADY_EXISTS = 6;

/** Registers the AccountId keyword attribute on servers that do not have it (the dev server started by npm start does). */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  if (existing.customAttributes?.AccountId !== undefined) return;
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: { AccountId: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD },
    });
  } catch (err) {
    if ((err as { code?: number }).code !== GRPC_ALREADY_EXISTS) throw err;
  }
}
