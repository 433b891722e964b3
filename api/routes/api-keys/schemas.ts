import { z } from 'zod';
import { singleLine } from '../../../lib/text';
import { pathId, Timestamp } from '../../openapi';

export const CreateApiKeyBody = z
  .object({
    name: singleLine({ min: 1, max: 100 }),
    environment: z.enum(['test', 'live']),
    access: z.enum(['secret', 'publishable']),
  })
  .strict()
  .meta({ id: 'CreateApiKeyBody' });
export type CreateApiKeyBody = z.infer<typeof CreateApiKeyBody>;

export const ApiKeyIdParams = z.object({ id: pathId });

export const ApiKey = z
  .object({
    id: z.string().meta({ example: 'key_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    accountId: z.string().meta({ example: 'acc_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    name: z.string(),
    prefix: z.string().meta({ example: 'sk_test_' }),
    last4: z.string(),
    environment: z.enum(['test', 'live']),
    access: z.enum(['secret', 'publishable']),
    createdAt: Timestamp,
    lastUsedAt: Timestamp.nullable(),
    revokedAt: Timestamp.nullable(),
    expiresAt: Timestamp.nullable().meta({ description: 'A key rotated in the dashboard works until then, beside the key that replaced it; null otherwise.' }),
    replacedBy: z.string().nullable().meta({ description: 'The key that replaced this one at its rotation; null otherwise.' }),
  })
  .meta({ id: 'ApiKey' });

export const CreatedApiKey = ApiKey.extend({
  value: z.string().meta({ description: 'The full key. Returned once, never again.' }),
}).meta({ id: 'CreatedApiKey' });
