import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { http } from './context';

type Until = (probe: () => Promise<boolean>, what: string) => Promise<unknown>;

/**
 * A workspace's billing calls through the API with its secret key, for the end-to-end subscription journeys: a call
 * that answers anything but `expected` throws with the answer. `Sub` and `Inv` are the fields a test reads.
 */
export function billingApi<Sub, Inv>(baseUrl: string, ws: CreatedWorkspace, until: Until) {
  const call = async <T>(method: string, path: string, body?: unknown, expected = 200, headers: Record<string, string> = {}): Promise<T> => {
    const res = await http<{ data: T }>(baseUrl, method, `/api/v1${path}`, { key: ws.secretKey, body, headers });
    if (res.status !== expected) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return res.body.data;
  };
  let keys = 0;
  return {
    call,
    subscribe: (body: Record<string, unknown>) => call<Sub>('POST', '/payment/subscriptions', body, 201, { 'idempotency-key': `e2e-${ws.accountId}-${++keys}` }),
    sub: (id: string) => call<Sub>('GET', `/payment/subscriptions/${id}`),
    /** The subscription's invoices, oldest first. */
    invoices: async (subscriptionId: string) => (await call<Inv[]>('GET', `/payment/invoices?subscriptionId=${subscriptionId}`)).reverse(),
    /** Moves the clock and waits until it is `ready` again: every step due up to `frozenTime` has run. */
    async advance(clockId: string, frozenTime: string): Promise<void> {
      const advancing = await call<{ status: string; frozenTime: string }>('POST', `/payment/test-clocks/${clockId}/advance`, { frozenTime });
      if (advancing.status !== 'advancing' || advancing.frozenTime !== new Date(frozenTime).toISOString()) throw new Error(`advance answered ${JSON.stringify(advancing)}`);
      await until(async () => (await call<{ status: string }>('GET', `/payment/test-clocks/${clockId}`)).status === 'ready', `clock ${clockId} ready at ${frozenTime}`);
    },
  };
}
