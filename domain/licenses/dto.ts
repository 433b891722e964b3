import type { LicenseWithActivations } from '../../db/licenses';
import { licenseStatus } from './status';

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

/** The merchant's licence shape (list, retrieve): document 1's fields plus `accountId`, `revokedAt` and `updatedAt`. */
export function toLicenseDto(row: LicenseWithActivations, now = Date.now()) {
  return {
    id: row.id,
    accountId: row.accountId,
    key: row.key,
    productId: row.productId,
    customerId: row.customerId,
    checkoutSessionId: row.checkoutSessionId,
    activations: row.activations,
    maxActivations: row.maxActivations,
    status: licenseStatus(row, now),
    expiresAt: iso(row.expiresAt),
    revokedAt: iso(row.revokedAt),
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
  };
}

export type LicenseDto = ReturnType<typeof toLicenseDto>;
