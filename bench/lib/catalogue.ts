import { createWorkspaceService } from '../../domain/workspaces/service';
import type { Sequelize } from 'sequelize';
import { Product, ProductFile } from '../../db/models';
import { newId } from '../../lib/ids';
import { productFileKey } from '../../lib/storage';

/** Products in the list workspace: more than a page, so the list route returns a full page of 50. */
export const LISTED_PRODUCTS = 60;
export const FILES_PER_PRODUCT = 2;

export interface BenchCatalogue {
  /** Empty `pro` workspace the create and upload measurements write into (no product cap). */
  create: { accountId: string; secretKey: string };
  /** `pro` workspace seeded with LISTED_PRODUCTS digital products of FILES_PER_PRODUCT files each. */
  list: { accountId: string; secretKey: string };
}

/** Seeds the catalogue workspaces, through the models (not the API) so the seed costs no measured time. */
export async function seedCatalogue(sequelize: Sequelize): Promise<BenchCatalogue> {
  const workspaces = createWorkspaceService({ sequelize });
  const create = await workspaces.create({ name: 'Bench catalogue (writes)', slug: 'bench-catalogue-writes', plan: 'pro' });
  const list = await workspaces.create({ name: 'Bench catalogue (list)', slug: 'bench-catalogue', plan: 'pro' });
  const products = Array.from({ length: LISTED_PRODUCTS }, (_, i) => ({
    id: newId('prod'),
    accountId: list.accountId,
    environment: 'test' as const,
    name: `Bench ebook ${i + 1}`,
    slug: `bench-ebook-${i + 1}`,
    description: 'A product of the list benchmark, with a description of ordinary length for a catalogue entry.',
    price: 150_000 + i,
    currency: 'IDR' as const,
    type: 'digital' as const,
    tags: ['bench', 'ebook'],
    published: true,
    metadata: { sku: `BENCH-${i + 1}` },
  }));
  await Product.bulkCreate(products);
  await ProductFile.bulkCreate(
    products.flatMap((p) =>
      Array.from({ length: FILES_PER_PRODUCT }, (_, j) => ({
        id: newId('file'),
        accountId: list.accountId,
        environment: 'test' as const,
        productId: p.id,
        fileName: `part-${j + 1}.pdf`,
        fileSize: 1_000_000,
        mimeType: 'application/pdf',
        storageKey: productFileKey(list.accountId, p.id, `part-${j + 1}.pdf`),
        source: 'external' as const,
      })),
    ),
  );
  return { create: { accountId: create.accountId, secretKey: create.secretKey }, list: { accountId: list.accountId, secretKey: list.secretKey } };
}
