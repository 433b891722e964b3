import { z } from 'zod';
import { CHECKOUT_STATUSES, PAYMENT_METHODS } from '../../../db/models/checkout-session';
import { ENVIRONMENTS } from '../../../db/models/common';
import { pageQuery } from '../../pagination';
import { pathId, Timestamp } from '../../openapi';

export { CreateCheckoutSessionBody, PayCheckoutSessionBody, PixelCookiesBody, RefundCheckoutSessionBody } from '../../../domain/checkout';

export const ListCheckoutSessionsQuery = pageQuery().extend({
  status: z.enum(CHECKOUT_STATUSES).optional().meta({ description: 'Only sessions with this stored status' }),
});
export type ListCheckoutSessionsQuery = z.infer<typeof ListCheckoutSessionsQuery>;

export const CheckoutSessionIdParams = z.object({ id: pathId });

const smallestUnit = (description?: string) => z.int().meta({ description: description ?? 'Smallest currency unit' });

export const CheckoutLineItem = z
  .object({
    lineKey: z.string().meta({ description: 'Keys the line’s delivery and licence' }),
    productId: z.string().nullable(),
    variantId: z.string().nullable(),
    name: z.string().meta({ description: 'The product’s name when the session was created' }),
    variantName: z.string().nullable().meta({ description: 'The variant’s name when the session was created; null without a variant' }),
    quantity: z.int(),
    unitAmount: smallestUnit(),
    amount: smallestUnit('unitAmount × quantity, smallest unit'),
  })
  .meta({ id: 'CheckoutLineItem' });

const status = z.enum(CHECKOUT_STATUSES);
const paymentMethod = z.enum(PAYMENT_METHODS);

export const CheckoutSession = z
  .object({
    id: z.string().meta({ example: 'cs_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    accountId: z.string(),
    status,
    amount: smallestUnit('Total, smallest unit'),
    currency: z.string(),
    description: z.string(),
    customerEmail: z.string(),
    customerId: z.string().nullable(),
    paymentMethods: z.array(paymentMethod),
    paymentMethod: paymentMethod.nullable().meta({ description: 'The method used; null until paid' }),
    hostedUrl: z.string().meta({ description: 'Where to send the buyer: the hosted checkout page' }),
    successUrl: z.string().nullable(),
    cancelUrl: z.string().nullable(),
    lineItems: z.array(CheckoutLineItem).meta({ description: 'One line per product bought; empty for a payment without a product' }),
    subtotal: smallestUnit('Sum of the lines before the discount'),
    discountCode: z.string().nullable(),
    discountAmount: smallestUnit(),
    discountApplied: z.boolean().nullable().meta({ description: 'Set at fulfillment: false when the code ran out of uses before completion' }),
    amountRefunded: smallestUnit('Sum of the refunds so far'),
    expiresAt: Timestamp,
    completedAt: Timestamp.nullable(),
    metadata: z.record(z.string(), z.unknown()),
    createdAt: Timestamp,
  })
  .meta({ id: 'CheckoutSession' });

export const CheckoutRefund = z
  .object({
    id: z.string().meta({ example: 're_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    accountId: z.string(),
    checkoutSessionId: z.string(),
    amount: smallestUnit(),
    currency: z.string(),
    reason: z.string().nullable(),
    status: z.enum(['pending', 'succeeded', 'failed']).meta({
      description: 'Local refunds are bookkeeping and have succeeded when answered; a provider-mode refund is pending until the provider reports it',
    }),
    createdAt: Timestamp,
    checkoutSession: CheckoutSession,
  })
  .meta({ id: 'CheckoutRefund' });

export const PublicCheckoutSession = z
  .object({
    id: z.string().meta({ example: 'cs_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    environment: z.enum(ENVIRONMENTS).meta({ description: '`test` sessions take no real money: the page should say so' }),
    status: status.meta({ description: 'An `open` session past `expiresAt` reads as `expired`' }),
    amount: smallestUnit('Total, smallest unit'),
    currency: z.string(),
    description: z.string(),
    lineItems: z.array(z.object({ name: z.string(), quantity: z.int(), unitAmount: smallestUnit(), amount: smallestUnit() })),
    subtotal: smallestUnit(),
    discountCode: z.string().nullable(),
    discountAmount: smallestUnit(),
    customerEmailMasked: z.string().meta({ example: 'b***@example.com', description: 'The receipt address, first character only' }),
    paymentMethods: z.array(paymentMethod),
    paymentMethod: paymentMethod.nullable(),
    expiresAt: Timestamp,
    completedAt: Timestamp.nullable(),
    successUrl: z.string().nullable(),
    cancelUrl: z.string().nullable(),
    merchant: z.object({ name: z.string(), slug: z.string().nullable(), brandColor: z.string().nullable(), brandLogo: z.string().nullable() }),
    manualPayment: z
      .object({ bankName: z.string().nullable(), accountNumber: z.string().nullable(), accountHolder: z.string().nullable(), instructions: z.string().nullable() })
      .nullable()
      .meta({ description: 'Where to transfer the payment: only while a local-mode payment awaits the merchant (`pending_review`)' }),
  })
  .meta({ id: 'PublicCheckoutSession' });

export const CheckoutPayment = z
  .object({
    status: z.enum(['pending_review', 'open']).meta({ description: 'Local mode: `pending_review` (the merchant confirms the transfer)' }),
    redirectUrl: z.string().meta({ description: 'Where the buyer continues: the hosted page in local mode' }),
    checkoutSession: PublicCheckoutSession,
  })
  .meta({ id: 'CheckoutPayment' });
