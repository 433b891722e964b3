import type { EmailTemplate } from './template';

/** The bank details are the merchant's storefront settings (`manualPayment`) at the time the order was placed. */
export const manualOrderInstructions: EmailTemplate = {
  subject: 'How to pay for order {{orderNumber}} at {{merchant.name}}',
  html: `<p>{{#if buyerName}}Hi {{buyerName}},{{else}}Hi,{{/if}}</p>
<p>Thank you for your order <strong>{{orderNumber}}</strong>. Please transfer <strong>{{money amount currency}}</strong> to:</p>
<table role="presentation" cellpadding="4" cellspacing="0">
{{#if merchant.manualPayment.bankName}}<tr><td>Bank</td><td><strong>{{merchant.manualPayment.bankName}}</strong></td></tr>
{{/if}}{{#if merchant.manualPayment.accountNumber}}<tr><td>Account number</td><td><strong>{{merchant.manualPayment.accountNumber}}</strong></td></tr>
{{/if}}{{#if merchant.manualPayment.accountHolder}}<tr><td>Account holder</td><td><strong>{{merchant.manualPayment.accountHolder}}</strong></td></tr>
{{/if}}<tr><td>Reference</td><td><strong>{{orderNumber}}</strong></td></tr>
</table>
{{#if merchant.manualPayment.instructions}}<p>{{lines merchant.manualPayment.instructions}}</p>
{{/if}}<p>We will confirm by e-mail once the payment has arrived.</p>
{{#if orderUrl}}<p><a href="{{orderUrl}}" style="color:{{merchant.brandColor}}">View your order</a></p>
{{/if}}`,
  text: `{{#if buyerName}}Hi {{buyerName}},{{else}}Hi,{{/if}}

Thank you for your order {{orderNumber}}. Please transfer {{money amount currency}} to:

{{#if merchant.manualPayment.bankName}}
Bank: {{merchant.manualPayment.bankName}}
{{/if}}
{{#if merchant.manualPayment.accountNumber}}
Account number: {{merchant.manualPayment.accountNumber}}
{{/if}}
{{#if merchant.manualPayment.accountHolder}}
Account holder: {{merchant.manualPayment.accountHolder}}
{{/if}}
Reference: {{orderNumber}}
{{#if merchant.manualPayment.instructions}}

{{merchant.manualPayment.instructions}}
{{/if}}

We will confirm by e-mail once the payment has arrived.
{{#if orderUrl}}

View your order: {{orderUrl}}
{{/if}}
`,
};
