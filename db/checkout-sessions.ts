import type { Attributes, Transaction } from 'sequelize';
import { CheckoutSession } from './models';
import type { Statement } from './pagination';
import { plainQueryIn } from './plain-query';

/** Attributes stored as JSONB: bound as JSON text. */
const JSON_ATTRIBUTES = new Set(['paymentMethods', 'lineItems', 'shippingAddress', 'metadata']);

let returning: string | undefined;

/** Every column of a session row, aliased to its attribute name (what `CheckoutSession.build(row, { raw: true })` takes). */
function returningColumns(): string {
  returning ??= Object.entries(CheckoutSession.getAttributes() as Record<string, { field?: string }>)
    .map(([attribute, { field }]) => `${field ?? attribute} AS "${attribute}"`)
    .join(', ');
  return returning;
}

/**
 * One INSERT of a checkout session returning the whole row, without Sequelize's instance pipeline: a session is
 * written on every checkout create, the storefront's busiest write (docs/benchmark-method.md). `values` are attributes
 * (`accountId` among them); undefined ones are left to the column defaults. Every attribute a caller passes
 * always, so one create path sends one statement text, which runs as a named prepared statement.
 *
 * The session's `backend`, fixed for its life (docs/decisions/payment-module.md), is the caller's when it passes one
 * (a local subscription's charges stay local), else the workspace's payment module switch as the INSERT reads it:
 * in the same statement rather than a round trip before.
 */
export function checkoutSessionInsertStatement(values: Record<string, unknown>): Statement {
  const attributes = CheckoutSession.getAttributes() as Record<string, { field?: string }>;
  const keys = Object.keys(values).filter((k) => values[k] !== undefined);
  const accountParam = keys.indexOf('accountId') + 1;
  if (accountParam === 0) throw new Error('a checkout session INSERT needs its accountId');
  // Column names come from the model only; the values are bound.
  const column = (key: string) => {
    const field = attributes[key]?.field;
    if (!field) throw new Error(`not a checkout session attribute: ${key}`);
    return field;
  };
  const params = keys.map((_, i) => `$${i + 1}`).join(', ');
  return {
    text: keys.includes('backend')
      ? `INSERT INTO checkout_sessions (${keys.map(column).join(', ')}) VALUES (${params}) RETURNING ${returningColumns()}`
      : `INSERT INTO checkout_sessions (${keys.map(column).join(', ')}, backend)
       SELECT ${params}, CASE WHEN a.payment_enabled THEN 'provider' ELSE 'local' END
         FROM accounts a WHERE a.id = $${accountParam}
       RETURNING ${returningColumns()}`,
    values: keys.map((k) => (JSON_ATTRIBUTES.has(k) && values[k] !== null ? JSON.stringify(values[k]) : values[k])),
  };
}

/** Runs checkoutSessionInsertStatement in the caller's transaction, named and prepared: the stored row. */
export async function insertCheckoutSessionRow(tx: Transaction, values: Record<string, unknown>): Promise<Attributes<CheckoutSession>> {
  const { text, values: bind } = checkoutSessionInsertStatement(values);
  const [row] = await plainQueryIn<Attributes<CheckoutSession>>(tx, text, bind);
  return row!;
}
