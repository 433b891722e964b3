/**
 * Every event type named by the two API documents: the catalogue events of document 1 and the payment,
 * billing and payout events of document 2, including the ones reserved as "named but never emitted"
 * (an endpoint may subscribe to them ahead of time, as Stripe allows for any documented type).
 * Webhook endpoint `events` filters are validated against this list.
 */
export const EVENT_TYPES = [
  // Document 1: catalogue
  'service.product.created.v1',
  'service.product.updated.v1',
  'service.product.archived.v1',
  'service.variant.created.v1',
  'service.variant.updated.v1',
  'service.variant.archived.v1',
  // Documents 1 and 2: checkout and fulfillment
  'checkout.completed',
  'product.purchased',
  // Document 2: subscriptions
  'subscription.created',
  'subscription.renewed',
  'subscription.payment_succeeded',
  'subscription.payment_failed',
  'subscription.past_due',
  'subscription.canceled',
  // Document 2: provider-originated
  'customer.created',
  'invoice.created',
  'invoice.finalized',
  'invoice.paid',
  'invoice.payment_failed',
  'invoice.void',
  'payout.initiated',
  'payout.paid',
  'payout.failed',
  // Reserved: named but never emitted (document 1)
  'inventory.low_stock',
  'manual_order.placed',
  'manual_order.payment_confirmed',
  'manual_order.shipped',
  // Reserved: named but never emitted (document 2)
  'checkout.expired',
  'checkout.refunded',
  'payment.succeeded',
  'subscription.trial_will_end',
  'customer.updated',
  'customer.deleted',
  'plan.created',
  'plan.updated',
  'plan.archived',
  'webhook_endpoint.disabled',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

const KNOWN = new Set<string>(EVENT_TYPES);

export function isEventType(value: string): value is EventType {
  return KNOWN.has(value);
}
