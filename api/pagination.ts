import { z } from 'zod';
import { isId, type IdPrefix } from '../lib/ids';
import { validationError } from './errors';

export const MAX_PAGE_SIZE = 100;

/** `limit` (clamped to [1, 100]) and the opaque `cursor` of every list route. */
export function pageQuery(defaultLimit = 50) {
  return z.object({
    limit: z.coerce
      .number()
      .int('limit must be an integer')
      .transform((n) => Math.min(MAX_PAGE_SIZE, Math.max(1, n)))
      .default(defaultLimit),
    cursor: z.string().min(1).max(200).optional(),
  });
}

// A cursor is the base64url of the last row's id: lists are keyset-paginated on the time-ordered id.
export function encodeCursor(lastId: string): string {
  return Buffer.from(`v1:${lastId}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string | undefined, prefix: IdPrefix): string | undefined {
  if (cursor === undefined) return undefined;
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  const id = decoded.startsWith('v1:') ? decoded.slice(3) : '';
  if (!isId(id, prefix)) {
    throw validationError('cursor is not valid for this list', [{ field: 'cursor', message: 'unrecognised cursor' }]);
  }
  return id;
}
