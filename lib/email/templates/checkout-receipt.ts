import type { EmailTemplate } from './template';

export const checkoutReceipt: EmailTemplate = {
  subject: 'Your receipt from {{merchant.name}} ({{orderNumber}})',
  html: `<p>{{#if buyerName}}Hi {{buyerName}},{{else}}Hi,{{/if}}</p>
<p>Thank you for your order <strong>{{orderNumber}}</strong>.</p>
<table role="presentation" width="100%" cellpadding="6" cellspacing="0" style="border-collapse:collapse">
{{#each lines}}<tr><td style="border-bottom:1px solid #e4e4e7">{{name}} × {{quantity}}</td><td align="right" style="border-bottom:1px solid #e4e4e7">{{money amount ../currency}}</td></tr>
{{/each}}{{#if discount}}<tr><td>Subtotal</td><td align="right">{{money subtotal currency}}</td></tr>
<tr><td>Discount ({{discount.code}})</td><td align="right">−{{money discount.amount currency}}</td></tr>
{{/if}}<tr><td><strong>Total</strong></td><td align="right"><strong>{{money total currency}}</strong></td></tr>
</table>
{{#if downloads.length}}<h3 style="margin:24px 0 8px">Your downloads</h3>
<ul>{{#each downloads}}<li><a href="{{url}}" style="color:{{../merchant.brandColor}}">{{name}}</a></li>{{/each}}</ul>
{{/if}}{{#if licenceKeys.length}}<h3 style="margin:24px 0 8px">Your licence keys</h3>
<ul>{{#each licenceKeys}}<li>{{product}}: <code style="font-size:14px">{{key}}</code></li>{{/each}}</ul>
{{/if}}{{#if orderUrl}}<p style="margin-top:24px"><a href="{{orderUrl}}" style="color:{{merchant.brandColor}}">View your order</a></p>
{{/if}}`,
  text: `{{#if buyerName}}Hi {{buyerName}},{{else}}Hi,{{/if}}

Thank you for your order {{orderNumber}}.

{{#each lines}}
- {{name}} × {{quantity}}: {{money amount ../currency}}
{{/each}}
{{#if discount}}
Subtotal: {{money subtotal currency}}
Discount ({{discount.code}}): −{{money discount.amount currency}}
{{/if}}
Total: {{money total currency}}
{{#if downloads.length}}

Your downloads:
{{#each downloads}}
- {{name}}: {{url}}
{{/each}}
{{/if}}
{{#if licenceKeys.length}}

Your licence keys:
{{#each licenceKeys}}
- {{product}}: {{key}}
{{/each}}
{{/if}}
{{#if orderUrl}}

View your order: {{orderUrl}}
{{/if}}
`,
};
