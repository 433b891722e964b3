/**
 * The Developers and Settings pages' templates (the dashboard's rules, api/dashboard/templates.ts): every value
 * escaped, no script or style attribute, every form with the session's CSRF token, every field labelled with its
 * error beside it (`aria-describedby`).
 */

const fieldError = (prefix: string, name: string) => `{{#if fieldErrors.${name}}}<span class="field-error" id="${prefix}-${name}-error">{{fieldErrors.${name}}}</span>{{/if}}`;
const invalid = (prefix: string, name: string) => `{{#if fieldErrors.${name}}} aria-invalid="true" aria-describedby="${prefix}-${name}-error"{{/if}}`;

/** A labelled single-line input of the storefront form, `name` its field (nested fields joined with dashes). */
const storefrontInput = (name: string, label: string, attributes = '') => `<div class="field"><label for="storefront-${name}">${label}</label>
<input id="storefront-${name}" name="${name}" value="{{form.${name}}}"${attributes}${invalid('storefront', name)}>
${fieldError('storefront', name)}</div>`;

const storefrontText = (name: string, label: string) => `<div class="field"><label for="storefront-${name}">${label}</label>
<textarea id="storefront-${name}" name="${name}" rows="3" maxlength="2000"${invalid('storefront', name)}>{{form.${name}}}</textarea>
${fieldError('storefront', name)}</div>`;

export const WEBHOOK_NEW = `<p class="crumbs"><a href="{{base}}/developers/webhooks">Webhooks</a></p>
<h1>Add a webhook endpoint</h1>
<p class="lead">Events of {{identity.workspace.name}} in {{modeLabel}} are posted to this HTTPS URL, signed with the endpoint’s secret. The secret is shown once, when the endpoint is created.</p>
<form class="panel" method="post" action="{{base}}/developers/webhooks" novalidate>{{> dashboardCsrf csrf=identity.csrfToken}}
<div class="field"><label for="webhook-url">URL</label>
<input id="webhook-url" name="url" type="url" maxlength="2048" required placeholder="https://example.com/webhooks/commerce" value="{{form.url}}"${invalid('webhook', 'url')}>
${fieldError('webhook', 'url')}</div>
<div class="field"><label for="webhook-description">Description (optional)</label>
<input id="webhook-description" name="description" maxlength="200" value="{{form.description}}"${invalid('webhook', 'description')}>
${fieldError('webhook', 'description')}</div>
<div class="field"><label for="webhook-events">Events (none selected: every event)</label>
<select id="webhook-events" name="events" multiple size="8"${invalid('webhook', 'events')}>{{#each eventTypes}}<option value="{{name}}"{{#if selected}} selected{{/if}}>{{name}}</option>{{/each}}</select>
${fieldError('webhook', 'events')}</div>
<button type="submit">Add endpoint</button>
</form>`;

export const WEBHOOK_ENDPOINT = `<p class="crumbs"><a href="{{base}}/developers/webhooks">Webhooks</a></p>
<h1 class="mono-heading">{{endpoint.url}} {{#if endpoint.active}}<span class="badge good">Active</span>{{else}}<span class="badge bad">Disabled</span>{{/if}}</h1>
<p class="lead"><span class="mono">{{endpoint.id}}</span>{{#if endpoint.description}} · {{endpoint.description}}{{/if}} · {{#if endpoint.events.length}}{{endpoint.events.length}} event types{{else}}every event{{/if}}</p>
{{#if secret}}<div class="panel" role="status">
<h2>Endpoint created</h2>
<p>Its signing secret is below. Copy it now: it will not be shown again.</p>
<code class="secret" id="new-webhook-secret">{{secret}}</code>
</div>
{{/if}}{{#if endpoint.active}}<form class="actions-bar" method="post" action="{{base}}/developers/webhooks/{{endpoint.id}}/test">{{> dashboardCsrf csrf=identity.csrfToken}}<button type="submit" class="secondary">Send a test event</button></form>
{{/if}}{{#if endpoint.events.length}}<details class="panel"><summary>Subscribed event types</summary><ul class="plain">{{#each endpoint.events}}<li class="mono">{{this}}</li>{{/each}}</ul></details>
{{/if}}<h2>Delivery log</h2>
<p class="small">Each attempt to deliver an event here, newest first. A delivery waiting for its next attempt can be retried now.</p>
<div class="table-wrap">
{{#if attempts.length}}<table>
<thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col" class="hide-narrow">Attempt</th><th scope="col" class="hide-narrow">Response</th><th scope="col" class="hide-narrow">At</th><th scope="col"><span class="hide-narrow">Actions</span></th></tr></thead>
<tbody>
{{#each attempts}}<tr><td><span class="mono">{{eventId}}</span><div class="small">{{type}}</div></td><td><span class="badge {{tone}}">{{statusText}}</span>{{#if nextAttemptAt}}<div class="small">next {{when nextAttemptAt}}</div>{{/if}}</td><td class="hide-narrow num">{{attempt}}</td><td class="hide-narrow">{{#if statusCode}}HTTP {{statusCode}}{{/if}}{{#if error}}<div class="small">{{error}}</div>{{/if}}<div class="small">{{durationMs}} ms</div></td><td class="hide-narrow">{{when createdAt}}</td>
<td class="actions">{{#if retryable}}<form method="post" action="{{../base}}/developers/webhooks/{{../endpoint.id}}/deliveries/{{eventId}}/retry">{{> dashboardCsrf csrf=../identity.csrfToken}}<button type="submit" class="secondary" aria-label="Retry the delivery of {{eventId}} now">Retry now</button></form>{{/if}}</td></tr>
{{/each}}</tbody>
</table>
{{else}}<p class="empty">No delivery attempts yet. Send a test event, or wait for the next event.</p>
{{/if}}</div>
{{#if nextCursor}}<p><a href="{{base}}/developers/webhooks/{{endpoint.id}}?cursor={{nextCursor}}">Older attempts</a></p>{{/if}}`;

