import { createHash } from 'node:crypto';
import express, { type ErrorRequestHandler, type Request, type Response, type Router } from 'express';
import { RateLimiterRes } from 'rate-limiter-flexible';
import type { Sequelize } from 'sequelize';
import type { Services } from '../../domain/services';
import type { Config } from '../../lib/config';
import { AppError } from '../../lib/errors';
import { httpStatusOf } from '../errors';
import { sharedLimiter } from '../middleware/rate-limit';
import { sameOriginForm } from '../middleware/same-origin';
import { CHECKOUT_STATUSES, type CheckoutStatus } from '../../db/models';
import { CURRENCY_EXPONENTS } from '../../lib/money';
import { RefundCheckoutSessionBody } from '../../domain/checkout';
import { CreateApiKeyBody } from '../routes/api-keys/schemas';
import { majorUnits, smallestUnits } from './amounts';
import { ASSETS } from './assets';
import { MONEY_PAGE_NOTICES, mountMoneyPages } from './pages';
import { salesChartSvg } from './chart';
import type { FormPageKit } from './pages/forms';
import { mountDeveloperPages } from './pages/developers';
import { mountProductPages } from './pages/products';
import { BODIES, drawnHere, sendDashboardPage, type DashboardFrame, type PageName } from './render';
import {
  checkLoginToken,
  clearSessionCookie,
  formField,
  identityOf,
  issueLoginToken,
  loadIdentity,
  readCookie,
  requireCsrf,
  requireIdentity,
  sessionCookieName,
  setSessionCookie,
} from './session';

/** Sign-in attempts per e-mail (lowercased) per minute, whatever the address they come from. */
export const SIGNIN_PER_EMAIL_PER_MINUTE = 10;

/** What a page says after a form's redirect (`?notice=`): fixed texts, so nothing a link carries is ever shown. */
const NOTICES: Record<string, string> = {
  ...MONEY_PAGE_NOTICES,
  archived: 'Product archived. It is hidden from the shop and the API.',
  restored: 'Product restored. It stays unpublished until you publish it.',
  revoked: 'Key revoked. Requests with it are refused from now on.',
  'test-sent': 'Test event sent. It is delivered like any event; see the endpoint’s delivery log.',
  'product-created': 'Product created. It is a draft until you publish it; add its file below.',
  'product-saved': 'Product saved.',
  'file-uploaded': 'File uploaded. Buyers receive it after paying.',
  'retry-delivered': 'Retried now: the endpoint accepted the event.',
  'retry-retrying': 'Retried now: the endpoint refused it again; the next attempt waits its delay from now.',
  'retry-failed': 'Retried now: the endpoint refused it again, and that was the last attempt.',
  'retry-stopped': 'The delivery stopped: the endpoint is disabled or gone.',
  'module-on': 'Module switched on.',
  'module-off': 'Module switched off.',
  'storefront-saved': 'Storefront settings saved.',
  resent: 'The delivery e-mail is on its way to the buyer again.',
  confirmed: 'Payment confirmed. The checkout is completed and its order is being fulfilled.',
  refunded: 'Refund recorded.',
  'signed-out': 'You are signed out.',
  'signed-out-everywhere': 'You are signed out on every browser and device.',
};

export interface DashboardDeps {
  services: Services;
  sequelize: Sequelize;
  config: Config;
}

type Handler = (req: Request, res: Response) => Promise<void> | void;

/**
 * The merchant dashboard at `/dashboard` (docs/decisions/dashboard.md): server-rendered pages without script, in
 * the API process. Handlers are thin: each reads the form, calls the same domain service as the API route, and
 * redirects (post/redirect/get) or renders. The session's user acts on the workspace and mode the session shows.
 */
