import type { Transaction } from 'sequelize';
import { insertEmailMessage } from '../../db/email-messages';
import { Account } from '../../db/models';
import type { Tenant } from '../../db/tenancy';
import type { Config } from '../../lib/config';
import type { CryptoBox } from '../../lib/crypto-box';
import { emailMessageId, parseEmailData, parseMailbox, renderEmail, type EmailDataInput, type EmailKind, type EmailMerchant } from '../../lib/email';
import { recordStart } from '../workflow-starts';

export interface QueuedEmailRequest<K extends EmailKind> {
  kind: K;
  /** What makes this message one of a kind in the workspace environment, e.g. `checkout_receipt:cs_…`. */
  businessKey: string;
  to: string;
  data: EmailDataInput<K>;
}

export interface QueuedEmail {
  /** The sent-log row; null when the key was already queued (nothing written). */
  emailId: string | null;
  /** The `email-delivery:<eml>` workflow to start after commit (`startRecordedNow`); null when nothing was recorded. */
  workflowId: string | null;
}

export interface QueueOptions {
  /**
   * Who sends it: its own `email-delivery` workflow, recorded now (the default), or the workflow whose step queued it,
   * which sends it next and hands it to `recordEmailDelivery` if that attempt fails (the checkout receipt).
   */
  sender?: 'email-delivery' | 'caller';
}

/** Records the durable start of a queued e-mail's `email-delivery:<eml>` workflow, in the caller's transaction. */
export function recordEmailDelivery(tx: Transaction, tenant: Tenant, emailId: string): Promise<string> {
  return recordStart(tx, tenant, { workflowType: 'emailDelivery', input: { accountId: tenant.accountId, environment: tenant.environment, emailId } });
}

function merchantOf(account: Account): EmailMerchant {
  return {
    name: account.name,
    brandColor: account.brandColor,
    logoUrl: account.brandLogo,
    manualPayment: {
      bankName: account.manualBankName,
      accountNumber: account.manualAccountNumber,
      accountHolder: account.manualAccountHolder,
      instructions: account.manualPaymentInstructions,
    },
  };
}

/**
 * Queues buyer e-mails (docs/decisions/email.md): the message is rendered now, with the merchant's settings
 * of this moment, and recorded in the sent-log together with a durable start of its `email-delivery`
 * workflow, both in the caller's transaction, so the e-mail exists exactly when the business change commits.
 * Sending happens in a workflow's activity, never in the request: the e-mail's own workflow, or (`sender: 'caller'`)
 * the durable workflow that queued it, which records that start only if its own attempt fails.
 */
export function createEmailQueue({ box, config }: { box: CryptoBox; config: Pick<Config, 'EMAIL_FROM'> }) {
  return {
    async queue<K extends EmailKind>(tx: Transaction, tenant: Tenant, request: QueuedEmailRequest<K>, { sender = 'email-delivery' }: QueueOptions = {}): Promise<QueuedEmail> {
      const data = parseEmailData(request.kind, request.data);
      const to = parseMailbox(request.to);
      if (!to) throw new Error(`queueEmail: "${request.to}" is not one e-mail address`);
      const account = await Account.findByPk(tenant.accountId, { transaction: tx });
      if (!account) throw new Error(`queueEmail: workspace ${tenant.accountId} does not exist`);
      const rendered = renderEmail(request.kind, data, merchantOf(account));
      const emailId = await insertEmailMessage(tx, tenant, {
        kind: request.kind,
        businessKey: request.businessKey,
        messageId: emailMessageId({ ...tenant, businessKey: request.businessKey }, config.EMAIL_FROM),
        toAddress: to.address,
        subject: rendered.subject,
        body: box.seal(JSON.stringify({ html: rendered.html, text: rendered.text })),
      });
      if (!emailId) return { emailId: null, workflowId: null };
      if (sender === 'caller') return { emailId, workflowId: null };
      return { emailId, workflowId: await recordEmailDelivery(tx, tenant, emailId) };
    },
  };
}

export type EmailQueue = ReturnType<typeof createEmailQueue>;
