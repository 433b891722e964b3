import { createHash, timingSafeEqual } from 'node:crypto';
import { currencyExponent } from '../money';
import {
  ProviderError,
  type CallbackVerdict,
  type ChargeResult,
  type Disbursement,
  type HostedInvoice,
  type PaymentProvider,
  type ProviderEvent,
  type ProviderPaymentMethod,
  type ProviderRefund,
} from './types';

/**
 * The adapter for Xendit's public REST API (docs.xendit.co; docs/decisions/payment-module.md cites the pages):
 * `POST /customers`, `POST /v2/invoices` and `POST /invoices/:id/expire!` (the hosted invoice page: QRIS,
 * virtual accounts, e-wallets, cards; IDR and USD), `POST /payment_requests` (a saved payment method),
 * `POST /refunds`, `POST /disbursements`; HTTP Basic with the secret key as user name. Callbacks carry the
 * account's verification token in `x-callback-token`, and `webhook-id` names each event. The built-in sandbox
 * (lib/payment-provider/sandbox.ts) speaks the same subset, so this one code talks to both. Not through the official
 * SDK (xendit-node): it has no per-call timeout and loses the status of a non-JSON error (docs/decisions/payment-module.md).
 */
export interface XenditOptions {
  baseUrl: string;
  secretKey: string;
  callbackToken: string;
  timeoutMs: number;
}

/** Xendit retries a callback for 24 hours (webhook behaviour page); older ones are not its retries. */
export const CALLBACK_MAX_AGE_MS = 25 * 3_600_000;
/** A callback dated ahead of our clock by more than this is refused (clock skew allowance). */
export const CALLBACK_MAX_SKEW_MS = 5 * 60_000;
export const CALLBACK_TOKEN_HEADER = 'x-callback-token';
export const CALLBACK_ID_HEADER = 'webhook-id';

/** Our methods as the invoice's `payment_methods` channel codes. */
export const INVOICE_CHANNELS: Record<ProviderPaymentMethod, readonly string[]> = {
  qris: ['QRIS'],
  va: ['BCA', 'BNI', 'BRI', 'MANDIRI', 'PERMATA', 'BSI'],
  card: ['CREDIT_CARD'],
  ewallet: ['OVO', 'DANA', 'SHOPEEPAY', 'LINKAJA'],
  intl_wallet: ['PAYPAL'],
};

/** The invoice callback's `payment_method` in ours. */
const PAID_WITH: Record<string, ProviderPaymentMethod> = {
  QRIS: 'qris',
  QR_CODE: 'qris',
  BANK_TRANSFER: 'va',
  CALLBACK_VIRTUAL_ACCOUNT: 'va',
  CREDIT_CARD: 'card',
  EWALLET: 'ewallet',
  PAYPAL: 'intl_wallet',
};

/** Xendit takes amounts in the currency's major unit (USD 10.50), we keep the smallest (1050). */
export const toProviderAmount = (amount: number, currency: string) => amount / 10 ** currencyExponent(currency);
export const fromProviderAmount = (amount: number, currency: string) => Math.round(amount * 10 ** currencyExponent(currency));

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** Constant-time equality of two secrets of any length (both hashed first, so the length leaks nothing). */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(sha256(given), sha256(expected));
}

type Json = Record<string, unknown>;
const text = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);

function invoiceStatus(status: unknown): HostedInvoice['status'] {
  if (status === 'PAID' || status === 'SETTLED') return 'paid';
  if (status === 'EXPIRED') return 'expired';
  return 'pending';
}

