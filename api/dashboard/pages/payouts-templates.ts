/** The payouts page: balance, bank account, request a payout, history (the discipline of ../templates.ts). */

const field = (id: string, name: string, label: string, attributes: string, formName: string, errorsName: string) =>
  `<div class="field"><label for="${id}">${label}</label>
<input id="${id}" name="${name}" ${attributes} value="{{${formName}.${name}}}"{{#if ${errorsName}.${name}}} aria-invalid="true" aria-describedby="${id}-error"{{/if}}>
{{#if ${errorsName}.${name}}}<span class="field-error" id="${id}-error">{{${errorsName}.${name}}}</span>{{/if}}</div>`;

export const PAYOUTS = `<h1>Payouts</h1>
<p class="lead">The balance of {{identity.workspace.name}}, {{modeLabel}}: sales become available after settlement and are paid out to the bank account on request.</p>
<dl class="stats">
{{#each balances}}<div class="stat"><dt>Available ({{currency}})</dt><dd>{{moneyOf available currency}}</dd></div>
<div class="stat"><dt>Pending ({{currency}})</dt><dd>{{moneyOf pending currency}}</dd></div>
{{/each}}</dl>
<div class="panel" id="request">
<h2>Request a payout</h2>
{{#if payoutError}}<p class="error" role="alert" id="payout-error">{{payoutError}}</p>
{{/if}}{{#if canRequest}}<p>The amount leaves the available balance at once and is paid to {{bankAccount.bankName}} ({{bankAccount.bankAccountHolder}}, ending {{accountEnding}}).</p>
<form method="post" action="{{base}}/payouts" novalidate>{{> dashboardCsrf csrf=identity.csrfToken}}<input type="hidden" name="latestPayoutId" value="{{latestPayoutId}}">
<div class="field-row">
<div class="field"><label for="payout-currency">Currency</label>
<select id="payout-currency" name="currency"{{#if payoutErrors.currency}} aria-invalid="true" aria-describedby="payout-currency-error"{{/if}}>{{#each balances}}<option value="{{currency}}"{{#if (eq currency ../payoutForm.currency)}} selected{{/if}}>{{currency}} ({{moneyOf available currency}} available)</option>{{/each}}</select>
{{#if payoutErrors.currency}}<span class="field-error" id="payout-currency-error">{{payoutErrors.currency}}</span>{{/if}}</div>
${field('payout-amount', 'amount', 'Amount', 'inputmode="decimal" autocomplete="off" placeholder="{{amountExample}}"', 'payoutForm', 'payoutErrors')}
</div>
<div class="field"><label for="payout-note">Note (optional)</label>
<input id="payout-note" name="note" maxlength="500" value="{{payoutForm.note}}"{{#if payoutErrors.note}} aria-invalid="true" aria-describedby="payout-note-error"{{/if}}>
{{#if payoutErrors.note}}<span class="field-error" id="payout-note-error">{{payoutErrors.note}}</span>{{/if}}</div>
<button type="submit">Request payout</button>
</form>
{{else if balances.length}}<p>Set a bank account below before requesting a payout.</p>
{{else}}<p>Nothing to pay out yet: the balance starts with the first completed sale in {{modeLabel}}.</p>
{{/if}}</div>
<div class="panel" id="bank-account">
<h2>Bank account</h2>
{{#if bankAccount}}<dl class="facts">
<div><dt>Bank</dt><dd>{{bankAccount.bankName}}{{#if bankAccount.bankCode}} ({{bankAccount.bankCode}}){{/if}}</dd></div>
<div><dt>Account holder</dt><dd>{{bankAccount.bankAccountHolder}}</dd></div>
<div><dt>Account number</dt><dd class="mono">ending {{accountEnding}}</dd></div>
<div><dt>Last changed</dt><dd>{{when bankAccount.updatedAt}}</dd></div>
</dl>
<h3>Replace it</h3>
{{else}}<p>Payouts are paid to this account. Nothing is set yet.</p>
{{/if}}<form method="post" action="{{base}}/payouts/bank-account" novalidate>{{> dashboardCsrf csrf=identity.csrfToken}}
<div class="form-grid">
${field('bank-name', 'bankName', 'Bank name', 'maxlength="100" autocomplete="off"', 'bankForm', 'bankErrors')}
${field('bank-code', 'bankCode', 'Bank code (optional)', 'maxlength="32" autocomplete="off"', 'bankForm', 'bankErrors')}
${field('bank-holder', 'bankAccountHolder', 'Account holder', 'maxlength="100" autocomplete="off"', 'bankForm', 'bankErrors')}
${field('bank-number', 'bankAccountNumber', 'Account number', 'maxlength="50" autocomplete="off" inputmode="numeric"', 'bankForm', 'bankErrors')}
</div>
<button type="submit" class="{{#if bankAccount}}secondary{{/if}}">{{#if bankAccount}}Replace bank account{{else}}Save bank account{{/if}}</button>
</form>
</div>
<h2>History</h2>
<div class="table-wrap">
{{#if payouts.length}}<table>
<thead><tr><th scope="col">Payout</th><th scope="col">Status</th><th scope="col" class="num">Amount</th><th scope="col" class="hide-narrow">To</th><th scope="col" class="hide-narrow">Requested</th></tr></thead>
<tbody>
{{#each payouts}}<tr><td class="mono">{{id}}<div class="small show-narrow">{{when requestedAt}}</div></td><td><span class="badge {{tone}}">{{words status}}</span>{{#if failureReason}}<div class="small">{{failureReason}}</div>{{/if}}</td><td class="num">{{moneyOf amount currency}}</td><td class="hide-narrow">{{bankName}} · {{ending}}</td><td class="hide-narrow">{{when requestedAt}}</td></tr>
{{/each}}</tbody>
</table>
{{else}}<p class="empty">No payouts yet in {{modeLabel}}.</p>
{{/if}}</div>
{{#if nextCursor}}<p><a href="{{base}}/payouts?cursor={{nextCursor}}">Older payouts</a></p>{{/if}}`;
