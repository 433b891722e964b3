/**
 * The dashboard's Handlebars templates, rendered by the buyer pages' engine (api/pages/shared/render.ts):
 * `{{value}}` escapes everything merchants, buyers and API clients wrote; `{{{body}}}` is only the page body the
 * same engine rendered. No script, no inline handler, no style attribute: the CSP allows none. Every form posts
 * back to `/dashboard` with the session's CSRF token (`csrf` partial).
 */

export const PARTIALS = {
  dashboardCsrf: `<input type="hidden" name="_csrf" value="{{csrf}}">`,
  checkoutRows: `{{#if checkouts.length}}<table>
<thead><tr><th scope="col">Checkout</th><th scope="col">Status</th><th scope="col" class="hide-narrow">Customer</th><th scope="col">Amount</th><th scope="col" class="hide-narrow">Created</th></tr></thead>
<tbody>
{{#each checkouts}}<tr><td class="mono"><a href="{{../base}}/checkouts/{{id}}">{{id}}</a></td><td><span class="badge {{tone}}">{{status}}</span></td><td class="hide-narrow">{{customerEmail}}</td><td class="num">{{money amount currency}}</td><td class="hide-narrow">{{when createdAt}}</td></tr>
{{/each}}</tbody>
</table>
{{else}}<p class="empty">No checkouts{{#if filter}} {{filter}}{{/if}} yet in {{modeLabel}}.</p>
{{/if}}`,
};

