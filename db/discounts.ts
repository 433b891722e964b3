import { QueryTypes, type Attributes, type Sequelize, type Transaction } from 'sequelize';
import { selectColumns } from './columns';
import { DiscountCode } from './models';
import type { Statement } from './pagination';
import { plainQuery } from './plain-query';
import type { Tenant } from './tenancy';

/** Plain reads the discount rules share (domain/discounts/): own products, per-customer uses. */

/** A discount-code row from the model or from a raw list page (where bigint columns arrive as strings). */
export type DiscountCodeRow = Omit<Attributes<DiscountCode>, 'value' | 'minPurchaseAmount'> & {
  value: number | string;
  minPurchaseAmount: number | string | null;
};

/** Who used a code: a customer record, an e-mail, or both (either one matching counts as the same buyer). */
export interface CustomerIdentity {
  customerId?: string | null;
  customerEmail?: string | null;
}

/** The ids among `ids` that are not own, non-archived products of the tenant; KEY SHARE keeps the found ones until commit. */
export async function missingProducts(sequelize: Sequelize, tenant: Tenant, ids: string[], transaction: Transaction): Promise<string[]> {
  const rows = await sequelize.query<{ id: string }>(
    `SELECT id FROM products
      WHERE id IN (:ids) AND account_id = :accountId AND environment = :environment AND NOT archived
      FOR KEY SHARE`,
    { type: QueryTypes.SELECT, replacements: { ids, accountId: tenant.accountId, environment: tenant.environment }, transaction },
  );
  const found = new Set(rows.map((r) => r.id));
  return ids.filter((id) => !found.has(id));
}

/** The buyer's earlier redemptions of a code, by customer id or e-mail (compared lowercased); 0 without either. */
export async function countCustomerRedemptions(sequelize: Sequelize, discountId: string, who: CustomerIdentity, transaction?: Transaction): Promise<number> {
  const customerId = who.customerId ?? null;
  const customerEmail = who.customerEmail?.toLowerCase() ?? null;
  if (customerId === null && customerEmail === null) return 0;
  const [row] = await sequelize.query<{ count: string }>(
    `SELECT count(*) AS count FROM discount_redemptions
      WHERE discount_id = :discountId AND (customer_id = :customerId OR customer_email = :customerEmail)`,
    { type: QueryTypes.SELECT, replacements: { discountId, customerId, customerEmail }, transaction },
  );
  return Number(row?.count ?? 0);
}

/**
 * The codes a storefront lists publicly that a buyer can use at `now`: active, public and inside their window,
 * newest first. Positional parameters and a fixed text, so the storefront runs it as a named prepared statement
 * (db/plain-query.ts) and the bench's ceiling sends the very same one.
 */
export function publicDiscountCodesStatement(tenant: Tenant, now: Date, limit: number): Statement {
  return {
    text: `SELECT ${selectColumns(DiscountCode)} FROM discount_codes
      WHERE account_id = $1 AND environment = $2 AND active AND public
        AND (starts_at IS NULL OR starts_at <= $3) AND (expires_at IS NULL OR expires_at > $3)
      ORDER BY id DESC
      LIMIT $4`,
    values: [tenant.accountId, tenant.environment, now, limit],
  };
}

/** Runs a statement built by publicDiscountCodesStatement, named and prepared. */
export function readPublicDiscountCodeRows(sequelize: Sequelize, { text, values }: Statement): Promise<DiscountCodeRow[]> {
  return plainQuery<DiscountCodeRow>(sequelize, text, values);
}
