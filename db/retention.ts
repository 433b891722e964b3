import type { Sequelize } from 'sequelize';
import { IDEMPOTENCY_WINDOW_HOURS } from './idempotency';

/** How long the webhook delivery log and fanned-out events are kept (Stripe keeps events 30 days). */
export const DELIVERY_HISTORY_DAYS = 30;

/** How long storefront analytics events are kept. */
export const STOREFRONT_EVENT_DAYS = 30;

export interface PurgeResult {
  idempotencyKeys: number;
  rateLimits: number;
  deliveryAttempts: number;
  events: number;
  storefrontEvents: number;
}

function rowCount(result: unknown): number {
  return typeof result === 'object' && result !== null && 'rowCount' in result ? Number(result.rowCount) : 0;
}

/**
 * Run by the maintenance schedule: idempotency records past their window, expired rate-limit counters,
 * delivery-log rows and published events past the history window, storefront analytics events past theirs. An event not yet fanned out is never
 * deleted, however old, so the relay still delivers it.
 */
export async function purgeExpiredRecords(sequelize: Sequelize, now = new Date()): Promise<PurgeResult> {
  const replacements = { now: now.toISOString(), nowMs: now.getTime(), windowHours: IDEMPOTENCY_WINDOW_HOURS, historyDays: DELIVERY_HISTORY_DAYS };
  const [, idempotencyKeys] = await sequelize.query(
    `DELETE FROM idempotency_keys WHERE created_at < :now::timestamptz - make_interval(hours => :windowHours)`,
    { replacements },
  );
  const [, rateLimits] = await sequelize.query(`DELETE FROM rate_limits WHERE expire < :nowMs`, { replacements });
  const [, deliveryAttempts] = await sequelize.query(
    `DELETE FROM webhook_delivery_attempts WHERE created_at < :now::timestamptz - make_interval(days => :historyDays)`,
    { replacements },
  );
  const [, events] = await sequelize.query(
    `DELETE FROM events WHERE published_at IS NOT NULL AND created_at < :now::timestamptz - make_interval(days => :historyDays)`,
    { replacements },
  );
  const [, storefrontEvents] = await sequelize.query(
    `DELETE FROM storefront_events WHERE created_at < :now::timestamptz - make_interval(days => :storefrontDays)`,
    { replacements: { ...replacements, storefrontDays: STOREFRONT_EVENT_DAYS } },
  );
  return {
    idempotencyKeys: rowCount(idempotencyKeys),
    rateLimits: rowCount(rateLimits),
    deliveryAttempts: rowCount(deliveryAttempts),
    events: rowCount(events),
    storefrontEvents: rowCount(storefrontEvents),
  };
}
