import type { EmailTemplate } from './template';

export const shippingNotification: EmailTemplate = {
  subject: 'Your order {{orderNumber}} has shipped',
  html: `<p>{{#if buyerName}}Hi {{buyerName}},{{else}}Hi,{{/if}}</p>
<p>Good news: your order <strong>{{orderNumber}}</strong> is on its way.</p>
{{#if courier}}<p>Courier: <strong>{{courier}}</strong></p>
{{/if}}{{#if trackingNumber}}<p>Tracking number: <strong>{{trackingNumber}}</strong></p>
{{/if}}{{#if trackingUrl}}<p><a href="{{trackingUrl}}" style="color:{{merchant.brandColor}}">Track your parcel</a></p>
{{/if}}`,
  text: `{{#if buyerName}}Hi {{buyerName}},{{else}}Hi,{{/if}}

Good news: your order {{orderNumber}} is on its way.
{{#if courier}}
Courier: {{courier}}
{{/if}}
{{#if trackingNumber}}
Tracking number: {{trackingNumber}}
{{/if}}
{{#if trackingUrl}}

Track your parcel: {{trackingUrl}}
{{/if}}
`,
};
