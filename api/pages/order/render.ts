import type { Response } from 'express';
import type { OrderView } from '../../../domain/checkout';
import { engine, renderMessage as renderPageMessage, sendPage, type PageKind } from '../shared/render';
import { ORDER } from './templates';

const body = engine.compile(ORDER);
const DATE = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeZone: 'UTC' });

type Tone = 'done' | 'stopped' | '';

/** How each status reads on the page, and its badge's colour (`''` the waiting one). */
const STATUSES: Record<OrderView['order']['status'], [string, Tone]> = {
  completed: ['Paid', 'done'],
  open: ['Awaiting payment', ''],
  pending_review: ['Awaiting confirmation', ''],
  expired: ['Expired', 'stopped'],
  failed: ['Not completed', 'stopped'],
  payment_confirmed: ['Payment confirmed', 'done'],
  awaiting_payment: ['Awaiting payment', ''],
  canceled: ['Canceled', 'stopped'],
};

const FULFILLMENT: Record<NonNullable<OrderView['order']['fulfillmentStatus']>, string> = {
  preparing: 'Preparing',
  ready_to_ship: 'Ready to ship',
  shipped: 'Shipped',
  delivered: 'Delivered',
};

function licenseNote(license: OrderView['license']): string | null {
  if (!license) return null;
  if (license.status === 'revoked') return 'This key has been revoked.';
  if (license.status === 'expired') return 'This key has expired.';
  return license.expiresAt ? `Valid until ${DATE.format(license.expiresAt)}.` : null;
}

const kindAt = (base: string): PageKind => ({ base, footer: 'Delivery' });

/** The order page of one delivery as it is now. */
export function renderOrder(res: Response, base: string, view: OrderView): void {
  const [statusLabel, statusTone] = STATUSES[view.order.status];
  const context = {
    ...view,
    statusLabel,
    statusTone,
    fulfillmentLabel: view.order.fulfillmentStatus ? FULFILLMENT[view.order.fulfillmentStatus] : null,
    showQuantity: view.line.quantity !== 1,
    otherLines: view.order.lineCount > 1,
    licenseNote: licenseNote(view.license),
    handDelivered: view.kind === 'manual',
  };
  sendPage(res, {
    ...kindAt(base),
    status: 200,
    title: 'Your order',
    merchant: view.merchant,
    testMode: view.environment === 'test',
    reference: view.deliveryId,
    images: view.product.thumbnail ? [view.product.thumbnail] : [],
    body: body(context),
  });
}

export function renderMessage(res: Response, base: string, text: { status: number; heading: string; message: string }): void {
  renderPageMessage(res, kindAt(base), text);
}
