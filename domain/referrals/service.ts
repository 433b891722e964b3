import { col, fn, Op, UniqueConstraintError, where, type Transaction } from 'sequelize';
import { ReferralLink } from '../../db/models';
import { listPage, type PageRequest } from '../../db/pagination';
import { keyShareLiveProduct, publishedProductSlug } from '../../db/products';
import { creditReferralConversion, upsertReferralCapture } from '../../db/referrals';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { AppError, notFound, validationError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { AuthContext } from '../auth-context';
import type { ServiceDeps } from '../service-deps';
import { resolveStorefront } from '../storefront';
import type { CaptureReferralBody, CreateReferralLinkBody, UpdateReferralLinkBody } from './inputs';

/** How long a captured visitor is attributed to a link (the usual affiliate-cookie window). */
export const ATTRIBUTION_DAYS = 30;

export function toReferralLinkDto(row: Pick<ReferralLink, 'id' | 'accountId' | 'code' | 'label' | 'targetProductId' | 'active' | 'clicks' | 'captures' | 'conversions' | 'createdAt' | 'updatedAt'>) {
  return {
    id: row.id,
    accountId: row.accountId,
    code: row.code,
    label: row.label,
    targetProductId: row.targetProductId,
    active: row.active,
    clicks: row.clicks,
    captures: row.captures,
    conversions: row.conversions,
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}

const codeTaken = (code: string) => new AppError('CODE_EXISTS', `A referral link with code "${code}" already exists`, [{ field: 'code', message: 'already used' }]);

/** The code's active link of the tenant, matched case-insensitively. */
function findActiveLink(tenant: Tenant, code: string, transaction?: Transaction): Promise<ReferralLink | null> {
  // lower(code) = lower(:code) is what the unique index holds, so this is one index probe.
  return ReferralLink.findOne({ where: { ...tenantWhere(tenant), active: true, [Op.and]: [where(fn('lower', col('code')), code.toLowerCase())] }, transaction });
}

/**
 * Counts a conversion for the checkout that carried `referralCode`, in the checkout's transaction; an unknown
 * or inactive code counts nothing (the checkout still completes). Returns whether a link was credited.
 */
export async function recordReferralConversion(tx: Transaction, tenant: Tenant, code: string): Promise<boolean> {
  return creditReferralConversion(tx, tenant, code);
}

export function createReferralLinkService({ sequelize, config }: Pick<ServiceDeps, 'sequelize' | 'config'>) {
  /** A target must be a live (non-archived) product of the same workspace and environment. */
  async function assertOwnProduct(tenant: Tenant, productId: string | null | undefined, transaction: Transaction) {
    if (!productId) return;
    if (!(await keyShareLiveProduct(sequelize, tenant, productId, transaction))) {
      throw validationError('targetProductId: no such product in this workspace', [{ field: 'targetProductId', message: 'no such product' }]);
    }
  }

  async function locked(auth: AuthContext, id: string, transaction: Transaction): Promise<ReferralLink> {
    const link = await ReferralLink.findOne({ where: { id, ...tenantWhere(auth) }, lock: transaction.LOCK.UPDATE, transaction });
    if (!link) throw notFound('Referral link');
    return link;
  }

  return {
    list(auth: AuthContext, page: PageRequest) {
      return listPage(sequelize, ReferralLink, { tenant: auth, page, idPrefix: 'ref', toDto: toReferralLinkDto });
    },

    async retrieve(auth: AuthContext, id: string) {
      const link = await ReferralLink.findOne({ where: { id, ...tenantWhere(auth) } });
      if (!link) throw notFound('Referral link');
      return toReferralLinkDto(link);
    },

    async create(auth: AuthContext, input: CreateReferralLinkBody) {
      try {
        return await sequelize.transaction(async (transaction) => {
          await assertOwnProduct(auth, input.targetProductId, transaction);
          const link = await ReferralLink.create({ id: newId('ref'), ...tenantWhere(auth), ...input }, { transaction });
          return toReferralLinkDto(link);
        });
      } catch (err) {
        // The unique index on lower(code) decides, so two concurrent creates cannot both win.
        if (err instanceof UniqueConstraintError) throw codeTaken(input.code);
        throw err;
      }
    },

    async update(auth: AuthContext, id: string, input: UpdateReferralLinkBody) {
      return sequelize.transaction(async (transaction) => {
        const link = await locked(auth, id, transaction);
        await assertOwnProduct(auth, input.targetProductId, transaction);
        await link.update(input, { transaction });
        return toReferralLinkDto(link);
      });
    },

    /** Soft: the link stops resolving and counting, its figures stay readable. */
    async deactivate(auth: AuthContext, id: string) {
      return sequelize.transaction(async (transaction) => {
        const link = await locked(auth, id, transaction);
        await link.update({ active: false }, { transaction });
        return toReferralLinkDto(link);
      });
    },

    /** `/:merchantSlug/r/:code`: where the link leads, counting the click. Unknown or inactive codes are 404. */
    async resolve(merchantSlug: string, auth: AuthContext | undefined, code: string) {
      const { merchant, tenant } = await resolveStorefront(sequelize, merchantSlug, auth);
      return sequelize.transaction(async (transaction) => {
        const link = await findActiveLink(tenant, code, transaction);
        if (!link) throw notFound('Referral link');
        const targetSlug = link.targetProductId ? await publishedProductSlug(sequelize, tenant, link.targetProductId, transaction) : undefined;
        await link.increment('clicks', { transaction });
        const base = `${config.PUBLIC_BASE_URL}/${merchant.slug}`;
        // A target that is no longer on sale leads to the landing page rather than to a dead end.
        return { code: link.code, productSlug: targetSlug ?? null, targetUrl: targetSlug !== undefined ? `${base}/${targetSlug}` : base };
      });
    },

    /**
     * Attributes a visitor to a link (the storefront calls it when a visitor arrives through one). A repeat
     * capture by the same visitor refreshes the window and counts once.
     */
    async capture(merchantSlug: string, auth: AuthContext | undefined, input: CaptureReferralBody) {
      const { tenant } = await resolveStorefront(sequelize, merchantSlug, auth);
      return sequelize.transaction(async (transaction) => {
        const link = await findActiveLink(tenant, input.code, transaction);
        if (!link) throw notFound('Referral link');
        const captured = await upsertReferralCapture(sequelize, tenant, { linkId: link.id, visitorId: input.visitorId }, transaction);
        if (captured.inserted) await link.increment('captures', { transaction });
        const capturedAt = new Date(captured.capturedAt);
        return {
          code: link.code,
          visitorId: input.visitorId,
          capturedAt: capturedAt.toISOString(),
          expiresAt: new Date(capturedAt.getTime() + ATTRIBUTION_DAYS * 86_400_000).toISOString(),
        };
      });
    },
  };
}

export type ReferralLinkService = ReturnType<typeof createReferralLinkService>;