export const MODULES = `<h1>Modules</h1>
<p class="lead">Optional parts of the service for {{identity.workspace.name}}, the same in test and live mode (as <code>POST /v1/modules</code> switches them).</p>
{{#each modules}}<div class="panel module">
<div><h2>{{title}} <span class="badge {{#if enabled}}good{{/if}}">{{#if enabled}}On{{else}}Off{{/if}}</span></h2>
<p>{{about}}</p></div>
<form method="post" action="{{../base}}/developers/modules">{{> dashboardCsrf csrf=../identity.csrfToken}}<input type="hidden" name="module" value="{{name}}"><input type="hidden" name="enabled" value="{{#if enabled}}false{{else}}true{{/if}}">
<button type="submit" class="{{#if enabled}}danger{{else}}secondary{{/if}}">Switch {{title}} {{#if enabled}}off{{else}}on{{/if}}</button></form>
</div>
{{/each}}`;

export const STOREFRONT = `<h1>Storefront settings</h1>
<p class="lead">How {{identity.workspace.name}} shows itself to buyers, in test and live mode alike: name and branding, measurement pixels, the hosts serving the storefront, and the payment instructions of the manual methods. An empty field clears it.</p>
<form method="post" action="{{base}}/settings/storefront" novalidate>{{> dashboardCsrf csrf=identity.csrfToken}}
<fieldset class="panel"><legend>Branding</legend>
${storefrontInput('name', 'Store name', ' maxlength="200" required')}
${storefrontText('description', 'Description')}
${storefrontInput('brandColor', 'Brand colour (#rrggbb)', ' maxlength="7" placeholder="#1f6feb"')}
${storefrontInput('brandLogo', 'Logo URL', ' type="url" maxlength="2048"')}
${storefrontInput('brandBanner', 'Banner URL', ' type="url" maxlength="2048"')}
</fieldset>
<fieldset class="panel"><legend>Pixels</legend>
${storefrontInput('metaPixelId', 'Meta pixel id', ' maxlength="64"')}
${storefrontInput('googleTagId', 'Google tag id', ' maxlength="64"')}
${storefrontInput('tiktokPixelId', 'TikTok pixel id', ' maxlength="64"')}
</fieldset>
<fieldset class="panel"><legend>Custom domains</legend>
<div class="field"><label for="storefront-customDomains">Hostnames, one a line (at most {{maxDomains}})</label>
<textarea id="storefront-customDomains" name="customDomains" rows="3"${invalid('storefront', 'customDomains')}>{{form.customDomains}}</textarea>
${fieldError('storefront', 'customDomains')}</div>
</fieldset>
<fieldset class="panel"><legend>Manual payment</legend>
${storefrontInput('manualPayment-bankName', 'Bank name', ' maxlength="100"')}
${storefrontInput('manualPayment-accountNumber', 'Account number', ' maxlength="50"')}
${storefrontInput('manualPayment-accountHolder', 'Account holder', ' maxlength="100"')}
${storefrontText('manualPayment-instructions', 'Bank transfer instructions')}
${storefrontInput('manualPayment-qris-imageUrl', 'QRIS image URL', ' type="url" maxlength="2048"')}
${storefrontText('manualPayment-qris-instructions', 'QRIS instructions')}
${storefrontText('manualPayment-ewallet-instructions', 'E-wallet instructions')}
${storefrontText('manualPayment-intlWallet-instructions', 'International wallet instructions')}
</fieldset>
<button type="submit">Save settings</button>
</form>`;
