import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { AiStatus, ProductType } from './models';
import { connectionOf } from './outbox';
import type { Tenant } from './tenancy';

/**
 * The statements of a product's AI generation runs (`ai_generation_runs` and the product's AI columns); the
 * rules (quota, which run may end how) live in domain/products/ai-generation.ts and ai-generation-run.ts.
 */

/** The product a run is for, in its workspace and environment. */
export type AiRunScope = Tenant & { productId: string };

/** The number of runs ever recorded for the product: the run a `generating` product is in. */
const RUN_COUNT = `(SELECT count(*)::int FROM ai_generation_runs r
   WHERE r.product_id = p.id AND r.account_id = p.account_id AND r.environment = p.environment)`;

const SCOPE = `id = :productId AND account_id = :accountId AND environment = :environment`;

/** The product's ai_status; undefined when the tenant has no such product. */
export async function readAiStatus(tx: Transaction, scope: AiRunScope): Promise<{ ai_status: AiStatus | null } | undefined> {
  const [product] = await connectionOf(tx).query<{ ai_status: AiStatus | null }>(
    `SELECT ai_status FROM products WHERE id = :productId AND account_id = :accountId AND environment = :environment`,
    { replacements: scope, type: QueryTypes.SELECT, transaction: tx },
  );
  return product;
}

/** The runs the tenant recorded this calendar month (UTC). */
export async function countAiRunsThisMonth(tx: Transaction, scope: AiRunScope): Promise<number> {
  const [usage] = await connectionOf(tx).query<{ used: number }>(
    `SELECT count(*)::int AS used FROM ai_generation_runs
          WHERE account_id = :accountId AND environment = :environment
            AND created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`,
    { replacements: scope, type: QueryTypes.SELECT, transaction: tx },
  );
  return usage?.used ?? 0;
}

/** Records a run of the product. */
export async function insertAiRun(tx: Transaction, scope: AiRunScope, id: string): Promise<void> {
  await connectionOf(tx).query(
    `INSERT INTO ai_generation_runs (id, account_id, environment, product_id)
         VALUES (:id, :accountId, :environment, :productId)`,
    { replacements: { ...scope, id }, type: QueryTypes.INSERT, transaction: tx },
  );
}

/** Sets the product generating (and AI-generated from now on). */
export async function markProductGenerating(tx: Transaction, scope: AiRunScope): Promise<void> {
  await connectionOf(tx).query(
    `UPDATE products SET ai_status = 'generating', ai_generated = true, updated_at = now()
          WHERE id = :productId AND account_id = :accountId AND environment = :environment`,
    { replacements: scope, type: QueryTypes.UPDATE, transaction: tx },
  );
}

/** What the generator is given of the product, with its AI state and run. */
export interface AiRunProductRow {
  name: string;
  type: ProductType;
  description: string | null;
  price: string;
  currency: string;
  tags: string[];
  brand: string | null;
  google_product_category: string | null;
  ai_status: string | null;
  run: number;
}

/** The product as the generator needs it, unlocked; undefined when it is gone. */
export async function readAiRunProduct(sequelize: Sequelize, scope: AiRunScope): Promise<AiRunProductRow | undefined> {
  const [row] = await sequelize.query<AiRunProductRow>(
    `SELECT p.name, p.type, p.description, p.price, p.currency, p.tags, p.brand, p.google_product_category,
                p.ai_status, ${RUN_COUNT} AS run
           FROM products p
          WHERE p.id = :productId AND p.account_id = :accountId AND p.environment = :environment`,
    { replacements: { ...scope }, type: QueryTypes.SELECT },
  );
  return row;
}

/** A run's product under its row lock, with the workspace slug its product.updated event needs. */
export interface LockedAiRunRow {
  ai_status: string | null;
  metadata: Record<string, string>;
  slug: string | null;
  run: number;
}

/** Locks the product row (FOR UPDATE OF p) and reads its AI state; undefined when it is gone. */
export async function lockAiRunProduct(sequelize: Sequelize, tx: Transaction, scope: AiRunScope): Promise<LockedAiRunRow | undefined> {
  const [current] = await sequelize.query<LockedAiRunRow>(
    `SELECT p.ai_status, p.metadata, a.slug, ${RUN_COUNT} AS run
           FROM products p JOIN accounts a ON a.id = p.account_id
          WHERE p.id = :productId AND p.account_id = :accountId AND p.environment = :environment
          FOR UPDATE OF p`,
    { replacements: { ...scope }, type: QueryTypes.SELECT, transaction: tx },
  );
  return current;
}

/** Ends the run completed: the new description and the whole metadata map, written as given. */
export async function writeAiProductCopy(
  sequelize: Sequelize,
  tx: Transaction,
  scope: AiRunScope,
  copy: { description: string; metadata: Record<string, string> },
): Promise<void> {
  await sequelize.query(
    `UPDATE products SET description = :description, metadata = CAST(:metadata AS jsonb), ai_status = 'completed',
                  updated_at = now()
            WHERE ${SCOPE}`,
    {
      replacements: { ...scope, description: copy.description, metadata: JSON.stringify(copy.metadata) },
      type: QueryTypes.UPDATE,
      transaction: tx,
    },
  );
}

/** Ends the run failed. */
export async function markAiRunFailed(sequelize: Sequelize, tx: Transaction, scope: AiRunScope): Promise<void> {
  await sequelize.query(`UPDATE products SET ai_status = 'failed', updated_at = now() WHERE ${SCOPE}`, {
    replacements: { ...scope },
    type: QueryTypes.UPDATE,
    transaction: tx,
  });
}
