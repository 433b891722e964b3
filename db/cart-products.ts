import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { Currency, ProductType } from './models';
import { plainQueryIn } from './plain-query';
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

/** A CartProduct as the database returns it (price is numeric: a string). */
export type CartProductRow = Omit<CartProduct, 'price'> & { price: string };

const toCartProduct = (row: CartProductRow): CartProduct => ({ ...row, price: Number(row.price) });

const CART_PRODUCT_COLUMNS = `id, name, type, license_enabled AS "licenseEnabled", price, currency, tags, has_variants AS "hasVariants"`;

/**
 * The product a buyer can buy under slug `$1` in the store of `$2`/`$3`, with what pricing needs: buy-now's one
 * product read, a named prepared statement (exported so the bench's ceiling sends the very same one).
 */
export const CART_PRODUCT_BY_SLUG_SQL = `SELECT ${CART_PRODUCT_COLUMNS} FROM products
  WHERE slug = $1 AND account_id = $2 AND environment = $3 AND published AND NOT archived`;

/** A product a buyer can put in a cart: own, published and not archived. */
const BUYABLE = 'account_id = :accountId AND environment = :environment AND published AND NOT archived';

/** The products among `ids` a buyer can put in a cart (own, published, not archived). Others are absent. */
export async function readCartProducts(sequelize: Sequelize, tenant: Tenant, ids: string[], transaction?: Transaction): Promise<Map<string, CartProduct>> {
  const rows = await sequelize.query<CartProductRow>(`SELECT ${CART_PRODUCT_COLUMNS} FROM products WHERE id IN (:ids) AND ${BUYABLE}`, {
    type: QueryTypes.SELECT,
    replacements: { ids, accountId: tenant.accountId, environment: tenant.environment },
    transaction,
  });
  return new Map(rows.map((row) => [row.id, toCartProduct(row)]));
}

/** The product a buyer can buy under this slug in this store, read for pricing in `tx`; undefined when there is none. */
export async function readCartProductBySlug(tx: Transaction, tenant: Tenant, slug: string): Promise<CartProduct | undefined> {
  const [row] = await plainQueryIn<CartProductRow>(tx, CART_PRODUCT_BY_SLUG_SQL, [slug, tenant.accountId, tenant.environment]);
  return row && toCartProduct(row);
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
