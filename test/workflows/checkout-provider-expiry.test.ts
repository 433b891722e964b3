import { createActivities } from '../../activities';
import { Account, CheckoutSession } from '../../db/models';
import { providerInvoicesOf } from '../../domain/checkout/backends';
import { createStarters } from '../../domain/workflow-starters';
import { startRecordedNow } from '../../domain/workflow-starts';
import { loadConfig } from '../../lib/config';
import { createLogger } from '../../lib/logger';
import type { PaymentSandbox } from '../../lib/payment-provider/sandbox';
import type { checkoutSession } from '../../workflows/checkout-session';
import { workflowIds } from '../../workflows/messages';
import { insertCheckoutSessionRow } from '../fixtures/checkout';
import { newTenant } from '../fixtures/workspaces';
import { createTestContext, type TestContext } from '../helpers/context';
import { sandboxEnv, startTestSandbox } from '../helpers/payment-sandbox';
import { useTimeSkippingWorker } from '../helpers/time-skipping';
import { testActivityDeps } from '../helpers/worker';

// The checkout-session workflow's expiry of a provider-mode session: the provider invoice is expired with it, in
// the expiry step itself (the workflow's code and history are unchanged), and a provider outage only retries it.

let ctx: TestContext;
let sandbox: PaymentSandbox;
let config: ReturnType<typeof loadConfig>;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  ctx = await createTestContext();
  config = loadConfig({ ...process.env, ...sandboxEnv(sandbox.baseUrl) });
});
afterAll(async () => {
  await ctx.close();
  await sandbox.close();
});

describe('checkout-session workflow, provider mode (time-skipping server, real activities, sandbox provider)', () => {
  const timeSkipping = useTimeSkippingWorker();

  async function providerSession() {
    const tenant = await newTenant(ctx);
    await Account.update({ paymentEnabled: true }, { where: { id: tenant.accountId } });
    const session = await insertCheckoutSessionRow(ctx.sequelize, tenant, { now: new Date(await timeSkipping.env.currentTimeMs()) });
    expect(session.backend).toBe('provider');
    await ctx.sequelize.transaction((tx) => providerInvoicesOf(config).open(tx, session));
    return session;
  }

  async function runToEnd(session: CheckoutSession, activities: object) {
    return timeSkipping.run(
      async (env, taskQueue) => {
        const starters = createStarters(env.client, { taskQueue, searchAttributes: false });
        const workflowId = workflowIds.checkoutSession(session.id);
        await startRecordedNow({ sequelize: ctx.sequelize, starters, logger: createLogger('silent', 'provider-expiry-test') }, workflowId);
        return env.client.workflow.getHandle<typeof checkoutSession>(workflowId).result();
      },
      { activities },
    );
  }

  it('expires the provider invoice when the workflow expires the session; the invoice can no longer be paid', async () => {
    const session = await providerSession();
    const invoice = sandbox.invoices.get(session.providerInvoiceId!)!;
    expect(invoice.status).toBe('PENDING');
    expect(await runToEnd(session, createActivities(testActivityDeps(ctx.sequelize, { config })))).toBe('expired');
    expect((await CheckoutSession.findByPk(session.id))!.status).toBe('expired');
    expect(invoice.status).toBe('EXPIRED');
    const pay = await fetch(`${session.providerInvoiceUrl!}/pay`, { method: 'POST', body: new URLSearchParams({ channel: 'QRIS' }), redirect: 'manual' });
    expect(pay.status).toBe(303);
    expect(invoice.status).toBe('EXPIRED');
  });

  it('retries the invoice expiry while the provider does not answer, after the row is already expired', async () => {
    const session = await providerSession();
    const invoice = sandbox.invoices.get(session.providerInvoiceId!)!;
    const real = createActivities(testActivityDeps(ctx.sequelize, { config }));
    const down = createActivities(testActivityDeps(ctx.sequelize, { config: loadConfig({ ...process.env, ...sandboxEnv('http://127.0.0.1:9') }) }));
    let attempts = 0;
    const activities = {
      ...real,
      async expireCheckoutIfOpen(input: Parameters<typeof real.expireCheckoutIfOpen>[0]) {
        attempts += 1;
        // The first attempt writes the row and then finds the provider down; the retry only repeats the call.
        return attempts === 1 ? down.expireCheckoutIfOpen(input) : real.expireCheckoutIfOpen(input);
      },
    };
    expect(await runToEnd(session, activities)).toBe('expired');
    expect(attempts).toBe(2);
    expect(invoice.status).toBe('EXPIRED');
  });
});
