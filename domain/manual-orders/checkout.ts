import { findBuyableProductId } from '../../db/cart-products';
import { nextManualOrderSeq } from '../../db/manual-order-numbers';
import { Account, ManualOrder, type ManualOrderLine } from '../../db/models';
import { tenantWhere } from '../../db/tenancy';
import { invalidState, notFound, validationError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { AuthContext } from '../auth-context';
import { workflowIds } from '../../workflows/messages';
import { reserveForLines } from '../inventory';
import { priceCart, type CheckoutCartItem, type PriceCartOptions } from '../pricing';
import { toShippingAddress } from '../checkout';
import { createEmailQueue } from '../email';
import type { ServiceDeps } from '../service-deps';
import { resolveStorefront } from '../storefront';
import { startRecordedNow } from '../workflow-starts';
import { buyerNameOf, toPlacedManualOrderDto } from './dto';
import type { ManualCheckoutBody } from './inputs';
import { formatOrderNumber, orderNumberPrefix } from './numbers';

const paymentModuleOn = () =>
  invalidState('Manual checkout is for stores without the payment module: this store takes payment through buy-now or cart checkout');

/** The body's cart, and where each item's fields are in the request (for the refusals' field names). */
async function cartOf(body: ManualCheckoutBody, resolveSlug: (slug: string) => Promise<string | undefined>): Promise<{ items: CheckoutCartItem[]; options: PriceCartOptions }> {
  if (body.items) return { items: body.items, options: {} };
  let productId = body.productId;
  if (body.productSlug !== undefined) {
    productId = await resolveSlug(body.productSlug);
    // The same answer as an unknown product id: the buyer learns nothing of what the store hides.
    if (!productId) throw validationError('productSlug: no published product with this slug in this store', [{ field: 'productSlug', message: 'no published product with this slug in this store' }]);
  }
  const productField = body.productSlug !== undefined ? 'productSlug' : 'productId';
  const options: PriceCartOptions = { itemField: (_index, key) => (key === 'productId' ? productField : key) };
  return { items: [{ productId: productId!, variantId: body.variantId, quantity: body.quantity ?? 1 }], options };
}

/**
 * The public manual checkout (docs/decisions/manual-orders.md): prices the cart from the catalogue (coupon
 * through the shared validation), takes the workspace environment's next order number and records the order
 * `awaiting_payment` with the buyer's payment-instructions e-mail, in one transaction. No checkout session.
 */
export function createManualCheckoutService(deps: Pick<ServiceDeps, 'sequelize' | 'config' | 'box' | 'starters' | 'logger'>) {
  const { sequelize } = deps;
  const emails = createEmailQueue(deps);

  return {
    async place(slugOrHost: string, auth: AuthContext | undefined, body: ManualCheckoutBody) {
      const { merchant, tenant } = await resolveStorefront(sequelize, slugOrHost, auth);
      const workspace = await Account.findByPk(merchant.id, { attributes: ['paymentEnabled'] });
      if (!workspace) throw notFound('Storefront');
      if (workspace.paymentEnabled) throw paymentModuleOn();

      const { items, options } = await cartOf(body, (slug) => findBuyableProductId(sequelize, tenant, slug));
      const priced = await priceCart(sequelize, tenant, { items, couponCode: body.couponCode, customerEmail: body.email }, options);
      if (priced.requiresShipping && !body.shippingAddress) {
        throw validationError('shippingAddress: required when a physical product is ordered', [{ field: 'shippingAddress', message: 'required when a physical product is ordered' }]);
      }
      const lines: ManualOrderLine[] = priced.lines.map((line) => {
        const product = priced.products.get(line.productId!)!;
        return {
          lineKey: line.lineKey,
          productId: product.id,
          productName: line.name,
          productType: product.type,
          licenseEnabled: product.licenseEnabled,
          variantId: line.variantId,
          variantName: null,
          quantity: line.quantity,
          unitAmount: line.unitAmount,
          amount: line.amount,
        };
      });
      const first = lines[0]!;

      const { order, account, emailWorkflowId } = await sequelize.transaction(async (tx) => {
        // Read in the transaction that renders the e-mail, so the answer and the e-mail give the same details.
        const account = (await Account.findByPk(tenant.accountId, { transaction: tx }))!;
        // Taken last before the writes: the counter's row lock is held until commit, so it is held briefly.
        const seq = await nextManualOrderSeq(tx, tenant);
        const order = await ManualOrder.create(
          {
            id: newId('mord'),
            ...tenantWhere(tenant),
            seq,
            orderNumber: formatOrderNumber(orderNumberPrefix(merchant.slug), seq),
            lines,
            productId: first.productId,
            productName: first.productName,
            variantId: first.variantId,
            variantName: first.variantName,
            quantity: first.quantity,
            currency: priced.currency,
            subtotal: priced.subtotal,
            discountId: priced.discount?.id ?? null,
            discountCode: priced.discount?.code ?? null,
            discountAmount: priced.discount?.amount ?? 0,
            amount: priced.total,
            paymentMethod: body.paymentMethod,
            customerName: body.name ?? null,
            customerEmail: body.email,
            customerPhone: body.phone ?? null,
            shippingAddress: body.shippingAddress ? toShippingAddress(body.shippingAddress) : null,
            referralCode: body.referralCode ?? null,
            metadata: body.metadata ?? {},
          },
          { transaction: tx },
        );
        // Held like a checkout session's: released when the merchant cancels, committed when the payment is confirmed.
        await reserveForLines(tx, tenant, lines, { reference: order.id, actor: { type: 'workflow', id: workflowIds.manualOrder(order.id) } });
        const { workflowId } = await emails.queue(tx, tenant, {
          kind: 'manual_order_instructions',
          businessKey: `manual_order_instructions:${order.id}`,
          to: order.customerEmail,
          data: { buyerName: buyerNameOf(order), orderNumber: order.orderNumber, currency: priced.currency, amount: order.amount },
        });
        return { order, account, emailWorkflowId: workflowId };
      });
      if (emailWorkflowId) await startRecordedNow(deps, emailWorkflowId);
      return toPlacedManualOrderDto(order, account);
    },
  };
}

export type ManualCheckoutService = ReturnType<typeof createManualCheckoutService>;
