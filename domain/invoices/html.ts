import { createHash } from 'node:crypto';
import Handlebars from 'handlebars';
import type { InvoiceDocument } from './document';

const STYLESHEET = `
:root { color-scheme: light; }
body { margin: 0; background: #f4f4f5; color: #18181b; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 760px; margin: 32px auto; background: #fff; border: 1px solid #e4e4e7; border-radius: 8px; padding: 40px; }
header { display: flex; justify-content: space-between; gap: 24px; align-items: flex-start; }
h1 { font-size: 22px; margin: 0; overflow-wrap: anywhere; }
.title { text-align: right; }
.title strong { font-size: 22px; letter-spacing: .04em; }
.muted { color: #52525b; }
.test-mode { color: #9a3412; font-weight: 600; }
.parties { display: flex; justify-content: space-between; gap: 24px; margin: 32px 0; }
.parties p { margin: 0; overflow-wrap: anywhere; }
dl { display: grid; grid-template-columns: auto auto; gap: 2px 16px; margin: 0; }
dt { font-weight: 600; }
dd { margin: 0; text-align: right; }
table { width: 100%; border-collapse: collapse; }
th, td { padding: 8px 0 8px 16px; text-align: right; vertical-align: top; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; overflow-wrap: anywhere; white-space: normal; padding-left: 0; }
thead th { border-bottom: 1px solid #d4d4d8; }
tbody td { border-bottom: 1px solid #f4f4f5; }
.totals { margin-left: auto; width: 320px; margin-top: 16px; }
.totals th, .totals td { border: 0; padding-top: 4px; padding-bottom: 4px; }
.totals .total th, .totals .total td { font-weight: 700; font-size: 17px; border-top: 1px solid #d4d4d8; }
.memo { white-space: pre-line; margin-top: 32px; overflow-wrap: anywhere; }
.pay { margin-top: 32px; }
.pay a { display: inline-block; background: #18181b; color: #fff; padding: 10px 18px; border-radius: 6px; text-decoration: none; font-weight: 600; }
`;

/** The one inline stylesheet, allowed by its hash: the page needs no nonce, and nothing else may style or run. */
const STYLE_HASH = `sha256-${createHash('sha256').update(STYLESHEET).digest('base64')}`;

/**
 * The HTML invoice's CSP, replacing the API's: no script, no request of any kind (images, fonts, frames, forms),
 * the one stylesheet by hash, no framing by other sites. Links still work (navigation is not a fetch).
 */
export const INVOICE_HTML_CSP = [
  "default-src 'none'",
  "script-src 'none'",
  `style-src '${STYLE_HASH}'`,
  "img-src 'none'",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TEMPLATE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Invoice {{number}} · {{merchantName}}</title>
<style>{{{stylesheet}}}</style>
</head>
<body>
<main>
  <header>
    <h1>{{merchantName}}</h1>
    <div class="title">
      <strong>INVOICE</strong>
      <div class="muted">{{number}} · {{statusLabel}}</div>
      {{#if testMode}}<div class="test-mode">TEST MODE</div>{{/if}}
    </div>
  </header>
  <section class="parties">
    <div>
      <p><strong>Bill to</strong></p>
      {{#if customer}}
        {{#if customer.name}}<p>{{customer.name}}</p>{{/if}}
        {{#if customer.email}}<p class="muted">{{customer.email}}</p>{{/if}}
      {{else}}<p>—</p>{{/if}}
    </div>
    <dl>
      {{#each dates}}<dt>{{label}}</dt><dd>{{value}}</dd>{{/each}}
    </dl>
  </section>
  <table>
    <thead><tr><th scope="col">Description</th><th scope="col">Qty</th><th scope="col">Unit price</th><th scope="col">Amount</th></tr></thead>
    <tbody>
      {{#each lines}}<tr><td>{{description}}</td><td>{{quantity}}</td><td>{{unitAmount}}</td><td>{{amount}}</td></tr>
      {{/each}}
    </tbody>
  </table>
  <table class="totals">
    <tr><th scope="row">Subtotal</th><td>{{subtotal}}</td></tr>
    <tr><th scope="row">Tax</th><td>{{tax}}</td></tr>
    <tr class="total"><th scope="row">Total ({{currency}})</th><td>{{total}}</td></tr>
  </table>
  {{#if memo}}<p class="memo muted">{{memo}}</p>{{/if}}
  {{#if payUrl}}<p class="pay"><a href="{{payUrl}}" rel="noopener noreferrer">Pay online</a></p>{{/if}}
</main>
</body>
</html>
`;

// Its own engine: `{{value}}` escapes every value; only the stylesheet (a constant of this file) is inserted raw.
const render = Handlebars.create().compile(TEMPLATE, { strict: true });

/** The invoice as a standalone HTML page (server-rendered, escaped, no script), served with INVOICE_HTML_CSP. */
export function renderInvoiceHtml(document: InvoiceDocument): string {
  return render({ ...document, stylesheet: STYLESHEET });
}
