/** Manual orders: the list and an order with its moves (the discipline of ../templates.ts). */

const error = (id: string, key: string) => `{{#if errors.${key}}}<span class="field-error" id="${id}-error">{{errors.${key}}}</span>{{/if}}`;
const invalid = (id: string, key: string) => `{{#if errors.${key}}} aria-invalid="true" aria-describedby="${id}-error"{{/if}}`;

export const MANUAL_ORDERS = `<h1>Manual orders</h1>
<p class="lead">Orders paid outside the checkout (bank transfer, QRIS, WhatsApp, cash on delivery), newest first, {{modeLabel}}. Open one to confirm its payment, cancel it or move its fulfillment.</p>
<form class="inline-form filter" method="get" action="{{base}}/manual-orders">
<div class="field"><label for="order-payment">Payment</label>
<select id="order-payment" name="paymentStatus"><option value="">Any</option>{{#each paymentStatuses}}<option value="{{this}}"{{#if (eq this ../paymentFilter)}} selected{{/if}}>{{words this}}</option>{{/each}}</select></div>
<div class="field"><label for="order-fulfillment">Fulfillment</label>
<select id="order-fulfillment" name="fulfillmentStatus"><option value="">Any</option>{{#each fulfillmentStatuses}}<option value="{{this}}"{{#if (eq this ../fulfillmentFilter)}} selected{{/if}}>{{words this}}</option>{{/each}}</select></div>
<button type="submit" class="secondary">Filter</button>
</form>
<div class="table-wrap">
{{#if orders.length}}<table>
<thead><tr><th scope="col">Order</th><th scope="col" class="hide-narrow">Buyer</th><th scope="col">Payment</th><th scope="col" class="hide-narrow">Fulfillment</th><th scope="col" class="num hide-narrow">Amount</th><th scope="col" class="hide-narrow">Placed</th></tr></thead>
<tbody>
{{#each orders}}<tr><td class="nowrap"><a class="mono" href="{{../base}}/manual-orders/{{id}}">{{orderNumber}}</a><div class="small show-narrow">{{words fulfillmentStatus}} · {{moneyOf amount currency}}</div></td><td class="hide-narrow">{{customerName}}<div class="small">{{customerEmail}}</div></td><td><span class="badge {{paymentTone}}">{{words paymentStatus}}</span></td><td class="hide-narrow"><span class="badge {{fulfillmentTone}}">{{words fulfillmentStatus}}</span></td><td class="num hide-narrow">{{moneyOf amount currency}}</td><td class="hide-narrow">{{when placedAt}}</td></tr>
{{/each}}</tbody>
</table>
{{else}}<p class="empty">No manual orders{{#if filtered}} like that{{/if}} yet in {{modeLabel}}.</p>
{{/if}}</div>
{{#if nextCursor}}<p><a href="{{base}}/manual-orders?{{query}}cursor={{nextCursor}}">Next page</a></p>{{/if}}`;

