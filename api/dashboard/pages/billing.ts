import type { Request } from 'express';
import { INVOICE_STATUSES, SUBSCRIPTION_STATUSES, type InvoiceStatus, type SubscriptionStatus } from '../../../db/models';
import type { AuthContext } from '../../../domain/auth-context';
import type { CustomerDto } from '../../../domain/customers';
import type { InvoiceDto } from '../../../domain/invoices';
import type { Services } from '../../../domain/services';
import { UpdateSubscriptionBody } from '../../../domain/subscriptions';
import type { SubscriptionDto } from '../../../domain/subscriptions';
import { AppError } from '../../../lib/errors';
import { formatMoney } from '../../../lib/money';
import { engine } from '../../pages/shared/render';
import { formField, identityOf } from '../session';
import { BILLING_PARTIALS, CUSTOMER, CUSTOMERS, INVOICE, INVOICES, SUBSCRIPTION, SUBSCRIPTIONS } from './billing-templates';
import { oneOf, queryText, type Handler, type PageKit } from './kit';

for (const [name, source] of Object.entries(BILLING_PARTIALS)) engine.registerPartial(name, source);

const BODIES = {
  customers: engine.compile(CUSTOMERS),
  customer: engine.compile(CUSTOMER),
  subscriptions: engine.compile(SUBSCRIPTIONS),
  subscription: engine.compile(SUBSCRIPTION),
  invoices: engine.compile(INVOICES),
  invoice: engine.compile(INVOICE),
};

/** What a page says after a billing form's redirect (`?notice=`), merged into router.ts's fixed table. */
export const BILLING_NOTICES: Record<string, string> = {
  paused: 'Subscription paused. Nothing is invoiced until you resume it.',
  resumed: 'Subscription resumed. It renews with its billing period again.',
  'cancel-scheduled': 'The subscription cancels at the end of its current period.',
  canceled: 'Subscription canceled. What was still unpaid is void; nothing was refunded.',
};

const PAGE_SIZE = 50;

const subscriptionTone = (status: SubscriptionStatus) => (status === 'active' || status === 'trialing' ? 'good' : status === 'canceled' || status === 'unpaid' || status === 'past_due' ? 'bad' : 'wait');
const invoiceTone = (status: InvoiceStatus) => (status === 'paid' ? 'good' : status === 'open' || status === 'draft' ? 'wait' : 'bad');

const customerLabelOf = (customer: CustomerDto | null, id: string) => customer?.email ?? customer?.name ?? id;

/**
 * Names for the ids a page of rows refers to (customers, plans), each read once through its service with the
 * session's workspace; an id that no longer reads (a deleted plan) is shown as it is.
 */
async function lookup<T>(ids: (string | null)[], read: (id: string) => Promise<T>): Promise<Map<string, T | null>> {
  const distinct = [...new Set(ids.filter((id): id is string => id !== null))];
  const found = await Promise.all(
    distinct.map((id) =>
      read(id).catch((err: unknown) => {
        if (err instanceof AppError && err.code === 'RESOURCE_NOT_FOUND') return null;
        throw err;
      }),
    ),
  );
  return new Map(distinct.map((id, index) => [id, found[index] ?? null]));
}

const INTERVAL_WORDS: Record<string, string> = { daily: 'day', weekly: 'week', monthly: 'month', yearly: 'year' };

async function subscriptionRows(services: Services, auth: AuthContext, subscriptions: SubscriptionDto[]) {
  const [customers, plans] = await Promise.all([
    lookup(
      subscriptions.map((s) => s.customerId),
      (id) => services.customers.retrieve(auth, id),
    ),
    lookup(
      subscriptions.map((s) => s.planId),
      (id) => services.plans.retrieve(auth, id),
    ),
  ]);
  return subscriptions.map((s) => {
    const plan = plans.get(s.planId);
    const every = plan ? `${plan.intervalCount > 1 ? `${plan.intervalCount} ` : ''}${INTERVAL_WORDS[plan.interval] ?? plan.interval}${plan.intervalCount > 1 ? 's' : ''}` : '';
    return {
      ...s,
      tone: subscriptionTone(s.status),
      customerLabel: customerLabelOf(customers.get(s.customerId) ?? null, s.customerId),
      planLabel: plan ? `${plan.name} · ${formatMoney(plan.amount, plan.currency)} every ${every}` : s.planId,
    };
  });
}

async function invoiceRows(services: Services, auth: AuthContext, invoices: InvoiceDto[]) {
  const customers = await lookup(
    invoices.map((i) => i.customerId),
    (id) => services.customers.retrieve(auth, id),
  );
  return invoices.map((i) => ({ ...i, tone: invoiceTone(i.status), customerLabel: i.customerId ? customerLabelOf(customers.get(i.customerId) ?? null, i.customerId) : '' }));
}

const cursorOf = (req: Request) => queryText(req, 'cursor');

/**
 * Customers, subscriptions (pause, resume, cancel) and invoices (PDF): each read and each action is the call the
 * API route makes (customers.list/retrieve, subscriptions.update/cancel, invoices.list/retrieve/pdf), with the
 * session's workspace and mode; another workspace's id is the services' own 404.
 */
