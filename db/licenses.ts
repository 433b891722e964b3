import { QueryTypes, type Attributes, type Sequelize, type Transaction } from 'sequelize';
import type { License, LicenseStatus } from './models';
import { plainQuery, type PlainStatement } from './plain-query';
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

/*
 * The public routes' statements (domain/licenses/public.ts): the busiest of the service, called by installed
 * software, so each is a named prepared statement (db/plain-query.ts); exported so the bench's ceiling sends the
 * very same ones.
 */

/** What validate answers from: the licence's figures and status, without the merchant's fields of the full row. */
export interface LicenseValidationRow {
  productId: string;
  maxActivations: number;
  status: LicenseStatus;
  expiresAt: Date | null;
  activations: number;
}

export const VALIDATE_LICENSE_SQL = `SELECT l.product_id AS "productId", l.max_activations AS "maxActivations", l.status, l.expires_at AS "expiresAt",
         (SELECT count(*)::int FROM license_activations a WHERE a.license_id = l.id) AS activations
    FROM licenses l WHERE l.key = $1`;

/** What the activation rules read of the licence they lock. */
export interface LockedLicense {
  id: string;
  maxActivations: number;
  status: LicenseStatus;
  expiresAt: Date | null;
}

/** The licence row under `FOR UPDATE`: activations and deactivations of one key run one at a time. */
export const LOCK_LICENSE_SQL = `SELECT id, max_activations AS "maxActivations", status, expires_at AS "expiresAt" FROM licenses WHERE key = $1 FOR UPDATE`;

/**
 * The licence's activation count and whether `$2` is among them, in one statement. Sent after the lock, as its own
 * statement: a statement sees the rows committed when it started, so one sent with the lock (or before it) could
 * miss an activation committed while it waited, and the count would no longer be exact.
 */
export const ACTIVATION_STATE_SQL = `SELECT count(*)::int AS activations, coalesce(bool_or(instance_id = $2), false) AS active
  FROM license_activations WHERE license_id = $1`;

export const INSERT_ACTIVATION_SQL = 'INSERT INTO license_activations (license_id, instance_id) VALUES ($1, $2)';

/** Answers whether the instance was active (a row was deleted). */
export const DELETE_ACTIVATION_SQL = 'DELETE FROM license_activations WHERE license_id = $1 AND instance_id = $2 RETURNING 1';

export const COUNT_ACTIVATIONS_SQL = 'SELECT count(*)::int AS activations FROM license_activations WHERE license_id = $1';

/** The licence of a key as validate reads it, named and prepared; undefined for an unknown key. */
export async function readLicenseValidation(sequelize: Sequelize, key: string): Promise<LicenseValidationRow | undefined> {
  const [row] = await plainQuery<LicenseValidationRow>(sequelize, VALIDATE_LICENSE_SQL, [key]);
  return row;
}

/** LOCK_LICENSE_SQL in a plain transaction (plainTransaction's `query`); undefined for an unknown key. */
export async function lockLicense(query: PlainStatement, key: string): Promise<LockedLicense | undefined> {
  const [license] = await query<LockedLicense>(LOCK_LICENSE_SQL, [key]);
  return license;
}

/** ACTIVATION_STATE_SQL: the licence's activation count and whether the instance is among them. */
export async function readActivationState(query: PlainStatement, licenseId: string, instanceId: string): Promise<{ activations: number; active: boolean }> {
  const [state] = await query<{ activations: number; active: boolean }>(ACTIVATION_STATE_SQL, [licenseId, instanceId]);
  return state!;
}

export async function insertActivation(query: PlainStatement, licenseId: string, instanceId: string): Promise<void> {
  await query(INSERT_ACTIVATION_SQL, [licenseId, instanceId]);
}

/** Whether the instance was active (its row was deleted). */
export async function deleteActivation(query: PlainStatement, licenseId: string, instanceId: string): Promise<boolean> {
  const removed = await query(DELETE_ACTIVATION_SQL, [licenseId, instanceId]);
  return removed.length > 0;
}

export async function countActivations(query: PlainStatement, licenseId: string): Promise<number> {
  const [counted] = await query<{ activations: number }>(COUNT_ACTIVATIONS_SQL, [licenseId]);
  return counted!.activations;
}
