import type { Readable } from 'node:stream';
import type { Client } from 'pg';
import QueryStream from 'pg-query-stream';
import type { Attributes, Sequelize } from 'sequelize';
import { selectColumns } from './columns';
import { decodeCursor, toListPage, type ListPage } from './cursor';
import { Invoice, type InvoiceStatus } from './models';
import type { PageRequest } from './pagination';
import { plainQuery } from './plain-query';
import type { Tenant } from './tenancy';

/** The filters of the invoice list and of its CSV export (document 2: the same filters, no pagination). */
export interface InvoiceFilters {
  status?: InvoiceStatus;
  customerId?: string;
  subscriptionId?: string;
  /** Exclusive bounds on `createdAt`. */
  createdAfter?: Date;
  createdBefore?: Date;
}

interface Statement {
  text: string;
  values: unknown[];
}

/** `WHERE` conditions on `invoices i` for a tenant and filters, binding each value (texts come from code only). */
function conditionsOf(tenant: Tenant, filters: InvoiceFilters, values: unknown[]): string[] {
  const bind = (value: unknown) => `$${values.push(value)}`;
  const conditions = [`i.account_id = ${bind(tenant.accountId)}`, `i.environment = ${bind(tenant.environment)}`];
  if (filters.status !== undefined) conditions.push(`i.status = ${bind(filters.status)}`);
  if (filters.customerId !== undefined) conditions.push(`i.customer_id = ${bind(filters.customerId)}`);
  if (filters.subscriptionId !== undefined) conditions.push(`i.subscription_id = ${bind(filters.subscriptionId)}`);
  if (filters.createdAfter !== undefined) conditions.push(`i.created_at > ${bind(filters.createdAfter)}`);
  if (filters.createdBefore !== undefined) conditions.push(`i.created_at < ${bind(filters.createdBefore)}`);
  return conditions;
}

function listStatement(tenant: Tenant, filters: InvoiceFilters, page: PageRequest): Statement {
  const values: unknown[] = [];
  const conditions = conditionsOf(tenant, filters, values);
  const afterId = decodeCursor(page.cursor, 'inv');
  if (afterId) conditions.push(`i.id < $${values.push(afterId)}`);
  const limit = `$${values.push(page.limit + 1)}`;
  return {
    text: `SELECT ${selectColumns(Invoice, 'i')} FROM invoices i WHERE ${conditions.join(' AND ')} ORDER BY i.id DESC LIMIT ${limit}`,
    values,
  };
}

/** One page of a tenant's invoices, newest first, keyset-paginated on the ULID like every list (db/pagination.ts). */
export async function listInvoicePage<T>(sequelize: Sequelize, tenant: Tenant, filters: InvoiceFilters, page: PageRequest, toDto: (row: Invoice) => T): Promise<ListPage<T>> {
  const { text, values } = listStatement(tenant, filters, page);
  const rows = await plainQuery<Attributes<Invoice>>(sequelize, text, values);
  // Raw rows (bigint amounts as strings) become instances, whose getters give numbers.
  return toListPage(rows, page.limit, (row) => toDto(Invoice.build(row, { raw: true, isNewRecord: false })));
}

/** One row of the export as the database answers it. */
export interface InvoiceExportRow {
  id: string;
  number: string;
  status: InvoiceStatus;
  customerEmail: string | null;
  amount: string;
  currency: string;
  issuedAt: Date;
  paidAt: Date | null;
}

/** Rows the cursor fetches per round trip: the most the export holds in memory on the database side of the pipe. */
const EXPORT_BATCH = 500;

/**
 * Every matching invoice, newest first, as a stream of rows read through a server-side cursor: the stream fetches
 * the next batch only when its reader asks for more, so a slow client holds one batch, never the result. The
 * statement sees one snapshot (a single statement), and the stream holds its own pooled connection until it
 * closes, however it ends (finished, failed or destroyed because the client left).
 */
export async function streamInvoiceExport(sequelize: Sequelize, tenant: Tenant, filters: InvoiceFilters): Promise<Readable> {
  const values: unknown[] = [];
  const conditions = conditionsOf(tenant, filters, values);
  const text = `SELECT i.id, i.number, i.status, c.email AS "customerEmail", i.amount, i.currency, i.issued_at AS "issuedAt", i.paid_at AS "paidAt"
    FROM invoices i LEFT JOIN customers c ON c.id = i.customer_id
    WHERE ${conditions.join(' AND ')} ORDER BY i.id DESC`;
  const connection = (await sequelize.connectionManager.getConnection({ type: 'read' })) as unknown as Client;
  const stream = connection.query(new QueryStream(text, values, { batchSize: EXPORT_BATCH }));
  stream.once('close', () => sequelize.connectionManager.releaseConnection(connection as never));
  return stream;
}
