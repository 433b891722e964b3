import { findLicense, listLicenses } from '../../db/licenses';
import { License } from '../../db/models';
import { tenantWhere } from '../../db/tenancy';
import { notFound } from '../../lib/errors';
import type { AuthContext } from '../auth-context';
import type { ServiceDeps } from '../service-deps';
import { toLicenseDto, type LicenseDto } from './dto';

/** Licences as the merchant manages them (secret key), addressed by key within the caller's workspace and environment. */
export function createLicenseService({ sequelize }: Pick<ServiceDeps, 'sequelize'>) {
  return {
    /** Every licence, newest first: document 1 gives this list no pagination. */
    async list(auth: AuthContext): Promise<LicenseDto[]> {
      const now = Date.now();
      return (await listLicenses(sequelize, tenantWhere(auth))).map((row) => toLicenseDto(row, now));
    },

    async retrieve(auth: AuthContext, key: string): Promise<LicenseDto> {
      const row = await findLicense(sequelize, key, tenantWhere(auth));
      if (!row) throw notFound('Licence');
      return toLicenseDto(row);
    },

    /**
     * Permanent. Revoking a revoked licence again succeeds and keeps the first `revokedAt`. The row lock waits
     * for an activation in progress, which then counts; none starts after. Activations stay recorded.
     */
    async revoke(auth: AuthContext, key: string): Promise<void> {
      await sequelize.transaction(async (tx) => {
        const license = await License.findOne({ where: { key, ...tenantWhere(auth) }, lock: tx.LOCK.UPDATE, transaction: tx });
        if (!license) throw notFound('Licence');
        if (license.status !== 'revoked') await license.update({ status: 'revoked', revokedAt: new Date() }, { transaction: tx });
      });
    },
  };
}

export type LicenseService = ReturnType<typeof createLicenseService>;
