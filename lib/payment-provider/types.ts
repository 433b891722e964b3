/**
 * The one seam between this service and an external payment provider (the payment module, document 2): customers,
 * hosted invoices for checkout sessions and subscription charges, charges of a saved payment method, refunds,
 * disbursements (payouts), and the provider's inbound callbacks. Amounts are integers in the currency's smallest
 * unit, as everywhere in this service; the adapter converts to the provider's own units.
 */

/** This service's payment method values (docs/decisions/checkout.md). */
export type ProviderPaymentMethod = 'qris' | 'va' | 'card' | 'ewallet' | 'intl_wallet';

export interface ProviderCustomerInput {
  /** Our id (`cus_…`): the provider's `reference_id`, unique per provider account. */
  referenceId: string;
  email: string | null;
  name: string | null;
  metadata: Record<string, string>;
  /** The provider's idempotency key; `referenceId` when not given. */
  idempotencyKey?: string;
}

export interface ProviderCustomer {
  id: string;
  referenceId: string;
}

export interface HostedInvoiceInput {
  /** Our id of what is being paid (`cs_…`): the provider's `external_id`. */
  externalId: string;
  amount: number;
  currency: string;
  description: string;
  payerEmail: string | null;
  /** The provider's customer id, when the payer is a stored customer. */
  customerId?: string | null;
  paymentMethods: readonly ProviderPaymentMethod[];
  /** The provider expires the invoice then, so a buyer cannot pay a session we have expired. */
  expiresAt: Date;
  successUrl: string | null;
  failureUrl: string | null;
}

export type HostedInvoiceStatus = 'pending' | 'paid' | 'expired';

export interface HostedInvoice {
  id: string;
  externalId: string;
  /** The provider's hosted payment page: where the buyer is redirected. */
  url: string;
  status: HostedInvoiceStatus;
  expiresAt: Date;
}

export interface ChargeInput {
  /** Our id of the charge attempt: the provider's `reference_id` and the idempotency key of the call. */
  referenceId: string;
  customerId: string;
  paymentMethodId: string;
  amount: number;
  currency: string;
  description: string;
}

/** A charge's outcome: immediate success or failure (`pending` only for methods that confirm later, by callback). */
export interface ChargeResult {
  id: string;
  status: 'succeeded' | 'failed' | 'pending';
  failureCode: string | null;
}

export interface RefundInput {
  /** Ours (`re_…`, stable across retries of one merchant request): the provider's `reference_id` and the idempotency key of the call. */
  referenceId: string;
  invoiceId: string;
  amount: number;
  currency: string;
  reason: string | null;
}

export interface ProviderRefund {
  id: string;
  status: 'pending' | 'succeeded' | 'failed';
}

export interface DisbursementInput {
  /** Our payout id (`pout_…`): the provider's `external_id` and the idempotency key of the call. */
  externalId: string;
  amount: number;
  currency: string;
  bankCode: string;
  accountHolderName: string;
  accountNumber: string;
  description: string;
}

export interface Disbursement {
  id: string;
  externalId: string;
  status: 'pending' | 'completed' | 'failed';
  failureCode: string | null;
}

/** A verified callback, read into what this service acts on; `unknown` types are acknowledged and logged. */
export type ProviderEvent = { eventId: string; occurredAt: Date } & (
  | { kind: 'invoice'; invoiceId: string; externalId: string; status: 'paid' | 'expired'; paymentMethod: ProviderPaymentMethod | null; paidAmount: number | null; currency: string }
  | { kind: 'disbursement'; disbursementId: string; externalId: string; status: 'completed' | 'failed'; failureCode: string | null }
  | { kind: 'refund'; refundId: string; status: 'succeeded' | 'failed'; failureCode: string | null; /** Ours (`re_…`, `late_…`), when the provider echoes it. */ referenceId: string | null }
  | { kind: 'unknown'; type: string }
);

export type CallbackRefusal = 'missing_token' | 'token_mismatch' | 'malformed_body' | 'timestamp_outside_tolerance';

export type CallbackVerdict = { valid: true; event: ProviderEvent } | { valid: false; reason: CallbackRefusal };

/** Why a provider call failed: `refused` (the request itself: do not retry as is) or `unavailable` (retry later). */
export class ProviderError extends Error {
  constructor(
    public readonly kind: 'refused' | 'unavailable',
    message: string,
    public readonly status?: number,
    public readonly code?: string,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

export interface PaymentProvider {
  readonly name: string;
  createCustomer(input: ProviderCustomerInput): Promise<ProviderCustomer>;
  /** Sends a customer's changed details (the whole set, as we hold it) to the provider's customer `customerId`. */
  updateCustomer(customerId: string, input: Omit<ProviderCustomerInput, 'referenceId'>): Promise<void>;
  createInvoice(input: HostedInvoiceInput): Promise<HostedInvoice>;
  /** Stops a pending invoice from being paid (an expired or canceled session). Idempotent. */
  expireInvoice(invoiceId: string): Promise<void>;
  chargePaymentMethod(input: ChargeInput): Promise<ChargeResult>;
  /** A charge as it stands now: how a `pending` one is followed until it succeeds or fails. */
  getCharge(chargeId: string): Promise<ChargeResult>;
  createRefund(input: RefundInput): Promise<ProviderRefund>;
  createDisbursement(input: DisbursementInput): Promise<Disbursement>;
  /**
   * Checks an inbound callback exactly as received (raw bytes, header lookup), in constant time, and reads it.
   * `now` is the receiver's clock; events older than the provider's retry window or from the future are refused.
   */
  verifyCallback(rawBody: Buffer, header: (name: string) => string | undefined, now?: Date): CallbackVerdict;
}
