import type { Sequelize } from 'sequelize';
import { IDEMPOTENCY_WINDOW_HOURS } from './idempotency';

/** How long the webhook delivery log and fanned-out events are kept (Stripe keeps events 30 days). */
export const DELIVERY_HISTORY_DAYS = 30;

/** How long storefront analytics events are kept. */
export const STOREFRONT_EVENT_DAYS = 30;

/**
 * How long a partner webhook's signature is remembered for replay refusal: a delivery signed longer ago than the
 * 5-minute tolerance is refused by its timestamp anyway; a day leaves room for clock trouble.
 */
export const WEBHOOK_RECEIPT_HOURS = 24;

export interface PurgeResult {
  idempotencyKeys: number;
  rateLimits: number;
  deliveryAttempts: number;
  events: number;
  storefrontEvents: number;
  workflowStarts: number;
  shippingWebhookReceipts: number;
}

function rowCount(result: unknown): number {
  return typeof result === 'object' && result !== null && 'rowCount' in result ? Number(result.rowCount) : 0;
}

/**
 * Run by the maintenance schedule: idempotency records past their window, expired rate-limit counters,
 * delivery-log rows, published events and started workflow-start rows past the history window, storefront
 * analytics events past theirs, partner webhook signatures past the replay window. An event not yet fanned out, or a workflow start not yet made, is never deleted,
 * however old, so the relays still act on it.
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
  const [, workflowStarts] = await sequelize.query(
    `DELETE FROM workflow_starts WHERE started_at < :now::timestamptz - make_interval(days => :historyDays)`,
    { replacements },
  );
  const [, shippingWebhookReceipts] = await sequelize.query(
    `DELETE FROM shipping_webhook_receipts WHERE received_at < :now::timestamptz - make_interval(hours => :receiptHours)`,
    { replacements: { ...replacements, receiptHours: WEBHOOK_RECEIPT_HOURS } },
  );
  return {
    idempotencyKeys: rowCount(idempotencyKeys),
    rateLimits: rowCount(rateLimits),
    deliveryAttempts: rowCount(deliveryAttempts),
    events: rowCount(events),
    storefrontEvents: rowCount(storefrontEvents),
    workflowStarts: rowCount(workflowStarts),
    shippingWebhookReceipts: rowCount(shippingWebhookReceipts),
  };
}
