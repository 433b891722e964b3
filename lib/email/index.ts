// The e-mail kernel: sender address, Message-IDs, kinds and their data, rendering, and the SMTP mailer.
export { parseMailbox, senderDomain } from './address';
export { EMAIL_DATA, EMAIL_KINDS, parseEmailData, type EmailData, type EmailDataInput, type EmailKind } from './kinds';
export { createMailer, isPermanentSmtpFailure, type Mailer, type OutgoingEmail } from './mailer';
export { emailMessageId } from './message-id';
export { renderEmail, type EmailMerchant, type RenderedEmail } from './render';
