import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { Currency, ProductType } from './models';
import type { Tenant } from './tenancy';

/**
 * What pricing a cart needs of a product, as the catalogue holds it: price in whole units, currency and tags
 * (discount scopes), and what checkout records of it (name, type, whether it issues a licence).
 */
export interface CartProduct {
  id: string;
  name: string;
  type: ProductType;
  licenseEnabled: boolean;
  price: number;
  currency: Currency;
  tags: string[];
}

/** A product a buyer can put in a cart: own, published and not archived. */
const BUYABLE = 'account_id = :accountId AND environment = :environment AND published AND NOT archived';

/** The products among `ids` a buyer can put in a cart (own, published, not archived). Others are absent. */
export async function readCartProducts(sequelize: Sequelize, tenant: Tenant, ids: string[], transaction?: Transaction): Promise<Map<string, CartProduct>> {
  const rows = await sequelize.query<Omit<CartProduct, 'price'> & { price: string }>(
    `SELECT id, name, type, license_enabled AS "licenseEnabled", price, currency, tags FROM products WHERE id IN (:ids) AND ${BUYABLE}`,
    { type: QueryTypes.SELECT, replacements: { ids, accountId: tenant.accountId, environment: tenant.environment }, transaction },
  );
  return new Map(rows.map((row) => [row.id, { ...row, price: Number(row.price) }]));
}

/** The id of the product a buyer can buy under this slug in this store; undefined when there is none. */
export async function findBuyableProductId(sequelize: Sequelize, tenant: Tenant, slug: string, transaction?: Transaction): Promise<string | undefined> {
  const [row] = await sequelize.query<{ id: string }>(`SELECT id FROM products WHERE slug = :slug AND ${BUYABLE}`, {
    type: QueryTypes.SELECT,
    replacements: { slug, accountId: tenant.accountId, environment: tenant.environment },
    transaction,
  });
  return row?.id;
}
