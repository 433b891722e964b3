import { QueryTypes, type Attributes, type Sequelize, type Transaction } from 'sequelize';
import type { License } from './models';
import type { Tenant } from './tenancy';

/** Plain SQL the licence rules share (domain/licenses/): reads with the activation count, issuing once, activation rows. */

/** A licence row with `activations`, the number of its license_activations rows. */
export type LicenseWithActivations = Attributes<License> & { activations: number };

const SELECT_LICENSE = `
  SELECT l.id, l.account_id AS "accountId", l.environment, l.key, l.product_id AS "productId", l.customer_id AS "customerId",
         l.checkout_session_id AS "checkoutSessionId", l.line_key AS "lineKey", l.max_activations AS "maxActivations",
         l.status, l.expires_at AS "expiresAt", l.revoked_at AS "revokedAt", l.created_at AS "createdAt", l.updated_at AS "updatedAt",
         (SELECT count(*)::int FROM license_activations a WHERE a.license_id = l.id) AS activations
    FROM licenses l`;

/** Every licence of the tenant, newest first. */
export function listLicenses(sequelize: Sequelize, tenant: Tenant): Promise<LicenseWithActivations[]> {
  return sequelize.query<LicenseWithActivations>(`${SELECT_LICENSE} WHERE l.account_id = :accountId AND l.environment = :environment ORDER BY l.id DESC`, {
    type: QueryTypes.SELECT,
    replacements: { accountId: tenant.accountId, environment: tenant.environment },
  });
}

/** The licence of a key (keys are case-sensitive), in the tenant when one is given: the public routes look across all. */
export async function findLicense(sequelize: Sequelize, key: string, tenant?: Tenant, transaction?: Transaction): Promise<LicenseWithActivations | null> {
  const [row] = await sequelize.query<LicenseWithActivations>(
    `${SELECT_LICENSE} WHERE l.key = :key${tenant ? ' AND l.account_id = :accountId AND l.environment = :environment' : ''}`,
    { type: QueryTypes.SELECT, replacements: { key, accountId: tenant?.accountId ?? null, environment: tenant?.environment ?? null }, transaction },
  );
  return row ?? null;
}

export interface NewLicense extends Tenant {
  id: string;
  key: string;
  productId: string;
  customerId: string | null;
  checkoutSessionId: string | null;
  lineKey: string | null;
  maxActivations: number;
  expiresAt: Date | null;
}

/**
 * Inserts a licence unless its (checkout session, line) already has one, and answers the key of the line's
 * licence: the new one, or the one an earlier try issued. Under two concurrent issues of one line the second
 * insert waits for the first to commit and does nothing; the lookup after it is a new statement, so it sees it.
 */
export async function insertLicenseOnce(sequelize: Sequelize, row: NewLicense, transaction: Transaction): Promise<string> {
  const [inserted] = await sequelize.query<{ key: string }>(
    `INSERT INTO licenses (id, account_id, environment, key, product_id, customer_id, checkout_session_id, line_key, max_activations, expires_at)
     VALUES (:id, :accountId, :environment, :key, :productId, :customerId, :checkoutSessionId, :lineKey, :maxActivations, :expiresAt)
     ON CONFLICT (account_id, environment, checkout_session_id, line_key) WHERE checkout_session_id IS NOT NULL DO NOTHING
     RETURNING key`,
    { type: QueryTypes.SELECT, replacements: { ...row }, transaction },
  );
  if (inserted) return inserted.key;
  const [earlier] = await sequelize.query<{ key: string }>(
    `SELECT key FROM licenses
      WHERE account_id = :accountId AND environment = :environment AND checkout_session_id = :checkoutSessionId AND line_key = :lineKey`,
    { type: QueryTypes.SELECT, replacements: { ...row }, transaction },
  );
  if (!earlier) throw new Error(`licence of ${row.checkoutSessionId}/${row.lineKey} neither inserted nor found`);
  return earlier.key;
}

/** The activation count, read after the caller locked the licence so it sees every committed activation. */
export async function countActivations(sequelize: Sequelize, licenseId: string, transaction: Transaction): Promise<number> {
  const [row] = await sequelize.query<{ count: number }>(`SELECT count(*)::int AS count FROM license_activations WHERE license_id = :licenseId`, {
    type: QueryTypes.SELECT,
    replacements: { licenseId },
    transaction,
  });
  return row?.count ?? 0;
}

export async function isActivated(sequelize: Sequelize, licenseId: string, instanceId: string, transaction: Transaction): Promise<boolean> {
  const rows = await sequelize.query(`SELECT 1 FROM license_activations WHERE license_id = :licenseId AND instance_id = :instanceId`, {
    type: QueryTypes.SELECT,
    replacements: { licenseId, instanceId },
    transaction,
  });
  return rows.length > 0;
}

export async function insertActivation(sequelize: Sequelize, licenseId: string, instanceId: string, transaction: Transaction): Promise<void> {
  await sequelize.query(`INSERT INTO license_activations (license_id, instance_id) VALUES (:licenseId, :instanceId)`, {
    replacements: { licenseId, instanceId },
    transaction,
  });
}

/** Answers whether the instance was active (a row was deleted). */
export async function deleteActivation(sequelize: Sequelize, licenseId: string, instanceId: string, transaction: Transaction): Promise<boolean> {
  const deleted = await sequelize.query(`DELETE FROM license_activations WHERE license_id = :licenseId AND instance_id = :instanceId RETURNING 1`, {
    type: QueryTypes.SELECT,
    replacements: { licenseId, instanceId },
    transaction,
  });
  return deleted.length > 0;
}
