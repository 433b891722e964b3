import addressparser from 'nodemailer/lib/addressparser';

export interface Mailbox {
  name: string;
  address: string;
}

const ADDRESS = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+$/;

/** One mailbox, `Name <local@domain>` or a bare address; null for anything else (a group, a list, no `@`). */
export function parseMailbox(text: string): Mailbox | null {
  const parsed = addressparser(text);
  if (parsed.length !== 1 || parsed[0]!.group) return null;
  const mailbox = parsed[0] as Mailbox;
  return ADDRESS.test(mailbox.address) ? mailbox : null;
}

/** The domain of the sender: the right-hand side of every Message-ID the service makes. */
export function senderDomain(from: string): string {
  const mailbox = parseMailbox(from);
  if (!mailbox) throw new Error(`"${from}" is not one e-mail address`);
  return mailbox.address.slice(mailbox.address.lastIndexOf('@') + 1).toLowerCase();
}
