/**
 * The frame around every HTML body: the merchant's colour bar with its logo (or name), the body, and a footer.
 * Tables and inline styles because mail clients ignore most of CSS. `{{{body}}}` is the kind's body, already
 * rendered (and escaped) by the same engine.
 */
export const HTML_LAYOUT = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>{{subject}}</title></head>
<body style="margin:0;padding:0;background:#f4f4f5;font-family:Helvetica,Arial,sans-serif;color:#18181b">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f4f5"><tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="600" cellpadding="0" cellspacing="0" style="max-width:600px;width:100%;background:#ffffff;border-radius:8px">
<tr><td style="background:{{merchant.brandColor}};padding:20px 24px;border-radius:8px 8px 0 0">
{{#if merchant.logoUrl}}<img src="{{merchant.logoUrl}}" alt="{{merchant.name}}" height="40" style="display:block;height:40px;border:0">{{else}}<span style="color:#ffffff;font-size:20px;font-weight:bold">{{merchant.name}}</span>{{/if}}
</td></tr>
<tr><td style="padding:24px;font-size:15px;line-height:1.5">
{{{body}}}
</td></tr>
<tr><td style="padding:16px 24px;font-size:12px;color:#71717a;border-top:1px solid #e4e4e7">{{merchant.name}}</td></tr>
</table>
</td></tr></table>
</body>
</html>
`;

export const TEXT_LAYOUT = `{{{body}}}
--
{{merchant.name}}
`;
