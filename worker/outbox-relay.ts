import { Client as PgClient } from 'pg';
import type { Sequelize } from 'sequelize';
import { claimEventsForFanOut } from '../domain/webhooks/deliveries';
import type { Starters } from '../domain/workflow-starters';
import type { Logger } from '../lib/logger';
import { serialiseEnvelope } from '../lib/webhooks/envelope';
import type { WebhookDeliveryInput } from '../workflows/messages';

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

export interface OutboxRelay {
  /** Drains now (also what a notification does). */
  wake(): void;
  /** Resolves when the pass in progress, and any pass it queued, has finished. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

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
 * a periodic sweep.
 */
export function startOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { sequelize, starters, logger } = options;
  const batchSize = options.batchSize ?? 100;
  const startConcurrency = options.startConcurrency ?? 32;
  const sweepIntervalMs = options.sweepIntervalMs ?? 2_000;

  let stopped = false;
  let draining: Promise<void> | null = null;
  let again = false;
  let listener: PgClient | null = null;
  let reconnectTimer: NodeJS.Timeout | null = null;

  async function drainBatch(): Promise<number> {
    return sequelize.transaction(async (tx) => {
      const { events, targets } = await claimEventsForFanOut(sequelize, tx, batchSize);
      if (events.length === 0) return 0;
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
        await starters.webhookDelivery(input);
      });
      return events.length;
    });
  }

  async function drain(): Promise<void> {
    do {
      again = false;
      let claimed = batchSize;
      while (!stopped && claimed === batchSize) claimed = await drainBatch();
    } while (again && !stopped);
  }

  function wake(): void {
    if (stopped) return;
    if (draining) {
      again = true;
      return;
    }
    draining = drain()
      .catch((err: unknown) => logger.error({ err }, 'outbox relay pass failed; the next sweep retries'))
      .finally(() => {
        draining = null;
      });
  }

  async function listen(): Promise<void> {
    const client = new PgClient({ connectionString: options.databaseUrl });
    let lost = false;
    const retry = (err?: unknown) => {
      if (lost || stopped) return;
      lost = true;
      logger.warn({ err }, 'outbox relay lost its LISTEN connection; reconnecting (the sweep covers the gap)');
      client.removeAllListeners();
      client.end().catch(() => undefined);
      if (listener === client) listener = null;
      reconnectTimer = setTimeout(() => void listen(), 1_000);
    };
    client.on('error', retry);
    client.on('end', () => retry());
    client.on('notification', () => wake());
    try {
      await client.connect();
      await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
      if (stopped) {
        await client.end();
        return;
      }
      listener = client;
      // Anything committed while we were not listening.
      wake();
    } catch (err) {
      retry(err);
    }
  }

  void listen();
  const sweep = setInterval(wake, sweepIntervalMs);
  wake();

  return {
    wake,
    async idle() {
      while (draining) await draining;
    },
    async stop() {
      stopped = true;
      clearInterval(sweep);
      if (reconnectTimer) clearTimeout(reconnectTimer);
      await draining;
      const client = listener;
      listener = null;
      if (client) {
        client.removeAllListeners();
        await client.end().catch(() => undefined);
      }
    },
  };
}
