import { z } from 'zod';
import { CURRENCIES } from '../../db/models/product';
import { multiLine, singleLine, stringMap } from '../../lib/text';

/** Bounds the spec leaves open (docs/decisions/billing.md, "Invoices"). */
export const MAX_INVOICE_LINES = 100;
export const MAX_LINE_QUANTITY = 100_000;
/** Any line's amount and the invoice's subtotal: far inside 2^53 with tax on top. */
export const MAX_INVOICE_AMOUNT = 1_000_000_000_000;
export const MAX_DUE_DAYS = 365;
export const DEFAULT_DUE_DAYS = 30;
/** Set by the service on an invoice it collects through a checkout session (ARCHITECTURE.md); not the merchant's. */
export const RESERVED_METADATA_KEYS = ['checkoutSessionId'] as const;

const customerId = z
  .string()
  .regex(/^cus_[0-9A-HJKMNP-TV-Z]{26}$|^cust_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a cust_ (or cus_) id')
  .meta({ example: 'cust_01JD4X7V1QZ8N6Y3K2M5P9R0TS' });

const LineItem = z
  .strictObject({
    description: singleLine({ min: 1, max: 500 }),
    quantity: z.int().min(1).max(MAX_LINE_QUANTITY),
    unitAmount: z.int().min(0).max(MAX_INVOICE_AMOUNT).meta({ description: 'Smallest currency unit (cents for USD, rupiah for IDR)' }),
  })
  .refine((line) => line.quantity * line.unitAmount <= MAX_INVOICE_AMOUNT, { message: `quantity × unitAmount must be at most ${MAX_INVOICE_AMOUNT}`, path: ['unitAmount'] })
  .meta({ id: 'InvoiceLineItemInput' });

const metadata = stringMap({ keyMax: 40, maxKeys: 50, value: singleLine({ max: 500, trim: false }) })
  .refine((m) => !RESERVED_METADATA_KEYS.some((key) => Object.hasOwn(m, key)), `${RESERVED_METADATA_KEYS.join(', ')} is set by the service`)
  .meta({ description: 'String-to-string map, at most 50 entries (keys 1 to 40 characters, values at most 500); `checkoutSessionId` is reserved' });

/** `POST /v1/billing/invoices`: a one-off invoice for one of the workspace's customers. */
export const IssueInvoiceBody = z
  .strictObject({
    customerId,
    currency: z.enum(CURRENCIES).meta({ description: 'A currency the hosted checkout page collects in' }),
    lineItems: z
      .array(LineItem)
      .min(1)
      .max(MAX_INVOICE_LINES)
      .refine((lines) => lines.reduce((sum, line) => sum + line.quantity * line.unitAmount, 0) <= MAX_INVOICE_AMOUNT, `the subtotal must be at most ${MAX_INVOICE_AMOUNT}`),
    dueAt: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({ description: `In the future and at most ${MAX_DUE_DAYS} days out; default ${DEFAULT_DUE_DAYS} days after issue` }),
    memo: multiLine({ max: 2000 }).optional().meta({ description: 'Printed on the invoice' }),
    metadata: metadata.optional(),
  })
  .meta({ id: 'IssueInvoiceBody' });
export type IssueInvoiceBody = z.infer<typeof IssueInvoiceBody>;
