import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startPaymentSandbox, type PaymentSandbox, type SandboxOptions } from '../../lib/payment-provider/sandbox';

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
