import { createWorkspaceService } from '../../domain/workspaces';
import type { Sequelize } from 'sequelize';
import { Account, DiscountCode, Product, ProductFile, type ProductType } from '../../db/models';
import { newId } from '../../lib/ids';
import { productFileKey } from '../../lib/storage';

/** Products in the list workspace: more than a page, so the list route returns a full page of 50. */
export const LISTED_PRODUCTS = 60;
export const FILES_PER_PRODUCT = 2;

/** The public storefront workspace (live environment): its slug and the product page the bench reads. */
export const STOREFRONT_SLUG = 'bench-store';
export const STOREFRONT_PRODUCT_SLUG = 'bench-item-1';
/** Published products on the landing page; unpublished and archived ones sit beside them, left out by the reads. */
export const STOREFRONT_PUBLISHED = 50;
export const STOREFRONT_PUBLIC_CODES = 3;
const STOREFRONT_TAGS = ['ebook', 'course', 'template', 'bundle', 'gift', 'sale', 'new'];

export interface BenchCatalogue {
  /** Empty `pro` workspace the create and upload measurements write into (no product cap). */
  create: { accountId: string; secretKey: string };
  /** `pro` workspace seeded with LISTED_PRODUCTS digital products of FILES_PER_PRODUCT files each. */
  list: { accountId: string; secretKey: string };
  /**
   * `pro` workspace with a slug, branding and pixels, whose live environment holds STOREFRONT_PUBLISHED published
   * products (every sixth digital with FILES_PER_PRODUCT files, two of seven tags on two thirds of them), a few
   * unpublished and archived ones, and STOREFRONT_PUBLIC_CODES public discount codes besides a private and an expired one.
   */
  storefront: { accountId: string; slug: string; productSlug: string };
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
  await ProductFile.bulkCreate(fileRows(list.accountId, 'test', products.map((p) => p.id)));
  const storefront = await seedStorefront(sequelize);
  return {
    create: { accountId: create.accountId, secretKey: create.secretKey },
    list: { accountId: list.accountId, secretKey: list.secretKey },
    storefront,
  };
}

function fileRows(accountId: string, environment: 'test' | 'live', productIds: string[]) {
  return productIds.flatMap((productId) =>
    Array.from({ length: FILES_PER_PRODUCT }, (_, j) => ({
      id: newId('file'),
      accountId,
      environment,
      productId,
      fileName: `part-${j + 1}.pdf`,
      fileSize: 1_000_000,
      mimeType: 'application/pdf',
      storageKey: productFileKey(accountId, productId, `part-${j + 1}.pdf`),
      source: 'external' as const,
    })),
  );
}

async function seedStorefront(sequelize: Sequelize): Promise<BenchCatalogue['storefront']> {
  const workspace = await createWorkspaceService({ sequelize }).create({ name: 'Bench store', slug: STOREFRONT_SLUG, plan: 'pro' });
  const accountId = workspace.accountId;
  await Account.update(
    {
      description: 'Ebooks, courses and templates for small businesses, by the bench store.',
      brandColor: '#0f766e',
      brandLogo: 'https://cdn.example.com/bench-store/logo.png',
      brandBanner: 'https://cdn.example.com/bench-store/banner.jpg',
      metaPixelId: '123456789012345',
      googleTagId: 'G-BENCH12345',
    },
    { where: { id: accountId } },
  );
  const extra = 8; // 5 unpublished, then 3 archived
  const products = Array.from({ length: STOREFRONT_PUBLISHED + extra }, (_, index) => {
    const i = index + 1;
    const type: ProductType = i % 6 === 1 ? 'digital' : i % 6 === 4 ? 'subscription' : 'physical';
    const tags = i % 3 === 0 ? [] : [STOREFRONT_TAGS[i % 7]!, STOREFRONT_TAGS[(i + 3) % 7]!];
    return {
      id: newId('prod'),
      accountId,
      environment: 'live' as const,
      name: `Bench item ${i}`,
      slug: `bench-item-${i}`,
      description: 'A product of the storefront benchmark, with a description of ordinary length for a catalogue entry.',
      price: 99_000 + i * 1_000,
      currency: 'IDR' as const,
      type,
      thumbnail: `https://cdn.example.com/bench-store/${i}.jpg`,
      coverImages: [`https://cdn.example.com/bench-store/${i}-a.jpg`, `https://cdn.example.com/bench-store/${i}-b.jpg`],
      tags,
      ...(type === 'physical' ? { weight: 500, length: 20, width: 15, height: 5 } : {}),
      published: i <= STOREFRONT_PUBLISHED || i > STOREFRONT_PUBLISHED + 5,
      archived: i > STOREFRONT_PUBLISHED + 5,
      metadata: { sku: `STORE-${i}`, seoTitle: `Bench item ${i} | Bench store`, metaDescription: 'Everything a small business needs.' },
    };
  });
  await Product.bulkCreate(products);
  await ProductFile.bulkCreate(fileRows(accountId, 'live', products.filter((p) => p.type === 'digital').map((p) => p.id)));
  const day = 86_400_000;
  const code = (n: number, overrides: Partial<{ public: boolean; expiresAt: Date; startsAt: Date }>) => ({
    id: newId('disc'),
    accountId,
    environment: 'live' as const,
    code: `BENCH${n}`,
    description: `Bench code ${n}`,
    type: n % 2 === 0 ? ('fixed' as const) : ('percent' as const),
    value: n % 2 === 0 ? 10_000 : 10,
    currency: 'IDR' as const,
    minPurchaseAmount: n === 3 ? 150_000 : null,
    public: true,
    ...overrides,
  });
  await DiscountCode.bulkCreate([
    ...Array.from({ length: STOREFRONT_PUBLIC_CODES }, (_, i) => code(i + 1, i === 0 ? { startsAt: new Date(Date.now() - day), expiresAt: new Date(Date.now() + 365 * day) } : {})),
    code(STOREFRONT_PUBLIC_CODES + 1, { public: false }),
    code(STOREFRONT_PUBLIC_CODES + 2, { expiresAt: new Date(Date.now() - day) }),
  ]);
  return { accountId, slug: STOREFRONT_SLUG, productSlug: STOREFRONT_PRODUCT_SLUG };
}
