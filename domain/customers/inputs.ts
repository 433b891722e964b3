import { z } from 'zod';
import { patchBody } from '../../lib/patch-body';
import { emailAddress, singleLine, stringMap } from '../../lib/text';

/** Document 2's Limits: at most 50 string entries; keys and values bounded like product metadata. */
const metadata = stringMap({ keyMax: 40, maxKeys: 50, value: singleLine({ max: 500, trim: false }) }).meta({
  description: 'String-to-string map, at most 50 entries (keys 1 to 40 characters, values at most 500)',
});

export const CreateCustomerBody = z
  .strictObject({
    email: emailAddress().optional().meta({ description: 'Required in local mode, where it is unique per workspace and environment exactly as given; optional and not unique in provider mode (payment module on)' }),
    name: singleLine({ min: 1, max: 255 }).optional(),
    metadata: metadata.optional(),
    testClock: z.string().regex(/^clock_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a clock_ id').optional().meta({ description: 'Test environment only: the test clock this customer lives on', example: 'clock_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
  })
  .meta({ id: 'CreateCustomerBody' });
export type CreateCustomerBody = z.infer<typeof CreateCustomerBody>;

export const UpdateCustomerBody = patchBody(
  z.strictObject({
    email: emailAddress().optional(),
    name: singleLine({ min: 1, max: 255 }).optional(),
    metadata: metadata.nullable().optional().meta({ description: '`null` clears it; an object replaces it whole' }),
  }),
  'UpdateCustomerBody',
);
export type UpdateCustomerBody = z.infer<typeof UpdateCustomerBody>;
