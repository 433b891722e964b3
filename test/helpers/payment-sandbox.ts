import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { QueryTypes } from 'sequelize';
import { CheckoutSession } from '../../db/models';
import { startPaymentSandbox, type PaymentSandbox, type SandboxOptions } from '../../lib/payment-provider/sandbox';
import { createSession } from './checkout';
import { http, type TestContext } from './context';
import { waitFor } from './wait';

/** The sandbox provider's two accounts in tests: live and test mode, each with its own key and callback token. */
export const SANDBOX_LIVE = { secretKey: 'xnd_production_sandbox_live_key', callbackToken: `live-token-${'l'.repeat(32)}` };
export const SANDBOX_TEST = { secretKey: 'xnd_development_sandbox_test_key', callbackToken: `test-token-${'t'.repeat(32)}` };

/** The API's configuration for the sandbox at `baseUrl`. */
export function sandboxEnv(baseUrl: string): Record<string, string> {
  return {
    PAYMENT_PROVIDER_BASE_URL: baseUrl,
    PAYMENT_PROVIDER_SECRET_KEY: SANDBOX_LIVE.secretKey,
    PAYMENT_PROVIDER_CALLBACK_TOKEN: SANDBOX_LIVE.callbackToken,
    PAYMENT_PROVIDER_TEST_SECRET_KEY: SANDBOX_TEST.secretKey,
    PAYMENT_PROVIDER_TEST_CALLBACK_TOKEN: SANDBOX_TEST.callbackToken,
    PAYMENT_PROVIDER_TIMEOUT: '5s',
  };
}

/** The sandbox on a loopback ephemeral port, disbursements settled by the test (`settleDisbursements`) unless told otherwise. */
export function startTestSandbox(options: Partial<SandboxOptions> = {}): Promise<PaymentSandbox> {
  return startPaymentSandbox({ accounts: [SANDBOX_LIVE, SANDBOX_TEST], callbackUrl: null, disbursementDelayMs: 3_600_000, callbackRetryDelaysMs: [], ...options });
}

export interface ReceivedCallback {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A plain receiver of callbacks on loopback, answering `status` (200 unless changed). */
export async function startCallbackReceiver(): Promise<{ url: string; received: ReceivedCallback[]; status: number; close(): Promise<void> }> {
  const received: ReceivedCallback[] = [];
  const state = { status: 200 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(state.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks`,
    received,
    get status() {
      return state.status;
    },
    set status(value: number) {
      state.status = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The payment module of the workspace of `key` switched on or off, through the API at `baseUrl`. */
export async function switchPaymentModule(baseUrl: string, key: string, enabled: boolean): Promise<void> {
  const res = await http(baseUrl, 'POST', '/api/v1/modules', { key, body: { module: 'payment', enabled } });
  expect(res.status).toBe(200);
}

/** The form of the sandbox's hosted invoice page at `url`, posted as a buyer's browser would. */
export const payForm = (url: string, form: Record<string, string>) => fetch(`${url}/pay`, { method: 'POST', body: new URLSearchParams(form), redirect: 'manual' });

/**
 * A new workspace with the payment module on, and a provider session created through `baseUrl` and paid by QRIS on
 * the provider's page: completed, and the completion's recorded workflow start settled (the callback starts it
 * right after its commit), so a snapshot taken now stays as it is.
 */
export async function paidProviderSession(ctx: TestContext, baseUrl: string) {
  const ws = await ctx.createWorkspace();
  await switchPaymentModule(baseUrl, ws.secretKey, true);
  const created = await createSession(baseUrl, ws.secretKey, { paymentMethods: ['qris'] });
  await payForm(created.hostedUrl as string, { channel: 'QRIS' });
  await waitFor(async () => (await CheckoutSession.findByPk(created.id))?.status === 'completed');
  await waitFor(async () => {
    const [pending] = await ctx.sequelize.query<{ n: number }>('SELECT count(*)::int AS n FROM workflow_starts WHERE account_id = $1 AND started_at IS NULL', {
      bind: [ws.accountId],
      type: QueryTypes.SELECT,
    });
    return pending!.n === 0;
  });
  return { ws, created };
}
