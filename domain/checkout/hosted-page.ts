import { Account, CheckoutSession, Delivery, PAYMENT_METHODS, ProductFile, type PaymentMethod } from '../../db/models';
import { tenantWhere } from '../../db/tenancy';
import { requireEncryptionKey } from '../../lib/config';
import { notFound, validationError } from '../../lib/errors';
import type { MoneyCurrency } from '../../lib/money';
import { createDownloadLinks } from '../deliveries';
import type { ServiceDeps } from '../service-deps';
import { httpUrlOrNull, localPaymentMethods, manualInstructionsFor, pageMerchantOf, type ManualPaymentInstructions, type PageMerchant } from '../storefront';
import { paymentBackendOfSession } from './backends';
import { payCheckoutSession } from './transitions';

/**
 * What the hosted checkout page (api/pages/checkout) shows a buyer: one state of the session, read from the
 * database on every load. Buyer-safe by construction: it names no workspace id, metadata, customer record or
 * other session, and every URL it carries is http(s) (a `javascript:` success URL never becomes a link).
 */

/** The session's status as the buyer sees it: an `open` session past `expiresAt` is already `expired`. */
export type HostedPageState = 'open' | 'pending_review' | 'completed' | 'expired' | 'failed';

export interface HostedPageLine {
  name: string;
  quantity: number;
  unitAmount: number;
  amount: number;
}

export type ReceiptItem =
  | { kind: 'download'; lineName: string; fileName: string; url: string; expiresAt: Date; exhausted: boolean }
  | { kind: 'download_unavailable'; lineName: string }
  | { kind: 'shipment' | 'manual'; lineName: string };

export interface HostedPageReceipt {
  /** False while fulfillment has not yet written every line's delivery: the page says so and a reload shows more. */
  ready: boolean;
  completedAt: Date;
  items: ReceiptItem[];
  /** Every key a delivery carries: a licence's, or a licensed download's. */
  licenses: { lineName: string; key: string }[];
  /** Each delivered line's order page (`/order/del_…`), which the buyer can return to without this session's id. */
  orderPages: { lineName: string; url: string }[];
}

export interface HostedCheckoutView {
  id: string;
  state: HostedPageState;
  testMode: boolean;
  merchant: PageMerchant;
  description: string;
  currency: MoneyCurrency;
  lines: HostedPageLine[];
  subtotal: number;
  discount: { code: string; amount: number } | null;
  total: number;
  /** The methods the buyer may pick: in local mode only those the merchant gave instructions for. */
  paymentMethods: PaymentMethod[];
  /** The method the buyer chose; null until paid. */
  paymentMethod: PaymentMethod | null;
  expiresAt: Date;
  successUrl: string | null;
  cancelUrl: string | null;
  /** Only in `pending_review`: the merchant's instructions for the chosen method; null when it has none. */
  instructions: ManualPaymentInstructions | null;
  /** Only in `completed`. */
  receipt: HostedPageReceipt | null;
  /** A provider-mode session's: the origin of the provider's page its pay button leads to. */
  providerOrigin: string | null;
}

/** `cs_` + a ULID: anything else is answered 404 without a query. */
const SESSION_ID = /^cs_[0-9A-HJKMNP-TV-Z]{26}$/;

function stateOf(session: CheckoutSession, now: Date): HostedPageState {
  return session.status === 'open' && session.expiresAt <= now ? 'expired' : session.status;
}

/**
 * Where a provider session's pay leads: its invoice's page, or, before the invoice exists (a session whose creator
 * did not open one), the configured provider's address, where the sandbox serves its pages.
 */
function providerOriginOf(session: CheckoutSession, baseUrl: string | undefined): string | null {
  if (session.backend !== 'provider') return null;
  const url = session.providerInvoiceUrl ?? baseUrl;
  return url ? new URL(url).origin : null;
}

