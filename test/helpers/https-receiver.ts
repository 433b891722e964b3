import { writeFile } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generate } from 'selfsigned';

export interface TestCertificates {
  /** PEM of the test CA: trust it through NODE_EXTRA_CA_CERTS (child processes) or an agent's `ca`. */
  caCert: string;
  /** Leaf certificate for 127.0.0.1, ::1 and localhost, signed by the CA. */
  cert: string;
  key: string;
  /** The CA PEM written to a temporary file, for NODE_EXTRA_CA_CERTS. */
  caFile: string;
}

/** A throwaway CA and a loopback server certificate it signed (EC keys: fast to generate). */
export async function createTestCertificates(): Promise<TestCertificates> {
  const notAfterDate = new Date(Date.now() + 7 * 86_400_000);
  const ca = await generate([{ name: 'commonName', value: 'Webhook test CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const leaf = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notAfterDate,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }] },
    ],
  });
  const caFile = path.join(tmpdir(), `webhook-test-ca-${process.pid}-${Date.now()}.pem`);
  await writeFile(caFile, ca.cert);
  return { caCert: ca.cert, cert: leaf.cert, key: leaf.private, caFile };
}

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as received, for signature checks. */
  rawBody: string;
  /** Date.now() when the request was fully read. */
  receivedAt: number;
  /** The status this receiver answered. */
  status: number;
}

/** Decides the answer to each request: a status, optionally after a delay. */
export type Responder = (request: Omit<ReceivedWebhook, 'status'>, index: number) => number | { status: number; delayMs?: number; headers?: Record<string, string> };

export interface HttpsReceiver {
  readonly port: number;
  /** `https://127.0.0.1:<port><path>` */
  url(pathname?: string): string;
  readonly received: ReceivedWebhook[];
  respond(responder: Responder): void;
  /** Resolves once `predicate` holds over everything received so far. */
  waitFor(predicate: (received: ReceivedWebhook[]) => boolean, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  /** Stops listening (new connections are refused) and drops open connections; `listen` brings it back on the same port. */
  down(): Promise<void>;
  listen(): Promise<void>;
  close(): Promise<void>;
}

/** A real HTTPS server on loopback that records every webhook it receives. */
export async function startHttpsReceiver(certs: Pick<TestCertificates, 'cert' | 'key'>, port = 0): Promise<HttpsReceiver> {
  const received: ReceivedWebhook[] = [];
  let responder: Responder = () => 200;
  const sockets = new Set<Socket>();
  let count = 0;

  const server: Server = createServer({ cert: certs.cert, key: certs.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { path: req.url ?? '/', headers: req.headers, rawBody: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() };
      const answer = responder(request, count);
      count += 1;
      const { status, delayMs = 0, headers = {} } = typeof answer === 'number' ? { status: answer } : answer;
      received.push({ ...request, status });
      setTimeout(() => {
        res.writeHead(status, headers);
        res.end(status >= 200 && status < 300 ? 'ok' : 'nope');
      }, delayMs);
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('secureConnection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  const listenOn = (p: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(p, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listenOn(port);
  const boundPort = (server.address() as AddressInfo).port;

  const down = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) {
        resolve();
        return;
      }
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });

  return {
    port: boundPort,
    url: (pathname = '/webhooks') => `https://127.0.0.1:${boundPort}${pathname}`,
    received,
    respond(next) {
      responder = next;
    },
    async waitFor(predicate, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > deadline) throw new Error(`receiver: condition not met within ${timeoutMs} ms (${received.length} received)`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return received;
    },
    down,
    listen: () => listenOn(boundPort),
    close: down,
  };
}
