import type { IncomingMessage } from 'node:http';
import { productColumns } from '../../db/products';
import { toProductDto } from '../../domain/products/dto';
import { slugify, withTimestampSuffix } from '../../domain/products/slug';
import { createDatabase } from '../../db/connection';
import { newId } from '../../lib/ids';
import { serveBare, sendJson } from './bare';

/**
 * Ceiling for `POST /api/v1/storefront/products`: read and parse the JSON body, one INSERT (a fresh suffixed
 * slug, so no collision check), the same DTO code, with no authentication, validation, transaction or event.
 * Env: BENCH_ACCOUNT_ID, BENCH_ENVIRONMENT, BENCH_WORKSPACE_SLUG, PUBLIC_BASE_URL.
 */
const accountId = process.env.BENCH_ACCOUNT_ID ?? '';
const environment = process.env.BENCH_ENVIRONMENT ?? 'test';
const storefront = { workspaceSlug: process.env.BENCH_WORKSPACE_SLUG ?? null, baseUrl: process.env.PUBLIC_BASE_URL ?? 'http://localhost:3000' };

// The model registry supplies the column list; this Sequelize instance never opens a connection.
createDatabase({ url: process.env.DATABASE_URL ?? '' });
const sql = `INSERT INTO products (id, account_id, environment, name, slug, price, currency, type)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${productColumns('')}`;

async function readJson(req: IncomingMessage): Promise<{ name: string; price: number; currency: string; type: string }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

serveBare({
  'POST /api/v1/storefront/products': async (pool, req, res) => {
    const body = await readJson(req);
    const { rows } = await pool.query<Parameters<typeof toProductDto>[0]>({ name: 'ceiling-product-insert', text: sql }, [
      newId('prod'),
      accountId,
      environment,
      body.name,
      withTimestampSuffix(slugify(body.name)),
      body.price,
      body.currency,
      body.type,
    ]);
    sendJson(res, 201, { data: toProductDto(rows[0]!, [], storefront), error: null, meta: { requestId: null, timestamp: new Date().toISOString() } });
  },
});
