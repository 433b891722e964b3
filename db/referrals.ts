import type { Sequelize, Transaction } from 'sequelize';
import { connectionOf } from './outbox';
import type { Tenant } from './tenancy';

/** The statements of referral counting; the rules live in domain/referrals/service.ts. */

/** Adds a conversion to the tenant's active link of `code` (case-insensitive); false when there is none. */
export async function creditReferralConversion(tx: Transaction, tenant: Tenant, code: string): Promise<boolean> {
  const [rows] = await connectionOf(tx).query(
    `UPDATE referral_links SET conversions = conversions + 1, updated_at = now()
      WHERE account_id = :accountId AND environment = :environment AND lower(code) = lower(:code) AND active
      RETURNING id`,
    { replacements: { accountId: tenant.accountId, environment: tenant.environment, code }, transaction: tx },
  );
  return (rows as unknown[]).length > 0;
}

/** Records the visitor's capture by the link, or refreshes its time; `inserted` tells a first capture. */
export async function upsertReferralCapture(
  sequelize: Sequelize,
  tenant: Tenant,
  capture: { linkId: string; visitorId: string },
  transaction: Transaction,
): Promise<{ capturedAt: Date; inserted: boolean }> {
  const [rows] = await sequelize.query(
    `INSERT INTO referral_captures (referral_link_id, visitor_id, account_id, environment) VALUES (:linkId, :visitorId, :accountId, :environment)
           ON CONFLICT (referral_link_id, visitor_id) DO UPDATE SET captured_at = now()
           RETURNING captured_at AS "capturedAt", (xmax = 0) AS inserted`,
    { replacements: { linkId: capture.linkId, visitorId: capture.visitorId, accountId: tenant.accountId, environment: tenant.environment }, transaction },
  );
  const [captured] = rows as { capturedAt: Date; inserted: boolean }[];
  return captured!;
}
