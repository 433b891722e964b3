import type { CartItem, DiscountValidation } from '../discounts/validate';
import { validateDiscount } from '../discounts/validate';
import type { ServiceDeps } from '../service-deps';
import type { MerchantResolver } from './resolve-merchant';

/** A public request's merchant as the API hands it over: the slug, and the bearer key if one was sent. */
export interface PublicCaller {
  merchantSlug: string;
  apiKey: string | undefined;
}

/** The public storefront's rules: every public route resolves its merchant through `resolveMerchant`. */
export function createStorefrontService({ sequelize }: Pick<ServiceDeps, 'sequelize'>, resolveMerchant: MerchantResolver) {
  return {
    resolveMerchant,

    /** Quotes a code for a cart; the public route sends no buyer identity, so the per-customer limit waits for checkout. */
    async validateDiscount(caller: PublicCaller, input: { code: string; items: CartItem[]; subtotalAmount?: number }): Promise<DiscountValidation> {
      const tenant = await resolveMerchant(caller.merchantSlug, caller.apiKey);
      return validateDiscount(sequelize, { tenant, ...input });
    },
  };
}

export type StorefrontService = ReturnType<typeof createStorefrontService>;