export function mountBillingPages({ router, services, page, post }: PageKit): void {
  router.get('/customers', async (req, res) => {
    const { auth } = identityOf(req);
    const email = queryText(req, 'email')?.trim() || undefined;
    const list = await services.customers.list(auth, { limit: PAGE_SIZE, cursor: cursorOf(req), email });
    page(req, res, { status: 200, title: 'Customers', active: 'customers', body: BODIES.customers, context: { customers: list.data, email, nextCursor: list.nextCursor } });
  });

  router.get('/customers/:id', async (req, res) => {
    const { auth } = identityOf(req);
    const customer = await services.customers.retrieve(auth, String(req.params.id));
    const [subscriptions, invoices] = await Promise.all([
      services.subscriptions.list(auth, { limit: PAGE_SIZE, customerId: customer.id }),
      services.invoices.list(auth, { limit: PAGE_SIZE, customerId: customer.id }),
    ]);
    page(req, res, {
      status: 200,
      title: customer.name ?? customer.email ?? customer.id,
      active: 'customers',
      body: BODIES.customer,
      context: {
        customer,
        metadata: Object.entries(customer.metadata).map(([key, value]) => ({ key, value })),
        subscriptions: await subscriptionRows(services, auth, subscriptions.data),
        invoices: await invoiceRows(services, auth, invoices.data),
      },
    });
  });

  router.get('/subscriptions', async (req, res) => {
    const { auth } = identityOf(req);
    const status = oneOf(SUBSCRIPTION_STATUSES, req.query.status);
    const list = await services.subscriptions.list(auth, { limit: PAGE_SIZE, cursor: cursorOf(req), status });
    page(req, res, {
      status: 200,
      title: 'Subscriptions',
      active: 'subscriptions',
      body: BODIES.subscriptions,
      context: { subscriptions: await subscriptionRows(services, auth, list.data), statuses: SUBSCRIPTION_STATUSES, filter: status, nextCursor: list.nextCursor },
    });
  });

  router.get('/subscriptions/:id', async (req, res) => {
    const { auth } = identityOf(req);
    const subscription = await services.subscriptions.retrieve(auth, String(req.params.id));
    const [row] = await subscriptionRows(services, auth, [subscription]);
    const invoices = await services.invoices.list(auth, { limit: PAGE_SIZE, subscriptionId: subscription.id });
    page(req, res, {
      status: 200,
      title: `Subscription ${subscription.id}`,
      active: 'subscriptions',
      body: BODIES.subscription,
      context: {
        subscription,
        tone: row!.tone,
        planLabel: row!.planLabel,
        customerLabel: row!.customerLabel,
        invoices: await invoiceRows(services, auth, invoices.data),
        // Which buttons the page offers; the subscriptions service decides whether a move is allowed.
        pausable: subscription.status === 'active',
        resumable: subscription.status === 'paused',
        cancelable: subscription.status !== 'canceled',
      },
    });
  });

  // PATCH /v1/payment/subscriptions/:id's body, through its own schema, to the same service call.
  const move = (status: 'paused' | 'active', notice: string): Handler => async (req, res) => {
    const id = String(req.params.id);
    await services.subscriptions.update(identityOf(req).auth, id, UpdateSubscriptionBody.parse({ status }));
    res.redirect(303, `${req.baseUrl}/subscriptions/${id}?notice=${notice}`);
  };
  post('/subscriptions/:id/pause', move('paused', 'paused'));
  post('/subscriptions/:id/resume', move('active', 'resumed'));

  // DELETE /v1/payment/subscriptions/:id: at the period's end unless the form says now.
  post('/subscriptions/:id/cancel', async (req, res) => {
    const id = String(req.params.id);
    const immediate = formField(req, 'when') === 'now';
    await services.subscriptions.cancel(identityOf(req).auth, id, { immediate });
    res.redirect(303, `${req.baseUrl}/subscriptions/${id}?notice=${immediate ? 'canceled' : 'cancel-scheduled'}`);
  });

  router.get('/invoices', async (req, res) => {
    const { auth } = identityOf(req);
    const status = oneOf(INVOICE_STATUSES, req.query.status);
    const list = await services.invoices.list(auth, { limit: PAGE_SIZE, cursor: cursorOf(req), status });
    page(req, res, {
      status: 200,
      title: 'Invoices',
      active: 'invoices',
      body: BODIES.invoices,
      context: { invoices: await invoiceRows(services, auth, list.data), statuses: INVOICE_STATUSES, filter: status, nextCursor: list.nextCursor },
    });
  });

  router.get('/invoices/:id', async (req, res) => {
    const { auth } = identityOf(req);
    const invoice = await services.invoices.retrieve(auth, String(req.params.id));
    const [row] = await invoiceRows(services, auth, [invoice]);
    page(req, res, { status: 200, title: `Invoice ${invoice.number}`, active: 'invoices', body: BODIES.invoice, context: { invoice, tone: row!.tone, customerLabel: row!.customerLabel } });
  });

  // The PDF of GET /v1/payment/invoices/:id/pdf, from the same service call, saved as `<number>.pdf`.
  router.get('/invoices/:id/pdf', async (req, res) => {
    const { fileName, body } = await services.invoices.pdf(identityOf(req).auth, String(req.params.id));
    res.status(200).attachment(fileName).type('application/pdf').set({ 'Cache-Control': 'no-store', 'Content-Length': String(body.length) }).send(body);
  });
}
