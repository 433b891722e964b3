import type { EmailTemplate } from './template';

/** A notice to the workspace's owner: which key, who rotated it, and until when the old value still works. */
export const apiKeyRotated: EmailTemplate = {
  subject: 'API key “{{keyName}}” of {{merchant.name}} was rotated',
  html: `<p>Hi,</p>
<p>The {{environment}} API key <strong>{{keyName}}</strong> (<code>{{keyHint}}</code>) of {{merchant.name}} was rotated by {{rotatedBy}} on {{rotatedAt}}.</p>
<p>A new value replaces it. The old value keeps working until <strong>{{oldValueExpiresAt}}</strong> and is refused after that: put the new value in place before then.</p>
<p>If you did not expect this, revoke the keys concerned in the dashboard and sign out everywhere.</p>
<p><a href="{{keysUrl}}" style="color:{{merchant.brandColor}}">Open the API keys</a></p>
`,
  text: `Hi,

The {{environment}} API key "{{keyName}}" ({{keyHint}}) of {{merchant.name}} was rotated by {{rotatedBy}} on {{rotatedAt}}.

A new value replaces it. The old value keeps working until {{oldValueExpiresAt}} and is refused after that: put the new value in place before then.

If you did not expect this, revoke the keys concerned in the dashboard and sign out everywhere.

Open the API keys: {{keysUrl}}
`,
};
