/**
 * The buyer pages' shared Handlebars templates (the hosted checkout page, the order page). `{{value}}` escapes
 * (merchant and buyer text are never markup); `{{{…}}}` appears only for `body`, which the same engine rendered.
 * No template has a script, an inline event handler or a style attribute: the CSP allows none
 * (api/middleware/security-headers.ts).
 */

export const LAYOUT = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex,nofollow">
<title>{{title}}{{#if merchant}} · {{merchant.name}}{{/if}}</title>
<link rel="icon" href="{{base}}/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="{{base}}/assets/{{stylesheet}}">
{{#if brandStyle}}<style nonce="{{nonce}}">{{brandStyle}}</style>
{{/if}}</head>
<body>
<main class="card">
{{#if merchant}}<header class="merchant">
{{#if merchant.logoUrl}}<img class="logo" src="{{merchant.logoUrl}}" alt="" referrerpolicy="no-referrer">{{/if}}
<span class="merchant-name">{{merchant.name}}</span>
</header>
{{/if}}{{#if testMode}}<p class="test-mode">Test mode: no real payment is taken.</p>
{{/if}}<div class="content">
{{#if notice}}<p class="notice" role="alert">{{notice}}</p>
{{/if}}{{{body}}}
</div>
</main>
<footer class="footer">{{footer}} {{#if reference}}<span class="reference">{{reference}}</span>{{/if}}</footer>
</body>
</html>
`;

/** Pages without a record: an unknown id, a refused or failed request. */
export const MESSAGE = `<h1>{{heading}}</h1>
<p>{{message}}</p>`;
