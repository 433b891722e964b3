import type { Transaction } from 'sequelize';
import { findLicense, insertLicenseOnce } from '../../db/licenses';
import { Product } from '../../db/models';
import { connectionOf } from '../../db/outbox';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { toLicenseDto, type LicenseDto } from './dto';
import { licenseKeyPrefix, newLicenseKey } from './key';

export interface IssueLicenseInput {
  productId: string;
  customerId?: string | null;
  /** With it, issuing is idempotent per (session, line): a retried fulfillment step gets the licence it issued. */
  checkoutSessionId?: string | null;
  /** The checkout line; defaults to the product id (one licence per product line of a session). */
  lineKey?: string | null;
  expiresAt?: Date | null;
}

/**
 * Issues a licence for a purchase of an own product (archived ones too: the buyer paid before the archive),
 * inside the caller's transaction. `maxActivations` is the product's at this moment; later product changes do
 * not touch licences already issued. Whether the product issues licences (`licenseEnabled`) is the caller's call.
 */
export async function issueLicense(tx: Transaction, tenant: Tenant, input: IssueLicenseInput): Promise<LicenseDto> {
  const scope = tenantWhere(tenant);
  const product = await Product.findOne({ where: { id: input.productId, ...scope }, attributes: ['slug', 'maxActivations'], transaction: tx });
  if (!product) throw notFound('Product');
  const checkoutSessionId = input.checkoutSessionId ?? null;
  const sequelize = connectionOf(tx);
  const key = await insertLicenseOnce(
    sequelize,
    {
      id: newId('lic'),
      ...scope,
      key: newLicenseKey(licenseKeyPrefix(product.slug)),
      productId: input.productId,
      customerId: input.customerId ?? null,
      checkoutSessionId,
      lineKey: checkoutSessionId === null ? null : (input.lineKey ?? input.productId),
      maxActivations: product.maxActivations,
      expiresAt: input.expiresAt ?? null,
    },
    tx,
  );
  const row = await findLicense(sequelize, key, scope, tx);
  if (!row) throw new Error(`licence ${key} issued but not found`);
  return toLicenseDto(row);
}
