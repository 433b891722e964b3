import type { IncomingMessage } from 'node:http';
import { eventInsertStatement } from '../../db/outbox';
import { productInsertStatement, type ProductAttributes } from '../../db/products';
import { createDatabase } from '../../db/connection';
import { PRODUCT_EVENTS, slugify, toProductDto } from '../../domain/products';
import { newId } from '../../lib/ids';
import { serveBare, sendJson } from './bare';
import { lookUpKey } from './key-lookup';

/**
 * Ceiling for `POST /api/v1/storefront/products`: the route's database work in the route's round trips for
 * a `pro` workspace (no plan cap to count) and a free slug — the key lookup, then one transaction holding
 * the very product INSERT and outbox INSERT the route sends — and the same DTO code, with no framework,
 * validation, idempotency, rate limiting or logging. Env: PUBLIC_BASE_URL.
 */
const baseUrl = process.env.PUBLIC_BASE_URL ?? 'http://localhost:3000';

// The model registry supplies the column list; this Sequelize instance never opens a connection.
createDatabase({ url: process.env.DATABASE_URL ?? '' });

async function readJson(req: IncomingMessage): Promise<{ name: string; price: number; currency: string; type: string }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

serveBare({
  'POST /api/v1/storefront/products': async (pool, req, res) => {
    const key = await lookUpKey(pool, req);
    if (!key) return sendJson(res, 401, { error: 'INVALID_API_KEY' });
    const body = await readJson(req);
    const tenant = { accountId: key.accountId, environment: key.environment };
    const insert = productInsertStatement({ ...body, id: newId('prod'), ...tenant, slug: slugify(body.name) });
    const client = await pool.connect();
    try {
      await client.query('START TRANSACTION');
      const { rows } = await client.query<ProductAttributes>(insert);
      const product = toProductDto(rows[0]!, [], { workspaceSlug: key.slug, baseUrl });
      await client.query(eventInsertStatement(tenant, PRODUCT_EVENTS.created, product));
      await client.query('COMMIT');
      sendJson(res, 201, { data: product, error: null, meta: { requestId: null, timestamp: new Date().toISOString() } });
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    } finally {
      client.release();
    }
  },
});
