import { z } from 'zod';
import { singleLine } from '../lib/text';

export const MAX_PAGE_SIZE = 100;

/** `limit` (clamped to [1, 100]) and the opaque `cursor` of every list route. */
export function pageQuery(defaultLimit = 50) {
  return z.object({
    // Digits only: z.coerce would read `limit=` as 0 and `limit=1e1` as 10.
    limit: z
      .string()
      .regex(/^-?[0-9]+$/, 'limit must be an integer')
      .transform((v) => Math.min(MAX_PAGE_SIZE, Math.max(1, Number(v))))
      .optional()
      .transform((n) => n ?? defaultLimit)
      .meta({ type: 'integer', default: defaultLimit, description: `Page size, clamped to 1..${MAX_PAGE_SIZE}` }),
    cursor: singleLine({ min: 1, max: 200, trim: false }).optional(),
  });
}
