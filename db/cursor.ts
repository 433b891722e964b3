import { isId, type IdPrefix } from '../lib/ids';
import { validationError } from '../lib/errors';

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

/** Where a page ordered by creation time stopped: the last row's `created_at` (UTC, to the microsecond) and id. */
export interface CreationPosition {
  createdAt: string;
  id: string;
}

// A timestamptz as the list statement spells it (`2026-01-31 12:00:00.123456+00`), so the position round-trips exactly.
const TIMESTAMPTZ_TEXT = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}\+00$/;

/** The date and time exist (no 30 February, no hour 25): PostgreSQL would refuse the cast otherwise. */
function isCalendarTime(text: string): boolean {
  const iso = `${text.slice(0, 10)}T${text.slice(11, 19)}Z`;
  const parsed = new Date(iso);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 19) === iso.slice(0, 19);
}

/** A cursor of a list ordered by (created_at, id): for tables whose ids carry more than one prefix. */
export function encodeCreationCursor(position: CreationPosition): string {
  return Buffer.from(`v2:${position.createdAt}|${position.id}`, 'utf8').toString('base64url');
}

export function decodeCreationCursor(cursor: string | undefined, prefixes: readonly IdPrefix[]): CreationPosition | undefined {
  if (cursor === undefined) return undefined;
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  const [createdAt = '', id = ''] = decoded.startsWith('v2:') ? decoded.slice(3).split('|') : [];
  if (!TIMESTAMPTZ_TEXT.test(createdAt) || !isCalendarTime(createdAt) || !prefixes.some((prefix) => isId(id, prefix))) {
    throw validationError('cursor is not valid for this list', [{ field: 'cursor', message: 'unrecognised cursor' }]);
  }
  return { createdAt, id };
}

/** A page as every list route answers it. */
export interface ListPage<T> {
  data: T[];
  nextCursor: string | null;
}

/**
 * Turns `limit + 1` rows fetched newest first into a page: the extra row only says there is more, and the
 * cursor names the last row shown.
 */
export function toListPage<R extends { id: string }, T>(rows: R[], limit: number, toDto: (row: R) => T): ListPage<T> {
  const page = rows.slice(0, limit);
  return { data: page.map(toDto), nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]!.id) : null };
}