/** Reads a verified body into an event; null when it is not a shape this adapter knows (acknowledged as unknown). */
export function parseXenditCallback(body: Json, webhookId: string | undefined): { event: ProviderEvent } | { occurredAt: Date | null; unknownType: string; eventId: string } {
  const occurredAt = new Date(String(body.updated ?? body.created ?? ''));
  const when = Number.isNaN(occurredAt.getTime()) ? null : occurredAt;
  const data = (typeof body.data === 'object' && body.data !== null ? body.data : {}) as Json;
  // Refund events of the newer webhook format: { event: 'refund.succeeded', created, data: {…} }.
  if (typeof body.event === 'string') {
    const type = body.event;
    const refundId = text(data.id);
    const eventId = webhookId ?? `${type}:${refundId ?? 'unknown'}`;
    if ((type === 'refund.succeeded' || type === 'refund.failed') && refundId && when) {
      return { event: { eventId, occurredAt: when, kind: 'refund', refundId, status: type === 'refund.succeeded' ? 'succeeded' : 'failed', failureCode: text(data.failure_code), referenceId: text(data.reference_id) } };
    }
    return { occurredAt: when, unknownType: type, eventId };
  }
  const id = text(body.id);
  const externalId = text(body.external_id);
  const status = text(body.status);
  if (id && externalId && status && when) {
    const eventId = webhookId ?? `${id}:${status}`;
    // Disbursement callbacks name the account holder; invoice callbacks never do (a VA payment's carries bank_code too).
    const disbursement = 'account_holder_name' in body;
    if (!disbursement && (status === 'PAID' || status === 'SETTLED' || status === 'EXPIRED')) {
      const currency = String(body.currency ?? 'IDR');
      const paid = typeof body.paid_amount === 'number' ? fromProviderAmount(body.paid_amount, currency) : null;
      return {
        event: {
          eventId,
          occurredAt: when,
          kind: 'invoice',
          invoiceId: id,
          externalId,
          status: status === 'EXPIRED' ? 'expired' : 'paid',
          paymentMethod: PAID_WITH[String(body.payment_method)] ?? null,
          paidAmount: paid,
          currency,
        },
      };
    }
    if (disbursement && (status === 'COMPLETED' || status === 'FAILED')) {
      return { event: { eventId, occurredAt: when, kind: 'disbursement', disbursementId: id, externalId, status: status === 'COMPLETED' ? 'completed' : 'failed', failureCode: text(body.failure_code) } };
    }
    return { occurredAt: when, unknownType: `status:${status}`, eventId };
  }
  return { occurredAt: when, unknownType: 'unrecognised', eventId: webhookId ?? '' };
}

