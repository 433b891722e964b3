import { Op, type Transaction } from 'sequelize';
import { Account, CheckoutRefund, CheckoutSession, PAYMENT_METHODS, Product, Variant, type CheckoutLineItem, type CheckoutStatus } from '../../db/models';
import { listPage, type PageRequest } from '../../db/pagination';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { invalidState, notFound, validationError } from '../../lib/errors';
import type { AuthContext } from '../auth-context';
import type { ServiceDeps } from '../service-deps';
import { startRecordedNow } from '../workflow-starts';
import { paymentBackendFor, paymentBackendOfSession, providerInvoicesOf } from './backends';
import { insertCheckoutSession, MAX_CHECKOUT_LIFETIME_MS } from './create';
import { toCheckoutSessionDto, type CheckoutSessionDto } from './dto';
import type { CreateCheckoutSessionBody, PayCheckoutSessionBody, PixelCookiesBody, RefundCheckoutSessionBody } from './inputs';
import { buyerStatus, toPublicCheckoutSessionDto, type PublicCheckoutSessionDto } from './public-view';
import { refundCheckoutSession, toCheckoutRefundDto, type CheckoutRefundDto, type RefundSeen } from './refund';
import { salesByDay, type SalesSeries } from './sales';
import { completeCheckoutSession, payCheckoutSession, type SessionSourceSettler } from './transitions';

/** The list filters of GET /v1/payment/checkout-sessions. */
export interface CheckoutSessionListQuery extends PageRequest {
  status?: CheckoutStatus;
}

/**
 * Checkout sessions (document 2): the merchant's create, list, retrieve, refund and confirm (secret key), and the
 * buyer's routes, which need no key because the session's id is the buyer's capability: a `cs_` id is global, so
 * they serve sessions of either environment. No events here: `checkout.completed` comes from the session's
 * workflow, and refund events from the payment provider (document 2).
 */
