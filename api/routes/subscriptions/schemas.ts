import { z } from 'zod';
import { SUBSCRIPTION_STATUSES } from '../../../db/models';
import { pageQuery } from '../../pagination';
import { pathId } from '../../openapi';

export { CreateSubscriptionBody, UpdateSubscriptionBody } from '../../../domain/subscriptions';

export const ListSubscriptionsQuery = pageQuery().extend({
  status: z.enum(SUBSCRIPTION_STATUSES).optional(),
  customerId: z.string().max(100).optional().meta({ description: 'Only this customer’s subscriptions' }),
});

export const SubscriptionIdParams = z.object({ id: pathId });

export const CancelSubscriptionQuery = z.object({
  immediate: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .meta({ description: '`true` cancels now with no refund; default: at the end of the current period (`cancelAtPeriodEnd`)' }),
});

const timestamp = z.string().meta({ example: '2025-01-31T00:00:00.000Z' });

export const Subscription = z
  .object({
    id: z.string().meta({ example: 'sub_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    accountId: z.string(),
    customerId: z.string(),
    planId: z.string(),
    status: z.enum(SUBSCRIPTION_STATUSES),
    currentPeriodStart: timestamp,
    currentPeriodEnd: timestamp,
    trialEnd: timestamp.nullable(),
    cancelAtPeriodEnd: z.boolean(),
    canceledAt: timestamp.nullable().meta({ description: 'When the cancel executed' }),
    pausedAt: timestamp.nullable(),
    failedPaymentCount: z.int().meta({ description: 'Consecutive failed attempts; 0 after a success' }),
    latestInvoiceId: z.string().nullable().meta({ description: 'The last invoice issued for it (period or proration)' }),
    testClock: z.string().nullable().meta({ description: 'The test clock its customer lives on (test environment)' }),
    metadata: z.record(z.string(), z.string()),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Subscription' });