export const MANUAL_ORDER = `<p class="crumbs"><a href="{{base}}/manual-orders">Manual orders</a></p>
<h1 class="mono-heading">{{order.orderNumber}} <span class="badge {{paymentTone}}">{{words order.paymentStatus}}</span> <span class="badge {{fulfillmentTone}}">{{words order.fulfillmentStatus}}</span></h1>
<p class="lead">{{moneyOf order.amount order.currency}}{{#if order.paymentMethod}} by {{words order.paymentMethod}}{{/if}} · placed {{when order.placedAt}}</p>
<dl class="facts panel">
<div><dt>Buyer</dt><dd>{{#if order.customerName}}{{order.customerName}}{{else}}Not given{{/if}}</dd></div>
<div><dt>E-mail</dt><dd>{{#if order.customerEmail}}{{order.customerEmail}}{{else}}Not given{{/if}}</dd></div>
{{#if order.customerPhone}}<div><dt>Phone</dt><dd>{{order.customerPhone}}</dd></div>
{{/if}}{{#if order.shippingAddress}}<div><dt>Ship to</dt><dd>{{#each addressLines}}{{this}}<br>{{/each}}</dd></div>
{{/if}}{{#if order.trackingNumber}}<div><dt>Tracking</dt><dd>{{order.trackingCourier}} {{order.trackingNumber}}</dd></div>
{{/if}}{{#if order.referralCode}}<div><dt>Referral</dt><dd>{{order.referralCode}}</dd></div>
{{/if}}<div><dt>Order id</dt><dd class="mono">{{order.id}}</dd></div>
</dl>
<h2>Lines</h2>
<div class="table-wrap">
<table>
<thead><tr><th scope="col">Item</th><th scope="col" class="num">Quantity</th><th scope="col" class="num hide-narrow">Unit price</th><th scope="col" class="num">Amount</th></tr></thead>
<tbody>
{{#each order.lines}}<tr><td>{{productName}}{{#if variantName}} ({{variantName}}){{/if}}</td><td class="num">{{quantity}}</td><td class="num hide-narrow">{{moneyOf unitAmount ../order.currency}}</td><td class="num">{{moneyOf amount ../order.currency}}</td></tr>
{{/each}}{{#if order.discountCode}}<tr><td colspan="2">Discount {{order.discountCode}}</td><td class="hide-narrow"></td><td class="num">−{{moneyOf order.discountAmount order.currency}}</td></tr>
{{/if}}<tr class="total"><th scope="row" colspan="2">Total</th><td class="hide-narrow"></td><td class="num"><strong>{{moneyOf order.amount order.currency}}</strong></td></tr>
</tbody>
</table>
</div>
<h2>Moves</h2>
<ol class="timeline panel">
{{#each timeline}}<li><span class="timeline-what">{{what}}</span> <span class="small">{{when at}}</span></li>
{{/each}}</ol>
{{#if payable}}<div class="panel" id="payment">
<h2>Payment</h2>
<p>Confirm once the money is in your account: the buyer is e-mailed and digital items are delivered. Cancelling releases what the order held; both are final.</p>
<div class="button-row"><form method="post" action="{{base}}/manual-orders/{{order.id}}/payment">{{> dashboardCsrf csrf=identity.csrfToken}}<input type="hidden" name="paymentStatus" value="payment_confirmed"><button type="submit">Confirm payment</button></form>
<form method="post" action="{{base}}/manual-orders/{{order.id}}/payment">{{> dashboardCsrf csrf=identity.csrfToken}}<input type="hidden" name="paymentStatus" value="canceled"><button type="submit" class="danger">Cancel order</button></form></div>
${error('payment', 'paymentStatus')}
</div>
{{else if errors.paymentStatus}}<p class="error" role="alert" id="payment-error">{{errors.paymentStatus}}</p>
{{/if}}{{#unless canceled}}<div class="panel" id="fulfillment">
<h2>Fulfillment</h2>
<p>Marking it shipped e-mails the buyer the tracking below.</p>
<form method="post" action="{{base}}/manual-orders/{{order.id}}/fulfillment" novalidate>{{> dashboardCsrf csrf=identity.csrfToken}}
<div class="form-grid">
<div class="field"><label for="fulfillment-status">Status</label>
<select id="fulfillment-status" name="fulfillmentStatus"${invalid('fulfillment-status', 'fulfillmentStatus')}>{{#each fulfillmentStatuses}}<option value="{{this}}"{{#if (eq this ../form.fulfillmentStatus)}} selected{{/if}}>{{words this}}</option>{{/each}}</select>
${error('fulfillment-status', 'fulfillmentStatus')}</div>
<div class="field"><label for="tracking-courier">Courier</label>
<input id="tracking-courier" name="trackingCourier" maxlength="80" value="{{form.trackingCourier}}"${invalid('tracking-courier', 'trackingCourier')}>
${error('tracking-courier', 'trackingCourier')}</div>
<div class="field"><label for="tracking-number">Tracking number</label>
<input id="tracking-number" name="trackingNumber" maxlength="80" value="{{form.trackingNumber}}"${invalid('tracking-number', 'trackingNumber')}>
${error('tracking-number', 'trackingNumber')}</div>
</div>
<button type="submit">Save fulfillment</button>
</form>
</div>
{{/unless}}<div class="panel" id="notes">
<h2>Notes</h2>
<p>For you only; the buyer never sees them.</p>
<form method="post" action="{{base}}/manual-orders/{{order.id}}/notes" novalidate>{{> dashboardCsrf csrf=identity.csrfToken}}
<div class="form-grid">
<div class="field"><label for="payment-note">Payment note</label>
<textarea id="payment-note" name="merchantPaymentNote" rows="3" maxlength="1000"${invalid('payment-note', 'merchantPaymentNote')}>{{form.merchantPaymentNote}}</textarea>
${error('payment-note', 'merchantPaymentNote')}</div>
<div class="field"><label for="shipping-note">Shipping note</label>
<textarea id="shipping-note" name="merchantShippingNote" rows="3" maxlength="1000"${invalid('shipping-note', 'merchantShippingNote')}>{{form.merchantShippingNote}}</textarea>
${error('shipping-note', 'merchantShippingNote')}</div>
</div>
<button type="submit" class="secondary">Save notes</button>
</form>
</div>`;
