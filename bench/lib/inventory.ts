import type { Sequelize } from 'sequelize';
import { Account, Product, Variant, Warehouse } from '../../db/models';
import { moveStock } from '../../domain/inventory';
import { createWorkspaceService } from '../../domain/workspaces';
import { newId } from '../../lib/ids';

/**
 * More than either scenario takes from the one variant in any run (a reservation holds one unit and is never
 * released while the bench runs: its session expires a day later), so every request finds stock and answers 2xx.
 */
export const SEEDED_STOCK = 1_000_000_000;

export interface BenchInventory {
  accountId: string;
  /** The live secret key: the merchant's adjustments land on the live stock the storefront sells. */
  secretKey: string;
  slug: string;
  productSlug: string;
  variantId: string;
  warehouseId: string;
}

/**
 * A live store with the fulfillment module on, one warehouse and one published physical product whose one
 * (default) variant carries SEEDED_STOCK, put there through moveStock so the movement log sums to the balance.
 * Both inventory scenarios, both sides of each, move this one stock row: the contention is the point.
 */
export async function seedInventory(sequelize: Sequelize): Promise<BenchInventory> {
  const ws = await createWorkspaceService({ sequelize }).create({ name: 'Bench inventory', slug: 'bench-inventory', plan: 'pro' });
  await Account.update({ fulfillmentEnabled: true }, { where: { id: ws.accountId } });
  const tenant = { accountId: ws.accountId, environment: 'live' as const };
  const productSlug = 'bench-boots';
  const warehouse = await Warehouse.create({ id: newId('wh'), ...tenant, name: 'Main', isDefault: true });
  const product = await Product.create({
    id: newId('prod'),
    ...tenant,
    name: 'Bench boots',
    slug: productSlug,
    price: 450_000,
    currency: 'IDR',
    type: 'physical',
    published: true,
    hasVariants: true,
  });
  const variant = await Variant.create({ id: newId('var'), ...tenant, productId: product.id, name: 'Black / 42', isDefault: true });
  await sequelize.transaction((tx) =>
    moveStock(tx, tenant, {
      variantId: variant.id,
      warehouseId: warehouse.id,
      kind: 'adjust',
      quantity: SEEDED_STOCK,
      reason: 'initial_stock',
      actor: { type: 'api_key', id: 'bench-seed' },
    }),
  );
  return { accountId: ws.accountId, secretKey: ws.liveSecretKey, slug: 'bench-inventory', productSlug, variantId: variant.id, warehouseId: warehouse.id };
}
