import { createHash } from 'node:crypto';
import { ASSETS as BUYER_ASSETS, type PageAsset } from '../pages/shared/assets';

/**
 * The dashboard's stylesheet, served by this service under `/dashboard/assets/` (no third-party host, no script):
 * the buyer pages' palette and type, a merchant's working layout (navigation, tables, forms). Hashed in its name,
 * so it is cached for a year and a change is fetched at once.
 */
const CSS = `:root {
  --brand: #18181b;
  --text: #18181b;
  --muted: #71717a;
  --line: #e4e4e7;
  --page: #f4f4f5;
  --card: #ffffff;
  --test: #c2410c;
  --test-bg: #fff7ed;
  --live: #15803d;
  --danger: #b91c1c;
  --notice: #ecfdf5;
  --notice-text: #065f46;
  --error: #fef2f2;
  --error-text: #991b1b;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--text);
  background: var(--page);
  line-height: 1.5;
}
* { box-sizing: border-box; }
body { margin: 0; }
a { color: #1d4ed8; }
.mode { margin: 0; padding: 6px 24px; font-size: 13px; font-weight: 600; text-align: center; }
.mode.test { background: var(--test-bg); color: var(--test); border-bottom: 1px solid #fed7aa; }
.mode.live { background: #f0fdf4; color: var(--live); border-bottom: 1px solid #bbf7d0; }
.top { display: flex; flex-wrap: wrap; align-items: center; gap: 12px 20px; padding: 12px 24px; background: var(--card); border-bottom: 1px solid var(--line); }
.brand { font-weight: 700; font-size: 17px; margin-right: auto; overflow-wrap: anywhere; }
.top form { display: flex; align-items: center; gap: 6px; margin: 0; }
.top label { font-size: 13px; color: var(--muted); }
.top select { font: inherit; font-size: 14px; padding: 4px 6px; border: 1px solid var(--line); border-radius: 6px; background: var(--card); max-width: 180px; }
.user { font-size: 13px; color: var(--muted); max-width: 200px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.shell { display: flex; gap: 24px; max-width: 1200px; margin: 0 auto; padding: 24px; }
nav.side { flex: none; width: 190px; }
nav.side ul { list-style: none; margin: 0; padding: 0; }
nav.side li a { display: block; padding: 7px 12px; border-radius: 6px; color: var(--text); text-decoration: none; }
nav.side li a:hover { background: #e4e4e7; }
nav.side li a[aria-current="page"] { background: var(--brand); color: #ffffff; font-weight: 600; }
nav.side .group { margin: 14px 12px 4px; font-size: 12px; font-weight: 600; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
main { flex: 1; min-width: 0; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 10px; }
.lead { color: var(--muted); margin: 0 0 20px; }
.panel { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 18px 20px; margin-bottom: 20px; }
.panel > h1:first-child, .panel > h2:first-child { margin-top: 0; }
.nowrap { white-space: nowrap; }
.small { font-size: 12px; color: var(--muted); }
.chart-panel { margin: 0 0 16px; }
.chart-panel figcaption { font-size: 13px; color: var(--muted); margin-bottom: 8px; }
svg.chart { display: block; width: 100%; height: 180px; overflow: visible; }
svg.chart .bar { fill: #1d4ed8; }
svg.chart .bar:hover { fill: #1e3a8a; }
svg.chart .axis { stroke: #a1a1aa; stroke-width: 1; }
svg.chart .grid { stroke: var(--line); stroke-width: 1; stroke-dasharray: 4 4; }
.chart-max, .chart-days { margin: 0; font-size: 12px; color: var(--muted); font-variant-numeric: tabular-nums; }
.chart-max { margin-bottom: 4px; }
.chart-days { display: flex; justify-content: space-between; margin-top: 6px; }
@media (max-width: 760px) { svg.chart { height: 140px; } }
.facts { display: grid; grid-template-columns: repeat(auto-fit, minmax(180px, 1fr)); gap: 12px 20px; margin: 0 0 20px; }
.facts dt { color: var(--muted); font-size: 13px; }
.facts dd { margin: 2px 0 0; overflow-wrap: anywhere; }
.crumbs { margin: 0 0 6px; font-size: 14px; }
.mono-heading { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 20px; overflow-wrap: anywhere; }
.mono-heading .badge { font-family: system-ui, sans-serif; vertical-align: middle; }
.filter { margin-bottom: 14px; }
.table-wrap + .panel { margin-top: 20px; }
.button-row { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; margin: 0 0 16px; }
.button-row form { margin: 0; }
.panel .button-row { margin-bottom: 0; }
a.button.secondary { background: var(--card); color: var(--text); border-color: #d4d4d8; }
h3 { font-size: 15px; margin: 18px 0 8px; }
tr.total td, tr.total th { background: #fafafa; }
tr.total th { color: var(--text); font-size: 14px; }
.form-grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(220px, 1fr)); gap: 0 16px; align-items: start; }
.field-row { display: flex; flex-wrap: wrap; align-items: flex-start; gap: 0 16px; }
tbody tr:last-child th { border-bottom: 0; }
.field textarea { font: inherit; padding: 8px 10px; border: 1px solid #d4d4d8; border-radius: 7px; width: 100%; max-width: 420px; resize: vertical; }
.field textarea[aria-invalid="true"], .field select[aria-invalid="true"] { border-color: var(--danger); }
.timeline { list-style: none; margin: 0 0 20px; padding: 12px 20px; }
.timeline li { padding: 6px 0 6px 18px; border-left: 2px solid var(--line); position: relative; }
.timeline li::before { content: ""; position: absolute; left: -6px; top: 13px; width: 10px; height: 10px; border-radius: 50%; background: var(--brand); }
.timeline-what { font-weight: 600; margin-right: 6px; }
.show-narrow { display: none; }
th.num { text-align: right; }
td.url { min-width: 16ch; }
.stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(200px, 1fr)); gap: 16px; margin-bottom: 20px; }
.stat { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 16px 20px; }
.stat dt { color: var(--muted); font-size: 14px; }
.stat dd { margin: 4px 0 0; font-size: 22px; font-weight: 700; font-variant-numeric: tabular-nums; }
.table-wrap { overflow-x: auto; background: var(--card); border: 1px solid var(--line); border-radius: 10px; }
table { width: 100%; border-collapse: collapse; font-size: 14px; }
th, td { text-align: left; padding: 10px 14px; border-bottom: 1px solid var(--line); vertical-align: middle; }
th { font-weight: 600; color: var(--muted); font-size: 13px; background: #fafafa; }
tr:last-child td { border-bottom: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.actions { text-align: right; white-space: nowrap; }
td.actions form { display: inline; }
.mono, code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; overflow-wrap: anywhere; }
.empty { color: var(--muted); padding: 18px 14px; margin: 0; }
.badge { display: inline-block; padding: 1px 9px; border-radius: 999px; font-size: 12px; font-weight: 600; background: #f4f4f5; color: #3f3f46; white-space: nowrap; }
.badge.good { background: #dcfce7; color: #166534; }
.badge.bad { background: #fee2e2; color: #991b1b; }
.badge.wait { background: #fef3c7; color: #92400e; }
button, .button { display: inline-block; padding: 7px 14px; border: 1px solid var(--brand); border-radius: 7px; background: var(--brand); color: #ffffff; font: inherit; font-size: 14px; font-weight: 600; cursor: pointer; text-decoration: none; }
button.secondary { background: var(--card); color: var(--text); border-color: #d4d4d8; }
button.danger { background: var(--card); color: var(--danger); border-color: #fca5a5; }
button:focus-visible, a:focus-visible, select:focus-visible, input:focus-visible { outline: 2px solid #2563eb; outline-offset: 2px; }
.notice { background: var(--notice); color: var(--notice-text); padding: 10px 14px; border-radius: 8px; margin: 0 0 16px; }
.error { background: var(--error); color: var(--error-text); padding: 10px 14px; border-radius: 8px; margin: 0 0 16px; }
.field { display: grid; gap: 4px; margin-bottom: 14px; }
.field label { font-weight: 600; font-size: 14px; }
.field input, .field select { font: inherit; padding: 8px 10px; border: 1px solid #d4d4d8; border-radius: 7px; width: 100%; max-width: 420px; }
.field .field-error { color: var(--danger); font-size: 13px; }
.field input[aria-invalid="true"] { border-color: var(--danger); }
.inline-form { display: flex; flex-wrap: wrap; align-items: flex-end; gap: 12px; }
.inline-form .field { margin-bottom: 0; }
.secret { display: block; padding: 10px 12px; background: #fafafa; border: 1px dashed #a1a1aa; border-radius: 7px; user-select: all; overflow-wrap: anywhere; }
.tabs { display: flex; gap: 8px; margin: 0 0 14px; }
.tabs a { padding: 5px 12px; border-radius: 999px; border: 1px solid var(--line); background: var(--card); color: var(--text); text-decoration: none; font-size: 14px; }
.tabs a[aria-current="page"] { background: var(--brand); color: #ffffff; border-color: var(--brand); }
.actions-bar { margin: 0 0 14px; }
textarea:focus-visible, summary:focus-visible { outline: 2px solid #2563eb; outline-offset: 2px; }
.field select[multiple] { padding: 4px; }
.field-row .field { flex: 1 1 180px; max-width: 420px; align-content: start; }
.check { display: flex; align-items: center; gap: 8px; margin-bottom: 16px; }
.check input { width: 18px; height: 18px; margin: 0; }
fieldset.panel { min-width: 0; }
fieldset.panel legend { font-weight: 700; font-size: 17px; padding: 0 6px; margin-left: -6px; }
.file-list, .plain { list-style: none; margin: 0 0 14px; padding: 0; }
.file-list li { padding: 8px 0; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
.empty-inline { color: var(--muted); }
details.panel summary { cursor: pointer; font-weight: 600; }
.module { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 12px 24px; }
.module > div { flex: 1 1 320px; }
.module h2 { margin-top: 0; }
.module p { margin: 0; color: var(--muted); }
.signin { max-width: 400px; margin: 72px auto; padding: 0 16px; }
.signin .panel { padding: 28px; }
.signin h1 { margin-bottom: 18px; }
.signin .field input { max-width: none; }
.signin button { width: 100%; padding: 10px; }
.footer { max-width: 1200px; margin: 0 auto; padding: 0 24px 24px; color: var(--muted); font-size: 12px; }
.signin + .footer { text-align: center; }
.signout { display: flex; gap: 8px; }
@media (max-width: 760px) {
  .shell { flex-direction: column; padding: 16px; gap: 12px; }
  nav.side { width: auto; }
  nav.side ul { display: flex; flex-wrap: wrap; gap: 4px; }
  nav.side .group { display: none; }
  nav.side li a { padding: 5px 10px; border: 1px solid var(--line); background: var(--card); font-size: 14px; }
  .top { padding: 10px 16px; gap: 8px 10px; }
  .brand { width: 100%; }
  .user { order: 10; width: 100%; max-width: none; }
  .top form.switcher { width: 100%; }
  .top form.switcher select { flex: 1; min-width: 0; max-width: none; }
  th, td { padding: 8px 10px; }
  td.actions { padding-left: 4px; }
  .hide-narrow { display: none; }
  .show-narrow { display: block; }
  td.actions form { display: block; }
  td.actions form + form { margin-top: 6px; }
}
`;

const version = createHash('sha256').update(CSS).digest('hex').slice(0, 12);

/** The stylesheet's file name, `dashboard.<hash>.css`, as the layout links it. */
export const STYLESHEET = `dashboard.${version}.css`;

export const ASSETS: Record<string, PageAsset> = {
  [STYLESHEET]: { contentType: 'text/css; charset=utf-8', cacheControl: 'public, max-age=31536000, immutable', body: CSS },
  'favicon.svg': BUYER_ASSETS['favicon.svg']!,
};
