import { QueryTypes, type Sequelize } from 'sequelize';
import type { Tenant } from '../../db/tenancy';
import { newId } from '../../lib/ids';

export interface ProductRow {
  id: string;
  name: string;
  description: string | null;
  thumbnail: string | null;
  cover_images: string[];
  metadata: Record<string, string>;
  ai_generated: boolean;
  ai_status: string | null;
  updated_at: Date;
}

/**
 * Inserts a product row directly, so the AI generation tests do not depend on the products API. Columns
 * the generation must never touch (thumbnail, cover images, other metadata keys) are filled in.
 */
export async function insertProduct(
  sequelize: Sequelize,
  tenant: Tenant,
  overrides: { aiStatus?: string | null; description?: string | null; updatedAt?: Date } = {},
): Promise<string> {
  const id = newId('prod');
  await sequelize.query(
    `INSERT INTO products (id, account_id, environment, name, slug, description, price, currency, type, thumbnail,
                           cover_images, tags, brand, metadata, ai_status, ai_generated, updated_at)
     VALUES (:id, :accountId, :environment, 'Trail Runner', :slug, :description, 120, 'USD', 'physical',
             'https://cdn.example/thumb.png', CAST(:covers AS jsonb), CAST(:tags AS jsonb), 'Acme',
             CAST(:metadata AS jsonb), :aiStatus, :aiGenerated, :updatedAt)`,
    {
      replacements: {
        id,
        ...tenant,
        slug: id.slice(-20).toLowerCase(),
        description: overrides.description === undefined ? 'Light shoe for trails.' : overrides.description,
        covers: JSON.stringify(['https://cdn.example/a.png', 'https://cdn.example/b.png']),
        tags: JSON.stringify(['running']),
        metadata: JSON.stringify({ sku: 'TR-1', seoTitle: 'old title' }),
        aiStatus: overrides.aiStatus ?? null,
        aiGenerated: overrides.aiStatus != null,
        updatedAt: overrides.updatedAt ?? new Date(Date.now() - 60_000),
      },
    },
  );
  return id;
}

export async function readProduct(sequelize: Sequelize, id: string): Promise<ProductRow> {
  const [row] = await sequelize.query<ProductRow>(
    `SELECT id, name, description, thumbnail, cover_images, metadata, ai_generated, ai_status, updated_at FROM products WHERE id = :id`,
    { replacements: { id }, type: QueryTypes.SELECT },
  );
  if (!row) throw new Error(`product ${id} not found`);
  return row;
}

/** Records `count` generation runs for the tenant, now or in the last second of the previous UTC month. */
export async function insertRuns(sequelize: Sequelize, tenant: Tenant, productId: string, count: number, previousMonth = false): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    await sequelize.query(
      `INSERT INTO ai_generation_runs (id, account_id, environment, product_id, created_at)
       VALUES (:id, :accountId, :environment, :productId,
               CASE WHEN :previousMonth THEN (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') - interval '1 second'
                    ELSE now() END)`,
      { replacements: { id: newId('aigen'), ...tenant, productId, previousMonth } },
    );
  }
}

export async function countRuns(sequelize: Sequelize, tenant: Tenant): Promise<number> {
  const [row] = await sequelize.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ai_generation_runs WHERE account_id = :accountId AND environment = :environment`,
    { replacements: { ...tenant }, type: QueryTypes.SELECT },
  );
  return row?.n ?? 0;
}
