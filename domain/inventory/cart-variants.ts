import type { Sequelize, Transaction } from 'sequelize';
import { readCartVariants, type CartProduct, type CartVariant } from '../../db/cart-products';
import type { Tenant } from '../../db/tenancy';
import type { ErrorDetail } from '../../lib/errors';

export interface VariantChoice {
  productId: string;
  variantId?: string | null;
}

/**
 * The variant each cart item buys, for every checkout and the discount quote alike (docs/decisions/inventory.md,
 * "Variants at checkout"): the one named, which must be an active variant of that item's product; the product's
 * default variant when none is named and the product has variants (so a storefront that never shows the picker
 * still sells, and stock is tracked); none for a product without variants. `products` holds the items' products
 * as the caller read them; an item whose product is absent was refused by the caller and is skipped here.
 */
export async function resolveCartVariants(
  sequelize: Sequelize,
  tenant: Tenant,
  items: VariantChoice[],
  products: Map<string, CartProduct>,
  variantField: (index: number) => string,
  transaction?: Transaction,
): Promise<{ variants: (CartVariant | null)[]; issues: ErrorDetail[] }> {
  const withVariants = [...products.values()].filter((product) => product.hasVariants).map((product) => product.id);
  const offeredBy = await readCartVariants(sequelize, tenant, withVariants, transaction);
  const issues: ErrorDetail[] = [];
  const variants = items.map((item, i) => {
    const offered = offeredBy.get(item.productId) ?? [];
    if (item.variantId == null) return offered.find((variant) => variant.isDefault) ?? null;
    const variant = offered.find((candidate) => candidate.id === item.variantId);
    // Unknown, archived, another product's, workspace's or environment's: one answer, as for products.
    if (!variant) issues.push({ field: variantField(i), message: 'no such variant of this product' });
    return variant ?? null;
  });
  return { variants, issues };
}

/** The price of one unit in whole units: the product's price plus the variant's delta (every price write keeps it at least 1). */
export const unitPriceOf = (product: Pick<CartProduct, 'price'>, variant: Pick<CartVariant, 'priceDelta'> | null): number => product.price + (variant?.priceDelta ?? 0);