export function createHostedCheckoutService({ sequelize, config, logger, starters }: Pick<ServiceDeps, 'sequelize' | 'config' | 'logger' | 'starters'>) {
  const links = createDownloadLinks({ secret: requireEncryptionKey(config), publicBaseUrl: config.PUBLIC_BASE_URL });

  async function receiptOf(session: CheckoutSession, now: Date): Promise<HostedPageReceipt> {
    const tenant = tenantWhere(session);
    const deliveries = await Delivery.findAll({ where: { checkoutSessionId: session.id, ...tenant } });
    const fileIds = deliveries.flatMap((d) => (d.fileId ? [d.fileId] : []));
    const files = new Map((fileIds.length ? await ProductFile.findAll({ where: { id: fileIds, ...tenant } }) : []).map((f) => [f.id, f]));
    const byLine = new Map(deliveries.map((d) => [d.lineKey, d]));
    const items: ReceiptItem[] = [];
    const licenses: HostedPageReceipt['licenses'] = [];
    const orderPages: HostedPageReceipt['orderPages'] = [];
    for (const line of session.lineItems) {
      const delivery = byLine.get(line.lineKey);
      if (!delivery) continue;
      const lineName = line.name;
      orderPages.push({ lineName, url: links.orderPageUrl(delivery.id) });
      if (delivery.licenseKey) licenses.push({ lineName, key: delivery.licenseKey });
      if (delivery.kind === 'download') {
        const file = delivery.fileId ? files.get(delivery.fileId) : undefined;
        if (!file) {
          items.push({ kind: 'download_unavailable', lineName });
          continue;
        }
        // Signed anew on every load, like a delivery retrieve: a buyer who returns later gets a fresh 7-day link.
        const link = links.sign(delivery.id, now.getTime());
        const exhausted = delivery.downloadLimit != null && (delivery.downloadCount ?? 0) >= delivery.downloadLimit;
        items.push({ kind: 'download', lineName, fileName: file.fileName, url: link.url, expiresAt: link.expiresAt, exhausted });
      } else if (delivery.kind === 'shipment' || delivery.kind === 'manual') {
        items.push({ kind: delivery.kind, lineName });
      }
    }
    // Lines without a product (a plain payment) get no delivery; every other line gets exactly one.
    const ready = session.fulfilledAt != null || session.lineItems.every((line) => line.productId == null || byLine.has(line.lineKey));
    return { ready, completedAt: session.completedAt ?? session.updatedAt, items, licenses, orderPages };
  }

  return {
    /** The page of `sessionId` as of `now`; undefined for an unknown (or malformed) id. */
    async view(sessionId: string, now = new Date()): Promise<HostedCheckoutView | undefined> {
      if (!SESSION_ID.test(sessionId)) return undefined;
      const session = await CheckoutSession.findByPk(sessionId);
      if (!session) return undefined;
      const account = await Account.findByPk(session.accountId);
      if (!account) return undefined;
      const state = stateOf(session, now);
      return {
        id: session.id,
        state,
        testMode: session.environment === 'test',
        merchant: pageMerchantOf(account),
        description: session.description,
        currency: session.currency as MoneyCurrency,
        lines: session.lineItems.map(({ name, quantity, unitAmount, amount }) => ({ name, quantity, unitAmount, amount })),
        subtotal: session.subtotal,
        discount: session.discountCode && session.discountAmount > 0 ? { code: session.discountCode, amount: session.discountAmount } : null,
        total: session.amount,
        paymentMethods: session.backend === 'local' ? localPaymentMethods(session.paymentMethods, account) : session.paymentMethods,
        paymentMethod: session.paymentMethod,
        expiresAt: session.expiresAt,
        successUrl: httpUrlOrNull(session.successUrl),
        cancelUrl: httpUrlOrNull(session.cancelUrl),
        instructions: state === 'pending_review' && session.paymentMethod ? manualInstructionsFor(account, session.paymentMethod) : null,
        receipt: state === 'completed' ? await receiptOf(session, now) : null,
        providerOrigin: providerOriginOf(session, config.PAYMENT_PROVIDER_BASE_URL),
      };
    },

    /**
     * The buyer's pay button, through the session's own backend: `open` → `pending_review` in local mode; in
     * provider mode the session stays `open` and the answer is the provider's page to send the buyer to. A method
     * outside the session's set, or in local mode one the merchant gave no instructions for (the page does not
     * offer it), is `400 VALIDATION_ERROR`; a session that is not open (or is past its expiry) `409 INVALID_STATE`.
     */
    async pay(sessionId: string, method: unknown, now = new Date()): Promise<{ providerUrl: string | null }> {
      if (!SESSION_ID.test(sessionId)) throw notFound('Checkout session');
      if (typeof method !== 'string' || !(PAYMENT_METHODS as readonly string[]).includes(method)) {
        throw validationError('paymentMethod: choose one of the payment methods shown', [{ field: 'paymentMethod', message: `one of ${PAYMENT_METHODS.join(', ')}` }]);
      }
      const session = await CheckoutSession.findByPk(sessionId, { attributes: ['id', 'accountId', 'backend', 'environment', 'paymentMethods'] });
      if (!session) throw notFound('Checkout session');
      if (session.backend === 'local') {
        const account = await Account.findByPk(session.accountId);
        if (!account || !localPaymentMethods(session.paymentMethods, account).includes(method as PaymentMethod)) {
          throw validationError('paymentMethod: choose one of the payment methods shown', [{ field: 'paymentMethod', message: 'not offered for this checkout' }]);
        }
      }
      const backend = paymentBackendOfSession(config, session);
      const { submission } = await payCheckoutSession({ sequelize, starters, logger }, backend, sessionId, method as PaymentMethod, now);
      return { providerUrl: backend.mode === 'provider' ? submission.redirectUrl : null };
    },
  };
}

export type HostedCheckoutService = ReturnType<typeof createHostedCheckoutService>;
