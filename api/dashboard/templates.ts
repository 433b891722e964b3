/**
 * The dashboard's Handlebars templates, rendered by the buyer pages' engine (api/pages/shared/render.ts):
 * `{{value}}` escapes everything merchants, buyers and API clients wrote; `{{{body}}}` is only the page body the
 * same engine rendered. No script, no inline handler, no style attribute: the CSP allows none. Every form posts
 * back to `/dashboard` with the session's CSRF token (`csrf` partial).
 */

export const PARTIALS = {
  dashboardCsrf: `<input type="hidden" name="_csrf" value="{{csrf}}">`,
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
<li><a href="{{base}}/products"{{#if (eq active "products")}} aria-current="page"{{/if}}>Products</a></li>
<li><a href="{{base}}/deliveries"{{#if (eq active "deliveries")}} aria-current="page"{{/if}}>Deliveries</a></li>
<li class="group">Developers</li>
<li><a href="{{base}}/developers/api-keys"{{#if (eq active "api-keys")}} aria-current="page"{{/if}}>API keys</a></li>
<li><a href="{{base}}/developers/webhooks"{{#if (eq active "webhooks")}} aria-current="page"{{/if}}>Webhooks</a></li>
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
<p class="lead">Balances and the latest checkouts of {{identity.workspace.name}}, {{modeLabel}}.</p>
{{#if balances.length}}<dl class="stats">
{{#each balances}}<div class="stat"><dt>Available ({{currency}})</dt><dd>{{money available currency}}</dd></div>
<div class="stat"><dt>Pending ({{currency}})</dt><dd>{{money pending currency}}</dd></div>
{{/each}}</dl>
{{else}}<dl class="stats"><div class="stat"><dt>Available</dt><dd>0</dd></div><div class="stat"><dt>Pending</dt><dd>0</dd></div></dl>
{{/if}}<h2>Recent checkouts</h2>
<div class="table-wrap">
{{#if checkouts.length}}<table>
<thead><tr><th scope="col">Checkout</th><th scope="col">Status</th><th scope="col" class="hide-narrow">Customer</th><th scope="col">Amount</th><th scope="col" class="hide-narrow">Created</th></tr></thead>
<tbody>
{{#each checkouts}}<tr><td class="mono">{{id}}</td><td><span class="badge {{tone}}">{{status}}</span></td><td class="hide-narrow">{{customerEmail}}</td><td class="num">{{money amount currency}}</td><td class="hide-narrow">{{when createdAt}}</td></tr>
{{/each}}</tbody>
</table>
{{else}}<p class="empty">No checkouts yet in {{modeLabel}}.</p>
{{/if}}</div>`;

export const PRODUCTS = `<h1>Products</h1>
<p class="lead">The catalogue of {{identity.workspace.name}}, {{modeLabel}}. Archived products are hidden from the shop and the API; restoring one brings it back unpublished.</p>
<div class="tabs"><a href="{{base}}/products"{{#unless archivedTab}} aria-current="page"{{/unless}}>Active</a><a href="{{base}}/products?archived=1"{{#if archivedTab}} aria-current="page"{{/if}}>Archived</a></div>
<div class="table-wrap">
{{#if products.length}}<table>
<thead><tr><th scope="col">Name</th><th scope="col" class="hide-narrow">Type</th><th scope="col">Status</th><th scope="col">Price</th><th scope="col"><span class="hide-narrow">Actions</span></th></tr></thead>
<tbody>
{{#each products}}<tr><td>{{name}}<div class="mono hide-narrow">{{id}}</div></td><td class="hide-narrow">{{type}}</td><td>{{#if archived}}<span class="badge bad">Archived</span>{{else if published}}<span class="badge good">Published</span>{{else}}<span class="badge">Draft</span>{{/if}}</td><td class="num">{{money price currency}}</td>
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
<thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col" class="hide-narrow">Last used</th><th scope="col">Status</th><th scope="col"><span class="hide-narrow">Actions</span></th></tr></thead>
<tbody>
{{#each keys}}<tr><td>{{name}}</td><td class="mono nowrap">{{prefix}}…{{last4}}</td><td class="hide-narrow">{{#if lastUsedAt}}{{when lastUsedAt}}{{else}}Never{{/if}}</td><td>{{#if revokedAt}}<span class="badge bad">Revoked</span>{{else if expiresAt}}<span class="badge wait">Rotated</span><div class="small">works until {{when expiresAt}}</div>{{else}}<span class="badge good">Active</span>{{/if}}</td>
<td class="actions">{{#unless revokedAt}}{{#unless expiresAt}}<form method="post" action="{{../base}}/developers/api-keys/{{id}}/rotate">{{> dashboardCsrf csrf=../identity.csrfToken}}<button type="submit" class="secondary" aria-label="Rotate {{name}} {{prefix}}…{{last4}}">Rotate</button></form> {{/unless}}<form method="post" action="{{../base}}/developers/api-keys/{{id}}/revoke">{{> dashboardCsrf csrf=../identity.csrfToken}}<button type="submit" class="danger" aria-label="Revoke {{name}} {{prefix}}…{{last4}}">Revoke</button></form>{{/unless}}</td></tr>
{{/each}}</tbody>
</table>
{{else}}<p class="empty">No keys.</p>
{{/if}}</div>`;

export const WEBHOOKS = `<h1>Webhooks</h1>
<p class="lead">Endpoints of {{identity.workspace.name}} for {{modeLabel}}. “Send a test event” posts a synthetic <code>evt_test_</code> event to one endpoint through the normal delivery path.</p>
<div class="table-wrap">
{{#if endpoints.length}}<table>
<thead><tr><th scope="col">URL</th><th scope="col" class="hide-narrow">Events</th><th scope="col">Status</th><th scope="col"><span class="hide-narrow">Actions</span></th></tr></thead>
<tbody>
{{#each endpoints}}<tr><td class="mono url">{{url}}</td><td class="hide-narrow">{{events.length}}</td><td>{{#if active}}<span class="badge good">Active</span>{{else}}<span class="badge bad">Disabled</span>{{/if}}</td>
<td class="actions">{{#if active}}<form method="post" action="{{../base}}/developers/webhooks/{{id}}/test">{{> dashboardCsrf csrf=../identity.csrfToken}}<button type="submit" class="secondary" aria-label="Send a test event to {{url}}">Send <span class="hide-narrow">a </span>test event</button></form>{{/if}}</td></tr>
{{/each}}</tbody>
</table>
{{else}}<p class="empty">No webhook endpoints in {{modeLabel}}. Create one with <code>POST /api/v1/webhook-endpoints</code>.</p>
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
