import { randomBytes } from 'node:crypto';
import type { Response } from 'express';
import Handlebars from 'handlebars';
import type { PageMerchant } from '../../../domain/storefront';
import { formatAmount, type MoneyCurrency } from '../../../lib/money';
import { checkoutPageContentSecurityPolicy } from '../../middleware/security-headers';
import { STYLESHEET } from './assets';
import { LAYOUT, MESSAGE } from './templates';

const DATE = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

/** One engine for every buyer page, escaping every `{{value}}`, with the same helpers as the e-mails (lib/email/render.ts). */
function createEngine() {
  const engine = Handlebars.create();
  engine.registerHelper('money', (amount: number, currency: MoneyCurrency) => formatAmount(amount, currency));
  // Without JavaScript the buyer's time zone is unknown: dates are shown in UTC and say so.
  engine.registerHelper('date', (value: Date) => `${DATE.format(value)} UTC`);
  // Multi-line merchant text: each line escaped, joined with <br>.
  engine.registerHelper('lines', (value: string) => new engine.SafeString(value.split(/\r?\n/).map((line) => engine.escapeExpression(line)).join('<br>')));
  return engine;
}

export const engine = createEngine();
const layout = engine.compile(LAYOUT);
const message = engine.compile(MESSAGE);

/** White or near-black text on the merchant's colour, whichever reads better (WCAG relative luminance). */
function textColorOn(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return luminance > 0.179 ? '#18181b' : '#ffffff';
}

/** Where a page is mounted and what its footer says: the same for every page of one kind. */
export interface PageKind {
  /** The mount path of the pages (`/checkout`, `/order`), so links stay on the host and prefix the buyer used. */
  base: string;
  /** The footer's word before the record's id ("Checkout", "Order"). */
  footer: string;
}

export interface Frame extends PageKind {
  status: number;
  title: string;
  merchant?: PageMerchant;
  testMode?: boolean;
  /** The id in the footer. */
  reference?: string;
  notice?: string;
  /** http(s) URLs of images in `body` beside the merchant's logo (already checked); their origins join the CSP. */
  images?: string[];
  /** Origins a form of this page may end up on besides this one (a payment provider's page, after a redirect). */
  formOrigins?: string[];
  body: string;
}

export function sendPage(res: Response, frame: Frame): void {
  const nonce = randomBytes(16).toString('base64');
  const brandColor = frame.merchant?.brandColor;
  // Only validated `#rrggbb` values reach this block, so it cannot carry anything but two colours.
  const brandStyle = brandColor ? `:root{--brand:${brandColor};--brand-text:${textColorOn(brandColor)}}` : null;
  const imageUrls = [frame.merchant?.logoUrl, ...(frame.images ?? [])].filter((url): url is string => !!url);
  const imageOrigins = [...new Set(imageUrls.map((url) => new URL(url).origin))];
  res
    .status(frame.status)
    .set({
      'Content-Security-Policy': checkoutPageContentSecurityPolicy({ nonce, imageOrigins, formOrigins: frame.formOrigins }),
      // Every state is read from the database on each load, and pages hold licence keys and download links.
      'Cache-Control': 'no-store',
      // Referrers go to this origin only (so a form post keeps a real Origin header), never to the merchant's sites.
      'Referrer-Policy': 'same-origin',
    })
    .type('html')
    .send(layout({ ...frame, stylesheet: STYLESHEET, nonce, brandStyle }));
}

/** A page without a record: an unknown id, a refused request, a failure. */
export function renderMessage(res: Response, kind: PageKind, { status, heading, message: text }: { status: number; heading: string; message: string }): void {
  sendPage(res, { ...kind, status, title: heading, body: message({ heading, message: text }) });
}
