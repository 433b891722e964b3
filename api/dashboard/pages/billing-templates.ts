/**
 * Templates of the customers, subscriptions and invoices pages, with the same discipline as ../templates.ts: every
 * value escaped, no script, no style attribute, every form with the session's CSRF token and every field labelled.
 */

export const BILLING_PARTIALS = {
  billingSubscriptionRows: `{{#if subscriptions.length}}<table>
<thead><tr><th scope="col">Subscription</th>{{#unless hideCustomer}}<th scope="col" class="hide-narrow">Customer</th>{{/unless}}<th scope="col">Plan</th><th scope="col">Status</th><th scope="col" class="hide-narrow">Period ends</th></tr></thead>
<tbody>
{{#each subscriptions}}<tr><td class="mono"><a href="{{../base}}/subscriptions/{{id}}">{{id}}</a></td>{{#unless ../hideCustomer}}<td class="hide-narrow">{{customerLabel}}</td>{{/unless}}<td>{{planLabel}}</td><td><span class="badge {{tone}}">{{words status}}</span>{{#if cancelAtPeriodEnd}}<div class="small">cancels at period end</div>{{/if}}</td><td class="hide-narrow">{{when currentPeriodEnd}}</td></tr>
{{/each}}</tbody>
</table>
{{else}}<p class="empty">No subscriptions{{#if filter}} {{words filter}}{{/if}} yet in {{modeLabel}}.</p>
{{/if}}`,
  billingInvoiceRows: `{{#if invoices.length}}<table>
<thead><tr><th scope="col">Invoice</th><th scope="col">Status</th>{{#unless hideCustomer}}<th scope="col" class="hide-narrow">Customer</th>{{/unless}}<th scope="col" class="num">Amount</th><th scope="col" class="hide-narrow">Issued</th></tr></thead>
<tbody>
{{#each invoices}}<tr><td class="mono nowrap"><a href="{{../base}}/invoices/{{id}}">{{number}}</a></td><td><span class="badge {{tone}}">{{words status}}</span></td>{{#unless ../hideCustomer}}<td class="hide-narrow">{{customerLabel}}</td>{{/unless}}<td class="num">{{moneyOf amount currency}}</td><td class="hide-narrow">{{when issuedAt}}</td></tr>
{{/each}}</tbody>
</table>
{{else}}<p class="empty">No invoices{{#if filter}} {{words filter}}{{/if}} yet in {{modeLabel}}.</p>
{{/if}}`,
};

export const CUSTOMERS = `<h1>Customers</h1>
<p class="lead">Customers of {{identity.workspace.name}}, newest first, {{modeLabel}}. Open one to see its subscriptions and invoices.</p>
<form class="inline-form filter" method="get" action="{{base}}/customers">
<div class="field"><label for="customer-email">E-mail (exact)</label>
<input id="customer-email" name="email" type="text" inputmode="email" maxlength="254" value="{{email}}"></div>
<button type="submit" class="secondary">Find</button>{{#if email}}<a href="{{base}}/customers">Show all</a>{{/if}}
</form>
<div class="table-wrap">
{{#if customers.length}}<table>
<thead><tr><th scope="col">Customer</th><th scope="col" class="hide-narrow">E-mail</th><th scope="col" class="hide-narrow">Created</th></tr></thead>
<tbody>
{{#each customers}}<tr><td><a href="{{../base}}/customers/{{id}}">{{#if name}}{{name}}{{else}}{{id}}{{/if}}</a><div class="small show-narrow">{{email}}</div><div class="mono small hide-narrow">{{id}}</div></td><td class="hide-narrow">{{email}}</td><td class="hide-narrow">{{when createdAt}}</td></tr>
{{/each}}</tbody>
</table>
{{else}}<p class="empty">{{#if email}}No customer with the e-mail “{{email}}” in {{modeLabel}}.{{else}}No customers yet in {{modeLabel}}.{{/if}}</p>
{{/if}}</div>
{{#if nextCursor}}<p><a href="{{base}}/customers?cursor={{nextCursor}}">Next page</a></p>{{/if}}`;

export const CUSTOMER = `<p class="crumbs"><a href="{{base}}/customers">Customers</a></p>
<h1>{{#if customer.name}}{{customer.name}}{{else}}{{customer.id}}{{/if}}</h1>
<p class="lead mono">{{customer.id}}</p>
<dl class="facts panel">
<div><dt>E-mail</dt><dd>{{#if customer.email}}{{customer.email}}{{else}}Not given{{/if}}</dd></div>
<div><dt>Created</dt><dd>{{when customer.createdAt}}</dd></div>
{{#if customer.testClock}}<div><dt>Test clock</dt><dd class="mono">{{customer.testClock}}</dd></div>
{{/if}}{{#each metadata}}<div><dt>{{key}} <span class="small">(metadata)</span></dt><dd>{{value}}</dd></div>
{{/each}}</dl>
<h2>Subscriptions</h2>
<div class="table-wrap">
{{> billingSubscriptionRows hideCustomer=true}}
</div>
<h2>Invoices</h2>
<div class="table-wrap">
{{> billingInvoiceRows hideCustomer=true}}
</div>`;

