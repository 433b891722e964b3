import { z } from 'zod';
import { singleLine } from '../lib/text';

export const MAX_PAGE_SIZE = 100;

/** `limit` (clamped to [1, 100]) and the opaque `cursor` of every list route. */
export function pageQuery(defaultLimit = 50) {
  return z.object({
    limit: z.coerce
      .number()
      .int('limit must be an integer')
      .transform((n) => Math.min(MAX_PAGE_SIZE, Math.max(1, n)))
      .default(defaultLimit),
    cursor: singleLine({ min: 1, max: 200, trim: false }).optional(),
  });
}
