import type { Sequelize } from 'sequelize';
import { claimEventsForFanOut } from '../domain/webhooks';
import type { Starters } from '../domain/workflow-starters';
import type { Logger } from '../lib/logger';
import { withOrigin } from '../lib/tracing';
import { serialiseEnvelope } from '../lib/webhooks/envelope';
import type { WebhookDeliveryInput } from '../workflows/messages';
import { startRelayLoop, type Relay } from './relay-loop';

/** The channel the `events` insert trigger notifies (migration 0004). */
export const OUTBOX_CHANNEL = 'events_outbox';

export interface OutboxRelayOptions {
  sequelize: Sequelize;
  starters: Starters;
  /** For the LISTEN connection, which must live outside the query pool. */
  databaseUrl: string;
  /** WEBHOOK_RETRY_SCHEDULE at fan-out time, copied into each delivery. */
  retrySchedule: number[];
  logger: Logger;
  /** Safety net for lost notifications and for events committed while no relay ran. */
  sweepIntervalMs?: number;
  batchSize?: number;
  /** Workflow starts in flight at once. */
  startConcurrency?: number;
}

export type OutboxRelay = Relay;

async function mapLimit<T>(items: T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await fn(item);
    }
  });
  await Promise.all(lanes);
}

/**
 * The outbox relay (not a workflow): claims unpublished `events` rows with FOR UPDATE SKIP LOCKED, so any
 * number of workers can run one, marking them published in the same statement, and starts one
 * webhook-delivery workflow per matching active endpoint, all in one transaction. A failed start or a crash
 * anywhere before the commit rolls the mark back and leaves the rows unpublished for the next pass; the
 * workflows already started make those starts no-ops. Woken by LISTEN/NOTIFY on every outbox insert, and by
 * a periodic sweep (worker/relay-loop.ts).
 */
export function startOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { sequelize, starters, logger } = options;
  const batchSize = options.batchSize ?? 100;
  const startConcurrency = options.startConcurrency ?? 32;
  const sweepIntervalMs = options.sweepIntervalMs ?? 2_000;

  async function drainBatch(): Promise<boolean> {
    return sequelize.transaction(async (tx) => {
      const { events, targets } = await claimEventsForFanOut(sequelize, tx, batchSize);
      if (events.length === 0) return false;
      const byId = new Map(events.map((e) => [e.id, e]));
      // Only events with at least one target are serialised (once each, shared by all their targets).
      const bodies = new Map<string, string>();
      for (const { eventId } of targets) if (!bodies.has(eventId)) bodies.set(eventId, serialiseEnvelope(byId.get(eventId)!));
      await mapLimit(targets, startConcurrency, async (target) => {
        const event = byId.get(target.eventId)!;
        const input: WebhookDeliveryInput = {
          eventId: event.id,
          eventType: event.type,
          accountId: event.accountId,
          environment: event.environment,
          endpointId: target.endpointId,
          endpointEpoch: target.deliveryEpoch,
          url: target.url,
          body: bodies.get(event.id)!,
          retrySchedule: options.retrySchedule,
        };
        // The delivery continues the trace of the change that emitted the event.
        await withOrigin(event.traceContext, () => starters.webhookDelivery(input));
      });
      return events.length === batchSize;
    });
  }

  return startRelayLoop({ name: 'outbox relay', channel: OUTBOX_CHANNEL, databaseUrl: options.databaseUrl, logger, sweepIntervalMs, drainBatch });
}
