import { z } from 'zod';

export const CreateApiKeyBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    environment: z.enum(['test', 'live']),
    access: z.enum(['secret', 'publishable']),
  })
  .strict()
  .meta({ id: 'CreateApiKeyBody' });
export type CreateApiKeyBody = z.infer<typeof CreateApiKeyBody>;

export const ApiKeyIdParams = z.object({ id: z.string().min(1).max(100) });

export const ApiKey = z
  .object({
    id: z.string().meta({ example: 'key_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    accountId: z.string().meta({ example: 'acc_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    name: z.string(),
    prefix: z.string().meta({ example: 'sk_test_' }),
    last4: z.string(),
    environment: z.enum(['test', 'live']),
    access: z.enum(['secret', 'publishable']),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
  })
  .meta({ id: 'ApiKey' });

export const CreatedApiKey = ApiKey.extend({
  value: z.string().meta({ description: 'The full key. Returned once, never again.' }),
}).meta({ id: 'CreatedApiKey' });
