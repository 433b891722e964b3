import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { Tenant } from './tenancy';

/** Plain reads the discount rules share (domain/discounts/): own products, per-customer uses. */

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