export function createXenditProvider({ baseUrl, secretKey, callbackToken, timeoutMs }: XenditOptions): PaymentProvider {
  const root = baseUrl.replace(/\/+$/, '');
  const authorization = `Basic ${Buffer.from(`${secretKey}:`).toString('base64')}`;

  async function call<T>(method: 'POST' | 'PATCH' | 'GET', path: string, body: Json | undefined, headers: Record<string, string> = {}): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${root}${path}`, {
        method,
        headers: { authorization, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new ProviderError('unavailable', `the payment provider did not answer ${method} ${path}: ${(err as Error).message}`);
    }
    const raw = await res.text().catch(() => '');
    let parsed: unknown = null;
    try {
      parsed = raw ? JSON.parse(raw) : null;
    } catch {
      // A non-JSON answer (a proxy's error page) is judged by its status alone.
    }
    if (res.ok) return (parsed ?? {}) as T;
    const answer = (parsed ?? {}) as { error_code?: string; message?: string };
    const message = `the payment provider answered ${res.status} to ${method} ${path}${answer.error_code ? ` (${answer.error_code})` : ''}${answer.message ? `: ${answer.message}` : ''}`;
    // Our key or our pace is the problem, not the request: the same call can succeed later.
    const refused = res.status >= 400 && res.status < 500 && ![401, 403, 408, 429].includes(res.status);
    throw new ProviderError(refused ? 'refused' : 'unavailable', message, res.status, answer.error_code);
  }

  return {
    name: 'xendit',

    async createCustomer(input) {
      const answer = await call<Json>(
        'POST',
        '/customers',
        {
          reference_id: input.referenceId,
          type: 'INDIVIDUAL',
          ...(input.name ? { individual_detail: { given_names: input.name } } : {}),
          ...(input.email ? { email: input.email } : {}),
          ...(Object.keys(input.metadata).length ? { metadata: input.metadata } : {}),
        },
        { 'api-version': '2020-10-31', 'idempotency-key': input.idempotencyKey ?? input.referenceId },
      );
      return { id: String(answer.id), referenceId: String(answer.reference_id ?? input.referenceId) };
    },

    async updateCustomer(customerId, input) {
      // A PATCH sets what it names and leaves the rest: an e-mail we no longer hold is not cleared there.
      await call(
        'PATCH',
        `/customers/${encodeURIComponent(customerId)}`,
        {
          ...(input.name ? { individual_detail: { given_names: input.name } } : {}),
          ...(input.email ? { email: input.email } : {}),
          metadata: input.metadata,
        },
        { 'api-version': '2020-10-31' },
      );
    },

    async createInvoice(input) {
      const seconds = Math.max(1, Math.floor((input.expiresAt.getTime() - Date.now()) / 1000));
      const answer = await call<Json>('POST', '/v2/invoices', {
        external_id: input.externalId,
        amount: toProviderAmount(input.amount, input.currency),
        currency: input.currency,
        description: input.description,
        invoice_duration: seconds,
        payment_methods: [...new Set(input.paymentMethods.flatMap((m) => INVOICE_CHANNELS[m]))],
        ...(input.payerEmail ? { payer_email: input.payerEmail } : {}),
        ...(input.customerId ? { customer: { id: input.customerId } } : {}),
        ...(input.successUrl ? { success_redirect_url: input.successUrl } : {}),
        ...(input.failureUrl ? { failure_redirect_url: input.failureUrl } : {}),
      });
      const url = text(answer.invoice_url);
      if (!url) throw new ProviderError('unavailable', 'the payment provider answered an invoice without invoice_url');
      return {
        id: String(answer.id),
        externalId: String(answer.external_id),
        url,
        status: invoiceStatus(answer.status),
        expiresAt: new Date(String(answer.expiry_date ?? input.expiresAt.toISOString())),
      };
    },

    async expireInvoice(invoiceId) {
      try {
        await call('POST', `/invoices/${encodeURIComponent(invoiceId)}/expire!`, undefined);
      } catch (err) {
        // Already paid or expired: nothing left to stop (the paid case is settled by its callback).
        if (err instanceof ProviderError && err.kind === 'refused') return;
        throw err;
      }
    },

    async chargePaymentMethod(input): Promise<ChargeResult> {
      const answer = await call<Json>(
        'POST',
        '/payment_requests',
        {
          reference_id: input.referenceId,
          customer_id: input.customerId,
          payment_method_id: input.paymentMethodId,
          amount: toProviderAmount(input.amount, input.currency),
          currency: input.currency,
          description: input.description,
        },
        { 'idempotency-key': input.referenceId },
      );
      return toChargeResult(answer);
    },

    async getCharge(chargeId): Promise<ChargeResult> {
      return toChargeResult(await call<Json>('GET', `/payment_requests/${encodeURIComponent(chargeId)}`, undefined));
    },

    async createRefund(input): Promise<ProviderRefund> {
      const answer = await call<Json>(
        'POST',
        '/refunds',
        {
          reference_id: input.referenceId,
          invoice_id: input.invoiceId,
          amount: toProviderAmount(input.amount, input.currency),
          currency: input.currency,
          reason: 'REQUESTED_BY_CUSTOMER',
          ...(input.reason ? { metadata: { reason: input.reason } } : {}),
        },
        { 'idempotency-key': input.referenceId },
      );
      const status = answer.status === 'SUCCEEDED' ? 'succeeded' : answer.status === 'FAILED' ? 'failed' : 'pending';
      return { id: String(answer.id), status };
    },

    async createDisbursement(input): Promise<Disbursement> {
      const answer = await call<Json>(
        'POST',
        '/disbursements',
        {
          external_id: input.externalId,
          amount: toProviderAmount(input.amount, input.currency),
          bank_code: input.bankCode,
          account_holder_name: input.accountHolderName,
          account_number: input.accountNumber,
          description: input.description,
        },
        { 'x-idempotency-key': input.externalId },
      );
      const status = answer.status === 'COMPLETED' ? 'completed' : answer.status === 'FAILED' ? 'failed' : 'pending';
      return { id: String(answer.id), externalId: String(answer.external_id ?? input.externalId), status, failureCode: text(answer.failure_code) };
    },

    verifyCallback(rawBody, header, now = new Date()): CallbackVerdict {
      const token = header(CALLBACK_TOKEN_HEADER);
      if (!token) return { valid: false, reason: 'missing_token' };
      if (!sameSecret(token, callbackToken)) return { valid: false, reason: 'token_mismatch' };
      let body: unknown;
      try {
        body = JSON.parse(rawBody.toString('utf8'));
      } catch {
        return { valid: false, reason: 'malformed_body' };
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body)) return { valid: false, reason: 'malformed_body' };
      const read = parseXenditCallback(body as Json, header(CALLBACK_ID_HEADER) || undefined);
      const occurredAt = 'event' in read ? read.event.occurredAt : read.occurredAt;
      if (!occurredAt) return { valid: false, reason: 'malformed_body' };
      const age = now.getTime() - occurredAt.getTime();
      if (age > CALLBACK_MAX_AGE_MS || age < -CALLBACK_MAX_SKEW_MS) return { valid: false, reason: 'timestamp_outside_tolerance' };
      if ('event' in read) return { valid: true, event: read.event };
      if (!read.eventId) return { valid: false, reason: 'malformed_body' };
      return { valid: true, event: { eventId: read.eventId, occurredAt, kind: 'unknown', type: read.unknownType } };
    },
  };
}

/** A payment request's status in ours: canceled or voided ones took no money, like failed ones; the rest are still on their way. */
function toChargeResult(answer: Json): ChargeResult {
  const status = answer.status === 'SUCCEEDED' ? 'succeeded' : ['FAILED', 'CANCELED', 'VOIDED'].includes(String(answer.status)) ? 'failed' : 'pending';
  return { id: String(answer.id), status, failureCode: text(answer.failure_code) ?? (status === 'failed' ? String(answer.status) : null) };
}
