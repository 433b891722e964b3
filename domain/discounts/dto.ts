import type { DiscountCodeRow } from '../../db/discounts';

export type { DiscountCodeRow };

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

/** The one discount-code shape of create, list, retrieve, update and delete. Amounts in the smallest unit. */
export function toDiscountCodeDto(row: DiscountCodeRow) {
  return {
    id: row.id,
    accountId: row.accountId,
    code: row.code,
    description: row.description,
    type: row.type,
    value: Number(row.value),
    currency: row.currency,
    scope: row.scope,
    productIds: row.productIds,
    tagFilter: row.tagFilter,
    minPurchaseAmount: row.minPurchaseAmount === null ? null : Number(row.minPurchaseAmount),
    maxUsesTotal: row.maxUsesTotal,
    maxUsesPerCustomer: row.maxUsesPerCustomer,
    usesTotal: row.usesTotal,
    startsAt: iso(row.startsAt),
    expiresAt: iso(row.expiresAt),
    active: row.active,
    public: row.public,
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
  };
}

export type DiscountCodeDto = ReturnType<typeof toDiscountCodeDto>;

/**
 * A publicly listed code as buyers see it on the storefront: what it gives and its conditions, never its usage
 * counts or limits (those are the merchant's business).
 */
export function toPublicDiscountCode(row: DiscountCodeRow) {
  const dto = toDiscountCodeDto(row);
  return {
    code: dto.code,
    description: dto.description,
    type: dto.type,
    value: dto.value,
    currency: dto.currency,
    scope: dto.scope,
    productIds: dto.productIds,
    tagFilter: dto.tagFilter,
    minPurchaseAmount: dto.minPurchaseAmount,
    startsAt: dto.startsAt,
    expiresAt: dto.expiresAt,
  };
}
