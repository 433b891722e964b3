/**
 * `npm run cli -- webhooks listen`: the local counterpart of `stripe listen`. It runs an HTTPS receiver on loopback
 * with a certificate of the local stack's CA (scripts/lib/local-ca.ts, which `npm start` has the worker trust),
 * registers it as a temporary webhook endpoint of the chosen workspace and environment, prints every event it
 * receives with the outcome of the project's own signature check, optionally forwards each one unchanged (headers
 * and body) to a local HTTP URL, and removes the endpoint when it is stopped (SIGINT or SIGTERM).
 *
 * The endpoint goes through the webhooks service like any other (plan cap, audit log, event filter); the target
 * check is lifted for it because the CLI itself chose the loopback address. Endpoints left behind by a listener that
 * was killed are recognised by their description (host and pid) and removed by the next `listen` on the same host.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import type { Client } from '@temporalio/client';
import { Op, type Sequelize } from 'sequelize';
import { Account, ApiKey, WebhookEndpoint, type Environment } from '../../db/models';
import type { AuthContext } from '../../domain/auth-context';
import { CreateWebhookEndpointBody, createWebhookEndpointService } from '../../domain/webhooks';
import { createStarters } from '../../domain/workflow-starters';
import { hashKey } from '../../lib/api-key-secrets';
import { requireKeyRing, type Config } from '../../lib/config';
import { createCryptoBox } from '../../lib/crypto-box';
import { AppError, notFound } from '../../lib/errors';
import { createLogger } from '../../lib/logger';
import { SIGNATURE_HEADER, verifyWebhookSignature } from '../../lib/webhooks/signature';
import { ensureLocalCa, issueLoopbackCertificate } from './local-ca';
import { isProcessAlive } from './local-stack';

/** Marks the endpoints a listener registers: `[cli:listen] … (pid <n> on <host>)`. */
const LISTEN_TAG = '[cli:listen]';
/** Headers that belong to one connection, not to the webhook: never forwarded. */
const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'expect']);
const FORWARD_TIMEOUT_MS = 9_000;

export interface ListenInput {
  /** A secret API key: its workspace and environment. */
  apiKey?: string;
  /** Or a workspace by slug or `acc_…` id (operator access), in `environment`. */
  account?: string;
  environment: Environment;
  /** Event types to receive; empty: all. */
  events: string[];
  forwardTo?: URL;
  /** The receiver's port; 0: any free one. */
  port: number;
}

export interface ListenTools {
  temporal(): Promise<Client>;
  progress(line: string): void;
}

export interface ListenResult {
  endpointId: string;
  accountId: string;
  environment: Environment;
  received: number;
  removed: boolean;
}

async function resolveTenant(input: ListenInput): Promise<{ accountId: string; environment: Environment; apiKeyId: string | null }> {
  if (input.apiKey) {
    const key = await ApiKey.findOne({ where: { keyHash: hashKey(input.apiKey) } });
    if (!key || key.revokedAt) throw new AppError('INVALID_API_KEY', '--api-key: no such key, or it has been revoked');
    if (key.access !== 'secret') throw new AppError('FORBIDDEN', '--api-key: a secret key (sk_…) is needed to register a webhook endpoint');
    return { accountId: key.accountId, environment: key.environment, apiKeyId: key.id };
  }
  const ref = input.account ?? '';
  const account = await Account.findOne({ where: ref.startsWith('acc_') ? { id: ref } : { slug: ref } });
  if (!account) throw notFound(`Workspace ${ref}`);
  return { accountId: account.id, environment: input.environment, apiKeyId: null };
}

