import type { EmailTemplate } from './template';

/** A subscription charge found unpaid (at its due date or a dunning retry): the invoice and the link to pay it. */
export const subscriptionPaymentFailed: EmailTemplate = {
  subject: 'Payment due for invoice {{invoiceNumber}} at {{merchant.name}}',
  html: `<p>{{#if buyerName}}Hi {{buyerName}},{{else}}Hi,{{/if}}</p>
<p>We have not received the payment of <strong>{{money amount currency}}</strong> for invoice <strong>{{invoiceNumber}}</strong> ({{description}}).</p>
<p><a href="{{payUrl}}" style="color:{{merchant.brandColor}}">Pay invoice {{invoiceNumber}}</a></p>
{{#if nextAttemptOn}}<p>We will check for the payment again on {{nextAttemptOn}}.</p>
{{else}}<p>This was the last reminder for this invoice.</p>
{{/if}}`,
  text: `{{#if buyerName}}Hi {{buyerName}},{{else}}Hi,{{/if}}

We have not received the payment of {{money amount currency}} for invoice {{invoiceNumber}} ({{description}}).

Pay invoice {{invoiceNumber}}: {{payUrl}}
{{#if nextAttemptOn}}

We will check for the payment again on {{nextAttemptOn}}.
{{else}}

This was the last reminder for this invoice.
{{/if}}
`,
};
