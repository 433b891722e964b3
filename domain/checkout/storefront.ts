import type { Transaction } from 'sequelize';
import { readCartProductBySlug } from '../../db/cart-products';
import { Account, PAYMENT_METHODS, type CheckoutSource } from '../../db/models';
import type { Tenant } from '../../db/tenancy';
import { validationError } from '../../lib/errors';
import { createShippingPartners } from '../../lib/shipping';
import type { AuthContext } from '../auth-context';
import type { ServiceDeps } from '../service-deps';
import { assertShippingChoice, shippingChoiceOf } from '../shipping';
import { resolveStorefront } from '../storefront';
import { startRecordedNow } from '../workflow-starts';
import { providerInvoicesOf } from './backends';
import { insertCheckoutSession } from './create';
import { lineLabel } from './dto';
import { hostedCheckoutUrl } from './payment-backend';
import { priceCart, type CheckoutCartItem, type PriceCartOptions, type PricedCart } from '../pricing';
import { toShippingAddress, type BuyNowBody, type CartCheckoutBody } from './storefront-inputs';

/** A cart's description names at most this many products, then counts the rest. */
const DESCRIPTION_NAMES = 3;

/** What the buyer reads on the hosted page and the merchant in the list: the product, or the first few of a cart. */
export function describeLines(lines: PricedCart['lines']): string {
  const names = lines.slice(0, DESCRIPTION_NAMES).map((line) => (line.quantity > 1 ? `${lineLabel(line)} × ${line.quantity}` : lineLabel(line)));
  const rest = lines.length - DESCRIPTION_NAMES;
  return rest > 0 ? `${names.join(', ')} and ${rest} more` : names.join(', ');
}

/** Buy-now has its one item at the top level of the body, and names the product by the slug in its path. */
const buyNowField: PriceCartOptions['itemField'] = (_index, key) => (key === 'productId' ? 'productSlug' : key);

type Buyer = Omit<BuyNowBody, 'variantId' | 'quantity'>;

/**
 * The public storefront's checkout creates (document 1, buy-now and cart): the server prices every line from
 * the catalogue, applies the coupon, and writes the session with its workflow's durable start in one
 * transaction; any refusal writes nothing (docs/decisions/storefront-checkout.md).
 */
export function createStorefrontCheckoutService(deps: Pick<ServiceDeps, 'sequelize' | 'config' | 'starters' | 'logger'>) {
  const { sequelize, config } = deps;
  const partners = createShippingPartners(config);
  const providerInvoices = providerInvoicesOf(config);

  async function create(
    tenant: Tenant,
    source: CheckoutSource,
    buyer: Buyer,
    itemsOf: (tx: Transaction) => Promise<{ items: CheckoutCartItem[]; options?: PriceCartOptions }>,
  ): Promise<{ checkoutSessionId: string; hostedUrl: string }> {
    // With the fulfillment module on, a courier chosen in metadata ships the order, so it must be one the partner
    // offers (asked before the transaction); with the module off the keys are plain metadata.
    const choice = shippingChoiceOf(buyer.metadata ?? {});
    if (choice && (await Account.findByPk(tenant.accountId, { attributes: ['fulfillmentEnabled'] }))?.fulfillmentEnabled) {
      await assertShippingChoice(partners, tenant, choice);
    }
    const { session, workflowId } = await sequelize.transaction(async (tx) => {
      const { items, options } = await itemsOf(tx);
      const priced = await priceCart(tx, tenant, { items, couponCode: buyer.couponCode, customerEmail: buyer.email }, options);
      if (priced.requiresShipping && !buyer.shippingAddress) {
        throw validationError('shippingAddress: required, since a product of this checkout is physical', [
          { field: 'shippingAddress', message: 'required, since a product of this checkout is physical' },
        ]);
      }
      return insertCheckoutSession(tx, tenant, {
        source,
        amount: priced.total,
        currency: priced.currency,
        description: describeLines(priced.lines),
        customerEmail: buyer.email,
        customerName: buyer.name ?? null,
        customerPhone: buyer.phone ?? null,
        paymentMethods: [...PAYMENT_METHODS],
        lineItems: priced.lines,
        subtotal: priced.subtotal,
        discount: priced.discount,
        shippingAddress: buyer.shippingAddress ? toShippingAddress(buyer.shippingAddress) : null,
        referralCode: buyer.referralCode ?? null,
        successUrl: buyer.successUrl ?? null,
        cancelUrl: buyer.cancelUrl ?? null,
        // The code is also visible to the merchant and in the session's events; the field wins over a same-named key.
        metadata: { ...buyer.metadata, ...(buyer.referralCode ? { referralCode: buyer.referralCode } : {}) },
      }, undefined, { providerInvoices });
    });
    await startRecordedNow(deps, workflowId);
    return { checkoutSessionId: session.id, hostedUrl: session.providerInvoiceUrl ?? hostedCheckoutUrl(config.PUBLIC_BASE_URL, session.id) };
  }

  return {
    /** The workspace and environment a storefront checkout of `merchantSlug` is written in (its Idempotency-Keys' too). */
    async tenantOf(merchantSlug: string, auth?: AuthContext): Promise<Tenant> {
      return (await resolveStorefront(sequelize, merchantSlug, auth)).tenant;
    },

    /** One product, named by its slug on the merchant's storefront. */
    async buyNow(merchantSlug: string, productSlug: string, body: BuyNowBody, auth?: AuthContext) {
      const { tenant } = await resolveStorefront(sequelize, merchantSlug, auth);
      const { variantId, quantity, ...buyer } = body;
      return create(tenant, 'buy_now', buyer, async (tx) => {
        // Read once, with what pricing needs: the slug names the product.
        const product = await readCartProductBySlug(tx, tenant, productSlug);
        if (!product) {
          throw validationError('productSlug: no published product with this slug in this store', [{ field: 'productSlug', message: 'no published product with this slug in this store' }]);
        }
        return { items: [{ productId: product.id, variantId, quantity: quantity ?? 1 }], options: { itemField: buyNowField, catalogue: new Map([[product.id, product]]) } };
      });
    },

    /** Several products, one line each, paid together on one hosted page. */
    async cart(merchantSlug: string, body: CartCheckoutBody, auth?: AuthContext) {
      const { tenant } = await resolveStorefront(sequelize, merchantSlug, auth);
      const { items, ...buyer } = body;
      return create(tenant, 'cart', buyer, async () => ({ items }));
    },
  };
}

export type StorefrontCheckoutService = ReturnType<typeof createStorefrontCheckoutService>;
