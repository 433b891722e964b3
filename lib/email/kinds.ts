import { z } from 'zod';
import { CURRENCY_EXPONENTS } from '../money';

/**
 * What each kind of buyer e-mail needs, checked when it is queued (a bad payload fails the business
 * transaction, not a retry loop a day later). Amounts are integers in the smallest currency unit; every
 * link must be http(s), so a `javascript:` or `data:` URL never reaches an `href`.
 */
const httpUrl = z.url({ protocol: /^https?$/ });
// One line of text: a control character (a line break in a name) could forge lines of the plain-text part.
const text = (max: number) => z.string().trim().min(1).max(max).regex(/^\P{Cc}*$/u, 'must not contain control characters');
const currency = z.enum(Object.keys(CURRENCY_EXPONENTS) as [keyof typeof CURRENCY_EXPONENTS, ...(keyof typeof CURRENCY_EXPONENTS)[]]);
const amount = z.number().int().min(0);

const order = {
  /** Greeting name; omitted greets without one. */
  buyerName: text(200).optional(),
  /** The buyer-facing reference: checkout session or manual order id. */
  orderNumber: text(100),
};

export const EMAIL_DATA = {
  checkout_receipt: z.strictObject({
    ...order,
    currency,
    lines: z.array(z.strictObject({ name: text(300), quantity: z.number().int().min(1), amount })).min(1).max(100),
    /** The lines' sum before the discount; given with `discount`. */
    subtotal: amount.optional(),
    discount: z.strictObject({ code: text(100), amount }).optional(),
    total: amount,
    downloads: z.array(z.strictObject({ name: text(300), url: httpUrl })).max(100).default([]),
    licenceKeys: z.array(z.strictObject({ product: text(300), key: text(500) })).max(100).default([]),
    /** The buyer's order page (`/order/del_…`), not the merchant's success URL: the receipt outlives that page. */
    orderUrl: httpUrl.optional(),
  }),
  manual_order_instructions: z.strictObject({
    ...order,
    currency,
    amount,
    /** Where the buyer can see the order and confirm the transfer. */
    orderUrl: httpUrl.optional(),
  }),
  payment_confirmed: z.strictObject({ ...order, currency, amount, orderUrl: httpUrl.optional() }),
  subscription_payment_failed: z.strictObject({
    buyerName: text(200).optional(),
    invoiceNumber: text(100),
    /** What the invoice bills, e.g. the plan and period. */
    description: text(300),
    currency,
    amount,
    /** The invoice's hosted payment page. */
    payUrl: httpUrl,
    /** The date of the next check (dunning retry); omitted after the last one. */
    nextAttemptOn: text(100).optional(),
  }),
  /** To the workspace's owner when a key is rotated in the dashboard (document 1, Authentication). */
  api_key_rotated: z.strictObject({
    keyName: text(100),
    /** The key as lists show it, e.g. `sk_test_…a1b2`: never the value. */
    keyHint: text(100),
    environment: z.enum(['test', 'live']),
    rotatedBy: text(254),
    rotatedAt: text(100),
    /** When the old value stops working. */
    oldValueExpiresAt: text(100),
    /** The dashboard's API keys page. */
    keysUrl: httpUrl,
  }),
  shipping_notification: z.strictObject({
    ...order,
    courier: text(100).optional(),
    trackingNumber: text(100).optional(),
    trackingUrl: httpUrl.optional(),
  }),
};

export type EmailKind = keyof typeof EMAIL_DATA;
export const EMAIL_KINDS = Object.keys(EMAIL_DATA) as EmailKind[];

/** What the caller hands in (defaults may be left out). */
export type EmailDataInput<K extends EmailKind> = z.input<(typeof EMAIL_DATA)[K]>;
/** What the templates see. */
export type EmailData<K extends EmailKind> = z.output<(typeof EMAIL_DATA)[K]>;

/** Checks `data` against `kind`'s schema; throws a ZodError naming each bad field. */
export function parseEmailData<K extends EmailKind>(kind: K, data: unknown): EmailData<K> {
  return EMAIL_DATA[kind].parse(data) as EmailData<K>;
}
