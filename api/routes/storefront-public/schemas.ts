import { z } from 'zod';
import { DISCOUNT_TYPES } from '../../../db/models/discount-code';
import { CURRENCIES } from '../../../db/models/product';
import { DISCOUNT_REFUSALS } from '../../../domain/discounts/validate';

// Limits the spec leaves open (docs/decisions/discounts.md).
const MAX_CART_LINES = 100;
const MAX_QUANTITY = 10_000;

export const ValidateDiscountBody = z
  .object({
    code: z.string().min(1).max(50).meta({ description: 'Case-insensitive' }),
    merchantSlug: z.string().min(1).max(80),
    items: z
      .array(
        z
          .object({
            productId: z.string().min(1).max(100),
            variantId: z.string().min(1).max(100).nullable().optional(),
            quantity: z.int().min(1).max(MAX_QUANTITY),
          })
          .strict(),
      )
      .min(1)
      .max(MAX_CART_LINES),
    subtotalAmount: z
      .int()
      .min(0)
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .meta({ description: 'Informative only: the subtotal is computed from catalogue prices, smallest unit' }),
  })
  .strict()
  .meta({ id: 'ValidateDiscountBody' });

export const DiscountQuote = z
  .union([
    z.object({
      valid: z.literal(true),
      discountId: z.string(),
      code: z.string().meta({ description: 'As the merchant spelled it' }),
      type: z.enum(DISCOUNT_TYPES),
      value: z.int(),
      currency: z.enum(CURRENCIES),
      subtotalAmount: z.int().meta({ description: 'The cart subtotal from catalogue prices, smallest unit' }),
      discountAmount: z.int().meta({ description: 'Smallest unit; off the eligible lines, or off shipping when appliesToShipping' }),
      appliesToShipping: z.boolean(),
    }),
    z.object({
      valid: z.literal(false),
      code: z.string(),
      reason: z.enum(DISCOUNT_REFUSALS).meta({ description: 'The first failing check, in the documented order' }),
    }),
  ])
  .meta({ id: 'DiscountQuote' });
