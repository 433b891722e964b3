import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { formatMoney } from '../money';
import { CALLBACK_ID_HEADER, CALLBACK_TOKEN_HEADER, INVOICE_CHANNELS, sameSecret } from './xendit';

/**
 * The built-in sandbox provider: a small HTTP server speaking the subset of Xendit's API the adapter uses
 * (lib/payment-provider/xendit.ts), with its own hosted invoice page (pay, decline, expire) and callbacks carrying
 * `x-callback-token` to our inbound route. `npm start` runs it when no provider is configured; the tests run it
 * on loopback. It keeps everything in memory. Outcomes follow documented test values (SANDBOX_TEST_VALUES).
 */
export const SANDBOX_TEST_VALUES = {
  /** Card numbers on the hosted page; any other 12 to 19 digits succeed. */
  cards: { success: '4242424242424242', declined: '4000000000000002', insufficientFunds: '4000000000009995' },
  /** Saved payment method ids for `POST /payment_requests`; any other id succeeds. `pending` stays `PENDING` until `settlePaymentRequest`. */
  paymentMethods: { success: 'pm_sandbox_success', declined: 'pm_sandbox_declined', insufficientFunds: 'pm_sandbox_insufficient_funds', pending: 'pm_sandbox_pending' },
  /** Bank account numbers for `POST /disbursements`; any other number is paid out. */
  accountNumbers: { invalidDestination: '0000000000', rejectedByBank: '1111111111' },
  /** A bank code `POST /disbursements` refuses at once (400 BANK_CODE_NOT_SUPPORTED_ERROR); any other is taken. */
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
  callbacks: SandboxCallback[];
  /** While true, callbacks are recorded but not sent (send them later with `deliver`): a late or lost callback. */
  holdCallbacks: boolean;
  /** Where callbacks go; settable once the receiver's address is known. */
  callbackUrl: string | null;
  /** Sends a recorded callback (again): a duplicate, or a held one arriving late. */
  deliver(webhookId: string): Promise<number>;
  /** Settles pending disbursements now instead of after the delay. */
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

export async function startPaymentSandbox(options: SandboxOptions): Promise<PaymentSandbox> {
  const invoices = new Map<string, SandboxInvoice>();
  const disbursements = new Map<string, Record<string, unknown> & { account: number; settled: boolean; timer?: NodeJS.Timeout }>();
  const customers = new Map<string, Record<string, unknown>>();
  const paymentRequests = new Map<string, Record<string, unknown>>();
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
    emit(account, { ...fields, user_id: `sandbox-user-${account}`, merchant_name: 'Sandbox merchant' });
  };

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

  async function api(req: IncomingMessage, res: ServerResponse, path: string, text: string): Promise<void> {
    const account = accountOf(req);
    if (account < 0) return failure(res, 401, 'INVALID_API_KEY', 'API key is not authorized for this API service');
    let body: Record<string, unknown> = {};
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      return failure(res, 400, 'API_VALIDATION_ERROR', 'the body is not JSON');
    }
    const key = String(req.headers['idempotency-key'] ?? req.headers['x-idempotency-key'] ?? '');
    const remembered = key ? idempotent.get(`${account}:${path}:${key}`) : undefined;
    if (remembered) return sendJson(res, remembered.status, remembered.body);
    const answer = (status: number, payload: unknown) => {
      if (key && status < 500) idempotent.set(`${account}:${path}:${key}`, { status, body: payload });
      sendJson(res, status, payload);
    };

    if (req.method === 'POST' && path === '/customers') {
      if (typeof body.reference_id !== 'string' || !body.reference_id) return failure(res, 400, 'API_VALIDATION_ERROR', 'reference_id is required');
      const customer = { id: `cust-${randomUUID()}`, reference_id: body.reference_id, type: body.type ?? 'INDIVIDUAL', email: body.email ?? null, individual_detail: body.individual_detail ?? null, metadata: body.metadata ?? null, created: now(), updated: now() };
      customers.set(customer.id, { ...customer, account });
      return answer(201, customer);
    }

    const customerPatch = /^\/customers\/([^/]+)$/.exec(path);
    if (req.method === 'PATCH' && customerPatch) {
      const customer = customers.get(decodeURIComponent(customerPatch[1]!));
      if (!customer || customer.account !== account) return failure(res, 404, 'DATA_NOT_FOUND', 'customer not found');
      for (const field of ['email', 'individual_detail', 'metadata'] as const) if (body[field] !== undefined) customer[field] = body[field];
      customer.updated = now();
      const { account: _a, ...fields } = customer;
      return sendJson(res, 200, fields);
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
      const { account: _a, refunded: _r, ...fields } = invoice;
      return answer(200, { ...fields, invoice_url: `${baseUrl}/web/${id}` });
    }

    const invoiceRead = /^\/v2\/invoices\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && invoiceRead) {
      const invoice = current(decodeURIComponent(invoiceRead[1]!));
      if (!invoice || invoice.account !== account) return failure(res, 404, 'INVOICE_NOT_FOUND_ERROR', 'invoice not found');
      const { account: _a, refunded: _r, ...fields } = invoice;
      return sendJson(res, 200, { ...fields, invoice_url: `${baseUrl}/web/${invoice.id}` });
    }

    const expire = /^\/invoices\/([^/]+)\/expire!$/.exec(path);
    if (req.method === 'POST' && expire) {
      const invoice = current(decodeURIComponent(expire[1]!));
      if (!invoice || invoice.account !== account) return failure(res, 404, 'INVOICE_NOT_FOUND_ERROR', 'invoice not found');
      if (invoice.status === 'PAID') return failure(res, 400, 'INVALID_INVOICE_STATUS', 'a paid invoice cannot be expired');
      expireInvoice(invoice);
      return sendJson(res, 200, { id: invoice.id, status: invoice.status });
    }

    if (req.method === 'POST' && path === '/payment_requests') {
      const methodId = String(body.payment_method_id ?? '');
      if (!methodId || !(Number(body.amount) > 0)) return failure(res, 400, 'API_VALIDATION_ERROR', 'payment_method_id and a positive amount are required');
      const failureCode = METHOD_FAILURES[methodId] ?? null;
      const pending = methodId === SANDBOX_TEST_VALUES.paymentMethods.pending;
      const request = {
        id: `pr-${randomUUID()}`,
        reference_id: body.reference_id,
        customer_id: body.customer_id ?? null,
        amount: body.amount,
        currency: body.currency,
        payment_method: { id: methodId },
        status: pending ? 'PENDING' : failureCode ? 'FAILED' : 'SUCCEEDED',
        failure_code: failureCode,
        created: now(),
      };
      paymentRequests.set(request.id, { ...request, account });
      return answer(201, request);
    }

    const requestRead = /^\/payment_requests\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && requestRead) {
      const request = paymentRequests.get(decodeURIComponent(requestRead[1]!));
      if (!request || request.account !== account) return failure(res, 404, 'DATA_NOT_FOUND', 'payment request not found');
      const { account: _a, ...fields } = request;
      return sendJson(res, 200, fields);
    }

    if (req.method === 'POST' && path === '/refunds') {
      const invoice = current(String(body.invoice_id ?? ''));
      if (!invoice || invoice.account !== account) return failure(res, 404, 'DATA_NOT_FOUND', 'invoice not found');
      if (invoice.status !== 'PAID') return failure(res, 400, 'INELIGIBLE_TRANSACTION', 'only a paid invoice can be refunded');
      const amount = Number(body.amount ?? invoice.amount - invoice.refunded);
      if (!(amount > 0) || amount > invoice.amount - invoice.refunded) return failure(res, 400, 'REFUND_AMOUNT_EXCEEDED', 'the amount is more than what is left to refund');
      invoice.refunded += amount;
      const refund = { id: `rfd-${randomUUID()}`, reference_id: body.reference_id, invoice_id: invoice.id, amount, currency: invoice.currency, status: 'PENDING', created: now(), updated: now() };
      later(0, () => emit(account, { event: 'refund.succeeded', business_id: `sandbox-user-${account}`, created: now(), data: { ...refund, status: 'SUCCEEDED', updated: now() } }));
      return answer(200, refund);
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
        const path = new URL(req.url ?? '/', 'http://sandbox').pathname;
        if (path.startsWith('/web/')) return await page(req, res, path, text);
        return await api(req, res, path, text);
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
