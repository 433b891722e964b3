import nodemailer from 'nodemailer';
import type { Config } from '../config';
import { inSpan } from '../tracing';

export interface OutgoingEmail {
  to: string;
  subject: string;
  html: string;
  text: string;
  /** `<…@domain>`, fixed per business message so that every attempt carries the same one. */
  messageId: string;
}

/** The SMTP server's answer to a message it refused (nodemailer's error shape). */
export interface SmtpError extends Error {
  responseCode?: number;
}

export interface Mailer {
  /** Resolves once the SMTP server accepted the message for every recipient; rejects otherwise. */
  send(message: OutgoingEmail): Promise<void>;
  close(): void;
}

/** True when the server refused for good (5xx): sending again cannot help. */
export function isPermanentSmtpFailure(err: unknown): boolean {
  const code = (err as SmtpError | null)?.responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}

// Bounded, so an attempt ends well within the sending activity's start-to-close timeout (2 minutes).
const TIMEOUTS = { connectionTimeout: 20_000, greetingTimeout: 20_000, socketTimeout: 30_000 };

/**
 * Every buyer e-mail goes out through here: SMTP_URL (`smtp://` or `smtps://`, credentials in the URL) from
 * EMAIL_FROM. Without SMTP_URL each send fails with a message saying so; the sending workflow retries, so mail
 * queued meanwhile goes out once the worker is restarted with SMTP_URL set.
 */
export function createMailer(config: Pick<Config, 'SMTP_URL' | 'EMAIL_FROM'>): Mailer {
  const url = config.SMTP_URL;
  if (!url) {
    return {
      send: () => Promise.reject(new Error('SMTP_URL is not set: e-mail cannot be sent (set SMTP_URL and restart the worker)')),
      close: () => undefined,
    };
  }
  const transport = nodemailer.createTransport({ url, ...TIMEOUTS });
  const server = new URL(url);
  // nodemailer has no OpenTelemetry instrumentation: one span per send, naming the server and never the recipient.
  const spanAttributes = { 'server.address': server.hostname, 'server.port': Number(server.port || (server.protocol === 'smtps:' ? 465 : 587)), 'network.protocol.name': 'smtp' };
  return {
    async send(message) {
      await inSpan('smtp send', spanAttributes, () =>
        transport.sendMail({
          from: config.EMAIL_FROM,
          to: message.to,
          subject: message.subject,
          html: message.html,
          text: message.text,
          messageId: message.messageId,
        }),
      );
    },
    close: () => transport.close(),
  };
}
