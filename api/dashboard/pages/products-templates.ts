/**
 * The products pages' templates (the dashboard's rules, api/dashboard/templates.ts): every value escaped, no
 * script or style attribute, every form with the session's CSRF token, every field with a label and its error
 * beside it (`aria-describedby`).
 */

/** A field's error, beside it inside its `.field`, and the attributes that tie the field to it. */
const fieldError = (name: string) => `{{#if fieldErrors.${name}}}<span class="field-error" id="product-${name}-error">{{fieldErrors.${name}}}</span>{{/if}}`;
const invalid = (name: string) => `{{#if fieldErrors.${name}}} aria-invalid="true" aria-describedby="product-${name}-error"{{/if}}`;

export const PRODUCT_NEW = `<p class="crumbs"><a href="{{base}}/products">Products</a></p>
<h1>New product</h1>
<p class="lead">A product of {{identity.workspace.name}} in {{modeLabel}}. It stays a draft, hidden from buyers, until you publish it. Add its file once it is created.</p>
<form class="panel" method="post" action="{{base}}/products" novalidate>{{> dashboardCsrf csrf=identity.csrfToken}}
<div class="field"><label for="product-name">Name</label>
<input id="product-name" name="name" maxlength="200" required value="{{form.name}}"${invalid('name')}>
${fieldError('name')}</div>
<div class="field"><label for="product-type">Type</label>
<select id="product-type" name="type"${invalid('type')}>{{#each types}}<option value="{{this}}"{{#if (eq this ../form.type)}} selected{{/if}}>{{this}}</option>{{/each}}</select>
${fieldError('type')}</div>
<div class="field-row">
<div class="field"><label for="product-price">Price (whole units)</label>
<input id="product-price" name="price" inputmode="numeric" required value="{{form.price}}"${invalid('price')}>
${fieldError('price')}</div>
<div class="field"><label for="product-currency">Currency</label>
<select id="product-currency" name="currency"${invalid('currency')}>{{#each currencies}}<option value="{{this}}"{{#if (eq this ../form.currency)}} selected{{/if}}>{{this}}</option>{{/each}}</select>
${fieldError('currency')}</div>
</div>
<div class="field"><label for="product-weight">Weight in grams (physical products only)</label>
<input id="product-weight" name="weight" inputmode="numeric" value="{{form.weight}}"${invalid('weight')}>
${fieldError('weight')}</div>
<div class="field"><label for="product-description">Description (optional)</label>
<textarea id="product-description" name="description" rows="5" maxlength="10000"${invalid('description')}>{{form.description}}</textarea>
${fieldError('description')}</div>
<div class="check"><input id="product-published" name="published" type="checkbox" value="on"{{#if form.published}} checked{{/if}}><label for="product-published">Publish now (buyers can see and buy it)</label></div>
<button type="submit">Create product</button>
</form>`;

export const PRODUCT_EDIT = `<p class="crumbs"><a href="{{base}}/products">Products</a></p>
<h1>{{product.name}} {{#if product.published}}<span class="badge good">Published</span>{{else}}<span class="badge">Draft</span>{{/if}}</h1>
<p class="lead mono">{{product.id}} · {{product.type}} · {{money priceMinor product.currency}}</p>
{{#if product.pageUrl}}<dl class="facts panel">
<div><dt>Product page</dt><dd class="mono">{{product.pageUrl}}</dd></div>
<div><dt>Buy-now checkout (the storefront’s buy button posts here{{#if test}}, with a pk_test_ key to buy in test mode{{/if}})</dt><dd class="mono">POST {{buyNowUrl}}</dd></div>
</dl>
{{/if}}<div class="panel">
<h2>Details</h2>
<form method="post" action="{{base}}/products/{{product.id}}" novalidate>{{> dashboardCsrf csrf=identity.csrfToken}}
<div class="field"><label for="product-name">Name</label>
<input id="product-name" name="name" maxlength="200" required value="{{form.name}}"${invalid('name')}>
${fieldError('name')}</div>
<div class="field"><label for="product-price">Price in {{product.currency}} (whole units)</label>
<input id="product-price" name="price" inputmode="numeric" required value="{{form.price}}"${invalid('price')}>
${fieldError('price')}</div>
<div class="field"><label for="product-description">Description (optional)</label>
<textarea id="product-description" name="description" rows="5" maxlength="10000"${invalid('description')}>{{form.description}}</textarea>
${fieldError('description')}</div>
<div class="check"><input id="product-published" name="published" type="checkbox" value="on"{{#if form.published}} checked{{/if}}><label for="product-published">Published (buyers can see and buy it)</label></div>
<button type="submit">Save changes</button>
</form>
</div>
{{#if digital}}<div class="panel">
<h2>Files</h2>
<p>Buyers receive these files after paying, through download links in their receipt. At most {{maxFileSize}} per file.</p>
{{#if product.files.length}}<ul class="file-list">
{{#each product.files}}<li><span class="mono">{{fileName}}</span> <span class="small">{{bytes fileSize}}{{#if mimeType}} · {{mimeType}}{{/if}} · added {{when createdAt}}</span></li>
{{/each}}</ul>
{{else}}<p class="empty-inline">No file yet: buyers would receive nothing to download.</p>
{{/if}}<form method="post" action="{{base}}/products/{{product.id}}/files" enctype="multipart/form-data">{{> dashboardCsrf csrf=identity.csrfToken}}
<div class="field"><label for="product-file">Upload a file</label>
<input id="product-file" name="file" type="file" required${invalid('file')}>
${fieldError('file')}</div>
<button type="submit">Upload</button>
</form>
</div>
{{/if}}<div class="panel">
<h2>Archive</h2>
<p>Archiving hides the product from the shop and the API; you can restore it from the Archived tab.</p>
<form method="post" action="{{base}}/products/{{product.id}}/archive">{{> dashboardCsrf csrf=identity.csrfToken}}<button type="submit" class="danger" aria-label="Archive {{product.name}}">Archive</button></form>
</div>`;
