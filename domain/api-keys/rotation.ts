import { invalidState } from '../../lib/errors';

/**
 * Key rotation (document 1, Authentication: "the old value works for 24 hours"; docs/decisions/auth.md, "Rotation").
 * A rotated key is refused from its `expiresAt` on: accepted up to the instant before, refused at it and after.
 */
export function acceptsAt(key: { expiresAt: Date | null }, now: number): boolean {
  return key.expiresAt === null || now < key.expiresAt.getTime();
}

/** When the old value of a key rotated at `now` stops working. */
export function rotationDeadline(now: Date, overlapMs: number): Date {
  return new Date(now.getTime() + overlapMs);
}

/**
 * A key is rotated once: a revoked key has nothing left to rotate, and one already rotated has its replacement,
 * which is the one to rotate next (its deadline is not moved, so an old value never gains time).
 */
export function checkRotatable(key: { revokedAt: Date | null; expiresAt: Date | null }): void {
  if (key.revokedAt) throw invalidState('This key is revoked; there is nothing to rotate');
  if (key.expiresAt) throw invalidState('This key was rotated already; rotate the key that replaced it');
}