export const SUBSCRIPTIONS = `<h1>Subscriptions</h1>
<p class="lead">Subscriptions of {{identity.workspace.name}}, newest first, {{modeLabel}}. Open one to pause, resume or cancel it.</p>
<form class="inline-form filter" method="get" action="{{base}}/subscriptions">
<div class="field"><label for="subscription-status">Status</label>
<select id="subscription-status" name="status"><option value="">Any status</option>{{#each statuses}}<option value="{{this}}"{{#if (eq this ../filter)}} selected{{/if}}>{{words this}}</option>{{/each}}</select></div>
<button type="submit" class="secondary">Filter</button>
</form>
<div class="table-wrap">
{{> billingSubscriptionRows}}
</div>
{{#if nextCursor}}<p><a href="{{base}}/subscriptions?{{#if filter}}status={{filter}}&amp;{{/if}}cursor={{nextCursor}}">Next page</a></p>{{/if}}`;

export const SUBSCRIPTION = `<p class="crumbs"><a href="{{base}}/subscriptions">Subscriptions</a></p>
<h1 class="mono-heading">{{subscription.id}} <span class="badge {{tone}}">{{words subscription.status}}</span></h1>
<p class="lead">{{planLabel}} for <a href="{{base}}/customers/{{subscription.customerId}}">{{customerLabel}}</a></p>
<dl class="facts panel">
<div><dt>Plan</dt><dd>{{planLabel}}</dd></div>
<div><dt>Customer</dt><dd><a href="{{base}}/customers/{{subscription.customerId}}">{{customerLabel}}</a></dd></div>
<div><dt>Current period</dt><dd>{{when subscription.currentPeriodStart}} to {{when subscription.currentPeriodEnd}}</dd></div>
{{#if subscription.trialEnd}}<div><dt>Trial ends</dt><dd>{{when subscription.trialEnd}}</dd></div>
{{/if}}{{#if subscription.pausedAt}}<div><dt>Paused since</dt><dd>{{when subscription.pausedAt}}</dd></div>
{{/if}}{{#if subscription.cancelAtPeriodEnd}}<div><dt>Cancels</dt><dd>At the period’s end, {{when subscription.currentPeriodEnd}}</dd></div>
{{/if}}{{#if subscription.canceledAt}}<div><dt>Canceled</dt><dd>{{when subscription.canceledAt}}</dd></div>
{{/if}}<div><dt>Failed payments</dt><dd>{{subscription.failedPaymentCount}}</dd></div>
<div><dt>Latest invoice</dt><dd>{{#if subscription.latestInvoiceId}}<a class="mono" href="{{base}}/invoices/{{subscription.latestInvoiceId}}">{{subscription.latestInvoiceId}}</a>{{else}}None yet{{/if}}</dd></div>
<div><dt>Created</dt><dd>{{when subscription.createdAt}}</dd></div>
</dl>
{{#if pausable}}<div class="panel">
<h2>Pause</h2>
<p>Renewals stop while it is paused: nothing is invoiced until you resume it.</p>
<form method="post" action="{{base}}/subscriptions/{{subscription.id}}/pause">{{> dashboardCsrf csrf=identity.csrfToken}}<button type="submit" class="secondary">Pause subscription</button></form>
</div>
{{/if}}{{#if resumable}}<div class="panel">
<h2>Resume</h2>
<p>Paused since {{when subscription.pausedAt}}. Resuming makes it active again; renewals follow its billing period.</p>
<form method="post" action="{{base}}/subscriptions/{{subscription.id}}/resume">{{> dashboardCsrf csrf=identity.csrfToken}}<button type="submit">Resume subscription</button></form>
</div>
{{/if}}{{#if cancelable}}<div class="panel">
<h2>Cancel</h2>
<p>{{#if subscription.cancelAtPeriodEnd}}It already cancels at the end of this period. {{else}}At the period’s end, it stops renewing and the customer keeps what they paid for until then. {{/if}}Cancelling now ends it at once, voids what is still unpaid and refunds nothing.</p>
<div class="button-row">{{#unless subscription.cancelAtPeriodEnd}}<form method="post" action="{{base}}/subscriptions/{{subscription.id}}/cancel">{{> dashboardCsrf csrf=identity.csrfToken}}<input type="hidden" name="when" value="period_end"><button type="submit" class="secondary">Cancel at period end</button></form>
{{/unless}}<form method="post" action="{{base}}/subscriptions/{{subscription.id}}/cancel">{{> dashboardCsrf csrf=identity.csrfToken}}<input type="hidden" name="when" value="now"><button type="submit" class="danger">Cancel now</button></form></div>
</div>
{{/if}}<h2>Invoices</h2>
<div class="table-wrap">
{{> billingInvoiceRows hideCustomer=true}}
</div>`;