export function dashboardPages({ services, sequelize, config }: DashboardDeps): Router {
  const router = express.Router();
  const sessions = services.dashboardSessions;
  const form = express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 20 });
  const sameOrigin = sameOriginForm(config.PUBLIC_BASE_URL);
  const signInPerIp = sharedLimiter(sequelize, 'dsi:ip', config.DASHBOARD_SIGNIN_LIMIT_PER_MINUTE);
  const signInPerEmail = sharedLimiter(sequelize, 'dsi:email', SIGNIN_PER_EMAIL_PER_MINUTE);
  /** A signed-in form post: same origin, the session, its CSRF token. */
  const post = (path: string, handler: Handler) => router.post(path, sameOrigin, form, requireIdentity, requireCsrf, handler);

  const page = (req: Request, res: Response, frame: Omit<DashboardFrame, 'base' | 'identity' | 'notice'> & { active: PageName }) =>
    sendDashboardPage(res, { ...frame, base: req.baseUrl, identity: identityOf(req), notice: NOTICES[String(req.query.notice)] });

  const loginPage = (req: Request, res: Response, status: number, context: { email?: string; failed?: string; error?: string }) =>
    sendDashboardPage(res, {
      status,
      title: 'Sign in',
      base: req.baseUrl,
      notice: NOTICES[String(req.query.notice)],
      error: context.error,
      body: BODIES.login,
      context: { csrf: issueLoginToken(req, res), email: context.email, failed: context.failed },
    });

  router.get('/assets/:name', (req, res, next) => {
    const asset = ASSETS[String(req.params.name)];
    if (!asset) return next();
    res.set({ 'Content-Type': asset.contentType, 'Cache-Control': asset.cacheControl }).send(asset.body);
  });
  router.use(loadIdentity(sessions));

  router.get('/login', (req, res) => {
    if (req.dashboard) return res.redirect(303, req.baseUrl);
    loginPage(req, res, 200, {});
  });

  router.post('/login', sameOrigin, form, async (req, res) => {
    checkLoginToken(req);
    const email = (formField(req, 'email') ?? '').trim().slice(0, 254);
    const password = formField(req, 'password') ?? '';
    try {
      await signInPerIp.consume(req.ip ?? 'unknown');
      await signInPerEmail.consume(createHash('sha256').update(email.toLowerCase()).digest('base64url'));
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      res.setHeader('Retry-After', String(Math.max(1, Math.ceil(err.msBeforeNext / 1000))));
      return loginPage(req, res, 429, { email, error: 'Too many sign-in attempts. Wait a minute, then try again.' });
    }
    // Signing in ends the browser's previous session, if any, and always opens a new one with a new token.
    const result = await sessions.signIn({ email, password, previousToken: readCookie(req, sessionCookieName(req)) });
    if (result.outcome === 'refused') return loginPage(req, res, 401, { email, failed: 'The e-mail or the password is not right.' });
    if (result.outcome === 'no_workspace') return loginPage(req, res, 403, { email, failed: 'This account is not a member of any workspace.' });
    setSessionCookie(req, res, result.token, result.expiresAt);
    res.redirect(303, req.baseUrl);
  });

  post('/logout', async (req, res) => {
    await sessions.signOut(readCookie(req, sessionCookieName(req))!);
    clearSessionCookie(req, res);
    res.redirect(303, `${req.baseUrl}/login?notice=signed-out`);
  });

  post('/logout-everywhere', async (req, res) => {
    await sessions.signOutEverywhere(identityOf(req).userId);
    clearSessionCookie(req, res);
    res.redirect(303, `${req.baseUrl}/login?notice=signed-out-everywhere`);
  });

  post('/workspace', async (req, res) => {
    await sessions.switchWorkspace(identityOf(req), formField(req, 'accountId') ?? '');
    res.redirect(303, req.baseUrl);
  });

  post('/mode', async (req, res) => {
    await sessions.switchEnvironment(identityOf(req), formField(req, 'environment') === 'live' ? 'live' : 'test');
    res.redirect(303, req.baseUrl);
  });

  router.use(requireIdentity);

  const kit: FormPageKit = { router, services, config, page, post, sameOrigin };
  mountProductPages(kit);
  mountDeveloperPages(kit);

  router.get('/', async (req, res) => {
    const { auth } = identityOf(req);
    const [balances, checkouts, sales] = await Promise.all([services.payouts.balance(auth), services.checkoutSessions.list(auth, { limit: 10 }), services.checkoutSessions.salesByDay(auth, 30)]);
    // Nothing earned yet is still money: a zero in each currency we sell in, never a bare 0.
    const shown = balances.length ? balances : Object.keys(CURRENCY_EXPONENTS).map((currency) => ({ currency, available: 0, pending: 0 }));
    const charts = sales.map((series, index) => ({ currency: series.currency, svg: drawnHere(salesChartSvg(series, `sales-chart-${index}`)) }));
    page(req, res, {
      status: 200,
      title: 'Overview',
      active: 'overview',
      body: BODIES.overview,
      context: { balances: shown, charts, checkouts: checkouts.data.map((c) => ({ ...c, tone: toneOf(c.status) })) },
    });
  });

  router.get('/checkouts', async (req, res) => {
    const { auth } = identityOf(req);
    const status = CHECKOUT_STATUSES.find((known) => known === req.query.status);
    const cursor = typeof req.query.cursor === 'string' ? req.query.cursor : undefined;
    const list = await services.checkoutSessions.list(auth, { limit: 50, cursor, status });
    page(req, res, {
      status: 200,
      title: 'Checkouts',
      active: 'checkouts',
      body: BODIES.checkouts,
      context: { checkouts: list.data.map((c) => ({ ...c, tone: toneOf(c.status) })), statuses: CHECKOUT_STATUSES, filter: status, nextCursor: list.nextCursor },
    });
  });

  const checkoutPage = async (req: Request, res: Response, extra: { status: number; form?: Record<string, string>; fieldErrors?: Record<string, string> }) => {
    const { auth } = identityOf(req);
    const id = String(req.params.id);
    const session = await services.checkoutSessions.retrieve(auth, id);
    const [deliveries, refunds] = await Promise.all([services.deliveries.listOfCheckoutSession(auth, id), services.checkoutSessions.refunds(auth, id)]);
    const remaining = session.amount - session.amountRefunded;
    page(req, res, {
      status: extra.status,
      title: `Checkout ${session.id}`,
      active: 'checkouts',
      body: BODIES.checkout,
      context: {
        session: { ...session, tone: toneOf(session.status) },
        deliveries,
        refunds,
        remaining,
        remainingText: majorUnits(remaining, session.currency),
        confirmable: session.status === 'pending_review',
        refundable: session.status === 'completed' && remaining > 0,
        ...extra,
      },
    });
  };

  router.get('/checkouts/:id', (req, res) => checkoutPage(req, res, { status: 200 }));

  post('/checkouts/:id/confirm', async (req, res) => {
    const session = await services.checkoutSessions.confirm(identityOf(req).auth, String(req.params.id));
    res.redirect(303, `${req.baseUrl}/checkouts/${session.id}?notice=confirmed`);
  });

  // The amount is typed in the currency's whole units (12.50), as the page shows money; empty refunds what is left.
  // The form says how much was refunded when it was shown: sent twice, it refunds once (no Idempotency-Key here).
  post('/checkouts/:id/refund', async (req, res) => {
    const { auth } = identityOf(req);
    const id = String(req.params.id);
    const session = await services.checkoutSessions.retrieve(auth, id);
    const refundedBefore = Number(formField(req, 'refundedBefore'));
    if (!Number.isSafeInteger(refundedBefore) || refundedBefore < 0) throw new AppError('VALIDATION_ERROR', 'refundedBefore: the form is incomplete; open the page again');
    const form = { amount: (formField(req, 'amount') ?? '').trim(), reason: (formField(req, 'reason') ?? '').trim() };
    const amount = form.amount === '' ? undefined : smallestUnits(form.amount, session.currency);
    if (amount === null) return checkoutPage(req, res, { status: 400, form, fieldErrors: { amount: `Type an amount like ${majorUnits(session.amount, session.currency)}` } });
    const parsed = RefundCheckoutSessionBody.safeParse({ ...(amount === undefined ? {} : { amount }), ...(form.reason ? { reason: form.reason } : {}) });
    if (!parsed.success) {
      const fieldErrors = Object.fromEntries(parsed.error.issues.map((issue) => [String(issue.path[0]), issue.message]));
      return checkoutPage(req, res, { status: 400, form, fieldErrors });
    }
    try {
      await services.checkoutSessions.refund(auth, id, parsed.data, undefined, { refundedAmount: refundedBefore });
    } catch (err) {
      // A refusal about the amount (more than is left), or a form sent again after its refund, is shown beside the field.
      if (err instanceof AppError && err.code === 'VALIDATION_ERROR') return checkoutPage(req, res, { status: 400, form, fieldErrors: { amount: err.message } });
      if (err instanceof AppError && err.code === 'INVALID_STATE') return checkoutPage(req, res, { status: 409, form, fieldErrors: { amount: err.message } });
      throw err;
    }
    res.redirect(303, `${req.baseUrl}/checkouts/${id}?notice=refunded`);
  });

  const keysPage = async (
    req: Request,
    res: Response,
    extra: { status: number; minted?: { name: string; value: string; oldValueExpiresAt?: string }; form?: Record<string, string>; fieldErrors?: Record<string, string> },
  ) => {
    const { auth } = identityOf(req);
    const keys = await services.apiKeys.list(auth, { limit: 100 });
    const overlap = durationText(config.API_KEY_ROTATION_OVERLAP);
    page(req, res, { status: extra.status, title: 'API keys', active: 'api-keys', body: BODIES.apiKeys, context: { keys: keys.data, overlap, ...extra } });
  };

  router.get('/developers/api-keys', (req, res) => keysPage(req, res, { status: 200 }));

  // The new key's value is in this one response, never in a redirect's URL or the session.
  post('/developers/api-keys', async (req, res) => {
    const { auth } = identityOf(req);
    const input = { name: formField(req, 'name') ?? '', environment: auth.environment, access: formField(req, 'access') ?? 'secret' };
    const parsed = CreateApiKeyBody.safeParse(input);
    if (!parsed.success) {
      const fieldErrors = Object.fromEntries(parsed.error.issues.map((issue) => [String(issue.path[0]), issue.message]));
      return keysPage(req, res, { status: 400, form: { name: input.name, access: input.access }, fieldErrors });
    }
    const created = await services.apiKeys.create(auth, parsed.data);
    await keysPage(req, res, { status: 201, minted: { name: created.name, value: created.value } });
  });

  // Rotation (document 1: dashboard only): the new value is in this one response, like a new key's.
  post('/developers/api-keys/:id/rotate', async (req, res) => {
    const { rotated, created } = await services.apiKeys.rotate(identityOf(req).auth, String(req.params.id));
    await keysPage(req, res, { status: 201, minted: { name: created.name, value: created.value, oldValueExpiresAt: rotated.expiresAt! } });
  });

  post('/developers/api-keys/:id/revoke', async (req, res) => {
    await services.apiKeys.revoke(identityOf(req).auth, String(req.params.id));
    res.redirect(303, `${req.baseUrl}/developers/api-keys?notice=revoked`);
  });

  router.get('/developers/webhooks', async (req, res) => {
    const endpoints = await services.webhookEndpoints.list(identityOf(req).auth, { limit: 100 });
    page(req, res, { status: 200, title: 'Webhooks', active: 'webhooks', body: BODIES.webhooks, context: { endpoints: endpoints.data } });
  });

  post('/developers/webhooks/:id/test', async (req, res) => {
    await services.webhookEndpoints.sendTest(identityOf(req).auth, String(req.params.id), {});
    res.redirect(303, `${req.baseUrl}/developers/webhooks?notice=test-sent`);
  });

  router.get('/deliveries', async (req, res) => {
    const deliveries = await services.deliveries.list(identityOf(req).auth);
    const rows = deliveries.slice(0, 200).map((d) => ({ ...d, order: d.checkoutSessionId ?? 'manual order' }));
    page(req, res, { status: 200, title: 'Deliveries', active: 'deliveries', body: BODIES.deliveries, context: { deliveries: rows } });
  });

  post('/deliveries/:id/resend', async (req, res) => {
    await services.deliveries.resendEmail(identityOf(req).auth, String(req.params.id));
    res.redirect(303, `${req.baseUrl}/deliveries?notice=resent`);
  });

  router.get('/account', (req, res) => {
    page(req, res, { status: 200, title: 'Sessions', active: 'account', body: BODIES.account, context: { expiresAt: identityOf(req).expiresAt } });
  });

  mountMoneyPages({ router, services, page, post });

  router.use((req, res) => messagePage(req, res, 404, 'Not found', 'There is nothing at this address in the dashboard, or it belongs to another workspace.'));
  router.use(dashboardErrors);
  return router;
}

