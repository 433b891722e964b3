import type { Transaction } from 'sequelize';
import { insertCheckoutSessionRow } from '../../db/checkout-sessions';
import { CheckoutSession, type CheckoutLineItem, type CheckoutSource, type PaymentMethod, type ShippingAddress } from '../../db/models';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { newId } from '../../lib/ids';
import { workflowIds } from '../../workflows/messages';
import { reserveForLines, type ReservationOwner } from '../inventory';
import { recordStart } from '../workflow-starts';
import type { ProviderInvoices } from './backends';

/** The session's default lifetime (document 2, Limits). */
export const DEFAULT_CHECKOUT_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** The furthest `expiresAt` a caller may set (docs/decisions/checkout.md). */
export const MAX_CHECKOUT_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

/** A session as its creator priced it; every amount in the currency's smallest unit. */
export interface NewCheckoutSession {
  source: CheckoutSource;
  amount: number;
  currency: string;
  description: string;
  customerEmail: string;
  customerName?: string | null;
  customerPhone?: string | null;
  customerId?: string | null;
  paymentMethods: PaymentMethod[];
  paymentMethod?: PaymentMethod | null;
  lineItems: CheckoutLineItem[];
  subtotal: number;
  discount?: { id: string; code: string; amount: number } | null;
  shippingAddress?: ShippingAddress | null;
  referralCode?: string | null;
  successUrl?: string | null;
  cancelUrl?: string | null;
  expiresAt?: Date | null;
  metadata?: Record<string, unknown>;
  /** Fixed by the caller (a local subscription's charges stay local); else the workspace's payment switch decides. */
  backend?: 'local' | 'provider';
}

export interface CreatedCheckoutSession {
  session: CheckoutSession;
  /** The `checkout-session:<cs>` start recorded with it: start it after commit (`startRecordedNow`). */
  workflowId: string;
}

/** A session's stock hold: referenced by the session, moved by its workflow (docs/decisions/inventory.md, Reservations). */
export const checkoutStockOwner = (sessionId: string): ReservationOwner => ({
  reference: sessionId,
  actor: { type: 'workflow', id: workflowIds.checkoutSession(sessionId) },
});

/**
 * Writes a session and, in the same transaction, the durable start of its workflow (expiry, then fulfillment),
 * so a crash between the commit and the start delays the workflow, never loses it, and the reservation of its
 * stock-tracked variants while the fulfillment module is on (`409 INSUFFICIENT_STOCK` when short: the caller's
 * transaction rolls back, nothing is written). Callers have validated and priced the input; this stores it.
 * With `providerInvoices`, a provider-mode session gets its provider invoice here, so its `hostedUrl` is the
 * provider's page from the start; without, its first pay creates it.
 */
export async function insertCheckoutSession(
  tx: Transaction,
  tenant: Tenant,
  input: NewCheckoutSession,
  now = new Date(),
  { providerInvoices }: { providerInvoices?: ProviderInvoices } = {},
): Promise<CreatedCheckoutSession> {
  const expiresAt = input.expiresAt ?? new Date(now.getTime() + DEFAULT_CHECKOUT_LIFETIME_MS);
  // A plain INSERT of every column (a model instance's build, validation and hooks cost more than the statement),
  // the row then taken into an instance for the callers.
  const row = await insertCheckoutSessionRow(tx, {
    id: newId('cs'),
    ...tenantWhere(tenant),
    source: input.source,
    amount: input.amount,
    currency: input.currency,
    description: input.description,
    customerEmail: input.customerEmail,
    customerName: input.customerName ?? null,
    customerPhone: input.customerPhone ?? null,
    customerId: input.customerId ?? null,
    paymentMethods: input.paymentMethod ? [input.paymentMethod] : input.paymentMethods,
    lineItems: input.lineItems,
    subtotal: input.subtotal,
    discountId: input.discount?.id ?? null,
    discountCode: input.discount?.code ?? null,
    discountAmount: input.discount?.amount ?? 0,
    shippingAddress: input.shippingAddress ?? null,
    referralCode: input.referralCode ?? null,
    successUrl: input.successUrl ?? null,
    cancelUrl: input.cancelUrl ?? null,
    expiresAt,
    metadata: input.metadata ?? {},
    backend: input.backend,
  });
  const session = CheckoutSession.build(row, { raw: true, isNewRecord: false });
  const workflowId = await recordStart(tx, tenant, {
    workflowType: 'checkoutSession',
    input: { ...tenantWhere(tenant), sessionId: session.id, expiresAt: expiresAt.toISOString() },
  });
  // Before the stock is reserved, so no stock row stays locked while the provider answers.
  if (session.backend === 'provider' && providerInvoices) await providerInvoices.open(tx, session);
  // Last, so the stock rows are locked only for the commit: the session's workflow releases or commits the hold.
  try {
    await reserveForLines(tx, tenant, input.lineItems, checkoutStockOwner(session.id));
  } catch (err) {
    // Refused (short of stock): the invoice's page was never given out; it is expired so it can never be paid.
    if (providerInvoices) await providerInvoices.discard(session).catch(() => undefined);
    throw err;
  }
  return { session, workflowId };
}
