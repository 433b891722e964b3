import { z } from 'zod';
import { LICENSE_STATUSES } from '../../../db/models/license';
import { singleLine } from '../../../lib/text';

export { LicenseInstanceBody } from '../../../domain/licenses';

const key = z.string().meta({ example: 'EBOOK-7K3M-Q9XD-4HNP-WA2T' });

export const LicenseKeyParams = z.object({ key: singleLine({ min: 1, max: 200, trim: false }) });

/** No bound on `key` but presence: a bad key is an answer (`valid: false`), never an error (document 1). */
export const ValidateLicenseQuery = z.object({
  // Validate never errors on a bad key (document 1), however long; the bound only keeps the URL within HTTP's limits.
  key: singleLine({ min: 1, max: 8_000, trim: false }).meta({ description: 'The licence key, case-sensitive' }),
  productId: singleLine({ min: 1, max: 100, trim: false }).optional().meta({ description: 'When given, a key of another product is not valid' }),
});

export const License = z
  .object({
    id: z.string().meta({ example: 'lic_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    accountId: z.string(),
    key,
    productId: z.string(),
    customerId: z.string().nullable(),
    checkoutSessionId: z.string().nullable(),
    activations: z.int().meta({ description: 'Instances active now' }),
    maxActivations: z.int().meta({ description: "The product's cap when the licence was issued" }),
    status: z.enum(LICENSE_STATUSES).meta({ description: '`expired` once `expiresAt` has passed; `revoked` after DELETE (permanent)' }),
    expiresAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'License' });

export const LicenseValidation = z
  .object({
    valid: z.boolean(),
    key,
    productId: z.string().nullable(),
    activations: z.int().nullable(),
    maxActivations: z.int().nullable(),
    expiresAt: z.string().nullable(),
  })
  .meta({ id: 'LicenseValidation' });

export const LicenseActivation = z
  .object({
    activated: z.boolean(),
    key,
    activations: z.int(),
    maxActivations: z.int(),
    instanceId: z.string(),
    alreadyActive: z.boolean().meta({ description: 'The instance was active already; no slot was burnt' }),
  })
  .meta({ id: 'LicenseActivation' });

export const LicenseDeactivation = z
  .object({
    deactivated: z.boolean(),
    key,
    activations: z.int(),
    instanceId: z.string(),
    alreadyDeactivated: z.boolean().meta({ description: 'The instance was not active; nothing changed' }),
  })
  .meta({ id: 'LicenseDeactivation' });
