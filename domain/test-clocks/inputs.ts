import { z } from 'zod';
import { singleLine } from '../../lib/text';

const frozenTime = z.iso.datetime({ offset: true }).meta({ example: '2025-01-01T00:00:00Z' });

export const CreateTestClockBody = z
  .strictObject({
    frozenTime: frozenTime.meta({ description: 'The clock’s starting time (ISO 8601)' }),
    name: singleLine({ min: 1, max: 100 }).optional(),
  })
  .meta({ id: 'CreateTestClockBody' });
export type CreateTestClockBody = z.infer<typeof CreateTestClockBody>;

export const AdvanceTestClockBody = z
  .strictObject({
    frozenTime: frozenTime.meta({ description: 'Later than the clock’s current frozenTime' }),
  })
  .meta({ id: 'AdvanceTestClockBody' });
export type AdvanceTestClockBody = z.infer<typeof AdvanceTestClockBody>;
