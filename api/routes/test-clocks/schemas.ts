import { z } from 'zod';
import { pageQuery } from '../../pagination';
import { pathId } from '../../openapi';

export { AdvanceTestClockBody, CreateTestClockBody } from '../../../domain/test-clocks';

export const ListTestClocksQuery = pageQuery();

export const TestClockIdParams = z.object({ id: pathId });

export const TestClock = z
  .object({
    id: z.string().meta({ example: 'clock_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    accountId: z.string(),
    name: z.string().nullable(),
    frozenTime: z.string().meta({ example: '2025-01-01T00:00:00.000Z' }),
    status: z.enum(['ready', 'advancing']),
    createdAt: z.string(),
  })
  .meta({ id: 'TestClock' });

export const DeletedTestClock = z.object({ id: z.string(), accountId: z.string(), deleted: z.literal(true) }).meta({ id: 'DeletedTestClock' });
