import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { Currency } from './models';
import type { Tenant } from './tenancy';

/** What pricing a cart needs of a product: price in whole units, currency and tags, as the catalogue holds them. */
export interface CartProduct {
  id: string;
  price: number;
  currency: Currency;
  tags: string[];
}

/** The products among `ids` a buyer can put in a cart: own, published and not archived. Others are absent. */
export async function readCartProducts(sequelize: Sequelize, tenant: Tenant, ids: string[], transaction?: Transaction): Promise<Map<string, CartProduct>> {
  const rows = await sequelize.query<Omit<CartProduct, 'price'> & { price: string }>(
    `SELECT id, price, currency, tags FROM products
      WHERE id IN (:ids) AND account_id = :accountId AND environment = :environment AND published AND NOT archived`,
    { type: QueryTypes.SELECT, replacements: { ids, accountId: tenant.accountId, environment: tenant.environment }, transaction },
  );
  return new Map(rows.map((row) => [row.id, { ...row, price: Number(row.price) }]));
}
