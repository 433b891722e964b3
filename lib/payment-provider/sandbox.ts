import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { formatMoney } from '../money';
import { CALLBACK_ID_HEADER, CALLBACK_TOKEN_HEADER, INVOICE_CHANNELS, sameSecret } from './xendit';

/**
 * The built-in sandbox provider: a small HTTP server speaking the subset of Xendit's API the adapter uses
 * (lib/payment-provider/xendit.ts) and what Xendit's own Node SDK (`xendit-node` 7) calls around it: invoices
 * (create, get, list, expire), customers (create, get, by reference, update), payment requests (create, get, list),
 * refunds (create, get, list), disbursements and v2 payouts (create, get, by reference, cancel). Answers carry every
 * field the SDK's models read without a check (its `FromJSON` crashes on a missing array), and a trailing slash is
 * accepted as the real API does. It serves its own hosted invoice page (pay, decline, expire) and sends callbacks
 * carrying `x-callback-token` to our inbound route. `npm start` runs it when no provider is configured; the tests
 * run it on loopback. It keeps everything in memory. Outcomes follow documented test values (SANDBOX_TEST_VALUES).
 */
export const SANDBOX_TEST_VALUES = {
  /** Card numbers on the hosted page; any other 12 to 19 digits succeed. */
  cards: { success: '4242424242424242', declined: '4000000000000002', insufficientFunds: '4000000000009995' },
  /** Saved payment method ids for `POST /payment_requests`; any other id succeeds. `pending` stays `PENDING` until `settlePaymentRequest`. */
  paymentMethods: { success: 'pm_sandbox_success', declined: 'pm_sandbox_declined', insufficientFunds: 'pm_sandbox_insufficient_funds', pending: 'pm_sandbox_pending' },
  /** Bank account numbers for `POST /disbursements` and `POST /v2/payouts`; any other number is paid out. */
  accountNumbers: { invalidDestination: '0000000000', rejectedByBank: '1111111111' },
  /** A bank (or payout channel) code refused at once (400 BANK_CODE_NOT_SUPPORTED_ERROR, CHANNEL_CODE_NOT_SUPPORTED); any other is taken. */
  bankCodes: { unsupported: 'SANDBOX_UNSUPPORTED' },
} as const;

const CARD_FAILURES: Record<string, string> = {
  [SANDBOX_TEST_VALUES.cards.declined]: 'CARD_DECLINED',
  [SANDBOX_TEST_VALUES.cards.insufficientFunds]: 'INSUFFICIENT_BALANCE',
};
const METHOD_FAILURES: Record<string, string> = {
  [SANDBOX_TEST_VALUES.paymentMethods.declined]: 'CARD_DECLINED',
  [SANDBOX_TEST_VALUES.paymentMethods.insufficientFunds]: 'INSUFFICIENT_BALANCE',
};
const DISBURSEMENT_FAILURES: Record<string, string> = {
  [SANDBOX_TEST_VALUES.accountNumbers.invalidDestination]: 'INVALID_DESTINATION',
  [SANDBOX_TEST_VALUES.accountNumbers.rejectedByBank]: 'REJECTED_BY_BANK',
};
/** The same accounts' outcomes in v2 payouts, whose failure codes name the channel rather than the bank. */
const PAYOUT_FAILURES: Record<string, string> = {
  [SANDBOX_TEST_VALUES.accountNumbers.invalidDestination]: 'INVALID_DESTINATION',
  [SANDBOX_TEST_VALUES.accountNumbers.rejectedByBank]: 'REJECTED_BY_CHANNEL',
};
const MERCHANT_NAME = 'Sandbox merchant';

/**
 * A fresh secret key in Xendit's format: `xnd_development_…` for test mode, `xnd_production_…` for live, the two
 * prefixes the official SDK's key check accepts.
 */
export function sandboxSecretKey(mode: 'test' | 'live'): string {
  return `xnd_${mode === 'test' ? 'development' : 'production'}_${randomBytes(36).toString('base64url')}`;
}

/** One provider account: its secret key and the token its callbacks carry. */
export interface SandboxAccount {
  secretKey: string;
  callbackToken: string;
}

export interface SandboxOptions {
  accounts: SandboxAccount[];
  /** Where callbacks go (our inbound route); null keeps them in `callbacks` only. */
  callbackUrl: string | null;
  port?: number;
  host?: string;
  /** How long a disbursement stays PENDING before its outcome's callback. */
  disbursementDelayMs?: number;
  /** Each callback's retries after a non-2xx answer or no answer (the real provider's run over 24 hours). */
  callbackRetryDelaysMs?: number[];
}

export interface SandboxInvoice {
  id: string;
  account: number;
  external_id: string;
  status: 'PENDING' | 'PAID' | 'EXPIRED';
  amount: number;
  currency: string;
  description: string;
  payer_email: string | null;
  payment_methods: string[];
  success_redirect_url: string | null;
  failure_redirect_url: string | null;
  expiry_date: string;
  created: string;
  updated: string;
  paid_amount?: number;
  paid_at?: string;
  payment_method?: string;
  payment_channel?: string;
  refunded: number;
  /** The last failed attempt on the page, shown there. */
  last_failure?: string;
}

