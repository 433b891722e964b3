import Handlebars from 'handlebars';
import { formatAmount, type MoneyCurrency } from '../money';
import type { EmailData, EmailKind } from './kinds';
import { HTML_LAYOUT, TEMPLATES, TEXT_LAYOUT } from './templates';

/** The merchant as its e-mails show it (storefront settings); the renderer drops a colour or logo it cannot trust. */
export interface EmailMerchant {
  name: string;
  brandColor: string | null;
  logoUrl: string | null;
  manualPayment: { bankName: string | null; accountNumber: string | null; accountHolder: string | null; instructions: string | null };
}

export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

const DEFAULT_BRAND_COLOR = '#18181b';
const COLOR = /^#[0-9a-fA-F]{6}$/;

function httpUrlOrNull(value: string | null): string | null {
  if (!value) return null;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol) ? value : null;
  } catch {
    return null;
  }
}

/** One engine per output: `html` escapes every `{{value}}`, `text` (subject and plain part) does not. */
function createEngine() {
  const engine = Handlebars.create();
  engine.registerHelper('money', (amount: number, currency: MoneyCurrency) => formatAmount(amount, currency));
  // Multi-line merchant text in HTML: each line escaped, joined with <br>.
  engine.registerHelper('lines', (value: string) => new engine.SafeString(value.split(/\r?\n/).map((line) => engine.escapeExpression(line)).join('<br>')));
  return engine;
}

const engine = createEngine();
type Compiled = (context: object) => string;
const compileHtml = (source: string): Compiled => engine.compile(source);
const compileText = (source: string): Compiled => engine.compile(source, { noEscape: true });

const compiled = Object.fromEntries(
  Object.entries(TEMPLATES).map(([kind, t]) => [kind, { subject: compileText(t.subject), html: compileHtml(t.html), text: compileText(t.text) }]),
) as Record<EmailKind, { subject: Compiled; html: Compiled; text: Compiled }>;
const htmlLayout = compileHtml(HTML_LAYOUT);
const textLayout = compileText(TEXT_LAYOUT);

/** Subject, HTML and plain-text parts of one e-mail; `data` must have been checked by `parseEmailData`. */
export function renderEmail<K extends EmailKind>(kind: K, data: EmailData<K>, merchant: EmailMerchant): RenderedEmail {
  const safeMerchant = {
    ...merchant,
    brandColor: merchant.brandColor && COLOR.test(merchant.brandColor) ? merchant.brandColor : DEFAULT_BRAND_COLOR,
    logoUrl: httpUrlOrNull(merchant.logoUrl),
  };
  const context = { ...data, merchant: safeMerchant };
  const template = compiled[kind];
  // A header is one line: a merchant name with a line break must not split it.
  const subject = template.subject(context).replace(/\s+/g, ' ').trim();
  return {
    subject,
    html: htmlLayout({ subject, merchant: safeMerchant, body: template.html(context) }),
    text: textLayout({ merchant: safeMerchant, body: template.text(context).trim() }),
  };
}
