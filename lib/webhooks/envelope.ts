export interface EnvelopeEvent {
  id: string;
  type: string;
  createdAt: Date | string;
  accountId: string;
  data: Record<string, unknown>;
}

/** The delivery body of document 2, serialised once so every attempt of every endpoint sends the same bytes. */
export function serialiseEnvelope(event: EnvelopeEvent): string {
  const createdAt = event.createdAt instanceof Date ? event.createdAt.toISOString() : event.createdAt;
  return JSON.stringify({ id: event.id, type: event.type, createdAt, accountId: event.accountId, data: event.data });
}