export interface SandboxCallback {
  webhookId: string;
  account: number;
  body: Record<string, unknown>;
  /** HTTP statuses of each attempt (0: no answer). */
  attempts: number[];
}

export interface PaymentSandbox {
  baseUrl: string;
  invoices: Map<string, SandboxInvoice>;
  disbursements: Map<string, Record<string, unknown>>;
  customers: Map<string, Record<string, unknown>>;
  /** Charges of saved payment methods (`POST /payment_requests`), by their id. */
  paymentRequests: Map<string, Record<string, unknown>>;
  refunds: Map<string, Record<string, unknown>>;
  /** Payouts of the v2 API (`POST /v2/payouts`), by their id. */
  payouts: Map<string, Record<string, unknown>>;
  callbacks: SandboxCallback[];
  /** While true, callbacks are recorded but not sent (send them later with `deliver`): a late or lost callback. */
  holdCallbacks: boolean;
  /** Where callbacks go; settable once the receiver's address is known. */
  callbackUrl: string | null;
  /** Sends a recorded callback (again): a duplicate, or a held one arriving late. */
  deliver(webhookId: string): Promise<number>;
  /** Settles pending disbursements and v2 payouts now instead of after the delay. */
  settleDisbursements(): Promise<void>;
  /** Confirms (or fails) a `PENDING` charge, as the buyer's bank eventually would. */
  settlePaymentRequest(id: string, outcome: 'SUCCEEDED' | 'FAILED'): void;
  close(): Promise<void>;
}

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const BODY_LIMIT = 1_000_000;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const failure = (res: ServerResponse, status: number, errorCode: string, message: string) => sendJson(res, status, { error_code: errorCode, message });

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http: https:; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

/** The channels of an invoice grouped as its page offers them. */
function channelGroups(channels: string[]): { group: string; channels: string[] }[] {
  const groups = Object.entries(INVOICE_CHANNELS).map(([group, list]) => ({ group, channels: list.filter((c) => channels.includes(c)) }));
  return groups.filter((g) => g.channels.length > 0);
}

/** The callback's `payment_method` for a channel, as Xendit names them. */
function paymentMethodOf(channel: string): string {
  if (channel === 'QRIS') return 'QR_CODE';
  if (channel === 'CREDIT_CARD') return 'CREDIT_CARD';
  if (INVOICE_CHANNELS.ewallet.includes(channel)) return 'EWALLET';
  if (channel === 'PAYPAL') return 'PAYPAL';
  return 'BANK_TRANSFER';
}

function renderPage(invoice: SandboxInvoice, merchantAmount: string): string {
  const status = invoice.status;
  const groups = channelGroups(invoice.payment_methods);
  const form =
    status === 'PENDING'
      ? `<form method="post" action="/web/${escapeHtml(invoice.id)}/pay">
  <label>Payment channel <select name="channel" id="channel">${groups
    .flatMap((g) => g.channels.map((c) => `<option value="${escapeHtml(c)}">${escapeHtml(c)} (${escapeHtml(g.group)})</option>`))
    .join('')}</select></label>
  <label>Card number (cards only) <input name="card_number" id="card_number" inputmode="numeric" autocomplete="off"></label>
  <button type="submit" id="pay">Pay ${escapeHtml(merchantAmount)}</button>
</form>
<form method="post" action="/web/${escapeHtml(invoice.id)}/decline"><button type="submit" id="decline">Simulate a declined payment</button></form>
<form method="post" action="/web/${escapeHtml(invoice.id)}/expire"><button type="submit" id="expire">Expire this invoice</button></form>`
      : '';
  const notice = invoice.last_failure && status === 'PENDING' ? `<p class="failure" id="failure">Payment failed: ${escapeHtml(invoice.last_failure)}. Try again.</p>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sandbox invoice ${escapeHtml(invoice.id)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem}label{display:block;margin:.5rem 0}
.failure{color:#a00}.status{font-weight:bold}button{margin:.25rem 0}</style></head>
<body><p>Payment sandbox (test mode: no money moves)</p>
<h1 id="description">${escapeHtml(invoice.description)}</h1>
<p id="amount">${escapeHtml(merchantAmount)}</p>
<p class="status" id="status">${escapeHtml(status)}</p>
${notice}${form}
</body></html>`;
}

type StoredRecord = Record<string, unknown> & { account: number };

/** A record as the API answers it: without the sandbox's own bookkeeping. */
const publicOf = ({ account: _account, ...fields }: StoredRecord) => fields;