export const INVOICES = `<h1>Invoices</h1>
<p class="lead">Invoices of {{identity.workspace.name}}, newest first, {{modeLabel}}. Open one for its lines and its PDF.</p>
<form class="inline-form filter" method="get" action="{{base}}/invoices">
<div class="field"><label for="invoice-status">Status</label>
<select id="invoice-status" name="status"><option value="">Any status</option>{{#each statuses}}<option value="{{this}}"{{#if (eq this ../filter)}} selected{{/if}}>{{words this}}</option>{{/each}}</select></div>
<button type="submit" class="secondary">Filter</button>
</form>
<div class="table-wrap">
{{> billingInvoiceRows}}
</div>
{{#if nextCursor}}<p><a href="{{base}}/invoices?{{#if filter}}status={{filter}}&amp;{{/if}}cursor={{nextCursor}}">Next page</a></p>{{/if}}`;

export const INVOICE = `<p class="crumbs"><a href="{{base}}/invoices">Invoices</a></p>
<h1 class="mono-heading">{{invoice.number}} <span class="badge {{tone}}">{{words invoice.status}}</span></h1>
<p class="lead">{{moneyOf invoice.amount invoice.currency}} · issued {{when invoice.issuedAt}}</p>
<p class="button-row"><a class="button" href="{{base}}/invoices/{{invoice.id}}/pdf" download>Download PDF</a>{{#if invoice.hostedUrl}}{{#if (eq invoice.status "open")}}<a class="button secondary" href="{{invoice.hostedUrl}}" rel="noopener">Payment page</a>{{/if}}{{/if}}</p>
<dl class="facts panel">
<div><dt>Customer</dt><dd>{{#if invoice.customerId}}<a href="{{base}}/customers/{{invoice.customerId}}">{{customerLabel}}</a>{{else}}None{{/if}}</dd></div>
{{#if invoice.subscriptionId}}<div><dt>Subscription</dt><dd><a class="mono" href="{{base}}/subscriptions/{{invoice.subscriptionId}}">{{invoice.subscriptionId}}</a></dd></div>
{{/if}}{{#if invoice.periodStart}}<div><dt>Period</dt><dd>{{when invoice.periodStart}} to {{when invoice.periodEnd}}</dd></div>
{{/if}}{{#if invoice.dueAt}}<div><dt>Due</dt><dd>{{when invoice.dueAt}}</dd></div>
{{/if}}{{#if invoice.paidAt}}<div><dt>Paid</dt><dd>{{when invoice.paidAt}}</dd></div>
{{/if}}{{#if invoice.voidedAt}}<div><dt>Voided</dt><dd>{{when invoice.voidedAt}}</dd></div>
{{/if}}<div><dt>Invoice id</dt><dd class="mono">{{invoice.id}}</dd></div>
</dl>
{{#if invoice.memo}}<p class="panel">{{invoice.memo}}</p>
{{/if}}<h2>Lines</h2>
<div class="table-wrap">
<table>
<thead><tr><th scope="col">Description</th><th scope="col" class="num">Quantity</th><th scope="col" class="num hide-narrow">Unit price</th><th scope="col" class="num">Amount</th></tr></thead>
<tbody>
{{#each invoice.lineItems}}<tr><td>{{description}}</td><td class="num">{{quantity}}</td><td class="num hide-narrow">{{moneyOf unitAmount ../invoice.currency}}</td><td class="num">{{moneyOf amount ../invoice.currency}}</td></tr>
{{/each}}<tr class="total"><td colspan="2">Subtotal</td><td class="hide-narrow"></td><td class="num">{{moneyOf invoice.subtotal invoice.currency}}</td></tr>
<tr class="total"><td colspan="2">Tax</td><td class="hide-narrow"></td><td class="num">{{moneyOf invoice.taxAmount invoice.currency}}</td></tr>
<tr class="total"><th scope="row" colspan="2">Total</th><td class="hide-narrow"></td><td class="num"><strong>{{moneyOf invoice.amount invoice.currency}}</strong></td></tr>
</tbody>
</table>
</div>`;
