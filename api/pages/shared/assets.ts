import { createHash } from 'node:crypto';

/**
 * The buyer pages' static files (the hosted checkout page, the order page), served by this service itself (no
 * third-party host) under each page's mount. The stylesheet's name carries a hash of its content, so it can be
 * cached for a year and a change is fetched at once.
 */

const CSS = `:root {
  --brand: #18181b;
  --brand-text: #ffffff;
  --text: #18181b;
  --muted: #71717a;
  --line: #e4e4e7;
  --page: #f4f4f5;
  --card: #ffffff;
  --notice: #fef3c7;
  --notice-text: #78350f;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--text);
  background: var(--page);
  line-height: 1.5;
}
* { box-sizing: border-box; }
body { margin: 0; padding: 32px 16px; }
.card { max-width: 520px; margin: 0 auto; background: var(--card); border-radius: 12px; box-shadow: 0 1px 3px rgba(0, 0, 0, .08), 0 8px 24px rgba(0, 0, 0, .04); overflow: hidden; }
.merchant { display: flex; align-items: center; gap: 12px; padding: 20px 28px; background: var(--brand); color: var(--brand-text); }
.logo { height: 36px; max-width: 160px; object-fit: contain; }
.merchant-name { font-size: 18px; font-weight: 600; overflow-wrap: anywhere; }
.test-mode { margin: 0; padding: 6px 28px; background: #fff7ed; color: #9a3412; font-size: 13px; font-weight: 600; border-bottom: 1px solid #fed7aa; }
.content { padding: 24px 28px 28px; }
h1 { font-size: 22px; margin: 0 0 16px; }
h2 { font-size: 16px; margin: 24px 0 8px; }
p { margin: 0 0 16px; }
a { color: var(--brand); }
.muted, .footer { color: var(--muted); font-size: 14px; }
.summary { width: 100%; border-collapse: collapse; margin: 0 0 24px; font-variant-numeric: tabular-nums; }
.summary caption { text-align: left; font-weight: 600; padding-bottom: 8px; overflow-wrap: anywhere; }
.summary th { text-align: left; font-weight: 400; padding: 10px 0; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
.summary td { text-align: right; padding: 10px 0 10px 16px; border-bottom: 1px solid var(--line); white-space: nowrap; vertical-align: top; }
.summary tfoot th, .summary tfoot td { border-bottom: 0; }
.summary .subtotal th, .summary .subtotal td, .summary .discount th, .summary .discount td { color: var(--muted); padding: 6px 0; }
.summary .subtotal td, .summary .discount td { padding-left: 16px; }
.summary .total th, .summary .total td { font-weight: 700; font-size: 18px; padding-top: 12px; }
.quantity, .code { color: var(--muted); }
.methods { border: 0; margin: 0 0 20px; padding: 0; display: grid; gap: 8px; }
.methods legend { font-weight: 600; margin-bottom: 8px; padding: 0; }
.method { display: flex; align-items: center; gap: 10px; padding: 12px 14px; border: 1px solid var(--line); border-radius: 8px; cursor: pointer; }
.method:has(input:checked) { border-color: var(--brand); box-shadow: 0 0 0 1px var(--brand); }
.method input { accent-color: var(--brand); margin: 0; }
.button { display: inline-block; width: 100%; padding: 12px 16px; border: 0; border-radius: 8px; background: var(--brand); color: var(--brand-text); font: inherit; font-weight: 600; text-align: center; text-decoration: none; cursor: pointer; }
.button:hover { filter: brightness(1.1); }
.button:focus-visible, .method:focus-within { outline: 2px solid var(--brand); outline-offset: 2px; }
.pay { margin-bottom: 12px; }
.secondary { text-align: center; margin-top: 16px; }
.notice { background: var(--notice); color: var(--notice-text); padding: 12px 14px; border-radius: 8px; }
.transfer, .facts { margin: 0 0 20px; border: 1px solid var(--line); border-radius: 8px; }
.transfer div, .facts div { display: flex; justify-content: space-between; gap: 16px; padding: 10px 14px; border-bottom: 1px solid var(--line); }
.transfer div:last-child, .facts div:last-child { border-bottom: 0; }
.transfer dt, .facts dt { color: var(--muted); min-width: 0; overflow-wrap: anywhere; }
.transfer dd, .facts dd { margin: 0; min-width: 0; font-weight: 600; text-align: right; overflow-wrap: anywhere; }
.facts dd.amount { flex: none; white-space: nowrap; }
.copyable { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; user-select: all; }
.instructions { white-space: normal; overflow-wrap: anywhere; }
.qris { margin: 0 0 20px; text-align: center; }
.qris-code { display: block; width: 100%; max-width: 260px; height: auto; margin: 0 auto 8px; border: 1px solid var(--line); border-radius: 8px; background: #ffffff; }
.badge { display: inline-block; padding: 2px 10px; margin-right: 6px; border-radius: 999px; background: var(--notice); color: var(--notice-text); font-size: 13px; font-weight: 600; }
.deliveries { list-style: none; margin: 0 0 16px; padding: 0; }
.deliveries li { padding: 10px 0; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
.deliveries .muted, .license-key { display: block; }
.download { font-weight: 600; }
.license-key { width: fit-content; margin-top: 4px; padding: 4px 8px; background: var(--page); border-radius: 6px; font-size: 15px; letter-spacing: .03em; user-select: all; }
.badge.done { background: #dcfce7; color: #166534; }
.badge.stopped { background: #fee2e2; color: #991b1b; }
.item { display: flex; align-items: center; gap: 16px; margin: 0 0 20px; }
.thumbnail { width: 72px; height: 72px; flex: none; object-fit: cover; border-radius: 8px; background: var(--page); }
.item-name { margin: 0; font-weight: 600; font-size: 17px; overflow-wrap: anywhere; }
.item-detail { margin: 0; color: var(--muted); font-size: 14px; font-variant-numeric: tabular-nums; }
.footer { max-width: 520px; margin: 16px auto 0; text-align: center; font-size: 12px; }
.reference { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
/* Phones: a narrower frame, and each fact's value under its label, so an account number, a reference or a masked
   e-mail gets the card's whole width instead of half of it. */
@media (max-width: 480px) {
  body { padding: 16px 12px; }
  .merchant { padding: 16px 20px; }
  .test-mode { padding: 6px 20px; }
  .content { padding: 20px 20px 24px; }
  .transfer div, .facts div { flex-direction: column; gap: 2px; }
  .transfer dd, .facts dd { text-align: left; }
}
`;

const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#18181b"/><path d="M4 8.5l2.5 2.5L12 5.5" stroke="#fff" stroke-width="2" fill="none"/></svg>`;

const version = (content: string) => createHash('sha256').update(content).digest('hex').slice(0, 12);

export interface PageAsset {
  contentType: string;
  cacheControl: string;
  body: string;
}

/** The stylesheet's file name, `pages.<hash>.css`, as pages link it. */
export const STYLESHEET = `pages.${version(CSS)}.css`;

export const ASSETS: Record<string, PageAsset> = {
  [STYLESHEET]: { contentType: 'text/css; charset=utf-8', cacheControl: 'public, max-age=31536000, immutable', body: CSS },
  'favicon.svg': { contentType: 'image/svg+xml', cacheControl: 'public, max-age=86400', body: FAVICON },
};
