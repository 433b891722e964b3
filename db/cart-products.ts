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
  /** Set by its first variant and never cleared (the default variant cannot be archived). */
  hasVariants: boolean;
}

/** What pricing a cart needs of a variant: its name and its price delta in whole units of the product's currency. */
export interface CartVariant {
  id: string;
  productId: string;
  name: string;
  priceDelta: number;
  isDefault: boolean;
}

/** A product a buyer can put in a cart: own, published and not archived. */
const BUYABLE = 'account_id = :accountId AND environment = :environment AND published AND NOT archived';

/** The products among `ids` a buyer can put in a cart (own, published, not archived). Others are absent. */
export async function readCartProducts(sequelize: Sequelize, tenant: Tenant, ids: string[], transaction?: Transaction): Promise<Map<string, CartProduct>> {
  const rows = await sequelize.query<Omit<CartProduct, 'price'> & { price: string }>(
    `SELECT id, name, type, license_enabled AS "licenseEnabled", price, currency, tags, has_variants AS "hasVariants" FROM products WHERE id IN (:ids) AND ${BUYABLE}`,
    { type: QueryTypes.SELECT, replacements: { ids, accountId: tenant.accountId, environment: tenant.environment }, transaction },
  );
  return new Map(rows.map((row) => [row.id, { ...row, price: Number(row.price) }]));
}

/** The active (non-archived) variants of `productIds` in the tenant, by product id. A product without any is absent. */
export async function readCartVariants(sequelize: Sequelize, tenant: Tenant, productIds: string[], transaction?: Transaction): Promise<Map<string, CartVariant[]>> {
  if (productIds.length === 0) return new Map();
  const rows = await sequelize.query<Omit<CartVariant, 'priceDelta'> & { priceDelta: string }>(
    `SELECT id, product_id AS "productId", name, price_delta AS "priceDelta", is_default AS "isDefault" FROM variants
      WHERE product_id IN (:productIds) AND account_id = :accountId AND environment = :environment AND NOT archived
      ORDER BY id`,
    { type: QueryTypes.SELECT, replacements: { productIds, accountId: tenant.accountId, environment: tenant.environment }, transaction },
  );
  const byProduct = new Map<string, CartVariant[]>();
  for (const row of rows) {
    const variant = { ...row, priceDelta: Number(row.priceDelta) };
    byProduct.set(row.productId, [...(byProduct.get(row.productId) ?? []), variant]);
  }
  return byProduct;
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
