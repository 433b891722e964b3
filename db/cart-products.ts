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
}

/** A CartProduct as the database returns it (price is numeric: a string). */
export type CartProductRow = Omit<CartProduct, 'price'> & { price: string };

const toCartProduct = (row: CartProductRow): CartProduct => ({ ...row, price: Number(row.price) });

const CART_PRODUCT_COLUMNS = `id, name, type, license_enabled AS "licenseEnabled", price, currency, tags`;

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
