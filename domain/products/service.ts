import type { Transaction } from 'sequelize';
import { Product, ProductFile, type ProductType } from '../../db/models';
import { decodeCursor, toListPage } from '../../db/cursor';
import { priceDeltaRange } from '../../db/inventory';
import { audit, emit } from '../../db/outbox';
import { insertProductIfSlugFree, productReadStatement, readProduct, readProductRows, type ProductAttributes } from '../../db/products';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { notFound, validationError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { auditActor, type AuthContext } from '../auth-context';
import { resolvedPriceIssue } from './price';
import { enforcePlanCap } from '../plan-caps';
import type { ServiceDeps } from '../service-deps';
import type { AiGenerationService } from './ai-generation';
import { PRODUCT_EVENTS, storefrontOf, toProductDto, type Audience, type ProductDto } from './dto';
import type { CreateProductBody, UpdateProductBody } from './inputs';
import { slugify, withTimestampSuffix } from './slug';


/** A derived slug: the base, then suffixed candidates (a clash with another process's suffix is near impossible). */
const SLUG_ATTEMPTS = 3;

/** The list filters of GET /v1/storefront/products. */
export interface ProductListQuery {
  limit: number;
  cursor?: string;
  published?: boolean;
  type?: ProductType;
  /** The dashboard's archived list (its products can be restored there); the API never sets it. */
  archivedOnly?: boolean;
}

export function createProductService({ sequelize, config }: Pick<ServiceDeps, 'sequelize' | 'config'>, ai: AiGenerationService) {
  async function lockedProduct(tx: Transaction, tenant: Tenant, id: string): Promise<Product> {
    const product = await Product.findOne({ where: { id, ...tenant, archived: false }, lock: tx.LOCK.UPDATE, transaction: tx });
    if (!product) throw notFound('Product');
    return product;
  }

  /** A new price must leave every active variant's resolved price valid (variant writes hold this product's lock too). */
  async function assertVariantPrices(tx: Transaction, tenant: Tenant, product: Product, price: number): Promise<void> {
    const range = await priceDeltaRange(tx, tenant, product.id);
    if (!range) return;
    const issue = resolvedPriceIssue(price, product.currency, range.least) ?? resolvedPriceIssue(price, product.currency, range.greatest);
    if (issue) throw validationError(`price: a variant would be refused: ${issue}`, [{ field: 'price', message: issue }]);
  }

  async function insertProduct(tx: Transaction, auth: AuthContext, input: CreateProductBody): Promise<ProductAttributes> {
    const { aiGenerate: _aiGenerate, slug, preorderShipsFrom, ...fields } = input;
    const values = {
      ...fields,
      id: newId('prod'),
      ...tenantWhere(auth),
      preorderShipsFrom: preorderShipsFrom ? new Date(preorderShipsFrom) : preorderShipsFrom,
    };
    if (slug !== undefined) {
      const row = await insertProductIfSlugFree(sequelize, tx, { ...values, slug });
      if (!row) throw validationError(`slug "${slug}" is already used by another product`, [{ field: 'slug', message: 'already used' }]);
      return row;
    }
    // Derived from the name; taken (in this workspace and environment, archived products included) → suffixed.
    const base = slugify(input.name);
    for (let candidate = base, attempt = 0; attempt < SLUG_ATTEMPTS; candidate = withTimestampSuffix(base), attempt += 1) {
      const row = await insertProductIfSlugFree(sequelize, tx, { ...values, slug: candidate });
      if (row) return row;
    }
    throw new Error(`no free slug for "${base}" after ${SLUG_ATTEMPTS} attempts`);
  }

  return {
    async create(auth: AuthContext, input: CreateProductBody): Promise<ProductDto> {
      const tenant = tenantWhere(auth);
      const dto = await sequelize.transaction(async (tx) => {
        await enforcePlanCap(tx, auth, 'products');
        let row = await insertProduct(tx, auth, input);
        if (input.aiGenerate) {
          // Refuses the whole create (403) when the month's AI runs are used up; otherwise marks it generating.
          // The row was just inserted (ai_status null). reserve's updated_at = now() is this transaction's
          // start time, as was the insert's default, so the row only differs in the two AI columns.
          await ai.reserve(tx, tenant, auth.account.plan, row.id, null);
          row = { ...row, aiGenerated: true, aiStatus: 'generating' };
        }
        const created = toProductDto(row, [], storefrontOf(auth, config));
        await emit(tx, tenant, PRODUCT_EVENTS.created, created);
        return created;
      });
      if (input.aiGenerate) await ai.start({ ...tenant, productId: dto.id });
      return dto;
    },

    async list(auth: AuthContext, query: ProductListQuery) {
      let published = query.published;
      if (auth.access === 'publishable') {
        // Publishable keys see the public catalogue only: published (hence never archived) products.
        if (published === false) return { data: [], nextCursor: null };
        published = true;
      }
      // A named prepared statement, like every list page (docs/decisions/data-access.md).
      const rows = await readProductRows(
        sequelize,
        productReadStatement(
          tenantWhere(auth),
          { published, type: query.type, afterId: decodeCursor(query.cursor, 'prod'), ...(query.archivedOnly === true && auth.access === 'secret' ? { archived: 'only' as const } : {}) },
          query.limit + 1,
        ),
      );
      const audience: Audience = auth.access === 'publishable' ? 'buyer' : 'merchant';
      const storefront = storefrontOf(auth, config);
      return toListPage(rows, query.limit, (row) => toProductDto(row, row.files, storefront, audience));
    },

    async retrieve(auth: AuthContext, id: string): Promise<ProductDto> {
      const row = await readProduct(sequelize, tenantWhere(auth), id);
      if (!row || (auth.access === 'publishable' && !row.published)) throw notFound('Product');
      return toProductDto(row, row.files, storefrontOf(auth, config), auth.access === 'publishable' ? 'buyer' : 'merchant');
    },

    /** Every successful PATCH emits product.updated, a no-op included (document 1). */
    async update(auth: AuthContext, id: string, input: UpdateProductBody): Promise<ProductDto> {
      const tenant = tenantWhere(auth);
      return sequelize.transaction(async (tx) => {
        const product = await lockedProduct(tx, tenant, id);
        if (input.price !== undefined && product.hasVariants) await assertVariantPrices(tx, tenant, product, input.price);
        product.set(input);
        // metadata is replaced whole; JSON columns are compared by reference, so say it changed.
        if (input.metadata !== undefined) product.changed('metadata', true);
        await product.save({ transaction: tx });
        const files = product.type === 'digital' ? await ProductFile.findAll({ where: { productId: id, ...tenant }, order: [['id', 'ASC']], transaction: tx }) : [];
        const dto = toProductDto(product.get(), files, storefrontOf(auth, config));
        await emit(tx, tenant, PRODUCT_EVENTS.updated, dto);
        return dto;
      });
    },

    /** Soft delete: archived and unpublished, row and files kept; a second archive is 404 like any write. */
    async archive(auth: AuthContext, id: string): Promise<void> {
      const tenant = tenantWhere(auth);
      await sequelize.transaction(async (tx) => {
        const product = await lockedProduct(tx, tenant, id);
        await product.update({ archived: true, published: false }, { transaction: tx });
        await emit(tx, tenant, PRODUCT_EVENTS.archived, { id: product.id, accountId: auth.accountId });
      });
    },

    /**
     * Restore (document 1, States: dashboard only, not in the API): an archived product comes back unarchived and
     * still unpublished, counted against the plan's product cap again; a product that is not archived is 404, as
     * a second archive is.
     */
    async restore(auth: AuthContext, id: string): Promise<void> {
      const tenant = tenantWhere(auth);
      await sequelize.transaction(async (tx) => {
        const product = await Product.findOne({ where: { id, ...tenant, archived: true }, lock: tx.LOCK.UPDATE, transaction: tx });
        if (!product) throw notFound('Product');
        await enforcePlanCap(tx, auth, 'products');
        await product.update({ archived: false }, { transaction: tx });
        await audit(tx, tenant, { action: 'product.restored', ...auditActor(auth), targetType: 'product', targetId: product.id });
      });
    },

    async aiGenerate(auth: AuthContext, id: string): Promise<{ message: string }> {
      const tenant = tenantWhere(auth);
      const reservation = await sequelize.transaction(async (tx) => {
        const product = await lockedProduct(tx, tenant, id);
        return ai.reserve(tx, tenant, auth.account.plan, id, product.aiStatus);
      });
      // Answered 202 whether or not Temporal is up: the start is recorded with the reservation. A run already
      // in flight has its own recorded start, so 'already_running' starts nothing.
      if (reservation === 'reserved') await ai.start({ ...tenant, productId: id });
      return {
        message:
          reservation === 'reserved'
            ? 'AI generation started; aiStatus is "generating" until it completes or fails.'
            : 'An AI generation is already running for this product; no new run was started and no quota was used.',
      };
    },
  };
}

export type ProductService = ReturnType<typeof createProductService>;