async function authFor(tenant: { accountId: string; environment: Environment; apiKeyId: string | null }): Promise<AuthContext> {
  const account = await Account.findByPk(tenant.accountId);
  if (!account) throw notFound(`Workspace ${tenant.accountId}`);
  return {
    ...tenant,
    access: 'secret',
    account: { id: account.id, name: account.name, slug: account.slug, plan: account.plan, fulfillmentEnabled: account.fulfillmentEnabled, paymentEnabled: account.paymentEnabled },
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const header = (headers: IncomingHttpHeaders, name: string) => {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

/** POSTs the webhook on as it came: the same body bytes and the same headers (signature included). */
async function forward(target: URL, headers: IncomingHttpHeaders, body: Buffer): Promise<{ status: number } | { error: string }> {
  const outgoing: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    outgoing[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  try {
    const response = await fetch(target, { method: 'POST', headers: outgoing, body, redirect: 'manual', signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS) });
    await response.arrayBuffer();
    return { status: response.status };
  } catch (err) {
    return { error: (err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message };
  }
}

/**
 * Resolves on the first SIGINT or SIGTERM. Ctrl-C reaches the whole process group, and tsx's parent process relays
 * it once more: the handlers stay until `release`, so a repeated signal cannot kill the process while it removes
 * its endpoint.
 */
function untilStopped(): { stopped: Promise<NodeJS.Signals>; release(): void } {
  let stop: (signal: NodeJS.Signals) => void = () => undefined;
  const stopped = new Promise<NodeJS.Signals>((resolve) => (stop = resolve));
  const onSignal = (signal: NodeJS.Signals) => stop(signal);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    stopped,
    release() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

export async function listenForWebhooks(sequelize: Sequelize, config: Config, input: ListenInput, tools: ListenTools): Promise<ListenResult> {
  const body = CreateWebhookEndpointBody.safeParse({ url: 'https://127.0.0.1/', events: input.events });
  if (!body.success) throw new AppError('VALIDATION_ERROR', `--events: ${body.error.issues.map((i) => i.message).join('; ')}`);
  const { stopped, release } = untilStopped();
  const tenant = await resolveTenant(input);
  const auth = await authFor(tenant);
  const temporal = await tools.temporal();
  const endpoints = createWebhookEndpointService({
    sequelize,
    // The receiver is this process's own loopback address, not a merchant's URL: the private-target rule is lifted for it.
    config: { ...config, WEBHOOK_ALLOW_PRIVATE_URLS: true },
    box: createCryptoBox(requireKeyRing(config)),
    temporal,
    starters: createStarters(temporal, { taskQueue: config.TEMPORAL_TASK_QUEUE }),
    logger: createLogger('warn', 'webhooks-listen'),
  });

  const host = hostname();
  const leftovers = await WebhookEndpoint.findAll({ where: { accountId: auth.accountId, environment: auth.environment, description: { [Op.startsWith]: LISTEN_TAG } } });
  for (const endpoint of leftovers) {
    const owner = /\(pid (\d+) on (.+)\)$/.exec(endpoint.description ?? '');
    if (owner && owner[2] === host && !isProcessAlive(Number(owner[1]))) {
      await endpoints.remove(auth, endpoint.id);
      tools.progress(`removed ${endpoint.id}, left behind by a listener that is no longer running`);
    }
  }

  const ca = await ensureLocalCa(config.DATA_DIR);
  let secret = '';
  let received = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const raw = await readBody(req);
    let event: { id?: unknown; type?: unknown } = {};
    try {
      event = JSON.parse(raw.toString('utf8')) as typeof event;
    } catch {
      // printed as unreadable below
    }
    received += 1;
    const check = verifyWebhookSignature(raw, header(req.headers, SIGNATURE_HEADER), secret);
    const verdict = check.valid ? 'signature verified' : `signature NOT verified (${check.reason})`;
    const at = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    process.stdout.write(`${at}  ${typeof event.type === 'string' ? event.type : '(unreadable body)'}  ${typeof event.id === 'string' ? event.id : '-'}  ${verdict}\n`);
    if (!input.forwardTo) {
      res.writeHead(check.valid ? 204 : 400).end();
      return;
    }
    // The service sees the forward target's answer, so its retries behave as they would against that app.
    const outcome = await forward(input.forwardTo, req.headers, raw);
    if ('status' in outcome) {
      process.stdout.write(`  -> POST ${input.forwardTo.href}  ${outcome.status}\n`);
      res.writeHead(outcome.status).end();
    } else {
      process.stdout.write(`  -> POST ${input.forwardTo.href}  failed: ${outcome.error}\n`);
      res.writeHead(502).end();
    }
  };
  const server: Server = createServer(await issueLoopbackCertificate(ca), (req, res) => {
    handle(req, res).catch((err: unknown) => {
      tools.progress(`could not handle a request: ${(err as Error).message}`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(input.port, '127.0.0.1', () => resolve());
  });
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;

  let endpointId = '';
  let removed = false;
  try {
    const endpoint = await endpoints.create(auth, {
      ...body.data,
      url,
      description: `${LISTEN_TAG} npm run cli -- webhooks listen (pid ${process.pid} on ${host})`,
    });
    endpointId = endpoint.id;
    secret = endpoint.secret;
    const events = input.events.length > 0 ? input.events.join(', ') : 'every event';
    tools.progress(
      [
        `Ready: ${url} receives ${events} of ${auth.account.name} (${auth.accountId}, ${auth.environment}) as endpoint ${endpoint.id}.`,
        `Signing secret: ${secret}${input.forwardTo ? `   (each event is forwarded unchanged to ${input.forwardTo.href}; verify it with this secret)` : ''}`,
        'Ctrl-C stops listening and removes the endpoint.',
      ].join('\n'),
    );
    const signal = await stopped;
    tools.progress(`${signal}: removing ${endpoint.id}…`);
  } finally {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    try {
      if (endpointId) {
        await endpoints.remove(auth, endpointId);
        removed = true;
      }
    } finally {
      release();
    }
  }
  return { endpointId, accountId: auth.accountId, environment: auth.environment, received, removed };
}

export const describeListenResult = (r: ListenResult) =>
  `Stopped listening: endpoint ${r.endpointId} ${r.removed ? 'removed' : 'NOT removed'} from ${r.accountId} (${r.environment}); ${r.received} event(s) received.`;
