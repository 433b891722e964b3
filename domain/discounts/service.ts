import { UniqueConstraintError, type Transaction } from 'sequelize';
import { missingProducts } from '../../db/discounts';
import { DiscountCode } from '../../db/models';
import { listPage, type PageRequest } from '../../db/pagination';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { AppError, notFound, validationError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { AuthContext } from '../auth-context';
import type { ServiceDeps } from '../service-deps';
import { toDiscountCodeDto, type DiscountCodeDto } from './dto';
import { discountRuleIssues, type CreateDiscountCodeBody, type DiscountShape, type UpdateDiscountCodeBody } from './inputs';

/** The list filters of GET /v1/discount-codes. */
export interface DiscountCodeListQuery extends PageRequest {
  active?: boolean;
}

const CODE_INDEX = 'discount_codes_code';

/** Discount codes (secret key): no plan cap and no events (document 1 names none). */
export function createDiscountCodeService({ sequelize }: Pick<ServiceDeps, 'sequelize'>) {
  /** Each listed product must be an own, non-archived product of the same environment; the first miss is named. */
  async function assertOwnProducts(tx: Transaction, tenant: Tenant, productIds: string[] | null | undefined): Promise<void> {
    if (!productIds?.length) return;
    const missing = await missingProducts(sequelize, tenant, productIds, tx);
    if (missing.length > 0) {
      throw validationError(
        `productIds: no product ${missing[0]} in this workspace`,
        missing.map((id) => ({ field: `productIds.${productIds.indexOf(id)}`, message: `no product ${id} in this workspace` })),
      );
    }
  }

  async function lockedCode(tx: Transaction, tenant: Tenant, id: string): Promise<DiscountCode> {
    const discount = await DiscountCode.findOne({ where: { id, ...tenant }, lock: tx.LOCK.UPDATE, transaction: tx });
    if (!discount) throw notFound('Discount code');
    return discount;
  }

  return {
    /** Two concurrent creates of one code (in any case) meet at the unique index: one 201, one 409. */
    async create(auth: AuthContext, input: CreateDiscountCodeBody): Promise<DiscountCodeDto> {
      const tenant = tenantWhere(auth);
      const { startsAt, expiresAt, ...fields } = input;
      try {
        return await sequelize.transaction(async (tx) => {
          await assertOwnProducts(tx, tenant, input.productIds);
          const row = await DiscountCode.create(
            {
              ...fields,
              id: newId('disc'),
              ...tenant,
              startsAt: startsAt == null ? startsAt : new Date(startsAt),
              expiresAt: expiresAt == null ? expiresAt : new Date(expiresAt),
            },
            { transaction: tx },
          );
          return toDiscountCodeDto(row.get());
        });
      } catch (err) {
        if (err instanceof UniqueConstraintError && (err.parent as { constraint?: string }).constraint === CODE_INDEX) {
          throw new AppError('CODE_EXISTS', `A discount code "${input.code}" already exists (codes are case-insensitive)`, [
            { field: 'code', message: 'already exists' },
          ]);
        }
        throw err;
      }
    },

    list(auth: AuthContext, query: DiscountCodeListQuery) {
      return listPage(sequelize, DiscountCode, {
        tenant: auth,
        where: query.active === undefined ? {} : { active: query.active },
        page: query,
        idPrefix: 'disc',
        toDto: toDiscountCodeDto,
      });
    },

    async retrieve(auth: AuthContext, id: string): Promise<DiscountCodeDto> {
      const row = await DiscountCode.findOne({ where: { id, ...tenantWhere(auth) } });
      if (!row) throw notFound('Discount code');
      return toDiscountCodeDto(row.get());
    },

    /** The cross-field rules hold for the code as it would stand after the PATCH, not only for the body. */
    async update(auth: AuthContext, id: string, input: UpdateDiscountCodeBody): Promise<DiscountCodeDto> {
      const tenant = tenantWhere(auth);
      return sequelize.transaction(async (tx) => {
        const discount = await lockedCode(tx, tenant, id);
        const merged: DiscountShape = { ...discount.get(), ...input, scope: input.scope ?? discount.scope };
        // A list belongs to its scope: moving to another scope clears the one left behind.
        if (merged.scope !== 'products') merged.productIds = null;
        if (merged.scope !== 'tags') merged.tagFilter = null;
        const issues = discountRuleIssues(merged, input);
        if (issues.length > 0) throw validationError(`${issues[0]!.field}: ${issues[0]!.message}`, issues);
        await assertOwnProducts(tx, tenant, input.productIds);
        const { startsAt, expiresAt, ...fields } = input;
        discount.set({
          ...fields,
          productIds: merged.productIds ?? null,
          tagFilter: merged.tagFilter ?? null,
          ...(startsAt !== undefined ? { startsAt: startsAt === null ? null : new Date(startsAt) } : {}),
          ...(expiresAt !== undefined ? { expiresAt: expiresAt === null ? null : new Date(expiresAt) } : {}),
        });
        await discount.save({ transaction: tx });
        return toDiscountCodeDto(discount.get());
      });
    },

    /** Soft delete: `active: false`, kept and listed; deleting an inactive code again answers the same. */
    async deactivate(auth: AuthContext, id: string): Promise<DiscountCodeDto> {
      return sequelize.transaction(async (tx) => {
        const discount = await lockedCode(tx, tenantWhere(auth), id);
        await discount.update({ active: false }, { transaction: tx });
        return toDiscountCodeDto(discount.get());
      });
    },
  };
}

export type DiscountCodeService = ReturnType<typeof createDiscountCodeService>;
