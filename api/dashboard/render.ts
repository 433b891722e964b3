import { randomBytes } from 'node:crypto';
import type { Response } from 'express';
import type { DashboardIdentity } from '../../domain/users';
import { checkoutPageContentSecurityPolicy } from '../middleware/security-headers';
import { engine } from '../pages/shared/render';
import { STYLESHEET } from './assets';
import { ACCOUNT, API_KEYS, CHECKOUT, CHECKOUTS, DELIVERIES, LAYOUT, LOGIN, MESSAGE, OVERVIEW, PARTIALS, PRODUCTS, WEBHOOKS } from './templates';

const DATE = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

// The buyer pages' engine (escaping, `money`), with what the dashboard's templates add.
engine.registerHelper('eq', (a: unknown, b: unknown) => a === b);
// DTO timestamps are ISO strings; without JavaScript the reader's time zone is unknown, so UTC, said.
engine.registerHelper('when', (iso: string | Date) => `${DATE.format(new Date(iso))} UTC`);
for (const [name, source] of Object.entries(PARTIALS)) engine.registerPartial(name, source);

/** Markup drawn by our own code with every text escaped (the sales chart), passed through a template as it is. */
export const drawnHere = (html: string) => new engine.SafeString(html);

const layout = engine.compile(LAYOUT);
export const BODIES = {
  login: engine.compile(LOGIN),
  message: engine.compile(MESSAGE),
  overview: engine.compile(OVERVIEW),
  products: engine.compile(PRODUCTS),
  checkouts: engine.compile(CHECKOUTS),
  checkout: engine.compile(CHECKOUT),
  apiKeys: engine.compile(API_KEYS),
  webhooks: engine.compile(WEBHOOKS),
  deliveries: engine.compile(DELIVERIES),
  account: engine.compile(ACCOUNT),
};

export type Active = 'overview' | 'checkouts' | 'products' | 'deliveries' | 'api-keys' | 'webhooks' | 'account' | 'customers' | 'subscriptions' | 'invoices' | 'payouts' | 'manual-orders';

export interface DashboardFrame {
  status: number;
  title: string;
  base: string;
  identity?: DashboardIdentity | null;
  active?: PageName;
  notice?: string;
  error?: string;
  /** The body template and its own values (`base`, `identity` and `modeLabel` are added). */
  body: (context: Record<string, unknown>) => string;
  context?: Record<string, unknown>;
}

/** Every page the navigation can mark as the current one. */
export type PageName = Active | 'modules' | 'storefront';

const modeLabelOf = (identity: DashboardIdentity | null | undefined) => (identity ? (identity.environment === 'live' ? 'live mode' : 'test mode') : '');

/**
 * Sends a dashboard page: the buyer pages' CSP (no script at all; styles from our stylesheet only; forms post only
 * here), never cached, never framed. Every signed-in page says which workspace and which mode it shows.
 */
export function sendDashboardPage(res: Response, frame: DashboardFrame): void {
  const identity = frame.identity ?? null;
  const shared = { base: frame.base, identity, modeLabel: modeLabelOf(identity) };
  const body = frame.body({ ...shared, ...(frame.context ?? {}) });
  res
    .status(frame.status)
    .set({
      'Content-Security-Policy': checkoutPageContentSecurityPolicy({ nonce: randomBytes(16).toString('base64'), imageOrigins: [] }),
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'same-origin',
    })
    .type('html')
    .send(
      layout({
        ...shared,
        title: frame.title,
        active: frame.active,
        notice: frame.notice,
        error: frame.error,
        stylesheet: STYLESHEET,
        live: identity?.environment === 'live',
        otherMode: identity?.environment === 'live' ? 'test' : 'live',
        switchable: (identity?.workspaces.length ?? 0) > 1,
        body,
      }),
    );
}
