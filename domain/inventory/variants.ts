import type { Transaction } from 'sequelize';
import { toListPage, decodeCursor } from '../../db/cursor';
import { readVariant, readVariantPage } from '../../db/inventory';
import { Product, Variant } from '../../db/models';
import { emit } from '../../db/outbox';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { invalidState, notFound, validationError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { AuthContext } from '../auth-context';
import { emitProductUpdated, resolvedPriceIssue, storefrontOf } from '../products';
import type { ServiceDeps } from '../service-deps';
import { toVariantDto, VARIANT_EVENTS, type VariantDto } from './dto';
import type { CreateVariantBody, UpdateVariantBody } from './inputs';

/** The list filters of GET /v1/inventory/variants. */
export interface VariantListQuery {
  limit: number;
  cursor?: string;
  productId?: string;
}

/**
 * Variants (module-gated by their routes). Every write holds the parent product's row lock first, then the
 * variant's: exactly one default per product also under concurrent writes (the partial unique index backs it
 * up), and the resolved price is checked against the price the product has when the write commits.
 */
export function createVariantService({ sequelize, config }: Pick<ServiceDeps, 'sequelize' | 'config'>) {
  /** NO KEY UPDATE: conflicts with product writes (FOR UPDATE) and other variant writes, not with inserts referencing the product. */
  const lockProduct = (tx: Transaction, tenant: Tenant, productId: string) =>
    Product.findOne({ where: { id: productId, ...tenant }, lock: tx.LOCK.NO_KEY_UPDATE, transaction: tx });

  function assertPrice(product: Product, priceDelta: number): void {
    const issue = resolvedPriceIssue(product.price, product.currency, priceDelta);
    if (issue) throw validationError(`priceDelta: ${issue}`, [{ field: 'priceDelta', message: issue }]);
  }

  /** The active variant, its product locked, then the variant itself; missing, foreign or archived is 404. */
  async function lockedVariant(tx: Transaction, tenant: Tenant, id: string): Promise<{ variant: Variant; product: Product }> {
    const found = await Variant.findOne({ where: { id, ...tenant, archived: false }, attributes: ['productId'], transaction: tx });
    if (!found) throw notFound('Variant');
    const product = await lockProduct(tx, tenant, found.productId);
    const variant = await Variant.findOne({ where: { id, ...tenant, archived: false }, lock: tx.LOCK.NO_KEY_UPDATE, transaction: tx });
    // Archived between the two reads (the product lock now keeps it as it is).
    if (!variant || !product) throw notFound('Variant');
    return { variant, product };
  }

  /** Demotes the product's default variant, if any; its id, for its updated event. */
  async function demoteDefault(tx: Transaction, tenant: Tenant, productId: string): Promise<string | undefined> {
    const [, rows] = await Variant.update({ isDefault: false }, { where: { productId, ...tenant, isDefault: true }, returning: true, transaction: tx });
    return rows[0]?.id;
  }

  async function emitVariant(tx: Transaction, tenant: Tenant, type: (typeof VARIANT_EVENTS)['created' | 'updated'], id: string): Promise<VariantDto> {
    const row = await readVariant(sequelize, tenant, id, tx);
    // Written or locked in this transaction, so a miss is a bug, not a 404.
    if (!row) throw new Error(`variant ${id} not found in its own transaction`);
    const dto = toVariantDto(row);
    await emit(tx, tenant, type, dto);
    return dto;
  }

  return {
    /**
     * The product's first variant becomes its default (whatever `isDefault` says) and sets its `hasVariants`, which
     * emits `service.product.updated.v1`; a later one with `isDefault: true` takes the default over.
     */
    async create(auth: AuthContext, input: CreateVariantBody): Promise<VariantDto> {
      const tenant = tenantWhere(auth);
      return sequelize.transaction(async (tx) => {
        const product = await lockProduct(tx, tenant, input.productId);
        if (!product || product.archived) {
          const message = product ? 'the product is archived' : 'no product with this id in this workspace';
          throw validationError(`productId: ${message}`, [{ field: 'productId', message }]);
        }
        const { productId, isDefault: wantsDefault, ...fields } = input;
        assertPrice(product, fields.priceDelta ?? 0);
        const current = await Variant.findOne({ where: { productId, ...tenant, isDefault: true }, attributes: ['id'], transaction: tx });
        const isDefault = !current || wantsDefault === true;
        const demoted = isDefault && current ? await demoteDefault(tx, tenant, productId) : undefined;
        const id = newId('var');
        await Variant.create({ ...fields, id, ...tenant, productId, isDefault }, { transaction: tx });
        if (demoted) await emitVariant(tx, tenant, VARIANT_EVENTS.updated, demoted);
        const dto = await emitVariant(tx, tenant, VARIANT_EVENTS.created, id);
        if (!product.hasVariants) {
          await product.update({ hasVariants: true }, { transaction: tx });
          await emitProductUpdated(tx, tenant, storefrontOf(auth, config), productId);
        }
        return dto;
      });
    },

    /** Active variants, newest first, of one product or of all. */
    async list(auth: AuthContext, query: VariantListQuery) {
      const rows = await readVariantPage(sequelize, tenantWhere(auth), { productId: query.productId, afterId: decodeCursor(query.cursor, 'var') }, query.limit + 1);
      return toListPage(rows, query.limit, toVariantDto);
    },

    /** Archived variants too, like a product's retrieve. */
    async retrieve(auth: AuthContext, id: string): Promise<VariantDto> {
      const row = await readVariant(sequelize, tenantWhere(auth), id);
      if (!row) throw notFound('Variant');
      return toVariantDto(row);
    },

    /**
     * Every successful PATCH emits `service.variant.updated.v1` (a no-op included); `isDefault: true` moves the
     * default here (the demoted variant emits its own), `false` on the default is refused (there must be one).
     */
    async update(auth: AuthContext, id: string, input: UpdateVariantBody): Promise<VariantDto> {
      const tenant = tenantWhere(auth);
      return sequelize.transaction(async (tx) => {
        const { variant, product } = await lockedVariant(tx, tenant, id);
        const { isDefault, ...fields } = input;
        if (fields.priceDelta !== undefined) assertPrice(product, fields.priceDelta);
        if (isDefault === false && variant.isDefault) {
          throw invalidState('This is the default variant: make another variant of the product the default instead');
        }
        let demoted: string | undefined;
        if (isDefault === true && !variant.isDefault) {
          demoted = await demoteDefault(tx, tenant, variant.productId);
          variant.isDefault = true;
        }
        variant.set(fields);
        await variant.save({ transaction: tx });
        if (demoted) await emitVariant(tx, tenant, VARIANT_EVENTS.updated, demoted);
        return emitVariant(tx, tenant, VARIANT_EVENTS.updated, id);
      });
    },

    /** Soft archive: kept with its stock and movements; the default variant cannot be archived (409 INVALID_STATE). */
    async archive(auth: AuthContext, id: string): Promise<VariantDto> {
      const tenant = tenantWhere(auth);
      return sequelize.transaction(async (tx) => {
        const { variant } = await lockedVariant(tx, tenant, id);
        if (variant.isDefault) throw invalidState('The default variant cannot be archived: make another variant of the product the default first');
        await variant.update({ archived: true }, { transaction: tx });
        await emit(tx, tenant, VARIANT_EVENTS.archived, { id: variant.id, productId: variant.productId });
        const row = await readVariant(sequelize, tenant, id, tx);
        return toVariantDto(row!);
      });
    },
  };
}

export type VariantService = ReturnType<typeof createVariantService>;
