/**
 * Order numbers `<MERCHANT-SLUG-PREFIX>-<seq>` (docs/decisions/manual-orders.md): the prefix is the first
 * hyphen-separated word of the workspace slug, upper-cased, at most 8 characters (`warung-budi` → `WARUNG`);
 * the sequence is per workspace environment, from 1, zero-padded to at least 4 digits (`WARUNG-0001`, …,
 * `WARUNG-10000`). Numbers are stored upper-case and looked up case-insensitively.
 */
export const ORDER_PREFIX_MAX = 8;
const FALLBACK_PREFIX = 'ORDER';

export function orderNumberPrefix(slug: string | null): string {
  const word = (slug ?? '').split('-').find((part) => part.length > 0);
  return word ? word.slice(0, ORDER_PREFIX_MAX).toUpperCase() : FALLBACK_PREFIX;
}

export function formatOrderNumber(prefix: string, seq: number): string {
  return `${prefix}-${String(seq).padStart(4, '0')}`;
}

/** An order number as a buyer may type it: surrounding spaces and letter case do not matter. */
export function normaliseOrderNumber(value: string): string {
  return value.trim().toUpperCase();
}
