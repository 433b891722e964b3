/**
 * The hosted checkout page's bodies, inside the buyer pages' layout (api/pages/shared/templates.ts, whose rules
 * hold here: `{{value}}` escapes, no script, no inline handler, no style attribute).
 */

/** The order: lines, discount and total, shown in every state of a known session. */
const SUMMARY = `<table class="summary">
<caption>{{description}}</caption>
<tbody>
{{#each lines}}<tr><th scope="row">{{name}}{{#if showQuantity}} <span class="quantity">× {{quantity}}</span>{{/if}}</th><td>{{money amount ../currency}}</td></tr>
{{/each}}</tbody>
<tfoot>
{{#if discount}}<tr class="subtotal"><th scope="row">Subtotal</th><td>{{money subtotal currency}}</td></tr>
<tr class="discount"><th scope="row">Discount <span class="code">{{discount.code}}</span></th><td>−{{money discount.amount currency}}</td></tr>
{{/if}}<tr class="total"><th scope="row">Total</th><td>{{money total currency}}</td></tr>
</tfoot>
</table>`;

export const PARTIALS = { summary: SUMMARY };

export const OPEN = `<h1>Checkout</h1>
{{> summary}}
{{#if methods.length}}<form class="pay" method="post" action="{{base}}/{{id}}/pay">
{{#if singleMethod}}<input type="hidden" name="paymentMethod" value="{{singleMethod.value}}">
<p class="method-single">Pay with <strong>{{singleMethod.label}}</strong></p>
{{else}}<fieldset class="methods">
<legend>Payment method</legend>
{{#each methods}}<label class="method"><input type="radio" name="paymentMethod" value="{{value}}"{{#if checked}} checked{{/if}} required> <span>{{label}}</span></label>
{{/each}}</fieldset>
{{/if}}<button type="submit" class="button">Pay {{money total currency}}</button>
</form>
{{else}}<p class="notice" role="status">{{merchant.name}} has not set up a way to pay on this page yet. Contact them to complete your order.</p>
{{/if}}<p class="muted">This checkout expires on {{date expiresAt}}.</p>
{{#if cancelUrl}}<p class="secondary"><a href="{{cancelUrl}}">Cancel and return to {{merchant.name}}</a></p>
{{/if}}`;

/** The chosen method's instructions (storefront settings `manualPayment`): a bank transfer's details, a QRIS code, text. */
export const PENDING = `<h1>Awaiting confirmation</h1>
<p>Please pay <strong>{{money total currency}}</strong> to {{merchant.name}}{{#if methodLabel}} by {{methodLabel}}{{/if}} as described below. Your order is confirmed as soon as {{merchant.name}} has received the payment; this page then shows your receipt.</p>
{{#if instructions.qrisImageUrl}}<figure class="qris">
<img class="qris-code" src="{{instructions.qrisImageUrl}}" alt="QRIS code of {{merchant.name}}" referrerpolicy="no-referrer">
<figcaption class="muted">Scan it with your banking or e-wallet app and pay {{money total currency}}.</figcaption>
</figure>
{{/if}}<dl class="transfer">
{{#if instructions.bankName}}<div><dt>Bank</dt><dd>{{instructions.bankName}}</dd></div>
{{/if}}{{#if instructions.accountNumber}}<div><dt>Account number</dt><dd class="copyable">{{instructions.accountNumber}}</dd></div>
{{/if}}{{#if instructions.accountHolder}}<div><dt>Account holder</dt><dd>{{instructions.accountHolder}}</dd></div>
{{/if}}<div><dt>Amount</dt><dd>{{money total currency}}</dd></div>
<div><dt>Reference</dt><dd class="copyable">{{id}}</dd></div>
{{#if methodLabel}}<div><dt>Method</dt><dd>{{methodLabel}}</dd></div>
{{/if}}</dl>
{{#if instructions.text}}<p class="instructions">{{lines instructions.text}}</p>
{{/if}}{{#unless instructions}}<p class="instructions">{{merchant.name}} has not published payment details for this method on this page; they will send them to you.</p>
{{/unless}}<p class="status"><span class="badge">Awaiting confirmation</span> Reload this page to see whether your payment has been confirmed.</p>
{{> summary}}`;

export const COMPLETED = `<h1>Payment received</h1>
<p>Thank you for your purchase from {{merchant.name}}{{#if completedAt}} on {{date completedAt}}{{/if}}.</p>
{{> summary}}
{{#if downloads.length}}<h2>Your downloads</h2>
<ul class="deliveries">
{{#each downloads}}{{#if url}}<li><a class="download" href="{{url}}">{{fileName}}</a> <span class="muted">{{lineName}} · {{#if exhausted}}download limit reached{{else}}link valid until {{date expiresAt}}{{/if}}</span></li>
{{else}}<li>{{lineName}} <span class="muted">This file is no longer available; contact {{../merchant.name}}.</span></li>
{{/if}}{{/each}}</ul>
{{/if}}{{#if licenses.length}}<h2>Your licence keys</h2>
<ul class="deliveries">
{{#each licenses}}<li><span class="muted">{{lineName}}</span> <code class="license-key">{{key}}</code></li>
{{/each}}</ul>
{{/if}}{{#if others.length}}<h2>Fulfilled by {{merchant.name}}</h2>
<ul class="deliveries">
{{#each others}}<li>{{lineName}} <span class="muted">{{note}}</span></li>
{{/each}}</ul>
{{/if}}{{#unless ready}}<p class="notice preparing" role="status">Your receipt is being prepared. Reload this page in a moment to see your downloads and licence keys.</p>
{{/unless}}{{#if orderPages.length}}<h2>Your order</h2>
<p class="muted">Each item has its own order page with its downloads, keys and status; the receipt e-mail links it too.</p>
<ul class="deliveries">
{{#each orderPages}}<li><a class="order-page" href="{{url}}">View your order: {{lineName}}</a></li>
{{/each}}</ul>
{{/if}}{{#if successUrl}}<p><a class="button" href="{{successUrl}}">Continue to {{merchant.name}}</a></p>
{{/if}}`;

export const EXPIRED = `<h1>This checkout has expired</h1>
<p>It was not paid in time, so it can no longer be paid. Start a new checkout at {{merchant.name}} to buy these items.</p>
{{> summary}}
{{#if cancelUrl}}<p><a class="button" href="{{cancelUrl}}">Return to {{merchant.name}}</a></p>
{{/if}}`;

export const FAILED = `<h1>This checkout could not be completed</h1>
<p>No payment is expected for it. Start a new checkout at {{merchant.name}} to buy these items.</p>
{{> summary}}
{{#if cancelUrl}}<p><a class="button" href="{{cancelUrl}}">Return to {{merchant.name}}</a></p>
{{/if}}`;
