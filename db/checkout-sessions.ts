import { CheckoutSession } from './models';
import type { Statement } from './pagination';

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
 * written on every checkout create, the storefront's busiest write (README, Benchmark). `values` are attributes;
 * undefined ones are left to the column defaults. Every attribute a caller passes always, so one create path
 * sends one statement text, which runs as a named prepared statement.
 */
export function checkoutSessionInsertStatement(values: Record<string, unknown>): Statement {
  const attributes = CheckoutSession.getAttributes() as Record<string, { field?: string }>;
  const keys = Object.keys(values).filter((k) => values[k] !== undefined);
  // Column names come from the model only; the values are bound.
  const column = (key: string) => {
    const field = attributes[key]?.field;
    if (!field) throw new Error(`not a checkout session attribute: ${key}`);
    return field;
  };
  return {
    text: `INSERT INTO checkout_sessions (${keys.map(column).join(', ')})
       VALUES (${keys.map((_, i) => `$${i + 1}`).join(', ')})
       RETURNING ${returningColumns()}`,
    values: keys.map((k) => (JSON_ATTRIBUTES.has(k) && values[k] !== null ? JSON.stringify(values[k]) : values[k])),
  };
}
