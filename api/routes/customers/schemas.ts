import { z } from 'zod';
import { pageQuery } from '../../pagination';
import { pathId } from '../../openapi';

export { CreateCustomerBody, UpdateCustomerBody } from '../../../domain/customers';

export const ListCustomersQuery = pageQuery().extend({
  email: z.string().max(320).optional().meta({ description: 'Exact, case-sensitive match' }),
});

export const CustomerIdParams = z.object({ id: pathId });

export const Customer = z
  .object({
    id: z.string().meta({ example: 'cust_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    accountId: z.string(),
    email: z.string().nullable(),
    name: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    testClock: z.string().nullable().meta({ description: 'The test clock this customer lives on (test environment)' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Customer' });
