import {
  countActivations,
  deleteActivation,
  insertActivation,
  lockLicense,
  readActivationState,
  readLicenseValidation,
  type LockedLicense,
} from '../../db/licenses';
import { plainTransaction, type PlainStatement } from '../../db/plain-query';
import { AppError, notFound } from '../../lib/errors';
import type { ServiceDeps } from '../service-deps';
import { licenseStatus } from './status';

export interface LicenseValidation {
  valid: boolean;
  key: string;
  productId: string | null;
  activations: number | null;
  maxActivations: number | null;
  expiresAt: string | null;
}

/**
 * The routes installed software calls with the licence key alone (document 1, Authentication). Keys are globally
 * unique, so the key's row says its workspace and environment; nothing here is scoped by a caller's tenant.
 * An unknown key and a revoked one get the same answer, so neither tells a guesser more than the other.
 */
export function createPublicLicenseService({ sequelize }: Pick<ServiceDeps, 'sequelize'>) {
  /** The licence under a row lock, so activations and deactivations of one key run one at a time; revoked is not found. */
  async function lockUsable(query: PlainStatement, key: string): Promise<LockedLicense> {
    const license = await lockLicense(query, key);
    if (!license || licenseStatus(license) === 'revoked') throw notFound('Licence');
    return license;
  }

  return {
    /**
     * Read-only and never an error for a bad key: `valid: false` with null fields for an unknown or revoked key
     * or one of another product; an expired licence is `valid: false` with its figures, so software can say why.
     */
    async validate(key: string, productId?: string): Promise<LicenseValidation> {
      const row = await readLicenseValidation(sequelize, key);
      const status = row && licenseStatus(row);
      if (!row || status === 'revoked' || (productId !== undefined && row.productId !== productId)) {
        return { valid: false, key, productId: null, activations: null, maxActivations: null, expiresAt: null };
      }
      return {
        valid: status === 'active',
        key,
        productId: row.productId,
        activations: row.activations,
        maxActivations: row.maxActivations,
        expiresAt: row.expiresAt === null ? null : new Date(row.expiresAt).toISOString(),
      };
    },

    /**
     * Burns one slot for an instance; the same instance again is `alreadyActive` and burns none. Under the row
     * lock the count is exact: concurrent activations of distinct instances never exceed `maxActivations`.
     */
    async activate(key: string, instanceId: string) {
      return plainTransaction(sequelize, async (query) => {
        const license = await lockUsable(query, key);
        if (licenseStatus(license) === 'expired') throw new AppError('SUBSCRIPTION_INACTIVE', 'This licence has expired');
        const { activations, active } = await readActivationState(query, license.id, instanceId);
        const answer = { activated: true, key, maxActivations: license.maxActivations, instanceId };
        if (active) return { ...answer, activations, alreadyActive: true };
        if (activations >= license.maxActivations) {
          throw new AppError('ACTIVATION_LIMIT_REACHED', `This licence is active on ${activations} of ${license.maxActivations} instances; deactivate one first`);
        }
        await insertActivation(query, license.id, instanceId);
        return { ...answer, activations: activations + 1, alreadyActive: false };
      });
    },

    /** Frees the instance's slot; an instance that was not active is `alreadyDeactivated`. An expired licence may still free slots. */
    async deactivate(key: string, instanceId: string) {
      return plainTransaction(sequelize, async (query) => {
        const license = await lockUsable(query, key);
        const removed = await deleteActivation(query, license.id, instanceId);
        const activations = await countActivations(query, license.id);
        return { deactivated: true, key, activations, instanceId, alreadyDeactivated: !removed };
      });
    },
  };
}

export type PublicLicenseService = ReturnType<typeof createPublicLicenseService>;
