import { z } from 'zod';
import { patchBody } from '../../lib/patch-body';
import { DISCOUNT_SCOPES, DISCOUNT_TYPES, type DiscountScope, type DiscountType } from '../../db/models/discount-code';
import { CURRENCIES } from '../../db/models/product';
import type { ErrorDetail } from '../../lib/errors';
import { multiLine, singleLine } from '../../lib/text';

/**
 * What a discount-code write may carry: the bounds of document 1 and the limits it leaves open
 * (docs/decisions/discounts.md). Rules across fields live in discountRuleIssues, which create validates on the
 * body and update on the record as it would be after the PATCH.
 */

/** Letters, digits, `-` and `_`: a code is typed by buyers and put in links, so no spaces or punctuation. */
export const CODE_PATTERN = /^[A-Za-z0-9_-]+$/;
export const PERCENT_TYPES: readonly DiscountType[] = ['percent', 'shipping_percent'];
export const SHIPPING_TYPES: readonly DiscountType[] = ['shipping_percent', 'shipping_fixed'];

// Limits the spec leaves open.
const MAX_PRODUCT_IDS = 100;
const MAX_TAGS = 50;
const MAX_INT4 = 2_147_483_647;

const amount = z.int().min(0).max(Number.MAX_SAFE_INTEGER);
const useLimit = z.int().min(1).max(MAX_INT4);
const timestamp = z.iso.datetime({ offset: true });

const editable = {
  description: multiLine({ max: 500 }).nullable().optional(),
  type: z.enum(DISCOUNT_TYPES),
  value: z.int().min(1).max(Number.MAX_SAFE_INTEGER).meta({ description: 'Percent types: 1 to 100. Fixed types: the smallest currency unit (cents for USD, rupiah for IDR).' }),
  currency: z.enum(CURRENCIES).meta({ description: 'ISO 4217; the currencies products are priced in' }),
  scope: z.enum(DISCOUNT_SCOPES).optional().meta({ description: 'Default cart' }),
  productIds: z
    .array(singleLine({ min: 1, max: 100, trim: false }))
    .min(1)
    .max(MAX_PRODUCT_IDS)
    .nullable()
    .optional()
    .meta({ description: 'Required with scope products: own, non-archived products' }),
  tagFilter: z
    .array(singleLine({ min: 1, max: 100 }))
    .min(1)
    .max(MAX_TAGS)
    .nullable()
    .optional()
    .meta({ description: 'Required with scope tags; a cart product carrying any of these tags (case-insensitive) matches' }),
  minPurchaseAmount: amount.nullable().optional().meta({ description: 'Smallest currency unit; compared with the cart subtotal' }),
  maxUsesTotal: useLimit.nullable().optional().meta({ description: 'Null: unlimited' }),
  maxUsesPerCustomer: useLimit.nullable().optional().meta({ description: 'Null: unlimited' }),
  startsAt: timestamp.nullable().optional(),
  expiresAt: timestamp.nullable().optional(),
  active: z.boolean().optional(),
  public: z.boolean().optional(),
};

/** The fields the cross-field rules read, as stored or about to be stored. */
export interface DiscountShape {
  type: DiscountType;
  value: number;
  scope: DiscountScope;
  productIds?: string[] | null;
  tagFilter?: string[] | null;
  startsAt?: string | Date | null;
  expiresAt?: string | Date | null;
}

/**
 * The rules across fields. `sent` is the request body: a list sent for a scope that does not use it is refused
 * (a mistake, not something to ignore), while a list left from an earlier scope is cleared by the caller.
 */
export function discountRuleIssues(discount: DiscountShape, sent: { productIds?: unknown; tagFilter?: unknown }): ErrorDetail[] {
  const issues: ErrorDetail[] = [];
  if (PERCENT_TYPES.includes(discount.type) && discount.value > 100) {
    issues.push({ field: 'value', message: `a ${discount.type} value is a percentage from 1 to 100` });
  }
  if (discount.scope === 'products' && !discount.productIds?.length) issues.push({ field: 'productIds', message: 'required when scope is products' });
  if (discount.scope !== 'products' && sent.productIds != null) issues.push({ field: 'productIds', message: 'only allowed when scope is products' });
  if (discount.scope === 'tags' && !discount.tagFilter?.length) issues.push({ field: 'tagFilter', message: 'required when scope is tags' });
  if (discount.scope !== 'tags' && sent.tagFilter != null) issues.push({ field: 'tagFilter', message: 'only allowed when scope is tags' });
  if (discount.startsAt != null && discount.expiresAt != null && new Date(discount.startsAt) >= new Date(discount.expiresAt)) {
    issues.push({ field: 'expiresAt', message: 'must be later than startsAt' });
  }
  return issues;
}

export const CreateDiscountCodeBody = z
  .object({
    code: z
      .string()
      .min(1)
      .max(50)
      .regex(CODE_PATTERN, 'only letters, digits, "-" and "_"')
      .meta({ description: 'Unique per workspace and environment, case-insensitively (SUMMER and summer are the same code)' }),
    ...editable,
  })
  .strict()
  .superRefine((body, ctx) => {
    for (const issue of discountRuleIssues({ ...body, scope: body.scope ?? 'cart' }, body)) {
      ctx.addIssue({ code: 'custom', path: issue.field ? [issue.field] : [], message: issue.message });
    }
  })
  .meta({ id: 'CreateDiscountCodeBody' });
export type CreateDiscountCodeBody = z.infer<typeof CreateDiscountCodeBody>;

/** Every create field but `code` (not patchable: sending it is 400), all optional, at least one. */
export const UpdateDiscountCodeBody = patchBody(
  z
    .object({ ...editable, type: editable.type.optional(), value: editable.value.optional(), currency: editable.currency.optional() })
    .strict(),
  'UpdateDiscountCodeBody',
);
export type UpdateDiscountCodeBody = z.infer<typeof UpdateDiscountCodeBody>;
