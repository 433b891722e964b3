import type { FindAttributeOptions, Transaction } from 'sequelize';
import { keyShareLiveProduct, liveProductIdOf } from '../../db/products';
import { tenantWhere } from '../../db/tenancy';
import { notFound, validationError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { AuthContext } from '../auth-context';
import type { ServiceDeps } from '../service-deps';
import type { CredibilityResource } from './resource';

/** Validated body fields, named as the model's attributes (the API and the model share field names). */
export type CredibilityChanges = Record<string, unknown>;
export type CredibilityDto = Record<string, unknown>;

const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

/** The rules the three credibility resources share; `def` says what differs. */
export function createCredibilityService({ sequelize }: Pick<ServiceDeps, 'sequelize'>, def: CredibilityResource) {
  const { model } = def;
  const alias = `"${model.name}"`;
  // The stored link survives a product's archival (unarchiving restores it), but a reader sees null:
  // document 1 says a deleted product's portfolio items and testimonials get `productId: null`.
  const attributes: FindAttributeOptions | undefined = def.linksProduct
    ? {
        exclude: ['productId'],
        include: [[liveProductIdOf(alias), 'productId']],
      }
    : undefined;
  const outputKeys = Object.keys(def.output);

  function toDto(row: Record<string, unknown>): CredibilityDto {
    const dto: CredibilityDto = { id: row.id, accountId: row.accountId };
    for (const key of outputKeys) dto[key] = iso(row[key]);
    return { ...dto, createdAt: iso(row.createdAt), updatedAt: iso(row.updatedAt) };
  }

  async function find(auth: AuthContext, id: string, transaction?: Transaction): Promise<CredibilityDto | null> {
    const row = await model.findOne({ where: { id, ...tenantWhere(auth) }, attributes, raw: true, transaction });
    return row ? toDto(row as unknown as Record<string, unknown>) : null;
  }

  /**
   * A link may only name a live (non-archived) product of the same workspace and environment; anything else
   * is indistinguishable from a missing product. KEY SHARE keeps the product from being deleted before commit
   * without blocking its archival, which readers already handle.
   */
  async function assertOwnProduct(auth: AuthContext, changes: CredibilityChanges, transaction: Transaction): Promise<void> {
    const productId = changes.productId;
    if (!def.linksProduct || typeof productId !== 'string') return;
    if (!(await keyShareLiveProduct(sequelize, auth, productId, transaction))) {
      throw validationError('productId: no such product in this workspace', [
        { field: 'productId', message: 'no product with this id exists in this workspace' },
      ]);
    }
  }

  return {
    /** Every record, published or not, in display order; no pagination (document 1). */
    async list(auth: AuthContext): Promise<CredibilityDto[]> {
      const rows = await model.findAll({
        where: tenantWhere(auth),
        attributes,
        order: [
          ['sortOrder', 'ASC'],
          ['createdAt', 'ASC'],
          ['id', 'ASC'],
        ],
        raw: true,
      });
      return rows.map((row) => toDto(row as unknown as Record<string, unknown>));
    },

    async retrieve(auth: AuthContext, id: string): Promise<CredibilityDto> {
      const found = await find(auth, id);
      if (!found) throw notFound(def.name);
      return found;
    },

    async create(auth: AuthContext, input: CredibilityChanges): Promise<CredibilityDto> {
      return sequelize.transaction(async (transaction) => {
        await assertOwnProduct(auth, input, transaction);
        const id = newId(def.idPrefix);
        await model.create({ ...input, id, ...tenantWhere(auth) }, { transaction });
        return (await find(auth, id, transaction))!;
      });
    },

    async update(auth: AuthContext, id: string, changes: CredibilityChanges): Promise<CredibilityDto> {
      return sequelize.transaction(async (transaction) => {
        // The record first, so a foreign or missing id is 404 whatever the body names.
        const where = { id, ...tenantWhere(auth) };
        const existing = await model.findOne({ where, attributes: ['id'], lock: transaction.LOCK.UPDATE, transaction });
        if (!existing) throw notFound(def.name);
        await assertOwnProduct(auth, changes, transaction);
        await model.update(changes, { where, transaction });
        return (await find(auth, id, transaction))!;
      });
    },

    /** Permanent: these records are not archived. */
    async remove(auth: AuthContext, id: string): Promise<void> {
      const count = await model.destroy({ where: { id, ...tenantWhere(auth) } });
      if (count === 0) throw notFound(def.name);
    },
  };
}

export type CredibilityService = ReturnType<typeof createCredibilityService>;
