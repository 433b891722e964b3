import type { IncomingMessage } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import { createDatabase } from '../../db/connection';
import { debitAvailableStatement } from '../../db/ledger';
import { payoutCreateContextStatement, payoutInsertStatement, toPayoutCreateContext, type PayoutRow } from '../../db/payouts';
import { claimWorkflowStartsStatement, markWorkflowStartsStatement, workflowStartInsertStatement, type PendingWorkflowStart } from '../../db/workflow-starts';
import { toPayoutDto } from '../../domain/payouts';
import { createStarters, durableWorkflowId } from '../../domain/workflow-starters';
import { API_START_TIMEOUT_MS } from '../../domain/workflow-starts';
import { createCryptoBox, parseEncryptionKey } from '../../lib/crypto-box';
import { newId } from '../../lib/ids';
import { createDataConverter } from '../../lib/payload-codec';
import { DEFAULT_TASK_QUEUE } from '../../workflows/messages';
import { serveBare, sendJson } from './bare';
import { lookUpKey } from './key-lookup';

/**
 * Ceiling for `POST /api/v1/payouts` on a workspace with a configured bank account and the balance to cover it: the
 * route's database work in the route's round trips — the key lookup, the context read (balance and bank account),
 * one transaction with the very payout INSERT, workflow-start INSERT and balance debit the route sends (the debit
 * last, holding the balance row's lock only to the commit), then the start's fast path (claim, the Temporal start
 * through the same dispatch, mark) — and the same DTO code, with no framework, validation, idempotency, rate
 * limiting or logging. Env: ENCRYPTION_KEY, TEMPORAL_ADDRESS.
 */
const box = createCryptoBox(parseEncryptionKey(process.env.ENCRYPTION_KEY ?? ''));
// The model registry supplies the column lists; this Sequelize instance never opens a connection.
createDatabase({ url: process.env.DATABASE_URL ?? '' });

const startersReady = Connection.connect({ address: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' }).then((connection) =>
  createStarters(new Client({ connection, namespace: 'default', dataConverter: createDataConverter(box.keyRing) }), { taskQueue: DEFAULT_TASK_QUEUE }),
);

async function readJson(req: IncomingMessage): Promise<{ amount: number; currency: string }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

serveBare({
  'POST /api/v1/payouts': async (pool, req, res) => {
    const key = await lookUpKey(pool, req);
    if (!key) return sendJson(res, 401, { error: 'INVALID_API_KEY' });
    const body = await readJson(req);
    const tenant = { accountId: key.accountId, environment: key.environment };
    const currency = body.currency.toUpperCase();
    const context = toPayoutCreateContext((await pool.query(payoutCreateContextStatement(tenant, currency))).rows[0]);
    if (context.available === null || !context.bankAccount || body.amount > context.available) return sendJson(res, 409, { error: 'refused' });
    const id = newId('pout');
    const input = { ...tenant, payoutId: id };
    const workflowId = durableWorkflowId('payout', input);
    const client = await pool.connect();
    try {
      await client.query('START TRANSACTION');
      const { rows } = await client.query<PayoutRow>(payoutInsertStatement({ id, ...tenant, backend: 'manual', amount: body.amount, currency, ...context.bankAccount, note: null }));
      await client.query({ name: 'ceiling-start', ...workflowStartInsertStatement(tenant, { workflowType: 'payout', workflowId, args: input }) });
      const debit = await client.query(debitAvailableStatement(tenant, { id: newId('txn'), type: 'payout', sourceId: id, currency, amount: body.amount }));
      if (debit.rowCount === 0) {
        await client.query('ROLLBACK');
        return sendJson(res, 409, { error: 'INSUFFICIENT_BALANCE' });
      }
      await client.query('COMMIT');
      const payout = toPayoutDto(rows[0]!, box);

      const starters = await startersReady;
      await client.query('START TRANSACTION');
      const claimed = await client.query<PendingWorkflowStart>({ name: 'ceiling-claim', ...claimWorkflowStartsStatement({ workflowIds: [workflowId] }) });
      for (const row of claimed.rows) await starters.startRecorded(row, API_START_TIMEOUT_MS);
      await client.query({ name: 'ceiling-started', ...markWorkflowStartsStatement(claimed.rows.map((r) => r.id)) });
      await client.query('COMMIT');
      sendJson(res, 201, { data: payout, error: null, meta: { requestId: null, timestamp: new Date().toISOString() } });
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    } finally {
      client.release();
    }
  },
});
