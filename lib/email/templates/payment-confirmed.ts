import type { EmailTemplate } from './template';

export const paymentConfirmed: EmailTemplate = {
  subject: 'Payment received for order {{orderNumber}}',
  html: `<p>{{#if buyerName}}Hi {{buyerName}},{{else}}Hi,{{/if}}</p>
<p>We have received your payment of <strong>{{money amount currency}}</strong> for order <strong>{{orderNumber}}</strong>. Thank you!</p>
{{#if orderUrl}}<p><a href="{{orderUrl}}" style="color:{{merchant.brandColor}}">View your order</a></p>
{{/if}}`,
  text: `{{#if buyerName}}Hi {{buyerName}},{{else}}Hi,{{/if}}

We have received your payment of {{money amount currency}} for order {{orderNumber}}. Thank you!
{{#if orderUrl}}

View your order: {{orderUrl}}
{{/if}}
`,
};
