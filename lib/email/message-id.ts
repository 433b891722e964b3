import { createHash } from 'node:crypto';
import { senderDomain } from './address';

/**
 * The Message-ID of one business message: the same key always gives the same id, so a message that is sent
 * twice (the window docs/decisions/email.md describes) carries one id that receivers and filters can
 * de-duplicate on. The key is hashed: it holds workspace and order ids the header should not spell out.
 */
export function emailMessageId(key: { accountId: string; environment: string; businessKey: string }, from: string): string {
  const digest = createHash('sha256').update(`${key.accountId}\n${key.environment}\n${key.businessKey}`).digest('hex');
  return `<${digest}@${senderDomain(from)}>`;
}
