import { randomBytes } from 'node:crypto';
import type { Response } from 'express';
import Handlebars from 'handlebars';
import type { HostedCheckoutView, HostedPageMerchant, ReceiptItem } from '../../../domain/checkout/hosted-page';
import type { PaymentMethod } from '../../../db/models';
import { formatAmount, type MoneyCurrency } from '../../../lib/money';
import { checkoutPageContentSecurityPolicy } from '../../middleware/security-headers';
import { STYLESHEET } from './assets';
import { COMPLETED, EXPIRED, FAILED, LAYOUT, MESSAGE, OPEN, PARTIALS, PENDING } from './templates';

/** How each payment method value reads on the page (docs/decisions/checkout.md names the values). */
export const METHOD_LABELS: Record<PaymentMethod, string> = {
  qris: 'QRIS',
  va: 'Bank transfer (virtual account)',
  card: 'Card',
  ewallet: 'E-wallet',
  intl_wallet: 'International wallet',
};

const DATE = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

/** One engine, escaping every `{{value}}`, with the same helpers as the e-mails (lib/email/render.ts). */
function createEngine() {
  const engine = Handlebars.create();
  engine.registerHelper('money', (amount: number, currency: MoneyCurrency) => formatAmount(amount, currency));
  // Without JavaScript the buyer's time zone is unknown: dates are shown in UTC and say so.
  engine.registerHelper('date', (value: Date) => `${DATE.format(value)} UTC`);
  // Multi-line merchant text: each line escaped, joined with <br>.
  engine.registerHelper('lines', (value: string) => new engine.SafeString(value.split(/\r?\n/).map((line) => engine.escapeExpression(line)).join('<br>')));
  for (const [name, source] of Object.entries(PARTIALS)) engine.registerPartial(name, source);
  return engine;
}

const engine = createEngine();
const compile = (source: string) => engine.compile(source);
const layout = compile(LAYOUT);
const bodies = {
  open: compile(OPEN),
  pending_review: compile(PENDING),
  completed: compile(COMPLETED),
  expired: compile(EXPIRED),
  failed: compile(FAILED),
  message: compile(MESSAGE),
};

/** White or near-black text on the merchant's colour, whichever reads better (WCAG relative luminance). */
function textColorOn(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return luminance > 0.179 ? '#18181b' : '#ffffff';
}

interface Frame {
  status: number;
  title: string;
  /** The mount path of the pages (`/checkout`), so links stay on the host and prefix the buyer used. */
  base: string;
  merchant?: HostedPageMerchant;
  testMode?: boolean;
  sessionId?: string;
  notice?: string;
  body: string;
}

function send(res: Response, frame: Frame): void {
  const nonce = randomBytes(16).toString('base64');
  const brandColor = frame.merchant?.brandColor;
  // Only validated `#rrggbb` values reach this block, so it cannot carry anything but two colours.
  const brandStyle = brandColor ? `:root{--brand:${brandColor};--brand-text:${textColorOn(brandColor)}}` : null;
  const logoUrl = frame.merchant?.logoUrl;
  res
    .status(frame.status)
    .set({
      'Content-Security-Policy': checkoutPageContentSecurityPolicy({ nonce, imageOrigins: logoUrl ? [new URL(logoUrl).origin] : [] }),
      // Every state is read from the database on each load, and a receipt holds licence keys and download links.
      'Cache-Control': 'no-store',
      // Referrers go to this origin only (so a form post keeps a real Origin header), never to the merchant's sites.
      'Referrer-Policy': 'same-origin',
    })
    .type('html')
    .send(layout({ ...frame, stylesheet: STYLESHEET, nonce, brandStyle }));
}

function methodsOf(view: HostedCheckoutView) {
  return view.paymentMethods.map((value, index) => ({ value, label: METHOD_LABELS[value], checked: index === 0 }));
}

function receiptContext(view: HostedCheckoutView) {
  const items = view.receipt?.items ?? [];
  const of = <K extends ReceiptItem['kind']>(...kinds: K[]) => items.filter((item): item is Extract<ReceiptItem, { kind: K }> => (kinds as string[]).includes(item.kind));
  return {
    ready: view.receipt?.ready ?? false,
    completedAt: view.receipt?.completedAt,
    downloads: of('download', 'download_unavailable'),
    licenses: of('license'),
    others: of('shipment', 'manual').map((item) => ({ lineName: item.lineName, note: item.kind === 'shipment' ? 'Shipped to your address.' : 'Delivered by the merchant directly.' })),
  };
}

const TITLES: Record<HostedCheckoutView['state'], string> = {
  open: 'Checkout',
  pending_review: 'Awaiting confirmation',
  completed: 'Receipt',
  expired: 'Checkout expired',
  failed: 'Checkout not completed',
};

/** The page of one session in its current state; `notice` explains a refused pay. */
export function renderSession(res: Response, base: string, view: HostedCheckoutView, { status = 200, notice }: { status?: number; notice?: string } = {}): void {
  const methods = methodsOf(view);
  const transfer = view.transfer;
  const context = {
    ...view,
    base,
    lines: view.lines.map((line) => ({ ...line, showQuantity: line.quantity !== 1 })),
    methods,
    singleMethod: methods.length === 1 ? methods[0] : null,
    methodLabel: view.paymentMethod ? METHOD_LABELS[view.paymentMethod] : null,
    hasTransferDetails: Boolean(transfer && (transfer.bankName || transfer.accountNumber || transfer.instructions)),
    ...receiptContext(view),
  };
  send(res, {
    status,
    title: TITLES[view.state],
    base,
    merchant: view.merchant,
    testMode: view.testMode,
    sessionId: view.id,
    notice,
    body: bodies[view.state](context),
  });
}

/** A page without a session: unknown id, a refused request, a failure. */
export function renderMessage(res: Response, base: string, { status, heading, message }: { status: number; heading: string; message: string }): void {
  send(res, { status, title: heading, base, body: bodies.message({ heading, message }) });
}
