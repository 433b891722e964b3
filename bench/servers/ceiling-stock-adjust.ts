import type { IncomingMessage } from 'node:http';
import { createDatabase } from '../../db/connection';
import { LOCK_STOCK_TARGETS_SQL, moveStockSql, moveStockValues, type MovementRow, type StockBalances } from '../../db/inventory';
import { toMovementDto } from '../../domain/inventory';
import { newId } from '../../lib/ids';
import { serveBare, sendJson } from './bare';
import { lookUpKey } from './key-lookup';

/**
 * Ceiling for `POST /api/v1/inventory/adjust` (an `available` reason) on an active variant and warehouse with the
 * stock to cover it: the route's database work in the route's round trips — the key lookup (the module flag comes
 * with the key, as on the route), then one transaction of the route's own statements (db/inventory.ts), each a
 * named prepared statement: START TRANSACTION, the variant and warehouse under FOR SHARE, the stock change (the
 * guarded UPDATE of the stock row, which takes the row lock every mover of this variant queues on, and the movement
 * INSERT, in one statement), COMMIT — and the same DTO code after the COMMIT, with no framework, validation, rate
 * limiting or logging.
 */

// The model registry supplies the movement's column list; this Sequelize instance never opens a connection.
createDatabase({ url: process.env.DATABASE_URL ?? '' });

interface AdjustBody {
  variantId: string;
  warehouseId: string;
  delta: number;
  reason: string;
}

async function readJson(req: IncomingMessage): Promise<AdjustBody> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

serveBare({
  'POST /api/v1/inventory/adjust': async (pool, req, res) => {
    const key = await lookUpKey(pool, req);
    if (!key) return sendJson(res, 401, { error: 'INVALID_API_KEY' });
    if (!key.fulfillmentEnabled) return sendJson(res, 409, { error: 'fulfillment_module_disabled' });
    const body = await readJson(req);
    const tenant = { accountId: key.accountId, environment: key.environment };
    const stockKey = [body.variantId, body.warehouseId, tenant.accountId, tenant.environment];
    const deltas: StockBalances = { available: body.delta, reserved: 0, incoming: 0 };
    const client = await pool.connect();
    try {
      await client.query('START TRANSACTION');
      const targets = await client.query<{ archived: boolean }>({ name: 'ceiling-stock-targets', text: LOCK_STOCK_TARGETS_SQL, values: stockKey });
      if (targets.rows.length !== 2 || targets.rows.some((t) => t.archived)) {
        await client.query('ROLLBACK');
        return sendJson(res, 409, { error: 'INVALID_STATE' });
      }
      const change = moveStockValues(tenant, {
        id: newId('mvt'),
        variantId: body.variantId,
        warehouseId: body.warehouseId,
        kind: 'adjust',
        reason: body.reason,
        deltas,
        actorType: 'api_key',
        actorId: key.id,
        reference: null,
        note: null,
      });
      const [movement] = (await client.query<MovementRow>({ name: 'ceiling-stock-move', text: moveStockSql(), values: change })).rows;
      if (!movement) {
        await client.query('ROLLBACK');
        return sendJson(res, 409, { error: 'INSUFFICIENT_STOCK' });
      }
      await client.query('COMMIT');
      sendJson(res, 201, { data: toMovementDto(movement), error: null, meta: { requestId: null, timestamp: new Date().toISOString() } });
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    } finally {
      client.release();
    }
  },
});