export const LAYOUT = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex,nofollow">
<title>{{title}}{{#if identity}} · {{identity.workspace.name}} ({{modeLabel}}){{/if}} · Dashboard</title>
<link rel="icon" href="{{base}}/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="{{base}}/assets/{{stylesheet}}">
</head>
<body>
{{#if identity}}<p class="mode {{identity.environment}}" role="status">{{#if live}}Live mode: real customers and money.{{else}}Test mode: you are viewing test data.{{/if}}</p>
<header class="top">
<span class="brand">{{identity.workspace.name}}</span>
{{#if switchable}}<form class="switcher" method="post" action="{{base}}/workspace">{{> dashboardCsrf csrf=identity.csrfToken}}
<label for="workspace-switch">Workspace</label>
<select id="workspace-switch" name="accountId">{{#each identity.workspaces}}<option value="{{id}}"{{#if (eq id ../identity.workspace.id)}} selected{{/if}}>{{name}}</option>{{/each}}</select>
<button class="secondary" type="submit">Switch</button>
</form>
{{/if}}<form method="post" action="{{base}}/mode">{{> dashboardCsrf csrf=identity.csrfToken}}
<input type="hidden" name="environment" value="{{otherMode}}">
<button class="secondary" type="submit">View {{otherMode}} data</button>
</form>
<span class="user" title="{{identity.email}} · {{identity.role}}">{{identity.email}} · {{identity.role}}</span>
<form method="post" action="{{base}}/logout">{{> dashboardCsrf csrf=identity.csrfToken}}<button class="secondary" type="submit">Sign out</button></form>
</header>
<div class="shell">
<nav class="side" aria-label="Dashboard">
<ul>
<li><a href="{{base}}"{{#if (eq active "overview")}} aria-current="page"{{/if}}>Overview</a></li>
<li><a href="{{base}}/checkouts"{{#if (eq active "checkouts")}} aria-current="page"{{/if}}>Checkouts</a></li>
<li><a href="{{base}}/manual-orders"{{#if (eq active "manual-orders")}} aria-current="page"{{/if}}>Manual orders</a></li>
<li><a href="{{base}}/products"{{#if (eq active "products")}} aria-current="page"{{/if}}>Products</a></li>
<li><a href="{{base}}/deliveries"{{#if (eq active "deliveries")}} aria-current="page"{{/if}}>Deliveries</a></li>
<li class="group">Billing</li>
<li><a href="{{base}}/customers"{{#if (eq active "customers")}} aria-current="page"{{/if}}>Customers</a></li>
<li><a href="{{base}}/subscriptions"{{#if (eq active "subscriptions")}} aria-current="page"{{/if}}>Subscriptions</a></li>
<li><a href="{{base}}/invoices"{{#if (eq active "invoices")}} aria-current="page"{{/if}}>Invoices</a></li>
<li><a href="{{base}}/payouts"{{#if (eq active "payouts")}} aria-current="page"{{/if}}>Payouts</a></li>
<li class="group">Developers</li>
<li><a href="{{base}}/developers/api-keys"{{#if (eq active "api-keys")}} aria-current="page"{{/if}}>API keys</a></li>
<li><a href="{{base}}/developers/webhooks"{{#if (eq active "webhooks")}} aria-current="page"{{/if}}>Webhooks</a></li>
<li><a href="{{base}}/developers/modules"{{#if (eq active "modules")}} aria-current="page"{{/if}}>Modules</a></li>
<li class="group">Settings</li>
<li><a href="{{base}}/settings/storefront"{{#if (eq active "storefront")}} aria-current="page"{{/if}}>Storefront</a></li>
<li class="group">Account</li>
<li><a href="{{base}}/account"{{#if (eq active "account")}} aria-current="page"{{/if}}>Sessions</a></li>
</ul>
</nav>
<main>
{{#if notice}}<p class="notice" role="status">{{notice}}</p>
{{/if}}{{#if error}}<p class="error" role="alert">{{error}}</p>
{{/if}}{{{body}}}
</main>
</div>
{{else}}<main class="signin">
{{#if notice}}<p class="notice" role="status">{{notice}}</p>
{{/if}}{{#if error}}<p class="error" role="alert">{{error}}</p>
{{/if}}{{{body}}}
</main>
{{/if}}<footer class="footer">Commerce dashboard{{#if identity}} · {{identity.workspace.id}} · {{modeLabel}}{{/if}}</footer>
</body>
</html>
`;

export const LOGIN = `<div class="panel">
<h1>Sign in to the dashboard</h1>
<form method="post" action="{{base}}/login" novalidate>
<input type="hidden" name="_csrf" value="{{csrf}}">
<div class="field"><label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="username" required value="{{email}}"{{#if failed}} aria-invalid="true" aria-describedby="signin-error"{{/if}}></div>
<div class="field"><label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required{{#if failed}} aria-invalid="true" aria-describedby="signin-error"{{/if}}>
{{#if failed}}<span class="field-error" id="signin-error">{{failed}}</span>{{/if}}</div>
<button type="submit">Sign in</button>
</form>
</div>`;

export const MESSAGE = `<h1>{{heading}}</h1>
<p class="lead">{{message}}</p>
<p><a href="{{base}}">Back to the dashboard</a></p>`;

export const OVERVIEW = `<h1>Overview</h1>
<p class="lead">Balances, sales and the latest checkouts of {{identity.workspace.name}}, {{modeLabel}}.</p>
<dl class="stats">
{{#each balances}}<div class="stat"><dt>Available ({{currency}})</dt><dd>{{money available currency}}</dd></div>
<div class="stat"><dt>Pending ({{currency}})</dt><dd>{{money pending currency}}</dd></div>
{{/each}}</dl>
<h2>Sales, last 30 days</h2>
{{#if charts.length}}{{#each charts}}<figure class="panel chart-panel">
<figcaption>Completed checkouts per day ({{currency}}, UTC days)</figcaption>
{{svg}}
</figure>
{{/each}}{{else}}<p class="panel empty">No completed checkouts in the last 30 days in {{modeLabel}}.</p>
{{/if}}<h2>Recent checkouts</h2>
<div class="table-wrap">
{{> checkoutRows}}
</div>
<p><a href="{{base}}/checkouts">All checkouts</a></p>`;

export const CHECKOUTS = `<h1>Checkouts</h1>
<p class="lead">Checkout sessions of {{identity.workspace.name}}, newest first, {{modeLabel}}. Open one to see its lines, deliveries and refunds, to confirm a transfer or to refund.</p>
<form class="inline-form filter" method="get" action="{{base}}/checkouts">
<div class="field"><label for="status-filter">Status</label>
<select id="status-filter" name="status"><option value="">Any status</option>{{#each statuses}}<option value="{{this}}"{{#if (eq this ../filter)}} selected{{/if}}>{{this}}</option>{{/each}}</select></div>
<button type="submit" class="secondary">Filter</button>
</form>
<div class="table-wrap">
{{> checkoutRows}}
</div>
{{#if nextCursor}}<p><a href="{{base}}/checkouts?{{#if filter}}status={{filter}}&amp;{{/if}}cursor={{nextCursor}}">Next page</a></p>{{/if}}`;

export const CHECKOUT = `<p class="crumbs"><a href="{{base}}/checkouts">Checkouts</a></p>
<h1 class="mono-heading">{{session.id}} <span class="badge {{session.tone}}">{{session.status}}</span></h1>
<p class="lead">{{#if session.description}}{{session.description}} · {{/if}}{{money session.amount session.currency}} · created {{when session.createdAt}}</p>
<dl class="facts panel">
<div><dt>Customer</dt><dd>{{#if session.customerEmail}}{{session.customerEmail}}{{else}}Not given{{/if}}</dd></div>
<div><dt>Amount</dt><dd>{{money session.amount session.currency}}</dd></div>
<div><dt>Refunded</dt><dd>{{money session.amountRefunded session.currency}}</dd></div>
<div><dt>Payment method</dt><dd>{{#if session.paymentMethod}}{{session.paymentMethod}}{{else}}Not chosen{{/if}}</dd></div>
<div><dt>Completed</dt><dd>{{#if session.completedAt}}{{when session.completedAt}}{{else}}Not yet{{/if}}</dd></div>
{{#if (eq session.status "open")}}<div><dt>Expires</dt><dd>{{when session.expiresAt}}</dd></div>{{/if}}
</dl>
{{#if confirmable}}<div class="panel">
<h2>Confirm the payment</h2>
<p>The buyer says they paid by {{session.paymentMethod}}. Confirm once the money is in your account: the checkout completes and its order is fulfilled.</p>
<form method="post" action="{{base}}/checkouts/{{session.id}}/confirm">{{> dashboardCsrf csrf=identity.csrfToken}}<button type="submit">Confirm payment</button></form>
</div>
{{/if}}<h2>Lines</h2>
<div class="table-wrap">
{{#if session.lineItems.length}}<table>
<thead><tr><th scope="col">Item</th><th scope="col" class="num">Quantity</th><th scope="col" class="num hide-narrow">Unit price</th><th scope="col" class="num">Amount</th></tr></thead>
<tbody>
{{#each session.lineItems}}<tr><td>{{name}}{{#if variantName}} ({{variantName}}){{/if}}</td><td class="num">{{quantity}}</td><td class="num hide-narrow">{{money unitAmount ../session.currency}}</td><td class="num">{{money amount ../session.currency}}</td></tr>
{{/each}}{{#if session.discountApplied}}<tr><td colspan="3" class="hide-narrow">Discount {{session.discountCode}}</td><td class="num">−{{money session.discountAmount session.currency}}</td></tr>
{{/if}}</tbody>
</table>
{{else}}<p class="empty">A plain payment: no product lines.</p>
{{/if}}</div>
<h2>Deliveries</h2>
<div class="table-wrap">
{{#if deliveries.length}}<table>
<thead><tr><th scope="col">Delivery</th><th scope="col">Kind</th><th scope="col" class="hide-narrow">Delivered</th><th scope="col"><span class="hide-narrow">Actions</span></th></tr></thead>
<tbody>
{{#each deliveries}}<tr><td class="mono">{{id}}</td><td>{{kind}}</td><td class="hide-narrow">{{when deliveredAt}}</td>
<td class="actions"><form method="post" action="{{../base}}/deliveries/{{id}}/resend">{{> dashboardCsrf csrf=../identity.csrfToken}}<button type="submit" class="secondary" aria-label="Resend the e-mail of {{id}}">Resend e-mail</button></form></td></tr>
{{/each}}</tbody>
</table>
{{else}}<p class="empty">Nothing delivered for this checkout.</p>
{{/if}}</div>
<h2>Refunds</h2>
<div class="table-wrap">
{{#if refunds.length}}<table>
<thead><tr><th scope="col">Refund</th><th scope="col">Amount</th><th scope="col">Status</th><th scope="col" class="hide-narrow">Reason</th><th scope="col" class="hide-narrow">Created</th></tr></thead>
<tbody>
{{#each refunds}}<tr><td class="mono">{{id}}</td><td class="num">{{money amount currency}}</td><td><span class="badge {{#if (eq status "succeeded")}}good{{else if (eq status "failed")}}bad{{else}}wait{{/if}}">{{status}}</span></td><td class="hide-narrow">{{reason}}</td><td class="hide-narrow">{{when createdAt}}</td></tr>
{{/each}}</tbody>
</table>
{{else}}<p class="empty">No refunds.</p>
{{/if}}</div>
{{#if refundable}}<div class="panel">
<h2>Refund</h2>
<p>{{money remaining session.currency}} can still be refunded. Leave the amount empty to refund all of it.</p>
<form method="post" action="{{base}}/checkouts/{{session.id}}/refund" novalidate>{{> dashboardCsrf csrf=identity.csrfToken}}<input type="hidden" name="refundedBefore" value="{{session.amountRefunded}}">
<div class="field"><label for="refund-amount">Amount ({{session.currency}})</label>
<input id="refund-amount" name="amount" inputmode="decimal" placeholder="{{remainingText}}" value="{{form.amount}}"{{#if fieldErrors.amount}} aria-invalid="true" aria-describedby="refund-amount-error"{{/if}}>
{{#if fieldErrors.amount}}<span class="field-error" id="refund-amount-error">{{fieldErrors.amount}}</span>{{/if}}</div>
<div class="field"><label for="refund-reason">Reason (optional)</label>
<input id="refund-reason" name="reason" maxlength="500" value="{{form.reason}}"{{#if fieldErrors.reason}} aria-invalid="true" aria-describedby="refund-reason-error"{{/if}}>
{{#if fieldErrors.reason}}<span class="field-error" id="refund-reason-error">{{fieldErrors.reason}}</span>{{/if}}</div>
<button type="submit" class="danger">Refund</button>
</form>
</div>
{{/if}}`;

export const PRODUCTS = `<h1>Products</h1>
<p class="lead">The catalogue of {{identity.workspace.name}}, {{modeLabel}}. Archived products are hidden from the shop and the API; restoring one brings it back unpublished.</p>
<p class="actions-bar"><a class="button" href="{{base}}/products/new">New product</a></p>
<div class="tabs"><a href="{{base}}/products"{{#unless archivedTab}} aria-current="page"{{/unless}}>Active</a><a href="{{base}}/products?archived=1"{{#if archivedTab}} aria-current="page"{{/if}}>Archived</a></div>
<div class="table-wrap">
{{#if products.length}}<table>
<thead><tr><th scope="col">Name</th><th scope="col" class="hide-narrow">Type</th><th scope="col">Status</th><th scope="col" class="num">Price</th><th scope="col"><span class="hide-narrow">Actions</span></th></tr></thead>
<tbody>
{{#each products}}<tr><td>{{#if archived}}{{name}}{{else}}<a href="{{../base}}/products/{{id}}">{{name}}</a>{{/if}}<div class="mono hide-narrow">{{id}}</div></td><td class="hide-narrow">{{type}}</td><td>{{#if archived}}<span class="badge bad">Archived</span>{{else if published}}<span class="badge good">Published</span>{{else}}<span class="badge">Draft</span>{{/if}}</td><td class="num">{{money priceMinor currency}}</td>
<td class="actions"><form method="post" action="{{../base}}/products/{{id}}/{{#if archived}}restore{{else}}archive{{/if}}">{{> dashboardCsrf csrf=../identity.csrfToken}}<button type="submit" class="{{#if archived}}secondary{{else}}danger{{/if}}" aria-label="{{#if archived}}Restore{{else}}Archive{{/if}} {{name}}">{{#if archived}}Restore{{else}}Archive{{/if}}</button></form></td></tr>
{{/each}}</tbody>
</table>
{{else}}<p class="empty">{{#if archivedTab}}No archived products.{{else}}No products yet in {{modeLabel}}.{{/if}}</p>
{{/if}}</div>
{{#if nextCursor}}<p><a href="{{base}}/products?{{#if archivedTab}}archived=1&amp;{{/if}}cursor={{nextCursor}}">Next page</a></p>{{/if}}`;

export const API_KEYS = `<h1>API keys</h1>
<p class="lead">Keys of {{identity.workspace.name}} for {{modeLabel}}. A key's value is shown once, when it is created. Rotating a key gives it a new value at once; the old value keeps working for {{overlap}}, and the workspace’s owner is e-mailed.</p>
{{#if minted}}<div class="panel" role="status">
{{#if minted.oldValueExpiresAt}}<h2>Key “{{minted.name}}” rotated</h2>
<p>Its new value is below. Copy it now: it will not be shown again. The old value keeps working until <strong>{{when minted.oldValueExpiresAt}}</strong>, then it is refused. The workspace’s owner is e-mailed.</p>
{{else}}<h2>New key “{{minted.name}}”</h2>
<p>Copy it now: it will not be shown again.</p>
{{/if}}<code class="secret" id="new-key-value">{{minted.value}}</code>
</div>
{{/if}}<div class="panel">
<h2>Create a key</h2>
<form class="inline-form" method="post" action="{{base}}/developers/api-keys">{{> dashboardCsrf csrf=identity.csrfToken}}
<div class="field"><label for="key-name">Name</label>
<input id="key-name" name="name" maxlength="100" required value="{{form.name}}"{{#if fieldErrors.name}} aria-invalid="true" aria-describedby="key-name-error"{{/if}}>
{{#if fieldErrors.name}}<span class="field-error" id="key-name-error">{{fieldErrors.name}}</span>{{/if}}</div>
<div class="field"><label for="key-access">Access</label>
<select id="key-access" name="access"><option value="secret">Secret (sk_{{identity.environment}}_…)</option><option value="publishable"{{#if (eq form.access "publishable")}} selected{{/if}}>Publishable (pk_{{identity.environment}}_…)</option></select></div>
<button type="submit">Create key</button>
</form>
</div>
<div class="table-wrap">
{{#if keys.length}}<table>
<thead><tr><th scope="col">Name</th><th scope="col" class="hide-narrow">Key</th><th scope="col" class="hide-narrow">Last used</th><th scope="col">Status</th><th scope="col"><span class="hide-narrow">Actions</span></th></tr></thead>
<tbody>
{{#each keys}}<tr><td>{{name}}<div class="mono show-narrow">{{prefix}}…{{last4}}</div></td><td class="mono nowrap hide-narrow">{{prefix}}…{{last4}}</td><td class="hide-narrow">{{#if lastUsedAt}}{{when lastUsedAt}}{{else}}Never{{/if}}</td><td>{{#if revokedAt}}<span class="badge bad">Revoked</span>{{else if expiresAt}}<span class="badge wait">Rotated</span><div class="small">works until {{when expiresAt}}</div>{{else}}<span class="badge good">Active</span>{{/if}}</td>
<td class="actions">{{#unless revokedAt}}{{#unless expiresAt}}<form method="post" action="{{../base}}/developers/api-keys/{{id}}/rotate">{{> dashboardCsrf csrf=../identity.csrfToken}}<button type="submit" class="secondary" aria-label="Rotate {{name}} {{prefix}}…{{last4}}">Rotate</button></form> {{/unless}}<form method="post" action="{{../base}}/developers/api-keys/{{id}}/revoke">{{> dashboardCsrf csrf=../identity.csrfToken}}<button type="submit" class="danger" aria-label="Revoke {{name}} {{prefix}}…{{last4}}">Revoke</button></form>{{/unless}}</td></tr>
{{/each}}</tbody>
</table>
{{else}}<p class="empty">No keys.</p>
{{/if}}</div>`;

export const WEBHOOKS = `<h1>Webhooks</h1>
<p class="lead">Endpoints of {{identity.workspace.name}} for {{modeLabel}}. “Send a test event” posts a synthetic <code>evt_test_</code> event to one endpoint through the normal delivery path. Open an endpoint for its delivery log.</p>
<p class="actions-bar"><a class="button" href="{{base}}/developers/webhooks/new">Add an endpoint</a></p>
<div class="table-wrap">
{{#if endpoints.length}}<table>
<thead><tr><th scope="col">URL</th><th scope="col" class="hide-narrow">Events</th><th scope="col">Status</th><th scope="col"><span class="hide-narrow">Actions</span></th></tr></thead>
<tbody>
{{#each endpoints}}<tr><td class="mono url"><a href="{{../base}}/developers/webhooks/{{id}}">{{url}}</a></td><td class="hide-narrow">{{events.length}}</td><td>{{#if active}}<span class="badge good">Active</span>{{else}}<span class="badge bad">Disabled</span>{{/if}}</td>
<td class="actions">{{#if active}}<form method="post" action="{{../base}}/developers/webhooks/{{id}}/test">{{> dashboardCsrf csrf=../identity.csrfToken}}<button type="submit" class="secondary" aria-label="Send a test event to {{url}}">Send <span class="hide-narrow">a </span>test event</button></form>{{/if}}</td></tr>
{{/each}}</tbody>
</table>
{{else}}<p class="empty">No webhook endpoints in {{modeLabel}}. Add one here or with <code>POST /api/v1/payment/webhook-endpoints</code>.</p>
{{/if}}</div>`;

export const DELIVERIES = `<h1>Deliveries</h1>
<p class="lead">What buyers received, newest first, {{modeLabel}}. “Resend e-mail” sends the buyer a new copy of the delivery e-mail, with fresh download links.</p>
<div class="table-wrap">
{{#if deliveries.length}}<table>
<thead><tr><th scope="col">Delivery</th><th scope="col">Kind</th><th scope="col" class="hide-narrow">Order</th><th scope="col" class="hide-narrow">Delivered</th><th scope="col"><span class="hide-narrow">Actions</span></th></tr></thead>
<tbody>
{{#each deliveries}}<tr><td class="mono">{{id}}</td><td>{{kind}}</td><td class="mono hide-narrow">{{order}}</td><td class="hide-narrow">{{when deliveredAt}}</td>
<td class="actions"><form method="post" action="{{../base}}/deliveries/{{id}}/resend">{{> dashboardCsrf csrf=../identity.csrfToken}}<button type="submit" class="secondary" aria-label="Resend the e-mail of {{id}}">Resend e-mail</button></form></td></tr>
{{/each}}</tbody>
</table>
{{else}}<p class="empty">No deliveries yet in {{modeLabel}}.</p>
{{/if}}</div>`;

export const ACCOUNT = `<h1>Sessions</h1>
<p class="lead">Signed in as {{identity.email}}. This sign-in lasts until {{when expiresAt}}.</p>
<div class="panel">
<h2>Sign out everywhere</h2>
<p>Ends every dashboard session of yours, on every browser and device, this one included.</p>
<form method="post" action="{{base}}/logout-everywhere">{{> dashboardCsrf csrf=identity.csrfToken}}<button type="submit" class="danger">Sign out everywhere</button></form>
</div>`;
