import type { Sequelize } from 'sequelize';
import { License, Product } from '../../db/models';
import { licenseKeyPrefix, newLicenseKey } from '../../domain/licenses';
import { createWorkspaceService } from '../../domain/workspaces';
import { newId } from '../../lib/ids';

/**
 * The licences the public licence scenarios call. Each scenario has one pool per side, seeded alike, so the
 * ceiling's activations and rate-limit counters never touch the full stack's: both sides start from the same
 * state and do the same sequence of work. A side's load walks keys 1 to size - 1 in turn (key 0 is its probe's),
 * so concurrent requests name distinct keys (installed software of many buyers, not one key hammered) and each key
 * stays under the route's real per-key limit (60 a minute, LICENSE_KEY_LIMIT_PER_MINUTE), which the bench leaves
 * in force: a side may send about 60 × size requests a minute before a 429, which fails the run (it refuses to
 * report non-2xx answers), as would a full licence's 422.
 */
export const VALIDATE_POOL_SIZE = 6_000;
export const ACTIVATE_POOL_SIZE = 3_000;
/** Activations already on every validate licence, so the count the answer carries is not of an empty set. */
export const VALIDATE_SEEDED_ACTIVATIONS = 2;
/** The one activation already on every activate licence: the instance a repeated activation names (`alreadyActive`). */
export const ACTIVATE_SEEDED_INSTANCE = 'seeded-1';
const VALIDATE_MAX_ACTIVATIONS = 5;
/**
 * Far above the new instances a walk gives one key: three in four of its requests are new instances, so filling
 * one takes over 130 requests on that key, 390,000 on one side's pool.
 */
export const ACTIVATE_MAX_ACTIVATIONS = 100;
const PRODUCT_SLUG = 'bench-licensed-app';

export interface LicencePools {
  ceiling: string[];
  fullStack: string[];
}

export interface BenchLicences {
  productId: string;
  validate: LicencePools;
  activate: LicencePools;
}

/** A live workspace selling one licensed product, and its four pools of active licences (keys of the product's prefix). */
export async function seedLicences(sequelize: Sequelize): Promise<BenchLicences> {
  const workspace = await createWorkspaceService({ sequelize }).create({ name: 'Bench licences', slug: 'bench-licences', plan: 'pro' });
  const tenant = { accountId: workspace.accountId, environment: 'live' as const };
  const productId = newId('prod');
  await Product.create({
    id: productId,
    ...tenant,
    name: 'Bench licensed app',
    slug: PRODUCT_SLUG,
    price: 250_000,
    currency: 'IDR',
    type: 'digital',
    published: true,
    licenseEnabled: true,
    maxActivations: VALIDATE_MAX_ACTIVATIONS,
  });
  // Half of them subscriptions (a date a year out: `expiresAt` is read and formatted), half perpetual; index 0, the probe, has one.
  const expiresAt = new Date(Date.now() + 365 * 86_400_000);
  const pool = async (size: number, maxActivations: number) => {
    const rows = Array.from({ length: size }, (_, i) => ({
      id: newId('lic'),
      ...tenant,
      key: newLicenseKey(licenseKeyPrefix(PRODUCT_SLUG)),
      productId,
      maxActivations,
      expiresAt: i % 2 === 0 ? expiresAt : null,
    }));
    await License.bulkCreate(rows);
    return rows;
  };
  const activated = async (rows: Array<{ id: string }>, count: number) =>
    sequelize.query(
      `INSERT INTO license_activations (license_id, instance_id)
       SELECT l.id, 'seeded-' || n FROM licenses l, generate_series(1, :count) n WHERE l.id IN (:ids)`,
      { replacements: { count, ids: rows.map((r) => r.id) } },
    );
  const validateCeiling = await pool(VALIDATE_POOL_SIZE, VALIDATE_MAX_ACTIVATIONS);
  const validateFull = await pool(VALIDATE_POOL_SIZE, VALIDATE_MAX_ACTIVATIONS);
  await activated([...validateCeiling, ...validateFull], VALIDATE_SEEDED_ACTIVATIONS);
  const activateCeiling = await pool(ACTIVATE_POOL_SIZE, ACTIVATE_MAX_ACTIVATIONS);
  const activateFull = await pool(ACTIVATE_POOL_SIZE, ACTIVATE_MAX_ACTIVATIONS);
  await activated([...activateCeiling, ...activateFull], 1);
  const keys = (rows: Array<{ key: string }>) => rows.map((r) => r.key);
  return {
    productId,
    validate: { ceiling: keys(validateCeiling), fullStack: keys(validateFull) },
    activate: { ceiling: keys(activateCeiling), fullStack: keys(activateFull) },
  };
}