/** A list parameter however a client spells it: repeated (`a=1&a=2`, the SDK's way), `a[]=1`, `a=1,2` or `a=["1","2"]`. */
function listParam(query: URLSearchParams, name: string): string[] {
  return [...query.getAll(name), ...query.getAll(`${name}[]`)].flatMap((value) => {
    if (value.startsWith('[')) {
      try {
        const parsed: unknown = JSON.parse(value);
        if (Array.isArray(parsed)) return parsed.map(String);
      } catch {
        // Not JSON after all: read as a comma-separated list.
      }
    }
    return value.split(',').filter(Boolean);
  });
}

/** `limit` between 1 and `max` (`fallback` when absent); null when it is not such a number. */
function limitOf(query: URLSearchParams, fallback: number, max: number): number | null {
  const raw = query.get('limit');
  if (raw === null) return fallback;
  const limit = Number(raw);
  return Number.isInteger(limit) && limit >= 1 && limit <= max ? limit : null;
}

/** A date parameter: undefined when absent, null when it is not a date. */
function dateParam(query: URLSearchParams, name: string): Date | null | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  const date = new Date(raw);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** One page of `items` (newest first) after the item `after_id` names or before the one `before_id` names. */
function pageOf<T extends Record<string, unknown>>(items: T[], query: URLSearchParams, limit: number): { data: T[]; has_more: boolean } {
  const before = query.get('before_id');
  if (before) {
    const end = Math.max(0, items.findIndex((item) => item.id === before));
    const start = Math.max(0, end - limit);
    return { data: items.slice(start, end), has_more: start > 0 };
  }
  const after = query.get('after_id');
  const index = after ? items.findIndex((item) => item.id === after) : -1;
  const start = after ? (index < 0 ? items.length : index + 1) : 0;
  return { data: items.slice(start, start + limit), has_more: start + limit < items.length };
}

