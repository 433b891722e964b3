import type { LicenseStatus } from '../../db/models';

/**
 * The status a licence has now. Only a revocation is written; `expired` is read from `expiresAt` (a hard expiry,
 * document 1), so every answer agrees with the clock without a job keeping a stored copy true
 * (docs/decisions/licenses.md). A stored `expired` counts too.
 */
export function licenseStatus(row: { status: LicenseStatus; expiresAt: Date | string | null }, now = Date.now()): LicenseStatus {
  if (row.status !== 'active') return row.status;
  return row.expiresAt !== null && new Date(row.expiresAt).getTime() <= now ? 'expired' : 'active';
}
