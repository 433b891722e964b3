import { z } from 'zod';
import { INVOICE_STATUSES } from '../../../db/models';
import { singleLine } from '../../../lib/text';
import { pageQuery } from '../../pagination';
import { pathId, Timestamp } from '../../openapi';

export { IssueInvoiceBody } from '../../../domain/invoices';

const instant = (description: string) =>
  z.iso
    .datetime({ offset: true })
    .transform((value) => new Date(value))
    .optional()
    .meta({ description, format: 'date-time' });

/** Document 2's invoice filters, shared by the list and the CSV export. */
const filters = {
  status: z.enum(INVOICE_STATUSES).optional(),
  customerId: singleLine({ min: 1, max: 100, trim: false }).optional().meta({ description: 'Only this customer’s invoices' }),
  subscriptionId: singleLine({ min: 1, max: 100, trim: false }).optional().meta({ description: 'Only this subscription’s invoices' }),
  createdAfter: instant('Only invoices created strictly after this instant (ISO 8601)'),
  createdBefore: instant('Only invoices created strictly before this instant (ISO 8601)'),
};

const orderedBounds = (query: { createdAfter?: Date; createdBefore?: Date }) =>
  query.createdAfter === undefined || query.createdBefore === undefined || query.createdAfter < query.createdBefore;
const ORDERED_BOUNDS = { message: 'createdAfter must be earlier than createdBefore', path: ['createdBefore'] };

export const ListInvoicesQuery = pageQuery().extend(filters).refine(orderedBounds, ORDERED_BOUNDS);
export const ExportInvoicesQuery = z.object(filters).refine(orderedBounds, ORDERED_BOUNDS);

export const InvoiceIdParams = z.object({ id: pathId });

const smallestUnit = (description = 'Smallest currency unit') => z.int().meta({ description });

export const InvoiceLineItem = z
  .object({
    description: z.string(),
    quantity: z.int(),
    unitAmount: smallestUnit(),
    amount: smallestUnit('quantity × unitAmount'),
  })
  .meta({ id: 'InvoiceLineItem' });

export const Invoice = z
  .object({
    id: z.string().meta({ example: 'inv_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    accountId: z.string(),
    customerId: z.string().nullable(),
    subscriptionId: z.string().nullable(),
    number: z.string().meta({ description: '`INV-<PREFIX>-<seq>`: gap-free per workspace and environment', example: 'INV-ACME-000042' }),
    status: z.enum(INVOICE_STATUSES),
    amount: smallestUnit('Total: subtotal + taxAmount'),
    subtotal: smallestUnit('Sum of the lines'),
    taxAmount: smallestUnit('The workspace’s tax rate at issue on the subtotal, rounded half up'),
    currency: z.string(),
    lineItems: z.array(InvoiceLineItem),
    memo: z.string().nullable(),
    periodStart: Timestamp.nullable().meta({ description: 'The billing period of a subscription invoice' }),
    periodEnd: Timestamp.nullable(),
    issuedAt: Timestamp,
    dueAt: Timestamp.nullable(),
    paidAt: Timestamp.nullable(),
    voidedAt: Timestamp.nullable(),
    hostedUrl: z.string().nullable().meta({ description: 'The buyer’s payment page (a hosted checkout page); null when nothing is collected through this service' }),
    pdfUrl: z.string().meta({ description: 'The PDF endpoint (needs a secret key)' }),
    metadata: z.record(z.string(), z.string()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Invoice' });
