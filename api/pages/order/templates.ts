/**
 * The order page's body, inside the buyer pages' layout (api/pages/shared/templates.ts, whose rules hold here:
 * `{{value}}` escapes, no script, no inline handler, no style attribute). The thumbnail is an http(s) URL whose
 * origin the page's CSP allows.
 */

export const ORDER = `<h1>Your order</h1>
<p class="muted">Placed on {{date order.placedAt}}{{#if order.orderNumber}} · Order <span class="reference">{{order.orderNumber}}</span>{{/if}}</p>
<div class="item">
{{#if product.thumbnail}}<img class="thumbnail" src="{{product.thumbnail}}" alt="" referrerpolicy="no-referrer">
{{/if}}<div>
<p class="item-name">{{line.name}}{{#if line.variantName}} · {{line.variantName}}{{/if}}</p>
<p class="item-detail">{{#if showQuantity}}{{line.quantity}} × {{money line.unitAmount order.currency}} · {{/if}}{{money line.amount order.currency}}</p>
</div>
</div>
<dl class="facts">
<div><dt>Status</dt><dd><span class="badge {{statusTone}}">{{statusLabel}}</span></dd></div>
{{#if fulfillmentLabel}}<div><dt>Order fulfillment</dt><dd>{{fulfillmentLabel}}</dd></div>
{{/if}}{{#if order.paidAt}}<div><dt>Payment received</dt><dd>{{date order.paidAt}}</dd></div>
{{/if}}{{#if order.discount}}<div><dt>Subtotal</dt><dd class="amount">{{money order.subtotal order.currency}}</dd></div>
<div><dt>Discount <span class="code">{{order.discount.code}}</span></dt><dd class="amount">−{{money order.discount.amount order.currency}}</dd></div>
{{/if}}<div><dt>Order total</dt><dd>{{money order.amount order.currency}}{{#if otherLines}} <span class="quantity">({{order.lineCount}} items)</span>{{/if}}</dd></div>
<div><dt>Receipt sent to</dt><dd>{{order.customerEmailMasked}}</dd></div>
{{#if order.trackingNumber}}<div><dt>Tracking</dt><dd>{{#if order.trackingCourier}}{{order.trackingCourier}} {{/if}}<span class="copyable">{{order.trackingNumber}}</span></dd></div>
{{/if}}</dl>
{{#if download}}<h2>Your download</h2>
{{#if download.url}}{{#if download.limitReached}}<p>{{download.fileName}} <span class="muted">All {{download.limit}} downloads this purchase allows have been used; contact {{merchant.name}} for another.</span></p>
{{else}}<p><a class="button download" href="{{download.url}}">Download {{download.fileName}}</a></p>
<p class="muted">This link works until {{date download.expiresAt}}; reload this page for a fresh one.{{#if download.limit}} Downloads used: {{download.count}} of {{download.limit}}.{{/if}}</p>
{{/if}}{{else}}<p>This file is no longer available; contact {{merchant.name}}.</p>
{{/if}}{{/if}}{{#if license}}<h2>Your licence key</h2>
<p><code class="license-key">{{license.key}}</code>{{#if licenseNote}} <span class="muted">{{licenseNote}}</span>{{/if}}</p>
{{/if}}{{#if shipment}}<h2>Shipment</h2>
<p>This item ships to your address. Shipment reference <span class="reference">{{shipment.id}}</span>.</p>
{{/if}}{{#if handDelivered}}<p>{{merchant.name}} delivers this item to you directly.</p>
{{/if}}`;
