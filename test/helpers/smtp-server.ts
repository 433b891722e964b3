import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedEmail {
  /** MAIL FROM and RCPT TO of the SMTP conversation. */
  envelope: { from: string; to: string[] };
  raw: string;
  parsed: ParsedMail;
}

export interface TestSmtpServer {
  /** `smtp://user:secret@127.0.0.1:<port>`: the credentials the server requires. */
  url: string;
  received: ReceivedEmail[];
  /** Answers the next `count` messages' DATA with `code` (e.g. 451 for a temporary failure, 550 for a refusal). */
  refuseNext(count: number, code: number): void;
  /** Drops the refusals still waiting. */
  acceptAll(): void;
  close(): Promise<void>;
}

const USER = 'user';
const PASSWORD = 'secret';

/**
 * A real SMTP server on loopback (the `smtp-server` package, AUTH required, no TLS) that keeps every accepted
 * message, parsed by `mailparser`, so tests read back headers and both parts exactly as a mailbox would.
 */
export async function startTestSmtpServer(): Promise<TestSmtpServer> {
  const received: ReceivedEmail[] = [];
  const refusals: number[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: false,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === USER && auth.password === PASSWORD) return callback(null, { user: USER });
      return callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const code = refusals.shift();
        if (code !== undefined) {
          return callback(Object.assign(new Error(code >= 500 ? 'Mailbox unavailable' : 'Try again later'), { responseCode: code }));
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw).then(
          (parsed) => {
            received.push({
              envelope: { from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address) },
              raw,
              parsed,
            });
            callback();
          },
          (err: Error) => callback(err),
        );
      });
    },
  });
  // A client killed mid-conversation (the crash tests SIGKILL the worker) resets its connection, which the server
  // reports as an 'error' event; unheard, it would crash the test process. Nothing was accepted from that
  // connection, and the sender's retry is what those tests check.
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://${USER}:${PASSWORD}@127.0.0.1:${port}`,
    received,
    refuseNext(count, code) {
      for (let i = 0; i < count; i += 1) refusals.push(code);
    },
    acceptAll() {
      refusals.length = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
