import type { WorkflowHandle } from '@temporalio/client';
import { loadConfig } from '../../lib/config';
import { LIFECYCLE_STATE, workflowIds } from '../../workflows/messages';
import { CHECKOUT_SESSIONS, checkoutApiEnv, createSession } from '../helpers/checkout';
import { http, useTestApi } from '../helpers/context';
import { waitFor } from '../helpers/wait';
import { startTestWorker, type RunningWorker } from '../helpers/worker';

const env = checkoutApiEnv();
const t = useTestApi(env);
jest.setTimeout(180_000);
let worker: RunningWorker;

beforeAll(async () => {
  worker = await startTestWorker(t.ctx.sequelize, env.TEMPORAL_TASK_QUEUE, { config: loadConfig({ ...process.env, ...env }) });
});
afterAll(async () => {
  await worker?.stop();
});

const stateOf = async (handle: WorkflowHandle) => (await handle.describe()).typedSearchAttributes.get(LIFECYCLE_STATE);

/** Every LifecycleState the run upserted, in order, read from its history. */
async function upserted(handle: WorkflowHandle): Promise<string[]> {
  const history = await handle.fetchHistory();
  return history.events!.flatMap((e) => {
    const payload = e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.[LIFECYCLE_STATE.name];
    return payload?.data ? [JSON.parse(Buffer.from(payload.data).toString('utf8')) as string] : [];
  });
}

describe('LifecycleState of a checkout session', () => {
  it('moves awaiting_payment → pending_review → fulfilling → completed as the buyer pays and the merchant confirms', async () => {
    const ws = await t.ctx.createWorkspace();
    const session = await createSession(t.api.baseUrl, ws.secretKey);
    const handle = t.ctx.temporal.workflow.getHandle(workflowIds.checkoutSession(session.id));
    await waitFor(async () => (await stateOf(handle).catch(() => undefined)) === 'awaiting_payment');
    // Listed by the operator's query too.
    const query = `AccountId = "${ws.accountId}" AND LifecycleState = "awaiting_payment"`;
    await waitFor(async () => {
      const ids: string[] = [];
      for await (const run of t.ctx.temporal.workflow.list({ query })) ids.push(run.workflowId);
      return ids.includes(handle.workflowId);
    });

    expect((await http(t.api.baseUrl, 'POST', `${CHECKOUT_SESSIONS}/${session.id}/pay`, { body: { paymentMethod: 'va' } })).status).toBe(200);
    await waitFor(async () => (await stateOf(handle)) === 'pending_review');

    expect((await http(t.api.baseUrl, 'POST', `${CHECKOUT_SESSIONS}/${session.id}/confirm`, { key: ws.secretKey })).status).toBe(200);
    expect(await handle.result()).toBe('fulfilled');
    expect(await stateOf(handle)).toBe('completed');
    expect(await upserted(handle)).toEqual(['awaiting_payment', 'pending_review', 'fulfilling', 'completed']);
  });
});
