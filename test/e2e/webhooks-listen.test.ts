/**
 * `npm run cli -- webhooks listen` end to end: the CLI as a child process (as a user runs it), the API in this
 * process, `worker/main.ts` as a child trusting the local CA of the CLI's DATA_DIR through NODE_EXTRA_CA_CERTS (as
 * `npm start` runs it), and a plain HTTP app on loopback the listener forwards to. Own database and namespace, so
 * the worker's outbox relay and schedules meet no other test file's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { msToTs } from '@temporalio/common/lib/time';
import { WebhookEndpoint } from '../../db/models';
import { verifyWebhookSignature } from '../../index';
import { ensureLocalCa } from '../../scripts/lib/local-ca';
import { tsxNodeArgs } from '../../scripts/lib/local-stack';
import { http, useTestApi } from '../helpers/context';
import { usePrivateDatabase } from '../helpers/private-database';
import { waitFor } from '../helpers/wait';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';

jest.setTimeout(180_000);

const ROOT = path.resolve(__dirname, '..', '..');
usePrivateDatabase('webhooks_listen');
const t = useTestApi();
const namespace = `webhooks-listen-${process.pid}-${Date.now()}`;
const taskQueue = 'commerce-listen-e2e';

interface Forwarded {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let dataDir: string;
let worker: WorkerProcess | undefined;
let app: Server;
const forwarded: Forwarded[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'listen-e2e-'));
  // What `npm start` does before it starts the worker: the local CA exists and the worker trusts it.
  const ca = await ensureLocalCa(dataDir);
  await t.ctx.temporal.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  worker = await startWorkerProcess({ NODE_EXTRA_CA_CERTS: ca.certFile, WEBHOOK_ALLOW_PRIVATE_URLS: 'true', TEMPORAL_NAMESPACE: namespace, TEMPORAL_TASK_QUEUE: taskQueue });
  app = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      forwarded.push({ path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end('thanks');
    });
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await worker?.stop();
  await new Promise<void>((resolve) => app?.close(() => resolve()));
  rmSync(dataDir, { recursive: true, force: true });
});

interface Cli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

function startCli(args: string[]): Cli {
  let out = '';
  let err = '';
  const child = spawn(process.execPath, [...tsxNodeArgs(path.join(ROOT, 'scripts/cli.ts')), 'webhooks', 'listen', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, TEMPORAL_NAMESPACE: namespace, TEMPORAL_TASK_QUEUE: taskQueue, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

const until = <T>(cli: Cli, probe: () => T | undefined | false | Promise<T | undefined | false>, what: string) =>
  waitFor(async () => probe(), {
    timeoutMs: 60_000,
    intervalMs: 100,
    describe: () => `${what}\n--- cli stdout ---\n${cli.stdout()}\n--- cli stderr ---\n${cli.stderr()}\n--- worker ---\n${worker?.output() ?? ''}`,
  });

describe('npm run cli -- webhooks listen', () => {
  it('registers a temporary endpoint, prints each verified event, forwards it unchanged, and removes the endpoint on SIGINT', async () => {
    const ws = await t.ctx.createWorkspace({ plan: 'pro' });
    const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/hooks/commerce`;
    const cli = startCli(['--api-key', ws.secretKey, '--events', 'service.product.created.v1', '--forward-to', appUrl]);
    try {
      const ready = await until(cli, () => /Ready: (https:\/\/127\.0\.0\.1:\d+\/webhooks) .* as endpoint (whe_\w+)\.\nSigning secret: (whsec_[\w-]+)/.exec(cli.stderr()) ?? undefined, 'the Ready line');
      const [, url, endpointId, secret] = ready;
      const endpoint = await WebhookEndpoint.findByPk(endpointId);
      expect(endpoint).toMatchObject({ accountId: ws.accountId, environment: 'test', url, events: ['service.product.created.v1'], active: true });

      // Filtered out by the endpoint: an update is never delivered, the create after it is.
      const product = await http<{ data: { id: string } }>(t.api.baseUrl, 'POST', '/api/v1/storefront/products', {
        key: ws.secretKey,
        body: { name: 'Listen notebook', price: 12, currency: 'USD', type: 'digital' },
      });
      expect(product.status).toBe(201);
      await http(t.api.baseUrl, 'PATCH', `/api/v1/storefront/products/${product.body.data.id}`, { key: ws.secretKey, body: { price: 13 } });

      const line = await until(cli, () => /^\S+Z {2}service\.product\.created\.v1 {2}(evt_[0-9A-Z]{26}) {2}signature verified$/m.exec(cli.stdout()) ?? undefined, 'the event line');
      const eventId = line[1]!;
      const hit = await until(cli, () => forwarded.find((f) => f.headers['x-service-event-id'] === eventId), 'the forwarded request');
      expect(hit.path).toBe('/hooks/commerce');
      expect(JSON.parse(hit.body)).toMatchObject({ id: eventId, type: 'service.product.created.v1', accountId: ws.accountId, data: { id: product.body.data.id } });
      expect(hit.headers['content-type']).toBe('application/json');
      expect(hit.headers['user-agent']).toMatch(/^CommerceService-Webhooks\//);
      expect(hit.headers['x-service-delivery-id']).toMatch(/^[0-9a-f-]{36}$/);
      // Forwarded unchanged: the original signature holds over the forwarded body with the printed secret.
      expect(verifyWebhookSignature(hit.body, hit.headers['x-service-signature'] as string, secret!)).toMatchObject({ valid: true });
      await until(cli, () => cli.stdout().includes(`  -> POST ${appUrl}  200`), 'the forward line');

      const again = await http(t.api.baseUrl, 'POST', '/api/v1/storefront/products', { key: ws.secretKey, body: { name: 'Second notebook', price: 12, currency: 'USD', type: 'digital' } });
      expect(again.status).toBe(201);
      await until(cli, () => cli.stdout().match(/service\.product\.created\.v1/g)?.length === 2, 'the second event line');
      expect(cli.stdout()).not.toContain('service.product.updated.v1');

      cli.child.kill('SIGINT');
      expect(await cli.exited).toBe(0);
      expect(cli.stdout()).toContain(`Stopped listening: endpoint ${endpointId} removed from ${ws.accountId} (test); 2 event(s) received.`);
      expect(await WebhookEndpoint.findByPk(endpointId)).toBeNull();
    } finally {
      cli.child.kill('SIGKILL');
    }
  });

  it('takes a workspace by slug (every event type), and removes an endpoint a killed listener left behind', async () => {
    const ws = await t.ctx.createWorkspace({ plan: 'pro' });
    const first = startCli(['--account', ws.slug!]);
    const [, killedEndpoint] = await until(first, () => /as endpoint (whe_\w+)\./.exec(first.stderr()) ?? undefined, 'the first Ready line');
    first.child.kill('SIGKILL');
    await first.exited;
    expect(await WebhookEndpoint.findByPk(killedEndpoint)).not.toBeNull();

    const second = startCli(['--account', ws.slug!]);
    try {
      const [, endpointId] = await until(second, () => /as endpoint (whe_\w+)\./.exec(second.stderr()) ?? undefined, 'the second Ready line');
      expect(second.stderr()).toContain(`removed ${killedEndpoint}, left behind by a listener that is no longer running`);
      expect(await WebhookEndpoint.findByPk(killedEndpoint)).toBeNull();

      const made = await http(t.api.baseUrl, 'POST', '/api/v1/storefront/products', { key: ws.secretKey, body: { name: 'Slug notebook', price: 12, currency: 'USD', type: 'digital' } });
      expect(made.status).toBe(201);
      await until(second, () => /service\.product\.created\.v1 {2}evt_\w+ {2}signature verified$/m.test(second.stdout()), 'the event line');

      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
      expect(await WebhookEndpoint.findByPk(endpointId)).toBeNull();
    } finally {
      second.child.kill('SIGKILL');
    }
  });
});