export function createCheckoutSessionService(deps: Pick<ServiceDeps, 'sequelize' | 'config' | 'logger' | 'starters'>, settleSource: SessionSourceSettler) {
  const { sequelize, config } = deps;
  const backendOf = (account: Pick<Account, 'paymentEnabled'>) => paymentBackendFor(config, account);
  const providerInvoices = providerInvoicesOf(config);

  /** The one line of a product purchase; a session without `productId` is a plain payment with no lines to fulfil. */
  async function productLines(tx: Transaction, tenant: Tenant, input: CreateCheckoutSessionBody): Promise<CheckoutLineItem[]> {
    if (input.productId === undefined) return [];
    const product = await Product.findOne({ where: { id: input.productId, ...tenant, published: true, archived: false }, transaction: tx });
    if (!product) {
      throw validationError(`productId: no published product ${input.productId} in this workspace`, [
        { field: 'productId', message: 'no published product with this id in this workspace' },
      ]);
    }
    // The merchant sets the amount; the variant (the one named, else the product's default) says what is sold and reserved.
    const variant = await variantOf(tx, tenant, product, input.variantId);
    const quantity = input.quantity ?? 1;
    return [
      {
        lineKey: '1',
        productId: product.id,
        variantId: variant?.id ?? null,
        name: product.name,
        variantName: variant?.name ?? null,
        quantity,
        unitAmount: input.amount / quantity,
        amount: input.amount,
      },
    ];
  }

  /** An active variant of the product: the one named (else 400 on variantId), or its default when none is named. */
  async function variantOf(tx: Transaction, tenant: Tenant, product: Product, variantId: string | undefined): Promise<Variant | null> {
    if (variantId === undefined && !product.hasVariants) return null;
    const variant = await Variant.findOne({
      where: { ...tenant, productId: product.id, archived: false, ...(variantId === undefined ? { isDefault: true } : { id: variantId }) },
      transaction: tx,
    });
    if (!variant && variantId !== undefined) throw validationError('variantId: no such variant of this product', [{ field: 'variantId', message: 'no such variant of this product' }]);
    return variant;
  }

  function checkExpiry(expiresAt: string | undefined, now: Date): Date | null {
    if (expiresAt === undefined) return null;
    const at = new Date(expiresAt);
    if (at <= now) throw validationError('expiresAt: must be in the future', [{ field: 'expiresAt', message: 'must be in the future' }]);
    if (at.getTime() - now.getTime() > MAX_CHECKOUT_LIFETIME_MS) {
      throw validationError('expiresAt: must be at most 30 days from now', [{ field: 'expiresAt', message: 'must be at most 30 days from now' }]);
    }
    return at;
  }

  async function accountOf(accountId: string, transaction?: Transaction): Promise<Account> {
    const account = await Account.findByPk(accountId, { transaction });
    // The foreign key guarantees the row; a missing one would be a broken database, not a request error.
    if (!account) throw new Error(`checkout session of a missing workspace ${accountId}`);
    return account;
  }

  async function sessionById(id: string): Promise<CheckoutSession> {
    const session = await CheckoutSession.findByPk(id);
    if (!session) throw notFound('Checkout session');
    return session;
  }

  return {
    /** Written with the durable start of its workflow (expiry, then fulfillment), which is started right after commit. */
    async create(auth: AuthContext, input: CreateCheckoutSessionBody): Promise<CheckoutSessionDto> {
      const tenant = tenantWhere(auth);
      const now = new Date();
      const expiresAt = checkExpiry(input.expiresAt, now);
      const { session, workflowId } = await sequelize.transaction(async (tx) => {
        const lineItems = await productLines(tx, tenant, input);
        return insertCheckoutSession(
          tx,
          tenant,
          {
            source: 'api',
            amount: input.amount,
            currency: input.currency,
            description: input.description,
            customerEmail: input.customerEmail,
            paymentMethods: input.paymentMethods?.length ? input.paymentMethods : [...PAYMENT_METHODS],
            paymentMethod: input.paymentMethod ?? null,
            lineItems,
            subtotal: input.amount,
            successUrl: input.successUrl ?? null,
            cancelUrl: input.cancelUrl ?? null,
            expiresAt,
            metadata: input.metadata ?? {},
          },
          now,
          { providerInvoices },
        );
      });
      await startRecordedNow(deps, workflowId);
      return toCheckoutSessionDto(session, backendOf(auth.account));
    },

    /** Newest first; `status` filters on the stored status (an `open` session past its deadline stays `open` until its workflow expires it). */
    list(auth: AuthContext, query: CheckoutSessionListQuery) {
      const backend = backendOf(auth.account);
      return listPage(sequelize, CheckoutSession, {
        tenant: auth,
        where: query.status === undefined ? {} : { status: query.status },
        page: query,
        idPrefix: 'cs',
        // Raw rows (bigint amounts as strings) become instances, whose getters give numbers.
        toDto: (row) => toCheckoutSessionDto(CheckoutSession.build(row, { raw: true, isNewRecord: false }), backend),
      });
    },

    async retrieve(auth: AuthContext, id: string): Promise<CheckoutSessionDto> {
      const session = await CheckoutSession.findOne({ where: { id, ...tenantWhere(auth) } });
      if (!session) throw notFound('Checkout session');
      return toCheckoutSessionDto(session, backendOf(auth.account));
    },

    /** A session's refunds, oldest first (the dashboard's session page). */
    async refunds(auth: AuthContext, id: string): Promise<CheckoutRefundDto[]> {
      const tenant = tenantWhere(auth);
      if (!(await CheckoutSession.findOne({ where: { id, ...tenant }, attributes: ['id'] }))) throw notFound('Checkout session');
      const rows = await CheckoutRefund.findAll({ where: { checkoutSessionId: id, ...tenant }, order: [['createdAt', 'ASC'], ['id', 'ASC']] });
      return rows.map(toCheckoutRefundDto);
    },

    /** Completed sales of the last `days` UTC days per day and currency (the dashboard's overview chart). */
    salesByDay(auth: AuthContext, days = 30, now = new Date()): Promise<SalesSeries[]> {
      return salesByDay(sequelize, tenantWhere(auth), now, days);
    },

    /** The refund, with the session as it stands after it (its `amountRefunded`). `idempotencyKey`: the request's, which makes a provider refund safe to retry. */
    async refund(auth: AuthContext, id: string, input: RefundCheckoutSessionBody, idempotencyKey?: string, seen?: RefundSeen): Promise<CheckoutRefundDto & { checkoutSession: CheckoutSessionDto }> {
      const { refund, session } = await refundCheckoutSession(sequelize, config, auth, id, input, idempotencyKey, seen);
      return { ...toCheckoutRefundDto(refund), checkoutSession: toCheckoutSessionDto(session, backendOf(auth.account)) };
    },

    /** The merchant saw the manual transfer: `pending_review` → `completed`, and the workflow fulfils it. */
    async confirm(auth: AuthContext, id: string): Promise<CheckoutSessionDto> {
      const session = await completeCheckoutSession(deps, tenantWhere(auth), id, { from: 'pending_review', settleSource });
      return toCheckoutSessionDto(session, backendOf(auth.account));
    },

    async publicView(id: string): Promise<PublicCheckoutSessionDto> {
      const session = await sessionById(id);
      const account = await accountOf(session.accountId);
      return toPublicCheckoutSessionDto(session, account, backendOf(account));
    },

    /**
     * The buyer picks a method (it may be left out when the session allows exactly one); the backend says where
     * the buyer goes next: back to the hosted page in local mode, which then shows the transfer instructions.
     */
    async pay(id: string, input: PayCheckoutSessionBody) {
      const found = await sessionById(id);
      const account = await accountOf(found.accountId);
      const method = input.paymentMethod ?? (found.paymentMethods.length === 1 ? found.paymentMethods[0] : undefined);
      if (method === undefined) {
        throw validationError(`paymentMethod: required, one of ${found.paymentMethods.join(', ')}`, [
          { field: 'paymentMethod', message: `one of ${found.paymentMethods.join(', ')}` },
        ]);
      }
      const backend = paymentBackendOfSession(config, found);
      const { session, submission } = await payCheckoutSession(deps, backend, id, method);
      return { status: submission.status, redirectUrl: submission.redirectUrl, checkoutSession: toPublicCheckoutSessionDto(session, account, backend) };
    },

    /**
     * Overwrites the sent values (last write wins) on a session whose purchase is or may yet be reported: `open`
     * (before its deadline), `pending_review` or `completed`.
     */
    async storePixelCookies(id: string, input: PixelCookiesBody): Promise<void> {
      const now = new Date();
      const [updated] = await CheckoutSession.update(
        { ...(input.clickId !== undefined ? { clickId: input.clickId } : {}), ...(input.browserId !== undefined ? { browserId: input.browserId } : {}) },
        { where: { id, [Op.or]: [{ status: ['pending_review', 'completed'] }, { status: 'open', expiresAt: { [Op.gt]: now } }] } },
      );
      if (updated > 0) return;
      const session = await sessionById(id);
      throw invalidState(`This checkout session is ${buyerStatus(session, now)}; attribution cookies are kept only for a session that is or may yet be paid`);
    },
  };
}

export type CheckoutSessionService = ReturnType<typeof createCheckoutSessionService>;