const toneOf = (status: CheckoutStatus) => (status === 'completed' ? 'good' : status === 'expired' || status === 'failed' ? 'bad' : 'wait');

/** A configured duration in words: `24 hours`, `90 minutes`, `3 seconds`. */
function durationText(ms: number): string {
  const [count, unit] = ms % 3_600_000 === 0 ? [ms / 3_600_000, 'hour'] : ms % 60_000 === 0 ? [ms / 60_000, 'minute'] : [Math.round(ms / 1000), 'second'];
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

function messagePage(req: Request, res: Response, status: number, heading: string, message: string): void {
  sendDashboardPage(res, { status, title: heading, base: req.baseUrl, identity: req.dashboard, body: BODIES.message, context: { heading, message } });
}

const HEADINGS: Record<number, string> = {
  400: 'Request not understood',
  401: 'Signed out',
  403: 'Form refused',
  404: 'Not found',
  405: 'Not allowed',
  409: 'Not possible now',
  413: 'Request too large',
  429: 'Too many requests',
};

/**
 * Errors as dashboard pages: a refusal of ours says why (its message is our own text, escaped like everything);
 * another workspace's id is the same 404 as a missing one; anything unknown is logged and a plain 500 page.
 */
const dashboardErrors: ErrorRequestHandler = (err, req, res, _next) => {
  const transportStatus = (err as { status?: unknown }).status;
  const status = err instanceof AppError ? httpStatusOf(err) : typeof transportStatus === 'number' && transportStatus >= 400 && transportStatus < 500 ? transportStatus : 500;
  if (status >= 500) req.log.error({ err }, 'dashboard page failed');
  if (res.headersSent) {
    res.end();
    return;
  }
  if (status === 401) return res.redirect(303, `${req.baseUrl}/login`);
  const heading = err instanceof AppError && err.code === 'QUOTA_EXCEEDED' ? 'Plan limit reached' : (HEADINGS[status] ?? 'Something went wrong');
  const message =
    status === 404
      ? 'There is nothing at this address in the dashboard, or it belongs to another workspace.'
      : err instanceof AppError && status < 500
        ? err.message
        : 'The dashboard could not do that just now. Please try again in a moment.';
  messagePage(req, res, status, heading, message);
};