export async function startPaymentSandbox(options: SandboxOptions): Promise<PaymentSandbox> {
  const invoices = new Map<string, SandboxInvoice>();
  const disbursements = new Map<string, Record<string, unknown> & { account: number; settled: boolean; timer?: NodeJS.Timeout }>();
  const customers = new Map<string, StoredRecord>();
  const paymentRequests = new Map<string, StoredRecord>();
  const refunds = new Map<string, StoredRecord>();
  const payouts = new Map<string, StoredRecord>();
  const payoutTimers = new Map<string, NodeJS.Timeout>();
  const idempotent = new Map<string, { status: number; body: unknown }>();
  const callbacks: SandboxCallback[] = [];
  const retryDelays = options.callbackRetryDelaysMs ?? [1_000, 5_000, 15_000, 60_000];
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;
  const state = { holdCallbacks: false, callbackUrl: options.callbackUrl };
  let baseUrl = '';

  const now = () => new Date().toISOString();
  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!closed) run();
    }, ms);
    timers.add(timer);
    return timer;
  };

  /** One attempt; retried on failure by the schedule unless it is a manual re-send. */
  async function attempt(callback: SandboxCallback): Promise<number> {
    if (!state.callbackUrl) return 0;
    const account = options.accounts[callback.account]!;
    let status = 0;
    try {
      const res = await fetch(state.callbackUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [CALLBACK_TOKEN_HEADER]: account.callbackToken, [CALLBACK_ID_HEADER]: callback.webhookId },
        body: JSON.stringify(callback.body),
        signal: AbortSignal.timeout(30_000),
      });
      status = res.status;
      await res.arrayBuffer().catch(() => undefined);
    } catch {
      status = 0;
    }
    callback.attempts.push(status);
    return status;
  }

  function emit(account: number, body: Record<string, unknown>): void {
    const callback: SandboxCallback = { webhookId: randomUUID(), account, body, attempts: [] };
    callbacks.push(callback);
    if (state.holdCallbacks || !state.callbackUrl) return;
    const run = (retry: number) => {
      void attempt(callback).then((status) => {
        const delay = retryDelays[retry];
        if ((status < 200 || status >= 300) && delay !== undefined) later(delay, () => run(retry + 1));
      });
    };
    run(0);
  }

  const invoiceCallback = (invoice: SandboxInvoice) => {
    const { account, refunded: _refunded, last_failure: _failure, ...fields } = invoice;
    emit(account, { ...fields, user_id: `sandbox-user-${account}`, merchant_name: MERCHANT_NAME });
  };

  /** An invoice as the API answers it, with the channel arrays the SDK's `InvoiceFromJSON` maps over. */
  function invoiceJson(invoice: SandboxInvoice) {
    const { account, refunded: _refunded, last_failure: _failure, ...fields } = invoice;
    const offered = (group: readonly string[]) => invoice.payment_methods.filter((c) => group.includes(c));
    return {
      ...fields,
      user_id: `sandbox-user-${account}`,
      merchant_name: MERCHANT_NAME,
      merchant_profile_picture_url: null,
      invoice_url: `${baseUrl}/web/${invoice.id}`,
      available_banks: offered(INVOICE_CHANNELS.va).map((bank_code) => ({
        bank_code,
        collection_type: 'POOL',
        bank_branch: 'Virtual Account',
        account_holder_name: MERCHANT_NAME.toUpperCase(),
        transfer_amount: invoice.amount,
      })),
      available_retail_outlets: [],
      available_ewallets: offered(INVOICE_CHANNELS.ewallet).map((ewallet_type) => ({ ewallet_type })),
      available_qr_codes: offered(INVOICE_CHANNELS.qris).map((qr_code_type) => ({ qr_code_type })),
      available_direct_debits: [],
      available_paylaters: [],
      should_exclude_credit_card: !invoice.payment_methods.includes('CREDIT_CARD'),
      should_send_email: false,
    };
  }

  function settlePayout(id: string): void {
    const payout = payouts.get(id);
    if (payout?.status !== 'ACCEPTED') return;
    clearTimeout(payoutTimers.get(id));
    payoutTimers.delete(id);
    const failureCode = PAYOUT_FAILURES[String((payout.channel_properties as Record<string, unknown>).account_number)];
    Object.assign(payout, { status: failureCode ? 'FAILED' : 'SUCCEEDED', updated: now() }, failureCode ? { failure_code: failureCode } : {});
    emit(payout.account, { event: failureCode ? 'payout.failed' : 'payout.succeeded', business_id: payout.business_id, created: now(), data: publicOf(payout) });
  }

  function settleDisbursement(id: string): void {
    const d = disbursements.get(id);
    if (!d || d.settled) return;
    d.settled = true;
    if (d.timer) clearTimeout(d.timer);
    const failureCode = DISBURSEMENT_FAILURES[String(d.account_number)];
    d.status = failureCode ? 'FAILED' : 'COMPLETED';
    d.updated = now();
    if (failureCode) d.failure_code = failureCode;
    const { account, settled: _settled, timer: _timer, account_number: _number, ...fields } = d;
    emit(account, fields);
  }

  function expireInvoice(invoice: SandboxInvoice): boolean {
    if (invoice.status !== 'PENDING') return false;
    invoice.status = 'EXPIRED';
    invoice.updated = now();
    invoiceCallback(invoice);
    return true;
  }

  /** The invoice as it stands: a pending one past its expiry is expired (with its callback) when next looked at. */
  function current(id: string): SandboxInvoice | undefined {
    const invoice = invoices.get(id);
    if (invoice && invoice.status === 'PENDING' && Date.parse(invoice.expiry_date) <= Date.now()) expireInvoice(invoice);
    return invoice;
  }

  function accountOf(req: IncomingMessage): number {
    const header = req.headers.authorization ?? '';
    if (!header.startsWith('Basic ')) return -1;
    const user = Buffer.from(header.slice(6), 'base64').toString('utf8').replace(/:.*$/s, '');
    return options.accounts.findIndex((a) => sameSecret(user, a.secretKey));
  }

  async function api(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams, text: string): Promise<void> {
    const account = accountOf(req);
    if (account < 0) return failure(res, 401, 'INVALID_API_KEY', 'API key is not authorized for this API service');
    let body: Record<string, unknown> = {};
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      return failure(res, 400, 'API_VALIDATION_ERROR', 'the body is not JSON');
    }
    const key = String(req.headers['idempotency-key'] ?? req.headers['x-idempotency-key'] ?? '');
    // Only creating calls remember their answer; a read under the same key (the SDK's getRefund can send one) is not a replay.
    const remembered = key && req.method === 'POST' ? idempotent.get(`${account}:${path}:${key}`) : undefined;
    if (remembered) return sendJson(res, remembered.status, remembered.body);
    const answer = (status: number, payload: unknown) => {
      if (key && status < 500) idempotent.set(`${account}:${path}:${key}`, { status, body: payload });
      sendJson(res, status, payload);
    };
    const mine = <T extends { account: number }>(record: T | undefined) => (record?.account === account ? record : undefined);
    const newestFirst = <T extends { account: number }>(records: Map<string, T>) => [...records.values()].filter((r) => r.account === account).reverse();
    const limit = limitOf(query, 10, 100);
    if (req.method === 'GET' && limit === null) return failure(res, 400, 'API_VALIDATION_ERROR', 'limit must be an integer from 1 to 100');

    if (req.method === 'POST' && path === '/customers') {
      if (typeof body.reference_id !== 'string' || !body.reference_id) return failure(res, 400, 'API_VALIDATION_ERROR', 'reference_id is required');
      const type = body.type ?? 'INDIVIDUAL';
      if (type !== 'INDIVIDUAL' && type !== 'BUSINESS') return failure(res, 400, 'API_VALIDATION_ERROR', 'type must be INDIVIDUAL or BUSINESS');
      const customer: StoredRecord = {
        id: `cust-${randomUUID()}`,
        reference_id: body.reference_id,
        type,
        individual_detail: body.individual_detail ?? null,
        business_detail: body.business_detail ?? null,
        description: body.description ?? null,
        email: body.email ?? null,
        mobile_number: body.mobile_number ?? null,
        phone_number: body.phone_number ?? null,
        addresses: body.addresses ?? [],
        identity_accounts: body.identity_accounts ?? [],
        kyc_documents: body.kyc_documents ?? [],
        metadata: body.metadata ?? null,
        created: now(),
        updated: now(),
        account,
      };
      customers.set(String(customer.id), customer);
      return answer(201, publicOf(customer));
    }

    if (req.method === 'GET' && path === '/customers') {
      const referenceId = query.get('reference_id');
      if (!referenceId) return failure(res, 400, 'API_VALIDATION_ERROR', 'reference_id is required');
      return sendJson(res, 200, { data: newestFirst(customers).filter((c) => c.reference_id === referenceId).map(publicOf), has_more: false });
    }

    const customerPath = /^\/customers\/([^/]+)$/.exec(path);
    if ((req.method === 'GET' || req.method === 'PATCH') && customerPath) {
      const customer = mine(customers.get(decodeURIComponent(customerPath[1]!)));
      if (!customer) return failure(res, 404, 'DATA_NOT_FOUND', 'customer not found');
      if (req.method === 'PATCH') {
        const fields = ['reference_id', 'individual_detail', 'business_detail', 'description', 'email', 'mobile_number', 'phone_number', 'addresses', 'identity_accounts', 'kyc_documents', 'metadata', 'status'];
        for (const field of fields) if (body[field] !== undefined) customer[field] = body[field];
        customer.updated = now();
      }
      return sendJson(res, 200, publicOf(customer));
    }

    if (req.method === 'POST' && path === '/v2/invoices') {
      const amount = Number(body.amount);
      if (typeof body.external_id !== 'string' || !(amount > 0)) return failure(res, 400, 'API_VALIDATION_ERROR', 'external_id and a positive amount are required');
      const currency = String(body.currency ?? 'IDR');
      if (!['IDR', 'USD'].includes(currency)) return failure(res, 400, 'UNSUPPORTED_CURRENCY', `currency ${currency} is not activated`);
      const duration = Number(body.invoice_duration ?? 86_400);
      const id = randomUUID().replace(/-/g, '').slice(0, 24);
      const invoice: SandboxInvoice = {
        id,
        account,
        external_id: body.external_id,
        status: 'PENDING',
        amount,
        currency,
        description: String(body.description ?? ''),
        payer_email: typeof body.payer_email === 'string' ? body.payer_email : null,
        payment_methods: Array.isArray(body.payment_methods) && body.payment_methods.length ? body.payment_methods.map(String) : Object.values(INVOICE_CHANNELS).flat(),
        success_redirect_url: typeof body.success_redirect_url === 'string' ? body.success_redirect_url : null,
        failure_redirect_url: typeof body.failure_redirect_url === 'string' ? body.failure_redirect_url : null,
        expiry_date: new Date(Date.now() + duration * 1000).toISOString(),
        created: now(),
        updated: now(),
        refunded: 0,
      };
      invoices.set(id, invoice);
      return answer(200, invoiceJson(invoice));
    }

    if (req.method === 'GET' && path === '/v2/invoices') {
      const externalId = query.get('external_id');
      const statuses = listParam(query, 'statuses');
      const ranges = { created: ['created_after', 'created_before'], paid: ['paid_after', 'paid_before'], expired: ['expired_after', 'expired_before'] } as const;
      const bounds: { field: 'created' | 'paid' | 'expired'; after?: Date; before?: Date }[] = [];
      for (const [field, [afterName, beforeName]] of Object.entries(ranges) as ['created' | 'paid' | 'expired', readonly [string, string]][]) {
        const after = dateParam(query, afterName);
        const before = dateParam(query, beforeName);
        if (after === null || before === null) return failure(res, 400, 'API_VALIDATION_ERROR', `${after === null ? afterName : beforeName} is not a date`);
        if (after || before) bounds.push({ field, after, before });
      }
      const timeOf = (invoice: SandboxInvoice, field: 'created' | 'paid' | 'expired') =>
        field === 'created' ? invoice.created : field === 'paid' ? invoice.paid_at : invoice.status === 'EXPIRED' ? invoice.updated : undefined;
      const matching = newestFirst(invoices)
        .map((invoice) => current(invoice.id)!)
        .filter((invoice) => (!externalId || invoice.external_id === externalId) && (statuses.length === 0 || statuses.includes(invoice.status)))
        .filter((invoice) =>
          bounds.every(({ field, after, before }) => {
            const at = timeOf(invoice, field);
            return at !== undefined && (!after || Date.parse(at) >= after.getTime()) && (!before || Date.parse(at) <= before.getTime());
          }),
        );
      // `last_invoice` is the id of the previous page's last invoice.
      const last = query.get('last_invoice');
      const start = last ? matching.findIndex((invoice) => invoice.id === last) + 1 : 0;
      return sendJson(res, 200, (last && start === 0 ? [] : matching.slice(start, start + limit!)).map(invoiceJson));
    }

    const invoiceRead = /^\/v2\/invoices\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && invoiceRead) {
      const invoice = mine(current(decodeURIComponent(invoiceRead[1]!)));
      if (!invoice) return failure(res, 404, 'INVOICE_NOT_FOUND_ERROR', 'invoice not found');
      return sendJson(res, 200, invoiceJson(invoice));
    }

    const expire = /^\/invoices\/([^/]+)\/expire!$/.exec(path);
    if (req.method === 'POST' && expire) {
      const invoice = mine(current(decodeURIComponent(expire[1]!)));
      if (!invoice) return failure(res, 404, 'INVOICE_NOT_FOUND_ERROR', 'invoice not found');
      if (invoice.status === 'PAID') return failure(res, 400, 'INVALID_INVOICE_STATUS', 'a paid invoice cannot be expired');
      expireInvoice(invoice);
      return sendJson(res, 200, invoiceJson(invoice));
    }

    if (req.method === 'POST' && path === '/payment_requests') {
      const methodId = String(body.payment_method_id ?? '');
      if (!methodId || !(Number(body.amount) > 0)) return failure(res, 400, 'API_VALIDATION_ERROR', 'payment_method_id and a positive amount are required');
      const failureCode = METHOD_FAILURES[methodId] ?? null;
      const pending = methodId === SANDBOX_TEST_VALUES.paymentMethods.pending;
      const request: StoredRecord = {
        id: `pr-${randomUUID()}`,
        business_id: `sandbox-user-${account}`,
        reference_id: body.reference_id ?? randomUUID(),
        customer_id: body.customer_id ?? null,
        amount: body.amount,
        currency: body.currency,
        country: 'ID',
        description: body.description ?? null,
        // A saved method as the SDK's PaymentMethod model needs it (type, reusability, status).
        payment_method: { id: methodId, type: 'CARD', reusability: 'MULTIPLE_USE', status: 'ACTIVE', created: now(), updated: now() },
        capture_method: 'AUTOMATIC',
        status: pending ? 'PENDING' : failureCode ? 'FAILED' : 'SUCCEEDED',
        failure_code: failureCode,
        actions: [],
        metadata: body.metadata ?? null,
        created: now(),
        updated: now(),
        account,
      };
      paymentRequests.set(String(request.id), request);
      return answer(201, publicOf(request));
    }

    if (req.method === 'GET' && path === '/payment_requests') {
      const filters = (['id', 'reference_id', 'customer_id'] as const).map((field) => ({ field, values: listParam(query, field) })).filter((f) => f.values.length > 0);
      const matching = newestFirst(paymentRequests).filter((r) => filters.every(({ field, values }) => values.includes(String(r[field]))));
      const found = pageOf(matching, query, limit!);
      return sendJson(res, 200, { data: found.data.map(publicOf), has_more: found.has_more, links: [] });
    }

    const requestRead = /^\/payment_requests\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && requestRead) {
      const request = mine(paymentRequests.get(decodeURIComponent(requestRead[1]!)));
      if (!request) return failure(res, 404, 'DATA_NOT_FOUND', 'payment request not found');
      return sendJson(res, 200, publicOf(request));
    }

    if (req.method === 'POST' && path === '/refunds') {
      const invoice = mine(current(String(body.invoice_id ?? '')));
      if (!invoice) return failure(res, 404, 'DATA_NOT_FOUND', 'invoice not found');
      if (invoice.status !== 'PAID') return failure(res, 400, 'INELIGIBLE_TRANSACTION', 'only a paid invoice can be refunded');
      const amount = Number(body.amount ?? invoice.amount - invoice.refunded);
      if (!(amount > 0) || amount > invoice.amount - invoice.refunded) return failure(res, 400, 'REFUND_AMOUNT_EXCEEDED', 'the amount is more than what is left to refund');
      invoice.refunded += amount;
      const refund: StoredRecord = {
        id: `rfd-${randomUUID()}`,
        reference_id: body.reference_id,
        invoice_id: invoice.id,
        payment_request_id: null,
        amount,
        currency: invoice.currency,
        channel_code: invoice.payment_channel ?? null,
        country: 'ID',
        reason: body.reason ?? null,
        status: 'PENDING',
        failure_code: null,
        refund_fee_amount: null,
        metadata: body.metadata ?? null,
        created: now(),
        updated: now(),
        account,
      };
      refunds.set(String(refund.id), refund);
      later(0, () => {
        Object.assign(refund, { status: 'SUCCEEDED', updated: now() });
        emit(account, { event: 'refund.succeeded', business_id: `sandbox-user-${account}`, created: now(), data: publicOf(refund) });
      });
      return answer(200, publicOf(refund));
    }

    if (req.method === 'GET' && path === '/refunds') {
      const filters = (['invoice_id', 'payment_request_id'] as const).map((field) => ({ field, value: query.get(field) })).filter((f) => f.value);
      const matching = newestFirst(refunds).filter((r) => filters.every(({ field, value }) => r[field] === value));
      const found = pageOf(matching, query, limit!);
      return sendJson(res, 200, { data: found.data.map(publicOf), has_more: found.has_more });
    }

    const refundRead = /^\/refunds\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && refundRead) {
      const refund = mine(refunds.get(decodeURIComponent(refundRead[1]!)));
      if (!refund) return failure(res, 404, 'DATA_NOT_FOUND', 'refund not found');
      return sendJson(res, 200, publicOf(refund));
    }

    if (req.method === 'POST' && path === '/disbursements') {
      const amount = Number(body.amount);
      for (const field of ['external_id', 'bank_code', 'account_holder_name', 'account_number'] as const) {
        if (typeof body[field] !== 'string' || !body[field]) return failure(res, 400, 'API_VALIDATION_ERROR', `${field} is required`);
      }
      if (!(amount > 0)) return failure(res, 400, 'API_VALIDATION_ERROR', 'amount must be positive');
      if (body.bank_code === SANDBOX_TEST_VALUES.bankCodes.unsupported) return failure(res, 400, 'BANK_CODE_NOT_SUPPORTED_ERROR', 'the destination bank code is not supported');
      const id = `disb-${randomUUID()}`;
      const record = {
        id,
        user_id: `sandbox-user-${account}`,
        external_id: body.external_id,
        amount,
        bank_code: body.bank_code,
        account_holder_name: body.account_holder_name,
        account_number: body.account_number,
        disbursement_description: body.description ?? '',
        status: 'PENDING',
        created: now(),
        updated: now(),
        account,
        settled: false,
      } as Record<string, unknown> & { account: number; settled: boolean; timer?: NodeJS.Timeout };
      disbursements.set(id, record);
      record.timer = later(options.disbursementDelayMs ?? 2_000, () => settleDisbursement(id));
      const { account: _a, settled: _s, timer: _t, ...fields } = record;
      return answer(200, fields);
    }

    if (req.method === 'POST' && path === '/v2/payouts') {
      // The v2 API takes no payout without an idempotency key (the SDK's createPayout requires one too).
      if (!key) return failure(res, 400, 'API_VALIDATION_ERROR', 'the idempotency-key header is required');
      const destination = (typeof body.channel_properties === 'object' && body.channel_properties !== null ? body.channel_properties : {}) as Record<string, unknown>;
      for (const [field, value] of [['reference_id', body.reference_id], ['channel_code', body.channel_code], ['currency', body.currency], ['channel_properties.account_number', destination.account_number]] as const) {
        if (typeof value !== 'string' || !value) return failure(res, 400, 'API_VALIDATION_ERROR', `${field} is required`);
      }
      if (!(Number(body.amount) > 0)) return failure(res, 400, 'API_VALIDATION_ERROR', 'amount must be positive');
      if (body.channel_code === SANDBOX_TEST_VALUES.bankCodes.unsupported) return failure(res, 400, 'CHANNEL_CODE_NOT_SUPPORTED', 'the payout channel is not supported');
      const delay = options.disbursementDelayMs ?? 2_000;
      const payout: StoredRecord = {
        id: `disb-${randomUUID()}`,
        business_id: `sandbox-user-${account}`,
        reference_id: body.reference_id,
        channel_code: body.channel_code,
        channel_properties: { account_holder_name: destination.account_holder_name ?? null, account_number: destination.account_number, account_type: destination.account_type ?? null },
        amount: Number(body.amount),
        currency: body.currency,
        description: body.description ?? null,
        receipt_notification: body.receipt_notification ?? null,
        metadata: body.metadata ?? null,
        status: 'ACCEPTED',
        estimated_arrival_time: new Date(Date.now() + delay).toISOString(),
        created: now(),
        updated: now(),
        account,
      };
      const id = String(payout.id);
      payouts.set(id, payout);
      payoutTimers.set(id, later(delay, () => settlePayout(id)));
      return answer(200, publicOf(payout));
    }

    if (req.method === 'GET' && path === '/v2/payouts') {
      const referenceId = query.get('reference_id');
      if (!referenceId) return failure(res, 400, 'API_VALIDATION_ERROR', 'reference_id is required');
      const found = pageOf(
        newestFirst(payouts).filter((p) => p.reference_id === referenceId),
        query,
        limit!,
      );
      return sendJson(res, 200, { data: found.data.map(publicOf), has_more: found.has_more });
    }

    const payoutPath = /^\/v2\/payouts\/([^/]+?)(\/cancel)?$/.exec(path);
    if (payoutPath && (req.method === 'POST' ? payoutPath[2] : req.method === 'GET' && !payoutPath[2])) {
      const id = decodeURIComponent(payoutPath[1]!);
      const payout = mine(payouts.get(id));
      if (!payout) return failure(res, 404, 'DATA_NOT_FOUND', 'payout not found');
      if (req.method === 'POST') {
        if (payout.status !== 'ACCEPTED') return failure(res, 400, 'INVALID_PAYOUT_STATUS', `a ${String(payout.status)} payout cannot be cancelled`);
        clearTimeout(payoutTimers.get(id));
        payoutTimers.delete(id);
        Object.assign(payout, { status: 'CANCELLED', updated: now() });
      }
      return sendJson(res, 200, publicOf(payout));
    }

    return failure(res, 404, 'NOT_FOUND', `no route ${req.method} ${path}`);
  }

  async function page(req: IncomingMessage, res: ServerResponse, path: string, text: string): Promise<void> {
    const match = /^\/web\/([^/]+)(?:\/(pay|decline|expire))?$/.exec(path);
    const invoice = match ? current(decodeURIComponent(match[1]!)) : undefined;
    if (!match || !invoice) {
      res.writeHead(404, PAGE_HEADERS);
      res.end('<!doctype html><title>Not found</title><p>No such invoice.</p>');
      return;
    }
    const action = match[2];
    if (req.method === 'POST' && action) {
      const form = new URLSearchParams(text);
      if (invoice.status === 'PENDING') {
        if (action === 'expire') expireInvoice(invoice);
        else if (action === 'decline') invoice.last_failure = 'PAYMENT_DECLINED';
        else {
          const channel = form.get('channel') ?? invoice.payment_methods[0]!;
          const card = (form.get('card_number') ?? '').replace(/[\s-]/g, '');
          const cardFailure = channel === 'CREDIT_CARD' ? (/^\d{12,19}$/.test(card) ? CARD_FAILURES[card] : 'INVALID_CARD_NUMBER') : undefined;
          if (!invoice.payment_methods.includes(channel)) invoice.last_failure = 'CHANNEL_NOT_AVAILABLE';
          else if (cardFailure) invoice.last_failure = cardFailure;
          else {
            invoice.status = 'PAID';
            invoice.paid_amount = invoice.amount;
            invoice.paid_at = now();
            invoice.updated = invoice.paid_at;
            invoice.payment_method = paymentMethodOf(channel);
            invoice.payment_channel = channel;
            delete invoice.last_failure;
            invoiceCallback(invoice);
            if (invoice.success_redirect_url) {
              res.writeHead(303, { location: invoice.success_redirect_url });
              res.end();
              return;
            }
          }
        }
      }
      res.writeHead(303, { location: `/web/${encodeURIComponent(invoice.id)}` });
      res.end();
      return;
    }
    if (req.method !== 'GET' || action) {
      res.writeHead(405, PAGE_HEADERS);
      res.end('<!doctype html><title>Not allowed</title>');
      return;
    }
    res.writeHead(200, PAGE_HEADERS);
    const minor = invoice.currency === 'USD' ? Math.round(invoice.amount * 100) : invoice.amount;
    res.end(renderPage(invoice, formatMoney(minor, invoice.currency)));
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      try {
        const text = await readBody(req);
        const url = new URL(req.url ?? '/', 'http://sandbox');
        if (url.pathname.startsWith('/web/')) return await page(req, res, url.pathname, text);
        // The real API takes a path with or without its trailing slash (the SDK creates invoices at `/v2/invoices/`).
        return await api(req, res, url.pathname.replace(/(.)\/+$/, '$1'), url.searchParams, text);
      } catch (err) {
        if (!res.headersSent) failure(res, 413, 'REQUEST_TOO_LARGE', (err as Error).message);
        else res.destroy();
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  baseUrl = `http://${options.host === '0.0.0.0' || !options.host ? '127.0.0.1' : options.host}:${address.port}`;

  return {
    baseUrl,
    invoices,
    disbursements,
    customers,
    paymentRequests,
    refunds,
    payouts,
    callbacks,
    get holdCallbacks() {
      return state.holdCallbacks;
    },
    set holdCallbacks(value: boolean) {
      state.holdCallbacks = value;
    },
    get callbackUrl() {
      return state.callbackUrl;
    },
    set callbackUrl(value: string | null) {
      state.callbackUrl = value;
    },
    async deliver(webhookId) {
      const callback = callbacks.find((c) => c.webhookId === webhookId);
      if (!callback) throw new Error(`no callback ${webhookId}`);
      return attempt(callback);
    },
    settlePaymentRequest(id, outcome) {
      const request = paymentRequests.get(id);
      if (request?.status !== 'PENDING') throw new Error(`payment request ${id} is not pending`);
      Object.assign(request, { status: outcome, failure_code: outcome === 'FAILED' ? 'CARD_DECLINED' : null, updated: now() });
    },
    async settleDisbursements() {
      for (const id of disbursements.keys()) settleDisbursement(id);
      for (const id of payouts.keys()) settlePayout(id);
      await new Promise((resolve) => setImmediate(resolve));
    },
    async close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
